"""No test pins today's data: the tests that read results/ pass on a copy with a contributor's files added.

results/ grows every week. ``tests/plausible.py`` writes one plausible file per registry GPU (at least
25): every precision and engine, odd workloads, every optional field missing in some, streaming runs with
and without per-user figures. The data-reading tests then run in a subprocess with
``$LLMBENCH_TEST_RESULTS`` pointing at the copy (tests/conftest.py ``RESULTS``): the real ingest, the real
site build (``mkdocs build --strict``, both languages) and the pages' figures, all computed from the copy.

``LLMBENCH_PLAUSIBLE_BROWSER=1`` adds the browser tests that read the real site (several minutes more).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from bench.cli import app
from bench.contract import registry
from tests.conftest import ROOT
from tests.plausible import DROPS, plausible_files, write_plausible

# The modules that read the committed data (RESULTS) without a browser, and those that drive one.
DATA_TESTS = [
    "tests/contract/test_load.py",
    "tests/contract/test_listing.py",
    "tests/guide/test_bound.py",
    "tests/guide/test_guide_docs.py",
    "tests/guide/test_guide_views.py",
    "tests/site/test_mlperf_pages.py",  # builds the real-results site: every page, mkdocs --strict
]
BROWSER_TESTS = [
    "tests/site/test_latency_table.py",
    "tests/site/test_latency_filters.py",
    "tests/site/test_latency_browser.py",
    "tests/site/test_mlperf_pages.py",
    "tests/site/test_browser.py",
    "tests/site/test_polish.py",
]


def _keys(d: object, prefix: str = "") -> set[str]:
    if isinstance(d, dict):
        return {f"{prefix}{k}" for k in d} | {x for k, v in d.items() for x in _keys(v, f"{prefix}{k}.")}
    if isinstance(d, list):
        return {x for v in d for x in _keys(v, prefix)}
    return set()


def test_the_plausible_files_validate_and_cover_what_a_contributor_may_send(tmp_path: Path, runner) -> None:
    written = write_plausible(tmp_path / "results")
    assert len(written) >= 25
    out = runner.invoke(app, ["validate", "--results", str(tmp_path / "results")])
    assert out.exit_code == 0, out.output
    data = [yaml.safe_load(p.read_text(encoding="utf-8")) for p in written]
    assert {d["hardware"]["gpu"] for d in data} == {g.name for g in registry.gpus().entries}
    assert {d["model"]["weight_precision"] for d in data} == set(registry.precisions())
    runs = [r for d in data for r in d["runs"]]
    streaming = [r for r in runs if r["workload"].get("streaming")]
    assert any("output_tokens_per_s_per_user" in r["metrics"] for r in streaming)
    assert any("tpot_ms" in r["metrics"] and "output_tokens_per_s_per_user" not in r["metrics"] for r in runs)
    assert any("output_tokens_per_s" not in r["metrics"] for r in runs)  # per-user figure only
    # every optional field this generator writes is missing from at least one file
    every, common = set().union(*map(_keys, data)), set.intersection(*map(_keys, data))
    dropped = {k for k in every - common if k.rsplit(".", 1)[-1] in set().union(*DROPS)}
    assert {k.rsplit(".", 1)[-1] for k in dropped} >= {"gpu_label", "url", "kv_cache_dtype", "concurrency"}
    assert plausible_files() == plausible_files()  # deterministic


def test_the_data_tests_pass_with_a_contributors_files_added(tmp_path: Path) -> None:
    results = tmp_path / "results"
    shutil.copytree(ROOT / "results", results)
    write_plausible(results)
    browser = os.environ.get("LLMBENCH_PLAUSIBLE_BROWSER") == "1"
    modules = sorted(set(DATA_TESTS + (BROWSER_TESTS if browser else [])))
    env = {**os.environ, "LLMBENCH_TEST_RESULTS": str(results), "PYTHONPATH": str(ROOT)}
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *modules]
    if not browser:
        cmd += ["-m", "not browser"]
    proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=1800)
    tail = "\n".join(proc.stdout.splitlines()[-40:])
    assert proc.returncode == 0, tail
    assert " passed" in tail and "failed" not in tail and "error" not in tail.lower(), tail


@pytest.mark.parametrize("module", DATA_TESTS + BROWSER_TESTS)
def test_the_listed_modules_exist(module: str) -> None:
    assert (ROOT / module).is_file(), module
