// data/payload.js: the engine behind data/source.js today: the build's columnar payload, a classic
// <script> that assigns window.LLMBENCH_DATA[key] (site_gen/data/dataset.py: {n, columns: {name: values |
// {dict, codes}}}), decoded into row objects once per session.
// In: the script's URL and key. Out: Promise of row objects. Side effects: a <script> in <head>.

import { yieldToMain } from "../tasks.js";

const pending = {}; // data key -> Promise of the loaded script
const decoded = {}; // data key -> Promise of its row objects (decoded once per session)

/** A classic <script> injected once per key (so the payload also loads from a plain static folder). */
export function injectScript(src, key, store) {
  if (!store()[key] && !pending[key]) {
    pending[key] = new Promise((resolve, reject) => {
      const s = document.createElement("script");
      s.src = src;
      s.onload = resolve;
      s.onerror = () => {
        delete pending[key];
        reject(new Error("could not load the page data " + src));
      };
      document.head.appendChild(s);
    });
  }
  return Promise.resolve(pending[key]);
}

/** Every row of the payload ``key`` (from ``src``), decoded once per session, in tasks of their own. */
export function loadRows(src, key) {
  const store = () => window.LLMBENCH_DATA || {};
  return injectScript(src, key, store).then(() => decoded[key] || (decoded[key] = decode(store()[key])));
}

// Row objects from the columnar payload, DECODE_CHUNK rows per task: the explorer's 4,345 rows in one
// go were a phone's longest task of the page load.
const DECODE_CHUNK = 1500;
export async function decode(payload) {
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
    row.lb_jitter = (i * 0.6180339887498949) % 1;
    rows[i] = row;
  }
  return rows;
}
