"""Memory planning maths (site_gen/data/memory.py): the GQA KV formula, parallel splits, windows and fits."""

from __future__ import annotations

import pytest

from bench.contract import registry
from site_gen.data import memory

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
        if arch["kv_lora_rank"] or arch["hidden_size"] != arch["attention_heads"] * arch["head_dim"]:
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
    assert plan.weights == pytest.approx(70.55e9 * 2 / 4, rel=1e-12)
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
     ("auto", "BF16", 2), ("bfloat16", "FP8", 2), ("nvfp4", "FP4", 0.5), (None, "Mixed", 2)],
)  # fmt: skip
def test_kv_dtype_bytes_reads_the_result_files_dtype_or_infers_it(
    dtype: str | None, weights: str, want: float
) -> None:
    assert memory.kv_dtype_bytes(dtype, weights) == want


def test_chunked_and_sliding_layers_cache_at_most_their_window() -> None:
    scout = _arch("Llama 4 Scout")  # attention_chunk_size 8192 on layers with (i + 1) % 4 != 0: 36 of 48
    assert memory.layer_counts(scout) == {"F": 12, "S": 0, "C": 36}
    assert memory.cached_positions(scout, 20_000) == 12 * 20_000 + 36 * 8192
    mistral = _arch("Mistral 7B")  # sliding_window 4096 on all 32 layers
    assert memory.cached_positions(mistral, 20_000) == 32 * 4096
    assert memory.cached_positions(mistral, 1000) == 32 * 1000


def test_attended_positions_count_causal_window_and_chunk_pairs() -> None:
    # Positions 1..10, window 4: 1+2+3+4, then 4 each (6 more) = 34; chunks of 4: 10 + 10 + (1 + 2) = 23.
    assert memory.attended_positions({"layers": 1, "layer_pattern": "S", "window": 4}, 1, 10) == 34
    assert memory.attended_positions({"layers": 1, "layer_pattern": "C", "window": 4}, 1, 10) == 23
    assert memory.attended_positions({"layers": 2, "layer_pattern": None, "window": None}, 3, 4) == 2 * 7


def test_nvfp4_weights_carry_block_scales_and_keep_embeddings_and_lm_head_in_bf16() -> None:
    arch = _arch("Llama 3.1 8B")
    embed = 128_256 * 4096
    # 4-bit values + one FP8 scale per 16 = 0.5625 B per weight; embeddings and lm_head BF16.
    assert memory.weight_bytes(arch, "FP4") == pytest.approx((8.03e9 - 2 * embed) * 0.5625 + 2 * embed * 2)
    assert memory.weight_bytes(arch, "FP8") == pytest.approx((8.03e9 - 2 * embed) * 1 + 2 * embed * 2)
    assert (
        memory.weight_bytes(arch, "Mixed") == memory.weight_bytes(arch, "FP16") == pytest.approx(8.03e9 * 2)
    )


# Published checkpoint sizes. gpt-oss: OpenAI's model card (arXiv 2508.10925), table 1, "Checkpoint size":
# 12.8 GiB and 60.8 GiB (MXFP4 experts, everything else BF16). DeepSeek-R1: model.safetensors.index.json
# metadata.total_size, 688,586,727,753 bytes (163 shards; FP8 with 128 x 128 block scales, including the
# multi-token-prediction layer).
@pytest.mark.parametrize(
    ("model", "precision", "published"),
    [
        ("GPT-OSS 20B", "FP4", 12.8 * GIB),
        ("GPT-OSS 120B", "FP4", 60.8 * GIB),
        # NVIDIA's "FP8" GPT-OSS rows (H100, H200) run the same MXFP4 checkpoint (models.yaml)
        ("GPT-OSS 20B", "FP8", 12.8 * GIB),
        ("GPT-OSS 120B", "FP8", 60.8 * GIB),
        ("DeepSeek R1", "FP8", 688_586_727_753),
    ],
)
def test_checkpoint_sizes_match_the_published_ones(model: str, precision: str, published: float) -> None:
    got = memory.checkpoint_bytes(_arch(model), precision)
    assert got == pytest.approx(published, rel=0.03)
    assert got == pytest.approx(published, rel=0.005)  # in fact within half a percent


def test_gpt_oss_mxfp4_by_hand() -> None:
    # gpt-oss-120b: 36 layers x 128 experts x (2,880 x 5,760 + 2,880 x 2,880) in MXFP4 (4.25 bits);
    # attention (q 2,880 x 4,096, k and v 2,880 x 512, o 4,096 x 2,880), router, embedding, unembedding BF16.
    experts = 36 * 128 * 3 * 2880 * 2880
    bf16 = 36 * (2 * 2880 * 4096 + 2 * 2880 * 512) + 36 * 2880 * 128 + 2 * 201_088 * 2880
    rest = 116.83e9 - experts - bf16  # biases and norms, stored with the experts' format here
    want = experts * 4.25 / 8 + bf16 * 2 + rest * 4.25 / 8
    assert memory.weight_bytes(_arch("GPT-OSS 120B"), "FP4") == pytest.approx(want, rel=1e-12)
    assert want / GIB == pytest.approx(60.71, abs=0.01)


def test_llama_3_1_70b_fp8_follows_nvidias_card() -> None:
    # nvidia/Llama-3.1-70B-Instruct-FP8: "Only the weights and activations of the linear operators within
    # transformer blocks are quantized": 68.45e9 FP8 weights (per-tensor scales) + embedding and lm_head BF16.
    embed = 128_256 * 8192
    want = (70.55e9 - 2 * embed) + 2 * embed * 2  # 72.65e9 B = 67.66 GiB
    assert memory.checkpoint_bytes(_arch("Llama 3.1 70B"), "FP8") == pytest.approx(want, rel=1e-12)
    assert want / GIB == pytest.approx(67.66, abs=0.01)


def test_deepseek_fp8_block_scales_add_four_bytes_per_128_by_128_block() -> None:
    fmt = memory.vocabulary()["FORMAT_BYTES"]
    assert fmt["FP8-block128"] == 1 + 4 / (128 * 128)
    assert fmt["NVFP4"] == 0.5 + 1 / 16 and fmt["MXFP4"] == 0.5 + 1 / 32


def test_attention_dp_replicates_attention_and_spreads_sequences() -> None:
    arch = _arch("DeepSeek R1")
    groups = memory.weight_bytes_by_group(arch, "FP8")
    plain = memory.plan(arch, memory.PlanInput("FP8", "FP8", 64, 2048, tp=8))
    adp = memory.plan(arch, memory.PlanInput("FP8", "FP8", 64, 2048, tp=8, attention_dp=True))
    whole = groups["attention"] + groups["embeddings"] + groups["lm_head"]
    assert adp.weights - plain.weights == pytest.approx(whole * 7 / 8)
    # MLA's latent is replicated on every TP rank; with attention DP each rank holds 64 / 8 sequences.
    assert plain.kv_cache == 64 * 61 * 576 * 2048
    assert adp.kv_cache == 8 * 61 * 576 * 2048


def test_the_memory_page_quotes_the_planners_checkpoint_sizes() -> None:
    from pathlib import Path

    page = (Path(__file__).resolve().parents[2] / "docs" / "guide" / "07-memory.md").read_text("utf-8")
    for model, precision in (("GPT-OSS 20B", "FP4"), ("GPT-OSS 120B", "FP4"), ("Llama 3.1 70B", "FP8")):
        assert f"| {memory.checkpoint_bytes(_arch(model), precision) / GIB:.2f} GiB |" in page, model
    assert f"| {memory.checkpoint_bytes(_arch('DeepSeek R1'), 'FP8') / 1e9:.1f} GB |" in page
