"""Chart views of the guide: speed-of-light efficiency and TP against PP at equal GPU count.

Registered in the site's view registry (``site_gen.views``), so a guide page places them with a marker
such as ``<!-- view: pct-of-bound -->`` and each also gets a page under "Views". The charts follow the
conventions of ``site_gen.charts`` (shared named dataset, colour = GPU with a pinned domain, metrics
named exactly with unit and basis).
"""

from __future__ import annotations

import altair as alt

from site_gen import charts, queries
from site_gen.charts import METRICS, ChartContext, base, gpu_color, gpu_x, run_tooltip
from site_gen.views import COMMON, register, widest


def _has_bound(chart: alt.Chart) -> alt.Chart:
    # Per-user-only runs have no all-GPU throughput, hence no % of bound.
    return chart.transform_filter("isValid(datum.pct_of_bound)")


OVER = "datum.pct_of_bound > 100"  # physically impossible: a source erratum, never a real measurement
OVER_COLOUR = "#d32f2f"


def _flagged(ctx: ChartContext) -> dict[str, object]:
    """Encodings that set a run above its bound apart: a large triangle outlined in red, and the reason
    (the run's notes, the erratum) in its tooltip."""
    return {
        "shape": alt.condition(OVER, alt.value("triangle-up"), alt.value("circle")),
        "size": alt.condition(OVER, alt.value(160), alt.value(40)),
        "stroke": alt.condition(OVER, alt.value(OVER_COLOUR), alt.value(None)),
        "tooltip": [
            *run_tooltip(ctx),
            alt.Tooltip(f"{queries.OVER_BOUND}:N", title="Flagged: above 100 % of the bound"),
        ],
    }


def pct_of_bound_by_gpu(ctx: ChartContext) -> alt.LayerChart:
    """Every run as a point: its output throughput as % of its speed-of-light bound, by GPU.

    The axis stops at 100 %: a run above its bound is impossible (an error in the source), so it is drawn
    as a red triangle on the top edge, its real figure and the reason in the tooltip, and a line in the
    chart says how many there are, instead of stretching the axis and squashing every real run."""
    points = (
        _has_bound(alt.Chart())
        .mark_point(filled=True, opacity=0.7, strokeWidth=2)
        .encode(
            x=gpu_x(ctx),
            y=alt.Y(
                "pct_of_bound:Q",
                title=charts.title(ctx, METRICS["pct_of_bound"], "% of bound"),
                scale=alt.Scale(domain=[0, 100], nice=False, clamp=True),  # above 100: on the edge
            ),
            color=gpu_color(ctx),
            **_flagged(ctx),
        )
    )
    callout = (
        alt.Chart()
        .transform_filter(OVER)
        .transform_aggregate(n="count()")
        .transform_filter("datum.n > 0")
        .transform_calculate(
            label="'▲ ' + datum.n + (datum.n > 1 ? ' runs' : ' run') + ' above 100 %: impossible, "
            "an error in the source (hover the triangle)'"
        )
        .mark_text(
            align="left",
            baseline="top",
            dx=14,
            dy=4,
            color=OVER_COLOUR,
            fontWeight="bold",
            limit=alt.ExprRef("width - 20"),  # never past the chart's edge at phone width
        )
        .encode(x=alt.value(0), y=alt.value(0), text="label:N")
    )
    # data on the top level only: every view reads the page's one named dataset (site_gen.views contract)
    return alt.layer(points, callout, data=alt.NamedData(charts.DATA_NAME)).properties(
        width="container", height=ctx.height
    )


def measured_vs_bound(ctx: ChartContext) -> alt.Chart:
    """Measured output tokens/s against the bound (both all GPUs, log-log): distance below the diagonal."""
    return (
        _has_bound(base(ctx))
        .mark_point(filled=True, opacity=0.7, strokeWidth=2)
        .encode(
            x=alt.X(
                "bound_output_tps:Q",
                title=["Speed-of-light bound,", "output tokens/s, all GPUs"],  # two lines: fits a phone
                scale=alt.Scale(type="log"),
            ),
            y=alt.Y("output_tps:Q", title=METRICS["output_tps"], scale=alt.Scale(type="log")),
            color=gpu_color(ctx),
            **_flagged(ctx),
        )
    )


def tp_vs_pp(ctx: ChartContext) -> alt.Chart:
    """Grouped bars: each TP x PP layout, ordered by GPU count, best per-GPU output throughput per GPU."""
    agg = charts._best_per_gpu(base(ctx), ["gpu", "n_gpus", "tp", "pp"]).transform_calculate(
        # "|" splits the axis label into two lines (see labelExpr).
        layout="'TP' + datum.tp + ' × PP' + datum.pp + '|' + datum.n_gpus"
        " + (datum.n_gpus > 1 ? ' GPUs' : ' GPU')",
        layout_order="datum.n_gpus * 1000 + datum.pp",
    )
    return agg.mark_bar().encode(
        x=alt.X(
            "layout:N",
            title="Layout: TP × PP = GPU count",
            sort=alt.EncodingSortField("layout_order", op="min"),
            axis=alt.Axis(labelAngle=0, labelExpr="split(datum.label, '|')"),
        ),
        xOffset=alt.XOffset("gpu:N", sort=list(ctx.gpus)),
        y=charts.best_y(ctx),
        color=gpu_color(ctx),
        tooltip=charts._best_tooltip(
            [
                alt.Tooltip("tp:Q", title="TP"),
                alt.Tooltip("pp:Q", title="PP"),
                alt.Tooltip("n_gpus:Q", title="GPUs"),
            ]
        ),
    )


@register(
    "pct-of-bound",
    "Speed-of-light efficiency",
    "Output tokens/s of each run as a percentage of the upper bound its GPUs allow (see the guide).",
    filters=COMMON,
    defaults=lambda df: widest(df, ["model", "precision"], "gpu", {"engine": ["tensorrt-llm"]}),
)
def _pct_of_bound(ctx: ChartContext) -> list[alt.Chart]:
    return [pct_of_bound_by_gpu(ctx), measured_vs_bound(ctx)]


@register(
    "tp-vs-pp",
    "TP against PP",
    "Tensor against pipeline parallelism at equal GPU count, per GPU.",
    filters=COMMON,
    defaults=lambda df: widest(df, ["gpu", "model", "precision", "workload"], "pp"),
)
def _tp_vs_pp(ctx: ChartContext) -> list[alt.Chart]:
    return [tp_vs_pp(ctx)]
