"""Chart markers: one HTML comment in any Markdown page becomes a live chart, view or explorer.

Markers (a writer needs no Python; values with spaces are quoted; repeat a key for several values)::

    <!-- chart: tp-scaling model="Llama 3.1 8B" precision=FP16 -->     static chart(s) of a view
    <!-- chart: generational-uplift height=200 title="Caption text" -->
    <!-- view: precision-uplift gpu="H200 SXM 141GB" -->                filter bar + the view's charts
    <!-- explorer -->                                                  filter bar, charts, table, CSV
    <!-- explorer gpu="H200 SXM 141GB" -->                              the same, scoped to some runs
    <!-- explorer picture=yes -->                                      its first chart a picture on a
                                                                       phone until touched
                                                                       (``site_gen.charts.snapshot``)
    <!-- figures -->                                                   headline figures of all runs
    Across <!-- stat: bound-runs --> results ...                       one figure of the data, inline
                                                                       (``site_gen.data.stats``)
    <!-- regressions -->                                               steps down across releases
                                                                       (``site_gen.data.steps``)
    <!-- estimate-accuracy -->                                         how far AIConfigurator's estimates
                                                                       are from published runs
                                                                       (``site_gen.pages.estimate_page``)
    <!-- memory-check -->                                              the memory planner beside
                                                                       AIConfigurator's memory figure
                                                                       (``site_gen.data.estimate_memory``)

Keys are filter dimensions (``site_gen.data.dimensions``); in ``chart``/``explorer`` they fix which runs are
shown, in ``view`` they restrict the runs the filter bar can reach. Markers are expanded in the page's
HTML (after Markdown), so a marker inside a code block stays text. Every page gets at most one data file
holding the union of the runs its markers need (``site_gen.data.dataset``); identical data files are shared.
A bad marker logs a warning (which fails ``mkdocs build --strict``) and renders an error box.
"""

from __future__ import annotations

import html
import json
import math
import posixpath
import re
import secrets
import shlex
import threading
from dataclasses import dataclass, field, replace
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import markupsafe

from site_gen import i18n
from site_gen.charts.vega_compile import compile_spec
from site_gen.data import dataset
from site_gen.data.dataset import js_text
from site_gen.data.dimensions import DIMENSIONS, Filters, distinct_text, mask, release_label
from site_gen.data.dimensions import get as dimension
from site_gen.data.queries import within_bound
from site_gen.pages.background import Job, Worker
from site_gen.pages.widgets import (
    CARD_SECTIONS,
    CITE_SECTION,
    card_sections,
    dimension_json,
    limits,
    presets,
    static_bar,
    table_columns,
    varied,
)

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable
    from concurrent.futures import Future

    import pandas as pd

    from site_gen.charts.specs import ChartContext

MARKER = re.compile(
    r"<!--\s*(chart|view|explorer|figures|runcard|compare|stat|regressions|advisor|estimate-accuracy|memory-check)\b:?(.*?)-->",
    re.DOTALL,
)
# height=PX, title="caption"; picture=yes: the marker's first chart opens a phone's first screen, drawn
# there as the build's picture of it until touched (site_gen.charts.snapshot)
OPTIONS = ("height", "title", "picture")
DATA_DIR = "assets/data"
PICTURE_DIR = "assets/pictures"  # the first charts' pictures for a phone (site_gen.charts.snapshot)
RUN_PAGE = "runs.html"  # docs/runs.md: the run card of any run, by its id after the '#'


class MarkerError(ValueError):
    """A marker that cannot be expanded (unknown view or key, bad quoting)."""


@dataclass
class Marker:
    kind: str
    name: str | None
    filters: Filters
    options: dict[str, str]


def parse(kind: str, text: str) -> Marker:
    """``generational-uplift model="Llama 3.1 8B" height=200`` -> Marker."""
    try:
        words = shlex.split(html.unescape(text))
    except ValueError as e:
        raise MarkerError(f"{kind} marker: {e}") from None
    name = None
    if kind in ("chart", "view", "stat"):
        if not words or "=" in words[0]:
            raise MarkerError(f"{kind} marker: expected a view name first, e.g. <!-- {kind}: tp-scaling -->")
        name, words = words[0], words[1:]
    filters: Filters = {}
    options: dict[str, str] = {}
    for word in words:
        key, eq, value = word.partition("=")
        if not eq:
            raise MarkerError(f"{kind} marker: expected key=value, got {word!r}")
        if key in OPTIONS:
            if key == "picture" and value != "yes":
                raise MarkerError(f"{kind} marker: picture= takes yes, got {value!r}")
            options[key] = value
            continue
        try:
            dimension(key)
        except KeyError as e:
            raise MarkerError(f"{kind} marker: {e.args[0]}") from None
        filters.setdefault(key, []).append(release_label(value) if key == "version" else value)
    return Marker(kind, name, filters, options)


def estimates_after(runs: pd.DataFrame, estimates: pd.DataFrame) -> pd.DataFrame:
    """Runs, then estimates (their own rows, ``source_kind`` modelled), in one frame for a page's data."""
    import pandas as pd

    if estimates.empty:
        return runs
    return pd.concat([runs, estimates], ignore_index=True)


def page_frame(runs: pd.DataFrame, wanted: list[Filters], est: pd.DataFrame | None) -> pd.DataFrame:
    """The rows of a page's data file, in its order: the runs any of ``wanted`` keeps, then their
    estimates (``est``: the estimates, on a page that takes them)."""
    frame = _rows(runs, _union(runs, wanted))
    if est is not None:
        frame = estimates_after(frame, _rows(est, _union(est, wanted)))
    return frame.reset_index(drop=True)


def _rows(df: pd.DataFrame, keep: pd.Series) -> pd.DataFrame:
    """``df[keep]``, without its copy of every row where ``keep`` keeps them all (a page of every run: at
    a million runs that copy was a few hundred MB, made while the pages render)."""
    return df if keep.all() else df[keep]


def _union(df: pd.DataFrame, wanted: list[Filters]) -> pd.Series:
    """The rows any of ``wanted`` keeps."""
    keep = mask(df, wanted[0])
    for f in wanted[1:]:
        keep |= mask(df, f)
    return keep


def by_column(filters: Filters) -> str:
    """Fixed filters as the page script applies them: JSON of column -> allowed values."""
    return json.dumps({dimension(k).column: v for k, v in filters.items()})


@dataclass
class Site:
    """What every page of one build shares: the runs and the chart context."""

    runs: pd.DataFrame
    ctx: ChartContext
    # AIConfigurator's estimates (``queries.site_estimates``): never in ``runs``; shipped only to pages
    # whose markers are all explorers, behind the "Source kind" switch (off by default)
    estimates: pd.DataFrame | None = None
    db: Path | None = None  # the DuckDB file (the run cards read every column of it)
    repo_url: str = ""  # mkdocs.yml repo_url: result files and "report a mistake" link there
    repo_branch: str = "main"
    site_url: str = ""  # mkdocs.yml site_url: the base of a run's permalink in its "cite this"
    templates: Any = None
    files: dict[str, dataset.DataFile] = field(default_factory=dict)  # name -> data file, written after build
    # name -> PNG of a marker's first chart (picture=yes), being made (``raster.later``), written last
    pictures: dict[str, Future[bytes]] = field(default_factory=dict)
    keys: dict[str, str] = field(default_factory=dict)  # the markers' filters of a page -> its data key
    spool: dataset.Spool | None = None  # where the data files wait for the end of the build (``keep``)
    lang: str = i18n.DEFAULT  # the build's language (site_gen.i18n): labels, messages, chart titles
    # what every language of the build computes alike from the runs (release-history steps), made once
    shared: dict[str, Any] = field(default_factory=dict)
    # the second core's work (``background``): the run cards, then the pages' data files (``keep_later``)
    worker: Worker = field(default_factory=Worker)
    cards: Job | None = None  # the run cards being encoded meanwhile (``start_cards``)
    # a data file's key before it is known: the build's nonce, the job's number and the part's; swapped
    # for the key in each page's HTML (``resolve``). The nonce keeps a result file's text from matching.
    nonce: str = field(default_factory=lambda: secrets.token_hex(8))
    later: list[tuple[Job, int]] = field(default_factory=list)  # (job, its number of parts)
    settled: dict[int, list[str]] = field(default_factory=dict)  # a job's number -> its parts' keys

    def __post_init__(self) -> None:
        import jinja2

        self.templates = jinja2.Environment(
            loader=jinja2.FileSystemLoader(Path(__file__).parents[1] / "templates"),  # site_gen/templates
            autoescape=True,
            undefined=jinja2.StrictUndefined,
            trim_blocks=True,
        )

    def once(self, kind: str, key: Any, make: Callable[[], Any]) -> Any:
        """``make()`` the first time this build asks for ``kind`` of ``key`` (a marker's filters and the
        like, compared as sorted JSON), its value every later time: what every language computes alike
        from the runs is computed once (``shared``)."""
        known = self.shared.setdefault(kind, {})
        which = json.dumps(key, sort_keys=True)
        if which not in known:
            known[which] = make()
        return known[which]

    def keep(self, data: dataset.DataFile) -> str:
        """Hold a page's data file until the build writes it (``on_post_build``), on disk meanwhile in an
        unnamed temporary file (``dataset.Spool``: a killed build leaves nothing behind). Returns its key."""
        if self.spool is None:
            self.spool = dataset.Spool()
        data.spill(self.spool)
        self.files[dataset.data_name(data.key)] = data
        return data.key

    def start_cards(self) -> None:
        """Encode the run cards in the worker while the pages render (``card_keys`` names them): at a
        million runs they are ~15 s of the build's one core otherwise, and most of their encoding
        (DuckDB's query, Arrow's and numpy's array operations) runs outside Python's lock."""
        if self.db is not None and self.cards is None:
            self.cards = self.worker.submit(self._encode_cards)

    def card_files(self) -> list[str]:
        """The run cards' partitions (``dataset.card_part``), kept until the build writes them: their keys,
        none when the database has no run. Every column of every run, streamed from DuckDB in batches,
        never one frame of it all; encoded meanwhile where ``start_cards`` began it."""
        keys = self.card_keys()
        return [k for text in keys for k in self.resolve(text).split()]

    def card_keys(self) -> list[str]:
        """``card_files``' keys as placeholders (``keep_later``) while the worker encodes them: one per
        partition, none when the database has no run (or estimate) for a card."""
        from site_gen.data import queries

        if self.db is None:
            return []
        if "cards" not in self.keys:
            self.start_cards()
            assert self.cards is not None
            files = dataset.card_parts(len(self.runs)) if queries.detail_rows(self.db) else 0
            self.keys["cards"] = self._later(self.cards, files)
        return self.keys["cards"].split()

    def keep_later(self, files: Callable[[threading.Event], Iterable[dataset.DataFile]], parts: int) -> str:
        """A data file made by the worker (``files``: its parts, ``parts`` of them) while the pages go on:
        its parts' keys for now, space-separated as ``_data_key``'s, each a placeholder that ``resolve``
        swaps for the key once the file is made (MkDocs turns every page into HTML before it writes the
        first, so the worker has that long)."""

        def spilled(stop: threading.Event) -> list[dataset.DataFile]:
            spool = dataset.Spool()  # its own: the page thread reads a finished job's while this writes
            made = []
            for f in files(stop):  # each part on disk before the next is encoded
                if stop.is_set():  # the build has ended: what is made is not needed (``background``)
                    break
                f.spill(spool)
                made.append(f)
            return made

        return self._later(self.worker.submit(spilled), parts)

    def _later(self, job: Job, parts: int) -> str:
        """Placeholders for the ``parts`` files ``job`` makes (``resolve``)."""
        number = len(self.later)
        self.later.append((job, parts))
        return " ".join(f"lbdata{self.nonce}x{number}x{part}" for part in range(parts))

    def resolve(self, text: str) -> str:
        """``text`` (a page's HTML) with every placeholder of ``keep_later`` swapped for its key, waiting for
        the worker where it has not made the file yet (and raising its error, if it failed)."""
        if self.nonce not in text:
            return text
        return re.sub(f"lbdata{self.nonce}x(\\d+)x(\\d+)", lambda m: self._key(int(m[1]))[int(m[2])], text)

    def settle(self) -> None:
        """Wait for every data file of ``keep_later`` and hold it with the others (``files``), to write."""
        for number in range(len(self.later)):
            self._key(number)

    def _key(self, number: int) -> list[str]:
        if number not in self.settled:
            job, parts = self.later[number]
            files = job.result()
            if len(files) != parts:  # the pages name ``parts`` files: another count would break them
                raise RuntimeError(f"a data file came in {len(files)} parts, not the {parts} its pages name")
            for f in files:  # already on disk, in a spool of their own
                self.files[dataset.data_name(f.key)] = f
            self.settled[number] = [f.key for f in files]
        return self.settled[number]

    def _encode_cards(self, stop: threading.Event | None = None) -> list[dataset.DataFile]:
        """The run cards' files, spilled to a spool of their own (a thread may run this: nothing of the
        site's is touched). ``stop``: checked between batches and files; once set, what is done so far
        is dropped and nothing is returned (the build has ended without the cards)."""
        from site_gen.data import cite, queries

        assert self.db is not None
        stop = stop or threading.Event()
        extra = cite.columns_sql(self.site_url)  # "cite this": the permalinks' base is the site's URL
        parts = dataset.card_parts(len(self.runs))
        enc = dataset.PartitionedEncoder(parts)
        batches = queries.card_batches(
            self.db, parts, dataset.card_part_array, arrow=dataset.arrow_types, extra=extra
        )
        for batch in batches:
            if stop.is_set():
                return []
            enc.add(batch)
        files: list[dataset.DataFile] = []
        if enc.rows:
            spool = dataset.Spool()
            for f in enc.finish_each("cards"):
                if stop.is_set():
                    return []
                f.spill(spool)
                files.append(f)
        del enc
        dataset.release_freed_heap()  # the encoding's freed chunks, else held to the end of the build
        return files

    @property
    def cat(self) -> i18n.Catalogue:
        return i18n.load(self.lang)

    def render(self, template: str, **kw: Any) -> str:
        return self.templates.get_template(template).render(t=self.cat.t, **kw)


_LITERAL = re.compile(r"'((?:[^'\\]|\\.)*)'")  # a quoted string in a Vega expression


def _literals(expr: str, words: dict[str, str]) -> str:
    """A Vega expression with its quoted strings mapped (a note's text built as ``datum.n + ' runs …'``)."""

    def one(m: re.Match) -> str:
        if m.group(1) not in words:
            return m.group(0)  # as written (escapes kept)
        return "'" + words[m.group(1)].replace("\\", "\\\\").replace("'", "\\'") + "'"

    return _LITERAL.sub(one, expr)


def localize(spec: Any, words: dict[str, str]) -> Any:
    """A Vega-Lite spec with its titles (chart, axis, legend, tooltip), an input's label (``bind.name``)
    and the quoted text of computed fields (``calculate``) and legend labels (``labelExpr``) in the page's
    language: ``site_gen.charts.specs`` writes English, the catalogue's ``chart.*`` and ``table.*`` keys map
    it (``i18n.translator``)."""
    if isinstance(spec, dict):
        out = {}
        for k, v in spec.items():
            if k == "title" and isinstance(v, str):
                out[k] = words.get(v, v)
            elif k == "title" and isinstance(v, list) and all(isinstance(x, str) for x in v):
                out[k] = [words.get(x, x) for x in v]
            elif k in ("calculate", "labelExpr") and isinstance(v, str):
                out[k] = _literals(v, words)
            elif k == "bind" and isinstance(v, dict) and isinstance(v.get("name"), str):
                out[k] = {**v, "name": words.get(v["name"], v["name"])}
            else:
                out[k] = localize(v, words)
        return out
    if isinstance(spec, list):
        return [localize(v, words) for v in spec]
    return spec


@cache
def _specs(name: str, height: int, ctx: ChartContext, lang: str = i18n.DEFAULT) -> tuple[str, ...]:
    words = i18n.translator(lang)
    return tuple(
        json.dumps(compile_spec(localize(spec, words)), separators=(",", ":"), ensure_ascii=False)
        for spec in _english_specs(name, height, ctx)
    )


@cache
def _english_specs(name: str, height: int, ctx: ChartContext) -> tuple[dict[str, Any], ...]:
    """A view's Vega-Lite specs as ``site_gen.charts.specs`` writes them (English): built and validated by
    Altair once for all languages of a build (``localize`` makes a translated copy, never changes them)."""
    from site_gen.charts import specs as charts
    from site_gen.charts import views

    return tuple(charts.to_spec(c) for c in views.get(name).build(replace(ctx, height=height)))


class Page:
    """Expands the markers of one page and collects the runs they need."""

    def __init__(self, site: Site, url: str, root: str = "") -> None:
        """``url``: the page's URL from the site's root; ``root``: its language's folder ("" or "ko/"),
        where its run-card and explorer pages are (data files are shared at the site's root)."""
        self.site, self.url, self.root = site, url, root
        self.needed: list[Filters] = []
        self._wanted: list[Filters] = []  # the filters of the markers that share the page's data file
        self._with_estimates = False
        self.errors: list[str] = []
        self._src = self._key = ""
        # the run cards' page, relative to this page (table rows and chart points link to it)
        self.card = self._rel(root + RUN_PAGE)

    def _rel(self, target: str) -> str:
        return posixpath.relpath(target, posixpath.dirname(self.url) or ".")

    def expand(self, content: str) -> str:
        markers: list[tuple[re.Match, Marker | MarkerError]] = []
        for m in MARKER.finditer(content):
            try:
                markers.append((m, parse(m.group(1), m.group(2))))
            except MarkerError as e:
                markers.append((m, e))
        self._prepare_data([mk for _, mk in markers if isinstance(mk, Marker)])
        out, last = [], 0
        for m, mk in markers:
            out += [content[last : m.start()], self._render(mk)]
            last = m.end()
        return "".join([*out, content[last:]])

    def _prepare_data(self, markers: list[Marker]) -> None:
        """One data file for the page: the union of the runs its markers can show."""
        runs = self.site.runs
        own_data = (
            "figures", "runcard", "stat", "regressions", "advisor", "estimate-accuracy", "memory-check",
        )  # fmt: skip
        needing = [mk for mk in markers if mk.kind not in own_data]
        wanted = [mk.filters for mk in needing]
        if not wanted or runs.empty:
            return
        # Estimates only where every marker is an explorer or compare mode: a view or chart computes bests
        # from the page's data; the explorer draws runs, one each, and compare pairs estimates only with
        # estimates, beside the measured pairs (calc/compare.js: usable() leaves them out of those).
        self._with_estimates = all(mk.kind in ("explorer", "compare") for mk in needing)
        self._wanted = wanted
        self._key = self._data_key(wanted)
        self._src = self._srcs(self._key)

    def _data_key(self, wanted: list[Filters], rows: int | None = None) -> str:
        """The data file of the runs any of ``wanted`` keeps (and their estimates, on a page that takes
        them): its key, or its parts' keys space-separated (data/source.js). Pages asking for the same runs
        (every view page wants all of them) share one file, encoded once, by the worker while the pages go
        on (``Site.keep_later``: placeholders until the page is written). ``rows``: the file's rows where
        the caller has counted them (``_value_files``), for its number of parts."""
        est = self._page_estimates()
        cache_key = json.dumps(sorted({json.dumps(f, sort_keys=True) for f in wanted})) + (
            "+est" if est is not None else ""
        )
        if cache_key not in self.site.keys:
            if rows is None:
                rows = int(_union(self.site.runs, wanted).sum())
                rows += 0 if est is None else int(_union(est, wanted).sum())
            runs = self.site.runs
            # in parts above dataset.ROWS_PER_PART rows: keys and paths space-separated (data/source.js)
            self.site.keys[cache_key] = self.site.keep_later(
                lambda stop: dataset.frame_parts("runs", page_frame(runs, wanted, est)),
                max(1, math.ceil(rows / dataset.ROWS_PER_PART)),
            )
        return self.site.keys[cache_key]

    def _page_estimates(self) -> pd.DataFrame | None:
        """The estimates, where this page's data file takes them (``_prepare_data``) and there are any."""
        est = self.site.estimates if self._with_estimates else None
        return est if est is not None and not est.empty else None

    def _srcs(self, keys: str) -> str:
        """The paths of a data file's parts (``_data_key``), space-separated, relative to the page."""
        return " ".join(self._rel(f"{DATA_DIR}/{dataset.data_name(k)}") for k in keys.split())

    def _render(self, mk: Marker | MarkerError) -> str:
        try:
            if isinstance(mk, MarkerError):
                raise mk
            return getattr(self, f"_render_{mk.kind.replace('-', '_')}")(mk)
        except (MarkerError, KeyError) as e:
            msg = str(e.args[0] if isinstance(e, KeyError) else e)
            self.errors.append(msg)
            return self.site.render(
                "empty.html.j2", message=self.site.cat.t("widgets.marker_error", error=msg)
            )

    def _subset(self, filters: Filters) -> pd.DataFrame:
        return self.site.runs[mask(self.site.runs, filters)]

    def _charts(
        self, name: str, mk: Marker, caption: str | None = None, first: pd.DataFrame | None = None
    ) -> list[dict[str, Any]]:
        """The view's chart placeholders; ``first``: the rows of the marker's first view, whose first chart
        then gets its pictures for a phone (``_picture``) where the marker asks for them (picture=yes)."""
        from site_gen.charts import views

        view = views.get(name)
        height = int(mk.options.get("height", self.site.ctx.height))
        fixed = by_column(mk.filters)
        return [
            {
                "spec": spec,
                "fixed": fixed,
                "src": self._src,
                "key": self._key,
                "label": self.site.cat.messages.get(f"views.{view.name}.title", view.title),
                "card": self.card,
                "caption": caption if i == 0 else None,
                "reserve": reserved_height(spec),
                "picture": self._picture(name, spec, first) if i == 0 and first is not None else None,
            }
            for i, spec in enumerate(_specs(name, height, self.site.ctx, self.site.lang))
        ]

    def _picture(self, name: str, spec: str, rows: pd.DataFrame) -> dict[str, Any] | None:
        """The chart drawn at build time for a phone's first screen (``site_gen.charts.snapshot``), kept
        until the build writes it: {light, dark (paths from the page), width, height, media (the screens
        that show it)}; None where the picture would not be the page script's chart."""
        from site_gen.charts import snapshot

        pic = snapshot.picture(f"{name}-{self.site.lang}", spec, rows, self.site.cat)
        if pic is None:
            return None
        self.site.pictures.update(pic.files)
        paths = {s: self._rel(f"{PICTURE_DIR}/{pic.name(s)}") for s in ("light", "dark")}
        return {**paths, "width": pic.width, "height": pic.height, "media": snapshot.PHONE}

    def _first_view(self, filters: Filters, file: pd.DataFrame | None = None) -> pd.DataFrame | None:
        """The rows the page script draws first, for the build's picture of its first chart: those of a
        data file (``file``: its rows in order; the page's own data file when None) that ``filters`` keep,
        each with its sideways offset from its place in the file (``snapshot.with_jitter``). None above
        ``snapshot.MAX_ROWS``, before any copy (no picture then)."""
        import numpy as np
        import pandas as pd

        from site_gen.charts import snapshot

        if file is not None:
            keep = mask(file, filters).to_numpy()
            if keep.sum() > snapshot.MAX_ROWS:
                return None
            return snapshot.with_jitter(file[keep], np.flatnonzero(keep))
        # the page's data file without making it: the runs any marker keeps, then their estimates
        parts, before = [], 0
        for frame in (self.site.runs, self._page_estimates()):
            if frame is None:
                continue
            union = _union(frame, self._wanted).to_numpy()
            keep = union & mask(frame, filters).to_numpy()
            if keep.sum() > snapshot.MAX_ROWS:
                return None
            place = before + np.cumsum(union) - 1  # each row's place in the file
            parts.append(snapshot.with_jitter(frame[keep], place[keep]))
            before += int(union.sum())
        rows = pd.concat(parts, ignore_index=True) if len(parts) > 1 else parts[0]
        return None if len(rows) > snapshot.MAX_ROWS else rows

    def _empty(self, mk: Marker, found: bool, what: str = "") -> str | None:
        """The "no data" box when the marker has no run (``found`` false), else None."""
        if found:
            return None
        if self.site.runs.empty:
            msg = self.site.cat.t("widgets.no_results")
        else:
            which = "; ".join(f"{k} = {', '.join(v)}" for k, v in mk.filters.items())
            msg = self.site.cat.t("widgets.no_match", filters=which)
        return self.site.render("empty.html.j2", message=f"{what}: {msg}" if what else msg)

    def _scope(
        self,
        template: str,
        mk: Marker,
        dims: Any,
        defaults: Filters,
        bar_runs: pd.DataFrame | None = None,
        **kw: Any,
    ) -> str:
        """A filter scope (view or explorer): the marker's fixed runs, the page data, the filter bar."""
        sub = self._subset(mk.filters) if bar_runs is None else bar_runs
        return self.site.render(
            template,
            fixed=by_column(mk.filters),
            src=self._src,
            key=self._key,
            dims=json.dumps([dimension_json(d, self.site.cat) for d in dims]),
            defaults=json.dumps(defaults),
            card=self.card,
            bar=static_bar(sub, dims, defaults, self.site.cat, self._varied(template, mk, sub, dims)),
            **kw,
        )

    def _varied(self, template: str, mk: Marker, sub: pd.DataFrame, dims: Any) -> set[str]:
        """``widgets.varied`` of a scope's runs (``sub``): the same in every language, found once. The runs
        follow from the scope's kind, its marker's filters and whether the page takes estimates."""
        which = [template, mk.filters, self._with_estimates, [d.key for d in dims]]
        return self.site.once("varied", which, lambda: varied(sub, dims))

    def _render_chart(self, mk: Marker) -> str:
        from site_gen.charts import views

        view = views.get(mk.name or "")
        title = self.site.cat.messages.get(f"views.{view.name}.title", view.title)
        # whether any run matches, not the runs: a copy of a million runs' matches is 20-300 ms of pandas
        if box := self._empty(mk, bool(mask(self.site.runs, mk.filters).any()), title):
            return box
        caption = mk.options.get("title")
        first = self._first_view(mk.filters) if mk.options.get("picture") else None
        charts = self._charts(view.name, mk, caption, first)
        return "".join(self.site.render("_chart.html.j2", c=c) for c in charts)

    def _render_view(self, mk: Marker) -> str:
        from site_gen.charts import views

        view = views.get(mk.name or "")
        sub = self._subset(mk.filters)
        if box := self._empty(
            mk, not sub.empty, self.site.cat.messages.get(f"views.{view.name}.title", view.title)
        ):
            return box
        # its opening selection: the same in every language, found once (a grouping of every run)
        defaults = self.site.once("defaults", [view.name, mk.filters], lambda: view.defaults(sub))
        summary = self._slice(mk, sub, defaults, view.single, view.filters)
        # the first view: the opening selection's own file at scale (``_slice``), else the page's data
        opening = {**mk.filters, **defaults}
        first = (
            self._first_view(opening, sub[mask(sub, defaults)] if summary else None)
            if mk.options.get("picture")
            else None
        )
        return self._scope(
            "view.html.j2",
            mk,
            [replace(dimension(k), multi=k not in view.single) for k in view.filters],
            defaults,
            bar_runs=sub,  # the marker's runs once: each subset of a million runs is 20-30 ms of pandas
            summary=summary,
            charts=self._charts(view.name, mk, mk.options.get("title"), first),
            after=markupsafe.Markup(view.after(self.site.cat)) if view.after else "",
        )

    def _render_explorer(self, mk: Marker) -> str:
        sub = self._subset(mk.filters)
        if box := self._empty(mk, not sub.empty):
            return box
        from site_gen.charts.latency_views import DEFAULT_PRICE, PRICE_KEY

        est = self.site.estimates
        shown = sub
        defaults: Filters = {}
        est_low = False  # the "low-confidence estimates too" box, where an estimate is held back
        if self._with_estimates and est is not None and not est.empty:
            mine = est[mask(est, mk.filters)]
            if not mine.empty:
                # the switch: "Source kind" starts at every kind but the estimates' (the page script keeps a
                # changed choice in the URL; docs/reference/estimates.md says what a hand-made URL does)
                shown = estimates_after(sub, mine)
                defaults = {"kind": distinct_text(sub["source_kind"])}
                est_low = "est_confidence" in mine and bool((mine["est_confidence"] != "validated").any())
        summary = self._summary(mk, sub, defaults, shown)
        # the first view: the best run of each cell at scale (the summary's file), else the page's data
        file = self.site.shared["summary"][3] if summary else None
        first = self._first_view({**mk.filters, **defaults}, file) if mk.options.get("picture") else None
        return self._scope(
            "explorer.html.j2",
            mk,
            DIMENSIONS,
            defaults,
            bar_runs=shown,
            limits=limits(sub, self.site.cat),
            price={"key": PRICE_KEY, "default": DEFAULT_PRICE},
            est_low=est_low,
            table=json.dumps(table_columns(self.site.runs.columns, self.site.cat)),
            presets=[] if mk.filters else presets(sub, self.site.cat),
            summary=summary,
            charts=[
                *self._charts("runs-by-gpu", mk, self.site.cat.t("widgets.explorer_gpu_caption"), first),
                *self._charts("runs-by-tp", mk, self.site.cat.t("widgets.explorer_tp_caption")),
            ],
        )

    def _summary(self, mk: Marker, sub: pd.DataFrame, defaults: Filters, shown: pd.DataFrame) -> str:
        """The explorer's first view at scale (``dataset.best_per_cell``), as the placeholder's
        ``data-lb-summary`` JSON {src, key, runs, cells, dims, figure, more, parts}; "" (load every run at
        once) for an explorer with fixed filters or fewer than ``dataset.SUMMARY_FROM_RUNS`` runs. One
        file for every language. ``dims``: the filter dimensions of the summary's cells, which filter it
        exactly (the best run of each H200 cell is the best run of that cell) without loading every run.
        ``more``: {dimension: {counts, values: {value text: file}}} for each other dimension the summary
        takes a filter on (``dataset.summary_by``); a file is {src, key}. ``parts`` (``_parts``): every
        run of each GPU of ``shown`` (the runs and the estimates the explorer shows) in a file of its own,
        then of each model: "every run" with GPUs chosen loads theirs, with no GPU but models chosen the
        models' (data/runs.js)."""
        if mk.filters or len(sub) < dataset.SUMMARY_FROM_RUNS:
            return ""
        if "summary" not in self.site.shared:
            self.site.shared["summary"] = self._summary_files(sub, defaults)
        key, cells, more, _ = self.site.shared["summary"]
        file = lambda k: {"src": self._rel(f"{DATA_DIR}/{dataset.data_name(k)}"), "key": k}  # noqa: E731
        return json.dumps(
            {
                **file(key),
                "runs": len(sub),
                "cells": cells,
                "dims": [d.key for d in DIMENSIONS if d.column in dataset.SUMMARY_CELL],
                "figure": dataset.SUMMARY_FIGURE,
                "more": {
                    dim: {"counts": file(c), "values": {v: file(k) for v, k in values.items()}}
                    for dim, (c, values) in more.items()
                },
                "parts": [self._parts(mk, shown, "gpu"), self._parts(mk, shown, "model")],
            }
        )

    def _parts(self, mk: Marker, frame: pd.DataFrame, dim: str = "gpu") -> dict[str, Any]:
        """Every run of each value of ``dim`` (GPU or model) in ``frame`` in a file of its own, for the page
        script's every run of the values a filter names (data/runs.js): {dim, files: {value: file},
        order: {value: its sort value}}, ``order`` placing a value not loaded in the filter's list as every
        run would."""
        d = dimension(dim)
        return {
            "dim": dim,
            "files": self._value_files(mk, frame, dim),
            "order": _sort_values(frame, d.column, d.sort_column),
        }

    def _summary_files(
        self, sub: pd.DataFrame, defaults: Filters
    ) -> tuple[str, int, dict[str, tuple[str, dict[str, str]]], pd.DataFrame]:
        """The summary's data files, kept (``keep``): its key, its number of cells, for each other
        dimension of two values or more that has no default (the source kind's default leaves estimates
        out: the summary has none) the keys of its counts and of each value's best runs; and its rows."""
        cell = dataset.cells(sub)  # each run's cell once, for every grouping below
        best = dataset.best_per_cell(sub, cell=cell)
        key = self.site.keep(dataset.frame_file("summary", best))
        more: dict[str, tuple[str, dict[str, str]]] = {}
        for d in DIMENSIONS:
            if d.column in dataset.SUMMARY_CELL or defaults.get(d.key) or sub[d.column].nunique() < 2:
                continue
            counts, parts = dataset.summary_by(sub, best, d.column, d.sort_column, cell)
            more[d.key] = (
                self.site.keep(dataset.frame_file(f"summary-{d.key}", counts)),
                {
                    js_text(v): self.site.keep(dataset.frame_file(f"summary-{d.key}", part))
                    for v, part in parts.items()
                },
            )
        return key, len(best), more, best

    def _slice(
        self,
        mk: Marker,
        sub: pd.DataFrame,
        defaults: Filters,
        single: tuple[str, ...] = (),
        filters: tuple[str, ...] = (),
    ) -> str:
        """A view's first view at scale: every run of its opening selection (``defaults``), as the
        placeholder's ``data-lb-summary`` JSON {src, key, runs, cells, dims: [], slice: true, parts?}.
        Exact (the rows every run gives there, in the same order), so the charts and the count line are
        the same; any other selection loads every run of the GPUs it names, or with no GPU named the models
        it names, or, on a view page whose model is one choice (``single``), every run of that model
        (``parts``, of the view's filter dimensions ``filters``); every run where it names neither. ""
        below ``dataset.SUMMARY_FROM_RUNS`` runs, or where the selection is most of the runs (a view
        opening on every run)."""
        if len(sub) < dataset.SUMMARY_FROM_RUNS or not defaults:
            return ""

        def slice_file() -> tuple[str, int]:  # one file per selection, for every language
            part = sub[mask(sub, defaults)]
            small = len(part) <= len(sub) // 2
            key = self.site.keep(dataset.frame_file("slice", part.reset_index(drop=True))) if small else ""
            return key, len(part)

        key, cells = self.site.once("slices", [mk.filters, defaults], slice_file)
        if not key:
            return ""
        src = self._rel(f"{DATA_DIR}/{dataset.data_name(key)}")
        first = {"src": src, "key": key, "runs": len(sub), "cells": cells, "dims": [], "slice": True}
        # Where a change loads from (data/runs.js: the first part a state names serves it), the files the
        # GPU and model pages load (no file more). A view whose model is one choice (a radio button,
        # ``single``) opens on a model, and every state of it names one: every run of that model. Else the
        # GPUs a state names, or, where it names no GPU, its models: every run once it names neither.
        if not mk.filters:
            one_model = "model" in single and "model" in defaults
            dims = ["model"] if one_model else [d for d in ("gpu", "model") if d in filters]
            if dims:
                first["parts"] = [self._parts(mk, sub, d) for d in dims]
        return json.dumps(first)

    def _render_compare(self, mk: Marker) -> str:
        """Compare mode: A vs B over the configurations both have (``site_gen.pages.compare``)."""
        from site_gen.charts import specs as charts
        from site_gen.pages import compare

        sub = self._subset(mk.filters)
        if box := self._empty(mk, not sub.empty):
            return box
        ratio = charts.to_spec(charts.compare_ratio(self.site.ctx), described=False)  # the summary says it

        # the pair it opens on, its presets and its reserved height: the same in every language
        def facts() -> tuple[compare.Facts, Any]:
            known = compare.facts(sub)
            pair = {"a": known.pair[0], "b": known.pair[1]} if known.pair else None
            return known, compare_reserve(sub, pair)

        known, reserve = self.site.once("compare", mk.filters, facts)
        cfg = compare.config(sub, self.site.cat, known)
        cfg["scale"] = self._compare_parts(mk, sub)
        spec = json.dumps(
            compile_spec(localize(ratio, i18n.translator(self.site.lang))),
            separators=(",", ":"),
            ensure_ascii=False,
        )
        return self.site.render(
            "compare.html.j2",
            src=self._src,
            key=self._key,
            card=self.card,
            fixed=by_column(mk.filters),
            config=json.dumps(cfg, ensure_ascii=False),
            presets=cfg["presets"],
            c={
                "spec": spec,
                "fixed": "{}",
                "src": "",
                "key": "",
                "label": self.site.cat.t("compare.chart_label"),
                "card": self.card,
                "caption": None,
                "reserve": reserve,
            },
        )

    def _compare_parts(self, mk: Marker, sub: pd.DataFrame) -> dict[str, Any] | None:
        """Compare mode at scale (issue 29): {combos: file, gpus: {GPU: {src, key}}, models: {model: {src,
        key}}}: the pickers' values (``compare.combos``) and each GPU's and each model's runs in a data file
        of its own (the one its GPU or model page loads, where that page asks for the same runs), so
        comparing two GPUs loads those two only, and a comparison filtered on a model that model's. None
        below ``dataset.SUMMARY_FROM_RUNS`` runs: the page loads its whole set at once."""
        from site_gen.pages import compare

        if len(sub) < dataset.SUMMARY_FROM_RUNS:
            return None
        # one file per marker's runs, for every language
        key = self.site.once(
            "combos", mk.filters, lambda: self.site.keep(dataset.frame_file("combos", compare.combos(sub)))
        )
        return {
            "combos": {"src": self._rel(f"{DATA_DIR}/{dataset.data_name(key)}"), "key": key},
            "gpus": self._value_files(mk, sub),
            "models": self._value_files(mk, sub, "model"),
        }

    def _value_files(self, mk: Marker, frame: pd.DataFrame, dim: str = "gpu") -> dict[str, dict[str, str]]:
        """Each value of ``dim`` (GPU or model) in ``frame`` with the data file of the marker's runs of it
        ({value: {src, key}}, by name; ``_data_key``, so with their estimates on a page that takes them): at
        scale, compare, the views and the explorer's "every run" load the GPUs or the model they show, not
        every run. A GPU or model page asking for the same runs shares the file, and so do compare and the
        explorer (both take estimates)."""
        column = dimension(dim).column
        values = distinct_text(frame[column])
        # each value's rows, counted in one pass (not a mask of every run per value): the parts it needs
        rows = self._rows_by(mk.filters, column)
        keys = {v: self._data_key([{**mk.filters, dim: [v]}], rows.get(v, 0)) for v in values}
        return {v: {"src": self._srcs(k), "key": k} for v, k in keys.items()}

    def _rows_by(self, filters: Filters, column: str) -> dict[str, int]:
        """The rows of the page's data file for ``filters`` (its runs, and its estimates on a page that
        takes them) by value of ``column`` as text: what ``_data_key`` counts for one value, all at once."""
        est = self._page_estimates()

        def count() -> dict[str, int]:
            counts: dict[str, int] = {}
            for df in (self.site.runs, est):
                if df is None:
                    continue
                values = df.loc[mask(df, filters), column] if filters else df[column]
                # each distinct value as text once, as ``distinct_text`` and ``mask`` compare them
                for v, n in values.value_counts().items():
                    counts[str(v)] = counts.get(str(v), 0) + int(n)
            return counts

        return self.site.once("rows_by", [filters, column, est is not None], count)  # every page and language

    def _render_runcard(self, mk: Marker) -> str:
        """The run card of the run named after the '#' of the page's URL, from the card partition holding
        that run (``dataset.card_part``): every column of about ``dataset.CARDS_PER_PART`` runs a file, so a
        card never loads every run (loaded only by this page)."""
        keys = self.site.card_keys()  # placeholders until the page is written: the worker encodes them
        if not keys:
            return self.site.render("empty.html.j2", message=self.site.cat.t("widgets.no_results"))
        srcs = [self._rel(f"{DATA_DIR}/{dataset.data_name(k)}") for k in keys]
        return self.site.render(
            "runcard.html.j2",
            cards=json.dumps({"src": srcs, "key": keys}),
            sections=json.dumps(
                card_sections(self.site.cat, [*CARD_SECTIONS, CITE_SECTION]), ensure_ascii=False
            ),
            repo=self.site.repo_url.rstrip("/"),
            branch=self.site.repo_branch,
            explorer=self._rel(self.root + "explorer.html"),
        )

    def _render_advisor(self, mk: Marker) -> str:
        """The advisor (site_gen.pages.advisor): its own data file of configuration curves, shared by
        languages."""
        from site_gen.pages import advisor

        if mk.filters:
            raise MarkerError("advisor marker: takes no filters")
        return advisor.render(self)

    def _render_estimate_accuracy(self, mk: Marker) -> str:
        """How good the estimates are (``site_gen.pages.estimate_page.render_marker``)."""
        from site_gen.pages import estimate_page

        if mk.filters:
            raise MarkerError("estimate-accuracy marker: takes no filters")
        return estimate_page.render_marker(self)

    def _render_memory_check(self, mk: Marker) -> str:
        """The planner page's cross-check from the committed AIConfigurator memory table."""
        from site_gen.data import estimate_memory

        if mk.filters:
            raise MarkerError("memory-check marker: takes no filters")
        return estimate_memory.render_memory_check(self.site.cat.t, estimate_memory.memory_checks())

    def _render_stat(self, mk: Marker) -> str:
        from site_gen.data import stats

        if mk.filters:
            raise MarkerError(f"stat marker: takes a figure's name only, got {by_column(mk.filters)}")
        name = mk.name or ""
        figure = stats.value(name, self.site.db)  # raises UnknownStat (a KeyError) for a name it lacks
        return f'<span class="lb-stat" data-stat="{html.escape(name)}">{html.escape(figure)}</span>'

    def _render_regressions(self, mk: Marker) -> str:
        from site_gen.data import steps

        if mk.filters or self.site.db is None or not self.site.db.exists():
            if mk.filters:
                raise MarkerError("regressions marker: takes no filters")
            return self.site.render("steps.html.j2", rows=[], histories=0, sigma="", min_steps=0)
        if "steps" not in self.site.shared:  # the same for every language of the build
            # kept: the count, sigma and the rows down, not the histories (at a million runs every history
            # was ~0.35 GB held to the end of the build, under the second language's peak)
            checked = steps.check(self.site.db)
            rows = [steps.row(f) for f in checked.found if f.step.ratio < 1]
            self.site.shared["steps"] = (checked.histories, checked.sigma, rows)
        histories, sigma, rows = self.site.shared["steps"]
        return self.site.render(
            "steps.html.j2",
            rows=rows,
            histories=f"{histories:,}",
            sigma=f"{100 * (math.exp(sigma) - 1):.1f}%",
            min_steps=f"{steps.MIN_STEPS:g}",
        )

    def _render_figures(self, mk: Marker) -> str:
        runs = self.site.runs
        best = None
        candidates = within_bound(runs)  # a run above its physical bound never makes the headline
        if not candidates.empty and candidates["output_tps_per_gpu"].notna().any():
            best = candidates.loc[candidates["output_tps_per_gpu"].idxmax()].to_dict()
        return self.site.render(
            "figures.html.j2",
            runs=len(runs),
            gpus=runs["gpu"].nunique(),
            models=runs["model_name"].nunique(),
            versions=runs[["engine", "engine_version"]].drop_duplicates().shape[0],
            sources=runs["publisher"].nunique(),
            workloads=runs["workload"].nunique(),
            best=best,
        )


# The least a chart adds to its plot's height (axes, axis titles, a legend row, the export menu), measured
# in Chromium over every chart page at 1440 and 390 px wide (69-340 px): the placeholder reserves the
# plot's height plus this before the chart is drawn, so that the page below does not jump when it
# arrives (layout shift). Charts taller than that push the page by the rest only.
CHART_CHROME_PX = 110


# What compare mode's dot plot adds to its lines, the same at any width (no legend, no chart title, level
# x labels, one line of x title): the x axis under the plot, Vega's defaults (tick 5 + label padding 2 +
# 10 px labels + title padding 4 + 11 px title = 32 px, and half the axis line's pixel), a pixel above the
# first line (the rule at 1 overhangs it), the view's padding (5 + 5) and the 4 px vega-embed leaves under
# its canvas: 47.5, drawn as 47 (the canvas rounds down). CHART_CHROME_PX reserved 63 px of nothing under
# the chart (issue 26); tests/site/test_compare_reserve.py measures both in Chromium at 390 and 1440 px.
COMPARE_CHROME_PX = 47


def compare_reserve(runs: pd.DataFrame, default: dict[str, str] | None) -> int:
    """Pixels to reserve for compare mode's dot plot as the page opens (on its default pair): one line
    per workload (``charts.COMPARE_STEP``) + ``COMPARE_CHROME_PX``, the height the chart draws, so the page
    neither keeps a gap under it nor moves when it arrives; another pair's plot grows or shrinks (the
    page script drops the reservation once the chart is drawn)."""
    from site_gen.charts import specs as charts
    from site_gen.pages import compare

    lines = compare.workloads(runs, "gpu", default["a"], default["b"]) if default else 0
    return charts.COMPARE_STEP * max(lines, 1) + COMPARE_CHROME_PX


def reserved_height(spec: str) -> int | None:
    """Pixels to reserve for a chart before it is drawn: its plot height + ``CHART_CHROME_PX``."""
    height = json.loads(spec).get("height")
    return height + CHART_CHROME_PX if isinstance(height, int | float) else None


def _sort_values(frame: pd.DataFrame, column: str, sort_column: str | None) -> dict[str, Any]:
    """Each value of ``column`` with the ``sort_column`` of its first row (as the page script orders a
    filter's options: crossfilter.valueCodes); None where there is none (the options sort by text)."""
    # the two columns only: a copy of every column of a million runs cost ~0.1 s a call, two a marker
    sort_column = sort_column if sort_column and sort_column in frame else None
    first = frame[[column, sort_column] if sort_column else [column]]
    first = first.dropna(subset=[column]).drop_duplicates(column)
    orders = first[sort_column] if sort_column else [None] * len(first)
    return {
        js_text(v): None if o is None or o != o else int(o)
        for v, o in zip(first[column], orders, strict=True)
    }
