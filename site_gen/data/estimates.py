"""Estimates in the site database: modelled result files in their own table, never among the runs.

A ``source.kind: modelled`` file (``llmbench estimate``: AIConfigurator's performance model) is checked
like any result file but its runs go to the ``estimates`` table, never to ``runs``. Everything that
aggregates (bests, records, headline counts, compare pairs, step detection, the data-quality gate's
neighbours, the speed-of-light medians) reads ``runs`` only, so an estimate cannot count as a
measurement by construction rather than by a filter each page must remember.

``runs_and_estimates`` is a view of both with a ``basis`` column (measured, published, estimated) and
each estimate's error band (``est_*``: its category, the pairs it was validated on, the median and
p10/p90 of the signed error, the confidence), for pages that show estimates beside measurements (the
explorer, behind its off-by-default "Source kind" switch; the advisor).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

TABLE = "estimates"
VIEW = "runs_and_estimates"
KIND = "modelled"  # source_kind of an estimate (the result file's source.kind)
BASIS = {"measured": "measured", "published": "published", KIND: "estimated"}

# The band and provenance of each estimate, beside the run columns (NULL for measured and published runs
# in the view).
EXTRA_COLUMNS: list[tuple[str, str]] = [
    ("est_band", "VARCHAR"),  # the band in words, for the run card and the table (``band_text``)
    ("est_category", "VARCHAR"),
    ("est_pairs", "INTEGER"),
    ("est_median", "DOUBLE"),
    ("est_p10", "DOUBLE"),
    ("est_p90", "DOUBLE"),
    ("est_confidence", "VARCHAR"),  # validated, low, unvalidated (bench.engines.estimate_bands)
    ("est_estimator", "VARCHAR"),  # "aiconfigurator 0.12.0; h200_sxm/trtllm 1.3.0rc20"
    ("est_version", "VARCHAR"),  # the estimator's own version ("0.12.0"), for the tables' badge
    ("est_pct", "INTEGER"),  # the badge's ±N % (``band_percent``); NULL without a band
    ("est_search", "VARCHAR"),  # how batch size and context tokens were chosen
    ("est_mapping", "VARCHAR"),  # the mapping choices, "key: value; ..."
]


@dataclass(frozen=True)
class EstimateRows:
    """A checked modelled file's payload: its runs' columns (as for ``runs``) and the estimate columns."""

    file_values: dict[str, Any]
    run_columns: dict[str, list[Any]]
    extra: dict[str, list[Any]]


def extra_columns(data: dict[str, Any]) -> dict[str, list[Any]]:
    """The ``est_*`` columns of a validated modelled file (data as dicts), one list per column."""
    estr = data["submission"]["source"]["estimator"]
    versions = "; ".join(f"{k} {v}" for k, v in sorted(estr["perf_data_versions"].items()))
    who = f"{estr['name']} {estr['version']}; {versions}"
    cols: dict[str, list[Any]] = {c: [] for c, _ in EXTRA_COLUMNS}
    for r in data["runs"]:
        e = r["estimate"]
        band = e.get("band") or {}
        cols["est_category"].append(band.get("category"))
        cols["est_pairs"].append(band.get("pairs", 0))
        for k in ("median", "p10", "p90"):
            cols[f"est_{k}"].append(band.get(k))
        # a file written before bands existed has none: it is shown as unvalidated, never as validated
        conf = band.get("confidence", "unvalidated")
        cols["est_confidence"].append(conf)
        cols["est_band"].append(
            band_text(
                band.get("median"),
                band.get("p10"),
                band.get("p90"),
                band.get("pairs", 0),
                conf,
                band.get("reason"),
            )
        )
        cols["est_estimator"].append(who)
        cols["est_version"].append(str(estr["version"]))
        cols["est_pct"].append(band_percent(band.get("p10"), band.get("p90")) if band.get("pairs") else None)
        cols["est_search"].append(e.get("search"))
        cols["est_mapping"].append("; ".join(f"{k}: {v}" for k, v in e["mapping"].items()) or None)
    return cols


def create(con: Any, payloads: list[EstimateRows], run_columns: list[tuple[str, str]]) -> int:
    """The ``estimates`` table (empty when there are none) and the ``runs_and_estimates`` view."""
    import pandas as pd

    cols = [*run_columns, *EXTRA_COLUMNS]
    con.execute(f"CREATE TABLE {TABLE} ({', '.join(f'{c} {t}' for c, t in cols)})")
    n = 0
    if payloads:
        frames = []
        for p in payloads:
            k = len(p.run_columns["run_id"])
            d: dict[str, list[Any]] = {}
            for c, _ in run_columns:
                d[c] = p.run_columns[c] if c in p.run_columns else [p.file_values.get(c)] * k
            d.update(p.extra)
            frames.append(pd.DataFrame(d))
        df = pd.concat(frames, ignore_index=True)
        con.register("estimates_df", df)
        names = ", ".join(c for c, _ in cols)
        con.execute(f"INSERT INTO {TABLE} SELECT {names} FROM estimates_df")
        con.unregister("estimates_df")
        n = len(df)
    basis = " ".join(f"WHEN '{k}' THEN '{v}'" for k, v in BASIS.items())
    con.execute(
        f"CREATE VIEW {VIEW} AS SELECT *, CASE source_kind {basis} END AS basis FROM "
        f"(SELECT * FROM runs UNION ALL BY NAME SELECT * FROM {TABLE})"
    )
    return n


def band_percent(p10: float | None, p90: float | None) -> int | None:
    """The badge's N in "±N % on comparable published runs": the larger of |p10| and |p90| of the signed
    error of the estimate's category in whole per cent, so that 8 in 10 of its comparable published runs
    were within ±N % of their estimates. One integer column is all the explorer's data needs for the badge
    (its three float band columns cost about 24 KB each, null for every run)."""
    if p10 is None or p90 is None:
        return None
    return round(100 * max(abs(p10), abs(p90)))


def band_text(
    median: float | None,
    p10: float | None,
    p90: float | None,
    pairs: int,
    conf: str,
    reason: str | None = None,
) -> str:
    """'median +2 % (p10 -12 %, p90 +18 %) over 41 published runs', or for a band without pairs its file's
    own reason (the vLLM and SGLang estimates say why nothing validates them) or 'unvalidated: no comparable
    published run'."""
    if not pairs or median is None or p10 is None or p90 is None:
        return reason or "unvalidated: no comparable published run"
    low = "; low confidence" if conf == "low" else ""
    return f"median {median:+.0%} (p10 {p10:+.0%}, p90 {p90:+.0%}) over {pairs} published runs{low}"


@dataclass(frozen=True)
class EngineCount:
    """One engine's estimates in the database: how many, and how many of them carry a measured band
    (``est_pairs`` > 0: their category has published runs to compare with)."""

    engine: str  # the engine column's id: tensorrt-llm, vllm, sglang
    version: str  # its release(s) as the Version filter names them, "vLLM 0.24.0" (", " between several)
    estimates: int
    with_pairs: int


def engine_counts(db: Path) -> list[EngineCount]:
    """The estimates per engine, the most first (the accuracy page's "By engine" section)."""
    import duckdb

    with duckdb.connect(str(db), read_only=True) as con:
        rows = con.execute(
            f"SELECT engine, string_agg(DISTINCT engine_version, ', ' ORDER BY engine_version),"
            f" count(*), count(*) FILTER (WHERE est_pairs > 0) FROM {TABLE}"
            " GROUP BY engine ORDER BY count(*) DESC, engine"
        ).fetchall()
    return [EngineCount(e, v, int(n), int(p)) for e, v, n, p in rows]
