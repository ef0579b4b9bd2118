"""Every GPU x model x precision the registries list, as a one-run result file: validate accepts it, ingest
loads it, the site builds from it, and the bound says "unknown" where the registry lacks a figure
(issue 24 item 11: a GPU without a 16-bit TFLOP/s passed validate and then crashed ingest).

The combinations are generated from bench/data at test time, never listed here: a GPU or model added to
the registries is covered by the next run.
"""

from __future__ import annotations

import math
from pathlib import Path

import duckdb
import pytest

from bench.cli import app
from bench.contract import bound, quality, registry
from bench.contract.resultfile import result_path, write_file
from bench.contract.schema import ResultFile
from tests.conftest import build, free_port


def _combinations() -> list[tuple[str, str, str]]:
    return [
        (g.name, m.id, p)
        for g in registry.gpus().entries
        for m in registry.models().entries
        for p in registry.precisions()
    ]


def _figure(gpu: str, model: str, precision: str) -> float:
    """A plausible output tok/s: half the run's ceiling, or 1 where the weights do not fit at all."""
    limit = quality.ceiling(gpu, model, precision, None, 128, 128, 1, None, 100)
    return round(limit / 2, 2) if limit else 1.0


def _write(folder: Path) -> list[tuple[str, str, str]]:
    combos = _combinations()
    for gpu, model, precision in combos:
        res = ResultFile.model_validate(
            {
                "schema_version": 1,
                "submission": {
                    "submitter": "llmbench tests",
                    "system": "every registry combination",
                    "date": "2026-04-20",
                    "source": {"kind": "published", "publisher": "Registry Lab", "title": "generated"},
                },
                "hardware": {"gpu": gpu},
                "software": {
                    "engine": "tensorrt-llm",
                    "engine_version": "1.2.0",
                    "workflow": "pytorch",
                    "benchmark_tool": "trtllm-bench",
                },
                "model": {"id": model, "weight_precision": precision},
                "runs": [
                    {
                        "parallelism": {"tp": 1},
                        "workload": {"isl": 128, "osl": 128, "num_requests": 100},
                        "metrics": {"output_tokens_per_s": _figure(gpu, model, precision)},
                    }
                ],
            }
        )
        write_file(res, folder / result_path("Registry Lab", "tensorrt-llm", "1.2.0", gpu, model, precision))
    return combos


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[tuple[str, str, str]]]:
    folder = tmp_path_factory.mktemp("combos") / "results"
    return folder, _write(folder)


def test_every_combination_validates_and_ingests_with_the_bound_or_its_absence_said(
    generated: tuple[Path, list[tuple[str, str, str]]], runner, tmp_path: Path
) -> None:
    folder, combos = generated
    assert len(list(folder.rglob("*.yaml"))) == len(combos)
    out = runner.invoke(app, ["validate", str(folder), "--results", str(folder)])
    assert out.exit_code == 0, out.output[-3000:]
    db = tmp_path / "combos.duckdb"
    out = runner.invoke(app, ["ingest", "--results", str(folder), "--db", str(db)])
    assert out.exit_code == 0, out.output[-3000:]
    con = duckdb.connect(str(db), read_only=True)
    rows = con.execute(
        "SELECT gpu, model, precision, output_tps, pct_of_bound, bound_note FROM runs"
    ).fetchall()
    assert sorted(r[:3] for r in rows) == sorted(combos)  # every combination, once
    gpus = {g.name: g for g in registry.gpus().entries}
    for gpu, _model, precision, tps, pct, note in rows:
        arch = registry.models().get(_model).model_dump()
        no_peak = bound.peak_tflops(gpus[gpu].tflops_dense, precision, arch) is None
        if no_peak:  # RTX PRO 4500, Arc Pro B50/B60/B70, Jetson AGX Orin/Thor before a datasheet gives it
            assert pct is None and note == "unknown-peak", (gpu, precision)
        elif pct is None:
            assert note == "unknown-fit" and tps == 1.0
        else:
            assert note is None and math.isclose(pct, 50, rel_tol=1e-3), (gpu, _model, precision, pct)
    # validate and ingest agree: the same files, refused or accepted alike (the gate runs in both)
    assert con.execute("SELECT count(*) FROM runs").fetchone() == (len(combos),)


def test_every_combination_builds_the_site(
    generated: tuple[Path, list[tuple[str, str, str]]], tmp_path: Path
) -> None:
    folder, _ = generated
    work = build(folder, tmp_path, port=free_port())  # ingest -> generate -> mkdocs build --strict
    # the explorer's and the run card's data carry the note that the table and the card show as "unknown"
    data = (work / "site" / "assets" / "data").glob("*.json")
    carried = [p for p in data if "unknown-peak" in p.read_text(encoding="utf-8")]
    assert carried, "no page data names the runs whose bound is unknown"
