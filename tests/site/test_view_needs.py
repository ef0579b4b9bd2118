"""A view's page data holds only the runs its charts can draw (``View.needs``, issue 26): the Pareto view
plots output tok/s per GPU against per user, so its page carries the runs with both figures, not every
run of the results (it loaded them all to draw a few dozen). Checked against DuckDB's own count on the
committed results, in both languages, and against a hand-made frame."""

from __future__ import annotations

import re
from pathlib import Path

import duckdb
import pandas as pd

from site_gen.charts import views
from site_gen.data.dimensions import drawable
from tests.site.test_db_race import ids_of, payload


def test_drawable_keeps_positive_figures_of_the_matching_rows() -> None:
    df = pd.DataFrame(
        {
            "gpu": ["A", "A", "A", "A", "B"],
            "x": [1.0, None, 0.0, -2.0, 3.0],
            "y": [5.0, 5.0, 5.0, 5.0, 5.0],
        }
    )
    assert drawable(df, {"gpu": ["A"]}, ["x", "y"]).tolist() == [True, False, False, False, False]
    assert drawable(df, {}, ["x"]).tolist() == [True, False, False, False, True]
    assert drawable(df, {}, []).tolist() == [True] * 5
    assert drawable(df, {}, ["absent"]).tolist() == [False] * 5


def test_the_pareto_pages_carry_exactly_the_runs_with_both_figures(real_site: Path) -> None:
    needs = views.get("latency-pareto").needs
    assert needs  # the view declares what it draws
    where = " AND ".join(f"{c} > 0" for c in needs)
    with duckdb.connect(str(real_site / "llmbench.duckdb"), read_only=True) as con:
        want = {r[0] for r in con.execute(f"SELECT run_id FROM runs WHERE {where}").fetchall()}
        total = con.execute("SELECT count(*) FROM runs").fetchone()[0]
    assert want and len(want) < total
    for page in ("generated/views/latency-pareto.html", "ko/generated/views/latency-pareto.html"):
        html = (real_site / "site" / page).read_text(encoding="utf-8")
        srcs = set(re.findall(r'class="lb-scope"[^>]*?data-lb-src="([^"]+)"', html)) or set(
            re.findall(r'data-lb-src="([^"]+)"', html)
        )
        assert len(srcs) == 1, srcs
        files = [(real_site / "site" / page).parent / s for s in next(iter(srcs)).split()]
        assert set().union(*(ids_of(payload(f.resolve())) for f in files)) == want, page
