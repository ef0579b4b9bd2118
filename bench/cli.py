"""The ``llmbench`` command line: the only module that knows both packages.

Commands are listed in workflow order (plan -> run/submit -> export -> validate -> ingest -> site) and each
is a few lines that call one function. Every ``UserError`` is caught once here: one message, exit 1.
Heavy imports (DuckDB, pandas, Altair, MkDocs) happen inside the commands so ``--help`` stays instant.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import typer
from rich.console import Console

from bench.errors import UserError

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


def user_errors(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Turn a UserError into one red line on stderr and exit status 1."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except UserError as e:
            for line in getattr(e, "problems", []):
                err.print(str(line), markup=False)
            err.print(f"[red]error:[/red] {e}")
            sys.exit(1)

    return wrapper


def command(name: str | None = None, **kw: Any) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register a command on the root app with the shared error handling."""

    def deco(fn: Callable[..., Any]) -> Callable[..., Any]:
        app.command(name, **kw)(user_errors(fn))
        return fn

    return deco


# --- results store (issue: results store) ------------------------------------------------------------


@command("validate")
def validate_cmd(
    paths: list[Path] = typer.Argument(None, help="Files or folders to check (default: results/)."),
    results_dir: Path = RESULTS_DIR,
) -> None:
    """Check result files against the schema and registries; report every problem; exit 1 if any."""
    from bench.resultfile import check_many, find_duplicates, iter_result_files

    files = list(iter_result_files(paths or [results_dir]))
    root = results_dir if all(p.is_relative_to(results_dir) for p in files) else Path.cwd()
    outcomes = check_many(files, root)
    problems = [p for o in outcomes for p in o.problems] + find_duplicates(outcomes, root)
    for p in problems:
        print(p)
    runs = sum(len(o.run_ids) for o in outcomes)
    if problems:
        err.print(f"[red]{len(problems)} problem(s)[/red] in {len(files)} file(s)")
        raise typer.Exit(1)
    err.print(f"[green]ok[/green]: {len(files)} file(s), {runs:,} run(s)")


@command("ingest")
def ingest_cmd(results_dir: Path = RESULTS_DIR, db: Path = DB_PATH) -> None:
    """Load results/ into a DuckDB file, all or nothing (a bad file leaves the old database untouched)."""
    from site_gen.load import ingest

    report = ingest(results_dir, db)
    err.print(f"[green]ingested[/green] {report.runs:,} run(s) from {report.files} file(s) into {report.db}")


# --- site (issue 3: comparison site) ---------------------------------------------------------------
# The site commands live in site_gen/cli.py; this module is the only one that knows both packages.
from site_gen.cli import app as site_app  # noqa: E402 - mounted here on purpose; imports only typer

for _cmd in site_app.registered_commands:
    _cmd.callback = user_errors(_cmd.callback)
app.add_typer(site_app, name="site")


def main() -> None:  # pragma: no cover - console-script entry point
    app()
