""" "Cite this" for every run: a plain-text citation and a BibTeX entry, built by DuckDB at site build time.

Both name the source (publisher, title, date, the page's URL) and the run's permalink on this site
(mkdocs.yml ``site_url`` + the run card page + ``#<run_id>``), so a reader can check the figure at its
source and come back to the same card. Built in SQL so that a million runs cost no Python loop.

Each is a template with ``{run_id}`` where the run's id goes (``RUN_ID``): the rest is the same for
every run of a file, so the run cards' data file stores it once per file (its strings are a dictionary)
instead of once per run (about 0.7 kB a run); the page puts the id in when it shows the card.

Hand-worked example (site ``https://example.org/llmbench/``)::

    NVIDIA (2024-09-30). NVIDIA TensorRT-LLM docs: Performance Overview, release 0.13.0.
    https://nvidia.example/perf.html. llmbench run {run_id}:
    https://example.org/llmbench/runs.html#{run_id}

(one line), and::

    @misc{llmbench-{run_id},
      author = {{NVIDIA}},
      title = {NVIDIA TensorRT-LLM docs: Performance Overview, release 0.13.0},
      year = {2024},
      date = {2024-09-30},
      url = {https://nvidia.example/perf.html},
      note = {llmbench run {run_id}, https://example.org/llmbench/runs.html\\#{run_id}},
    }
"""

from __future__ import annotations

RUNS_PAGE = "runs.html"  # docs/runs.md: the run card page (use_directory_urls: false)
RUN_ID = "{run_id}"  # where the run's id goes in the templates

# BibTeX's special characters in free text (title, author, note). A backslash becomes chr(1) first and
# \textbackslash{} last, so that neither it nor its braces are escaped again (result files hold no
# control characters). URLs go in the url field verbatim (biblatex reads it as a URL).
_BACKSLASH = "chr(1)"
_BIB_ESCAPES = (
    ("{", "\\{"),
    ("}", "\\}"),
    ("&", "\\&"),
    ("%", "\\%"),
    ("$", "\\$"),
    ("#", "\\#"),
    ("_", "\\_"),
)


def sql_literal(text: str) -> str:
    """``text`` as a SQL string literal (quotes doubled): never a way into the query."""
    return "'" + text.replace("'", "''") + "'"


def permalink_base(site_url: str) -> str:
    """The run card's URL up to the run id: ``https://host/base/runs.html#``; empty without a site_url."""
    return f"{site_url.rstrip('/')}/{RUNS_PAGE}#" if site_url.strip() else ""


def _bib(expr: str) -> str:
    expr = f"replace({expr}, {sql_literal(chr(92))}, {_BACKSLASH})"
    for char, escaped in _BIB_ESCAPES:
        expr = f"replace({expr}, {sql_literal(char)}, {sql_literal(escaped)})"
    return f"replace({expr}, {_BACKSLASH}, {sql_literal(chr(92) + 'textbackslash{}')})"


def _url(expr: str) -> str:
    # a brace would end the BibTeX field early; an http(s) URL has none unless percent-encoded
    return f"replace(replace({expr}, '{{', '%7B'), '}}', '%7D')"


def columns_sql(site_url: str) -> str:
    """``, <cite_text>, <cite_bibtex>``: two more columns for a ``SELECT * ... FROM runs`` (templates
    with ``RUN_ID`` for the run's id)."""
    base = permalink_base(site_url)
    rid = sql_literal(RUN_ID)
    link = sql_literal(base + RUN_ID) if base else "NULL"
    # BibTeX: the base escaped, then the id's placeholder (its braces must stay as they are)
    bib_link = f"{_bib(sql_literal(base))} || {rid}" if base else "NULL"
    day = "strftime(date, '%Y-%m-%d')"
    text = (
        "concat_ws(' ', publisher || ' (' || " + day + " || ').', source_title || '.', "
        "source_url || '.', 'llmbench run ' || " + rid + " || coalesce(': ' || " + link + ", ''))"
    )
    fields = [
        f"'@misc{{llmbench-' || {rid} || ','",
        f"'  author = {{{{' || {_bib('publisher')} || '}}}},'",
        f"'  title = {{' || {_bib('source_title')} || '}},'",
        "'  year = {' || CAST(year(date) AS VARCHAR) || '},'",
        f"'  date = {{' || {day} || '}},'",
        f"'  url = {{' || {_url('source_url')} || '}},'",
        f"'  note = {{llmbench run ' || {rid} || coalesce(', ' || {bib_link}, '') || '}},'",
        "'}'",
    ]
    bibtex = f"concat_ws(chr(10), {', '.join(fields)})"
    return f", {text} AS cite_text, {bibtex} AS cite_bibtex"
