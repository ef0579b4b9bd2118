"""MLPerf(R) Inference results (MLCommons' curated CSV) -> schema_version 2 result files (import-mlperf).

One file per round x submitter x system (the submission's system folder), under ``results/mlperf/<round>/``;
each row of the CSV is one run (benchmark x scenario x division). Every figure is kept exactly: the value's
text is stored beside the number, and a number is only written when it is the decimal the text prints
(``float`` round-trips it), so nothing is rounded. CPU-only rows (accelerator ``N/A``) are left out and
counted. The import is all or nothing: every problem of every row is collected and reported as
``file.csv:line: column: expected X, got Y``, and ``results/mlperf/`` is only replaced (one rename) when
there is none.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

from bench.contract import registry
from bench.contract.problems import Problem
from bench.contract.resultfile import check_text, dump_data, slug, write_texts_atomic
from bench.contract.schema import MLPERF_SCHEMA_VERSION
from bench.errors import ProblemsError, UserError
from bench.importers import csvfile
from bench.importers.csvfile import Row

OUT_DIR = "mlperf"  # under results/
# When the rows of results/sources/mlperf/ were read from MLCommons' repositories (the footnote's "date of
# retrieval"); a new retrieval passes --retrieved.
RETRIEVED = dt.date(2026, 11, 30)
CPU_ONLY = "N/A"

REQUIRED = (
    "round", "division", "submitter", "system_name", "system_status", "accelerator", "accelerators_per_node",
    "nodes", "total_accelerators", "framework", "engine", "benchmark", "scenario", "metric_name", "value",
    "result_valid", "source_url", "result_id", "suite", "system_id", "benchmark_official", "log_metric_label",
    "ttft_constraint_ms", "tpot_constraint_ms", "ttft_p99_ms", "tpot_p99_ms", "engine_basis",
    "engine_evidence", "summary_url", "system_json_path", "data_origin", "notes",
)  # fmt: skip
BENCHMARK_COLUMNS = ("round", "benchmark", "scenario", "ttft_constraint_ms", "tpot_constraint_ms")

CHOICES = {
    "division": ("closed", "open"),
    "system_status": ("available", "preview", "rdi"),
    "suite": ("datacenter", "edge"),
    "scenario": ("Offline", "Server", "Interactive", "SingleStream"),
    "engine": ("tensorrt-llm", "vllm", "sglang", "other"),
    "engine_basis": ("explicit", "inferred", "override", "unspecified"),
    "metric_name": ("tokens_per_s", "samples_per_s", "queries_per_s", "latency_p90_ns"),
    "result_valid": ("VALID",),
}

# The model each benchmark runs: the benchmark as filed first (open-division variants name their model),
# then the official benchmark. Ids are the model registry's; None: the registry has no such model.
MODEL_BY_PREFIX = (
    ("llama3_1-70b", "meta-llama/Llama-3.1-70B-Instruct"),
    ("llama3_1-405b", "meta-llama/Llama-3.1-405B-Instruct"),
    ("llama3_1-8b", "meta-llama/Llama-3.1-8B-Instruct"),
    ("llama3.1-405b", "meta-llama/Llama-3.1-405B-Instruct"),
    ("llama3.1-8b", "meta-llama/Llama-3.1-8B-Instruct"),
    ("neuralmagic_Llama-2-7b", "meta-llama/Llama-2-7b-hf"),
    ("llama2-70b", "meta-llama/Llama-2-70b-hf"),
    ("mixtral-8x7b", "mistralai/Mixtral-8x7B-v0.1"),
    ("deepseek-r1", "deepseek-ai/DeepSeek-R1"),
    ("gpt-oss-120b", "openai/gpt-oss-120b"),
    ("gptj", "EleutherAI/gpt-j-6b"),
    ("qwen3-vl", None),
)

_DECIMAL = re.compile(r"^[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?$")  # as LoadGen prints: 2.49431e+06
_INSTINCT = re.compile(r"MI3[0-9]{2}X")


@dataclass
class Import:
    """What an import would write: file path (relative to results/) -> result data, and what it skipped."""

    files: dict[Path, dict[str, Any]] = field(default_factory=dict)
    lines: dict[Path, list[int]] = field(default_factory=dict)  # the CSV line of each run of a file
    rows: int = 0
    cpu_only: int = 0

    @property
    def runs(self) -> int:
        return sum(len(d["runs"]) for d in self.files.values())


def read_csv(path: Path, required: tuple[str, ...] = REQUIRED) -> list[Row]:
    """The rows of a CSV with the line each starts on, read strictly (``csvfile``: every problem located)."""
    return csvfile.read(path, required)


class _Rows:
    """Collects every problem of every row (located), so that one run reports all of them."""

    def __init__(self, name: str) -> None:
        self.name, self.problems = name, []  # type: ignore[var-annotated]

    def bad(self, row: Row, column: str, expected: str) -> None:
        got = row.values.get(column)
        self.problems.append(Problem(self.name, row.line, column, f"expected {expected}, got {got!r}"))

    def choice(self, row: Row, column: str) -> str | None:
        v = row.values[column]
        if v in CHOICES[column]:
            return v
        self.bad(row, column, f"one of {', '.join(CHOICES[column])}")
        return None

    def count(self, row: Row, column: str) -> int | None:
        n = csvfile.whole(row.values[column])
        if n is not None and n > 0:
            return n
        self.bad(row, column, "a whole number > 0 in ASCII digits")
        return None

    def exact(self, row: Row, column: str, optional: bool = False) -> float | None:
        """A decimal text -> the float that prints as the same number (never a rounding of it)."""
        v = row.values[column]
        if optional and v == "":
            return None
        if not _DECIMAL.match(v):
            self.bad(row, column, "a decimal number > 0" + (" or nothing" if optional else ""))
            return None
        f = float(v)
        try:
            same = f > 0 and Decimal(repr(f)) == Decimal(v)
        except InvalidOperation:
            same = False
        if not same:
            self.bad(row, column, "a number > 0 that a double holds exactly as written")
            return None
        return f

    def text(self, row: Row, column: str, optional: bool = False) -> str | None:
        v = row.values[column].strip()
        if v or optional:
            return v or None
        self.bad(row, column, "text")
        return None


def model_for(benchmark: str, official: str) -> str | None:
    for name in (benchmark, official):
        for prefix, model in MODEL_BY_PREFIX:
            if name.startswith(prefix):
                return model
    raise KeyError(benchmark)


def accelerator(label: str) -> tuple[bool, str | None]:
    """(known, canonical GPU name): a registry name, or (True, None) for a system of several AMD types."""
    gpu = registry.gpus().find(label)
    if gpu is not None:
        return True, gpu.name
    return len(set(_INSTINCT.findall(label))) > 1, None


def _repository(round_: str) -> str:
    return f"https://github.com/mlcommons/inference_results_{round_}"


def _run(rows: _Rows, row: Row) -> dict[str, Any]:
    v = row.values
    try:
        model = model_for(v["benchmark"], v["benchmark_official"])
    except KeyError:
        rows.bad(row, "benchmark", "a benchmark of a known model (llama2-70b, llama3.1-8b, ..., qwen3-vl)")
        model = None
    if not re.match(r"^v?[0-9]+\.[0-9]+-[0-9]{4}$", v["result_id"]):
        rows.bad(row, "result_id", "an MLPerf result ID like 5.1-0075")
    run = {
        "benchmark": rows.text(row, "benchmark"),
        "benchmark_official": rows.text(row, "benchmark_official"),
        "model": model,
        "scenario": rows.choice(row, "scenario"),
        "division": rows.choice(row, "division"),
        "availability": rows.choice(row, "system_status"),
        "result_id": v["result_id"],
        "system_name": rows.text(row, "system_name"),
        "framework": rows.text(row, "framework"),
        "engine": rows.choice(row, "engine"),
        "engine_basis": rows.choice(row, "engine_basis"),
        "engine_evidence": rows.text(row, "engine_evidence", optional=True),
        "metric": rows.choice(row, "metric_name"),
        "value": rows.exact(row, "value"),
        "value_text": v["value"],
        "tokens_inferred": "(inferred)" in v["log_metric_label"],
        "ttft_limit_ms": rows.exact(row, "ttft_constraint_ms", optional=True),
        "tpot_limit_ms": rows.exact(row, "tpot_constraint_ms", optional=True),
        "ttft_p99_ms": rows.exact(row, "ttft_p99_ms", optional=True),
        "tpot_p99_ms": rows.exact(row, "tpot_p99_ms", optional=True),
        "log_url": rows.text(row, "source_url"),
        "summary_url": rows.text(row, "summary_url", optional=True),
        "notes": rows.text(row, "notes", optional=True),
    }
    rows.choice(row, "result_valid")
    return {k: x for k, x in run.items() if x is not None or k == "model"}


# file-level columns: the same on every row of one round x submitter x system
_FILE_COLUMNS = (
    "suite",
    "accelerator",
    "accelerators_per_node",
    "nodes",
    "total_accelerators",
    "data_origin",
)


def _file(rows: _Rows, first: Row, retrieved: dt.date) -> dict[str, Any]:
    v = first.values
    known, gpu = accelerator(v["accelerator"])
    if not known:
        rows.bad(first, "accelerator", "an accelerator of the GPU registry (bench/data/gpus.yaml)")
    round_ = v["round"]
    if not re.match(r"^v[0-9]+\.[0-9]+$", round_):
        rows.bad(first, "round", "a round like v5.1")
    return {
        "schema_version": MLPERF_SCHEMA_VERSION,
        "submission": {
            "submitter": v["submitter"],
            "system": v["system_id"],
            "date": retrieved,
            "source": {
                "kind": "published",
                "publisher": "MLCommons",
                "title": f"MLPerf Inference {round_} results, {v['submitter']}, {v['system_id']}",
                "url": _repository(round_),
            },
        },
        "mlperf": {
            "round": round_,
            "suite": rows.choice(first, "suite"),
            "system_id": v["system_id"],
            "system_json_path": v["system_json_path"] or None,
            "repository": _repository(round_),
            "data_origin": v["data_origin"],
        },
        "hardware": {
            "gpu": gpu,
            "gpu_label": v["accelerator"],
            "gpus_per_node": rows.count(first, "accelerators_per_node"),
            "nodes": rows.count(first, "nodes"),
            "total_accelerators": rows.count(first, "total_accelerators"),
        },
        "runs": [],
    }


def _groups(rows: list[Row]) -> Iterator[tuple[tuple[str, str, str], list[Row]]]:
    groups: dict[tuple[str, str, str], list[Row]] = {}
    for r in rows:
        groups.setdefault((r.values["round"], r.values["submitter"], r.values["system_id"]), []).append(r)
    return iter(groups.items())


def file_path(round_: str, submitter: str, system_id: str) -> Path:
    """``mlperf/<round>/<submitter>--<system>.yaml`` (relative to results/)."""
    return Path(OUT_DIR) / round_ / f"{slug(submitter)}--{slug(system_id)}.yaml"


def build(
    rows: list[Row], csv_name: str, retrieved: dt.date = RETRIEVED, limits: dict | None = None
) -> Import:
    """CSV rows -> result data per file; raises ``ProblemsError`` with every located problem."""
    check = _Rows(csv_name)
    out = Import(rows=len(rows))
    for (round_, submitter, system_id), group in _groups(rows):
        gpu_rows = [r for r in group if r.values["accelerator"] != CPU_ONLY]
        out.cpu_only += len(group) - len(gpu_rows)
        if not gpu_rows:
            continue
        data = _file(check, gpu_rows[0], retrieved)
        for r in gpu_rows:
            for c in _FILE_COLUMNS:
                if r.values[c] != gpu_rows[0].values[c]:
                    check.bad(r, c, f"{gpu_rows[0].values[c]!r} as on line {gpu_rows[0].line} (same system)")
            if limits is not None:
                _check_limits(check, r, limits)
            data["runs"].append(_run(check, r))
        path = file_path(round_, submitter, system_id)
        if path in out.files:  # two systems whose names differ only in characters slug drops
            check.bad(group[0], "system_id", f"a system whose file name is not already {path}")
        out.files[path] = _clean(data)
        out.lines[path] = [r.line for r in gpu_rows]
    _check_result_ids(check, rows)
    if check.problems:
        raise ProblemsError(check.problems, f"in {csv_name}; nothing written")
    _check_files(out, csv_name)
    return out


def _check_result_ids(check: _Rows, rows: list[Row]) -> None:
    """A result ID names one system's submission (MLCommons: one ID per system and round, shared by its
    benchmark rows): never two systems, and never one benchmark, scenario and division twice."""
    system_of: dict[str, Row] = {}
    result_of: dict[tuple[str, ...], Row] = {}
    for r in rows:
        v = r.values
        rid = v.get("result_id", "")
        first = system_of.setdefault(rid, r)
        if (first.values["submitter"], first.values["system_id"]) != (v["submitter"], v["system_id"]):
            where = f"{first.values['submitter']}, {first.values['system_id']}"
            check.bad(r, "result_id", f"the ID of this system, not of line {first.line}'s ({where})")
        key = (rid, v["benchmark"], v["scenario"], v["division"])
        if key in result_of and result_of[key] is not r:
            check.bad(
                r,
                "result_id",
                f"one row per benchmark and scenario, not a second of line {result_of[key].line}",
            )
        result_of.setdefault(key, r)


def _check_limits(check: _Rows, row: Row, limits: dict[tuple[str, str, str], dict[str, str]]) -> None:
    """The row's latency limits must be the benchmark's (benchmarks CSV) for its round and scenario."""
    v = row.values
    facts = limits.get((v["round"], v["benchmark_official"], v["scenario"]))
    if facts is None:
        check.bad(
            row, "benchmark_official", f"a benchmark of the benchmarks CSV for {v['round']} {v['scenario']}"
        )
        return
    for c in ("ttft_constraint_ms", "tpot_constraint_ms"):
        if v[c] and facts[c] and Decimal(v[c]) != Decimal(facts[c]):
            check.bad(row, c, f"{facts[c]} (the benchmark's limit for {v['round']} {v['scenario']})")


def read_limits(path: Path) -> dict[tuple[str, str, str], dict[str, str]]:
    return {
        (r.values["round"], r.values["benchmark"], r.values["scenario"]): r.values
        for r in read_csv(path, BENCHMARK_COLUMNS)
    }


def _clean(data: dict[str, Any]) -> dict[str, Any]:
    """Leave out unset optional fields (the files stay short); ``gpu`` and ``model`` stay, null or not."""
    keep = {"gpu", "model"}
    if isinstance(data, dict):
        return {k: _clean(v) for k, v in data.items() if v is not None or k in keep}
    if isinstance(data, list):
        return [_clean(v) for v in data]
    return data


def _check_files(out: Import, csv_name: str) -> None:
    """Every file is checked as ``llmbench validate`` would check it, before anything is written; a
    problem is reported at the CSV line it comes from (a run's own row, else the system's first row)."""
    problems = []
    for path, data in out.files.items():
        for p in check_text(dump_data(data), str(path)).problems:
            m = re.match(r"runs\.(\d+)", p.path)
            lines = out.lines[path]
            line = lines[int(m.group(1))] if m and int(m.group(1)) < len(lines) else lines[0]
            problems.append(
                Problem(csv_name, line, p.path, f"{p.message} (in {path} as it would be written)")
            )
    if problems:
        raise ProblemsError(problems, f"in {csv_name}; nothing written")


@dataclass
class Written:
    """What ``write_files`` did, relative to results/."""

    written: list[Path] = field(default_factory=list)
    unchanged: list[Path] = field(default_factory=list)
    removed: list[Path] = field(default_factory=list)


def owned_files(results_dir: Path) -> set[Path]:
    """The files under ``results/mlperf/`` this importer wrote (schema_version 2), relative to results/."""
    out = set()
    for p in sorted((results_dir / OUT_DIR).rglob("*.yaml")):
        if p.is_file() and not p.is_symlink() and _is_mlperf_file(p):
            out.add(p.relative_to(results_dir))
    return out


def _is_mlperf_file(path: Path) -> bool:
    try:
        with path.open(encoding="utf-8") as f:
            return f.readline().strip() == f"schema_version: {MLPERF_SCHEMA_VERSION}"
    except (OSError, UnicodeDecodeError):
        return False


def plan_write(out: Import, results_dir: Path, replace: bool = False) -> tuple[dict[Path, str], Written]:
    """The files to write (changed or new) and what the import does; refuses an import that writes
    nothing, one that would overwrite a file it did not write, and, without ``replace``, one that would
    remove files (a CSV of one round must not delete the others)."""
    if not out.files:
        raise UserError(
            f"the CSV yields no result file ({out.rows:,} row(s), {out.cpu_only:,} CPU-only); "
            f"{results_dir / OUT_DIR} left as it is"
        )
    owned = owned_files(results_dir)
    foreign = sorted(p for p in out.files if (results_dir / p).exists() and p not in owned)
    if foreign:
        raise UserError(
            f"{results_dir / foreign[0]}: exists and is not an MLPerf result file this importer wrote; "
            "nothing written"
        )
    report = Written(removed=sorted(owned - set(out.files)))
    if report.removed and not replace:
        shown = ", ".join(str(p) for p in report.removed[:5])
        more = f" and {len(report.removed) - 5:,} more" if len(report.removed) > 5 else ""
        raise UserError(
            f"the CSV does not hold {len(report.removed):,} of the {len(owned):,} file(s) under "
            f"{results_dir / OUT_DIR} ({shown}{more}); pass --replace to remove them; nothing written"
        )
    texts = {}
    for rel, data in sorted(out.files.items()):
        text = dump_data(data)
        path = results_dir / rel
        if path.exists() and path.read_text(encoding="utf-8") == text:
            report.unchanged.append(rel)
        else:
            texts[path] = text
            report.written.append(rel)
    return texts, report


def write_files(out: Import, results_dir: Path, replace: bool = False) -> Written:
    """Write the import's new and changed files (all or none), then remove the files it no longer holds
    (with ``replace`` only); files it did not write are never touched, no folder is moved."""
    texts, report = plan_write(out, results_dir, replace)
    write_texts_atomic(texts)
    for rel in report.removed:
        (results_dir / rel).unlink(missing_ok=True)
        with contextlib.suppress(OSError):  # a round folder left empty goes too; never one with files
            (results_dir / rel).parent.rmdir()
    return report
