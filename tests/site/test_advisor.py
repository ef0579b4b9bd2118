"""The advisor's arithmetic (site_gen/pages/advisor.py and its twin docs/assets/js/advisor/logic.js) on cases
worked by hand, the frontier table against DuckDB, and the curves the build ships.

Every case runs through Python and, under node, through the page's module: both must give the hand-worked
numbers. The browser side (inputs, URL, links) is tests/site/test_advisor_browser.py.
"""

from __future__ import annotations

import json
import math
import shutil
import subprocess
from pathlib import Path
from typing import Any

import duckdb
import pandas as pd
import pytest

from site_gen.pages import advisor
from site_gen.pages.advisor import Limits, Query

ROOT = Path(__file__).resolve().parents[2]
LOGIC_JS = ROOT / "docs" / "assets" / "js" / "advisor" / "logic.js"
M = "Model M"


def curve(gpu: str, n: int, kind: str, c: list[int], gpu_tps: list[float], **figs: Any) -> dict[str, Any]:
    """A curve as the data file ships it; figures not given are missing (None) at every point."""
    none = [None] * len(c)
    return {
        "model": M, "model_id": "org/model-m", "gpu": gpu, "precision": "FP8", "kv": "FP8",
        "isl": 1000, "osl": 1000, "tp": n, "pp": 1, "ep": None, "adp": False, "n_gpus": n,
        "engine": "tensorrt-llm", "version": "1.2.0", "kind": kind, "publisher": f"lab {gpu}",
        "band": figs.get("band"), "c": c, "gpu_tps": gpu_tps,
        "user_tps": figs.get("user_tps", none), "ttft50": figs.get("ttft50", none),
        "ttft90": figs.get("ttft90", none), "tpot": figs.get("tpot", none),
        "runs": [[f"{gpu[:4]}-{n}-{x}"] for x in c],
    }  # fmt: skip


# Case 1 (ranking, interpolation, instances), worked on paper:
#   A: H200, 1 GPU, measured at c=8 (800 tok/s/GPU, 100 tok/s/user, TTFT p90 200 ms) and c=16 (1200, 75,
#      400). Limits TTFT p90 <= 300 ms, tok/s per user >= 80.
#      TTFT is 200 + 25 (c - 8): <= 300 up to c = 12. Per user is 100 - 3.125 (c - 8): >= 80 up to
#      c = 14.4. So c in [8, 12]; tok/s per GPU 800 + 50 (c - 8) is highest at c = 12: 1000 (TTFT exactly
#      300: a limit met with equality is met), interpolated between 8 and 16.
#      Demand 10,000 output tok/s: instances = ceil(10000 / (1000 x 1)) = 10, GPUs 10, $/h = 10 x 4.00 = 40,
#      $/1M = 40 / (10000 x 3600) x 10^6 = 1.1111.
#   B: B200, 2 GPUs, 62.5 and 47 tok/s per user at c=32, 64: both under 80, never meets it.
CASE1_CURVES = [
    curve("H200 SXM 141GB", 1, "measured", [8, 16], [800, 1200],
          user_tps=[100, 75], ttft90=[200, 400], ttft50=[150, 300]),
    curve("B200 180GB", 2, "published", [32, 64], [2000, 3000],
          user_tps=[62.5, 47], ttft90=[500, 900], ttft50=[400, 700]),
]  # fmt: skip
CASE1_QUERY = Query(
    M, 1000, 1000, Limits(ttft_ms=300, ttft_pct="p90", user_min=80), 10000, "tps",
    {"H200 SXM 141GB": 4.0, "B200 180GB": 6.0},
)  # fmt: skip

# Case 2 (request rate, TPOT, order at an equal cost), worked on paper. Demand 2 requests/s x OSL 1000 =
# 2000 output tok/s; TPOT <= 12 ms; no TTFT limit.
#   C: H100, 1 GPU, measured: c=1 (100 tok/s/GPU, TPOT 10), c=4 (340, 13). TPOT 10 + (c - 1) <= 12 up to c=3:
#      100 + 80 x 2 = 260. Instances ceil(2000 / 260) = ceil(7.69) = 8, GPUs 8, $/h 8 x 3 = 24,
#      $/1M = 24 / (2000 x 3600) x 10^6 = 3.3333.
#   D: H100, 2 GPUs, an estimate (band 20 %): one point c=8, 260 tok/s/GPU, TPOT 12 (met). Per instance 520:
#      ceil(2000 / 520) = ceil(3.85) = 4 instances, 8 GPUs, $24/h, $3.3333: the same cost as C, so C
#      (measured) ranks first.
#   E: A100, 1 GPU, published: c=2 (150, TPOT 11), c=6 (450, 15). TPOT 11 + (c - 2) <= 12 up to c=3:
#      150 + 75 = 225. ceil(2000 / 225) = ceil(8.89) = 9 instances, $/h 9 x 2 = 18, $/1M = 2.5: first.
#   F: L40S meets the limit but has no price: left out of the ranking and named.
CASE2_CURVES = [
    curve("H100 SXM 80GB", 1, "measured", [1, 4], [100, 340], tpot=[10, 13], user_tps=[100, 85]),
    curve("H100 SXM 80GB", 2, "modelled", [8], [260], tpot=[12], band=20),
    curve("A100 SXM4 80GB", 1, "published", [2, 6], [150, 450], tpot=[11, 15]),
    curve("L40S", 1, "measured", [1], [50], tpot=[5]),
]
CASE2_QUERY = Query(
    M, 1000, 1000, Limits(tpot_ms=12), 2, "rps", {"H100 SXM 80GB": 3.0, "A100 SXM4 80GB": 2.0}
)


def _node(curves: list[dict], q: Query, what: str) -> Any:
    """Run logic.js's ``rank`` (or ``closest``) under node on the same curves and query."""
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is needed to test the advisor's page module (Node 20 at /usr/bin/node)")
    query = {
        "model": q.model, "isl": q.isl, "osl": q.osl,
        "limits": {"ttft_ms": q.limits.ttft_ms, "ttft_pct": q.limits.ttft_pct, "tpot_ms": q.limits.tpot_ms,
                   "user_min": q.limits.user_min},
        "demand": q.demand, "demand_kind": q.demand_kind, "prices": q.prices,
        "n_gpus": sorted(q.n_gpus), "tp": sorted(q.tp), "ep": sorted(q.ep),
    }  # fmt: skip
    script = (
        f"import * as L from {json.dumps(LOGIC_JS.as_uri())};"
        "let s='';process.stdin.on('data',d=>s+=d);process.stdin.on('end',()=>{"
        "const {curves,query,what}=JSON.parse(s);"
        "const out=what==='rank'?L.rank(curves,query):L.closest(curves,query);"
        "process.stdout.write(JSON.stringify(out));});"
    )
    res = subprocess.run(
        [node, "--input-type=module", "-e", script],
        input=json.dumps({"curves": curves, "query": query, "what": what}),
        capture_output=True, text=True, check=True, timeout=60,
    )  # fmt: skip
    return json.loads(res.stdout)


def _rows_py(curves: list[dict], q: Query) -> list[tuple]:
    ans = advisor.rank(curves, q)
    return [
        (d.curve["gpu"], d.curve["n_gpus"], d.point.concurrency, round(d.point.gpu_tps, 6),
         d.point.interpolated, d.instances, d.gpus, round(d.usd_hour, 6), round(d.usd_per_m, 6), d.basis,
         list(d.point.runs))
        for d in ans.rows
    ]  # fmt: skip


def _rows_js(curves: list[dict], q: Query) -> tuple[list[tuple], list[str]]:
    out = _node(curves, q, "rank")
    rows = [
        (d["curve"]["gpu"], d["curve"]["n_gpus"], d["point"]["concurrency"],
         round(d["point"]["gpu_tps"], 6), d["point"]["interpolated"], d["instances"], d["gpus"],
         round(d["usd_hour"], 6), round(d["usd_per_m"], 6), d["basis"], d["point"]["runs"])
        for d in out["rows"]
    ]  # fmt: skip
    return rows, out["unpriced"]


CASE1_EXPECTED = [
    ("H200 SXM 141GB", 1, 12, 1000.0, True, 10, 10, 40.0, round(40 / 36e6 * 1e6, 6), "measured",
     ["H200-1-8", "H200-1-16"]),
]  # fmt: skip
CASE2_EXPECTED = [
    ("A100 SXM4 80GB", 1, 3, 225.0, True, 9, 9, 18.0, 2.5, "published", ["A100-1-2", "A100-1-6"]),
    ("H100 SXM 80GB", 1, 3, 260.0, True, 8, 8, 24.0, round(24 / 7.2e6 * 1e6, 6), "measured",
     ["H100-1-1", "H100-1-4"]),
    ("H100 SXM 80GB", 2, 8, 260.0, False, 4, 8, 24.0, round(24 / 7.2e6 * 1e6, 6), "estimated", ["H100-2-8"]),
]  # fmt: skip


def test_case1_the_hand_worked_ranking_in_python_and_in_the_page_module() -> None:
    assert _rows_py(CASE1_CURVES, CASE1_QUERY) == CASE1_EXPECTED
    rows, unpriced = _rows_js(CASE1_CURVES, CASE1_QUERY)
    assert rows == CASE1_EXPECTED and unpriced == []
    assert math.isclose(CASE1_EXPECTED[0][8], 1.111111, rel_tol=1e-6)


def test_case2_request_rate_tpot_and_measured_before_an_estimate_of_equal_cost() -> None:
    assert _rows_py(CASE2_CURVES, CASE2_QUERY) == CASE2_EXPECTED
    assert advisor.rank(CASE2_CURVES, CASE2_QUERY).unpriced == ["L40S"]
    rows, unpriced = _rows_js(CASE2_CURVES, CASE2_QUERY)
    assert rows == CASE2_EXPECTED and unpriced == ["L40S"]


def test_nothing_meets_names_the_nearest_point_and_limit() -> None:
    """Case 1 with tok/s per user >= 120: A's c=8 (100 tok/s per user) misses by 120/100 - 1 = 20 %, less
    than any other point (A c=16: 60 %, B: 92 % and 155 %); its TTFT (200 ms) is within 300."""
    q = Query(M, 1000, 1000, Limits(ttft_ms=300, user_min=120), 10000, "tps", CASE1_QUERY.prices)
    assert advisor.rank(CASE1_CURVES, q).rows == []
    near = advisor.closest(CASE1_CURVES, q)
    assert near is not None
    assert (near.curve["gpu"], near.concurrency, near.limit, near.value, near.bound) == (
        "H200 SXM 141GB", 8, "user", 100, 120,
    )  # fmt: skip
    assert math.isclose(near.miss, 0.2)
    js = _node(CASE1_CURVES, q, "closest")
    assert (js["curve"]["gpu"], js["concurrency"], js["limit"], js["value"], js["bound"]) == (
        "H200 SXM 141GB", 8, "user", 100, 120,
    )  # fmt: skip
    assert math.isclose(js["miss"], 0.2)


def test_never_extrapolates_below_or_above_the_measured_range() -> None:
    """TTFT p90 <= 150 would need a concurrency under 8 on A (200 ms at 8): nothing is offered there, nor on
    a demand the top point cannot carry in one instance (more instances instead, never c > 16)."""
    a = CASE1_CURVES[0]
    assert advisor.best_point(a, Limits(ttft_ms=150)) is None
    top = advisor.best_point(a, Limits())
    assert top is not None and (top.concurrency, top.gpu_tps, top.interpolated) == (16, 1200, False)


def test_p50_and_p90_read_their_own_ttft() -> None:
    """A with TTFT <= 300: p90 (200 -> 400) allows c <= 12; p50 (150 -> 300) allows all of 8..16."""
    a = CASE1_CURVES[0]
    assert advisor.best_point(a, Limits(ttft_ms=300, ttft_pct="p90")).concurrency == 12
    assert advisor.best_point(a, Limits(ttft_ms=300, ttft_pct="p50")).concurrency == 16


def test_filters_gpu_count_tp_and_ep() -> None:
    only2 = Query(**{**CASE2_QUERY.__dict__, "n_gpus": frozenset({2})})
    assert [d.curve["n_gpus"] for d in advisor.rank(CASE2_CURVES, only2).rows] == [2]
    rows, _ = _rows_js(CASE2_CURVES, only2)
    assert [r[1] for r in rows] == [2]
    ep = Query(**{**CASE2_QUERY.__dict__, "ep": frozenset({8})})
    assert advisor.rank(CASE2_CURVES, ep).rows == []


# --- the per-interactivity table against DuckDB -------------------------------------------------------

FRONTIER_CURVES = [
    # (per user, per GPU): (10, 900) (20, 700) (40, 300), and (15, 600) dominated by (20, 700)
    curve("H200 SXM 141GB", 1, "measured", [1, 2, 4, 8], [300, 700, 600, 900], user_tps=[40, 20, 15, 10]),
    # (25, 1000) (50, 400): only from 25 tok/s per user up
    curve("B200 180GB", 1, "measured", [1, 4], [400, 1000], user_tps=[50, 25]),
]
BUCKETS = (5, 10, 20, 30, 40, 50, 75)


def _duckdb_table() -> tuple[dict[tuple[int, int], float | None], list[float]]:
    """The cells and areas computed in SQL from the points alone: a point is on the frontier when no other
    point of its configuration is at least as good on both axes; a cell interpolates linearly between the
    frontier points around the bucket; the area is the trapezoid sum between consecutive frontier points."""
    rows = [
        (i, u, g)
        for i, c in enumerate(FRONTIER_CURVES)
        for u, g in zip(c["user_tps"], c["gpu_tps"], strict=True)
    ]
    con = duckdb.connect()
    con.execute("CREATE TABLE pts (cfg INTEGER, u DOUBLE, g DOUBLE)")
    con.executemany("INSERT INTO pts VALUES (?, ?, ?)", rows)
    con.execute("CREATE TABLE buckets (x DOUBLE)")
    con.executemany("INSERT INTO buckets VALUES (?)", [(b,) for b in BUCKETS])
    con.execute(
        """CREATE VIEW front AS SELECT p.* FROM pts p WHERE NOT EXISTS (SELECT 1 FROM pts q
           WHERE q.cfg = p.cfg AND q.u >= p.u AND q.g >= p.g AND (q.u > p.u OR q.g > p.g))"""
    )
    cells = con.execute(
        """SELECT c.cfg, b.x,
             (SELECT CASE WHEN lo.u = hi.u THEN lo.g
                          ELSE lo.g + (hi.g - lo.g) * (b.x - lo.u) / (hi.u - lo.u) END
              FROM (SELECT * FROM front f WHERE f.cfg = c.cfg AND f.u <= b.x ORDER BY f.u DESC LIMIT 1) lo,
                   (SELECT * FROM front f WHERE f.cfg = c.cfg AND f.u >= b.x ORDER BY f.u LIMIT 1) hi)
           FROM (SELECT DISTINCT cfg FROM pts) c, buckets b"""
    ).fetchall()
    auc = con.execute(
        """SELECT cfg, coalesce(sum((nu - u) * (g + ng) / 2), 0) FROM (
             SELECT cfg, u, g, lead(u) OVER w AS nu, lead(g) OVER w AS ng FROM front
             WINDOW w AS (PARTITION BY cfg ORDER BY u)) GROUP BY cfg ORDER BY cfg"""
    ).fetchall()
    return {(cfg, int(x)): v for cfg, x, v in cells}, [a for _, a in auc]


def test_frontier_table_cells_equal_a_duckdb_query() -> None:
    sql_cells, sql_auc = _duckdb_table()
    table = advisor.frontier_table(FRONTIER_CURVES, BUCKETS)
    assert table["buckets"] == [10, 20, 30, 40, 50]  # 5 and 75: outside every frontier
    for i in range(len(FRONTIER_CURVES)):
        for k, b in enumerate(table["buckets"]):
            want, got = sql_cells[(i, b)], table["cells"][i][k]
            assert (got is None) == (want is None) and (got is None or math.isclose(got, want)), (i, b)
    assert [round(a, 9) for a in table["auc"]] == [round(a, 9) for a in sql_auc]
    # by hand: H200 at 30 tok/s per user, between (20, 700) and (40, 300): 700 - 400 x 10/20 = 500;
    # B200 at 30, between (25, 1000) and (50, 400): 1000 - 600 x 5/25 = 880, the best of that column
    assert math.isclose(table["cells"][0][2], 500) and math.isclose(table["cells"][1][2], 880)
    assert table["best"] == [0, 0, 1, 1, 1]
    # areas: H200 (20-10)(900+700)/2 + (40-20)(700+300)/2 = 8000 + 10000; B200 (50-25)(1000+400)/2 = 17500
    assert table["auc"] == [18000, 17500]


def test_frontier_table_in_the_page_module_equals_python() -> None:
    node = shutil.which("node")
    assert node, "node is needed"
    script = (
        f"import * as L from {json.dumps(LOGIC_JS.as_uri())};"
        f"process.stdout.write(JSON.stringify(L.frontierTable({json.dumps(FRONTIER_CURVES)},"
        f"{json.dumps(list(BUCKETS))})));"
    )
    out = subprocess.run(
        [node, "--input-type=module", "-e", script], capture_output=True, text=True, check=True
    )
    js = json.loads(out.stdout)
    py = advisor.frontier_table(FRONTIER_CURVES, BUCKETS)
    assert js["buckets"] == py["buckets"] and js["best"] == py["best"] and js["auc"] == py["auc"]
    assert [[None if v is None else round(v, 9) for v in r] for r in js["cells"]] == [
        [None if v is None else round(v, 9) for v in r] for r in py["cells"]
    ]


# --- the curves the build ships -----------------------------------------------------------------------


def _runs(rows: list[dict]) -> pd.DataFrame:
    base = {
        "model_name": M, "model": "org/model-m", "gpu": "H200 SXM 141GB", "precision": "FP8",
        "kv_cache_dtype": "FP8", "isl": 1000, "osl": 1000, "tp": 1, "pp": 1, "ep": None,
        "attention_dp": False, "n_gpus": 1, "engine": "tensorrt-llm", "engine_version": "1.2.0",
        "source_kind": "measured",
        "publisher": "lab", "output_tps_per_user": None, "ttft_ms_p50": None, "ttft_ms_p90": None,
        "tpot_ms_avg": None,
    }  # fmt: skip
    return pd.DataFrame([{**base, **r} for r in rows])


def test_curves_keep_only_runs_that_can_answer_and_take_the_median_of_repeats() -> None:
    runs = _runs([
        {"run_id": "r1", "concurrency": 4, "output_tps_per_gpu": 400.0, "ttft_ms_p90": 90.0},
        {"run_id": "r2", "concurrency": 4, "output_tps_per_gpu": 500.0, "ttft_ms_p90": 110.0},
        {"run_id": "r3", "concurrency": 4, "output_tps_per_gpu": 600.0, "ttft_ms_p90": 100.0},
        {"run_id": "r4", "concurrency": 1, "output_tps_per_gpu": 100.0, "output_tps_per_user": 100.0},
        {"run_id": "peak", "concurrency": None, "output_tps_per_gpu": 9000.0},  # peak only: not shipped
        {"run_id": "nolat", "concurrency": 8, "output_tps_per_gpu": 800.0},  # no latency: not shipped
    ])  # fmt: skip
    (c,) = advisor.curves(runs)
    assert c["c"] == [1, 4] and c["gpu_tps"] == [100, 500] and c["ttft90"] == [None, 100]
    assert c["runs"] == [["r4"], ["r1", "r2", "r3"]]


def test_an_estimate_is_ranked_as_estimated() -> None:
    assert advisor.basis("modelled") == "estimated" and advisor.basis("measured") == "measured"


def test_every_default_price_names_its_source_and_date() -> None:
    for p in advisor.PRICES:
        assert p["usd"] > 0 and p["url"].startswith("https://") and p["source"]
        assert len(p["date"]) == 10 and p["date"] < "2026-12-02"


# --- the address (docs/assets/js/advisor/url.js) -------------------------------------------------------

URL_JS = ROOT / "docs" / "assets" / "js" / "advisor" / "url.js"


def _url_js(body: str) -> Any:
    node = shutil.which("node")
    assert node, "node is needed"
    script = f"import * as U from {json.dumps(URL_JS.as_uri())};{body}"
    out = subprocess.run(
        [node, "--input-type=module", "-e", script], capture_output=True, text=True, check=True
    )
    return json.loads(out.stdout)


def test_a_state_survives_the_address_and_hostile_values_are_dropped() -> None:
    defaults = {"model": "A", "ttft": 2000, "tpot": 100, "user": 10, "demand": 10000, "prices": {"G1": 4.54}}
    state = {
        "model": "B", "wl": "128/2048", "ttft": 350.5, "pct": "p50", "lk": "tpot", "tpot": 40, "user": 10,
        "demand": 3, "dk": "rps", "prices": {"G1": 4.54, "G2 <x>": 2.5}, "n": [1, 8], "tp": [8], "ep": [],
    }  # fmt: skip
    choices = (
        "{models:['A','B'], gpus:['G1','G2 <x>'], workloads:(m)=>m==='B'?['1024/1024','128/2048']:['1/1']}"
    )
    back = _url_js(
        f"const d={json.dumps(defaults)}, s={json.dumps(state)};"
        f"const q=U.writeState(s,d); const r=U.readState(q,d,{choices});"
        "process.stdout.write(JSON.stringify({q, r}));"
    )
    assert back["r"]["bad"] == [] and back["r"]["state"] == state
    assert "price.G1" not in back["q"]  # a default price stays out of the address
    hostile = (
        "?model=%3Cimg%3E&wl=%3Cscript%3E&ttft=1e308&user=0x10&d=-5"
        "&price.G1=abc&price.%3Cimg%3E=1&n=1,%3Cx%3E"
    )
    r = _url_js(f"process.stdout.write(JSON.stringify(U.readState({json.dumps(hostile)},"
                f"{json.dumps(defaults)},{choices})))")  # fmt: skip
    assert r["state"]["model"] == "A" and r["state"]["wl"] == "1/1" and r["state"]["ttft"] == 2000
    assert r["state"]["user"] == 10 and r["state"]["demand"] == 10000 and r["state"]["prices"] == {"G1": 4.54}
    assert r["state"]["n"] == [1]
    assert sorted(v for _, v in r["bad"]) == ["-5", "0x10", "1e308", "abc"]
