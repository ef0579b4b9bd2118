"""The generated pages, in order: (path under generated/, render function -> Markdown), added by the hooks.

Pages are Markdown with chart markers (``site_gen.pages.markers``); the MkDocs hook turns the markers into
charts, so a generated page and a hand-written one work the same way. Every string that comes from the
data (GPU and model names) is escaped for Markdown and HTML here, and quoted for markers.
"""

from __future__ import annotations

import html
import re
import shlex
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from site_gen import i18n
from site_gen.charts import views
from site_gen.pages import compare, neighbours

if TYPE_CHECKING:
    import pandas as pd

    from site_gen.i18n import Catalogue


@dataclass(frozen=True)
class GeneratedPage:
    path: str  # relative to generated/ (in-memory MkDocs files, never written into docs/)
    render: Callable[[], str]  # -> the page's Markdown; its title is its first heading


def text(s: object) -> str:
    """Data text made inert for Markdown and HTML: entities for <>&"', backslashes for Markdown syntax."""
    escaped = html.escape(str(s), quote=True)
    return re.sub(r"([\\`*_{}\[\]()#+!|~])", r"\\\1", escaped)


def marker_value(s: object) -> str:
    """A value for a chart marker: shell-quoted (spaces), HTML-escaped (no early `-->`, no tags)."""
    return html.escape(shlex.quote(str(s)), quote=False)


def slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or "item"


def _slugs(names: list[str]) -> dict[str, str]:
    """A unique file slug per name (names that fold to the same slug get -2, -3, ...)."""
    out: dict[str, str] = {}
    used: set[str] = set()
    for name in names:
        base = s = slug(name)
        n = 1
        while s in used:
            n += 1
            s = f"{base}-{n}"
        used.add(s)
        out[name] = s
    return out


def view_title(cat: Catalogue, view: views.View) -> str:
    """A view's title in the catalogue's language (the registry's English when it has no entry)."""
    return cat.messages.get(f"views.{view.name}.title", view.title)


def view_description(cat: Catalogue, view: views.View) -> str:
    return cat.messages.get(f"views.{view.name}.description", view.description)


def _held_fixed(view: views.View, cat: Catalogue) -> list[str]:
    """What the view holds to one value (its ``single`` dimensions): one definition per comparison, said."""
    if not view.single:
        return []
    dims = ", ".join(cat.messages.get(f"dimensions.{k}.label", k) for k in view.single)
    return [text(cat.t("pages.view_fixed", dims=dims)), ""]


def _view_page(view: views.View, cat: Catalogue) -> str:
    return "\n".join(
        [
            f"# {text(view_title(cat, view))}",
            "",
            text(view_description(cat, view)),
            "",
            *_held_fixed(view, cat),
            text(cat.t("pages.view_intro")),
            "",
            f"<!-- view: {view.name} picture=yes -->",  # its chart opens a phone's first screen
            "",
        ]
    )


def _views_index(cat: Catalogue) -> str:
    lines = [f"# {text(cat.t('pages.views_title'))}", "", text(cat.t("pages.views_intro")), ""]
    for v in views.all_views().values():
        if v.filters:
            lines.append(f"- [{text(view_title(cat, v))}]({v.name}.md): {text(view_description(cat, v))}")
    return "\n".join([*lines, ""])


def _index(kind: str, counts: pd.DataFrame, slugs: dict[str, str], cat: Catalogue) -> str:
    """The GPU (kind "gpu") or model ("model") index."""
    lines = [f"# {text(cat.t(f'pages.{kind}s_title'))}", "", text(cat.t(f"pages.{kind}s_intro")), ""]
    head = [cat.t(f"pages.col_{kind}"), cat.t("pages.col_runs"), cat.t("pages.col_sources")]
    lines += ["| " + " | ".join(text(h) for h in head) + " |", "|---|---:|---|"]
    for row in counts.itertuples():
        link = f"[{text(row.name)}]({slugs[row.name]}.md)"
        lines.append(f"| {link} | {row.runs:,} | {text(row.sources)} |")
    return "\n".join([*lines, ""])


def _compare_links(
    name: str, partners: list[tuple[str, int]], cat: Catalogue, order: dict[str, int] | None = None
) -> list[str]:
    """'Compare with: B (n configurations), ...' as HTML links to the compare page (a query string, which
    MkDocs' Markdown link check does not know). Each link puts the older GPU (``order``: the registry's
    year order) as A, as the presets and the Compare tab do, so its answer reads "newer is N× older"
    whichever GPU's page it is on."""
    if not partners:
        return []
    rank = order or {}

    def pair(other: str) -> tuple[str, str]:
        return (other, name) if rank.get(other, 999) < rank.get(name, 999) else (name, other)

    links = [
        f'<a href="{html.escape(compare.href("../../compare.html", "gpu", *pair(other)), quote=True)}">'
        f"{html.escape(other)}</a> ({html.escape(cat.t('pages.configurations', n=f'{n:,}'))})"
        for other, n in partners
    ]
    return [f"**{text(cat.t('pages.compare_with'))}** " + ", ".join(links) + ".", ""]


def _tps(value: float) -> str:
    """Tokens/s for a table cell: whole numbers with separators; three significant digits below 100
    (13.8, not 14; 0.0135, not 0)."""
    return f"{value:,.0f}" if value >= 100 else f"{value:.3g}"


def _card(best: neighbours.Best, label: str) -> str:
    """``label`` linked to the best run's card (HTML: MkDocs checks only Markdown links)."""
    return f'<a href="../../runs.html#{html.escape(best.run_id, quote=True)}">{html.escape(label)}</a>'


def _neighbours_table(name: str, rows: list[neighbours.Row], cat: Catalogue) -> list[str]:
    """The GPU's best figures beside its neighbours' (site_gen.pages.neighbours): what the page opens on."""
    lines = [f"## {text(cat.t('pages.gpu_best_title'))}", ""]
    if not rows:
        return [*lines, text(cat.t("pages.gpu_best_none")), ""]
    lines += [text(cat.t("pages.gpu_best_intro", gpu=name)), ""]
    # one column for what is held equal, so that on a phone the GPU's own figure is in the first screen
    head = [cat.t("pages.col_config"), cat.t("pages.col_this_gpu", gpu=name), cat.t("pages.col_neighbours")]
    lines += ["| " + " | ".join(text(h) for h in head) + " |", "|---|---:|---|"]
    for r in rows:
        near = ", ".join(
            f"{html.escape(n.gpu)} {_card(n, _tps(n.value))} ({r.mine.value / n.value:.2f}×)"
            for n in r.neighbours
        )
        config = text(f"{r.model} · {r.precision} · {r.workload}")
        lines.append(f"| {config} | {_card(r.mine, _tps(r.mine.value))} | {near} |")
    return [*lines, ""]


def _best_gpus_table(rows: list[neighbours.ModelRow], cat: Catalogue) -> list[str]:
    """The best GPUs at each precision and workload of a model (``neighbours.model_rows``): what a model
    page opens on, so that its answer, not a chart drawn at load, fills a phone's first screen."""
    lines = [f"## {text(cat.t('pages.model_best_title'))}", ""]
    if not rows:
        return [*lines, text(cat.t("pages.model_best_none")), ""]
    lines += [text(cat.t("pages.model_best_intro")), ""]
    head = [cat.t("pages.col_model_config"), cat.t("pages.col_best_gpu"), cat.t("pages.col_next_gpus")]
    lines += ["| " + " | ".join(text(h) for h in head) + " |", "|---|---|---|"]
    for r in rows:
        first, *rest = r.gpus
        others = ", ".join(
            f"{html.escape(n.gpu)} {_card(n, _tps(n.value))} ({n.value / first.value:.2f}×)" for n in rest
        )
        mine = f"{html.escape(first.gpu)} {_card(first, _tps(first.value))}"
        lines.append(f"| {text(f'{r.precision} · {r.workload}')} | {mine} | {others} |")
    return [*lines, ""]


def _entity_page(
    kind: str,
    key: str,
    name: str,
    facts: list[str],
    cat: Catalogue,
    partners: list[tuple[str, int]] = (),
    best: list[neighbours.Row] | None = None,
    order: dict[str, int] | None = None,
    best_gpus: list[neighbours.ModelRow] | None = None,
) -> str:
    # the whole width for the charts and the table (the page is not in the navigation)
    lines = ["---", "hide: [navigation, toc]", "---", "", f"# {text(name)}", "", *facts, ""]
    if best is not None:  # a GPU page opens on how the GPU compares, then the explorer of its runs
        lines += _neighbours_table(name, best, cat)
    if best_gpus is not None:  # a model page, on its best GPUs
        lines += _best_gpus_table(best_gpus, cat)
    lines += _compare_links(name, list(partners), cat, order)
    lines += [
        text(cat.t(f"pages.{kind}_entity_intro")),
        "",
        f"<!-- explorer {key}={marker_value(name)} -->",
        "",
    ]
    return "\n".join(lines)


def _counts(runs: pd.DataFrame, column: str, order: str | None = None) -> pd.DataFrame:
    g = runs.groupby(column, sort=False)
    df = g.size().rename("runs").to_frame()
    # each group's distinct publishers: deduplicated first, so the join sees a few values, not every run
    pubs = runs[[column, "publisher"]].drop_duplicates().groupby(column, sort=False)["publisher"]
    df["sources"] = pubs.agg(lambda s: ", ".join(sorted(set(map(str, s)))))
    if order:
        df["order"] = g[order].min()
        df = df.sort_values(["order"])
    else:
        df = df.sort_index()
    return df.reset_index(names="name")


def _gpu_facts(gpu: dict, cat: Catalogue) -> list[str]:
    if not gpu:
        return []
    parts = [cat.t("pages.gpu_facts", architecture=gpu.get("architecture"), year=gpu.get("year"))]
    if gpu.get("memory_gb"):
        parts.append(f"{gpu['memory_gb']:g} GB {gpu.get('memory_type') or ''}".strip())
    if gpu.get("hbm_bandwidth_tb_s"):
        parts.append(cat.t("pages.gpu_bandwidth", tb_s=f"{gpu['hbm_bandwidth_tb_s']:g}"))
    return [text("; ".join(parts)) + f" {text(cat.t('pages.gpu_registry'))}."]


@dataclass(frozen=True)
class _Facts:
    """What the GPU and model pages take from the runs, the same in every language."""

    gpus: pd.DataFrame  # _counts by GPU
    models: pd.DataFrame  # _counts by model
    pairs: dict[str, list[tuple[str, int]]]  # each GPU's compare partners
    best: neighbours.Index  # each GPU's best figures beside its neighbours'
    order: dict[str, int]  # each GPU's sort place


_LAST: list[tuple[pd.DataFrame, _Facts]] = []  # the runs of the last call and their _language_free parts


def _language_free(runs: pd.DataFrame) -> _Facts:
    """The GPU pages' and model pages' facts: the same in every language, so a build's languages (one
    ``pages`` call each, with the same runs) compute them once."""
    if _LAST and _LAST[0][0] is runs:
        return _LAST[0][1]
    parts = _Facts(
        gpus=_counts(runs, "gpu", "gpu_order"),
        models=_counts(runs, "model_name"),
        pairs=compare.partners(runs) if not runs.empty else {},
        best=neighbours.index(runs),
        order=runs.groupby("gpu")["gpu_order"].min().to_dict() if "gpu_order" in runs.columns else {},
    )
    _LAST[:] = [(runs, parts)]
    return parts


def pages(runs: pd.DataFrame, gpu_info: dict[str, dict], cat: Catalogue | None = None) -> list[GeneratedPage]:
    """Every generated page for these runs, in the catalogue's language (English by default): views,
    then one per GPU, then one per model."""
    cat = cat or i18n.load(i18n.DEFAULT)
    out = [GeneratedPage("views/index.md", lambda: _views_index(cat))]
    for v in views.all_views().values():
        if v.filters:  # views without filters are building blocks of other pages
            out.append(GeneratedPage(f"views/{v.name}.md", lambda v=v: _view_page(v, cat)))
    known = _language_free(runs)
    gpus, models, pairs, best, order = known.gpus, known.models, known.pairs, known.best, known.order
    gpu_slugs = _slugs(list(gpus["name"]))
    out.append(GeneratedPage("gpus/index.md", lambda: _index("gpu", gpus, gpu_slugs, cat)))
    for name, s in gpu_slugs.items():
        facts = _gpu_facts(gpu_info.get(name, {}), cat)
        p = pairs.get(name, [])
        out.append(
            GeneratedPage(
                f"gpus/{s}.md",
                lambda n=name, f=facts, p=p: _entity_page(
                    "gpu", "gpu", n, f, cat, p, neighbours.rows(best, n), order
                ),
            )
        )
    model_slugs = _slugs(list(models["name"]))
    out.append(GeneratedPage("models/index.md", lambda: _index("model", models, model_slugs, cat)))
    for name, s in model_slugs.items():
        out.append(
            GeneratedPage(
                f"models/{s}.md",
                lambda n=name: _entity_page(
                    "model", "model", n, [], cat, best_gpus=neighbours.model_rows(best, n)
                ),
            )
        )
    return out
