"""Site search (issue 26): it finds the page a question names first, and each language's search lists that
language's pages only.

Read on the built search indexes: Material scores a title match 1000 times a text match and multiplies a
page's score by its front matter's ``search.boost``. "H100 vs H200" names the compare page (its title holds
all three words, and it is boosted); "MLPerf" names the MLPerf results page (boosted above the guide's
MLPerf chapter). Each language has its own index (site_gen/site/search_index.py): English's holds no /ko/
location, Korean's only /ko/ ones, untranslated pages included (mkdocs-static-i18n's merged index dropped
those from Korean and listed them in English). Then in Chromium, as a reader: typing into Material's search
box on an English and a Korean page, on the site of the committed results."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path
from urllib.parse import urlparse

import pytest

from site_gen.site import search_index
from tests.site.conftest import Watched


def _index(site: Path, lang: str = "") -> dict:
    return json.loads((site / "site" / lang / "search/search_index.json").read_text(encoding="utf-8"))


def _terms(text: str, separator: str) -> set[str]:
    """lunr's tokens: split on the index's separator, lower case, non-word characters trimmed at both
    ends (lunr.trimmer: "MLPerf®" is "mlperf")."""
    words = (re.sub(r"^\W+|\W+$", "", t) for t in re.split(separator, text.lower()))
    return {w for w in words if w}


def _title_score(doc: dict, query: str, separator: str) -> float:
    """Material's ranking, reduced to what decides it here: the query terms in the page's title, times
    the page's boost (text matches weigh 1/1000 of a title match)."""
    return len(_terms(query, separator) & _terms(doc["title"], separator)) * doc.get("boost", 1)


@pytest.mark.parametrize(
    ("query", "page"), [("H100 vs H200", "compare.html"), ("MLPerf", "generated/mlperf/index.html")]
)
@pytest.mark.parametrize("lang", ["", "ko/"])
def test_the_page_a_question_names_ranks_first(fixture_site: Path, query: str, page: str, lang: str) -> None:
    index = _index(fixture_site, lang)
    separator = index["config"]["separator"]
    mine = [d for d in index["docs"] if "#" not in d["location"]]
    target = next(d for d in mine if d["location"] == lang + page)
    best = _title_score(target, query, separator)
    assert best > 0, f"{target['title']!r} holds no word of {query!r}"
    rivals = [(d["location"], _title_score(d, query, separator)) for d in mine if d is not target]
    assert all(score < best for _, score in rivals), [r for r in rivals if r[1] >= best]


def test_each_language_has_its_own_index_with_every_page_of_it(fixture_site: Path) -> None:
    """Every built page of a language is in that language's index and no other's; the Korean index keeps
    the English text's lunr language too (its untranslated pages are English)."""
    site = fixture_site / "site"
    en, ko = _index(fixture_site), _index(fixture_site, "ko/")
    pages = {p.relative_to(site).as_posix() for p in site.rglob("*.html") if p.name != "404.html"}
    # a page Material indexes is one the build wrote (the runs' card pages and redirects aside)
    en_pages = {d["location"] for d in en["docs"] if "#" not in d["location"]}
    ko_pages = {d["location"] for d in ko["docs"] if "#" not in d["location"]}
    assert en_pages and en_pages <= pages and not any(p.startswith("ko/") for p in en_pages)
    assert ko_pages and ko_pages <= pages and all(p.startswith("ko/") for p in ko_pages)
    assert all(not d["location"].startswith("ko/") for d in en["docs"])
    assert all(d["location"].startswith("ko/") for d in ko["docs"])
    # the same pages in both: each English page has its Korean twin (translated or not) in Korean's index
    assert {f"ko/{p}" for p in en_pages} == ko_pages
    assert en["config"]["lang"] == ["en"] and set(ko["config"]["lang"]) == {"en", "ko"}


# The static filter bar's first two buttons as the page writes them: label ("Model: ") and value.
BAR_BUTTONS = re.compile(
    r'<span class="lb-filter-label">([^<]*)</span><span class="lb-filter-value">([^<]*)</span>'
)


@pytest.mark.parametrize("lang", ["", "ko/"])
def test_the_filter_bar_is_not_what_search_quotes(fixture_site: Path, lang: str) -> None:
    """A page's filter bar and limits are controls, not text: their static labels, run together ("Model:
    Llama 3.1 8BPrecision: all ..."), were the search excerpt of every view, GPU and model page. The pages
    stay in the index by their own text."""
    site = fixture_site / "site"
    docs = _index(fixture_site, lang)["docs"]
    located = {d["location"].split("#")[0] for d in docs}
    bars = 0
    for page in (site / lang).rglob("*.html"):
        where = page.relative_to(site).as_posix()
        if not lang and where.startswith("ko/"):
            continue
        buttons = BAR_BUTTONS.findall(page.read_text(encoding="utf-8"))[:2]
        if len(buttons) < 2 or where not in located:
            continue
        bars += 1
        text = html.unescape("".join(label + value for label, value in buttons))
        quoted = [d["location"] for d in docs if d["location"].split("#")[0] == where and text in d["text"]]
        assert quoted == [], (text, quoted)
    assert bars  # the case this test is about


def test_split_by_hand() -> None:
    merged = {
        "config": {"lang": ["en", "ko"], "separator": "[\\s]+"},
        "docs": [
            {"location": "index.html", "title": "Home", "text": ""},
            {"location": "ko/index.html", "title": "홈", "text": ""},
            {"location": "ko/guide/a.html#x", "title": "A", "text": ""},
            {"location": "kor/x.html", "title": "not a language folder", "text": ""},
        ],
    }
    parts = search_index.split(merged, ["en", "ko"])
    assert [d["title"] for d in parts["en"]["docs"]] == ["Home", "not a language folder"]
    assert [d["title"] for d in parts["ko"]["docs"]] == ["홈", "A"]
    assert parts["en"]["config"] == {"lang": ["en"], "separator": "[\\s]+"}
    assert parts["ko"]["config"]["lang"] == ["en", "ko"]
    assert search_index.path_of("en") == "search/search_index.json"
    assert search_index.path_of("ko") == "ko/search/search_index.json"


RESULTS = "() => [...document.querySelectorAll('.md-search-result__item > a')].map(a => a.href)"


def _search(page, query: str) -> list[str]:
    """Type ``query`` into Material's search box, as a reader does, and return the results' paths. Material
    searches on each key's keyup; Playwright types Hangul as inserted text (no key events), so the query
    is filled in and the last key (End) released, as after an IME's composition."""
    page.click(".md-search__input")
    page.fill(".md-search__input", query)
    page.keyboard.press("End")
    page.wait_for_function(f"({RESULTS})().length > 0", timeout=20_000)
    page.wait_for_timeout(300)  # the worker answers each key: read the answer to the whole query
    return [urlparse(h).path for h in page.evaluate(RESULTS)]


@pytest.mark.browser
@pytest.mark.parametrize("lang", ["", "ko/"], ids=["en", "ko"])
def test_typing_in_the_search_box_finds_the_named_page_in_the_pages_language(
    browser, real_url: str, lang: str
) -> None:
    w = Watched(browser, 1440, 900)
    try:
        w.open(f"{real_url}/{lang}index.html")
        queries = {"H100 vs H200": "compare.html", "MLPerf": "generated/mlperf/index.html"}
        # a technical term both editions write in English, and a word of the page's language
        words = ["DuckDB", "처리량" if lang else "quantisation"]
        for query in [*queries, *words]:
            found = _search(w.page, query)
            if query in queries:
                assert found[0] == f"/{lang}{queries[query]}", (query, found[:5])
            # every result in the page's language: English lists no /ko/ page, Korean only /ko/ pages
            if lang:
                assert all(p.startswith(f"/{lang}") for p in found), (query, found)
            else:
                assert not any(p.startswith("/ko/") for p in found), (query, found)
        assert w.errors == [] and w.external == []
    finally:
        w.close()
