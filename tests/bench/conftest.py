"""Bench test fixtures: the stand-in trtllm-bench on PATH, a tiny checkpoint, and a real one-node Slurm."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

FAKE_BIN = Path(__file__).parent / "fake_trtllm_bench"


@pytest.fixture
def fake_trtllm(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Path]:
    """PATH starts with the test doubles (trtllm-bench, trtllm-llmapi-launch, nvidia-smi); calls logged."""
    calls = tmp_path / "calls.jsonl"
    monkeypatch.setenv("PATH", f"{FAKE_BIN}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("FAKE_TRTLLM_CALLS", str(calls))
    monkeypatch.setenv("FAKE_GPU_COUNT", "4")
    monkeypatch.setenv("FAKE_TRTLLM_BEHAVIOUR", "{}")
    yield calls


@pytest.fixture
def checkpoint(tmp_path: Path) -> Path:
    """A checkpoint folder with just what the dataset needs (config.json: vocabulary and EOS)."""
    d = tmp_path / "Llama-3.1-8B-Instruct"
    d.mkdir()
    (d / "config.json").write_text(json.dumps({"vocab_size": 1000, "eos_token_id": 2}), encoding="utf-8")
    return d
