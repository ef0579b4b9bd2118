"""bench.contract.registry + bench/data: every published CSV label resolves; every figure has a source."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from bench.contract import registry
from bench.errors import UserError
from bench.importers.tables import releases

from .conftest import KISTI_CSV, NVIDIA_CSV

DATA = Path(__file__).parent / "data"


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


def _llama4_text_params(text: dict) -> int:
    """Parameters of a Llama 4 text model from its config.json (transformers' Llama4TextModel shapes).

    Per layer: q and o (hidden x heads x head_dim each), k and v (hidden x kv_heads x head_dim each), two
    RMSNorm weights (QK-norm has none); a MoE layer (every ``interleave_moe_layer_step``-th) has the router
    (hidden x experts), the routed experts (experts x 3 x hidden x intermediate_size: gate, up, down) and a
    shared expert (3 x hidden x intermediate_size); a dense layer an MLP of 3 x hidden x
    intermediate_size_mlp. Plus the embedding table and, untied, lm_head (vocab x hidden), and the final norm.
    """
    h, layers, step = text["hidden_size"], text["num_hidden_layers"], text["interleave_moe_layer_step"]
    hd, e = text["head_dim"], text["num_local_experts"]
    attn = 2 * h * text["num_attention_heads"] * hd + 2 * h * text["num_key_value_heads"] * hd + 2 * h
    moe = h * e + e * 3 * h * text["intermediate_size"] + 3 * h * text["intermediate_size"]
    dense = 3 * h * text["intermediate_size_mlp"]
    moe_layers = sum(1 for i in range(layers) if (i + 1) % step == 0)
    return layers * attn + moe_layers * moe + (layers - moe_layers) * dense + 2 * text["vocab_size"] * h + h


def _llama4_vision_params(vision: dict, text_hidden: int) -> int:
    """The vision encoder, its pixel-shuffle adapter and the projector (transformers' Llama4VisionModel).

    34 layers of attention (4 x (d x d + d)), MLP (d x i + i, i x d + d) and two LayerNorms (weight and
    bias); patch embedding (3 x 14 x 14 x d), class embedding (d), positional embedding ((patches + 1) x d),
    the pre and post LayerNorms; the adapter MLP (i x o, o x o: pixel shuffle 0.5 gives 4 d = i inputs) and
    the projector (o x text hidden), all without bias.
    """
    d, i = vision["hidden_size"], vision["intermediate_size"]
    layer = 4 * (d * d + d) + (d * i + i) + (i * d + d) + 4 * d
    patches = (vision["image_size"] // vision["patch_size"]) ** 2
    stem = vision["num_channels"] * vision["patch_size"] ** 2 * d + d + (patches + 1) * d + 4 * d
    adapter = int(d / vision["pixel_shuffle_ratio"] ** 2) * vision["projector_input_dim"]
    adapter += vision["projector_input_dim"] * vision["projector_output_dim"]
    projector = vision["projector_output_dim"] * text_hidden
    assert int(d / vision["pixel_shuffle_ratio"] ** 2) == i
    return vision["num_hidden_layers"] * layer + stem + adapter + projector


def test_llama4_scout_counts_the_text_model_only() -> None:
    # The bound and the planner charge params_b as the weights a text run holds and reads: TensorRT-LLM's
    # text benchmarks never load the vision tower. Scout's 108.6 B counted the 0.87 B vision encoder and
    # projector too (its Hugging Face "109B"); Maverick's 400.7 B was already text only.
    config = json.loads((DATA / "llama-4-scout-17b-16e-config.json").read_text(encoding="utf-8"))
    text, vision = config["text_config"], config["vision_config"]
    text_params = _llama4_text_params(text)
    assert text_params == 107_769_861_120
    assert text_params + _llama4_vision_params(vision, text["hidden_size"]) == pytest.approx(
        108.64e9, rel=1e-3
    )
    scout = registry.models().get("Llama 4 Scout")
    assert scout.params_b * 1e9 == pytest.approx(text_params, rel=5e-4)
    assert (scout.hidden_size, scout.layers, scout.experts, scout.vocab_size) == (
        text["hidden_size"],
        text["num_hidden_layers"],
        text["num_local_experts"],
        text["vocab_size"],
    )
    # The Maverick entry by the same count (config.json: 128 experts, MoE on every second layer).
    maverick = {**text, "num_local_experts": 128, "interleave_moe_layer_step": 2}
    assert registry.models().get("Llama 4 Maverick").params_b * 1e9 == pytest.approx(
        _llama4_text_params(maverick), rel=5e-4
    )
