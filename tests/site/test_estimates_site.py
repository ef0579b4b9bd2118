"""Estimates on the site (issue 28): never among the runs, off by default, marked where shown.

The fixture site is the small published fixture plus one modelled file of our own (three estimates of
H200 Llama 3.1 8B FP8: TP 1 with a validated band, TP 2 unvalidated, TP 4 of low confidence; an XSS probe
in a mapping value).
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
from urllib.parse import urlencode

import duckdb
import pytest
import yaml

from bench.contract.estimate_bands import TABLE, band_of
from bench.contract.resultfile import dump_data
from site_gen.data import queries, stats
from site_gen.pages import estimate_page
from tests.site.conftest import XSS, Watched, build, free_port, serve, write_fixture_results
from tests.site.test_js_pure import node  # noqa: F401 (the node fixture: calc/estimates.js under node)

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
    low = copy.deepcopy(est)
    # two pairs (under 5): low confidence; p10 = 0.4 + 0.1 x 0.2 = 0.42, p90 = 0.58 (linear interpolation)
    low["band"] = band_of("H200 SXM 141GB · dense · FP8 · 4 GPUs", [0.4, 0.6]).as_record()
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
            {
                "parallelism": {"tp": 4},
                "workload": {"isl": 128, "osl": 128},
                "engine_settings": {"max_batch_size": 64, "max_num_tokens": 2048},
                "metrics": {"output_tokens_per_s_per_gpu": 50000.0},
                "estimate": low,
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
    assert est == 3 and runs[0] == 12  # the fixture's 12 published runs, no estimate among them
    assert runs[1] < 55000.0  # no estimate's figure is any run's
    assert view == {"published": 12, "estimated": 3}
    assert bands == [("validated", 5), ("unvalidated", 0), ("low", 2)]
    # what the pages aggregate: the headline figures, the site's runs, the "runs" statistic
    assert len(queries.site_runs(db)) == 12
    assert stats.value("runs", db) == "12"
    assert set(queries.site_estimates(db)["source_kind"]) == {"modelled"}


def _explorer_rows(page: Any) -> list[str]:
    """Every row of the explorer's selection as one text (the table is virtual: rows from the scope)."""
    return [" | ".join(r) for r in page.evaluate("window.llmbench.scopes()[0].tableText()")["rows"]]


# Every data mark's run id and source kind, in the charts drawn so far (a lazy chart not drawn has none).
_DRAWN = """() => window.llmbench.charts().filter((c) => c.view).flatMap((c) => {
    const out = [];
    const walk = (n) => {
        if (n.marktype && n.marktype !== "group" && n.role === "mark") {
            for (const i of n.items) {
                if (i.datum && i.datum.run_id) out.push([i.datum.run_id, i.datum.source_kind]);
            }
            return;
        }
        for (const i of n.items || []) walk(i);
    };
    walk(c.view.scenegraph().root);
    return out;
})"""

# The badges the catalogue's sentences give, worked by hand from the fixture's bands: TP 1's p10 -16 %,
# p90 +22 % -> ±22 %; TP 4's p10 +42 %, p90 +58 % -> ±58 %, low; TP 2 has no pair.
BADGES = {
    1: "estimate (AIConfigurator 0.12.0, ±22 % on comparable published runs)",
    4: "estimate (AIConfigurator 0.12.0, ±58 % on comparable published runs; low confidence)",
    2: "estimate (AIConfigurator 0.12.0; no comparable published run: unvalidated)",
}


def test_held_back_counts_and_badges_under_node(node: Any) -> None:  # noqa: F811
    """calc/estimates.js on hand-worked cases: the counts without the held rows are the index's minus
    theirs, matched by value text (the held rows' own index codes its values in its own order)."""
    a, b, c, d, e = ({"id": i} for i in "abcde")  # held: d and e (the page's index holds the same objects)
    # every row: A published, B published, A estimate (validated), A estimate (low), C estimate (unvalidated)
    every = {"rows": [a, b, c, d, e], "counts": {"gpu": [3, 1, 1], "kind": [3, 2]}, "missing": 0}
    held = {"rows": [3, 4], "counts": {"gpu": [1, 1], "kind": [2]}}
    values = {"gpu": ["A", "B", "C"], "kind": ["modelled", "published"]}
    held_values = {"gpu": ["C", "A"], "kind": ["modelled"]}  # C first: its own order
    job = (
        "(m, every, held, values, heldValues) => {"
        " held.rows = held.rows.map((i) => every.rows[i]);"
        " const out = m.withoutHeld(every, held, values, heldValues);"
        " out.rows = out.rows.map((r) => r.id); return out; }"
    )
    # the badge from a row's columns, with the catalogue's sentences stood in by plain templates
    words = (
        "(m, rows) => rows.map((r) => m.badgeText(r, {badge: (v, n) => `B ${v} ${n}`,"
        " badgeLow: (v, n) => `L ${v} ${n}`, badgeNone: (v) => `N ${v}`}))"
    )
    rows = [
        {"source_kind": "modelled", "est_confidence": "validated", "est_pct": 22, "est_version": "0.12.0"},
        {"source_kind": "modelled", "est_confidence": "low", "est_pct": 58, "est_version": "0.12.0"},
        {
            "source_kind": "modelled",
            "est_confidence": "unvalidated",
            "est_pct": None,
            "est_version": "0.12.0",
        },
        {"source_kind": "published", "est_confidence": None, "est_pct": None, "est_version": None},
    ]
    got, w = node(
        [
            ["calc/estimates.js", job, [every, held, values, held_values]],
            ["calc/estimates.js", words, [rows]],
        ]
    )
    assert got["rows"] == ["a", "b", "c"] and got["held"] == 2
    assert got["counts"] == {"gpu": [2, 1, 0], "kind": [1, 2]}
    assert w == ["B 0.12.0 22", "L 0.12.0 58", "N 0.12.0", None]


def test_band_percent_is_the_wider_side_of_the_band() -> None:
    """N of the badge, worked by hand: p10 -16 %, p90 +22 % -> 22; p10 +42 %, p90 +58 % -> 58 (both
    sides above zero: the band is still read as ±); -58.4 % -> 58; no band -> None."""
    from site_gen.data.estimates import band_percent

    assert band_percent(-0.16, 0.22) == 22
    assert band_percent(0.42, 0.58) == 58
    assert band_percent(-0.584, 0.1) == 58
    assert band_percent(None, None) is None


def _estimate_ids(est_site: Path) -> dict[str, int]:
    """run id -> TP of every estimate, from the database (the authority on what is an estimate)."""
    with duckdb.connect(str(est_site / "llmbench.duckdb"), read_only=True) as con:
        return dict(con.execute("SELECT run_id, tp FROM estimates").fetchall())


def _listed(page: Any) -> list[str]:
    """The run-card cell of every row of the selection (the run id, and an estimate's badge after it)."""
    return [r[0] for r in page.evaluate("window.llmbench.scopes()[0].tableText()")["rows"]]


def _after(page: Any, action: Any) -> None:
    """Do ``action`` and wait until the scope has drawn again (table, count line and charts)."""
    before = page.evaluate("document.querySelector('.lb-scope').dataset.lbRendered")
    action()
    page.wait_for_function(f"document.querySelector('.lb-scope').dataset.lbRendered !== '{before}'")


def _check_listing(page: Any, ids: dict[str, int], tps: set[int]) -> None:
    """Exactly the estimates of TP ``tps`` are listed and drawn, each listed with its badge; runs without."""
    cells = _listed(page)
    shown = {c.split(" ", 1)[0]: c for c in cells}
    assert {ids[i] for i in shown if i in ids} == tps, cells
    for rid, cell in shown.items():
        if rid in ids:
            assert cell == f"{rid} {BADGES[ids[rid]]}", cell  # no estimate listed without its badge
        else:
            assert cell == rid, cell  # and no run carries one
    drawn = page.evaluate(_DRAWN)
    assert drawn  # the first chart is drawn
    assert {ids[r] for r, _ in drawn if r in ids} == tps
    assert all(k == "modelled" for r, k in drawn if r in ids)  # drawn as estimates (hollow: below)


def test_explorer_hides_estimates_until_asked_and_marks_them(
    est_site: Path, est_url: str, watched: Watched
) -> None:
    ids = _estimate_ids(est_site)
    page = watched.open(f"{est_url}/explorer.html")
    page.wait_for_function("window.llmbench.charts()[0] && window.llmbench.charts()[0].view")
    off = _explorer_rows(page)
    assert len(off) == 12 and not any("AIConfigurator" in r for r in off)  # none listed with the switch off
    _check_listing(page, ids, set())
    assert page.is_disabled(".lb-est-low input")  # nothing to add while the estimates are off
    # estimates on: only the validated one (TP 1); the other two are held back and the count line says so
    page.click('.lb-filter[data-dim="kind"] .lb-filter-button')
    _after(page, lambda: page.check('.lb-filter[data-dim="kind"] input[value="modelled"]'))
    page.keyboard.press("Escape")
    assert len(_explorer_rows(page)) == 13
    _check_listing(page, ids, {1})
    assert "kind=modelled" in page.url and "est_low" not in page.url  # kept in the URL
    assert page.is_enabled(".lb-est-low input") and not page.is_checked(".lb-est-low input")
    assert page.text_content(".lb-count") == (
        "12 of 12 runs, and 1 estimates (not runs; hollow rings in the charts); 2 low-confidence estimates"
        " held back (tick “Low-confidence estimates too” to draw them)"
    )
    # the filter bar counts what is shown: one estimate under "modelled"
    page.click('.lb-filter[data-dim="kind"] .lb-filter-button')
    assert page.text_content('.lb-filter[data-dim="kind"] input[value="modelled"] ~ .lb-n') == " 1"
    page.keyboard.press("Escape")
    # low confidence too: all three, each with its own badge; kept in the URL and read back from it
    _after(page, lambda: page.check(".lb-est-low input"))
    assert len(_explorer_rows(page)) == 15
    _check_listing(page, ids, {1, 2, 4})
    assert "est_low=1" in page.url
    assert (
        page.text_content(".lb-count")
        == "12 of 12 runs, and 3 estimates (not runs; hollow rings in the charts)"
    )
    page = watched.open(page.url)
    page.wait_for_function("window.llmbench.charts()[0] && window.llmbench.charts()[0].view")
    _check_listing(page, ids, {1, 2, 4})
    assert page.is_checked(".lb-est-low input")
    # the chart's own data table lists each estimate's point with its badge too
    page.click(".lb-data summary")
    page.wait_for_selector(".lb-data-table")
    badges = page.eval_on_selector_all(
        ".lb-data-table tbody tr", "trs => trs.map((tr) => tr.querySelector('.lb-estimate')?.textContent)"
    )
    assert len(badges) == 15 and sorted(b for b in badges if b) == sorted(BADGES.values())
    # the per-run charts draw estimates hollow (fill opacity 0 for source_kind "modelled")
    spec = json.loads(page.get_attribute(".lb-chart", "data-lb-spec") or "{}")
    opacity = next(s for s in spec["scales"] if s["name"] == "fillOpacity")
    assert dict(zip(opacity["domain"], opacity["range"], strict=True))["modelled"] == 0
    # estimates off again, the low box still ticked: none drawn or listed
    page.click('.lb-filter[data-dim="kind"] .lb-filter-button')
    _after(page, lambda: page.uncheck('.lb-filter[data-dim="kind"] input[value="modelled"]'))
    _check_listing(page, ids, set())
    assert page.text_content(".lb-count") == "12 of 12 runs"
    assert not watched.dialogs, watched.dialogs  # the XSS probe in a mapping value never runs
    assert not watched.errors, watched.errors


def test_korean_explorer_badges_are_korean(est_site: Path, est_url: str, watched: Watched) -> None:
    ids = _estimate_ids(est_site)
    page = watched.open(f"{est_url}/ko/explorer.html?kind=published&kind=modelled&est_low=1")
    page.wait_for_function("window.llmbench.scopes()[0].tableText().rows.length === 15")
    cells = {c.split(" ", 1)[0]: c for c in _listed(page)}
    tp1 = next(r for r, tp in ids.items() if tp == 1)
    assert cells[tp1] == f"{tp1} 추정치 (AIConfigurator 0.12.0, 비교 가능한 공개 실행 대비 ±22 %)"
    assert page.text_content(".lb-est-low label") == " 신뢰도 낮은 추정치도 표시"
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
    assert page.text_content(".lb-card-badge") == BADGES[1]  # the table's badge, on the card too
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
    # the chart of every pair is drawn (its data file loads, Vega renders it: when scrolled near)
    page.locator(".lb-chart").scroll_into_view_if_needed()
    page.wait_for_function("window.llmbench.charts()[0] && window.llmbench.charts()[0].view")
    assert not watched.errors, watched.errors


@pytest.mark.parametrize("width,height", [(390, 844), (1440, 900)])
def test_accuracy_tables_drawn_only_near_the_screen_are_whole_once_there(
    browser: object, est_url: str, width: int, height: int
) -> None:
    """The long tables (``LAZY_ROWS`` rows or more) skip layout until near the screen (a phone's load was
    ~0.9 s of blocked main thread); scrolled to, each shows every row: the room it held until then
    does not clip it, at a phone's width and a desktop's."""
    watched = Watched(browser, width, height)
    try:
        page = watched.open(f"{est_url}/estimates-accuracy.html")
        tables = page.evaluate(
            """() => [...document.querySelectorAll("article table")].map((t) => {
                const lazy = t.closest(".lb-lazy-table");
                return {rows: t.tBodies[0].rows.length, lazy: !!lazy,
                        cv: lazy ? getComputedStyle(lazy).contentVisibility : null};
            })"""
        )
        assert tables, "no table on the accuracy page"
        for t in tables:  # the rule by the table's rows, read from the page (never today's count)
            assert t["lazy"] == (t["rows"] >= estimate_page.LAZY_ROWS), t
            assert t["cv"] in (None, "auto"), t
        assert any(t["lazy"] for t in tables), "the committed table gives no long table to test"
        for i in range(page.locator(".lb-lazy-table").count()):
            box = page.locator(".lb-lazy-table").nth(i)
            box.scroll_into_view_if_needed()
            page.evaluate("new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))")
            drawn = box.evaluate(
                """(b) => {
                    const t = b.querySelector("table"), rows = t.tBodies[0].rows;
                    const last = rows[rows.length - 1];
                    const br = b.getBoundingClientRect(), lr = last.getBoundingClientRect();
                    return {box: br.height, table: t.getBoundingClientRect().height,
                            lastInside: lr.bottom <= br.bottom + 1, lastHeight: lr.height};
                }"""
            )
            assert drawn["lastHeight"] > 0 and drawn["lastInside"], (i, drawn)
            assert drawn["box"] >= drawn["table"] - 1, (i, drawn)  # no row cut by the held room
        assert not watched.errors, watched.errors
    finally:
        watched.close()


# The (published, estimate) figures of every point the accuracy chart draws (the guide lines have none).
_PLOTTED = """() => {
    const out = [];
    const walk = (n) => {
        if (n.marktype && n.marktype !== "group" && n.role === "mark") {
            for (const i of n.items) {
                if (i.datum && "published" in i.datum) out.push([i.datum.published, i.datum.estimate]);
            }
            return;
        }
        for (const i of n.items || []) walk(i);
    };
    walk(window.llmbench.charts()[0].view.scenegraph().root);
    return out;
}"""


def _pairs(sql: str, params: list[Any]) -> list[tuple[float, float]]:
    """(published, estimate) of the validation table's rows that ``sql``'s WHERE keeps, by DuckDB, sorted."""
    with duckdb.connect() as con:
        got = con.execute(
            # to the data file's 2 decimals (site_gen.data.dataset), so that both sides sort alike
            "SELECT round(published::DOUBLE, 2), round(estimate::DOUBLE, 2)"
            " FROM read_csv(?, all_varchar = true) WHERE " + sql,
            [str(TABLE), *params],
        ).fetchall()
    return sorted(got)


def _flat(pairs: list[tuple[float, float]]) -> list[float]:
    return [x for p in pairs for x in p]


def _same_plot(plotted: list[tuple[float, float]], want: list[tuple[float, float]]) -> bool:
    """The same pairs (both sorted, to 2 decimals: ``_pairs``)."""
    return len(plotted) == len(want) and _flat(plotted) == pytest.approx(_flat(want), abs=1e-6)


def _most(cols: str) -> tuple[str, ...]:
    """The commonest combination of ``cols`` in the validation table (from the data, never pinned)."""
    with duckdb.connect() as con:
        return con.execute(
            f"SELECT {cols} FROM read_csv(?, all_varchar = true) GROUP BY ALL"
            f" ORDER BY count(*) DESC, {cols} LIMIT 1",
            [str(TABLE)],
        ).fetchone()


def _open_plot(page: Any) -> list[tuple[float, float]]:
    """The pairs plotted, once the chart is drawn (a scope draws a chart when it is scrolled near)."""
    page.locator(".lb-chart").scroll_into_view_if_needed()
    page.wait_for_function(
        "document.querySelector('.lb-scope') && document.querySelector('.lb-scope').dataset.lbRendered"
        " && window.llmbench.charts()[0].view"
    )
    return sorted(tuple(p) for p in page.evaluate(_PLOTTED))


def test_accuracy_scatter_filters_like_the_explorer(est_url: str, watched: Watched) -> None:
    """The plotted pairs under a filter (in the URL, or chosen in the bar) are those a DuckDB query of the
    committed validation table keeps."""
    from site_gen.data.dimensions import release_label

    gpu, precision = _most("gpu, precision")
    page = watched.open(
        f"{est_url}/estimates-accuracy.html?" + urlencode({"gpu": gpu, "precision": precision})
    )
    want = _pairs("gpu = ? AND precision = ?", [gpu, precision])
    assert want and _same_plot(_open_plot(page), want)
    total = len(_pairs("true", []))
    assert page.text_content(".lb-count") == f"{len(want):,} of {total:,} runs"
    # model and release, in the Korean edition
    model, release = _most("model_config, release")
    q = urlencode({"model": model, "version": release_label(release)})
    page = watched.open(f"{est_url}/ko/estimates-accuracy.html?{q}")
    want = _pairs("model_config = ? AND release = ?", [model, release])
    assert want and _same_plot(_open_plot(page), want)
    # chosen in the filter bar: kept in the URL, the plot follows
    page = watched.open(f"{est_url}/estimates-accuracy.html")
    assert len(_open_plot(page)) == total
    page.click('.lb-filter[data-dim="gpu"] .lb-filter-button')
    _after(page, lambda: page.check(f'.lb-filter[data-dim="gpu"] input[value="{gpu}"]'))
    assert "gpu=" in page.url
    assert _same_plot(_open_plot(page), _pairs("gpu = ?", [gpu]))
    assert not watched.errors, watched.errors


def test_grid_specs_name_only_what_aiconfigurator_is_mapped_for() -> None:
    """The committed grid's specs load and use registry names the estimator maps (no AIConfigurator call)."""
    from bench.engines.estimate import BACKENDS, MODELS, PRECISIONS, SYSTEMS
    from bench.engines.estimate_spec import load_spec

    specs = sorted((Path(__file__).resolve().parents[2] / "bench/data/estimate_grid").glob("*.yaml"))
    assert specs
    for p in specs:
        s = load_spec(p)
        assert set(s.systems) <= set(SYSTEMS), p
        assert set(s.models) <= set(MODELS), p
        assert set(s.precisions) <= set(PRECISIONS), p
        backends = yaml.safe_load(p.read_text(encoding="utf-8"))["backends"]
        assert backends and set(backends) <= set(BACKENDS), p


def test_a_band_without_pairs_says_its_files_reason() -> None:
    """A vLLM or SGLang estimate has no published run to be measured against; its file says so in the band's
    ``reason`` and the run card's band line shows that reason, not the generic TensorRT-LLM wording. A
    committed vLLM file is the authority for the text (read from the file, not copied here)."""
    from site_gen.data.estimates import extra_columns

    root = Path(__file__).resolve().parents[2] / "results/modelled"
    files = sorted(root.glob("*/*--vllm.yaml"))
    if not files:
        pytest.skip("no committed vLLM estimate")
    data = yaml.safe_load(files[0].read_text(encoding="utf-8"))
    reasons = [(r["estimate"].get("band") or {}).get("reason") for r in data["runs"]]
    assert all(reasons), files[0]
    assert extra_columns(data)["est_band"] == reasons


def test_csv_marks_every_estimate_and_no_run(est_site: Path, est_url: str, watched: Watched) -> None:
    """The explorer's CSV with every estimate shown (Playwright's download): each row whose run id is an
    estimate by the site's database has the badge (worked by hand: ``BADGES``), the database's confidence
    and band; every other row has the three columns empty. A spreadsheet never holds an estimate unmarked."""
    with duckdb.connect(str(est_site / "llmbench.duckdb"), read_only=True) as con:
        kinds = dict(con.execute("SELECT run_id, source_kind FROM runs_and_estimates").fetchall())
        est = {
            rid: (tp, conf, "" if pct is None else str(pct))
            for rid, tp, conf, pct in con.execute(
                "SELECT run_id, tp, est_confidence, est_pct FROM estimates WHERE source_kind = 'modelled'"
            ).fetchall()
        }
    page = watched.open(f"{est_url}/explorer.html?kind=published&kind=modelled&est_low=1")
    page.wait_for_function(f"window.llmbench.scopes()[0].tableText().rows.length === {len(kinds)}")
    with page.expect_download() as dl:
        page.click(".lb-download")
    rows = list(csv.DictReader(Path(dl.value.path()).read_text(encoding="utf-8").splitlines()))
    assert sorted(r["Run"] for r in rows) == sorted(kinds)  # every run and estimate, once
    for r in rows:
        marks = (r["estimate"], r["estimate_confidence"], r["estimate_band_pct"])
        if kinds[r["Run"]] == "modelled":
            tp, conf, pct = est[r["Run"]]
            assert marks == (BADGES[tp], conf, pct), r
        else:
            assert marks == ("", "", ""), r
    assert sum(1 for r in rows if r["estimate"]) == len(est) == 3
    assert not watched.errors, watched.errors
