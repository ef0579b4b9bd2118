// data/payload.js: the engine behind data/source.js today: the build's columnar payload, a classic
// <script> that assigns window.LLMBENCH_DATA[key] (site_gen/data/dataset.py: {n, columns: {name: values |
// {dict, codes}}}, in one or several parts), decoded into row objects once per session.
// In: the script's URL and key. Out: Promise of row objects. Side effects: a <script> in <head>.

import { loadScript, yieldToMain } from "../tasks.js";

const decoded = {}; // data key -> Promise of its row objects (decoded once per session)

/** The payload's classic <script>, unless the key is already there (tasks.js loads each URL once). */
export function injectScript(src, key, store) {
  return store()[key] ? Promise.resolve() : loadScript(src, { what: "the page data" });
}

const store = () => window.LLMBENCH_DATA || {};

/** Every row of the payload ``key`` (from ``src``), decoded once per session, in tasks of their own.
 * A set written in parts (site_gen.data.dataset.frame_files: space-separated paths and keys) is every part's
 * rows in order, the parts fetched in parallel. */
export function loadRows(src, key) {
  const keys = key.split(" "), srcs = src.split(" ");
  if (keys.length === 1) return injectScript(src, key, store).then(() => decoded[key] || (decoded[key] = decode(store()[key])));
  if (!decoded[key]) {
    decoded[key] = Promise.all(keys.map((k, i) => injectScript(srcs[i], k, store))).then(async () => {
      const rows = [];
      for (const k of keys) for (const row of await decode(store()[k], rows.length)) rows.push(row);
      return rows;
    });
    decoded[key].catch(() => delete decoded[key]); // a part that failed to load is tried again next time
  }
  return decoded[key];
}

// Row objects from the columnar payload, DECODE_CHUNK rows per task: the explorer's 4,345 rows in one
// go were a phone's longest task of the page load.
const DECODE_CHUNK = 1500;
export async function decode(payload, offset = 0) {
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
    // lb_jitter (site_gen.charts.specs.JITTER): a stable sideways offset in [0, 1) for one-point-per-run
    // charts, spread evenly (golden-ratio sequence); computed once here, not by Vega on every insert.
    row.lb_jitter = ((offset + i) * 0.6180339887498949) % 1; // offset: the rows of the parts before
    rows[i] = row;
  }
  return rows;
}
