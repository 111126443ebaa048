"""``pegasos_rs.dask.KernelPegasosClassifier`` / ``KernelPegasosRegressor`` (issue
40): kernel Pegasos with a budget of support vectors on a Dask cluster, in exact
mode.

The oracle is the in-memory budgeted estimator on the computed rows: the same
parameters give the same points, coefficients, intercepts and steps, bit for bit,
for any chunking (the client draws the in-memory fit's rows and fetches only
those; a row drawn again adds to its own point, found by its training index).
Every case reaches its budget, so merging or removal runs on the client.
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


def _data(n, sparse, classes=3, seed=0):
    rng = np.random.RandomState(seed)
    X = rng.randn(n, 6)
    r = np.sqrt((X[:, :3] ** 2).sum(axis=1))
    y = np.digitize(r, np.quantile(r, np.linspace(0, 1, classes + 1)[1:-1]))
    if sparse:
        X[rng.rand(*X.shape) < 0.4] = 0.0
        X = sp.csr_matrix(X)
    return X, y


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
    for attr in ("support_", "dual_coef_", "intercept_", "n_support_"):
        a, b = getattr(on_dask, attr), getattr(in_memory, attr)
        assert a.tobytes() == b.tobytes(), attr
    sv_a, sv_b = on_dask.support_vectors_, in_memory.support_vectors_
    assert sp.issparse(sv_a) == sp.issparse(sv_b)
    if sp.issparse(sv_a):
        sv_a, sv_b = sv_a.toarray(), sv_b.toarray()
    assert sv_a.tobytes() == sv_b.tobytes()
    assert (on_dask.t_, on_dask.n_iter_) == (in_memory.t_, in_memory.n_iter_)
    assert on_dask.fit_report_ == in_memory.fit_report_


CASES = {
    "binary-merge": (False, 2, False, {"budget": 15}),
    "multiclass-sparse-weighted": (True, 3, True, {"budget": 12, "class_weight": "balanced"}),
    "remove-batches-shuffle": (
        False,
        3,
        False,
        {"budget": 10, "budget_maintenance": "remove", "batch_size": 3, "sampling": "shuffle"},
    ),
    "project": (False, 3, True, {"budget": 10, "budget_maintenance": "project"}),
    "last-iterate-intercept": (
        False,
        2,
        True,
        {"budget": 8, "average": False, "fit_intercept": True},
    ),
}


@pytest.mark.parametrize(
    ("case", "client"),
    cluster_cases(list(CASES), processes=[("multiclass-sparse-weighted",)]),
    indirect=["client"],
)
def test_exact_mode_is_the_in_memory_budgeted_fit(case, client):
    sparse, classes, weighted, params = CASES[case]
    X, y = _data(600, sparse, classes)
    sw = np.random.RandomState(1).uniform(0.0, 2.0, X.shape[0]) if weighted else None
    kw = {"alpha": 0.01, "gamma": 0.5, "max_iter": 3, "random_state": 0, **params}
    local = pegasos_rs.KernelPegasosClassifier(multi_class="ovr", **kw).fit(X, y, sw)
    assert local.support_.size <= params["budget"] * (1 if classes == 2 else classes)
    dy = da.from_array(y, chunks=170)
    dw = None if sw is None else da.from_array(sw, chunks=170)
    est = pdask.KernelPegasosClassifier(client=client, **kw).fit(_dask(X, 170), dy, dw)
    _same(est, local)
    assert est.multi_class_ == "ovr"
    np.testing.assert_array_equal(est.classes_, local.classes_)
    # Prediction runs on the workers, lazily.
    scores = est.decision_function(_dask(X, 170))
    assert isinstance(scores, da.Array)
    np.testing.assert_array_equal(scores.compute(), local.decision_function(X))
    np.testing.assert_array_equal(est.predict(_dask(X, 170)).compute(), local.predict(X))
    assert est.score(_dask(X, 170), dy) == local.score(X, y)
    np.testing.assert_array_equal(est.predict(X), local.predict(X))


def test_gamma_scale_is_resolved_from_the_blocks(dask_threads):
    """``gamma="scale"``: the blocks' moments give the in-memory variance up to
    rounding; with that gamma the in-memory fit is the same model."""
    X, y = _data(500, sparse=True, classes=2, seed=2)
    kw = {"budget": 20, "max_iter": 2, "random_state": 1}
    est = pdask.KernelPegasosClassifier(client=dask_threads, **kw)
    est.fit(_dask(X, 120), da.from_array(y, chunks=120))
    local = pegasos_rs.KernelPegasosClassifier(**kw).fit(X, y)
    assert est._gamma == pytest.approx(local._gamma, rel=1e-12)
    same = pegasos_rs.KernelPegasosClassifier(gamma=est._gamma, **kw).fit(X, y)
    _same(est, same)


def test_regression_svmlight_files_and_copies(dask_threads, tmp_path):
    rng = np.random.RandomState(3)
    X = rng.uniform(-2, 2, (700, 4))
    y = np.sin(X[:, 0] * 1.5) + 0.3 * X[:, 1] + 0.05 * rng.randn(700)
    kw = {"budget": 25, "gamma": 1.0, "alpha": 1e-3, "max_iter": 3, "random_state": 4}
    # svmlight files are CSR rows: the in-memory model of CSR rows.
    local = pegasos_rs.KernelPegasosRegressor(**kw).fit(sp.csr_matrix(X), y)
    path = tmp_path / "rows.svm"
    pegasos_rs.dump_svmlight_file(X, y, path, zero_based=False)
    Xf, yf = pdask.read_svmlight(str(path), n_features=4, blocksize=9_000)
    est = pdask.KernelPegasosRegressor(client=dask_threads, **kw).fit(Xf, yf)
    _same(est, local)
    np.testing.assert_array_equal(est.predict(Xf).compute(), local.predict(X))
    assert est.score(Xf, yf) == pytest.approx(local.score(X, y), rel=1e-12)
    copy = est.to_local()
    assert type(copy) is pegasos_rs.KernelPegasosRegressor
    np.testing.assert_array_equal(copy.predict(X), local.predict(X))
    again = pickle.loads(pickle.dumps(est))
    assert again.client is None
    np.testing.assert_array_equal(again.predict(X), local.predict(X))
    est.save(tmp_path / "svr.model")
    loaded = pegasos_rs.load(tmp_path / "svr.model")
    assert type(loaded) is pegasos_rs.KernelPegasosRegressor
    np.testing.assert_array_equal(loaded.predict(X), local.predict(X))


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({}, "needs a budget"),
        ({"budget": 10, "multi_class": "ovo"}, "multi_class='ovo' is not supported"),
        ({"budget": 10, "probability": True}, "probability=True is not supported"),
        ({"budget": 10, "sampling": "balanced"}, "balanced sampling"),
        ({"budget": 10, "kernel": "precomputed"}, "precomputed"),
        ({"budget": 10, "early_stopping": True}, "early_stopping"),
        ({"budget": 1}, "budget"),
        ({"budget": 10, "kernel": "poly"}, "merging support vectors has a rule for the rbf"),
    ],
)
def test_what_the_cluster_cannot_train_is_refused(dask_threads, params, message):
    X, y = _data(120, sparse=False, classes=3)
    est = pdask.KernelPegasosClassifier(client=dask_threads, **params)
    with pytest.raises(ValueError, match=message):
        est.fit(_dask(X, 50), da.from_array(y, chunks=50))
    assert not hasattr(est, "classes_")


def test_bad_rows_are_refused_and_the_regressor_needs_a_budget(dask_threads):
    X, y = _data(200, sparse=False, classes=2)
    bad = X.copy()
    bad[150, 2] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        pdask.KernelPegasosClassifier(budget=10, client=dask_threads).fit(
            _dask(bad, 100), da.from_array(y, chunks=100)
        )
    with pytest.raises(ValueError, match="needs a budget"):
        pdask.KernelPegasosRegressor(client=dask_threads).fit(
            _dask(X, 100), da.from_array(y.astype(float), chunks=100)
        )


def test_command_line_trains_a_budgeted_kernel_model_on_a_cluster(dask_threads, tmp_path):
    """``train --dask -t 2 --budget B``: the files' rows on the cluster, the
    in-memory model of their CSR rows; a kernel without a budget is refused."""
    from pegasos_rs.cli import main

    X, y = _data(400, sparse=True, classes=3, seed=7)
    for k, part in enumerate(np.array_split(np.arange(400), 2)):
        pegasos_rs.dump_svmlight_file(X[part], y[part], tmp_path / f"d{k}.svm", zero_based=False)
    model = tmp_path / "k.model"
    addr = dask_threads.scheduler.address
    args = ["train", "-q", "--dask", addr, "-t", "2", "-g", "0.5", "--budget", "12"]
    assert main([*args, "--passes", "2", str(tmp_path / "d*.svm"), str(model)]) == 0
    est = pegasos_rs.load(model)
    assert type(est) is pegasos_rs.KernelPegasosClassifier
    ref = pegasos_rs.KernelPegasosClassifier(**est.get_params()).fit(X, y)
    _same(est, ref)
    with pytest.raises(SystemExit, match="needs --budget"):
        main(["train", "--dask", addr, "-t", "2", str(tmp_path / "d0.svm"), str(model)])
