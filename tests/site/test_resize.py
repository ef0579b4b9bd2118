"""Every chart keeps its size and its legend through a resize (issue 26, item 3): a window narrowed to a
phone's width and widened again, or a tablet turned, must give back the chart of the first render.

Every page of the built site that has a chart (both languages) is opened at 1440x900 with all its
charts drawn; each chart's canvas box (CSS px), its view's layout (origin, plot width and height) and the
number of legend rows that lie wholly inside the canvas are recorded; the viewport goes to 390x844 and
back to 1440x900; the same record must come back. Before the fix, seven charts per language came back
13-36 px shorter with their last legend rows cut: Vega lays a width change out in two passes and did
not measure the second (whose legend had re-flowed into other columns) until some later run.

The measurement waits on the page's own signals (``lbReady``, each chart's ``drawn`` and ``relayout``
promises), never on a fixed sleep, and reads the legend from Vega's scenegraph (a canvas has no DOM).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.site.conftest import Watched
from tests.site.test_first_render import chart_pages

pytestmark = pytest.mark.browser

DESKTOP = {"width": 1440, "height": 900}
PHONE = {"width": 390, "height": 844}

# Per drawn chart: the canvas' CSS box, the view's layout, and the legend rows whose labels lie wholly
# inside the canvas (a label item's bounds are in its group's coordinates: the groups' x/y add up).
MEASURE = """async () => {
  const frame = () => new Promise((r) => requestAnimationFrame(() => r()));
  await frame(); await frame();  // the resize event has been dispatched and Vega has run on it
  const charts = window.llmbench.charts();
  for (let i = 0; i < 20 && charts.some((c) => c.relayout); i++) {
    await Promise.all(charts.map((c) => c.relayout));
  }
  await frame();
  const out = [];
  for (const c of charts) {
    if (!c.view || c.target.hidden) continue;
    const canvas = c.target.querySelector('canvas');
    const box = canvas.getBoundingClientRect();
    const origin = c.view.origin();
    const rows = new Set();
    const walk = (mark, x, y) => {
      for (const item of mark.items || []) {
        const inside = item.bounds && origin[1] + y + item.bounds.y2 <= box.height + 0.5;
        if (mark.role === 'legend-label' && inside) {
          rows.add(Math.round(y + item.y));
        }
        if (mark.marktype === 'group') {
          for (const child of item.items || []) walk(child, x + (item.x || 0), y + (item.y || 0));
        }
      }
    };
    walk(c.view.scenegraph().root, 0, 0);
    out.push({label: c.el.getAttribute('aria-label'), box: [box.width, box.height],
              layout: [origin[0], origin[1], c.view.width(), c.view.height()], legendRows: rows.size});
  }
  return out;
}"""


def test_every_chart_keeps_its_size_and_legend_through_a_resize(
    real_site: Path, real_url: str, browser: object
) -> None:
    pages = chart_pages(real_site / "site")
    assert any(p.startswith("ko/") for p in pages) and any(not p.startswith("ko/") for p in pages)
    w = Watched(browser, DESKTOP["width"], DESKTOP["height"])
    problems: list[str] = []
    charts = legends = 0
    try:
        for path in pages:
            w.page.set_viewport_size(DESKTOP)
            w.open(f"{real_url}/{path}")
            w.page.evaluate("() => window.llmbench.drawAll()")
            first = w.page.evaluate(MEASURE)
            w.page.set_viewport_size(PHONE)
            narrow = w.page.evaluate(MEASURE)
            w.page.set_viewport_size(DESKTOP)
            again = w.page.evaluate(MEASURE)
            # the phone pass did lay the charts out at its width (else the round trip proves nothing)
            if first and [c["box"][0] for c in narrow] == [c["box"][0] for c in first]:
                problems.append(f"{path}: the charts kept their width at 390 px")
            charts += len(first)
            legends += sum(1 for c in first if c["legendRows"])
            if first != again:
                changed = [(a, b) for a, b in zip(first, again, strict=False) if a != b] or [(first, again)]
                problems += [f"{path}: {a} -> {b}" for a, b in changed]
        assert w.errors == [], w.errors
    finally:
        w.close()
    assert charts >= len(pages) and legends > 0
    assert problems == [], "\n".join(problems)
