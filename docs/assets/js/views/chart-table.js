// views/chart-table.js: a chart's data as a table, for screen readers and anyone who wants the figures.
// In: a chart record with its view and usermeta.llmbench.fields. Out: a closed <details> after the chart,
// filled from the marks drawn when opened, refilled on each redraw while open. Side effects: that element.

import { el } from "../dom.js";
import { UI } from "../messages.js";
import { COUNT, NUMBER, tooltipFormat } from "../format.js";
import { badgeText } from "../calc/estimates.js";

const DATA_TABLE_MAX = 1000; // rows of a chart's data table (one-point-per-run charts can have thousands)

// The fields a reader sees in the chart's tooltip, else those of its position, colour and text channels:
// taken from the Vega-Lite encodings at build time (site_gen.charts.vega_compile.table_fields).
function tableFields(spec) {
  return ((spec.usermeta || {}).llmbench || {}).fields || [];
}

/** Number of data marks (points, bars, line vertices) drawn, excluding axes and legends. */
export function countMarks(node) {
  if (node.marktype && node.marktype !== "group") return node.role === "mark" ? node.items.length : 0;
  let n = 0;
  for (const item of node.items || []) n += countMarks(item);
  return n;
}

// The data behind the marks drawn: the data mark with the most items (bars, points, line vertices).
function markData(view, field) {
  let best = [];
  const walk = (node) => {
    if (node.marktype && node.marktype !== "group" && node.role === "mark") {
      const data = [...new Set(node.items.map((i) => i.datum))].filter((d) => d && field in d);
      if (data.length > best.length) best = data;
      return;
    }
    for (const item of node.items || []) walk(item);
  };
  walk(view.scenegraph().root);
  return best;
}

/** The closed "Data table" after the chart; opening it draws the chart first when it is not drawn yet. */
export function mountDataTable(chart, draw) {
  const fields = tableFields(chart.spec);
  if (!fields.length) return;
  const details = el("details", { class: "lb-data" });
  details.append(el("summary", {}, UI.dataTable));
  details.addEventListener("toggle", () => details.open && (chart.view ? fillDataTable(chart) : draw(chart)));
  chart.el.after(details);
  chart.details = details;
  chart.fields = fields;
}

export function fillDataTable(chart) {
  if (!chart.details || !chart.details.open || !chart.view) return;
  const fields = chart.fields;
  const formats = fields.map((f) => tooltipFormat(f.format));
  const data = markData(chart.view, fields[0].field);
  const table = el("table", { class: "lb-table lb-data-table" });
  const head = el("tr");
  fields.forEach((f) => head.append(el("th", { scope: "col" }, f.title)));
  const thead = el("thead");
  thead.append(head);
  const tbody = el("tbody");
  for (const d of data.slice(0, DATA_TABLE_MAX)) {
    const tr = el("tr");
    fields.forEach((f, i) => {
      const v = d[f.field];
      const num = typeof v === "number";
      const text = v === null || v === undefined ? "–" : num ? (f.format ? formats[i](v) : NUMBER.format(v)) : String(v);
      tr.append(el("td", num ? { class: "lb-num" } : {}, text));
    });
    // an estimate's point (explorer pages, issue 28) is listed with its badge, as in the results table
    const badge = badgeText(d, UI.estimateWords);
    if (badge) tr.firstChild.append(" ", el("span", { class: "lb-badge lb-estimate", title: UI.estBadgeHelp }, badge));
    tbody.append(tr);
  }
  table.append(thead, tbody);
  const parts = [chart.details.querySelector("summary"), table];
  if (data.length > DATA_TABLE_MAX) {
    parts.push(el("p", { class: "lb-chart-note" }, UI.dataTableCut(DATA_TABLE_MAX, COUNT.format(data.length))));
  }
  chart.details.replaceChildren(...parts);
}
