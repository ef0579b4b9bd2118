"""Site benchmark (``make perf`` / ``python -m tests.perf site``): build time, explorer transfer size and
filter latency in Chromium, with the real results and with 100,000 synthetic runs; Lighthouse scores and
the explorer's time to its first chart, with the real results served with gzip.

Targets (issue 3): full build in seconds (also as plain ``mkdocs build``, issue 17); explorer transfer
(HTML + data + JS, gzip) <= 500 KB with the real data, ~280 KB of it vega; filter latency (change -> every
chart and the table updated) <= 100 ms with the real data and <= 500 ms with 100,000 runs.
Targets (issue 12): Lighthouse performance >= 90 and accessibility >= 95, mobile and desktop, for every page
type (issue 26: LIGHTHOUSE_PAGES); explorer first chart <= 500 ms after navigation (warm cache); filter
change <= 100 ms median.

Lighthouse 12.2.3 comes from npm into ``build/node`` (git-ignored; installed on first use when npm exists)
and drives the tests' Chromium (``tests.conftest.CHROMIUM``). ``python -m tests.perf.bench_site lighthouse``
runs only that part (``... lighthouse MLPerf "MLPerf ko"``: only those page kinds).
"""

from __future__ import annotations

import functools
import gzip
import http.server
import io
import itertools
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from bench.contract import registry
from bench.contract.resultfile import dump
from bench.contract.schema import ResultFile
from tests.conftest import CHROMIUM
from tests.site.conftest import CHROMIUM_ARGS, ROOT, free_port, result, serve

NODE = ROOT / "build" / "node"  # npm packages of the browser checks (git-ignored)
LIGHTHOUSE_VERSION = "12.2.3"
# One page of each kind (paths in the built site; issue 26: every page type, mobile and desktop), the
# Korean edition where its page differs from the English one in more than its words: the home and guide
# pages (hand-translated twins), the explorer and the MLPerf page (their scripts' words from the Korean
# catalogue). The run card's id is the first of the database's runs (RUN_ID, filled in by lighthouse_scores).
RUN_ID = "{run_id}"
LIGHTHOUSE_PAGES = {
    "home": "index.html",
    "home ko": "ko/index.html",
    "explorer": "explorer.html",
    "explorer ko": "ko/explorer.html",
    "compare": "compare.html",
    "run card": f"runs.html#{RUN_ID}",
    "view": "generated/views/generational-uplift.html",
    "GPU page": "generated/gpus/h200-sxm-141gb.html",
    "model page": "generated/models/llama-3-1-70b.html",
    "planner": "guide/07-memory.html",
    "Pareto view": "generated/views/latency-pareto.html",
    "latency": "latency.html",
    "advisor": "advisor.html",
    "MLPerf": "generated/mlperf/index.html",
    "MLPerf ko": "ko/generated/mlperf/index.html",
    "estimates": "estimates-accuracy.html",
    "guide": "guide/01-inference.html",
    "guide ko": "ko/guide/01-inference.html",
}
LH_TARGET = 90  # performance, mobile and desktop (issue 12, issue 26)

WORKLOADS = [(128, 128), (128, 2048), (2048, 128), (1000, 1000), (500, 2000), (2048, 2048), (5000, 500),
             (1024, 1024), (20000, 2000), (128, 4096), (1000, 2000), (8192, 1024), (1024, 8192)]  # fmt: skip


def synthetic_tps(
    i: int, j: int, gpu: str, model: str, precision: str, tp: int, pp: int, isl: int, osl: int
) -> float:
    """Run ``j`` of file ``i``'s output tokens/s: spread over 100..50,099, folded under 90 % of the run's
    speed-of-light bound (``bench.contract.quality.ceiling``, what ``validate`` and ``ingest`` refuse runs
    above), so that every synthetic run is valid."""
    from bench.contract.quality import ceiling

    tps = 100.0 + (i * 37 + j * 101) % 50_000
    limit = ceiling(gpu, model, precision, None, isl, osl, tp * pp, None, 1000)
    if limit is not None and tps > 0.9 * limit:
        tps = round(1.0 + tps % max(1.0, 0.9 * limit - 1.0), 1)
    return tps


def synthetic_results(
    folder: Path,
    runs: int = 100_000,
    per_file: int = 100,
    versions: tuple[str, ...] = ("1.0.0", "1.1.0", "1.2.0"),
    gpus: list[str] | None = None,
) -> None:
    """``runs`` distinct runs over registry GPUs (or ``gpus``) x models x precisions x ``versions``,
    ``per_file`` per file (3 versions give at most 554,400 runs; ``bench_scale`` uses 15)."""
    configs = [(tp, pp, isl, osl) for tp in (1, 2, 4, 8) for pp in (1, 2) for isl, osl in WORKLOADS][
        :per_file
    ]
    combos = itertools.product(  # GPU varies fastest, so every GPU of the registry gets runs
        versions,
        ("FP16", "FP8", "FP4"),
        [m.id for m in registry.models().entries],
        gpus or [g.name for g in registry.gpus().entries],
    )
    for i, (version, precision, model, gpu) in enumerate(itertools.islice(combos, runs // per_file)):
        rs = [
            {
                "parallelism": {"tp": tp, "pp": pp},
                "workload": {"isl": isl, "osl": osl, "num_requests": 1000},
                "metrics": {
                    "output_tokens_per_s": synthetic_tps(i, j, gpu, model, precision, tp, pp, isl, osl)
                },
            }
            for j, (tp, pp, isl, osl) in enumerate(configs)
        ]
        res: ResultFile = result(gpu, model, precision, f"Synthetic {i % 5}", version, rs)
        path = folder / f"s{i % 10}" / f"20260101-{i:05d}.yaml"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(dump(res), encoding="utf-8")


def explorer_transfer(site: Path) -> dict[str, int]:
    """gzip bytes of what the explorer page loads first: its HTML, its data (the summary at scale, else
    every part of its data set: site_gen.data.dataset), the vendored and site JS."""
    import html as markup

    html = (site / "explorer.html").read_text(encoding="utf-8")
    summary = re.search(r'data-lb-summary="([^"]+)"', html)
    data = re.search(r'data-lb-src="([^"]+)"', html)
    src = json.loads(markup.unescape(summary.group(1)))["src"] if summary else data.group(1) if data else ""
    parts: dict[str, Path | None] = {"html": site / "explorer.html"}
    for i, path in enumerate(src.split()):
        parts["data" if i == 0 else f"data-{i + 1}"] = site / path
    for name in ("vega", "vega-embed"):
        parts[name] = site / "assets" / "vendor" / f"{name}.min.js"
    js = (site / "assets" / "js").resolve()
    for path in page_script(js):
        parts[f"js/{path.relative_to(js)}"] = path
    material = sorted((site / "assets" / "javascripts").glob("bundle.*.min.js"))
    if material:
        parts["material.js"] = material[0]
    return {k: len(gzip.compress(p.read_bytes(), 9)) for k, p in parts.items() if p}


_STATIC_IMPORT = re.compile(r"""\bfrom\s*["'](\.[^"']+)["']""")


def page_script(folder: Path) -> list[Path]:
    """The page script's files every page loads: file-notice.js and main.js with its static imports."""
    seen: list[Path] = [(folder / "file-notice.js").resolve()]
    todo = [folder / "main.js"]
    while todo:
        path = todo.pop().resolve()
        if path in seen:
            continue
        seen.append(path)
        todo += [path.parent / spec for spec in _STATIC_IMPORT.findall(path.read_text(encoding="utf-8"))]
    return seen


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
        page.wait_for_function("document.body && document.body.dataset.lbReady", timeout=120_000)
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


class _GzipHandler(http.server.SimpleHTTPRequestHandler):
    """Static files, gzip-encoded when the client accepts it (as GitHub Pages serves them), cacheable."""

    TEXT = (".html", ".js", ".css", ".json", ".svg", ".xml", ".txt", ".map")

    def log_message(self, *args: object) -> None:
        pass

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "max-age=600")  # GitHub Pages' own
        super().end_headers()

    def send_head(self):  # type: ignore[no-untyped-def]
        path = Path(self.translate_path(self.path))
        if path.is_dir():
            path = path / "index.html"
        if not (
            path.suffix in self.TEXT and path.is_file() and "gzip" in self.headers.get("Accept-Encoding", "")
        ):
            return super().send_head()
        body = _gzipped(str(path), path.stat().st_mtime_ns)
        self.send_response(200)
        self.send_header("Content-Type", self.guess_type(str(path)))
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Vary", "Accept-Encoding")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        return io.BytesIO(body)


@functools.lru_cache(maxsize=4096)
def _gzipped(path: str, mtime: int) -> bytes:
    return gzip.compress(Path(path).read_bytes(), 6)


def serve_gzip(folder: Path, port: int = 0) -> tuple[str, http.server.ThreadingHTTPServer]:
    """Serve ``folder`` on 127.0.0.1 with gzip encoding, from a daemon thread."""
    handler = functools.partial(_GzipHandler, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{server.server_address[1]}", server


def lighthouse_bin() -> Path | None:
    """build/node's Lighthouse, installed from npm on first use (None when neither it nor npm exists)."""
    exe = NODE / "node_modules" / ".bin" / "lighthouse"
    if not exe.exists() and shutil.which("npm"):
        NODE.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            [
                "npm",
                "install",
                "--prefix",
                str(NODE),
                "--no-audit",
                "--no-fund",
                f"lighthouse@{LIGHTHOUSE_VERSION}",
            ],
            check=True,
        )
    return exe if exe.exists() else None


def lighthouse(exe: Path, url: str, desktop: bool) -> dict[str, float]:
    """One Lighthouse run: category scores (0-100) and the metrics behind performance."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "report.json"
        cmd = [str(exe), url, "--quiet", "--output=json", f"--output-path={out}",
               "--only-categories=performance,accessibility", "--chrome-flags=--headless --no-sandbox",
               *(["--preset=desktop"] if desktop else [])]  # fmt: skip
        env = {**os.environ, "CHROME_PATH": str(CHROMIUM)}
        subprocess.run(cmd, check=True, env=env, capture_output=True, timeout=300)
        report = json.loads(out.read_text())
    audits = report["audits"]
    figures = {k: round(v["score"] * 100) for k, v in report["categories"].items()}
    for key, name in (("first-contentful-paint", "FCP"), ("largest-contentful-paint", "LCP"),
                      ("total-blocking-time", "TBT"), ("cumulative-layout-shift", "CLS")):  # fmt: skip
        figures[name] = audits[key]["numericValue"]
    # The first paint Chromium itself saw, unthrottled: on this machine it is either ~0.2 s or ~1.2 s
    # (sometimes 2.2 s: no main-thread frame for a second after the first commit, the thread idle), and
    # the simulated FCP, LCP and the score follow it (explorer: 86-91 with the first, 78-85 with the
    # second). Playwright's Chromium never shows the late one, with or without a phone's emulation.
    figures["observed FCP"] = audits["metrics"]["details"]["items"][0]["observedFirstContentfulPaint"]
    figures["failed"] = [  # type: ignore[assignment]
        k for k, a in audits.items()
        if a.get("scoreDisplayMode") == "binary" and a.get("score") == 0
        and k in {r["id"] for r in report["categories"]["accessibility"]["auditRefs"]}
    ]  # fmt: skip
    return figures


def first_run_id(site: Path) -> str:
    """The first run id of the database beside the site (its run card's page is measured)."""
    import duckdb

    con = duckdb.connect(str(site.parent / "llmbench.duckdb"), read_only=True)
    try:
        return con.execute("SELECT min(run_id) FROM runs").fetchone()[0]
    finally:
        con.close()


def measured(exe: Path, url: str, desktop: bool, runs: int) -> tuple[list[dict[str, float]], list[float]]:
    """Lighthouse ``runs`` times, then up to 3 runs in all if one misses LH_TARGET (a loaded machine moves
    a mobile score by up to 20 points: a low one is re-measured before it is believed, and the median of
    3 reported); the results sorted by performance, and the 1-minute load average before each run."""
    results, loads = [], []
    while len(results) < runs or (len(results) < 3 and min(r["performance"] for r in results) < LH_TARGET):
        loads.append(os.getloadavg()[0])
        results.append(lighthouse(exe, url, desktop))
    return sorted(results, key=lambda f: f["performance"]), loads


def lighthouse_scores(site: Path, only: list[str] | None = None) -> None:
    """Print Lighthouse performance and accessibility for each page kind, mobile and desktop; ``only``:
    the page kinds (LIGHTHOUSE_PAGES' names) to measure, all when empty."""
    exe = lighthouse_bin()
    if exe is None:
        print("[lighthouse] skipped: build/node has no Lighthouse and npm is missing")
        return
    # Lighthouse's mobile figures scale the CPU time it observes (4x throttling, simulated): on a loaded
    # machine one run can be 20 points off, so each figure is the median of RUNS runs (at least 3 where
    # it misses the target; the median run by performance score reported whole), with the machine's load
    # average (1 minute) before each run.
    runs = int(os.environ.get("LLMBENCH_LH_RUNS", "3"))
    run_id = first_run_id(site)
    url, server = serve_gzip(site)
    try:
        for name, path in LIGHTHOUSE_PAGES.items():
            if only and name not in only:
                continue
            for desktop in (False, True):
                results, loads = measured(exe, f"{url}/{path.format(run_id=run_id)}", desktop, runs)
                f = results[len(results) // 2]
                spread = f"{results[0]['performance']}-{results[-1]['performance']}"
                print(
                    f"[lighthouse] {name:11} {'desktop' if desktop else 'mobile':7} performance "
                    f"{f['performance']:3} (of {len(results)}: {spread}) "
                    f"accessibility {f['accessibility']:3} "
                    f"(targets {LH_TARGET}/95) | FCP "
                    f"{f['FCP']:.0f} ms (observed {f['observed FCP']:.0f}), LCP {f['LCP']:.0f} ms, "
                    f"TBT {f['TBT']:.0f} ms, CLS {f['CLS']:.3f}"
                    f" | load {'/'.join(f'{x:.1f}' for x in loads)}"
                    + (f" | failing: {', '.join(f['failed'])}" if f["failed"] else ""),
                    flush=True,
                )
    finally:
        server.shutdown()


# Time from a navigation to the explorer's first drawn chart (rows inserted and painted): with Material's
# instant navigation (click on the "Explorer" tab from the home page) and as a full load, both with the
# browser cache warm (the explorer was loaded once before).
FIRST_CHART = """() => new Promise((resolve) => {
  const t0 = performance.now();
  document.addEventListener('llmbench:rendered', () => requestAnimationFrame(() =>
    resolve(performance.now() - t0)), {once: true});
  document.querySelector('a.md-tabs__link[href$="explorer.html"]').click();
})"""


def first_chart(url: str) -> dict[str, float]:
    from playwright.sync_api import sync_playwright

    out: dict[str, list[float]] = {"instant": [], "load": []}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1440, "height": 900})
        page.goto(f"{url}/explorer.html")
        page.wait_for_function("document.body && document.body.dataset.lbReady", timeout=120_000)
        for _ in range(5):
            page.goto(f"{url}/index.html")
            page.wait_for_function("document.body && document.body.dataset.lbReady", timeout=120_000)
            out["instant"].append(page.evaluate(FIRST_CHART))
            page.goto(f"{url}/explorer.html", wait_until="commit")
            page.wait_for_function("document.querySelector('.lb-scope[data-lb-rendered]')", timeout=120_000)
            out["load"].append(
                page.evaluate("new Promise((r) => requestAnimationFrame(() => r(performance.now())))")
            )
        browser.close()
    return {k: statistics.median(v) for k, v in out.items()}


def navigation(site: Path, port: int) -> None:
    """Explorer first chart after navigation and the filter-change median, served with gzip."""
    url, server = serve_gzip(site, port)
    try:
        t = first_chart(url)
        samples, errors = filter_latency(url, "H200 SXM 141GB", "FP8")
    finally:
        server.shutdown()
    print(
        f"[real] explorer first chart (warm cache, median of 5): {t['instant']:.0f} ms after an instant "
        f"navigation from home, {t['load']:.0f} ms after the start of a full load (target <= 500 ms); "
        f"filter change median {statistics.median(samples):.0f} ms (target <= 100 ms); console errors: "
        f"{errors}"
    )


def measure(label: str, results: Path, work: Path) -> None:
    from site_gen.site.build import build_site

    t = time.perf_counter()
    report = build_site(results, work / "llmbench.duckdb", work / "site", ROOT / "mkdocs.yml")
    total = time.perf_counter() - t
    steps = ", ".join(f"{k} {v:.2f} s" for k, v in report.seconds.items())
    print(f"[{label}] full build of {report.runs:,} runs: {total:.2f} s ({steps})")
    sizes = explorer_transfer(work / "site")
    ours = sum(v for k, v in sizes.items() if k != "material.js")
    script = sum(v for k, v in sizes.items() if k.startswith("js/"))
    files = sum(k.startswith("js/") for k in sizes)
    vega = sizes["vega"] + sizes["vega-embed"]
    print(
        f"[{label}] explorer transfer, gzip: {ours / 1024:.0f} KB (HTML + data + JS; target <= 500 KB with "
        f"real data), of it vega {vega / 1024:.0f} KB, data {sizes['data'] / 1024:.0f} KB, "
        f"HTML {sizes['html'] / 1024:.0f} KB, page script {script / 1024:.0f} KB in "
        f"{files} files; + Material's own JS {sizes.get('material.js', 0) / 1024:.0f} KB"
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


def real_site(work: Path) -> tuple[Path, int]:
    """The real results' site, built for a free port (instant navigation needs site_url's origin)."""
    from site_gen.site.build import build_site

    port = free_port()
    os.environ["LLMBENCH_SITE_URL"] = f"http://127.0.0.1:{port}/"
    build_site(ROOT / "results", work / "llmbench.duckdb", work / "site", ROOT / "mkdocs.yml")
    return work / "site", port


def browser_figures(only: list[str]) -> None:
    """Lighthouse and navigation figures of the real site (``python -m tests.perf.bench_site lighthouse
    [PAGE KIND ...]``: only those of LIGHTHOUSE_PAGES, and then no navigation figures)."""
    with tempfile.TemporaryDirectory() as tmp:
        site, port = real_site(Path(tmp))
        if not only:
            navigation(site, port)
        lighthouse_scores(site, only)


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        (work / "real").mkdir()
        measure("real", ROOT / "results", work / "real")
        plain_mkdocs("real", ROOT / "results", work / "real")
        site, port = real_site(work / "real")
        navigation(site, port)
        lighthouse_scores(site)
        t = time.perf_counter()
        synthetic_results(work / "synthetic-results")
        print(f"[100k] wrote 100,000 synthetic runs in {time.perf_counter() - t:.1f} s")
        (work / "100k").mkdir()
        measure("100k", work / "synthetic-results", work / "100k")


if __name__ == "__main__":
    browser_figures(sys.argv[2:]) if sys.argv[1:2] == ["lighthouse"] else main()
