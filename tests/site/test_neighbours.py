"""A GPU page opens on its best figures beside its neighbours', a model page on its best GPUs (issue 26):
site_gen.pages.neighbours on hand-worked frames, and the fixture site's H200 and Llama 3.1 8B pages in a
real browser, English and Korean, phone and desktop."""

from __future__ import annotations

from urllib.parse import urlparse

import pandas as pd
import pytest

from site_gen.pages import neighbours
from tests.site.conftest import Watched


def _run(
    run_id: str, gpu: str, precision: str, workload: str, per_gpu: float, kind: str = "published"
) -> dict:
    return {
        "run_id": run_id, "gpu": gpu, "model_name": "Llama 8B", "precision": precision,
        "workload": workload, "output_tps_per_gpu": per_gpu, "source_kind": kind,
        "pct_of_bound": 50.0, "over_bound_note": None,
    }  # fmt: skip


# The module docstring's case: H200 at 16,000 per GPU; A100 at 7,000, 6,250 and 5,250 per GPU (TP 1, 2,
# 4); H200 alone at FP8; an estimate on B200.
DOCSTRING_CASE = [
    _run("h1", "H200", "FP16", "128/128", 16000.0),
    _run("h2", "H200", "FP8", "128/128", 28000.0),
    _run("a1", "A100", "FP16", "128/128", 7000.0),
    _run("a2", "A100", "FP16", "128/128", 6250.0),
    _run("a4", "A100", "FP16", "128/128", 5250.0),
    _run("e1", "B200", "FP16", "128/128", 99999.0, kind="modelled"),
]


def test_best_per_gpu_beside_the_same_model_precision_and_workload_elsewhere() -> None:
    """The module docstring's case: H200 16,000 per GPU; A100 7,000, 6,250 and 5,250 per GPU (TP 1, 2, 4)
    -> best 7,000. H200's FP8 row has no FP8 neighbour (A100 ran FP16 only): left out, never matched
    across precisions. An estimate (modelled) of 99,999 on B200 is no neighbour."""
    runs = pd.DataFrame(DOCSTRING_CASE)
    [row] = neighbours.rows(neighbours.index(runs), "H200")
    assert (row.model, row.precision, row.workload) == ("Llama 8B", "FP16", "128/128")
    assert row.mine == neighbours.Best("H200", 16000.0, "h1")
    assert row.neighbours == (neighbours.Best("A100", 7000.0, "a1"),)
    # and from A100's side the same pair, the other way round
    [back] = neighbours.rows(neighbours.index(runs), "A100")
    assert back.mine.run_id == "a1" and back.neighbours == (neighbours.Best("H200", 16000.0, "h1"),)
    assert neighbours.rows(neighbours.index(runs), "B200") == []  # estimates only: nothing measured


def test_ties_go_to_the_smaller_run_id_and_missing_values_are_a_group_of_their_own() -> None:
    """Only a group's top figure is sorted (the build's shortcut at a million runs): a tie inside a group
    still goes to the smaller run id, a tie across GPUs keeps both GPUs in id order, and a run without a
    workload is a configuration of its own, as sorting every run and keeping each group's first row gives."""
    runs = pd.DataFrame(
        [
            _run("b2", "B", "FP8", "1/1", 30.0),
            _run("b1", "B", "FP8", "1/1", 30.0),  # B's tie: b1 wins
            _run("b0", "B", "FP8", "1/1", 29.0),
            _run("a9", "A", "FP8", "1/1", 30.0),  # A ties B: both kept, a9 first by id
            _run("n2", "A", "FP8", None, 4.0),
            _run("n1", "B", "FP8", None, 5.0),
        ]
    )
    best = neighbours.index(runs)
    assert best[("Llama 8B", "FP8", "1/1")] == (
        neighbours.Best("A", 30.0, "a9"),
        neighbours.Best("B", 30.0, "b1"),
    )
    [missing] = [k for k in best if k != ("Llama 8B", "FP8", "1/1")]
    assert [b.run_id for b in best[missing]] == ["n1", "n2"]


def test_rows_with_more_neighbours_come_first_and_are_capped() -> None:
    runs = pd.DataFrame(
        [_run("x1", "X", "FP8", "1/1", 10.0), _run("y1", "Y", "FP8", "1/1", 20.0)]
        + [_run("x2", "X", "FP8", "2/2", 5.0)]
        + [_run(f"o{i}", f"G{i}", "FP8", "2/2", float(i + 1)) for i in range(5)]
    )
    rows = neighbours.rows(neighbours.index(runs), "X", top=1, neighbours=2)
    assert [r.workload for r in rows] == ["2/2"]  # five neighbours beat one
    assert [n.gpu for n in rows[0].neighbours] == ["G4", "G3"]  # best first, two kept


def test_a_model_page_lists_the_best_gpus_of_each_precision_and_workload_two_gpus_ran() -> None:
    """Llama 8B, hand-worked: FP16 2/2 on X (10), Y (20), Z (5) -> three GPUs, so it comes first, Y best;
    FP16 128/128 on H200 (16,000) and A100 (7,000, 6,250, 5,250 per GPU -> 7,000), the B200 estimate of
    99,999 no GPU of it; FP8 128/128 on H200 alone -> no row. Capped at two GPUs a row: Z left out."""
    three = [
        _run("x", "X", "FP16", "2/2", 10.0),
        _run("y", "Y", "FP16", "2/2", 20.0),
        _run("z", "Z", "FP16", "2/2", 5.0),
    ]
    runs = pd.DataFrame(DOCSTRING_CASE + three)
    rows = neighbours.model_rows(neighbours.index(runs), "Llama 8B", gpus=2)
    assert [(r.precision, r.workload) for r in rows] == [("FP16", "2/2"), ("FP16", "128/128")]
    assert [(b.gpu, b.value, b.run_id) for b in rows[0].gpus] == [("Y", 20.0, "y"), ("X", 10.0, "x")]
    assert [(b.gpu, b.value, b.run_id) for b in rows[1].gpus] == [
        ("H200", 16000.0, "h1"),
        ("A100", 7000.0, "a1"),
    ]
    assert neighbours.model_rows(neighbours.index(runs), "Llama 70B") == []


# What a GPU page and a model page open on, in the fixture (tests/site/conftest.py): Llama 3.1 8B FP16
# 128/128 on H200 at 16,000 on one GPU; on A100 at 7,000 (TP 1), 12,500 (TP 2), 21,000 (TP 4) over all
# GPUs -> 7,000 per GPU. H200's page: 16,000 / 7,000 = 2.29x; the model page: 7,000 / 16,000 = 0.44x.
# One row each: FP8 and 70B ran on H200 alone, so nothing is matched across precisions or models.
OPENINGS = {
    "gpu": (
        "generated/gpus/h200-sxm-141gb.html",
        ["Llama 3.1 8B · FP16 · 128/128", "16,000", "A100 SXM4 80GB 7,000 (2.29×)"],
        ("Best figures beside other GPUs", "다른 GPU와 나란히 본 최고 수치"),
    ),
    "model": (
        "generated/models/llama-3-1-8b.html",
        ["FP16 · 128/128", "H200 SXM 141GB 16,000", "A100 SXM4 80GB 7,000 (0.44×)"],
        ("Best GPUs for this model", "이 모델에 가장 빠른 GPU"),
    ),
}


@pytest.mark.browser
@pytest.mark.parametrize("kind", sorted(OPENINGS))
@pytest.mark.parametrize("lang", ["", "ko/"])
@pytest.mark.parametrize("size", [(390, 844), (1440, 900)])
def test_gpu_and_model_pages_open_on_their_answer(
    browser: object, fixture_url: str, kind: str, lang: str, size: tuple[int, int]
) -> None:
    """The table (``OPENINGS``) is the page's first, inside the first screen, its first figure on the
    screen, and each figure opens its run card."""
    path, want, headings = OPENINGS[kind]
    w = Watched(browser, *size)
    try:
        page = w.open(f"{fixture_url}/{lang}{path}")
        table = page.locator("article table").first
        cells = table.locator("tbody tr").first.locator("td").all_inner_texts()
        assert cells == want
        assert table.locator("tbody tr").count() == 1
        figure = table.locator("tbody tr").first.locator("td").nth(1).bounding_box()
        assert figure["x"] + figure["width"] <= size[0], "the first figure is off the screen"
        heading = page.locator("article h2").first.inner_text().rstrip("¶")  # toc permalink
        assert heading == headings[1 if lang else 0]
        top = table.bounding_box()["y"]
        assert top < size[1], f"the table starts at {top} px, below the first screen"
        page.locator("article table a").first.click()
        page.wait_for_function("document.querySelector('.lb-card-fields')", timeout=20_000)
        assert urlparse(page.url).path.endswith(f"/{lang}runs.html")
        assert w.errors == [] and w.external == []
    finally:
        w.close()


def test_gpu_pages_compare_links_put_the_older_gpu_first(real_site) -> None:
    """Every "Compare with" link of a GPU page asks as the Compare tab and presets do: the older GPU (the
    registry's year, then its order in bench/data/gpus.yaml) as A, so the answer reads "newer is N× older"
    on either GPU's page (the H200 page linked "A100 is 0.44× H200" before)."""
    import html
    import re
    from pathlib import Path
    from urllib.parse import parse_qs

    import yaml

    registry = yaml.safe_load(
        (Path(__file__).resolve().parents[2] / "bench/data/gpus.yaml").read_text("utf-8")
    )
    rank = {g["name"]: (g["year"], i) for i, g in enumerate(registry)}
    links = 0
    for page in (real_site / "site" / "generated" / "gpus").glob("*.html"):
        for query in re.findall(r'href="[^"]*compare\.html\?([^"]+)"', page.read_text("utf-8")):
            q = parse_qs(html.unescape(query))
            if q.get("by") != ["gpu"]:
                continue
            a, b = q["a"][0], q["b"][0]
            assert rank[a] < rank[b], (page.name, a, b)
            links += 1
    assert links, "no GPU page links to compare mode"
