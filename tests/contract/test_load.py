"""site_gen.data.load: the real database from results/, derived columns, and all-or-nothing ingest."""

from __future__ import annotations

import shutil
from pathlib import Path

import duckdb
import pytest

from bench.cli import app
from bench.contract.resultfile import check_file
from bench.errors import ProblemsError
from site_gen.data.load import RUN_COLUMNS, flatten, ingest, write_db
from tests.conftest import RESULTS

from .conftest import KISTI_CSV, NVIDIA_CSV, configurations
from .test_resultfile import BAD, make_bad


def _one(db: Path, sql: str, params: list | None = None) -> object:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute(sql, params or []).fetchall()
    finally:
        con.close()


def test_every_imported_run_is_in_the_database_with_per_source_counts(real_db: Path) -> None:
    rows = dict(
        _one(
            real_db,
            "SELECT publisher, count(*) FROM runs WHERE source_kind = 'published'"
            " AND publisher IN ('KISTI', 'NVIDIA') GROUP BY 1",
        )
    )
    # one run per configuration of the imported tables (NVIDIA's blog: 12 rows are 4 runs)
    assert rows == {"KISTI": configurations(KISTI_CSV), "NVIDIA": configurations(NVIDIA_CSV)}
    assert _one(
        real_db, "SELECT count(DISTINCT run_id) = count(*), max(runs) = count(*) FROM runs, meta"
    ) == [(True, True)]


@pytest.mark.parametrize(
    ("where", "value"),
    [
        (
            "gpu = 'H200 SXM 141GB' AND model = 'meta-llama/Llama-3.1-8B-Instruct' AND precision = 'FP8'",
            29103.0,
        ),
        (
            "gpu = 'V100 SXM2 32GB' AND model = 'meta-llama/Llama-3.1-8B-Instruct' AND precision = 'FP16'",
            10607.0,
        ),
    ],
)
def test_kisti_spot_values_are_exact(real_db: Path, where: str, value: float) -> None:
    tp = 1 if "H200" in where else 8
    sql = f"SELECT output_tps FROM runs WHERE publisher = 'KISTI' AND {where} AND tp = ?"
    sql += " AND workload = '128/128'"
    assert _one(real_db, sql, [tp]) == [(value,)]


def test_derived_columns(real_db: Path) -> None:
    # NVIDIA 1.2 gives per-GPU figures: the all-GPU figure is derived from them, never the reverse. Its
    # file writes the release "1.2", shown as the tag's spelling "1.2.0" (v1.2.0).
    row = _one(
        real_db,
        "SELECT n_gpus, throughput_basis, output_tps_per_gpu, output_tps, attention_dp, ep, architecture, "
        "gpu_year, workload, gpu_label, version_key FROM runs"
        " WHERE engine_version_file = '1.2' AND engine_version = '1.2.0' AND gpu = 'B200 180GB'"
        " AND model = 'deepseek-ai/DeepSeek-R1-0528' AND isl = 1024 AND osl = 1024",
    )
    assert row == [
        (4, "per_gpu", 5757.0, 5757.0 * 4, True, 4, "Blackwell", 2024, "1024/1024", "B200", "0001.0002.0000")
    ]
    kisti = _one(
        real_db,
        "SELECT DISTINCT throughput_basis, output_tps / n_gpus = output_tps_per_gpu FROM runs "
        "WHERE publisher = 'KISTI'",
    )
    assert kisti == [("total", True)]
    # the blog's runs give all three figures: each is shown as published, none derived from another
    blog = _one(
        real_db,
        "SELECT throughput_basis, output_tps, output_tps_per_gpu, output_tps_per_user FROM runs"
        " WHERE source_title LIKE '%DeepSeek-R1%' AND gpu = 'B200 180GB' AND attention_dp",
    )
    assert blog == [("total", 35611.5942, 4451.4493, 11.6701)]
    # the imported tables always give an all-GPU figure (a contributor's file may give per-user only)
    published = (
        "SELECT count(*) FROM runs WHERE source_kind = 'published' AND output_tps IS NULL"
        " AND publisher IN ('KISTI', 'NVIDIA')"
    )
    assert _one(real_db, published) == [(0,)]
    assert _one(real_db, "SELECT count(*) FROM runs WHERE n_gpus <> tp * pp") == [(0,)]


def test_a_known_source_error_is_kept_as_published_and_flagged_as_erratum(real_db: Path) -> None:
    # bench/data/errata.yaml, not a list here: each entry is one run, its figure as published and the
    # entry's note as its erratum; no other run has one
    from bench.importers.tables import errata

    rows = _one(real_db, "SELECT source_title, output_tps, erratum FROM runs WHERE erratum IS NOT NULL")
    want = [(e.source_title, float(e.match["value"]), " ".join(e.note.split())) for e in errata()]
    assert sorted((s, v, " ".join(n.split())) for s, v, n in rows) == sorted(want)
    assert not any(n.startswith("Erratum") for _, _, n in rows)


def test_flatten_gives_exactly_the_table_columns_and_values(real_db: Path, root: Path) -> None:
    rel = "kisti/trtllm-1.2.0/h200-sxm-141gb--llama-3.1-70b-instruct--fp8.yaml"
    result = check_file(root / "results" / rel).result
    assert result is not None
    rows = flatten(result, rel)
    assert [list(r) for r in rows] == [[c for c, _ in RUN_COLUMNS]] * len(rows)
    names = ", ".join(c for c, _ in RUN_COLUMNS if c not in ("date", "timestamp"))
    stored = _one(real_db, f"SELECT {names} FROM runs WHERE file = ? ORDER BY run_index", [rel])
    expected = [tuple(v for c, v in r.items() if c not in ("date", "timestamp")) for r in rows]
    assert stored == expected
    assert rows[0]["max_num_tokens"] == 8192 and rows[0]["kv_cache_free_gpu_mem_fraction"] == 0.95


def test_write_db_accepts_flatten_rows(tmp_path: Path, valid_text: str) -> None:
    path = tmp_path / "v.yaml"
    path.write_text(valid_text, encoding="utf-8")
    result = check_file(path).result
    assert result is not None
    write_db(flatten(result, "v.yaml"), tmp_path / "x.duckdb")
    got = _one(
        tmp_path / "x.duckdb", "SELECT tp, output_tps, output_tps_per_gpu FROM runs ORDER BY run_index"
    )
    assert got == [(1, 29103.0, 29103.0), (2, 28001.0, 14000.5)]


@pytest.mark.parametrize("case", list(BAD))
def test_a_bad_file_leaves_the_previous_database_byte_identical(
    case: str, results: Path, valid_text: str, tmp_path: Path, runner
) -> None:
    db = tmp_path / "build" / "llmbench.duckdb"
    assert runner.invoke(app, ["ingest", "--results", str(results), "--db", str(db)]).exit_code == 0
    before = db.read_bytes()
    make_bad(results, case, valid_text)
    out = runner.invoke(app, ["ingest", "--results", str(results), "--db", str(db)])
    assert out.exit_code == 1
    assert BAD[case][1] in out.output.splitlines()
    assert "database left unchanged" in out.output
    assert db.read_bytes() == before
    assert sorted(p.name for p in db.parent.iterdir()) == [
        ".llmbench.duckdb.lock",
        "llmbench.duckdb",
    ]  # no temporary file


def test_ingest_in_worker_processes_matches_ingest_in_one_process(
    kisti_results: Path, tmp_path: Path
) -> None:
    for i in range(40):  # past the threshold for worker processes: 40 more files of distinct runs
        text = (
            kisti_results / "kisti/trtllm-0.14.0/v100-pcie-32gb--llama-3.1-8b-instruct--fp16.yaml"
        ).read_text()
        (kisti_results / f"extra/{i:02d}.yaml").parent.mkdir(exist_ok=True)
        (kisti_results / f"extra/{i:02d}.yaml").write_text(
            text.replace("system: KISTI Neuron", f"system: S{i}").replace(
                "results\n      table", f"results table {i}"
            )
        )
    report = ingest(kisti_results, tmp_path / "many.duckdb")
    assert (report.files, report.runs) == (47, 63 + 40 * 9)
    small = ingest(kisti_results / "kisti", tmp_path / "few.duckdb")
    sql = "SELECT * EXCLUDE (file) FROM runs WHERE publisher = 'KISTI'"
    sql += " AND source_title NOT LIKE '%table %' ORDER BY run_id"
    assert small.runs == 63
    assert _one(tmp_path / "many.duckdb", sql) == _one(tmp_path / "few.duckdb", sql)


def test_an_ingest_leaves_the_garbage_collector_as_it_found_it(
    results: Path, valid_text: str, tmp_path: Path
) -> None:
    """The ingest turns Python's cyclic garbage collector off while it takes the checked files (18 % of its
    process's CPU at a million runs); a program that calls it gets its collector back, on success and when
    a bad file fails the ingest, and one that had it off keeps it off."""
    import gc

    db = tmp_path / "llmbench.duckdb"
    assert gc.isenabled()
    ingest(results, db)
    assert gc.isenabled()
    make_bad(results, "unknown_gpu", valid_text)
    with pytest.raises(ProblemsError):
        ingest(results, db)
    assert gc.isenabled()
    gc.disable()
    try:
        with pytest.raises(ProblemsError):
            ingest(results, db)
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_an_empty_results_folder_never_replaces_a_database(
    kisti_results: Path, tmp_path: Path, runner
) -> None:
    db = tmp_path / "db.duckdb"
    ingest(kisti_results, db)
    before = db.read_bytes()
    (tmp_path / "empty").mkdir()
    out = runner.invoke(app, ["ingest", "--results", str(tmp_path / "empty"), "--db", str(db)])
    assert out.exit_code == 1
    assert "no result files (*.yaml) in" in out.output
    assert db.read_bytes() == before


def test_runs_committed_a_few_thousand_at_a_time_are_the_runs_of_one_commit(
    real_db: Path, tmp_path: Path, monkeypatch
) -> None:
    """Ingest commits every ``_COMMIT_RUNS`` runs (a commit per insert made 1M runs' ingest wait on
    DuckDB's writes): with a commit every 1,000 runs and an insert every 300, the database holds the runs
    one ingest of the defaults gives, every column (RESULTS has several thousand runs)."""
    from site_gen.data import load

    monkeypatch.setattr(load, "_BATCH_RUNS", 300)
    monkeypatch.setattr(load, "_COMMIT_RUNS", 1_000)
    report = ingest(RESULTS, tmp_path / "chunked.duckdb")
    assert report.runs > 3_000
    sql = "SELECT * FROM runs ORDER BY run_id"
    assert _one(tmp_path / "chunked.duckdb", sql) == _one(real_db, sql)


def test_a_bad_file_after_several_commits_leaves_the_previous_database_byte_identical(
    tmp_path: Path, monkeypatch
) -> None:
    """Runs committed before a problem turns up in a later file go with the new file: the database is
    the previous one, byte for byte, and nothing is left beside it."""
    from site_gen.data import load

    results = tmp_path / "results"
    shutil.copytree(RESULTS, results, ignore=shutil.ignore_patterns("sources"))
    db = tmp_path / "build" / "llmbench.duckdb"
    ingest(results, db)
    before = db.read_bytes()
    (results / "zzz").mkdir()
    (results / "zzz" / "last.yaml").write_text("schema_version: [unclosed\n")  # checked last (name order)
    monkeypatch.setattr(load, "_BATCH_RUNS", 300)
    monkeypatch.setattr(load, "_COMMIT_RUNS", 1_000)
    with pytest.raises(ProblemsError) as raised:
        ingest(results, db)
    assert [p.file for p in raised.value.problems] == ["zzz/last.yaml"]
    assert db.read_bytes() == before
    assert sorted(p.name for p in db.parent.iterdir()) == [".llmbench.duckdb.lock", "llmbench.duckdb"]
