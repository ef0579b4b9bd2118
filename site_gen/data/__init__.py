"""The data layer: results/ -> the DuckDB file, and what is computed from it (queries, bounds, memory,
estimates, MLPerf rows, steps, citations, the page data files, ``llmbench list``).

Imports nothing of ``site_gen`` outside this folder (tests/test_architecture.py checks it): charts, pages and
the site read the data, never the reverse.
"""
