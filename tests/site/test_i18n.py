"""The Korean edition (issue 16): catalogues complete, every English page under /ko/, no English UI string
from the catalogue on a Korean page, Korean search, and the Korean explorer in Chromium."""

from __future__ import annotations

import csv
import html
import json
import re
import shutil
from html.parser import HTMLParser
from pathlib import Path

import pytest
import yaml

from site_gen import i18n
from tests.site.conftest import ROOT, Watched, chosen
from tests.site.test_mlperf_pages import figure

SHOTS = ROOT / "build" / "screenshots"


# ---- the catalogues -------------------------------------------------------------------------------


def test_every_language_has_every_key_and_placeholder() -> None:
    assert i18n.languages()[0] == "en" and "ko" in i18n.languages()
    for lang in i18n.languages():
        assert i18n.check(lang) == [], lang


def test_a_korean_string_left_in_english_is_kept_on_purpose() -> None:
    """The page tests skip a Korean string equal to its English one (GPU, TP ...), so an English string
    pasted into ko.yaml would pass them: it must be listed under ``kept``."""
    en, ko = i18n.load("en"), i18n.load("ko")
    same = {
        k
        for k, text in en.messages.items()
        if ko.messages.get(k) == text and i18n.english_words(re.sub(r"\{\w+\}", "", text))
    }
    assert sorted(same - ko.kept) == []


def test_a_missing_key_or_placeholder_is_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for f in i18n.DIR.glob("*.yaml"):
        shutil.copy(f, tmp_path / f.name)
    ko = yaml.safe_load((tmp_path / "ko.yaml").read_text(encoding="utf-8"))
    del ko["ui"]["reset"]
    ko["ui"]["count"] = "실행 {total}개 중 {m}개"  # {n} misspelt
    (tmp_path / "ko.yaml").write_text(yaml.safe_dump(ko, allow_unicode=True), encoding="utf-8")
    monkeypatch.setattr(i18n, "DIR", tmp_path)
    i18n.load.cache_clear()
    try:
        assert i18n.check("ko") == [
            "ko.yaml: missing key ui.reset",
            "ko.yaml: ui.count: placeholders ['m', 'total'], expected ['n', 'total']",
        ]
    finally:
        i18n.load.cache_clear()


def test_a_third_language_is_a_new_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for f in i18n.DIR.glob("*.yaml"):
        shutil.copy(f, tmp_path / f.name)
    shutil.copy(tmp_path / "en.yaml", tmp_path / "de.yaml")
    monkeypatch.setattr(i18n, "DIR", tmp_path)
    i18n.load.cache_clear()
    try:
        assert i18n.languages() == ["en", "de", "ko"]
        assert i18n.check("de") == []
        assert i18n.load("de").js().startswith("window.LLMBENCH_I18N={")
    finally:
        i18n.load.cache_clear()


def test_the_page_script_catalogue_cannot_close_its_script() -> None:
    js = i18n.load("ko").js()
    assert "</" not in js
    assert json.loads(js[len("window.LLMBENCH_I18N=") : -2])["ui"]["count"] == "실행 {total}개 중 {n}개"


# ---- the built site -----------------------------------------------------------------------------


def _pages(site: Path) -> set[str]:
    return {p.relative_to(site).as_posix() for p in site.rglob("*.html")}


def test_every_english_page_has_a_korean_page(real_site: Path) -> None:
    site = real_site / "site"
    pages = _pages(site)
    english = {p for p in pages if not p.startswith("ko/")} - {"404.html"}
    korean = {p.removeprefix("ko/") for p in pages if p.startswith("ko/")}
    assert len(english) > 60  # the hand-written, view, GPU, model and MLPerf pages
    assert english - korean == set()
    assert korean - english == set()
    assert '<html lang="ko"' in (site / "ko/explorer.html").read_text(encoding="utf-8")
    assert '<html lang="en"' in (site / "explorer.html").read_text(encoding="utf-8")


# The classes of the elements llmbench's templates and the MLPerf page emit (the widgets the catalogue's
# words go into); a hand-written page's own HTML (e.g. the home page's lb-home-views) is its writer's text.
WIDGETS = {
    c
    for f in [
        *(ROOT / "site_gen/templates").glob("*.j2"),
        ROOT / "site_gen/theme/partials/source.html",
        ROOT / "site_gen/pages/mlperf_pages.py",
    ]
    for attr in re.findall(r'class="([^"{]*)"', f.read_text(encoding="utf-8"))
    for c in attr.split()
    if c.startswith(("lb-", "mlperf"))
}
# The page scripts' words (assets/i18n/<lang>.js): they appear only once the script has run, so the
# built HTML is not checked for them; Chromium is (the explorer, the MLPerf page).
SCRIPT_KEYS = ("ui.", "mlperf_ui.")


class _Widgets(HTMLParser):
    """The text and the UI attributes of llmbench's widgets (elements of the templates' ``lb-`` classes):
    what the catalogue supplies; the page's own prose is left out."""

    def __init__(self) -> None:
        super().__init__()
        self.depth = 0  # > 0 inside a widget
        self.caption = 0  # the depth of the figcaption being read, 0 outside one
        self.strings: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "figcaption" and self.depth:  # a marker's caption is the page writer's text
            self.depth += 1
            self.caption = self.depth
            return
        inside = self.depth > 0 or bool(WIDGETS & set((a.get("class") or "").split()))
        if inside and tag not in ("br", "img", "input", "meta", "link"):
            self.depth += 1
        if not inside:
            return
        for name in ("aria-label", "title"):
            if a.get(name):
                self.strings.append(a[name])
        for name in ("data-lb-dims", "data-lb-table", "data-lb-config", "data-lb-spec"):
            if a.get(name):
                self.strings += _ui_strings(json.loads(html.unescape(a[name])))

    def handle_endtag(self, tag: str) -> None:
        if self.depth:
            if self.depth == self.caption:
                self.caption = 0
            self.depth -= 1

    def handle_data(self, data: str) -> None:
        if self.depth and not self.caption and data.strip():
            self.strings.append(data.strip())


def _ui_strings(tree: object, key: str = "", parent: str = "") -> list[str]:
    """The strings of a widget's JSON a reader sees: labels, help, titles, compare mode's words, an
    input's label (a chart's ``bind.name``) and the text a chart computes (``calculate``, e.g. a note)."""
    if isinstance(tree, dict):
        # compiled to Vega at build time (site_gen/charts/vega_compile.py): a calculate is a formula's expr
        formula = (
            [tree["expr"]] if tree.get("type") == "formula" and isinstance(tree.get("expr"), str) else []
        )
        return formula + [s for k, v in tree.items() for s in _ui_strings(v, k, key)]
    if isinstance(tree, list):
        return [s for v in tree for s in _ui_strings(v, key, parent)]
    if isinstance(tree, str) and (
        key in ("label", "help", "title", "calculate") or parent == "ui" or (parent, key) == ("bind", "name")
    ):
        return [tree]
    return []


def _english_left(strings: list[str], keys: tuple[str, ...] = ()) -> list[str]:
    """The English catalogue strings (of the keys starting with ``keys``; all but the page scripts' when
    empty) found among ``strings``, where Korean has its own words."""
    en, ko = i18n.load("en"), i18n.load("ko")
    found = []
    for key, text in en.messages.items():
        if (
            key in ko.kept
            or (key.startswith(keys) if keys else key.startswith(SCRIPT_KEYS))
            or text == ko.messages[key]
            or not i18n.english_words(text)
        ):
            continue
        if any(s == text or (len(text) > 12 and text in s) for s in strings):
            found.append(f"{key}: {text}")
    return found


def test_no_english_ui_string_from_the_catalogue_on_a_korean_page(real_site: Path) -> None:
    site = real_site / "site"
    checked = set()
    for path in sorted((site / "ko").rglob("*.html")):
        parser = _Widgets()
        parser.feed(path.read_text(encoding="utf-8"))
        assert _english_left(parser.strings) == [], path
        if parser.strings:
            checked.add(path.relative_to(site / "ko").as_posix())
    assert len(checked) > 50  # the explorer, views, GPU and model pages, compare, home
    assert {"generated/mlperf/index.html", "latency.html", "generated/views/latency-pareto.html"} <= checked


def test_korean_pareto_chart_has_no_english_word_but_the_technical_terms(real_site: Path) -> None:
    """The latency pages' chart (docs/latency.ko.md's and the view's): every title, input label and
    computed text is Korean, but for the terms the Korean catalogue keeps in English (GPU, TP, ISL/OSL,
    TTFT/TPOT, units); the catalogue's Korean words are there."""
    ko = i18n.load("ko")
    for page in ("latency.html", "generated/views/latency-pareto.html"):
        text = (real_site / "site/ko" / page).read_text(encoding="utf-8")
        specs = [json.loads(html.unescape(m)) for m in re.findall(r'data-lb-spec="([^"]*)"', text)]
        strings = [s for spec in specs for s in _ui_strings(spec)]
        assert len(strings) > 10, page
        # a computed field's words are its quoted strings (the rest is Vega's expression language)
        shown = [
            q for s in strings for q in (re.findall(r"'((?:[^'\\]|\\.)*)'", s) if "datum." in s else [s])
        ]
        words = {w for s in shown for w in re.findall(r"[A-Za-z]{3,}", s)}
        assert words <= {"GPU", "ISL", "OSL", "TTFT", "TPOT"}, (page, words)
        joined = " ".join(strings)
        for key in (
            "series",
            "interactivity_line2",
            "cost_derived",
            "price_input",
            "peak_only_note",
            "peak_only_note2",
        ):
            assert ko.t(f"chart.{key}") in joined, (page, key)


def test_every_nav_label_has_a_korean_label() -> None:
    class _Loader(yaml.SafeLoader):
        pass

    _Loader.add_multi_constructor("", lambda loader, suffix, node: None)  # !ENV and python tags
    config = yaml.load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"), Loader=_Loader)

    def labels(items: list) -> list[str]:
        out = []
        for item in items:
            if isinstance(item, dict):
                for label, value in item.items():
                    out.append(label)
                    if isinstance(value, list):
                        out += labels(value)
        return out

    plugin = next(p["i18n"] for p in config["plugins"] if isinstance(p, dict) and "i18n" in p)
    ko = next(lang for lang in plugin["languages"] if lang["locale"] == "ko")
    assert sorted(set(labels(config["nav"])) - set(ko["nav_translations"])) == []


def test_generated_korean_pages_are_in_korean(real_site: Path) -> None:
    ko = i18n.load("ko")
    site = real_site / "site/ko/generated"
    text = (site / "views/tp-scaling.html").read_text(encoding="utf-8")
    assert ko.t("views.tp-scaling.title") in text and ko.t("pages.view_intro") in text
    gpus = (site / "gpus/index.html").read_text(encoding="utf-8")
    assert ko.t("pages.col_runs") in gpus and ko.t("pages.gpus_intro") in gpus
    spec = re.search(r'data-lb-spec="([^"]*)"', text)
    assert spec and ko.t("chart.tp_size") in html.unescape(spec.group(1))
    explorer = (real_site / "site/ko/explorer.html").read_text(encoding="utf-8")
    assert ko.t("widgets.explorer_gpu_caption") in explorer  # captions are skipped by the test above
    assert f">{ko.t('widgets.add_result')}</a>" in explorer


def test_search_index_holds_korean_pages_and_the_korean_pipeline(real_site: Path) -> None:
    """The Korean edition's own index (site_gen/site/search_index.py splits the i18n plugin's merged one)
    holds the Korean pages with lunr's Korean pipeline; the English index holds none of them."""
    index = json.loads((real_site / "site/ko/search/search_index.json").read_text(encoding="utf-8"))
    assert "ko" in index["config"]["lang"]
    korean = [d for d in index["docs"] if d["location"].startswith("ko/")]
    assert korean and len(korean) == len(index["docs"])
    assert any("처리량" in d["text"] or "처리량" in d["title"] for d in korean)
    english = json.loads((real_site / "site/search/search_index.json").read_text(encoding="utf-8"))
    assert not [d for d in english["docs"] if d["location"].startswith("ko/")]


# ---- Chromium ---------------------------------------------------------------------------------


@pytest.fixture
def desk(browser: object) -> Watched:
    w = Watched(browser, 1440, 900)
    yield w
    w.close()


@pytest.mark.browser
def test_korean_explorer_filters_renders_and_switches_language_with_its_state(
    real_url: str, desk: Watched
) -> None:
    ko = i18n.load("ko")
    page = desk.open(f"{real_url}/ko/explorer.html")
    count = page.text_content(".lb-count")
    m = re.fullmatch(r"실행 ([\d,]+)개 중 ([\d,]+)개", count or "")
    assert m and m.group(1) == m.group(2), count  # every run at first
    assert page.text_content(".lb-download") == ko.t("widgets.download_csv")
    assert ko.t("table.output_tps_per_gpu.label") in page.eval_on_selector_all(
        ".lb-table thead th", "ths => ths.map(t => t.textContent)"
    )
    marks = page.evaluate("window.llmbench.countMarks(window.llmbench.charts()[0].view.scenegraph().root)")
    assert marks > 100
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "ko-explorer-1440.png"))

    # one value of one filter: fewer runs, said in Korean
    page.click('.lb-filter[data-dim="gpu"] .lb-filter-button')
    before = page.evaluate("document.querySelector('.lb-scope').dataset.lbRendered")
    page.check('.lb-filter[data-dim="gpu"] input[value="H200 SXM 141GB"]')
    page.wait_for_function(f"document.querySelector('.lb-scope').dataset.lbRendered !== '{before}'")
    after = re.fullmatch(r"실행 ([\d,]+)개 중 ([\d,]+)개", page.text_content(".lb-count") or "")
    assert after and int(after.group(2).replace(",", "")) < int(after.group(1).replace(",", ""))
    assert "gpu=H200" in page.url

    # the language switch: the same explorer in English, same filters, then back
    query = page.url.split("?", 1)[1]
    page.click(".md-header__option .md-select button")  # opens the language list
    with page.expect_navigation():
        page.click('a.md-select__link[hreflang="en"]')
    page.wait_for_function("document.body && document.body.dataset.lbReady", timeout=20_000)
    assert page.url == f"{real_url}/explorer.html?{query}"
    assert page.evaluate("document.documentElement.lang") == "en"
    assert chosen(page, "gpu") == ["H200 SXM 141GB"]
    assert re.fullmatch(r"[\d,]+ of [\d,]+ runs", page.text_content(".lb-count") or "")
    page.click(".md-header__option .md-select button")
    with page.expect_navigation():
        page.click('a.md-select__link[hreflang="ko"]')
    page.wait_for_function("document.body && document.body.dataset.lbReady", timeout=20_000)
    assert page.url == f"{real_url}/ko/explorer.html?{query}"
    assert desk.errors == [] and desk.external == []


@pytest.mark.browser
def test_korean_home_switches_to_english_and_back(real_url: str, desk: Watched) -> None:
    page = desk.open(f"{real_url}/ko/index.html")
    links = page.eval_on_selector_all("a.md-select__link", "as => as.map(a => [a.hreflang, a.href])")
    assert links == [["en", f"{real_url}/index.html"], ["ko", f"{real_url}/ko/index.html"]]
    page.click(".md-header__option .md-select button")
    with page.expect_navigation():
        page.click('a.md-select__link[hreflang="en"]')
    assert page.url == f"{real_url}/index.html"
    page.wait_for_function("document.body && document.body.dataset.lbReady", timeout=20_000)
    page.click(".md-header__option .md-select button")
    with page.expect_navigation():
        page.click('a.md-select__link[hreflang="ko"]')
    assert page.url == f"{real_url}/ko/index.html"
    assert page.evaluate("document.documentElement.lang") == "ko"


@pytest.mark.browser
@pytest.mark.parametrize("path", ["index.html", "ko/explorer.html", "ko/guide/01-inference.html"])
def test_a_page_fetches_the_sitemap_once_for_instant_navigation_only(
    real_url: str, desk: Watched, path: str
) -> None:
    """Material's bundle fetches and parses sitemap.xml beside every <link rel=alternate> (its own
    language switch, which state/url.js replaces): the homes are named otherwise, so only instant
    navigation's fetch of the root's sitemap is left (issue 26: two 64 KB XML parses less per page)."""
    sitemaps: list[str] = []
    desk.page.on("request", lambda r: r.url.split("?")[0].endswith("sitemap.xml") and sitemaps.append(r.url))
    page = desk.open(f"{real_url}/{path}")
    page.wait_for_load_state("networkidle")
    assert sitemaps == [f"{real_url}/sitemap.xml"]
    assert page.eval_on_selector_all("link[rel=alternate][hreflang]", "ls => ls.length") == 0
    homes = page.eval_on_selector_all("head link[rel=lb-language]", "ls => ls.map(l => [l.hreflang, l.href])")
    assert homes == [["en", f"{real_url}/index.html"], ["ko", f"{real_url}/ko/index.html"]]
    assert desk.errors == []


@pytest.mark.browser
def test_searching_a_korean_word_on_the_korean_site_finds_pages(real_url: str, desk: Watched) -> None:
    page = desk.open(f"{real_url}/ko/index.html")
    page.click("input.md-search__input")  # in the header at 1440 px
    # playwright inserts Hangul as text without key events; a Korean IME sends a keyup with the last
    # stroke (Material searches on keyup), here the End key's
    page.keyboard.type("처리량")
    page.keyboard.press("End")
    page.wait_for_selector(".md-search-result__item", timeout=20_000)
    items = page.eval_on_selector_all(".md-search-result__item", "xs => xs.map(x => x.textContent)")
    assert items and any("처리량" in t for t in items)
    page.screenshot(path=str(SHOTS / "ko-search-1440.png"))


@pytest.mark.browser
def test_korean_mlperf_page_renders_in_korean_with_mlcommons_english_notices(
    real_url: str, desk: Watched
) -> None:
    """The MLPerf page's script in Korean: count, bars, footnote and exported image, no English string of
    the catalogue left, while the trademark legend and the verified sentence stay MLCommons' English
    (with the Korean gloss) and the result IDs, division and round names stay as imported (CSV)."""
    from site_gen.pages.mlperf_pages import TRADEMARK, VERIFIED
    from tests.site.test_mlperf_pages import RESULTS_CSV, _svg_text

    with RESULTS_CSV.open(encoding="utf-8", newline="") as f:
        rows = [r for r in csv.DictReader(f) if r["accelerator"] != "N/A"]
    ko = i18n.load("ko")
    page = desk.open(f"{real_url}/ko/generated/mlperf/index.html")
    page.wait_for_selector("[data-mlperf][data-rendered]")
    want = sum(
        (r["division"], r["benchmark"], r["scenario"]) == ("closed", "llama2-70b-99", "Offline") for r in rows
    )
    count = page.text_content("[data-mlperf-count]")
    assert count == ko.t("mlperf_ui.count", n=want, total=f"{len(rows):,}", division="closed")
    by_id = {
        r["result_id"]: r for r in rows if (r["benchmark"], r["scenario"]) == ("llama2-70b-99", "Offline")
    }
    bars = page.locator("[data-mlperf-chart] g.mlperf-bar")
    assert bars.count() >= 5
    for bar in bars.all():
        rid, text = bar.get_attribute("data-rid"), " ".join(bar.locator("text").all_text_contents())
        for part in (rid, by_id[rid]["submitter"], by_id[rid]["round"], figure(by_id[rid]["value"])):
            assert part in text, (part, text)
        assert "토큰/초" in text and "결과 ID" in text
    caption = page.text_content("[data-mlperf-chart-footnote]")
    exported = _svg_text(page.evaluate("window.mlperfPage.exportSvg()"))
    for text in (caption, exported):
        for part in (VERIFIED, ko.t("mlperf.verified_gloss"), TRADEMARK, ko.t("mlperf.trademark_gloss"),
                     "MLPerf® Inference Datacenter", "v4.1, v5.1, v6.0", "closed 부문", "llama2-70b-99",
                     "Offline", "2026-11-30", "MLPerf® Inference 지표가 아닙니다"):  # fmt: skip
            assert part in " ".join(text.split()), part
        assert all(b.get_attribute("data-rid") in text for b in bars.all())
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "ko-mlperf-1440.png"))
    # the per-accelerator measure and the open division, then every word the script wrote
    page.select_option("[data-mlperf-measure]", "acc")
    assert "가속기당" in bars.first.locator("text").first.text_content()
    page.select_option('[data-mlperf-filter="division"]', "open")
    page.evaluate("window.mlperfPage.drawAll()")  # the table of every result, drawn as it nears the screen
    shown = page.evaluate(
        """() => [...document.querySelectorAll('[data-mlperf] *, [data-mlperf-footnote] *')]
          .map((e) => [...e.childNodes].filter((n) => n.nodeType === 3).map((n) => n.textContent))
          .map((texts) => texts.join("").trim())
          .filter(Boolean)"""
    )
    shown += [_svg_text(page.evaluate("window.mlperfPage.exportSvg()"))]
    shown += page.eval_on_selector_all("[data-mlperf] [aria-label]", "xs => xs.map(x => x.ariaLabel)")
    assert _english_left(shown, ("mlperf",)) == []
    assert _english_left(shown, ("ui.",)) == []
    assert any(ko.t("mlperf_ui.downloadSvg") == s for s in shown)
    assert desk.errors == [] and desk.external == []
