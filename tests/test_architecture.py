"""The house rules of docs/dev/architecture.md, read from the source with ``ast`` (no import needed).

- data flows one way: site_gen reads only bench's result contract (``bench.contract``, ``bench.errors``),
  never a sweep, an engine or an importer; bench never imports site_gen but in ``bench/cli.py``, which
  mounts ``llmbench site``;
- site_gen is four layers, each importing only the ones before it: ``data`` -> ``charts`` -> ``pages`` ->
  ``site`` (folders of site_gen); ``i18n`` is a leaf any layer reads; no flat module outside a layer;
- ``bench.sweep`` drives engines through ``bench.sweep.engine`` and names none: no import of
  ``bench.trtllm`` or ``bench.engines``;
- no import cycle among the project's modules (module-level imports, the ones that run at import time,
  and type-only ones under ``if TYPE_CHECKING:``).
"""

from __future__ import annotations

import ast
import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _module(path: Path, root: Path = ROOT) -> str:
    rel = path.relative_to(root).with_suffix("")
    parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
    return ".".join(parts)


def _type_checking(node: ast.stmt) -> bool:
    """``if TYPE_CHECKING:`` (or ``typing.TYPE_CHECKING``): imports only a type checker runs."""
    test = node.test if isinstance(node, ast.If) else None
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(path: Path, top_level_only: bool) -> Iterator[str]:
    """Project modules imported by ``path`` (``from a import b`` yields ``a.b`` when that is a module).

    ``top_level_only``: the imports that run when the module is imported, and those of its top-level
    ``if TYPE_CHECKING:`` blocks (a type-only import is a dependency all the same: a cycle through one
    is a cycle a type checker or a later runtime import walks into)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    if top_level_only:
        nodes = [*tree.body, *(n for top in tree.body if _type_checking(top) for n in top.body)]
    else:
        nodes = list(ast.walk(tree))
    for node in nodes:
        if isinstance(node, ast.Import):
            yield from (a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            yield node.module
            for a in node.names:
                yield f"{node.module}.{a.name}"


def _sources() -> dict[str, Path]:
    files = [*ROOT.joinpath("bench").rglob("*.py"), *ROOT.joinpath("site_gen").rglob("*.py")]
    return {_module(p): p for p in files}


SOURCES = _sources()


def _project_imports(name: str, top_level_only: bool) -> set[str]:
    return {m for m in _imports(SOURCES[name], top_level_only) if m in SOURCES}


def test_the_scan_sees_the_packages() -> None:
    # guards the other tests against passing on an empty scan
    assert {
        "bench.sweep.engine",
        "bench.trtllm.command",
        "bench.contract.schema",
        "site_gen.data.load",
    } <= set(SOURCES)
    assert "bench.contract.schema" in _project_imports("site_gen.data.load", top_level_only=False)


@pytest.mark.parametrize("name", sorted(n for n in SOURCES if n.startswith("site_gen")))
def test_site_gen_reads_only_the_result_contract(name: str) -> None:
    upstream = {m for m in _project_imports(name, top_level_only=False) if m.startswith("bench")}
    allowed = ("bench.contract", "bench.errors")
    assert not {m for m in upstream if not m.startswith(allowed)}, f"{name} reaches upstream"


@pytest.mark.parametrize("name", sorted(n for n in SOURCES if n.startswith("bench") and n != "bench.cli"))
def test_bench_never_imports_site_gen(name: str) -> None:
    assert not {m for m in _project_imports(name, False) if m.startswith("site_gen")}


@pytest.mark.parametrize("name", sorted(n for n in SOURCES if n.startswith("bench.sweep")))
def test_sweep_names_no_engine(name: str) -> None:
    named = {m for m in _project_imports(name, False) if m.startswith(("bench.trtllm", "bench.engines"))}
    assert not named, f"{name} imports {named}: engines plug in through bench.sweep.engine"


# ---- site_gen's layers (docs/dev/architecture.md "The house"; issue 29) ----

SITE_LAYERS = ("data", "charts", "pages", "site")  # a layer imports the ones before it, never one after
SITE_LEAVES = ("i18n",)  # read by any layer; they import nothing of site_gen


def _site_part(name: str) -> str | None:
    """The folder of site_gen a module lives in ("site_gen.data.load" -> "data"); None for site_gen itself."""
    parts = name.split(".")
    return parts[1] if len(parts) > 1 else None


def site_layer_violations(sources: dict[str, Path]) -> list[str]:
    """The layering of site_gen, as sentences; empty when it holds. ``sources``: module name -> file, as
    ``SOURCES``. Every import counts, lazy ones in a function too: a lazy import upward still reaches
    upstream (it only hides the cycle from the import system)."""
    rank = {layer: i for i, layer in enumerate(SITE_LAYERS)}
    out = []
    for name in sorted(n for n in sources if n.startswith("site_gen")):
        part = _site_part(name)
        if part is None:
            continue
        if part not in rank and part not in SITE_LEAVES:
            out.append(f"{name} belongs to no layer (a folder of {SITE_LAYERS}) nor is a leaf {SITE_LEAVES}")
            continue
        targets = {m for m in _imports(sources[name], top_level_only=False) if m in sources}
        for t in sorted(t for t in targets if t.startswith("site_gen") and _site_part(t) not in (None, part)):
            other = _site_part(t)
            if part in SITE_LEAVES:
                out.append(f"{name} is a leaf and imports {t}")
            elif other in rank and rank[other] > rank[part]:
                out.append(f"{name} ({part}) imports {t} ({other}), a later layer")
    return out


def test_site_gen_keeps_its_layers() -> None:
    assert {_site_part(n) for n in SOURCES if n.startswith("site_gen.")} >= {*SITE_LAYERS, *SITE_LEAVES}
    assert site_layer_violations(SOURCES) == []


def test_site_layer_rules_catch_each_planted_violation(tmp_path: Path) -> None:
    good = {
        "site_gen/data/load.py": "import duckdb\n",
        "site_gen/charts/specs.py": "from site_gen.data import load\n",
        "site_gen/pages/markers.py": "from site_gen.charts.specs import to_spec\nfrom site_gen import i18n\n",
        "site_gen/site/hooks.py": "from site_gen.pages import markers\n",
        "site_gen/i18n/__init__.py": "import yaml\n",
    }

    def scan(files: dict[str, str]) -> list[str]:
        root = tmp_path / str(len(list(tmp_path.iterdir())))
        for rel, text in files.items():
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_text(text, encoding="utf-8")
        return site_layer_violations({_module(root / p, root): root / p for p in files})

    assert scan(good) == []
    planted = {
        "data reaching a page, lazily": (
            "site_gen/data/load.py",
            "def f() -> None:\n    from site_gen.pages.markers import Page\n",
            "site_gen.data.load (data) imports site_gen.pages.markers (pages), a later layer",
        ),
        "a chart importing the site": (
            "site_gen/charts/specs.py",
            "from site_gen.site import hooks\n",
            "site_gen.charts.specs (charts) imports site_gen.site.hooks (site), a later layer",
        ),
        "a leaf importing a layer": (
            "site_gen/i18n/__init__.py",
            "from site_gen.data.load import x\n",
            "site_gen.i18n is a leaf and imports site_gen.data.load",
        ),
        "a flat module": ("site_gen/flat.py", "import os\n", "site_gen.flat belongs to no layer"),
    }
    for what, (rel, text, says) in planted.items():
        found = scan({**good, rel: text})
        assert any(says in v for v in found), (what, found)


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """An import cycle of ``graph`` (module -> modules it imports) as a path, or None."""
    # a package's own __init__ is imported before any of its modules: that edge is no cycle
    graph = {n: {m for m in deps if not n.startswith(m + ".")} for n, deps in graph.items()}
    state: dict[str, int] = {}  # 1: on the current path, 2: done

    def visit(n: str, path: list[str]) -> list[str] | None:
        state[n] = 1
        for m in sorted(graph.get(n, ())):
            if state.get(m) == 1:
                return [*path[path.index(m) :], m] if m in path else [n, m]
            if m not in state and (cycle := visit(m, [*path, m])):
                return cycle
        state[n] = 2
        return None

    for n in sorted(graph):
        if n not in state and (cycle := visit(n, [n])):
            return cycle
    return None


def test_no_import_cycle() -> None:
    graph = {n: _project_imports(n, top_level_only=True) - {n} for n in SOURCES}
    cycle = find_cycle(graph)
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_a_type_only_cycle_is_found(tmp_path: Path) -> None:
    # a planted cycle whose one edge is an import under `if TYPE_CHECKING:` (engine.py <-> spec.py had one)
    (tmp_path / "spec.py").write_text("from pkg.engine import run\n", encoding="utf-8")
    (tmp_path / "engine.py").write_text(
        "from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    from pkg.spec import Job\n\n"
        "def run(job: Job) -> None: ...\n",
        encoding="utf-8",
    )
    (tmp_path / "plain.py").write_text("def f() -> None:\n    from pkg.spec import x\n", encoding="utf-8")
    names = {
        "pkg.spec": tmp_path / "spec.py",
        "pkg.engine": tmp_path / "engine.py",
        "pkg.plain": tmp_path / "plain.py",
    }
    graph = {n: {m for m in _imports(p, top_level_only=True) if m in names} for n, p in names.items()}
    assert graph == {"pkg.spec": {"pkg.engine"}, "pkg.engine": {"pkg.spec"}, "pkg.plain": set()}
    assert find_cycle(graph) == ["pkg.engine", "pkg.spec", "pkg.engine"]
    graph["pkg.engine"] = set()  # without the type-only edge: no cycle
    assert find_cycle(graph) is None


def test_validate_and_the_site_share_one_speed_of_light_bound() -> None:
    # The bound lives in the result contract: validate's data-quality gate (bench.contract.quality) refuses
    # runs above it, and the site's columns (site_gen.data.bound) and the planner (site_gen.data.memory)
    # re-export the same modules, so the two can never disagree on a run's bound.
    assert "bench.contract.bound" in _project_imports("bench.contract.quality", top_level_only=True)
    assert "bench.contract.quality" in _project_imports("bench.contract.resultfile", top_level_only=True)
    assert "bench.contract.bound" in _project_imports("site_gen.data.bound", top_level_only=True)
    assert "bench.contract.modelmath" in _project_imports("site_gen.data.memory", top_level_only=True)
    for name in ("site_gen.data.bound", "site_gen.data.memory"):
        defined = {
            n.name for n in ast.parse(SOURCES[name].read_text(encoding="utf-8")).body if hasattr(n, "name")
        }
        assert not defined & {"output_tps_bound", "param_groups", "kv_bytes_per_sequence"}, name


# ---- the page script's ES modules (docs/assets/js, issue 29; docs/dev/architecture.md "Page script") ----

JS_ROOT = ROOT / "docs" / "assets" / "js"
# Modules that import nothing: the shared leaves (DOM helpers, messages, formats, tasks, theme, the pure
# filter state and arithmetic) and the classic scripts (loaded by <script>, which cannot import).
JS_LEAVES = ("dom.js", "messages.js", "format.js", "tasks.js", "theme.js", "state/filter.js", "calc/")
JS_CLASSIC = ("file-notice.js", "planner-data.js")
JS_MAX_LINES = 300  # the Python guide's bound: a module past it has two jobs
_JS_IMPORT = re.compile(
    r"""(?:\bimport\s[^;"']*?\bfrom\s*|\bimport\s*\(\s*|\bimport\s+|\bexport\s[^;"']*?\bfrom\s*)["']([^"']+)["']"""
)


def js_modules(root: Path) -> dict[str, str]:
    """Every .js file under ``root`` by its path relative to it ("views/chart.js"), with its text."""
    return {p.relative_to(root).as_posix(): p.read_text(encoding="utf-8") for p in sorted(root.rglob("*.js"))}


def js_imports(root: Path) -> dict[str, set[str]]:
    """Each module's imports (static ``import … from``, ``export … from``, bare ``import "…"``, dynamic
    ``import("…")``) resolved to paths relative to ``root``; a specifier that is not relative stays as is."""
    graph: dict[str, set[str]] = {}
    for name, text in js_modules(root).items():
        here = Path(name).parent
        targets = set()
        for spec in _JS_IMPORT.findall(text):
            targets.add(os.path.normpath(here / spec).replace(os.sep, "/") if spec.startswith(".") else spec)
        graph[name] = targets
    return graph


def js_violations(root: Path) -> list[str]:
    """The house rules of the page script's modules, as sentences; empty when they hold."""
    graph = js_imports(root)
    texts = js_modules(root)
    out = []
    for name, targets in graph.items():
        for t in sorted(targets):
            if t not in graph:
                out.append(f"{name} imports {t}, which is not a module of the folder")
        if (name.startswith(JS_LEAVES) or name in JS_CLASSIC) and targets:
            out.append(f"{name} is a leaf and imports {sorted(targets)}")
        if name.startswith("views/"):
            out += [
                f"{name} (a view) imports {t}"
                for t in sorted(targets)
                if t.startswith("data/") or t == "state/url.js"
            ]
        if name != "main.js":
            out += [
                f"{name} imports the page module {t} (only main.js does)"
                for t in sorted(targets)
                if t.startswith("pages/")
            ]
        lines = len(texts[name].splitlines())
        if lines > JS_MAX_LINES:
            out.append(f"{name} has {lines} lines (at most {JS_MAX_LINES})")
        if name not in JS_CLASSIC and not texts[name].startswith("//"):
            out.append(f"{name} does not open with a comment saying its job, in, out and side effects")
    out += [f"import cycle: {' -> '.join(c)}" for c in _js_cycles(graph)]
    return out


def _js_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One cycle per strongly connected part of the import graph that has one (depth-first search)."""
    cycles, state = [], dict.fromkeys(graph, 0)  # 0 new, 1 on the path, 2 done

    def visit(node: str, path: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(graph[node]):
            if nxt not in graph:
                continue
            if state[nxt] == 1:
                cycles.append([*path[path.index(nxt) :], nxt])
            elif state[nxt] == 0:
                visit(nxt, [*path, nxt])
        state[node] = 2

    for node in graph:
        if state[node] == 0:
            visit(node, [node])
    return cycles


def test_the_js_scan_sees_the_modules() -> None:
    graph = js_imports(JS_ROOT)
    assert {"main.js", "data/source.js", "views/chart.js", "pages/scope.js", "state/url.js"} <= set(graph)
    assert "pages/scope.js" in graph["main.js"] and "data/payload.js" in graph["data/source.js"]


def test_js_modules_keep_the_house_rules() -> None:
    assert js_violations(JS_ROOT) == []


def _plant(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    return root


def test_js_rules_catch_each_planted_violation(tmp_path: Path) -> None:
    head = "// job, in, out, side effects\n"
    good = {
        "main.js": head + 'import { a } from "./pages/p.js";\n',
        "pages/p.js": head + 'import { b } from "../views/v.js";\nimport { s } from "../data/source.js";\n',
        "views/v.js": head + 'import { el } from "../dom.js";\n',
        "data/source.js": head + 'export { x } from "./payload.js";\n',
        "data/payload.js": head,
        "dom.js": head,
    }
    assert js_violations(_plant(tmp_path / "good", good)) == []
    planted = {
        "a view reaching for data": (
            "views/v.js",
            head + 'import { s } from "../data/source.js";\n',
            "(a view) imports data/source.js",
        ),
        "a view writing the URL": (
            "views/v.js",
            head + 'const u = import("../state/url.js");\n',
            "(a view) imports state/url.js",
        ),
        "a leaf importing": ("dom.js", head + 'import "./views/v.js";\n', "dom.js is a leaf"),
        "a page imported elsewhere": (
            "views/v.js",
            head + 'import { a } from "../pages/p.js";\n',
            "only main.js does",
        ),
        "a cycle": (
            "data/payload.js",
            head + 'import { x } from "./source.js";\n',
            "import cycle: data/payload.js -> data/source.js -> data/payload.js",
        ),
        "a long module": ("views/v.js", head + "\n" * JS_MAX_LINES, "views/v.js has 301 lines"),
        "no opening comment": (
            "views/v.js",
            'import { el } from "../dom.js";\n',
            "does not open with a comment",
        ),
        "a missing module": (
            "views/v.js",
            head + 'import { t } from "./table.js";\n',
            "not a module of the folder",
        ),
    }
    for what, (name, text, says) in planted.items():
        root = _plant(tmp_path / what.replace(" ", "-"), {**good, name: text})
        found = js_violations(root)
        assert any(says in v for v in found), (what, found)
