"""The package's modules import one another in one direction only (issue 16): no
import cycle, not even one hidden by an import inside a function; and the
sub-packages keep their concern (issue 41): nothing but the command line imports
``pegasos_rs.cli``."""

from __future__ import annotations

import ast
import pathlib
import re

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


def _graph() -> dict[str, set[str]]:
    """Each of the package's modules and the package's modules it imports."""
    modules = _modules()
    known = {*modules, "pegasos_rs._core"}  # the extension imports nothing of ours
    graph = {name: _imports(name, path, known) for name, path in modules.items()}
    graph["pegasos_rs._core"] = set()
    return graph


def test_no_import_cycles():
    graph = _graph()
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


#: The command line's sub-package, and the one module outside it that may import it
#: (``python -m pegasos_rs`` runs the command line).
CLI = "pegasos_rs.cli"
CLI_ENTRY = "pegasos_rs.__main__"
#: The sub-packages, each of one concern; the modules at the top level are the
#: estimators and their helpers.
SUB_PACKAGES = ("cli", "io", "dask", "onnx")


def _concern(name: str) -> str:
    """The concern of a module (issue 41): ``"cli"``, ``"io"``, ``"dask"``, ``"onnx"``
    for the sub-packages, ``"estimators"`` for the package's top level."""
    package = name.split(".")[1] if "." in name else ""
    return package if package in SUB_PACKAGES else "estimators"


def _reaches_into_cli(graph: dict[str, set[str]]) -> list[str]:
    """``"module -> cli module"`` for each import of :data:`CLI` by a module outside it
    (the file formats of ``pegasos_rs.io``, the estimators at the top level, the Dask
    and ONNX sub-packages), except :data:`CLI_ENTRY`."""
    return sorted(
        f"{name} ({_concern(name)}) -> {target}"
        for name, targets in graph.items()
        if _concern(name) != "cli" and name != CLI_ENTRY
        for target in targets
        if target == CLI or target.startswith(CLI + ".")
    )


def test_reaches_into_cli_finds_what_it_looks_for():
    """The check below can fail: an io module, an estimator module or a helper at
    the top level importing the command line is found; the command line importing them, and
    ``__main__`` importing it, are not."""
    graph = {
        "pegasos_rs.io.model_io": {"pegasos_rs.cli._common", "pegasos_rs._core"},
        "pegasos_rs.linear": {"pegasos_rs.cli", "pegasos_rs.io.model_io"},
        "pegasos_rs._search": {"pegasos_rs.cli.train"},
        "pegasos_rs.cli.predict": {"pegasos_rs.io.model_io", "pegasos_rs.linear"},
        "pegasos_rs.cli": {"pegasos_rs.cli.train"},
        "pegasos_rs.__main__": {"pegasos_rs.cli"},
        "pegasos_rs.client": {"pegasos_rs.clinic"},  # not the cli: a name's prefix only
        "pegasos_rs.clinic": set(),
    }
    assert _reaches_into_cli(graph) == [
        "pegasos_rs._search (estimators) -> pegasos_rs.cli.train",
        "pegasos_rs.io.model_io (io) -> pegasos_rs.cli._common",
        "pegasos_rs.linear (estimators) -> pegasos_rs.cli",
    ]


def test_sub_packages_keep_their_concern():
    """The command line uses the file formats and the estimators, never the other
    way round: no module of ``pegasos_rs.io``, of the top level (the estimators and
    their helpers), of the Dask or the ONNX sub-package imports
    ``pegasos_rs.cli``, not even inside a function."""
    graph = _graph()
    # The layout this checks (so that the check checks something).
    assert {"pegasos_rs.io.model_io", "pegasos_rs.cli.train", "pegasos_rs.linear"} <= set(graph)
    assert _concern("pegasos_rs.io.svmlight") == "io"
    assert _concern("pegasos_rs.kernel") == "estimators"
    assert _reaches_into_cli(graph) == []


#: The model file modules (issue 27: model files that own no other class's secrets).
MODEL_FILE_MODULES = ("io/model_io.py", "io/_model_file.py", "io/_saved_transformers.py")

#: Private names these modules may use on an estimator: the declared state hook, and
#: scikit-learn's parameter validation that every estimator has.
ALLOWED_PRIVATE = {"_saved_state", "_validate_params"}


def _private_uses(source: str) -> list[str]:
    """Private attributes ``source`` reads or writes on objects other than the
    package's own modules: ``x._name`` and ``getattr/setattr/hasattr/delattr(x,
    "_name")``, except :data:`ALLOWED_PRIVATE` and dunders."""
    tree = ast.parse(source)
    modules = {
        alias.asname or alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module == "pegasos_rs"
        for alias in node.names
    }

    def private(name: str) -> bool:
        return name.startswith("_") and not name.startswith("__") and name not in ALLOWED_PRIVATE

    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and private(node.attr):
            owner = node.value
            if not (isinstance(owner, ast.Name) and owner.id in modules):
                found.append(f"line {node.lineno}: {ast.unparse(node)}")
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ("getattr", "setattr", "hasattr", "delattr")
            and len(node.args) >= 2
            and isinstance(node.args[1], ast.Constant)
            and isinstance(node.args[1].value, str)
            and private(node.args[1].value)
        ):
            found.append(f"line {node.lineno}: {ast.unparse(node)}")
    return found


def _declared_private_names() -> set[str]:
    """The private attributes the saveable classes declare in their ``_saved_state``."""
    from pegasos_rs import _registry
    from pegasos_rs.io._model_file import SavedState

    names = set()
    for cls in _registry.classes().values():
        state = getattr(cls, "_saved_state", None)
        if isinstance(state, SavedState):
            names |= {*state.arrays, *state.scalars, *state.optional, state.solver or ""}
    return {n for n in names if n.startswith("_")}


def test_private_uses_finds_what_it_looks_for():
    """The check below can fail: the forms model_io used to read other classes'
    private state with are found."""
    source = (
        "import numpy as np\n"
        "from pegasos_rs import _core\n"
        "def f(est, estimator):\n"
        "    est._sv_kernel_rows = None\n"
        "    g = getattr(est, '_gamma', None)\n"
        "    s = getattr(type(estimator), '_params_since_version', {})\n"
        "    hasattr(est, '_solver')\n"
        "    est._saved_state, est.__class__, _core.LinearSolverState, np._x\n"
    )
    assert [u.split(":", 1)[1].strip() for u in _private_uses(source)] == [
        "est._sv_kernel_rows",
        "getattr(est, '_gamma', None)",
        "getattr(type(estimator), '_params_since_version', {})",
        "hasattr(est, '_solver')",
        "np._x",
    ]


def test_model_file_modules_name_no_estimators_private_attribute():
    """model_io, _model_file and _saved_transformers read and write an estimator's
    saved state through the declaration its class makes (``_saved_state``), never
    by naming one of its private attributes, not even as a string."""
    declared = _declared_private_names()
    # What the classes declare today (so that the text check below checks something).
    assert {"_sv_kernel_rows", "_gamma", "_solver", "_n_features_out"} <= declared
    for module in MODEL_FILE_MODULES:
        source = (PACKAGE / module).read_text()
        assert _private_uses(source) == [], module
        named = sorted(n for n in declared if re.search(rf"(?<!\w){n}\b", source))
        assert named == [], f"{module} names {named}"
