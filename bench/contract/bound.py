"""Speed-of-light bound: the most output tokens/s a run's GPUs could deliver, from registry figures alone.

Inputs: the GPU registry (HBM bandwidth, dense tensor FLOP/s on the precision's tensor path, memory per
GPU), the model registry (tensor shapes, per-layer attention pattern), the precision vocabulary (stored
bytes per weight) and the run (ISL, OSL, GPU count, weight precision, KV-cache dtype, concurrency). Output:
an upper bound on output tokens/s over all the run's GPUs. It lives in the result contract because
``llmbench validate`` refuses a run above it (bench/contract/quality.py); ``site_gen/data/bound.py`` writes it
into the DuckDB ``runs`` table as ``bound_output_tps`` and ``pct_of_bound``.

The model (docs/guide/08-speed-of-light.md derives and discusses it): a roofline over in-flight batching.
- the N GPUs pool their memory, bandwidth and FLOP/s perfectly (no communication cost, no replication);
- batch B = the most sequences of ISL + OSL tokens whose KV cache fits beside the weights in all memory
  (capped by the run's concurrency and request count);
- B requests are served by OSL - 1 decode steps of B sequences (the first output token of each comes out
  of its prefill), with the B prefills spread over those steps, as in-flight batching does;
- each step takes at least max(compute, memory): compute = its FLOPs / peak, memory = its bytes /
  bandwidth; with the prefill spread evenly every step has the same work, so the sum over the steps is
  max(FLOPs of B requests / peak, bytes of B requests / bandwidth), which no schedule beats:
  bound = B x OSL / that time.
- FLOPs: 2 per active matmul parameter per token (prefill and decode) plus attention's score and value
  matmuls over the (query, key) pairs each layer's attention pattern allows (full, sliding, chunked);
  lm_head only where logits are computed: each decode token and the last prompt token (TensorRT-LLM's
  tensorrt_llm/_torch/modules/logits_processor.py applies lm_head to each sequence's last token unless
  return_context_logits is set; the engine workflow's gather_context_logits is off by default);
- bytes: the weights every step reads (the routed experts B tokens are expected to touch) and the KV
  cache each decode token reads; nothing for activations, KV writes or the prefill's own weight reads
  (they ride along with the decode steps).
Every omission lowers the time, so the figure stays an upper bound for a scheduler that admits a sequence
only with room for all its ISL + OSL tokens (TensorRT-LLM's default GUARANTEED_NO_EVICT). It is not one
for work the model leaves out of the run itself: speculative decoding (several tokens per weight pass),
prefix reuse (cached prompt tokens skip prefill) and admission by current use (release 0.10's
max_utilization); ``bound_caveats`` names such runs, and ``NOTES`` says why in words.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import Any

from bench.contract import modelmath as memory

# Peak used when the GPU has no tensor path for the precision (FP8 weights on Ampere run as 16-bit math).
_PEAK_FALLBACK = ("FP16", "BF16")


@dataclass(frozen=True)
class GpuFigures:
    """The three registry figures the bound needs, per GPU."""

    memory_gb: float  # read as GiB
    bandwidth_tb_s: float
    peak_tflops: float


@dataclass(frozen=True)
class RunShape:
    """The run's side of the bound."""

    weight_precision: str
    kv_bytes: float
    isl: int
    osl: int
    n_gpus: int
    concurrency: int | None = None
    num_requests: int | None = None


@dataclass(frozen=True)
class Bound:
    """An upper bound on output tokens/s (all GPUs) and how it was reached, for one round of B requests."""

    output_tps: float
    batch: int  # sequences in flight
    compute_s: float  # all FLOPs of B requests (prefill + decode) / peak
    memory_s: float  # all bytes of B requests' decode steps / bandwidth
    limit: str  # "memory" or "compute": which side of max() set the time


def peak_tflops(
    tflops_dense: dict[str, float | None], precision: str, arch: dict[str, Any] | None = None
) -> float | None:
    """Dense tensor TFLOP/s on a precision's tensor path (precisions.yaml), else the 16-bit figure.

    None when the registry has neither (a GPU whose vendor publishes no dense tensor figure): the run's
    bound is then unknown, never guessed (``unknown_reason`` says so).
    """
    key = memory.tensor_path(precision, arch)
    for k in (key, *_PEAK_FALLBACK):
        if tflops_dense.get(k):
            return float(tflops_dense[k])  # type: ignore[arg-type]
    return None


@dataclass(frozen=True)
class _Parts:
    """Parameters per token (FLOPs) and bytes per step (memory) the bound splits a model into."""

    lin_active: float  # matmul parameters one token passes through (lm_head included)
    lm_head: float  # of which the output projection, computed only for tokens whose logits are gathered
    shared_bytes: float  # bytes every decode step reads (all of a dense model but the embedding table)
    expert_bytes: float  # one routed expert's bytes over all MoE layers (0 for dense)
    experts: int
    top_k: int


def _parts(arch: dict[str, Any], weight_precision: str) -> _Parts:
    """Split the model by tensor group (memory.param_groups).

    The input embedding table is a lookup, not a matmul, and only B of its rows are read per step: it is
    left out of FLOPs and bytes. A token passes through top_k of the routed experts.
    """
    groups = memory.param_groups(arch)
    by_group = memory.weight_bytes_by_group(arch, weight_precision)
    experts, top_k = arch.get("experts") or 0, arch.get("experts_per_token") or 0
    routed = groups["experts"] * top_k / experts if experts else 0.0
    lin_active = sum(n for g, n in groups.items() if g not in ("embeddings", "experts")) + routed
    shared = sum(b for g, b in by_group.items() if g not in ("embeddings", "experts"))
    return _Parts(
        lin_active,
        groups["lm_head"],
        shared,
        by_group["experts"] / experts if experts else 0.0,
        experts,
        top_k,
    )


def attention_flops_per_pair(arch: dict[str, Any], decode: bool) -> float:
    """FLOPs of the score and value matmuls per (query, key) pair and layer, summed over heads.

    2 FLOPs per multiply-add over the key and the value width: 4 x head dim per head for standard
    attention. MLA (DeepSeek) in prefill: keys are qk_nope + rope wide, values head dim; in decode the
    cheapest exact form absorbs the up-projections and works on the latent: 2 x (2 x kv_lora_rank + rope).
    """
    heads, hd = arch["attention_heads"], arch["head_dim"]
    if arch.get("kv_lora_rank"):
        rope, lora = arch["qk_rope_head_dim"], arch["kv_lora_rank"]
        return 2 * heads * ((2 * lora + rope) if decode else (2 * hd + rope))
    return 4 * heads * hd


def _experts_touched(p: _Parts, batch: int) -> float:
    """Expected distinct experts one decode step reads: ``batch`` tokens each pick top_k uniformly."""
    if not p.experts:
        return 0.0
    return p.experts * (1 - (1 - p.top_k / p.experts) ** batch)


def max_batch(arch: dict[str, Any], gpu: GpuFigures, run: RunShape) -> int:
    """Most sequences of ISL + OSL tokens whose KV cache fits beside the weights in all GPUs' memory."""
    free = run.n_gpus * gpu.memory_gb * memory.GIB - memory.weight_bytes(arch, run.weight_precision)
    per_seq = memory.kv_bytes_per_sequence(arch, run.kv_bytes, run.isl + run.osl)
    batch = math.floor(free / per_seq) if free > 0 else 0
    for cap in (run.concurrency, run.num_requests):
        if cap:
            batch = min(batch, cap)
    return batch


def output_tps_bound(arch: dict[str, Any], gpu: GpuFigures, run: RunShape) -> Bound | None:
    """The speed-of-light output tokens/s of ``run`` on ``run.n_gpus`` GPUs; None if the weights don't fit."""
    batch = max_batch(arch, gpu, run)
    if batch < 1:
        return None
    p = memory.derived(
        arch, ("bound_parts", run.weight_precision), lambda: _parts(arch, run.weight_precision)
    )
    peak = run.n_gpus * gpu.peak_tflops * 1e12
    bandwidth = run.n_gpus * gpu.bandwidth_tb_s * 1e12
    isl, osl = run.isl, run.osl

    # One request: prefill of positions 1..ISL, then decode steps for positions ISL+1..ISL+OSL-1. The
    # prefill computes logits for its last token only (it yields the first output token), so lm_head
    # counts once per prefill, not ISL times.
    prefill_flops = isl * 2 * (p.lin_active - p.lm_head) + 2 * p.lm_head
    prefill_flops += attention_flops_per_pair(arch, False) * memory.attended_positions(arch, 1, isl)
    decode_pairs = memory.attended_positions(arch, isl + 1, isl + osl - 1)
    decode_flops = (osl - 1) * 2 * p.lin_active + attention_flops_per_pair(arch, True) * decode_pairs
    # Bytes: every step reads the shared weights and the experts the batch touches; each decode token
    # reads the cached positions it attends to (a windowed or chunked layer reads only its window).
    steps = max(osl - 1, 1)  # even OSL = 1 needs one pass over the weights
    weights_read = steps * (p.shared_bytes + p.expert_bytes * _experts_touched(p, batch))
    kv_read = batch * decode_pairs * memory._kv_elements_per_layer(arch) * run.kv_bytes

    compute_s = batch * (prefill_flops + decode_flops) / peak
    memory_s = (weights_read + kv_read) / bandwidth
    return Bound(
        output_tps=batch * osl / max(compute_s, memory_s),
        batch=batch,
        compute_s=compute_s,
        memory_s=memory_s,
        limit="memory" if memory_s >= compute_s else "compute",
    )


# ------------------------------------------------------------------------------ one configuration, one run


def bound_for_config(config: dict[str, Any], gpus: dict[str, Any], models: dict[str, Any]) -> Bound | None:
    """The bound for one configuration (gpu, model, precision, kv_cache_dtype, isl, osl, n_gpus,
    concurrency, num_requests; registry entries already loaded). None: unknown (``unknown_reason``)."""
    g, arch = gpus[config["gpu"]], memory.registry_arch(models[config["model"]])
    peak = peak_tflops(g.tflops_dense, config["precision"], arch)
    if peak is None:
        return None
    run = RunShape(
        weight_precision=config["precision"],
        kv_bytes=memory.kv_dtype_bytes(config["kv_cache_dtype"], config["precision"], arch),
        isl=int(config["isl"]),
        osl=int(config["osl"]),
        n_gpus=int(config["n_gpus"]),
        concurrency=_int_or_none(config["concurrency"]),
        num_requests=_int_or_none(config["num_requests"]),
    )
    return output_tps_bound(arch, GpuFigures(g.memory_gb, g.hbm_bandwidth_tb_s, peak), run)


# Why a run has no bound, or why its bound may be low for it: short codes (the runs table's ``bound_note``,
# joined by ","), each explained here and translated on the site (site_gen/i18n/<lang>.yaml ui.bound_notes).
NOTES = {
    "unknown-peak": "bound unknown: gpus.yaml has no dense tensor TFLOP/s for this GPU and precision",
    "unknown-fit": "bound unknown: the weights do not fit the run's GPUs' memory in gpus.yaml",
    "speculative": (
        "speculative decoding (MTP, EAGLE, n-gram...): several output tokens per pass over the weights,"
        " which the bound does not model, so it may be low for this run"
    ),
    "prefix-reuse": "prefix reuse: cached prompt tokens skip prefill work that the bound charges",
    "max-utilization": (
        "release 0.10's gptManagerBenchmark admitted requests by current use (max_utilization), not with"
        " room for all their tokens as the bound assumes: more sequences in flight, so the bound can be low"
    ),
}
UNKNOWN = ("unknown-peak", "unknown-fit")


def unknown_reason(config: dict[str, Any], gpus: dict[str, Any], models: dict[str, Any]) -> str | None:
    """Why ``bound_for_config`` gives no bound here (a ``NOTES`` code); None when it gives one."""
    g = gpus[config["gpu"]]
    if (
        peak_tflops(g.tflops_dense, config["precision"], memory.registry_arch(models[config["model"]]))
        is None
    ):
        return "unknown-peak"
    if bound_for_config(config, gpus, models) is None:
        return "unknown-fit"
    return None


def _int_or_none(value: Any) -> int | None:
    return None if value is None or (isinstance(value, float) and math.isnan(value)) else int(value)


# Runs the model cannot bound: work it leaves out makes the figure lower than what the run could reach,
# so their % of bound is shown with the reason, never as a plain percentage (docs/guide/08).
_SPECULATIVE = re.compile(
    r"\b(MTP|speculative|eagle3?|medusa|lookahead|draft[ _-]?(model|len|tokens?)|n-?gram)\b", re.I
)
_PREFIX_REUSE = re.compile(
    r"\b(prefix[ _-]?(reuse|cach\w*|shar\w*)|shared[ _-]prefix|kv[ _-]?cache[ _-]reuse)\b", re.I
)


def bound_caveats(
    notes: str | None,
    extra: dict[str, Any] | str | None,
    engine_version: str | None,
    benchmark_tool: str | None,
) -> list[str]:
    """Why a run's bound may be too low for it, as ``NOTES`` codes (empty: the bound holds). From the
    run's notes, its extra LLM-API options (a dict, or the JSON text the runs table stores) and its release
    and tool."""
    text = " ".join(s for s in (notes, extra if isinstance(extra, str) else None) if s)
    keys = json.dumps(extra) if isinstance(extra, dict) else ""
    found = []
    if _SPECULATIVE.search(text) or "speculative_config" in keys or "speculative_config" in text:
        found.append("speculative")
    if _PREFIX_REUSE.search(text):
        found.append("prefix-reuse")
    version = (engine_version or "").strip()
    if (version == "0.10" or version.startswith("0.10.")) and benchmark_tool == "gptManagerBenchmark":
        found.append("max-utilization")
    return found
