"""Runs database -> one result file (``results/...yaml``) of the successful runs, with full provenance.

``export`` takes the newest successful attempt of every job of the chosen sweeps, checks that they form
one submission (same model, precision, GPU, engine and version: the file-level fields of the schema),
builds a
``bench.contract.schema.ResultFile`` (measured source, environment from the nodes, the exact command and
any out-of-memory retry in each run's notes) and writes it with
``bench.contract.resultfile.write_file``, which
validates the text it is about to write and renames it into place: an invalid result is never written.
Default path, as the importer's (``bench.contract.resultfile.result_path``):
``<results>/<publisher>/trtllm-<version>/<gpu>--<model>--<precision>--<sweep>.yaml``
(``<engine>-<version>`` for engines other than TensorRT-LLM).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from bench.contract import registry, resultfile
from bench.contract.schema import ResultFile
from bench.errors import UserError
from bench.sweep import store
from bench.sweep.engine import DEFAULT_KV_FRACTION, engines
from bench.sweep.store import RunRecord


@dataclass(frozen=True)
class ExportOptions:
    results_dir: Path = Path("results")
    output: Path | None = None
    submitter: str | None = None
    system: str | None = None
    overwrite: bool = False


def _one(records: list[RunRecord], what: str, values: Iterable[Any]) -> Any:
    distinct = sorted({v for v in values if v is not None}, key=str)
    if len(distinct) > 1:
        shown = ", ".join(map(str, distinct))
        raise UserError(
            f"the runs differ in {what} ({shown}); a result file holds one {what}: export one sweep at a "
            "time with --sweep"
        )
    return distinct[0] if distinct else None


def _gpu(records: list[RunRecord]) -> tuple[str, str | None]:
    """Canonical GPU from nvidia-smi's name (what ran), checked against the sweep's hardware.gpu."""
    measured = _one(records, "GPU", (r["environment"].get("gpu_name") for r in records))
    declared = _one(records, "hardware.gpu", (r["sweep_spec"]["hardware"]["gpu"] for r in records))
    found = registry.gpus().find(measured) if measured else None
    if declared:
        want = registry.gpus().get(declared)
        if found and found.name != want.name:
            raise UserError(
                f"nvidia-smi says {measured!r} ({found.name}) but the sweep says hardware.gpu {declared!r}"
            )
        return want.name, measured
    if found:
        return found.name, measured
    if measured:
        raise UserError(
            f"GPU {measured!r} (nvidia-smi) is not in the GPU registry; set hardware.gpu in the sweep"
        )
    raise UserError("no GPU name recorded (nvidia-smi missing on the nodes); set hardware.gpu in the sweep")


def _engine_version(records: list[RunRecord]) -> str:
    """What the tool reported, else what was installed, else what the sweep declared."""
    reported = (((r["report"] or {}).get("engine") or {}).get("version") for r in records)
    version = _one(records, "engine version", reported)
    if not version:
        version = _one(records, "engine version", (r["environment"].get("trtllm_version") for r in records))
    return str(version or _one(records, "engine version", (r["job"].get("version") for r in records)))


def _environment(records: list[RunRecord]) -> dict[str, Any]:
    """Provenance of all runs: one value per key, or the distinct values joined when nodes differed."""
    keys = sorted({k for r in records for k in r["environment"]})
    env: dict[str, Any] = {}
    for k in keys:
        vals = sorted({str(v) for r in records if (v := r["environment"].get(k)) is not None})
        if len(vals) == 1:
            env[k] = next(v for r in records if (v := r["environment"].get(k)) is not None)
        elif vals:
            env[k] = ", ".join(vals)
    return env


def _run(rec: RunRecord, all_attempts: dict[str, list[RunRecord]]) -> dict[str, Any]:
    job, facts = rec["job"], rec["report"] or {}
    # trtllm-bench: the LLM-API options YAML; other engines report their distinguishing settings themselves
    options = facts.get("llm_api_options") or (facts.get("engine") or {}).get("settings") or None
    conc = job["concurrency"]
    notes = []
    earlier = [a for a in all_attempts.get(rec["job_id"], []) if a["attempt"] < rec["attempt"]]
    ooms = [a for a in earlier if a["status"] == "oom"]
    if rec["retry_of"] is not None and ooms:
        default = DEFAULT_KV_FRACTION  # an attempt with no fraction ran at the tool's default
        tried = ", ".join(f"{a['kv_fraction'] if a['kv_fraction'] is not None else default:g}" for a in ooms)
        notes.append(f"out of memory at KV-cache fraction {tried}; retried at {rec['kv_fraction']:g}")
    if rec["report_source"] == "console":
        notes.append("metrics parsed from the console summary (no --report_json)")
    finished = rec["finished_at"]
    return {
        "parallelism": {
            "tp": job["tp"],
            "pp": job["pp"],
            "ep": job["ep"],
            "attention_dp": bool((options or {}).get("enable_attention_dp", False)),
        },
        "workload": {
            "isl": job["isl"],
            "osl": job["osl"],
            "num_requests": job["num_requests"],
            "concurrency": conc if conc is not None and conc > 0 else None,
            "dataset": "token-norm-dist",
            "input_stdev": float(job["input_stdev"]),
            "output_stdev": float(job["output_stdev"]),
            "streaming": job["streaming"],
        },
        "engine_settings": {
            "max_batch_size": job["max_batch_size"],
            "max_num_tokens": job["max_num_tokens"],
            "kv_cache_free_gpu_mem_fraction": rec["kv_fraction"],
            "extra": options,
        },
        "metrics": rec["metrics"],
        "timestamp": finished.replace(tzinfo=dt.UTC) if finished else None,
        "command": rec["command"],
        "notes": "; ".join(notes) or None,
    }


def build(records: list[RunRecord], all_attempts: list[RunRecord], opts: ExportOptions) -> ResultFile:
    """The result file of these runs; a UserError names what does not fit in one file."""
    if not records:
        raise UserError("no successful runs to export (see `llmbench run` output, or choose --sweep)")
    spec = records[0]["sweep_spec"]
    pub = spec.get("publish") or {}
    model_id = _one(records, "model", (r["sweep_spec"]["model"]["id"] for r in records))
    precision = _one(records, "precision", (r["sweep_spec"]["model"]["precision"] for r in records))
    engine = engines()[_one(records, "engine", (r["engine"] for r in records))]
    workflow = _one(records, "workflow", (r["job"].get("workflow") for r in records))
    image = _one(records, "container image", (r["environment"].get("container_image") for r in records))
    gpu, gpu_label = _gpu(records)
    env = _environment(records)
    submitter = opts.submitter or pub.get("submitter")
    if not submitter:
        raise UserError("who measured this? pass --submitter or set publish.submitter in the sweep file")
    system = opts.system or pub.get("system") or env.get("hostname") or "unknown system"
    sweeps = ", ".join(sorted({r["sweep"] for r in records}))
    kv_dtype = spec["model"].get("kv_cache_dtype") or _reported_kv_dtype(records)
    by_job: dict[str, list[RunRecord]] = {}
    for a in all_attempts:
        by_job.setdefault(a["job_id"], []).append(a)
    known = registry.models().find(model_id)
    data = {
        "schema_version": 1,
        "submission": {
            "submitter": submitter,
            "system": system,
            "date": max(r["finished_at"] for r in records).date(),
            "source": {
                "kind": "measured",
                "publisher": pub.get("publisher") or submitter,
                "title": pub.get("title") or f"llmbench sweep {sweeps} on {system}",
                "url": pub.get("url"),
                "notes": pub.get("notes"),
            },
        },
        "hardware": {
            "gpu": gpu,
            "gpu_label": gpu_label,
            "gpus_per_node": spec["cluster"]["gpus_per_node"],
            "nodes": max(
                -(-r["job"]["tp"] * r["job"]["pp"] // spec["cluster"]["gpus_per_node"]) for r in records
            ),
            "interconnect": spec["hardware"].get("interconnect"),
            "cpu": spec["hardware"].get("cpu"),
        },
        "software": {
            "engine": engine.schema_engine,
            "engine_version": _engine_version(records),
            "workflow": workflow if engine.schema_engine == "tensorrt-llm" else None,
            "benchmark_tool": engine.benchmark_tool,
            "container_image": image,
        },
        "model": {
            "id": known.id if known else model_id,
            "label": model_id,
            "checkpoint": spec["model"].get("checkpoint") or spec["model"].get("path"),
            "weight_precision": precision,
            "kv_cache_dtype": kv_dtype,
            "weights": _reported_weights(records),
        },
        "environment": env,
        "runs": [_run(r, by_job) for r in records],
    }
    try:
        return ResultFile.model_validate(data)
    except ValidationError as e:
        problems = "; ".join(f"{'.'.join(map(str, x['loc']))}: {x['msg']}" for x in e.errors()[:5])
        raise UserError(f"the runs do not make a valid result file: {problems}") from None


def _reported_weights(records: list[RunRecord]) -> str:
    """random when the engine says it ran random weights (transformers), else pretrained."""
    vals = (((r["report"] or {}).get("engine") or {}).get("weights") for r in records)
    return _one(records, "weights", vals) or "pretrained"


def _reported_kv_dtype(records: list[RunRecord]) -> str | None:
    vals = (((r["report"] or {}).get("engine") or {}).get("kv_cache_dtype") for r in records)
    return _one(records, "KV-cache dtype", (v for v in vals if v not in (None, "None", "auto")))


def default_path(result: ResultFile, records: list[RunRecord], results_dir: Path) -> Path:
    sweeps = "+".join(sorted({resultfile.slug(r["sweep"]) for r in records}))
    sw, m = result.software, result.model
    publisher, gpu = result.submission.source.publisher, result.hardware.gpu
    return results_dir / resultfile.result_path(
        publisher, sw.engine, sw.engine_version, gpu, m.id, m.weight_precision, sweeps
    )


def _is_result_file(path: Path) -> bool:
    """Whether ``path`` parses as a result file's top mapping (what --overwrite may replace)."""
    try:
        data, problem = resultfile.parse(path.read_text(encoding="utf-8"), str(path))
    except (OSError, UnicodeDecodeError):
        return False
    return problem is None and "schema_version" in data


def export(db: Path, sweeps: list[str] | None, opts: ExportOptions) -> tuple[Path, int]:
    """Write the result file of the sweeps' successful runs; return its path and the number of runs."""
    store.require(db)
    records = store.latest_ok(db, sweeps)
    if sweeps:
        missing = sorted(set(sweeps) - {r["sweep"] for r in records})
        if missing:
            raise UserError(f"no successful runs of sweep(s) {', '.join(missing)} in {db}")
    result = build(records, store.attempts(db), opts)
    path = opts.output or default_path(result, records, opts.results_dir)
    if path.exists() and not opts.overwrite:
        raise UserError(
            f"{path} exists; result files are never edited in place (pass --overwrite or --output)"
        )
    if path.exists() and not (path.suffix in resultfile.RESULT_SUFFIXES and _is_result_file(path)):
        raise UserError(f"{path}: exists and is not a result file; --overwrite replaces result files only")
    try:
        resultfile.write_file(result, path)
    except ValueError as e:
        raise UserError(f"export would write an invalid result file, nothing written:\n{e}") from None
    return path, len(result.runs)
