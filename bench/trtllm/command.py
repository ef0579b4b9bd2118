"""The trtllm-bench engine: one job -> its exact command lines, per TensorRT-LLM release (pure).

What a release accepts and how it runs is read from ``bench/trtllm/cli_inventory.yaml`` (the click options of
its source at the release commit, or its CLI page, each with its citation) through ``supports``; global
options (``--model``, ``--model_path``, ``--workspace``) go BEFORE the subcommand, ``--tp/--pp/--ep`` after
``throughput``. Every step is fitted to the release's own options (``fit_to_release``): an option it lacks is
dropped and ``plan`` says why; an option the stored source cannot settle (``facts.unsettled``) is never
emitted, and ``plan`` says so.

Releases without an inventory entry (before 0.12, after 1.3) follow the era table ``ERA`` below, and
``plan`` says their commands are unchecked. 0.17-0.21 are inventoried from era source (main commits around
the release, named in each entry), and ``plan`` says that too. ``ENGINE`` plugs this into
``bench.sweep.engine`` (checks, steps, report reader, version checks and the facts kept with each run); the
launcher and container wrapping is shared there, and a release whose engine run starts its own MPI workers
(``facts.launch``: 0.12-0.16) is never wrapped in mpirun/srun.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from bench.errors import UserError
from bench.sweep import provenance
from bench.sweep.engine import EngineSpec, Step, model_slug
from bench.sweep.launch import container_prefix_for, dataset_path
from bench.trtllm import dataset, inventory, report
from bench.trtllm.options import TrtllmSpec

if TYPE_CHECKING:
    from bench.sweep.spec import Job, Sweep

Version = tuple[int, int]

# The era table, used ONLY for a release the inventory has no entry for (before 0.12, after 1.3 today): the
# first release with each feature, as the inventory shows it (--ep and --report_json first at the main commits
# 85a4269f and 77d7fe1e, after 0.18 was cut: so 0.19).
ERA: dict[str, Version] = {
    "streaming": (0, 13),  # run.py at c9f67c5a (0.13.0)
    "report_json": (0, 19),
    "concurrency": (0, 17),  # throughput.py at b78a5461 (0.17); none in 0.13-0.16
    "warmup": (0, 17),
    "pytorch_backend": (0, 17),
    "extra_llm_api_options": (0, 17),
    "tp_pp": (0, 17),
    "model_path": (0, 17),
    "ep": (0, 19),
    "default_backend_pytorch": (1, 0),
    "llm_api_launch": (0, 17),  # before: the engine run starts its own MPI workers (single process)
    "no_engines": (1, 3),  # build subcommand and the tensorrt backend removed
}
SINCE = ERA  # the name older callers and tests use

# The 1.3 line dropped `build` and the tensorrt backend between two CLI pages: 1.3.0rc4 still lists both
# (cli_inventory.yaml), 1.3.0rc26 lists neither (https://nvidia.github.io/TensorRT-LLM/1.3.0rc26/commands/
# trtllm-bench.html: backend "pytorch | _autodeploy", no build section). Releases between are not settled.
ENGINES_LAST_SEEN = "1.3.0rc4"
ENGINES_GONE_BY = "1.3.0rc26"


def parse_version(text: str) -> Version:
    """'1.2.0rc5' -> (1, 2); '0.21.0' -> (0, 21)."""
    m = re.match(r"^(\d+)\.(\d+)", text.strip())
    if not m:
        raise ValueError(f"not a version: {text!r}")
    return int(m.group(1)), int(m.group(2))


def has(version: str, feature: str) -> bool:
    """The era table's answer (for releases the inventory lacks): version >= the feature's first release."""
    return parse_version(version) >= ERA[feature]


_THROUGHPUT_FLAGS = {
    "report_json": "--report_json",
    "concurrency": "--concurrency",
    "streaming": "--streaming",
    "warmup": "--warmup",
    "extra_llm_api_options": "--extra_llm_api_options",
    "tp_pp": "--tp",
    "ep": "--ep",
}


def supports(version: str, feature: str) -> bool:
    """Whether TensorRT-LLM ``version`` has ``feature``: from its inventory entry, else the era table."""
    rel = inventory.for_version(version)
    if rel is None:
        return has(version, feature)
    if feature in _THROUGHPUT_FLAGS:
        return _THROUGHPUT_FLAGS[feature] in rel.options("throughput")
    if feature == "model_path":
        return "--model_path" in rel.options("global")
    choices = backend_choices(rel)
    if feature == "pytorch_backend":
        return "--backend" in rel.options("throughput") and (choices is None or "pytorch" in choices)
    if feature == "default_backend_pytorch":  # the engine path needs --backend tensorrt
        return "tensorrt" in choices if choices is not None else has(version, feature)
    if feature == "llm_api_launch":
        return rel.launch_mode("legacy-engine") != "single-process"
    if feature == "no_engines":
        return not engines_available(version)
    return has(version, feature)


def backend_choices(rel: inventory.Release) -> list[str] | None:
    """The throughput --backend choices the release lists, or None when it has no --backend or the source
    names them by an expression (1.0.0rc4: ALL_SUPPORTED_BACKENDS)."""
    opt = rel.options("throughput").get("--backend")
    if opt is None or rel.unsettled("throughput", "--backend", "choices"):  # 0.19-0.21: the sides disagree
        return None
    choices = opt["type"].get("choices")
    return [str(c) for c in choices] if choices else None


def _release_key(version: str) -> tuple[int, ...]:
    m = re.match(r"^(\d+)\.(\d+)(?:\.(\d+))?(?:rc(\d+))?", version.strip())
    if not m:
        return (0,)
    major, minor, patch, rc = m.groups()
    return (int(major), int(minor), int(patch or 0), 0 if rc else 1, int(rc or 0))


def engines_available(version: str) -> bool | None:
    """True where the release still builds TensorRT engines, False where it does not, None where no source
    settles it (1.3.0rc5 .. 1.3.0rc25)."""
    key = _release_key(version)
    if key <= _release_key(ENGINES_LAST_SEEN):
        return True
    if key >= _release_key(ENGINES_GONE_BY):
        return False
    return None


def _ver(v: Version) -> str:
    return f"{v[0]}.{v[1]}"


def engine_workspace(job: Job) -> Path:
    """Per-engine workspace: engines differ by tp, pp and the build-time limits.

    An engine built from a dataset (no explicit limits) is sized for that dataset's lengths, so it is
    built per workload; one built from explicit limits serves every workload of the sweep.
    """
    root = Path(job.spec.run.workspace).absolute() if job.spec.run.workspace else job.out_dir / "engines"
    q = model_slug(job.spec.trtllm.build.quantization or "none")
    key = f"tp{job.tp}_pp{job.pp}_mbs{job.max_batch_size or 'auto'}_mnt{job.max_num_tokens or 'auto'}_q{q}"
    if _builds_from_dataset(job):
        key += f"_i{job.isl}s{job.input_stdev}_o{job.osl}s{job.output_stdev}"
    return _inside(root, root / model_slug(job.spec.model.id) / key)


def _inside(root: Path, path: Path) -> Path:
    """``path``, which must stay under ``root`` once '..' and links are resolved (sweep values are names)."""
    if not path.resolve().is_relative_to(root.resolve()):
        raise UserError(f"engine path {path} leaves its workspace {root}: a sweep value is not a path")
    return path


def _builds_from_dataset(job: Job) -> bool:
    build = job.spec.trtllm.build
    return build.tool == "trtllm-bench" and not (job.max_batch_size and job.max_num_tokens)


def _longest(job: Job) -> tuple[int, int]:
    """Longest input and sequence over the sweep's workloads (mean + 6 stdev covers a normal sample)."""
    ws = job.spec.workloads
    isl = max(w.isl + 6 * w.input_stdev for w in ws)
    seq = max(w.isl + 6 * w.input_stdev + w.osl + 6 * w.output_stdev for w in ws)
    return isl, seq


def engine_dir(job: Job) -> Path:
    """trtllm-bench build saves to ``<workspace>/<model>/tp_<tp>_pp_<pp>`` (reference notes, section 3)."""
    if job.spec.trtllm.build.tool == "trtllm-build":
        return engine_workspace(job) / "engine"
    ws = engine_workspace(job)  # model.id is a Hugging Face repo id (spec.ModelSpec): no '..', no '/' first
    return _inside(ws, ws / job.spec.model.id / f"tp_{job.tp}_pp_{job.pp}")


# --- trtllm-bench -------------------------------------------------------------------------------------


def _trtllm_check_sweep(sweep: Sweep) -> str | None:
    t = sweep.trtllm
    if t is None:
        return "trtllm: required for engine trtllm-bench (version and workflow at least)"
    v, rel = t.version, inventory.for_version(t.version)
    if t.workflow == "pytorch" and not supports(v, "pytorch_backend"):
        return (
            f"trtllm.workflow: pytorch needs TensorRT-LLM >= {_ver(ERA['pytorch_backend'])} "
            f"(version {v} has only the legacy-engine workflow{_where(rel, 'throughput')})"
        )
    if t.workflow == "legacy-engine" and not engines_available(v):
        unsettled = engines_available(v) is None
        return (
            "trtllm.workflow: legacy-engine (TensorRT engines) is gone in TensorRT-LLM 1.3 (the "
            f"{ENGINES_GONE_BY} CLI page has no build and no tensorrt backend); version is {v}"
            + (
                f". Not settled for {v}: the {ENGINES_LAST_SEEN} page still lists both, no page between "
                "was read"
                if unsettled
                else ""
            )
        )
    if t.extra_llm_api_options and not supports(v, "extra_llm_api_options"):
        return (
            f"trtllm.extra_llm_api_options: TensorRT-LLM {v} has no --extra_llm_api_options "
            f"(added in {_ver(ERA['extra_llm_api_options'])}{_where(rel, 'throughput')})"
        )
    if t.workflow == "legacy-engine" and t.build.tool == "trtllm-build" and not t.build.checkpoint_dir:
        return "trtllm.build.checkpoint_dir: trtllm-build needs a converted checkpoint directory ({tp}, {pp})"
    if t.workflow == "legacy-engine" and t.backend not in (None, "pytorch"):
        return "trtllm.backend: legacy-engine runs TensorRT engines; leave backend unset"
    if t.workflow == "pytorch" and rel is not None:
        name, choices = _backend_name(t.backend or "pytorch", v), backend_choices(rel)
        if choices is not None and name not in choices:
            return (
                f"trtllm.backend: TensorRT-LLM {rel.name}'s throughput --backend takes {' | '.join(choices)} "
                f"({rel.where('throughput')}), not {name}"
            )
    return None


def _where(rel: inventory.Release | None, command: str) -> str:
    return f": {rel.where(command)}" if rel is not None and command in rel.data["commands"] else ""


def _trtllm_check_job(sweep: Sweep, p: dict[str, Any]) -> str | None:
    v, legacy = sweep.trtllm.version, sweep.trtllm.workflow == "legacy-engine"
    if p["ep"] is not None and legacy:
        return "ep: legacy TensorRT engines take no expert-parallel size"
    rel = inventory.for_version(v)
    for key, feature, flag in (
        ("ep", "ep", "--ep"),
        ("concurrency", "concurrency", "--concurrency"),
        ("streaming", "streaming", "--streaming"),
    ):
        if p[key] in (None, False) or supports(v, feature):
            continue
        if rel is not None:
            return (
                f"{key}: TensorRT-LLM {rel.name}'s throughput has no {flag} "
                f"(its click options, {rel.where('throughput')}); the setting is skipped"
            )
        return f"{key}: TensorRT-LLM {v} has no {flag} (added in {_ver(ERA[feature])}, era table)"
    if legacy and sweep.trtllm.build.tool == "trtllm-bench" and p["tp"] * p["pp"] > 8:
        return "tp x pp > 8: trtllm-bench build rejects it"
    world, per_node = p["tp"] * p["pp"], sweep.cluster.gpus_per_node
    if not launched(v, sweep.trtllm.workflow) and world > per_node:
        return (
            f"tp x pp = {world} spans nodes of {per_node} GPUs, but TensorRT-LLM {v}'s engine run starts its "
            "MPI workers from one process (cli_inventory.yaml facts.launch); whether it can place them on "
            "other nodes is not settled by the stored source, so the job is skipped"
        )
    return None


def _global_options(job: Job) -> list[str]:
    m, v = job.spec.model, job.spec.trtllm.version
    argv = ["trtllm-bench", "--model", m.id]
    if m.path and _offer(v, "model_path"):
        argv += ["--model_path", m.path]
    return argv


def _build_step(job: Job) -> Step:
    b = job.spec.trtllm.build
    ws = engine_workspace(job)
    longest_isl, longest_seq = _longest(job)
    if b.tool == "trtllm-build":
        ckpt = b.checkpoint_dir.format(tp=job.tp, pp=job.pp) if b.checkpoint_dir else ""
        argv = ["trtllm-build", "--checkpoint_dir", ckpt, "--output_dir", str(engine_dir(job))]
        argv += _limits(job)
        # trtllm-build's default max_input_len (1024) would refuse longer prompts of the sweep
        argv += ["--max_input_len", str(longest_isl), "--max_seq_len", str(b.max_seq_len or longest_seq)]
    else:
        argv = [*_global_options(job), "--workspace", str(ws), "build"]
        argv += ["--tp_size", str(job.tp), "--pp_size", str(job.pp)]
        if b.quantization:
            argv += ["--quantization", b.quantization]
        # exactly one build mode: the dataset (max seq len and average ISL/OSL), else explicit limits,
        # which need --max_seq_len: the longest sequence of the sweep, as the engine serves every workload
        if _builds_from_dataset(job):
            argv += ["--max_seq_len", str(b.max_seq_len)] if b.max_seq_len else []
            argv += ["--dataset", str(dataset_path(job))]
        else:
            argv += ["--max_seq_len", str(b.max_seq_len or longest_seq), *_limits(job)]
    argv += b.extra_args
    return Step("build", argv, creates=engine_dir(job) / "config.json")


def _limits(job: Job) -> list[str]:
    argv = []
    if job.max_batch_size:
        argv += ["--max_batch_size", str(job.max_batch_size)]
    if job.max_num_tokens:
        argv += ["--max_num_tokens", str(job.max_num_tokens)]
    return argv


def _throughput_step(job: Job, kv_fraction: float | None, report: Path) -> Step:
    t = job.spec.trtllm
    v, legacy = t.version, t.workflow == "legacy-engine"
    argv = [*_global_options(job), "throughput"]
    if not legacy and supports(v, "tp_pp"):
        argv += ["--tp", str(job.tp), "--pp", str(job.pp)]
        if job.ep is not None:
            argv += ["--ep", str(job.ep)]
    argv += ["--dataset", str(dataset_path(job))]
    if legacy:
        argv += ["--engine_dir", str(engine_dir(job))]
        if supports(v, "default_backend_pytorch"):
            argv += ["--backend", "tensorrt"]
    else:
        argv += ["--backend", _backend_name(t.backend or "pytorch", v)]
    if t.extra_llm_api_options:
        argv += [_llm_api_options_flag(v), t.extra_llm_api_options]
    argv += _limits(job)
    if kv_fraction is not None:
        argv += ["--kv_cache_free_gpu_mem_fraction", f"{kv_fraction:g}"]
    if job.spec.run.warmup is not None and _offer(v, "warmup"):
        argv += ["--warmup", str(job.spec.run.warmup)]
    if job.concurrency is not None:
        argv += ["--concurrency", str(job.concurrency)]
    if job.streaming:
        argv += ["--streaming"]
    if _offer(v, "report_json"):  # where an inventoried release lacks it, fit_to_release drops it and says so
        argv += ["--report_json", str(report)]
    return Step("benchmark", argv, launched=launched(t.version, t.workflow))


def _offer(version: str, feature: str) -> bool:
    """Build the option in: always for an inventoried release (``fit_to_release`` then drops what the release
    lacks, with the reason ``plan`` prints), by the era table for one without an entry."""
    return inventory.for_version(version) is not None or has(version, feature)


def launched(version: str, workflow: str) -> bool:
    """Whether the benchmark step runs under the sweep's mpirun/srun with the launch script.

    0.12-0.16 engine runs start their own MPI workers from one process (inventory ``facts.launch``: the
    executor in ORCHESTRATOR mode); wrapped, every rank would start its own set. Later releases run through
    the LLM API, whose workers the launch script starts.
    """
    rel = inventory.for_version(version)
    mode = rel.launch_mode(workflow) if rel is not None else None
    if mode is None:
        return has(version, "llm_api_launch") or workflow != "legacy-engine"
    return mode != "single-process"


def _llm_api_options_flag(version: str) -> str:
    """``--config`` only where the release's own throughput defines it (bench/trtllm/cli_inventory.yaml).

    The alias came with NVIDIA/TensorRT-LLM#9104 (opened 2025-11-12): the 1.2.0 and 1.3.0rc4 CLI pages list
    ``--config, --extra_llm_api_options``, the 1.1.0 page and 1.0.0rc4's source only the long name. The long
    name stays a name of the same option after it, so a release without an inventory entry gets it: every
    release from 0.17 on accepts it.
    """
    rel = inventory.for_version(version)
    if rel is not None and "--config" in rel.options("throughput"):
        return "--config"
    return "--extra_llm_api_options"


def _backend_name(backend: str, version: str) -> str:
    if backend in ("_autodeploy", "autodeploy"):
        return "_autodeploy" if supports(version, "default_backend_pytorch") else "autodeploy"
    return backend


def _trtllm_steps(job: Job, kv_fraction: float | None, report: Path) -> list[Step]:
    steps = []
    if job.spec.trtllm.workflow == "legacy-engine":
        steps.append(_build_step(job))
    steps.append(_throughput_step(job, kv_fraction, report))
    return [fit_to_release(s, job.spec.trtllm.version) for s in steps]


# What a run loses when the release's CLI lacks an option (said in ``plan``).
_INSTEAD = {
    "--report_json": "the console report is parsed instead",
    "--warmup": "no warm-up requests",
    "--model_path": "the model is loaded by its --model name",
}
# The same setting under another name in some releases (0.12-0.14 build: --max_seq_length)
_RENAMED = {"--max_seq_len": "--max_seq_length", "--max_seq_length": "--max_seq_len"}


def fit_to_release(step: Step, version: str) -> Step:
    """A trtllm-bench step made to fit the release's own options (``bench/trtllm/cli_inventory.yaml``).

    Options the release lacks are dropped with the reason, renamed ones take the release's name, and of two
    options in a mutually exclusive group the later is dropped. Releases without an inventory entry and
    other tools (trtllm-build) are left as built.
    """
    rel = inventory.for_version(version)
    sub = "build" if step.name == "build" else "throughput"
    if rel is None or not step.argv or step.argv[0] != "trtllm-bench" or sub not in step.argv:
        return step
    cut = step.argv.index(sub)
    dropped: list[str] = []
    head = _fit_section(step.argv[1:cut], rel, "global", dropped)
    tail = _fit_section(step.argv[cut + 1 :], rel, sub, dropped)
    tail = _exclusive(tail, rel, sub, dropped)
    argv = [step.argv[0], *head, sub, *tail]
    return Step(step.name, argv, step.creates, step.launched, (*step.dropped, *dropped))


def _pairs(tokens: list[str], known: dict[str, dict[str, Any]]) -> list[list[str]]:
    """['--a', '1', '--flag'] -> [['--a', '1'], ['--flag']]: an option and its value, if it takes one."""
    out: list[list[str]] = []
    for tok in tokens:
        opt = known.get(out[-1][0]) if out else None
        takes_value = out and len(out[-1]) == 1 and (opt is None or not opt["is_flag"])
        if takes_value and not (opt is None and tok.startswith("--")):
            out[-1].append(tok)
        else:
            out.append([tok])
    return out


def _fit_section(tokens: list[str], rel: inventory.Release, section: str, dropped: list[str]) -> list[str]:
    known = rel.options(section)
    kept: list[str] = []
    for pair in _pairs(tokens, known):
        name = pair[0]
        if name in known:
            kept += pair
        elif _RENAMED.get(name) in known:
            kept += [_RENAMED[name], *pair[1:]]
        else:
            instead = f"; {_INSTEAD[name]}" if name in _INSTEAD else ""
            where = "before the subcommand" if section == "global" else f"in {section}"
            why = rel.unsettled(section, name)
            if why:
                dropped.append(
                    f"{' '.join(pair)}: not settled whether TensorRT-LLM {rel.name} has {name} {where}: "
                    f"{why}{instead}"
                )
                continue
            dropped.append(
                f"{' '.join(pair)}: TensorRT-LLM {rel.name} has no {name} {where} "
                f"({rel.where(section)}){instead}"
            )
    return kept


def _exclusive(tokens: list[str], rel: inventory.Release, sub: str, dropped: list[str]) -> list[str]:
    known = rel.options(sub)
    pairs = _pairs(tokens, known)
    for group in rel.exclusive_groups(sub):
        given = [p for p in pairs if p[0] in group["options"]]
        for extra in given[1:]:
            pairs.remove(extra)
            dropped.append(
                f"{' '.join(extra)}: TensorRT-LLM {rel.name} takes one of {', '.join(group['options'])} "
                f"(group {group['name']!r}); {given[0][0]} is kept"
            )
    return [t for p in pairs for t in p]


def launcher_script(sweep: Sweep) -> str:
    """The MPI launch script of the sweep's release: the inventory's (read from that release's setup.py).

    0.12 installs ``trtllm-hlapi-launch`` (setup.py at 20709ce); from the hlapi -> llmapi rename on it is
    ``trtllm-llmapi-launch`` (setup.py of 1.0.0rc4). A release whose setup.py was not inventoried takes the
    name of its era: before 0.13, the hlapi one.
    """
    version = sweep.trtllm.version
    rel = inventory.for_version(version)
    if rel is not None and rel.launcher:
        return rel.launcher
    m = re.match(r"^(\d+)\.(\d+)", version)
    old = bool(m) and (int(m.group(1)), int(m.group(2))) < (0, 13)
    return "trtllm-hlapi-launch" if old else "trtllm-llmapi-launch"


def _identity(sweep: Sweep) -> tuple[str | None, str | None]:
    return sweep.trtllm.version, sweep.trtllm.workflow


def llm_api_options(path: str | None) -> dict[str, Any] | None:
    """The extra LLM-API options YAML as data (kept with each run: export needs it, the file may move)."""
    if not path:
        return None
    try:
        data = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as e:
        raise UserError(f"trtllm.extra_llm_api_options: cannot read {path}: {e}") from None
    if data is not None and not isinstance(data, dict):
        raise UserError(f"trtllm.extra_llm_api_options: {path} must hold a mapping of LLM-API options")
    return data


def check_version(sweep: Sweep, installed: str | None) -> None:
    """Stop before any job when the installed TensorRT-LLM takes other command lines than the sweep's."""
    if not installed:
        return
    declared = sweep.trtllm.version
    try:
        differ = [f for f in ERA if supports(installed, f) != supports(declared, f)]
    except ValueError:
        return
    if differ:
        raise UserError(
            f"trtllm.version: the sweep says {declared} but TensorRT-LLM {installed} is installed, and their "
            f"command lines differ ({', '.join(differ)}); set trtllm.version: {installed}"
        )


def _before_run(sweep: Sweep) -> None:
    llm_api_options(sweep.trtllm.extra_llm_api_options)  # a missing options file stops us before any job


def installed_version(sweep: Sweep) -> str | None:
    """The installed TensorRT-LLM version (package metadata: no CUDA initialisation, no banner)."""
    code = "import importlib.metadata as m; print(m.version('tensorrt_llm'))"
    out = provenance.probe([*container_prefix_for(sweep), "python3", "-c", code])
    return (out.strip() or None) if out else None


def _run_facts(sweep: Sweep) -> dict[str, Any]:
    return {"llm_api_options": llm_api_options(sweep.trtllm.extra_llm_api_options)}


def _resolve_paths(sweep: Sweep, base: Path) -> Sweep:
    opts = sweep.trtllm.extra_llm_api_options if sweep.trtllm else None
    if sweep.trtllm and opts and not Path(opts).is_absolute():
        trt = sweep.trtllm.model_copy(update={"extra_llm_api_options": str((base / opts).resolve())})
        sweep = sweep.model_copy(update={"trtllm": trt})
    return sweep


def _notes(sweep: Sweep) -> list[str]:
    """What ``plan`` says about the release: unchecked commands, era source, unsettled facts, launch mode."""
    v, workflow = sweep.trtllm.version, sweep.trtllm.workflow
    rel = inventory.for_version(v)
    if rel is None:
        known = ", ".join(r.name for r in inventory.releases())
        return [
            f"TensorRT-LLM {v} has no entry in the option inventory (bench/trtllm/cli_inventory.yaml; read "
            f"for {known}): neither its source nor its CLI page could be read, so its commands follow the "
            "era table of bench/trtllm/command.py and are not checked option by option"
        ]
    out = []
    src = rel.data["source"]
    read_at = ", ".join(sorted({str(c)[:8] for c in (src.get("files") or {}).values()}))
    if src.get("era_source"):
        out.append(
            f"TensorRT-LLM {rel.name}: era source, not stamped: no stored commit of the release holds its "
            f"bench files; read at {read_at} (cli_inventory.yaml source.notes says why)"
        )
    elif src.get("stamped") is False:
        out.append(
            f"TensorRT-LLM {rel.name}: its release commit {str(src['commit'])[:8]} holds no bench file; "
            f"read at the neighbouring commits {read_at}"
        )
    for item in rel.facts.get("unsettled") or []:
        what = "which values" if item.get("what") == "choices" else "whether"
        out.append(
            f"TensorRT-LLM {rel.name}: not settled {what} {item['command']} takes {item['option']}: "
            f"{item['why']}"
        )
    if not launched(v, workflow) and sweep.cluster.launcher != "local":
        out.append(
            f"TensorRT-LLM {rel.name}: the {workflow} benchmark starts its own MPI workers from one process "
            f"(cli_inventory.yaml facts.launch); it is run as one process, not under {sweep.cluster.launcher}"
        )
    return out


ENGINE = EngineSpec(
    name="trtllm-bench",
    schema_engine="tensorrt-llm",
    benchmark_tool="trtllm-bench",
    section="trtllm",
    options=TrtllmSpec,
    check_sweep=_trtllm_check_sweep,
    check_job=_trtllm_check_job,
    steps=_trtllm_steps,
    report=report,
    dataset=dataset,
    identity=_identity,
    launcher_script=launcher_script,
    before_run=_before_run,
    check_installed=check_version,
    installed_version=installed_version,
    run_facts=_run_facts,
    resolve_paths=_resolve_paths,
    notes=_notes,
)
