"""Vega-Lite -> Vega at build time, so that the browser runs vega.js only.

Evaluating vega-lite.js and compiling each chart in the browser was a large share of a phone's main-thread
time (Lighthouse, 4x CPU slowdown). The compiler here is Vega-Lite's own, run by vl-convert-python (an
embedded V8, offline, BSD-3-Clause) at the version ``VEGA_LITE`` (vl-convert bundles several); its output
is a Vega spec of the major version of the vendored vega.js (``tests/site/test_vendor.py`` checks both).

What the page script reads of a chart is kept beside the Vega spec in ``usermeta.llmbench``: Vega-Lite's
``usermeta`` passes through the compiler, and the fields of the chart's data table (taken from its
Vega-Lite encodings, which Vega has no trace of) are added there as ``fields``.
"""

from __future__ import annotations

from functools import cache
from typing import Any

VEGA_LITE = "6.4"  # the compiler's Vega-Lite version (major.minor), Altair's schema major


def compile_spec(spec: dict[str, Any]) -> dict[str, Any]:
    """The Vega spec of a Vega-Lite spec, with the data table's fields in ``usermeta.llmbench.fields``."""
    fields = table_fields(spec)
    vg = _compiler()(spec, vl_version=VEGA_LITE)
    # The page's theme sets the background (transparent); Vega-Lite writes its default (white) into the spec.
    vg.pop("background", None)
    _theme_text(vg)
    if fields:
        vg.setdefault("usermeta", {}).setdefault("llmbench", {})["fields"] = fields
    return vg


def _theme_text(node: dict[str, Any]) -> None:
    """Text marks without a colour of their own take the page theme's (the page script's Vega config:
    ``style.text``, and ``style["lb-note"]`` for muted notes): Vega-Lite writes its default, black, into
    each one, which the dark theme's background all but hides."""
    for mark in node.get("marks", []):
        if mark.get("type") == "text":
            update = mark.get("encode", {}).get("update", {})
            if update.get("fill") == {"value": "black"}:
                del update["fill"]
        _theme_text(mark)


@cache
def _compiler() -> Any:
    import vl_convert  # imported on first use: it starts a V8 isolate

    return vl_convert.vegalite_to_vega


def _title(d: dict[str, Any]) -> str:
    t = d.get("title")
    return " ".join(t) if isinstance(t, list) else (t if isinstance(t, str) and t else d["field"])


def table_fields(spec: dict[str, Any]) -> list[dict[str, Any]]:
    """The columns of a chart's data table: the fields of its tooltip (``usermeta.llmbench.tooltip``, or
    the tooltip encoding of the chart or a layer), else those of its position, colour and text channels."""

    def field(d: dict[str, Any]) -> dict[str, Any]:
        return {"field": d["field"], "title": _title(d), "format": d.get("format")}

    lazy = spec.get("usermeta", {}).get("llmbench", {}).get("tooltip")
    if lazy:
        return [field(d) for d in lazy]
    units = [spec, *spec.get("layer", [])]
    for u in units:
        tip = u.get("encoding", {}).get("tooltip")
        if isinstance(tip, list):
            return [field(d) for d in tip if isinstance(d, dict) and d.get("field")]
    out: list[dict[str, Any]] = []
    for u in units:
        for channel in ("x", "y", "color", "xOffset", "text"):
            d = u.get("encoding", {}).get(channel)
            new = isinstance(d, dict) and d.get("field") and not any(f["field"] == d["field"] for f in out)
            if new and not d.get("aggregate"):
                out.append(field(d))
    return out
