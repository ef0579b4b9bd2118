"""Chart views of the guide: speed-of-light efficiency and TP against PP at equal GPU count.

Registered in the site's view registry (``site_gen.charts.views``), so a guide page places them with a marker
such as ``<!-- view: pct-of-bound -->`` and each also gets a page under "Views". The charts follow the
conventions of ``site_gen.charts.specs`` (shared named dataset, colour = GPU with a pinned domain, metrics
named exactly with unit and basis).
"""

from __future__ import annotations

import altair as alt

from site_gen.charts import specs as charts
from site_gen.charts.specs import METRICS, ChartContext, base, gpu_color, gpu_x, run_tooltip
from site_gen.charts.views import COMMON, register, widest
from site_gen.data import queries


def _has_bound(chart: alt.Chart) -> alt.Chart:
    # Per-user-only runs have no all-GPU throughput, hence no % of bound.
    return chart.transform_filter("isValid(datum.pct_of_bound)")


OVER = "datum.pct_of_bound > 100"  # physically impossible: a source erratum, never a real measurement
OVER_COLOUR = "#d32f2f"
# A run the bound may be low for (bench/contract/bound.py NOTES: speculative decoding, prefix reuse,
# release 0.10's admission): its % is no plain efficiency, so it is drawn apart, as a pale diamond.
NOTED = "isValid(datum.bound_note) && isValid(datum.pct_of_bound)"
UNKNOWN = "isValid(datum.bound_note) && !isValid(datum.pct_of_bound) && isValid(datum.output_tps)"


def _flagged(ctx: ChartContext) -> dict[str, object]:
    """Encodings that set apart a run above its bound (a large triangle outlined in red, the reason, i.e.
    the run's notes or erratum, in its tooltip) and a run the bound may be low for (a pale diamond, the
    note's codes in its tooltip)."""
    noted = "bound_note" in ctx.columns
    tooltip = [
        *run_tooltip(ctx),
        alt.Tooltip(f"{queries.OVER_BOUND}:N", title="Flagged: above 100 % of the bound"),
    ]
    if noted:
        tooltip.append(alt.Tooltip("bound_note:N", title="About the bound"))
    shape: object = alt.condition(OVER, alt.value("triangle-up"), alt.value("circle"))
    if noted:
        conditions = [{"test": OVER, "value": "triangle-up"}, {"test": NOTED, "value": "diamond"}]
        shape = {"condition": conditions, "value": "circle"}
    return {
        "shape": shape,
        "size": alt.condition(OVER, alt.value(160), alt.value(40)),
        "stroke": alt.condition(OVER, alt.value(OVER_COLOUR), alt.value(None)),
        **({"fillOpacity": alt.condition(NOTED, alt.value(0.3), alt.value(0.7))} if noted else {}),
        "tooltip": tooltip,
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
            # the page's text colour, bold: no one red reaches 4.5:1 on both white and Material's slate
            # (a red dark enough for white is 3.2:1 on slate; tests/site/test_label_contrast.py)
            fontWeight="bold",
            limit=alt.ExprRef("width - 20"),  # never past the chart's edge at phone width
        )
        .encode(x=alt.value(0), y=alt.value(0), text="label:N")
    )
    layers: list[alt.Chart] = [points, callout]
    if "bound_note" in ctx.columns:
        layers.append(_notes_callout())
    # data on the top level only: every view reads the page's one named dataset (site_gen.charts.views
    # contract)
    return alt.layer(*layers, data=alt.NamedData(charts.DATA_NAME)).properties(
        width="container", height=ctx.height
    )


def _notes_callout() -> alt.Chart:
    """A line under the over-bound one: how many runs are hollow diamonds (the bound may be low for them)
    and how many have no bound at all (not drawn: the registry lacks a figure the bound needs)."""
    return (
        alt.Chart()
        .transform_calculate(noted=f"({NOTED}) ? 1 : 0", unknown=f"({UNKNOWN}) ? 1 : 0")
        .transform_aggregate(noted="sum(noted)", unknown="sum(unknown)")
        .transform_filter("datum.noted + datum.unknown > 0")
        .transform_calculate(
            label="(datum.noted > 0 ? '◇ ' + datum.noted + ' run(s) the bound may be low for (hover). ' : '')"
            " + (datum.unknown > 0 ? datum.unknown + ' run(s) with an unknown bound: not drawn.' : '')"
        )
        .mark_text(align="left", baseline="top", dx=14, dy=20, limit=alt.ExprRef("width - 20"))
        .encode(x=alt.value(0), y=alt.value(0), text="label:N")
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
            # "TP1 × PP2" over "2 GPUs": ~50 px level, upright on a narrower band (they overlapped on a phone)
            axis=charts.fitted_axis(0, room=56, labelExpr="split(datum.label, '|')"),
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
