"""A picture of a chart's first view, drawn at build time for a phone's first screen (issue 26).

On a phone (Lighthouse's: a 4x slower CPU), evaluating Vega and drawing a chart of a few thousand points
at load was about a second of blocked main thread: the explorer's mobile score fell from 95 to 65-75
once its first chart moved onto the first screen. The page now shows this picture there instead, drawn
by the same Vega (vl-convert, the compiler's own runtime) from the same compiled spec, rows and
theme, and the page script replaces it with the live chart at the reader's first touch of it, or at any
change of the filters (docs/assets/js/views/charts.js). Wider screens draw the live chart at once.
The picture is a PNG (``raster``: why, and where it is made).

The picture must be the chart the page script would draw for the same rows, or none is made:

- the rows are the first view's (the data file the page script reads first, with the filter bar's
  defaults applied), each with the sideways offset the page script gives it (``lb_jitter``, from its
  position in that file: docs/assets/js/data/payload.js);
- the signals the page script sets from the rows are set the same way: ``gpus_shown`` (the legend's
  GPUs) and ``lb_title`` (what every row has one value of; its lines broken by an estimate of the text's
  width, where the page measures it);
- a chart that would draw a sample of its rows (``usermeta.llmbench.maxRows``), or of more than
  ``MAX_ROWS``, gets no picture.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from concurrent.futures import Future
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from site_gen.charts import raster
from site_gen.charts.specs import JITTER, JITTER_STEPS
from site_gen.charts.theme import PAGE, SCHEMES, recoloured, vega_config

if TYPE_CHECKING:
    from site_gen.i18n import Catalogue

# The chart's width in the picture: a 390 px phone's content column (358 px) less vega-embed's menu
# button (38 px), what the live chart takes there. The page shows it at that share of the column, so on a
# 360-430 px phone its text is drawn at 0.9-1.1 times its size.
WIDTH = 320
PHONE = "(max-width: 28em)"  # the screens that get the picture (448 px at the default font size)
GOLDEN = 0.6180339887498949  # the page script's sideways offset step (payload.js)
# Rows above which no picture is drawn: the build's time (vl-convert draws and rasterises ~4,000 points in
# about a second per scheme) and the bytes stay bounded whatever the data; a chart of more shows live.
MAX_ROWS = 5_000
# chart-title.js TITLE_COLUMNS: a column with one value in every row is named in the chart's title
TITLE_COLUMNS = ("model_name", "precision", "workload", "gpu", "publisher")
TITLE_PX = 7.0  # the title's mean character width (bold 12 px sans-serif; chart-title.js measures it)


@dataclass(frozen=True)
class Picture:
    """One chart's pictures, one per colour scheme: file name -> its PNG (made in the worker: the build
    writes ``result()``), scheme -> its file's name; their size in CSS px."""

    files: dict[str, Future[bytes]]
    names: dict[str, str]
    width: int
    height: int

    def name(self, scheme: str) -> str:
        return self.names[scheme]


def with_jitter(rows: pd.DataFrame, places: Any) -> pd.DataFrame:
    """The rows with the page script's ``lb_jitter``: each row's place in its data file (``places``, the
    parts before it counted) times the golden ratio, modulo 1, in whole steps of ``JITTER_STEPS``
    (docs/assets/js/data/payload.js)."""
    fraction = (np.asarray(places, dtype=float) * GOLDEN) % 1
    return rows.assign(**{JITTER: np.floor(fraction * JITTER_STEPS).astype(np.int64)})


def _records(rows: pd.DataFrame) -> list[dict[str, Any]]:
    """The rows as the page script has them: each column as the data file writes it (``dataset.encode``:
    figures rounded to its decimals, dates as text, missing as null), ``lb_jitter`` as the script computes
    it (unrounded)."""
    from site_gen.data import dataset

    columns = dataset.encode(rows.drop(columns=[JITTER], errors="ignore"))["columns"]
    values = {
        name: [None if c is None else col["dict"][c] for c in col["codes"]] if isinstance(col, dict) else col
        for name, col in columns.items()
    }
    if JITTER in rows:
        values[JITTER] = rows[JITTER].tolist()
    return [dict(zip(values, row, strict=True)) for row in zip(*values.values(), strict=True)]


def _one_value(rows: pd.DataFrame, column: str) -> Any:
    """The value every row has in ``column``, else None."""
    if column not in rows or rows.empty:
        return None
    values = rows[column]
    return values.iloc[0] if values.notna().all() and values.nunique() == 1 else None


def title_parts(rows: pd.DataFrame, cat: Catalogue) -> list[str]:
    """chart-title.js ``chartTitle``: what every row has one value of, in TITLE_COLUMNS' order, the
    workload and the source in the catalogue's words."""
    formats = {"workload": ("ui.titleWorkload", "w"), "publisher": ("ui.titlePublisher", "p")}
    parts = []
    for column in TITLE_COLUMNS:
        value = _one_value(rows, column)
        if value is None:
            continue
        key = formats.get(column)
        parts.append(cat.t(key[0], **{key[1]: value}) if key else str(value))
    return parts


def title_lines(parts: list[str], join: str, width: float) -> str | list[str]:
    """chart-title.js ``titleLines``: the parts on as many lines as ``width`` needs, text measured at
    TITLE_PX per character (the page measures the title's font; a picture may break a line elsewhere)."""
    lines: list[str] = []
    line = ""
    for part in parts:
        longer = line + join + part if line else part
        if line and len(longer) * TITLE_PX > width:
            lines.append(line)
            line = part
        else:
            line = longer
    if line:
        lines.append(line)
    return lines if len(lines) > 1 else "".join(lines)


def drawable(spec: dict[str, Any], rows: pd.DataFrame) -> bool:
    """Whether the picture would be the page script's chart (see the module's notes)."""
    max_rows = spec.get("usermeta", {}).get("llmbench", {}).get("maxRows")
    return not (rows.empty or len(rows) > MAX_ROWS or (max_rows and len(rows) > max_rows))


def _legend_gpus(rows: pd.DataFrame) -> list[str]:
    """chart-title.js ``distinct(rows, "gpu", "gpu_order")``: the GPUs drawn, in registry order."""
    gpus = rows[["gpu", "gpu_order"]].dropna(subset=["gpu"]).drop_duplicates("gpu")
    return [g for _, g in sorted(zip(gpus["gpu_order"], gpus["gpu"], strict=True))]


def _spec_for(
    spec: dict[str, Any], rows: list[dict[str, Any]], values: dict[str, Any], scheme: str
) -> dict[str, Any]:
    """The spec with the rows in its ``runs`` dataset, the signals the page script sets (``values``) and
    the scheme's theme."""
    out = {k: v for k, v in spec.items() if k != "$schema"}
    signals = []
    for s in spec.get("signals", []):
        if s["name"] == "width":
            s = {"name": "width", "value": WIDTH}
        elif s["name"] in values:
            s = {**s, "value": values[s["name"]]}
        signals.append(s)
    out["signals"] = signals
    out["data"] = [{**d, "values": rows} if d["name"] == "runs" else d for d in spec["data"]]
    out["config"] = vega_config(scheme)
    # Opaque, on the page's own background: vl-convert's PNG keeps no colour brighter than a pixel's
    # alpha (#1ddd7a at 0.7 over nothing came out as #1db27a at 0.7, teal for green), so every
    # semi-transparent mark standing alone, a legend's symbols first, took another GPU's colour.
    out["background"] = PAGE[scheme]
    return out


def _svg(spec: dict[str, Any]) -> tuple[str, tuple[int, int]]:
    """The chart laid out as SVG (``raster.rasterize`` turns it into the page's PNG), and its size in
    CSS px: the SVG's own, as the PNG's at ``raster.SCALE`` gives it."""
    import vl_convert

    svg = vl_convert.vega_to_svg(spec)
    root = svg[: svg.index(">")]
    width, height = (float(re.search(rf'\s{a}="([0-9.]+)"', root).group(1)) for a in ("width", "height"))
    return svg, (math.ceil(width), math.ceil(height))


def picture(stem: str, spec_json: str, rows: pd.DataFrame, cat: Catalogue) -> Picture | None:
    """The chart's pictures (light and dark), or None where it would not be the page script's chart."""
    spec = json.loads(spec_json)
    if not drawable(spec, rows):
        return None
    # only the columns the spec names (a third of the time: Vega copies each row's every field)
    records = _records(rows[[c for c in rows.columns if c in spec_json]])
    names = {s["name"] for s in spec.get("signals", [])}
    values: dict[str, Any] = {}
    if "gpus_shown" in names and "gpu" in rows:
        values["gpus_shown"] = _legend_gpus(rows)
    if "lb_title" in names:  # the plot's width: the picture's less the y axis' room (about)
        values["lb_title"] = title_lines(title_parts(rows, cat), cat.t("ui.titleJoin"), WIDTH - 60)
    inputs = json.dumps([stem, spec, records, values], sort_keys=True, separators=(",", ":"))
    return _drawn(hashlib.sha256(inputs.encode()).hexdigest(), stem, spec, records, values)


# The pictures of this process by their inputs' digest: ``mkdocs serve`` rebuilds every page at each
# saved file, and a picture costs about a second; the same inputs are not drawn again.
_DRAWN: dict[str, Picture] = {}
_KEEP = 64  # pictures kept (a few MB); the oldest goes first


def _drawn(
    digest: str, stem: str, spec: dict[str, Any], records: list[dict[str, Any]], values: dict[str, Any]
) -> Picture:
    if digest not in _DRAWN:
        files: dict[str, Future[bytes]] = {}
        names: dict[str, str] = {}
        first, size = _svg(_spec_for(spec, records, values, SCHEMES[0]))
        # Vega's layout is half a build's pictures' time (0.03-0.4 s each): the other scheme's SVG is the
        # first's with the theme's colours swapped, where no mark has one of them (else drawn whole)
        own = {k: v for k, v in spec.items() if k != "config"}  # _spec_for replaces the config
        marks = json.dumps([own, records, values], separators=(",", ":"))
        for scheme in SCHEMES:
            svg = first if scheme == SCHEMES[0] else recoloured(first, SCHEMES[0], scheme, marks)
            if svg is None:
                svg, _ = _svg(_spec_for(spec, records, values, scheme))
            # named by its SVG and how it is rasterised: the PNG is made from them alone, later
            made = hashlib.sha256(f"{raster.recipe()}\n{svg}".encode()).hexdigest()[:8]
            names[scheme] = f"{stem}.{scheme}.{made}.png"
            files[names[scheme]] = raster.later(svg)
        _DRAWN[digest] = Picture(files=files, names=names, width=size[0], height=size[1])
        while len(_DRAWN) > _KEEP:
            del _DRAWN[next(iter(_DRAWN))]
    return _DRAWN[digest]


def render(
    spec: dict[str, Any], rows: list[dict[str, Any]], values: dict[str, Any], scheme: str
) -> tuple[bytes, tuple[int, int]]:
    """One picture: the compiled spec drawn with these rows (its ``runs`` dataset) and signal values, in
    a scheme's theme, at WIDTH; the PNG and its size in CSS px."""
    svg, size = _svg(_spec_for(spec, rows, values, scheme))
    return raster.rasterize(svg), size
