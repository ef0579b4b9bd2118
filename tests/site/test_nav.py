"""The site navigation: every hand-written page and every view page is reachable from the nav."""

from __future__ import annotations

from collections.abc import Iterator

import yaml

from site_gen.charts import views
from tests.site.conftest import ROOT


def _loader() -> type:
    class Loader(yaml.SafeLoader):
        pass

    Loader.add_multi_constructor("", lambda loader, suffix, node: None)  # !ENV and python tags
    return Loader


def _nav() -> list:
    return yaml.load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"), Loader=_loader())["nav"]


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
    # pages reached from others, never from the menu (the run card), are named in not_in_nav
    config = yaml.load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"), Loader=_loader())
    hidden = {line.strip().lstrip("/") for line in config["not_in_nav"].splitlines() if "*" not in line}
    # a Korean twin (page.ko.md) takes its English page's place in the /ko/ nav (mkdocs-static-i18n)
    twins = {p for p in pages if p.endswith(".ko.md")}
    assert {p.removesuffix(".ko.md") + ".md" for p in twins} <= pages, "a Korean page without an English one"
    assert pages - twins - set(_paths(_nav())) - hidden == set()
    hidden_twins = {p for p in twins if p.removesuffix(".ko.md") + ".md" in hidden}
    assert hidden_twins <= hidden, "mkdocs warns about a hidden page's twin missing from not_in_nav"


# A view whose hand-written page places it (with more explanation) is listed by that page instead.
WRITTEN = {"trtllm-vs-transformers": "engines.md"}


def test_every_view_with_a_page_is_listed_under_views_once() -> None:
    listed = list(_paths(_section("Views")))
    with_page = {name for name, view in views.all_views().items() if view.filters}
    assert {"pct-of-bound", "tp-vs-pp", "tp-scaling"} <= with_page
    want = {WRITTEN.get(name, f"generated/views/{name}.md") for name in with_page}
    assert want - set(listed) == set()
    for name, page in WRITTEN.items():
        assert f"generated/views/{name}.md" not in listed  # "TensorRT-LLM vs transformers" was there twice
        assert name in (ROOT / "docs" / page).read_text(encoding="utf-8")
    titles = [t for e in _nav() for t in _titles(e)]
    assert len(titles) == len(set(titles)), "a title twice in the navigation"


def _titles(entry: object) -> Iterator[str]:
    if isinstance(entry, dict):
        for title, value in entry.items():
            if isinstance(value, str):
                yield title
            else:
                for e in value:
                    yield from _titles(e)


def test_how_to_and_reference_sections_hold_their_pages() -> None:
    # the contributors' section is a header tab named for what a contributor wants
    assert list(_paths(_section("Add your result"))) == ["how-to/add-your-result.md", "how-to/run-a-sweep.md"]
    assert "reference/cli.md" in set(_paths(_section("Reference")))
