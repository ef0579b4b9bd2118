"""The ``llmbench`` command line: the only module that knows both packages.

Commands are listed in workflow order (plan -> run/submit -> export -> validate -> ingest -> site) and each
is a few lines that call one function. Every ``UserError`` is caught once here: one message, exit 1.
Heavy imports (DuckDB, pandas, Altair, MkDocs) happen inside the commands so ``--help`` stays instant.
"""

from __future__ import annotations

import functools
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import typer
from rich.console import Console
from rich.markup import escape

from bench.errors import ProblemsError, UserError

app = typer.Typer(
    help="Benchmark LLM inference with TensorRT-LLM and publish the results as a static site.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
err = Console(stderr=True, highlight=False, soft_wrap=True)

# Shared options, defined once.
RESULTS_DIR = typer.Option(Path("results"), "--results", help="Folder of result files (YAML).")
DB_PATH = typer.Option(Path("build/llmbench.duckdb"), "--db", help="DuckDB database file built by ingest.")


_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def printable(text: str) -> str:
    """Control characters (terminal escape codes in file names, keys, values) as visible \\xNN."""
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


_LINE_BREAKS = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def safe(value: object) -> str:
    """A path or name on one line for rich: every control character and line break as \\xNN (a line
    feed in a file name must not forge an output line), markup escaped."""
    text = _LINE_BREAKS.sub(lambda m: ascii(m.group())[1:-1], str(value))
    return escape(text)


def user_errors(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Turn a UserError into one red line on stderr and exit status 1."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except UserError as e:
            for problem in e.problems if isinstance(e, ProblemsError) else []:
                err.print(printable(str(problem)), markup=False)
            # messages quote user input verbatim: markup escaped, control characters shown as \xNN
            err.print(f"[red]error:[/red] {escape(printable(str(e)))}")
            sys.exit(1)

    return wrapper


def command(name: str | None = None, **kw: Any) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register a command on the root app with the shared error handling."""

    def deco(fn: Callable[..., Any]) -> Callable[..., Any]:
        app.command(name, **kw)(user_errors(fn))
        return fn

    return deco


# --- bench (issue 5: trtllm-bench sweeps) ----------------------------------------------------------
# Workflow order: plan -> run (this node) or submit (Slurm) -> export. Node-side: no pandas/altair/mkdocs.
SWEEP_FILE = typer.Argument(..., exists=True, dir_okay=False, help="Sweep file (YAML).")
OUT_DIR = typer.Option(None, "--out", help="Sweep output folder (default: build/sweeps/NAME).")
RUNS_DB = typer.Option(Path("build/runs.duckdb"), "--runs-db", help="DuckDB runs database (every attempt).")
MAX_JOBS = typer.Option(
    10_000, "--max-jobs", min=1, help="Most combinations a sweep may make (checked before expanding it)."
)
HOSTS = typer.Option(
    None,
    "--hosts",
    help="mpirun host list host1:8,host2:8 (replaces cluster.hosts; jobs over several nodes).",
)


@command("plan")
def plan_cmd(
    sweep_file: Path = SWEEP_FILE, out: Path = OUT_DIR, hosts: str = HOSTS, max_jobs: int = MAX_JOBS
) -> None:
    """Print the sweep's jobs and their exact commands (and the combinations skipped, with why)."""
    from bench.sweep.launch import describe, with_hosts
    from bench.sweep.spec import load_plan

    print(describe(with_hosts(load_plan(sweep_file, out, max_jobs), hosts)))


@command("run")
def run_cmd(
    sweep_file: Path = SWEEP_FILE,
    out: Path = OUT_DIR,
    runs_db: Path = RUNS_DB,
    resume: bool = typer.Option(False, "--resume", help="Skip jobs that already have a successful run."),
    only: str = typer.Option(None, "--only", help="Comma-separated job indices (as `plan` numbers them)."),
    progress: bool = typer.Option(True, "--progress/--no-progress", help="Live progress bar."),
    hosts: str = HOSTS,
    max_jobs: int = MAX_JOBS,
) -> None:
    """Run the sweep on this node; every attempt lands in the runs database; exit 1 if any job failed."""
    from bench.sweep.execute import run_plan
    from bench.sweep.launch import with_hosts
    from bench.sweep.procs import Interrupted
    from bench.sweep.spec import load_plan

    console = Console(stderr=True, highlight=False)
    try:
        indices = {int(x) for x in only.split(",")} if only else None
    except ValueError:
        raise UserError(
            f"--only: expected job indices like 0,3 (as `plan` numbers them), got {only!r}"
        ) from None
    plan = with_hosts(load_plan(sweep_file, out, max_jobs), hosts)
    try:
        summary = run_plan(plan, runs_db, resume=resume, only=indices, console=console, progress=progress)
    except Interrupted as e:  # the command was killed and the attempt recorded as interrupted
        err.print(
            f"[red]stopped[/red] by {e}: the running job's command was ended; runs in {escape(str(runs_db))}"
        )
        raise typer.Exit(e.exit_code) from None
    err.print(
        f"{summary.ok} ok, {summary.failed} failed, {summary.skipped_done} already done, "
        f"{summary.retries} OOM retr{'y' if summary.retries == 1 else 'ies'}; runs in {runs_db}"
    )
    if summary.failed:
        raise typer.Exit(1)


@command("submit")
def submit_cmd(
    sweep_file: Path = SWEEP_FILE,
    out: Path = OUT_DIR,
    runs_db: Path = RUNS_DB,
    dry_run: bool = typer.Option(False, "--dry-run", help="Print the sbatch script(s); submit nothing."),
    wait: bool = typer.Option(True, "--wait/--no-wait", help="Poll squeue/sacct until the jobs end."),
    poll_s: float = typer.Option(10.0, "--poll-s", help="Seconds between polls."),
    timeout_s: float = typer.Option(None, "--timeout-s", help="Give up waiting after this long."),
    max_jobs: int = MAX_JOBS,
) -> None:
    """Submit the sweep through Slurm (sbatch; a job array, or one job per sweep)."""
    from bench.sweep import slurm, store
    from bench.sweep.spec import load_plan

    plan = load_plan(sweep_file, out, max_jobs)
    done = store.completed(runs_db, plan.sweep.name)
    scripts = slurm.render(plan, sweep_file, runs_db, done=done, max_jobs=max_jobs)
    if not scripts:
        err.print(
            f"nothing to submit: all {len(plan.jobs)} job(s) already have a successful run in {runs_db}"
        )
        return
    if done:
        err.print(f"{len(done & {j.id for j in plan.jobs})} job(s) already done in {runs_db} are left out")
    if dry_run:
        for s in scripts:
            print(f"# --- {s.name}.sbatch (jobs {','.join(map(str, s.jobs))})\n{s.text}")
        return
    store.ensure(runs_db)  # created once here, not raced for by the array tasks
    ids = slurm.submit(scripts, plan.out_dir)
    err.print(f"submitted {', '.join(ids)} ({len(plan.jobs)} job(s)); logs in {plan.out_dir / 'slurm'}")
    if not wait:
        return
    states = slurm.wait(ids, poll_s, timeout_s)
    shown = ", ".join(f"{k} {v}" for k, v in sorted(states.items())) or "final states unknown"
    done = store.completed(runs_db, plan.sweep.name)
    missing = [j.index for j in plan.jobs if j.id not in done]
    err.print(f"Slurm: {shown}; {len(plan.jobs) - len(missing)} of {len(plan.jobs)} job(s) ok ({runs_db})")
    if missing:
        err.print(f"[red]no successful run[/red] for job(s) {', '.join(map(str, missing))} (`llmbench plan`)")
        raise typer.Exit(1)


@command("export")
def export_cmd(
    runs_db: Path = RUNS_DB,
    sweep: list[str] = typer.Option(None, "--sweep", help="Sweep name(s) to export (default: all)."),
    results_dir: Path = RESULTS_DIR,
    output: Path = typer.Option(None, "--output", help="Result file (default: a path under --results)."),
    submitter: str = typer.Option(None, "--submitter", help="Who measured (default: publish.submitter)."),
    system: str = typer.Option(None, "--system", help="System name (default: publish.system or hostname)."),
    overwrite: bool = typer.Option(False, "--overwrite", help="Replace an existing result file."),
) -> None:
    """Write the successful runs as one validated result file under results/, ready for a pull request."""
    from bench.sweep.export import ExportOptions, export

    opts = ExportOptions(results_dir, output, submitter, system, overwrite)
    path, runs = export(runs_db, sweep or None, opts)
    err.print(
        f"[green]wrote[/green] {safe(path)} ({runs} run(s)); check it with `llmbench validate {safe(path)}`"
    )


# --- results store (issue: results store) ------------------------------------------------------------


@command("import-csv")
def import_csv_cmd(
    csv_file: Path = typer.Argument(..., exists=True, dir_okay=False, help="CSV of published figures."),
    results_dir: Path = RESULTS_DIR,
    publisher: str = typer.Option(None, "--publisher", help="Default: CSV column, else 1st word of title."),
    submitter: str = typer.Option("llmbench import-csv", "--submitter", help="Who adds the files."),
    benchmark_tool: str = typer.Option("trtllm-bench", "--benchmark-tool", help="If the CSV has no column."),
    dry_run: bool = typer.Option(False, "--dry-run", help="Check and list the files; write nothing."),
) -> None:
    """Turn a CSV of published numbers into result files (one per source, release, GPU, model, precision)."""
    from bench.importers.tables import build, count_runs, read_csv, write_files

    rows = read_csv(csv_file)
    files = build(rows, csv_file.name, publisher, submitter, benchmark_tool)
    if not dry_run:
        write_files(files, results_dir)
    for rel in files:
        print(safe(results_dir / rel))
    verb = "would write" if dry_run else "wrote"
    made = f"{len(files):,} file(s), {count_runs(files):,} run(s) from {len(rows):,} row(s)"
    err.print(f"[green]{verb}[/green] {made} under {safe(results_dir)} from {safe(csv_file.name)}")


@command("import-mlperf")
def import_mlperf_cmd(
    csv_file: Path = typer.Argument(..., exists=True, dir_okay=False, help="MLPerf Inference results CSV."),
    benchmarks: Path = typer.Option(
        None,
        "--benchmarks",
        exists=True,
        dir_okay=False,
        help="Benchmark facts CSV: check each row's limits.",
    ),
    results_dir: Path = RESULTS_DIR,
    retrieved: str = typer.Option(None, "--retrieved", help="Date the CSV was retrieved (YYYY-MM-DD)."),
    replace: bool = typer.Option(
        False, "--replace", help="Remove the files under results/mlperf/ that the CSV no longer holds."
    ),
    dry_run: bool = typer.Option(False, "--dry-run", help="Check and list the files; write nothing."),
) -> None:
    """Turn MLCommons' MLPerf Inference results into result files (one per round, submitter and system).

    Only the files under results/mlperf/ that this command wrote are replaced; an import that would
    remove some (a CSV of one round) stops unless --replace is given.
    """
    import datetime as dt

    from bench.importers import mlperf

    try:
        date = dt.date.fromisoformat(retrieved) if retrieved else mlperf.RETRIEVED
    except ValueError:
        raise UserError(f"--retrieved: expected a date YYYY-MM-DD, got {retrieved!r}") from None
    limits = mlperf.read_limits(benchmarks) if benchmarks else None
    out = mlperf.build(mlperf.read_csv(csv_file), csv_file.name, date, limits)
    if dry_run:
        _, done = mlperf.plan_write(out, results_dir, replace=True)
    else:
        done = mlperf.write_files(out, results_dir, replace)
    for rel in done.written:
        print(safe(results_dir / rel))
    for rel in done.removed:
        print(f"removed {safe(results_dir / rel)}")
    verb = "would write" if dry_run else "wrote"
    made = f"{len(done.written):,} file(s), {out.runs:,} run(s) from {out.rows:,} row(s)"
    err.print(
        f"[green]{verb}[/green] {made} under {safe(results_dir / mlperf.OUT_DIR)} from {safe(csv_file.name)}"
    )
    if done.unchanged:
        err.print(f"{len(done.unchanged):,} file(s) already as the CSV has them: left untouched")
    if done.removed:
        verb = "would remove" if dry_run else "removed"
        err.print(f"{verb} {len(done.removed):,} file(s) the CSV no longer holds")
    err.print(f"left out {out.cpu_only:,} CPU-only row(s) (accelerator N/A)")


@command("validate")
def validate_cmd(
    paths: list[Path] = typer.Argument(None, help="Files or folders to check (default: results/)."),
    results_dir: Path = RESULTS_DIR,
) -> None:
    """Check result files against the schema and registries; report every problem; exit 1 if any."""
    from bench.contract import quality
    from bench.contract.resultfile import check_many, find_duplicates, scan

    found = scan(paths or [results_dir])
    for skipped in found.skipped:
        err.print(printable(str(skipped)), markup=False, highlight=False)
    files = found.files
    if found.problems and not files:
        raise ProblemsError(found.problems, "in the folders scanned")
    if not files:
        raise UserError(f"no result files (*.yaml) in {', '.join(map(str, paths or [results_dir]))}")
    root = results_dir if all(p.is_relative_to(results_dir) for p in files) else Path.cwd()
    outcomes = check_many(files, root, payload_fn=quality.neighbour_payload)
    problems = found.problems + [p for o in outcomes for p in o.problems] + find_duplicates(outcomes, root)
    # runs far from the same configuration in the releases around theirs, per-user rates above all users'
    # (bench.contract.quality): listed for review, not refused
    warnings = quality.all_warnings(((o.file, o.payload or []) for o in outcomes), root)
    for p in [*problems, *warnings]:
        print(printable(str(p)))
    runs = sum(len(o.run_ids) for o in outcomes)
    said = f", {len(warnings)} warning(s)" if warnings else ""
    if problems:
        err.print(f"[red]{len(problems)} problem(s)[/red]{said} in {len(files)} file(s)")
        raise typer.Exit(1)
    err.print(f"[green]ok[/green]: {len(files)} file(s), {runs:,} run(s){said}")


@command("ingest")
def ingest_cmd(results_dir: Path = RESULTS_DIR, db: Path = DB_PATH) -> None:
    """Load results/ into a DuckDB file, all or nothing (a bad file leaves the old database untouched);
    files unchanged since the last ingest are copied from it, not checked again (delete --db to check all).
    """
    from site_gen.data.load import ingest

    report = ingest(results_dir, db)
    for skipped in report.skipped:
        err.print(printable(str(skipped)), markup=False, highlight=False)
    same = f" ({report.reused} unchanged since the last ingest: their runs copied)" if report.reused else ""
    err.print(
        f"[green]ingested[/green] {report.runs:,} run(s) from {report.files} file(s){same}"
        f" into {safe(report.db)}"
    )


@command("list")
def list_cmd(
    gpu: str = typer.Option(None, "--gpu", help="GPU name or alias (e.g. H200), else a substring."),
    model: str = typer.Option(None, "--model", help="Model id, name or alias, else a substring."),
    precision: str = typer.Option(None, "--precision", help="FP16, BF16, FP8, FP4, ..."),
    isl: int = typer.Option(None, "--isl", help="Input sequence length."),
    osl: int = typer.Option(None, "--osl", help="Output sequence length."),
    tp: int = typer.Option(None, "--tp", help="Tensor-parallel size."),
    source: str = typer.Option(None, "--source", help="Publisher (KISTI, NVIDIA) or measured/published."),
    tpot_max: float = typer.Option(
        None,
        "--tpot-max",
        min=0,
        help="Only runs with a mean TPOT of at most this many ms (runs without: out).",
    ),
    ttft_max: float = typer.Option(
        None,
        "--ttft-max",
        min=0,
        help="Only runs with a mean TTFT of at most this many ms (runs without: out).",
    ),
    user_min: float = typer.Option(
        None,
        "--user-min",
        min=0,
        help="Only runs with at least this many output tok/s per user (runs without: out).",
    ),
    limit: int = typer.Option(200, "--limit", help="Show at most this many runs (0: all)."),
    results_dir: Path = RESULTS_DIR,
    db: Path = DB_PATH,
) -> None:
    """Show runs as a table, filtered; (re)builds the database first if results/ changed since."""
    from site_gen.data import listing
    from site_gen.data.load import ingest

    if listing.is_stale(results_dir, db):
        report = ingest(results_dir, db)
        err.print(f"ingested {report.runs:,} run(s) from {report.files} file(s) into {safe(db)}")
    filters = listing.Filters(
        gpu, model, precision, isl, osl, tp, source, tpot_max=tpot_max, ttft_max=ttft_max, user_min=user_min
    )
    rows, total = listing.query(db, filters, limit or None)
    if not rows:
        hint = listing.no_match_hint(filters)
        raise UserError(f"no runs match ({filters.describe()})" + (f"; {hint}" if hint else ""))
    shown = f"{len(rows):,} of {total:,} run(s)" if len(rows) < total else f"{total:,} run(s)"
    console = Console(highlight=False)
    if not console.is_terminal:
        console = Console(highlight=False, width=160)  # piped: whole rows, not squeezed to 80 columns
    console.print(listing.table(rows, f"{shown} (filters: {filters.describe()})"))


@command("schema")
def schema_cmd(
    output: Path = typer.Option(None, "--output", help="Default: results/result.schema.json."),
    results_dir: Path = RESULTS_DIR,
) -> None:
    """Write the result-file JSON Schema, generated from the pydantic model (for editors and CI)."""
    from bench.contract.destinations import check_generated_target
    from bench.contract.resultfile import write_text_atomic
    from bench.contract.schema import SCHEMA_FILE, SCHEMA_ID, json_schema_text

    path = output or results_dir / SCHEMA_FILE
    check_generated_target(path, SCHEMA_ID, "--output")
    write_text_atomic(path, json_schema_text())
    err.print(f"[green]wrote[/green] {path}")


# --- estimate (issue 28: AIConfigurator's performance model; optional extra `.[estimate]`) ------------
ESTIMATE_CACHE = typer.Option(
    Path("build/estimate-cache.jsonl"),
    "--cache",
    help="Estimates by their inputs (a rerun computes only what changed).",
)
ESTIMATE_WORKERS = typer.Option(None, "--workers", min=1, help="Processes (default: every core).")


@command("estimate")
def estimate_cmd(
    spec: Path = typer.Argument(..., exists=True, dir_okay=False, help="Estimate spec (YAML)."),
    out: Path = typer.Option(..., "--out", help="Folder for the modelled result files (not results/)."),
    cache: Path = ESTIMATE_CACHE,
    workers: int = ESTIMATE_WORKERS,
) -> None:
    """Estimate a grid with AIConfigurator and write `source.kind: modelled` result files to --out."""
    from bench.engines.estimate import Cache
    from bench.engines.estimate_spec import run_spec

    written, skipped = run_spec(spec, out, Cache(cache), workers)
    for line in skipped:
        err.print(f"[yellow]not modelled[/yellow] {escape(printable(line))}")
    for path in written:
        err.print(f"[green]wrote[/green] {path}")
    if not written:
        raise UserError("no combination of the spec could be modelled; nothing written")


@command("estimate-validate")
def estimate_validate_cmd(
    out: Path = typer.Option(..., "--out", help="Folder for report.md, pairs.csv and pairs.parquet."),
    results_dir: Path = RESULTS_DIR,
    cache: Path = ESTIMATE_CACHE,
    workers: int = ESTIMATE_WORKERS,
    limit: int = typer.Option(None, "--limit", min=1, help="Only the first N runs (a quick subset)."),
    table: Path = typer.Option(
        None,
        "--table",
        help="Also write the compact validation table the estimates' error bands come from "
        "(committed as bench/data/estimate_validation.csv).",
    ),
) -> None:
    """Pair every modellable run of results/ with AIConfigurator's estimate and report the error."""
    from bench.contract.estimate_bands import table_rows, write_table
    from bench.engines.estimate import Cache, is_moe
    from bench.engines.estimate_validate import validate, write_report

    v = validate(results_dir, Cache(cache), workers, limit)
    subset = f"the first {limit} runs of {results_dir} (--limit)" if limit else None
    for path in write_report(v, out, subset):
        err.print(f"[green]wrote[/green] {path}")
    if table is not None:
        write_table(table_rows(v.pairs, is_moe), table)
        err.print(f"[green]wrote[/green] {table}")
    err.print(f"{len(v.pairs)} pairs, {sum(v.skipped.values())} runs not paired, {v.seconds:.1f} s")


@command("estimate-memory")
def estimate_memory_cmd(
    out: Path = typer.Option(
        None,
        "--out",
        help="CSV to write (default: bench/data/estimate_memory.csv, which the memory planner page reads).",
    ),
) -> None:
    """AIConfigurator's per-GPU memory breakdown for the configurations the memory planner is checked on."""
    from bench.engines.estimate_memory import TABLE, write_table

    path = out or TABLE
    n, failed = write_table(path)
    for line in failed:
        err.print(f"[yellow]not modelled[/yellow] {escape(printable(line))}")
    err.print(f"[green]wrote[/green] {path} ({n} configurations)")
    if not n:
        raise UserError("AIConfigurator modelled none of the configurations")


# --- diff (issue 31: what a pull request to results/ changes) ---------------------------------------
@command("diff")
def diff_cmd(
    base: str = typer.Argument(..., help="Results folder or git ref before the change (e.g. origin/main)."),
    head: str = typer.Argument(..., help="Results folder or git ref after it (e.g. HEAD)."),
    repo: Path = typer.Option(Path("."), "--repo", help="Git repository the refs name."),
    results_path: str = typer.Option("results", "--results-path", help="The results folder inside a ref."),
    output: Path = typer.Option(
        None, "--output", help="Write the Markdown here (a new file) instead of stdout."
    ),
) -> None:
    """Markdown report of a change to results/: files and runs, % of bound, neighbours, bests, steps."""
    from site_gen.pages.diff import diff

    if output is not None and (output.exists() or output.is_symlink()):
        raise UserError(f"--output {output}: expected a new file, got an existing path (left untouched)")
    text = diff(base, head, repo, results_path)
    if output is None:
        sys.stdout.write(text)
        return
    from bench.contract.resultfile import write_text_atomic

    write_text_atomic(output, text)
    err.print(f"[green]wrote[/green] {output}")


# --- site (issue 3: comparison site) ---------------------------------------------------------------
# The site commands live in site_gen/site/cli.py; this module is the only one that knows both packages.
from site_gen.site.cli import app as site_app  # noqa: E402 - mounted here on purpose; imports only typer

for _cmd in site_app.registered_commands:
    _cmd.callback = user_errors(_cmd.callback)
app.add_typer(site_app, name="site")


def main() -> None:  # pragma: no cover - console-script entry point
    app()


if __name__ == "__main__":  # `python -m bench.cli ...` runs the same CLI as `llmbench ...`
    main()
