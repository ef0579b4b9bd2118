"""The data-quality gate of ``llmbench validate`` (and ``ingest``): figures above physical sense, and runs far
from their neighbours.

Refused (a problem, exit 1), per run of a schema_version 1 file, unless its notes carry an erratum
(``schema.ERRATUM_MARKER``: the figure is known wrong and kept as published):
- an all-GPU output throughput above the run's speed-of-light bound (bench/contract/bound.py). Where the
  GPU registry has no tensor-core figure the bound is taken with compute free, from memory bandwidth
  alone: still an upper bound, so a contributor's GPU without a published TFLOP/s is checked too;
- a per-user output rate above the bound (one request decodes no faster alone than the run's batch does in
  all: the bound of a batch of one is at most the bound of the run's batch);
- total (input + output) tokens/s below output tokens/s.
Each repetition of a repeated run (issue 30) is checked the same way, located at its own figure.
A run the bound does not hold for (``bound.bound_caveats``: speculative decoding, prefix reuse, release
0.10's admission) is not checked against it.

Warned (listed, exit 0):
- a per-user rate more than ``USER_SLACK`` x the all-GPU rate (one user's tokens are part of all users',
  but a mean of per-request rates can exceed the pooled rate without bound when requests' latencies
  differ: a per-user figure given for all users, or one stalled request);
- a run more than ``NEIGHBOUR_FACTOR`` times above or below the median of the same configuration (engine,
  GPU, model, precision, KV dtype, ISL/OSL, TP x PP, concurrency) in the nearest ``NEIGHBOUR_RELEASES``
  releases on each side that have it. The median of a few neighbours, not the next release alone, so
  that one wrong figure flags itself and not the correct releases beside it. A repeated run (issue 30)
  whose repetitions' range holds that median is not warned: its own repetitions reach it.
"""

from __future__ import annotations

import functools
import math
import re
import statistics
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.contract import registry
from bench.contract.bound import GpuFigures, RunShape, bound_caveats, output_tps_bound, peak_tflops
from bench.contract.modelmath import kv_dtype_bytes, registry_arch
from bench.contract.problems import LineMap, Problem
from bench.contract.schema import ERRATUM_MARKER

# A per-user rate is the mean over requests of each one's OSL / latency (trtllm-bench), the all-GPU rate all
# tokens over the wall time: at concurrency 1 the mean of ratios exceeds the ratio of sums when requests
# differ (DeepSeek R1's min-latency runs in NVIDIA's blog: 274.72 per user against 274.42 in all), and by any
# factor when they differ widely (two requests of 100 tokens, in 0.1 s and in 10 s: 505 per user, 19.8 in
# all; a CPU sweep on a loaded machine measured 3.5x). So beyond this factor a per-user rate is listed for a
# reviewer (``user_warnings``), never refused: the bound is its only hard ceiling.
USER_SLACK = 1.1
NEIGHBOUR_FACTOR = 3.0
NEIGHBOUR_RELEASES = 2  # on each side
_METRICS = "metrics"


# Files come in name order, and a set's releases repeat the same configurations one release apart: a cache
# smaller than one release's configurations (1M synthetic runs: 88,572 in all) misses on every one of them,
# as an LRU evicts each just before it comes back. 2^17 entries hold them all: about 320 bytes each (key
# tuple, float, LRU link), 42 MB when full, in each checking worker while it lives.
CEILING_CACHE = 1 << 17


@functools.lru_cache(maxsize=CEILING_CACHE)
def ceiling(
    gpu: str,
    model: str,
    precision: str,
    kv_dtype: str | None,
    isl: int,
    osl: int,
    n_gpus: int,
    concurrency: int | None,
    num_requests: int | None,
) -> float | None:
    """The most output tokens/s (all GPUs) a run can report: its speed-of-light bound, from memory
    bandwidth alone where the registry has no dense tensor TFLOP/s for the GPU. None: the weights do
    not fit the registry's memory (nothing to check against)."""
    arch, figures, kv_bytes = _setting(gpu, model, precision, kv_dtype)
    b = output_tps_bound(
        arch, figures, RunShape(precision, kv_bytes, isl, osl, n_gpus, concurrency, num_requests)
    )
    return b.output_tps if b else None


@functools.lru_cache(maxsize=4096)
def _setting(
    gpu: str, model: str, precision: str, kv_dtype: str | None
) -> tuple[dict[str, Any], GpuFigures, float]:
    """What ``ceiling`` takes from the registries for a GPU, model and precision (a third of its time when
    done for each of its configurations: the names' lookups fold them with a regular expression)."""
    g, arch = registry.gpus().get(gpu), registry_arch(registry.models().get(model))
    peak = peak_tflops(g.tflops_dense, precision, arch)
    figures = GpuFigures(g.memory_gb, g.hbm_bandwidth_tb_s, peak if peak is not None else math.inf)
    return arch, figures, kv_dtype_bytes(kv_dtype, precision, arch)


def _has_erratum(run: dict[str, Any]) -> bool:
    return ERRATUM_MARKER in (run.get("notes") or "")


def _fmt(x: float) -> str:
    return f"{x:,.2f}" if x < 1e6 else f"{x:.3g}"


def run_problems(data: dict[str, Any], name: str, lines: LineMap) -> list[Problem]:
    """Figures above physical sense in a validated schema_version 1 file (plain dicts, defaults filled)."""
    if data.get("schema_version") != 1:
        return []
    hw, m, sw = data["hardware"], data["model"], data["software"]
    out = []
    for i, run in enumerate(data["runs"]):
        if _has_erratum(run):
            continue
        # a repeated run's repetitions are figures too: each is checked as the run's own figures are
        # (a repetition above the bound is as impossible as a median above it)
        figures = [(("runs", i, _METRICS), run[_METRICS])]
        figures += [
            (("runs", i, "repetitions", j, _METRICS), r[_METRICS])
            for j, r in enumerate(run["repetitions"] or [])
        ]
        for where, mt in figures:
            out += _figure_problems(hw, m, sw, run, where, mt, name, lines)
    return out


def _figure_problems(
    hw: dict[str, Any],
    m: dict[str, Any],
    sw: dict[str, Any],
    run: dict[str, Any],
    where: tuple[str | int, ...],
    mt: dict[str, Any],
    name: str,
    lines: LineMap,
) -> list[Problem]:
    """The physical checks of one set of figures (a run's or a repetition's), located at ``where``."""
    out: list[Problem] = []
    par, wl = run["parallelism"], run["workload"]
    n = par["tp"] * par["pp"]
    total, per_gpu = mt["output_tokens_per_s"], mt["output_tokens_per_s_per_gpu"]
    field, output = (
        ("output_tokens_per_s", total) if total is not None else ("output_tokens_per_s_per_gpu", per_gpu)
    )
    all_gpus = total if total is not None else per_gpu * n if per_gpu is not None else None
    user = mt["output_tokens_per_s_per_user"]
    both = mt["total_tokens_per_s"], total
    if both[0] is not None and both[1] is not None and both[0] < both[1] * (1 - 1e-9):
        msg = f"expected at least output_tokens_per_s {_fmt(both[1])} (input + output), got {_fmt(both[0])}"
        out.append(_problem(name, lines, (*where, "total_tokens_per_s"), msg))
    if bound_caveats(
        run["notes"], run["engine_settings"]["extra"], sw["engine_version"], sw["benchmark_tool"]
    ):
        return out  # speculative decoding, prefix reuse, 0.10's admission: the bound is no ceiling for it
    limit = ceiling(
        hw["gpu"], m["id"], m["weight_precision"], m["kv_cache_dtype"], wl["isl"], wl["osl"], n,
        wl["concurrency"], wl["num_requests"],
    )  # fmt: skip
    if limit is None:
        return out
    # a run's all-GPU rate, and each of its users' (a batch of one is bounded by at most the run's bound)
    for figure, what, shown in ((all_gpus, field, output), (user, "output_tokens_per_s_per_user", user)):
        if figure is None or figure <= limit:
            continue
        msg = (
            f"expected at most the speed-of-light bound of this run, {_fmt(limit)} output tok/s on"
            f" {n} GPU(s) (bench/contract/bound.py), got {_fmt(shown)}"
            f"{f' x {n} GPUs' if what == 'output_tokens_per_s_per_gpu' and n > 1 else ''}"
            f" ({100 * figure / limit:,.0f} % of it); a published figure known to be wrong is kept"
            f" with '{ERRATUM_MARKER}<evidence>' in the run's notes"
        )
        out.append(_problem(name, lines, (*where, what), msg))
    return out


def _problem(name: str, lines: LineMap, loc: tuple[str | int, ...], message: str) -> Problem:
    return Problem(name, lines.line(loc), ".".join(map(str, loc)), message)


# ------------------------------------------------------------------------------------------ neighbours


@dataclass(frozen=True)
class RunPoint:
    """One run's place among its neighbours: configuration, release, all-GPU output tok/s (and per user)."""

    key: tuple[Any, ...]
    release: tuple[int, ...]
    release_label: str
    value: float
    run_index: int
    erratum: bool
    spread: tuple[float, float] | None = None  # a repeated run's lowest and highest repetition, all GPUs
    user: float | None = None  # its per-user output tok/s, where given (``user_warnings``)


def release_order(version: str) -> tuple[int, ...]:
    """1.2.0rc6 -> (1, 2, 0): the release a version belongs to, as a sortable key."""
    nums = [int(n) for n in re.findall(r"\d+", version.split(" ")[0])[:3]]
    return tuple(nums + [0] * (3 - len(nums)))


def neighbour_payload(data: dict[str, Any], file: str, ids: list[str]) -> list[RunPoint]:
    """``resultfile.iter_outcomes`` payload: each run of a schema_version 1 file as a ``RunPoint``."""
    if data.get("schema_version") != 1:
        return []
    if data["submission"]["source"]["kind"] == "modelled":
        return []  # an estimate is no neighbour of a measurement, nor measured against one (issue 28)
    sw, m = data["software"], data["model"]
    gpu, model = registry.gpus().get(data["hardware"]["gpu"]).name, registry.models().get(m["id"]).id
    out = []
    for i, run in enumerate(data["runs"]):
        mt, par, wl = run[_METRICS], run["parallelism"], run["workload"]
        n = par["tp"] * par["pp"]
        value = mt["output_tokens_per_s"]
        if value is None and mt["output_tokens_per_s_per_gpu"] is not None:
            value = mt["output_tokens_per_s_per_gpu"] * n
        if value is None:
            continue
        key = (
            sw["engine"], gpu, model, m["weight_precision"], m["kv_cache_dtype"], wl["isl"], wl["osl"],
            par["tp"], par["pp"], wl["concurrency"],
        )  # fmt: skip
        release = release_order(sw["engine_version"])
        reps = [_all_gpus(r[_METRICS], n) for r in run["repetitions"] or []]
        known = [v for v in reps if v is not None]
        spread = (min(known), max(known)) if len(known) > 1 else None
        label, user = ".".join(map(str, release)), mt["output_tokens_per_s_per_user"]
        out.append(RunPoint(key, release, label, value, i, _has_erratum(run), spread, user))
    return out


def _all_gpus(mt: dict[str, Any], n: int) -> float | None:
    if mt["output_tokens_per_s"] is not None:
        return float(mt["output_tokens_per_s"])
    return mt["output_tokens_per_s_per_gpu"] * n if mt["output_tokens_per_s_per_gpu"] is not None else None


def neighbour_warnings(points: Iterable[tuple[str, Sequence[RunPoint]]], root: Path) -> list[Problem]:
    """Runs more than NEIGHBOUR_FACTOR x from the median of their configuration in the releases around
    theirs, each listing those neighbours. ``points``: (file, its RunPoints) for every checked file."""
    by_key: dict[tuple[Any, ...], dict[tuple[int, ...], list[tuple[str, RunPoint]]]] = defaultdict(
        lambda: defaultdict(list)
    )
    for file, pts in points:
        for p in pts:
            if not p.erratum:  # a figure known wrong neither gets flagged again nor flags others
                by_key[p.key][p.release].append((file, p))
    warnings = []
    for releases in by_key.values():
        order = sorted(releases)
        if len(order) < 2:
            continue
        medians = {r: statistics.median(p.value for _, p in releases[r]) for r in order}
        for k, r in enumerate(order):
            around = order[max(0, k - NEIGHBOUR_RELEASES) : k] + order[k + 1 : k + 1 + NEIGHBOUR_RELEASES]
            ref = statistics.median(medians[a] for a in around)
            for file, p in releases[r]:
                if max(p.value / ref, ref / p.value) <= NEIGHBOUR_FACTOR:
                    continue
                if p.spread and p.spread[0] <= ref <= p.spread[1]:
                    continue  # its own repetitions reach the neighbours: the median is no outlier
                listed = ", ".join(
                    f"{_fmt(q.value)} ({q.release_label}: {f} runs.{q.run_index})"
                    for a in around
                    for f, q in releases[a]
                )
                msg = (
                    f"warning: expected within {NEIGHBOUR_FACTOR:g}x of the same configuration in the"
                    f" releases around {p.release_label} (median {_fmt(ref)}), got {_fmt(p.value)}"
                    f" output tok/s; neighbours: {listed}"
                )
                warnings.append(_located(root, file, p.run_index, msg))
    return sorted(warnings, key=lambda w: (w.file, w.line or 0))


def all_warnings(points: Iterable[tuple[str, Sequence[RunPoint]]], root: Path) -> list[Problem]:
    """Everything the gate lists without refusing (``neighbour_warnings`` and ``user_warnings``), by file
    and line. ``points``: (file, its RunPoints) for every checked file."""
    points = list(points)
    found = neighbour_warnings(points, root) + user_warnings(points, root)
    return sorted(found, key=lambda w: (w.file, w.line or 0))


def user_warnings(points: Iterable[tuple[str, Sequence[RunPoint]]], root: Path) -> list[Problem]:
    """Runs whose per-user rate is more than ``USER_SLACK`` x their all-GPU rate: possible (a mean of
    per-request rates, see ``USER_SLACK``), but more often a per-user column holding all users' figure."""
    found = []
    for file, pts in points:
        for p in pts:
            if p.user is None or p.erratum or p.user <= p.value * USER_SLACK:
                continue
            msg = (
                f"warning: expected a per-user rate at most {USER_SLACK:g}x the all-GPU output rate"
                f" {_fmt(p.value)} tok/s (one user's tokens are part of all users'), got {_fmt(p.user)}"
                f" ({p.user / p.value:,.1f}x): a mean of per-request rates exceeds the pooled rate only"
                " when the requests' latencies differ widely; check that it is one user's figure"
            )
            found.append(_located(root, file, p.run_index, msg))
    return found


def _located(root: Path, file: str, i: int, message: str) -> Problem:
    path = root / file if not Path(file).is_absolute() else Path(file)
    try:
        lines = LineMap(path.read_text(encoding="utf-8"))
        line = lines.line(("runs", i, _METRICS))
    except OSError:
        line = None
    return Problem(file, line, f"runs.{i}.metrics", message)
