"""results/ -> DuckDB -> site/: ``llmbench site build``, a thin wrapper over ``mkdocs build``.

The one generation path is the MkDocs hooks (``site_gen/site/mkdocs_hooks.py``): they ingest results/ when the
database is missing or stale, generate the view, GPU and model pages in memory and expand the chart
markers, so plain ``mkdocs build`` and ``mkdocs serve`` make the same site. What this module adds is
what a deployable build needs and MkDocs does not do:

- **its own data**: ``build_site`` ingests under the database's lock and renders from a snapshot of what
  it wrote (``site_gen.data.load``): an ingest of other results into the same database meanwhile changes
  nothing in this site;

- **atomic**: MkDocs empties its output folder first, so a killed or failed build would leave it empty or
  half-written. ``render_site`` builds into ``.<site>.<pid>.tmp`` beside the target and exchanges the two
  folders in one ``renameat2(RENAME_EXCHANGE)``: the target is always the previous complete site or the
  new complete one, never a mix.
- **one at a time**: an exclusive lock (``.<site>.lock``, ``flock``) around build and swap, so two builds
  of one folder wait for each other instead of crashing; under the lock, the temporary folders a killed
  build left behind are removed (no live build can own them).
- **I/O errors in one line** naming the path, as a ``UserError`` (exit 1, the site left as it was).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import fcntl
import os
import shutil
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from bench.contract import destinations
from bench.errors import UserError

GENERATED = "generated"  # the generated pages' folder in the site (docs/generated/ is never written)
SOURCES_ENV = "LLMBENCH_SOURCES"  # read by the hooks: the results folder whose sources/ pages may count
LOCK_TIMEOUT_S = 600.0  # a build takes seconds; a lock held this long belongs to a hung build


@dataclass
class BuildReport:
    runs: int = 0
    files: int = 0
    reused: int = 0  # files unchanged since the previous ingest, not checked again
    pages: int = 0
    seconds: dict[str, float] = field(default_factory=dict)


@contextmanager
def hook_env(db: Path, results: Path | None, sources: Path | None = None) -> Iterator[None]:
    """Point the MkDocs hooks at ``db`` (and ``results``, or none: use the database as it is) for the
    duration of an in-process build; the previous environment is restored afterwards. ``sources``: the
    results folder whose published tables (``sources/``) pages may count from when ``results`` is none
    (a build from a snapshot still counts what the MLPerf table leaves out)."""
    values = {"LLMBENCH_DB": str(Path(db).resolve()), "LLMBENCH_RESULTS": str(results or "")}
    if results is not None:
        values["LLMBENCH_RESULTS"] = str(Path(results).resolve())
    values[SOURCES_ENV] = str(Path(sources or results).resolve()) if (sources or results) else ""
    saved = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def render_site(
    config_file: Path,
    site_dir: Path,
    db: Path,
    strict: bool = True,
    results: Path | None = None,
    sources: Path | None = None,
) -> int:
    """``mkdocs build`` in this process into a temporary folder, then swap it in as ``site_dir``.

    The hooks read ``db``; with ``results`` they first re-ingest it when the database is stale, without
    they use the database as it is (a missing one gives the "no results yet" site). A warning fails the
    build (``strict=False`` only to debug a page). Returns the number of generated pages.
    """
    config_file = Path(config_file)
    keep = [config_file, config_file.parent / "docs", Path(db), *([Path(results)] if results else [])]
    destinations.check_site_target(site_dir, keep)  # before anything is created beside it
    site_dir = Path(site_dir).resolve()
    try:
        site_dir.parent.mkdir(parents=True, exist_ok=True)
        with site_lock(site_dir):
            remove_leftovers(site_dir)
            tmp = _tmp_name(site_dir, "tmp")
            try:
                with hook_env(db, results, sources):
                    _mkdocs_build(config_file, tmp, strict)
                pages = sum(1 for _ in (tmp / GENERATED).rglob("*.html"))
                destinations.mark_site(tmp)
                destinations.check_site_target(site_dir, keep)  # again: it may have changed meanwhile
                exchange(tmp, site_dir)
            except OSError as e:
                if e.filename is None:  # a failed write() names no file: name the folder being written
                    e.filename = str(tmp)
                raise
            finally:
                shutil.rmtree(tmp, ignore_errors=True)  # after the exchange: the previous site
            return pages
    except OSError as e:
        raise UserError(f"site build failed: {_os_error(e)}; {site_dir} left as it was") from None


def _mkdocs_build(config_file: Path, site_dir: Path, strict: bool) -> None:
    from mkdocs.commands.build import build
    from mkdocs.config import load_config
    from mkdocs.exceptions import MkDocsException

    _show_mkdocs_warnings()
    try:
        cfg = load_config(str(config_file), site_dir=str(site_dir), strict=strict)
        build(cfg)
    except MkDocsException as e:
        raise UserError(f"mkdocs build --strict failed: {e}") from None


def _os_error(e: OSError) -> str:
    """``path: reason`` in one line (``[Errno 28] No space left on device`` -> the reason only).

    A copy's error carries both paths (shutil: ``filename`` the source, ``filename2`` the destination);
    the one written to is where the disk is full, so it leads.
    """
    reason = e.strerror or str(e)
    if e.filename2 is not None:
        return f"{e.filename2}: {reason} (copying {e.filename})"
    return f"{e.filename}: {reason}" if e.filename is not None else reason


def _tmp_name(site_dir: Path, kind: str) -> Path:
    return site_dir.with_name(f".{site_dir.name}.{os.getpid()}.{kind}")


@contextmanager
def site_lock(site_dir: Path, timeout: float = LOCK_TIMEOUT_S) -> Iterator[None]:
    """Hold ``.<site>.lock`` (an exclusive ``flock``, released by the kernel if this process dies)."""
    from site_gen.data.load import flock_wait

    path = site_dir.with_name(f".{site_dir.name}.lock")
    with open(path, "a+") as f:
        flock_wait(f, path, timeout, f"another build of {site_dir}", "another build")
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def remove_leftovers(site_dir: Path) -> list[Path]:
    """Remove what killed builds of ``site_dir`` left beside it; call with the lock held.

    ``.<site>.<pid>.tmp`` is a half-built or a replaced site; ``.<site>.<pid>.old`` the previous site moved
    aside by the two-rename fallback of ``exchange``: if the kill came between the two renames the target
    is missing and the old one is put back. Returns what was removed.
    """
    removed = []
    for p in sorted(site_dir.parent.glob(f".{site_dir.name}.*.old")):
        if not site_dir.exists():
            p.rename(site_dir)
            continue
        shutil.rmtree(p, ignore_errors=True)
        removed.append(p)
    for p in sorted(site_dir.parent.glob(f".{site_dir.name}.*.tmp")):
        shutil.rmtree(p, ignore_errors=True)
        removed.append(p)
    return removed


_RENAME_EXCHANGE = 2  # linux/fs.h
_AT_FDCWD = -100


def exchange(new: Path, target: Path) -> None:
    """Put folder ``new`` in place of ``target`` atomically; afterwards ``new`` holds the previous target.

    Linux ``renameat2(RENAME_EXCHANGE)`` swaps the two names in one step. Where it is missing (another OS,
    a file system without it) two renames with the previous site parked as ``.<site>.<pid>.old``, which
    ``remove_leftovers`` puts back if a kill comes between them.
    """
    if not target.exists():
        new.rename(target)
        return
    if _renameat2(new, target, _RENAME_EXCHANGE):
        return
    old = _tmp_name(target, "old")
    target.rename(old)
    new.rename(target)
    old.rename(new)


def _renameat2(a: Path, b: Path, flags: int) -> bool:
    """True if the kernel did it; False if renameat2 or the flag is unsupported here; OSError otherwise."""
    fn = getattr(_libc(), "renameat2", None)
    if fn is None:
        return False
    fn.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    if fn(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), flags) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.ENOSYS, errno.EINVAL, errno.ENOTSUP):
        return False
    raise OSError(err, os.strerror(err), str(b))


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)


def _show_mkdocs_warnings() -> None:
    """Print MkDocs' warnings (the mkdocs CLI installs this handler; in-process we must)."""
    import logging

    logger = logging.getLogger("mkdocs")
    if not any(getattr(h, "_llmbench", False) for h in logger.handlers):
        handler = logging.StreamHandler()
        handler.setLevel(logging.WARNING)
        handler.setFormatter(logging.Formatter("%(levelname)s - %(message)s"))
        handler._llmbench = True  # type: ignore[attr-defined]
        logger.addHandler(handler)


def build_site(
    results: Path, db: Path, site_dir: Path, config_file: Path = Path("mkdocs.yml")
) -> BuildReport:
    """Ingest results/ (always: the database may come from another results folder), then render the
    site from the database this ingest wrote; time each step.

    The pages are generated from a snapshot of the new database taken under the database's lock
    (``site_gen.data.load.snapshot``), not from ``db``: an ingest of other results into the same file while
    MkDocs runs (it re-reads the database for every language and run card) would otherwise publish that
    other database's runs, or a mix. The snapshot is removed afterwards.
    """
    from site_gen.data.load import ingest, snapshot_path

    destinations.check_site_target(site_dir, [config_file, Path(config_file).parent / "docs", db, results])
    report = BuildReport()
    t = time.perf_counter()
    snap = snapshot_path(db)
    try:
        ingested = ingest(results, db, snapshot_to=snap)
        report.runs, report.files, report.reused = ingested.runs, ingested.files, ingested.reused
        report.seconds["ingest"] = time.perf_counter() - t
        t = time.perf_counter()
        report.pages = render_site(config_file, site_dir, snap, results=None, sources=results)
        report.seconds["generate+mkdocs"] = time.perf_counter() - t
    finally:
        snap.unlink(missing_ok=True)
    return report
