"""The runs database: one transaction per insert, safe for concurrent array tasks; resume/export queries."""

from __future__ import annotations

import datetime as dt
import os
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pytest

from bench.errors import UserError
from bench.sweep import store


def row(job: str, attempt: int, status: str = "ok", sweep: str = "s", **kw: object) -> dict:
    now = dt.datetime(2026, 11, 29, 12, 0, 0) + dt.timedelta(seconds=attempt)
    base = {
        "job_id": job, "attempt": attempt, "sweep": sweep, "job_index": 0, "status": status,
        "started_at": now, "finished_at": now, "job": {"tp": 1}, "metrics": {"output_tokens_per_s": 10.0},
        "environment": {"hostname": "n1"}, "sweep_spec": {"name": sweep},
    }  # fmt: skip
    return base | kw


def test_insert_round_trips_json_columns(tmp_path: Path) -> None:
    db = tmp_path / "runs.duckdb"
    store.insert(db, row("a", 1))
    (rec,) = store.attempts(db)
    assert rec["job"] == {"tp": 1} and rec["metrics"]["output_tokens_per_s"] == 10.0 and rec["status"] == "ok"


def test_failed_insert_leaves_the_database_unchanged(tmp_path: Path) -> None:
    db = tmp_path / "runs.duckdb"
    store.insert(db, row("a", 1))
    with pytest.raises(duckdb.ConstraintException):
        store.insert(db, row("a", 1, status="failed"))  # same (job, attempt): primary key
    assert [r["status"] for r in store.attempts(db)] == ["ok"]


def test_completed_and_latest_ok_drive_resume_and_export(tmp_path: Path) -> None:
    db = tmp_path / "runs.duckdb"
    for r in (
        row("a", 1, "oom"),
        row("a", 2),
        row("b", 1, "timeout"),
        row("c", 1),
        row("c", 2),
        row("d", 1, sweep="t"),
    ):
        store.insert(db, r)
    assert store.completed(db, "s") == {"a", "c"}
    assert [(r["job_id"], r["attempt"]) for r in store.latest_ok(db, ["s"])] == [("a", 2), ("c", 2)]
    assert store.next_attempt(db, "a") == 3 and store.next_attempt(db, "zzz") == 1
    assert store.summary(db, "s") == {"oom": 1, "ok": 3, "timeout": 1}


def test_queries_on_a_missing_database_are_empty(tmp_path: Path) -> None:
    assert store.attempts(tmp_path / "none.duckdb") == [] and not (tmp_path / "none.duckdb").exists()


WRITER = """
import datetime as dt, sys
from pathlib import Path
from bench.sweep import store
now = dt.datetime(2026, 11, 29)
for i in range(6):
    store.insert(Path(sys.argv[1]), {"job_id": f"w{sys.argv[2]}-{i}", "attempt": 1, "sweep": "s",
                                     "status": "ok", "started_at": now, "finished_at": now})
"""


def test_concurrent_writers_take_turns_on_the_file_lock(tmp_path: Path) -> None:
    db = tmp_path / "runs.duckdb"
    procs = [
        subprocess.Popen([sys.executable, "-c", WRITER, str(db), str(w)], stderr=subprocess.PIPE, text=True)
        for w in range(3)
    ]
    outcomes = [(p.wait(60), p.stderr.read() if p.stderr else "") for p in procs]
    assert [rc for rc, _ in outcomes] == [0, 0, 0], outcomes
    assert len(store.attempts(db)) == 18


@pytest.mark.parametrize("content", [b"", b"\x00garbage header" * 300, b"# not a database\n"])
def test_a_damaged_database_says_so_at_once_with_what_to_do(tmp_path: Path, content: bytes) -> None:
    db = tmp_path / "runs.duckdb"
    db.write_bytes(content)
    os.utime(db, (0, 0))  # not a file another process is creating right now
    t = time.monotonic()
    for call in (lambda: store.insert(db, row("a", 1)), lambda: store.attempts(db)):
        with pytest.raises(UserError) as e:
            call()
        assert str(e.value).startswith(f"{db}: not a usable runs database (IO Error: The file")
        assert f"mv {db} {db}.damaged" in str(e.value)
    assert time.monotonic() - t < 5 and db.read_bytes() == content
