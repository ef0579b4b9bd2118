// views/filter-bar.js: a scope's filter bar: one button per dimension with its option list and counts,
// the reset button, the latency limits and the price box (drawn by the build, enabled here).
// In: the dimensions, their values, the state and counts (sync). Out: onChange(next state) for a choice,
// onPrice(v) for a new price. Side effects: the bar's and limit box's own elements and listeners.

import { el } from "../dom.js";
import { UI } from "../messages.js";
import { COUNT, LOCALE } from "../format.js";
import { choose, clone, limitValue, MAX_PRICE, priceValue } from "../state/filter.js";

const LIMIT_DELAY_MS = 600; // a latency filter applies this long after the last keystroke

/** opts: {bar, limitBox, dims, limits, priceCfg, values: {key: [text]}, state: () => state, defaults,
 * onChange(state), onPrice(v), deferred?: Set of keys, onDeferred?(key)}. A deferred dimension has no
 * values yet (the explorer's summary filters only its cells' dimensions): its button calls onDeferred.
 * destroy() removes every listener of the bar, the limits and the price box: a bar can be mounted again. */
// A value as the page's language names it (the catalogue's dimension_values, e.g. source kinds); the value
// itself (a GPU, a model) otherwise.
const shownValue = (d, v) => (d.values && Object.prototype.hasOwnProperty.call(d.values, v) ? d.values[v] : v);

export function mountFilterBar(opts) {
  const { bar, limitBox, dims, limits, values } = opts;
  const widgets = {};
  let last = null; // the counts of the last sync: {counts, index, unknown}
  let timers = [];
  const off = new AbortController(); // the listeners on the build's limit and price boxes, until destroy()
  const { signal } = off;

  // The bar's buttons; each filter's list of options is built when it is first opened (options), not at
  // load: the lists are hidden, and the explorer's hold ~350 elements a phone would otherwise style and
  // lay out while the page loads.
  // a bar mounted again (more values) keeps the list that was open open
  const open = bar.querySelector('.lb-filter-button[aria-expanded="true"]');
  const reopen = open && open.closest(".lb-filter").dataset.dim;
  bar.textContent = "";
  const later = opts.deferred || new Set();
  for (const d of dims) {
    const deferred = later.has(d.key);
    // nothing to choose (a dimension this bar has no values of is left out, unless deferred)
    if (!deferred && (!values[d.key] || (values[d.key].length < 2 && !(opts.state()[d.key] || []).length))) continue;
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
    summary.addEventListener("click", () => (deferred ? opts.onDeferred(d.key) : toggle(box, list.hidden)));
    bar.append(box);
    widgets[d.key] = { box, shown, list, dim: d, inputs: null };
  }
  const reset = el("button", { type: "button", class: "lb-reset md-button" }, UI.reset);
  reset.addEventListener("click", () => opts.onChange(clone(opts.defaults)));
  bar.append(reset);

  // A filter's "all" button and one checkbox (radio) per value with its count, built once.
  function options(w) {
    if (w.inputs) return;
    const d = w.dim;
    const all = el("button", { type: "button", class: "lb-all" }, UI.all);
    all.addEventListener("click", () => opts.onChange(choose(opts.state(), d.key, [])));
    w.list.append(all);
    const inputs = [];
    for (const v of values[d.key]) {
      const label = el("label", { class: "lb-option" });
      const input = el("input", { type: d.multi ? "checkbox" : "radio", name: "lb-" + d.key, value: v });
      input.dataset.dim = d.key;
      input.addEventListener("change", () => {
        const chosen = d.multi ? inputs.filter((i) => i.checked).map((i) => i.value) : [v];
        opts.onChange(choose(opts.state(), d.key, chosen));
      });
      label.append(input, el("span", { class: "lb-option-text" }, shownValue(d, v)), el("span", { class: "lb-n" }));
      w.list.append(label);
      inputs.push(input);
    }
    w.inputs = inputs;
    syncOptions(w);
  }

  // Open one filter's list (building it), closing the others; toggle(null, false) closes every list.
  function toggle(box, open) {
    for (const w of Object.values(widgets)) {
      const show = open && w.box === box;
      if (show) options(w);
      w.list.hidden = !show;
      w.box.querySelector(".lb-filter-button").setAttribute("aria-expanded", String(show));
    }
  }

  // A built option list: which values are chosen, and each value's count under the other filters.
  function syncOptions(w) {
    if (!w.inputs || !last) return;
    const key = w.dim.key;
    const chosen = new Set(opts.state()[key] || []);
    const index = last.index[key];
    for (const input of w.inputs) {
      input.checked = chosen.has(input.value);
      // a value whose runs are not loaded (data/runs.js) has no count yet: none is shown, not a 0
      const unknown = last.unknown && last.unknown.key === key && last.unknown.values.has(input.value);
      const n = last.counts[key][index.get(input.value)] || 0;
      const count = input.parentElement.querySelector(".lb-n");
      count.textContent = unknown ? " " + UI.notCounted : " " + COUNT.format(n);
      count.title = unknown ? UI.notCountedHelp : "";
      input.parentElement.classList.toggle("lb-zero", n === 0 && !unknown);
    }
  }

  // The latency limits: a limit is a filter (a change is a new history entry), applied when the reader
  // pauses typing, presses Enter or leaves the box; once per value.
  const limitInputs = {};
  for (const l of limitBox ? limits : []) {
    const input = limitBox.querySelector(`.lb-limit[data-key="${l.key}"] input`);
    if (!input) continue;
    input.disabled = false;
    let timer = null;
    const commit = () => {
      clearTimeout(timer);
      const v = limitValue(input.value);
      if (v === limitValue((opts.state()[l.key] || [])[0])) return;
      opts.onChange(choose(opts.state(), l.key, v === null ? [] : [String(v)]));
    };
    input.addEventListener(
      "input",
      () => {
        clearTimeout(timer);
        timer = setTimeout(commit, LIMIT_DELAY_MS);
        timers.push(timer);
      },
      { signal }
    );
    input.addEventListener("change", commit, { signal });
    limitInputs[l.key] = input;
  }

  // The price only recomputes the cost column (onPrice); a text that is not a price is said so beside it.
  const price = limitBox && opts.priceCfg ? limitBox.querySelector(".lb-price input") : null;
  if (price) {
    price.disabled = false;
    price.addEventListener(
      "input",
      () => {
        const v = priceValue(price.value);
        priceNote(v === null && price.value.trim() !== "");
        if (v !== null) opts.onPrice(v);
      },
      { signal }
    );
  }

  // Say, beside the price box, that its text (typed or from ?price=) is not a price and is not used.
  function priceNote(refused) {
    if (!price) return;
    const box = price.closest(".lb-limit") || price; // the note goes after the pill, on its own line
    let note = box.parentNode.querySelector(".lb-price-note");
    if (!refused) {
      if (note) note.remove();
      price.removeAttribute("aria-invalid");
      return;
    }
    if (!note) {
      note = el("span", { class: "lb-price-note", role: "status" }, UI.priceRefused(MAX_PRICE.toLocaleString(LOCALE)));
      box.after(note);
    }
    price.setAttribute("aria-invalid", "true");
  }

  if (reopen && widgets[reopen] && !later.has(reopen)) toggle(widgets[reopen].box, true);

  return {
    toggle,
    close: () => toggle(null, false),
    priceNote,
    /** The price box shows this price (unless its text already reads as it, or force). */
    showPrice(v, force) {
      if (price && (force || priceValue(price.value) !== v)) price.value = v.toFixed(2);
    },
    /** The buttons' values, the open lists' ticks and counts, the limit boxes, for this state. unknown:
     * {key, values: Set} the values of one dimension whose counts are not known (shown without one). */
    sync(state, counts, index, unknown = null) {
      last = { counts, index, unknown };
      for (const d of dims) {
        const w = widgets[d.key];
        if (!w) continue;
        const list = state[d.key] || [];
        w.shown.textContent = list.length === 0 ? UI.allValue : list.length === 1 ? shownValue(w.dim, list[0]) : UI.selected(list.length);
        w.box.classList.toggle("lb-active", list.length > 0);
        syncOptions(w);
      }
      for (const [key, input] of Object.entries(limitInputs)) {
        const v = (state[key] || [])[0];
        if (limitValue(input.value) !== limitValue(v)) input.value = v === undefined ? "" : v;
        input.parentElement.classList.toggle("lb-active", v !== undefined);
      }
    },
    destroy() {
      timers.forEach(clearTimeout);
      off.abort();
    },
  };
}
