"""The Pareto frontier and the cost per million tokens, against hand-worked cases."""

from __future__ import annotations

import pytest

from site_gen.charts import latency_views
from site_gen.charts import specs as charts
from site_gen.charts.latency_views import Point, cost_per_million_tokens, pareto_frontier
from site_gen.charts.specs import ChartContext


def test_frontier_is_the_set_no_other_run_beats_on_both_axes() -> None:
    # (per-user, per-GPU) drawn by hand; a dominated b (more of both), d ties c on x with less y,
    # e sits under the segment a-c but is on no run's lower-left, so it stays (Pareto, not convex hull)
    pts = {
        "a": (10, 1000),
        "b": (8, 900),
        "c": (30, 400),
        "d": (30, 300),
        "e": (20, 600),
        "f": (5, 1500),
        "g": (2, 1400),
        "h": (40, 50),
    }
    front = pareto_frontier(Point(k, x, y) for k, (x, y) in pts.items())
    assert [p.key for p in front] == ["f", "a", "e", "c", "h"]


def test_frontier_of_one_run_and_of_none() -> None:
    assert [p.key for p in pareto_frontier([Point("only", 1.0, 1.0)])] == ["only"]
    assert pareto_frontier([]) == []


@pytest.mark.parametrize(
    ("price", "gpus", "tps", "expected"),
    [
        (2.00, 1, 1000.0, 0.5555555556),  # 2 $/h / 3.6 M tokens/h
        (3.50, 8, 20000.0, 0.3888888889),  # 28 $/h / 72 M tokens/h
        (2.00, 1, 2491.1, 0.2230161597),  # 2e6 / 8,967,960: the H200 128/2048 run at concurrency 256
        (0.00, 1, 10.0, 0.0),
    ],
)
def test_cost_per_million_output_tokens(price: float, gpus: int, tps: float, expected: float) -> None:
    assert cost_per_million_tokens(price, gpus, tps) == pytest.approx(expected, rel=1e-9, abs=1e-10)


def test_cost_refuses_what_has_no_meaning() -> None:
    for args in ((2.0, 0, 100.0), (2.0, 1, 0.0), (-1.0, 1, 100.0)):
        with pytest.raises(ValueError, match="expected price >= 0"):
            cost_per_million_tokens(*args)


def test_view_ships_the_price_input_the_cost_formula_and_the_frontier_window() -> None:
    spec = charts.to_spec(latency_views.pareto_chart(ChartContext(gpus=("H200 SXM 141GB",))))
    # top level: the input is one, whatever layers read it (beside the page's own, e.g. lb_title)
    (param,) = [p for p in spec["params"] if p["name"] == latency_views.PRICE_PARAM]
    assert param["name"] == "gpu_hour_price" and param["value"] == 2.0 and param["bind"]["input"] == "number"
    assert "your assumption" in param["bind"]["name"]
    text = str(spec)
    assert latency_views.COST_EXPR in text and "best_before" in text
    assert spec["layer"][0]["encoding"]["x"]["field"] == "output_tps_per_user"
    assert spec["layer"][0]["encoding"]["y"]["field"] == "output_tps_per_gpu"
    assert "only peak throughput" in text
