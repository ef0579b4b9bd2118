"""Dataset files: the same JSON lines as prepare_dataset.py --stdout, and clear errors for bad lines."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.engines import workload
from bench.trtllm import dataset


def test_generator_writes_the_same_file_as_the_bench_dataset_module(tmp_path: Path) -> None:
    # bench/trtllm/dataset.py is pinned to prepare_dataset.py by its own tests; workload's requests and
    # lines must
    # make the very file it writes
    ours = "\n".join(workload.lines(workload.token_norm_dist(20, 24, 8, 1000, 3, 2, eos_id=5)))
    p = dataset.Params(20, 24, 3, 8, 2, vocab_size=1000, eos_id=5, seed=420)
    assert ours + "\n" == "".join(dataset.lines(p))


def test_read_accepts_the_logits_alias_and_caps_requests(tmp_path: Path) -> None:
    f = tmp_path / "d.jsonl"
    f.write_text(
        '{"task_id":0,"logits":[1,2],"output_tokens":3}\n\n{"task_id":1,"input_ids":[4],"output_tokens":1}\n'
    )
    assert workload.read(f) == [workload.Request(0, (1, 2), 3), workload.Request(1, (4,), 1)]
    assert len(workload.read(f, limit=1)) == 1


@pytest.mark.parametrize(
    ("line", "message"),
    [
        (
            '{"task_id":0,"prompt":"hi","output_tokens":3}',
            "input_ids: expected a list of token ids, got a text prompt",
        ),
        ('{"task_id":0,"input_ids":[1],"output_tokens":0}', "output_tokens: expected an integer >= 1, got 0"),
        ('{"task_id":0,"input_ids":[1, 5000],"output_tokens":2}', "expected ids < vocab size 1024, got 5000"),
        ("not json", "expected a JSON object, got invalid JSON"),
    ],
)
def test_bad_lines_name_file_line_and_field(tmp_path: Path, line: str, message: str) -> None:
    f = tmp_path / "d.jsonl"
    f.write_text('{"task_id":9,"input_ids":[1],"output_tokens":1}\n' + line + "\n")
    with pytest.raises(workload.DatasetError, match=r"d\.jsonl:2: ") as e:
        workload.read(f, vocab_size=1024)
    assert message in str(e.value)
