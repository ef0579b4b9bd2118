// views/charts.js: the page's charts and when they are drawn: every .lb-chart gets its record at once (in
// page order); a chart is drawn when it shows on the first screen, else when the reader scrolls near it,
// one chart per task; a phone's first chart may show the build's picture of it until touched (pictured).
// In: the page's chart placeholders, each chart's rows source (lazy). Out: the records
// ({el, spec, view, rows, source, drawn, picture, ...}; window.llmbench.charts()). Side effects: observers and
// scroll/resize listeners, all removed by destroy().

import { json, showError } from "../dom.js";
import { UI } from "../messages.js";
import { loadScripts, nearScreen, VEGA, yieldToMain } from "../tasks.js";
import { isDark } from "../theme.js";
import { renderChart, setRows, syncUrlSignal } from "./chart.js";
import { mountDataTable } from "./chart-table.js";

// A chart is drawn when it comes within this share of the viewport's height of the screen (below or
// above): the charts a reader never scrolls to cost a phone nothing. The first drawing is the charts in
// the first screen only (no margin): most chart pages show at most one there.
const LAZY_MARGIN = 0.5;
const FIRST_SCREEN_SHARE = 0.25; // a chart is on the first screen when this share of it shows

/** A chart shows when FIRST_SCREEN_SHARE of its box, or of the screen's height, is in view: a box whose
 * top edge peeks in at the bottom shows nothing yet, and is drawn at the reader's first scroll. */
export function shows(rect) {
  const seen = Math.min(rect.bottom, window.innerHeight) - Math.max(rect.top, 0);
  return seen / Math.min(rect.height || 1, window.innerHeight) >= FIRST_SCREEN_SHARE;
}

/** The charts of one page. ctx: {param, setParam, openRun} (the URL and navigation, from the page). */
export function mountCharts(nodes, ctx) {
  const list = [];
  const byNode = new Map();
  let alive = true;
  let drawing = Promise.resolve(); // the queue of chart drawings: one chart per task
  // the charts below the first screen wait for the reader's first scroll or resize (tasks.js nearScreen)
  const leave = new AbortController();
  const near = nearScreen({
    margin: `${LAZY_MARGIN * 100}% 0px`,
    firstLook: (e) => shows(e.boundingClientRect),
    signal: leave.signal,
  });

  // Draw the chart (once; one chart per task, in the order asked; now: at once, in this task).
  // Resolves when it is drawn.
  function draw(chart, now) {
    if (!chart.drawn && chart.source) {
      near.forget(chart.el);
      const paint = async () => {
        if (!window.vegaEmbed) await loadScripts(VEGA);
        if (!alive) return chart; // the page was left (instant navigation)
        chart.el.classList.remove("lb-pending", "lb-pictured");
        await renderChart(chart, ctx);
        // the rows in a task of their own: embedding (Vega's parse, the view, an empty first run) and the
        // first run with rows were one task of ~110 ms on the Pareto view (x4 on Lighthouse's phone)
        if (!now) await yieldToMain();
        if (!alive) return chart;
        const rows = chart.source();
        if (rows) await setRows(chart, rows);
        return chart;
      };
      const done = now ? paint() : drawing.then(yieldToMain).then(paint);
      chart.drawn = done.catch((e) => {
        chart.el.classList.remove("lb-pending");
        showError(chart.el, UI.chartError, e);
        return chart;
      });
      if (!now) drawing = chart.drawn; // a failed chart does not stop the queue
    }
    return chart.drawn;
  }

  // With its rows' source set: draw the chart now when it shows on the first screen, else when the reader
  // scrolls near it (or resizes the window). Resolves when the first drawing is done (at once for a chart
  // left for later, or shown as its picture).
  function lazy(chart, source) {
    chart.source = source;
    const picture = chart.drawn ? null : chart.el.querySelector("img.lb-picture:not([hidden])");
    if (picture) return pictured(chart, picture);
    const { first, near: nearby } = near.watch(chart.el);
    nearby.then(() => draw(chart));
    return first.then((shown) => (shown ? draw(chart) : chart));
  }

  // A phone's first chart may come as the build's picture of it (img.lb-picture: shown before the first
  // paint by the chart template's script where the URL names no filter; site_gen/charts/snapshot.py). It
  // stays, and Vega is not even loaded for it, until the reader touches or focuses the chart, the screen
  // widens past the picture's media query (a phone turned), or a filter changes (the scope calls live):
  // then the live chart replaces it. Resolves at once.
  function pictured(chart, picture) {
    chart.picture = picture;
    repicture(chart); // the scheme of the moment (Material may have changed it since the template's script)
    chart.el.classList.remove("lb-pending");
    const go = () => live(chart);
    const once = { once: true, signal: leave.signal };
    for (const type of ["pointerdown", "keydown", "focusin"]) chart.el.addEventListener(type, go, once);
    matchMedia(picture.dataset.media).addEventListener("change", go, once);
    return Promise.resolve(chart);
  }

  /** The live chart in place of its picture (a chart drawn or without one: as it is). */
  function live(chart) {
    return chart.picture && chart.source && !chart.drawn ? draw(chart) : chart.drawn;
  }

  // The picture of the reader's scheme after a flip of Material's toggle.
  function repicture(chart) {
    const src = chart.picture.getAttribute(isDark() ? "data-dark" : "data-light");
    if (chart.picture.getAttribute("src") !== src) chart.picture.src = src;
  }

  for (const node of nodes) {
    const chart = { el: node, spec: json(node, "data-lb-spec", {}), view: null, rows: null, source: null, drawn: null };
    byNode.set(node, chart);
    // The HTML's "Loading chart… (needs JavaScript)": the script runs. Until drawn, the box (its height
    // reserved) is a placeholder naming the chart (llmbench.css .lb-pending), not a blank frame at the
    // foot of the first screen (issue 26).
    const status = node.querySelector(".lb-status");
    if (status) status.hidden = true;
    node.classList.add("lb-pending");
    list.push(chart);
    mountDataTable(chart, draw);
  }

  return {
    list,
    of: (node) => byNode.get(node),
    draw,
    lazy,
    live,
    /** Every chart with rows drawn now (printing, tests). */
    drawAll: () => Promise.all(list.filter((c) => c.source).map((c) => draw(c))),
    /** Printing with Vega running: drawing inline data waits for no task, so they are drawn before the
     * browser lays the page out for paper. */
    drawForPrint: () => window.vegaEmbed && list.forEach((c) => c.source && !c.drawn && draw(c, true)),
    undrawn: () => list.some((c) => c.source && !c.view),
    rethemed: () => list.forEach((c) => (c.view ? renderChart(c, ctx) : c.picture && !c.drawn && repicture(c))),
    popstate: () => list.forEach(syncUrlSignal),
    destroy() {
      alive = false;
      for (const c of list) if (c.view) c.view.finalize();
      leave.abort();
    },
  };
}
