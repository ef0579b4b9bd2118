"""``llmbench diff BASE HEAD``: what a change to results/ does, as Markdown for a pull-request comment.

BASE and HEAD are results folders or git refs (read with ``git archive``, never checked out). Both are
ingested with the real ``site_gen.data.load.ingest`` into a temporary folder (so each run's % of bound is the
site's own, ``site_gen.data.bound``), then compared:

- files added, changed and removed; runs added, changed (same file and configuration, other figures) and
  removed (a file moved to another path: its runs count as removed and added);
- each new or changed run with its % of bound and its nearest published neighbours in BASE (same model,
  precision and workload; the same GPU, engine and parallelism first);
- the charts and site pages it changes (``charts``: the views whose comparisons gain or lose a run; GPU
  and model pages, the explorer, the latency page, the release history);
- new bests (a GPU × model × precision × workload whose best output tokens/s per GPU rises);
- warnings: runs above 100 % of their bound, and the per-run warnings of ``WarningsFn``;
- steps down across releases (``site_gen.data.steps``) in the configurations the change touches.

Every string that comes from a result file is escaped (``md``): the report is posted as a comment on a
stranger's pull request and renders as Markdown there.
"""

from __future__ import annotations

import hashlib
import html
import io
import math
import re
import subprocess
import tarfile
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from bench.errors import UserError
from site_gen.data import steps
from site_gen.data.dimensions import TRTLLM
from site_gen.pages.generated import slug

# Per-run warnings beyond the report's own (above the bound): (file relative to results/, message).
WarningsFn = Callable[[Path], list[tuple[str, str]]]


def gate_warnings(results: Path) -> list[tuple[str, str]]:
    """The warnings ``llmbench validate`` prints (bench.contract.quality: a run far from the same
    configuration in the releases around it, a per-user rate above the all-GPU one), as (file relative
    to results/, message)."""
    from bench.contract import quality
    from bench.contract.resultfile import check_many, scan

    outcomes = check_many(scan([results]).files, results, payload_fn=quality.neighbour_payload)
    found = quality.all_warnings(((o.file, o.payload or []) for o in outcomes), results)
    return [(w.file, f"line {w.line}: {w.message}" if w.line else w.message) for w in found]


# A run's identity across the two sides: its file and every column that tells two runs apart.
IDENTITY = (
    "file", "engine_version", "gpu", "model_name", "precision", "workload", "tp", "pp", "ep", "attention_dp",
    "concurrency", "num_requests", "streaming", "dataset", "kv_cache_dtype", "max_batch_size",
)  # fmt: skip
FIGURES = (
    "output_tps", "output_tps_per_gpu", "output_tps_per_user", "ttft_ms_avg", "tpot_ms_avg",
    "request_latency_ms_avg", "notes", "samples", "output_tps_per_gpu_min", "output_tps_per_gpu_max",
)  # fmt: skip
SHOWN = 50  # the most runs listed per section (a comment holds 65,536 characters)
NEIGHBOURS = 3

_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()|~!])")  # emphasis, code, links, images, table cells
_MD_LEADING = re.compile(r"^([#>+\-=])")  # a heading, quote, list or rule at a line's start
_MD_ORDERED = re.compile(r"^(\d+)([.)])(?=\s|$)")  # "12. " starts an ordered list


def md(value: object) -> str:
    """A string from a result file, safe in Markdown text and table cells: HTML escaped (no tag, no
    entity), Markdown punctuation backslash-escaped, '@' as an entity (no mention), one line."""
    text = " ".join(str(value).split())
    text = html.escape(text, quote=False).replace("@", "&#64;")
    text = _MD_SPECIAL.sub(r"\\\1", text)
    return _MD_ORDERED.sub(r"\1\\\2", _MD_LEADING.sub(r"\\\1", text))


# ---- the two sides ----------------------------------------------------------------------------------


def _git(repo: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, check=False)


def materialise(spec: str, repo: Path, results_path: str, work: Path, name: str) -> Path:
    """The results folder of ``spec``: the folder itself, or the ref's ``results_path`` extracted under
    ``work/name`` (a ref without that folder gives an empty one)."""
    folder = Path(spec)
    if folder.is_dir():
        return folder
    commit = _git(repo, "rev-parse", "--verify", "--quiet", f"{spec}^{{commit}}")
    if commit.returncode != 0:
        raise UserError(
            f"{name.upper()} {spec!r}: expected a results folder or a git ref of {repo}, got neither"
        )
    sha = commit.stdout.decode().strip()
    out = work / name
    out.mkdir(parents=True)
    tree = _git(repo, "ls-tree", "-d", "--name-only", sha, "--", results_path)
    if not tree.stdout.strip():
        return out  # the ref has no results yet
    archive = _git(repo, "archive", "--format=tar", sha, "--", results_path)
    if archive.returncode != 0:
        raise UserError(
            f"git archive {spec} {results_path}: {archive.stderr.decode(errors='replace').strip()}"
        )
    with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
        extract(tar, out)
    return out / results_path


def extract(tar: tarfile.TarFile, out: Path) -> None:
    """Extract ``tar`` under ``out`` with no links out of the folder and no absolute paths: tarfile's
    ``filter="data"`` (PEP 706) where Python has it, 3.11.4 and later; Debian 12's python3 is 3.11.2
    (found by ``make fresh-check``), so there only regular files and folders with relative, ``..``-free
    names are extracted, and anything else is refused, as strict as the filter or stricter."""
    if hasattr(tarfile, "data_filter"):
        tar.extractall(out, filter="data")
        return
    members = tar.getmembers()
    for m in members:
        parts = Path(m.name).parts
        if m.name.startswith("/") or ".." in parts or not (m.isfile() or m.isdir()):
            raise UserError(f"git archive: {m.name!r} is not a plain file or folder inside the archive")
    tar.extractall(out, members=members)  # every member checked just above


def _files(results: Path) -> dict[str, str]:
    """Result file (relative path) -> SHA-256 of its bytes."""
    return {
        p.relative_to(results).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(results.rglob("*.yaml"))
        if "sources" not in p.relative_to(results).parts and "raw" not in p.relative_to(results).parts
    }


def _runs(results: Path, db: Path) -> pd.DataFrame:
    """Every run of ``results`` as the site sees it (ingested into ``db``); empty without result files."""
    import duckdb

    from site_gen.data.load import ingest

    if not _files(results):
        return pd.DataFrame(columns=[*IDENTITY, *FIGURES, "pct_of_bound", "erratum", "publisher"])
    ingest(results, db)
    con = duckdb.connect(str(db), read_only=True)
    try:
        df = con.execute("SELECT * FROM runs").fetchdf()
    finally:
        con.close()
    df["occurrence"] = df.groupby(list(IDENTITY), dropna=False).cumcount()
    return df


def _key(row: pd.Series) -> tuple:
    return tuple(None if _missing(row[c]) else row[c] for c in (*IDENTITY, "occurrence"))


def _missing(v: object) -> bool:
    return v is None or (isinstance(v, float) and math.isnan(v)) or v is pd.NA or v is pd.NaT


def _same(a: object, b: object) -> bool:
    if _missing(a) and _missing(b):
        return True
    if isinstance(a, float) and isinstance(b, float):
        return math.isclose(a, b, rel_tol=1e-12)
    return a == b


# ---- the comparison ---------------------------------------------------------------------------------


@dataclass
class Diff:
    files_added: list[str] = field(default_factory=list)
    files_changed: list[str] = field(default_factory=list)
    files_removed: list[str] = field(default_factory=list)
    added: pd.DataFrame = field(default_factory=pd.DataFrame)
    changed: pd.DataFrame = field(default_factory=pd.DataFrame)  # HEAD's version
    removed: pd.DataFrame = field(default_factory=pd.DataFrame)
    base: pd.DataFrame = field(default_factory=pd.DataFrame)
    head: pd.DataFrame = field(default_factory=pd.DataFrame)
    head_db: Path | None = None
    warnings: list[tuple[str, str]] = field(default_factory=list)


def compare(base: Path, head: Path, work: Path, warnings: WarningsFn = gate_warnings) -> Diff:
    """Compare two results folders (ingested under ``work``)."""
    fb, fh = _files(base), _files(head)
    d = Diff(
        files_added=sorted(fh.keys() - fb.keys()),
        files_removed=sorted(fb.keys() - fh.keys()),
        files_changed=sorted(k for k in fb.keys() & fh.keys() if fb[k] != fh[k]),
    )
    d.base, d.head = _runs(base, work / "base.duckdb"), _runs(head, work / "head.duckdb")
    d.head_db = work / "head.duckdb" if not d.head.empty else None
    bk = {_key(r): i for i, r in d.base.iterrows()}
    hk = {_key(r): i for i, r in d.head.iterrows()}
    d.added = d.head.loc[[hk[k] for k in hk if k not in bk]]
    d.removed = d.base.loc[[bk[k] for k in bk if k not in hk]]
    changed = [
        hk[k]
        for k in hk
        if k in bk and not all(_same(d.head.at[hk[k], c], d.base.at[bk[k], c]) for c in FIGURES)
    ]
    d.changed = d.head.loc[changed]
    touched = {*d.files_added, *d.files_changed}  # the change's own files: not every old warning again
    d.warnings = [w for w in warnings(head) if w[0] in touched]
    return d


def neighbours(run: pd.Series, base: pd.DataFrame, n: int = NEIGHBOURS) -> pd.DataFrame:
    """The published runs of BASE nearest to ``run``: same model, precision and workload; the same GPU,
    engine and GPU count first, then the nearest release."""
    if base.empty:
        return base
    same = base[
        (base["model_name"] == run["model_name"])
        & (base["precision"] == run["precision"])
        & (base["workload"] == run["workload"])
        & base["output_tps_per_gpu"].notna()
    ]
    if same.empty:
        return same
    rank = (
        (same["gpu"] != run["gpu"]).astype(int) * 4
        + (same["engine"] != run["engine"]).astype(int) * 2
        + (same["n_gpus"] != run["n_gpus"]).astype(int)
    )
    return same.assign(_rank=rank).sort_values(["_rank", "version_key"], ascending=[True, False]).head(n)


GROUP = ["gpu", "model_name", "precision", "workload"]


def new_bests(d: Diff) -> list[dict[str, object]]:
    """Groups whose best output tokens/s per GPU (within the bound) is now a new or changed run."""
    touched = pd.concat([d.added, d.changed])
    if touched.empty:
        return []
    out = []
    for key, runs in touched.groupby(GROUP, dropna=False):
        ok = runs[~(runs["pct_of_bound"] > 100) & runs["output_tps_per_gpu"].notna()]
        if ok.empty:
            continue
        best = ok.loc[ok["output_tps_per_gpu"].idxmax()]
        mask = pd.Series(True, index=d.base.index)
        for c, v in zip(GROUP, key, strict=True):
            mask &= d.base[c] == v
        old = (
            d.base[mask & ~(d.base["pct_of_bound"] > 100)]["output_tps_per_gpu"].max()
            if not d.base.empty
            else None
        )
        if _missing(old) or best["output_tps_per_gpu"] > old:
            out.append(
                {
                    "group": dict(zip(GROUP, key, strict=True)),
                    "run": best,
                    "was": None if _missing(old) else old,
                }
            )
    return out


def pages(d: Diff) -> list[str]:
    """The site pages whose content the change alters (URLs from the site's root)."""
    touched = pd.concat([d.added, d.changed, d.removed])
    if touched.empty:
        return []
    out = ["explorer.html", "index.html"]
    if touched[["tpot_ms_avg", "output_tps_per_user"]].notna().any().any():
        out.append("latency.html")
    out += sorted({f"generated/gpus/{slug(g)}.html" for g in touched["gpu"].dropna()})
    out += sorted({f"generated/models/{slug(m)}.html" for m in touched["model_name"].dropna()})
    if (touched["engine"] == "tensorrt-llm").any():
        out.append("guide/releases.html")
    return out


# The views whose charts a touched run enters, by what the run shares with others in HEAD: (view, the
# columns two runs must share, the column that must take two values among them). A run alone in its group
# changes no comparison chart; the explorer's own charts (runs-by-gpu, runs-by-tp) take every run.
COMPARISONS = (
    ("tp-scaling", ["gpu", "model_name", "precision", "workload"], "tp"),
    ("precision-uplift", ["gpu", "model_name", "workload"], "precision"),
    ("generational-uplift", ["model_name", "precision", "workload"], "gpu"),
    ("engine-comparison", ["gpu", "model_name", "precision", "workload"], "engine"),
    ("version-history", list(steps.KEY_COLUMNS), "engine_version"),
)


def charts(d: Diff) -> list[str]:
    """The views whose charts the change alters (names of ``site_gen.charts.views``), by the rules above."""
    touched = pd.concat([d.added, d.changed, d.removed])
    if touched.empty:
        return []
    out = ["runs-by-gpu", "runs-by-tp"]
    if touched["pct_of_bound"].notna().any():
        out.append("pct-of-bound")
    if ((touched["output_tps_per_user"] > 0) & touched["output_tps_per_gpu"].notna()).any():
        out += ["latency-pareto", "operating-points"]
    both = pd.concat([d.head, d.base]) if not d.base.empty else d.head
    for view, group, varies in COMPARISONS:
        keys = touched[group].drop_duplicates()
        counts = both.groupby(group, dropna=False)[varies].nunique().reset_index()
        if not keys.merge(counts[counts[varies] > 1], on=group).empty:
            out.append(view)
    return out


def _touched_keys(d: Diff) -> set[tuple]:
    touched = pd.concat([d.added, d.changed])
    return {tuple(None if _missing(r[c]) else r[c] for c in steps.KEY_COLUMNS) for _, r in touched.iterrows()}


def _norm(key: tuple) -> tuple:
    return tuple(None if _missing(v) else v for v in key)


def step_rows(d: Diff) -> list[dict[str, object]]:
    """Steps down in HEAD's histories of the configurations the change touches."""
    if d.head_db is None or (d.added.empty and d.changed.empty):
        return []
    keys = _touched_keys(d)
    _, down = steps.regressions(d.head_db)
    return [steps.row(f) for f in down if _norm(f.history.key) in keys]


def spread_step_rows(d: Diff) -> list[dict[str, object]]:
    """Steps down in touched configurations left out because they stay within a measured spread."""
    if d.head_db is None or (d.added.empty and d.changed.empty):
        return []
    keys = _touched_keys(d)
    found = steps.within_spread(steps.histories(d.head_db))
    return [steps.row(f) for f in found if f.step.ratio < 1 and _norm(f.history.key) in keys]


def spread_verdict(new: pd.Series, old: pd.Series) -> str:
    """How a changed run's output tok/s per GPU compares with the measured spread of either version.

    Hand-worked: 800 against 852 whose repetitions ran 682-852 is "within the measured spread"; 600 is
    "outside"; two single samples have no spread to compare with.
    """
    a, b = new["output_tps_per_gpu"], old["output_tps_per_gpu"]
    if _missing(a) or _missing(b):
        return ""
    ranges = [
        (r["output_tps_per_gpu_min"], r["output_tps_per_gpu_max"], r.get("samples"))
        for r in (new, old)
        if not _missing(r.get("output_tps_per_gpu_min")) and not _missing(r.get("output_tps_per_gpu_max"))
    ]
    if not ranges:
        return "no spread measured (single samples): not evidence of a change on its own"
    for lo, hi, n in ranges:
        if lo <= a <= hi and lo <= b <= hi:
            return f"within the measured spread ({_num(lo)}-{_num(hi)}, {int(n)} samples): not a regression"
    lo, hi, n = ranges[0]
    return f"outside the measured spread ({_num(lo)}-{_num(hi)}, {int(n)} samples)"


# ---- the report -------------------------------------------------------------------------------------


def _num(v: object, fmt: str = "{:,.0f}") -> str:
    return "–" if _missing(v) else fmt.format(v)


def _config(r: pd.Series) -> str:
    par = f"TP{int(r['tp'])}" + (f" PP{int(r['pp'])}" if r["pp"] and r["pp"] > 1 else "")
    # a latency curve's points differ only in their concurrency: name it, or its lines read alike
    conc = r.get("concurrency")
    par += f", concurrency {int(conc)}" if not _missing(conc) else ""
    return md(f"{r['gpu']}, {r['model_name']}, {r['precision']}, {r['workload']}, {par}")


def _list(title: str, items: list[str]) -> list[str]:
    if not items:
        return []
    shown = [f"- `{i}`" if "`" not in i else f"- {md(i)}" for i in items[:SHOWN]]
    more = [f"- … and {len(items) - SHOWN:,} more"] if len(items) > SHOWN else []
    return [f"**{title}** ({len(items):,})", "", *shown, *more, ""]


def _release(r: pd.Series) -> str:
    """'tensorrt-llm 1.2.0'; another engine's release already carries its name ('vLLM 0.24.0':
    ``dimensions.release_label``), so it is not written twice."""
    return f"{r['engine']} {r['engine_version']}" if r["engine"] == TRTLLM else str(r["engine_version"])


def _run_table(runs: pd.DataFrame, base: pd.DataFrame) -> list[str]:
    head = "| Run | Source | Release | Output tok/s per GPU | % of bound | Nearest in BASE (tok/s per GPU) |"
    lines = [head, "|---|---|---|---:|---:|---|"]
    for _, r in runs.head(SHOWN).iterrows():
        near = neighbours(r, base)
        near_text = "; ".join(
            f"{md(n['gpu'])} {md(_release(n))} TP{int(n['tp'])}: "
            f"{_num(n['output_tps_per_gpu'])} ({r['output_tps_per_gpu'] / n['output_tps_per_gpu']:.2f}×)"
            if not _missing(r["output_tps_per_gpu"])
            else f"{md(n['gpu'])} {md(n['engine_version'])}: {_num(n['output_tps_per_gpu'])}"
            for _, n in near.iterrows()
        )
        lines.append(
            f"| {_config(r)} | {md(r['publisher'])} | {md(_release(r))} "
            f"| {_num(r['output_tps_per_gpu'])} | {_num(r['pct_of_bound'], '{:.1f}%')} "
            f"| {near_text or 'none'} |"
        )
    if len(runs) > SHOWN:
        lines.append(f"\n… and {len(runs) - SHOWN:,} more runs.")
    return [*lines, ""]


def _changed_figures(d: Diff) -> list[str]:
    """Each changed run's output tok/s per GPU, before and after, judged against the measured spread."""
    if d.changed.empty:
        return []
    bk = {_key(r): r for _, r in d.base.iterrows()}
    lines = []
    for _, r in d.changed.head(SHOWN).iterrows():
        old = bk.get(_key(r))
        verdict = spread_verdict(r, old) if old is not None else ""
        if not verdict or _missing(old["output_tps_per_gpu"]):
            continue
        lines.append(
            f"- {_config(r)}: {_num(old['output_tps_per_gpu'])} → {_num(r['output_tps_per_gpu'])}"
            f" tok/s per GPU: {verdict}"
        )
    return lines


def render(d: Diff, base_label: str, head_label: str) -> str:
    """The Markdown report."""
    n_added, n_changed, n_removed = len(d.added), len(d.changed), len(d.removed)
    out = [
        f"## llmbench diff: {md(base_label)} → {md(head_label)}",
        "",
        f"Files: {len(d.files_added):,} added, {len(d.files_changed):,} changed, {len(d.files_removed):,} "
        f"removed. Runs: {n_added:,} added, {n_changed:,} changed, {n_removed:,} removed "
        f"({len(d.base):,} → {len(d.head):,}).",
        "",
    ]
    out += _list("Files added", d.files_added) + _list("Files changed", d.files_changed)
    out += _list("Files removed", d.files_removed)
    if n_added or n_changed:
        out += ["### New and changed runs", "", *_run_table(pd.concat([d.added, d.changed]), d.base)]
    if n_removed:
        out += ["### Removed runs", ""]
        out += [
            f"- {_config(r)} ({md(r['publisher'])}, {md(r['engine_version'])})"
            for _, r in d.removed.head(SHOWN).iterrows()
        ]
        out += [""]
    bests = new_bests(d)
    out += ["### New bests", ""]
    out += [
        f"- {md(b['group']['gpu'])}, {md(b['group']['model_name'])}, {md(b['group']['precision'])}, "
        f"{md(b['group']['workload'])}: {_num(b['run']['output_tps_per_gpu'])} tok/s per GPU "
        f"(was {_num(b['was']) if b['was'] is not None else 'none'})"
        for b in bests[:SHOWN]
    ] or ["None."]
    out += ["", "### Warnings", ""]
    warn = [
        f"- {_config(r)}: {r['pct_of_bound']:.0f}% of its speed-of-light bound"
        + (
            " (erratum noted)"
            if not _missing(r.get("erratum"))
            else ": physically impossible; check the figure or add an erratum note"
        )
        for _, r in pd.concat([d.added, d.changed]).iterrows()
        if not _missing(r["pct_of_bound"]) and r["pct_of_bound"] > 100
    ]
    warn += [f"- `{f}`: {md(m)}" if "`" not in f else f"- {md(f)}: {md(m)}" for f, m in d.warnings]
    out += warn or ["None."]
    out += ["", "### Steps down across releases (touched configurations)", ""]
    rows = step_rows(d)
    if rows:
        out += [
            "| Configuration | Source | Releases | Before | After | Change |",
            "|---|---|---|---:|---:|---:|",
        ]
        out += [
            f"| {md(r['config'])} | {md(r['source'])} | {md(r['releases'])} | {_num(r['before'])} "
            f"| {_num(r['after'])} | {r['change']:+.1f}% |"
            for r in rows[:SHOWN]
        ]
    else:
        out += ["None."]
    within = spread_step_rows(d)
    if within:
        out += [
            "",
            "Not reported: steps down within a repeated run's measured spread (no evidence of a change):",
            "",
        ]
        out += [
            f"- {md(r['config'])}, {md(r['releases'])}: {_num(r['before'])} → {_num(r['after'])}"
            for r in within[:SHOWN]
        ]
    changes = _changed_figures(d)
    if changes:
        out += ["", "### Changed figures and the measured spread", ""]
        out += changes
    out += ["", "### Charts and pages this changes", ""]
    views = charts(d)
    out += [f"Charts (views): {', '.join(f'`{v}`' for v in views)}.", ""] if views else []
    out += [f"- `{p}`" for p in pages(d)] or ["None."]
    return "\n".join(out) + "\n"


def diff(
    base: str,
    head: str,
    repo: Path = Path("."),
    results_path: str = "results",
    warnings: WarningsFn = gate_warnings,
) -> str:
    """The Markdown report of BASE -> HEAD (folders or git refs of ``repo``)."""
    with tempfile.TemporaryDirectory(prefix="llmbench-diff-") as tmp:
        work = Path(tmp)
        b = materialise(base, repo, results_path, work, "base")
        h = materialise(head, repo, results_path, work, "head")
        return render(compare(b, h, work, warnings), base, head)
