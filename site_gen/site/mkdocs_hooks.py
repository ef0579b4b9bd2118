"""MkDocs hooks (``hooks:`` in mkdocs.yml): the one path from results/ to the site.

Plain ``mkdocs build`` / ``mkdocs serve`` on a fresh clone and ``llmbench site build|serve`` all run these:

- ``on_config``: ingest results/ into the DuckDB file when the file is missing or older than any result
  file or registry (``site_gen.data.load.ingest``, all or nothing; a bad file stops the build with its
  ``file:line: field: expected X, got Y`` lines), then load the runs once per build;
- ``on_files``: add the generated view, GPU and model pages as in-memory MkDocs files under
  ``generated/`` (nothing is written into docs/; an old on-disk ``docs/generated/`` is ignored);
- ``on_page_content``: expand the page's chart markers (``site_gen.pages.markers``); a bad marker is a
warning,
  so ``mkdocs build --strict`` fails on it and names the page;
- ``on_post_build``: write the collected data files into ``site/assets/data/`` (the MLPerf page's into
  ``site/assets/mlperf/``);
- languages (mkdocs-static-i18n, ``plugins.i18n`` in mkdocs.yml): the plugin builds the site once per
  language (English at /, Korean at /ko/), calling these hooks each time; ``config.theme.language`` names
  the build's language. The generated pages are added after the plugin has sorted the files by language
  (``on_files`` runs at a lower priority), in that language (``site_gen.i18n``), under ``ko/`` for
  Korean; the runs are loaded once for all languages; the page script's catalogue is written to
  ``assets/i18n/<lang>.js``;
- ``on_serve``: watch results/ and the registries too, so saving a result file rebuilds. A bad file there
  prints its located problems and the rebuild uses the last good database (``mkdocs serve`` would answer
  no request after a failed rebuild); in ``mkdocs build`` it fails the build before any output is written.

Paths: ``$LLMBENCH_DB`` (default ``build/llmbench.duckdb`` beside mkdocs.yml) and ``$LLMBENCH_RESULTS``
(default ``results/`` beside mkdocs.yml; set but empty: use the database as it is, never ingest).
"""

from __future__ import annotations

import atexit
import contextlib
import hashlib
import logging
import os
import posixpath
import sys
import time
from pathlib import Path
from typing import Any

from mkdocs.plugins import event_priority

from site_gen.data import load

log = logging.getLogger("mkdocs.plugins.llmbench")
_site: Any = None
_generated: list[Any] | None = None
_loaded: tuple[Any, ...] | None = None  # (results, db, db mtime, any results) of _site's runs
_mlperf: Any = None  # the MLPerf rows and data file (site_gen.pages.mlperf_pages.Built), read once per build
# The files on_post_build wrote in this build: each language's post_build sees every data file and picture
# of the build so far (one Site), and a file's name is its content's digest, so each is written once.
_written: set[Path] = set()

GENERATED = "generated"
SERVING = "LLMBENCH_SERVING"  # set by on_startup: "1" inside `mkdocs serve`
SERVE_PROBLEM = "LLMBENCH_SERVE_PROBLEM"  # the digest of the problem a serve rebuild last printed


def _sources_folder() -> Path | None:
    """The results folder a build from a database snapshot names for its published tables (site_gen.site.build
    sets it), so the MLPerf page counts what it leaves out of the CSV there too; None if unset."""
    folder = os.environ.get("LLMBENCH_SOURCES")
    return Path(folder) if folder else None


def sources(config: Any) -> tuple[Path | None, Path]:
    """(results folder or None, database file) for this build."""
    root = Path(config["config_file_path"]).parent
    db = Path(os.environ.get("LLMBENCH_DB") or root / "build" / "llmbench.duckdb")
    results = os.environ.get("LLMBENCH_RESULTS")
    if results is None:
        return root / "results", db
    return (Path(results) if results else None), db


def _check_db(db: Path) -> None:
    """$LLMBENCH_DB must be a DuckDB file or a new path: refused before a lock file is made beside it."""
    from mkdocs.exceptions import PluginError

    from bench.contract.destinations import check_db_target
    from bench.errors import UserError

    try:
        check_db_target(db, "$LLMBENCH_DB")
    except UserError as e:
        raise PluginError(str(e)) from None


def refresh(results: Path, db: Path) -> bool:
    """Ingest ``results`` into ``db`` when the database is missing or stale; False if results/ holds no
    result file (the site then says "no results yet"). A bad file raises ``PluginError`` with every
    located problem, which stops the build before anything is written."""
    from mkdocs.exceptions import PluginError

    from bench.contract.resultfile import iter_result_files
    from bench.errors import ProblemsError, UserError
    from site_gen.data.listing import is_stale
    from site_gen.data.load import ingest

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


def language(config: Any) -> str:
    """The language of this build: Material's ``theme.language``, which the i18n plugin sets per build."""
    return str(config["theme"].get("language") or "en")


def language_root(config: Any) -> str:
    """Where this build's pages go: "" for the default language, "ko/" for Korean."""
    from site_gen import i18n

    lang = language(config)
    return "" if lang == i18n.DEFAULT else f"{lang}/"


class _InstantNavigationHandled(logging.Filter):
    """mkdocs-static-i18n warns that Material's language switch keeps the first page's link under
    instant navigation (the header is not replaced); state/url.js re-points it on every page (from the
    page's ``<link rel=alternate>``), so the warning would only fail ``--strict``."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "navigation.instant" not in record.getMessage()


# Installed when mkdocs.yml is loaded (an in-process build, `llmbench site build`, has no on_startup);
# loggers are process-wide and a second config load may run this file again, so it is added once (by name).
_I18N_LOG = logging.getLogger("mkdocs.plugins.mkdocs_static_i18n.reconfigure")
if not any(type(f).__name__ == "_InstantNavigationHandled" for f in _I18N_LOG.filters):
    _I18N_LOG.addFilter(_InstantNavigationHandled())


def on_startup(command: str, dirty: bool) -> None:
    # Rebuilds in `mkdocs serve` load this module afresh (their globals start empty), so the command is
    # kept where every later load sees it.
    os.environ[SERVING] = "1" if command == "serve" else ""


def _say_once(message: str) -> None:
    """Print a serve rebuild's problem once: every later rebuild (a saved page, the same bad file) keeps
    quiet until the problem changes or is fixed. Kept in the environment: rebuilds reload this module."""
    digest = hashlib.sha256(message.encode()).hexdigest()
    if os.environ.get(SERVE_PROBLEM) != digest:
        os.environ[SERVE_PROBLEM] = digest
        print(message, file=sys.stderr)


class _QuietI18n(logging.Filter):
    """mkdocs-static-i18n's per-build notes on this project's deliberate settings, left out of the output:
    the language switch's links are relative file names (they work from file:// and under a sub-path, see
    docs/dev/site-stack.md), and the Korean edition sets its own site_description."""

    NOTES = ("configuration contains a 'link' option", "Overriding '", "Translated ")

    def filter(self, record: logging.LogRecord) -> bool:
        return record.levelno > logging.INFO or not any(n in record.getMessage() for n in self.NOTES)


for _module in ("plugin", "reconfigure", "folder", "suffix"):
    _logger = logging.getLogger(f"mkdocs.plugins.mkdocs_static_i18n.{_module}")
    if not any(isinstance(f, _QuietI18n) for f in _logger.filters):
        _logger.addFilter(_QuietI18n())


def catalogue_script(config: Any) -> str:
    """Put this build's page-script catalogue (``assets/i18n/<lang>.js``, made in ``on_files``) before
    the page scripts; the entry of a previous language build is replaced."""
    from site_gen import i18n

    name = f"{i18n.JS_DIR}/{language(config)}.js"
    scripts = [s for s in config["extra_javascript"] if not str(s).startswith(f"{i18n.JS_DIR}/")]
    config["extra_javascript"] = [name, *scripts]
    return name


@event_priority(-150)  # after mkdocs-static-i18n's (-100), which sets this build's theme.language
def on_config(config: Any) -> Any:
    global _site, _generated, _loaded, _mlperf
    from mkdocs.exceptions import PluginError

    from site_gen import i18n
    from site_gen.charts.specs import ChartContext
    from site_gen.data import queries
    from site_gen.pages import generated as pages
    from site_gen.pages import mlperf_pages
    from site_gen.pages.markers import Site

    results, db = sources(config)
    lang = language(config)
    catalogue_script(config)
    other_language = _other_language(config)
    if not other_language:
        _written.clear()  # a new build (a serve rebuild starts from an empty site folder)
    if _site is not None and other_language:
        # the i18n plugin's next language of the same build: the runs already read, whatever an ingest
        # did to the database meanwhile (one build, one database)
        return _same_runs(config, lang)
    # With results/, the hooks own the database: check and ingest it, and take this build's snapshot, under
    # its lock (site_gen.data.load), so that an ingest of other results into the same file cannot change the
    # pages half-way. Without, the caller's database is used as it is (`site build`: its own snapshot).
    _check_db(db)
    with load.db_lock(db) if results is not None else contextlib.nullcontext():
        try:
            has_results = refresh(results, db) if results is not None else True
        except PluginError as e:
            # `mkdocs serve` answers no request until a failed rebuild is followed by a good one, so a bad
            # file must not fail it: say where the problem is and build from the last good database
            # (ingest left it untouched). A build, or a serve with no database yet, fails.
            if not os.environ.get(SERVING) or not db.exists():
                raise
            _say_once(f"{e}\nllmbench: serving the last good results until this is fixed")
            has_results = True
        else:
            if os.environ.get(SERVE_PROBLEM):  # a rebuild after a bad one: say the problem is gone
                os.environ[SERVE_PROBLEM] = ""
                print("llmbench: the results are valid again; serving them", file=sys.stderr)
        # Checked after refresh: a serve rebuild after a saved result file re-ingests (the database's
        # mtime changes).
        stamp = (results, db, db.stat().st_mtime if db.exists() else None, has_results)
        if _site is not None and _loaded == stamp:
            return _same_runs(config, lang)
        if not has_results:
            read = db.with_name(f".{db.name}.none")  # no result files: no runs
        elif results is not None:
            read = _snapshot(db)
        else:
            read = db
    runs = queries.site_runs(read)
    ctx = ChartContext(gpus=tuple(queries.gpu_names(read)), columns=frozenset(runs.columns))
    extra = config.get("extra") or {}
    _site = Site(
        runs=runs,
        ctx=ctx,
        estimates=queries.site_estimates(read) if _estimates_in_explorer(extra) else None,
        db=read,
        repo_url=config.get("repo_url") or "",
        repo_branch=extra.get("repo_branch", "main"),
        site_url=config.get("site_url") or "",
        lang=lang,
    )
    _loaded = stamp
    _site.start_cards()  # encoded while the pages render; the run cards' page takes them
    _generated = pages.pages(runs, queries.gpu_info(read), i18n.load(lang))
    # the MLPerf page reads its own table, never the runs (MLCommons: no mixing); its data file has its
    # own folder
    _mlperf = mlperf_pages.build(read, _site.repo_url, _site.repo_branch, results or _sources_folder())
    _generated.append(_mlperf_page(config))
    return config


def _estimates_in_explorer(extra: dict[str, Any]) -> bool:
    """mkdocs.yml ``extra.estimates_in_explorer`` (env LLMBENCH_SITE_ESTIMATES): "true"/"1" or a bool."""
    v = extra.get("estimates_in_explorer", False)
    return v is True or str(v).strip().lower() in ("1", "true", "yes")


def _other_language(config: Any) -> bool:
    """True while mkdocs-static-i18n builds the other languages of a build (from its ``on_post_build``
    after the first language; its ``building`` flag is set only then)."""
    plugin = config["plugins"].get("i18n")
    return bool(getattr(plugin, "building", False))


def _same_runs(config: Any, lang: str) -> Any:
    """This build's pages in ``lang`` from the runs already loaded."""
    global _generated
    from site_gen import i18n
    from site_gen.data import queries
    from site_gen.pages import generated as pages

    _site.lang = lang
    _generated = pages.pages(_site.runs, queries.gpu_info(_site.db), i18n.load(lang))
    _generated.append(_mlperf_page(config))
    return config


def _snapshot(db: Path) -> Path:
    """This process's snapshot of ``db`` (call with its lock held), replaced at each load (a serve
    rebuild) and removed when the process exits (a killed one's by the next ingest)."""
    global _snapshot_registered
    snap = load.snapshot(db, load.snapshot_path(db))
    if not _snapshot_registered:
        atexit.register(snap.unlink, missing_ok=True)
        _snapshot_registered = True
    return snap


_snapshot_registered = False


def _mlperf_page(config: Any) -> Any:
    """The MLPerf page in this build's language (its data file is shared at the site's root)."""
    from site_gen import i18n
    from site_gen.pages import generated as pages

    path, md = _mlperf.page(i18n.load(language(config)), language_root(config))
    return pages.GeneratedPage(path, lambda: md)


@event_priority(-200)  # after mkdocs-static-i18n's (-100): it rebuilds every docs file from disk
def on_files(files: Any, config: Any) -> Any:
    """The generated pages as in-memory files of this build's language, in the order MkDocs would have
    read them from disk; under ``ko/`` for Korean, with the i18n plugin's alternates (the language
    switch) and in its sitemap (Material's instant navigation follows only links found there)."""
    from mkdocs.structure.files import File, file_sort_key

    from site_gen import i18n
    from site_gen.charts import theme

    if _generated is None:
        return files
    docs_dir = config["docs_dir"]
    root = language_root(config)
    kept = [f for f in files if not f.src_uri.startswith((f"{GENERATED}/", f"{i18n.JS_DIR}/"))]
    new = []
    for p in _generated:
        src = f"{GENERATED}/{p.path}"
        f = File.generated(config, src, content=p.render())
        alternates = {}
        for lang in _built_languages(config):
            alt = f if lang == language(config) else File.generated(config, src, content="")
            prefix = "" if lang == i18n.DEFAULT else f"{lang}/"
            alt.dest_uri = prefix + posixpath.splitext(src)[0] + ".html"
            alternates[lang] = alt
        f.dest_uri = root + posixpath.splitext(src)[0] + ".html"
        # what mkdocs-static-i18n sets on the files it makes (its sitemap and language switch read them)
        f.alternates, f.locale, f.localization = alternates, language(config), None
        f.locale_alternate_of, f.norm_src_uri = language(config), src
        new.append(f)
    # the page script's catalogue, and the charts' theme (one source with the build's pictures of them)
    script = f"{i18n.JS_DIR}/{language(config)}.js"
    new.append(File.generated(config, script, content=i18n.load(language(config)).js() + theme.script()))
    docs = sorted([f for f in kept if f.src_dir == docs_dir or f.generated_by] + new, key=file_sort_key)
    ordered = docs + [f for f in kept if f.src_dir != docs_dir and not f.generated_by]
    # The same Files object, refilled: the i18n plugin's subclass finds a nav entry's .ko.md twin
    # (get_file_from_path); a plain Files would not.
    for f in list(files):
        files.remove(f)
    for f in ordered:
        files.append(f)
    plugin = config["plugins"].get("i18n")
    if plugin is not None:
        plugin.i18n_files_per_language[language(config)] = files.documentation_pages()
    return files


def _built_languages(config: Any) -> list[str]:
    plugin = config["plugins"].get("i18n")
    return list(plugin.build_languages) if plugin is not None else [language(config)]


def on_env(env: Any, config: Any, files: Any) -> Any:
    """The theme's own templates (site_gen/theme) get the build language's words and folder."""
    from site_gen import i18n

    env.globals["llmbench_t"] = i18n.load(language(config)).t
    env.globals["llmbench_root"] = language_root(config)
    return env


def on_page_context(context: Any, page: Any, config: Any, nav: Any) -> Any:
    """The language switch links each language's home (the i18n plugin set them to this page's twin, a
    moment before, at a higher priority); state/url.js turns the links into this page's twin with its
    query string and run id (the theme's main.html keeps them out of Material's sitemap fetches)."""
    from site_gen import i18n

    # the plugin sets the attribute (config.extra.alternate), which templates read before the key
    for alt in getattr(config["extra"], "alternate", None) or config["extra"].get("alternate") or []:
        lang = alt.get("lang")
        alt["link"] = "index.html" if lang == i18n.DEFAULT else f"{lang}/index.html"
    return context


def on_page_content(html: str, page: Any, config: Any, files: Any) -> str:
    from site_gen.pages.markers import MARKER, Page
    from site_gen.pages.widgets import planner_room

    html = planner_room(html)  # the planner's room, reserved before its script draws it
    if _site is None or not MARKER.search(html):
        return html
    p = Page(_site, page.url, language_root(config))
    out = p.expand(html)
    for error in p.errors:
        log.warning("%s: %s", page.file.src_uri, error)
    return out


def on_post_page(output: str, page: Any, config: Any) -> str:
    """The page's data files' keys in place of the placeholders the markers wrote while the worker made
    the files (``Site.keep_later``)."""
    return output if _site is None else _site.resolve(output)


def on_post_build(config: Any) -> None:
    from site_gen.pages import mlperf_pages
    from site_gen.pages.markers import DATA_DIR, PICTURE_DIR

    if _site is None:
        return
    _site.settle()  # every data file the worker was asked for, made
    target = Path(config["site_dir"]) / DATA_DIR
    target.mkdir(parents=True, exist_ok=True)
    for name, data in _site.files.items():
        if (path := target / name) not in _written:
            data.write(path)
            _written.add(path)
    if _site.pictures:
        (pictures := Path(config["site_dir"]) / PICTURE_DIR).mkdir(parents=True, exist_ok=True)
        for name, png in _site.pictures.items():
            if (path := pictures / name) not in _written:
                path.write_bytes(png.result())  # made meanwhile in another process (charts.raster)
                _written.add(path)
    if _mlperf is not None and _mlperf.files:
        (mlperf := Path(config["site_dir"]) / mlperf_pages.DATA_DIR).mkdir(parents=True, exist_ok=True)
        for name, text in _mlperf.files.items():
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
