"""Hostile sweep files: script injection through Slurm fields, huge products, out-of-range numbers, paths.

Each case asserts the exact located message (file:line: key: expectation), that `submit --dry-run` / `plan`
exit 1, and that nothing is written (no sbatch script, no runs database). The line numbers are those of the
hand-written YAML below (counted by eye, not by the code under test).
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from bench.cli import app
from bench.sweep import slurm
from bench.sweep import spec as sweep
from bench.sweep.engine import model_slug
from bench.trtllm.command import engine_dir, engine_workspace

# line 1..: every key on its own line, so each value's line is known by construction
TEMPLATE = """\
name: hostile
model:
  id: {model_id}
trtllm:
  version: 1.2.0
  workflow: {workflow}
  build:
    quantization: {quantization}
parallelism:
  tp: {tp}
workloads:
  - {{isl: 16, osl: 8, num_requests: 10}}
concurrency: {concurrency}
dataset:
  seed: {seed}
cluster:
  gpus_per_node: 2
  launcher: srun
  slurm:
    partition: {partition}
    account: {account}
    time_limit: {time_limit}
    extra_directives: {extra}
    setup:
      - module load apptainer
      - {setup}
    request_gpus: {request_gpus}
run:
  output_dir: {output_dir}
"""
DEFAULTS: dict[str, Any] = {
    "model_id": "meta-llama/Llama-3.1-8B-Instruct",
    "workflow": "pytorch",
    "quantization": "null",
    "tp": "[1, 2]",
    "concurrency": "[null]",
    "seed": "420",
    "partition": "debug",
    "account": "kisti",
    "time_limit": '"00:05:00"',
    "extra": '["--exclusive"]',
    "setup": "module load cuda",
    "request_gpus": "true",
}


def write(tmp: Path, **over: str) -> Path:
    fields = {**DEFAULTS, "output_dir": str(tmp / "out"), **over}
    path = tmp / "sweep.yaml"
    path.write_text(TEMPLATE.format(**fields), encoding="utf-8")
    return path


def submit_dry(tmp: Path, path: Path, *args: str) -> Any:
    runs = tmp / "runs.duckdb"
    return CliRunner().invoke(app, ["submit", str(path), "--dry-run", "--runs-db", str(runs), *args])


ONE_LINE = (
    "expected one line of text without control characters (it may reach an sbatch script, a command line "
    "or a path)"
)


@pytest.mark.parametrize(
    ("over", "where"),
    [
        ({"partition": '"gpu\\nrm -rf ~"'}, "20: cluster.slurm.partition"),
        ({"account": '"kisti\\rcurl x | sh"'}, "21: cluster.slurm.account"),
        ({"time_limit": '"04:00:00\\ntouch /tmp/pwned"'}, "22: cluster.slurm.time_limit"),
        ({"extra": '["--exclusive\\necho pwned"]'}, "23: cluster.slurm.extra_directives.0"),
        ({"setup": '"module load x\\ntouch /tmp/pwned"'}, "26: cluster.slurm.setup.1"),
        ({"output_dir": '"/tmp/out\\ntouch /tmp/pwned"'}, "29: run.output_dir"),
        ({"model_id": '"meta-llama/x\\u001b[31m"'}, "3: model.id"),
        ({"quantization": '"FP8\\u0000"'}, "8: trtllm.build.quantization"),
    ],
)  # fmt: skip
def test_a_control_character_in_any_field_is_refused_with_its_line_and_no_script_is_written(
    tmp_path: Path, over: dict[str, str], where: str
) -> None:
    path = write(tmp_path, **over)
    code = {"\\n": "000A", "\\r": "000D", "\\u001b": "001B", "\\u0000": "0000"}
    char = next(c for k, c in code.items() if k in next(iter(over.values())))
    with pytest.raises(sweep.SweepError) as e:
        sweep.load_plan(path)
    assert str(e.value) == f"{path}: invalid sweep file:\n  {path}:{where}: {ONE_LINE}, got U+{char}"
    res = submit_dry(tmp_path, path)
    assert res.exit_code == 1 and f"{where}: expected one line" in res.output
    assert not (tmp_path / "out").exists() and not (tmp_path / "runs.duckdb").exists()


def test_an_output_folder_with_a_line_break_on_the_command_line_is_refused(tmp_path: Path) -> None:
    path = write(tmp_path)
    res = submit_dry(tmp_path, path, "--out", str(tmp_path / "o\nrm -rf ~"))
    assert res.exit_code == 1
    assert "--out: expected a folder name without control characters, got" in res.output
    assert not (tmp_path / "o").exists() and not (tmp_path / "runs.duckdb").exists()


def test_directive_values_are_quoted_as_sbatch_reads_them(tmp_path: Path) -> None:
    path = write(tmp_path, output_dir=str(tmp_path / "my out"), account='"my account"')
    (script,) = slurm.render(sweep.load_plan(path), path, tmp_path / "r.duckdb")[:1]
    assert f"#SBATCH --output='{tmp_path}/my out/slurm/%x-%A_%a.out'\n" in script.text
    assert "#SBATCH --account='my account'\n" in script.text
    assert "#SBATCH --partition=debug\n" in script.text  # nothing to quote: left as written


@pytest.mark.slurm
def test_sbatch_reads_a_quoted_folder_with_spaces(slurm_cluster: Any, tmp_path: Path) -> None:
    """The real sbatch parses the quoted '#SBATCH --output' value back to the folder with its space."""
    out = tmp_path / "my out"
    path = write(tmp_path, output_dir=str(out), account="null", request_gpus="false")
    script = slurm.render(sweep.load_plan(path), path, tmp_path / "r.duckdb")[0]
    (out / "slurm").mkdir(parents=True)
    file = out / "slurm" / "s.sbatch"
    file.write_text(script.text, encoding="utf-8")
    res = subprocess.run(["sbatch", "--hold", "--parsable", str(file)], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    job = res.stdout.strip().split(";")[0]
    try:
        shown = subprocess.run(["scontrol", "show", "job", job], capture_output=True, text=True).stdout
        std_out = next(line.strip() for line in shown.splitlines() if line.strip().startswith("StdOut="))
        assert std_out.startswith(f"StdOut={out}/slurm/"), shown
    finally:
        subprocess.run(["scancel", job], check=False)


def test_a_huge_product_is_refused_before_it_is_expanded(tmp_path: Path) -> None:
    """100 x 100 x 100 x 100 = 10^8 combinations: listing them would never end; the error names the lists."""
    path = write(
        tmp_path,
        tp=str(list(range(1, 101))),
        concurrency=str(list(range(1, 101))),
        extra="[]",
    )
    text = path.read_text().replace(
        "  - {isl: 16, osl: 8, num_requests: 10}",
        "\n".join(f"  - {{isl: {i}, osl: 8, num_requests: 10}}" for i in range(1, 101)),
    )
    text = text.replace(
        "concurrency:", "settings:\n  max_batch_size: " + str(list(range(1, 101))) + "\nconcurrency:"
    )
    path.write_text(text, encoding="utf-8")
    res = CliRunner().invoke(app, ["plan", str(path)])
    assert res.exit_code == 1
    expected = (
        f"error: {path}: the sweep makes 100,000,000 combinations (parallelism.tp (100) x workloads (100) x "
        "settings.max_batch_size (100) x concurrency (100)), more than the limit of 10,000 jobs: shorten "
        "those lists, split the sweep, or raise the limit with --max-jobs N"
    )
    assert " ".join(res.output.split()) == expected


def test_max_jobs_raises_the_limit(tmp_path: Path) -> None:
    path = write(tmp_path, tp="[1, 2]", concurrency="[1, 2, 4]")
    low = CliRunner().invoke(app, ["plan", str(path), "--max-jobs", "5"])
    assert low.exit_code == 1 and "makes 6 combinations" in low.output and "limit of 5 jobs" in low.output
    ok = CliRunner().invoke(app, ["plan", str(path), "--max-jobs", "6"])
    assert ok.exit_code == 0, ok.output
    plan = sweep.load_plan(path, max_jobs=6)
    scripts = slurm.render(plan, path, tmp_path / "r.duckdb", max_jobs=6)
    assert all("--max-jobs 6 " in s.text for s in scripts)  # the array tasks expand it under the same limit
    assert sweep.DEFAULT_MAX_JOBS == 10_000  # the CLI's default (bench/cli.py MAX_JOBS) says the same


@pytest.mark.parametrize(
    ("over", "message"),
    [
        ({"seed": "-1"}, "15: dataset.seed: expected greater than or equal to 0, got -1"),
        ({"seed": "4294967296"},
         "15: dataset.seed: expected less than or equal to 4294967295, got 4294967296"),
        ({"concurrency": "[-5]"}, "13: concurrency.0: expected null or -1 (unlimited) or 1..1000000, got -5"),
        ({"concurrency": "[0]"}, "13: concurrency.0: expected null or -1 (unlimited) or 1..1000000, got 0"),
        ({"concurrency": "[1000001]"},
         "13: concurrency.0: expected null or -1 (unlimited) or 1..1000000, got 1000001"),
        ({"tp": "['2']"}, '10: parallelism.tp.0: expected a valid integer, got "2"'),
        ({"concurrency": "['8']"}, '13: concurrency.0: expected a valid integer, got "8"'),
        ({"request_gpus": "'yes'"}, '27: cluster.slurm.request_gpus: expected a valid boolean, got "yes"'),
        ({"model_id": "../../etc"}, "3: model.id: expected a Hugging Face repo id like"),
        ({"model_id": '".."'}, "3: model.id: expected a Hugging Face repo id like"),
        ({"model_id": "/etc/passwd"}, "3: model.id: expected a Hugging Face repo id like"),
    ],
)  # fmt: skip
def test_out_of_range_and_coerced_values_are_refused_at_plan(
    tmp_path: Path, over: dict[str, str], message: str
) -> None:
    path = write(tmp_path, **over)
    res = CliRunner().invoke(app, ["plan", str(path)])
    assert res.exit_code == 1
    assert f"{path}:{message}" in " ".join(res.output.split()) or f"{path}:{message}" in res.output
    assert not (tmp_path / "out").exists()


def test_path_parts_from_a_sweep_stay_inside_the_workspace(tmp_path: Path) -> None:
    path = write(tmp_path, workflow="legacy-engine", quantization='"../../x"')
    plan = sweep.load_plan(path)
    root = (tmp_path / "out" / "engines").resolve()
    for job in plan.jobs:
        ws, engine = engine_workspace(job).resolve(), engine_dir(job).resolve()
        assert ws.is_relative_to(root) and engine.is_relative_to(ws), (ws, engine)
        assert ws.parent == root / "meta-llama--Llama-3.1-8B-Instruct"  # one component per model
    assert [model_slug(x) for x in ("..", ".", "", "../../etc", "a/b")] == [
        "_",
        "_",
        "_",
        "--..--etc",
        "a--b",
    ]
