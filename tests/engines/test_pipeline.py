"""CI end to end on CPU: sweep (engine transformers, tiny random Llama) -> runs DB -> export -> validate ->
ingest -> site. Real torch, real transformers, real DuckDB, real ``mkdocs build --strict``."""

from __future__ import annotations

import json
import re
from pathlib import Path

import duckdb
import yaml
from typer.testing import CliRunner

from bench.cli import app
from bench.sweep import store
from site_gen.site.build import render_site
from tests.engines.conftest import TINY

ROOT = Path(__file__).resolve().parents[2]


def sweep_file(tmp: Path, gpu: str) -> Path:
    spec = {
        "name": "ci-transformers",
        "engine": "transformers",
        "model": {"id": TINY, "precision": "FP32"},
        "transformers": {
            "batching": "generate",
            "weights": "random",
            "device": "cpu",
        },
        "workloads": [{"isl": 32, "osl": 8, "num_requests": 12}, {"isl": 8, "osl": 16, "num_requests": 6}],
        "settings": {"max_batch_size": [4]},
        "dataset": {"vocab_size": 1024, "eos_id": 2},
        "cluster": {"gpus_per_node": 1},
        "hardware": {"gpu": gpu},
        "run": {"timeout_s": 120, "output_dir": str(tmp / "out")},
        "publish": {"submitter": "llmbench CI", "system": "CI runner"},
    }
    path = tmp / "sweep.yaml"
    path.write_text(yaml.safe_dump(spec, sort_keys=False), encoding="utf-8")
    return path


def test_cpu_sweep_runs_exports_validates_ingests_and_shows_on_the_site(
    tmp_path: Path, cpu_gpu_entry: str
) -> None:
    cli, db, results = CliRunner(), tmp_path / "runs.duckdb", tmp_path / "results"
    path = sweep_file(tmp_path, cpu_gpu_entry)

    ran = cli.invoke(app, ["run", str(path), "--runs-db", str(db), "--no-progress"])
    assert ran.exit_code == 0, ran.output
    attempts = store.attempts(db, "ci-transformers")
    assert [a["status"] for a in attempts] == ["ok", "ok"]
    assert all("bench.engines.transformers_runner" in a["command"] for a in attempts)
    assert {a["report"]["engine"]["backend"] for a in attempts} == {"transformers"}

    exported = cli.invoke(app, ["export", "--runs-db", str(db), "--results", str(results)])
    assert exported.exit_code == 0, exported.output
    (written,) = list(results.rglob("*.yaml"))
    assert written.relative_to(results).parts[1].startswith("transformers-")
    validated = cli.invoke(app, ["validate", str(results), "--results", str(results)])
    assert validated.exit_code == 0, validated.output
    data = yaml.safe_load(written.read_text(encoding="utf-8"))
    assert data["software"]["engine"] == "transformers"
    assert data["software"]["benchmark_tool"] == "llmbench-transformers"
    assert data["model"]["weights"] == "random" and data["model"]["weight_precision"] == "FP32"
    runs = sorted(data["runs"], key=lambda r: r["workload"]["isl"])
    assert [(r["workload"]["isl"], r["workload"]["osl"], r["workload"]["num_requests"]) for r in runs] == [
        (8, 16, 6),
        (32, 8, 12),
    ]
    for r in runs:
        m = r["metrics"]
        assert r["engine_settings"]["extra"]["batching"] == "generate"
        # trtllm-bench's definitions hold between the figures of one run
        assert (
            abs(m["output_tokens_per_s"] - m["requests_per_s"] * r["workload"]["osl"])
            < 1e-6 * m["output_tokens_per_s"]
        )
        assert m["ttft_ms"]["p50"] > 0 and m["tpot_ms"]["avg"] > 0

    site_db, site = tmp_path / "site.duckdb", tmp_path / "site"
    ingested = cli.invoke(app, ["ingest", "--results", str(results), "--db", str(site_db)])
    assert ingested.exit_code == 0, ingested.output
    con = duckdb.connect(str(site_db), read_only=True)
    rows = con.execute("SELECT engine, gpu, model, isl, osl FROM runs ORDER BY isl").fetchall()
    con.close()
    assert rows == [
        ("transformers", cpu_gpu_entry, TINY, 8, 16),
        ("transformers", cpu_gpu_entry, TINY, 32, 8),
    ]
    render_site(ROOT / "mkdocs.yml", site, site_db)
    explorer = (site / "explorer.html").read_text(encoding="utf-8")
    (data_src,) = set(re.findall(r'src="(assets/data/runs\.[0-9a-f]+\.json)"', explorer))
    data = json.loads((site / data_src).read_text(encoding="utf-8"))
    cols = data["columns"]
    assert data["n"] == 2 and cols["engine"]["dict"] == ["transformers"]
    assert cols["gpu"]["dict"] == [cpu_gpu_entry] and cols["model_name"]["dict"] == [
        "Tiny random Llama (test)"
    ]
    assert sorted(cols["workload"]["dict"]) == ["32/8", "8/16"]
