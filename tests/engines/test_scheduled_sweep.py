"""scripts/scheduled-sweep.sh end to end on CPU: the transformers engine's tiny random Llama is swept,
exported into a new branch, diffed against the base branch, and the branch is pushed to a local bare git
remote with the pull request's body written; nothing reaches the network (the remote is a folder, `gh` is
not called: OPEN_PR=0).

The only seam: ``LLMBENCH`` runs the real CLI with the test-only ``CPU (CI test)`` GPU registry entry
(tests/engines/conftest.py), because a CPU must not pretend to be a GPU in the real registry.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import yaml

from tests.engines.conftest import CPU_ENTRY, TINY
from tests.site.conftest import write_fixture_results

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "scheduled-sweep.sh"
GIT = ["git", "-c", "user.email=t@example.org", "-c", "user.name=t", "-c", "commit.gpgsign=false"]

LAUNCHER = f"""#!{sys.executable}
# llmbench with one more GPU registry entry (test-only), else exactly the CLI
import sys
sys.path.insert(0, {str(ROOT)!r})
from bench.contract import registry
_real = registry._load
registry._load = lambda f: [*_real(f), {CPU_ENTRY!r}] if f == "gpus.yaml" else _real(f)
from bench.cli import app
sys.argv[0] = "llmbench"
app()
"""


def _git(cwd: Path, *args: str) -> str:
    return subprocess.run([*GIT, *args], cwd=cwd, check=True, capture_output=True, text=True).stdout


def test_scheduled_sweep_pushes_a_branch_with_its_results_and_the_diff_as_pr_body(tmp_path: Path) -> None:
    # the project: a clone whose origin is a bare repository holding main with some results
    origin, clone = tmp_path / "origin.git", tmp_path / "clone"
    subprocess.run([*GIT, "init", "-q", "--bare", "-b", "main", str(origin)], check=True)
    subprocess.run([*GIT, "clone", "-q", str(origin), str(clone)], check=True, capture_output=True)
    write_fixture_results(clone / "results")
    _git(clone, "add", "results")
    _git(clone, "commit", "-qm", "results")
    _git(clone, "push", "-q", "origin", "HEAD:main")
    before = _git(clone, "status", "--porcelain")

    sweep = {
        "name": "weekly-cpu",
        "engine": "transformers",
        "model": {"id": TINY, "precision": "FP32"},
        "transformers": {"batching": "generate", "weights": "random", "device": "cpu"},
        "workloads": [{"isl": 16, "osl": 8, "num_requests": 4}],
        "settings": {"max_batch_size": [4]},
        "dataset": {"vocab_size": 1024, "eos_id": 2},
        "cluster": {"gpus_per_node": 1},
        "hardware": {"gpu": CPU_ENTRY["name"]},
        "run": {"timeout_s": 120, "output_dir": str(tmp_path / "sweep-out")},
        "publish": {"submitter": "scheduled CI", "system": "CI runner"},
    }
    sweep_file = tmp_path / "weekly.yaml"
    sweep_file.write_text(yaml.safe_dump(sweep, sort_keys=False), encoding="utf-8")
    launcher = tmp_path / "llmbench"
    launcher.write_text(LAUNCHER, encoding="utf-8")
    launcher.chmod(0o755)
    work = tmp_path / "work"
    env = {
        **os.environ, "LLMBENCH": str(launcher), "WORK": str(work), "OPEN_PR": "0", "PYTHONPATH": str(ROOT),
        "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org", "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.org", "GIT_CONFIG_NOSYSTEM": "1",
    }  # fmt: skip
    done = subprocess.run(
        ["bash", str(SCRIPT), str(sweep_file)],
        cwd=clone,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stdout + done.stderr

    branches = _git(origin, "branch", "--list", "sweep/*").split()
    assert len(branches) == 1
    branch = branches[0]
    added = _git(origin, "diff", "--name-status", "main", branch).splitlines()
    assert len(added) == 1 and added[0].startswith("A\tresults/") and "/transformers-" in added[0]
    result = yaml.safe_load(_git(origin, "show", f"{branch}:{added[0].split(chr(9))[1]}"))
    assert result["hardware"]["gpu"] == CPU_ENTRY["name"] and result["model"]["id"] == TINY

    body = (work / "pr-body.md").read_text(encoding="utf-8")
    assert body.startswith(f"## llmbench diff: origin/main → {branch}")
    assert "Files: 1 added, 0 changed, 0 removed. Runs: 1 added" in body
    assert CPU_ENTRY["name"].replace("(", "\\(").replace(")", "\\)") in body
    # the clone's own work tree is untouched: the branch was made in a worktree under WORK
    assert _git(clone, "status", "--porcelain") == before
    # and running it again into the same WORK refuses (never reuses a folder it did not make)
    again = subprocess.run(
        ["bash", str(SCRIPT), str(sweep_file)], cwd=clone, env=env, capture_output=True, text=True, timeout=60
    )
    assert again.returncode == 1 and "WORK must name a new folder" in again.stderr
