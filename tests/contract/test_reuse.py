"""An ingest after the previous one copies the runs of unchanged files (site_gen.data.reuse): the database it
writes must be the one a first ingest of the same files writes, row for row and in the same order, and a
changed, removed, invalid or duplicating file must count as it does in a first ingest.

The authority is a first ingest (no database beside it) of the same folder: every comparison is against
it, never against figures written here."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import duckdb
import pytest

from bench.errors import ProblemsError
from site_gen.data.load import ingest
from tests.conftest import RESULTS

# Every table but ``meta`` (its time differs by design); runs in their physical order.
_TABLES = ("runs", "files", "gpus", "models")


def _dump(db: Path) -> dict[str, object]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        out: dict[str, object] = {t: con.execute(f"SELECT * FROM {t}").fetchall() for t in _TABLES}
        out["columns"] = con.execute("DESCRIBE runs").fetchall()
        out["others"] = {
            t: con.execute(f"SELECT * FROM {t} ORDER BY ALL").fetchall()
            for (t,) in con.execute("SHOW TABLES").fetchall()
            if t not in (*_TABLES, "meta")
        }
        out["meta"] = con.execute("SELECT schema_version, runs, fingerprint FROM meta").fetchall()
        return out
    finally:
        con.close()


def _first_ingest(results: Path, tmp: Path) -> dict[str, object]:
    """What an ingest with no previous database writes for ``results``."""
    db = tmp / "first" / f"{len(list(tmp.iterdir()))}.duckdb"
    ingest(results, db)
    return _dump(db)


@pytest.fixture
def results(tmp_path: Path) -> Path:
    """A copy of some of the repository's results: every KISTI, NVIDIA and measured file (more than the
    workers' threshold) and a few MLPerf and estimate files (always checked: not in ``runs``)."""
    out = tmp_path / "results"
    for folder in ("kisti", "nvidia", "measured"):
        shutil.copytree(RESULTS / folder, out / folder)
    for folder in ("mlperf", "modelled"):
        for f in sorted((RESULTS / folder).rglob("*.yaml"))[:3]:
            (out / f.relative_to(RESULTS)).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(f, out / f.relative_to(RESULTS))
    (tmp_path / "first").mkdir()
    return out


def _runs_files(results: Path) -> list[Path]:
    return sorted(p for p in results.rglob("*.yaml") if p.parts[-3] in ("kisti", "nvidia", "measured"))


def _edit_first_figure(path: Path) -> tuple[str, str]:
    """Scale the file's first output throughput by 1.5 (a contributor's correction); old and new text."""
    text = path.read_text(encoding="utf-8")
    m = re.search(r"(output_tokens_per_s: )([0-9.]+)", text)
    assert m, path
    new = f"{float(m.group(2)) * 1.5:.2f}"
    path.write_text(text[: m.start(2)] + new + text[m.end(2) :], encoding="utf-8")
    return m.group(2), new


def test_a_second_ingest_reuses_every_runs_file_and_writes_the_same_database(
    results: Path, tmp_path: Path
) -> None:
    db = tmp_path / "db.duckdb"
    first = ingest(results, db)
    assert first.reused == 0
    again = ingest(results, db)
    assert again.reused == len(_runs_files(results)) > 32  # the parallel path too
    assert again.files == first.files and again.runs == first.runs
    assert _dump(db) == _first_ingest(results, tmp_path)


def test_a_changed_file_is_checked_again_and_its_new_figure_published(results: Path, tmp_path: Path) -> None:
    db = tmp_path / "db.duckdb"
    ingest(results, db)
    files = _runs_files(results)
    changed = files[len(files) // 2]
    old, new = _edit_first_figure(changed)
    report = ingest(results, db)
    assert report.reused == len(files) - 1
    name = str(changed.relative_to(results))
    figures = _dump(db)
    con = duckdb.connect(str(db), read_only=True)
    got = con.execute("SELECT output_tps FROM runs WHERE file = ? AND run_index = 0", [name]).fetchone()[0]
    con.close()
    assert got == float(new) != float(old)
    assert figures == _first_ingest(results, tmp_path)


def test_a_removed_file_leaves_and_a_new_file_arrives(results: Path, tmp_path: Path) -> None:
    db = tmp_path / "db.duckdb"
    ingest(results, db)
    files = _runs_files(results)
    files[3].unlink()
    moved = files[10].with_name("renamed-" + files[10].name)  # same bytes, another name: checked
    files[10].rename(moved)
    report = ingest(results, db)
    assert report.reused == len(files) - 2
    assert _dump(db) == _first_ingest(results, tmp_path)


def test_a_changed_file_with_a_problem_fails_and_leaves_the_database(results: Path, tmp_path: Path) -> None:
    db = tmp_path / "db.duckdb"
    ingest(results, db)
    before = db.read_bytes()
    bad = _runs_files(results)[5]
    bad.write_text(
        bad.read_text(encoding="utf-8").replace("output_tokens_per_s: ", "output_tokens_per_s: -", 1)
    )
    with pytest.raises(ProblemsError) as e:
        ingest(results, db)
    assert [p.file for p in e.value.problems] == [str(bad.relative_to(results))]
    assert db.read_bytes() == before


def test_a_new_file_repeating_an_unchanged_files_run_is_a_duplicate(results: Path, tmp_path: Path) -> None:
    db = tmp_path / "db.duckdb"
    ingest(results, db)
    before = db.read_bytes()
    original = _runs_files(results)[7]
    copy = original.with_name("zz-copy-" + original.name)  # after it in name order: it is the duplicate
    shutil.copy(original, copy)
    with pytest.raises(ProblemsError) as e:
        ingest(results, db)
    found = [(p.file, p.message) for p in e.value.problems]
    assert found[0] == (
        str(copy.relative_to(results)),
        f"duplicate run: same source and configuration as {original.relative_to(results)} runs.0",
    )
    assert db.read_bytes() == before


def test_a_database_of_other_checking_code_reuses_nothing(results: Path, tmp_path: Path) -> None:
    """A previous database whose fingerprint differs (another llmbench, registry or library version) is
    never trusted: every file is checked again."""
    db = tmp_path / "db.duckdb"
    ingest(results, db)
    con = duckdb.connect(str(db))
    con.execute("UPDATE meta SET fingerprint = 'an older llmbench'")
    # and a run changed in that database: had it been reused, the site would publish it
    con.execute("UPDATE runs SET output_tps = -1 WHERE rowid = 0")
    con.close()
    report = ingest(results, db)
    assert report.reused == 0
    assert _dump(db) == _first_ingest(results, tmp_path)


@pytest.mark.parametrize("damage", ["drop files table", "drop meta table", "garbage runs rows"])
def test_a_previous_database_it_cannot_read_is_not_reused(results: Path, tmp_path: Path, damage: str) -> None:
    db = tmp_path / "db.duckdb"
    ingest(results, db)
    con = duckdb.connect(str(db))
    if damage == "drop files table":
        con.execute("DROP TABLE files")
    elif damage == "drop meta table":
        con.execute("DROP TABLE meta")
    else:  # a file's runs no longer consecutive rows: it is checked again, the others reused
        con.execute("INSERT INTO runs SELECT * FROM runs WHERE rowid = 0")
    con.close()
    report = ingest(results, db)
    if damage == "garbage runs rows":
        assert report.reused == len(_runs_files(results)) - 1
    else:
        assert report.reused == 0
    assert _dump(db) == _first_ingest(results, tmp_path)


def test_the_fingerprint_covers_the_registries_and_the_checking_code() -> None:
    """Every registry file (``registry.source_files``, what staleness watches too) and every module a
    worker runs to check and flatten a file is hashed: a change to any of them checks every file."""
    import sys

    from bench.contract import registry
    from bench.contract.resultfile import _check_one
    from site_gen.data import reuse

    hashed = {p.resolve() for p in reuse._package_files()}
    assert {p.resolve() for p in registry.source_files()} <= hashed
    ran = {
        Path(sys.modules[_check_one.__module__].__file__).resolve(),
        Path(ingest.__code__.co_filename).resolve(),
    }
    ran |= {
        Path(sys.modules[m].__file__).resolve() for m in ("bench.contract.schema", "bench.contract.runid")
    }
    assert ran <= hashed


def test_the_fingerprint_changes_with_any_hashed_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from site_gen.data import reuse

    files = [tmp_path / "a.py", tmp_path / "gpus.yaml"]
    for f in files:
        f.write_text("x = 1\n")
    monkeypatch.setattr(reuse, "_package_files", lambda: files)
    first = reuse.fingerprint(1)
    assert reuse.fingerprint(1) == first
    assert reuse.fingerprint(2) != first  # another schema version
    files[1].write_text("x = 2\n")
    assert reuse.fingerprint(1) != first


def test_a_changed_configuration_gets_its_own_bound(results: Path, tmp_path: Path) -> None:
    """The speed-of-light bounds of unchanged configurations are taken from the previous database; a
    configuration it has not seen is bounded anew (compared with a first ingest, which bounds all)."""
    db = tmp_path / "db.duckdb"
    ingest(results, db)
    changed = 0
    for path in _runs_files(results)[:40]:
        text = path.read_text(encoding="utf-8")
        if "num_requests: " in text:
            path.write_text(re.sub(r"num_requests: (\d+)", r"num_requests: 1\1", text, count=1))
            changed += 1
    assert changed
    ingest(results, db)
    con = duckdb.connect(str(db), read_only=True)
    assert con.execute(
        "SELECT count(*) FROM runs WHERE num_requests >= 10000 AND pct_of_bound > 0"
    ).fetchone()[0]
    con.close()
    assert _dump(db) == _first_ingest(results, tmp_path)
