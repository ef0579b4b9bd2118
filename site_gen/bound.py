"""Speed-of-light bound: the most output tokens/s a run's GPUs could deliver, from registry figures alone.

Inputs: the GPU registry (HBM bandwidth, dense tensor FLOP/s at the run's precision, memory per GPU), the
model registry (parameters, layers, heads, KV bytes per token) and the run (ISL, OSL, GPU count, weight
precision, KV-cache dtype, concurrency). Output: an upper bound on output tokens/s over all the run's GPUs.
``add_columns`` writes it into the DuckDB ``runs`` table as ``bound_output_tps`` and ``pct_of_bound``.

The model (docs/guide/08-speed-of-light.md derives and discusses it):
- the N GPUs pool their memory, bandwidth and FLOP/s perfectly (no communication cost, no replication);
- batch B = the most sequences of ISL + OSL tokens whose KV cache fits beside the weights in all memory
  (capped by the run's concurrency and request count);
- prefill of one request is compute-bound: FLOPs(ISL) / peak;
- one decode step of B sequences at the mean context ISL + OSL/2 takes
  max(bytes moved / bandwidth, FLOPs / peak), bytes = weights read once + B sequences' KV cache;
- a request costs its prefill plus (OSL - 1) decode steps shared by B requests (the first output token
  comes out of prefill): bound = OSL / (t_prefill + (OSL - 1) x t_step / B).
The simplifications make the bound larger, never smaller (see ``_parts``), so a real run stays below it;
two modelling choices could err low: room for all ISL + OSL tokens per sequence (the admission rule of
TensorRT-LLM's default GUARANTEED_NO_EVICT scheduler) and uniform MoE routing.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from site_gen import memory

# Peak used when the GPU has no tensor path for the run's precision (FP8 weights on Ampere run as FP16 math).
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
    """An upper bound on output tokens/s (all GPUs) and how it was reached."""

    output_tps: float
    batch: int  # sequences decoded together
    prefill_s: float  # compute time of one request's prefill on all GPUs
    step_s: float  # one decode step of ``batch`` sequences
    decode_limit: str  # "memory" or "compute": which side of max() set the step time


def peak_tflops(tflops_dense: dict[str, float | None], precision: str) -> float:
    """Dense tensor TFLOP/s for a weight precision, falling back to 16-bit where the GPU lacks the format."""
    key = {"FP32": "FP16", "INT4": "FP16", "Mixed": "FP8"}.get(precision, precision)
    for k in (key, *_PEAK_FALLBACK):
        if tflops_dense.get(k):
            return float(tflops_dense[k])  # type: ignore[arg-type]
    raise ValueError(f"no dense tensor TFLOP/s for {precision} or 16-bit: {tflops_dense}")


@dataclass(frozen=True)
class _Parts:
    """Parameter counts (not bytes) the bound splits a model into."""

    lin_active: float  # matmul parameters one token passes through
    shared: float  # matmul parameters every decode step reads (all of a dense model)
    expert: float  # one routed expert's parameters over all layers (0 for dense)
    experts: int
    top_k: int


def _parts(arch: dict[str, Any]) -> _Parts:
    """Split parameters so that every guess errs towards a higher bound.

    The input embedding table is a lookup, not a matmul, and is never read whole: it is subtracted
    (vocab x hidden) from both FLOPs and bytes; for a model with tied embeddings this undercounts the
    LM head, which only raises the bound. MoE: the registry's total and active counts give one expert's
    size e = (total - active) / (experts - top_k) and the always-used rest.
    """
    total = arch["params_b"] * 1e9
    active = (arch.get("active_params_b") or arch["params_b"]) * 1e9
    embed = arch["vocab_size"] * arch["hidden_size"]
    experts, top_k = arch.get("experts") or 0, arch.get("experts_per_token") or 0
    if experts > top_k > 0 and total > active:
        expert = (total - active) / (experts - top_k)
        return _Parts(active - embed, active - top_k * expert - embed, expert, experts, top_k)
    return _Parts(active - embed, total - embed, 0.0, 0, 0)


def _attention_flops(arch: dict[str, Any], positions: float) -> float:
    """Score and value matmuls over ``positions`` (query, cached token) pairs summed over layers.

    4 x heads x head dim per pair (2 FLOPs per multiply-add, two matmuls). Uses the query heads'
    head_dim; DeepSeek's MLA does more work per cached token than this, so the figure is low for it
    (a higher bound).
    """
    return 4 * arch["attention_heads"] * arch["head_dim"] * positions


def _prefill_pairs(arch: dict[str, Any], isl: int) -> float:
    """Causal (query, key) pairs of a prefill over all layers: ISL^2 / 2 per full layer, fewer if windowed."""
    w = memory.windowed_layers(arch)
    full = (arch["layers"] - w) * isl * isl / 2
    if not w:
        return full
    window = min(isl, arch["sliding_window"])
    return full + w * (window * window / 2 + (isl - window) * window)


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
    p = _parts(arch)
    peak = run.n_gpus * gpu.peak_tflops * 1e12
    bandwidth = run.n_gpus * gpu.bandwidth_tb_s * 1e12
    bpw = memory.WEIGHT_BYTES[run.weight_precision]

    prefill_flops = run.isl * 2 * p.lin_active + _attention_flops(arch, _prefill_pairs(arch, run.isl))
    prefill_s = prefill_flops / peak

    context = run.isl + run.osl / 2  # mean context over the decode phase
    step_bytes = (p.shared + p.expert * _experts_touched(p, batch)) * bpw
    step_bytes += batch * memory.kv_bytes_per_sequence(arch, run.kv_bytes, context)
    step_flops = batch * (2 * p.lin_active + _attention_flops(arch, memory.cached_positions(arch, context)))
    memory_s, compute_s = step_bytes / bandwidth, step_flops / peak
    step_s = max(memory_s, compute_s)

    per_request_s = prefill_s + (run.osl - 1) * step_s / batch
    return Bound(
        output_tps=run.osl / per_request_s,
        batch=batch,
        prefill_s=prefill_s,
        step_s=step_s,
        decode_limit="memory" if memory_s >= compute_s else "compute",
    )


# ---------------------------------------------------------------------------------------------- DuckDB


_CONFIG_COLUMNS = (
    "gpu",
    "model",
    "precision",
    "kv_cache_dtype",
    "isl",
    "osl",
    "n_gpus",
    "concurrency",
    "num_requests",
)


def bound_for_config(config: dict[str, Any], gpus: dict[str, Any], models: dict[str, Any]) -> Bound | None:
    """The bound for one distinct configuration row of the runs table (registries already loaded)."""
    g, arch = gpus[config["gpu"]], models[config["model"]]
    figures = GpuFigures(g.memory_gb, g.hbm_bandwidth_tb_s, peak_tflops(g.tflops_dense, config["precision"]))
    run = RunShape(
        weight_precision=config["precision"],
        kv_bytes=memory.kv_dtype_bytes(config["kv_cache_dtype"], config["precision"]),
        isl=int(config["isl"]),
        osl=int(config["osl"]),
        n_gpus=int(config["n_gpus"]),
        concurrency=_int_or_none(config["concurrency"]),
        num_requests=_int_or_none(config["num_requests"]),
    )
    return output_tps_bound(arch.model_dump(), figures, run)


def _int_or_none(value: Any) -> int | None:
    return None if value is None or (isinstance(value, float) and math.isnan(value)) else int(value)


def add_columns(con: Any) -> None:
    """Add ``bound_output_tps`` and ``pct_of_bound`` to the ``runs`` table of an open DuckDB connection.

    The bound is computed once per distinct configuration (a few hundred even for 100k runs), then
    joined back in SQL. ``pct_of_bound`` = 100 x output_tps / bound_output_tps; null where the run has
    no all-GPU throughput (per-user-only sources) or the weights don't fit the registry's memory.
    """
    import pandas as pd

    from bench.contract import registry

    cols = ", ".join(_CONFIG_COLUMNS)
    configs = con.execute(f"SELECT DISTINCT {cols} FROM runs").fetchdf()
    gpus = {g.name: g for g in registry.gpus().entries}
    models = {m.id: m for m in registry.models().entries}
    bounds = []
    for config in configs.to_dict("records"):
        b = bound_for_config(config, gpus, models)
        bounds.append(b.output_tps if b else None)
    configs["bound_output_tps"] = pd.Series(bounds, dtype="float64")
    con.execute("ALTER TABLE runs ADD COLUMN IF NOT EXISTS bound_output_tps DOUBLE")
    con.execute("ALTER TABLE runs ADD COLUMN IF NOT EXISTS pct_of_bound DOUBLE")
    con.register("bound_configs", configs)
    try:
        on = " AND ".join(f"runs.{c} IS NOT DISTINCT FROM b.{c}" for c in _CONFIG_COLUMNS)
        con.execute(
            f"UPDATE runs SET bound_output_tps = b.bound_output_tps, "
            f"pct_of_bound = 100 * runs.output_tps / b.bound_output_tps FROM bound_configs b WHERE {on}"
        )
    finally:
        con.unregister("bound_configs")
