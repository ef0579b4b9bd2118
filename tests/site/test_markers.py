"""Chart markers: parsing, escaping, one data file per page, errors that name the problem."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from site_gen.charts.specs import ChartContext
from site_gen.data.dimensions import DIMENSIONS, distinct_text
from site_gen.pages import generated as pages
from site_gen.pages import markers
from tests.site.conftest import ROOT, XSS


def test_marker_parses_view_quoted_values_repeated_keys_and_options() -> None:
    mk = markers.parse("chart", ' tp-scaling model="Llama 3.1 8B" gpu=A gpu="B C" height=200 ')
    assert mk.name == "tp-scaling"
    assert mk.filters == {"model": ["Llama 3.1 8B"], "gpu": ["A", "B C"]}
    assert mk.options == {"height": "200"}


@pytest.mark.parametrize(
    ("text", "message"),
    [(" colour=red", "expected a view name"), (" tp-scaling colour=red", "unknown filter dimension 'colour'"),
     (' tp-scaling model="open', "No closing quotation"), (" tp-scaling model", "expected key=value")],
)  # fmt: skip
def test_bad_marker_is_an_error_naming_the_problem(text: str, message: str) -> None:
    with pytest.raises(markers.MarkerError, match=message):
        markers.parse("chart", text)


def _site(rows: list[dict]) -> markers.Site:
    df = pd.DataFrame(rows)
    return markers.Site(runs=df, ctx=ChartContext(gpus=("A", "B"), columns=frozenset(df.columns)))


ROWS = [
    {"gpu": g, "model_name": m, "precision": "FP8", "tp": 1, "pp": 1, "workload": "128/128", "isl": 128,
     "osl": 128, "engine": "tensorrt-llm", "engine_version": "1.2", "version_key": "1",
     "source_kind": "published", "publisher": "P", "output_tps": 1.0, "output_tps_per_gpu": 1.0,
     "gpu_order": 1, "workload_order": 1}
    for g, m in (("A", "M1"), ("B", "M1"), ("A", XSS))
]  # fmt: skip


def test_page_with_several_charts_ships_one_data_file_with_the_union_of_their_runs() -> None:
    site = _site(ROWS)
    page = markers.Page(site, "guide/x.html")
    html = page.expand(
        "<!-- chart: generational-uplift gpu=A -->\n<p>x</p>\n<!-- chart: tp-scaling model=M1 -->"
    )
    assert page.errors == []
    html = site.resolve(html)  # as on_post_page does: the worker's file named by its key
    assert len(site.files) == 1
    ((name, data),) = site.files.items()
    text = data.text()
    assert json.loads(text)["n"] == 3  # A/M1, B/M1 (model) + A/XSS (gpu)
    assert html.count(f'data-lb-src="../assets/data/{name}"') == 3  # 1 + 2 charts, one file
    assert "<!-- chart" not in html


def test_marker_inside_a_code_block_stays_text() -> None:
    page = markers.Page(_site(ROWS), "x.html")
    html = "<pre><code>&lt;!-- chart: tp-scaling --&gt;</code></pre>"
    assert page.expand(html) == html


def test_unknown_view_renders_an_error_box_and_reports_it() -> None:
    page = markers.Page(_site(ROWS), "x.html")
    html = page.expand("<!-- chart: no-such-view -->")
    assert "unknown chart view 'no-such-view'" in page.errors[0]
    assert "Chart marker error" in html


def test_data_strings_are_escaped_in_generated_markdown_and_markers() -> None:
    assert "<" not in pages.text(XSS) and "&lt;img" in pages.text(XSS)
    value = pages.marker_value("a -->b<")
    assert "-->" not in value and "<" not in value
    assert markers.parse("explorer", f" model={value}").filters == {"model": ["a -->b<"]}


def test_architecture_doc_lists_every_filter_dimension() -> None:
    doc = (ROOT / "docs" / "dev" / "architecture.md").read_text()
    for d in DIMENSIONS:
        assert f"| `{d.key}` | {d.label} | `{d.column}` |" in doc


@pytest.mark.parametrize(
    "values, dtype",
    [
        (["H200 SXM", None, "H100 SXM", "H200 SXM", "<b>x</b>", "GB200 \u00b7 NVL72"], "str"),
        (["H200 SXM", None, "H100 SXM", "H200 SXM"], "string[pyarrow]"),
        (["b", "a", None, "a"], "category"),
        ([4, None, 1, 4], "Int32"),
    ],
)
def test_distinct_text_is_every_rows_text_deduplicated(values: list, dtype: str) -> None:
    """The build's GPU or model list of a page (``Page._value_files``) comes from a column's unique
    values; it must be what turning every row to text and deduplicating gives (the way it was computed
    before, row by row)."""
    column = pd.Series(values, dtype=dtype)
    assert distinct_text(column) == sorted(set(column.dropna().astype(str)))


@pytest.mark.parametrize("sort_column", ["gpu_order", None, "no_such_column"])
def test_a_parts_order_is_each_values_first_rows_sort_value(sort_column: str | None) -> None:
    """``_sort_values`` (the order the page script gives a value it has not loaded): each value of the
    column, missing ones left out, with the sort column of the first row holding it (None where that is
    missing or there is no such column), as a walk over the rows in order gives it."""
    import numpy as np

    rng = np.random.default_rng(5)
    n = 500
    frame = pd.DataFrame(
        {
            "gpu": pd.array([None if k % 9 == 0 else f"G{rng.integers(12)}" for k in range(n)], dtype="str"),
            # NaN where missing, as pandas gives an integer column with NULLs (the build's are never NULL)
            "gpu_order": [np.nan if k % 7 == 0 else float(rng.integers(100)) for k in range(n)],
            "other": rng.normal(size=n),
        }
    )
    want: dict[str, int | None] = {}
    for gpu, order in zip(frame["gpu"], frame["gpu_order"], strict=True):
        if isinstance(gpu, str) and gpu not in want:
            has = sort_column == "gpu_order" and not pd.isna(order)
            want[gpu] = int(order) if has else None
    assert markers._sort_values(frame, "gpu", sort_column) == want
    assert None in want.values() or sort_column != "gpu_order"  # a missing sort value met first
