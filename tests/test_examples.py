"""Every script of ``examples/`` (the documentation's gallery) runs to completion
and leaves no file in its working directory.

Each runs in its own interpreter, in a temporary working directory, with
matplotlib's non-interactive Agg backend; the scripts check their own claims
(bit-identical models, the kernel expansion) with asserts.

CI runs every script elsewhere too: the documentation build runs the gallery's
scripts (those ``docs/conf.py``'s sphinx-gallery ``filename_pattern`` selects) in the
checkout's ``examples/`` and fails under ``sphinx -W`` when one raises, and
``.ci/run`` then fails on any new file in the checkout; ``.ci/dask_only`` runs the
scripts it names. Once is enough: ``PEGASOS_EXAMPLES_RUN_BY=docs`` skips here the
scripts the documentation build runs, ``PEGASOS_EXAMPLES_RUN_BY=docs,dask_only``
also those ``.ci/dask_only`` runs (set it only where that script checks that they
leave their working directory empty).
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


def _run_by_dask_only(script: Path) -> bool:
    """Whether ``.ci/dask_only`` runs ``script``."""
    ci = ROOT / ".ci" / "dask_only"
    return ci.is_file() and f'"$root/examples/{script.name}"' in ci.read_text()


#: Where else CI runs examples: PEGASOS_EXAMPLES_RUN_BY's names.
RUN_BY = {"docs": _run_by_docs, "dask_only": _run_by_dask_only}


def _run_elsewhere(script: Path) -> list[str]:
    """The places PEGASOS_EXAMPLES_RUN_BY names that run ``script``."""
    names = [n for n in os.environ.get("PEGASOS_EXAMPLES_RUN_BY", "").split(",") if n]
    unknown = set(names) - set(RUN_BY)
    assert not unknown, f"PEGASOS_EXAMPLES_RUN_BY: unknown {sorted(unknown)}; known {list(RUN_BY)}"
    return [n for n in names if RUN_BY[n](script)]


def test_ci_runs_every_example_elsewhere():
    """What PEGASOS_EXAMPLES_RUN_BY relies on: the gallery runs the plot_ scripts,
    .ci/dask_only the one that needs a Dask cluster (the gallery shows it without
    running it)."""
    assert {p.name for p in EXAMPLES if _run_by_docs(p)} == {
        p.name for p in EXAMPLES if p.name.startswith("plot_")
    }
    if (ROOT / ".ci").is_dir():
        assert [p.name for p in EXAMPLES if _run_by_dask_only(p)] == ["dask_svmlight_files.py"]


def test_the_gallery_has_examples():
    assert len(EXAMPLES) >= 5, EXAMPLES


@pytest.mark.parametrize("script", EXAMPLES, ids=[p.name for p in EXAMPLES])
def test_example_runs(script, tmp_path):
    elsewhere = _run_elsewhere(script)
    if elsewhere:
        pytest.skip(f"CI runs it in {' and '.join(elsewhere)} (PEGASOS_EXAMPLES_RUN_BY)")
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
