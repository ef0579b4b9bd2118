"""The explorer at 100,000 runs (issue 29) in real headless Chromium, served by a plain static server
(python's http.server: no Range requests, no gzip): the first chart draws from the summary (the best run
of each GPU x model x precision x workload, ``site_gen.data.dataset.best_per_cell``) before any request for
every run; a filter or preset on those dimensions filters the best runs without loading every run (and a
URL or Back to such a filter opens on them); so does a filter on one more dimension (TP); "Show every run"
and a filter on a second such dimension load every run of the GPUs chosen (their files; every run when none
is) and keep the filters; a run card opens from the table, no console error, and no file of the site is
over 20 MB.

The runs are ``tests.perf.bench_scale.fast_results``' synthetic set (15 releases, the registry GPUs with a
16-bit TFLOP/s figure, 100 runs a file), built with ``llmbench site build`` in a child process (its memory
goes with it). Every expected figure comes from a DuckDB query of the database that build wrote, never
from the page script. About 1.5-3 minutes on the 2-core machine, most of it the build.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, quote_plus

import duckdb
import pytest

from site_gen.charts.specs import MAX_POINTS
from tests.perf.bench_scale import fast_results
from tests.site.conftest import ROOT, Watched, serve

pytestmark = pytest.mark.browser
SHOTS = ROOT / "build" / "screenshots" / "scale"
RUNS = int(os.environ.get("LLMBENCH_SCALE_TEST_RUNS") or 100_000)
LARGEST_FILE = 20_000_000  # bytes: the largest file a static host takes without complaint (issue 29)
SLOW_MS = 180_000  # a wait in the browser: generous, the 2-core machine is shared with other builds

# DuckDB's best run of each cell that has a figure (ties: the smallest run id): what the first chart draws
BEST_SQL = """SELECT DISTINCT ON (gpu, model_name, precision, isl, osl) run_id FROM runs
WHERE output_tps_per_gpu IS NOT NULL
ORDER BY gpu, model_name, precision, isl, osl, output_tps_per_gpu DESC, run_id"""
# the rows the chart's `runs` dataset holds, and the data files the page has fetched so far
DRAWN_IDS = "(i) => window.llmbench.charts()[i].view.data('runs').map((r) => r.run_id)"
ROW_IDS = "window.llmbench.scopes()[0].rows().map((r) => r.run_id)"  # the rows of the selection
FETCHED = "() => performance.getEntriesByType('resource').map((e) => e.name.split('/').pop())"
COUNT_MARKS = "(i) => window.llmbench.countMarks(window.llmbench.charts()[i].view.scenegraph().root)"


@pytest.fixture(scope="module")
def scale_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``RUNS`` synthetic runs built with ``llmbench site build`` (work/site, work/llmbench.duckdb);
    ``$LLMBENCH_SCALE_TEST_SITE``: a folder built so before (work/site and its database), to look again."""
    if os.environ.get("LLMBENCH_SCALE_TEST_SITE"):
        return Path(os.environ["LLMBENCH_SCALE_TEST_SITE"])
    work = tmp_path_factory.mktemp("scale-site")
    assert fast_results(work / "results", RUNS) == RUNS
    env = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    cmd = [sys.executable, "-c", "from bench.cli import app; app()", "site", "build",
           "--results", str(work / "results"), "--db", str(work / "llmbench.duckdb"),
           "--out", str(work / "site"), "--config", str(ROOT / "mkdocs.yml")]  # fmt: skip
    done = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return work


@pytest.fixture(scope="module")
def scale_url(scale_site: Path) -> Iterator[str]:
    url, server = serve(scale_site / "site")
    yield url
    server.shutdown()


def query(site: Path, sql: str, params: list | None = None) -> list[tuple]:
    con = duckdb.connect(str(site / "llmbench.duckdb"), read_only=True)
    try:
        return con.execute(sql, params or []).fetchall()
    finally:
        con.close()


def test_no_file_of_the_site_is_over_20_mb(scale_site: Path) -> None:
    big = [
        (p.relative_to(scale_site / "site").as_posix(), p.stat().st_size)
        for p in (scale_site / "site").rglob("*")
        if p.is_file() and p.stat().st_size > LARGEST_FILE
    ]
    assert big == []


def test_every_data_file_the_pages_name_at_100k_runs_was_written(scale_site: Path) -> None:
    """The data files the worker made while the pages rendered (``Site.keep_later``): each GPU's, each
    model's and every run's in parts, named by their keys in every page that loads them."""
    from tests.site.test_background import check_data_files_named

    assert check_data_files_named(scale_site / "site") > 50


def test_the_explorer_at_100k_runs_draws_filters_and_opens_a_run_card(
    scale_site: Path, scale_url: str, browser: object
) -> None:
    ((total,),) = query(scale_site, "SELECT count(*) FROM runs")
    assert total == RUNS
    # the GPU with the fewest runs (ties: by name), and its runs with the explorer's chart figure
    ((gpu, gpu_runs),) = query(
        scale_site, "SELECT gpu, count(*) n FROM runs GROUP BY gpu ORDER BY n, gpu LIMIT 1"
    )

    watched = Watched(browser, 1440, 900)
    try:
        page = watched.page
        page.goto(f"{scale_url}/explorer.html", wait_until="commit")
        # the first chart drawn (its rows inserted and shown), then the page ready
        page.wait_for_function(
            "window.llmbench && window.llmbench.charts().some((c) => c.view && c.shown)", timeout=SLOW_MS
        )
        page.wait_for_function("document.body.dataset.lbReady", timeout=SLOW_MS)
        # drawn from the summary: DuckDB's best run of each cell, one point each; every run not fetched
        best = {r for (r,) in query(scale_site, BEST_SQL)}
        assert page.evaluate("window.llmbench.scopes()[0].showingSummary()")
        drawn = page.evaluate(DRAWN_IDS, 0)
        # a one-point-per-run chart draws an even sample above MAX_POINTS rows (and says so)
        assert set(drawn) <= best and len(drawn) == len(set(drawn)) == min(len(best), MAX_POINTS)
        assert page.evaluate(COUNT_MARKS, 0) == len(drawn)
        # every run: one file or several (space-separated), none fetched before the reader asks
        detail = {Path(p).name for p in page.get_attribute(".lb-scope", "data-lb-src").split()}
        fetched = page.evaluate(FETCHED)
        assert not detail & set(fetched) and any(n.startswith("summary.") for n in fetched)
        assert f": {len(best):,} of {total:,} runs." in page.text_content(".lb-count")
        page.screenshot(path=str(SHOTS / "explorer-1440.png"))

        # a GPU filter on the summary: DuckDB's best runs of that GPU's cells, the runs of those cells in
        # the count line and beside the option, and still no request for every run
        gpu_best = {r for (r,) in query(scale_site, BEST_SQL.replace("WHERE", "WHERE gpu = ? AND"), [gpu])}
        ((cell_runs,),) = query(
            scale_site,
            "SELECT count(*) FROM runs WHERE gpu = ? AND (gpu, model_name, precision, isl, osl) IN (SELECT"
            " (gpu, model_name, precision, isl, osl) FROM runs WHERE output_tps_per_gpu IS NOT NULL)",
            [gpu],
        )
        page.click('.lb-filter[data-dim="gpu"] .lb-filter-button')
        option = page.locator(f'.lb-filter[data-dim="gpu"] label:has(input[value="{gpu}"])')
        assert option.locator(".lb-n").text_content() == f" {cell_runs:,}"
        rendered = "document.querySelector('.lb-scope').dataset.lbRendered"
        before = page.evaluate(rendered)
        page.check(f'.lb-filter[data-dim="gpu"] input[value="{gpu}"]')
        page.wait_for_function(f"{rendered} !== '{before}'", timeout=SLOW_MS)
        page.keyboard.press("Escape")
        assert page.evaluate("window.llmbench.scopes()[0].showingSummary()")
        assert set(page.evaluate(DRAWN_IDS, 0)) == gpu_best and page.evaluate(COUNT_MARKS, 0) == len(gpu_best)
        assert f": {len(gpu_best):,} of {cell_runs:,} runs." in page.text_content(".lb-count")
        assert not detail & set(page.evaluate(FETCHED))
        filtered = page.url
        # Back: the summary of every cell again; a shared link to the filter opens on that GPU's cells
        page.go_back()
        page.wait_for_function(f"{rendered} !== '{before}' && !location.search", timeout=SLOW_MS)
        assert f": {len(best):,} of {total:,} runs." in page.text_content(".lb-count")
        page.goto(filtered, wait_until="commit")
        page.wait_for_function("document.body && document.body.dataset.lbReady", timeout=SLOW_MS)
        assert page.evaluate("window.llmbench.scopes()[0].showingSummary()")
        assert f": {len(gpu_best):,} of {cell_runs:,} runs." in page.text_content(".lb-count")

        # a preset of GPUs and precisions only (the page's own, e.g. "FP8 on H200") filters the best runs
        # too, nothing more fetched; Back returns to the GPU filter, still on the summary
        hrefs = page.eval_on_selector_all(".lb-preset", "(as) => as.map((a) => new URL(a.href).search)")
        pairs = [parse_qsl(h.lstrip("?")) for h in hrefs]
        cell_only = [i for i, p in enumerate(pairs) if p and {k for k, _ in p} <= {"gpu", "precision"}]
        named = pairs[preset := cell_only[0]]
        dims = sorted({k for k, _ in named})
        where = " AND ".join(f"{k} IN ({', '.join('?' for kk, _ in named if kk == k)})" for k in dims)
        params = [v for k in dims for kk, v in named if kk == k]
        sql = BEST_SQL.replace("WHERE", f"WHERE {where} AND")
        preset_best = {r for (r,) in query(scale_site, sql, params)}
        before = page.evaluate(rendered)
        page.click(f".lb-preset >> nth={preset}")
        page.wait_for_function(f"{rendered} !== '{before}'", timeout=SLOW_MS)
        assert page.evaluate("window.llmbench.scopes()[0].showingSummary()")
        assert set(page.evaluate(DRAWN_IDS, 0)) == preset_best and preset_best
        assert parse_qsl(page.url.split("?", 1)[1]) == named and not detail & set(page.evaluate(FETCHED))
        before = page.evaluate(rendered)
        page.go_back()
        page.wait_for_function(f"{rendered} !== '{before}'", timeout=SLOW_MS)
        assert page.url == filtered and set(page.evaluate(DRAWN_IDS, 0)) == gpu_best

        # "Show every run" with a GPU chosen: every run of that GPU, its file only (not every run), the
        # filter kept; the count and the first chart follow DuckDB's runs of that GPU
        every = "window.llmbench.scopes()[0].everyRun()"
        page.click(".lb-every")
        page.evaluate(every)
        page.wait_for_function(f"{rendered} !== '{before}'", timeout=SLOW_MS)
        assert loaded_only(page, detail, gpu)
        assert page.text_content(".lb-count") == f"{gpu_runs:,} of {total:,} runs"
        ((with_figure,),) = query(
            scale_site, "SELECT count(*) FROM runs WHERE gpu = ? AND output_tps_per_gpu IS NOT NULL", [gpu]
        )
        assert page.evaluate(COUNT_MARKS, 0) == with_figure  # one point per run of that GPU
        assert page.evaluate("window.llmbench.scopes()[0].tableText().rows.length") == gpu_runs
        # the GPU list: that GPU counted; the others, not loaded, without a count (never a false 0)
        counts = option_counts(page)
        assert counts[gpu] == f"{gpu_runs:,}" and set(counts) == {g for (g,) in query(scale_site, GPUS_SQL)}
        assert {c for g, c in counts.items() if g != gpu} == {"–"}
        page.keyboard.press("Escape")
        # a second GPU loads its file beside, and both are every run DuckDB has of the two, counted so
        ((other, other_runs),) = query(
            scale_site,
            "SELECT gpu, count(*) FROM runs WHERE gpu <> ? GROUP BY gpu ORDER BY gpu LIMIT 1",
            [gpu],
        )
        assert choose(page, "gpu", other) == " –"
        page.keyboard.press("Escape")
        assert page.text_content(".lb-count") == f"{gpu_runs + other_runs:,} of {total:,} runs"
        assert loaded_only(page, detail, gpu, other)
        counts = option_counts(page)
        assert (counts[gpu], counts[other]) == (f"{gpu_runs:,}", f"{other_runs:,}")
        page.keyboard.press("Escape")
        page.go_back()  # back to the one GPU: nothing more to load
        page.wait_for_function(
            f"document.querySelector('.lb-count').textContent === '{gpu_runs:,} of {total:,} runs'"
        )

        # the table's first run opens its card (only its partition of the cards is loaded)
        page.click(".lb-card-link >> nth=0")
        page.wait_for_function("document.querySelector('.lb-card-fields')", timeout=SLOW_MS)
        run_id = page.evaluate("decodeURIComponent(location.hash.slice(1))")
        fields = page.evaluate(
            """() => Object.fromEntries([...document.querySelectorAll('.lb-card-fields dt')]
                .map(dt => [dt.textContent, dt.nextElementSibling.textContent]))"""
        )
        ((want_gpu, tp, isl, osl),) = query(
            scale_site, "SELECT gpu, tp, isl, osl FROM runs WHERE run_id = ?", [run_id]
        )
        assert want_gpu == gpu
        assert (fields["GPU"], fields["Tensor parallel (TP)"]) == (gpu, str(tp))
        assert (fields["Input length (ISL), tokens"], fields["Output length (OSL), tokens"]) == (
            f"{isl:,}",
            f"{osl:,}",
        )
        loaded = page.evaluate(
            "performance.getEntriesByType('resource').map((e) => e.name).filter((n) => /\\/cards-/.test(n))"
        )
        assert len(loaded) == 1, loaded  # one partition of the cards, not every card

        # "Show every run" with a model chosen and no GPU: every run of that model (its file, the one its
        # model page loads), not every run; the count and the model's option DuckDB's, the other models
        # not loaded said so
        ((model, model_runs),) = query(
            scale_site, "SELECT model_name, count(*) n FROM runs GROUP BY 1 ORDER BY n, 1 LIMIT 1"
        )
        page.goto(f"{scale_url}/explorer.html?model={quote_plus(model)}", wait_until="commit")
        page.wait_for_function("document.body && document.body.dataset.lbReady", timeout=SLOW_MS)
        page.click(".lb-every")
        page.evaluate(every)
        page.wait_for_function("!window.llmbench.scopes()[0].showingSummary()", timeout=SLOW_MS)
        assert loaded_only(page, detail, model)
        assert page.text_content(".lb-count") == f"{model_runs:,} of {total:,} runs"
        counts = option_counts(page, "model")
        assert counts[model] == f"{model_runs:,}" and {c for m, c in counts.items() if m != model} == {"–"}
        page.keyboard.press("Escape")

        # a phone: the summary again, then "Show every run" loads every run into the count and the table
        page.set_viewport_size({"width": 390, "height": 844})
        page.goto(f"{scale_url}/explorer.html", wait_until="commit")
        page.wait_for_function("document.body && document.body.dataset.lbReady", timeout=SLOW_MS)
        page.screenshot(path=str(SHOTS / "explorer-390.png"))
        assert page.is_hidden(".lb-table-wrap")
        page.click(".lb-every")
        page.wait_for_function("!window.llmbench.scopes()[0].showingSummary()", timeout=SLOW_MS)
        page.evaluate(every)
        assert page.text_content(".lb-count") == f"{total:,} of {total:,} runs"
        assert (
            page.is_visible(".lb-table-wrap")
            and page.evaluate("window.llmbench.scopes()[0].tableText().rows.length") == total
        )
        assert watched.errors == [] and watched.external == []
    finally:
        watched.close()


GPUS_SQL = "SELECT DISTINCT gpu FROM runs WHERE gpu IS NOT NULL"


def part_file(page: Any, value: str) -> set[str]:
    """The names of the data file(s) holding every run of ``value``, a GPU or a model (data-lb-summary's
    parts: GPUs and models never share a name)."""
    parts = page.evaluate("JSON.parse(document.querySelector('.lb-scope').dataset.lbSummary).parts")
    (file,) = [part["files"][value] for part in parts if value in part["files"]]
    return {Path(p).name for p in file["src"].split()}


def loaded_only(page: Any, detail: set[str], *values: str) -> bool:
    """Whether the page has fetched the files of every run of ``values`` (GPUs or a model: the parts' own
    dimension) and none of every run's."""
    fetched = set(page.evaluate(FETCHED))
    return all(part_file(page, v) <= fetched for v in values) and not detail & fetched


def option_counts(page: Any, dim: str = "gpu") -> dict[str, str]:
    """A filter's options (the GPU filter's, or ``dim``'s) with the count each shows (its list opened)."""
    button = f'.lb-filter[data-dim="{dim}"] .lb-filter-button'
    if page.get_attribute(button, "aria-expanded") != "true":
        page.click(button)
    return page.eval_on_selector_all(
        f'.lb-filter[data-dim="{dim}"] label',
        "ls => Object.fromEntries(ls.map((l) => [l.querySelector('input').value,"
        " l.querySelector('.lb-n').textContent.trim()]))",
    )


def test_a_gpu_whose_runs_fail_to_load_is_said_so_and_loads_when_chosen_again(
    scale_site: Path, scale_url: str, browser: object
) -> None:
    """Every run of one GPU shown; another GPU's file fails (the network drops it): the count line says
    the runs could not be loaded and the rows stay the first GPU's; chosen again once the network is back,
    its runs load and the count is DuckDB's for both."""
    ((total,),) = query(scale_site, "SELECT count(*) FROM runs")
    (g1, n1), (g2, n2) = query(scale_site, "SELECT gpu, count(*) FROM runs GROUP BY gpu ORDER BY gpu LIMIT 2")
    watched = Watched(browser, 1440, 900)
    try:
        page = watched.page
        page.goto(f"{scale_url}/explorer.html?gpu={g1.replace(' ', '+')}", wait_until="commit")
        page.wait_for_function("document.body && document.body.dataset.lbReady", timeout=SLOW_MS)
        page.click(".lb-every")
        page.evaluate("window.llmbench.scopes()[0].everyRun()")
        page.wait_for_function(
            f"document.querySelector('.lb-count').textContent === '{n1:,} of {total:,} runs'"
        )
        lost = part_file(page, g2)
        page.route(
            "**/*", lambda route: route.abort() if Path(route.request.url).name in lost else route.continue_()
        )
        page.click('.lb-filter[data-dim="gpu"] .lb-filter-button')
        page.check(f'.lb-filter[data-dim="gpu"] input[value="{g2}"]')
        page.wait_for_function("!document.querySelector('.lb-scope[aria-busy]')", timeout=SLOW_MS)
        assert page.text_content(".lb-count").startswith("Could not load these runs: could not load")
        assert {r["gpu"] for r in page.evaluate("window.llmbench.scopes()[0].rows()")} == {g1}
        # the browser's line for the dropped file and the page's own: nothing else went wrong
        assert [e for e in watched.errors if "could not load" not in e and "ERR_FAILED" not in e] == []
        page.unroute("**/*")
        page.uncheck(f'.lb-filter[data-dim="gpu"] input[value="{g2}"]')
        page.check(f'.lb-filter[data-dim="gpu"] input[value="{g2}"]')
        page.wait_for_function(
            f"document.querySelector('.lb-count').textContent === '{n1 + n2:,} of {total:,} runs'",
            timeout=SLOW_MS,
        )
        assert watched.external == []
    finally:
        watched.close()


# the runs of the cells the summary holds (those with a figure), under a condition
CELL_RUNS_SQL = """SELECT count(*) FROM runs WHERE {where} AND (gpu, model_name, precision, isl, osl) IN
(SELECT (gpu, model_name, precision, isl, osl) FROM runs WHERE output_tps_per_gpu IS NOT NULL)"""


def choose(page: Any, dim: str, value: object) -> str:
    """Open ``dim``'s list of options (its button), tick ``value`` and wait until the page has drawn it.
    Returns that option's count as the list showed it before the choice."""
    rendered = "document.querySelector('.lb-scope').dataset.lbRendered"
    page.click(f'.lb-filter[data-dim="{dim}"] .lb-filter-button')
    page.wait_for_selector(f'.lb-filter[data-dim="{dim}"] .lb-filter-button[aria-expanded="true"]')
    shown = page.locator(
        f'.lb-filter[data-dim="{dim}"] label:has(input[value="{value}"]) .lb-n'
    ).text_content()
    before = page.evaluate(rendered)
    page.check(f'.lb-filter[data-dim="{dim}"] input[value="{value}"]')
    page.wait_for_function(f"{rendered} !== '{before}'", timeout=SLOW_MS)
    return shown


def test_the_explorer_at_100k_runs_filters_one_more_dimension_on_its_summary(
    scale_site: Path, scale_url: str, browser: object
) -> None:
    """A filter on TP (a dimension outside the summary's cells) loads TP's counts and the chosen TP's best
    runs, not every run: the chart draws DuckDB's best run of each cell among that TP's runs, the count line
    and the options count DuckDB's runs; a GPU beside it filters the same way, a shared link opens on it;
    a second such dimension (PP) loads every run and keeps both filters."""
    ((total,),) = query(scale_site, "SELECT count(*) FROM runs")
    # the TP with the fewest runs (ties: the smallest)
    ((tp, _),) = query(
        scale_site, "SELECT tp, count(*) n FROM runs WHERE tp IS NOT NULL GROUP BY tp ORDER BY n, tp LIMIT 1"
    )
    ((tp_runs,),) = query(scale_site, CELL_RUNS_SQL.format(where="tp = ?"), [tp])
    tp_best = {r for (r,) in query(scale_site, BEST_SQL.replace("WHERE", "WHERE tp = ? AND"), [tp])}
    watched = Watched(browser, 1440, 900)
    try:
        page = watched.page
        page.goto(f"{scale_url}/explorer.html", wait_until="commit")
        page.wait_for_function("document.body && document.body.dataset.lbReady", timeout=SLOW_MS)
        detail = {Path(p).name for p in page.get_attribute(".lb-scope", "data-lb-src").split()}

        # TP's button opens TP's options, counted from DuckDB, with nothing of every run fetched
        assert choose(page, "tp", tp) == f" {tp_runs:,}"
        assert page.evaluate("window.llmbench.scopes()[0].showingSummary()")
        assert (
            set(page.evaluate(ROW_IDS)) == tp_best and len(page.evaluate(ROW_IDS)) == len(tp_best) and tp_best
        )
        drawn = page.evaluate(DRAWN_IDS, 0)  # every row, or an even sample above MAX_POINTS
        assert set(drawn) <= tp_best and len(drawn) == len(set(drawn)) == min(len(tp_best), MAX_POINTS)
        assert f": {len(tp_best):,} of {tp_runs:,} runs." in page.text_content(".lb-count")
        assert not detail & set(page.evaluate(FETCHED))

        # a GPU beside it: that GPU's options count the runs of that TP; the best runs of both
        ((gpu, gpu_runs),) = query(
            scale_site,
            CELL_RUNS_SQL.format(where="tp = ?").replace("count(*)", "gpu, count(*) n")
            + " GROUP BY gpu ORDER BY n, gpu LIMIT 1",
            [tp],
        )
        assert choose(page, "gpu", gpu) == f" {gpu_runs:,}"
        page.keyboard.press("Escape")
        both = {
            r
            for (r,) in query(
                scale_site, BEST_SQL.replace("WHERE", "WHERE tp = ? AND gpu = ? AND"), [tp, gpu]
            )
        }
        assert set(page.evaluate(ROW_IDS)) == both and both
        assert f": {len(both):,} of {gpu_runs:,} runs." in page.text_content(".lb-count")
        assert not detail & set(page.evaluate(FETCHED))
        page.screenshot(path=str(SHOTS / "explorer-tp-1440.png"))

        # the link opens on the same, from the summary
        page.goto(page.url, wait_until="commit")
        page.wait_for_function("document.body && document.body.dataset.lbReady", timeout=SLOW_MS)
        assert page.evaluate("window.llmbench.scopes()[0].showingSummary()")
        assert set(page.evaluate(ROW_IDS)) == both
        assert f": {len(both):,} of {gpu_runs:,} runs." in page.text_content(".lb-count")

        # a TP that is no value (a hand-made link, a name of every JS object): nothing, said so, no error
        page.goto(f"{scale_url}/explorer.html?tp=__proto__", wait_until="commit")
        page.wait_for_function("document.body && document.body.dataset.lbReady", timeout=SLOW_MS)
        assert page.evaluate("window.llmbench.scopes()[0].showingSummary()")
        assert ": 0 of 0 runs." in page.text_content(".lb-count") and page.evaluate(ROW_IDS) == []
        page.go_back()
        page.wait_for_function("document.body && document.body.dataset.lbReady", timeout=SLOW_MS)

        # a second dimension outside the cells (PP) loads every run of the GPU chosen (its file, not every
        # run), then opens PP, the filters kept
        page.click('.lb-filter[data-dim="pp"] .lb-filter-button')
        page.wait_for_function("!window.llmbench.scopes()[0].showingSummary()", timeout=SLOW_MS)
        page.evaluate("window.llmbench.scopes()[0].everyRun()")
        page.wait_for_selector('.lb-filter[data-dim="pp"] .lb-filter-button[aria-expanded="true"]')
        ((runs,),) = query(scale_site, "SELECT count(*) FROM runs WHERE tp = ? AND gpu = ?", [tp, gpu])
        assert page.text_content(".lb-count") == f"{runs:,} of {total:,} runs"
        assert loaded_only(page, detail, gpu)
        # every GPU again: every run loads, the TP filter kept
        before = page.evaluate("document.querySelector('.lb-scope').dataset.lbRendered")
        page.click('.lb-filter[data-dim="gpu"] .lb-filter-button')
        page.click('.lb-filter[data-dim="gpu"] .lb-all')
        page.wait_for_function(
            f"document.querySelector('.lb-scope').dataset.lbRendered !== '{before}'", timeout=SLOW_MS
        )
        ((runs,),) = query(scale_site, "SELECT count(*) FROM runs WHERE tp = ?", [tp])
        assert page.text_content(".lb-count") == f"{runs:,} of {total:,} runs"
        assert detail <= set(page.evaluate(FETCHED))
        assert watched.errors == [] and watched.external == []
    finally:
        watched.close()


# A view's opening selection (its defaults) as SQL over the runs table: the dimensions the views open on
COLUMN = {"model": "model_name", "precision": "precision", "engine": "engine", "gpu": "gpu", "pp": "pp"}


DEFAULTS = "JSON.parse(document.querySelector('.lb-filterbar').dataset.lbDefaults)"


def selection_sql(state: dict[str, list[str]]) -> tuple[str, list]:
    """The run ids of a view's selection (its filter state) as a DuckDB query and its parameters."""
    where, params = [], []
    for key, values in sorted(state.items()):
        if not values:  # no filter: every value
            continue
        if key == "workload":
            where.append("(" + " OR ".join("(isl = ? AND osl = ?)" for _ in values) + ")")
            params += [int(x) for v in values for x in v.split("/")]
        else:
            where.append(f"{COLUMN[key]} IN ({', '.join('?' for _ in values)})")
            params += values
    return f"SELECT run_id FROM runs WHERE {' AND '.join(where)}", params


def test_a_view_at_100k_runs_opens_on_the_runs_of_its_selection(
    scale_site: Path, scale_url: str, browser: object
) -> None:
    """A view opens on every run of its opening selection (a file of those runs, not every run): the
    rows its charts draw are DuckDB's runs of that selection, the count line is the one every run gives;
    a filter then loads every run of its model where the model is one choice (a radio button: every
    state names one), else of its GPU where it opens on one, and of its model once no GPU is named, never
    every run, and every run at the opening selection gives the same rows in the same order. A guide
    page's several views each open on their own selection."""
    ((total,),) = query(scale_site, "SELECT count(*) FROM runs")
    watched = Watched(browser, 1440, 900)
    try:
        page = watched.page
        page.goto(f"{scale_url}/generated/views/generational-uplift.html", wait_until="commit")
        page.wait_for_function("document.body && document.body.dataset.lbReady", timeout=SLOW_MS)
        scope = "window.llmbench.scopes()[0]"
        assert page.evaluate(f"{scope}.showingSummary()")
        opening = page.evaluate(DEFAULTS)
        want = {r for (r,) in query(scale_site, *selection_sql(opening))}
        first = page.evaluate(f"{scope}.rows().map((r) => r.run_id)")
        assert 0 < len(first) < total / 2 and set(first) == want and len(first) == len(want)
        assert page.text_content(".lb-count") == f"{len(want):,} of {total:,} runs"
        detail = {Path(p).name for p in page.get_attribute(".lb-scope", "data-lb-src").split()}
        fetched = page.evaluate(FETCHED)
        assert not detail & set(fetched) and any(n.startswith("slice.") for n in fetched)
        page.screenshot(path=str(SHOTS / "view-1440.png"))
        # a filter's button: every run of the view's model loaded (its model is one choice), not every
        # run, that filter opened; at the opening selection the same rows; another GPU gives DuckDB's
        # runs of it with that model
        (model,) = opening["model"]
        page.click('.lb-filter[data-dim="gpu"] .lb-filter-button')
        page.wait_for_function(f"!{scope}.showingSummary()", timeout=SLOW_MS)
        page.evaluate(f"{scope}.everyRun()")
        page.wait_for_selector('.lb-filter[data-dim="gpu"] .lb-filter-button[aria-expanded="true"]')
        assert loaded_only(page, detail, model)
        assert page.evaluate(f"{scope}.rows().map((r) => r.run_id)") == first
        assert page.text_content(".lb-count") == f"{len(want):,} of {total:,} runs"
        page.keyboard.press("Escape")
        shown = set(opening.get("gpu") or [])
        other = next(
            g
            for (g,) in query(
                scale_site, "SELECT DISTINCT gpu FROM runs WHERE model_name = ? ORDER BY 1", [model]
            )
            if g not in shown
        )
        choose(page, "gpu", other)
        runs = query(scale_site, *selection_sql({**opening, "gpu": [other]}))
        assert page.text_content(".lb-count") == f"{len(runs):,} of {total:,} runs"
        assert loaded_only(page, detail, model)

        # a view opening on one GPU, its model a choice of several: a filter's button loads every run of
        # that GPU (its file), not every run; another value of the filter gives DuckDB's runs of it on
        # that GPU
        page.goto(f"{scale_url}/generated/views/tp-vs-pp.html", wait_until="commit")
        page.wait_for_function("document.body && document.body.dataset.lbReady", timeout=SLOW_MS)
        opening = page.evaluate(DEFAULTS)
        (gpu,) = opening["gpu"]
        first = page.evaluate(f"{scope}.rows().map((r) => r.run_id)")
        assert set(first) == {r for (r,) in query(scale_site, *selection_sql(opening))} and first
        detail = {Path(p).name for p in page.get_attribute(".lb-scope", "data-lb-src").split()}
        page.click('.lb-filter[data-dim="precision"] .lb-filter-button')
        page.wait_for_function(f"!{scope}.showingSummary()", timeout=SLOW_MS)
        page.evaluate(f"{scope}.everyRun()")
        assert loaded_only(page, detail, gpu)
        assert page.evaluate(f"{scope}.rows().map((r) => r.run_id)") == first
        page.keyboard.press("Escape")
        other = next(
            p
            for (p,) in query(
                scale_site, "SELECT DISTINCT precision FROM runs WHERE gpu = ? ORDER BY 1", [gpu]
            )
            if [p] != opening.get("precision")
        )
        choose(page, "precision", other)  # ticked beside the opening's (a check box)
        chosen = [*opening.get("precision", []), other]
        runs = query(scale_site, *selection_sql({**opening, "precision": chosen}))
        assert page.text_content(".lb-count") == f"{len(runs):,} of {total:,} runs"
        assert loaded_only(page, detail, gpu)
        page.keyboard.press("Escape")
        # its GPU unticked (every GPU): every run of its model (the model's file), not every run; the
        # count DuckDB's runs of the selection on every GPU
        (model,) = opening["model"]
        page.click('.lb-filter[data-dim="gpu"] .lb-filter-button')
        before = page.evaluate("document.querySelector('.lb-scope').dataset.lbRendered")
        page.uncheck(f'.lb-filter[data-dim="gpu"] input[value="{gpu}"]')
        page.wait_for_function(
            f"document.querySelector('.lb-scope').dataset.lbRendered !== '{before}'", timeout=SLOW_MS
        )
        page.keyboard.press("Escape")
        runs = query(scale_site, *selection_sql({**opening, "precision": chosen, "gpu": []}))
        assert page.text_content(".lb-count") == f"{len(runs):,} of {total:,} runs"
        assert loaded_only(page, detail, gpu, model)  # the GPU's file from before, and the model's

        # a guide page of several views: each opens on its selection, none loads every run
        page.goto(f"{scale_url}/guide/04-parallelism.html", wait_until="commit")
        page.wait_for_function("document.body && document.body.dataset.lbReady", timeout=SLOW_MS)
        shown = page.evaluate("window.llmbench.scopes().map((s) => s.showingSummary())")
        assert len(shown) >= 2 and all(shown), shown
        detail = {Path(p).name for p in page.get_attribute(".lb-scope", "data-lb-src").split()}
        assert not detail & set(page.evaluate(FETCHED))
        assert watched.errors == [] and watched.external == []
    finally:
        watched.close()


def test_compare_at_100k_runs_loads_the_runs_of_the_gpus_it_compares(
    scale_site: Path, scale_url: str, browser: object
) -> None:
    """Compare mode at scale opens on its default pair from the runs of those two GPUs only (each GPU's
    file, and the pickers' combinations), with the pairs ``compare.ratios`` finds in every run of the
    database, the list of its pairs built when opened; another B loads that GPU's file; a comparison
    along precisions over every GPU for one model loads that model's file, and with no model every
    run."""
    import html
    import json
    import re

    from site_gen.data import queries
    from site_gen.pages import compare

    runs = queries.site_runs(scale_site / "llmbench.duckdb")
    page_html = (scale_site / "site" / "compare.html").read_text(encoding="utf-8")
    cfg = json.loads(html.unescape(re.search(r'data-lb-config="([^"]*)"', page_html).group(1)))
    a, b = cfg["default"]["a"], cfg["default"]["b"]
    file_of = lambda g: {Path(p).name for p in cfg["scale"]["gpus"][g]["src"].split()}  # noqa: E731
    watched = Watched(browser, 1440, 900)
    rendered = "Number(document.querySelector('.lb-compare')?.dataset.lbRendered || 0)"
    pairs = "window.llmbench.charts()[0].view.data('runs').filter((r) => r.basis === 'measured').length"
    try:
        page = watched.page
        page.goto(f"{scale_url}/compare.html", wait_until="commit")
        page.wait_for_function(f"{rendered} >= 1", timeout=SLOW_MS)
        every = {Path(p).name for p in page.get_attribute(".lb-compare", "data-lb-src").split()}
        want = compare.summary(compare.ratios(runs, "gpu", a, b))
        assert want and page.evaluate(pairs) == want["n"]
        assert page.text_content(".lb-compare-summary").startswith(f"{b} is {want['median']:.2f}×")
        fetched = set(page.evaluate(FETCHED))
        assert file_of(a) | file_of(b) <= fetched and not every & fetched
        page.screenshot(path=str(SHOTS / "compare-1440.png"))
        # the list of thousands of pairs is built when it is opened, then lists every pair
        trs = "document.querySelectorAll('.lb-compare-table tbody tr').length"
        assert page.evaluate(trs) == 0
        page.click(".lb-compare-list > summary")
        page.wait_for_function(f"{trs} > 0", timeout=SLOW_MS)  # "toggle" is dispatched as a task of its own
        assert page.evaluate(trs) == want["n"]
        page.click(".lb-compare-list > summary")

        # another B: that GPU's file, its pairs
        other = next(
            g for g in sorted(cfg["scale"]["gpus"]) if g not in (a, b) and compare.ratios(runs, "gpu", a, g)
        )
        before = page.evaluate(rendered)
        page.select_option(".lb-compare-bar select >> nth=2", other)
        page.wait_for_function(f"{rendered} > {before}", timeout=SLOW_MS)
        assert page.evaluate(pairs) == len(compare.ratios(runs, "gpu", a, other))
        fetched = set(page.evaluate(FETCHED))
        assert file_of(other) <= fetched and not every & fetched

        # along precisions over every GPU for one model (a link): that model's file, not every run, and
        # the pairs of the precisions the page picks among that model's runs
        model = next(
            m for m in sorted(cfg["scale"]["models"]) if runs[runs.model_name == m].precision.nunique() > 1
        )
        page.goto(f"{scale_url}/compare.html?by=precision&model={quote_plus(model)}", wait_until="commit")
        page.wait_for_function(f"{rendered} >= 1", timeout=SLOW_MS)
        # the pickers: along, A, B, then the filters (the model first)
        _, pa, pb, picked = page.eval_on_selector_all(
            ".lb-compare-bar select", "ss => ss.map((s) => s.value)"
        )[:4]
        assert picked == model and pa != pb and {pa, pb} <= set(runs[runs.model_name == model].precision)
        assert page.evaluate(pairs) == len(compare.ratios(runs, "precision", pa, pb, {"model": model}))
        fetched = set(page.evaluate(FETCHED))
        model_file = {Path(p).name for p in cfg["scale"]["models"][model]["src"].split()}
        assert model_file <= fetched and not every & fetched

        # along precisions over every GPU: every run, the pairs of the precisions the page picks
        page.goto(f"{scale_url}/compare.html", wait_until="commit")
        page.wait_for_function(f"{rendered} >= 1", timeout=SLOW_MS)
        before = page.evaluate(rendered)
        by = next(d for d in cfg["by"] if d["key"] == "precision")
        page.select_option(".lb-compare-bar select >> nth=0", label=by["label"])
        page.wait_for_function(f"{rendered} > {before}", timeout=SLOW_MS)
        query = dict(parse_qsl(page.url.split("?", 1)[1]))
        assert query["by"] == "precision" and query["a"] != query["b"]
        # (the synthetic runs of one configuration share their precision: no pair, as every run says)
        assert page.evaluate(pairs) == len(compare.ratios(runs, "precision", query["a"], query["b"]))
        assert every <= set(page.evaluate(FETCHED))
        assert watched.errors == [] and watched.external == []
    finally:
        watched.close()


def test_the_first_charts_pictures_at_100k_runs_are_the_charts_the_page_script_draws(
    scale_site: Path, scale_url: str, browser: object
) -> None:
    """A phone's picture of the first chart (tests/site/test_picture.py) where the page opens on a file of
    its own at scale: the explorer's summary of best runs, a view's selection. Where the build drew one
    (a first view of at most ``snapshot.MAX_ROWS`` rows), the live chart's rows and signals redrawn are
    the served bytes; a larger first view has none and draws live."""
    from site_gen.charts import snapshot
    from tests.site.test_picture import PICTURE, _live, _open, redrawn_and_served

    pictured = 0
    for path in (
        "explorer.html",
        "generated/views/generational-uplift.html",
        "generated/views/tp-scaling.html",
    ):
        html = (scale_site / "site" / path).read_text(encoding="utf-8")
        page, seen = _open(browser, f"{scale_url}/{path}", {"width": 390, "height": 844})
        try:
            if 'class="lb-picture"' not in html:
                _live(page)  # drawn live (a sample, where the chart caps its points)
                assert page.evaluate("window.llmbench.scopes()[0].rows().length") > snapshot.MAX_ROWS, path
                continue
            pairs, rows = redrawn_and_served(page, scale_site / "site")
            for scheme, (png, served) in pairs.items():
                assert png == served, f"{path}, {scheme}: not the picture the page script's {rows} rows draw"
            assert [s for s in seen if not s.startswith("picture:")] == [] and page.is_hidden(PICTURE)
            pictured += 1
        finally:
            page.context.close()
    assert pictured >= 1
