"""The built site in real headless Chromium (Debian's chromium via playwright): filters, URL state, CSV,
no console errors, no request leaving 127.0.0.1, the XSS probe inert, file://, screenshots."""

from __future__ import annotations

import csv
import io
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import duckdb
import pytest

from tests.site.conftest import ROOT, XSS, Watched, chosen

pytestmark = pytest.mark.browser
SHOTS = ROOT / "build" / "screenshots"

COUNT_MARKS = "(i) => window.llmbench.countMarks(window.llmbench.charts()[i].view.scenegraph().root)"


def table(page) -> tuple[list[str], list[list[str]]]:
    """The table's header and every row of the selection. The table is virtual (only the rows in view are
    in the page), so the rows come from the scope, and the rows in the page must be their first ones."""
    head = page.eval_on_selector_all(".lb-table thead th", "ths => ths.map(t => t.textContent)")
    shown = page.eval_on_selector_all(
        ".lb-table tbody tr:not(.lb-spacer)", "trs => trs.map(tr => [...tr.cells].map(td => td.textContent))"
    )
    text = page.evaluate("window.llmbench.scopes()[0].tableText()")
    assert text["head"] == head
    assert shown == text["rows"][: len(shown)]
    return head, text["rows"]


def columns(
    head: list[str], rows: list[list[str]], labels: list[str], same: dict[str, str] | None = None
) -> list[tuple[str, ...]]:
    """The cells of the columns called ``labels``, per row; a column the table hides because every row
    has one value (``same``: label -> that value, from tableText().hidden) gives that value."""
    same = same or {}
    return [tuple(r[head.index(label)] if label in head else same[label] for label in labels) for r in rows]


def pick(page, dim: str, value: str) -> None:
    page.click(f'.lb-filter[data-dim="{dim}"] .lb-filter-button')
    before = page.evaluate("document.querySelector('.lb-scope').dataset.lbRendered")
    page.check(f'.lb-filter[data-dim="{dim}"] input[value="{value}"]')
    page.wait_for_function(f"document.querySelector('.lb-scope').dataset.lbRendered !== '{before}'")


def test_explorer_h200_fp8_shows_exactly_the_duckdb_runs_and_the_url_and_csv_agree(
    real_site: Path, real_url: str, watched: Watched
) -> None:
    con = duckdb.connect(str(real_site / "llmbench.duckdb"), read_only=True)
    expected = con.execute(
        "SELECT gpu, model_name, precision, pp, tp, isl, osl, output_tps_per_gpu IS NOT NULL FROM runs"
        " WHERE gpu = 'H200 SXM 141GB' AND precision = 'FP8'"
    ).fetchall()
    total = con.execute("SELECT count(*) FROM runs").fetchone()[0]
    con.close()
    assert expected, "the real results have H200 FP8 runs"

    page = watched.open(f"{real_url}/explorer.html")
    pick(page, "gpu", "H200 SXM 141GB")
    pick(page, "precision", "FP8")

    head, rows = table(page)
    # the run card's link, then what a reader came for (issue 26)
    assert head[:3] == ["Run", "Output tok/s per GPU", "Output tok/s (all GPUs)"]
    hidden = page.evaluate("window.llmbench.scopes()[0].tableText().hidden")
    same = {h["label"]: h["value"] for h in hidden["same"]}
    assert {"GPU", "Precision"} <= set(same)  # one value on every row: hidden, and named with it
    assert not {"GPU", "Precision"} & set(head)
    got = sorted(columns(head, rows, ["GPU", "Model", "Precision", "PP", "TP", "ISL", "OSL"], same))
    want = sorted(
        (g, m, p, f"{pp}", f"{tp}", f"{isl:,}", f"{osl:,}") for g, m, p, pp, tp, isl, osl, _ in expected
    )
    assert got == want
    assert page.text_content(".lb-count") == f"{len(expected):,} of {total:,} runs"
    with_metric = sum(1 for *_, has in expected if has)
    assert page.evaluate(COUNT_MARKS, 0) == with_metric  # one point per run in "each run by GPU"
    # the second chart, below the first screen, is drawn when scrolled to, with the filters chosen before
    page.locator(".lb-chart").nth(1).scroll_into_view_if_needed()
    page.wait_for_function("window.llmbench.charts()[1].view && window.llmbench.charts()[1].shown")
    assert page.evaluate(COUNT_MARKS, 1) == with_metric

    query = parse_qs(urlparse(page.url).query)
    assert query == {"gpu": ["H200 SXM 141GB"], "precision": ["FP8"]}

    with page.expect_download() as dl:
        page.click(".lb-download")
    text = Path(dl.value.path()).read_text(encoding="utf-8")
    csv_rows = list(csv.reader(io.StringIO(text)))
    # The CSV has every column (the table hides those equal on every run of the page), the same rows.
    assert set(head) <= set(csv_rows[0])
    numeric = page.eval_on_selector_all(
        ".lb-table tbody tr:not(.lb-spacer):first-child td",
        "tds => tds.map(td => td.classList.contains('lb-num'))",
    )
    assert len(csv_rows) - 1 == len(rows)
    at = [csv_rows[0].index(h) for h in head]
    for shown, raw in zip(rows, csv_rows[1:], strict=True):
        want = [_cell(c.replace(",", "") if n else c, n) for c, n in zip(shown, numeric, strict=True)]
        got_csv = [_cell(raw[i], n) for i, n in zip(at, numeric, strict=True)]
        assert got_csv == pytest.approx(want, abs=0.051)

    # A copied link restores the widgets and the rows; back/forward walk the filter history.
    fresh = Watched(page.context.browser)
    try:
        again = fresh.open(page.url)
        assert chosen(again, "gpu") == ["H200 SXM 141GB"]
        assert chosen(again, "precision") == ["FP8"]
        assert table(again)[1] == rows
        assert fresh.errors == [] and fresh.external == []
    finally:
        fresh.close()
    page.go_back()
    page.wait_for_function(
        f"document.querySelector('.lb-count').textContent !== '{len(expected):,} of {total:,} runs'"
    )
    assert parse_qs(urlparse(page.url).query) == {"gpu": ["H200 SXM 141GB"]}
    assert chosen(page, "precision") == []
    assert watched.errors == [] and watched.external == []


def _cell(value: str, numeric: bool) -> object:
    """A table or CSV cell, numbers to the table's one decimal; missing is '' in the CSV and '–' shown
    ("unknown" in the % of bound column where a run has no bound: bench/contract/bound.py NOTES)."""
    if value in ("", "–", "unknown"):
        return None
    return float(value) if numeric else value


def instant(page, url: str) -> None:
    """Follow a link the way a reader does: Material swaps the content without reloading the page."""
    before = page.evaluate("document.body && document.body.dataset.lbReady")
    page.evaluate(
        "(u) => { const a = document.createElement('a'); a.href = u; document.body.append(a); a.click(); }",
        url,
    )
    page.wait_for_function(
        "([u, b]) => location.href === u && document.body.dataset.lbReady !== b",
        arg=[url, before],
        timeout=20_000,
    )
    assert page.evaluate("window.__same_document") == 1, f"{url} was a full reload, not instant navigation"


def _pages(site: Path) -> list[str]:
    skip = ("404.html",)
    return sorted(
        str(p.relative_to(site))
        for p in site.rglob("*.html")
        if p.name not in skip and "assets" not in p.parts
    )


def test_every_page_loads_without_console_errors_or_outside_requests_and_is_screenshotted(
    real_site: Path, real_url: str, browser: object
) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    kinds = {
        "home": "index.html",
        "explorer": "explorer.html",
        "view": "generated/views/tp-scaling.html",
        "gpu": "generated/gpus/h200-sxm-141gb.html",
        "model": "generated/models/llama-3-1-70b.html",
        "add-result": "how-to/add-your-result.html",
    }
    pages = _pages(real_site / "site")
    assert set(kinds.values()) <= set(pages)
    for width, label in ((1280, "desktop"), (390, "phone")):
        w = Watched(browser, width)
        try:
            if width == 1280:  # every page, reached by Material's instant navigation (no reload)
                w.open(f"{real_url}/index.html")
                w.page.evaluate("window.__same_document = 1")
                for path in pages:
                    instant(w.page, f"{real_url}/{path}")
                    assert w.page.locator(".lb-error").count() == 0, path
                    # every chart, also those below the first screen (drawn when scrolled to)
                    w.page.evaluate("window.llmbench.drawAll().then(() => 1)")
                    drawn = w.page.evaluate("window.llmbench.charts().filter(c => c.view).length")
                    assert drawn == w.page.locator(".lb-chart").count(), path
            for kind, path in kinds.items():
                w.open(f"{real_url}/{path}")
                w.page.screenshot(path=str(SHOTS / f"{kind}-{label}.png"), full_page=True)
            assert w.errors == [], w.errors
            assert w.external == [], w.external
        finally:
            w.close()
    dark = browser.new_context(viewport={"width": 1280, "height": 900}, color_scheme="dark")
    try:
        page = dark.new_page()
        page.goto(f"{real_url}/explorer.html?precision=FP8")
        page.wait_for_function("document.body && document.body.dataset.lbReady", timeout=20_000)
        assert page.evaluate("document.body.getAttribute('data-md-color-scheme')") == "slate"
        page.screenshot(path=str(SHOTS / "explorer-dark-desktop.png"), full_page=True)
        # Flipping Material's palette toggle redraws the charts in the new theme.
        page.evaluate("() => { window.__view = window.llmbench.charts()[0].view; }")
        page.click("form[data-md-component=palette] label:visible")
        page.wait_for_function(
            "window.llmbench.charts()[0].view !== window.__view && !!window.llmbench.charts()[0].view"
        )
        assert page.evaluate("document.body.getAttribute('data-md-color-scheme')") == "default"
        page.wait_for_function(
            "window.llmbench.charts().every(c => c.view && c.view.scenegraph().root.items.length)"
        )
        page.screenshot(path=str(SHOTS / "explorer-toggled-light-desktop.png"))
    finally:
        dark.close()


def test_xss_probe_is_shown_as_text_everywhere_and_runs_nothing(fixture_url: str, watched: Watched) -> None:
    page = watched.open(f"{fixture_url}/explorer.html?gpu=V100+SXM2+32GB")
    cells = [c for row in table(page)[1] for c in row]
    # model, version and source: in the table, or (one value on every row) named in the hidden-columns line
    hidden = page.text_content(".lb-table-hidden")
    assert cells.count(XSS) + hidden.count(XSS) >= 3
    for button in page.query_selector_all(".lb-filter-button"):  # each list is built when first opened
        button.click()
    options = page.eval_on_selector_all(".lb-option-text", "els => els.map(e => e.textContent)")
    assert XSS in options
    # The tooltip of a run carrying the probe, through vega-embed's own handler.
    shown = page.evaluate(
        """(probe) => {
            const view = window.llmbench.charts()[0].view;
            const ev = new MouseEvent('mousemove', {clientX: 50, clientY: 50});
            view.tooltip()(view, ev, {datum: {}}, {Model: probe, Source: probe});
            return document.querySelector('#vg-tooltip-element').innerHTML;
        }""",
        XSS,
    )
    assert "&lt;img" in shown and "<img" not in shown
    # A one-point-per-run chart builds its tooltip on hover from the run itself (usermeta.llmbench.tooltip):
    # titled and formatted like Vega-Lite's, the probe still escaped.
    hovered = page.evaluate(
        """() => {
            const view = window.llmbench.charts()[0].view;
            const find = (n) => n.marktype === 'symbol' && n.role === 'mark' && n.items.length ? n.items[0]
                : (n.items || []).map(find).find(Boolean);
            const item = find(view.scenegraph().root);
            const ev = new MouseEvent('mousemove', {clientX: 60, clientY: 60});
            view.tooltip()(view, ev, item, item.tooltip);
            const el = document.querySelector('#vg-tooltip-element');
            return [item.tooltip === item.datum, el.innerHTML, el.innerText];
        }"""
    )
    assert hovered[0]
    assert "&lt;img" in hovered[1] and "<img" not in hovered[1]
    assert "Output tokens/s per GPU" in hovered[2] and XSS in hovered[2]
    model_page = watched.open(f"{fixture_url}/generated/models/img-src-x-onerror-alert-1.html")
    assert XSS in model_page.text_content("h1")
    assert page.locator("img[src=x]").count() == 0
    assert watched.dialogs == [] and watched.errors == []


def test_a_filter_that_matches_nothing_says_so(fixture_url: str, watched: Watched) -> None:
    page = watched.open(f"{fixture_url}/explorer.html?gpu=V100+SXM2+32GB&precision=FP8")
    assert page.text_content(".lb-count") == "0 of 12 runs"
    assert "No runs match these filters" in page.text_content(".lb-table-note")
    page.evaluate("window.llmbench.drawAll().then(() => 1)")  # the chart below the first screen too
    messages = page.eval_on_selector_all(
        ".lb-chart .lb-status", "ps => ps.filter(p => !p.hidden).map(p => p.textContent)"
    )
    assert messages == ["No runs match these filters."] * 2
    assert watched.errors == []


@pytest.mark.parametrize(
    ("path", "line"),
    [
        ("explorer.html", "In the site folder run python -m http.server"),
        ("ko/explorer.html", "사이트 폴더에서 python -m http.server 를 실행"),
        ("compare.html", "In the site folder run python -m http.server"),
        ("runs.html", "In the site folder run python -m http.server"),
    ],
)
def test_a_page_opened_from_disk_says_in_each_placeholder_how_to_serve_the_folder(
    fixture_site: Path, watched: Watched, path: str, line: str
) -> None:
    # Chromium runs no module script from file:// (the page script is ES modules, issue 29): the classic
    # file-notice.js puts one line in each placeholder instead of a box that stays "Loading chart…".
    page = watched.page
    page.goto((fixture_site / "site" / path).as_uri())
    page.wait_for_function("document.body && document.body.dataset.lbFileNotice")
    outer = page.eval_on_selector_all(
        ".lb-scope, .lb-compare, .lb-runcard, .lb-chart",
        "els => els.filter(e => !e.parentElement.closest('.lb-scope, .lb-compare'))"
        ".map(e => [...e.querySelectorAll('.lb-file-notice')].map(p => p.textContent))",
    )
    assert outer and all(len(lines) == 1 and line in lines[0] for lines in outer), outer
    assert page.locator(".lb-file-notice").count() == len(outer)  # one line per placeholder, no more
    assert watched.external == []


def test_a_served_page_shows_no_file_notice(fixture_url: str, watched: Watched) -> None:
    page = watched.open(f"{fixture_url}/explorer.html")
    assert page.locator(".lb-file-notice").count() == 0
    assert page.text_content(".lb-count") == "12 of 12 runs"


def test_a_preset_sets_the_filters_and_the_url_without_reloading(fixture_url: str, watched: Watched) -> None:
    page = watched.open(f"{fixture_url}/explorer.html")
    page.evaluate("() => { window.__same_document = 1; }")
    page.click(".lb-preset:has-text('H200 vs A100')")
    page.wait_for_function("document.querySelector('.lb-count').textContent === '10 of 12 runs'")
    assert parse_qs(urlparse(page.url).query) == {"gpu": ["H200 SXM 141GB", "A100 SXM4 80GB"]}
    assert page.evaluate("window.__same_document") == 1
    assert watched.errors == []


def test_a_run_above_its_speed_of_light_bound_is_flagged_with_its_notes(
    real_site: Path, real_url: str, watched: Watched
) -> None:
    con = duckdb.connect(str(real_site / "llmbench.duckdb"), read_only=True)
    over = con.execute(
        "SELECT gpu, model_name, precision, notes FROM runs WHERE pct_of_bound > 100 ORDER BY run_id"
    ).fetchall()
    con.close()
    assert over, "the real results hold at least one published run above its bound (a source erratum)"
    gpu, model, precision, notes = over[0]
    page = watched.open(f"{real_url}/explorer.html?gpu={gpu}&model={model}&precision={precision}")
    page.click('.lb-sort[data-key="pct_of_bound"]')  # highest first: the flagged runs are in view
    flagged = page.eval_on_selector_all(
        "td.lb-flagged", "tds => tds.map(t => [t.title, getComputedStyle(t, '::before').content])"
    )
    assert flagged and all(mark == '"⚠ "' for _, mark in flagged)
    assert notes in [title for title, _ in flagged]
    assert watched.errors == []


@pytest.mark.parametrize("path", ["index.html", "explorer.html", "compare.html", "guide/01-inference.html"])
def test_a_phone_never_scrolls_sideways(browser: object, real_url: str, path: str) -> None:
    # 390 px (an iPhone 12-15): the header once held title, search, "Add your result" and the repository
    # link in one row and made every page 480 px wide; tables and charts scroll inside their own boxes
    watched = Watched(browser, width=390, height=844)
    page = watched.open(f"{real_url}/{path}")
    page.wait_for_timeout(500)
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    # and the header's items all fit: none past the right edge, the site's name not squeezed to "ll"
    past_edge = page.evaluate(
        """[...document.querySelectorAll('.md-header *')]
             .filter(e => e.getClientRects().length && getComputedStyle(e).visibility !== 'hidden')
             .filter(e => e.getBoundingClientRect().right > 390.5).map(e => e.className || e.tagName)"""
    )
    assert past_edge == []
    # the site's name gets the room its text needs ("llmbench" is about 75 px; squeezed, it was 14 px: "ll")
    title = page.locator(".md-header__title .md-header__topic").first
    needed = title.evaluate(
        "e => { const r = document.createRange(); r.selectNodeContents(e);"
        " return r.getBoundingClientRect().width }"
    )
    assert title.evaluate("e => e.clientWidth") >= min(needed, 60)
    watched.close()


@pytest.mark.parametrize(
    ("lang", "body", "why"),
    [
        ("en", None, "HTTP 404"),
        ("ko", '{"n": 3, "columns": {"run_id": ["a', "not JSON: a file cut short or not a data file"),
    ],
)
def test_the_explorer_says_so_when_its_runs_cannot_be_loaded(
    real_url: str, browser: object, lang: str, body: str | None, why: str
) -> None:
    """The explorer's data file missing (a 404) or cut short: the count line says the runs could not be
    loaded, naming the file and why, in the page's language, and each chart's "Loading chart…" line says
    it cannot be drawn, instead of loading for ever."""
    from site_gen import i18n

    ui = i18n.load(lang).section("ui")
    w = Watched(browser)
    try:
        asked: list[str] = []

        def fault(route: object) -> None:
            asked.append(route.request.url)
            route.fulfill(status=404) if body is None else route.fulfill(status=200, body=body)

        w.page.route("**/assets/data/runs.*.json", fault)
        w.page.goto(f"{real_url}/{'' if lang == 'en' else lang + '/'}explorer.html")
        w.page.wait_for_function("document.querySelector('.lb-count').textContent.length > 0")
        (src,) = asked
        error = f"could not load the page data {src} ({why})"
        assert w.page.text_content(".lb-count") == ui["dataFailed"].replace("{error}", error)
        statuses = w.page.eval_on_selector_all(".lb-chart > .lb-status", "ns => ns.map((n) => n.textContent)")
        assert statuses and statuses == [ui["chartError"] + error] * len(statuses)
        assert error in w.errors[-1]
    finally:
        w.close()


def test_compare_says_so_when_its_runs_cannot_be_loaded(real_url: str, browser: object) -> None:
    """Compare's data file missing (a 404): its chart's place names the file and why, instead of
    "Loading chart…" for ever."""
    from site_gen import i18n

    ui = i18n.load("en").section("ui")
    w = Watched(browser)
    try:
        asked: list[str] = []

        def fault(route: object) -> None:
            asked.append(route.request.url)
            route.fulfill(status=404)

        w.page.route("**/assets/data/*.json", fault)
        w.page.goto(f"{real_url}/compare.html")
        w.page.wait_for_selector(".lb-compare .lb-chart .lb-error")
        (src,) = asked
        want = ui["chartError"] + f"could not load the page data {src} (HTTP 404)"
        assert w.page.text_content(".lb-compare .lb-chart .lb-error") == want
        assert not w.page.locator(".lb-compare .lb-chart .lb-status:not(.lb-error)").count()
    finally:
        w.close()
