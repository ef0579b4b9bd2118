"""The modelled-file contract and the parts of the estimate engine that need no AIConfigurator.

Authorities: TensorRT-LLM's ``finetune_setting`` (tensorrt_llm/bench/build/tuning.py), worked by hand below;
the schema's own rule that a modelled file says how it was made; site_gen's ingest, which must not load a
modelled file as a measurement.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml
from pydantic import ValidationError

from bench.contract.resultfile import check_text, dump_data
from bench.contract.schema import ResultFile
from bench.engines.estimate import finetune_setting


@pytest.mark.parametrize(
    ("requests", "isl", "osl", "pp", "expected"),
    [
        # raw_bs 1000 -> 128 x ceil(1000/128) = 1024; tokens 1000 x (1 + 1) = 2000 < 4096 -> max(2048, 2048)
        (1000, 128, 128, 1, (1024, 2048)),
        # capped at 4096 -> 256 x 16 = 4096; tokens min(4096 x 17, 32768) = 32768 -> 1024 x 32
        (9000, 2048, 128, 1, (4096, 32768)),
        # raw_bs 100 / 2 = 50 -> max(64, 32 x 2) = 64; tokens 50 x 2 = 100 -> 2048 (the floor)
        (100, 1024, 1024, 2, (64, 2048)),
        # raw_bs 300 -> 128 x 3 = 384; tokens 300 x 1.0625 = 318.75 -> 2048
        (300, 128, 2048, 1, (384, 2048)),
        # raw_bs 3000 -> 256 x 12 = 3072; tokens 6000 -> 512 x ceil(11.72) = 6144
        (3000, 1024, 1024, 1, (3072, 6144)),
    ],
)
def test_finetune_setting_matches_trtllm_bench_heuristic_worked_by_hand(
    requests: int, isl: int, osl: int, pp: int, expected: tuple[int, int]
) -> None:
    """Each case is TensorRT-LLM's finetune_setting arithmetic done by hand (comment above each)."""
    assert finetune_setting(requests, isl, osl, pp) == expected


def _modelled() -> dict[str, Any]:
    return {
        "schema_version": 1,
        "submission": {
            "submitter": "test",
            "system": "AIConfigurator model of H200 SXM 141GB",
            "date": "2026-01-02",
            "source": {
                "kind": "modelled",
                "publisher": "AIConfigurator",
                "title": "estimate",
                "estimator": {
                    "name": "aiconfigurator",
                    "version": "0.12.0",
                    "perf_data_versions": {"h200_sxm/trtllm": "1.3.0rc20"},
                },
            },
        },
        "hardware": {"gpu": "H200 SXM 141GB"},
        "software": {
            "engine": "tensorrt-llm",
            "engine_version": "1.3.0rc20",
            "workflow": "pytorch",
            "benchmark_tool": "aiconfigurator",
        },
        "model": {"id": "meta-llama/Llama-3.1-8B-Instruct", "weight_precision": "FP8"},
        "runs": [
            {
                "workload": {"isl": 128, "osl": 128},
                "metrics": {"output_tokens_per_s_per_gpu": 30000.0},
                "estimate": {
                    "settings": {"batch_size": 2048, "ctx_tokens": 8192, "gemm_quant_mode": "fp8"},
                    "fidelity": {"ops_silicon": 14},
                    "mapping": {"model_config": "meta-llama/Meta-Llama-3.1-8B"},
                },
            }
        ],
    }


def _problems(data: dict[str, Any]) -> list[str]:
    """Problems from the bulk (dict) validator and, for the same data, whether the model refuses it."""
    text = dump_data(data)
    dict_problems = [str(p) for p in check_text(text, "f.yaml").problems]
    try:
        ResultFile.model_validate(yaml.safe_load(text))
        model_ok = True
    except ValidationError:
        model_ok = False
    assert model_ok == (not dict_problems), dict_problems  # both validators agree
    return dict_problems


def test_a_modelled_file_with_its_estimator_and_run_records_validates() -> None:
    assert _problems(_modelled()) == []


@pytest.mark.parametrize(
    ("change", "needle"),
    [
        (lambda d: d["submission"]["source"].pop("estimator"), "expected an estimator"),
        (lambda d: d["submission"]["source"].update(kind="published"), "expected no estimator"),
        (lambda d: d["runs"][0].pop("estimate"), "expected an estimate record in runs.0"),
        (lambda d: d["submission"]["source"].update(kind="banana"), "kind"),
    ],
)
def test_a_modelled_file_must_say_how_it_was_made_and_no_other_kind_may(change: Any, needle: str) -> None:
    data = copy.deepcopy(_modelled())
    change(data)
    problems = _problems(data)
    assert problems and any(needle in p for p in problems), problems


def test_a_published_run_with_an_estimate_record_is_refused() -> None:
    data = copy.deepcopy(_modelled())
    src = data["submission"]["source"]
    src["kind"] = "published"
    del src["estimator"]
    problems = _problems(data)
    assert any("expected no estimate record in runs.0 of a published file" in p for p in problems), problems


def test_site_ingest_keeps_modelled_files_out_of_runs(tmp_path: Path) -> None:
    """A modelled file is checked like any other; its runs go to the ``estimates`` table, never ``runs``
    (everything that aggregates reads ``runs``), and the view marks them estimated."""
    import duckdb

    from site_gen.data.load import ingest

    published = copy.deepcopy(_modelled())
    src = published["submission"]["source"]
    src.update(kind="published", publisher="Test")
    del src["estimator"]
    del published["runs"][0]["estimate"]
    published["runs"].append(copy.deepcopy(published["runs"][0]))
    published["runs"][1]["workload"] = {"isl": 256, "osl": 256}
    results = tmp_path / "results"
    results.mkdir()
    (results / "published.yaml").write_text(dump_data(published), encoding="utf-8")
    (results / "modelled.yaml").write_text(dump_data(_modelled()), encoding="utf-8")
    report = ingest(results, tmp_path / "db.duckdb")
    assert report.runs == 2  # the published file's runs only
    with duckdb.connect(str(tmp_path / "db.duckdb"), read_only=True) as con:
        kinds = con.execute("SELECT DISTINCT source_kind FROM runs").fetchall()
        est = con.execute("SELECT source_kind, est_confidence FROM estimates").fetchall()
        basis = con.execute("SELECT basis, count(*) FROM runs_and_estimates GROUP BY 1 ORDER BY 1").fetchall()
    assert kinds == [("published",)]
    # the fixture's estimate has no band: shown as unvalidated, never as validated
    assert est == [("modelled", "unvalidated")]
    assert basis == [("estimated", 1), ("published", 2)]


def test_error_summary_matches_numpy_percentiles() -> None:
    """median/p10/p90 are numpy's default (linear) percentiles; the shares count |error| <= 10 % / 25 %."""
    import numpy as np

    from bench.engines.estimate_validate import summary

    errors = [-0.5, -0.2, -0.1, 0.0, 0.05, 0.1, 0.24, 0.3, 0.9, -0.26, 0.11]
    s = summary(errors)
    for key, q in (("median", 50), ("p10", 10), ("p90", 90)):
        assert s[key] == pytest.approx(float(np.percentile(errors, q)))
    assert s["within10"] == pytest.approx(4 / 11)  # -0.1, 0.0, 0.05, 0.1
    assert s["within25"] == pytest.approx(7 / 11)  # those and -0.2, 0.24, 0.11


def test_the_writer_never_overwrites_a_file_it_did_not_write(tmp_path: Path) -> None:
    from bench.engines.estimate_spec import write
    from bench.errors import UserError

    theirs = tmp_path / "h200.yaml"
    theirs.write_text("someone else's file\n", encoding="utf-8")
    with pytest.raises(UserError, match="was not written by llmbench estimate"):
        write({"h200.yaml": _modelled(), "other.yaml": _modelled()}, tmp_path)
    assert theirs.read_text(encoding="utf-8") == "someone else's file\n"
    assert not (tmp_path / "other.yaml").exists()  # nothing written at all
