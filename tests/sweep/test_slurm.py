"""Slurm: sbatch scripts (dry run) and a tiny sweep submitted to a real single-node Slurm."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from bench.cli import app
from bench.sweep import slurm, store
from bench.sweep.spec import load_plan
from tests.sweep.helpers import write_sweep


def spec(tmp: Path, checkpoint: Path, **over: Any) -> dict[str, Any]:
    return {
        "name": "slurm-e2e",
        "model": {"id": "meta-llama/Llama-3.1-8B-Instruct", "path": str(checkpoint)},
        "trtllm": {"version": "1.2.0", "workflow": "pytorch"},
        "parallelism": {"tp": [1, 2]},
        "workloads": [{"isl": 16, "osl": 8, "num_requests": 10}],
        "cluster": {
            "gpus_per_node": 2,
            "launcher": "srun",
            "slurm": {"mode": "array", "request_gpus": False, "srun_mpi": None, "time_limit": "00:05:00"},
        },
        "run": {"timeout_s": 30, "output_dir": str(tmp / "out")},
        **over,
    }


def test_dry_run_prints_one_array_per_job_shape(tmp_path: Path, checkpoint: Path) -> None:
    path = write_sweep(tmp_path, spec(tmp_path, checkpoint, parallelism={"tp": [1, 2, 4]}))
    res = CliRunner().invoke(app, ["submit", str(path), "--dry-run", "--runs-db", str(tmp_path / "r.duckdb")])
    assert res.exit_code == 0, res.output
    assert res.output.count("#!/bin/bash") == 2  # (1 node, 1 GPU) and (1 node, 2 GPUs); tp 4 > 2 GPUs
    assert "#SBATCH --array=0\n" in res.output and "#SBATCH --array=1\n" in res.output
    assert "#SBATCH --ntasks-per-node=2" in res.output and "--gpus-per-node" not in res.output
    assert '--only "$SLURM_ARRAY_TASK_ID"' in res.output and "#SBATCH --time=00:05:00" in res.output
    assert not (tmp_path / "out" / "slurm").exists()  # a dry run writes nothing


def test_jobs_already_done_are_left_out_of_the_arrays(tmp_path: Path, checkpoint: Path) -> None:
    path = write_sweep(tmp_path, spec(tmp_path, checkpoint, parallelism={"tp": [1, 2]}))
    plan = load_plan(path)
    scripts = slurm.render(plan, path, tmp_path / "r.duckdb", done={plan.jobs[0].id})
    assert [s.jobs for s in scripts] == [[1]]
    assert slurm.render(plan, path, tmp_path / "r.duckdb", done={j.id for j in plan.jobs}) == []


def test_single_mode_runs_the_whole_sweep_in_one_job(tmp_path: Path, checkpoint: Path) -> None:
    s = spec(tmp_path, checkpoint)
    s["cluster"]["slurm"] = {
        "mode": "single", "partition": "gpu", "account": "kisti",
        "extra_directives": ["--exclusive"], "setup": ["module load apptainer"],
    }  # fmt: skip
    path = write_sweep(tmp_path, s)
    (script,) = slurm.render(load_plan(path), path, tmp_path / "r.duckdb")
    text = script.text
    assert "--array" not in text and "--only" not in text and "--resume" in text
    assert "#SBATCH --gpus-per-node=2" in text and "#SBATCH --partition=gpu" in text
    assert "#SBATCH --account=kisti" in text and "#SBATCH --exclusive" in text
    assert text.index("module load apptainer") < text.index("exec ")


@pytest.mark.slurm
@pytest.mark.usefixtures("fake_trtllm")
def test_submitted_sweep_runs_through_sbatch_and_srun_into_the_runs_db(
    slurm_cluster: Any, tmp_path: Path, checkpoint: Path
) -> None:
    path, db = write_sweep(tmp_path, spec(tmp_path, checkpoint)), tmp_path / "runs.duckdb"
    res = CliRunner().invoke(
        app,
        ["submit", str(path), "--runs-db", str(db), "--poll-s", "0.5", "--timeout-s", "90"],
        env={"FAKE_TRTLLM_BEHAVIOUR": json.dumps({})},
    )
    logs = "\n".join(p.read_text() for p in (tmp_path / "out" / "slurm").glob("*.out"))
    assert res.exit_code == 0, f"{res.output}\n{logs}"
    runs = store.attempts(db, "slurm-e2e")
    assert sorted((r["job"]["tp"], r["status"]) for r in runs) == [(1, "ok"), (2, "ok")], logs
    tp2 = next(r for r in runs if r["job"]["tp"] == 2)
    assert tp2["command"].startswith("srun --nodes=1 --ntasks=2 --ntasks-per-node=2 trtllm-llmapi-launch")
    assert tp2["environment"]["slurm_array_task_id"] in ("0", "1") and tp2["environment"]["slurm_job_id"]
    assert {p.name for p in (tmp_path / "out" / "slurm").glob("*.sbatch")} == {
        "llmbench-slurm-e2e-n1g1.sbatch",
        "llmbench-slurm-e2e-n1g2.sbatch",
    }
    again = CliRunner().invoke(app, ["submit", str(path), "--runs-db", str(db)])
    assert again.exit_code == 0 and "nothing to submit" in again.output  # done jobs never queue again


def test_sacct_output_gives_each_array_tasks_final_state() -> None:
    # recorded `sacct -n -P -X -j 4711 -o JobID,State` on a cluster with accounting
    text = "4711_0|COMPLETED\n4711_1|FAILED\n4711_2|CANCELLED by 1042\n4711_[3-5%1]|PENDING\n"
    assert slurm.parse_sacct(text) == {
        "4711_0": "COMPLETED",
        "4711_1": "FAILED",
        "4711_2": "CANCELLED",
        "4711_[3-5%1]": "PENDING",
    }


@pytest.mark.slurm
@pytest.mark.usefixtures("fake_trtllm")
def test_a_two_node_job_runs_one_rank_on_each_node(
    slurm_two_nodes: Any, tmp_path: Path, checkpoint: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two slurmd on this host with their own node names: a tp 2 job over two one-GPU nodes."""
    s = spec(tmp_path, checkpoint, parallelism={"tp": [2]})
    s["cluster"] |= {"gpus_per_node": 1, "nodes": 2}
    path, db, ranks = write_sweep(tmp_path, s), tmp_path / "runs.duckdb", tmp_path / "ranks.txt"
    monkeypatch.setenv("FAKE_LAUNCH_LOG", str(ranks))
    res = CliRunner().invoke(
        app,
        ["submit", str(path), "--runs-db", str(db), "--poll-s", "0.5", "--timeout-s", "90"],
        env={"FAKE_TRTLLM_BEHAVIOUR": json.dumps({})},
    )
    logs = "\n".join(p.read_text() for p in (tmp_path / "out" / "slurm").glob("*.out"))
    assert res.exit_code == 0, f"{res.output}\n{logs}"
    (run,) = store.attempts(db, "slurm-e2e")
    assert run["status"] == "ok", logs
    assert run["command"].startswith("srun --nodes=2 --ntasks=2 --ntasks-per-node=1 trtllm-llmapi-launch")
    assert sorted(ranks.read_text().split("\n")[:-1]) == ["rank=0 node=nodeA", "rank=1 node=nodeB"]
    (script,) = (tmp_path / "out" / "slurm").glob("*.sbatch")
    assert "#SBATCH --nodes=2" in script.read_text()


def test_the_fixture_says_why_it_cannot_start_slurm_and_fails_where_slurm_is_required(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Not root and a `sudo` that wants a password (exit 1 for `-n`): a skip naming the cause, a failure
    under LLMBENCH_REQUIRE_SLURM=1 (ci.yml); with a passwordless sudo the daemons go through `sudo -n`."""
    from tests.sweep import conftest as fx

    sudo = tmp_path / "sudo"
    sudo.write_text("#!/bin/sh\nexit 1\n", encoding="utf-8")
    sudo.chmod(0o755)
    monkeypatch.setattr(fx.os, "geteuid", lambda: 1000)
    monkeypatch.setenv("PATH", str(tmp_path))
    assert fx._as_root() is None
    reason = fx._why_not(("sh",))
    assert reason is not None and "not root" in reason and "sudo -n" in reason
    monkeypatch.delenv(fx.REQUIRE, raising=False)
    with pytest.raises(pytest.skip.Exception, match="not root"):
        fx._not_possible(reason)
    monkeypatch.setenv(fx.REQUIRE, "1")
    with pytest.raises(pytest.fail.Exception, match="must run here"):
        fx._not_possible(reason)
    sudo.write_text("#!/bin/sh\nexit 0\n", encoding="utf-8")
    assert fx._as_root() == [str(sudo), "-n"] and fx._why_not(("sh",)) is None
