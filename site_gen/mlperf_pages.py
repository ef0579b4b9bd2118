"""The MLPerf(R) Inference page: its own filter bar, a chart and a table of the best result per accelerator,
results across rounds for one system type, and every result; read from the ``mlperf`` table only.

MLCommons' MLPerf Results Messaging Guidelines shape it: each figure names the submitter, the system, the
round, the division and the result ID; the page and the chart's exported image carry the footnote (suite,
round, division, benchmark and scenario, date and source of retrieval, result ID, "Result verified by
MLCommons Association.", the trademark legend); per-accelerator throughput is labelled derived; the
division starts on closed and open results are marked; "best" never mixes divisions, scenarios or rounds
that MLCommons' compatibility table (``COMPATIBLE``) keeps apart.

The rows travel as one columnar data file (``site_gen.dataset``'s format, written to ``assets/mlperf/``,
apart from the runs' data files) that ``docs/assets/js/mlperf.js`` loads once and renders: 1,116 rows as
HTML made a 1.1 MB page. Without JavaScript the page says where the figures are (the CSV sources).
"""

from __future__ import annotations

import html
import json
import posixpath
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from site_gen import dataset
from site_gen.mlperf_data import TABLE

PAGE = "mlperf/index.md"  # under docs/generated/
PAGE_URL = "generated/mlperf/index.html"
DATA_DIR = "assets/mlperf"  # beside, never inside, assets/data (the runs' data files: no mixing)
SOURCES = "results/sources/mlperf"  # the CSVs the results were imported from, in the repository
TRADEMARK = (
    "The MLPerf name and logo are registered and unregistered trademarks of MLCommons Association in the "
    "United States and other countries. All rights reserved. Unauthorized use strictly prohibited. See "
    "www.mlcommons.org for more information."
)
VERIFIED = "Result verified by MLCommons Association."
# Rounds whose results MLCommons allows comparing, per benchmark (MLPerf Results Messaging Guidelines):
# (first, last) round, inclusive. A benchmark not listed is never compared across rounds.
COMPATIBLE = {
    "llama2-70b": ("4.0", "6.0"),
    "mixtral-8x7b": ("4.1", "6.0"),
    "llama3.1-405b": ("5.0", "6.0"),
    "llama3.1-8b": ("5.1", "6.0"),
    "deepseek-r1": ("5.1", "6.0"),
    "gptj": ("3.1", "5.0"),
    "gpt-oss-120b": ("6.0", "6.0"),
}
FILTERS = (
    ("benchmark_official", "Benchmark"),
    ("scenario", "Scenario"),
    ("round", "Round"),
    ("division", "Division"),
    ("availability", "Availability"),
    ("submitter", "Submitter"),
    ("gpu", "Accelerator"),
    ("total_accelerators", "Accelerators"),
    ("engine", "Engine"),
)
# The filters' first state: closed division (open results only when chosen) and the benchmark and
# scenario with the most results, so the chart has something to draw on arrival.
DEFAULTS = {"division": "closed", "benchmark_official": "llama2-70b-99", "scenario": "Offline"}
NO_ALL = frozenset({"division"})  # closed and open are never shown, nor ranked, together
# The columns the page script gets (site_gen.dataset's columnar format).
COLUMNS = (
    "result_id", "round", "division", "availability", "submitter", "system_name", "gpu",
    "total_accelerators", "benchmark_official", "benchmark", "scenario", "metric", "value_text",
    "tokens_inferred", "engine", "engine_basis", "framework", "ttft_p99_ms", "ttft_limit_ms", "tpot_p99_ms",
    "tpot_limit_ms", "suite", "repository", "retrieved", "system_id",
)  # fmt: skip
LOG_TAIL = "/performance/run_1/mlperf_log_summary.txt"
OPEN_NOTE = (
    "Open division: the submitter may change the model (pruned, fine-tuned or re-quantised; the benchmark "
    "as filed says which) or its processing, so the result does not qualify as closed and is not "
    "comparable with closed results."
)
# Every sentence this module writes on the page, in one place (a translation replaces this dict).
UI = {
    "title": "MLPerf® Inference results",
    "intro": (
        "Results of the MLPerf® Inference benchmark suite for LLMs, imported from MLCommons' results "
        "repositories (`llmbench import-mlperf`). They are kept apart from everything else on this site: "
        "MLCommons forbids comparing MLPerf® results with non-MLPerf figures, so no other page, chart, "
        "headline or compare view shows them, and this page shows nothing else. Every figure is the whole "
        "system's, under its scenario's rules (Offline, Server and Interactive are not interchangeable; "
        "tokens/s is not comparable across benchmarks)."
    ),
    "empty": "No MLPerf® results in `results/mlperf/` yet.",
    "fallback": (
        "This page draws its tables and chart with JavaScript, which is off or did not load. The {n} "
        'results are in the CSV files they were imported from (<a href="{csv}">{sources}</a>), one row per '
        "result with its result ID, submitter, system, round, division and the link to its LoadGen log."
    ),
    "all": "all",
    "division_note": (
        "Closed division by default. Open-division results are shown only when you choose “open”, "
        "and never ranked with closed ones."
    ),
    "chart_h": "Best result per accelerator",
    "chart_p": (
        "The chosen benchmark and scenario, one bar per accelerator: its best result among those the "
        "filters keep, labelled with the submitter, system, round, accelerator count and result ID. "
        "Bars differ in round, availability and accelerator count as their labels say; the division is "
        "the one chosen; rounds are pooled only where MLCommons allows comparing them."
    ),
    "measure": "Bar length",
    "measure_system": "tokens/s, whole system (the MLPerf metric)",
    "measure_acc": "tokens/s per accelerator (derived, not an MLPerf metric)",
    "best_h": "Best result per accelerator and benchmark",
    "best_p": (
        "The highest whole-system tokens/s of each accelerator, benchmark and scenario among the results "
        "the filters keep (the chart's figures, and those of every other benchmark and scenario chosen)."
    ),
    "rounds_h": "Results across rounds for one system type",
    "rounds_p": (
        "One accelerator at one accelerator count, per benchmark and scenario, best result of each round; "
        "only rounds MLCommons' compatibility table allows comparing for that benchmark are shown."
    ),
    "system_type": "System type",
    "all_h": "All results",
}
BEST_HEADER = (
    "Accelerator", "Benchmark", "Scenario", "Best tokens/s (whole system)",
    "tokens/s per accelerator (derived †)", "Accelerators", "Submitter", "System", "Round", "Division",
    "Availability", "Result ID",
)  # fmt: skip
ROUNDS_HEADER = (
    "Benchmark", "Scenario", "Round", "Best tokens/s (whole system)", "Accelerators", "Submitter", "System",
    "Division", "Availability", "Result ID",
)  # fmt: skip
ALL_HEADER = (
    "Result ID", "Round", "Division", "Availability", "Submitter", "System", "Accelerator", "Accelerators",
    "Benchmark", "Scenario", "Result (whole system)", "tokens/s per accelerator (derived †)", "Engine",
    "Latency (Server, Interactive)",
)  # fmt: skip


def e(v: Any) -> str:
    return "" if v is None else html.escape(str(v), quote=True)


def load(db: Path) -> list[dict[str, Any]]:
    """Every MLPerf row, newest round first, then benchmark, scenario and value (highest first)."""
    import duckdb

    if not Path(db).exists():
        return []
    con = duckdb.connect(str(db), read_only=True)
    try:
        if not con.execute(
            "SELECT count(*) FROM information_schema.tables WHERE table_name = ?", [TABLE]
        ).fetchone()[0]:
            return []
        cur = con.execute(
            f"SELECT * FROM {TABLE} ORDER BY round DESC, benchmark_official, scenario, value DESC, result_id"
        )
        cols = [d[0] for d in cur.description]
        return [dict(zip(cols, r, strict=True)) for r in cur.fetchall()]
    finally:
        con.close()


def compat_key(benchmark_official: str) -> str | None:
    """The compatibility-table entry a benchmark belongs to (llama2-70b-99.9 -> llama2-70b)."""
    for key in COMPATIBLE:
        if benchmark_official.startswith(key):
            return key
    return None


def _ms(v: float | None) -> str | None:
    """A latency as ``%g`` prints it: the importer's figure, not rounded to the data file's 2 places."""
    return None if v is None or v != v else f"{v:g}"


def _log_parts(r: dict[str, Any]) -> tuple[str, str | None]:
    """A log URL as (head, middle), the middle None where it is ``system_id/benchmark/scenario`` (1,071 of
    1,116): the head (repository, division, submitter) repeats, so it is dictionary-encoded, and the page
    script rebuilds the rest (``LOG_TAIL`` is dropped when present; a middle starting with "=" is a whole
    URL that does not follow the pattern)."""
    url = r["log_url"]
    head, sep, middle = url.partition("/results/")
    if not sep or not middle.endswith(LOG_TAIL):
        return "", "=" + url
    middle = middle.removesuffix(LOG_TAIL)
    return head + sep, None if middle == f"{r['system_id']}/{r['benchmark']}/{r['scenario']}" else middle


def payload(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The page's rows in ``site_gen.dataset``'s columnar format."""
    import pandas as pd

    cols: dict[str, list[Any]] = {c: [r[c] for r in rows] for c in COLUMNS}
    for c in ("ttft_p99_ms", "ttft_limit_ms", "tpot_p99_ms", "tpot_limit_ms"):
        cols[c] = [_ms(v) for v in cols[c]]
    cols["retrieved"] = [str(v)[:10] for v in cols["retrieved"]]
    parts = [_log_parts(r) for r in rows]
    cols["log_head"] = [h for h, _ in parts]
    cols["log_path"] = [m for _, m in parts]
    df = pd.DataFrame(cols)
    df["total_accelerators"] = df["total_accelerators"].astype("int64")
    df["tokens_inferred"] = df["tokens_inferred"].fillna(False).astype(bool)
    return dataset.encode(df)


def _select(column: str, label: str, rows: list[dict[str, Any]]) -> str:
    values = sorted({r[column] for r in rows}, key=lambda v: (isinstance(v, str), v))
    default = DEFAULTS.get(column)
    opts = "" if column in NO_ALL else f'<option value="">{e(UI["all"])}</option>'
    opts += "".join(
        f'<option value="{e(v)}"{" selected" if v == default else ""}>{e(v)}</option>' for v in values
    )
    return f'<label>{e(label)} <select data-mlperf-filter="{column}">{opts}</select></label>'


def footnote(rows: list[dict[str, Any]]) -> str:
    rounds = ", ".join(sorted({r["round"] for r in rows}))
    suites = " and ".join(sorted({r["suite"].capitalize() for r in rows}))
    retrieved = ", ".join(sorted({str(r["retrieved"])[:10] for r in rows}))
    repos = ", ".join(
        f'<a href="{e(u)}">{e(u.split("/")[-1])}</a>' for u in sorted({r["repository"] for r in rows})
    )
    return (
        '<div class="mlperf-footnote" data-mlperf-footnote><p>'
        f"MLPerf® Inference: {e(suites)}, rounds {e(rounds)}, closed and open divisions; each figure names "
        "its round, division, benchmark, scenario and MLPerf result ID. "
        f"Retrieved {e(retrieved)} from MLCommons' results repositories ({repos}); each figure links the "
        f"LoadGen log it was read from. {VERIFIED} "
        "† Tokens/s per accelerator is derived by llmbench (whole-system tokens/s divided by the number of "
        "accelerators) and is not an MLPerf metric. ‡ "
        f"{e(OPEN_NOTE)} Samples/s, queries/s and latency results are shown in their own unit, never as "
        f"tokens/s.</p><p>{e(TRADEMARK)}</p></div>"
    )


def _table(kind: str, header: tuple[str, ...], scroll: str = "mlperf-scroll") -> str:
    head = "".join(f'<th scope="col">{e(h)}</th>' for h in header)
    return (
        f'<div class="{scroll}" tabindex="0"><table class="mlperf-table" data-mlperf-{kind}>'
        f"<thead><tr>{head}</tr></thead><tbody></tbody></table></div>"
    )


@dataclass
class Built:
    """The MLPerf pages (path under docs/generated/, Markdown) and their data files (name -> text)."""

    pages: list[tuple[str, str]]
    files: dict[str, str] = field(default_factory=dict)


def render(rows: list[dict[str, Any]], data_src: str = "", data_key: str = "", sources_url: str = "") -> str:
    head = [f"# {UI['title']}", "", UI["intro"], ""]
    if not rows:
        return "\n".join([*head, UI["empty"], ""])
    compat = {k: list(v) for k, v in COMPATIBLE.items()}
    data = {"src": data_src, "key": data_key, "compat": json.dumps(compat), "trademark": TRADEMARK}
    data |= {"verified": VERIFIED, "open-note": OPEN_NOTE}
    attrs = " ".join(f'data-{k}="{e(v)}"' for k, v in data.items())
    fallback = UI["fallback"].format(n=f"{len(rows):,}", csv=e(sources_url), sources=e(SOURCES))
    body = f"""<p class="mlperf-fallback" data-mlperf-fallback>{fallback}</p>
<div class="mlperf" data-mlperf hidden {attrs}>
<div class="mlperf-filters">{"".join(_select(c, label, rows) for c, label in FILTERS)}</div>
<p class="mlperf-note"><small>{e(UI["division_note"])}</small></p>
<p class="mlperf-open-note" data-mlperf-open-note hidden>‡ {e(OPEN_NOTE)}</p>
<p class="mlperf-count" data-mlperf-count></p>
<h2 id="chart">{e(UI["chart_h"])}</h2>
<p>{e(UI["chart_p"])}</p>
<label class="mlperf-measure">{e(UI["measure"])} <select data-mlperf-measure>
<option value="system">{e(UI["measure_system"])}</option><option value="acc">{e(UI["measure_acc"])}</option>
</select></label>
<figure class="mlperf-chart" data-mlperf-chart></figure>
<h2 id="best">{e(UI["best_h"])}</h2>
<p>{e(UI["best_p"])}</p>
{_table("best", BEST_HEADER)}
<h2 id="rounds">{e(UI["rounds_h"])}</h2>
<p>{e(UI["rounds_p"])}</p>
<label>{e(UI["system_type"])} <select data-mlperf-system></select></label>
{_table("rounds", ROUNDS_HEADER)}
<h2 id="all">{e(UI["all_h"])}</h2>
{_table("all", ALL_HEADER, "mlperf-scroll mlperf-scroll-tall")}
</div>
{footnote(rows)}"""
    return "\n".join([*head, body, ""])


def build(db: Path, repo_url: str = "", branch: str = "main") -> Built:
    """The MLPerf page and its data file, from the ``mlperf`` table of ``db``."""
    rows = load(db)
    if not rows:
        return Built([(PAGE, render(rows))])
    key, text = dataset.data_file("mlperf", payload(rows))
    src = posixpath.relpath(f"{DATA_DIR}/{key}.js", posixpath.dirname(PAGE_URL))
    sources_url = f"{repo_url.rstrip('/')}/tree/{branch}/{SOURCES}" if repo_url else ""
    return Built([(PAGE, render(rows, src, key, sources_url))], {f"{key}.js": text})
