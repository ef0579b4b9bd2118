"""The estimate engine against its outside authorities: AIConfigurator's own CLI, and runs read by hand.

- For fixed inputs, the figures stored in a modelled result file equal what ``aiconfigurator cli estimate``
  prints for the arguments the file records (both are run here).
- The validation join pairs each run with an estimate of exactly its GPU, model, precision, TP/PP/EP,
  attention DP, ISL/OSL and concurrency: checked against pairs picked by reading results/ files.
- A spec naming an unknown system, model or precision is refused with the lists the installed
  AIConfigurator supports (read from AIConfigurator itself).

Needs the optional extra (``pip install -e '.[estimate]'``); skipped with that reason otherwise.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

pytest.importorskip("aiconfigurator", reason="needs AIConfigurator: pip install -e '.[estimate]'")

from bench.engines import estimate as est
from bench.engines import estimate_spec, estimate_validate
from bench.errors import UserError

RESULTS = Path(__file__).resolve().parents[2] / "results"

# settings key -> aiconfigurator cli estimate option
_FLAGS = {
    "model_path": "--model-path",
    "system_name": "--system",
    "mode": "--estimate-mode",
    "backend_name": "--backend",
    "backend_version": "--perf-db-version",
    "isl": "--isl",
    "osl": "--osl",
    "batch_size": "--batch-size",
    "ctx_tokens": "--ctx-tokens",
    "tp_size": "--tp-size",
    "pp_size": "--pp-size",
    "attention_dp_size": "--attention-dp-size",
    "moe_tp_size": "--moe-tp-size",
    "moe_ep_size": "--moe-ep-size",
    "gemm_quant_mode": "--gemm-quant-mode",
    "kvcache_quant_mode": "--kvcache-quant-mode",
    "fmha_quant_mode": "--fmha-quant-mode",
    "moe_quant_mode": "--moe-quant-mode",
}


def _cli() -> Path:
    exe = Path(sys.executable).parent / "aiconfigurator"
    if not exe.exists():
        pytest.skip(f"AIConfigurator's CLI is not installed beside {sys.executable}")
    return exe


def _cli_estimate(settings: dict[str, Any]) -> dict[str, float]:
    """What AIConfigurator's own CLI prints for these arguments (tokens/s/gpu, TTFT, TPOT)."""
    argv = [str(_cli()), "cli", "estimate"]
    for k, v in settings.items():
        argv += [_FLAGS[k], str(v)]  # a stored setting the CLI has no option for fails here: KeyError
    out = subprocess.run(argv, capture_output=True, text=True, timeout=600, check=True).stdout

    def num(label: str) -> float:
        m = re.search(rf"^\s*{re.escape(label)}:\s+([0-9,.]+)", out, re.M)
        assert m, f"{label} not in the CLI's output:\n{out}"
        return float(m.group(1).replace(",", ""))

    return {"tokens/s/gpu": num("tokens/s/gpu"), "ttft": num("TTFT"), "tpot": num("TPOT")}


SPEC = """\
systems: [H200 SXM 141GB, B200 180GB]
models: [meta-llama/Llama-3.1-8B-Instruct, Qwen/Qwen3-30B-A3B]
precisions: [FP8]
parallelism: [{tp: 1}]
workloads: [{isl: 128, osl: 128}]
concurrency: [null, 8]
"""


def test_stored_estimates_equal_what_aiconfigurators_own_cli_prints(tmp_path: Path) -> None:
    """Four fixed inputs (two GPUs, a dense and an MoE model), max throughput and concurrency 8: the figures
    in the written files equal the CLI's for the settings those files record, to the CLI's printed digits."""
    spec = tmp_path / "spec.yaml"
    spec.write_text(SPEC, encoding="utf-8")
    written, _ = estimate_spec.run_spec(spec, tmp_path / "out", est.Cache(None), workers=1)
    runs = [
        r for p in written for r in yaml.safe_load(p.read_text(encoding="utf-8"))["runs"]
    ]  # every combination the installed data covers
    assert len(runs) >= 4
    for run in runs[:4]:
        settings = run["estimate"]["settings"]
        cli = _cli_estimate(settings)
        m = run["metrics"]
        assert round(m["output_tokens_per_s_per_gpu"], 2) == pytest.approx(cli["tokens/s/gpu"], abs=0.011)
        assert round(m["ttft_ms"]["avg"], 3) == pytest.approx(cli["ttft"], abs=0.0011)
        assert round(m["tpot_ms"]["avg"], 3) == pytest.approx(cli["tpot"], abs=0.0011)
        # and the file records exactly the run's workload and batch the CLI was given
        assert (settings["isl"], settings["osl"]) == (run["workload"]["isl"], run["workload"]["osl"])
        assert settings["batch_size"] == run["engine_settings"]["max_batch_size"]


# Picked by reading the files: (file, run index) -> what the run states.
# gpu, model, precision, tp, pp, ep, attention_dp, isl, osl, concurrency, published tok/s/GPU
HAND_PAIRS: list[tuple[str, int, tuple[Any, ...]]] = [
    (
        "kisti/trtllm-1.2.0/h200-sxm-141gb--llama-3.1-8b-instruct--fp8.yaml",
        0,
        (
            "H200 SXM 141GB",
            "meta-llama/Llama-3.1-8B-Instruct",
            "FP8",
            1,
            1,
            None,
            False,
            128,
            128,
            None,
            29103.0,
        ),
    ),
    (
        "kisti/trtllm-1.2.0/h200-sxm-141gb--llama-3.1-8b-instruct--fp8.yaml",
        2,
        (
            "H200 SXM 141GB",
            "meta-llama/Llama-3.1-8B-Instruct",
            "FP8",
            1,
            1,
            None,
            False,
            2048,
            128,
            None,
            3643.0,
        ),
    ),
    (
        "nvidia/trtllm-1.2/b200-180gb--deepseek-r1-0528--fp4.yaml",
        0,
        ("B200 180GB", "deepseek-ai/DeepSeek-R1-0528", "FP4", 4, 1, 4, True, 1024, 1024, None, 5757.0),
    ),
    (
        "nvidia/trtllm-1.2/h200-sxm-141gb--qwen3-235b-a22b--fp8.yaml",
        2,
        ("H200 SXM 141GB", "Qwen/Qwen3-235B-A22B", "FP8", 4, 1, 4, True, 8192, 1024, None, 679.0),
    ),
    (
        "nvidia/trtllm-0.18/h200-sxm-141gb--deepseek-r1--fp8.yaml",
        0,
        ("H200 SXM 141GB", "deepseek-ai/DeepSeek-R1", "FP8", 8, 1, 4, False, 1024, 2048, 1, 19.7584),
    ),
    (
        "nvidia/trtllm-0.18/h200-sxm-141gb--deepseek-r1--fp8.yaml",
        1,
        ("H200 SXM 141GB", "deepseek-ai/DeepSeek-R1", "FP8", 8, 1, 8, True, 1024, 2048, 1024, 1319.2306),
    ),
    (
        "nvidia/trtllm-0.18/b200-180gb--deepseek-r1--fp4.yaml",
        1,
        ("B200 180GB", "deepseek-ai/DeepSeek-R1", "FP4", 8, 1, 8, True, 1024, 2048, 3072, 4451.4493),
    ),
    (
        "nvidia/trtllm-1.0/h100-sxm-80gb--llama-3.3-70b-instruct--fp8.yaml",
        3,
        # published as 4205 tokens/s over TP2: 2102.5 per GPU
        (
            "H100 SXM 80GB",
            "meta-llama/Llama-3.3-70B-Instruct",
            "FP8",
            2,
            1,
            None,
            False,
            1000,
            1000,
            None,
            2102.5,
        ),
    ),
]
HAND_PAIRS.append(
    (
        "nvidia/trtllm-0.17/h200-sxm-141gb--mixtral-8x7b-v0.1--fp8.yaml",
        1,
        # MoE row with no EP: TensorRT-LLM's default (MoE TP = TP, EP 1) is what AIConfigurator is told
        (
            "H200 SXM 141GB",
            "mistralai/Mixtral-8x7B-v0.1",
            "FP8",
            1,
            1,
            None,
            False,
            128,
            2048,
            None,
            15095.21,
        ),
    )
)
# Runs read by hand that must not be paired, and the word the reason names.
HAND_UNPAIRED = [
    ("nvidia/trtllm-0.12.0/h100-sxm-80gb--mistral-7b-v0.1--mixed.yaml", 0, "model"),
    ("kisti/trtllm-1.2.0/gh200-96gb--llama-3.1-8b-instruct--fp8.yaml", 0, "system"),
    (
        "measured/transformers-5.17.0/h200-sxm-141gb--llama-3.1-8b-instruct--bf16--random-weights--"
        "concurrency.yaml",
        0,
        "engine",
    ),
]


def _candidate(file: str, run: int) -> estimate_validate.Candidate:
    from bench.contract.resultfile import check_file

    path = RESULTS / file
    if not path.exists():
        pytest.skip(f"{file} is no longer in results/")
    checked = check_file(path, RESULTS)
    assert checked.result is not None, checked.problems
    return list(estimate_validate._file_candidates(checked.result, file))[run]


@pytest.mark.parametrize(("file", "run", "expected"), HAND_PAIRS)
def test_the_validation_join_pairs_each_run_with_exactly_its_configuration(
    file: str, run: int, expected: tuple[Any, ...]
) -> None:
    gpu, model, precision, tp, pp, ep, adp, isl, osl, conc, published = expected
    c = _candidate(file, run)
    assert c.task is not None and c.skip is None
    cfg = c.task.config
    assert (cfg.gpu, cfg.model, cfg.precision) == (gpu, model, precision)
    assert (cfg.tp, cfg.pp, cfg.ep, cfg.attention_dp) == (tp, pp, ep, adp)
    assert (cfg.isl, cfg.osl, c.task.concurrency) == (isl, osl, conc)
    assert c.metric == "tokens_per_s_per_gpu" and c.published == pytest.approx(published)
    # what AIConfigurator is told keeps the same world size and workload
    args, _ = est.point_args(cfg, "1.3.0rc20", 64, 2048)
    assert args["tp_size"] * args["attention_dp_size"] * args["pp_size"] == tp * pp
    assert (args["isl"], args["osl"]) == (isl, osl)
    if ep is not None:
        assert args["moe_ep_size"] == ep and args["moe_tp_size"] * ep == tp
    elif est.is_moe(model):
        assert (args["moe_tp_size"], args["moe_ep_size"]) == (tp, 1)


@pytest.mark.parametrize(("file", "run", "word"), HAND_UNPAIRED)
def test_runs_aiconfigurator_cannot_model_are_left_out_with_the_reason(
    file: str, run: int, word: str
) -> None:
    c = _candidate(file, run)
    assert c.task is None and c.skip is not None and c.skip.startswith(word), c.skip


def test_a_spec_with_unknown_system_model_and_precision_is_refused_with_the_supported_lists(
    tmp_path: Path,
) -> None:
    """The lists come from AIConfigurator itself (its systems and its model list), not from this code."""
    from aiconfigurator.sdk.common import DefaultHFModels
    from aiconfigurator.sdk.perf_database import get_supported_databases

    spec = tmp_path / "bad.yaml"
    spec.write_text(
        "systems: [GH200 96GB]\nmodels: [mistralai/Mistral-7B-v0.1]\nprecisions: [INT4]\n"
        "workloads: [{isl: 128, osl: 128}]\n",
        encoding="utf-8",
    )
    with pytest.raises(UserError) as e:
        estimate_spec.run_spec(spec, tmp_path / "out", est.Cache(None), workers=1)
    msg = str(e.value)
    assert "'GH200 96GB'" in msg and "'mistralai/Mistral-7B-v0.1'" in msg and "'INT4'" in msg
    for system, backends in get_supported_databases().items():
        if any(backends.values()):
            assert system in msg
    for model in DefaultHFModels:
        assert model in msg
    assert not (tmp_path / "out").exists()  # nothing written


def test_the_cli_refuses_a_bad_spec_with_exit_1(tmp_path: Path) -> None:
    spec = tmp_path / "bad.yaml"
    spec.write_text("systems: [H200 SXM 141GB]\nmodels: [x/y]\nprecisions: [FP8]\nworkloads: []\n", "utf-8")
    from typer.testing import CliRunner

    from bench.cli import app

    r = CliRunner().invoke(app, ["estimate", str(spec), "--out", str(tmp_path / "o")])
    assert r.exit_code == 1
    assert "bad.yaml:4: workloads" in r.output  # file, line and field
    assert not (tmp_path / "o").exists()


def test_a_rerun_computes_only_what_changed(tmp_path: Path) -> None:
    """The cache is keyed by the inputs: a second run with one more workload adds exactly its estimates,
    and the estimates already made come back unchanged."""
    cache_file = tmp_path / "cache.jsonl"
    spec = tmp_path / "spec.yaml"
    base = (
        "systems: [H200 SXM 141GB]\nmodels: [meta-llama/Llama-3.1-8B-Instruct]\nprecisions: [FP8]\n"
        "concurrency: [1, 8]\n"
    )
    spec.write_text(base + "workloads: [{isl: 128, osl: 128}]\n", encoding="utf-8")
    first, _ = estimate_spec.run_spec(spec, tmp_path / "a", est.Cache(cache_file), workers=1)
    lines = cache_file.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 2  # two concurrencies, one workload
    spec.write_text(base + "workloads: [{isl: 128, osl: 128}, {isl: 256, osl: 64}]\n", encoding="utf-8")
    second, _ = estimate_spec.run_spec(spec, tmp_path / "b", est.Cache(cache_file), workers=1)
    assert cache_file.read_text(encoding="utf-8").splitlines()[:2] == lines  # appended, nothing recomputed
    assert len(cache_file.read_text(encoding="utf-8").splitlines()) == 4
    old = yaml.safe_load(first[0].read_text(encoding="utf-8"))["runs"]
    new = yaml.safe_load(second[0].read_text(encoding="utf-8"))["runs"]
    assert [r["metrics"] for r in new if r["workload"]["isl"] == 128] == [r["metrics"] for r in old]
