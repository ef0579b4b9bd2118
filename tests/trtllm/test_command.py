"""Command lines per TensorRT-LLM era equal the documented forms (golden cases in data/commands.yaml)."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest
import yaml

from bench.sweep import launch
from bench.trtllm import command
from tests.sweep.helpers import plan

CASES = yaml.safe_load((Path(__file__).parent / "data" / "commands.yaml").read_text(encoding="utf-8"))


def _fill(text: str, subst: dict[str, str]) -> list[str]:
    for k, v in subst.items():
        text = text.replace(k, v)
    return shlex.split(text)


@pytest.mark.parametrize("case", sorted(CASES))
def test_command_lines_match_the_documented_form_of_each_era(case: str, tmp_path: Path) -> None:
    spec = CASES[case]
    opts = tmp_path / "llm_options.yml"
    sweep = yaml.safe_load(yaml.safe_dump(spec["sweep"]).replace("$OPTS", str(opts)))
    want = {"ep": None, **spec["job"]}
    sweep["parallelism"] = {k: [want[k]] for k in ("tp", "pp", "ep")}
    p = plan(tmp_path, sweep)
    assert len(p.jobs) == 1, [s.reason for s in p.skipped]
    job = p.jobs[0]
    report = job.job_dir / "report-1.json"
    steps = launch.job_steps(job, job.kv_fraction, report)
    subst = {
        "$DATASET": str(launch.dataset_path(job)),
        "$REPORT": str(report),
        "$WS": str(command.engine_workspace(job)),
        "$ENGINE": str(command.engine_dir(job)),
        "$OPTS": str(opts),
    }
    assert [s.argv for s in steps] == [_fill(line, subst) for line in spec["steps"]]


def test_global_options_come_before_the_subcommand_and_parallelism_after_it(tmp_path: Path) -> None:
    job = plan(tmp_path, {"parallelism": {"tp": [2]}}).jobs[0]
    argv = launch.job_steps(job, None, tmp_path / "r.json")[-1].argv
    sub = argv.index("throughput")
    assert argv.index("--model") < sub < argv.index("--tp") and argv.index("--pp") > sub


def test_legacy_engine_with_limits_is_built_once_for_every_workload(tmp_path: Path) -> None:
    p = plan(
        tmp_path,
        {
            "trtllm": {"version": "0.21.0", "workflow": "legacy-engine"},
            "workloads": [
                {"isl": 128, "osl": 128, "num_requests": 10},
                {"isl": 2048, "osl": 128, "num_requests": 5},
            ],
            "settings": {"max_batch_size": [256], "max_num_tokens": [4096]},
        },
    )
    engines = {command.engine_dir(j) for j in p.jobs}
    assert len(p.jobs) == 2 and len(engines) == 1
    build = launch.job_steps(p.jobs[0], None, tmp_path / "r.json")[0]
    assert build.name == "build" and build.creates == command.engine_dir(p.jobs[0]) / "config.json"
    assert build.argv[build.argv.index("--max_seq_len") + 1] == str(2048 + 128)  # the longest workload


def test_legacy_engine_built_from_a_dataset_is_built_per_workload(tmp_path: Path) -> None:
    p = plan(
        tmp_path,
        {
            "trtllm": {"version": "0.21.0", "workflow": "legacy-engine"},
            "workloads": [
                {"isl": 128, "osl": 128, "num_requests": 10},
                {"isl": 2048, "osl": 128, "num_requests": 5},
            ],
        },
    )
    assert len({command.engine_dir(j) for j in p.jobs}) == 2
    builds = [launch.job_steps(j, None, tmp_path / "r.json")[0].argv for j in p.jobs]
    assert [b[b.index("--dataset") + 1] for b in builds] == [str(launch.dataset_path(j)) for j in p.jobs]


def test_kv_fraction_of_a_retry_replaces_the_sweep_value(tmp_path: Path) -> None:
    job = plan(tmp_path, {"settings": {"kv_cache_free_gpu_mem_fraction": 0.95}}).jobs[0]
    argv = launch.job_steps(job, 0.8, tmp_path / "r.json")[-1].argv
    assert argv[argv.index("--kv_cache_free_gpu_mem_fraction") + 1] == "0.8"


def test_prepare_dataset_equivalent_names_the_same_parameters(tmp_path: Path) -> None:
    job = plan(tmp_path, {"workloads": [{"isl": 2048, "osl": 128, "num_requests": 3000}]}).jobs[0]
    text = launch.prepare_dataset_equivalent(job)
    assert "--stdout" in text and "token-norm-dist --num-requests=3000 --input-mean=2048" in text
    assert text.endswith(str(launch.dataset_path(job)))


@pytest.mark.parametrize(
    ("version", "feature", "expected"),
    [("0.18.1", "ep", False), ("0.19.0", "ep", True), ("0.21.0", "default_backend_pytorch", False),
     ("1.0.0", "default_backend_pytorch", True), ("0.12.0", "report_json", False),
     ("1.3.0rc26", "no_engines", True)],
)  # fmt: skip
def test_version_table_follows_the_reference_notes(version: str, feature: str, expected: bool) -> None:
    assert command.has(version, feature) is expected
