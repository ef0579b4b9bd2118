// views/results-table.js: a scope's virtual results table, its sort and its CSV download.
// In: the columns (data-lb-table), draw(rows) for the rows the filters keep, setPrice(v) for the cost
// column. Out: tableText() for the tests; run ids are plain links (cardHref), an estimate's with its badge
// (calc/estimates.js). Side effects: the scope's <table>, its notes (rows; hidden columns), one scroll
// listener, a CSV download (every column, then an estimate's badge, confidence and band).

import { el, remPx } from "../dom.js";
import { UI } from "../messages.js";
import { COST, COUNT, USD, cell, runCost } from "../format.js";
import { fill } from "../messages.js";
import { badgeText, isEstimate } from "../calc/estimates.js";
import { whenNear } from "../tasks.js";

// The CSV's last columns: what marks an estimate in the table (its badge) travels with a downloaded row
// too, so a spreadsheet never holds an estimate as a measurement (issue 28). Empty for a run.
const ESTIMATE_CSV = ["estimate", "estimate_confidence", "estimate_band_pct"];
const estimateCells = (r) =>
  isEstimate(r) ? [badgeText(r, UI.estimateWords), r.est_confidence, r.est_pct] : ["", "", ""];

const VISIBLE_ROWS = 20; // about the rows the table's box shows; above it the note says to scroll
// The table is drawn when its box comes within a screen of the screen (as the MLPerf page's table): a
// reader scrolling at reading speed never meets it empty, and a phone's page load does not draw it.
const NEAR = "100% 0px";

/** opts: {table, note, hiddenNote, download, columns, price, cardHref(id), onSorted(ms), signal (the page
 * left: the watcher for the table's coming near stops)}. */
export function mountResultsTable(opts) {
  const { table } = opts;
  let price = opts.price;
  let rows = [], sorted = [], sort = null;
  let cols, headers, thead, tbody, wrap, rowHeight = 0, top = 0, boxHeight = 0;
  let hidden = { same: [], empty: [] }; // [{label, value}] and [label]: what the hidden-columns line names

  // A cell's value: the run's column, or one derived from it (the cost at the reader's price).
  const value = (r, c) => (c.derived === "cost" ? runCost(r, price) : r[c.key]);
  // The header's text (short, within two lines; the CSV's heading too), or the long one (its title).
  const colLabel = (c, long = false) => {
    const text = long ? c.long || c.label : c.label;
    return c.derived === "cost" ? fill(text, { price: USD.format(price ?? 0) }) : text;
  };
  function cellText(r, c) {
    const v = value(r, c);
    if (c.derived === "cost" && v !== null) return COST.format(v);
    if (c.note && r[c.note] && (v === null || v === undefined)) return UI.boundUnknown;
    return cell(v, c.numeric);
  }

  function sortedRows() {
    if (!sort) return rows;
    const { col, dir, numeric } = sort;
    const val = (r) => {
      const v = value(r, col);
      return numeric ? (v === null || v === undefined ? -Infinity : Number(v)) : String(v ?? "");
    };
    // keys computed once per row (not per comparison): sorting 4,345 rows takes a few milliseconds
    const keyed = rows.map((r) => [val(r), r]);
    keyed.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0) * dir);
    return keyed.map((p) => p[1]);
  }

  // The columns the shown rows need (issue 26): one whose value is the same in every shown row, or empty
  // in every one, says nothing there and is hidden, and the line under the table names it. Columns marked
  // "always" (the run card, the throughput figures) stay; a single row hides only its empty columns. The
  // CSV keeps every column.
  function chooseColumns() {
    hidden = { same: [], empty: [] };
    const keep = opts.columns.filter((c) => {
      if (c.always || !rows.length) return true;
      const first = value(rows[0], c) ?? null;
      if (first === null && rows.every((r) => (value(r, c) ?? null) === null)) {
        hidden.empty.push(colLabel(c));
        return false;
      }
      if (rows.length < 2 || rows.some((r) => (value(r, c) ?? null) !== first)) return true;
      hidden.same.push({ label: colLabel(c), value: cellText(rows[0], c) });
      return false;
    });
    const parts = [];
    if (hidden.same.length) parts.push(UI.hiddenSame(hidden.same.map((h) => `${h.label} (${h.value})`).join(", ")));
    if (hidden.empty.length) parts.push(UI.hiddenEmpty(hidden.empty.join(", ")));
    if (opts.hiddenNote) opts.hiddenNote.textContent = parts.length ? UI.hiddenColumns(parts.join("; ")) : "";
    return keep;
  }

  // A header's text on two lines at most, broken at the space nearest its middle (the button does not
  // wrap, so a narrow column cannot stack it word by word); its textContent stays the label.
  function setLabel(button, text) {
    let at = -1;
    for (let i = text.indexOf(" "); i > 0; i = text.indexOf(" ", i + 1)) {
      if (at < 0 || Math.abs(i - text.length / 2) < Math.abs(at - text.length / 2)) at = i;
    }
    if (text.length <= 12 || at < 0) return button.replaceChildren(text);
    button.replaceChildren(text.slice(0, at + 1), el("br"), text.slice(at + 1));
  }

  // A header's title: its long text (where the header shows a short one), then what the column holds.
  const headTitle = (c) => [c.long ? colLabel(c, true) : "", c.help].filter(Boolean).join(": ");

  // The header row, built again only when the columns shown change.
  function setColumns(next) {
    if (cols && next.length === cols.length && next.every((c, i) => c === cols[i])) return;
    cols = next;
    const tr = el("tr", { "aria-rowindex": "1" });
    headers = cols.map((c) => {
      const th = el("th", { scope: "col", "aria-sort": "none" });
      if (headTitle(c)) th.title = headTitle(c);
      const b = el("button", { type: "button", class: "lb-sort", "data-key": c.key });
      setLabel(b, colLabel(c));
      b.addEventListener("click", () => {
        const t0 = performance.now();
        const dir = sort && sort.key === c.key ? -sort.dir : c.numeric ? -1 : 1;
        sort = { key: c.key, col: c, dir, numeric: c.numeric };
        render();
        opts.onSorted(performance.now() - t0);
      });
      th.append(b);
      tr.append(th);
      return th;
    });
    thead.replaceChildren(tr);
  }

  // A virtual table: every row of the selection is reachable by scrolling the table's box, but only the
  // rows in view (and a margin) are in the DOM, so showing or sorting 4,345 rows costs what 60 do.
  function init() {
    wrap = table.parentElement;
    thead = el("thead");
    tbody = el("tbody");
    table.replaceChildren(thead, tbody);
    // The box's scroll offset and size are read here, where the layout is fresh, and kept: reading
    // them while drawing (after the rows changed) would force a layout of the whole page each time.
    let queued = false;
    wrap.addEventListener("scroll", () => {
      top = wrap.scrollTop;
      boxHeight = wrap.clientHeight;
      if (!rowHeight) measureRow();
      if (queued) return;
      queued = true;
      requestAnimationFrame(() => {
        queued = false;
        drawRows();
      });
    });
  }

  // A row's height: the CSS's (td height 1.5rem, no wrapping) until a drawn row is measured.
  function measureRow() {
    const tr = tbody.querySelector("tr:not(.lb-spacer)");
    const h = tr ? tr.getBoundingClientRect().height : 0;
    if (h > 0) rowHeight = h;
  }

  function render() {
    stale = false;
    if (!tbody) init();
    setColumns(chooseColumns());
    cols.forEach((c, i) => {
      const on = sort && sort.key === c.key;
      headers[i].setAttribute("aria-sort", on ? (sort.dir > 0 ? "ascending" : "descending") : "none");
    });
    sorted = sortedRows();
    table.setAttribute("aria-rowcount", String(sorted.length + 1));
    if (top) wrap.scrollTop = top = 0; // (setting it forces a layout: only when scrolled)
    drawRows();
    const n = sorted.length;
    opts.note.textContent = !n ? UI.noMatch : n > VISIBLE_ROWS ? UI.scrollRows(COUNT.format(n)) : "";
  }

  // The rows in the table's box (plus a margin), between two spacer rows of the height of the others.
  // Nothing here reads the layout: the offset and box height come from the last scroll event, the row
  // height from the CSS until a row is measured, the box's height from its CSS (min(32rem, 70vh)).
  function drawRows() {
    const rem = remPx();
    const h = rowHeight || 1.5 * rem;
    const box = boxHeight || Math.min(32 * rem, 0.7 * window.innerHeight);
    const first = Math.max(0, Math.floor(top / h) - 10); // the first row in the box; ten more above and below
    const last = Math.min(sorted.length, Math.floor(top / h) + Math.ceil(box / h) + 10);
    const frag = document.createDocumentFragment();
    const spacer = (px) => {
      const tr = el("tr", { class: "lb-spacer", "aria-hidden": "true" });
      const td = el("td", { colspan: String(cols.length) });
      td.style.height = px + "px";
      tr.append(td);
      return tr;
    };
    if (first > 0) frag.append(spacer(first * h));
    for (let i = first; i < last; i++) frag.append(rowElement(sorted[i], i));
    if (last < sorted.length) frag.append(spacer((sorted.length - last) * h));
    tbody.replaceChildren(frag);
  }

  function rowElement(r, i) {
    const row = el("tr", { "aria-rowindex": String(i + 2) });
    for (const c of cols) {
      const td = el("td", c.numeric ? { class: "lb-num" } : {});
      if (c.card && r[c.key]) {
        td.append(el("a", { href: opts.cardHref(r[c.key]), class: "lb-card-link" }, String(r[c.key])));
        // an estimate never passes for a measurement (issue 28): its badge, with its band, beside its id
        const badge = badgeText(r, UI.estimateWords);
        if (badge) td.append(" ", el("span", { class: "lb-badge lb-estimate", title: UI.estBadgeHelp }, badge));
      } else {
        td.textContent = cellText(r, c);
      }
      // A flagged figure (e.g. above its speed-of-light bound): marked by CSS, the reason as its title.
      if (c.flag && r[c.flag]) {
        td.classList.add("lb-flagged");
        td.title = r[c.flag];
      } else if (c.note && r[c.note]) {
        // the bound's note: "unknown" where there is no bound, else the figure marked by CSS (" *", so the
        // cell's text stays the number the CSV has); why as its title
        const v = value(r, c);
        td.classList.add("lb-noted", ...(v === null || v === undefined ? ["lb-unknown"] : []));
        td.title = UI.boundNote(r[c.note]);
      }
      row.append(td);
    }
    return row;
  }

  // The whole selection, every column, as the table sorts it; formulas from data are defused.
  function download() {
    const quote = (v) => {
      let s = v === null || v === undefined ? "" : String(v);
      if (/^[=+\-@\t\r]/.test(s) && isNaN(Number(s))) s = "'" + s; // no spreadsheet formulas from data
      return /[",\n\r]/.test(s) ? '"' + s.replace(/"/g, '""') + '"' : s;
    };
    const lines = [[...opts.columns.map((c) => colLabel(c)), ...ESTIMATE_CSV].map(quote).join(",")];
    for (const r of sortedRows()) {
      lines.push([...opts.columns.map((c) => value(r, c)), ...estimateCells(r)].map(quote).join(","));
    }
    const blob = new Blob([lines.join("\r\n") + "\r\n"], { type: "text/csv;charset=utf-8" });
    const a = el("a", { href: URL.createObjectURL(blob), download: "llmbench-runs.csv" });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(a.href), 10000);
  }
  if (opts.download) opts.download.addEventListener("click", download);

  // Drawn when its box comes within NEAR of the screen (tasks.js whenNear, from the start): on every page
  // that has one the table sits below the first screen (1,100-3,300 px down at 412 and 1350 px wide;
  // beyond NEAR on a phone), and drawing it (its columns chosen over every shown row, the header, the first rows, the page's layout after them) was one more long task
  // of the page load, and of every filter change, for a reader looking at the charts above it. The box's
  // height is fixed by the CSS (contain: strict), so drawing it later moves nothing.
  let due = !window.IntersectionObserver;
  let stale = false; // rows changed while the table was not due
  if (!due) {
    // opts.signal: the page was left (instant navigation): the watcher goes with it
    whenNear(table.parentElement, { margin: NEAR, signal: opts.signal }).then(() => {
      due = true;
      if (stale) render();
    });
  }
  const drawn = () => {
    if (stale) render();
  };

  return {
    draw(next) {
      rows = next;
      stale = !due;
      if (due) render();
    },
    /** A new price: the cost column's header and cells (its order does not change: cost is proportional). */
    setPrice(v) {
      price = v;
      if (!tbody) return;
      cols.forEach((c, i) => {
        if (!c.derived) return;
        setLabel(headers[i].querySelector(".lb-sort"), colLabel(c));
        headers[i].title = headTitle(c);
      });
      drawRows();
    },
    /** The window was resized: 70vh comes from the CSS again at the next drawing. */
    resized: () => (boxHeight = 0),
    /** The whole selection as the table shows it (sorted, formatted): what a reader reaches by scrolling. */
    tableText: () => (drawn(), {
      head: (cols || []).map((c) => colLabel(c)),
      rows: sorted.map((r) =>
        cols.map((c) => (c.card ? [r[c.key] ?? "", badgeText(r, UI.estimateWords)].filter(Boolean).join(" ") : cellText(r, c)))
      ),
      hidden,
    }),
  };
}
