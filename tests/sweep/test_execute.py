"""Running one process: timeout kills the whole process group; the KV-cache ladder after out-of-memory."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from bench.sweep import execute
from bench.sweep.engine import engine
from tests.sweep.helpers import plan


def test_timeout_kills_the_process_group_including_grandchildren(tmp_path: Path) -> None:
    log, marker = tmp_path / "a.log", tmp_path / "survivor"
    script = f"(sleep 3; touch {marker}) & echo started; sleep 30"
    t = time.monotonic()
    rc, timed_out = execute.run_process(["sh", "-c", script], log, timeout_s=0.5, grace_s=0.2)
    assert timed_out and rc is not None and time.monotonic() - t < 5
    assert "started" in log.read_text() and "killed after the 0.5 s timeout" in log.read_text()
    time.sleep(3.2)
    assert not marker.exists()  # the background grandchild died with its group


def test_missing_executable_is_exit_127_in_the_log(tmp_path: Path) -> None:
    log = tmp_path / "a.log"
    assert execute.run_process(["/nonexistent/trtllm-bench"], log, 5, 1) == (127, False)
    assert "cannot start" in log.read_text()


@pytest.mark.parametrize(
    ("start", "fallback", "ladder"),
    [(0.95, [0.90, 0.80], [0.90, 0.80]), (None, [0.90, 0.80], [0.80]), (0.85, [0.9, 0.8, 0.6], [0.8, 0.6])],
)
def test_kv_fraction_steps_down_the_fallbacks_below_the_current_one(
    tmp_path: Path, start: float | None, fallback: list[float], ladder: list[float]
) -> None:
    job = plan(
        tmp_path, {"settings": {"kv_cache_free_gpu_mem_fraction": start, "kv_cache_fallback": fallback}}
    ).jobs[0]
    seen, kv = [], start
    while (kv := execute.next_kv(job, kv)) is not None:
        seen.append(kv)
    assert seen == ladder


def test_only_selects_jobs_by_plan_index_and_rejects_unknown_ones(tmp_path: Path) -> None:
    p = plan(tmp_path, {"parallelism": {"tp": [1, 2, 4]}})
    assert [j.tp for j in execute.select(p, {0, 2})] == [1, 4]
    with pytest.raises(execute.UserError, match="no job with index"):
        execute.select(p, {7})


def test_installed_version_of_another_era_stops_the_sweep_before_any_job(tmp_path: Path) -> None:
    p = plan(tmp_path, {"trtllm": {"version": "1.2.0"}})
    check = engine(p.sweep.engine).check_installed
    check(p.sweep, "1.2.0rc6")  # same command lines: fine
    check(p.sweep, None)  # unknown (no tensorrt_llm importable): fine
    with pytest.raises(
        execute.UserError, match=r"TensorRT-LLM 0\.21\.0 is installed.*default_backend_pytorch"
    ):
        check(p.sweep, "0.21.0")
