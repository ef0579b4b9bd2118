"""One job -> the exact command lines that run it, per engine and TensorRT-LLM version era (pure).

The forms follow trtllm-bench's source and docs per release (docs/reference/bench.md, "Command forms per
version") and are pinned by golden tests:
global options (``--model``, ``--model_path``, ``--workspace``) go BEFORE the subcommand, ``--tp/--pp/--ep``
after ``throughput`` (they are throughput options, not group options). What changes between eras:

===========  ==========================================================================================
0.12         run.py: ``--engine_dir`` required; no --report_json/--concurrency/--streaming/--warmup
0.13-0.16    + --warmup, --concurrency, --streaming, --report_json (engine workflow only)
0.17-0.18    + --backend pytorch (experimental), --extra_llm_api_options, --tp/--pp; no --ep (issue #3583)
0.19-0.21    + --ep; PyTorch opt-in (``--backend pytorch``), default is the TensorRT engine path
1.0-1.1      default backend pytorch; engines need ``--backend tensorrt``; backend name ``_autodeploy``
1.2          + ``--config`` alias of --extra_llm_api_options (NVIDIA's 1.2 commands use it)
1.3rc        ``build`` and the tensorrt backend are gone
===========  ==========================================================================================

Where the notes give no exact first version (--model_path, --report_json) the earliest era that lists it is
assumed. Engines are pluggable: ``ENGINES`` maps a sweep's ``engine`` to a ``EngineSpec`` (checks and a
command builder); the launcher and container wrapping (``launch``) is shared by all engines.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from bench.sweep import Job, Sweep

Version = tuple[int, int]
DEFAULT_KV_FRACTION = 0.90  # trtllm-bench's --kv_cache_free_gpu_mem_fraction when none is passed

# First version with each feature (from the reference notes' era tables).
SINCE: dict[str, Version] = {
    "report_json": (0, 13),
    "concurrency": (0, 13),
    "streaming": (0, 13),
    "warmup": (0, 13),
    "pytorch_backend": (0, 17),
    "extra_llm_api_options": (0, 17),
    "tp_pp": (0, 17),
    "model_path": (0, 17),
    "ep": (0, 19),
    "default_backend_pytorch": (1, 0),
    "config_alias": (1, 2),
    "no_engines": (1, 3),  # build subcommand and the tensorrt backend removed
}


def parse_version(text: str) -> Version:
    """'1.2.0rc5' -> (1, 2); '0.21.0' -> (0, 21)."""
    m = re.match(r"^(\d+)\.(\d+)", text.strip())
    if not m:
        raise ValueError(f"not a version: {text!r}")
    return int(m.group(1)), int(m.group(2))


def has(version: str, feature: str) -> bool:
    return parse_version(version) >= SINCE[feature]


def _ver(v: Version) -> str:
    return f"{v[0]}.{v[1]}"


@dataclass(frozen=True)
class Step:
    """One command of a job: ``build`` (legacy engines, skipped when ``creates`` exists) or ``benchmark``."""

    name: str
    argv: list[str]
    creates: Path | None = None
    launched: bool = False  # wrapped by the sweep's launcher (mpirun/srun); build steps are not

    @property
    def shell(self) -> str:
        return shlex.join(self.argv)


@dataclass(frozen=True)
class EngineSpec:
    """What an engine plugs in: sweep checks, the command builder and the result-file identity."""

    name: str
    schema_engine: str  # bench.schema Software.engine
    benchmark_tool: str
    check_sweep: Callable[[Sweep], str | None]
    check_job: Callable[[Sweep, dict[str, Any]], str | None]
    steps: Callable[[Job, float | None, Path], list[Step]]
    uses_launcher: bool = True


# --- paths shared by the steps ------------------------------------------------------------------------


def model_slug(model_id: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "--", model_id)


def dataset_path(job: Job) -> Path:
    """Where the job's dataset lives: one file per (model, workload, seed), shared by the jobs using it."""
    seed = job.spec.dataset.seed
    name = (
        f"token-norm-dist_i{job.isl}s{job.input_stdev}_o{job.osl}s{job.output_stdev}"
        f"_n{job.num_requests}_seed{seed}.jsonl"
    )
    return job.out_dir / "datasets" / model_slug(job.spec.model.id) / name


def engine_workspace(job: Job) -> Path:
    """Per-engine workspace: engines differ by tp, pp and the build-time limits.

    An engine built from a dataset (no explicit limits) is sized for that dataset's lengths, so it is
    built per workload; one built from explicit limits serves every workload of the sweep.
    """
    root = Path(job.spec.run.workspace).absolute() if job.spec.run.workspace else job.out_dir / "engines"
    q = job.spec.trtllm.build.quantization or "none"
    key = f"tp{job.tp}_pp{job.pp}_mbs{job.max_batch_size or 'auto'}_mnt{job.max_num_tokens or 'auto'}_q{q}"
    if _builds_from_dataset(job):
        key += f"_i{job.isl}s{job.input_stdev}_o{job.osl}s{job.output_stdev}"
    return root / model_slug(job.spec.model.id) / key


def _builds_from_dataset(job: Job) -> bool:
    build = job.spec.trtllm.build
    return build.tool == "trtllm-bench" and not (job.max_batch_size and job.max_num_tokens)


def _longest(job: Job) -> tuple[int, int]:
    """Longest input and sequence over the sweep's workloads (mean + 6 stdev covers a normal sample)."""
    ws = job.spec.workloads
    isl = max(w.isl + 6 * w.input_stdev for w in ws)
    seq = max(w.isl + 6 * w.input_stdev + w.osl + 6 * w.output_stdev for w in ws)
    return isl, seq


def engine_dir(job: Job) -> Path:
    """trtllm-bench build saves to ``<workspace>/<model>/tp_<tp>_pp_<pp>`` (reference notes, section 3)."""
    if job.spec.trtllm.build.tool == "trtllm-build":
        return engine_workspace(job) / "engine"
    return engine_workspace(job) / job.spec.model.id / f"tp_{job.tp}_pp_{job.pp}"


def prepare_dataset_equivalent(job: Job) -> str:
    """NVIDIA's command that writes the same dataset file (shown by ``plan``; llmbench needs no checkout)."""
    tok = job.spec.model.path or job.spec.model.id
    return (
        f"python benchmarks/cpp/prepare_dataset.py --tokenizer={shlex.quote(tok)} --stdout "
        f"--random-seed {job.spec.dataset.seed} token-norm-dist --num-requests={job.num_requests} "
        f"--input-mean={job.isl} --output-mean={job.osl} --input-stdev={job.input_stdev} "
        f"--output-stdev={job.output_stdev} > {shlex.quote(str(dataset_path(job)))}"
    )


# --- trtllm-bench -------------------------------------------------------------------------------------


def _trtllm_check_sweep(sweep: Sweep) -> str | None:
    t = sweep.trtllm
    if t is None:
        return "trtllm: required for engine trtllm-bench (version and workflow at least)"
    v = t.version
    if t.workflow == "pytorch" and not has(v, "pytorch_backend"):
        return (
            f"trtllm.workflow: pytorch needs TensorRT-LLM >= {_ver(SINCE['pytorch_backend'])} "
            f"(version {v} has only the legacy-engine workflow)"
        )
    if t.workflow == "legacy-engine" and has(v, "no_engines"):
        return (
            f"trtllm.workflow: legacy-engine (TensorRT engines) is gone in TensorRT-LLM 1.3; version is {v}"
        )
    if t.extra_llm_api_options and not has(v, "extra_llm_api_options"):
        return (
            f"trtllm.extra_llm_api_options: TensorRT-LLM {v} has no --extra_llm_api_options "
            f"(added in {_ver(SINCE['extra_llm_api_options'])})"
        )
    if t.workflow == "legacy-engine" and t.build.tool == "trtllm-build" and not t.build.checkpoint_dir:
        return "trtllm.build.checkpoint_dir: trtllm-build needs a converted checkpoint directory ({tp}, {pp})"
    if t.workflow == "legacy-engine" and t.backend not in (None, "pytorch"):
        return "trtllm.backend: legacy-engine runs TensorRT engines; leave backend unset"
    return None


def _trtllm_check_job(sweep: Sweep, p: dict[str, Any]) -> str | None:
    v, legacy = sweep.trtllm.version, sweep.trtllm.workflow == "legacy-engine"
    if p["ep"] is not None:
        if legacy:
            return "ep: legacy TensorRT engines take no expert-parallel size"
        if not has(v, "ep"):
            return f"ep: TensorRT-LLM {v} has no --ep (added in {_ver(SINCE['ep'])})"
    if p["concurrency"] is not None and not has(v, "concurrency"):
        return f"concurrency: TensorRT-LLM {v} has no --concurrency (added in {_ver(SINCE['concurrency'])})"
    if p["streaming"] and not has(v, "streaming"):
        return f"streaming: TensorRT-LLM {v} has no --streaming (added in {_ver(SINCE['streaming'])})"
    if legacy and sweep.trtllm.build.tool == "trtllm-bench" and p["tp"] * p["pp"] > 8:
        return "tp x pp > 8: trtllm-bench build rejects it"
    return None


def _global_options(job: Job) -> list[str]:
    m, v = job.spec.model, job.spec.trtllm.version
    argv = ["trtllm-bench", "--model", m.id]
    if m.path and has(v, "model_path"):
        argv += ["--model_path", m.path]
    return argv


def _build_step(job: Job) -> Step:
    b = job.spec.trtllm.build
    ws = engine_workspace(job)
    longest_isl, longest_seq = _longest(job)
    if b.tool == "trtllm-build":
        ckpt = b.checkpoint_dir.format(tp=job.tp, pp=job.pp) if b.checkpoint_dir else ""
        argv = ["trtllm-build", "--checkpoint_dir", ckpt, "--output_dir", str(engine_dir(job))]
        argv += _limits(job)
        # trtllm-build's default max_input_len (1024) would refuse longer prompts of the sweep
        argv += ["--max_input_len", str(longest_isl), "--max_seq_len", str(b.max_seq_len or longest_seq)]
    else:
        argv = [*_global_options(job), "--workspace", str(ws), "build"]
        argv += ["--tp_size", str(job.tp), "--pp_size", str(job.pp)]
        if b.quantization:
            argv += ["--quantization", b.quantization]
        # exactly one build mode: the dataset (max seq len and average ISL/OSL), else explicit limits,
        # which need --max_seq_len: the longest sequence of the sweep, as the engine serves every workload
        if _builds_from_dataset(job):
            argv += ["--max_seq_len", str(b.max_seq_len)] if b.max_seq_len else []
            argv += ["--dataset", str(dataset_path(job))]
        else:
            argv += ["--max_seq_len", str(b.max_seq_len or longest_seq), *_limits(job)]
    argv += b.extra_args
    return Step("build", argv, creates=engine_dir(job) / "config.json")


def _limits(job: Job) -> list[str]:
    argv = []
    if job.max_batch_size:
        argv += ["--max_batch_size", str(job.max_batch_size)]
    if job.max_num_tokens:
        argv += ["--max_num_tokens", str(job.max_num_tokens)]
    return argv


def _throughput_step(job: Job, kv_fraction: float | None, report: Path) -> Step:
    t = job.spec.trtllm
    v, legacy = t.version, t.workflow == "legacy-engine"
    argv = [*_global_options(job), "throughput"]
    if not legacy and has(v, "tp_pp"):
        argv += ["--tp", str(job.tp), "--pp", str(job.pp)]
        if job.ep is not None:
            argv += ["--ep", str(job.ep)]
    argv += ["--dataset", str(dataset_path(job))]
    if legacy:
        argv += ["--engine_dir", str(engine_dir(job))]
        if has(v, "default_backend_pytorch"):
            argv += ["--backend", "tensorrt"]
    else:
        argv += ["--backend", _backend_name(t.backend or "pytorch", v)]
    if t.extra_llm_api_options:
        flag = "--config" if has(v, "config_alias") else "--extra_llm_api_options"
        argv += [flag, t.extra_llm_api_options]
    argv += _limits(job)
    if kv_fraction is not None:
        argv += ["--kv_cache_free_gpu_mem_fraction", f"{kv_fraction:g}"]
    if job.spec.run.warmup is not None and has(v, "warmup"):
        argv += ["--warmup", str(job.spec.run.warmup)]
    if job.concurrency is not None:
        argv += ["--concurrency", str(job.concurrency)]
    if job.streaming:
        argv += ["--streaming"]
    if has(v, "report_json"):
        argv += ["--report_json", str(report)]
    return Step("benchmark", argv, launched=True)


def _backend_name(backend: str, version: str) -> str:
    if backend in ("_autodeploy", "autodeploy"):
        return "_autodeploy" if has(version, "default_backend_pytorch") else "autodeploy"
    return backend


def _trtllm_steps(job: Job, kv_fraction: float | None, report: Path) -> list[Step]:
    steps = []
    if job.spec.trtllm.workflow == "legacy-engine":
        steps.append(_build_step(job))
    steps.append(_throughput_step(job, kv_fraction, report))
    return steps


ENGINES: dict[str, EngineSpec] = {
    "trtllm-bench": EngineSpec(
        name="trtllm-bench",
        schema_engine="tensorrt-llm",
        benchmark_tool="trtllm-bench",
        check_sweep=_trtllm_check_sweep,
        check_job=_trtllm_check_job,
        steps=_trtllm_steps,
    ),
}

# Other engines add themselves to ENGINES when their module is imported (one line each).
import bench.engines.transformers_sweep  # noqa: E402, F401  (engine: transformers, issue 6)


def engine(name: str) -> EngineSpec:
    return ENGINES[name]


def check_sweep(sweep: Sweep) -> str | None:
    return engine(sweep.engine).check_sweep(sweep)


def check_job_params(sweep: Sweep, params: dict[str, Any]) -> str | None:
    return engine(sweep.engine).check_job(sweep, params)


# --- launcher and container ---------------------------------------------------------------------------


def container_prefix_for(sweep: Sweep) -> list[str]:
    """``apptainer exec --nv [--bind ...] IMAGE`` (or singularity), or nothing without a container."""
    c = sweep.cluster.container
    if c is None:
        return []
    binds = [a for b in c.binds for a in ("--bind", b)]
    return [c.runtime, "exec", "--nv", *binds, c.image]


def launch(job: Job, step: Step) -> list[str]:
    """The full argv of a step: launcher (srun/mpirun with trtllm-llmapi-launch), container, command."""
    cluster, spec = job.spec.cluster, engine(job.engine)
    container = container_prefix_for(job.spec)
    if not step.launched or not spec.uses_launcher or cluster.launcher == "local":
        return [*container, *step.argv]
    world = job.world_size
    # trtllm-llmapi-launch starts the MPI workers of the LLM API on every rank but the first
    llmapi = [*container, "trtllm-llmapi-launch", *step.argv]
    if cluster.launcher == "mpirun":
        return ["mpirun", "-n", str(world), "--allow-run-as-root", "--oversubscribe", *llmapi]
    per_node = min(world, cluster.gpus_per_node)
    srun = ["srun", f"--nodes={job.nodes}", f"--ntasks={world}", f"--ntasks-per-node={per_node}"]
    if cluster.slurm.srun_mpi:
        srun.append(f"--mpi={cluster.slurm.srun_mpi}")
    return [*srun, *llmapi]


def job_steps(job: Job, kv_fraction: float | None, report: Path) -> list[Step]:
    """The job's steps with the launcher applied: what is actually executed."""
    steps = engine(job.engine).steps(job, kv_fraction, report)
    return [Step(s.name, launch(job, s), s.creates, s.launched) for s in steps]


def describe(plan: Any) -> str:
    """What ``llmbench plan`` prints: every job with its exact commands, then the skipped combinations."""
    head = f"sweep {plan.sweep.name}: {len(plan.jobs)} job(s), {len(plan.skipped)} skipped"
    out = [f"{head}; output in {plan.out_dir}"]
    for job in plan.jobs:
        kv = job.kv_fraction
        out.append(f"\n[{job.index}] {job.id}  {job.label}")
        out.append(f"  dataset: {dataset_path(job)}")
        out.append(f"    (same file as: {prepare_dataset_equivalent(job)})")
        for step in job_steps(job, kv, job.job_dir / "report-<attempt>.json"):
            out.append(f"  {step.name}: {step.shell}")
    for s in plan.skipped:
        params = " ".join(f"{k}={v}" for k, v in s.params.items() if v is not None)
        out.append(f"\nskipped {params}\n  because {s.reason}")
    return "\n".join(out)
