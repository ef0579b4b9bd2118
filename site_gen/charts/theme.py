"""Material's light and dark schemes as Vega config: one source for the page script (``themeConfig`` in
docs/assets/js/theme.js reads ``window.LLMBENCH_THEME``, written beside the page script's catalogue) and
for the pictures the build draws of a chart (``site_gen.charts.snapshot``)."""

from __future__ import annotations

import re
from typing import Any

FONT = "system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif"
SCHEMES = ("light", "dark")  # Material's "default" and "slate"
# Text, a note in the plot (7.7:1 on slate, 6.0:1 on white) and grid lines; the backgrounds are
# Material's (tests/site/test_label_contrast.py checks the text against them).
COLOURS = {
    "light": {"fg": "#202124", "muted": "#5f6368", "line": "#dadce0"},
    "dark": {"fg": "#d5d8e2", "muted": "#aeb3c2", "line": "#4a4f5c"},
}

# The page's background in each scheme: Material's --md-default-bg-color (light ``#fff``; slate
# ``hsla(var(--md-hue), 15%, 14%, 1)``; tests/site/test_picture.py reads both from the installed theme's
# CSS). The live chart is transparent over it; a picture is drawn onto it (``snapshot``).
PAGE = {"light": "#ffffff", "dark": "#1e2129"}


def vega_config(scheme: str) -> dict[str, Any]:
    """The Vega config of a scheme (the specs are Vega: Vega-Lite's view and font settings are the styles
    its compiler gives the plot's frame, guides and text marks)."""
    c = COLOURS[scheme]
    fg, line = c["fg"], c["line"]
    return {
        "background": "transparent",
        "axis": {
            "labelColor": fg,
            "titleColor": fg,
            "gridColor": line,
            "domainColor": line,
            "tickColor": line,
        },
        "legend": {"labelColor": fg, "titleColor": fg},
        "title": {"color": fg},
        "style": {
            "cell": {"stroke": line},
            "guide-label": {"font": FONT},
            "guide-title": {"font": FONT},
            "group-title": {"font": FONT, "fill": fg},
            "group-subtitle": {"font": FONT},
            # text marks without a colour of their own (site_gen.charts.vega_compile._theme_text)
            "text": {"font": FONT, "fill": fg},
            "lb-note": {"fill": c["muted"], "fontStyle": "italic"},
        },
    }


def _palette(scheme: str) -> list[str]:
    """What a scheme sets of a picture, in one order: the background, then the text, note and line colours
    (``vega_config``)."""
    c = COLOURS[scheme]
    return [PAGE[scheme], c["fg"], c["muted"], c["line"]]


def recoloured(svg: str, source: str, target: str, marks: str) -> str | None:
    """The SVG Vega draws in scheme ``source``, as it draws it in ``target``: the schemes differ in
    ``_palette``'s colours only, so the layout is the same and the text of one is the other's with those
    colours swapped (tests/site/test_picture.py compares it with Vega's own drawing of each scheme).
    None where ``marks`` (the spec's text less its config, and its rows) names one of the source's
    colours itself: a mark of that colour must keep it, so the caller draws the target scheme whole."""
    swap = dict(zip(_palette(source), _palette(target), strict=True))
    lowered = marks.lower()
    if len(swap) != len(_palette(source)) or any(c.lower() in lowered for c in swap):
        return None
    return re.sub("|".join(map(re.escape, swap)), lambda m: swap[m.group(0)], svg)


def script() -> str:
    """``window.LLMBENCH_THEME = {font, light, dark}`` for the page script."""
    import json

    data = {"font": FONT, **{s: vega_config(s) for s in SCHEMES}}
    return f"window.LLMBENCH_THEME={json.dumps(data, separators=(',', ':'), sort_keys=True)};\n"
