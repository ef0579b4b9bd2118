"""The data-quality gate (bench/contract/quality.py): figures above physical sense are refused by validate
and ingest alike, with file:line: field; runs far from their neighbours across releases are listed.

The limits come from the bound, whose own figures are checked by hand in tests/guide/test_bound.py; the
hand calculations here are for the cases this gate adds (a GPU without a tensor-core figure).
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
import yaml

from bench.cli import app
from bench.contract import bound, quality, registry
from bench.errors import ProblemsError
from site_gen.data.load import ingest

ROOT = Path(__file__).resolve().parents[2]


def _file(
    gpu: str = "L40S",
    model: str = "meta-llama/Llama-3.1-8B-Instruct",
    precision: str = "FP8",
    version: str = "1.2.0",
    metrics: dict | None = None,
    notes: str | None = None,
    workload: dict | None = None,
    tp: int = 1,
) -> str:
    run: dict = {
        "parallelism": {"tp": tp},
        "workload": workload or {"isl": 128, "osl": 128, "num_requests": 1000},
        "metrics": metrics or {"output_tokens_per_s": 1000.0},
    }
    if notes:
        run["notes"] = notes
    data = {
        "schema_version": 1,
        "submission": {
            "submitter": "Test",
            "system": "Test box",
            "date": "2026-04-20",
            "source": {"kind": "published", "publisher": "TestLab", "title": f"Test table {version}"},
        },
        "hardware": {"gpu": gpu},
        "software": {
            "engine": "tensorrt-llm",
            "engine_version": version,
            "workflow": "pytorch",
            "benchmark_tool": "trtllm-bench",
        },
        "model": {"id": model, "weight_precision": precision},
        "runs": [run],
    }
    return yaml.safe_dump(data, sort_keys=False)


def _bound(gpu: str, model: str, precision: str, isl: int = 128, osl: int = 128, n: int = 1, **kw) -> float:
    g = registry.gpus().get(gpu)
    config = {
        "gpu": g.name, "model": registry.models().get(model).id, "precision": precision,
        "kv_cache_dtype": None, "isl": isl, "osl": osl, "n_gpus": n,
        "concurrency": kw.get("concurrency"), "num_requests": kw.get("num_requests", 1000),
    }  # fmt: skip
    b = bound.bound_for_config(config, {g.name: g}, {config["model"]: registry.models().get(model)})
    assert b is not None
    return b.output_tps


def _validate(runner, folder: Path):
    return runner.invoke(app, ["validate", str(folder), "--results", str(folder)])


def _both_refuse(runner, folder: Path, tmp_path: Path, pattern: str) -> None:
    """validate exits 1 naming file:line: field, and ingest refuses the same, leaving no database."""
    out = _validate(runner, folder)
    assert out.exit_code == 1, out.output
    assert re.search(pattern, out.output), out.output
    db = tmp_path / "x.duckdb"
    with pytest.raises(ProblemsError) as e:
        ingest(folder, db)
    assert re.search(pattern, "\n".join(map(str, e.value.problems)))
    assert not db.exists()


def test_a_run_above_its_bound_is_refused_unless_it_carries_an_erratum(runner, tmp_path: Path) -> None:
    # issue 31: 9.3 M tok/s on an L40S passed validate (38,000 % of its bound)
    folder = tmp_path / "results"
    folder.mkdir()
    limit = _bound("L40S", "Llama 3.1 8B", "FP8")
    (folder / "a.yaml").write_text(_file(metrics={"output_tokens_per_s": 9.3e6}), encoding="utf-8")
    pct = f"{100 * 9.3e6 / limit:,.0f} %"
    _both_refuse(
        runner, folder, tmp_path,
        rf"a\.yaml:\d+: runs\.0\.metrics\.output_tokens_per_s: expected at most the speed-of-light bound"
        rf" of this run, {limit:,.2f} output tok/s .*got 9\.3e\+06 \({pct} of it\); .*Erratum: ",
    )  # fmt: skip
    # just below the bound passes; above it with the evidence in an erratum note passes too
    (folder / "a.yaml").write_text(_file(metrics={"output_tokens_per_s": 0.99 * limit}), encoding="utf-8")
    assert _validate(runner, folder).exit_code == 0
    note = "Erratum: the source's figure is a typo (evidence here)."
    (folder / "a.yaml").write_text(
        _file(metrics={"output_tokens_per_s": 9.3e6}, notes=note), encoding="utf-8"
    )
    assert _validate(runner, folder).exit_code == 0
    ingest(folder, tmp_path / "ok.duckdb")


def test_a_per_gpu_figure_is_checked_over_all_the_runs_gpus(runner, tmp_path: Path) -> None:
    folder = tmp_path / "results"
    folder.mkdir()
    limit = _bound("H200", "Llama 3.1 70B", "FP8", n=4)
    per_gpu = 0.3 * limit  # x 4 GPUs = 120 % of the 4-GPU bound
    text = _file("H200", "Llama 3.1 70B", metrics={"output_tokens_per_s_per_gpu": per_gpu}, tp=4)
    (folder / "a.yaml").write_text(text, encoding="utf-8")
    _both_refuse(
        runner, folder, tmp_path, r"runs\.0\.metrics\.output_tokens_per_s_per_gpu: .* x 4 GPUs \(120 %"
    )


def test_a_gpu_without_a_tensor_figure_is_checked_against_its_bandwidth() -> None:
    """Jetson AGX Orin 64GB has no dense tensor TFLOP/s in gpus.yaml: the ceiling takes compute as free.

    By hand, Llama 3.1 8B FP16 at concurrency 1, 128/128 on 204.8 GB/s: each of the 127 decode steps reads
    the 8.03e9 parameters less the 128,256 x 4,096 embedding table (a lookup), 2 bytes each, and the KV
    cache of positions 129..255 (2 x 8 KV heads x 128 x 2 B per layer and position, 32 layers).
    """
    orin = registry.gpus().get("Jetson AGX Orin 64GB")
    assert bound.peak_tflops(orin.tflops_dense, "FP16") is None
    weights = 2 * (8.03e9 - 128_256 * 4_096)
    kv = 32 * (255 * 256 / 2 - 128 * 129 / 2) * 2 * 8 * 128 * 2
    want = 128 / ((127 * weights + kv) / 204.8e9)  # 13.8 tok/s
    got = quality.ceiling(orin.name, "meta-llama/Llama-3.1-8B-Instruct", "FP16", None, 128, 128, 1, 1, None)
    assert got == pytest.approx(want, rel=1e-9)


def test_per_user_figures_above_physical_sense_are_refused(runner, tmp_path: Path) -> None:
    folder = tmp_path / "results"
    folder.mkdir()
    f = folder / "a.yaml"
    # #24 item 8: a per-user figure of 1e308 stretched the Pareto axes to 10^308; the bound is one user's
    # ceiling too, with an all-GPU figure or without
    f.write_text(_file(metrics={"output_tokens_per_s": 1000.0, "output_tokens_per_s_per_user": 1e308}))
    _both_refuse(runner, f.parent, tmp_path, r"a\.yaml:\d+: runs\.0\.metrics\.output_tokens_per_s_per_user: "
                 r"expected at most the speed-of-light bound of this run")  # fmt: skip
    f.write_text(_file(metrics={"output_tokens_per_s_per_user": 1e308}))
    _both_refuse(
        runner, f.parent, tmp_path, r"output_tokens_per_s_per_user: expected at most the speed-of-light"
    )
    # the mean of per-request rates may exceed the pooled rate a little (NVIDIA's DeepSeek R1 blog run)
    f.write_text(_file(metrics={"output_tokens_per_s": 274.4168, "output_tokens_per_s_per_user": 274.7188}))
    assert _validate(runner, folder).exit_code == 0
    f.write_text(_file(metrics={"output_tokens_per_s": 1000.0, "total_tokens_per_s": 900.0}))
    _both_refuse(runner, f.parent, tmp_path, r"total_tokens_per_s: expected at least output_tokens_per_s")


def test_a_per_user_rate_above_all_users_is_listed_not_refused(runner, tmp_path: Path) -> None:
    """A mean of per-request rates exceeds the pooled rate by any factor when latencies differ: two requests
    of 128 tokens at concurrency 1, one in 1.5 s and one stalled for 30 s, give (85.33 + 4.27) / 2 = 44.80
    tok/s per user and 256 / 31.5 = 8.13 tok/s in all (5.5x). The run is kept; validate lists it."""
    folder = tmp_path / "results"
    folder.mkdir()
    user, pooled = (128 / 1.5 + 128 / 30) / 2, 256 / 31.5
    assert user / pooled == pytest.approx(5.51, abs=0.005)
    limit = quality.ceiling("L40S", "meta-llama/Llama-3.1-8B-Instruct", "FP8", None, 128, 128, 1, 1, 2)
    assert limit is not None and user < limit  # physically possible: below the run's bound
    workload = {"isl": 128, "osl": 128, "num_requests": 2, "concurrency": 1}
    metrics = {"output_tokens_per_s": round(pooled, 4), "output_tokens_per_s_per_user": round(user, 4)}
    (folder / "a.yaml").write_text(_file(metrics=metrics, workload=workload))
    out = _validate(runner, folder)
    assert out.exit_code == 0, out.output
    (warned,) = [line for line in out.output.splitlines() if "warning:" in line]
    assert re.match(r"a\.yaml:\d+: runs\.0\.metrics: warning: expected a per-user rate at most 1\.1x the"
                    r" all-GPU output rate 8\.13 tok/s .*, got 44\.80 \(5\.5x\)", warned), warned  # fmt: skip
    assert ingest(folder, tmp_path / "x.duckdb").runs == 1
    # within the slack (NVIDIA's DeepSeek R1 blog run above), or with an erratum: nothing listed
    metrics["output_tokens_per_s_per_user"] = round(pooled * 1.09, 4)
    (folder / "a.yaml").write_text(_file(metrics=metrics, workload=workload))
    assert "warning" not in _validate(runner, folder).output
    metrics["output_tokens_per_s_per_user"] = round(user, 4)
    notes = f"{quality.ERRATUM_MARKER}the per-user column is all users' (test)"
    (folder / "a.yaml").write_text(_file(metrics=metrics, workload=workload, notes=notes))
    assert "warning" not in _validate(runner, folder).output


def test_a_batch_of_one_is_bounded_by_at_most_the_runs_bound() -> None:
    """The per-user ceiling rests on this: one request alone is bounded by the bound at batch 1, which is
    at most the bound of any batch (a step over a batch of B reads the weights once and computes B times
    what one request does, so its time is at most B times one request's). Every registry GPU and model,
    three shapes, concurrency 1 against 2 to 512."""
    shapes = [(128, 128), (2048, 128), (128, 2048)]
    checked = 0
    for g in registry.gpus().entries:
        for m in registry.models().entries:
            for isl, osl in shapes:
                one = quality.ceiling(g.name, m.id, "FP16", None, isl, osl, 1, 1, None)
                if one is None:
                    continue
                for c in (2, 8, 64, 512):
                    many = quality.ceiling(g.name, m.id, "FP16", None, isl, osl, 1, c, None)
                    assert many is not None and many >= one * (1 - 1e-12), (g.name, m.id, isl, osl, c)
                    checked += 1
    assert checked > 100


def test_a_number_beyond_a_double_is_refused_with_a_clear_message(runner, tmp_path: Path) -> None:
    # 1.8e308 overflows a double: YAML reads it as infinity (issue 24 item 8)
    folder = tmp_path / "results"
    folder.mkdir()
    text = _file(metrics={"output_tokens_per_s": 1000.0}).replace("1000.0", "1.8e308")
    (folder / "a.yaml").write_text(text, encoding="utf-8")
    _both_refuse(
        runner, folder, tmp_path,
        r"a\.yaml:\d+: runs\.0\.metrics\.output_tokens_per_s: expected a finite number, got float inf"
        r" \(YAML's \.inf, or a number beyond ±1\.8e308, the largest a double holds\)",
    )  # fmt: skip


def _history(folder: Path, values: dict[str, float], erratum_at: str | None = None) -> None:
    for version, v in values.items():
        notes = "Erratum: known typo" if version == erratum_at else None
        text = _file("H100", "Llama 3.1 8B", version=version, metrics={"output_tokens_per_s": v}, notes=notes)
        (folder / f"r{version}.yaml").write_text(text, encoding="utf-8")


def test_a_run_far_from_its_neighbours_is_listed_but_not_refused(runner, tmp_path: Path) -> None:
    folder = tmp_path / "results"
    folder.mkdir()
    # five releases of one configuration, 1.0.0's a tenth of the others: it alone is listed, with them
    _history(folder, {"0.20.0": 5000, "0.21.0": 5200, "1.0.0": 510, "1.1.0": 5100, "1.2.0": 5300})
    out = _validate(runner, folder)
    assert out.exit_code == 0, out.output
    warned = [line for line in out.output.splitlines() if "warning:" in line]
    assert len(warned) == 1, out.output
    assert re.match(r"r1\.0\.0\.yaml:\d+: runs\.0\.metrics: warning: expected within 3x", warned[0])
    for v in ("0.20.0", "0.21.0", "1.1.0", "1.2.0"):
        assert f"({v}: r{v}.yaml runs.0)" in warned[0]
    assert "1 warning(s)" in out.output
    # a step that stays (a regression carried into the next releases) is listed where it starts and ends,
    # not at every release after it
    shutil.rmtree(folder)
    folder.mkdir()
    _history(folder, {"0.20.0": 5000, "0.21.0": 5100, "1.0.0": 1000, "1.1.0": 1050, "1.2.0": 990})
    out = _validate(runner, folder)
    assert out.exit_code == 0
    listed = {line.split(":")[0] for line in out.output.splitlines() if "warning:" in line}
    assert listed <= {"r0.21.0.yaml", "r1.0.0.yaml"}, out.output  # the two releases the step is between
    # a figure with an erratum is neither listed nor a neighbour
    shutil.rmtree(folder)
    folder.mkdir()
    _history(folder, {"0.20.0": 5000, "0.21.0": 5200, "1.0.0": 510, "1.1.0": 5100}, erratum_at="1.0.0")
    assert "warning" not in _validate(runner, folder).output


def test_the_l40s_gpt_j_erratum_is_what_the_neighbour_rule_finds(runner, tmp_path: Path) -> None:
    """errata.yaml: L40S GPT-J 6B FP8 2048/128, release 0.11.0. Without its erratum note the committed
    figure is listed against 0.10.0, 0.12.0 and 0.13.0; with it, the releases around it are not listed."""
    folder = tmp_path / "results"
    files = sorted((ROOT / "results" / "nvidia").glob("trtllm-0.1[0-3].0/l40s--gpt-j-6b--fp8.yaml"))
    assert len(files) == 4
    for f in files:
        (folder / f.parent.name).mkdir(parents=True)
        shutil.copy(f, folder / f.parent.name / f.name)
    assert "warning" not in _validate(runner, folder).output
    target = folder / "trtllm-0.11.0" / "l40s--gpt-j-6b--fp8.yaml"
    text = target.read_text(encoding="utf-8")
    data = yaml.safe_load(text)
    [i] = [k for k, r in enumerate(data["runs"]) if "Erratum: " in (r.get("notes") or "")]
    run = data["runs"][i]
    assert (run["workload"]["isl"], run["workload"]["osl"]) == (2048, 128)
    run["notes"] = run["notes"].split(" | Erratum: ")[0]
    target.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    out = _validate(runner, folder)
    assert out.exit_code == 0
    warned = [line for line in out.output.splitlines() if "warning:" in line]
    assert [w.split(":")[0] for w in warned] == ["trtllm-0.11.0/l40s--gpt-j-6b--fp8.yaml"], out.output
    assert f"runs.{i}.metrics" in warned[0]
    assert all(f"({v}: " in warned[0] for v in ("0.10.0", "0.12.0", "0.13.0"))


def test_ceiling_cache_holds_a_million_run_set() -> None:
    """``make perf-1m``'s 1M runs come in name order, each release repeating the last one's configurations
    some 88,000 checks later: an LRU smaller than that misses every time (4,096 did). The cache must hold
    them all, and a cached answer is the computed one."""
    import itertools

    from tests.perf.bench_scale import PER_FILE, RELEASES, _combos, gpus16
    from tests.perf.bench_site import WORKLOADS

    configs = [(tp, pp, isl, osl) for tp in (1, 2, 4, 8) for pp in (1, 2) for isl, osl in WORKLOADS]
    shapes = {(tp * pp, isl, osl) for tp, pp, isl, osl in configs[:PER_FILE]}  # as fast_results writes
    files = list(itertools.islice(_combos(RELEASES, gpus16()), 1_000_000 // PER_FILE))
    keys = {(gpu, model, precision, *shape) for _, precision, model, gpu in files for shape in shapes}
    assert len(keys) > 4096  # the set that thrashed the old cache
    assert len(keys) <= quality.ceiling.cache_info().maxsize
    for gpu, model, precision, n, isl, osl in sorted(keys)[:: len(keys) // 50]:
        args = (gpu, model, precision, None, isl, osl, n, None, 1000)
        assert quality.ceiling(*args) == quality.ceiling.__wrapped__(*args)
