"""Steps across releases: where a configuration's throughput moved from one release to the next and stayed.

The rule (after asv's step detection, ``asv/step_detect.py``: a piecewise-constant fit with a penalty per
step, the penalty scaled by the noise; written here from that description, not from its code):

1. A **history** is one configuration (publisher, GPU, model, precision, workload, parallelism,
   concurrency, engine) across releases, in release order: one value per release, its best output
   tokens/s per GPU. Only histories of two or more releases count.
2. Values are compared as logarithms, so a step is a ratio (a 25 % drop is as large at 1,000 tokens/s as at
   20,000).
3. **Noise** ``sigma`` is estimated once from all histories together: the median absolute change between
   consecutive releases, scaled to a standard deviation (x 1.4826 / √2). The median ignores the few real
   steps; pooling is needed because most histories have 3 to 10 points. It is never below
   ``MIN_SIGMA`` (1 %: figures are published to a few digits).
4. Each history is fitted with the piecewise-constant function that minimises the sum of absolute
   deviations from each segment's median plus ``PENALTY`` x sigma per step (solved exactly: histories are
   short). A step must pay for itself: a lasting change of ``h`` over ``m`` releases saves about ``m·h``.
5. A step is **reported** where the fitted levels on either side differ by more than ``MIN_STEPS``
   standard errors, ``sigma x √(1/m1 + 1/m2)`` for segments of m1 and m2 releases (a lone last release
   must move more than two segments of four); the least significant step is merged away first, and the
   levels refitted, until every step left passes. A single noisy release that comes back does not pay
   two steps' penalty and is not reported.

6. A step is **not reported** where it stays within a measured spread: the level after it lies between
   the lowest and highest repetition of the repeated run (issue 30) on the release before it, or the level
   before it within that of the release after it. Repetitions of one point already differ that much, so
   such a step is no evidence of a change (``within_spread`` lists them; ``llmbench diff`` says so).

A **regression** is a step down. No fixed ±N % threshold: the bar moves with the data's noise.
"""

from __future__ import annotations

import itertools
import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

PENALTY = 4.0  # per step, in units of sigma
MIN_STEPS = 4.0  # a reported step exceeds this many standard errors (rule 5)
MIN_SIGMA = 0.01  # log units (about 1 %)

# A history's configuration: every column that tells two runs apart except the release.
KEY_COLUMNS = (
    "publisher", "engine", "gpu", "model_name", "precision", "workload", "tp", "pp", "ep", "attention_dp",
    "concurrency",
)  # fmt: skip


@dataclass(frozen=True)
class Step:
    index: int  # the first release of the new level (a position in the history)
    before: float  # the fitted level before the step (the segment's median, not the log)
    after: float

    @property
    def ratio(self) -> float:
        return self.after / self.before


@dataclass(frozen=True)
class History:
    key: tuple  # KEY_COLUMNS' values
    releases: tuple[str, ...]
    values: tuple[float, ...]
    # per release, the repetitions' (lowest, highest) of the run giving the value; None: one sample
    spreads: tuple[tuple[float, float] | None, ...] = ()

    def label(self) -> dict[str, object]:
        return dict(zip(KEY_COLUMNS, self.key, strict=True))


@dataclass(frozen=True)
class Found:
    history: History
    step: Step

    @property
    def before_release(self) -> str:
        return self.history.releases[self.step.index - 1]

    @property
    def after_release(self) -> str:
        return self.history.releases[self.step.index]


def _l1_cost(y: Sequence[float]) -> float:
    m = statistics.median(y)
    return sum(abs(v - m) for v in y)


def segments(y: Sequence[float], gamma: float) -> list[int]:
    """The start of each segment after the first of the exact L1 piecewise-constant fit with ``gamma``
    per step (dynamic programming over the last segment's start)."""
    n = len(y)
    best = [0.0] + [math.inf] * n  # best[j]: cost of y[:j]
    start = [0] * (n + 1)
    for j in range(1, n + 1):
        for i in range(j):
            c = best[i] + _l1_cost(y[i:j]) + (gamma if i > 0 else 0.0)
            if c < best[j]:
                best[j], start[j] = c, i
    cuts, j = [], n
    while j > 0:
        if start[j] > 0:
            cuts.append(start[j])
        j = start[j]
    return sorted(cuts)


def noise(histories: Sequence[Sequence[float]]) -> float:
    """Pooled per-point noise (log units) of the histories' values (rule 3)."""
    diffs = [abs(math.log(b) - math.log(a)) for h in histories for a, b in itertools.pairwise(h) if a > 0 < b]
    if not diffs:
        return MIN_SIGMA
    return max(MIN_SIGMA, 1.4826 * statistics.median(diffs) / math.sqrt(2))


def steps(values: Sequence[float], sigma: float) -> list[Step]:
    """The reported steps of one history (rules 4 and 5)."""
    logs = [math.log(v) for v in values]
    cuts = segments(logs, PENALTY * sigma)
    while True:  # drop the least significant step until every one left is significant, then report them
        bounds = [0, *cuts, len(logs)]
        parts = [logs[a:b] for a, b in itertools.pairwise(bounds)]
        levels = [statistics.median(p) for p in parts]
        z = [
            abs(levels[k + 1] - levels[k]) / (sigma * math.sqrt(1 / len(parts[k]) + 1 / len(parts[k + 1])))
            for k in range(len(cuts))
        ]
        if not cuts or min(z) > MIN_STEPS:
            break
        del cuts[z.index(min(z))]
    return [Step(cut, math.exp(levels[k]), math.exp(levels[k + 1])) for k, cut in enumerate(cuts)]


HISTORY_ROWS = 100_000  # rows fetched at a time: a million Python tuples at once was ~0.5 GB at 1M runs

_KEY = ", ".join(KEY_COLUMNS)
# One point per configuration and release (rule 1): its best output tokens/s per GPU, the release's order,
# and the spread of the run giving that best (rule 6).
_POINTS = (
    f"SELECT {_KEY}, engine_version, max(output_tps_per_gpu) AS v, min(version_key) AS vk,"
    " arg_max(output_tps_per_gpu_min, output_tps_per_gpu) AS lo,"
    " arg_max(output_tps_per_gpu_max, output_tps_per_gpu) AS hi FROM runs"
    " WHERE output_tps_per_gpu > 0 AND erratum IS NULL GROUP BY ALL"
)
_ORDER = f"ORDER BY {_KEY}, vk, engine_version"


def histories(db: Path, reach: float | None = None) -> list[History]:
    """Every configuration with two or more releases, from the site database (rule 1); with ``reach``,
    only those whose (largest - smallest log value) x √(releases) exceeds it (``Checked``). The rows come
    ``HISTORY_ROWS`` at a time and each repeated value (a GPU's name, a release) is kept once: at a
    million runs there is about one row per run, and the histories are what stays of them."""
    import duckdb

    # Windows, not joins: a key column may be NULL (no PP, no concurrency), and NULLs share a partition.
    wide = "" if reach is None else " AND (hi_log - lo_log) * sqrt(n) > ?"
    query = (
        f"SELECT {_KEY}, engine_version, v, vk, lo, hi FROM (SELECT *, count(*) OVER k AS n,"
        " max(ln(v)) OVER k AS hi_log, min(ln(v)) OVER k AS lo_log"
        f" FROM ({_POINTS}) WINDOW k AS (PARTITION BY {_KEY})) WHERE n > 1{wide} {_ORDER}"
    )
    con = duckdb.connect(str(db), read_only=True)
    grouped: dict[tuple, list[tuple[str, float, tuple[float, float] | None]]] = {}
    n = len(KEY_COLUMNS)
    # per column (one type each: 1 and 1.0 are one dict key), a value -> the one object kept for it
    same: list[dict[object, object]] = [{} for _ in range(n + 1)]
    try:
        cursor = con.execute(query, [] if reach is None else [reach])
        while rows := cursor.fetchmany(HISTORY_ROWS):
            for r in rows:
                points = grouped.get(r[:n])
                if points is None:
                    kept = tuple(c.setdefault(v, v) for c, v in zip(same[:n], r[:n], strict=True))
                    points = grouped[kept] = []
                lo, hi = r[n + 3], r[n + 4]
                spread = (float(lo), float(hi)) if lo is not None and hi is not None else None
                points.append((same[n].setdefault(r[n], r[n]), float(r[n + 1]), spread))
            del rows
    finally:
        con.close()
    return [
        History(k, tuple(p[0] for p in pts), tuple(p[1] for p in pts), tuple(p[2] for p in pts))
        for k, pts in grouped.items()
    ]


@dataclass(frozen=True)
class Checked:
    """A database's steps as the release-history page and ``llmbench diff`` need them, without a Python
    object per history: ``detect(histories(db))``'s sigma and steps, and how many histories there are.

    Only histories that could hold a reported step are fetched and fitted. A reported step's levels are
    medians of the history's logs, so they differ by at most its range R (largest - smallest log); and
    its segments of m1 and m2 releases, m1 + m2 <= n, give √(1/m1 + 1/m2) >= 2/√n. So its z (rule 5) is
    at most R√n / (2 sigma): a history with R√n <= 2 x MIN_STEPS x sigma has no step to report. The noise
    (rule 3) is computed in DuckDB over every history. At a million synthetic runs, 298 of 274,000
    histories were left to fit: 1.5 s instead of 4.6 s.
    """

    histories: int
    sigma: float
    found: list[Found]  # largest relative change first


def check(db: Path) -> Checked:
    """Every reported step of the database's histories (rules 1-6), fitting only those that could have one."""
    import duckdb

    con = duckdb.connect(str(db), read_only=True)
    try:
        # consecutive releases' |change| (rule 3), and one row per history of two or more (its 2nd point)
        median, count = con.execute(
            "SELECT median(d), count(*) FILTER (WHERE i = 2) FROM"
            " (SELECT abs(ln(v) - ln(lag(v) OVER k)) AS d, row_number() OVER k AS i"
            f" FROM ({_POINTS}) WINDOW k AS (PARTITION BY {_KEY} ORDER BY vk, engine_version))"
        ).fetchone()
    finally:
        con.close()
    sigma = MIN_SIGMA if median is None else max(MIN_SIGMA, 1.4826 * median / math.sqrt(2))
    # a hair under the bound: DuckDB's logs and Python's may differ in the last bit; fitting one more
    # history than needed costs nothing, skipping one with a step would hide it
    hs = histories(db, reach=2 * MIN_STEPS * sigma * (1 - 1e-9))
    return Checked(count, sigma, _reported(hs, sigma))


def in_spread(f: Found) -> bool:
    """Whether a step stays within a measured spread on either side of it (rule 6)."""
    spreads, i = f.history.spreads, f.step.index
    if not spreads:
        return False
    before, after = spreads[i - 1], spreads[i]
    after_in_before = bool(before and before[0] <= f.step.after <= before[1])
    return after_in_before or bool(after and after[0] <= f.step.before <= after[1])


def within_spread(hs: Sequence[History]) -> list[Found]:
    """The steps rules 1-5 find that rule 6 leaves out (within a measured spread)."""
    sigma = noise([h.values for h in hs])
    return [f for h in hs for s in steps(h.values, sigma) if in_spread(f := Found(h, s))]


def detect(hs: Sequence[History]) -> tuple[float, list[Found]]:
    """(sigma, every reported step of every history), largest relative change first."""
    sigma = noise([h.values for h in hs])
    return sigma, _reported(hs, sigma)


def _reported(hs: Sequence[History], sigma: float) -> list[Found]:
    found = [f for h in hs for s in steps(h.values, sigma) if not in_spread(f := Found(h, s))]
    return sorted(found, key=lambda f: abs(math.log(f.step.ratio)), reverse=True)


def regressions(db: Path) -> tuple[float, list[Found]]:
    """(sigma, the steps down) of the database's histories."""
    checked = check(db)
    return checked.sigma, [f for f in checked.found if f.step.ratio < 1]


def row(f: Found) -> dict[str, object]:
    """One reported step as a table row (the release-history page, ``llmbench diff``): plain strings."""
    k = f.history.label()
    parallel = f"TP{k['tp']}" + (f" PP{k['pp']}" if k["pp"] and k["pp"] > 1 else "")
    parallel += f" EP{k['ep']}" if k["ep"] and k["ep"] > 1 else ""
    parts = [str(k["gpu"]), str(k["model_name"]), str(k["precision"]), str(k["workload"]), parallel]
    if k["concurrency"]:
        parts.append(f"concurrency {k['concurrency']}")
    return {
        "config": ", ".join(parts),
        "source": f"{k['publisher']} ({k['engine']})",
        "releases": f"{f.before_release} → {f.after_release}",
        "before": f.step.before,
        "after": f.step.after,
        "change": 100 * (f.step.ratio - 1),
        "key": f.history.key,
    }
