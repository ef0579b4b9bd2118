"""The runner on CPU with the tiny random Llama: every batching mode, trtllm-bench's report layout."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest

from bench.engines import batching, hf_model, transformers_runner, workload
from bench.trtllm import report as bench_report


def test_concurrency_times_each_request_from_its_own_batch(model: object) -> None:
    """Closed loop (trtllm-bench --concurrency 3): batch k starts when batch k-1 has ended, not at time 0."""
    reqs = workload.token_norm_dist(7, 12, 5, 1024)
    args = transformers_runner.parse_args(
        ["--model", "tiny", "--dataset", "d.jsonl", "--batching", "generate", "--concurrency", "3"]
    )
    outcome = transformers_runner.benchmark(model, reqs, args)
    waves: dict[int, list[batching.RequestRecord]] = {}
    for rec in outcome.records:
        waves.setdefault(rec.start_ns, []).append(rec)
    assert [len(w) for _, w in sorted(waves.items())] == [3, 3, 1]  # 7 requests, at most 3 in flight
    starts = sorted(waves)
    for before, after in itertools.pairwise(starts):
        assert after >= max(r.end_ns for r in waves[before])
    assert outcome.settings["concurrency"] == 3
    report = transformers_runner.build_report(model, outcome, args)
    assert report["engine"]["settings"]["concurrency"] == 3


def test_concurrency_conflicts_are_refused(capsys: pytest.CaptureFixture[str]) -> None:
    base = ["--model", "tiny", "--dataset", "d.jsonl"]
    for extra, says in (
        (["--concurrency", "0"], "expected >= 1"),
        (["--concurrency", "2", "--batching", "continuous"], "only with --batching generate or static"),
        (["--concurrency", "2", "--max_batch_size", "4"], "sets the batch size"),
    ):
        with pytest.raises(SystemExit):
            transformers_runner.parse_args(base + extra)
        assert says in capsys.readouterr().err


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> object:
    from bench.contract import registry

    arch = registry.models().get("llmbench/tiny-random-llama")
    figures = {k: getattr(arch, k) for k in ("layers", "hidden_size", "intermediate_size", "attention_heads")}
    figures |= {"kv_heads": arch.kv_heads, "head_dim": arch.head_dim, "vocab_size": arch.vocab_size}
    return hf_model.build(hf_model.ModelSpec("tiny", arch=figures, dtype="fp32", device="cpu"))


@pytest.mark.parametrize("mode", batching.MODES)
def test_every_mode_generates_exactly_each_requests_output_length(model: object, mode: str) -> None:
    reqs = workload.token_norm_dist(10, 12, 5, 1024, 4, 3)
    if mode == "continuous":
        outcome = batching.run_continuous(model, reqs, None, None, warmup=1)
    else:
        outcome = batching.run_chunked(model, reqs, 4, "static" if mode == "static" else "dynamic")
    by_id = {r.task_id: r for r in outcome.records}
    assert sorted(by_id) == [r.task_id for r in reqs]
    for r in reqs:
        rec = by_id[r.task_id]
        assert (rec.input_tokens, rec.output_tokens) == (len(r.input_ids), r.output_tokens)
        assert rec.start_ns <= rec.first_token_ns <= rec.end_ns  # type: ignore[operator]
    # offline: every request is submitted at the start, as trtllm-bench does with unlimited concurrency
    assert len({rec.start_ns for rec in outcome.records}) == 1


def test_cli_writes_a_report_that_the_trtllm_bench_parser_reads(
    tiny_dataset: Path, tiny_arch: str, tmp_path: Path
) -> None:
    out = tmp_path / "report.json"
    argv = [
        "--model",
        "llmbench/tiny-random-llama",
        "--arch",
        tiny_arch,
        "--device",
        "cpu",
        "--dtype",
        "fp32",
    ]
    argv += ["--batching", "generate", "--dataset", str(tiny_dataset), "--report_json", str(out)]
    assert transformers_runner.main(argv) == 0
    data = json.loads(out.read_text())
    assert data["engine"]["backend"] == "transformers" and data["engine"]["weights"] == "random"
    assert data["engine"]["settings"]["batching"] == "generate"
    assert data["world_info"]["world_size"] == 1 and data["request_info"]["num_requests"] == 12
    parsed = bench_report.parse_json(out.read_text())
    assert parsed.metrics["output_tokens_per_s"] > 0 and parsed.metrics["ttft_ms"]["p50"] > 0


def test_cli_refuses_a_prompt_dataset_and_tp_above_one(
    tmp_path: Path, tiny_arch: str, capsys: pytest.CaptureFixture
) -> None:
    text = tmp_path / "text.jsonl"
    text.write_text('{"task_id": 0, "prompt": "hello", "output_tokens": 4}\n')
    base = ["--model", "m", "--arch", tiny_arch, "--device", "cpu", "--dataset", str(text)]
    assert transformers_runner.main(base) == 2
    assert "text.jsonl:1: input_ids" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        transformers_runner.main([*base, "--tp", "2"])
    assert "--tp: expected 1" in capsys.readouterr().err


def test_architecture_figures_must_be_complete_and_dense() -> None:
    with pytest.raises(hf_model.ModelSpecError, match="expected figures head_dim, vocab_size"):
        hf_model.llama_config(
            {"layers": 1, "hidden_size": 8, "intermediate_size": 8, "attention_heads": 1, "kv_heads": 1}
        )
    full = {"layers": 1, "hidden_size": 8, "intermediate_size": 8, "attention_heads": 1, "kv_heads": 1}
    with pytest.raises(hf_model.ModelSpecError, match="mixture of experts"):
        hf_model.llama_config(full | {"head_dim": 8, "vocab_size": 16, "experts": 8})
