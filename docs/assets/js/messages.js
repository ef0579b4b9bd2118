// messages.js: every sentence the page scripts show, from the page language's message catalogue
// (site_gen/i18n/<lang>.yaml, loaded before the modules as assets/i18n/<lang>.js; {name} placeholders).
// In: window.LLMBENCH_I18N. Out: say(), fill() and the UI table. Side effects: none.

const I18N = globalThis.LLMBENCH_I18N || { ui: {} };

/** The text with each {name} replaced by values[name]; an unknown placeholder stays as written. */
export const fill = (text, values) => String(text).replace(/\{(\w+)\}/g, (m, k) => (k in values ? values[k] : m));

/** A message of a catalogue section (ui, mlperf_ui) with its values; the key itself when it is missing. */
export function say(key, values, section = "ui") {
  return fill((I18N[section] || {})[key] ?? key, values || {});
}

/** The catalogue's language (used when <html lang> is missing). */
export const catalogueLang = I18N.lang;

export const UI = {
  noMatch: say("noMatch"),
  scrollRows: (n) => say("scrollRows", { n }),
  hiddenColumns: (parts) => say("hiddenColumns", { parts }),
  hiddenSame: (list) => say("hiddenSame", { list }),
  hiddenEmpty: (list) => say("hiddenEmpty", { list }),
  noRuns: say("noRuns"),
  noMetric: say("noMetric"),
  sample: (max, n) => say("sample", { max, n }),
  count: (n, total) => say("count", { n, total }),
  countEstimates: (n) => say("countEstimates", { n }),
  summaryFirst: (cells, total) => say("summaryFirst", { cells, total }),
  everyRun: say("everyRun"),
  everyRunLoading: say("everyRunLoading"),
  runsOfLoading: (values) => say("runsOfLoading", { values }),
  runsFailed: (error) => say("runsFailed", { error }),
  dataFailed: (error) => say("dataFailed", { error }),
  notCounted: say("notCounted"),
  notCountedHelp: say("notCountedHelp"),
  countHeld: (n) => say("countHeld", { n }),
  // an estimate's badge in a table or on its card (calc/estimates.js badgeText)
  estimateWords: {
    badge: (version, n) => say("estBadge", { version, n }),
    badgeLow: (version, n) => say("estBadgeLow", { version, n }),
    badgeNone: (version) => say("estBadgeNone", { version }),
  },
  estBadgeHelp: say("estBadgeHelp"),
  all: say("all"),
  allValue: say("allValue"),
  selected: (n) => say("selected", { n }),
  reset: say("reset"),
  chartError: say("chartError"),
  yes: say("yes"),
  no: say("no"),
  runId: say("runId"),
  noSuchRun: (id) => say("noSuchRun", { id }),
  noRunChosen: say("noRunChosen"),
  toExplorer: say("toExplorer"),
  report: say("report"),
  boundUnknown: say("boundUnknown"),
  // a run's bound_note: codes joined by "," (bench/contract/bound.py NOTES), each a sentence of the catalogue
  boundNote: (codes) => String(codes).split(",").map((c) => say("boundNote_" + c)).join(" "),
  reportTitle: (id, what) => say("reportTitle", { id, what }),
  reportBody: (id, url, file) => say("reportBody", { id, url, file }),
  openCard: say("openCard"),
  clickHint: say("clickHint"),
  langSent: say("langSent"),
  langBack: say("langBack"),
  chartMenu: say("chartMenu"),
  chartImage: (label) => say("chartImage", { label }),
  // a chart's title: what the drawn runs have one value of (site_gen.charts.specs.TITLE)
  titleParts: { workload: (w) => say("titleWorkload", { w }), publisher: (p) => say("titlePublisher", { p }) },
  titleJoin: say("titleJoin"),
  dataTable: say("dataTable"),
  dataTableCut: (max, n) => say("dataTableCut", { max, n }),
  limitHidden: (n) => say("limitHidden", { n }),
  priceRefused: (max) => say("priceRefused", { max }),
};
