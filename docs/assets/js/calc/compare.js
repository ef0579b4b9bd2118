// calc/compare.js: compare mode's arithmetic, pure: the runs a comparison may use, the best-run pairs of
// the configurations both sides have, and their geometric mean. The rule's data (match columns, metric,
// excluded kinds, bound) comes from site_gen/pages/compare.py (data-lb-config); its Python twin is
// site_gen.pages.compare.matched, tested on the same cases under node (tests/site/test_js_pure.py).
// In: row objects, the config. Out: rows, pairs {a, b}, a number. Side effects: none.

/** Runs with the metric, of an included source kind, not above their speed-of-light bound. */
export function usable(rows, cfg) {
  const excluded = new Set(cfg.excluded_kinds || []);
  const metric = cfg.metric;
  return rows
    .filter((r) => r[metric] !== null && r[metric] !== undefined && !excluded.has(r.source_kind))
    .filter((r) => !(r.pct_of_bound > cfg.max_pct_of_bound)); // a flagged run never becomes a side's best
}

/** Configurations with runs on both sides (column ``by`` equal to ``a`` and to ``b``; every ``match``
 * column but ``by`` and ``free`` equal): per side the best run (highest metric), in a stable order. */
export function pairs(rows, { by, a, b, match, metric, free }) {
  const keys = match.filter((c) => c !== by && c !== free);
  const best = new Map(); // configuration key -> {a, b}
  for (const r of rows) {
    const v = String(r[by]);
    const side = v === a ? "a" : v === b ? "b" : null;
    if (!side) continue;
    const k = keys.map((c) => String(r[c] ?? "")).join("\u0001");
    const entry = best.get(k) || {};
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

/** The geometric mean of positive ratios (null for none): exp(mean(log r)). */
export function geomean(ratios) {
  if (!ratios.length) return null;
  return Math.exp(ratios.reduce((s, r) => s + Math.log(r), 0) / ratios.length);
}

/** A pair's row label: what the configuration is, leaving out the compared column. */
export function pairLabel(r, by, free) {
  const parts = [];
  if (by !== "gpu") parts.push(r.gpu);
  const precision = free === "precision" ? `${r.precision} vs ${r.other.precision}` : r.precision;
  const layout = "TP" + r.tp + (r.pp > 1 ? " PP" + r.pp : "") + (r.ep > 1 ? " EP" + r.ep : "");
  parts.push(r.model_name + (by !== "precision" ? " " + precision : ""), r.workload, layout);
  const engine = by !== "engine" && r.engine !== "tensorrt-llm" ? " " + r.engine : "";
  parts.push(r.publisher + (by !== "engine_version" ? " " + r.engine_version : "") + engine);
  return parts.join(" · ");
}
