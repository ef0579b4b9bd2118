"""Provenance: nvidia-smi facts, missing tools recorded as None, image digests."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from bench.sweep import provenance

FAKE_BIN = Path(__file__).parent / "fake_trtllm_bench"


def test_gpu_facts_come_from_nvidia_smi(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", f"{FAKE_BIN}:/usr/bin:/bin")
    monkeypatch.setenv("FAKE_GPU_COUNT", "8")
    env = provenance.gpus()
    assert env == {
        "gpu_name": "NVIDIA H200", "gpu_count": 8, "gpu_memory_mib": 143771,
        "driver_version": "570.124.06", "cuda_version": "12.8",
    }  # fmt: skip


def test_a_node_without_nvidia_smi_records_none(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    assert set(provenance.gpus().values()) == {None}


def test_image_digest_is_the_files_sha256_and_is_cached(tmp_path: Path) -> None:
    image = tmp_path / "trt.sif"
    image.write_bytes(b"x" * 5000)
    want = f"sha256:{hashlib.sha256(image.read_bytes()).hexdigest()}"
    assert provenance.image_digest(str(image), tmp_path / "out") == want
    assert want in (tmp_path / "out" / "image-digests.json").read_text()
    ref = "docker://nvcr.io/nvidia/tensorrt-llm/release@sha256:" + "a" * 64
    assert provenance.image_digest(ref, tmp_path) == "sha256:" + "a" * 64
    assert provenance.image_digest("docker://nvcr.io/nvidia/tensorrt-llm/release:1.2.0", tmp_path) is None
