"""Model arithmetic from the registries: stored bytes of each tensor group, KV-cache bytes, attention pattern.

Pure arithmetic on plain dicts (a model architecture as in ``bench/data/models.yaml``, the precision
vocabulary of ``precisions.yaml``). It lives in the result contract because two sides use it: the
speed-of-light bound (``bench/contract/bound.py``), which ``llmbench validate`` checks runs against, and the
memory planner (``site_gen/data/memory.py``, which re-exports these names, and
``docs/assets/js/calc/planner-memory.js``).

Units: bytes everywhere; GPU memory figures from the registry are read as GiB (2**30 bytes).

- weights: each tensor group (embeddings, lm_head, attention, router, routed experts, the rest) at its
  stored size: 16 bit for the groups a quantised checkpoint keeps in BF16, else the format's bits plus its
  block scales (NVFP4 4.5 bits, MXFP4 4.25, FP8 block-128 8.002);
- KV cache: cached positions x KV elements per position and layer x KV bytes; sliding-window and chunked
  layers keep at most their window; a compressed latent cache (DeepSeek MLA) holds one latent per token.
"""

from __future__ import annotations

import functools
from typing import Any

GIB = 2**30

KV_BYTES: dict[str, float] = {"FP16": 2, "BF16": 2, "FP8": 1, "INT8": 1, "NVFP4": 0.5}
HALF_BYTES = 2  # the 16-bit (BF16) tensors quantised checkpoints keep
# Tensor groups a quantised checkpoint keeps in 16 bit unless the model entry says otherwise: NVIDIA's
# ModelOpt checkpoints quantise "only the weights and activations of the linear operators within
# transformer blocks" (model cards), so the embedding table and lm_head stay BF16, and ModelOpt's default
# configuration leaves MoE routers (gates) unquantised.
DEFAULT_KEPT_16BIT = ("embeddings", "lm_head", "router")


class RegistryArch(dict):
    """A registry model's ``model_dump()`` made once per registry entry (``registry_arch``) and never
    changed: the figures that depend on the model alone (layer counts, weight bytes, the bound's parts)
    are kept on it (``derived``) instead of being computed again for each of a million runs. Any other
    dict is computed every time, as before (a caller may build or change its own)."""

    def __init__(self, data: dict[str, Any]) -> None:
        super().__init__(data)
        self.derived: dict[Any, Any] = {}


_ARCHS: dict[int, tuple[Any, RegistryArch]] = {}  # id(entry) -> (entry, its dump): the entry kept alive


def registry_arch(entry: Any) -> RegistryArch:
    """``entry.model_dump()`` (a registry ModelArch), the same read-only dict for the same entry object; a
    new registry (reloaded) has new entries, so nothing stale is served."""
    hit = _ARCHS.get(id(entry))
    if hit is None or hit[0] is not entry:
        hit = (entry, RegistryArch(entry.model_dump()))
        _ARCHS[id(entry)] = hit
    return hit[1]


def derived(arch: dict[str, Any], key: Any, make: Any) -> Any:
    """``make()``, kept on ``arch`` under ``key`` when it is a ``RegistryArch`` (the value must not be
    changed by the caller)."""
    memo = getattr(arch, "derived", None)
    if memo is None:
        return make()
    if key not in memo:
        memo[key] = make()
    return memo[key]


GROUPS = ("embeddings", "lm_head", "attention", "router", "experts", "dense")


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


def kv_dtype_bytes(kv_dtype: str | None, weight_precision: str, arch: dict[str, Any] | None = None) -> float:
    """Bytes per KV-cache element; unknown or "auto": the model's default at this precision (models.yaml
    ``kv_bytes``), else the precision's (precisions.yaml ``kv_bytes``)."""
    # not a str: NULL read back through pandas is NaN (a float), e.g. from DuckDB fetchdf in bound.py
    key = _KV_ALIASES.get(kv_dtype.strip().lower()) if isinstance(kv_dtype, str) else None
    if key:
        return KV_BYTES[key]
    own = ((arch or {}).get("kv_bytes") or {}).get(weight_precision)
    return own or vocabulary()["PRECISIONS"][weight_precision]["kv_bytes"]


def tensor_path(weight_precision: str, arch: dict[str, Any] | None = None) -> str:
    """The gpus.yaml tflops_dense column a run's matmuls use: the model's own (models.yaml
    ``tensor_paths``) where it differs from the precision's (precisions.yaml ``tensor_path``)."""
    own = ((arch or {}).get("tensor_paths") or {}).get(weight_precision)
    return own or vocabulary()["PRECISIONS"][weight_precision]["tensor_path"]


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
    return derived(arch, "layer_counts", lambda: _layer_counts(arch))


def _layer_counts(arch: dict[str, Any]) -> dict[str, int]:
    pattern = arch.get("layer_pattern") or "F"
    counts = {"F": 0, "S": 0, "C": 0}
    full, rest = divmod(arch["layers"], len(pattern))
    for pos, kind in enumerate(pattern):  # layer i has the kind at i % len(pattern)
        counts[kind] += full + (pos < rest)
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
    return derived(arch, ("weight_bytes", weight_precision), lambda: _weight_bytes(arch, weight_precision))


def _weight_bytes(arch: dict[str, Any], weight_precision: str) -> float:
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
