// data/runs.js: the runs a scope filters once it shows every run (issue 29). Every run of its data set,
// or, where the page at scale keeps each GPU's (or each model's) runs in a file of their own
// (data-lb-summary's parts), the runs of the values its filter names: a reader who asks for every run of
// two GPUs of a million runs loads those two files, and one who asks for every run of a model with no
// GPU chosen loads that model's file. A state naming another value loads its file beside them; a state
// naming no value of any part's dimension (every GPU and every model) loads every run, once, and from
// then on nothing more.
// In: the scope's Source, its parts ([{dim, files: {value: {src, key}}, order: {value: sort value}}, ...],
// the first that a state names serving it; or null), dimensions, limits and fixed filters. Out: openRuns
// → {cover(state), index, held, partial(), loading(state)}. Side effects: the files' loading (through the
// Source).

import { fixedMatcher } from "./crossfilter.js";
import { isHeldBack } from "../calc/estimates.js";
import { yieldToMain } from "../tasks.js";

const own = (o, k) => Object.prototype.hasOwnProperty.call(o, k);

/** The part whose files hold every run the state can show, and the values of its dimension to load:
 * {part, values}, from the first of ``parts`` whose dimension the state's filter names, every value named
 * with a file of its own (one naming a value without a file, a hand-made link, leaves the state to the
 * next part); null: every run. */
export function partsFor(parts, state) {
  for (const part of parts || []) {
    const chosen = state[part.dim] || [];
    if (chosen.length && chosen.every((v) => own(part.files, v))) return { part, values: chosen };
  }
  return null;
}

/** The runs, loaded as states need them. cover(state) loads what the state needs and resolves true when
 * the rows changed (then index and held are new: the bar's values may have grown); loading(state) says,
 * before, whether it will load (null: nothing; else the values of the files it loads, [] for every run).
 * partial(): {key, values}: the dimension whose files are loaded and its values not loaded (their options'
 * counts are unknown), null when every run is loaded. */
export function openRuns(source, parts, dims, limits, fixed) {
  const keep = fixedMatcher(fixed);
  const got = new Map(); // value of on.dim -> its runs (the fixed filters kept)
  let on = null; // the part whose files are loaded: another part's state loads its own files afresh
  let every = false; // every run is loaded: nothing more to load
  let queue = Promise.resolve(); // loads one after the other: a quick second choice waits for the first
  // every value of a part's dimension, as rows would list it, though its runs are not loaded
  // (crossfilter.valueCodes)
  const known = (part) => ({ [part.dim]: Object.keys(part.files).map((v) => [v, part.order[v] ?? null]) });

  function loading(state) {
    if (every) return null;
    const want = partsFor(parts, state);
    if (!want) return [];
    const missing = want.part === on ? want.values.filter((v) => !got.has(v)) : want.values;
    return missing.length || !me.index ? missing : null;
  }

  async function step(state) {
    const missing = loading(state);
    if (missing === null) return false;
    const want = partsFor(parts, state);
    let rows;
    if (!want) {
      rows = (await source.rows()).filter(keep);
      every = true;
      on = null;
      got.clear();
    } else {
      // a file is loaded and decoded once per page (data/payload.js): back to a part read before, its
      // files cost nothing more
      const files = await Promise.all(missing.map((v) => source.load(want.part.files[v])));
      if (want.part !== on) got.clear(); // the runs of one part only: two parts' files hold the same runs
      on = want.part;
      missing.forEach((v, i) => got.set(v, files[i].filter(keep)));
      // in the files' order (by name), whatever the order they were asked for
      rows = Object.keys(on.files).flatMap((v) => got.get(v) || []);
    }
    await yieldToMain(); // the rows decoded, then indexed in a task of its own (a phone answers between)
    me.index = source.index(rows, dims, limits, null, every ? {} : known(on));
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
    partial: () =>
      every || !on ? null : { key: on.dim, values: new Set(Object.keys(on.files).filter((v) => !got.has(v))) },
  };
  return me;
}
