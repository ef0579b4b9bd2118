"""``llmbench ingest`` with the database's folder on a full file system (issue 11): exit 1 with one line
naming the database and the full disk, no traceback, the previous database byte-identical and readable
(12 runs, counted by DuckDB), and no temporary file (``.<db>.<pid>.tmp``, its ``.wal``) left.

Two moments: the disk full before the ingest starts (the new file's first block fails), and room for the
new file's header and first blocks but not the whole file (512 KiB free; the new database of results/ takes
about 1.8 MB, measured in the fixture), so it fails part-way through the write.
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
from pathlib import Path

import duckdb
import pytest

from tests.faults.checks import LLMBENCH, digests, one_error_line
from tests.site.conftest import write_fixture_results

ROOT = Path(__file__).resolve().parents[2]
DB = "llmbench.duckdb"


def runs(db: Path) -> tuple[int, int]:
    with duckdb.connect(str(db), read_only=True) as con:
        return con.execute("SELECT count(*), (SELECT runs FROM meta) FROM runs").fetchone()


@pytest.fixture(scope="module")
def stores(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path | int]:
    """The previous database (12 fixture runs) in seed/, and results/ (all of it) to ingest over it."""
    work = tmp_path_factory.mktemp("full-ingest")
    write_fixture_results(work / "old")
    shutil.copytree(ROOT / "results", work / "new", ignore=shutil.ignore_patterns("sources"))
    for results, db in ((work / "old", work / "seed" / DB), (work / "new", work / "new.duckdb")):
        res = subprocess.run(
            [LLMBENCH, "ingest", "--results", str(results), "--db", str(db)], capture_output=True, text=True
        )
        assert res.returncode == 0, res.stderr
    assert runs(work / "seed" / DB) == (12, 12)
    return {"work": work, "new_size": (work / "new.duckdb").stat().st_size}


@pytest.mark.parametrize("free", [0, 512 << 10], ids=["full before start", "fills up during the write"])
def test_ingest_on_a_full_disk_leaves_the_previous_database(
    full_disk, stores: dict[str, Path | int], tmp_path: Path, free: int
) -> None:
    work: Path = stores["work"]  # type: ignore[assignment]
    assert free < stores["new_size"]  # type: ignore[operator] - the whole new file cannot fit
    folder = tmp_path / "disk"
    db = folder / DB
    before = digests(work / "seed")

    ran = full_disk([LLMBENCH, "ingest", "--results", str(work / "new"), "--db", str(db)],
                    folder=folder, seed=work / "seed", free=free)  # fmt: skip

    line = one_error_line(ran.output, ran.code, db)
    assert line.endswith("previous database left unchanged"), line
    assert f"/.{DB}." in line, line  # it failed writing the new file (the temporary one), not before
    lock = {
        f".{DB}.lock": hashlib.sha256(b"").hexdigest()
    }  # site_gen.data.load.db_lock's, left by every ingest
    assert digests(ran.after) == before | lock  # same files, same bytes: no .tmp, no .wal
    assert runs(ran.after / DB) == (12, 12)
