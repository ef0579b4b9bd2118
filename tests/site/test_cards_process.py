"""The run cards encoded in another process (``Site.start_cards``, issue 29's build at 1M runs) are the
files the page process encodes itself: same keys, same bytes, and the run-card page names them."""

from __future__ import annotations

from pathlib import Path

from site_gen.charts.specs import ChartContext
from site_gen.data import queries
from site_gen.data.load import ingest
from site_gen.pages import markers
from tests.site.conftest import write_fixture_results


def _site(db: Path) -> markers.Site:
    runs = queries.site_runs(db)
    ctx = ChartContext(gpus=tuple(queries.gpu_names(db)), columns=frozenset(runs.columns))
    return markers.Site(runs=runs, ctx=ctx, db=db, site_url="https://example.org/llmbench/")


def test_cards_from_another_process_are_the_same_files(tmp_path: Path) -> None:
    write_fixture_results(tmp_path / "results")
    db = tmp_path / "llmbench.duckdb"
    ingest(tmp_path / "results", db)
    here, there = _site(db), _site(db)
    there.start_cards()
    assert there.cards is not None
    mine, theirs = here.card_files(), there.card_files()
    assert [f.key for f in mine] == [f.key for f in theirs] and mine
    assert all(a.text() == b.text() for a, b in zip(mine, theirs, strict=True))
    assert set(there.files) == {f"{f.key}.js" for f in theirs}
    page = markers.Page(there, "runs.html", "").expand("<!-- runcard -->")
    assert all(f"{f.key}.js" in page for f in theirs)


def test_card_part_array_is_card_part_for_every_id() -> None:
    """The vectorised FNV-1a gives ``card_part``'s partition (the page script's, tests/site/test_cards.py)
    for ids of every length, non-ASCII ones and the empty one included."""
    import random

    from site_gen.data import dataset

    rng = random.Random(29)
    alphabet = "0123456789abcdef-_é中\u2028"
    ids = [
        "",
        "0",
        "000000000000",
        *("".join(rng.choices(alphabet, k=rng.randint(1, 40))) for _ in range(5000)),
    ]
    for parts in (1, 7, 1000):
        assert dataset.card_part_array(ids, parts).tolist() == [dataset.card_part(i, parts) for i in ids]
    assert dataset.card_part_array([], 3).tolist() == []
