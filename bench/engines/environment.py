"""What a measured run needs to say about where it ran: GPU, driver, CUDA, library versions, host.

Node-side (stdlib, plus torch/transformers when importable); every probe that fails leaves its key None
rather than failing the benchmark.
"""

from __future__ import annotations

import importlib
import platform
import re
import shutil
import socket
import subprocess
from typing import Any


def _run(argv: list[str]) -> str | None:
    if shutil.which(argv[0]) is None:
        return None
    try:
        return subprocess.run(argv, capture_output=True, text=True, timeout=30, check=True).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None


def _version(module: str) -> str | None:
    try:
        return str(importlib.import_module(module).__version__)
    except Exception:  # a broken optional install must not stop a benchmark
        return None


def _cpu_model() -> str | None:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or None


def gpus() -> dict[str, Any]:
    """GPU name, count, memory and driver from nvidia-smi; CUDA version from its banner."""
    rows = _run(
        ["nvidia-smi", "--query-gpu=name,driver_version,memory.total", "--format=csv,noheader,nounits"]
    )
    banner = _run(["nvidia-smi"]) or ""
    cuda = re.search(r"CUDA Version:\s*([\d.]+)", banner)
    out: dict[str, Any] = {"gpu_name": None, "gpu_count": 0, "gpu_memory_mib": None, "driver_version": None}
    if rows:
        first = [c.strip() for c in rows.splitlines()[0].split(",")]
        out |= {"gpu_name": first[0], "gpu_count": len(rows.splitlines()), "driver_version": first[1]}
        out["gpu_memory_mib"] = int(float(first[2])) if first[2].replace(".", "").isdigit() else None
    out["cuda_driver_version"] = cuda.group(1) if cuda else None
    return out


def capture() -> dict[str, Any]:
    """A flat mapping of scalars (the result file's ``environment`` accepts exactly that)."""
    env: dict[str, Any] = {
        "hostname": socket.gethostname(),
        "os": platform.platform(),
        "cpu": _cpu_model(),
        "python": platform.python_version(),
        "torch": _version("torch"),
        "transformers": _version("transformers"),
        "numpy": _version("numpy"),
    }
    env |= gpus()
    try:
        import torch

        env["torch_cuda"] = torch.version.cuda
        if torch.cuda.is_available():
            env["torch_device"] = torch.cuda.get_device_name(0)
    except Exception:  # torch missing or without CUDA: the keys stay absent
        pass
    return env
