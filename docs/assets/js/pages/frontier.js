// pages/frontier.js: the Pareto view's per-interactivity tables (issue 27), driven by the page's filter
// scope: the rows its chart draws, grouped into the chart's series (site_gen.charts.latency_views.SERIES) with the
// chart's rule for a point (both figures above 0), drawn by advisor/frontier.js after every filter change.
// In: the placeholder (.lb-frontier: data-words, data-buckets) and its scope's controller (rows()).
// Out: {ready, destroy}. Side effects: the placeholder's content; the baseline in the address (?base=).

import { renderFrontier } from "../advisor/frontier.js";
import { say } from "../advisor/html.js";
import * as url from "../state/url.js";
import { yieldToMain } from "../tasks.js";

// The chart's series (site_gen.charts.latency_views.SERIES), joined as its Vega expression joins them.
export const SERIES = ["gpu", "engine", "precision", "workload"];
export const BASE_KEY = "base";

/** One curve per series of the rows the chart plots: {key, label, user_tps, gpu_tps}. */
export function seriesCurves(rows) {
  const by = new Map();
  for (const r of rows) {
    const u = r.output_tps_per_user, g = r.output_tps_per_gpu;
    if (!(u > 0 && g > 0)) continue; // the chart's filter (latency_views._with_both)
    const label = SERIES.map((k) => r[k]).join(" · ");
    if (!by.has(label)) by.set(label, { key: label, label, user_tps: [], gpu_tps: [] });
    by.get(label).user_tps.push(u);
    by.get(label).gpu_tps.push(g);
  }
  return [...by.values()];
}

export function mountFrontier(host, scope) {
  const words = JSON.parse(host.dataset.words || "{}"), buckets = JSON.parse(host.dataset.buckets || "[]");
  const lang = document.documentElement.lang === "ko" ? "ko-KR" : "en-US";
  const nf = (d) => new Intl.NumberFormat(lang, { maximumFractionDigits: d, minimumFractionDigits: 0 });
  const t = (k, v) => say(words, k, v);
  const scopeRoot = host.closest(".lb-scope") || document;
  const ctl = new AbortController(), on = { signal: ctl.signal };
  const draw = () => {
    renderFrontier(host, { doc: document, t, nf, curves: seriesCurves(scope.rows()), buckets, base: url.param(BASE_KEY) });
    host.dataset.lbDrawn = String((Number(host.dataset.lbDrawn) || 0) + 1);
  };
  // the scope says when its rows changed (a filter, back/forward); the tables follow
  scopeRoot.addEventListener("llmbench:rendered", draw, on);
  host.addEventListener("change", (ev) => {
    if (ev.target.name !== "base") return;
    url.setParam(BASE_KEY, ev.target.value, "");
    draw();
  }, on);
  // in a task of its own: not appended to the task that drew the chart
  return { ready: scope.ready.then(yieldToMain).then(draw), destroy: () => ctl.abort() };
}
