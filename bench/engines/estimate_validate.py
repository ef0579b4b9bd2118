"""How far AIConfigurator's estimates are from published and measured runs: ``llmbench estimate-validate``.

Every run of results/ (MLPerf excepted: MLCommons forbids the comparison, and a scenario is no trtllm-bench
run) that AIConfigurator can model with the same GPU, model, precision, TP/PP/EP, ISL/OSL and concurrency
is paired with the estimate made with the run's own settings (``Task`` from the run; ``bench.engines.
estimate.solve``). No factor is fitted on these pairs: the error reported is the raw model's.

The signed error of a pair is estimate / published - 1 of output tokens/s per GPU (or per user where the
run gives only that). The report gives, per GPU, model config, precision, workload, release and overall,
the median, the 10th and 90th percentiles and the share within +-10 % and +-25 %, the 20 worst pairs, and
why each run that was not paired was left out.
"""

from __future__ import annotations

import collections
import csv
import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.contract.estimate_bands import summary
from bench.engines import estimate as est
from bench.errors import UserError

ENGINE_BACKENDS = {"tensorrt-llm": "trtllm", "vllm": "vllm", "sglang": "sglang"}


@dataclass(frozen=True)
class Candidate:
    """A run of results/ and the estimate task that describes it (or why there is none)."""

    file: str
    run: int
    publisher: str
    release: str
    gpu: str
    model: str
    precision: str
    tp: int
    pp: int
    ep: int | None
    attention_dp: bool
    isl: int
    osl: int
    concurrency: int | None
    metric: str  # tokens_per_s_per_gpu or tokens_per_s_per_user
    published: float | None
    task: est.Task | None
    skip: str | None = None


def _published(run: Any, gpus: int) -> tuple[str, float | None]:
    m = run.metrics
    if m.output_tokens_per_s_per_gpu is not None:
        return "tokens_per_s_per_gpu", m.output_tokens_per_s_per_gpu
    if m.output_tokens_per_s is not None:
        return "tokens_per_s_per_gpu", m.output_tokens_per_s / gpus
    return "tokens_per_s_per_user", m.output_tokens_per_s_per_user


def candidates(results: Path) -> Iterator[Candidate]:
    """Every non-MLPerf run under ``results`` with its estimate task, or the reason it cannot have one."""
    from bench.contract.resultfile import check_file, iter_result_files
    from bench.contract.schema import ResultFile

    for path in sorted(iter_result_files([results])):
        checked = check_file(path, results)
        f = checked.result
        if not isinstance(f, ResultFile):  # MLPerf (schema_version 2) or a file with problems
            continue
        src = f.submission.source
        if src.kind == "modelled":
            continue
        yield from _file_candidates(f, str(path.relative_to(results)))


def _file_candidates(f: Any, name: str) -> Iterator[Candidate]:
    backend = ENGINE_BACKENDS.get(f.software.engine)
    for i, r in enumerate(f.runs):
        p, w = r.parallelism, r.workload
        metric, value = _published(r, p.tp * p.pp)
        skip = None
        task = None
        if backend is None:
            skip = f"engine {f.software.engine}: AIConfigurator models TensorRT-LLM, vLLM and SGLang"
        else:
            try:
                gpu, _ = est.resolve_gpu(f.hardware.gpu)
                model, _, _ = est.resolve_model(f.model.id)
                est.resolve_precision(f.model.weight_precision)
            except UserError as e:
                skip = str(e).split(";")[0]
            else:
                c = est.Config(
                    gpu=gpu,
                    model=model,
                    precision=f.model.weight_precision,
                    tp=p.tp,
                    pp=p.pp,
                    ep=p.ep,
                    attention_dp=p.attention_dp,
                    isl=w.isl,
                    osl=w.osl,
                    backend=backend,
                )
                s = r.engine_settings
                task = est.Task(c, w.concurrency, s.max_batch_size, s.max_num_tokens)
        yield Candidate(
            file=name,
            run=i,
            publisher=f.submission.source.publisher,
            release=f.software.engine_version,
            gpu=f.hardware.gpu,
            model=f.model.id,
            precision=f.model.weight_precision,
            tp=p.tp,
            pp=p.pp,
            ep=p.ep,
            attention_dp=p.attention_dp,
            isl=w.isl,
            osl=w.osl,
            concurrency=w.concurrency,
            metric=metric,
            published=value,
            task=task,
            skip=skip,
        )


PAIR_COLUMNS = [
    "file", "run", "publisher", "release", "gpu", "model", "model_config", "precision", "tp", "pp", "ep",
    "attention_dp", "isl", "osl", "concurrency", "metric", "published", "estimate", "error", "batch_size",
    "ctx_tokens", "ops_silicon", "ops_empirical", "ops_mixed", "search", "mapping", "backend",
]  # fmt: skip


def pair(c: Candidate, out: dict[str, Any]) -> dict[str, Any] | None:
    """The pair row of a run and its estimate, or None when the estimator gave no figure."""
    if "error" in out or c.published is None:
        return None
    value = out[c.metric]
    s, fid = out["settings"], out["fidelity"]
    return {
        "file": c.file, "run": c.run, "publisher": c.publisher, "release": c.release, "gpu": c.gpu,
        "model": c.model, "model_config": out["mapping"]["model_config"], "precision": c.precision,
        "tp": c.tp, "pp": c.pp, "ep": c.ep, "attention_dp": c.attention_dp, "isl": c.isl, "osl": c.osl,
        "concurrency": c.concurrency,
        "metric": c.metric, "published": c.published, "estimate": value, "error": value / c.published - 1,
        "batch_size": s["batch_size"], "ctx_tokens": s["ctx_tokens"],
        "ops_silicon": fid.get("ops_silicon", 0), "ops_empirical": fid.get("ops_empirical", 0),
        "ops_mixed": fid.get("ops_mixed", 0), "search": out.get("search"),
        "mapping": "; ".join(f"{k}: {v}" for k, v in out["mapping"].items()),
        "backend": s["backend_name"],  # a vLLM pair vouches for vLLM estimates only (estimate_bands)
    }  # fmt: skip


@dataclass
class Validation:
    pairs: list[dict[str, Any]]
    skipped: collections.Counter[str]
    estimates: int  # distinct estimates made (the cache's keys), for the speed figure
    seconds: float


def validate(
    results: Path, cache: est.Cache, workers: int | None = None, limit: int | None = None
) -> Validation:
    """Pair every modellable run with its estimate (the first ``limit`` candidates when given)."""
    import time

    est.versions()  # not installed: one clear error, not every run left out with the install hint
    t0 = time.perf_counter()
    cands = list(candidates(results))
    if limit is not None:
        cands = cands[:limit]
    skipped: collections.Counter[str] = collections.Counter(c.skip for c in cands if c.skip)
    tasks = [c.task for c in cands if c.task is not None]
    outs = dict(est.estimate_many(tasks, cache, workers))
    pairs = []
    for c in cands:
        if c.task is None:
            continue
        row = pair(c, outs[c.task])
        if row is None:
            skipped[_estimator_reason(outs[c.task].get("error", "no published figure"))] += 1
        else:
            pairs.append(row)
    return Validation(pairs, skipped, len(set(tasks)), time.perf_counter() - t0)


def _estimator_reason(error: str) -> str:
    """The class of an estimator error, for the table of runs not paired (the pairs file has each one)."""
    if "OOM" in error:
        return (
            "estimator: the model does not fit in GPU memory by AIConfigurator's memory model, at any point"
        )
    if "MoE data missing" in error:
        return "estimator: AIConfigurator has no MoE kernel data for this quantisation and MoE TP/EP"
    if "Invalid quantized MoE configuration" in error:
        return "estimator: quantised MoE slices not a multiple of the quantisation block at this MoE TP"
    return "estimator: " + error.replace("no point fits: ", "")[:100]


# --- The report ---------------------------------------------------------------------------------------


GROUPS = {
    "GPU": "gpu",
    "Model (AIConfigurator config)": "model_config",
    "Precision": "precision",
    "Workload (ISL/OSL)": "workload",
    "Release": "release",
    "Dense or MoE": "moe",
    "GPUs of the run (TP × PP)": "gpus",
    "Metric": "metric",
}


def _key(row: dict[str, Any], col: str) -> str:
    if col == "workload":
        return f"{row['isl']}/{row['osl']}"
    if col == "moe":
        return "MoE" if est.is_moe(row["model"]) else "dense"
    if col == "gpus":
        return str(row["tp"] * row["pp"])
    return str(row[col])


def _table(title: str, groups: dict[str, list[float]]) -> list[str]:
    lines = [
        f"### {title}",
        "",
        "| | pairs | median | p10 | p90 | within ±10 % | within ±25 % |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for k in sorted(groups, key=lambda k: (-len(groups[k]), k)):
        s = summary(groups[k])
        lines.append(
            f"| {k} | {s['n']} | {s['median']:+.1%} | {s['p10']:+.1%} | {s['p90']:+.1%} "
            f"| {s['within10']:.0%} | {s['within25']:.0%} |"
        )
    return [*lines, ""]


def report_markdown(v: Validation, versions: tuple[str, str], subset: str | None) -> str:
    errs = [p["error"] for p in v.pairs]
    lines = [
        "# AIConfigurator estimates against published and measured runs",
        "",
        f"AIConfigurator {versions[0]} (core {versions[1]}); signed error = estimate / published - 1 "
        "of output tokens/s per GPU (per user where the run gives only that); no calibration fitted.",
        f"{len(v.pairs)} pairs, {sum(v.skipped.values())} runs not paired, {v.estimates} distinct estimates "
        f"in {v.seconds:.1f} s.",
    ]
    if subset:
        lines.append(f"Subset: {subset}.")
    lines.append("")
    if errs:
        lines += _table("Overall", {"all": errs})
        for title, col in GROUPS.items():
            g: dict[str, list[float]] = collections.defaultdict(list)
            for p in v.pairs:
                g[_key(p, col)].append(p["error"])
            lines += _table(title, g)
        lines += [
            "### The 20 worst pairs",
            "",
            "| error | published | estimate | GPU | model | precision | TP×PP (EP) | ISL/OSL | conc. "
            "| release | file#run |",
            "|---:|---:|---:|---|---|---|---|---|---|---|---|",
        ]
        worst = sorted(v.pairs, key=lambda p: -abs(math.log1p(p["error"])))[:20]
        for p in worst:
            lines.append(
                f"| {p['error']:+.1%} | {p['published']:,.1f} | {p['estimate']:,.1f} | {p['gpu']} "
                f"| {p['model']} | {p['precision']} | {p['tp']}×{p['pp']} ({p['ep'] or '-'}) "
                f"| {p['isl']}/{p['osl']} "
                f"| {p['concurrency'] or 'max'} | {p['release']} | {p['file']}#{p['run']} |"
            )
        lines.append("")
    lines += ["### Runs not paired", "", "| reason | runs |", "|---|---:|"]
    lines += [f"| {k.replace('|', '/')} | {n} |" for k, n in v.skipped.most_common()]
    return "\n".join(lines) + "\n"


def write_report(v: Validation, out: Path, subset: str | None = None) -> list[Path]:
    """report.md, pairs.csv and pairs.parquet in ``out`` (new files only: an existing one is an error)."""
    paths = [out / "report.md", out / "pairs.csv", out / "pairs.parquet"]
    there = [str(p) for p in paths if p.exists()]
    if there:
        raise UserError(f"{', '.join(there)} already exist: name a new folder (nothing was written)")
    out.mkdir(parents=True, exist_ok=True)
    paths[0].write_text(report_markdown(v, est.versions(), subset), encoding="utf-8")
    with paths[1].open("w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, PAIR_COLUMNS)
        w.writeheader()
        w.writerows(v.pairs)
    import pyarrow as pa
    import pyarrow.parquet as pq

    cols = {c: [p[c] for p in v.pairs] for c in PAIR_COLUMNS}
    pq.write_table(pa.table(cols), paths[2])
    return paths


def grouped(pairs: Iterable[dict[str, Any]], col: str) -> dict[str, dict[str, float]]:
    """Summary per value of a column (for callers and tests)."""
    g: dict[str, list[float]] = collections.defaultdict(list)
    for p in pairs:
        g[_key(p, col)].append(p["error"])
    return {k: summary(v) for k, v in g.items()}
