"""A run's bound note on the site, in English and Korean (issues 24 item 11, 30): a run on a GPU whose
vendor publishes no dense tensor TFLOP/s (Jetson AGX Orin: gpus.yaml leaves them null) is shown, its
% of bound "unknown" with the reason; a run the bound may be low for (speculative decoding: "MTP" in its
notes) shows its % marked with " *" and the reason; a plain run shows a plain %.

The site is built from three result files of this test (ingest -> generate -> mkdocs build --strict).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import duckdb
import pytest

from bench.contract import bound, registry
from bench.contract.resultfile import write_file
from site_gen import i18n
from tests.site.conftest import Watched, build, free_port, result, run, serve

pytestmark = pytest.mark.browser

L8 = "meta-llama/Llama-3.1-8B-Instruct"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    work = tmp_path_factory.mktemp("bound-notes")
    orin = registry.gpus().get("Jetson AGX Orin 64GB")
    assert bound.peak_tflops(orin.tflops_dense, "FP16") is None  # the case of the test
    mtp = {**run(1, 128, 2048, 9000.0), "notes": "trtllm-bench, MTP 3 layers"}
    files = {
        "a/orin.yaml": result(orin.name, L8, "FP16", "Edge Lab", "1.2.0", [run(1, 128, 128, 12.0)]),
        "a/h200.yaml": result(
            "H200 SXM 141GB", L8, "FP8", "Edge Lab", "1.2.0", [run(1, 128, 128, 20000.0), mtp]
        ),
    }
    for name, res in files.items():
        write_file(res, work / "results" / name)
    port = free_port()
    build(work / "results", work, port=port)
    url, server = serve(work / "site", port)
    yield url, work
    server.shutdown()


def _pct_cells(page) -> dict[str, tuple[str, str]]:
    """Run id (the run card link's text) -> (% of bound cell as seen, its title), for every explorer row."""
    return page.evaluate(
        """() => {
            const head = [...document.querySelectorAll('.lb-table thead th')].map(t => t.textContent);
            const pct = head.findIndex(h => h.includes('%'));
            // the text a reader sees: the cell's own and the mark its CSS adds after it
            const after = (td) => getComputedStyle(td, '::after').content;
            const seen = (td) => td.textContent + after(td).replace(/^none$/, '').replace(/^"(.*)"$/, '$1');
            return Object.fromEntries([...document.querySelectorAll('.lb-table tbody tr:not(.lb-spacer)')]
                .map(tr => [tr.querySelector('.lb-card-link').textContent,
                            [seen(tr.cells[pct]), tr.cells[pct].title]]));
        }"""
    )


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_the_explorer_says_unknown_and_marks_a_bound_that_may_be_low(
    site: tuple[str, Path], watched: Watched, lang: str
) -> None:
    url, work = site
    cat = i18n.load(lang).messages
    page = watched.open(f"{url}/{'' if lang == 'en' else 'ko/'}explorer.html")
    cells = _pct_cells(page)
    assert len(cells) == 3, cells
    con = duckdb.connect(str(work / "llmbench.duckdb"), read_only=True)
    runs = {r[0]: r[1:] for r in con.execute("SELECT run_id, output_tps, pct_of_bound FROM runs").fetchall()}
    assert set(cells) == set(runs)
    for run_id, (tps, pct) in runs.items():
        text, title = cells[run_id]
        if tps == 12.0:  # Jetson AGX Orin: no bound
            assert (text, title) == (cat["ui.boundUnknown"], cat["ui.boundNote_unknown-peak"])
        elif tps == 9000.0:  # MTP: the bound may be low for it
            assert text.endswith(" *") and title == cat["ui.boundNote_speculative"], (text, title)
            assert float(text[:-2].replace(",", "")) == pytest.approx(pct, abs=0.5)
        else:
            assert title == "" and float(text.replace(",", "")) == pytest.approx(pct, abs=0.5)
    assert watched.errors == []


def test_the_run_card_gives_the_reason(site: tuple[str, Path], watched: Watched) -> None:
    url, work = site
    con = duckdb.connect(str(work / "llmbench.duckdb"), read_only=True)
    [(run_id,)] = con.execute("SELECT run_id FROM runs WHERE gpu LIKE 'Jetson%'").fetchall()
    page = watched.open(f"{url}/runs.html#{run_id}")
    page.wait_for_function("document.querySelector('.lb-card-fields')", timeout=20_000)
    fields = page.evaluate(
        """() => Object.fromEntries([...document.querySelectorAll('.lb-card-fields dt')]
            .map(dt => [dt.textContent, dt.nextElementSibling.textContent]))"""
    )
    assert fields["About the bound"] == i18n.load("en").messages["ui.boundNote_unknown-peak"]
    assert "% of speed-of-light bound" not in fields  # no figure to show
    assert watched.errors == []
