"""Compare mode's chart keeps the room reserved for it, no more (issue 26): the page's HTML reserves a box
for the dot plot before the script draws it (``min-height``, ``site_gen.pages.markers.compare_reserve``);
the chart Chromium then draws must fill that box exactly, so the page neither moves when the chart
arrives (a box too small) nor keeps a gap under it (too large: 63 px at 390 and 1440 px, before). A pair
with another number of workloads, chosen by the reader, gets a box of its chart's height (the reservation
is dropped once the first chart is drawn)."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest

from tests.site.conftest import Watched

pytestmark = pytest.mark.browser

# the chart's box, what Vega drew into it (the vega-embed element: canvas and menu) and the notes under
# it that the script shows or hides, in CSS px
MEASURE = """() => {
  const box = document.querySelector('.lb-compare .lb-chart');
  const h = (el) => el.getBoundingClientRect().height;
  const drawn = box.querySelector('.lb-vega');
  const notes = [...box.querySelectorAll('.lb-chart-hint, .lb-chart-note, .lb-status')]
    .filter((p) => !p.hidden).map(h).reduce((a, b) => a + b, 0);
  return {box: h(box), drawn: drawn && !drawn.hidden ? h(drawn) : 0, notes,
          lines: new Set(window.llmbench.charts()[0].view.data('runs').map((d) => d.group)).size};
}"""


def reserved(site: Path, page: str) -> int:
    """The min-height (px) the built page's HTML gives compare's chart box."""
    text = (site / page).read_text(encoding="utf-8")
    tag = re.search(r'<div class="lb-chart"[^>]*>', text)
    assert tag, f"{page}: no chart box"
    found = re.search(r"min-height: (\d+)px", html.unescape(tag.group(0)))
    assert found, f"{page}: the chart box reserves no height"
    return int(found.group(1))


def rendered(w: Watched, n: int) -> dict:
    w.page.wait_for_function(f"Number(document.querySelector('.lb-compare').dataset.lbRendered) >= {n}")
    return w.page.evaluate(MEASURE)


@pytest.mark.parametrize(("width", "height"), [(1440, 900), (390, 844)], ids=["desktop", "phone"])
def test_compare_chart_fills_the_box_reserved_for_it(
    real_site: Path, real_url: str, browser: object, width: int, height: int
) -> None:
    w = Watched(browser, width, height)
    try:
        for lang in ("", "ko/"):
            page = f"{lang}compare.html"
            reserve = reserved(real_site / "site", page)
            w.open(f"{real_url}/{page}")
            first = rendered(w, 1)
            # the box as drawn is the box as reserved (to the pixel: the canvas is whole pixels), and it
            # holds the chart, nothing else
            assert first["drawn"] > 0, (page, first)
            assert abs(first["box"] - reserve) <= 1, (page, reserve, first)
            assert abs(first["box"] - first["drawn"] - first["notes"]) <= 1, (page, first)
            # another pair with another number of lines: the box follows its chart, no gap left
            presets = w.page.locator(".lb-preset")
            for i in range(presets.count()):
                presets.nth(i).click()
                after = rendered(w, i + 2)
                if after["lines"] == first["lines"] or not after["drawn"]:
                    continue
                assert abs(after["box"] - after["drawn"] - after["notes"]) <= 1, (page, i, after)
                break
            else:
                pytest.fail(f"{page}: no preset draws another number of lines than the default pair")
        assert w.errors == [], w.errors
    finally:
        w.close()
