"""Accessibility of each kind of page, as axe-core (Deque's rules engine, from npm) judges it in Chromium:
no serious or critical violation (contrast, names of controls and dialogs, ARIA use, link
distinguishability) in the light and the dark theme, after the page script has drawn everything.

axe-core comes from npm into ``build/node`` (git-ignored): the session fixture installs it when npm exists;
without npm and without that folder the tests skip and say why.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import duckdb
import pytest

from tests.site.conftest import ROOT, Watched

pytestmark = pytest.mark.browser
NODE = ROOT / "build" / "node"
AXE_VERSION = "4.14.1"
AXE = NODE / "node_modules" / "axe-core" / "axe.min.js"

# One page of each kind (paths in the built site); the run card gets a real run's id.
PAGES = {
    "home": "index.html",
    "explorer": "explorer.html",
    "view": "generated/views/generational-uplift.html",
    "GPU page": "generated/gpus/h200-sxm-141gb.html",
    "model page": "generated/models/llama-3-1-8b.html",
    "planner": "guide/07-memory.html",
    "compare": "compare.html?by=gpu&a=H100+SXM+80GB&b=H200+SXM+141GB",
    "run card": "runs.html#{run_id}",
    "guide page": "guide/04-parallelism.html",
    "MLPerf page": "generated/mlperf/index.html",
    "Pareto view": "generated/views/latency-pareto.html",
    "Korean explorer": "ko/explorer.html",
    "advisor": "advisor.html",
    "Korean advisor": "ko/advisor.html",
}


@pytest.fixture(scope="session")
def axe_script() -> Path:
    why = "npm is not available to install it"
    if not AXE.exists() and shutil.which("npm"):
        NODE.mkdir(parents=True, exist_ok=True)
        done = subprocess.run(
            ["npm", "install", "--prefix", str(NODE), "--no-audit", "--no-fund", f"axe-core@{AXE_VERSION}"],
            capture_output=True,
            text=True,
            timeout=300,
        )
        why = f"npm install axe-core@{AXE_VERSION} failed: {done.stderr.strip()[-300:]}"
    if not AXE.exists():
        pytest.skip(f"axe-core is not installed ({AXE} is missing) and {why}")
    return AXE


# Every serious or critical violation: rule, impact, the first elements and axe's own explanation.
RUN_AXE = """async () => {
  const r = await axe.run(document, {resultTypes: ['violations']});
  return r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => ({
    rule: v.id, impact: v.impact, n: v.nodes.length,
    nodes: v.nodes.slice(0, 4).map((n) => n.target.join(' ') + ': ' +
      (n.failureSummary || '').split('\\n')[1]),
  }));
}"""


@pytest.mark.parametrize("scheme", ["default", "slate"])
@pytest.mark.parametrize("kind", list(PAGES))
def test_no_serious_or_critical_accessibility_violation(
    real_site: Path, real_url: str, browser: object, axe_script: Path, kind: str, scheme: str
) -> None:
    con = duckdb.connect(str(real_site / "llmbench.duckdb"), read_only=True)
    run_id = con.execute("SELECT min(run_id) FROM runs").fetchone()[0]
    con.close()
    w = Watched(browser, 1440, 900)
    try:
        # the theme Material picks from the reader's system setting (mkdocs.yml: palette by media query)
        w.page.emulate_media(color_scheme="dark" if scheme == "slate" else "light")
        page = w.open(f"{real_url}/{PAGES[kind].format(run_id=run_id)}")
        assert page.evaluate("document.body.getAttribute('data-md-color-scheme')") == scheme
        if kind == "planner":
            page.wait_for_selector(".llmbench-planner__form", timeout=20_000)
        page.evaluate("window.llmbench && window.llmbench.drawAll && window.llmbench.drawAll()")
        if kind.endswith("advisor"):
            page.wait_for_selector("#llmbench-advisor[data-ready]", timeout=20_000)
        if kind == "MLPerf page":
            page.wait_for_selector("[data-mlperf][data-rendered]", timeout=20_000)
            page.evaluate("window.mlperfPage.drawAll()")  # the table it draws as it nears the screen
        page.add_script_tag(path=str(axe_script))
        found = page.evaluate(RUN_AXE)
        assert found == [], "\n".join(f"{v['rule']} ({v['impact']}, {v['n']}x): {v['nodes']}" for v in found)
        assert w.errors == []
    finally:
        w.close()
