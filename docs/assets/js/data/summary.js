// data/summary.js: the explorer's first view at scale as data (issue 29): the best run of each GPU × model
// × precision × workload (data-lb-summary, site_gen.data.dataset.best_per_cell), filtered by those cell
// dimensions, and by one more dimension of first.more (TP, a release: its counts file, then the chosen
// values' best runs, data/cells.js), without every run.
// In: the placeholder's summary config, its Source, the filter dimensions, the URL's keys and defaults.
// Out: servedBy(state) (sync, before anything is loaded) and openSummary → {query(state), open(dim), ...}.
// Side effects: the files' loading (through the Source).

import { bestPerCell, countRows } from "./cells.js";
import { fixedMatcher } from "./crossfilter.js";
import { same } from "../state/filter.js";

const own = (o, k) => Object.prototype.hasOwnProperty.call(o, k);

/** What serves a state on the summary: "" its cells alone, a dimension's key (the cells and that
 * dimension's counts and best runs), null nothing but every run. A state it serves differs from the
 * defaults in the cells' dimensions and at most one other that the summary has counts of (first.more). */
export function summaryServer(first, keys, defaults) {
  const cellKeys = new Set(first.dims || []), more = first.more || {};
  return (s) => {
    const others = keys.filter((k) => !cellKeys.has(k.key) && !same({ v: s[k.key] || [] }, { v: defaults[k.key] || [] }));
    if (!others.length) return "";
    return others.length === 1 && own(more, others[0].key) ? others[0].key : null;
  };
}

/** The summary loaded: query(state) → {rows, counts, index, shown, runs} (the best runs to draw, the bar's
 * counts and option index, the count line's cells and runs); open(dim) loads one more dimension's counts;
 * extra() names the dimension open now (null: none); values() the bar's options. */
export async function openSummary(first, source, dims, keys, defaults) {
  const best = await source.summary();
  const cellDims = dims.filter((d) => (first.dims || []).includes(d.key));
  const more = first.more || {};
  const servedBy = summaryServer(first, keys, defaults);
  const cells = source.index(best, cellDims, [], "cell_runs");
  let extra = null; // {dim, index}: the one more dimension open now, its counts indexed with the cells'
  let opening = null; // {dim, done}: the counts being loaded (two quick asks load them once)

  function open(k) {
    if (extra && extra.dim === k) return Promise.resolve();
    if (opening && opening.dim === k) return opening.done;
    const done = source.load(more[k].counts).then((counts) => {
      if (opening.done !== done) return; // another dimension was asked for meanwhile
      const d = dims.find((x) => x.key === k);
      extra = { dim: k, index: source.index(countRows(counts, best, cellDims), [...cellDims, d], [], "cell_runs") };
    });
    opening = { dim: k, done };
    return done;
  }

  // The rows of the state: the best runs of the chosen cells, or, with values of the extra dimension
  // chosen, the best run of each chosen cell among those values' best runs (their files, loaded once each).
  async function query(s) {
    const k = servedBy(s);
    while (k && (!extra || extra.dim !== k)) await open(k); // again if another was asked for meanwhile
    const ix = extra ? extra.index : cells;
    const counted = ix.filter(s);
    let rows = k ? null : ix === cells ? counted.rows : cells.filter(s).rows;
    if (k) {
      // own keys only: a URL's ?tp=__proto__ names no file
      const files = (s[k] || []).filter((v) => own(more[k].values, v)).map((v) => source.load(more[k].values[v]));
      const chosen = (await Promise.all(files)).flat();
      const keep = fixedMatcher(Object.fromEntries(cellDims.filter((d) => (s[d.key] || []).length).map((d) => [d.column, s[d.key]])));
      rows = bestPerCell(chosen.filter(keep), cellDims.map((d) => d.column), first.figure);
    }
    const any = Boolean(k) || cellDims.some((d) => (s[d.key] || []).length);
    return {
      rows, counts: counted.counts, index: ix.index,
      shown: any ? rows.length : first.cells,
      runs: any ? counted.rows.reduce((n, r) => n + (Number(r.cell_runs) || 0), 0) : first.runs,
    };
  }

  return {
    cellDims, servedBy, open, query,
    more: (k) => own(more, k),
    extra: () => (extra ? extra.dim : null),
    values: () => (extra ? { ...cells.values, [extra.dim]: extra.index.values[extra.dim] } : cells.values),
  };
}
