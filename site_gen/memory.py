"""Memory planning: how many bytes weights, KV cache, activations and runtime overhead take per GPU.

Pure arithmetic on plain dicts (a model architecture as in ``bench/data/models.yaml``, a GPU as in
``gpus.yaml``), so the browser planner (``docs/assets/js/planner.js``) can run the same formulas on the same
exported data; the tests check that both give equal numbers. ``bound.py`` uses the byte counts here too.

Units: bytes everywhere; GPU memory figures from the registry are read as GiB (2**30 bytes): the datasheets'
"80 GB", "141 GB", "180 GB" are within about 1% of the GiB that nvidia-smi reports.

The estimates (documented in docs/guide/07-memory.md):
- weights: parameters x bytes per weight, split evenly over TP x PP ranks;
- KV cache: batch x sequence length x KV bytes per token on one rank; GQA keys and values are split by
  KV head over TP ranks (replicated when TP exceeds the KV heads), layers over PP stages; a compressed
  latent cache (DeepSeek MLA) is replicated on every TP rank; sliding-window layers (GPT-OSS) keep only
  their window;
- activations: one forward pass of ``max_num_tokens`` tokens through one layer's widest buffers (activation
  buffers are reused layer after layer), plus FP32 logits for the batch;
- overhead: CUDA context, cuBLAS/CUDA-graph workspaces and, with more than one GPU, NCCL buffers.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

GIB = 2**30

# Bytes per stored weight by the result files' weight precision. FP4/INT4 ignore the block scales
# (NVFP4: one FP8 scale per 16 weights, +12.5%); "Mixed" (NVIDIA 0.12/0.15 tables) counts as FP8.
WEIGHT_BYTES: dict[str, float] = {
    "FP32": 4,
    "FP16": 2,
    "BF16": 2,
    "FP8": 1,
    "INT8": 1,
    "Mixed": 1,
    "FP4": 0.5,
    "INT4": 0.5,
}
KV_BYTES: dict[str, float] = {"FP16": 2, "BF16": 2, "FP8": 1, "INT8": 1, "NVFP4": 0.5}
ACTIVATION_BYTES = 2  # activations stay in 16-bit even with quantised weights
LOGIT_BYTES = 4  # TensorRT-LLM gathers the last token's logits in FP32
CONTEXT_OVERHEAD_GIB = 1.0  # CUDA context + cuBLAS / CUDA-graph workspaces, per GPU
NCCL_OVERHEAD_GIB = 0.5  # NCCL communicator buffers, per GPU, only when tp x pp > 1
DEFAULT_MAX_NUM_TOKENS = 8192  # trtllm-bench's usual max_num_tokens


# KV-cache dtype spellings seen in result files and TensorRT-LLM options -> KV_BYTES key.
_KV_ALIASES = {
    "fp16": "FP16", "float16": "FP16", "half": "FP16", "bf16": "BF16", "bfloat16": "BF16",
    "fp8": "FP8", "fp8_e4m3": "FP8", "e4m3": "FP8", "int8": "INT8", "nvfp4": "NVFP4", "fp4": "NVFP4",
}  # fmt: skip


def kv_dtype_bytes(kv_dtype: str | None, weight_precision: str) -> float:
    """Bytes per KV-cache element; unknown or "auto": FP8 for FP8/FP4 checkpoints (their default), else 2."""
    # not a str: NULL read back through pandas is NaN (a float), e.g. from DuckDB fetchdf in bound.py
    key = _KV_ALIASES.get(kv_dtype.strip().lower()) if isinstance(kv_dtype, str) else None
    if key:
        return KV_BYTES[key]
    return 1 if weight_precision in ("FP8", "FP4", "Mixed") else 2


def kv_elements_per_token(arch: dict[str, Any]) -> int:
    """KV elements cached per token over all layers: 2 x layers x KV heads x head dim (GQA-correct)."""
    return arch["layers"] * _kv_elements_per_layer(arch)


def _kv_elements_per_layer(arch: dict[str, Any]) -> int:
    return arch.get("kv_dim_per_layer") or 2 * arch["kv_heads"] * arch["head_dim"]


def windowed_layers(arch: dict[str, Any]) -> int:
    """How many layers attend only to the last ``sliding_window`` tokens (0 without a window)."""
    if not arch.get("sliding_window"):
        return 0
    return arch.get("sliding_window_layers") or arch["layers"]


def cached_positions(arch: dict[str, Any], seq_len: float) -> float:
    """Token positions cached (and attended to) over all layers for a sequence of ``seq_len`` tokens."""
    w = windowed_layers(arch)
    window = min(seq_len, arch["sliding_window"]) if w else 0
    return (arch["layers"] - w) * seq_len + w * window


def kv_bytes_per_token(arch: dict[str, Any], kv_bytes: float) -> float:
    """KV-cache bytes per token for the whole model without sliding windows (one copy, no parallelism)."""
    return kv_elements_per_token(arch) * kv_bytes


def kv_bytes_per_sequence(arch: dict[str, Any], kv_bytes: float, seq_len: float) -> float:
    """KV-cache bytes of one sequence of ``seq_len`` tokens; windowed layers keep only their window."""
    return _kv_elements_per_layer(arch) * cached_positions(arch, seq_len) * kv_bytes


def kv_bytes_per_token_simplified(arch: dict[str, Any], kv_bytes: float) -> float:
    """The common shortcut 2 x layers x hidden size x bytes: wrong for GQA by attention heads / KV heads."""
    return 2 * arch["layers"] * arch["hidden_size"] * kv_bytes


def weight_bytes(arch: dict[str, Any], weight_precision: str) -> float:
    """Bytes of all stored weights (every expert of an MoE model)."""
    return arch["params_b"] * 1e9 * WEIGHT_BYTES[weight_precision]


def kv_bytes_per_sequence_per_gpu(
    arch: dict[str, Any], kv_bytes: float, seq_len: float, tp: int, pp: int
) -> float:
    """KV bytes of one sequence on the most loaded GPU of a TP x PP layout."""
    # A latent cache (MLA) is not split by head: every TP rank holds all of it.
    latent = bool(arch.get("kv_dim_per_layer"))
    head_share = 1.0 if latent else math.ceil(arch["kv_heads"] / tp) / arch["kv_heads"]
    stage_share = math.ceil(arch["layers"] / pp) / arch["layers"]
    return kv_bytes_per_sequence(arch, kv_bytes, seq_len) * head_share * stage_share


def activation_bytes_per_gpu(
    arch: dict[str, Any], batch: int, seq_len: int, tp: int, max_num_tokens: int
) -> float:
    """Peak activation workspace of one forward pass on one GPU (estimate; see the module docstring)."""
    tokens = min(batch * seq_len, max_num_tokens)
    q_dim = arch["attention_heads"] * arch["head_dim"]
    kv_dim = 2 * arch["kv_heads"] * arch["head_dim"]
    mlp = (
        2 * arch["intermediate_size"] * (arch.get("experts_per_token") or 1)
    )  # gate + up of each routed expert
    width = 2 * arch["hidden_size"] + (q_dim + kv_dim + mlp) / tp
    logits = min(batch, tokens) * arch["vocab_size"] / tp * LOGIT_BYTES
    return tokens * width * ACTIVATION_BYTES + logits


def overhead_bytes_per_gpu(n_gpus: int) -> float:
    """Fixed runtime overhead per GPU: context and workspaces, plus NCCL buffers when GPUs talk."""
    return (CONTEXT_OVERHEAD_GIB + (NCCL_OVERHEAD_GIB if n_gpus > 1 else 0.0)) * GIB


@dataclass(frozen=True)
class PlanInput:
    """What the planner's form asks for."""

    weight_precision: str
    kv_dtype: str
    batch: int
    seq_len: int
    tp: int = 1
    pp: int = 1
    max_num_tokens: int = DEFAULT_MAX_NUM_TOKENS


@dataclass(frozen=True)
class Plan:
    """Bytes on the most loaded GPU of the layout, by component."""

    weights: float
    kv_cache: float
    activations: float
    overhead: float

    @property
    def total(self) -> float:
        return self.weights + self.kv_cache + self.activations + self.overhead

    def as_dict(self) -> dict[str, float]:
        return {**asdict(self), "total": self.total}


def plan(arch: dict[str, Any], inp: PlanInput) -> Plan:
    """Per-GPU memory of serving ``batch`` sequences of ``seq_len`` tokens with the given layout."""
    n = inp.tp * inp.pp
    kv_b = KV_BYTES[inp.kv_dtype]
    return Plan(
        weights=weight_bytes(arch, inp.weight_precision) / n,
        kv_cache=inp.batch * kv_bytes_per_sequence_per_gpu(arch, kv_b, inp.seq_len, inp.tp, inp.pp),
        activations=activation_bytes_per_gpu(arch, inp.batch, inp.seq_len, inp.tp, inp.max_num_tokens),
        overhead=overhead_bytes_per_gpu(n),
    )


# Layouts tried, smallest first, when searching what fits: TP inside an 8-GPU node, then PP across nodes.
LAYOUTS: list[tuple[int, int]] = [(1, 1), (2, 1), (4, 1), (8, 1), (8, 2), (8, 4), (8, 8), (8, 16)]


def smallest_fit(arch: dict[str, Any], inp: PlanInput, memory_gb: float) -> tuple[int, int] | None:
    """The first (tp, pp) of LAYOUTS whose per-GPU total fits in ``memory_gb`` GiB, or None."""
    for tp, pp in LAYOUTS:
        if tp > arch["attention_heads"] or arch["attention_heads"] % tp:
            continue  # TP splits attention heads evenly
        trial = PlanInput(
            inp.weight_precision, inp.kv_dtype, inp.batch, inp.seq_len, tp, pp, inp.max_num_tokens
        )
        if plan(arch, trial).total <= memory_gb * GIB:
            return tp, pp
    return None


def fit_table(arch: dict[str, Any], inp: PlanInput, gpus: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """For each GPU: does the chosen layout fit, its free memory, and the smallest layout that fits."""
    per_gpu = plan(arch, inp).total
    rows = []
    for g in gpus:
        capacity = g["memory_gb"] * GIB
        best = smallest_fit(arch, inp, g["memory_gb"])
        rows.append(
            {
                "gpu": g["name"],
                "memory_gb": g["memory_gb"],
                "fits": per_gpu <= capacity,
                "free_bytes": capacity - per_gpu,
                "min_gpus": best[0] * best[1] if best else None,
                "min_layout": f"TP{best[0]} x PP{best[1]}" if best else None,
            }
        )
    return rows


# ------------------------------------------------------------------------------------- browser planner

_ARCH_FIELDS = (
    "id",
    "name",
    "params_b",
    "active_params_b",
    "experts",
    "experts_per_token",
    "layers",
    "hidden_size",
    "intermediate_size",
    "attention_heads",
    "kv_heads",
    "head_dim",
    "kv_dim_per_layer",
    "sliding_window",
    "sliding_window_layers",
    "vocab_size",
)


def planner_payload() -> dict[str, Any]:
    """Everything the browser planner computes with: registries and this module's constants.

    The constants travel with the data so that planner.js holds no copy of them to drift.
    """
    from bench.contract import registry

    return {
        "constants": {
            "GIB": GIB,
            "WEIGHT_BYTES": WEIGHT_BYTES,
            "KV_BYTES": KV_BYTES,
            "ACTIVATION_BYTES": ACTIVATION_BYTES,
            "LOGIT_BYTES": LOGIT_BYTES,
            "CONTEXT_OVERHEAD_GIB": CONTEXT_OVERHEAD_GIB,
            "NCCL_OVERHEAD_GIB": NCCL_OVERHEAD_GIB,
            "DEFAULT_MAX_NUM_TOKENS": DEFAULT_MAX_NUM_TOKENS,
            "LAYOUTS": LAYOUTS,
        },
        "models": [
            {k: getattr(m, k) for k in _ARCH_FIELDS}
            for m in registry.models().entries
            if not m.id.startswith("llmbench/")  # test-only architectures
        ],
        "gpus": [
            {"name": g.name, "memory_gb": g.memory_gb, "architecture": g.architecture, "year": g.year}
            for g in sorted(registry.gpus().entries, key=lambda g: (g.year, g.memory_gb, g.name))
        ],
    }


def planner_script(payload: dict[str, Any] | None = None) -> str:
    """The planner's data as a JavaScript file (a global, because fetch() is refused from file://)."""
    import json

    body = json.dumps(payload or planner_payload(), separators=(",", ":"), ensure_ascii=False)
    return f"window.LLMBENCH_PLANNER={body};\n"


PLANNER_DATA = "docs/assets/js/planner-data.js"  # relative to the repository root; committed


def write_planner_script(root: Path) -> bool:
    """Rewrite ``root/PLANNER_DATA`` from the registries if it changed; True when it was rewritten.

    The file is committed (the planner then works from ``mkdocs serve`` on a fresh clone) and checked
    against the registries by tests/guide/test_planner_js.py; ``python -m site_gen.memory`` refreshes it.
    """
    path = root / PLANNER_DATA
    text = planner_script()
    if path.exists() and path.read_text(encoding="utf-8") == text:
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)
    return True


if __name__ == "__main__":
    changed = write_planner_script(Path(__file__).resolve().parent.parent)
    print(f"{PLANNER_DATA}: {'rewritten' if changed else 'up to date'}")
