"""Throughput against interactivity: the Pareto view, with the cost of a million output tokens.

Registered in ``site_gen.charts.views`` (listed in its EXTRA_VIEW_MODULES). ``latency-pareto`` plots output
tokens/s per GPU (y) against output tokens/s per user (x, interactivity) for every selected run that reports
both, and draws per series (GPU × engine × precision × workload) the Pareto frontier: the runs that no other
run of the series beats on both axes. The frontier is computed in the chart (a Vega window transform), so
it follows the page's filters; ``pareto_frontier`` is the same rule in Python, for tests and tables.

Cost: a "$ per GPU-hour" input (the reader's own price; nothing is fetched) turns each run's throughput
into $ per million output tokens = price × GPUs / (output tokens/s × 3600) × 10^6, labelled as derived.
"""

from __future__ import annotations

import html
import json
from collections.abc import Hashable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import altair as alt

from site_gen import i18n
from site_gen.charts.specs import DATA_NAME, ChartContext, lazy_tooltip
from site_gen.charts.views import COMMON, register, widest

if TYPE_CHECKING:
    import pandas as pd

    from site_gen.data.dimensions import Filters

# Interactivity buckets of the per-interactivity table on the Pareto view (output tok/s per user;
# frontier_box below; the advisor reads them from here); a column is shown when at least one frontier
# spans it.
BUCKETS = (5, 10, 20, 30, 40, 50, 75, 100, 150, 200, 300)

DEFAULT_PRICE = 2.00  # $/GPU-hour: an assumption the reader replaces; no price is looked up
PRICE_PARAM = "gpu_hour_price"
PRICE_KEY = "price"  # the page URL's parameter (?price=2.5): the page script restores and writes it
# The chart's words are English here, read from the English catalogue so that the build's mapping onto
# the page's language (markers.localize, keyed on the English text) cannot drift from them.
EN = i18n.load(i18n.DEFAULT).t
# Two short lines: one long line ran past the chart's edge on a phone.
X_TITLE = [EN("chart.output_tps_per_user"), EN("chart.interactivity_line2")]
Y_TITLE = EN("chart.output_tps_per_gpu")
SERIES = ("gpu", "engine", "precision", "workload")
OFFLINE = EN("chart.offline")  # a run's concurrency when it gives none


@dataclass(frozen=True)
class Point:
    key: Hashable  # the run
    per_user: float  # x: output tokens/s per user
    per_gpu: float  # y: output tokens/s per GPU


def pareto_frontier(points: Iterable[Point]) -> list[Point]:
    """The runs no other run beats on both axes (higher per-user AND higher per-GPU), by per-user.

    Sweep from the most interactive run down: a run is on the frontier when its per-GPU throughput is
    above every per-GPU figure seen so far (all of which had at least its per-user speed). Of runs with
    the same per-user speed only the highest per-GPU one can be on it.
    """
    ordered = sorted(points, key=lambda p: (-p.per_user, -p.per_gpu))
    front: list[Point] = []
    best = float("-inf")
    for p in ordered:
        if p.per_gpu > best:
            front.append(p)
            best = p.per_gpu
    return sorted(front, key=lambda p: p.per_user)


def cost_per_million_tokens(price_per_gpu_hour: float, gpus: int, output_tps: float) -> float:
    """$ per million output tokens: price × GPUs / (output tokens/s × 3600 s/h) × 10^6."""
    if price_per_gpu_hour < 0 or gpus < 1 or output_tps <= 0:
        raise ValueError(
            f"expected price >= 0, gpus >= 1, output tokens/s > 0; got {price_per_gpu_hour}, {gpus},"
            f" {output_tps}"
        )
    return price_per_gpu_hour * gpus / (output_tps * 3600) * 1e6


# The same formula as a Vega expression over the page data (n_gpus, output_tps = all GPUs of the run).
COST_EXPR = f"{PRICE_PARAM} * datum.n_gpus / (datum.output_tps * 3600) * 1e6"


def _series_expr() -> str:
    return " + ' · ' + ".join(f"datum.{c}" for c in SERIES)


def _with_both() -> alt.Chart:
    """Runs that report per-user and per-GPU output tokens/s, with their series label and cost."""
    return (
        alt.Chart()
        .transform_filter(
            "isValid(datum.output_tps_per_user) && datum.output_tps_per_user > 0"
            " && isValid(datum.output_tps_per_gpu) && datum.output_tps_per_gpu > 0"
        )
        .transform_calculate(
            series=_series_expr(),
            cost=f"isValid(datum.output_tps) && datum.output_tps > 0 ? {COST_EXPR} : null",
            # a run without a concurrency limit queued every request at once (offline): say so, not "null"
            in_flight=f"isValid(datum.concurrency) ? format(datum.concurrency, ',') : '{OFFLINE}'",
            # the points (and so the data table, which lists them in drawing order) by concurrency,
            # offline last (Vega sorts a mark by one order field here; a list of fields was dropped)
            in_flight_order="isValid(datum.concurrency) ? datum.concurrency : 1e12",
        )
    )


def _frontier(base: alt.Chart) -> alt.Chart:
    """Keep the frontier runs: per series, from the highest per-user speed down, those whose per-GPU figure
    beats the best of every run before them (a running maximum, then the previous row's running maximum:
    Vega's window with a frame that ends before the current row fails on a series' first row)."""
    order = [
        alt.SortField("output_tps_per_user", order="descending"),
        alt.SortField("output_tps_per_gpu", order="descending"),
    ]
    return (
        base.transform_window(
            best_so_far="max(output_tps_per_gpu)", groupby=["series"], sort=order, frame=[None, 0]
        )
        .transform_window(best_before="lag(best_so_far)", groupby=["series"], sort=order)
        .transform_filter("!isValid(datum.best_before) || datum.output_tps_per_gpu > datum.best_before")
    )


def _tooltip() -> list[alt.Tooltip]:
    return [
        alt.Tooltip("series:N", title=EN("chart.series")),
        alt.Tooltip("publisher:N", title=EN("table.publisher.label")),
        alt.Tooltip("tp:Q", title=EN("table.tp.label")),
        alt.Tooltip("in_flight:N", title=EN("table.concurrency.label")),
        alt.Tooltip("output_tps_per_user:Q", title=EN("chart.output_tok_per_user"), format=",.1f"),
        alt.Tooltip("output_tps_per_gpu:Q", title=EN("table.output_tps_per_gpu.label"), format=",.0f"),
        alt.Tooltip("ttft_ms_avg:Q", title=EN("table.ttft_ms_avg.label"), format=",.1f"),
        alt.Tooltip("tpot_ms_avg:Q", title=EN("table.tpot_ms_avg.label"), format=",.2f"),
        # the title names the $; ",.3f" is a format the page's data table reads too ($0.074, not 0.0739...)
        alt.Tooltip("cost:Q", title=EN("chart.cost_derived"), format=",.3f"),
        # repeated runs (issue 30): the figure is the median of `samples`; the range of the repetitions
        alt.Tooltip("samples:Q", title=EN("table.samples.label"), format="d"),
        alt.Tooltip("output_tps_per_gpu_min:Q", title=EN("chart.spread_min"), format=",.0f"),
        alt.Tooltip("output_tps_per_gpu_max:Q", title=EN("chart.spread_max"), format=",.0f"),
    ]


def _spread_bars(x: alt.X, colour: alt.Color) -> alt.Chart:
    """Error bars from the lowest to the highest repetition's per-GPU figure, for repeated runs only (a
    single sample has no range: its bar would be a false zero-width certainty)."""
    return (
        _with_both()
        .transform_filter(
            "isValid(datum.output_tps_per_gpu_min) && datum.output_tps_per_gpu_min > 0"
            " && isValid(datum.output_tps_per_gpu_max)"
        )
        .mark_rule(strokeWidth=1.5, aria=False)
        .encode(x=x, y="output_tps_per_gpu_min:Q", y2="output_tps_per_gpu_max:Q", color=colour)
    )


def pareto_chart(ctx: ChartContext) -> alt.LayerChart:
    """Points for every run with both figures, the frontier per series as a line, a note on the rest."""
    price = alt.param(
        name=PRICE_PARAM,
        value=DEFAULT_PRICE,
        bind=alt.binding(
            input="number",
            name=EN("chart.price_input"),
        ),
    )
    # log axes: the points span 1-10,000 tok/s; short labels ("2k") keep the y labels inside the chart
    x = alt.X(
        "output_tps_per_user:Q",
        title=X_TITLE,
        scale=alt.Scale(type="log"),
        axis=alt.Axis(format="~s", labelSeparation=6),
    )
    y = alt.Y(
        "output_tps_per_gpu:Q",
        title=Y_TITLE,
        scale=alt.Scale(type="log"),
        axis=alt.Axis(format="~s", labelSeparation=6),
    )
    # A series label ("H200 SXM 141GB · transformers · BF16 · 1024/1024") is ~290 px: one column of them
    # on a phone, two where they fit. In one row (the default) they ran past the chart's right edge, and
    # on a phone the legend's width left the plot none.
    colour = alt.Color(
        "series:N",
        title=EN("chart.series"),
        legend=alt.Legend(
            orient="bottom",
            columns=alt.ExprRef("max(1, min(2, floor(width / 320)))"),
            labelLimit=alt.ExprRef("min(290, width - 30)"),
            # Vega's default title limit (180 px) cut "GPU · engine · precision · ISL/OSL"
            titleLimit=alt.ExprRef("width - 8"),
            symbolLimit=40,
        ),
    )
    # The tooltip is built on hover from the hovered run (lazy_tooltip: usermeta.llmbench.tooltip), and no
    # mark has an ARIA description (aria=False; the canvas never shows one, its placeholder has its label):
    # as expressions, the two were 3.7 KB of the spec that Vega compiled and ran for every point in the
    # page's first chart task.
    points = (
        _with_both()
        .mark_point(filled=True, size=60, tooltip=alt.TooltipContent("data"), aria=False)
        .encode(
            x=x,
            y=y,
            color=colour,
            order=alt.Order("in_flight_order:Q"),
        )
        .add_params(price)
    )
    line = (
        _frontier(_with_both())
        .mark_line(strokeWidth=2, aria=False)
        .encode(x=x, y=y, color=colour, order=alt.Order("output_tps_per_user:Q"))
    )
    # Runs that give only a peak (offline, all-GPU) throughput have no per-user figure: say how many.
    note = (
        alt.Chart()
        .transform_filter("!isValid(datum.output_tps_per_user) || datum.output_tps_per_user <= 0")
        .transform_aggregate(n="count()")
        # on two lines (an array is a multi-line text), each cut with an ellipsis at the plot's width only
        # where a phone's plot is narrower still
        .transform_calculate(
            text=f"[datum.n + '{EN('chart.peak_only_note')}', '{EN('chart.peak_only_note2')}']"
        )
        .mark_text(
            # above the plot, under the title (the chart's bounds and so its title make room for it):
            # inside the plot it covered points, at the top the big batches', at the bottom the slow ones
            align="left",
            baseline="bottom",
            x=0,
            y=-6,
            style="lb-note",  # muted, in the page's theme (site_gen.charts.vega_compile._theme_text)
            limit=alt.ExprRef("width - 8"),
            aria=False,
        )
        .encode(text="text:N")
    )
    # autosize fit + contains padding: the log axis' labels and title stay inside the container's width
    # the line under the points: the frontier runs stay hoverable (a line on top took the pointer)
    bars = _spread_bars(x, colour)
    return alt.layer(line, bars, points, note, data=alt.NamedData(DATA_NAME)).properties(
        width="container",
        height=max(ctx.height, 360),
        autosize=alt.AutoSizeParams(type="fit", contains="padding"),
        usermeta={
            "llmbench": {
                "urlSignal": {"signal": PRICE_PARAM, "key": PRICE_KEY, "default": DEFAULT_PRICE},
                "tooltip": lazy_tooltip(_tooltip()),
            }
        },
    )


def frontier_box(cat: i18n.Catalogue) -> str:
    """The placeholder of the per-interactivity tables (issue 27), inside the view's filter scope: the page
    script (pages/frontier.js, advisor/frontier.js) fills it from the rows the chart draws, grouped into the
    chart's SERIES, cells read off each series' Pareto frontier (site_gen.pages.advisor.frontier_table is the
    Python twin). Its words in the page's language; its text until then says it needs JavaScript."""
    words = json.dumps(cat.section("frontier"), ensure_ascii=False)
    attrs = {"data-words": words, "data-buckets": json.dumps(list(BUCKETS))}
    body = " ".join(f'{k}="{html.escape(v, quote=True)}"' for k, v in attrs.items())
    note = html.escape(cat.t("frontier.loading"))
    # id: the advisor's link names it (#frontier), and the page script then draws the tables at once
    return f'<section class="lb-frontier" id="frontier" {body}><p class="lb-status">{note}</p></section>'


def _defaults(df: pd.DataFrame) -> Filters:
    """Open on the GPU and model with the most engines among runs that have a per-user figure."""
    if "output_tps_per_user" in df:
        with_user = df[df["output_tps_per_user"].fillna(0) > 0]
        if not with_user.empty:
            return widest(with_user, ["gpu", "model"], "engine")
    return widest(df, ["gpu", "model"], "engine")


@register(
    "latency-pareto",
    "Throughput vs interactivity",
    "Output tokens/s per GPU against output tokens/s per user for every run that reports both, with the "
    "Pareto frontier per GPU, engine, precision and workload; hover for the run and its cost per million "
    "output tokens at your $/GPU-hour.",
    filters=COMMON,
    defaults=lambda df: _defaults(df),
    after=frontier_box,
)
def _latency_pareto(ctx: ChartContext) -> list[alt.TopLevelMixin]:
    return [pareto_chart(ctx)]
