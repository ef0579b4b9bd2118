"""What the filter scopes' widgets are made of, as the build writes them into a page: the filter
dimensions and latency limits in the page's language, the static filter bar (drawn in the HTML so the bar
takes its height before the script), the explorer table's columns, the run card's sections and the
explorer's presets. The markers (``site_gen.pages.markers``) put them into their templates; the page
script (docs/assets/js) reads them and knows no column of its own.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode

from site_gen import i18n
from site_gen.data.dimensions import LIMITS, Filters, mask
from site_gen.data.memory import planner_payload
from site_gen.data.queries import OVER_BOUND

if TYPE_CHECKING:
    import pandas as pd


def dimension_json(d: Any, cat: i18n.Catalogue) -> dict:
    """A filter dimension for the page script, its label and help in the catalogue's language."""
    out = d.as_json()
    out["label"] = cat.messages.get(f"dimensions.{d.key}.label", d.label)
    out["help"] = cat.messages.get(f"dimensions.{d.key}.help", d.help)
    # values the catalogue names in each language (source kinds); other values are data, shown as they are
    prefix = f"dimension_values.{d.key}."
    names = {k[len(prefix) :]: v for k, v in cat.messages.items() if k.startswith(prefix)}
    if names:
        out["values"] = names
    return out


def limits(sub: pd.DataFrame, cat: i18n.Catalogue) -> list[dict[str, Any]]:
    """The latency filters (``dimensions.LIMITS``) whose figure some run of the scope has (the A100 page,
    published peak figures only, gets none), labelled in the catalogue's language."""
    out = []
    for lim in LIMITS:
        if lim.column not in sub or not sub[lim.column].notna().any():
            continue
        d = lim.as_json()
        d["label"] = cat.messages.get(f"limits.{lim.key}.label", lim.label)
        d["help"] = cat.messages.get(f"limits.{lim.key}.help", lim.help)
        out.append(d)
    return out


def varied(sub: pd.DataFrame, dims: Any) -> set[str]:
    """The keys of the dimensions ``dims`` with two values or more in ``sub`` (missing values aside)."""
    return {d.key for d in dims if sub[d.column].nunique() >= 2}


def static_bar(
    sub: pd.DataFrame,
    dims: Any,
    defaults: Filters,
    cat: i18n.Catalogue | None = None,
    several: Collection[str] | None = None,
) -> list[dict[str, Any]]:
    """The filter bar's buttons as the page script first draws them (a dimension with one value only is
    left out), drawn into the HTML so that the bar takes its height before the script replaces it.
    ``several``: ``varied(sub, dims)``, where the caller has it."""
    several = varied(sub, dims) if several is None else several
    out = []
    for d in dims:
        chosen = defaults.get(d.key, [])
        if d.key not in several and not chosen:
            continue
        dj = dimension_json(d, cat or i18n.load(i18n.DEFAULT))
        names = dj.get("values", {})
        out.append({"key": d.key, "label": dj["label"], "chosen": [names.get(v, v) for v in chosen]})
    return out


# $ per million output tokens, derived in the page from the reader's $/GPU-hour price and each run's
# n_gpus and output_tps (site_gen.charts.latency_views.cost_per_million_tokens is the same formula); no column
# of the data, so the column is marked "derived" and the page script computes it.
COST = "cost_per_mtok"

# The explorer table's columns, throughput first (what a reader came for, visible without scrolling
# sideways on a phone), then the configuration, the source and the run card. The page script hides the
# columns whose value is the same for every run of the page (unless "always"); the CSV keeps them all.
# (key, label, numeric, always, help)
TABLE: tuple[tuple[str, str, bool, bool, str], ...] = (
    (
        "output_tps_per_gpu",
        "Output tok/s per GPU",
        True,
        True,
        "Output tokens/s divided by the run's GPU count",
    ),
    ("output_tps", "Output tok/s (all GPUs)", True, True, "Output tokens/s over all GPUs of the run"),
    (
        COST,
        "$ per 1M output tokens at your {price}/GPU-h",
        True,
        True,
        "Derived from your $/GPU-hour price (the box above the table; an assumption, not a published"
        " figure): price × GPUs / (output tokens/s × 3600) × 10^6",
    ),
    ("gpu", "GPU", False, False, ""),
    ("model_name", "Model", False, False, ""),
    (
        "precision",
        "Precision",
        False,
        False,
        "Weight precision; Mixed: a source giving several precisions at once",
    ),
    ("isl", "ISL", True, False, "Input sequence length, tokens"),
    ("osl", "OSL", True, False, "Output sequence length, tokens"),
    ("tp", "TP", True, False, "Tensor-parallel size"),
    ("pp", "PP", True, False, "Pipeline-parallel size"),
    ("num_requests", "Requests sent", True, False, "Requests sent over the whole run (at once: Concurrency)"),
    ("engine", "Engine", False, False, ""),
    ("engine_version", "Version", False, False, "Engine release"),
    ("publisher", "Source", False, False, "Who measured or published the figure"),
    (
        "source_kind",
        "Source kind",
        False,
        False,
        "measured: run by llmbench; published: from a third party's table",
    ),
)
OPTIONAL_TABLE = (
    ("pct_of_bound", "% of speed-of-light", True, False, "Measured / physical bound of the GPU and model"),
    ("bound_output_tps", "Bound tok/s (all GPUs)", True, False, "Speed-of-light bound, output tokens/s"),
    # latency (issue 15): null for runs whose source gives only peak throughput, so hidden on pages
    # where no run has them (a column with one value everywhere is hidden)
    ("concurrency", "Concurrency", True, False, "Requests in flight"),
    ("output_tps_per_user", "Tok/s per user", True, False, "Output tokens/s per user (interactivity)"),
    ("ttft_ms_avg", "TTFT mean (ms)", True, False, "Time to first token, mean over requests"),
    ("tpot_ms_avg", "TPOT mean (ms)", True, False, "Time per output token after the first, mean"),
    ("request_latency_ms_avg", "End-to-end mean (ms)", True, False, "Request latency, mean over requests"),
    # repeated runs (issue 30): measured runs only; null for published figures, so hidden where none is
    ("samples", "Samples", True, False, "Repetitions the figures are the median of; 1: a single sample"),
)
RUN_CARD_COLUMN = (
    "run_id",
    "Run",
    False,
    True,
    "The run's card: every field, its source and how to reproduce it",
)


def table_columns(columns: Any, cat: i18n.Catalogue | None = None) -> list[dict[str, Any]]:
    """The explorer table: the run card first (issue 26: the link a reader clicks, on screen at any width),
    then ``TABLE`` and the optional columns present; the headers and their tooltips in the catalogue's
    language (English by default). A column with a ``short`` label in the catalogue shows it (headers stay
    within two lines) and keeps the long one as ``long``, the header's title."""
    cat = cat or i18n.load(i18n.DEFAULT)
    rows = [*TABLE, *(c for c in OPTIONAL_TABLE if c[0] in columns)]
    if "run_id" in columns:
        rows.insert(0, RUN_CARD_COLUMN)
    out = []
    for k, label, num, always, help_ in rows:
        col = {
            "key": k,
            "label": cat.messages.get(f"table.{k}.label", label),
            "numeric": num,
            "always": always,
            "help": cat.messages.get(f"table.{k}.help", help_),
        }
        if short := cat.messages.get(f"table.{k}.short"):
            col["long"], col["label"] = col["label"], short
        out.append(col)
    for col in out:
        if col["key"] == COST:
            col["derived"] = "cost"  # results-table.js: price × n_gpus / (output_tps × 3600) × 10^6
        if col["key"] == "run_id":
            col["card"] = True  # results-table.js links the cell to the run card
        if col["key"] == "pct_of_bound" and OVER_BOUND in columns:
            col["flag"] = OVER_BOUND  # results-table.js marks the cell (⚠) with this column's text as title
        if col["key"] == "pct_of_bound" and "bound_note" in columns:
            col["note"] = "bound_note"  # results-table.js: "unknown" or "48 *", the note's sentences as title
    return out


# The run card's sections: (section key, [column, ...]); a field without a value is left out. Titles and
# labels live in the catalogue (site_gen/i18n/<lang>.yaml, ``card.sections`` and ``card.fields``), so the
# Korean card is Korean; the page script (views/run-card.js) knows no field.
CARD_SECTIONS: list[tuple[str, list[str]]] = [
    # first, so that an estimate's card says so before any figure (fields only estimates have)
    ("estimate", [
        "est_band", "est_confidence", "est_category", "est_estimator", "est_search", "est_mapping",
    ]),
    ("result", [
        "output_tps_per_gpu", "output_tps", "output_tps_per_user", "total_tps", "requests_per_s",
        "throughput_basis", "pct_of_bound", "bound_output_tps", "bound_note", "erratum",
        # repeated runs (issue 30): the figures are the median of `samples`; the range of the repetitions
        "samples", "output_tps_per_gpu_min", "output_tps_per_gpu_max", "output_tps_per_user_min",
        "output_tps_per_user_max",
    ]),
    ("configuration", [
        "gpu", "model_name", "model", "checkpoint", "precision", "kv_cache_dtype", "weights", "tp", "pp",
        "ep", "n_gpus", "isl", "osl", "num_requests", "concurrency", "dataset", "input_stdev", "output_stdev",
    ]),
    ("engine_settings", [
        "engine", "engine_version", "engine_version_file", "workflow", "benchmark_tool", "max_batch_size",
        "max_num_tokens", "kv_cache_free_gpu_mem_fraction", "attention_dp", "streaming", "extra_options",
    ]),
    ("environment", [
        "system", "gpu_label", "architecture", "gpu_memory_gb", "hbm_bandwidth_tb_s", "gpus_per_node",
        "nodes", "interconnect", "container_image",
    ]),
    ("latency", [
        f"{m}_{p}" for m in ("ttft_ms", "tpot_ms", "request_latency_ms") for p in ("avg", "p50", "p90", "p99")
    ]),
    ("source", [
        "basis", "source_kind", "publisher", "source_title", "source_url", "site_url", "submitter", "date",
        "timestamp", "source_notes", "file", "run_index",
    ]),
    ("reproduce", ["command", "source_commands", "notes"]),
]  # fmt: skip
# "Cite this" (site_gen.data.cite): in the run cards' data file as templates with "{run_id}" where the run's
# id goes; the page script (views/run-card.js) puts the id in. Last, after Reproduce.
CITE_SECTION: tuple[str, list[str]] = ("cite", ["cite_text", "cite_bibtex"])


def card_sections(
    cat: i18n.Catalogue, sections: list[tuple[str, list[str]]] = CARD_SECTIONS
) -> list[dict[str, Any]]:
    """The card's sections as the page script reads them (``data-lb-sections``): a title and
    [column, label] pairs, in the catalogue's language."""
    return [
        {"title": cat.t(f"card.sections.{key}"), "fields": [[f, cat.t(f"card.fields.{f}")] for f in fields]}
        for key, fields in sections
    ]


def presets(df: pd.DataFrame, cat: i18n.Catalogue | None = None) -> list[dict[str, str]]:
    """A few ready-made explorer views, each kept only if the data has runs for it."""
    t = (cat or i18n.load(i18n.DEFAULT)).t
    candidates: list[tuple[str, list[tuple[str, str]]]] = [
        (t("widgets.preset_kisti"), [("source", "KISTI")]),
        (t("widgets.preset_h200_a100"), [("gpu", "H200 SXM 141GB"), ("gpu", "A100 SXM4 80GB")]),
    ]
    nvidia = df[df["publisher"] == "NVIDIA"]
    if not nvidia.empty:
        latest = nvidia.loc[nvidia["version_key"].idxmax(), "engine_version"]
        candidates.append(
            (t("widgets.preset_latest_nvidia", version=latest), [("source", "NVIDIA"), ("version", latest)])
        )
    candidates.append((t("widgets.preset_fp8_h200"), [("gpu", "H200 SXM 141GB"), ("precision", "FP8")]))
    out = []
    for label, pairs in candidates:
        filters: Filters = {}
        for k, v in pairs:
            filters.setdefault(k, []).append(v)
        if mask(df, filters).any():
            out.append({"label": label, "href": "?" + urlencode(pairs)})
    return out


# The memory planner's host as guide page 07 writes it (docs/guide/07-memory*.md); its form, summary and
# one row per GPU are drawn by the page script (docs/assets/js/pages/planner.js).
PLANNER_HOST = re.compile(r'<div id="llmbench-planner" class="llmbench-planner"(?=>)')


def planner_room(html: str, gpus: int | None = None) -> str:
    """The planner's host with its GPU count (``--lb-planner-gpus``, one row per GPU of the planner's data),
    from which planner.css reserves its room until the script draws it: opened at ``#planner``, the
    browser scrolls before the planner is drawn, and the text below it moved by a screen (layout shift
    0.3-0.4, issue 26). gpus: default the planner's data (``site_gen.data.memory.planner_payload``)."""
    if not PLANNER_HOST.search(html):
        return html
    if gpus is None:
        gpus = len(planner_payload()["gpus"])
    return PLANNER_HOST.sub(lambda m: f'{m.group(0)} style="--lb-planner-gpus: {int(gpus)}"', html, count=1)
