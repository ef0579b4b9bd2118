"""The seam between sweeps and engines: what an engine plugs in, the registry, launcher and plan text.

``bench.sweep`` drives any engine through ``EngineSpec`` and never names one. Each engine module builds its
``EngineSpec`` and the registry imports the modules listed in ``bench.engines.PLUGINS`` on first use, so the
import graph stays one way (engine -> this module) with no circle. An engine brings:

- its sweep section (``section``, a pydantic model: ``trtllm:``, ``transformers:``), which the sweep model
  gains as an optional key;
- checks of a whole sweep and of one combination, returning the reason it cannot run (or None);
- the steps (command lines) of one job, the ``DatasetMaker`` writing the dataset they read and the
  ``ReportReader`` for what they write;
- its identity (version and workflow) for a job's id and the result file, the installed version for the
  provenance, and the facts stored with each run.

The launcher (srun/mpirun), the container wrapping and the plan text, shared by all engines, are in
``bench.sweep.launch``, which works on a sweep's jobs (``bench.sweep.spec``); this module names no sweep type,
so spec.py can build its model from the registry here without an import cycle.
"""

from __future__ import annotations

import importlib
import re
import shlex
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, Protocol, TypeVar

from pydantic import BaseModel

# The sweep and job types an engine's functions take (bench.sweep.spec's Sweep and Job). Type variables, not
# imports: spec.py builds its Sweep model from this registry, so a name imported from it here, even for
# types only, would make the two modules import each other.
SweepT = TypeVar("SweepT")
JobT = TypeVar("JobT")

DEFAULT_KV_FRACTION = 0.90  # trtllm-bench's --kv_cache_free_gpu_mem_fraction when none is passed


@dataclass(frozen=True)
class Step:
    """One command of a job: ``build`` (legacy engines, skipped when ``creates`` exists) or ``benchmark``."""

    name: str
    argv: list[str]
    creates: Path | None = None
    launched: bool = False  # wrapped by the sweep's launcher (mpirun/srun); build steps are not
    dropped: tuple[str, ...] = ()  # settings the release's CLI has no option for, each with the reason

    @property
    def shell(self) -> str:
        return shlex.join(self.argv)


class ReportReader(Protocol):
    """What the runner needs to read a benchmark's output (``bench.trtllm.report`` is one)."""

    ReportError: type[Exception]

    def parse(self, report_json: str | None, console: str, name: str = ...) -> Any: ...
    def has_summary(self, text: str) -> bool: ...
    def diagnose(self, text: str, rc: int | None, timed_out: bool, timeout_s: float) -> Any: ...
    def tail(self, text: str) -> str: ...


def _no_identity(sweep: SweepT) -> tuple[str | None, str | None]:
    return None, None


def _nothing(sweep: SweepT) -> None:
    return None


def _no_check(sweep: SweepT, installed: str | None) -> None:
    return None


class DatasetMaker(Protocol):
    """Writes a job's dataset file (``bench.trtllm.dataset``: prepare_dataset's token-norm-dist)."""

    Params: type

    def tokenizer_facts(self, model_id: str, model_path: str | None) -> Any: ...
    def write(self, p: Any, path: Path) -> Path: ...


def _no_facts(sweep: SweepT) -> dict[str, Any] | None:
    return None


@dataclass(frozen=True)
class EngineSpec(Generic[SweepT, JobT]):
    """What an engine plugs in: its sweep section, checks, command builder, reader and identity (its
    functions take ``bench.sweep.spec``'s ``Sweep`` and ``Job``: ``EngineSpec[Sweep, Job]``)."""

    name: str
    schema_engine: str  # bench.contract.schema Software.engine
    benchmark_tool: str
    section: str  # the sweep file's key for this engine's options
    options: type[BaseModel]
    check_sweep: Callable[[SweepT], str | None]
    check_job: Callable[[SweepT, dict[str, Any]], str | None]
    steps: Callable[[JobT, float | None, Path], list[Step]]
    report: ReportReader
    dataset: DatasetMaker
    uses_launcher: bool = True
    # the script that starts the engine's MPI workers under srun/mpirun (trtllm-llmapi-launch), or None
    launcher_script: Callable[[SweepT], str | None] = _nothing
    # (version, workflow) the sweep declares: part of every job's id and of the exported result file
    identity: Callable[[SweepT], tuple[str | None, str | None]] = _no_identity
    # checks before the first job (e.g. files the sweep names), then against the installed version
    before_run: Callable[[SweepT], None] = _nothing
    check_installed: Callable[[SweepT, str | None], None] = _no_check
    installed_version: Callable[[SweepT], str | None] = _nothing
    run_facts: Callable[[SweepT], dict[str, Any] | None] = _no_facts
    # relative paths in the engine's section resolved against the sweep file's folder
    resolve_paths: Callable[[SweepT, Path], SweepT] = lambda sweep, base: sweep
    # what `plan` should say about the sweep as a whole (e.g. commands that could not be checked)
    notes: Callable[[SweepT], list[str]] = lambda sweep: []


_ENGINES: dict[str, EngineSpec[Any, Any]] = {}


def engines() -> dict[str, EngineSpec[Any, Any]]:
    """Every engine, by the name a sweep's ``engine:`` gives; the plugin modules load on first use."""
    if not _ENGINES:
        plugins = importlib.import_module("bench.engines").PLUGINS
        for module in plugins:
            spec: EngineSpec[Any, Any] = importlib.import_module(module).ENGINE
            _ENGINES[spec.name] = spec
    return _ENGINES


def default_engine() -> str:
    return importlib.import_module("bench.engines").DEFAULT


def engine(name: str) -> EngineSpec[Any, Any]:
    return engines()[name]


# --- paths shared by every engine's steps ---------------------------------------------------------------


def model_slug(model_id: str) -> str:
    """One path component for a model id or any other sweep value put into a path: never '.', '..' or ''."""
    slug = re.sub(r"[^A-Za-z0-9._-]+", "--", model_id).strip(".")
    return slug or "_"
