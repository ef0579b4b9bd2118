"""The contributor guide (docs/how-to/add-your-result.md and its Korean twin) says what the tools do: its
example files validate, its folder naming is the one export writes, its commands exist, and its latency
example is a point of the Pareto chart (the chart's own filter: a per-user figure above 0)."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import duckdb
import pytest
import yaml
from typer.testing import CliRunner

from bench.cli import app
from bench.contract.resultfile import check_text, result_path
from site_gen.charts import latency_views
from site_gen.data import load
from tests.conftest import ROOT

PAGES = [ROOT / "docs" / "how-to" / "add-your-result.md", ROOT / "docs" / "how-to" / "add-your-result.ko.md"]


def _blocks(page: Path, lang: str) -> list[str]:
    return re.findall(rf"```{lang}\n(.*?)```", page.read_text(encoding="utf-8"), re.DOTALL)


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_example_file_validates(page: Path) -> None:
    examples = _blocks(page, "yaml")
    assert len(examples) == 2
    for text in examples:
        checked = check_text(text, page.name)
        assert checked.problems == [], [str(p) for p in checked.problems]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_the_folder_naming_is_the_one_export_writes(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    path = result_path(
        "Example Lab", "tensorrt-llm", "1.2.0", "H200 SXM 141GB", "meta-llama/Llama-3.1-8B-Instruct", "FP8"
    )
    assert path.as_posix() == "example-lab/trtllm-1.2.0/h200-sxm-141gb--llama-3.1-8b-instruct--fp8.yaml"
    assert f"results/{path.parent.as_posix()}/" in text and path.name in text
    assert "<engine>-<version>" not in text  # the old, wrong naming
    transformers = result_path("x", "transformers", "5.17.0", "L40S", "m/m", "BF16").parts[1]
    assert transformers == "transformers-5.17.0" and transformers in text


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_its_commands_exist(page: Path) -> None:
    (block,) = _blocks(page, "bash")
    runner = CliRunner()
    for line in block.splitlines():
        words = shlex.split(line, comments=True)
        assert words[0] == "llmbench"
        out = runner.invoke(app, [*words[1:3], "--help"] if words[1] == "site" else [words[1], "--help"])
        assert out.exit_code == 0, line


def test_the_latency_example_is_on_the_pareto_chart_and_without_per_user_it_is_not(tmp_path: Path) -> None:
    spec = latency_views.pareto_chart(latency_views.ChartContext(gpus=("L40S",))).to_dict()
    assert "isValid(datum.output_tps_per_user) && datum.output_tps_per_user > 0" in str(spec)
    example = yaml.safe_load(_blocks(PAGES[0], "yaml")[1])
    results = tmp_path / "results"
    (results / "a").mkdir(parents=True)
    (results / "a" / "with.yaml").write_text(yaml.safe_dump(example), encoding="utf-8")
    del example["runs"][0]["metrics"]["output_tokens_per_s_per_user"]
    example["submission"]["system"] = "without per-user"
    example["runs"][0]["workload"]["concurrency"] = 32  # another run (not a duplicate of the first)
    (results / "a" / "without.yaml").write_text(yaml.safe_dump(example), encoding="utf-8")
    load.ingest(results, tmp_path / "db.duckdb")
    con = duckdb.connect(str(tmp_path / "db.duckdb"), read_only=True)
    rows = con.execute(
        "SELECT system, output_tps_per_user, output_tps_per_gpu FROM runs ORDER BY system"
    ).fetchall()
    con.close()
    on_chart = {s for s, user, gpu in rows if user is not None and user > 0 and gpu is not None}
    assert on_chart == {"one L40S at Example Lab"}
