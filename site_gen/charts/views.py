"""The registry of chart views: a name -> the charts it draws and the filters it starts from.

A view is what a writer places in any Markdown page with one line (see ``site_gen.pages.markers``)::

    <!-- chart: tp-scaling model="Llama 3.1 8B" precision=FP16 -->

and what gets a page of its own under "Views". Another module adds a view with ``@register(...)`` and one
line in ``EXTRA_VIEW_MODULES`` below; nothing else changes.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import altair as alt

from site_gen.charts import specs as charts
from site_gen.charts.specs import ChartContext
from site_gen.data.dimensions import Filters, mask
from site_gen.data.dimensions import get as dimension

if TYPE_CHECKING:
    import pandas as pd

    from site_gen.i18n import Catalogue

# Modules that register more views when imported (one line each); missing modules are skipped.
EXTRA_VIEW_MODULES: tuple[str, ...] = (
    "site_gen.charts.guide_views",
    "site_gen.charts.engine_views",
    "site_gen.charts.guide_topic_views",
    "site_gen.charts.latency_views",
)


@dataclass(frozen=True)
class View:
    name: str
    title: str
    description: str
    build: Callable[[ChartContext], Sequence[alt.TopLevelMixin]]
    filters: tuple[str, ...] = ()  # dimension keys shown in the filter bar of the view's own page
    defaults: Callable[[pd.DataFrame], Filters] = field(default=lambda df: {})  # page's starting filters
    # dimensions the view needs one value of (a model, a precision): a click there replaces the choice
    single: tuple[str, ...] = ()
    # HTML placed inside the view's filter scope after its charts (so the scope's filters drive it too),
    # in the page's language: the Pareto view's per-interactivity tables (site_gen.charts.latency_views)
    after: Callable[[Catalogue], str] | None = None


_VIEWS: dict[str, View] = {}
_loaded = False


def register(
    name: str,
    title: str,
    description: str,
    filters: Sequence[str] = (),
    defaults: Callable[[pd.DataFrame], Filters] | None = None,
    single: Sequence[str] = (),
    after: Callable[[Catalogue], str] | None = None,
) -> Callable[[Callable[[ChartContext], Sequence[alt.TopLevelMixin]]], Callable]:
    """Decorator: register a function ``ChartContext -> [charts]`` as the view ``name``."""

    def deco(fn: Callable[[ChartContext], Sequence[alt.TopLevelMixin]]) -> Callable:
        if name in _VIEWS:
            raise ValueError(f"view {name!r} registered twice")
        for key in (*filters, *single):
            dimension(key)  # fail at import on a typo
        _VIEWS[name] = View(
            name, title, description, fn, tuple(filters), defaults or (lambda df: {}), tuple(single), after
        )
        return fn

    return deco


def all_views() -> dict[str, View]:
    """Every registered view, built-in first, then those of EXTRA_VIEW_MODULES."""
    global _loaded
    if not _loaded:
        _loaded = True
        for module in EXTRA_VIEW_MODULES:
            if importlib.util.find_spec(module) is not None:
                importlib.import_module(module)
    return _VIEWS


def get(name: str) -> View:
    views = all_views()
    if name not in views:
        raise KeyError(f"unknown chart view {name!r}; known: {', '.join(sorted(views))}")
    return views[name]


def widest(df: pd.DataFrame, keys: Sequence[str], spread: str, where: Filters | None = None) -> Filters:
    """Starting filters: the combination of ``keys`` (dimension keys) whose runs cover the most distinct
    values of ``spread`` (ties: most runs), so a view opens on its most informative slice of the data."""
    if df.empty:
        return {}
    applied: Filters = {}
    for key, values in (where or {}).items():  # preferences, each kept only if some runs match it
        sub = df[mask(df, {key: values})]
        if not sub.empty:
            df, applied[key] = sub, list(values)
    cols = [dimension(k).column for k in keys]
    spread_col = dimension(spread).column
    stats = df.groupby(cols, dropna=True)[spread_col].agg(["nunique", "size"])
    if stats.empty:
        return {}
    best = stats.sort_values(["nunique", "size"], ascending=False).index[0]
    best = best if isinstance(best, tuple) else (best,)
    return {**applied, **{k: [str(v)] for k, v in zip(keys, best, strict=True)}}


COMMON = ("model", "precision", "workload", "gpu", "tp", "pp", "version", "source", "engine")


@register(
    "generational-uplift",
    "Generational uplift",
    "The same model, precision and workload across GPU generations (V100 → A100 → H100/H200 → B200 …).",
    filters=COMMON,
    single=("model", "precision", "workload"),
    defaults=lambda df: widest(df, ["model", "precision", "workload"], "gpu", {"engine": ["tensorrt-llm"]}),
)
def _generational(ctx: ChartContext) -> list[alt.Chart]:
    return [charts.generational_uplift(ctx)]


@register(
    "precision-uplift",
    "Precision uplift",
    "FP16 → FP8 → FP4 on the same GPU, model and workload.",
    filters=COMMON,
    single=("model", "workload"),
    defaults=lambda df: widest(df, ["gpu", "model", "workload"], "precision", {"engine": ["tensorrt-llm"]}),
)
def _precision(ctx: ChartContext) -> list[alt.Chart]:
    return [charts.precision_uplift(ctx)]


@register(
    "tp-scaling",
    "Tensor-parallel scaling",
    "Output throughput over all GPUs, and per-GPU efficiency, as tensor parallelism grows.",
    filters=COMMON,
    single=("model", "precision", "workload"),
    defaults=lambda df: widest(df, ["model", "precision", "workload"], "tp", {"pp": ["1"]}),
)
def _tp(ctx: ChartContext) -> list[alt.Chart]:
    return [charts.tp_throughput(ctx), charts.tp_efficiency(ctx)]


@register(
    "workload-shape",
    "Workload shape",
    "Baseline 128/128 against decode-heavy 128/2048 and prefill-heavy 2048/128, per GPU.",
    filters=COMMON,
    single=("model", "precision"),
    defaults=lambda df: widest(
        df, ["model", "precision"], "gpu", {"workload": ["128/128", "128/2048", "2048/128"]}
    ),
)
def _workload(ctx: ChartContext) -> list[alt.Chart]:
    return [charts.workload_shape(ctx)]


@register(
    "version-history",
    "TensorRT-LLM version history",
    "The same configuration across TensorRT-LLM releases, from NVIDIA's published tables.",
    filters=COMMON,
    single=("model", "precision", "workload"),
    defaults=lambda df: widest(
        df,
        ["gpu", "model", "precision", "workload", "tp"],
        "version",
        # the example first: Llama 3.1 70B FP8, 128/128 (each preference dropped if absent)
        {"source": ["NVIDIA"], "model": ["Llama 3.1 70B"], "precision": ["FP8"], "workload": ["128/128"]},
    ),
)
def _versions(ctx: ChartContext) -> list[alt.Chart]:
    return [charts.version_history(ctx)]


@register(
    "engine-comparison",
    "Engines compared",
    "TensorRT-LLM against other engines (e.g. transformers) on the same GPU, model and workload.",
    filters=COMMON,
    single=("model", "workload"),
    # Precision is left open: engines are often measured at different ones (FP8 vs BF16); the chart labels it.
    defaults=lambda df: widest(df, ["gpu", "model", "workload"], "engine"),
)
def _engines(ctx: ChartContext) -> list[alt.Chart]:
    return [charts.engine_comparison(ctx)]


@register("runs-by-gpu", "Every run by GPU", "Each run as one point: output tokens/s per GPU, by GPU.")
def _runs_gpu(ctx: ChartContext) -> list[alt.Chart]:
    return [charts.runs_by_gpu(ctx)]


@register("runs-by-tp", "Every run by TP", "Each run as one point: output tokens/s per GPU against TP.")
def _runs_tp(ctx: ChartContext) -> list[alt.Chart]:
    return [charts.runs_by_tp(ctx)]
