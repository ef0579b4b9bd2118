"""Run a planned sweep on this node: dataset, commands with a timeout, logs, parsing, retries, storage.

For each job (``run_plan``): write its dataset if not cached, record the attempt as ``running``, run its
steps (a legacy engine is built once and reused), each in its own process group with its output in
``jobs/<job>/attempt-<n>-<token>.log`` and killed at the timeout; parse ``report-<n>-<token>.json``
(only if this attempt's process wrote it) then the console summary; store the outcome in the runs
database whatever happened. Log and report paths are new for every attempt (the token), so a process
left by an earlier, killed runner can never write into the files of a later attempt. A stop signal
kills the command's group and records the attempt; a killed runner's command gets the parent-death
signal; a ``running`` row left by a dead runner is ended by the next run (see ``bench.sweep.procs``).
An out-of-memory failure is retried with the next lower KV-cache fraction of
``settings.kv_cache_fallback`` (0.90, 0.80 by default: a sweep starting at NVIDIA's 0.95 goes
0.95 -> 0.90 -> 0.80; one with no start value, the tool's 0.90, goes on at 0.80) and each attempt is
recorded with the one it retried. No job's failure stops the sweep; the runner's own failure to write
(a full disk: dataset, log, runs database) does, in one line naming the file. A progress bar shows done,
failed, remaining and the ETA.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import os
import secrets
import shlex
import socket
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from bench.errors import UserError
from bench.sweep import procs, provenance, store
from bench.sweep.engine import DEFAULT_KV_FRACTION, Step, engine
from bench.sweep.launch import dataset_path, job_steps
from bench.sweep.spec import Job, Plan


@dataclass
class Attempt:
    """The outcome of one attempt of one job (one row of the runs database)."""

    number: int
    kv_fraction: float | None
    status: str = "failed"
    error: str | None = None
    log_tail: str | None = None
    exit_code: int | None = None
    parsed: Any = None  # the engine's parsed report (bench.trtllm.report.Report)
    command: str = ""
    started_at: dt.datetime = field(default_factory=lambda: dt.datetime.now(dt.UTC))
    finished_at: dt.datetime | None = None
    retry_of: int | None = None
    token: str = field(default_factory=lambda: secrets.token_hex(4))
    child_pgid: int | None = None
    child_started: int | None = None


@dataclass
class Summary:
    ok: int = 0
    failed: int = 0
    skipped_done: int = 0
    attempts: int = 0
    retries: int = 0
    failures: list[str] = field(default_factory=list)


def log_path(job: Job, att: Attempt) -> Path:
    return job.job_dir / f"attempt-{att.number}-{att.token}.log"


def report_path(job: Job, att: Attempt) -> Path:
    return job.job_dir / f"report-{att.number}-{att.token}.json"


# --- one process, with a timeout ----------------------------------------------------------------------


def run_process(
    argv: list[str],
    log: Path,
    timeout_s: float,
    grace_s: float,
    on_start: Callable[[int], None] | None = None,
) -> tuple[int | None, bool]:
    """Run argv with its output appended to ``log``; kill its process group at the timeout.

    The command leads its own process group and gets SIGKILL if the runner dies (parent-death signal);
    ``on_start(pid)`` records it before we wait. Any exception while waiting (a stop signal:
    ``procs.Interrupted``) kills the group first. Returns (exit code, timed out). A missing executable
    is exit code 127, as a shell would say.
    """
    with log.open("a", encoding="utf-8") as f:
        f.write(f"# llmbench: {shlex.join(argv)}\n")
        f.flush()
        known = procs.children()  # a child of ours not in here afterwards is an orphan of the command
        try:
            proc = subprocess.Popen(
                argv,
                stdout=f,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                preexec_fn=procs.die_with_parent(),
            )
        except OSError as e:
            f.write(f"# llmbench: cannot start {argv[0]}: {e}\n")
            return 127, False
        try:
            if on_start:
                on_start(proc.pid)
            return proc.wait(timeout=timeout_s), False
        except subprocess.TimeoutExpired:
            procs.kill_group(proc, grace_s)
            f.write(f"# llmbench: killed after the {timeout_s:g} s timeout\n")
            return proc.returncode, True
        except BaseException as e:
            procs.kill_group(proc, grace_s)
            f.write(f"# llmbench: stopped ({type(e).__name__}: {e}); killed the command's process group\n")
            raise
        finally:
            # Exit code 0 or not, nothing the command started outlives it: a rank left behind holds GPU
            # memory the next attempt needs (the runner is a subreaper: ranks that left the group too).
            left = procs.end_leftovers(proc.pid, known, grace_s)
            if left:
                with contextlib.suppress(OSError):
                    f.write(f"# llmbench: ended what the command left running: {', '.join(left)}\n")


# --- one attempt ----------------------------------------------------------------------------------------


Record = Callable[["Attempt"], None]


def run_attempt(job: Job, att: Attempt, record: Record | None = None) -> Attempt:
    """Run the job's steps once at the attempt's KV-cache fraction and classify the outcome.

    ``record(att)`` is called with the attempt marked ``running`` before the first command starts and
    again once each command's process group is known; on a stop signal the attempt is recorded as
    failed ("interrupted") before the signal goes on up.
    """
    kv_fraction = att.kv_fraction
    log, rep = log_path(job, att), report_path(job, att)
    _new_log(job, log)
    steps = job_steps(job, kv_fraction, rep)
    report = engine(job.engine).report
    att.command = "\n".join(s.shell for s in steps)
    timeout, grace = job.spec.run.timeout_s, job.spec.run.kill_grace_s
    att.status = "running"
    launched = time.time()

    def started(pid: int) -> None:
        att.child_pgid, att.child_started = pid, procs.start_ticks(pid)
        if record:
            record(att)

    if record:
        record(att)
    try:
        rc, timed_out, ran = _run_steps(steps, log, timeout, grace, started)
    except procs.Interrupted as e:
        att.status, att.error = "failed", f"interrupted by {e}: the runner was stopped and killed the command"
        att.finished_at = dt.datetime.now(dt.UTC)
        att.log_tail = report.tail(log.read_text(encoding="utf-8", errors="replace"))
        if record:
            record(att)
        raise
    except OSError as e:  # the runner's own log (a full disk): record the attempt, then stop the sweep
        att.status, att.error = "failed", f"cannot write {e.filename or log}: {e.strerror or e}"
        att.finished_at = dt.datetime.now(dt.UTC)
        if record:
            record(att)
        raise cannot_write(e, log, job, recorded=record is not None) from None
    att.status = "failed"
    att.exit_code, text = rc, log.read_text(encoding="utf-8", errors="replace")
    att.finished_at = dt.datetime.now(dt.UTC)
    att.log_tail = report.tail(text)
    if ran != "benchmark":  # a build step failed or timed out; a lower KV fraction would not help
        diag = report.diagnose(text, rc, timed_out, timeout)
        att.status = "timeout" if timed_out else "failed"
        att.error = f"{ran} step: {diag.message}"
        return att
    if not timed_out and (rc == 0 or report.has_summary(text)):
        try:
            att.parsed = report.parse(_own_report(rep, launched), text, rep.name)
            att.status, att.log_tail = "ok", None
            return att
        except (report.ReportError, OSError) as e:
            att.error = f"exit code {rc} but no usable result: {e}"
    diag = report.diagnose(text, rc, timed_out, timeout)
    att.status = diag.kind
    att.error = att.error if att.error and diag.kind == "failed" else diag.message
    return att


def _new_log(job: Job, log: Path) -> None:
    """The attempt's empty log; a folder or disk that takes no file stops the sweep (nothing recorded)."""
    try:
        job.job_dir.mkdir(parents=True, exist_ok=True)
        log.write_text("", encoding="utf-8")
    except OSError as e:
        raise cannot_write(e, log, job, recorded=False) from None


def _run_steps(
    steps: list[Step], log: Path, timeout: float, grace: float, started: Callable[[int], None]
) -> tuple[int | None, bool, str | None]:
    """The steps in order (one whose output exists is reused), up to a timeout or a failed build step;
    returns (exit code, timed out, the last step run)."""
    rc, timed_out, ran = None, False, None
    for step in steps:
        if step.creates and step.creates.exists():
            _note(log, f"{step.name}: {step.creates} exists, reusing it")
            continue
        ran = step.name
        rc, timed_out = run_process(step.argv, log, timeout, grace, started)
        if timed_out or (rc != 0 and step.name != "benchmark"):
            break
    return rc, timed_out, ran


def cannot_write(e: OSError, default: Path, job: Job, recorded: bool) -> UserError:
    """The sweep stops when the runner cannot write its own files (log, dataset): a full disk or an
    unwritable folder would fail every later job the same way. One line naming the file (a failed
    ``write()`` names none: ``default``, the file being written)."""
    done = f"job [{job.index}] recorded as failed" if recorded else f"job [{job.index}] not started"
    return UserError(
        f"{e.filename or default}: {e.strerror or e}; the sweep stopped ({done}): "
        "make room, then run it again with --resume"
    )


def _own_report(rep: Path, launched: float) -> str | None:
    """The report's text if this attempt's command wrote it (path unique to the attempt, written after
    the launch: clock steps of a second are tolerated), else None (the console summary is used)."""
    try:
        if rep.stat().st_mtime < launched - 1.0:
            return None
        return rep.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None


def _note(log: Path, text: str) -> None:
    with log.open("a", encoding="utf-8") as f:
        f.write(f"# llmbench: {text}\n")


def next_kv(job: Job, current: float | None) -> float | None:
    """The next lower KV-cache fraction to try after an out-of-memory failure, or None."""
    now = current if current is not None else DEFAULT_KV_FRACTION
    lower = [f for f in job.spec.settings.kv_cache_fallback if f < now - 1e-9]
    return max(lower) if lower else None


# --- one job, with retries ------------------------------------------------------------------------------


def run_job(job: Job, db: Path, env: provenance.Env) -> list[Attempt]:
    """Attempts until success, a non-OOM failure, or the KV fallbacks run out; each one stored at once."""
    out: list[Attempt] = []
    kv, retry_of = job.kv_fraction, None
    number = store.next_attempt(db, job.id)
    while True:
        att = Attempt(number, kv, retry_of=retry_of)
        att = run_attempt(job, att, lambda a: store.insert(db, _row(job, a, env), replace=True))
        store.insert(db, _row(job, att, env), replace=True)
        out.append(att)
        if att.status != "oom":
            return out
        kv, retry_of, number = next_kv(job, kv), number, number + 1
        if kv is None:
            return out


def _row(job: Job, att: Attempt, env: provenance.Env) -> dict[str, Any]:
    m = att.parsed.metrics if att.parsed else None
    finished = att.finished_at or dt.datetime.now(dt.UTC)
    return {
        "job_id": job.id,
        "attempt": att.number,
        "sweep": job.sweep,
        "job_index": job.index,
        "label": job.label,
        "engine": job.engine,
        "status": att.status,
        "error": att.error,
        "log_tail": att.log_tail,
        "exit_code": att.exit_code,
        "kv_fraction": att.kv_fraction,
        "retry_of": att.retry_of,
        "started_at": att.started_at.replace(tzinfo=None),
        "finished_at": finished.replace(tzinfo=None),
        "wall_s": (finished - att.started_at).total_seconds(),
        "command": att.command,
        "log_path": str(log_path(job, att)),
        "report_path": str(report_path(job, att)),
        "report_source": att.parsed.source if att.parsed else None,
        "report_era": att.parsed.era if att.parsed else None,
        "output_tokens_per_s": m.get("output_tokens_per_s") if m else None,
        "output_tokens_per_s_per_gpu": m.get("output_tokens_per_s_per_gpu") if m else None,
        "job": job.config(),
        "metrics": m,
        "report": _facts(att.parsed, job) if att.parsed else None,
        "environment": env,
        "sweep_spec": job.spec.model_dump(mode="json"),
        "host": socket.gethostname(),
        "runner_pid": os.getpid(),
        "runner_started": procs.start_ticks(os.getpid()),
        "child_pgid": att.child_pgid,
        "child_started": att.child_started,
    }


def _facts(r: Any, job: Job) -> dict[str, Any]:
    return {
        "engine": r.engine,
        "world": r.world,
        "requests": r.requests,
        "extra": r.extra,
        "llm_api_options": (engine(job.engine).run_facts(job.spec) or {}).get("llm_api_options"),
    }


# --- datasets -------------------------------------------------------------------------------------------


def dataset_params(plan: Plan) -> dict[str, Any]:
    """Vocabulary and EOS for the sweep's model: the sweep's overrides, else the checkpoint's tokenizer."""
    ds, m = plan.sweep.dataset, plan.sweep.model
    if ds.vocab_size is not None and ds.eos_id is not None:
        return {"vocab_size": ds.vocab_size, "eos_id": ds.eos_id, "tokenizer_source": "sweep file"}
    facts = engine(plan.sweep.engine).dataset.tokenizer_facts(m.id, m.path)
    return {
        "vocab_size": ds.vocab_size or facts.vocab_size,
        "eos_id": ds.eos_id if ds.eos_id is not None else facts.eos_id,
        "tokenizer_source": facts.source,
    }


def write_dataset(job: Job, tok: dict[str, Any]) -> Path:
    dataset = engine(job.engine).dataset
    p = dataset.Params(
        num_requests=job.num_requests,
        input_mean=job.isl,
        input_stdev=job.input_stdev,
        output_mean=job.osl,
        output_stdev=job.output_stdev,
        vocab_size=tok["vocab_size"],
        eos_id=tok["eos_id"],
        seed=job.spec.dataset.seed,
    )
    return dataset.write(p, dataset_path(job))


# --- the sweep ------------------------------------------------------------------------------------------


def select(plan: Plan, only: set[int] | None) -> list[Job]:
    if only is None:
        return plan.jobs
    unknown = sorted(only - {j.index for j in plan.jobs})
    if unknown:
        raise UserError(f"--only: no job with index {unknown} (the plan has jobs 0..{len(plan.jobs) - 1})")
    return [j for j in plan.jobs if j.index in only]


def run_plan(
    plan: Plan,
    db: Path,
    resume: bool = False,
    only: set[int] | None = None,
    console: Console | None = None,
    progress: bool = True,
) -> Summary:
    """Run every selected job; never stop on a job's failure; return what happened."""
    console = console or Console(stderr=True, highlight=False)
    jobs = select(plan, only)
    store.ensure(db)
    summary = Summary()
    settle_running(db, plan, {j.id for j in jobs}, console)
    if resume:
        done = store.completed(db, plan.sweep.name)
        summary.skipped_done = sum(j.id in done for j in jobs)
        jobs = [j for j in jobs if j.id not in done]
    if not jobs:
        console.print(f"nothing to run ({summary.skipped_done} job(s) already done)")
        return summary
    tok, env = _before_first_job(plan, jobs, console)
    with procs.interrupts(), procs.subreaper(), _progress(console, progress) as bar:
        task = bar.add_task(plan.sweep.name, total=len(jobs), ok=0, failed=0, left=len(jobs))
        for job in jobs:
            bar.update(task, description=escape(f"[{job.index}] {job.label}"))
            _run_one(job, db, env, tok, summary, console)
            left = len(jobs) - summary.ok - summary.failed
            bar.update(task, advance=1, ok=summary.ok, failed=summary.failed, left=left)
    return summary


def settle_running(db: Path, plan: Plan, selected: set[str], console: Console) -> None:
    """Deal with attempts still marked ``running`` before starting any job.

    A runner that still lives (same pid and start time, this host) is running that job now: refuse to
    start beside it. A dead runner's command, if any of its process group is left, is ended; the row
    becomes ``failed``. A row from another host cannot be checked from here: refuse, naming the host.
    """
    host = socket.gethostname()
    for rec in store.running(db, plan.sweep.name):
        where = f"job [{rec['job_index']}] {rec['label']} (attempt {rec['attempt']})"
        if rec["host"] != host:
            if rec["job_id"] in selected:
                raise UserError(
                    f"{where} is marked running by llmbench pid {rec['runner_pid']} on host {rec['host']}; "
                    f"it cannot be checked from {host}: run `llmbench run --resume` there (it settles it) "
                    "or wait for that runner"
                )
            continue
        if procs.alive(rec["runner_pid"], rec["runner_started"]):
            if rec["job_id"] in selected:
                raise UserError(
                    f"{where} is being run by llmbench pid {rec['runner_pid']} on this host: wait for it, "
                    f"or stop it (kill {rec['runner_pid']}) and run again"
                )
            continue
        ended = bool(rec["child_pgid"]) and procs.end_group(
            rec["child_pgid"], rec["child_started"], plan.sweep.run.kill_grace_s
        )
        what = (
            f"; its command (process group {rec['child_pgid']}) was still running and was ended"
            if ended
            else ""
        )
        values = dict(rec.values)
        values |= {
            "status": "failed",
            "error": f"interrupted: the runner (pid {rec['runner_pid']}) died during the attempt{what}",
            "finished_at": dt.datetime.now(dt.UTC).replace(tzinfo=None),
        }
        store.insert(db, values, replace=True)
        console.print(f"[yellow]note[/yellow]: {escape(where + ': ' + values['error'])}")


def _before_first_job(plan: Plan, jobs: list[Job], console: Console) -> tuple[dict[str, Any], provenance.Env]:
    """Checked and gathered once per process: options file, tokenizer facts, provenance, version, GPUs."""
    eng = engine(plan.sweep.engine)
    eng.before_run(plan.sweep)  # e.g. a missing options file stops us before any job
    tok = dataset_params(plan)
    env: provenance.Env = provenance.capture(plan.sweep, plan.out_dir) | {
        "dataset_vocab_size": tok["vocab_size"],
        "dataset_eos_id": tok["eos_id"],
        "dataset_tokenizer_source": tok["tokenizer_source"],
    }
    eng.check_installed(plan.sweep, env.get("trtllm_version"))  # type: ignore[arg-type]
    gpus = env.get("gpu_count")
    short = [j.index for j in jobs if isinstance(gpus, int) and j.nodes == 1 and j.world_size > gpus]
    if short:
        console.print(f"[yellow]warning[/yellow]: this node has {gpus} GPU(s); job(s) {short} need more")
    return tok, env


def _run_one(
    job: Job, db: Path, env: provenance.Env, tok: dict[str, Any], summary: Summary, console: Console
) -> None:
    try:
        write_dataset(job, tok)
    except (OSError, UserError) as e:  # recorded like any failure; the sweep goes on unless it cannot write
        where = dataset_path(job)
        error = (
            f"dataset: {e.filename or where}: {e.strerror or e}"
            if isinstance(e, OSError)
            else f"dataset: {e}"
        )
        att = Attempt(store.next_attempt(db, job.id), job.kv_fraction, error=error)
        att.finished_at = dt.datetime.now(dt.UTC)
        store.insert(db, _row(job, att, env))
        if isinstance(e, OSError):
            raise cannot_write(e, where, job, recorded=True) from None
        attempts = [att]
    else:
        attempts = run_job(job, db, env)
    _tell(job, attempts, summary, console)


def _tell(job: Job, attempts: list[Attempt], summary: Summary, console: Console) -> None:
    """Count the job's outcome and print one line for it."""
    last, retries = attempts[-1], len(attempts) - 1
    summary.attempts += len(attempts)
    summary.retries += retries
    retry = f" (after {retries} OOM retr{'y' if retries == 1 else 'ies'})" if retries else ""
    if last.status == "ok":
        summary.ok += 1
        tps = last.parsed.metrics.get("output_tokens_per_s") if last.parsed else None
        shown = f"{tps:,.1f} output tok/s" if tps else "ok"
        console.print(f"[green]ok[/green]     {escape(f'[{job.index}] {job.label}: {shown}{retry}')}")
        return
    summary.failed += 1
    line = f"[{job.index}] {job.label}: {last.status}: {last.error}{retry}; log {log_path(job, last)}"
    summary.failures.append(line)
    console.print(f"[red]failed[/red] {escape(line)}")


def _progress(console: Console, enabled: bool) -> Progress:
    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("ok {task.fields[ok]} · failed {task.fields[failed]} · left {task.fields[left]}"),
        TextColumn("ETA"),
        TimeRemainingColumn(),
        console=console,
        transient=False,
        disable=not enabled,
    )
