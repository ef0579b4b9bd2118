"""Results-store fixtures: a small valid result file, scratch results folders, the real database.

``real_db`` is built once per session from the committed results/ (or ``$LLMBENCH_TEST_RESULTS``) with
the real ``ingest``; the bad-input tests use a scratch folder holding ``data/valid.yaml`` plus one bad file.
"""

from __future__ import annotations

import csv
import shutil
from pathlib import Path

import pytest

from site_gen.data.load import ingest
from tests.conftest import RESULTS

HERE = Path(__file__).parent
ROOT = HERE.parents[1]
SOURCES = ROOT / "results" / "sources"  # the published tables results/kisti and results/nvidia come from
KISTI_CSV = SOURCES / "kisti_neuron_trtllm.csv"
NVIDIA_CSV = SOURCES / "nvidia_trtllm_perf_overview.csv"


def configurations(csv_path: Path) -> int:
    """Distinct configurations of a published CSV: rows alike in every column but metric and value."""
    with csv_path.open(encoding="utf-8") as f:
        rows = csv.DictReader(f)
        return len({tuple(v for k, v in r.items() if k not in ("metric", "value")) for r in rows})


@pytest.fixture(scope="session")
def valid_text() -> str:
    """A small, hand-written valid result file (2 runs); tests mutate copies of it."""
    return (HERE / "data" / "valid.yaml").read_text(encoding="utf-8")


@pytest.fixture
def results(tmp_path: Path, valid_text: str) -> Path:
    """A scratch results folder holding the valid file as good/valid.yaml."""
    folder = tmp_path / "results"
    (folder / "good").mkdir(parents=True)
    (folder / "good" / "valid.yaml").write_text(valid_text, encoding="utf-8")
    return folder


@pytest.fixture(scope="session")
def real_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The DuckDB database built by ``ingest`` from the committed results/ (``RESULTS``)."""
    db = tmp_path_factory.mktemp("db") / "llmbench.duckdb"
    ingest(RESULTS, db)
    return db


@pytest.fixture
def kisti_results(tmp_path: Path) -> Path:
    """A scratch copy of the committed KISTI results (63 runs, 7 files)."""
    folder = tmp_path / "results"
    shutil.copytree(ROOT / "results" / "kisti", folder / "kisti")
    return folder
