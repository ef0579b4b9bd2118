"""`make perf` benchmark: validate + ingest 100,000 synthetic runs (100 files x 1,000 runs) into DuckDB.

Prints runs/s for ``llmbench validate`` (check only) and ``llmbench ingest`` (check + flatten + write the
database) and the peak memory of the parent and of its worker processes (``resource.getrusage``, max RSS).
Targets on the 2-core development machine: >= 50,000 runs/s and < 1 GB peak. Not a pass/fail test.

Each synthetic run looks like a measured llmbench run: parallelism, a workload, engine settings, throughput
figures and TTFT/TPOT/latency percentiles, a timestamp and the command line, so every part of the schema and
of the flattening is exercised. ``python -m tests.perf ingest`` runs it alone.
"""

from __future__ import annotations

import datetime as dt
import resource
import tempfile
import time
from pathlib import Path

import yaml_rs

from bench.contract.resultfile import check_many, find_duplicates, iter_result_files

FILES, RUNS_PER_FILE = 100, 1000
TARGET_RUNS_PER_S, TARGET_PEAK_MB = 50_000, 1024
GPUS = ["H100 SXM 80GB", "H200 SXM 141GB", "B200 180GB", "A100 SXM4 80GB"]
WORKLOADS = [
    (128, 128),
    (128, 2048),
    (2048, 128),
    (2048, 2048),
    (1024, 1024),
    (500, 2000),
    (1000, 1000),
    (5000, 500),
    (1024, 8192),
    (8192, 1024),
]
MODELS = ["meta-llama/Llama-3.1-8B-Instruct", "meta-llama/Llama-3.3-70B-Instruct", "Qwen/Qwen3-30B-A3B"]


def synthetic_file(i: int, runs: int = RUNS_PER_FILE, heavy: bool = False) -> dict:
    """One valid submission with ``runs`` distinct runs (no duplicates within or across files).

    A run carries what a measured trtllm-bench run reports (about 600 bytes of YAML): throughput figures,
    TTFT/TPOT p50/p99, workload and engine settings. ``heavy`` adds every percentile of three latency metrics,
    a timestamp and the command line (about 1 KB), the largest run a result file holds.
    """
    out = []
    for j in range(runs):
        # a sweep: 10 ISL/OSL pairs x TP 1-8 x 10 concurrencies x 3 max_num_tokens (distinct within a file)
        isl, osl = WORKLOADS[j % 10]
        tp, concurrency = 1 << (j // 10 % 4), 1 << (j // 40 % 10)
        max_num_tokens = 4096 << (j // 400)
        tps = 1000.0 + (i * runs + j) * 0.37
        metrics: dict = {
            "output_tokens_per_s": tps,
            "output_tokens_per_s_per_gpu": tps / tp,
            "total_tokens_per_s": tps * 2,
            "requests_per_s": tps / osl,
            "ttft_ms": {"p50": 120.0 + j % 50, "p99": 260.5 + j % 50},
            "tpot_ms": {"p50": 8.0 + j % 7, "p99": 11.25 + j % 7},
        }
        run: dict = {
            "parallelism": {"tp": tp, "pp": 1},
            "workload": {"isl": isl, "osl": osl, "num_requests": 3000, "concurrency": concurrency},
            "engine_settings": {
                "max_batch_size": 2048,
                "max_num_tokens": max_num_tokens,
                "kv_cache_free_gpu_mem_fraction": 0.9,
            },
            "metrics": metrics,
        }
        if heavy:
            for name, base in (("ttft_ms", 120.0), ("tpot_ms", 8.0), ("request_latency_ms", 2500.0)):
                metrics[name] = {k: base * f + j % 50 for k, f in _SPREAD.items()}
            metrics["duration_s"] = 300.5
            run["timestamp"] = dt.datetime(2026, 4, 1, 12, 0, j % 60)
            run["command"] = (
                f"trtllm-bench --model m throughput --tp {tp} --dataset /data/d{j}.jsonl --streaming"
            )
        out.append(run)
    return {
        "schema_version": 1,
        "submission": {
            "submitter": "perf",
            "system": f"perf-{i}",
            "date": dt.date(2026, 4, 1),
            "source": {"kind": "measured", "publisher": "llmbench", "title": f"synthetic {i}"},
        },
        "hardware": {"gpu": GPUS[i % len(GPUS)], "gpus_per_node": 8},
        "software": {
            "engine": "tensorrt-llm",
            "engine_version": "1.2.0",
            "workflow": "pytorch",
            "benchmark_tool": "trtllm-bench",
        },
        "model": {"id": MODELS[i % len(MODELS)], "weight_precision": "FP8"},
        "runs": out,
    }


_SPREAD = {"avg": 1.1, "p50": 1.0, "p90": 1.5, "p95": 1.8, "p99": 2.2, "min": 0.3, "max": 3.0}


def write_synthetic(folder: Path, files: int = FILES, runs: int = RUNS_PER_FILE, heavy: bool = False) -> None:
    """Write the synthetic results tree (not timed; yaml-rs writes 10x faster than the reviewable dumper)."""
    for i in range(files):
        path = folder / f"perf/{i:03d}.yaml"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(yaml_rs.dumps(synthetic_file(i, runs, heavy)), encoding="utf-8")


def _peak_mb() -> tuple[float, float]:
    """Max RSS (MB) of this process and of the largest waited-for child process."""
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return own, children


def _cpu_s() -> float:
    """CPU seconds used so far by this process and its waited-for children (user + system)."""
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def _report(label: str, runs: int, seconds: float, cpu: float) -> None:
    """Wall-clock rate, and the rate its CPU time would allow on 2 otherwise idle cores (the machine is
    shared: other work inflates wall time, and CPU time somewhat less)."""
    rate, cpu_rate = runs / seconds, runs / (cpu / 2)
    print(
        f"{label:<9} {runs:,} runs in {seconds:.2f} s = {rate:,.0f} runs/s "
        f"(target >= {TARGET_RUNS_PER_S:,}; ratio {rate / TARGET_RUNS_PER_S:.2f}); "
        f"CPU {cpu:.2f} s (parent + workers) = {cpu_rate:,.0f} runs/s if 2 cores were idle",
        flush=True,
    )


def main() -> None:
    from site_gen.data.load import ingest

    with tempfile.TemporaryDirectory() as tmp:
        results = Path(tmp) / "results"
        t0 = time.perf_counter()
        write_synthetic(results)
        size = sum(p.stat().st_size for p in results.rglob("*.yaml"))
        print(
            f"wrote {FILES} files x {RUNS_PER_FILE:,} runs ({size / 1e6:.0f} MB YAML) "
            f"in {time.perf_counter() - t0:.1f} s (not timed)"
        )

        t0, c0 = time.perf_counter(), _cpu_s()
        outcomes = check_many(list(iter_result_files([results])), results)
        problems = [p for o in outcomes for p in o.problems] + find_duplicates(outcomes, results)
        runs = sum(len(o.run_ids) for o in outcomes)
        _report("validate", runs, time.perf_counter() - t0, _cpu_s() - c0)
        assert not problems and runs == FILES * RUNS_PER_FILE, problems[:3]

        t0, c0 = time.perf_counter(), _cpu_s()
        report = ingest(results, Path(tmp) / "build" / "llmbench.duckdb")
        _report("ingest", report.runs, time.perf_counter() - t0, _cpu_s() - c0)
        own, children = _peak_mb()
        peak = max(own, children)
        print(
            f"peak RSS  parent {own:,.0f} MB, largest worker {children:,.0f} MB "
            f"(target < {TARGET_PEAK_MB:,} MB; ratio {peak / TARGET_PEAK_MB:.2f})"
        )


if __name__ == "__main__":
    main()
