"""Run identity: which runs are the same run (``run_ids``), for duplicate detection and citable ids.

A run's id is 12 hex digits of a SHA-1 over its source and configuration (never its metrics), computed
from validated result data (plain dicts with every default filled in), so it does not depend on the order
of keys in the file or on which defaults were written out.
"""

from __future__ import annotations

import hashlib
import json
import operator
from typing import Any

from bench.contract import registry
from bench.contract.schema import EngineSettings, Parallelism, ResultFile, Workload, is_mlperf

_PARALLELISM = operator.itemgetter(*Parallelism.model_fields)
_WORKLOAD = operator.itemgetter(*Workload.model_fields)
_SETTINGS = operator.itemgetter(*(f for f in EngineSettings.model_fields if f != "extra"))


def _file_key(data: dict[str, Any]) -> str:
    """The submission-level part of every run key: source, GPU, model, engine (canonical names)."""
    src, hw, m, s = data["submission"]["source"], data["hardware"], data["model"], data["software"]
    gpu = registry.gpus().find(hw["gpu"])
    model = registry.models().find(m["id"])
    return repr(
        (
            src["publisher"],
            src["title"],
            str(src["url"]) if src["url"] is not None else None,
            gpu.name if gpu else hw["gpu"],
            model.id if model else m["id"],
            m["weight_precision"],
            m["kv_cache_dtype"],
            m["weights"],
            s["engine"],
            s["engine_version"],
            s["workflow"],
            s["benchmark_tool"],
            hw["nodes"],
        )
    )


def _run_key(run: dict[str, Any]) -> str:
    """The run-level part: parallelism, workload and engine settings, never the metrics.

    Which figures a run gives is not part of it either: one measurement is one run whatever figures its
    source published (the importer merges NVIDIA's per-metric blog rows into one run), so two runs of the
    same configuration are the same run even when each gives a different figure.
    """
    e = run["engine_settings"]
    extra = json.dumps(e["extra"], sort_keys=True, default=str) if e["extra"] else None
    # itemgetters over every field in schema order: canonical whatever the key order in the file; one flat
    # tuple (nested tuples cost a third more to repr, and this runs for every run)
    return repr((*_PARALLELISM(run["parallelism"]), *_WORKLOAD(run["workload"]), *_SETTINGS(e), extra))


def run_ids(data: dict[str, Any]) -> list[str]:
    """Stable, citable 12-hex ids of a file's runs (validated dicts), from source and configuration only.

    Two runs with the same id are the same run: same source, GPU, model, precision, engine and settings.
    An MLPerf run (schema_version 2) is one round x submitter x system x division x benchmark x scenario.
    """
    if is_mlperf(data):
        return _mlperf_ids(data)
    prefix = hashlib.sha1(_file_key(data).encode())
    out = []
    for r in data["runs"]:
        h = prefix.copy()  # the file's part is hashed once
        h.update(_run_key(r).encode())
        out.append(h.hexdigest()[:12])
    return out


def run_id(result: ResultFile, run_index: int) -> str:
    """The id of one run of a model (see ``run_ids``; prefer that for many runs)."""
    return run_ids(result.model_dump())[run_index]


def _mlperf_ids(data: dict[str, Any]) -> list[str]:
    m = data["mlperf"]
    prefix = repr(("mlperf", m["round"], data["submission"]["submitter"], m["system_id"]))
    keys = (repr((r["division"], r["benchmark"], r["scenario"])) for r in data["runs"])
    return [hashlib.sha1(f"{prefix}{k}".encode()).hexdigest()[:12] for k in keys]
