"""The MLPerf(R) Inference page: its own filter bar, best result per accelerator and benchmark, results across
rounds for one system type, and every result; read from the ``mlperf`` table only.

MLCommons' MLPerf Results Messaging Guidelines shape it: each figure's row names the submitter, the system,
the round, the division and the result ID; the page carries the footnote (suite, rounds, divisions, date and
source of retrieval, "Result verified by MLCommons Association.", the trademark legend); per-accelerator
throughput is labelled derived; open-division rows are marked; rounds are compared only where MLCommons'
compatibility table allows (``COMPATIBLE``). The tables are rendered here (every string escaped); the page
script ``docs/assets/js/mlperf.js`` only hides rows and picks the best of the visible ones.
"""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any

from site_gen.mlperf_data import TABLE

PAGE = "mlperf/index.md"  # under docs/generated/
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
UNITS = {
    "tokens_per_s": "tokens/s",
    "samples_per_s": "samples/s",
    "queries_per_s": "queries/s",
    "latency_p90_ns": "ns p90 latency",
}
OPEN_NOTE = (
    "Open division: the submitter may change the model (pruned, fine-tuned or re-quantised; the benchmark "
    "as filed says which) or its processing, so the result does not qualify as closed and is not "
    "comparable with closed results."
)


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


def _attrs(r: dict[str, Any]) -> str:
    data = {c: r[c] for c, _ in FILTERS} | {
        "metric": r["metric"],
        "value": r["value"],
        "compat": compat_key(r["benchmark_official"]) or "",
    }
    return " ".join(f'data-{k.replace("_", "-")}="{e(v)}"' for k, v in data.items())


def _row(r: dict[str, Any]) -> str:
    per_acc = (
        f"{r['tokens_per_s'] / r['total_accelerators']:,.1f}" if r["tokens_per_s"] is not None else "n/a"
    )
    division = e(r["division"])
    if r["division"] == "open":
        division = f'<span class="mlperf-open" title="{e(OPEN_NOTE)}">open ‡</span>'
    bench = e(r["benchmark_official"])
    if r["benchmark"] != r["benchmark_official"]:
        bench += f"<br><small>as filed: {e(r['benchmark'])}</small>"
    unit = UNITS[r["metric"]]
    flag = "" if r["metric"] == "tokens_per_s" else ' class="mlperf-other-metric"'
    limits = "; ".join(
        f"{name} p99 {r[f'{key}_p99_ms']:g} ms" + _limit(r[f"{key}_limit_ms"])
        for name, key in (("TTFT", "ttft"), ("TPOT", "tpot"))
        if r[f"{key}_p99_ms"] is not None
    )
    cells = [
        f'<td class="mlperf-rid">{e(r["result_id"])}</td>',
        f"<td>{e(r['round'])}</td>",
        f"<td>{division}</td>",
        f"<td>{e(r['availability'])}</td>",
        f"<td>{e(r['submitter'])}</td>",
        f"<td>{e(r['system_name'])}</td>",
        f"<td>{e(r['gpu'])}</td>",
        f"<td>{e(r['total_accelerators'])}</td>",
        f"<td>{bench}</td>",
        f"<td>{e(r['scenario'])}</td>",
        f'<td{flag} data-cell="value"><a href="{e(r["log_url"])}">{e(r["value_text"])}</a> {e(unit)}</td>',
        f"<td>{per_acc}</td>",
        f"<td>{e(r['engine'])} <small>({e(r['engine_basis'])})</small>"
        f"<br><small>{e(r['framework'])}</small></td>",
        f"<td><small>{e(limits)}</small></td>",
    ]
    return f"<tr {_attrs(r)}>{''.join(cells)}</tr>"


def _limit(v: float | None) -> str:
    return "" if v is None else f" (limit {v:g})"


HEADER = (
    "Result ID", "Round", "Division", "Availability", "Submitter", "System", "Accelerator", "Accelerators",
    "Benchmark", "Scenario", "Result (whole system)", "tokens/s per accelerator (derived †)", "Engine",
    "Latency (Server, Interactive)",
)  # fmt: skip


def _select(column: str, label: str, rows: list[dict[str, Any]]) -> str:
    values = sorted({r[column] for r in rows}, key=lambda v: (isinstance(v, str), v))
    opts = "".join(f'<option value="{e(v)}">{e(v)}</option>' for v in values)
    return (
        f'<label>{e(label)} <select data-mlperf-filter="{column.replace("_", "-")}">'
        f'<option value="">all</option>{opts}</select></label>'
    )


def footnote(rows: list[dict[str, Any]]) -> str:
    rounds = ", ".join(sorted({r["round"] for r in rows}))
    suites = " and ".join(sorted({r["suite"].capitalize() for r in rows}))
    retrieved = ", ".join(sorted({str(r["retrieved"]) for r in rows}))
    repos = ", ".join(
        f'<a href="{e(u)}">{e(u.split("/")[-1])}</a>' for u in sorted({r["repository"] for r in rows})
    )
    return (
        '<div class="mlperf-footnote" data-mlperf-footnote><p>'
        f"MLPerf® Inference: {e(suites)}, rounds {e(rounds)}, closed and open divisions; each row names its "
        "round, division, benchmark, scenario and MLPerf result ID. "
        f"Retrieved {e(retrieved)} from MLCommons' results repositories ({repos}); each figure links the "
        f"LoadGen log it was read from. {VERIFIED} "
        "† Tokens/s per accelerator is derived by llmbench (whole-system tokens/s divided by the number of "
        "accelerators) and is not an MLPerf metric. ‡ "
        f"{e(OPEN_NOTE)} Samples/s, queries/s and latency results are shown in their own unit, never as "
        f"tokens/s.</p><p>{e(TRADEMARK)}</p></div>"
    )


def render(rows: list[dict[str, Any]]) -> str:
    head = [
        "# MLPerf® Inference results",
        "",
        "Results of the MLPerf® Inference benchmark suite for LLMs, imported from MLCommons' results "
        "repositories (`llmbench import-mlperf`). They are kept apart from everything else on this site: "
        "MLCommons forbids comparing MLPerf® results with non-MLPerf figures, so no other page, chart, "
        "headline or compare view shows them, and this page shows nothing else. Every figure is the whole "
        "system's, under its scenario's rules (Offline, Server and Interactive are not interchangeable; "
        "tokens/s is not comparable across benchmarks).",
        "",
    ]
    if not rows:
        return "\n".join([*head, "No MLPerf® results in `results/mlperf/` yet.", ""])
    compat = {k: list(v) for k, v in COMPATIBLE.items()}
    body = f"""<div class="mlperf" data-mlperf data-compat="{e(json.dumps(compat))}">
<div class="mlperf-filters">{"".join(_select(c, label, rows) for c, label in FILTERS)}</div>
<p class="mlperf-count" data-mlperf-count>{len(rows):,} results</p>
<h2 id="best">Best result per accelerator and benchmark</h2>
<p>The highest whole-system tokens/s of each accelerator, benchmark and scenario among the results the
filters keep, with the submitter, system, round, division, availability and accelerator count it comes
from (pick a division: closed and open results are not comparable).</p>
<div class="mlperf-scroll">
<table class="mlperf-table" data-mlperf-best><thead><tr><th>Accelerator</th><th>Benchmark</th>
<th>Scenario</th><th>Best tokens/s (whole system)</th><th>Accelerators</th><th>Submitter</th><th>System</th>
<th>Round</th><th>Division</th><th>Availability</th><th>Result ID</th></tr></thead><tbody></tbody>
</table></div>
<h2 id="rounds">Results across rounds for one system type</h2>
<p>One accelerator at one accelerator count, per benchmark and scenario, best result of each round;
only rounds MLCommons' compatibility table allows comparing for that benchmark are shown.</p>
<label>System type <select data-mlperf-system></select></label>
<div class="mlperf-scroll">
<table class="mlperf-table" data-mlperf-rounds><thead><tr><th>Benchmark</th><th>Scenario</th>
<th>Round</th>
<th>Best tokens/s (whole system)</th><th>Submitter</th><th>System</th><th>Division</th><th>Availability</th>
<th>Result ID</th></tr></thead><tbody></tbody></table></div>
<h2 id="all">All results</h2>
<div class="mlperf-scroll"><table class="mlperf-table" data-mlperf-all><thead><tr>
{"".join(f"<th>{e(h)}</th>" for h in HEADER)}</tr></thead>
<tbody>
{chr(10).join(_row(r) for r in rows)}
</tbody></table></div>
{footnote(rows)}
</div>"""
    return "\n".join([*head, body, ""])


def pages(db: Path) -> list[tuple[str, str]]:
    """(path under docs/generated/, Markdown) of the MLPerf pages."""
    return [(PAGE, render(load(db)))]
