"""Figures a page quotes in its prose, computed from the data at build time (``<!-- stat: NAME -->``).

A page never writes a count or a share of the data by hand: results/ grows every week, and a figure typed
into the Markdown would be wrong after the next pull request. The marker is replaced by the figure, in
the page's language, when the site is built (``site_gen.pages.markers``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import duckdb


@dataclass(frozen=True)
class Stat:
    sql: str  # one value from the ``runs`` table of the site database
    fmt: Callable[[float], str]
    help: str


def _count(v: float) -> str:
    return f"{int(v):,}"


def _pct(v: float) -> str:
    return f"{v:.1f}%"


# The speed-of-light guide's distribution: runs with a bound, less the known source errors (errata).
_BOUND = "FROM runs WHERE pct_of_bound IS NOT NULL AND erratum IS NULL"
STATS: dict[str, Stat] = {
    "runs": Stat("SELECT count(*) FROM runs", _count, "every run on the site"),
    "bound-runs": Stat(f"SELECT count(*) {_BOUND}", _count, "runs with a bound, errata left out"),
    "bound-median": Stat(f"SELECT median(pct_of_bound) {_BOUND}", _pct, "their median % of bound"),
    "bound-p90": Stat(f"SELECT quantile_cont(pct_of_bound, 0.9) {_BOUND}", _pct, "their 90th percentile"),
    "bound-best": Stat(f"SELECT max(pct_of_bound) {_BOUND}", _pct, "their best % of bound"),
    "bound-mixed-median": Stat(
        "SELECT median(pct_of_bound) FROM runs WHERE precision = 'Mixed'", _pct, "'Mixed' runs' median"
    ),
}


class UnknownStat(KeyError):
    pass


def value(name: str, db: Path | None) -> str:
    """The figure ``name`` of the database ``db``, formatted; '–' where the data has none (no runs)."""
    if name not in STATS:
        raise UnknownStat(f"stat marker: unknown figure {name!r}; known: {', '.join(STATS)}")
    if db is None or not db.exists():
        return "–"
    stat = STATS[name]
    con = duckdb.connect(str(db), read_only=True)
    try:
        row = con.execute(stat.sql).fetchone()
    finally:
        con.close()
    return "–" if row is None or row[0] is None else stat.fmt(row[0])
