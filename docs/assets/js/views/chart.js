// views/chart.js: one Vega view: embedded with the Material theme, its rows sent as changesets to the
// `runs` dataset, its behaviour read from spec.usermeta.llmbench (urlSignal, tooltip, maxRows, lb_title).
// In: a chart record {el, spec} and the rows to draw (setRows). Out: chart.view. Side effects: the chart's
// own box; a click on a run's mark calls ctx.openRun (a pointer over such a mark, and a hint under a chart
// that has them, say so); a urlSignal reads/writes through ctx.param/setParam.

import { el } from "../dom.js";
import { UI } from "../messages.js";
import { COUNT, tooltipFormat } from "../format.js";
import { isDark, themeConfig } from "../theme.js";
import { priceValue } from "../state/filter.js";
import { countMarks, fillDataTable } from "./chart-table.js";
import { chartTitle, distinct, setTitle } from "./chart-title.js";

const meta = (spec) => (spec.usermeta || {}).llmbench || {};
// The spec's signals (Vega-Lite params compiled to Vega signals).
export const signals = (spec) => spec.signals || [];

/** Embed (or re-embed, after a theme change) the chart; rows already set are sent again. */
export async function renderChart(chart, ctx) {
  if (chart.view) chart.view.finalize();
  chart.el.textContent = "";
  const target = el("div", { class: "lb-vega" });
  const message = el("p", { class: "lb-status", hidden: "" });
  chart.el.append(target, message);
  chart.message = message;
  chart.target = target;
  chart.note = el("p", { class: "lb-chart-note", hidden: "" });
  chart.hint = el("p", { class: "lb-chart-hint", hidden: "" }, UI.clickHint);
  chart.el.append(chart.hint, chart.note);
  // Without its $schema and with the mode named: vega-embed otherwise checks the spec's version against
  // Vega's with a semver range parser, whose first call cost ~20 ms of the page's first chart task
  // (unthrottled; x4 in Lighthouse's phone) for a warning that logLevel below hides anyway. The build
  // compiles the specs for the vendored Vega (tests/site/test_vendor.py checks the two agree).
  const spec = { ...chart.spec };
  delete spec.$schema;
  const result = await window.vegaEmbed(target, spec, {
    mode: "vega",
    // PNG/SVG download of the chart as drawn (vega-embed's menu); no links to the online editor
    actions: { export: true, source: false, compiled: false, editor: false },
    logLevel: window.vega ? window.vega.Error : 0, // an empty selection is a message of ours, not a warning
    renderer: "canvas",
    hover: false, // no hover encodings in the specs (vega-embed turns hover on for Vega specs)
    config: themeConfig(),
    tooltip: { theme: isDark() ? "dark" : "light" },
  });
  chart.view = result.view;
  // Names for assistive technology: vega-embed's menu button is an icon only, the canvas a bare bitmap.
  const summary = target.querySelector("summary");
  if (summary) summary.setAttribute("aria-label", UI.chartMenu);
  const canvas = target.querySelector("canvas");
  if (canvas) {
    canvas.setAttribute("role", "img");
    canvas.setAttribute("aria-label", UI.chartImage(chart.el.getAttribute("aria-label") || ""));
  }
  lazyTooltip(chart);
  urlSignal(chart, ctx);
  chart.relayout = null;
  chart.queued = false;
  chart.view.addResizeListener(() => relayout(chart));
  // A control of the chart's own (e.g. "Split by source") redraws it: the data table follows.
  for (const param of signals(chart.spec)) {
    if (param.bind) chart.view.addSignalListener(param.name, () => chart.view.runAfter(() => fillDataTable(chart)));
  }
  // A mark of one run (or a bar naming its best run) opens that run's card.
  chart.view.addEventListener("click", (ev, item) => {
    const id = runOf(item && item.datum);
    if (id) ctx.openRun(chart.el, id);
  });
  // ...and says so: a pointer over it (on the canvas, over the cursor Vega sets on its container; the
  // canvas of the moment: Vega may replace it when the view is resized).
  chart.view.addEventListener("pointermove", (ev, item) => {
    const now = target.querySelector("canvas");
    if (now) now.style.cursor = runOf(item && item.datum) ? "pointer" : "";
  });
  chart.shown = null;
  chart.started = false;
  // A chart of a filter scope is embedded before its rows are chosen (rows null): it stays hidden in
  // its reserved box until they arrive, instead of showing "no runs" for a moment.
  if (chart.rows) await setRows(chart, chart.rows);
  else target.hidden = true;
}

// A width change (window resized, phone turned) is laid out by Vega in two passes: the container's width
// (Vega-Lite's window:resize handler), then the plot's width once the axes took their room. What the
// second pass re-flows (the legend's columns follow the width, site_gen.charts.specs.gpu_color; the title's
// lines, setTitle) is not measured again until the view's next run (Vega resets its autosize flag
// before that pass), so the canvas kept the first pass's height and cut the last legend rows (13-36 px
// shorter, issue 26). One more run after the change measures the final layout; a title that takes other
// lines is set first. chart.relayout: that pass's promise while one is pending (tests wait on it).
const MAX_RELAYOUTS = 3; // passes in a row that each changed the size again: a layout that does not settle
function relayout(chart) {
  if (chart.queued) return; // one pass for any number of changes in the same task
  chart.relayouts = (chart.relayouts || 0) + 1;
  if (chart.relayouts > MAX_RELAYOUTS) return void (chart.relayouts = 0); // this change stops the loop
  chart.queued = true;
  // after the run that changed the width (and its second pass) has finished: Vega resets its flag there
  const pass = (chart.relayout || Promise.resolve())
    .then(() => new Promise((resolve) => setTimeout(resolve)))
    .then(async () => {
      chart.queued = false;
      if (chart.titleParts) setTitle(chart);
      await chart.view.resize().runAsync();
      if (!chart.queued) chart.relayouts = 0; // settled: the next change starts the count afresh
    });
  chart.relayout = pass;
  pass.finally(() => chart.relayout === pass && (chart.relayout = null));
}

// A chart input kept in the page URL (usermeta.llmbench.urlSignal {signal, key, default}: the Pareto
// view's $ per GPU-hour as ?price=2.5): read on load and on back/forward (chart.urlSignal), written
// (replaced, not a new history entry per keystroke) when the reader changes it; the default leaves the
// URL clean.
function urlSignal(chart, ctx) {
  const u = meta(chart.spec).urlSignal;
  if (!u) return;
  chart.urlSignal = () => {
    const v = priceValue(ctx.param(u.key));
    return v === null ? u.default : v;
  };
  chart.view.signal(u.signal, chart.urlSignal());
  chart.view.addSignalListener(u.signal, (_, value) => {
    const v = priceValue(value);
    if (v !== null) ctx.setParam(u.key, v, u.default);
  });
}

/** Back/forward: the chart's URL input follows the address. */
export function syncUrlSignal(chart) {
  if (!chart.urlSignal || !chart.view) return;
  const name = meta(chart.spec).urlSignal.signal;
  if (chart.view.signal(name) !== chart.urlSignal()) chart.view.signal(name, chart.urlSignal()).runAsync();
}

// A chart of one mark per run may name its tooltip in usermeta.llmbench.tooltip ([{field, title, format}])
// with the mark's tooltip set to the run itself: the fields are then formatted on hover, for that run
// only, instead of for every point on every filter change. Other values pass through unchanged;
// vega-tooltip escapes whatever it shows.
function lazyTooltip(chart) {
  const fields = meta(chart.spec).tooltip;
  const show = chart.view.tooltip();
  if (!fields || !show) return;
  const formats = fields.map((f) => tooltipFormat(f.format));
  chart.view.tooltip((handler, event, item, value) => {
    if (!item || !item.datum || value !== item.datum) return show(handler, event, item, value);
    const out = {};
    fields.forEach((f, i) => {
      const v = value[f.field];
      if (v !== null && v !== undefined) out[f.title || f.field] = formats[i](v);
    });
    if (value.run_id) out[UI.openCard] = value.run_id;
    return show(handler, event, item, out);
  });
}

// The run behind a mark: the run itself (one mark per run), or the best run of an aggregate (a field
// best_run from Vega-Lite's argmax, see site_gen.charts.specs).
function runOf(datum) {
  if (!datum) return null;
  if (datum.run_id) return datum.run_id;
  return datum.best_run && datum.best_run.run_id ? datum.best_run.run_id : null;
}

// Whether any drawn mark opens a run's card (the hint under the chart is shown only then).
function hasRunMark(node) {
  if (!node) return false;
  if (node.datum && runOf(node.datum)) return true;
  return (node.items || []).some(hasRunMark);
}

// A chart may cap the rows it draws (usermeta.llmbench.maxRows, e.g. one point per run): above the cap
// it draws an even sample of the (sorted) rows and says so; counts, table and CSV keep every row.
function capped(chart, rows) {
  const max = meta(chart.spec).maxRows;
  if (!max || rows.length <= max) return { rows, note: "" };
  const step = rows.length / max;
  const sample = [];
  for (let i = 0; i < max; i++) sample.push(rows[Math.floor(i * step)]);
  return { rows: sample, note: UI.sample(COUNT.format(max), COUNT.format(rows.length)) };
}

/** Draw these rows: only the difference goes to Vega (incremental dataflow: a narrowing filter removes,
 * widening inserts); then the legend's GPUs, the title, the "no runs" message and the data table. */
export async function setRows(chart, all) {
  const { rows, note } = capped(chart, all);
  chart.note.textContent = note;
  chart.note.hidden = !note;
  const before = chart.shown || new Set();
  const after = new Set(rows);
  const removed = [], added = [];
  for (const r of before) if (!after.has(r)) removed.push(r);
  for (const r of rows) if (!before.has(r)) added.push(r);
  chart.rows = all;
  chart.shown = after;
  if (removed.length || added.length || !chart.started) {
    chart.view.change("runs", window.vega.changeset().remove(removed).insert(added));
    chart.started = true;
  }
  const params = signals(chart.spec);
  if (params.some((p) => p.name === "gpus_shown")) {
    chart.view.signal("gpus_shown", distinct(rows, "gpu", "gpu_order")); // legend: GPUs drawn only
  }
  if (params.some((p) => p.name === "lb_title")) {
    chart.titleParts = chartTitle(all);
    setTitle(chart);
  }
  // shown before the run that draws the rows: an axis judges its labels' room from the container's width
  // (site_gen.charts.specs.fitted_axis), which a hidden box does not have; hidden again below if empty
  if (rows.length) chart.target.hidden = false;
  await chart.view.runAsync();
  // a run that changed the width is laid out again (relayout): the chart is drawn when that has settled
  while (chart.relayout) await chart.relayout;
  const empty = countMarks(chart.view.scenegraph().root) === 0;
  chart.message.hidden = !empty;
  chart.message.textContent = empty ? (all.length ? UI.noMetric : UI.noRuns) : "";
  chart.el.classList.toggle("lb-no-marks", empty);
  chart.target.hidden = empty;
  chart.hint.hidden = empty || !hasRunMark(chart.view.scenegraph().root);
  fillDataTable(chart);
}
