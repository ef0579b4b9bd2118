"""The explorer's latency columns in Chromium, on the committed H200 concurrency sweep: the figures of
one run as its result file gives them (1024/1024, concurrency 256: 9.23 tok/s per user, TTFT 7,377.66 ms,
TPOT 101.19 ms, end-to-end 110,894.26 ms; the table rounds to one decimal), and no latency column where
no run of the page has one (a GPU page whose runs have none, found in the data: the A100's today)."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from site_gen.pages.generated import slug
from tests.site.conftest import Watched

pytestmark = pytest.mark.browser
LATENCY = ["Concurrency", "Tok/s per user", "TTFT mean (ms)", "TPOT mean (ms)", "E2E mean (ms)"]


def test_latency_columns_where_runs_have_them(real_site: Path, real_url: str, watched: Watched) -> None:
    page = watched.open(
        f"{real_url}/explorer.html?gpu=H200+SXM+141GB&engine=transformers&workload=1024%2F1024"
    )
    text = page.evaluate("window.llmbench.scopes()[0].tableText()")
    head = text["head"]
    assert all(c in head for c in LATENCY), head
    col = {c: head.index(c) for c in LATENCY}
    row = next(r for r in text["rows"] if r[col["Concurrency"]] == "256" and r[col["TTFT mean (ms)"]] != "–")
    assert [row[col[c]] for c in LATENCY[1:]] == ["9.2", "7,377.7", "101.2", "110,894.3"]
    con = duckdb.connect(str(real_site / "llmbench.duckdb"), read_only=True)
    gpu = con.execute(
        "SELECT gpu FROM runs GROUP BY gpu HAVING count(concurrency) + count(ttft_ms_avg)"
        " + count(tpot_ms_avg) + count(request_latency_ms_avg) + count(output_tps_per_user) = 0"
        " AND count(*) > 1"  # a page of one run shows every column (nothing varies to hide them by)
        " ORDER BY gpu = 'A100 SXM4 80GB' DESC"
    ).fetchone()
    con.close()
    assert gpu is not None, "every GPU has a run with a latency figure: nothing to check the page without"
    bare = watched.open(f"{real_url}/generated/gpus/{slug(gpu[0])}.html")
    head = bare.evaluate("window.llmbench.scopes()[0].tableText()")["head"]
    assert not set(LATENCY[1:]) & set(head), head
    assert watched.errors == []
