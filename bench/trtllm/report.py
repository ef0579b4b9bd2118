"""trtllm-bench output -> metrics in the result-file schema (pure: text in, ``Report`` out).

``--report_json`` is read first (``parse_json``); the console summary is the fallback (``parse_console``)
for every label set the tool has printed: <= 0.18 (``Token Throughput (tokens/sec)``, ``= STATISTICS`` in
0.12 with ``Total Latency (seconds)``), ~0.19 (long ``(tokens/sec/gpu)`` labels) and >= 0.20
(``tps/user``, ``tps/gpu``), the streaming sections and the ``[Latency]/[TTFT]/[TPOT] P50 : x`` rows. A
summary that is missing, cut short or holds a non-number raises ``ReportError`` with the reason. A log
holding several runs is cut into one block per run (``run_blocks``): ``parse_all`` returns each run, read
from its own block only, and ``parse_console`` the last. ``diagnose`` classifies a failed run (timeout,
out-of-memory only when the log says so, other) from its log.
Formats: TensorRT-LLM's ``tensorrt_llm/bench/dataclasses/reporting.py`` at each release (summarised in
docs/reference/bench.md, "Results of a run"); real outputs with their sources: tests/trtllm/data/reports/.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from bench.contract.schema import Metrics


class ReportError(Exception):
    """The output holds no usable summary; the message says what is missing or wrong, and where."""


@dataclass(frozen=True)
class Report:
    metrics: dict[str, Any]  # bench.contract.schema.Metrics fields
    source: str  # "report_json" or "console"
    era: str  # which label set / format was recognised
    engine: dict[str, Any] = field(default_factory=dict)  # version, backend, dtype, kv_cache_dtype, ...
    world: dict[str, Any] = field(default_factory=dict)  # tp, pp, ep, max_batch_size, kv_cache_percentage
    requests: dict[str, Any] = field(default_factory=dict)  # num_requests, avg input/output length
    extra: dict[str, Any] = field(default_factory=dict)  # reported but not in the schema (token speed...)


PCT_KEYS = {"p50": "p50", "p90": "p90", "p95": "p95", "p99": "p99"}
PCT_KEYS |= {"minimum": "min", "maximum": "max", "average": "avg", "min": "min", "max": "max", "avg": "avg"}


# --- --report_json ------------------------------------------------------------------------------------


def parse_json(text: str, name: str = "report.json") -> Report:
    """Metrics from a ``--report_json`` file (ReportUtility.get_statistics_dict)."""
    try:
        data = json.loads(text)
    except ValueError as e:
        raise ReportError(f"{name}: not valid JSON ({e})") from None
    if not isinstance(data, dict) or not isinstance(data.get("performance"), dict):
        raise ReportError(f"{name}: expected an object with a 'performance' section")
    perf = data["performance"]
    metrics: dict[str, Any] = {}
    for key, src in (
        ("output_tokens_per_s", "system_output_throughput_tok_s"),
        ("output_tokens_per_s_per_gpu", "output_throughput_per_gpu_tok_s"),
        ("output_tokens_per_s_per_user", "output_throughput_per_user_tok_s"),
        ("total_tokens_per_s", "system_total_throughput_tok_s"),
        ("requests_per_s", "request_throughput_req_s"),
    ):
        if perf.get(src) is not None:
            metrics[key] = _positive(perf[src], f"{name}: performance.{src}")
    if perf.get("total_latency_ms") is not None:
        metrics["duration_s"] = (
            _positive(perf["total_latency_ms"], f"{name}: performance.total_latency_ms") / 1e3
        )
    lat = _percentiles(perf.get("request_latency_percentiles_ms"), f"{name}: performance.request_latency")
    if "avg" not in lat and perf.get("avg_request_latency_ms") is not None:
        lat["avg"] = _positive(perf["avg_request_latency_ms"], f"{name}: performance.avg_request_latency_ms")
    _put(metrics, "request_latency_ms", lat)
    extra: dict[str, Any] = {}
    streaming = data.get("streaming_metrics")
    if isinstance(streaming, dict):
        where = f"{name}: streaming_metrics"
        ttft = _percentiles(streaming.get("ttft_percentiles"), f"{where}.ttft_percentiles")
        tpot = _percentiles(streaming.get("tpot_percentiles"), f"{where}.tpot_percentiles")
        for pct, key in ((ttft, "avg_ttft_ms"), (tpot, "avg_tpot_ms")):
            if "avg" not in pct and streaming.get(key) is not None:
                pct["avg"] = _positive(streaming[key], f"{where}.{key}")
        _put(metrics, "ttft_ms", ttft)
        _put(metrics, "tpot_ms", tpot)
        if streaming.get("token_output_speed_tok_s") is not None:
            extra["token_output_speed_tok_s"] = _number(streaming["token_output_speed_tok_s"], where)
    _check(metrics, name)
    world = data.get("world_info") if isinstance(data.get("world_info"), dict) else {}
    return Report(
        metrics=metrics,
        source="report_json",
        era="report_json",
        engine=data.get("engine") if isinstance(data.get("engine"), dict) else {},
        world={
            "tp": world.get("tp_size"),
            "pp": world.get("pp_size"),
            "ep": world.get("ep_size"),
            "max_batch_size": world.get("max_batch_size"),
            "max_num_tokens": world.get("max_num_tokens"),
            "kv_cache_percentage": world.get("kv_cache_percentage"),
        },
        requests=data.get("request_info") if isinstance(data.get("request_info"), dict) else {},
        extra=extra,
    )


def _number(value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ReportError(f"{where}: expected a number, got {json.dumps(value)[:40]}")
    if not math.isfinite(value):
        raise ReportError(f"{where}: expected a finite number, got {value}")
    return float(value)


def _positive(value: Any, where: str) -> float:
    v = _number(value, where)
    if v <= 0:
        raise ReportError(f"{where}: expected a positive number, got {value}")
    return v


def _percentiles(data: Any, where: str) -> dict[str, float]:
    """Percentile dict (p50..., minimum, maximum, average) -> schema keys; non-positive values dropped."""
    if not isinstance(data, dict):
        return {}
    out = {}
    for k, v in data.items():
        if k in PCT_KEYS and v is not None:
            n = _number(v, f"{where}.{k}")
            if n > 0:  # a zero latency is a rounding artefact; the schema keeps positive values only
                out[PCT_KEYS[k]] = n
    return out


def _put(metrics: dict[str, Any], key: str, pct: dict[str, float]) -> None:
    if pct:
        metrics[key] = pct


def _check(metrics: dict[str, Any], name: str) -> None:
    try:
        Metrics.model_validate(metrics)
    except ValidationError as e:
        first = e.errors()[0]
        loc = ".".join(str(p) for p in first["loc"])
        raise ReportError(f"{name}: summary has no usable throughput ({loc}: {first['msg']})") from None


# --- console summary ----------------------------------------------------------------------------------

_PREFIX = re.compile(r"^\[\d\d/\d\d/\d{4}-\d\d:\d\d:\d\d\]\s*\[TRT-LLM\]\s*(\[[A-Z]\]\s*)?")
_BANNER = re.compile(r"^=\s+([A-Z][A-Za-z +()]*?)\s*$")
_PCT_ROW = re.compile(r"^\[(Latency|TTFT|TPOT|GTPS)\]\s+([A-Z0-9]+)\s*:\s*(\S+)\s*$")
_KV = re.compile(r"^([A-Za-z][^:]*?)\s*:\s*(\S.*?)\s*$")

# label -> (metric, era that printed it); "latency.avg" etc. address percentile dicts
_LABELS: dict[str, tuple[str, str]] = {
    "Token Throughput (tokens/sec)": ("output_tokens_per_s", "<=0.18"),
    "Request Throughput (req/sec)": ("requests_per_s", ""),
    "Total Latency (ms)": ("duration_ms", ""),
    "Total Latency (seconds)": ("duration_s", "0.12"),
    "Total Output Throughput (tokens/sec)": ("output_tokens_per_s", ""),
    "Total Token Throughput (tokens/sec)": ("total_tokens_per_s", ""),
    "Average request latency (ms)": ("request_latency_ms.avg", ""),
    "Per User Output Throughput (tokens/sec/user)": ("output_tokens_per_s_per_user", "0.19"),
    "Per User Output Throughput [w/ ctx] (tps/user)": ("output_tokens_per_s_per_user", ">=0.20"),
    "Per GPU Output Throughput (tokens/sec/gpu)": ("output_tokens_per_s_per_gpu", "0.19"),
    "Per GPU Output Throughput (tps/gpu)": ("output_tokens_per_s_per_gpu", ">=0.20"),
    "Average time-to-first-token [TTFT] (ms)": ("ttft_ms.avg", ""),
    "Average time-per-output-token [TPOT] (ms)": ("tpot_ms.avg", ""),
    "Average time-to-first-token (ms)": ("ttft_ms.avg", "<=0.18"),
    "Average inter-token latency (ms)": ("tpot_ms.avg", "<=0.18"),
    "Per User Output Speed [1/TPOT] (tokens/sec/user)": ("extra.token_output_speed_tok_s", "0.19"),
    "Per User Output Speed (tps/user)": ("extra.token_output_speed_tok_s", ">=0.20"),
}
_ROW_METRIC = {"Latency": "request_latency_ms", "TTFT": "ttft_ms", "TPOT": "tpot_ms"}
_INFO = {
    "Model": ("engine", "model"),
    "Model Path": ("engine", "model_path"),  # the local checkpoint (--model_path); "None" when not given
    "TensorRT LLM Version": ("engine", "version"),
    "TensorRT-LLM Version": ("engine", "version"),
    "Dtype": ("engine", "dtype"),
    "KV Cache Dtype": ("engine", "kv_cache_dtype"),
    "Quantization": ("engine", "quantization"),
    "Engine Directory": ("engine", "engine_dir"),
    "TP Size": ("world", "tp"),
    "PP Size": ("world", "pp"),
    "EP Size": ("world", "ep"),
    "Max Runtime Batch Size": ("world", "max_batch_size"),
    "Max Runtime Tokens": ("world", "max_num_tokens"),
    "KV Memory Percentage": ("world", "kv_cache_percentage"),
    "Number of requests": ("requests", "num_requests"),
    "Average Input Length (tokens)": ("requests", "avg_input_length"),
    "Average Output Length (tokens)": ("requests", "avg_output_length"),
}
_SUMMARY_BANNERS = ("PERFORMANCE OVERVIEW", "STATISTICS")


def has_summary(text: str) -> bool:
    """Whether the output contains a benchmark summary section at all."""
    return any(_is_summary_banner(_strip(line)) for line in text.splitlines())


def _strip(line: str) -> str:
    return _PREFIX.sub("", line.rstrip("\r\n")).strip()


def _is_summary_banner(line: str) -> bool:
    m = _BANNER.match(line)
    return bool(m and m.group(1) in _SUMMARY_BANNERS)


def parse_console(text: str, name: str = "console output") -> Report:
    """Metrics from the last run printed in a log, any era's labels, read from that run's block only."""
    lines = [_strip(line) for line in text.splitlines()]
    blocks = run_blocks(lines)
    if not blocks:
        raise ReportError(
            f"{name}: no benchmark summary ('= PERFORMANCE OVERVIEW' section): {_what_was_seen(text)}"
        )
    return _parse_block(lines, blocks[-1], name)


def parse_all(text: str, name: str = "console output") -> list[Report]:
    """Every run of a log holding several, in order, each from its own block only.

    A block that holds no usable summary raises ``ReportError`` naming its first line: a log is one
    user's record, and a run silently left out would be a wrong record.
    """
    lines = [_strip(line) for line in text.splitlines()]
    blocks = run_blocks(lines)
    if not blocks:
        raise ReportError(
            f"{name}: no benchmark summary ('= PERFORMANCE OVERVIEW' section): {_what_was_seen(text)}"
        )
    return [_parse_block(lines, b, name) for b in blocks]


def _parse_block(lines: list[str], block: tuple[int, int], name: str) -> Report:
    start, end = block
    acc = _Accumulator(f"{name} (run at line {start + 1})")
    for n, line in enumerate(lines[start:end], start + 1):
        acc.feed(n, line)
    return acc.report()


# Sections printed before the summary (the first of them opens a run's block) and the line that starts a
# new invocation: a block never reaches back past either, so no field of one run is read into another.
_HEADER_BANNERS = ("ENGINE DETAILS", "PYTORCH BACKEND", "PyTorch backend", "AUTODEPLOY BACKEND")
_PRE_BANNERS = (*_HEADER_BANNERS, "MACHINE DETAILS", "REQUEST DETAILS", "WORLD + RUNTIME INFORMATION")
_RUN_START = re.compile(
    r"^\[TensorRT-LLM\] TensorRT-LLM version:|^# llmbench: |Preparing to run throughput benchmark"
    r"|Setting up throughput benchmark|Setting up latency benchmark|Running offline throughput benchmark"
    r"|Starting benchmark\.\.\.|Processed requests:"
)


def _banner(line: str) -> str | None:
    m = _BANNER.match(line)
    return m.group(1).strip() if m else None


def run_blocks(lines: list[str]) -> list[tuple[int, int]]:
    """(first line, end) of each run's report in stripped log lines: its first section to its last.

    A block opens at the first pre-summary section after the previous block (a run's own header,
    ENGINE DETAILS or PYTORCH BACKEND, reopens it: a run that died before its summary leaves nothing
    behind) and closes at the next run's first section, the next summary, or a line that starts a new
    invocation.
    """
    blocks: list[tuple[int, int]] = []
    start: int | None = None
    in_summary = False
    for i, line in enumerate(lines):
        b = _banner(line)
        starts_run = bool(_RUN_START.search(line))
        if in_summary:
            if not (starts_run or b in _PRE_BANNERS or b in _SUMMARY_BANNERS):
                continue
            blocks.append((start if start is not None else i, i))
            start, in_summary = None, False
        if starts_run:
            start = None
        elif b in _HEADER_BANNERS or (b in _PRE_BANNERS and start is None):
            start = i
        elif b in _SUMMARY_BANNERS:
            start = i if start is None else start
            in_summary = True
    if in_summary and start is not None:
        blocks.append((start, len(lines)))
    return blocks


class _Accumulator:
    def __init__(self, name: str) -> None:
        self.name = name
        self.metrics: dict[str, Any] = {}
        self.info: dict[str, dict[str, Any]] = {"engine": {}, "world": {}, "requests": {}}
        self.extra: dict[str, Any] = {}
        self.eras: set[str] = set()

    def feed(self, n: int, line: str) -> None:
        row = _PCT_ROW.match(line)
        if row:
            self._row(n, *row.groups())
            return
        kv = _KV.match(line)
        if not kv:
            return
        label, value = re.sub(r"\s+", " ", kv.group(1)), kv.group(2)
        if label in _LABELS:
            key, era = _LABELS[label]
            self.eras.add(era)
            self._metric(key, self._num(n, label, value))
        elif label in _INFO:
            section, key = _INFO[label]
            self.info[section][key] = _info_value(value)

    def _num(self, n: int, label: str, value: str) -> float:
        try:
            v = float(value.split()[0])
        except ValueError:
            raise ReportError(f"{self.name}:{n}: {label}: expected a number, got {value!r}") from None
        if not math.isfinite(v):
            raise ReportError(f"{self.name}:{n}: {label}: expected a finite number, got {value!r}")
        return v

    def _metric(self, key: str, v: float) -> None:
        if key.startswith("extra."):
            self.extra[key[6:]] = v
        elif key == "duration_ms":
            self._set("duration_s", v / 1e3)
        elif "." in key:
            metric, pct = key.split(".")
            if v > 0:
                self.metrics.setdefault(metric, {})[pct] = v
        else:
            self._set(key, v)

    def _set(self, key: str, v: float) -> None:
        if v <= 0:
            raise ReportError(f"{self.name}: {key}: expected a positive number, got {v}")
        self.metrics[key] = v

    def _row(self, n: int, kind: str, stat: str, value: str) -> None:
        if kind not in _ROW_METRIC:
            return
        pct = PCT_KEYS.get(stat.lower())
        if pct is None:
            return
        v = self._num(n, f"[{kind}] {stat}", value)
        if v > 0:
            self.metrics.setdefault(_ROW_METRIC[kind], {})[pct] = v

    def _era(self) -> str:
        """The era of the labels seen; where only labels every era prints were seen (a fragment cut before
        the per-user rows, like 1.1.0rc1's in NVIDIA/TensorRT-LLM#7104), the printed version decides, and
        without one the era is 'unknown' rather than a guess."""
        for era in (">=0.20", "0.19", "<=0.18"):
            if era in self.eras:
                return era
        if "0.12" in self.eras:
            return "<=0.18"
        return _era_of_version(self.info["engine"].get("version")) or "unknown"

    def report(self) -> Report:
        _check(self.metrics, self.name)
        era = self._era()
        world = self.info["world"]
        if isinstance(world.get("kv_cache_percentage"), str) and world["kv_cache_percentage"].endswith("%"):
            world["kv_cache_percentage"] = float(world["kv_cache_percentage"][:-1]) / 100
        return Report(
            self.metrics, "console", era, self.info["engine"], world, self.info["requests"], self.extra
        )


def _era_of_version(version: Any) -> str | None:
    """The label era a printed version belongs to ('1.1.0rc1' -> '>=0.20'), or None when it is no version."""
    m = re.match(r"^(\d+)\.(\d+)", str(version or ""))
    if not m:
        return None
    minor = (int(m.group(1)), int(m.group(2)))
    return ">=0.20" if minor >= (0, 20) else "0.19" if minor == (0, 19) else "<=0.18"


def _info_value(value: str) -> Any:
    if value == "None":
        return None
    try:
        return int(value)
    except ValueError:
        pass
    try:
        return float(value)
    except ValueError:
        return value


# --- both, and failure diagnosis ----------------------------------------------------------------------


def parse(report_text: str | None, log_text: str, report_name: str = "report.json") -> Report:
    """The report JSON if it is usable, else the console summary; both reasons when neither is."""
    json_problem = None
    if report_text is not None:
        try:
            return parse_json(report_text, report_name)
        except ReportError as e:
            json_problem = str(e)
    try:
        return parse_console(log_text, "log")
    except ReportError as e:
        raise ReportError(f"{json_problem}; {e}" if json_problem else str(e)) from None


# What a log says when memory ran out: PyTorch's and CUDA's errors, TensorRT's and the KV-cache manager's
# allocation failures, MPI ranks killed by the kernel's OOM killer.
_OOM = re.compile(
    r"out of memory|OutOfMemoryError|CUDA_ERROR_OUT_OF_MEMORY|cudaErrorMemoryAllocation|std::bad_alloc"
    r"|Failed to allocate|insufficient (GPU )?memory|Not enough memory|oom[-_ ]?kill"
    r"|(kv|KV)[ _-]?cache.{0,60}(allocat\w* fail|fail\w* to allocat|cannot allocate|exceed)"
    r"|Cannot allocate memory",
    re.IGNORECASE,
)
_ERROR_LINE = re.compile(r"Traceback|Error:|Error\b|error:|^Usage:|\[E\]", re.MULTILINE)


@dataclass(frozen=True)
class Diagnosis:
    kind: str  # "oom", "timeout" or "failed"
    message: str


def diagnose(log_text: str, exit_code: int | None, timed_out: bool, timeout_s: float) -> Diagnosis:
    """Why a run failed: killed at the timeout, out of memory (only when the log says so), or else.

    A missing summary alone is not taken for out-of-memory: the message says what the log shows (its
    last error line, or that it has none) with the exit code, so a usage error or a crash is not
    retried at a lower KV-cache fraction under a wrong name.
    """
    if timed_out:
        return Diagnosis("timeout", f"no result within the {timeout_s:g} s timeout; process group killed")
    oom = next((line.strip() for line in log_text.splitlines() if _OOM.search(line)), None)
    if oom:
        return Diagnosis("oom", f"out of memory: {oom[:300]}")
    return Diagnosis("failed", f"exit code {exit_code}: {_what_was_seen(log_text)}")


def _what_was_seen(log_text: str) -> str:
    """The last error line of a log, or a plain statement that it has no summary and no error line."""
    errors = [line.strip() for line in log_text.splitlines() if _ERROR_LINE.search(line)]
    summary = "" if has_summary(log_text) else "no summary; "
    if errors:
        return f"{summary}last error line: {errors[-1][:300]}"
    return "no summary and no error line" if summary else "no error line"


def tail(text: str, lines: int = 40) -> str:
    """The last lines of a log, kept with a failed run."""
    return "\n".join(text.splitlines()[-lines:])
