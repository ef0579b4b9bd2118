"""Parsers on recorded report JSON and console output of each era: right numbers, or a clear failure.

Each case is a recorded input in data/reports/<case>.{json,log} next to <case>.expected.yaml, which holds
either the expected metrics (and world/engine facts) or a fragment of the expected error.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from bench.contract.schema import Metrics
from bench.trtllm import report

DATA = Path(__file__).parent / "data" / "reports"
CASES = sorted(p.name.removesuffix(".expected.yaml") for p in DATA.glob("*.expected.yaml"))


def _parse(case: str) -> report.Report:
    src = next(p for p in DATA.glob(f"{case}.*") if p.suffix in (".json", ".log"))
    text = src.read_text(encoding="utf-8")
    if src.suffix == ".json":
        return report.parse_json(text, src.name)
    return report.parse_console(text, src.name)


@pytest.mark.parametrize("case", CASES)
def test_recorded_output_parses_to_the_expected_metrics_or_error(case: str) -> None:
    expected = yaml.safe_load((DATA / f"{case}.expected.yaml").read_text(encoding="utf-8"))
    if "error" in expected:
        with pytest.raises(report.ReportError) as e:
            _parse(case)
        assert expected["error"] in str(e.value)
        return
    got = _parse(case)
    assert got.source == expected["source"] and got.era == expected["era"]
    assert _flat(got.metrics) == pytest.approx(_flat(expected["metrics"]))
    for section in ("world", "engine"):
        for k, v in expected.get(section, {}).items():
            assert getattr(got, section).get(k) == (pytest.approx(v) if isinstance(v, float) else v), (
                section,
                k,
            )
    Metrics.model_validate(got.metrics)  # what export will write


def _flat(d: dict, prefix: str = "") -> dict:
    out = {}
    for k, v in d.items():
        if isinstance(v, dict):
            out |= _flat(v, f"{prefix}{k}.")
        else:
            out[f"{prefix}{k}"] = v
    return out


def test_console_parser_reads_the_last_summary_of_a_log_with_two() -> None:
    first = (DATA / "console-0.19-docs-example.log").read_text()
    second = (DATA / "console-1.1-pytorch.log").read_text()
    got = report.parse_console(first + second)
    assert got.metrics["output_tokens_per_s"] == 43537.5616 and "ttft_ms" not in got.metrics


def test_parse_falls_back_to_the_console_when_the_json_is_corrupt() -> None:
    got = report.parse(
        (DATA / "json-truncated.json").read_text(), (DATA / "console-1.1-pytorch.log").read_text()
    )
    assert got.source == "console" and got.metrics["output_tokens_per_s_per_gpu"] == 10884.3904


def test_parse_names_both_problems_when_neither_source_is_usable() -> None:
    with pytest.raises(report.ReportError) as e:
        report.parse(
            (DATA / "json-truncated.json").read_text(), (DATA / "console-no-summary.log").read_text()
        )
    assert "not valid JSON" in str(e.value) and "no benchmark summary" in str(e.value)


def test_report_json_wins_over_the_console() -> None:
    got = report.parse(
        (DATA / "json-1.2-streaming.json").read_text(), (DATA / "console-1.1-pytorch.log").read_text()
    )
    assert got.source == "report_json" and got.metrics["output_tokens_per_s"] == 24324.2314


@pytest.mark.parametrize(
    ("log", "rc", "timed_out", "kind"),
    [
        ("", None, True, "timeout"),
        ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB", 1, False, "oom"),
        ((DATA / "console-no-summary.log").read_text(), -9, False, "oom"),
        ("Usage: trtllm-bench throughput [OPTIONS]\nError: No such option: --ep", 2, False, "failed"),
        ("[TRT-LLM] [W] Error log level set; loading weights\n", 137, False, "oom"),
        ("Traceback (most recent call last):\nValueError: bad model", 1, False, "failed"),
    ],
    ids=["timeout", "explicit-oom", "silent-oom", "usage-error", "killed", "traceback"],
)
def test_diagnose_tells_timeout_oom_and_other_failures_apart(
    log: str, rc: int | None, timed_out: bool, kind: str
) -> None:
    d = report.diagnose(log, rc, timed_out, 3)
    assert d.kind == kind and d.message


def test_tail_keeps_the_last_lines() -> None:
    assert report.tail("\n".join(str(i) for i in range(100)), 3) == "97\n98\n99"
