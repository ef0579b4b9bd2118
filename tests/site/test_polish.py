"""Charts and filters that explain themselves (Chromium, 1440x900): a title naming what the drawn runs
have in common; the TP-scaling view split by source (KISTI's own Neuron runs against NVIDIA's figures);
a view's one-value dimensions replaced by a click; one spelling per release; GPU colours apart by
generation; the filter bar's definitions of "Mixed" and "source kind". Figures are checked against
DuckDB, colours against the registry's architectures (CIE76 colour differences)."""

from __future__ import annotations

import html
import itertools
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import duckdb
import pytest

from bench.contract import registry
from site_gen.charts.specs import gpu_colours
from site_gen.data.dimensions import release_label
from site_gen.pages import markers
from tests.site.conftest import Watched


def query(site: Path, sql: str, args: list | None = None) -> list[tuple]:
    con = duckdb.connect(str(site / "llmbench.duckdb"), read_only=True)
    try:
        return con.execute(sql, args or []).fetchall()
    finally:
        con.close()


def data_table(page, nth: int = 0) -> list[dict[str, str]]:
    """A chart's "Data table", opened: one dict per row (header -> cell)."""
    details = page.locator("details.lb-data").nth(nth)
    if not details.evaluate("d => d.open"):
        details.locator("summary").click()
    page.wait_for_function(
        "(i) => document.querySelectorAll('details.lb-data')[i].querySelector('tbody tr')", arg=nth
    )
    return details.evaluate(
        """d => { const h = [...d.querySelectorAll('th')].map(t => t.textContent);
                  return [...d.querySelectorAll('tbody tr')].map(tr =>
                    Object.fromEntries([...tr.cells].map((c, i) => [h[i], c.textContent]))); }"""
    )


@pytest.mark.browser
def test_a_chart_title_names_the_model_precision_workload_and_source_it_shows(
    real_site: Path, real_url: str, watched: Watched
) -> None:
    # The generational view opens on Llama 3.1 8B FP16 128/128 (site_gen.charts.views: its default slice).
    page = watched.open(f"{real_url}/generated/views/generational-uplift.html")
    sources = query(
        real_site,
        "SELECT DISTINCT publisher FROM runs WHERE model_name = 'Llama 3.1 8B' AND precision = 'FP16' "
        "AND workload = '128/128' AND engine = 'tensorrt-llm' AND output_tps_per_gpu IS NOT NULL",
    )
    expected = "Llama 3.1 8B · FP16 · ISL/OSL 128/128"
    if len(sources) == 1:
        expected += f" · source: {sources[0][0]}"
    assert page.evaluate("window.llmbench.charts()[0].view.signal('lb_title')") == expected
    svg = page.evaluate("window.llmbench.charts()[0].view.toSVG()")
    assert "Llama 3.1 8B · FP16 · ISL/OSL 128/128".replace("·", "&#183;") in svg or expected in svg
    # one source chosen: the title says so
    page.goto(f"{real_url}/generated/views/generational-uplift.html?model=Llama+3.1+8B&precision=FP16"
              "&workload=128%2F128&source=NVIDIA")  # fmt: skip
    page.wait_for_function("document.body && document.body.dataset.lbReady")
    title = page.evaluate("window.llmbench.charts()[0].view.signal('lb_title')")
    assert title == "Llama 3.1 8B · FP16 · ISL/OSL 128/128 · source: NVIDIA"
    assert watched.errors == []


TITLE = "window.llmbench.charts()[0].view.signal('lb_title')"


@pytest.mark.browser
def test_a_long_chart_title_wraps_to_the_charts_width_instead_of_being_cut(
    real_url: str, watched: Watched
) -> None:
    page = watched.open(f"{real_url}/generated/views/generational-uplift.html")
    whole = page.evaluate(TITLE)
    assert isinstance(whole, str) and whole.count(" · ") >= 2  # 1280 px: one line
    page.set_viewport_size({"width": 390, "height": 844})  # the reader turns to a phone's width
    page.wait_for_function(f"Array.isArray({TITLE})")
    lines = page.evaluate(TITLE)
    assert len(lines) >= 2 and " · ".join(lines) == whole
    width = page.evaluate("window.llmbench.charts()[0].view.width()")
    svg = page.evaluate("window.llmbench.charts()[0].view.toSVG()")
    for line in lines:  # each line drawn whole, none cut with an ellipsis
        assert html.escape(line, quote=False).replace("·", "&#183;") in svg or line in svg, (line, width)
    page.set_viewport_size({"width": 1280, "height": 900})
    page.wait_for_function(f"typeof {TITLE} === 'string'")
    assert page.evaluate(TITLE) == whole
    assert watched.errors == []


@pytest.mark.browser
def test_tp_scaling_split_by_source_draws_kisti_and_nvidia_apart(
    real_site: Path, real_url: str, watched: Watched
) -> None:
    # KISTI's Neuron H200 runs of Llama 3.1 70B FP8 128/128 (TP 1-8) and NVIDIA's published ones.
    page = watched.open(
        f"{real_url}/generated/views/tp-scaling.html?model=Llama+3.1+70B&precision=FP8"
        "&workload=128%2F128&gpu=H200+SXM+141GB"
    )
    best = query(
        real_site,
        "SELECT tp, publisher, max(output_tps) FROM runs WHERE model_name = 'Llama 3.1 70B'"
        " AND precision = 'FP8' AND workload = '128/128' AND gpu = 'H200 SXM 141GB'"
        " AND output_tps_per_gpu IS NOT NULL GROUP BY ALL",
    )
    assert {p for _, p, _ in best} == {"KISTI", "NVIDIA"}
    merged: dict[str, float] = {}
    for tp, _, v in best:
        merged[str(tp)] = max(merged.get(str(tp), 0), v)
    rows = data_table(page)
    assert {r["TP"]: r["Best output tokens/s, all GPUs of the run"] for r in rows} == {
        tp: f"{round(v):,}" for tp, v in merged.items()
    }
    assert {r["Source"] for r in rows} == {"all sources"}
    page.locator(".vega-bind input[type=checkbox]").first.check()
    page.wait_for_function(
        "[...document.querySelectorAll('details.lb-data')[0].querySelectorAll('td')]"
        ".some(td => td.textContent === 'KISTI')"
    )
    rows = data_table(page)
    assert {(r["TP"], r["Source"]): r["Best output tokens/s, all GPUs of the run"] for r in rows} == {
        (str(tp), p): f"{round(v):,}" for tp, p, v in best
    }
    assert watched.errors == []


@pytest.mark.browser
def test_a_views_one_value_dimensions_are_replaced_by_a_click(real_url: str, watched: Watched) -> None:
    page = watched.open(f"{real_url}/generated/views/generational-uplift.html")
    page.click('.lb-filter[data-dim="model"] .lb-filter-button')
    model = page.locator('.lb-filter[data-dim="model"] input[value="Llama 3.1 70B"]')
    assert model.get_attribute("type") == "radio"
    model.check()
    page.wait_for_function("new URLSearchParams(location.search).get('model') === 'Llama 3.1 70B'")
    assert parse_qs(urlparse(page.url).query)["model"] == ["Llama 3.1 70B"]  # replaced, not added
    assert page.text_content('.lb-filter[data-dim="model"] .lb-filter-value') == "Llama 3.1 70B"
    # GPUs stay several at once (the view compares them), and the explorer keeps multi-select everywhere
    page.click('.lb-filter[data-dim="gpu"] .lb-filter-button')  # a list is built when first opened
    assert page.get_attribute('.lb-filter[data-dim="gpu"] input >> nth=0', "type") == "checkbox"
    page = watched.open(f"{real_url}/explorer.html")
    page.click('.lb-filter[data-dim="model"] .lb-filter-button')
    assert page.get_attribute('.lb-filter[data-dim="model"] input >> nth=0', "type") == "checkbox"
    assert watched.errors == []


def test_release_label_gives_one_spelling_per_release() -> None:
    # TensorRT-LLM tags its releases v0.17.0, v1.0.0, v1.2.0; NVIDIA's tables write "0.17", "1.0", "1.2".
    assert [release_label(v) for v in ("0.17", "1.2", "1.2.0", "0.10.0", "1.0.0rc4", "5.17.0")] == [
        "0.17.0", "1.2.0", "1.2.0", "0.10.0", "1.0.0rc4", "5.17.0"
    ]  # fmt: skip
    assert markers.parse("chart", "tp-scaling version=1.0").filters == {"version": ["1.0.0"]}


@pytest.mark.browser
def test_each_release_is_spelled_once_and_the_run_card_keeps_the_files_spelling(
    real_site: Path, real_url: str, watched: Watched
) -> None:
    versions = [v for (v,) in query(real_site, "SELECT DISTINCT engine_version FROM runs")]
    assert "1.2.0" in versions and "1.2" not in versions and "0.17" not in versions
    keys = query(real_site, "SELECT version_key, count(DISTINCT engine_version) FROM runs GROUP BY 1")
    assert all(n == 1 for _, n in keys)
    page = watched.open(f"{real_url}/explorer.html")
    page.click('.lb-filter[data-dim="version"] .lb-filter-button')
    options = page.eval_on_selector_all('.lb-filter[data-dim="version"] input', "is => is.map(i => i.value)")
    assert "1.2.0" in options and "1.2" not in options
    # an NVIDIA run whose file writes "1.2"
    run_id = query(real_site, "SELECT min(run_id) FROM runs WHERE engine_version_file = '1.2'")[0][0]
    page.goto(f"{real_url}/runs.html#{run_id}")
    page.wait_for_selector(".lb-card-fields")
    fields = page.evaluate(
        """() => Object.fromEntries([...document.querySelectorAll('.lb-card-fields dt')]
            .map(dt => [dt.textContent, dt.nextElementSibling.textContent]))"""
    )
    assert fields["Engine version"] == "1.2.0"
    assert fields["Engine version as the result file writes it"] == "1.2"
    assert watched.errors == []


def _lab(hex_colour: str) -> tuple[float, float, float]:
    """sRGB -> CIELAB (D65), the textbook formulas."""
    rgb = [int(hex_colour[i : i + 2], 16) / 255 for i in (1, 3, 5)]
    r, g, b = [((c + 0.055) / 1.055) ** 2.4 if c > 0.04045 else c / 12.92 for c in rgb]
    x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047
    y = 0.2126 * r + 0.7152 * g + 0.0722 * b
    z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883

    def f(t: float) -> float:
        return t ** (1 / 3) if t > 0.008856 else 7.787 * t + 16 / 116

    return 116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))


def _delta_e(a: str, b: str) -> float:
    return sum((p - q) ** 2 for p, q in zip(_lab(a), _lab(b), strict=True)) ** 0.5


def test_gpu_colours_keep_generations_apart() -> None:
    gpus = sorted(registry.gpus().entries, key=lambda g: g.year)
    colour = dict(zip([g.name for g in gpus], gpu_colours([g.name for g in gpus]), strict=True))
    family = {g.name: g.architecture.split()[0] for g in gpus}  # Blackwell Ultra is Blackwell
    for a, b in itertools.combinations(colour, 2):
        apart = _delta_e(colour[a], colour[b])
        # ΔE 2.3 is a just-noticeable difference; different generations differ clearly, GPUs of one
        # generation still visibly
        assert apart >= (25 if family[a] != family[b] else 15), (a, b, colour[a], colour[b], apart)
    # the pairs the issue found nearly equal (both green, red, orange, blue)
    for a, b in [("H100 SXM 80GB", "GB300 288GB"), ("A100 PCIe 80GB", "RTX PRO 6000 Blackwell Server"),
                 ("V100 SXM2 32GB", "B300 288GB"), ("V100 PCIe 32GB", "GB200 186GB")]:  # fmt: skip
        assert _delta_e(colour[a], colour[b]) >= 50, (a, b)
    assert _delta_e(colour["H100 SXM 80GB"], colour["H200 SXM 141GB"]) >= 25  # compared most often


@pytest.mark.browser
def test_the_filter_bar_defines_mixed_and_source_kind(real_url: str, watched: Watched) -> None:
    page = watched.open(f"{real_url}/explorer.html")
    for dim, words in (("precision", ("Mixed", "16-bit")), ("kind", ("measured", "published"))):
        button = f'.lb-filter[data-dim="{dim}"] .lb-filter-button'
        assert all(w in page.get_attribute(button, "title") for w in words)
        page.click(button)
        help_ = page.text_content(f'.lb-filter[data-dim="{dim}"] .lb-filter-help')
        assert all(w in help_ for w in words) and page.is_visible(
            f'.lb-filter[data-dim="{dim}"] .lb-filter-help'
        )
    assert watched.errors == []
