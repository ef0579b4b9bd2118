"""MkDocs hooks (``hooks:`` in mkdocs.yml): expand chart markers in every page, write the page data.

- ``on_config``: load the runs once per build from the DuckDB file named by ``$LLMBENCH_DB`` (default
  ``build/llmbench.duckdb`` beside mkdocs.yml); a missing file means "no results yet", not an error;
- ``on_page_content``: expand the page's markers (``site_gen.markers``); a bad marker is a warning, so
  ``mkdocs build --strict`` fails on it and names the page;
- ``on_post_build``: write the collected data files into ``site/assets/data/``.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Any

log = logging.getLogger("mkdocs.plugins.llmbench")
_site: Any = None


def on_config(config: Any) -> Any:
    global _site
    from site_gen import queries
    from site_gen.charts import ChartContext
    from site_gen.markers import Site

    root = Path(config["config_file_path"]).parent
    db = Path(os.environ.get("LLMBENCH_DB", root / "build" / "llmbench.duckdb"))
    runs = queries.site_runs(db)
    ctx = ChartContext(gpus=tuple(queries.gpu_names(db)), columns=frozenset(runs.columns))
    extra = config.get("extra") or {}
    _site = Site(
        runs=runs,
        ctx=ctx,
        db=db,
        repo_url=config.get("repo_url") or "",
        repo_branch=extra.get("repo_branch", "main"),
    )
    return config


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
    from site_gen.markers import DATA_DIR

    if _site is None:
        return
    target = Path(config["site_dir"]) / DATA_DIR
    target.mkdir(parents=True, exist_ok=True)
    for name, text in _site.files.items():
        (target / name).write_text(text, encoding="utf-8")
