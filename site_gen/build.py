"""results/ -> DuckDB -> docs/generated/ -> site/: the whole site build, each step a function.

``generate`` writes the generated Markdown pages into a temporary folder beside ``docs/generated`` and
swaps it into place, so a failed generation leaves the previous pages. ``render_site`` runs MkDocs in
this process (strict: any warning fails the build) with ``$LLMBENCH_DB`` pointing the chart-marker hook
at the database. ``build_site`` chains ingest, generate and render and reports the time of each step.
"""

from __future__ import annotations

import os
import shutil
import time
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
    from site_gen import pages, queries

    runs = queries.site_runs(db)
    todo = pages.pages(runs, queries.gpu_info(db))
    target = docs_dir / GENERATED
    tmp = docs_dir / f".{GENERATED}.{os.getpid()}.tmp"
    old = docs_dir / f".{GENERATED}.{os.getpid()}.old"
    shutil.rmtree(tmp, ignore_errors=True)
    try:
        for page in todo:
            path = tmp / page.path
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(page.render(), encoding="utf-8")
        if target.exists():
            target.rename(old)
        tmp.rename(target)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        shutil.rmtree(old, ignore_errors=True)
    return len(todo)


def render_site(config_file: Path, site_dir: Path, db: Path, strict: bool = True) -> None:
    """``mkdocs build --strict`` in-process, the hook reading ``db``; a warning raises UserError.

    ``strict=False`` only for debugging a page: warnings are then printed and the build goes on."""
    from mkdocs.commands.build import build
    from mkdocs.config import load_config
    from mkdocs.exceptions import MkDocsException

    os.environ["LLMBENCH_DB"] = str(Path(db).resolve())
    _show_mkdocs_warnings()
    try:
        cfg = load_config(str(config_file), site_dir=str(Path(site_dir).resolve()), strict=strict)
        build(cfg)
    except MkDocsException as e:
        raise UserError(f"mkdocs build --strict failed: {e}") from None


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
    report.pages = generate(db, config_file.parent / "docs")
    report.seconds["generate"] = time.perf_counter() - t
    t = time.perf_counter()
    render_site(config_file, site_dir, db)
    report.seconds["mkdocs"] = time.perf_counter() - t
    return report
