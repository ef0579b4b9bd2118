"""Views' compiled Vega specs run by the vendored vega.js under node (issue 26). The Pareto view: offline
runs say so instead of "null", the points (and the data table that lists them) come by concurrency, and
the cost carries a format the page's data table reads (``,.Nf``; it prints any other format raw). The
TensorRT-LLM vs transformers view: each bar names the precision of the figure it shows."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from site_gen import i18n
from site_gen.charts import engine_views, latency_views
from site_gen.charts import specs as charts
from site_gen.charts.specs import DATA_NAME, ChartContext
from site_gen.charts.vega_compile import compile_spec
from site_gen.pages.markers import localize

ROOT = Path(__file__).resolve().parents[2]
DRIVER = Path(__file__).parent / "js" / "vega_points.js"
VEGA = ROOT / "docs" / "assets" / "vendor" / "vega.min.js"

pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")


def _run(concurrency: int | None, per_user: float) -> dict:
    return {
        "run_id": f"c{concurrency}", "gpu": "H200 SXM 141GB", "engine": "tensorrt-llm", "precision": "FP8",
        "workload": "128/128", "n_gpus": 2, "tp": 2, "publisher": "p", "concurrency": concurrency,
        "output_tps": 1000.0 + per_user, "output_tps_per_gpu": (1000.0 + per_user) / 2,
        "output_tps_per_user": per_user,
    }  # fmt: skip


def _points(lang: str, rows: list[dict], chart: object = None, mark: str = "symbol") -> list[dict]:
    chart = chart or latency_views.pareto_chart(ChartContext(gpus=("H200 SXM 141GB",)))
    vg = compile_spec(localize(charts.to_spec(chart), i18n.translator(lang)))
    payload = json.dumps({"spec": vg, "name": DATA_NAME, "rows": rows})
    proc = subprocess.run(
        ["node", str(DRIVER), str(VEGA), mark], input=payload, capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_points_come_by_concurrency_offline_last_and_named(lang: str) -> None:
    rows = [_run(None, 10.0), _run(1024, 5.0), _run(1, 50.0), _run(8, 30.0)]
    points = _points(lang, rows)
    assert [p["run_id"] for p in points] == ["c1", "c8", "c1024", "cNone"]
    shown = [p["in_flight"] for p in points]
    assert shown[:3] == ["1", "8", "1,024"]
    assert shown[3] == i18n.load(lang).t("chart.offline") and "null" not in shown[3]
    # $ per 1M output tokens at $2/GPU-hour, by hand: 2 x 2 GPUs / (1,050 tok/s x 3600) x 10^6 = 1.0582...
    assert points[0]["cost"] == pytest.approx(4 / (1050 * 3600) * 1e6)


def test_the_data_tables_formats_are_ones_the_page_reads() -> None:
    """The page's data table formats ``,.Nf`` / ``.Nf`` / ``d`` as given and any other spec as a plain
    figure (docs/assets/js/format.js tooltipFormat); a spec it does not know loses its currency sign or
    grouping, so every format the build writes must be one of those (0.073915894060784 was a price)."""
    spec = charts.to_spec(latency_views.pareto_chart(ChartContext(gpus=("H200 SXM 141GB",))))
    fields = compile_spec(spec)["usermeta"]["llmbench"]["fields"]
    formats = {f["field"]: f["format"] for f in fields}
    assert formats["cost"] is not None
    assert all(re.fullmatch(r",?\.\d+f|d", f) for f in formats.values() if f), formats


def test_each_engine_bar_names_the_precision_of_its_figure() -> None:
    """Precision "all": TensorRT-LLM's best run is FP8 (2,900 over its FP16 1,600), transformers' BF16:
    the bars say FP8 and BF16, so a 3.9x ratio of unlike precisions is not read as like for like."""

    def run(run_id: str, engine: str, precision: str, tps: float) -> dict:
        return {
            "run_id": run_id, "engine": engine, "precision": precision, "workload": "128/128",
            "workload_order": 1, "output_tps": tps, "pct_of_bound": 50.0,
        }  # fmt: skip

    rows = [
        run("t8", engine_views.TRT, "FP8", 2900.0),
        run("t16", engine_views.TRT, "FP16", 1600.0),
        run("h16", engine_views.HF, "BF16", 740.0),
    ]
    chart = engine_views.engine_bars(ChartContext(gpus=("H200 SXM 141GB",)))
    bars = {b["engine"]: b for b in _points("en", rows, chart, mark="rect")}
    assert (bars[engine_views.TRT]["best_precision"], bars[engine_views.TRT]["best"]) == ("FP8", 2900.0)
    assert (bars[engine_views.HF]["best_precision"], bars[engine_views.HF]["best"]) == ("BF16", 740.0)
    assert bars[engine_views.TRT]["best_run"]["run_id"] == "t8"  # a click opens that run's card


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_every_view_page_says_what_it_holds_fixed(lang: str) -> None:
    """A view that needs one model, precision or workload says so on its page, in the page's language,
    with the filter bar's names for them; the text comes from the view's own ``single``."""
    from site_gen.charts import views
    from site_gen.pages import generated as pages

    cat = i18n.load(lang)
    fixed = [v for v in views.all_views().values() if v.single and v.filters]
    assert fixed  # the generational uplift, TP scaling, ... views
    for view in fixed:
        page = pages._view_page(view, cat)
        labels = [pages.text(cat.t(f"dimensions.{k}.label")) for k in view.single]
        line = next(x for x in page.split("\n") if all(label in x for label in labels))
        assert line.startswith(pages.text(cat.t("pages.view_fixed", dims="")).split(" ", 1)[0])
