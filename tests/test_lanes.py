"""``tests/lanes.py`` names every test file once, and every file that uses an API
which differs between library versions runs with the oldest declared ones."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import lanes

HERE = Path(__file__).resolve().parent

#: Imports whose API differs between the versions CI installs: a test file importing
#: one of these (or a submodule) runs in the oldest lane too.
VERSIONED_MODULES = (
    "dask",
    "distributed",
    "pandas",
    "polars",
    "pyarrow",
    "onnx",
    "onnxruntime",
    "skl2onnx",
    "onnx_checks",
    "pegasos_rs.dask",
    "pegasos_rs.onnx",
    "sklearn.utils.estimator_checks",
)

#: Uses in a test's text that reach such an API without a telling import.
VERSIONED_TEXT = re.compile(
    r"\bparametrize_with_checks\b"  # scikit-learn's estimator checks (conftest's wrapper)
    r"|\b(?:csr|csc|coo|dok|lil|bsr|dia)_array\b|\bsparray\b"  # scipy's sparse arrays
    r"|\bsklearn\.utils\._"  # scikit-learn's private helpers
    r"|\bpegasos_rs\.(?:dask|onnx)\b"
)


def _imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def _versioned(path: Path) -> list[str]:
    """What in ``path`` depends on a library's version (empty: nothing found)."""
    found = {
        name
        for name in _imports(path)
        if any(name == m or name.startswith(m + ".") for m in VERSIONED_MODULES)
        or name.startswith("sklearn.utils._")
    }
    return sorted(found | set(VERSIONED_TEXT.findall(path.read_text())))


def test_every_test_file_is_in_exactly_one_lane():
    files = {p.name for p in HERE.glob("test_*.py")}
    both = set(lanes.OLDEST) & set(lanes.NEWEST_ONLY)
    assert not both, f"listed in both OLDEST and NEWEST_ONLY: {sorted(both)}"
    listed = set(lanes.OLDEST) | set(lanes.NEWEST_ONLY)
    assert not files - listed, (
        f"add to tests/lanes.py (OLDEST or NEWEST_ONLY): {sorted(files - listed)}"
    )
    assert not listed - files, f"tests/lanes.py names missing files: {sorted(listed - files)}"
    assert all(reason.strip() for reason in {**lanes.OLDEST, **lanes.NEWEST_ONLY}.values())


def test_files_using_versioned_apis_run_in_the_oldest_lane():
    misplaced = {
        name: uses
        for name in lanes.NEWEST_ONLY
        if name != "test_lanes.py" and (uses := _versioned(HERE / name))
    }
    assert not misplaced, (
        "these files use APIs that differ between library versions; move them to "
        f"OLDEST in tests/lanes.py: {misplaced}"
    )


def test_the_check_finds_versioned_apis(tmp_path):
    """The scan itself: each kind of use is found, a plain numpy/scipy test is not."""
    cases = {
        "import dask.array as da\n": True,
        "from distributed import Client\n": True,
        "from pegasos_rs.dask import DaskPegasosClassifier\n": True,
        "from sklearn.utils._param_validation import Interval\n": True,
        "from conftest import parametrize_with_checks\n": True,
        "X = sp.csr_array(X)\n": True,
        "import numpy as np\nimport scipy.sparse as sp\nX = sp.csr_matrix(1)\n": False,
        "from sklearn.svm import LinearSVC\n": False,
    }
    for text, versioned in cases.items():
        path = tmp_path / "test_case.py"
        path.write_text(text)
        assert bool(_versioned(path)) == versioned, text


def test_lanes_prints_the_oldest_files():
    import subprocess
    import sys

    out = subprocess.run(
        [sys.executable, str(HERE / "lanes.py"), "oldest"],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    printed = [Path(line) for line in out.stdout.splitlines()]
    assert [p.name for p in printed] == list(lanes.OLDEST)
    assert all(p.is_file() for p in printed)
