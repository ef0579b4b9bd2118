#!/usr/bin/env python3
"""Inventory of ``trtllm-bench``'s command line, read from TensorRT-LLM's source with ``ast``.

Never imports tensorrt_llm: it parses the click decorators of the files that define the CLI:

    setup.py                                  console scripts and the MPI launcher script
    tensorrt_llm/commands/bench.py            the ``trtllm-bench`` group: global options, subcommands
    tensorrt_llm/bench/...                    each subcommand's module (found through bench.py's imports)

Two ways to point it at a release:

* ``--git REPO --tag v0.14.0 [--tag ...]``: a TensorRT-LLM clone; files are read with ``git show TAG:path``
  and every option's source names the tag's commit.
* ``--tree RELEASE=DIR``: a folder laid out like a checkout (e.g. files fetched one by one).
  ``DIR/SOURCE.yaml`` says where its files came from: ``commit`` (the release's commit), optionally
  ``files: {path: commit}`` for files read at a neighbouring commit, ``version_py``, ``notes``. Files may be
  excerpts holding only the click decorators (``excerpt: true``); line numbers then count in the excerpt.

Output: YAML on stdout (or ``-o FILE``), one entry per release: console scripts, launcher, and per subcommand
(``global`` for the group's own options) each option with names, type, default, flags and its option group.
"""

from __future__ import annotations

import argparse
import ast
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

BENCH_GROUP_FILE = "tensorrt_llm/commands/bench.py"
SETUP_FILE = "setup.py"
# click-option-group classes: which constraint each puts on its options
GROUP_CONSTRAINTS = {
    "RequiredMutuallyExclusiveOptionGroup": "exactly-one",
    "MutuallyExclusiveOptionGroup": "at-most-one",
    "RequiredAnyOptionGroup": "at-least-one",
    "AllOptionGroup": "all-or-none",
    "RequiredAllOptionGroup": "all",
    "OptionGroup": None,
}


class InventoryError(Exception):
    pass


# --- reading files ------------------------------------------------------------------------------------


@dataclass
class Source:
    """Where a release's files come from: a git tag or a folder, and the commit to cite for each file."""

    release: str
    read: Callable[[str], str | None]
    commit: str
    file_commits: dict[str, str] = field(default_factory=dict)
    meta: dict[str, Any] = field(default_factory=dict)

    def commit_of(self, path: str) -> str:
        return self.file_commits.get(path, self.commit)


def git_source(repo: Path, tag: str) -> Source:
    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=False)

    rev = run("rev-parse", f"{tag}^{{commit}}")
    if rev.returncode != 0:
        raise InventoryError(f"{repo}: no tag or commit {tag!r}: {rev.stderr.strip()}")

    def read(path: str) -> str | None:
        out = run("show", f"{tag}:{path}")
        return out.stdout if out.returncode == 0 else None

    release = tag[1:] if tag.startswith("v") else tag
    return Source(release, read, rev.stdout.strip(), meta={"tag": tag})


def tree_source(release: str, root: Path) -> Source:
    sidecar = root / "SOURCE.yaml"
    if not sidecar.is_file():
        raise InventoryError(f"{sidecar}: missing (needs at least `commit:`)")
    meta = yaml.safe_load(sidecar.read_text()) or {}
    if not isinstance(meta, dict) or not meta.get("commit"):
        raise InventoryError(f"{sidecar}: expected a mapping with `commit: <sha>`")

    def read(path: str) -> str | None:
        p = root / path
        return p.read_text() if p.is_file() else None

    files = {str(k): str(v) for k, v in (meta.pop("files", None) or {}).items()}
    return Source(release, read, str(meta.pop("commit")), files, meta)


# --- click decorators ---------------------------------------------------------------------------------


def _dotted(node: ast.AST) -> str:
    """``click.option`` -> 'click.option'; ``optgroup.group`` -> 'optgroup.group'; else ''."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        head = _dotted(node.value)
        return f"{head}.{node.attr}" if head else ""
    return ""


def _kw(call: ast.Call, name: str) -> ast.expr | None:
    return next((k.value for k in call.keywords if k.arg == name), None)


def _literal(node: ast.expr | None) -> Any:
    """The Python value of a literal node; the source text (prefixed ``expr:``) of anything else."""
    if node is None:
        return None
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return f"expr:{ast.unparse(node)}"


def _type_of(node: ast.expr | None, is_flag: bool, default: Any) -> dict[str, Any]:
    """click's parameter type as data: kind plus choices or bounds where the source gives them."""
    if is_flag:
        return {"kind": "flag"}
    if node is None:
        # click infers the type from the default; no default means STRING
        if isinstance(default, bool):
            return {"kind": "bool"}
        if isinstance(default, int):
            return {"kind": "int"}
        if isinstance(default, float):
            return {"kind": "float"}
        return {"kind": "str"}
    short = _dotted(node.func if isinstance(node, ast.Call) else node).rsplit(".", 1)[-1]
    if short in _SIMPLE_TYPES and not isinstance(node, ast.Call):
        return {"kind": _SIMPLE_TYPES[short]}
    return _param_type(node, short)


_SIMPLE_TYPES = {"int": "int", "float": "float", "str": "str", "bool": "bool"}
_SIMPLE_TYPES |= {"INT": "int", "FLOAT": "float", "STRING": "str", "BOOL": "bool"}


def _param_type(node: ast.expr, short: str) -> dict[str, Any]:
    """click.Path / Choice / IntRange / FloatRange (calls or bare names), else the source text."""
    if short in ("Path", "File"):
        return {"kind": "path"}
    if short == "Choice" and isinstance(node, ast.Call) and node.args:
        choices = _literal(node.args[0])
        out: dict[str, Any] = {"kind": "choice"}
        if isinstance(choices, list | tuple):
            out["choices"] = [str(c) for c in choices]
        else:
            out["choices_expr"] = ast.unparse(node.args[0])
        return out
    if short in ("IntRange", "FloatRange") and isinstance(node, ast.Call):
        out = {"kind": "int" if short == "IntRange" else "float"}
        lo = _literal(_kw(node, "min") or (node.args[0] if node.args else None))
        hi = _literal(_kw(node, "max") or (node.args[1] if len(node.args) > 1 else None))
        if lo is not None:
            out["min"] = lo
        if hi is not None:
            out["max"] = hi
        return out
    return {"kind": "other", "expr": ast.unparse(node)}


def _option(call: ast.Call, group: dict[str, Any] | None, path: str, commit: str) -> dict[str, Any]:
    names = [a.value for a in call.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
    flags = [n for n in names if n.startswith("-")]
    default = _literal(_kw(call, "default"))
    is_flag = bool(_literal(_kw(call, "is_flag"))) or any("/" in n for n in flags)
    opt: dict[str, Any] = {
        "names": flags,
        "dest": next((n for n in names if not n.startswith("-")), None)
        or max(flags, key=len).lstrip("-").replace("-", "_"),
        "type": _type_of(_kw(call, "type"), is_flag, default),
        "default": default,
        "is_flag": is_flag,
        "required": bool(_literal(_kw(call, "required"))),
        "hidden": bool(_literal(_kw(call, "hidden"))),
        "multiple": bool(_literal(_kw(call, "multiple"))),
        "group": group["name"] if group else None,
        "source": {"file": path, "commit": commit, "line": call.lineno},
    }
    return opt


@dataclass
class Command:
    name: str
    function: str
    is_group: bool
    options: list[dict[str, Any]]
    groups: list[dict[str, Any]]
    unresolved: list[str]
    line: int


def _command_of(fn: ast.FunctionDef, path: str, commit: str) -> Command | None:
    """The click command a function's decorators define, or None when it is not one."""
    kind, name, options, groups, unresolved = None, fn.name, [], [], []
    group: dict[str, Any] | None = None
    for dec in fn.decorator_list:  # source order: an optgroup.group precedes its options
        call = dec if isinstance(dec, ast.Call) else None
        what = _dotted(call.func if call else dec)
        short = what.rsplit(".", 1)[-1]
        if short in ("command", "group") and what.startswith(("click.", "")) and what != "optgroup.group":
            kind = short
            given = (call and _kw(call, "name")) or (call and call.args and call.args[0])
            if given is not None and isinstance(_literal(given), str):
                name = _literal(given)
        elif what == "optgroup.group" and call:
            cls = _dotted(_kw(call, "cls")) if _kw(call, "cls") is not None else "OptionGroup"
            title = _literal(call.args[0]) if call.args else _literal(_kw(call, "name"))
            group = {
                "name": title if isinstance(title, str) else f"group@{call.lineno}",
                "cls": cls.rsplit(".", 1)[-1],
                "constraint": GROUP_CONSTRAINTS.get(cls.rsplit(".", 1)[-1]),
                "options": [],
                "line": call.lineno,
            }
            groups.append(group)
        elif what == "optgroup.option" and call:
            opt = _option(call, group, path, commit)
            options.append(opt)
            if group is not None:
                group["options"].append(opt["names"][0] if opt["names"] else opt["dest"])
        elif what in ("click.option", "option") and call:
            options.append(_option(call, None, path, commit))
        elif what in ("click.argument", "argument") and call:
            arg = _option(call, None, path, commit)
            arg["argument"] = True
            options.append(arg)
        elif what in ("click.pass_obj", "click.pass_context", "click.version_option", "click.help_option"):
            continue
        else:
            # a helper that adds options (e.g. a shared decorator module): named, not guessed
            unresolved.append(ast.unparse(dec))
    if kind is None:
        return None
    name = name.replace("_", "-") if name == fn.name and "_command" not in name else name
    if name == fn.name and name.endswith("_command"):
        name = name[: -len("_command")]
    return Command(name, fn.name, kind == "group", options, groups, unresolved, fn.lineno)


def _functions(tree: ast.Module) -> dict[str, ast.FunctionDef]:
    return {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}


def _imports(tree: ast.Module) -> dict[str, tuple[str, str]]:
    """local name -> (module, name) for ``from M import name [as local]``."""
    out = {}
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module:
            for alias in node.names:
                out[alias.asname or alias.name] = (node.module, alias.name)
    return out


def _module_file(module: str) -> str:
    return module.replace(".", "/") + ".py"


def _added_commands(tree: ast.Module, group_fn: str) -> list[str]:
    """Names passed to ``<group>.add_command(x)`` or listed in a dict of subcommands, in source order."""
    found: list[str] = []
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "add_command"
            and _dotted(node.func.value) == group_fn
            and node.args
            and isinstance(node.args[0], ast.Name)
        ):
            found.append(node.args[0].id)
    if not found:  # later releases register subcommands from a dict: {"build": build_command, ...}
        for node in ast.walk(tree):
            if isinstance(node, ast.Dict) and all(isinstance(v, ast.Name) for v in node.values):
                names = [v.id for v in node.values]
                if any(n.endswith("_command") for n in names):
                    found.extend(names)
    return found


# --- one release --------------------------------------------------------------------------------------


def _parse(src: Source, path: str) -> ast.Module:
    text = src.read(path)
    if text is None:
        raise InventoryError(f"release {src.release}: {path} not found")
    try:
        return ast.parse(text, filename=path)
    except SyntaxError as exc:
        raise InventoryError(f"release {src.release}: {path}:{exc.lineno}: not Python: {exc.msg}") from exc


def _command_entry(cmd: Command, path: str, commit: str) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "source": {"file": path, "commit": commit, "line": cmd.line, "function": cmd.function},
        "options": cmd.options,
        "exclusive_groups": [
            {k: g[k] for k in ("name", "cls", "constraint", "options", "line")}
            for g in cmd.groups
            if g["constraint"] in ("exactly-one", "at-most-one")
        ],
        "other_groups": [
            {k: g[k] for k in ("name", "cls", "constraint", "options", "line")}
            for g in cmd.groups
            if g["constraint"] not in ("exactly-one", "at-most-one")
        ],
    }
    if cmd.unresolved:
        entry["unresolved_decorators"] = cmd.unresolved
    return entry


def _subcommands(src: Source, tree: ast.Module, group: Command) -> dict[str, Any]:
    """Each subcommand the group registers, parsed from the module it is imported from.

    SOURCE.yaml may name them instead (``subcommands: [module:function, ...]``): for a release whose group
    file could not be read, whose global options then come from a neighbouring commit's group file.
    """
    imports, out = _imports(tree), {}
    local = _functions(tree)
    names = _added_commands(tree, group.function)
    for spec in src.meta.get("subcommands") or []:
        module, _, fn_name = str(spec).partition(":")
        imports[fn_name] = (module, fn_name)
        local.pop(fn_name, None)
    if src.meta.get("subcommands"):
        names = [str(s).partition(":")[2] for s in src.meta["subcommands"]]
    for name in names:
        if name in local:
            module_path, fn_tree = BENCH_GROUP_FILE, tree
            fn = local[name]
        elif name in imports:
            module, real = imports[name]
            module_path = _module_file(module)
            fn_tree = _parse(src, module_path)
            fn = _functions(fn_tree).get(real)
            if fn is None:
                raise InventoryError(f"release {src.release}: {module_path} defines no function {real}")
        else:
            raise InventoryError(f"release {src.release}: subcommand {name} is neither defined nor imported")
        commit = src.commit_of(module_path)
        cmd = _command_of(fn, module_path, commit)
        if cmd is None:
            raise InventoryError(
                f"release {src.release}: {module_path}:{fn.lineno} {real} is no click command"
            )
        entry = _command_entry(cmd, module_path, commit)
        if cmd.is_group:  # e.g. prepare-dataset: a group with its own subcommands in the same module
            entry["subcommands"] = {
                sub.name: _command_entry(sub, module_path, commit)
                for sub in (_command_of(f, module_path, commit) for f in _functions(fn_tree).values())
                if sub is not None and sub.function != cmd.function
            }
        out[cmd.name] = entry
    return out


def _setup_scripts(src: Source) -> dict[str, Any]:
    text = src.read(SETUP_FILE)
    if text is None:
        raise InventoryError(f"release {src.release}: {SETUP_FILE} not found")
    tree = ast.parse(text, filename=SETUP_FILE)
    console: dict[str, str] = {}
    scripts: list[str] = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and _dotted(node.func) == "setup"):
            continue
        for kw in node.keywords:
            if kw.arg == "entry_points":
                for const in ast.walk(kw.value):
                    if (
                        isinstance(const, ast.Constant)
                        and isinstance(const.value, str)
                        and "=" in const.value
                    ):
                        name, target = (s.strip() for s in const.value.split("=", 1))
                        console[name] = target
            elif kw.arg == "scripts":
                for const in ast.walk(kw.value):
                    if isinstance(const, ast.Constant) and isinstance(const.value, str):
                        scripts.append(const.value)
    launchers = [Path(s).name for s in scripts if Path(s).name.endswith("-launch")]
    return {
        "console_scripts": console,
        "scripts": scripts,
        "launcher": launchers[0] if launchers else None,
        "setup_source": {"file": SETUP_FILE, "commit": src.commit_of(SETUP_FILE)},
    }


def release_inventory(src: Source) -> dict[str, Any]:
    tree = _parse(src, BENCH_GROUP_FILE)
    groups = [c for c in (_command_of(f, BENCH_GROUP_FILE, "") for f in _functions(tree).values()) if c]
    main = next((c for c in groups if c.is_group), None)
    if main is None:
        raise InventoryError(f"release {src.release}: {BENCH_GROUP_FILE} defines no click group")
    commit = src.commit_of(BENCH_GROUP_FILE)
    main = _command_of(_functions(tree)[main.function], BENCH_GROUP_FILE, commit)
    assert main is not None
    commands = {"global": _command_entry(main, BENCH_GROUP_FILE, commit)}
    commands |= _subcommands(src, tree, main)
    return {
        "source": {"commit": src.commit, **src.meta},
        **_setup_scripts(src),
        "commands": commands,
    }


def inventory(sources: list[Source]) -> dict[str, Any]:
    return {
        "generated_by": "bench/trtllm/extract_inventory.py",
        "releases": {s.release: release_inventory(s) for s in sources},
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--git", type=Path, help="a TensorRT-LLM clone (with --tag)")
    ap.add_argument("--tag", action="append", default=[], help="release tag or commit, e.g. v0.14.0")
    ap.add_argument(
        "--tree", action="append", default=[], metavar="RELEASE=DIR", help="a checkout-like folder"
    )
    ap.add_argument("--header", type=Path, help="YAML comment block to put first in the output")
    ap.add_argument("-o", "--output", type=Path)
    args = ap.parse_args(argv)
    try:
        sources = [git_source(args.git, t) for t in args.tag] if args.git else []
        for spec in args.tree:
            release, sep, root = spec.partition("=")
            if not sep:
                raise InventoryError(f"--tree {spec!r}: expected RELEASE=DIR")
            sources.append(tree_source(release, Path(root)))
        if not sources:
            raise InventoryError("nothing to read: give --git REPO --tag T or --tree RELEASE=DIR")
        text = yaml.safe_dump(inventory(sources), sort_keys=False, width=110, allow_unicode=True)
    except InventoryError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.header:
        text = args.header.read_text() + text
    if args.output:
        args.output.write_text(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
