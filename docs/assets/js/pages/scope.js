// pages/scope.js: one filter scope (.lb-scope): its Source, its state, and the views that show it (filter
// bar, summary, results table, charts). The first scope of a page owns the URL's filter state.
// In: the scope's element (data-lb-* config), the page's charts. Out: {destroy, popstate, close, ...} for
// main.js and window.llmbench.scopes(). Side effects: history entries (through state/url.js).
// At scale (data-lb-summary, issue 29) the explorer opens on the best run of each cell, drawn by the same
// chart specs. A filter or preset on the cells' own dimensions (GPU, model, precision, workload) filters
// those best runs, exactly, without loading every run; so does a filter on one more dimension (TP, a
// release: data/summary.js). Every run loads when the reader asks for more: a filter on two other
// dimensions, another preset, "show every run", or back/forward (or a URL) to a state the summary cannot
// show; with GPUs chosen, every run of those GPUs only, with no GPU but models chosen, of those models
// (data/runs.js).
// A view opens the same way on the runs of its opening selection (a "slice", no cell dimensions: every run
// of it, so the charts and the count line are what every run gives there); any change loads every run of
// the GPUs or models it names, the same way (its parts).

import { json } from "../dom.js";
import { yieldToMain } from "../tasks.js";
import { clone, priceValue, queryFromState, stateFromQuery, withOtherParams } from "../state/filter.js";
import * as url from "../state/url.js";
import { openSource } from "../data/source.js";
import { openSummary, summaryServer } from "../data/summary.js";
import { openRuns } from "../data/runs.js";
import { mountFilterBar } from "../views/filter-bar.js";
import { mountSummary } from "../views/summary.js";
import { mountControls } from "../views/controls.js";
import { mountResultsTable } from "../views/results-table.js";
import { setRows } from "../views/chart.js";
import { LOW_KEY, estimatesChosen, withoutHeld } from "../calc/estimates.js";

/** hooks: {charts, cardHref(root, id), measured(kind, ms)}. Returns the scope's controller at once;
 * controller.ready resolves when the bar, table and first-screen charts are drawn. */
// Runs among rows: an estimate (source kind "modelled", issue 28) is shown when asked for but never counted
// as a run.
const countRuns = (rows) => rows.reduce((n, r) => (r.source_kind === "modelled" ? n : n + 1), 0);

export function mountScope(root, ownsUrl, hooks) {
  const barNode = root.querySelector(".lb-filterbar");
  const dims = json(barNode, "data-lb-dims", []);
  const defaults = json(barNode, "data-lb-defaults", {});
  const limitBox = root.querySelector(".lb-limits");
  const limits = limitBox ? json(limitBox, "data-lb-limits", []) : [];
  const priceCfg = limitBox ? json(limitBox, "data-lb-price", null) : null;
  const keys = [...dims, ...limits]; // what the URL's filter state holds
  const tableNode = root.querySelector("table.lb-table");
  const charts = [...root.querySelectorAll(".lb-chart")].map(hooks.charts.of);
  // {src, key, runs, cells, dims, figure, more, slice?}: the first view at scale (markers._summary, _slice)
  const first = json(root, "data-lb-summary", null);
  const source = openSource(root.dataset.lbSrc, root.dataset.lbKey, first);
  const runs = openRuns(source, (first && first.parts) || null, dims, limits, json(root, "data-lb-fixed", {}));
  let index = null, state = null, rows = [], bar = null, table = null;
  const summary = mountSummary(root); // the count line
  // The summary (data/summary.js, in cells while it shows): "" / a dimension / null for the states it serves.
  const servedBy = first ? summaryServer(first, keys, defaults) : () => null;
  const summaryServes = (s) => servedBy(s) !== null;
  let cells = null;
  let detail = null; // Promise: every run loaded and indexed, the bar and table mounted (once)
  const leave = new AbortController(); // the page left (instant navigation): the scope's watchers stop
  const controls = mountControls(root); // a phone's "Filters" button
  let price = null, priceRefused = false;
  // Low-confidence estimates (issue 28): held back unless the reader ticks the box (?est_low=1); their own
  // small index gives what they would add, so the counts and the count line leave them out.
  const lowBox = root.querySelector(".lb-est-low input");
  let held = null, low = false;
  const urlLow = () => ownsUrl && url.param(LOW_KEY) === "1";

  // The URL's price (?price=), or the default; a text that is not a price is kept to say so.
  function urlPrice() {
    const raw = ownsUrl ? url.param(priceCfg.key) : null;
    const v = priceValue(raw);
    priceRefused = raw !== null && v === null;
    if (bar) bar.priceNote(priceRefused);
    return v === null ? priceCfg.default : v;
  }

  function setPrice(v) {
    price = v;
    if (bar) bar.showPrice(v);
    if (table) table.setPrice(v);
  }

  // The filter bar's values and counts, the "N of M runs" line and the table for the current state.
  function refresh() {
    let result = index.filter(state);
    if (held && !low) result = withoutHeld(result, held.filter(state), index.values, held.values);
    rows = result.rows;
    if (lowBox) Object.assign(lowBox, { checked: low, disabled: !estimatesChosen(state) });
    const partial = runs.partial(); // the GPUs (or models) not loaded: no count for them, the build's total
    bar.sync(state, result.counts, index.index, partial);
    controls.sync();
    // "N of M runs" counts runs: an estimate (source kind "modelled") is never a run (issue 28)
    const shown = countRuns(rows);
    summary.draw({
      shown, total: partial ? first.runs : countRuns(index.all), estimates: rows.length - shown,
      missing: result.missing, limited: result.limited, held: result.held || 0,
    });
    if (table) table.draw(rows);
  }

  function rendered(ms) {
    root.dataset.lbRendered = String((Number(root.dataset.lbRendered) || 0) + 1);
    root.dispatchEvent(new CustomEvent("llmbench:rendered", { bubbles: true, detail: { ms } }));
  }

  // A filter change: the bar, count and table, then every chart drawn so far (a chart not drawn yet takes
  // the rows when it is).
  async function setState(next, push, measure) {
    state = next;
    if (ownsUrl && push) url.pushQuery(withOtherParams(queryFromState(keys, state, defaults), keys, url.search()));
    const t0 = performance.now();
    if (index && runs.loading(next) !== null) {
      // every run of a GPU not loaded yet: its file, then the bar again (its lists may have grown)
      summary.loading(runs.loading(next));
      const grew = await runs.cover(next).catch(summary.failed).finally(() => root.removeAttribute("aria-busy"));
      if (next !== state || grew === undefined) return; // a newer state took over, or the files failed
      if (grew) {
        ({ index, held } = runs);
        mountDetailBar();
      }
    }
    if (index) refresh();
    else await refreshSummary();
    charts.forEach(hooks.charts.live); // a chart still showing its picture: that of the first view
    await Promise.all(charts.filter((c) => c.view).map((c) => setRows(c, rows)));
    const ms = performance.now() - t0;
    if (measure) hooks.measured("filter", ms);
    rendered(ms);
  }

  // A preset reads as a hand-written URL would: what it names, and the defaults that are kept (kind). On
  // the summary, a preset it serves ("FP8 on H200") filters it as the bar would; any other, and "All runs"
  // (it names nothing: the reader asks for every run), loads every run.
  root.querySelectorAll(".lb-preset").forEach((a) =>
    a.addEventListener("click", async (ev) => {
      ev.preventDefault();
      ev.stopPropagation(); // keep Material's instant navigation from reloading the page
      const next = stateFromQuery(keys, new URL(a.href).search, defaults);
      const onSummary = cells && !detail && summaryServes(next) && queryFromState(keys, next, defaults);
      if (!onSummary) await everyRun();
      setState(next, true, true);
    })
  );

  // Every run, loaded once (at once, or when the reader first asks for it after the summary: the count
  // line says so meanwhile, seconds at a hundred thousand runs, until the bar and count are drawn).
  const everyRun = () => {
    if (!detail && index === null && first) summary.loading(runs.loading(urlState()));
    return detail || (detail = startDetail().finally(() => root.removeAttribute("aria-busy")));
  };
  // The table's parts, hidden while the first view shows the summary (the table lists every run).
  const tableParts = [".lb-tablebar", ".lb-table-hidden", ".lb-table-wrap"].map((s) => root.querySelector(s));
  const showTable = (on) => tableParts.forEach((n) => n && (n.hidden = !on));

  async function start() {
    if (!first || !source.summary || !summaryServes(urlState())) return everyRun();
    return startSummary();
  }

  // The state a scope opens on: the URL's for the scope that owns it, the defaults for the others.
  function urlState() {
    return ownsUrl ? stateFromQuery(keys, url.search(), defaults) : clone(defaults);
  }

  // The first view at scale: the summary's rows in the charts, the count line saying so with a "show
  // every run" button, no table. (A view's slice: its runs, the usual count line; any button: every run.)
  let barDims = null, barExtra = null; // the dimensions the build's bar shows; the one more on the bar now
  async function startSummary() {
    cells = await openSummary(first, source, dims, keys, defaults);
    barDims = [...barNode.querySelectorAll(".lb-filter[data-dim]")].map((n) => n.dataset.dim);
    showTable(false);
    state = urlState();
    await yieldToMain();
    await refreshSummary();
    const t0 = performance.now();
    await Promise.all(charts.map((c) => hooks.charts.lazy(c, () => rows)));
    rendered(performance.now() - t0);
  }

  // The bar on the summary: the cells' dimensions (and the one more open) filter it; the others are
  // deferred: one more dimension while no other is chosen opens it, any other loads every run.
  function mountSummaryBar() {
    barExtra = cells.extra();
    const on = new Set([...cells.cellDims.map((d) => d.key), barExtra]);
    if (bar) bar.destroy();
    bar = mountFilterBar({
      bar: barNode, limitBox: null, dims, limits: [], priceCfg: null, defaults, values: cells.values(),
      deferred: new Set(barDims.filter((k) => !on.has(k))),
      onDeferred: async (dim) => {
        if (cells.more(dim) && servedBy(state) === "") {
          await cells.open(dim);
          await refreshSummary();
        } else await everyRun();
        const button = barNode.querySelector(`.lb-filter[data-dim="${dim}"] .lb-filter-button`);
        if (button && button.getAttribute("aria-expanded") !== "true") button.click();
      },
      state: () => state,
      onChange: (next) => (summaryServes(next) ? setState(next, true, true) : everyRun()),
    });
  }

  // The summary under the state: its rows, the bar's counts (runs, through each row's cell_runs) and the
  // count line: "the best run of each cell: N of M runs" with M the runs of the selection (every run of
  // the data set when nothing is chosen).
  async function refreshSummary() {
    const s = state;
    const got = await cells.query(s);
    if (s !== state || detail) return; // a newer state, or every run, took over while the files loaded
    if (!bar || barExtra !== cells.extra()) mountSummaryBar();
    rows = got.rows;
    bar.sync(s, got.counts, got.index);
    controls.sync();
    if (first.slice) {
      // a view's opening selection, every run of it: the count line every run would give
      summary.draw({ shown: countRuns(rows), total: first.runs });
      return;
    }
    summary.cells(got.shown, got.runs, () => everyRun());
  }

  // The bar over every run loaded; mounted again when more runs load (a list open stays open).
  function mountDetailBar() {
    if (bar) bar.destroy();
    bar = mountFilterBar({
      bar: barNode, limitBox, dims, limits, priceCfg, values: index.values, defaults,
      state: () => state,
      onChange: (next) => setState(next, true, true),
      onPrice: (v) => {
        setPrice(v);
        if (ownsUrl) url.setParam(priceCfg.key, v, priceCfg.default);
      },
    });
    if (priceCfg) {
      bar.showPrice(price, true);
      bar.priceNote(priceRefused);
    }
  }

  // Every run of the URL's state loaded and indexed, then (a task later) the bar, count and table; then the
  // charts on the first screen, one per task; the others when the reader scrolls near them (a chart the
  // summary drew takes the new rows).
  async function startDetail() {
    const s = urlState();
    await runs.cover(s); // every run, or every run of the GPUs (or models) it names (data/runs.js)
    ({ index, held } = runs);
    low = urlLow();
    state = s;
    if (priceCfg) price = urlPrice();
    await yieldToMain();
    mountDetailBar();
    if (priceRefused) controls.open(); // on a phone the note would sit behind the Filters button
    if (tableNode) {
      table = mountResultsTable({
        table: tableNode, note: root.querySelector(".lb-table-note"), download: root.querySelector(".lb-download"),
        hiddenNote: root.querySelector(".lb-table-hidden"), columns: json(root, "data-lb-table", null), price,
        cardHref: (id) => hooks.cardHref(root, id), onSorted: (ms) => hooks.measured("table", ms),
        signal: leave.signal,
      });
    }
    showTable(true);
    if (lowBox) {
      lowBox.addEventListener("change", () => {
        low = lowBox.checked;
        if (ownsUrl) url.setParam(LOW_KEY, low ? "1" : null, null, true); // a history entry
        setState(state, false, true);
      });
    }
    refresh();
    const t0 = performance.now();
    await Promise.all(charts.map((c) => (!c.source ? hooks.charts.lazy(c, () => rows) : c.view && setRows(c, rows))));
    rendered(performance.now() - t0);
  }

  const controller = {
    ownsUrl,
    ready: null,
    everyRun, // every run loaded and shown (the tests wait on it after asking for it)
    showingSummary: () => Boolean(first) && !index, // the first view at scale is showing
    tableText: () => (table ? table.tableText() : { head: [], rows: [] }),
    rows: () => rows, // the rows of the current selection (what the charts draw): the Pareto view's tables
    close: () => bar && bar.close(),
    resized: () => table && table.resized(),
    popstate() {
      if (!ownsUrl) return;
      if (!index) {
        const next = stateFromQuery(keys, url.search(), defaults);
        if (cells && !detail && summaryServes(next)) return void setState(next, false, true);
        return void everyRun(); // it reads the URL's state itself
      }
      if (priceCfg) setPrice(urlPrice());
      low = urlLow();
      setState(stateFromQuery(keys, url.search(), defaults), false, true);
    },
    destroy: () => {
      leave.abort();
      if (bar) bar.destroy();
    },
  };
  controller.ready = start().catch(summary.unavailable); // the page's runs failed: said, and rethrown
  return controller;
}
