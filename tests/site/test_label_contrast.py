"""Value labels are readable in both themes (issue 26): every text mark of every view's compiled Vega
spec has a colour of at least 4.5:1 (WCAG 2.x AA, normal text) against the page's background in the light
and the dark Material palette. Canvas text is out of axe's reach, so the specs are read here.

Authorities: the backgrounds come from the installed Material theme's own CSS (light ``#fff``; slate
``hsla(var(--md-hue), 15%, 14%, 1)`` with its ``--md-hue``); a text mark without a colour of its own takes
the charts' theme colour (``site_gen.charts.theme``: ``fg``, or ``muted`` for the ``lb-note`` style); the
contrast ratio is WCAG's formula (relative luminance of sRGB)."""

from __future__ import annotations

import colorsys
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bench.contract import registry
from site_gen.charts import specs as charts
from site_gen.charts import views
from site_gen.charts.specs import ChartContext
from site_gen.charts.theme import SCHEMES, vega_config
from site_gen.charts.vega_compile import compile_spec

ROOT = Path(__file__).resolve().parents[2]
AA = 4.5


def _material_css(name: str) -> str:
    import material

    folder = Path(material.__file__).parent / "templates" / "assets" / "stylesheets"
    return "".join(p.read_text(encoding="utf-8") for p in folder.glob(f"{name}.*.min.css"))


def _hex(r: float, g: float, b: float) -> str:
    return "#" + "".join(f"{round(c * 255):02x}" for c in (r, g, b))


def backgrounds() -> dict[str, str]:
    """Light: main.css's --md-default-bg-color; dark: palette.css's slate hsla() at main.css's --md-hue."""
    main, palette = _material_css("main"), _material_css("palette")
    light = re.search(r"--md-default-bg-color:(#[0-9a-fA-F]{3,6})", main).group(1)
    hue = float(re.search(r"--md-hue:(\d+)deg", main).group(1))
    s, lum = (float(x) / 100 for x in re.search(
        r"--md-default-bg-color:hsla\(var\(--md-hue\),\s*(\d+)%,\s*(\d+)%,\s*1\)", palette
    ).groups())  # fmt: skip
    dark = _hex(*colorsys.hls_to_rgb(hue / 360, lum, s))
    return {"light": "#ffffff" if light.lower() in ("#fff", "#ffffff") else light, "dark": dark}


def theme_text() -> dict[str, dict[str, str]]:
    """The charts' text colours per theme: style -> colour (``site_gen.charts.theme``'s Vega config, which
    the page script's ``themeConfig`` and the build's pictures of the charts both use)."""
    return {
        scheme: {style: vega_config(scheme)["style"][style]["fill"] for style in ("text", "lb-note")}
        for scheme in SCHEMES
    }


def luminance(colour: str) -> float:
    c = colour.lstrip("#")
    if len(c) == 3:
        c = "".join(x * 2 for x in c)
    rgb = [int(c[i : i + 2], 16) / 255 for i in (0, 2, 4)]
    lin = [x / 12.92 if x <= 0.04045 else ((x + 0.055) / 1.055) ** 2.4 for x in rgb]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def contrast(a: str, b: str) -> float:
    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def test_wcag_contrast_by_hand() -> None:
    # WCAG's own end points and a worked pair: #777 on white is 4.48:1 (just under AA), #767676 4.54:1
    assert contrast("#000000", "#ffffff") == pytest.approx(21.0)
    assert contrast("#ffffff", "#ffffff") == pytest.approx(1.0)
    assert contrast("#777777", "#ffffff") == pytest.approx(4.48, abs=0.01)
    assert contrast("#767676", "#ffffff") == pytest.approx(4.54, abs=0.01)
    assert backgrounds()["dark"] == "#1e2129"  # hsl(225°, 15 %, 14 %)


def _marks(node: dict[str, Any]) -> Iterator[dict[str, Any]]:
    for mark in node.get("marks", []):
        yield mark
        yield from _marks(mark)


def _fills(mark: dict[str, Any], scales: dict[str, dict[str, Any]], theme: dict[str, str]) -> list[str]:
    """Every colour a text mark can take: a value, a scale's range, each branch of a condition, or the
    theme's colour for its style when it has none."""
    encode = mark.get("encode", {})
    fill = encode.get("update", {}).get("fill", encode.get("enter", {}).get("fill"))
    if fill is None:
        styles = mark.get("style", [])
        styles = [styles] if isinstance(styles, str) else styles
        return [theme["lb-note" if "lb-note" in styles else "text"]]
    rules = fill if isinstance(fill, list) else [fill]
    out: list[str] = []
    for rule in rules:
        if "value" in rule:
            out.append(rule["value"])
        elif "scale" in rule:
            rng = scales[rule["scale"]]["range"]
            assert isinstance(rng, list), f"scale {rule['scale']}: range {rng!r} is not a list of colours"
            out += rng
        else:
            raise AssertionError(f"a text mark's colour this test cannot read: {rule!r}")
    return out


def _specs() -> Iterator[tuple[str, dict[str, Any]]]:
    ctx = ChartContext(gpus=tuple(g.name for g in registry.gpus().entries))
    for view in views.all_views().values():
        for i, chart in enumerate(view.build(ctx)):
            yield f"{view.name}[{i}]", compile_spec(charts.to_spec(chart))
    yield "compare", compile_spec(charts.to_spec(charts.compare_ratio(ctx)))


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_every_text_mark_reaches_aa_contrast_on_the_page_background(theme: str) -> None:
    bg, text = backgrounds()[theme], theme_text()[theme]
    low = []
    checked = 0
    for name, spec in _specs():
        scales = {s["name"]: s for s in spec.get("scales", [])}
        for mark in _marks(spec):
            if mark.get("type") != "text" or mark.get("role") in ("axis-label", "axis-title", "legend-label"):
                continue
            checked += 1
            for colour in _fills(mark, scales, text):
                ratio = contrast(colour, bg)
                if ratio < AA:
                    low.append(f"{name} {mark.get('name')}: {colour} on {bg} is {ratio:.2f}:1")
    # the views' value labels, ratios and notes were found (compare mode's dot plot has no text marks: its
    # numbers are in the page's text and the axis labels)
    assert checked >= 5
    assert sorted(set(low)) == []
