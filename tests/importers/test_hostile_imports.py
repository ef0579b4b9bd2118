"""Importers never lose or invent data (issue 24), checked from the outside on the committed sources.

- ``import-mlperf`` writes only the files it owns and never moves ``results/mlperf/`` aside: a CSV with no
  GPU row and a CSV of one round (v6.0 only) leave a copy of the committed folder byte-identical (sha256
  of every file); with ``--replace`` the one-round CSV removes exactly the other rounds' files and says so.
  Before the fix the first moved the folder to a hidden ``.mlperf.<pid>.old`` and crashed, the second
  deleted 134 of 213 files with exit 0.
- Both importers refuse an ambiguous CSV, each problem at the CSV's ``file:line``: a column named twice,
  a shifted row (more or fewer cells than the header), a row repeated word for word, a result ID of
  another system, a cell over the size limit, control characters, numbers not in ASCII digits.
"""

from __future__ import annotations

import csv
import io
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from bench.cli import app
from tests.contract.conftest import KISTI_CSV
from tests.faults.checks import digests

ROOT = Path(__file__).resolve().parents[2]
MLPERF_CSV = ROOT / "results" / "sources" / "mlperf" / "mlperf_inference_llm_results.csv"


@pytest.fixture
def results(tmp_path: Path) -> Path:
    """A copy of the committed results/mlperf/ (the folder the importer owns)."""
    shutil.copytree(ROOT / "results" / "mlperf", tmp_path / "results" / "mlperf")
    return tmp_path / "results"


def _csv(rows: list[list[str]], path: Path) -> Path:
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows(rows)
    path.write_text(buf.getvalue(), encoding="utf-8")
    return path


def _mlperf_rows(keep) -> list[list[str]]:
    with MLPERF_CSV.open(encoding="utf-8", newline="") as f:
        rows = list(csv.reader(f))
    head = rows[0]
    return [head] + [r for r in rows[1:] if keep(dict(zip(head, r, strict=True)))]


def _import(runner, csv_path: Path, results: Path, *extra: str):
    return runner.invoke(app, ["import-mlperf", str(csv_path), "--results", str(results), *extra])


def test_a_csv_with_no_gpu_row_changes_nothing(runner, results: Path, tmp_path: Path) -> None:
    src = _csv(_mlperf_rows(lambda r: r["accelerator"] == "N/A"), tmp_path / "cpu-only.csv")
    before = digests(results)
    out = _import(runner, src, results)
    assert out.exit_code == 1 and "yields no result file" in out.output, out.output
    assert digests(results) == before
    assert sorted(p.name for p in results.iterdir()) == ["mlperf"]  # nothing moved aside


def test_a_csv_of_one_round_removes_nothing_without_replace(runner, results: Path, tmp_path: Path) -> None:
    src = _csv(_mlperf_rows(lambda r: r["round"] == "v6.0"), tmp_path / "v6.csv")
    before = digests(results)
    others = sorted(str(p.relative_to(results)) for p in results.rglob("*.yaml") if p.parent.name != "v6.0")
    out = _import(runner, src, results)
    assert out.exit_code == 1, out.output
    assert f"does not hold {len(others):,} of the" in out.output and "--replace" in out.output
    assert digests(results) == before

    out = _import(runner, src, results, "--replace")
    assert out.exit_code == 0, out.output
    assert sorted(line.removeprefix(f"removed {results}/") for line in out.stdout.splitlines() if
                  line.startswith("removed ")) == others  # fmt: skip
    assert {p.parent.name for p in results.rglob("*.yaml")} == {"v6.0"}
    assert (results / "mlperf" / "v6.0").is_dir() and not (results / "mlperf" / "v4.1").exists()


def test_the_full_csv_again_rewrites_nothing(runner, results: Path) -> None:
    before = digests(results)
    out = _import(runner, MLPERF_CSV, results)
    assert out.exit_code == 0, out.output
    assert "wrote 0 file(s)" in out.output and "left untouched" in out.output
    assert digests(results) == before


def test_a_file_it_did_not_write_is_never_overwritten(runner, results: Path) -> None:
    victim = sorted(results.rglob("*.yaml"))[0]
    victim.write_text("schema_version: 1\nmine: true\n", encoding="utf-8")
    out = _import(runner, MLPERF_CSV, results)
    assert out.exit_code == 1 and "not an MLPerf result file this importer wrote" in out.output
    assert victim.read_text(encoding="utf-8") == "schema_version: 1\nmine: true\n"


def _kisti(tmp_path: Path, edit) -> Path:
    with KISTI_CSV.open(encoding="utf-8", newline="") as f:
        rows = list(csv.reader(f))[:4]  # header and 3 rows: CSV lines 1-4
    edit(rows)
    return _csv(rows, tmp_path / "t.csv")


def _col(name: str) -> int:
    with KISTI_CSV.open(encoding="utf-8", newline="") as f:
        return next(csv.reader(f)).index(name)


def cell(column: str, value: str) -> Callable[[list[list[str]]], None]:
    """An edit: CSV line 3's cell of ``column`` set to ``value``."""
    return lambda rows: rows[2].__setitem__(_col(column), value)


@pytest.mark.parametrize(
    ("edit", "says"),
    [
        (lambda r: r[0].__setitem__(_col("tp"), "value"), "t.csv:1: expected each column once, got value"),
        (lambda r: r[2].append("extra"), "t.csv:3: expected 22 cells (the header's), got 23"),
        (lambda r: r[3].pop(), "t.csv:4: expected 22 cells (the header's), got 21"),
        (lambda r: r.append(list(r[1])), "t.csv:5: expected a new row, got a repeat of line 2"),
        (cell("isl", "١٢٨"), "t.csv:3: isl: expected a whole number, got '١٢٨'"),
        (cell("isl", "1_28"), "t.csv:3: isl: expected a whole number, got '1_28'"),
        (cell("value", "0x10"), "t.csv:3: value: expected a number, got '0x10'"),
        (cell("system", "K\x1b[31m"), "t.csv:3: system: expected text without control characters"),
        (cell("system", "K\u2028x"), "t.csv:3: system: expected text without control characters"),
        (cell("system", "x" * 70_000), "t.csv:3: expected a CSV row, got field larger than field limit"),
    ],
)
def test_import_csv_refuses_an_ambiguous_csv(runner, tmp_path: Path, edit, says: str) -> None:
    src = _kisti(tmp_path, edit)
    out = runner.invoke(app, ["import-csv", str(src), "--results", str(tmp_path / "r")])
    assert out.exit_code == 1, out.output
    assert "Traceback" not in out.output
    assert says in out.output, out.output
    assert not (tmp_path / "r").exists()


def test_a_byte_order_mark_is_read_alike_by_both_importers(runner, tmp_path: Path) -> None:
    for cmd, source in (("import-csv", KISTI_CSV), ("import-mlperf", MLPERF_CSV)):
        src = tmp_path / f"bom-{source.name}"
        src.write_bytes(b"\xef\xbb\xbf" + source.read_bytes())
        out = runner.invoke(app, [cmd, str(src), "--results", str(tmp_path / cmd), "--dry-run"])
        assert out.exit_code == 0, out.output


def test_import_mlperf_refuses_a_result_id_of_another_system(runner, tmp_path: Path) -> None:
    rows = _mlperf_rows(lambda r: r["round"] == "v5.1")
    head = rows[0]
    rid, system = head.index("result_id"), head.index("system_id")
    other = next(i for i, r in enumerate(rows[2:], 2) if r[system] != rows[1][system])
    rows[other][rid] = rows[1][rid]
    out = _import(runner, _csv(rows, tmp_path / "ids.csv"), tmp_path / "r")
    assert out.exit_code == 1, out.output
    assert f"ids.csv:{other + 1}: result_id: expected the ID of this system, not of line 2's" in out.output


def test_a_problem_in_a_built_file_names_the_csv_line(runner, tmp_path: Path) -> None:
    """A value the file check refuses is reported at the CSV row it came from, not at a YAML never
    written (a system name with a line break: one line in the CSV's quoted cell, a Markdown-breaking
    field in the file)."""
    rows = _mlperf_rows(lambda r: r["round"] == "v5.1")
    col = rows[0].index("system_name")
    rows[3][col] = "two\nlines"
    out = _import(runner, _csv(rows, tmp_path / "nl.csv"), tmp_path / "r")
    assert out.exit_code == 1, out.output
    assert "nl.csv:4: runs." in out.output and "as it would be written" in out.output, out.output
