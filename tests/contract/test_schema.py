"""bench.contract.schema: the committed JSON Schema matches the model; the dict validator agrees with it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import ValidationError

from bench.cli import app
from bench.contract.resultfile import check_data, check_text, parse
from bench.contract.schema import (
    SCHEMA_FILE,
    SCHEMA_VERSION,
    MlperfResultFile,
    ResultFile,
    dict_validator,
    is_mlperf,
    json_schema_text,
    mlperf_dict_validator,
)

from .conftest import ROOT
from .test_resultfile import BAD


def test_committed_json_schema_equals_the_models_schema() -> None:
    assert (ROOT / "results" / SCHEMA_FILE).read_text(encoding="utf-8") == json_schema_text()
    schema = json.loads(json_schema_text())
    # one of two file kinds: version 1 (runs) unchanged, version 2 (MLPerf results)
    kinds = [schema["$defs"][ref["$ref"].split("/")[-1]] for ref in schema["anyOf"]]
    assert [k["properties"]["schema_version"]["const"] for k in kinds] == [1, SCHEMA_VERSION] == [1, 2]
    assert all(k["additionalProperties"] is False for k in kinds)


def test_schema_command_writes_the_file(tmp_path: Path, runner) -> None:
    out = runner.invoke(app, ["schema", "--results", str(tmp_path)])
    assert out.exit_code == 0, out.output
    assert (tmp_path / SCHEMA_FILE).read_text(encoding="utf-8") == json_schema_text()


def test_dict_validator_gives_what_the_model_gives_for_every_committed_file() -> None:
    files = sorted((ROOT / "results").rglob("*.yaml"))
    assert len(files) >= 403
    for path in files[::8]:  # a spread of releases, GPUs and both sources (every file is checked by validate)
        data, problem = parse(path.read_text(encoding="utf-8"), path.name)
        assert problem is None
        if is_mlperf(data):  # schema_version 2 (results/mlperf/)
            assert (
                mlperf_dict_validator().validate_python(data)
                == MlperfResultFile.model_validate(data).model_dump()
            )
        else:
            assert dict_validator().validate_python(data) == ResultFile.model_validate(data).model_dump()


@pytest.mark.parametrize("case", [c for c, (how, _) in BAD.items() if isinstance(how, tuple)])
def test_both_validators_report_the_same_problems(case: str, valid_text: str) -> None:
    old, new = BAD[case][0]  # type: ignore[misc]
    text = valid_text.replace(old, new, 1)
    _, fast = check_data(text, "f.yaml")
    assert fast == check_text(text, "f.yaml").problems
    assert fast


def test_quoted_dates_are_dates_but_free_text_versions_are_refused(valid_text: str) -> None:
    data, problems = check_data(valid_text.replace("date: 2026-04-20", 'date: "2026-04-20"'), "f.yaml")
    assert not problems and str(data["submission"]["date"]) == "2026-04-20"
    _, problems = check_data(valid_text.replace("1.2.0", "'0.18/0.19 (early 2025)'"), "f.yaml")
    assert [p.path for p in problems] == ["software.engine_version"]
    with pytest.raises(ValidationError):
        ResultFile.model_validate({"schema_version": 2})


def test_schema_reference_documents_every_field_column_and_a_valid_example(root: Path) -> None:
    import re

    from bench.contract.resultfile import check_text
    from bench.importers.tables import COLUMNS
    from site_gen.data.load import RUN_COLUMNS

    page = (root / "docs" / "reference" / "result-schema.md").read_text(encoding="utf-8")
    example = re.search(r"```yaml\n(.*?)```", page, re.S)
    assert example is not None
    assert check_text(example.group(1), "example").problems == []
    from bench.contract import schema

    models = [ResultFile, schema.Submission, schema.Source, schema.Hardware, schema.Software, schema.Model,
              schema.Run, schema.Parallelism, schema.Workload, schema.EngineSettings, schema.Metrics,
              schema.Percentiles]  # fmt: skip
    models += [schema.MlperfResultFile, schema.MlperfInfo, schema.MlperfHardware, schema.MlperfRun]
    for model in models:
        for name in model.model_fields:
            assert f"`{name}" in page or f".{name}`" in page or f"`{name}`" in page, name
    for name in COLUMNS:
        assert f"`{name}`" in page, name
    derived = ("n_gpus", "output_tps", "output_tps_per_gpu", "throughput_basis", "workload", "version_key")
    assert all(f"`{c}`" in page for c in derived) and {c for c, _ in RUN_COLUMNS} >= set(derived)


def test_registries_reference_lists_every_gpu(root: Path) -> None:
    from bench.contract import registry

    page = (root / "docs" / "reference" / "registries.md").read_text(encoding="utf-8")
    assert all(f"| {g.name} |" in page for g in registry.gpus().entries)
    assert "GH200 120GB" in page
