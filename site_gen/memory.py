"""Memory planning: how many bytes weights, KV cache, activations and runtime overhead take per GPU.

Pure arithmetic on plain dicts (a model architecture as in ``bench/data/models.yaml``, a GPU as in
``gpus.yaml``, the precision vocabulary of ``precisions.yaml``), so the browser planner
(``docs/assets/js/planner.js``) can run the same formulas on the same exported data; the tests check that
both give equal numbers. ``bound.py`` uses the byte counts and attention patterns here too.

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

import functools
import math
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

GIB = 2**30

KV_BYTES: dict[str, float] = {"FP16": 2, "BF16": 2, "FP8": 1, "INT8": 1, "NVFP4": 0.5}
ACTIVATION_BYTES = 2  # activations stay in 16-bit even with quantised weights
LOGIT_BYTES = 4  # TensorRT-LLM gathers the last token's logits in FP32
CONTEXT_OVERHEAD_GIB = 1.0  # CUDA context + cuBLAS / CUDA-graph workspaces, per GPU
NCCL_OVERHEAD_GIB = 0.5  # NCCL communicator buffers, per GPU, only when tp x pp > 1
DEFAULT_MAX_NUM_TOKENS = 8192  # trtllm-bench's usual max_num_tokens
HALF_BYTES = 2  # the 16-bit (BF16) tensors quantised checkpoints keep
# Tensor groups a quantised checkpoint keeps in 16 bit unless the model entry says otherwise: NVIDIA's
# ModelOpt checkpoints quantise "only the weights and activations of the linear operators within
# transformer blocks" (model cards), so the embedding table and lm_head stay BF16, and ModelOpt's default
# configuration leaves MoE routers (gates) unquantised.
DEFAULT_KEPT_16BIT = ("embeddings", "lm_head", "router")
GROUPS = ("embeddings", "lm_head", "attention", "router", "experts", "dense")
REPLICATED_UNDER_ATTENTION_DP = ("embeddings", "lm_head", "attention")


@functools.cache
def vocabulary() -> dict[str, Any]:
    """The precision vocabulary as plain data: label -> format, tensor path, KV bytes; format -> bytes."""
    from bench.contract import registry

    return {
        "FORMAT_BYTES": {name: f.bytes_per_weight for name, f in registry.formats().items()},
        "PRECISIONS": {
            name: {"format": p.format, "tensor_path": p.tensor_path, "kv_bytes": p.kv_bytes}
            for name, p in registry.precisions().items()
        },
    }


# KV-cache dtype spellings seen in result files and TensorRT-LLM options -> KV_BYTES key.
_KV_ALIASES = {
    "fp16": "FP16", "float16": "FP16", "half": "FP16", "bf16": "BF16", "bfloat16": "BF16",
    "fp8": "FP8", "fp8_e4m3": "FP8", "e4m3": "FP8", "int8": "INT8", "nvfp4": "NVFP4", "fp4": "NVFP4",
}  # fmt: skip


def kv_dtype_bytes(kv_dtype: str | None, weight_precision: str) -> float:
    """Bytes per KV-cache element; unknown or "auto": the precision's default (precisions.yaml kv_bytes)."""
    # not a str: NULL read back through pandas is NaN (a float), e.g. from DuckDB fetchdf in bound.py
    key = _KV_ALIASES.get(kv_dtype.strip().lower()) if isinstance(kv_dtype, str) else None
    if key:
        return KV_BYTES[key]
    return vocabulary()["PRECISIONS"][weight_precision]["kv_bytes"]


# ------------------------------------------------------------------------------------ attention pattern


def _kv_elements_per_layer(arch: dict[str, Any]) -> int:
    if arch.get("kv_lora_rank"):  # MLA: one latent + one shared RoPE key per token and layer
        return arch["kv_lora_rank"] + arch["qk_rope_head_dim"]
    return 2 * arch["kv_heads"] * arch["head_dim"]


def kv_elements_per_token(arch: dict[str, Any]) -> int:
    """KV elements cached per token over all layers: 2 x layers x KV heads x head dim (GQA-correct)."""
    return arch["layers"] * _kv_elements_per_layer(arch)


def layer_counts(arch: dict[str, Any]) -> dict[str, int]:
    """Layers by attention kind: F full, S sliding window, C chunked (``layer_pattern`` repeated)."""
    pattern = arch.get("layer_pattern") or "F"
    counts = {"F": 0, "S": 0, "C": 0}
    for i in range(arch["layers"]):
        counts[pattern[i % len(pattern)]] += 1
    return counts


def _attended_sum(kind: str, window: int, n: float) -> float:
    """Sum over token positions p = 1..n of the positions the token at p attends to (itself included).

    Full: p. Sliding window w: min(p, w). Chunked c: tokens attend within their block of c, (p - 1) % c + 1.
    """
    if n <= 0:
        return 0.0
    if kind == "F" or n <= window:
        return n * (n + 1) / 2
    if kind == "S":
        return window * (window + 1) / 2 + (n - window) * window
    blocks, rest = divmod(n, window)
    return blocks * window * (window + 1) / 2 + rest * (rest + 1) / 2


def attended_positions(arch: dict[str, Any], first: float, last: float) -> float:
    """(query, key) pairs over all layers for the tokens at positions first..last (1-based, inclusive)."""
    if last < first:
        return 0.0
    window = arch.get("window") or 0
    return sum(
        n * (_attended_sum(kind, window, last) - _attended_sum(kind, window, first - 1))
        for kind, n in layer_counts(arch).items()
        if n
    )


def cached_positions(arch: dict[str, Any], seq_len: float) -> float:
    """Token positions a sequence of ``seq_len`` tokens holds in the cache at its peak, over all layers.

    Full layers hold every token; sliding-window and chunked layers at most their window (a chunked layer
    needs only the current block of ``window`` tokens).
    """
    counts = layer_counts(arch)
    windowed = min(seq_len, arch.get("window") or seq_len)
    return counts["F"] * seq_len + (counts["S"] + counts["C"]) * windowed


def kv_bytes_per_token(arch: dict[str, Any], kv_bytes: float) -> float:
    """KV-cache bytes per token for the whole model without windows (one copy, no parallelism)."""
    return kv_elements_per_token(arch) * kv_bytes


def kv_bytes_per_sequence(arch: dict[str, Any], kv_bytes: float, seq_len: float) -> float:
    """KV-cache bytes of one sequence of ``seq_len`` tokens; windowed layers keep only their window."""
    return _kv_elements_per_layer(arch) * cached_positions(arch, seq_len) * kv_bytes


# --------------------------------------------------------------------------------------------- weights


def _attention_params_per_layer(arch: dict[str, Any]) -> float:
    h, heads, hd = arch["hidden_size"], arch["attention_heads"], arch["head_dim"]
    if arch.get("kv_lora_rank"):  # MLA: q down/up (or one q projection), kv down (+ RoPE key), kv up, o
        rope, kv_lora, q_lora = arch["qk_rope_head_dim"], arch["kv_lora_rank"], arch.get("q_lora_rank")
        q = h * q_lora + q_lora * heads * (hd + rope) if q_lora else h * heads * (hd + rope)
        return q + h * (kv_lora + rope) + kv_lora * heads * 2 * hd + heads * hd * h
    return 2 * h * heads * hd + 2 * h * arch["kv_heads"] * hd  # q and o, k and v


def param_groups(arch: dict[str, Any]) -> dict[str, float]:
    """Parameters by tensor group, from the config.json shapes; ``dense`` is the rest of ``params_b``.

    Routed experts: moe_layers x experts x 3 x hidden x intermediate (gate, up, down); the rest (dense
    MLPs, shared experts, norms, biases) is the total minus the groups counted here, at least 0.
    """
    h, vocab = arch["hidden_size"], arch["vocab_size"]
    experts = arch.get("experts") or 0
    moe_layers = (arch.get("moe_layers") or arch["layers"]) if experts else 0
    groups = {
        "embeddings": float(vocab * h),
        "lm_head": float(vocab * h),
        "attention": float(arch["layers"] * _attention_params_per_layer(arch)),
        "router": float(moe_layers * h * experts),
        "experts": float(moe_layers * experts * 3 * h * arch["intermediate_size"]),
    }
    groups["dense"] = max(0.0, arch["params_b"] * 1e9 - sum(groups.values()))
    return groups


def group_bytes_per_weight(arch: dict[str, Any], weight_precision: str) -> dict[str, float]:
    """Stored bytes per parameter of each tensor group at a weight precision (scales included)."""
    vocab = vocabulary()
    fmt = (arch.get("formats") or {}).get(weight_precision) or vocab["PRECISIONS"][weight_precision]["format"]
    quantised = vocab["FORMAT_BYTES"][fmt]
    if quantised >= HALF_BYTES:  # a 16- or 32-bit checkpoint stores every tensor alike
        return dict.fromkeys(GROUPS, quantised)
    kept = (arch.get("kept_16bit") or {}).get(weight_precision) or DEFAULT_KEPT_16BIT
    return {g: HALF_BYTES if g in kept else quantised for g in GROUPS}


def weight_bytes_by_group(arch: dict[str, Any], weight_precision: str) -> dict[str, float]:
    """Stored bytes of each tensor group (every expert of an MoE model)."""
    per = group_bytes_per_weight(arch, weight_precision)
    return {g: n * per[g] for g, n in param_groups(arch).items()}


def weight_bytes(arch: dict[str, Any], weight_precision: str) -> float:
    """Bytes of all stored weights of the main model (every expert of an MoE model)."""
    return sum(weight_bytes_by_group(arch, weight_precision).values())


def checkpoint_bytes(arch: dict[str, Any], weight_precision: str) -> float:
    """The main model plus its multi-token-prediction modules, as the published checkpoint stores them.

    A DeepSeek MTP module is one more decoder layer (at the average layer's size) with its own copies of
    the embedding and output head and a 2h x h projection, those in 16 bit. TensorRT-LLM loads it only
    when MTP speculative decoding is on, so ``weight_bytes`` (what the planner shows) leaves it out.
    """
    mtp = arch.get("mtp_layers") or 0
    if not mtp:
        return weight_bytes(arch, weight_precision)
    groups, per = param_groups(arch), group_bytes_per_weight(arch, weight_precision)
    moe_layers = (arch.get("moe_layers") or arch["layers"]) if arch.get("experts") else 1
    layer = (groups["attention"] + groups["dense"]) / arch["layers"] * per["attention"]
    layer += (groups["experts"] * per["experts"] + groups["router"] * per["router"]) / moe_layers
    extra = (groups["embeddings"] + groups["lm_head"] + 2 * arch["hidden_size"] ** 2) * HALF_BYTES
    return weight_bytes(arch, weight_precision) + mtp * (layer + extra)


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

    The constants travel with the data so that planner.js holds no copy of them to drift.
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
