"""docs/latency.md and its Korean twin: the measured table says what the result file holds, in both
languages (a translation keeps every figure), and the worked cost example follows the formula."""

from __future__ import annotations

import re

import pytest
import yaml

from site_gen.charts.latency_views import cost_per_million_tokens
from tests.site.conftest import ROOT

RESULT = (
    ROOT / "results/measured/transformers-5.17.0"
    / "h200-sxm-141gb--llama-3.1-8b-instruct--bf16--random-weights--concurrency.yaml"
)  # fmt: skip
PAGES = [ROOT / "docs/latency.md", ROOT / "docs/latency.ko.md"]


def _expected() -> list[list[str]]:
    """The table's rows worked from the result file: tok/s, per user, TTFT, TPOT, end-to-end (s), $ per
    million output tokens at $2.00 per GPU-hour on one GPU, and the samples: "1", or the repetitions' count
    with their lowest and highest output tok/s."""
    data = yaml.safe_load(RESULT.read_text(encoding="utf-8"))
    rows = []
    for run in data["runs"]:
        w, m = run["workload"], run["metrics"]
        tps = m["output_tokens_per_s"]
        reps = [r["metrics"]["output_tokens_per_s"] for r in run.get("repetitions") or []]
        samples = f"{len(reps)} ({min(reps):,.1f}–{max(reps):,.1f})" if reps else "1"
        rows.append([
            f"{w['isl']}/{w['osl']}", str(w["concurrency"]), f"{tps:,.1f}",
            f"{m['output_tokens_per_s_per_user']:,.1f}", f"{m['ttft_ms']['avg']:,.0f}",
            f"{m['tpot_ms']['avg']:,.1f}", f"{m['request_latency_ms']['avg'] / 1000:,.1f}",
            f"{2.00 * 1 / (tps * 3600) * 1e6:.2f}", samples,
        ])  # fmt: skip
    # the page's order: 1024/1024 before 128/2048, then by concurrency
    return sorted(rows, key=lambda r: (-int(r[0].split("/")[0]), int(r[1])))


def _table(page: str) -> list[list[str]]:
    return [
        [c.strip() for c in line.strip("|").split("|")]
        for line in page.splitlines()
        if re.match(r"\| \d+/\d+ \|", line)
    ]


@pytest.mark.parametrize("path", PAGES, ids=lambda p: p.name)
def test_measured_table_is_the_result_file(path) -> None:
    expected = _expected()
    assert len(expected) == 2 * 9  # 1024/1024 and 128/2048, each at 1, 2, 4, ..., 256 in flight
    assert _table(path.read_text(encoding="utf-8")) == expected


@pytest.mark.parametrize("path", PAGES, ids=lambda p: p.name)
def test_worked_cost_example_and_the_chart_marker(path) -> None:
    page = path.read_text(encoding="utf-8")
    # "$2.00 per GPU-hour, 1,000 output tokens/s on one GPU: $0.56 per million tokens" (hand-worked:
    # 2 / 3,600,000 tokens per hour x 10^6 = 0.5556)
    assert f"${cost_per_million_tokens(2.00, 1, 1000):.2f}" == "$0.56" and "$0.56" in page
    assert "$2.00" in page and "?price=2.5" in page
    assert '<!-- chart: latency-pareto gpu="H200 SXM 141GB" model="Llama 3.1 8B" source=llmbench' in page
