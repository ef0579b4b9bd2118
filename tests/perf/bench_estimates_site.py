"""What the estimates cost the site (issue 28; ``make perf`` / ``python -m tests.perf estimates_site``):
the full build of today's results with and without AIConfigurator's estimates in the explorer pages
(mkdocs.yml ``extra.estimates_in_explorer``, env ``LLMBENCH_SITE_ESTIMATES``), and the explorer's data
file in bytes, raw and gzip (what a reader downloads), as one table.

Builds alternate (with, without, with, ...) so that a machine busy with something else slows both alike;
the table gives each side's best time (the least disturbed build) and every time measured. The estimates
are ingested either way (their own table; the accuracy page and run cards read it), so the difference is
what shipping them to the explorer pages costs.
"""

from __future__ import annotations

import gzip
import os
import re
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from tests.site.conftest import ROOT

ENV = "LLMBENCH_SITE_ESTIMATES"


@dataclass
class Side:
    label: str
    env: str  # the value of LLMBENCH_SITE_ESTIMATES
    seconds: list[float] = field(default_factory=list)
    raw: int = 0  # the explorer's data file, bytes
    gz: int = 0  # the same, gzip level 9 (a static server's precompressed file)
    rows: int = 0  # rows in it (runs, and estimates when on)


def explorer_data(site: Path) -> Path:
    """The explorer page's data file (its scope's data-lb-src)."""
    html = (site / "explorer.html").read_text(encoding="utf-8")
    m = re.search(r'class="lb-scope lb-explorer"[^>]*data-lb-src="([^"]+)"', html)
    if not m:
        raise SystemExit("explorer.html has no explorer scope with a data file")
    return site / m.group(1)


def build_once(side: Side, work: Path) -> Path:
    """One build of today's results with the side's setting; its folder (site/ and the database)."""
    from site_gen.site.build import build_site

    before = os.environ.get(ENV)
    os.environ[ENV] = side.env
    try:
        folder = work / f"{side.env}-{len(side.seconds)}"
        folder.mkdir()
        t = time.perf_counter()
        build_site(ROOT / "results", folder / "llmbench.duckdb", folder / "site", ROOT / "mkdocs.yml")
        side.seconds.append(time.perf_counter() - t)
        data = explorer_data(folder / "site").read_bytes()
        side.raw, side.gz = len(data), len(gzip.compress(data, 9))
        side.rows = _count_rows(folder, side.env == "true")
        return folder
    finally:
        if before is None:
            os.environ.pop(ENV, None)
        else:
            os.environ[ENV] = before


def _count_rows(folder: Path, with_estimates: bool) -> int:
    """Rows the explorer lists with every kind chosen: runs plus the estimates shipped (from DuckDB)."""
    import duckdb

    with duckdb.connect(str(folder / "llmbench.duckdb"), read_only=True) as con:
        runs = con.execute("SELECT count(*) FROM runs").fetchone()[0]
        est = con.execute("SELECT count(*) FROM estimates").fetchone()[0]
    return runs + est if with_estimates else runs


def table(sides: list[Side]) -> str:
    head = (
        "| estimates in the explorer | build, best (s) | builds (s) | explorer rows | data (bytes) |"
        " gzip (bytes) |"
    )
    lines = [head, "|---|--:|---|--:|--:|--:|"]
    for s in sides:
        times = ", ".join(f"{t:.1f}" for t in s.seconds)
        lines.append(f"| {s.label} | {min(s.seconds):.1f} | {times} | {s.rows:,} | {s.raw:,} | {s.gz:,} |")
    on, off = sides
    lines.append(
        f"| difference | {min(on.seconds) - min(off.seconds):+.1f} | | {on.rows - off.rows:+,} |"
        f" {on.raw - off.raw:+,} ({on.raw / off.raw - 1:+.1%}) |"
        f" {on.gz - off.gz:+,} ({on.gz / off.gz - 1:+.1%}) |"
    )
    return "\n".join(lines)


def main(repeats: int = 2, keep: Path | None = None) -> None:
    """``repeats`` builds a side; ``keep``: where to copy the first site built with estimates (to look at)."""
    sides = [Side("on (default)", "true"), Side("off", "false")]
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(repeats):
            for side in sides:
                folder = build_once(side, Path(tmp))
                print(f"[estimates {side.env}] build {side.seconds[-1]:.1f} s", flush=True)
                if keep and side.env == "true" and not keep.exists():
                    shutil.copytree(folder / "site", keep)
    print(table(sides))


if __name__ == "__main__":
    # python -m tests.perf.bench_estimates_site [REPEATS [KEEP_SITE_DIR]]
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2, Path(sys.argv[2]) if len(sys.argv) > 2 else None)
