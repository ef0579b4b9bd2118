"""trtllm-bench's metric definitions, checked on hand-computed timings.

The authority: tensorrt_llm/bench/dataclasses/statistics.py (NVIDIA/TensorRT-LLM, commit 385626572df1):
``RequestRecord.intertoken_latency`` = (end - first token) / (output tokens - 1) is TPOT,
``time_to_first_token`` = first token - start, ``total_token_throughput`` = output tokens / end-to-end
latency (averaged over requests: per-user output tok/s), ``output_token_throughput`` = (output tokens - 1)
/ (end-to-end - TTFT), and ``PercentileStats.from_iterable`` picks ``sorted(v)[int(n * q)]``.
"""

from __future__ import annotations

import pytest

from bench.engines.statistics import RequestRecord, percentiles, report

MS = 1_000_000


def records() -> list[RequestRecord]:
    # two requests submitted at t=0: 10 output tokens each; first tokens at 100/300 ms, ends at 1000/2000 ms
    return [
        RequestRecord(0, 100, 10, 0, 100 * MS, 1000 * MS),
        RequestRecord(1, 50, 10, 0, 300 * MS, 2000 * MS),
    ]


def test_throughputs_follow_trtllm_bench_definitions() -> None:
    rep = report(records(), {"backend": "transformers"}, {"world_size": 1}, "d.jsonl")
    perf = rep["performance"]
    assert perf["total_latency_ms"] == 2000
    assert perf["request_throughput_req_s"] == pytest.approx(1.0)
    assert perf["system_output_throughput_tok_s"] == pytest.approx(10.0)
    assert perf["system_total_throughput_tok_s"] == pytest.approx((150 + 20) / 2)
    # per user: mean of 10/1 s and 10/2 s
    assert perf["output_throughput_per_user_tok_s"] == pytest.approx(7.5)
    assert rep["request_info"]["avg_num_concurrent_requests"] == pytest.approx(1.5)


def test_ttft_tpot_and_per_user_speed() -> None:
    s = report(records(), {}, {"world_size": 1}, "d.jsonl")["streaming_metrics"]
    assert s["avg_ttft_ms"] == pytest.approx(200)
    # TPOT = (end - first) / (osl - 1): 900/9 = 100 ms and 1700/9 ms
    assert s["tpot_percentiles"]["minimum"] == pytest.approx(100)
    assert s["avg_tpot_ms"] == pytest.approx((100 + 1700 / 9) / 2)
    assert s["token_output_speed_tok_s"] == pytest.approx((9 / 0.9 + 9 / 1.7) / 2)


def test_per_gpu_divides_by_world_size() -> None:
    perf = report(records(), {}, {"world_size": 2}, "d.jsonl")["performance"]
    assert perf["output_throughput_per_gpu_tok_s"] == pytest.approx(5.0)


def test_percentiles_pick_without_interpolation_like_trtllm_bench() -> None:
    p = percentiles(range(1, 101))
    assert (p["p50"], p["p90"], p["p99"], p["minimum"], p["maximum"]) == (51, 91, 100, 1, 100)
    assert p["average"] == 50.5


def test_no_streaming_section_without_first_token_times_and_no_report_without_requests() -> None:
    rec = [RequestRecord(0, 4, 4, 0, None, 10 * MS)]
    assert "streaming_metrics" not in report(rec, {}, {"world_size": 1}, "d")
    with pytest.raises(ValueError, match="at least one"):
        report([], {}, {"world_size": 1}, "d")
