"""Shared fixtures: the repository root, a CLI runner, and for the browser tests of tests/site and
tests/guide one headless Chromium per session, the site built from the real results/ and a local HTTP
server of a built site.

Playwright's sync API allows one session per thread, so every browser test shares the session-wide
``browser`` (started on first use) instead of starting its own Chromium.
"""

from __future__ import annotations

import functools
import http.server
import os
import shutil
import socket
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

ROOT = Path(__file__).resolve().parent.parent
# The results folder the tests that read the data use: the committed results/, or $LLMBENCH_TEST_RESULTS
# (tests/test_plausible_data.py points it at a copy with extra contributor files: no test may pin the data).
RESULTS = Path(os.environ.get("LLMBENCH_TEST_RESULTS") or ROOT / "results")


@pytest.fixture
def runner() -> CliRunner:
    return CliRunner()


@pytest.fixture(scope="session")
def root() -> Path:
    return ROOT


# The one place that says which browser the tests drive (never `playwright install`): $LLMBENCH_CHROMIUM,
# else the first working one on PATH: Debian's chromium (this machine), Google Chrome (GitHub's Ubuntu
# runners ship it; there `apt-get install chromium` gives a snap wrapper that cannot run).
BROWSER_NAMES = ("chromium", "google-chrome", "google-chrome-stable", "chromium-browser")


def find_chromium() -> Path | None:
    """The Chromium or Chrome executable for the browser tests, or None if there is none."""
    if os.environ.get("LLMBENCH_CHROMIUM"):
        return Path(os.environ["LLMBENCH_CHROMIUM"])
    for name in BROWSER_NAMES:
        found = shutil.which(name)
        if found and not _snap_wrapper(Path(found)):
            return Path(found)
    return None


def _snap_wrapper(path: Path) -> bool:
    """Ubuntu's chromium/chromium-browser packages: a script that only says to install the snap."""
    real = path.resolve()
    if real.parts[:2] == ("/", "snap") or real.name == "snap":
        return True
    with real.open("rb") as f:
        head = f.read(4096)
    return head.startswith(b"#!") and b"snap" in head


CHROMIUM = find_chromium()
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync",
]  # fmt: skip


@pytest.fixture(scope="session")
def browser() -> Iterator[object]:
    """One headless Chromium (``CHROMIUM``, driven by Playwright) for every browser test of the session."""
    from playwright.sync_api import sync_playwright

    if CHROMIUM is None:
        pytest.fail(f"no Chromium or Chrome found (tried {', '.join(BROWSER_NAMES)}; set $LLMBENCH_CHROMIUM)")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield b
        b.close()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass


def serve(folder: Path, port: int = 0) -> tuple[str, http.server.ThreadingHTTPServer]:
    """Serve ``folder`` on 127.0.0.1 from a daemon thread: (base URL, server to shut down)."""
    handler = functools.partial(_Quiet, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{server.server_address[1]}", server


def build(
    results: Path, work: Path, poke_db: Callable[[object], None] | None = None, port: int = 8000
) -> Path:
    """ingest + generate + mkdocs build --strict into work/site; optionally change the DB in between.

    The site is built for http://127.0.0.1:<port>/: Material's instant navigation only follows links
    whose origin (port included) matches the site_url written into sitemap.xml."""
    import duckdb

    from site_gen.data.load import ingest
    from site_gen.site.build import render_site

    db = work / "llmbench.duckdb"
    ingest(results, db)
    if poke_db:
        con = duckdb.connect(str(db))
        poke_db(con)
        con.close()
    os.environ["LLMBENCH_SITE_URL"] = f"http://127.0.0.1:{port}/"
    # LLMBENCH_SITE_STRICT=0 lets a developer look at the site while another page is broken; default strict.
    # results= as `llmbench site build` passes it: the database is fresh (no re-ingest), and the hooks see the
    # results folder (the MLPerf page counts what it leaves out of results/sources/mlperf)
    strict = os.environ.get("LLMBENCH_SITE_STRICT") != "0"
    render_site(ROOT / "mkdocs.yml", work / "site", db, strict=strict, results=results)
    return work


@pytest.fixture(scope="session")
def real_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site of the committed results/ (``RESULTS``), built once per session (work/site, work/…duckdb)."""
    work = tmp_path_factory.mktemp("real-site")
    (work / "port").write_text(str(port := free_port()))
    return build(RESULTS, work, port=port)


@pytest.fixture(scope="session")
def real_url(real_site: Path) -> Iterator[str]:
    url, server = serve(real_site / "site", int((real_site / "port").read_text()))
    yield url
    server.shutdown()
