// data/source.js: the one interface between the pages and the run data; the engine is named here only.
// Today's engine is the build's columnar JSON payload (data/payload.js), filtered in memory
// (data/crossfilter.js); another engine (DuckDB-WASM, hyparquet) would sit behind the same calls.
// In: a placeholder's data-lb-src / data-lb-key. Out: a Source. Side effects: the engine's loading.
//
// Source: rows() → Promise<object[]> every row of the set; summary() → Promise<object[]> the first view's
// rows at scale, or summary null where the page has none; run(id) → Promise<object | null> one run;
// load({src, key}) → Promise<object[]> the rows of another file of the set (the summary's counts and parts);
// openCards(parts) is the run cards' Source: run(id) loads only the partition holding the run;
// index(rows, dims, limits, weight?, known?) → {values, index, filter(state) → {rows, counts, missing,
// limited}} (crossfilter.createIndex: known lists values no row has, data/runs.js).

import { loadRows } from "./payload.js";
import { createIndex, fixedMatcher, valueCodes } from "./crossfilter.js";
import { cardPart } from "./cards.js";

export { fixedMatcher, valueCodes };

/** The Source of one placeholder's data set; ``summary`` ({src, key}, data-lb-summary): the explorer's
 * first view at scale, the best run of each cell (site_gen.data.dataset.best_per_cell), loaded on its own. */
export function openSource(src, key, summary = null) {
  const rows = () => loadRows(src, key);
  return {
    rows,
    summary: summary ? () => loadRows(summary.src, summary.key) : null,
    load: (file) => loadRows(file.src, file.key),
    run: async (id) => (id ? (await rows()).find((r) => r.run_id === id) || null : null),
    index: createIndex,
  };
}

/** The run cards, in partitions (data-lb-cards: {src: [...], key: [...]}, site_gen.data.dataset.card_part):
 * run(id) loads only the partition that holds the id (a JSON file, as the page data). */
export function openCards(parts) {
  return {
    run: async (id) => {
      if (!id || !parts.key.length) return null;
      const i = cardPart(id, parts.key.length);
      return (await loadRows(parts.src[i], parts.key[i])).find((r) => r.run_id === id) || null;
    },
  };
}
