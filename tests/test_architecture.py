"""The house rules of docs/dev/architecture.md, read from the source with ``ast`` (no import needed).

- data flows one way: site_gen reads only bench's result contract (``bench.contract``, ``bench.errors``),
  never a sweep, an engine or an importer; bench never imports site_gen but in ``bench/cli.py``, which
  mounts ``llmbench site``;
- ``bench.sweep`` drives engines through ``bench.sweep.engine`` and names none: no import of
  ``bench.trtllm`` or ``bench.engines``;
- no import cycle among the project's modules (module-level imports, the ones that run at import time,
  and type-only ones under ``if TYPE_CHECKING:``).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _module(path: Path) -> str:
    rel = path.relative_to(ROOT).with_suffix("")
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
    assert {"bench.sweep.engine", "bench.trtllm.command", "bench.contract.schema", "site_gen.load"} <= set(
        SOURCES
    )
    assert "bench.contract.schema" in _project_imports("site_gen.load", top_level_only=False)


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
    # runs above it, and the site's columns (site_gen.bound) and the planner (site_gen.memory) re-export
    # the same modules, so the two can never disagree on a run's bound.
    assert "bench.contract.bound" in _project_imports("bench.contract.quality", top_level_only=True)
    assert "bench.contract.quality" in _project_imports("bench.contract.resultfile", top_level_only=True)
    assert "bench.contract.bound" in _project_imports("site_gen.bound", top_level_only=True)
    assert "bench.contract.modelmath" in _project_imports("site_gen.memory", top_level_only=True)
    for name in ("site_gen.bound", "site_gen.memory"):
        defined = {
            n.name for n in ast.parse(SOURCES[name].read_text(encoding="utf-8")).body if hasattr(n, "name")
        }
        assert not defined & {"output_tps_bound", "param_groups", "kv_bytes_per_sequence"}, name
