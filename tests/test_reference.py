"""The solver against a plain numpy transcription of the documented update rule.

With an explicit visiting order (``sampling=<array>``) the run is deterministic, so
the Rust solver, which stores ``w`` as a scaled vector and averages lazily, must
agree with the direct formulas to rounding error (rtol 1e-9):

    eta_t = 1 / (alpha t)
    A_t^+ = {i in batch : c_i != 0 and y_i (<w_t, x~_i> + b_t) < 1}    (margins at w_t)
    w_{t+1} = (1 - 1/t) w_t + eta_t / k sum_{A_t^+} c_i y_i x~_i
    b_{t+1} = b_t + eta_t / k sum_{A_t^+} c_i y_i                 (intercept_scaling=None)
    w_{t+1} <- min(1, r / ||w_{t+1}||) w_{t+1}, r = sqrt(mean(c)/alpha)  (projection=True)

where ``x~_i = (x_i, B)`` with the bias feature ``B`` (0 unless intercept_scaling=B).
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
import scipy.sparse as sp
from pegasos_rs import PegasosClassifier


def reference_pegasos(X, y_pm1, c, *, alpha, k, order, n_steps, intercept, projection, avg_start):
    """``intercept``: None (no intercept), "unregularised", or a float ``B``.
    Returns ``(coef, intercept)`` of the model: the mean of the iterates after steps
    ``avg_start..n_steps`` when there are any, else the last iterate."""
    m, d = X.shape
    B = intercept if isinstance(intercept, float) else 0.0
    Xb = np.hstack([X, np.full((m, 1), B)])
    w = np.zeros(d + 1)
    b = 0.0
    cursor = 0
    w_sum, b_sum, count = np.zeros(d + 1), 0.0, 0
    for t in range(1, n_steps + 1):
        eta = 1.0 / (alpha * t)
        batch = [order[(cursor + j) % len(order)] for j in range(k)]
        cursor += k
        violators = [i for i in batch if c[i] != 0 and y_pm1[i] * (Xb[i] @ w + b) < 1]
        w = (1.0 - 1.0 / t) * w
        for i in violators:
            w = w + eta * c[i] * y_pm1[i] * Xb[i] / k
            if intercept == "unregularised":
                b += eta * c[i] * y_pm1[i] / k
        sq_radius = c.mean() / alpha  # 1/alpha when every weight is 1
        if projection and w @ w > sq_radius:
            w = w * math.sqrt(sq_radius / (w @ w))
        if t >= avg_start:
            w_sum += w
            b_sum += b
            count += 1
    if count:
        w, b = w_sum / count, b_sum / count
    return w[:d], b + B * w[d]


def _avg_start(average, k, n_steps):
    if average is False:
        return math.inf
    if average is True:
        return n_steps // 2 + 1
    return math.ceil(average / k)


def _estimator_kwargs(intercept):
    if intercept is None:
        return {"fit_intercept": False}
    if intercept == "unregularised":
        return {"intercept_scaling": None}
    return {"intercept_scaling": intercept}


@pytest.fixture(scope="module")
def small():
    rng = np.random.RandomState(0)
    m, d = 37, 6
    X = 3.0 * rng.randn(m, d)
    X[rng.rand(m, d) < 0.3] = 0.0
    y = (X[:, 0] - X[:, 1] + rng.randn(m) > 0).astype(int)
    # An order longer than the data, with repeats and rows never visited.
    order = rng.randint(0, m, size=53)
    return X, y, order


@pytest.mark.parametrize("intercept", [None, "unregularised", 1.0, 2.5])
@pytest.mark.parametrize("k", [1, 3, 50])
@pytest.mark.parametrize("average", [False, True, 40])
def test_matches_numpy_reference(small, intercept, k, average):
    X, y, order = small
    m = X.shape[0]
    y_pm1 = 2.0 * y - 1.0
    rng = np.random.RandomState(1)
    max_iter = 4
    n_steps = math.ceil(m / k) * max_iter
    for projection, alpha, weighted, sparse in itertools.product(
        [True, False], [0.05, 30.0], [False, True], [False, True]
    ):
        c = np.ones(m)
        if weighted:
            c = 2.0 * rng.rand(m)
            c[::5] = 0.0
        coef, b = reference_pegasos(
            X,
            y_pm1,
            c,
            alpha=alpha,
            k=k,
            order=order,
            n_steps=n_steps,
            intercept=intercept,
            projection=projection,
            avg_start=_avg_start(average, k, n_steps),
        )
        est = PegasosClassifier(
            alpha=alpha,
            batch_size=k,
            sampling=order,
            average=average,
            projection=projection,
            max_iter=max_iter,
            **_estimator_kwargs(intercept),
        ).fit(sp.csr_matrix(X) if sparse else X, y, sample_weight=c if weighted else None)
        case = f"projection={projection} alpha={alpha} weighted={weighted} sparse={sparse}"
        scale = max(np.abs(coef).max(), abs(b))
        np.testing.assert_allclose(est.coef_[0], coef, rtol=1e-9, atol=1e-12 * scale, err_msg=case)
        np.testing.assert_allclose(
            est.intercept_[0], b, rtol=1e-9, atol=1e-12 * scale, err_msg=case
        )
        assert est.t_ == n_steps


def test_heavy_projection_and_rescaling(small):
    """Large alpha and large rows: the projection shrinks ``w`` at every step, so the
    scale of the stored vector collapses and has to be multiplied out repeatedly."""
    X, y, order = small
    X = 1e3 * X
    y_pm1 = 2.0 * y - 1.0
    c = np.ones(len(y))
    n_steps = 37 * 30
    coef, b = reference_pegasos(
        X,
        y_pm1,
        c,
        alpha=1e4,
        k=1,
        order=order,
        n_steps=n_steps,
        intercept=1.0,
        projection=True,
        avg_start=200,
    )
    est = PegasosClassifier(alpha=1e4, sampling=order, average=200, max_iter=30).fit(X, y)
    np.testing.assert_allclose(est.coef_[0], coef, rtol=1e-8, atol=1e-14)
    np.testing.assert_allclose(est.intercept_[0], b, rtol=1e-8, atol=1e-14)


def test_class_weights_of_binary_and_one_vs_rest_problems(small):
    X, y, order = small
    m = X.shape[0]
    y3 = np.arange(m) % 3
    kw = {"alpha": 0.05, "sampling": order, "max_iter": 3, "average": 20}
    ref_kw = {
        "alpha": 0.05,
        "k": 1,
        "order": order,
        "n_steps": 3 * m,
        "intercept": 1.0,
        "projection": True,
        "avg_start": 20,
    }
    # Binary: classes_[1] is the positive class, each class has its own weight.
    cw = {0: 0.5, 1: 3.0}
    est = PegasosClassifier(class_weight=cw, **kw).fit(X, y)
    c = np.where(y == 1, cw[1], cw[0])
    coef, b = reference_pegasos(X, 2.0 * y - 1.0, c, **ref_kw)
    np.testing.assert_allclose(est.coef_[0], coef, rtol=1e-9)
    np.testing.assert_allclose(est.intercept_[0], b, rtol=1e-9)
    # One-vs-rest: class p weighs cw[p], the rest 1 (LIBLINEAR's -wi).
    cw3 = {0: 2.0, 1: 0.25, 2: 1.5}
    sw = np.linspace(0.5, 1.5, m)
    est = PegasosClassifier(class_weight=cw3, **kw).fit(X, y3, sample_weight=sw)
    for p in range(3):
        c = sw * np.where(y3 == p, cw3[p], 1.0)
        coef, b = reference_pegasos(X, np.where(y3 == p, 1.0, -1.0), c, **ref_kw)
        np.testing.assert_allclose(est.coef_[p], coef, rtol=1e-9, err_msg=f"class {p}")
        np.testing.assert_allclose(est.intercept_[p], b, rtol=1e-9, err_msg=f"class {p}")


def test_integer_average_spans_calls(small):
    """``average=n`` averages from the step at which ``n`` samples have been seen,
    across partial_fit calls."""
    X, y, order = small
    m = X.shape[0]
    est = PegasosClassifier(alpha=0.05, sampling=order, batch_size=2, average=100)
    for _ in range(3):
        est.partial_fit(X, y, classes=[0, 1])
    n_steps = 3 * math.ceil(m / 2)
    coef, b = reference_pegasos(
        X,
        2.0 * y - 1.0,
        np.ones(m),
        alpha=0.05,
        k=2,
        order=order,
        n_steps=n_steps,
        intercept=1.0,
        projection=True,
        avg_start=50,
    )
    np.testing.assert_allclose(est.coef_[0], coef, rtol=1e-9)
    np.testing.assert_allclose(est.intercept_[0], b, rtol=1e-9)
