"""The browser planner (docs/assets/js/calc/planner-memory.js, pages/planner.js) computes what
site_gen/data/memory.py computes.

The pure functions run under node on the exported registry data (the ES module imported as it is); the UI
runs in real headless Chromium (playwright, the Chromium of tests/conftest.py) on a page served from a
local folder (a module script does not run from file://) that requests nothing else.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from site_gen.data import memory
from tests.conftest import serve

ROOT = Path(__file__).resolve().parents[2]
JS = ROOT / "docs" / "assets" / "js"
PLANNER_JS = JS / "calc" / "planner-memory.js"

CASES = [
    ("meta-llama/Llama-3.1-70B-Instruct", "FP16", "FP16", 32, 4096, 4, 1, 8192, False),
    ("meta-llama/Llama-3.1-70B-Instruct", "FP8", "FP8", 256, 2176, 8, 2, 8192, False),
    ("meta-llama/Llama-3.1-8B-Instruct", "FP16", "FP16", 1, 100, 16, 1, 8192, False),  # TP > KV heads
    ("deepseek-ai/DeepSeek-R1-0528", "FP4", "FP8", 64, 2048, 8, 1, 4096, False),  # MLA latent cache
    ("deepseek-ai/DeepSeek-R1", "FP8", "FP8", 61, 2048, 8, 1, 4096, True),  # block-128 FP8, attention DP
    ("mistralai/Mixtral-8x7B-v0.1", "FP8", "FP16", 128, 1024, 2, 1, 2048, False),  # MoE
    ("openai/gpt-oss-120b", "FP4", "FP8", 64, 33792, 1, 1, 8192, False),  # MXFP4, sliding-window layers
    ("openai/gpt-oss-20b", "FP4", "FP8", 9, 5000, 4, 1, 8192, True),  # attention DP replicates BF16 attention
    ("meta-llama/Llama-4-Scout-17B-16E-Instruct", "FP4", "FP8", 8, 20000, 2, 1, 8192, False),  # chunked
    ("mistralai/Mistral-7B-v0.1", "Mixed", "FP16", 16, 20000, 1, 1, 8192, False),  # sliding window 4096
    ("EleutherAI/gpt-j-6b", "INT4", "INT8", 7, 333, 1, 4, 100, False),  # MHA, PP not dividing layers evenly
]


def _inputs() -> list[dict]:
    keys = (
        "model",
        "weight_precision",
        "kv_dtype",
        "batch",
        "seq_len",
        "tp",
        "pp",
        "max_num_tokens",
        "attention_dp",
    )
    return [dict(zip(keys, c, strict=True)) for c in CASES]


def _python(payload: dict, inp: dict) -> dict:
    arch = next(m for m in payload["models"] if m["id"] == inp["model"])
    pi = memory.PlanInput(**{k: v for k, v in inp.items() if k != "model"})
    return {
        "plan": memory.plan(arch, pi).as_dict(),
        "fits": memory.fit_table(arch, pi, payload["gpus"]),
        "weights": memory.weight_bytes(arch, inp["weight_precision"]),
        "groups": memory.param_groups(arch),
    }


@pytest.fixture(scope="module")
def payload() -> dict:
    # A JSON round trip, as the browser sees it (tuples become lists).
    return json.loads(json.dumps(memory.planner_payload()))


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_js_plan_and_fit_table_equal_the_python_implementation(payload: dict, tmp_path: Path) -> None:
    driver = tmp_path / "drive.mjs"
    driver.write_text(
        f"import * as P from {json.dumps(PLANNER_JS.as_uri())};\n"
        "import {readFileSync} from 'fs';\n"
        "const input = JSON.parse(readFileSync(0, 'utf8'));\n"
        "const C = input.payload.constants;\n"
        "const out = input.cases.map(c => {\n"
        "  const arch = input.payload.models.find(m => m.id === c.model);\n"
        "  return {plan: P.plan(arch, c, C), fits: P.fitTable(arch, c, input.payload.gpus, C),\n"
        "          weights: P.weightBytes(arch, c.weight_precision, C), groups: P.paramGroups(arch)};\n"
        "});\n"
        "process.stdout.write(JSON.stringify(out));\n"
    )
    stdin = json.dumps({"payload": payload, "cases": _inputs()})
    proc = subprocess.run(["node", str(driver)], input=stdin, capture_output=True, text=True, timeout=30)
    assert proc.returncode == 0, proc.stderr
    js = json.loads(proc.stdout)
    for inp, got in zip(_inputs(), js, strict=True):
        want = _python(payload, inp)
        for part, value in want["plan"].items():
            assert got["plan"][part] == pytest.approx(value, rel=1e-12), (inp, part)
        assert got["weights"] == pytest.approx(want["weights"], rel=1e-12), inp
        assert got["groups"] == pytest.approx(want["groups"], rel=1e-12), inp
        assert got["fits"] == [
            {**r, "free_bytes": pytest.approx(r["free_bytes"], rel=1e-12)} for r in want["fits"]
        ], inp


def test_exported_payload_carries_every_registry_gpu_and_no_test_model(payload: dict) -> None:
    from bench.contract import registry

    assert {g["name"] for g in payload["gpus"]} == {g.name for g in registry.gpus().entries}
    ids = {m["id"] for m in payload["models"]}
    assert "meta-llama/Llama-3.1-70B-Instruct" in ids
    assert not any(i.startswith("llmbench/") for i in ids)
    assert payload["constants"]["PRECISIONS"] == memory.vocabulary()["PRECISIONS"]
    assert set(payload["constants"]["PRECISIONS"]) == set(registry.precisions())


def _page(tmp_path: Path, payload: dict) -> Path:
    """A folder with the page script's modules (a package.json saying so), the planner's data and a page
    that mounts the planner as main.js does; returns the page."""
    shutil.copytree(JS, tmp_path / "js")
    (tmp_path / "planner-data.js").write_text(memory.planner_script(payload))
    page = tmp_path / "planner.html"
    page.write_text(
        "<!doctype html><html><head><meta charset='utf-8'></head><body>"
        "<div id='llmbench-planner'></div><script src='planner-data.js'></script>"
        "<script type='module'>import { mountPlanner } from './js/pages/planner.js';"
        "mountPlanner(document.getElementById('llmbench-planner'));</script></body></html>"
    )
    return page


@pytest.mark.browser
def test_planner_page_shows_python_numbers_and_fits_offline(
    payload: dict, tmp_path: Path, browser: object
) -> None:
    hostile = {**payload["models"][0], "id": "x/evil", "name": "<img src=x onerror=window.pwned=1>"}
    payload = {**payload, "models": [*payload["models"], hostile]}
    page_file = _page(tmp_path, payload)
    arch = next(m for m in payload["models"] if m["id"] == "meta-llama/Llama-3.1-70B-Instruct")
    requests: list[str] = []

    def drive(browser: object) -> None:
        page = browser.new_page()  # type: ignore[attr-defined]
        page.on("request", lambda r: requests.append(r.url))
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(f"{url}/{page_file.name}")
        page.wait_for_selector(".llmbench-planner__row")
        # Default: Llama 3.1 70B, FP16 weights and KV, batch 32, 4096 tokens, TP4.
        want = memory.plan(arch, memory.PlanInput("FP16", "FP16", 32, 4096, 4, 1))
        summary = page.inner_text(".llmbench-planner__summary")
        assert f"= {want.total / memory.GIB:.1f} GiB" in summary
        assert "320 KiB" in summary and "2560 KiB (8.0x)" in summary
        rows = page.locator(".llmbench-planner__row")
        assert rows.count() == len(payload["gpus"])

        # A bigger batch overflows the 80 GB GPUs at TP4; the planner says so and names the smallest fit.
        page.fill("input[name=batch]", "256")
        page.dispatch_event("input[name=batch]", "input")
        big = memory.PlanInput("FP16", "FP16", 256, 4096, 4, 1)
        fits = {r["gpu"]: r for r in memory.fit_table(arch, big, payload["gpus"])}
        h100 = page.locator(".llmbench-planner__row", has_text="H100 SXM 80GB").inner_text()
        assert not fits["H100 SXM 80GB"]["fits"] and "does not fit" in h100
        h100_fit = fits["H100 SXM 80GB"]
        assert f"needs {h100_fit['min_gpus']} GPUs ({h100_fit['min_layout']})" in h100
        assert "batch=256" in page.url  # the state is in the address, so it can be shared

        # Registry strings are text, never markup.
        page.select_option("select[name=model]", "x/evil")
        assert page.evaluate("window.pwned") is None
        assert "<img" in page.inner_text("select[name=model]")
        assert errors == []

    url, server = serve(page_file.parent)
    try:
        drive(browser)
    finally:
        server.shutdown()
    assert all(u.startswith(url + "/") for u in requests), requests


def test_committed_planner_data_matches_the_registries() -> None:
    committed = (ROOT / memory.PLANNER_DATA).read_text(encoding="utf-8")
    assert committed == memory.planner_script(), "stale planner data: run `python -m site_gen.data.memory`"


def test_write_planner_script_rewrites_only_on_change(tmp_path: Path) -> None:
    assert memory.write_planner_script(tmp_path) is True
    assert memory.write_planner_script(tmp_path) is False
    (tmp_path / memory.PLANNER_DATA).write_text("window.LLMBENCH_PLANNER={};\n")
    assert memory.write_planner_script(tmp_path) is True
    assert (tmp_path / memory.PLANNER_DATA).read_text() == memory.planner_script()
