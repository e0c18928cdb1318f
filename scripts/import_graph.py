"""List the import cycles among the modules of a package, counting imports inside functions.

    python scripts/import_graph.py                    # cycles among bnb_sim's modules
    python scripts/import_graph.py --touching bnb_sim.runner.simulate,bnb_sim.analysis.sweep
    python scripts/import_graph.py --edges bnb_sim.runner.storage   # what it imports, and who

A *cycle* is a strongly connected component of the import graph with more than one module:
modules that reach each other through imports. Every ``import`` and ``from ... import``
counts, at module level and inside functions, classes and ``try`` blocks alike (a
function-level import only delays the cycle, it does not remove it), except those under
``if TYPE_CHECKING:``, which never run. Relative imports are resolved,
and ``from package import name`` points at the submodule ``package.name`` when there is one,
else at the package. Importing ``a.b.c`` is counted as an edge to ``a.b.c`` only, not to
the packages ``a`` and ``a.b`` above it.

Each cycle is printed with its modules and the imports that tie them (file:line, and
``(in a function)`` for the ones that are not at module level). The exit status is 1 when a
cycle is listed, 0 otherwise, so the script can guard a build.
"""

from __future__ import annotations

import argparse
import ast
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Edge:
    """One import statement of ``source`` that loads ``target``."""

    source: str
    target: str
    line: int
    nested: bool  # inside a function (runs when it is called, not when the module loads)


def module_names(root: Path, package: str) -> dict[str, Path]:
    """``{dotted module name: file}`` for every ``.py`` file of ``package`` under ``root``."""
    names = {}
    for file in sorted((root / package).rglob("*.py")):
        parts = list(file.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        names[".".join(parts)] = file
    return names


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(tree: ast.Module) -> Iterable[tuple[ast.Import | ast.ImportFrom, bool]]:
    """Every import statement of ``tree`` and whether it sits in a function; the body of an
    ``if TYPE_CHECKING:`` block is skipped (its ``else`` branch is not)."""

    def visit(node: ast.AST, in_function: bool):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _is_type_checking(child):
                for stmt in child.orelse:
                    yield from visit_statement(stmt, in_function)
                continue
            yield from visit_statement(child, in_function)

    def visit_statement(node: ast.AST, in_function: bool):
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node, in_function
            return
        functions = ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda
        yield from visit(node, in_function or isinstance(node, functions))

    yield from visit(tree, False)


def _base(module: str, is_package: bool, level: int, name: str | None) -> str:
    """The absolute module a relative ``from ... import`` starts from."""
    parts = module.split(".")
    if not is_package:
        parts = parts[:-1]
    if level > 1:
        parts = parts[: len(parts) - (level - 1)]
    return ".".join([*parts, name] if name else parts)


def edges_of(module: str, file: Path, known: dict[str, Path]) -> list[Edge]:
    """The imports of ``module`` that load another module of ``known``."""
    tree = ast.parse(file.read_text(encoding="utf-8"), str(file))
    is_package = file.name == "__init__.py"
    out = []
    for node, nested in _imports(tree):
        targets = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        else:
            if node.level:
                base = _base(module, is_package, node.level, node.module)
            else:
                base = node.module or ""
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                targets.append(sub if sub in known else base)
        for target in targets:
            while target and target not in known:  # `import a.b.c` of a module we do not know
                target = target.rpartition(".")[0]
            if target and target != module:
                out.append(Edge(module, target, node.lineno, nested))
    return out


def graph(root: Path, package: str) -> tuple[dict[str, Path], list[Edge]]:
    known = module_names(root, package)
    edges = [e for module, file in known.items() for e in edges_of(module, file, known)]
    edges = list(dict.fromkeys(edges))  # one statement importing several names: one edge
    return known, edges


def cycles(nodes: Iterable[str], edges: list[Edge]) -> list[list[str]]:
    """Strongly connected components with more than one module, each sorted, largest first
    (Tarjan's algorithm, iterative)."""
    succ: dict[str, set[str]] = {n: set() for n in nodes}
    for e in edges:
        succ[e.source].add(e.target)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    counter = 0
    for start in sorted(succ):
        if start in index:
            continue
        work = [(start, iter(sorted(succ[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(succ[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
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
    return sorted(found, key=lambda c: (-len(c), c))


def _where(edge: Edge, known: dict[str, Path], root: Path) -> str:
    file = known[edge.source].relative_to(root)
    return f"{file}:{edge.line}{' (in a function)' if edge.nested else ''}"


def report(known: dict[str, Path], edges: list[Edge], root: Path, touching: list[str]) -> list[str]:
    lines = []
    found = cycles(known, edges)
    if touching:
        found = [
            c for c in found if any(m == t or m.startswith(t + ".") for t in touching for m in c)
        ]
    for i, component in enumerate(found, 1):
        members = set(component)
        lines.append(f"cycle {i}: {len(component)} modules")
        for module in component:
            lines.append(f"  {module}")
        for e in sorted(edges, key=lambda e: (e.source, e.line)):
            if e.source in members and e.target in members:
                lines.append(f"    {e.source} -> {e.target}  ({_where(e, known, root)})")
    lines.append(f"{len(found)} cycle(s) among {len(known)} modules")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", default=str(Path(__file__).resolve().parents[1]))
    parser.add_argument("--package", default="bnb_sim")
    parser.add_argument(
        "--touching", default="", help="comma-separated modules or packages: only their cycles"
    )
    parser.add_argument("--edges", default=None, help="print a module's imports and importers")
    args = parser.parse_args(argv)
    root = Path(args.root)
    known, edges = graph(root, args.package)
    if args.edges:
        for e in sorted(edges, key=lambda e: (e.target, e.source, e.line)):
            if e.source == args.edges:
                print(f"imports   {e.target}  ({_where(e, known, root)})")
            if e.target == args.edges:
                print(f"imported by {e.source}  ({_where(e, known, root)})")
        return 0
    touching = [t.strip() for t in args.touching.split(",") if t.strip()]
    lines = report(known, edges, root, touching)
    print("\n".join(lines))
    return 1 if len(lines) > 1 else 0


if __name__ == "__main__":
    sys.exit(main())
