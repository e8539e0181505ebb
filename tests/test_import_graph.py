"""The package's import graph, read from its source: no cycles, and no import inside a function that
only hides one.

An import inside a function runs when the function is first called, so two modules that import
each other that way load fine and still depend on each other: code cannot be moved, read or
tested one side at a time. The graph is built with ``ast`` from the files that ``setup.py``'s
``package_layout`` maps into ``monster_zoo`` (nothing of the package is imported), and counts
imports at module level and inside functions alike; ``if TYPE_CHECKING:`` blocks are left out, and
``importlib.import_module("<literal>")`` counts as an import inside a function, so it cannot hide
a cycle either.
"""

import ast
import importlib.util
from collections import defaultdict
from pathlib import Path
from typing import NamedTuple

import pytest

REPO = Path(__file__).resolve().parent.parent


class Edge(NamedTuple):
    """``source`` imports ``target`` at ``line`` of ``path``; ``in_function`` when inside a function."""

    source: str
    target: str
    in_function: bool
    path: Path
    line: int


def package_modules(root: Path, package_dir: dict[str, str]) -> dict[str, tuple[Path, bool]]:
    """Dotted module name -> (file, is a package) for every ``.py`` file under the mapped folders."""
    modules = {}
    for package, folder in package_dir.items():
        for path in sorted((root / folder).rglob("*.py")):
            parts = list(path.relative_to(root / folder).with_suffix("").parts)
            if "__pycache__" in parts:
                continue
            is_package = parts[-1] == "__init__"
            name = ".".join([package] + (parts[:-1] if is_package else parts))
            modules.setdefault(name, (path, is_package))
    return modules


def _absolute(module: str, is_package: bool, level: int, target: str) -> str:
    """The absolute name of a (possibly relative) ``from`` import's module."""
    if level == 0:
        return target or ""
    base = module.split(".") if is_package else module.split(".")[:-1]
    base = base[: len(base) - (level - 1)]
    return ".".join(base + ([target] if target else []))


def _known(name: str, modules) -> str:
    """``name`` or its nearest enclosing module that is one of ``modules`` ("" if none)."""
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name


class _Imports(ast.NodeVisitor):
    """Collects one module's imports of the package's modules, noting those inside functions."""

    def __init__(self, module: str, is_package: bool, path: Path, modules):
        self.module, self.is_package, self.path, self.modules = module, is_package, path, modules
        self.depth, self.edges = 0, []

    def _add(self, target: str, node: ast.AST) -> None:
        target = _known(target, self.modules)
        if target and target != self.module:
            self.edges.append(Edge(self.module, target, self.depth > 0, self.path, node.lineno))

    def visit_FunctionDef(self, node):
        self.depth += 1
        self.generic_visit(node)
        self.depth -= 1

    visit_AsyncFunctionDef = visit_FunctionDef
    visit_Lambda = visit_FunctionDef

    def visit_If(self, node):
        if "TYPE_CHECKING" in ast.unparse(node.test):  # read by type checkers only
            for child in node.orelse:
                self.visit(child)
        else:
            self.generic_visit(node)

    def visit_Import(self, node):
        for alias in node.names:
            self._add(alias.name, node)

    def visit_ImportFrom(self, node):
        base = _absolute(self.module, self.is_package, node.level, node.module)
        for alias in node.names:
            # ``from pkg import name`` imports the submodule pkg.name when there is one
            self._add(f"{base}.{alias.name}" if f"{base}.{alias.name}" in self.modules else base, node)

    def visit_Call(self, node):
        func = ast.unparse(node.func)
        if (
            func in ("importlib.import_module", "import_module")
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            self.depth += 1
            self._add(node.args[0].value, node)
            self.depth -= 1
        self.generic_visit(node)


def import_edges(modules) -> list[Edge]:
    """Every import of one of ``modules`` by another, from their source."""
    edges = []
    for name, (path, is_package) in modules.items():
        visitor = _Imports(name, is_package, path, modules)
        visitor.visit(ast.parse(path.read_text(encoding="utf-8"), str(path)))
        edges += visitor.edges
    return edges


def cycles(edges: list[Edge]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    graph: dict[str, set[str]] = defaultdict(set)
    for edge in edges:
        graph[edge.source].add(edge.target)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]  # iterative, so deep graphs cannot overflow
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is None:
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
            elif child not in index:
                index[child] = low[child] = len(index)
                stack.append(child)
                on_stack.add(child)
                work.append((child, iter(sorted(graph.get(child, ())))))
            elif child in on_stack:
                low[node] = min(low[node], index[child])
    return found


def hiding_imports(edges: list[Edge]) -> list[Edge]:
    """The imports inside functions whose target imports their source back, directly or not."""
    graph: dict[str, set[str]] = defaultdict(set)
    for edge in edges:
        graph[edge.source].add(edge.target)

    def reaches(start: str, goal: str) -> bool:
        seen, todo = set(), [start]
        while todo:
            node = todo.pop()
            if node == goal:
                return True
            if node not in seen:
                seen.add(node)
                todo.extend(graph.get(node, ()))
        return False

    return [edge for edge in edges if edge.in_function and reaches(edge.target, edge.source)]


def _where(edge: Edge) -> str:
    """``file:line`` of an import, relative to the repository."""
    return f"{edge.path.relative_to(REPO)}:{edge.line}"


def package_dir() -> dict[str, str]:
    """Package -> folder, as ``setup.py`` installs them (its ``package_layout``)."""
    spec = importlib.util.spec_from_file_location("monster_zoo_setup", REPO / "setup.py")
    setup = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(setup)  # runs setup() only as a script
    return setup.package_layout()[1]


def _package_edges() -> list[Edge]:
    """The imports among the package's own modules."""
    return import_edges(package_modules(REPO, package_dir()))


def test_the_graph_covers_every_source_file():
    folders = package_dir()
    modules = package_modules(REPO, folders)
    files = {
        p
        for folder in folders.values()
        for p in (REPO / folder).rglob("*.py")
        if "__pycache__" not in p.parts
    }
    assert {path for path, _ in modules.values()} == files
    assert "monster_zoo.agents.registry" in modules and "monster_zoo.envs.core.aec" in modules


def test_the_package_has_no_import_cycle():
    edges = _package_edges()
    found = cycles(edges)
    detail = [
        f"{' <-> '.join(component)}: "
        + "; ".join(
            f"{e.source} imports {e.target} at {_where(e)}"
            for e in edges
            if e.source in component and e.target in component
        )
        for component in found
    ]
    assert not found, (
        "import cycles (move the shared code down into a module both can import):\n" + "\n".join(detail)
    )


def test_no_import_inside_a_function_hides_a_cycle():
    hiding = hiding_imports(_package_edges())
    assert not hiding, "\n".join(
        f"{_where(e)}: {e.source} imports {e.target} inside a function, and {e.target} imports "
        f"{e.source} back: move the shared code down instead"
        for e in hiding
    )


def package_edges(edges: list[Edge], depth: int = 2) -> list[Edge]:
    """The imports between packages: each module stands for its package ``depth`` names deep
    (``monster_zoo.agents`` for ``monster_zoo.agents.registry`` at depth 2). Imports within a package
    are left out, and so are those of ``__main__`` modules (an entry point, ``python -m ...``, is
    imported by nothing, so it cannot close a loop) and those of or to a module above ``depth`` (the
    front door ``monster_zoo``, which re-exports ``envs`` and holds the version others read)."""

    def package(module: str) -> str:
        return ".".join(module.split(".")[:depth])

    return [
        edge._replace(source=package(edge.source), target=package(edge.target))
        for edge in edges
        if package(edge.source) != package(edge.target)
        and edge.source.rpartition(".")[2] != "__main__"
        and min(len(edge.source.split(".")), len(edge.target.split("."))) >= depth
    ]


@pytest.mark.parametrize("depth", [2, 3])
def test_no_loop_between_packages(depth):
    """``envs``, ``agents``, ``evaluation``, ``training``, ``benchmarks``, ``web`` and ``cli`` import
    each other in one direction only (the command line on top, the environments at the bottom);
    one level down, so do the packages inside them (each kind of agent, each game) and the
    modules beside them (the agents' registry, base and model-file opener)."""
    edges = package_edges(_package_edges(), depth)
    found = cycles(edges)
    detail = [
        f"{' <-> '.join(component)}: "
        + "; ".join(
            sorted(
                {
                    f"{e.source} imports {e.target} at {_where(e)}"
                    for e in edges
                    if e.source in component and e.target in component
                }
            )
        )
        for component in found
    ]
    assert not found, "loops between packages:\n" + "\n".join(detail)
    if depth != 2:
        return
    below = {(e.source, e.target) for e in edges}
    assert ("monster_zoo.envs", "monster_zoo.agents") not in below
    assert not {target for source, target in below if source == "monster_zoo.agents"} & {
        "monster_zoo.evaluation",
        "monster_zoo.training",
        "monster_zoo.cli",
    }
    assert not {source for source, target in below if target == "monster_zoo.cli"}


def test_the_package_check_finds_a_loop_between_packages(tmp_path):
    """Two packages whose modules import each other in a loop fail it; an entry point does not."""
    for package in ("top", "top/low", "top/high"):
        (tmp_path / package).mkdir()
        (tmp_path / package / "__init__.py").write_text("")
    (tmp_path / "top" / "low" / "a.py").write_text("from top.high import b\n")
    (tmp_path / "top" / "high" / "b.py").write_text("x = 1\n")
    (tmp_path / "top" / "low" / "__main__.py").write_text("from top.high import c\n")
    (tmp_path / "top" / "high" / "c.py").write_text("from top.low import d\n")
    (tmp_path / "top" / "low" / "d.py").write_text("y = 1\n")
    edges = import_edges(package_modules(tmp_path, {"top": "top"}))
    assert cycles(package_edges(edges)) == [["top.high", "top.low"]]
    (tmp_path / "top" / "low" / "a.py").write_text("")
    assert cycles(package_edges(import_edges(package_modules(tmp_path, {"top": "top"})))) == []


def test_the_checks_find_a_cycle_hidden_in_a_function(tmp_path):
    """A package whose modules import each other, one side inside a function, fails both checks."""
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from . import b\n\n\ndef use():\n    return b\n")
    (package / "b.py").write_text("def lazy():\n    from .a import use\n    return use\n")
    (package / "c.py").write_text(
        "import importlib\n\n\ndef later():\n    return importlib.import_module('pkg.d')\n"
    )
    (package / "d.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from . import c\n"
    )
    edges = import_edges(package_modules(tmp_path, {"pkg": "pkg"}))
    assert cycles(edges) == [["pkg.a", "pkg.b"]]
    assert [(e.source, e.target, e.line) for e in hiding_imports(edges)] == [("pkg.b", "pkg.a", 2)]
    assert ("pkg.c", "pkg.d", True) in {(e.source, e.target, e.in_function) for e in edges}
    assert not any(e.source == "pkg.d" for e in edges)  # TYPE_CHECKING imports are left out
