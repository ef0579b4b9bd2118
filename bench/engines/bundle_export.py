"""transformers_suite bundles -> one result file of measured runs (head side: uses llmbench's own deps).

A suite run on a lent GPU (``python3 -m bench.engines.transformers_suite``) brings back ``bundle.json`` (plan,
environment, one trtllm-bench-format report per job) and ``log.txt``. This turns every finished job of one or
more bundles into a run of one ``ResultFile``: metrics through
``bench.trtllm.report.parse_json`` (the same parser as
``llmbench run``), the batching mode in ``engine_settings.extra``, random weights in ``model.weights``, and
notes that say how the run differs from the published TensorRT-LLM runs (fewer requests, warm-up excluded).
Written with ``bench.contract.resultfile.write_file``: validated, then renamed into place.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.contract import registry, resultfile
from bench.contract.schema import ResultFile
from bench.trtllm import report

MODE_NOTES = {
    "generate": "plain batched model.generate (dynamic KV cache), eager PyTorch",
    "static": "model.generate with a static KV cache; transformers compiles the decode step with "
    "torch.compile (mode reduce-overhead, CUDA graphs)",
    "continuous": "transformers continuous batching (generate_batch manager: paged KV cache, "
    "chunked prefill)",
}


@dataclass(frozen=True)
class Submission:
    """Who and what the file is about (the parts a bundle cannot know)."""

    submitter: str
    system: str
    title: str
    gpu: str
    notes: str
    reference: dict[tuple[int, int], int]  # (isl, osl) -> the num_requests the compared source used


@dataclass(frozen=True)
class Bundle:
    """One suite output folder, the plan it ran (path as cited in the runs' commands) and the UTC day it
    ran: its log gives times of day only. ``drop`` names finished jobs whose runs stay out of the file (a
    repeat that checked an exported point, an outlier its repeat did not reproduce); the submission's
    notes say why."""

    folder: Path
    plan: str
    day: dt.date
    drop: frozenset[str] = field(default_factory=frozenset)
    machine: str | None = None  # which lent machine ran it (a repetition says so); None: not known


def _done_times(log: str, day: dt.date) -> dict[str, dt.datetime]:
    """When each job finished, from the suite's log lines ``[HH:MM:SS] done <name> ...`` (UTC)."""
    out = {}
    for m in re.finditer(r"^\[(\d\d):(\d\d):(\d\d)\] done (\S+)", log, re.MULTILINE):
        h, mi, s, name = int(m.group(1)), int(m.group(2)), int(m.group(3)), m.group(4)
        out[name] = dt.datetime(day.year, day.month, day.day, h, mi, s, tzinfo=dt.UTC)
    return out


def _run(job: dict[str, Any], plan_path: str, when: dt.datetime | None, sub: Submission) -> dict[str, Any]:
    rep = job["report"]
    parsed = report.parse_json(json.dumps(rep), f"{job['name']}/report.json")
    mode, runner = rep["engine"]["batching"], rep.get("transformers_runner", {})
    world = rep["world_info"]
    ref = sub.reference.get((job["isl"], job["osl"]))
    notes = [f"batching {mode}: {MODE_NOTES[mode]}"]
    notes.append(
        f"warm-up{' and compilation' if runner.get('compiled') else ''}"
        f" ({runner.get('warmup_s')} s) not timed"
    )
    if ref and job["num_requests_used"] < ref:
        notes.append(
            f"num_requests reduced to {job['num_requests_used']} (the published runs used {ref})"
            " to fit the GPU lease"
        )
    notes.append("random weights of the architecture (throughput does not depend on weight values)")
    concurrency = (rep["engine"].get("settings") or {}).get("concurrency")
    if concurrency:
        notes.append(
            f"closed loop at concurrency {concurrency}: each batch submitted when the one before finished,"
            " each request timed from its own batch's start; TTFT/TPOT from per-step token timestamps"
        )
    else:
        notes.append("offline: all requests submitted at the start; TTFT/TPOT from per-step token timestamps")
    return {
        "parallelism": {"tp": 1, "pp": 1},
        "workload": {
            "isl": job["isl"],
            "osl": job["osl"],
            "num_requests": job["num_requests_used"],
            "concurrency": concurrency,
            "dataset": "token-norm-dist",
            "input_stdev": 0.0,
            "output_stdev": 0.0,
        },
        "engine_settings": {
            "max_batch_size": world.get("max_batch_size"),
            "max_num_tokens": world.get("max_num_tokens"),
            "extra": rep["engine"].get("settings")
            or {
                "batching": mode,
                "torch_compile": bool(runner.get("compiled", False)),
                "attn_implementation": rep["engine"].get("attn_implementation"),
            },
        },
        "metrics": parsed.metrics,
        "timestamp": when,
        "command": f"python3 -m bench.engines.transformers_suite {plan_path} $OUT  # job {job['name']}\n"
        + job.get("command", ""),
        "notes": "; ".join(notes),
    }


def _same_point(job: dict[str, Any]) -> tuple[Any, ...]:
    """What makes two jobs repetitions of one point: workload, request count, batching mode, concurrency."""
    settings = job["report"]["engine"].get("settings") or {}
    return (
        job["isl"],
        job["osl"],
        job["num_requests_used"],
        job["batching_used"],
        settings.get("concurrency"),
    )


def _median_metrics(reps: list[dict[str, Any]]) -> dict[str, Any]:
    """Figure by figure, the median over repetitions of the figures every repetition has."""
    import statistics

    out: dict[str, Any] = {}
    for key, first in reps[0].items():
        if isinstance(first, dict):
            sub = {
                q: statistics.median(r[key][q] for r in reps) for q in first if all(key in r for r in reps)
            }
            out[key] = sub
        elif all(key in r for r in reps):
            out[key] = statistics.median(r[key] for r in reps)
    return out


def _merge(group: list[tuple[dict[str, Any], Bundle, str]]) -> dict[str, Any]:
    """Repetitions of one point -> one run: the median figures, each repetition kept with its call."""
    runs = [r for r, _b, _job in group]
    if len(runs) == 1:
        return runs[0]
    merged = dict(runs[0])
    merged["metrics"] = _median_metrics([r["metrics"] for r in runs])
    merged["repetitions"] = [
        {"metrics": r["metrics"], "timestamp": r["timestamp"], "call": f"{b.folder.name} {job}"}
        | ({"machine": b.machine} if b.machine else {})
        for r, b, job in group
    ]
    stamps = [r["timestamp"] for r in runs if r["timestamp"] is not None]
    merged["timestamp"] = max(stamps) if stamps else None
    tput = sorted(r["metrics"]["output_tokens_per_s"] for r in runs)
    merged["notes"] = (
        f"{runs[0]['notes']}; figures are the median of {len(runs)} repetitions, each on its own model load"
        f" (output tok/s {tput[0]:.4g} to {tput[-1]:.4g})"
    )
    return merged


def build(bundles: list[Bundle], day: dt.date, sub: Submission, repeats: bool = False) -> ResultFile:
    """One result file, submitted on ``day``, from suite output folders (bundle.json and log.txt each).

    ``repeats``: finished jobs of the same point (``_same_point``) in several bundles become one run with
    ``repetitions`` and median figures, in the place of the point's first bundle; otherwise each is a run.
    """
    runs, env, version, model_id, dtype = [], {}, set(), set(), set()
    groups: dict[tuple[Any, ...], list[tuple[dict[str, Any], Bundle, str]]] = {}
    for b in bundles:
        data = json.loads((b.folder / "bundle.json").read_text(encoding="utf-8"))
        log = (b.folder / "log.txt").read_text(encoding="utf-8") if (b.folder / "log.txt").exists() else ""
        times = _done_times(log, b.day)
        env = data["environment"] | env
        finished = [job for job in data["jobs"] if "report" in job]
        unknown = b.drop - {job["name"] for job in finished}
        if unknown:
            raise ValueError(f"{b.folder}: no finished job named {', '.join(sorted(unknown))} to drop")
        for job in finished:
            if job["name"] in b.drop:
                continue
            version.add(job["report"]["engine"]["version"])
            model_id.add(job["report"]["engine"]["model"])
            dtype.add(job["report"]["engine"]["dtype"])
            run = _run(job, b.plan, times.get(job["name"]), sub)
            key = _same_point(job) if repeats else (len(groups),)
            groups.setdefault(key, []).append((run, b, job["name"]))
    runs = [_merge(g) for g in groups.values()]
    if len(version) != 1 or len(model_id) != 1 or len(dtype) != 1:
        raise ValueError(f"bundles differ in engine version, model or dtype: {version}, {model_id}, {dtype}")
    precision = {"bfloat16": "BF16", "float16": "FP16", "float32": "FP32"}[dtype.pop()]
    mid = model_id.pop()
    data = {
        "schema_version": 1,
        "submission": {
            "submitter": sub.submitter,
            "system": sub.system,
            "date": day,
            "source": {"kind": "measured", "publisher": "llmbench", "title": sub.title, "notes": sub.notes},
        },
        "hardware": {
            "gpu": registry.gpus().get(sub.gpu).name,
            "gpu_label": env.get("gpu_name"),
            "gpus_per_node": env.get("gpu_count") or 1,
            "cpu": env.get("cpu"),
        },
        "software": {
            "engine": "transformers",
            "engine_version": version.pop(),
            "benchmark_tool": "llmbench-transformers",
        },
        "model": {
            "id": registry.models().get(mid).id,
            "label": f"{mid} architecture, random weights",
            "weight_precision": precision,
            "kv_cache_dtype": precision,
            "weights": "random",
        },
        "environment": {k: v for k, v in env.items() if isinstance(v, str | int | float | bool) or v is None},
        "runs": runs,
    }
    return ResultFile.model_validate(data)


def write(result: ResultFile, path: Path) -> Path:
    """Validate and write atomically (never in place over another file's content by accident)."""
    resultfile.write_file(result, path)
    return path


def main(argv: list[str] | None = None) -> int:
    import argparse

    p = argparse.ArgumentParser(
        prog="python -m bench.engines.bundle_export", description=__doc__.split("\n")[0]
    )
    p.add_argument(
        "--bundle", nargs=3, action="append", metavar=("DIR", "PLAN", "DAY"), required=True,
        help="a suite output folder, its plan and the UTC day it ran (YYYY-MM-DD); repeatable",
    )  # fmt: skip
    p.add_argument(
        "--drop", nargs=2, action="append", default=[], metavar=("DIR", "JOB"),
        help="leave that bundle's finished job out of the file (say why in --notes); repeatable",
    )  # fmt: skip
    p.add_argument(
        "--machine", nargs=2, action="append", default=[], metavar=("DIR", "LABEL"),
        help="which lent machine that bundle ran on (kept with each repetition); repeatable",
    )  # fmt: skip
    p.add_argument(
        "--repeats", action="store_true",
        help="jobs of the same point in several bundles become one run: median figures, each repetition kept",
    )  # fmt: skip
    p.add_argument("--date", type=dt.date.fromisoformat, required=True, help="the submission's date")
    p.add_argument("--gpu", required=True, help="Canonical GPU name (the registry's).")
    p.add_argument("--submitter", required=True)
    p.add_argument("--system", required=True)
    p.add_argument("--title", required=True)
    p.add_argument("--notes", default="")
    p.add_argument("--reference", nargs=3, type=int, action="append", default=[], metavar=("ISL", "OSL", "N"))
    p.add_argument("--out", type=Path, required=True)
    a = p.parse_args(argv)
    ref = {(i, o): n for i, o, n in a.reference}
    sub = Submission(a.submitter, a.system, a.title, a.gpu, a.notes, ref)
    drops: dict[Path, set[str]] = {}
    for folder, job in a.drop:
        drops.setdefault(Path(folder), set()).add(job)
    known = {Path(d) for d, _plan, _day in a.bundle}
    if drops.keys() - known:
        p.error(f"--drop names a folder that no --bundle gives: {', '.join(map(str, drops.keys() - known))}")
    bundles = []
    for d, plan, day in a.bundle:
        try:
            ran = dt.date.fromisoformat(day)
        except ValueError:
            p.error(f"--bundle {d} {plan} {day}: the day is not a date (YYYY-MM-DD)")
        machine = next((label for folder, label in a.machine if Path(folder) == Path(d)), None)
        bundles.append(Bundle(Path(d), plan, ran, frozenset(drops.get(Path(d), ())), machine))
    result = build(bundles, a.date, sub, repeats=a.repeats)
    print(f"wrote {write(result, a.out)}: {len(result.runs)} run(s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
