"""A build's log is no terminal: DuckDB's Python client can draw a progress bar on stdout for a query of over
2 s (reading the site's runs at a million took 3.5 s and drew one into the build's output, carriage returns
and block characters), so the connections the build reads and writes through turn it off.

Asked in a process of its own whose stdout is a pipe, as a build's is: the client's default depends on
where it runs (on under a plain ``python`` writing to a pipe, off under pytest's capture)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

_ASK = """
import sys
from pathlib import Path
import duckdb
from site_gen.data import load, queries

def bar(con):
    return con.execute("SELECT current_setting('enable_progress_bar')").fetchall()[0][0]

folder = Path(sys.argv[1])
plain = duckdb.connect(str(folder / "plain.duckdb"))
print("plain", bar(plain))
plain.close()
con = queries._connect(folder / "plain.duckdb")
print("site", bar(con))
con.close()
with load.DbWriter(folder / "runs.duckdb") as writer:
    print("ingest", bar(writer.con))
"""


def test_the_builds_connections_draw_no_progress_bar_where_duckdb_would(tmp_path: Path) -> None:
    out = subprocess.run(
        [sys.executable, "-c", _ASK, str(tmp_path)], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split("\n")
    # the default this guards against, in this setting (were it off, the test would prove nothing)
    assert out[0] == "plain True", out
    assert out[1:3] == ["site False", "ingest False"], out
