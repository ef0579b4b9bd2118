"""vLLM and SGLang estimates (issue 28) against their outside authorities.

- For fixed inputs (H200, a dense and an MoE model, each backend), the figures stored in the written
  result files equal what ``aiconfigurator cli estimate --backend vllm|sglang`` prints for the arguments
  the file records (both are run here).
- The file says which engine and which performance-data version: the version AIConfigurator itself calls
  its latest for that system and backend (``get_latest_database_version``), and the engine is vLLM or
  SGLang, never TensorRT-LLM, down to the site database (real DuckDB ingest).
- No published vLLM/SGLang run validates them: the band is unvalidated and its reason says so.
- A backend the installed data lacks for a system is refused with what that system has (AIConfigurator's
  own table: its ``b60`` system ships vLLM data only).

Needs the optional extra (``pip install -e '.[estimate]'``); skipped with that reason otherwise.
"""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest
import yaml

pytest.importorskip("aiconfigurator", reason="needs AIConfigurator: pip install -e '.[estimate]'")

from bench.engines import estimate as est
from bench.engines import estimate_spec
from bench.errors import UserError
from tests.engines.test_estimate_aic import _cli_estimate

SPEC = """\
systems: [H200 SXM 141GB]
models: [meta-llama/Llama-3.1-8B-Instruct, Qwen/Qwen3-30B-A3B]
precisions: [FP8]
parallelism: [{tp: 1}]
workloads: [{isl: 128, osl: 128}]
concurrency: [8]
backends: [vllm, sglang]
"""


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    tmp = tmp_path_factory.mktemp("vllm-sglang")
    spec = tmp / "spec.yaml"
    spec.write_text(SPEC, encoding="utf-8")
    files, skipped = estimate_spec.run_spec(spec, tmp / "out", est.Cache(None), workers=1)
    assert not skipped, skipped
    return files


def test_stored_vllm_and_sglang_estimates_equal_what_aiconfigurators_own_cli_prints(
    written: list[Path],
) -> None:
    """Four fixed inputs: two models x two backends at concurrency 8; the CLI is given exactly the
    settings each file records (backend, performance-data version and quant modes included)."""
    seen = set()
    for path in written:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        for run in data["runs"]:
            settings = run["estimate"]["settings"]
            seen.add((data["model"]["id"], settings["backend_name"]))
            cli = _cli_estimate(settings)
            m = run["metrics"]
            assert round(m["output_tokens_per_s_per_gpu"], 2) == pytest.approx(cli["tokens/s/gpu"], abs=0.011)
            assert round(m["ttft_ms"]["avg"], 3) == pytest.approx(cli["ttft"], abs=0.0011)
            assert round(m["tpot_ms"]["avg"], 3) == pytest.approx(cli["tpot"], abs=0.0011)
    assert {b for _, b in seen} == {"vllm", "sglang"} and len(seen) == 4


def test_the_file_names_the_engine_and_the_data_version_aiconfigurator_calls_latest(
    written: list[Path],
) -> None:
    from aiconfigurator.sdk.perf_database import get_latest_database_version

    engines = {"vllm": "vllm", "sglang": "sglang"}
    for path in written:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        backend = data["runs"][0]["estimate"]["settings"]["backend_name"]
        latest = str(get_latest_database_version(system="h200_sxm", backend=backend))
        assert data["software"]["engine"] == engines[backend]
        assert data["software"]["engine_version"] == latest
        assert "workflow" not in data["software"]  # a TensorRT-LLM field
        estimator = data["submission"]["source"]["estimator"]
        assert estimator["perf_data_versions"] == {f"h200_sxm/{backend}": latest}
        assert path.name.endswith(f"--{backend}.yaml")
        for run in data["runs"]:
            assert run["estimate"]["settings"]["backend_version"] == latest


def test_vllm_and_sglang_estimates_carry_no_band_and_say_why(written: list[Path]) -> None:
    names = {"vllm": "vLLM", "sglang": "SGLang"}
    for path in written:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        for run in data["runs"]:
            backend = run["estimate"]["settings"]["backend_name"]
            band = run["estimate"]["band"]
            assert band["pairs"] == 0 and band["confidence"] == "unvalidated"
            assert band["category"].endswith(f" · {names[backend]}")  # never a TensorRT-LLM category
            assert names[backend] in band["reason"] and "TensorRT-LLM" in band["reason"]


def test_vllm_keeps_16_bit_context_attention_because_its_tables_have_no_fp8_one(
    written: list[Path],
) -> None:
    """What AIConfigurator's vllm tables hold (read from its database), and the mapping recorded."""
    from aiconfigurator.sdk.perf_database import get_database, get_latest_database_version

    version = get_latest_database_version(system="h200_sxm", backend="vllm")
    modes = get_database(system="h200_sxm", backend="vllm", version=version).supported_quant_mode
    assert "fp8" not in modes["context_attention"]
    for path in written:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        for run in data["runs"]:
            e = run["estimate"]
            if e["settings"]["backend_name"] == "vllm":
                assert e["settings"]["fmha_quant_mode"] == "bfloat16" and "fmha" in e["mapping"]
            else:  # SGLang's tables have fp8 context attention: nothing changed
                assert e["settings"]["fmha_quant_mode"] == "fp8" and "fmha" not in e["mapping"]


def test_the_site_database_shows_vllm_and_sglang_as_their_engines(
    written: list[Path], tmp_path: Path
) -> None:
    """Real DuckDB ingest of the written files: every estimate's engine is its file's backend."""
    from site_gen.data import load

    results = tmp_path / "results" / "modelled"
    results.mkdir(parents=True)
    for p in written:
        (results / p.name).write_text(p.read_text(encoding="utf-8"), encoding="utf-8")
    db = tmp_path / "site.duckdb"
    load.ingest(tmp_path / "results", db)
    with duckdb.connect(str(db), read_only=True) as con:
        engines = con.execute("SELECT engine, count(*) FROM estimates GROUP BY 1 ORDER BY 1").fetchall()
        runs = con.execute("SELECT count(*) FROM runs").fetchone()[0]
    assert engines == [("sglang", 2), ("vllm", 2)]
    assert runs == 0  # estimates never enter the runs


def test_a_backend_the_data_lacks_for_a_system_is_refused_with_what_it_has() -> None:
    """AIConfigurator's own table: its b60 system has vLLM data and nothing else."""
    have = est.supported_systems()
    assert set(have["b60"]) == {"vllm"}
    problems = est.backend_problems(["b60", "h200_sxm"], ["sglang", "vllm"], have)
    assert len(problems) == 1
    assert problems[0].startswith("backend sglang on b60")
    assert all(v in problems[0] for v in have["b60"]["vllm"])


def test_a_spec_with_an_unknown_backend_is_refused_with_the_supported_ones(tmp_path: Path) -> None:
    spec = tmp_path / "bad.yaml"
    spec.write_text(
        "systems: [H200 SXM 141GB]\nmodels: [meta-llama/Llama-3.1-8B-Instruct]\nprecisions: [FP8]\n"
        "workloads: [{isl: 128, osl: 128}]\nbackends: [tensorrt]\n",
        encoding="utf-8",
    )
    with pytest.raises(UserError) as e:
        estimate_spec.run_spec(spec, tmp_path / "out", est.Cache(None), workers=1)
    assert "'tensorrt'" in str(e.value)
    assert all(b in str(e.value) for b in ("trtllm", "vllm", "sglang"))
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("backend", ["vllm", "sglang"])
def test_a_committed_max_throughput_estimate_equals_what_the_cli_prints(backend: str) -> None:
    """The committed grid itself (whatever it holds today): the first run of the first file of each
    backend against AIConfigurator's CLI given the settings that run records."""
    files = sorted((Path(__file__).resolve().parents[2] / "results" / "modelled").rglob(f"*--{backend}.yaml"))
    if not files:
        pytest.skip(f"no committed {backend} estimate")
    data = yaml.safe_load(files[0].read_text(encoding="utf-8"))
    run = data["runs"][0]
    settings = run["estimate"]["settings"]
    if settings["model_path"] in est.BUNDLED.values():  # AIConfigurator's bundled config, by its name
        settings = {**settings, "model_path": str(est.bundled_model_dir(settings["model_path"]))}
    assert settings["backend_name"] == backend
    cli = _cli_estimate(settings)
    m = run["metrics"]
    assert round(m["output_tokens_per_s_per_gpu"], 2) == pytest.approx(cli["tokens/s/gpu"], abs=0.011)
    assert round(m["ttft_ms"]["avg"], 3) == pytest.approx(cli["ttft"], abs=0.0011)
    assert round(m["tpot_ms"]["avg"], 3) == pytest.approx(cli["tpot"], abs=0.0011)
