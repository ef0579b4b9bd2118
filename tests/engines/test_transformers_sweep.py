"""engine: transformers in a sweep file: the command line it runs and the combinations it refuses."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from bench.sweep import launch
from bench.sweep import spec as sweep
from tests.sweep.helpers import write_sweep

TINY = "llmbench/tiny-random-llama"


def spec(**over: object) -> dict:
    base = {
        "engine": "transformers",
        "trtllm": None,
        "model": {"id": TINY, "precision": "BF16"},
        "transformers": {"weights": "random", "batching": "static"},
        "dataset": {"vocab_size": 1024, "eos_id": 2},
        "workloads": [{"isl": 128, "osl": 128, "num_requests": 64}],
        "settings": {"max_batch_size": [32]},
    }
    return base | over


def test_job_runs_the_runner_on_the_jobs_dataset_with_registry_figures(tmp_path: Path) -> None:
    plan = sweep.load_plan(write_sweep(tmp_path, spec()), out_dir=tmp_path / "out")
    (job,) = plan.jobs
    (step,) = launch.job_steps(job, None, tmp_path / "r.json")
    argv = step.argv
    assert argv[:3] == [sys.executable, "-m", "bench.engines.transformers_runner"]
    arch = json.loads(argv[argv.index("--arch") + 1])
    assert arch == {
        "layers": 2,
        "hidden_size": 64,
        "intermediate_size": 128,
        "attention_heads": 4,
        "kv_heads": 2,
        "head_dim": 16,
        "vocab_size": 1024,
    }
    assert argv[argv.index("--dataset") + 1] == str(launch.dataset_path(job))
    assert argv[argv.index("--dtype") + 1] == "bf16" and argv[argv.index("--batching") + 1] == "static"
    assert argv[argv.index("--max_batch_size") + 1] == "32" and argv[-2:] == [
        "--report_json",
        str(tmp_path / "r.json"),
    ]


@pytest.mark.parametrize(
    ("over", "message"),
    [
        (
            {"model": {"id": TINY, "precision": "FP8"}},
            "model.precision: engine transformers runs BF16, FP16, FP32",
        ),
        (
            {"transformers": {"weights": "pretrained"}},
            "model.path: engine transformers with pretrained weights",
        ),
        ({"dataset": {}}, "dataset.vocab_size: random weights have no tokenizer"),
        ({"trtllm": {"version": "1.2.0"}}, "trtllm: engine transformers takes a transformers section"),
    ],
)
def test_sweeps_it_cannot_run_are_refused_naming_the_key(tmp_path: Path, over: dict, message: str) -> None:
    with pytest.raises(sweep.SweepError, match=message.replace("(", r"\(")):
        sweep.load_plan(write_sweep(tmp_path, spec(**over)), out_dir=tmp_path / "out")


def test_multi_gpu_combinations_are_skipped_with_the_reason(tmp_path: Path) -> None:
    over = spec(parallelism={"tp": [1, 2]}, cluster={"gpus_per_node": 2})
    plan = sweep.load_plan(write_sweep(tmp_path, over), out_dir=tmp_path / "out")
    assert [j.tp for j in plan.jobs] == [1]
    assert any("runs on one device" in s.reason for s in plan.skipped)


def test_a_concurrency_list_gives_one_closed_loop_run_per_point(tmp_path: Path) -> None:
    over = spec(transformers={"weights": "random", "batching": "generate"}, concurrency=[1, 4, 16])
    over["settings"] = {}
    plan = sweep.load_plan(write_sweep(tmp_path, over), out_dir=tmp_path / "out")
    assert sorted(j.concurrency for j in plan.jobs) == [1, 4, 16] and not plan.skipped
    for job in plan.jobs:
        (step,) = launch.job_steps(job, None, tmp_path / "r.json")
        assert step.argv[step.argv.index("--concurrency") + 1] == str(job.concurrency)
        assert "--max_batch_size" not in step.argv


def test_concurrency_with_continuous_batching_or_another_batch_size_is_skipped(tmp_path: Path) -> None:
    cont = spec(transformers={"weights": "random", "batching": "continuous"}, concurrency=[8])
    plan = sweep.load_plan(write_sweep(tmp_path, cont), out_dir=tmp_path / "a")
    assert not plan.jobs and "offline only" in plan.skipped[0].reason
    other = spec(concurrency=[8])  # settings.max_batch_size 32
    plan = sweep.load_plan(write_sweep(tmp_path, other), out_dir=tmp_path / "b")
    assert not plan.jobs and "sets the transformers batch size" in plan.skipped[0].reason


@pytest.mark.parametrize("name", ["tiny-random-llama-cpu.yaml", "h200-llama-3.1-8b.yaml"])
def test_example_sweeps_plan_their_jobs(name: str, tmp_path: Path) -> None:
    path = Path(__file__).resolve().parents[2] / "bench" / "engines" / "sweeps" / name
    plan = sweep.load_plan(path, out_dir=tmp_path)
    assert plan.jobs and not plan.skipped and {j.engine for j in plan.jobs} == {"transformers"}
