"""The MLPerf page's filters in the URL, its figures in one format and its width (issue 26), in Chromium
on the site of the committed results: a link with filters opens on them, each change is a history entry
that back/forward walk, a value the page does not offer is ignored; the accelerator filter takes several
values (H200 SXM and H200 NVL together), kept in the URL as one parameter per value; no figure is written
in MLCommons' exponent notation; the tables take the page's width (no table of contents beside them); the
page does not jump as the script fills it (layout shifts summed by the browser's own PerformanceObserver,
under 0.1, Lighthouse's "good", at a desktop's and a phone's size, in both languages)."""

from __future__ import annotations

import json
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


def show_all(page) -> None:
    """Scroll to the table of every result as a reader does and wait until it is drawn: the page draws it
    only as its box nears the screen (pages/mlperf.js; Lighthouse put 4 s of a phone's main thread in it)."""
    page.locator("#all").scroll_into_view_if_needed()
    page.wait_for_selector("[data-mlperf][data-all-drawn]")


def filters(page) -> dict[str, object]:
    """The filters as a reader sees them set: each select's value, each multi-value filter's ticked boxes."""
    return page.evaluate(
        """() => Object.fromEntries([
            ...[...document.querySelectorAll('[data-mlperf-filter]')].map(
                s => [s.dataset.mlperfFilter, s.value]),
            ...[...document.querySelectorAll('[data-mlperf-multi]')].map(b => [b.dataset.mlperfMulti,
                [...b.querySelectorAll('input:checked')].map(i => i.value)]),
        ])"""
    )


def tick(page, column: str, values: list[str]) -> None:
    """Tick exactly ``values`` in a multi-value filter as a reader does: open its drop-down, click each box
    that has to change (one history entry each), close it with Escape."""
    box = f'[data-mlperf-multi="{column}"]'
    page.click(f"{box} summary")
    for value in page.eval_on_selector_all(f"{box} input", "is => is.map(i => i.value)"):
        check = page.locator(f"{box} input[value='{value}']")
        if check.is_checked() != (value in values):
            check.click()
    page.keyboard.press("Escape")
    assert page.locator(f"{box} .mlperf-multi-options").is_hidden()


def travel(page, step: str, want: dict[str, str]) -> None:
    """Back or forward, then wait until the page shows these filters, drawn. Material's instant navigation
    may fetch the page and put its HTML back, which the page script then sets from the URL: its fetch is
    awaited (network idle) before the filters are read."""
    getattr(page, step)()
    page.wait_for_load_state("networkidle")
    page.wait_for_function(
        """(want) => {
            const root = document.querySelector('[data-mlperf][data-rendered]');
            const value = (k) => {
                const box = root.querySelector(`[data-mlperf-multi="${k}"]`);
                return box ? JSON.stringify([...box.querySelectorAll('input:checked')].map(i => i.value))
                    : JSON.stringify(root.querySelector(`[data-mlperf-filter="${k}"]`).value);
            };
            return root && Object.entries(want).every(([k, v]) => value(k) === JSON.stringify(v));
        }""",
        arg=want,
    )
    # Instant navigation may put its fetched copy of the page back just after the wait matched the old one
    # (seen under load: the boxes read empty for a moment): the reader's state must settle on ``want``.
    for _ in range(50):
        if filters(page) == want:
            break
        page.wait_for_timeout(100)
    assert filters(page) == want


def test_filters_live_in_the_url_and_back_and_forward_walk_them(browser, real_url: str) -> None:
    page, errors = _open(browser, f"{real_url}/{PAGE}")
    default = filters(page)
    gpus = page.eval_on_selector_all('[data-mlperf-multi="gpu"] input', "is => is.map(i => i.value)")
    gpu = next(
        g
        for g in gpus
        if g and g in page.eval_on_selector_all(BEST, "trs => trs.map(t => t.cells[0].textContent)")
    )
    tick(page, "gpu", [gpu])
    assert parse_qs(urlparse(page.url).query) == {"gpu": [gpu]}  # the defaults stay out of the URL
    assert set(page.evaluate(VALUES)) == {gpu}
    page.select_option('[data-mlperf-filter="scenario"]', "Server")
    assert parse_qs(urlparse(page.url).query) == {"gpu": [gpu], "scenario": ["Server"]}
    shared = page.url
    travel(page, "go_back", default | {"gpu": [gpu]})
    assert "scenario" not in parse_qs(urlparse(page.url).query)
    travel(page, "go_back", default)
    assert urlparse(page.url).query == ""
    travel(page, "go_forward", default | {"gpu": [gpu]})
    # the shared link opens on the same filters and rows
    other, other_errors = _open(browser, shared)
    assert filters(other) == default | {"gpu": [gpu], "scenario": "Server"}
    assert set(other.evaluate(VALUES)) <= {gpu}
    assert not errors and not other_errors
    other.close()
    page.close()


COUNT = "() => document.querySelector('[data-mlperf-count]').textContent"
ALL_GPUS = (
    "() => [...document.querySelectorAll('[data-mlperf-all] tbody tr')].map(tr => tr.cells[6].textContent)"
)


def _shown(page) -> tuple[int, set[str], set[str]]:
    """(results in the table of every result, their accelerators, the accelerators of the best table)."""
    show_all(page)
    every = page.evaluate(ALL_GPUS)
    return len(every), set(every), set(page.evaluate(VALUES))


def test_several_accelerators_at_once_kept_in_the_url(browser, real_url: str) -> None:
    """H200 SXM and H200 NVL chosen together (issue 26): the page shows the results of both, no other; the
    URL names both and opens on both; back walks the ticks. Expected rows: the union of what each
    accelerator shows alone (read from the page with one ticked at a time)."""
    page, errors = _open(browser, f"{real_url}/{PAGE}")
    default = filters(page)
    best = page.evaluate(VALUES)
    # two accelerators of the default benchmark's best table: the H200s where there are two, else the top two
    pair = sorted(g for g in best if g.startswith("H200"))[:2]
    pair = pair if len(pair) == 2 else sorted(best[:2])
    assert len(pair) == 2, best
    alone = {}
    for gpu in pair:
        tick(page, "gpu", [gpu])
        alone[gpu] = _shown(page)
        assert alone[gpu][1] == {gpu} and alone[gpu][2] == {gpu}
    tick(page, "gpu", pair)
    n, every, best_two = _shown(page)
    assert n == sum(a[0] for a in alone.values()) and every == set(pair) and best_two == set(pair)
    assert sorted(parse_qs(urlparse(page.url).query)["gpu"]) == pair
    assert page.locator('[data-mlperf-multi="gpu"] summary').inner_text() == ", ".join(pair)
    bars = page.eval_on_selector_all("[data-mlperf-chart] g.mlperf-bar", "gs => gs.length")
    assert bars == 2  # one bar per accelerator
    # the link opens on both, with the same rows
    other, other_errors = _open(browser, page.url)
    assert filters(other) == default | {"gpu": pair}
    assert _shown(other) == (n, every, best_two) and other.evaluate(COUNT) == page.evaluate(COUNT)
    other.close()
    assert not errors and not other_errors
    page.close()


# Every distinct set of ticked accelerators the page shows, sampled each frame from now on, and the section
# element of now (window.__seen, window.__section).
WATCH = """() => {
  window.__section = document.querySelector('[data-mlperf]');
  window.__seen = [];
  const look = () => {
    const boxes = document.querySelectorAll('[data-mlperf-multi] input:checked');
    const v = JSON.stringify([...boxes].map(i => i.value));
    if (__seen[__seen.length - 1] !== v) __seen.push(v);
    requestAnimationFrame(look);
  };
  look();
}"""


def test_back_from_two_accelerators_ticks_the_previous_one(browser, real_url: str) -> None:
    """Back from two ticked accelerators ticks the one before, and the page gets there in place: Material's
    instant navigation took the first Back of a page for a change of page, fetched the same page again and
    put a fresh copy in, so the boxes read none ticked until the script mounted it anew (the test saw that
    end state about 1 run in 3 under load). Now the section stays the same element, the page is not
    requested again, and no frame shows the boxes other than before and after."""
    page, errors = _open(browser, f"{real_url}/{PAGE}")
    default = filters(page)
    best = page.evaluate(VALUES)
    pair = sorted(best[:2])
    tick(page, "gpu", [pair[1]])
    tick(page, "gpu", pair)
    fetched: list[str] = []
    page.on("request", lambda r: fetched.append(r.url) if urlparse(r.url).path.endswith(PAGE) else None)
    page.evaluate(WATCH)
    # back: the box ticked last (the first of the pair, added to the second) is unticked again
    travel(page, "go_back", default | {"gpu": [pair[1]]})
    page.wait_for_timeout(1000)  # a fetch of the page again would have come and gone by now
    assert filters(page) == default | {"gpu": [pair[1]]}
    assert page.evaluate("() => document.querySelector('[data-mlperf]') === window.__section")
    assert fetched == []
    seen = [set(json.loads(v)) for v in page.evaluate("() => window.__seen")]
    assert seen == [set(pair), {pair[1]}]
    # forward and back again: the same, in place
    travel(page, "go_forward", default | {"gpu": pair})
    travel(page, "go_back", default | {"gpu": [pair[1]]})
    assert page.evaluate("() => document.querySelector('[data-mlperf]') === window.__section")
    assert not errors
    page.close()


# The page's layout shifts (the browser's PerformanceObserver, buffered from the navigation), summed once
# the script has filled the page and a moment has passed: an upper bound of its CLS.
SHIFTS = """() => new Promise((resolve) => {
  let sum = 0;
  const shifts = [];
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) if (!e.hadRecentInput) {
      sum += e.value;
      shifts.push([e.value, e.sources.map((s) => s.node ? s.node.className || s.node.nodeName : '?')]);
    }
  }).observe({type: 'layout-shift', buffered: true});
  setTimeout(() => resolve({sum, shifts}), 1000);
})"""


@pytest.mark.parametrize("lang", ["", "ko/"], ids=["en", "ko"])
@pytest.mark.parametrize(("width", "height"), [(1440, 900), (390, 844)], ids=["desktop", "phone"])
def test_the_page_does_not_jump_while_the_script_fills_it(
    browser, real_url: str, lang: str, width: int, height: int
) -> None:
    """Lighthouse measured CLS 0.89 on a desktop (issue 26): the section appeared in place of its no-script
    text and pushed everything below it. Shared links with filters are measured too."""
    for query in ("", "?gpu=H200%20NVL%20141GB&gpu=H200%20SXM%20141GB&round=v5.1"):
        page, errors = _open(browser, f"{real_url}/{lang}{PAGE}{query}", width, height)
        found = page.evaluate(SHIFTS)
        assert found["sum"] <= 0.1, (query, found["shifts"])
        assert not errors
        page.close()


def test_a_value_the_page_does_not_offer_is_ignored(browser, real_url: str) -> None:
    page, errors = _open(browser, f"{real_url}/{PAGE}")
    default = filters(page)
    page.close()
    hostile = "?gpu=%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E&division=both&scenario=&round=v0.0"
    page, errors = _open(browser, f"{real_url}/{PAGE}{hostile}")
    assert filters(page) == default | {"scenario": ""}  # "" is the scenario filter's own "all"
    assert default["gpu"] == []  # nothing ticked: every accelerator
    assert page.locator("img[src=x]").count() == 0
    assert not errors
    page.close()


@pytest.mark.parametrize(("width", "height"), [(1440, 900), (390, 844)])
def test_figures_in_one_format_and_tables_at_the_pages_width(
    browser, real_url: str, width: int, height: int
) -> None:
    page, errors = _open(browser, f"{real_url}/{PAGE}?benchmark_official=&scenario=", width, height)
    show_all(page)
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
