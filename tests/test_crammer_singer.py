"""The Crammer-Singer multiclass SVM (multi_class="crammer_singer"): the step rule
against a numpy reference, the optimum against LIBLINEAR's (scikit-learn's
LinearSVC), exact restarts, layouts and thread counts, model files, refusals."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from pegasos_rs import PegasosClassifier, load
from sklearn.datasets import load_digits, load_iris, load_wine
from sklearn.exceptions import ConvergenceWarning
from sklearn.preprocessing import StandardScaler
from sklearn.svm import LinearSVC


def _cs(**params):
    return PegasosClassifier(
        multi_class="crammer_singer", random_state=0, **{"alpha": 1e-2, **params}
    )


def cs_objective(W, b, X, y, alpha, regularised_bias):
    """``alpha/2 (||W||^2 (+ ||b||^2)) + 1/m sum_i max_r [1(r != y_i) + s_r - s_y]``."""
    S = X @ W.T + b
    m = len(y)
    margins = 1.0 + S - S[np.arange(m), y][:, None]
    margins[np.arange(m), y] = 0.0
    sq = (W**2).sum() + ((b**2).sum() if regularised_bias else 0.0)
    return 0.5 * alpha * sq + margins.max(axis=1).mean()


def reference_fit(X, y, c, order, alpha, n_classes, passes, batch, bias_feature, learn_bias):
    """The update rule of the module doc, naively: visit the rows in ``order``."""
    m, d = X.shape
    Xb = np.hstack([X, np.full((m, 1), bias_feature)])
    W = np.zeros((n_classes, d + 1))
    b = np.zeros(n_classes)
    sq_radius = c.mean() / alpha
    seq = np.tile(order, passes * batch)[: passes * -(-m // batch) * batch]
    for t, rows in enumerate(seq.reshape(-1, batch), start=1):
        eta = 1.0 / (alpha * t)
        moves = []
        for i in rows:
            s = W @ Xb[i] + b
            others = s.copy()
            others[y[i]] = -np.inf
            r = int(np.argmax(others))
            if c[i] > 0 and 1.0 + s[r] - s[y[i]] > 0:
                moves.append((i, y[i], r, eta * c[i] / batch))
        W *= 1.0 - 1.0 / t
        for i, yi, r, g in moves:
            W[yi] += g * Xb[i]
            W[r] -= g * Xb[i]
            if learn_bias:
                b[yi] += g
                b[r] -= g
        sq = (W**2).sum()
        if sq > sq_radius:
            W *= np.sqrt(sq_radius / sq)
    return W[:, :d], b + bias_feature * W[:, d]


@pytest.fixture(scope="module")
def iris():
    X, y = load_iris(return_X_y=True)
    return StandardScaler().fit_transform(X), y


@pytest.mark.parametrize(
    ("fit_intercept", "intercept_scaling"), [(False, None), (True, None), (True, 2.0)]
)
def test_steps_follow_a_numpy_reference(iris, fit_intercept, intercept_scaling):
    X, y = iris
    X, y = X[::5], y[::5]  # 30 rows, 3 classes
    rng = np.random.default_rng(0)
    order = rng.permutation(len(y))
    sw = rng.uniform(0.0, 2.0, len(y))
    cw = {0: 1.0, 1: 2.0, 2: 0.5}
    est = _cs(
        alpha=0.05,
        max_iter=7,
        batch_size=3,
        sampling=order,
        average=False,
        fit_intercept=fit_intercept,
        intercept_scaling=intercept_scaling,
        class_weight=cw,
    ).fit(X, y, sample_weight=sw)
    c = sw * np.array([cw[v] for v in y])
    W, b = reference_fit(
        X,
        y,
        c,
        order,
        0.05,
        3,
        7,
        3,
        intercept_scaling or 0.0,
        fit_intercept and intercept_scaling is None,
    )
    np.testing.assert_allclose(est.coef_, W, rtol=0, atol=1e-12 * np.abs(W).max())
    np.testing.assert_allclose(est.intercept_, b, rtol=0, atol=1e-12 * max(1, np.abs(b).max()))
    assert est.coef_.shape == (3, 4)
    if not fit_intercept:
        assert np.all(est.intercept_ == 0)


def _scaled(load):
    X, y = load(return_X_y=True)
    return StandardScaler().fit_transform(X), y


@pytest.mark.parametrize(
    ("load", "passes"), [(load_iris, 1000), (load_wine, 1000), (load_digits, 600)]
)
@pytest.mark.parametrize("fit_intercept", [False, True])
def test_objective_within_one_percent_of_liblinear(load, passes, fit_intercept):
    X, y = _scaled(load)
    alpha = 1e-2
    m = len(y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        ref = LinearSVC(
            multi_class="crammer_singer",
            C=1 / (alpha * m),
            # tol 1e-8: within 1e-8 of the objective at 1e-10 on all three sets, in
            # 0.3 s instead of 10 on digits (where 1e-10 ran to 100,000 iterations).
            tol=1e-8,
            max_iter=10**6,
            random_state=0,
            dual=True,
            fit_intercept=fit_intercept,
            intercept_scaling=1,
        ).fit(X, y)
    best = cs_objective(ref.coef_, ref.intercept_, X, y, alpha, fit_intercept)
    est = _cs(
        alpha=alpha,
        max_iter=passes,
        average=True,
        fit_intercept=fit_intercept,
        intercept_scaling=1.0 if fit_intercept else None,
        n_jobs=1,
    ).fit(X, y)
    ours = cs_objective(est.coef_, est.intercept_, X, y, alpha, fit_intercept)
    assert ours <= 1.01 * best, (ours, best)
    assert ours >= best * (1 - 1e-6)  # LIBLINEAR's is the optimum


def test_reported_objective_is_the_joint_one(iris):
    X, y = iris
    est = _cs(tol=1e-3, intercept_scaling=1.0, max_iter=50).fit(X, y)
    assert est.objective_.shape == (1,)
    expected = cs_objective(est.coef_, est.intercept_, X, y, 1e-2, True)
    np.testing.assert_allclose(est.objective_[0], expected, rtol=1e-12)
    with pytest.warns(ConvergenceWarning, match="tol=0.0 was not reached within max_iter=2"):
        _cs(tol=0.0, n_iter_no_change=5, max_iter=2).fit(X, y)


def test_verbose_prints_one_line_per_pass(iris, capfd):
    X, y = iris
    est = _cs(max_iter=3, verbose=1).fit(X, y)
    err = capfd.readouterr().err
    assert err.count("objective") == 3, err
    assert "||W||_F^2" in err
    assert est.objective_.shape == (1,)


def test_restarts_continue_bit_for_bit(iris):
    X, y = iris
    once = _cs(max_iter=4, average=False).fit(X, y)
    warm = _cs(max_iter=2, average=False, warm_start=True).fit(X, y).fit(X, y)
    assert once.coef_.tobytes() == warm.coef_.tobytes()
    assert once.intercept_.tobytes() == warm.intercept_.tobytes()
    assert once.t_ == warm.t_
    partial = _cs(max_iter=2, average=False).fit(X, y)
    partial.partial_fit(X, y).partial_fit(X, y)
    assert once.coef_.tobytes() == partial.coef_.tobytes()
    # partial_fit from scratch, with its anytime (weighted) average.
    a = _cs(average=True)
    b = _cs(average=True)
    for _ in range(3):
        a.partial_fit(X, y, classes=[0, 1, 2])
    b.partial_fit(X, y, classes=[0, 1, 2])
    b = load_round_trip(b)
    b.partial_fit(X, y).partial_fit(X, y)
    assert a.coef_.tobytes() == b.coef_.tobytes()


def load_round_trip(est, tmp_path=None):
    import pickle

    return pickle.loads(pickle.dumps(est))


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_layouts_dtypes_and_threads_give_the_same_model(dtype):
    X, y = _scaled(load_digits)
    X = X.astype(np.float32).astype(dtype)  # the same values in both dtypes
    X[np.abs(X) < 0.5] = 0.0
    params = {"max_iter": 3, "average": True, "sampling": "shuffle", "intercept_scaling": 1.0}
    dense = _cs(n_jobs=1, **params).fit(X, y)
    csr = _cs(n_jobs=2, **params).fit(sp.csr_matrix(X), y)
    assert dense.coef_.tobytes() == csr.coef_.tobytes()
    assert dense.intercept_.tobytes() == csr.intercept_.tobytes()
    f64 = _cs(n_jobs=2, **params).fit(X.astype(np.float64), y)
    assert dense.coef_.tobytes() == f64.coef_.tobytes()
    # Prediction sums a dense row's zeros too: equal to rounding.
    np.testing.assert_allclose(
        dense.decision_function(X),
        csr.set_params(n_jobs=1).decision_function(sp.csr_matrix(X)),
        rtol=1e-12,
        atol=1e-12,
    )
    unchecked = _cs(n_jobs=1, **params).fit(np.ascontiguousarray(X), y, check_input=False)
    assert dense.coef_.tobytes() == unchecked.coef_.tobytes()


def test_two_classes_give_one_column_as_linear_svc(iris):
    X, y = iris
    keep = y < 2
    X, y = X[keep], np.where(y[keep] == 0, "a", "b")
    est = _cs(max_iter=5).fit(X, y)
    assert est.coef_.shape == (1, X.shape[1])
    assert est.intercept_.shape == (1,)
    scores = est.decision_function(X)
    assert scores.shape == (len(y),)
    np.testing.assert_array_equal(est.predict(X), np.where(scores > 0, "b", "a"))
    assert est.score(X, y) > 0.95
    ref = LinearSVC(multi_class="crammer_singer").fit(X, y)
    assert ref.coef_.shape == est.coef_.shape


def test_multiclass_scores_have_one_column_per_class(iris):
    X, y = iris
    est = _cs(max_iter=20).fit(X, y)
    scores = est.decision_function(X)
    assert scores.shape == (len(y), 3)
    np.testing.assert_array_equal(est.predict(X), est.classes_[scores.argmax(axis=1)])
    assert est.score(X, y) > 0.9


def test_model_file_round_trip(tmp_path, iris):
    X, y = iris
    est = _cs(average=False, warm_start=True, max_iter=2).fit(X, y)
    path = tmp_path / "cs.pegasos"
    est.save(path)
    back = load(path)
    assert back.get_params() == est.get_params()
    assert back.decision_function(X).tobytes() == est.decision_function(X).tobytes()
    # The solver state is saved too: the loaded model continues as the original.
    assert back.fit(X, y).coef_.tobytes() == est.fit(X, y).coef_.tobytes()


@pytest.mark.parametrize(
    ("params", "match"),
    [
        ({"loss": "log_loss"}, "loss='log_loss' has no Crammer-Singer form"),
        ({"loss": "squared_hinge"}, "loss must be 'hinge'|no Crammer-Singer form"),
        ({"probability": True}, "probability=True is not available"),
        ({"sampling": "balanced"}, "sampling='balanced'"),
    ],
)
def test_bad_parameters_are_refused(iris, params, match):
    X, y = iris
    est = _cs(**params)
    with pytest.raises(ValueError, match=match):
        est.fit(X, y)
    assert not hasattr(est, "coef_")


def test_switching_between_one_vs_rest_and_crammer_singer_is_refused(iris):
    X, y = iris
    for first, then in [
        ("ovr", "crammer_singer"),
        ("crammer_singer", "ovr"),
        ("crammer_singer", "ovr_shared"),
        ("ovr_shared", "crammer_singer"),
    ]:
        est = PegasosClassifier(multi_class=first, warm_start=True, max_iter=2).fit(X, y)
        before = est.coef_.copy()
        est.set_params(multi_class=then)
        with pytest.raises(ValueError, match="crammer_singer"):
            est.fit(X, y)
        np.testing.assert_array_equal(est.coef_, before)


def test_bad_input_is_refused(iris):
    X, y = iris
    with pytest.raises(ValueError, match=r"at least 2 classes|class"):
        _cs().fit(X, np.zeros(len(y)))
    bad = X.copy()
    bad[3, 1] = np.nan
    with pytest.raises(ValueError, match=r"NaN|finite|infinity"):
        _cs().fit(bad, y)
    codes = y.astype(np.uint32)
    codes[7] = 9
    with pytest.raises(ValueError, match="class code 9 of example 7"):
        _cs(sampling=np.arange(len(y))).fit(
            np.ascontiguousarray(X), codes, check_input=False, classes=[0, 1, 2]
        )
