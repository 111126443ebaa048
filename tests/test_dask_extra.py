"""``pegasos_rs.dask`` with only what the ``[dask]`` extra installs (issue 24).

The extra is ``dask[array]`` and ``distributed``: no pandas, no pyarrow, so no
``dask.dataframe``. The test environment has them all, so each test runs a child
process in which importing them fails as if they were not installed (a finder first
on ``sys.meta_path``), on a cluster of worker threads in that process (worker
processes would import them again). ``.ci/dask_only`` runs
``examples/dask_svmlight_files.py`` in a virtualenv that really has only the extra.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

pytest.importorskip("dask.array")
pytest.importorskip("distributed")

#: Makes importing the named packages (and their submodules) raise
#: ModuleNotFoundError, as when they are not installed.
BLOCK = """
import importlib.abc, sys

BLOCKED = set(sys.argv[1:])

class NotInstalled(importlib.abc.MetaPathFinder):
    def __init__(self, names):
        self.names = names

    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in self.names or name in self.names:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None

for name in list(sys.modules):
    assert name.split(".")[0] not in BLOCKED and name not in BLOCKED, name
sys.meta_path.insert(0, NotInstalled(BLOCKED))
"""


def _run(code: str, blocked: set[str], cwd) -> subprocess.CompletedProcess:
    script = BLOCK + textwrap.dedent(code)
    return subprocess.run(
        [sys.executable, "-c", script, *sorted(blocked)],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=300,
    )


#: Fits, predicts and maps dask arrays and read_svmlight's arrays, in both modes, and
#: runs ``pegasos-rs train --dask``.
WITHOUT_DATAFRAMES = """
import json
import numpy as np
import dask.array as da
import distributed
import pegasos_rs
import pegasos_rs.dask as pdask

rng = np.random.default_rng(0)
X = np.abs(rng.normal(size=(120, 4)))
y = (X[:, 0] > X[:, 1]).astype(np.int64)
pegasos_rs.dump_svmlight_file(X[:60], y[:60], "a.svm")
pegasos_rs.dump_svmlight_file(X[60:], y[60:], "b.svm")
dX, dy = da.from_array(X, chunks=(40, 4)), da.from_array(y, chunks=40)
done = []
with distributed.LocalCluster(
    n_workers=1, threads_per_worker=2, processes=False, dashboard_address=":0"
) as cluster, distributed.Client(cluster) as client:
    kw = {"max_iter": 2, "random_state": 0}
    clf = pdask.PegasosClassifier(**kw).fit(dX, dy, sample_weight=np.ones(120))
    ref = pegasos_rs.PegasosClassifier(**kw).fit(X, y, sample_weight=np.ones(120))
    assert clf.coef_.tobytes() == ref.coef_.tobytes()
    done.append("fit")
    assert (clf.predict(dX).compute() == ref.predict(X)).all()
    np.testing.assert_allclose(clf.decision_function(dX).compute(), ref.decision_function(X))
    assert clf.score(dX, dy) == ref.score(X, y)
    done.append("predict")
    pdask.PegasosClassifier(mode="parallel", **kw).fit(dX, y).score(dX, y)
    pdask.PegasosClassifier().partial_fit(dX, dy, classes=[0, 1])
    done.append("parallel")
    fX, fy = pdask.read_svmlight("*.svm", n_features=4)
    pdask.PegasosClassifier(**kw).fit(fX, fy).predict(fX).compute()
    pdask.PegasosClassifier(mode="parallel", **kw).fit(fX, fy, check_input=False)
    done.append("read_svmlight")
    from pegasos_rs.cli import main  # train --dask runs on the current client

    assert main(["train", "--dask", "-q", "a.svm", "b.svm", "m.model"]) == 0
    assert pegasos_rs.load("m.model").coef_.shape == (1, 4)
    done.append("train --dask")
    for m in (
        pdask.RandomFourierFeatures(n_components=8, random_state=0),
        pdask.Nystroem(n_components=8, random_state=0),
        pdask.AdditiveKernelMap(),
    ):
        assert m.fit(dX).transform(dX).compute().shape[0] == 120
    done.append("feature maps")
print(json.dumps({"done": done, "imported": sorted(
    n for n in ("pandas", "pyarrow", "dask.dataframe") if sys.modules.get(n) is not None
)}))
"""


def test_dask_arrays_train_and_predict_without_pandas_and_pyarrow(tmp_path):
    run = _run(WITHOUT_DATAFRAMES, {"pandas", "pyarrow", "dask.dataframe"}, tmp_path)
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout.strip().splitlines()[-1])
    assert result == {
        "done": ["fit", "predict", "parallel", "read_svmlight", "train --dask", "feature maps"],
        "imported": [],
    }


def test_without_dask_the_error_says_how_to_install_the_extra(tmp_path):
    code = """
    try:
        import pegasos_rs.dask
    except ImportError as e:
        print(e)
    else:
        raise SystemExit("imported")
    """
    run = _run(code, {"dask", "distributed"}, tmp_path)
    assert run.returncode == 0, run.stderr
    message = run.stdout.strip()
    assert "needs dask and distributed" in message
    assert "No module named 'dask'" in message  # what is missing
    assert "the [dask] extra" in message
    assert 'python3 -m pip install ".[dask]"' in message  # from the clone
    assert 'python3 -m pip install "dist/pegasos_rs-<version>-<tags>.whl[dask]"' in message
    assert "pegasos-rs[dask]" not in message  # no package index serves it
