"""The three ways transformers can batch a fixed-length benchmark, each timed per request.

- ``generate``: plain batched ``model.generate`` over chunks of ``max_batch_size`` requests (dynamic cache).
- ``static``: the same with ``cache_implementation="static"``; on CUDA transformers then compiles the decode
  step with ``torch.compile`` (mode ``reduce-overhead``: CUDA graphs). On CPU it runs uncompiled.
- ``continuous``: transformers' continuous batching manager (paged KV cache, chunked prefill, requests join
  and leave the running batch every step; CUDA graphs where transformers enables them).

Offline semantics, as trtllm-bench with unlimited concurrency: every request is submitted at the benchmark's
start, so its latency and TTFT include the time it waited. EOS is ignored: each request generates exactly its
``output_tokens``. Token times: in the chunked modes a streamer receives every step's tokens on the host (the
copy synchronises with the GPU, as generate does each step anyway); continuous batching records its own.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import torch

from bench.engines.statistics import RequestRecord
from bench.engines.workload import Request

MODES = ("generate", "static", "continuous")
now_ns: Callable[[], int] = time.perf_counter_ns


@dataclass
class Outcome:
    """Records of the timed requests plus what the engine decided (batch size, warm-up time...)."""

    records: list[RequestRecord]
    settings: dict[str, Any] = field(default_factory=dict)


class _StepClock:
    """A generate streamer that only timestamps each decoding step (the first ``put`` is the prompt)."""

    def __init__(self) -> None:
        self.steps: list[int] = []
        self._prompt_seen = False

    def put(self, value: Any) -> None:
        if self._prompt_seen:
            self.steps.append(now_ns())
        self._prompt_seen = True

    def end(self) -> None:
        pass


class _StopAfter:
    """A stopping criterion that ends generation after ``n`` new tokens (warm-up at the real cache shape)."""

    def __init__(self, prompt_len: int, n: int) -> None:
        self.limit = prompt_len + n

    def __call__(self, input_ids: torch.Tensor, scores: Any, **kwargs: Any) -> torch.Tensor:
        done = input_ids.shape[1] >= self.limit
        return torch.full((input_ids.shape[0],), done, dtype=torch.bool, device=input_ids.device)


def _left_pad(chunk: Sequence[Request], device: torch.device) -> tuple[torch.Tensor, torch.Tensor]:
    width = max(len(r.input_ids) for r in chunk)
    ids = torch.zeros((len(chunk), width), dtype=torch.long)
    mask = torch.zeros((len(chunk), width), dtype=torch.long)
    for row, r in enumerate(chunk):
        n = len(r.input_ids)
        ids[row, width - n :] = torch.tensor(r.input_ids)
        mask[row, width - n :] = 1
    return ids.to(device), mask.to(device)


def _generate(model: Any, chunk: Sequence[Request], cache: str, stop_after: int | None = None) -> _StepClock:
    from transformers import StoppingCriteriaList

    ids, mask = _left_pad(chunk, model.device)
    steps = max(r.output_tokens for r in chunk)
    clock = _StepClock()
    kwargs: dict[str, Any] = {"cache_implementation": "static"} if cache == "static" else {}
    if stop_after is not None:
        kwargs["stopping_criteria"] = StoppingCriteriaList([_StopAfter(ids.shape[1], stop_after)])
    with torch.inference_mode():
        model.generate(
            input_ids=ids,
            attention_mask=mask,
            max_new_tokens=steps,
            min_new_tokens=steps,
            do_sample=False,
            streamer=clock,
            **kwargs,
        )
    if stop_after is None and len(clock.steps) < steps:
        raise RuntimeError(f"generate stopped after {len(clock.steps)} of {steps} tokens")
    return clock


def run_chunked(
    model: Any,
    requests: Sequence[Request],
    batch_size: int,
    cache: str,
    warmup_steps: int = 4,
    closed_loop: bool = False,
) -> Outcome:
    """``generate`` (dynamic cache) or ``static`` (static cache, compiled on CUDA) over fixed-size chunks.

    ``closed_loop``: a concurrency limit of ``batch_size`` (trtllm-bench ``--concurrency``): each chunk is
    submitted when the one before finishes, so a request's start (and its TTFT and latency) counts from its
    own chunk's start instead of the benchmark's. With fixed lengths, trtllm-bench's scheduler at that
    concurrency also runs the requests in such waves.
    """
    chunks = [requests[i : i + batch_size] for i in range(0, len(requests), batch_size)]
    t_warm = now_ns()
    # Warm up at the first chunk's exact shapes (same cache length): compiles/captures before timing starts.
    _generate(model, chunks[0], cache, stop_after=warmup_steps)
    _sync(model)
    warmup_s = (now_ns() - t_warm) / 1e9
    t0 = now_ns()
    records = []
    for chunk in chunks:
        t_submit = now_ns() if closed_loop else t0
        clock = _generate(model, chunk, cache)
        for r in chunk:
            records.append(
                RequestRecord(
                    r.task_id,
                    len(r.input_ids),
                    r.output_tokens,
                    t_submit,
                    clock.steps[0],
                    clock.steps[r.output_tokens - 1],
                )
            )
    settings = {"max_batch_size": batch_size, "batches": len(chunks), "warmup_s": round(warmup_s, 3)}
    settings["scheduling_policy"] = "static batches of max_batch_size, in dataset order"
    if closed_loop:
        settings["concurrency"] = batch_size
        settings["scheduling_policy"] += "; closed loop: the next batch is submitted when one finishes"
    settings["compiled"] = bool(cache == "static" and model.device.type == "cuda")
    return Outcome(records, settings)


def run_continuous(
    model: Any,
    requests: Sequence[Request],
    max_batch_size: int | None,
    max_num_tokens: int | None,
    warmup: int = 2,
) -> Outcome:
    """transformers' continuous batching: submit every request at once, collect per-token timestamps."""
    from transformers import ContinuousBatchingConfig, GenerationConfig
    from transformers.generation.continuous_batching.utils import WorkloadHints

    max_osl = max(r.output_tokens for r in requests)
    gen = GenerationConfig(max_new_tokens=max_osl, do_sample=False, eos_token_id=None, pad_token_id=0)
    cfg = ContinuousBatchingConfig(max_requests_per_batch=max_batch_size, max_batch_tokens=max_num_tokens)
    if model.device.type == "cpu":
        # Sized from free RAM, the paged cache would take most of the machine (and seconds to allocate):
        # on CPU give it room for every request at once instead.
        blocks = sum(-(-(len(r.input_ids) + r.output_tokens) // cfg.block_size) for r in requests)
        cfg.num_blocks = blocks + len(requests)
        cfg.max_batch_tokens = max_num_tokens or 2048
    hints = WorkloadHints(max(len(r.input_ids) for r in requests), max_osl, len(requests))
    t_warm = now_ns()
    with model.continuous_batching_context_manager(
        generation_config=gen,
        continuous_batching_config=cfg,
        block=True,
        timeout=60,
        warmup=True,
        workload_hints=hints,
    ) as manager:
        _collect(
            manager, [(f"warmup-{i}", r, min(r.output_tokens, 8)) for i, r in enumerate(requests[:warmup])]
        )
        warmup_s = (now_ns() - t_warm) / 1e9
        t0 = now_ns()
        outputs = _collect(manager, [(str(i), r, r.output_tokens) for i, r in enumerate(requests)])
        resolved = (
            manager.continuous_batching_config if hasattr(manager, "continuous_batching_config") else cfg
        )
    records = []
    for i, r in enumerate(requests):
        out = outputs[str(i)]
        stamps = out.timestamps or []
        if (
            out.error is not None
            or len(out.generated_tokens) != r.output_tokens
            or len(stamps) != r.output_tokens
        ):
            raise RuntimeError(
                f"request {r.task_id}: expected {r.output_tokens} tokens, got {len(out.generated_tokens)}"
                f" ({out.error or 'no error reported'})"
            )
        records.append(
            RequestRecord(
                r.task_id, len(r.input_ids), r.output_tokens, t0, int(stamps[0] * 1e9), int(stamps[-1] * 1e9)
            )
        )
    settings = {
        "max_batch_size": getattr(resolved, "max_requests_per_batch", max_batch_size),
        "max_num_tokens": getattr(resolved, "max_batch_tokens", max_num_tokens),
        "warmup_s": round(warmup_s, 3),
        "scheduling_policy": "transformers continuous batching (FIFO, paged KV cache)",
        "cuda_graphs": str(getattr(resolved, "use_cuda_graph", None)),
    }
    return Outcome(records, settings)


def _collect(manager: Any, jobs: list[tuple[str, Request, int]]) -> dict[str, Any]:
    """Submit every job at once, then wait for all of them; a dead generation thread is an error."""
    for rid, r, osl in jobs:
        manager.add_request(list(r.input_ids), request_id=rid, max_new_tokens=osl, record_timestamps=True)
    done: dict[str, Any] = {}
    while len(done) < len(jobs):
        result = manager.get_result(timeout=1)
        if result is not None and result.is_finished():
            done[result.request_id] = result
        elif result is None and not manager.is_running():
            raise RuntimeError(f"continuous batching stopped after {len(done)} of {len(jobs)} requests")
    return done


def _sync(model: Any) -> None:
    if model.device.type == "cuda":
        torch.cuda.synchronize()
