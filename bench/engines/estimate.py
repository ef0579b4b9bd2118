"""Estimates from NVIDIA's AIConfigurator performance model: ``llmbench estimate SPEC`` (issue 28).

AIConfigurator (PyPI ``aiconfigurator``, Apache-2.0) predicts TTFT, TPOT and throughput of one serving
configuration from kernel timings measured per GPU and engine release that ship in its wheel. This module
describes a configuration of this project (a registry GPU, model and precision label, TP/PP/EP, ISL/OSL,
concurrency) to it, calls its Python API (``aiconfigurator.cli.api.cli_estimate``, the function its own
``aiconfigurator cli estimate`` command calls) and records how: every argument passed, the performance-data
version, the fidelity it reports and every mapping choice. Nothing here is a measurement; the result files
say ``source.kind: modelled``.

Two kinds of estimate, as trtllm-bench runs them:

- **max throughput** (no concurrency): trtllm-bench sizes ``max_batch_size`` and ``max_num_tokens`` from the
  KV-cache capacity with its ``finetune_setting`` heuristic (``finetune_setting`` below). The capacity is
  what the real tool measures on the node, so the search walks the capacities the heuristic can see (64 ..
  4096 requests), each giving one (batch, tokens) pair, drops the points AIConfigurator reports as out of
  memory or beyond the KV cache (the real runtime could not hold that batch), and keeps the highest
  tokens/s/GPU. When no such point fits (a KV cache holding fewer than 64 requests: long sequences, a large
  model on few GPUs), the runtime admits only what the cache holds: batches 32 .. 1 are tried instead.
  A run that states its own ``max_batch_size``/``max_num_tokens`` is estimated at those.
- **latency** (a concurrency): batch size = concurrency; ``max_num_tokens`` from the run, else the same
  heuristic with a KV cache that holds every request (recorded in the mapping).

The performance-data version is always passed explicitly: with it a call takes milliseconds; without it
AIConfigurator looks every database up again (seconds). aiconfigurator is an optional extra
(``pip install -e .[estimate]``), imported only inside the functions that need it.
"""

from __future__ import annotations

import collections
import dataclasses
import functools
import hashlib
import json
import logging
import math
import os
from collections.abc import Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.errors import UserError

ESTIMATOR = "aiconfigurator"
SEARCH_VERSION = 3  # part of every cache key: bump when the search or the mapping below changes
INSTALL_HINT = "pip install -e '.[estimate]' (AIConfigurator, PyPI aiconfigurator)"

# Registry GPU name -> AIConfigurator system. Only GPUs whose system file describes the same part (memory,
# interconnect): GH200 (a Grace-Hopper superchip, 96 GB) and the PCIe H100/H200 NVL have no system here.
SYSTEMS: dict[str, str] = {
    "A100 SXM4 80GB": "a100_sxm",
    "A100 PCIe 80GB": "a100_pcie",
    "H100 SXM 80GB": "h100_sxm",
    "H100 PCIe 80GB": "h100_pcie",
    "H200 SXM 141GB": "h200_sxm",
    "B200 180GB": "b200_sxm",
    "B300 288GB": "b300_sxm",
    "GB200 186GB": "gb200",
    "GB300 288GB": "gb300",
    "L40S": "l40s",
    "L4": "l4",
    "A30": "a30",
    "RTX PRO 6000 Blackwell Server": "rtx_pro_6000_server",
}

# Registry model id -> (the model AIConfigurator knows, why that one). AIConfigurator ships the config.json of
# the base checkpoints; an instruct or point release with the same architecture uses its base's config.
_SAME = "same checkpoint"
MODELS: dict[str, tuple[str, str]] = {
    "meta-llama/Llama-3.1-8B-Instruct": (
        "meta-llama/Meta-Llama-3.1-8B",
        "Llama 3.1 8B config (same architecture)",
    ),
    "meta-llama/Meta-Llama-3-8B-Instruct": (
        "meta-llama/Meta-Llama-3.1-8B",
        "Llama 3.1 8B config: Llama 3 8B has the same layers (only RoPE scaling and context differ)",
    ),
    "meta-llama/Llama-3.1-70B-Instruct": ("meta-llama/Meta-Llama-3.1-70B", "Llama 3.1 70B config"),
    "meta-llama/Llama-3.3-70B-Instruct": (
        "meta-llama/Meta-Llama-3.1-70B",
        "Llama 3.1 70B config: Llama 3.3 70B has the same architecture",
    ),
    "meta-llama/Meta-Llama-3-70B-Instruct": (
        "meta-llama/Meta-Llama-3.1-70B",
        "Llama 3.1 70B config: Llama 3 70B has the same layers (only RoPE scaling and context differ)",
    ),
    "meta-llama/Llama-3.1-405B-Instruct": ("meta-llama/Meta-Llama-3.1-405B", "Llama 3.1 405B config"),
    "meta-llama/Llama-4-Scout-17B-16E-Instruct": ("meta-llama/Llama-4-Scout-17B-16E-Instruct", _SAME),
    "meta-llama/Llama-4-Maverick-17B-128E-Instruct": ("meta-llama/Llama-4-Maverick-17B-128E-Instruct", _SAME),
    "deepseek-ai/DeepSeek-R1": ("deepseek-ai/DeepSeek-R1", _SAME),
    "deepseek-ai/DeepSeek-R1-0528": ("deepseek-ai/DeepSeek-R1", "DeepSeek-R1 config (same architecture)"),
    "deepseek-ai/DeepSeek-V3": ("deepseek-ai/DeepSeek-V3", _SAME),
    "Qwen/Qwen3-235B-A22B": ("Qwen/Qwen3-235B-A22B", _SAME),
    "Qwen/Qwen3-30B-A3B": ("Qwen/Qwen3-30B-A3B", _SAME),
    "Qwen/Qwen3-32B": ("Qwen/Qwen3-32B", _SAME),
    "Qwen/Qwen3-8B": ("Qwen/Qwen3-8B", _SAME),
    "openai/gpt-oss-120b": ("openai/gpt-oss-120b", _SAME),
    "openai/gpt-oss-20b": ("openai/gpt-oss-20b", _SAME),
}
# Models whose config.json AIConfigurator bundles (aiconfigurator_core/model_configs) but no longer lists
# among its supported models (retired from its support matrix). Its kernel tables still cover them; the
# config is handed to it as a local model folder (``bundled_model_dir``), and the mapping says so.
BUNDLED: dict[str, str] = {
    "mistralai/Mixtral-8x7B-v0.1": "mistralai--Mixtral-8x7B-v0.1",
    "mistralai/Mixtral-8x22B-v0.1": "mistralai--Mixtral-8x22B-v0.1",
}

# Precision labels of the registry (bench/data/precisions.yaml) AIConfigurator can be told about. FP16, BF16
# and NVIDIA's "Mixed" rows run 16-bit weights with a 16-bit KV cache (precisions.yaml); FP8 and FP4 rows use
# an FP8 KV cache (kv_bytes: 1 there).
PRECISIONS = ("FP16", "BF16", "Mixed", "FP8", "FP4")
_BLACKWELL = {"b200_sxm", "b300_sxm", "gb200", "gb300", "rtx_pro_6000_server"}


class EstimatorMissing(UserError):
    """aiconfigurator is not installed."""


def _aic() -> Any:
    try:
        from aiconfigurator.cli import api
    except ImportError as e:
        raise EstimatorMissing(f"estimates need AIConfigurator: {INSTALL_HINT} ({e})") from None
    # Its loaders log every fall-back table at WARNING on import of each database: the fidelity we record
    # comes from each estimate's own per-op sources instead, so keep the console quiet.
    for name in ("aiconfigurator", "aiconfigurator_core"):
        logging.getLogger(name).setLevel(logging.ERROR)
    return api


@functools.cache
def versions() -> tuple[str, str]:
    """(aiconfigurator, aiconfigurator-core) versions installed."""
    import importlib.metadata as md

    _aic()
    return md.version("aiconfigurator"), md.version("aiconfigurator-core")


@functools.cache
def supported_systems() -> dict[str, dict[str, list[str]]]:
    """system -> backend -> performance-data versions, as the installed AIConfigurator lists them."""
    _aic()
    from aiconfigurator.sdk.perf_database import get_supported_databases

    return {s: {b: sorted(v) for b, v in bk.items() if v} for s, bk in get_supported_databases().items()}


@functools.cache
def supported_models() -> set[str]:
    _aic()
    from aiconfigurator.sdk.common import DefaultHFModels

    return set(DefaultHFModels)


@functools.cache
def perf_data_version(system: str, backend: str) -> str:
    """The maintained ('current') performance-data version of a system and backend, passed explicitly."""
    _aic()
    from aiconfigurator.sdk.perf_database import get_latest_database_version

    v = get_latest_database_version(system=system, backend=backend)
    if v is None:
        have = ", ".join(sorted(supported_systems().get(system, {}))) or "none"
        raise UserError(f"AIConfigurator has no {backend} performance data for {system} (it has: {have})")
    return str(v)


BACKENDS = (
    "trtllm",
    "vllm",
    "sglang",
)  # AIConfigurator's backends; which systems have data: supported_systems


def backend_problems(
    systems: list[str], backends: list[str], have: dict[str, dict[str, list[str]]]
) -> list[str]:
    """One line per backend unknown to AIConfigurator, or a (system, backend) its data lacks, each with
    what is supported (``have``: ``supported_systems()``)."""
    out = [f"backend {b!r}: supported backends: {', '.join(BACKENDS)}" for b in backends if b not in BACKENDS]
    for system in systems:
        lacking = [b for b in backends if b in BACKENDS and b not in have.get(system, {})]
        if lacking:
            has = ", ".join(f"{b} {'/'.join(v)}" for b, v in sorted(have.get(system, {}).items())) or "none"
            out.append(
                f"backend {', '.join(lacking)} on {system}: AIConfigurator has no performance data for it "
                f"(it has: {has})"
            )
    return out


@functools.cache
def context_fmha_modes(system: str, backend: str, perf_version: str) -> tuple[str, ...]:
    """The context-attention quant modes a backend's tables hold for a system (vLLM's have no fp8)."""
    _aic()
    from aiconfigurator.sdk.perf_database import get_database

    db = get_database(system=system, backend=backend, version=perf_version)
    return tuple(str(m) for m in (db.supported_quant_mode.get("context_attention") or ()))


# --- Describing a configuration -----------------------------------------------------------------------


@dataclass(frozen=True)
class Config:
    """One configuration to estimate, in this project's terms (registry names)."""

    gpu: str
    model: str
    precision: str
    tp: int = 1
    pp: int = 1
    ep: int | None = None
    attention_dp: bool = False
    isl: int = 128
    osl: int = 128
    backend: str = "trtllm"


def resolve_gpu(name: str) -> tuple[str, str]:
    """(registry GPU name, AIConfigurator system) or UserError listing every supported GPU."""
    from bench.contract import registry

    gpu = registry.gpus().find(name)
    canonical = gpu.name if gpu else name
    if canonical not in SYSTEMS or SYSTEMS[canonical] not in supported_systems():
        have = sorted(g for g, s in SYSTEMS.items() if s in supported_systems())
        raise UserError(
            f"system {name!r}: AIConfigurator {versions()[0]} has no model of it; supported GPUs: "
            + ", ".join(have)
            + "; its systems: "
            + ", ".join(sorted(supported_systems()))
        )
    return canonical, SYSTEMS[canonical]


def resolve_model(name: str) -> tuple[str, str, str]:
    """(registry model id, AIConfigurator model path, why) or UserError listing every supported model."""
    from bench.contract import registry

    arch = registry.models().find(name)
    canonical = arch.id if arch else name
    known = supported_models()
    if canonical in MODELS and MODELS[canonical][0] in known:
        path, why = MODELS[canonical]
        return canonical, path, why
    if canonical in known:
        return canonical, canonical, _SAME
    if canonical in BUNDLED and (folder := bundled_model_dir(BUNDLED[canonical])) is not None:
        why = f"AIConfigurator's bundled {BUNDLED[canonical]}_config.json (not in its supported-model list)"
        return canonical, str(folder), why
    ours = sorted([m for m, (p, _) in MODELS.items() if p in known] + list(BUNDLED))
    raise UserError(
        f"model {name!r}: AIConfigurator {versions()[0]} does not know it; supported models: "
        + ", ".join(ours)
        + "; AIConfigurator's own: "
        + ", ".join(sorted(known))
    )


@functools.cache
def bundled_model_dir(stem: str) -> Path | None:
    """A folder holding AIConfigurator's bundled ``<stem>_config.json`` as config.json (made once, in the
    user's cache folder), or None when the installed AIConfigurator does not bundle it."""
    from importlib import resources

    source = resources.files("aiconfigurator_core") / "model_configs" / f"{stem}_config.json"
    if not source.is_file():
        return None
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    folder = base / "llmbench" / f"aiconfigurator-{versions()[1]}" / stem
    target = folder / "config.json"
    text = source.read_text(encoding="utf-8")
    if not target.exists() or target.read_text(encoding="utf-8") != text:
        folder.mkdir(parents=True, exist_ok=True)
        tmp = folder / f".config.json.{os.getpid()}.tmp"
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(target)  # atomic: parallel workers never read half a file
    return folder


def is_moe(model: str) -> bool:
    """Whether a registry model routes tokens to experts (the registry's ``experts``)."""
    from bench.contract import registry

    return bool(registry.models().get(model).experts)


def resolve_precision(name: str) -> str:
    if name not in PRECISIONS:
        raise UserError(
            f"precision {name!r}: no AIConfigurator quantisation mapping; supported precisions: "
            + ", ".join(PRECISIONS)
        )
    return name


def quant_modes(
    precision: str, model_path: str, system: str, moe: bool
) -> tuple[dict[str, str], dict[str, str]]:
    """AIConfigurator's quant modes for a precision label, and the mapping choices made (why each)."""
    mla = "DeepSeek" in model_path
    why: dict[str, str] = {}
    if precision in ("FP16", "BF16", "Mixed"):
        q = dict(gemm="bfloat16", kvcache="bfloat16", fmha="bfloat16", moe="bfloat16")
        if precision != "BF16":
            why["precision"] = f"{precision} rows run 16-bit weights and KV cache: bfloat16 tables"
    elif precision == "FP8":
        block = mla or "Qwen3" in model_path  # DeepSeek and Qwen3 FP8 checkpoints use 128x128 block scales
        g = "fp8_block" if block else "fp8"
        q = dict(gemm=g, kvcache="fp8", fmha="bfloat16" if mla else "fp8", moe=g)
        if block:
            why["precision"] = "FP8 checkpoint with 128x128 block scales: fp8_block GEMM and MoE"
    else:  # FP4
        q = dict(gemm="nvfp4", kvcache="fp8", fmha="bfloat16" if mla else "fp8", moe="nvfp4")
    if "gpt-oss" in model_path:
        # gpt-oss ships MXFP4 experts and 16-bit attention whatever the label. TensorRT-LLM runs
        # W4A8_MXFP4_MXFP8 on Blackwell (SM100) and W4A16 MXFP4 on Hopper; AIConfigurator would infer w4a16.
        blackwell = system in _BLACKWELL
        q.update(gemm="bfloat16", moe="w4a8_mxfp4_mxfp8" if blackwell else "w4a16_mxfp4")
        why["moe_kernel"] = (
            "W4A8_MXFP4_MXFP8 (TensorRT-LLM's MoE on SM100)" if blackwell else "W4A16 MXFP4 (Hopper)"
        )
    if not moe:
        del q["moe"]
    return q, why


# What each engine runs an MoE model with when expert parallelism is not asked for.
_NO_EP = {"vllm": "vLLM's default without --enable-expert-parallel", "sglang": "SGLang's default ep_size 1"}


def parallel_args(c: Config, moe: bool) -> tuple[dict[str, int], dict[str, str]]:
    """tp/pp/attention-DP/MoE sizes for AIConfigurator, and the assumptions made where the run is silent."""
    why: dict[str, str] = {}
    args = {"tp_size": c.tp, "pp_size": c.pp, "attention_dp_size": 1}
    if not moe:
        return args, why
    if c.attention_dp:
        # TensorRT-LLM's attention DP: each of the tp ranks holds whole attention; the MoE spans all tp ranks.
        args.update(tp_size=1, attention_dp_size=c.tp)
    ep = c.ep
    if ep is None:
        # TensorRT-LLM's Mapping default when neither is set: moe_tp = tp, moe_ep = 1.
        ep = 1
        why["expert_parallel"] = (
            "run gives no EP: TensorRT-LLM's default (MoE TP = TP, EP = 1) assumed"
            if c.backend == "trtllm"
            else f"no EP given: {_NO_EP[c.backend]} (MoE TP = TP, EP = 1) assumed"
        )
    if c.tp % ep:
        raise UserError(f"EP {ep} does not divide TP {c.tp}")
    args.update(moe_tp_size=c.tp // ep, moe_ep_size=ep)
    why["attention_dp"] = "on (from the run)" if c.attention_dp else "off (run does not say it is on)"
    return args, why


# --- trtllm-bench's sizing heuristic -------------------------------------------------------------------


def finetune_setting(kv_cache_max_requests: float, isl: int, osl: int, pp: int) -> tuple[int, int]:
    """trtllm-bench's (max_batch_size, max_num_tokens) for a KV cache holding ``kv_cache_max_requests``.

    Written from TensorRT-LLM's ``tensorrt_llm/bench/build/tuning.py`` ``finetune_setting`` (optimistic
    tuning): batch = min(requests, 4096) / pp rounded up to 32 (at least 64; to 128 from 256, to 256 from
    1024); tokens = min(batch x (1 + isl/osl), 32768) rounded up to 256 (at least 2048; to 512 from 4096,
    to 1024 from 8192). E.g. 1000 requests, ISL 128 / OSL 128, PP 1: batch 1024, tokens 2000 -> 2048.
    """
    raw_bs = min(kv_cache_max_requests, 4096) / pp
    raw_tokens = min(raw_bs * (1 + isl / osl), 32768)
    if raw_bs < 256:
        bs = max(64, 32 * math.ceil(raw_bs / 32))
    elif raw_bs < 1024:
        bs = 128 * math.ceil(raw_bs / 128)
    else:
        bs = 256 * math.ceil(raw_bs / 256)
    if raw_tokens < 4096:
        tokens = max(2048, 256 * math.ceil(raw_tokens / 256))
    elif raw_tokens < 8192:
        tokens = 512 * math.ceil(raw_tokens / 512)
    else:
        tokens = 1024 * math.ceil(raw_tokens / 1024)
    return bs, tokens


# KV capacities the search walks (requests); the heuristic caps at 4096.
SEARCH_CAPACITIES = (64, 128, 256, 512, 1024, 2048, 4096)


# --- One estimate ------------------------------------------------------------------------------------


def point_args(
    c: Config, perf_version: str, batch: int, ctx_tokens: int
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The exact keyword arguments for ``cli_estimate`` and the mapping choices behind them."""
    _, system = resolve_gpu(c.gpu)
    _, model_path, model_why = resolve_model(c.model)
    moe = is_moe(c.model)
    q, q_why = quant_modes(c.precision, model_path, system, moe)
    par, par_why = parallel_args(c, moe)
    if c.backend != "trtllm":
        q, more = _fit_backend(q, system, c.backend, perf_version)
        q_why.update(more)
    args: dict[str, Any] = {
        "model_path": model_path,
        "system_name": system,
        "mode": "agg",
        "backend_name": c.backend,
        "backend_version": perf_version,
        "isl": c.isl,
        "osl": c.osl,
        "batch_size": batch,
        "ctx_tokens": ctx_tokens,
        **par,
        **{f"{k}_quant_mode": v for k, v in q.items()},
    }
    config = BUNDLED.get(c.model, model_path)  # never a machine's own folder: the bundled config's name
    mapping = {"model_config": config, "model_config_why": model_why, **q_why, **par_why}
    return args, mapping


def _fit_backend(
    q: dict[str, str], system: str, backend: str, perf_version: str
) -> tuple[dict[str, str], dict[str, str]]:
    """vLLM and SGLang: their own attention tables and scheduler limits (a mapping choice each).

    vLLM's tables hold context attention in bfloat16 only (it dequantises an FP8 KV cache for the
    prefill kernels), so an FP8 label runs fp8 GEMMs and KV cache with 16-bit context attention there.
    The max-throughput search keeps trtllm-bench's batch/token envelope for every backend, so the
    backends are compared under one budget (vLLM's max_num_seqs/max_num_batched_tokens defaults and
    SGLang's chunked prefill are not modelled)."""
    why = {"scheduler_limits": f"trtllm-bench's batch/token envelope applied to {backend} (one budget "
           "for every backend; its own scheduler defaults are not modelled)"}  # fmt: skip
    modes = context_fmha_modes(system, backend, perf_version)
    if q["fmha"] not in modes and "bfloat16" in modes:
        why["fmha"] = f"{backend}'s tables have no {q['fmha']} context attention: bfloat16"
        q = {**q, "fmha": "bfloat16"}
    return q, why


def _sources(per_ops_source: Any) -> collections.Counter[str]:
    """How many ops each data source served (silicon, empirical, mixed, ...)."""
    n: collections.Counter[str] = collections.Counter()
    stack = [per_ops_source]
    while stack:
        x = stack.pop()
        if isinstance(x, dict):
            stack.extend(x.values())
        elif isinstance(x, (list, tuple)):
            stack.extend(x)
        elif x is not None:
            n[str(x)] += 1
    return n


def run_point(args: dict[str, Any]) -> dict[str, Any]:
    """One ``cli_estimate`` call: its figures and fidelity, or {'error': ...} (out of memory, no data)."""
    api = _aic()
    try:
        r = api.cli_estimate(**args)
    except Exception as e:  # AIConfigurator raises RuntimeError/ValueError/KeyError for unmodellable points
        return {"error": f"{type(e).__name__}: {str(e).splitlines()[0][:300]}"}
    src = _sources(r.per_ops_source)
    fallbacks = [str(f) for f in (r.moe_comm_fallbacks or ())]
    return {
        "tokens_per_s": float(r.tokens_per_second),
        "tokens_per_s_per_gpu": float(r.tokens_per_second_per_gpu),
        # trtllm-bench's per-user figure (output_tokens_per_s_per_user, "Per User Output Throughput [w/
        # ctx]") is each request's output tokens over its whole latency, TTFT included; AIConfigurator's
        # own per-user figure is 1000/TPOT, trtllm-bench's "Per User Output Speed": kept apart
        "tokens_per_s_per_user": float(args["osl"]) * 1000.0 / float(r.request_latency),
        "output_speed_per_user": float(r.tokens_per_second_per_user),
        "ttft_ms": float(r.ttft),
        "tpot_ms": float(r.tpot),
        "request_latency_ms": float(r.request_latency),
        "memory_gb": float(r.memory),
        "concurrency": float(r.concurrency),
        "backend_version": str(r.backend_version),
        "kv_cache_oom": r.kv_cache_warning is not None,
        "fidelity": {
            **{f"ops_{k}": v for k, v in sorted(src.items())},
            "moe_comm_fallbacks": "; ".join(fallbacks) or None,
            "kv_cache_warning": r.kv_cache_warning,
        },
    }


@dataclass(frozen=True)
class Task:
    """One estimate to make: a configuration and a concurrency (None: max throughput), with the run's own
    max_batch_size / max_num_tokens where it states them."""

    config: Config
    concurrency: int | None = None
    max_batch_size: int | None = None
    max_num_tokens: int | None = None

    def key(self, perf_version: str, aic_version: str) -> str:
        payload = json.dumps(
            [dataclasses.asdict(self), perf_version, aic_version, SEARCH_VERSION], sort_keys=True
        )
        return hashlib.sha256(payload.encode()).hexdigest()[:32]


def solve(task: Task, perf_version: str) -> dict[str, Any]:
    """The estimate of one task: the chosen point's figures, the settings passed, mapping and search."""
    c = task.config
    if task.concurrency is not None:
        batch = task.concurrency
        tokens = task.max_num_tokens or finetune_setting(4096, c.isl, c.osl, c.pp)[1]
        args, mapping = point_args(c, perf_version, batch, tokens)
        if task.max_num_tokens is None:
            mapping["max_num_tokens"] = "trtllm-bench's heuristic with a KV cache holding every request"
        out = run_point(args)
        return {**out, "settings": args, "mapping": mapping, "search": f"batch = concurrency {batch}"}
    if task.max_batch_size and task.max_num_tokens:
        candidates = [(task.max_batch_size, task.max_num_tokens)]
        how = "the run's own max_batch_size and max_num_tokens"
    elif task.max_batch_size:
        candidates = [
            (task.max_batch_size, finetune_setting(task.max_batch_size * c.pp, c.isl, c.osl, c.pp)[1])
        ]
        how = "the run's max_batch_size; max_num_tokens by trtllm-bench's heuristic"
    else:
        candidates = sorted({finetune_setting(k, c.isl, c.osl, c.pp) for k in SEARCH_CAPACITIES})
        how = (
            "max throughput over trtllm-bench's finetune_setting points (KV capacity 64..4096 requests: "
            + ", ".join(f"{b}/{t}" for b, t in candidates)
            + " batch/tokens); out-of-memory and beyond-KV-cache points dropped"
        )
    best, dropped = _best(c, perf_version, candidates)
    if best is None and len(candidates) > 1:
        # The KV cache holds fewer than 64 requests (long sequences, a large model on few GPUs):
        # trtllm-bench still sets max_batch_size 64, and the runtime admits only what the cache holds.
        small = [(b, finetune_setting(b, c.isl, c.osl, c.pp)[1]) for b in SMALL_BATCHES]
        best, more = _best(c, perf_version, small)
        dropped += more
        how += "; none fitted, so the runtime's KV-limited batches " + ", ".join(str(b) for b, _ in small)
    if best is None:
        return {"error": "no point fits: " + "; ".join(dropped[-2:])}
    best["search"] = how + (f"; {len(dropped)} dropped" if dropped else "")
    return best


SMALL_BATCHES = (32, 16, 8, 4, 2, 1)


def _best(
    c: Config, perf_version: str, candidates: list[tuple[int, int]]
) -> tuple[dict[str, Any] | None, list[str]]:
    """The candidate (batch, tokens) with the highest tokens/s/GPU that fits, and why the others did not."""
    best: dict[str, Any] | None = None
    dropped: list[str] = []
    for batch, tokens in candidates:
        args, mapping = point_args(c, perf_version, batch, tokens)
        out = run_point(args)
        if "error" in out or out["kv_cache_oom"]:
            dropped.append(f"{batch}/{tokens}: {out.get('error', 'beyond the KV cache')}"[:160])
            continue
        if best is None or out["tokens_per_s_per_gpu"] > best["tokens_per_s_per_gpu"]:
            best = {**out, "settings": args, "mapping": mapping}
    return best, dropped


def _solve_one(item: tuple[Task, str]) -> dict[str, Any]:
    return solve(*item)


# --- Many estimates: cache and process pool -----------------------------------------------------------


class Cache:
    """Estimates by their inputs (``Task.key``), one JSON line each, appended: a rerun computes only what
    changed (a new task, another AIConfigurator or data version, a new search)."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.data: dict[str, dict[str, Any]] = {}
        if path is not None and path.exists():
            for line in path.read_text(encoding="utf-8").splitlines():
                try:
                    k, v = json.loads(line)
                except ValueError:
                    continue  # a line cut by an interrupted write: recomputed
                self.data[k] = v

    def put_many(self, items: dict[str, dict[str, Any]]) -> None:
        self.data.update(items)
        if self.path is not None and items:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self.path.open("a", encoding="utf-8") as f:
                f.writelines(json.dumps([k, v], default=str) + "\n" for k, v in items.items())


def estimate_many(
    tasks: Iterable[Task], cache: Cache, workers: int | None = None
) -> Iterator[tuple[Task, dict[str, Any]]]:
    """Each task with its estimate, from the cache or computed over ``workers`` processes."""
    aic_version = versions()[0]
    todo: list[tuple[Task, str, str]] = []
    results: dict[Task, dict[str, Any]] = {}
    for t in dict.fromkeys(tasks):
        try:
            _, system = resolve_gpu(t.config.gpu)
            pv = perf_data_version(system, t.config.backend)
        except UserError as e:
            results[t] = {"error": str(e)}
            continue
        k = t.key(pv, aic_version)
        if k in cache.data:
            results[t] = cache.data[k]
        else:
            todo.append((t, pv, k))
    workers = workers or max(1, (os.cpu_count() or 1))
    fresh: dict[str, dict[str, Any]] = {}
    if workers == 1 or len(todo) < 4:
        outs: Iterable[dict[str, Any]] = (solve(t, pv) for t, pv, _ in todo)
    else:
        pool = ProcessPoolExecutor(max_workers=workers)
        outs = pool.map(_solve_one, [(t, pv) for t, pv, _ in todo], chunksize=4)
    try:
        for (t, _pv, k), out in zip(todo, outs, strict=True):
            results[t] = fresh[k] = out
            if len(fresh) >= 200:  # save as we go: an interrupted run keeps what it computed
                cache.put_many(fresh)
                fresh = {}
    finally:
        cache.put_many(fresh)
        if workers != 1 and len(todo) >= 4:
            pool.shutdown(cancel_futures=True)
    yield from results.items()
