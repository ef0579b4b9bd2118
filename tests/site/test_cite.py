"""site_gen.data.cite: the "cite this" text and BibTeX DuckDB builds for every run, checked on a real DuckDB
table against citations written out by hand (the module docstring's example)."""

from __future__ import annotations

import datetime as dt

import duckdb
import pytest

from site_gen.data import cite

SITE = "https://example.org/llmbench/"


def _cite(rows: list[tuple], site_url: str = SITE) -> list[tuple[str, str]]:
    con = duckdb.connect()
    con.execute(
        "CREATE TABLE runs (run_id VARCHAR, publisher VARCHAR, source_title VARCHAR, source_url VARCHAR, "
        "date DATE)"
    )
    con.executemany("INSERT INTO runs VALUES (?, ?, ?, ?, ?)", rows)
    sql = (
        f"SELECT cite_text, cite_bibtex FROM (SELECT *{cite.columns_sql(site_url)} FROM runs) ORDER BY run_id"
    )
    out = con.execute(sql).fetchall()
    con.close()
    return out


def test_a_published_run_cites_its_page_and_its_permalink() -> None:
    """The module docstring's example; the id goes where ``{run_id}`` stands, the same for every run."""
    row = (
        "0123456789ab",  # not in the citation: the page puts each run's id in (a template per file)
        "NVIDIA",
        "NVIDIA TensorRT-LLM docs: Performance Overview, release 0.13.0",
        "https://nvidia.example/perf.html",
        dt.date(2024, 9, 30),
    )
    [(text, bibtex)] = _cite([row])
    assert text == (
        "NVIDIA (2024-09-30). NVIDIA TensorRT-LLM docs: Performance Overview, release 0.13.0. "
        "https://nvidia.example/perf.html. llmbench run {run_id}: "
        "https://example.org/llmbench/runs.html#{run_id}"
    )
    assert bibtex == (
        "@misc{llmbench-{run_id},\n"
        "  author = {{NVIDIA}},\n"
        "  title = {NVIDIA TensorRT-LLM docs: Performance Overview, release 0.13.0},\n"
        "  year = {2024},\n"
        "  date = {2024-09-30},\n"
        "  url = {https://nvidia.example/perf.html},\n"
        "  note = {llmbench run {run_id}, https://example.org/llmbench/runs.html\\#{run_id}},\n"
        "}"
    )


def test_no_url_leaves_the_url_out_and_special_characters_are_escaped_for_bibtex() -> None:
    row = ("aaaaaaaaaaaa", "R&D {lab}", "50% of 100_000 $ #1 \\x", None, dt.date(2026, 1, 2))
    [(text, bibtex)] = _cite([row], site_url="")
    # plain text keeps the characters as written; no site_url: no permalink
    assert text == "R&D {lab} (2026-01-02). 50% of 100_000 $ #1 \\x. llmbench run {run_id}"
    lines = bibtex.split("\n")
    assert lines[1] == "  author = {{R\\&D \\{lab\\}}},"
    assert lines[2] == "  title = {50\\% of 100\\_000 \\$ \\#1 \\textbackslash{}x},"
    assert not any(line.startswith("  url =") for line in lines)
    assert lines[-2] == "  note = {llmbench run {run_id}}," and lines[-1] == "}"
    # every brace the entry opens, it closes (an unbalanced one would swallow the next entry)
    unescaped = bibtex.replace("\\{", "").replace("\\}", "").replace("\\textbackslash{}", "")
    unescaped = unescaped.replace(cite.RUN_ID, "x")
    assert unescaped.count("{") == unescaped.count("}")


@pytest.mark.parametrize("quote", ["'", "'; DROP TABLE runs; --"])
def test_a_quote_in_the_site_url_is_data_not_sql(quote: str) -> None:
    row = ("bbbbbbbbbbbb", "P", "T", "https://x.example/", dt.date(2025, 5, 5))
    [(text, _)] = _cite([row], site_url=f"https://h.example/{quote}/")
    assert text.endswith(f"https://h.example/{quote}/runs.html#{cite.RUN_ID}")
