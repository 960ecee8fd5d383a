"""The stage packages import each other without a cycle.

A cycle between stages (``cite`` walking the area files through ``rows`` while ``rows``
verified citations through ``cite``) means neither can be rebuilt, re-run or tested alone,
and a change to one silently changes the other. The graph is read from the source with
``ast``, so an import inside a function counts as much as one at the top of a module: it is
the same dependency, only paid for later.

Each module under ``compare/`` belongs to the stage package it sits in. Three kinds of module
stand outside the stages: the shared helpers ``compare/_*.py``, the top-level ``compare/cli.py``
and ``compare/__main__.py``, and each stage's ``cli.py`` (``compare/<stage>/…/cli.py``). The
command modules are the thin layer ``compare/cli.py`` mounts: a command may call whichever
stage does the work (``cite --check`` calls the rows stage, which owns the walk over the area
files), so they are kept out of the stage graph — and a second test makes sure no stage module
imports a command module, which would smuggle the edge back in.
"""

from __future__ import annotations

import ast
import itertools
from collections import defaultdict
from pathlib import Path

from compare._paths import PROJECT_ROOT

PACKAGE = PROJECT_ROOT / "compare"
STAGES = ("pin", "models", "diff", "exchange", "rows", "cite", "site")
#: The packages the exchange stage was split into (issue 22 item 6) count as that stage
#: here: they call each other by design (a cell is played, then judged), and the graph
#: is the stages'.
EXCHANGE_PARTS = {p: "exchange" for p in ("play", "judge", "peer", "hosts", "install")}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PROJECT_ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_command(module: str) -> bool:
    parts = module.split(".")
    return parts[-1] == "cli" or module == "compare.__main__"


def stage_of(module: str) -> str | None:
    """The stage package ``module`` belongs to; None for shared, top-level and command modules."""
    parts = module.split(".")
    if parts[0] != "compare" or len(parts) < 2 or _is_command(module):
        return None
    stage = EXCHANGE_PARTS.get(parts[1], parts[1])
    return stage if stage in STAGES else None


def _imports(path: Path, module: str) -> set[str]:
    """Every module ``path`` imports, at any depth of the code (relative imports resolved)."""
    tree = ast.parse(path.read_text("utf-8"), filename=str(path))
    package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join(anchor + ([base] if base else []))
            found.add(base)
            # `from compare import rows` imports the package compare.rows.
            found |= {f"{base}.{alias.name}" for alias in node.names}
    return found


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def stage_edges() -> dict[tuple[str, str], list[str]]:
    """(from stage, to stage) -> the ``module -> module`` imports that make the edge."""
    modules = _modules()
    edges: dict[tuple[str, str], list[str]] = defaultdict(list)
    for name, path in modules.items():
        source = stage_of(name)
        if source is None:
            continue
        for imported in sorted(_imports(path, name)):
            if imported not in modules:
                continue  # a name imported from a module, or another package
            target = stage_of(imported)
            if target is not None and target != source:
                edges[(source, target)].append(f"{name} -> {imported}")
    return dict(edges)


def find_cycle(edges: set[tuple[str, str]]) -> list[str] | None:
    """One cycle of the graph as ``[a, b, …, a]``, or None when it has none."""
    graph: dict[str, list[str]] = defaultdict(list)
    for a, b in sorted(edges):
        graph[a].append(b)
    state: dict[str, str] = {}  # "open" while on the path, "done" once fully explored
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = "open"
        path.append(node)
        for nxt in graph[node]:
            if state.get(nxt) == "open":
                return [*path[path.index(nxt) :], nxt]
            if nxt not in state and (cycle := visit(nxt)):
                return cycle
        path.pop()
        state[node] = "done"
        return None

    for start in sorted(graph):
        if start not in state and (cycle := visit(start)):
            return cycle
    return None


def test_the_stage_packages_import_each_other_without_a_cycle() -> None:
    edges = stage_edges()
    cycle = find_cycle(set(edges))
    if cycle is not None:
        lines = [" -> ".join(cycle)]
        for a, b in itertools.pairwise(cycle):
            lines += [f"  {a} -> {b}:"] + [f"    {imp}" for imp in edges[(a, b)]]
        print("\n".join(lines))
    assert cycle is None, "the stage graph has a cycle: " + " -> ".join(cycle or [])


def test_no_stage_module_imports_a_command_module() -> None:
    modules = _modules()
    bad = [
        f"{name} -> {imported}"
        for name, path in modules.items()
        if stage_of(name) is not None
        for imported in sorted(_imports(path, name))
        if imported in modules and _is_command(imported)
    ]
    assert not bad, bad


def test_the_cite_stage_imports_no_other_stage_but_pin() -> None:
    # cite verifies citation strings; reading pinned files is all it needs of another stage.
    outside = {b for a, b in stage_edges() if a == "cite"}
    assert outside <= {"pin"}, sorted(outside)


def test_the_cycle_finder_finds_a_crafted_cycle_and_the_graph_reader_sees_nested_imports(
    tmp_path: Path,
) -> None:
    assert find_cycle({("rows", "cite"), ("cite", "rows"), ("site", "rows")}) == [
        "cite",
        "rows",
        "cite",
    ]
    assert find_cycle({("rows", "cite"), ("site", "rows"), ("site", "cite")}) is None
    source = tmp_path / "compare" / "cite" / "_walk.py"
    source.parent.mkdir(parents=True)
    source.write_text("def f():\n    from compare.rows import area_files\n    from . import _x\n")
    assert {"compare.rows", "compare.rows.area_files", "compare.cite._x"} <= _imports(
        source, "compare.cite._walk"
    )
