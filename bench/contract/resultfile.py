"""Read, check and write result files (``results/**/*.yaml``) against ``bench.contract.schema``.

``check_file`` never raises on bad input: it returns every problem it finds as a ``Problem`` that prints as
``file:line: field.path: expected X, got Y``. It refuses oversized files before reading them, non-UTF-8
bytes, YAML syntax errors, alias bombs and duplicate keys (yaml-rs limits), schema violations and names the
registries do not know. ``find_duplicates`` reports runs that repeat the same source and configuration
across files. ``write_file`` validates first, then writes to a temporary file and renames it into place.
"""

from __future__ import annotations

import contextlib
import errno
import gc
import hashlib
import os
import re
import stat
import tempfile
import unicodedata
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from itertools import repeat
from pathlib import Path
from typing import Any

import yaml
import yaml_rs
from pydantic import ValidationError

from bench.contract import quality, registry
from bench.contract.children import die_with_parent
from bench.contract.problems import LineMap, Problem, validation_problem, yaml_problem
from bench.contract.runid import run_id, run_ids
from bench.contract.schema import (
    MlperfResultFile,
    ResultFile,
    dict_validator,
    is_mlperf,
    mlperf_dict_validator,
)
from bench.contract.textcheck import bad_strings
from bench.errors import UserError

__all__ = ["Problem", "run_id", "run_ids"]  # re-exported: callers import them from here

MAX_FILE_BYTES = 8 * 1024 * 1024  # the largest real submission is ~100 KB; 8 MB leaves room, stops abuse
# A result file has no reason to use anchors at all; 100k replayed events stops a "billion laughs" early.
_ALIAS_LIMITS = yaml_rs.AliasLimits(max_total_replayed_events=100_000)


@dataclass(frozen=True)
class Checked:
    """The outcome of checking one file: the parsed model (None if invalid) and its problems."""

    file: str
    result: ResultFile | MlperfResultFile | None
    problems: list[Problem]


def _parse_yaml(text: str) -> Any:
    return yaml_rs.loads(text, alias_limits=_ALIAS_LIMITS)


def _read_text(path: Path, name: str) -> tuple[str | None, Problem | None]:
    try:
        size = path.stat().st_size
    except OSError as e:
        return None, Problem(name, None, "", f"expected a readable result file, got {e.strerror or e}")
    if not path.is_file():
        return None, Problem(name, None, "", "expected a result file, got a directory or special file")
    if size > MAX_FILE_BYTES:
        msg = f"expected a result file of at most {MAX_FILE_BYTES:,} bytes, got {size:,} bytes (not read)"
        return None, Problem(name, None, "", msg)
    data = path.read_bytes()  # size checked first: an oversized file is never read
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data[: e.start].count(b"\n") + 1
        return None, Problem(name, line, "", f"expected UTF-8 text, got byte 0x{data[e.start]:02x}")
    if not text.strip():
        return None, Problem(
            name, 1, "", "expected a result mapping (schema_version, ...), got an empty file"
        )
    return text, None


# C0 controls but TAB, LF and CR; DEL; C1 controls. NUL matters most: the YAML parser stops at it and
# silently drops the rest of the file.
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
_BOM = "\ufeff"


def _control_problem(text: str, name: str) -> Problem | None:
    m = _CONTROL.search(text)
    if not m:
        return None
    line = text.count("\n", 0, m.start()) + 1
    col = m.start() - (text.rfind("\n", 0, m.start()) + 1) + 1
    return Problem(
        name,
        line,
        "",
        f"expected text without control characters, got U+{ord(m.group()):04X} at column {col}",
    )


def _tag_problem(text: str, name: str) -> Problem | None:
    """YAML tags (``!!binary``, ``!custom``) are refused: the parser would drop or reinterpret them."""
    if "!" not in text:  # the scan below costs time; most files have no '!' at all
        return None
    try:
        for token in yaml.scan(text, Loader=yaml.SafeLoader):
            if isinstance(token, yaml.TagToken):
                handle, suffix = token.value
                line = token.start_mark.line + 1
                return Problem(
                    name, line, "", f"expected plain YAML without tags, got tag {handle or ''}{suffix}"
                )
    except yaml.YAMLError:
        return _tag_like(text, name)  # fail closed: yaml-rs may still parse what PyYAML could not scan
    return None


# A '!' where a tag could start: at a line's start, after blanks or a flow indicator.
_TAG_START = re.compile(r"(?:^|[\s\[{,])(![^\s]*)", re.M)


def _tag_like(text: str, name: str) -> Problem | None:
    m = _TAG_START.search(text)
    if m is None:
        return None
    line = text.count("\n", 0, m.start(1)) + 1
    return Problem(
        name,
        line,
        "",
        f"expected plain YAML without tags, got {m.group(1)!r} where a tag may start "
        "(the file could not be scanned to tell a tag from text; quote the value)",
    )


# Plain scalars that YAML readers turn into numbers differently (1_000, 0x10, 0o17, 0b11, 012: 12 to
# yaml-rs, 10 to PyYAML): a figure must be written so that every reader sees the same number.
_ODD_NUMBER = re.compile(r"^[-+]?(0[xXoObB][0-9a-fA-F_]+|[0-9][0-9_]*_[0-9_]*(\.[0-9_]*)?|0[0-9]+)$")
# Where one may be: a digit on each side of "_", 0x/0o/0b, or a leading 0 that starts a value (not after
# a word character, ".", ":", "/" or "-"; after "-" only as a sign). Each pattern opens with a literal,
# which re finds at C speed before it looks behind: as one alternation led by a lookbehind, the search
# took 0.8 ms of a 22 kB file, a fifth of checking it (ingest of a million runs: ~7 CPU-s).
_ODD_NUMBER_HINTS = (
    re.compile(r"_(?<=[0-9]_)[0-9]"),
    re.compile(r"0[xXoObB][0-9a-fA-F]"),
    re.compile(r"0(?<![\w.:/-]0)[0-9]+\s*(?:$|[,\]}#])", re.M),
    re.compile(r"-0(?<![\w.:/-]-0)[0-9]+\s*(?:$|[,\]}#])", re.M),
)


def _number_problem(text: str, name: str) -> Problem | None:
    if not any(hint.search(text) for hint in _ODD_NUMBER_HINTS):  # the scan below costs time
        return None
    try:
        for token in yaml.scan(text, Loader=yaml.SafeLoader):
            if isinstance(token, yaml.ScalarToken) and token.plain and _ODD_NUMBER.match(token.value):
                return Problem(
                    name,
                    token.start_mark.line + 1,
                    "",
                    f"expected a number in plain decimal digits (no '_', 0x, 0o, 0b or leading 0), "
                    f"got {token.value} (YAML readers disagree on its value; quote it if it is text)",
                )
    except yaml.YAMLError:
        return None  # a syntax error: the parser below reports it with its own location
    return None


def _value_problem(text: str, data: dict[str, Any], name: str) -> Problem | None:
    """Control characters that only parsing makes (``"\\e"``, ``"\\x85"``), or raw line separators."""
    if "\\" not in text and "\u2028" not in text and "\u2029" not in text:
        return None  # no escape and no separator: nothing to find (the raw check ran already)
    for loc, what in bad_strings(data):
        line = LineMap(text).line(loc)
        if line is None:  # PyYAML counts U+2028 as a line break and loses the place: find it in the text
            at = min((i for i in (text.find("\u2028"), text.find("\u2029")) if i >= 0), default=0)
            line = text.count("\n", 0, at) + 1
        field = ".".join(map(str, loc))
        return Problem(name, line, field, f"expected text without control characters, got {what}")
    return None


def parse(text: str, name: str, check_values: bool = True) -> tuple[Any, Problem | None]:
    """YAML text -> Python data, or a located syntax problem (duplicate keys and alias bombs included).

    A UTF-8 byte-order mark is dropped; control characters other than TAB/CR/LF, YAML tags and numbers
    YAML readers disagree on are refused; with ``check_values`` also control characters and line
    separators that only parsing makes (escapes), in any string (a caller with checks of its own per field,
    like the sweep model, turns it off).
    """
    text = text.removeprefix(_BOM)
    problem = _control_problem(text, name) or _tag_problem(text, name) or _number_problem(text, name)
    if problem:
        return None, problem
    try:
        data = _parse_yaml(text)
    except Exception as e:  # yaml_rs raises YAMLDecodeError and, on limits, other errors
        return None, yaml_problem(name, str(e) or type(e).__name__, text)
    if not isinstance(data, dict):
        got = "an empty document" if data is None else type(data).__name__
        return None, Problem(name, 1, "", f"expected a mapping at the top (schema_version, ...), got {got}")
    problem = _value_problem(text, data, name) if check_values else None
    return (None, problem) if problem else (data, None)


def check_file(path: Path, root: Path | None = None) -> Checked:
    """Check one result file completely; never raises on bad content."""
    name = str(path.relative_to(root)) if root and path.is_relative_to(root) else str(path)
    text, problem = _read_text(path, name)
    if problem:
        return Checked(name, None, [problem])
    assert text is not None
    return check_text(text, name)


def check_text(text: str, name: str) -> Checked:
    """Check result-file text (already read) and return the model and every problem."""
    data, problem = parse(text, name)
    if problem:
        return Checked(name, None, [problem])
    try:
        result = (MlperfResultFile if is_mlperf(data) else ResultFile).model_validate(data)
    except ValidationError as e:
        return Checked(name, None, _all_problems(name, e, data, LineMap(text)))
    lines = LineMap(text)
    problems = _registry_problems(name, _names(data), lines)
    if not problems:  # figures above physical sense (bench/contract/quality.py), on the parsed values
        problems = quality.run_problems(result.model_dump(), name, lines)
    return Checked(name, None if problems else result, problems)


def check_data(text: str, name: str) -> tuple[dict[str, Any] | None, list[Problem]]:
    """Like ``check_text`` but returns the validated data as plain dicts (defaults filled), not a model.

    The fast path for bulk checks (``check_many``): same problems, same messages, about twice as fast.
    """
    data, problem = parse(text, name)
    if problem:
        return None, [problem]
    try:
        valid = (mlperf_dict_validator() if is_mlperf(data) else dict_validator()).validate_python(data)
    except ValidationError as e:
        return None, _all_problems(name, e, data, LineMap(text))
    lines = LineMap(text)
    problems = _registry_problems(name, _names(data), lines)
    if not problems:
        problems = quality.run_problems(valid, name, lines)
    return (None if problems else valid), problems


def _all_problems(name: str, e: ValidationError, data: dict[str, Any], lines: LineMap) -> list[Problem]:
    """Schema problems, and unknown GPU or model names too (where those fields are strings), in line order."""
    problems = [validation_problem(name, err, lines) for err in e.errors()]
    problems += _registry_problems(name, _names(data), lines)
    return sorted(problems, key=lambda p: p.line or 0)


def _get(data: Any, *keys: str | int) -> Any:
    """``data[k1][k2]...``, or None where a key is missing or a level is not a mapping or list."""
    for k in keys:
        if isinstance(k, str) and not (isinstance(data, dict) and k in data):
            return None
        if isinstance(k, int) and not (isinstance(data, list) and k < len(data)):
            return None
        data = data[k]
    return data


def _names(data: dict[str, Any]) -> list[tuple[str, Any, tuple[str | int, ...]]]:
    """The registry names a file uses: (kind, value, location); a schema_version 2 (MLPerf) file names its
    accelerator once and a model per run."""
    out: list[tuple[str, Any, tuple[str | int, ...]]] = [
        ("GPU", _get(data, "hardware", "gpu"), ("hardware", "gpu"))
    ]
    if is_mlperf(data):
        runs = data.get("runs")
        for i in range(len(runs) if isinstance(runs, list) else 0):
            out.append(("model", _get(runs, i, "model"), ("runs", i, "model")))
    else:
        out.append(("model", _get(data, "model", "id"), ("model", "id")))
    return out


def _registry_problems(
    name: str, names: list[tuple[str, Any, tuple[str | int, ...]]], lines: LineMap
) -> list[Problem]:
    out = []
    indexes = {"GPU": registry.gpus(), "model": registry.models()}
    for kind, value, loc in names:
        index = indexes[kind]
        if isinstance(value, str) and index.find(value) is None:
            near = index.suggest(value)
            hint = f"; closest known: {', '.join(near)}" if near else ""
            msg = f"expected a known {kind} (see bench/data), got {value!r}{hint}"
            out.append(Problem(name, lines.line(loc), ".".join(map(str, loc)), msg))
    return out


RESULT_SUFFIXES = (".yaml", ".yml")
SOURCES_DIR = "sources"  # results/sources/: the published tables results were imported from, not results


@dataclass(frozen=True)
class Skipped:
    """An entry a folder scan passed over, and why (shown by validate and ingest, never silent)."""

    path: Path
    why: str

    def __str__(self) -> str:
        return f"skipped {self.path}: {self.why}"


@dataclass
class Scan:
    """What a scan found: result files to check, entries skipped with why, and links refused (problems)."""

    files: list[Path]
    skipped: list[Skipped]
    problems: list[Problem]


def scan(paths: Iterable[Path]) -> Scan:
    """Every ``*.yaml``/``*.yml`` under the given files and folders, sorted; never ``*.json`` (the schema).

    Hidden files and folders (.git, editors' swap files, our own .tmp files) and a top-level ``sources/``
    (the published tables results are imported from) are left out silently, as are other files (README,
    the schema). Everything else passed over is reported in ``skipped``: dangling or looping symbolic
    links, FIFOs, sockets and devices, ``*.YAML``-style case variants, links to folders, unreadable
    folders. A symbolic link that leads out of the folder scanned is a problem: results are files in it.
    A named file that does not exist is listed anyway, so that checking it reports it.
    """
    out = Scan([], [], [])
    for p in paths:
        if p.is_dir():
            _scan_dir(p, p, p.resolve(), out)
        elif p.suffix in RESULT_SUFFIXES and p.exists() and not p.is_file():
            out.skipped.append(Skipped(p, f"not a regular file ({_kind(p)})"))
        elif p.suffix in RESULT_SUFFIXES or not p.exists():
            out.files.append(p)
    out.files.sort()
    return out


def iter_result_files(paths: Iterable[Path]) -> Iterator[Path]:
    """The result files of ``scan`` (its skipped entries and refused links left aside)."""
    yield from scan(paths).files


def _kind(p: Path) -> str:
    mode = p.lstat().st_mode
    for test, name in ((stat.S_ISFIFO, "FIFO"), (stat.S_ISSOCK, "socket"), (stat.S_ISCHR, "device")):
        if test(mode):
            return name
    return "device" if stat.S_ISBLK(mode) else "not a file or folder"


def _scan_dir(folder: Path, top: Path, root: Path, out: Scan) -> None:
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError as e:
        out.skipped.append(Skipped(folder, f"unreadable folder ({e.strerror or e})"))
        return
    for entry in entries:
        path = folder / entry.name
        if entry.name.startswith(".") or (folder == top and entry.name == SOURCES_DIR):
            continue
        if entry.is_symlink():
            _scan_link(path, root, out)
        elif entry.is_dir(follow_symlinks=False):
            _scan_dir(path, top, root, out)
        elif not entry.is_file(follow_symlinks=False):
            out.skipped.append(Skipped(path, f"not a regular file ({_kind(path)})"))
        elif path.suffix in RESULT_SUFFIXES:
            out.files.append(path)
        elif path.suffix.lower() in RESULT_SUFFIXES:
            out.skipped.append(
                Skipped(path, f"suffix {path.suffix}: result files end in lower-case .yaml or .yml")
            )


def _scan_link(path: Path, root: Path, out: Scan) -> None:
    try:
        target = path.resolve(strict=True)
    except FileNotFoundError:
        out.skipped.append(Skipped(path, f"dangling symbolic link (to {os.readlink(path)})"))
        return
    except (RuntimeError, OSError) as e:  # ELOOP: a link that leads back to itself
        out.skipped.append(Skipped(path, f"symbolic link that cannot be resolved ({_reason(e)})"))
        return
    if not target.is_relative_to(root):
        out.problems.append(
            Problem(
                str(path), None, "",
                f"expected a file inside {root.name}/, got a symbolic link to {target} (outside it; "
                "copy the file in instead)",
            )
        )  # fmt: skip
    elif target.is_dir():
        out.skipped.append(
            Skipped(path, "symbolic link to a folder (not followed; its files are scanned there)")
        )
    elif not target.is_file():
        out.skipped.append(Skipped(path, f"symbolic link to something not a regular file ({_kind(target)})"))
    elif path.suffix in RESULT_SUFFIXES:
        out.files.append(path)
    elif path.suffix.lower() in RESULT_SUFFIXES:
        out.skipped.append(
            Skipped(path, f"suffix {path.suffix}: result files end in lower-case .yaml or .yml")
        )


def _reason(e: BaseException) -> str:
    return (
        "a loop of links"
        if isinstance(e, RuntimeError) or getattr(e, "errno", None) == errno.ELOOP
        else str(e)
    )


@dataclass(frozen=True)
class Outcome:
    """What a worker sends back for one file: problems, run ids and an optional payload (no model)."""

    file: str
    problems: list[Problem]
    run_ids: list[str]
    payload: Any = None


# payload_fn(validated data as dicts, file name, run ids) -> anything picklable
PayloadFn = Callable[[dict[str, Any], str, list[str]], Any]


@contextmanager
def no_cyclic_gc() -> Iterator[None]:
    """The cyclic garbage collector off meanwhile (one file checked; an ingest taking the checked files).

    A file's data has no reference cycles (it is freed by reference counting), but its many small objects
    trigger collections that cost ~17% of the checking time, and in an ingest's process, which holds every
    run id and a batch of runs' columns, 18 % of its CPU (3.4 of 18.8 s at a million runs, 2,700
    collections, 18 of them of every object); any cycle made meanwhile is collected later.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _outcome(path: str, root: str, payload_fn: PayloadFn | None) -> Outcome:
    with no_cyclic_gc():
        return _check_one(path, root, payload_fn)


def _check_one(path: str, root: str, payload_fn: PayloadFn | None) -> Outcome:
    p, r = Path(path), Path(root)
    name = str(p.relative_to(r)) if p.is_relative_to(r) else path
    text, problem = _read_text(p, name)
    if problem:
        return Outcome(name, [problem], [])
    assert text is not None
    data, problems = check_data(text, name)
    if data is None:
        return Outcome(name, problems, [])
    ids = run_ids(data)
    return Outcome(name, problems, ids, payload_fn(data, name, ids) if payload_fn else None)


_PARALLEL_MIN_FILES = 32  # below this, starting worker processes costs more than it saves


def iter_outcomes(
    paths: Iterable[Path], root: Path, payload_fn: PayloadFn | None = None, workers: int | None = None
) -> Iterator[Outcome]:
    """Check files in name order, in worker processes when there are enough of them; yield in that order.

    ``payload_fn(data, file, run_ids)`` runs in the worker on each valid file (``data``: validated plain
    dicts, defaults filled), so that only its (picklable, compact) output crosses the process boundary.
    With workers, every file is queued at once: they start checking before the first outcome is asked
    for, so the caller can prepare meanwhile and overlap its own work with theirs (close the iterator to
    stop early).
    """
    files = sorted(str(p) for p in paths)
    workers = workers or min(os.cpu_count() or 1, 8)
    if workers < 2 or len(files) < _PARALLEL_MIN_FILES:
        return (_outcome(f, str(root), payload_fn) for f in files)
    pool = ProcessPoolExecutor(workers, initializer=die_with_parent, initargs=(os.getpid(),))
    chunk = 1 if len(files) < 512 else 4  # small chunks keep both cores busy to the last file
    results = pool.map(_outcome, files, repeat(str(root)), repeat(payload_fn), chunksize=chunk)
    return _drain(pool, results)


def _drain(pool: ProcessPoolExecutor, results: Iterator[Outcome]) -> Iterator[Outcome]:
    try:
        yield from results
    finally:
        pool.shutdown(cancel_futures=True)


def check_many(
    paths: Sequence[Path], root: Path, payload_fn: PayloadFn | None = None, workers: int | None = None
) -> list[Outcome]:
    """Every outcome of ``iter_outcomes``, as a list sorted by file name."""
    return sorted(iter_outcomes(paths, root, payload_fn, workers), key=lambda o: o.file)


class DuplicateFinder:
    """Runs that repeat an earlier run's source and configuration, found as outcomes arrive (``add``), so
    that a caller streaming outcomes (``ingest``) does this while the workers are still checking."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.seen: dict[str, tuple[str, int]] = {}
        self.problems: list[Problem] = []

    def add(self, o: Outcome) -> None:
        seen = self.seen
        for i, rid in enumerate(o.run_ids):
            if rid not in seen:
                seen[rid] = (o.file, i)
                continue
            first_file, first_run = seen[rid]
            line = LineMap((self.root / o.file).read_text(encoding="utf-8")).line(("runs", i))
            msg = f"duplicate run: same source and configuration as {first_file} runs.{first_run}"
            self.problems.append(Problem(o.file, line, f"runs.{i}", msg))


def find_duplicates(outcomes: Iterable[Outcome], root: Path) -> list[Problem]:
    """Runs that repeat an earlier run's source and configuration, in this or another file."""
    finder = DuplicateFinder(root)
    for o in outcomes:
        finder.add(o)
    return finder.problems


def dump(result: ResultFile) -> str:
    """A result as reviewable block YAML: fields in schema order, unset fields left out."""
    data = result.model_dump(mode="python", exclude_none=True)
    data["submission"]["source"] = result.submission.source.model_dump(mode="json", exclude_none=True)
    return dump_data(data)


def dump_data(data: dict[str, Any]) -> str:
    """Plain result data (dicts in schema order, no None values) as block YAML; not validated."""
    return yaml.dump(data, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100)


class _Dumper(getattr(yaml, "CSafeDumper", yaml.SafeDumper)):  # type: ignore[misc]
    def ignore_aliases(self, data: Any) -> bool:  # a reviewer must never need to resolve an anchor
        return True


def slug(text: str) -> str:
    """File-name part: lower case, runs of other characters -> '-'; dots kept (versions, 'llama-3.1').

    Letters and digits of every script are kept (NFKC first, so one name has one spelling): a Korean
    publisher keeps its name, and two such publishers never share a folder. ASCII names slug as before.
    """
    text = unicodedata.normalize("NFKC", text).lower()
    return re.sub(r"(?:[^\w.]|_)+", "-", text).strip("-.")


def _folder(name: str) -> str:
    """A name's folder: its slug, or, for a name of no letter or digit at all, one made from its hash."""
    return slug(name) or f"x-{hashlib.sha256(name.encode()).hexdigest()[:10]}"


def result_path(
    publisher: str,
    engine: str,
    engine_version: str,
    gpu: str,
    model_id: str,
    precision: str,
    suffix: str = "",
) -> Path:
    """Where a submission goes under results/, as import-csv and export name it (relative):
    ``<publisher>/<trtllm|engine>-<version>/<gpu>--<model>--<precision>[--<suffix>].yaml``."""
    family = "trtllm" if engine == "tensorrt-llm" else engine
    parts = [slug(gpu), slug(model_id.split("/")[-1]), slug(precision)] + ([suffix] if suffix else [])
    return Path(_folder(publisher)) / f"{family}-{engine_version}" / f"{'--'.join(parts)}.yaml"


def write_file(result: ResultFile, path: Path) -> None:
    """Validate a result by reading back what would be written, then write it atomically."""
    text = dump(result)
    checked = check_text(text, str(path))
    if checked.problems:
        raise ValueError("\n".join(str(p) for p in checked.problems))
    write_text_atomic(path, text)


def write_text_atomic(path: Path, text: str) -> None:
    """Write text to a temporary file beside ``path`` and rename it into place."""
    write_texts_atomic({path: text})


def write_texts_atomic(files: dict[Path, str]) -> None:
    """Write every text to a temporary file beside its path, then rename them all into place.

    Nothing is renamed until every file is written, so a full disk or an unwritable folder leaves no new
    file, no temporary file and no new folder behind; it is a ``UserError`` naming the file.
    """
    made: list[Path] = []  # folders created here: removed again on failure
    staged: list[tuple[str, Path]] = []
    done, current = 0, Path()
    try:
        for current, text in files.items():
            made += _mkdirs(current.parent)
            fd, tmp = tempfile.mkstemp(dir=current.parent, prefix=f".{current.name}.", suffix=".tmp")
            staged.append((tmp, current))
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(text)
            os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes 0600; a result file is as readable as any other
        for tmp, current in staged:
            os.replace(tmp, current)
            done += 1
    except BaseException as e:
        for tmp, _ in staged:
            Path(tmp).unlink(missing_ok=True)
        for folder in reversed(made if not done else []):
            with contextlib.suppress(OSError):
                folder.rmdir()
        if not isinstance(e, OSError):
            raise
        # a failed write() names no file: the one being written
        written = f"{done} of {len(files)} file(s) written before it" if done else "nothing written"
        raise UserError(f"{e.filename or current}: {e.strerror or e}; {written}") from None


def _mkdirs(folder: Path) -> list[Path]:
    """Create ``folder`` and its missing parents; return the ones created, outermost first."""
    missing = [p for p in (folder, *folder.parents) if not p.exists()][::-1]
    folder.mkdir(parents=True, exist_ok=True)
    return missing


def _umask() -> int:
    """The process umask (reading it means setting it, so set it straight back)."""
    mask = os.umask(0)
    os.umask(mask)
    return mask
