"""The launcher around a multi-GPU step: the release's own launch script, and mpirun's host list.

Authorities: the launch script each release's setup.py installs (``cli_inventory.yaml``, read from
setup.py of 1.0.0rc4: ``tensorrt_llm/llmapi/trtllm-llmapi-launch``), the launch mode of 0.12-0.16 engine
runs (one process: ``facts.launch``, cited to TensorRT-LLM's source), and Open MPI's
``mpirun -n 16 -H host1:8,host2:8`` form
for two nodes of eight GPUs (the ``-H host:slots`` list of Open MPI's mpirun(1); the two-node form quoted
in issue 10).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from bench.cli import app
from bench.errors import UserError
from bench.sweep import launch
from bench.sweep.spec import SweepError, load
from tests.sweep.helpers import plan, write_sweep

TWO_NODES = {"cluster": {"gpus_per_node": 8, "nodes": 2, "launcher": "mpirun"}, "parallelism": {"tp": [16]}}


def _bench_argv(tmp: Path, over: dict) -> list[str]:
    job = plan(tmp, over).jobs[0]
    return launch.job_steps(job, None, tmp / "r.json")[-1].argv


@pytest.mark.parametrize(
    ("version", "workflow", "script"),
    [
        ("0.17.0", "legacy-engine", "trtllm-llmapi-launch"),  # LLM API engine run (throughput.py at b78a5461)
        ("1.0.0", "pytorch", "trtllm-llmapi-launch"),  # setup.py of 1.0.0rc4
        ("1.2.0", "pytorch", "trtllm-llmapi-launch"),
    ],
)
def test_the_launch_script_is_the_one_the_release_installs(
    tmp_path: Path, version: str, workflow: str, script: str
) -> None:
    over = {
        "trtllm": {"version": version, "workflow": workflow},
        "cluster": {"gpus_per_node": 8, "launcher": "mpirun"},
        "parallelism": {"tp": [2]},
    }
    argv = _bench_argv(tmp_path, over)
    assert argv[:3] == ["mpirun", "-n", "2"] and script in argv
    assert argv[argv.index(script) + 1] == "trtllm-bench"
    other = {"trtllm-hlapi-launch", "trtllm-llmapi-launch"} - {script}
    assert not other & set(argv)


@pytest.mark.parametrize("version", ["0.12.0", "0.13.0", "0.14.0", "0.15.0", "0.16.0"])
@pytest.mark.parametrize("launcher", ["mpirun", "srun"])
def test_engine_runs_up_to_0_16_are_one_process_and_plan_says_why(
    tmp_path: Path, version: str, launcher: str
) -> None:
    """0.12-0.16 throughput builds its executor in ORCHESTRATOR mode (bench/benchmark/dataclasses.py at
    04a2cacb, get_parallel_config): one process spawns the MPI workers; a real 0.16.0 TP8 run logs one process
    with "MPI size: 8" (issue 25). Wrapped in mpirun -n 2, each rank would start its own set."""
    over = {
        "trtllm": {"version": version, "workflow": "legacy-engine"},
        "cluster": {"gpus_per_node": 8, "launcher": launcher},
        "parallelism": {"tp": [2]},
    }
    argv = _bench_argv(tmp_path, over)
    assert argv[0] == "trtllm-bench" and not {"mpirun", "srun", "trtllm-hlapi-launch"} & set(argv)
    text = launch.describe(plan(tmp_path, over))
    assert "starts its own MPI workers from one process" in text and f"not under {launcher}" in text


def test_two_nodes_under_mpirun_pass_the_host_list(tmp_path: Path) -> None:
    argv = _bench_argv(
        tmp_path, {**TWO_NODES, "cluster": {**TWO_NODES["cluster"], "hosts": ["host1:8", "host2:8"]}}
    )
    assert argv[:5] == ["mpirun", "-n", "16", "-H", "host1:8,host2:8"]
    assert argv[argv.index("--tp") + 1] == "16"


def test_two_nodes_under_mpirun_without_hosts_is_an_error_at_plan_time(tmp_path: Path) -> None:
    path = write_sweep(tmp_path, TWO_NODES)
    got = CliRunner().invoke(app, ["plan", str(path), "--out", str(tmp_path / "out")])
    assert got.exit_code == 1
    assert "cluster.hosts" in got.output and "--hosts" in got.output and "2 nodes" in got.output
    given = CliRunner().invoke(
        app, ["plan", str(path), "--out", str(tmp_path / "out"), "--hosts", "node-a:8,node-b:8"]
    )
    assert given.exit_code == 0, given.output
    assert "mpirun -n 16 -H node-a:8,node-b:8 " in given.output


def test_one_node_under_mpirun_needs_no_host_list(tmp_path: Path) -> None:
    argv = _bench_argv(
        tmp_path, {"cluster": {"gpus_per_node": 8, "launcher": "mpirun"}, "parallelism": {"tp": [8]}}
    )
    assert "-H" not in argv


def test_a_host_list_with_too_few_slots_is_an_error(tmp_path: Path) -> None:
    p = plan(tmp_path, {**TWO_NODES, "cluster": {**TWO_NODES["cluster"], "hosts": ["host1:8", "host2:4"]}})
    with pytest.raises(UserError, match=r"needs 16 ranks but cluster.hosts host1:8,host2:4 has 12 slots"):
        launch.with_hosts(p, None)


@pytest.mark.parametrize("bad", ["host1", "host1:0", "host1:8,", ":8", "host 1:8"])
def test_a_malformed_hosts_option_is_an_error(tmp_path: Path, bad: str) -> None:
    p = plan(tmp_path, TWO_NODES)
    if bad == "host1:8,":  # a trailing comma is forgiven, but one host has too few slots
        with pytest.raises(UserError, match="has 8 slots"):
            launch.with_hosts(p, bad)
        return
    with pytest.raises(UserError, match="--hosts: expected host:slots"):
        launch.with_hosts(p, bad)


def test_a_malformed_hosts_key_names_its_line(tmp_path: Path) -> None:
    path = write_sweep(tmp_path, {"cluster": {"launcher": "mpirun", "hosts": ["host1"]}})
    with pytest.raises(SweepError, match=r"sweep\.yaml:\d+: cluster\.hosts\.0: expected"):
        load(path)


def test_srun_takes_slurms_allocation_and_no_host_list(tmp_path: Path) -> None:
    over = {"cluster": {"gpus_per_node": 8, "nodes": 2, "launcher": "srun"}, "parallelism": {"tp": [16]}}
    argv = _bench_argv(tmp_path, over)
    assert argv[:4] == ["srun", "--nodes=2", "--ntasks=16", "--ntasks-per-node=8"] and "-H" not in argv


def test_a_one_process_engine_run_over_two_nodes_is_skipped_with_the_reason(tmp_path: Path) -> None:
    """0.14 with trtllm-build (no tp x pp <= 8 rule) at tp 16 over two 8-GPU nodes: one process cannot be
    shown to place workers on another node, so the job is skipped and the reason says so."""
    over = {
        "trtllm": {
            "version": "0.14.0",
            "workflow": "legacy-engine",
            "build": {"tool": "trtllm-build", "checkpoint_dir": "/ckpt/tp{tp}-pp{pp}"},
        },
        "cluster": {"gpus_per_node": 8, "nodes": 2, "launcher": "srun"},
        "parallelism": {"tp": [8, 16]},
    }
    p = plan(tmp_path, over)
    assert [j.tp for j in p.jobs] == [8]
    (skipped,) = p.skipped
    assert "spans nodes of 8 GPUs" in skipped.reason and "not settled" in skipped.reason
