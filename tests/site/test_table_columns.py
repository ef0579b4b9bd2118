"""The explorer table's columns in Chromium (issue 26), on the fixture site: the run card's link first,
the columns that say nothing about the rows shown (one value on every row, or none) hidden and named in
one line that follows the filters, and every header within two lines on a laptop and a phone, in
English and Korean."""

from __future__ import annotations

import json

import pytest

from tests.site.conftest import Watched

pytestmark = pytest.mark.browser

TEXT = "window.llmbench.scopes()[0].tableText()"
# Line boxes of each header's label: the distinct tops of its text's rects.
HEADER_LINES = """() => [...document.querySelectorAll('.lb-table thead .lb-sort')].map((b) => {
    const r = document.createRange();
    r.selectNodeContents(b);
    return [b.textContent, new Set([...r.getClientRects()].map((x) => Math.round(x.top))).size];
})"""


def catalogue(page) -> list[dict]:
    return json.loads(page.get_attribute(".lb-scope", "data-lb-table"))


def pick(page, dim: str, value: str) -> None:
    page.click(f'.lb-filter[data-dim="{dim}"] .lb-filter-button')
    before = page.evaluate("document.querySelector('.lb-scope').dataset.lbRendered")
    page.check(f'.lb-filter[data-dim="{dim}"] input[value="{value}"]')
    page.wait_for_function(f"document.querySelector('.lb-scope').dataset.lbRendered !== '{before}'")
    page.keyboard.press("Escape")


def check_hiding(page) -> dict:
    """Every column shown tells rows apart or is one always kept; every other column is named in the line
    under the table with its one value, or as empty. Returns tableText()."""
    text = page.evaluate(TEXT)
    head, rows = text["head"], text["rows"]
    keys = page.eval_on_selector_all(".lb-table thead .lb-sort", "bs => bs.map(b => b.dataset.key)")
    by_key = {c["key"]: c for c in catalogue(page)}
    # the labels as the table writes them (the cost column's has the price in it)
    cols = {label: by_key[k] for label, k in zip(head, keys, strict=True)}
    labels = {c["label"] for c in by_key.values() if "{" not in c["label"]} | set(head)
    assert len(rows) > 1
    for i, label in enumerate(head):
        if not cols[label]["always"]:
            assert len({r[i] for r in rows}) > 1, f"{label}: one value on every row, yet shown"
    same = {h["label"]: h["value"] for h in text["hidden"]["same"]}
    assert labels == set(head) | set(same) | set(text["hidden"]["empty"])
    line = page.text_content(".lb-table-hidden")
    for label, value in same.items():
        assert f"{label} ({value})" in line
    for label in text["hidden"]["empty"]:
        assert label in line
    return text


def test_run_link_first_and_constant_columns_hidden_as_the_filters_change(
    fixture_url: str, watched: Watched
) -> None:
    page = watched.open(f"{fixture_url}/explorer.html")
    assert catalogue(page)[0]["key"] == "run_id"
    rows = page.locator(".lb-table tbody tr:not(.lb-spacer)")
    assert rows.count() and rows.locator("td:first-child a.lb-card-link").count() == rows.count()
    whole = check_hiding(page)
    assert "GPU" in whole["head"] and "Model" in whole["head"]

    pick(page, "gpu", "H200 SXM 141GB")
    h200 = check_hiding(page)
    assert "GPU" not in h200["head"]
    assert "GPU (H200 SXM 141GB)" in page.text_content(".lb-table-hidden")
    assert "Model" in h200["head"]  # 8B and 70B runs on the H200

    pick(page, "precision", "FP8")
    check_hiding(page)
    # back to every run: the columns come back and the line says nothing of them
    page.go_back()
    page.go_back()
    page.wait_for_function(f"{TEXT}.head.includes('GPU')")
    check_hiding(page)
    assert "GPU (" not in page.text_content(".lb-table-hidden")
    assert watched.errors == []


@pytest.mark.parametrize("lang", ["", "ko/"])
@pytest.mark.parametrize(("width", "height"), [(1440, 900), (390, 844)])
def test_headers_keep_to_two_lines_with_the_long_text_as_title(
    browser: object, fixture_url: str, lang: str, width: int, height: int
) -> None:
    w = Watched(browser, width, height)
    try:
        page = w.open(f"{fixture_url}/{lang}explorer.html")
        lines = page.evaluate(HEADER_LINES)
        assert lines and all(n <= 2 for _, n in lines), lines
        for c in catalogue(page):
            if "long" in c and page.locator(f'th:has(.lb-sort[data-key="{c["key"]}"])').count():
                title = page.get_attribute(f'th:has(.lb-sort[data-key="{c["key"]}"])', "title")
                assert title.startswith(c["long"].split("{")[0]), (c, title)
        assert w.errors == []
    finally:
        w.close()


WRAP_TOP = "document.querySelector('.lb-table-wrap').getBoundingClientRect().top + scrollY"
DRAWN = "document.querySelectorAll('.lb-table thead th').length"


def test_the_table_below_the_first_screens_is_drawn_as_the_reader_scrolls_to_it(
    real_url: str, browser: object
) -> None:
    """The table is drawn when its box comes within a screen of the screen, not in the page load: a filter
    changed meanwhile is what it shows when it is drawn, and its box does not change size (nothing below
    it moves). A short window puts the table more than two screens down whatever the data."""
    w = Watched(browser, 1440, 560)
    try:
        page = w.open(f"{real_url}/explorer.html")
        page.wait_for_function("window.llmbench.scopes()[0].rows().length > 0", timeout=20_000)
        assert page.evaluate(WRAP_TOP) > 2 * 560  # the case this test is about
        box = page.evaluate("document.querySelector('.lb-table-wrap').getBoundingClientRect().height")
        assert page.evaluate(DRAWN) == 0
        page.click('.lb-filter[data-dim="gpu"] .lb-filter-button')
        gpu = page.get_attribute('.lb-filter[data-dim="gpu"] input', "value")
        page.keyboard.press("Escape")
        pick(page, "gpu", gpu)
        assert page.evaluate(DRAWN) == 0
        page.locator(".lb-table-wrap").scroll_into_view_if_needed()
        page.wait_for_function(f"{DRAWN} > 0", timeout=10_000)
        shown = page.eval_on_selector_all(
            ".lb-table tbody tr:not(.lb-spacer)", "trs => trs.map(tr => tr.cells[0].textContent)"
        )
        text = check_hiding(page)
        assert shown and shown == [r[0] for r in text["rows"][: len(shown)]]
        assert {h["label"]: h["value"] for h in text["hidden"]["same"]}.get("GPU") == gpu
        assert page.evaluate("document.querySelector('.lb-table-wrap').getBoundingClientRect().height") == box
        assert w.errors == []
    finally:
        w.close()


# Every element an IntersectionObserver of the page watches (observe without unobserve or disconnect):
# the page script's "draw when near" watchers, counted from the browser's own calls.
WATCH_COUNT = """
(() => {
  const Real = window.IntersectionObserver;
  window.lbWatched = new Set();
  window.IntersectionObserver = class extends Real {
    constructor(cb, opts) { super(cb, opts); this.lbMine = new Set(); }
    observe(el) { super.observe(el); this.lbMine.add(el); window.lbWatched.add([this, el]); }
    unobserve(el) { super.unobserve(el); this.lbMine.delete(el); }
    disconnect() { super.disconnect(); this.lbMine.clear(); }
  };
})();
"""
DETACHED_WATCHED = "[...window.lbWatched].filter(([o, el]) => o.lbMine.has(el) && !el.isConnected).length"


def go(page, path: str) -> None:
    """Instant navigation to ``path`` (a link of the page, clicked), back once the new page is mounted."""
    ready = page.evaluate("document.body.dataset.lbReady")
    page.evaluate(
        "(href) => { const a = document.createElement('a'); a.href = href;"
        " document.querySelector('article').append(a); a.click(); }",
        f"/{path}",
    )
    page.wait_for_function(
        "([path, ready]) => location.pathname.endsWith(path) && document.body.dataset.lbReady !== ready",
        arg=[path, ready],
        timeout=30_000,
    )


def test_leaving_a_page_leaves_no_watcher_on_it(real_url: str, browser: object) -> None:
    """Instant navigation swaps the page without a reload: what waited to come near the screen (the
    explorer's table two screens down, charts below the first screen, the Pareto view's tables, the
    MLPerf page's table) must stop being watched when the reader leaves (a watcher holds the old page)."""
    w = Watched(browser, 1440, 560)
    try:
        w.page.add_init_script(WATCH_COUNT)
        page = w.open(f"{real_url}/explorer.html")
        page.wait_for_function("window.llmbench.scopes()[0].rows().length > 0", timeout=20_000)
        assert page.evaluate(DRAWN) == 0  # still waiting to come near
        assert page.evaluate(
            "[...window.lbWatched].some(([o, el]) => o.lbMine.has(el) && el.matches('.lb-table-wrap'))"
        )
        for path in [
            "generated/views/latency-pareto.html",
            "compare.html",
            "generated/mlperf/index.html",
            "index.html",
        ]:
            go(page, path)
            assert page.evaluate(DETACHED_WATCHED) == 0, f"after leaving for {path}"
        assert w.errors == []
    finally:
        w.close()
