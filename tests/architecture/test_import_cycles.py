"""No two modules of the package import each other, directly or round a longer loop.

Every import counts: at the top, inside a function (a lazy import) and under TYPE_CHECKING. A
circle makes the import order matter and hides which module is the lower one; what both sides
need goes to a third module both import (vault/yaml_core.py, trust/validate/main_text.py, index/parsing.py,
index/vault_index.py are such modules). grimp, import-linter's graph, finds the imports.
"""

from __future__ import annotations

import grimp


def import_cycles(graph: grimp.ImportGraph) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(graph.modules):
        if start in index:
            continue
        work = [(start, iter(sorted(graph.find_modules_directly_imported_by(start))))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, targets = work[-1]
            step = next(targets, None)
            if step is not None:
                if step not in index:
                    index[step] = low[step] = len(index)
                    stack.append(step)
                    on_stack.add(step)
                    work.append((step, iter(sorted(graph.find_modules_directly_imported_by(step)))))
                elif step in on_stack:
                    low[node] = min(low[node], index[step])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_the_package_has_no_import_cycle() -> None:
    graph = grimp.build_graph("knowledge_harness", include_external_packages=False)
    assert import_cycles(graph) == []


def test_the_check_finds_a_two_module_circle_and_a_longer_loop() -> None:
    graph = grimp.ImportGraph()
    for name in ("p.a", "p.b", "p.c", "p.d", "p.e"):
        graph.add_module(name)
    for importer, imported in (("p.a", "p.b"), ("p.b", "p.a"), ("p.c", "p.d"), ("p.d", "p.e"), ("p.e", "p.c")):
        graph.add_import(importer=importer, imported=imported)
    graph.add_import(importer="p.a", imported="p.c")  # one way only: no circle
    assert sorted(import_cycles(graph)) == [["p.a", "p.b"], ["p.c", "p.d", "p.e"]]
