"""Compare mode's arithmetic (issue 26 item 2): B ÷ A ("how many times faster is B than A"), its summary,
the label parts every pair shares, and where the page opens, in Python (site_gen.pages.compare) and in the
page script (calc/compare.js, under node) on the same hand-worked cases, and on the committed results against
a DuckDB query of our own.

Hand-worked (output tokens/s per GPU, one model, precision, source and release; A = "old", B = "new"):

    workload  TP   old    new    new ÷ old
    1k/1k      1   100    150    1.5
    1k/1k      2   100    120    1.2  (old also has a run of 90 here: a side's best is its highest)
    1k/8k      1   100    200    2.0
    8k/1k      1   100     80    0.8
                               (new's 8k/1k TP 4 run has no partner: not a pair)

sorted 0.8, 1.2, 1.5, 2.0: four values, so the median is the mean of the middle two, (1.2 + 1.5) / 2 =
1.35; range 0.8-2.0; count 4; geometric mean (0.8 x 1.2 x 1.5 x 2.0)^(1/4) = 2.88^(1/4) = 1.3027.
"""

from __future__ import annotations

import math
from pathlib import Path

import duckdb
import pandas as pd
import pytest

from site_gen.data import queries
from site_gen.data.load import ingest
from site_gen.pages import compare
from tests.site.test_js_pure import Node, node  # noqa: F401 (the fixture)

RESULTS = Path(__file__).resolve().parents[2] / "results"


def _run(gpu: str, workload: str, tp: int, tps: float, **kw: object) -> dict[str, object]:
    base = {
        "gpu": gpu, "model_name": "M", "precision": "FP8", "workload": workload, "tp": tp, "pp": 1, "ep": 1,
        "publisher": "P", "engine": "tensorrt-llm", "engine_version": "1.0", "source_kind": "published",
        "output_tps_per_gpu": tps, "pct_of_bound": 50.0, "run_id": f"{gpu}-{workload}-{tp}-{tps}",
        "precision_order": 1, "workload_order": {"1k/1k": 1, "1k/8k": 2, "8k/1k": 3}[workload],
        "version_key": "1", "gpu_order": {"old": 1, "new": 2}[gpu],
    }  # fmt: skip
    return base | kw


RUNS = [
    _run("old", "1k/1k", 1, 100.0),
    _run("new", "1k/1k", 1, 150.0),
    _run("old", "1k/1k", 2, 100.0),
    _run("old", "1k/1k", 2, 90.0),
    _run("new", "1k/1k", 2, 120.0),
    _run("old", "1k/8k", 1, 100.0),
    _run("new", "1k/8k", 1, 200.0),
    _run("old", "8k/1k", 1, 100.0),
    _run("new", "8k/1k", 1, 80.0),
    _run("new", "8k/1k", 4, 500.0),
]
WORKED = {"n": 4, "median": 1.35, "min": 0.8, "max": 2.0}
GEOMEAN = 2.88**0.25


def test_python_ratio_and_summary_hand_worked() -> None:
    got = compare.ratios(pd.DataFrame(RUNS), "gpu", "old", "new")
    assert sorted(got) == pytest.approx([0.8, 1.2, 1.5, 2.0])
    assert compare.summary(got) == pytest.approx(WORKED)
    assert compare.summary([]) is None
    # the dot plot's lines: the pairs span 1k/1k, 1k/8k and 8k/1k (the lone 8k/1k TP 4 run adds none)
    assert compare.workloads(pd.DataFrame(RUNS), "gpu", "old", "new") == 3
    assert compare.workloads(pd.DataFrame(RUNS), "gpu", "old", "nope") == 0
    # the other way round is the reciprocal: "old is 0.74x new" (1 / 1.35 is not the median of 1/x: 0.7407)
    back = compare.summary(compare.ratios(pd.DataFrame(RUNS), "gpu", "new", "old"))
    assert back is not None and back["median"] == pytest.approx((1 / 1.5 + 1 / 1.2) / 2)


def test_page_script_ratio_and_summary_equal_the_hand_worked_ones(node: Node) -> None:  # noqa: F811
    cfg = {"metric": compare.METRIC, "excluded_kinds": list(compare.EXCLUDED_KINDS), "max_pct_of_bound": 100}
    opts = {
        "by": "gpu",
        "a": "old",
        "b": "new",
        "match": list(compare.MATCH),
        "metric": compare.METRIC,
        "free": "",
    }
    (got,) = node(
        [
            [
                "calc/compare.js",
                "(m, rows, cfg, o) => m.summary("
                "m.pairs(m.usable(rows, cfg), o).map(p => m.ratio(p, o.metric)))",
                [RUNS, cfg, opts],
            ]
        ]
    )
    assert {k: got[k] for k in WORKED} == pytest.approx(WORKED)
    assert got["geomean"] == pytest.approx(GEOMEAN) and math.isclose(GEOMEAN, 1.3027, abs_tol=5e-5)


def test_shared_parts_are_said_once(node: Node) -> None:  # noqa: F811
    """Three pairs of one model, precision, engine and source: those are shared; workload and layout are
    each row's own; a single pair shares everything (its row label is empty)."""
    rows = [r | {"other": r} for r in RUNS[:3] + RUNS[5:6]]
    call = "(m, rows) => m.splitShared(rows.map(r => m.labelParts(r, 'gpu', '')))"
    many, one = node([["calc/compare.js", call, [rows]], ["calc/compare.js", call, [rows[:1]]]])
    assert many["shared"] == ["M", "FP8", "tensorrt-llm", "P 1.0"]
    assert many["labels"] == ["1k/1k · TP1", "1k/1k · TP1", "1k/1k · TP2", "1k/8k · TP1"]
    assert one["shared"] == ["M", "FP8", "1k/1k", "TP1", "tensorrt-llm", "P 1.0"] and one["labels"] == [""]


def test_most_compared_pair_hand_worked() -> None:
    """old and new share 4 configurations; a third GPU shares 1 with each: old and new, old (earlier) first,
    whatever their name order."""
    third = [_run("old", "1k/1k", 1, 1.0) | {"gpu": "aaa", "gpu_order": 3}]
    assert compare.most_compared(pd.DataFrame(RUNS + third)) == ("old", "new")
    assert compare.most_compared(pd.DataFrame(RUNS[:1])) is None


@pytest.fixture(scope="module")
def real_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("compare-real") / "llmbench.duckdb"
    ingest(RESULTS, db)
    return db


# The most-compared pair, asked of DuckDB in SQL of its own: the configurations (every match column but
# the GPU; NULL equal to NULL) that two GPUs both have, over runs with the metric, not estimates, not
# above their bound.
PAIRS_SQL = """
WITH u AS (
  SELECT DISTINCT gpu, model_name, precision, workload, tp, pp, ep, publisher, engine, engine_version
  FROM runs
  WHERE output_tps_per_gpu IS NOT NULL AND source_kind <> 'modelled' AND gpu IS NOT NULL
    AND NOT coalesce(pct_of_bound > 100, false)
)
SELECT x.gpu, y.gpu, count(*) AS n
FROM u x JOIN u y ON x.gpu < y.gpu
  AND x.model_name IS NOT DISTINCT FROM y.model_name AND x.precision IS NOT DISTINCT FROM y.precision
  AND x.workload IS NOT DISTINCT FROM y.workload AND x.tp IS NOT DISTINCT FROM y.tp
  AND x.pp IS NOT DISTINCT FROM y.pp AND x.ep IS NOT DISTINCT FROM y.ep
  AND x.publisher IS NOT DISTINCT FROM y.publisher AND x.engine IS NOT DISTINCT FROM y.engine
  AND x.engine_version IS NOT DISTINCT FROM y.engine_version
GROUP BY 1, 2 ORDER BY n DESC
"""
# The registry's order of GPUs (by year, then as listed): the older of a pair is A.
AGE_SQL = "SELECT name, row_number() OVER (ORDER BY year, rowid) FROM gpus"


def most_compared_sql(db: Path) -> tuple[set[frozenset[str]], dict[str, int]]:
    """Every pair sharing the most configurations (ties all), and the registry's age rank of each GPU."""
    with duckdb.connect(str(db), read_only=True) as con:
        pairs = con.execute(PAIRS_SQL).fetchall()
        age = dict(con.execute(AGE_SQL).fetchall())
    top = {frozenset((a, b)) for a, b, n in pairs if n == pairs[0][2]}
    return top, age


def test_default_pair_on_the_committed_results_equals_duckdb(real_db: Path) -> None:
    top, age = most_compared_sql(real_db)
    default = compare.config(queries.site_runs(real_db))["default"]
    a, b = default["a"], default["b"]
    assert default["by"] == "gpu"
    assert frozenset((a, b)) in top
    assert age[a] < age[b]  # the older first: B ÷ A reads "how much faster is the newer"


def test_every_preset_answers_above_one_on_the_committed_results(real_db: Path) -> None:
    """Each preset puts first what its question measures against, so its median B ÷ A is above 1 (on
    today's data or next week's: computed here, not pinned)."""
    runs = queries.site_runs(real_db)
    columns = {k: c for k, _, c in compare.BY}
    shown = 0
    for label, by, a, b, where in compare.PRESETS:
        got = compare.summary(compare.ratios(runs, columns[by], a, b, where))
        if got is None:
            continue  # a preset the data cannot fill is not shown (compare.presets)
        shown += 1
        assert got["median"] > 1, (label, got)
        assert got["n"] == compare.matched(runs, columns[by], a, b, where)
    assert shown >= 1


def test_preset_labels_name_a_before_b_in_both_languages() -> None:
    """A preset's label is its question "A vs B" (the page answers B ÷ A): A's name (its first word, "H100"
    of "H100 SXM 80GB") comes before B's in the label, in English (the catalogue says what PRESETS says)
    and in Korean."""
    from site_gen import i18n

    en, ko = i18n.load("en"), i18n.load("ko")
    for i, (label, _by, a, b, _where) in enumerate(compare.PRESETS):
        assert en.t(f"compare.preset_{i}") == label
        for text in (label, ko.t(f"compare.preset_{i}")):
            first, second = a.split()[0], b.split()[0]
            assert first in text and second in text and text.index(first + " vs") < text.index(second), text
