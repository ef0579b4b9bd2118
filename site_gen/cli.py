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
    """Ingest results/ into DuckDB, generate the pages into docs/generated/, run mkdocs build --strict."""
    from site_gen.build import build_site

    r = build_site(results, db, out, config)
    steps = ", ".join(f"{k} {v:.1f} s" for k, v in r.seconds.items())
    typer.echo(
        f"site: {r.runs:,} run(s) from {r.files} file(s), {r.pages} generated page(s) -> {out} ({steps})"
    )


@app.command("serve")
def serve_cmd(
    results: Path = RESULTS,
    db: Path = DB,
    config: Path = CONFIG,
    addr: str = typer.Option("127.0.0.1:8000", "--addr", help="host:port to serve on."),
) -> None:
    """Build everything, then serve the site with live reload (mkdocs serve)."""
    from mkdocs.commands.serve import serve

    from site_gen.build import generate
    from site_gen.load import ingest

    report = ingest(results, db)
    generate(db, config.parent / "docs")
    typer.echo(f"serving {report.runs:,} run(s) on http://{addr}/")
    import os

    os.environ["LLMBENCH_DB"] = str(db.resolve())
    # Material's instant navigation follows only links on site_url's origin (port included).
    os.environ.setdefault("LLMBENCH_SITE_URL", f"http://{addr}/")
    serve(config_file=str(config), dev_addr=addr, strict=True)


@app.command("cli-reference")
def cli_reference_cmd(
    ctx: typer.Context,
    out: Path = typer.Option(Path("docs/reference/cli.md"), "--out", help="Page to write."),
    check: bool = typer.Option(False, "--check", help="Write nothing; exit 1 if the page is out of date."),
) -> None:
    """Write the command-line reference page from the commands' own help (--check: verify it)."""
    from bench.errors import UserError
    from site_gen.cli_reference import render

    text = render(ctx.find_root().command)
    if check:
        if not out.exists() or out.read_text(encoding="utf-8") != text:
            raise UserError(f"{out} is out of date with the commands; run: llmbench site cli-reference")
        typer.echo(f"{out} is up to date")
        return
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(out)
    typer.echo(f"wrote {out}")
