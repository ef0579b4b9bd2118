"""DataFrame -> Vega-Lite dicts via Altair; no I/O.

Every chart reads the page's shared dataset by name (``runs``): the page script inserts the page's
filtered rows into each chart, so the data travel once per page and the specs stay small. Conventions
kept by every function here:

- each metric is named exactly, with its unit and basis (``METRICS``): output tokens/s over all GPUs of
  the run, per GPU, or per user; a chart never mixes them without normalising (charts comparing runs of
  different GPU counts use the per-GPU figure);
- colour always encodes the GPU, with the domain pinned to the whole registry (oldest first), so a GPU
  keeps its colour on every chart and under every filter;
- widths follow the container (usable at phone width); theme colours come from the page script, which
  matches Material's light or dark palette.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import altair as alt

from site_gen.data.queries import MAX_PCT_OF_BOUND, PRECISION_ORDER

# A run above its speed-of-light bound is flagged where shown, never a "best" (a missing bound: kept).
WITHIN_BOUND = f"!(datum.pct_of_bound > {MAX_PCT_OF_BOUND})"

DATA_NAME = "runs"

METRICS: dict[str, str] = {
    "output_tps": "Output tokens/s, all GPUs of the run",
    "output_tps_per_gpu": "Output tokens/s per GPU",
    "output_tps_per_user": "Output tokens/s per user",
    "bound_output_tps": "Speed-of-light bound, output tokens/s, all GPUs",
    "pct_of_bound": "% of speed-of-light bound",
}

# 20 distinguishable colours (Tableau 20 reordered so neighbouring generations differ); cycled if the
# registry ever grows past it.
PALETTE = (
    "#4e79a7",
    "#f28e2b",
    "#e15759",
    "#76b7b2",
    "#59a14f",
    "#edc948",
    "#b07aa1",
    "#ff9da7",
    "#9c755f",
    "#bab0ac",
    "#1f77b4",
    "#ff7f0e",
    "#2ca02c",
    "#d62728",
    "#9467bd",
    "#8c564b",
    "#e377c2",
    "#7f7f7f",
    "#bcbd22",
    "#17becf",
)


# GPU colours by generation: one hue family per architecture (registry ``architecture``, its first word),
# shades in the colour domain's order (year, then registry order) within it, so that a reader tells the
# generations apart at a glance and two GPUs of different generations never look alike (before, H100 and
# GB300 were both green, A100 PCIe and RTX PRO both red). The shades were picked from each family's hue
# band (CIELAB lightness 40-80, readable on the light and the dark theme) so that any two GPUs of different
# architectures differ by a CIE76 colour difference of 25 or more and two of one architecture by 15 or
# more (tests/site/test_polish.py checks it); the names after each family say which GPU has which shade
# today. A GPU beyond its family's shades, or of an architecture not listed, takes PALETTE.
GPU_FAMILIES: dict[str, tuple[str, ...]] = {
    # browns: V100 PCIe 32GB, V100 SXM2 32GB
    "Volta": ("#7e544c", "#d49658"),
    # reds: A100 PCIe 80GB, A100 SXM4 80GB, Jetson AGX Orin 64GB
    "Ampere": ("#f82362", "#c41b10", "#f57b8b"),
    # golds: RTX 4090 24GB, L40S
    "Ada": ("#d9b612", "#fa9b0d"),
    # greens: H100 SXM 80GB, H100 PCIe 80GB, GH200 96GB, H100 NVL 94GB, H200 SXM 141GB, GH200 144GB,
    # H200 NVL 141GB
    "Hopper": ("#1ddd7a", "#377013", "#8dcfad", "#7aba27", "#367659", "#96b260", "#06a569"),
    # blues and violets: B200 180GB, GB200 186GB, B300 288GB, GB300 288GB, RTX PRO 6000 Blackwell Server,
    # RTX PRO 4500 Blackwell, Jetson AGX Thor 128GB
    "Blackwell": ("#25a0fd", "#2354d0", "#24638e", "#60c7f2", "#69519a", "#9f9ed4", "#8a87f2"),
    # magentas (AMD Instinct): MI300X 192GB, MI325X 256GB, MI350X 288GB, MI355X 288GB
    "CDNA": ("#b727af", "#f38ce8", "#ff41b0", "#b73886"),
    # grey-cyans (Intel Arc): Arc Pro B50 16GB, Arc Pro B60 24GB, Arc Pro B70 32GB
    "Xe2": ("#7b959b", "#178e9c", "#abc6cc"),
}


def gpu_colours(gpus: Sequence[str]) -> list[str]:
    """The colour of each GPU (in the domain's order): the next shade of its architecture's family."""
    from bench.contract import registry

    known = {g.name: g.architecture for g in registry.gpus().entries}
    used: dict[str, int] = {}
    out = []
    for i, name in enumerate(gpus):
        arch = (known.get(name) or "").split(" ")[0]  # "Blackwell Ultra" is of the Blackwell family
        family = GPU_FAMILIES.get(arch, ())
        n = used[arch] = used.get(arch, -1) + 1
        out.append(family[n] if n < len(family) else PALETTE[i % len(PALETTE)])
    return out


GPUS_SHOWN = "gpus_shown"  # signal: the GPUs present in the rows a chart shows (set by views/chart.js)


@dataclass(frozen=True)
class ChartContext:
    """What every chart function needs besides its rows: the pinned GPU colour domain and the size."""

    gpus: Sequence[str]
    height: int = 300
    columns: frozenset[str] = frozenset()  # columns present in the page data (optional metrics)

    @property
    def compact(self) -> bool:
        """A small chart (e.g. the home page's, height=180): short axis titles, which otherwise overrun
        its axes (a title is drawn on one line; Vega clips what passes the chart's edge)."""
        return self.height < 250


def title(ctx: ChartContext, full: str | list[str], short: str) -> str | list[str]:
    """An axis title: the full one, or the short one on a compact chart (the page or tooltip says more).
    A long full title is a list of lines: Vega draws each line of a title whole and clips what passes the
    chart's edge, which one long line does on a phone."""
    return short if ctx.compact else full


def _lc(title: str) -> str:
    """A metric name inside a sentence: 'Output tokens/s per GPU' -> 'output tokens/s per GPU'."""
    return title[:1].lower() + title[1:]


def base(ctx: ChartContext) -> alt.Chart:
    """A chart over the page's shared dataset, as wide as its container."""
    return alt.Chart(alt.NamedData(DATA_NAME)).properties(width="container", height=ctx.height)


def gpu_color(ctx: ChartContext, legend: bool = True) -> alt.Color:
    """Colour by GPU with the domain pinned to the registry, so a GPU's colour never changes."""
    colours = gpu_colours(ctx.gpus)
    return alt.Color(
        "gpu:N",
        title="GPU",
        scale=alt.Scale(domain=list(ctx.gpus), range=colours),
        # The legend lists only the GPUs drawn: the page script sets the signal GPUS_SHOWN.
        legend=alt.Legend(
            orient="bottom",
            values=alt.ExprRef(GPUS_SHOWN),
            # as many columns of (label 170 px + symbol) as fit the chart's width: a fixed count cut the
            # right-hand column off on a phone
            columns=alt.ExprRef("max(1, min(4, floor(width / 200)))"),
            labelLimit=170,
            symbolLimit=40,
        )
        if legend
        else None,
    )


# The least room (px) between two slanted axis labels: one line of Vega's 10 px label font.
LABEL_LINE_PX = 12
# What a chart's y axis takes left of the plot: labels up to "100,000", their padding and the title.
Y_AXIS_PX = 60


def fitted_axis(angle: int = 0, room: float = 0, **kwargs: Any) -> alt.Axis:
    """A discrete x axis whose labels turn upright (-90°) where a band is too narrow for them at ``angle``
    (13 GPU names at -30°, "TP1 × PP2" or "tensorrt-llm FP16" level overlapped on a phone, issue 26).
    ``room``: the width (px) the longest label needs level (angle 0); a slanted label needs
    ``LABEL_LINE_PX / |sin angle|`` between neighbours, an upright one LABEL_LINE_PX per line.

    The band is judged from the chart's container (``containerSize()``), less the y axis and, for level
    labels, the half label that overhangs the plot's right edge; not from the plot's ``width``, which
    autosize "fit" sets after laying the labels out: level labels overhang and narrow the plot, upright
    ones do not, so a band near the limit flipped the angle after the layout and left the last label cut
    off at the chart's edge (engines.html on a phone). Where the container has no width (an export, a
    hidden box), ``width``."""
    need = room if angle == 0 else LABEL_LINE_PX / abs(math.sin(math.radians(angle)))
    reserve = Y_AXIS_PX + (room / 2 if angle == 0 else 0)
    plot = f"(containerSize()[0] > 0 ? containerSize()[0] - {math.ceil(reserve)} : width)"
    expr = f"({plot} / max(1, length(domain('x'))) < {math.ceil(need)} ? -90 : {angle})"
    return alt.Axis(labelAngle=alt.ExprRef(expr), **kwargs)


def gpu_x(
    ctx: ChartContext,
    axis_title: str = "GPU (oldest generation first)",
    sort: alt.EncodingSortField | None = None,
) -> alt.X:
    """GPUs on x, oldest generation first (the registry's order, or ``sort`` giving the same order)."""
    return alt.X(
        "gpu:N",
        title=title(ctx, axis_title, "GPU"),
        sort=sort or list(ctx.gpus),
        axis=fitted_axis(-30, labelLimit=140),
    )


def metric(field: str, aggregate: str | None = None, log: bool = False, title: str | None = None) -> alt.Y:
    """A y encoding of one metric, titled with its exact name."""
    name = title or METRICS[field]
    scale = alt.Scale(type="log") if log else alt.Scale(zero=True)
    if aggregate:
        return alt.Y(f"{aggregate}({field}):Q", title=name, scale=scale)
    return alt.Y(f"{field}:Q", title=name, scale=scale)


def run_tooltip(ctx: ChartContext) -> list[alt.Tooltip]:
    """Tooltip of one run: its configuration, its source and every throughput figure by exact name."""
    tips = [
        alt.Tooltip("gpu:N", title="GPU"),
        alt.Tooltip("model_name:N", title="Model"),
        alt.Tooltip("precision:N", title="Precision"),
        alt.Tooltip("workload:N", title="ISL/OSL (tokens)"),
        alt.Tooltip("tp:Q", title="TP"),
        alt.Tooltip("pp:Q", title="PP"),
        alt.Tooltip("output_tps:Q", title=METRICS["output_tps"], format=",.0f"),
        alt.Tooltip("output_tps_per_gpu:Q", title=METRICS["output_tps_per_gpu"], format=",.0f"),
        alt.Tooltip("engine_version:N", title="Engine version"),
        alt.Tooltip("publisher:N", title="Source"),
    ]
    for extra in ("bound_output_tps", "pct_of_bound"):
        if extra in ctx.columns:
            fmt = ".0f" if extra == "pct_of_bound" else ",.0f"
            tips.append(alt.Tooltip(f"{extra}:Q", title=METRICS[extra], format=fmt))
    return tips


def _has_per_gpu(chart: alt.Chart) -> alt.Chart:
    # Runs published only per user (a few blog rows) have no per-GPU figure; leave them out of such charts.
    return chart.transform_filter("isValid(datum.output_tps_per_gpu)")


# A whole number in [0, JITTER_STEPS) per row that the page script adds once when it decodes the data
# (spread evenly, stable): a point keeps its sideways offset across filter changes, and no chart
# recomputes it. Whole, not a fraction of 1: V8 keeps a small integer in the row itself, where a
# fraction is a 12-byte number object of its own (12 MB at a million rows).
JITTER = "lb_jitter"
JITTER_STEPS = 1000
MAX_POINTS = 5000  # above this many selected runs, views/chart.js draws an even sample and says so


def lazy_tooltip(tips: Sequence[alt.Tooltip]) -> list[dict[str, str]]:
    """A tooltip the page script builds on hover (``usermeta.llmbench.tooltip``: field, title, format)
    from the hovered run, for charts of one mark per run: Vega-Lite's own tooltip encoding builds and
    formats an object for every point on every filter change, a third of the time to redraw thousands."""
    out = []
    for tip in tips:
        d = tip.to_dict()
        out.append({k: d[k] for k in ("field", "title", "format") if k in d})
    return out


def _per_run(ctx: ChartContext, x: alt.X) -> alt.Chart:
    """One point per run (output tokens/s per GPU, log scale, coloured by GPU) against ``x``, spread
    sideways (by ``JITTER``) so that runs with equal x do not hide each other; capped at MAX_POINTS drawn
    points (drawing 100,000 points takes seconds; the table and CSV keep every run); the run's tooltip
    built on hover (``lazy_tooltip``)."""
    return (
        _has_per_gpu(base(ctx))
        .properties(usermeta={"llmbench": {"maxRows": MAX_POINTS, "tooltip": lazy_tooltip(run_tooltip(ctx))}})
        # aria=False: no ARIA description string built per point on every insert (the canvas renderer
        # never shows it; the chart's placeholder has its own aria-label)
        .mark_point(filled=True, size=40, strokeWidth=1.5, tooltip=alt.TooltipContent("data"), aria=False)
        .encode(
            x=x,
            # sort given: otherwise Vega-Lite sorts an offset by the colour's domain, a per-row formula
            # comparing lb_jitter with every GPU name on each insert
            xOffset=alt.XOffset(
                f"{JITTER}:Q", scale=alt.Scale(domain=[0, JITTER_STEPS]), sort="ascending", title=None
            ),
            y=metric("output_tps_per_gpu", log=True),
            color=gpu_color(ctx),
            # estimates (source_kind modelled, explorer pages only) are hollow rings: the stroke keeps the
            # GPU's colour, the fill goes; the count line says what a hollow ring is (basis_shape)
            stroke=alt.Stroke(
                "gpu:N", scale=alt.Scale(domain=list(ctx.gpus), range=gpu_colours(ctx.gpus)), legend=None
            ),
            fillOpacity=basis_fill(),
            shape=basis_shape(),
            opacity=alt.value(0.6),
        )
    )


BASIS_DOMAIN = ["measured", "published", "modelled"]


def basis_fill() -> alt.FillOpacity:
    """Filled for measured and published runs, hollow for estimates (``source_kind`` modelled)."""
    # hollow for estimates; the scope's count line says so when any is shown (no legend: basis_shape)
    return alt.FillOpacity(
        "source_kind:N", scale=alt.Scale(domain=BASIS_DOMAIN, range=[1, 1, 0]), legend=None
    )


def basis_shape() -> alt.Shape:
    """Circles for every kind (the fill tells them apart). No legend: a second legend beside the GPU one
    ran past a phone's edge and changed the plot's width on a resize; the scope's "N of M runs" line says
    what a hollow ring is whenever estimates are shown (ui.countEstimates)."""
    return alt.Shape(
        "source_kind:N",
        scale=alt.Scale(domain=BASIS_DOMAIN, range=["circle", "circle", "circle"]),
        legend=None,
    )


def runs_by_gpu(ctx: ChartContext) -> alt.Chart:
    """Every run as one point: output tokens/s per GPU by GPU (log scale), coloured by GPU."""
    # Sorted by the rows' gpu_order (the registry order of ctx.gpus): a sort list would add a per-row
    # formula comparing the GPU with every registry name on each insert of thousands of points.
    return _per_run(ctx, gpu_x(ctx, sort=alt.EncodingSortField("gpu_order", op="min")))


def runs_by_tp(ctx: ChartContext) -> alt.Chart:
    """Every run as one point: output tokens/s per GPU against tensor-parallel size."""
    return _per_run(ctx, alt.X("tp:O", title="Tensor-parallel size (TP)", axis=alt.Axis(labelAngle=0)))


def _best_tooltip(extra: Sequence[alt.Tooltip] = ()) -> list[alt.Tooltip]:
    """The tooltip of a "best" mark: the figure and which run gave it (its TP/PP, release and source, from
    ``best_run``); a click on the mark opens that run's card."""
    return [
        alt.Tooltip("gpu:N", title="GPU"),
        *extra,
        alt.Tooltip("best:Q", title=f"Best {_lc(METRICS['output_tps_per_gpu'])}", format=",.0f"),
        alt.Tooltip("best_config:N", title="Best run"),
        alt.Tooltip("runs:Q", title="Runs compared"),
        alt.Tooltip("sources:N", title="Sources compared"),
    ]


# "TP 4, PP 2, tensorrt-llm 1.0, NVIDIA": the run behind a "best" mark (a Vega expression over best_run)
_BEST_CONFIG = " + ".join(
    [
        "'TP ' + datum.best_run.tp",
        "(datum.best_run.pp > 1 ? ', PP ' + datum.best_run.pp : '')",
        # another engine's release already carries its name ("transformers 5.17.0": release_label)
        "', ' + (datum.best_run.engine == 'tensorrt-llm' ? 'tensorrt-llm ' : '')",
        "datum.best_run.engine_version",
        "', ' + datum.best_run.publisher",
    ]
)


def _best_per_gpu(chart: alt.Chart, groupby: Sequence[str]) -> alt.Chart:
    """Best (maximum) output tokens/s per GPU of the selected runs, per group, with the run that gave it
    (``best_run``: Vega-Lite's argmax keeps the whole row) described in ``best_config``."""
    return (
        _has_per_gpu(chart)
        .transform_filter(WITHIN_BOUND)
        .transform_aggregate(
            best="max(output_tps_per_gpu)",
            best_run="argmax(output_tps_per_gpu)",
            runs="count()",
            n_sources="distinct(publisher)",
            groupby=list(groupby),
        )
        .transform_calculate(
            best_config=_BEST_CONFIG,
            sources="datum.n_sources > 1 ? datum.n_sources + ' (mixed: the best of several sources)' : "
            "datum.best_run.publisher",
        )
    )


BEST_SHORT = "Best output tokens/s per GPU"


def best_y(ctx: ChartContext) -> alt.Y:
    """The y axis of the best-per-GPU charts."""
    return alt.Y("best:Q", title=title(ctx, [BEST_SHORT, "of the selected runs"], BEST_SHORT))


# Whether a bar's value, written at 10 px, fits the bar's step on x (its band and the gap of Vega-Lite's
# default inner padding, 0.1 of the step): 6.4 px a character, a digit of DejaVu Sans (Linux's sans-serif
# and the widest of the usual system fonts; a comma is half that).
VALUE_FITS = "6.4 * length(format(datum.best, ',.0f')) <= bandwidth('x') / 0.9"


def generational_uplift(ctx: ChartContext) -> alt.LayerChart:
    """Bars per GPU, oldest generation first: the best per-GPU output throughput of the selected runs,
    its value above each bar."""
    bars = (
        _best_per_gpu(base(ctx), ["gpu"])
        .mark_bar()
        .encode(
            x=gpu_x(ctx),
            y=best_y(ctx),
            color=gpu_color(ctx, legend=False),
            tooltip=_best_tooltip(),
        )
    )
    values = bars.mark_text(baseline="bottom", dy=-2, fontSize=10).encode(
        text=alt.Text("best:Q", format=",.0f"),
        # a value wider than its bar's step is left out (its bar's tooltip has it): at 22 GPUs on a
        # phone the values ran into each other, one unreadable line of digits
        opacity=alt.condition(VALUE_FITS, alt.value(1), alt.value(0)),
    )
    # the value in the page's text colour, not the bar's: H100's green was 1.8:1 on white, several GPU
    # colours under 4.5:1 on the dark theme (tests/site/test_label_contrast.py); the bar below says which GPU
    values.encoding.color = alt.Undefined
    return alt.layer(bars, values)


def precision_uplift(ctx: ChartContext) -> alt.Chart:
    """Grouped bars: precision on x (FP16 -> FP8 -> FP4), one bar per GPU."""
    return (
        _best_per_gpu(base(ctx), ["gpu", "precision"])
        .mark_bar()
        .encode(
            x=alt.X("precision:N", title="Weight precision", sort=list(PRECISION_ORDER)),
            xOffset=alt.XOffset("gpu:N", sort=list(ctx.gpus)),
            y=best_y(ctx),
            color=gpu_color(ctx),
            tooltip=_best_tooltip([alt.Tooltip("precision:N", title="Precision")]),
        )
    )


def workload_shape(ctx: ChartContext) -> alt.Chart:
    """Grouped bars: workload (ISL/OSL) on x, one bar per GPU."""
    return (
        _best_per_gpu(base(ctx), ["gpu", "workload", "workload_order"])
        .mark_bar()
        .encode(
            x=alt.X(
                "workload:N",
                title=title(ctx, ["Workload: input/output", "sequence length (tokens)"], "ISL/OSL (tokens)"),
                sort=alt.EncodingSortField("workload_order", op="min"),
            ),
            xOffset=alt.XOffset("gpu:N", sort=list(ctx.gpus)),
            y=best_y(ctx),
            color=gpu_color(ctx),
            tooltip=_best_tooltip([alt.Tooltip("workload:N", title="ISL/OSL (tokens)")]),
        )
    )


SPLIT = "split_source"  # param of the TP-scaling charts: one line per GPU and source


def _split_by_source(chart: alt.Chart) -> alt.Chart:
    """The rows' ``line_source``: the run's source when the reader ticks "Split by source" (``_tp_lines``),
    else one value for all."""
    return chart.transform_calculate(line_source=f"{SPLIT} ? datum.publisher : 'all sources'")


def _tp_lines(chart: alt.Chart, y: alt.Y, tooltip: list[alt.Tooltip], ctx: ChartContext) -> alt.LayerChart:
    """Lines per GPU against TP, dashed per source, with a checkbox under the chart: "Split by source"
    draws one line per GPU and source, e.g. KISTI's own Neuron measurements against NVIDIA's published
    figures; unticked, a GPU's line is the best of every source at each TP. Points are a layer of their
    own: Vega-Lite draws no legend symbol for the dashes of a line with point overlays."""
    x = alt.X(
        "tp:O",
        title=title(ctx, ["Tensor-parallel size (TP)", "= number of GPUs when PP = 1"], "TP (GPUs)"),
        axis=alt.Axis(labelAngle=0),
    )
    dash = alt.StrokeDash(
        "line_source:N",
        title="Source",
        legend=alt.Legend(
            orient="bottom", symbolType="stroke", symbolStrokeColor="#888", symbolStrokeWidth=2
        ),
    )
    lines = chart.mark_line().encode(x=x, y=y, color=gpu_color(ctx), strokeDash=dash, tooltip=tooltip)
    points = chart.mark_point(filled=True, size=30, opacity=1).encode(
        x=x, y=y, color=gpu_color(ctx), tooltip=tooltip
    )
    split = alt.param(name=SPLIT, value=False, bind=alt.binding_checkbox(name="Split by source "))
    return alt.layer(lines, points).add_params(split)


def tp_throughput(ctx: ChartContext) -> alt.LayerChart:
    """Lines per GPU (and source, when split): best output tokens/s over all GPUs of the run against TP."""
    agg = (
        _split_by_source(_has_per_gpu(base(ctx)))
        .transform_filter(WITHIN_BOUND)  # a figure above its speed-of-light bound is no best
        .transform_aggregate(
            best_total="max(output_tps)", runs="count()", groupby=["gpu", "tp", "line_source"]
        )
    )
    y = alt.Y(
        "best_total:Q",
        title=title(ctx, f"Best {_lc(METRICS['output_tps'])}", "Best output tokens/s, all GPUs"),
    )
    tooltip = [
        alt.Tooltip("gpu:N", title="GPU"),
        alt.Tooltip("tp:O", title="TP"),
        alt.Tooltip("best_total:Q", title=f"Best {_lc(METRICS['output_tps'])}", format=",.0f"),
        alt.Tooltip("runs:Q", title="Runs compared"),
        alt.Tooltip("line_source:N", title="Source"),
    ]
    return _tp_lines(agg, y, tooltip, ctx)


def tp_efficiency(ctx: ChartContext) -> alt.LayerChart:
    """Lines per GPU (and source, when split): per-GPU output throughput at each TP as % of that GPU's
    smallest-TP figure."""
    full = "Per-GPU output tokens/s, % of the same GPU at its smallest TP"
    chart = (
        _best_per_gpu(_split_by_source(base(ctx)), ["gpu", "tp", "line_source"])
        .transform_window(
            first="first_value(best)",
            sort=[alt.SortField("tp")],
            groupby=["gpu", "line_source"],
            frame=[None, None],
        )
        .transform_calculate(efficiency="100 * datum.best / datum.first")
    )
    y = alt.Y(
        "efficiency:Q",
        title=title(
            ctx,
            ["Per-GPU output tokens/s,", "% of the same GPU at its smallest TP"],
            "Per-GPU, % of smallest TP",
        ),
        scale=alt.Scale(zero=True),
    )
    tooltip = _best_tooltip(
        [alt.Tooltip("tp:O", title="TP"), alt.Tooltip("efficiency:Q", title=full, format=".0f")]
    )
    return _tp_lines(chart, y, tooltip, ctx)


def version_history(ctx: ChartContext) -> alt.Chart:
    """Lines per GPU: best per-GPU output throughput of each engine release, releases in order."""
    agg = _best_per_gpu(base(ctx), ["gpu", "engine_version", "version_key"])
    return agg.mark_line(point=True).encode(
        x=alt.X(
            "engine_version:N",
            title="TensorRT-LLM release",
            sort=alt.EncodingSortField("version_key", op="min"),
            axis=fitted_axis(-30),
        ),
        y=best_y(ctx),
        color=gpu_color(ctx),
        tooltip=_best_tooltip([alt.Tooltip("engine_version:N", title="Release")]),
    )


def engine_comparison(ctx: ChartContext) -> alt.Chart:
    """Grouped bars: engine and precision on x (e.g. "tensorrt-llm FP8", "transformers BF16"), one bar per
    GPU; precision is part of the label because engines are often measured at different precisions."""
    agg = _best_per_gpu(base(ctx), ["gpu", "engine", "precision", "precision_order"]).transform_calculate(
        engine_precision="datum.engine + ' ' + datum.precision"
    )
    return agg.mark_bar().encode(
        x=alt.X(
            "engine_precision:N",
            # two lines: one (about 240 px) is as wide as a phone's plot, and an axis title wider than the
            # plot makes fit-x shrink the plot by its overflow on each pass (237 -> 239 -> 240 px, issue 26)
            title=["Inference engine and", "weight precision"],
            sort=alt.EncodingSortField("precision_order", op="min"),
            axis=fitted_axis(0, room=95),  # "tensorrt-llm FP16": ~85 px at 10 px
        ),
        xOffset=alt.XOffset("gpu:N", sort=list(ctx.gpus)),
        y=best_y(ctx),
        color=gpu_color(ctx),
        tooltip=_best_tooltip(
            [alt.Tooltip("engine:N", title="Engine"), alt.Tooltip("precision:N", title="Precision")]
        ),
    )


COMPARE_STEP = 26  # px per line (workload) of compare mode's dot plot


def compare_ratio(ctx: ChartContext, title_: str = "B ÷ A, output tokens/s per GPU") -> alt.LayerChart:
    """Compare mode's dot plot (rows ``group``, ``order``, ``ratio``, ``basis``, ``label``, ``a``, ``b``,
    ``kind`` from the page script): one line per workload, one dot per matched configuration at B ÷ A
    ("how many times faster is B than A") on a log axis (2x and 0.5x equally far from 1), the line's
    median a tick, a dashed rule at 1. Estimated pairs (``basis`` estimate) are hollow orange diamonds
    on the same line, never in the median. No value labels inside the plot: the summary above and each
    line's label carry the numbers, so no label can sit on the 1 line. The axis fits the data (no
    rounding out to a power of ten: 0.7-1.3 stays 0.7-1.3)."""
    y = alt.Y(
        "group:N", sort=alt.EncodingSortField("order", op="min"), title=None, axis=alt.Axis(labelLimit=150)
    )
    # labels that would touch are dropped (a phone's plot is about 200 px wide for a decade of ticks)
    axis = alt.Axis(labelOverlap="greedy", labelSeparation=6)
    x = alt.X(
        "ratio:Q", scale=alt.Scale(type="log", nice=False, zero=False, padding=14), title=title_, axis=axis
    )
    tooltip = [
        alt.Tooltip("label:N", title="Configuration"),
        alt.Tooltip("kind:N", title="Kind"),
        alt.Tooltip("a:Q", title="A, output tokens/s per GPU", format=",.0f"),
        alt.Tooltip("b:Q", title="B, output tokens/s per GPU", format=",.0f"),
        alt.Tooltip("ratio:Q", title="B ÷ A", format=".2f"),
    ]
    measured = alt.datum.basis == "measured"
    dots = (
        alt.Chart()
        .transform_filter(measured)
        .mark_circle(size=56, opacity=0.7, color="#1e88e5")
        .encode(y=y, x=x, tooltip=tooltip)
    )
    estimates = (
        alt.Chart()
        .transform_filter(~measured)
        .mark_point(shape="diamond", filled=False, size=80, strokeWidth=1.6, color="#ef6c00")
        .encode(y=y, x=x, tooltip=tooltip)
    )
    median = (
        alt.Chart()
        .transform_filter(measured)
        .mark_tick(thickness=3, size=20, color="#ab47bc")  # 3.6:1 on white, 4:1 on the dark slate
        .encode(y=y, x=alt.X("median(ratio):Q"))
    )
    one = alt.Chart().mark_rule(strokeDash=[4, 3]).encode(x=alt.datum(1))
    return alt.layer(one, dots, estimates, median, data=alt.NamedData(DATA_NAME)).properties(
        width="container", height=alt.Step(COMPARE_STEP)
    )


# signal: the chart's title, naming what the selected rows have one value of (model, precision, workload,
# GPU, source); set by views/chart.js as the rows change, so the chart (and its PNG/SVG) says what it shows
TITLE = "lb_title"


def to_spec(chart: alt.TopLevelMixin, described: bool = True) -> dict[str, Any]:
    """The Vega-Lite dict of a chart (validated by Altair), with the page script owning the theme; with
    ``described``, a title the page script fills (``TITLE``), cut to the chart's width."""
    spec = chart.to_dict()
    spec.pop("config", None)
    if described and "title" not in spec:
        spec["title"] = {
            "text": {"expr": TITLE},
            "anchor": "start",
            "fontSize": 12,
            "limit": {"expr": "width"},
        }
        spec.setdefault("params", []).append({"name": TITLE, "value": ""})
    # Recompute the layout on every update (resize=True). The page script embeds a chart before its rows
    # arrive and then inserts them; with Vega-Lite's default (layout computed once, at the first run) the
    # axes kept the room measured for an empty chart, so tick labels and titles were cut off ("00" for
    # "1,000") until the reader resized the window.
    spec["autosize"] = {"type": "fit-x", "contains": "padding", "resize": True}
    if GPUS_SHOWN in json.dumps(spec):
        spec.setdefault("params", []).append({"name": GPUS_SHOWN, "value": []})
    return spec
