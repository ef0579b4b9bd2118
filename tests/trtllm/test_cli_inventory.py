"""The option inventory (bench/trtllm/cli_inventory.yaml) and the commands built from it.

Authorities: the click definitions in TensorRT-LLM's source as read by hand at the commits the inventory
names (the claims of issues 10 and 25), a hand-written checkout for the generator script, and click itself,
which parses every emitted command against options rebuilt from the inventory.
"""

from __future__ import annotations

import itertools
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from bench.sweep import launch
from bench.trtllm import command, inventory
from tests.sweep.helpers import merge, plan
from tests.trtllm.clickparse import parse as _parse

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "extract_inventory.py"  # a maintainer's tool, not in the runtime package


def _names(rel: str, command: str) -> set[str]:
    release = inventory.for_version(rel)
    assert release is not None
    return set(release.options(command))


# --- what the source says (read by hand at the commits cited in the inventory) ---------------------------


def test_0_14_build_takes_max_seq_length_exclusive_with_dataset() -> None:
    rel = inventory.for_version("0.14.0")
    assert "--max_seq_length" in rel.options("build") and "--max_seq_len" not in rel.options("build")
    (group,) = rel.exclusive_groups("build")
    assert group["cls"] == "RequiredMutuallyExclusiveOptionGroup"
    assert sorted(group["options"]) == ["--dataset", "--max_seq_length"]


def test_0_13_to_0_16_throughput_has_no_report_json_concurrency_or_warmup() -> None:
    names = _names("0.14.0", "throughput")
    assert not names & {"--report_json", "--concurrency", "--warmup", "--backend", "--tp"}
    assert {"--engine_dir", "--max_batch_size", "--max_num_tokens", "--beam_width", "--dataset"} <= names
    assert {"--kv_cache_free_gpu_mem_fraction", "--num_requests", "--streaming"} <= names
    assert inventory.for_version("0.14").options("throughput")["--request_rate"]["hidden"] is True


def test_0_12_launcher_is_trtllm_hlapi_launch_and_1_0_is_trtllm_llmapi_launch() -> None:
    assert inventory.for_version("0.12.0").launcher == "trtllm-hlapi-launch"
    assert inventory.for_version("1.0.0").launcher == "trtllm-llmapi-launch"


def test_1_0_concurrency_is_its_own_mutually_exclusive_group_and_no_config_alias() -> None:
    rel = inventory.for_version("1.0.0rc4")
    (group,) = rel.exclusive_groups("throughput")
    assert group["options"] == ["--concurrency"] and group["constraint"] == "at-most-one"
    assert "--config" not in rel.options("throughput")
    assert rel.options("throughput")["--warmup"]["default"] == 2


def test_every_option_cites_file_and_commit_or_its_cli_page() -> None:
    for rel in inventory.releases():
        for name, cmd in rel.data["commands"].items():
            for opt in cmd["options"]:
                src = opt["source"]
                if rel.from_docs:
                    url = f"https://nvidia.github.io/TensorRT-LLM/{rel.name}/commands/trtllm-bench.html"
                    assert src["kind"] == "docs" and src["url"] == url, (rel.name, name, opt["names"])
                    # sphinx-click's id: cmdoption-trtllm-bench[-SUBCOMMAND]-<first name without dashes>
                    sub = "" if name == "global" else f"-{name}"
                    assert src["anchor"] == f"cmdoption-trtllm-bench{sub}-{opt['names'][0].lstrip('-')}"
                    continue
                if src.get("kind") == "output":  # printed by a real run of the release (SOURCE.yaml observed)
                    assert src["url"].startswith("https://") and src["quote"], (rel.name, name, opt["names"])
                    continue
                assert src["file"].endswith(".py") and src["line"] > 0, (rel.name, name, opt["names"])
                assert len(str(src["commit"])) == 40 or src["commit"] == "unresolved"


# --- what the versioned CLI pages show (read by hand: the URLs in bench/trtllm/cli_docs.yaml) ------------


def test_config_alias_is_on_the_1_2_0_and_1_3_0rc4_pages_but_not_on_1_1_0() -> None:
    """1.2.0/commands/trtllm-bench.html (gh-pages 7e873e54) lists '--config, --extra_llm_api_options' under
    throughput and latency; 1.1.0's (8660c119) lists '--extra_llm_api_options' alone."""
    for version in ("1.2.0", "1.3.0rc4"):
        opts = inventory.for_version(version).options("throughput")
        assert opts["--config"] is opts["--extra_llm_api_options"]
        assert "--config" in inventory.for_version(version).options("latency")
    assert "--config" not in _names("1.1.0", "throughput") | _names("1.1.0", "latency")
    assert "--extra_llm_api_options" in _names("1.1.0", "throughput")


def test_1_1_to_1_3rc4_pages_list_what_llmbench_emits() -> None:
    """On all three pages: throughput takes --tp/--pp/--ep, --concurrency, --warmup, --report_json and the
    --streaming flag; --backend offers pytorch, _autodeploy and tensorrt; build takes --max_seq_len and has no
    --max_seq_length; the global group requires -m/--model. --revision is on 1.2.0 and 1.3.0rc4 only."""
    for version in ("1.1.0", "1.2.0", "1.3.0rc4"):
        rel = inventory.for_version(version)
        assert rel is not None and rel.from_docs
        thr = rel.options("throughput")
        assert {"--tp", "--pp", "--ep", "--concurrency", "--warmup", "--report_json"} <= set(thr)
        assert thr["--streaming"]["is_flag"] and not thr["--warmup"]["is_flag"]
        assert thr["--backend"]["type"] == {
            "kind": "choice",
            "choices": ["pytorch", "_autodeploy", "tensorrt"],
        }
        assert "--max_seq_len" in rel.options("build") and "--max_seq_length" not in rel.options("build")
        assert rel.options("global")["--model"]["required"] and rel.options("global")["-m"]["required"]
        assert ("--revision" in rel.options("global")) == (version != "1.1.0")
        assert rel.launcher is None  # not on the page: launcher_script takes the era's name


def test_docs_entries_carry_the_exclusive_groups_over_from_1_0_and_say_so() -> None:
    for version in ("1.1.0", "1.2.0", "1.3.0rc4"):
        rel = inventory.for_version(version)
        (group,) = rel.exclusive_groups("throughput")
        assert group["options"] == ["--concurrency"] and group["carried_from"]["release"] == "1.0.0rc4"
        assert rel.exclusive_groups("build") == [] and "option groups" in rel.data["source"]["not_shown"]
        # messages cite the page's section (<section id="trtllm-bench-throughput"> on each page)
        url = f"https://nvidia.github.io/TensorRT-LLM/{version}/commands/trtllm-bench.html"
        assert rel.where("throughput") == f"its CLI reference, {url}#trtllm-bench-throughput"


# --- the generator on a hand-written checkout -------------------------------------------------------------

GROUP = """import click
from tensorrt_llm.bench.work import work_command

@click.group(name="trtllm-bench")
@click.option("--model", "-m", required=True, type=str)
@click.pass_context
def main(ctx, model):
    pass

main.add_command(work_command)
"""
WORK = """import click
from click_option_group import optgroup, MutuallyExclusiveOptionGroup

@click.command(name="work")
@optgroup.group("Limits", cls=MutuallyExclusiveOptionGroup)
@optgroup.option("--rate", type=click.FloatRange(min=0.5), default=1.5)
@optgroup.option("--count", type=int)
@click.option("--fast/--slow", default=False, hidden=True)
@click.option("--mode", type=click.Choice(["a", "b"]), default="a")
@click.pass_obj
def work_command(env, **params):
    pass
"""
SETUP = """setup(entry_points={'console_scripts': ['trtllm-bench=tensorrt_llm.commands.bench:main']},
      scripts=['tensorrt_llm/x/trtllm-x-launch'])
"""


def _git(repo: Path, *args: str) -> str:
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t"}
    env |= {"GIT_COMMITTER_EMAIL": "t@t", "PATH": "/usr/bin:/bin"}
    return subprocess.run(
        ["git", "-C", str(repo), *args], check=True, capture_output=True, text=True, env=env
    ).stdout


def test_generator_reads_a_git_tag_with_ast(tmp_path: Path) -> None:
    repo = tmp_path / "trt"
    for path, text in {
        "tensorrt_llm/commands/bench.py": GROUP,
        "tensorrt_llm/bench/work.py": WORK,
        "setup.py": SETUP,
    }.items():
        (repo / path).parent.mkdir(parents=True, exist_ok=True)
        (repo / path).write_text(text)
    _git(repo, "init", "-q")
    _git(repo, "add", ".")
    _git(repo, "commit", "-qm", "x")
    _git(repo, "tag", "v9.1.0")
    sha = _git(repo, "rev-parse", "HEAD").strip()
    out = subprocess.run(
        [sys.executable, str(SCRIPT), "--git", str(repo), "--tag", "v9.1.0"], capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    rel = yaml.safe_load(out.stdout)["releases"]["9.1.0"]
    assert rel["launcher"] == "trtllm-x-launch" and rel["source"]["commit"] == sha
    work = {o["names"][0]: o for o in rel["commands"]["work"]["options"]}
    # by hand from WORK above: lines 6..9, FloatRange min 0.5, the slash option is a flag
    assert work["--rate"]["type"] == {"kind": "float", "min": 0.5} and work["--rate"]["default"] == 1.5
    assert work["--rate"]["source"] == {"file": "tensorrt_llm/bench/work.py", "commit": sha, "line": 6}
    assert work["--count"]["group"] == "Limits" and work["--count"]["type"] == {"kind": "int"}
    assert work["--fast/--slow"]["is_flag"] and work["--fast/--slow"]["hidden"]
    assert work["--mode"]["type"] == {"kind": "choice", "choices": ["a", "b"]}
    (group,) = rel["commands"]["work"]["exclusive_groups"]
    assert group["options"] == ["--rate", "--count"] and group["constraint"] == "at-most-one"
    assert [o["names"] for o in rel["commands"]["global"]["options"]] == [["--model", "-m"]]


def test_generator_names_a_missing_file(tmp_path: Path) -> None:
    (tmp_path / "SOURCE.yaml").write_text("commit: abc\n")
    out = subprocess.run(
        [sys.executable, str(SCRIPT), "--tree", f"1.0.0={tmp_path}"], capture_output=True, text=True
    )
    assert out.returncode == 2 and "tensorrt_llm/commands/bench.py not found" in out.stderr


# --- every emitted command parses under click options rebuilt from the inventory --------------------------


SETTINGS = [
    {},
    {"settings": {"max_batch_size": [64], "max_num_tokens": [2048]}},
    {"concurrency": [8]},
    {"streaming": [True, False]},
    {"settings": {"kv_cache_free_gpu_mem_fraction": 0.8}, "trtllm": {"build": {"max_seq_len": 4096}}},
]


@pytest.mark.parametrize(
    ("release", "workflow", "settings"),
    [
        (r.name, wf, s)
        for r, wf, s in itertools.product(inventory.releases(), ["legacy-engine", "pytorch"], SETTINGS)
        if not (wf == "pytorch" and "--backend" not in r.options("throughput"))
    ],
)
def test_plan_emits_only_options_the_release_defines(
    release: str, workflow: str, settings: dict[str, Any], tmp_path: Path
) -> None:
    rel = inventory.for_version(release)
    over = {"trtllm": {"version": release, "workflow": workflow}, "parallelism": {"tp": [1, 2]}}
    over |= {"run": {"warmup": 3}, "model": {"id": "m/x", "path": "/models/x"}}
    p = plan(tmp_path, merge(over, settings))
    assert p.jobs or p.skipped
    for job in p.jobs:
        for step in launch.job_steps(job, job.kv_fraction, tmp_path / "r.json"):
            argv = step.argv[step.argv.index("trtllm-bench") :]
            sub, given = _parse(rel, argv)
            assert sub == ("build" if step.name == "build" else "throughput")
            for group in rel.exclusive_groups(sub):
                chosen = [o for o in group["options"] if o.lstrip("-") in given]
                assert len(chosen) <= 1, (step.shell, group)
                if group["constraint"] == "exactly-one":
                    assert len(chosen) == 1, (step.shell, group)
    for s in p.skipped:
        assert s.reason


def test_kisti_v100_example_parses_under_0_14(tmp_path: Path) -> None:
    from bench.sweep import spec

    p = spec.load_plan(ROOT / "bench/examples/kisti-v100-llama8b-legacy.yaml", out_dir=tmp_path)
    rel = inventory.for_version("0.14.0")
    assert p.jobs
    for job in p.jobs:
        steps = launch.job_steps(job, job.kv_fraction, tmp_path / "r.json")
        for step in steps:
            _parse(rel, step.argv[step.argv.index("trtllm-bench") :])
        assert any("--report_json" in d and "console report" in d for d in steps[-1].dropped)


def test_concurrency_is_skipped_with_the_reason_where_the_release_lacks_it(tmp_path: Path) -> None:
    over = {"trtllm": {"version": "0.14.0", "workflow": "legacy-engine"}, "concurrency": [4]}
    p = plan(tmp_path, over)
    assert not p.jobs and p.skipped
    assert "has no --concurrency" in p.skipped[0].reason


def test_config_alias_only_where_the_inventory_shows_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """1.0.0rc4's throughput (000a01de) and the 1.1.0 CLI page name only --extra_llm_api_options: the long
    name. The 1.2.0 and 1.3.0rc4 pages list --config first: --config. Patching 1.0 shows the inventory
    decides."""
    opts = tmp_path / "opts.yml"
    opts.write_text("print_iter_log: true\n")

    def flag(version: str) -> str:
        over = {"trtllm": {"version": version, "workflow": "pytorch", "extra_llm_api_options": str(opts)}}
        where = tmp_path / f"{version}-{len(list(tmp_path.iterdir()))}"
        where.mkdir()
        job = plan(where, over).jobs[0]
        argv = launch.job_steps(job, job.kv_fraction, tmp_path / "r.json")[-1].argv
        return next(a for a in argv if a in ("--config", "--extra_llm_api_options"))

    assert flag("1.0.0") == "--extra_llm_api_options"
    assert flag("1.1.0") == "--extra_llm_api_options"
    assert flag("1.2.0") == "--config"
    assert flag("1.3.0rc26") == "--config"
    data = inventory._load()["1.0.0rc4"]
    entry = next(o for o in data["commands"]["throughput"]["options"] if o["dest"] == "extra_llm_api_options")
    monkeypatch.setitem(entry, "names", ["--config", "--extra_llm_api_options"])
    assert flag("1.0.0") == "--config"


def test_0_15_and_0_16_have_the_newer_build_and_throughput_adds_iteration_log() -> None:
    """build.py at 6b25e1e0 (version.py "0.15.0") and at b4f2086d (tensorrtllm_backend's main pointer of the
    v0.16.0 tag's day), read by hand: --max_seq_len (IntRange min 1) in "Engine Configuration", the dataset /
    IFB-limits / tuning-hints groups (AllOptionGroup), no --dtype, no --max_seq_length;
    apply_build_mode_settings allows one of --dataset, --max_batch_size, --target_input_len. throughput adds
    --iteration_log."""
    for version, commit in (("0.15.0", "6b25e1e0"), ("0.16.0", "b4f2086d")):
        rel = inventory.for_version(version)
        assert rel is not None and rel.where("build").startswith(
            f"tensorrt_llm/bench/build/build.py@{commit}"
        )
        build = rel.options("build")
        assert build["--max_seq_len"]["type"] == {"kind": "int", "min": 1}
        assert {"--target_input_len", "--target_output_len"} <= set(build)
        assert not {"--dtype", "--max_seq_length"} & set(build) and rel.exclusive_groups("build") == []
        groups = {g["name"]: g for g in rel.data["commands"]["build"]["other_groups"]}
        assert groups["Build Engine with IFB Scheduler Limits"]["constraint"] == "all-or-none"
        assert rel.facts["build_rules"]["at_most_one_of"] == [
            "--dataset",
            "--max_batch_size",
            "--target_input_len",
        ]
        assert rel.facts["build_rules"]["max_world_size"] == 8
        thr = _names(version, "throughput")
        assert "--iteration_log" in thr and not thr & {
            "--report_json",
            "--concurrency",
            "--warmup",
            "--backend",
        }
    assert inventory.for_version("0.15.0").data["source"]["stamped"] is True
    assert inventory.for_version("0.16.0").data["source"]["stamped"] is False  # 42a7b092 holds no bench file
    # b4f2086d reads bench_env.checkpoint_path, but the 0.16 group file is not stored: said, never emitted
    assert inventory.for_version("0.16.0").unsettled("global", "--model_path")


def test_0_13_throughput_takes_streaming() -> None:
    """bench/run/run.py at c9f67c5a (version.py "0.13.0"): 0.12's options plus the --streaming flag; build is
    not stored there and 0.12.0 and 0.14.0 agree, so 0.14.0's entry is taken and says so."""
    rel = inventory.for_version("0.13.0")
    assert rel is not None and rel.data["source"]["version_py"] == "0.13.0"
    assert rel.options("throughput")["--streaming"]["is_flag"]
    assert rel.where("throughput").startswith("tensorrt_llm/bench/run/run.py@c9f67c5a")
    assert rel.data["commands"]["build"]["borrowed_from"] == "0.14.0"
    assert "--max_seq_length" in rel.options("build")


def test_0_17_and_0_18_take_pytorch_only_and_have_no_ep_or_report_json() -> None:
    """throughput.py at b78a5461 (main, 2025-02-06): --backend Choice(["pytorch"]), --tp/--pp, --warmup,
    --concurrency mutually exclusive with the hidden --request_rate; --ep first at 85a4269f, --report_json at
    77d7fe1e (both later). 0.18.x carries 0.17's features (release notes; issue #3583 on 0.18.1)."""
    for version in ("0.17.0", "0.18.0", "0.18.1"):
        rel = inventory.for_version(version)
        thr = rel.options("throughput")
        assert thr["--backend"]["type"] == {"kind": "choice", "choices": ["pytorch"]}
        assert {"--tp", "--pp", "--warmup", "--concurrency", "--extra_llm_api_options"} <= set(thr)
        assert not {"--ep", "--report_json"} & set(thr)
        (group,) = rel.exclusive_groups("throughput")
        assert group["options"] == ["--request_rate", "--concurrency"]
        assert rel.data["source"]["era_source"] is True
        # --model_path: printed by the 0.17.0 docs' own PyTorch run ("Model Path: /Ckpt/...")
        assert rel.options("global")["--model_path"]["source"]["kind"] == "output"


# --- the --docs path of the generator on a hand-written transcription -------------------------------------

DOCS = """releases:
  9.2.0:
    url: https://nvidia.github.io/TensorRT-LLM/9.2.0/commands/trtllm-bench.html
    commands:
      global:
        - -m, --model <model> | required
      work:
        - --rate <rate>
        - --count <count>
        - --fast
        - --mode <mode> | choices a b
"""


def test_generator_adds_docs_releases_with_carried_groups(tmp_path: Path) -> None:
    base = {"source": {"commit": "c" * 40}, "launcher": "x-launch", "commands": {}}
    base["commands"]["work"] = {
        "source": {"file": "w.py", "commit": "c" * 40, "line": 3},
        "options": [],
        "exclusive_groups": [
            {
                "name": "Limits",
                "cls": "M",
                "constraint": "at-most-one",
                "options": ["--rate", "--count"],
                "line": 6,
            },
            {
                "name": "Gone",
                "cls": "M",
                "constraint": "at-most-one",
                "options": ["--rate", "--old"],
                "line": 9,
            },
        ],
    }
    (tmp_path / "inv.yaml").write_text(yaml.safe_dump({"releases": {"9.1.0": base}}))
    (tmp_path / "docs.yaml").write_text(DOCS)
    args = ["--docs", str(tmp_path / "docs.yaml"), "--base", "9.1.0", "--into", str(tmp_path / "inv.yaml")]
    out = subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    rels = yaml.safe_load(out.stdout)["releases"]
    assert list(rels) == ["9.1.0", "9.2.0"] and rels["9.1.0"] == base
    rel = rels["9.2.0"]
    assert rel["source"]["kind"] == "docs" and rel["launcher"] is None
    (model,) = rel["commands"]["global"]["options"]
    assert model["names"] == ["-m", "--model"] and model["required"] and model["type"] == {"kind": "value"}
    assert model["source"]["anchor"] == "cmdoption-trtllm-bench-m"
    work = {o["names"][0]: o for o in rel["commands"]["work"]["options"]}
    assert work["--fast"]["is_flag"] and work["--fast"]["type"] == {"kind": "flag"}
    assert work["--mode"]["type"] == {"kind": "choice", "choices": ["a", "b"]}
    assert work["--rate"]["source"]["anchor"] == "cmdoption-trtllm-bench-work-rate"
    # only the group whose options are all on the page is carried, naming where it was read
    (group,) = rel["commands"]["work"]["exclusive_groups"]
    assert group["name"] == "Limits" and group["carried_from"] == {
        "release": "9.1.0",
        "file": "w.py",
        "commit": "c" * 40,
        "line": 6,
    }


def test_generator_names_a_malformed_docs_line(tmp_path: Path) -> None:
    (tmp_path / "inv.yaml").write_text(
        yaml.safe_dump({"releases": {"9.1.0": {"source": {}, "commands": {}}}})
    )
    (tmp_path / "docs.yaml").write_text(DOCS.replace("--fast", "--fast | default 3"))
    args = ["--docs", str(tmp_path / "docs.yaml"), "--base", "9.1.0", "--into", str(tmp_path / "inv.yaml")]
    out = subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True)
    assert out.returncode == 2
    assert "cli docs 9.2.0: commands.work" in out.stderr and "unknown field 'default 3'" in out.stderr


@pytest.mark.parametrize(
    ("version", "workflow"), [("0.11.0", "legacy-engine"), ("1.4.0", "pytorch"), ("1.2.0", "pytorch")]
)
def test_plan_says_when_a_release_is_not_in_the_inventory(
    version: str, workflow: str, tmp_path: Path
) -> None:
    """Before 0.12 and after 1.3: no entry; `plan` says their commands are unchecked (the release list read
    from the committed YAML itself, not from the code)."""
    listed = yaml.safe_load((ROOT / "bench/trtllm/cli_inventory.yaml").read_text())["releases"]
    inventoried = any(str(name).split(".")[:2] == version.split(".")[:2] for name in listed)
    over = {"trtllm": {"version": version, "workflow": workflow}}
    text = launch.describe(plan(tmp_path, over))
    note = f"note: TensorRT-LLM {version} has no entry in the option inventory"
    assert (note in text) is not inventoried


# --- what the stored source cannot settle is said, in the inventory and in `plan` -------------------------


def test_0_19_to_0_21_are_era_source_between_77d7fe1e_and_1_0_0rc4() -> None:
    """throughput.py at 77d7fe1e (2025-03-04, before 0.19): --ep and --report_json; every option llmbench
    emits is also in 1.0.0rc4's throughput (000a01de), whose --backend choices are an expression: the
    choices are unsettled, so no backend is refused on them."""
    later = inventory.for_version("1.0.0rc4")
    for version in ("0.19.0", "0.20.0", "0.21.0"):
        rel = inventory.for_version(version)
        assert rel.data["source"]["era_source"] and rel.where("throughput").startswith(
            "tensorrt_llm/bench/benchmark/throughput.py@77d7fe1e"
        )
        emitted = {"--tp", "--pp", "--ep", "--report_json", "--warmup", "--concurrency", "--streaming"}
        emitted |= {"--backend", "--extra_llm_api_options", "--dataset", "--engine_dir", "--max_batch_size"}
        assert emitted <= set(rel.options("throughput")) and emitted <= set(later.options("throughput"))
        assert rel.unsettled("throughput", "--backend", "choices") and command.backend_choices(rel) is None
        assert rel.unsettled("throughput", "--backend") is None  # the option itself is on both sides
        assert rel.launch_mode("pytorch") == "launcher"


def test_plan_says_what_the_source_cannot_settle_and_never_emits_it(tmp_path: Path) -> None:
    """0.16: --model_path is unsettled (facts.unsettled: no 0.16 group file is stored); its release commit
    42a7b092 holds no bench file. 0.17: era source (read at main commits after the release)."""
    over = {"trtllm": {"version": "0.16.0", "workflow": "legacy-engine"}, "model": {"path": "/models/x"}}
    p = plan(tmp_path, over)
    text = launch.describe(p)
    assert "not settled whether global takes --model_path" in text
    assert "release commit 42a7b092 holds no bench file" in text
    for job in p.jobs:
        for step in launch.job_steps(job, None, tmp_path / "r.json"):
            assert "--model_path" not in step.argv
            assert any("not settled whether TensorRT-LLM 0.16.0 has --model_path" in d for d in step.dropped)
    (tmp_path / "b").mkdir()
    text = launch.describe(plan(tmp_path / "b", {"trtllm": {"version": "0.17.0"}}))
    assert "TensorRT-LLM 0.17.0: era source, not stamped" in text and "b78a5461" in text


def test_generator_merges_trees_with_borrowed_observed_and_unread_parts(tmp_path: Path) -> None:
    """A hand-written checkout without setup.py or build: the build is borrowed from a release of the
    target inventory, an option printed by a real run is added with its quote, the launcher stays null."""
    root = tmp_path / "tree"
    for path, text in {"tensorrt_llm/commands/bench.py": GROUP, "tensorrt_llm/bench/work.py": WORK}.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    (root / "SOURCE.yaml").write_text(
        yaml.safe_dump(
            {
                "commit": "a" * 40,
                "setup_not_read": "setup.py is not stored",
                "borrow": {"build": "9.1.0"},
                "observed": {
                    "global": [
                        {
                            "names": ["--model_path"],
                            "source": {"url": "https://x/y", "quote": "Model Path: /m"},
                        }
                    ]
                },
                "facts": {"launch": {"pytorch": {"mode": "launcher"}}},
            }
        )
    )
    donor = {"source": {"file": "b.py", "commit": "b" * 40, "line": 1}, "options": [], "exclusive_groups": []}
    (tmp_path / "inv.yaml").write_text(
        yaml.safe_dump({"releases": {"9.1.0": {"source": {}, "commands": {"build": donor}}}})
    )
    args = ["--tree", f"9.2.0={root}", "--into", str(tmp_path / "inv.yaml")]
    out = subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    rels = yaml.safe_load(out.stdout)["releases"]
    assert list(rels) == ["9.1.0", "9.2.0"]
    rel = rels["9.2.0"]
    assert rel["launcher"] is None and rel["setup_source"]["not_read"] == "setup.py is not stored"
    assert rel["commands"]["build"] == {**donor, "borrowed_from": "9.1.0"}
    (observed,) = [o for o in rel["commands"]["global"]["options"] if o["names"] == ["--model_path"]]
    assert observed["source"] == {"kind": "output", "url": "https://x/y", "quote": "Model Path: /m"}
    assert rel["facts"] == {"launch": {"pytorch": {"mode": "launcher"}}}
    assert "facts" not in rel["source"] and "observed" not in rel["source"]
