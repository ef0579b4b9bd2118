"""`make perf`: run every benchmark module ``tests/perf/bench_*.py`` (each has ``main()``) and print figures.

Benchmarks print measured figures and their targets; they are not pass/fail tests and are never collected
by pytest. Run one alone with ``python -m tests.perf NAME`` (e.g. ``ingest``).
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path


def main(argv: list[str]) -> None:
    here = Path(__file__).parent
    names = argv or sorted(p.stem.removeprefix("bench_") for p in here.glob("bench_*.py"))
    for name in names:
        print(f"\n=== perf: {name} ===", flush=True)
        importlib.import_module(f"tests.perf.bench_{name}").main()


if __name__ == "__main__":
    main(sys.argv[1:])
