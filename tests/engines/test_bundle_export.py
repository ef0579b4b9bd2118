"""The committed H200 runs are what the committed raw bundles export to; the plans match the registry."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import yaml

from bench.contract import registry
from bench.contract.resultfile import check_file
from bench.engines import bundle_export
from bench.engines.transformers_engine import ARCH_FIGURES

ROOT = Path(__file__).resolve().parents[2]
RAW = ROOT / "results" / "measured" / "raw"
COMMITTED = (
    ROOT
    / "results/measured/transformers-5.17.0/h200-sxm-141gb--llama-3.1-8b-instruct--bf16--random-weights.yaml"
)
PLANS = ROOT / "bench" / "engines" / "plans"


def test_committed_result_file_is_what_the_raw_bundles_export_to(tmp_path: Path) -> None:
    committed = yaml.safe_load(COMMITTED.read_text(encoding="utf-8"))
    src = committed["submission"]["source"]
    sub = bundle_export.Submission(
        committed["submission"]["submitter"], committed["submission"]["system"], src["title"],
        "H200 SXM 141GB", src["notes"], {(128, 128): 30000, (128, 2048): 3000, (2048, 128): 3000},
    )  # fmt: skip
    bundles = [
        (RAW / "h200-20261129-call1", "bench/engines/plans/h200-llama-3.1-8b-probe.json"),
        (RAW / "h200-20261129-call2", "bench/engines/plans/h200-llama-3.1-8b-static.json"),
        (RAW / "h200-20261129-call3", "bench/engines/plans/h200-llama-3.1-8b-generate-long.json"),
    ]
    out = bundle_export.write(bundle_export.build(bundles, dt.date(2026, 11, 29), sub), tmp_path / "r.yaml")
    assert out.read_text(encoding="utf-8") == COMMITTED.read_text(encoding="utf-8")
    checked = check_file(COMMITTED)
    assert checked.problems == [] and checked.result is not None
    assert checked.result.model.weights == "random" and checked.result.software.engine == "transformers"
    assert all("num_requests reduced" in (r.notes or "") for r in checked.result.runs)


def test_h200_plans_use_the_registry_architecture_of_their_model() -> None:
    for plan_file in PLANS.glob("*.json"):
        plan = json.loads(plan_file.read_text(encoding="utf-8"))
        arch = registry.models().get(plan["model"])
        for key in ARCH_FIGURES:
            assert plan["arch"][key] == getattr(arch, key), (plan_file.name, key)


SWEEP = COMMITTED.with_name(COMMITTED.stem + "--concurrency.yaml")
SWEEP_BUNDLES = [
    (RAW / "h200-20261130-call4", "bench/engines/plans/h200-llama-3.1-8b-latency-1024-1024.json"),
    (RAW / "h200-20261130-call5", "bench/engines/plans/h200-llama-3.1-8b-latency-128-2048-a.json"),
    (RAW / "h200-20261130-call6", "bench/engines/plans/h200-llama-3.1-8b-latency-rest.json"),
]


def test_concurrency_sweep_file_is_what_its_bundles_export_to(tmp_path: Path) -> None:
    committed = yaml.safe_load(SWEEP.read_text(encoding="utf-8"))
    src = committed["submission"]["source"]
    sub = bundle_export.Submission(
        committed["submission"]["submitter"], committed["submission"]["system"], src["title"],
        "H200 SXM 141GB", src["notes"], {},
    )  # fmt: skip
    out = bundle_export.write(
        bundle_export.build(SWEEP_BUNDLES, dt.date(2026, 11, 30), sub), tmp_path / "r.yaml"
    )
    assert out.read_text(encoding="utf-8") == SWEEP.read_text(encoding="utf-8")
    checked = check_file(SWEEP)
    assert checked.problems == [] and checked.result is not None


def test_each_sweep_run_carries_its_plan_jobs_concurrency() -> None:
    """The authority is the plan: every finished job's concurrency and request count land in the run."""
    planned = {}
    for _folder, plan in SWEEP_BUNDLES:
        for job in json.loads((ROOT / plan).read_text(encoding="utf-8"))["jobs"]:
            planned[(job["isl"], job["osl"], job["concurrency"])] = job["num_requests"]
    runs = yaml.safe_load(SWEEP.read_text(encoding="utf-8"))["runs"]
    seen = {(r["workload"]["isl"], r["workload"]["osl"], r["workload"]["concurrency"]) for r in runs}
    assert seen <= set(planned) and len(seen) == len(runs) == 13
    for r in runs:
        w = r["workload"]
        assert w["num_requests"] == planned[(w["isl"], w["osl"], w["concurrency"])]
        assert f"closed loop at concurrency {w['concurrency']}" in r["notes"]
        assert r["engine_settings"]["extra"]["concurrency"] == w["concurrency"]
