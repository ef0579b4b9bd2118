"""The site build end to end: no results gives a clear message, bad results fail through the CLI."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from bench.cli import app
from site_gen.site.build import render_site
from tests.site.conftest import ROOT


def test_site_with_no_results_says_so_instead_of_drawing_empty_charts(tmp_path: Path) -> None:
    # ingest refuses an empty results/ folder, so "no results" reaches the site as a missing database.
    out = tmp_path / "site"
    render_site(ROOT / "mkdocs.yml", out, tmp_path / "missing.duckdb")
    explorer = (out / "explorer.html").read_text(encoding="utf-8")
    assert "No results yet" in explorer and 'class="lb-chart"' not in explorer
    assert "No results yet" in (out / "index.html").read_text(encoding="utf-8")


def test_site_build_with_a_bad_result_file_exits_1_naming_the_file(tmp_path: Path) -> None:
    (tmp_path / "results").mkdir()
    (tmp_path / "results" / "bad.yaml").write_text("schema_version: 1\nsubmission: {}\n", encoding="utf-8")
    args = ["site", "build", "--results", str(tmp_path / "results"), "--db", str(tmp_path / "db.duckdb")]
    result = CliRunner().invoke(app, [*args, "--out", str(tmp_path / "site")])
    assert result.exit_code == 1
    assert "bad.yaml" in result.output
    assert not (tmp_path / "site").exists()
