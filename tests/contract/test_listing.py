"""site_gen.data.listing + `llmbench list`: filters, plain-text cells, and re-ingest when results/ changed."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from bench.cli import app
from site_gen.data.listing import Filters, is_stale, parallel_label, query
from tests.conftest import RESULTS


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


def _latency_figures() -> list[dict]:
    """Every run's metrics as the committed result files write them (the files naming a latency figure;
    read with plain YAML, not through the ingest)."""
    import yaml

    out = []
    for path in sorted(RESULTS.rglob("*.yaml")):
        if "sources" in path.parts:
            continue
        text = path.read_text(encoding="utf-8")
        if "kind: modelled" in text:
            continue  # estimates (results/modelled/) are no runs: `llmbench list` reads the runs table only
        if "tpot_ms:" in text or "output_tokens_per_s_per_user" in text:
            out += [r["metrics"] for r in yaml.safe_load(text)["runs"]]
    return out


def test_latency_filters_keep_the_runs_within_them_and_none_without_the_figure(real_db: Path, runner) -> None:
    figures = _latency_figures()
    # Any figure may be missing (the schema allows a TPOT without its mean, a TPOT without a per-user figure)
    tpot = [m["tpot_ms"]["avg"] for m in figures if m.get("tpot_ms", {}).get("avg") is not None]
    within = sum(1 for t in tpot if t <= 72)
    assert 0 < within < len(tpot)  # the limit cuts the measured runs
    rows, total = query(real_db, Filters(tpot_max=72), limit=None)
    assert total == len(rows) == within and all(r["tpot_ms_avg"] <= 72 for r in rows)
    # per-user: NVIDIA's 0.18 DeepSeek tables give it without TPOT; both bounds at once
    per_user = [m.get("output_tokens_per_s_per_user") for m in figures]
    assert sum(1 for u in per_user if u is not None and u >= 100) == query(real_db, Filters(user_min=100))[1]
    both = sum(
        1
        for m in figures
        if (m.get("tpot_ms") or {}).get("avg", 1e9) <= 72 and (m.get("ttft_ms") or {}).get("avg", 1e9) <= 500
        and m.get("output_tokens_per_s_per_user", 0) >= 14
    )  # fmt: skip
    assert both == query(real_db, Filters(tpot_max=72, ttft_max=500, user_min=14))[1] > 0
    out = _list(runner, RESULTS, real_db, "--tpot-max", "72")
    assert out.exit_code == 0, out.output
    assert f"{within} run(s) (filters: tpot_max=72.0)" in out.output and "TPOT ms" in out.output


def test_list_says_when_a_runs_bound_is_unknown_or_may_be_low(tmp_path: Path, runner) -> None:
    """Jetson AGX Orin has no dense tensor TFLOP/s in gpus.yaml (its vendor publishes none): the run is
    listed, its % of bound "unknown"; a run with MTP in its notes has its % marked "*" (bench.contract.bound).
    """
    import yaml

    valid = (Path(__file__).parent / "data" / "valid.yaml").read_text(encoding="utf-8")
    results = tmp_path / "results"
    (results / "a").mkdir(parents=True)
    orin = yaml.safe_load(valid)
    orin["hardware"] = {"gpu": "Jetson AGX Orin 64GB"}
    orin["runs"] = [{**orin["runs"][0], "metrics": {"output_tokens_per_s": 12.0}}]
    (results / "a" / "orin.yaml").write_text(yaml.safe_dump(orin), encoding="utf-8")
    mtp = yaml.safe_load(valid)
    mtp["runs"] = [{**mtp["runs"][0], "notes": "MTP 3 layers"}]
    (results / "a" / "mtp.yaml").write_text(yaml.safe_dump(mtp), encoding="utf-8")
    out = _list(runner, results, tmp_path / "db.duckdb", "--limit", "0")
    assert out.exit_code == 0, out.output
    rows = {line.split("│")[1].strip(): line for line in out.output.splitlines() if line.count("│") > 5}
    assert "unknown" in rows["Jetson AGX Orin 64GB"]
    assert re.search(r"│\s+\d+ \*\s+│", rows["H200 SXM 141GB"]), rows
    assert "unknown: the registry lacks a figure it needs" in " ".join(out.output.split())
