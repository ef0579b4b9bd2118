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
