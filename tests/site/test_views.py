"""Every registered view builds valid Vega-Lite over the shared named dataset, with exact metric names."""

from __future__ import annotations

import json

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
