"""The bench reference documents every sweep key and every bench command; the how-to's commands exist."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from pydantic import BaseModel
from typer.testing import CliRunner

from bench.cli import app
from bench.sweep.spec import Sweep

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = (ROOT / "docs" / "reference" / "bench.md").read_text(encoding="utf-8")
HOWTO = (ROOT / "docs" / "how-to" / "run-a-sweep.md").read_text(encoding="utf-8")
COMMANDS = ("plan", "run", "submit", "export")


def _keys(model: type[BaseModel], prefix: str = "") -> list[str]:
    out = []
    for name, info in model.model_fields.items():
        out.append(f"{prefix}{name}")
        for arg in (info.annotation, *getattr(info.annotation, "__args__", ())):
            if isinstance(arg, type) and issubclass(arg, BaseModel):
                out += _keys(arg, f"{prefix}{name}.")
    return out


@pytest.mark.parametrize("key", _keys(Sweep))
def test_every_sweep_key_is_in_the_reference(key: str) -> None:
    leaf = key.split(".")[-1]
    assert re.search(rf"\b{re.escape(leaf)}:", REFERENCE), (
        f"{key} is not documented in docs/reference/bench.md"
    )


@pytest.mark.parametrize("name", COMMANDS)
def test_every_bench_command_has_help_and_is_documented(name: str) -> None:
    res = CliRunner().invoke(app, [name, "--help"])
    assert res.exit_code == 0 and "Usage" in res.output
    assert f"`llmbench {name}" in REFERENCE and f"llmbench {name}" in HOWTO
