"""``PegasosOneClassSVM`` (issue 39): the linear one-class SVM trained by Pegasos.

Oracles: the objective (Schölkopf et al.'s times ``nu``, the one scikit-learn's
``SGDOneClassSVM`` minimises) against LIBSVM's exact solution
(``OneClassSVM(kernel="linear")``, whose dual scaling is converted); the
nu-property, which the exact offset makes hold on the training rows whatever the
passes (tested on data of several shapes, weighted and not); scikit-learn's
estimator checks for outlier detectors.
"""

from __future__ import annotations

import pickle

import numpy as np
import pegasos_rs
import pytest
import scipy.sparse as sp
from conftest import parametrize_with_checks, stochastic_weight_failures
from pegasos_rs import PegasosOneClassSVM
from sklearn.datasets import make_blobs
from sklearn.svm import OneClassSVM


def _objective(X, nu, w, rho, sample_weight=None):
    c = np.ones(X.shape[0]) if sample_weight is None else sample_weight
    return 0.5 * nu * w @ w - nu * rho + np.mean(c * np.maximum(0.0, rho - X @ w))


def _shapes():
    rng = np.random.RandomState(0)
    blob = make_blobs(600, 6, centers=1, center_box=(4, 4), random_state=0)[0]
    aniso = rng.randn(500, 12) * rng.uniform(0.1, 3, 12) + 1.5
    sparse = sp.random(700, 40, density=0.1, format="csr", random_state=rng)
    sparse.data = np.abs(sparse.data) + 0.1
    signed = rng.randn(400, 5)  # around the origin
    return {"blob": blob, "aniso": aniso, "sparse": sparse, "signed": signed}


@pytest.mark.parametrize("shape", ["blob", "aniso", "sparse", "signed"])
@pytest.mark.parametrize("nu", [0.05, 0.2, 0.5, 1.0])
@pytest.mark.parametrize("weighted", [False, True])
def test_the_nu_property_holds_on_the_training_rows(shape, nu, weighted):
    X = _shapes()[shape]
    m = X.shape[0]
    sw = np.random.RandomState(1).uniform(0.5, 2.0, m) if weighted else np.ones(m)
    est = PegasosOneClassSVM(nu=nu, max_iter=3, random_state=0)
    est.fit(X, sample_weight=sw if weighted else None)
    d = est.decision_function(X)
    # The exact offset: rows strictly below rho weigh at most nu of the total, rows
    # at or below it (the support vectors) at least nu; no tolerance needed.
    total = sw.sum()
    assert sw[d < 0].sum() <= nu * total * (1 + 1e-12)
    assert sw[d <= 0].sum() >= nu * total * (1 - 1e-12)
    np.testing.assert_array_equal(est.predict(X), np.where(d >= 0, 1, -1))


# Not "signed": rows around the origin have w* about 0, where LIBSVM's solver takes
# minutes to meet its tolerance.
@pytest.mark.parametrize("shape", ["blob", "aniso", "sparse"])
def test_the_objective_approaches_libsvm_s_optimum(shape):
    X = _shapes()[shape]
    nu = 0.2
    lib = OneClassSVM(kernel="linear", nu=nu, tol=1e-8).fit(X)
    scale = nu * X.shape[0]  # LIBSVM's dual is Schölkopf's times nu m
    coef = lib.coef_.toarray() if sp.issparse(lib.coef_) else lib.coef_
    w_opt = np.asarray(coef).ravel() / scale
    best = _objective(X, nu, w_opt, lib.offset_[0] / scale)
    est = PegasosOneClassSVM(nu=nu, max_iter=100, batch_size=64, random_state=0).fit(X)
    w = est.coef_[0]
    got = _objective(X, nu, w, est.offset_[0])
    # Within 5 % of the optimum after 100 passes, and the direction (which ranks
    # the rows: the AUC) within 1e-3 of the optimum's.
    assert got - best <= 0.05 * abs(best), (got, best)
    cos = w @ w_opt / (np.linalg.norm(w) * np.linalg.norm(w_opt))
    assert cos >= 1 - 1e-3


def test_decision_score_offset_and_objective_are_consistent():
    X = _shapes()["aniso"]
    est = PegasosOneClassSVM(nu=0.3, random_state=2, tol=1e-4).fit(X)
    assert est.coef_.shape == (1, X.shape[1]) and est.offset_.shape == (1,)
    np.testing.assert_allclose(est.score_samples(X), X @ est.coef_[0], rtol=1e-12)
    np.testing.assert_allclose(
        est.decision_function(X), est.score_samples(X) - est.offset_[0], rtol=1e-12
    )
    # objective_ is the objective of the returned model (its exact offset).
    want = _objective(X, 0.3, est.coef_[0], est.offset_[0])
    assert est.objective_ == pytest.approx(want, rel=1e-9, abs=1e-12)
    np.testing.assert_array_equal(est.fit_predict(X), est.predict(X))
    # y is ignored.
    again = PegasosOneClassSVM(nu=0.3, random_state=2, tol=1e-4).fit(X, np.arange(len(X)))
    np.testing.assert_array_equal(again.coef_, est.coef_)


def test_sparse_dense_warm_start_partial_fit_pickle_and_model_files(tmp_path):
    X = _shapes()["sparse"]
    dense = X.toarray()
    kw = {"nu": 0.1, "random_state": 3, "average": False}
    a = PegasosOneClassSVM(max_iter=4, **kw).fit(X)
    b = PegasosOneClassSVM(max_iter=4, **kw).fit(dense)
    np.testing.assert_array_equal(a.coef_, b.coef_)
    np.testing.assert_array_equal(a.offset_, b.offset_)
    # Warm start: 2 + 2 passes are 4 passes, bit for bit.
    c = PegasosOneClassSVM(max_iter=2, warm_start=True, **kw).fit(X)
    c.fit(X)
    np.testing.assert_array_equal(c.coef_, a.coef_)
    np.testing.assert_array_equal(c.offset_, a.offset_)
    # partial_fit: one pass a call.
    p = PegasosOneClassSVM(**kw)
    for _ in range(3):
        p.partial_fit(X)
    assert p.t_ == 3 * X.shape[0]
    for est in (a, pickle.loads(pickle.dumps(a))):
        np.testing.assert_array_equal(est.decision_function(X), a.decision_function(X))
    a.save(tmp_path / "oc.model")
    loaded = pegasos_rs.load(tmp_path / "oc.model")
    assert type(loaded) is PegasosOneClassSVM
    np.testing.assert_array_equal(loaded.decision_function(X), a.decision_function(X))
    # check_input=False reads the same rows the same way.
    u = PegasosOneClassSVM(max_iter=4, **kw).fit(X, check_input=False)
    np.testing.assert_array_equal(u.coef_, a.coef_)


def test_without_an_intercept_rho_is_one():
    X = _shapes()["signed"]
    est = PegasosOneClassSVM(nu=0.2, fit_intercept=False, random_state=0).fit(X)
    np.testing.assert_array_equal(est.offset_, [1.0])


@pytest.mark.parametrize(
    ("params", "error", "message"),
    [
        ({"nu": 0.0}, ValueError, "nu"),
        ({"nu": 1.5}, ValueError, "nu"),
        ({"sampling": "balanced"}, ValueError, "sampling"),
        ({"batch_size": 0}, ValueError, "batch_size"),
    ],
)
def test_bad_parameters_get_clear_errors(params, error, message):
    with pytest.raises(error, match=message):
        PegasosOneClassSVM(**params).fit(np.ones((5, 2)))


def test_bad_input_gets_scikit_learn_s_errors():
    with pytest.raises(ValueError, match="0 sample"):
        PegasosOneClassSVM().fit(np.zeros((0, 3)))
    X = np.ones((4, 2))
    X[1, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        PegasosOneClassSVM().fit(X)
    est = PegasosOneClassSVM(random_state=0).fit(np.random.RandomState(0).randn(20, 3))
    with pytest.raises(ValueError, match="3 features"):
        est.predict(np.ones((2, 4)))


@parametrize_with_checks(
    [PegasosOneClassSVM(random_state=0), PegasosOneClassSVM(nu=0.1, batch_size=4, random_state=0)],
    expected_failed_checks=stochastic_weight_failures,
)
def test_sklearn_compatible_one_class(estimator, check):
    check(estimator)
