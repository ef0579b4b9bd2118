"""The vectorised data-file encoder (``dataset.frame_file`` / ``Encoder``) against the per-value one it
replaces (``dataset.data_file(stem, dataset.encode(df))``, value by value through ``json.dumps``): the
same bytes, hence the same content-hash key, on the real results and on frames made to hit every case
(NaN and None, nullable ints and bools, floats at rounding ties and at every magnitude, dates, strings
that must stay escaped inside a ``<script>``-loaded file)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from site_gen.data import dataset, queries
from site_gen.data.load import ingest
from tests.site.conftest import ROOT

HOSTILE = ["a\u2028b", "\u2029", "</script><script>alert(1)</script>", 'q"uote\\back', "tab\tnl\n\x00\x1f",
           "한국어", "emoji \U0001f680", "", " ", "null", "1.5"]  # fmt: skip


def old(stem: str, df: pd.DataFrame) -> tuple[str, str]:
    return dataset.data_file(stem, dataset.encode(df))


def assert_same(df: pd.DataFrame, stem: str = "runs") -> str:
    key, text = old(stem, df)
    new = dataset.frame_file(stem, df)
    assert (new.key, new.text()) == (key, text)
    return text


@pytest.fixture(scope="module")
def real_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("dataset") / "llmbench.duckdb"
    ingest(ROOT / "results", db)
    return db


def test_real_results_encode_to_the_same_bytes(real_db: Path) -> None:
    runs = queries.site_runs(real_db)
    assert len(runs) > 0
    assert_same(runs)  # the explorer's and the views' file
    assert_same(runs[runs["gpu"] == runs["gpu"].iloc[0]].reset_index(drop=True))  # a GPU page's
    assert_same(queries.run_details(real_db), "cards")  # every column of every run


def streamed(db: Path, arrow: bool) -> str:
    enc = dataset.Encoder()
    kinds = set()
    for batch in queries.run_detail_batches(db, rows=1000, arrow=dataset.arrow_types if arrow else None):
        kinds.add(type(batch).__name__)
        enc.add(batch)
    assert kinds == {"RecordBatch" if arrow else "DataFrame"}
    return enc.finish("cards").text()


@pytest.mark.parametrize("arrow", [True, False], ids=["arrow", "pandas"])
def test_real_run_cards_streamed_in_batches_equal_the_whole_frame(real_db: Path, arrow: bool) -> None:
    assert streamed(real_db, arrow) == old("cards", queries.run_details(real_db))[1]


@pytest.mark.parametrize("arrow", [True, False], ids=["arrow", "pandas"])
def test_hostile_runs_table_streamed_from_duckdb(tmp_path: Path, arrow: bool) -> None:
    """A ``runs`` table of every case below, read back from DuckDB in batches of 1,000 rows (Arrow or
    pandas) against the per-value encoder over DuckDB's whole-frame pandas conversion."""
    db = hostile_db(tmp_path)
    assert streamed(db, arrow) == old("cards", queries.run_details(db))[1]


def hostile_db(tmp_path: Path, n: int = 2600) -> Path:
    import duckdb

    frame = pd.concat([numbers_frame().head(n).reset_index(drop=True), strings_frame(n)], axis=1)
    con = duckdb.connect(str(tmp_path / "db.duckdb"))
    con.register("frame", frame)
    con.execute("CREATE TABLE runs AS SELECT row_number() OVER () AS run_id, * FROM frame")
    con.execute("ALTER TABLE runs ADD COLUMN nothing VARCHAR")  # NULL in every row
    con.close()
    return tmp_path / "db.duckdb"


def partitions_one_encoder_each(batches: list, parts: int) -> list[dataset.DataFile]:
    """The run cards' partitions as ``PartitionedEncoder`` wrote them before it encoded a batch once:
    each partition's rows of each batch (``card_part``, in the batch's order) added to that partition's
    own ``Encoder``."""
    encoders = [dataset.Encoder() for _ in range(parts)]
    for batch in batches:
        ids = batch.column("run_id").to_pylist() if hasattr(batch, "schema") else batch["run_id"].tolist()
        part = np.array([dataset.card_part(str(i), parts) for i in ids])
        for p in np.unique(part):
            rows = np.flatnonzero(part == p)
            encoders[p].add(batch.take(rows) if hasattr(batch, "schema") else batch.iloc[rows])
    names = next(list(e.columns) for e in encoders if e.columns)
    for enc in encoders:
        enc.columns = enc.columns or {name: dataset._Column() for name in names}
    return [enc.finish(f"cards-{i}") for i, enc in enumerate(encoders)]


@pytest.mark.parametrize("parts", [1, 7, 1000])
@pytest.mark.parametrize("arrow", [True, False], ids=["arrow", "pandas"])
def test_card_partitions_encoded_once_a_batch_are_each_partitions_own_encoding(
    tmp_path: Path, arrow: bool, parts: int
) -> None:
    """``PartitionedEncoder`` encodes a batch column by column once, its rows sorted by partition: the
    same files (keys and bytes) as an ``Encoder`` per partition fed that partition's rows, over every
    case of the hostile table in batches (Arrow: 700 rows; pandas: 2,048); with 1,000 partitions most
    are empty in a batch and some throughout; strings first seen by a partition in a later batch."""
    batches = list(
        queries.run_detail_batches(
            hostile_db(tmp_path), rows=700, arrow=dataset.arrow_types if arrow else None
        )
    )
    assert len(batches) >= 2 and {type(b).__name__ for b in batches} == {
        "RecordBatch" if arrow else "DataFrame"
    }
    enc = dataset.PartitionedEncoder(parts)
    for batch in batches:
        enc.add(batch)
    files = enc.finish("cards")
    want = partitions_one_encoder_each(batches, parts)
    assert [(f.key, f.text()) for f in files] == [(f.key, f.text()) for f in want]
    assert enc.rows == sum(len(b) for b in batches) == 2600


@pytest.mark.parametrize("parts", [1, 7, 1000])
@pytest.mark.parametrize("arrow", [True, False], ids=["arrow", "pandas"])
def test_card_batches_give_the_same_partitions_each_from_one_query(
    tmp_path: Path, arrow: bool, parts: int
) -> None:
    """``queries.card_batches`` reads the run cards' rows grouped by partition: the same files (keys and
    bytes) as the rows in run id order (``run_detail_batches``), which every batch meets every partition
    of, over every case of the hostile table with text ids and some runs without one (last, in both);
    the partitions come in order and the runs without an id after them."""
    import duckdb

    db = hostile_db(tmp_path)
    with duckdb.connect(str(db)) as con:
        con.execute(
            "CREATE OR REPLACE TABLE runs AS SELECT CASE WHEN run_id % 97 = 0 THEN NULL"
            " ELSE printf('%012x', run_id * 2654435761 % 4294967296) END AS run_id, * EXCLUDE (run_id)"
            " FROM runs"
        )
    encode = dataset.arrow_types if arrow else None
    by_id = list(queries.run_detail_batches(db, rows=700, arrow=encode))
    by_part = list(queries.card_batches(db, parts, dataset.card_part_array, rows=700, arrow=encode))

    def files(batches: list) -> list[tuple[str, str]]:
        enc = dataset.PartitionedEncoder(parts)
        for batch in batches:
            enc.add(batch)
        return [(f.key, f.text()) for f in enc.finish("cards")]

    assert files(by_part) == files(by_id)
    ids = [i for b in by_part for i in (b.column("run_id").to_pylist() if arrow else b["run_id"].tolist())]
    named = [i for i in ids if isinstance(i, str)]
    assert len(ids) == 2600 and ids[len(named) :] == [None if arrow else ids[-1]] * (2600 - len(named))
    order = [dataset.card_part(i, parts) for i in named]
    assert order == sorted(order) and len(named) == 2600 - 2600 // 97


def numbers_frame() -> pd.DataFrame:
    ties = [2.675, 1.005, 0.125, 0.375, 0.285, 1.0049999999999999, 2.5, -1.5, -0.001, -0.005, 0.005, 1e-9]
    big = [9.99e12, 1e13, 123456789012.345, 1e15 + 0.5, 2.0**53, 1e16, 1e20, 1e300, -1e300]
    rng = np.random.default_rng(29)
    rand = np.concatenate([rng.normal(0, 10.0**e, 200) for e in range(-3, 15)])
    # halves of a cent at several magnitudes: every tie's neighbours too
    cents = np.array([(n + 0.5) / 100 for n in range(0, 100_000, 37)])
    # exact ties: multiples of 1/8 (a figure x.5 per 4 GPUs), at 2**40 and beyond too, and their neighbours
    eighths = np.concatenate(
        [np.arange(-4_001, 40_000, 3) / 8, 2.0**40 + np.arange(-3, 4) / 8, [2.0**45 + 0.125]]
    )
    floats = np.concatenate(
        [
            ties,
            big,
            rand,
            cents,
            np.nextafter(cents, 0),
            np.nextafter(cents, 1),
            eighths,
            np.nextafter(eighths, 0),
        ]
    )
    n = len(floats)
    df = pd.DataFrame(
        {
            "f": floats,
            "f_nan": np.where(np.arange(n) % 3 == 0, np.nan, floats),
            "f_inf": np.where(
                np.arange(n) % 5 == 0, np.inf, np.where(np.arange(n) % 7 == 0, -np.inf, floats)
            ),
            "f32": np.clip(floats, -1e30, 1e30).astype(np.float32),
            "i": np.arange(n, dtype=np.int64) - n // 2,
            "i32_na": pd.array([None if k % 4 == 0 else k * 1000 for k in range(n)], dtype="Int32"),
            "b": np.arange(n) % 2 == 0,
            "b_na": pd.array([None if k % 3 == 0 else k % 2 == 0 for k in range(n)], dtype="boolean"),
            "i_big": np.array([2**62, -(2**62), 0] * (n // 3) + [1] * (n % 3), dtype=np.int64),
        }
    )
    return df


def test_numbers_nulls_and_rounding() -> None:
    text = assert_same(numbers_frame())
    assert "NaN" not in text  # NaN is null; inf is written as json.dumps writes it (as before)


def strings_frame(n: int = 50) -> pd.DataFrame:
    strings = [HOSTILE[k % len(HOSTILE)] if k % 6 else None for k in range(n)]
    return pd.DataFrame(
        {
            "s": pd.array(strings, dtype="str"),
            "obj": pd.Series(strings, dtype=object),
            "mixed": pd.Series([k if k % 3 else str(k) for k in range(n)], dtype=object),
            "date": pd.to_datetime(
                [None if k % 7 == 0 else f"2026-0{k % 9 + 1}-1{k % 10}" for k in range(n)]
            ),
            # several times of one day: one text, however many distinct times (and a missing one)
            "ts": pd.to_datetime(
                [
                    None if k % 11 == 0 else f"2026-01-{k % 3 + 14} {k % 24:02d}:{k % 60:02d}:59"
                    for k in range(n)
                ]
            ),
            "all_null": pd.Series([None] * n, dtype=object),
            '\u2028col "</script>': np.arange(n),
        }
    )


def test_strings_dates_and_escaping() -> None:
    text = assert_same(strings_frame())
    # the escaping matters whatever the old encoder did: strings from strangers' result files end up in
    # a <script>-loaded file, where a raw U+2028/U+2029 ends a line in older JavaScript parsers
    assert "\u2028" not in text and "\u2029" not in text
    payload = json.loads(text)
    assert payload["columns"]["s"]["dict"][:3] == [HOSTILE[1], HOSTILE[2], HOSTILE[3]]


def test_empty_frames_and_batches() -> None:
    assert_same(pd.DataFrame({"a": pd.Series([], dtype=float), "s": pd.Series([], dtype=object)}))
    assert_same(pd.DataFrame(index=range(3)))  # rows, no column
    df = pd.DataFrame(
        {"s": ["b", None, "a", "b", "c", "a", None, "d"], "x": [1.234, 2, math.nan, 4, 5, 6, 7, 8.999]}
    )
    enc = dataset.Encoder()
    for start in range(0, len(df), 3):  # a new string in each batch: the dictionary keeps first-seen order
        enc.add(df.iloc[start : start + 3])
    assert enc.finish("runs").text() == old("runs", df)[1]
    with pytest.raises(ValueError, match="same columns"):
        enc = dataset.Encoder()
        enc.add(df)
        enc.add(df[["x", "s"]])


def test_a_spilled_file_writes_the_same_bytes(tmp_path: Path, monkeypatch) -> None:
    """Files spilled one after the other into one spool, read back between the writes (a page's text is
    read while later pages still spill), and written into the site a few bytes at a time."""
    monkeypatch.setattr(dataset, "SPOOL_READ", 1000)
    spool = dataset.Spool()
    frames = [strings_frame(), numbers_frame(), strings_frame().head(3)]
    files = []
    for df in frames:
        data = dataset.frame_file("runs", df)
        data.spill(spool)
        assert data.parts == [] and data.text() == old("runs", df)[1]
        files.append(data)
    for i, (data, df) in enumerate(zip(files, frames, strict=True)):
        data.write(tmp_path / f"site-{i}.json")
        assert (tmp_path / f"site-{i}.json").read_text(encoding="utf-8") == old("runs", df)[1]
    assert spool.size == sum(len(old("runs", df)[1].encode()) for df in frames) > 3 * 1000


def _rows(text: str) -> list[dict]:
    """A data file's rows, decoded as the page script does (dictionary columns looked up)."""
    payload = json.loads(text)
    cols = payload["columns"]
    get = {
        name: (lambda i, c=c: c[i])
        if isinstance(c, list)
        else (lambda i, c=c: None if c["codes"][i] is None else c["dict"][c["codes"][i]])
        for name, c in cols.items()
    }
    return [{name: g(i) for name, g in get.items()} for i in range(payload["n"])]


def test_a_large_frame_is_written_in_parts_that_join_to_the_same_rows() -> None:
    # 7 rows in parts of 3: 3 files (3, 3, 1 rows), each with its own dictionaries; joined in order they
    # are the rows of the one-file encoding of the same frame
    df = pd.DataFrame(
        {
            "run_id": [f"r{i}" for i in range(7)],
            "gpu": ["A", "B", "A", "C", "C", "B", None],
            "tps": [1.234, None, 3.0, 4.5, 5.555, 6.0, 7.0],
            "tp": pd.array([1, 2, None, 4, 8, 1, 2], dtype="Int64"),
        }
    )
    parts = dataset.frame_files("runs", df, rows=3)
    assert [len(_rows(p.text())) for p in parts] == [3, 3, 1]
    assert len({p.key for p in parts}) == 3
    assert [r for p in parts for r in _rows(p.text())] == _rows(dataset.frame_file("runs", df).text())
    # at most ``rows`` rows: one file, the very file frame_file writes (same key: today's sites unchanged)
    (one,) = dataset.frame_files("runs", df, rows=7)
    assert (one.key, one.text()) == (
        dataset.frame_file("runs", df).key,
        dataset.frame_file("runs", df).text(),
    )


@pytest.mark.parametrize("background", [False, True], ids=["in-line", "in-a-thread"])
def test_the_run_cards_give_the_freed_heap_back_once_encoded(
    real_db: Path, monkeypatch, background: bool
) -> None:
    """``Site.card_files`` trims the C heap after the encoding (its ~10^6 freed chunks at 1M runs were
    carried to the end of the build), once the files are on disk; the files are those of a plain
    encoding, whether encoded when asked for or in a thread meanwhile (``start_cards``, as a build does)."""
    from site_gen.charts.specs import ChartContext
    from site_gen.data import cite
    from site_gen.pages.markers import Site

    calls = []
    monkeypatch.setattr(dataset, "release_freed_heap", lambda: calls.append(True) or True)
    runs = queries.site_runs(real_db)
    site = Site(runs=runs, ctx=ChartContext(gpus=()), db=real_db)
    if background:
        site.start_cards()
    keys = site.card_files()
    assert calls == [True] and len(keys) == dataset.card_parts(len(runs))
    kept = [site.files[dataset.data_name(k)] for k in keys]
    assert all(f.spool is not None and not f.parts for f in kept)  # spilled, not held in memory
    enc = dataset.PartitionedEncoder(dataset.card_parts(len(runs)))
    for batch in queries.run_detail_batches(real_db, arrow=dataset.arrow_types, extra=cite.columns_sql("")):
        enc.add(batch)
    assert [f.text() for f in kept] == [f.text() for f in enc.finish("cards")]


def test_run_cards_that_fail_in_a_thread_fail_the_page_that_asks_for_them(tmp_path: Path) -> None:
    """The background encoding's error is the build's, raised where the cards are taken, as when encoded
    there: a database that is not one (a truncated copy) is named, not a page silently without cards."""
    from site_gen.charts.specs import ChartContext
    from site_gen.pages.markers import Site

    bad = tmp_path / "runs.duckdb"
    bad.write_bytes(b"not a database" * 100)
    errors = []
    for background in (False, True):
        site = Site(runs=pd.DataFrame({"run_id": ["a"]}), ctx=ChartContext(gpus=()), db=bad)
        if background:
            site.start_cards()
        with pytest.raises(Exception) as e:
            site.card_files()
        errors.append((type(e.value), str(bad) in str(e.value)))
    assert errors[0] == errors[1] and errors[0][1]


def test_release_freed_heap_trims_on_glibc_and_is_a_no_op_without_malloc_trim(monkeypatch) -> None:
    import ctypes
    import platform

    assert dataset.release_freed_heap() is (platform.libc_ver()[0] == "glibc")

    class NoTrim:  # musl or macOS: no such symbol
        def __init__(self, name: object) -> None:
            pass

    monkeypatch.setattr(ctypes, "CDLL", NoTrim)
    assert dataset.release_freed_heap() is False


@pytest.mark.parametrize("rows", [2048, 4096, 100_000])
def test_the_runs_frame_converted_in_chunks_is_the_whole_conversion(rows: int) -> None:
    """``queries.frame_in_chunks`` (``site_runs``) gives ``df()``'s frame, dtypes included: joined chunks
    where every chunk has the same dtypes, the whole ``df()`` where they differ (a chunk where a text column
    is all NULL is object, the whole frame str; a chunk without NULLs keeps integers, another has floats)."""
    import duckdb

    con = duckdb.connect()
    con.execute(
        "CREATE TABLE t AS SELECT i, CASE WHEN i > 5000 AND i % 7 = 0 THEN NULL ELSE i END AS int_late_null,"
        " CASE WHEN i > 5000 THEN NULL ELSE i % 2 = 0 END AS bool_late_null,"
        " CASE WHEN i < 3000 THEN NULL ELSE 'x' || i END AS str_early_null,"
        " CASE WHEN i > 6000 THEN NULL ELSE i / 3.0 END AS dbl, DATE '2024-01-01' + (i % 30)::INT AS d,"
        " CASE WHEN i % 2 = 0 THEN NULL ELSE i::SMALLINT END AS small, NULL AS allnull FROM range(10000) r(i)"
    )
    for sql in (
        "SELECT * FROM t ORDER BY i",
        "SELECT * FROM t WHERE false",
        "SELECT i, dbl, small, d FROM t ORDER BY i",
    ):
        got = queries.frame_in_chunks(lambda sql=sql: con.execute(sql), rows)
        pd.testing.assert_frame_equal(got, con.execute(sql).df(), check_exact=True)


def test_the_site_runs_of_today_are_dfs_frame(real_db: Path) -> None:
    import duckdb

    runs = queries.site_runs(real_db)
    calls = []

    def run() -> object:
        calls.append(1)
        return duckdb.connect(str(real_db), read_only=True).execute("SELECT * FROM runs ORDER BY run_id")

    pd.testing.assert_frame_equal(queries.frame_in_chunks(run, 2048), run().df(), check_exact=True)
    assert len(runs) > 0 and len(calls) in (2, 3)  # chunked (then df() to compare), or df() again


def test_card_text_waits_in_an_unnamed_file_not_in_memory(tmp_path: Path) -> None:
    """The run cards' encoded text waits on disk until ``finish`` (~0.4 GB at a million runs, which the
    build's peak counted): after every batch no column holds text in memory, the spool holds it, and
    the spool has no name in the temporary folder (a build killed with -9 leaves nothing there);
    ``finish_each`` gives the files one at a time and closes the spool after the last."""
    import os
    import tempfile

    before = set(os.listdir(tempfile.gettempdir()))
    enc = dataset.PartitionedEncoder(7)
    for batch in queries.run_detail_batches(hostile_db(tmp_path), rows=700, arrow=dataset.arrow_types):
        enc.add(batch)
    columns = [c for e in enc.encoders for c in e.columns.values()]
    assert columns and all(c.chunks == [] for c in columns) and enc.spool.size > 100_000
    assert sum(c.refs[i] for c in columns for i in range(1, len(c.refs), 2)) <= enc.spool.size
    assert not [n for n in set(os.listdir(tempfile.gettempdir())) - before if "llmbench-spool" in n]
    files = enc.finish_each("cards")
    first = next(files)
    assert first.key.startswith("cards-0.") and not enc.spool.file.closed
    assert len(list(files)) == 6 and enc.spool.file.closed
