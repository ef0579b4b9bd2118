// pages/mlperf.js: the MLPerf(R) Inference page (site_gen/pages/mlperf_pages.py writes its shell and its one data
// file): for the rows the filter bar keeps, a bar chart and a table of the best result per accelerator,
// the results across rounds for one system type, and every result. MLCommons' rules, as the page keeps them:
// every figure drawn names its result ID, submitter, system and round; "best" is taken within one
// division, benchmark, scenario and group of rounds MLCommons allows comparing (calc/mlperf.js), whatever
// the filters say; only tokens/s results are ranked as tokens/s; per-accelerator throughput is labelled
// derived; the exported SVG/PNG carries the footnote. Loaded by main.js (import()) on that page only.
// In: [data-mlperf] and its data-* config. Out: window.mlperfPage (the tests' hooks), {ready, destroy}.
// Side effects: the section's tables and chart, the filters in the URL (a history entry per change, through
// state/url.js; the accelerator takes several values, views/mlperf-multi.js), a resize and a popstate
// listener (removed by destroy). The section is in the page from the first paint, its room reserved
// (mlperf.css), so filling it shifts nothing the reader sees. The table of every result (a hundred rows and
// more, 14 columns: Lighthouse put 4 s of a throttled phone's main thread in its style and layout) is drawn
// only when its box nears the screen (an IntersectionObserver, a screen and more ahead), at once when the
// URL's hash points at it or a test calls mlperfPage.drawAll(); its box keeps its room until then.
// Text goes in through textContent only (never innerHTML), so nothing from a result file is markup.

import { el } from "../dom.js";
import { COUNT } from "../format.js";
import { whenNear, yieldToMain } from "../tasks.js";
import { openSource } from "../data/source.js";
import * as url from "../state/url.js";
import { best, cmpRound, comparableKey, roundGroup, withFigures } from "../calc/mlperf.js";
import { download, drawChart, exportPng, exportSvg } from "../views/mlperf-chart.js";
import { mountMulti } from "../views/mlperf-multi.js";
import { UI, UNITS, divisionCell, notice, perAcc, ridCell, row, shown } from "../views/mlperf-text.js";

const api = { lastChart: null, roundGroup, comparableKey, best };
window.mlperfPage = api; // for the browser tests

/** Mount the section (once per element): loads its rows, then renders. */
export function mountMlperf(root) {
  const mounted = { ready: Promise.resolve(), destroy() {} };
  if (!root || root.dataset.ready) return mounted;
  root.dataset.ready = "1";
  // the figures in a task of their own, then the section (a phone's main thread: Lighthouse's TBT)
  const figures = (rows) => yieldToMain().then(() => rows.map(withFigures));
  mounted.ready = openSource(root.dataset.src, root.dataset.key).rows().then(figures).then(
    (rows) => (mounted.destroy = start(root, rows)),
    () => {
      // in the chart's room (the words for a reader without JavaScript are in <noscript>)
      const where = root.querySelector("[data-mlperf-chart]");
      where.replaceChildren(el("p", { class: "mlperf-status" }, UI.loadError + root.dataset.src + "."));
    },
  );
  return mounted;
}

// Renders the section and returns its teardown.
function start(root, rows) {
  const compat = JSON.parse(root.dataset.compat);
  const openNote = { text: root.dataset.openNote, silent: root.dataset.openSilent || "" };
  const filters = [...root.querySelectorAll("[data-mlperf-filter]")];
  const nameOf = (f) => f.dataset.mlperfFilter;
  // the filters that take several values (the accelerator); in the URL once per value
  const multis = [...root.querySelectorAll("[data-mlperf-multi]")].map((box) => mountMulti(box, changed));
  const lists = () => Object.fromEntries(multis.map((m) => [m.name, m.values()]));
  const $ = (sel) => root.querySelector(sel);
  const systemSel = $("[data-mlperf-system]");
  const measureSel = $("[data-mlperf-measure]");
  const figure = $("[data-mlperf-chart]");
  const allBox = $("[data-mlperf-all]").parentElement; // the table's scrolling box (its room is reserved)
  let keep = rows;
  let allWanted = false; // the table of every result is drawn (and redrawn on each change) once wanted

  function chosen() {
    return Object.fromEntries(filters.map((f) => [f.dataset.mlperfFilter, f.value]));
  }

  function visible() {
    const want = filters.filter((f) => f.value).map((f) => [f.dataset.mlperfFilter, new Set([f.value])]);
    for (const m of multis) if (m.values().length) want.push([m.name, new Set(m.values())]);
    return rows.filter((r) => want.every(([k, v]) => v.has(String(r[k]))));
  }

  function fillBest() {
    const body = $("[data-mlperf-best] tbody");
    const frag = document.createDocumentFragment();
    const list = best(compat, keep, (r) => r.gpu, (r) => r.tps).sort((a, b) =>
      a.benchmark_official.localeCompare(b.benchmark_official) || a.scenario.localeCompare(b.scenario) || b.tps - a.tps);
    for (const r of list) {
      row(frag, [r.gpu, r.benchmark_official, r.scenario, shown(r), perAcc(r), String(r.total_accelerators),
        r.submitter, r.system_name, r.round, divisionCell(r, openNote), r.availability, ridCell(r)]);
    }
    body.replaceChildren(frag);
  }

  function fillSystems() {
    const types = new Map();
    for (const r of keep) {
      const t = `${r.gpu} × ${r.total_accelerators}`;
      if (r.tps !== null) types.set(t, (types.get(t) || 0) + 1);
    }
    const was = systemSel.value;
    systemSel.replaceChildren(...[...types.keys()].sort().map((t) => el("option", { value: t }, t)));
    // keep the reader's choice; else start on the system type with the most results
    const most = [...types.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0];
    if (types.has(was)) systemSel.value = was;
    else if (most) systemSel.value = most[0];
  }

  function fillRounds() {
    const body = $("[data-mlperf-rounds] tbody");
    const type = systemSel.value;
    // only benchmarks MLCommons lists, in rounds inside their range, are set side by side
    const mine = keep.filter((r) => `${r.gpu} × ${r.total_accelerators}` === type
      && roundGroup(compat, r.benchmark_official, r.round).startsWith("c:"));
    const list = best(compat, mine, (r) => r.round, (r) => r.tps).sort((a, b) =>
      a.benchmark_official.localeCompare(b.benchmark_official) || a.scenario.localeCompare(b.scenario) || cmpRound(a.round, b.round));
    const frag = document.createDocumentFragment();
    for (const r of list) {
      row(frag, [r.benchmark_official, r.scenario, r.round, shown(r), String(r.total_accelerators), r.submitter,
        r.system_name, divisionCell(r, openNote), r.availability, ridCell(r)]);
    }
    body.replaceChildren(frag);
  }

  function latency(r) {
    return [["TTFT", r.ttft_p99_ms, r.ttft_limit_ms], ["TPOT", r.tpot_p99_ms, r.tpot_limit_ms]]
      .filter(([, p99]) => p99 !== null)
      .map(([name, p99, limit]) => UI.latency(name, p99, limit))
      .join("; ");
  }

  function fillAll() {
    const frag = document.createDocumentFragment();
    for (const r of keep) {
      const bench = el("span", {}, r.benchmark_official);
      if (r.benchmark !== r.benchmark_official) bench.append(el("br"), el("small", {}, UI.asFiled + r.benchmark));
      const value = el("span", {});
      value.append(el("a", { href: r.log_url, title: r.value_text }, shown(r)), " " + UNITS[r.metric]);
      if (r.tokens_inferred) value.append(el("br"), el("small", {}, UI.inferred));
      const engine = el("span", {}, `${r.engine} `);
      engine.append(el("small", {}, `(${r.engine_basis})`), el("br"), el("small", {}, r.framework));
      const tr = row(frag, [ridCell(r), r.round, divisionCell(r, openNote), r.availability, r.submitter, r.system_name,
        r.gpu, String(r.total_accelerators), bench, r.scenario, value, perAcc(r), engine, el("small", {}, latency(r))]);
      if (r.metric !== "tokens_per_s") tr.cells[10].className = "mlperf-other-metric";
    }
    $("[data-mlperf-all] tbody").replaceChildren(frag);
    allBox.removeAttribute("data-pending");
    root.dataset.allDrawn = "1";
  }

  // the table of every result: drawn once it is wanted, with the rows the filters keep at that time
  function wantAll() {
    if (allWanted) return;
    allWanted = true;
    leave.abort(); // the watching of its box
    fillAll();
  }
  // a screen ahead (tasks.js whenNear): a reader scrolling at reading speed never meets an empty box, and
  // what the drawing moves below the box is still off the screen (no layout shift the reader sees)
  const leave = new AbortController();
  api.drawAll = wantAll;

  function chartData() {
    const f = chosen();
    if (!f.benchmark_official || !f.scenario) return { message: UI.pickBenchmark };
    const acc = measureSel.value === "acc";
    const score = acc ? (r) => r.per_acc : (r) => r.tps;
    const top = best(compat, keep, (r) => r.gpu, score);
    if (!top.length) return { message: UI.noTokens };
    const groups = new Set(top.map((r) => comparableKey(compat, r)));
    if (groups.size > 1) return { message: UI.mixedRounds([...new Set(top.map((r) => r.round))].sort(cmpRound).join(", ")) };
    top.sort((a, b) => score(b) - score(a));
    const items = top.map((r) => ({
      r, score: score(r),
      head: acc ? UI.accLine(r.gpu, perAcc(r), shown(r), r.total_accelerators)
        : UI.systemLine(r.gpu, shown(r), r.total_accelerators, perAcc(r)),
      who: UI.whoLine(r),
    }));
    const uniq = (xs) => [...new Set(xs)].sort();
    const suites = uniq(top.map((r) => r.suite[0].toUpperCase() + r.suite.slice(1))).join(UI.suitesJoin);
    const rounds = uniq(top.map((r) => r.round)).sort(cmpRound).join(", ");
    const division = top[0].division;
    const foot = [
      UI.foot(suites, rounds, division, f.benchmark_official, f.scenario),
      UI.retrieved(uniq(top.map((r) => r.retrieved)).join(", "), uniq(top.map((r) => r.repository)).join(", ")),
      UI.ids(top.map((r) => r.result_id).join(", ")),
      ...notice(root.dataset.verified, root.dataset.verifiedGloss),
      UI.derived,
      ...(division === "open" ? [UI.openFoot + openNote.text] : []),
      ...notice(root.dataset.trademark, root.dataset.trademarkGloss),
    ];
    // the measure as the page's select names it (its words are the page's, from the catalogue)
    const measure = measureSel.selectedOptions[0].textContent;
    const title = [UI.chartTitle(f.benchmark_official, f.scenario, division), measure];
    const name = `mlperf-${f.benchmark_official}-${f.scenario}-${division}${acc ? "-per-accelerator" : ""}`;
    return { items, foot, title, name, measure };
  }

  // the chart's width, read before the page is written to (a read after a write makes the browser lay
  // the page out twice in one task)
  function fillChart(width = root.clientWidth) {
    const chart = chartData();
    api.lastChart = chart;
    figure.replaceChildren();
    if (chart.message) {
      figure.append(el("p", { class: "mlperf-status" }, chart.message));
      return;
    }
    const svg = drawChart(chart.items, {
      width: Math.max(280, width || 600), title: [], foot: [],
      // the page's palette comes from mlperf.css (classes), so it follows Material's light/dark scheme
      colors: { text: "currentColor", muted: "currentColor", bar: "currentColor" },
    });
    const table = ($("#best") || {}).firstChild;
    svg.setAttribute("aria-label", UI.chartAria(chart.measure, chart.items.length, table ? table.textContent : ""));
    const caption = el("figcaption", { class: "mlperf-footnote", "data-mlperf-chart-footnote": "" });
    for (const line of chart.foot) caption.append(el("p", {}, line));
    const tools = el("p", { class: "mlperf-export" });
    const svgButton = el("button", { type: "button", class: "md-button", "data-mlperf-export": "svg" }, UI.downloadSvg);
    const pngButton = el("button", { type: "button", class: "md-button", "data-mlperf-export": "png" }, UI.downloadPng);
    svgButton.addEventListener("click", () => download(chart.name + ".svg", new Blob([exportSvg(chart)], { type: "image/svg+xml" })));
    pngButton.addEventListener("click", () => exportPng(chart, chart.name + ".png"));
    tools.append(svgButton, " ", pngButton);
    figure.append(svg, caption, tools);
  }
  api.exportSvg = () => exportSvg(api.lastChart);

  // first: the count and the chart (the first screen), each change at once; on arrival the chart, the best
  // table and the tables below come in tasks of their own, one each (a phone's main thread is not held for
  // the whole page in one task: Lighthouse's total blocking time counts what a task takes beyond 50 ms)
  async function update(first = false) {
    const width = root.clientWidth;
    keep = visible();
    const division = chosen().division;
    $("[data-mlperf-count]").textContent = UI.count(COUNT.format(keep.length), COUNT.format(rows.length), division);
    $("[data-mlperf-open-note]").hidden = division !== "open";
    if (first) await yieldToMain(); // the section's setup above, then the chart (~40 and ~120 ms at 4x)
    fillChart(width);
    if (first) await yieldToMain();
    fillBest();
    if (first) await yieldToMain();
    fillSystems();
    if (first) await yieldToMain();
    fillRounds();
    if (allWanted) {
      if (first) await yieldToMain();
      fillAll();
    }
  }

  function changed() {
    url.pushSelects(filters, nameOf, lists());
    update();
  }
  for (const f of filters) f.addEventListener("change", changed);
  // the filters in the URL (?benchmark_official=...&gpu=A&gpu=B): shareable, back/forward, hostile values
  // ignored
  const read = () => {
    url.readSelects(filters, nameOf);
    for (const m of multis) m.set(url.readList(m.name, m.offered()));
  };
  const onPop = () => {
    read();
    update();
  };
  const offPop = url.onPopState(onPop);
  read();
  systemSel.addEventListener("change", fillRounds);
  measureSel.addEventListener("change", () => fillChart());
  let resizeTimer = null;
  const onResize = () => {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(() => document.body.contains(figure) && fillChart(), 150);
  };
  window.addEventListener("resize", onResize);
  // a link to the table (#all) draws it in the first render; else it waits for its box to near the screen
  allBox.setAttribute("data-pending", "");
  if (location.hash === "#all") allWanted = true;
  else whenNear(allBox, { margin: "100% 0px", signal: leave.signal }).then(wantAll);
  update(true).then(() => (root.dataset.rendered = "1"));
  return () => {
    leave.abort();
    clearTimeout(resizeTimer);
    window.removeEventListener("resize", onResize);
    offPop();
    for (const m of multis) m.destroy();
  };
}
