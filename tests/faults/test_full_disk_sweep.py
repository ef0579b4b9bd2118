"""``llmbench run`` and ``llmbench export`` when the disk is full (issue 11), with the stand-in trtllm-bench.

- The runs database on a full disk, before the sweep starts and once the sweep has written a row: exit 1,
  one line naming the database and the full disk, no traceback; the earlier attempts are there unchanged,
  every new row is whole, no command left running, and a run with room (``--resume``) completes the sweep.
- The sweep's output folder (datasets, logs) on a full disk: the sweep stops at once with one line naming the
  file it could not write, the attempt is recorded as failed, no temporary file is left.
- ``llmbench export`` into a full results folder: one line naming the file, the folder byte-identical.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import uuid
from pathlib import Path
from typing import Any

import duckdb
import pytest

from bench.sweep import store
from tests.faults.checks import LLMBENCH, digests, one_error_line
from tests.sweep.conftest import FAKE_BIN
from tests.sweep.helpers import write_sweep
from tests.sweep.test_kill import marked, wait_for

ROOT = Path(__file__).resolve().parents[2]
DB = "runs.duckdb"


def sweep(tmp: Path, name: str, tps: list[int], out: Path) -> Path:
    checkpoint = tmp / "checkpoint"
    checkpoint.mkdir(exist_ok=True)
    (checkpoint / "config.json").write_text(json.dumps({"vocab_size": 1000, "eos_token_id": 2}))
    spec = {
        "name": name,
        "model": {"id": "meta-llama/Llama-3.1-8B-Instruct", "path": str(checkpoint)},
        "parallelism": {"tp": tps},
        "workloads": [{"isl": 32, "osl": 16, "num_requests": 20}, {"isl": 64, "osl": 16, "num_requests": 20}],
        "run": {"timeout_s": 60, "kill_grace_s": 0.5, "output_dir": str(out)},
        "publish": {"submitter": "llmbench CI", "system": "CI node"},
    }
    return write_sweep(tmp, spec, name=f"{name}.yaml")


def env(tmp: Path, marker: str) -> dict[str, str]:
    return {
        **os.environ,
        "PATH": f"{FAKE_BIN}{os.pathsep}{os.environ['PATH']}",
        "FAKE_TRTLLM_CALLS": str(tmp / "calls.jsonl"),
        "FAKE_GPU_COUNT": "4",
        "FAKE_TRTLLM_BEHAVIOUR": "{}",
        "LLMBENCH_KILL_TEST": marker,  # tests.sweep.test_kill.marked finds what is left running
    }


def run(sweep_file: Path, db: Path, *more: str) -> list[str]:
    return [LLMBENCH, "run", str(sweep_file), "--runs-db", str(db), "--no-progress", *more]


def rows(db: Path) -> list[dict[str, Any]]:
    with duckdb.connect(str(db), read_only=True) as con:
        cur = con.execute(
            "SELECT sweep, job_id, attempt, status, output_tokens_per_s, metrics FROM runs ORDER BY ALL"
        )
        return [dict(zip([d[0] for d in cur.description], r, strict=True)) for r in cur.fetchall()]


@pytest.fixture(scope="module")
def earlier(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """seed/runs.duckdb: a runs database holding an earlier sweep "first" (2 jobs, ok)."""
    work = tmp_path_factory.mktemp("full-sweep")
    res = subprocess.run(
        run(sweep(work, "first", [1], work / "out"), work / "seed" / DB),
        env=env(work, "setup"), capture_output=True, text=True,
    )  # fmt: skip
    assert res.returncode == 0, res.stderr
    assert [r["status"] for r in rows(work / "seed" / DB)] == ["ok", "ok"]
    return work


@pytest.mark.parametrize("during", [False, True], ids=["full before start", "fills up during the sweep"])
def test_runs_database_on_a_full_disk(full_disk, earlier: Path, tmp_path: Path, during: bool) -> None:
    folder, marker = tmp_path / "disk", uuid.uuid4().hex
    db, second = folder / DB, sweep(tmp_path, "second", [1, 2, 4], tmp_path / "out")
    before = rows(earlier / "seed" / DB)

    # during: 1 MiB of room until the first benchmark starts (its `running` row is written by then), then
    # the disk is filled to the brim while it runs
    free, trigger = ((1 << 20), tmp_path / "calls.jsonl") if during else (0, None)
    ran = full_disk(run(second, db), folder=folder, seed=earlier / "seed", free=free, fill_when=trigger,
                    env=env(tmp_path, marker))  # fmt: skip

    one_error_line(ran.output, ran.code, db)
    assert wait_for(lambda: not marked(marker), 5), f"left running: {marked(marker)}"
    files = {p.name: p.stat().st_size for p in ran.after.iterdir()}
    assert set(files) <= {DB, f"{DB}.wal"} and files.get(f"{DB}.wal", 0) == 0, files  # DuckDB's own, empty
    after = rows(ran.after / DB)
    assert [r for r in after if r["sweep"] == "first"] == before
    new = [r for r in after if r["sweep"] == "second"]
    if not during:
        assert digests(ran.after / DB) == digests(earlier / "seed" / DB) and new == []
    else:
        assert new, f"the sweep should have written a row before the disk was full: {ran.output}"
    assert all(r["status"] in ("running", "ok") for r in new)  # whole rows: ok ones have their metrics
    assert all(json.loads(r["metrics"])["output_tokens_per_s"] > 0 for r in new if r["status"] == "ok")

    # With room again the same database takes the rest: every job ok, the left `running` row settled.
    res = subprocess.run(run(second, ran.after / DB, "--resume"), env=env(tmp_path, marker),
                         capture_output=True, text=True)  # fmt: skip
    assert res.returncode == 0, res.stderr
    assert len(store.completed(ran.after / DB, "second")) == 6
    assert not store.running(ran.after / DB, "second")
    assert sorted(p.name for p in ran.after.iterdir()) == [DB]


# 8 KiB: room for the dataset (about 3 KB) and its .meta.json, not for the job's log
@pytest.mark.parametrize("free", [0, 8192], ids=["full before start", "fills up during the sweep"])
def test_sweep_output_on_a_full_disk_stops_the_sweep(full_disk, tmp_path: Path, free: int) -> None:
    folder, marker, db = tmp_path / "disk", uuid.uuid4().hex, tmp_path / DB
    sweep_file = sweep(tmp_path, "second", [1, 2, 4], folder / "out")

    ran = full_disk(run(sweep_file, db), folder=folder, free=free, env=env(tmp_path, marker))

    assert wait_for(lambda: not marked(marker), 5), f"left running: {marked(marker)}"
    [attempt] = store.attempts(db, "second")  # the sweep stopped at its first job, recorded as failed
    assert attempt["status"] == "failed" and attempt["job_index"] == 0
    files = sorted(str(p.relative_to(ran.after)) for p in ran.after.rglob("*") if p.is_file())
    assert not [f for f in files if f.endswith(".tmp")], files
    if free == 0:
        line = one_error_line(ran.output, ran.code, folder / "out" / "datasets")
        assert files == [] and attempt["error"].startswith(f"dataset: {folder / 'out' / 'datasets'}")
    else:
        line = one_error_line(ran.output, ran.code, attempt["log_path"])
        assert attempt["error"] == f"cannot write {attempt['log_path']}: No space left on device"
        assert len([f for f in files if f.endswith(".jsonl")]) == 1  # the dataset, whole (renamed into place)
    assert "the sweep stopped (job [0] recorded as failed)" in line
    assert "Traceback" not in ran.output


def test_export_into_a_full_results_folder(full_disk, earlier: Path, tmp_path: Path) -> None:
    folder, seed = tmp_path / "disk", tmp_path / "seed"
    shutil.copytree(ROOT / "results" / "kisti", seed / "kisti")  # a results folder as it was
    before = digests(seed)
    argv = [LLMBENCH, "export", "--runs-db", str(earlier / "seed" / DB), "--results", str(folder)]

    ran = full_disk(argv, folder=folder, seed=seed, env=env(tmp_path, "export"))

    line = one_error_line(ran.output, ran.code, folder / "llmbench-ci")  # the new file's folder
    assert line.endswith("nothing written"), line
    assert digests(ran.after) == before  # no half-written YAML, no temp file, no new empty folder
