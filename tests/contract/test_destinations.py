"""Nothing a command is pointed at is destroyed (issue 24): every writing command refuses a destination it
did not make, from the outside.

The authority is a scratch clone of this repository, nothing beside it, and git itself: after each
refused command ``git status --porcelain`` is empty and every file is byte-identical (the sha256 of the
whole tree, ``.git`` included). Before the fix, ``site build --out .`` replaced the checkout, ``.git``
and all; ``--out results`` deleted 663 files; ``ingest --db README.md`` turned the README into a database.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from bench.contract import destinations
from bench.errors import UserError
from tests.faults.checks import LLMBENCH, digests

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def clone(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A clone of the committed repository in an empty folder, as a newcomer has it."""
    work = tmp_path_factory.mktemp("scratch")
    subprocess.run(["git", "clone", "-q", "--no-hardlinks", str(ROOT), str(work / "repo")], check=True)
    return work / "repo"


def refused(repo: Path, *args: str) -> str:
    """Run ``llmbench ARGS`` in ``repo``; assert exit 1, one ``error:`` line, no traceback and an
    untouched tree (git's view and every byte); return the error line."""
    before = digests(repo)
    ran = subprocess.run([LLMBENCH, *args], cwd=repo, capture_output=True, text=True, timeout=600)
    output = ran.stdout + ran.stderr
    assert ran.returncode == 1, f"exit {ran.returncode}:\n{output[-2000:]}"
    assert "Traceback" not in output, output[-2000:]
    errors = [line for line in output.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, output
    status = subprocess.run(["git", "status", "--porcelain", "--ignored"], cwd=repo, capture_output=True)
    assert status.stdout == b"", status.stdout.decode()
    assert digests(repo) == before
    return errors[0]


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["site", "build", "--out", "."], "holds mkdocs.yml"),
        (["site", "build", "--out", "results"], "is results"),
        (["site", "build", "--out", "docs"], "is docs"),
        (["site", "build", "--out", "bench"], "did not build"),
        (["site", "build", "--out", ".."], "holds mkdocs.yml"),
        (["site", "build", "--out", "README.md"], "existing file"),
        (["site", "build", "--out", "site", "--db", "README.md"], "expected a DuckDB database file"),
        (["ingest", "--db", "README.md"], "expected a DuckDB database file"),
        (["ingest", "--db", "results/kisti"], "got a folder"),
        (["list", "--db", "pyproject.toml"], "expected a DuckDB database file"),
        (["schema", "--output", "README.md"], "not written by llmbench"),
        (["site", "cli-reference", "--out", "docs/index.md"], "not written by llmbench"),
    ],
)
def test_a_destination_it_did_not_make_is_refused(clone: Path, args: list[str], says: str) -> None:
    line = refused(clone, *args)
    assert says in line and "nothing written" in line, line


def test_a_link_to_the_checkout_is_refused(clone: Path, tmp_path: Path) -> None:
    """A symbolic link cannot smuggle the repository in as the site folder."""
    link = tmp_path / "looks-new"
    link.symlink_to(clone)
    assert "holds mkdocs.yml" in refused(clone, "site", "build", "--out", str(link))


def test_generated_files_are_rewritten_in_place(clone: Path) -> None:
    """What the tool wrote itself it may write again: the schema and the CLI page are regenerated."""
    for args in (["schema"], ["site", "cli-reference"]):
        ran = subprocess.run([LLMBENCH, *args], cwd=clone, capture_output=True, text=True, timeout=120)
        assert ran.returncode == 0, ran.stderr
    status = subprocess.run(["git", "status", "--porcelain"], cwd=clone, capture_output=True, text=True)
    assert status.stdout == "", status.stdout  # same bytes: they were up to date


def test_site_folders_it_may_replace(tmp_path: Path) -> None:
    """Missing, empty, marked, or a plain MkDocs build's output (a site built before the marker)."""
    keep = [tmp_path / "repo" / "mkdocs.yml"]
    destinations.check_site_target(tmp_path / "missing", keep)
    (empty := tmp_path / "empty").mkdir()
    destinations.check_site_target(empty, keep)
    (marked := tmp_path / "marked").mkdir()
    (marked / "anything.txt").write_text("x")
    destinations.mark_site(marked)
    destinations.check_site_target(marked, keep)
    old = tmp_path / "old-site"
    for f in ("index.html", "sitemap.xml", "search/search_index.json"):
        (old / f).parent.mkdir(parents=True, exist_ok=True)
        (old / f).write_text("x")
    destinations.check_site_target(old, keep)
    (old / ".git").mkdir()  # ... unless it is a repository
    with pytest.raises(UserError, match="git repository"):
        destinations.check_site_target(old, keep)


def test_a_duckdb_file_is_recognised_by_duckdb_s_own_header(tmp_path: Path) -> None:
    import duckdb

    db = tmp_path / "made-by-duckdb.db"  # any name: the bytes decide
    duckdb.connect(str(db)).close()
    destinations.check_db_target(db)
    (fake := tmp_path / "x.duckdb").write_bytes(b"\0" * 4096)
    with pytest.raises(UserError, match="another kind"):
        destinations.check_db_target(fake)
