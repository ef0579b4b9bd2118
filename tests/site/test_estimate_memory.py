"""The planner cross-check: an estimate whose configuration the memory planner says does not fit.

Hand-worked (Llama 3.1 8B: 32 layers, 8 KV heads of 128, so an FP8 KV cache holds 32 x 8 x 128 x 2 (K and
V) x 1 byte = 65,536 bytes per token): 4,096 sequences of 2,000 tokens need 4,096 x 2,000 x 65,536 bytes
= 500 GiB of KV cache alone, far beyond an L40S's 48 GB, so an estimate claiming that batch fits is listed;
one sequence of 256 tokens (16 MiB of cache beside ~8.5 GB of weights) fits, and is not.
"""

from __future__ import annotations

from bench.contract import registry
from site_gen.data import memory
from site_gen.data.estimate_memory import disagreements


def _row(batch: int, isl: int, osl: int) -> dict:
    return {
        "run_id": "e1", "gpu": "L40S", "model": "meta-llama/Llama-3.1-8B-Instruct",
        "model_name": "Llama 3.1 8B", "precision": "FP8", "tp": 1, "pp": 1, "isl": isl, "osl": osl,
        "max_batch_size": batch, "max_num_tokens": 2048, "gpu_memory_gb": 48.0,
    }  # fmt: skip


def test_planner_kv_cache_for_the_hand_worked_case() -> None:
    m = registry.models().get("meta-llama/Llama-3.1-8B-Instruct")
    arch = {k: getattr(m, k) for k in memory._ARCH_FIELDS}
    inp = memory.PlanInput("FP8", "FP8", batch=4096, seq_len=2000, max_num_tokens=2048)
    assert memory.plan(arch, inp).kv_cache == 4096 * 2000 * 65_536


def test_an_estimate_the_planner_says_cannot_fit_is_listed_and_one_that_fits_is_not() -> None:
    found = disagreements([_row(4096, 1000, 1000), _row(1, 128, 128)])
    assert [d.batch for d in found] == [4096]
    assert found[0].planner_gib > 500  # the KV cache alone, worked above
    assert found[0].gpu_gib == 48.0
