"""bench.contract.registry + bench/data: every published CSV label resolves; every figure has a source."""

from __future__ import annotations

import csv

import pytest

from bench.contract import registry
from bench.errors import UserError
from bench.importers.tables import releases

from .conftest import KISTI_CSV, NVIDIA_CSV


def _labels(column: str) -> set[str]:
    out = set()
    for path in (KISTI_CSV, NVIDIA_CSV):
        with path.open(encoding="utf-8") as f:
            out |= {row[column] for row in csv.DictReader(f)}
    return out


def test_every_gpu_and_model_label_of_the_csvs_resolves() -> None:
    assert all(registry.gpus().find(label) for label in _labels("gpu"))
    assert all(registry.models().find(label) for label in _labels("model"))


@pytest.mark.parametrize(
    ("label", "name"),
    [
        ("GH200 120GB", "GH200 96GB"),  # 120 GB is Grace LPDDR5X; see the entry's notes
        ("GH200 96GB HBM3 CG1", "GH200 96GB"),
        ("GH200 480GB", "GH200 96GB"),
        ("H200 141GB HBM3", "H200 SXM 141GB"),
        ("h200  sxm 141gb", "H200 SXM 141GB"),
        ("V100 PCIE 32GB", "V100 PCIe 32GB"),
        ("B300 (beta)", "B300 288GB"),
        ("RTX 6000 Pro Blackwell Server Edition", "RTX PRO 6000 Blackwell Server"),
    ],
)
def test_gpu_labels_map_to_canonical_names(label: str, name: str) -> None:
    assert registry.gpus().get(label).name == name


def test_gh200_120gb_decision_is_recorded_in_the_registry() -> None:
    notes = registry.gpus().get("GH200 120GB").notes or ""
    assert "120 GB is a Grace LPDDR5X" in notes


def test_unknown_names_raise_with_the_closest_known_names() -> None:
    with pytest.raises(UserError, match=r"unknown GPU 'H300'; closest known: H200 SXM 141GB"):
        registry.gpus().get("H300")
    with pytest.raises(registry.UnknownName) as e:
        registry.models().get("Llama 3.1 8")
    assert e.value.suggestions[0] == "meta-llama/Llama-3.1-8B-Instruct"


def test_every_entry_cites_a_source_and_figures_are_consistent() -> None:
    for g in registry.gpus().entries:
        assert g.source.startswith("https://"), g.name
        fp16, fp8 = g.tflops_dense["FP16"], g.tflops_dense["FP8"]
        if fp16 and fp8:  # one precision step doubles dense tensor throughput on every listed GPU
            assert fp8 == pytest.approx(2 * fp16, rel=0.02), g.name
    for m in registry.models().entries:
        assert m.source, m.id
        assert m.params_b >= (m.active_params_b or 0)


def test_release_dates_increase_with_the_version() -> None:
    ordered = sorted(releases().items())
    dates = [r["date"] for _, r in ordered]
    assert dates == sorted(dates)
    assert {
        k: r["num_requests"]["128/128"]
        for k, r in ordered
        if "num_requests" in r and "128/128" in r["num_requests"]
    }[(0, 13, 0)] == 30000
