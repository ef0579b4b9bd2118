"""GPU, model and precision registries: canonical names, aliases and the figures the site computes with.

The registries are data files shipped in the package (``bench/data/gpus.yaml``, ``models.yaml``,
``precisions.yaml``); every figure there cites its source. Lookups fold case and spaces, so
"H200 141GB HBM3", "h200" and "H200 SXM 141GB" are one GPU. An unknown name raises ``UnknownName``
carrying the closest known names.
"""

from __future__ import annotations

import difflib
import functools
import re
from importlib import resources
from pathlib import Path
from typing import Any, Generic, Literal, TypeVar

import yaml_rs
from pydantic import BaseModel, ConfigDict, Field, model_validator

from bench.errors import UserError

TensorPrecision = Literal["FP16", "BF16", "FP8", "FP4", "INT8"]


class _Entry(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Gpu(_Entry):
    name: str
    aliases: list[str] = []
    architecture: str
    year: int
    form_factor: str
    memory_gb: float = Field(gt=0)
    memory_type: str
    hbm_bandwidth_tb_s: float = Field(gt=0)
    tflops_dense: dict[TensorPrecision, float | None]
    source: str
    figure_sources: dict[str, str] = {}  # a figure's own source where it is not `source` (key: field path)
    notes: str | None = None

    def tflops(self, precision: str) -> float | None:
        """Dense tensor TFLOP/s at a weight precision: the tensor path ``precisions.yaml`` gives it."""
        return self.tflops_dense.get(precision_entry(precision).tensor_path)


class WeightFormat(_Entry):
    """How a quantised weight is stored: value bits plus one scale of ``scale_bits`` per ``block`` weights."""

    name: str
    bits: float = Field(gt=0)
    block: int = Field(ge=0)  # weights per scale; 0: per-tensor or per-channel scales (negligible)
    scale_bits: int = Field(ge=0)
    source: str
    notes: str | None = None

    @property
    def bytes_per_weight(self) -> float:
        return self.bits / 8 + (self.scale_bits / 8 / self.block if self.block else 0.0)


class Precision(_Entry):
    """A result file's ``weight_precision`` label: storage format, tensor-core path, default KV bytes."""

    name: str
    format: str
    tensor_path: TensorPrecision
    kv_bytes: float = Field(gt=0)
    source: str | None = None
    notes: str | None = None


class ModelArch(_Entry):
    id: str
    name: str
    aliases: list[str] = []
    params_b: float = Field(gt=0)
    active_params_b: float | None = Field(default=None, gt=0)
    experts: int | None = None
    experts_per_token: int | None = None
    layers: int = Field(gt=0)
    hidden_size: int = Field(gt=0)
    intermediate_size: int = Field(gt=0)
    attention_heads: int = Field(gt=0)
    kv_heads: int = Field(gt=0)
    head_dim: int = Field(gt=0)
    moe_layers: int | None = Field(default=None, gt=0)  # layers with routed experts; null: all (MoE only)
    # Multi-head latent attention (DeepSeek): the cache holds kv_lora_rank + qk_rope_head_dim per token and
    # layer; q_lora_rank sizes the query projection.
    kv_lora_rank: int | None = Field(default=None, gt=0)
    qk_rope_head_dim: int | None = Field(default=None, gt=0)
    q_lora_rank: int | None = Field(default=None, gt=0)
    # Per-layer attention, a pattern repeated over the layers from layer 0: F full, S sliding window of
    # `window` tokens, C chunked attention (blocks of `window` tokens attend within their block). null: all F.
    layer_pattern: str | None = Field(default=None, pattern=r"^[FSC]+$")
    window: int | None = Field(default=None, gt=0)
    attention_source: str | None = None  # where layer_pattern / window / the MLA sizes come from
    mtp_layers: int = Field(
        default=0, ge=0
    )  # multi-token-prediction modules in the checkpoint (loaded only for MTP)
    # Storage of quantised checkpoints: format per precision label where it is not the label's default
    # (precisions.yaml), and the tensor groups kept in 16 bit (embeddings, lm_head, router, attention).
    formats: dict[str, str] = {}
    kept_16bit: dict[str, list[Literal["embeddings", "lm_head", "router", "attention"]]] = {}
    # How the model's runs at a label compute where it is not the label's default: the tensor path of its
    # matmuls and the KV-cache bytes when the run does not name them (GPT-OSS "FP8" on Hopper is the MXFP4
    # checkpoint run with BF16 activations and a BF16 cache; its "FP4" on Blackwell uses MXFP8 activations).
    tensor_paths: dict[str, TensorPrecision] = {}
    kv_bytes: dict[str, float] = {}
    precision_source: str | None = None  # where formats / kept_16bit / tensor_paths / kv_bytes come from
    vocab_size: int = Field(gt=0)
    source: str
    notes: str | None = None

    @model_validator(mode="after")
    def _pattern_has_window(self) -> ModelArch:
        if bool(self.layer_pattern and set(self.layer_pattern) - {"F"}) != bool(self.window):
            raise ValueError("layer_pattern with S or C layers needs window, and window needs such a pattern")
        if bool(self.kv_lora_rank) != bool(self.qk_rope_head_dim):
            raise ValueError("MLA needs both kv_lora_rank and qk_rope_head_dim")
        return self

    @property
    def kv_dim_per_layer(self) -> int | None:
        """Cached elements per token and layer if not 2 x kv_heads x head_dim (MLA: latent + RoPE key)."""
        return (
            self.kv_lora_rank + self.qk_rope_head_dim if self.kv_lora_rank and self.qk_rope_head_dim else None
        )

    def layer_kinds(self) -> list[str]:
        """Each layer's attention: "F" full, "S" sliding window, "C" chunked."""
        pattern = self.layer_pattern or "F"
        return [pattern[i % len(pattern)] for i in range(self.layers)]

    @property
    def active_params(self) -> float:
        """Parameters touched per token (all of them for a dense model)."""
        return (self.active_params_b or self.params_b) * 1e9

    @property
    def kv_elements_per_token(self) -> int:
        """KV-cache elements per token over all layers: 2 x layers x KV heads x head dim (GQA-correct)."""
        per_layer = self.kv_dim_per_layer or 2 * self.kv_heads * self.head_dim
        return self.layers * per_layer


class UnknownName(UserError):
    """A GPU or model name the registry does not know; carries the closest known names."""

    def __init__(self, kind: str, name: str, suggestions: list[str]) -> None:
        hint = f"; closest known: {', '.join(suggestions)}" if suggestions else ""
        super().__init__(f"unknown {kind} {name!r}{hint}")
        self.kind, self.name, self.suggestions = kind, name, suggestions


def fold(name: str) -> str:
    """Key for alias matching: lower case, single spaces, no surrounding blanks."""
    return re.sub(r"\s+", " ", name).strip().lower()


T = TypeVar("T", bound=_Entry)


class _Index(Generic[T]):
    def __init__(self, kind: str, entries: list[T], key: str) -> None:
        self.kind, self.entries = kind, entries
        self._by: dict[str, T] = {}
        for e in entries:
            for n in [getattr(e, key), getattr(e, "name"), *e.aliases]:  # noqa: B009
                folded = fold(n)
                if folded in self._by and self._by[folded] is not e:
                    raise ValueError(f"{kind} registry: {n!r} names two entries")
                self._by[folded] = e
        self._key = key

    def get(self, name: str) -> T:
        try:
            return self._by[fold(name)]
        except KeyError:
            raise UnknownName(self.kind, name, self.suggest(name)) from None

    def find(self, name: str) -> T | None:
        return self._by.get(fold(name))

    def suggest(self, name: str, n: int = 3) -> list[str]:
        close = difflib.get_close_matches(fold(name), list(self._by), n=n * 3, cutoff=0.4)
        out: list[str] = []
        for c in close:
            canonical = getattr(self._by[c], self._key)
            if canonical not in out:
                out.append(canonical)
        return out[:n]


REGISTRY_FILES = ("gpus.yaml", "models.yaml", "precisions.yaml")


def _load(filename: str) -> Any:
    text = resources.files("bench.data").joinpath(filename).read_text(encoding="utf-8")
    return yaml_rs.loads(text)


def source_files() -> list[Path]:
    """The registry files on disk (the site's database is stale when one is newer than it)."""
    return [Path(str(resources.files("bench.data").joinpath(name))) for name in REGISTRY_FILES]


def data_files() -> list[Path]:
    """Every file of the data package: the registries and the tables the contract reads (what the
    ingest's reuse fingerprint covers, ``site_gen.data.reuse``)."""
    root = Path(str(resources.files("bench.data")))
    return sorted(p for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts)


@functools.cache
def gpus() -> _Index[Gpu]:
    """The GPU registry, keyed by canonical name and every alias."""
    return _Index("GPU", [Gpu(**d) for d in _load("gpus.yaml")], "name")


@functools.cache
def models() -> _Index[ModelArch]:
    """The model registry, keyed by Hugging Face id, display name and every alias."""
    return _Index("model", [ModelArch(**d) for d in _load("models.yaml")], "id")


@functools.cache
def formats() -> dict[str, WeightFormat]:
    """Weight storage formats by name (``precisions.yaml`` formats)."""
    return {f.name: f for f in (WeightFormat(**d) for d in _load("precisions.yaml")["formats"])}


@functools.cache
def precisions() -> dict[str, Precision]:
    """The precision vocabulary: result-file ``weight_precision`` label -> its meaning."""
    entries = [Precision(**d) for d in _load("precisions.yaml")["precisions"]]
    for p in entries:
        if p.format not in formats():
            raise ValueError(f"precisions.yaml: {p.name}: unknown format {p.format!r}")
    return {p.name: p for p in entries}


def precision_entry(label: str) -> Precision:
    """The vocabulary entry of a weight-precision label; an unknown label raises ``UnknownName``."""
    try:
        return precisions()[label]
    except KeyError:
        raise UnknownName("precision", label, difflib.get_close_matches(label, list(precisions()))) from None
