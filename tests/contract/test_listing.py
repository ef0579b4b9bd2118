"""site_gen.listing + `llmbench list`: filters, plain-text cells, and re-ingest when results/ changed."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from bench.cli import app
from site_gen.listing import Filters, is_stale, parallel_label, query


def _list(runner, results: Path, db: Path, *args: str):
    return runner.invoke(app, ["list", "--results", str(results), "--db", str(db), *args])


def test_filters_find_the_kisti_h200_fp8_run(kisti_results: Path, tmp_path: Path, runner) -> None:
    db = tmp_path / "db.duckdb"
    out = _list(
        runner,
        kisti_results,
        db,
        "--gpu",
        "h200",
        "--model",
        "Llama 3.1 8B",
        "--precision",
        "fp8",
        "--isl",
        "128",
        "--osl",
        "128",
        "--tp",
        "1",
        "--source",
        "KISTI",
    )
    assert out.exit_code == 0, out.output
    assert "1 run(s)" in out.output
    row = next(line for line in out.stdout.splitlines() if "29,103" in line)
    assert all(part in row for part in ("H200 SXM 141GB", "Llama 3.1 8B", "FP8", "TP1", "128/128", "30,000"))


def test_query_counts_all_matches_and_limits_the_rows(real_db: Path) -> None:
    rows, total = query(real_db, Filters(model="DeepSeek R1 0528"), limit=5)
    assert len(rows) == 5 and total == 33
    rows, total = query(real_db, Filters(gpu="GH200 120GB"), limit=None)  # an alias: exact GPU
    assert total == len(rows) == sum(1 for r in rows if r["gpu"] == "GH200 96GB") > 200


def test_no_match_names_the_closest_known_gpu(kisti_results: Path, tmp_path: Path, runner) -> None:
    out = _list(runner, kisti_results, tmp_path / "db.duckdb", "--gpu", "H300")
    assert out.exit_code == 1
    assert "no runs match (gpu=H300); GPU 'H300': closest known H200 SXM 141GB" in out.output


def test_list_rebuilds_the_database_only_when_results_changed(
    kisti_results: Path, tmp_path: Path, runner
) -> None:
    db = tmp_path / "db.duckdb"
    assert is_stale(kisti_results, db)
    assert "ingested 63 run(s)" in _list(runner, kisti_results, db, "--limit", "1").output
    assert not is_stale(kisti_results, db)
    assert "ingested" not in _list(runner, kisti_results, db, "--limit", "1").output
    changed = next(kisti_results.rglob("*.yaml"))
    later = db.stat().st_mtime + 5
    os.utime(changed, (later, later))
    assert is_stale(kisti_results, db)
    assert "ingested 63 run(s)" in _list(runner, kisti_results, db, "--limit", "1").output


def test_values_from_result_files_are_printed_literally(
    results: Path, valid_text: str, tmp_path: Path, runner
) -> None:
    (results / "good" / "valid.yaml").write_text(
        valid_text.replace("publisher: TestLab", "publisher: '[red]Evil[/red] [link=x]'"), encoding="utf-8"
    )
    out = _list(runner, results, tmp_path / "db.duckdb")
    assert out.exit_code == 0, out.output
    assert "[red]Evil[/red]" in out.stdout


@pytest.mark.parametrize(
    ("tp", "pp", "ep", "adp", "label"),
    [
        (4, 1, None, False, "TP4"),
        (2, 2, None, False, "TP2 PP2"),
        (8, 1, 8, True, "DEP8"),
        (2, 2, 2, True, "DEP2 PP2"),
        (8, 1, 2, False, "TP8 EP2"),
    ],
)
def test_parallel_label_uses_nvidias_notation(
    tp: int, pp: int, ep: int | None, adp: bool, label: str
) -> None:
    assert parallel_label(tp, pp, ep, adp) == label
