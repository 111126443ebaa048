"""The loss family: each loss minimises its own objective (checked against LIBLINEAR's
solvers of the same objective, or a quasi-Newton minimum), probabilities as
scikit-learn's SGDClassifier gives them, restarts, inputs, files, real data."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
import scipy.sparse as sp
import shared_data  # benches/, put on the path by conftest.py
from pegasos_rs import PegasosClassifier, PegasosRegressor, load
from scipy.optimize import minimize
from sklearn.datasets import load_breast_cancer, load_diabetes, load_iris
from sklearn.linear_model import LogisticRegression, SGDClassifier
from sklearn.preprocessing import StandardScaler
from sklearn.svm import LinearSVC, LinearSVR
from sklearn.utils._param_validation import InvalidParameterError

liblinear = pytest.importorskip("liblinear.liblinearutil")


def _margin_loss(loss: str, z):
    h = np.maximum(0.0, 1.0 - z)
    if loss == "hinge":
        return h
    if loss == "log_loss":
        return np.logaddexp(0.0, -z)
    if loss == "squared_hinge":
        return h * h
    assert loss == "modified_huber"
    return np.where(z >= -1.0, h * h, -4.0 * z)


def _regression_loss(loss: str, r, eps: float):
    a = np.maximum(0.0, np.abs(r) - eps)
    if loss == "epsilon_insensitive":
        return a
    if loss == "squared_epsilon_insensitive":
        return a * a
    if loss == "squared_error":
        return 0.5 * r * r
    assert loss == "huber"
    return np.where(np.abs(r) <= eps, 0.5 * r * r, eps * np.abs(r) - 0.5 * eps * eps)


def _objective(est, X, y) -> float:
    """``alpha/2 (||w||^2 + w_B^2) + 1/m sum_i L``, the bias weight ``w_B`` being the
    intercept (``intercept_scaling=1``, LIBLINEAR's ``-B 1``)."""
    w = np.ravel(est.coef_)
    b = float(np.ravel(est.intercept_)[0])
    p = X @ w + b
    if isinstance(est, PegasosRegressor):
        losses = _regression_loss(est.loss, p - y, est.epsilon)
    else:
        losses = _margin_loss(est.loss, np.where(y == est.classes_[1], 1.0, -1.0) * p)
    return 0.5 * est.alpha * (w @ w + b * b) + losses.mean()


def _breast_cancer():
    X, y = load_breast_cancer(return_X_y=True)
    return StandardScaler().fit_transform(X), np.where(y == 1, 1.0, -1.0)


def _diabetes():
    X, y = load_diabetes(return_X_y=True)
    return StandardScaler().fit_transform(X), (y - 150.0) / 80.0


def _liblinear_optimum(loss: str, X, y, C: float, eps: float, regression: bool) -> float:
    """The optimum of our objective from LIBLINEAR's solver of it, run to convergence.

    scikit-learn's LIBLINEAR wrappers are used because they take a seed and an
    iteration limit: liblinear-official's dual solvers draw from an unseeded ``rand()``
    and stop at 1000 iterations, so on this problem their hinge objective varied by
    2.6 % from call to call (0.05304 to 0.05441), a reference that moves."""
    common = {"C": C, "tol": 1e-10, "max_iter": 10**6, "random_state": 0}
    if regression:
        model = LinearSVR(loss=loss, epsilon=eps, dual=True, intercept_scaling=1.0, **common)
    elif loss == "log_loss":
        model = LogisticRegression(solver="liblinear", intercept_scaling=1.0, **common)
    else:
        model = LinearSVC(loss=loss, dual=True, intercept_scaling=1.0, **common)
    model.fit(X, y)
    ref = PegasosRegressor(loss=loss, epsilon=eps) if regression else PegasosClassifier(loss=loss)
    ref.alpha = 1.0 / (C * X.shape[0])  # C sum_i L + |w|^2 / 2, divided by C m
    ref.coef_, ref.intercept_ = model.coef_, np.ravel(model.intercept_)
    if not regression:
        ref.classes_ = model.classes_
    return _objective(ref, X, y)


@pytest.mark.parametrize(
    ("loss", "regression"),
    [
        ("hinge", False),
        ("log_loss", False),
        ("squared_hinge", False),
        ("epsilon_insensitive", True),
        ("squared_epsilon_insensitive", True),
    ],
)
def test_each_loss_reaches_liblinears_optimum_of_its_objective(loss, regression):
    X, y = _diabetes() if regression else _breast_cancer()
    C, eps = 0.5, 0.1
    want = _liblinear_optimum(loss, X, y, C, eps, regression)
    cls = PegasosRegressor if regression else PegasosClassifier
    extra = {"epsilon": eps} if regression else {}
    est = cls(loss=loss, alpha=1.0 / (C * X.shape[0]), max_iter=400, random_state=0, **extra)
    got = _objective(est.fit(X, y), X, y)
    # Within 1 % of the optimum after 400 passes (the hinge is at 0.7 %), the squared
    # hinge within 2 % (1.8 %): its start is stable for the longest row, which on
    # these standardised rows makes every step short.
    bound = 1.02 if loss == "squared_hinge" else 1.01
    assert want * (1 - 1e-9) <= got <= bound * want, (got, want)


@pytest.mark.parametrize(
    ("loss", "regression"),
    [("modified_huber", False), ("squared_error", True), ("huber", True)],
)
def test_smooth_losses_reach_the_quasi_newton_minimum(loss, regression):
    X, y = _diabetes() if regression else _breast_cancer()
    alpha = 1e-2
    cls = PegasosRegressor if regression else PegasosClassifier
    extra = {"epsilon": 0.5} if regression else {}
    est = cls(loss=loss, alpha=alpha, max_iter=200, random_state=0, **extra).fit(X, y)

    def objective(wb):
        est.coef_ = wb[:-1] if regression else wb[None, :-1]
        est.intercept_ = wb[-1:]
        return _objective(est, X, y)

    got = _objective(est, X, y)
    best = minimize(objective, np.zeros(X.shape[1] + 1), method="L-BFGS-B", tol=1e-12).fun
    assert best <= got <= best * 1.01, (got, best)


def test_log_loss_and_modified_huber_probabilities_are_sgdclassifiers():
    for X, y in [_breast_cancer(), load_iris(return_X_y=True)]:
        for loss in ("log_loss", "modified_huber"):
            est = PegasosClassifier(loss=loss, alpha=1e-2, random_state=0).fit(X, y)
            ref = SGDClassifier(loss=loss, max_iter=5, tol=None).fit(X, y)
            ref.coef_, ref.intercept_ = est.coef_.copy(), est.intercept_.copy()
            np.testing.assert_allclose(
                est.predict_proba(X), ref.predict_proba(X), rtol=1e-10, atol=1e-15
            )
            np.testing.assert_allclose(
                np.exp(est.predict_log_proba(X)), ref.predict_proba(X), rtol=1e-10, atol=1e-15
            )
    est = PegasosClassifier(loss="log_loss", alpha=1e-2, random_state=0).fit(*_breast_cancer())
    f = est.decision_function(_breast_cancer()[0])
    np.testing.assert_allclose(est.predict_proba(_breast_cancer()[0])[:, 1], 1 / (1 + np.exp(-f)))


def test_log_probabilities_do_not_underflow():
    X, y = _breast_cancer()
    est = PegasosClassifier(loss="log_loss", alpha=1e-2, random_state=0).fit(X * 100, y)
    f = est.decision_function(X * 100)
    logp = est.predict_log_proba(X * 100)
    assert np.isfinite(logp).all() and np.abs(f).max() > 800
    np.testing.assert_allclose(logp[:, 1], -np.logaddexp(0.0, -f), rtol=1e-12)
    np.testing.assert_allclose(logp[:, 0], -np.logaddexp(0.0, f), rtol=1e-12)


def test_losses_without_probabilities_say_how_to_get_them():
    est = PegasosClassifier(loss="squared_hinge").fit(*_breast_cancer())
    assert not hasattr(est, "predict_proba")
    with pytest.raises(AttributeError, match="log_loss"):
        est.predict_proba(_breast_cancer()[0])


@pytest.mark.parametrize("loss", ["log_loss", "squared_hinge", "modified_huber"])
@pytest.mark.parametrize("sparse", [False, True])
def test_restarts_are_exact_for_every_loss(loss, sparse):
    X, y = load_iris(return_X_y=True)
    X = sp.csr_matrix(X) if sparse else X
    kw = {"loss": loss, "alpha": 1e-3, "average": False, "random_state": 3}
    once = PegasosClassifier(max_iter=5, **kw).fit(X, y)
    twice = PegasosClassifier(max_iter=2, warm_start=True, **kw).fit(X, y)
    twice.set_params(max_iter=3).fit(X, y)
    assert once.coef_.tobytes() == twice.coef_.tobytes()
    assert once.intercept_.tobytes() == twice.intercept_.tobytes()
    assert once.t_ == twice.t_


@pytest.mark.parametrize("loss", ["epsilon_insensitive", "squared_epsilon_insensitive"])
def test_regressor_restarts_unchecked_fits_and_files_are_exact(loss, tmp_path):
    X, y = _diabetes()
    kw = {"loss": loss, "alpha": 1e-3, "average": False, "random_state": 3}
    once = PegasosRegressor(max_iter=4, **kw).fit(X, y)
    twice = PegasosRegressor(max_iter=1, warm_start=True, **kw).fit(X, y)
    twice.set_params(max_iter=3).fit(X, y)
    assert once.coef_.tobytes() == twice.coef_.tobytes()
    unchecked = PegasosRegressor(max_iter=4, **kw).fit(X, y, check_input=False)
    assert once.coef_.tobytes() == unchecked.coef_.tobytes()
    assert once.coef_.shape == (X.shape[1],) and once.intercept_.shape == (1,)
    once.save(tmp_path / "m")
    loaded = load(tmp_path / "m")
    assert loaded.predict(X).tobytes() == once.predict(X).tobytes()
    # The loaded solver state continues the fit exactly, as the original's does.
    loaded.set_params(warm_start=True, max_iter=1).fit(X, y)
    once.set_params(warm_start=True, max_iter=1).fit(X, y)
    assert loaded.coef_.tobytes() == once.coef_.tobytes()
    copy = pickle.loads(pickle.dumps(once))
    assert copy.predict(X).tobytes() == once.predict(X).tobytes()


def test_partial_fit_passes_continue_the_regressor():
    X, y = _diabetes()
    est = PegasosRegressor(alpha=1e-3, random_state=0)
    for _ in range(10):
        est.partial_fit(X, y)
    assert est.t_ == 10 * X.shape[0]
    assert est.score(X, y) > 0.4


def test_classifier_files_keep_the_loss(tmp_path):
    X, y = load_iris(return_X_y=True)
    for loss in ("hinge", "log_loss"):
        est = PegasosClassifier(loss=loss, random_state=0).fit(X, y)
        est.save(tmp_path / loss)
        loaded = load(tmp_path / loss)
        assert loaded.loss == loss
        assert loaded.decision_function(X).tobytes() == est.decision_function(X).tobytes()
        # One format version: every parameter is written, the default loss too.
        assert f'"loss": "{loss}"'.encode() in (tmp_path / loss).read_bytes()
    np.testing.assert_allclose(loaded.predict_proba(X), est.predict_proba(X))


def test_bad_losses_and_targets_are_named():
    X, y = _diabetes()
    with pytest.raises(InvalidParameterError, match="loss"):
        PegasosClassifier(loss="squared_error").fit(X, y > 0)
    with pytest.raises(InvalidParameterError, match="loss"):
        PegasosRegressor(loss="hinge").fit(X, y)
    with pytest.raises(InvalidParameterError, match="sampling"):
        PegasosRegressor(sampling="balanced").fit(X, y)
    with pytest.raises(InvalidParameterError, match="epsilon"):
        PegasosRegressor(epsilon=-1.0).fit(X, y)
    with pytest.raises(ValueError, match="PegasosClassifier"):
        PegasosRegressor().fit(X, np.where(y > 0, "yes", "no"))
    with pytest.raises(ValueError, match="continuous"):
        PegasosClassifier().fit(X, y)
    bad = y.copy()
    bad[7] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        PegasosRegressor().fit(X, bad)
    with pytest.raises(ValueError, match="example 7"):
        PegasosRegressor().fit(X, bad, check_input=False)
    with pytest.raises(ValueError, match="one target per row"):
        PegasosRegressor().fit(X, y[1:], check_input=False)
    with pytest.raises(ValueError, match=r"positive"):
        PegasosRegressor(loss="huber", epsilon=0.0).fit(X, y)


def test_squared_losses_start_where_their_steps_are_stable():
    """A squared loss from t = 1 with a small alpha would overflow (the first steps
    are 1/alpha times the residual); from t0 it fits. A loss whose slope grows
    without bound starts where the longest row's step is stable, t0 = kappa max_i s_i
    / alpha (s_i = ||x_i||^2 + 1); the modified Huber loss, whose slope is bounded,
    where the average row's is, weighted by the rows' own squared norms, t0 = kappa
    sum_i s_i^2 / sum_i s_i / alpha."""
    X, y = _diabetes()
    s = (X * X).sum(axis=1) + 1.0
    y = y * 100.0
    est = PegasosRegressor(loss="squared_error", alpha=1e-6, intercept_scaling=None)
    est.set_params(max_iter=5, random_state=0).fit(X, y)
    assert np.isfinite(est.coef_).all()
    t0 = est.t_ - 5 * X.shape[0] + 1
    assert abs(t0 - s.max() / 1e-6) <= 1.0
    assert est.score(X, y) > 0.4
    labels = (y > np.median(y)).astype(int)
    for loss, r2 in (("squared_hinge", s.max()), ("modified_huber", (s * s).sum() / s.sum())):
        clf = PegasosClassifier(loss=loss, alpha=1e-3, max_iter=5, intercept_scaling=None)
        clf.fit(X, labels)
        t0 = clf.t_ - 5 * X.shape[0] + 1
        assert abs(t0 - 2.0 * r2 / 1e-3) <= 1.0


# --------------------------------------------------------------------------------------
# Real data (skipped when the shared data set is absent)


def _needs(name: str) -> None:
    if not shared_data.available(name):
        pytest.skip(f"{name} is not in the shared data folder")


@pytest.mark.parametrize("name", ["cpusmall", "abalone"])
@pytest.mark.parametrize(
    ("solver", "loss"), [(11, "squared_epsilon_insensitive"), (13, "epsilon_insensitive")]
)
def test_regression_matches_liblinear_svr_on_real_data(name, solver, loss):
    _needs(name)
    X, y, Xt, yt = shared_data.load(name, test_size=0.2)
    C, eps = 1.0, 0.1
    # LIBLINEAR at a tight tolerance: with its default one, -s 13's dual coordinate
    # descent stops at a point that depends on its random permutations (abalone's
    # test MSE moves between 5.34 and 5.54 from call to call in one process).
    model = liblinear.train(y, X, f"-s {solver} -c {C} -p {eps} -B 1 -e 1e-5 -q")
    want = np.mean((np.array(liblinear.predict(yt, Xt, model, "-q")[0]) - yt) ** 2)
    est = PegasosRegressor(loss=loss, epsilon=eps, alpha=1 / (C * X.shape[0]), random_state=0)
    got = np.mean((est.fit(X, y).predict(Xt) - yt) ** 2)
    assert got <= 1.02 * want, (got, want)


def test_logistic_regression_matches_liblinear_on_a9a():
    _needs("a9a")
    X, y, Xt, yt = shared_data.load("a9a")
    C = 1.0
    model = liblinear.train(y, X, f"-s 0 -c {C} -B 1 -q")
    labels, _, proba = liblinear.predict(yt, Xt, model, "-b 1 -q")
    want_acc = np.mean(np.array(labels) == yt)
    proba = np.array(proba)[:, np.argsort(model.get_labels())]
    est = PegasosClassifier(loss="log_loss", alpha=1 / (C * X.shape[0]), random_state=0)
    est.fit(X, y)
    assert est.score(Xt, yt) >= want_acc - 0.003
    codes = np.searchsorted(est.classes_, yt)
    rows = np.arange(yt.size)
    want_ll = -np.mean(np.log(proba[rows, codes]))
    got_ll = -np.mean(np.log(est.predict_proba(Xt)[rows, codes]))
    assert got_ll <= 1.02 * want_ll, (got_ll, want_ll)


@pytest.mark.parametrize(
    ("cls", "loss"),
    [
        (PegasosClassifier, "log_loss"),
        (PegasosClassifier, "squared_hinge"),
        (PegasosClassifier, "modified_huber"),
        (PegasosRegressor, "epsilon_insensitive"),
        (PegasosRegressor, "huber"),
    ],
)
def test_objective_and_tol_use_the_loss(cls, loss):
    """``objective_`` (what ``tol`` and ``verbose`` read) is the loss's objective
    of the returned model."""
    X, y = _diabetes() if cls is PegasosRegressor else _breast_cancer()
    est = cls(loss=loss, alpha=1e-2, tol=1e-3, max_iter=200, random_state=0).fit(X, y)
    assert est.n_iter_ < 200
    got = est.objective_ if cls is PegasosRegressor else est.objective_[0]
    np.testing.assert_allclose(got, _objective(est, X, y), rtol=1e-10)
