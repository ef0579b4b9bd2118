"""What every full-disk test asserts, read from the file system: the files, their bytes, the error line."""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

LLMBENCH = str(Path(sys.executable).parent / "llmbench")
ENOSPC = "No space left on device"


def digests(folder: Path) -> dict[str, str]:
    """Every file and folder under ``folder``: relative path -> sha256 of its bytes ("dir" for a folder)."""
    return {
        str(p.relative_to(folder)): "dir" if p.is_dir() else hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
    }


def one_error_line(output: str, code: int, path: Path | str) -> str:
    """The command failed (exit 1) with one ``error:`` line naming ``path`` and the full disk, and no
    traceback; returns that line."""
    assert code == 1, f"exit {code}:\n{output[-3000:]}"
    assert "Traceback" not in output, output[-3000:]
    errors = [line for line in output.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, output[-3000:]
    assert str(path) in errors[0] and ENOSPC in errors[0], errors[0]
    return errors[0]
