"""Datasets equal prepare_dataset.py --stdout token-norm-dist, line for line (format, lengths, seeds, EOS)."""

from __future__ import annotations

import json
import math
import random
from pathlib import Path

import numpy as np
import pytest

from bench.trtllm import dataset
from bench.trtllm.dataset import Params


def reference(p: Params) -> list[str]:
    """TensorRT-LLM's algorithm, transcribed from benchmarks/cpp/utils/utils.py (the slow, obvious way)."""
    np.random.seed(p.seed)
    ilens = [
        max(1, math.ceil(x)) for x in np.random.normal(p.input_mean, p.input_stdev, p.num_requests).tolist()
    ]
    np.random.seed(p.seed)
    olens = [
        max(1, math.ceil(x)) for x in np.random.normal(p.output_mean, p.output_stdev, len(ilens)).tolist()
    ]
    random.seed(p.seed)
    out = []
    for i, k in enumerate(ilens):
        pop = range(0, p.vocab_size)
        ids = random.sample(pop, k) if k < len(pop) else random.choices(pop, k=k)
        while p.eos_id is not None and {p.eos_id}.issubset(ids):
            ids = [(p.eos_id + 1) % p.vocab_size if t == p.eos_id else t for t in ids]
        d = {"task_id": i, "input_ids": ids, "output_tokens": olens[i]}
        out.append(json.dumps(d, separators=(",", ":"), ensure_ascii=False) + "\n")
    return out


@pytest.mark.parametrize(
    "p",
    [
        Params(500, 128, 0, 128, 0, 128000, 128009),  # Llama 3 tokenizer: EOS outside the base vocabulary
        Params(300, 128, 30, 256, 40, 2000, 7),  # small vocabulary: EOS drawn, replaced
        Params(60, 700, 300, 20, 5, 1000, 999),  # isl around the vocabulary: choices, and EOS wraps to 0
        Params(30, 3000, 0, 5, 0, 2500, 3),  # isl > vocab: random.choices for every request
        Params(6, 40000, 100, 10, 0, 128000, 1),  # long isl: random.sample's pool branch
        Params(200, 1, 0, 1, 0, 32000, 2, seed=7),  # another seed; one-token prompts
    ],
    ids=["llama3", "small-vocab", "choices-eos-wrap", "all-choices", "pool-branch", "seed7"],
)
def test_lines_equal_prepare_dataset_for_every_branch(p: Params) -> None:
    assert list(dataset.lines(p)) == reference(p)


def test_lengths_follow_numpy_normal_rounded_up_and_at_least_one() -> None:
    lens = dataset.norm_lengths(128, 64, 20000, 420)
    assert min(lens) >= 1 and abs(np.mean(lens) - 128.5) < 2 and abs(np.std(lens) - 64) < 2
    np.random.seed(420)
    assert lens[:5] == [max(1, math.ceil(x)) for x in np.random.normal(128, 64, 5)]


def test_eos_never_appears_and_replacement_is_next_id(tmp_path: Path) -> None:
    p = Params(400, 64, 0, 16, 0, 300, 299)
    rows = [json.loads(line) for line in dataset.lines(p)]
    assert all(299 not in r["input_ids"] for r in rows)
    assert any(0 in r["input_ids"] for r in rows)  # (299 + 1) % 300
    assert [r["task_id"] for r in rows] == list(range(400))
    assert list(rows[0]) == ["task_id", "input_ids", "output_tokens"]


def test_write_caches_by_parameters_and_rewrites_when_they_change(tmp_path: Path) -> None:
    path = tmp_path / "d" / "ds.jsonl"
    p = Params(50, 16, 0, 8, 0, 1000, 2)
    dataset.write(p, path)
    first = path.stat().st_mtime_ns
    dataset.write(p, path)
    assert path.stat().st_mtime_ns == first
    other = Params(50, 16, 0, 8, 0, 1000, 3, seed=1)
    dataset.write(other, path)
    assert path.read_text() == "".join(dataset.lines(other))
    assert path.read_text().count("\n") == 50 and not list(path.parent.glob(".*tmp"))


def _checkpoint(tmp: Path, with_tokenizer: bool) -> Path:
    d = tmp / "ckpt"
    d.mkdir()
    (d / "config.json").write_text(json.dumps({"vocab_size": 1024, "eos_token_id": [1001, 1009]}))
    if with_tokenizer:
        vocab = {f"t{i}": i for i in range(1000)}
        added = [{"id": 1000 + i, "content": f"<|s{i}|>"} for i in range(24)]
        (d / "tokenizer.json").write_text(json.dumps({"model": {"vocab": vocab}, "added_tokens": added}))
        (d / "tokenizer_config.json").write_text(json.dumps({"eos_token": "<|s9|>"}))
    return d


def test_tokenizer_facts_use_the_base_vocabulary_like_tokenizer_vocab_size(tmp_path: Path) -> None:
    facts = dataset.tokenizer_facts("org/m", str(_checkpoint(tmp_path, True)))
    assert (facts.vocab_size, facts.eos_id) == (1000, 1009)


def test_tokenizer_facts_fall_back_to_config_json(tmp_path: Path) -> None:
    facts = dataset.tokenizer_facts("org/m", str(_checkpoint(tmp_path, False)))
    assert (facts.vocab_size, facts.eos_id) == (1024, 1001)


def test_missing_checkpoint_is_a_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path))
    with pytest.raises(dataset.UserError, match=r"dataset\.vocab_size and dataset\.eos_id"):
        dataset.tokenizer_facts("org/absent", None)
