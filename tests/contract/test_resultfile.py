"""bench.contract.resultfile: each bad input gives one clear, located problem; duplicates across files."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.cli import app
from bench.contract.resultfile import (
    MAX_FILE_BYTES,
    check_file,
    dump,
    iter_result_files,
    run_id,
    run_ids,
    write_file,
)
from bench.contract.schema import ResultFile

# name -> (how to make the bad file from valid.yaml, the exact problem line `llmbench validate` prints)
ALIAS_BOMB = "".join(
    f"{a}: &{a} [{', '.join([f'*{p}'] * 9) if p else ', '.join(['lol'] * 9)}]\n"
    for p, a in zip(["", *"abcdefgh"], "abcdefghi", strict=True)
)
BAD: dict[str, tuple[object, str]] = {
    "yaml_syntax": (
        ("  workflow: pytorch", "  workflow: [pytorch"),
        "bad.yaml:18: invalid YAML at column 17: illegal placement of ':' indicator",
    ),
    "wrong_type": (
        ("    tp: 2", '    tp: "two"'),
        "bad.yaml:33: runs.1.parallelism.tp: expected a valid integer, got str 'two'",
    ),
    "zero_throughput": (
        ("output_tokens_per_s: 29103.0", "output_tokens_per_s: 0"),
        "bad.yaml:31: runs.0.metrics.output_tokens_per_s: expected greater than 0, got int 0",
    ),
    "negative_throughput": (
        ("output_tokens_per_s_per_gpu: 14000.5", "output_tokens_per_s_per_gpu: -5.0"),
        "bad.yaml:39: runs.1.metrics.output_tokens_per_s_per_gpu: expected greater than 0, got float -5.0",
    ),
    "unknown_gpu": (
        ("  gpu: H200 SXM 141GB", "  gpu: H20O SXM"),
        "bad.yaml:12: hardware.gpu: expected a known GPU (see bench/data), got 'H20O SXM'; "
        "closest known: H200 SXM 141GB, H100 SXM 80GB, V100 SXM2 32GB",
    ),
    "unknown_model": (
        ("  id: meta-llama/Llama-3.1-8B-Instruct", "  id: Llama-3.1-8B-Instrukt"),
        "bad.yaml:20: model.id: expected a known model (see bench/data), got 'Llama-3.1-8B-Instrukt'; "
        "closest known: meta-llama/Llama-3.1-8B-Instruct, meta-llama/Llama-3.1-70B-Instruct, "
        "meta-llama/Llama-3.1-405B-Instruct",
    ),
    "missing_field": (
        (
            "    osl: 128\n    num_requests: 30000\n  metrics:\n    output_tokens_per_s_per_gpu",
            "    num_requests: 30000\n  metrics:\n    output_tokens_per_s_per_gpu",
        ),
        "bad.yaml:35: runs.1.workload.osl: expected a value (required field), got nothing",
    ),
    "unknown_field": (
        (
            "    num_requests: 30000\n  metrics:\n    output_tokens_per_s:",
            "    num_request: 30000\n  metrics:\n    output_tokens_per_s:",
        ),
        "bad.yaml:29: runs.0.workload.num_request: unknown field 'num_request' "
        "(did you mean 'num_requests'?); "
        "expected one of: isl, osl, num_requests, concurrency, dataset, input_stdev, output_stdev, streaming",
    ),
    "duplicate_key": (
        ("  workflow: pytorch", "  workflow: pytorch\n  workflow: legacy-engine"),
        "bad.yaml:18: software.workflow: expected each key once per mapping, got 'workflow' again",
    ),
    "no_throughput": (
        ("    output_tokens_per_s: 29103.0", "    requests_per_s: 3.0"),
        "bad.yaml:31: runs.0.metrics: expected at least one of output_tokens_per_s, "
        "output_tokens_per_s_per_gpu, output_tokens_per_s_per_user, got none of them",
    ),
    "duplicate_run": (
        "copy",
        # the later file in name order is the duplicate
        "good/valid.yaml:24: runs.0: duplicate run: same source and configuration as bad.yaml runs.0",
    ),
    "alias_bomb": (
        ALIAS_BOMB,
        "bad.yaml: expected plain YAML, got too many alias expansions "
        "(alias replay limit exceeded: replayed 100001, max 100000)",
    ),
    "not_utf8": (
        b"schema_version: 1\nsubmission:\n  submitter: Caf\xe9\n",
        "bad.yaml:3: expected UTF-8 text, got byte 0xe9",
    ),
    "empty": ("", "bad.yaml:1: expected a result mapping (schema_version, ...), got an empty file"),
    "huge": (
        "50MB",
        f"bad.yaml: expected a result file of at most {MAX_FILE_BYTES:,} bytes, "
        "got 52,428,800 bytes (not read)",
    ),
}


def make_bad(folder: Path, case: str, valid_text: str) -> Path:
    """Write the bad file of a case as ``folder/bad.yaml``."""
    how, _ = BAD[case]
    path = folder / "bad.yaml"
    if how == "copy":
        path.write_text(valid_text, encoding="utf-8")
    elif how == "50MB":
        with path.open("wb") as f:
            f.truncate(50 * 1024 * 1024)  # sparse: the size check must refuse it before reading
    elif isinstance(how, bytes):
        path.write_bytes(how)
    elif isinstance(how, str):
        path.write_text(how, encoding="utf-8")
    else:
        old, new = how  # type: ignore[misc]
        assert old in valid_text
        path.write_text(valid_text.replace(old, new, 1), encoding="utf-8")
    return path


@pytest.mark.parametrize("case", list(BAD))
def test_validate_reports_each_bad_input_with_file_line_and_field(
    case: str, results: Path, valid_text: str, runner
) -> None:
    make_bad(results, case, valid_text)
    out = runner.invoke(app, ["validate", "--results", str(results)])
    assert out.exit_code == 1
    assert BAD[case][1] in out.stdout.splitlines(), out.output
    assert f"{2 if case == 'duplicate_run' else 1} problem(s)" in out.output  # both of its runs repeat


def test_validate_accepts_the_committed_results(runner, root: Path) -> None:
    out = runner.invoke(app, ["validate", str(root / "results" / "kisti"), str(root / "results" / "nvidia")])
    assert out.exit_code == 0, out.output
    assert "403 file(s), 4,337 run(s)" in out.output  # 4,345 CSV figures; the blog's 12 rows are 4 runs
    assert runner.invoke(app, ["validate", "--results", str(root / "results")]).exit_code == 0


def test_validate_reports_every_problem_of_every_file(results: Path, valid_text: str, runner) -> None:
    text = valid_text.replace("    tp: 2", '    tp: "two"').replace("  gpu: H200 SXM 141GB", "  gpu: H999")
    (results / "two.yaml").write_text(text, encoding="utf-8")
    (results / "three.yml").write_text("", encoding="utf-8")
    out = runner.invoke(app, ["validate", "--results", str(results)])
    lines = out.stdout.splitlines()
    assert out.exit_code == 1
    assert [line.split(":")[0] for line in lines] == ["three.yml", "two.yaml", "two.yaml"], lines
    assert any("two.yaml:12: hardware.gpu:" in line for line in lines)
    assert any("two.yaml:33: runs.1.parallelism.tp:" in line for line in lines)


def test_validate_names_a_missing_path_and_an_empty_folder(tmp_path: Path, runner) -> None:
    out = runner.invoke(app, ["validate", str(tmp_path / "nope.yaml")])
    assert out.exit_code == 1
    assert "nope.yaml: expected a readable result file, got No such file or directory" in out.stdout
    (tmp_path / "empty").mkdir()
    out = runner.invoke(app, ["validate", str(tmp_path / "empty")])
    assert out.exit_code == 1
    assert "no result files (*.yaml)" in out.output


def test_iter_result_files_skips_json_schema_and_hidden_temp_files(results: Path) -> None:
    (results / "result.schema.json").write_text("{}", encoding="utf-8")
    (results / "good" / ".valid.yaml.123.tmp").write_text("x", encoding="utf-8")
    (results / "good" / ".half-written.yaml").write_text("x", encoding="utf-8")
    (results / ".git" / "x").mkdir(parents=True)
    (results / ".git" / "x" / "old.yaml").write_text("x", encoding="utf-8")
    assert [p.name for p in iter_result_files([results])] == ["valid.yaml"]
    assert list(iter_result_files([results / "result.schema.json"])) == []


def test_run_ids_are_stable_and_ignore_key_order_and_metrics(valid_text: str, tmp_path: Path) -> None:
    a = check_file(_write(tmp_path / "a.yaml", valid_text)).result
    shuffled = valid_text.replace("    isl: 128\n    osl: 128\n", "    osl: 128\n    isl: 128\n")
    b = check_file(_write(tmp_path / "b.yaml", shuffled.replace("29103.0", "1.0"))).result
    # which figures a run gives is no part of its identity either: one measurement, whatever was published
    other = valid_text.replace("output_tokens_per_s: 29103.0", "output_tokens_per_s_per_user: 1.0")
    c = check_file(_write(tmp_path / "c.yaml", other)).result
    assert a is not None and b is not None and c is not None
    assert run_ids(a.model_dump()) == run_ids(b.model_dump()) == run_ids(c.model_dump())
    assert run_id(a, 1) == run_ids(a.model_dump())[1] and len(run_id(a, 1)) == 12
    assert run_id(a, 0) != run_id(a, 1)


def test_write_file_round_trips_and_refuses_an_invalid_result(valid_text: str, tmp_path: Path) -> None:
    result = check_file(_write(tmp_path / "in.yaml", valid_text)).result
    assert result is not None
    out = tmp_path / "deep" / "out.yaml"
    write_file(result, out)
    assert check_file(out).result == result
    assert dump(result) == out.read_text(encoding="utf-8")
    bad = result.model_copy(update={"hardware": result.hardware.model_copy(update={"gpu": "H999"})})
    with pytest.raises(ValueError, match=r"hardware\.gpu: expected a known GPU"):
        write_file(bad, tmp_path / "bad.yaml")
    assert not (tmp_path / "bad.yaml").exists()
    assert isinstance(result, ResultFile)


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_publishers_without_ascii_letters_keep_their_own_folder() -> None:
    """Issue 24: two Korean publishers used to share one folder (their slugs were empty), so one's file
    could replace the other's. Korea's two research institutes, by their Korean names, and a name of
    punctuation only: three folders, none empty; full-width letters fold to the ASCII spelling (NFKC)."""
    from bench.contract.resultfile import result_path

    kisti, etri = "한국과학기술정보연구원", "한국전자통신연구원"
    paths = [
        result_path(p, "tensorrt-llm", "1.2.0", "H200 SXM 141GB", "m/x", "FP8") for p in (kisti, etri, "!!!")
    ]
    folders = [p.parts[0] for p in paths]
    assert folders[:2] == [kisti, etri] and folders[2] and len(set(folders)) == 3
    assert result_path("ＫＩＳＴＩ", "tensorrt-llm", "1", "H200", "m/x", "FP8").parts[0] == "kisti"
