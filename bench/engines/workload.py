"""trtllm-bench dataset files (JSON lines, one request per line): read them, and make token-norm-dist ones.

The generator is ``bench.trtllm.dataset``'s, which reproduces ``prepare_dataset.py --stdout token-norm-dist``
(TensorRT-LLM benchmarks/cpp) and is pinned to it by its tests. Stdlib and numpy only.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from bench.trtllm import dataset


class DatasetError(ValueError):
    """A dataset line that is not a request: names the file, line and field."""


@dataclass(frozen=True)
class Request:
    """One benchmark request: prompt token ids and the exact number of tokens to generate."""

    task_id: int
    input_ids: tuple[int, ...]
    output_tokens: int


def read(path: Path, limit: int = 0, vocab_size: int | None = None) -> list[Request]:
    """The first ``limit`` requests of a dataset (all if 0), checked line by line.

    Accepts ``input_ids`` or its legacy alias ``logits`` like trtllm-bench; text ``prompt`` lines need a
    tokenizer, which random-weight runs do not have, so they are refused here with the line named.
    """
    out: list[Request] = []
    with path.open(encoding="utf-8") as f:
        for number, line in enumerate(f, start=1):
            if not line.strip():
                continue
            out.append(_parse_line(line, f"{path}:{number}", vocab_size))
            if limit and len(out) >= limit:
                break
    if not out:
        raise DatasetError(f"{path}: no requests; expected JSON lines with task_id, input_ids, output_tokens")
    return out


def _parse_line(line: str, where: str, vocab_size: int | None) -> Request:
    try:
        data = json.loads(line)
    except json.JSONDecodeError as e:
        raise DatasetError(f"{where}: expected a JSON object, got invalid JSON ({e.msg})") from None
    if not isinstance(data, dict):
        raise DatasetError(f"{where}: expected a JSON object, got {type(data).__name__}")
    ids = data.get("input_ids", data.get("logits"))
    if ids is None:
        got = "a text prompt (needs a tokenizer)" if "prompt" in data else "nothing"
        raise DatasetError(f"{where}: input_ids: expected a list of token ids, got {got}")
    if not isinstance(ids, list) or not ids or not all(isinstance(t, int) and t >= 0 for t in ids):
        raise DatasetError(f"{where}: input_ids: expected a non-empty list of token ids >= 0")
    if vocab_size is not None and max(ids) >= vocab_size:
        raise DatasetError(f"{where}: input_ids: expected ids < vocab size {vocab_size}, got {max(ids)}")
    osl = data.get("output_tokens")
    if not isinstance(osl, int) or isinstance(osl, bool) or osl < 1:
        raise DatasetError(f"{where}: output_tokens: expected an integer >= 1, got {osl!r}")
    task_id = data.get("task_id")
    if not isinstance(task_id, int) or isinstance(task_id, bool):
        raise DatasetError(f"{where}: task_id: expected an integer, got {task_id!r}")
    return Request(task_id, tuple(ids), osl)


def token_norm_dist(
    num_requests: int,
    input_mean: int,
    output_mean: int,
    vocab_size: int,
    input_stdev: int = 0,
    output_stdev: int = 0,
    seed: int = 420,
    eos_id: int | None = None,
) -> list[Request]:
    """Synthetic requests exactly as prepare_dataset.py token-norm-dist makes them (bench.trtllm.dataset)."""
    input_lens = dataset.norm_lengths(input_mean, input_stdev, num_requests, seed)
    output_lens = dataset.norm_lengths(output_mean, output_stdev, num_requests, seed)
    ids = dataset.random_tokens(input_lens, vocab_size, eos_id, seed)
    return [Request(i, tuple(t), osl) for i, (t, osl) in enumerate(zip(ids, output_lens, strict=True))]


def lines(requests: list[Request]) -> Iterator[str]:
    """The ``--stdout`` JSON lines of a dataset (compact separators, as prepare_dataset prints them)."""
    for r in requests:
        obj = {"task_id": r.task_id, "input_ids": list(r.input_ids), "output_tokens": r.output_tokens}
        yield json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


def write(path: Path, requests: list[Request]) -> Path:
    """Write a dataset file (one JSON object per line)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(line + "\n" for line in lines(requests)), encoding="utf-8")
    return path
