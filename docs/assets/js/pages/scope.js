// pages/scope.js: one filter scope (.lb-scope): its Source, its state, and the views that show it (filter
// bar, summary, results table, charts). The first scope of a page owns the URL's filter state.
// In: the scope's element (data-lb-* config), the page's charts. Out: {destroy, popstate, close, ...} for
// main.js and window.llmbench.scopes(). Side effects: history entries (through state/url.js).

import { json } from "../dom.js";
import { yieldToMain } from "../tasks.js";
import { clone, priceValue, queryFromState, stateFromQuery, withOtherParams } from "../state/filter.js";
import * as url from "../state/url.js";
import { fixedMatcher, openSource } from "../data/source.js";
import { mountFilterBar } from "../views/filter-bar.js";
import { mountSummary } from "../views/summary.js";
import { mountControls } from "../views/controls.js";
import { mountResultsTable } from "../views/results-table.js";
import { setRows } from "../views/chart.js";

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
  const source = openSource(root.dataset.lbSrc, root.dataset.lbKey);
  let index = null, state = null, rows = [], bar = null, summary = null, table = null;
  const controls = mountControls(root); // a phone's "Filters" button
  let price = null, priceRefused = false;

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
    const result = index.filter(state);
    rows = result.rows;
    bar.sync(state, result.counts, index.index);
    controls.sync();
    // "N of M runs" counts runs: an estimate (source kind "modelled") is never a run (issue 28)
    summary.draw({
      shown: countRuns(rows), total: countRuns(index.all), estimates: rows.length - countRuns(rows),
      missing: result.missing, limited: result.limited,
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
    refresh();
    await Promise.all(charts.filter((c) => c.view).map((c) => setRows(c, rows)));
    const ms = performance.now() - t0;
    if (measure) hooks.measured("filter", ms);
    rendered(ms);
  }

  // Three tasks, each short enough for a phone to answer input between them: (the rows decoded, then) the
  // rows indexed, then the bar, count and table; then the charts on the first screen, one per task (the
  // page stays responsive while they arrive); the others when the reader scrolls near them.
  async function start() {
    const all = (await source.rows()).filter(fixedMatcher(json(root, "data-lb-fixed", {})));
    await yieldToMain();
    index = source.index(all, dims, limits);
    state = ownsUrl ? stateFromQuery(keys, url.search(), defaults) : clone(defaults);
    if (priceCfg) price = urlPrice();
    await yieldToMain();
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
    summary = mountSummary(root);
    if (tableNode) {
      table = mountResultsTable({
        table: tableNode, note: root.querySelector(".lb-table-note"), download: root.querySelector(".lb-download"),
        hiddenNote: root.querySelector(".lb-table-hidden"), columns: json(root, "data-lb-table", null), price,
        cardHref: (id) => hooks.cardHref(root, id), onSorted: (ms) => hooks.measured("table", ms),
      });
    }
    root.querySelectorAll(".lb-preset").forEach((a) =>
      a.addEventListener("click", (ev) => {
        ev.preventDefault();
        ev.stopPropagation(); // keep Material's instant navigation from reloading the page
        // a preset reads as a hand-written URL would: what it names, and the defaults that are kept (kind)
        setState(stateFromQuery(keys, new URL(a.href).search, defaults), true, true);
      })
    );
    refresh();
    const t0 = performance.now();
    await Promise.all(charts.map((c) => hooks.charts.lazy(c, () => rows)));
    rendered(performance.now() - t0);
  }

  const controller = {
    ownsUrl,
    ready: null,
    tableText: () => (table ? table.tableText() : { head: [], rows: [] }),
    close: () => bar && bar.close(),
    resized: () => table && table.resized(),
    popstate() {
      if (!index || !ownsUrl) return;
      if (priceCfg) setPrice(urlPrice());
      setState(stateFromQuery(keys, url.search(), defaults), false, true);
    },
    destroy: () => bar && bar.destroy(),
  };
  controller.ready = start();
  return controller;
}
