"""How good the estimates are: the figures of docs/estimates.md, computed at build time from the committed
validation table (``bench/data/estimate_validation.csv``, written by ``llmbench estimate-validate
--table``), never typed into the page.

The ``<!-- estimate-accuracy -->`` marker renders the overall error, the error by GPU, by model, by the
number of GPUs of the run, by category (the bands every estimate carries, ``bench.contract.
estimate_bands``), the worst pairs, and a log-log chart of estimate against published with the y = x line
and the +-25 % lines. Every string from the table is escaped.

The chart is filterable like the explorer (``FILTERS``: GPU, model, precision, workload, GPUs, release,
kept in the URL): its pairs are one small data file written at build time (``pairs_frame``) whose columns
carry the explorer's dimension names and sort orders, so the page script's filter scope serves it as it
serves the runs.
"""

from __future__ import annotations

import html
import json
import math
from collections import defaultdict
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

import altair as alt

from bench.contract.estimate_bands import MAX_MEDIAN, MIN_PAIRS, bands, gpus_class, read_table, summary
from site_gen import i18n
from site_gen.charts.vega_compile import compile_spec
from site_gen.data import dataset
from site_gen.data.dimensions import ENGINE_NAMES, Dimension, release_label
from site_gen.data.dimensions import get as dimension
from site_gen.pages.widgets import dimension_json, static_bar

if TYPE_CHECKING:
    import pandas as pd

    from site_gen.charts.specs import ChartContext
    from site_gen.data.estimates import EngineCount
    from site_gen.pages.markers import Page

Row = dict[str, str]


def grouped(rows: Iterable[Row], key: Callable[[Row], str]) -> list[tuple[str, dict[str, float]]]:
    """Summary per group, the largest group first."""
    g: dict[str, list[float]] = defaultdict(list)
    for r in rows:
        g[key(r)].append(float(r["error"]))
    return sorted(((k, summary(v)) for k, v in g.items()), key=lambda kv: (-kv[1]["n"], kv[0]))


def _pct(x: float) -> str:
    return f"{x:+.0%}".replace("%", " %")


def _share(x: float) -> str:
    return f"{x:.0%}".replace("%", " %")


# A table of this many rows or more is laid out only near the screen (``.lb-lazy-table``, CSS
# content-visibility): at load, Material's script measures the page several times, and each layout of the
# page's long tables was a phone's ~80 ms (x4 throttled; Lighthouse mobile 74-80, TBT ~0.9 s).
LAZY_ROWS = 10


def _table(head: list[str], body: list[list[str]], numeric_from: int = 1) -> str:
    """An HTML table (cells escaped here, once); a long one laid out only near the screen."""
    ths = "".join(f"<th>{html.escape(h)}</th>" for h in head)
    trs = []
    for row in body:
        tds = "".join(
            f'<td style="text-align:right">{html.escape(c)}</td>'
            if i >= numeric_from
            else f"<td>{html.escape(c)}</td>"
            for i, c in enumerate(row)
        )
        trs.append(f"<tr>{tds}</tr>")
    body_html = "".join(trs)
    table = f"<table><thead><tr>{ths}</tr></thead><tbody>{body_html}</tbody></table>"
    if len(body) < LAZY_ROWS:
        return table
    # the rows' count sizes the room it holds until drawn (docs/assets/css/llmbench.css)
    return f'<div class="lb-lazy-table" style="--lb-rows:{len(body)}">{table}</div>'


def summary_table(t: Callable[..., str], first: str, groups: list[tuple[str, dict[str, float]]]) -> str:
    head = [first, t("est.pairs"), t("est.median"), "p10", "p90", t("est.within10"), t("est.within25")]
    body = [
        [
            k,
            f"{s['n']:,}",
            _pct(s["median"]),
            _pct(s["p10"]),
            _pct(s["p90"]),
            _share(s["within10"]),
            _share(s["within25"]),
        ]
        for k, s in groups
    ]
    return _table(head, body)


def _gpus(r: Row) -> str:
    return gpus_class(int(r["tp"]), int(r["pp"]))


def worst(rows: list[Row], n: int = 20) -> list[Row]:
    """The pairs furthest from published, by |log(estimate / published)| (a 2x over and a 2x under weigh
    the same)."""
    return sorted(rows, key=lambda r: -abs(math.log1p(float(r["error"]))))[:n]


def render(t: Callable[..., str], rows: list[Row]) -> str:
    """The page's tables, in the order the page text refers to them."""
    if not rows:
        return f'<p class="lb-status">{html.escape(t("est.no_table"))}</p>'
    overall = summary([float(r["error"]) for r in rows])
    parts = [
        f'<h2 id="overall">{html.escape(t("est.overall"))}</h2>',
        summary_table(t, "", [(t("est.all_pairs"), overall)]),
        f'<h2 id="by-gpu">{html.escape(t("est.by_gpu"))}</h2>',
        summary_table(t, "GPU", grouped(rows, lambda r: r["gpu"])),
        f'<h2 id="by-model">{html.escape(t("est.by_model"))}</h2>',
        summary_table(t, t("est.model"), grouped(rows, lambda r: r["model_config"])),
        f'<h2 id="by-gpus">{html.escape(t("est.by_gpus"))}</h2>',
        summary_table(t, t("est.gpus"), grouped(rows, _gpus)),
        f'<h2 id="by-release">{html.escape(t("est.by_release"))}</h2>',
        summary_table(t, t("est.release"), grouped(rows, lambda r: r["release"])),
    ]
    cats = bands(rows)
    head = [t("est.category"), t("est.pairs"), t("est.median"), "p10", "p90", t("est.confidence")]
    body = [
        [
            k,
            f"{b.pairs:,}",
            _pct(b.median or 0),
            _pct(b.p10 or 0),
            _pct(b.p90 or 0),
            t(f"est.conf_{b.confidence}"),
        ]
        for k, b in sorted(cats.items(), key=lambda kv: (kv[1].confidence != "low", kv[0]))
    ]
    rule = t("est.by_category_note", pairs=MIN_PAIRS, median=_share(MAX_MEDIAN))
    parts += [
        f'<h2 id="by-category">{html.escape(t("est.by_category"))}</h2>',
        f"<p>{html.escape(rule)}</p>",  # once, not on every row of the table (a phone's 128 px rows)
        _table(head, body),
    ]
    head = [
        t("est.error"),
        t("est.published"),
        t("est.estimate"),
        "GPU",
        t("est.model"),
        t("est.precision"),
        "TP×PP (EP)",
        "ISL/OSL",
        t("est.release"),
        t("est.file"),
    ]
    body = [
        [
            _pct(float(r["error"])),
            f"{float(r['published']):,.0f}",
            f"{float(r['estimate']):,.0f}",
            r["gpu"],
            r["model_config"],
            r["precision"],
            f"{r['tp']}×{r['pp']} ({r['ep'] or '-'})",
            f"{r['isl']}/{r['osl']}",
            r["release"],
            f"{r['file']}#{r['run']}",
        ]
        for r in worst(rows)
    ]
    parts += [f'<h2 id="worst">{html.escape(t("est.worst"))}</h2>', _table(head, body, numeric_from=99)]
    return "\n".join(parts)


def engine_section(t: Callable[..., str], counts: list[EngineCount]) -> str:
    """How many estimates each engine has (from the site database) and how many carry a measured band;
    for an engine none of whose estimates has a comparable published run (vLLM and SGLang today), a
    sentence that no error is measured for them. Empty without estimates."""
    if not counts:
        return ""
    total = sum(c.estimates for c in counts)
    head = [t("est.engine"), t("est.engine_data"), t("est.estimates"), t("est.with_band"), t("est.no_band")]
    body = [
        [
            ENGINE_NAMES.get(c.engine, c.engine),
            c.version,
            f"{c.estimates:,}",
            f"{c.with_pairs:,}",
            f"{c.estimates - c.with_pairs:,}",
        ]
        for c in counts
    ]
    parts = [
        f'<h2 id="by-engine">{html.escape(t("est.by_engine"))}</h2>',
        f"<p>{html.escape(t('est.engine_intro', n=f'{total:,}', engines=f'{len(counts):,}'))}</p>",
        _table(head, body, numeric_from=2),
    ]
    for c in counts:
        if not c.with_pairs:
            text = t(
                "est.engine_unvalidated", engine=ENGINE_NAMES.get(c.engine, c.engine), n=f"{c.estimates:,}"
            )
            parts.append(f'<p class="lb-est-unvalidated">{html.escape(text)}</p>')
    return "\n".join(parts)


# The chart's filters: the explorer's dimensions the validation table has (model: AIConfigurator's config
# name, as in the table "By model"; version: the published run's TensorRT-LLM release).
FILTERS = ("gpu", "model", "precision", "workload", "gpus", "version")


def filter_dims() -> list[Dimension]:
    return [dimension(k) for k in FILTERS]


def pairs_frame(rows: list[Row], gpu_order: list[str]) -> pd.DataFrame:
    """The pairs as the chart's data file: the explorer dimensions' columns (``FILTERS``) with their sort
    columns (GPU generation from ``gpu_order``, the site's GPU domain; precision; workload; release), the
    two figures and the signed error."""
    import pandas as pd

    from site_gen.data.load import version_key
    from site_gen.data.queries import PRECISION_ORDER

    gpus = {g: i + 1 for i, g in enumerate(gpu_order)}
    precisions = {p: i + 1 for i, p in enumerate(PRECISION_ORDER)}
    df = pd.DataFrame(rows)
    for c in ("published", "estimate", "error"):
        df[c] = df[c].astype(float)
    df["model_name"] = df["model_config"]
    df["workload"] = df["isl"] + "/" + df["osl"]
    df["workload_order"] = df["isl"].astype(int) * 1_000_000 + df["osl"].astype(int)
    df["n_gpus"] = df["tp"].astype(int) * df["pp"].astype(int)
    df["gpu_class"] = [_gpus(r) for r in rows]
    df["gpu_order"] = [gpus.get(g, 999) for g in df["gpu"]]
    df["precision_order"] = [precisions.get(p, 99) for p in df["precision"]]
    df["engine_version"] = [release_label(v) for v in df["release"]]
    df["version_key"] = [version_key(v) for v in df["engine_version"]]
    return df[
        [
            "gpu", "model_name", "precision", "workload", "n_gpus", "engine_version", "gpu_class",
            "published", "estimate", "error", "gpu_order", "precision_order", "workload_order", "version_key",
        ]
    ]  # fmt: skip


def scatter(ctx: ChartContext) -> alt.LayerChart:
    """Estimate against published (log-log), coloured by GPU, with y = x and the +-25 % lines."""
    from site_gen.charts import specs as charts

    lo, hi = 1, 200_000
    lines = alt.Data(
        values=[
            {"x": x, "y": x * f, "line": name}
            for name, f in (("y = x", 1.0), ("+25 %", 1.25), ("-25 %", 0.75))
            for x in (lo, hi)
        ]
    )
    log = alt.Scale(type="log", domain=[lo, hi])
    points = (
        charts.base(ctx)
        .mark_point(filled=True, opacity=0.5, size=20)
        .encode(
            # two lines: one (about 290 px) was wider than a phone's plot (about 200 px); the centred title's
            # overhang took room from the plot, which moved the overhang, so the plot narrowed on every
            # layout pass (201 then 194 px) and never settled (issue 26)
            # a label that would touch its neighbour is dropped ("10" and "20" ran together on a phone)
            x=alt.X(
                "published:Q",
                title=["Published output tokens/s", "(per GPU, or per user)"],
                scale=log,
                axis=alt.Axis(labelOverlap="greedy", labelSeparation=4),
            ),
            y=alt.Y("estimate:Q", title="AIConfigurator estimate, same metric", scale=log),
            color=charts.gpu_color(ctx),
            tooltip=[
                alt.Tooltip("gpu:N", title="GPU"),
                alt.Tooltip("model_name:N", title="Model"),
                alt.Tooltip("precision:N", title="Precision"),
                alt.Tooltip("workload:N", title="Workload (ISL/OSL)"),
                alt.Tooltip("gpu_class:N", title="GPUs"),
                alt.Tooltip("engine_version:N", title="Release"),
                alt.Tooltip("published:Q", title="Published", format=",.0f"),
                alt.Tooltip("estimate:Q", title="Estimate", format=",.0f"),
                alt.Tooltip("error:Q", title="Error", format="+.0%"),
            ],
        )
    )
    guide = (
        alt.Chart(lines)
        .mark_line(strokeDash=[4, 3], color="gray", clip=True)
        .encode(x=alt.X("x:Q", scale=log), y=alt.Y("y:Q", scale=log), detail="line:N")
    )
    return alt.layer(guide, points).properties(width="container", height=ctx.height + 80)


def confidence_counts(rows: list[Row]) -> dict[str, int]:
    """Pairs per confidence of their category (for the page's sentence on low-confidence categories)."""
    out: dict[str, int] = defaultdict(int)
    for b in bands(rows).values():
        out[b.confidence] += b.pairs
    return dict(out)


def table_rows() -> list[Row]:
    return read_table()


def render_marker(page: Page) -> str:
    """The ``<!-- estimate-accuracy -->`` marker on ``page``: the engines' counts, the tables and the
    filterable scatter from the committed validation table (its pairs in their own data file, shared by
    the languages), and the planner's cross-check."""
    from site_gen.charts import specs as charts
    from site_gen.pages.markers import DATA_DIR, localize, reserved_height

    rows = table_rows()
    tables = render(page.site.cat.t, rows)
    if not rows:
        return tables
    frame = pairs_frame(rows, list(page.site.ctx.gpus))
    if "estimate-pairs" not in page.site.keys:
        page.site.keys["estimate-pairs"] = page.site.keep(dataset.frame_file("pairs", frame))
    key = page.site.keys["estimate-pairs"]
    src = page._rel(f"{DATA_DIR}/{dataset.data_name(key)}")
    spec = json.dumps(
        compile_spec(localize(charts.to_spec(scatter(page.site.ctx)), i18n.translator(page.site.lang))),
        separators=(",", ":"),
        ensure_ascii=False,
    )
    chart = {
        "spec": spec,
        "fixed": "{}",
        "src": src,
        "key": key,
        "label": page.site.cat.t("est.chart_label"),
        "card": page.card,
        "caption": page.site.cat.t("est.chart_caption"),
        "reserve": reserved_height(spec),
    }
    # a phone shows the build's picture of it (as the explorer does) and loads no Vega until touched: the
    # chart, within the lazy drawing's reach of a phone's first screen, drew its ~3,000 pairs at load
    first = page._first_view({}, frame)
    chart["picture"] = page._picture("estimate-accuracy", spec, first) if first is not None else None
    # the chart in a filter scope of its own data (the explorer's bar and URL state over the pairs)
    dims = filter_dims()
    chart = page.site.render(
        "view.html.j2",
        fixed="{}",
        src=src,
        key=key,
        dims=json.dumps([dimension_json(d, page.site.cat) for d in dims]),
        defaults="{}",
        card=page.card,
        bar=static_bar(frame, dims, {}, page.site.cat),
        charts=[chart],
        after="",
    )
    return chart + _engine_counts(page) + tables + _planner_check(page)


def _engine_counts(page: Page) -> str:
    """The estimates per engine, counted in the site database (not the validation table: an engine
    without a published run to pair has estimates but no pair)."""
    from site_gen.data import estimates

    if page.site.db is None or not page.site.db.exists():
        return ""
    return engine_section(page.site.cat.t, estimates.engine_counts(page.site.db))


def _planner_check(page: Page) -> str:
    """Where the memory planner says a committed estimate's configuration does not fit."""
    from site_gen.data import estimate_memory

    if page.site.db is None or not page.site.db.exists():
        return ""
    rows = estimate_memory.estimate_rows(page.site.db)
    if not rows:
        return ""
    found = estimate_memory.disagreements(rows)
    t = page.site.cat.t
    out = [f'<h2 id="planner">{html.escape(t("est.planner_h"))}</h2>']
    text = (
        t("est.planner_none", n=f"{len(rows):,}")
        if not found
        else t("est.planner_some", n=f"{len(found):,}", total=f"{len(rows):,}")
    )
    out.append(f"<p>{html.escape(text)}</p>")
    if found:
        out.append("<ul>")
        for d in found[:50]:
            line = (
                f"{d.gpu}, {d.model} {d.precision}, TP {d.tp} PP {d.pp}, batch {d.batch} x {d.seq_len} "
                f"tokens: {d.planner_gib:,.1f} GiB > {d.gpu_gib:g} GB"
            )
            href = f"{page.card}#{d.run_id}"
            out.append(f'<li><a href="{html.escape(href, quote=True)}">{html.escape(line)}</a></li>')
        out.append("</ul>")
    return "\n".join(out)
