"""Advisor benchmark (``make perf`` / ``python -m tests.perf advisor``): the answer time after an input
change (the form's change -> ranked table and nearest miss redrawn), in Chromium, with the
curves of the committed results and with 100,000 synthetic runs; the data file's size and build time.

Target (issue 27): answer <= 100 ms after an input change at today's data and at 100,000 runs.

The page is the advisor's own modules (docs/assets/js/advisor/, and tasks.js: its data loader) mounted
on a placeholder like the one the build writes, served from a temporary folder (module scripts do not run
from file://); no site build.
"""

from __future__ import annotations

import html
import itertools
import json
import shutil
import statistics
import tempfile
import time
from pathlib import Path

import pandas as pd

from site_gen import i18n
from site_gen.data import dataset
from site_gen.pages import advisor
from tests.site.conftest import CHROMIUM_ARGS, ROOT, serve

JS = ROOT / "docs" / "assets" / "js"


def synthetic_runs(n: int = 100_000) -> pd.DataFrame:
    """n runs with latency at 10 concurrencies: 10 models x 5 workloads x 10 GPUs x 4 TP x 5 versions."""
    gpus = ["H200 SXM 141GB", "B200 180GB", "H100 SXM 80GB", "A100 SXM4 80GB", "L40S", "B300 288GB",
            "GB200 186GB", "GH200 96GB", "RTX PRO 6000 Blackwell Server", "GB300 288GB"]  # fmt: skip
    shapes = [(128, 128), (128, 2048), (1024, 1024), (2048, 128), (8192, 1024)]
    conc = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512]
    grid = itertools.product(range(10), shapes, enumerate(gpus), (1, 2, 4, 8), range(5), conc)
    rows = []
    for i, (m, (isl, osl), (g, gpu), tp, v, c) in enumerate(itertools.islice(grid, n)):
        per_user = 200 / (1 + c / (8 * tp)) * (1 + g / 10)
        rows.append({
            "run_id": f"{i:012x}", "model_name": f"Model {m}", "model": f"org/model-{m}", "gpu": gpu,
            "precision": "FP8", "kv_cache_dtype": "FP8", "isl": isl, "osl": osl, "tp": tp, "pp": 1,
            "ep": None, "attention_dp": False, "n_gpus": tp, "engine": "tensorrt-llm",
            "engine_version": f"1.{v}.0", "source_kind": "measured", "publisher": "synthetic",
            "concurrency": c, "output_tps_per_gpu": per_user * c / tp, "output_tps_per_user": per_user,
            "ttft_ms_p50": 20 + c * 2.0, "ttft_ms_p90": 30 + c * 3.0, "tpot_ms_avg": 1000 / per_user,
        })  # fmt: skip
    return pd.DataFrame(rows)


def page_folder(payload: dict, folder: Path) -> None:
    """The advisor's modules, its data file and a page with the placeholder the build writes."""
    shutil.copytree(JS / "advisor", folder / "advisor")
    shutil.copy(JS / "tasks.js", folder / "tasks.js")  # the one data-file loader (loadJson)
    key, text = dataset.data_file(advisor.STEM, payload)
    (folder / dataset.data_name(key)).write_text(text, encoding="utf-8")
    words = json.dumps(i18n.load("en").section("advisor"), ensure_ascii=False)
    (folder / "index.html").write_text(
        f"""<!doctype html><html lang="en"><meta charset="utf-8"><body>
<div id="llmbench-advisor" data-src="{dataset.data_name(key)}" data-key="{key}" data-card="runs.html"
 data-planner="planner.html" data-pareto="pareto.html"
 data-lang="en" data-words="{html.escape(words, quote=True)}"></div>
<script type="module">import {{ mountAdvisor }} from "./advisor/ui.js";
mountAdvisor(document.getElementById("llmbench-advisor"), window);</script></body></html>""",
        encoding="utf-8",
    )


def answer_times(url: str, changes: int = 21) -> list[float]:
    """ms from the TTFT box's change event to the redrawn answer (the update is synchronous)."""
    from playwright.sync_api import sync_playwright

    from tests.conftest import CHROMIUM

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        page = b.new_page(viewport={"width": 1440, "height": 900})
        page.goto(url)
        page.wait_for_selector("#llmbench-advisor[data-ready]", timeout=60_000)
        times = page.evaluate(
            """(n) => {
              const box = document.querySelector('input[name=ttft]'), out = [];
              for (let i = 0; i < n; i++) {
                box.value = String(i % 2 ? 500 : 2000);
                const t = performance.now();
                box.dispatchEvent(new Event('change', { bubbles: true }));
                document.body.offsetHeight;  // layout included
                out.push(performance.now() - t);
              }
              return out;
            }""",
            changes,
        )
        b.close()
    return times


def measure(label: str, runs: pd.DataFrame) -> None:
    t = time.perf_counter()
    payload = advisor.curves_payload(runs)
    built = time.perf_counter() - t
    size = len(json.dumps(payload, separators=(",", ":")))
    with tempfile.TemporaryDirectory() as tmp:
        page_folder(payload, Path(tmp))
        url, server = serve(Path(tmp))
        try:
            times = answer_times(f"{url}/index.html")
        finally:
            server.shutdown()
    print(
        f"[{label}] {len(runs):,} answering runs -> {len(payload['curves']):,} curves, data file"
        f" {size / 1024:.0f} KiB, built in {built:.2f} s; answer after an input change: median"
        f" {statistics.median(times):.1f} ms, max {max(times):.1f} ms (target <= 100 ms)"
    )


def main() -> None:
    from site_gen.data.load import ingest

    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "llmbench.duckdb"
        ingest(ROOT / "results", db)
        measure("results", advisor.db_runs(db))
    measure("100k", synthetic_runs())


if __name__ == "__main__":
    main()
