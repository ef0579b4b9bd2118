"""Views that compare inference engines: TensorRT-LLM against the PyTorch-native transformers baseline.

Registered in ``site_gen.charts.views`` (listed in its EXTRA_VIEW_MODULES). ``trtllm-vs-transformers`` draws,
per workload, the best output tokens/s of each engine on the selected runs, and above each pair the ratio
TensorRT-LLM / transformers, so "how much faster" is read off the chart rather than computed by the reader.
Pages choose the runs with marker filters (GPU, model, TP, precision, source).
"""

from __future__ import annotations

import altair as alt

from site_gen.charts.specs import DATA_NAME, WITHIN_BOUND, ChartContext, fitted_axis
from site_gen.charts.views import COMMON, register, widest

TRT, HF = "tensorrt-llm", "transformers"
# One definition of "how much faster": at matched precision. The view opens on the 16-bit runs (the
# transformers baseline runs 16-bit); dividing TensorRT-LLM's best FP8 run by transformers' best BF16 run
# (3.9x instead of 2.2x) answered another question (issue 26).
SIXTEEN_BIT = ["FP16", "BF16"]
ENGINE_COLOURS = {TRT: "#76b900", HF: "#ff9d00"}  # NVIDIA green, Hugging Face yellow
# Two lines: an axis title is centred on the plot, and one line wider than a phone's plot (about 300 px
# over 200) passed both edges, so Vega's fit-x took the overflow off the plot's width, which moved the
# overflow again: the width never settled (208 -> 203 -> 199 -> 198 px, the title cut; issue 26).
WORKLOAD_TITLE = ["Workload: input/output", "sequence length (tokens)"]
Y_TITLE = "Best output tokens/s of the selected runs (all GPUs of a run)"


def _best_per_engine() -> alt.Chart:
    """Best output tokens/s per (workload, engine) of the runs that report an all-GPU figure (a layer:
    the data, the page's named dataset, is set once on the layered chart)."""
    return (
        alt.Chart()
        .transform_filter("isValid(datum.output_tps) && datum.output_tps > 0")
        .transform_filter(alt.FieldOneOfPredicate(field="engine", oneOf=[TRT, HF]))
        .transform_filter(WITHIN_BOUND)
        .transform_aggregate(
            best="max(output_tps)",
            best_run="argmax(output_tps)",
            runs="count()",
            groupby=["workload", "workload_order", "engine"],
        )
        # the precision of the figure shown: the tooltip and data table say which (a view opened on "all"
        # precisions may set FP8 beside BF16; the card of the best run opens on a click)
        .transform_calculate(best_precision="datum.best_run.precision")
    )


def engine_bars(ctx: ChartContext) -> alt.LayerChart:
    """Grouped bars per workload (one per engine) with the TensorRT-LLM / transformers ratio on top."""
    sort = alt.EncodingSortField("workload_order", op="min")
    # "1024/1024": 50 px level (Vega's textMetrics, 10 px) and a gap; upright on a narrower band (issue 26:
    # they overlapped on a phone, 54 px let "1024/1024" touch "2048/128" on a 57 px band)
    x = alt.X("workload:N", title=WORKLOAD_TITLE, sort=sort, axis=fitted_axis(0, room=62))
    bars = (
        _best_per_engine()
        .mark_bar()
        .encode(
            x=x,
            xOffset=alt.XOffset("engine:N", sort=[TRT, HF]),
            y=alt.Y("best:Q", title=Y_TITLE),
            color=alt.Color(
                "engine:N",
                title="Engine",
                scale=alt.Scale(domain=list(ENGINE_COLOURS), range=list(ENGINE_COLOURS.values())),
                legend=alt.Legend(orient="bottom"),
            ),
            tooltip=[
                alt.Tooltip("workload:N", title="ISL/OSL (tokens)"),
                alt.Tooltip("engine:N", title="Engine"),
                alt.Tooltip("best_precision:N", title="Precision"),
                alt.Tooltip("best:Q", title="Output tokens/s", format=",.0f"),
                alt.Tooltip("runs:Q", title="Runs"),
            ],
        )
    )
    ratio = (
        _best_per_engine()
        .transform_pivot("engine", value="best", groupby=["workload", "workload_order"])
        .transform_filter(f"isValid(datum['{TRT}']) && isValid(datum['{HF}'])")
        .transform_calculate(
            ratio=f"datum['{TRT}'] / datum['{HF}']",
            top=f"max(datum['{TRT}'], datum['{HF}'])",
            label=f"format(datum['{TRT}'] / datum['{HF}'], '.1f') + '×'",
        )
        .mark_text(dy=-8, fontWeight="bold")
        .encode(
            x=x,
            y=alt.Y("top:Q"),
            text="label:N",
            tooltip=[
                alt.Tooltip("workload:N", title="ISL/OSL (tokens)"),
                alt.Tooltip("ratio:Q", title="TensorRT-LLM / transformers", format=".2f"),
            ],
        )
    )
    # data on the top level only: every view reads the page's one named dataset (site_gen.charts.views
    # contract)
    return alt.layer(bars, ratio, data=alt.NamedData(DATA_NAME)).properties(
        width="container", height=ctx.height
    )


@register(
    "trtllm-vs-transformers",
    "TensorRT-LLM vs transformers",
    "Per workload: the best output tokens/s of TensorRT-LLM and of the PyTorch-native transformers baseline "
    "on the same GPU and model, with the ratio TensorRT-LLM / transformers above each pair; opens at 16-bit "
    "precision (FP16/BF16) for both engines, so the ratio compares like with like.",
    filters=COMMON,
    defaults=lambda df: widest(df, ["gpu", "model", "tp"], "engine", where={"precision": SIXTEEN_BIT}),
)
def _trtllm_vs_transformers(ctx: ChartContext) -> list[alt.TopLevelMixin]:
    return [engine_bars(ctx)]
