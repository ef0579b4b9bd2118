"""`make perf` benchmark: the sweep harness's own cost, apart from the engine it drives.

1. Dataset generation: 30,000 requests of 128 tokens (Llama 3 vocabulary, EOS avoided), written to disk,
   against the target (< 2 s) and against TensorRT-LLM's own algorithm run the plain Python way (the
   reference ``prepare_dataset.py`` does, minus the tokenizer load).
2. Harness overhead per job: a sweep of JOBS jobs run by ``bench.sweep.execute.run_plan`` with the stand-in
   ``trtllm-bench`` (tests/sweep/fake_trtllm_bench), minus the time the same stand-in takes when started
   directly the same number of times. What is left is everything llmbench adds per job: command building,
   process start and kill logic, log handling, report parsing and one DuckDB transaction; plus the
   one-off provenance probes. Target: < 250 ms per job (a real benchmark runs for minutes).
``python -m tests.perf harness`` runs it alone. Not a pass/fail test.
"""

from __future__ import annotations

import json
import math
import os
import random
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np
import yaml

from bench.sweep import execute, launch, provenance
from bench.sweep import spec as sweep
from bench.trtllm import dataset

FAKE_BIN = Path(__file__).resolve().parents[1] / "sweep" / "fake_trtllm_bench"
JOBS = 24
TARGET_DATASET_S, TARGET_OVERHEAD_MS = 2.0, 250.0


def _reference_dataset(p: dataset.Params) -> int:
    """TensorRT-LLM's benchmarks/cpp/utils/utils.py algorithm, plain Python; returns bytes produced."""
    np.random.seed(p.seed)
    ilens = [max(1, math.ceil(x)) for x in np.random.normal(p.input_mean, p.input_stdev, p.num_requests)]
    np.random.seed(p.seed)
    olens = [max(1, math.ceil(x)) for x in np.random.normal(p.output_mean, p.output_stdev, len(ilens))]
    random.seed(p.seed)
    size = 0
    for i, k in enumerate(ilens):
        ids = random.sample(range(p.vocab_size), k)
        if p.eos_id in ids:
            ids = [(p.eos_id + 1) % p.vocab_size if t == p.eos_id else t for t in ids]
        d = {"task_id": i, "input_ids": ids, "output_tokens": olens[i]}
        size += len(json.dumps(d, separators=(",", ":"), ensure_ascii=False)) + 1
    return size


def bench_dataset(tmp: Path) -> None:
    p = dataset.Params(30_000, 128, 0, 128, 0, 128_000, 128_009)
    t = time.perf_counter()
    path = dataset.write(p, tmp / "ds.jsonl")
    ours = time.perf_counter() - t
    t = time.perf_counter()
    cached = dataset.write(p, tmp / "ds.jsonl")
    hit = time.perf_counter() - t
    t = time.perf_counter()
    ref_bytes = _reference_dataset(p)
    ref = time.perf_counter() - t
    size = path.stat().st_size
    assert cached == path and size == ref_bytes
    verdict = "ok" if ours < TARGET_DATASET_S else "MISSED"
    print(
        f"dataset 30,000 x 128 tokens: {ours:.2f} s ({30_000 * 128 / ours / 1e6:.1f} M tokens/s, "
        f"{size / 1e6:.1f} MB; target < {TARGET_DATASET_S:.0f} s: {verdict})"
    )
    print(f"  reference algorithm in plain Python: {ref:.2f} s -> llmbench is {ref / ours:.1f}x faster")
    print(f"  cache hit (same parameters): {hit * 1e3:.2f} ms")


def _sweep(tmp: Path) -> Path:
    ckpt = tmp / "ckpt"
    ckpt.mkdir()
    (ckpt / "config.json").write_text(json.dumps({"vocab_size": 32000, "eos_token_id": 2}))
    spec = {
        "name": "perf",
        "model": {"id": "meta-llama/Llama-3.1-8B-Instruct", "path": str(ckpt)},
        "trtllm": {"version": "1.2.0", "workflow": "pytorch"},
        "parallelism": {"tp": [1, 2, 4, 8]},
        "workloads": [{"isl": 128, "osl": 128, "num_requests": 200}],
        "settings": {"max_batch_size": [256, 2048], "max_num_tokens": [2048, 4096, 8192]},
        "run": {"timeout_s": 60, "output_dir": str(tmp / "out")},
    }
    path = tmp / "sweep.yaml"
    path.write_text(yaml.safe_dump(spec))
    return path


def bench_overhead(tmp: Path) -> None:
    os.environ["PATH"] = f"{FAKE_BIN}{os.pathsep}{os.environ['PATH']}"
    os.environ.pop("FAKE_TRTLLM_BEHAVIOUR", None)
    plan = sweep.load_plan(_sweep(tmp))
    assert len(plan.jobs) == JOBS
    t = time.perf_counter()
    provenance.capture(plan.sweep, plan.out_dir)
    probes = time.perf_counter() - t
    db = tmp / "runs.duckdb"
    t = time.perf_counter()
    summary = execute.run_plan(plan, db)
    total = time.perf_counter() - t
    assert summary.ok == JOBS, summary.failures
    # the engine alone: the same stand-in commands, started directly (dataset already written)
    t = time.perf_counter()
    for job in plan.jobs:
        argv = launch.job_steps(job, job.kv_fraction, tmp / "direct.json")[-1].argv
        subprocess.run(argv, stdout=subprocess.DEVNULL, check=True)
    engine_s = time.perf_counter() - t
    per_job = (total - engine_s - probes) / JOBS
    print(f"sweep of {JOBS} jobs with the stand-in engine: {total:.2f} s; the engine alone {engine_s:.2f} s")
    print(
        f"harness overhead per job: {per_job * 1e3:.0f} ms (target < {TARGET_OVERHEAD_MS:.0f} ms: "
        f"{'ok' if per_job * 1e3 < TARGET_OVERHEAD_MS else 'MISSED'}); provenance probes once: "
        f"{probes * 1e3:.0f} ms; vs a 60 s benchmark: {per_job / 60 * 100:.2f} %"
    )


def main() -> None:
    with tempfile.TemporaryDirectory() as d:
        bench_dataset(Path(d))
    with tempfile.TemporaryDirectory() as d:
        bench_overhead(Path(d))


if __name__ == "__main__":
    main()
