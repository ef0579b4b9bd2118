"""Where a run ran: GPU names and count, driver and CUDA versions, engine version, host, container.

``capture`` probes once per ``llmbench run`` process (all jobs of that process share the node) and
returns a flat dict (the result file's ``environment`` takes flat scalars). A probe that fails leaves its
key None rather than failing the sweep: a missing nvidia-smi is recorded, not fatal. The image digest of
a local ``.sif`` is its sha256, cached beside the sweep output by (path, size, mtime) because images are
gigabytes; a ``docker://...@sha256:`` reference carries its own digest.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import os
import platform
import re
import socket
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from bench.sweep.spec import Sweep

Env = dict[str, str | int | float | bool | None]
PROBE_TIMEOUT_S = 60


def probe(argv: list[str], timeout: float = PROBE_TIMEOUT_S) -> str | None:
    """stdout of a probe command, or None when it is missing, fails or hangs."""
    try:
        out = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout if out.returncode == 0 else None


def gpus() -> Env:
    """GPU names, count, memory and driver from ``nvidia-smi --query-gpu``; CUDA from its banner."""
    env: Env = {"gpu_name": None, "gpu_count": None, "gpu_memory_mib": None, "driver_version": None}
    query = probe(
        ["nvidia-smi", "--query-gpu=name,memory.total,driver_version", "--format=csv,noheader,nounits"]
    )
    rows = [[c.strip() for c in line.split(",")] for line in (query or "").splitlines() if line.strip()]
    if rows:
        names = sorted({r[0] for r in rows})
        env["gpu_name"] = ", ".join(names)
        env["gpu_count"] = len(rows)
        env["gpu_memory_mib"] = int(float(rows[0][1])) if len(rows[0]) > 1 and _is_num(rows[0][1]) else None
        env["driver_version"] = rows[0][2] if len(rows[0]) > 2 else None
    banner = probe(["nvidia-smi"]) or ""
    m = re.search(r"CUDA Version:\s*([0-9.]+)", banner)
    env["cuda_version"] = m.group(1) if m else None
    return env


def _is_num(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def image_digest(image: str, cache_dir: Path) -> str | None:
    """sha256 of a local image file (cached by path, size and mtime), or the digest in a reference."""
    m = re.search(r"@(sha256:[0-9a-f]{64})", image)
    if m:
        return m.group(1)
    path = Path(image)
    if not path.is_file():
        return None
    st = path.stat()
    key = f"{path.resolve()}|{st.st_size}|{st.st_mtime_ns}"
    cache = cache_dir / "image-digests.json"
    try:
        known = json.loads(cache.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        known = {}
    if key not in known:
        h = hashlib.sha256()
        with path.open("rb") as f:
            for block in iter(lambda: f.read(1 << 22), b""):
                h.update(block)
        known[key] = f"sha256:{h.hexdigest()}"
        cache_dir.mkdir(parents=True, exist_ok=True)
        cache.write_text(json.dumps(known, indent=1), encoding="utf-8")
    return known[key]


def _llmbench() -> Env:
    try:
        version = importlib.metadata.version("llmbench")
    except importlib.metadata.PackageNotFoundError:
        version = None
    sha = probe(["git", "-C", str(Path(__file__).resolve().parent), "rev-parse", "HEAD"], timeout=10)
    return {"llmbench_version": version, "llmbench_git_sha": sha.strip() if sha else None}


def _slurm() -> Env:
    keys = ("SLURM_JOB_ID", "SLURM_ARRAY_JOB_ID", "SLURM_ARRAY_TASK_ID", "SLURM_JOB_NODELIST")
    return {k.lower(): os.environ.get(k) for k in keys if os.environ.get(k)}


def capture(sweep: Sweep, out_dir: Path) -> Env:
    """Everything known about this node and software, flat."""
    from bench.sweep.engine import engine

    c = sweep.cluster.container
    env: Env = {
        "hostname": socket.gethostname(),
        "os": platform.platform(),
        "python": platform.python_version(),
    }
    env |= gpus()
    # the key is the result files' (one engine today reports an installed version)
    env["trtllm_version"] = engine(sweep.engine).installed_version(sweep)
    env["container_runtime"] = c.runtime if c else None
    env["container_image"] = c.image if c else None
    env["container_digest"] = image_digest(c.image, out_dir) if c else None
    env["cuda_visible_devices"] = os.environ.get("CUDA_VISIBLE_DEVICES")
    env |= _llmbench() | _slurm()
    return env
