"""A phone's first chart as the build's picture of it (issue 26; site_gen/charts/snapshot.py).

On a phone (390x844) with no filter in the URL, the explorer, a view and the latency page open on a PNG the
build drew of their first chart, and load no Vega until the reader touches the chart, changes a filter or
widens the window. The authority for what the picture must show is the page script itself: the rows and
signals of the live chart that replaces it, taken from Vega in Chromium, drawn again here with the build's
renderer, must give the very bytes the page served. Wider screens never fetch a picture.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from site_gen import i18n
from site_gen.charts import raster, snapshot, theme
from site_gen.pages.markers import MarkerError, parse

pytestmark = pytest.mark.browser
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1440, "height": 900}
PAGES = (
    "explorer.html",
    "latency.html",
    "generated/views/generational-uplift.html",
    "estimates-accuracy.html",  # its chart below the text: the picture spares a phone's load Vega
)
FIRST_SCREEN = PAGES[:3]  # the pages whose chart is the answer on a phone's first screen
PICTURE = "img.lb-picture"


def _open(browser: object, url: str, viewport: dict[str, int], scheme: str = "light") -> tuple[object, list]:
    """A fresh context (no cached picture, no stored palette) at ``viewport``; the page once its script is
    ready, and the list its console errors, page errors and requests for pictures go to."""
    context = browser.new_context(viewport=viewport, color_scheme=scheme, has_touch=True)
    page = context.new_page()
    seen: list[str] = []
    page.on("console", lambda m: m.type == "error" and seen.append(f"console: {m.text}"))
    page.on("pageerror", lambda e: seen.append(f"pageerror: {e}"))
    page.on("request", lambda r: "/assets/pictures/" in r.url and seen.append(f"picture: {r.url}"))
    page.goto(url)
    page.wait_for_function("document.body && document.body.dataset.lbReady", timeout=20_000)
    return page, seen


def _live(page: object) -> dict:
    """Wait for the first chart's live view (drawn, relaid out); its rows, signals and canvas."""
    page.wait_for_function("window.llmbench.charts()[0].view && !window.llmbench.charts()[0].relayout")
    return page.evaluate(
        """() => {
      const c = window.llmbench.charts()[0];
      const names = (c.spec.signals || []).map((s) => s.name);
      const pick = (n) => (names.includes(n) ? c.view.signal(n) : undefined);
      return {
        rows: c.view.data('runs').map((r) => Object.fromEntries(Object.entries(r))),
        gpus_shown: pick('gpus_shown'), lb_title: pick('lb_title'),
        canvas: !!c.el.querySelector('canvas'), picture: !!c.el.querySelector('img.lb-picture'),
      };
    }"""
    )


@pytest.mark.parametrize("path", PAGES)
@pytest.mark.parametrize("lang,scheme", [("", "light"), ("ko/", "dark")])
def test_a_phone_opens_on_the_picture_without_vega(
    browser: object, real_url: str, path: str, lang: str, scheme: str
) -> None:
    page, seen = _open(browser, f"{real_url}/{lang}{path}", PHONE, scheme)
    try:
        shown = page.evaluate(
            """(sel) => { const i = document.querySelector(sel); const r = i.getBoundingClientRect();
              return {hidden: i.hidden, complete: i.complete, natural: i.naturalWidth, width: i.width,
                      top: r.top, src: i.getAttribute('src'), vega: typeof window.vega,
                      scheme: document.body.getAttribute('data-md-color-scheme')}; }""",
            PICTURE,
        )
        assert not shown["hidden"] and shown["complete"], shown
        # the phone's 2x pixels, and a picture of this language in the reader's scheme
        assert shown["natural"] == raster.SCALE * int(page.get_attribute(PICTURE, "width")), shown
        assert f".{'dark' if scheme == 'dark' else 'light'}." in shown["src"], shown
        assert f"-{lang.strip('/') or i18n.DEFAULT}." in shown["src"], shown
        assert shown["scheme"] == ("slate" if scheme == "dark" else "default"), shown
        if path in FIRST_SCREEN:
            assert shown["top"] < PHONE["height"], f"{path}: the picture starts below the first screen"
        assert shown["vega"] == "undefined", f"{path}: Vega was loaded for a chart shown as its picture"
        assert [s for s in seen if not s.startswith("picture:")] == []
        assert len([s for s in seen if s.startswith("picture:")]) == 1, seen  # one scheme's file only
    finally:
        page.context.close()


def redrawn_and_served(page: object, site: Path) -> tuple[dict[str, tuple[bytes, bytes]], int]:
    """Touch the page's picture; per colour scheme, the live chart's rows and signals drawn by the
    build's renderer in that scheme and the picture the page has for it (from ``site``, the built
    folder; the build recolours one scheme's layout for the other: this draws each whole); the rows.
    """
    srcs = page.evaluate(
        """(sel) => { const d = document.querySelector(sel).dataset;
                      const path = (f) => new URL(f, location).pathname;
                      return {light: path(d.light), dark: path(d.dark)}; }""",
        PICTURE,
    )
    spec = json.loads(page.get_attribute(".lb-chart", "data-lb-spec"))
    page.tap(PICTURE)
    live = _live(page)
    assert live["canvas"] and not live["picture"], live
    cat = i18n.load(i18n.DEFAULT)
    values = {}
    if live["gpus_shown"] is not None:
        values["gpus_shown"] = live["gpus_shown"]
    if live["lb_title"] is not None:
        # the page breaks the title by its font's measure; the picture by snapshot.title_lines' estimate
        lines = live["lb_title"] if isinstance(live["lb_title"], list) else [live["lb_title"]]
        parts = [p for line in lines if line for p in line.split(cat.t("ui.titleJoin"))]
        values["lb_title"] = snapshot.title_lines(parts, cat.t("ui.titleJoin"), snapshot.WIDTH - 60)
    pairs = {
        scheme: (
            snapshot.render(spec, live["rows"], values, scheme)[0],
            (site / src.lstrip("/")).read_bytes(),
        )
        for scheme, src in srcs.items()
    }
    return pairs, len(live["rows"])


@pytest.mark.parametrize("path", PAGES)
def test_the_picture_is_the_chart_the_page_script_draws(
    browser: object, real_url: str, real_site: Path, path: str
) -> None:
    """Touched, the picture gives way to the live chart; its rows (in order, each with its sideways
    offset) and its signals, drawn by the build's renderer, are the served picture byte for byte."""
    page, seen = _open(browser, f"{real_url}/{path}", PHONE)
    try:
        pairs, rows = redrawn_and_served(page, real_site / "site")
        assert len([s for s in seen if s.startswith("picture:")]) == 1, seen
    finally:
        page.context.close()
    for scheme, (png, served) in pairs.items():
        assert png == served, f"{path}, {scheme}: the picture is not what the page script's {rows} rows draw"


def test_a_filter_a_wider_window_or_a_filtered_link_brings_the_live_chart(
    browser: object, real_url: str
) -> None:
    page, _ = _open(browser, f"{real_url}/explorer.html", PHONE)
    try:
        page.click(".lb-controls-toggle")
        page.click('.lb-filter[data-dim="gpu"] .lb-filter-button')
        page.locator('.lb-filter[data-dim="gpu"] .lb-option input').first.check()
        live = _live(page)
        counted = int(re.sub(r"\D", "", page.text_content(".lb-count").split(" ")[0]))
        assert live["canvas"] and not live["picture"] and len(live["rows"]) == counted, (
            len(live["rows"]),
            counted,
        )
    finally:
        page.context.close()
    page, _ = _open(browser, f"{real_url}/explorer.html", PHONE)
    try:
        page.set_viewport_size(DESKTOP)  # a phone turned, a window widened: past the picture's media query
        assert _live(page)["canvas"]
    finally:
        page.context.close()
    page, seen = _open(browser, f"{real_url}/explorer.html?precision=FP8", PHONE)
    try:
        assert page.is_hidden(PICTURE) and _live(page)["canvas"]
        assert not [s for s in seen if s.startswith("picture:")], seen  # never fetched
    finally:
        page.context.close()


def test_a_desktop_never_fetches_a_picture(browser: object, real_url: str) -> None:
    for path in PAGES:
        page, seen = _open(browser, f"{real_url}/{path}", DESKTOP)
        try:
            assert page.is_hidden(PICTURE), path
            page.locator(".lb-chart").first.scroll_into_view_if_needed()  # one below the first screen
            assert _live(page)["canvas"], path
            assert seen == [], (path, seen)
        finally:
            page.context.close()


# Without a browser: the marker's option and the picture's rules, hand-worked.


def test_picture_takes_yes_only() -> None:
    assert parse("explorer", " picture=yes").options == {"picture": "yes"}
    with pytest.raises(MarkerError, match="picture= takes yes, got 'true'"):
        parse("explorer", " picture=true")


def test_the_sideways_offset_is_the_row_place_times_the_golden_ratio() -> None:
    import pandas as pd

    rows = snapshot.with_jitter(pd.DataFrame({"a": [1, 2, 3]}), [0, 1, 5])
    # 1 x 0.618034 = 0.618034; 5 x 0.618034 = 3.090170 -> 0.090170; in thousandths, rounded down
    assert rows[snapshot.JITTER].tolist() == [0, 618, 90]


def test_the_title_names_what_every_row_shares_and_breaks_where_it_is_too_wide() -> None:
    import pandas as pd

    cat = i18n.load(i18n.DEFAULT)
    rows = pd.DataFrame({
        "model_name": ["Llama 3.1 8B"] * 2, "precision": ["FP16", "FP8"], "workload": ["128/128"] * 2,
        "gpu": ["H100 SXM 80GB", None], "publisher": ["KISTI"] * 2,
    })  # fmt: skip
    parts = snapshot.title_parts(rows, cat)
    assert parts == ["Llama 3.1 8B", "ISL/OSL 128/128", "source: KISTI"]
    # 7 px a character: "Llama 3.1 8B · ISL/OSL 128/128" is 30 characters, 210 px
    assert snapshot.title_lines(parts, " · ", 210) == ["Llama 3.1 8B · ISL/OSL 128/128", "source: KISTI"]
    assert snapshot.title_lines(parts, " · ", 209) == ["Llama 3.1 8B", "ISL/OSL 128/128", "source: KISTI"]
    assert snapshot.title_lines(parts[:1], " · ", 10) == "Llama 3.1 8B"


def test_no_picture_of_a_sample_or_of_more_rows_than_the_cap() -> None:
    import pandas as pd

    rows = pd.DataFrame({"gpu": ["A"] * 10})
    assert snapshot.drawable({}, rows)
    assert not snapshot.drawable({"usermeta": {"llmbench": {"maxRows": 9}}}, rows)
    assert not snapshot.drawable({}, rows.iloc[:0])
    assert not snapshot.drawable({}, pd.DataFrame({"gpu": ["A"] * (snapshot.MAX_ROWS + 1)}))


def test_the_same_inputs_are_drawn_once_per_process() -> None:
    """``mkdocs serve`` rebuilds every page at each save: a picture whose inputs did not change is the one
    drawn before (the same object), one whose rows changed is drawn anew."""
    import pandas as pd

    y = {"name": "y", "type": "linear", "domain": [0, 4], "range": "height"}
    bar = {"x": {"value": 0}, "width": {"value": 10}, "y": {"scale": "y", "field": "v"}, "y2": {"value": 50}}
    mark = {"type": "rect", "from": {"data": "runs"}, "encode": {"update": bar}}
    spec = json.dumps(
        {"data": [{"name": "runs"}], "width": 100, "height": 50, "scales": [y], "marks": [mark]}
    )
    cat = i18n.load(i18n.DEFAULT)
    rows = pd.DataFrame({"v": [1.0, 2.0]})
    first = snapshot.picture("t", spec, rows, cat)
    assert first is not None and snapshot.picture("t", spec, rows.copy(), cat) is first
    other = snapshot.picture("t", spec, pd.DataFrame({"v": [1.0, 3.0]}), cat)
    assert other is not first and other.files != first.files


@pytest.mark.parametrize(
    "fill", ["#1ddd7a", theme.COLOURS["light"]["line"], theme.COLOURS["light"]["fg"].upper()]
)
def test_the_other_scheme_is_vegas_own_drawing_of_it(fill: str) -> None:
    """The build lays a picture out once and recolours it for the other scheme: that picture must be
    Vega's own drawing of the other scheme (an axis, a legend, a title and a mark), also where a mark is
    drawn in one of the theme's colours (the light grid's, the light text's, in capitals): that mark
    keeps its colour in the dark picture, so the build draws that scheme whole."""
    import pandas as pd
    import vl_convert

    lite = {
        "data": {"name": "runs"},
        "title": "t",
        "mark": {"type": "point", "filled": True, "fill": fill},
        "encoding": {"x": {"field": "v", "type": "quantitative"}, "shape": {"field": "g", "type": "nominal"}},
    }
    spec = vl_convert.vegalite_to_vega(lite)
    rows = pd.DataFrame({"v": [1.0, 2.0, 3.0], "g": ["a", "b", "a"]})
    drawn = snapshot.picture(f"recolour-{fill[1:]}", json.dumps(spec), rows, i18n.load(i18n.DEFAULT))
    assert drawn is not None
    for scheme in theme.SCHEMES:
        whole, _ = snapshot.render(spec, rows.to_dict("records"), {}, scheme)
        assert drawn.files[drawn.name(scheme)].result() == whole, scheme


def test_pictures_are_drawn_on_the_page_background_of_their_scheme() -> None:
    """The picture is opaque (see the next test), so its background must be the page's own: Material's
    --md-default-bg-color of each scheme, read from the installed theme's CSS."""
    from site_gen.charts import theme
    from tests.site.test_label_contrast import backgrounds

    assert backgrounds() == theme.PAGE


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_a_semi_transparent_mark_keeps_its_colour_in_the_picture(scheme: str) -> None:
    """A mark of H100's colour (#1ddd7a) at opacity 0.7, alone, as a legend symbol is: the picture's pixel
    is 0.7 x the colour + 0.3 x the page's background, channel by channel, as the browser composites the
    live chart over the page. Hand-worked: on white (97, 231, 162); on slate #1e2129 (29, 165, 98).
    vl-convert's transparent PNG gave (29, 178, 122) at alpha 178: no channel above the alpha, so teal."""
    import io

    from PIL import Image

    from tests.site.test_label_contrast import backgrounds

    box = {"x": {"value": 0}, "width": {"value": 50}, "y": {"value": 0}, "height": {"value": 50}}
    paint = {"fill": {"value": "#1ddd7a"}, "opacity": {"value": 0.7}}
    mark = {"type": "rect", "from": {"data": "runs"}, "encode": {"update": {**box, **paint}}}
    spec = {"data": [{"name": "runs"}], "width": 100, "height": 50, "marks": [mark]}
    png, _ = snapshot.render(spec, [{"v": 1}], {}, scheme)
    image = Image.open(io.BytesIO(png)).convert("RGBA")
    pixel = image.getpixel((50, 50))
    bg = bytes.fromhex(backgrounds()[scheme][1:])
    assert image.getpixel((199, 99)) == (*bg, 255)  # the page's own background, exactly: no box around it
    expected = [0.7 * c + 0.3 * b for c, b in zip(bytes.fromhex("1ddd7a"), bg, strict=True)]
    assert pixel[3] == 255
    assert all(abs(p - e) <= 3 for p, e in zip(pixel[:3], expected, strict=True)), (pixel, expected)


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_legend_symbols_keep_their_colours_among_thousands_of_points(scheme: str) -> None:
    """A legend's symbols are a few pixels among thousands of points: the picture's cut to a palette must
    still give each its own colour (every GPU shade of the site, at opacity 0.7 as the explorer's legend
    draws them), within 3 levels of the browser's compositing over the page. 64 colours by median cut
    were up to 35 levels off (V100 PCIe's brown and H200's green both grey)."""
    import io

    import numpy as np
    from PIL import Image

    from site_gen.charts.specs import GPU_FAMILIES
    from tests.site.test_label_contrast import backgrounds

    shades = [c for family in GPU_FAMILIES.values() for c in family]
    rng = np.random.default_rng(0)
    rows = [
        {"x": float(x), "y": float(y), "c": shades[i % len(shades)]}
        for i, (x, y) in enumerate(rng.uniform(0, 300, size=(4000, 2)))
    ]
    point = {"x": {"field": "x"}, "y": {"field": "y"}, "fill": {"field": "c"}, "opacity": {"value": 0.7}}
    swatch = {
        "x": {"signal": "datum.i * 9"}, "width": {"value": 8}, "y": {"value": 310}, "height": {"value": 8},
        "fill": {"field": "c"}, "opacity": {"value": 0.7},
    }  # fmt: skip
    legend = [{"i": i, "c": c} for i, c in enumerate(shades)]
    points = {**point, "size": {"value": 40}}
    spec = {
        "width": 300, "height": 320,
        "data": [{"name": "runs"}, {"name": "legend", "values": legend}],
        "marks": [
            {"type": "symbol", "from": {"data": "runs"}, "encode": {"update": points}},
            {"type": "rect", "from": {"data": "legend"}, "encode": {"update": swatch}},
        ],
    }  # fmt: skip
    png, _ = snapshot.render(spec, rows, {}, scheme)
    image = Image.open(io.BytesIO(png)).convert("RGB")
    bg = bytes.fromhex(backgrounds()[scheme][1:])
    # the page's own background, exactly, where nothing is drawn: no box around the picture (the octree
    # turned white into 254)
    assert image.getpixel((598, 638)) == tuple(bg)
    off = {}
    for i, colour in enumerate(shades):
        expected = [0.7 * c + 0.3 * b for c, b in zip(bytes.fromhex(colour[1:]), bg, strict=True)]
        got = image.getpixel((2 * (i * 9 + 4), 2 * 314))
        if max(abs(g - e) for g, e in zip(got, expected, strict=True)) > 3:
            off[colour] = (got, [round(e) for e in expected])
    assert not off, off
