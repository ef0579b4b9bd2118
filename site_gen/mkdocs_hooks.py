"""MkDocs hooks (``hooks:`` in mkdocs.yml): the one path from results/ to the site.

Plain ``mkdocs build`` / ``mkdocs serve`` on a fresh clone and ``llmbench site build|serve`` all run these:

- ``on_config``: ingest results/ into the DuckDB file when the file is missing or older than any result
  file or registry (``site_gen.load.ingest``, all or nothing; a bad file stops the build with its
  ``file:line: field: expected X, got Y`` lines), then load the runs once per build;
- ``on_files``: add the generated view, GPU and model pages as in-memory MkDocs files under
  ``generated/`` (nothing is written into docs/; an old on-disk ``docs/generated/`` is ignored);
- ``on_page_content``: expand the page's chart markers (``site_gen.markers``); a bad marker is a warning,
  so ``mkdocs build --strict`` fails on it and names the page;
- ``on_post_build``: write the collected data files into ``site/assets/data/`` (the MLPerf page's into
  ``site/assets/mlperf/``);
- ``on_serve``: watch results/ and the registries too, so saving a result file rebuilds. A bad file there
  prints its located problems and the rebuild uses the last good database (``mkdocs serve`` would answer
  no request after a failed rebuild); in ``mkdocs build`` it fails the build before any output is written.

Paths: ``$LLMBENCH_DB`` (default ``build/llmbench.duckdb`` beside mkdocs.yml) and ``$LLMBENCH_RESULTS``
(default ``results/`` beside mkdocs.yml; set but empty: use the database as it is, never ingest).
"""

from __future__ import annotations

import logging
import os
import sys
import time
from pathlib import Path
from typing import Any

log = logging.getLogger("mkdocs.plugins.llmbench")
_site: Any = None
_generated: list[Any] | None = None
_mlperf_files: dict[str, str] = {}  # the MLPerf page's data file (name -> text), for site/assets/mlperf/

GENERATED = "generated"
SERVING = "LLMBENCH_SERVING"  # set by on_startup: "1" inside `mkdocs serve`


def sources(config: Any) -> tuple[Path | None, Path]:
    """(results folder or None, database file) for this build."""
    root = Path(config["config_file_path"]).parent
    db = Path(os.environ.get("LLMBENCH_DB") or root / "build" / "llmbench.duckdb")
    results = os.environ.get("LLMBENCH_RESULTS")
    if results is None:
        return root / "results", db
    return (Path(results) if results else None), db


def refresh(results: Path, db: Path) -> bool:
    """Ingest ``results`` into ``db`` when the database is missing or stale; False if results/ holds no
    result file (the site then says "no results yet"). A bad file raises ``PluginError`` with every
    located problem, which stops the build before anything is written."""
    from mkdocs.exceptions import PluginError

    from bench.contract.resultfile import iter_result_files
    from bench.errors import ProblemsError, UserError
    from site_gen.listing import is_stale
    from site_gen.load import ingest

    if not is_stale(results, db):
        return True
    if next(iter(iter_result_files([results])), None) is None:
        return False
    started = time.time()
    log.info("llmbench: %s is %s; ingesting %s", db, "stale" if db.exists() else "missing", results)
    try:
        report = ingest(results, db)
    except ProblemsError as e:
        raise PluginError("\n".join([*(str(p) for p in e.problems), str(e)])) from None
    except (UserError, OSError) as e:
        raise PluginError(str(e)) from None
    for skipped in report.skipped:  # info, not warning: --strict must not fail on a README.YAML
        log.info("llmbench: %s", str(skipped).encode("unicode_escape").decode("ascii"))
    # A file saved while ingest ran is newer than this: the next build (or rebuild) ingests again.
    os.utime(db, (started, started))
    log.info("llmbench: ingested %s run(s) from %s file(s)", f"{report.runs:,}", report.files)
    return True


def on_startup(command: str, dirty: bool) -> None:
    # Rebuilds in `mkdocs serve` load this module afresh (their globals start empty), so the command is
    # kept where every later load sees it.
    os.environ[SERVING] = "1" if command == "serve" else ""


def on_config(config: Any) -> Any:
    global _site, _generated, _mlperf_files
    from mkdocs.exceptions import PluginError

    from site_gen import mlperf_pages, pages, queries
    from site_gen.charts import ChartContext
    from site_gen.markers import Site

    results, db = sources(config)
    try:
        has_results = refresh(results, db) if results is not None else True
    except PluginError as e:
        # `mkdocs serve` answers no request until a failed rebuild is followed by a good one, so a bad
        # file must not fail it: say where the problem is and build from the last good database (ingest
        # left it untouched). A build, or a serve with no database yet, fails.
        if not os.environ.get(SERVING) or not db.exists():
            raise
        print(f"{e}\nllmbench: serving the last good results until this is fixed", file=sys.stderr)
        has_results = True
    read = db if has_results else db.with_name(f".{db.name}.none")  # no result files: no runs
    runs = queries.site_runs(read)
    ctx = ChartContext(gpus=tuple(queries.gpu_names(read)), columns=frozenset(runs.columns))
    extra = config.get("extra") or {}
    _site = Site(
        runs=runs,
        ctx=ctx,
        db=read,
        repo_url=config.get("repo_url") or "",
        repo_branch=extra.get("repo_branch", "main"),
    )
    _generated = pages.pages(runs, queries.gpu_info(read))
    # the MLPerf page reads its own table, never the runs (MLCommons: no mixing); its data file has its
    # own folder
    mlperf = mlperf_pages.build(read, _site.repo_url, _site.repo_branch)
    _generated += [pages.GeneratedPage(p, lambda md=md: md) for p, md in mlperf.pages]
    _mlperf_files = mlperf.files
    return config


def on_files(files: Any, config: Any) -> Any:
    """The generated pages as in-memory files, in the order MkDocs would have read them from disk."""
    from mkdocs.structure.files import File, Files, file_sort_key

    if _generated is None:
        return files
    docs_dir = config["docs_dir"]
    kept = [f for f in files if not f.src_uri.startswith(f"{GENERATED}/")]
    new = [File.generated(config, f"{GENERATED}/{p.path}", content=p.render()) for p in _generated]
    docs = sorted([f for f in kept if f.src_dir == docs_dir] + new, key=file_sort_key)
    return Files(docs + [f for f in kept if f.src_dir != docs_dir])  # theme files after, as before


def on_page_content(html: str, page: Any, config: Any, files: Any) -> str:
    from site_gen.markers import MARKER, Page

    if _site is None or not MARKER.search(html):
        return html
    p = Page(_site, page.url)
    out = p.expand(html)
    for error in p.errors:
        log.warning("%s: %s", page.file.src_uri, error)
    return out


def on_post_build(config: Any) -> None:
    from site_gen import mlperf_pages
    from site_gen.markers import DATA_DIR

    if _site is None:
        return
    target = Path(config["site_dir"]) / DATA_DIR
    target.mkdir(parents=True, exist_ok=True)
    for name, text in _site.files.items():
        (target / name).write_text(text, encoding="utf-8")
    if _mlperf_files:
        (mlperf := Path(config["site_dir"]) / mlperf_pages.DATA_DIR).mkdir(parents=True, exist_ok=True)
        for name, text in _mlperf_files.items():
            (mlperf / name).write_text(text, encoding="utf-8")


def on_serve(server: Any, config: Any, builder: Any) -> Any:
    """Rebuild when a result file or a registry changes (MkDocs watches docs/ and mkdocs.yml itself)."""
    from bench.contract import registry

    results, _ = sources(config)
    if results is not None and results.is_dir():
        server.watch(str(results))
    for f in registry.source_files():
        server.watch(str(f))
    return server
