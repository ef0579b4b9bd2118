"""The seam between sweeps and engines: what an engine plugs in, the registry, launcher and plan text.

``bench.sweep`` drives any engine through ``EngineSpec`` and never names one. Each engine module builds its
``EngineSpec`` and the registry imports the modules listed in ``bench.engines.PLUGINS`` on first use, so the
import graph stays one way (engine -> this module) with no circle. An engine brings:

- its sweep section (``section``, a pydantic model: ``trtllm:``, ``transformers:``), which the sweep model
  gains as an optional key;
- checks of a whole sweep and of one combination, returning the reason it cannot run (or None);
- the steps (command lines) of one job, the ``DatasetMaker`` writing the dataset they read and the
  ``ReportReader`` for what they write;
- its identity (version and workflow) for a job's id and the result file, the installed version for the
  provenance, and the facts stored with each run.

The launcher (srun/mpirun) and container wrapping is shared by all engines (``launch``).
"""

from __future__ import annotations

import dataclasses
import importlib
import re
import shlex
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from pydantic import BaseModel

from bench.errors import UserError

if TYPE_CHECKING:
    from bench.sweep.spec import Job, Plan, Sweep

DEFAULT_KV_FRACTION = 0.90  # trtllm-bench's --kv_cache_free_gpu_mem_fraction when none is passed


@dataclass(frozen=True)
class Step:
    """One command of a job: ``build`` (legacy engines, skipped when ``creates`` exists) or ``benchmark``."""

    name: str
    argv: list[str]
    creates: Path | None = None
    launched: bool = False  # wrapped by the sweep's launcher (mpirun/srun); build steps are not
    dropped: tuple[str, ...] = ()  # settings the release's CLI has no option for, each with the reason

    @property
    def shell(self) -> str:
        return shlex.join(self.argv)


class ReportReader(Protocol):
    """What the runner needs to read a benchmark's output (``bench.trtllm.report`` is one)."""

    ReportError: type[Exception]

    def parse(self, report_json: str | None, console: str, name: str = ...) -> Any: ...
    def has_summary(self, text: str) -> bool: ...
    def diagnose(self, text: str, rc: int | None, timed_out: bool, timeout_s: float) -> Any: ...
    def tail(self, text: str) -> str: ...


def _no_identity(sweep: Sweep) -> tuple[str | None, str | None]:
    return None, None


def _nothing(sweep: Sweep) -> None:
    return None


def _no_check(sweep: Sweep, installed: str | None) -> None:
    return None


class DatasetMaker(Protocol):
    """Writes a job's dataset file (``bench.trtllm.dataset``: prepare_dataset's token-norm-dist)."""

    Params: type

    def tokenizer_facts(self, model_id: str, model_path: str | None) -> Any: ...
    def write(self, p: Any, path: Path) -> Path: ...


def _no_facts(sweep: Sweep) -> dict[str, Any] | None:
    return None


@dataclass(frozen=True)
class EngineSpec:
    """What an engine plugs in: its sweep section, checks, command builder, reader and identity."""

    name: str
    schema_engine: str  # bench.contract.schema Software.engine
    benchmark_tool: str
    section: str  # the sweep file's key for this engine's options
    options: type[BaseModel]
    check_sweep: Callable[[Sweep], str | None]
    check_job: Callable[[Sweep, dict[str, Any]], str | None]
    steps: Callable[[Job, float | None, Path], list[Step]]
    report: ReportReader
    dataset: DatasetMaker
    uses_launcher: bool = True
    # the script that starts the engine's MPI workers under srun/mpirun (trtllm-llmapi-launch), or None
    launcher_script: Callable[[Sweep], str | None] = _nothing
    # (version, workflow) the sweep declares: part of every job's id and of the exported result file
    identity: Callable[[Sweep], tuple[str | None, str | None]] = _no_identity
    # checks before the first job (e.g. files the sweep names), then against the installed version
    before_run: Callable[[Sweep], None] = _nothing
    check_installed: Callable[[Sweep, str | None], None] = _no_check
    installed_version: Callable[[Sweep], str | None] = _nothing
    run_facts: Callable[[Sweep], dict[str, Any] | None] = _no_facts
    # relative paths in the engine's section resolved against the sweep file's folder
    resolve_paths: Callable[[Sweep, Path], Sweep] = lambda sweep, base: sweep
    # what `plan` should say about the sweep as a whole (e.g. commands that could not be checked)
    notes: Callable[[Sweep], list[str]] = lambda sweep: []


_ENGINES: dict[str, EngineSpec] = {}


def engines() -> dict[str, EngineSpec]:
    """Every engine, by the name a sweep's ``engine:`` gives; the plugin modules load on first use."""
    if not _ENGINES:
        plugins = importlib.import_module("bench.engines").PLUGINS
        for module in plugins:
            spec: EngineSpec = importlib.import_module(module).ENGINE
            _ENGINES[spec.name] = spec
    return _ENGINES


def default_engine() -> str:
    return importlib.import_module("bench.engines").DEFAULT


def engine(name: str) -> EngineSpec:
    return engines()[name]


# --- paths shared by every engine's steps ---------------------------------------------------------------


def model_slug(model_id: str) -> str:
    """One path component for a model id or any other sweep value put into a path: never '.', '..' or ''."""
    slug = re.sub(r"[^A-Za-z0-9._-]+", "--", model_id).strip(".")
    return slug or "_"


def dataset_path(job: Job) -> Path:
    """Where the job's dataset lives: one file per (model, workload, seed), shared by the jobs using it."""
    seed = job.spec.dataset.seed
    name = (
        f"token-norm-dist_i{job.isl}s{job.input_stdev}_o{job.osl}s{job.output_stdev}"
        f"_n{job.num_requests}_seed{seed}.jsonl"
    )
    return job.out_dir / "datasets" / model_slug(job.spec.model.id) / name


def prepare_dataset_equivalent(job: Job) -> str:
    """NVIDIA's command that writes the same dataset file (shown by ``plan``; llmbench needs no checkout)."""
    tok = job.spec.model.path or job.spec.model.id
    return (
        f"python benchmarks/cpp/prepare_dataset.py --tokenizer={shlex.quote(tok)} --stdout "
        f"--random-seed {job.spec.dataset.seed} token-norm-dist --num-requests={job.num_requests} "
        f"--input-mean={job.isl} --output-mean={job.osl} --input-stdev={job.input_stdev} "
        f"--output-stdev={job.output_stdev} > {shlex.quote(str(dataset_path(job)))}"
    )


# --- launcher and container ---------------------------------------------------------------------------


def container_prefix_for(sweep: Sweep) -> list[str]:
    """``apptainer exec --nv [--bind ...] IMAGE`` (or singularity), or nothing without a container."""
    c = sweep.cluster.container
    if c is None:
        return []
    binds = [a for b in c.binds for a in ("--bind", b)]
    return [c.runtime, "exec", "--nv", *binds, c.image]


def launch(job: Job, step: Step) -> list[str]:
    """The full argv of a step: launcher (srun/mpirun with the engine's launch script), container, command."""
    cluster, spec = job.spec.cluster, engine(job.engine)
    container = container_prefix_for(job.spec)
    if not step.launched or not spec.uses_launcher or cluster.launcher == "local":
        return [*container, *step.argv]
    world = job.world_size
    # the launch script (trtllm-llmapi-launch) starts the MPI workers of the LLM API on every rank but
    # the first; its name is the release's own (trtllm-hlapi-launch in 0.12)
    script = spec.launcher_script(job.spec)
    wrapped = [*container, *([script] if script else []), *step.argv]
    if cluster.launcher == "mpirun":
        return [
            "mpirun",
            "-n",
            str(world),
            *mpirun_hosts(job),
            "--allow-run-as-root",
            "--oversubscribe",
            *wrapped,
        ]
    per_node = min(world, cluster.gpus_per_node)
    srun = ["srun", f"--nodes={job.nodes}", f"--ntasks={world}", f"--ntasks-per-node={per_node}"]
    if cluster.slurm.srun_mpi:
        srun.append(f"--mpi={cluster.slurm.srun_mpi}")
    return [*srun, *wrapped]


def mpirun_hosts(job: Job) -> list[str]:
    """``-H host1:8,host2:8`` for a job over more than one node; an error when no host list is given.

    Without a host list Open MPI starts every rank on the node it runs on: a "two-node" job would
    oversubscribe one node and measure nothing true. One node needs no list.
    """
    hosts = job.spec.cluster.hosts
    if job.nodes <= 1 and not hosts:
        return []
    if not hosts:
        raise UserError(
            f"job {job.index} ({job.label}) needs {job.nodes} nodes with launcher mpirun, but no host "
            "list is given: set cluster.hosts (e.g. [host1:8, host2:8]) in the sweep file or pass "
            "--hosts host1:8,host2:8 (under Slurm use launcher srun)"
        )
    slots = sum(int(h.rsplit(":", 1)[1]) for h in hosts)
    if slots < job.world_size:
        raise UserError(
            f"job {job.index} ({job.label}) needs {job.world_size} ranks but cluster.hosts "
            f"{','.join(hosts)} has {slots} slots"
        )
    return ["-H", ",".join(hosts)]


HOST_SLOTS = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*:[1-9][0-9]*$")


def with_hosts(plan: Plan, hosts: str | None) -> Plan:
    """The plan with ``--hosts host1:8,host2:8`` in place of the sweep's ``cluster.hosts``, checked: a job
    over several nodes under mpirun without a host list is an error before anything runs."""
    if hosts is not None:
        plan = _replace_hosts(plan, hosts)
    if plan.sweep.cluster.launcher == "mpirun" and engine(plan.sweep.engine).uses_launcher:
        for job in plan.jobs:
            mpirun_hosts(job)
    return plan


def _replace_hosts(plan: Plan, hosts: str) -> Plan:
    listed = [h.strip() for h in hosts.split(",") if h.strip()]
    bad = [h for h in listed if not HOST_SLOTS.match(h)]
    if bad or not listed:
        raise UserError(f"--hosts: expected host:slots,... like host1:8,host2:8, got {hosts!r}")
    cluster = plan.sweep.cluster.model_copy(update={"hosts": listed})
    sweep = plan.sweep.model_copy(update={"cluster": cluster})
    jobs = [dataclasses.replace(j, spec=sweep) for j in plan.jobs]
    return dataclasses.replace(plan, sweep=sweep, jobs=jobs)


def job_steps(job: Job, kv_fraction: float | None, report: Path) -> list[Step]:
    """The job's steps with the launcher applied: what is actually executed."""
    steps = engine(job.engine).steps(job, kv_fraction, report)
    return [Step(s.name, launch(job, s), s.creates, s.launched, s.dropped) for s in steps]


def describe(plan: Plan) -> str:
    """What ``llmbench plan`` prints: every job with its exact commands, then the skipped combinations."""
    head = f"sweep {plan.sweep.name}: {len(plan.jobs)} job(s), {len(plan.skipped)} skipped"
    out = [f"{head}; output in {plan.out_dir}"]
    out += [f"note: {n}" for n in engine(plan.sweep.engine).notes(plan.sweep)]
    for job in plan.jobs:
        kv = job.kv_fraction
        out.append(f"\n[{job.index}] {job.id}  {job.label}")
        out.append(f"  dataset: {dataset_path(job)}")
        out.append(f"    (same file as: {prepare_dataset_equivalent(job)})")
        for step in job_steps(job, kv, job.job_dir / "report-<attempt>-<token>.json"):
            out.append(f"  {step.name}: {step.shell}")
            out += [f"    dropped {d}" for d in step.dropped]
    for s in plan.skipped:
        params = " ".join(f"{k}={v}" for k, v in s.params.items() if v is not None)
        out.append(f"\nskipped {params}\n  because {s.reason}")
    return "\n".join(out)
