"""The package's modules import one another in one direction only (issue 16): no
import cycle, not even one hidden by an import inside a function."""

from __future__ import annotations

import ast
import pathlib

import pegasos_rs

PACKAGE = pathlib.Path(pegasos_rs.__file__).parent


def _module_name(path: pathlib.Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict[str, pathlib.Path]:
    return {_module_name(p): p for p in PACKAGE.rglob("*.py")}


def _type_checking_only(node: ast.AST, parents: dict) -> bool:
    while node in parents:
        node = parents[node]
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            return True
    return False


def _imports(name: str, path: pathlib.Path, known: set[str]) -> set[str]:
    """The package's modules ``name`` imports, anywhere in its code except under
    ``if TYPE_CHECKING`` (annotations only)."""
    tree = ast.parse(path.read_text())
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(tree):
        if _type_checking_only(node, parents):
            continue
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1])
                base = f"{base}.{node.module}" if node.module else base
            # "from package import module" needs the module (the package's
            # __init__ is being imported anyway); "from module import name" the module.
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                found.add(sub if sub in known else base)
    return {m for m in found if m in known and m != name}


def test_no_import_cycles():
    modules = _modules()
    known = {*modules, "pegasos_rs._core"}  # the extension imports nothing of ours
    graph = {name: _imports(name, path, known) for name, path in modules.items()}
    graph["pegasos_rs._core"] = set()
    # The package itself imports its public modules; a module importing from the
    # package ("from pegasos_rs import x") depends on those, so keep that edge.
    state: dict[str, int] = {}
    cycles = []

    def visit(node: str, stack: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                cycles.append([*stack[stack.index(nxt) :], nxt] if nxt in stack else [node, nxt])
            elif nxt not in state:
                visit(nxt, [*stack, nxt])
        state[node] = 2

    for name in sorted(graph):
        if name not in state:
            visit(name, [name])
    assert not cycles, "import cycles: " + "; ".join(" -> ".join(c) for c in cycles)
