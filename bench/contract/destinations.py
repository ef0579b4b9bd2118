"""Where a command may write: every path a user names is checked before anything is written to it.

A command replaces or deletes only what it made itself. The rules, one function per kind of output:

- a **site folder** (``site build --out``) must be missing, empty, or a site this tool built (its marker
  file ``.llmbench-site``, or the files every MkDocs build writes); never a folder that holds the
  results, the docs, the MkDocs configuration, the database or a git repository;
- a **database** (``--db``) must be missing or a DuckDB file (its header says so);
- a **generated file** (the JSON Schema, the CLI reference page) must be missing or carry the mark this
  tool writes into it.

Each refusal is one ``UserError`` naming the path and what was expected; nothing has been touched.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from bench.errors import UserError

SITE_MARKER = ".llmbench-site"
SITE_MARKER_TEXT = (
    "This folder was built by `llmbench site build`; the next build replaces it whole.\n"
    "Delete this file to keep llmbench from ever replacing the folder.\n"
)
# What every `mkdocs build` writes: a site built before the marker existed is recognised by them.
_MKDOCS_OUTPUT = ("index.html", "sitemap.xml", "search/search_index.json")
# DuckDB's file header: 8 bytes of checksum, then the magic (duckdb/src/storage/storage_info.cpp).
_DUCKDB_MAGIC, _DUCKDB_MAGIC_AT = b"DUCK", 8


def check_site_target(out: Path, keep: Iterable[Path]) -> None:
    """Refuse ``out`` as a site folder unless replacing it whole loses nothing.

    ``keep``: paths the build reads (results, docs, configuration, database); ``out`` may be none of them
    and no folder above one.
    """
    target = _absolute(out)
    if target.exists() and not target.is_dir():
        raise UserError(f"--out {out}: expected a folder for the site, got an existing file; nothing written")
    for path in keep:
        p = _absolute(path)
        if target == p or target in p.parents:
            what = "is" if target == p else "holds"
            raise UserError(
                f"--out {out}: it {what} {path}, which the build reads; the site folder is replaced whole, "
                "so choose a folder of its own (default: site); nothing written"
            )
    if not target.is_dir() or is_site(target) or not any(target.iterdir()):
        return
    if (target / ".git").exists():
        raise UserError(f"--out {out}: a git repository; nothing written")
    raise UserError(
        f"--out {out}: a folder llmbench did not build (no {SITE_MARKER} in it, and not a MkDocs site); "
        "the site folder is replaced whole, so choose a new or empty folder; nothing written"
    )


def is_site(folder: Path) -> bool:
    """Whether ``folder`` is a site this tool built (the marker), or any MkDocs build's output."""
    if (folder / SITE_MARKER).is_file():
        return True
    return not (folder / ".git").exists() and all((folder / f).is_file() for f in _MKDOCS_OUTPUT)


def mark_site(folder: Path) -> None:
    """Write the marker into a freshly built site folder (before it is swapped in)."""
    (folder / SITE_MARKER).write_text(SITE_MARKER_TEXT, encoding="utf-8")


def check_db_target(db: Path, option: str = "--db") -> None:
    """Refuse to replace ``db`` unless it is missing or a DuckDB database file."""
    path = Path(db)
    if not path.exists() and not path.is_symlink():
        return
    if path.is_symlink() or not path.is_file():
        raise UserError(
            f"{option} {db}: expected a DuckDB database file, got a folder or link; nothing written"
        )
    try:
        with path.open("rb") as f:
            head = f.read(_DUCKDB_MAGIC_AT + len(_DUCKDB_MAGIC))
    except OSError as e:
        raise UserError(f"{option} {db}: {e.strerror or e}; nothing written") from None
    if head[_DUCKDB_MAGIC_AT:] != _DUCKDB_MAGIC:
        raise UserError(
            f"{option} {db}: expected a DuckDB database file (or a new path), got a file of another kind; "
            "it is not replaced, nothing written"
        )


def check_generated_target(path: Path, mark: str, option: str) -> None:
    """Refuse to overwrite ``path`` unless it is missing or its first 2 KB hold ``mark`` (written by us)."""
    p = Path(path)
    if not p.exists() and not p.is_symlink():
        return
    try:
        head = p.read_bytes()[:2048].decode("utf-8", "replace") if p.is_file() else None
    except OSError as e:
        raise UserError(f"{option} {path}: {e.strerror or e}; nothing written") from None
    if head is None or mark not in head:
        raise UserError(
            f"{option} {path}: exists and was not written by llmbench (no {mark!r} in it); "
            "it is not overwritten, nothing written"
        )


def _absolute(p: Path) -> Path:
    """The absolute path with symbolic links resolved where they exist (``..`` and links can't hide)."""
    return Path(os.path.realpath(p))
