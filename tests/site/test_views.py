"""Every registered view builds valid Vega-Lite over the shared named dataset, with exact metric names."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from site_gen.charts import specs as charts
from site_gen.charts import views
from site_gen.charts.specs import ChartContext

CTX = ChartContext(gpus=("V100 SXM2 32GB", "H200 SXM 141GB"), columns=frozenset({"pct_of_bound"}))


@pytest.mark.parametrize("name", sorted(views.all_views()))
def test_view_reads_the_page_dataset_by_name_and_inlines_no_data(name: str) -> None:
    for chart in views.get(name).build(CTX):
        spec = charts.to_spec(chart)
        assert spec.get("data", spec.get("layer", [{}])[0].get("data")) == {"name": charts.DATA_NAME}
        assert "datasets" not in spec and '"data": {"values"' not in json.dumps(spec)


def test_gpu_colour_domain_is_pinned_to_the_whole_registry_order() -> None:
    spec = charts.to_spec(charts.generational_uplift(CTX))
    assert spec["layer"][0]["encoding"]["color"]["scale"]["domain"] == list(CTX.gpus)


def test_axis_titles_name_the_metric_and_its_basis() -> None:
    assert "per GPU" in charts.to_spec(charts.runs_by_gpu(CTX))["encoding"]["y"]["title"]
    assert "all GPUs" in charts.to_spec(charts.tp_throughput(CTX))["layer"][0]["encoding"]["y"]["title"]


def test_registering_a_view_twice_is_refused() -> None:
    with pytest.raises(ValueError, match="registered twice"):
        views.register("tp-scaling", "x", "y")(lambda ctx: [])


DEJAVU = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")  # Debian's fonts-dejavu-core
WIDTH = 320  # a phone's chart (site_gen.charts.snapshot.WIDTH)


@pytest.mark.parametrize("bars", [6, 10, 22])
def test_a_bars_value_is_written_only_where_it_fits_beside_the_next(bars: int) -> None:
    """Generational uplift at a phone's 320 px, as Vega itself draws it (vl-convert), with values that
    alternate V100 PCIe's and H200's best on Llama 3.1 8B FP16 128/128 (1,918 and 16,660): every value
    it shows fits its bar's step (320 / bars px: a band scale of Vega-Lite's default paddings) as DejaVu
    Sans at 10 px measures it, so no two run into each other (at 22 GPUs every value ran into the next);
    a value with 4 px to spare is shown; at 6 GPUs (a step of 53 px) every value is."""
    import vl_convert
    from PIL import ImageFont

    from bench.contract import registry

    gpus = [g.name for g in registry.gpus().entries][:bars]
    assert len(gpus) == bars
    spec = charts.to_spec(charts.generational_uplift(ChartContext(gpus=tuple(gpus))), described=False)
    values = [1918 if i % 2 == 0 else 16660 for i in range(bars)]
    spec["data"] = {
        "values": [{"gpu": g, "output_tps_per_gpu": v} for g, v in zip(gpus, values, strict=True)]
    }
    spec["width"], spec["autosize"] = WIDTH, {"type": "pad"}
    svg = vl_convert.vegalite_to_svg(spec)
    labels = [
        (float(m.group(2) or 1), m.group(3))  # SVG's opacity: 1 where the attribute is absent
        for m in re.finditer(r'<text([^>]*?opacity="([0-9.]+)")?[^>]*>(1,918|16,660)</text>', svg)
    ]
    assert len(labels) == bars, labels
    font, step = ImageFont.truetype(str(DEJAVU), 10), WIDTH / bars
    for opacity, text in labels:
        width = font.getlength(text)
        assert opacity == 0 or width <= step, (text, width, step)
        assert opacity == 1 or width > step - 4, (text, width, step)
    if bars == 6:
        assert all(o == 1 for o, _ in labels)
