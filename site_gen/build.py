"""results/ -> DuckDB -> docs/generated/ -> site/: the whole site build, each step a function.

``generate`` writes the generated Markdown pages into a temporary folder beside ``<docs>/generated`` and
swaps it into place, so a failed generation leaves the previous pages. ``render_site`` generates into a
private snapshot of docs/ and runs MkDocs on it in this process (strict: any warning fails the build)
with ``$LLMBENCH_DB`` pointing the chart-marker hook at the database, then swaps the generated pages into
docs/generated. ``build_site`` chains ingest and render and reports the time of each step.
"""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from bench.errors import UserError

GENERATED = "generated"


@dataclass
class BuildReport:
    runs: int = 0
    files: int = 0
    pages: int = 0
    seconds: dict[str, float] = field(default_factory=dict)


def generate(db: Path, docs_dir: Path) -> int:
    """Write every generated page into docs_dir/generated (atomically swapped); return the page count."""
    from site_gen import mlperf_pages, pages, queries

    runs = queries.site_runs(db)
    todo = pages.pages(runs, queries.gpu_info(db))
    # the MLPerf page reads its own table, never the runs (MLCommons: no mixing)
    todo += [pages.GeneratedPage(p, lambda md=md: md) for p, md in mlperf_pages.pages(db)]
    tmp = docs_dir / f".{GENERATED}.{os.getpid()}.tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    try:
        for page in todo:
            path = tmp / page.path
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(page.render(), encoding="utf-8")
        _swap(tmp, docs_dir / GENERATED)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return len(todo)


def render_site(config_file: Path, site_dir: Path, db: Path, strict: bool = True) -> int:
    """Generate the pages and run ``mkdocs build --strict`` in-process on a private snapshot of docs/.

    The snapshot (``build/.docs.<pid>``: docs/ without generated/, plus freshly generated pages) keeps
    concurrent builds from seeing each other's half-swapped ``docs/generated``; after a clean build its
    generated pages are swapped into ``docs/generated`` for ``mkdocs serve`` and for reading. The hook
    reads ``db``; a warning raises UserError (``strict=False`` only to debug a page). Returns the number
    of generated pages.
    """
    from mkdocs.commands.build import build
    from mkdocs.config import load_config
    from mkdocs.exceptions import MkDocsException

    root = config_file.resolve().parent
    docs = root / "docs"
    snapshot = root / "build" / f".docs.{os.getpid()}"
    shutil.rmtree(snapshot, ignore_errors=True)
    try:
        shutil.copytree(docs, snapshot, ignore=_skip_generated(docs))
        pages = generate(db, snapshot)
        os.environ["LLMBENCH_DB"] = str(Path(db).resolve())
        _show_mkdocs_warnings()
        try:
            cfg = load_config(
                str(config_file),
                docs_dir=str(snapshot),
                site_dir=str(Path(site_dir).resolve()),
                strict=strict,
            )
            build(cfg)
        except MkDocsException as e:
            raise UserError(f"mkdocs build --strict failed: {e}") from None
        _swap(snapshot / GENERATED, docs / GENERATED)
        return pages
    finally:
        shutil.rmtree(snapshot, ignore_errors=True)


def _skip_generated(docs: Path) -> Callable[[str, list[str]], list[str]]:
    def ignore(folder: str, names: list[str]) -> list[str]:
        top = Path(folder) == docs
        return [n for n in names if n.startswith(".") or (top and n == GENERATED)]

    return ignore


def _swap(new: Path, target: Path) -> None:
    """Move ``new`` into place as ``target``, replacing it (two renames; the old one is removed)."""
    old = target.with_name(f".{target.name}.{os.getpid()}.old")
    if target.exists():
        target.rename(old)
    new.rename(target)
    shutil.rmtree(old, ignore_errors=True)


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
    """Ingest results/, generate the pages, render the site; time each step."""
    from site_gen.load import ingest

    report = BuildReport()
    t = time.perf_counter()
    ingested = ingest(results, db)
    report.runs, report.files = ingested.runs, ingested.files
    report.seconds["ingest"] = time.perf_counter() - t
    t = time.perf_counter()
    report.pages = render_site(config_file, site_dir, db)
    report.seconds["generate+mkdocs"] = time.perf_counter() - t
    return report
