"""``llmbench site build`` is atomic (issue 11): killed at any moment, the output folder holds the previous
complete site or the new complete one, never a mix; two builds at once both succeed; leftovers of killed
builds are removed by the next one; an I/O error is one line naming the path.

The builds run as real ``llmbench`` processes (each in its own process group, killed with SIGKILL) on the
small fixture results of tests/site/conftest.py, plus one file for the "new" site.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from site_gen.site import build
from tests.site.conftest import write_fixture_results
from tests.site.test_plain_mkdocs import clean_env, new_result, tree

LLMBENCH = str(Path(sys.executable).parent / "llmbench")


def site_build(results: Path, db: Path, out: Path, tmpdir: Path | None = None) -> subprocess.Popen[str]:
    """The build as a process of its own; ``tmpdir``: its ``$TMPDIR`` (where its data files wait)."""
    env = clean_env(LLMBENCH_SITE_URL="http://127.0.0.1:8000/", **({"TMPDIR": str(tmpdir)} if tmpdir else {}))
    return subprocess.Popen(
        [LLMBENCH, "site", "build", "--results", str(results), "--db", str(db), "--out", str(out)],
        env=env,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
    )  # fmt: skip


def finish(proc: subprocess.Popen[str]) -> tuple[int, str]:
    out, err = proc.communicate(timeout=600)
    return proc.returncode, out + err


def group_gone(pgid: int, wait_s: float = 10.0) -> bool:
    """True once no process of the group is left (SIGKILL and the reaping of orphans are asynchronous)."""
    deadline = time.monotonic() + wait_s
    while True:
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)


def kill_alone(proc: subprocess.Popen[str]) -> bool:
    """SIGKILL to the process alone, not its group (it then runs no clean-up): True once nothing of its
    group is left; whatever is left is killed before returning False. Its pipes are closed first: a
    worker left behind would hold them open."""
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=60)
    for pipe in (proc.stdout, proc.stderr):
        if pipe:
            pipe.close()
    gone = group_gone(proc.pid)
    if not gone:
        os.killpg(proc.pid, signal.SIGKILL)  # end what the test started before it fails
    return gone


@pytest.fixture(scope="module")
def sites(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    """Results A (fixture, 12 runs) and B (A + 2 runs), each built once: their trees and B's build time."""
    work = tmp_path_factory.mktemp("atomic")
    write_fixture_results(work / "a")
    shutil.copytree(work / "a", work / "b")
    (work / "b" / "new.yaml").write_text(new_result(), encoding="utf-8")
    code, log = finish(site_build(work / "a", work / "a.duckdb", work / "site-a"))
    assert code == 0, log
    t = time.monotonic()
    code, log = finish(site_build(work / "b", work / "b.duckdb", work / "site-b"))
    assert code == 0, log
    seconds = time.monotonic() - t
    a, b = tree(work / "site-a"), tree(work / "site-b")
    assert a != b and len(a) > 100
    return {"work": work, "a": a, "b": b, "seconds": seconds}


def _at(fraction: float, seconds: float) -> Callable[[Path], bool]:
    start = time.monotonic()
    return lambda out: time.monotonic() - start >= fraction * seconds


def _when_exists(*parts: str) -> Callable[[Path], bool]:
    """True once the build's temporary folder (``.site.<pid>.tmp``) holds the given path."""
    return lambda out: any(p.joinpath(*parts).exists() for p in out.parent.glob(f".{out.name}.*.tmp"))


MOMENTS = {
    **{f"{f:.0%} of a build": f for f in (0.2, 0.4, 0.6, 0.75, 0.85, 0.95)},
    "temporary folder created": ("",),
    "first page written": ("index.html",),
    "data files written": ("assets", "data"),
}


@pytest.mark.parametrize("moment", list(MOMENTS))
def test_a_killed_site_build_leaves_the_previous_or_the_new_site(
    sites: dict[str, object], tmp_path: Path, moment: str
) -> None:
    work: Path = sites["work"]  # type: ignore[assignment]
    out = tmp_path / "site"
    shutil.copytree(work / "site-a", out)  # the previous site
    spec = MOMENTS[moment]
    due = _at(spec, sites["seconds"]) if isinstance(spec, float) else _when_exists(*spec)  # type: ignore[arg-type]

    spare = tmp_path / "tmp"  # the build's $TMPDIR
    spare.mkdir()
    proc = site_build(work / "b", tmp_path / "b.duckdb", out, spare)
    while proc.poll() is None and not due(out):
        time.sleep(0.005)
    with contextlib.suppress(ProcessLookupError):  # (a build that finished first: the new site)
        os.killpg(proc.pid, signal.SIGKILL)  # the whole group: ingest workers too
    proc.wait(timeout=30)
    assert proc.returncode in (-signal.SIGKILL, 0)
    assert group_gone(proc.pid), "a process of the killed build is still running"
    assert tree(out) in (sites["a"], sites["b"]), "a mix of the previous and the new site"
    # the data files waiting for the end of the build were in unnamed files: nothing left in $TMPDIR
    assert list(spare.iterdir()) == []

    # The next build removes what the killed one left and completes the new site.
    code, log = finish(site_build(work / "b", tmp_path / "b.duckdb", out))
    assert code == 0, log
    assert tree(out) == sites["b"]
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".site")) == [".site.lock"]


def test_two_site_builds_at_once_both_succeed(sites: dict[str, object], tmp_path: Path) -> None:
    work: Path = sites["work"]  # type: ignore[assignment]
    out, db = tmp_path / "site", tmp_path / "b.duckdb"
    procs = [site_build(work / "b", db, out) for _ in range(2)]
    for code, log in map(finish, procs):
        assert code == 0, log
    assert tree(out) == sites["b"]
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".site")) == [".site.lock"]


def test_an_io_error_is_one_line_naming_the_path(sites: dict[str, object], tmp_path: Path) -> None:
    work: Path = sites["work"]  # type: ignore[assignment]
    (tmp_path / "file").write_text("not a folder")
    code, log = finish(site_build(work / "b", tmp_path / "b.duckdb", tmp_path / "file" / "site"))
    assert code == 1
    file = tmp_path / "file"
    assert log.strip().splitlines()[-1] == (
        f"error: site build failed: {file}: File exists; {file / 'site'} left as it was"
    )
    assert "Traceback" not in log


def test_leftovers_of_killed_builds_are_removed_and_a_parked_site_put_back(tmp_path: Path) -> None:
    site = tmp_path / "site"
    (tmp_path / ".site.4242.tmp" / "assets").mkdir(parents=True)  # a half-built site
    (tmp_path / ".site.4343.old").mkdir()  # the previous site parked by the two-rename fallback ...
    (tmp_path / ".site.4343.old" / "index.html").write_text("previous")  # ... killed before the rename
    with build.site_lock(site):
        removed = build.remove_leftovers(site)
    assert removed == [tmp_path / ".site.4242.tmp"]
    assert (site / "index.html").read_text() == "previous"
    assert sorted(p.name for p in tmp_path.iterdir()) == [".site.lock", "site"]


@pytest.mark.parametrize("kernel_exchange", [True, False], ids=["renameat2", "two-renames"])
def test_exchange_swaps_the_folders(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kernel_exchange: bool
) -> None:
    if not kernel_exchange:
        monkeypatch.setattr(build, "_renameat2", lambda a, b, flags: False)
    (tmp_path / "new").mkdir()
    (tmp_path / "new" / "v").write_text("2")
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "v").write_text("1")
    if kernel_exchange:  # this file system has it: the swap is one step
        assert build._renameat2(tmp_path / "new", tmp_path / "site", build._RENAME_EXCHANGE)
    else:
        build.exchange(tmp_path / "new", tmp_path / "site")
    assert (tmp_path / "site" / "v").read_text() == "2"
    assert (tmp_path / "new" / "v").read_text() == "1"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["new", "site"]


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def test_a_build_killed_alone_leaves_no_picture_worker(sites: dict[str, object], tmp_path: Path) -> None:
    """The pictures' PNGs are made in a worker process while the build goes on (site_gen.charts.raster). A
    build killed with -9 on its own, not with its process group, runs no clean-up: the worker must go by
    itself, and not keep the build's pipes open."""
    from tests.contract.test_kill_ingest import children, until  # it imports this module's group_gone

    work: Path = sites["work"]  # type: ignore[assignment]
    proc = site_build(work / "b", tmp_path / "b.duckdb", tmp_path / "site")
    workers: list[int] = []

    def started() -> bool:
        workers[:] = [c for c in children(proc.pid) if "multiprocessing" in _cmdline(c)]
        return bool(workers) or proc.poll() is not None

    until(started, wait_s=300)
    assert workers, "the build ended without starting the pictures' worker"
    assert kill_alone(proc), f"left running after the build was killed: {[_cmdline(w) for w in workers]}"
