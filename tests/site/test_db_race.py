"""A ``site build`` racing ingests of the same database publishes the database it ingested itself (issue 24,
item 5: it used to publish the other one's runs, 3 rounds of 7).

Real processes: ``llmbench site build --results B --db X`` while ``llmbench ingest --results A --db X``
runs again and again beside it, some of those ingests killed with SIGKILL at a moment, and the site
build itself killed at several moments. Results A (the fixture's 12 runs) and B (another file's 2 runs)
share no run id, so the authority is plain: the run ids in every data file of the built site, and in
the explorer's of each language, are exactly B's, as an ingest of B alone gives them; the database
left behind is exactly A's or exactly B's; and what killed processes left beside it goes with the next
ingest.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import duckdb
import pytest

from site_gen.data.load import ingest
from tests.site.conftest import write_fixture_results
from tests.site.test_atomic_build import finish, group_gone
from tests.site.test_plain_mkdocs import ROOT, clean_env, new_result

LLMBENCH = str(Path(sys.executable).parent / "llmbench")


def env() -> dict[str, str]:
    """A new user's environment, running this checkout's code (the environment's installed ``llmbench``
    may come from another checkout)."""
    return clean_env(PYTHONPATH=str(ROOT), LLMBENCH_SITE_URL="http://127.0.0.1:8000/")


def site_build(results: Path, db: Path, out: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [LLMBENCH, "site", "build", "--results", str(results), "--db", str(db), "--out", str(out)],
        env=env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
        cwd=ROOT,
    )  # fmt: skip


def db_ids(db: Path) -> set[str]:
    with duckdb.connect(str(db), read_only=True) as con:
        return {r[0] for r in con.execute("SELECT run_id FROM runs").fetchall()}


def payload(data: Path) -> dict:
    return json.loads(data.read_text(encoding="utf-8"))


def ids_of(data: dict) -> set[str]:
    """The run ids of a data file: a columnar run table's ``run_id`` column, or the advisor's curves (each
    point's runs); other files (the estimate-accuracy pairs) name no site run."""
    if "curves" in data:
        points = (p for curve in data["curves"] for p in curve["runs"])
        return {i for p in points for i in (p if isinstance(p, list) else [p])}
    col = data.get("columns", {}).get("run_id")
    if col is None:
        return set()
    return set(col["dict"]) if isinstance(col, dict) else set(col)


def site_ids(site: Path) -> set[str]:
    """Every run id in the site's data files (every page's, every language's)."""
    return set().union(*(ids_of(payload(f)) for f in (site / "assets" / "data").glob("*.json")))


def explorer_ids(page: Path) -> set[str]:
    """The run ids of the explorer page's own data file, as the page's <script src> names it."""
    (src,) = set(re.findall(r'src="((?:\.\./)*assets/data/runs\.[0-9a-f]+\.json)"', page.read_text("utf-8")))
    return ids_of(payload(page.parent / src))


@pytest.fixture(scope="module")
def sets(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    work = tmp_path_factory.mktemp("race")
    write_fixture_results(work / "a")
    (work / "b").mkdir()
    (work / "b" / "new.yaml").write_text(new_result(), encoding="utf-8")
    ingest(work / "a", work / "ref-a.duckdb")
    ingest(work / "b", work / "ref-b.duckdb")
    a, b = db_ids(work / "ref-a.duckdb"), db_ids(work / "ref-b.duckdb")
    assert a and b and not a & b
    return {"work": work, "a": a, "b": b}


class Ingests:
    """``llmbench ingest --results A --db X`` over and over in a thread until stopped; every
    ``kill_every``-th one is killed (SIGKILL, its whole group) ``kill_after`` seconds after its start."""

    def __init__(self, results: Path, db: Path, kill_after: float | None, kill_every: int = 2) -> None:
        self.results, self.db, self.kill_after, self.kill_every = results, db, kill_after, kill_every
        self.done = self.killed = 0
        self.failures: list[str] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)

    def __enter__(self) -> Ingests:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=120)

    def _loop(self) -> None:
        n = 0
        while not self._stop.is_set():
            n += 1
            proc = subprocess.Popen(
                [LLMBENCH, "ingest", "--results", str(self.results), "--db", str(self.db)],
                env=env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                start_new_session=True,
            )  # fmt: skip
            kill = self.kill_after is not None and n % self.kill_every == 0
            try:
                out, err = proc.communicate(timeout=self.kill_after if kill else 300)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
                proc.communicate()
                group_gone(proc.pid)
                self.killed += 1
                continue
            if proc.returncode == 0:
                self.done += 1
            else:
                self.failures.append(out + err)


def leftovers(db: Path) -> list[str]:
    return sorted(p.name for p in db.parent.iterdir() if p.name.startswith(f".{db.name}."))


@pytest.mark.parametrize("kill_after", [None, 0.8, 2.0], ids=["no-kills", "ingests-killed-at-0.8s", "at-2s"])
def test_a_site_build_racing_ingests_publishes_its_own_database(
    sets: dict[str, object], tmp_path: Path, kill_after: float | None
) -> None:
    work: Path = sets["work"]  # type: ignore[assignment]
    db, out = tmp_path / "x.duckdb", tmp_path / "site"
    with Ingests(work / "a", db, kill_after) as ingests:
        code, log = finish(site_build(work / "b", db, out))
    assert code == 0, log
    assert ingests.failures == []
    assert ingests.done + ingests.killed >= 2, "no ingest ran beside the build"
    assert site_ids(out) == sets["b"], "the site holds runs of a database its build did not ingest"
    assert explorer_ids(out / "explorer.html") == explorer_ids(out / "ko" / "explorer.html") == sets["b"]
    assert db_ids(db) in (sets["a"], sets["b"])  # a whole database, one or the other

    # what killed ingests left goes with the next one; the build's snapshot is gone already
    again = subprocess.run(
        [LLMBENCH, "ingest", "--results", str(work / "a"), "--db", str(db)],
        env=env(), capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    code, log = again.returncode, again.stdout + again.stderr
    assert code == 0, log
    assert leftovers(db) == [".x.duckdb.lock"]


def _build_file(db: Path, pid: int, suffix: str) -> bool:
    return (db.parent / f".{db.name}.{pid}.{suffix}").exists()


MOMENTS = {
    "while it ingests": lambda db, out, pid: _build_file(db, pid, "tmp"),
    "snapshot taken": lambda db, out, pid: _build_file(db, pid, "snap"),
    "first page written": lambda db, out, pid: (
        out.parent / f".{out.name}.{pid}.tmp" / "index.html"
    ).exists(),
}


@pytest.mark.parametrize("moment", list(MOMENTS))
def test_a_site_build_killed_while_ingests_race_leaves_no_site_of_another_database(
    sets: dict[str, object], tmp_path: Path, moment: str
) -> None:
    work: Path = sets["work"]  # type: ignore[assignment]
    db, out = tmp_path / "x.duckdb", tmp_path / "site"
    due = MOMENTS[moment]
    with Ingests(work / "a", db, kill_after=1.0, kill_every=3):
        proc = site_build(work / "b", db, out)
        deadline = time.monotonic() + 300
        while proc.poll() is None and not due(db, out, proc.pid) and time.monotonic() < deadline:
            time.sleep(0.005)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
    assert proc.returncode in (-signal.SIGKILL, 0)
    assert group_gone(proc.pid)
    assert not out.exists() or site_ids(out) == sets["b"]  # no site yet, or its own
    assert db_ids(db) in (sets["a"], sets["b"])

    # the next build, raced again, publishes its own database; the killed build's snapshot is removed
    with Ingests(work / "a", db, kill_after=None):
        code, log = finish(site_build(work / "b", db, out))
    assert code == 0, log
    assert site_ids(out) == sets["b"]
    assert not _build_file(db, proc.pid, "snap") and not _build_file(db, proc.pid, "tmp")
