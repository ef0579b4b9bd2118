"""results/ -> one DuckDB file: every run as one flat row, plus the registries.

``ingest`` checks every result file (in parallel worker processes when there are many), and only if all of
them are valid and no run is duplicated does it build a new database beside the target and rename it into
place: a bad file leaves the previous database untouched. Derived columns are added here once, so every
page and query agrees on them: GPU count, output tokens/s both over all GPUs and per GPU (whichever the
source gave), the workload label ("128/128"), the GPU architecture and a sortable engine version.

Tables: ``runs`` (one row per run), ``gpus`` and ``models`` (the registries), ``meta`` (one row).
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench import registry
from bench.errors import UserError
from bench.resultfile import Outcome, Problem, check_many, find_duplicates, iter_result_files, run_id
from bench.schema import SCHEMA_VERSION, ResultFile
from site_gen import bound

DEFAULT_DB = Path("build/llmbench.duckdb")
PERCENTILES = ("avg", "p50", "p90", "p95", "p99", "min", "max")


class IngestError(UserError):
    """The results did not validate; carries every problem."""

    def __init__(self, problems: list[Problem]) -> None:
        super().__init__(f"{len(problems)} problem(s) in results; database left unchanged")
        self.problems = problems


@dataclass(frozen=True)
class IngestReport:
    files: int
    runs: int
    db: Path


def version_key(version: str) -> str:
    """A string that sorts engine versions numerically: '0.9' < '0.10.0' < '1.2'."""
    nums = [int(n) for n in re.findall(r"\d+", version.split(" ")[0])[:3]]
    nums += [0] * (3 - len(nums))
    return ".".join(f"{n:04d}" for n in nums)


def flatten(result: ResultFile, file: str, run_ids: list[str] | None = None) -> list[dict[str, Any]]:
    """One flat dict per run, with the registries' canonical names and the derived columns."""
    sub, hw, sw, m = result.submission, result.hardware, result.software, result.model
    gpu = registry.gpus().get(hw.gpu)
    arch = registry.models().get(m.id)
    common = {
        "file": file,
        "source_kind": sub.source.kind,
        "publisher": sub.source.publisher,
        "source_title": sub.source.title,
        "source_url": str(sub.source.url) if sub.source.url else None,
        "submitter": sub.submitter,
        "system": sub.system,
        "date": sub.date,
        "gpu": gpu.name,
        "gpu_label": hw.gpu_label,
        "architecture": gpu.architecture,
        "gpu_year": gpu.year,
        "gpu_memory_gb": gpu.memory_gb,
        "hbm_bandwidth_tb_s": gpu.hbm_bandwidth_tb_s,
        "gpus_per_node": hw.gpus_per_node,
        "nodes": hw.nodes,
        "interconnect": hw.interconnect,
        "engine": sw.engine,
        "engine_version": sw.engine_version,
        "version_key": version_key(sw.engine_version),
        "workflow": sw.workflow,
        "benchmark_tool": sw.benchmark_tool,
        "container_image": sw.container_image,
        "model": arch.id,
        "model_name": arch.name,
        "model_label": m.label,
        "checkpoint": m.checkpoint,
        "precision": m.weight_precision,
        "kv_cache_dtype": m.kv_cache_dtype,
        "weights": m.weights,
    }
    ids = run_ids or [run_id(result, i) for i in range(len(result.runs))]
    return [_run_row(result, i, ids[i], common) for i in range(len(result.runs))]


def _run_row(result: ResultFile, i: int, rid: str, common: dict[str, Any]) -> dict[str, Any]:
    run = result.runs[i]
    p, w, e, mt = run.parallelism, run.workload, run.engine_settings, run.metrics
    n_gpus = p.tp * p.pp
    total, per_gpu = mt.output_tokens_per_s, mt.output_tokens_per_s_per_gpu
    basis = "total" if total is not None else "per_gpu" if per_gpu is not None else "per_user"
    row = {
        "run_id": rid,
        **common,
        "run_index": i,
        "tp": p.tp,
        "pp": p.pp,
        "ep": p.ep,
        "attention_dp": p.attention_dp,
        "n_gpus": n_gpus,
        "isl": w.isl,
        "osl": w.osl,
        "workload": f"{w.isl}/{w.osl}",
        "num_requests": w.num_requests,
        "concurrency": w.concurrency,
        "dataset": w.dataset,
        "streaming": w.streaming,
        "max_batch_size": e.max_batch_size,
        "max_num_tokens": e.max_num_tokens,
        "kv_cache_free_gpu_mem_fraction": e.kv_cache_free_gpu_mem_fraction,
        "extra_options": json.dumps(e.extra, sort_keys=True) if e.extra else None,
        "throughput_basis": basis,
        "output_tps": total if total is not None else (per_gpu * n_gpus if per_gpu is not None else None),
        "output_tps_per_gpu": per_gpu
        if per_gpu is not None
        else (total / n_gpus if total is not None else None),
        "output_tps_per_user": mt.output_tokens_per_s_per_user,
        "total_tps": mt.total_tokens_per_s,
        "requests_per_s": mt.requests_per_s,
        "duration_s": mt.duration_s,
        "timestamp": run.timestamp,
        "command": run.command,
        "notes": run.notes,
    }
    for name in ("ttft_ms", "tpot_ms", "request_latency_ms"):
        pct = getattr(mt, name)
        for k in PERCENTILES:
            row[f"{name}_{k}"] = getattr(pct, k) if pct is not None else None
    return row


def _rows(result: ResultFile, file: str, run_ids: list[str]) -> list[tuple]:
    """Worker payload: the file's runs as tuples in RUN_COLUMNS order (cheap to send between processes)."""
    return [tuple(row.values()) for row in flatten(result, file, run_ids)]


def collect(results_dir: Path, paths: Sequence[Path] | None = None) -> tuple[list[Outcome], list[Problem]]:
    """Check all result files under ``results_dir`` and flatten them; return outcomes and every problem."""
    files = list(iter_result_files(paths or [results_dir]))
    outcomes = check_many(files, results_dir, payload_fn=_rows)
    problems = [p for o in outcomes for p in o.problems] + find_duplicates(outcomes, results_dir)
    return outcomes, problems


def ingest(results_dir: Path, db: Path = DEFAULT_DB) -> IngestReport:
    """Build the DuckDB database from results/, all or nothing."""
    outcomes, problems = collect(results_dir)
    if problems:
        raise IngestError(problems)
    rows = [row for o in outcomes if o.payload for row in o.payload]
    write_db(rows, db)
    return IngestReport(files=len(outcomes), runs=len(rows), db=db)


def write_db(rows: list[dict[str, Any]], db: Path) -> None:
    """Write rows and registries to a new database file, then rename it over ``db``."""
    import duckdb
    import pandas as pd

    db.parent.mkdir(parents=True, exist_ok=True)
    tmp = db.with_name(f".{db.name}.{os.getpid()}.tmp")
    tmp.unlink(missing_ok=True)
    try:
        con = duckdb.connect(str(tmp))
        try:
            names = [c for c, _ in RUN_COLUMNS]
            con.execute(f"CREATE TABLE runs ({', '.join(f'{c} {t}' for c, t in RUN_COLUMNS)})")
            if rows:
                runs_df = pd.DataFrame.from_records(rows, columns=names)
                con.register("runs_df", runs_df)
                con.execute("INSERT INTO runs SELECT * FROM runs_df")
                con.unregister("runs_df")
            bound.add_columns(con)  # bound_output_tps, pct_of_bound (site_gen/bound.py)
            for table, records in (
                ("gpus", [_gpu_row(g) for g in registry.gpus().entries]),
                ("models", [_model_row(m) for m in registry.models().entries]),
            ):
                con.register(f"{table}_df", pd.DataFrame(records))
                con.execute(f"CREATE TABLE {table} AS SELECT * FROM {table}_df")
            con.execute(
                "CREATE TABLE meta AS SELECT ?::INTEGER AS schema_version, ?::TIMESTAMP AS ingested_at,"
                " ?::INTEGER AS runs",
                [SCHEMA_VERSION, dt.datetime.now(dt.UTC).replace(tzinfo=None), len(rows)],
            )
        finally:
            con.close()
        os.replace(tmp, db)
    finally:
        tmp.unlink(missing_ok=True)


def _percentile_columns() -> list[tuple[str, str]]:
    return [(f"{n}_{k}", "DOUBLE") for n in ("ttft_ms", "tpot_ms", "request_latency_ms") for k in PERCENTILES]


# The runs table's schema, in column order; flatten() must produce exactly these keys (tested).
RUN_COLUMNS: list[tuple[str, str]] = [
    ("run_id", "VARCHAR"),
    ("file", "VARCHAR"),
    ("source_kind", "VARCHAR"),
    ("publisher", "VARCHAR"),
    ("source_title", "VARCHAR"),
    ("source_url", "VARCHAR"),
    ("submitter", "VARCHAR"),
    ("system", "VARCHAR"),
    ("date", "DATE"),
    ("gpu", "VARCHAR"),
    ("gpu_label", "VARCHAR"),
    ("architecture", "VARCHAR"),
    ("gpu_year", "INTEGER"),
    ("gpu_memory_gb", "DOUBLE"),
    ("hbm_bandwidth_tb_s", "DOUBLE"),
    ("gpus_per_node", "INTEGER"),
    ("nodes", "INTEGER"),
    ("interconnect", "VARCHAR"),
    ("engine", "VARCHAR"),
    ("engine_version", "VARCHAR"),
    ("version_key", "VARCHAR"),
    ("workflow", "VARCHAR"),
    ("benchmark_tool", "VARCHAR"),
    ("container_image", "VARCHAR"),
    ("model", "VARCHAR"),
    ("model_name", "VARCHAR"),
    ("model_label", "VARCHAR"),
    ("checkpoint", "VARCHAR"),
    ("precision", "VARCHAR"),
    ("kv_cache_dtype", "VARCHAR"),
    ("weights", "VARCHAR"),
    ("run_index", "INTEGER"),
    ("tp", "INTEGER"),
    ("pp", "INTEGER"),
    ("ep", "INTEGER"),
    ("attention_dp", "BOOLEAN"),
    ("n_gpus", "INTEGER"),
    ("isl", "INTEGER"),
    ("osl", "INTEGER"),
    ("workload", "VARCHAR"),
    ("num_requests", "INTEGER"),
    ("concurrency", "INTEGER"),
    ("dataset", "VARCHAR"),
    ("streaming", "BOOLEAN"),
    ("max_batch_size", "INTEGER"),
    ("max_num_tokens", "INTEGER"),
    ("kv_cache_free_gpu_mem_fraction", "DOUBLE"),
    ("extra_options", "VARCHAR"),
    ("throughput_basis", "VARCHAR"),
    ("output_tps", "DOUBLE"),
    ("output_tps_per_gpu", "DOUBLE"),
    ("output_tps_per_user", "DOUBLE"),
    ("total_tps", "DOUBLE"),
    ("requests_per_s", "DOUBLE"),
    ("duration_s", "DOUBLE"),
    ("timestamp", "TIMESTAMP"),
    ("command", "VARCHAR"),
    ("notes", "VARCHAR"),
    *_percentile_columns(),
]


def _gpu_row(g: registry.Gpu) -> dict[str, Any]:
    row = g.model_dump(exclude={"aliases", "tflops_dense"})
    row.update({f"tflops_{k.lower()}": v for k, v in g.tflops_dense.items()})
    return row


def _model_row(m: registry.ModelArch) -> dict[str, Any]:
    row = m.model_dump(exclude={"aliases"})
    row["kv_elements_per_token"] = m.kv_elements_per_token
    return row
