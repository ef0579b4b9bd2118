"""Site fixtures: small result files (with an XSS probe), that site built and served on 127.0.0.1, and a
watched browser page. The browser and the real-results site are shared with tests/guide (tests/conftest.py).

Each site is built once per session (ingest -> generate -> mkdocs build --strict) into a temporary folder.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from pathlib import Path

import duckdb
import pytest

from bench.contract.resultfile import write_file
from bench.contract.schema import ResultFile
from tests.conftest import CHROMIUM_ARGS, build, free_port, serve

__all__ = [
    "CHROMIUM_ARGS",
    "FIXTURE_COMMANDS",
    "JS_URL",
    "ROOT",
    "XSS",
    "Watched",
    "build",
    "free_port",
    "result",
    "serve",
]

ROOT = Path(__file__).resolve().parents[2]
XSS = "<img src=x onerror=alert(1)>"
# the commands the H200 FP8 fixture's source page "gives" (the run card shows them one per line)
FIXTURE_COMMANDS = (
    "python prepare_dataset.py --stdout > $dataset_file",
    "trtllm-bench --model $model_name throughput",
)
JS_URL = "javascript:alert(2)"


def result(
    gpu: str,
    model: str,
    precision: str,
    publisher: str,
    version: str,
    runs: list[dict],
    commands: list[str] | None = None,
) -> ResultFile:
    source = {"kind": "published", "publisher": publisher, "title": f"fixture {publisher}"}
    if commands:
        source["commands"] = commands
    return ResultFile.model_validate(
        {
            "schema_version": 1,
            "submission": {
                "submitter": "llmbench tests",
                "system": f"test system {publisher}",
                "date": dt.date(2026, 1, 15),
                "source": source,
            },
            "hardware": {"gpu": gpu},
            "software": {
                "engine": "tensorrt-llm",
                "engine_version": version,
                "workflow": "pytorch",
                "benchmark_tool": "trtllm-bench",
            },
            "model": {"id": model, "weight_precision": precision},
            "runs": runs,
        }
    )


def run(tp: int, isl: int, osl: int, tps: float) -> dict:
    return {
        "parallelism": {"tp": tp},
        "workload": {"isl": isl, "osl": osl, "num_requests": 3000},
        "metrics": {"output_tokens_per_s": tps},
    }


def write_fixture_results(folder: Path) -> None:
    """12 runs on 3 GPUs, 2 models, 2 precisions; one publisher and one version carry the XSS probe."""
    l8, l70 = "meta-llama/Llama-3.1-8B-Instruct", "meta-llama/Llama-3.1-70B-Instruct"
    files = {
        "a/20260115-h200.yaml": result(
            "H200 SXM 141GB", l8, "FP8", "Fixture Lab", "1.2.0",
            [run(1, 128, 128, 28000.0), run(2, 128, 128, 50000.0), run(1, 128, 2048, 12000.0)],
            commands=[FIXTURE_COMMANDS[0], f"{FIXTURE_COMMANDS[1]} {XSS}"],
        ),
        "a/20260115-h200-fp16.yaml": result(
            "H200 SXM 141GB", l8, "FP16", "Fixture Lab", "1.2.0",
            [run(1, 128, 128, 16000.0), run(1, 2048, 128, 2000.0)],
        ),
        "a/20260115-a100.yaml": result(
            "A100 SXM4 80GB", l8, "FP16", "Fixture Lab", "1.2.0",
            [run(1, 128, 128, 7000.0), run(2, 128, 128, 12500.0), run(4, 128, 128, 21000.0)],
        ),
        "b/20260115-v100.yaml": result(
            "V100 SXM2 32GB", l70, "FP16", XSS, "0.9.0",
            [run(4, 128, 128, 900.0), run(8, 128, 128, 1500.0)],
        ),
        "b/20260115-h200-70b.yaml": result(
            "H200 SXM 141GB", l70, "FP8", "Fixture Lab", "0.21",
            [run(4, 128, 128, 9000.0), run(8, 128, 128, 15000.0)],
        ),
    }  # fmt: skip
    for name, res in files.items():
        write_file(res, folder / name)


def _model_xss(con: duckdb.DuckDBPyConnection) -> None:
    # Model names come from the registry, so a result file cannot carry the probe there; the database can.
    # Nor the engine version (a pattern); the publisher comes from the file itself.
    con.execute("UPDATE runs SET model_name = ?, engine_version = ? WHERE gpu = 'V100 SXM2 32GB'", [XSS, XSS])
    # A link the run card must not follow (a result file's URL is validated; the database is not).
    con.execute("UPDATE runs SET source_url = ? WHERE gpu = 'V100 SXM2 32GB'", [JS_URL])


@pytest.fixture(scope="session")
def fixture_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    work = tmp_path_factory.mktemp("fixture-site")
    write_fixture_results(work / "results")
    (work / "port").write_text(str(port := free_port()))
    return build(work / "results", work, _model_xss, port)


@pytest.fixture(scope="session")
def fixture_url(fixture_site: Path) -> Iterator[str]:
    url, server = serve(fixture_site / "site", int((fixture_site / "port").read_text()))
    yield url
    server.shutdown()


def chosen(page, dim: str) -> list[str]:
    """The values a reader sees ticked in a filter: its list opened (it is built on first opening), read,
    and closed again with Escape."""
    page.click(f'.lb-filter[data-dim="{dim}"] .lb-filter-button')
    values = page.eval_on_selector_all(
        f'.lb-filter[data-dim="{dim}"] .lb-option input:checked', "els => els.map(e => e.value)"
    )
    page.keyboard.press("Escape")
    return values


class Watched:
    """A page that records console errors, page errors, dialogs and every request not to 127.0.0.1."""

    def __init__(self, browser: object, width: int = 1280, height: int = 900) -> None:
        self.context = browser.new_context(viewport={"width": width, "height": height}, accept_downloads=True)
        self.page = self.context.new_page()
        self.errors: list[str] = []
        self.external: list[str] = []
        self.dialogs: list[str] = []
        self.page.on("console", lambda m: m.type == "error" and self.errors.append(m.text))
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("dialog", self._dialog)
        self.context.route("**/*", self._route)

    def _dialog(self, d: object) -> None:
        self.dialogs.append(d.message)
        d.dismiss()

    def _route(self, route: object) -> None:
        url = route.request.url
        if url.startswith(("http://127.0.0.1:", "file://", "data:", "blob:")):
            route.continue_()
        else:
            self.external.append(url)
            route.abort()

    def open(self, url: str) -> object:
        self.page.goto(url)
        self.page.wait_for_function("document.body && document.body.dataset.lbReady", timeout=20_000)
        return self.page

    def close(self) -> None:
        self.context.close()


@pytest.fixture
def watched(browser: object) -> Iterator[Watched]:
    w = Watched(browser)
    yield w
    w.close()
