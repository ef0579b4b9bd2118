"""Sweep file (YAML) -> validated ``Sweep`` -> the list of ``Job`` s to run (pure but for reading the file).

A sweep names one model, one engine (a key of ``bench.sweep.engine.engines()``, with its own section such as
``trtllm:`` for its version and workflow), and lists of values per dimension
(tp, pp, ep, workloads, max_batch_size, max_num_tokens, concurrency, streaming). The cartesian product, minus
the combinations that cannot run (tp x pp over the GPUs available, an option the version lacks), is the job
list, in a stable order. Each job has a deterministic id from its configuration, so ``--resume`` and job
arrays find the same job again. A bad file raises ``SweepError`` naming the file, line, key and expectation.
The format is documented in docs/reference/bench.md.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import itertools
import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    ValidationError,
    create_model,
    field_validator,
    model_validator,
)

from bench.contract.problems import LineMap
from bench.contract.schema import Precision
from bench.errors import UserError
from bench.sweep.engine import default_engine, engine, engines

# Numbers are strict: YAML gives real ints and floats, so a quoted '2' is a mistake, not a value to coerce.
PosInt = Annotated[int, Field(gt=0, strict=True)]
Count = Annotated[int, Field(ge=0, strict=True)]
Fraction = Annotated[float, Field(gt=0, le=1, strict=True)]
# numpy's default_rng / RandomState accept seeds 0 .. 2**32 - 1 (the dataset generator's seed).
Seed = Annotated[int, Field(ge=0, le=2**32 - 1, strict=True)]
MAX_CONCURRENCY = 10**6


def _concurrency(v: int) -> int:
    if v == 0 or v < -1 or v > MAX_CONCURRENCY:
        raise ValueError(f"null or -1 (unlimited) or 1..{MAX_CONCURRENCY}")
    return v


Concurrency = Annotated[int, Field(strict=True), AfterValidator(_concurrency)]

# Every string of a sweep can reach a shell script (sbatch), a command line or a path: one line, no control
# characters (a newline in slurm.partition would start a new shell command in the sbatch script).
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")
# A Hugging Face repo id (huggingface_hub.utils.validate_repo_id): [namespace/]name of [\w.-], no '..' or
# '--'. trtllm-bench puts it into engine paths (<workspace>/<model id>/tp_N_pp_M), so it must stay a name.
_HF_REPO_ID = re.compile(r"^(\b[\w\-.]+\b/)?\b[\w\-.]{1,96}\b$")
DEFAULT_MAX_JOBS = 10_000


class SweepError(UserError):
    """A sweep file that cannot be used; the message names file, line, key and what was expected."""


class _Spec(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def _control_chars(data: Any, loc: tuple[Any, ...] = ()) -> tuple[tuple[Any, ...], str] | None:
    """The first string (value or key) of raw sweep data with a control character, and that character."""
    if isinstance(data, str):
        m = _CONTROL.search(data)
        return (loc, m.group()) if m else None
    if isinstance(data, dict):
        for k, v in data.items():
            found = _control_chars(k, (*loc, k)) or _control_chars(v, (*loc, k))
            if found:
                return found
    if isinstance(data, (list, tuple)):
        for i, v in enumerate(data):
            found = _control_chars(v, (*loc, i))
            if found:
                return found
    return None


def _hf_repo_id(v: str) -> str:
    if not _HF_REPO_ID.match(v) or ".." in v or "--" in v or v.endswith(".git"):
        raise ValueError(
            "a Hugging Face repo id like meta-llama/Llama-3.1-8B-Instruct ([namespace/]name of letters, "
            "digits, '.', '_', '-'; no '..' or '--'; a local checkpoint goes in model.path)"
        )
    return v


class ModelSpec(_Spec):
    id: Annotated[str, AfterValidator(_hf_repo_id)] = Field(
        description="Hugging Face id, passed as --model (tokenizer, reporting)."
    )
    path: str | None = Field(default=None, description="Local checkpoint directory, passed as --model_path.")
    checkpoint: str | None = Field(default=None, description="Checkpoint actually run, e.g. nvidia/...-FP8.")
    precision: Precision = Field(default="BF16", description="Weight precision, for the result file.")
    kv_cache_dtype: str | None = None


class WorkloadSpec(_Spec):
    isl: PosInt
    osl: PosInt
    num_requests: PosInt
    input_stdev: Count = 0
    output_stdev: Count = 0


class ParallelismSpec(_Spec):
    tp: list[PosInt] = Field(default=[1], min_length=1)
    pp: list[PosInt] = Field(default=[1], min_length=1)
    ep: list[PosInt | None] = Field(default=[None], min_length=1)


class SettingsSpec(_Spec):
    max_batch_size: list[PosInt | None] = Field(default=[None], min_length=1)
    max_num_tokens: list[PosInt | None] = Field(default=[None], min_length=1)
    kv_cache_free_gpu_mem_fraction: Fraction | None = Field(
        default=None, description="Start value; None leaves trtllm-bench's default (0.90)."
    )
    kv_cache_fallback: list[Fraction] = Field(
        default=[0.90, 0.80], description="Lower fractions tried in order after an out-of-memory failure."
    )


class DatasetSpec(_Spec):
    seed: Seed = 420
    vocab_size: PosInt | None = Field(default=None, description="Override: else read from the checkpoint.")
    eos_id: Count | None = Field(default=None, description="Override, as vocab_size.")


class ContainerSpec(_Spec):
    image: str = Field(min_length=1, description="Singularity/Apptainer image (.sif path or docker://...).")
    runtime: Literal["apptainer", "singularity"] = "apptainer"
    binds: list[str] = []


class SlurmSpec(_Spec):
    mode: Literal["array", "single"] = "array"
    partition: str | None = None
    account: str | None = None
    time_limit: str | None = Field(default=None, description="sbatch --time, e.g. 04:00:00 or 1-00:00:00.")
    max_parallel: PosInt | None = Field(default=None, description="Array throttle: at most N tasks at once.")
    request_gpus: StrictBool = Field(
        default=True, description="Add --gpus-per-node (needs GRES on the cluster)."
    )
    srun_mpi: str | None = Field(default="pmix", description="srun --mpi value for the launcher; null: omit.")
    extra_directives: list[str] = Field(default=[], description="Extra '#SBATCH' lines, e.g. --exclusive.")
    setup: list[str] = Field(default=[], description="Shell lines run before llmbench (module load ...).")

    @field_validator("time_limit", mode="before")
    @classmethod
    def _time_as_text(cls, v: Any) -> Any:
        """An unquoted 04:00:00 reads as a time of day in YAML; Slurm wants the text back."""
        if isinstance(v, dt.time):
            return v.strftime("%H:%M:%S")
        if isinstance(v, int) and not isinstance(v, bool):
            return str(v)  # Slurm reads a bare number as minutes
        return v


class ClusterSpec(_Spec):
    gpus_per_node: PosInt = 8
    nodes: PosInt = Field(default=1, description="Most nodes one job may use.")
    launcher: Literal["local", "mpirun", "srun"] = "local"
    # mpirun over more than one node: Open MPI's -H host:slots list (srun takes Slurm's allocation)
    hosts: list[Annotated[str, Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]*:[1-9][0-9]*$")]] = []
    container: ContainerSpec | None = None
    slurm: SlurmSpec = SlurmSpec()


class RunSpec(_Spec):
    timeout_s: PosInt = Field(default=7200, description="Per attempt; a run past it is killed and recorded.")
    kill_grace_s: Annotated[float, Field(ge=0, le=3600, strict=True)] = 10.0
    warmup: Count | None = None
    output_dir: str | None = Field(default=None, description="Default: build/sweeps/<name>.")
    workspace: str | None = Field(default=None, description="trtllm-bench --workspace (engines).")


class HardwareSpec(_Spec):
    gpu: str | None = Field(default=None, description="Canonical GPU name; default: from nvidia-smi.")
    interconnect: str | None = None
    cpu: str | None = None


class PublishSpec(_Spec):
    submitter: str | None = None
    system: str | None = None
    publisher: str | None = None
    title: str | None = None
    url: str | None = None
    notes: str | None = None


class SweepBase(_Spec):
    """The engine-independent part of a sweep; ``Sweep`` adds one optional section per engine."""

    name: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]{0,79}$")
    engine: str = Field(default_factory=default_engine, description="A key of bench.sweep.engine.engines().")
    model: ModelSpec
    parallelism: ParallelismSpec = ParallelismSpec()
    workloads: list[WorkloadSpec] = Field(min_length=1)
    settings: SettingsSpec = SettingsSpec()
    concurrency: list[Concurrency | None] = Field(default=[None], min_length=1)
    streaming: StrictBool | list[StrictBool] = False
    dataset: DatasetSpec = DatasetSpec()
    cluster: ClusterSpec = ClusterSpec()
    run: RunSpec = RunSpec()
    hardware: HardwareSpec = HardwareSpec()
    publish: PublishSpec = PublishSpec()

    @model_validator(mode="before")
    @classmethod
    def _one_line_strings(cls, data: Any) -> Any:
        found = _control_chars(data)
        if found:
            loc, char = found
            key = ".".join(str(p) for p in loc)
            raise ValueError(
                f"{key}: expected one line of text without control characters (it may reach an sbatch "
                f"script, a command line or a path), got U+{ord(char):04X}"
            )
        return data

    @field_validator("engine")
    @classmethod
    def _known_engine(cls, v: str) -> str:
        if v not in engines():
            raise ValueError(f"one of {', '.join(engines())}")
        return v

    @model_validator(mode="after")
    def _engine_accepts_sweep(self) -> SweepBase:
        problem = engine(self.engine).check_sweep(self)
        if problem:
            raise ValueError(problem)
        return self

    @property
    def streaming_values(self) -> list[bool]:
        return self.streaming if isinstance(self.streaming, list) else [self.streaming]

    @property
    def identity(self) -> tuple[str | None, str | None]:
        """The engine's (version, workflow) this sweep declares, e.g. ('1.2.0', 'pytorch')."""
        return engine(self.engine).identity(self)


def _with_engine_sections() -> type[SweepBase]:
    """The sweep model: the base plus each engine's section (``trtllm:``, ``transformers:``) as an option."""
    sections: dict[str, Any] = {
        e.section: (e.options | None, Field(default=None, description=f"Options of engine {e.name}."))
        for e in engines().values()
    }
    return create_model("Sweep", __base__=SweepBase, __module__=__name__, **sections)


Sweep = _with_engine_sections()


@dataclass(frozen=True)
class Job:
    """One run of the benchmark: every parameter fixed, paths included. Built by ``expand``."""

    index: int
    id: str
    sweep: str
    engine: str
    tp: int
    pp: int
    ep: int | None
    isl: int
    osl: int
    num_requests: int
    input_stdev: int
    output_stdev: int
    max_batch_size: int | None
    max_num_tokens: int | None
    kv_fraction: float | None
    concurrency: int | None
    streaming: bool
    spec: Sweep = field(repr=False, compare=False)
    out_dir: Path = field(repr=False, compare=False)

    @property
    def world_size(self) -> int:
        return self.tp * self.pp

    @property
    def nodes(self) -> int:
        return math.ceil(self.world_size / self.spec.cluster.gpus_per_node)

    @property
    def label(self) -> str:
        ep = f"-ep{self.ep}" if self.ep else ""
        conc = "unl" if self.concurrency is None or self.concurrency <= 0 else str(self.concurrency)
        return (
            f"tp{self.tp}-pp{self.pp}{ep}-{self.isl}x{self.osl}-n{self.num_requests}"
            f"-mbs{self.max_batch_size or 'auto'}-mnt{self.max_num_tokens or 'auto'}-c{conc}"
            + ("-stream" if self.streaming else "")
        )

    @property
    def job_dir(self) -> Path:
        return self.out_dir / "jobs" / f"{self.index:04d}-{self.id}"

    def config(self) -> dict[str, Any]:
        """The job's parameters as plain data, stored with every run.

        The id (``expand``) hashes the same values but ``kv_fraction``: the KV-cache start fraction is a
        setting of every job of the sweep, not what makes a job itself.
        """
        version, workflow = self.spec.identity
        return {
            "sweep": self.sweep,
            "engine": self.engine,
            "model": self.spec.model.id,
            "version": version,
            "workflow": workflow,
            "tp": self.tp,
            "pp": self.pp,
            "ep": self.ep,
            "isl": self.isl,
            "osl": self.osl,
            "num_requests": self.num_requests,
            "input_stdev": self.input_stdev,
            "output_stdev": self.output_stdev,
            "max_batch_size": self.max_batch_size,
            "max_num_tokens": self.max_num_tokens,
            "kv_fraction": self.kv_fraction,
            "concurrency": self.concurrency,
            "streaming": self.streaming,
        }


@dataclass(frozen=True)
class Skipped:
    """A combination of the product that cannot run, and why."""

    params: dict[str, Any]
    reason: str


@dataclass(frozen=True)
class Plan:
    sweep: Sweep
    jobs: list[Job]
    skipped: list[Skipped]
    out_dir: Path


def load(path: Path) -> Sweep:
    """Read and validate a sweep file; every problem becomes one ``SweepError`` naming file:line and key."""
    from bench.contract.resultfile import parse

    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise SweepError(f"{path}: cannot read sweep file: {e}") from e
    # the sweep model checks its strings itself, saying where they go (sbatch, a command line, a path)
    data, problem = parse(text, str(path), check_values=False)
    if problem:
        raise SweepError(str(problem).replace("result mapping", "sweep mapping"))
    try:
        return Sweep.model_validate(data)
    except ValidationError as e:
        lines = LineMap(text)  # composed once, on the first problem
        described = [_describe(path, lines, err) for err in e.errors()]
        raise SweepError(f"{path}: invalid sweep file:\n  " + "\n  ".join(described)) from None


def _describe(path: Path, lines: LineMap, err: Any) -> str:
    loc = tuple(err["loc"])
    if not loc:  # a check across keys; its message starts with the key it is about
        msg = re.sub(r"^Value error, ", "", err["msg"])
        key = re.match(r"^([\w.]+): ", msg)
        parts = tuple(int(p) if p.isdigit() else p for p in key.group(1).split(".")) if key else ()
        line = lines.line(parts) if key else None
        return f"{path}:{line}: {msg}" if line else f"{path}: {msg}"
    key = ".".join(str(p) for p in loc) or "(top level)"
    line = lines.line(loc)  # the key's line, or its nearest existing parent's
    where = f"{path}:{line}" if line else str(path)
    if err["type"] == "missing":
        return f"{where}: {key}: required key is missing"
    if err["type"] == "extra_forbidden":
        return f"{where}: {key}: unknown key (see docs/reference/bench.md for the sweep format)"
    msg = re.sub(r"^(Input|Value) should (be )?", "", err["msg"])
    msg = re.sub(r"^Value error, ", "", msg)
    got = err.get("input")
    return f"{where}: {key}: expected {msg}, got {json.dumps(got, default=str)[:80]}"


def default_out_dir(sweep: Sweep) -> Path:
    return Path(sweep.run.output_dir) if sweep.run.output_dir else Path("build/sweeps") / sweep.name


def _lists(sweep: Sweep) -> dict[str, int]:
    """The sweep's lists and their lengths, in the order ``expand`` multiplies them."""
    p, s = sweep.parallelism, sweep.settings
    return {
        "parallelism.tp": len(p.tp), "parallelism.pp": len(p.pp), "parallelism.ep": len(p.ep),
        "workloads": len(sweep.workloads), "settings.max_batch_size": len(s.max_batch_size),
        "settings.max_num_tokens": len(s.max_num_tokens), "concurrency": len(sweep.concurrency),
        "streaming": len(sweep.streaming_values),
    }  # fmt: skip


def check_size(sweep: Sweep, max_jobs: int = DEFAULT_MAX_JOBS, where: str = "") -> int:
    """The product's size, computed from the list lengths alone; above ``max_jobs`` a ``SweepError``.

    Checked before anything is expanded: 10^8 combinations would take hours and gigabytes to list.
    """
    lists = _lists(sweep)
    size = math.prod(lists.values())
    if size > max_jobs:
        factors = " x ".join(f"{k} ({n})" for k, n in lists.items() if n > 1)
        raise SweepError(
            f"{where or sweep.name}: the sweep makes {size:,} combinations ({factors}), more than the "
            f"limit of {max_jobs:,} jobs: shorten those lists, split the sweep, or raise the limit with "
            "--max-jobs N"
        )
    return size


def expand(sweep: Sweep, out_dir: Path | None = None, max_jobs: int = DEFAULT_MAX_JOBS) -> Plan:
    """The cartesian product of the sweep's lists, invalid combinations set aside with their reason."""
    check_size(sweep, max_jobs)
    out = (out_dir or default_out_dir(sweep)).absolute()
    jobs: list[Job] = []
    skipped: list[Skipped] = []
    p, s = sweep.parallelism, sweep.settings
    for tp, pp, ep, w, mbs, mnt, conc, stream in itertools.product(
        p.tp, p.pp, p.ep, sweep.workloads, s.max_batch_size, s.max_num_tokens, sweep.concurrency,
        sweep.streaming_values,
    ):  # fmt: skip
        params = {
            "tp": tp, "pp": pp, "ep": ep, "isl": w.isl, "osl": w.osl, "num_requests": w.num_requests,
            "input_stdev": w.input_stdev, "output_stdev": w.output_stdev, "max_batch_size": mbs,
            "max_num_tokens": mnt, "concurrency": conc, "streaming": stream,
        }  # fmt: skip
        reason = _invalid(sweep, params) or engine(sweep.engine).check_job(sweep, params)
        if reason:
            skipped.append(Skipped(params, reason))
            continue
        version, workflow = sweep.identity
        cfg = {
            "sweep": sweep.name, "engine": sweep.engine, "model": sweep.model.id,
            "version": version, "workflow": workflow, **params,
        }  # fmt: skip
        job_id = hashlib.sha1(json.dumps(cfg, sort_keys=True).encode()).hexdigest()[:10]
        jobs.append(
            Job(
                index=len(jobs),
                id=job_id,
                sweep=sweep.name,
                engine=sweep.engine,
                kv_fraction=s.kv_cache_free_gpu_mem_fraction,
                spec=sweep,
                out_dir=out,
                **params,
            )
        )
    return Plan(sweep, jobs, skipped, out)


def _invalid(sweep: Sweep, p: dict[str, Any]) -> str | None:
    """Why a combination cannot run on the cluster described, or None."""
    c = sweep.cluster
    world = p["tp"] * p["pp"]
    available = c.gpus_per_node * c.nodes
    if world > available:
        return f"tp x pp = {world} GPUs, more than the {available} available (cluster.gpus_per_node x nodes)"
    if world > c.gpus_per_node and c.launcher == "local":
        return f"tp x pp = {world} GPUs spans nodes; launcher 'local' runs on one node (use srun or mpirun)"
    if p["ep"] is not None and p["tp"] % p["ep"] != 0:
        return f"ep {p['ep']} does not divide tp {p['tp']} (MoE expert parallelism splits the TP group)"
    return None


def load_plan(path: Path, out_dir: Path | None = None, max_jobs: int = DEFAULT_MAX_JOBS) -> Plan:
    """Load a sweep file and expand it; relative paths in the sweep resolve against the sweep's folder.

    The job count is checked before the product is expanded (``check_size``), and an output folder given on
    the command line must be one line like every path of the sweep (it is written into sbatch scripts).
    """
    if out_dir is not None and _CONTROL.search(str(out_dir)):
        raise SweepError(f"--out: expected a folder name without control characters, got {str(out_dir)!r}")
    sweep = load(path)
    check_size(sweep, max_jobs, where=str(path))
    sweep = engine(sweep.engine).resolve_paths(sweep, path.parent)
    return expand(sweep, out_dir, max_jobs)
