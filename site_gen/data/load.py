"""results/ -> one DuckDB file: every run as one flat row, plus the registries.

``ingest`` checks every result file (in parallel worker processes when there are many), and only if all of
them are valid and no run is duplicated does it build a new database beside the target and rename it into
place: a bad file leaves the previous database untouched. Derived columns are added here once, so every
page and query agrees on them: GPU count, output tokens/s both over all GPUs and per GPU (whichever the
source gave), the workload label ("128/128"), the GPU architecture and a sortable engine version.

Speed: workers flatten each valid file into Arrow columns (submission-level values once per file, run-level
values as arrays), so little crosses the process boundary and DuckDB reads the columns without copying;
the ``runs`` table is then one SQL join of the run columns with their file's values.

Tables: ``runs`` (one row per run, columns ``RUN_COLUMNS``, in file and run order), ``gpus`` and ``models``
(the registries), ``meta`` (one row), ``files`` (each file whose runs are in ``runs`` and the SHA-256 of its
bytes). The next ingest copies the runs of the files unchanged since (``site_gen.data.reuse``).

One writer at a time: ``ingest`` holds ``db_lock`` (an exclusive ``flock`` on ``.<db>.lock`` beside the
database) while it checks, writes and renames, and the site build and the MkDocs hooks hold it while they
ingest and take their ``snapshot`` (a hard link to the database file as it is then). Every write is a new
file renamed over the name, so a snapshot keeps the database it was taken of: a site is generated from one
whole database, the one its own build ingested, whatever another ingest of the same file does meanwhile.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import errno
import fcntl
import json
import logging
import os
import re
import shutil
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import closing, contextmanager
from dataclasses import dataclass, field
from itertools import chain
from pathlib import Path
from typing import Any

from bench.contract import destinations, registry
from bench.contract.resultfile import (
    DuplicateFinder,
    Outcome,
    Skipped,
    iter_outcomes,
    no_cyclic_gc,
    run_ids,
    scan,
)
from bench.contract.schema import ERRATUM_MARKER, SCHEMA_VERSION, ResultFile, is_mlperf
from bench.errors import ProblemsError, UserError
from site_gen.data import bound, estimates, mlperf_data, reuse
from site_gen.data.dimensions import TRTLLM, release_label

log = logging.getLogger(__name__)

DEFAULT_DB = Path("build/llmbench.duckdb")
LOCK_TIMEOUT_S = 600.0  # an ingest takes seconds; a lock held this long belongs to a hung process
PERCENTILES = ("avg", "p50", "p90", "p95", "p99", "min", "max")
LATENCIES = ("ttft_ms", "tpot_ms", "request_latency_ms")


@dataclass(frozen=True)
class IngestReport:
    files: int
    runs: int
    db: Path
    skipped: list[Skipped] = field(default_factory=list)  # entries of results/ the scan passed over
    reused: int = 0  # files unchanged since the previous ingest, their runs copied (site_gen.data.reuse)


def version_key(version: str, engine: str = TRTLLM) -> str:
    """A string that sorts engine versions numerically: '0.9' < '0.10.0' < '1.2'. Another engine's
    releases sort after TensorRT-LLM's, by engine ('~vllm 0000.0024.0000'), so the Version filter lists
    them apart rather than vLLM 0.24.0 between TensorRT-LLM 0.21.0 and 1.0.0."""
    nums = [int(n) for n in re.findall(r"\d+", version.split(" ")[0])[:3]]
    nums += [0] * (3 - len(nums))
    key = ".".join(f"{n:04d}" for n in nums)
    return key if engine == TRTLLM else f"~{engine} {key}"


def file_values(data: dict[str, Any], file: str) -> dict[str, Any]:
    """The submission-level columns of a file's runs (validated data as dicts), registry names resolved."""
    sub, hw, sw, m = data["submission"], data["hardware"], data["software"], data["model"]
    src = sub["source"]
    gpu = registry.gpus().get(hw["gpu"])
    arch = registry.models().get(m["id"])
    return {
        "file": file,
        "source_kind": src["kind"],
        "publisher": src["publisher"],
        "source_title": src["title"],
        "source_url": str(src["url"]) if src["url"] is not None else None,
        "submitter": sub["submitter"],
        "system": sub["system"],
        "date": sub["date"],
        "gpu": gpu.name,
        "gpu_label": hw["gpu_label"],
        "architecture": gpu.architecture,
        "gpu_year": gpu.year,
        "gpu_memory_gb": gpu.memory_gb,
        "hbm_bandwidth_tb_s": gpu.hbm_bandwidth_tb_s,
        "gpus_per_node": hw["gpus_per_node"],
        "nodes": hw["nodes"],
        "interconnect": hw["interconnect"],
        "engine": sw["engine"],
        "engine_version": release_label(sw["engine_version"], sw["engine"]),
        # the file's own spelling, kept (for the run card) only where its number differs from the one shown
        "engine_version_file": None
        if release_label(sw["engine_version"]) == sw["engine_version"]
        else sw["engine_version"],
        "version_key": version_key(sw["engine_version"], sw["engine"]),
        "workflow": sw["workflow"],
        "benchmark_tool": sw["benchmark_tool"],
        "container_image": sw["container_image"],
        "model": arch.id,
        "model_name": arch.name,
        "model_label": m["label"],
        "checkpoint": m["checkpoint"],
        "precision": m["weight_precision"],
        "kv_cache_dtype": m["kv_cache_dtype"],
        "weights": m["weights"],
        "site_url": str(src["site_url"]) if src["site_url"] is not None else None,
        "source_notes": src["notes"],
        # the commands the source page gives (one per line), shown on the run card under Reproduce
        "source_commands": "\n".join(src["commands"]) if src.get("commands") else None,
    }


def _erratum(notes: str) -> str | None:
    """A run note's erratum (bench.contract.schema.ERRATUM_MARKER): what the site flags next to the figure."""
    return notes.split(ERRATUM_MARKER, 1)[1] if ERRATUM_MARKER in notes else None


def run_columns(data: dict[str, Any], ids: list[str]) -> dict[str, list[Any]]:
    """The run-level columns of a file, one list per column, derived columns included."""
    runs = data["runs"]
    par = [r["parallelism"] for r in runs]
    wl = [r["workload"] for r in runs]
    es = [r["engine_settings"] for r in runs]
    mt = [r["metrics"] for r in runs]
    tp, pp = [p["tp"] for p in par], [p["pp"] for p in par]
    n_gpus = [t * p for t, p in zip(tp, pp, strict=True)]
    total = [m["output_tokens_per_s"] for m in mt]
    per_gpu = [m["output_tokens_per_s_per_gpu"] for m in mt]
    isl, osl = [w["isl"] for w in wl], [w["osl"] for w in wl]
    notes = [r["notes"] for r in runs]
    cols: dict[str, list[Any]] = {
        "run_id": ids,
        "run_index": list(range(len(runs))),
        "tp": tp,
        "pp": pp,
        "ep": [p["ep"] for p in par],
        "attention_dp": [p["attention_dp"] for p in par],
        "n_gpus": n_gpus,
        "isl": isl,
        "osl": osl,
        "workload": [f"{i}/{o}" for i, o in zip(isl, osl, strict=True)],
        "num_requests": [w["num_requests"] for w in wl],
        "concurrency": [w["concurrency"] for w in wl],
        "dataset": [w["dataset"] for w in wl],
        "streaming": [w["streaming"] for w in wl],
        "max_batch_size": [e["max_batch_size"] for e in es],
        "max_num_tokens": [e["max_num_tokens"] for e in es],
        "kv_cache_free_gpu_mem_fraction": [e["kv_cache_free_gpu_mem_fraction"] for e in es],
        "extra_options": [json.dumps(e["extra"], sort_keys=True) if e["extra"] else None for e in es],
        # Which figure the source gave; the other one is derived from it with the run's GPU count.
        "throughput_basis": [
            "total" if t is not None else "per_gpu" if g is not None else "per_user"
            for t, g in zip(total, per_gpu, strict=True)
        ],
        "output_tps": [
            t if t is not None else g * n if g is not None else None
            for t, g, n in zip(total, per_gpu, n_gpus, strict=True)
        ],
        "output_tps_per_gpu": [
            g if g is not None else t / n if t is not None else None
            for t, g, n in zip(total, per_gpu, n_gpus, strict=True)
        ],
        "output_tps_per_user": [m["output_tokens_per_s_per_user"] for m in mt],
        "total_tps": [m["total_tokens_per_s"] for m in mt],
        "requests_per_s": [m["requests_per_s"] for m in mt],
        "duration_s": [m["duration_s"] for m in mt],
        "timestamp": [_utc_naive(r["timestamp"]) for r in runs],
        "command": [r["command"] for r in runs],
        "notes": notes,
        "erratum": [_erratum(n) if n else None for n in notes],  # a call only for runs with notes
        "input_stdev": [w["input_stdev"] for w in wl],
        "output_stdev": [w["output_stdev"] for w in wl],
    }
    for name in LATENCIES:
        pcts = [m[name] for m in mt]
        for k in PERCENTILES:
            cols[f"{name}_{k}"] = [p[k] if p is not None else None for p in pcts]
    cols |= spread_columns(runs, n_gpus, data["submission"]["source"]["kind"] == "measured")
    return cols


def spread_columns(runs: list[dict[str, Any]], n_gpus: list[int], measured: bool) -> dict[str, list[Any]]:
    """How many samples each figure is (the median of), and the lowest and highest repetition's throughput.

    A run with ``repetitions`` has that many samples; another measured run is one sample (1); a published
    run is null: its source prints one number and says nothing of how many runs it is. The spread is null
    for a single sample. Per GPU is derived from all GPUs as the run's own figure is (``output_tps``).
    """
    out: dict[str, list[Any]] = {c: [] for c, _ in SPREAD_COLUMNS}
    for run, n in zip(runs, n_gpus, strict=True):
        reps = run["repetitions"] or []
        out["samples"].append(len(reps) if reps else 1 if measured else None)
        total = [_all_gpus(r["metrics"], n) for r in reps]
        total = [t for t in total if t is not None] if len(reps) > 1 else []
        user = [r["metrics"]["output_tokens_per_s_per_user"] for r in reps]
        user = [u for u in user if u is not None] if len(reps) > 1 else []
        for key, values, scale in (("output_tps", total, 1), ("output_tps_per_gpu", total, n)):
            out[f"{key}_min"].append(min(values) / scale if values else None)
            out[f"{key}_max"].append(max(values) / scale if values else None)
        out["output_tps_per_user_min"].append(min(user) if user else None)
        out["output_tps_per_user_max"].append(max(user) if user else None)
    return out


def _all_gpus(m: dict[str, Any], n_gpus: int) -> float | None:
    """A repetition's output tokens/s over all GPUs (from per GPU when that is what it gives)."""
    if m["output_tokens_per_s"] is not None:
        return float(m["output_tokens_per_s"])
    return m["output_tokens_per_s_per_gpu"] * n_gpus if m["output_tokens_per_s_per_gpu"] is not None else None


def _utc_naive(t: dt.datetime | None) -> dt.datetime | None:
    """Timestamps are stored as UTC without a zone (DuckDB TIMESTAMP)."""
    if t is None or t.tzinfo is None:
        return t
    return t.astimezone(dt.UTC).replace(tzinfo=None)


def flatten(result: ResultFile, file: str, ids: list[str] | None = None) -> list[dict[str, Any]]:
    """One flat dict per run of a model, keys in ``RUN_COLUMNS`` order (the same values ``ingest`` stores)."""
    data = result.model_dump()
    fixed = file_values(data, file)
    cols = run_columns(data, ids or run_ids(data))
    return [
        {c: fixed[c] if c in fixed else cols[c][i] for c, _ in RUN_COLUMNS} for i in range(len(result.runs))
    ]


def _payload(data: dict[str, Any], file: str, ids: list[str]) -> Any:
    """Worker payload: the file's values once, its runs as columns of plain values, and the bounds of
    its configurations (``bound.file_bounds``).

    Plain lists pickle smaller and faster than Arrow arrays, and keep pyarrow (and the pandas it imports,
    ~0.3 s) out of the workers: the parent converts whole batches while the workers go on checking.
    An MLPerf file (schema_version 2) gives its rows for the separate ``mlperf`` table instead.
    """
    if is_mlperf(data):
        return mlperf_data.rows(data, file, ids)
    if data["submission"]["source"]["kind"] == estimates.KIND:
        # estimates are not measurements: their own table, never `runs` (site_gen/data/estimates.py)
        return estimates.EstimateRows(
            file_values(data, file), run_columns(data, ids), estimates.extra_columns(data)
        )
    fixed, cols = file_values(data, file), run_columns(data, ids)
    return fixed, cols, bound.file_bounds(data, fixed, cols)


# Runs per INSERT while the workers go on checking (bounds the parent's memory). Small, because the batch
# still pending when the last file arrives is converted and inserted after the workers are done, on one
# core: with 50,000 that tail was ~0.5 s of a 2.6 s ingest of 100k runs, with 10,000 it is ~0.06 s.
_BATCH_RUNS = 10_000
# Runs per transaction. A commit of each INSERT made DuckDB write (and at its WAL's threshold checkpoint)
# 100 times at 1M runs: 11.8 s of inserts alone on the parent's core, and the parent, not the checking
# workers, bounded the ingest (32.8 s). A transaction per 250,000 runs: the inserts 3.2 s, the ingest
# 21-22 s. DuckDB holds a transaction's rows in memory: the ingest's peak 0.91 -> 1.21 GB (one
# transaction for all of them: 1.75 GB, and growing with the data).
_COMMIT_RUNS = 250_000
_PREVIOUS = "previous"  # the previous database, attached read-only while its unchanged files' runs are copied


# --- one writer at a time, and snapshots ------------------------------------------------------------

_held: dict[Path, int] = {}  # lock files this process holds -> depth (flock is per open file: a second
# open in the same process would wait for itself, so an ingest inside the hooks' hold just goes on)


def lock_path(db: Path) -> Path:
    db = Path(os.path.abspath(db))
    return db.with_name(f".{db.name}.lock")


def flock_wait(f: Any, path: Path, timeout: float, waiting_for: str, holder: str) -> None:
    """Take an exclusive ``flock`` on the open file ``f`` (lock file ``path``), saying once on stderr that
    it waits for ``waiting_for``; a ``UserError`` naming ``holder`` after ``timeout`` seconds (a hung one)."""
    deadline, told = time.monotonic() + timeout, False
    while True:
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            if not told:
                print(f"waiting for {waiting_for} to finish ...", file=sys.stderr)
                told = True
            if time.monotonic() > deadline:
                raise UserError(f"{path}: still locked by {holder} after {timeout:.0f} s") from None
            time.sleep(0.1)


@contextmanager
def db_lock(db: Path, timeout: float = LOCK_TIMEOUT_S) -> Iterator[None]:
    """Hold ``.<db>.lock`` (an exclusive ``flock``, released by the kernel if this process dies):
    ingests, site builds and MkDocs builds of one database file wait for each other. Re-entrant within
    a process."""
    path = lock_path(db)
    if path in _held:
        _held[path] += 1
        try:
            yield
        finally:
            _held[path] -= 1
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a+") as f:
        flock_wait(f, path, timeout, f"another ingest or build of {db}", "another ingest")
        _held[path] = 1
        try:
            yield
        finally:
            del _held[path]
            fcntl.flock(f, fcntl.LOCK_UN)


def snapshot_path(db: Path) -> Path:
    """This process's snapshot of ``db``: ``.<db>.<pid>.snap`` beside it (a killed process's is removed
    by the next ingest)."""
    return db.with_name(f".{db.name}.{os.getpid()}.snap")


def snapshot(db: Path, to: Path) -> Path:
    """Make ``to`` the database ``db`` is now; call with ``db_lock`` held. A hard link: an ingest replaces
    the name ``db`` with a new file and never writes the old one, so ``to`` keeps these contents. Where
    the file system has no hard links, a copy."""
    to.unlink(missing_ok=True)
    try:
        os.link(db, to)
    except OSError as e:
        if e.errno not in (errno.EPERM, errno.EXDEV, errno.EMLINK, errno.ENOTSUP, errno.EOPNOTSUPP):
            raise
        shutil.copyfile(db, to)
    return to


def ingest(results_dir: Path, db: Path = DEFAULT_DB, snapshot_to: Path | None = None) -> IngestReport:
    """Build the DuckDB database from results/, all or nothing, holding ``db_lock``.

    With ``snapshot_to``, that path becomes a ``snapshot`` of the new database within the same hold of
    the lock: what this ingest wrote, whatever another one writes next.
    """
    destinations.check_db_target(db)  # before the lock file is made beside it
    with db_lock(db):
        report = _ingest(results_dir, db)
        if snapshot_to is not None:
            snapshot(db, snapshot_to)
        return report


def _ingest(results_dir: Path, db: Path) -> IngestReport:
    """The ingest itself (``db_lock`` held).

    The workers start first, on the files changed since the previous ingest (``site_gen.data.reuse``:
    the runs of the others are copied from the previous database); the new database file is set up and
    runs are inserted, in file order, while later files are still being checked. If any file has a
    problem, or a run is duplicated, the new file is deleted and ``db`` is left as it was.
    """
    found = scan([results_dir])
    files = found.files
    if found.problems and not files:
        raise ProblemsError(found.problems, "in results; database left unchanged")
    if not files:  # never replace a database with an empty one because of a wrong --results
        raise UserError(f"no result files (*.yaml) in {results_dir}; database left unchanged")
    ordered = sorted(files, key=str)  # the order the workers yield in
    names = [_name(p, results_dir) for p in ordered]
    sums = dict(zip(names, reuse.digests(ordered), strict=True))
    outcomes: list[Outcome] = []
    duplicates = DuplicateFinder(results_dir)  # fed as outcomes arrive: no pass over every id at the end
    with DbWriter(db) as writer:
        reused = writer.previous(sums)
        todo = [p for p, n in zip(ordered, names, strict=True) if n not in reused]
        checked = iter_outcomes(todo, results_dir, _payload)  # workers start now
        rows = _Rows(writer)
        with closing(checked), no_cyclic_gc():
            for o in _in_name_order(names, reused, checked):
                outcomes.append(Outcome(o.file, o.problems, o.run_ids))  # keep ids, drop the columns
                duplicates.add(o)
                rows.failed = rows.failed or bool(o.problems)
                rows.add(o)
        problems = found.problems + [p for o in outcomes for p in o.problems] + duplicates.problems
        if problems:
            # DbWriter deletes the new file
            raise ProblemsError(problems, "in results; database left unchanged")
        writer.use_all_cores()  # the workers are done: the rest is DuckDB's alone
        rows.flush()
        writer.merge()
        mlperf_data.create_table(writer.con, rows.mlperf)
        writer.estimates = rows.modelled
        writer.commit({n: sums[n] for n in writer.files})
    return IngestReport(
        files=len(outcomes), runs=writer.runs, db=db, skipped=found.skipped, reused=len(reused)
    )


class _Rows:
    """Each valid file's rows to their table as outcomes arrive, runs in batches; once any file has a
    problem nothing more is inserted (the ingest fails). An unchanged file's runs are copied at the end
    (``DbWriter.merge``)."""

    def __init__(self, writer: DbWriter) -> None:
        self.writer, self.failed = writer, False
        self.pending: list[tuple[dict[str, Any], dict[str, list[Any]]]] = []
        self.mlperf: list[dict[str, Any]] = []  # never in `runs` (MLCommons: no mixing)
        self.modelled: list[estimates.EstimateRows] = []  # checked like any file, never in `runs`

    def add(self, o: Outcome) -> None:
        if self.failed or o.payload is _REUSED:
            return
        if isinstance(o.payload, mlperf_data.MlperfRows):
            self.mlperf += o.payload.rows
        elif isinstance(o.payload, estimates.EstimateRows):
            self.modelled.append(o.payload)
        elif o.payload:
            fixed, cols, bounds = o.payload
            self.writer.files.append(o.file)
            self.writer.bounds.update(bounds)
            self.pending.append((fixed, cols))
            if sum(len(cols["run_id"]) for _, cols in self.pending) >= _BATCH_RUNS:
                self.flush()

    def flush(self) -> None:
        if self.pending:
            self.writer.add(arrow_tables(self.pending))
            self.pending = []


_REUSED = "reused"  # the payload of a file whose runs are copied from the previous database


def _name(path: Path, root: Path) -> str:
    """A file's name in the database and in problems: its path under results/ (as the workers name it)."""
    return str(path.relative_to(root)) if path.is_relative_to(root) else str(path)


def _in_name_order(
    names: Sequence[str], reused: dict[str, list[str]], checked: Iterator[Outcome]
) -> Iterator[Outcome]:
    """Every file's outcome in name order: the workers' for the files they check, and for a reused file
    its run ids from the previous database (no problem: it was valid then and is unchanged)."""
    for name in names:
        ids = reused.get(name)
        yield Outcome(name, [], ids, _REUSED) if ids is not None else next(checked)


def arrow_tables(payloads: Sequence[tuple[dict[str, Any], dict[str, list[Any]]]]) -> tuple[Any, Any]:
    """Payloads -> (run-level Arrow table with file_idx, file-level table with file_idx)."""
    import numpy as np
    import pyarrow as pa

    lengths = [len(cols["run_id"]) for _, cols in payloads]
    runs = pa.table(
        {
            c: pa.array(list(chain.from_iterable(cols[c] for _, cols in payloads)), type=_ARROW[c])
            for c in RUN_LEVEL
        }
        | {"file_idx": pa.array(np.repeat(np.arange(len(payloads)), lengths))}
    )
    files = pa.table(
        {c: pa.array([v[c] for v, _ in payloads], type=_ARROW[c]) for c in FILE_LEVEL}
        | {"file_idx": pa.array(np.arange(len(payloads)))}
    )
    return runs, files


class DbWriter:
    """A new database file beside ``db``: create the tables, add runs, then ``commit`` renames it over ``db``.

    Leaving the ``with`` block without ``commit`` (an exception, a problem found) deletes the new file, so
    the previous database stays byte-identical.
    """

    def __init__(self, db: Path) -> None:
        self.db, self.runs = db, 0
        self.committed = 0  # runs inserted up to the last COMMIT (``_COMMIT_RUNS``)
        self.estimates: list[estimates.EstimateRows] = []  # modelled files' runs: their own table
        self.bounds: dict[bound.Config, float] = {}  # the checking workers' (``bound.file_bounds``)
        self.files: list[str] = []  # the files whose runs are in ``runs``, in name order
        # the previous database's unchanged files and their run ids; it is attached while not empty
        self.reused: dict[str, list[str]] = {}
        self.target = "runs"  # where ``add`` inserts
        self.tmp = db.with_name(f".{db.name}.{os.getpid()}.tmp")
        self.fingerprint = reuse.fingerprint(SCHEMA_VERSION)

    def __enter__(self) -> DbWriter:
        import duckdb

        self.con: Any = None
        destinations.check_db_target(self.db)  # never replace a file that is not a database
        try:
            self.db.parent.mkdir(parents=True, exist_ok=True)
            remove_stale_temps(self.db)
            for p in _temps(self.tmp):
                p.unlink(missing_ok=True)
            # One DuckDB thread: the checking workers already use every core while runs are inserted.
            self.con = duckdb.connect(str(self.tmp), config={"threads": 1})
            self.con.execute("SET enable_progress_bar = false")  # a log is no terminal (``queries._connect``)
            self.con.execute(f"CREATE TABLE runs ({', '.join(f'{c} {t}' for c, t in RUN_COLUMNS)})")
            self.con.execute("BEGIN")  # committed every _COMMIT_RUNS and by ``commit``
        except BaseException as e:
            self.__exit__(type(e), e, None)
            raise
        return self

    def previous(self, digests: dict[str, str | None]) -> dict[str, list[str]]:
        """Attach the previous database read-only and name the files it holds unchanged ({name: its run
        ids}); {} (and nothing attached) where it has none or cannot tell (``site_gen.data.reuse``)."""
        import duckdb

        if not self.db.is_file():
            return {}
        current = {n: d for n, d in digests.items() if d is not None}
        try:
            path = str(self.db).replace("'", "''")
            self.con.execute(f"ATTACH '{path}' AS {_PREVIOUS} (READ_ONLY)")
        except duckdb.Error:  # not a database DuckDB can open: check every file
            return {}
        found = reuse.previous(self.con, _PREVIOUS, current, self.fingerprint)
        self.reused = found
        if not found:
            self.con.execute(f"DETACH {_PREVIOUS}")
            return found
        # the changed files' runs wait here, to be merged in order with the copied ones (``merge``)
        self.con.execute(f"CREATE TEMP TABLE {reuse.FRESH_TABLE} AS FROM runs LIMIT 0")
        self.target = reuse.FRESH_TABLE
        return found

    def merge(self) -> None:
        """With the previous database attached: ``runs`` from its unchanged files' runs and the changed
        files' (held in ``reuse.FRESH_TABLE`` until now), in file and run order."""
        if not self.reused:
            return
        self.runs += reuse.merge_runs(self.con, _PREVIOUS, self.reused, [c for c, _ in RUN_COLUMNS])
        self.files += list(self.reused)

    def use_all_cores(self) -> None:
        self.con.execute(f"SET threads TO {os.cpu_count() or 1}")

    def add(self, tables: tuple[Any, Any]) -> None:
        """Insert runs: each run's columns beside its file's values (Arrow gather), in file and run order."""
        import pyarrow as pa

        run_tbl, file_tbl = tables
        per_run = file_tbl.take(run_tbl["file_idx"])
        flat = pa.table({c: per_run[c] if c in FILE_LEVEL else run_tbl[c] for c, _ in RUN_COLUMNS})
        self.con.register("run_rows", flat)
        self.con.execute(f"INSERT INTO {self.target} SELECT * FROM run_rows")
        self.con.unregister("run_rows")
        self.runs += flat.num_rows
        if self.runs - self.committed >= _COMMIT_RUNS:
            self.con.execute("COMMIT")
            self.con.execute("BEGIN")
            self.committed = self.runs

    def commit(self, digests: dict[str, str | None] | None = None) -> None:
        """Add the derived tables and columns, close, and rename the new file over ``db``. ``digests``:
        {file: SHA-256} of the files whose runs are in ``runs``, for the next ingest to reuse (none: the
        next ingest checks every file)."""
        self.con.execute("COMMIT")
        _finish(
            self.con,
            self.runs,
            self.fingerprint if digests else None,
            _PREVIOUS if self.reused else None,
            self.bounds,
        )
        if self.reused:
            self.con.execute(f"DETACH {_PREVIOUS}")
        reuse.create_files_table(self.con, digests or {})
        estimates.create(self.con, self.estimates, RUN_COLUMNS)  # after bound's columns: the view has them
        self.con.close()
        destinations.check_db_target(self.db)  # again: a file may have been put there meanwhile
        os.replace(self.tmp, self.db)

    def __exit__(self, typ: object, exc: BaseException | None, tb: object) -> None:
        if self.con is not None:
            with contextlib.suppress(Exception):
                self.con.close()  # a no-op after commit
        cleaned = True
        for p in _temps(self.tmp):
            try:
                p.unlink(missing_ok=True)
            except OSError:
                cleaned = False  # named below if it is what failed; else the next ingest removes it
        if exc is not None and _is_db_error(exc):
            # a full disk, a folder in the way, DuckDB's own I/O errors: one line naming the path
            left = "" if cleaned else f"; remove {self.tmp}"
            raise UserError(
                f"{self.db}: cannot write the database ({_one_line(exc)}); previous database left unchanged"
                + left
            ) from None


def _temps(tmp: Path) -> list[Path]:
    """A new database file and the write-ahead log DuckDB keeps beside it."""
    return [tmp, tmp.with_name(tmp.name + ".wal")]


def _is_db_error(exc: BaseException) -> bool:
    return isinstance(exc, OSError) or type(exc).__module__.split(".")[0] in ("duckdb", "_duckdb")


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text[:300]


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process: alive
        return True
    return True


def remove_stale_temps(db: Path) -> list[Path]:
    """Remove what killed ingests and builds left beside ``db``: ``.<name>.<pid>.tmp`` and its ``.wal``,
    ``.<name>.<pid>.snap``, when no process of that pid is alive (a live one may be another ingest writing
    now, or a build reading its snapshot). Returns what went."""
    pattern = re.compile(rf"^\.{re.escape(db.name)}\.(\d+)\.(tmp(\.wal)?|snap)$")
    removed = []
    for p in db.parent.glob(f".{db.name}.*"):
        m = pattern.match(p.name)
        if m and int(m.group(1)) != os.getpid() and not _pid_alive(int(m.group(1))):
            p.unlink(missing_ok=True)
            removed.append(p)
    return removed


def _finish(
    con: Any,
    runs: int,
    fingerprint: str | None = None,
    known: str | None = None,
    bounds: dict[bound.Config, float] | None = None,
) -> None:
    """With the runs table filled: derived columns, registry tables and the meta row. ``known``: the
    previous database, attached, whose bounds are reused, and ``bounds`` the checking workers made
    (``bound.add_columns``)."""
    import pandas as pd

    bound.add_columns(con, known, bounds)  # bound_output_tps, pct_of_bound (site_gen/data/bound.py)
    for table, records in (
        ("gpus", [_gpu_row(g) for g in registry.gpus().entries]),
        ("models", [_model_row(m) for m in registry.models().entries]),
    ):
        con.register(f"{table}_df", pd.DataFrame(records))
        con.execute(f"CREATE TABLE {table} AS SELECT * FROM {table}_df")
        con.unregister(f"{table}_df")
    con.execute(
        "CREATE TABLE meta AS SELECT ?::INTEGER AS schema_version, ?::TIMESTAMP AS ingested_at,"
        " ?::INTEGER AS runs, ?::VARCHAR AS fingerprint",
        [SCHEMA_VERSION, dt.datetime.now(dt.UTC).replace(tzinfo=None), runs, fingerprint],
    )


def write_db(tables: tuple[Any, Any] | list[dict[str, Any]], db: Path) -> None:
    """Write runs and registries to a new database file, then rename it over ``db``.

    ``tables`` is what ``arrow_tables`` returns, or (for callers with a few rows) a list of ``flatten`` rows.
    """
    with db_lock(db), DbWriter(db) as writer:
        writer.add(_tables_from_rows(tables) if isinstance(tables, list) else tables)
        writer.commit()


def _tables_from_rows(rows: list[dict[str, Any]]) -> tuple[Any, Any]:
    """``flatten`` rows -> the two tables (each row its own file entry; small inputs only)."""
    payloads = [({c: r[c] for c in FILE_LEVEL}, {c: [r[c]] for c in RUN_LEVEL}) for r in rows]
    return arrow_tables(payloads)


def _percentile_columns() -> list[tuple[str, str]]:
    return [(f"{n}_{k}", "DOUBLE") for n in LATENCIES for k in PERCENTILES]


# Repeated runs (issue 30): samples behind each figure and the repetitions' range (spread_columns).
SPREAD_COLUMNS: list[tuple[str, str]] = [
    ("samples", "INTEGER"),
    ("output_tps_min", "DOUBLE"),
    ("output_tps_max", "DOUBLE"),
    ("output_tps_per_gpu_min", "DOUBLE"),
    ("output_tps_per_gpu_max", "DOUBLE"),
    ("output_tps_per_user_min", "DOUBLE"),
    ("output_tps_per_user_max", "DOUBLE"),
]

# The runs table's schema, in column order; flatten() produces exactly these keys (tested). New columns are
# appended at the end so that positional readers keep working.
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
    ("engine_version_file", "VARCHAR"),
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
    ("erratum", "VARCHAR"),  # the notes after ERRATUM_MARKER: why the published figure is known wrong
    *_percentile_columns(),
    ("site_url", "VARCHAR"),
    ("source_notes", "VARCHAR"),
    ("input_stdev", "DOUBLE"),
    ("output_stdev", "DOUBLE"),
    ("source_commands", "VARCHAR"),
    *SPREAD_COLUMNS,
]
# Columns whose value is the same for every run of a file (computed once per file by file_values).
FILE_LEVEL: tuple[str, ...] = (
    "file", "source_kind", "publisher", "source_title", "source_url", "submitter", "system", "date",
    "gpu", "gpu_label", "architecture", "gpu_year", "gpu_memory_gb", "hbm_bandwidth_tb_s", "gpus_per_node",
    "nodes", "interconnect", "engine", "engine_version", "engine_version_file", "version_key",
    "workflow", "benchmark_tool", "container_image", "model", "model_name", "model_label", "checkpoint",
    "precision", "kv_cache_dtype", "weights", "site_url", "source_notes", "source_commands",
)  # fmt: skip
RUN_LEVEL: tuple[str, ...] = tuple(c for c, _ in RUN_COLUMNS if c not in FILE_LEVEL)


def _arrow_types() -> dict[str, Any]:
    import pyarrow as pa

    by_sql = {
        "VARCHAR": pa.string(),
        "DATE": pa.date32(),
        "INTEGER": pa.int64(),
        "DOUBLE": pa.float64(),
        "BOOLEAN": pa.bool_(),
        "TIMESTAMP": pa.timestamp("us"),
    }
    return {c: by_sql[t] for c, t in RUN_COLUMNS}


class _LazyTypes(dict):  # Arrow types without importing pyarrow at module import (the CLI stays fast)
    def __missing__(self, key: str) -> Any:
        self.update(_arrow_types())
        return dict.__getitem__(self, key)


_ARROW: dict[str, Any] = _LazyTypes()


def _gpu_row(g: registry.Gpu) -> dict[str, Any]:
    row = g.model_dump(exclude={"aliases", "tflops_dense", "figure_sources"})
    row.update({f"tflops_{k.lower()}": v for k, v in g.tflops_dense.items()})
    return row


def _model_row(m: registry.ModelArch) -> dict[str, Any]:
    row = m.model_dump(exclude={"aliases"})
    row["kv_elements_per_token"] = m.kv_elements_per_token
    return row
