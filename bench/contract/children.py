"""Worker processes that never outlive the process that started them.

A pool's workers (result files checked in parallel, the site build's pictures rasterised beside the
pages) must not be left behind, still working, when their parent is killed with ``-9``: the parent then
runs no clean-up. Kept apart from the rest of the contract so that a worker imports nothing else.
"""

from __future__ import annotations

import os
import signal
import sys

_PR_SET_PDEATHSIG = 1  # <linux/prctl.h>


def die_with_parent(parent: int) -> None:
    """Pool initializer: the worker gets SIGKILL when the process that started it dies (Linux's
    parent-death signal), so a killed command leaves no worker behind."""
    if sys.platform.startswith("linux"):
        import ctypes
        import ctypes.util

        libc = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:  # the parent died before the signal was armed: nobody would send it
        os._exit(1)
