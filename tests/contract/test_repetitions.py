"""Repeated runs (issue 30): a run's figures are the median of its repetitions, or the file is refused.

Hand-worked cases: output tok/s of 12.2, 13.8 and 15.8 have the median 13.8; of 12.2 and 13.8, the mean of
the two middle values, (12.2 + 13.8) / 2 = 13.0. TPOT of 70, 80 and 60 ms: sorted 60, 70, 80, median 70.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.cli import app
from bench.contract.resultfile import check_file

HEAD = """schema_version: 1
submission:
  submitter: Test Centre
  system: Test Cluster
  date: 2026-11-30
  source:
    kind: measured
    publisher: llmbench
    title: Repeated test run
hardware:
  gpu: H200 SXM 141GB
software:
  engine: transformers
  engine_version: 5.17.0
  benchmark_tool: llmbench-transformers
model:
  id: meta-llama/Llama-3.1-8B-Instruct
  weight_precision: BF16
runs:
- workload:
    isl: 1024
    osl: 1024
    concurrency: 1
  metrics:
    output_tokens_per_s: {figure}
    tpot_ms:
      avg: {tpot}
  repetitions:
"""
REP = """  - call: h200-20261130-call{n} 1024-1024-generate-c1
    machine: machine {n}
    timestamp: 2026-11-30T18:1{n}:00Z
    metrics:
      output_tokens_per_s: {tps}
      tpot_ms:
        avg: {tpot}
"""


def _file(tmp_path: Path, figure: float, tpot: float, reps: list[tuple[float, float]]) -> Path:
    text = HEAD.format(figure=figure, tpot=tpot)
    text += "".join(REP.format(n=i, tps=t, tpot=p) for i, (t, p) in enumerate(reps))
    path = tmp_path / "r.yaml"
    path.write_text(text, encoding="utf-8")
    return path


THREE = [(12.2, 70.0), (13.8, 80.0), (15.8, 60.0)]


def test_the_median_of_three_and_of_two_repetitions_is_accepted(tmp_path: Path) -> None:
    checked = check_file(_file(tmp_path, 13.8, 70.0, THREE))
    assert checked.problems == [] and checked.result is not None
    assert len(checked.result.runs[0].repetitions or []) == 3
    two = check_file(_file(tmp_path, 13.0, 75.0, THREE[:2]))
    assert two.problems == []


@pytest.mark.parametrize(
    ("figure", "tpot", "field", "want", "got"),
    [(15.8, 70.0, "output_tokens_per_s", "13.8", "15.8"), (13.8, 80.0, "tpot_ms.avg", "70.0", "80.0")],
)
def test_a_figure_that_is_not_the_median_is_refused_at_file_line_and_field(
    tmp_path: Path, runner, figure: float, tpot: float, field: str, want: str, got: str
) -> None:
    path = _file(tmp_path, figure, tpot, THREE)
    out = runner.invoke(app, ["validate", str(path)])
    assert out.exit_code == 1
    line = HEAD.splitlines().index("- workload:") + 1  # the run's own line
    expected = (
        f"r.yaml:{line}: runs.0: expected metrics.{field} to be the median of its 3 repetitions,"
        f" {want}, got {got}"
    )
    assert expected in out.output.replace("\n", " ").replace("  ", " "), out.output


def test_a_repetition_without_a_figure_the_run_reports_is_refused(tmp_path: Path) -> None:
    path = _file(tmp_path, 13.8, 70.0, THREE)
    text = path.read_text(encoding="utf-8").replace("      tpot_ms:\n        avg: 60.0\n", "", 1)
    path.write_text(text, encoding="utf-8")
    checked = check_file(path)
    assert [p.message for p in checked.problems] == [
        "expected metrics.tpot_ms.avg in every repetition (the run reports it), missing in repetitions.2"
    ]


def test_one_repetition_is_no_repetition(tmp_path: Path) -> None:
    checked = check_file(_file(tmp_path, 12.2, 70.0, THREE[:1]))
    assert len(checked.problems) == 1 and "runs.0.repetitions" in checked.problems[0].path


def test_ingest_stores_samples_and_the_repetitions_range(tmp_path: Path, valid_text: str) -> None:
    """Hand-worked, through the real ingest into DuckDB: a TP2 run repeated at 90, 100 and 120 output tok/s
    (all GPUs) has 3 samples, median 100, per GPU 45 to 60; per user 10, 12, 11 gives 10 to 12. A measured
    run without repetitions is 1 sample with no range; a published run's sample count is unknown (null)."""
    import duckdb

    from site_gen.data.load import ingest

    tp2 = "- parallelism:\n    tp: 2\n  workload:"
    text = HEAD.format(figure=100.0, tpot=70.0).replace("- workload:", tp2)
    text = text.replace("    tpot_ms:\n      avg: 70.0\n", "    output_tokens_per_s_per_user: 11.0\n", 1)
    for i, (tps, user) in enumerate([(90.0, 10.0), (100.0, 12.0), (120.0, 11.0)]):
        text += REP.format(n=i, tps=tps, tpot=70.0).replace(
            "      tpot_ms:\n        avg: 70.0\n", f"      output_tokens_per_s_per_user: {user}\n"
        )
    text += "- workload:\n    isl: 128\n    osl: 128\n  metrics:\n    output_tokens_per_s: 50.0\n"
    results = tmp_path / "results"
    (results / "m").mkdir(parents=True)
    (results / "m" / "measured.yaml").write_text(text, encoding="utf-8")
    (results / "m" / "published.yaml").write_text(valid_text, encoding="utf-8")
    db = tmp_path / "t.duckdb"
    ingest(results, db)
    con = duckdb.connect(str(db), read_only=True)
    rows = con.execute(
        "SELECT source_kind, tp, samples, output_tps, output_tps_per_gpu_min, output_tps_per_gpu_max,"
        " output_tps_per_user_min, output_tps_per_user_max, output_tps_min, output_tps_max"
        " FROM runs ORDER BY source_kind, tp DESC, isl"
    ).fetchall()
    con.close()
    assert rows[0] == ("measured", 2, 3, 100.0, 45.0, 60.0, 10.0, 12.0, 90.0, 120.0)
    assert rows[1] == ("measured", 1, 1, 50.0, None, None, None, None, None, None)
    assert {r[2] for r in rows[2:]} == {None} and len(rows) == 4


def test_a_repetition_above_the_speed_of_light_bound_is_refused_at_its_own_field(tmp_path: Path) -> None:
    """The gate checks each repetition as it checks the run: 1e9 output tok/s for an 8B model on one H200
    is far above any bound (4.8 TB/s / 16 GB of weights is about 300 steps/s), median or not."""
    path = _file(tmp_path, 13.8, 70.0, [(12.2, 70.0), (13.8, 80.0), (1e9, 60.0)])
    checked = check_file(path)
    paths = [p.path for p in checked.problems]
    assert paths == ["runs.0.repetitions.2.metrics.output_tokens_per_s"], checked.problems
    text = path.read_text(encoding="utf-8").splitlines()
    line = checked.problems[0].line
    assert line is not None and text[line - 1].strip() == "output_tokens_per_s: 1000000000.0"


def test_a_repeated_run_whose_range_reaches_its_neighbours_is_not_warned(tmp_path: Path) -> None:
    """Hand-worked: neighbours at 100 and 100 tok/s (median 100); a run at 30 is 3.3x below (warned) unless
    its repetitions ran from 30 to 120, which holds 100."""
    from bench.contract import quality

    def pt(release: tuple[int, ...], value: float, spread: tuple[float, float] | None = None) -> object:
        return quality.RunPoint(("k",), release, ".".join(map(str, release)), value, 0, False, spread)

    for spread, warned in ((None, 1), ((25.0, 35.0), 1), ((30.0, 120.0), 0)):
        points = [("a.yaml", [pt((1, 0, 0), 100.0)]), ("b.yaml", [pt((2, 0, 0), 30.0, spread)])]
        points.append(("c.yaml", [pt((3, 0, 0), 100.0)]))
        found = quality.neighbour_warnings(points, tmp_path)  # type: ignore[arg-type]
        assert len([w for w in found if w.file.endswith("b.yaml")]) == warned, spread
