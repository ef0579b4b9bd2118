// views/chart-title.js: a chart's title (what every drawn run has one value of) on as many lines as the
// chart's width needs, and the legend's GPU order.
// In: rows, a chart record with a Vega view. Out: the lb_title signal. Side effects: one measuring canvas.

import { UI } from "../messages.js";
import { byText } from "../format.js";
import { FONT } from "../theme.js";

// "Llama 3.1 8B · FP16 · ISL/OSL 128/128 · source: NVIDIA": each of these columns that has one value
// in the rows (a column with several values is what the chart compares, shown on its axes or legend).
const TITLE_COLUMNS = ["model_name", "precision", "workload", "gpu", "publisher"];
export function chartTitle(rows) {
  const parts = [];
  for (const column of TITLE_COLUMNS) {
    const first = rows.length ? rows[0][column] : null;
    if (first === null || first === undefined || rows.some((r) => r[column] !== first)) continue;
    const format = UI.titleParts[column];
    parts.push(format ? format(first) : String(first));
  }
  return parts;
}

// The title's parts on as many lines as the chart's width needs: Vega cuts a title past its limit with
// "…", and on a half-width chart that cut the workload and the source, what the reader must know.
// Measured as Vega measures text (a canvas, the title's font); set again when the chart's width changes.
let titleMeasure = null;
function titleLines(parts, width) {
  if (!titleMeasure) titleMeasure = document.createElement("canvas").getContext("2d");
  titleMeasure.font = `bold 12px ${FONT}`; // the title's size in site_gen.charts.specs.to_spec
  const lines = [];
  let line = "";
  for (const part of parts) {
    const longer = line ? line + UI.titleJoin + part : part;
    if (line && titleMeasure.measureText(longer).width > width) {
      lines.push(line);
      line = part;
    } else line = longer;
  }
  if (line) lines.push(line);
  return lines.length > 1 ? lines : lines.join("");
}

/** Set the title signal for the chart's width; false when it did not change. */
export function setTitle(chart) {
  const lines = titleLines(chart.titleParts || [], chart.view.width());
  if (JSON.stringify(lines) === JSON.stringify(chart.view.signal("lb_title"))) return false;
  chart.view.signal("lb_title", lines);
  return true;
}

/** A column's distinct values in the order of another column (the GPUs of a legend, in registry order). */
export function distinct(rows, column, orderColumn) {
  const order = new Map();
  for (const r of rows) if (r[column] !== null && !order.has(r[column])) order.set(r[column], r[orderColumn]);
  return [...order.keys()].sort((a, b) => order.get(a) - order.get(b) || byText(String(a), String(b)));
}
