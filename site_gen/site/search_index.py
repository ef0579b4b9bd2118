"""One search index per language (issue 26: English search listed /ko/ pages and Korean search English ones).

mkdocs-static-i18n builds the site once per language and then writes Material's ``search/search_index.json``
with the entries of every language in one file (745 KB+, which every page of either language downloaded).
This hook file (``hooks:`` in mkdocs.yml, after site_gen/site/mkdocs_hooks.py) splits that file after the
plugin has written it: the default language's entries stay at ``search/search_index.json``, another
language's go to ``<lang>/search/search_index.json`` with its location unchanged (``ko/guide/...``: Material
resolves it against the site's root, its ``base``). ``site_gen/theme/main.html`` then points a page's
request for the index at its own language's file. The plugin's duplicate removal (a ``/ko/`` page whose
text is the English one indexed once, in English) is off (``reconfigure_search: false``): a Korean reader's
search lists that page under ``/ko/`` too, so the language switch is never crossed by a search result.

Each index keeps lunr's languages for the text it holds: English for English, the language's own plus
English for another (its untranslated pages are English text).
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

from mkdocs.plugins import event_priority

from site_gen import i18n

log = logging.getLogger("mkdocs.plugins.llmbench")
INDEX = "search/search_index.json"


def language_of(location: str, languages: list[str]) -> str:
    """The language whose tree holds ``location`` (``ko/guide/x.html#y`` -> ko; no folder -> default)."""
    folder = location.split("/", 1)[0]
    return folder if folder in languages and folder != i18n.DEFAULT else i18n.DEFAULT


def split(index: dict[str, Any], languages: list[str]) -> dict[str, dict[str, Any]]:
    """Material's merged index -> {language: its own index}, each with only that language's entries, in
    their order, and lunr's languages for its text (see the module's docstring)."""
    out: dict[str, dict[str, Any]] = {}
    configured = list(index["config"].get("lang") or [i18n.DEFAULT])
    for lang in languages:
        docs = [d for d in index["docs"] if language_of(d["location"], languages) == lang]
        lunr = [x for x in configured if x in (lang, i18n.DEFAULT)] or [i18n.DEFAULT]
        out[lang] = {**index, "config": {**index["config"], "lang": lunr}, "docs": docs}
    return out


def path_of(lang: str) -> str:
    """Where a language's index is written, relative to the site's root."""
    return INDEX if lang == i18n.DEFAULT else f"{lang}/{INDEX}"


@event_priority(-200)  # after mkdocs-static-i18n's on_post_build (-100), which writes the merged index
def on_post_build(config: Any) -> None:
    plugin = config["plugins"].get("i18n")
    # one language only, or one of the plugin's inner builds (its last one writes the merged index)
    if plugin is None or getattr(plugin, "building", False):
        return
    site = Path(config["site_dir"])
    merged = site / INDEX
    if not merged.is_file():
        return
    languages = list(plugin.build_languages)
    parts = split(json.loads(merged.read_text(encoding="utf-8")), languages)
    for lang, index in parts.items():
        target = site / path_of(lang)
        target.parent.mkdir(parents=True, exist_ok=True)
        # compact, as Material writes it
        target.write_text(json.dumps(index, ensure_ascii=False, separators=(",", ":")), encoding="utf-8")
    log.debug("search index split: %s", {k: len(v["docs"]) for k, v in parts.items()})
