"""``llmbench diff BASE HEAD`` on folders and on real git repositories made in tmp.

Hand-worked bound (tests/guide/test_bound.py): Llama 3.1 8B FP16 on one H200 at 128/128, no request or
concurrency limit, is bounded at 34,112 output tokens/s (lm_head on the last prompt token only), so a run
of 17,056 is at 50.0 % of it.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import markdown
import pytest

from bench.cli import app
from bench.contract.resultfile import dump, write_file
from bench.errors import ProblemsError
from site_gen.pages import diff
from tests.site.conftest import result, run, write_fixture_results

L8 = "meta-llama/Llama-3.1-8B-Instruct"
HOSTILE = "<img src=x onerror=alert(1)> *bold* [link](javascript:alert(3)) @octocat | cell"


def _half_bound_file() -> object:
    runs = [{"workload": {"isl": 128, "osl": 128}, "metrics": {"output_tokens_per_s": 17056.0}}]
    return result("H200 SXM 141GB", L8, "FP16", "New Lab", "1.3.0", runs)


def _git(repo: Path, *args: str) -> str:
    env_args = ["-c", "user.email=t@example.org", "-c", "user.name=t", "-c", "commit.gpgsign=false"]
    return subprocess.run(
        ["git", *env_args, "-C", str(repo), *args], check=True, capture_output=True, text=True
    ).stdout


@pytest.fixture
def sides(tmp_path: Path) -> tuple[Path, Path]:
    """BASE: the site fixture's 12 runs. HEAD: one file added (a run at half its bound), one figure
    changed (A100 TP 4: 21,000 -> 22,000), one file removed (V100, 2 runs)."""
    base, head = tmp_path / "base", tmp_path / "head"
    write_fixture_results(base)
    shutil.copytree(base, head)
    write_file(_half_bound_file(), head / "c" / "new.yaml")
    a100 = head / "a" / "20260115-a100.yaml"
    a100.write_text(a100.read_text(encoding="utf-8").replace("21000.0", "22000.0"), encoding="utf-8")
    (head / "b" / "20260115-v100.yaml").unlink()
    return base, head


def test_folders_report_files_runs_bound_and_pages(sides: tuple[Path, Path], tmp_path: Path) -> None:
    base, head = sides
    d = diff.compare(base, head, tmp_path / "work")
    assert (d.files_added, d.files_changed, d.files_removed) == (
        ["c/new.yaml"], ["a/20260115-a100.yaml"], ["b/20260115-v100.yaml"]
    )  # fmt: skip
    assert (len(d.added), len(d.changed), len(d.removed)) == (1, 1, 2)
    assert d.added.iloc[0]["pct_of_bound"] == pytest.approx(50.0, abs=0.01)
    assert d.changed.iloc[0]["output_tps"] == 22000.0
    text = diff.render(d, "base", "head")
    assert "Runs: 1 added, 1 changed, 2 removed (12 → 11)" in text
    assert "| 17,056 | 50.0% |" in text
    # nearest: the fixture's H200 FP16 128/128 TP 1 run (16,000 tok/s per GPU): 17,056 / 16,000 = 1.07
    assert "H200 SXM 141GB tensorrt-llm 1.2.0 TP1: 16,000 (1.07×)" in text
    assert "generated/gpus/h200-sxm-141gb.html" in text and "generated/gpus/v100-sxm2-32gb.html" in text
    # A100 FP16 128/128 has TP 1, 2 and 4 (the changed run is TP 4): a TP-scaling chart changes; H200 and
    # A100 share FP16 128/128: a generational one; the V100 (70B) leaves the 70B FP8/FP16 comparisons.
    views = diff.charts(d)
    assert {"runs-by-gpu", "tp-scaling", "generational-uplift", "pct-of-bound"} <= set(views)
    assert "latency-pareto" not in views  # no run of the fixture has a per-user figure
    from site_gen.charts import views as registry

    named = {name for name, _, _ in diff.COMPARISONS} | {"latency-pareto", "operating-points", "pct-of-bound"}
    assert named | set(views) <= set(registry.all_views())  # every name is a real view
    # a new best: no FP16 128/128 H200 run beat 16,000 before; the A100 TP 4 run is no best (7,000 at TP 1)
    assert "- H200 SXM 141GB, Llama 3.1 8B, FP16, 128/128: 17,056 tok/s per GPU (was 16,000)" in text
    assert (
        "A100 SXM4 80GB, Llama 3.1 8B, FP16, 128/128: " not in text.split("### New bests")[1].split("###")[0]
    )


def test_git_refs_give_the_same_report_as_folders(sides: tuple[Path, Path], tmp_path: Path) -> None:
    base, head = sides
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "main")
    shutil.copytree(base, repo / "results")
    _git(repo, "add", "results")
    _git(repo, "commit", "-qm", "base")
    shutil.rmtree(repo / "results")
    shutil.copytree(head, repo / "results")
    _git(repo, "add", "-A", "results")
    _git(repo, "commit", "-qm", "head")
    from_git = diff.diff("main~1", "main", repo)
    from_folders = diff.diff(str(base), str(head), repo)
    assert from_git.split("\n", 1)[1] == from_folders.split("\n", 1)[1]  # all but the title line
    assert "Runs: 1 added, 1 changed, 2 removed" in from_git
    assert _git(repo, "status", "--porcelain") == ""  # the work tree untouched


def test_a_ref_without_results_counts_every_run_as_added(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "main")
    (repo / "README").write_text("x\n")
    _git(repo, "add", "README")
    _git(repo, "commit", "-qm", "empty")
    write_fixture_results(repo / "results")
    _git(repo, "add", "results")
    _git(repo, "commit", "-qm", "results")
    text = diff.diff("main~1", "main", repo)
    assert "Runs: 12 added, 0 changed, 0 removed (0 → 12)" in text


def test_a_bad_ref_is_an_error_naming_it(tmp_path: Path, runner) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "main")
    out = runner.invoke(app, ["diff", "no-such-ref", "main", "--repo", str(repo)])
    assert out.exit_code == 1
    assert "BASE 'no-such-ref': expected a results folder or a git ref" in out.output


def test_output_is_a_new_file_and_an_existing_one_is_left_alone(
    sides: tuple[Path, Path], tmp_path: Path, runner
) -> None:
    base, head = sides
    out_file = tmp_path / "report.md"
    done = runner.invoke(app, ["diff", str(base), str(head), "--output", str(out_file)])
    assert done.exit_code == 0, done.output
    assert out_file.read_text(encoding="utf-8").startswith("## llmbench diff")
    out_file.write_text("mine\n")
    again = runner.invoke(app, ["diff", str(base), str(head), "--output", str(out_file)])
    assert again.exit_code == 1 and "expected a new file" in again.output
    assert out_file.read_text() == "mine\n"


def test_strings_from_result_files_render_as_text(tmp_path: Path) -> None:
    """The report rendered by a real Markdown renderer: the hostile publisher and a warning's text come
    out as text: no element, no link, no mention, the table's cells intact."""
    base, head = tmp_path / "base", tmp_path / "head"
    write_fixture_results(base)
    shutil.copytree(base, head)
    runs = [run(1, 128, 128, 1000.0)]
    write_file(result("H100 SXM 80GB", L8, "FP8", HOSTILE, "1.3.0", runs), head / "x" / "hostile.yaml")
    d = diff.compare(base, head, tmp_path / "work", warnings=lambda _: [("x/hostile.yaml", HOSTILE)])
    text = diff.render(d, "main", HOSTILE)
    rendered = markdown.markdown(text, extensions=["tables"])
    assert "<img" not in rendered and "<a " not in rendered and "<em>" not in rendered
    assert "@octocat" not in text and "&#64;octocat" in text
    row = next(line for line in text.splitlines() if "H100 SXM 80GB" in line and line.startswith("| "))
    assert row.count(" | ") == 5  # six cells: the '|' of the publisher is escaped


def test_a_run_above_its_bound_is_refused_with_the_gate_s_message(tmp_path: Path) -> None:
    """A run far above its bound never reaches the report: HEAD's ingest applies validate's data-quality
    gate, so the report is the gate's located refusal (the pull request's validate step fails first)."""
    base, head = tmp_path / "base", tmp_path / "head"
    write_fixture_results(base)
    shutil.copytree(base, head)
    claim = result("H200 SXM 141GB", L8, "FP8", "Claims Inc", "1.3.0", [run(1, 128, 128, 5e7)])
    text = dump(claim)  # 50 M tok/s on one H200, written without the checks write_file makes
    (head / "x").mkdir()
    (head / "x" / "claim.yaml").write_text(text, encoding="utf-8")
    with pytest.raises(ProblemsError) as e:
        diff.compare(base, head, tmp_path / "work")
    assert any("expected at most the speed-of-light bound" in str(p) for p in e.value.problems)


def test_a_step_down_in_a_touched_configuration_is_listed(tmp_path: Path) -> None:
    """Eight configurations over releases 0.11-0.14 that move by under 1 %, and in HEAD a ninth whose
    0.12 and later figures are 30 % below its 0.11 one: that step is listed, the quiet ones are not."""
    base, head = tmp_path / "base", tmp_path / "head"
    wobble = (1.0, 1.004, 0.997, 1.002)
    for k in range(8):
        for i, version in enumerate(("0.11.0", "0.12.0", "0.13.0", "0.14.0")):
            r = result(
                "H100 SXM 80GB",
                L8,
                "FP8",
                "Quiet",
                version,
                [run(1, 128, 128 * (k + 1), 1000 * wobble[(i + k) % 4])],
            )
            write_file(r, base / f"q{k}" / f"{version}.yaml")
    shutil.copytree(base, head)
    for version, tps in (("0.11.0", 2000.0), ("0.12.0", 1400.0), ("0.13.0", 1405.0), ("0.14.0", 1398.0)):
        write_file(
            result("GH200 96GB", L8, "FP8", "Steps", version, [run(1, 128, 2048, tps)]),
            head / "s" / f"{version}.yaml",
        )
    text = diff.render(diff.compare(base, head, tmp_path / "work"), "base", "head")
    section = text.split("### Steps down across releases")[1].split("###")[0]
    assert (
        "| GH200 96GB, Llama 3.1 8B, FP8, 128/2048, TP1 | Steps \\(tensorrt-llm\\) | 0.11.0 → 0.12.0 |"
        in section
    )
    assert section.count("\n| ") == 2  # the head row and that one


def test_validate_s_neighbour_warnings_for_the_change_s_own_files(tmp_path: Path) -> None:
    """The data-quality gate's warning (bench.contract.quality: more than 3x from the same configuration
    in the releases around it) reaches the report for a file the change adds, and only for it: H100 FP8
    128/128 at 1,000 tok/s in 0.11, 0.12, 0.14 and 0.15, and HEAD adds 0.13 at 4,000 (4x the median of
    its neighbours, 1,000)."""
    base, head = tmp_path / "base", tmp_path / "head"
    for version in ("0.11.0", "0.12.0", "0.14.0", "0.15.0"):
        r = result("H100 SXM 80GB", L8, "FP8", "Hist", version, [run(1, 128, 128, 1000.0)])
        write_file(r, base / "h" / f"{version}.yaml")
    shutil.copytree(base, head)
    write_file(
        result("H100 SXM 80GB", L8, "FP8", "Hist", "0.13.0", [run(1, 128, 128, 4000.0)]),
        head / "h" / "0.13.0.yaml",
    )
    d = diff.compare(base, head, tmp_path / "work")
    assert [f for f, _ in d.warnings] == ["h/0.13.0.yaml"]
    assert "expected within 3x" in d.warnings[0][1] and "4,000.00" in d.warnings[0][1]
    text = diff.render(d, "base", "head")
    assert "h/0.13.0.yaml" in text.split("### Warnings")[1].split("###")[0]


def test_a_change_within_the_measured_spread_is_not_called_a_regression(tmp_path: Path) -> None:
    """The committed measured curves before and after their repetitions (issue 30), through the real diff.
    BASE is each file as it was before: a repeated run's first repetition as its figures, no repetitions.
    HEAD is the file as committed: the median of the repetitions, their range beside it. Both figures lie
    in the range by construction, so every repeated run whose figures differ from its first repetition's is
    reported as within the measured spread, with that range and sample count (computed here from the
    file, not written down: results/ grows)."""
    import yaml

    root = Path(__file__).resolve().parents[2]
    base, head = tmp_path / "base", tmp_path / "head"
    expected: list[tuple[str, str]] = []
    for path in sorted((root / "results" / "measured").rglob("*.yaml")):
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        if not any(r.get("repetitions") for r in data.get("runs", [])):
            continue
        rel = path.relative_to(root / "results")
        for r in data["runs"]:
            reps = r.pop("repetitions", None)
            if not reps:
                continue
            first = reps[0]["metrics"]["output_tokens_per_s_per_gpu"]
            figures = [x["metrics"]["output_tokens_per_s_per_gpu"] for x in reps]
            median = r["metrics"]["output_tokens_per_s_per_gpu"]
            if reps[0]["metrics"] != r["metrics"]:  # any figure changed: the run is listed
                spread = f"({min(figures):,.0f}-{max(figures):,.0f}, {len(figures)} samples)"
                expected.append((f"{first:,.0f} → {median:,.0f} tok/s per GPU", spread))
            r["metrics"] = reps[0]["metrics"]
        for side in (base, head):
            (side / rel).parent.mkdir(parents=True, exist_ok=True)
        (base / rel).write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
        shutil.copy(path, head / rel)
    if not expected:
        pytest.skip("no committed measured run has repetitions whose figures differ from the first")
    d = diff.compare(base, head, tmp_path / "work", warnings=lambda _results: [])
    text = diff.render(d, "before", "after")
    changed = text.split("### Changed figures and the measured spread")[1].split("###")[0]
    lines = [x for x in changed.splitlines() if x.startswith("- ")]
    assert len(lines) == len(expected)
    for change, spread in expected:
        want = f"{change}: within the measured spread {spread}: not a regression"
        assert any(want in x for x in lines), (want, lines)


def test_spread_verdicts_hand_worked() -> None:
    import pandas as pd

    def r(v: float, lo: float | None = None, hi: float | None = None, n: int = 1) -> pd.Series:
        figures = {"output_tps_per_gpu": v, "output_tps_per_gpu_min": lo, "output_tps_per_gpu_max": hi}
        return pd.Series({**figures, "samples": n})

    assert diff.spread_verdict(r(800, 682, 852, 3), r(852)).startswith("within the measured spread (682-852")
    outside = "outside the measured spread (590-610, 3 samples)"
    assert diff.spread_verdict(r(600, 590, 610, 3), r(852)) == outside
    assert diff.spread_verdict(r(800), r(852)).startswith("no spread measured")


@pytest.mark.parametrize("with_filter", [True, False], ids=["python-3.11.4+", "python-3.11.2"])
def test_a_ref_s_archive_is_extracted_inside_its_folder_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, with_filter: bool
) -> None:
    """Both paths (tarfile's data filter, and the check used where Python predates it) extract plain
    files and refuse a member that climbs out of the folder."""
    import io
    import tarfile

    from bench.errors import UserError

    if not with_filter:
        monkeypatch.delattr(tarfile, "data_filter", raising=False)

    def archive(name: str) -> tarfile.TarFile:
        buf = io.BytesIO()
        with tarfile.open(fileobj=buf, mode="w") as tar:
            info = tarfile.TarInfo(name)
            info.size = 3
            tar.addfile(info, io.BytesIO(b"ok\n"))
        buf.seek(0)
        return tarfile.open(fileobj=buf)

    with archive("results/a.yaml") as tar:
        diff.extract(tar, tmp_path / "good")
    assert (tmp_path / "good" / "results" / "a.yaml").read_bytes() == b"ok\n"
    with archive("../escaped.yaml") as tar, pytest.raises((UserError, tarfile.TarError)):
        diff.extract(tar, tmp_path / "bad")
    assert not (tmp_path / "escaped.yaml").exists()
