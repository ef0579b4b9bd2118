"""The committed AIConfigurator memory table (bench/data/estimate_memory.csv) against AIConfigurator itself.

- Rows of the table equal a fresh AIConfigurator call with the arguments the row records, part by part
  (its Python API, ``cli_estimate``'s ``summary.get_memory()``), and for one row the total its own CLI
  prints as "Memory (GPU)".
- The table holds exactly the configurations the code lists, with the arguments the code passes today
  (a stale table, after a mapping change, fails here: rerun ``llmbench estimate-memory``).
- A hand-worked figure: Llama 3.1 70B at BF16 on TP4 holds 64 x 2,000 tokens of KV cache, 80 layers x 8
  KV heads x 128 x 2 (K and V) x 2 bytes = 327,680 bytes a token, a quarter per GPU (2 of 8 KV heads):
  64 x 2,000 x 327,680 / 4 = 10,485,760,000 bytes = 9.7656 GiB.

Needs the optional extra (``pip install -e '.[estimate]'``); skipped with that reason otherwise.
"""

from __future__ import annotations

import csv
import json
import re
import subprocess
from typing import Any

import pytest

pytest.importorskip("aiconfigurator", reason="needs AIConfigurator: pip install -e '.[estimate]'")

from bench.engines import estimate as est
from bench.engines import estimate_memory as em
from tests.engines.test_estimate_aic import _FLAGS, _cli


def _rows() -> list[dict[str, str]]:
    if not em.TABLE.exists():
        pytest.skip(f"{em.TABLE} is not there: run llmbench estimate-memory")
    with em.TABLE.open(newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def _args(row: dict[str, str]) -> dict[str, Any]:
    """The row's recorded arguments; a bundled config (Mixtral) is AIConfigurator's own file."""
    args = json.loads(row["settings"])
    if row["model"] in est.BUNDLED:
        args["model_path"] = str(est.bundled_model_dir(est.BUNDLED[row["model"]]))
    return args


PARTS = {"weights": "weights_gib", "kvcache": "kv_cache_gib", "activations": "activations_gib",
         "nccl": "nccl_gib", "others": "others_gib", "total": "total_gib"}  # fmt: skip


@pytest.mark.parametrize(
    ("model", "precision"),
    [
        ("meta-llama/Llama-3.1-8B-Instruct", "FP8"),
        ("deepseek-ai/DeepSeek-R1", "FP8"),  # MoE with MLA: a different KV cache and weight layout
        ("Qwen/Qwen3-235B-A22B", "FP4"),  # B200
        ("mistralai/Mixtral-8x7B-v0.1", "FP8"),  # a bundled config
    ],
)
def test_a_row_equals_a_fresh_aiconfigurator_call_part_by_part(model: str, precision: str) -> None:
    (row,) = [r for r in _rows() if r["model"] == model and r["precision"] == precision]
    fresh = em.breakdown(_args(row))
    for part, col in PARTS.items():
        assert float(row[col]) == pytest.approx(round(fresh[part], 4), abs=1e-4), part


def test_a_rows_total_is_what_aiconfigurators_cli_prints() -> None:
    (row,) = [
        r for r in _rows() if r["model"] == "meta-llama/Llama-3.1-70B-Instruct" and r["precision"] == "BF16"
    ]
    argv = [str(_cli()), "cli", "estimate"]
    for k, v in json.loads(row["settings"]).items():
        argv += [_FLAGS[k], str(v)]
    out = subprocess.run(argv, capture_output=True, text=True, timeout=600, check=True).stdout
    m = re.search(r"^\s*Memory \(GPU\):\s+([0-9,.]+)", out, re.M)
    assert m, out
    assert float(row["total_gib"]) == pytest.approx(float(m.group(1).replace(",", "")), abs=0.006)
    # and the hand-worked KV cache of the docstring
    assert float(row["kv_cache_gib"]) == pytest.approx(10_485_760_000 / 2**30, abs=1e-4)


def test_the_table_holds_the_listed_configurations_with_todays_arguments() -> None:
    rows = _rows()
    keys = [(r["gpu"], r["model"], r["precision"], int(r["tp"]), int(r["pp"])) for r in rows]
    assert keys == [(c.gpu, c.model, c.precision, c.tp, c.pp) for c in em.CONFIGS]
    for row, c in zip(rows, em.CONFIGS, strict=True):
        expected = em.settings(c)
        expected["model_path"] = est.BUNDLED.get(c.model, expected["model_path"])
        assert json.loads(row["settings"]) == expected
        assert int(row["max_num_tokens"]) == em.default_max_num_tokens()
