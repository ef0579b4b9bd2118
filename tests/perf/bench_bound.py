"""`make perf` benchmark: the speed-of-light columns for 100,000 runs (``site_gen.data.bound.add_columns``).

The bound is computed once per distinct configuration and joined back in SQL, so its cost follows the
number of configurations, not of runs. Builds an in-memory DuckDB ``runs`` table of 100,000 synthetic runs
over about 1,000 configurations and times ``add_columns``; target on the 2-core machine: < 1 s.
Not a pass/fail test. ``python -m tests.perf bound`` runs it alone.
"""

from __future__ import annotations

import itertools
import time

RUNS = 100_000
TARGET_S = 1.0
GPUS = ["H100 SXM 80GB", "H200 SXM 141GB", "B200 180GB", "A100 SXM4 80GB", "GB200 186GB"]
MODELS = ["meta-llama/Llama-3.1-8B-Instruct", "meta-llama/Llama-3.3-70B-Instruct", "Qwen/Qwen3-30B-A3B",
          "openai/gpt-oss-120b", "deepseek-ai/DeepSeek-R1-0528"]  # fmt: skip
WORKLOADS = [(128, 128), (128, 2048), (2048, 128), (1024, 1024), (1024, 8192), (8192, 1024), (500, 2000),
             (5000, 500)]  # fmt: skip
PRECISIONS = ["FP8", "FP16"]
TP = [1, 2, 4, 8]


def _table(con: object) -> int:
    import pandas as pd

    configs = list(itertools.product(GPUS, MODELS, PRECISIONS, WORKLOADS, TP))
    rows = [configs[i % len(configs)] for i in range(RUNS)]
    df = pd.DataFrame(
        {
            "gpu": [r[0] for r in rows],
            "model": [r[1] for r in rows],
            "precision": [r[2] for r in rows],
            "kv_cache_dtype": [None] * RUNS,
            "isl": [r[3][0] for r in rows],
            "osl": [r[3][1] for r in rows],
            "n_gpus": [r[4] for r in rows],
            "concurrency": pd.array([None] * RUNS, dtype="Int64"),
            "num_requests": [3000] * RUNS,
            "output_tps": [1000.0 + i % 997 for i in range(RUNS)],
        }
    )
    con.register("df", df)  # type: ignore[attr-defined]
    con.execute("CREATE TABLE runs AS SELECT * FROM df")  # type: ignore[attr-defined]
    return len(configs)


def main() -> None:
    import duckdb

    from site_gen.data import bound

    con = duckdb.connect()
    n_configs = _table(con)
    t = time.perf_counter()
    bound.add_columns(con)
    elapsed = time.perf_counter() - t
    filled = con.execute("SELECT count(bound_output_tps) FROM runs").fetchone()[0]
    print(
        f"add_columns: {RUNS:,} runs, {n_configs:,} configurations, {filled:,} bounds in {elapsed:.3f} s "
        f"({RUNS / elapsed:,.0f} runs/s); target < {TARGET_S} s: {'ok' if elapsed < TARGET_S else 'MISSED'}"
    )


if __name__ == "__main__":
    main()
