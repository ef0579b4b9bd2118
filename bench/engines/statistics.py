"""Per-request timings -> trtllm-bench's ``--report_json`` statistics, with trtllm-bench's definitions.

Definitions (tensorrt_llm/bench/dataclasses/statistics.py and reporting.py): timestamps in ns; total latency =
last request end - first request start; request throughput = requests / total latency; output throughput =
sum of output tokens / total latency; total throughput = (input + output tokens) / total latency; per-GPU =
output throughput / world size; per-user output throughput = mean over requests of output tokens / end-to-end
latency; TTFT = first token - start; TPOT = (end - first token) / (output tokens - 1); per-user output speed =
mean of (output tokens - 1) / (end-to-end latency - TTFT); average concurrency = sum of request latencies /
total latency; percentiles pick ``sorted(values)[int(n * q)]`` with no interpolation.
Pure stdlib, node-side.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

NS_PER_MS = 1_000_000
NS_PER_S = 1_000_000_000


@dataclass(frozen=True)
class RequestRecord:
    """What one request did, on one monotonic clock (ns)."""

    task_id: int
    input_tokens: int
    output_tokens: int
    start_ns: int
    first_token_ns: int | None
    end_ns: int

    @property
    def latency_ns(self) -> int:
        return self.end_ns - self.start_ns

    @property
    def ttft_ns(self) -> int | None:
        return None if self.first_token_ns is None else self.first_token_ns - self.start_ns

    @property
    def tpot_ns(self) -> float | None:
        """Mean time between output tokens; undefined for a single output token or no first-token time."""
        if self.first_token_ns is None or self.output_tokens < 2:
            return None
        return (self.end_ns - self.first_token_ns) / (self.output_tokens - 1)


def percentiles(values: Iterable[float]) -> dict[str, float]:
    """trtllm-bench's PercentileStats: nearest-rank without interpolation, plus min, max and mean."""
    v = sorted(values)
    if not v:
        raise ValueError("percentiles of no values")
    n = len(v)
    return {
        "p50": v[int(n * 0.50)],
        "p90": v[int(n * 0.90)],
        "p95": v[int(n * 0.95)],
        "p99": v[int(n * 0.99)],
        "minimum": v[0],
        "maximum": v[-1],
        "average": statistics.fmean(v),
    }


def performance(records: Sequence[RequestRecord], world_size: int = 1) -> dict[str, Any]:
    """The ``performance`` section (throughputs and request-latency percentiles)."""
    total_ns = max(r.end_ns for r in records) - min(r.start_ns for r in records)
    total_s = total_ns / NS_PER_S
    out_tokens = sum(r.output_tokens for r in records)
    in_tokens = sum(r.input_tokens for r in records)
    output_tps = out_tokens / total_s
    return {
        "total_latency_ms": total_ns / NS_PER_MS,
        "avg_request_latency_ms": statistics.fmean(r.latency_ns for r in records) / NS_PER_MS,
        "request_throughput_req_s": len(records) / total_s,
        "system_output_throughput_tok_s": output_tps,
        "system_total_throughput_tok_s": (in_tokens + out_tokens) / total_s,
        "output_throughput_per_user_tok_s": statistics.fmean(
            r.output_tokens / (r.latency_ns / NS_PER_S) for r in records
        ),
        "output_throughput_per_gpu_tok_s": output_tps / world_size,
        "request_latency_percentiles_ms": percentiles(r.latency_ns / NS_PER_MS for r in records),
    }


def streaming_metrics(records: Sequence[RequestRecord]) -> dict[str, Any] | None:
    """The ``streaming_metrics`` section, or None when no request has a first-token time."""
    timed = [r for r in records if r.ttft_ns is not None]
    if not timed:
        return None
    ttft = percentiles(r.ttft_ns / NS_PER_MS for r in timed)  # type: ignore[operator]
    decoding = [r for r in timed if r.tpot_ns is not None and r.end_ns > r.first_token_ns]  # type: ignore[operator]
    section: dict[str, Any] = {"avg_ttft_ms": ttft["average"], "ttft_percentiles": ttft}
    if decoding:
        tpot = percentiles(r.tpot_ns / NS_PER_MS for r in decoding)  # type: ignore[operator]
        gen = percentiles(
            (r.output_tokens - 1) / ((r.end_ns - r.first_token_ns) / NS_PER_S)  # type: ignore[operator]
            for r in decoding
        )
        section |= {
            "token_output_speed_tok_s": gen["average"],
            "avg_tpot_ms": tpot["average"],
            "tpot_percentiles": tpot,
            "gen_tps_percentiles": gen,
        }
    return section


def request_info(records: Sequence[RequestRecord]) -> dict[str, Any]:
    """The ``request_info`` section."""
    total_ns = max(r.end_ns for r in records) - min(r.start_ns for r in records)
    return {
        "num_requests": len(records),
        "avg_num_concurrent_requests": sum(r.latency_ns for r in records) / total_ns,
        "avg_input_length": statistics.fmean(r.input_tokens for r in records),
        "avg_output_length": statistics.fmean(r.output_tokens for r in records),
    }


def dataset_section(records: Sequence[RequestRecord], dataset_path: str) -> dict[str, Any]:
    """The ``dataset`` section (DatasetMetadata) over the requests that ran."""
    isl = [r.input_tokens for r in records]
    osl = [r.output_tokens for r in records]
    seq = [i + o for i, o in zip(isl, osl, strict=True)]
    return {
        "isl_stats": percentiles(isl),
        "osl_stats": percentiles(osl),
        "seq_len_stats": percentiles(seq),
        "num_requests": len(records),
        "dataset_path": dataset_path,
        "max_isl": max(isl),
        "max_osl": max(osl),
        "max_sequence_length": max(seq),
        "avg_isl": statistics.fmean(isl),
        "avg_osl": statistics.fmean(osl),
        "avg_sequence_length": statistics.fmean(seq),
    }


def report(
    records: Sequence[RequestRecord],
    engine: dict[str, Any],
    world_info: dict[str, Any],
    dataset_path: str,
    machine: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """A complete report dict in trtllm-bench's ``--report_json`` layout."""
    if not records:
        raise ValueError("a report needs at least one finished request")
    out: dict[str, Any] = {
        "engine": engine,
        "machine": machine,
        "world_info": world_info,
        "request_info": request_info(records),
        "performance": performance(records, int(world_info.get("world_size") or 1)),
    }
    stream = streaming_metrics(records)
    if stream is not None:
        out["streaming_metrics"] = stream
    out["dataset"] = dataset_section(records, dataset_path)
    return out
