"""The speed-of-light bound as columns of the DuckDB ``runs`` table.

The model itself is ``bench/contract/bound.py`` (``llmbench validate`` checks runs against it too); its
names are re-exported here for the site's code and tests. ``add_columns`` writes ``bound_output_tps``,
``pct_of_bound`` and ``bound_note`` (why a run has no bound, or why its bound may be low for it: codes of
``bench.contract.bound.NOTES``, joined by ",").
"""

from __future__ import annotations

from typing import Any

from bench.contract.bound import (
    NOTES,
    UNKNOWN,
    Bound,
    GpuFigures,
    RunShape,
    _experts_touched,
    _parts,
    attention_flops_per_pair,
    bound_caveats,
    bound_for_config,
    max_batch,
    output_tps_bound,
    peak_tflops,
    unknown_reason,
)

__all__ = [
    "NOTES",
    "UNKNOWN",
    "Bound",
    "GpuFigures",
    "RunShape",
    "_experts_touched",
    "_parts",
    "add_columns",
    "attention_flops_per_pair",
    "bound_caveats",
    "bound_for_config",
    "max_batch",
    "output_tps_bound",
    "peak_tflops",
    "unknown_reason",
]

_CONFIG_COLUMNS = (
    "gpu",
    "model",
    "precision",
    "kv_cache_dtype",
    "isl",
    "osl",
    "n_gpus",
    "concurrency",
    "num_requests",
)
_CAVEAT_COLUMNS = ("notes", "extra_options", "engine_version", "benchmark_tool")


def add_columns(con: Any, known: str | None = None) -> None:
    """Add ``bound_output_tps``, ``pct_of_bound`` and ``bound_note`` to the ``runs`` table of an open DuckDB
    connection.

    The bound is computed once per distinct configuration (a few hundred even for 100k runs), then
    joined back in SQL. ``pct_of_bound`` = 100 x output_tps / bound_output_tps; null where the run has
    no all-GPU throughput (per-user-only sources), the weights don't fit the registry's memory or the
    registry lacks a figure the bound needs. ``bound_note``: for a run with a throughput but no bound,
    "unknown-peak" or "unknown-fit"; for a run the model cannot bound (speculative decoding, prefix
    reuse, release 0.10's admission), those codes joined by "," (bench.contract.bound.bound_caveats).

    ``known``: an attached database written by the same code and registries (``site_gen.data.reuse``),
    whose bounds are taken for the configurations it has: a million synthetic runs have 104,000
    configurations, 2.7 s of Python to bound again after a pull request that changed ten files.
    """
    import numpy as np
    import pandas as pd

    from bench.contract import registry

    configs = _configs(con, known)
    gpus = {g.name: g for g in registry.gpus().entries}
    models = {m.id: m for m in registry.models().entries}
    bounds = configs.pop("known").astype("float64").to_numpy(copy=True)  # NaN: not known, to compute
    unknown: list[str | None] = [None] * len(configs)
    todo = np.flatnonzero(np.isnan(bounds))
    for i, config in zip(todo, configs.iloc[todo].to_dict("records"), strict=True):
        b = bound_for_config(config, gpus, models)
        bounds[i] = b.output_tps if b else np.nan
        unknown[i] = None if b else unknown_reason(config, gpus, models)
    configs["bound_output_tps"] = bounds
    configs["bound_unknown"] = pd.Series(unknown, index=configs.index, dtype="object")
    con.execute("ALTER TABLE runs ADD COLUMN IF NOT EXISTS bound_output_tps DOUBLE")
    con.execute("ALTER TABLE runs ADD COLUMN IF NOT EXISTS pct_of_bound DOUBLE")
    con.execute("ALTER TABLE runs ADD COLUMN IF NOT EXISTS bound_note VARCHAR")
    con.register("bound_configs", configs)
    try:
        on = " AND ".join(f"runs.{c} IS NOT DISTINCT FROM b.{c}" for c in _CONFIG_COLUMNS)
        con.execute(
            f"UPDATE runs SET bound_output_tps = b.bound_output_tps, "
            f"pct_of_bound = 100 * runs.output_tps / b.bound_output_tps, "
            f"bound_note = CASE WHEN runs.output_tps IS NOT NULL THEN b.bound_unknown END "
            f"FROM bound_configs b WHERE {on}"
        )
    finally:
        con.unregister("bound_configs")
    _add_caveats(con)


def _configs(con: Any, known: str | None) -> Any:
    """Each distinct configuration of ``runs``, with its bound in ``known`` where that database has one
    (column ``known``, else null)."""
    cols = ", ".join(_CONFIG_COLUMNS)
    if known is None:
        return con.execute(f"SELECT DISTINCT {cols}, NULL::DOUBLE AS known FROM runs").fetchdf()
    on = " AND ".join(f"c.{c} IS NOT DISTINCT FROM k.{c}" for c in _CONFIG_COLUMNS)
    return con.execute(
        f"SELECT c.*, k.bound_output_tps AS known FROM (SELECT DISTINCT {cols} FROM runs) c"
        f" LEFT JOIN (SELECT DISTINCT {cols}, bound_output_tps FROM {known}.runs"
        f" WHERE bound_output_tps IS NOT NULL) k ON {on}"
    ).fetchdf()


def _add_caveats(con: Any) -> None:
    """Write the caveats of runs that have a bound into ``bound_note`` (one call per distinct input)."""
    import pandas as pd

    have = {r[0] for r in con.execute("DESCRIBE runs").fetchall()}
    if not have & set(_CAVEAT_COLUMNS):
        return  # a runs table without them (tests/perf/bench_bound.py's synthetic one): nothing to name
    cols = ", ".join(c if c in have else f"NULL::VARCHAR AS {c}" for c in _CAVEAT_COLUMNS)
    rows = con.execute(f"SELECT DISTINCT {cols} FROM runs WHERE pct_of_bound IS NOT NULL").fetchall()
    found = [(*r, ",".join(bound_caveats(*r))) for r in rows]
    found = [f for f in found if f[-1]]
    if not found:
        return
    df = pd.DataFrame(found, columns=[*_CAVEAT_COLUMNS, "caveat"])
    con.register("bound_caveats", df)
    try:
        on = " AND ".join(f"runs.{c} IS NOT DISTINCT FROM c.{c}" for c in _CAVEAT_COLUMNS if c in have)
        con.execute(
            f"UPDATE runs SET bound_note = c.caveat FROM bound_caveats c WHERE runs.pct_of_bound IS NOT NULL"
            f" AND {on}"
        )
    finally:
        con.unregister("bound_caveats")
