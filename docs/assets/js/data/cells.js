// data/cells.js: the explorer's summary at scale (issue 29) taking a filter on one more dimension (TP, a
// release: site_gen.data.dataset.summary_by), pure (no DOM): the counts table's rows as rows the crossfilter
// indexes, and the best run of each cell among the chosen values' best runs.
// In: the summary's rows, a counts table's rows, the cells' dimensions, the figure's column.
// Out: row objects. Side effects: none. Tested under node (tests/site/test_js_pure.py) against pandas.

/** The counts table's rows ({cell, <column>, <sort column>, cell_runs}, cell: a summary row's number) as
 * rows of the summary's cell dimensions and that one column, each weighing its runs (cell_runs). */
export function countRows(counts, best, cellDims) {
  const columns = [];
  for (const d of cellDims) {
    columns.push(d.column);
    if (d.sort_column) columns.push(d.sort_column);
  }
  return counts.map((r) => {
    const cell = best[r.cell], row = { ...r };
    for (const c of columns) row[c] = cell[c];
    return row;
  });
}

/** The best run of each cell (the highest ``figure``; ties: the smallest run id) among ``rows``, the
 * chosen values' best runs: what best_per_cell gives for the runs with those values. Order: the rows'. */
export function bestPerCell(rows, columns, figure) {
  const best = new Map(); // cell text -> index in rows
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i];
    const v = r[figure];
    if (v === null || v === undefined) continue;
    const key = columns.map((c) => String(r[c])).join("\u0001");
    const j = best.get(key);
    if (j === undefined) best.set(key, i);
    else {
      const b = rows[j], w = b[figure];
      if (v > w || (v === w && r.run_id < b.run_id)) best.set(key, i);
    }
  }
  return [...best.values()].sort((a, b) => a - b).map((i) => rows[i]);
}
