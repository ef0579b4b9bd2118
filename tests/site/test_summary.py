"""The explorer's first view at scale (issue 29): ``dataset.best_per_cell``, the best run of each GPU x
model x precision x workload, against DuckDB's own ``DISTINCT ON`` over the same frame (the real results
and a hand-made frame with a tie, a cell without figures and missing values), and its size bounded by
the cells, not by the runs in them."""

from __future__ import annotations

import duckdb
import pandas as pd
import pytest

from site_gen.data import dataset, queries
from site_gen.data.load import ingest
from tests.site.conftest import ROOT

# DuckDB's answer: per cell the run of the highest figure (ties: the smallest run id), and the cell's runs.
BEST_SQL = """
WITH sizes AS (SELECT gpu, model_name, precision, workload, count(*) AS cell_runs
               FROM f GROUP BY ALL)
SELECT DISTINCT ON (f.gpu, f.model_name, f.precision, f.workload) f.run_id, f.output_tps_per_gpu, s.cell_runs
FROM f JOIN sizes s USING (gpu, model_name, precision, workload)
WHERE f.output_tps_per_gpu IS NOT NULL
ORDER BY f.gpu, f.model_name, f.precision, f.workload, f.output_tps_per_gpu DESC, f.run_id
"""


def duckdb_best(frame: pd.DataFrame) -> set[tuple]:
    con = duckdb.connect()
    con.register("f", frame)
    return set(con.execute(BEST_SQL).fetchall())


def ours(frame: pd.DataFrame) -> set[tuple]:
    best = dataset.best_per_cell(frame)
    return set(best[["run_id", "output_tps_per_gpu", "cell_runs"]].itertuples(index=False, name=None))


@pytest.fixture(scope="module")
def real_runs(tmp_path_factory: pytest.TempPathFactory) -> pd.DataFrame:
    db = tmp_path_factory.mktemp("summary") / "llmbench.duckdb"
    ingest(ROOT / "results", db)
    return queries.site_runs(db)


def test_the_best_run_of_each_cell_is_duckdbs_on_the_real_results(real_runs: pd.DataFrame) -> None:
    best = dataset.best_per_cell(real_runs)
    assert ours(real_runs) == duckdb_best(real_runs)
    assert list(best.columns) == [*real_runs.columns, "cell_runs"]  # every column: the same specs draw it
    assert not best.duplicated(list(dataset.SUMMARY_CELL)).any()


def test_ties_missing_figures_and_a_cell_without_any() -> None:
    # cell A: a tie at 30 (run a2 and a3: the smaller id wins) beside a missing figure; cell B: no figure at
    # all (left out); cell C: one run. Hand-worked: {a2: 30, 3 runs}, {c1: 5, 1 run}.
    frame = pd.DataFrame(
        {
            "run_id": ["a3", "a1", "a2", "b1", "b2", "c1", "a4"],
            "gpu": ["G", "G", "G", "G", "G", "H", "G"],
            "model_name": ["M", "M", "M", "N", "N", "M", "M"],
            "precision": ["FP8"] * 7,
            "workload": ["128/128"] * 7,
            "output_tps_per_gpu": [30.0, 10.0, 30.0, None, None, 5.0, None],
        }
    )
    assert ours(frame) == {("a2", 30.0, 4), ("c1", 5.0, 1)}
    assert ours(frame) == duckdb_best(frame)


def test_its_size_follows_the_cells_not_the_runs_in_them(real_runs: pd.DataFrame) -> None:
    # the same runs ten times over (other ids, lower figures): the same best runs, the same file size
    # but for the cell counts' digits
    copies = [real_runs] + [
        real_runs.assign(
            run_id=real_runs["run_id"] + f"-{k}", output_tps_per_gpu=real_runs["output_tps_per_gpu"] / 2
        )
        for k in range(1, 10)
    ]
    many = pd.concat(copies, ignore_index=True)
    one, ten = dataset.best_per_cell(real_runs), dataset.best_per_cell(many)
    assert list(one["run_id"]) == list(ten["run_id"])
    assert list(ten["cell_runs"]) == [10 * n for n in one["cell_runs"]]
    small = len(dataset.frame_file("summary", one).text())
    assert len(dataset.frame_file("summary", ten).text()) < small * 1.05


@pytest.mark.parametrize("numbered", [False, True], ids=["cells-found", "cells-given"])
@pytest.mark.parametrize(("column", "sort_column"), [("tp", None), ("engine_version", "version_key")])
def test_one_more_dimension_counts_and_best_runs_are_duckdbs(
    real_runs: pd.DataFrame, column: str, sort_column: str | None, numbered: bool
) -> None:
    """``summary_by``: the runs of each summary cell by value (DuckDB's GROUP BY over the cells that have a
    figure) and, per value, DuckDB's best run of each cell among that value's runs; alike when the caller
    numbers the cells once (``dataset.cells``, as the explorer does for every dimension)."""
    numbers = dataset.cells(real_runs) if numbered else None
    best = dataset.best_per_cell(real_runs, cell=numbers)
    counts, parts = dataset.summary_by(real_runs, best, column, sort_column, numbers)
    cell = list(dataset.SUMMARY_CELL)
    named = counts.assign(**{c: best[c].to_numpy()[counts["cell"]] for c in cell})
    got = set(named[[*cell, column, "cell_runs"]].itertuples(index=False, name=None))
    con = duckdb.connect()
    con.register("f", real_runs)
    want = con.execute(
        f"SELECT gpu, model_name, precision, workload, {column}, count(*) FROM f"
        " WHERE (gpu, model_name, precision, workload) IN (SELECT (gpu, model_name, precision, workload)"
        " FROM f WHERE output_tps_per_gpu IS NOT NULL) GROUP BY ALL"
    ).fetchall()
    assert {tuple(None if pd.isna(x) else x for x in r) for r in got} == set(want)
    assert len(parts) == real_runs[column].nunique() >= 2
    for value, part in parts.items():
        mine = set(part[["run_id", "output_tps_per_gpu", "cell_runs"]].itertuples(index=False, name=None))
        assert mine == duckdb_best(real_runs[real_runs[column] == value]), value
        assert not part.duplicated(cell).any()
    if sort_column:  # the filter bar orders the values by it: each value keeps its own
        assert counts.groupby(column)[sort_column].nunique().max() == 1
