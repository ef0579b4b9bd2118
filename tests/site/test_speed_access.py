"""Speed and access as a reader meets them (Chromium, fixed viewport): the chart libraries and the planner
load only on pages that use them, also when reached by Material's instant navigation; the page does not
jump while charts and filters arrive (cumulative layout shift < 0.1, Lighthouse's "good"); each chart
carries its data as a table, with the figures DuckDB gives."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from tests.site.conftest import Watched
from tests.site.test_browser import instant

pytestmark = pytest.mark.browser

LIBS = ("vega.min.js", "vega-lite.min.js", "vega-embed.min.js", "planner-data.js", "planner.js")


def loaded(requests: list[str]) -> set[str]:
    return {name for name in LIBS for url in requests if url.endswith("/" + name)}


def test_vega_and_the_planner_load_only_on_the_pages_that_use_them(real_url: str, browser: object) -> None:
    w = Watched(browser, 1440, 900)
    requests: list[str] = []
    w.page.on("request", lambda r: requests.append(r.url))
    try:
        w.open(f"{real_url}/how-to/add-your-result.html")  # no chart, no planner
        assert loaded(requests) == set()
        w.page.evaluate("window.__same_document = 1")
        # a chart page reached without a reload: the page script fetches Vega and draws every chart
        instant(w.page, f"{real_url}/explorer.html")
        assert loaded(requests) == {"vega.min.js", "vega-lite.min.js", "vega-embed.min.js"}
        drawn = w.page.evaluate("window.llmbench.charts().filter(c => c.view && c.view.scenegraph()).length")
        assert drawn == w.page.locator(".lb-chart").count() == 2
        # the planner's page: its scripts, once, and the planner drawn
        instant(w.page, f"{real_url}/guide/07-memory.html")
        w.page.wait_for_selector("#llmbench-planner .llmbench-planner__form", timeout=20_000)
        assert loaded(requests) == set(LIBS)
        instant(w.page, f"{real_url}/guide/01-inference.html")
        instant(w.page, f"{real_url}/guide/07-memory.html")
        w.page.wait_for_selector("#llmbench-planner .llmbench-planner__form", timeout=20_000)
        assert sum(u.endswith("/planner.js") for u in requests) == 1
        assert w.errors == [] and w.external == []
    finally:
        w.close()
    # a full load of the planner's page fetches no chart library
    w = Watched(browser, 390, 844)
    requests.clear()
    w.page.on("request", lambda r: requests.append(r.url))
    try:
        w.open(f"{real_url}/guide/07-memory.html")
        w.page.wait_for_selector("#llmbench-planner .llmbench-planner__form", timeout=20_000)
        assert loaded(requests) == {"planner-data.js", "planner.js"}
        assert w.errors == []
    finally:
        w.close()


# The layout shifts of a page load (PerformanceObserver, buffered), summed: an upper bound of CLS.
SHIFTS = """() => new Promise((resolve) => {
  let sum = 0;
  const shifts = [];
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) if (!e.hadRecentInput) {
      sum += e.value;
      shifts.push([e.value, e.sources.map((s) => s.node ? s.node.className || s.node.nodeName : '?')]);
    }
  }).observe({type: 'layout-shift', buffered: true});
  setTimeout(() => resolve({sum, shifts}), 800);
})"""


@pytest.mark.parametrize("size", [(1440, 900), (390, 844)], ids=["desktop", "phone"])
def test_pages_do_not_jump_while_their_charts_and_filters_arrive(
    real_url: str, browser: object, size: tuple[int, int]
) -> None:
    pages = ["index.html", "explorer.html", "generated/views/generational-uplift.html",
             "generated/views/tp-scaling.html", "generated/gpus/h200-sxm-141gb.html",
             "compare.html"]  # fmt: skip
    w = Watched(browser, *size)
    try:
        for path in pages:
            w.open(f"{real_url}/{path}")
            found = w.page.evaluate(SHIFTS)
            assert found["sum"] < 0.1, (path, found["shifts"])
        assert w.errors == []
    finally:
        w.close()


def test_a_charts_data_table_holds_the_bars_duckdb_gives(
    real_site: Path, real_url: str, watched: Watched
) -> None:
    page = watched.open(f"{real_url}/generated/views/generational-uplift.html")
    filters = page.evaluate("JSON.parse(document.querySelector('.lb-filterbar').dataset.lbDefaults)")
    assert filters == {"model": ["Llama 3.1 8B"], "precision": ["FP16"], "workload": ["128/128"],
                       "engine": ["tensorrt-llm"]}  # fmt: skip
    page.click("details.lb-data > summary")
    page.wait_for_selector("details.lb-data[open] table tbody tr")
    head = page.eval_on_selector_all("details.lb-data th", "ths => ths.map(t => t.textContent)")
    rows = page.eval_on_selector_all(
        "details.lb-data tbody tr", "trs => trs.map(tr => [...tr.cells].map(td => td.textContent))"
    )
    shown = {r[head.index("GPU")]: r[head.index("Best output tokens/s per GPU")] for r in rows}
    con = duckdb.connect(str(real_site / "llmbench.duckdb"), read_only=True)
    best = con.execute(
        """SELECT gpu, max(output_tps_per_gpu) FROM runs WHERE model_name = 'Llama 3.1 8B'
           AND precision = 'FP16' AND workload = '128/128' AND engine = 'tensorrt-llm' GROUP BY gpu"""
    ).fetchall()
    con.close()
    assert shown == {gpu: f"{round(v):,}" for gpu, v in best}
    # the canvas is named for assistive technology and points at the table
    name = page.get_attribute(".lb-chart canvas", "aria-label")
    assert page.get_attribute(".lb-chart canvas", "role") == "img" and "table" in name
    assert watched.errors == []
