"""tasks.js ``nearScreen``/``whenNear``, the one "draw when near the screen" helper (the charts below the
first screen, the MLPerf page's table of every result, the Pareto view's tables), as Chromium's own
IntersectionObserver answers it on a page of boxes at known places: what shows on the first screen is near
at once; what sits within the margin waits for the reader's first scroll; an aborted watch never answers."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.conftest import ROOT, serve

pytestmark = pytest.mark.browser

# boxes 300 px tall at known tops in an 800x600 window: "top" on the first screen, "edge" peeking in at
# the bottom (20 px show), "half" within half a screen below it (top 700 < 600 + 300), "far" beyond
PAGE = """<!doctype html><meta charset="utf-8"><style>body{margin:0;height:5000px;position:relative}
div{position:absolute;left:0;width:100px;height:300px}</style>
<div id="top" style="top:0"></div><div id="edge" style="top:580px"></div>
<div id="half" style="top:700px"></div><div id="far" style="top:2000px"></div>"""

# the log of what resolved: "<name> first <bool>" and "<name> near"
SETUP = """async (opts) => {
  const { nearScreen, whenNear } = await import('/assets/js/tasks.js');
  window.log = [];
  window.leave = new AbortController();
  const shows = (e) => e.intersectionRect.height >= 0.25 * e.boundingClientRect.height;
  const near = nearScreen({ margin: '50% 0px', firstLook: opts.firstLook ? shows : null,
    signal: window.leave.signal });
  window.forget = (id) => near.forget(document.getElementById(id));
  for (const id of ['top', 'edge', 'half', 'far']) {
    const w = near.watch(document.getElementById(id));
    w.first.then((v) => window.log.push(id + ' first ' + v));
    w.near.then(() => window.log.push(id + ' near'));
  }
  whenNear(document.getElementById('far'), { now: true }).then(() => window.log.push('now near'));
}"""


@pytest.fixture(scope="module")
def page(browser: object) -> Iterator[object]:
    url, server = serve(ROOT / "docs")
    context = browser.new_context(viewport={"width": 800, "height": 600})
    context.route(f"{url}/near.html", lambda r: r.fulfill(body=PAGE, content_type="text/html"))
    p = context.new_page()
    p.goto(f"{url}/near.html")
    p.base = url  # type: ignore[attr-defined]
    yield p
    context.close()
    server.shutdown()


def fresh(page: object, first_look: bool) -> list[str]:
    page.goto(f"{page.base}/near.html")
    page.evaluate(SETUP, {"firstLook": first_look})
    page.wait_for_timeout(300)  # the observers' first answers
    return page.evaluate("window.log.slice()")


def scroll_to(page: object, y: int) -> list[str]:
    page.evaluate(f"window.scrollTo(0, {y})")
    page.wait_for_timeout(300)
    return page.evaluate("window.log.slice()")


def test_the_first_screen_is_near_at_once_and_the_margin_waits_for_the_first_scroll(page: object) -> None:
    log = fresh(page, first_look=True)
    assert sorted(log) == sorted(
        ["now near", "top first true", "top near", "edge first false", "half first false", "far first false"]
    )
    log = scroll_to(page, 1)  # the first scroll: within half a screen counts from now
    assert {"edge near", "half near"} <= set(log) and "far near" not in log
    log = scroll_to(page, 1500)  # far's top at 500 of 600
    assert log.count("far near") == 1 and log.count("top near") == 1


def test_without_a_first_look_the_margin_counts_from_the_start(page: object) -> None:
    log = fresh(page, first_look=False)
    assert {"top first true", "top near", "edge near", "half near", "far first false"} <= set(log)
    assert "far near" not in log
    assert "far near" in scroll_to(page, 1500)


def test_an_aborted_or_forgotten_watch_never_answers_near(page: object) -> None:
    fresh(page, first_look=True)
    page.evaluate("window.forget('half')")
    log = scroll_to(page, 1)
    assert "edge near" in log and "half near" not in log
    page.evaluate("window.leave.abort()")  # the page left (instant navigation)
    log = scroll_to(page, 1500)
    assert "far near" not in log
