"""bench.importers.tables: the committed results/ are what import-csv makes of the two published CSVs."""

from __future__ import annotations

import csv
import re
from pathlib import Path

import pytest
import yaml_rs

from bench.cli import app
from bench.contract.resultfile import check_file
from bench.errors import UserError
from bench.importers.tables import COLUMNS, METRICS, build, clean_version, errata, read_csv
from tests.contract.conftest import KISTI_CSV, NVIDIA_CSV, ROOT, configurations


@pytest.fixture(scope="module")
def built() -> dict[Path, str]:
    """Both CSVs built into result files in memory (nothing written)."""
    files = build(read_csv(KISTI_CSV), KISTI_CSV.name)
    files.update(build(read_csv(NVIDIA_CSV), NVIDIA_CSV.name))
    return files


def _load(rel: str) -> dict:
    result = check_file(ROOT / "results" / rel).result
    assert result is not None
    return result.model_dump()


def test_committed_results_are_exactly_the_import_of_both_csvs(built: dict[Path, str]) -> None:
    imported = [p for folder in ("kisti", "nvidia") for p in (ROOT / "results" / folder).rglob("*.yaml")]
    committed = {p.relative_to(ROOT / "results") for p in imported}
    assert committed == set(built)
    for rel, text in built.items():
        assert (ROOT / "results" / rel).read_text(encoding="utf-8") == text, rel


def test_every_figure_is_kept_exactly_in_one_run_per_configuration(built: dict[Path, str]) -> None:
    # 4,345 CSV figures (63 KISTI + 4,282 NVIDIA) -> 4,337 runs (63 + 4,274): NVIDIA's DeepSeek-R1 blog
    # gives each of its 4 configurations as 3 rows (total, per GPU, per user), each now one run.
    counts = {}
    for csv_path, folder in ((KISTI_CSV, "kisti"), (NVIDIA_CSV, "nvidia")):
        with csv_path.open(encoding="utf-8") as f:
            rows = list(csv.DictReader(f))
        runs = [r for rel in built if rel.parts[0] == folder for r in _load(str(rel))["runs"]]
        given = [(k, v) for r in runs for k, v in r["metrics"].items() if k.startswith("output_tokens") and v]
        # each figure in exactly one metric field of exactly one run, in the field its row names
        assert sorted(given) == sorted((METRICS[r["metric"]], float(r["value"])) for r in rows)
        assert len(runs) == configurations(csv_path)
        counts[folder] = (len(rows), len(runs))
    assert counts == {"kisti": (63, 63), "nvidia": (4282, 4274)}


def test_rows_differing_only_in_metric_are_one_run(tmp_path: Path, runner) -> None:
    src = tmp_path / "split.csv"
    head = "source_title,gpu,model,precision,tp,isl,osl,trtllm_version,workflow,metric,value"
    row = "T,H200,Llama 3.1 8B,FP8,8,128,128,1.2,pytorch"
    rows = [f"{row},output_tokens_per_sec_total,800", f"{row},output_tokens_per_sec_per_user,7.5"]
    rows.append("T,H200,Llama 3.1 8B,FP8,4,128,128,1.2,pytorch,output_tokens_per_sec_per_gpu,99")
    src.write_text("\n".join([head, *rows]) + "\n", encoding="utf-8")
    out = runner.invoke(app, ["import-csv", str(src), "--results", str(tmp_path / "r")])
    assert out.exit_code == 0, out.output
    assert "1 file(s), 2 run(s) from 3 row(s)" in out.output
    d = check_file(tmp_path / "r/t/trtllm-1.2/h200-sxm-141gb--llama-3.1-8b-instruct--fp8.yaml").result
    assert d is not None
    got = [(r.parallelism.tp, r.metrics.model_dump(exclude_none=True)) for r in d.runs]
    assert got == [
        (8, {"output_tokens_per_s": 800.0, "output_tokens_per_s_per_user": 7.5}),
        (4, {"output_tokens_per_s_per_gpu": 99.0}),
    ]


def test_files_are_grouped_per_release_gpu_model_and_precision(built: dict[Path, str]) -> None:
    assert Path("nvidia/trtllm-1.2/b200-180gb--deepseek-r1-0528--fp4.yaml") in built
    assert Path("kisti/trtllm-1.2.0/h200-sxm-141gb--llama-3.1-8b-instruct--fp8.yaml") in built
    assert len([p for p in built if p.parts[0] == "kisti"]) == 7


def test_labels_map_to_canonical_names_and_are_kept() -> None:
    d = _load("nvidia/trtllm-0.13.0/gh200-96gb--meta-llama-3-70b-instruct--fp8.yaml")
    assert (d["hardware"]["gpu"], d["hardware"]["gpu_label"]) == ("GH200 96GB", "GH200 120GB")
    assert (d["model"]["id"], d["model"]["label"]) == ("meta-llama/Meta-Llama-3-70B-Instruct", "Llama 3 70B")
    d = _load("nvidia/trtllm-1.2/b300-288gb--qwen3-235b-a22b--fp4.yaml")
    assert (d["hardware"]["gpu"], d["hardware"]["gpu_label"]) == ("B300 288GB", "B300 (beta)")


def test_tool_metric_parallelism_and_documented_request_counts() -> None:
    d = _load("nvidia/trtllm-0.10.0/h100-sxm-80gb--llama-2-70b-hf--fp8.yaml")
    assert d["software"]["benchmark_tool"] == "gptManagerBenchmark"
    assert {r["workload"]["num_requests"] for r in d["runs"]} == {2000}
    d = _load("nvidia/trtllm-1.2/b200-180gb--deepseek-r1-0528--fp4.yaml")
    run = next(r for r in d["runs"] if (r["workload"]["isl"], r["workload"]["osl"]) == (1024, 8192))
    assert run["parallelism"] == {"tp": 4, "pp": 1, "ep": 4, "attention_dp": True}
    assert run["metrics"]["output_tokens_per_s_per_gpu"] > 0 and run["metrics"]["output_tokens_per_s"] is None
    assert run["workload"]["num_requests"] == 1500
    assert "filled from NVIDIA's documented request count" in d["submission"]["source"]["notes"]
    assert "an estimate, see bench/data/releases.yaml" in d["submission"]["source"]["notes"]
    d = _load("nvidia/trtllm-0.12.0/gh200-96gb--llama-2-7b-hf--fp8.yaml")
    assert {r["workload"]["num_requests"] for r in d["runs"]} == {None}  # not documented for 0.12


def test_blog_rows_keep_version_label_settings_and_are_one_run_with_three_figures() -> None:
    d = _load("nvidia/trtllm-0.18/b200-180gb--deepseek-r1--fp4.yaml")
    assert d["software"]["engine_version"] == "0.18"
    assert "'0.18/0.19 (early 2025, PyTorch backend)'" in d["submission"]["source"]["notes"]
    assert len(d["runs"]) == 2  # min-latency and max-throughput, 3 CSV rows each
    assert "The CSV gives these 2 runs as 6 rows, one per figure." in d["submission"]["source"]["notes"]
    [dep8] = [r for r in d["runs"] if r["parallelism"]["attention_dp"]]
    figures = {k: v for k, v in dep8["metrics"].items() if v is not None}
    assert figures == {  # exactly as published: 35,611.5942 / 8 GPUs would be 4,451.449275, not this
        "output_tokens_per_s": 35611.5942,
        "output_tokens_per_s_per_gpu": 4451.4493,
        "output_tokens_per_s_per_user": 11.6701,
    }
    assert dep8["engine_settings"]["max_batch_size"] == 384
    assert dep8["workload"]["concurrency"] == 3072 and dep8["workload"]["num_requests"] == 49152


def test_every_erratum_matches_one_row_and_is_a_note_on_its_run_with_the_figure_kept() -> None:
    rows = [r for path in (KISTI_CSV, NVIDIA_CSV) for _, r in read_csv(path)]
    for erratum in errata():
        assert len([r for r in rows if erratum.matches(r)]) == 1, erratum.match
    d = _load("nvidia/trtllm-0.10.0/h100-sxm-80gb--gpt-j-6b--fp8.yaml")
    [run] = [r for r in d["runs"] if (r["workload"]["isl"], r["workload"]["osl"]) == (128, 2048)]
    assert run["metrics"]["output_tokens_per_s"] == 54939.48
    assert run["notes"].startswith("measured with gptManagerBenchmark, NOT trtllm-bench | Erratum: 54,939.48")
    assert "bench/data/errata.yaml" in d["submission"]["source"]["notes"]


def test_errata_refuse_unknown_match_columns(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import bench.importers.tables as importcsv

    bad = "- source_title: T\n  match: {gpu: H200, modle: x}\n  note: n\n"
    monkeypatch.setattr(importcsv.resources, "files", lambda _pkg: tmp_path)
    (tmp_path / "errata.yaml").write_text(bad, encoding="utf-8")
    importcsv.errata.cache_clear()
    try:
        with pytest.raises(
            UserError, match=r"errata.yaml: entry 1: match: expected CSV columns .*\['modle'\]"
        ):
            importcsv.errata()
    finally:
        importcsv.errata.cache_clear()


def test_kisti_engine_settings_and_timestamp_are_kept() -> None:
    d = _load("kisti/trtllm-1.2.0/h200-sxm-141gb--llama-3.1-70b-instruct--fp8.yaml")
    assert d["model"]["checkpoint"] == "nvidia/Llama-3.1-70B-Instruct-FP8"
    settings = {
        (
            r["engine_settings"]["max_num_tokens"],
            r["engine_settings"]["max_batch_size"],
            r["engine_settings"]["kv_cache_free_gpu_mem_fraction"],
        )
        for r in d["runs"]
    }
    assert settings == {(8192, 2048, 0.95)}
    assert str(d["runs"][0]["timestamp"]) == "2026-04-15 11:44:32"
    assert d["submission"]["source"]["site_url"] is not None


def test_another_centres_csv_with_the_documented_columns_imports(tmp_path: Path, runner) -> None:
    src = tmp_path / "centre.csv"
    src.write_text(
        "source_title,source_date,system,gpu,model,precision,tp,isl,osl,num_requests,trtllm_version,workflow,"
        "metric,value\n"
        "Example Centre benchmark report 2026,2026-03-01,Example Cluster,NVIDIA H100 80GB HBM3,Llama 3.3 70B,"
        "FP8,4,1024,1024,3000,1.1.0rc5,pytorch,output_tokens_per_sec_total,12345.6\n",
        encoding="utf-8",
    )
    out = runner.invoke(
        app, ["import-csv", str(src), "--results", str(tmp_path / "r"), "--publisher", "Example"]
    )
    assert out.exit_code == 0, out.output
    path = tmp_path / "r/example/trtllm-1.1.0rc5/h100-sxm-80gb--llama-3.3-70b-instruct--fp8.yaml"
    d = check_file(path).result
    assert d is not None and d.runs[0].metrics.output_tokens_per_s == 12345.6
    assert (d.submission.source.publisher, d.submission.system, str(d.submission.date)) == (
        "Example",
        "Example Cluster",
        "2026-03-01",
    )
    assert runner.invoke(app, ["validate", str(tmp_path / "r")]).exit_code == 0


def test_bad_rows_are_all_reported_with_csv_line_and_nothing_is_written(tmp_path: Path, runner) -> None:
    src = tmp_path / "bad.csv"
    rows = [
        "source_title,gpu,model,precision,tp,isl,osl,trtllm_version,workflow,metric,value",
        "T,H200,Llama 3.1 8B,FP8,1,128,128,1.2,pytorch,output_tokens_per_sec_total,100",
        "T,H9000,Llama 3.1 8B,FP8,1,128,128,1.2,pytorch,output_tokens_per_sec_total,100",
        "T,H200,Llama 3.1 8B,FP8,two,128,128,1.2,pytorch,output_tokens_per_sec_total,100",
        "T,H200,Llama 3.1 8B,FP8,1,128,128,1.2,pytorch,tokens_per_sec,100",
        "T,H200,Llama 3.1 8B,FP8,1,128,128,1.2,pytorch,output_tokens_per_sec_total,-3",
        "T,H200,Llama 3.1 8B,FP8,1,128,128,1.2,pytorch,output_tokens_per_sec_total,inf",
        '"T",H200,Llama 3.1 8B,FP8,1,128,128,1.2,pytorch,output_tokens_per_sec_total,200',
    ]
    src.write_text("\n".join(rows) + "\n", encoding="utf-8")
    out = runner.invoke(app, ["import-csv", str(src), "--results", str(tmp_path / "r")])
    assert out.exit_code == 1
    assert "bad.csv:3: gpu: expected a known GPU, got 'H9000'" in out.output
    assert "bad.csv:4: tp: expected a whole number, got 'two'" in out.output
    assert "bad.csv:5: metric: expected one of output_tokens_per_sec_total" in out.output
    assert "bad.csv:6: value: expected a positive number, got '-3'" in out.output
    assert "bad.csv:7: value: expected a finite number, got 'inf'" in out.output
    assert "4 problem(s) in the CSV; nothing written" not in out.output  # rows are checked first
    assert "5 problem(s) in the CSV; nothing written" in out.output
    assert not (tmp_path / "r").exists()


def test_unknown_and_missing_columns_are_refused(tmp_path: Path, runner) -> None:
    src = tmp_path / "cols.csv"
    src.write_text("source_title,gpu,modle,precision\n", encoding="utf-8")
    out = runner.invoke(app, ["import-csv", str(src), "--results", str(tmp_path / "r")])
    assert out.exit_code == 1
    assert "cols.csv:1: unknown column(s) modle; missing column(s) model, tp, isl" in out.output
    assert f"expected columns: {', '.join(COLUMNS)}" in out.output


@pytest.mark.parametrize(
    ("label", "clean"),
    [
        ("0.18/0.19 (early 2025, PyTorch backend)", "0.18"),
        ("1.2.0rc6", "1.2.0rc6"),
        ("v0.10.0", "0.10.0"),
        ("0.17", "0.17"),
        ("main", None),
    ],
)
def test_clean_version(label: str, clean: str | None) -> None:
    assert clean_version(label) == clean


def test_a_row_given_twice_is_a_duplicate_run(tmp_path: Path, runner) -> None:
    src = tmp_path / "dup.csv"
    row = "H200,Llama 3.1 8B,FP8,1,128,128,1.2,pytorch,output_tokens_per_sec_total,"
    header = "source_title,gpu,model,precision,tp,isl,osl,trtllm_version,workflow,metric,value"
    quoted = '"T",'  # the same row written differently, with another figure of the SAME metric: not merged
    other = "T,H200,Llama 3.1 8B,FP8,1,128,128,1.2,pytorch,output_tokens_per_sec_per_user,5"  # merged
    src.write_text(f"{header}\nT,{row}100\n{other}\n{quoted}{row}101\n", encoding="utf-8")
    out = runner.invoke(app, ["import-csv", str(src), "--results", str(tmp_path / "r")])
    assert out.exit_code == 1
    assert "dup.csv:4: duplicate run: same source and configuration as line 2" in out.output
    assert not (tmp_path / "r").exists()


def _release_version(url: str) -> str | None:
    """The release a versioned NVIDIA docs URL names: '.../blob/v0.13.0/...', '.../TensorRT-LLM/1.2.0/...'."""
    m = re.search(r"/blob/v(\d+\.\d+\.\d+)/|/TensorRT-LLM/(\d+\.\d+\.\d+)/", url)
    return (m.group(1) or m.group(2)) if m else None


def test_every_perf_overview_file_cites_its_releases_versioned_page(built: dict[Path, str]) -> None:
    """A perf-overview file's url names the file's own release (0.17 -> a 0.17.0 page), rendered pages
    are NVIDIA's docs site or the tag on NVIDIA's repository, and commands come only with the page they
    belong to. Expectations from the file's own engine_version, not from a list of today's files."""
    with_url = without = 0
    for rel, text in built.items():
        src = yaml_rs.loads(text)["submission"]["source"]
        version = yaml_rs.loads(text)["software"]["engine_version"]
        if "Performance Overview" not in src["title"]:
            assert "commands" not in src, rel  # the blog and KISTI give their own settings, no page commands
            continue
        if "url" not in src:
            without += 1  # a release without a known versioned page (1.1: a main-branch commit)
            assert "commands" not in src, rel
            continue
        with_url += 1
        url = src["url"]
        assert url.startswith(
            ("https://nvidia.github.io/TensorRT-LLM/", "https://github.com/NVIDIA/TensorRT-LLM/")
        )
        named = _release_version(url)
        assert named is not None, url
        want = tuple(int(n) for n in version.split("."))
        assert tuple(int(n) for n in named.split("."))[: len(want)] == want, (rel, url)
        for line in src.get("commands") or []:
            assert line.split()[0] in (
                "python",
                "trtllm-bench",
                "trtllm-build",
                "benchmarks/cpp/prepare_dataset.py",
                "mpirun",
            ), line
    assert with_url > without > 0  # most releases have a page; one (1.1) is known only by a commit


def test_a_perf_overview_row_keeps_its_own_source_url_and_gets_commands_only_for_that_page(
    tmp_path: Path,
) -> None:
    """A row whose source_url is not the release's page keeps it and gets no page commands (they are
    another page's); a row without one gets the release's page and its commands."""
    header = "source_title,source_url,trtllm_version,gpu,model,precision,tp,isl,osl,metric,value,workflow\n"
    title = '"NVIDIA TensorRT-LLM docs: Performance Overview, release 1.2"'
    body = (
        f"{title},https://example.org/mirror.html,1.2,B200,Llama 3.3 70B,FP4,1,1024,1024,"
        "output_tokens_per_sec_per_gpu,100.0,pytorch\n"
        f"{title},,1.2,B200,Llama 3.3 70B,FP8,1,1024,1024,output_tokens_per_sec_per_gpu,90.0,pytorch\n"
    )
    path = tmp_path / "t.csv"
    path.write_text(header + body, encoding="utf-8")
    files = {
        yaml_rs.loads(t)["model"]["weight_precision"]: yaml_rs.loads(t)
        for t in build(read_csv(path), "t.csv").values()
    }
    own, filled = files["FP4"]["submission"]["source"], files["FP8"]["submission"]["source"]
    assert own["url"] == "https://example.org/mirror.html" and "commands" not in own
    assert filled["url"] == "https://nvidia.github.io/TensorRT-LLM/1.2.0/developer-guide/perf-overview.html"
    assert filled["commands"] and all(c.startswith("trtllm-bench ") for c in filled["commands"])
    assert "The CSV gives no source_url" in filled["notes"] and "source_url" not in own["notes"]
