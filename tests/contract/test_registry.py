"""bench.contract.registry + bench/data: every published CSV label resolves; every figure has a source."""

from __future__ import annotations

import csv
from pathlib import Path

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


def test_the_precision_vocabulary_covers_the_schema_and_every_label_has_bytes_and_a_peak() -> None:
    from typing import get_args

    from bench.contract.schema import Precision

    assert set(registry.precisions()) == set(get_args(Precision))
    for p in registry.precisions().values():
        assert p.format in registry.formats(), p.name
    nvfp4, mxfp4 = registry.formats()["NVFP4"], registry.formats()["MXFP4"]
    assert nvfp4.bytes_per_weight == 0.5 + 1 / 16  # 4-bit values + one FP8 scale per 16
    assert mxfp4.bytes_per_weight == 0.5 + 1 / 32  # 4-bit values + one E8M0 scale per 32


def _nvidia_ratio(db: Path, num: tuple[str, str], den: tuple[str, str]) -> tuple[int, float]:
    """Median of num/den output tok/s over the NVIDIA configurations (GPU, model, TP, PP, ISL, OSL) both
    (release, precision) tables list, from the imported results/nvidia."""
    import duckdb

    with duckdb.connect(str(db), read_only=True) as con:
        row = con.execute(
            "SELECT count(*), median(x.output_tps / y.output_tps) FROM runs x"
            " JOIN runs y USING (gpu, model, tp, pp, isl, osl)"
            " WHERE x.publisher = 'NVIDIA' AND y.publisher = 'NVIDIA'"
            " AND x.engine_version = ? AND x.precision = ? AND y.engine_version = ? AND y.precision = ?",
            [*num, *den],
        ).fetchone()
    assert row is not None
    return int(row[0]), float(row[1])


@pytest.mark.parametrize(
    ("num", "den", "n", "median"),
    [
        (("0.12.0", "Mixed"), ("0.13.0", "FP16"), 118, 1.00),
        (("0.12.0", "Mixed"), ("0.11.0", "FP16"), 60, 1.04),
        (("0.15.0", "Mixed"), ("0.14.0", "FP16"), 294, 1.04),
        (("0.14.0", "FP16"), ("0.13.0", "FP16"), 186, 1.00),
        (("0.12.0", "Mixed"), ("0.12.0", "FP8"), 50, 0.51),
        (("0.15.0", "Mixed"), ("0.15.0", "FP8"), 104, 0.53),
        (("0.13.0", "FP16"), ("0.13.0", "FP8"), 139, 0.50),
        (("0.14.0", "FP16"), ("0.14.0", "FP8"), 103, 0.52),
    ],
)
def test_mixed_is_16_bit_by_nvidias_own_tables(
    real_db: Path, num: tuple[str, str], den: tuple[str, str], n: int, median: float
) -> None:
    # The evidence quoted in precisions.yaml, recomputed from the imported results: "Mixed" runs as fast
    # as FP16 and half as fast as FP8, so it is 16-bit weights on the 16-bit tensor path.
    got_n, got = _nvidia_ratio(real_db, num, den)
    assert (got_n, round(got, 2)) == (n, median)
    mixed = registry.precisions()["Mixed"]
    assert mixed.tensor_path == "FP16" and registry.formats()[mixed.format].bytes_per_weight == 2
    notes = mixed.notes or ""
    assert f"{median:.2f}" in notes  # the registry quotes the figure
    if num[1] == "Mixed":
        assert f"{n}" in notes
