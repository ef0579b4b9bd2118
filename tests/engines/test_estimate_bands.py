"""Error bands of estimates: categories, quantiles and confidence, worked by hand; the schema's band rules.

Authority: issue 28's rule (fewer than 5 comparable published runs, or a median |error| above 25 %: low
confidence; none: unvalidated) and numpy's default (linear) percentile, computed by hand in each case.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
import yaml

from bench.contract.estimate_bands import band_for, band_of, bands, category, gpus_class, precision_class
from bench.contract.resultfile import dump_data
from tests.engines.test_estimate_contract import _modelled, _problems


def test_categories_group_by_gpu_moe_precision_class_and_gpu_count() -> None:
    assert category("H200 SXM 141GB", False, "FP8", 1, 1) == "H200 SXM 141GB · dense · FP8 · 1 GPU"
    # NVIDIA's "Mixed" rows are 16-bit weights, like FP16 and BF16; TP 2 x PP 2 spans 4 GPUs
    assert category("L40S", True, "Mixed", 2, 2) == "L40S · MoE · 16-bit · 2-4 GPUs"
    assert precision_class("BF16") == precision_class("FP16") == "16-bit"
    assert [gpus_class(t, 1) for t in (1, 2, 4, 8, 16)] == [
        "1 GPU",
        "2-4 GPUs",
        "2-4 GPUs",
        "8+ GPUs",
        "8+ GPUs",
    ]


def test_band_quantiles_and_confidence_worked_by_hand() -> None:
    # errors sorted: -0.2, -0.1, 0.0, 0.1, 0.3 (n = 5). Median: the 3rd, 0.0.
    # p10: position (5 - 1) x 0.1 = 0.4 -> -0.2 + 0.4 x (-0.1 - -0.2) = -0.16.
    # p90: position 3.6 -> 0.1 + 0.6 x (0.3 - 0.1) = 0.22.
    b = band_of("c", [0.1, -0.2, 0.3, 0.0, -0.1])
    assert b.pairs == 5 and b.median == pytest.approx(0.0)
    assert b.p10 == pytest.approx(-0.16) and b.p90 == pytest.approx(0.22)
    assert b.confidence == "validated"
    # the same minus one pair: 4 < 5 pairs -> low, whatever the error
    assert band_of("c", [0.1, -0.2, 0.0, -0.1]).confidence == "low"
    # 5 pairs, median +30 % > 25 % -> low
    assert band_of("c", [0.3, 0.3, 0.3, 0.3, 0.3]).confidence == "low"
    # median exactly -25 %: not above 25 % -> validated
    assert band_of("c", [-0.25] * 5).confidence == "validated"
    # no pair: unvalidated, no figures
    none = band_of("c", [])
    assert (none.pairs, none.median, none.confidence) == (0, None, "unvalidated")


def test_bands_from_table_rows_and_an_unknown_category_is_unvalidated() -> None:
    rows = [
        {"gpu": "L40S", "moe": "False", "precision": "FP8", "tp": "4", "pp": "1", "error": str(e)}
        for e in (-0.6, -0.55, -0.65, -0.7, -0.5)
    ]
    table = bands(rows)
    assert list(table) == ["L40S · dense · FP8 · 2-4 GPUs"]
    b = band_for("L40S", False, "FP8", 2, 2, table)  # TP 2 x PP 2: the same class as TP 4
    assert b.median == pytest.approx(-0.6) and b.confidence == "low"  # |median| 60 % > 25 %
    other = band_for("H200 SXM 141GB", False, "FP8", 1, 1, table)
    assert other.confidence == "unvalidated" and other.pairs == 0


def _with_band(band: dict[str, Any]) -> dict[str, Any]:
    data = copy.deepcopy(_modelled())
    data["runs"][0]["estimate"]["band"] = band
    return data


def test_a_band_in_a_modelled_file_validates() -> None:
    band = band_of("H200 SXM 141GB · dense · FP8 · 1 GPU", [0.1, -0.2, 0.3, 0.0, -0.1]).as_record()
    assert _problems(_with_band(band)) == []
    assert _problems(_with_band(band_of("x", []).as_record())) == []


@pytest.mark.parametrize(
    ("band", "needle"),
    [
        (
            {"category": "c", "pairs": 3, "median": 0.1, "confidence": "low"},
            "expected median, p10 and p90",
        ),
        ({"category": "c", "pairs": 0, "confidence": "validated"}, "confidence unvalidated"),
        (
            {
                "category": "c",
                "pairs": 7,
                "median": 0.0,
                "p10": -0.1,
                "p90": 0.1,
                "confidence": "unvalidated",
            },
            "validated or low",
        ),
        ({"category": "c", "pairs": 1, "median": 0, "p10": 0, "p90": 0, "confidence": "great"}, "confidence"),
    ],
)
def test_a_band_that_contradicts_itself_is_refused(band: dict[str, Any], needle: str) -> None:
    problems = _problems(_with_band(band))
    assert problems and any(needle in p for p in problems), problems


def test_an_estimate_is_never_a_neighbour_in_the_data_quality_gate() -> None:
    """bench.contract.quality compares each run with the same configuration's runs of nearby releases;
    a modelled file gives it no point, while the same file as published gives one per run."""
    from bench.contract.quality import neighbour_payload
    from bench.contract.schema import dict_validator

    modelled = dict_validator().validate_python(yaml.safe_load(dump_data(_modelled())))
    assert neighbour_payload(modelled, "m.yaml", ["a"]) == []
    published = copy.deepcopy(_modelled())
    src = published["submission"]["source"]
    src.update(kind="published")
    del src["estimator"]
    del published["runs"][0]["estimate"]
    plain = dict_validator().validate_python(yaml.safe_load(dump_data(published)))
    assert len(neighbour_payload(plain, "p.yaml", ["a"])) == 1


def test_a_vllm_pair_vouches_for_vllm_estimates_only_and_a_row_without_backend_is_tensorrt_llm() -> None:
    """Another backend reads other kernel tables: its pairs make their own category. The first tables
    have no backend column: their rows are TensorRT-LLM pairs."""
    row = {"gpu": "H200 SXM 141GB", "moe": "False", "precision": "FP8", "tp": "1", "pp": "1"}
    vllm = [{**row, "error": e, "backend": "vllm"} for e in ("0.1", "0.0", "-0.1", "0.2", "0.05")]
    old = [{**row, "error": "0.3"}]  # no backend key at all
    table = bands(vllm + old)
    trt = band_for("H200 SXM 141GB", False, "FP8", 1, 1, table)
    assert (trt.category, trt.pairs, trt.median) == ("H200 SXM 141GB · dense · FP8 · 1 GPU", 1, 0.3)
    v = band_for("H200 SXM 141GB", False, "FP8", 1, 1, table, backend="vllm")
    assert v.category == "H200 SXM 141GB · dense · FP8 · 1 GPU · vLLM"
    assert (v.pairs, v.median, v.confidence, v.reason) == (5, 0.05, "validated", None)
    # SGLang: no pair of its own, so unvalidated with the reason written down (and kept by the schema)
    s = band_for("H200 SXM 141GB", False, "FP8", 1, 1, table, backend="sglang")
    assert (s.pairs, s.confidence) == (0, "unvalidated") and "SGLang" in (s.reason or "")
    assert s.as_record()["reason"] == s.reason and "reason" not in trt.as_record()
