/* llmbench page script: the one generic script of the site (no chart knowledge lives here).
 *
 * It renders every chart placeholder (.lb-chart: a Vega spec in data-lb-spec, built by Python with Altair
 * and compiled from Vega-Lite at build time, site_gen/vega_compile.py) when it comes near the screen,
 * loads the page's one data file (a <script> that assigns window.LLMBENCH_DATA[key]; works from
 * file://), and drives each filter scope (.lb-scope): the filter bar, the "N of M runs" count, every chart,
 * the results table and its CSV download, with the state in the URL query string (back/forward work).
 * Strings from result files only ever reach the page through textContent, attribute values and Vega's
 * escaped tooltips, never through innerHTML.
 * Hooked on Material's document$ (instant navigation); from file:// on DOMContentLoaded (Material 9.8's
 * document$ never emits there).
 */
(function () {
  "use strict";

  const VISIBLE_ROWS = 20; // about the rows the table's box shows; above it the note says to scroll
  // Every sentence the script shows comes from the page language's message catalogue
  // (site_gen/i18n/<lang>.yaml, loaded before this script as assets/i18n/<lang>.js); {name} placeholders.
  const I18N = window.LLMBENCH_I18N || { ui: {} };
  const fill = (text, values) => String(text).replace(/\{(\w+)\}/g, (m, k) => (k in values ? values[k] : m));
  const say = (key) => (values) => fill(I18N.ui[key] ?? key, values || {});
  const UI = {
    noMatch: say("noMatch")(),
    scrollRows: (n) => say("scrollRows")({ n }),
    noRuns: say("noRuns")(),
    noMetric: say("noMetric")(),
    sample: (max, n) => say("sample")({ max, n }),
    count: (n, total) => say("count")({ n, total }),
    all: say("all")(),
    allValue: say("allValue")(),
    selected: (n) => say("selected")({ n }),
    reset: say("reset")(),
    chartError: say("chartError")(),
    yes: say("yes")(),
    no: say("no")(),
    runId: say("runId")(),
    noSuchRun: (id) => say("noSuchRun")({ id }),
    noRunChosen: say("noRunChosen")(),
    toExplorer: say("toExplorer")(),
    report: say("report")(),
    boundUnknown: say("boundUnknown")(),
    // a run's bound_note: codes joined by "," (bench/contract/bound.py NOTES), each a sentence of the catalogue
    boundNote: (codes) => String(codes).split(",").map((c) => say("boundNote_" + c)()).join(" "),
    reportTitle: (id, what) => say("reportTitle")({ id, what }),
    reportBody: (id, url, file) => say("reportBody")({ id, url, file }),
    openCard: say("openCard")(),
    chartMenu: say("chartMenu")(),
    chartImage: (label) => say("chartImage")({ label }),
    // a chart's title: what the drawn runs have one value of (site_gen.charts.TITLE)
    titleParts: { workload: (w) => say("titleWorkload")({ w }), publisher: (p) => say("titlePublisher")({ p }) },
    titleJoin: say("titleJoin")(),
    dataTable: say("dataTable")(),
    dataTableCut: (max, n) => say("dataTableCut")({ max, n }),
    limitHidden: (n) => say("limitHidden")({ n }),
    priceRefused: (max) => say("priceRefused")({ max }),
  };
  // Numbers in the page's language (<html lang>: "en", "ko"); the catalogue's language when it has none.
  const LOCALE = document.documentElement.lang || I18N.lang || "en";
  const LIMIT_DELAY_MS = 600; // a latency filter applies this long after the last keystroke
  const DATA_TABLE_MAX = 1000; // rows of a chart's data table (one-point-per-run charts can have thousands)
  // A chart is drawn when it comes within this share of the viewport's height of the screen (below or
  // above): the charts a reader never scrolls to cost a phone nothing. The first drawing is the charts in
  // the first screen only (no margin): most chart pages show at most one there.
  const LAZY_MARGIN = 0.5;
  const FIRST_SCREEN_SHARE = 0.25; // a chart is on the first screen when this share of it shows (onFirstLook)
  // The chart libraries and the planner load only on pages that use them (this script is the one loaded
  // on every page); paths are relative to this script, so they work from any page and from file://.
  const ASSETS = new URL("..", (document.currentScript && document.currentScript.src) || location.href);
  // Vega only: the specs are compiled from Vega-Lite at build time (site_gen/vega_compile.py).
  const VEGA = ["vendor/vega.min.js", "vendor/vega-embed.min.js"];
  const PLANNER = ["js/planner-data.js", "js/planner.js"];
  const MLPERF = ["js/mlperf.js"]; // the MLPerf page's own script (no Vega); it boots itself when run
  const scripts = {}; // asset path -> Promise of its loaded <script>
  const pending = {}; // data key -> Promise of the loaded script
  const decoded = {}; // data key -> Promise of its row objects (decoded once per session)
  let charts = []; // {el, spec, view, rows, source, drawn} of the current page, in page order
  let scopes = []; // controllers of the current page's filter scopes
  let observer = null; // the IntersectionObserver that draws charts as they come near the screen
  let drawing = Promise.resolve(); // the queue of chart drawings: one chart per task
  // drawAll: draw every chart of the page now (printing, tests); resolves when all are drawn.
  const api = { lastFilterMs: null, lastTableMs: null, charts: () => charts, scopes: () => scopes, countMarks, ready: null, drawAll, loadRows };
  window.llmbench = api;

  /* ---- data ---------------------------------------------------------------------------------- */

  // Scripts in the given order (downloaded in parallel, run in order: async = false), each once.
  function loadScripts(paths) {
    return Promise.all(
      paths.map((path) => {
        if (!scripts[path]) {
          scripts[path] = new Promise((resolve, reject) => {
            const s = document.createElement("script");
            s.src = new URL(path, ASSETS).href;
            s.async = false;
            s.onload = resolve;
            s.onerror = () => {
              delete scripts[path];
              reject(new Error("could not load " + path));
            };
            document.head.appendChild(s);
          });
        }
        return scripts[path];
      })
    );
  }

  // Fetched into the cache without running (loadScripts runs them when needed).
  function prefetch(paths) {
    for (const path of paths) {
      if (scripts[path] || !/^https?:$/.test(location.protocol)) continue;
      const href = new URL(path, ASSETS).href;
      if (document.querySelector(`link[rel=prefetch][href="${href}"]`)) continue;
      document.head.append(el("link", { rel: "prefetch", as: "script", href }));
    }
  }

  function loadRows(src, key) {
    const store = () => window.LLMBENCH_DATA || {};
    if (!store()[key] && !pending[key]) {
      pending[key] = new Promise((resolve, reject) => {
        const s = document.createElement("script");
        s.src = src;
        s.onload = resolve;
        s.onerror = () => reject(new Error("could not load the page data " + src));
        document.head.appendChild(s);
      });
    }
    // decoded once per session, in tasks of their own (not in the one that ran the large data script)
    return Promise.resolve(pending[key]).then(() => decoded[key] || (decoded[key] = decode(store()[key])));
  }

  // Row objects from the columnar payload, DECODE_CHUNK rows per task: the explorer's 4,345 rows in one
  // go were a phone's longest task of the page load.
  const DECODE_CHUNK = 1500;
  async function decode(payload) {
    const names = Object.keys(payload.columns);
    const getters = names.map((name) => {
      const col = payload.columns[name];
      if (Array.isArray(col)) return (i) => col[i];
      return (i) => (col.codes[i] === null ? null : col.dict[col.codes[i]]);
    });
    const rows = new Array(payload.n);
    for (let i = 0; i < payload.n; i++) {
      if (i % DECODE_CHUNK === 0) await yieldToMain();
      const row = {};
      for (let j = 0; j < names.length; j++) row[names[j]] = getters[j](i);
      // lb_jitter (site_gen.charts.JITTER): a stable sideways offset in [0, 1) for one-point-per-run
      // charts, spread evenly (golden-ratio sequence); computed once here, not by Vega on every insert.
      row.lb_jitter = (i * 0.6180339887498949) % 1;
      rows[i] = row;
    }
    return rows;
  }

  // End the current task so the browser can paint and answer input before the next piece of work (a
  // page of several charts drawn in one task blocked the main thread for over a second on a phone).
  function yieldToMain() {
    if (window.scheduler && window.scheduler.yield) return window.scheduler.yield();
    return new Promise((resolve) => setTimeout(resolve, 0));
  }

  function json(el, name, fallback) {
    const text = el.getAttribute(name);
    return text ? JSON.parse(text) : fallback;
  }

  /* ---- filters -------------------------------------------------------------------------------- */

  // A filter state maps a dimension key to the chosen values (text); absent or empty means "all".

  // Fixed filters of a placeholder or scope map a column to the allowed values.
  function fixedMatcher(fixed) {
    const tests = Object.entries(fixed).map(([column, values]) => [column, new Set(values.map(String))]);
    return (row) => tests.every(([column, set]) => set.has(String(row[column])));
  }

  function sortedValues(rows, dim) {
    return valueCodes(rows, dim).values;
  }

  // A dimension's distinct values (as text), in its order (sort_column, numeric or text), and each row's
  // index into them (-1: no value): one pass over the rows, then a sort of the few distinct values.
  function valueCodes(rows, dim) {
    const ids = new Map(); // value text -> index in first-seen order
    const keys = [], order = [];
    const codes = new Int32Array(rows.length);
    for (let i = 0; i < rows.length; i++) {
      const v = rows[i][dim.column];
      if (v === null || v === undefined) {
        codes[i] = -1;
        continue;
      }
      const k = typeof v === "string" ? v : String(v);
      let id = ids.get(k);
      if (id === undefined) {
        id = keys.length;
        ids.set(k, id);
        keys.push(k);
        order.push(dim.sort_column ? rows[i][dim.sort_column] : dim.numeric ? Number(v) : k);
      }
      codes[i] = id;
    }
    const perm = keys.map((_, i) => i);
    perm.sort((a, b) => {
      const x = order[a], y = order[b];
      if (x < y) return -1;
      if (x > y) return 1;
      return byText(keys[a], keys[b]);
    });
    const rank = new Int32Array(keys.length);
    perm.forEach((id, r) => (rank[id] = r));
    for (let i = 0; i < codes.length; i++) if (codes[i] >= 0) codes[i] = rank[codes[i]];
    return { values: perm.map((id) => keys[id]), codes };
  }

  // Ties in order are broken by code point (as Python's sorted() does), not localeCompare: its first call
  // loads ICU's collation data, tens of milliseconds of a phone's page load.
  function byText(a, b) {
    return a < b ? -1 : a > b ? 1 : 0;
  }

  // ``keys``: the filter dimensions and the latency limits (site_gen.dimensions.LIMITS: {key, bound}),
  // whose one value must be a number >= 0 (anything else in the URL is ignored).
  function stateFromQuery(keys, search, defaults) {
    const params = new URLSearchParams(search);
    if (!keys.some((d) => params.has(d.key))) return clone(defaults);
    const state = {};
    for (const d of keys) {
      let values = params.getAll(d.key).filter((v) => v !== "*");
      if (d.bound) values = values.slice(0, 1).filter((v) => limitValue(v) !== null);
      if (values.length) state[d.key] = values;
    }
    return state;
  }

  // A limit's or price's text as a number >= 0, else null. Plain decimals only ("2", "2.5", ".5"):
  // Number() would also read "0x10" as 16, "1e308" and "Infinity", none of which a person types as a
  // price or a latency.
  const DECIMAL = /^\s*(\d+(\.\d*)?|\.\d+)\s*$/;
  function limitValue(text) {
    if (text === null || text === undefined || !DECIMAL.test(String(text))) return null;
    const v = Number(text);
    return Number.isFinite(v) ? v : null;
  }
  // The most a GPU-hour may cost in the price boxes (docs/explorer.md): a dearer one is refused with a
  // message (a 300-digit price filled the table's header and pushed every row out of sight).
  const MAX_PRICE = 1000;
  function priceValue(text) {
    const v = limitValue(text);
    return v !== null && v <= MAX_PRICE ? v : null;
  }
  // Say, beside the price box, that its text (typed or from ?price=) is not a price and is not used.
  function priceNote(input, refused) {
    const box = input.closest(".lb-limit") || input; // the note goes after the pill, on its own line
    let note = box.parentNode.querySelector(".lb-price-note");
    if (!refused) {
      if (note) note.remove();
      input.removeAttribute("aria-invalid");
      return;
    }
    if (!note) {
      note = el("span", { class: "lb-price-note", role: "status" }, UI.priceRefused(MAX_PRICE.toLocaleString(LOCALE)));
      box.after(note);
    }
    input.setAttribute("aria-invalid", "true");
  }

  function queryFromState(dims, state, defaults) {
    if (same(state, defaults)) return "";
    const params = new URLSearchParams();
    for (const d of dims) {
      const values = state[d.key] || [];
      if (values.length) values.forEach((v) => params.append(d.key, v));
      else if (defaults[d.key] && defaults[d.key].length) params.append(d.key, "*");
    }
    const q = params.toString();
    return q ? "?" + q : "";
  }

  // The filters' query plus the URL's parameters that are not filters (a chart input such as ?price=):
  // a filter change must not drop them.
  function withOtherParams(query, dims) {
    const keys = new Set(dims.map((d) => d.key));
    const params = new URLSearchParams(query);
    for (const [k, v] of new URLSearchParams(location.search)) if (!keys.has(k)) params.append(k, v);
    const q = params.toString();
    return q ? "?" + q : "";
  }

  function clone(state) {
    return JSON.parse(JSON.stringify(state || {}));
  }

  function same(a, b) {
    const norm = (s) =>
      JSON.stringify(
        Object.keys(s)
          .filter((k) => s[k] && s[k].length)
          .sort()
          .map((k) => [k, [...s[k]].sort()])
      );
    return norm(a || {}) === norm(b || {});
  }

  function el(tag, attrs, text) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
    if (text !== undefined) node.textContent = text;
    return node;
  }

  /* ---- a filter scope: bar + count + charts + table -------------------------------------------- */

  class Scope {
    constructor(root, index) {
      this.root = root;
      this.ownsUrl = index === 0;
      this.bar = root.querySelector(".lb-filterbar");
      this.dims = json(this.bar, "data-lb-dims", []);
      this.defaults = json(this.bar, "data-lb-defaults", {});
      this.limitBox = root.querySelector(".lb-limits");
      this.limits = this.limitBox ? json(this.limitBox, "data-lb-limits", []) : [];
      this.priceCfg = this.limitBox ? json(this.limitBox, "data-lb-price", null) : null;
      this.keys = [...this.dims, ...this.limits]; // what the URL's filter state holds
      this.tableCols = json(root, "data-lb-table", null);
      this.table = root.querySelector("table.lb-table");
      this.sort = null;
      this.showAll = false;
      this.charts = [];
    }

    // Three tasks, each short enough for a phone to answer input between them: (the rows decoded, then)
    // the rows indexed, then the bar, count and table.
    async init(rows) {
      await yieldToMain();
      this.all = rows.filter(fixedMatcher(json(this.root, "data-lb-fixed", {})));
      this.values = {};
      this.index = {}; // dimension -> Map: option text -> its index in this.values, built once
      this.codes = {}; // dimension -> Int32Array: each row's option index (-1: no value), built once
      for (const d of this.dims) {
        const { values, codes } = valueCodes(this.all, d);
        this.values[d.key] = values;
        this.index[d.key] = new Map(values.map((v, i) => [v, i]));
        this.codes[d.key] = codes;
      }
      // each latency limit's figure per row (NaN: the run has none), read once
      this.figures = {};
      for (const l of this.limits) {
        this.figures[l.key] = Float64Array.from(this.all, (r) => (r[l.column] === null || r[l.column] === undefined ? NaN : Number(r[l.column])));
      }
      this.state = this.ownsUrl ? stateFromQuery(this.keys, location.search, this.defaults) : clone(this.defaults);
      this.price = this.priceCfg ? this.urlPrice() : null;
      await yieldToMain();
      this.buildBar();
      this.initLimits();
      this.root.querySelectorAll(".lb-preset").forEach((a) =>
        a.addEventListener("click", (ev) => {
          ev.preventDefault();
          ev.stopPropagation(); // keep Material's instant navigation from reloading the page
          this.setState(stateFromQuery(this.keys, new URL(a.href).search, {}), true);
        })
      );
      const download = this.root.querySelector(".lb-download");
      if (download) download.addEventListener("click", () => this.download());
      // The bar, count and table at once (the page takes its final layout), then the charts on the first
      // screen, one per task (the page stays responsive while they arrive); the others when the reader
      // scrolls near them, each with the rows of the filters as they are then.
      this.refresh();
      this.charts = [...this.root.querySelectorAll(".lb-chart")].map((node) => node.__lbChart);
      const t0 = performance.now();
      await Promise.all(this.charts.map((c) => lazy(c, () => this.rows)));
      this.rendered(performance.now() - t0);
    }

    // The bar's buttons; each filter's list of options is built when it is first opened (options),
    // not at load: the lists are hidden, and the explorer's hold ~350 elements a phone would otherwise
    // style and lay out while the page loads.
    buildBar() {
      this.bar.textContent = "";
      this.widgets = {};
      for (const d of this.dims) {
        const values = this.values[d.key];
        if (values.length < 2 && !(this.state[d.key] || []).length) continue; // nothing to choose
        const box = el("div", { class: "lb-filter", "data-dim": d.key });
        const summary = el("button", { type: "button", class: "lb-filter-button", "aria-expanded": "false" });
        summary.append(el("span", { class: "lb-filter-label" }, d.label + ": "));
        const shown = el("span", { class: "lb-filter-value" });
        summary.append(shown);
        box.append(summary);
        const list = el("div", { class: "lb-options", role: "group", "aria-label": d.label, hidden: "" });
        // What the dimension means (e.g. precision "Mixed", source kind): on hover and atop the options.
        if (d.help) {
          summary.title = d.help;
          list.append(el("p", { class: "lb-filter-help" }, d.help));
        }
        box.append(list);
        summary.addEventListener("click", () => this.toggle(box, list.hidden));
        this.bar.append(box);
        this.widgets[d.key] = { box, shown, list, dim: d, inputs: null };
      }
      const reset = el("button", { type: "button", class: "lb-reset md-button" }, UI.reset);
      reset.addEventListener("click", () => this.setState(clone(this.defaults), true));
      this.bar.append(reset);
    }

    // A filter's "all" button and one checkbox (radio) per value with its count, built once.
    options(w) {
      if (w.inputs) return;
      const d = w.dim;
      const all = el("button", { type: "button", class: "lb-all" }, UI.all);
      all.addEventListener("click", () => this.choose(d, []));
      w.list.append(all);
      const inputs = [];
      for (const v of this.values[d.key]) {
        const label = el("label", { class: "lb-option" });
        const input = el("input", { type: d.multi ? "checkbox" : "radio", name: "lb-" + d.key, value: v });
        input.dataset.dim = d.key;
        input.addEventListener("change", () => {
          const chosen = d.multi ? inputs.filter((i) => i.checked).map((i) => i.value) : [v];
          this.choose(d, chosen);
        });
        label.append(input, el("span", { class: "lb-option-text" }, v), el("span", { class: "lb-n" }));
        w.list.append(label);
        inputs.push(input);
      }
      w.inputs = inputs;
      this.syncOptions(w);
    }

    // The latency limits and the price (drawn by the build, disabled until now): a limit is a filter (a
    // change is a new history entry); the price only recomputes the cost column (the URL entry is replaced,
    // as the Pareto view's price box does: ?price= is shared with it).
    initLimits() {
      if (!this.limitBox) return;
      this.limitInputs = {};
      for (const l of this.limits) {
        const input = this.limitBox.querySelector(`.lb-limit[data-key="${l.key}"] input`);
        if (!input) continue;
        input.disabled = false;
        // applied when the reader pauses typing, presses Enter or leaves the box; once per value
        let timer = null;
        const commit = () => {
          clearTimeout(timer);
          const v = limitValue(input.value);
          if (v === limitValue((this.state[l.key] || [])[0])) return;
          const next = clone(this.state);
          if (v === null) delete next[l.key];
          else next[l.key] = [String(v)];
          this.setState(next, true);
        };
        input.addEventListener("input", () => {
          clearTimeout(timer);
          timer = setTimeout(commit, LIMIT_DELAY_MS);
        });
        input.addEventListener("change", commit);
        this.limitInputs[l.key] = input;
      }
      const price = this.limitBox.querySelector(".lb-price input");
      if (price && this.priceCfg) {
        price.disabled = false;
        price.value = this.price.toFixed(2);
        price.addEventListener("input", () => {
          const v = priceValue(price.value);
          priceNote(price, v === null && price.value.trim() !== "");
          if (v === null) return;
          this.setPrice(v);
          if (!this.ownsUrl) return;
          const params = new URLSearchParams(location.search);
          if (v === this.priceCfg.default) params.delete(this.priceCfg.key);
          else params.set(this.priceCfg.key, String(v));
          const q = params.toString();
          history.replaceState(history.state, "", location.pathname + (q ? "?" + q : "") + location.hash);
          syncLanguageLinks();
        });
        this.priceInput = price;
        priceNote(price, this.priceRefused);
      }
    }

    urlPrice() {
      const raw = this.ownsUrl ? new URLSearchParams(location.search).get(this.priceCfg.key) : null;
      const v = priceValue(raw);
      this.priceRefused = raw !== null && v === null; // shown once the box is wired (and on back/forward)
      if (this.priceInput) priceNote(this.priceInput, this.priceRefused);
      return v === null ? this.priceCfg.default : v;
    }

    // A new price: the cost column's header and cells (its order does not change: cost is proportional).
    setPrice(v) {
      this.price = v;
      if (this.priceInput && priceValue(this.priceInput.value) !== v) this.priceInput.value = v.toFixed(2);
      if (!this.tbody) return;
      this.cols.forEach((c, i) => {
        if (c.derived) this.headers[i].querySelector(".lb-sort").textContent = this.colLabel(c);
      });
      this.drawRows();
    }

    toggle(box, open) {
      for (const w of Object.values(this.widgets)) {
        const show = open && w.box === box;
        if (show) this.options(w);
        w.box.querySelector(".lb-options").hidden = !show;
        w.box.querySelector(".lb-filter-button").setAttribute("aria-expanded", String(show));
      }
    }

    choose(dim, values) {
      const next = clone(this.state);
      if (values.length) next[dim.key] = values;
      else delete next[dim.key];
      this.setState(next, true);
    }

    setState(state, push) {
      this.state = state;
      if (this.ownsUrl && push) {
        const query = withOtherParams(queryFromState(this.keys, state, this.defaults), this.keys);
        const url = location.pathname + query + location.hash;
        if (url !== location.pathname + location.search + location.hash) history.pushState(null, "", url);
        syncLanguageLinks();
      }
      return this.apply(true);
    }

    // One pass over the rows: the rows passing every filter, and the count per option of each dimension
    // under the other dimensions' filters (a row failing no filter counts for every dimension, a row
    // failing exactly one counts for that one only). Typed arrays of option indexes keep it fast.
    filterAndCount() {
      const active = [];
      for (const d of this.dims) {
        const chosen = this.state[d.key] || [];
        if (!chosen.length) continue;
        const ok = new Uint8Array(this.values[d.key].length);
        const pos = this.index[d.key];
        for (const v of chosen) if (pos.has(String(v))) ok[pos.get(String(v))] = 1;
        active.push([d.key, ok, this.codes[d.key]]);
      }
      // latency limits: a run outside one, or without its figure, is out for every count too
      const limits = [];
      for (const l of this.limits) {
        const v = limitValue((this.state[l.key] || [])[0]);
        if (v !== null) limits.push([this.figures[l.key], v, l.bound === "max"]);
      }
      const counts = {};
      for (const d of this.dims) counts[d.key] = new Int32Array(this.values[d.key].length);
      const keys = this.dims.map((d) => d.key);
      const rows = [];
      let missing = 0; // runs the dimensions keep but a limit hides for want of its figure
      for (let i = 0; i < this.all.length; i++) {
        let failed = null, fails = 0;
        for (const [key, ok, codes] of active) {
          if (codes[i] < 0 || !ok[codes[i]]) {
            failed = key;
            if (++fails > 1) break;
          }
        }
        let out = 0; // 0: within every limit, 1: outside one, 2: lacks a figure
        for (const [figures, v, max] of limits) {
          const x = figures[i];
          if (x !== x) {
            out = 2;
            break;
          }
          if (max ? x > v : x < v) out = 1;
        }
        if (out) {
          if (out === 2 && fails === 0) missing++;
          continue;
        }
        if (fails === 0) {
          rows.push(this.all[i]);
          for (const key of keys) if (this.codes[key][i] >= 0) counts[key][this.codes[key][i]]++;
        } else if (fails === 1 && this.codes[failed][i] >= 0) {
          counts[failed][this.codes[failed][i]]++;
        }
      }
      return { rows, counts, missing, limited: limits.length > 0 };
    }

    syncWidgets(counts) {
      this.counts = counts;
      for (const d of this.dims) {
        const w = this.widgets[d.key];
        if (!w) continue;
        const list = this.state[d.key] || [];
        w.shown.textContent = list.length === 0 ? UI.allValue : list.length === 1 ? list[0] : UI.selected(list.length);
        w.box.classList.toggle("lb-active", list.length > 0);
        this.syncOptions(w);
      }
      for (const [key, input] of Object.entries(this.limitInputs || {})) {
        const v = (this.state[key] || [])[0];
        if (limitValue(input.value) !== limitValue(v)) input.value = v === undefined ? "" : v;
        input.parentElement.classList.toggle("lb-active", v !== undefined);
      }
    }

    // A built option list: which values are chosen, and each value's count under the other filters.
    syncOptions(w) {
      if (!w.inputs || !this.counts) return;
      const key = w.dim.key;
      const chosen = new Set(this.state[key] || []);
      const index = this.index[key];
      for (const input of w.inputs) {
        input.checked = chosen.has(input.value);
        const n = this.counts[key][index.get(input.value)] || 0;
        input.parentElement.querySelector(".lb-n").textContent = " " + COUNT.format(n);
        input.parentElement.classList.toggle("lb-zero", n === 0);
      }
    }

    // The filter bar's values and counts, the "N of M runs" line and the table for the current state.
    refresh() {
      const { rows, counts, missing, limited } = this.filterAndCount();
      this.rows = rows;
      this.syncWidgets(counts);
      const note = this.root.querySelector(".lb-limit-note");
      if (note) {
        note.hidden = !limited;
        note.textContent = limited ? UI.limitHidden(COUNT.format(missing)) : "";
      }
      const count = this.root.querySelector(".lb-count");
      if (count) {
        count.textContent = UI.count(COUNT.format(this.rows.length), COUNT.format(this.all.length));
      }
      if (this.table) this.renderTable();
    }

    // A filter change: the bar, count and table, then every chart drawn so far (a chart not drawn yet
    // takes this.rows when it is).
    async apply(measure) {
      const t0 = performance.now();
      this.refresh();
      await Promise.all(this.charts.filter((c) => c.view).map((c) => setRows(c, this.rows)));
      const ms = performance.now() - t0;
      if (measure) api.lastFilterMs = ms;
      this.rendered(ms);
    }

    rendered(ms) {
      this.root.dataset.lbRendered = String((Number(this.root.dataset.lbRendered) || 0) + 1);
      this.root.dispatchEvent(new CustomEvent("llmbench:rendered", { bubbles: true, detail: { ms } }));
    }

    // A cell's value: the run's column, or one derived from it (the cost at the reader's price).
    value(r, c) {
      if (c.derived === "cost") {
        return r.output_tps > 0 && r.n_gpus >= 1 ? costPerMillion(this.price ?? 0, r.n_gpus, r.output_tps) : null;
      }
      return r[c.key];
    }

    colLabel(c) {
      return c.derived === "cost" ? fill(c.label, { price: USD.format(this.price ?? 0) }) : c.label;
    }

    cellText(r, c) {
      const v = this.value(r, c);
      if (c.derived === "cost" && v !== null) return COST.format(v);
      if (c.note && r[c.note] && (v === null || v === undefined)) return UI.boundUnknown;
      return cell(v, c.numeric);
    }

    sortedRows() {
      if (!this.sort) return this.rows;
      const { col, dir, numeric } = this.sort;
      const val = (r) => {
        const v = this.value(r, col);
        return numeric ? (v === null || v === undefined ? -Infinity : Number(v)) : String(v ?? "");
      };
      // keys computed once per row (not per comparison): sorting 4,345 rows takes a few milliseconds
      const keyed = this.rows.map((r) => [val(r), r]);
      keyed.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0) * dir);
      return keyed.map((p) => p[1]);
    }

    // The table shows the columns whose values differ between the scope's runs (on a GPU's page the GPU
    // column says nothing); the CSV keeps every column. Columns marked "always" (the throughput figures
    // and the run card) stay.
    tableColumns() {
      if (this.all.length < 2) return this.tableCols;
      const varies = (c) => {
        const first = this.value(this.all[0], c) ?? null;
        return this.all.some((r) => (this.value(r, c) ?? null) !== first);
      };
      return this.tableCols.filter((c) => c.always || varies(c));
    }

    // A virtual table: every row of the selection is reachable by scrolling the table's box, but only the
    // rows in view (and a margin) are in the DOM, so showing or sorting 4,345 rows costs what 60 do.
    initTable() {
      this.cols = this.tableColumns();
      this.wrap = this.table.parentElement;
      this.rowHeight = 0;
      this.thead = el("thead");
      const tr = el("tr", { "aria-rowindex": "1" });
      this.headers = this.cols.map((c) => {
        const th = el("th", { scope: "col", "aria-sort": "none" });
        if (c.help) th.title = c.help;
        const b = el("button", { type: "button", class: "lb-sort", "data-key": c.key }, this.colLabel(c));
        b.addEventListener("click", () => {
          const t0 = performance.now();
          const dir = this.sort && this.sort.key === c.key ? -this.sort.dir : c.numeric ? -1 : 1;
          this.sort = { key: c.key, col: c, dir, numeric: c.numeric };
          this.renderTable();
          api.lastTableMs = performance.now() - t0;
        });
        th.append(b);
        tr.append(th);
        return th;
      });
      this.thead.append(tr);
      this.tbody = el("tbody");
      this.table.replaceChildren(this.thead, this.tbody);
      // The box's scroll offset and size are read here, where the layout is fresh, and kept: reading
      // them while drawing (after the rows changed) would force a layout of the whole page each time.
      this.top = 0;
      let queued = false;
      this.wrap.addEventListener("scroll", () => {
        this.top = this.wrap.scrollTop;
        this.boxHeight = this.wrap.clientHeight;
        if (!this.rowHeight) this.measureRow();
        if (queued) return;
        queued = true;
        requestAnimationFrame(() => {
          queued = false;
          this.drawRows();
        });
      });
    }

    // A row's height: the CSS's (td height 1.5rem, no wrapping) until a drawn row is measured.
    measureRow() {
      const tr = this.tbody.querySelector("tr:not(.lb-spacer)");
      const h = tr ? tr.getBoundingClientRect().height : 0;
      if (h > 0) this.rowHeight = h;
    }

    renderTable() {
      if (!this.tbody) this.initTable();
      this.cols.forEach((c, i) => {
        const sorted = this.sort && this.sort.key === c.key;
        this.headers[i].setAttribute("aria-sort", sorted ? (this.sort.dir > 0 ? "ascending" : "descending") : "none");
      });
      this.sorted = this.sortedRows();
      this.table.setAttribute("aria-rowcount", String(this.sorted.length + 1));
      if (this.top) this.wrap.scrollTop = this.top = 0; // (setting it forces a layout: only when scrolled)
      this.drawRows();
      const note = this.root.querySelector(".lb-table-note");
      const n = this.sorted.length;
      note.textContent = !n
        ? UI.noMatch
        : n > VISIBLE_ROWS
          ? UI.scrollRows(COUNT.format(n))
          : "";
    }

    // The rows in the table's box (plus a margin), between two spacer rows of the height of the others.
    // Nothing here reads the layout: the offset and box height come from the last scroll event, the
    // row height from the CSS until a row is measured (measureRow), the box's height from its CSS
    // (min(32rem, 70vh)) until then.
    drawRows() {
      const rows = this.sorted || [];
      const rem = remPx();
      const h = this.rowHeight || 1.5 * rem;
      const box = this.boxHeight || Math.min(32 * rem, 0.7 * window.innerHeight);
      const top = Math.floor(this.top / h); // the first row in the box; ten more drawn above and below
      const first = Math.max(0, top - 10);
      const last = Math.min(rows.length, top + Math.ceil(box / h) + 10);
      const frag = document.createDocumentFragment();
      const spacer = (px) => {
        const tr = el("tr", { class: "lb-spacer", "aria-hidden": "true" });
        const td = el("td", { colspan: String(this.cols.length) });
        td.style.height = px + "px";
        tr.append(td);
        return tr;
      };
      if (first > 0) frag.append(spacer(first * h));
      for (let i = first; i < last; i++) frag.append(this.rowElement(rows[i], i));
      if (last < rows.length) frag.append(spacer((rows.length - last) * h));
      this.tbody.replaceChildren(frag);
    }

    rowElement(r, i) {
      const row = el("tr", { "aria-rowindex": String(i + 2) });
      for (const c of this.cols) {
        const td = el("td", c.numeric ? { class: "lb-num" } : {});
        if (c.card && r[c.key]) {
          td.append(el("a", { href: this.cardHref(r[c.key]), class: "lb-card-link" }, String(r[c.key])));
        } else {
          td.textContent = this.cellText(r, c);
        }
        // A flagged figure (e.g. above its speed-of-light bound): marked by CSS, the reason as its title.
        if (c.flag && r[c.flag]) {
          td.classList.add("lb-flagged");
          td.title = r[c.flag];
        } else if (c.note && r[c.note]) {
          // the bound's note: "unknown" where there is no bound, else the figure marked by CSS (" *", so the
          // cell's text stays the number the CSV has); why as its title
          const v = this.value(r, c);
          td.classList.add("lb-noted", ...(v === null || v === undefined ? ["lb-unknown"] : []));
          td.title = UI.boundNote(r[c.note]);
        }
        row.append(td);
      }
      return row;
    }

    cardHref(id) {
      return (this.root.dataset.lbCard || "runs.html") + "#" + encodeURIComponent(id);
    }

    // The whole selection as the table shows it (sorted, formatted): what a reader reaches by scrolling.
    tableText() {
      return {
        head: this.cols.map((c) => this.colLabel(c)),
        rows: (this.sorted || []).map((r) => this.cols.map((c) => (c.card ? String(r[c.key] ?? "") : this.cellText(r, c)))),
      };
    }

    download() {
      const cols = this.tableCols;
      const quote = (v) => {
        let s = v === null || v === undefined ? "" : String(v);
        if (/^[=+\-@\t\r]/.test(s) && isNaN(Number(s))) s = "'" + s; // no spreadsheet formulas from data
        return /[",\n\r]/.test(s) ? '"' + s.replace(/"/g, '""') + '"' : s;
      };
      const lines = [cols.map((c) => quote(this.colLabel(c))).join(",")];
      for (const r of this.sortedRows()) lines.push(cols.map((c) => quote(this.value(r, c))).join(","));
      const blob = new Blob([lines.join("\r\n") + "\r\n"], { type: "text/csv;charset=utf-8" });
      const a = el("a", { href: URL.createObjectURL(blob), download: "llmbench-runs.csv" });
      document.body.append(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(a.href), 10000);
    }
  }

  // One formatter for every cell (NUMBER) and every count (COUNT): Number.toLocaleString with options builds
  // a new one per call, which made rendering the table's ~1,000 numeric cells a large part of a filter change.
  const NUMBER = new Intl.NumberFormat(LOCALE, { maximumFractionDigits: 1 });
  const COUNT = new Intl.NumberFormat(LOCALE);
  // $ per million output tokens: 3-4 significant digits (0.5556, 2.49, 40.18; most are below one dollar, so
  // the table's one decimal would say 0.6 or 0); the header names the currency and the price ($2.00).
  const COST = new Intl.NumberFormat(LOCALE, { minimumSignificantDigits: 3, maximumSignificantDigits: 4 });
  const USD = new Intl.NumberFormat(LOCALE, { style: "currency", currency: "USD" });

  // site_gen.latency_views.cost_per_million_tokens: price × GPUs / (output tokens/s × 3600 s/h) × 10^6
  function costPerMillion(price, gpus, outputTps) {
    return ((price * gpus) / (outputTps * 3600)) * 1e6;
  }

  // The root font size in px (Material: 20 px on phones, more on wide screens): a style read, no layout.
  let rootPx = 0;
  function remPx() {
    if (!rootPx) rootPx = parseFloat(getComputedStyle(document.documentElement).fontSize) || 16;
    return rootPx;
  }
  window.addEventListener("resize", () => {
    rootPx = 0;
    for (const s of scopes) s.boxHeight = 0; // 70vh: from the CSS again at the next drawing
  }, { passive: true });

  function cell(v, numeric) {
    if (v === null || v === undefined) return "–";
    if (!numeric) return String(v);
    return NUMBER.format(Number(v));
  }

  /* ---- charts --------------------------------------------------------------------------------- */

  const FONT = "system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif";

  // Material's palette as Vega config (the specs are Vega: Vega-Lite's view and font settings are the
  // styles its compiler gives the plot's frame, guides and text marks).
  function themeConfig() {
    const dark = document.body.getAttribute("data-md-color-scheme") === "slate";
    const fg = dark ? "#d5d8e2" : "#202124";
    const muted = dark ? "#aeb3c2" : "#5f6368"; // a note in the plot: 7.7:1 on slate, 6.0:1 on white
    const line = dark ? "#4a4f5c" : "#dadce0";
    const font = FONT;
    const axis = { labelColor: fg, titleColor: fg, gridColor: line, domainColor: line, tickColor: line };
    return {
      background: "transparent",
      axis,
      legend: { labelColor: fg, titleColor: fg },
      title: { color: fg },
      style: {
        cell: { stroke: line },
        "guide-label": { font },
        "guide-title": { font },
        "group-title": { font, fill: fg },
        "group-subtitle": { font },
        // text marks without a colour of their own (site_gen.vega_compile._theme_text)
        text: { font, fill: fg },
        "lb-note": { fill: muted, fontStyle: "italic" },
      },
    };
  }

  // The spec's signals (Vega-Lite params compiled to Vega signals).
  function signals(spec) {
    return spec.signals || [];
  }

  // Every chart placeholder of the page gets its record (and its closed data table) at once, in page
  // order; it is drawn later (lazy, draw). source() gives its rows when it is drawn: a scope's rows as the
  // filters are then, a static chart's fixed rows, or null (compare mode sets them itself); no source
  // yet: the rows are still loading.
  function register(node) {
    const chart = { el: node, spec: json(node, "data-lb-spec", {}), view: null, rows: null, source: null, drawn: null };
    node.__lbChart = chart;
    // The HTML's "Loading chart… (needs JavaScript)": the script runs; the box stays empty until drawn.
    const status = node.querySelector(".lb-status");
    if (status) status.hidden = true;
    charts.push(chart);
    dataTable(chart);
    return chart;
  }

  // Draw the chart (once; one chart per task, in the order asked; now: at once, in this task).
  // Resolves when it is drawn.
  function draw(chart, now) {
    if (!chart.drawn && chart.source) {
      if (observer) observer.unobserve(chart.el);
      const paint = async () => {
        if (!window.vegaEmbed) await loadScripts(VEGA);
        if (!charts.includes(chart)) return chart; // the page was left (instant navigation)
        await render(chart);
        const rows = chart.source();
        if (rows) await setRows(chart, rows);
        return chart;
      };
      const done = now ? paint() : drawing.then(yieldToMain).then(paint);
      chart.drawn = done.catch((e) => {
        showError(chart.el, e);
        return chart;
      });
      if (!now) drawing = chart.drawn; // a failed chart does not stop the queue
    }
    return chart.drawn;
  }

  async function drawAll() {
    await api.ready;
    await Promise.all(charts.filter((c) => c.source).map((c) => draw(c)));
  }

  // With its rows' source set: draw the chart now when it shows on the first screen, else when the reader
  // scrolls near it (or resizes the window). Resolves when the first drawing is done (at once for a chart
  // left for later). Whether it shows is asked of an IntersectionObserver, whose answer comes after the
  // browser's own layout: reading the chart's position here would force a layout of the page in the
  // middle of building it (the largest part of a phone's page load after Material's bundle).
  function lazy(chart, source) {
    chart.source = source;
    if (!window.IntersectionObserver) return draw(chart);
    return new Promise((resolve) => {
      chart.looked = resolve;
      if (!firstLook) firstLook = new IntersectionObserver(onFirstLook, { threshold: [0, FIRST_SCREEN_SHARE] });
      firstLook.observe(chart.el);
    });
  }

  // A chart shows when FIRST_SCREEN_SHARE of its box, or of the screen's height, is in view: a box whose
  // top edge peeks in at the bottom shows nothing yet, and is drawn at the reader's first scroll.
  function shows(rect) {
    const seen = Math.min(rect.bottom, window.innerHeight) - Math.max(rect.top, 0);
    return seen / Math.min(rect.height || 1, window.innerHeight) >= FIRST_SCREEN_SHARE;
  }

  function onFirstLook(entries) {
    for (const e of entries) {
      const chart = e.target.__lbChart;
      firstLook.unobserve(e.target);
      if (!chart || !chart.looked) continue;
      const resolve = chart.looked;
      chart.looked = null;
      if (e.isIntersecting && shows(e.boundingClientRect)) {
        resolve(draw(chart));
        continue;
      }
      later.push(chart);
      if (observer) observer.observe(chart.el);
      else if (moved) watch();
      resolve(chart);
    }
  }

  // The observer starts at the reader's first scroll or resize: before it, a chart half a screen below
  // the first would be drawn during the page load (a phone's busiest time) for a reader who may never
  // scroll; from then on, each chart is drawn as it comes within LAZY_MARGIN of the screen.
  let later = []; // charts of the page left for later
  let firstLook = null; // the IntersectionObserver that tells which charts show on the first screen
  let moved = false; // the reader has scrolled or resized since the page was shown
  function watch() {
    moved = true;
    if (observer || !later.length || !window.IntersectionObserver) return;
    observer = new IntersectionObserver(
      (entries) => entries.forEach((e) => e.isIntersecting && e.target.__lbChart && draw(e.target.__lbChart)),
      { rootMargin: `${LAZY_MARGIN * 100}% 0px` }
    );
    for (const c of later) if (!c.drawn) observer.observe(c.el);
  }
  window.addEventListener("scroll", watch, { passive: true });
  window.addEventListener("resize", watch, { passive: true });

  /* ---- a chart's data as a table (for screen readers and anyone who wants the figures) ---------- */

  // The fields a reader sees in the chart's tooltip, else those of its position, colour and text channels:
  // taken from the Vega-Lite encodings at build time (site_gen.vega_compile.table_fields).
  function tableFields(spec) {
    return ((spec.usermeta || {}).llmbench || {}).fields || [];
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

  // A closed "Data table" after the chart, filled when opened and refilled on each redraw while open.
  function dataTable(chart) {
    const fields = tableFields(chart.spec);
    if (!fields.length) return;
    const details = el("details", { class: "lb-data" });
    details.append(el("summary", {}, UI.dataTable));
    details.addEventListener("toggle", () => details.open && (chart.view ? fillDataTable(chart) : draw(chart)));
    chart.el.after(details);
    chart.details = details;
    chart.fields = fields;
  }

  function fillDataTable(chart) {
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
        tr.append(el("td", num ? { class: "lb-num" } : {}, v === null || v === undefined ? "–" : num ? (f.format ? formats[i](v) : NUMBER.format(v)) : String(v)));
      });
      tbody.append(tr);
    }
    table.append(thead, tbody);
    const parts = [chart.details.querySelector("summary"), table];
    if (data.length > DATA_TABLE_MAX) parts.push(el("p", { class: "lb-chart-note" }, UI.dataTableCut(DATA_TABLE_MAX, COUNT.format(data.length))));
    chart.details.replaceChildren(...parts);
  }

  async function render(chart) {
    if (chart.view) chart.view.finalize();
    chart.el.textContent = "";
    const dark = document.body.getAttribute("data-md-color-scheme") === "slate";
    const target = el("div", { class: "lb-vega" });
    const message = el("p", { class: "lb-status", hidden: "" });
    chart.el.append(target, message);
    chart.message = message;
    chart.target = target;
    chart.note = el("p", { class: "lb-chart-note", hidden: "" });
    chart.el.append(chart.note);
    const result = await window.vegaEmbed(target, chart.spec, {
      // PNG/SVG download of the chart as drawn (vega-embed's menu); no links to the online editor
      actions: { export: true, source: false, compiled: false, editor: false },
      logLevel: window.vega ? window.vega.Error : 0, // an empty selection is a message of ours, not a warning
      renderer: "canvas",
      hover: false, // no hover encodings in the specs (vega-embed turns hover on for Vega specs)
      config: themeConfig(),
      tooltip: { theme: dark ? "dark" : "light" },
    });
    chart.view = result.view;
    // Names for assistive technology: vega-embed's menu button is an icon only, the canvas a bare bitmap.
    const summary = target.querySelector("summary");
    if (summary) summary.setAttribute("aria-label", UI.chartMenu);
    const canvas = target.querySelector("canvas");
    if (canvas) {
      canvas.setAttribute("role", "img");
      canvas.setAttribute("aria-label", UI.chartImage(chart.el.getAttribute("aria-label") || ""));
    }
    lazyTooltip(chart);
    urlSignal(chart);
    if (signals(chart.spec).some((p) => p.name === "lb_title")) {
      // a narrower or wider chart (window resized, phone turned) takes its title on other lines
      chart.view.addResizeListener(() => chart.titleParts && setTitle(chart) && chart.view.runAsync());
    }
    // A control of the chart's own (e.g. "Split by source") redraws it: the data table follows.
    for (const param of signals(chart.spec)) {
      if (param.bind) chart.view.addSignalListener(param.name, () => chart.view.runAfter(() => fillDataTable(chart)));
    }
    // A mark of one run (or a bar naming its best run) opens that run's card.
    chart.view.addEventListener("click", (ev, item) => {
      const id = runOf(item && item.datum);
      if (id) location.href = (chart.el.dataset.lbCard || "runs.html") + "#" + encodeURIComponent(id);
    });
    chart.shown = null;
    chart.started = false;
    // A chart of a filter scope is embedded before its rows are chosen (rows null): it stays hidden in
    // its reserved box until they arrive, instead of showing "no runs" for a moment.
    if (chart.rows) await setRows(chart, chart.rows);
    else target.hidden = true;
  }

  // A chart input kept in the page URL (usermeta.llmbench.urlSignal {signal, key, default}: the Pareto
  // view's $ per GPU-hour as ?price=2.5): read on load and on back/forward, written (replaced, not a new
  // history entry per keystroke) when the reader changes it; the default leaves the URL clean.
  function urlSignal(chart) {
    const u = ((chart.spec.usermeta || {}).llmbench || {}).urlSignal;
    if (!u) return;
    chart.urlSignal = () => {
      const v = priceValue(new URLSearchParams(location.search).get(u.key));
      return v === null ? u.default : v;
    };
    chart.view.signal(u.signal, chart.urlSignal());
    chart.view.addSignalListener(u.signal, (_, value) => {
      const v = priceValue(value);
      if (v === null) return;
      const params = new URLSearchParams(location.search);
      if (v === u.default) params.delete(u.key);
      else params.set(u.key, String(v));
      const q = params.toString();
      history.replaceState(history.state, "", location.pathname + (q ? "?" + q : "") + location.hash);
    });
  }

  // A chart of one mark per run may name its tooltip in usermeta.llmbench.tooltip ([{field, title, format}])
  // with the mark's tooltip set to the run itself: the fields are then formatted on hover, for that run
  // only, instead of for every point on every filter change. Other values pass through unchanged;
  // vega-tooltip escapes whatever it shows.
  function lazyTooltip(chart) {
    const fields = ((chart.spec.usermeta || {}).llmbench || {}).tooltip;
    const show = chart.view.tooltip();
    if (!fields || !show) return;
    const formats = fields.map((f) => tooltipFormat(f.format));
    chart.view.tooltip((handler, event, item, value) => {
      if (!item || !item.datum || value !== item.datum) return show(handler, event, item, value);
      const out = {};
      fields.forEach((f, i) => {
        const v = value[f.field];
        if (v !== null && v !== undefined) out[f.title || f.field] = formats[i](v);
      });
      if (value.run_id) out[UI.openCard] = value.run_id;
      return show(handler, event, item, out);
    });
  }

  // The run behind a mark: the run itself (one mark per run), or the best run of an aggregate (a field
  // best_run from Vega-Lite's argmax, see site_gen.charts).
  function runOf(datum) {
    if (!datum) return null;
    if (datum.run_id) return datum.run_id;
    return datum.best_run && datum.best_run.run_id ? datum.best_run.run_id : null;
  }

  function tooltipFormat(spec) {
    const m = /^(,?)\.(\d+)f$/.exec(spec || "");
    if (!m) return (v) => String(v);
    const digits = Number(m[2]);
    const f = new Intl.NumberFormat(LOCALE, {
      useGrouping: !!m[1], minimumFractionDigits: digits, maximumFractionDigits: digits,
    });
    return (v) => f.format(Number(v));
  }

  // A chart may cap the rows it draws (usermeta.llmbench.maxRows, e.g. one point per run): above the cap
  // it draws an even sample of the (sorted) rows and says so; counts, table and CSV keep every row.
  function capped(chart, rows) {
    const max = ((chart.spec.usermeta || {}).llmbench || {}).maxRows;
    if (!max || rows.length <= max) return { rows, note: "" };
    const step = rows.length / max;
    const sample = [];
    for (let i = 0; i < max; i++) sample.push(rows[Math.floor(i * step)]);
    const n = COUNT.format(rows.length);
    return { rows: sample, note: UI.sample(COUNT.format(max), n) };
  }

  async function setRows(chart, all) {
    const { rows, note } = capped(chart, all);
    chart.note.textContent = note;
    chart.note.hidden = !note;
    // Send only the difference to Vega (incremental dataflow): a narrowing filter removes, widening inserts.
    const before = chart.shown || new Set();
    const after = new Set(rows);
    const removed = [], added = [];
    for (const r of before) if (!after.has(r)) removed.push(r);
    for (const r of rows) if (!before.has(r)) added.push(r);
    chart.rows = all;
    chart.shown = after;
    if (removed.length || added.length || !chart.started) {
      chart.view.change("runs", window.vega.changeset().remove(removed).insert(added));
      chart.started = true;
    }
    const params = signals(chart.spec);
    if (params.some((p) => p.name === "gpus_shown")) {
      chart.view.signal("gpus_shown", distinct(rows, "gpu", "gpu_order")); // legend: GPUs drawn only
    }
    if (params.some((p) => p.name === "lb_title")) {
      chart.titleParts = chartTitle(all);
      setTitle(chart);
    }
    await chart.view.runAsync();
    const marks = countMarks(chart.view.scenegraph().root);
    const empty = marks === 0;
    chart.message.hidden = !empty;
    chart.message.textContent = empty
      ? all.length
        ? UI.noMetric
        : UI.noRuns
      : "";
    chart.el.classList.toggle("lb-no-marks", empty);
    chart.target.hidden = empty;
    fillDataTable(chart);
  }

  // "Llama 3.1 8B · FP16 · ISL/OSL 128/128 · source: NVIDIA": each of these columns that has one value
  // in the rows (a column with several values is what the chart compares, shown on its axes or legend).
  const TITLE_COLUMNS = ["model_name", "precision", "workload", "gpu", "publisher"];
  function chartTitle(rows) {
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
    titleMeasure.font = `bold 12px ${FONT}`; // the title's size in site_gen.charts.to_spec
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

  function setTitle(chart) {
    const lines = titleLines(chart.titleParts || [], chart.view.width());
    if (JSON.stringify(lines) === JSON.stringify(chart.view.signal("lb_title"))) return false;
    chart.view.signal("lb_title", lines);
    return true;
  }

  function distinct(rows, column, orderColumn) {
    const order = new Map();
    for (const r of rows) if (r[column] !== null && !order.has(r[column])) order.set(r[column], r[orderColumn]);
    return [...order.keys()].sort((a, b) => order.get(a) - order.get(b) || byText(String(a), String(b)));
  }

  // Number of data marks (points, bars, line vertices) drawn, excluding axes and legends.
  function countMarks(node) {
    if (node.marktype && node.marktype !== "group") return node.role === "mark" ? node.items.length : 0;
    let n = 0;
    for (const item of node.items || []) n += countMarks(item);
    return n;
  }

  /* ---- compare mode (compare.html?by=gpu&a=...&b=...) ----------------------------------------- */

  // A against B along one dimension over the configurations both have. The rule (which columns must be
  // equal, which metric, which source kinds stay out) comes from site_gen.compare in data-lb-config.
  class Compare {
    constructor(root) {
      this.root = root;
      this.cfg = json(root, "data-lb-config", {});
      this.ui = this.cfg.ui;
      this.bar = root.querySelector(".lb-compare-bar");
      this.table = root.querySelector(".lb-compare-table");
    }

    async init(rows) {
      const excluded = new Set(this.cfg.excluded_kinds);
      const metric = this.cfg.metric;
      this.all = rows
        .filter(fixedMatcher(json(this.root, "data-lb-fixed", {})))
        .filter((r) => r[metric] !== null && r[metric] !== undefined && !excluded.has(r.source_kind))
        // a run above its speed-of-light bound (flagged elsewhere) never becomes a side's best
        .filter((r) => !(r.pct_of_bound > this.cfg.max_pct_of_bound));
      // filters besides the compared dimension: model, workload and the other "by" dimensions
      this.filters = [
        { key: "model", label: this.ui.model, column: "model_name" },
        { key: "workload", label: this.ui.workload, column: "workload" },
        ...this.cfg.by,
      ];
      this.state = this.readUrl(location.search);
      this.root.querySelectorAll(".lb-preset").forEach((a) =>
        a.addEventListener("click", (ev) => {
          ev.preventDefault();
          ev.stopPropagation();
          this.state = this.readUrl(new URL(a.href).search);
          this.update(true);
        })
      );
      this.chart = await draw(Object.assign(this.root.querySelector(".lb-chart").__lbChart, { source: () => null }));
      await this.update(false);
    }

    readUrl(search) {
      const q = new URLSearchParams(search);
      const by = this.cfg.by.find((d) => d.key === q.get("by")) || this.cfg.by[0];
      const free = (this.cfg.free || []).includes(q.get("free")) ? q.get("free") : "";
      const state = { by: by.key, a: q.get("a") || "", b: q.get("b") || "", where: {}, free };
      for (const f of this.filters) if (f.key !== by.key && q.get(f.key)) state.where[f.key] = q.get(f.key);
      return state;
    }

    writeUrl() {
      const q = new URLSearchParams({ by: this.state.by, a: this.state.a, b: this.state.b });
      for (const [k, v] of Object.entries(this.state.where)) q.set(k, v);
      if (this.state.free) q.set("free", this.state.free);
      history.replaceState(null, "", location.pathname + "?" + q + location.hash);
      syncLanguageLinks();
    }

    byDim() {
      return this.cfg.by.find((d) => d.key === this.state.by);
    }

    // Rows passing the filters other than the compared dimension.
    filtered() {
      const tests = Object.entries(this.state.where).map(([k, v]) => [this.filters.find((f) => f.key === k).column, v]);
      return this.all.filter((r) => tests.every(([c, v]) => String(r[c]) === v));
    }

    select(label, value, options, onChange, anyLabel) {
      const box = el("label", { class: "lb-compare-field" });
      box.append(el("span", {}, label + " "));
      const sel = el("select");
      if (anyLabel) sel.append(el("option", { value: "" }, anyLabel));
      for (const o of options) {
        const opt = el("option", { value: o }, o);
        if (o === value) opt.selected = true;
        sel.append(opt);
      }
      sel.addEventListener("change", () => onChange(sel.value));
      box.append(sel);
      return box;
    }

    values(rows, column) {
      return sortedValues(rows, { column, sort_column: column === "gpu" ? "gpu_order" : column === "engine_version" ? "version_key" : column === "precision" ? "precision_order" : column === "workload" ? "workload_order" : null });
    }

    buildBar(rows) {
      const by = this.byDim();
      const options = this.values(rows, by.column);
      if (!options.includes(this.state.a)) this.state.a = options[0] || "";
      if (!options.includes(this.state.b)) this.state.b = options.find((o) => o !== this.state.a) || "";
      const set = (patch) => {
        Object.assign(this.state, patch);
        this.update(true);
      };
      this.bar.replaceChildren(
        this.select(this.ui.by, by.label, this.cfg.by.map((d) => d.label), (label) => {
          const d = this.cfg.by.find((x) => x.label === label);
          const where = { ...this.state.where };
          delete where[d.key];
          set({ by: d.key, a: "", b: "", where });
        }),
        this.select(this.ui.a, this.state.a, options, (v) => set({ a: v })),
        this.select(this.ui.b, this.state.b, options, (v) => set({ b: v })),
        ...this.filters
          .filter((f) => f.key !== by.key)
          .map((f) =>
            this.select(f.label, this.state.where[f.key] || "", this.values(this.all, f.column), (v) => {
              const where = { ...this.state.where };
              if (v) where[f.key] = v;
              else delete where[f.key];
              set({ where });
            }, this.ui.any)
          )
      );
      if (by.column !== "precision" && (this.cfg.free || []).includes("precision")) {
        const box = el("label", { class: "lb-compare-field" });
        const check = el("input", { type: "checkbox" });
        check.checked = this.state.free !== "precision";
        check.addEventListener("change", () => set({ free: check.checked ? "" : "precision" }));
        box.append(check, " " + this.ui.free);
        this.bar.append(box);
      }
    }

    // Configurations with runs on both sides: per side the best run (highest metric) of each.
    pairs(rows) {
      const by = this.byDim().column;
      const metric = this.cfg.metric;
      const keys = this.cfg.match.filter((c) => c !== by && c !== this.state.free);
      const best = new Map(); // configuration key -> {a, b}
      for (const r of rows) {
        const v = String(r[by]);
        const side = v === this.state.a ? "a" : v === this.state.b ? "b" : null;
        if (!side) continue;
        const k = keys.map((c) => String(r[c] ?? "")).join("\u0001");
        const entry = best.get(k) || {};
        if (!entry[side] || r[metric] > entry[side][metric]) entry[side] = r;
        best.set(k, entry);
      }
      const out = [];
      for (const e of best.values()) if (e.a && e.b) out.push(e);
      const order = (r) => [r.model_name, r.precision_order, r.workload_order, r.tp, r.pp, r.publisher, r.version_key];
      out.sort((x, y) => {
        const p = order(x.a), q = order(y.a);
        for (let i = 0; i < p.length; i++) if (p[i] !== q[i]) return p[i] < q[i] ? -1 : 1;
        return 0;
      });
      return out;
    }

    label(r) {
      const by = this.byDim().column;
      const parts = [];
      if (by !== "gpu") parts.push(r.gpu);
      const precision = this.state.free === "precision" ? `${r.precision} vs ${r.other.precision}` : r.precision;
      parts.push(r.model_name + (by !== "precision" ? " " + precision : ""), r.workload, "TP" + r.tp + (r.pp > 1 ? " PP" + r.pp : "") + (r.ep > 1 ? " EP" + r.ep : ""));
      parts.push(r.publisher + (by !== "engine_version" ? " " + r.engine_version : "") + (by !== "engine" && r.engine !== "tensorrt-llm" ? " " + r.engine : ""));
      return parts.join(" · ");
    }

    async update(push) {
      const rows = this.filtered();
      this.buildBar(rows);
      if (push) this.writeUrl();
      const pairs = this.pairs(rows);
      const metric = this.cfg.metric;
      const data = pairs.map((p, i) => ({
        label: this.label({ ...p.a, other: p.b }), order: i, a: p.a[metric], b: p.b[metric], ratio: p.a[metric] / p.b[metric],
        run_id: null, a_run: p.a.run_id, b_run: p.b.run_id,
      }));
      const n = data.length;
      this.root.querySelector(".lb-compare-summary").textContent = n
        ? `${this.state.a} vs ${this.state.b}: ` + this.ui.matched.replace("{n}", COUNT.format(n))
        : this.ui.none;
      const g = n ? Math.exp(data.reduce((s, d) => s + Math.log(d.ratio), 0) / n) : null;
      this.root.querySelector(".lb-compare-geomean").textContent = g
        ? this.ui.geomean.replace("{g}", g.toFixed(2) + "×")
        : "";
      this.renderTable(data);
      await setRows(this.chart, data);
      this.root.dataset.lbRendered = String((Number(this.root.dataset.lbRendered) || 0) + 1);
    }

    renderTable(data) {
      const card = (id) => (this.root.dataset.lbCard || "runs.html") + "#" + encodeURIComponent(id);
      const head = el("tr");
      for (const h of [this.ui.config, `A: ${this.state.a}`, `B: ${this.state.b}`, this.ui.ratio]) head.append(el("th", { scope: "col" }, h));
      const thead = el("thead");
      thead.append(head);
      const tbody = el("tbody");
      for (const d of data) {
        const tr = el("tr");
        tr.append(el("td", {}, d.label));
        for (const [v, id] of [[d.a, d.a_run], [d.b, d.b_run]]) {
          const td = el("td", { class: "lb-num" });
          td.append(el("a", { href: card(id) }, NUMBER.format(v)));
          tr.append(td);
        }
        tr.append(el("td", { class: "lb-num" }, d.ratio.toFixed(2)));
        tbody.append(tr);
      }
      this.table.replaceChildren(thead, tbody);
    }
  }

  /* ---- the run card (runs.html#<id>) --------------------------------------------------------- */

  // Only web links become links: a result file cannot smuggle a javascript: URL into an href.
  function webUrl(v) {
    try {
      const u = new URL(String(v));
      return u.protocol === "https:" || u.protocol === "http:" ? u.href : null;
    } catch (e) {
      return null;
    }
  }

  function cardValue(key, v) {
    if (key === "bound_note") return UI.boundNote(v);
    if (typeof v === "boolean") return v ? UI.yes : UI.no;
    if (typeof v === "number") return NUMBER.format(v);
    return String(v);
  }

  // The run id in a card's hash; a hash that is not valid percent-encoding ("#%") is taken as typed
  // (decodeURIComponent would throw and leave the card broken until a reload): no run has that id.
  function hashId(hash) {
    const raw = hash.slice(1);
    try {
      return decodeURIComponent(raw);
    } catch (e) {
      return raw;
    }
  }

  function showCard(node, rows) {
    const sections = json(node, "data-lb-sections", []);
    const repo = webUrl(node.dataset.lbRepo) ? node.dataset.lbRepo.replace(/\/$/, "") : "";
    const id = hashId(location.hash);
    node.textContent = "";
    const run = id ? rows.find((r) => r.run_id === id) : null;
    if (!run) {
      node.append(el("p", { class: "lb-status" }, id ? UI.noSuchRun(id) : UI.noRunChosen));
      node.append(el("a", { href: node.dataset.lbExplorer || "explorer.html", class: "md-button" }, UI.toExplorer));
      return;
    }
    const title = `${run.model_name} ${run.precision} on ${run.gpu}, TP ${run.tp}${run.pp > 1 ? ", PP " + run.pp : ""}, ISL/OSL ${run.workload}`;
    node.append(el("h2", {}, title));
    const idLine = el("p", { class: "lb-card-id" });
    idLine.append(UI.runId + " ", el("code", {}, run.run_id));
    node.append(idLine);
    const path = String(run.file || "").split("/").map(encodeURIComponent).join("/");
    const fileUrl = repo && run.file ? `${repo}/blob/${encodeURIComponent(node.dataset.lbBranch || "main")}/results/${path}` : null;
    for (const section of sections) {
      const dl = el("dl", { class: "lb-card-fields" });
      for (const [key, label] of section.fields) {
        const v = run[key];
        if (v === null || v === undefined || v === "") continue;
        const dd = el("dd");
        const link = key === "file" ? fileUrl : key === "source_url" || key === "site_url" ? webUrl(v) : null;
        if (key === "command" || key === "extra_options") {
          const pre = el("pre");
          pre.append(el("code", {}, String(v)));
          dd.append(pre);
        } else if (link) dd.append(el("a", { href: link, rel: "noopener" }, String(v)));
        else dd.textContent = cardValue(key, v);
        dl.append(el("dt", {}, label), dd);
      }
      if (!dl.children.length) continue;
      node.append(el("h3", {}, section.title), dl);
    }
    if (repo) {
      const body = UI.reportBody(run.run_id, location.href, run.file || "");
      const q = new URLSearchParams({ title: UI.reportTitle(run.run_id, title), body });
      const a = el("a", { href: `${repo}/issues/new?${q}`, class: "md-button lb-report", rel: "noopener" }, UI.report);
      node.append(a);
    }
    if (!node.__lbTitle) node.__lbTitle = document.title;
    document.title = `${title} · ${node.__lbTitle}`;
  }

  /* ---- page lifecycle ------------------------------------------------------------------------- */

  function showError(node, error) {
    node.textContent = "";
    node.append(el("p", { class: "lb-status lb-error" }, UI.chartError + error.message));
    console.error(error);
  }

  function teardown() {
    for (const c of charts) if (c.view) c.view.finalize();
    if (observer) observer.disconnect();
    if (firstLook) firstLook.disconnect();
    observer = null;
    firstLook = null;
    moved = false;
    later = [];
    charts = [];
    scopes = [];
  }

  async function boot() {
    teardown();
    remPx(); // read before the page script changes the page: then the style is fresh and the read cheap
    syncLanguageLinks();
    if (document.getElementById("llmbench-planner")) loadScripts(PLANNER).catch((e) => console.error(e));
    if (document.querySelector("[data-mlperf]")) loadScripts(MLPERF).catch((e) => console.error(e));
    const placeholders = document.querySelectorAll(".lb-scope, .lb-compare, .lb-runcard, .lb-chart");
    if (!placeholders.length) {
      document.body.dataset.lbReady = String(Date.now());
      return;
    }
    // The run card draws no chart; every other placeholder needs Vega.
    // Vega runs when the first chart is drawn (draw), which on a phone may be after a scroll: until then
    // it is only fetched, at low priority, so that it is at hand. A chart on the first screen needs it
    // now: fetched at once, beside the page's data.
    const first = document.querySelector(".lb-chart");
    if (first && shows(first.getBoundingClientRect())) loadScripts(VEGA).catch(() => {});
    else if (first) prefetch(VEGA);
    document.querySelectorAll(".lb-chart").forEach(register);
    const jobs = [];
    document.querySelectorAll(".lb-scope").forEach((root, i) => {
      const scope = new Scope(root, i);
      scopes.push(scope);
      jobs.push(
        loadRows(root.dataset.lbSrc, root.dataset.lbKey)
          .then((rows) => scope.init(rows))
          .catch((e) => showError(root, e))
      );
    });
    document.querySelectorAll(".lb-compare").forEach((root) => {
      const cmp = new Compare(root);
      jobs.push(
        loadRows(root.dataset.lbSrc, root.dataset.lbKey)
          .then((rows) => cmp.init(rows))
          .catch((e) => showError(root, e))
      );
    });
    document.querySelectorAll(".lb-runcard").forEach((node) => {
      jobs.push(
        loadRows(node.dataset.lbSrc, node.dataset.lbKey)
          .then((rows) => {
            showCard(node, rows);
            node.__lbRows = rows;
          })
          .catch((e) => showError(node, e))
      );
    });
    // Static charts: drawn (one per task) when their rows are loaded and they are on the first screen,
    // or later when the reader scrolls near them.
    document.querySelectorAll(".lb-chart").forEach((node) => {
      if (node.closest(".lb-scope, .lb-compare")) return;
      jobs.push(
        loadRows(node.dataset.lbSrc, node.dataset.lbKey)
          .then((all) => {
            const rows = all.filter(fixedMatcher(json(node, "data-lb-fixed", {})));
            return lazy(node.__lbChart, () => rows);
          })
          .catch((e) => showError(node, e))
      );
    });
    api.ready = Promise.all(jobs);
    await api.ready;
    document.body.dataset.lbReady = String(Date.now());
  }

  // Printing draws the charts not drawn yet: with Vega running, drawing inline data waits for no task, so
  // they are drawn before the browser lays the page out for paper. Before Vega has run (a phone that did
  // not scroll to a chart), Ctrl/Cmd+P first runs it and draws every chart, then prints.
  window.addEventListener("beforeprint", () => {
    if (window.vegaEmbed) for (const c of charts) if (c.source && !c.drawn) draw(c, true);
  });
  document.addEventListener("keydown", (ev) => {
    if (!(ev.ctrlKey || ev.metaKey) || ev.altKey || ev.key.toLowerCase() !== "p") return;
    if (!charts.some((c) => c.source && !c.view)) return;
    ev.preventDefault();
    drawAll().then(() => window.print());
  });

  // A click outside an open filter, or Escape, closes it.
  document.addEventListener("click", (ev) => {
    if (ev.target.closest && ev.target.closest(".lb-filter")) return;
    scopes.forEach((s) => s.widgets && s.toggle(null, false));
  });
  document.addEventListener("keydown", (ev) => {
    if (ev.key === "Escape") scopes.forEach((s) => s.widgets && s.toggle(null, false));
  });

  // Another run's permalink on the run card's page: redraw the card.
  window.addEventListener("hashchange", () => {
    syncLanguageLinks();
    const node = document.querySelector(".lb-runcard");
    if (node && node.__lbRows) showCard(node, node.__lbRows);
  });

  window.addEventListener("popstate", () => {
    for (const c of charts) {
      if (!c.urlSignal || !c.view) continue;
      const name = c.spec.usermeta.llmbench.urlSignal.signal;
      if (c.view.signal(name) !== c.urlSignal()) c.view.signal(name, c.urlSignal()).runAsync();
    }
    const scope = scopes.find((s) => s.ownsUrl);
    if (scope && scope.all) {
      if (scope.priceCfg) scope.setPrice(scope.urlPrice());
      scope.setState(stateFromQuery(scope.keys, location.search, scope.defaults), false);
    }
  });

  // The language switch (Material's header; the build links each language's home, en: index.html,
  // ko: ko/index.html): to this page's twin in the other language (every page has one, falling back to
  // English), with the page's state (query string, #run id). The language's folders come from the
  // <link rel=alternate hreflang> of <head>; the switch is a full page load, since <html lang>, the
  // catalogue and the search language belong to the page (instant navigation would keep them).
  function languageHome(lang) {
    const link = document.querySelector(`head link[rel=alternate][hreflang="${lang}"]`);
    return link ? new URL(".", new URL(link.getAttribute("href"), location.href)) : null;
  }
  function languageLink(a) {
    const here = languageHome(document.documentElement.lang);
    const there = languageHome(a.getAttribute("hreflang"));
    if (!here || !there || !location.href.startsWith(here.href)) return a.href;
    const url = new URL(location.pathname.slice(here.pathname.length) || "index.html", there);
    url.search = location.search;
    url.hash = location.hash;
    return url.href;
  }
  function syncLanguageLinks() {
    for (const a of document.querySelectorAll("a.md-select__link[hreflang]")) a.href = languageLink(a);
  }
  window.addEventListener(
    "click",
    (ev) => {
      const a = ev.target.closest && ev.target.closest("a.md-select__link[hreflang]");
      if (!a || ev.metaKey || ev.ctrlKey || ev.shiftKey || ev.button !== 0) return;
      ev.preventDefault();
      ev.stopImmediatePropagation(); // before Material's instant navigation sees it
      location.href = languageLink(a);
    },
    true,
  );
  window.addEventListener("popstate", syncLanguageLinks);
  api.languageLink = languageLink;

  // Re-theme the charts when the reader flips Material's light/dark toggle.
  let scheme = document.body.getAttribute("data-md-color-scheme");
  new MutationObserver(() => {
    const now = document.body.getAttribute("data-md-color-scheme");
    if (now === scheme) return;
    scheme = now;
    charts.forEach((c) => c.view && render(c));
  }).observe(document.body, {
    attributes: true,
    attributeFilter: ["data-md-color-scheme"],
  });

  // boot in a task of its own: document$ replays the page at once, inside this script's first run
  // (which loads ICU's number data for the formatters above), and one long task blocks a phone longer
  // than two shorter ones.
  if (window.document$ && location.protocol !== "file:") window.document$.subscribe(() => yieldToMain().then(boot));
  else if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", () => boot());
  else boot();
})();
