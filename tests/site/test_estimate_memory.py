"""The planner cross-checks: an estimate whose configuration the memory planner says does not fit, and the
planner page's table of AIConfigurator's memory figure beside the planner's (hand-worked below).

Hand-worked (Llama 3.1 8B: 32 layers, 8 KV heads of 128, so an FP8 KV cache holds 32 x 8 x 128 x 2 (K and
V) x 1 byte = 65,536 bytes per token): 4,096 sequences of 2,000 tokens need 4,096 x 2,000 x 65,536 bytes
= 500 GiB of KV cache alone, far beyond an L40S's 48 GB, so an estimate claiming that batch fits is listed;
one sequence of 256 tokens (16 MiB of cache beside ~8.5 GB of weights) fits, and is not.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from bench.contract import registry
from site_gen.data import memory
from site_gen.data.estimate_memory import (
    THRESHOLD,
    disagreements,
    memory_check,
    memory_checks,
    read_memory_table,
    render_memory_check,
)


def _row(batch: int, isl: int, osl: int) -> dict:
    return {
        "run_id": "e1", "gpu": "L40S", "model": "meta-llama/Llama-3.1-8B-Instruct",
        "model_name": "Llama 3.1 8B", "precision": "FP8", "tp": 1, "pp": 1, "isl": isl, "osl": osl,
        "max_batch_size": batch, "max_num_tokens": 2048, "gpu_memory_gb": 48.0,
    }  # fmt: skip


def test_planner_kv_cache_for_the_hand_worked_case() -> None:
    m = registry.models().get("meta-llama/Llama-3.1-8B-Instruct")
    arch = {k: getattr(m, k) for k in memory._ARCH_FIELDS}
    inp = memory.PlanInput("FP8", "FP8", batch=4096, seq_len=2000, max_num_tokens=2048)
    assert memory.plan(arch, inp).kv_cache == 4096 * 2000 * 65_536


def test_an_estimate_the_planner_says_cannot_fit_is_listed_and_one_that_fits_is_not() -> None:
    found = disagreements([_row(4096, 1000, 1000), _row(1, 128, 128)])
    assert [d.batch for d in found] == [4096]
    assert found[0].planner_gib > 500  # the KV cache alone, worked above
    assert found[0].gpu_gib == 48.0


# --- The planner page's cross-check: AIConfigurator's memory figure beside the planner's ---------------
#
# Hand-worked planner figures for Llama 3.1 70B, BF16 weights and KV cache, TP4, 64 sequences of 2,000
# tokens, max_num_tokens 8,192 (docs/guide/07-memory.md's formulas):
#   weights      70.55e9 parameters x 2 B / 4                                         = 32.85 GiB (the guide)
#   KV cache     64 x 2,000 x 327,680 B / 4 (2 of 8 KV heads per GPU)                = 10,485,760,000 B
#   activations  8,192 x (2 x 8,192 + (8,192 + 2,048 + 2 x 28,672) / 4) x 2 B
#                + 64 x 128,256 / 4 x 4 B                                           = 553,467,904 B
#   overhead     1 GiB + 0.5 GiB NCCL                                               = 1.5 GiB
# AIConfigurator's figures in the fixture rows are made up around them.

GIB = 2**30
HAND = {"kv_cache": 10_485_760_000 / GIB, "activations": 553_467_904 / GIB, "reserve": 1.5}


def _mem_row(weights: float, kv: float, act: float, nccl: float, others: float, model: str = "") -> dict:
    return {
        "gpu": "H200 SXM 141GB", "model": model or "meta-llama/Llama-3.1-70B-Instruct", "precision": "BF16",
        "tp": "4", "pp": "1", "batch": "64", "isl": "1000", "osl": "1000", "max_num_tokens": "8192",
        "weights_gib": str(weights), "kv_cache_gib": str(kv), "activations_gib": str(act),
        "nccl_gib": str(nccl), "others_gib": str(others),
        "total_gib": str(weights + kv + act + nccl + others),
        "aiconfigurator": "0.12.0",
    }  # fmt: skip


def test_the_planners_side_is_the_hand_worked_one() -> None:
    c = memory_check(_mem_row(32.85, 9.7656, 0.625, 0.3828, 3.5))
    parts = {d.part: d.planner_gib for d in c.parts}
    assert parts["weights"] == pytest.approx(32.85, abs=0.01)
    for k, v in HAND.items():
        assert parts[k] == pytest.approx(v, rel=1e-9), k
    assert (c.batch, c.seq_len, c.tp) == (64, 2000, 4)


def test_a_difference_over_3_percent_is_listed_with_the_parts_behind_it() -> None:
    # AIConfigurator's runtime reserve 3.88 GiB against the planner's 1.5: 2.4 GiB on a 44.6 GiB total
    listed = memory_check(_mem_row(32.85, 9.7656, 0.625, 0.3828, 3.5))
    assert listed.listed and listed.difference == pytest.approx(2.48 / 44.63, abs=0.002)
    assert [d.part for d in listed.reasons] == ["reserve"]  # weights, KV equal; activations 0.1 < 1 %
    # within 3 %: the same figures but the planner's reserve
    close = memory_check(_mem_row(32.85, 9.7656, 0.5155, 0.5, 1.0))
    assert not close.listed and abs(close.difference) <= THRESHOLD
    html = render_memory_check(_messages(), [listed, close])
    rows = html.split("<tbody>")[1].split("</tbody>")[0].split("<tr")[1:]
    assert "lb-memcheck-listed" in rows[0] and "runtime reserve 1.50 / 3.88" in rows[0]
    assert "lb-memcheck-listed" not in rows[1] and "runtime reserve" not in rows[1]


def _messages():  # the page's English catalogue, as the marker passes it
    from site_gen import i18n

    return i18n.load("en").t


def test_the_committed_table_is_listed_row_for_row() -> None:
    """Every row of bench/data/estimate_memory.csv is on the page; exactly those over 3 % are marked."""
    rows = read_memory_table()
    if not rows:
        pytest.skip("no bench/data/estimate_memory.csv")
    checks = memory_checks(rows)
    html = render_memory_check(_messages(), checks)
    body = html.split("<tbody>")[1].split("</tbody>")[0]
    assert body.count("<tr") == len(rows)
    over = 0
    for r in rows:
        m = registry.models().get(r["model"])
        arch = {k: getattr(m, k) for k in memory._ARCH_FIELDS}
        kv = "FP8" if r["precision"] in ("FP8", "FP4") else "BF16"
        inp = memory.PlanInput(r["precision"], kv, int(r["batch"]), int(r["isl"]) + int(r["osl"]),
                               int(r["tp"]), int(r["pp"]), int(r["max_num_tokens"]))  # fmt: skip
        planner = memory.plan(arch, inp).total / GIB
        over += abs(float(r["total_gib"]) / planner - 1) > 0.03
    assert body.count("lb-memcheck-listed") == over


# --- The page in a real browser: the cross-check as a reader sees it (en and ko, wide and phone) --------


@pytest.fixture(scope="module")
def memory_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    from tests.site.conftest import build, free_port, serve, write_fixture_results

    work = tmp_path_factory.mktemp("memory-page")
    write_fixture_results(work / "results")
    port = free_port()
    build(work / "results", work, port=port)
    url, server = serve(work / "site", port)
    yield url
    server.shutdown()


@pytest.mark.parametrize(("width", "height", "lang"), [(1440, 900, ""), (390, 844, "ko/")])
def test_the_planner_page_shows_every_configuration_and_marks_those_over_3_percent(
    memory_url: str, browser: object, width: int, height: int, lang: str, tmp_path: Path
) -> None:
    from tests.site.conftest import Watched

    rows = read_memory_table()
    if not rows:
        pytest.skip("no bench/data/estimate_memory.csv")
    w = Watched(browser, width, height)
    try:
        page = w.open(f"{memory_url}/{lang}guide/07-memory.html")
        table = page.locator(".lb-memcheck table")
        assert table.count() == 1
        body = table.locator("tbody tr")
        assert body.count() == len(rows)
        listed = table.locator("tbody tr.lb-memcheck-listed")
        over = [c for c in memory_checks(rows) if c.listed]
        assert listed.count() == len(over)
        # each marked row names its parts in the page's language; unmarked rows name none
        part = "runtime reserve" if not lang else "런타임 예비 메모리"
        for i in range(listed.count()):
            assert listed.nth(i).locator("td").nth(5).inner_text().strip()
        assert any(part in listed.nth(i).inner_text() for i in range(listed.count()))
        shots = Path(os.environ.get("LLMBENCH_SHOTS", tmp_path))  # to look at (the brief's screenshots)
        page.locator(".lb-memcheck").evaluate("e => e.previousElementSibling.scrollIntoView()")
        page.screenshot(path=str(shots / f"memcheck-{width}-intro.png"))
        table.scroll_into_view_if_needed()
        page.screenshot(path=str(shots / f"memcheck-{width}.png"))
        assert not w.errors and not w.external
    finally:
        w.close()
