"""GPU and model registries: canonical names, aliases and the figures the site computes with.

The registries are data files shipped in the package (``bench/data/gpus.yaml``, ``models.yaml``); every
figure there cites its source. Lookups fold case and spaces, so "H200 141GB HBM3", "h200" and
"H200 SXM 141GB" are one GPU. An unknown name raises ``UnknownName`` carrying the closest known names.
"""

from __future__ import annotations

import difflib
import functools
import re
from importlib import resources
from pathlib import Path
from typing import Generic, Literal, TypeVar

import yaml_rs
from pydantic import BaseModel, ConfigDict, Field

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
    notes: str | None = None

    def tflops(self, precision: str) -> float | None:
        """Dense tensor TFLOP/s at a weight precision (FP32/Mixed/INT4 map to the nearest tensor path)."""
        key = {"FP32": "FP16", "INT4": "FP16", "Mixed": "FP8"}.get(precision, precision)
        return self.tflops_dense.get(key)  # type: ignore[call-overload]


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
    kv_dim_per_layer: int | None = Field(default=None, gt=0)
    sliding_window: int | None = Field(default=None, gt=0)  # tokens a windowed layer attends to (and caches)
    sliding_window_layers: int | None = Field(default=None, gt=0)  # how many layers are windowed; null: all
    vocab_size: int = Field(gt=0)
    source: str

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


REGISTRY_FILES = ("gpus.yaml", "models.yaml")


def _load(filename: str) -> list[dict]:
    text = resources.files("bench.data").joinpath(filename).read_text(encoding="utf-8")
    return yaml_rs.loads(text)


def source_files() -> list[Path]:
    """The registry files on disk (the site's database is stale when one is newer than it)."""
    return [Path(str(resources.files("bench.data").joinpath(name))) for name in REGISTRY_FILES]


@functools.cache
def gpus() -> _Index[Gpu]:
    """The GPU registry, keyed by canonical name and every alias."""
    return _Index("GPU", [Gpu(**d) for d in _load("gpus.yaml")], "name")


@functools.cache
def models() -> _Index[ModelArch]:
    """The model registry, keyed by Hugging Face id, display name and every alias."""
    return _Index("model", [ModelArch(**d) for d in _load("models.yaml")], "id")
