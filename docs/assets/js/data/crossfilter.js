// data/crossfilter.js: filtering and option counts over typed arrays, pure (no DOM): the rows a state
// keeps, and each option's count under the other dimensions' filters (Mosaic's crossfilter rule).
// In: row objects, dimensions {key, column, sort_column?, numeric?}, limits {key, column, bound}, a state,
// optionally a weight column (what a row counts for).
// Out: an index whose filter(state) gives {rows, counts, missing, limited}. Side effects: none.
// Tested under node (tests/site/test_js_pure.py) on hand-worked cases.

import { byText } from "../format.js";
import { limitValue } from "../state/filter.js";

/** A row test for a placeholder's fixed filters ({column: allowed values}), compared as text. */
export function fixedMatcher(fixed) {
  const tests = Object.entries(fixed).map(([column, values]) => [column, new Set(values.map(String))]);
  return (row) => tests.every(([column, set]) => set.has(String(row[column])));
}

/** A dimension's distinct values (as text), in its order (sort_column, numeric or text), and each row's
 * index into them (-1: no value): one pass over the rows, then a sort of the few distinct values.
 * known: [[value text, its sort value], ...] values to list even where no row has them (the GPUs whose
 * runs are not loaded, data/runs.js), placed as rows with that sort value would place them. */
export function valueCodes(rows, dim, known = []) {
  const ids = new Map(); // value text -> index in first-seen order
  const keys = [], order = [];
  for (const [k, o] of known) {
    ids.set(k, keys.length);
    keys.push(k);
    order.push(dim.sort_column ? o : dim.numeric ? Number(k) : k);
  }
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
  // Kept in the narrowest array that holds them (a dimension has a few dozen values, a row a code in
  // each): at a million runs, 11 dimensions' codes take 11 MB in bytes, not 44 MB in 32-bit integers.
  const out = new (narrowest(keys.length))(codes.length);
  for (let i = 0; i < codes.length; i++) out[i] = codes[i] >= 0 ? rank[codes[i]] : -1;
  return { values: perm.map((id) => keys[id]), codes: out };
}

/** The smallest signed integer array holding the codes 0 .. n - 1 and -1 (no value). */
export function narrowest(n) {
  return n <= 0x7f ? Int8Array : n <= 0x7fff ? Int16Array : Int32Array;
}

/** The rows indexed once for a filter bar: each dimension's values and row codes, each limit's figures.
 * ``weight``: a column whose value a row counts for in the options' counts (the explorer's summary: a cell's
 * best run counts for the runs of its cell, ``cell_runs``); absent, a row counts once. ``known``: {key:
 * [[value, sort value], ...]}, a dimension's values listed though no row has them (valueCodes). */
export function createIndex(all, dims, limits, weight = null, known = {}) {
  const values = {}, index = {}, codes = {}, figures = {};
  for (const d of dims) {
    const vc = valueCodes(all, d, known[d.key]);
    values[d.key] = vc.values;
    index[d.key] = new Map(vc.values.map((v, i) => [v, i])); // option text -> its index in values
    codes[d.key] = vc.codes;
  }
  // each latency limit's figure per row (NaN: the run has none), read once
  for (const l of limits) {
    figures[l.key] = Float64Array.from(all, (r) => (r[l.column] === null || r[l.column] === undefined ? NaN : Number(r[l.column])));
  }
  const weights = weight ? Float64Array.from(all, (r) => Number(r[weight]) || 0) : null;
  return {
    all, values, index,
    filter: (state) => filterAndCount(all, dims, limits, { values, index, codes, figures, weights }, state),
  };
}

// One pass over the rows: the rows passing every filter, and the count per option of each dimension
// under the other dimensions' filters (a row failing no filter counts for every dimension, a row
// failing exactly one counts for that one only). A latency limit hides a run from every count.
// The loop reads only arrays by position (no destructuring or keyed lookups per row): it runs over every
// loaded run on each filter change, a million at scale.
function filterAndCount(all, dims, limits, { values, index, codes, figures, weights }, state) {
  const onDim = [], onOk = [], onCodes = []; // the dimensions with a choice: position, allowed codes, codes
  dims.forEach((d, k) => {
    const chosen = state[d.key] || [];
    if (!chosen.length) return;
    const ok = new Uint8Array(values[d.key].length);
    const pos = index[d.key];
    for (const v of chosen) if (pos.has(String(v))) ok[pos.get(String(v))] = 1;
    onDim.push(k);
    onOk.push(ok);
    onCodes.push(codes[d.key]);
  });
  const limFig = [], limValue = [], limMax = [];
  for (const l of limits) {
    const v = limitValue((state[l.key] || [])[0]);
    if (v === null) continue;
    limFig.push(figures[l.key]);
    limValue.push(v);
    limMax.push(l.bound === "max");
  }
  const dimCodes = dims.map((d) => codes[d.key]);
  const dimCounts = dims.map((d) => new Int32Array(values[d.key].length));
  const nOn = onDim.length, nLim = limFig.length, nDims = dims.length;
  const rows = [];
  let missing = 0; // runs the dimensions keep but a limit hides for want of its figure
  for (let i = 0; i < all.length; i++) {
    let failed = -1, fails = 0;
    for (let a = 0; a < nOn; a++) {
      const c = onCodes[a][i];
      if (c < 0 || !onOk[a][c]) {
        failed = onDim[a];
        if (++fails > 1) break;
      }
    }
    if (fails > 1) continue; // counted nowhere, and not among the missing (the dimensions drop it)
    let out = 0; // 0: within every limit, 1: outside one, 2: lacks a figure
    for (let b = 0; b < nLim; b++) {
      const x = limFig[b][i];
      if (x !== x) {
        out = 2;
        break;
      }
      if (limMax[b] ? x > limValue[b] : x < limValue[b]) out = 1;
    }
    if (out) {
      if (out === 2 && fails === 0) missing++;
      continue;
    }
    const w = weights ? weights[i] : 1;
    if (fails === 0) {
      rows.push(all[i]);
      for (let k = 0; k < nDims; k++) {
        const c = dimCodes[k][i];
        if (c >= 0) dimCounts[k][c] += w;
      }
    } else {
      const c = dimCodes[failed][i];
      if (c >= 0) dimCounts[failed][c] += w;
    }
  }
  const counts = {};
  dims.forEach((d, k) => (counts[d.key] = dimCounts[k]));
  return { rows, counts, missing, limited: nLim > 0 };
}
