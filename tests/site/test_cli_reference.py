"""The command-line reference page: generated from the commands, complete, and checked against the code."""

from __future__ import annotations

from pathlib import Path

import typer.main
from typer.testing import CliRunner

from bench.cli import app
from tests.site.conftest import ROOT

PAGE = ROOT / "docs" / "reference" / "cli.md"


def _commands(group: object, prog: str = "llmbench") -> dict[str, object]:
    out = {prog: group}
    for name, sub in getattr(group, "commands", {}).items():
        out.update(_commands(sub, f"{prog} {name}"))
    return out


def test_committed_cli_page_matches_the_commands(monkeypatch) -> None:
    monkeypatch.chdir(ROOT)
    result = CliRunner().invoke(app, ["site", "cli-reference", "--check"])
    assert result.exit_code == 0, f"{result.output}\nregenerate with: llmbench site cli-reference"


def test_every_command_and_option_is_documented_on_the_page() -> None:
    text = PAGE.read_text(encoding="utf-8")
    commands = _commands(typer.main.get_command(app))
    assert {"llmbench plan", "llmbench validate", "llmbench site build"} <= set(commands)
    for name, cmd in commands.items():
        assert f"## `{name}`" in text, name
        section = text.split(f"## `{name}`\n", 1)[1].split("\n## ", 1)[0]
        for param in cmd.params:
            names = param.opts if param.param_type_name == "option" else [param.name.upper()]
            for opt in names:
                assert f"`{opt}`" in section, f"{name} {opt}"
            if param.help:
                assert " ".join(param.help.split()) in section.replace("\\|", "|"), f"{name} {param.name}"


def test_a_stale_page_fails_the_check_and_is_left_untouched(tmp_path: Path) -> None:
    """A page an older version generated (its header's mark, an old body) is checked, then rewritten; a
    page by hand (no mark) is never overwritten (issue 24)."""
    stale = tmp_path / "cli.md"
    old = PAGE.read_text(encoding="utf-8").split("\n## ")[0] + "\n## `llmbench plan`\n"
    stale.write_text(old, encoding="utf-8")
    result = CliRunner().invoke(app, ["site", "cli-reference", "--check", "--out", str(stale)])
    assert result.exit_code == 1
    assert "out of date" in result.output and "llmbench site cli-reference" in result.output
    assert stale.read_text(encoding="utf-8") == old
    written = CliRunner().invoke(app, ["site", "cli-reference", "--out", str(stale)])
    assert written.exit_code == 0
    assert stale.read_text(encoding="utf-8") == PAGE.read_text(encoding="utf-8")
    (mine := tmp_path / "mine.md").write_text("# Command line\n\nmy notes\n", encoding="utf-8")
    refused = CliRunner().invoke(app, ["site", "cli-reference", "--out", str(mine)])
    assert refused.exit_code == 1 and "not written by llmbench" in refused.output
    assert mine.read_text(encoding="utf-8") == "# Command line\n\nmy notes\n"
