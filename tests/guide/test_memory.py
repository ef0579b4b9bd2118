"""Memory planning maths (site_gen/memory.py): the GQA KV formula, parallel splits, windows and fits."""

from __future__ import annotations

import pytest

from bench.contract import registry
from site_gen import memory

GIB = 2**30


def _arch(name: str) -> dict:
    return registry.models().get(name).model_dump()


def test_gqa_kv_per_token_for_llama_3_1_70b_is_320_kib_and_the_shortcut_is_8x() -> None:
    arch = _arch("Llama 3.1 70B")
    assert memory.kv_bytes_per_token(arch, 2) == 2 * 80 * 8 * 128 * 2 == 327_680
    assert memory.kv_bytes_per_token_simplified(arch, 2) == 2 * 80 * 8192 * 2
    assert memory.kv_bytes_per_token(arch, 1) == 163_840  # FP8 cache halves it


def test_the_shortcut_overstates_every_gqa_model_by_heads_over_kv_heads() -> None:
    for m in registry.models().entries:
        arch = m.model_dump()
        if arch["kv_dim_per_layer"] or arch["hidden_size"] != arch["attention_heads"] * arch["head_dim"]:
            continue  # MLA, or a model whose hidden size is not heads x head dim
        ratio = memory.kv_bytes_per_token_simplified(arch, 2) / memory.kv_bytes_per_token(arch, 2)
        assert ratio == pytest.approx(arch["attention_heads"] / arch["kv_heads"]), m.id


def test_the_per_token_formula_agrees_with_the_registry() -> None:
    for m in registry.models().entries:
        assert memory.kv_elements_per_token(m.model_dump()) == m.kv_elements_per_token, m.id


def test_tp_splits_kv_heads_and_replicates_them_past_the_head_count() -> None:
    arch = _arch("Llama 3.1 8B")  # 8 KV heads
    full = memory.kv_bytes_per_sequence(arch, 2, 1000)
    assert memory.kv_bytes_per_sequence_per_gpu(arch, 2, 1000, tp=4, pp=1) == full / 4
    assert memory.kv_bytes_per_sequence_per_gpu(arch, 2, 1000, tp=8, pp=1) == full / 8
    assert memory.kv_bytes_per_sequence_per_gpu(arch, 2, 1000, tp=16, pp=1) == full / 8  # one head per GPU


def test_a_latent_cache_is_not_split_by_tp_but_is_split_by_pp() -> None:
    arch = _arch("DeepSeek R1")
    full = memory.kv_bytes_per_sequence(arch, 2, 1000)
    assert full == 61 * 576 * 2 * 1000
    assert memory.kv_bytes_per_sequence_per_gpu(arch, 2, 1000, tp=8, pp=1) == full
    assert memory.kv_bytes_per_sequence_per_gpu(arch, 2, 1000, tp=8, pp=2) == full * 31 / 61


def test_uneven_pipeline_stages_size_for_the_largest_stage() -> None:
    arch = _arch("GPT-J 6B")  # 28 layers over 3 stages: 10, 9, 9
    full = memory.kv_bytes_per_sequence(arch, 2, 100)
    assert memory.kv_bytes_per_sequence_per_gpu(arch, 2, 100, tp=1, pp=3) == full * 10 / 28


def test_sliding_window_layers_cache_only_their_window() -> None:
    arch = _arch("GPT-OSS 120B")  # 36 layers, 18 windowed at 128 tokens
    per_layer_token = 2 * 8 * 64 * 2
    assert memory.kv_bytes_per_sequence(arch, 2, 100) == 36 * 100 * per_layer_token
    assert memory.kv_bytes_per_sequence(arch, 2, 10_000) == (18 * 10_000 + 18 * 128) * per_layer_token


def test_plan_for_llama_70b_fp16_tp4_matches_the_guide_example() -> None:
    plan = memory.plan(_arch("Llama 3.1 70B"), memory.PlanInput("FP16", "FP16", 32, 4096, tp=4, pp=1))
    assert plan.weights == 70.55e9 * 2 / 4
    assert plan.kv_cache == 32 * 4096 * 327_680 / 4
    # 8,192 tokens x (2 x 8,192 + (8,192 + 2,048 + 2 x 28,672) / 4) x 2 B + 32 x 128,256 / 4 x 4 B
    assert plan.activations == 8192 * (2 * 8192 + (8192 + 2048 + 2 * 28672) / 4) * 2 + 32 * 128256 / 4 * 4
    assert plan.overhead == 1.5 * GIB
    assert plan.total / GIB == pytest.approx(44.86, abs=0.005)


def test_activations_follow_max_num_tokens_not_the_batch() -> None:
    arch = _arch("Llama 3.1 8B")
    small = memory.activation_bytes_per_gpu(arch, 8, 4096, tp=1, max_num_tokens=8192)
    big = memory.activation_bytes_per_gpu(arch, 512, 4096, tp=1, max_num_tokens=8192)
    logits = (512 - 8) * 128_256 * 4  # only the logits grow with the batch
    assert big - small == pytest.approx(logits)


def test_smallest_fit_uses_tp_inside_a_node_then_pp() -> None:
    inp = memory.PlanInput("FP16", "FP16", 1, 2048)
    assert memory.smallest_fit(_arch("Llama 3.1 8B"), inp, 80) == (1, 1)
    assert memory.smallest_fit(_arch("Llama 3.1 70B"), inp, 80) == (2, 1)
    assert memory.smallest_fit(_arch("Llama 3.1 405B"), inp, 80) == (8, 2)  # 812 GB of weights
    assert memory.smallest_fit(_arch("Llama 3.1 405B"), inp, 4) is None  # not even on 128 GPUs


def test_fit_table_reports_each_gpu() -> None:
    gpus = memory.planner_payload()["gpus"]
    rows = {
        r["gpu"]: r
        for r in memory.fit_table(_arch("Llama 3.1 70B"), memory.PlanInput("FP8", "FP8", 64, 4096), gpus)
    }
    assert not rows["H100 SXM 80GB"]["fits"] and rows["H100 SXM 80GB"]["min_layout"] == "TP2 x PP1"
    assert rows["H200 SXM 141GB"]["fits"] and rows["H200 SXM 141GB"]["min_gpus"] == 1
    assert rows["H200 SXM 141GB"]["free_bytes"] > 0 > rows["H100 SXM 80GB"]["free_bytes"]


@pytest.mark.parametrize(
    ("dtype", "weights", "want"),
    [("fp8", "FP16", 1), ("FP8", "FP16", 1), (None, "FP8", 1), (None, "FP4", 1), (None, "FP16", 2),
     ("auto", "BF16", 2), ("bfloat16", "FP8", 2), ("nvfp4", "FP4", 0.5)],
)  # fmt: skip
def test_kv_dtype_bytes_reads_the_result_files_dtype_or_infers_it(
    dtype: str | None, weights: str, want: float
) -> None:
    assert memory.kv_dtype_bytes(dtype, weights) == want
