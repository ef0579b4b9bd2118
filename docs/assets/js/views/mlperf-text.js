// views/mlperf-text.js: the MLPerf page's words and figures: the catalogue's mlperf_ui sentences, units,
// every figure in one format, and the table cells that carry a result's ID or its open-division mark.
// In: results rows (pages/mlperf.js). Out: strings and cells. Side effects: none (elements are built, not
// inserted). Text goes in through textContent only (never innerHTML).

import { el } from "../dom.js";
import { say } from "../messages.js";
import { LOCALE } from "../format.js";

// Every sentence comes from the catalogue's mlperf_ui section; MLCommons' required English (trademark
// legend, "Result verified by MLCommons Association.") comes from the page (data-trademark,
// data-verified), with the catalogue's gloss beside it where it has one.
export const t = (key, values) => say(key, values, "mlperf_ui");
export const UNITS = {
  tokens_per_s: t("unit_tokens_per_s"), samples_per_s: t("unit_samples_per_s"),
  queries_per_s: t("unit_queries_per_s"), latency_p90_ns: t("unit_latency_p90_ns"),
};
export const UI = {
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

export function row(body, cells) {
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
export function ridCell(r) {
  return el("span", { class: "mlperf-rid" }, r.result_id);
}
export function divisionCell(r, openNote) {
  if (r.division !== "open") return r.division;
  // a result filed under the official benchmark name names no change: say it gives no reason
  const title = r.benchmark === r.benchmark_official && openNote.silent ? `${openNote.text} ${openNote.silent}` : openNote.text;
  return el("span", { class: "mlperf-open", title }, "open ‡");
}
// Every figure in one format (issue 26): grouped, one decimal at most (four significant digits below 100),
// never MLCommons' raw text ("1.12685e+06"); that text is the value's title in the table of every result.
const BIG = new Intl.NumberFormat(LOCALE, { maximumFractionDigits: 1 });
const SMALL = new Intl.NumberFormat(LOCALE, { maximumSignificantDigits: 4 });
export const shown = (r) => (Math.abs(r.value) >= 100 ? BIG : SMALL).format(r.value);
export const perAcc = (r) => (r.per_acc === null ? UI.na : fmt1.format(r.per_acc));

// An MLCommons-required sentence in its English, then the page language's gloss when there is one
// (the footnote under the chart and in the exported image).
export const notice = (text, gloss) => (gloss ? [text, gloss] : [text]);
