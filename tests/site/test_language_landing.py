"""A Korean browser and the language editions (issue 26), in Chromium on the fixture site: a browser whose
first language is Korean landing on the English home is sent to the Korean home once, which says why and
links back; the choice is kept (no second redirect, no loop); an English browser, or a Korean one landing
elsewhere, stays where it landed. The explorer's intro names the filters' "all" as the chips write it."""

from __future__ import annotations

from urllib.parse import urlparse

import pytest

from site_gen import i18n
from tests.site.conftest import Watched

pytestmark = pytest.mark.browser
READY = "document.body && document.body.dataset.lbReady"


def korean_home(url: str) -> bool:
    return urlparse(url).path in ("/ko/", "/ko/index.html")


@pytest.mark.parametrize(("width", "height"), [(1440, 900), (390, 844)])
def test_a_korean_browser_lands_on_the_korean_home_once_with_a_way_back(
    browser: object, fixture_url: str, width: int, height: int
) -> None:
    context = browser.new_context(locale="ko-KR", viewport={"width": width, "height": height})
    errors: list[str] = []
    try:
        page = context.new_page()
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(f"{fixture_url}/")
        page.wait_for_url(lambda u: korean_home(u), timeout=20_000)
        page.wait_for_function(READY)
        ko = i18n.load("ko").messages
        notice = page.locator(".lb-lang-sent")
        assert notice.is_visible() and ko["ui.langSent"] in notice.text_content()
        # the way back: to the English home, which keeps the reader there from now on
        notice.locator("a").click()
        page.wait_for_url(lambda u: urlparse(u).path in ("/", "/index.html"))
        page.wait_for_function(READY)
        assert page.evaluate("localStorage.getItem('llmbench.lang')") == "en"
        page.goto(f"{fixture_url}/")
        page.wait_for_function(READY)
        assert urlparse(page.url).path in ("/", "/index.html")
        # the Korean home again, by the language switch's own link: no notice a second time
        page.goto(f"{fixture_url}/ko/")
        page.wait_for_function(READY)
        assert page.locator(".lb-lang-sent").count() == 0
        assert errors == []
    finally:
        context.close()


def test_the_redirect_happens_once_and_only_from_the_english_home(browser: object, fixture_url: str) -> None:
    context = browser.new_context(locale="ko-KR")
    try:
        page = context.new_page()
        page.goto(f"{fixture_url}/explorer.html")  # not the home: stays
        page.wait_for_function(READY)
        assert urlparse(page.url).path == "/explorer.html"
        page.goto(f"{fixture_url}/index.html")
        page.wait_for_url(lambda u: korean_home(u), timeout=20_000)
        page.wait_for_function(READY)
        # the choice is kept: the English home now stays English, however often it is opened
        page.goto(f"{fixture_url}/")
        page.wait_for_function(READY)
        assert not korean_home(page.url)
    finally:
        context.close()


def test_an_english_browser_stays_on_the_english_home(fixture_url: str, watched: Watched) -> None:
    page = watched.open(f"{fixture_url}/")
    assert urlparse(page.url).path in ("/", "/index.html")
    assert page.evaluate("localStorage.getItem('llmbench.lang')") is None
    assert watched.errors == []


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_the_explorer_intro_names_all_as_the_chips_write_it(
    fixture_url: str, watched: Watched, lang: str
) -> None:
    page = watched.open(f"{fixture_url}/{'' if lang == 'en' else 'ko/'}explorer.html")
    chip = i18n.load(lang).messages["ui.all"]
    page.locator(".lb-filter-button").first.click()  # a filter's list is built when first opened
    assert page.locator(".lb-all").first.text_content() == chip
    intro = page.locator("article p").first.locator("strong").all_text_contents()
    assert chip in intro, intro
