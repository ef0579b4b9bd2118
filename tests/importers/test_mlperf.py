"""bench.importers.mlperf: the committed results/mlperf/ are what import-mlperf makes of MLCommons' CSV.

The authority is the CSV itself (read here with the csv module, not the importer) and the LoadGen logs it
was read from (spot values quoted from the logs, issue 14).
"""

from __future__ import annotations

import csv
from collections import Counter
from pathlib import Path

import pytest
import yaml

from bench.cli import app
from bench.contract import registry
from bench.contract.resultfile import dump_data
from bench.errors import ProblemsError
from bench.importers.mlperf import build, read_csv, read_limits

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ROOT / "results" / "sources" / "mlperf"
RESULTS_CSV = SOURCES / "mlperf_inference_llm_results.csv"
BENCHMARKS_CSV = SOURCES / "mlperf_inference_llm_benchmarks.csv"


@pytest.fixture(scope="module")
def csv_rows() -> list[dict[str, str]]:
    with RESULTS_CSV.open(encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


@pytest.fixture(scope="module")
def committed() -> dict[str, dict]:
    files = sorted((ROOT / "results" / "mlperf").rglob("*.yaml"))
    return {
        str(p.relative_to(ROOT / "results")): yaml.safe_load(p.read_text(encoding="utf-8")) for p in files
    }


def _runs(committed: dict[str, dict]) -> list[tuple[dict, dict]]:
    return [(d, r) for d in committed.values() for r in d["runs"]]


def test_committed_results_are_exactly_a_fresh_import() -> None:
    out = build(read_csv(RESULTS_CSV), RESULTS_CSV.name, limits=read_limits(BENCHMARKS_CSV))
    on_disk = {p.relative_to(ROOT / "results") for p in (ROOT / "results" / "mlperf").rglob("*.yaml")}
    assert on_disk == set(out.files)
    for rel, data in out.files.items():
        assert (ROOT / "results" / rel).read_text(encoding="utf-8") == dump_data(data), rel


def test_counts_per_round_division_and_scenario_equal_the_csv(csv_rows, committed) -> None:
    gpu_rows = [r for r in csv_rows if r["accelerator"] != "N/A"]
    assert (
        len(csv_rows) == 1154 and len(csv_rows) - len(gpu_rows) == 38
    )  # the README's 1,154; CPU-only left out
    want = Counter((r["round"], r["division"], r["scenario"]) for r in gpu_rows)
    got = Counter((d["mlperf"]["round"], run["division"], run["scenario"]) for d, run in _runs(committed))
    assert got == want
    assert sum(got.values()) == 1116
    want_files = {(r["round"], r["submitter"], r["system_id"]) for r in gpu_rows}
    got_files = {
        (d["mlperf"]["round"], d["submission"]["submitter"], d["mlperf"]["system_id"])
        for d in committed.values()
    }
    assert got_files == want_files and len(committed) == len(want_files)


def test_every_value_is_kept_exactly_as_printed(csv_rows, committed) -> None:
    by_key = {
        (r["round"], r["submitter"], r["system_id"], r["division"], r["benchmark"], r["scenario"]): r
        for r in csv_rows
    }
    for d, run in _runs(committed):
        row = by_key[
            (d["mlperf"]["round"], d["submission"]["submitter"], d["mlperf"]["system_id"], run["division"],
             run["benchmark"], run["scenario"])
        ]  # fmt: skip
        assert run["value_text"] == row["value"]
        assert run["value"] == float(row["value"])
        assert run["result_id"] == row["result_id"] and run["metric"] == row["metric_name"]
        for col, key in (("ttft_p99_ms", "ttft_p99_ms"), ("tpot_constraint_ms", "tpot_limit_ms")):
            assert run.get(key) == (float(row[col]) if row[col] else None)


@pytest.mark.parametrize(
    ("round_", "system_id", "benchmark", "scenario", "value", "result_id"),
    [
        # issue 14, from the v5.1 log of Dell's XE7745 (8x H200 NVL): 31,267.4 tokens/s
        ("v5.1", "XE7745_H200_NVL_141GBx8_TRT", "llama2-70b-99", "Offline", 31267.4, "5.1-0023"),
        # v4.1 AMD 1x MI300X, llama2-70b-99 Offline: "Tokens per second: 3062.72" (the README's first row)
        ("v4.1", "1xMI300X_2xEPYC-9374F", "llama2-70b-99", "Offline", 3062.72, "v4.1-0001"),
    ],
)
def test_spot_values_from_the_logs(
    committed, round_, system_id, benchmark, scenario, value, result_id
) -> None:
    hits = [
        (d, r)
        for d, r in _runs(committed)
        if (d["mlperf"]["round"], d["mlperf"]["system_id"], r["benchmark"], r["scenario"])
        == (round_, system_id, benchmark, scenario)
    ]
    assert len(hits) == 1
    _, run = hits[0]
    assert run["value"] == value and run["metric"] == "tokens_per_s" and run["result_id"] == result_id


def test_non_token_metrics_are_flagged_never_tokens(committed) -> None:
    other = Counter(r["metric"] for _, r in _runs(committed) if r["metric"] != "tokens_per_s")
    # README: 1,132 tokens_per_s rows; 8 samples/s + 8 queries/s (Qwen3-VL) + 6 SingleStream latencies
    assert other == {"samples_per_s": 8, "queries_per_s": 8, "latency_p90_ns": 6}


def test_every_accelerator_resolves_or_is_a_mixed_system(csv_rows, committed) -> None:
    labels = {r["accelerator"] for r in csv_rows} - {"N/A"}
    unknown = {label for label in labels if registry.gpus().find(label) is None}
    assert len(unknown) == 3 and all(label.count("MI3") >= 2 for label in unknown)
    assert {d["hardware"]["gpu_label"] for d in committed.values() if d["hardware"]["gpu"] is None} == unknown
    for label in ("NVIDIA H200-SXM-141GB-CTS", "Virtualized NVIDIA H200-SXM-141GB"):
        assert registry.gpus().get(label).name == "H200 SXM 141GB"


def test_a_bad_row_is_located_and_nothing_is_written(tmp_path: Path, runner) -> None:
    lines = RESULTS_CSV.read_text(encoding="utf-8").splitlines(keepends=True)
    bad = lines[1].replace(",3062.72,", ",3062.72x,", 1)
    assert bad != lines[1]
    src = tmp_path / "bad.csv"
    src.write_text(lines[0] + lines[2] + bad, encoding="utf-8")
    with pytest.raises(ProblemsError) as e:
        build(read_csv(src), src.name)
    assert [str(p) for p in e.value.problems] == [
        "bad.csv:3: value: expected a decimal number > 0, got '3062.72x'"
    ]
    out = runner.invoke(app, ["import-mlperf", str(src), "--results", str(tmp_path / "results")])
    assert out.exit_code == 1 and "bad.csv:3: value" in out.output
    assert not (tmp_path / "results").exists()


def test_import_command_writes_and_counts(csv_rows, tmp_path: Path, runner) -> None:
    """The counts it prints are the CSV's, counted here with the csv module: a file per round, submitter
    and system with an accelerator, a run per such row, the CPU-only rows left out."""
    gpu_rows = [r for r in csv_rows if r["accelerator"] != "N/A"]
    files = {(r["round"], r["submitter"], r["system_id"]) for r in gpu_rows}
    out = runner.invoke(app, ["import-mlperf", str(RESULTS_CSV), "--results", str(tmp_path), "--dry-run"])
    assert out.exit_code == 0, out.output
    said = f"would write {len(files):,} file(s), {len(gpu_rows):,} run(s) from {len(csv_rows):,} row(s)"
    assert said in out.output
    assert f"left out {len(csv_rows) - len(gpu_rows):,} CPU-only row(s)" in out.output
    assert not (tmp_path / "mlperf").exists()
