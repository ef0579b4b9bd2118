"""Named SQL over the ingested DuckDB file (``site_gen.data.load``): the rows and figures the pages show.

Read-only: every function opens the database read-only and returns plain Python or pandas objects.
A missing database or an empty ``runs`` table gives empty results, never an error, so the site can
say "no results yet".
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

PRECISION_ORDER = ("FP32", "FP16", "BF16", "Mixed", "INT8", "FP8", "INT4", "FP4")

# Columns a page needs: filter dimensions, the table, tooltips and the derived sort keys. Optional ones
# (added later by other modules, e.g. the speed-of-light bound) are shipped only when present.
SITE_COLUMNS = (
    "run_id",
    "gpu",
    "model_name",
    "precision",
    "tp",
    "pp",
    "ep",
    "n_gpus",
    "isl",
    "osl",
    "workload",
    "num_requests",
    "engine",
    "engine_version",
    "version_key",
    "source_kind",
    "publisher",
    "throughput_basis",
    "output_tps",
    "output_tps_per_gpu",
    "output_tps_per_user",
)
OPTIONAL_COLUMNS = (
    "bound_output_tps",
    "pct_of_bound",
    "bound_note",  # why a run has no bound, or why it may be low for it (bench/contract/bound.py NOTES)
    "attention_dp",  # guide_topic_views
    # latency (site_gen.charts.latency_views): in flight, mean TTFT / TPOT / end-to-end, TPOT p99
    "concurrency",
    "ttft_ms_avg",
    "tpot_ms_avg",
    "tpot_ms_p99",
    "request_latency_ms_avg",
    # repeated runs (issue 30): samples behind the figure (1: a single sample) and the repetitions' range
    "samples",
    "output_tps_per_gpu_min",
    "output_tps_per_gpu_max",
    "output_tps_per_user_min",
    "output_tps_per_user_max",
)

# A run above 100 % of its speed-of-light bound is physically impossible (a source erratum): the page
# flags it with the run's own notes (why), or a generic sentence; null for every other run.
OVER_BOUND = "over_bound_note"
# Such a run is shown (flagged) but never wins a "best" or a headline: the home figures, the best bars and
# lines (charts.WITHIN_BOUND, the same test in Vega), compare's values (compare.py and calc/compare.js).
MAX_PCT_OF_BOUND = 100


def within_bound(runs: pd.DataFrame) -> pd.DataFrame:
    """The runs that may be "best": all but those above ``MAX_PCT_OF_BOUND`` (no bound known: kept)."""
    if "pct_of_bound" not in runs.columns:
        return runs
    return runs[~(runs["pct_of_bound"] > MAX_PCT_OF_BOUND)]


OVER_BOUND_SQL = (
    "CASE WHEN r.pct_of_bound > 100 THEN coalesce({notes}, 'Above its speed-of-light bound: physically "
    f"impossible, most likely an error in the source.') END AS {OVER_BOUND}"
)

_RUNS_SQL = """
SELECT {columns},
       COALESCE(g.gpu_order, 999) AS gpu_order,
       COALESCE(list_position(?::VARCHAR[], r.precision), 99) AS precision_order,
       r.isl::BIGINT * 1000000 + r.osl AS workload_order
FROM runs r
LEFT JOIN (SELECT name, row_number() OVER (ORDER BY year, rowid) AS gpu_order FROM gpus) g ON g.name = r.gpu
ORDER BY gpu_order, r.model_name, precision_order, workload_order, r.tp, r.pp, r.version_key,
         r.publisher, r.run_id
"""


def _connect(db: Path) -> Any:
    import duckdb

    con = duckdb.connect(str(db), read_only=True)
    # DuckDB draws a progress bar on stdout for a query of over 2 s (the site's runs at a million): a
    # build's log is no terminal. A setting of the connection, not of the database: another connection
    # to the same file in this process may be open with the default configuration.
    con.execute("SET enable_progress_bar = false")
    return con


def _columns(con: Any, table: str) -> list[str]:
    return [r[0] for r in con.execute(f"DESCRIBE {table}").fetchall()]


def site_runs(db: Path) -> pd.DataFrame:
    """Every run with the columns the site uses, in display order (GPU generation, model, ...)."""
    import pandas as pd

    if not Path(db).exists():
        return pd.DataFrame(columns=[*SITE_COLUMNS, "gpu_order", "precision_order", "workload_order"])
    con = _connect(db)
    try:
        have = set(_columns(con, "runs"))
        cols = [c for c in (*SITE_COLUMNS, *OPTIONAL_COLUMNS) if c in have]
        select = [f"r.{c}" for c in cols]
        if "pct_of_bound" in have:
            select.append(OVER_BOUND_SQL.format(notes="r.notes" if "notes" in have else "NULL"))
        sql = _RUNS_SQL.format(columns=", ".join(select))
        return frame_in_chunks(lambda: con.execute(sql, [list(PRECISION_ORDER)]))
    finally:
        con.close()


def frame_in_chunks(run: Callable[[], Any], rows: int | None = None) -> pd.DataFrame:
    """``run().df()`` (``run``: executes the query, returns the cursor), converted about ``rows`` rows at a
    time and joined: ``df()`` of a million site runs held DuckDB's whole result beside its whole conversion
    (1.97 GB at its peak for a 0.45 GB frame: the 1M build's largest moment); in chunks 1.26 GB. The same
    frame: when a column's chunks differ in dtype (a chunk where a text column is all NULL is ``object``,
    the whole is ``str``), the query runs again through ``df()``."""
    import pandas as pd

    cursor = run()
    vectors = max(1, (rows or BATCH_ROWS) // 2048)  # DuckDB converts in vectors of 2,048 rows
    chunks = [cursor.fetch_df_chunk(vectors)]
    while len(chunks[-1]):
        chunks.append(cursor.fetch_df_chunk(vectors))
    if len(chunks) <= 2:  # no row (the empty frame as df() types it), or one chunk: df() itself
        return chunks[0]
    chunks.pop()
    if any(not c.dtypes.equals(chunks[0].dtypes) for c in chunks[1:]):
        del chunks, cursor
        return run().df()
    return pd.concat(chunks, ignore_index=True)


# The estimate columns the explorer's table and tooltips show beside an estimate (site_gen.data.estimates).
# The badge "estimate (AIConfigurator {est_version}, ±{est_pct} % ...)" of every table row and whether it is
# held back (est_confidence; calc/estimates.js); the band's other figures are on the run card.
ESTIMATE_SITE_COLUMNS = ("est_confidence", "est_pct", "est_version")


def site_estimates(db: Path) -> pd.DataFrame:
    """Every estimate (``estimates`` table) with the site's columns and the band, in display order; an
    empty frame when the database has none (or predates the table). Never part of ``site_runs``:
    pages that aggregate never see an estimate."""
    import pandas as pd

    from site_gen.data.estimates import TABLE

    empty = pd.DataFrame(columns=[*SITE_COLUMNS, "gpu_order", "precision_order", "workload_order"])
    if not Path(db).exists():
        return empty
    con = _connect(db)
    try:
        tables = {r[0] for r in con.execute("SHOW TABLES").fetchall()}
        if TABLE not in tables:
            return empty
        have = set(_columns(con, TABLE))
        cols = [c for c in (*SITE_COLUMNS, *OPTIONAL_COLUMNS, *ESTIMATE_SITE_COLUMNS) if c in have]
        sql = _RUNS_SQL.format(columns=", ".join(f"r.{c}" for c in cols)).replace(
            "FROM runs r", f"FROM {TABLE} r"
        )
        return con.execute(sql, [list(PRECISION_ORDER)]).df()
    finally:
        con.close()


def gpu_names(db: Path) -> list[str]:
    """Every GPU of the registry, oldest generation first: the pinned colour domain of every chart."""
    if not Path(db).exists():
        from bench.contract import registry

        return [g.name for g in registry.gpus().entries]
    con = _connect(db)
    try:
        return [r[0] for r in con.execute("SELECT name FROM gpus ORDER BY year, rowid").fetchall()]
    finally:
        con.close()


def gpu_info(db: Path) -> dict[str, dict[str, Any]]:
    """The GPU registry as ingested, keyed by canonical name (facts for the per-GPU pages)."""
    if not Path(db).exists():
        return {}
    con = _connect(db)
    try:
        df = con.execute("SELECT * FROM gpus").df()
    finally:
        con.close()
    return {r["name"]: r for r in df.to_dict("records")}


DETAILS_SQL = "SELECT * FROM runs ORDER BY run_id"
# With estimates: every run and every estimate (a card says which, with its band: ``basis``, ``est_*``)
DETAILS_WITH_ESTIMATES_SQL = "SELECT * FROM runs_and_estimates ORDER BY run_id"


def _details_table(con: Any) -> str:
    """The run cards' table: the view of runs and estimates where the database has estimates."""
    from site_gen.data.estimates import TABLE, VIEW

    names = {r[0] for r in con.execute("SHOW TABLES").fetchall()}
    if VIEW in names and con.execute(f"SELECT count(*) FROM {TABLE}").fetchall()[0][0]:
        return VIEW
    return "runs"


def _details_sql(con: Any) -> str:
    """The run cards' query (``_details_table``, by run id)."""
    return DETAILS_WITH_ESTIMATES_SQL if _details_table(con) != "runs" else DETAILS_SQL


BATCH_ROWS = 100_000


def detail_rows(db: Path) -> int:
    """How many rows ``run_details`` has (runs, and estimates where there are any): none, no card."""
    if not Path(db).exists():
        return 0
    con = _connect(db)
    try:
        return int(con.execute(f"SELECT count(*) FROM {_details_table(con)}").fetchall()[0][0])
    finally:
        con.close()


def run_details(db: Path) -> pd.DataFrame:
    """Every column of every run (the run cards), with the GPU registry's order for a stable file."""
    import pandas as pd

    if not Path(db).exists():
        return pd.DataFrame(columns=["run_id"])
    con = _connect(db)
    try:
        return con.execute(_details_sql(con)).df()
    finally:
        con.close()


def run_detail_batches(
    db: Path, rows: int = BATCH_ROWS, arrow: Callable[[Any], bool] | None = None, extra: str = ""
) -> Iterator[Any]:
    """``run_details`` in batches of about ``rows`` rows, in the same order: a million runs of every
    column never sit in memory at once. Pyarrow RecordBatches when ``arrow(schema)`` accepts the table's
    Arrow schema (DuckDB's Arrow export is about 3x cheaper than its pandas conversion), else pandas
    frames with DuckDB's own conversion, chunk by chunk (the column types of ``run_details``). Nothing
    when the database is missing. ``extra``: more columns after ``*`` (``site_gen.data.cite.columns_sql``)."""
    if not Path(db).exists():
        return
    con = _connect(db)
    try:
        # runs, or runs and estimates (a card says which); "cite this" columns after "*"
        select = f"SELECT *{extra} FROM {_details_table(con)}"
        ranges = _run_id_ranges(con, rows, _details_table(con))
        queries = [(f"{select} WHERE {where} ORDER BY run_id", params) for where, params in ranges]
        yield from _batches(con, queries, rows, arrow, select)
    finally:
        con.close()


def _batches(
    con: Any,
    queries: list[tuple[str, list[Any]]],
    rows: int,
    arrow: Callable[[Any], bool] | None,
    select: str,
) -> Iterator[Any]:
    """The rows of ``queries`` (SQL, parameters), one after another, in batches of about ``rows``: Arrow
    record batches where ``arrow`` accepts the schema of ``select``, else pandas frames."""
    if arrow is not None and arrow(con.sql(f"{select} LIMIT 0").to_arrow_reader(1).schema):
        for sql, params in queries:
            yield from con.sql(sql, params=params).to_arrow_reader(rows)
        return
    for sql, params in queries:
        cursor = con.execute(sql, params)
        while True:
            # rows are fetched in DuckDB vectors of 2,048 (duckdb.__standard_vector_size__)
            batch = cursor.fetch_df_chunk(max(1, rows // 2048))
            if batch.empty:
                break
            yield batch


def card_batches(
    db: Path,
    parts: int,
    part_of: Callable[[list[str], int], Any],
    rows: int = BATCH_ROWS,
    arrow: Callable[[Any], bool] | None = None,
    extra: str = "",
) -> Iterator[Any]:
    """``run_detail_batches``' rows grouped by run-card partition (``part_of(run ids, parts)``: each id's
    partition, ``dataset.card_part_array``): the partitions in order, each one's runs in run id order,
    then the runs without an id. The partitions' files are the same as from ``run_detail_batches`` (each
    partition's runs in the same order), but a batch of about ``rows`` runs holds a few whole partitions
    instead of a slice of every one: at a million runs, 1,000 partitions met by each of 10 batches made
    ~1.1 million pieces of text (a partition's column in a batch) to encode, keep and join again."""
    import numpy as np
    import pyarrow as pa

    if not Path(db).exists():
        return
    con = _connect(db)
    try:
        table = _details_table(con)
        # DISTINCT: an id twice here would bring its runs twice out of the join
        ids = con.sql(f"SELECT DISTINCT run_id FROM {table} WHERE run_id IS NOT NULL").to_arrow_table()
        ids = ids.column(0).combine_chunks()
        # the ids' partitions ``rows`` at a time: their Python strings never all at once
        part = np.concatenate(
            [np.zeros(0, np.int32)]
            + [
                np.asarray(part_of([str(v) for v in ids.slice(i, rows).to_pylist()], parts), np.int32)
                for i in range(0, len(ids), rows)
            ]
        )
        con.register("card_parts", pa.table({"run_id": ids, "part": part}))
        # consecutive partitions of about ``rows`` runs in one query (a partition is never cut between two)
        counts = np.bincount(part, minlength=parts)
        group = (np.cumsum(counts) - counts) // max(1, rows)  # where each partition begins, in batches
        cuts = [0, *(np.flatnonzero(np.diff(group)) + 1).tolist(), parts]
        select = f"SELECT d.*{extra} FROM {table} d JOIN card_parts p USING (run_id)"
        queries = [
            (f"{select} WHERE p.part >= ? AND p.part < ? ORDER BY p.part, d.run_id", [lo, hi])
            for lo, hi in itertools.pairwise(cuts)
        ]
        # as ``run_detail_batches`` reads them (the same query: the same order, whatever DuckDB's sort
        # makes of ties)
        queries.append((f"SELECT *{extra} FROM {table} WHERE run_id IS NULL ORDER BY run_id", []))
        yield from _batches(con, queries, rows, arrow, f"SELECT *{extra} FROM {table}")
    finally:
        con.close()


def _run_id_ranges(con: Any, rows: int, table: str = "runs") -> list[tuple[str, list[str]]]:
    """``DETAILS_SQL``'s order cut into ranges of about ``rows`` runs each (WHERE clause, parameters), then
    the runs without an id (``ORDER BY`` puts them last). Each range is sorted alone: DuckDB's sort of
    every column of a million runs took about 2 GB at once; sorting the ids alone to find the cuts, then
    a range at a time, holds one range (run ids are unique: ingest refuses duplicates)."""
    cuts = [
        r[0]
        for r in con.execute(
            f"SELECT run_id FROM (SELECT run_id, row_number() OVER (ORDER BY run_id) - 1 AS k FROM {table}"
            " WHERE run_id IS NOT NULL) WHERE k % ? = 0 ORDER BY run_id",
            [max(1, rows)],
        ).fetchall()
    ]
    ranges = [("run_id >= ? AND run_id < ?", [lo, hi]) for lo, hi in itertools.pairwise(cuts)]
    if cuts:
        ranges.append(("run_id >= ?", [cuts[-1]]))
    return [*ranges, ("run_id IS NULL", [])]
