"""The matching rule of compare mode (``site_gen.pages.compare``) on hand-built runs, worked by hand: which
configurations two GPUs share (``matched``) and each GPU's partners for the "compare with" links
(``partners``). Both are computed on integer configuration ids (a million runs made the tuple-per-row
version take seconds); these cases pin the rule, not the method: equal when every match column but the
compared one is equal, a missing value equal only to a missing value, runs above their bound or without
the metric left out, a run without a GPU in no group, ties in name order."""

from __future__ import annotations

import math

import pandas as pd

from site_gen.pages import compare


def _run(gpu: object, workload: str, tp: int, ep: float = math.nan, **kw: object) -> dict[str, object]:
    base = {
        "gpu": gpu, "model_name": "m", "precision": "FP8", "workload": workload, "tp": tp, "pp": 1, "ep": ep,
        "publisher": "p", "engine": "e", "engine_version": "1.0", "source_kind": "published",
        "output_tps_per_gpu": 10.0, "pct_of_bound": 50.0,
    }  # fmt: skip
    return base | kw


RUNS = pd.DataFrame(
    [
        # A has 1k/1k TP1, 1k/1k TP2, 2k/2k TP1 (twice: one configuration) and 1k/1k TP1 with EP 2
        _run("A", "1k/1k", 1),
        _run("A", "1k/1k", 2),
        _run("A", "2k/2k", 1),
        _run("A", "2k/2k", 1, output_tps_per_gpu=11.0),
        _run("A", "1k/1k", 1, ep=2.0),
        # B shares 1k/1k TP1 and TP2 with A (2); its EP 2 run is above its bound: left out
        _run("B", "1k/1k", 1),
        _run("B", "1k/1k", 2),
        _run("B", "1k/1k", 1, ep=2.0, pct_of_bound=120.0),
        # C shares 2k/2k TP1 with A (1) and 1k/1k TP1 EP 2 with A (1): 2; and nothing with B
        _run("C", "2k/2k", 1),
        _run("C", "1k/1k", 1, ep=2.0),
        # D: its only run has no metric; a run without a GPU belongs to no one
        _run("D", "1k/1k", 1, output_tps_per_gpu=math.nan),
        _run(None, "1k/1k", 1),
        # E shares 1k/1k TP2 with A and B (1 each)
        _run("E", "1k/1k", 2),
    ]
)


def test_matched_counts_shared_configurations() -> None:
    assert compare.matched(RUNS, "gpu", "A", "B") == 2
    assert compare.matched(RUNS, "gpu", "A", "C") == 2  # EP 2 equals EP 2, missing equals missing
    assert compare.matched(RUNS, "gpu", "B", "C") == 0
    assert compare.matched(RUNS, "gpu", "A", "D") == 0  # D's run has no metric
    assert compare.matched(RUNS, "gpu", "A", "B", {"tp": "2"}) == 1


def test_partners_most_shared_first_ties_in_name_order() -> None:
    assert compare.partners(RUNS) == {
        "A": [("B", 2), ("C", 2), ("E", 1)],
        "B": [("A", 2), ("E", 1)],
        "C": [("A", 2)],
        "E": [("A", 1), ("B", 1)],
    }
    assert compare.partners(RUNS, top=1)["A"] == [("B", 2)]


def test_partners_with_nothing_to_compare() -> None:
    assert compare.partners(RUNS[RUNS["gpu"] == "A"]) == {"A": []}
    assert compare.partners(RUNS.iloc[:0]) == {}
