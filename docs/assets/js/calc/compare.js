// calc/compare.js: compare mode's arithmetic, pure: the runs a comparison may use, the best-run pairs of
// the configurations both sides have, B ÷ A ("how many times faster is B than A") and its summary (median,
// range, count, geometric mean), the parts of a pair's label and which of them every pair shares. The
// rule's data (match columns, metric, excluded kinds, bound) comes from site_gen/pages/compare.py
// (data-lb-config); its Python twins are site_gen.pages.compare.matched, ratios and summary, tested on the same
// cases under node (tests/site/test_js_pure.py, tests/site/test_compare_summary.py).
// In: row objects, the config. Out: rows, pairs {a, b, key}, numbers, label parts. Side effects: none.

/** Runs with the metric, of an included source kind, not above their speed-of-light bound. */
export function usable(rows, cfg) {
  const excluded = new Set(cfg.excluded_kinds || []);
  const metric = cfg.metric;
  return rows
    .filter((r) => r[metric] !== null && r[metric] !== undefined && !excluded.has(r.source_kind))
    .filter((r) => !(r.pct_of_bound > cfg.max_pct_of_bound)); // a flagged run never becomes a side's best
}

/** Estimates (source kind ``cfg.estimate_kind``) with the metric: paired only among themselves. */
export function estimates(rows, cfg) {
  const metric = cfg.metric;
  return rows.filter((r) => r.source_kind === cfg.estimate_kind && r[metric] !== null && r[metric] !== undefined);
}

/** The columns that make a configuration: every ``match`` column but the compared one and a free one. */
export const matchKeys = (match, by, free) => match.filter((c) => c !== by && c !== free);

/** A configuration's key: the text of its ``keys`` columns (a missing value is one value). */
export const configKey = (r, keys) => keys.map((c) => String(r[c] ?? "")).join("\u0001");

/** Configurations with runs on both sides (column ``by`` equal to ``a`` and to ``b``; every ``match``
 * column but ``by`` and ``free`` equal): per side the best run (highest metric), in a stable order. */
export function pairs(rows, { by, a, b, match, metric, free }) {
  const keys = matchKeys(match, by, free);
  const best = new Map(); // configuration key -> {a, b, key}
  for (const r of rows) {
    const v = String(r[by]);
    const side = v === a ? "a" : v === b ? "b" : null;
    if (!side) continue;
    const k = configKey(r, keys);
    const entry = best.get(k) || { key: k };
    if (!entry[side] || r[metric] > entry[side][metric]) entry[side] = r;
    best.set(k, entry);
  }
  const out = [];
  for (const e of best.values()) if (e.a && e.b) out.push(e);
  const order = (r) => [r.model_name, r.precision_order, r.workload_order, r.tp, r.pp, r.publisher, r.version_key];
  out.sort((x, y) => {
    const p = order(x.a), q = order(y.a);
    for (let i = 0; i < p.length; i++) if (p[i] !== q[i]) return p[i] < q[i] ? -1 : 1;
    return 0;
  });
  return out;
}

/** "How many times faster is B than A" for one pair: B's metric ÷ A's. */
export const ratio = (pair, metric) => pair.b[metric] / pair.a[metric];

/** The geometric mean of positive ratios (null for none): exp(mean(log r)). */
export function geomean(ratios) {
  if (!ratios.length) return null;
  return Math.exp(ratios.reduce((s, r) => s + Math.log(r), 0) / ratios.length);
}

/** Median (the mean of the two middle values for an even count), range, count and geometric mean of the
 * ratios; null for none. */
export function summary(ratios) {
  if (!ratios.length) return null;
  const s = [...ratios].sort((x, y) => x - y);
  const m = s.length >> 1;
  const median = s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
  return { n: s.length, median, min: s[0], max: s[s.length - 1], geomean: geomean(s) };
}

/** What a pair's configuration is, leaving out the compared column: [{key, text}] in reading order.
 * ``r.other`` is B's run (its precision differs when precision is free). */
export function labelParts(r, by, free) {
  const parts = [];
  if (by !== "gpu") parts.push({ key: "gpu", text: r.gpu });
  parts.push({ key: "model", text: r.model_name });
  if (by !== "precision") {
    const text = free === "precision" && r.other ? `${r.precision} vs ${r.other.precision}` : r.precision;
    parts.push({ key: "precision", text });
  }
  parts.push({ key: "workload", text: r.workload });
  parts.push({ key: "layout", text: "TP" + r.tp + (r.pp > 1 ? " PP" + r.pp : "") + (r.ep > 1 ? " EP" + r.ep : "") });
  if (by !== "engine") parts.push({ key: "engine", text: r.engine });
  parts.push({ key: "source", text: r.publisher + (by !== "engine_version" ? " " + r.engine_version : "") });
  return parts;
}

/** Split the parts of many labels into what every one shares (said once) and each one's own label (the
 * rest, joined by " · "; all shared: ""). */
export function splitShared(partsList) {
  if (!partsList.length) return { shared: [], labels: [] };
  const first = partsList[0];
  const same = new Set(
    first.map((p) => p.key).filter((k) => partsList.every((ps) => ps.find((p) => p.key === k)?.text === first.find((p) => p.key === k).text))
  );
  return {
    shared: first.filter((p) => same.has(p.key)).map((p) => p.text),
    labels: partsList.map((ps) => ps.filter((p) => !same.has(p.key)).map((p) => p.text).join(" · ")),
  };
}
