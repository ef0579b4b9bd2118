"""A sweep file becomes the cartesian product of its lists minus what cannot run; bad files name the key."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.sweep import spec as sweep
from tests.sweep.helpers import plan, write_sweep

EXAMPLES = Path(__file__).resolve().parents[2] / "bench" / "examples"


def test_product_of_all_lists_is_the_job_list(tmp_path: Path) -> None:
    p = plan(
        tmp_path,
        {
            "parallelism": {"tp": [1, 2], "pp": [1, 2]},
            "workloads": [
                {"isl": 128, "osl": 128, "num_requests": 10},
                {"isl": 128, "osl": 2048, "num_requests": 5},
            ],
            "settings": {"max_batch_size": [256, 2048], "max_num_tokens": [8192]},
            "concurrency": [None, 64],
            "streaming": [False, True],
        },
    )
    assert len(p.jobs) == 2 * 2 * 2 * 2 * 2 * 2 and not p.skipped
    assert [j.index for j in p.jobs] == list(range(len(p.jobs)))
    assert len({j.id for j in p.jobs}) == len(p.jobs)


def test_job_ids_are_stable_across_loads(tmp_path: Path) -> None:
    a = plan(tmp_path, {"parallelism": {"tp": [1, 2]}})
    b = plan(tmp_path, {"parallelism": {"tp": [1, 2]}})
    assert [j.id for j in a.jobs] == [j.id for j in b.jobs]


def test_parallelism_beyond_the_gpus_available_is_skipped_with_its_reason(tmp_path: Path) -> None:
    p = plan(tmp_path, {"parallelism": {"tp": [1, 8, 16]}, "cluster": {"gpus_per_node": 8, "nodes": 1}})
    assert [j.tp for j in p.jobs] == [1, 8]
    assert len(p.skipped) == 1 and "16 GPUs, more than the 8 available" in p.skipped[0].reason


def test_multi_node_parallelism_needs_a_multi_node_launcher(tmp_path: Path) -> None:
    over = {"parallelism": {"tp": [16]}, "cluster": {"gpus_per_node": 8, "nodes": 2}}
    assert "launcher 'local'" in plan(tmp_path, over).skipped[0].reason
    over["cluster"]["launcher"] = "srun"
    job = plan(tmp_path, over).jobs[0]
    assert job.nodes == 2


def test_options_the_version_lacks_are_skipped(tmp_path: Path) -> None:
    p = plan(tmp_path, {"trtllm": {"version": "0.18.1"}, "parallelism": {"tp": [4], "ep": [None, 4]}})
    assert [j.ep for j in p.jobs] == [None]
    # issue #3583: "No such option: --ep" on 0.18.1; the reason cites the click options read
    assert "TensorRT-LLM 0.18.0's throughput has no --ep" in p.skipped[0].reason
    assert "throughput.py@b78a5461" in p.skipped[0].reason
    old = plan(
        tmp_path, {"trtllm": {"version": "0.12.0", "workflow": "legacy-engine"}, "streaming": [False, True]}
    )
    assert [j.streaming for j in old.jobs] == [False] and "--streaming" in old.skipped[0].reason


@pytest.mark.parametrize(
    ("over", "needle"),
    [
        ({"trtllm": {"version": "1.3.0rc26", "workflow": "legacy-engine"}}, "trtllm.workflow: legacy-engine"),
        ({"trtllm": {"version": "1.3.0rc10", "workflow": "legacy-engine"}}, "Not settled for 1.3.0rc10"),
        ({"trtllm": {"version": "0.17.0", "backend": "_autodeploy"}},
         "trtllm.backend: TensorRT-LLM 0.17.0's throughput --backend takes pytorch"),
        ({"trtllm": {"version": "0.14.0", "workflow": "pytorch"}},
         "trtllm.workflow: pytorch needs TensorRT-LLM >= 0.17"),
        ({"trtllm": {"version": "0.14.0", "workflow": "legacy-engine", "extra_llm_api_options": "x.yml"}},
         "trtllm.extra_llm_api_options: TensorRT-LLM 0.14.0 has no"),
        ({"parallelism": {"tp": ["two"]}}, "parallelism.tp.0: expected a valid integer"),
        ({"settings": {"kv_cache_free_gpu_mem_fraction": 1.5}},
         "settings.kv_cache_free_gpu_mem_fraction: expected less than or equal to 1"),
        ({"paralelism": {"tp": [1]}}, "paralelism: unknown key"),
        ({"cluster": {"launcher": "pbs"}}, "cluster.launcher: expected 'local', 'mpirun' or 'srun'"),
        ({"trtllm": {"version": "latest"}}, "trtllm.version: expected a TensorRT-LLM version"),
        ({"engine": "vllm"}, "engine: expected one of trtllm-bench"),
        ({"trtllm": None}, "trtllm: required for engine trtllm-bench"),
    ],
)  # fmt: skip
def test_bad_sweep_file_gets_an_error_naming_the_key(tmp_path: Path, over: dict, needle: str) -> None:
    path = write_sweep(tmp_path, over)
    with pytest.raises(sweep.SweepError) as e:
        sweep.load(path)
    assert needle in str(e.value)
    assert f"{path}:" in str(e.value)


def test_missing_required_key_is_named_with_its_line(tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    path.write_text("name: x\nmodel: {id: m}\ntrtllm: {version: 1.2.0}\n", encoding="utf-8")
    with pytest.raises(sweep.SweepError, match=r"s.yaml:\d: workloads: required key is missing"):
        sweep.load(path)


def test_yaml_syntax_and_duplicate_keys_are_rejected(tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    path.write_text("name: x\nname: y\n", encoding="utf-8")
    with pytest.raises(sweep.SweepError, match=r"s\.yaml"):
        sweep.load(path)


def test_extra_options_path_resolves_against_the_sweep_folder(tmp_path: Path) -> None:
    p = plan(tmp_path, {"trtllm": {"extra_llm_api_options": "llm_options.yml"}})
    assert p.sweep.trtllm.extra_llm_api_options == str(tmp_path / "llm_options.yml")


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.yaml")), ids=lambda p: p.name)
def test_example_sweeps_load_and_expand(path: Path, tmp_path: Path) -> None:
    p = sweep.load_plan(path, out_dir=tmp_path)
    assert p.jobs
