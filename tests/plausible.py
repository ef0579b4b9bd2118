"""Plausible result files a contributor could send: the extra data the site and page tests must take.

``write_plausible(folder)`` writes one file per registry GPU (at least 25), cycling through every
precision, engine and source kind, with odd workloads, every optional field left out of some files, and
streaming runs both with and without per-user figures. Each throughput is a fraction (10-60 %) of the
run's speed-of-light bound (``site_gen.data.bound``), and a per-user figure about the total over the requests
in flight, so a file never trips the data-quality gate; where a GPU has no tensor figures in the registry
(no bound), it is a small absolute figure.

Deterministic: the same ``seed`` writes the same files. ``python -m tests.plausible FOLDER`` writes them.
"""

from __future__ import annotations

import datetime as dt
import random
import sys
from pathlib import Path
from typing import Any

from bench.contract import registry
from bench.contract.resultfile import slug, write_file
from bench.contract.schema import ResultFile

ENGINES = (  # engine, version, workflow, tool
    ("tensorrt-llm", "1.3.0rc2", "pytorch", "trtllm-bench"),
    ("transformers", "5.17.0", None, "llmbench-transformers"),
    ("vllm", "0.11.2", None, "vllm bench throughput"),
    ("tensorrt-llm", "0.9.0", "legacy-engine", "gptManagerBenchmark"),
    ("sglang", "0.5.4.post1", None, "sglang.bench_offline_throughput"),
)
# Odd workloads next to the usual ones: a 1-token prompt, 1 output token, prime lengths, long outputs.
WORKLOADS = ((128, 128), (1, 1), (7, 3001), (4099, 1), (333, 4444), (2048, 128), (1000, 1000), (128, 8192))
# Optional fields dropped in turn: file i drops DROPS[i % len(DROPS)] (and keeps the others).
DROPS = (
    {"gpu_label", "gpus_per_node", "cpu", "interconnect"},
    {"url", "notes", "site_url"},
    {"checkpoint", "kv_cache_dtype", "label"},
    {"num_requests", "concurrency", "dataset"},
    {"container_image", "engine_settings", "command", "timestamp", "environment"},
    {"per_gpu", "total", "requests", "duration"},
    {"parallelism"},
    set(),
)
# Small models first: the first one whose weights fit in the run's GPUs is used.
MODELS = (
    "meta-llama/Llama-3.1-8B-Instruct",
    "Qwen/Qwen3-30B-A3B",
    "mistralai/Mistral-7B-v0.1",
    "openai/gpt-oss-20b",
    "meta-llama/Llama-3.1-70B-Instruct",
    "mistralai/Mixtral-8x7B-v0.1",
    "EleutherAI/gpt-j-6b",
    "meta-llama/Llama-2-7b-hf",
)


def _bound(gpu: Any, model: str, precision: str, isl: int, osl: int, n_gpus: int) -> float | None:
    """The lowest bound over the shapes the file may end up with (KV dtype and concurrency kept or
    dropped), so that the figure stays below whichever applies; None where there is none."""
    from site_gen.data import bound

    found = []
    for kv in (None, precision if precision != "Mixed" else "FP16"):
        for concurrency in (None, 64):
            config = {
                "gpu": gpu.name, "model": model, "precision": precision, "kv_cache_dtype": kv, "isl": isl,
                "osl": osl, "n_gpus": n_gpus, "concurrency": concurrency, "num_requests": 512,
            }  # fmt: skip
            b = bound.bound_for_config(config, {gpu.name: gpu}, {model: registry.models().get(model)})
            if b is None:
                return None
            found.append(b.output_tps)
    return min(found)


def _pick_model(gpu: Any, precision: str, rng: random.Random) -> tuple[str, int]:
    """A model and a TP size whose weights fit (a bound exists at 128/128), or the first model on 8 GPUs."""
    start = rng.randrange(len(MODELS))
    for k in range(len(MODELS)):
        model = MODELS[(start + k) % len(MODELS)]
        for tp in (1, 2, 4, 8):
            if _bound(gpu, model, precision, 128, 128, tp):
                return model, tp
    return MODELS[0], 8


def _run(
    gpu: Any, model: str, precision: str, tp: int, w: tuple[int, int], i: int, rng: random.Random
) -> dict:
    isl, osl = w
    b = _bound(gpu, model, precision, isl, osl, tp)
    total = round((b or 200.0 * tp) * rng.uniform(0.1, 0.6), 2)
    run: dict[str, Any] = {
        "parallelism": {"tp": tp, "pp": 1},
        "workload": {"isl": isl, "osl": osl, "num_requests": 512, "dataset": "synthetic"},
        "engine_settings": {"max_batch_size": 256},
        "metrics": {
            "output_tokens_per_s": total,
            "output_tokens_per_s_per_gpu": round(total / tp, 2),
            "total_tokens_per_s": round(total * (isl + osl) / osl, 2),
            "requests_per_s": round(total / osl, 4),
            "duration_s": 60.0,
        },
        "timestamp": "2026-11-20T10:00:00",
        "command": f"bench --isl {isl} --osl {osl}",
    }
    if i % 3:  # a latency sweep's point: in-flight requests capped (offline peaks leave it unset)
        run["workload"]["concurrency"] = 64
    if i % 3 == 1:  # streaming with latency and per-user figures (the Pareto view's points)
        run["workload"]["streaming"] = True
        # one user's rate (trtllm-bench's, TTFT included) is about the total over the 64 in flight, and
        # below 1000 / TPOT (its decode speed): the data-quality gate refuses one above the total
        user = round(total / 64 * rng.uniform(0.7, 1.0), 2)
        tpot = round(1000 / (user * 1.25), 2)
        run["metrics"]["tpot_ms"] = {"avg": tpot, "p99": round(tpot * 2.4, 2)}
        run["metrics"]["ttft_ms"] = {"avg": 150.0, "p50": 120.0}
        run["metrics"]["output_tokens_per_s_per_user"] = user
    elif i % 3 == 2:  # streaming with latency but no per-user figure: the schema allows it
        run["workload"]["streaming"] = True
        run["metrics"]["tpot_ms"] = {"p99": 45.0}
        run["metrics"]["request_latency_ms"] = {"avg": 9000.0}
    if i % 7 == 3:  # only a per-user figure: no all-GPU throughput at all
        user = round((b or 200.0 * tp) * rng.uniform(0.1, 0.6) / 64, 2)  # as if 64 were in flight
        run["metrics"] = {
            "output_tokens_per_s_per_user": user,
            "tpot_ms": {"avg": round(1000 / (user * 1.25), 2)},
        }
    return run


def _drop(d: dict, names: set[str]) -> None:
    metric_names = {
        "per_gpu": "output_tokens_per_s_per_gpu", "total": "total_tokens_per_s",
        "requests": "requests_per_s", "duration": "duration_s",
    }  # fmt: skip
    for key in list(d):
        if key in names:
            del d[key]
        elif isinstance(d[key], dict):
            _drop(d[key], names)
        elif isinstance(d[key], list):
            for item in d[key]:
                if isinstance(item, dict):
                    _drop(item, names)
    metrics = d.get("metrics")
    if isinstance(metrics, dict) and len(metrics) > 1:
        for n in names & metric_names.keys():
            if len(metrics) > 1 and metric_names[n] in metrics and "output_tokens_per_s" in metrics:
                del metrics[metric_names[n]]


def plausible_files(seed: int = 31, at_least: int = 25) -> dict[str, ResultFile]:
    """Relative path -> result file, one per registry GPU and at least ``at_least``."""
    rng = random.Random(seed)
    gpus = registry.gpus().entries
    precisions = list(registry.precisions())
    out: dict[str, ResultFile] = {}
    for i in range(max(at_least, len(gpus))):
        gpu = gpus[i % len(gpus)]
        precision = precisions[i % len(precisions)]
        engine, version, workflow, tool = ENGINES[i % len(ENGINES)]
        model, tp = _pick_model(gpu, precision, rng)
        workloads = [WORKLOADS[(i + k) % len(WORKLOADS)] for k in range(1 + i % 3)]
        data: dict[str, Any] = {
            "schema_version": 1,
            "submission": {
                "submitter": "plausible contributor",
                "system": f"lab box {i}",
                "date": dt.date(2026, 11, 1) + dt.timedelta(days=i),
                "source": {
                    "kind": "measured" if i % 2 else "published",
                    "publisher": f"Lab {i % 4}",
                    "title": f"sweep {i} <b>not bold</b> *not emphasis*",
                    "url": "https://example.org/result",
                    "site_url": "https://example.org/",
                    "notes": "plausible file written by tests/plausible.py",
                },
            },
            "hardware": {
                "gpu": gpu.name, "gpu_label": f"{gpu.name} (lab)", "gpus_per_node": 8, "nodes": 1,
                "interconnect": "NVLink", "cpu": "some CPU",
            },
            "software": {
                "engine": engine, "engine_version": version, "workflow": workflow, "benchmark_tool": tool,
                "container_image": "registry.example/bench:1",
            },
            "model": {
                "id": model, "label": model.split("/")[-1], "checkpoint": f"{model}-{precision}",
                "weight_precision": precision,
                "kv_cache_dtype": "FP16" if precision == "Mixed" else precision,
            },
            "environment": {"gpu_count": tp, "driver_version": "580.1"},
            "runs": [_run(gpu, model, precision, tp, w, i + k, rng) for k, w in enumerate(workloads)],
        }  # fmt: skip
        _drop(data, DROPS[i % len(DROPS)])
        if workflow is None:
            del data["software"]["workflow"]
        short = engine.replace("tensorrt-llm", "trtllm")
        out[f"plausible/{short}-{version}/{i:02d}-{slug(gpu.name)}.yaml"] = ResultFile.model_validate(data)
    return out


def write_plausible(folder: Path, seed: int = 31) -> list[Path]:
    """Write the plausible files under ``folder`` (a results folder): their paths."""
    written = []
    for rel, result in plausible_files(seed).items():
        write_file(result, folder / rel)
        written.append(folder / rel)
    return written


if __name__ == "__main__":
    for p in write_plausible(Path(sys.argv[1])):
        print(p)
