"""Estimates on the site (issue 28): never among the runs, off by default, marked where shown.

The fixture site is the small published fixture plus one modelled file of our own (two estimates of
H200 Llama 3.1 8B FP8, one with a validated band, one unvalidated, an XSS probe in a mapping value).
Authorities: the database itself (what ``runs`` holds against what the estimates file says), the page as
a reader's browser draws it, and the committed validation table for the accuracy page.
"""

from __future__ import annotations

import copy
import csv
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import duckdb
import pytest
import yaml

from bench.contract.estimate_bands import TABLE, band_of
from bench.contract.resultfile import dump_data
from site_gen.data import queries, stats
from tests.site.conftest import XSS, Watched, build, free_port, serve, write_fixture_results

L8 = "meta-llama/Llama-3.1-8B-Instruct"


def modelled_file() -> dict[str, Any]:
    band = band_of("H200 SXM 141GB · dense · FP8 · 1 GPU", [0.1, -0.2, 0.3, 0.0, -0.1]).as_record()
    est = {
        "settings": {"batch_size": 2048, "ctx_tokens": 8192, "gemm_quant_mode": "fp8"},
        "fidelity": {"ops_silicon": 14},
        "mapping": {"model_config": "meta-llama/Meta-Llama-3.1-8B", "note": XSS},
        "search": "the run's own max_batch_size and max_num_tokens",
        "band": band,
    }
    unvalidated = copy.deepcopy(est)
    unvalidated["band"] = band_of("H200 SXM 141GB · dense · FP8 · 2-4 GPUs", []).as_record()
    return {
        "schema_version": 1,
        "submission": {
            "submitter": "llmbench estimate",
            "system": "AIConfigurator model of H200 SXM 141GB",
            "date": "2026-12-01",
            "source": {
                "kind": "modelled",
                "publisher": "AIConfigurator",
                "title": "AIConfigurator 0.12.0 estimate",
                "estimator": {
                    "name": "aiconfigurator",
                    "version": "0.12.0",
                    "perf_data_versions": {"h200_sxm/trtllm": "1.3.0rc20"},
                },
            },
        },
        "hardware": {"gpu": "H200 SXM 141GB"},
        "software": {
            "engine": "tensorrt-llm",
            "engine_version": "1.3.0rc20",
            "workflow": "pytorch",
            "benchmark_tool": "aiconfigurator",
        },
        "model": {"id": L8, "weight_precision": "FP8"},
        "runs": [
            # far above every fixture run: were it ever counted as a best, the best would be it
            {
                "parallelism": {"tp": 1},
                "workload": {"isl": 128, "osl": 128},
                "engine_settings": {"max_batch_size": 64, "max_num_tokens": 2048},
                "metrics": {"output_tokens_per_s_per_gpu": 60000.0},
                "estimate": est,
            },
            {
                "parallelism": {"tp": 2},
                "workload": {"isl": 128, "osl": 128},
                # 65,536 sequences of 256 tokens: 65,536 x 256 x 32,768 bytes (FP8 KV, 4 of Llama 3.1 8B's 8
                # KV heads per GPU) = 512 GiB per GPU, beyond the H200: the planner must say it cannot fit
                "engine_settings": {"max_batch_size": 65536, "max_num_tokens": 2048},
                "metrics": {"output_tokens_per_s_per_gpu": 55000.0},
                "estimate": unvalidated,
            },
        ],
    }


@pytest.fixture(scope="module")
def est_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    work = tmp_path_factory.mktemp("estimate-site")
    before = os.environ.get("LLMBENCH_SITE_ESTIMATES")
    os.environ["LLMBENCH_SITE_ESTIMATES"] = "true"  # mkdocs.yml's switch: explorer pages carry estimates
    write_fixture_results(work / "results")
    (work / "results" / "modelled").mkdir()
    (work / "results" / "modelled" / "h200-l8.yaml").write_text(dump_data(modelled_file()), encoding="utf-8")
    (work / "port").write_text(str(free_port()))
    try:
        yield build(work / "results", work, port=int((work / "port").read_text()))
    finally:
        if before is None:
            os.environ.pop("LLMBENCH_SITE_ESTIMATES", None)
        else:
            os.environ["LLMBENCH_SITE_ESTIMATES"] = before


@pytest.fixture(scope="module")
def est_url(est_site: Path) -> Iterator[str]:
    url, server = serve(est_site / "site", int((est_site / "port").read_text()))
    yield url
    server.shutdown()


def test_estimates_are_in_their_own_table_and_count_nowhere(est_site: Path) -> None:
    db = est_site / "llmbench.duckdb"
    with duckdb.connect(str(db), read_only=True) as con:
        runs = con.execute("SELECT count(*), max(output_tps_per_gpu) FROM runs").fetchone()
        est = con.execute("SELECT count(*) FROM estimates WHERE source_kind = 'modelled'").fetchone()[0]
        view = dict(con.execute("SELECT basis, count(*) FROM runs_and_estimates GROUP BY 1").fetchall())
        bands = con.execute("SELECT est_confidence, est_pairs FROM estimates ORDER BY tp").fetchall()
    assert est == 2 and runs[0] == 12  # the fixture's 12 published runs, no estimate among them
    assert runs[1] < 55000.0  # no estimate's figure is any run's
    assert view == {"published": 12, "estimated": 2}
    assert bands == [("validated", 5), ("unvalidated", 0)]
    # what the pages aggregate: the headline figures, the site's runs, the "runs" statistic
    assert len(queries.site_runs(db)) == 12
    assert stats.value("runs", db) == "12"
    assert set(queries.site_estimates(db)["source_kind"]) == {"modelled"}


def _explorer_rows(page: Any) -> list[str]:
    """Every row of the explorer's selection as one text (the table is virtual: rows from the scope)."""
    return [" | ".join(r) for r in page.evaluate("window.llmbench.scopes()[0].tableText()")["rows"]]


def test_explorer_hides_estimates_until_asked_and_marks_them(est_url: str, watched: Watched) -> None:
    page = watched.open(f"{est_url}/explorer.html")
    off = _explorer_rows(page)
    assert len(off) == 12 and not any("AIConfigurator" in r for r in off)  # none listed with the switch off
    page.click('.lb-filter[data-dim="kind"] .lb-filter-button')
    before = page.evaluate("document.querySelector('.lb-scope').dataset.lbRendered")
    page.check('.lb-filter[data-dim="kind"] input[value="modelled"]')
    page.wait_for_function(f"document.querySelector('.lb-scope').dataset.lbRendered !== '{before}'")
    on = _explorer_rows(page)
    assert len([r for r in on if "AIConfigurator" in r]) == 2 and len(on) == 14
    assert "kind=modelled" in page.url  # kept in the URL
    # the per-run charts draw estimates hollow (fill opacity 0 for source_kind "modelled"), and the count
    # line says so and keeps them out of the runs
    spec = json.loads(page.get_attribute(".lb-chart", "data-lb-spec") or "{}")
    opacity = next(s for s in spec["scales"] if s["name"] == "fillOpacity")
    assert dict(zip(opacity["domain"], opacity["range"], strict=True))["modelled"] == 0
    assert (
        page.text_content(".lb-count")
        == "12 of 12 runs, and 2 estimates (not runs; hollow rings in the charts)"
    )
    assert not watched.dialogs, watched.dialogs  # the XSS probe in a mapping value never runs
    assert not watched.errors, watched.errors


def test_an_estimate_run_card_says_estimate_with_its_band(
    est_site: Path, est_url: str, watched: Watched
) -> None:
    with duckdb.connect(str(est_site / "llmbench.duckdb"), read_only=True) as con:
        run_id = con.execute("SELECT run_id FROM estimates WHERE tp = 1").fetchone()[0]
    page = watched.open(f"{est_url}/runs.html#{run_id}")
    page.wait_for_selector(".lb-card-fields")
    text = page.text_content("article") or ""
    assert "Estimate, not a measurement" in text
    # the band of the fixture's 5 errors, worked in tests/engines/test_estimate_bands.py: median 0, p10 -16 %,
    # p90 +22 % -> rounded to whole per cent on the card
    assert "median +0% (p10 -16%, p90 +22%) over 5 published runs" in text
    assert XSS in text and not watched.dialogs  # shown as text, never run


def test_accuracy_page_figures_come_from_the_committed_table(
    est_site: Path, est_url: str, watched: Watched
) -> None:
    with TABLE.open(newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    page = watched.open(f"{est_url}/estimates-accuracy.html")
    page.wait_for_selector("#overall")
    first = page.evaluate(
        """() => {
            const next = document.getElementById("overall").nextElementSibling;  // Material may wrap it
            const t = next.tagName === "TABLE" ? next : next.querySelector("table");
            return [...t.querySelectorAll("tbody td")].map((td) => td.textContent);
        }"""
    )
    assert first[1] == f"{len(rows):,}"  # every pair of the table, counted by the page
    # the planner cross-check lists the fixture's one estimate whose batch cannot fit, and only it
    items = page.eval_on_selector_all("#planner ~ ul li a", "as => as.map(a => a.getAttribute('href'))")
    with duckdb.connect(str(est_site / "llmbench.duckdb"), read_only=True) as con:
        too_big = con.execute("SELECT run_id FROM estimates WHERE tp = 2").fetchone()[0]
    assert len(items) == 1 and items[0].endswith(f"runs.html#{too_big}"), items
    # the chart of every pair is drawn (its data file loads, Vega renders it)
    page.wait_for_function("window.llmbench.charts()[0] && window.llmbench.charts()[0].view")
    assert not watched.errors, watched.errors


def test_grid_specs_name_only_what_aiconfigurator_is_mapped_for() -> None:
    """The committed grid's specs load and use registry names the estimator maps (no AIConfigurator call)."""
    from bench.engines.estimate import MODELS, PRECISIONS, SYSTEMS
    from bench.engines.estimate_spec import load_spec

    specs = sorted((Path(__file__).resolve().parents[2] / "bench/data/estimate_grid").glob("*.yaml"))
    assert specs
    for p in specs:
        s = load_spec(p)
        assert set(s.systems) <= set(SYSTEMS), p
        assert set(s.models) <= set(MODELS), p
        assert set(s.precisions) <= set(PRECISIONS), p
        assert yaml.safe_load(p.read_text(encoding="utf-8"))["backends"] == ["trtllm"]
