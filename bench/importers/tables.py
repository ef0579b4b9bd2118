"""A CSV of published throughput numbers -> result files (``llmbench import-csv``).

Input: one CSV row per published figure, with the columns in ``COLUMNS`` (documented in
docs/reference/result-schema.md). Output: one result file per submission, that is per source, engine
release, GPU, model and precision, at ``<results>/<publisher>/trtllm-<version>/<gpu>--<model>--<prec>.yaml``.
Every row's figure lands in exactly one metric of exactly one run: rows that differ only in ``metric`` are
one run carrying each figure given (a source may split one measurement into total, per-GPU and per-user
rows); figures are copied, never converted (the ``metric`` column names the field). GPU and model labels
are mapped to the registries' canonical names and kept verbatim in ``gpu_label`` and ``model.label``. What
the CSV leaves out and NVIDIA documented per release (request counts, release dates) comes from
``bench/data/releases.yaml``, and the source notes of the file say so.

All or nothing: every row is checked and every file is built and validated before the first one is
written; on any problem nothing is written and the problems are raised together (``ProblemsError``).
"""

from __future__ import annotations

import datetime as dt
import functools
import hashlib
import math
import re
from collections.abc import Iterable
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import yaml_rs

from bench.contract import registry
from bench.contract.resultfile import (
    Problem,
    check_data,
    dump_data,
    parse,
    result_path,
    run_ids,
    write_texts_atomic,
)
from bench.contract.schema import ERRATUM_MARKER
from bench.errors import ProblemsError, UserError
from bench.importers import csvfile

# The CSV columns: name -> (required, meaning). Unknown columns are refused (a typo would lose data silently).
COLUMNS: dict[str, tuple[bool, str]] = {
    "source_title": (True, "Citation of the document or page holding the figure."),
    "source_url": (False, "URL of that document."),
    "site_url": (False, "URL of the publisher's own results site, if any."),
    "source_date": (False, "YYYY-MM-DD the figure was published; default: the engine release date."),
    "publisher": (False, "Who produced the figure; default: --publisher, else source_title's first word."),
    "system": (False, "System name; default: '<publisher> <GPU>'."),
    "gpu": (True, "GPU label as the source writes it (mapped to the GPU registry)."),
    "model": (True, "Model label or Hugging Face id (mapped to the model registry)."),
    "checkpoint": (False, "Checkpoint actually run (e.g. a pre-quantised one)."),
    "precision": (True, "Weight precision: FP32, FP16, BF16, FP8, FP4, INT8, INT4, Mixed."),
    "tp": (True, "Tensor-parallel size."),
    "pp": (False, "Pipeline-parallel size (default 1)."),
    "ep": (False, "Expert-parallel size."),
    "attention_dp": (False, "true/false; default: true when notes say DEPn or attention DP."),
    "isl": (True, "Input sequence length (tokens)."),
    "osl": (True, "Output sequence length (tokens)."),
    "num_requests": (False, "Requests in the dataset; default: NVIDIA's documented count for the release."),
    "concurrency": (False, "Max in-flight requests; default: '--concurrency N' in notes."),
    "max_num_tokens": (False, "Engine max_num_tokens; default: '--max_num_tokens N' in notes."),
    "max_batch_size": (False, "Engine max_batch_size; default: '--max_batch_size N' in notes."),
    "kv_cache_free_gpu_mem_fraction": (False, "KV-cache fraction of free GPU memory."),
    "trtllm_version": (True, "TensorRT-LLM version; extra words ('0.18/0.19 (early 2025)') go to notes."),
    "workflow": (True, "pytorch or legacy-engine."),
    "benchmark_tool": (False, "trtllm-bench or gptManagerBenchmark; default --benchmark-tool."),
    "metric": (True, "output_tokens_per_sec_total | output_tokens_per_sec_per_gpu | _per_user."),
    "value": (True, "The figure, kept exactly."),
    "run_timestamp": (False, "ISO time of the run, if the source gives it."),
    "notes": (False, "The source's note on the row, kept verbatim in the run's notes."),
}
METRICS = {
    "output_tokens_per_sec_total": "output_tokens_per_s",
    "output_tokens_per_sec_per_gpu": "output_tokens_per_s_per_gpu",
    "output_tokens_per_sec_per_user": "output_tokens_per_s_per_user",
}
_NOTHING_WRITTEN = "in the CSV; nothing written"
_FILE_KEYS = [
    "publisher",
    "source_title",
    "source_url",
    "site_url",
    "date",
    "system",
    "engine_version",
    "version_label",
    "workflow",
    "benchmark_tool",
    "gpu",
    "gpu_label",
    "model",
    "model_label",
    "checkpoint",
    "precision",
]


@dataclass
class _Group:
    """The file-level fields of one submission and its runs (in CSV order)."""

    key: dict[str, Any]
    runs: list[dict[str, Any]]
    lines: list[int]  # the CSV line of each run (its first row's)
    filled: set[str]
    by_config: dict[str, int]  # a run's configuration (everything but its metrics) -> its index in runs
    rows: int = 0  # CSV rows in this file (more than its runs where rows differing only in metric merged)


@functools.cache
def releases() -> dict[tuple[int, ...], dict[str, Any]]:
    """bench/data/releases.yaml keyed by the numeric version (0.17 == 0.17.0)."""
    text = resources.files("bench.data").joinpath("releases.yaml").read_text(encoding="utf-8")
    return {_version_tuple(str(r["version"])): r for r in yaml_rs.loads(text)}


@dataclass(frozen=True)
class Erratum:
    """A published figure known to be wrong (bench/data/errata.yaml): which row, and why."""

    source_title: str
    match: dict[str, Any]  # CSV column -> value the row must have
    note: str

    def matches(self, row: dict[str, str]) -> bool:
        """Whether ``row`` is the row this erratum is about (numbers compare as numbers)."""
        if (row.get("source_title") or "").strip() != self.source_title:
            return False
        return all(_cell_is((row.get(col) or "").strip(), want) for col, want in self.match.items())


def _cell_is(raw: str, want: Any) -> bool:
    if isinstance(want, int | float) and not isinstance(want, bool):
        try:
            return float(raw) == float(want)
        except ValueError:
            return False
    return raw == str(want).strip()


@functools.cache
def errata() -> tuple[Erratum, ...]:
    """bench/data/errata.yaml, checked: every entry names a source, known CSV columns and a note."""
    text = resources.files("bench.data").joinpath("errata.yaml").read_text(encoding="utf-8")
    out = []
    for i, entry in enumerate(yaml_rs.loads(text) or [], start=1):
        where = f"bench/data/errata.yaml: entry {i}"
        if not isinstance(entry, dict) or set(entry) != {"source_title", "match", "note"}:
            raise UserError(f"{where}: expected keys source_title, match, note, got {entry!r}")
        unknown = sorted(set(entry["match"]) - set(COLUMNS))
        if unknown or not entry["match"]:
            raise UserError(f"{where}: match: expected CSV columns ({', '.join(COLUMNS)}), got {unknown}")
        out.append(
            Erratum(str(entry["source_title"]).strip(), dict(entry["match"]), str(entry["note"]).strip())
        )
    return tuple(out)


def errata_notes(row: dict[str, str]) -> list[str]:
    """The notes of every erratum about this CSV row (usually none)."""
    return [e.note for e in errata() if e.matches(row)]


def _version_tuple(version: str) -> tuple[int, ...]:
    nums = [int(n) for n in version.split(".") if n.isdigit()]
    return tuple(nums + [0] * (3 - len(nums)))


def clean_version(label: str) -> str | None:
    """'0.18/0.19 (early 2025, PyTorch backend)' -> '0.18'; '1.2.0rc6' stays; None if no version at all."""
    m = re.match(r"\s*v?(\d+(?:\.\d+)+(?:(?:rc|dev|post)\d*)?)", label)
    return m.group(1) if m else None


class _RowError(Exception):
    def __init__(self, column: str, message: str) -> None:
        super().__init__(message)
        self.column = column


def _int(row: dict[str, str], col: str, default: int | None = None) -> int | None:
    raw = (row.get(col) or "").strip()
    if not raw:
        return default
    f = csvfile.number(raw)
    if f is None:
        raise _RowError(col, f"expected a whole number, got {raw!r}")
    if not f.is_integer() or f <= 0:
        raise _RowError(col, f"expected a positive whole number, got {raw!r}")
    return int(f)


def _float(row: dict[str, str], col: str) -> float | None:
    raw = (row.get(col) or "").strip()
    if not raw:
        return None
    value = csvfile.number(raw)
    if value is None:
        if raw.lower().lstrip("+-") in ("inf", "infinity", "nan"):
            raise _RowError(col, f"expected a finite number, got {raw!r}")
        raise _RowError(col, f"expected a number, got {raw!r}")
    if not math.isfinite(value):
        raise _RowError(col, f"expected a finite number, got {raw!r}")
    return value


def _text(row: dict[str, str], col: str) -> str | None:
    raw = (row.get(col) or "").strip()
    return raw or None


def _from_notes(notes: str, pattern: str) -> int | None:
    m = re.search(pattern, notes)
    return int(m.group(1)) if m else None


def _attention_dp(row: dict[str, str], notes: str) -> bool:
    raw = (_text(row, "attention_dp") or "").lower()
    if raw:
        if raw not in ("true", "false", "1", "0", "yes", "no"):
            raise _RowError("attention_dp", f"expected true or false, got {raw!r}")
        return raw in ("true", "1", "yes")
    # NVIDIA's "DEPn" columns and the blog's "attention DP" runs: tp n, ep n, enable_attention_dp: true.
    return bool(re.search(r"\bDEP\d+\b|attention DP|attention data parallel", notes))


def _canonical(kind: str, index: Any, label: str, col: str) -> Any:
    entry = index.find(label)
    if entry is None:
        near = index.suggest(label)
        hint = f"; closest known: {', '.join(near)}" if near else "; add it to bench/data"
        raise _RowError(col, f"expected a known {kind}, got {label!r}{hint}")
    return entry


def _file_fields(row: dict[str, str], publisher: str | None, tool: str) -> dict[str, Any]:
    """The row's submission-level fields (those that decide which file it goes to)."""
    title = _text(row, "source_title")
    if title is None:
        raise _RowError("source_title", "expected a citation, got nothing")
    pub = _text(row, "publisher") or publisher or title.split()[0].rstrip(":,")
    label = _text(row, "trtllm_version") or ""
    version = clean_version(label)
    if version is None:
        raise _RowError("trtllm_version", f"expected a version like 1.2 or 0.10.0, got {label!r}")
    gpu = _canonical("GPU", registry.gpus(), _text(row, "gpu") or "", "gpu")
    model = _canonical("model", registry.models(), _text(row, "model") or "", "model")
    date_raw = _text(row, "source_date")
    try:
        date = dt.date.fromisoformat(date_raw) if date_raw else None
    except ValueError:
        raise _RowError("source_date", f"expected YYYY-MM-DD, got {date_raw!r}") from None
    return {
        "publisher": pub,
        "source_title": title,
        "source_url": _text(row, "source_url"),
        "site_url": _text(row, "site_url"),
        "date": date,
        "system": _text(row, "system") or f"{pub} {gpu.name}",
        "engine_version": version,
        "version_label": label.strip(),
        "workflow": _text(row, "workflow"),
        "benchmark_tool": _text(row, "benchmark_tool") or tool,
        "gpu": gpu.name,
        "gpu_label": _text(row, "gpu"),
        "model": model.id,
        "model_label": _text(row, "model"),
        "checkpoint": _text(row, "checkpoint"),
        "precision": _text(row, "precision"),
    }


def _workload(row: dict[str, str], notes: str, key: dict[str, Any], filled: set[str]) -> dict[str, Any]:
    """ISL/OSL and what is known of the dataset: from the row, its notes, or the release's documentation."""
    isl, osl = _required_int(row, "isl"), _required_int(row, "osl")
    workload: dict[str, Any] = {"isl": isl, "osl": osl}
    release = releases().get(_version_tuple(key["engine_version"]), {})
    perf_overview = "Performance Overview" in key["source_title"]
    requests = _int(row, "num_requests") or _from_notes(notes, r"(\d+) (?:synthetic )?requests")
    if requests is None and perf_overview:
        requests = (release.get("num_requests") or {}).get(f"{isl}/{osl}")
        if requests is not None:
            filled.add("num_requests")
    if requests is not None:
        workload["num_requests"] = requests
    concurrency = _int(row, "concurrency") or _from_notes(notes, r"--concurrency (\d+)")
    if concurrency is not None:
        workload["concurrency"] = concurrency
    if "real dataset" in notes:
        workload["dataset"] = "real"
    elif perf_overview and release.get("stdev_zero"):
        workload.update(input_stdev=0.0, output_stdev=0.0)
        filled.add("stdev")
    return workload


def _required_int(row: dict[str, str], col: str) -> int:
    value = _int(row, col)
    if value is None:
        raise _RowError(col, "expected a positive whole number, got nothing")
    return value


def _settings(row: dict[str, str], notes: str) -> dict[str, Any]:
    """Engine settings given in the row or, as trtllm-bench flags, in its notes."""
    settings = {
        "max_batch_size": _int(row, "max_batch_size") or _from_notes(notes, r"--max_batch_size (\d+)"),
        "max_num_tokens": _int(row, "max_num_tokens") or _from_notes(notes, r"--max_num_tokens (\d+)"),
        "kv_cache_free_gpu_mem_fraction": _float(row, "kv_cache_free_gpu_mem_fraction"),
    }
    return {k: v for k, v in settings.items() if v is not None}


def _run(row: dict[str, str], key: dict[str, Any], filled: set[str]) -> dict[str, Any]:
    """One row -> one run (plain data, validated later with the whole file)."""
    notes = _text(row, "notes") or ""
    metric = _text(row, "metric") or ""
    if metric not in METRICS:
        raise _RowError("metric", f"expected one of {', '.join(METRICS)}, got {metric!r}")
    value = _float(row, "value")
    if value is None or value <= 0:
        raise _RowError("value", f"expected a positive number, got {row.get('value')!r}")
    parallelism: dict[str, Any] = {"tp": _required_int(row, "tp"), "pp": _int(row, "pp", 1)}
    if _int(row, "ep") is not None:
        parallelism["ep"] = _int(row, "ep")
    parallelism["attention_dp"] = _attention_dp(row, notes)
    run: dict[str, Any] = {"parallelism": parallelism, "workload": _workload(row, notes, key, filled)}
    settings = _settings(row, notes)
    if settings:
        run["engine_settings"] = settings
    run["metrics"] = {METRICS[metric]: value}
    stamp = _text(row, "run_timestamp")
    if stamp:
        try:
            run["timestamp"] = dt.datetime.fromisoformat(stamp)
        except ValueError:
            raise _RowError("run_timestamp", f"expected an ISO date-time, got {stamp!r}") from None
    if notes:
        run["notes"] = notes
    return run


def _add_run(group: _Group, run: dict[str, Any], line: int, errata: list[str]) -> None:
    """Add a row's run, or merge its figure into the run of an earlier row that differs only in metric;
    then append the row's errata to that run's notes.

    A source may give one measurement as several rows, one figure each (NVIDIA's DeepSeek-R1 blog gives
    total, per-GPU and per-user): that is one run carrying every figure given. A row whose figure the
    earlier run already has is kept apart, so the duplicate check reports it.
    """
    group.rows += 1
    config = repr({k: v for k, v in run.items() if k != "metrics"})  # before errata: they are no config
    index = group.by_config.get(config)
    if index is not None and not group.runs[index]["metrics"].keys() & run["metrics"].keys():
        group.runs[index]["metrics"].update(run["metrics"])
        run = group.runs[index]
    else:
        group.by_config.setdefault(config, len(group.runs))
        group.runs.append(run)
        group.lines.append(line)
    for note in errata:
        text = ERRATUM_MARKER + note
        if text not in (run.get("notes") or ""):
            run["notes"] = f"{run['notes']} | {text}" if run.get("notes") else text


def _source_notes(group: _Group, csv_name: str) -> str:
    """Say where the file came from and every value the importer supplied or reinterpreted."""
    k = group.key
    release = releases().get(_version_tuple(k["engine_version"]), {})
    metrics = sorted({m for r in group.runs for m in r["metrics"]})
    out = [
        f"Imported by `llmbench import-csv` from {csv_name}: one run per configuration (rows that differ "
        f"only in metric are one run); figures copied as published ({', '.join(metrics)}), never converted."
    ]
    if group.rows != len(group.runs):
        out.append(f"The CSV gives these {len(group.runs)} runs as {group.rows} rows, one per figure.")
    if k["version_label"] != k["engine_version"]:
        out.append(
            f"The source gives the TensorRT-LLM version as {k['version_label']!r}; "
            f"engine_version keeps its first version number."
        )
    if "date" in group.filled:
        exact = "an estimate, see bench/data/releases.yaml" if release.get("approximate") else "exact"
        out.append(
            f"The CSV gives no date: date is the TensorRT-LLM {k['engine_version']} release date ({exact})."
        )
    if "source_url" in group.filled:
        out.append(
            f"The CSV gives no source_url: url is the versioned perf-overview page of release "
            f"{k['engine_version']} (bench/data/releases.yaml)."
        )
    if _page_commands(k):
        out.append("commands: as that page gives them (bench/data/releases.yaml).")
    if "num_requests" in group.filled:
        out.append(
            f"num_requests is not in the CSV: filled from NVIDIA's documented request count per ISL/OSL "
            f"for release {k['engine_version']} (perf-overview.md; see docs/trtllm-bench.md, 'How NVIDIA "
            f"produced the perf-overview numbers')."
        )
    if "stdev" in group.filled:
        out.append(
            "Datasets: prepare_dataset.py token-norm-dist with --input-stdev=0 --output-stdev=0 (documented)."
        )
    if any(ERRATUM_MARKER in (r.get("notes") or "") for r in group.runs):
        out.append(
            f"A run note after {ERRATUM_MARKER.strip()!r} is llmbench's, from bench/data/errata.yaml: the "
            f"figure is known to be wrong and kept as published."
        )
    if any(r["parallelism"]["attention_dp"] for r in group.runs):
        out.append("DEPn / attention-DP runs: tp n, ep n, enable_attention_dp: true.")
    return " ".join(out)


def _result_data(group: _Group, csv_name: str) -> dict[str, Any]:
    k = group.key
    source = {"kind": "published", "publisher": k["publisher"], "title": k["source_title"]}
    source.update({f: k[c] for f, c in (("url", "source_url"), ("site_url", "site_url")) if k[c]})
    commands = _page_commands(k)
    if commands:
        source["commands"] = commands
    source["notes"] = _source_notes(group, csv_name)
    model = {"id": k["model"], "label": k["model_label"], "weight_precision": k["precision"]}
    if k["checkpoint"]:
        model["checkpoint"] = k["checkpoint"]
    return {
        "schema_version": 1,
        "submission": {
            "submitter": k["submitter"],
            "system": k["system"],
            "date": k["date"],
            "source": source,
        },
        "hardware": {"gpu": k["gpu"], "gpu_label": k["gpu_label"]},
        "software": {
            "engine": "tensorrt-llm",
            "engine_version": k["engine_version"],
            "workflow": k["workflow"],
            "benchmark_tool": k["benchmark_tool"],
        },
        "model": model,
        "runs": group.runs,
    }


def _perf_overview_release(key: dict[str, Any]) -> dict[str, Any]:
    """The release entry of bench/data/releases.yaml for a perf-overview row's file ({} for other sources)."""
    if "Performance Overview" not in key["source_title"]:
        return {}
    return releases().get(_version_tuple(key["engine_version"]), {})


def _fill_source_url(key: dict[str, Any], filled: set[str]) -> None:
    """A perf-overview row without a source_url gets its release's versioned page (releases.yaml), so every
    imported run links to the exact page it came from."""
    url = _perf_overview_release(key).get("source_url")
    if key["source_url"] is None and url:
        key["source_url"] = url
        filled.add("source_url")


def _page_commands(key: dict[str, Any]) -> list[str] | None:
    """The commands the file's source page gives (releases.yaml), only when the file cites that very page."""
    release = _perf_overview_release(key)
    if release.get("commands") and key["source_url"] == release.get("source_url"):
        return [str(c) for c in release["commands"]]
    return None


def read_csv(path: Path) -> list[tuple[int, dict[str, str]]]:
    """Rows of the CSV with their 1-based line numbers, read strictly (``csvfile``: duplicate, unknown or
    missing columns, shifted or repeated rows, control characters: every problem located)."""
    required = tuple(c for c, (needed, _) in COLUMNS.items() if needed)
    return [(r.line, r.values) for r in csvfile.read(path, required, known=tuple(COLUMNS))]


def build(
    rows: Iterable[tuple[int, dict[str, str]]],
    csv_name: str,
    publisher: str | None = None,
    submitter: str = "llmbench import-csv",
    benchmark_tool: str = "trtllm-bench",
) -> dict[Path, str]:
    """CSV rows -> {relative path: YAML text} of validated result files; raises ProblemsError."""
    groups: dict[tuple, _Group] = {}
    problems: list[Problem] = []
    for line, row in rows:
        try:
            key = _file_fields(row, publisher, benchmark_tool)
            filled: set[str] = set()
            if key["date"] is None:
                release = releases().get(_version_tuple(key["engine_version"]))
                if release is None:
                    raise _RowError(
                        "source_date", "expected a date (the release is not in bench/data/releases.yaml)"
                    )
                key["date"] = release["date"]
                filled.add("date")
            _fill_source_url(key, filled)
            key["submitter"] = submitter
            group = groups.setdefault(tuple(key[k] for k in _FILE_KEYS), _Group(key, [], [], filled, {}))
            group.filled |= filled
            _add_run(group, _run(row, key, group.filled), line, errata_notes(row))
        except _RowError as e:
            problems.append(Problem(csv_name, line, e.column, str(e)))
    if problems:
        raise ProblemsError(problems, _NOTHING_WRITTEN)
    return _files(groups.values(), csv_name)


def _files(groups: Iterable[_Group], csv_name: str) -> dict[Path, str]:
    out: dict[Path, str] = {}
    problems: list[Problem] = []
    seen: dict[str, int] = {}
    for g in groups:
        k = g.key
        fields = (k["publisher"], "tensorrt-llm", k["engine_version"], k["gpu"], k["model"], k["precision"])
        path = result_path(*fields)
        if path in out:  # a second source or label with the same release, GPU, model and precision
            digest = hashlib.sha1(repr(sorted(k.items(), key=str)).encode()).hexdigest()[:6]
            path = result_path(*fields, suffix=digest)
        text = dump_data(_result_data(g, csv_name))
        data, found = check_data(text, str(path))
        problems += found
        if data is not None:
            problems += _duplicates(run_ids(data), g.lines, csv_name, seen)
        out[path] = text
    if problems:
        raise ProblemsError(problems, _NOTHING_WRITTEN)
    return out


def _duplicates(ids: list[str], lines: list[int], csv_name: str, seen: dict[str, int]) -> list[Problem]:
    """Rows that repeat an earlier row's source and configuration (the same run given twice)."""
    out = []
    for rid, line in zip(ids, lines, strict=True):
        if rid in seen:
            msg = f"duplicate run: same source and configuration as line {seen[rid]}"
            out.append(Problem(csv_name, line, "", msg))
        seen.setdefault(rid, line)
    return out


def count_runs(files: dict[Path, str]) -> int:
    """How many runs the built files hold (rows that differ only in metric are one run)."""
    return sum(len(yaml_rs.loads(text)["runs"]) for text in files.values())


def write_files(files: dict[Path, str], results_dir: Path) -> list[Path]:
    """Write built files under ``results_dir``, all or none (a full disk leaves results/ as it was);
    return their paths. A file already at a path is replaced only if an import of the same publisher by
    the same submitter wrote it: a contributor's file is never overwritten."""
    if not files:
        raise UserError(f"the CSV yields no result file; nothing written under {results_dir}")
    paths = {results_dir / rel: text for rel, text in files.items()}
    for path, text in paths.items():
        if path.exists() or path.is_symlink():
            _check_replaceable(path, text)
    write_texts_atomic(paths)
    return list(paths)


def _check_replaceable(path: Path, new_text: str) -> None:
    new = yaml_rs.loads(new_text)["submission"]
    try:
        old, problem = parse(path.read_text(encoding="utf-8"), str(path))
    except (OSError, UnicodeDecodeError):
        old, problem = None, True
    sub = old.get("submission") if isinstance(old, dict) else None
    if problem or not isinstance(sub, dict) or not path.is_file() or path.is_symlink():
        raise UserError(f"{path}: exists and is not a result file; nothing written")
    theirs = (sub.get("submitter"), (sub.get("source") or {}).get("publisher"))
    if theirs != (new["submitter"], new["source"]["publisher"]):
        raise UserError(
            f"{path}: exists and holds another submission (submitter {theirs[0]!r}, publisher "
            f"{theirs[1]!r}); it is not overwritten, nothing written"
        )
