"""The page layer: the chart markers that turn a Markdown comment into a chart, the generated pages
(``generated``: views, GPUs, models), and the pages with their own logic (compare, GPU neighbours, MLPerf,
the advisor, estimate accuracy, the CLI reference, ``llmbench diff``'s report).

Reads the data and chart layers and the UI strings; never the site (tests/test_architecture.py checks it).
"""
