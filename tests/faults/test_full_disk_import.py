"""``llmbench import-csv`` and ``import-mlperf`` into a full results folder (issue 11): exit 1 with one line
naming the file and the full disk, no traceback, and results/ byte-identical: no half-written YAML, no
temporary file, no new folder, and none of the import's files (all or none: the first files of an import
that fills the disk part-way are not left beside the old ones).

Two moments each: full before the import starts, and room for about half of the import's files.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.faults.checks import LLMBENCH, digests, one_error_line
from tests.faults.conftest import PAGE

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ROOT / "results" / "sources"


def room_for_half(folder: Path) -> int:
    """Half the bytes the committed import's files take on a tmpfs (each file rounded up to pages)."""
    return sum(-(-p.stat().st_size // PAGE) * PAGE for p in folder.rglob("*.yaml")) // 2


@pytest.fixture
def seed(tmp_path: Path) -> Path:
    """results/ as it was: one hand-written file, and an older MLPerf import of one file."""
    seed = tmp_path / "seed"
    (seed / "testlab").mkdir(parents=True)
    shutil.copy(ROOT / "tests" / "contract" / "data" / "valid.yaml", seed / "testlab" / "valid.yaml")
    (seed / "mlperf").mkdir()
    (seed / "mlperf" / "older.yaml").write_text("# an older import\n", encoding="utf-8")
    return seed


@pytest.mark.parametrize("half", [False, True], ids=["full before start", "fills up during the import"])
def test_import_csv_into_a_full_results_folder(full_disk, seed: Path, tmp_path: Path, half: bool) -> None:
    folder = tmp_path / "disk"
    free = room_for_half(ROOT / "results" / "kisti") if half else 0  # 7 files, about 31 KB
    argv = [LLMBENCH, "import-csv", str(SOURCES / "kisti_neuron_trtllm.csv"), "--results", str(folder)]

    ran = full_disk(argv, folder=folder, seed=seed, free=free)

    line = one_error_line(ran.output, ran.code, folder / "kisti")
    assert line.endswith("nothing written"), line
    assert digests(ran.after) == digests(seed)


@pytest.mark.parametrize("half", [False, True], ids=["full before start", "fills up during the import"])
def test_import_mlperf_into_a_full_results_folder(full_disk, seed: Path, tmp_path: Path, half: bool) -> None:
    folder = tmp_path / "disk"
    free = room_for_half(ROOT / "results" / "mlperf") if half else 0  # 213 files, about 1.2 MB
    argv = [LLMBENCH, "import-mlperf", str(SOURCES / "mlperf" / "mlperf_inference_llm_results.csv"),
            "--results", str(folder)]  # fmt: skip

    ran = full_disk(argv, folder=folder, seed=seed, free=free)

    one_error_line(ran.output, ran.code, folder / "mlperf")  # a file of the import, being written
    assert digests(ran.after) == digests(seed)  # the older import kept, no temporary file left
