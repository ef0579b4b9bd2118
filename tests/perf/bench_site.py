"""Site benchmark (``make perf`` / ``python -m tests.perf site``): build time, explorer transfer size and
filter latency in Chromium, with the real results and with 100,000 synthetic runs.

Targets (issue 3): full build in seconds (also as plain ``mkdocs build``, issue 17); explorer transfer
(HTML + data + JS, gzip) <= 500 KB with the real data, ~280 KB of it vega; filter latency (change -> every
chart and the table updated) <= 100 ms with the real data and <= 500 ms with 100,000 runs.
"""

from __future__ import annotations

import gzip
import itertools
import re
import statistics
import tempfile
import time
from pathlib import Path

from bench.contract import registry
from bench.contract.resultfile import dump
from bench.contract.schema import ResultFile
from tests.conftest import CHROMIUM
from tests.site.conftest import CHROMIUM_ARGS, ROOT, result, serve

WORKLOADS = [(128, 128), (128, 2048), (2048, 128), (1000, 1000), (500, 2000), (2048, 2048), (5000, 500),
             (1024, 1024), (20000, 2000), (128, 4096), (1000, 2000), (8192, 1024), (1024, 8192)]  # fmt: skip


def synthetic_results(folder: Path, runs: int = 100_000, per_file: int = 100) -> None:
    """``runs`` distinct runs over registry GPUs x models x precisions x versions, ``per_file`` per file."""
    configs = [(tp, pp, isl, osl) for tp in (1, 2, 4, 8) for pp in (1, 2) for isl, osl in WORKLOADS][
        :per_file
    ]
    combos = itertools.product(  # GPU varies fastest, so every GPU of the registry gets runs
        ("1.0.0", "1.1.0", "1.2.0"),
        ("FP16", "FP8", "FP4"),
        [m.id for m in registry.models().entries],
        [g.name for g in registry.gpus().entries],
    )
    for i, (version, precision, model, gpu) in enumerate(itertools.islice(combos, runs // per_file)):
        rs = [
            {
                "parallelism": {"tp": tp, "pp": pp},
                "workload": {"isl": isl, "osl": osl, "num_requests": 1000},
                "metrics": {"output_tokens_per_s": 100.0 + (i * 37 + j * 101) % 50_000},
            }
            for j, (tp, pp, isl, osl) in enumerate(configs)
        ]
        res: ResultFile = result(gpu, model, precision, f"Synthetic {i % 5}", version, rs)
        path = folder / f"s{i % 10}" / f"20260101-{i:05d}.yaml"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(dump(res), encoding="utf-8")


def explorer_transfer(site: Path) -> dict[str, int]:
    """gzip bytes of what the explorer page loads: its HTML, its data file, the vendored and site JS."""
    html = (site / "explorer.html").read_text(encoding="utf-8")
    data = re.search(r'data-lb-src="([^"]+)"', html)
    parts = {"html": site / "explorer.html", "data": site / data.group(1) if data else None}
    for name in ("vega", "vega-lite", "vega-embed"):
        parts[name] = site / "assets" / "vendor" / f"{name}.min.js"
    parts["llmbench.js"] = site / "assets" / "js" / "llmbench.js"
    material = sorted((site / "assets" / "javascripts").glob("bundle.*.min.js"))
    if material:
        parts["material.js"] = material[0]
    return {k: len(gzip.compress(p.read_bytes(), 9)) for k, p in parts.items() if p}


def filter_latency(url: str, gpu: str, precision: str) -> tuple[list[float], int]:
    """Median-worthy samples of change -> all charts and table updated (ms), and console errors seen."""
    from playwright.sync_api import sync_playwright

    samples: list[float] = []
    errors: list[str] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.on("console", lambda m: m.type == "error" and errors.append(m.text))
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(f"{url}/explorer.html")
        page.wait_for_function("document.body.dataset.lbReady", timeout=120_000)
        for _ in range(3):
            for dim, value in (
                ("gpu", gpu),
                ("precision", precision),
                ("precision", precision),
                ("gpu", gpu),
            ):
                if page.is_hidden(f'.lb-filter[data-dim="{dim}"] .lb-options'):
                    page.click(f'.lb-filter[data-dim="{dim}"] .lb-filter-button')
                before = page.evaluate("document.querySelector('.lb-scope').dataset.lbRendered")
                page.click(f'.lb-filter[data-dim="{dim}"] input[value="{value}"]')
                page.wait_for_function(
                    f"document.querySelector('.lb-scope').dataset.lbRendered !== '{before}'", timeout=60_000
                )
                samples.append(page.evaluate("window.llmbench.lastFilterMs"))
        browser.close()
    return samples, len(errors)


def measure(label: str, results: Path, work: Path) -> None:
    from site_gen.build import build_site

    t = time.perf_counter()
    report = build_site(results, work / "llmbench.duckdb", work / "site", ROOT / "mkdocs.yml")
    total = time.perf_counter() - t
    steps = ", ".join(f"{k} {v:.2f} s" for k, v in report.seconds.items())
    print(f"[{label}] full build of {report.runs:,} runs: {total:.2f} s ({steps})")
    sizes = explorer_transfer(work / "site")
    ours = sum(v for k, v in sizes.items() if k != "material.js")
    vega = sizes["vega"] + sizes["vega-lite"] + sizes["vega-embed"]
    print(
        f"[{label}] explorer transfer, gzip: {ours / 1024:.0f} KB (HTML + data + JS; target <= 500 KB with "
        f"real data), of it vega {vega / 1024:.0f} KB, data {sizes['data'] / 1024:.0f} KB, "
        f"HTML {sizes['html'] / 1024:.0f} KB; + Material's own JS {sizes.get('material.js', 0) / 1024:.0f} KB"
    )
    url, server = serve(work / "site")
    try:
        samples, errors = filter_latency(url, "H200 SXM 141GB", "FP8")
    finally:
        server.shutdown()
    target = 100 if label == "real" else 500
    print(
        f"[{label}] filter latency in Chromium: median {statistics.median(samples):.0f} ms, max "
        f"{max(samples):.0f} ms over {len(samples)} changes (target <= {target} ms); console errors: {errors}"
    )


def plain_mkdocs(label: str, results: Path, work: Path) -> None:
    """``mkdocs build --strict`` as a user runs it: first with no database (the hooks ingest), then again
    with a fresh one (nothing to ingest). Python start-up and imports included, as in the terminal."""
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if not k.startswith("LLMBENCH_")}
    env |= {"LLMBENCH_RESULTS": str(results), "LLMBENCH_DB": str(work / "mkdocs.duckdb")}
    args = [sys.executable, "-m", "mkdocs", "build", "-q", "--strict", "-f", str(ROOT / "mkdocs.yml")]
    times = []
    for _ in range(2):
        t = time.perf_counter()
        subprocess.run([*args, "-d", str(work / "site-mkdocs")], env=env, check=True, capture_output=True)
        times.append(time.perf_counter() - t)
    print(
        f"[{label}] plain mkdocs build --strict: {times[0]:.2f} s with ingest (no database yet), "
        f"{times[1]:.2f} s with a fresh database (target: seconds)"
    )


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        (work / "real").mkdir()
        measure("real", ROOT / "results", work / "real")
        plain_mkdocs("real", ROOT / "results", work / "real")
        t = time.perf_counter()
        synthetic_results(work / "synthetic-results")
        print(f"[100k] wrote 100,000 synthetic runs in {time.perf_counter() - t:.1f} s")
        (work / "100k").mkdir()
        measure("100k", work / "synthetic-results", work / "100k")


if __name__ == "__main__":
    main()
