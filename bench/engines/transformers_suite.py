"""Run a plan of transformers benchmarks in one process: probe the batching modes, then the real workloads.

One model load serves every job, so a short GPU lease goes to measuring. A plan (JSON) names the model,
its architecture figures, a deadline and a list of jobs; each job is a token-norm-dist workload with a
batching mode, a batch size and either a fixed ``num_requests`` or a ``budget_s`` from which the request
count is sized using the probe of the same workload and mode. ``batching: "best"`` takes the mode whose
probe gave the highest output throughput on that workload (on any workload if none was probed).

Everything lands in the output folder as it happens (a killed run still leaves its finished jobs):
``environment.json``, ``bundle.json`` (the plan, the environment and every report) and the datasets' SHA-256.
Usage: ``python3 -m bench.engines.transformers_suite PLAN.json OUT_DIR``. Node-side.
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import json
import sys
import time
import traceback
from pathlib import Path
from typing import Any

from bench.engines import environment, transformers_runner, workload


def _log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", flush=True)


def _dataset(job: dict[str, Any], n: int, vocab: int, folder: Path) -> tuple[Path, str]:
    reqs = workload.token_norm_dist(n, job["isl"], job["osl"], vocab)
    path = workload.write(folder / f"token-norm-dist_{job['isl']}_{job['osl']}_{n}.jsonl", reqs)
    return path, hashlib.sha256(path.read_bytes()).hexdigest()


def choose_mode(job: dict[str, Any], done: list[dict[str, Any]]) -> str:
    """The job's batching mode; ``best``: the probe with the most output tokens/s (same workload first)."""
    if job["batching"] != "best":
        return job["batching"]
    probes = [d for d in done if d["role"] == "probe" and "report" in d]
    same = [d for d in probes if (d["isl"], d["osl"]) == (job["isl"], job["osl"])]
    pool = same or probes
    if not pool:
        return job.get("fallback", "static")
    best = max(pool, key=lambda d: d["report"]["performance"]["system_output_throughput_tok_s"])
    return best["report"]["engine"]["batching"]


def size_requests(job: dict[str, Any], mode: str, done: list[dict[str, Any]], left_s: float) -> int:
    """Requests to run: fixed, or what fits ``budget_s`` (and the time left) at the probe's request rate."""
    if "num_requests" in job:
        return int(job["num_requests"])
    probe = next(
        (
            d
            for d in reversed(done)
            if "report" in d
            and d["report"]["engine"]["batching"] == mode
            and (d["isl"], d["osl"]) == (job["isl"], job["osl"])
        ),
        None,
    )
    batch = int(job.get("max_batch_size") or 1)
    if probe is None:
        return int(job.get("min_requests", batch))
    rate = probe["report"]["performance"]["request_throughput_req_s"]
    budget = min(float(job["budget_s"]), left_s * 0.8)
    n = int(rate * budget) // batch * batch
    return max(int(job.get("min_requests", batch)), min(n, int(job.get("max_requests", 30000))))


def _job_args(
    plan: dict[str, Any], job: dict[str, Any], mode: str, dataset: Path, n: int
) -> argparse.Namespace:
    argv = ["--model", plan["model"], "--dataset", str(dataset), "--num_requests", str(n), "--batching", mode]
    argv += ["--dtype", plan.get("dtype", "bf16"), "--device", plan.get("device", "auto")]
    argv += ["--weights", "random", "--warmup", str(job.get("warmup", 2))]
    if job.get("max_batch_size"):
        argv += ["--max_batch_size", str(job["max_batch_size"])]
    if job.get("concurrency"):
        argv += ["--concurrency", str(job["concurrency"])]
    if job.get("max_num_tokens"):
        argv += ["--max_num_tokens", str(job["max_num_tokens"])]
    return transformers_runner.parse_args(argv)


def run_plan(plan: dict[str, Any], out: Path) -> list[dict[str, Any]]:
    """Run every job that fits before the deadline; write the bundle after each one."""
    t_start = time.monotonic()
    deadline = t_start + float(plan.get("deadline_s", 540))
    out.mkdir(parents=True, exist_ok=True)
    env = environment.capture()
    (out / "environment.json").write_text(json.dumps(env, indent=2), encoding="utf-8")
    _log(f"environment: {env}")
    from bench.engines import hf_model

    spec = hf_model.ModelSpec(
        name=plan["model"],
        arch=plan["arch"],
        dtype=plan.get("dtype", "bf16"),
        device=transformers_runner.resolve_device(plan.get("device", "auto")),
    )
    model = hf_model.build(spec)
    _log(
        f"model built in {time.monotonic() - t_start:.1f} s:"
        f" {hf_model.parameter_count(model) / 1e9:.2f} B parameters"
    )
    data_dir = Path(plan.get("data_dir", "/tmp/llmbench-datasets"))
    done: list[dict[str, Any]] = []
    for job in plan["jobs"]:
        left = deadline - time.monotonic()
        if left < float(job.get("needs_s", 30)):
            _log(f"skip {job['name']}: {left:.0f} s left, needs {job.get('needs_s', 30)}")
            done.append({**job, "skipped": f"{left:.0f} s left"})
            continue
        done.append(_run_job(plan, job, model, done, left, data_dir))
        _write_bundle(out, plan, env, done)
        gc.collect()
        _empty_cache(model)
    _write_bundle(out, plan, env, done)
    return done


def _run_job(
    plan: dict[str, Any],
    job: dict[str, Any],
    model: Any,
    done: list[dict[str, Any]],
    left: float,
    data_dir: Path,
) -> dict[str, Any]:
    mode = choose_mode(job, done)
    n = size_requests(job, mode, done, left)
    path, digest = _dataset(job, n, plan["arch"]["vocab_size"], data_dir)
    args = _job_args(plan, job, mode, path, n)
    batch = job.get("concurrency") or job.get("max_batch_size")
    _log(f"start {job['name']}: {job['isl']}/{job['osl']} x {n}, {mode}, batch {batch}")
    t0 = time.monotonic()
    entry: dict[str, Any] = {**job, "batching_used": mode, "num_requests_used": n, "dataset_sha256": digest}
    try:
        requests = workload.read(path, n, model.config.vocab_size)
        outcome = transformers_runner.benchmark(model, requests, args)
        entry["report"] = transformers_runner.build_report(model, outcome, args)
        entry["command"] = "python3 -m bench.engines.transformers_runner " + " ".join(_argv(args))
        perf = entry["report"]["performance"]
        _log(
            f"done {job['name']} in {time.monotonic() - t0:.1f} s:"
            f" {perf['system_output_throughput_tok_s']:.1f} output tok/s,"
            f" {perf['request_throughput_req_s']:.3f} req/s,"
            f" warmup {outcome.settings.get('warmup_s')} s"
        )
    except Exception as e:  # one failing mode must not lose the others' results
        entry["error"] = f"{type(e).__name__}: {e}"
        _log(f"FAILED {job['name']} after {time.monotonic() - t0:.1f} s: {entry['error']}")
        traceback.print_exc()
    entry["wall_s"] = round(time.monotonic() - t0, 2)
    peak = _peak_memory_gib(model)
    if peak is not None:
        entry["peak_gpu_memory_gib"] = peak
    return entry


def _peak_memory_gib(model: Any) -> float | None:
    """The job's peak of PyTorch-allocated GPU memory (weights included), then reset for the next job."""
    if model.device.type != "cuda":
        return None
    import torch

    peak = torch.cuda.max_memory_allocated(model.device) / 2**30
    torch.cuda.reset_peak_memory_stats(model.device)
    return round(peak, 2)


def _argv(args: argparse.Namespace) -> list[str]:
    keys = (
        "model",
        "dataset",
        "num_requests",
        "batching",
        "dtype",
        "weights",
        "max_batch_size",
        "concurrency",
        "max_num_tokens",
    )
    return [f"--{k} {getattr(args, k)}" for k in keys if getattr(args, k) is not None]


def _write_bundle(out: Path, plan: dict[str, Any], env: dict[str, Any], done: list[dict[str, Any]]) -> None:
    tmp = out / "bundle.json.tmp"
    tmp.write_text(json.dumps({"plan": plan, "environment": env, "jobs": done}, indent=1), encoding="utf-8")
    tmp.replace(out / "bundle.json")


def _empty_cache(model: Any) -> None:
    if model.device.type == "cuda":
        import torch

        torch.cuda.empty_cache()


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python3 -m bench.engines.transformers_suite", description=__doc__.split("\n")[0]
    )
    p.add_argument("plan", type=Path)
    p.add_argument("out", type=Path)
    args = p.parse_args(argv)
    plan = json.loads(args.plan.read_text(encoding="utf-8"))
    done = run_plan(plan, args.out)
    failed = [d["name"] for d in done if "error" in d]
    _log(f"finished: {sum('report' in d for d in done)} report(s), failed: {failed or 'none'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
