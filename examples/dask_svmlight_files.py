"""
Training on svmlight files with Dask
====================================

This example needs only the ``[dask]`` extra (``python3 -m pip install ".[dask]"``
from the clone): no pandas, no pyarrow, no matplotlib. The documentation build shows
it without running it (its file name does not start with ``plot_``); the test suite
and ``.ci/dask_only`` run it, the latter in a virtualenv with nothing but the extra.

It writes four svmlight files of a seeded sparse problem, as stand-ins for files on
the cluster's disks, starts a ``LocalCluster`` of two worker processes, reads three
files with :func:`pegasos_rs.dask.read_svmlight` (nothing is read yet), trains
:class:`pegasos_rs.dask.PegasosClassifier` on them (the files stay on the workers;
the client takes the steps) and predicts the fourth file block by block on the
workers. The exact mode gives the model of :class:`pegasos_rs.PegasosClassifier`
trained in memory on the same rows, bit for bit; the parallel mode averages models
trained on the workers. A dask array made from numpy arrays trains the same way.

The worker processes import this script, so the cluster starts under
``if __name__ == "__main__":``.
"""

import shutil
import tempfile
from pathlib import Path

import dask.array as da
import distributed
import numpy as np
import pegasos_rs
import pegasos_rs.dask as pdask
import scipy.sparse as sp


def write_files(folder: Path) -> list[Path]:
    """Four svmlight files of 2,000 rows each, 200 features, 5% of them nonzero."""
    rng = np.random.default_rng(0)
    w = rng.standard_normal(200)
    paths = []
    for i in range(4):
        rows = sp.random(2_000, 200, density=0.05, format="csr", random_state=rng)
        paths.append(folder / f"clicks-{i}.svm")
        pegasos_rs.dump_svmlight_file(rows, np.where(rows @ w > 0, 1, -1), paths[-1])
    return paths


def main(folder: Path) -> None:
    paths = write_files(folder)
    params = {"alpha": 1e-4, "max_steps": 20_000, "average": True, "random_state": 0}
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, dashboard_address=":0"
        ) as cluster,
        distributed.Client(cluster),
    ):
        X, y = pdask.read_svmlight(paths[:3], n_features=200, zero_based=True)
        clf = pdask.PegasosClassifier(**params).fit(X, y)
        X_new, y_new = pdask.read_svmlight(paths[3], n_features=200, zero_based=True)
        predicted = clf.predict(X_new)  # a dask array, nothing computed yet
        accuracy = float((predicted == y_new).mean().compute())
        print(f"exact mode: accuracy {accuracy:.3f} on the fourth file")
        assert accuracy > 0.8, accuracy

        # The model of the in-memory solver on the same rows, bit for bit.
        loaded = pegasos_rs.load_svmlight_files(paths[:3], n_features=200, zero_based=True)
        X_all, y_all = sp.vstack(loaded[0::2], format="csr"), np.concatenate(loaded[1::2])
        local = pegasos_rs.PegasosClassifier(**params).fit(X_all, y_all)
        assert clf.coef_.tobytes() == local.coef_.tobytes()
        assert clf.to_local().coef_.tobytes() == local.coef_.tobytes()

        parallel = pdask.PegasosClassifier(mode="parallel", **params).fit(X, y)
        print(f"parallel mode: accuracy {parallel.score(X_new, y_new):.3f}")

        # A dask array of numpy chunks, predicted on the workers, scored there.
        dense = X_all.toarray()
        dX = da.from_array(dense, chunks=(2_000, 200))
        dy = da.from_array(y_all, chunks=2_000)
        on_array = pdask.PegasosClassifier(**params).fit(dX, dy)
        in_memory = pegasos_rs.PegasosClassifier(**params).fit(dense, y_all)
        assert on_array.coef_.tobytes() == in_memory.coef_.tobytes()
        print(f"dask array: training accuracy {on_array.score(dX, dy):.3f}")

    clf.to_local().save(folder / "clicks.model")  # a plain pegasos_rs.PegasosClassifier
    assert pegasos_rs.load(folder / "clicks.model").coef_.tobytes() == local.coef_.tobytes()


if __name__ == "__main__":
    workdir = Path(tempfile.mkdtemp())
    try:
        main(workdir)
    finally:
        shutil.rmtree(workdir)
