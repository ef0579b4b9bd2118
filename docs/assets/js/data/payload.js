// data/payload.js: the engine behind data/source.js today: the build's columnar payload, a JSON file
// (site_gen/data/dataset.py: {n, columns: {name: values | {dict, codes}}}, in one or several parts),
// fetched and decoded into row objects once per session (the payload then dropped).
// In: the file's URL and key. Out: Promise of row objects. Side effects: fetches.

import { loadJson, yieldToMain } from "../tasks.js";

const decoded = {}; // data key -> Promise of its row objects (decoded once per session)
const files = {}; // one file's key -> Promise of its rows (its payload dropped once they are made)

/** Every row of the payload ``key`` (from ``src``), decoded once per session, in tasks of their own.
 * A set written in parts (site_gen.data.dataset.frame_files: space-separated paths and keys) is every part's
 * rows in order, the parts fetched in parallel. */
export function loadRows(src, key) {
  if (!decoded[key]) {
    const keys = key.split(" "), srcs = src.split(" ");
    // a file decoded before (in another set) is not fetched again: its rows are here
    const parts = keys.map((k, i) => fileRows(k, srcs[i]));
    decoded[key] = (async () => {
      if (keys.length === 1) return parts[0].then((make) => make(0));
      const rows = [];
      for (const part of parts) for (const row of await (await part)(rows.length)) rows.push(row);
      return rows;
    })();
    decoded[key].catch(() => delete decoded[key]); // a part that failed to load is tried again next time
  }
  return decoded[key];
}

// A file's rows, fetched once and decoded once: the rows hold every value, so nothing keeps the payload
// (at a million runs, ~170 MB of the page's memory). The promise gives a function of the rows' offset in
// their set (the jitter runs on across parts), which decodes on its first call: a file that is also a
// part of another set (its content, hence its name, the same) keeps the jitter of its first decoding:
// still even, still stable.
function fileRows(k, src) {
  if (!files[k]) {
    files[k] = loadJson(src, { what: "the page data" }).then((payload) => {
      let rows = null;
      return (offset) => {
        if (!rows) {
          rows = decode(payload, offset);
          payload = null;
          rows.catch(() => delete files[k]);
        }
        return rows;
      };
    });
    files[k].catch(() => delete files[k]);
  }
  return files[k];
}

// Row objects from the columnar payload, DECODE_CHUNK rows per task: the explorer's 4,345 rows in one
// go were a phone's longest task of the page load.
const DECODE_CHUNK = 1500;
const JITTER_STEPS = 1000; // site_gen.charts.specs.JITTER_STEPS
export async function decode(payload, offset = 0) {
  const names = Object.keys(payload.columns);
  const getters = names.map((name) => {
    const col = payload.columns[name];
    if (Array.isArray(col)) return (i) => col[i];
    return (i) => (col.codes[i] === null ? null : col.dict[col.codes[i]]);
  });
  // Each row a copy of one template holding every field: V8 lays a JSON.parse'd object's fields out
  // in the object itself, and its copies keep that layout. A row built field by field keeps most of
  // them in a side store and, once Vega adds its tuple id, becomes a hash table: 4x the memory
  // (828 against 208 bytes a row of 40 fields in Chromium), 1.1 GB of a million runs.
  const template = JSON.parse(JSON.stringify(Object.fromEntries([...names, "lb_jitter"].map((n) => [n, null]))));
  const rows = new Array(payload.n);
  for (let i = 0; i < payload.n; i++) {
    if (i % DECODE_CHUNK === 0) await yieldToMain();
    const row = { ...template };
    for (let j = 0; j < names.length; j++) row[names[j]] = getters[j](i);
    // lb_jitter (site_gen.charts.specs.JITTER): a stable sideways offset in [0, 1000) for one-point-per-
    // run charts, spread evenly (golden-ratio sequence); computed once here, not by Vega on every insert.
    // A whole number: V8 keeps it in the row, where a fraction is a number object of its own (12 MB at a
    // million rows). offset: the rows of the parts before.
    row.lb_jitter = Math.floor((((offset + i) * 0.6180339887498949) % 1) * JITTER_STEPS);
    rows[i] = row;
  }
  return rows;
}
