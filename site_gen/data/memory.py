"""Memory planning: how many bytes weights, KV cache, activations and runtime overhead take per GPU.

The model arithmetic (weights, KV cache, attention pattern) is ``bench/contract/modelmath.py``, shared
with the speed-of-light bound that ``llmbench validate`` checks runs against; this module adds the
per-GPU split, activations and overhead, and re-exports those names. Pure arithmetic on plain dicts (a
model architecture as in ``bench/data/models.yaml``, a GPU as in ``gpus.yaml``, the precision vocabulary
of ``precisions.yaml``), so the browser planner (``docs/assets/js/calc/planner-memory.js``) can run the
same formulas on the same exported data; the tests check that both give equal numbers.

Units: bytes everywhere; GPU memory figures from the registry are read as GiB (2**30 bytes): the datasheets'
"80 GB", "141 GB", "180 GB" are within about 1% of the GiB that nvidia-smi reports.

The estimates (documented in docs/guide/07-memory.md):
- weights: each tensor group (embeddings, lm_head, attention, router, routed experts, the rest) at its
  stored size: 16 bit for the groups a quantised checkpoint keeps in BF16, else the format's bits plus its
  block scales (NVFP4 4.5 bits, MXFP4 4.25, FP8 block-128 8.002); split evenly over TP x PP ranks, except
  that attention DP replicates attention, embeddings and lm_head on every rank;
- KV cache: batch x cached positions x KV bytes per position; GQA keys and values are split by KV head
  over TP ranks (replicated when TP exceeds the KV heads), layers over PP stages; a compressed latent
  cache (DeepSeek MLA) is replicated on every TP rank; sliding-window and chunked layers keep at most
  their window; with attention DP each rank holds its own sequences with all heads;
- activations: one forward pass of ``max_num_tokens`` tokens through one layer's widest buffers (activation
  buffers are reused layer after layer), plus FP32 logits for the batch;
- overhead: CUDA context, cuBLAS/CUDA-graph workspaces and, with more than one GPU, NCCL buffers.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from bench.contract.modelmath import (
    DEFAULT_KEPT_16BIT,
    GIB,
    GROUPS,
    HALF_BYTES,
    KV_BYTES,
    _kv_elements_per_layer,
    attended_positions,
    cached_positions,
    checkpoint_bytes,
    group_bytes_per_weight,
    kv_bytes_per_sequence,
    kv_bytes_per_token,
    kv_dtype_bytes,
    kv_elements_per_token,
    layer_counts,
    param_groups,
    vocabulary,
    weight_bytes,
    weight_bytes_by_group,
)

__all__ = [  # the planner's own names and the model arithmetic it re-exports
    "DEFAULT_KEPT_16BIT",
    "GIB",
    "GROUPS",
    "HALF_BYTES",
    "KV_BYTES",
    "Plan",
    "PlanInput",
    "_kv_elements_per_layer",
    "activation_bytes_per_gpu",
    "attended_positions",
    "cached_positions",
    "checkpoint_bytes",
    "fit_table",
    "group_bytes_per_weight",
    "kv_bytes_per_sequence",
    "kv_bytes_per_sequence_per_gpu",
    "kv_bytes_per_token",
    "kv_bytes_per_token_simplified",
    "kv_dtype_bytes",
    "kv_elements_per_token",
    "layer_counts",
    "param_groups",
    "plan",
    "planner_payload",
    "planner_script",
    "smallest_fit",
    "vocabulary",
    "weight_bytes",
    "weight_bytes_by_group",
    "weight_bytes_per_gpu",
    "write_planner_script",
]

ACTIVATION_BYTES = 2  # activations stay in 16-bit even with quantised weights
LOGIT_BYTES = 4  # TensorRT-LLM gathers the last token's logits in FP32
CONTEXT_OVERHEAD_GIB = 1.0  # CUDA context + cuBLAS / CUDA-graph workspaces, per GPU
NCCL_OVERHEAD_GIB = 0.5  # NCCL communicator buffers, per GPU, only when tp x pp > 1
DEFAULT_MAX_NUM_TOKENS = 8192  # trtllm-bench's usual max_num_tokens
REPLICATED_UNDER_ATTENTION_DP = ("embeddings", "lm_head", "attention")


def weight_bytes_per_gpu(
    arch: dict[str, Any], weight_precision: str, tp: int, pp: int, attention_dp: bool = False
) -> float:
    """Weight bytes on one GPU: all groups split over TP x PP; with attention DP the attention,
    embeddings and lm_head are whole on every TP rank (split only by PP)."""
    total = 0.0
    for g, b in weight_bytes_by_group(arch, weight_precision).items():
        split = pp if attention_dp and g in REPLICATED_UNDER_ATTENTION_DP else tp * pp
        total += b / split
    return total


def kv_bytes_per_token_simplified(arch: dict[str, Any], kv_bytes: float) -> float:
    """The common shortcut 2 x layers x hidden size x bytes: wrong for GQA by attention heads / KV heads."""
    return 2 * arch["layers"] * arch["hidden_size"] * kv_bytes


def kv_bytes_per_sequence_per_gpu(
    arch: dict[str, Any], kv_bytes: float, seq_len: float, tp: int, pp: int, attention_dp: bool = False
) -> float:
    """KV bytes of one sequence on the most loaded GPU of a TP x PP layout (attention DP: all heads)."""
    # A latent cache (MLA) is not split by head: every TP rank holds all of it.
    latent = bool(arch.get("kv_lora_rank"))
    whole = latent or attention_dp
    head_share = 1.0 if whole else math.ceil(arch["kv_heads"] / tp) / arch["kv_heads"]
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
    attention_dp: bool = False  # attention data parallel: each TP rank serves its own sequences


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
    # Attention DP: the batch is spread over the TP ranks, each holding its sequences' whole cache.
    batch = math.ceil(inp.batch / inp.tp) if inp.attention_dp else inp.batch
    kv_seq = kv_bytes_per_sequence_per_gpu(arch, kv_b, inp.seq_len, inp.tp, inp.pp, inp.attention_dp)
    return Plan(
        weights=weight_bytes_per_gpu(arch, inp.weight_precision, inp.tp, inp.pp, inp.attention_dp),
        kv_cache=batch * kv_seq,
        activations=activation_bytes_per_gpu(arch, batch, inp.seq_len, inp.tp, inp.max_num_tokens),
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
            inp.weight_precision,
            inp.kv_dtype,
            inp.batch,
            inp.seq_len,
            tp,
            pp,
            inp.max_num_tokens,
            inp.attention_dp,
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
    "kv_lora_rank",
    "qk_rope_head_dim",
    "q_lora_rank",
    "moe_layers",
    "layer_pattern",
    "window",
    "formats",
    "kept_16bit",
    "vocab_size",
)


def planner_payload() -> dict[str, Any]:
    """Everything the browser planner computes with: registries and this module's constants.

    The constants travel with the data so that the browser planner holds no copy of them to drift.
    """
    from bench.contract import registry

    return {
        "constants": {
            "GIB": GIB,
            **vocabulary(),
            "HALF_BYTES": HALF_BYTES,
            "DEFAULT_KEPT_16BIT": DEFAULT_KEPT_16BIT,
            "GROUPS": GROUPS,
            "REPLICATED_UNDER_ATTENTION_DP": REPLICATED_UNDER_ATTENTION_DP,
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
    against the registries by tests/guide/test_planner_js.py; ``python -m site_gen.data.memory`` refreshes it.
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
    changed = write_planner_script(Path(__file__).resolve().parents[2])  # the repository root
    print(f"{PLANNER_DATA}: {'rewritten' if changed else 'up to date'}")
