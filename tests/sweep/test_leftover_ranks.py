"""No process of an attempt outlives it (issue 24, item 6), even when the attempt is ``ok``.

Real processes: ``llmbench run`` in a subprocess with the stand-in trtllm-bench on PATH, told to leave a
rank behind after exiting 0 — one that stays in the command's process group, or one that calls
``setsid``, double-forks and ignores SIGTERM. Each rank writes its pid to a file. After the run, /proc is
the authority: none of those pids runs, and no process carrying the test's marker in its environment is
left. "The next attempt starts clean": the stand-in of the second job looks in /proc, at its start, for
the first job's rank, and writes down whether it still ran.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import uuid
from pathlib import Path

import pytest

from bench.sweep import procs, store
from tests.sweep.helpers import write_sweep
from tests.sweep.test_kill import LLMBENCH, env, marked, wait_for


def two_job_sweep(tmp: Path, checkpoint: Path) -> Path:
    return write_sweep(
        tmp,
        {
            "name": "ranks",
            "model": {"id": "meta-llama/Llama-3.1-8B-Instruct", "path": str(checkpoint)},
            "workloads": [
                {"isl": 32, "osl": 16, "num_requests": 20},
                {"isl": 64, "osl": 16, "num_requests": 20},
            ],
            "run": {"timeout_s": 60, "kill_grace_s": 0.5, "output_dir": str(tmp / "out")},
        },
    )


def running(pid: int) -> bool:
    return procs.start_ticks(pid) is not None  # None: gone, or a zombie (it has finished)


@pytest.mark.parametrize("kind", ["leave_rank_if", "setsid_rank_if"], ids=["in-group", "setsid"])
def test_no_rank_outlives_an_ok_attempt_and_the_next_attempt_starts_clean(
    tmp_path: Path, checkpoint: Path, kind: str
) -> None:
    marker, db, ranks = uuid.uuid4().hex, tmp_path / "runs.duckdb", tmp_path / "ranks"
    argv = [
        str(LLMBENCH),
        "run",
        str(two_job_sweep(tmp_path, checkpoint)),
        "--runs-db",
        str(db),
        "--no-progress",
    ]
    try:
        done = subprocess.run(
            argv,
            env=env(tmp_path, marker, {kind: [{"tp": 1}]}) | {"FAKE_RANKS": str(ranks)},
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        rows = store.attempts(db, "ranks")
        assert [r["status"] for r in rows] == ["ok", "ok"]  # exit 0 with a summary: the attempts count

        left = [int(line) for line in ranks.read_text().split()]
        assert len(left) == 2  # one rank per attempt, each still running when its command exited
        assert not [p for p in left if running(p)], "a rank outlived its attempt"
        assert wait_for(lambda: not marked(marker), 2), f"left running: {marked(marker)}"

        # the second job's command saw no rank of the first one running when it started
        seen = [json.loads(line) for line in Path(f"{ranks}.seen").read_text().splitlines()]
        assert [s["running_at_start"] for s in seen] == [[], []]
        # and each attempt's log says which process it ended
        for row, pid in zip(rows, left, strict=True):
            log = Path(row["log_path"]).read_text(encoding="utf-8")
            assert "# llmbench: ended what the command left running: " in log and f"{pid} (" in log
    finally:
        for pid in marked(marker):  # without the fix: do not leave sleeping ranks on the machine
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


def test_the_runner_is_a_subreaper_only_while_it_runs() -> None:
    """An orphan of a command (its parent gone, it left the group) becomes the runner's child, so the
    runner can end it; afterwards the process is as it was."""
    with procs.subreaper() as ok:
        assert ok
        # this test process may have children of its own (other tests' servers): those are no orphans
        before = procs.children()
        sh = subprocess.Popen(
            ["sh", "-c", "setsid sleep 30 >/dev/null & echo $!"], stdout=subprocess.PIPE, text=True
        )
        orphan = int(sh.communicate(timeout=5)[0])
        try:
            assert wait_for(lambda: orphan in procs.children(), 10)  # re-parented to us, not to init
            assert procs.end_leftovers(sh.pid, before | {sh.pid}, 0.5) == [f"{orphan} (sleep)"]
            assert not running(orphan)
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.kill(orphan, signal.SIGKILL)
    assert orphan not in procs.children()  # reaped, not a zombie of ours
