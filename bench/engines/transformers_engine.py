"""``engine: transformers`` in a sweep: its options, its checks and its command line (head side).

Plugs into ``bench.sweep.engine`` like trtllm-bench does (listed in ``bench.engines.PLUGINS``).
A job becomes one ``benchmark`` step that runs
``python3 -m bench.engines.transformers_runner`` on the job's token-norm-dist dataset (the same file
trtllm-bench would read) and writes a ``--report_json`` in trtllm-bench's format, so the report parser, the
runs database and export handle it unchanged. Random weights (``transformers.weights: random``) take the
architecture figures from the model registry, inline in the command line; the dtype follows
``model.precision``. The engine runs one process on one device, offline (all requests at once).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from bench.sweep.engine import EngineSpec, Step
from bench.sweep.launch import dataset_path
from bench.trtllm import dataset, report

if TYPE_CHECKING:
    from bench.sweep.spec import Job, Sweep

DTYPE = {"BF16": "bf16", "FP16": "fp16", "FP32": "fp32"}
ARCH_FIGURES = ("layers", "hidden_size", "intermediate_size", "attention_heads", "kv_heads", "head_dim")
ARCH_FIGURES += ("vocab_size",)


class TransformersSpec(BaseModel):
    """The sweep's ``transformers:`` section."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    batching: Literal["generate", "static", "continuous"] = Field(
        default="static", description="generate: plain batched; static: static cache + torch.compile on CUDA."
    )
    weights: Literal["pretrained", "random"] = Field(
        default="pretrained", description="random: the registry's architecture with random weights."
    )
    device: Literal["auto", "cpu", "cuda"] = "auto"
    python: str | None = Field(
        default=None, description="Interpreter with torch + transformers; default: the one running llmbench."
    )
    attn_implementation: str = "sdpa"


def _spec(sweep: Sweep) -> TransformersSpec:
    return sweep.transformers or TransformersSpec()


def check_sweep(sweep: Sweep) -> str | None:
    """Why a sweep cannot run on transformers, naming the key; None when it can."""
    from bench.contract import registry

    t, m = _spec(sweep), sweep.model
    if sweep.trtllm is not None:
        return "trtllm: engine transformers takes a transformers section, not trtllm"
    if m.precision not in DTYPE:
        return f"model.precision: engine transformers runs {', '.join(DTYPE)} weights, got {m.precision}"
    if t.weights == "pretrained" and not m.path:
        return "model.path: engine transformers with pretrained weights needs a checkpoint folder"
    if t.weights == "random" and not m.path:
        if registry.models().find(m.id) is None:
            return f"model.id: random weights need the architecture from the model registry; unknown {m.id!r}"
        if sweep.dataset.vocab_size is None or sweep.dataset.eos_id is None:
            return (
                "dataset.vocab_size: random weights have no tokenizer; give dataset.vocab_size (the "
                f"registry's {registry.models().get(m.id).vocab_size}) and dataset.eos_id"
            )
    return None


def check_job(sweep: Sweep, p: dict[str, Any]) -> str | None:
    """Why one combination cannot run on transformers."""
    if p["tp"] * p["pp"] > 1 or p["ep"] is not None:
        return "tp/pp/ep: engine transformers runs on one device (tp 1, pp 1, no ep)"
    conc = p["concurrency"]
    if conc is not None and conc > 0:
        if _spec(sweep).batching == "continuous":
            return "concurrency: transformers continuous batching runs offline only (every request at once)"
        if p["max_batch_size"] not in (None, conc):
            return "concurrency: sets the transformers batch size; leave max_batch_size out or equal to it"
    return None


def arch_json(model_id: str) -> str:
    """The registry's architecture figures for ``model_id`` as compact JSON (the runner's ``--arch``)."""
    from bench.contract import registry

    arch = registry.models().get(model_id)
    return json.dumps({k: getattr(arch, k) for k in ARCH_FIGURES}, separators=(",", ":"))


def steps(job: Job, kv_fraction: float | None, report: Path) -> list[Step]:
    """One benchmark step; ``kv_fraction`` has no transformers equivalent and is not passed."""
    t, m = _spec(job.spec), job.spec.model
    # llmbench's own interpreter by default: its transformers extra brings torch and transformers
    argv = [t.python or sys.executable, "-m", "bench.engines.transformers_runner", "--model", m.id]
    if m.path:
        argv += ["--model_path", m.path]
    elif t.weights == "random":
        argv += ["--arch", arch_json(m.id)]
    argv += ["--weights", t.weights, "--dtype", DTYPE[m.precision], "--device", t.device]
    argv += ["--batching", t.batching, "--attn_implementation", t.attn_implementation]
    argv += ["--dataset", str(dataset_path(job)), "--num_requests", str(job.num_requests)]
    if job.concurrency is not None and job.concurrency > 0:
        # closed loop: batches of `concurrency` requests, each timed from its own batch's start
        argv += ["--concurrency", str(job.concurrency)]
    elif job.max_batch_size:
        argv += ["--max_batch_size", str(job.max_batch_size)]
    if job.max_num_tokens:
        argv += ["--max_num_tokens", str(job.max_num_tokens)]
    if job.spec.run.warmup is not None:
        argv += ["--warmup", str(job.spec.run.warmup)]
    argv += ["--report_json", str(report)]
    return [Step("benchmark", argv, launched=True)]


ENGINE = EngineSpec(
    name="transformers",
    schema_engine="transformers",
    benchmark_tool="llmbench-transformers",
    check_sweep=check_sweep,
    check_job=check_job,
    steps=steps,
    section="transformers",
    options=TransformersSpec,
    dataset=dataset,  # the same token-norm-dist file trtllm-bench reads
    report=report,  # the runner writes trtllm-bench's --report_json format
    uses_launcher=False,  # one process on one device: no mpirun/srun ranks
)
