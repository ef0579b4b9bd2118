"""Submit a sweep to Slurm: render sbatch scripts, submit them with sbatch, poll squeue/sacct until done.

Two modes (``cluster.slurm.mode``): ``array`` renders one job array per distinct job shape (nodes and GPUs
per node), each array task running ``llmbench run SWEEP --only $SLURM_ARRAY_TASK_ID --resume`` for one job
of the plan; ``single`` renders one job that runs the whole sweep in order. Inside the allocation the
sweep's launcher (``srun ... trtllm-llmapi-launch`` for multi-GPU/multi-node, or local) and container
(``apptainer/singularity exec --nv``) apply as in ``llmbench run``; every task writes to the same runs
database (DuckDB, locked per insert). ``llmbench submit --dry-run`` prints the scripts and submits nothing.
The Slurm commands honour ``SLURM_CONF`` like any Slurm client.
"""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from bench.errors import UserError
from bench.sweep.spec import DEFAULT_MAX_JOBS, Job, Plan


@dataclass(frozen=True)
class Script:
    """One sbatch script and the plan's jobs it covers."""

    name: str
    text: str
    jobs: list[int]


def llmbench_command() -> list[str]:
    """The llmbench entry point of this installation (the compute nodes share it)."""
    beside = Path(sys.executable).with_name("llmbench")
    return [str(beside)] if beside.exists() else [shutil.which("llmbench") or "llmbench"]


def _shape(job: Job) -> tuple[int, int]:
    """(nodes, GPUs per node) a job needs."""
    per_node = min(job.world_size, job.spec.cluster.gpus_per_node)
    return job.nodes, per_node


def render(
    plan: Plan,
    sweep_file: Path,
    db: Path,
    workdir: Path | None = None,
    done: set[str] | None = None,
    max_jobs: int = DEFAULT_MAX_JOBS,
) -> list[Script]:
    """The sbatch scripts of a plan (pure but for resolving paths); jobs whose id is in ``done`` are left
    out (no array task would queue for a GPU node only to find its job already done)."""
    s = plan.sweep
    if not plan.jobs:
        raise UserError(f"{sweep_file}: the sweep has no runnable job (see `llmbench plan`)")
    todo = [j for j in plan.jobs if j.id not in (done or set())]
    if not todo:
        return []
    run = [
        *llmbench_command(), "run", str(sweep_file.absolute()), "--out", str(plan.out_dir),
        "--runs-db", str(db.absolute()), "--resume", "--no-progress",
    ]  # fmt: skip
    if max_jobs != DEFAULT_MAX_JOBS:  # the tasks expand the same plan, under the same raised limit
        run += ["--max-jobs", str(max_jobs)]
    cwd = str((workdir or Path.cwd()).absolute())
    if s.cluster.slurm.mode == "single":
        nodes = max(j.nodes for j in todo)
        gpus = max(_shape(j)[1] for j in todo)
        text = _script(plan, f"llmbench-{s.name}", nodes, gpus, None, cwd, shlex.join(run))
        return [Script(f"llmbench-{s.name}", text, [j.index for j in todo])]
    groups: dict[tuple[int, int], list[int]] = {}
    for j in todo:
        groups.setdefault(_shape(j), []).append(j.index)
    scripts = []
    for (nodes, gpus), indices in sorted(groups.items()):
        name = f"llmbench-{s.name}-n{nodes}g{gpus}" if len(groups) > 1 else f"llmbench-{s.name}"
        cmd = f'{shlex.join(run)} --only "$SLURM_ARRAY_TASK_ID"'
        scripts.append(Script(name, _script(plan, name, nodes, gpus, indices, cwd, cmd), indices))
    return scripts


# Any line break would end a '#SBATCH' comment or a shell line and start a command of its own.
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def _directive(key: str, value: str) -> str:
    """'--key=value', the value quoted as sbatch's own parser reads quotes (a folder with spaces)."""
    if _CONTROL.search(value):  # the sweep model refuses these; a path from elsewhere must not slip in
        raise UserError(f"sbatch --{key}: expected one line without control characters, got {value!r}")
    return f"--{key}={shlex.quote(value)}"


def _script(plan: Plan, name: str, nodes: int, gpus: int, array: list[int] | None, cwd: str, cmd: str) -> str:
    sl = plan.sweep.cluster.slurm
    logs = plan.out_dir / "slurm"
    d = [_directive("job-name", name), f"--nodes={nodes}", f"--ntasks-per-node={gpus}"]
    if sl.request_gpus:
        d.append(f"--gpus-per-node={gpus}")
    if array is not None:
        throttle = f"%{sl.max_parallel}" if sl.max_parallel else ""
        d.append(f"--array={','.join(map(str, array))}{throttle}")
        d.append(_directive("output", f"{logs}/%x-%A_%a.out"))
    else:
        d.append(_directive("output", f"{logs}/%x-%j.out"))
    d += [
        _directive(k, v)
        for k, v in (("partition", sl.partition), ("account", sl.account), ("time", sl.time_limit))
        if v
    ]
    d += sl.extra_directives  # written as in a script, quotes included; one line each (sweep model)
    for line in [*sl.extra_directives, *sl.setup, cwd, cmd]:
        if _CONTROL.search(line):
            raise UserError(f"sbatch script: expected one line without control characters, got {line!r}")
    lines = [
        "#!/bin/bash",
        *(f"#SBATCH {x}" for x in d),
        "set -euo pipefail",
        *sl.setup,
        f"cd {shlex.quote(cwd)}",
    ]
    lines.append(f"exec {cmd}")
    return "\n".join(lines) + "\n"


def _slurm(argv: list[str], timeout: float = 60) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(argv, capture_output=True, text=True, timeout=timeout, check=False)
    except FileNotFoundError:
        raise UserError(f"{argv[0]} not found: run `llmbench submit` on a Slurm login node") from None


def submit(scripts: list[Script], out_dir: Path) -> list[str]:
    """Write each script to ``<out>/slurm/<name>.sbatch`` and submit it; return the Slurm job ids."""
    folder = out_dir / "slurm"
    folder.mkdir(parents=True, exist_ok=True)
    ids = []
    for s in scripts:
        path = folder / f"{s.name}.sbatch"
        path.write_text(s.text, encoding="utf-8")
        res = _slurm(["sbatch", "--parsable", str(path)])
        if res.returncode != 0:
            raise UserError(f"sbatch {path} failed: {res.stderr.strip() or res.stdout.strip()}")
        ids.append(res.stdout.strip().split(";")[0])
    return ids


def queued(job_ids: list[str]) -> list[str]:
    """States of the jobs (and array tasks) still in squeue; an unreachable controller is an error."""
    res = _slurm(["squeue", "-h", "-j", ",".join(job_ids), "-o", "%T"])
    if res.returncode != 0:
        if "invalid job id" in res.stderr.lower():  # every id has left the queue
            return []
        raise UserError(f"squeue failed: {res.stderr.strip() or res.stdout.strip()}")
    return [line.strip() for line in res.stdout.splitlines() if line.strip()]


def parse_sacct(text: str) -> dict[str, str]:
    """``sacct -n -P -X -o JobID,State`` lines -> {job id: first word of the state} ("CANCELLED by 0")."""
    pairs = (line.strip().split("|", 1) for line in text.splitlines() if "|" in line)
    return {job: (state.split() or ["UNKNOWN"])[0] for job, state in pairs}


def final_states(job_ids: list[str]) -> dict[str, str]:
    """'<job>[_<task>]' -> final state, from sacct, or scontrol where accounting is disabled."""
    res = _slurm(["sacct", "-n", "-P", "-X", "-j", ",".join(job_ids), "-o", "JobID,State"])
    if res.returncode == 0 and res.stdout.strip():
        return parse_sacct(res.stdout)
    states = {}
    for jid in job_ids:
        out = _slurm(["scontrol", "show", "job", "-o", jid]).stdout
        for line in out.splitlines():
            f = dict(kv.split("=", 1) for kv in line.split() if "=" in kv)
            key = (
                f"{f.get('ArrayJobId', f.get('JobId'))}_{f['ArrayTaskId']}"
                if "ArrayTaskId" in f
                else f.get("JobId")
            )
            states[str(key)] = f.get("JobState", "UNKNOWN")
    return states


def wait(job_ids: list[str], poll_s: float = 10.0, timeout_s: float | None = None) -> dict[str, str]:
    """Poll until none of the jobs is queued or running; return their final states."""
    deadline = time.monotonic() + timeout_s if timeout_s else None
    while queued(job_ids):
        if deadline and time.monotonic() > deadline:
            raise UserError(f"Slurm jobs {', '.join(job_ids)} still queued after {timeout_s:g} s")
        time.sleep(poll_s)
    return final_states(job_ids)
