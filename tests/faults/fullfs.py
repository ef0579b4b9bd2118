"""Run one command on a genuinely full file system (for the ``full_disk`` fixture, tests/faults/conftest.py).

``python fullfs.py SPEC.json``, run inside ``unshare -rm`` (a user and mount namespace: no root needed, the
mount vanishes with the namespace) or as root: mounts a tmpfs of ``size`` bytes over ``mount``, copies
``seed``'s contents in (the store as it was before), fills the rest with a filler file until only ``free``
bytes are left (0: to the brim, ENOSPC on the next block), runs ``argv`` there, then copies everything the
tmpfs holds but the filler to ``after`` (outside the mount, so the test can look at it once the namespace is
gone) and writes the outcome to ``result`` as JSON. Standard library only: it runs before any project code.
"""

from __future__ import annotations

import errno
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

FILLER = ".fullfs-filler"
CHUNK = 1 << 16


def free_bytes(folder: Path) -> int:
    st = os.statvfs(folder)
    return st.f_bavail * st.f_frsize


def fill(folder: Path, free: int) -> int:
    """Write zeros to the filler until at most ``free`` bytes are left; return what is left."""
    with open(folder / FILLER, "wb", buffering=0) as f:
        while (left := free_bytes(folder) - free) > 0:
            try:
                f.write(b"\0" * min(CHUNK, left))
            except OSError as e:
                if e.errno != errno.ENOSPC:
                    raise
                break
    return free_bytes(folder)


def main(spec_file: str) -> int:
    spec = json.loads(Path(spec_file).read_text(encoding="utf-8"))
    mount, after = Path(spec["mount"]), Path(spec["after"])
    subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={spec['size']},mode=0755", "llmbench-full", str(mount)],
        check=True,
    )
    try:
        if spec["seed"]:
            shutil.copytree(spec["seed"], mount, symlinks=True, dirs_exist_ok=True)
        left = fill(mount, spec["free"])
        try:
            proc = subprocess.run(
                spec["argv"], cwd=spec["cwd"], env=spec["env"], capture_output=True, text=True,
                timeout=spec["timeout"], check=False,
            )  # fmt: skip
            code, out = proc.returncode, proc.stdout + proc.stderr
        except subprocess.TimeoutExpired as e:
            code, out = -1, f"fullfs: timed out after {e.timeout} s\n{e.stdout or ''}{e.stderr or ''}"
        shutil.copytree(mount, after, symlinks=True, ignore=shutil.ignore_patterns(FILLER))
        result = {"code": code, "output": out, "free": left, "free_after": free_bytes(mount)}
        Path(spec["result"]).write_text(json.dumps(result), encoding="utf-8")
    finally:
        if spec["umount"]:  # plain mount as root: in the host's namespace, so take it down ourselves
            subprocess.run(["umount", str(mount)], check=False)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
