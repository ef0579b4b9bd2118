"""``llmbench site build|serve|cli-reference``: a Typer sub-app, mounted by bench/cli.py."""

from __future__ import annotations

from pathlib import Path

import typer

app = typer.Typer(help="Build or serve the comparison site.", no_args_is_help=True)

RESULTS = typer.Option(Path("results"), "--results", help="Folder of result files (YAML).")
DB = typer.Option(Path("build/llmbench.duckdb"), "--db", help="DuckDB database file to (re)build.")
OUT = typer.Option(Path("site"), "--out", help="Folder for the static site.")
CONFIG = typer.Option(Path("mkdocs.yml"), "--config", help="MkDocs configuration.")


@app.command("build")
def build_cmd(results: Path = RESULTS, db: Path = DB, out: Path = OUT, config: Path = CONFIG) -> None:
    """Ingest results/, then mkdocs build --strict into --out (atomic: the old or the new site, no mix)."""
    from site_gen.site.build import build_site

    r = build_site(results, db, out, config)
    steps = ", ".join(f"{k} {v:.1f} s" for k, v in r.seconds.items())
    same = f" ({r.reused} unchanged since the last ingest)" if r.reused else ""
    typer.echo(
        f"site: {r.runs:,} run(s) from {r.files} file(s){same}, {r.pages} generated page(s) -> {out}"
        f" ({steps})"
    )


@app.command("serve")
def serve_cmd(
    results: Path = RESULTS,
    db: Path = DB,
    config: Path = CONFIG,
    addr: str = typer.Option("127.0.0.1:8000", "--addr", help="host:port to serve on."),
) -> None:
    """Ingest results/, then mkdocs serve: saving a result file re-ingests and reloads the browser."""
    import os

    from mkdocs.commands.serve import serve

    from site_gen.data.load import ingest
    from site_gen.site.build import hook_env

    # Always once: the database may have been built from another results folder.
    report = ingest(results, db)
    typer.echo(f"ingested {report.runs:,} run(s) from {report.files} file(s) into {db}", err=True)
    # Material's instant navigation follows only links on site_url's origin (port included).
    os.environ.setdefault("LLMBENCH_SITE_URL", f"http://{addr}/")
    typer.echo(f"serving the site on http://{addr}/ (Ctrl-C stops)", err=True)
    with hook_env(db, results):
        serve(config_file=str(config), dev_addr=addr, strict=True)


@app.command("cli-reference")
def cli_reference_cmd(
    ctx: typer.Context,
    out: Path = typer.Option(Path("docs/reference/cli.md"), "--out", help="Page to write."),
    check: bool = typer.Option(False, "--check", help="Write nothing; exit 1 if the page is out of date."),
) -> None:
    """Write the command-line reference page from the commands' own help (--check: verify it)."""
    from bench.contract.destinations import check_generated_target
    from bench.errors import UserError
    from site_gen.pages.cli_reference import GENERATED_MARK, render

    text = render(ctx.find_root().command)
    if check:
        if not out.exists() or out.read_text(encoding="utf-8") != text:
            raise UserError(f"{out} is out of date with the commands; run: llmbench site cli-reference")
        typer.echo(f"{out} is up to date")
        return
    check_generated_target(out, GENERATED_MARK, "--out")
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(out)
    typer.echo(f"wrote {out}")
