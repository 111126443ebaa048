"""Every script of ``examples/`` (the documentation's gallery) runs to completion
and leaves no file in its working directory.

Each runs in its own interpreter, in a temporary working directory, with
matplotlib's non-interactive Agg backend; the scripts check their own claims
(bit-identical models, the kernel expansion) with asserts.

CI runs every script outside pytest too (the documentation build, .ci/dask_only);
``PEGASOS_RUN_ELSEWHERE`` skips those here (tests/run_elsewhere.py).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pegasos_rs
import pytest
from run_elsewhere import ROOT, run_by_dask_only, run_by_docs, run_elsewhere

EXAMPLES = sorted((ROOT / "examples").glob("*.py"))


def test_ci_runs_every_example_elsewhere():
    """What PEGASOS_RUN_ELSEWHERE relies on: the gallery runs the plot_ scripts,
    .ci/dask_only the one that needs a Dask cluster (the gallery shows it without
    running it)."""
    assert {p.name for p in EXAMPLES if run_by_docs(p)} == {
        p.name for p in EXAMPLES if p.name.startswith("plot_")
    }
    if (ROOT / ".ci").is_dir():
        assert [p.name for p in EXAMPLES if run_by_dask_only(p)] == ["dask_svmlight_files.py"]


def test_the_gallery_has_examples():
    assert len(EXAMPLES) >= 5, EXAMPLES


@pytest.mark.slow  # each example in a fresh interpreter
@pytest.mark.parametrize("script", EXAMPLES, ids=[p.name for p in EXAMPLES])
def test_example_runs(script, tmp_path):
    elsewhere = run_elsewhere(script)
    if elsewhere:
        pytest.skip(f"CI runs it in {' and '.join(elsewhere)} (PEGASOS_RUN_ELSEWHERE)")
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
