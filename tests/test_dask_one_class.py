"""``pegasos_rs.dask.PegasosOneClassSVM`` (issue 39): the linear one-class SVM on a
Dask cluster, in exact mode.

The oracle is the in-memory estimator on the computed rows: the same parameters
give the same ``coef_``, ``offset_``, steps and objective, bit for bit, for any
chunking. What the in-memory fit reads of all the rows (the largest row norm of
the projection, the rows whose scores reset the bias after each pass, every row's
score for the exact offset) is read on the cluster, so every case below exercises
them: dense and sparse rows, sample weights, projection on and off, batches,
shuffling, the last iterate, ``tol``, no offset, more rows than a bias reset
samples, ``warm_start`` and ``partial_fit``, svmlight files.
"""

from __future__ import annotations

import pickle
from itertools import pairwise

import numpy as np
import pytest
import scipy.sparse as sp

dask = pytest.importorskip("dask")
distributed = pytest.importorskip("distributed")
da = pytest.importorskip("dask.array")

import pegasos_rs  # noqa: E402
import pegasos_rs.dask as pdask  # noqa: E402
from conftest import cluster_cases  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")


def _rows(n, sparse, seed=0):
    rng = np.random.RandomState(seed)
    X = rng.randn(n, 8) * rng.uniform(0.1, 3, 8) + 1.5
    if sparse:
        X[rng.rand(*X.shape) < 0.6] = 0.0
        return sp.csr_matrix(X)
    return X


def _dask(X, chunk):
    if sp.issparse(X):
        meta = sp.csr_matrix((0, X.shape[1]), dtype=X.dtype)
        cuts = [*range(0, X.shape[0], chunk), X.shape[0]]
        return da.concatenate(
            [
                da.from_delayed(
                    dask.delayed(X[a:b]), shape=(b - a, X.shape[1]), dtype=X.dtype, meta=meta
                )
                for a, b in pairwise(cuts)
            ]
        )
    return da.from_array(X, chunks=(chunk, X.shape[1]))


def _same(on_dask, in_memory):
    assert on_dask.coef_.tobytes() == in_memory.coef_.tobytes()
    assert on_dask.offset_.tobytes() == in_memory.offset_.tobytes()
    assert (on_dask.t_, on_dask.n_iter_) == (in_memory.t_, in_memory.n_iter_)
    assert on_dask.objective_ == in_memory.objective_


CASES = {
    "dense": (False, False, {}),
    "sparse-weighted": (True, True, {}),
    "no-projection-batches": (False, True, {"projection": False, "batch_size": 4}),
    "shuffle-last-iterate": (True, False, {"sampling": "shuffle", "average": False}),
    "tol": (False, False, {"tol": 1e-4, "n_iter_no_change": 2}),
    "no-offset": (False, True, {"fit_intercept": False}),
}


@pytest.mark.parametrize(
    ("case", "client"),
    cluster_cases(list(CASES), processes=[("sparse-weighted",)]),
    indirect=["client"],
)
def test_exact_mode_is_the_in_memory_fit(case, client):
    sparse, weighted, params = CASES[case]
    X = _rows(1500, sparse)
    sw = np.random.RandomState(1).uniform(0.0, 2.0, X.shape[0]) if weighted else None
    if sw is not None:
        sw[::7] = 0.0  # rows of no weight: never drawn into the offset's quantile
    kw = {"nu": 0.2, "max_iter": 4, "random_state": 0, **params}
    local = pegasos_rs.PegasosOneClassSVM(**kw).fit(X, sample_weight=sw)
    dw = None if sw is None else da.from_array(sw, chunks=400)
    est = pdask.PegasosOneClassSVM(client=client, **kw).fit(_dask(X, 400), sample_weight=dw)
    _same(est, local)
    # The scores run on the workers, lazily.
    scores = est.decision_function(_dask(X, 400))
    assert isinstance(scores, da.Array)
    np.testing.assert_array_equal(scores.compute(), local.decision_function(X))
    np.testing.assert_array_equal(est.predict(_dask(X, 400)).compute(), local.predict(X))
    np.testing.assert_array_equal(est.score_samples(X), local.score_samples(X))


def test_more_rows_than_a_bias_reset_samples(dask_threads):
    """9,000 rows: the bias after each pass is set from every second row (the
    stride of at most 8,192), which the workers send once."""
    X = _rows(9000, sparse=False, seed=3)
    kw = {"nu": 0.1, "max_iter": 2, "random_state": 2}
    local = pegasos_rs.PegasosOneClassSVM(**kw).fit(X)
    est = pdask.PegasosOneClassSVM(client=dask_threads, **kw).fit(_dask(X, 2500))
    _same(est, local)


def test_warm_start_partial_fit_svmlight_files_and_copies(dask_threads, tmp_path):
    X = _rows(800, sparse=True, seed=4)
    kw = {"nu": 0.3, "random_state": 5, "average": False}
    local = pegasos_rs.PegasosOneClassSVM(max_iter=4, **kw).fit(X)
    warm = pegasos_rs.PegasosOneClassSVM(max_iter=2, warm_start=True, **kw).fit(X).fit(X)
    est = pdask.PegasosOneClassSVM(max_iter=2, warm_start=True, client=dask_threads, **kw)
    est.fit(_dask(X, 300)).fit(_dask(X, 300))
    _same(est, warm)
    assert est.coef_.tobytes() == local.coef_.tobytes()  # 2 + 2 passes are 4
    p_local = pegasos_rs.PegasosOneClassSVM(**kw)
    p_dask = pdask.PegasosOneClassSVM(client=dask_threads, **kw)
    for _ in range(2):
        p_local.partial_fit(X)
        p_dask.partial_fit(_dask(X, 300))
    _same(p_dask, p_local)
    # svmlight files: their labels are not read.
    path = tmp_path / "rows.svm"
    pegasos_rs.dump_svmlight_file(X, np.arange(X.shape[0]) % 3, path, zero_based=False)
    Xf, _ = pdask.read_svmlight(str(path), n_features=X.shape[1], blocksize=8_000)
    from_files = pdask.PegasosOneClassSVM(max_iter=4, client=dask_threads, **kw).fit(Xf)
    _same(from_files, local)
    local_copy = from_files.to_local()
    assert type(local_copy) is pegasos_rs.PegasosOneClassSVM
    np.testing.assert_array_equal(local_copy.decision_function(X), local.decision_function(X))
    again = pickle.loads(pickle.dumps(from_files))
    assert again.client is None
    np.testing.assert_array_equal(again.decision_function(X), local.decision_function(X))
    from_files.save(tmp_path / "oc.model")
    assert type(pegasos_rs.load(tmp_path / "oc.model")) is pegasos_rs.PegasosOneClassSVM


def test_parallel_mode_and_bad_input_are_refused(dask_threads):
    X = _rows(200, sparse=False)
    with pytest.raises(ValueError, match="mode='parallel' is not available for the one-class"):
        pdask.PegasosOneClassSVM(mode="parallel", client=dask_threads).fit(_dask(X, 100))
    with pytest.raises(ValueError, match="nu"):
        pdask.PegasosOneClassSVM(nu=1.5, client=dask_threads).fit(_dask(X, 100))
    bad = X.copy()
    bad[150, 2] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        pdask.PegasosOneClassSVM(client=dask_threads).fit(_dask(bad, 100))


def test_command_line_trains_the_one_class_svm_on_a_cluster(dask_threads, tmp_path, capsys):
    """``train -s 21 --dask``: the files' rows on the cluster, their labels unread,
    the in-memory model; a kernel (``-t 2 -s 2``) is refused there."""
    from pegasos_rs.cli import main

    X = _rows(300, sparse=True, seed=6)
    for k, part in enumerate(np.array_split(np.arange(300), 2)):
        y = np.arange(part.size) % 4  # labels that are not read
        pegasos_rs.dump_svmlight_file(X[part], y, tmp_path / f"d{k}.svm", zero_based=False)
    model = tmp_path / "oc.model"
    addr = dask_threads.scheduler.address
    args = ["train", "--dask", addr, "-s", "21", "-n", "0.2", "--passes", "3"]
    assert main([*args, str(tmp_path / "d*.svm"), str(model)]) == 0
    assert "one class (novelty detection)" in capsys.readouterr().err
    est = pegasos_rs.load(model)
    ref = pegasos_rs.PegasosOneClassSVM(nu=0.2, max_iter=3, random_state=0).fit(X)
    assert type(est) is pegasos_rs.PegasosOneClassSVM
    assert est.coef_.tobytes() == ref.coef_.tobytes()
    assert est.offset_.tobytes() == ref.offset_.tobytes()
    with pytest.raises(SystemExit, match="takes no --dask with a kernel"):
        main(["train", "--dask", addr, "-t", "2", "-s", "2", str(tmp_path / "d0.svm"), str(model)])
