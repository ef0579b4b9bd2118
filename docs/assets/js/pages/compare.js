// pages/compare.js: compare mode (.lb-compare, compare.html?by=gpu&a=…&b=…): A against B along one
// dimension over the configurations both have, read as "how many times faster is B than A"; its pickers,
// the answer (median, range, count), the dot plot by workload and the list on demand. With estimates on
// (?kind=* or kind=modelled, as in the explorer) each configuration's estimated pair stands beside its
// measured one, marked, never in the measured figures; as in the explorer, estimates not validated are held
// back unless ?est_low=1 (calc/estimates.js isHeldBack, the explorer's rule).
// At scale (cfg.scale, issue 29) the pickers come from their columns' combinations (compare.combos) and
// each GPU's runs, and each model's, are a file of their own: comparing two GPUs, or along another
// dimension on one GPU, loads those GPUs' runs only; a comparison over every GPU filtered on a model loads
// that model's runs; any other comparison loads every run.
// In: the placeholder (data-lb-config from site_gen/pages/compare.py), the page's charts. Out: {ready, destroy}.
// Side effects: the placeholder's elements; the URL (replaced, through state/url.js).

import { cardHref, el, json, showError } from "../dom.js";
import { UI } from "../messages.js";
import * as url from "../state/url.js";
import { fixedMatcher, openSource, valueCodes } from "../data/source.js";
import * as calc from "../calc/compare.js";
import { isHeldBack, LOW_KEY } from "../calc/estimates.js";
import { setRows } from "../views/chart.js";
import { renderAnswer, renderList, times } from "../views/compare-summary.js";

// The order of a compared column's values (registry order for GPUs, release order for versions).
const SORT_COLUMN = { gpu: "gpu_order", engine_version: "version_key", precision: "precision_order", workload: "workload_order" };
const values = (rows, column) => valueCodes(rows, { column, sort_column: SORT_COLUMN[column] || null }).values;

function select(label, value, options, onChange, anyLabel) {
  const box = el("label", { class: "lb-compare-field" });
  box.append(el("span", {}, label + " "));
  const sel = el("select");
  if (anyLabel) sel.append(el("option", { value: "" }, anyLabel));
  for (const o of options) {
    const opt = el("option", { value: o }, o);
    if (o === value) opt.selected = true;
    sel.append(opt);
  }
  sel.addEventListener("change", () => onChange(sel.value));
  box.append(sel);
  return box;
}

export function mountCompare(root, charts) {
  const cfg = json(root, "data-lb-config", {});
  const ui = cfg.ui;
  const bar = root.querySelector(".lb-compare-bar");
  const tableNode = root.querySelector(".lb-compare-table");
  const q = (sel) => root.querySelector(sel);
  const nodes = {
    sentence: q(".lb-compare-summary"), stats: q(".lb-compare-stats"), shared: q(".lb-compare-shared"),
    estimate: q(".lb-compare-estimate"), details: q(".lb-compare-list"), legend: q(".lb-compare-legend"),
    legendEstimate: q(".lb-compare-legend-estimate"),
  };
  // filters besides the compared dimension: model, workload and the other "by" dimensions
  const filters = [
    { key: "model", label: ui.model, column: "model_name" },
    { key: "workload", label: ui.workload, column: "workload" },
    ...cfg.by,
  ];
  let all = [], est = [], state = null, chart = null;
  let pick = []; // the rows the pickers' values come from: every usable run, or at scale their combinations
  const scale = cfg.scale || null;
  const source = openSource(root.dataset.lbSrc, root.dataset.lbKey);
  const fixed = fixedMatcher(json(root, "data-lb-fixed", {}));
  const split = (rows) => {
    const kept = rows.filter(fixed);
    return { all: calc.usable(kept, cfg), est: calc.estimates(kept, cfg) };
  };
  let every = null; // Promise of every run, split (loaded once, when a comparison needs it)
  const everyRun = () => every || (every = source.rows().then(split));
  const partRuns = { gpu: new Map(), model: new Map() }; // at scale: value -> Promise of its runs, split
  const byDim = () => cfg.by.find((d) => d.key === state.by);

  function readUrl(search) {
    const q = new URLSearchParams(search);
    // no pair asked for: the most-compared pair of the data (site_gen.pages.compare.most_compared)
    const def = !q.get("a") && !q.get("b") && (!q.get("by") || q.get("by") === cfg.default?.by) ? cfg.default : null;
    const by = cfg.by.find((d) => d.key === (q.get("by") || def?.by)) || cfg.by[0];
    const free = (cfg.free || []).includes(q.get("free")) ? q.get("free") : "";
    const kinds = q.getAll("kind");
    const estimates = kinds.includes("*") || kinds.includes(cfg.estimate_kind);
    const low = q.get(LOW_KEY) === "1";
    const s = { by: by.key, a: q.get("a") || def?.a || "", b: q.get("b") || def?.b || "", where: {}, free, estimates, low };
    for (const f of filters) if (f.key !== by.key && q.get(f.key)) s.where[f.key] = q.get(f.key);
    return s;
  }

  function writeUrl() {
    const q = new URLSearchParams({ by: state.by, a: state.a, b: state.b });
    for (const [k, v] of Object.entries(state.where)) q.set(k, v);
    if (state.free) q.set("free", state.free);
    if (state.estimates) q.set("kind", "*"); // every kind, as the explorer's URL says it
    if (state.estimates && state.low) q.set(LOW_KEY, "1");
    url.replaceQuery(q, false);
  }

  // Rows passing the filters other than the compared dimension.
  function filtered(from = all) {
    const tests = Object.entries(state.where).map(([k, v]) => [filters.find((f) => f.key === k).column, v]);
    return from.filter((r) => tests.every(([c, v]) => String(r[c]) === v));
  }

  // The runs a comparison needs: at scale, those of the GPUs it compares or is filtered on, else of the
  // model it is filtered on (own keys only: a hand-made ?a=__proto__ names no file), else every run.
  async function runsFor(s) {
    const gpus = !scale ? null : s.by === "gpu" ? [...new Set([s.a, s.b])] : s.where.gpu ? [s.where.gpu] : null;
    const [dim, named] = gpus ? ["gpu", gpus] : scale && s.where.model ? ["model", [s.where.model]] : [null, null];
    if (!dim) return everyRun();
    const files = dim === "gpu" ? scale.gpus : scale.models;
    const parts = named.filter((v) => Object.prototype.hasOwnProperty.call(files, v)).map((v) => {
      if (!partRuns[dim].has(v)) partRuns[dim].set(v, source.load(files[v]).then(split));
      return partRuns[dim].get(v);
    });
    const got = await Promise.all(parts);
    return { all: got.flatMap((p) => p.all), est: got.flatMap((p) => p.est) };
  }

  // The compared dimension's values under the other filters; A and B kept among them (or the first two).
  function choosePair() {
    const options = values(filtered(pick), byDim().column);
    if (!options.includes(state.a)) state.a = options[0] || "";
    if (!options.includes(state.b)) state.b = options.find((o) => o !== state.a) || "";
    return options;
  }

  function buildBar(options) {
    const by = byDim();
    const set = (patch) => {
      Object.assign(state, patch);
      update(true);
    };
    bar.replaceChildren(
      select(ui.by, by.label, cfg.by.map((d) => d.label), (label) => {
        const d = cfg.by.find((x) => x.label === label);
        const where = { ...state.where };
        delete where[d.key];
        set({ by: d.key, a: "", b: "", where });
      }),
      select(ui.a, state.a, options, (v) => set({ a: v })),
      select(ui.b, state.b, options, (v) => set({ b: v })),
      ...filters
        .filter((f) => f.key !== by.key)
        .map((f) =>
          select(f.label, state.where[f.key] || "", values(pick, f.column), (v) => {
            const where = { ...state.where };
            if (v) where[f.key] = v;
            else delete where[f.key];
            set({ where });
          }, ui.any)
        )
    );
    if (by.column !== "precision" && (cfg.free || []).includes("precision")) {
      const box = el("label", { class: "lb-compare-field" });
      const check = el("input", { type: "checkbox" });
      check.checked = state.free !== "precision";
      check.addEventListener("change", () => set({ free: check.checked ? "" : "precision" }));
      box.append(check, " " + ui.free);
      bar.append(box);
    }
    if (est.length) bar.append(checkbox(ui.estimates, state.estimates, (on) => set({ estimates: on })));
    if (state.estimates && est.some(isHeldBack)) bar.append(checkbox(ui.est_low, state.low, (on) => set({ low: on })));
  }

  function checkbox(label, checked, onChange) {
    const box = el("label", { class: "lb-compare-field lb-compare-estimates" });
    const check = el("input", { type: "checkbox" });
    check.checked = checked;
    check.addEventListener("change", () => onChange(check.checked));
    box.append(check, " " + label);
    return box;
  }

  // The rows of one comparison: the measured pairs, and the estimated ones when asked for, keyed alike.
  function work(rows) {
    const by = byDim().column, metric = cfg.metric;
    const opts = { by, a: state.a, b: state.b, match: cfg.match, metric, free: state.free };
    const side = (p) => ({ a: p.a[metric], b: p.b[metric], ratio: calc.ratio(p, metric), a_run: p.a.run_id, b_run: p.b.run_id });
    const measured = calc.pairs(rows, opts);
    const estKeys = calc.matchKeys(cfg.estimate_match, by, state.free);
    const shown = filtered(est).filter((r) => state.low || !isHeldBack(r));
    const estimated = state.estimates ? calc.pairs(shown, { ...opts, match: cfg.estimate_match }) : [];
    const byKey = new Map(estimated.map((p) => [p.key, p]));
    const list = measured.map((p) => {
      const k = calc.configKey(p.a, estKeys);
      const e = byKey.get(k);
      byKey.delete(k); // an estimate beside its measured pair is not listed again on its own
      return { pair: p, measured: side(p), estimate: e ? side(e) : null };
    });
    for (const e of byKey.values()) list.push({ pair: e, measured: null, estimate: side(e) });
    const parts = list.map((r) => calc.labelParts({ ...r.pair.a, other: r.pair.b }, by, state.free));
    const split = calc.splitShared(parts);
    list.forEach((r, i) => (r.label = split.labels[i]));
    return { list, shared: split.shared, measured, estimated };
  }

  // The dot plot's rows: one line per workload, labelled with its measured median.
  function chartRows(list) {
    const lines = new Map();
    for (const r of list) {
      const w = r.pair.a.workload;
      if (!lines.has(w)) lines.set(w, { order: r.pair.a.workload_order, ratios: [] });
      if (r.measured) lines.get(w).ratios.push(r.measured.ratio);
    }
    // each line's label once (once per row was a sort per row: 42 s for 45,500 pairs)
    for (const [w, line] of lines) {
      const s = calc.summary(line.ratios);
      line.label = s ? `${w} · ${times(s.median)}×` : w;
    }
    const out = [];
    for (const r of list) {
      const w = r.pair.a.workload;
      for (const [basis, v] of [["measured", r.measured], ["estimate", r.estimate]]) {
        if (!v) continue;
        out.push({
          group: lines.get(w).label, order: lines.get(w).order, basis, kind: ui[basis], label: r.label || w,
          a: v.a, b: v.b, ratio: v.ratio, run_id: null,
        });
      }
    }
    return out;
  }

  let updates = 0;
  async function update(push) {
    const mine = ++updates;
    const options = choosePair();
    if (push) writeUrl();
    const runs = await runsFor(state);
    if (mine !== updates) return; // a newer choice took over while the runs loaded
    ({ all, est } = runs);
    const rows = filtered();
    buildBar(options);
    const { list, shared, measured, estimated } = work(rows);
    const sum = calc.summary(measured.map((p) => calc.ratio(p, cfg.metric)));
    const estSum = state.estimates ? calc.summary(estimated.map((p) => calc.ratio(p, cfg.metric))) || { n: 0 } : null;
    const side = (r) => [state.a, state.b].includes(String(r[byDim().column]));
    if (estSum) estSum.held = state.low ? 0 : filtered(est).filter((r) => isHeldBack(r) && side(r)).length;
    renderAnswer(nodes, ui, { a: state.a, b: state.b, sum, shared, est: estSum });
    // hidden, not removed: its line is kept from the first paint (no layout shift when it appears)
    nodes.legend.style.visibility = list.length ? "" : "hidden";
    nodes.legendEstimate.hidden = !estimated.length;
    renderList(nodes.details, tableNode, ui, {
      a: state.a, b: state.b, rows: list, withEstimates: state.estimates, href: (id) => cardHref(root, id),
    });
    await setRows(chart, chartRows(list));
    root.dataset.lbRendered = String((Number(root.dataset.lbRendered) || 0) + 1);
  }

  async function start() {
    pick = scale ? await source.load(scale.combos) : (await everyRun()).all;
    state = readUrl(url.search());
    root.querySelectorAll(".lb-preset").forEach((a) =>
      a.addEventListener("click", (ev) => {
        ev.preventDefault();
        ev.stopPropagation();
        state = readUrl(new URL(a.href).search);
        update(true);
      })
    );
    const record = charts.of(root.querySelector(".lb-chart"));
    record.source = () => null; // compare sets the rows itself
    chart = await charts.draw(record);
    await update(false);
    // the box's room was reserved for the default pair's plot (site_gen.pages.markers.compare_reserve),
    // which it now holds: a pair with fewer lines must not keep the rest as a gap under its chart
    chart.el.style.minHeight = "";
  }

  // the runs could not be loaded: said in the chart's place (its "Loading chart…" would stay for ever)
  const failed = (e) => {
    showError(root.querySelector(".lb-chart"), UI.chartError, e);
    throw e;
  };
  return { ready: start().catch(failed), destroy() {} };
}
