"""``llmbench site build`` with its output folder on a full file system (issue 11; the 3rd-party report: "a
full disk left 53 files, no index.html and a traceback"): exit 1 with one line naming the path and the full
disk, no traceback, the previous site complete and byte-identical, and no ``.site.<pid>.tmp``/``.old``
folder left (only the lock file, which every build leaves).

Two moments: the disk full before the build starts, and room for about half of a site, so the new one fails
part-way through MkDocs' writing. The database is on the ordinary disk: a full database folder is
test_full_disk_ingest's.
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.faults.checks import LLMBENCH, digests, one_error_line
from tests.faults.conftest import tree_size
from tests.site.conftest import write_fixture_results
from tests.site.test_plain_mkdocs import clean_env, new_result

ROOT = Path(__file__).resolve().parents[2]
ENV = clean_env(LLMBENCH_SITE_URL="http://127.0.0.1:8000/")


def site_build(results: Path, db: Path, out: Path) -> list[str]:
    return [LLMBENCH, "site", "build", "--results", str(results), "--db", str(db), "--out", str(out)]


@pytest.fixture(scope="module")
def sites(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """seed/site: the previous site (12 fixture runs); b/: the same results and one more file."""
    work = tmp_path_factory.mktemp("full-site")
    write_fixture_results(work / "a")
    shutil.copytree(work / "a", work / "b")
    (work / "b" / "new.yaml").write_text(new_result(), encoding="utf-8")
    res = subprocess.run(
        site_build(work / "a", work / "a.duckdb", work / "seed" / "site"),
        env=ENV,
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert res.returncode == 0, res.stderr
    assert (work / "seed" / "site" / "index.html").is_file()
    return work


@pytest.mark.parametrize("half", [False, True], ids=["full before start", "fills up during the write"])
def test_site_build_on_a_full_disk_leaves_the_previous_site(
    full_disk, sites: Path, tmp_path: Path, half: bool
) -> None:
    folder = tmp_path / "disk"
    free = tree_size(sites / "seed") // 2 if half else 0
    before = digests(sites / "seed")

    ran = full_disk(site_build(sites / "b", tmp_path / "b.duckdb", folder / "site"),
                    folder=folder, seed=sites / "seed", free=free, env=ENV, cwd=ROOT)  # fmt: skip

    line = one_error_line(ran.output, ran.code, folder / ".site.")  # failed in the new site's folder
    assert line.endswith(f"{folder / 'site'} left as it was"), line
    lock = {".site.lock": hashlib.sha256(b"").hexdigest()}
    assert digests(ran.after) == before | lock  # the previous site, every byte; nothing else


def test_site_build_with_a_full_temporary_folder_leaves_the_previous_site(
    full_disk, sites: Path, tmp_path: Path
) -> None:
    """The data files wait in an unnamed file of ``$TMPDIR`` until the end of the build (about the data
    set's size: ~1 GB at a million runs). ``$TMPDIR`` with a page of room (Python's ``tempfile`` passes
    over a folder where it cannot write at all, so this is the full disk the build meets): the build
    fails with the disk's error, leaves the previous site byte for byte and nothing of its own behind."""
    shutil.copytree(sites / "seed" / "site", tmp_path / "site")
    before = digests(tmp_path / "site")
    spare = tmp_path / "tmp"
    ran = full_disk(site_build(sites / "b", tmp_path / "b.duckdb", tmp_path / "site"),
                    folder=spare, free=4096, env=ENV | {"TMPDIR": str(spare)}, cwd=ROOT)  # fmt: skip
    line = one_error_line(ran.output, ran.code, spare)  # the full folder named, not the site's
    assert "No space left on device" in line and line.endswith(f"{tmp_path / 'site'} left as it was"), line
    assert digests(tmp_path / "site") == before
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".site")) == [".site.lock"]
    assert not [p for p in ran.after.rglob("*") if p.is_file()]
