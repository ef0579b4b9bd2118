"""AIConfigurator's memory figure for the memory planner's cross-check: ``llmbench estimate-memory``.

The planner (docs/guide/07-memory.md, ``site_gen.data.memory``) and AIConfigurator both say how much memory
one GPU needs to serve a batch: weights, KV cache, activations and a runtime reserve. This module asks
AIConfigurator (``cli_estimate``, the call ``aiconfigurator cli estimate`` makes, with the same model,
quantisation and parallelism mapping as the estimates: ``estimate.point_args``) for its per-GPU
breakdown (``InferenceSummary.get_memory``) of a fixed list of configurations that both know, and writes
them to a small committed table (``bench/data/estimate_memory.csv``). The site reads that table and puts
the planner's own figures beside it (``site_gen.data.estimate_memory``): the site build never imports
aiconfigurator.

What AIConfigurator's figure covers (aiconfigurator-core 0.12.0, ``BaseBackend._get_memory_usage``):
weights of one GPU, the KV cache of ``batch`` sequences of ISL + OSL tokens, activations of one forward
pass of TensorRT-LLM's default ``max_num_tokens`` (8192, whatever ``ctx_tokens`` says), NCCL buffers
and a fixed "others" reserve from the system file (CUDA context, cuBLAS workspaces, a safety margin).
"""

from __future__ import annotations

import csv
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.engines import estimate as est

TABLE = Path(__file__).resolve().parent.parent / "data" / "estimate_memory.csv"  # bench/data
BATCH, ISL, OSL = 64, 1000, 1000  # one load for every row: 64 sequences of 2,000 tokens
CTX_TOKENS = 8192  # passed to cli_estimate; its memory model sizes activations at max_num_tokens instead

COLUMNS = [
    "gpu", "model", "model_config", "precision", "tp", "pp", "batch", "isl", "osl", "max_num_tokens",
    "system", "backend", "backend_version", "aiconfigurator",
    "weights_gib", "kv_cache_gib", "activations_gib", "nccl_gib", "others_gib", "total_gib", "settings",
]  # fmt: skip


@dataclass(frozen=True)
class MemoryConfig:
    """One configuration both the planner and AIConfigurator know (registry names)."""

    gpu: str
    model: str
    precision: str
    tp: int
    pp: int = 1


H200, B200 = "H200 SXM 141GB", "B200 180GB"
# Every model AIConfigurator and the planner both know (one per AIConfigurator config), at the smallest
# power-of-two TP whose FP8 weights leave room for the batch on an H200; 16-bit and FP4 rows where the
# published tables have them (the planner's weight formats differ most there).
CONFIGS: tuple[MemoryConfig, ...] = (
    MemoryConfig(H200, "meta-llama/Llama-3.1-8B-Instruct", "FP8", 1),
    MemoryConfig(H200, "meta-llama/Llama-3.1-8B-Instruct", "BF16", 1),
    MemoryConfig(H200, "meta-llama/Llama-3.1-70B-Instruct", "FP8", 2),
    MemoryConfig(H200, "meta-llama/Llama-3.1-70B-Instruct", "BF16", 4),
    MemoryConfig(H200, "meta-llama/Llama-3.1-405B-Instruct", "FP8", 8),
    MemoryConfig(H200, "meta-llama/Llama-4-Scout-17B-16E-Instruct", "FP8", 2),
    MemoryConfig(H200, "meta-llama/Llama-4-Maverick-17B-128E-Instruct", "FP8", 8),
    MemoryConfig(H200, "deepseek-ai/DeepSeek-R1", "FP8", 8),
    MemoryConfig(H200, "Qwen/Qwen3-235B-A22B", "FP8", 4),
    MemoryConfig(H200, "Qwen/Qwen3-30B-A3B", "FP8", 1),
    MemoryConfig(H200, "openai/gpt-oss-120b", "FP8", 1),
    MemoryConfig(H200, "openai/gpt-oss-20b", "FP8", 1),
    MemoryConfig(H200, "mistralai/Mixtral-8x7B-v0.1", "FP8", 1),
    MemoryConfig(H200, "mistralai/Mixtral-8x22B-v0.1", "FP8", 2),
    MemoryConfig(B200, "meta-llama/Llama-3.1-8B-Instruct", "FP4", 1),
    MemoryConfig(B200, "meta-llama/Llama-3.1-70B-Instruct", "FP4", 1),
    MemoryConfig(B200, "deepseek-ai/DeepSeek-R1", "FP4", 8),
    MemoryConfig(B200, "Qwen/Qwen3-235B-A22B", "FP4", 2),
)


def default_max_num_tokens() -> int:
    """The max_num_tokens AIConfigurator's TensorRT-LLM memory model sizes activations at."""
    est._aic()
    from aiconfigurator_core.sdk.backends import trtllm_backend

    return int(trtllm_backend.TRTLLM_DEFAULT_MAX_NUM_TOKENS)


def settings(m: MemoryConfig) -> dict[str, Any]:
    """The exact ``cli_estimate`` arguments for a configuration (the estimates' own mapping)."""
    system = est.resolve_gpu(m.gpu)[1]
    c = est.Config(m.gpu, m.model, m.precision, m.tp, m.pp, isl=ISL, osl=OSL)
    args, _ = est.point_args(c, est.perf_data_version(system, "trtllm"), BATCH, CTX_TOKENS)
    return args


def breakdown(args: dict[str, Any]) -> dict[str, float]:
    """AIConfigurator's per-GPU memory (GiB) for these arguments: total, weights, kvcache, activations,
    nccl, others. Raises what AIConfigurator raises (out of memory, no data)."""
    r = est._aic().cli_estimate(**args)
    return {k: float(v) for k, v in r.summary.get_memory().items()}


def row(m: MemoryConfig) -> dict[str, Any]:
    args = settings(m)
    mem = breakdown(args)
    _, model_path, _ = est.resolve_model(m.model)
    return {
        "gpu": m.gpu,
        "model": m.model,
        "model_config": est.BUNDLED.get(m.model, model_path),
        "precision": m.precision,
        "tp": m.tp,
        "pp": m.pp,
        "batch": BATCH,
        "isl": ISL,
        "osl": OSL,
        "max_num_tokens": default_max_num_tokens(),
        "system": args["system_name"],
        "backend": args["backend_name"],
        "backend_version": args["backend_version"],
        "aiconfigurator": est.versions()[0],
        "weights_gib": round(mem["weights"], 4),
        "kv_cache_gib": round(mem["kvcache"], 4),
        "activations_gib": round(mem["activations"], 4),
        "nccl_gib": round(mem["nccl"], 4),
        "others_gib": round(mem["others"], 4),
        "total_gib": round(mem["total"], 4),
        # the bundled config's name, never this machine's cache folder (as the estimate files do)
        "settings": json.dumps({**args, "model_path": est.BUNDLED.get(m.model, args["model_path"])}),
    }


def write_table(path: Path, configs: tuple[MemoryConfig, ...] = CONFIGS) -> tuple[int, list[str]]:
    """Every configuration's row written to ``path`` (CSV); the rows written and one line per failure."""
    from bench.contract.resultfile import write_text_atomic

    rows, failed = [], []
    for m in configs:
        try:
            rows.append(row(m))
        except Exception as e:  # AIConfigurator raises ValueError/RuntimeError/KeyError: report, go on
            failed.append(f"{m.gpu} {m.model} {m.precision} TP{m.tp}: {type(e).__name__}: {e}"[:300])
    import io

    buf = io.StringIO()
    w = csv.DictWriter(buf, COLUMNS, lineterminator="\n")
    w.writeheader()
    w.writerows(rows)
    write_text_atomic(path, buf.getvalue())
    return len(rows), failed
