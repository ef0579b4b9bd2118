"""The message catalogue: every UI string of the site, one YAML file per language (``<lang>.yaml`` here).

The Python generators (generated pages, templates, filter and table labels, chart titles) and the page
script (``assets/i18n/<lang>.js`` -> ``window.LLMBENCH_I18N``) read the same files, so a new language is a
new file (and a line under ``plugins.i18n.languages`` in mkdocs.yml), never a code change.

Keys are dotted paths (``ui.count``); placeholders are ``{name}`` (``str.format`` here, the same
substitution in the page script). English (``en.yaml``) is the reference: every language has exactly its keys
and placeholders (``check``; ``tests/site/test_i18n.py``). A catalogue's ``kept`` list names keys whose text
stays the English technical term on purpose (GPU, TP, ISL/OSL ...), so the "no English left" test skips it.
"""

from __future__ import annotations

import json
import re
import string
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import yaml

DIR = Path(__file__).parent
DEFAULT = "en"
META = ("language", "name", "kept")  # catalogue-level entries, not messages
JS_SECTIONS = ("ui", "compare", "mlperf_ui")  # what the page scripts need (assets/i18n/<lang>.js)
JS_DIR = "assets/i18n"


def _flatten(tree: dict[str, Any], prefix: str = "") -> dict[str, str]:
    out: dict[str, str] = {}
    for key, value in tree.items():
        path = f"{prefix}{key}"
        if isinstance(value, dict):
            out.update(_flatten(value, f"{path}."))
        else:
            out[path] = str(value)
    return out


def placeholders(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


@dataclass(frozen=True)
class Catalogue:
    lang: str
    name: str  # the language's own name (the language switch)
    messages: dict[str, str]  # dotted key -> text
    kept: frozenset[str]  # keys whose text is the English technical term on purpose
    tree: dict[str, Any]

    def t(self, key: str, **values: Any) -> str:
        """The message ``key`` with its ``{placeholders}`` filled; a missing key is a KeyError."""
        text = self.messages[key]
        return text.format(**values) if values else text

    def section(self, name: str) -> dict[str, Any]:
        return self.tree[name]

    def js(self) -> str:
        """The page scripts' catalogue: ``window.LLMBENCH_I18N = {lang, ui, compare, mlperf_ui}``."""
        data = {"lang": self.lang, **{s: self.tree[s] for s in JS_SECTIONS}}
        text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
        # a catalogue string never closes the script it sits in
        text = text.replace("</", "<\\/")
        return f"window.LLMBENCH_I18N={text};\n"


def languages() -> list[str]:
    """The languages with a catalogue, English first."""
    found = sorted(p.stem for p in DIR.glob("*.yaml"))
    return [DEFAULT, *(lang for lang in found if lang != DEFAULT)]


@cache
def load(lang: str) -> Catalogue:
    path = DIR / f"{lang}.yaml"
    if not path.is_file():
        raise KeyError(f"no message catalogue for language {lang!r} ({path})")
    tree = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    messages = _flatten({k: v for k, v in tree.items() if k not in META})
    return Catalogue(lang, str(tree.get("name", lang)), messages, frozenset(tree.get("kept") or ()), tree)


def check(lang: str) -> list[str]:
    """What is wrong with a catalogue against English: missing or extra keys, placeholders that differ."""
    ref, cat = load(DEFAULT).messages, load(lang)
    problems = [f"{lang}.yaml: missing key {k}" for k in ref if k not in cat.messages]
    problems += [f"{lang}.yaml: key {k} is not in {DEFAULT}.yaml" for k in cat.messages if k not in ref]
    for k in ref.keys() & cat.messages.keys():
        if placeholders(ref[k]) != placeholders(cat.messages[k]):
            problems.append(
                f"{lang}.yaml: {k}: placeholders {sorted(placeholders(cat.messages[k]))}, "
                f"expected {sorted(placeholders(ref[k]))}"
            )
    problems += [f"{lang}.yaml: kept key {k} does not exist" for k in cat.kept if k not in ref]
    return problems


def translator(lang: str) -> dict[str, str]:
    """English text -> text in ``lang``, for strings built outside the catalogue's keys (the Altair
    charts' titles and tooltips, which reuse the table's column names): joined on the key, so English
    stays the one source."""
    en, cat = load(DEFAULT), load(lang)
    return {en.messages[k]: cat.messages[k] for k in en.messages if k.startswith(("chart.", "table."))}


_WORD = re.compile(r"[A-Za-z]{3,}")


def english_words(text: str) -> bool:
    """Whether ``text`` holds a Latin word of three letters or more (the "English left" test)."""
    return bool(_WORD.search(text))
