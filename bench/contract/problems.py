"""Problems found in result files, located: ``file:line: field.path: expected X, got Y``.

Turns YAML parser errors and pydantic validation errors into ``Problem`` values, and finds the line of a
field path in the YAML text (PyYAML composes the text only when a problem needs a line).
"""

from __future__ import annotations

import difflib
import json
import re
from dataclasses import dataclass
from typing import Any

import yaml

from bench.contract.schema import ResultFile


@dataclass(frozen=True)
class Problem:
    """One thing wrong with one file, located as precisely as the input allows."""

    file: str
    line: int | None
    path: str
    message: str

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line else self.file
        return f"{where}: {self.path}: {self.message}" if self.path else f"{where}: {self.message}"


def _yaml_error_line(message: str) -> int | None:
    m = re.search(r"line (\d+)", message)
    return int(m.group(1)) if m else None


def yaml_problem(name: str, message: str, text: str) -> Problem:
    """A yaml-rs error as a located problem: its line, column and the reason (its last line)."""
    lines = message.splitlines()
    m = re.match(r"YAML parse error at line (\d+), column (\d+)", lines[0])
    if m:
        return Problem(name, int(m.group(1)), "", f"invalid YAML at column {m.group(2)}: {lines[-1].strip()}")
    dup = re.match(r"duplicate mapping key: '(.*)'", lines[0])
    if dup:
        line, path = _duplicate_key(text, dup.group(1))
        return Problem(name, line, path, f"expected each key once per mapping, got {dup.group(1)!r} again")
    if "alias" in lines[0]:
        return Problem(name, None, "", f"expected plain YAML, got too many alias expansions ({lines[0]})")
    return Problem(name, _yaml_error_line(message), "", f"invalid YAML: {lines[0]}")


def _duplicate_key(text: str, key: str) -> tuple[int | None, str]:
    """Line and field path of the second occurrence of a key (PyYAML keeps duplicates; aliases unexpanded)."""
    stack: list[tuple[Any, tuple]] = [(_compose(text), ())]
    while stack:
        node, path = stack.pop()
        if isinstance(node, yaml.MappingNode):
            seen = set()
            for k, v in node.value:
                if k.value == key and k.value in seen:
                    return k.start_mark.line + 1, ".".join(map(str, (*path, key)))
                seen.add(k.value)
                stack.append((v, (*path, k.value)))
        elif isinstance(node, yaml.SequenceNode):
            stack.extend((v, (*path, i)) for i, v in enumerate(node.value))
    return None, ""


def _compose(text: str) -> Any:
    """The YAML's node tree (PyYAML: nodes keep their lines), or None if PyYAML cannot read it."""
    try:
        return yaml.compose(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except yaml.YAMLError:
        return None


def validation_problem(name: str, err: Any, lines: LineMap) -> Problem:
    loc = tuple(err["loc"])
    path = ".".join(str(p) for p in loc)
    kind, msg = err["type"], err["msg"]
    if kind in ("model_type", "dict_type"):  # the two validators word this one differently; say it once
        msg = "Input should be a mapping"
    if kind == "missing":
        text = "expected a value (required field), got nothing"
        return Problem(name, lines.line(loc[:-1]), path, text)
    if kind == "extra_forbidden":
        allowed = _allowed_fields(loc[:-1])
        near = difflib.get_close_matches(str(loc[-1]), allowed, n=1)
        hint = f" (did you mean {near[0]!r}?)" if near else ""
        text = f"unknown field {loc[-1]!r}{hint}; expected one of: {', '.join(allowed)}"
        return Problem(name, lines.line(loc, key=True), path, text)
    if kind == "value_error":  # our own checks (bench.contract.schema) already say "expected ..., got ..."
        return Problem(name, lines.line(loc), path, msg.removeprefix("Value error, "))
    expected = re.sub(r"^(Input|Value) should (be )?", "", msg)
    if kind == "string_pattern_mismatch" and "\\r\\n" in str(err.get("ctx", {}).get("pattern", "")):
        expected = "one line of text (no line break: the site shows it in tables)"
    if kind.startswith(("date_", "datetime_")):  # pydantic's wording here is about its internals
        expected = "a date (YYYY-MM-DD)" if kind.startswith("date_") else "an ISO 8601 date-time"
    got = err.get("input")
    got_text = "nothing" if got is None else f"{type(got).__name__} {_short(got)}"
    if kind == "finite_number" and got in (float("inf"), float("-inf")):
        got_text += " (YAML's .inf, or a number beyond ±1.8e308, the largest a double holds)"
    return Problem(name, lines.line(loc), path, f"expected {expected}, got {got_text}")


def _short(value: Any) -> str:
    text = repr(value) if not isinstance(value, dict | list) else json.dumps(value, default=str)
    return text if len(text) <= 60 else text[:57] + "..."


def _allowed_fields(loc: tuple) -> list[str]:
    model: Any = ResultFile
    for part in loc:
        if isinstance(part, int):
            continue
        field = model.model_fields.get(part)
        if field is None:
            return []
        ann = field.annotation
        model = next((a for a in getattr(ann, "__args__", (ann,)) if hasattr(a, "model_fields")), ann)
        if hasattr(ann, "__origin__") and ann.__origin__ is list:
            model = ann.__args__[0]
    return list(getattr(model, "model_fields", {}))


class LineMap:
    """Maps a field path to its 1-based line, composing the YAML (PyYAML) only when a problem needs it."""

    def __init__(self, text: str) -> None:
        self._text = text
        self._root: Any = None

    def line(self, loc: tuple, key: bool = False) -> int | None:
        if self._root is None:
            self._root = _compose(self._text)
        node, last = self._root, self._root
        for part in loc:
            node = _child(node, part, key and part == loc[-1])
            if node is None:
                break
            last = node
        return last.start_mark.line + 1 if last is not None else None


def _child(node: Any, part: Any, want_key: bool) -> Any:
    if isinstance(node, yaml.MappingNode):
        for k, v in node.value:
            if k.value == str(part):
                return k if want_key else v
    elif isinstance(node, yaml.SequenceNode) and isinstance(part, int) and part < len(node.value):
        return node.value[part]
    return None
