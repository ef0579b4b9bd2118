"""Chart views of the guide's topic pages: latency against throughput operating points.

Registered in the site's view registry (``site_gen.charts.views``, listed in its EXTRA_VIEW_MODULES), placed
with
a marker such as ``<!-- chart: operating-points model="DeepSeek R1" -->``. Marker-only (no filters), so it
gets no page of its own under "Views": few runs carry both a per-user and a per-GPU figure.
"""

from __future__ import annotations

import altair as alt

from site_gen.charts import specs as charts
from site_gen.charts.specs import METRICS, ChartContext, gpu_color
from site_gen.charts.views import register

# The run's layout as NVIDIA's tables name it: attention data parallelism + expert parallelism is "DEP".
# attention_dp is shipped only when the database has it (site_gen.data.queries.OPTIONAL_COLUMNS); without it a
# run is labelled by TP and EP alone.
LAYOUT = (
    "(datum.attention_dp ? 'DEP' + datum.tp : 'TP' + datum.tp"
    " + (isValid(datum.ep) && datum.ep > 1 ? ' EP' + datum.ep : ''))"
    " + (datum.pp > 1 ? ' PP' + datum.pp : '')"
)


# the mean advance of one character of an 11 px label, rounded up ("TP8 EP4, H200 SXM 141GB": 23 characters,
# 149 px in Vega's textMetrics; "DEP8, H200 SXM 141GB": 20, 133 px)
LABEL_CHAR_PX = 6.7


def operating_points(ctx: ChartContext) -> alt.LayerChart:
    """Each run with both figures as a point: output tokens/s per user (x, the latency side) against
    output tokens/s per GPU (y, the cost side), both log scale, named by layout (TP8 EP2, DEP8) and GPU."""
    x = alt.X(
        "output_tps_per_user:Q",
        title=charts.title(
            ctx, METRICS["output_tps_per_user"], "Per user"
        ),  # one line: the canvas height is fixed
        scale=alt.Scale(type="log"),
    )
    y = alt.Y(
        "output_tps_per_gpu:Q",
        title=charts.title(ctx, [METRICS["output_tps_per_gpu"], "(cost side)"], "Per GPU"),
        scale=alt.Scale(type="log"),
        # A log axis has no labels before the rows arrive, and Vega does not widen the chart's left edge
        # afterwards: reserve the labels' width up front so the title is not clipped.
        axis=alt.Axis(minExtent=45),
    )
    tooltip = [
        alt.Tooltip("gpu:N", title="GPU"),
        alt.Tooltip("model_name:N", title="Model"),
        alt.Tooltip("precision:N", title="Precision"),
        alt.Tooltip("workload:N", title="ISL/OSL (tokens)"),
        alt.Tooltip("layout:N", title="Layout"),
        alt.Tooltip("output_tps_per_user:Q", title=METRICS["output_tps_per_user"], format=",.1f"),
        alt.Tooltip("output_tps_per_gpu:Q", title=METRICS["output_tps_per_gpu"], format=",.0f"),
        alt.Tooltip("engine_version:N", title="Engine version"),
        alt.Tooltip("publisher:N", title="Source"),
    ]
    # Each point named beside it (layout and GPU): legends are laid out before the rows arrive and this
    # chart's are empty then, so Vega leaves them no room; a label cannot go missing that way.
    base = (
        alt.Chart()
        .transform_filter("isValid(datum.output_tps_per_user) && isValid(datum.output_tps_per_gpu)")
        .transform_calculate(layout=LAYOUT, label=f"{LAYOUT} + ', ' + datum.gpu")
    )
    points = base.mark_point(filled=True, size=120, opacity=0.85).encode(
        x=x,
        y=y,
        color=gpu_color(ctx, legend=False),
        shape=alt.Shape("layout:N", legend=None),
        tooltip=tooltip,
    )
    # A label is written left of its point where it would pass the plot's right edge (its width estimated
    # at LABEL_CHAR_PX a character: Vega's expressions cannot measure text). Written rightwards from every
    # point, the labels of the fastest runs passed that edge, and Vega's fit-x took the overflow off the
    # plot's width, which moved the points and the overflow again: on a phone the plot shrank pass after
    # pass (138 -> 134 -> 132 px, issue 26).
    right = f"scale('x', datum.output_tps_per_user) + 9 + {LABEL_CHAR_PX} * length(datum.label) > width"
    labels = base.mark_text(
        align=alt.ExprRef(f"{right} ? 'right' : 'left'"),
        dx=alt.ExprRef(f"{right} ? -9 : 9"),
        dy=-9,
        fontSize=11,
    ).encode(x=x, y=y, text="label:N")
    # data on the top level only: every view reads the page's one named dataset (site_gen.charts.views
    # contract)
    return alt.layer(points, labels, data=alt.NamedData(charts.DATA_NAME)).properties(
        width="container", height=ctx.height
    )


@register(
    "operating-points",
    "Latency against throughput",
    "Output tokens/s per user against per GPU for the runs that report both: one operating point per layout.",
)
def _operating_points(ctx: ChartContext) -> list[alt.Chart]:
    return [operating_points(ctx)]
