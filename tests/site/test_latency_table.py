"""The explorer's latency columns in Chromium, on the committed H200 concurrency sweep: the figures of
one run as its result file gives them (1024/1024, concurrency 256: 9.23 tok/s per user, TTFT 7,377.66 ms,
TPOT 101.19 ms, end-to-end 110,894.26 ms; the table rounds to one decimal), and no latency column where
no run of the page has one (the A100 page: published peak figures only)."""

from __future__ import annotations

import pytest

from tests.site.conftest import Watched

pytestmark = pytest.mark.browser
LATENCY = ["Concurrency", "Tok/s per user", "TTFT mean (ms)", "TPOT mean (ms)", "End-to-end mean (ms)"]


def test_latency_columns_where_runs_have_them(real_url: str, watched: Watched) -> None:
    page = watched.open(
        f"{real_url}/explorer.html?gpu=H200+SXM+141GB&engine=transformers&workload=1024%2F1024"
    )
    text = page.evaluate("window.llmbench.scopes()[0].tableText()")
    head = text["head"]
    assert all(c in head for c in LATENCY), head
    col = {c: head.index(c) for c in LATENCY}
    row = next(r for r in text["rows"] if r[col["Concurrency"]] == "256" and r[col["TTFT mean (ms)"]] != "–")
    assert [row[col[c]] for c in LATENCY[1:]] == ["9.2", "7,377.7", "101.2", "110,894.3"]
    a100 = watched.open(f"{real_url}/generated/gpus/a100-sxm4-80gb.html")
    head = a100.evaluate("window.llmbench.scopes()[0].tableText()")["head"]
    assert not set(LATENCY[1:]) & set(head), head
    assert watched.errors == []
