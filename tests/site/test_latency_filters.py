"""The explorer's latency filters and cost column in Chromium.

- TPOT ≤ N on the real results: the runs left are exactly those whose mean TPOT is at most N (the set of
  run ids from DuckDB, not from the page's code); runs without a TPOT are hidden and the note says how
  many; the URL carries the filter, a reload and a permalink restore it, back removes it.
- $ per million output tokens on two crafted runs, hand-worked: price × GPUs / (output tok/s × 3600) × 10^6
  1 GPU, 1,000 tok/s at $2.00/h: 2 × 1 / 3,600,000 × 10^6 = 0.5556; at $3.50/h: 0.9722;
  8 GPUs, 20,000 tok/s at $3.50/h: 3.5 × 8 / 72,000,000 × 10^6 = 0.3889; at $2.00/h: 0.2222.
  The cells are plain numbers in the page's format; the header names the currency and the price.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import duckdb
import pytest

from tests.site.conftest import Watched, build, free_port, result, serve

pytestmark = pytest.mark.browser
SHOTS = Path(__file__).resolve().parents[2] / "build" / "screenshots"
TPOT = "TPOT mean (ms)"
LIMIT = 72  # ms: between the measured runs' mean TPOTs (31.7-690 ms), so it keeps some and hides some


def table(page) -> dict:
    text = page.evaluate("window.llmbench.scopes()[0].tableText()")
    return {"head": text["head"], "rows": [dict(zip(text["head"], r, strict=True)) for r in text["rows"]]}


def rendered(page, before: str) -> None:
    page.wait_for_function(f"document.querySelector('.lb-scope').dataset.lbRendered !== '{before}'")


def count(page) -> tuple[int, int]:
    m = re.fullmatch(r"([\d,]+) of ([\d,]+) runs", page.text_content(".lb-count") or "")
    assert m, page.text_content(".lb-count")
    return int(m.group(1).replace(",", "")), int(m.group(2).replace(",", ""))


def hidden_note(page) -> int:
    note = page.locator(".lb-limit-note")
    assert note.is_visible()
    m = re.search(r"([\d,]+) runs that match the other filters have no such figure", note.text_content())
    assert m, note.text_content()
    return int(m.group(1).replace(",", ""))


def test_tpot_filter_keeps_exactly_the_runs_within_it_and_lives_in_the_url(
    real_site: Path, real_url: str, watched: Watched
) -> None:
    con = duckdb.connect(str(real_site / "llmbench.duckdb"), read_only=True)
    (total,) = con.execute("SELECT count(*) FROM runs").fetchone()
    within = {r for (r,) in con.execute("SELECT run_id FROM runs WHERE tpot_ms_avg <= ?", [LIMIT]).fetchall()}
    (without,) = con.execute("SELECT count(*) FROM runs WHERE tpot_ms_avg IS NULL").fetchone()
    h200 = "H200 SXM 141GB"
    (h200_without,) = con.execute(
        "SELECT count(*) FROM runs WHERE gpu = ? AND tpot_ms_avg IS NULL", [h200]
    ).fetchone()
    (h200_within,) = con.execute(
        "SELECT count(*) FROM runs WHERE gpu = ? AND tpot_ms_avg <= ?", [h200, LIMIT]
    ).fetchone()
    con.close()
    assert 0 < len(within) < total - without  # the limit hides measured runs too, not only those without

    page = watched.open(f"{real_url}/explorer.html")
    page.set_viewport_size({"width": 1440, "height": 900})
    assert count(page) == (total, total) and page.locator(".lb-limit-note").is_hidden()
    box = page.locator(".lb-limit[data-key=tpot_max] input")
    before = page.evaluate("document.querySelector('.lb-scope').dataset.lbRendered")
    box.fill(str(LIMIT))
    box.press("Enter")
    rendered(page, before)
    assert parse_qs(urlparse(page.url).query)["tpot_max"] == [str(LIMIT)]
    assert count(page) == (len(within), total)
    shown = table(page)
    assert {r["Run"] for r in shown["rows"]} == within
    assert all(float(r[TPOT].replace(",", "")) <= LIMIT for r in shown["rows"])
    assert hidden_note(page) == without
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "explorer-tpot-1440.png"))

    # a reload restores it from the URL: the box, the runs, the note
    page.reload()
    page.wait_for_function("document.body && document.body.dataset.lbReady", timeout=20_000)
    assert box.input_value() == str(LIMIT)
    assert {r["Run"] for r in table(page)["rows"]} == within and hidden_note(page) == without

    # back: the explorer before the filter, every run, the box empty
    page.go_back()
    page.wait_for_function("!location.search.includes('tpot_max')")
    page.wait_for_function(f"document.querySelector('.lb-count').textContent.startsWith('{total:,} of')")
    assert box.input_value() == "" and page.locator(".lb-limit-note").is_hidden()

    # a permalink with another filter: the note counts only the runs the GPU filter keeps
    page = watched.open(f"{real_url}/explorer.html?gpu=H200+SXM+141GB&tpot_max={LIMIT}")
    assert count(page)[0] == h200_within > 0 and hidden_note(page) == h200_without
    page.click(".lb-reset")
    page.wait_for_function("!location.search.includes('tpot_max')")
    assert box.input_value() == "" and count(page) == (total, total)
    assert watched.errors == [] and watched.external == []


def test_latency_filters_on_a_phone(real_url: str, browser: object) -> None:
    w = Watched(browser, 390, 844)
    try:
        page = w.open(f"{real_url}/explorer.html?tpot_max={LIMIT}&user_min=14")
        page.click(".lb-controls-toggle")  # on a phone the filters and limits sit behind this button
        bar = page.locator(".lb-limits")
        bar.scroll_into_view_if_needed()
        assert page.evaluate("document.documentElement.scrollWidth") <= 390  # nothing pushes the page wider
        boxes = page.eval_on_selector_all(".lb-limit", "ls => ls.map(l => l.getBoundingClientRect().right)")
        assert max(boxes) <= 390
        assert (
            page.locator(".lb-limit[data-key=user_min]").get_attribute("class").split().count("lb-active")
            == 1
        )
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / "explorer-limits-390.png"))
        assert w.errors == []
    finally:
        w.close()


# ---- cost ------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def cost_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Two H200 runs: 1 GPU at 1,000 output tok/s and TP 8 (8 GPUs) at 20,000 output tok/s in all."""
    from bench.contract.resultfile import write_file

    work = tmp_path_factory.mktemp("cost-site")

    def run(tp: int, tps: float) -> dict:
        return {
            "parallelism": {"tp": tp},
            "workload": {"isl": 128, "osl": 128, "num_requests": 1000},
            "metrics": {"output_tokens_per_s": tps},
        }

    res = result(
        "H200 SXM 141GB", "meta-llama/Llama-3.1-8B-Instruct", "FP8", "Cost Lab", "1.2.0",
        [run(1, 1000.0), run(8, 20000.0)],
    )  # fmt: skip
    write_file(res, work / "results" / "cost.yaml")
    port = free_port()
    build(work / "results", work, port=port)
    url, server = serve(work / "site", port)
    yield url
    server.shutdown()


def costs(page, column: str) -> dict[str, str]:
    """Output tok/s (all GPUs) -> the cost cell, and the cost column's header."""
    t = table(page)
    head = next(h for h in t["head"] if h.startswith(column))
    return {"head": head} | {r["Output tok/s (all GPUs)"]: r[head] for r in t["rows"]}


def test_cost_per_million_tokens_follows_the_price_box_and_the_url(cost_url: str, watched: Watched) -> None:
    page = watched.open(f"{cost_url}/explorer.html")
    price = page.locator(".lb-price input")
    assert price.input_value() == "2.00"  # the Pareto view's default
    got = costs(page, "$/1M tok")
    assert got == {
        "head": "$/1M tok at $2.00/GPU-h",
        "1,000": "0.5556",
        "20,000": "0.2222",
    }
    title = page.get_attribute("th:has([data-key=cost_per_mtok])", "title")
    # the header is short (two lines at most, issue 26); its title has the long text and how it is derived
    assert title.startswith("$ per 1M output tokens at your $2.00/GPU-h")
    assert "Derived from your $/GPU-hour" in title
    assert "price" not in page.url  # the default stays out of the URL

    price.fill("3.5")
    page.wait_for_function("new URLSearchParams(location.search).get('price') === '3.5'")
    got = costs(page, "$/1M tok")
    assert got == {
        "head": "$/1M tok at $3.50/GPU-h",
        "1,000": "0.9722",
        "20,000": "0.3889",
    }

    # the CSV: the unrounded figure under the same header
    with page.expect_download() as dl:
        page.click(".lb-download")
    rows = list(csv.DictReader(io.StringIO(Path(dl.value.path()).read_text(encoding="utf-8"))))
    col = "$/1M tok at $3.50/GPU-h"
    by_tps = {float(r["Output tok/s (all GPUs)"]): float(r[col]) for r in rows}
    assert by_tps[20000.0] == pytest.approx(3.5 * 8 / (20000 * 3600) * 1e6, rel=1e-12)

    page.reload()
    page.wait_for_function("document.body && document.body.dataset.lbReady", timeout=20_000)
    assert price.input_value() == "3.50" and costs(page, "$")["20,000"] == "0.3889"

    # Korean: the same figure, in the page's number format
    ko = watched.open(f"{cost_url}/ko/explorer.html?price=3.5")
    t = table(ko)
    head = next(h for h in t["head"] if "100만" in h)
    assert "US$3.50" in head
    assert {r["출력 토큰/초 (전체 GPU)"]: r[head] for r in t["rows"]} == {
        "1,000": "0.9722",
        "20,000": "0.3889",
    }
    assert watched.errors == [] and watched.external == []
