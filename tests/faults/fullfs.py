"""Run one command on a genuinely full file system (for the ``full_disk`` fixture, tests/faults/conftest.py).

``python fullfs.py SPEC.json``, run inside ``unshare -rm`` (a user and mount namespace: no root needed, the
mount vanishes with the namespace) or as root: mounts a tmpfs of ``size`` bytes over ``mount``, copies
``seed``'s contents in (the store as it was before), fills the rest with a filler file until only ``free``
bytes are left (0: to the brim, ENOSPC on the next block), runs ``argv`` there (with ``fill_when``, fills
the rest too once that path exists: the disk fills up while the command writes), then copies everything the
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
import time
from pathlib import Path

FILLER = ".fullfs-filler"
CHUNK = 1 << 16


def free_bytes(folder: Path) -> int:
    st = os.statvfs(folder)
    return st.f_bavail * st.f_frsize


def fill(folder: Path, free: int) -> int:
    """Write zeros to the filler until at most ``free`` bytes are left; return what is left."""
    with open(folder / FILLER, "ab", buffering=0) as f:
        while (left := free_bytes(folder) - free) > 0:
            try:
                f.write(b"\0" * min(CHUNK, left))
            except OSError as e:
                if e.errno != errno.ENOSPC:
                    raise
                break
    return free_bytes(folder)


def run(spec: dict, mount: Path) -> tuple[int, str]:
    """Run the command; with ``fill_when``, fill the disk to the brim as soon as that path exists (another
    process filling the disk while the command is writing). Returns (exit code, stdout + stderr)."""
    with open(Path(spec["result"]).with_suffix(".out"), "w+", encoding="utf-8", errors="replace") as log:
        proc = subprocess.Popen(spec["argv"], cwd=spec["cwd"], env=spec["env"], stdout=log, stderr=log)
        try:
            trigger = Path(spec["fill_when"]) if spec["fill_when"] else None
            deadline = time.monotonic() + spec["timeout"]
            while proc.poll() is None and trigger is not None and not trigger.exists():
                if time.monotonic() > deadline:
                    raise subprocess.TimeoutExpired(spec["argv"], spec["timeout"])
                time.sleep(0.005)
            if trigger is not None and trigger.exists():
                fill(mount, 0)
            code = proc.wait(timeout=max(1.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            code = -1
            log.write(f"\nfullfs: timed out after {spec['timeout']} s\n")
        log.seek(0)
        return code, log.read()


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
        code, out = run(spec, mount)
        shutil.copytree(mount, after, symlinks=True, ignore=shutil.ignore_patterns(FILLER))
        result = {"code": code, "output": out, "free": left, "free_after": free_bytes(mount)}
        Path(spec["result"]).write_text(json.dumps(result), encoding="utf-8")
    finally:
        if spec["umount"]:  # plain mount as root: in the host's namespace, so take it down ourselves
            subprocess.run(["umount", str(mount)], check=False)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
