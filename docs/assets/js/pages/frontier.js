// pages/frontier.js: the Pareto view's per-interactivity tables (issue 27), driven by the page's filter
// scope: the rows its chart draws, grouped into the chart's series (site_gen.charts.latency_views.SERIES) with the
// chart's rule for a point (both figures above 0), drawn by advisor/frontier.js after every filter change.
// In: the placeholder (.lb-frontier: data-words, data-buckets) and its scope's controller (rows()).
// Out: {ready, destroy}. Side effects: the placeholder's content; the baseline in the address (?base=).
// Drawn when the reader comes near them (they sit a screen or more below the chart), not in the page load.

import { renderFrontier } from "../advisor/frontier.js";
import { el, fill, say } from "../advisor/html.js";
import * as url from "../state/url.js";
import { whenNear, yieldToMain } from "../tasks.js";

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
  // until drawn, the tables' title in place of the words for a reader without JavaScript
  fill(host, el(document, "h2", { text: t("frontierTitle") }));
  let drawn = false;
  const draw = () => {
    drawn = true;
    renderFrontier(host, { doc: document, t, nf, curves: seriesCurves(scope.rows()), buckets, base: url.param(BASE_KEY) });
    host.dataset.lbDrawn = String((Number(host.dataset.lbDrawn) || 0) + 1);
  };
  // the scope says when its rows changed (a filter, back/forward); the tables, once drawn, follow
  scopeRoot.addEventListener("llmbench:rendered", () => drawn && draw(), on);
  host.addEventListener("change", (ev) => {
    if (ev.target.name !== "base") return;
    url.setParam(BASE_KEY, ev.target.value, "");
    draw();
  }, on);
  // Printing shows them (drawn before the browser lays the page out for paper).
  window.addEventListener("beforeprint", () => drawn || draw(), on);
  // in a task of its own, once near: not appended to the task that drew the chart
  scope.ready.then(() => near(host, ctl.signal)).then(yieldToMain).then(() => ctl.signal.aborted || drawn || draw());
  return { ready: scope.ready, destroy: () => ctl.abort() };
}

// The tables are due at once where the address names them (#frontier, the advisor's link), they show on
// the first screen (a tall window) or the browser has no IntersectionObserver; else when the box comes
// within NEAR of the screen, watched from the reader's first scroll or resize (tasks.js whenNear, the
// charts' rule of views/charts.js). Drawing them (their script and the page's layout below the chart:
// 10-40 ms unthrottled on a loaded 2-core machine, x4 on Lighthouse's phone) in the page load was one more
// long task for a reader who may never scroll down to them: they are 1,300-1,400 px down on a phone's
// first screen and on a 1440x900 window's.
const NEAR = "50% 0px";
const near = (host, signal) =>
  whenNear(host, { margin: NEAR, firstLook: true, signal, now: location.hash === "#" + host.id });
