"""No module of ``ragas_boot`` imports another that imports it back, directly or round a longer
circle, counting every import: at the top, inside functions (lazy) and under
``TYPE_CHECKING`` (import-linter's contracts leave those out; grimp's graph, with
``exclude_type_checking_imports=False``, has them all)."""

from __future__ import annotations

import grimp
import pytest


def circles(graph: grimp.ImportGraph) -> list[frozenset[str]]:
    """The strongly connected sets of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[frozenset[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for imported in graph.find_modules_directly_imported_by(module):
            if imported not in index:
                visit(imported)
                low[module] = min(low[module], low[imported])
            elif imported in on_stack:
                low[module] = min(low[module], index[imported])
        if low[module] == index[module]:
            members: set[str] = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                members.add(member)
                if member == module:
                    break
            if len(members) > 1:
                found.append(frozenset(members))

    for module in sorted(graph.modules):
        if module not in index:
            visit(module)
    return found


@pytest.fixture(scope="module")
def graph() -> grimp.ImportGraph:
    return grimp.build_graph("ragas_boot", exclude_type_checking_imports=False, cache_dir=None)


def test_no_module_imports_one_that_imports_it_back(graph: grimp.ImportGraph) -> None:
    found = [sorted(circle) for circle in circles(graph)]
    assert found == [], f"import circles (each a set of modules that import each other): {found}"


def test_lazy_and_type_checking_imports_are_counted(graph: grimp.ImportGraph) -> None:
    # One of each, so that a graph that lost them could not pass the test above unseen.
    lazy = ("ragas_boot.runs.suites.agents", "ragas_boot.chat")  # inside _agent_spec
    guarded = ("ragas_boot.execution.spending", "ragas_boot.chat.judge")  # TYPE_CHECKING
    for importer, imported in (lazy, guarded):
        assert graph.direct_import_exists(importer=importer, imported=imported)


def test_a_circle_is_found_round_three_modules() -> None:
    graph = grimp.ImportGraph()
    for importer, imported in (("p.a", "p.b"), ("p.b", "p.c"), ("p.c", "p.a"), ("p.c", "p.d")):
        graph.add_import(importer=importer, imported=imported)
    assert circles(graph) == [frozenset({"p.a", "p.b", "p.c"})]
