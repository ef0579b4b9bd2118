"""The house rules of docs/dev/architecture.md, read from the source with ``ast`` (no import needed).

- data flows one way: site_gen reads only bench's result contract (``bench.contract``, ``bench.errors``),
  never a sweep, an engine or an importer; bench never imports site_gen but in ``bench/cli.py``, which
  mounts ``llmbench site``;
- ``bench.sweep`` drives engines through ``bench.sweep.engine`` and names none: no import of
  ``bench.trtllm`` or ``bench.engines``;
- no import cycle among the project's modules (module-level imports, the ones that run at import time).
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


def _imports(path: Path, top_level_only: bool) -> Iterator[str]:
    """Project modules imported by ``path`` (``from a import b`` yields ``a.b`` when that is a module)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    nodes = tree.body if top_level_only else list(ast.walk(tree))
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


def test_no_import_cycle() -> None:
    graph = {n: _project_imports(n, top_level_only=True) - {n} for n in SOURCES}
    # a package's own __init__ is imported before any of its modules: that edge is no cycle
    graph = {n: {m for m in deps if not n.startswith(m + ".")} for n, deps in graph.items()}
    state: dict[str, int] = {}  # 1: on the current path, 2: done

    def visit(n: str, path: list[str]) -> None:
        state[n] = 1
        for m in sorted(graph[n]):
            if state.get(m) == 1:
                cycle = [*path[path.index(m) :], m] if m in path else [n, m]
                pytest.fail("import cycle: " + " -> ".join(cycle))
            if m not in state:
                visit(m, [*path, m])
        state[n] = 2

    for n in sorted(graph):
        if n not in state:
            visit(n, [n])


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
