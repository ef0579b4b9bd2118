"""``llmbench estimate SPEC``: an estimate grid from a YAML spec, written as ``source.kind: modelled`` files.

A spec lists what to cross (every combination is estimated; one that AIConfigurator cannot model is
reported and skipped)::

    systems: [H200 SXM 141GB, B200 180GB]          # registry GPU names or aliases
    models: [meta-llama/Llama-3.1-8B-Instruct]      # registry model ids or aliases
    precisions: [FP8]                               # FP16, BF16, Mixed, FP8, FP4
    parallelism: [{tp: 1}, {tp: 2}, {tp: 8, ep: 8, attention_dp: true}]
    workloads: [{isl: 128, osl: 128}, {isl: 1024, osl: 1024}]
    concurrency: [null, 1, 16, 64]                  # null: max throughput
    backends: [trtllm]                              # trtllm, vllm, sglang (where the data has them)

An unknown system, model or precision is refused before anything is computed, with the list the installed
AIConfigurator supports. One result file per GPU x model x precision x backend is written to the folder
the user names; a file there that ``llmbench estimate`` did not write is never overwritten.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from bench.contract.estimate_bands import band_for
from bench.engines import estimate as est
from bench.errors import UserError

SUBMITTER = "llmbench estimate"
AIC_URL = "https://github.com/ai-dynamo/aiconfigurator"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class SpecParallelism(_Strict):
    tp: int = Field(default=1, ge=1)
    pp: int = Field(default=1, ge=1)
    ep: int | None = Field(default=None, ge=1)
    attention_dp: bool = False


class SpecWorkload(_Strict):
    isl: int = Field(ge=1)
    osl: int = Field(ge=1)


class Spec(_Strict):
    systems: list[str] = Field(min_length=1)
    models: list[str] = Field(min_length=1)
    precisions: list[str] = Field(min_length=1)
    parallelism: list[SpecParallelism] = Field(default=[SpecParallelism()], min_length=1)
    workloads: list[SpecWorkload] = Field(min_length=1)
    concurrency: list[int | None] = Field(default=[None], min_length=1)
    backends: list[str] = Field(default=["trtllm"], min_length=1)


def load_spec(path: Path) -> Spec:
    """The spec, or UserError naming the file, line and field."""
    from bench.contract.problems import LineMap

    text = path.read_text(encoding="utf-8")
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as e:
        raise UserError(f"{path}: not YAML: {e}") from None
    try:
        return Spec.model_validate(data)
    except ValidationError as e:
        lines = LineMap(text)
        msgs = []
        for err in e.errors():
            loc = tuple(err["loc"])
            line = lines.line(loc)
            where = ".".join(str(x) for x in loc) or "(top level)"
            msgs.append(f"{path}:{line or '?'}: {where}: {err['msg']}")
        raise UserError("; ".join(msgs)) from None


def check_names(spec: Spec) -> dict[str, Any]:
    """Every system, model, precision and backend resolved, or one UserError with the supported lists."""
    est.versions()  # not installed: one clear error with the install hint, not one per name
    problems = []
    gpus, models = [], []
    for s in spec.systems:
        try:
            gpus.append(est.resolve_gpu(s)[0])
        except UserError as e:
            problems.append(str(e))
    for m in spec.models:
        try:
            models.append(est.resolve_model(m)[0])
        except UserError as e:
            problems.append(str(e))
    for p in spec.precisions:
        try:
            est.resolve_precision(p)
        except UserError as e:
            problems.append(str(e))
    systems = [est.SYSTEMS[g] for g in gpus]
    problems += est.backend_problems(systems, list(spec.backends), est.supported_systems())
    if problems:
        raise UserError("; ".join(problems))
    return {"gpus": gpus, "models": models}


def tasks(spec: Spec) -> list[est.Task]:
    names = check_names(spec)
    out = []
    for gpu in names["gpus"]:
        for model in names["models"]:
            for prec in spec.precisions:
                for b in spec.backends:
                    for p in spec.parallelism:
                        for w in spec.workloads:
                            c = est.Config(
                                gpu, model, prec, p.tp, p.pp, p.ep, p.attention_dp, w.isl, w.osl, b
                            )
                            out += [est.Task(c, conc) for conc in spec.concurrency]
    return out


_ENGINES = {"trtllm": "tensorrt-llm", "vllm": "vllm", "sglang": "sglang"}


def _run(task: est.Task, out: dict[str, Any]) -> dict[str, Any]:
    c, s = task.config, out["settings"]
    metrics: dict[str, Any] = {
        "output_tokens_per_s": out["tokens_per_s"],
        "output_tokens_per_s_per_gpu": out["tokens_per_s_per_gpu"],
        "output_tokens_per_s_per_user": out["tokens_per_s_per_user"],
        "ttft_ms": {"avg": out["ttft_ms"]},
        "tpot_ms": {"avg": out["tpot_ms"]},
        "request_latency_ms": {"avg": out["request_latency_ms"]},
    }
    par: dict[str, Any] = {"tp": c.tp, "pp": c.pp, "attention_dp": c.attention_dp}
    if c.ep is not None:
        par["ep"] = c.ep
    return {
        "parallelism": par,
        "workload": {"isl": c.isl, "osl": c.osl, "dataset": "fixed ISL/OSL"}
        | ({"concurrency": task.concurrency} if task.concurrency else {}),
        "engine_settings": {"max_batch_size": s["batch_size"], "max_num_tokens": s["ctx_tokens"]},
        "metrics": metrics,
        "estimate": {
            "settings": {k: v for k, v in s.items()},
            "fidelity": out["fidelity"],
            "mapping": out["mapping"],
            "search": out["search"][:500],
            "band": band_for(
                c.gpu, est.is_moe(c.model), c.precision, c.tp, c.pp, backend=c.backend
            ).as_record(),
        },
    }


def _notes(backend: str) -> str:
    text = (
        "Estimates, not measurements: AIConfigurator's Python API (cli_estimate, agg mode) with the "
        "performance-data version passed explicitly. Each run's `estimate` records every argument, the "
        "fidelity, the mapping choices and the measured error band of its category "
        "(bench/data/estimate_validation.csv)."
    )
    if backend == "trtllm":
        return text
    engine = {"vllm": "vLLM", "sglang": "SGLang"}.get(backend, backend)
    return (
        text + f" No published {engine} run in results/ validates these: every band here is unvalidated "
        "(low confidence), its reason says so."
    )


def result_files(results: list[tuple[est.Task, dict[str, Any]]]) -> dict[str, dict[str, Any]]:
    """One result file (as data) per GPU x model x precision x backend, keyed by its file name."""
    from bench.contract.resultfile import slug

    aic, core = est.versions()
    groups: dict[tuple[str, str, str, str], list[tuple[est.Task, dict[str, Any]]]] = defaultdict(list)
    for t, out in results:
        if "error" not in out:
            c = t.config
            groups[(c.gpu, c.model, c.precision, c.backend)].append((t, out))
    files = {}
    for (gpu, model, prec, backend), items in sorted(groups.items()):
        system = est.resolve_gpu(gpu)[1]
        pv = items[0][1]["backend_version"]
        name = f"{slug(gpu)}--{slug(model.split('/')[-1])}--{slug(prec)}--{backend}.yaml"
        files[name] = {
            "schema_version": 1,
            "submission": {
                "submitter": SUBMITTER,
                "system": f"AIConfigurator model of {gpu}",
                "date": dt.date.today(),
                "source": {
                    "kind": "modelled",
                    "publisher": "AIConfigurator",
                    "title": f"AIConfigurator {aic} estimate: {system}, {backend} performance data {pv}",
                    "url": AIC_URL,
                    "notes": _notes(backend),
                    "estimator": {
                        "name": est.ESTIMATOR,
                        "version": aic,
                        "core_version": core,
                        "perf_data_versions": {f"{system}/{backend}": pv},
                    },
                },
            },
            "hardware": {"gpu": gpu},
            "software": {
                "engine": _ENGINES[backend],
                "engine_version": pv,
                "benchmark_tool": "aiconfigurator",
            }
            | ({"workflow": "pytorch"} if backend == "trtllm" else {}),
            "model": {"id": model, "weight_precision": prec},
            "runs": [_run(t, out) for t, out in items],
        }
    return files


def write(files: dict[str, dict[str, Any]], out: Path) -> list[Path]:
    """Validate every file, then write them; a file there that this command did not write is an error."""
    from bench.contract.resultfile import check_text, dump_data, write_texts_atomic

    texts: dict[Path, str] = {}
    for name, data in files.items():
        path = out / name
        if path.exists() and f"submitter: {SUBMITTER}" not in path.read_text(encoding="utf-8"):
            raise UserError(f"{path} exists and was not written by llmbench estimate: nothing was written")
        text = dump_data(data)
        problems = check_text(text, name).problems
        if problems:  # a bug here, not bad input: say which field
            raise UserError(f"{name}: the estimate does not validate: {problems[0]}")
        texts[path] = text
    write_texts_atomic(texts)
    return list(texts)


def run_spec(
    spec_path: Path, out: Path, cache: est.Cache, workers: int | None
) -> tuple[list[Path], list[str]]:
    """Estimate the spec's grid; the files written and one line per combination left out."""
    spec = load_spec(spec_path)
    results = list(est.estimate_many(tasks(spec), cache, workers))
    skipped = [
        f"{t.config.gpu} {t.config.model} {t.config.precision} tp{t.config.tp} pp{t.config.pp} "
        f"{t.config.isl}/{t.config.osl} conc {t.concurrency or 'max'}: {out['error']}"
        for t, out in results
        if "error" in out
    ]
    files = result_files(results)
    return (write(files, out) if files else []), skipped
