"""Which characters a text from a stranger's file may hold, checked on parsed values (not raw text).

A YAML or CSV escape (``"\\e[31m"``, ``"\\0"``) turns into a control character only when parsed, so the
check runs on the values. Refused everywhere: C0 controls but TAB, LF and CR; DEL; C1 controls (NEL
U+0085 among them); the Unicode line and paragraph separators U+2028/U+2029. They rewrite a terminal
(ANSI and OSC 8 sequences), cut Markdown tables and JavaScript strings, or vanish in some viewers.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

_ALWAYS = "\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u2028\u2029"
_MULTILINE = re.compile(f"[{_ALWAYS}]")
_ONE_LINE = re.compile(f"[{_ALWAYS}\r\n]")


def bad_character(text: str, multiline: bool = True) -> str | None:
    """``'U+001B at column 7'`` for the first character ``text`` may not hold, else None."""
    m = (_MULTILINE if multiline else _ONE_LINE).search(text)
    if m is None:
        return None
    return f"U+{ord(m.group()):04X} at column {m.start() - text.rfind(chr(10), 0, m.start())}"


def bad_strings(data: Any, path: tuple[str | int, ...] = ()) -> Iterator[tuple[tuple[str | int, ...], str]]:
    """(location, what) for every key or string value in ``data`` holding a refused character."""
    if isinstance(data, str):
        bad = bad_character(data)
        if bad:
            yield path, bad
    elif isinstance(data, dict):
        for k, v in data.items():
            if isinstance(k, str) and (bad := bad_character(k)):
                yield path, f"{bad} in the key {k!r}"
            yield from bad_strings(v, (*path, k))
    elif isinstance(data, list):
        for i, v in enumerate(data):
            yield from bad_strings(v, (*path, i))
