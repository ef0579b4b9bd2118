"""What is shared by every engine's jobs: where a job's dataset lives, the launcher (srun/mpirun) and
container around each step, the host list of an mpirun job, and the plan text ``llmbench plan`` prints.

It works on ``bench.sweep.spec``'s jobs and plans and reaches engines only through
``bench.sweep.engine``'s registry (no engine is named here).
"""

from __future__ import annotations

import dataclasses
import re
import shlex
from pathlib import Path
from typing import TYPE_CHECKING

from bench.errors import UserError
from bench.sweep.engine import Step, engine, model_slug

if TYPE_CHECKING:
    from bench.sweep.spec import Job, Plan, Sweep


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
