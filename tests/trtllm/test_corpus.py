"""Conformance: real trtllm-bench command lines and refusals, and a full-matrix `plan`, against the inventory.

Authorities: ``data/corpus.yaml``, command lines that ran on (or were documented for) a named release, each
with its link: TensorRT-LLM's own docs at the release commit (their printed logs name the version) and users'
issues (#2476, #2694; the refusal #3583, ``No such option: --ep`` on 0.18.1). click itself parses them, with
the options of ``bench/trtllm/cli_inventory.yaml`` rebuilt as click options (``clickparse``). The matrix test
checks what llmbench emits the same way, plus the launch mode and build rules the inventory cites.
"""

from __future__ import annotations

import itertools
import shlex
from pathlib import Path
from typing import Any

import click
import pytest
import yaml

from bench.sweep import launch
from bench.trtllm import inventory
from tests.sweep.helpers import plan
from tests.trtllm.clickparse import parse

CORPUS = yaml.safe_load((Path(__file__).parent / "data" / "corpus.yaml").read_text(encoding="utf-8"))


def _argv(entry: dict[str, Any]) -> list[str]:
    text = entry["command"]
    for name, value in (entry.get("vars") or {}).items():
        text = text.replace(name, str(value))
    assert "$" not in text, f"{entry['id']}: a placeholder has no value"
    return shlex.split(text)


def test_the_corpus_covers_each_release_the_issue_names() -> None:
    """Issue 25: at least 3 entries for each of 0.15, 0.16 and 0.17/0.18, every one with its link."""
    entries = CORPUS["commands"] + CORPUS["refusals"]
    for e in entries:
        assert e["source"].startswith("https://") and e["evidence"], e["id"]
    minors = [".".join(e["release"].split(".")[:2]) for e in entries]
    assert minors.count("0.15") >= 3
    assert minors.count("0.17") + minors.count("0.18") >= 3
    # 0.16: two commands found (issue #2694); the shortfall is reported, not padded with guesses
    assert minors.count("0.16") >= 2


@pytest.mark.parametrize("entry", CORPUS["commands"], ids=lambda e: e["id"])
def test_every_corpus_command_parses_under_its_release(entry: dict[str, Any]) -> None:
    rel = inventory.for_version(entry["release"])
    assert rel is not None, f"{entry['release']} has no inventory entry"
    argv = _argv(entry)
    sub, _ = parse(rel, argv)
    assert sub in argv


@pytest.mark.parametrize("entry", CORPUS["refusals"], ids=lambda e: e["id"])
def test_every_corpus_refusal_is_refused(entry: dict[str, Any]) -> None:
    rel = inventory.for_version(entry["release"])
    assert rel is not None
    with pytest.raises(click.NoSuchOption) as e:
        parse(rel, _argv(entry))
    assert e.value.option_name == entry["refused"]
    if "possible" in entry:  # the real message's "Possible options: ..." list, from the same click logic
        assert sorted(e.value.possibilities or []) == sorted(entry["possible"])


# --- plan over the full matrix ---------------------------------------------------------------------------

# The 14 releases of issue 25 (0.19-0.21 inventoried from era source)
RELEASES = [
    "0.12.0", "0.13.0", "0.14.0", "0.15.0", "0.16.0", "0.17.0", "0.18.1",
    "0.19.0", "0.20.0", "0.21.0", "1.0.0", "1.1.0", "1.2.0", "1.3.0rc4",
]  # fmt: skip
LAUNCHERS = ["local", "mpirun", "srun"]
MATRIX = {
    "parallelism": {"tp": [1, 2, 4], "pp": [1, 2], "ep": [None, 2]},
    "settings": {"max_batch_size": [None, 64], "max_num_tokens": [None, 2048]},
    "concurrency": [None, 8],
    "streaming": [False, True],
    "run": {"warmup": 2},
    "model": {"id": "m/x", "path": "/models/x"},
}


def _has_pytorch(version: str) -> bool:
    """From the inventory: throughput's --backend offers pytorch."""
    rel = inventory.for_version(version)
    assert rel is not None
    backend = rel.options("throughput").get("--backend")
    return backend is not None and "pytorch" in backend["type"].get("choices", ["pytorch"])


def _cases() -> list[tuple[str, str, str]]:
    workflows = ["legacy-engine", "pytorch"]
    return [
        (v, wf, launcher)
        for v, wf, launcher in itertools.product(RELEASES, workflows, LAUNCHERS)
        if wf == "legacy-engine" or _has_pytorch(v)  # else refused before planning (test_sweep.py)
    ]


@pytest.mark.parametrize(("version", "workflow", "launcher"), _cases())
def test_plan_over_the_full_matrix_emits_only_what_the_release_takes(
    version: str, workflow: str, launcher: str, tmp_path: Path
) -> None:
    over = {**MATRIX, "trtllm": {"version": version, "workflow": workflow}, "cluster": {"launcher": launcher}}
    p = plan(tmp_path, over)
    rel = inventory.for_version(version)
    assert rel is not None, f"{version}: every release of the matrix has an inventory entry"
    assert p.jobs
    single = rel.launch_mode(workflow) == "single-process"
    for job in p.jobs:
        for step in launch.job_steps(job, job.kv_fraction, tmp_path / "r.json"):
            start = step.argv.index("trtllm-bench")
            if step.name == "benchmark" and single:
                assert start == 0, f"{version} starts its own MPI workers; got {step.shell}"
            sub, given = parse(rel, step.argv[start:])
            assert sub == ("build" if step.name == "build" else "throughput")
            _check_groups(rel, sub, given, step.shell)
            if sub == "build":
                _check_build_rules(rel, given, step.shell)
            for option, why in _unsettled(rel):
                assert option not in step.argv, (option, why)
    for s in p.skipped:
        assert s.reason


def _check_groups(rel: inventory.Release, sub: str, given: dict[str, Any], shell: str) -> None:
    for group in rel.exclusive_groups(sub):
        chosen = [o for o in group["options"] if o.lstrip("-") in given]
        assert len(chosen) <= 1, (shell, group)
        if group["constraint"] == "exactly-one":
            assert len(chosen) == 1, (shell, group)


def _check_build_rules(rel: inventory.Release, given: dict[str, Any], shell: str) -> None:
    """apply_build_mode_settings (build.py at the cited commit): one build mode, --max_seq_len without a
    dataset, tp x pp <= 8."""
    rules = rel.facts.get("build_rules")
    if not rules:
        return
    modes = [o for o in rules["at_most_one_of"] if o.lstrip("-") in given]
    assert len(modes) <= 1, shell
    if "dataset" not in given:
        assert "max_seq_len" in given, shell
    assert given.get("tp_size", 1) * given.get("pp_size", 1) <= rules["max_world_size"], shell


def _unsettled(rel: inventory.Release) -> list[tuple[str, str]]:
    """Options whose presence the stored source cannot settle (unsettled choices are checked by click)."""
    items = rel.facts.get("unsettled") or []
    return [(u["option"], u["why"]) for u in items if u.get("what", "presence") == "presence"]


def test_the_matrix_test_fails_on_the_old_0_15_inventory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The entry copied from a 2024-11-26 main snapshot (build: --max_seq_length in a required group with
    --dataset, no --max_seq_len) refuses the 0.15.0 docs' own build command; the inventory read at 6b25e1e0
    takes it. Hand-made stand-in of the old entry: its build options as they were."""
    entry = next(e for e in CORPUS["commands"] if e["id"] == "perf-overview-0.15-build-limits")
    rel = inventory.for_version("0.15.0")
    assert rel is not None
    parse(rel, _argv(entry))
    old = {
        **rel.data,
        "commands": {
            **rel.data["commands"],
            "build": {
                "options": [
                    {"names": ["--tp_size", "-tp"], "is_flag": False, "type": {"kind": "int"}},
                    {"names": ["--pp_size", "-pp"], "is_flag": False, "type": {"kind": "int"}},
                    {"names": ["--quantization", "-q"], "is_flag": False, "type": {"kind": "str"}},
                    {"names": ["--max_batch_size"], "is_flag": False, "type": {"kind": "int"}},
                    {"names": ["--max_num_tokens"], "is_flag": False, "type": {"kind": "int"}},
                    {"names": ["--dataset"], "is_flag": False, "type": {"kind": "path"}},
                    {"names": ["--max_seq_length"], "is_flag": False, "type": {"kind": "int"}},
                ]
            },
        },
    }
    with pytest.raises(click.NoSuchOption) as e:
        parse(inventory.Release("0.15.0", old), _argv(entry))
    assert e.value.option_name == "--max_seq_len"
