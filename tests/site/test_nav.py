"""The site navigation: every hand-written page and every view page is reachable from the nav."""

from __future__ import annotations

from collections.abc import Iterator

import yaml

from site_gen import views
from tests.site.conftest import ROOT


def _nav() -> list:
    class Loader(yaml.SafeLoader):
        pass

    Loader.add_multi_constructor("", lambda loader, suffix, node: None)  # !ENV and python tags
    return yaml.load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"), Loader=Loader)["nav"]


def _paths(entries: list) -> Iterator[str]:
    for entry in entries:
        if isinstance(entry, str):
            yield entry
        else:
            for value in entry.values():
                yield from [value] if isinstance(value, str) else _paths(value)


def _section(title: str) -> list:
    return next(e[title] for e in _nav() if isinstance(e, dict) and title in e)


def test_every_hand_written_page_is_in_the_nav() -> None:
    docs = ROOT / "docs"
    pages = {str(p.relative_to(docs)) for p in docs.rglob("*.md") if "generated" not in p.parts}
    assert {"reference/cli.md", "how-to/run-a-sweep.md", "reference/result-schema.md"} <= pages
    assert pages - set(_paths(_nav())) == set()


def test_every_view_with_a_page_is_listed_under_views() -> None:
    listed = set(_paths(_section("Views")))
    with_page = {name for name, view in views.all_views().items() if view.filters}
    assert {"pct-of-bound", "tp-vs-pp", "tp-scaling"} <= with_page
    assert {f"generated/views/{name}.md" for name in with_page} - listed == set()


def test_how_to_and_reference_sections_hold_their_pages() -> None:
    assert list(_paths(_section("How-to"))) == ["how-to/add-your-result.md", "how-to/run-a-sweep.md"]
    assert "reference/cli.md" in set(_paths(_section("Reference")))
