"""The run card (runs.html#<id>): reached from a table row and from a chart point, showing the run's
figures and settings as the fixture's result file gives them, its source and a prefilled issue link;
strings from the data shown as text, links only to web addresses."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import parse_qs, urlparse

import duckdb
import pytest

from tests.site.conftest import FIXTURE_COMMANDS, JS_URL, XSS, Watched

pytestmark = pytest.mark.browser


def card(page) -> dict[str, str]:
    """The card's fields: label -> shown value."""
    return page.evaluate(
        """() => Object.fromEntries([...document.querySelectorAll('.lb-card-fields dt')]
            .map(dt => [dt.textContent, dt.nextElementSibling.textContent]))"""
    )


def test_a_table_row_opens_its_run_card_with_the_result_files_figures(
    fixture_site: Path, fixture_url: str, watched: Watched
) -> None:
    # The fixture's H200 FP8 file: TP 2, 128/128, 50,000 output tokens/s over 2 GPUs (tests/site/conftest.py).
    page = watched.open(f"{fixture_url}/explorer.html?gpu=H200+SXM+141GB&precision=FP8&tp=2")
    links = page.eval_on_selector_all(".lb-card-link", "as => as.map(a => a.getAttribute('href'))")
    assert len(links) == 1 and links[0].startswith("runs.html#")
    page.click(".lb-card-link")
    page.wait_for_function("document.querySelector('.lb-card-fields')", timeout=20_000)
    fields = card(page)
    assert fields["Output tokens/s, all GPUs"] == "50,000"
    assert fields["Output tokens/s per GPU"] == "25,000"
    assert (fields["GPU"], fields["Tensor parallel (TP)"], fields["Weight precision"]) == (
        "H200 SXM 141GB",
        "2",
        "FP8",
    )
    assert (fields["Input length (ISL), tokens"], fields["Output length (OSL), tokens"]) == ("128", "128")
    assert (fields["Engine version"], fields["Publisher"]) == ("1.2.0", "Fixture Lab")
    assert fields["Result file"] == "a/20260115-h200.yaml"
    # the result file in the repository, and "report a mistake" prefilled with the run's id and card
    con = duckdb.connect(str(fixture_site / "llmbench.duckdb"), read_only=True)
    run_id = con.execute(
        "SELECT run_id FROM runs WHERE gpu = 'H200 SXM 141GB' AND precision = 'FP8' AND tp = 2"
    ).fetchone()[0]
    con.close()
    assert urlparse(page.url).fragment == run_id
    # the commands the source page gives, one per line, the markup in one of them shown as text
    commands = page.locator(".lb-card-fields dt:text-is('Commands the source page gives') + dd")
    assert commands.inner_text().split("\n") == [FIXTURE_COMMANDS[0], f"{FIXTURE_COMMANDS[1]} {XSS}"]
    # "cite this" (site_gen.data.cite): stored once per file as templates, shown with this run's id put in;
    # the permalink leads back to this very card
    cite = page.locator(".lb-card-fields dt:text-is('Plain text') + dd").inner_text()
    template = "Fixture Lab (2026-01-15). fixture Fixture Lab. llmbench run "
    assert cite.startswith(template + run_id + ": ") and "{run_id}" not in cite
    permalink = cite.split(": ", 1)[1].split()[0].rstrip(".")
    assert urlparse(permalink).path.endswith("/runs.html") and urlparse(permalink).fragment == run_id
    bibtex = page.locator(".lb-card-fields dt:text-is('BibTeX') + dd").inner_text()
    assert bibtex.startswith(f"@misc{{llmbench-{run_id},\n  author = {{{{Fixture Lab}}}},")
    file_link = page.get_attribute(".lb-card-fields a:text('a/20260115-h200.yaml')", "href")
    assert file_link.endswith("/blob/main/results/a/20260115-h200.yaml")
    report = urlparse(page.get_attribute(".lb-report", "href"))
    assert report.path.endswith("/issues/new")
    query = parse_qs(report.query)
    assert run_id in query["title"][0] and f"runs.html#{run_id}" in query["body"][0]
    assert watched.errors == [] and watched.external == []


def test_a_chart_point_opens_its_run_card(fixture_url: str, watched: Watched) -> None:
    page = watched.open(f"{fixture_url}/explorer.html?gpu=A100+SXM4+80GB")
    target = page.evaluate(
        """() => {
            const view = window.llmbench.charts()[0].view;
            const find = (n) => n.marktype === 'symbol' && n.role === 'mark' && n.items.length ? n.items[0]
                : (n.items || []).map(find).find(Boolean);
            const item = find(view.scenegraph().root);
            const box = view.container().querySelector('canvas').getBoundingClientRect();
            const [ox, oy] = view.origin();  // inside the padding
            const pad = view.padding();
            const x = box.left + pad.left + ox + item.x, y = box.top + pad.top + oy + item.y;
            return {x, y, id: item.datum.run_id};
        }"""
    )
    page.mouse.click(target["x"], target["y"])
    page.wait_for_function("document.querySelector('.lb-card-fields')", timeout=20_000)
    assert urlparse(page.url).fragment == target["id"]
    assert card(page)["GPU"] == "A100 SXM4 80GB"
    assert watched.errors == []


def test_the_card_shows_data_as_text_and_links_only_web_addresses(fixture_url: str, watched: Watched) -> None:
    page = watched.open(f"{fixture_url}/explorer.html?gpu=V100+SXM2+32GB")
    href = page.get_attribute(".lb-card-link", "href")
    page = watched.open(f"{fixture_url}/{href}")
    fields = card(page)
    assert fields["Publisher"] == XSS and fields["Model"] == XSS
    assert fields["URL"] == JS_URL
    assert page.locator(".lb-runcard a[href^='javascript']").count() == 0
    assert page.locator("img[src=x]").count() == 0
    assert watched.dialogs == [] and watched.errors == []


def test_an_unknown_id_says_so(fixture_url: str, watched: Watched) -> None:
    page = watched.open(f"{fixture_url}/runs.html#000000000000")
    assert "No run has the id “000000000000”" in page.text_content(".lb-runcard")


def test_the_korean_card_is_in_korean(fixture_url: str, watched: Watched) -> None:
    """Titles and labels come from the catalogue (``card.*``): every one of them in Korean where Korean
    has its own words, the data as it is."""
    from site_gen import i18n

    ko = i18n.load("ko")
    page = watched.open(f"{fixture_url}/ko/explorer.html?gpu=H200+SXM+141GB&precision=FP8&tp=2")
    href = page.get_attribute(".lb-card-link", "href")
    page = watched.open(f"{fixture_url}/ko/{href}")
    page.wait_for_function("document.querySelector('.lb-card-fields')", timeout=20_000)
    fields = card(page)
    assert fields[ko.t("card.fields.output_tps")] == "50,000"
    assert fields[ko.t("card.fields.gpu")] == "H200 SXM 141GB"
    titles = page.eval_on_selector_all(".lb-runcard h3", "hs => hs.map(h => h.textContent)")
    assert ko.t("card.sections.result") in titles and "Result" not in titles
    en = i18n.load("en")
    same = [f for f in ko.messages if f.startswith("card.") and ko.t(f) == en.t(f) and f not in ko.kept]
    assert same == []  # a label left in English is kept on purpose (names: GPU, URL, max_batch_size ...)
    assert set(fields) <= {ko.t(f) for f in ko.messages if f.startswith("card.fields.")}
    assert watched.errors == []
