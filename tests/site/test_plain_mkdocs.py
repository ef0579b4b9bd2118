"""Plain ``mkdocs build`` / ``mkdocs serve`` are the way in, as on a fresh clone (issue 17).

Every test runs MkDocs as a real process with the project's Python and a clean environment: the hooks must
find results/, ingest them when the database is missing or stale, and generate the pages themselves.
Run counts are checked against the result files read with plain PyYAML, not against the ingest.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from bench.contract import destinations
from tests.site.conftest import ROOT, free_port
from tests.site.test_nav import _nav, _paths

NEW_PUBLISHER = "Fresh Clone Lab"


def clean_env(**extra: str) -> dict[str, str]:
    """This environment without anything pointing the hooks elsewhere (as a new user's shell)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("LLMBENCH_") and k != "PYTHONPATH"}
    return env | {"NO_MKDOCS_2_WARNING": "1"} | extra


def _kinds_in(results: Path) -> dict[str, int]:
    """Runs per source kind in every result file under ``results`` (not results/sources/), counted with
    PyYAML, but MLPerf's (schema_version 2), which MLCommons' rules keep off the explorer."""
    files = [p for p in results.rglob("*.yaml") if "sources" not in p.relative_to(results).parts[:1]]
    counts: dict[str, int] = {}
    for p in files:
        d = yaml.safe_load(p.read_text(encoding="utf-8"))
        if d["schema_version"] == 1:
            kind = d["submission"]["source"]["kind"]
            counts[kind] = counts.get(kind, 0) + len(d["runs"])
    return counts


def runs_in(results: Path) -> int:
    """Runs the explorer shows: measured and published; estimates (``source.kind: modelled``) are no runs."""
    return sum(n for kind, n in _kinds_in(results).items() if kind != "modelled")


def estimates_in(results: Path) -> int:
    """Estimates the explorer carries beside its runs (behind its off-by-default "Source kind" switch)."""
    return _kinds_in(results).get("modelled", 0)


def explorer_data(html: str, read: callable) -> dict:
    """The explorer's run table, as shipped to the browser (its one data file)."""
    (src,) = set(re.findall(r'src="(assets/data/runs\.[0-9a-f]+\.json)"', html))
    text = read(src)
    return json.loads(text)


def site_data(site: Path) -> dict:
    html = (site / "explorer.html").read_text(encoding="utf-8")
    return explorer_data(html, lambda src: (site / src).read_text(encoding="utf-8"))


def mkdocs(*args: str, cwd: Path = ROOT, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", *args],
        cwd=cwd,
        env=clean_env(**env),
        capture_output=True,
        text=True,
        timeout=600,
    )


def new_result(publisher: str = NEW_PUBLISHER) -> str:
    """A valid hand-written result file (2 runs) from another publisher."""
    text = (ROOT / "tests" / "contract" / "data" / "valid.yaml").read_text(encoding="utf-8")
    return text.replace("publisher: TestLab", f"publisher: {publisher}")


def tree(site: Path) -> dict[str, bytes]:
    """Every file of a built site, except the sitemaps (they carry the build date)."""
    return {
        str(p.relative_to(site)): p.read_bytes()
        for p in sorted(site.rglob("*"))
        if p.is_file() and not p.name.startswith("sitemap.xml")
    }


@pytest.fixture
def kisti_copy(tmp_path: Path) -> Path:
    """A copy of results/ reduced to KISTI's 7 files (63 runs), so each build takes seconds."""
    shutil.copytree(ROOT / "results" / "kisti", tmp_path / "results" / "kisti")
    return tmp_path / "results"


def test_fresh_clone_builds_with_plain_mkdocs_and_matches_llmbench_site_build(tmp_path: Path) -> None:
    # Nothing beside the clone (no sibling folders), no build/, no docs/generated/: the committed HEAD.
    clone = tmp_path / "repo"
    subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True, timeout=300)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["repo"]
    assert not (clone / "build").exists() and not (clone / "docs" / "generated").exists()
    which = subprocess.run(
        [sys.executable, "-c", "import site_gen; print(site_gen.__file__)"],
        cwd=clone, env=clean_env(), capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert Path(which.stdout.strip()).is_relative_to(clone), "the clone's own code must be the one tested"

    built = mkdocs("build", "--strict", "-d", "site-mkdocs", cwd=clone)
    assert built.returncode == 0, built.stderr[-3000:]
    site = clone / "site-mkdocs"
    for page in _paths(_nav()):
        assert (site / page.replace(".md", ".html")).is_file(), page
    data = site_data(site)
    # every run and, behind the switch, every estimate (mkdocs.yml estimates_in_explorer)
    assert data["n"] == runs_in(clone / "results") + estimates_in(clone / "results")
    assert runs_in(clone / "results") > 4000
    assert not (clone / "docs" / "generated").exists()  # pages are generated in memory

    # The CLI wrapper makes the same site from the same results.
    cli = subprocess.run(
        [sys.executable, "-c", "from bench.cli import app; app()", "site", "build", "--out", "site-cli"],
        cwd=clone, env=clean_env(), capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert cli.returncode == 0, cli.stderr[-3000:]
    made_by_cli = tree(clone / "site-cli")
    # the CLI marks the folders it builds (bench/contract/destinations.py): the one file plain MkDocs lacks
    assert made_by_cli.pop(destinations.SITE_MARKER) == destinations.SITE_MARKER_TEXT.encode()
    assert made_by_cli == tree(site)


def test_a_new_result_file_reaches_the_explorer_on_the_next_build(tmp_path: Path, kisti_copy: Path) -> None:
    env = {"LLMBENCH_RESULTS": str(kisti_copy), "LLMBENCH_DB": str(tmp_path / "db.duckdb")}
    config = str(ROOT / "mkdocs.yml")
    first = mkdocs("build", "--strict", "-f", config, "-d", str(tmp_path / "site"), **env)
    assert first.returncode == 0, first.stderr[-3000:]
    assert site_data(tmp_path / "site")["n"] == 63 == runs_in(kisti_copy)

    (kisti_copy / "fresh").mkdir()
    (kisti_copy / "fresh" / "20260420-h200.yaml").write_text(new_result(), encoding="utf-8")
    second = mkdocs("build", "--strict", "-f", config, "-d", str(tmp_path / "site"), **env)
    assert second.returncode == 0, second.stderr[-3000:]
    assert "is stale; ingesting" in second.stderr
    data = site_data(tmp_path / "site")
    assert data["n"] == 65 == runs_in(kisti_copy)
    assert NEW_PUBLISHER in data["columns"]["publisher"]["dict"]


def bad_result() -> str:
    """valid.yaml with its first run's ``tp: 1`` (line 25) made ``tp: two``."""
    lines = new_result().splitlines(keepends=True)
    assert lines[24] == "    tp: 1\n"
    lines[24] = "    tp: two\n"
    return "".join(lines)


def test_a_plain_build_prints_no_notes_on_the_project_s_own_settings(
    tmp_path: Path, kisti_copy: Path
) -> None:
    """mkdocs-static-i18n's INFO notes on settings this project chose on purpose (relative language-switch
    links, the Korean site_description) are left out; its progress lines and MkDocs' own stay."""
    env = {"LLMBENCH_RESULTS": str(kisti_copy), "LLMBENCH_DB": str(tmp_path / "db.duckdb")}
    built = mkdocs("build", "--strict", "-f", str(ROOT / "mkdocs.yml"), "-d", str(tmp_path / "site"), **env)
    assert built.returncode == 0, built.stderr[-3000:]
    assert "Building 'ko' documentation" in built.stderr and "Documentation built" in built.stderr
    for note in ("'link' option", "Overriding 'ko' config", "navigation elements"):
        assert note not in built.stderr, note


def test_a_bad_result_file_stops_mkdocs_build_with_its_located_problem(
    tmp_path: Path, kisti_copy: Path
) -> None:
    env = {"LLMBENCH_RESULTS": str(kisti_copy), "LLMBENCH_DB": str(tmp_path / "db.duckdb")}
    config, site = str(ROOT / "mkdocs.yml"), tmp_path / "site"
    assert mkdocs("build", "--strict", "-f", config, "-d", str(site), **env).returncode == 0
    before_site, before_db = tree(site), (tmp_path / "db.duckdb").read_bytes()

    (kisti_copy / "zz-bad.yaml").write_text(bad_result(), encoding="utf-8")
    failed = mkdocs("build", "--strict", "-f", config, "-d", str(site), **env)
    assert failed.returncode == 1
    assert "zz-bad.yaml:25: runs.0.parallelism.tp: expected a valid integer, got str 'two'" in failed.stderr
    assert "1 problem(s) in results; database left unchanged" in failed.stderr
    assert "Traceback" not in failed.stderr
    # The build stopped before MkDocs touched its output: the previous site and database are intact.
    assert tree(site) == before_site
    assert (tmp_path / "db.duckdb").read_bytes() == before_db


class Server:
    """``mkdocs serve`` as a real process on 127.0.0.1, its output collected in the background."""

    def __init__(self, env: dict[str, str]) -> None:
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.output: list[str] = []
        args = ["serve", "-f", str(ROOT / "mkdocs.yml"), "-a", f"127.0.0.1:{self.port}"]
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "mkdocs", *args],
            env=clean_env(**env, LLMBENCH_SITE_URL=f"{self.base}/"),
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True,
        )  # fmt: skip
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.output.append(line)

    def get(self, path: str) -> str:
        # generous: mkdocs serve answers no request while it rebuilds, which is slow on a loaded machine
        with urllib.request.urlopen(f"{self.base}/{path}", timeout=120) as r:
            return r.read().decode("utf-8")

    def data(self) -> dict:
        return explorer_data(self.get("explorer.html"), self.get)

    def wait_for(self, what: str, check: callable, timeout: float = 180) -> object:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            assert self.proc.poll() is None, "mkdocs serve died:\n" + "".join(self.output[-40:])
            try:
                if got := check():
                    return got
            except OSError:
                pass  # not serving yet
            time.sleep(0.5)
        raise AssertionError(f"timed out waiting for {what}:\n" + "".join(self.output[-40:]))

    def stop(self) -> None:
        os.killpg(self.proc.pid, signal.SIGTERM)
        self.proc.wait(timeout=30)


@pytest.fixture
def server(tmp_path: Path, kisti_copy: Path) -> Iterator[Server]:
    s = Server({"LLMBENCH_RESULTS": str(kisti_copy), "LLMBENCH_DB": str(tmp_path / "db.duckdb")})
    yield s
    s.stop()


def test_mkdocs_serve_shows_a_changed_result_file_and_keeps_the_last_good_site(
    server: Server, kisti_copy: Path
) -> None:
    first = server.wait_for("the explorer", lambda: server.data())
    assert first["n"] == 63 == runs_in(kisti_copy)

    (kisti_copy / "fresh.yaml").write_text(new_result(), encoding="utf-8")
    second = server.wait_for("the new run", lambda: (d := server.data())["n"] == 65 and d)
    assert NEW_PUBLISHER in second["columns"]["publisher"]["dict"]

    (kisti_copy / "zz-bad.yaml").write_text(bad_result(), encoding="utf-8")
    located = "zz-bad.yaml:25: runs.0.parallelism.tp: expected a valid integer, got str 'two'"
    server.wait_for("the located problem", lambda: any(located in line for line in server.output))
    time.sleep(1)
    assert server.data() == second  # still the last good site

    # Another rebuild with the same bad file (a good file saved again) says nothing new: once is enough.
    # A rebuild has ended when the server reloads the browsers (it says so only after a build returned).
    # MkDocs' own "Documentation built" line once did not appear in CI after a rebuild that had ended
    # (mkdocs-static-i18n adds a filter for that line around its other-language builds, and removes it).
    # The bad file's rebuild ends first: every build begun but the first (before the server) is
    # followed by a reload.
    def reloads() -> int:
        return sum("Reloading browsers" in line for line in server.output)

    def begun() -> int:
        return sum("Building documentation..." in line for line in server.output)

    server.wait_for("the bad file's rebuild to end", lambda: reloads() == begun() - 1)
    rebuilds = reloads()
    (kisti_copy / "fresh.yaml").write_text(new_result(), encoding="utf-8")
    server.wait_for("the next rebuild", lambda: reloads() > rebuilds)
    assert sum(located in line for line in server.output) == 1
    # Fixed: one line says so, and the site has the good results again.
    (kisti_copy / "zz-bad.yaml").unlink()
    server.wait_for("the fix", lambda: any("results are valid again" in line for line in server.output))
    assert server.wait_for("the site", lambda: (d := server.data())["n"] == 65 and d) == second
