"""The root CLI's error handling: one verbatim message on stderr, exit status 1."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from bench.cli import app


def test_user_error_message_is_printed_verbatim_even_with_rich_markup(tmp_path: Path) -> None:
    sweep = tmp_path / "sweep[bold]x.yaml"  # a file name that would be Rich markup if not escaped
    sweep.write_text("name: x\n")
    result = CliRunner().invoke(app, ["plan", str(sweep)])
    assert result.exit_code == 1
    assert "sweep[bold]x.yaml" in result.output


def test_python_dash_m_bench_cli_runs_the_cli(tmp_path: Path) -> None:
    """`python -m bench.cli validate X` (how a checkout without the console script calls it) does what
    `llmbench validate X` does: it used to exit 0 having done nothing, so a bad file passed unseen."""
    import subprocess
    import sys

    bad = tmp_path / "bad.yaml"
    bad.write_text("schema_version: 1\nruns: []\n")
    done = subprocess.run(
        [sys.executable, "-m", "bench.cli", "validate", str(bad)],
        capture_output=True,
        text=True,
        cwd=Path(__file__).resolve().parents[1],
    )
    assert done.returncode == 1, done.stderr
    assert "bad.yaml" in done.stdout + done.stderr
