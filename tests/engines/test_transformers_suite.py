"""The suite that ran the H200 session: probes, 'best' mode, request sizing, deadline, bundle on disk."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from bench.contract import registry
from bench.engines import environment, transformers_suite

TINY = registry.models().get("llmbench/tiny-random-llama")
ARCH = {k: getattr(TINY, k) for k in ("layers", "hidden_size", "intermediate_size", "attention_heads")}
ARCH |= {"kv_heads": TINY.kv_heads, "head_dim": TINY.head_dim, "vocab_size": TINY.vocab_size}


def test_suite_probes_picks_the_fastest_mode_and_sizes_the_final_run(tmp_path: Path) -> None:
    job = {"role": "probe", "isl": 16, "osl": 4, "num_requests": 8, "max_batch_size": 4}
    plan = {
        "model": "llmbench/tiny-random-llama", "arch": ARCH, "dtype": "fp32", "device": "cpu",
        "deadline_s": 120, "data_dir": str(tmp_path / "data"),
        "jobs": [
            {**job, "name": "p-generate", "batching": "generate"},
            {**job, "name": "p-static", "batching": "static"},
            {"name": "final", "role": "final", "isl": 16, "osl": 4, "batching": "best", "max_batch_size": 4,
             "budget_s": 0.5, "max_requests": 16},
            {"name": "too-big", "role": "final", "isl": 16, "osl": 4, "batching": "generate",
             "needs_s": 10_000},
        ],
    }  # fmt: skip
    done = transformers_suite.run_plan(plan, tmp_path / "out")
    bundle = json.loads((tmp_path / "out" / "bundle.json").read_text())
    assert [j["name"] for j in bundle["jobs"]] == ["p-generate", "p-static", "final", "too-big"]
    probes = {d["name"]: d["report"]["performance"]["system_output_throughput_tok_s"] for d in done[:2]}
    fastest = max(probes, key=probes.__getitem__).removeprefix("p-")
    final = done[2]
    assert final["batching_used"] == fastest and final["report"]["engine"]["batching"] == fastest
    assert final["num_requests_used"] % 4 == 0 and 4 <= final["num_requests_used"] <= 16
    assert "skipped" in done[3] and "report" not in done[3]
    assert bundle["environment"]["python"] and (tmp_path / "out" / "environment.json").exists()


def test_best_falls_back_when_nothing_was_probed() -> None:
    job = {"batching": "best", "isl": 1, "osl": 1, "fallback": "generate"}
    assert transformers_suite.choose_mode(job, []) == "generate"


def test_environment_reads_gpu_driver_and_cuda_from_nvidia_smi(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    smi = tmp_path / "nvidia-smi"
    smi.write_text(
        "#!/bin/sh\n"
        'row="NVIDIA H200, 580.159.04, 143771"\n'
        'case "$1" in --query-gpu*) echo "$row"; echo "$row";;\n'
        '*) echo "| NVIDIA-SMI 580.159.04  Driver Version: 580.159.04  CUDA Version: 13.0 |";; esac\n'
    )
    smi.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}:{os.environ['PATH']}")
    env = environment.capture()
    assert (env["gpu_name"], env["gpu_count"], env["gpu_memory_mib"]) == ("NVIDIA H200", 2, 143771)
    assert (env["driver_version"], env["cuda_driver_version"]) == ("580.159.04", "13.0")
    assert all(isinstance(v, str | int | float | bool) or v is None for v in env.values())
