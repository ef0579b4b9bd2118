"""Submitter names on the MLPerf pages (issue 26): MLCommons spells some submitters differently from round
to round ("Oracle" in v4.1 and v5.1, "ORACLE" in v6.0); the ``mlperf`` table holds one name per submitter,
the spelling of the latest round it appears in."""

from __future__ import annotations

import duckdb

from site_gen.data.mlperf_data import TABLE, create_table, merge_submitters


def rows(*pairs: tuple[str, str]) -> list[dict[str, str]]:
    return [{"submitter": s, "round": r, "run_id": f"{i}"} for i, (s, r) in enumerate(pairs)]


def test_names_differing_only_in_case_take_the_latest_rounds_spelling() -> None:
    got = rows(("Oracle", "v4.1"), ("ORACLE", "v6.0"), ("Oracle", "v5.1"), ("NVIDIA", "v6.0"), ("Dell", "v4"))
    merge_submitters(got)
    assert [r["submitter"] for r in got] == ["ORACLE", "ORACLE", "ORACLE", "NVIDIA", "Dell"]
    # rounds compare as numbers (v10.0 after v9.1), not as text
    later = rows(("Acme", "v9.1"), ("ACME", "v10.0"))
    merge_submitters(later)
    assert {r["submitter"] for r in later} == {"ACME"}
    # within one round, the commoner spelling
    same = rows(("HPE", "v5.0"), ("Hpe", "v5.0"), ("HPE", "v5.0"))
    merge_submitters(same)
    assert {r["submitter"] for r in same} == {"HPE"}


def test_the_table_holds_one_name_per_submitter() -> None:
    con = duckdb.connect()
    create_table(con, rows(("Oracle", "v4.1"), ("ORACLE", "v6.0"), ("Lambda", "v5.0")))
    names = sorted(n for (n,) in con.execute(f"SELECT DISTINCT submitter FROM {TABLE}").fetchall())
    assert names == ["Lambda", "ORACLE"]
