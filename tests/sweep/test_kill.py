"""Killing `llmbench run` (SIGKILL, SIGTERM, SIGINT) at several moments, then running again.

Real processes throughout: `llmbench run` in a subprocess with the stand-in trtllm-bench on PATH. After
every kill: no process of the run is left (found by a marker in their environment), the runs database
holds the previous state or a complete new one (a `running` row counts: it is what a killed runner
leaves, and the next run settles it), and never an `ok` with another process's numbers.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from bench.errors import UserError
from bench.sweep import execute, procs, store
from tests.sweep.conftest import FAKE_BIN
from tests.sweep.helpers import write_sweep

LLMBENCH = Path(sys.executable).parent / "llmbench"


def sweep(tmp: Path, checkpoint: Path) -> Path:
    return write_sweep(
        tmp,
        {
            "name": "kill",
            "model": {"id": "meta-llama/Llama-3.1-8B-Instruct", "path": str(checkpoint)},
            "workloads": [{"isl": 32, "osl": 16, "num_requests": 20}],
            "run": {"timeout_s": 60, "kill_grace_s": 0.5, "output_dir": str(tmp / "out")},
        },
    )


def env(tmp: Path, marker: str, behaviour: dict[str, Any]) -> dict[str, str]:
    return {
        **os.environ,
        "PATH": f"{FAKE_BIN}{os.pathsep}{os.environ['PATH']}",
        "FAKE_TRTLLM_CALLS": str(tmp / "calls.jsonl"),
        "FAKE_GPU_COUNT": "4",
        "FAKE_TRTLLM_BEHAVIOUR": json.dumps(behaviour),
        "LLMBENCH_KILL_TEST": marker,
    }


def marked(marker: str) -> list[int]:
    """Pids of live processes whose environment carries the marker (zombies have none)."""
    needle = f"LLMBENCH_KILL_TEST={marker}".encode()
    out = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                if needle in (d / "environ").read_bytes().split(b"\0"):
                    out.append(int(d.name))
            except OSError:
                continue
    return out


def wait_for(cond: Callable[[], bool], seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if cond():
            return True
        time.sleep(0.05)
    return cond()


def benchmark_running(db: Path, marker: str, runner: int) -> bool:
    """The stand-in is running and its process group is recorded in the running row."""
    if not [p for p in marked(marker) if p != runner]:
        return False
    rows = store.running(db, "kill") if db.exists() else []
    return any(r["child_pgid"] for r in rows)


@pytest.mark.parametrize(
    ("sig", "moment"),
    [
        (signal.SIGKILL, "startup"),
        (signal.SIGTERM, "startup"),
        (signal.SIGKILL, "benchmark"),
        (signal.SIGTERM, "benchmark"),
        (signal.SIGINT, "benchmark"),
    ],
)
def test_kill_leaves_nothing_running_and_a_consistent_database(
    tmp_path: Path, checkpoint: Path, sig: signal.Signals, moment: str
) -> None:
    marker, db, sweep_file = uuid.uuid4().hex, tmp_path / "runs.duckdb", sweep(tmp_path, checkpoint)
    argv = [str(LLMBENCH), "run", str(sweep_file), "--runs-db", str(db), "--no-progress"]
    runner = subprocess.Popen(
        argv, env=env(tmp_path, marker, {"hang_if": [{"tp": 1}]}), stderr=subprocess.PIPE, text=True
    )
    try:
        if moment == "benchmark":
            assert wait_for(lambda: benchmark_running(db, marker, runner.pid), 30), runner.stderr
        else:
            time.sleep(0.2)  # interpreter start-up and imports: before any row
        runner.send_signal(sig)
        rc = runner.wait(timeout=20)
    finally:
        if runner.poll() is None:
            runner.kill()
    assert wait_for(lambda: not marked(marker), 5), f"left running: {marked(marker)}"
    rows = store.attempts(db, "kill") if db.exists() else []
    assert len(rows) <= 1 and all(r["status"] in ("running", "failed") for r in rows)
    if moment == "startup":
        return  # before any attempt: nothing to settle
    (row,) = rows
    if sig == signal.SIGKILL:
        assert rc == -signal.SIGKILL and row["status"] == "running"
    else:
        assert rc == 128 + sig and row["status"] == "failed"
        assert row["error"].startswith(f"interrupted by {signal.Signals(sig).name}")

    # run again (the stand-in now crashes with CUDA OOM, retried at lower KV fractions): the old attempt
    # is settled, the new ones are their own, failed; no `ok` from anyone's numbers
    again = subprocess.run(
        [*argv, "--resume"],
        env=env(tmp_path, marker, {"cuda_oom_if": [{"isl": 32}]}),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert again.returncode == 1, again.stderr
    rows = store.attempts(db, "kill")
    assert rows and all(r["status"] in ("failed", "oom") for r in rows)  # settled, and no `ok`
    assert len({r["log_path"] for r in rows}) == len({r["report_path"] for r in rows}) == len(rows)
    assert "CUDA out of memory" in Path(rows[-1]["log_path"]).read_text()
    assert not marked(marker)

    if sig != signal.SIGKILL:
        return
    # and once more with a working stand-in: ok, with the numbers of its own report
    third = subprocess.run(
        [*argv, "--resume"], env=env(tmp_path, marker, {}), capture_output=True, text=True, timeout=60
    )
    assert third.returncode == 0, third.stderr
    ok = store.latest_ok(db, ["kill"])[0]
    report = json.loads(Path(ok["report_path"]).read_text())
    assert ok["output_tokens_per_s"] == report["performance"]["system_output_throughput_tok_s"]
    assert ok["report_source"] == "report_json" and ok["runner_pid"] not in (runner.pid, None)


def running_row(**kw: Any) -> dict[str, Any]:
    t = dt.datetime.now()
    return {
        "job_id": "j",
        "attempt": 1,
        "sweep": "kill",
        "job_index": 0,
        "label": "tp1",
        "status": "running",
        "started_at": t,
        "finished_at": t,
        "host": os.uname().nodename,
    } | kw


def dead_pid() -> tuple[int, int | None]:
    p = subprocess.Popen(["true"])
    started = procs.start_ticks(p.pid)
    p.wait()
    return p.pid, started


def test_a_dead_runners_leftover_command_is_ended_and_its_attempt_failed(
    tmp_path: Path, checkpoint: Path
) -> None:
    """The issue's case: the runner was killed, its command lives on (here: a process group of its own)."""
    from bench.sweep.spec import load_plan

    plan = load_plan(sweep(tmp_path, checkpoint), tmp_path / "out")
    db = tmp_path / "runs.duckdb"
    # the command's group leader is gone (as after a runner's SIGKILL), a member lives on, reparented
    sh = subprocess.Popen(
        ["sh", "-c", "sleep 30 >/dev/null & echo $!"], start_new_session=True, stdout=subprocess.PIPE
    )
    leader_started = procs.start_ticks(sh.pid)
    member = int(sh.communicate(timeout=5)[0])
    try:
        pid, started = dead_pid()
        row = running_row(
            job_id=plan.jobs[0].id,
            runner_pid=pid,
            runner_started=(started or 0) + 1,  # a pid now free, or someone else's: not our runner
            child_pgid=sh.pid,
            child_started=leader_started,
        )
        store.insert(db, row)
        execute.settle_running(db, plan, {plan.jobs[0].id}, execute.Console(stderr=True))
        assert wait_for(lambda: procs.start_ticks(member) is None, 2)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(member, signal.SIGKILL)
    (rec,) = store.attempts(db, "kill")
    assert rec["status"] == "failed" and "was still running and was ended" in rec["error"]
    assert store.next_attempt(db, plan.jobs[0].id) == 2  # the attempt number is never reused


def test_a_live_runner_is_not_run_beside_and_a_reused_pgid_is_left_alone(
    tmp_path: Path, checkpoint: Path
) -> None:
    from bench.sweep.spec import load_plan

    plan = load_plan(sweep(tmp_path, checkpoint), tmp_path / "out")
    db = tmp_path / "runs.duckdb"
    me = os.getpid()
    store.insert(db, running_row(job_id=plan.jobs[0].id, runner_pid=me, runner_started=procs.start_ticks(me)))
    with pytest.raises(UserError, match=rf"is being run by llmbench pid {me} on this host: wait for it"):
        execute.settle_running(db, plan, {plan.jobs[0].id}, execute.Console(stderr=True))
    # a group whose leader's pid now belongs to another process (other start time): not killed
    other = subprocess.Popen(["sleep", "30"], start_new_session=True)
    try:
        assert not procs.end_group(other.pid, (procs.start_ticks(other.pid) or 0) + 5, 0.1)
        assert other.poll() is None
    finally:
        other.kill()
        other.wait()


def test_a_report_older_than_the_launch_is_not_this_attempts(tmp_path: Path) -> None:
    rep = tmp_path / "report.json"
    rep.write_text("{}", encoding="utf-8")
    os.utime(rep, (time.time() - 60, time.time() - 60))
    assert execute._own_report(rep, time.time()) is None
    assert execute._own_report(rep, time.time() - 61) == "{}"
    assert execute._own_report(tmp_path / "none.json", 0) is None
