"""The runs database: every attempt of every job, ok or failed, in one DuckDB file (``build/runs.duckdb``).

Kept apart from the site's ``build/llmbench.duckdb`` (which ``ingest`` rebuilds from results/): this one is
the node-side record of what ran, including failures, retries and timeouts; ``export`` turns its
successful runs into a result file. One transaction per insert, so a crash never leaves half a row; the
connection is opened per call and closed at once, so array tasks of one sweep (separate processes, maybe
on separate nodes sharing the file) take turns: a locked file is retried with backoff. Only a lock is
retried: a file that is not a DuckDB database (0 bytes, a garbage header) is reported at once, with what
to do. An attempt is written as ``running`` (with the runner's and its child's process ids and start
times) before its command starts and replaced by its outcome after, so a killed runner leaves a trace
that ``run`` finds next time.
"""

from __future__ import annotations

import contextlib
import json
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import duckdb

from bench.errors import UserError

LOCK_WAIT_S = 120.0  # how long an array task waits for another one's insert before giving up
T = TypeVar("T")

COLUMNS: list[tuple[str, str]] = [
    ("job_id", "VARCHAR NOT NULL"),
    ("attempt", "INTEGER NOT NULL"),
    ("sweep", "VARCHAR NOT NULL"),
    ("job_index", "INTEGER"),
    ("label", "VARCHAR"),
    ("engine", "VARCHAR"),
    ("status", "VARCHAR NOT NULL"),  # running | ok | oom | timeout | failed
    ("error", "VARCHAR"),
    ("log_tail", "VARCHAR"),
    ("exit_code", "INTEGER"),
    ("kv_fraction", "DOUBLE"),
    ("retry_of", "INTEGER"),  # the attempt this one retried (after an out-of-memory failure)
    ("started_at", "TIMESTAMP"),
    ("finished_at", "TIMESTAMP"),
    ("wall_s", "DOUBLE"),
    ("command", "VARCHAR"),  # the exact command lines, one per step
    ("log_path", "VARCHAR"),
    ("report_path", "VARCHAR"),
    ("report_source", "VARCHAR"),  # report_json | console
    ("report_era", "VARCHAR"),
    ("output_tokens_per_s", "DOUBLE"),
    ("output_tokens_per_s_per_gpu", "DOUBLE"),
    ("job", "VARCHAR"),  # JSON: the job's parameters
    ("metrics", "VARCHAR"),  # JSON: bench.contract.schema.Metrics fields
    ("report", "VARCHAR"),  # JSON: engine, world, requests and extra facts the tool reported
    ("environment", "VARCHAR"),  # JSON: provenance (GPUs, driver, CUDA, versions, host, image)
    ("sweep_spec", "VARCHAR"),  # JSON: the whole sweep, so export needs nothing else
    # who ran it: enough to tell, after a crash, whether that runner or its command still lives
    ("host", "VARCHAR"),
    ("runner_pid", "INTEGER"),
    ("runner_started", "BIGINT"),  # the process's start time (clock ticks since boot): pids are reused
    ("child_pgid", "INTEGER"),  # the command's process group (its leader's pid)
    ("child_started", "BIGINT"),
]
JSON_COLUMNS = ("job", "metrics", "report", "environment", "sweep_spec")


@dataclass(frozen=True)
class RunRecord:
    """One attempt, as stored."""

    values: dict[str, Any]

    def __getitem__(self, key: str) -> Any:
        return self.values[key]


def _connect(db: Path, read_only: bool = False) -> duckdb.DuckDBPyConnection:
    if not read_only:
        db.parent.mkdir(parents=True, exist_ok=True)
    return duckdb.connect(str(db), read_only=read_only)


CREATING_WAIT_S = 1.0  # a file another process is creating right now has no header for a moment


def _with_retry(db: Path, fn: Callable[[], T]) -> T:
    """Run fn, retrying while another process holds the database file's lock; corruption is an error."""
    start = time.monotonic()
    delay = 0.05
    while True:
        try:
            return fn()
        except (
            duckdb.IOException,  # a lock, a full disk
            duckdb.InvalidInputException,  # not a DuckDB file
            duckdb.SerializationException,
            duckdb.TransactionException,  # a commit that could not write (a full disk)
        ) as e:
            text = str(e)
            waited = time.monotonic() - start
            if _is_lock(text) and waited < LOCK_WAIT_S:
                pass
            elif not _is_lock(text) and _is_corrupt(db, text):
                if waited < CREATING_WAIT_S and _young(db):
                    pass
                else:
                    raise UserError(_corrupt_message(db, text)) from None
            else:
                raise UserError(f"{db}: runs database error: {_first_line(text)}") from None
            time.sleep(delay * (1 + random.random()))
            delay = min(delay * 2, 2.0)


def _is_lock(text: str) -> bool:
    return "could not set lock on file" in text.lower() or "conflicting lock" in text.lower()


def _is_corrupt(db: Path, text: str) -> bool:
    low = text.lower()
    return db.exists() and any(
        w in low for w in ("not a valid duckdb database", "corrupt", "checksum", "truncated", "no header")
    )


def _young(db: Path) -> bool:
    try:
        return time.time() - db.stat().st_mtime < CREATING_WAIT_S
    except OSError:
        return False


def _first_line(text: str) -> str:
    return text.strip().splitlines()[0] if text.strip() else "unknown error"


def _corrupt_message(db: Path, text: str) -> str:
    return (
        f"{db}: not a usable runs database ({_first_line(text)}); the file is damaged or not a DuckDB "
        f"file. Move it aside (mv {db} {db}.damaged) and run again to start a new one: the attempts "
        "recorded in it are not in the new one (export what you need from a backup copy first)"
    )


def _create(con: duckdb.DuckDBPyConnection) -> None:
    cols = ", ".join(f"{c} {t}" for c, t in COLUMNS)
    con.execute(f"CREATE TABLE IF NOT EXISTS runs ({cols}, PRIMARY KEY (job_id, attempt))")
    for c, t in COLUMNS:  # a database written by an older llmbench lacks the newer columns
        con.execute(f"ALTER TABLE runs ADD COLUMN IF NOT EXISTS {c} {t.replace(' NOT NULL', '')}")


def insert(db: Path, row: dict[str, Any], replace: bool = False) -> None:
    """Add one attempt in its own transaction (all columns or nothing); ``replace``: its earlier row goes."""
    values = [json.dumps(row.get(c), default=str) if c in JSON_COLUMNS else row.get(c) for c, _ in COLUMNS]

    def go() -> None:
        con = _connect(db)
        try:
            con.begin()
            _create(con)
            if replace:
                con.execute(
                    "DELETE FROM runs WHERE job_id = ? AND attempt = ?", [row["job_id"], row["attempt"]]
                )
            marks = ", ".join("?" for _ in COLUMNS)
            con.execute(f"INSERT INTO runs ({', '.join(c for c, _ in COLUMNS)}) VALUES ({marks})", values)
            con.commit()
        except BaseException:
            # an I/O error (a full disk) may have ended the transaction already; the first error is the one
            with contextlib.suppress(duckdb.Error):
                con.rollback()
            raise
        finally:
            con.close()

    _with_retry(db, go)


def ensure(db: Path) -> None:
    """Create the database and its table now (before array tasks race to create it)."""

    def go() -> None:
        con = _connect(db)
        try:
            _create(con)
        finally:
            con.close()

    _with_retry(db, go)


def _query(db: Path, sql: str, params: list[Any] | None = None) -> list[dict[str, Any]]:
    if not db.exists():
        return []

    def go() -> list[dict[str, Any]]:
        con = _connect(db, read_only=True)
        try:
            tables = "SELECT count(*) FROM information_schema.tables WHERE table_name = 'runs'"
            if not con.execute(tables).fetchone()[0]:  # type: ignore[index]
                return []
            cur = con.execute(sql, params or [])
            names = [d[0] for d in cur.description]
            return [dict(zip(names, r, strict=True)) for r in cur.fetchall()]
        finally:
            con.close()

    return _with_retry(db, go)


def _decode(row: dict[str, Any]) -> RunRecord:
    return RunRecord({k: json.loads(v) if k in JSON_COLUMNS and v is not None else v for k, v in row.items()})


def next_attempt(db: Path, job_id: str) -> int:
    rows = _query(db, "SELECT coalesce(max(attempt), 0) AS n FROM runs WHERE job_id = ?", [job_id])
    return (rows[0]["n"] if rows else 0) + 1


def running(db: Path, sweep: str) -> list[RunRecord]:
    """Attempts of the sweep still marked ``running``: in progress elsewhere, or left by a killed runner."""
    return [
        _decode(r) for r in _query(db, "SELECT * FROM runs WHERE sweep = ? AND status = 'running'", [sweep])
    ]


def completed(db: Path, sweep: str) -> set[str]:
    """Job ids of the sweep that have a successful run (what ``--resume`` skips)."""
    rows = _query(db, "SELECT DISTINCT job_id FROM runs WHERE sweep = ? AND status = 'ok'", [sweep])
    return {r["job_id"] for r in rows}


def attempts(db: Path, sweep: str | None = None) -> list[RunRecord]:
    """Every attempt (of one sweep, or all), in insertion order."""
    where, params = ("WHERE sweep = ?", [sweep]) if sweep else ("", [])
    return [
        _decode(r) for r in _query(db, f"SELECT * FROM runs {where} ORDER BY started_at, attempt", params)
    ]


def latest_ok(db: Path, sweeps: list[str] | None = None) -> list[RunRecord]:
    """The newest successful attempt of each job (of the given sweeps, or all), in job order."""
    where, params = "", []
    if sweeps:
        where = f"AND sweep IN ({', '.join('?' for _ in sweeps)})"
        params = list(sweeps)
    sql = f"""
        SELECT * FROM runs WHERE status = 'ok' {where}
        QUALIFY row_number() OVER (PARTITION BY job_id ORDER BY finished_at DESC, attempt DESC) = 1
        ORDER BY sweep, job_index, job_id
    """
    return [_decode(r) for r in _query(db, sql, params)]


def summary(db: Path, sweep: str) -> dict[str, int]:
    """Count of attempts per status for a sweep."""
    rows = _query(db, "SELECT status, count(*) AS n FROM runs WHERE sweep = ? GROUP BY status", [sweep])
    return {r["status"]: r["n"] for r in rows}


def require(db: Path) -> None:
    if not db.exists():
        raise UserError(f"{db}: no runs database (run a sweep with `llmbench run` first, or pass --runs-db)")
