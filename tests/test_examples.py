"""Every script of ``examples/`` (the documentation's gallery) runs to completion
and leaves no file in its working directory.

Each runs in its own interpreter, in a temporary working directory, with
matplotlib's non-interactive Agg backend; the scripts check their own claims
(bit-identical models, the kernel expansion) with asserts.

The documentation build runs the gallery's scripts too (those ``docs/conf.py``'s
sphinx-gallery ``filename_pattern`` selects), in the checkout's ``examples/``, and
fails under ``sphinx -W`` when one raises. Where that build runs in the same check
and the checkout is then checked for new files (``.ci/run``), once is enough:
``PEGASOS_EXAMPLES_RUN_BY_DOCS=1`` skips those scripts here.
"""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from pathlib import Path

import pegasos_rs
import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted((ROOT / "examples").glob("*.py"))


def _gallery_pattern() -> str:
    """The ``filename_pattern`` of ``sphinx_gallery_conf`` in ``docs/conf.py``: the
    scripts the documentation build runs (read, not imported: importing the
    configuration changes the environment)."""
    for node in ast.walk(ast.parse((ROOT / "docs/conf.py").read_text())):
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "sphinx_gallery_conf" for t in node.targets
        ):
            assert isinstance(node.value, ast.Dict)
            for key, value in zip(node.value.keys, node.value.values, strict=True):
                if isinstance(key, ast.Constant) and key.value == "filename_pattern":
                    return ast.literal_eval(value)
    raise AssertionError("docs/conf.py: no filename_pattern in sphinx_gallery_conf")


def _run_by_docs(script: Path) -> bool:
    """Whether the documentation build runs ``script`` (sphinx-gallery matches the
    pattern against the script's path)."""
    return re.search(_gallery_pattern(), script.as_posix()) is not None


def test_the_documentation_build_runs_the_plot_examples():
    """What PEGASOS_EXAMPLES_RUN_BY_DOCS relies on: the gallery runs the plot_
    scripts and not the one that needs a Dask cluster."""
    run = {p.name for p in EXAMPLES if _run_by_docs(p)}
    assert run == {p.name for p in EXAMPLES if p.name.startswith("plot_")}
    assert run and "dask_svmlight_files.py" not in run


def test_the_gallery_has_examples():
    assert len(EXAMPLES) >= 5, EXAMPLES


@pytest.mark.parametrize("script", EXAMPLES, ids=[p.name for p in EXAMPLES])
def test_example_runs(script, tmp_path):
    if os.environ.get("PEGASOS_EXAMPLES_RUN_BY_DOCS") == "1" and _run_by_docs(script):
        pytest.skip("the documentation build runs it (PEGASOS_EXAMPLES_RUN_BY_DOCS=1)")
    pytest.importorskip("matplotlib", reason="the examples draw with matplotlib")
    if "import onnxruntime" in script.read_text():
        pytest.importorskip("onnxruntime", reason=f"{script.name} needs the onnx extra")
    # The script runs in another directory: it must import the pegasos_rs under test.
    paths = [str(Path(pegasos_rs.__file__).resolve().parent.parent)]
    paths += [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    env = {**os.environ, "MPLBACKEND": "Agg", "PYTHONPATH": os.pathsep.join(paths)}
    done = subprocess.run(
        [sys.executable, str(script)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, f"{script.name} failed:\n{done.stdout}\n{done.stderr}"
    assert list(tmp_path.iterdir()) == [], "an example left files in its working directory"
