"""The memory planner against AIConfigurator: where they disagree on whether a configuration fits.

Every committed estimate is a configuration AIConfigurator found to fit: its search dropped the points it
reported out of memory or beyond the KV cache, so the batch size and context tokens the estimate records
(``max_batch_size``, ``max_num_tokens``) fit by its memory model. The planner (``site_gen.data.memory.plan``,
the same formulas as ``docs/assets/js/planner.js``) is asked about the same layout: that batch of sequences
of ISL + OSL tokens, the context tokens as ``max_num_tokens``, TP x PP, with an FP8 KV cache for FP8 and FP4
runs (the estimate's ``kvcache_quant_mode``) and 16 bit otherwise. Where the planner's total per GPU
exceeds the GPU's memory, the two disagree; the "How good are the estimates?" page lists those cases.

Why they can disagree: AIConfigurator budgets the KV cache as trtllm-bench does (what is left after
weights and activations, at the KV-cache fraction) and admits a batch when its sequences fit *on
average*, while the planner holds every sequence at its full length at once, the most it can take.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from site_gen.data import memory

PLANNER_KV = {"FP8": "FP8", "FP4": "FP8"}  # the estimates' FP8 KV cache; 16-bit precisions keep BF16


@dataclass(frozen=True)
class Disagreement:
    run_id: str
    gpu: str
    model: str
    precision: str
    tp: int
    pp: int
    batch: int
    seq_len: int
    planner_gib: float
    gpu_gib: float


def planner_total_gib(arch: dict[str, Any], precision: str, batch: int, seq_len: int, tp: int, pp: int,
                      max_num_tokens: int) -> float:  # fmt: skip
    """The planner's per-GPU total for an estimate's configuration, in GiB."""
    inp = memory.PlanInput(
        weight_precision=precision,
        kv_dtype=PLANNER_KV.get(precision, "BF16"),
        batch=batch,
        seq_len=seq_len,
        tp=tp,
        pp=pp,
        max_num_tokens=max_num_tokens,
    )
    return memory.plan(arch, inp).total / memory.GIB


def disagreements(estimates: list[dict[str, Any]]) -> list[Disagreement]:
    """The estimates (rows of the ``estimates`` table) whose configuration the planner says does not fit."""
    from bench.contract import registry

    out = []
    for e in estimates:
        m = registry.models().get(e["model"])
        arch = {k: getattr(m, k) for k in memory._ARCH_FIELDS}
        seq = int(e["isl"]) + int(e["osl"])
        gib = planner_total_gib(
            arch,
            e["precision"],
            int(e["max_batch_size"]),
            seq,
            int(e["tp"]),
            int(e["pp"]),
            int(e["max_num_tokens"]),
        )
        if gib > float(e["gpu_memory_gb"]):
            out.append(
                Disagreement(
                    e["run_id"],
                    e["gpu"],
                    e["model_name"],
                    e["precision"],
                    int(e["tp"]),
                    int(e["pp"]),
                    int(e["max_batch_size"]),
                    seq,
                    gib,
                    float(e["gpu_memory_gb"]),
                )
            )
    return out


def estimate_rows(db: Any) -> list[dict[str, Any]]:
    """The estimates' configurations from the site database (none when it has no estimates table)."""
    import duckdb

    con = duckdb.connect(str(db), read_only=True)
    try:
        if "estimates" not in {r[0] for r in con.execute("SHOW TABLES").fetchall()}:
            return []
        cur = con.execute(
            "SELECT run_id, gpu, model, model_name, precision, tp, pp, isl, osl, max_batch_size, "
            "max_num_tokens, gpu_memory_gb FROM estimates WHERE max_batch_size IS NOT NULL "
            "AND max_num_tokens IS NOT NULL ORDER BY run_id"
        )
        cols = [d[0] for d in cur.description]
        return [dict(zip(cols, r, strict=True)) for r in cur.fetchall()]
    finally:
        con.close()
