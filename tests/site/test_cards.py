"""Run cards in partitions (issue 29): a card loads the one file holding its run, never every card.

The partition of a run is FNV-1a (32 bit) of its id's UTF-8 bytes modulo the partition count, in Python
(``site_gen.data.dataset.card_part``, the build) and in the browser (``docs/assets/js/data/cards.js``): both
run here on the same ids. The partitions' sizes are measured on a synthetic data set
(``tests.perf.bench_site.synthetic_results``); the browser opens cards of the real site.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import zlib
from pathlib import Path

import duckdb
import pytest

from site_gen.data import dataset, queries
from site_gen.data.load import ingest
from tests.site.conftest import Watched

JS = Path(__file__).resolve().parents[2] / "docs" / "assets" / "js"
IDS = ["a", "run-1", "한국어-런", "", "x" * 300, "20260115-h200/0001", "emoji 🚀 id", "\u2028"]


def test_fnv1a_hand_worked() -> None:
    # FNV-1a 32 of "a": (0x811C9DC5 ^ 0x61) * 0x01000193 mod 2^32 = 0xE40C292C (the published test vector)
    assert dataset.card_part("a", 2**32) == 0xE40C292C
    assert dataset.card_part("", 2**32) == 0x811C9DC5  # the offset basis, nothing hashed


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
@pytest.mark.parametrize("parts", [1, 2, 7, 1000, 2**32])
def test_the_page_script_finds_the_partition_the_build_wrote(tmp_path: Path, parts: int) -> None:
    shutil.copy(JS / "data" / "cards.js", tmp_path / "cards.mjs")
    driver = tmp_path / "drive.mjs"
    driver.write_text(
        "import { cardPart } from './cards.mjs';\n"
        f"process.stdout.write(JSON.stringify({json.dumps(IDS)}.map((id) => cardPart(id, {parts}))));\n"
    )
    proc = subprocess.run(["node", str(driver)], capture_output=True, text=True, timeout=30)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == [dataset.card_part(i, parts) for i in IDS]


def test_card_partitions_hold_each_run_once_and_stay_small(tmp_path: Path) -> None:
    from tests.perf.bench_site import synthetic_results

    synthetic_results(tmp_path / "results", runs=5000)
    # The generator's figures (up to 50,100 tokens/s) exceed the speed-of-light bound of the smaller GPUs,
    # which ingest refuses: scaled down, every run stays distinct (its configuration, not its figure).
    for path in (tmp_path / "results").rglob("*.yaml"):
        text = re.sub(
            r"output_tokens_per_s: ([\d.]+)",
            lambda m: f"output_tokens_per_s: {float(m[1]) / 1000:.3f}",
            path.read_text(),
        )
        path.write_text(text)
    db = tmp_path / "llmbench.duckdb"
    ingest(tmp_path / "results", db)
    con = duckdb.connect(str(db), read_only=True)
    ids = [r[0] for r in con.execute("SELECT run_id FROM runs").fetchall()]
    con.close()
    assert len(ids) == 5000
    parts = dataset.card_parts(len(ids))
    assert parts == 5  # 1,000 runs a part
    enc = dataset.PartitionedEncoder(parts)
    for batch in queries.run_detail_batches(db, rows=700, arrow=dataset.arrow_types):
        enc.add(batch)
    files = enc.finish("cards")
    held = {}
    for i, f in enumerate(files):
        text = f.text()
        payload = json.loads(text)
        col = payload["columns"]["run_id"]
        for code in col["codes"]:
            held.setdefault(col["dict"][code], []).append(i)
        # every run where the page script will look for it; a part well under 1 MB (about 0.4 MB), and
        # its size set by CARDS_PER_PART, not by the data set's size (so at a million runs too)
        assert all(dataset.card_part(col["dict"][c], parts) == i for c in col["codes"])
        assert len(text.encode()) < 1_000_000, (f.key, len(text.encode()))
    assert sorted(held) == sorted(ids) and all(len(v) == 1 for v in held.values())
    whole = dataset.Encoder()
    for batch in queries.run_detail_batches(db, rows=700, arrow=dataset.arrow_types):
        whole.add(batch)
    one = len(whole.finish("cards").text().encode())
    biggest = max(len(f.text().encode()) for f in files)
    assert biggest < one / 3  # a card costs a fifth of the whole file here, 1/1000 at a million runs
    assert len(zlib.compress(files[0].text().encode())) < 200_000


def test_a_card_loads_only_its_partition(real_site: Path, real_url: str, watched: Watched) -> None:
    con = duckdb.connect(str(real_site / "llmbench.duckdb"), read_only=True)
    ids = [r[0] for r in con.execute("SELECT run_id FROM runs ORDER BY run_id").fetchall()]
    con.close()
    html = (real_site / "site" / "runs.html").read_text(encoding="utf-8")
    files = sorted((real_site / "site" / "assets" / "data").glob("cards-*.json"))
    parts = dataset.card_parts(len(ids))
    assert len(files) == parts >= 2 and "cards-0." in html
    first = ids[0]
    other = next(i for i in ids if dataset.card_part(i, parts) != dataset.card_part(first, parts))
    requests: list[str] = []
    watched.page.on("request", lambda r: requests.append(r.url))
    page = watched.open(f"{real_url}/runs.html#{first}")
    page.wait_for_selector(".lb-card-id code")
    assert page.text_content(".lb-card-id code") == first
    cards = [u for u in requests if re.search(r"/cards-\d+\.", u)]
    assert len(cards) == 1 and f"/cards-{dataset.card_part(first, parts)}." in cards[0]
    page.evaluate(f"location.hash = {json.dumps('#' + other)}")
    page.wait_for_function(f"document.querySelector('.lb-card-id code')?.textContent === {json.dumps(other)}")
    cards = [u for u in requests if re.search(r"/cards-\d+\.", u)]
    assert len(cards) == 2 and f"/cards-{dataset.card_part(other, parts)}." in cards[1]
    assert watched.errors == []
