"""The speed-of-light bound as columns of the DuckDB ``runs`` table.

The model itself is ``bench/contract/bound.py`` (``llmbench validate`` checks runs against it too); its
names are re-exported here for the site's code and tests. ``add_columns`` writes ``bound_output_tps``,
``pct_of_bound`` and ``bound_note`` (why a run has no bound, or why its bound may be low for it: codes of
``bench.contract.bound.NOTES``, joined by ",").
"""

from __future__ import annotations

from typing import Any

from bench.contract import modelmath as memory
from bench.contract import registry
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
from bench.contract.quality import ceiling

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
    "file_bounds",
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


Config = tuple[Any, ...]  # a configuration's values, in ``_CONFIG_COLUMNS`` order (the ``runs`` table's)


def file_bounds(
    data: dict[str, Any], fixed: dict[str, Any], cols: dict[str, list[Any]]
) -> dict[Config, float]:
    """The bound of each configuration of a checked file's runs, made in the checking worker for
    ``add_columns`` (``data``: validated dicts; ``fixed`` and ``cols``: its ``runs`` values, from
    ``site_gen.data.load``). The quality check (``bench.contract.quality.ceiling``) has just computed it
    there, so it is a lookup, where the ingest's parent computed every configuration again, on one core,
    after the workers (1M runs: 88,572 configurations, ~1.5 s). Only where the GPU has a dense tensor
    TFLOP/s for the precision and the weights fit: the ceiling is then the bound (the same function of
    the same values); the others are left to ``add_columns``, which names why a run has none."""
    hw, m = data["hardware"], data["model"]
    g, arch = registry.gpus().get(hw["gpu"]), memory.registry_arch(registry.models().get(m["id"]))
    if peak_tflops(g.tflops_dense, m["weight_precision"], arch) is None:
        return {}
    shapes = zip(*(cols[c] for c in _CONFIG_COLUMNS[4:]), strict=True)  # isl ... num_requests
    out: dict[Config, float] = {}
    for shape in dict.fromkeys(shapes):
        b = ceiling(hw["gpu"], m["id"], m["weight_precision"], m["kv_cache_dtype"], *shape)
        if b is not None:
            out[(fixed["gpu"], fixed["model"], fixed["precision"], fixed["kv_cache_dtype"], *shape)] = b
    return out


def add_columns(con: Any, known: str | None = None, computed: dict[Config, float] | None = None) -> None:
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
    ``computed``: bounds the checking workers made (``file_bounds``), taken likewise.
    """
    import numpy as np
    import pandas as pd

    configs = _configs(con, known, computed or {})
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


def _configs(con: Any, known: str | None, computed: dict[Config, float]) -> Any:
    """Each distinct configuration of ``runs``, with its bound in ``known`` where that database has one,
    else in ``computed`` where that has it (column ``known``, else null)."""
    import pyarrow as pa

    cols = ", ".join(_CONFIG_COLUMNS)
    sources = []  # (configuration, bound_output_tps) tables, the first that has a configuration wins
    if known is not None:
        sources.append(
            f"(SELECT DISTINCT {cols}, bound_output_tps FROM {known}.runs WHERE bound_output_tps IS NOT NULL)"
        )
    if computed:
        values = [*zip(*computed, strict=True), list(computed.values())]  # column by column
        names = [*_CONFIG_COLUMNS, "bound_output_tps"]
        con.register("bound_computed", pa.table(dict(zip(names, values, strict=True))))
        sources.append("bound_computed")
    bounds = ", ".join(f"k{i}.bound_output_tps" for i in range(len(sources)))
    sql = f"SELECT c.*, COALESCE({bounds or 'NULL'}, NULL)::DOUBLE AS known"
    sql += f" FROM (SELECT DISTINCT {cols} FROM runs) c"
    for i, table in enumerate(sources):
        on = " AND ".join(f"c.{c} IS NOT DISTINCT FROM k{i}.{c}" for c in _CONFIG_COLUMNS)
        sql += f" LEFT JOIN {table} k{i} ON {on}"
    try:
        return con.execute(sql).fetchdf()
    finally:
        if computed:
            con.unregister("bound_computed")


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
