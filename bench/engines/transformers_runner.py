"""Benchmark a model with Hugging Face transformers; write trtllm-bench's ``--report_json`` format.

Usage (from the repository root, on any machine with torch and transformers)::

    python3 -m bench.engines.transformers_runner --model meta-llama/Llama-3.1-8B-Instruct \\
        --arch arch.json --weights random --dtype bf16 --device cuda --batching static \\
        --max_batch_size 256 --dataset data.jsonl --num_requests 1024 --report_json report.json

Options mirror ``trtllm-bench throughput`` where they mean the same thing (``--dataset``, ``--num_requests``,
``--warmup``, ``--max_batch_size``, ``--max_num_tokens``, ``--report_json``). The report's ``engine`` section
names the engine (``backend: transformers``, ``version``: the transformers version), its batching mode and
whether the weights were random; ``transformers_runner`` holds what the engine decided.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
from pathlib import Path
from typing import Any

from bench.engines import batching, hf_model, statistics, workload

KV_FRACTION = 0.9  # of free GPU memory after loading, as trtllm-bench's --kv_cache_free_gpu_mem_fraction
PREFILL_TOKENS = 131_072  # one un-split prefill (generate never splits one); H200 best: 1024x128, 64x2048


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="python3 -m bench.engines.transformers_runner", description=__doc__.split("\n")[0]
    )
    p.add_argument("--model", required=True, help="Model id reported (the registry's Hugging Face id).")
    p.add_argument("--model_path", type=Path, help="Checkpoint folder (config.json; weights unless random).")
    p.add_argument(
        "--arch", type=Path, help="JSON of architecture figures (registry names) for random weights."
    )
    p.add_argument("--weights", choices=("random", "pretrained"), default="random")
    p.add_argument("--dtype", choices=tuple(hf_model.DTYPES), default="bf16")
    p.add_argument("--device", default="auto", help="cpu, cuda or auto (cuda when available).")
    p.add_argument("--batching", choices=batching.MODES, default="static")
    p.add_argument("--attn_implementation", default="sdpa")
    p.add_argument(
        "--dataset", type=Path, required=True, help="token-norm-dist JSON lines (trtllm-bench format)."
    )
    p.add_argument("--num_requests", type=int, default=0, help="Cap on requests; 0 = whole dataset.")
    p.add_argument("--warmup", type=int, default=2, help="Warm-up requests (continuous batching).")
    p.add_argument("--max_batch_size", type=int, help="Requests per batch; default from memory and the data.")
    p.add_argument(
        "--concurrency",
        type=int,
        help="Requests in flight (trtllm-bench --concurrency): batches of this size, each request timed"
        " from its own batch's start (generate/static); default: all submitted at the start (offline).",
    )
    p.add_argument("--max_num_tokens", type=int, help="Tokens per step (continuous batching only).")
    p.add_argument("--tp", type=int, default=1, help="Tensor parallel size; only 1 is supported.")
    p.add_argument("--report_json", type=Path, help="Write the statistics here (trtllm-bench layout).")
    p.add_argument("--request_json", type=Path, help="Write per-request records here.")
    args = p.parse_args(argv)
    if args.tp != 1:
        p.error(f"--tp: expected 1 (the transformers engine runs on one device), got {args.tp}")
    if args.num_requests < 0:
        p.error("--num_requests: expected >= 0")
    if args.concurrency is not None and args.concurrency < 1:
        p.error(f"--concurrency: expected >= 1, got {args.concurrency}")
    if args.concurrency is not None and args.batching == "continuous":
        p.error("--concurrency: only with --batching generate or static")
    if args.concurrency is not None and args.max_batch_size not in (None, args.concurrency):
        p.error("--concurrency: sets the batch size; leave --max_batch_size out or equal to it")
    return args


def resolve_device(name: str) -> str:
    import torch

    if name == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    return name


def default_batch_size(model: Any, requests: list[workload.Request]) -> int:
    """Requests per batch: CPU 8; CUDA as many as the KV cache and one whole prefill allow (at most 1024)."""
    if model.device.type != "cuda":
        return min(len(requests), 8)
    import torch

    cfg = model.config
    head_dim = getattr(cfg, "head_dim", None) or cfg.hidden_size // cfg.num_attention_heads
    kv_bytes = 2 * cfg.num_hidden_layers * cfg.num_key_value_heads * head_dim * model.dtype.itemsize
    max_isl = max(len(r.input_ids) for r in requests)
    max_seq = max_isl + max(r.output_tokens for r in requests)
    free, _ = torch.cuda.mem_get_info()
    by_kv = int(free * KV_FRACTION) // (kv_bytes * max_seq)
    return max(1, min(len(requests), 1024, by_kv, PREFILL_TOKENS // max_isl))


def benchmark(model: Any, requests: list[workload.Request], args: argparse.Namespace) -> batching.Outcome:
    """Run the requests in the chosen batching mode."""
    if args.batching == "continuous":
        return batching.run_continuous(model, requests, args.max_batch_size, args.max_num_tokens, args.warmup)
    size = args.concurrency or args.max_batch_size or default_batch_size(model, requests)
    cache = "static" if args.batching == "static" else "dynamic"
    return batching.run_chunked(model, requests, size, cache, closed_loop=args.concurrency is not None)


def machine(model: Any) -> dict[str, Any]:
    """The report's ``machine`` section: the GPU (or CPU) that ran."""
    import torch

    if model.device.type == "cuda":
        props = torch.cuda.get_device_properties(model.device)
        return {"name": props.name, "memory.total": round(props.total_memory / 2**30, 2), "clocks.mem": None}
    return {"name": platform.processor() or platform.machine(), "memory.total": None, "clocks.mem": None}


def build_report(model: Any, outcome: batching.Outcome, args: argparse.Namespace) -> dict[str, Any]:
    """The full report dict for one run."""
    import torch
    import transformers

    engine = {
        "model": args.model,
        "model_path": str(args.model_path) if args.model_path else "None",
        "engine_dir": "None",
        "version": transformers.__version__,
        "backend": "transformers",
        "dtype": str(model.dtype).removeprefix("torch."),
        "kv_cache_dtype": str(model.dtype).removeprefix("torch."),
        "quantization": None,
        "batching": args.batching,
        "weights": args.weights,
        "torch_version": torch.__version__,
        "device": model.device.type,
        "attn_implementation": args.attn_implementation,
        # what sets this run apart from others of the workload: the result file's engine_settings.extra
        "settings": {
            "batching": args.batching,
            "torch_compile": bool(outcome.settings.get("compiled", False)),
            "attn_implementation": args.attn_implementation,
        },
    }
    if outcome.settings.get("concurrency"):
        engine["settings"]["concurrency"] = outcome.settings["concurrency"]
    s = outcome.settings
    world = {
        "tp_size": 1,
        "pp_size": 1,
        "ep_size": None,
        "world_size": 1,
        "max_batch_size": s.get("max_batch_size"),
        "max_num_tokens": s.get("max_num_tokens"),
        "scheduling_policy": s.get("scheduling_policy"),
        "kv_cache_percentage": None,
        "issue_rate": None,  # offline or closed loop: no fixed arrival rate
    }
    report = statistics.report(outcome.records, engine, world, str(args.dataset), machine(model))
    report["transformers_runner"] = {
        **s,
        "parameters": hf_model.parameter_count(model),
        "weights_note": "random weights of the architecture: throughput only"
        if args.weights == "random"
        else None,
    }
    return report


def request_rows(outcome: batching.Outcome) -> list[dict[str, Any]]:
    """Per-request records in the spirit of trtllm-bench's ``--request_json`` (ns timestamps)."""
    return [
        {
            "id": r.task_id,
            "num_input_tokens": r.input_tokens,
            "num_generated_tokens": r.output_tokens,
            "start_timestamp": r.start_ns,
            "first_token_timestamp": r.first_token_ns,
            "end_timestamp": r.end_ns,
            "time_to_first_token": r.ttft_ns,
            "intertoken_latency": r.tpot_ns,
            "end_to_end_latency": r.latency_ns,
        }
        for r in outcome.records
    ]


def load(args: argparse.Namespace) -> Any:
    """Build the model the arguments describe."""
    spec = hf_model.ModelSpec(
        name=args.model,
        arch=hf_model.read_arch(args.arch) if args.arch else None,
        model_path=args.model_path,
        weights=args.weights,
        dtype=args.dtype,
        device=resolve_device(args.device),
        attn_implementation=args.attn_implementation,
    )
    return hf_model.build(spec)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        model = load(args)
        requests = workload.read(args.dataset, args.num_requests, model.config.vocab_size)
    except (hf_model.ModelSpecError, workload.DatasetError, OSError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    outcome = benchmark(model, requests, args)
    report = build_report(model, outcome, args)
    perf = report["performance"]
    print(
        f"{len(requests)} requests, {args.batching}:"
        f" {perf['system_output_throughput_tok_s']:.1f} output tok/s,"
        f" {perf['request_throughput_req_s']:.3f} req/s, total {perf['total_latency_ms'] / 1000:.2f} s"
    )
    if args.report_json:
        args.report_json.write_text(json.dumps(report, indent=4), encoding="utf-8")
    if args.request_json:
        args.request_json.write_text(json.dumps(request_rows(outcome)), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
