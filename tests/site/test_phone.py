"""A phone (390x844) as a reader holds it (issue 26, item 4), in a real Chromium, English and Korean,
light and dark:

- the explorer's first chart (the answer) is on the first screen and shown at load (as the build's
  picture of it: tests/site/test_picture.py), the presets,
  filters and limits behind a "Filters" button that opens them in place;
- no two axis labels of a chart overlap and no text mark of a chart passes its canvas' edge: each label
  is taken from Vega's scenegraph as the rectangle Vega draws (its text measured with Vega's own
  ``textMetrics``, its anchor, alignment, baseline and angle) and every pair is tested with the
  separating-axis theorem, so slanted labels are compared as drawn, not as their bounding boxes;
- the guide's TP/PP diagram shows its smallest text at 11 px or more (a layout of its own for narrow
  screens), computed from the SVG file the browser chose and the size it is drawn at;
- a chart not drawn yet is a sized placeholder naming the chart, never a blank frame.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.site.conftest import ROOT, Watched
from tests.site.test_first_render import PHONE, chart_pages

pytestmark = pytest.mark.browser
SHOTS = ROOT / "build" / "screenshots" / "phone"
WIDTH, HEIGHT = 390, 844

# Every drawn chart: its axis labels as drawn rectangles (4 corners in canvas px), the pairs of labels
# of one axis that overlap, and the text marks (not axes, legends, titles: test_first_render measures
# those) that pass the canvas' edge.
LABELS = """async () => {
  await window.llmbench.drawAll();
  const tm = window.vega.textMetrics;
  const out = [];
  for (const c of window.llmbench.charts()) {
    if (!c.view || c.target.hidden) continue;
    while (c.relayout) await c.relayout;
    const box = c.target.querySelector('canvas').getBoundingClientRect();
    const o = c.view.origin();
    const axes = new Map(), cut = [];
    const rect = (item, x, y) => {
      const lines = (Array.isArray(item.text) ? item.text : [item.text]).map(String);
      const size = item.fontSize || 11;
      const w = Math.max(...lines.map((t) => tm.width(item, t)));
      const h = size * lines.length;
      const left = item.align === 'center' ? -w / 2 : item.align === 'right' ? -w : 0;
      const top = {top: 0, middle: -h / 2, bottom: -h}[item.baseline] ?? -size * 0.8;
      const a = (item.angle || 0) * Math.PI / 180, cos = Math.cos(a), sin = Math.sin(a);
      return [[left, top], [left + w, top], [left + w, top + h], [left, top + h]].map(([px, py]) => {
        const lx = px + (item.dx || 0), ly = py + (item.dy || 0);
        return [o[0] + x + item.x + lx * cos - ly * sin, o[1] + y + item.y + lx * sin + ly * cos];
      });
    };
    const walk = (mark, x, y, axis) => {
      for (const item of mark.items || []) {
        // Vega hides a label its own overlap removal drops (labelOverlap) with opacity 0
        const text = item.text !== undefined && item.text !== null && String(item.text).trim() &&
          item.opacity !== 0;
        if (text && mark.role === 'axis-label') {
          if (!axes.has(axis)) axes.set(axis, []);
          axes.get(axis).push({text: String(item.text), corners: rect(item, x, y)});
        } else if (text && mark.marktype === 'text' && mark.role === 'mark') {
          const xs = rect(item, x, y).map((p) => p[0]), ys = rect(item, x, y).map((p) => p[1]);
          if (Math.min(...xs) < -1 || Math.max(...xs) > box.width + 1 || Math.min(...ys) < -1 ||
              Math.max(...ys) > box.height + 1) cut.push(String(item.text));
        }
        if (mark.marktype === 'group') {
          const inner = mark.role === 'axis' ? item : axis;
          for (const m of item.items || []) walk(m, x + (item.x || 0), y + (item.y || 0), inner);
        }
      }
    };
    walk(c.view.scenegraph().root, 0, 0, null);
    // two convex quadrilaterals are apart when some edge's normal separates their projections
    const apart = (A, B) => [A, B].some((P) => P.some(([x1, y1], i) => {
      const [x2, y2] = P[(i + 1) % 4];
      const nx = y1 - y2, ny = x2 - x1, gap = 0.5 * Math.hypot(nx, ny);  // half a pixel of slack
      const pa = A.map(([px, py]) => px * nx + py * ny), pb = B.map(([px, py]) => px * nx + py * ny);
      return Math.max(...pa) <= Math.min(...pb) + gap || Math.max(...pb) <= Math.min(...pa) + gap;
    }));
    const overlaps = [];
    let labels = 0;
    for (const list of axes.values()) {
      labels += list.length;
      for (let i = 0; i < list.length; i++) for (let j = i + 1; j < list.length; j++) {
        if (!apart(list[i].corners, list[j].corners)) overlaps.push([list[i].text, list[j].text]);
      }
    }
    out.push({label: c.el.getAttribute('aria-label'), labels, overlaps, cut});
  }
  return out;
}"""


# Compare mode opened on a pair whose ratios span decades (FP16 against FP8: 0.05x to 1.2x today), besides
# its default pair: at 390 px a log axis over 0.05-1.2 drew "0.1" on "1" before the axis dropped the labels
# that touch (site_gen.charts.specs.compare_ratio). A pair the data no longer has draws no chart (nothing to
# check), never a failure.
WIDE_COMPARE = "compare.html?by=precision&a=FP8&b=FP16"


def phone(browser: object, scheme: str) -> Watched:
    w = Watched(browser, WIDTH, HEIGHT)
    w.page.emulate_media(color_scheme=scheme)
    return w


SCHEMES = [("", "light"), ("ko/", "dark"), ("", "dark"), ("ko/", "light")]


@pytest.mark.parametrize(("lang", "scheme"), SCHEMES)
def test_the_explorer_answers_on_the_first_screen(
    real_url: str, browser: object, lang: str, scheme: str
) -> None:
    w = phone(browser, scheme)
    try:
        page = w.open(f"{real_url}/{lang}explorer.html")
        assert page.evaluate("document.body.getAttribute('data-md-color-scheme')") == (
            "slate" if scheme == "dark" else "default"
        )
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / f"{lang.strip('/') or 'en'}-explorer-{scheme}.png"))
        first = page.evaluate(
            """() => { const c = window.llmbench.charts()[0], r = c.el.getBoundingClientRect();
                       const p = c.picture;
                       return {top: r.top, bottom: r.bottom,
                               drawn: !!c.view || !!(p && !p.hidden && p.complete && p.naturalWidth)}; }"""
        )
        # a quarter of the chart on the first screen, shown at load (no scroll): drawn, or the build's
        # picture of it (tests/site/test_picture.py)
        assert first["drawn"] and HEIGHT - first["top"] >= (first["bottom"] - first["top"]) / 4, first
        assert page.evaluate("scrollY") == 0
        controls = page.locator(".lb-controls")
        toggle = page.locator(".lb-controls-toggle")
        assert not controls.is_visible() and toggle.get_attribute("aria-expanded") == "false"
        toggle.click()
        assert controls.is_visible() and toggle.get_attribute("aria-expanded") == "true"
        assert page.locator(".lb-filter-button").first.is_visible()
        assert page.evaluate("document.documentElement.scrollWidth") <= WIDTH
        assert w.errors == [] and w.external == []
    finally:
        w.close()


@pytest.mark.parametrize(("lang", "scheme"), SCHEMES[:2])
def test_no_axis_labels_overlap_and_no_point_label_is_cut(
    real_site: Path, real_url: str, browser: object, lang: str, scheme: str
) -> None:
    pages = [p for p in chart_pages(real_site / "site") if p.startswith("ko/") == bool(lang)]
    pages.append(lang + WIDE_COMPARE)
    w = phone(browser, scheme)
    problems: list[str] = []
    labels = 0
    try:
        for path in pages:
            w.open(f"{real_url}/{path}")
            for c in w.page.evaluate(LABELS):
                labels += c["labels"]
                where = f"{path} [{c['label']}]"
                if c["overlaps"]:
                    problems.append(f"{where}: {len(c['overlaps'])} overlapping labels: {c['overlaps'][:3]}")
                if c["cut"]:
                    problems.append(f"{where}: text marks past the edge: {c['cut'][:3]}")
        assert w.errors == [], w.errors
    finally:
        w.close()
    assert labels > len(pages)  # the walk found the axes' labels
    assert problems == [], "\n".join(problems)


@pytest.mark.parametrize(("lang", "scheme"), SCHEMES)
def test_the_tp_pp_diagram_is_readable(
    real_site: Path, real_url: str, browser: object, lang: str, scheme: str
) -> None:
    w = phone(browser, scheme)
    try:
        page = w.open(f"{real_url}/{lang}guide/04-parallelism.html")
        img = page.locator("img[src$='tp-pp.svg']")
        img.scroll_into_view_if_needed()
        page.wait_for_function("document.querySelector(\"img[src$='tp-pp.svg']\").complete")
        shown = img.evaluate("i => ({src: i.currentSrc, width: i.getBoundingClientRect().width})")
        page.screenshot(path=str(SHOTS / f"{lang.strip('/') or 'en'}-tp-pp-{scheme}.png"))
        svg = (real_site / "site" / shown["src"].split("/", 3)[3]).read_text(encoding="utf-8")
        natural = float(re.search(r'<svg[^>]* width="([\d.]+)"', svg).group(1))
        smallest = min(float(s) for s in re.findall(r'font-size="([\d.]+)"', svg))
        assert smallest * shown["width"] / natural >= 11, (shown, natural, smallest)
        assert page.evaluate("document.documentElement.scrollWidth") <= WIDTH
    finally:
        w.close()


# Each chart of the page: drawn or not, its placeholder class, box, reserved height, background (against
# the page's) and the name its placeholder shows (CSS ::before content, quoted).
PLACEHOLDERS = """() => window.llmbench.charts().map((c) => {
  const style = getComputedStyle(c.el), before = getComputedStyle(c.el, '::before');
  const p = c.picture; // a first chart shown as the build's picture of it (test_picture.py) is shown
  return {drawn: !!c.view || !!(p && !p.hidden && p.complete && p.naturalWidth),
          pending: c.el.classList.contains('lb-pending'),
          height: c.el.getBoundingClientRect().height, reserve: parseFloat(c.el.style.minHeight),
          background: style.backgroundColor, page: getComputedStyle(document.body).backgroundColor,
          name: before.content, label: c.el.getAttribute('aria-label')};
})"""


@pytest.mark.parametrize(("lang", "scheme"), SCHEMES[:2])
def test_a_chart_not_drawn_yet_is_a_sized_placeholder(
    real_url: str, browser: object, lang: str, scheme: str
) -> None:
    w = phone(browser, scheme)
    pending = 0
    try:
        for path in PHONE:
            page = w.open(f"{real_url}/{lang}{path}")
            for c in page.evaluate(PLACEHOLDERS):
                if c["drawn"]:
                    assert not c["pending"], (path, c)
                    continue
                pending += 1
                assert c["pending"] and c["height"] >= c["reserve"] > 100, (path, c)
                assert c["background"] != c["page"] and c["name"] == f'"{c["label"]}"', (path, c)
        assert w.errors == []
    finally:
        w.close()
    assert pending > 0  # the phone pages have charts below the first screen
