"""The MLPerf page's filters in the URL, its figures in one format and its width (issue 26), in Chromium
on the site of the committed results: a link with filters opens on them, each change is a history entry
that back/forward walk, a value the page does not offer is ignored; no figure is written in MLCommons'
exponent notation; the tables take the page's width (no table of contents beside them)."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlparse

import pytest

pytestmark = pytest.mark.browser
PAGE = "generated/mlperf/index.html"
BEST = "[data-mlperf-best] tbody tr"
VALUES = (
    "() => [...document.querySelectorAll('[data-mlperf-best] tbody tr')].map(tr => tr.cells[0].textContent)"
)


def _open(browser, url: str, width: int = 1440, height: int = 900):
    page = browser.new_page(viewport={"width": width, "height": height})
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(url)
    page.wait_for_selector("[data-mlperf][data-rendered]")
    return page, errors


def filters(page) -> dict[str, str]:
    return page.eval_on_selector_all(
        "[data-mlperf-filter]", "ss => Object.fromEntries(ss.map(s => [s.dataset.mlperfFilter, s.value]))"
    )


def travel(page, step: str, want: dict[str, str]) -> None:
    """Back or forward, then wait until the page shows these filters, drawn. Material's instant navigation
    may fetch the page and put its HTML back, which the page script then sets from the URL: its fetch is
    awaited (network idle) before the filters are read."""
    getattr(page, step)()
    page.wait_for_load_state("networkidle")
    page.wait_for_function(
        """(want) => {
            const root = document.querySelector('[data-mlperf][data-rendered]');
            return root && Object.entries(want).every(
                ([k, v]) => root.querySelector(`[data-mlperf-filter="${k}"]`).value === v);
        }""",
        arg=want,
    )
    assert filters(page) == want


def test_filters_live_in_the_url_and_back_and_forward_walk_them(browser, real_url: str) -> None:
    page, errors = _open(browser, f"{real_url}/{PAGE}")
    default = filters(page)
    gpus = page.eval_on_selector_all('[data-mlperf-filter="gpu"] option', "os => os.map(o => o.value)")
    gpu = next(
        g
        for g in gpus
        if g and g in page.eval_on_selector_all(BEST, "trs => trs.map(t => t.cells[0].textContent)")
    )
    page.select_option('[data-mlperf-filter="gpu"]', gpu)
    assert parse_qs(urlparse(page.url).query) == {"gpu": [gpu]}  # the defaults stay out of the URL
    assert set(page.evaluate(VALUES)) == {gpu}
    page.select_option('[data-mlperf-filter="scenario"]', "Server")
    assert parse_qs(urlparse(page.url).query) == {"gpu": [gpu], "scenario": ["Server"]}
    shared = page.url
    travel(page, "go_back", default | {"gpu": gpu})
    assert "scenario" not in parse_qs(urlparse(page.url).query)
    travel(page, "go_back", default)
    assert urlparse(page.url).query == ""
    travel(page, "go_forward", default | {"gpu": gpu})
    # the shared link opens on the same filters and rows
    other, other_errors = _open(browser, shared)
    assert filters(other) == default | {"gpu": gpu, "scenario": "Server"}
    assert set(other.evaluate(VALUES)) <= {gpu}
    assert not errors and not other_errors
    other.close()
    page.close()


def test_a_value_the_page_does_not_offer_is_ignored(browser, real_url: str) -> None:
    page, errors = _open(browser, f"{real_url}/{PAGE}")
    default = filters(page)
    page.close()
    hostile = "?gpu=%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E&division=both&scenario=&round=v0.0"
    page, errors = _open(browser, f"{real_url}/{PAGE}{hostile}")
    assert filters(page) == default | {"scenario": ""}  # "" is the scenario filter's own "all"
    assert page.locator("img[src=x]").count() == 0
    assert not errors
    page.close()


@pytest.mark.parametrize(("width", "height"), [(1440, 900), (390, 844)])
def test_figures_in_one_format_and_tables_at_the_pages_width(
    browser, real_url: str, width: int, height: int
) -> None:
    page, errors = _open(browser, f"{real_url}/{PAGE}?benchmark_official=&scenario=", width, height)
    cells = page.eval_on_selector_all(
        "[data-mlperf-best] td, [data-mlperf-rounds] td, [data-mlperf-all] td, [data-mlperf-chart] text",
        "cs => cs.map(c => c.textContent)",
    )
    assert cells
    raw = [c for c in cells if re.search(r"\d\.?\d*e[+-]\d\d\b", c)]  # "1.12685e+06", not "D75E-4U"
    assert raw == []
    # a figure of four or more digits before the point is grouped ("68,894.8", never "68894.8")
    assert not [c for c in cells if re.fullmatch(r"\d{4,}(\.\d+)?", c.strip())]
    box = page.eval_on_selector("[data-mlperf-all]", "t => t.parentElement.getBoundingClientRect().width")
    article = page.eval_on_selector("article", "a => a.getBoundingClientRect().width")
    assert box >= article - 2
    if width >= 1440:
        assert page.locator(".md-sidebar--secondary").is_hidden()  # no table of contents taking a third
        assert box > 0.6 * width
    assert not errors
    page.close()
