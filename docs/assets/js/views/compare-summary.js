// views/compare-summary.js: compare mode's answer and list: the sentence ("H200 is 1.49× H100"), its
// median, range and count, what every configuration shares (said once), the estimates' own line, and the
// per-configuration table inside a closed <details> (the list on demand).
// In: the page's nodes, the words (ui), the worked pairs from pages/compare.js. Out: DOM only.
// Side effects: the given nodes' children (text through textContent: a result's strings are never markup).

import { el } from "../dom.js";
import { COUNT, formatter, NUMBER } from "../format.js";

const R = formatter({ minimumFractionDigits: 2, maximumFractionDigits: 2 }, "en");
/** A ratio as the page writes it: two decimals (1.49; the sign × is the caller's). */
export const times = (r) => R.format(r);

const fill = (text, vars) => text.replace(/\{(\w+)\}/g, (m, k) => (k in vars ? vars[k] : m));

/** The answer: the sentence, the figures behind it, the shared parts, the estimates' line; or "none". */
export function renderAnswer(nodes, ui, { a, b, sum, shared, est }) {
  nodes.sentence.textContent = sum ? fill(ui.answer, { a, b, r: times(sum.median) }) : ui.none;
  nodes.stats.textContent = !sum
    ? ""
    : sum.n === 1
      ? ui.one_config
      : fill(ui.stats, {
          n: COUNT.format(sum.n),
          min: times(sum.min),
          max: times(sum.max),
          g: times(sum.geomean),
        });
  nodes.shared.textContent = sum && shared.length ? fill(ui.fixed, { parts: shared.join(" · ") }) : "";
  nodes.estimate.hidden = !est;
  nodes.estimate.textContent = !est
    ? ""
    : (est.n ? fill(ui.est_answer, { a, b, r: times(est.median), n: COUNT.format(est.n) }) : ui.est_none) +
      (est.held ? " " + fill(ui.est_held, { n: COUNT.format(est.held) }) : "");
}

function numberCell(value, href, estimate) {
  const td = el("td", { class: "lb-num" + (estimate ? " lb-estimate" : "") });
  if (value === null || value === undefined) td.textContent = "–";
  else if (href) td.append(el("a", { href }, NUMBER.format(value)));
  else td.textContent = NUMBER.format(value);
  return td;
}

// A list of up to EAGER_ROWS rows is built at once (a few ms); a longer one when it is first opened: at a
// million runs two GPUs share 45,500 configurations, a second of the page's load for a closed list.
const EAGER_ROWS = 500;

/** The per-configuration table: label, A, B, B ÷ A and, with estimates on, the estimate's A, B and B ÷ A
 * marked "estimate" in their headers and cells; a configuration with only an estimate has "–" measured.
 * Its summary line says how many configurations it lists. */
export function renderList(details, table, ui, list) {
  const { rows } = list;
  const n = rows.filter((r) => r.measured).length;
  details.querySelector("summary").textContent = fill(ui.list, { n: COUNT.format(n) });
  details.hidden = rows.length === 0;
  const build = () => fillTable(table, ui, list);
  details.lbBuild = details.open || rows.length <= EAGER_ROWS ? null : build;
  if (!details.lbBuild) build();
  else table.replaceChildren();
  if (!details.lbWatched) {
    details.lbWatched = true;
    details.addEventListener("toggle", () => {
      if (details.open && details.lbBuild) {
        details.lbBuild();
        details.lbBuild = null;
      }
    });
  }
}

function fillTable(table, ui, { a, b, rows, withEstimates, href }) {
  const heads = [ui.config, `A: ${a}`, `B: ${b}`, ui.ratio];
  if (withEstimates) heads.push(`${ui.estimate}: A`, `${ui.estimate}: B`, `${ui.estimate}: ${ui.ratio}`);
  const head = el("tr");
  heads.forEach((h, i) => head.append(el("th", { scope: "col", class: i > 3 ? "lb-estimate" : "" }, h)));
  const thead = el("thead");
  thead.append(head);
  const tbody = el("tbody");
  for (const r of rows) {
    const tr = el("tr");
    tr.append(el("td", {}, r.label || "–"));
    const m = r.measured;
    tr.append(numberCell(m?.a, m && href(m.a_run)), numberCell(m?.b, m && href(m.b_run)));
    tr.append(el("td", { class: "lb-num" }, m ? times(m.ratio) + "×" : "–"));
    if (withEstimates) {
      const e = r.estimate;
      tr.append(numberCell(e?.a, e && href(e.a_run), true), numberCell(e?.b, e && href(e.b_run), true));
      tr.append(el("td", { class: "lb-num lb-estimate" }, e ? times(e.ratio) + "× " + ui.estimate : "–"));
    }
    tbody.append(tr);
  }
  table.replaceChildren(thead, tbody);
}
