"""Engine test fixtures: the tiny random Llama of the model registry, and a CPU entry in the GPU registry.

The GPU registry has no entry for a CPU, and a CPU-only CI run must not pretend to be a GPU: the
end-to-end test adds one test-only entry, ``CPU (CI test)``, to the registry of this process.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from bench.contract import registry
from bench.engines.transformers_engine import arch_json

TINY = "llmbench/tiny-random-llama"
CPU_ENTRY = {
    "name": "CPU (CI test)",
    "architecture": "CPU",
    "year": 2026,
    "form_factor": "host CPU (test-only registry entry)",
    "memory_gb": 24,
    "memory_type": "DDR",
    "hbm_bandwidth_tb_s": 0.05,
    "tflops_dense": {"FP16": 1.0, "BF16": 1.0, "FP8": None, "FP4": None, "INT8": None},  # order of magnitude
    "source": "tests/engines/conftest.py (test-only)",
}


@pytest.fixture
def cpu_gpu_entry(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """The GPU registry of this process plus ``CPU (CI test)``; restored afterwards."""
    real = registry._load

    def load(filename: str) -> list[dict]:
        entries = real(filename)
        return [*entries, CPU_ENTRY] if filename == "gpus.yaml" else entries

    registry.gpus.cache_clear()
    monkeypatch.setattr(registry, "_load", load)
    yield CPU_ENTRY["name"]
    registry.gpus.cache_clear()


@pytest.fixture(scope="session")
def tiny_arch() -> str:
    return arch_json(TINY)  # the runner's --arch, inline JSON, as engine transformers passes it


@pytest.fixture
def tiny_dataset(tmp_path: Path) -> Path:
    from bench.engines import workload

    return workload.write(tmp_path / "data.jsonl", workload.token_norm_dist(12, 16, 6, 1024, 3, 2))
