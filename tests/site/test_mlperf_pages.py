"""The MLPerf(R) Inference page, built from the committed results/: MLCommons' rules on the page, no mixing
with other figures anywhere, and the filters in a real Chromium at a fixed viewport."""

from __future__ import annotations

import csv
import re
from pathlib import Path

import pytest

from site_gen.mlperf_pages import TRADEMARK, VERIFIED

ROOT = Path(__file__).resolve().parents[2]
RESULTS_CSV = ROOT / "results" / "sources" / "mlperf" / "mlperf_inference_llm_results.csv"


@pytest.fixture(scope="module")
def mlperf_ids() -> set[str]:
    with RESULTS_CSV.open(encoding="utf-8", newline="") as f:
        return {r["result_id"] for r in csv.DictReader(f) if r["accelerator"] != "N/A"}


def test_no_data_file_or_other_page_holds_an_mlperf_result(real_site: Path, mlperf_ids: set[str]) -> None:
    # every chart and table data file of every page is built from `runs`; none may carry an MLPerf row
    data_files = sorted((real_site / "site" / "assets" / "data").glob("*.js"))
    assert data_files
    pattern = re.compile("|".join(re.escape(f'"{i}"') for i in mlperf_ids))
    for f in data_files:
        text = f.read_text(encoding="utf-8")
        assert "MLCommons" not in text and not pattern.search(text), f.name
    # and no other page shows an MLPerf result ID (pages may name MLCommons: the CLI and schema references
    # do; the schema reference shows one MLPerf result file as the format's example)
    ids = re.compile(r"(?<![\w.-])(" + "|".join(re.escape(i) for i in mlperf_ids) + r")(?![\w-])")
    for page in (real_site / "site").rglob("*.html"):
        if "mlperf" in page.parts or page.name == "result-schema.html":
            continue
        assert not ids.search(page.read_text(encoding="utf-8")), page


def test_page_has_every_result_with_its_id_and_the_footnote(real_site: Path, mlperf_ids: set[str]) -> None:
    page = (real_site / "site" / "generated" / "mlperf" / "index.html").read_text(encoding="utf-8")
    assert "MLPerf® Inference" in page and TRADEMARK in page and VERIFIED in page
    assert "Retrieved 2026-11-30" in page and "not an MLPerf metric" in page
    rows = re.findall(r"<tr data-benchmark-official=.*?</tr>", page, re.S)
    assert len(rows) == 1116
    shown = {re.search(r'class="mlperf-rid">([^<]+)<', r).group(1) for r in rows}
    assert shown == mlperf_ids
    open_rows = [r for r in rows if 'data-division="open"' in r]
    assert open_rows and all("open ‡" in r for r in open_rows)


def test_filters_and_every_figure_shows_its_result_id(browser, real_url: str) -> None:
    page = browser.new_page(viewport={"width": 1440, "height": 900})
    page.goto(f"{real_url}/generated/mlperf/index.html")
    page.wait_for_selector("[data-mlperf-best] tbody tr")
    assert page.locator("[data-mlperf-count]").inner_text() == "1,116 of 1,116 results"
    page.screenshot(path=str(ROOT / "build" / "mlperf-desktop.png"))
    page.select_option('[data-mlperf-filter="round"]', "v5.1")
    page.select_option('[data-mlperf-filter="benchmark-official"]', "llama2-70b-99")
    page.select_option('[data-mlperf-filter="scenario"]', "Offline")
    page.select_option('[data-mlperf-filter="gpu"]', "H200 NVL 141GB")
    visible = page.locator("[data-mlperf-all] tbody tr:not([hidden])")
    assert visible.count() >= 1
    best = page.locator("[data-mlperf-best] tbody tr")
    assert best.count() == 1
    cells = best.first.locator("td").all_inner_texts()
    # the best v5.1 H200 NVL llama2-70b-99 Offline is Dell's XE7745 log: 31267.4 tokens/s, result 5.1-0023
    assert cells[3] == "31267.4" and cells[5] == "Dell" and cells[7] == "v5.1" and cells[-1] == "5.1-0023"
    # every figure in the computed tables sits in a row that names its result ID
    page.select_option('[data-mlperf-filter="gpu"]', "")
    page.select_option('[data-mlperf-filter="round"]', "")
    for table in ("best", "rounds"):
        for tr in page.locator(f"[data-mlperf-{table}] tbody tr").all():
            assert re.match(r"^v?\d+\.\d+-\d{4}$", tr.locator(".mlperf-rid").inner_text())
    page.screenshot(path=str(ROOT / "build" / "mlperf-filtered.png"))
    page.close()
