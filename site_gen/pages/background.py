"""Work the build's second core does while the pages render: the run cards, then the pages' data files.

One daemon thread runs the jobs one after another, in the order they were given (``Worker.submit``); a
job's result, or its exception, is taken with ``Job.result``: a job the thread has not begun is run
there and then by the thread that asks, and while it waits for one the thread has begun, it runs the
next jobs of the queue (the page thread never waits for work it could do itself). Most of the work is
DuckDB's, Arrow's and numpy's, which run outside Python's lock, so the thread takes the second core while
the first renders pages. One thread, not a pool: each job holds a frame of runs while it encodes, and
more at once would add their frames to the build's peak (at most two run at once: the worker's, and one
the page thread runs instead of its own work while it waits).

Not a ``concurrent.futures`` pool either, which joins its threads at exit: an interrupted build would
wait for work it no longer needs. But a daemon thread still inside DuckDB's or Arrow's C++ when Python
finalises is unwound by force, and their ``catch (...)`` then aborts the process ("FATAL: exception not
rethrown", exit -6, seen on a build that failed on a full disk); so every worker is cancelled at exit
(``_cancel_all``), before finalisation, which waits for its current job only, and the job is given an
event it checks between its steps.
"""

from __future__ import annotations

import atexit
import collections
import threading
import weakref
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Callable


class Cancelled(RuntimeError):
    """The job never ran: its worker was cancelled first (the build ended)."""


class Job:
    """One function of a worker's queue, its result or exception kept for ``result``."""

    def __init__(self, fn: Callable[[threading.Event], Any], worker: Worker) -> None:
        self._fn, self._value, self._error = fn, None, None
        self._done = threading.Event()
        self._worker = worker

    def run(self, stop: threading.Event) -> None:
        try:
            self._value = self._fn(stop)
        except BaseException as e:  # raised again in the thread that asks for the result
            self._error = e
        finally:
            self._done.set()

    def drop(self) -> None:
        self._error = Cancelled("the build ended before this work ran")
        self._done.set()

    def result(self) -> Any:
        while not self._done.is_set():
            # not begun: run here rather than wait behind the worker's job; begun: run the next queued
            # job meanwhile (it is needed soon: the jobs are queued in the order the pages need them)
            job = self if self._worker.claim(self) else self._worker.claim()
            if job is None:
                self._done.wait()
                break
            job.run(self._worker.stop)
        if self._error is not None:
            raise self._error
        return self._value


class Worker:
    """Jobs run in order in one daemon thread, started when a job arrives and ended when none is left
    (a ``mkdocs serve`` rebuild makes a new site and a new worker: an idle one holds no thread)."""

    def __init__(self) -> None:
        self._jobs: collections.deque[Job] = collections.deque()
        self._lock = threading.Lock()
        self.stop = threading.Event()  # set when the build ends (``cancel``); every job is given it
        self._thread: threading.Thread | None = None
        _WORKERS.add(self)

    def submit(self, fn: Callable[[threading.Event], Any]) -> Job:
        """Queue ``fn(stop)``; ``stop`` is set when the build ends before it does."""
        job = Job(fn, self)
        with self._lock:
            if self.stop.is_set():
                job.drop()
                return job
            self._jobs.append(job)
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="llmbench-background", daemon=True)
                self._thread.start()
        return job

    def _run(self) -> None:
        while True:
            with self._lock:
                if not self._jobs:
                    self._thread = None
                    return
                job = self._jobs.popleft()
            job.run(self.stop)

    def claim(self, job: Job | None = None) -> Job | None:
        """Take ``job`` (or the next job) off the queue if the thread has not begun it; the caller runs
        it. None if it has (or the queue is empty)."""
        with self._lock:
            if job is None:
                return self._jobs.popleft() if self._jobs else None
            try:
                self._jobs.remove(job)
            except ValueError:  # begun, done or dropped
                return None
            return job

    def cancel(self) -> None:
        """Stop: the running job is told to and waited for; the queued ones fail with ``Cancelled``."""
        with self._lock:
            self.stop.set()
            thread, left = self._thread, list(self._jobs)
            self._jobs.clear()
        for job in left:
            job.drop()
        if thread is not None:
            thread.join()


_WORKERS: weakref.WeakSet[Worker] = weakref.WeakSet()


@atexit.register
def _cancel_all() -> None:
    for worker in list(_WORKERS):
        worker.cancel()
