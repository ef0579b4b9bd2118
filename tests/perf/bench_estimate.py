"""`make perf` benchmark: AIConfigurator estimate generation (``bench.engines.estimate``), issue 28.

Three figures, each with the performance-data version passed explicitly (as every estimate is made):

- AIConfigurator calls per second on one core, a call being one ``cli_estimate`` point (Llama 3.1 8B FP8
  on an H200 at TP 1, 128/128, batch 2048, 8,192 context tokens), after one warm-up call that loads the
  system's data;
- estimates per second through ``estimate_many`` (each a max-throughput search of up to 7 points) for a
  small grid with ``--workers 2``, no cache;
- the same grid again from the cache it wrote (a rerun computes nothing).

Target on the 2-core machine: 20 calls/s or more (the issue: "about 0.05 s a call with the version
explicit"). Not a pass/fail test; skipped with a line when AIConfigurator is not installed.
``python -m tests.perf estimate`` runs it alone.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

TARGET_CALLS_S = 20.0
CALLS = 40


def main() -> None:
    from bench.engines import estimate as est
    from bench.errors import UserError

    try:
        aic, _ = est.versions()
    except UserError as e:
        print(f"skipped: {e}")
        return
    c = est.Config("H200 SXM 141GB", "meta-llama/Llama-3.1-8B-Instruct", "FP8", isl=128, osl=128)
    pv = est.perf_data_version("h200_sxm", "trtllm")
    args, _ = est.point_args(c, pv, 2048, 8192)
    t0 = time.perf_counter()
    est.run_point(args)
    first = time.perf_counter() - t0
    t0 = time.perf_counter()
    for _ in range(CALLS):
        out = est.run_point(args)
    per_s = CALLS / (time.perf_counter() - t0)
    print(f"AIConfigurator {aic}, h200_sxm/trtllm data {pv} (passed explicitly)")
    print(f"first call (loads the system's data): {first:.2f} s")
    print(f"calls per second, one core: {per_s:.1f} (target >= {TARGET_CALLS_S:g})")
    # the issue's own CLI call (aiconfigurator cli estimate ... --batch-size 2048 --ctx-tokens 8192) printed
    # 30,372 tok/s/GPU: the same arguments through the API give the same figure
    print(
        f"Llama 3.1 8B FP8, H200, TP 1, 128/128, batch 2048, 8,192 tokens: {out['tokens_per_s_per_gpu']:,.0f}"
    )
    tasks = [
        est.Task(est.Config(gpu, "meta-llama/Llama-3.1-8B-Instruct", "FP8", tp=tp, isl=i, osl=o))
        for gpu in ("H100 SXM 80GB", "H200 SXM 141GB")
        for tp in (1, 2)
        for i, o in ((128, 128), (1000, 1000), (128, 2048))
    ]
    with tempfile.TemporaryDirectory() as tmp:
        cache = est.Cache(Path(tmp) / "cache.jsonl")
        t0 = time.perf_counter()
        done = list(est.estimate_many(tasks, cache, workers=2))
        cold = time.perf_counter() - t0
        t0 = time.perf_counter()
        list(est.estimate_many(tasks, est.Cache(Path(tmp) / "cache.jsonl"), workers=2))
        warm = time.perf_counter() - t0
    ok = sum("error" not in o for _, o in done)
    print(f"grid of {len(tasks)} max-throughput estimates ({ok} modelled), --workers 2: {cold:.1f} s, "
          f"{len(tasks) / cold:.2f} estimates/s; rerun from the cache: {warm:.2f} s")  # fmt: skip
    _whole_grid(len(tasks) / cold)


def _whole_grid(rate: float) -> None:
    """The committed grid (`make estimates`: every spec of bench/data/estimate_grid/) at the rate just
    measured: its task count read from the specs, its time projected, not run (it takes minutes)."""
    from bench.engines import estimate_spec

    root = Path(__file__).resolve().parents[2] / "bench/data/estimate_grid"
    counts = {
        p.name: len(estimate_spec.tasks(estimate_spec.load_spec(p))) for p in sorted(root.glob("*.yaml"))
    }
    total = sum(counts.values())
    print("the whole committed grid: " + ", ".join(f"{k} {v}" for k, v in counts.items()))
    print(
        f"  {total} max-throughput estimates: about {total / rate / 60:.1f} min at the rate above, no cache"
    )
