"""The Pareto view's $ per GPU-hour in Chromium, on the committed H200 runs: kept in the URL (?price=),
restored on load and on back/forward, and the cost the tooltip shows follows it.

Hand-worked: the transformers run at 1024/1024, concurrency 256, on one H200 gave 2,363.91 output tokens/s
(its result file). $ per million output tokens = price × GPUs / (tok/s × 3600) × 10^6:
at $2: 2 × 1 / (2,363.91 × 3600) × 10^6 = $0.235 -> "$0.24"; at $4: $0.470 -> "$0.47".
"""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlparse

import pytest

from tests.site.conftest import Watched

pytestmark = pytest.mark.browser
PAGE = "generated/views/latency-pareto.html"

# The point of that run, hovered with the mouse where Vega drew it (canvas box + view origin + mark x/y).
HOVER_POINT = """() => {
  const c = window.llmbench.charts()[0];
  c.el.scrollIntoView({block: 'center'});
  const find = (n, ox, oy) => {
    for (const it of n.items || []) {
      const d = it.datum || {};
      if (n.marktype === 'symbol' && d.concurrency === 256 && d.workload === '1024/1024') {
        return [ox + it.x, oy + it.y];
      }
      const g = n.marktype === 'group';
      const got = find(it, ox + (g ? it.x || 0 : 0), oy + (g ? it.y || 0 : 0));
      if (got) return got;
    }
    return null;
  };
  const [x, y] = find(c.view.scenegraph().root, 0, 0);
  const box = c.target.querySelector('canvas').getBoundingClientRect();
  const [ox, oy] = c.view.origin();  // the plot's offset inside the padding
  const pad = c.view.padding();
  return [box.left + pad.left + ox + x, box.top + pad.top + oy + y];
}"""


def hovered_cost(page) -> str:
    # scrolled to as a reader would: a chart is drawn when it comes near the screen
    page.evaluate("() => window.llmbench.charts()[0].el.scrollIntoView({block: 'center'})")
    page.wait_for_function("() => { const c = window.llmbench.charts()[0]; return c && c.drawn; }")
    page.evaluate("() => window.llmbench.charts()[0].drawn.then(() => true)")
    page.mouse.move(0, 0)
    x, y = page.evaluate(HOVER_POINT)
    page.mouse.move(x, y)
    page.wait_for_selector("#vg-tooltip-element.visible", timeout=5000)
    text = page.inner_text("#vg-tooltip-element")
    assert "Concurrency" in text and "256" in text, text
    m = re.search(r"\$ per 1M output tokens[^\n]*\s+\$?([\d.,]+)", text)
    assert m, text
    return m.group(1)


def cost_matches_price(page, price: float) -> str:
    """The hovered point's cost, checked against the price and the point's own tok/s per GPU, as the page
    derives it: price / (tok/s per GPU x 3600 s) x 10^6 (the tooltip shows 3 decimals, tok/s rounded)."""
    cost = hovered_cost(page)
    text = page.inner_text("#vg-tooltip-element")
    tps = float(re.search(r"Output tok/s per GPU\s+([\d.,]+)", text).group(1).replace(",", ""))
    assert float(cost) == pytest.approx(price / (tps * 3600) * 1e6, abs=0.0015), (cost, tps, text)
    return cost


def price_box(page) -> str:
    return page.input_value(".vega-bind input[type=number]")


def test_price_from_the_url_sets_the_cost_and_is_kept_on_back_and_forward(
    real_url: str, watched: Watched
) -> None:
    page = watched.open(f"{real_url}/{PAGE}")
    page.set_viewport_size({"width": 1440, "height": 900})
    assert price_box(page) == "2"  # the default, an assumption the page says is the reader's
    assert "your assumption" in page.inner_text(".vega-bind")
    cost_matches_price(page, 2)

    page = watched.open(f"{real_url}/{PAGE}?price=4")
    assert price_box(page) == "4"
    at_four = cost_matches_price(page, 4)  # doubles with the price

    # A filter change (a new history entry) keeps the price in the URL; back restores both.
    page.click(".lb-filter[data-dim=engine] .lb-filter-button")
    page.locator(".lb-filter[data-dim=engine] .lb-option", has_text="transformers").locator("input").check()
    page.wait_for_function("location.search.includes('engine=')")
    assert parse_qs(urlparse(page.url).query)["price"] == ["4"]
    # The reader types a price: the URL follows (replacing the entry, not adding one).
    page.fill(".vega-bind input[type=number]", "3")
    page.wait_for_function("new URLSearchParams(location.search).get('price') === '3'")
    page.go_back()
    page.wait_for_function("!location.search.includes('engine=')")
    assert parse_qs(urlparse(page.url).query)["price"] == ["4"]
    page.wait_for_function("document.querySelector('.vega-bind input[type=number]')?.value === '4'")
    assert hovered_cost(page) == at_four
    page.go_forward()
    page.wait_for_function("document.querySelector('.vega-bind input[type=number]')?.value === '3'")
    assert watched.errors == [] and watched.external == []


# WCAG AA for text (axe's threshold); the dark theme's background is Material's slate.
def _luminance(rgb: tuple[float, ...]) -> float:
    c = [v / 255 for v in rgb[:3]]
    c = [v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4 for v in c]
    return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2]


def _contrast(a: tuple[float, ...], b: tuple[float, ...]) -> float:
    hi, lo = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


# Every text item Vega drew in the chart (marks, not axes: those take the theme's config already) with the
# colour it was painted in, as the canvas' 2D context parses it.
TEXT_FILLS = """() => {
  const ctx = document.createElement('canvas').getContext('2d');
  const out = [];
  const walk = (n) => {
    for (const it of n.items || []) {
      if (n.marktype === 'text' && n.role === 'mark' && it.text) {
        ctx.fillStyle = '#000'; ctx.fillStyle = it.fill || '#000';
        out.push([String(it.text), ctx.fillStyle]);
      }
      walk(it);
    }
  };
  walk(window.llmbench.charts()[0].view.scenegraph().root);
  return out;
}"""


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_charts_own_text_reads_on_either_theme(real_url: str, browser: object, scheme: str) -> None:
    # The Pareto view's note ("N runs have only a peak ...") was a fixed #555, 2.3:1 on the dark slate.
    context = browser.new_context(viewport={"width": 1440, "height": 900}, color_scheme=scheme)
    try:
        page = context.new_page()
        page.goto(f"{real_url}/{PAGE}")
        page.wait_for_function("document.body && document.body.dataset.lbReady")
        page.evaluate("() => window.llmbench.drawAll()")
        assert page.evaluate("document.body.getAttribute('data-md-color-scheme')") == (
            "slate" if scheme == "dark" else "default"
        )
        bg = page.evaluate("getComputedStyle(document.querySelector('.md-main')).backgroundColor")
        bg = (
            bg
            if "rgba(0, 0, 0, 0)" not in bg
            else page.evaluate("getComputedStyle(document.body).backgroundColor")
        )
        back = tuple(float(v) for v in re.findall(r"[\d.]+", bg)[:3])
        texts = page.evaluate(TEXT_FILLS)
        assert any("peak" in t for t, _ in texts), texts  # the note is drawn
        for text, fill in texts:
            rgb = tuple(int(fill[i : i + 2], 16) for i in (1, 3, 5))
            assert _contrast(rgb, back) >= 4.5, (text, fill, bg)
    finally:
        context.close()
