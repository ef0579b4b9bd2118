// state/filter.js: filter state, pure. A state maps a dimension key to the chosen values (text); absent or
// empty means "all". Reads and writes the URL query's text (never location itself: state/url.js does).
// In: the dimensions and limits of data-lb-dims / data-lb-limits, query strings. Out: states, query strings.
// Side effects: none. Tested under node (tests/site/test_js_pure.py).

/** ``keys``: the filter dimensions and the latency limits (site_gen.data.dimensions.LIMITS: {key, bound}),
 * whose one value must be a number >= 0 (anything else in the URL is ignored). A query naming no key
 * gives the defaults; "*" is "all" (a dimension whose default is not all, cleared by the reader). */
export function stateFromQuery(keys, search, defaults) {
  const params = new URLSearchParams(search);
  if (!keys.some((d) => params.has(d.key))) return clone(defaults);
  const state = {};
  for (const d of keys) {
    let values = params.getAll(d.key).filter((v) => v !== "*");
    if (d.bound) values = values.slice(0, 1).filter((v) => limitValue(v) !== null);
    if (values.length) state[d.key] = values;
    // a dimension the URL does not name keeps its default when it asks to (the estimates stay off)
    else if (d.keep_default && !params.has(d.key) && defaults[d.key]) state[d.key] = defaults[d.key].slice();
  }
  return state;
}

/** The query ("?gpu=A&gpu=B", or "" for the defaults) that stateFromQuery reads back as ``state``. */
export function queryFromState(dims, state, defaults) {
  if (same(state, defaults)) return "";
  const params = new URLSearchParams();
  for (const d of dims) {
    const values = state[d.key] || [];
    // a dimension that keeps its default when a URL does not name it needs no words while at its default
    if (d.keep_default && same({ [d.key]: values }, { [d.key]: defaults[d.key] || [] })) continue;
    if (values.length) values.forEach((v) => params.append(d.key, v));
    else if (defaults[d.key] && defaults[d.key].length) params.append(d.key, "*");
  }
  const q = params.toString();
  return q ? "?" + q : "";
}

/** The filters' query plus the parameters of ``search`` that are not filters (a chart input such as
 * ?price=): a filter change must not drop them. */
export function withOtherParams(query, dims, search) {
  const keys = new Set(dims.map((d) => d.key));
  const params = new URLSearchParams(query);
  for (const [k, v] of new URLSearchParams(search)) if (!keys.has(k)) params.append(k, v);
  const q = params.toString();
  return q ? "?" + q : "";
}

// A limit's or price's text as a number >= 0, else null. Plain decimals only ("2", "2.5", ".5"):
// Number() would also read "0x10" as 16, "1e308" and "Infinity", none of which a person types as a
// price or a latency.
const DECIMAL = /^\s*(\d+(\.\d*)?|\.\d+)\s*$/;
export function limitValue(text) {
  if (text === null || text === undefined || !DECIMAL.test(String(text))) return null;
  const v = Number(text);
  return Number.isFinite(v) ? v : null;
}

// The most a GPU-hour may cost in the price boxes (docs/explorer.md): a dearer one is refused with a
// message (a 300-digit price filled the table's header and pushed every row out of sight).
export const MAX_PRICE = 1000;
export function priceValue(text) {
  const v = limitValue(text);
  return v !== null && v <= MAX_PRICE ? v : null;
}

/** The state with one dimension's values replaced (none: the dimension is "all" again). */
export function choose(state, key, values) {
  const next = clone(state);
  if (values.length) next[key] = values;
  else delete next[key];
  return next;
}

export function clone(state) {
  return JSON.parse(JSON.stringify(state || {}));
}

/** Equal states: the same non-empty dimensions with the same values, in any order. */
export function same(a, b) {
  const norm = (s) =>
    JSON.stringify(
      Object.keys(s)
        .filter((k) => s[k] && s[k].length)
        .sort()
        .map((k) => [k, [...s[k]].sort()])
    );
  return norm(a || {}) === norm(b || {});
}
