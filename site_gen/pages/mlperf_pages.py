"""The MLPerf(R) Inference page: its own filter bar, a chart and a table of the best result per accelerator,
results across rounds for one system type, and every result; read from the ``mlperf`` table only.

MLCommons' MLPerf Results Messaging Guidelines shape it: each figure names the submitter, the system, the
round, the division and the result ID; the page and the chart's exported image carry the footnote (suite,
round, division, benchmark and scenario, date and source of retrieval, result ID, "Result verified by
MLCommons Association.", the trademark legend); per-accelerator throughput is labelled derived; the
division starts on closed and open results are marked; "best" never mixes divisions, scenarios or rounds
that MLCommons' compatibility table (``COMPATIBLE``) keeps apart.

The rows travel as one columnar data file (``site_gen.data.dataset``'s format, written to ``assets/mlperf/``,
apart from the runs' data files) that ``docs/assets/js/pages/mlperf.js`` loads once and renders: 1,116 rows as
HTML made a 1.1 MB page. Without JavaScript the page says where the figures are (the CSV sources).

A section "About these results", outside the script's part, says what the import left out and how some
rows were read: the CPU-only results of the CSV (counted from the CSV at build time, ``Sources``), the
open-division results whose file names the closed division's system description, accelerator counts
that differ from the count in the accelerator's name (AMD's "x87"/"x94" clusters) and boards counted as
one accelerator (Intel's "B60 Dual"), all computed from the rows; and where the v4.1 result IDs and the
v6.0 logs were read (the catalogue's ``mlperf.provenance``).

Languages: the page is rendered once per language from the message catalogue (``mlperf`` keys; the
script's words are ``mlperf_ui``), under ``ko/`` for Korean, all pointing at the one data file at the
site's root. What MLCommons' guidelines fix stays as they write it in every language: the trademark
legend and "Result verified by MLCommons Association." (``TRADEMARK``, ``VERIFIED``: English, with the
catalogue's gloss beside them), "MLPerf®" (never translated), and the division, category, benchmark,
scenario and round names and result IDs (data values, shown as imported).
"""

from __future__ import annotations

import csv
import html
import json
import posixpath
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from site_gen import i18n
from site_gen.data import dataset
from site_gen.data.mlperf_data import TABLE
from site_gen.i18n import Catalogue

PAGE = "mlperf/index.md"  # under docs/generated/
SEARCH_BOOST = 4  # Material's per-page search boost (front matter)
PAGE_URL = "generated/mlperf/index.html"
DATA_DIR = "assets/mlperf"  # beside, never inside, assets/data (the runs' data files: no mixing)
SOURCES = "results/sources/mlperf"  # the CSVs the results were imported from, in the repository
SOURCE_CSV = "mlperf_inference_llm_results.csv"  # in SOURCES: one row per result
# The accelerator MLCommons' CSV gives a CPU-only system. bench.importers.mlperf (CPU_ONLY) leaves these
# rows out; site_gen may not import an importer (tests/test_architecture.py), so the page counts them here
# and a test checks that both agree.
CPU_ONLY = "N/A"
# "AMD Instinct MI355X 288GB HBM3e (x87)": the accelerator count in the name as the submitter wrote it
FILED_COUNT = re.compile(r"\(x(\d+)\)")
# a board with two GPUs ("MS-Intel Arc Pro B60 Dual 48G Turbo") filed as one accelerator
DUAL_BOARD = re.compile(r"\bDual\b")
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
# (column, label key under mlperf.col in the message catalogue)
FILTERS = (
    ("benchmark_official", "benchmark"),
    ("scenario", "scenario"),
    ("round", "round"),
    ("division", "division"),
    ("availability", "availability"),
    ("submitter", "submitter"),
    ("gpu", "accelerator"),
    ("total_accelerators", "accelerators"),
    ("engine", "engine"),
)
# The filters' first state: closed division (open results only when chosen) and the benchmark and
# scenario with the most results, so the chart has something to draw on arrival.
DEFAULTS = {"division": "closed", "benchmark_official": "llama2-70b-99", "scenario": "Offline"}
NO_ALL = frozenset({"division"})  # closed and open are never shown, nor ranked, together
# Filters that take several values at once (issue 26: H200 SXM and H200 NVL side by side): ticked boxes in
# a drop-down, none ticked = all; kept in the URL as one parameter per value (?gpu=A&gpu=B).
MULTI = frozenset({"gpu"})
# The columns the page script gets (site_gen.data.dataset's columnar format).
COLUMNS = (
    "result_id", "round", "division", "availability", "submitter", "system_name", "gpu",
    "total_accelerators", "benchmark_official", "benchmark", "scenario", "metric", "value_text",
    "tokens_inferred", "engine", "engine_basis", "framework", "ttft_p99_ms", "ttft_limit_ms", "tpot_p99_ms",
    "tpot_limit_ms", "suite", "repository", "retrieved", "system_id",
)  # fmt: skip
LOG_TAIL = "/performance/run_1/mlperf_log_summary.txt"
# The tables' headers (keys under mlperf.col in the message catalogue)
BEST_HEADER = (
    "accelerator", "benchmark", "scenario", "best_tps", "per_acc", "accelerators", "submitter", "system",
    "round", "division", "availability", "result_id",
)  # fmt: skip
ROUNDS_HEADER = (
    "benchmark", "scenario", "round", "best_tps", "accelerators", "submitter", "system", "division",
    "availability", "result_id",
)  # fmt: skip
ALL_HEADER = (
    "result_id", "round", "division", "availability", "submitter", "system", "accelerator", "accelerators",
    "benchmark", "scenario", "result", "per_acc", "engine", "latency",
)  # fmt: skip
# Where the page's Markdown links go, from generated/mlperf/index.md (the i18n plugin resolves them in
# the build's language: a Korean page links Korean pages)
LINKS = {
    "cli": "../../reference/cli.md#llmbench-import-mlperf",
    "schema": "../../reference/result-schema.md#mlperf-inference-files-schema-version-2",
    "scenarios": "../../guide/12-mlperf.md",  # the guide's page on scenarios and latency limits
}


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


@dataclass(frozen=True)
class Sources:
    """What MLCommons' CSV holds that the page does not show: its result count and its CPU-only results
    per (round, benchmark), read from the CSV at build time."""

    rows: int
    cpu_only: tuple[tuple[str, str, int], ...]

    @property
    def cpu_total(self) -> int:
        return sum(n for *_, n in self.cpu_only)


def read_sources(results: Path | None) -> Sources | None:
    """The counts of ``results/sources/mlperf``'s result CSV; None where the results folder has none (a
    site built from other results says nothing about it)."""
    path = None if results is None else Path(results) / "sources" / "mlperf" / SOURCE_CSV
    if path is None or not path.is_file():
        return None
    with path.open(encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    cpu: dict[tuple[str, str], int] = {}
    for r in rows:
        if r["accelerator"] == CPU_ONLY:
            key = (r["round"], r["benchmark_official"])
            cpu[key] = cpu.get(key, 0) + 1
    return Sources(len(rows), tuple((rnd, b, n) for (rnd, b), n in sorted(cpu.items())))


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
    """The page's rows in ``site_gen.data.dataset``'s columnar format."""
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


def _html(cat: Catalogue, key: str, **markup: str) -> str:
    """A catalogue sentence as HTML: its text escaped, then its placeholders filled with ``markup``
    (escaped by the caller, or links built here)."""
    return e(cat.t(key)).format(**markup)


def _select(column: str, label: str, rows: list[dict[str, Any]], cat: Catalogue) -> str:
    values = sorted({r[column] for r in rows}, key=lambda v: (isinstance(v, str), v))
    default = DEFAULTS.get(column)
    opts = "" if column in NO_ALL else f'<option value="">{e(cat.t("mlperf.all"))}</option>'
    # the values (division, availability, benchmark, scenario, round ...) as MLCommons writes them
    opts += "".join(
        f'<option value="{e(v)}"{" selected" if v == default else ""}>{e(v)}</option>' for v in values
    )
    return f'<label>{e(label)} <select data-mlperf-filter="{column}">{opts}</select></label>'


def _multi(column: str, label: str, rows: list[dict[str, Any]], cat: Catalogue) -> str:
    """A filter of several values: a drop-down (``<details>``) of check boxes, the summary naming what is
    ticked ("All" when nothing is; docs/assets/js/views/mlperf-multi.js keeps it)."""
    values = sorted({str(r[column]) for r in rows})
    boxes = "".join(f'<label><input type="checkbox" value="{e(v)}"> {e(v)}</label>' for v in values)
    return (
        f'<div class="mlperf-multi" role="group" aria-label="{e(label)}" data-mlperf-multi="{column}">'
        f'<span aria-hidden="true">{e(label)}</span><details><summary data-mlperf-multi-summary>'
        f"{e(cat.t('mlperf.all'))}</summary>"
        f'<div class="mlperf-multi-options">{boxes}</div></details></div>'
    )


def _notice(text: str, cat: Catalogue, gloss_key: str) -> str:
    """An MLCommons-required sentence as the guidelines word it (English, marked so on another language's
    page), the catalogue's gloss beside it (none in English)."""
    if cat.lang == i18n.DEFAULT:
        return e(text)
    gloss = cat.t(gloss_key)
    return f'<span lang="en">{e(text)}</span>' + (
        f' <span class="mlperf-gloss">{e(gloss)}</span>' if gloss else ""
    )


def footnote(rows: list[dict[str, Any]], cat: Catalogue) -> str:
    """The page's footnote: suite, rounds, divisions, date and source of retrieval, verified by
    MLCommons, what is derived, and the trademark legend, in MLCommons' English plus the page's gloss."""
    rounds = ", ".join(sorted({r["round"] for r in rows}))
    suites = cat.t("mlperf_ui.suitesJoin").join(sorted({r["suite"].capitalize() for r in rows}))
    retrieved = ", ".join(sorted({str(r["retrieved"])[:10] for r in rows}))
    repos = ", ".join(
        f'<a href="{e(u)}">{e(u.split("/")[-1])}</a>' for u in sorted({r["repository"] for r in rows})
    )
    open_note = e(cat.t("mlperf.open_note"))
    return (
        '<div class="mlperf-footnote" data-mlperf-footnote><p>'
        f"{_html(cat, 'mlperf.foot_suite', suites=e(suites), rounds=e(rounds))} "
        f"{_html(cat, 'mlperf.foot_retrieved', retrieved=e(retrieved), repos=repos)} "
        f"{_notice(VERIFIED, cat, 'mlperf.verified_gloss')} "
        f"{_html(cat, 'mlperf.foot_derived')} ‡ {open_note} {_html(cat, 'mlperf.foot_units')}</p>"
        f"<p>{_notice(TRADEMARK, cat, 'mlperf.trademark_gloss')}</p></div>"
    )


# Where the rows of two rounds were read (results/sources/mlperf/README.md; each file's data_origin):
# round -> (catalogue key, link, link text)
PROVENANCE = {
    "v4.1": (
        "mlperf.prov_v41",
        "https://github.com/mlcommons/inference_results_v4.1/pull/2",
        "mlcommons/inference_results_v4.1#2",
    ),
    "v6.0": (
        "mlperf.prov_v60",
        "https://github.com/gbeezybez/inference_results_v6.0/tree/4d3916a",
        "gbeezybez/inference_results_v6.0@4d3916a",
    ),
}


def open_with_closed_description(rows: list[dict[str, Any]]) -> int:
    """Open-division results whose result file names the closed division's system description: a file
    holds one system's results of both divisions and names one ``system_json_path``."""
    return sum(
        r["division"] == "open" and str(r.get("system_json_path") or "").startswith("closed/") for r in rows
    )


def open_without_reason(rows: list[dict[str, Any]]) -> tuple[int, int]:
    """(open-division results that give no reason why they do not qualify as closed, all open results).

    An open result says what it changed through the benchmark as filed: a name beside the official one
    (``llama3_1-70b-fp8_dyn`` for ``llama3.1-70b``) names the changed model or processing. Filed under the
    official name itself, it names nothing, and MLCommons' files hold no other field for it."""
    opened = [r for r in rows if r["division"] == "open"]
    return sum(r["benchmark"] == r["benchmark_official"] for r in opened), len(opened)


def recounted(rows: list[dict[str, Any]]) -> list[tuple[str, int, int]]:
    """(system, count in the accelerator's name, accelerators counted) where the two differ: MLCommons'
    summary table counts nodes × accelerators per node ("x87" on 11 nodes of 8 is 88). A system mixing
    accelerator types names a count for each ("(x8) and ... (x16)"): their sum is the name's count."""
    out = set()
    for r in rows:
        filed = sum(int(n) for n in FILED_COUNT.findall(str(r.get("gpu_label") or "")))
        if filed and filed != r["total_accelerators"]:
            out.add((r["system_id"], filed, int(r["total_accelerators"])))
    return sorted(out)


def dual_boards(rows: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """(accelerator as filed, accelerator it is shown as) for boards of two GPUs counted as one."""
    return sorted(
        {(r["gpu_label"], r["gpu"]) for r in rows if DUAL_BOARD.search(str(r.get("gpu_label") or ""))}
    )


def about(rows: list[dict[str, Any]], cat: Catalogue, sources: Sources | None) -> str:
    """The "About these results" section: what was left out and how some rows were read, every count
    computed from the rows and the CSV."""
    items = []
    if sources is not None and sources.cpu_total:
        left = ", ".join(
            cat.t("mlperf.cpu_item", round=rnd, bench=b, n=f"{n:,}") for rnd, b, n in sources.cpu_only
        )
        items.append(
            _html(
                cat,
                "mlperf.cpu_note",
                csv=e(f"{sources.rows:,}"),
                cpu=e(f"{sources.cpu_total:,}"),
                items=e(left),
                n=e(f"{len(rows):,}"),
            )
        )
    if n_open := open_with_closed_description(rows):
        items.append(_html(cat, "mlperf.open_json", n=e(f"{n_open:,}")))
    silent, opened = open_without_reason(rows)
    if silent:
        items.append(_html(cat, "mlperf.open_silent", n=e(f"{silent:,}"), total=e(f"{opened:,}")))
    if counts := recounted(rows):
        listed = ", ".join(cat.t("mlperf.recount_item", system=s, filed=f, n=n) for s, f, n in counts)
        items.append(_html(cat, "mlperf.recount", items=e(listed)))
    boards = dual_boards(rows)
    for gpu in sorted({g for _, g in boards}):
        filed = " / ".join(f"“{label}”" for label, g in boards if g == gpu)
        items.append(_html(cat, "mlperf.dual", filed=e(filed), gpu=e(gpu)))
    rounds = {r["round"] for r in rows}
    for rnd, (key, url, text) in PROVENANCE.items():
        if rnd in rounds:
            items.append(_html(cat, key, link=f'<a href="{e(url)}">{e(text)}</a>'))
    if not items:
        return ""
    lis = "".join(f"<li>{i}</li>" for i in items)
    return f'<h2 id="about">{e(cat.t("mlperf.about_h"))}</h2>\n<ul class="mlperf-about">{lis}</ul>\n'


def _table(kind: str, header: tuple[str, ...], cat: Catalogue, scroll: str = "mlperf-scroll") -> str:
    head = "".join(f'<th scope="col">{e(cat.t(f"mlperf.col.{h}"))}</th>' for h in header)
    return (
        f'<div class="{scroll}" tabindex="0"><table class="mlperf-table" data-mlperf-{kind}>'
        f"<thead><tr>{head}</tr></thead><tbody></tbody></table></div>"
    )


def render(
    rows: list[dict[str, Any]],
    cat: Catalogue | None = None,
    data_src: str = "",
    data_key: str = "",
    sources_url: str = "",
    sources: Sources | None = None,
) -> str:
    """The page's Markdown in the catalogue's language (English by default); ``sources``: the counts of
    MLCommons' CSV (what the page leaves out), when the build has it."""
    cat = cat or i18n.load(i18n.DEFAULT)
    # search: "MLPerf" finds this page before the guide's MLPerf chapter (tests/site/test_search.py)
    # no table of contents beside it: the 14-column tables take the page's width (issue 26)
    head = [
        "---",
        f"search: {{boost: {SEARCH_BOOST}}}",
        "hide: [toc]",
        "---",
        "",
        f"# {cat.t('mlperf.title')}",
        "",
    ]
    head += [cat.t("mlperf.intro", **LINKS), ""]
    if not rows:
        return "\n".join([*head, cat.t("mlperf.empty"), ""])
    compat = {k: list(v) for k, v in COMPATIBLE.items()}
    data = {"src": data_src, "key": data_key, "compat": json.dumps(compat), "trademark": TRADEMARK}
    data |= {"verified": VERIFIED, "open-note": cat.t("mlperf.open_note")}
    # an open result filed under the official benchmark name says nothing of what it changed (issue 30)
    data |= {"open-silent": cat.t("mlperf.open_silent_row")}
    data |= {
        "verified-gloss": cat.t("mlperf.verified_gloss"),
        "trademark-gloss": cat.t("mlperf.trademark_gloss"),
    }
    attrs = " ".join(f'data-{k}="{e(v)}"' for k, v in data.items())
    link = f'<a href="{e(sources_url)}">{e(SOURCES)}</a>'
    fallback = _html(cat, "mlperf.fallback", n=e(f"{len(rows):,}"), sources=link)
    if sources is not None and sources.cpu_total:
        counts = {"csv": e(f"{sources.rows:,}"), "cpu": e(f"{sources.cpu_total:,}")}
        fallback += " " + _html(cat, "mlperf.fallback_cpu", **counts)
    filters = "".join(
        (_multi if c in MULTI else _select)(c, cat.t(f"mlperf.col.{key}"), rows, cat) for c, key in FILTERS
    )

    def t(key: str) -> str:
        return e(cat.t(f"mlperf.{key}"))

    # No layout shift as the script fills the page (issue 26; Lighthouse desktop measured CLS 0.89): the
    # section is in the page from the first paint, its filters written here, the parts the script fills
    # given their room in mlperf.css. Which of the section and the words for a reader without JavaScript
    # shows is CSS's choice, by the class site_gen/theme/main.html puts on <html> before the body is
    # drawn (not <noscript>: Material's instant navigation parses pages with scripting off, which turns
    # a <noscript>'s content into elements).
    body = f"""<p class="mlperf-fallback" data-mlperf-fallback>{fallback}</p>
<div class="mlperf" data-mlperf {attrs}>
<div class="mlperf-filters">{filters}</div>
<p class="mlperf-note"><small>{t("division_note")}</small></p>
<p class="mlperf-open-note" data-mlperf-open-note hidden>‡ {t("open_note")}</p>
<p class="mlperf-count" data-mlperf-count></p>
<h2 id="chart">{t("chart_h")}</h2>
<p>{t("chart_p")}</p>
<label class="mlperf-measure">{t("measure")} <select data-mlperf-measure>
<option value="system">{t("measure_system")}</option><option value="acc">{t("measure_acc")}</option>
</select></label>
<figure class="mlperf-chart" data-mlperf-chart></figure>
<h2 id="best">{t("best_h")}</h2>
<p>{t("best_p")}</p>
{_table("best", BEST_HEADER, cat)}
<h2 id="rounds">{t("rounds_h")}</h2>
<p>{t("rounds_p")}</p>
<label>{t("system_type")} <select data-mlperf-system></select></label>
{_table("rounds", ROUNDS_HEADER, cat)}
<h2 id="all">{t("all_h")}</h2>
{_table("all", ALL_HEADER, cat, "mlperf-scroll mlperf-scroll-tall")}
</div>
{about(rows, cat, sources)}{footnote(rows, cat)}"""
    return "\n".join([*head, body, ""])


@dataclass
class Built:
    """The MLPerf rows and their one data file (name -> text), shared by every language; ``page``
    renders the page in one language."""

    rows: list[dict[str, Any]]
    files: dict[str, str] = field(default_factory=dict)
    key: str = ""
    sources_url: str = ""
    sources: Sources | None = None

    def page(self, cat: Catalogue | None = None, root: str = "") -> tuple[str, str]:
        """(path under generated/, Markdown) of the page in ``cat``'s language; ``root``: the language's
        folder ("" or "ko/"), from which the shared data file at the site's root is reached."""
        if not self.rows:
            return PAGE, render(self.rows, cat)
        name = dataset.data_name(self.key)
        src = posixpath.relpath(f"{DATA_DIR}/{name}", posixpath.dirname(root + PAGE_URL))
        return PAGE, render(self.rows, cat, src, self.key, self.sources_url, self.sources)


def build(db: Path, repo_url: str = "", branch: str = "main", results: Path | None = None) -> Built:
    """The MLPerf rows and their data file, from the ``mlperf`` table of ``db`` (read once per build);
    ``results``: the results folder whose ``sources/mlperf`` CSV the page counts what it leaves out of."""
    rows = load(db)
    if not rows:
        return Built(rows)
    key, text = dataset.data_file("mlperf", payload(rows))
    sources_url = f"{repo_url.rstrip('/')}/tree/{branch}/{SOURCES}" if repo_url else ""
    return Built(rows, {dataset.data_name(key): text}, key, sources_url, read_sources(results))
