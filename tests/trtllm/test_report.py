"""Parsers on recorded report JSON and console output of each era: right numbers, or a clear failure.

Each case is a recorded input in data/reports/<case>.{json,log} next to <case>.expected.yaml, which holds
either the expected metrics (and world/engine facts) or a fragment of the expected error.
"""

from __future__ import annotations

import re
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
    for section in ("world", "engine", "requests"):
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


def _log(case: str) -> str:
    return (DATA / f"{case}.log").read_text(encoding="utf-8")


REAL = sorted(c for c in CASES if "link" in yaml.safe_load((DATA / f"{c}.expected.yaml").read_text()))


def test_real_outputs_name_their_source_at_a_fixed_commit() -> None:
    assert len(REAL) >= 3
    for case in REAL:
        link = yaml.safe_load((DATA / f"{case}.expected.yaml").read_text())["link"]
        assert re.match(r"https://github\.com/NVIDIA/TensorRT-LLM/(blob/[0-9a-f]{40}/|issues/|pull/)", link)


def test_console_parser_reads_the_last_summary_of_a_log_with_two() -> None:
    got = report.parse_console(_log("console-0.19-docs-example") + _log("console-1.1-pytorch"))
    assert got.metrics["output_tokens_per_s"] == 43537.5616 and "ttft_ms" not in got.metrics


def test_an_engine_run_then_a_pytorch_run_each_keep_their_own_fields() -> None:
    """The issue's case: engine_dir of an engine run leaked into the PyTorch run that followed it."""
    engine_run, pytorch_run = report.parse_all(
        _log("console-0.17-docs-engine") + _log("console-0.17-docs-pytorch"), "user.log"
    )
    # values read by hand from NVIDIA's two examples
    assert engine_run.engine["engine_dir"] == "/tmp/meta-llama/Llama-3.1-8B/tp_1_pp_1"
    assert engine_run.metrics["output_tokens_per_s"] == 28390.4265
    assert engine_run.world["max_batch_size"] == 4096
    assert "engine_dir" not in pytorch_run.engine
    assert pytorch_run.engine["kv_cache_dtype"] is None
    assert pytorch_run.metrics["output_tokens_per_s"] == 20685.5510
    assert pytorch_run.world["max_batch_size"] == 2048 and pytorch_run.world["max_num_tokens"] == 4096
    last = report.parse_console(_log("console-0.17-docs-engine") + _log("console-0.17-docs-pytorch"))
    assert "engine_dir" not in last.engine and last.metrics["requests_per_s"] == 161.6059


def test_a_run_without_latency_rows_does_not_take_the_previous_runs() -> None:
    first, second = report.parse_all(_log("console-docs-multimodal") + _log("console-0.17-docs-pytorch"))
    assert first.metrics["request_latency_ms"]["p50"] == 3936.3022
    assert "request_latency_ms" not in second.metrics and "ep" not in second.world
    assert second.requests == {"num_requests": 3000, "avg_input_length": 128, "avg_output_length": 128}


def test_a_run_that_died_before_its_summary_leaves_nothing_to_the_next() -> None:
    engine = _log("console-0.17-docs-engine")
    died = engine[: engine.index("= PERFORMANCE OVERVIEW")]  # killed while printing its report
    (only,) = report.parse_all(died + _log("console-0.17-docs-pytorch"))
    assert "engine_dir" not in only.engine and only.world["max_batch_size"] == 2048


def test_a_cut_run_in_a_log_of_several_is_named_by_its_line() -> None:
    cut = _log("console-truncated")
    with pytest.raises(report.ReportError, match=r"user\.log \(run at line 8\).*no usable throughput"):
        report.parse_all(cut + _log("console-0.17-docs-engine"), "user.log")
    # the last run alone is still read
    got = report.parse_console(cut + _log("console-0.17-docs-engine"))
    assert got.metrics["output_tokens_per_s"] == 28390.4265


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


NO_SUMMARY = (DATA / "console-no-summary.log").read_text()


@pytest.mark.parametrize(
    ("log", "rc", "timed_out", "kind", "says"),
    [
        ("", None, True, "timeout", "3 s timeout"),
        (
            "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB",
            1,
            False,
            "oom",
            "Tried to allocate 2.00 GiB",
        ),
        # a log that stops with no summary and shows nothing: not taken for out-of-memory
        (NO_SUMMARY, -9, False, "failed", "exit code -9: no summary and no error line"),
        (NO_SUMMARY, 0, False, "failed", "exit code 0: no summary and no error line"),
        (
            NO_SUMMARY + "slurmstepd: error: Detected 1 oom_kill event in StepId=17.0. Some of the step "
            "tasks have been OOM Killed.\n",
            137,
            False,
            "oom",
            "oom_kill event",
        ),
        (
            NO_SUMMARY + "RuntimeError: [TensorRT-LLM][ERROR] Not enough memory to allocate KV cache\n",
            1,
            False,
            "oom",
            "Not enough memory",
        ),
        (
            "Usage: trtllm-bench throughput [OPTIONS]\nError: No such option: --ep",
            2,
            False,
            "failed",
            "last error line: Error: No such option: --ep",
        ),
        (
            "[TRT-LLM] [W] Error log level set; loading weights\n",
            137,
            False,
            "failed",
            "no summary; last error line: [TRT-LLM] [W] Error log level set",
        ),
        (
            "Traceback (most recent call last):\nValueError: bad model",
            1,
            False,
            "failed",
            "ValueError: bad model",
        ),
    ],
    ids=[
        "timeout",
        "explicit-oom",
        "silent-killed",
        "silent-exit-0",
        "slurm-oom-kill",
        "kv-not-enough-memory",
        "usage-error",
        "killed-with-error-line",
        "traceback",
    ],
)
def test_diagnose_names_out_of_memory_only_when_the_log_shows_it(
    log: str, rc: int | None, timed_out: bool, kind: str, says: str
) -> None:
    d = report.diagnose(log, rc, timed_out, 3)
    assert d.kind == kind and says in d.message, d


def test_tail_keeps_the_last_lines() -> None:
    assert report.tail("\n".join(str(i) for i in range(100)), 3) == "97\n98\n99"


def test_a_fragment_with_only_shared_labels_takes_its_era_from_the_version_or_says_unknown() -> None:
    """The 1.1.0rc1 fragment (NVIDIA/TensorRT-LLM#7104) prints no era-specific label: its version line names
    the era. Without the version line, the era is not guessed."""
    text = _log("console-1.1rc1-fragment")
    assert report.parse_console(text).era == ">=0.20"
    headless = text[text.index("= PERFORMANCE OVERVIEW") - 60 :]
    assert report.parse_console(headless).era == "unknown"
    old = text.replace("TensorRT-LLM Version: 1.1.0rc1", "TensorRT-LLM Version: 0.17.0")
    assert report.parse_console(old).era == "<=0.18"
