"""Site search finds the page a question names first (issue 26), read on the built search index: Material
scores a title match 1000 times a text match and multiplies a page's score by its front matter's
``search.boost``. "H100 vs H200" names the compare page (its title holds all three words, and it is
boosted); "MLPerf" names the MLPerf results page (boosted above the guide's MLPerf chapter)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest


def _index(site: Path) -> dict:
    return json.loads((site / "site/search/search_index.json").read_text(encoding="utf-8"))


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
    index = _index(fixture_site)
    separator = index["config"]["separator"]
    docs = [d for d in index["docs"] if "#" not in d["location"]]
    if lang:
        mine = [d for d in docs if d["location"].startswith(lang)]
    else:
        mine = [d for d in docs if not d["location"].startswith("ko/")]
    target = next(d for d in mine if d["location"] == lang + page)
    best = _title_score(target, query, separator)
    assert best > 0, f"{target['title']!r} holds no word of {query!r}"
    rivals = [(d["location"], _title_score(d, query, separator)) for d in mine if d is not target]
    assert all(score < best for _, score in rivals), [r for r in rivals if r[1] >= best]
