"""Estimates of engines other than TensorRT-LLM (issue 28): their releases named with the engine in the
Version filter, and the accuracy page's count of estimates per engine.

Authorities: hand-counted fixture files (the small published fixture, the three TensorRT-LLM estimates of
``test_estimates_site.modelled_file`` and two vLLM estimates of our own, unvalidated), DuckDB queries of
the database the ingest writes, and for the committed results/ the built page against a DuckDB query of
the site's own database (counts computed, never today's numbers).
"""

from __future__ import annotations

import copy
import re
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import duckdb
import pytest

from bench.contract.estimate_bands import band_of
from bench.contract.resultfile import dump_data
from site_gen import i18n
from site_gen.data.dimensions import release_label
from site_gen.data.estimates import EngineCount, engine_counts
from site_gen.data.load import ingest
from site_gen.pages.estimate_page import engine_section
from tests.site.conftest import write_fixture_results
from tests.site.test_estimates_site import modelled_file

VLLM_REASON = "no published vLLM run in results/ to compare with"


def vllm_file() -> dict[str, Any]:
    """Two vLLM 0.24.0 estimates (TP 1 and 2), no pair: unvalidated, with the file's reason."""
    data = copy.deepcopy(modelled_file())
    data["software"] = {"engine": "vllm", "engine_version": "0.24.0", "benchmark_tool": "aiconfigurator"}
    data["submission"]["source"]["estimator"]["perf_data_versions"] = {"h200_sxm/vllm": "0.24.0"}
    band = band_of("H200 SXM 141GB · dense · FP8 · 1 GPU · vLLM", []).as_record()
    band["reason"] = VLLM_REASON
    runs = data["runs"][:2]
    for r in runs:
        r["estimate"]["band"] = band
    data["runs"] = runs
    return data


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The fixture's database: 12 published runs, 3 TensorRT-LLM and 2 vLLM estimates (ingest only)."""
    work = tmp_path_factory.mktemp("estimate-engines")
    write_fixture_results(work / "results")
    folder = work / "results" / "modelled"
    folder.mkdir()
    (folder / "h200-l8.yaml").write_text(dump_data(modelled_file()), encoding="utf-8")
    (folder / "h200-l8--vllm.yaml").write_text(dump_data(vllm_file()), encoding="utf-8")
    ingest(work / "results", work / "llmbench.duckdb")
    yield work / "llmbench.duckdb"


def test_release_label_names_other_engines() -> None:
    """TensorRT-LLM's releases keep their number alone (issue 21's spelling); another engine's carry its
    name, so vLLM 0.14.0 is never the same filter value as TensorRT-LLM 0.14.0."""
    assert [release_label(v) for v in ("0.14", "0.14.0", "1.3.0rc20")] == ["0.14.0", "0.14.0", "1.3.0rc20"]
    assert release_label("0.14.0", "tensorrt-llm") == "0.14.0"
    assert release_label("0.14", "vllm") == "vLLM 0.14.0"
    assert release_label("0.5.14", "sglang") == "SGLang 0.5.14"
    assert release_label("5.17.0", "transformers") == "transformers 5.17.0"  # no display name: the id
    assert release_label("0.14.0", "vllm") != release_label("0.14.0")


def test_version_values_say_the_engine_and_sort_after_trtllm(db: Path) -> None:
    """The Version filter's values (``engine_version``) and their order (``version_key``), by DuckDB: the
    fixture's TensorRT-LLM releases by number, then vLLM 0.24.0 named so; the run card keeps no
    "file spelling" for it (the file's 0.24.0 is the number shown)."""
    with duckdb.connect(str(db), read_only=True) as con:
        rows = con.execute(
            "SELECT DISTINCT engine, engine_version, version_key, engine_version_file"
            " FROM runs_and_estimates ORDER BY version_key"
        ).fetchall()
    trt = [v for e, v, _, _ in rows if e == "tensorrt-llm"]
    assert trt and all(re.fullmatch(r"\d[\w.]*", v) for v in trt), trt  # numbers alone, as before
    assert rows[-1][:2] == ("vllm", "vLLM 0.24.0") and rows[-1][3] is None
    assert [e for e, *_ in rows].count("vllm") == 1


def test_engine_counts_are_the_files_counted(db: Path) -> None:
    """By hand from the fixture files: TensorRT-LLM 3 estimates, 2 with pairs (TP 1: 5 pairs, TP 4: 2,
    TP 2: none); vLLM 2, none with a pair. The same by a DuckDB query of the estimates table."""
    got = engine_counts(db)
    assert got == [
        EngineCount("tensorrt-llm", "1.3.0rc20", 3, 2),
        EngineCount("vllm", "vLLM 0.24.0", 2, 0),
    ]
    with duckdb.connect(str(db), read_only=True) as con:
        by_sql = dict(
            con.execute(
                "SELECT engine, count(*) FROM runs_and_estimates WHERE basis = 'estimated' GROUP BY 1"
            ).fetchall()
        )
    assert {c.engine: c.estimates for c in got} == by_sql


class _Page(HTMLParser):
    """The "by engine" table's rows and the paragraphs after it, as text."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[list[str]] = []
        self.notes: list[str] = []
        self._in: str | None = None
        self._seen = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "h2":
            self._seen = a.get("id") == "by-engine"
        if not self._seen:
            return
        if tag == "tr":
            self.rows.append([])
        elif tag in ("td", "th"):
            self._in = "cell"
            self.rows[-1].append("")
        elif tag == "p" and "lb-est-unvalidated" in (a.get("class") or ""):
            self._in = "note"
            self.notes.append("")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th", "p"):
            self._in = None

    def handle_data(self, data: str) -> None:
        if self._in == "cell":
            self.rows[-1][-1] += data
        elif self._in == "note":
            self.notes[-1] += data


def _section(html_text: str) -> _Page:
    p = _Page()
    p.feed(html_text)
    return p


def test_engine_section_says_which_engines_have_no_measured_error(db: Path) -> None:
    """The section from the fixture's counts, English and Korean: one row per engine with the hand counts,
    and the "no error is measured" sentence for vLLM only (TensorRT-LLM has pairs)."""
    for lang in ("en", "ko"):
        page = _section(engine_section(i18n.load(lang).t, engine_counts(db)))
        assert [r[0] for r in page.rows[1:]] == ["TensorRT-LLM", "vLLM"]
        assert [r[2:] for r in page.rows[1:]] == [["3", "2", "1"], ["2", "0", "2"]]
        assert len(page.notes) == 1 and "vLLM" in page.notes[0] and "2" in page.notes[0]
    en = _section(engine_section(i18n.load("en").t, engine_counts(db))).notes[0]
    assert "no error is measured" in en
    assert engine_section(i18n.load("en").t, []) == ""


def test_accuracy_page_counts_the_sites_estimates_per_engine(real_site: Path) -> None:
    """The built page (English and Korean) against a DuckDB query of the site's own database: every engine's
    estimates and those with a measured band; each engine without one has its sentence, no other."""
    with duckdb.connect(str(real_site / "llmbench.duckdb"), read_only=True) as con:
        want = con.execute(
            "SELECT engine, count(*), count(*) FILTER (WHERE est_pairs > 0) FROM estimates GROUP BY 1"
        ).fetchall()
    if not want:
        pytest.skip("no estimates in results/")
    names = {"tensorrt-llm": "TensorRT-LLM", "vllm": "vLLM", "sglang": "SGLang"}
    for page_path in ("estimates-accuracy.html", "ko/estimates-accuracy.html"):
        page = _section((real_site / "site" / page_path).read_text(encoding="utf-8"))
        got = {r[0]: (int(r[2].replace(",", "")), int(r[3].replace(",", ""))) for r in page.rows[1:]}
        assert got == {names.get(e, e): (n, p) for e, n, p in want}, page_path
        unmeasured = sorted(names.get(e, e) for e, _, p in want if p == 0)
        assert sorted(n.split(":", 1)[0] for n in page.notes) == unmeasured, page_path


def test_diff_report_names_each_release_once() -> None:
    """``llmbench diff``'s run lines: TensorRT-LLM's release after the engine's id, as before; another
    engine's label already carries its name, so it is not written twice ("vllm vLLM 0.24.0")."""
    import pandas as pd

    from site_gen.pages.diff import _release

    trt = pd.Series({"engine": "tensorrt-llm", "engine_version": release_label("1.2")})
    vllm = pd.Series({"engine": "vllm", "engine_version": release_label("0.24.0", "vllm")})
    assert (_release(trt), _release(vllm)) == ("tensorrt-llm 1.2.0", "vLLM 0.24.0")
