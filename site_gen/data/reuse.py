"""Result files unchanged since the previous ingest: their runs are copied from the previous database, not
checked again.

A living benchmark rebuilds its site after every pull request and sweep; at a million runs in 10,000
files, checking every file again took most of the ingest (parse, validate, flatten: ~3 ms a file on each
core) for the one or two files a pull request adds. A file is reused only when all of this holds:

- the previous database records the file's name and the SHA-256 of its bytes (table ``files``), and the
  file's bytes now have that digest;
- the previous database was written by the same checking code: ``fingerprint`` hashes the source of the
  packages that check and flatten a file (``bench.contract``, ``site_gen.data``, ``bench.errors``), the
  registries and other data files (``bench/data``), the schema version and the versions of Python and of
  the libraries that parse and validate. Any change to them checks every file again.

Anything else (no previous database, one from an older version, a file unreadable now, a table missing, a
DuckDB error reading it) checks every file, as a first ingest does. Files whose runs are not in ``runs``
(MLPerf, estimates) are always checked. Deleting the database checks every file again.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import platform
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

FILES_TABLE = "files"  # (file, sha256): the result files whose runs are in ``runs``
# the libraries whose behaviour decides what a file's rows are
_LIBRARIES = ("pydantic", "pydantic_core", "yaml-rs", "PyYAML", "duckdb", "pyarrow")


def _package_files() -> list[Path]:
    """The files ``fingerprint`` hashes (module docstring)."""
    import bench.contract
    import bench.errors
    import site_gen.data
    from bench.contract import registry

    out = [Path(bench.errors.__file__), *registry.data_files()]
    for pkg in (bench.contract, site_gen.data):
        root = Path(pkg.__file__).parent
        out += [p for p in root.rglob("*.py") if "__pycache__" not in p.parts]
    return sorted(out)


def fingerprint(schema_version: int) -> str:
    """What a file's rows depend on beside its bytes (module docstring), as one SHA-256."""
    import site_gen

    h = hashlib.sha256()
    for name in _LIBRARIES:
        try:
            version = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            version = "-"
        h.update(f"{name}={version}\n".encode())
    h.update(f"python={platform.python_version()} schema={schema_version}\n".encode())
    top = Path(site_gen.__file__).parent.parent  # where bench/ and site_gen/ are, installed or in a checkout
    for p in _package_files():
        h.update(f"{p.relative_to(top) if p.is_relative_to(top) else p.name}\n".encode())
        h.update(hashlib.sha256(p.read_bytes()).digest())
    return h.hexdigest()


def _digest(path: Path) -> str | None:
    """The SHA-256 of a file's bytes; None where it cannot be read (checking it reports why)."""
    try:
        with open(path, "rb") as f:
            return hashlib.file_digest(f, "sha256").hexdigest()
    except OSError:
        return None


def digests(paths: Sequence[Path]) -> list[str | None]:
    """Each file's SHA-256, in order. One thread: result files are small, so a pool's hand-offs cost more
    than the reads and hashes they overlap (10,000 files of 22 kB: 0.65-0.80 s in two threads, 0.31 s in
    one; in an ingest, where the workers' start competes, 1.7 s)."""
    return [_digest(p) for p in paths]


def previous(con: Any, schema: str, current: dict[str, str], fingerprint_now: str) -> dict[str, list[str]]:
    """The files of ``current`` ({name: digest}) that the database attached as ``schema`` holds with the
    same digest and fingerprint: {name: its run ids in run order}. {} where it cannot tell (any error).
    A file whose runs there are not consecutive rows numbered from 0 (each ingest writes them so) is
    left out: it is checked again."""
    import duckdb

    cur = con.cursor()  # its own transaction: an error here leaves the caller's open one as it was
    try:
        (old,) = cur.execute(f"SELECT fingerprint FROM {schema}.meta").fetchone()
        if old != fingerprint_now:
            return {}
        same = [
            f
            for f, d in cur.execute(f"SELECT file, sha256 FROM {schema}.{FILES_TABLE}").fetchall()
            if current.get(f) == d
        ]
        if not same:
            return {}
        cur.register("reuse_names", _names(same))
        rows = cur.execute(
            "SELECT file, list(run_id ORDER BY run_index), min(rowid), max(rowid), max(run_index), count(*)"
            f" FROM {schema}.runs WHERE file IN (SELECT file FROM reuse_names) GROUP BY file"
        ).fetchall()
    except (duckdb.Error, TypeError, ValueError):  # no such table or column, no row: check every file
        return {}
    finally:
        cur.close()
    return {f: ids for f, ids, lo, hi, last, n in rows if hi - lo + 1 == n == last + 1}


def _names(names: Iterable[str]) -> Any:
    import pyarrow as pa

    return pa.table({"file": pa.array(list(names), pa.string())})


FRESH_TABLE = "fresh_runs"  # the changed files' runs, while an ingest reuses: merged into ``runs`` at the end


def merge_runs(con: Any, schema: str, names: Iterable[str], columns: Sequence[str]) -> int:
    """Fill ``runs`` with the runs of the unchanged files ``names`` from the attached database ``schema``
    and the changed files' runs (``FRESH_TABLE``), in file and run order as a first ingest writes them;
    the number of runs copied. One statement: copying each run of consecutive unchanged files by itself
    between the changed ones cost 0.25 s a statement at 1M runs (4.5 s for 10 changed files, against
    2.3 s for this sort)."""
    con.register("reuse_names", _names(names))
    cols = ", ".join(columns)
    (fresh,) = con.execute(f"SELECT count(*) FROM {FRESH_TABLE}").fetchone()
    (inserted,) = con.execute(
        f"INSERT INTO runs SELECT * FROM (SELECT {cols} FROM {schema}.runs"
        f" WHERE file IN (SELECT file FROM reuse_names) UNION ALL SELECT * FROM {FRESH_TABLE})"
        " ORDER BY file, run_index"
    ).fetchone()
    con.unregister("reuse_names")
    con.execute(f"DROP TABLE {FRESH_TABLE}")
    return int(inserted) - int(fresh)


def create_files_table(con: Any, digests: dict[str, str | None]) -> None:
    """The table ``previous`` reads: each file whose runs are in ``runs`` and its digest, in name order (a
    file that could not be hashed is left out: the next ingest checks it)."""
    import pyarrow as pa

    kept = {n: d for n, d in sorted(digests.items()) if d is not None}
    table = pa.table(
        {"file": pa.array(list(kept), pa.string()), "sha256": pa.array(list(kept.values()), pa.string())}
    )
    con.register("files_rows", table)
    con.execute(f"CREATE TABLE {FILES_TABLE} AS SELECT * FROM files_rows")
    con.unregister("files_rows")
