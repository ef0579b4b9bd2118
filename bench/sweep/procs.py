"""Process control for sweep runs: process identity, parent-death signal, interrupts, group kills.

A job's command (``trtllm-bench``, ``mpirun``, ``srun``) runs in its own process group so one signal
reaches it and everything it started. Three ways it could outlive the runner, and what stops each:
the runner is interrupted (SIGINT/SIGTERM/SIGHUP: ``interrupts`` turns the signal into ``Interrupted``,
the runner kills the group and records the attempt); the runner is killed outright (SIGKILL: the
command gets the parent-death signal, Linux's ``PR_SET_PDEATHSIG``); and what is left anyway (a
grandchild that ignores it) is found through the ``running`` row by the next ``llmbench run``, which
ends the group. Pids are reused, so a process is named by (pid, start time) throughout.

And what outlives the attempt while the runner lives: a rank left running after the command exited
(even with exit code 0) holds GPU memory the next attempt needs. After every attempt ``end_leftovers``
ends the command's group, and every process re-parented to the runner since the attempt began: the
runner is a child subreaper (``subreaper``, Linux's ``PR_SET_CHILD_SUBREAPER``), so a rank that left
the group (``setsid``, a double fork) becomes the runner's child when its parent dies, not init's.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from types import FrameType

PR_SET_PDEATHSIG = 1  # <linux/prctl.h>
PR_SET_CHILD_SUBREAPER = 36
PR_GET_CHILD_SUBREAPER = 37
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


class Interrupted(BaseException):
    """The runner got a stop signal; the command is killed and the attempt recorded before exiting."""

    def __init__(self, signum: int) -> None:
        self.signum = signum
        super().__init__(signal.Signals(signum).name)

    @property
    def exit_code(self) -> int:
        return 128 + self.signum


def start_ticks(pid: int) -> int | None:
    """The process's start time in clock ticks since boot (/proc/PID/stat field 22); None if it is gone
    or a zombie."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="ascii", errors="replace")
    except OSError:
        return None
    # the command name (field 2) may hold spaces and parentheses: count from the last ')'
    fields = stat[stat.rfind(")") + 2 :].split()
    if not fields or fields[0] in ("Z", "X"):  # a zombie has finished: only its exit status is left
        return None
    try:
        return int(fields[19])
    except (IndexError, ValueError):
        return None


def alive(pid: int | None, started: int | None) -> bool:
    """Whether the process that had this pid and start time still runs (not a later one with its pid)."""
    if not pid or started is None:
        return False
    return start_ticks(pid) == started


def group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _libc_prctl() -> Callable[..., int] | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        return ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None


_PRCTL = _libc_prctl()  # loaded here: a forked child should not load libraries before exec


def die_with_parent(sig: int = signal.SIGKILL) -> Callable[[], None] | None:
    """A preexec_fn that makes the child get ``sig`` when the runner dies (Linux; None elsewhere)."""
    if _PRCTL is None:
        return None
    prctl, parent = _PRCTL, os.getpid()

    def pre() -> None:
        prctl(PR_SET_PDEATHSIG, sig, 0, 0, 0)
        if os.getppid() != parent:  # the runner died between fork and prctl: nobody would signal us
            os.kill(os.getpid(), sig)

    return pre


def kill_group(proc: subprocess.Popen, grace_s: float) -> None:
    """SIGTERM the whole process group (MPI ranks, workers), then SIGKILL what is left after the grace."""
    for sig, wait in ((signal.SIGTERM, grace_s), (signal.SIGKILL, 10.0)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            break
        try:
            proc.wait(timeout=wait)
            break
        except subprocess.TimeoutExpired:
            continue
    with contextlib.suppress(ProcessLookupError):  # members that outlived their leader
        os.killpg(proc.pid, signal.SIGKILL)


def end_group(pgid: int, leader_started: int | None, grace_s: float) -> bool:
    """End a group left by a dead runner, if it is still that group; True if something was signalled.

    A leader with the same pid but another start time is someone else's process: left alone. A gone
    leader whose group still has members cannot have been reused (a new group takes its leader's pid).
    """
    now = start_ticks(pgid)
    if now is not None and now != leader_started:
        return False
    if not group_alive(pgid):
        return False
    for sig in (signal.SIGTERM, signal.SIGKILL):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pgid, sig)
        if _wait_gone(pgid, grace_s if sig == signal.SIGTERM else 10.0):
            break
    return True


def _wait_gone(pgid: int, seconds: float) -> bool:
    done = threading.Event()
    waited = 0.0
    while group_alive(pgid) and waited < seconds:
        done.wait(0.05)
        waited += 0.05
    return not group_alive(pgid)


@contextlib.contextmanager
def interrupts() -> Iterator[None]:
    """Within: SIGINT, SIGTERM and SIGHUP raise ``Interrupted`` once (a second one during the cleanup is
    ignored, so the cleanup finishes). Outside the main thread signals cannot be caught: nothing changes."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    fired: list[int] = []

    def handler(signum: int, _frame: FrameType | None) -> None:
        if fired:
            return
        fired.append(signum)
        raise Interrupted(signum)

    old = {s: signal.signal(s, handler) for s in STOP_SIGNALS}
    try:
        yield
    finally:
        for s, h in old.items():
            signal.signal(s, h)


@contextlib.contextmanager
def subreaper() -> Iterator[bool]:
    """Within: this process is a child subreaper (Linux 3.4+; yields False where it cannot be): an
    orphaned descendant is re-parented to it, so ``end_leftovers`` can find and end it. The previous
    setting is restored afterwards (a test calling the runner in-process is left as it was)."""
    if _PRCTL is None:
        yield False
        return
    old = ctypes.c_int(0)
    _PRCTL(PR_GET_CHILD_SUBREAPER, ctypes.byref(old), 0, 0, 0)
    ok = _PRCTL(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    try:
        yield ok
    finally:
        if ok and not old.value:
            _PRCTL(PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0)


def _stat(pid: int) -> tuple[str, int, int] | None:
    """(state, parent pid, process group) from /proc/PID/stat; None if it is gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="ascii", errors="replace")
    except OSError:
        return None
    fields = stat[stat.rfind(")") + 2 :].split()
    try:
        return fields[0], int(fields[1]), int(fields[2])
    except (IndexError, ValueError):
        return None


def _processes() -> Iterator[tuple[int, str, int, int]]:
    """(pid, state, parent pid, group) of every process this runner can see."""
    for name in os.listdir("/proc"):
        if name.isdigit() and (st := _stat(int(name))) is not None:
            yield int(name), *st


def children() -> set[int]:
    """The pids of this process's children (live or zombie)."""
    me = os.getpid()
    return {pid for pid, _, ppid, _ in _processes() if ppid == me}


def _name(pid: int) -> str:
    try:
        comm = Path(f"/proc/{pid}/comm").read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        comm = "?"
    return f"{pid} ({comm.encode('unicode_escape').decode('ascii')})"  # a name cannot forge a log line


def _leftovers(pgid: int, known: set[int]) -> list[int]:
    """Live members of group ``pgid`` and live children of this process not in ``known``; reaps the
    zombies among those children (they were ours to wait for: re-parented orphans)."""
    me, live = os.getpid(), []
    for pid, state, ppid, group in _processes():
        ours = ppid == me and pid not in known
        if state in ("Z", "X"):
            if ours:
                with contextlib.suppress(ChildProcessError):
                    os.waitpid(pid, os.WNOHANG)
        elif group == pgid or ours:
            live.append(pid)
    return live


def end_leftovers(pgid: int, known: set[int], grace_s: float) -> list[str]:
    """After an attempt: end what is left of its process group ``pgid`` (its leader has exited) and every
    process re-parented to this runner since the attempt began (children not in ``known``, taken before
    it). SIGTERM, then after ``grace_s`` SIGKILL; a killed orphan's own children come to us in turn and
    are ended the same way. Returns "pid (name)" of each process found running, for the log."""
    found: dict[int, str] = {}
    for sig, seconds in ((signal.SIGTERM, grace_s), (signal.SIGKILL, 10.0)):
        deadline, signalled = time.monotonic() + seconds, set()
        while live := _leftovers(pgid, known):
            for pid in set(live) - signalled:
                found.setdefault(pid, _name(pid))
                signalled.add(pid)
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, sig)
            if time.monotonic() > deadline:
                break
            time.sleep(0.02)
        else:
            break
    return list(found.values())
