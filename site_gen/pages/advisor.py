"""The advisor ("What should I run?", issue 27): from a model, a workload and latency limits to ranked
deployments with their cost.

Two halves:

- **the data file** (``curves_payload``, written once per build by the ``<!-- advisor -->`` marker): one
  curve per serving configuration (GPU × model × precision × workload × TP/PP/EP × engine and version ×
  source), its points sorted by concurrency with output tok/s per GPU, tok/s per user, TTFT p50/p90, mean
  TPOT and the run ids. Only runs that can answer the advisor's question are shipped: a concurrency, a
  throughput, and at least one latency or per-user figure. Peak-only published rows (most of the tables)
  have none, so the file does not grow with them.
- **the arithmetic** (``best_point``, ``deployment``, ``rank``, ``closest``, ``frontier_table``,
  ``frontier_auc``): the Python twin of ``docs/assets/js/advisor/logic.js``; the tests run the same
  hand-worked cases through both.

Interpolation: between two measured concurrencies every figure is taken as linear in concurrency (the
straight line between the two runs), and only whole concurrencies are offered; nothing outside the
measured range of a curve is ever offered (no extrapolation).
"""

from __future__ import annotations

import html
import itertools
import json
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from site_gen.charts.latency_views import BUCKETS  # the Pareto view's table, its home
from site_gen.data import dataset

if TYPE_CHECKING:
    import pandas as pd

    from site_gen.pages.markers import Page

STEM = "advisor"
PLANNER_PAGE = "guide/07-memory.html"
# The advisor's page module and what it imports (docs/assets/js), preloaded on its page (render).
MODULES = (
    "pages/advisor.js", "advisor/ui.js", "advisor/logic.js", "advisor/url.js", "advisor/html.js",
    "advisor/prices.js", "advisor/model.js",
)  # fmt: skip
PARETO_PAGE = "generated/views/latency-pareto.html"  # the per-interactivity tables (?model=&workload=)
EPS = 1e-9  # a limit equal to a measured figure is met; float noise of the interpolation is not a miss
ESTIMATE_KINDS = ("modelled", "estimated")  # source kinds of estimates (AIConfigurator): ranked after
BAND_COLUMN = "error_band_pct"  # an estimate's error band (± %), when the estimates land in the database
# The columns that make a configuration: two runs agreeing on all of them are points of one curve.
CONFIG_COLUMNS = (
    "model_name", "model", "gpu", "precision", "kv_cache_dtype", "isl", "osl", "tp", "pp", "ep",
    "attention_dp", "n_gpus", "engine", "engine_version", "source_kind", "publisher",
)  # fmt: skip
POINT_COLUMNS = (
    "concurrency", "output_tps_per_gpu", "output_tps_per_user", "ttft_ms_p50", "ttft_ms_p90", "tpot_ms_avg",
)  # fmt: skip

# Default $/GPU-hour: published on-demand prices, each with where and when it was read. A GPU without
# one has no default: the reader types a price (the site never invents one).
PRICES: tuple[dict[str, Any], ...] = (
    {
        "gpu": "H200 SXM 141GB",
        "usd": 4.54,
        "source": "Spheron on-demand, H200 SXM",
        "url": "https://www.spheron.network/blog/nvidia-h200-vs-b200-vs-gb200",
        "date": "2026-03-17",
    },
    {
        "gpu": "B200 180GB",
        "usd": 6.03,
        "source": "Spheron on-demand, B200 SXM",
        "url": "https://www.spheron.network/blog/nvidia-h200-vs-b200-vs-gb200",
        "date": "2026-03-17",
    },
    {
        "gpu": "H100 SXM 80GB",
        "usd": 3.78,
        "source": "Lambda on-demand 1x H100 SXM, as listed in techbytes.app's price table",
        "url": "https://techbytes.app/posts/serverless-gpu-pricing-matrix-modal-replicate-lambda-2026/",
        "date": "2026-05-07",
    },
)


# --- the curves -------------------------------------------------------------------------------------


def answering_runs(runs: pd.DataFrame) -> pd.DataFrame:
    """The runs that can answer the advisor: a concurrency, a throughput per GPU above zero, and a
    latency or per-user figure to hold against the limits."""
    need = [c for c in (*CONFIG_COLUMNS, *POINT_COLUMNS, "run_id") if c not in runs.columns]
    if need:
        return runs.iloc[0:0]
    lat = runs[["output_tps_per_user", "ttft_ms_p50", "ttft_ms_p90", "tpot_ms_avg"]].notna().any(axis=1)
    keep = runs["concurrency"].notna() & (runs["concurrency"] > 0) & (runs["output_tps_per_gpu"] > 0) & lat
    return runs[keep]


def _median(values: Sequence[Any]) -> float | None:
    vs = sorted(float(v) for v in values if v is not None and not _isnan(v))
    if not vs:
        return None
    mid = len(vs) // 2
    return vs[mid] if len(vs) % 2 else (vs[mid - 1] + vs[mid]) / 2


def _isnan(v: Any) -> bool:
    return isinstance(v, float) and math.isnan(v)


def _plain(v: Any) -> Any:
    """A DataFrame cell as JSON: NaN/NA -> None, numpy scalars -> Python."""
    if v is None or _isnan(v):
        return None
    try:
        import pandas as pd

        if pd.isna(v):
            return None
    except (TypeError, ValueError):
        pass
    return v.item() if hasattr(v, "item") else v


def curves(runs: pd.DataFrame) -> list[dict[str, Any]]:
    """One curve per configuration: its describing fields and its points by concurrency. Runs of one
    configuration at the same concurrency (repetitions) become one point, the median of each figure, with
    every run id kept (the run cards show each). Grouped in pandas, not per run in Python: 100,000 runs
    take about a second."""
    import numpy as np

    rows = answering_runs(runs)
    if rows.empty:
        return []
    cols = [*CONFIG_COLUMNS, "concurrency"]
    rows = rows.assign(concurrency=rows["concurrency"].astype("int64"), run_id=rows["run_id"].astype(str))
    grouped = rows.groupby(cols, dropna=False, sort=True)
    aggs = {short: (col, "median") for short, col in _SHORT.items()}
    if BAND_COLUMN in rows.columns:
        aggs["band"] = (BAND_COLUMN, "median")
    pts = grouped.agg(**aggs).reset_index()
    # the run ids of each point: rows in the points' order, split where the point changes
    order = rows.assign(_g=grouped.ngroup()).sort_values(["_g", "run_id"], kind="stable")
    cuts = np.flatnonzero(np.diff(order["_g"].to_numpy())) + 1
    ids = [a.tolist() for a in np.split(order["run_id"].to_numpy(), cuts)]
    figures = {short: _rounded(pts[short].to_numpy(dtype="float64", na_value=np.nan)) for short in _SHORT}
    band = _rounded(pts["band"].to_numpy(dtype="float64", na_value=np.nan)) if "band" in pts else None
    curve_of = pts.groupby(list(CONFIG_COLUMNS), dropna=False, sort=False).ngroup().to_numpy()
    conc = pts["concurrency"].tolist()
    meta = pts[list(CONFIG_COLUMNS)].to_dict("records")
    out: list[dict[str, Any]] = []
    for k in range(len(pts)):
        if k == 0 or curve_of[k] != curve_of[k - 1]:
            out.append(_describe({c: _plain(v) for c, v in meta[k].items()}))
            out[-1]["_bands"] = []
        cur = out[-1]
        cur["c"].append(conc[k])
        for short in _SHORT:
            cur[short].append(figures[short][k])
        cur["runs"].append(ids[k])
        if band is not None and band[k] is not None:
            cur["_bands"].append(band[k])
    for cur in out:
        cur["band"] = _median(cur.pop("_bands"))
    return out


def _describe(cfg: dict[str, Any]) -> dict[str, Any]:
    """A curve's describing fields (short names: the file is shipped) and its empty point lists."""
    return {
        "model": cfg["model_name"],
        "model_id": cfg["model"],
        "gpu": cfg["gpu"],
        "precision": cfg["precision"],
        "kv": cfg["kv_cache_dtype"],
        "isl": int(cfg["isl"]),
        "osl": int(cfg["osl"]),
        "tp": int(cfg["tp"]),
        "pp": int(cfg["pp"]),
        "ep": None if cfg["ep"] is None else int(cfg["ep"]),
        "adp": bool(cfg["attention_dp"]) if cfg["attention_dp"] is not None else False,
        "n_gpus": int(cfg["n_gpus"]),
        "engine": cfg["engine"],
        "version": cfg["engine_version"],
        "kind": cfg["source_kind"],
        "publisher": cfg["publisher"],
        "band": None,
        "c": [],
        **{short: [] for short in _SHORT},
        "runs": [],
    }


def _rounded(values: Any) -> list[float | None]:
    """4 significant figures (finer than any run repeats; the file stays small), None for NaN."""
    import numpy as np

    with np.errstate(divide="ignore", invalid="ignore"):
        scale = 10.0 ** (3 - np.floor(np.log10(np.abs(values))))
        r = np.where(np.isfinite(scale), np.round(values * scale) / scale, values)
    return [None if np.isnan(v) else float(v) for v in r.tolist()]


_SHORT = {
    "gpu_tps": "output_tps_per_gpu",
    "user_tps": "output_tps_per_user",
    "ttft50": "ttft_ms_p50",
    "ttft90": "ttft_ms_p90",
    "tpot": "tpot_ms_avg",
}


def curves_payload(runs: pd.DataFrame) -> dict[str, Any]:
    return {"v": 1, "curves": curves(runs), "prices": list(PRICES)}


def db_runs(db: Path | None) -> pd.DataFrame:
    """The runs that can answer the advisor, read from the database (the site's frame lacks TTFT p50/p90
    and the model id): DuckDB filters, so the read stays small whatever the number of peak-only runs."""
    import duckdb
    import pandas as pd

    if db is None or not Path(db).exists():
        return pd.DataFrame(columns=[*CONFIG_COLUMNS, *POINT_COLUMNS, "run_id"])
    con = duckdb.connect(str(db), read_only=True)
    try:
        have = {r[0] for r in con.execute("DESCRIBE runs").fetchall()}
        cols = [*CONFIG_COLUMNS, *POINT_COLUMNS, "run_id", *([BAND_COLUMN] if BAND_COLUMN in have else [])]
        select = ", ".join(c if c in have else f"NULL AS {c}" for c in cols)
        sql = (
            f"SELECT {select} FROM runs WHERE concurrency > 0 AND output_tps_per_gpu > 0 AND"
            " (output_tps_per_user IS NOT NULL OR ttft_ms_p50 IS NOT NULL OR ttft_ms_p90 IS NOT NULL"
            " OR tpot_ms_avg IS NOT NULL)"
        )
        return con.execute(sql).df()
    finally:
        con.close()


# --- the page's placeholder -------------------------------------------------------------------------


def render(page: Page) -> str:
    """The advisor's placeholder: where its data file is, the run cards' and the planner's pages (relative
    to this page), the defaults and the words in the page's language. The entry module fills it."""
    site = page.site
    if "advisor" not in site.keys:
        key, text = dataset.data_file(STEM, curves_payload(db_runs(site.db)))
        site.keys["advisor"] = site.keep(dataset.DataFile(key, [text.encode()]))
    key = site.keys["advisor"]
    attrs = {
        "data-src": page._rel(f"assets/data/{dataset.data_name(key)}"),
        "data-key": key,
        "data-card": page.card,
        "data-planner": page._rel(page.root + PLANNER_PAGE),
        "data-pareto": page._rel(page.root + PARETO_PAGE),
        "data-words": json.dumps(site.cat.section("advisor"), ensure_ascii=False),
        "data-lang": site.lang,
    }
    body = " ".join(f'{k}="{html.escape(v, quote=True)}"' for k, v in attrs.items())
    # The answer is the page's first screen, but main.js reaches it through a chain of imports (main.js ->
    # pages/advisor.js -> advisor/ui.js -> its imports; then the data file): modulepreload lets the browser
    # fetch the modules beside main.js instead of one level after another (the URLs import() asks for, so
    # nothing is fetched twice; a modulepreload link may sit in the body).
    hints = [
        f'<link rel="modulepreload" href="{html.escape(page._rel("assets/js/" + m), quote=True)}">'
        for m in MODULES
    ]
    # Shown until the module replaces it: where module scripts cannot run (file://, no JavaScript) it stays
    # and says how to serve the folder.
    note = html.escape(site.cat.t("advisor.noscript"))
    loading = f'<p class="lb-advisor-loading">{note}</p>'
    return "".join(hints) + f'<div id="llmbench-advisor" class="lb-advisor" {body}>{loading}</div>'


# --- the arithmetic (twin of docs/assets/js/advisor/logic.js) ----------------------------------------


Percentile = Literal["p50", "p90"]


@dataclass(frozen=True)
class Limits:
    """The reader's limits; None: not set. ``user_min`` (tok/s per user) and ``tpot_ms`` may both be set."""

    ttft_ms: float | None = None
    ttft_pct: Percentile = "p90"
    tpot_ms: float | None = None
    user_min: float | None = None


@dataclass(frozen=True)
class Point:
    """An operating point of a curve: at a measured concurrency, or interpolated between two."""

    concurrency: int
    gpu_tps: float
    user_tps: float | None
    ttft_ms: float | None
    tpot_ms: float | None
    interpolated: bool
    runs: tuple[str, ...]  # the run(s) it comes from: one measured point, or the two around it


@dataclass(frozen=True)
class Deployment:
    curve: dict[str, Any]
    point: Point
    instances: int
    gpus: int
    usd_hour: float
    usd_per_m: float  # $ per million output tokens delivered at the demanded rate
    basis: str  # measured, published, estimated


@dataclass
class Answer:
    rows: list[Deployment] = field(default_factory=list)
    unpriced: list[str] = field(default_factory=list)  # GPUs of feasible curves without a price
    considered: int = 0  # curves of the model and workload (after the filters)


def _lin(c0: float, c1: float, y0: float, y1: float, c: float) -> float:
    return y0 if c1 == c0 else y0 + (y1 - y0) * (c - c0) / (c1 - c0)


def _figures(curve: dict[str, Any], pct: Percentile) -> dict[str, list[float | None]]:
    return {
        "gpu": curve["gpu_tps"],
        "user": curve["user_tps"],
        "ttft": curve["ttft50" if pct == "p50" else "ttft90"],
        "tpot": curve["tpot"],
    }


def _checks(lim: Limits) -> list[tuple[str, str, float]]:
    """(figure, 'max'|'min', bound) for each limit set."""
    out = []
    if lim.ttft_ms is not None:
        out.append(("ttft", "max", lim.ttft_ms))
    if lim.tpot_ms is not None:
        out.append(("tpot", "max", lim.tpot_ms))
    if lim.user_min is not None:
        out.append(("user", "min", lim.user_min))
    return out


def _allowed(
    y0: float, y1: float, c0: float, c1: float, how: str, bound: float
) -> tuple[float, float] | None:
    """The concurrencies of [c0, c1] where the straight line from y0 to y1 is within the bound."""
    ok0 = y0 <= bound + EPS * max(1, abs(bound)) if how == "max" else y0 >= bound - EPS * max(1, abs(bound))
    ok1 = y1 <= bound + EPS * max(1, abs(bound)) if how == "max" else y1 >= bound - EPS * max(1, abs(bound))
    if ok0 and ok1:
        return c0, c1
    if not ok0 and not ok1:
        return None
    cross = c0 + (bound - y0) * (c1 - c0) / (y1 - y0)  # y0 != y1: one end is in, the other out
    return (c0, cross) if ok0 else (cross, c1)


def best_point(curve: dict[str, Any], lim: Limits) -> Point | None:
    """The whole concurrency, within the measured range, that gives the most output tok/s per GPU while
    meeting every limit; None if none does. Within a segment each figure is linear in concurrency, so the
    allowed concurrencies are one interval and the best is one of its two whole-number ends."""
    f = _figures(curve, lim.ttft_pct)
    cs = curve["c"]
    checks = _checks(lim)
    best: Point | None = None
    segments = [(i, i) for i in range(len(cs))] + [(i, i + 1) for i in range(len(cs) - 1)]
    for i, j in segments:
        lo, hi = float(cs[i]), float(cs[j])
        feasible = True
        for name, how, bound in checks:
            y0, y1 = f[name][i], f[name][j]
            if y0 is None or y1 is None:
                feasible = False
                break
            span = _allowed(y0, y1, cs[i], cs[j], how, bound)
            if span is None:
                feasible = False
                break
            lo, hi = max(lo, span[0]), min(hi, span[1])
        if not feasible:
            continue
        for c in {math.ceil(lo - EPS), math.floor(hi + EPS)}:
            if c < lo - EPS or c > hi + EPS or c < cs[i] or c > cs[j]:
                continue
            p = _at(curve, f, i, j, c)
            if best is None or p.gpu_tps > best.gpu_tps + EPS:
                best = p
    return best


def _at(curve: dict[str, Any], f: dict[str, list[float | None]], i: int, j: int, c: int) -> Point:
    c0, c1 = curve["c"][i], curve["c"][j]

    def y(name: str) -> float | None:
        a, b = f[name][i], f[name][j]
        return None if a is None or b is None else _lin(c0, c1, a, b, c)

    measured = c in (c0, c1)
    k = i if c == c0 else j
    runs = tuple(curve["runs"][k]) if measured else (*curve["runs"][i], *curve["runs"][j])
    return Point(c, y("gpu") or 0.0, y("user"), y("ttft"), y("tpot"), not measured, runs)


def demand_tps(demand: float, kind: Literal["tps", "rps"], osl: int) -> float:
    """The output tokens/s to serve: as given, or requests/s × output tokens per request."""
    return demand if kind == "tps" else demand * osl


def basis(kind: str) -> str:
    return "estimated" if kind in ESTIMATE_KINDS else kind


def deployment(curve: dict[str, Any], point: Point, need_tps: float, price: float) -> Deployment:
    """Instances = ⌈demand ÷ (tok/s per GPU × GPUs per instance)⌉; $/hour = instances × GPUs per instance
    × price; $ per 1M output tokens = $/hour ÷ (demand × 3600) × 10^6: the tokens actually asked for, so
    the capacity a rounded-up instance leaves idle is paid for."""
    if need_tps <= 0 or price < 0:
        raise ValueError(f"expected demand > 0 and price >= 0, got {need_tps}, {price}")
    per_instance = point.gpu_tps * curve["n_gpus"]
    instances = max(1, math.ceil(need_tps / per_instance - EPS))
    gpus = instances * curve["n_gpus"]
    usd_hour = gpus * price
    return Deployment(
        curve, point, instances, gpus, usd_hour, usd_hour / (need_tps * 3600) * 1e6, basis(curve["kind"])
    )


def _label(c: dict[str, Any]) -> str:
    keys = ("gpu", "n_gpus", "tp", "pp", "ep", "precision", "engine", "version", "publisher")
    return "|".join(str(c[k]) for k in keys)


def sort_key(d: Deployment) -> tuple[Any, ...]:
    """Cheapest first; at an equal cost (to the cent, what the table shows) measured and published before
    estimated, then fewer GPUs, then a fixed order."""
    return (
        math.floor(d.usd_per_m * 100 + 0.5),
        d.basis == "estimated",
        d.gpus,
        _label(d.curve),
    )  # as JS Math.round


@dataclass(frozen=True)
class Query:
    model: str
    isl: int
    osl: int
    limits: Limits
    demand: float
    demand_kind: Literal["tps", "rps"] = "tps"
    prices: dict[str, float] = field(default_factory=dict)
    n_gpus: frozenset[int] = frozenset()  # empty: any
    tp: frozenset[int] = frozenset()
    ep: frozenset[int] = frozenset()


def matching(all_curves: Iterable[dict[str, Any]], q: Query) -> list[dict[str, Any]]:
    """The curves of the query's model and workload that pass its GPU-count, TP and EP filters."""
    return [
        c
        for c in all_curves
        if c["model"] == q.model
        and c["isl"] == q.isl
        and c["osl"] == q.osl
        and (not q.n_gpus or c["n_gpus"] in q.n_gpus)
        and (not q.tp or c["tp"] in q.tp)
        and (not q.ep or (c["ep"] or 1) in q.ep)
    ]


def rank(all_curves: Iterable[dict[str, Any]], q: Query) -> Answer:
    need = demand_tps(q.demand, q.demand_kind, q.osl)
    ans = Answer()
    cands = matching(all_curves, q)
    ans.considered = len(cands)
    for c in cands:
        p = best_point(c, q.limits)
        if p is None:
            continue
        price = q.prices.get(c["gpu"])
        if price is None:
            if c["gpu"] not in ans.unpriced:
                ans.unpriced.append(c["gpu"])
            continue
        ans.rows.append(deployment(c, p, need, price))
    ans.rows.sort(key=sort_key)
    return ans


@dataclass(frozen=True)
class Closest:
    """When nothing meets the limits: the measured point that misses them by the least (its largest
    relative miss), and which limit that is."""

    curve: dict[str, Any]
    concurrency: int
    limit: str  # ttft, tpot, user
    value: float
    bound: float
    miss: float  # relative: 0.2 = 20 % past the limit


def closest(all_curves: Iterable[dict[str, Any]], q: Query) -> Closest | None:
    best: Closest | None = None
    for c in matching(all_curves, q):
        f = _figures(c, q.limits.ttft_pct)
        for k, conc in enumerate(c["c"]):
            worst: tuple[float, str, float, float] | None = None
            for name, how, bound in _checks(q.limits):
                v = f[name][k]
                if v is None:
                    miss = math.inf
                    v = math.nan
                elif how == "max":
                    miss = max(0.0, v / bound - 1) if bound > 0 else (0.0 if v <= bound else math.inf)
                else:
                    miss = max(0.0, bound / v - 1) if v > 0 else math.inf
                if worst is None or miss > worst[0]:
                    worst = (miss, name, v, bound)
            if worst is None or math.isinf(worst[0]):
                continue
            if best is None or worst[0] < best.miss - EPS:
                best = Closest(c, conc, worst[1], worst[2], worst[3], worst[0])
    return best


# --- the per-interactivity table --------------------------------------------------------------------


def frontier(curve: dict[str, Any]) -> list[tuple[float, float]]:
    """The curve's Pareto frontier as (tok/s per user, tok/s per GPU), by tok/s per user: the points no
    other point beats on both (site_gen.charts.latency_views.pareto_frontier, the Pareto view's rule)."""
    from site_gen.charts.latency_views import Point as PPoint
    from site_gen.charts.latency_views import pareto_frontier

    pts = [
        PPoint(i, u, g)
        for i, (u, g) in enumerate(zip(curve["user_tps"], curve["gpu_tps"], strict=True))
        if u is not None and g is not None and u > 0 and g > 0
    ]
    return [(p.per_user, p.per_gpu) for p in pareto_frontier(pts)]


def frontier_at(front: Sequence[tuple[float, float]], x: float) -> float | None:
    """Tok/s per GPU at ``x`` tok/s per user, linear between the two frontier points around it; None
    outside the frontier's range (never extrapolated)."""
    if not front or x < front[0][0] - EPS or x > front[-1][0] + EPS:
        return None
    for (x0, y0), (x1, y1) in itertools.pairwise(front):
        if x0 - EPS <= x <= x1 + EPS:
            return _lin(x0, x1, y0, y1, min(max(x, x0), x1))
    return front[0][1]  # a frontier of one point, x equal to it


def frontier_auc(front: Sequence[tuple[float, float]]) -> float:
    """The area under the frontier: the trapezoid sum of tok/s per GPU over tok/s per user, from the
    frontier's lowest to its highest per-user speed (no extension to the axes); 0 for a single point.
    Unit: (tok/s per GPU) × (tok/s per user)."""
    return sum((x1 - x0) * (y0 + y1) / 2 for (x0, y0), (x1, y1) in itertools.pairwise(front))


def frontier_table(cs: Sequence[dict[str, Any]], buckets: Sequence[float] = BUCKETS) -> dict[str, Any]:
    """Rows: the curves; columns: the buckets some frontier spans; cells: tok/s per GPU (None: outside
    that frontier's range); ``best``: per column, the row index of the highest cell."""
    fronts = [frontier(c) for c in cs]
    cells = [[frontier_at(f, b) for b in buckets] for f in fronts]
    keep = [k for k in range(len(buckets)) if any(row[k] is not None for row in cells)]
    cells = [[row[k] for k in keep] for row in cells]
    best = []
    for k in range(len(keep)):
        col = [(row[k], -i) for i, row in enumerate(cells) if row[k] is not None]
        best.append(-max(col)[1])
    return {
        "buckets": [buckets[k] for k in keep],
        "cells": cells,
        "best": best,
        "auc": [frontier_auc(f) for f in fronts],
    }
