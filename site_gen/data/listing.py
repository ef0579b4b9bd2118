"""``llmbench list``: the runs of the DuckDB database as a readable table in the terminal.

Reads the ``runs`` table built by ``ingest`` (rebuilding the database first when it is missing or older
than any file or folder under results/), filters it with parameterised SQL and renders a rich table.
Every value from a result file is shown as plain text, never interpreted as console markup.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, fields
from itertools import chain
from pathlib import Path
from typing import Any

from bench.contract import registry
from site_gen.data.dimensions import BY_LIMIT

# (header, column, kind) in table order; kind: text (may wrap), short (never wraps), int, num.
# "parallel" is computed from tp, pp, ep and attention_dp.
COLUMNS: list[tuple[str, str, str]] = [
    ("GPU", "gpu", "text"),
    ("Model", "model_name", "text"),
    ("Prec", "precision", "short"),
    ("Parallel", "parallel", "short"),
    ("ISL/OSL", "workload", "short"),
    ("Requests", "num_requests", "int"),
    ("Out tok/s", "output_tps", "num"),
    ("/GPU", "output_tps_per_gpu", "num"),
    ("/user", "output_tps_per_user", "num"),
    ("TTFT ms", "ttft_ms_avg", "num"),
    ("TPOT ms", "tpot_ms_avg", "num"),
    ("% bound", "pct_of_bound", "bound"),  # of the speed-of-light bound; "unknown" or "*" from bound_note
    ("TRT-LLM", "engine_version", "short"),
    ("Source", "publisher", "short"),
]
_SELECTED = [c for _, c, _ in COLUMNS if c != "parallel"] + [
    "tp",
    "pp",
    "ep",
    "attention_dp",
    "throughput_basis",
    "bound_note",
]
_BASIS = {"total": "output_tps", "per_gpu": "output_tps_per_gpu", "per_user": "output_tps_per_user"}


def parallel_label(tp: int, pp: int, ep: int | None, attention_dp: bool) -> str:
    """NVIDIA's notation: 'TP4', 'TP2 PP2', 'DEP8' (attention data parallel with expert parallel = TP)."""
    if attention_dp and ep == tp:
        head = f"DEP{tp}"
    else:
        head = f"TP{tp}" + (f" EP{ep}" if ep else "") + (" ADP" if attention_dp else "")
    return head + (f" PP{pp}" if pp > 1 else "")


@dataclass(frozen=True)
class Filters:
    """What ``llmbench list`` narrows the runs to; None means any."""

    gpu: str | None = None
    model: str | None = None
    precision: str | None = None
    isl: int | None = None
    osl: int | None = None
    tp: int | None = None
    source: str | None = None
    # the site's latency filters (site_gen.data.dimensions.LIMITS, same names): a run without the figure fails
    tpot_max: float | None = None
    ttft_max: float | None = None
    user_min: float | None = None

    def describe(self) -> str:
        parts = [
            f"{f.name}={getattr(self, f.name)}" for f in fields(self) if getattr(self, f.name) is not None
        ]
        return ", ".join(parts) or "none"


def is_stale(results_dir: Path, db: Path) -> bool:
    """True when the database is missing or older than anything under results/ (files or folders) or
    than a registry file."""
    if not db.exists():
        return True
    built = db.stat().st_mtime
    sources = chain([results_dir], results_dir.rglob("*"), registry.source_files())
    return any(_mtime(p) > built for p in sources)


def _mtime(path: Path) -> float:
    """A path's modification time; one removed meanwhile counts as changed now (the folder changed too)."""
    try:
        return path.stat().st_mtime
    except OSError:
        return float("inf")


def _where(f: Filters) -> tuple[str, list[Any]]:
    """SQL conditions and parameters. GPU and model names known to the registries match exactly (any
    alias works); other text matches as a case-insensitive substring."""
    conds: list[str] = []
    params: list[Any] = []
    if f.gpu:
        gpu = registry.gpus().find(f.gpu)
        conds.append("gpu = ?" if gpu else "(gpu ILIKE ? OR gpu_label ILIKE ?)")
        params += [gpu.name] if gpu else [f"%{f.gpu}%"] * 2
    if f.model:
        model = registry.models().find(f.model)
        conds.append("model = ?" if model else "(model ILIKE ? OR model_name ILIKE ? OR model_label ILIKE ?)")
        params += [model.id] if model else [f"%{f.model}%"] * 3
    if f.precision:
        conds.append("precision ILIKE ?")
        params.append(f.precision)
    for col in ("isl", "osl", "tp"):
        if getattr(f, col) is not None:
            conds.append(f"{col} = ?")
            params.append(getattr(f, col))
    if f.source:
        conds.append("(publisher ILIKE ? OR source_kind ILIKE ? OR source_title ILIKE ?)")
        params += [f"%{f.source}%"] * 3
    for key, limit in BY_LIMIT.items():
        if getattr(f, key) is not None:
            conds.append(limit.sql)
            params.append(getattr(f, key))
    return (" WHERE " + " AND ".join(conds)) if conds else "", params


def query(db: Path, filters: Filters, limit: int | None = None) -> tuple[list[dict[str, Any]], int]:
    """The matching runs (sorted for reading) and how many there are in all."""
    import duckdb

    where, params = _where(filters)
    con = duckdb.connect(str(db), read_only=True)
    # a database from an older llmbench may lack a newer column (bound_note): shown as empty, no error
    have = {r[0] for r in con.execute("DESCRIBE runs").fetchall()}
    con.close()
    cols = ", ".join(c if c in have else f"NULL AS {c}" for c in _SELECTED)
    order = "gpu_year, gpu, model_name, precision, isl, osl, n_gpus, tp, version_key, publisher, run_id"
    con = duckdb.connect(str(db), read_only=True)
    try:
        total = con.execute(f"SELECT count(*) FROM runs{where}", params).fetchone()[0]
        sql = f"SELECT {cols} FROM runs{where} ORDER BY {order}" + (f" LIMIT {int(limit)}" if limit else "")
        cur = con.execute(sql, params)
        names = [d[0] for d in cur.description]
        rows = [dict(zip(names, r, strict=True)) for r in cur.fetchall()]
        for r in rows:
            r["parallel"] = parallel_label(r["tp"], r["pp"], r["ep"], r["attention_dp"])
    finally:
        con.close()
    return rows, total


CAPTION = (
    "bold: figure as published. % bound: of the speed-of-light bound; unknown: the registry lacks a"
    " figure it needs; *: the bound may be low for this run (speculative decoding, prefix reuse or"
    " release 0.10's admission)"
)


def _bound_cell(r: dict[str, Any]) -> str:
    """The % of bound as the site shows it: "unknown" without a bound, a "*" where it may be low."""
    pct, note = r["pct_of_bound"], r["bound_note"]
    if pct is None:
        return "unknown" if note else "–"
    return f"{pct:.0f}" + (" *" if note else "")


def _cell(value: Any, kind: str) -> str:
    if value is None:
        return "–"
    if kind == "num":
        return f"{value:,.0f}" if value >= 100 else f"{value:,.1f}"
    if kind == "int":
        return f"{value:,}"
    # defence in depth: validate refuses control characters, but a database built by an older version may
    # hold them, and a terminal obeys them (colours, OSC 8 links, cursor moves)
    return _UNPRINTABLE.sub(lambda m: ascii(m.group())[1:-1], str(value))


_UNPRINTABLE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def table(rows: list[dict[str, Any]], title: str) -> Any:
    """A rich Table of the rows; every cell is plain Text (no markup from the data). Columns empty in every
    row are left out; the throughput figure the source gave is bold, the derived one is not."""
    from rich.table import Table
    from rich.text import Text

    def text(r: dict[str, Any], col: str, kind: str) -> str:
        return _bound_cell(r) if kind == "bound" else _cell(r[col], kind)

    shown = [
        (h, c, k)
        for h, c, k in COLUMNS
        if any(r[c] is not None or (k == "bound" and r["bound_note"]) for r in rows)
    ]
    caption = CAPTION if any(k == "bound" for _, _, k in shown) else CAPTION.split(".")[0]
    t = Table(title=Text(title), header_style="bold", pad_edge=False, caption=Text(caption))
    for header, col, kind in shown:
        numeric = kind in ("int", "num", "bound")
        # Only names wrap, and only between words: a narrow terminal folds the table, never a word.
        words = [w for r in rows for w in text(r, col, kind).split()] + [header]
        t.add_column(
            header,
            justify="right" if numeric else "left",
            no_wrap=kind != "text",
            min_width=min(max(map(len, words)), 20),
        )
    for r in rows:
        given = _BASIS.get(r["throughput_basis"])
        t.add_row(*(Text(text(r, c, k), style="bold" if c == given else "") for _, c, k in shown))
    return t


def no_match_hint(filters: Filters) -> str:
    """When nothing matches: the registry's closest names for a GPU or model filter it does not know."""
    hints = []
    if filters.gpu and registry.gpus().find(filters.gpu) is None:
        hints.append(f"GPU {filters.gpu!r}: closest known {', '.join(registry.gpus().suggest(filters.gpu))}")
    if filters.model and registry.models().find(filters.model) is None:
        near = ", ".join(registry.models().suggest(filters.model))
        hints.append(f"model {filters.model!r}: closest known {near}")
    return "; ".join(hints)
