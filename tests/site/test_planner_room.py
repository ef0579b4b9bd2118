"""The memory planner's host carries its GPU count from the build (``widgets.planner_room``): planner.css
reserves one row per GPU the planner draws (one per GPU of the registry) until the script draws it."""

from __future__ import annotations

from bench.contract import registry
from site_gen.pages.widgets import planner_room

HOST = '<div id="llmbench-planner" class="llmbench-planner">\n<noscript>x</noscript>\n</div>'


def test_the_planners_host_carries_one_row_per_registry_gpu() -> None:
    n = len(registry.gpus().entries)
    assert planner_room(f"<p>a</p>{HOST}") == (
        f'<p>a</p><div id="llmbench-planner" class="llmbench-planner" style="--lb-planner-gpus: {n}">'
        "\n<noscript>x</noscript>\n</div>"
    )


def test_a_page_without_the_planner_is_left_as_it_is() -> None:
    page = '<div id="llmbench-planner-not" class="llmbench-planner">x</div><p>planner</p>'
    assert planner_room(page) == page
