"""The speed-of-light bound: hand calculations, its invariants, and every imported result below it."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from bench.contract import registry
from site_gen.data import bound, load, memory
from tests.conftest import RESULTS

ROOT = Path(__file__).resolve().parents[2]
GIB = 2**30


def _arch(name: str) -> dict:
    return registry.models().get(name).model_dump()


def _h200(peak_tflops: float) -> bound.GpuFigures:
    return bound.GpuFigures(memory_gb=141, bandwidth_tb_s=4.8, peak_tflops=peak_tflops)


def test_llama_8b_fp16_on_one_h200_at_128_128_matches_the_hand_calculation() -> None:
    # Matmul parameters: 8.03e9 minus the 128,256 x 4,096 input embedding (a lookup, not a matmul).
    lin = 8.03e9 - 128_256 * 4_096  # 7,504,663,424
    kv_token = 32 * 2 * 8 * 128 * 2  # 131,072 B: layers x (K, V) x KV heads x head dim x 2 B
    batch = int((141 * GIB - 8.03e9 * 2) // (kv_token * 256))  # 135.3 GB free / 33.5 MB per sequence
    assert batch == 4033
    # One request: prefill of positions 1..128 (128 x 129 / 2 causal pairs per layer), then 127 decode
    # tokens at positions 129..255, each attending to its position's worth of keys in each of 32 layers.
    prefill_pairs = 32 * 128 * 129 / 2
    decode_pairs = 32 * (255 * 256 / 2 - 128 * 129 / 2)
    per_pair = 4 * 32 * 128  # score + value matmuls, 2 FLOPs per multiply-add, 32 heads x 128
    # lm_head (128,256 x 4,096) runs on the tokens whose logits are gathered: the last prompt token (it
    # yields the first output token) and the 127 decode tokens, not on the other 127 prompt tokens.
    lm_head = 128_256 * 4_096
    prefill = 128 * 2 * (lin - lm_head) + 2 * lm_head + per_pair * prefill_pairs
    flops = prefill + 127 * 2 * lin + per_pair * decode_pairs
    compute_s = batch * flops / 989e12
    # Bytes: 127 steps each read the 15.0 GB of matmul weights; every decode token reads its cached keys.
    memory_s = (127 * 2 * lin + batch * decode_pairs * 2 * 8 * 128 * 2) / 4.8e12
    assert compute_s > memory_s  # 15.1 s against 3.1 s for 4,033 requests: compute-bound
    want = batch * 128 / compute_s  # 34,112 tokens/s

    got = bound.output_tps_bound(_arch("Llama 3.1 8B"), _h200(989), bound.RunShape("FP16", 2, 128, 128, 1))
    assert got is not None
    assert got.batch == batch and got.limit == "compute"
    assert got.output_tps == pytest.approx(want, rel=1e-9)
    assert got.output_tps == pytest.approx(34_112, abs=1)
    # The guide's example: KISTI measured 16,660 tokens/s for this run, 48.8 % of the bound (50.6 % when
    # lm_head was charged on all 128 prompt tokens: 16,660 / 32,928).
    assert round(100 * 16_660 / got.output_tps, 1) == 48.8


def test_llama_70b_fp8_on_one_h200_with_concurrency_64_is_bandwidth_bound() -> None:
    embed = 128_256 * 8_192
    lin = 70.55e9 - embed  # 69,499,326,848 matmul parameters
    # NVIDIA's FP8 checkpoints quantise the linear layers of the transformer blocks: lm_head stays BF16.
    weight_bytes = (70.55e9 - 2 * embed) * 1 + 2 * embed * 2  # 72.65 GB stored
    step_bytes = weight_bytes - embed * 2  # the embedding table is not read whole
    kv_token = 80 * 2 * 8 * 128 * 1  # 163,840 B with an FP8 KV cache
    # Memory would hold 220 sequences of 2,176 tokens; concurrency 64 caps the batch.
    assert (141 * GIB - weight_bytes) // (kv_token * 2176) == 220
    decode_pairs = 80 * ((128 + 2047) * (128 + 2048) / 2 - 128 * 129 / 2)  # positions 129..2175
    memory_s = (2047 * step_bytes + 64 * decode_pairs * 2 * 8 * 128) / 4.8e12  # 35.2 s
    # lm_head (embed-sized) on the last prompt token and the 2,047 decode tokens only
    flops = 128 * 2 * (lin - embed) + 2 * embed + 2047 * 2 * lin
    flops += 4 * 64 * 128 * (80 * 128 * 129 / 2 + decode_pairs)
    compute_s = 64 * flops / 1979e12  # 10.0 s
    assert memory_s > compute_s
    want = 64 * 2048 / memory_s  # 3,720 tokens/s

    run = bound.RunShape("FP8", 1, 128, 2048, 1, concurrency=64)
    got = bound.output_tps_bound(_arch("Llama 3.1 70B"), _h200(1979), run)
    assert got is not None
    assert got.batch == 64 and got.limit == "memory"
    assert got.output_tps == pytest.approx(want, rel=1e-9)
    assert got.output_tps == pytest.approx(3_720, abs=1)


def test_prefill_overlaps_decode_instead_of_adding_to_it() -> None:
    # 2048/128 at concurrency 64: adding the prefill's compute time to the decode steps' memory time
    # (the former model) gives 2,678 tokens/s; overlapped, max(FLOPs / peak, bytes / bandwidth), 3,736.
    arch, gpu = _arch("Llama 3.1 8B"), _h200(989)
    run = bound.RunShape("FP16", 2, 2048, 128, 1, concurrency=64)
    got = bound.output_tps_bound(arch, gpu, run)
    assert got is not None
    additive = got.batch * 128 / (got.compute_s + got.memory_s)
    assert got.output_tps == pytest.approx(got.batch * 128 / max(got.compute_s, got.memory_s))
    assert got.output_tps > 1.3 * additive


def test_moe_decode_at_batch_one_reads_exactly_the_active_experts() -> None:
    arch = _arch("Mixtral 8x7B")
    parts = bound._parts(arch, "FP16")
    embed = arch["vocab_size"] * arch["hidden_size"]
    read_at_1 = parts.shared_bytes + parts.expert_bytes * bound._experts_touched(parts, 1)
    # config.json: 32 layers x 2 of 8 experts x 3 x 4,096 x 14,336, plus everything but the embedding.
    experts = 32 * 8 * 3 * 4096 * 14336
    assert read_at_1 == pytest.approx(2 * (46.703e9 - embed - experts + experts * 2 / 8), rel=1e-9)
    read_at_4096 = parts.shared_bytes + parts.expert_bytes * bound._experts_touched(parts, 4096)
    assert read_at_4096 == pytest.approx(2 * (46.703e9 - embed), rel=1e-6)  # every expert


def test_sliding_window_layers_raise_the_bound_of_long_outputs() -> None:
    arch = _arch("GPT-OSS 20B")
    gpu = bound.GpuFigures(186, 8.0, 10_000)
    run = bound.RunShape("FP4", 1, 1024, 32768, 1)
    windowed = bound.output_tps_bound(arch, gpu, run)
    full = bound.output_tps_bound({**arch, "layer_pattern": None, "window": None}, gpu, run)
    assert windowed and full
    assert windowed.batch > 1.8 * full.batch  # half the layers cache 128 tokens instead of 33,792
    assert windowed.output_tps > 1.5 * full.output_tps


@pytest.mark.parametrize(
    ("model", "isl", "osl", "gain"),
    [("Mistral 7B", 20000, 2000, 3.0), ("Llama 4 Scout", 20000, 2000, 1.5)],
)
def test_mistral_window_and_llama4_chunks_raise_long_context_bounds(
    model: str, isl: int, osl: int, gain: float
) -> None:
    # Mistral 7B: sliding_window 4096 on all 32 layers; Llama 4: chunks of 8,192 on 36 of 48 layers.
    arch, gpu = _arch(model), bound.GpuFigures(141, 4.8, 1979)
    run = bound.RunShape("FP8", 1, isl, osl, 8)
    windowed = bound.output_tps_bound(arch, gpu, run)
    full = bound.output_tps_bound({**arch, "layer_pattern": None, "window": None}, gpu, run)
    assert windowed and full
    assert windowed.output_tps > gain * full.output_tps


def test_mla_decode_attention_works_on_the_latent() -> None:
    arch = _arch("DeepSeek R1")  # 128 heads, kv_lora_rank 512, RoPE key 64, head dim 128
    assert bound.attention_flops_per_pair(arch, decode=True) == 2 * 128 * (2 * 512 + 64)
    assert bound.attention_flops_per_pair(arch, decode=False) == 2 * 128 * (2 * 128 + 64)
    assert bound.attention_flops_per_pair(_arch("Llama 3.1 8B"), decode=True) == 4 * 32 * 128


def test_weights_that_do_not_fit_give_no_bound() -> None:
    run = bound.RunShape("FP16", 2, 128, 128, 1)
    assert bound.output_tps_bound(_arch("Llama 3.1 405B"), _h200(989), run) is None


def test_peak_follows_the_precision_vocabulary() -> None:
    a100 = registry.gpus().get("A100 SXM4 80GB").tflops_dense
    assert bound.peak_tflops(a100, "FP8") == 312  # no FP8 tensor cores on Ampere: 16-bit math
    assert bound.peak_tflops(registry.gpus().get("B200").tflops_dense, "FP4") == 9000
    # "Mixed" runs at 16-bit speed in NVIDIA's tables (precisions.yaml): the FP16 peak, not FP8's 1,979.
    assert bound.peak_tflops(registry.gpus().get("H100").tflops_dense, "Mixed") == 989


def test_gpt_oss_fp8_on_hopper_is_mxfp4_weights_with_16_bit_math_and_cache() -> None:
    """What NVIDIA's "FP8" GPT-OSS rows run, from TensorRT-LLM's source: examples/models/core/gpt_oss/
    README.md (commit 0ee4114c) gives Hopper BF16 activations x MXFP4 MoE weights (TRITON or CUTLASS), every
    other weight BF16; the perf-overview options (commit 03e27c7d) set the KV cache to fp8 with "Hopper: use
    auto", i.e. the checkpoint's BF16. On Blackwell ("FP4") the activations are MXFP8: the FP8 rate."""
    arch = _arch("GPT-OSS 120B")
    h200, b200 = registry.gpus().get("H200").tflops_dense, registry.gpus().get("B200").tflops_dense
    assert bound.peak_tflops(h200, "FP8", arch) == h200["BF16"] == 989  # not the FP8 path's 1,979
    assert bound.peak_tflops(b200, "FP4", arch) == b200["FP8"] == 4500  # not the FP4 path's 9,000
    assert bound.peak_tflops(h200, "FP8") == 1979  # a model without the override keeps the FP8 path
    assert memory.kv_dtype_bytes(None, "FP8", arch) == 2 and memory.kv_dtype_bytes("auto", "FP8", arch) == 2
    assert memory.kv_dtype_bytes("fp8", "FP8", arch) == 1  # a run that names its cache dtype keeps it
    # the MXFP4 checkpoint either way: routed experts at 4.25 bits, attention, router, embeddings in BF16
    assert memory.weight_bytes(arch, "FP8") == memory.weight_bytes(arch, "FP4")
    config = {
        "gpu": "H200 SXM 141GB", "model": arch["id"], "precision": "FP8", "kv_cache_dtype": None,
        "isl": 1000, "osl": 1000, "n_gpus": 1, "concurrency": None, "num_requests": 3000,
    }  # fmt: skip
    gpus = {g.name: g for g in registry.gpus().entries}
    got = bound.bound_for_config(config, gpus, {arch["id"]: registry.models().get("GPT-OSS 120B")})
    want = bound.output_tps_bound(
        arch, _h200(989), bound.RunShape("FP8", 2, 1000, 1000, 1, num_requests=3000)
    )
    assert got is not None and want is not None and got.output_tps == pytest.approx(want.output_tps)


def _has_tensor_figures(gpu: str, precision: str) -> bool:
    try:
        bound.peak_tflops(registry.gpus().get(gpu).tflops_dense, precision)
    except ValueError:
        return False
    return True


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory) -> duckdb.DuckDBPyConnection:
    db = tmp_path_factory.mktemp("bound") / "runs.duckdb"
    load.ingest(RESULTS, db)
    return duckdb.connect(str(db), read_only=True)


def test_every_imported_result_is_below_its_bound(imported: duckdb.DuckDBPyConnection) -> None:
    rows = imported.execute(
        "SELECT gpu, model, precision, engine_version, isl, osl, output_tps, erratum, pct_of_bound FROM runs"
        " WHERE output_tps IS NOT NULL AND bound_note IS DISTINCT FROM 'unknown-peak'"
    ).fetchall()  # a GPU whose vendor publishes no tensor-core figure has no bound, by design
    assert len(rows) > 4000
    # No bound only where the registry has no dense tensor figure for the GPU (Jetson; Arc at 16 bits)
    missing = [r for r in rows if r[-1] is None and _has_tensor_figures(r[0], r[2])]
    assert missing == [], "runs without a bound (weights larger than the registry's memory?)"
    # Above 100 % only with the evidence that the source is wrong (bench/data/errata.yaml; validate refuses
    # any other): e.g. NVIDIA's 0.10.0 GPT-J 6B FP8 128/2048 on H100, 54,939.48 tokens/s, 6x its H200 figure
    # in the same row and 7x the H100's 7,643 in 0.11.0.
    over = [r for r in rows if r[-1] is not None and r[-1] >= 100 and not r[-2]]
    assert over == [], over


def test_pct_of_bound_is_output_over_bound_for_every_run(imported: duckdb.DuckDBPyConnection) -> None:
    worst = imported.execute(
        "SELECT max(abs(pct_of_bound - 100 * output_tps / bound_output_tps)) FROM runs"
    ).fetchone()
    assert worst is not None and worst[0] < 1e-9
    per_user_only = imported.execute(
        "SELECT count(*) FROM runs WHERE output_tps IS NULL AND pct_of_bound IS NOT NULL"
    ).fetchone()
    assert per_user_only == (0,)


def test_the_checking_workers_bounds_are_the_ones_the_database_alone_gives(
    imported: duckdb.DuckDBPyConnection, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The ingest takes each configuration's bound from the checking workers (``bound.file_bounds``:
    the quality check's ceiling) and computes in the parent only the rest; every run's bound, % and note
    are what computing every configuration from the database gives (``add_columns`` with nothing given)."""
    cols = "run_id, bound_output_tps, pct_of_bound, bound_note"
    given = imported.execute(f"SELECT {cols} FROM runs ORDER BY run_id").fetchall()
    db = tmp_path / "again.duckdb"
    db.write_bytes(Path(imported.execute("PRAGMA database_list").fetchone()[2]).read_bytes())  # type: ignore[index]
    with duckdb.connect(str(db)) as con:
        con.execute("UPDATE runs SET bound_output_tps = NULL, pct_of_bound = NULL, bound_note = NULL")
        bound.add_columns(con)
        assert con.execute(f"SELECT {cols} FROM runs ORDER BY run_id").fetchall() == given
    # and the parent computed only the configurations the workers left: those with no bound
    calls: list[dict] = []
    real = bound.bound_for_config
    monkeypatch.setattr(bound, "bound_for_config", lambda c, g, m: calls.append(c) or real(c, g, m))
    distinct = "SELECT DISTINCT gpu, model, precision, kv_cache_dtype, isl, osl, n_gpus, concurrency,"
    distinct += " num_requests FROM runs"
    with duckdb.connect(str(db), read_only=True) as con:
        configs = con.execute(f"SELECT count(*) FROM ({distinct})").fetchone()[0]  # type: ignore[index]
        unbounded = con.execute(
            f"SELECT count(*) FROM ({distinct} WHERE bound_output_tps IS NULL)"
        ).fetchone()[0]  # type: ignore[index]
    load.ingest(RESULTS, tmp_path / "counted.duckdb")
    assert len(calls) == unbounded < configs


def test_the_guide_quotes_the_distribution_of_the_data(
    imported: duckdb.DuckDBPyConnection, tmp_path: Path
) -> None:
    """The page's figures are stat markers, filled at build time with what the data says (computed here
    with numpy from every run's % of bound, not with the markers' SQL)."""
    import markdown
    import numpy as np

    from site_gen.charts.specs import ChartContext
    from site_gen.pages import markers

    rows = imported.execute("SELECT pct_of_bound, erratum, precision FROM runs").fetchall()
    pcts = np.array([r[0] for r in rows if r[0] is not None and r[1] is None])
    mixed = np.array([r[0] for r in rows if r[0] is not None and r[2] == "Mixed"])
    want = [f"{len(pcts):,}", *(f"{v:.1f}%" for v in (np.median(pcts), np.percentile(pcts, 90), pcts.max()))]
    want.append(f"{np.median(mixed):.1f}%")
    db = tmp_path / "copy.duckdb"
    db.write_bytes(Path(imported.execute("PRAGMA database_list").fetchone()[2]).read_bytes())  # type: ignore[index]
    site = markers.Site(runs=__import__("pandas").DataFrame(), ctx=ChartContext(gpus=()), db=db)
    for name, lang_sep in (
        ("08-speed-of-light.md", " results with a bound"),
        ("08-speed-of-light.ko.md", "개 결과"),
    ):
        # markers are expanded in the page's HTML: a comment that starts a line would leave its paragraph
        html = markdown.markdown((ROOT / "docs" / "guide" / name).read_text(encoding="utf-8"))
        page = markers.Page(site, "guide/08-speed-of-light.html")
        out = " ".join(page.expand(html).split())
        assert page.errors == []
        got = [out.split(f'data-stat="{n}">')[1].split("<")[0] for n in
               ("bound-runs", "bound-median", "bound-p90", "bound-best", "bound-mixed-median")]  # fmt: skip
        assert got == want, name
        assert f'data-stat="bound-runs">{want[0]}</span>{lang_sep}' in out, name  # in its sentence
        paragraph = next(p for p in out.split("<p>") if 'data-stat="bound-runs"' in p)
        assert paragraph.count("data-stat=") == 5, name  # all five in one paragraph


def test_runs_the_model_cannot_bound_are_named(imported: duckdb.DuckDBPyConnection) -> None:
    """Speculative decoding and prefix reuse lower the work per output token; release 0.10's
    gptManagerBenchmark admitted requests by current use (``--scheduler_policy max_utilization``, the
    method of its perf-overview), not with room for all their tokens as the bound assumes. Such runs carry
    ``bound_note`` and keep their %; runs without a bound say why; no other run has a note."""
    rows = imported.execute(
        "SELECT engine_version, benchmark_tool, notes, extra_options, pct_of_bound, output_tps, bound_note"
        " FROM runs"
    ).fetchall()
    for version, tool, notes, extra, pct, tps, note in rows:
        codes = set(note.split(",")) if note else set()
        assert codes <= set(bound.NOTES)
        if pct is None:
            assert (codes <= set(bound.UNKNOWN) and len(codes) == 1) or tps is None
            continue
        assert ("max-utilization" in codes) == (version.startswith("0.10") and tool == "gptManagerBenchmark")
        assert ("speculative" in codes) == bool(notes and "MTP" in notes) or "speculative" in (extra or "")
    # LLM-API options name speculative decoding too (TensorRT-LLM's llm_args: speculative_config)
    extra = {"speculative_config": {"decoding_type": "MTP", "num_nextn_predict_layers": 3}}
    assert bound.bound_caveats(None, extra, "1.2.0", "trtllm-bench") == ["speculative"]
    assert bound.bound_caveats("prefix caching on, shared prefix of 1,000 tokens", None, "1.2", "x") == [
        "prefix-reuse"
    ]
    assert bound.bound_caveats("plain run", {"kv_cache_config": {"dtype": "fp8"}}, "0.11.0", "x") == []
