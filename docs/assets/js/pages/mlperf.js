// pages/mlperf.js: the MLPerf(R) Inference page (site_gen/pages/mlperf_pages.py writes its shell and its one data
// file): for the rows the filter bar keeps, a bar chart and a table of the best result per accelerator,
// the results across rounds for one system type, and every result. MLCommons' rules, as the page keeps them:
// every figure drawn names its result ID, submitter, system and round; "best" is taken within one
// division, benchmark, scenario and group of rounds MLCommons allows comparing (calc/mlperf.js), whatever
// the filters say; only tokens/s results are ranked as tokens/s; per-accelerator throughput is labelled
// derived; the exported SVG/PNG carries the footnote. Loaded by main.js (import()) on that page only.
// In: [data-mlperf] and its data-* config. Out: window.mlperfPage (the tests' hooks), {ready, destroy}.
// Side effects: the section's tables and chart, the filters in the URL (a history entry per change, through
// state/url.js), a resize and a popstate listener (removed by destroy).
// Text goes in through textContent only (never innerHTML), so nothing from a result file is markup.

import { el } from "../dom.js";
import { say } from "../messages.js";
import { COUNT, LOCALE } from "../format.js";
import { openSource } from "../data/source.js";
import * as url from "../state/url.js";
import { best, cmpRound, comparableKey, roundGroup, withFigures } from "../calc/mlperf.js";
import { download, drawChart, exportPng, exportSvg } from "../views/mlperf-chart.js";

// Every sentence comes from the catalogue's mlperf_ui section; MLCommons' required English (trademark
// legend, "Result verified by MLCommons Association.") comes from the page (data-trademark,
// data-verified), with the catalogue's gloss beside it where it has one.
const t = (key, values) => say(key, values, "mlperf_ui");
const UNITS = {
  tokens_per_s: t("unit_tokens_per_s"), samples_per_s: t("unit_samples_per_s"),
  queries_per_s: t("unit_queries_per_s"), latency_p90_ns: t("unit_latency_p90_ns"),
};
const UI = {
  count: (n, total, division) => t("count", { n, total, division }),
  pickBenchmark: t("pickBenchmark"),
  noTokens: t("noTokens"),
  mixedRounds: (rounds) => t("mixedRounds", { rounds }),
  chartTitle: (bench, scenario, division) => t("chartTitle", { bench, scenario, division }),
  chartAria: (measure, n, table) => t("chartAria", { measure, n, table }),
  systemLine: (gpu, value, n, perAcc) => t(n === 1 ? "systemLineOne" : "systemLineMany", { gpu, value, n, perAcc }),
  accLine: (gpu, perAcc, value, n) => t("accLine", { gpu, perAcc, value, n }),
  // the division and availability as MLCommons writes them; "open ‡" marks an open-division result
  whoLine: (r) => t("whoLine", {
    submitter: r.submitter, system: r.system_name, round: r.round, open: r.division === "open" ? " · open ‡" : "",
    availability: r.availability, rid: r.result_id,
  }),
  foot: (suites, rounds, division, bench, scenario) => t("foot", { suites, rounds, division, bench, scenario }),
  retrieved: (dates, repos) => t("retrieved", { dates, repos }),
  ids: (ids) => t("ids", { ids }),
  derived: t("derived"),
  suitesJoin: t("suitesJoin"),
  openFoot: "‡ ",
  inferred: t("inferred"),
  asFiled: t("asFiled"),
  latency: (name, p99, limit) => (limit === null ? t("latency", { name, p99 }) : t("latencyLimit", { name, p99, limit })),
  na: t("na"),
  downloadSvg: t("downloadSvg"),
  downloadPng: t("downloadPng"),
  loadError: t("loadError"),
};
const fmt1 = new Intl.NumberFormat(LOCALE, { minimumFractionDigits: 1, maximumFractionDigits: 1 });
const api = { lastChart: null, roundGroup, comparableKey, best };
window.mlperfPage = api; // for the browser tests

function row(body, cells) {
  const tr = document.createElement("tr");
  for (const c of cells) {
    const td = document.createElement("td");
    if (c instanceof Node) td.appendChild(c);
    else td.textContent = c;
    tr.appendChild(td);
  }
  body.appendChild(tr);
  return tr;
}
function ridCell(r) {
  return el("span", { class: "mlperf-rid" }, r.result_id);
}
function divisionCell(r, openNote) {
  if (r.division !== "open") return r.division;
  // a result filed under the official benchmark name names no change: say it gives no reason
  const title = r.benchmark === r.benchmark_official && openNote.silent ? `${openNote.text} ${openNote.silent}` : openNote.text;
  return el("span", { class: "mlperf-open", title }, "open ‡");
}
// Every figure in one format (issue 26): grouped, one decimal at most (four significant digits below 100),
// never MLCommons' raw text ("1.12685e+06"); that text is the value's title in the table of every result.
const BIG = new Intl.NumberFormat(LOCALE, { maximumFractionDigits: 1 });
const SMALL = new Intl.NumberFormat(LOCALE, { maximumSignificantDigits: 4 });
const shown = (r) => (Math.abs(r.value) >= 100 ? BIG : SMALL).format(r.value);
const perAcc = (r) => (r.per_acc === null ? UI.na : fmt1.format(r.per_acc));

// An MLCommons-required sentence in its English, then the page language's gloss when there is one
// (the footnote under the chart and in the exported image).
const notice = (text, gloss) => (gloss ? [text, gloss] : [text]);

/** Mount the section (once per element): loads its rows, then renders. */
export function mountMlperf(root) {
  const mounted = { ready: Promise.resolve(), destroy() {} };
  if (!root || root.dataset.ready) return mounted;
  root.dataset.ready = "1";
  mounted.ready = openSource(root.dataset.src, root.dataset.key).rows().then(
    (rows) => (mounted.destroy = start(root, rows.map(withFigures))),
    () => {
      const fb = document.querySelector("[data-mlperf-fallback]");
      if (fb) fb.prepend(document.createTextNode(UI.loadError + root.dataset.src + ". "));
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
  const $ = (sel) => root.querySelector(sel);
  const systemSel = $("[data-mlperf-system]");
  const measureSel = $("[data-mlperf-measure]");
  const figure = $("[data-mlperf-chart]");
  let keep = rows;

  function chosen() {
    return Object.fromEntries(filters.map((f) => [f.dataset.mlperfFilter, f.value]));
  }

  function visible() {
    const want = filters.filter((f) => f.value).map((f) => [f.dataset.mlperfFilter, f.value]);
    return rows.filter((r) => want.every(([k, v]) => String(r[k]) === v));
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
  }

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

  function fillChart() {
    const chart = chartData();
    api.lastChart = chart;
    figure.replaceChildren();
    if (chart.message) {
      figure.append(el("p", { class: "mlperf-status" }, chart.message));
      return;
    }
    const svg = drawChart(chart.items, {
      width: Math.max(280, root.clientWidth || 600), title: [], foot: [],
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

  function update() {
    keep = visible();
    const division = chosen().division;
    $("[data-mlperf-count]").textContent = UI.count(COUNT.format(keep.length), COUNT.format(rows.length), division);
    $("[data-mlperf-open-note]").hidden = division !== "open";
    fillChart();
    fillBest();
    fillSystems();
    fillRounds();
    fillAll();
  }

  for (const f of filters) {
    f.addEventListener("change", () => {
      url.pushSelects(filters, nameOf);
      update();
    });
  }
  // the filters in the URL (?benchmark_official=...&gpu=...): shareable, back/forward, hostile values ignored
  const onPop = () => {
    url.readSelects(filters, nameOf);
    update();
  };
  window.addEventListener("popstate", onPop);
  url.readSelects(filters, nameOf);
  systemSel.addEventListener("change", fillRounds);
  measureSel.addEventListener("change", fillChart);
  let resizeTimer = null;
  const onResize = () => {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(() => document.body.contains(figure) && fillChart(), 150);
  };
  window.addEventListener("resize", onResize);
  const fb = document.querySelector("[data-mlperf-fallback]");
  if (fb) fb.hidden = true;
  root.hidden = false;
  update();
  root.dataset.rendered = "1";
  return () => {
    clearTimeout(resizeTimer);
    window.removeEventListener("resize", onResize);
    window.removeEventListener("popstate", onPop);
  };
}
