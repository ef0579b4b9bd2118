"""Reading a CSV of published figures strictly, for both importers (import-csv and import-mlperf).

A CSV that could be read two ways is refused rather than guessed at, each problem as ``file:line``:
a column named twice (which one would win?), a row with more or fewer cells than the header (a shifted
row puts every figure in the wrong column), a row repeated word for word, a cell over the size limit,
control or line-separator characters in a cell, text that is not UTF-8. A byte-order mark is dropped by
both importers alike. Numbers are read with ``number``/``whole``: ASCII digits only (``float('١٢٨')`` and
``int('1_28')`` are numbers to Python, never to a table of figures).
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass
from pathlib import Path

from bench.contract.problems import Problem
from bench.contract.textcheck import bad_character
from bench.errors import ProblemsError, UserError

MAX_CELL_CHARS = 65_536  # the longest real cell (a notes column) is ~2 KB
MAX_CSV_BYTES = 64 * 1024 * 1024
_WHOLE = re.compile(r"^[+-]?[0-9]+$")
_NUMBER = re.compile(r"^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?$")


@dataclass(frozen=True)
class Row:
    """One data row: the line it starts on (a quoted cell may span lines) and its cells by column."""

    line: int
    values: dict[str, str]


def read(path: Path, required: tuple[str, ...] = (), known: tuple[str, ...] | None = None) -> list[Row]:
    """The rows of ``path``; every problem of the file at once as a ``ProblemsError`` (nothing read).

    ``required``: columns that must be there; ``known``: if given, the only columns allowed (a typo in a
    header would otherwise drop its column silently).
    """
    name = str(path)
    text = _text(path)
    previous = csv.field_size_limit(MAX_CELL_CHARS)  # process-wide: put back below
    try:
        return _rows(name, text, required, known)
    finally:
        csv.field_size_limit(previous)


def _rows(name: str, text: str, required: tuple[str, ...], known: tuple[str, ...] | None) -> list[Row]:
    reader = csv.reader(text.splitlines(keepends=True), strict=True)
    problems: list[Problem] = []
    try:
        header = next(reader, [])
    except csv.Error as e:
        raise UserError(f"{name}:1: expected a CSV header, got {e}") from None
    problems += _header_problems(name, header, required, known)
    rows: list[Row] = []
    seen: dict[tuple[str, ...], int] = {}
    start = reader.line_num + 1
    while True:
        try:
            cells = next(reader)
        except StopIteration:
            break
        except csv.Error as e:  # a cell over the limit, a stray quote
            problems.append(Problem(name, reader.line_num, "", f"expected a CSV row, got {e}"))
            break
        line, start = start, reader.line_num + 1
        if not any(cells):
            continue  # a blank line
        problems += _row_problems(name, line, header, cells, seen)
        seen.setdefault(tuple(cells), line)
        rows.append(Row(line, dict(zip(header, cells, strict=False))))
    if problems:
        raise ProblemsError(problems, f"in {name}; nothing written")
    return rows


def _text(path: Path) -> str:
    try:
        if path.stat().st_size > MAX_CSV_BYTES:
            raise UserError(f"{path}: expected a CSV of at most {MAX_CSV_BYTES:,} bytes; not read")
        return path.read_bytes().decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise UserError(f"{path}: expected UTF-8 text ({e.reason} at byte {e.start})") from None
    except OSError as e:
        raise UserError(f"{path}: {e.strerror or e}") from None


def _header_problems(
    name: str, header: list[str], required: tuple[str, ...], known: tuple[str, ...] | None
) -> list[Problem]:
    out = []
    twice = sorted({c for c in header if header.count(c) > 1})
    if twice:
        out.append(Problem(name, 1, "", f"expected each column once, got {', '.join(twice)} more than once"))
    unknown = [c for c in header if known is not None and c not in known]
    missing = [c for c in required if c not in header]
    parts = [f"unknown column(s) {', '.join(unknown)}"] if unknown else []
    parts += [f"missing column(s) {', '.join(missing)}"] if missing else []
    if parts:
        expected = f"; expected columns: {', '.join(known)}" if known is not None else ""
        out.append(Problem(name, 1, "", "; ".join(parts) + expected))
    return out


def _row_problems(
    name: str, line: int, header: list[str], cells: list[str], seen: dict[tuple[str, ...], int]
) -> list[Problem]:
    out = []
    if len(cells) != len(header):
        out.append(Problem(name, line, "", f"expected {len(header)} cells (the header's), got {len(cells)}"))
    if tuple(cells) in seen:
        out.append(Problem(name, line, "", f"expected a new row, got a repeat of line {seen[tuple(cells)]}"))
    for column, cell in zip(header, cells, strict=False):
        bad = bad_character(cell, multiline=True)
        if bad:
            out.append(Problem(name, line, column, f"expected text without control characters, got {bad}"))
    return out


def whole(text: str) -> int | None:
    """``text`` as a whole number in ASCII digits, or None."""
    t = text.strip()
    return int(t) if _WHOLE.match(t) else None


def number(text: str) -> float | None:
    """``text`` as a decimal number in ASCII (``1.5``, ``2.49431e+06``), or None (``inf``, ``0x10`` ...)."""
    t = text.strip()
    return float(t) if _NUMBER.match(t) else None
