// main.js: the page script's one entry (mkdocs.yml extra_javascript, type: module). It mounts what the
// current page holds (filter scopes, compare, a run card, static charts; the planner's, the MLPerf
// page's, the advisor's and the Pareto view's tables' scripts) and tears the last page down first: Material's instant navigation swaps pages without
// a reload and announces each on document$. In: the page's placeholders (.lb-scope, .lb-compare,
// .lb-runcard, .lb-chart, #llmbench-planner, [data-mlperf]: pages/mlperf.js, #llmbench-advisor:
// pages/advisor.js, .lb-frontier: pages/frontier.js, each imported there only).
// Out: window.llmbench (the tests' hooks), body[data-lb-ready] once the page is drawn. Side effects: the document-wide listeners, installed once.
// Strings from result files only ever reach the page through textContent, attribute values and Vega's
// escaped tooltips, never through innerHTML.

import { cardHref, forgetRem, remPx } from "./dom.js";
import { afterPaint, loadScripts, PLANNER, prefetch, VEGA } from "./tasks.js";
import { onSchemeChange } from "./theme.js";
import * as url from "./state/url.js";
import { UI } from "./messages.js";
import { mountCharts, shows } from "./views/charts.js";
import { countMarks } from "./views/chart-table.js";
import { mountScope } from "./pages/scope.js";
import { mountCompare } from "./pages/compare.js";
import { mountRunCard } from "./pages/runs.js";
import { mountStaticChart } from "./pages/static-chart.js";

let page = null; // the mounted page: {charts, scopes, parts}

// drawAll: draw every chart of the page now (printing, tests); resolves when all are drawn.
const api = {
  lastFilterMs: null,
  lastTableMs: null,
  ready: null,
  charts: () => (page ? page.charts.list : []),
  scopes: () => (page ? page.scopes : []),
  countMarks,
  drawAll: async () => {
    await api.ready;
    if (page) await page.charts.drawAll();
  },
  languageLink: url.languageLink,
};
window.llmbench = api;

const chartContext = {
  param: url.param,
  setParam: url.setParam,
  openRun: (node, id) => url.go(cardHref(node, id)),
};

/** A page module fetched when the page has its placeholder (import()), mounted once it is here. */
function mountLater(load, mount) {
  let mounted = null, gone = false;
  const ready = load().then((m) => {
    if (gone) return;
    mounted = mount(m);
    return mounted.ready;
  });
  return { ready, destroy: () => ((gone = true), mounted && mounted.destroy()) };
}

function teardown() {
  if (!page) return;
  for (const part of page.parts) part.destroy();
  page.charts.destroy();
  page = null;
}

async function boot() {
  teardown();
  remPx(); // read before the page script changes the page: then the style is fresh and the read cheap
  url.syncLanguageLinks();
  const chartNodes = [...document.querySelectorAll(".lb-chart")];
  // The run card draws no chart; every other placeholder needs Vega. Vega runs when the first chart is
  // drawn, which on a phone may be after a scroll or a touch (a chart shown as its picture): until then it
  // is only fetched, at low priority, so that it is at hand. A chart on the first screen needs it now:
  // fetched at once, beside the page's data.
  const first = chartNodes[0];
  const live = first && !first.querySelector("img.lb-picture:not([hidden])");
  if (live && shows(first.getBoundingClientRect())) loadScripts(VEGA).catch(() => {});
  else if (first) prefetch(VEGA);
  const charts = mountCharts(chartNodes, chartContext);
  const hooks = {
    charts,
    cardHref,
    measured: (kind, ms) => (kind === "filter" ? (api.lastFilterMs = ms) : (api.lastTableMs = ms)),
  };
  const scopeRoots = [...document.querySelectorAll(".lb-scope")];
  const scopes = scopeRoots.map((root, i) => mountScope(root, i === 0, hooks));
  const parts = [
    ...scopes,
    ...[...document.querySelectorAll(".lb-compare")].map((root) => mountCompare(root, charts)),
    ...[...document.querySelectorAll(".lb-runcard")].map(mountRunCard),
    ...chartNodes.filter((n) => !n.closest(".lb-scope, .lb-compare")).map((n) => mountStaticChart(n, charts)),
    // the planner's and the MLPerf page's modules load on their pages only (the planner's data first)
    ...[document.getElementById("llmbench-planner")].filter(Boolean).map((host) =>
      mountLater(() => loadScripts(PLANNER).then(() => import("./pages/planner.js")), (m) => m.mountPlanner(host))
    ),
    ...[...document.querySelectorAll("[data-mlperf]")].map((root) =>
      mountLater(() => import("./pages/mlperf.js"), (m) => m.mountMlperf(root))
    ),
    // the Pareto view's per-interactivity tables, fed by their scope's rows; below the chart, so their
    // modules are fetched once the scope's first screen is drawn, not beside its data and Vega
    ...[...document.querySelectorAll(".lb-scope .lb-frontier")].map((host) => {
      const scope = scopes[scopeRoots.indexOf(host.closest(".lb-scope"))];
      const load = () => scope.ready.then(() => import("./pages/frontier.js"));
      return mountLater(load, (m) => m.mountFrontier(host, scope));
    }),
    // the advisor (its page only): its data is a JSON file of its own, fetched by the module
    ...[document.getElementById("llmbench-advisor")].filter(Boolean).map((root) =>
      mountLater(() => import("./pages/advisor.js"), (m) => m.mountAdvisorPage(root))
    ),
  ];
  const mine = { charts, scopes, parts };
  page = mine;
  api.ready = Promise.all(parts.map((p) => p.ready));
  await api.ready;
  if (page === mine) document.body.dataset.lbReady = String(Date.now());
}

// Printing draws the charts not drawn yet (see views/charts.js drawForPrint). Before Vega has run (a phone
// that did not scroll to a chart), Ctrl/Cmd+P first runs it and draws every chart, then prints.
window.addEventListener("beforeprint", () => page && page.charts.drawForPrint());
document.addEventListener("keydown", (ev) => {
  if (!(ev.ctrlKey || ev.metaKey) || ev.altKey || ev.key.toLowerCase() !== "p") return;
  if (!page || !page.charts.undrawn()) return;
  ev.preventDefault();
  api.drawAll().then(() => window.print());
});
// A click outside an open filter, or Escape, closes it.
document.addEventListener("click", (ev) => {
  if (ev.target.closest && ev.target.closest(".lb-filter")) return;
  if (page) page.scopes.forEach((s) => s.close());
});
document.addEventListener("keydown", (ev) => {
  if (ev.key === "Escape" && page) page.scopes.forEach((s) => s.close());
});
// Another run's permalink on the run card's page: redraw the card.
window.addEventListener("hashchange", () => page && page.parts.forEach((p) => p.hashchange && p.hashchange()));
url.onPopState(() => {
  if (!page) return;
  page.charts.popstate();
  page.scopes.forEach((s) => s.popstate());
});
window.addEventListener(
  "resize",
  () => {
    forgetRem();
    if (page) page.scopes.forEach((s) => s.resized());
  },
  { passive: true }
);
url.installLanguageSwitch();
// A Korean browser on the English home goes to the Korean one, once (then nothing else is mounted here).
const sent = url.sendToKorean();
if (!sent) url.langSentNotice(UI.langSent, UI.langBack);
// Re-theme the charts when the reader flips Material's light/dark toggle.
onSchemeChange(() => page && page.charts.rethemed());

// boot in a task of its own, after the page (the first one, or the one instant navigation put in) has been
// painted: document$ replays the page at once, one long task blocks a phone longer than two shorter ones,
// and the reader sees the page's text before its script's work (afterPaint says why). A module runs after
// the document is parsed, so Material's document$ is there.
// Only the page shown last is mounted: a page Material put in and replaced before its paint (a quick Back
// after a click) is skipped, not mounted over the next one (boot reads the document when it runs).
let shownPages = 0;
const bootWhenPainted = () => {
  const mine = ++shownPages;
  return afterPaint().then(() => mine === shownPages && boot());
};
if (!sent && window.document$) window.document$.subscribe(bootWhenPainted);
else if (!sent) bootWhenPainted();
