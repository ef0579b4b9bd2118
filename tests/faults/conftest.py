"""``full_disk``: run a real ``llmbench`` command with a folder on a genuinely full file system.

A small tmpfs is mounted over the folder, the store as it was (``seed``) copied in, the rest filled up to
``free`` bytes (0: to the brim), the command run, and what the tmpfs holds afterwards copied out for the
test to check: listings, bytes, DuckDB row counts, never the command's own report.

The mount needs a mount namespace or root, tried in this order (the first whose probe mounts a tmpfs):
``unshare -rm`` (user + mount namespace: works for an unprivileged user where the kernel allows user
namespaces; the mount dies with the namespace), then, as root (as CI runs), ``unshare -m`` and a plain
``mount`` (unmounted by the runner). Where none works (no ``unshare``/``mount``; a non-root user where user
namespaces are disabled or restricted, as by Ubuntu 24.04's AppArmor default; a container without
CAP_SYS_ADMIN) every full-disk test is skipped and the reason printed.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

RUNNER = Path(__file__).with_name("fullfs.py")
PAGE = 4096
SLACK = 1 << 20  # room for the filler's own blocks and tmpfs's rounding


@dataclass(frozen=True)
class FullRun:
    code: int
    output: str  # stdout + stderr
    after: Path  # what the full file system held after the command (the filler left out)
    free: int  # bytes free when the command started


def _probe(prefix: list[str], folder: Path, umount: bool) -> str | None:
    """None if ``prefix mount -t tmpfs`` works here, else why not."""
    folder.mkdir(parents=True, exist_ok=True)
    cmd = [*prefix, "mount", "-t", "tmpfs", "-o", "size=64k", "llmbench-probe", str(folder)]
    try:
        res = subprocess.run(cmd, capture_output=True, text=True, timeout=30, check=False)
    except OSError as e:
        return f"{' '.join(cmd[:3])}: {e}"
    if res.returncode != 0:
        return f"{' '.join([*prefix, 'mount'])}: {(res.stderr or res.stdout).strip() or res.returncode}"
    if umount:
        subprocess.run(["umount", str(folder)], check=False)
    return None


@pytest.fixture(scope="session")
def mount_prefix(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[str], bool]:
    """How to mount a tmpfs here: (command prefix, whether the runner must unmount it itself)."""
    probe = tmp_path_factory.mktemp("probe") / "mnt"
    root = os.geteuid() == 0
    ways = [(["unshare", "-rm"], False)] + ([(["unshare", "-m"], False), ([], True)] if root else [])
    reasons = []
    for prefix, umount in ways:
        if (prefix and not shutil.which("unshare")) or not shutil.which("mount"):
            reasons.append(f"{' '.join([*prefix, 'mount'])}: not installed")
            continue
        why = _probe(prefix, probe, umount)
        if why is None:
            return prefix, umount
        reasons.append(why)
    if not root:
        reasons.append("not root, so no plain mount")
    reason = "cannot mount a tmpfs for the full-disk tests: " + "; ".join(reasons)
    print(reason)
    pytest.skip(reason)


def tree_size(folder: Path | None) -> int:
    """Bytes ``folder`` takes on a tmpfs (each file rounded up to whole pages)."""
    if folder is None:
        return 0
    return sum(-(-p.stat().st_size // PAGE) * PAGE for p in folder.rglob("*") if p.is_file())


@pytest.fixture
def full_disk(tmp_path: Path, mount_prefix: tuple[list[str], bool]) -> Callable[..., FullRun]:
    """``run(argv, folder=, seed=, free=0, fill_when=None)``: ``argv`` with ``folder`` on a full tmpfs
    holding ``seed``'s files and ``free`` bytes of room, filled to the brim once ``fill_when`` exists;
    see tests/faults/fullfs.py."""
    prefix, umount = mount_prefix
    count = 0

    def run(
        argv: list[str],
        *,
        folder: Path,
        seed: Path | None = None,
        free: int = 0,
        env: dict[str, str] | None = None,
        cwd: Path | None = None,
        timeout: float = 600,
        fill_when: Path | None = None,
    ) -> FullRun:
        nonlocal count
        count += 1
        folder.mkdir(parents=True, exist_ok=True)
        assert not any(folder.iterdir()), f"{folder} would be hidden by the mount"
        work = tmp_path / f".fullfs-{count}"
        work.mkdir()
        spec = {
            "mount": str(folder), "size": tree_size(seed) + free + SLACK, "seed": str(seed) if seed else None,
            "free": free, "argv": argv, "cwd": str(cwd or tmp_path), "env": env or dict(os.environ),
            "timeout": timeout, "after": str(work / "after"), "result": str(work / "result.json"),
            "umount": umount, "fill_when": str(fill_when) if fill_when else None,
        }  # fmt: skip
        (work / "spec.json").write_text(json.dumps(spec), encoding="utf-8")
        res = subprocess.run(
            [*prefix, sys.executable, str(RUNNER), str(work / "spec.json")],
            capture_output=True, text=True, timeout=timeout + 60, check=False,
        )  # fmt: skip
        assert res.returncode == 0, f"the full-disk runner failed:\n{res.stdout}{res.stderr}"
        out = json.loads((work / "result.json").read_text(encoding="utf-8"))
        assert out["free"] <= free + PAGE, f"the filler left {out['free']} bytes free, wanted {free}"
        return FullRun(out["code"], out["output"], work / "after", out["free"])

    return run
