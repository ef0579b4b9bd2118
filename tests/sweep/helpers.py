"""Shared by the bench tests: write a sweep file from a dict and load its plan."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import yaml

from bench.sweep import spec as sweep

BASE: dict[str, Any] = {
    "name": "golden",
    "model": {"id": "meta-llama/Llama-3.1-8B-Instruct"},
    "trtllm": {"version": "1.2.0", "workflow": "pytorch"},
    "workloads": [{"isl": 128, "osl": 128, "num_requests": 30000}],
}


def merge(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(base)
    for k, v in over.items():
        out[k] = merge(out[k], v) if isinstance(v, dict) and isinstance(out.get(k), dict) else v
    return out


def write_sweep(tmp: Path, over: dict[str, Any], name: str = "sweep.yaml") -> Path:
    path = tmp / name
    path.write_text(yaml.safe_dump(merge(BASE, over), sort_keys=False), encoding="utf-8")
    return path


def plan(tmp: Path, over: dict[str, Any]) -> sweep.Plan:
    return sweep.load_plan(write_sweep(tmp, over), out_dir=tmp / "out")
