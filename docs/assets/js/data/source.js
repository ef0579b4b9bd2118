// data/source.js: the one interface between the pages and the run data; the engine is named here only.
// Today's engine is the build's columnar <script> payload (data/payload.js), filtered in memory
// (data/crossfilter.js); another engine (DuckDB-WASM, hyparquet) would sit behind the same calls.
// In: a placeholder's data-lb-src / data-lb-key. Out: a Source. Side effects: the engine's loading.
//
// Source: rows() → Promise<object[]> every row of the set; run(id) → Promise<object | null> one run;
// index(rows, dims, limits) → {values, index, filter(state) → {rows, counts, missing, limited}}.

import { loadRows } from "./payload.js";
import { createIndex, fixedMatcher, valueCodes } from "./crossfilter.js";

export { fixedMatcher, valueCodes };

/** The Source of one placeholder's data set. */
export function openSource(src, key) {
  const rows = () => loadRows(src, key);
  return {
    rows,
    run: async (id) => (id ? (await rows()).find((r) => r.run_id === id) || null : null),
    index: createIndex,
  };
}
