"""``llmbench ingest`` killed at several moments (issue 11): the database is the previous one, byte for byte,
or the complete new one, never a mix; no process is left (the pool's workers die with the ingest: only the
ingest itself is killed here, so a worker that outlived it would still be in its group); the next ingest
removes the temporary files the killed ones left.

Real processes on the committed results/ (617 files: the pool is used); the previous database is built from
results/kisti alone, so previous and new differ.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import duckdb
import pytest

from tests.site.test_atomic_build import kill_alone

ROOT = Path(__file__).resolve().parents[2]
LLMBENCH = str(Path(sys.executable).parent / "llmbench")
LOCK = (
    ".llmbench.duckdb.lock"  # site_gen.data.load.db_lock: every ingest leaves it (a site build: .site.lock)
)


def ingest(results: Path, db: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [LLMBENCH, "ingest", "--results", str(results), "--db", str(db)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
    )  # fmt: skip


def runs(db: Path) -> tuple[int, int]:
    with duckdb.connect(str(db), read_only=True) as con:
        return con.execute("SELECT count(*), (SELECT runs FROM meta) FROM runs").fetchone()


def children(pid: int) -> list[int]:
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.append(int(stat.parent.name))
    return found


def until(check: Callable[[], bool], wait_s: float = 20.0) -> None:
    deadline = time.monotonic() + wait_s
    while not check() and time.monotonic() < deadline:
        time.sleep(0.005)


@pytest.fixture(scope="module")
def stores(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    work = tmp_path_factory.mktemp("kill-ingest")
    old, new = work / "old", work / "new"
    shutil.copytree(ROOT / "results" / "kisti", old / "kisti")
    shutil.copytree(ROOT / "results", new, ignore=shutil.ignore_patterns("sources"))
    for results, db in ((old, work / "old.duckdb"), (new, work / "new.duckdb")):
        proc = ingest(results, db)
        assert proc.wait(timeout=300) == 0, proc.stderr.read() if proc.stderr else ""
    return {"new": new, "old_db": work / "old.duckdb", "new_runs": runs(work / "new.duckdb")}


MOMENTS: dict[str, Callable[[subprocess.Popen[str], Path], None]] = {
    "starting": lambda proc, db: time.sleep(0.05),
    "workers started": lambda proc, db: until(lambda: len(children(proc.pid)) >= 2),
    "new file being written": lambda proc, db: until(lambda: any(db.parent.glob(f".{db.name}.*.tmp"))),
    "after 0.8 s": lambda proc, db: time.sleep(0.8),
    "after 1.5 s": lambda proc, db: time.sleep(1.5),
}


@pytest.mark.parametrize("moment", list(MOMENTS))
def test_a_killed_ingest_leaves_the_previous_or_the_new_database_and_no_process(
    moment: str, stores: dict[str, object], tmp_path: Path
) -> None:
    db = tmp_path / "llmbench.duckdb"
    shutil.copyfile(stores["old_db"], db)
    before = db.read_bytes()
    proc = ingest(stores["new"], db)
    MOMENTS[moment](proc, db)
    workers = children(proc.pid)
    # the ingest alone: its workers must go by themselves
    assert kill_alone(proc), f"left running after the ingest was killed: {workers}"
    assert db.read_bytes() == before or runs(db) == stores["new_runs"]
    # the next ingest removes what the killed one left (its pid is dead), and succeeds
    again = ingest(stores["new"], db)
    _, err = again.communicate(timeout=300)
    assert again.returncode == 0, err
    assert runs(db) == stores["new_runs"]
    assert sorted(p.name for p in tmp_path.iterdir()) == [LOCK, "llmbench.duckdb"]


def test_temporary_files_of_a_live_ingest_are_left_alone(stores: dict[str, object], tmp_path: Path) -> None:
    """Only dead processes' files go: a pid that is alive may be another ingest writing now."""
    db = tmp_path / "llmbench.duckdb"
    sleeper = subprocess.Popen(["sleep", "60"])
    dead = subprocess.Popen(["true"])
    dead.wait()
    try:
        live_tmp = tmp_path / f".llmbench.duckdb.{sleeper.pid}.tmp"
        dead_tmp = tmp_path / f".llmbench.duckdb.{dead.pid}.tmp"
        for p in (live_tmp, dead_tmp, dead_tmp.with_name(dead_tmp.name + ".wal")):
            p.write_bytes(b"x" * 1024)
        proc = ingest(stores["new"], db)
        assert proc.wait(timeout=300) == 0
        assert sorted(p.name for p in tmp_path.iterdir()) == sorted([LOCK, "llmbench.duckdb", live_tmp.name])
    finally:
        sleeper.kill()
        sleeper.wait()


def test_a_database_error_is_one_located_line(stores: dict[str, object], tmp_path: Path) -> None:
    """A folder where the database file should go: one line naming it, exit 1, no traceback; the folder is
    never replaced (issue 24: --db takes a DuckDB file or a new path only)."""
    db = tmp_path / "llmbench.duckdb"
    db.mkdir()
    (db / "keep").write_text("x", encoding="utf-8")
    proc = ingest(stores["new"], db)
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 1
    lines = (out + err).strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    assert lines[0].startswith(f"error: --db {db}: expected a DuckDB database file, got a folder")
    assert lines[0].endswith("nothing written")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["llmbench.duckdb"]  # not even a lock file
    assert [p.name for p in db.iterdir()] == ["keep"]
