"""Synthetic trtllm-bench datasets, byte-identical to ``prepare_dataset.py --stdout token-norm-dist``.

Without a TensorRT-LLM checkout: lengths come from ``np.random.seed(seed); np.random.normal(mean, stdev, n)``
rounded up (at least 1), input and output each with the seed reset; token ids from Python's
``random.seed(seed)`` then, per request, ``random.sample(range(vocab), isl)`` (``random.choices`` when
isl >= vocab) with every EOS id replaced by ``(eos + 1) % vocab``; one compact JSON object per line
(``task_id``, ``input_ids``, ``output_tokens``). See benchmarks/cpp/utils/utils.py in TensorRT-LLM.

Speed: Python's ``random.sample`` costs ~0.5 us a draw (30,000 x 128 tokens would take seconds), so the
common case runs on the SAME Mersenne Twister stream through numpy: the generator state is copied from
``random.Random(seed)`` into ``numpy.random.MT19937`` and ``_randbelow``'s rejection sampling and
``sample``'s duplicate rejection are replayed on the raw 32-bit words. Requests that use another branch of
``random.sample`` (the pool method) or ``random.choices`` run through Python's own ``random`` from the
same state, so the output is identical in every case. Files are cached by their parameters (a sidecar
``.meta.json``) and written to a temporary file, then renamed.
"""

from __future__ import annotations

import json
import math
import os
import random
import tempfile
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from bench.errors import UserError

MtState = tuple[np.ndarray, int]


@dataclass(frozen=True)
class Params:
    """Everything that determines a token-norm-dist file."""

    num_requests: int
    input_mean: int
    input_stdev: int
    output_mean: int
    output_stdev: int
    vocab_size: int
    eos_id: int | None
    seed: int = 420


def norm_lengths(mean: int, stdev: int, n: int, seed: int) -> list[int]:
    """``get_norm_dist_lengths``: np.random.seed(seed), normal(mean, stdev, n), ceil, at least 1."""
    values = np.random.RandomState(seed).normal(loc=mean, scale=stdev, size=n).tolist()
    return [max(1, math.ceil(x)) for x in values]


def _set_method(k: int, n: int) -> bool:
    """True when ``random.sample(range(n), k)`` uses its set-based branch (CPython Lib/random.py)."""
    setsize = 21
    if k > 5:
        setsize += 4 ** math.ceil(math.log(k * 3, 4))
    return k < n and n > setsize


def _py_state(seed: int) -> MtState:
    st = random.Random(seed).getstate()[1]
    return np.array(st[:624], dtype=np.uint32), st[624]


def _bitgen(state: MtState) -> np.random.MT19937:
    bg = np.random.MT19937()
    bg.state = {"bit_generator": "MT19937", "state": {"key": state[0].copy(), "pos": state[1]}}
    return bg


def _state_after(state: MtState, words: int) -> MtState:
    bg = _bitgen(state)
    if words:
        bg.random_raw(words)
    s = bg.state["state"]
    return np.asarray(s["key"], dtype=np.uint32), int(s["pos"])


def _python_request(state: MtState, k: int, vocab: int) -> tuple[list[int], MtState]:
    """One request through Python's own random (the pool branch of sample, or choices)."""
    rng = random.Random()
    rng.setstate((3, (*state[0].tolist(), state[1]), None))
    population = range(vocab)
    ids = rng.sample(population, k) if k < vocab else rng.choices(population, k=k)
    st = rng.getstate()[1]
    return ids, (np.array(st[:624], dtype=np.uint32), st[624])


class _Stream:
    """Candidates of ``_randbelow(vocab)`` read off raw MT words; grows on demand, counts words used."""

    def __init__(self, state: MtState, vocab: int, expected_draws: int) -> None:
        self._start, self._bg, self._vocab = state, _bitgen(state), vocab
        self._shift = 32 - vocab.bit_length()
        self._words = 0  # raw words generated so far
        self._vals = np.empty(0, dtype=np.int64)  # accepted candidates (value < vocab)
        self._word_of = np.empty(0, dtype=np.int64)  # index of the raw word behind each candidate
        self._grow(int(expected_draws * (1 << vocab.bit_length()) / vocab * 1.02) + 1024)

    def _grow(self, words: int) -> None:
        raw = (self._bg.random_raw(words) >> self._shift).astype(np.int64)
        keep = np.flatnonzero(raw < self._vocab)
        self._vals = np.concatenate([self._vals, raw[keep]])
        self._word_of = np.concatenate([self._word_of, keep + self._words])
        self._words += words

    def take(self, q: int, k: int) -> tuple[list[int], int]:
        """k distinct values starting at candidate q (duplicates rejected, as sample does); new q."""
        while q + k > len(self._vals):
            self._grow(max(k * 2, 4096))
        window = self._vals[q : q + k].tolist()
        if len(set(window)) == k:
            return window, q + k
        chosen: list[int] = []
        seen: set[int] = set()
        while len(chosen) < k:
            if q >= len(self._vals):
                self._grow(max(k * 2, 4096))
            v = int(self._vals[q])
            q += 1
            if v not in seen:
                seen.add(v)
                chosen.append(v)
        return chosen, q

    def state_after(self, q: int) -> MtState:
        """Generator state once candidates [0, q) were consumed."""
        used = int(self._word_of[q - 1]) + 1 if q else 0
        return _state_after(self._start, used)


def random_tokens(lengths: list[int], vocab: int, eos_id: int | None, seed: int) -> Iterator[list[int]]:
    """``gen_random_tokens``: one id list per length, same stream and EOS rule as prepare_dataset."""
    state = _py_state(seed)
    i = 0
    while i < len(lengths):
        j = i
        while j < len(lengths) and _set_method(lengths[j], vocab):
            j += 1
        if j > i:  # a run of set-method requests: replay on the numpy stream
            stream, q = _Stream(state, vocab, sum(lengths[i:j])), 0
            for k in lengths[i:j]:
                ids, q = stream.take(q, k)
                yield _avoid_eos(ids, vocab, eos_id)
            state, i = stream.state_after(q), j
            continue
        ids, state = _python_request(state, lengths[i], vocab)
        yield _avoid_eos(ids, vocab, eos_id)
        i += 1


def _avoid_eos(ids: list[int], vocab: int, eos_id: int | None) -> list[int]:
    if eos_id is None or eos_id not in ids:
        return ids
    repl = (eos_id + 1) % vocab
    return [repl if t == eos_id else t for t in ids]


def lines(p: Params) -> Iterator[str]:
    """The dataset's JSON lines (with newline), exactly as ``print(json.dumps(d, separators=(',', ':')))``."""
    ilens = norm_lengths(p.input_mean, p.input_stdev, p.num_requests, p.seed)
    olens = norm_lengths(p.output_mean, p.output_stdev, len(ilens), p.seed)
    text = [str(t) for t in range(p.vocab_size)].__getitem__  # a table lookup beats str() per token
    for i, ids in enumerate(random_tokens(ilens, p.vocab_size, p.eos_id, p.seed)):
        yield f'{{"task_id":{i},"input_ids":[{",".join(map(text, ids))}],"output_tokens":{olens[i]}}}\n'


def write(p: Params, path: Path) -> Path:
    """Write the dataset unless an identical one (same parameters) is already there; return the path."""
    meta = path.with_name(path.name + ".meta.json")
    want = json.dumps(asdict(p), sort_keys=True)
    if path.exists() and meta.exists() and meta.read_text(encoding="utf-8") == want:
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n", buffering=1 << 20) as f:
            f.writelines(lines(p))
        os.chmod(tmp, 0o644)  # mkstemp creates 0600; the file is shared with the benchmark's ranks
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    meta.write_text(want, encoding="utf-8")
    return path


# --- vocabulary and EOS of a checkpoint ---------------------------------------------------------------


@dataclass(frozen=True)
class TokenizerFacts:
    vocab_size: int
    eos_id: int | None
    source: str  # which file each came from, for provenance


def tokenizer_facts(model_id: str, model_path: str | None) -> TokenizerFacts:
    """Vocabulary size and EOS id as prepare_dataset sees them (``tokenizer.vocab_size``, EOS token id).

    A Hugging Face fast tokenizer's ``vocab_size`` is its base vocabulary (``tokenizer.json`` model.vocab,
    without added special tokens): for Llama 3 that is 128000, while config.json says 128256. We read
    tokenizer.json when present and fall back to config.json (``vocab_size``, ``eos_token_id``).
    """
    folder = _checkpoint_dir(model_id, model_path)
    if folder is None:
        raise UserError(
            f"model {model_id}: no local checkpoint found (model.path or the Hugging Face cache); set "
            "model.path, or dataset.vocab_size and dataset.eos_id in the sweep file"
        )
    tok = _read_json(folder / "tokenizer.json")
    cfg = _read_json(folder / "config.json")
    tcfg = _read_json(folder / "tokenizer_config.json")
    vocab = tok.get("model", {}).get("vocab") if tok else None
    if vocab:
        eos = _eos_from_tokenizer(tok, tcfg)
        if eos is None:
            eos = _eos_from_config(cfg)
        return TokenizerFacts(len(vocab), eos, str(folder / "tokenizer.json"))
    if cfg and isinstance(cfg.get("vocab_size"), int):
        return TokenizerFacts(cfg["vocab_size"], _eos_from_config(cfg), str(folder / "config.json"))
    raise UserError(f"{folder}: neither tokenizer.json nor config.json gives a vocabulary size")


def _checkpoint_dir(model_id: str, model_path: str | None) -> Path | None:
    if model_path and Path(model_path).is_dir():
        return Path(model_path)
    hub = Path(
        os.environ.get("HF_HUB_CACHE") or Path(os.environ.get("HF_HOME", "~/.cache/huggingface")) / "hub"
    )
    snaps = hub.expanduser() / f"models--{model_id.replace('/', '--')}" / "snapshots"
    found = sorted(snaps.glob("*/config.json")) if snaps.is_dir() else []
    return found[-1].parent if found else None


def _read_json(path: Path) -> dict | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _eos_from_tokenizer(tok: dict, tcfg: dict | None) -> int | None:
    eos = (tcfg or {}).get("eos_token")
    if isinstance(eos, dict):
        eos = eos.get("content")
    if not isinstance(eos, str):
        return None
    for added in tok.get("added_tokens", []):
        if added.get("content") == eos:
            return int(added["id"])
    vocab = tok.get("model", {}).get("vocab")
    return vocab.get(eos) if isinstance(vocab, dict) else None


def _eos_from_config(cfg: dict | None) -> int | None:
    eos = (cfg or {}).get("eos_token_id")
    if isinstance(eos, list):
        eos = eos[0] if eos else None
    return eos if isinstance(eos, int) else None
