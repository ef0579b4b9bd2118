"""Compare mode on the fixture results (tests/site/conftest.py), against ratios worked by hand (B ÷ A:
"how many times faster is B than A"):

- A100 vs H200, Llama 3.1 8B: the only configuration both have is FP16, 128/128, TP 1 (same source and
  release): 16,000 / 7,000 output tokens/s per GPU = 2.29;
- FP16 vs FP8 on H200, Llama 3.1 8B: only 128/128 TP 1 has both: 28,000 / 16,000 = 1.75.
"""

from __future__ import annotations

from urllib.parse import parse_qs, urlparse

import pytest

from site_gen.pages import compare
from tests.site.conftest import Watched

pytestmark = pytest.mark.browser


def rows(page) -> list[list[str]]:
    return page.eval_on_selector_all(
        ".lb-compare-table tbody tr", "trs => trs.map(tr => [...tr.cells].map(td => td.textContent))"
    )


def test_two_gpus_are_compared_over_the_configurations_both_have(fixture_url: str, watched: Watched) -> None:
    page = watched.open(f"{fixture_url}/compare.html?by=gpu&a=A100+SXM4+80GB&b=H200+SXM+141GB")
    got = rows(page)
    assert len(got) == 1
    label, a, b, ratio = got[0]
    # one configuration: everything it is is said once, above, not in its row
    shared = page.text_content(".lb-compare-shared")
    assert "Llama 3.1 8B · FP16 · 128/128 · TP1" in shared and label == "–"
    assert (a, b, ratio) == ("7,000", "16,000", "2.29×")
    assert page.text_content(".lb-compare-summary") == "H200 SXM 141GB is 2.29× A100 SXM4 80GB"
    assert (
        page.evaluate("window.llmbench.countMarks(window.llmbench.charts()[0].view.scenegraph().root)") >= 1
    )
    # each figure links to its run card
    assert all(h.startswith("runs.html#") for h in page.eval_on_selector_all(
        ".lb-compare-table a", "as => as.map(a => a.getAttribute('href'))"))  # fmt: skip
    assert watched.errors == [] and watched.external == []


def test_two_precisions_on_one_gpu_and_the_url_keeps_the_choice(fixture_url: str, watched: Watched) -> None:
    page = watched.open(f"{fixture_url}/compare.html?by=precision&a=FP16&b=FP8&gpu=H200+SXM+141GB")
    assert [r[1:] for r in rows(page)] == [["16,000", "28,000", "1.75×"]]
    page.select_option(".lb-compare-field:has-text('Workload') select", "2048/128")
    page.wait_for_function("document.querySelector('.lb-compare-summary').textContent.startsWith('No ')")
    query = parse_qs(urlparse(page.url).query)
    assert query["by"] == ["precision"] and query["workload"] == ["2048/128"]
    assert rows(page) == []
    assert watched.errors == []


def test_the_gpu_page_links_to_its_comparisons(fixture_url: str, watched: Watched) -> None:
    page = watched.open(f"{fixture_url}/generated/gpus/h200-sxm-141gb.html")
    link = page.locator("a:has-text('A100 SXM4 80GB')").first
    # the older GPU is A whichever page links (bench/data/gpus.yaml: A100 2020, H200 2024), so the answer
    # reads "H200 is N× A100" on the H200 page too
    assert parse_qs(urlparse(link.get_attribute("href")).query) == {
        "by": ["gpu"], "a": ["A100 SXM4 80GB"], "b": ["H200 SXM 141GB"]
    }  # fmt: skip
    assert "(1 configurations)" in page.text_content("article")


def test_an_excluded_source_kind_never_enters_a_comparison(monkeypatch: pytest.MonkeyPatch) -> None:
    import pandas as pd

    runs = pd.DataFrame(
        [
            {"gpu": "A", "source_kind": "published", "output_tps_per_gpu": 1.0, "model_name": "m"},
            {"gpu": "B", "source_kind": "published", "output_tps_per_gpu": 2.0, "model_name": "m"},
            {"gpu": "B", "source_kind": "mlperf", "output_tps_per_gpu": 3.0, "model_name": "m"},
            {"gpu": "C", "source_kind": "mlperf", "output_tps_per_gpu": 3.0, "model_name": "m"},
        ]
    )
    assert compare.matched(runs, "gpu", "A", "C") == 1
    monkeypatch.setattr(compare, "EXCLUDED_KINDS", ("mlperf",))
    assert compare.matched(runs, "gpu", "A", "C") == 0
    assert compare.matched(runs, "gpu", "A", "B") == 1
