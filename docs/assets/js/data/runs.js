// data/runs.js: the runs a scope filters once it shows every run (issue 29). Every run of its data set,
// or, where the explorer at scale keeps each GPU's runs in a file of their own (data-lb-summary's parts),
// the runs of the GPUs its GPU filter names: a reader who asks for every run of two GPUs of a million runs
// loads those two files. A state naming another GPU loads its file beside them; a state naming no GPU
// (every GPU) loads every run, once, and from then on nothing more.
// In: the scope's Source, its parts ({dim, files: {value: {src, key}}, order: {value: sort value}} or
// null), dimensions, limits and fixed filters. Out: openRuns → {cover(state), index, held, partial(),
// loading(state)}. Side effects: the files' loading (through the Source).

import { fixedMatcher } from "./crossfilter.js";
import { isHeldBack } from "../calc/estimates.js";
import { yieldToMain } from "../tasks.js";

const own = (o, k) => Object.prototype.hasOwnProperty.call(o, k);

/** The values of parts.dim whose files hold every run the state can show, or null: every run. A state
 * whose filter on that dimension is empty (every value), or names a value without a file of its own (a
 * hand-made link), needs every run. */
export function partsFor(parts, state) {
  const chosen = parts ? state[parts.dim] || [] : [];
  return chosen.length && chosen.every((v) => own(parts.files, v)) ? chosen : null;
}

/** The runs, loaded as states need them. cover(state) loads what the state needs and resolves true when
 * the rows changed (then index and held are new: the bar's values may have grown); loading(state) says,
 * before, whether it will load (null: nothing; else the values of the files it loads, [] for every run).
 * partial(): the values of parts.dim not loaded (their options' counts are unknown), null when every run
 * is loaded. */
export function openRuns(source, parts, dims, limits, fixed) {
  const keep = fixedMatcher(fixed);
  const got = new Map(); // value -> its runs (the fixed filters kept)
  let every = false; // every run is loaded: nothing more to load
  let queue = Promise.resolve(); // loads one after the other: a quick second choice waits for the first
  // every value of parts.dim, as rows would list it, though its runs are not loaded (crossfilter.valueCodes)
  const known = parts ? { [parts.dim]: Object.keys(parts.files).map((v) => [v, parts.order[v] ?? null]) } : {};

  function loading(state) {
    if (every) return null;
    const want = partsFor(parts, state);
    if (!want) return [];
    const missing = want.filter((v) => !got.has(v));
    return missing.length || !me.index ? missing : null;
  }

  async function step(state) {
    const missing = loading(state);
    if (missing === null) return false;
    let rows;
    if (!partsFor(parts, state)) {
      rows = (await source.rows()).filter(keep);
      every = true;
      got.clear();
    } else {
      const files = await Promise.all(missing.map((v) => source.load(parts.files[v])));
      missing.forEach((v, i) => got.set(v, files[i].filter(keep)));
      // in the files' order (by name), whatever the order they were asked for
      rows = Object.keys(parts.files).flatMap((v) => got.get(v) || []);
    }
    await yieldToMain(); // the rows decoded, then indexed in a task of its own (a phone answers between)
    me.index = source.index(rows, dims, limits, null, every ? {} : known);
    const heldRows = rows.filter(isHeldBack);
    me.held = heldRows.length ? source.index(heldRows, dims, limits) : null;
    return true;
  }

  const me = {
    index: null,
    held: null,
    loading,
    cover(state) {
      const done = queue.then(() => step(state));
      queue = done.catch(() => false);
      return done;
    },
    partial: () => (every || !parts ? null : new Set(Object.keys(parts.files).filter((v) => !got.has(v)))),
  };
  return me;
}
