"""Steps across releases (site_gen/data/steps.py): hand-worked fits, synthetic histories with known steps and
noise, and the GH200 long-output drop of NVIDIA's published tables from 0.11 to 0.12.

NVIDIA's perf-overview tables list Llama 3 8B FP8, 128/2048, one GH200: 22,055.94 output tokens/s in
v0.11.0 and 16,426.68 in v0.12.0 (-25.5 %), 16,417.04 in v0.13.0 (the drop stayed):
https://github.com/NVIDIA/TensorRT-LLM/blob/v0.11.0/docs/source/performance/perf-overview.md and the
same file at v0.12.0. The test finds that history in the data and expects the step where the tables put it.
"""

from __future__ import annotations

import math
import random
from pathlib import Path

import markdown
import pandas as pd
import pytest

from site_gen.charts.specs import ChartContext
from site_gen.data import load, steps
from site_gen.pages import markers
from tests.conftest import RESULTS

ROOT = Path(__file__).resolve().parents[2]


def test_a_lasting_step_pays_its_penalty_and_a_lone_outlier_does_not() -> None:
    # [0,0,0,1,1,1]: one segment costs 3 (median 0 or 1, three points 1 away); two cost 0 + gamma.
    assert steps.segments([0, 0, 0, 1, 1, 1], gamma=2.9) == [3]
    assert steps.segments([0, 0, 0, 1, 1, 1], gamma=3.1) == []
    # [0,0,0,1,0,0]: one segment costs 1; isolating the outlier costs two steps (2 x gamma).
    assert steps.segments([0, 0, 0, 1, 0, 0], gamma=0.6) == []
    assert steps.segments([0, 0, 0, 1, 0, 0], gamma=0.4) == [3, 4]


def test_a_step_is_a_ratio_and_small_changes_are_noise() -> None:
    sigma = 0.02
    found = steps.steps([1000, 1010, 990, 750, 760, 745], sigma)
    assert [(s.index, round(s.ratio, 2)) for s in found] == [(3, 0.75)]  # medians 1000 -> 750
    # the same history at 20x the scale: the same step (logarithms)
    assert [s.index for s in steps.steps([20 * v for v in (1000, 1010, 990, 750, 760, 745)], sigma)] == [3]
    assert steps.steps([1000, 1010, 990, 1005, 995, 1000], sigma) == []


def test_the_noise_estimate_recovers_the_noise_of_histories_with_steps() -> None:
    rng = random.Random(7)
    histories = []
    for _ in range(300):
        level = [math.log(rng.uniform(100, 30000))] * 8
        if rng.random() < 0.3:  # 30 % of them step by +-20-60 % somewhere
            at = rng.randrange(1, 8)
            level = level[:at] + [level[0] + rng.choice((-1, 1)) * rng.uniform(0.2, 0.6)] * (8 - at)
        histories.append([math.exp(v + rng.gauss(0, 0.03)) for v in level])
    assert steps.noise(histories) == pytest.approx(0.03, rel=0.2)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_synthetic_histories_with_known_steps_are_found_where_they_are(seed: int) -> None:
    """300 histories of 4-12 releases, lognormal noise of 3 %; 40 % carry one step of 20-60 % (6-15 σ)
    up or down at a known release. At least 99 % of the steps are found alone and at their release (a
    4-sigma excursion of the noise next to a step can add one: 4 misses in 2,400 steps over seeds 1-20
    when the rule was tuned); at most 1 % of the step-free histories get one (no fixed threshold: the
    bar is the pooled noise)."""
    rng = random.Random(seed)
    truth: list[int | None] = []
    hs = []
    for i in range(300):
        n = rng.randrange(4, 13)
        base = math.log(rng.uniform(100, 30000))
        logs = [base] * n
        at = None
        if rng.random() < 0.4:
            at = rng.randrange(1, n)
            size = rng.choice((-1, 1)) * rng.uniform(0.2, 0.6)
            logs = logs[:at] + [base + size] * (n - at)
        values = tuple(math.exp(v + rng.gauss(0, 0.03)) for v in logs)
        hs.append(steps.History((i,), tuple(f"r{k}" for k in range(n)), values))
        truth.append(at)
    _, found = steps.detect(hs)
    got: dict[int, list[int]] = {}
    for f in found:
        got.setdefault(f.history.key[0], []).append(f.step.index)
    missed = [i for i, at in enumerate(truth) if at is not None and got.get(i) != [at]]
    assert len(missed) <= 0.01 * (len(truth) - truth.count(None)), missed
    false = [i for i, at in enumerate(truth) if at is None and i in got]
    assert len(false) <= 0.01 * truth.count(None), false


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("steps") / "runs.duckdb"
    load.ingest(RESULTS, path)
    return path


def test_the_gh200_long_output_drop_from_0_11_to_0_12_is_found(db: Path) -> None:
    hs = steps.histories(db)
    _, found = steps.detect(hs)
    (llama3,) = [
        h for h in hs
        if h.label()["gpu"].startswith("GH200") and h.label()["model_name"] == "Llama 3 8B"
        and h.label()["workload"] == "128/2048" and h.label()["publisher"] == "NVIDIA"
    ]  # fmt: skip
    published = dict(zip(llama3.releases, llama3.values, strict=True))
    assert published["0.11.0"] == 22055.94 and published["0.12.0"] == 16426.68  # the tables' figures
    (step,) = [f for f in found if f.history is llama3]
    assert (step.before_release, step.after_release) == ("0.11.0", "0.12.0") and step.step.ratio < 1
    # and it is not alone: other long-output GH200 configurations dropped at the same release
    gh200_long = [
        f for f in found
        if f.history.label()["gpu"].startswith("GH200") and f.after_release == "0.12.0"
        and f.step.ratio < 1 and int(str(f.history.label()["workload"]).split("/")[1]) >= 2048
    ]  # fmt: skip
    assert len(gh200_long) >= 2


def test_the_release_history_page_lists_the_steps_down(db: Path) -> None:
    _, down = steps.regressions(db)
    site = markers.Site(runs=pd.DataFrame(), ctx=ChartContext(gpus=()), db=db)
    for name, lang in (("releases.md", "en"), ("releases.ko.md", "ko")):
        site.lang = lang
        page = markers.Page(site, "guide/releases.html")
        out = page.expand(markdown.markdown((ROOT / "docs" / "guide" / name).read_text(encoding="utf-8")))
        assert page.errors == []
        body = out.split('<table class="lb-steps">')[1].split("</table>")[0]
        assert body.count("<tr>") == len(down) + 1  # the head and one row per step down
        assert "0.11.0 → 0.12.0" in body and "GH200 96GB, Llama 3 8B, FP8, 128/2048, TP1" in body


def _flat_then_drop(spread_at_drop: tuple[float, float] | None) -> steps.History:
    """Hand-worked: five releases at 1,000 tok/s then five at 800 (-20 %), next to 50 noisy flat histories."""
    spreads = (None,) * 5 + (spread_at_drop,) + (None,) * 4
    return steps.History(("drop",), tuple(f"r{k}" for k in range(10)), (1000.0,) * 5 + (800.0,) * 5, spreads)


def test_a_step_within_a_repeated_runs_spread_is_not_reported() -> None:
    """Rule 6, hand-worked: the 1,000 -> 800 step is reported when the release after it is one sample, or
    repeated at 780-830 (1,000 lies outside); it is left out when that release's repetitions ran from 790
    to 1,010, which holds the level before the step (1,000): those repetitions already differ that much."""
    rng = random.Random(7)
    releases = tuple(f"r{k}" for k in range(10))
    flat = [
        steps.History((i,), releases, tuple(1000 * rng.uniform(0.99, 1.01) for _ in range(10)))
        for i in range(50)
    ]
    for spread, reported in ((None, True), ((780.0, 830.0), True), ((790.0, 1010.0), False)):
        h = _flat_then_drop(spread)
        _, found = steps.detect([*flat, h])
        assert [f.step.index for f in found if f.history is h] == ([5] if reported else []), spread
        assert [f.history for f in steps.within_spread([*flat, h])] == ([] if reported else [h])


def test_the_release_history_page_keeps_its_rows_not_every_history(db: Path) -> None:
    """The steps are computed once a build (both languages read them) and kept as the page's rows and
    counts: the histories themselves (~0.35 GB at a million runs) are not held to the end of the build."""
    hs = steps.histories(db)
    sigma, found = steps.detect(hs)
    site = markers.Site(runs=pd.DataFrame(), ctx=ChartContext(gpus=()), db=db)
    page = markers.Page(site, "guide/releases.html")
    page.expand(markdown.markdown((ROOT / "docs" / "guide" / "releases.md").read_text(encoding="utf-8")))
    count, kept_sigma, rows = site.shared["steps"]
    assert (count, kept_sigma) == (len(hs), sigma)
    assert rows == [steps.row(f) for f in found if f.step.ratio < 1]
    assert not any(isinstance(v, steps.History) for row in rows for v in row.values())


def test_histories_fetched_in_chunks_are_the_histories_of_one_fetch(db: Path, monkeypatch) -> None:
    """``histories`` reads its rows ``HISTORY_ROWS`` at a time (a million Python tuples at once at 1M
    runs): 7 rows at a time, so that a configuration's releases straddle chunks, gives the histories one
    fetch gives, and a repeated value (a GPU, a release) is one object in every history that holds it."""
    whole = steps.histories(db)
    monkeypatch.setattr(steps, "HISTORY_ROWS", 7)
    chunked = steps.histories(db)
    assert len(whole) > 50 and chunked == whole
    assert len({id(r) for h in chunked for r in h.releases}) == len({r for h in chunked for r in h.releases})
    gpus = [h.label()["gpu"] for h in chunked]
    assert len({id(g) for g in gpus}) == len(set(gpus))


def _runs_db(path: Path, hs: list[steps.History]) -> Path:
    """A DuckDB file with the columns the steps read: one run per history point, key columns from the
    history's key (NULL where it is None, as a run without PP or concurrency has)."""
    import duckdb

    con = duckdb.connect(str(path))
    cols = ", ".join(
        f"{c} {'INTEGER' if c in ('tp', 'pp', 'ep', 'concurrency') else 'VARCHAR'}" for c in steps.KEY_COLUMNS
    )
    con.execute(
        f"CREATE TABLE runs ({cols}, engine_version VARCHAR, version_key VARCHAR, output_tps_per_gpu DOUBLE,"
        " output_tps_per_gpu_min DOUBLE, output_tps_per_gpu_max DOUBLE, erratum VARCHAR)"
    )
    rows = [
        (*h.key, release, f"{k:04d}", v, *(h.spreads[k] or (None, None)), None)
        for h in hs for k, (release, v) in enumerate(zip(h.releases, h.values, strict=True))
    ]  # fmt: skip
    con.executemany(f"INSERT INTO runs VALUES ({', '.join('?' * (len(steps.KEY_COLUMNS) + 6))})", rows)
    con.close()
    return path


@pytest.mark.parametrize("seed", [1, 2])
def test_checking_only_the_histories_that_could_step_finds_what_fitting_every_one_finds(
    seed: int, tmp_path: Path, monkeypatch
) -> None:
    """``check`` fits only histories whose range could give a reported step (z <= R√n / 2σ); it must
    find every step ``detect`` finds over every history, with the same noise and count. 400 histories
    of 1-12 releases, 3 % noise, a third with a 3-40 % step (many of them near the bar), some key
    columns NULL, some releases repeated with a spread."""
    rng = random.Random(seed)
    hs = []
    for i in range(400):
        n = rng.randrange(1, 13)
        base = math.log(rng.uniform(100, 30000))
        at = rng.randrange(1, n) if n > 1 and rng.random() < 0.35 else n
        logs = [base if k < at else base + rng.choice((-1, 1)) * rng.uniform(0.03, 0.4) for k in range(n)]
        values = tuple(round(math.exp(v + rng.gauss(0, 0.03)), 2) for v in logs)
        spreads = tuple((v * 0.97, v * 1.03) if rng.random() < 0.1 else None for v in values)
        key = ("NVIDIA", "trtllm", f"GPU {i % 7}", f"model {i}", "FP8", "128/128", 1,
               None if i % 3 else 2, None, "false", None if i % 2 else 8)  # fmt: skip
        hs.append(steps.History(key, tuple(f"0.{k}.0" for k in range(n)), values, spreads))
    db = _runs_db(tmp_path / "runs.duckdb", hs)
    every = steps.histories(db)
    sigma, found = steps.detect(every)
    fitted: list[int] = []
    fit = steps.steps
    monkeypatch.setattr(steps, "steps", lambda values, s: fitted.append(len(values)) or fit(values, s))
    checked = steps.check(db)
    assert checked.histories == len(every) == sum(len(h.values) > 1 for h in hs)
    assert checked.sigma == pytest.approx(sigma, rel=1e-12)
    assert [(f.history, f.step) for f in checked.found] == [(f.history, f.step) for f in found]
    assert len(found) > 20 and len(fitted) < len(every)  # steps to find, and histories left unfitted


def test_checking_the_results_finds_what_fitting_every_history_finds(db: Path) -> None:
    hs = steps.histories(db)
    sigma, found = steps.detect(hs)
    checked = steps.check(db)
    assert (checked.histories, checked.sigma) == (len(hs), pytest.approx(sigma, rel=1e-12))
    assert [(f.history, f.step) for f in checked.found] == [(f.history, f.step) for f in found]
