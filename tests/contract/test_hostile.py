"""Hostile result files (issue 11): each is refused by `ingest` with one exact, located message, exit 1,
and the database it would have replaced stays byte-identical (no temporary file left beside it).

Each case is the hand-written valid file (tests/contract/data/valid.yaml) with one change; the expected
line is worked out by hand from that file (line numbers count from its first line).
"""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from bench.cli import app

FAR = (dt.date.today() + dt.timedelta(days=3)).isoformat()


def sub(old: str, new: str, count: int = 1) -> Callable[[str], bytes]:
    def go(text: str) -> bytes:
        assert text.count(old) >= count, old
        return text.replace(old, new, count).encode("utf-8")

    return go


# name: (change to valid.yaml, the exact line the terminal shows)
CASES: dict[str, tuple[Callable[[str], bytes], str]] = {
    # a NUL in a comment between the runs: the parser would stop there and keep 1 of the 2 runs
    "nul-between-runs": (
        sub("- parallelism:\n    tp: 2", "# x\0y\n- parallelism:\n    tp: 2"),
        "bad.yaml:32: expected text without control characters, got U+0000 at column 4",
    ),
    "escape-in-value": (
        sub("TestLab", "Test\x1b[31mLab"),
        "bad.yaml:8: expected text without control characters, got U+001B at column 20",
    ),
    "bell-in-key": (
        sub("  gpu_label:", "  gpu\x07_label:"),
        "bad.yaml:13: expected text without control characters, got U+0007 at column 6",
    ),
    "binary-tag": (
        sub("  label: Llama 3.1 8B", "  label: !!binary SGVsbG8="),
        "bad.yaml:21: expected plain YAML without tags, got tag !!binary",
    ),
    "custom-tag": (
        sub("  system: Test Cluster", "  system: !evil Test Cluster"),
        "bad.yaml:4: expected plain YAML without tags, got tag !evil",
    ),
    "num-requests-beyond-int32": (
        sub("num_requests: 30000", "num_requests: 3000000000"),
        "bad.yaml:29: runs.0.workload.num_requests: expected less than or equal to 2147483647, "
        "got int 3000000000",
    ),
    "gpu-count-beyond-int32": (
        sub("    tp: 1\n", "    tp: 65536\n    pp: 65536\n"),
        "bad.yaml:25: runs.0.parallelism: expected tp x pp (the GPU count) of at most 2147483647, "
        "got 65536 x 65536 = 4294967296",
    ),
    "ten-to-the-twenty": (
        sub("    isl: 128", "    isl: 100000000000000000000"),
        "bad.yaml:27: runs.0.workload.isl: expected less than or equal to 2147483647, "
        "got int 100000000000000000000",
    ),
    "infinite-stdev": (
        sub("    osl: 128\n", "    osl: 128\n    input_stdev: .inf\n"),
        "bad.yaml:29: runs.0.workload.input_stdev: expected a finite number, got float inf"
        " (YAML's .inf, or a number beyond ±1.8e308, the largest a double holds)",
    ),
    "nan-throughput": (
        sub("output_tokens_per_s: 29103.0", "output_tokens_per_s: .nan"),
        "bad.yaml:31: runs.0.metrics.output_tokens_per_s: expected a finite number, got float nan",
    ),
    "date-after-today": (
        sub("date: 2026-04-20", f"date: {FAR}"),
        f"bad.yaml:5: submission.date: expected a date not after today, got {FAR}",
    ),
    "year-9999": (
        sub("date: 2026-04-20", "date: 9999-12-31"),
        "bad.yaml:5: submission.date: expected a date not after today, got 9999-12-31",
    ),
    "newline-in-publisher": (
        sub("publisher: TestLab", 'publisher: "Test\\n| Lab |"'),
        "bad.yaml:8: submission.source.publisher: expected one line of text (no line break: the site "
        "shows it in tables), got str 'Test\\n| Lab |'",
    ),
    # issue 24: escapes that only parsing turns into control characters, checked on the parsed values
    "escaped-nul": (
        sub("publisher: TestLab", 'publisher: "Test\\0Lab"'),
        "bad.yaml:8: submission.source.publisher: expected text without control characters, "
        "got U+0000 at column 5",
    ),
    "escaped-ansi-colour": (
        sub("title: Test results table", 'title: "Test \\e[31mresults"'),
        "bad.yaml:9: submission.source.title: expected text without control characters, "
        "got U+001B at column 6",
    ),
    "escaped-osc8-link": (
        sub("  system: Test Cluster", '  system: "\\e]8;;https://evil.example\\e\\\\Test\\e]8;;\\e\\\\"'),
        "bad.yaml:4: submission.system: expected text without control characters, got U+001B at column 1",
    ),
    "escaped-next-line": (
        sub("  label: Llama 3.1 8B", '  label: "Llama\\x85 3.1"'),
        "bad.yaml:21: model.label: expected text without control characters, got U+0085 at column 6",
    ),
    "escaped-delete": (
        sub("  gpu_label: H200 141GB HBM3", '  gpu_label: "H200\\x7f"'),
        "bad.yaml:13: hardware.gpu_label: expected text without control characters, got U+007F at column 5",
    ),
    "escaped-vertical-tab": (
        sub("publisher: TestLab", 'publisher: "Test\\vLab"'),
        "bad.yaml:8: submission.source.publisher: expected text without control characters, "
        "got U+000B at column 5",
    ),
    "raw-line-separator": (
        sub("publisher: TestLab", "publisher: Test\u2028Lab"),
        "bad.yaml:8: submission.source.publisher: expected text without control characters, "
        "got U+2028 at column 5",
    ),
    "escaped-paragraph-separator": (
        sub("publisher: TestLab", 'publisher: "Test\\u2029Lab"'),
        "bad.yaml:8: submission.source.publisher: expected text without control characters, "
        "got U+2029 at column 5",
    ),
    # numbers YAML readers disagree on (yaml-rs reads 012 as 12, PyYAML as 10; 1_000 is text in YAML 1.2)
    "underscore-number": (
        sub("num_requests: 30000", "num_requests: 30_000"),
        "bad.yaml:29: expected a number in plain decimal digits (no '_', 0x, 0o, 0b or leading 0), got "
        "30_000 (YAML readers disagree on its value; quote it if it is text)",
    ),
    "hex-number": (
        sub("    isl: 128", "    isl: 0x80"),
        "bad.yaml:27: expected a number in plain decimal digits (no '_', 0x, 0o, 0b or leading 0), got "
        "0x80 (YAML readers disagree on its value; quote it if it is text)",
    ),
    "leading-zero": (
        sub("    isl: 128", "    isl: 0128"),
        "bad.yaml:27: expected a number in plain decimal digits (no '_', 0x, 0o, 0b or leading 0), got "
        "0128 (YAML readers disagree on its value; quote it if it is text)",
    ),
    "signed-leading-zero": (
        sub("    isl: 128", "    isl: -0128"),
        "bad.yaml:27: expected a number in plain decimal digits (no '_', 0x, 0o, 0b or leading 0), got "
        "-0128 (YAML readers disagree on its value; quote it if it is text)",
    ),
    # PyYAML's scanner stops at the tab; yaml-rs parses the file: the tag check must not fail open
    "binary-tag-after-tab": (
        sub("  label: Llama 3.1 8B", "  label:\t!!binary SGVsbG8="),
        "bad.yaml:21: expected plain YAML without tags, got '!!binary' where a tag may start (the file "
        "could not be scanned to tell a tag from text; quote the value)",
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_hostile_file_is_refused_with_its_location_and_the_database_is_untouched(
    case: str, results: Path, valid_text: str, tmp_path: Path, runner
) -> None:
    db = tmp_path / "build" / "llmbench.duckdb"
    assert runner.invoke(app, ["ingest", "--results", str(results), "--db", str(db)]).exit_code == 0
    before = db.read_bytes()
    change, expected = CASES[case]
    (results / "bad.yaml").write_bytes(change(valid_text))
    out = runner.invoke(app, ["ingest", "--results", str(results), "--db", str(db)])
    assert out.exit_code == 1, out.output
    assert expected in out.output.splitlines(), out.output
    assert db.read_bytes() == before
    assert sorted(p.name for p in db.parent.iterdir()) == [
        ".llmbench.duckdb.lock",
        "llmbench.duckdb",
    ]  # the lock stays (db_lock)


def test_control_characters_in_a_file_name_are_shown_escaped(results: Path, tmp_path: Path, runner) -> None:
    (results / "evil\x1b[2J.yaml").write_text("schema_version: [\n", encoding="utf-8")
    out = runner.invoke(app, ["validate", str(results)])
    assert out.exit_code == 1 and "\x1b" not in out.output
    assert "evil\\x1b[2J.yaml:1: invalid YAML" in out.output, out.output


def test_a_byte_order_mark_is_dropped(results: Path, valid_text: str, tmp_path: Path, runner) -> None:
    (results / "good" / "valid.yaml").write_bytes(b"\xef\xbb\xbf" + valid_text.encode())
    out = runner.invoke(app, ["validate", str(results)])
    assert out.exit_code == 0 and "1 file(s), 2 run(s)" in out.output, out.output


def test_folder_scans_report_every_entry_they_skip(results: Path, tmp_path: Path, runner) -> None:
    """Links, FIFOs, sockets and *.YAML are named with why, in validate and ingest; the runs still count."""
    import socket

    good = results / "good"
    (good / "dangling.yaml").symlink_to(good / "gone.yaml")
    (good / "loop.yaml").symlink_to(good / "loop.yaml")
    os.mkfifo(good / "pipe.yaml")
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(str(good / "sock.yaml"))
        (good / "upper.YAML").write_text("x", encoding="utf-8")
        (good / "upper.Yml").write_text("x", encoding="utf-8")
        (results / "sources").mkdir()
        (results / "sources" / "table.yaml").write_text("x", encoding="utf-8")  # documented: silent
        expected = [
            f"skipped {good}/dangling.yaml: dangling symbolic link (to {good}/gone.yaml)",
            f"skipped {good}/loop.yaml: symbolic link that cannot be resolved (a loop of links)",
            f"skipped {good}/pipe.yaml: not a regular file (FIFO)",
            f"skipped {good}/sock.yaml: not a regular file (socket)",
            f"skipped {good}/upper.YAML: suffix .YAML: result files end in lower-case .yaml or .yml",
            f"skipped {good}/upper.Yml: suffix .Yml: result files end in lower-case .yaml or .yml",
        ]
        out = runner.invoke(app, ["validate", str(results)])
        assert out.exit_code == 0, out.output
        assert out.output.splitlines() == [*expected, "ok: 1 file(s), 2 run(s)"]
        db = tmp_path / "llmbench.duckdb"
        out = runner.invoke(app, ["ingest", "--results", str(results), "--db", str(db)])
        assert out.exit_code == 0, out.output
        assert out.output.splitlines()[:-1] == expected
        assert out.output.splitlines()[-1].startswith("ingested 2 run(s) from 1 file(s)")


def test_a_symbolic_link_leaving_results_is_refused_and_the_database_is_untouched(
    results: Path, valid_text: str, tmp_path: Path, runner
) -> None:
    db = tmp_path / "build" / "llmbench.duckdb"
    assert runner.invoke(app, ["ingest", "--results", str(results), "--db", str(db)]).exit_code == 0
    before = db.read_bytes()
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "other.yaml").write_text(valid_text.replace("TestLab", "OtherLab"), encoding="utf-8")
    (results / "linked.yaml").symlink_to(outside / "other.yaml")
    (results / "linked-folder").symlink_to(outside)
    message = f"expected a file inside results/, got a symbolic link to {outside}"
    for argv in (["validate", str(results)], ["ingest", "--results", str(results), "--db", str(db)]):
        out = runner.invoke(app, argv)
        assert out.exit_code == 1, out.output
        lines = out.output.splitlines()
        assert f"{results}/linked-folder: {message} (outside it; copy the file in instead)" in lines, lines
        assert f"{results}/linked.yaml: {message}/other.yaml (outside it; copy the file in instead)" in lines
    assert db.read_bytes() == before
    assert sorted(p.name for p in db.parent.iterdir()) == [".llmbench.duckdb.lock", "llmbench.duckdb"]
