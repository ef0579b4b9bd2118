"""End to end with the stand-in trtllm-bench: run, OOM retry, timeout, resume, export, ingest, site.

The stand-in (tests/sweep/fake_trtllm_bench/trtllm-bench) writes realistic reports; here it dies silently
(the documented out-of-memory symptom) for tp 2 above KV fraction 0.92 and hangs for tp 4.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import duckdb
import pytest
import yaml
from typer.testing import CliRunner

from bench.cli import app
from bench.contract.resultfile import check_file
from bench.sweep import store
from tests.sweep.helpers import write_sweep

pytestmark = pytest.mark.usefixtures("fake_trtllm")


def sweep_file(tmp: Path, checkpoint: Path, **over: Any) -> Path:
    (tmp / "llm_options.yml").write_text(
        "cuda_graph_config:\n  enable_padding: true\n  batch_sizes: [1, 2, 4, 8]\n", encoding="utf-8"
    )
    spec = {
        "name": "e2e",
        "model": {"id": "meta-llama/Llama-3.1-8B-Instruct", "path": str(checkpoint), "precision": "BF16"},
        "trtllm": {"version": "1.2.0", "workflow": "pytorch", "extra_llm_api_options": "llm_options.yml"},
        "parallelism": {"tp": [1, 2, 4]},
        "workloads": [{"isl": 32, "osl": 16, "num_requests": 40}],
        "settings": {
            "max_batch_size": [64],
            "max_num_tokens": [2048],
            "kv_cache_free_gpu_mem_fraction": 0.95,
        },
        "cluster": {"gpus_per_node": 4},
        "run": {"timeout_s": 2, "kill_grace_s": 0.5, "output_dir": str(tmp / "out")},
        "publish": {"submitter": "llmbench CI", "system": "CI node"},
        **over,
    }
    return write_sweep(tmp, spec)


def invoke(args: list[str], behaviour: dict[str, Any]) -> Any:
    result = CliRunner().invoke(app, args, env={"FAKE_TRTLLM_BEHAVIOUR": json.dumps(behaviour)})
    return result


def by_tp(db: Path) -> dict[int, list[store.RunRecord]]:
    out: dict[int, list[store.RunRecord]] = {}
    for r in store.attempts(db, "e2e"):
        out.setdefault(r["job"]["tp"], []).append(r)
    return out


def test_sweep_retries_oom_records_timeout_resumes_and_exports(tmp_path: Path, checkpoint: Path) -> None:
    path, db, results = sweep_file(tmp_path, checkpoint), tmp_path / "runs.duckdb", tmp_path / "results"
    misbehave = {"oom_if": [{"tp": 2, "kv_above": 0.92}], "hang_if": [{"tp": 4}]}

    first = invoke(["run", str(path), "--runs-db", str(db), "--no-progress"], misbehave)
    assert first.exit_code == 1, first.output
    runs = by_tp(db)
    assert [r["status"] for r in runs[1]] == ["ok"]
    assert [(r["status"], r["kv_fraction"], r["retry_of"]) for r in runs[2]] == [
        ("oom", 0.95, None),
        ("ok", 0.9, 1),
    ]
    assert "oom_kill event" in runs[2][0]["error"] and runs[2][0]["log_tail"]
    (hung,) = runs[4]
    assert hung["status"] == "timeout" and hung["wall_s"] < 6 and "2 s timeout" in hung["error"]
    assert runs[1][0]["environment"]["gpu_name"] == "NVIDIA H200"
    assert runs[1][0]["environment"]["gpu_count"] == 4 and runs[1][0]["environment"]["cuda_version"] == "12.8"
    assert "--report_json" in runs[1][0]["command"] and runs[1][0]["report_source"] == "report_json"

    again = invoke(["run", str(path), "--runs-db", str(db), "--resume", "--no-progress"], {})
    assert again.exit_code == 0, again.output
    assert "2 already done" in again.output
    runs = by_tp(db)
    assert len(runs[1]) == 1 and len(runs[2]) == 2 and [r["status"] for r in runs[4]] == ["timeout", "ok"]

    exported = invoke(["export", "--runs-db", str(db), "--results", str(results)], {})
    assert exported.exit_code == 0, exported.output
    (written,) = list(results.rglob("*.yaml"))
    assert written.relative_to(results).parts[:2] == ("llmbench-ci", "trtllm-1.2.0")
    checked = check_file(written)
    assert checked.problems == [] and checked.result is not None
    result = checked.result
    assert result.hardware.gpu == "H200 SXM 141GB" and result.submission.source.kind == "measured"
    assert result.environment and result.environment["driver_version"] == "570.124.06"
    assert sorted(r.parallelism.tp for r in result.runs) == [1, 2, 4]
    tp2 = next(r for r in result.runs if r.parallelism.tp == 2)
    assert tp2.engine_settings.kv_cache_free_gpu_mem_fraction == 0.9 and "retried at 0.9" in (tp2.notes or "")
    assert tp2.engine_settings.extra == {
        "cuda_graph_config": {"enable_padding": True, "batch_sizes": [1, 2, 4, 8]}
    }
    assert tp2.command and tp2.command.startswith("trtllm-bench --model meta-llama/Llama-3.1-8B-Instruct")

    site_db = tmp_path / "llmbench.duckdb"
    ingested = CliRunner().invoke(app, ["ingest", "--results", str(results), "--db", str(site_db)])
    assert ingested.exit_code == 0, ingested.output
    con = duckdb.connect(str(site_db), read_only=True)
    rows = con.execute(
        "SELECT tp, gpu, model, source_kind, kv_cache_free_gpu_mem_fraction FROM runs ORDER BY tp"
    ).fetchall()
    con.close()
    assert rows == [
        (1, "H200 SXM 141GB", "meta-llama/Llama-3.1-8B-Instruct", "measured", 0.95),
        (2, "H200 SXM 141GB", "meta-llama/Llama-3.1-8B-Instruct", "measured", 0.9),
        (4, "H200 SXM 141GB", "meta-llama/Llama-3.1-8B-Instruct", "measured", 0.95),
    ]


def test_oom_on_every_kv_fraction_is_a_failure_with_every_attempt_recorded(
    tmp_path: Path, checkpoint: Path
) -> None:
    path, db = sweep_file(tmp_path, checkpoint, parallelism={"tp": [1]}), tmp_path / "runs.duckdb"
    res = invoke(["run", str(path), "--runs-db", str(db), "--no-progress"], {"cuda_oom_if": [{"tp": 1}]})
    assert res.exit_code == 1
    attempts = by_tp(db)[1]
    assert [(a["status"], a["kv_fraction"]) for a in attempts] == [("oom", 0.95), ("oom", 0.9), ("oom", 0.8)]
    assert "CUDA out of memory" in attempts[-1]["error"]
    export = CliRunner().invoke(app, ["export", "--runs-db", str(db), "--results", str(tmp_path / "r")])
    assert export.exit_code == 1 and "no successful runs" in export.output
    assert not (tmp_path / "r").exists()


def test_export_refuses_to_overwrite_and_leaves_no_partial_file(tmp_path: Path, checkpoint: Path) -> None:
    path, db = sweep_file(tmp_path, checkpoint, parallelism={"tp": [1]}), tmp_path / "runs.duckdb"
    assert invoke(["run", str(path), "--runs-db", str(db), "--no-progress"], {}).exit_code == 0
    out = tmp_path / "result.yaml"
    assert invoke(["export", "--runs-db", str(db), "--output", str(out)], {}).exit_code == 0
    before = out.read_text()
    again = invoke(["export", "--runs-db", str(db), "--output", str(out)], {})
    assert again.exit_code == 1 and "never edited in place" in again.output and out.read_text() == before
    assert not list(tmp_path.glob(".result.yaml.*"))


def test_export_with_an_unknown_gpu_writes_nothing(
    tmp_path: Path, checkpoint: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path, db = sweep_file(tmp_path, checkpoint, parallelism={"tp": [1]}), tmp_path / "runs.duckdb"
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "nvidia-smi").write_text("#!/bin/sh\necho 'NVIDIA Imaginary X1, 1000, 1.0'\n")
    (fake / "nvidia-smi").chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake}:{__import__('os').environ['PATH']}")
    assert invoke(["run", str(path), "--runs-db", str(db), "--no-progress"], {}).exit_code == 0
    res = invoke(["export", "--runs-db", str(db), "--results", str(tmp_path / "r")], {})
    assert res.exit_code == 1 and "not in the GPU registry" in res.output and not (tmp_path / "r").exists()


def test_plan_prints_every_job_with_its_commands(tmp_path: Path, checkpoint: Path) -> None:
    path = sweep_file(tmp_path, checkpoint, parallelism={"tp": [1, 2, 8]})
    res = CliRunner().invoke(app, ["plan", str(path)])
    assert res.exit_code == 0, res.output
    assert res.output.count("benchmark: trtllm-bench --model") == 2
    assert "skipped tp=8" in res.output and "more than the 4 available" in res.output


def test_plan_of_a_bad_sweep_names_the_key_and_exits_1(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(
        yaml.safe_dump(
            {
                "name": "x",
                "model": {"id": "m"},
                "trtllm": {"version": "1.2"},
                "workloads": [{"isl": 0, "osl": 1, "num_requests": 1}],
            }
        )
    )
    res = CliRunner().invoke(app, ["plan", str(path)])
    assert res.exit_code == 1 and "workloads.0.isl: expected greater than 0" in res.output


def test_legacy_engine_is_built_once_and_reused_by_every_workload(
    tmp_path: Path, checkpoint: Path, fake_trtllm: Path
) -> None:
    over = {
        "trtllm": {"version": "1.2.0", "workflow": "legacy-engine", "build": {"quantization": "FP8"}},
        "settings": {"max_batch_size": [64], "max_num_tokens": [2048]},
        "parallelism": {"tp": [1]},
        "workloads": [{"isl": 32, "osl": 16, "num_requests": 10}, {"isl": 64, "osl": 16, "num_requests": 10}],
    }
    path, db = sweep_file(tmp_path, checkpoint, **over), tmp_path / "runs.duckdb"
    res = invoke(["run", str(path), "--runs-db", str(db), "--no-progress"], {})
    assert res.exit_code == 0, res.output
    calls = [json.loads(line) for line in fake_trtllm.read_text().splitlines()]
    subcommands = [next(a for a in c if a in ("build", "throughput")) for c in calls]
    assert subcommands == ["build", "throughput", "throughput"]
    assert all("--engine_dir" in c and "--backend" in c for c in calls[1:])
    assert [r["status"] for r in store.attempts(db, "e2e")] == ["ok", "ok"]


def _explorer_runs(site: Path) -> list[dict[str, Any]]:
    """The run tables the built site ships to the browser (assets/data/runs.*.json), as dicts of columns."""
    out = []
    for f in sorted((site / "assets" / "data").glob("runs.*.json")):
        text = f.read_text(encoding="utf-8")
        out.append(json.loads(text))
    return out


def test_exported_runs_show_in_the_built_explorer(tmp_path: Path, checkpoint: Path) -> None:
    from site_gen.data.load import ingest
    from site_gen.site.build import render_site

    path, db = sweep_file(tmp_path, checkpoint, parallelism={"tp": [1, 2]}), tmp_path / "r.duckdb"
    results, site_db = tmp_path / "res", tmp_path / "llmbench.duckdb"
    assert invoke(["run", str(path), "--runs-db", str(db), "--no-progress"], {}).exit_code == 0
    assert invoke(["export", "--runs-db", str(db), "--results", str(results)], {}).exit_code == 0
    ingest(results, site_db)
    render_site(Path(__file__).resolve().parents[2] / "mkdocs.yml", tmp_path / "site", site_db)
    (table,) = [t for t in _explorer_runs(tmp_path / "site") if t["n"]]
    cols = table["columns"]
    assert cols["tp"] == [1, 2] and cols["publisher"]["dict"] == ["llmbench CI"]
    assert cols["source_kind"]["dict"] == ["measured"] and cols["gpu"]["dict"] == ["H200 SXM 141GB"]
    stored = sorted((r["job"]["tp"], r["metrics"]["output_tokens_per_s"]) for r in store.latest_ok(db))
    assert cols["output_tps"] == pytest.approx([tps for _, tps in stored], abs=0.01)


def test_a_failed_engine_build_is_a_failure_not_retried(tmp_path: Path, checkpoint: Path) -> None:
    over = {
        "trtllm": {"version": "1.2.0", "workflow": "legacy-engine"},
        "parallelism": {"tp": [1]},
        "settings": {
            "max_batch_size": [64],
            "max_num_tokens": [2048],
            "kv_cache_free_gpu_mem_fraction": 0.95,
        },
    }
    path, db = sweep_file(tmp_path, checkpoint, **over), tmp_path / "runs.duckdb"
    res = invoke(["run", str(path), "--runs-db", str(db), "--no-progress"], {"build_fails": True})
    assert res.exit_code == 1
    (att,) = store.attempts(db, "e2e")
    assert att["status"] == "failed" and att["error"].startswith("build step: ")
    assert "Engine build failed" in att["log_tail"]


def test_run_rejects_a_bad_only_list(tmp_path: Path, checkpoint: Path) -> None:
    res = invoke(["run", str(sweep_file(tmp_path, checkpoint)), "--only", "1,x", "--no-progress"], {})
    assert res.exit_code == 1 and "--only: expected job indices" in res.output


def test_container_runs_are_recorded_with_image_and_digest(tmp_path: Path, checkpoint: Path) -> None:
    image = tmp_path / "tensorrt-llm-1.2.0.sif"
    image.write_bytes(b"SIF image stand-in" * 100)
    container = {"image": str(image), "runtime": "apptainer", "binds": [str(tmp_path)]}
    over = {"parallelism": {"tp": [1]}, "cluster": {"gpus_per_node": 4, "container": container}}
    path, db = sweep_file(tmp_path, checkpoint, **over), tmp_path / "runs.duckdb"
    res = invoke(["run", str(path), "--runs-db", str(db), "--no-progress"], {})
    assert res.exit_code == 0, res.output
    (att,) = store.attempts(db, "e2e")
    assert att["command"].startswith(f"apptainer exec --nv --bind {tmp_path} {image} trtllm-bench --model")
    env = att["environment"]
    assert env["container_image"] == str(image) and env["container_runtime"] == "apptainer"
    assert env["container_digest"] == "sha256:" + hashlib.sha256(image.read_bytes()).hexdigest()


def test_a_0_16_engine_run_is_one_process_and_read_from_the_console(
    tmp_path: Path, checkpoint: Path, fake_trtllm: Path
) -> None:
    """TensorRT-LLM 0.16 (inventory: throughput at b4f2086d): no --report_json, and the engine run starts its
    own MPI workers, so even with `launcher: mpirun` the benchmark is one `trtllm-bench` process (no mpirun
    binary is on PATH here: a wrapped command would fail) and its console summary is what is parsed."""
    over = {
        "trtllm": {"version": "0.16.0", "workflow": "legacy-engine"},
        "parallelism": {"tp": [2]},
        "cluster": {"gpus_per_node": 4, "launcher": "mpirun"},
    }
    path, db = sweep_file(tmp_path, checkpoint, **over), tmp_path / "runs.duckdb"
    res = invoke(["run", str(path), "--runs-db", str(db), "--no-progress"], {"version": "0.16.0"})
    assert res.exit_code == 0, res.output
    calls = [json.loads(line) for line in fake_trtllm.read_text().splitlines()]
    (bench,) = [c for c in calls if "throughput" in c]
    assert "--report_json" not in bench and "--backend" not in bench and "--model_path" not in bench
    (att,) = store.attempts(db, "e2e")
    assert att["status"] == "ok" and att["report_source"] == "console"
    assert att["command"].startswith("trtllm-bench --model")
