"""MLPerf(R) Inference results (schema_version 2 files) -> their own DuckDB table ``mlperf``, never ``runs``.

MLCommons forbids showing an MLPerf result beside a non-MLPerf figure. Keeping these rows out of ``runs``
keeps every page, view, headline, "best" and compare built on ``runs`` free of them by construction; only
the MLPerf pages (``site_gen.pages.mlperf_pages``) read this table.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from bench.contract import registry

TABLE = "mlperf"
COLUMNS: tuple[tuple[str, str], ...] = (
    ("run_id", "VARCHAR"),
    ("file", "VARCHAR"),
    ("round", "VARCHAR"),
    ("suite", "VARCHAR"),
    ("submitter", "VARCHAR"),
    ("system_id", "VARCHAR"),
    # the result file's system description: one per file, so the closed division's where a file holds
    # both divisions' results (the MLPerf page says how many open results that is)
    ("system_json_path", "VARCHAR"),
    ("system_name", "VARCHAR"),
    ("gpu", "VARCHAR"),  # canonical registry name; the label where the system mixes accelerator types
    ("gpu_label", "VARCHAR"),
    ("gpu_year", "INTEGER"),
    ("gpus_per_node", "INTEGER"),
    ("nodes", "INTEGER"),
    ("total_accelerators", "INTEGER"),
    ("benchmark", "VARCHAR"),
    ("benchmark_official", "VARCHAR"),
    ("model", "VARCHAR"),
    ("scenario", "VARCHAR"),
    ("division", "VARCHAR"),
    ("availability", "VARCHAR"),
    ("result_id", "VARCHAR"),
    ("framework", "VARCHAR"),
    ("engine", "VARCHAR"),
    ("engine_basis", "VARCHAR"),
    ("metric", "VARCHAR"),
    ("value", "DOUBLE"),
    ("value_text", "VARCHAR"),
    # value where metric is tokens_per_s, else NULL: the only column a page may show as tokens/s
    ("tokens_per_s", "DOUBLE"),
    ("tokens_inferred", "BOOLEAN"),
    ("ttft_limit_ms", "DOUBLE"),
    ("tpot_limit_ms", "DOUBLE"),
    ("ttft_p99_ms", "DOUBLE"),
    ("tpot_p99_ms", "DOUBLE"),
    ("log_url", "VARCHAR"),
    ("repository", "VARCHAR"),
    ("retrieved", "DATE"),
    ("notes", "VARCHAR"),
)


@dataclass(frozen=True)
class MlperfRows:
    """A worker's payload for one MLPerf file: its runs as table rows."""

    rows: list[dict[str, Any]]


def rows(data: dict[str, Any], file: str, ids: list[str]) -> MlperfRows:
    """One validated schema_version 2 file (plain dicts) -> one row per run."""
    m, hw, sub = data["mlperf"], data["hardware"], data["submission"]
    gpu = registry.gpus().find(hw["gpu"]) if hw["gpu"] else None
    fixed = {
        "file": file,
        "round": m["round"],
        "suite": m["suite"],
        "submitter": sub["submitter"],
        "system_id": m["system_id"],
        "system_json_path": m.get("system_json_path"),
        "gpu": gpu.name if gpu else hw["gpu_label"],
        "gpu_label": hw["gpu_label"],
        "gpu_year": gpu.year if gpu else None,
        "gpus_per_node": hw["gpus_per_node"],
        "nodes": hw["nodes"],
        "total_accelerators": hw["total_accelerators"],
        "repository": str(m["repository"]),
        "retrieved": sub["date"],
    }
    out = []
    for rid, r in zip(ids, data["runs"], strict=True):
        row = {c: r.get(c) for c, _ in COLUMNS if c in r} | fixed
        row["run_id"] = rid
        row["log_url"] = str(r["log_url"])
        row["tokens_per_s"] = r["value"] if r["metric"] == "tokens_per_s" else None
        out.append(row)
    return MlperfRows(out)


def _round_key(round_: str) -> tuple[int, ...]:
    """ "v5.1" -> (5, 1): rounds in the order MLCommons held them."""
    return tuple(int(p) for p in round_.lstrip("v").split(".") if p.isdigit())


def merge_submitters(all_rows: list[dict[str, Any]]) -> None:
    """One name per submitter (issue 26): names that differ only in case ("Oracle" in v4.1, "ORACLE" in
    v6.0) take MLCommons' spelling of its latest round among them (then the commoner, then the first in
    sort order), in place."""
    rounds: dict[str, dict[str, tuple[tuple[int, ...], int]]] = {}
    for r in all_rows:
        spellings = rounds.setdefault(r["submitter"].casefold(), {})
        last, n = spellings.get(r["submitter"], ((), 0))
        spellings[r["submitter"]] = (max(last, _round_key(r["round"])), n + 1)
    name = {
        key: max(sorted(spellings), key=lambda s, sp=spellings: sp[s])
        for key, spellings in rounds.items()
        if len(spellings) > 1
    }
    for r in all_rows:
        r["submitter"] = name.get(r["submitter"].casefold(), r["submitter"])


def create_table(con: Any, all_rows: list[dict[str, Any]]) -> None:
    """The ``mlperf`` table (empty when there are no MLPerf files: the pages then say so); submitter names
    merged across case (``merge_submitters``)."""
    import pandas as pd

    merge_submitters(all_rows)

    con.execute(f"CREATE TABLE {TABLE} ({', '.join(f'{c} {t}' for c, t in COLUMNS)})")
    if all_rows:
        df = pd.DataFrame([{c: r.get(c) for c, _ in COLUMNS} for r in all_rows])
        con.register("mlperf_df", df)
        con.execute(f"INSERT INTO {TABLE} SELECT * FROM mlperf_df")
        con.unregister("mlperf_df")
