"""Hostile page addresses (issue 24, items 8 and 9), met as a person meets them, in English and Korean, on
a desktop (1440x900) and a phone (390x844):

- ``explorer.html?price=1e308`` (or ``0x10``, ``Infinity``, a price above $1,000 per GPU-hour): the price
  box keeps the default, a note beside it says the text is not used, the cost column's header stays one
  short line and the table's first row is on screen; a plain price typed afterwards is used and clears
  the note; a refused one typed leaves the last good price;
- ``runs.html#%`` (not valid percent-encoding): the card says no run has that id, with no script error,
  and a good id put in the hash afterwards shows that run's card without a reload.

The site is the small fixture site of tests/site/conftest.py; the run ids come from its database.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import duckdb
import pytest

from tests.site.conftest import Watched

pytestmark = pytest.mark.browser

VIEWPORTS = {"desktop": (1440, 900), "phone": (390, 844)}
LANGS = {
    "en": {"prefix": "", "refused": "Not used", "no_run": "No run has the id “{id}”", "cost": "$/1M"},
    "ko": {
        "prefix": "ko/",
        "refused": "사용하지 않음",
        "no_run": "ID가 “{id}”인 실행이 없습니다",
        "cost": "100만",
    },
}


@pytest.fixture(params=[(lang, vp) for lang in LANGS for vp in VIEWPORTS], ids=lambda p: f"{p[0]}-{p[1]}")
def view(request: pytest.FixtureRequest, browser: object) -> Iterator[tuple[dict[str, str], Watched]]:
    lang, vp = request.param
    w = Watched(browser, *VIEWPORTS[vp])
    yield LANGS[lang], w
    w.close()


def cost_header(page, lang: dict[str, str]) -> tuple[str, float]:
    """The cost column's header text and its height in pixels, the table scrolled to as a reader does (it
    is drawn when it comes near the screen: views/results-table.js)."""
    page.locator(".lb-scope .lb-table-wrap").scroll_into_view_if_needed()
    page.wait_for_selector(".lb-scope thead th", timeout=20_000)
    return page.evaluate(
        """(needle) => {
            const th = [...document.querySelectorAll('.lb-scope thead th')]
                .find(t => t.textContent.includes(needle));
            return [th.textContent, th.getBoundingClientRect().height];
        }""",
        lang["cost"],
    )


def first_row_on_screen(page) -> bool:
    """The table's first row is drawn inside the viewport and inside the table's scroll box."""
    return page.evaluate(
        """() => {
            const tr = document.querySelector('.lb-scope tbody tr');
            if (!tr) return false;
            tr.scrollIntoView({block: 'center'});
            const r = tr.getBoundingClientRect();
            let box = tr.parentElement;
            while (box && getComputedStyle(box).overflowY === 'visible') box = box.parentElement;
            const b = (box || document.documentElement).getBoundingClientRect();
            return r.height > 0 && r.top < innerHeight && r.bottom > 0
                && r.top < b.bottom && r.bottom > b.top;
        }"""
    )


def note(page) -> str | None:
    loc = page.locator(".lb-price-note")
    return loc.text_content() if loc.count() and loc.is_visible() else None


@pytest.mark.parametrize("price", ["1e308", "0x10", "Infinity", "1000.01"])
def test_a_price_that_is_not_a_plain_sane_decimal_is_refused_with_a_note(
    fixture_url: str, view: tuple[dict[str, str], Watched], price: str
) -> None:
    lang, watched = view
    page = watched.open(f"{fixture_url}/{lang['prefix']}explorer.html")
    plain = cost_header(page, lang)  # the page as met without a price in its address
    assert note(page) is None
    page = watched.open(f"{fixture_url}/{lang['prefix']}explorer.html?price={price}")
    box = page.locator(".lb-price input")
    assert box.input_value() == "2.00"  # the default, not the refused text
    assert lang["refused"] in (note(page) or ""), "no note says the price is not used"
    assert box.get_attribute("aria-invalid") == "true"
    assert cost_header(page, lang) == plain  # the header is the default's: no 300-digit price in it
    assert first_row_on_screen(page)

    # a plain price typed afterwards is used and clears the note; a refused one keeps the last good price
    box.fill("12.5")
    page.wait_for_function("new URLSearchParams(location.search).get('price') === '12.5'")
    assert note(page) is None and box.get_attribute("aria-invalid") is None
    assert "12.50" in cost_header(page, lang)[0]
    box.fill("5000")
    assert lang["refused"] in (note(page) or "")
    assert "12.50" in cost_header(page, lang)[0] and "price=12.5" in page.url
    assert first_row_on_screen(page)
    assert watched.errors == [] and watched.dialogs == []


def test_the_pareto_views_price_reads_only_plain_decimals(fixture_url: str, watched: Watched) -> None:
    """The Pareto chart's own price input (a Vega binding) starts at the default for ``?price=0x10`` and
    at the given price for a plain one."""
    for query, want in (("0x10", "2"), ("1e3", "2"), ("7.5", "7.5")):
        page = watched.open(f"{fixture_url}/generated/views/latency-pareto.html?price={query}")
        page.wait_for_selector(".vega-bind input", state="attached", timeout=20_000)
        assert page.eval_on_selector(".vega-bind input", "e => e.value") == want, query
    assert watched.errors == []


def run_ids(site: Path) -> list[str]:
    with duckdb.connect(str(site / "llmbench.duckdb"), read_only=True) as con:
        return [r[0] for r in con.execute("SELECT run_id FROM runs ORDER BY run_id LIMIT 2").fetchall()]


@pytest.mark.parametrize("bad", ["%", "%E0%A4%A", "abc%zz"])
def test_a_bad_hash_says_no_such_run_and_a_good_one_then_works_without_a_reload(
    fixture_site: Path, fixture_url: str, view: tuple[dict[str, str], Watched], bad: str
) -> None:
    lang, watched = view
    good = run_ids(fixture_site)[0]
    page = watched.open(f"{fixture_url}/{lang['prefix']}runs.html#{bad}")
    card = page.locator(".lb-runcard")
    card.locator(".lb-status").wait_for()
    assert lang["no_run"].format(id=bad) in card.text_content()
    page.evaluate("() => { window.__lbSamePage = true; }")  # gone if the page reloads

    page.evaluate(f"location.hash = {good!r}")
    card.locator(".lb-card-id code").wait_for()
    assert card.locator(".lb-card-id code").text_content() == good
    page.evaluate(f"location.hash = {bad!r}")  # and back to a bad one: the message again
    # the card says "Loading the run…" between the two (no card id then either): wait for the message
    message = lang["no_run"].format(id=bad)
    page.wait_for_function("m => document.querySelector('.lb-runcard').textContent.includes(m)", arg=message)
    assert not card.locator(".lb-card-id").count()
    assert message in card.text_content()
    assert page.evaluate("window.__lbSamePage === true")
    assert watched.errors == [] and watched.dialogs == []
