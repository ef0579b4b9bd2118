"""The guide's chart views: registered, valid Vega-Lite, opening on a slice that makes their point."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from site_gen.charts import specs as charts
from site_gen.charts import views
from site_gen.charts.specs import ChartContext
from site_gen.data import load, queries
from tests.conftest import RESULTS

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> pd.DataFrame:
    db = tmp_path_factory.mktemp("views") / "runs.duckdb"
    load.ingest(RESULTS, db)
    return queries.site_runs(db)


def test_guide_views_are_registered_and_build_valid_specs(runs: pd.DataFrame) -> None:
    ctx = ChartContext(gpus=("H200 SXM 141GB", "B200 180GB"), columns=frozenset(runs.columns))
    for name in ("pct-of-bound", "tp-vs-pp"):
        specs = [charts.to_spec(c) for c in views.get(name).build(ctx)]
        assert specs and all(s["data"] == {"name": charts.DATA_NAME} for s in specs), name
    fields = {
        enc["field"]
        for spec in (charts.to_spec(c) for c in views.get("pct-of-bound").build(ctx))
        for s in spec.get("layer", [spec])  # a layered chart keeps its encodings in its layers
        for enc in s["encoding"].values()
        if isinstance(enc, dict) and "field" in enc
    }
    assert {"pct_of_bound", "bound_output_tps", "output_tps"} <= fields


def test_tp_vs_pp_opens_on_one_gpu_count_measured_with_and_without_pp(runs: pd.DataFrame) -> None:
    start = views.get("tp-vs-pp").defaults(runs)
    sub = runs
    for key, values in start.items():
        sub = sub[sub[views.dimension(key).column].astype(str).isin(values)]
    layouts = sub.groupby("n_gpus")["pp"].nunique()
    assert (layouts > 1).any(), start


def test_pct_of_bound_is_shipped_to_pages(runs: pd.DataFrame) -> None:
    assert {"pct_of_bound", "bound_output_tps"} <= set(runs.columns)
    assert runs["pct_of_bound"].notna().sum() > 4000


def test_pct_of_bound_says_how_many_runs_it_marks_or_cannot_draw(runs: pd.DataFrame) -> None:
    """Rendered by Vega-Lite itself (vl-convert, offline) on the committed data: the chart's line under its
    title counts the runs the bound may be low for (drawn as pale diamonds) and those with no bound (not
    drawn), as the runs table's bound_note says (site_gen/data/bound.py)."""
    import json

    import vl_convert

    from site_gen.charts.vega_compile import VEGA_LITE

    noted = int((runs["bound_note"].notna() & runs["pct_of_bound"].notna()).sum())
    unknown = int(
        (runs["bound_note"].notna() & runs["pct_of_bound"].isna() & runs["output_tps"].notna()).sum()
    )
    assert noted > 0  # release 0.10's runs (max_utilization admission), DeepSeek R1's MTP runs
    ctx = ChartContext(gpus=tuple(runs["gpu"].unique()), columns=frozenset(runs.columns))
    [chart, *_] = views.get("pct-of-bound").build(ctx)
    spec = charts.to_spec(chart)
    shapes = json.dumps([s["encoding"].get("shape") for s in spec["layer"] if "encoding" in s])
    assert '"diamond"' in shapes and "bound_note" in shapes
    cols = ["gpu", "pct_of_bound", "output_tps", "bound_note", queries.OVER_BOUND]
    spec["data"] = {"values": json.loads(runs[cols].to_json(orient="records"))}
    spec["width"] = 900
    svg = vl_convert.vegalite_to_svg(spec, vl_version=VEGA_LITE)
    assert f"◇ {noted} run(s) the bound may be low for" in svg
    assert (f"{unknown} run(s) with an unknown bound" in svg) == (unknown > 0)
