"""probability=True: Platt scaling fitted on held-out folds (predict_proba,
predict_log_proba), against scikit-learn's CalibratedClassifierCV on the same folds,
the sigmoid fitter against a direct minimisation with scipy, and the Rust core's fit
and probabilities against the former numpy implementation."""

from __future__ import annotations

import json
import pickle
import struct
import warnings
import zlib

import numpy as np
import pytest
import scipy.sparse as sp
from _digest import sha256_le
from conftest import make_problem
from pegasos_rs import KernelPegasosClassifier, PegasosClassifier, _core, _platt, load
from pegasos_rs._platt import fit_sigmoid
from pegasos_rs.exceptions import DataFormatError
from pegasos_rs.io.model_io import FORMAT_VERSION, MAGIC
from scipy.optimize import minimize, root
from scipy.special import expit, log_expit, logsumexp
from sklearn.base import clone
from sklearn.calibration import CalibratedClassifierCV
from sklearn.exceptions import ConvergenceWarning, NotFittedError
from sklearn.metrics import log_loss
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.model_selection import StratifiedKFold, train_test_split


def _linear(**kw):
    return PegasosClassifier(**{"random_state": 0, "alpha": 1e-3, "max_iter": 5, **kw})


def _kernel(**kw):
    return KernelPegasosClassifier(
        **{"random_state": 0, "alpha": 1e-3, "max_iter": 3, "gamma": 0.5, **kw}
    )


ESTIMATORS = {"linear": _linear, "kernel": _kernel}


def _problem(n_classes, sparse=False, n_samples=300, seed=0):
    X, y = make_problem(n_samples=n_samples, n_features=12, n_classes=n_classes, seed=seed)
    return (sp.csr_matrix(X) if sparse else X), y


def _reference(est, X, y, n_folds=5, sample_weight=None):
    """scikit-learn's sigmoid calibration of ``est`` (without probability) on the
    splits our fit uses: ensemble=False fits one sigmoid per one-vs-rest problem on
    the out-of-fold decision values, then refits the estimator on all the data."""
    folds = StratifiedKFold(n_folds, shuffle=True, random_state=est.random_state)
    plain = clone(est).set_params(probability=False)
    cal = CalibratedClassifierCV(plain, method="sigmoid", cv=folds, ensemble=False)
    return cal.fit(X, y, sample_weight=sample_weight)


# --------------------------------------------------------------------------------------
# Agreement with CalibratedClassifierCV

# The folds' models are the same fits as scikit-learn's (same splits, same seeds),
# so the out-of-fold decision values are identical and only the optimisers differ:
# both minimise the same convex cross-entropy with Platt's targets (scikit-learn by
# L-BFGS-B with gtol 1e-6 on rescaled values, we by Newton's method to 1e-10), so
# the sigmoids agree to about 1e-8 in probability; 1e-6 leaves room for other data
# without hiding a different method (a different fold, target or normalisation
# moves probabilities by 1e-3 or more).
TOL = 1e-6


@pytest.mark.parametrize("kind", sorted(ESTIMATORS))
@pytest.mark.parametrize("n_classes", [2, 4])
@pytest.mark.parametrize("sparse", [False, True])
def test_probabilities_match_calibrated_classifier_cv(kind, n_classes, sparse):
    X, y = _problem(n_classes, sparse)
    est = ESTIMATORS[kind](probability=True).fit(X, y)
    ref = _reference(est, X, y)
    Xte, _ = _problem(n_classes, sparse, n_samples=200, seed=7)
    ours, theirs = est.predict_proba(Xte), ref.predict_proba(Xte)
    assert ours.shape == (200, n_classes)
    np.testing.assert_allclose(ours, theirs, rtol=0, atol=TOL)
    # A sanity check of the tolerance: another split gives visibly other numbers.
    other = clone(est).set_params(random_state=1).fit(X, y).predict_proba(Xte)
    assert np.abs(other - ours).max() > 100 * TOL


@pytest.mark.parametrize("kind", sorted(ESTIMATORS))
@pytest.mark.parametrize("n_classes", [2, 3])
def test_sample_weight_reaches_the_folds_and_the_sigmoids(kind, n_classes):
    X, y = _problem(n_classes)
    w = np.random.RandomState(3).uniform(0.0, 3.0, size=y.shape[0])
    est = ESTIMATORS[kind](probability=True).fit(X, y, sample_weight=w)
    ref = _reference(est, X, y, sample_weight=w)
    np.testing.assert_allclose(est.predict_proba(X), ref.predict_proba(X), rtol=0, atol=TOL)
    unweighted = clone(est).fit(X, y).predict_proba(X)
    assert np.abs(unweighted - est.predict_proba(X)).max() > 100 * TOL


def test_float32_input_matches_calibrated_classifier_cv():
    X, y = _problem(3)
    X = X.astype(np.float32)
    est = _linear(probability=True).fit(X, y)
    ref = _reference(est, X, y)
    np.testing.assert_allclose(est.predict_proba(X), ref.predict_proba(X), rtol=0, atol=TOL)


def test_precomputed_kernel_matches_its_data_kernel():
    X, y = _problem(3)
    Xtr, Xte, ytr, _ = train_test_split(X, y, test_size=0.25, random_state=0)
    direct = _kernel(probability=True, kernel="rbf").fit(Xtr, ytr)
    pre = _kernel(probability=True, kernel="precomputed").fit(rbf_kernel(Xtr, gamma=0.5), ytr)
    # The same folds (the Gram matrix restricted to each training part) and the same
    # models up to the kernel's rounding.
    np.testing.assert_allclose(pre.probA_, direct.probA_, rtol=1e-7)
    np.testing.assert_allclose(pre.probB_, direct.probB_, rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(
        pre.predict_proba(rbf_kernel(Xte, Xtr, gamma=0.5)),
        direct.predict_proba(Xte),
        rtol=0,
        atol=1e-9,
    )
    ref = _reference(pre, rbf_kernel(Xtr, gamma=0.5), ytr)
    K_test = rbf_kernel(Xte, Xtr, gamma=0.5)
    np.testing.assert_allclose(pre.predict_proba(K_test), ref.predict_proba(K_test), atol=TOL)


# --------------------------------------------------------------------------------------
# The sigmoid fitter


def _direct_fit(f, positive, w):
    """Platt's A, B by scipy: the targets and the cross-entropy written out here,
    L-BFGS-B to a tight tolerance, then the gradient's root polished by MINPACK."""
    n_pos, n_neg = w[positive].sum(), w[~positive].sum()
    t = np.where(positive, (n_pos + 1) / (n_pos + 2), 1 / (n_neg + 2))

    def loss(ab):
        p = expit(-(ab[0] * f + ab[1]))
        with np.errstate(divide="ignore"):
            terms = -(t * np.log(p) + (1 - t) * np.log1p(-p))
        return float(w @ terms)

    def grad(ab):
        d = w * (t - expit(-(ab[0] * f + ab[1])))
        return np.array([f @ d, d.sum()])

    first = minimize(loss, [0.0, 0.0], jac=grad, method="L-BFGS-B", options={"gtol": 1e-12})
    polished = root(grad, first.x, method="hybr", options={"xtol": 1e-15})
    assert np.abs(grad(polished.x)).max() < 1e-8 * max(1.0, w.sum())
    return polished.x


@pytest.mark.parametrize("seed", range(12))
def test_sigmoid_fit_matches_a_direct_minimisation(seed):
    rng = np.random.RandomState(seed)
    n = rng.randint(20, 2000)
    scale = [0.05, 1.0, 30.0][seed % 3]
    f = rng.randn(n) * scale
    positive = f + rng.randn(n) * scale * [0.3, 1.0][seed % 2] > 0
    w = np.ones(n) if seed % 4 < 2 else rng.uniform(0.0, 3.0, size=n)
    A, B = fit_sigmoid(f, positive, None if seed % 4 < 2 else w)
    ref_A, ref_B = _direct_fit(f, positive, w)
    assert A < 0
    assert abs(A - ref_A) <= 1e-6 * max(1.0, abs(ref_A))
    assert abs(B - ref_B) <= 1e-6 * max(1.0, abs(ref_B))


def test_sigmoid_fit_of_separable_values_stays_finite():
    # Platt's targets (not 0 and 1) keep the optimum finite on separable data.
    f = np.array([-3.0, -2.0, -1.0, 1.0, 2.0, 3.0])
    positive = f > 0
    A, B = fit_sigmoid(f, positive)
    ref_A, ref_B = _direct_fit(f, positive, np.ones(6))
    assert np.isfinite(A) and np.isfinite(B)
    assert abs(A - ref_A) <= 1e-6 * abs(ref_A)
    assert abs(B - ref_B) <= 1e-6


def test_sigmoid_fit_of_constant_values():
    # No information in f: A stays 0 and B gives the (smoothed) base rate.
    positive = np.array([True, False, False, False])
    A, B = fit_sigmoid(np.zeros(4), positive)
    t = np.where(positive, 2 / 3, 1 / 5)
    assert A == 0.0
    assert expit(-B) == pytest.approx(t.mean(), rel=1e-9)


# --------------------------------------------------------------------------------------
# The Rust fit and probabilities against the former numpy implementation
#
# Until issue 24 the sigmoids and the probabilities were computed with numpy and
# scipy (dot products through BLAS, numpy's exp/log), whose summation order and
# elementary functions vary by CPU and build. The Rust core now computes them in a
# fixed order with its portable exp/log; the numpy code is kept here only, as the
# reference they must agree with to rounding.


def _numpy_sigmoid(f, positive, w):
    """The former numpy ``fit_sigmoid`` (Lin, Lin and Weng's Newton method), also
    returning the rule that ended the fit."""
    w = np.ones(f.shape[0]) if w is None else w
    n_pos, n_neg = float(w[positive].sum()), float(w[~positive].sum())
    t = np.where(positive, (n_pos + 1.0) / (n_pos + 2.0), 1.0 / (n_neg + 2.0))

    def objective(A, B):
        z = A * f + B
        return float(w @ (t * z + np.logaddexp(0.0, -z)))

    A, B = 0.0, float(np.log((n_neg + 1.0) / (n_pos + 1.0)))
    value = objective(A, B)
    for _ in range(100):
        z = A * f + B
        p = expit(-z)
        d2, d1 = w * p * expit(z), w * (t - p)
        g1, g2 = float(f @ d1), float(d1.sum())
        if g1 == 0.0 and g2 == 0.0:
            return A, B, "zero_gradient"
        h11, h22 = float((f * f) @ d2) + 1e-12, float(d2.sum()) + 1e-12
        h21 = float(f @ d2)
        det = h11 * h22 - h21 * h21
        dA, dB = -(h22 * g1 - h21 * g2) / det, -(-h21 * g1 + h11 * g2) / det
        if abs(dA) <= 1e-10 * max(1.0, abs(A)) and abs(dB) <= 1e-10 * max(1.0, abs(B)):
            return A + dA, B + dB, "small_step"
        step, slope = 1.0, g1 * dA + g2 * dB
        while step >= 1e-10:
            new_value = objective(A + step * dA, B + step * dB)
            if new_value < value + 1e-4 * step * slope:
                A, B, value = A + step * dA, B + step * dB, new_value
                break
            step /= 2.0
        else:
            return A, B, "no_decrease"
    return A, B, "max_iter"


def _numpy_log_proba(decision, prob_a, prob_b):
    """The former numpy ``log_proba``."""
    if decision.ndim == 1:
        z = prob_a[0] * decision + prob_b[0]
        return np.column_stack([log_expit(z), log_expit(-z)])
    logs = log_expit(-(decision * prob_a + prob_b))
    return logs - logsumexp(logs, axis=1, keepdims=True)


def _sigmoid_problem(seed, n=None, weighted=False):
    rng = np.random.RandomState(seed)
    n = rng.randint(20, 2000) if n is None else n
    scale = [0.05, 1.0, 30.0][seed % 3]
    f = rng.randn(n) * scale
    positive = f + rng.randn(n) * scale * [0.3, 1.0][seed % 2] > 0
    w = rng.uniform(0.0, 3.0, size=n) if weighted else None
    return f, positive, w


#: The rules after which a fit is at the optimum to rounding: an exactly zero
#: gradient, or a full Newton step within tol (1e-10), which is taken.
_AT_OPTIMUM = ("zero_gradient", "small_step")


def _compare_with_numpy(f, positive, w=None) -> bool:
    """Assert that the Rust fit agrees with the former numpy one; return whether
    both ended at the optimum to rounding (see ``_AT_OPTIMUM``).

    There they differ only by the last bits of their sums (compensated in Rust,
    pairwise or BLAS in numpy) and of exp/log: about 1e-16 relative, asserted to
    1e-12. The third rule, no decrease, ends a fit when the Newton step is above
    tol but its decrease is below the objective's rounding, so that step is not
    taken: the fit is then short of the optimum by that step, below about
    sqrt(eps) relative, and which iterate it stops at depends on those last bits in
    both implementations alike; asserted to 1e-7. (A change of method, constant or
    target moves A and B by 1e-6 or more.)"""
    f = np.ascontiguousarray(f, dtype=np.float64)
    positive = np.ascontiguousarray(positive, dtype=bool)
    A, B, _, stop, _ = _core.platt_fit(f, positive, w, 1e-10)
    assert (A, B) == fit_sigmoid(f, positive, w)
    ref_A, ref_B, ref_stop = _numpy_sigmoid(f, positive, w)
    assert stop != "max_iter" and ref_stop != "max_iter"
    at_optimum = stop in _AT_OPTIMUM and ref_stop in _AT_OPTIMUM
    tol = 1e-12 if at_optimum else 1e-7
    assert abs(A - ref_A) <= tol * max(1.0, abs(ref_A)), (A, ref_A, stop, ref_stop)
    assert abs(B - ref_B) <= tol * max(1.0, abs(ref_B)), (B, ref_B, stop, ref_stop)
    return at_optimum


def test_sigmoid_fits_match_the_former_numpy_fit():
    at_optimum = [
        _compare_with_numpy(*_sigmoid_problem(seed, weighted=weighted))
        for seed in range(12)
        for weighted in (False, True)
    ]
    # Most fits end at the optimum in both (19 of these 24), so the 1e-12
    # comparison is the one that mostly runs.
    assert sum(at_optimum) >= 12, at_optimum


@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
@pytest.mark.parametrize("case", ["all-zero", "separable", "few-positives", "one-class"])
def test_degenerate_sigmoid_fits_match_the_former_numpy_fit(case, weighted):
    rng = np.random.RandomState(11)
    if case == "all-zero":
        f, positive = np.zeros(7), np.array([1, 0, 0, 1, 0, 0, 0], bool)
    elif case == "separable":
        f = np.concatenate([-1.0 - rng.rand(50), 1.0 + rng.rand(40)])
        positive = f > 0
    elif case == "few-positives":  # 2 positives among 500, not the largest values
        f = rng.randn(500)
        positive = np.zeros(500, bool)
        positive[np.argsort(f)[[-1, -7]]] = True
    else:
        f, positive = rng.randn(30), np.ones(30, bool)
    w = rng.uniform(0.5, 2.0, size=f.size) if weighted else None
    _compare_with_numpy(f, positive, w)
    if case == "all-zero":
        assert fit_sigmoid(f, positive, w)[0] == 0.0


@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
def test_equal_decision_values_give_the_former_probability(weighted):
    """All decision values equal (not 0): only ``A f + B`` is determined. The
    Hessian is singular but for the 1e-12 ridge, so A drifts along ``A f + B =
    const`` with each implementation's rounding noise until no step decreases the
    objective; the probability at those values agrees to that noise."""
    rng = np.random.RandomState(12)
    f, positive = np.full(9, 2.5), rng.rand(9) < 0.4
    w = rng.uniform(0.5, 2.0, size=9) if weighted else None
    A, B = fit_sigmoid(f, positive, w)
    ref_A, ref_B, _ = _numpy_sigmoid(f, positive, w)
    np.testing.assert_allclose(expit(-(A * f + B)), expit(-(ref_A * f + ref_B)), atol=1e-10)


@pytest.mark.parametrize("kind", sorted(ESTIMATORS))
@pytest.mark.parametrize("n_classes", [2, 4])
@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
def test_fitted_probabilities_match_the_former_numpy_code(kind, n_classes, weighted, monkeypatch):
    """End to end: each sigmoid an estimator fits (on its out-of-fold decision
    values) is the former numpy fit's, and its probabilities are the former numpy
    formula's."""
    X, y = _problem(n_classes, seed=3)
    w = np.random.RandomState(2).uniform(0.2, 2.0, size=y.size) if weighted else None
    calls = []

    def recording(decision, positive, sample_weight=None, **kw):
        calls.append((np.array(decision), np.array(positive), sample_weight))
        return fit_sigmoid(decision, positive, sample_weight, **kw)

    monkeypatch.setattr(_platt, "fit_sigmoid", recording)
    est = ESTIMATORS[kind](probability=True).fit(X, y, sample_weight=w)
    assert len(calls) == est.probA_.size
    for k, (f, positive, sw) in enumerate(calls):
        _compare_with_numpy(f, positive, sw)
        assert (est.probA_[k], est.probB_[k]) == fit_sigmoid(f, positive, sw)
    Xte, _ = _problem(n_classes, n_samples=200, seed=8)
    logs = _numpy_log_proba(est.decision_function(Xte), est.probA_, est.probB_)
    np.testing.assert_allclose(est.predict_log_proba(Xte), logs, rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(est.predict_proba(Xte), np.exp(logs), rtol=1e-13, atol=1e-15)


def test_log_proba_matches_the_former_numpy_formula_far_out():
    """Decision values whose sigmoids underflow or saturate."""
    rng = np.random.RandomState(4)
    f = np.concatenate([rng.randn(50) * 300.0, [0.0, -1e4, 1e4, 745.0, -745.0]])
    A, B = np.array([-1.7]), np.array([0.3])
    np.testing.assert_allclose(_platt.log_proba(f, A, B), _numpy_log_proba(f, A, B), rtol=1e-14)
    F = rng.randn(40, 3) * [1.0, 100.0, 1e4]
    A3, B3 = np.array([-1.0, -0.5, -2.0]), np.array([0.1, -0.2, 0.3])
    np.testing.assert_allclose(
        _platt.log_proba(F, A3, B3), _numpy_log_proba(F, A3, B3), rtol=1e-13, atol=1e-13
    )
    np.testing.assert_allclose(
        _platt.proba(F, A3, B3), np.exp(_numpy_log_proba(F, A3, B3)), rtol=1e-13, atol=1e-300
    )


def test_running_out_of_newton_iterations_warns():
    f, positive, _ = _sigmoid_problem(1, n=500)
    with pytest.warns(ConvergenceWarning, match="did not converge in 1 iterations"):
        fit_sigmoid(f, positive, max_iter=1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fit_sigmoid(f, positive)


def test_sigmoid_inputs_are_checked():
    with pytest.raises(ValueError, match="decision values must be finite"):
        fit_sigmoid(np.array([0.0, np.nan]), np.array([True, False]))
    with pytest.raises(ValueError, match="non-negative"):
        fit_sigmoid(np.array([0.0, 1.0]), np.array([True, False]), np.array([1.0, -1.0]))
    with pytest.raises(ValueError, match="2 decision values but 3"):
        fit_sigmoid(np.array([0.0, 1.0]), np.array([True, False, True]))
    with pytest.raises(ValueError, match="decision values must be finite"):
        _platt.log_proba(np.array([1.0, np.inf]), np.array([-1.0]), np.array([0.0]))


def test_golden_probabilities_are_pinned():
    """An int seed gives the same probabilities bit for bit on every platform and
    thread count (the sigmoids' fit and the probabilities are computed in Rust; the
    folds come from numpy's legacy RandomState, whose stream numpy keeps fixed)."""
    rng = np.random.RandomState(1234)
    X = rng.randn(240, 6)
    y = (X @ rng.randn(6) + 0.5 * rng.randn(240) > 0).astype(int) + 2 * (X[:, 0] > 0.8)
    w = rng.uniform(0.5, 2.0, size=240)
    three = PegasosClassifier(alpha=1e-3, max_iter=5, probability=True, random_state=7, n_jobs=2)
    three.fit(X, y, sample_weight=w)
    two = KernelPegasosClassifier(alpha=1e-2, gamma=0.5, max_iter=2, probability=True,
                                  random_state=3)  # fmt: skip
    two.fit(X, y % 2)
    Xte = rng.randn(50, 6)
    digest = sha256_le(
        three.probA_, three.probB_, three.predict_proba(Xte), three.predict_log_proba(Xte),
        two.probA_, two.probB_, two.predict_proba(Xte), two.predict_log_proba(Xte),
    )  # fmt: skip
    assert digest == GOLDEN_PROBA_SHA256, digest


GOLDEN_PROBA_SHA256 = "975125c08c365c5a32297414ebd5ddfba96e64176e548aa3b1953f69545e81fa"


# --------------------------------------------------------------------------------------
# What probability changes and what it does not


@pytest.mark.parametrize("n_classes", [2, 4])
@pytest.mark.parametrize("sparse", [False, True])
def test_linear_model_is_bit_identical_to_probability_false(n_classes, sparse):
    X, y = _problem(n_classes, sparse)
    plain = _linear().fit(X, y)
    prob = _linear(probability=True).fit(X, y)
    assert prob.coef_.tobytes() == plain.coef_.tobytes()
    assert prob.intercept_.tobytes() == plain.intercept_.tobytes()
    assert prob.t_ == plain.t_
    assert prob.decision_function(X).tobytes() == plain.decision_function(X).tobytes()
    np.testing.assert_array_equal(prob.predict(X), plain.predict(X))
    # The continuation of the solver is the same too.
    assert pickle.dumps(prob._solver) == pickle.dumps(plain._solver)


@pytest.mark.parametrize("kernel", ["rbf", "precomputed"])
@pytest.mark.parametrize("n_classes", [2, 3])
def test_kernel_model_is_bit_identical_to_probability_false(kernel, n_classes):
    X, y = _problem(n_classes)
    if kernel == "precomputed":
        X = rbf_kernel(X, gamma=0.5)
    plain = _kernel(kernel=kernel).fit(X, y)
    prob = _kernel(kernel=kernel, probability=True).fit(X, y)
    np.testing.assert_array_equal(prob.support_, plain.support_)
    assert prob.dual_coef_.tobytes() == plain.dual_coef_.tobytes()
    assert prob.intercept_.tobytes() == plain.intercept_.tobytes()
    assert prob.decision_function(X).tobytes() == plain.decision_function(X).tobytes()


def test_random_state_instance_gives_the_model_of_probability_false():
    X, y = _problem(2)
    plain = _linear(random_state=np.random.RandomState(5)).fit(X, y)
    prob = _linear(random_state=np.random.RandomState(5), probability=True).fit(X, y)
    assert prob.coef_.tobytes() == plain.coef_.tobytes()


@pytest.mark.parametrize("kind", sorted(ESTIMATORS))
@pytest.mark.parametrize("n_classes", [2, 4])
def test_probabilities_are_distributions_better_than_a_constant(kind, n_classes):
    X, y = _problem(n_classes, n_samples=600)
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.3, random_state=0, stratify=y)
    est = ESTIMATORS[kind](probability=True).fit(Xtr, ytr)
    proba = est.predict_proba(Xte)
    assert proba.shape == (Xte.shape[0], n_classes)
    assert np.all((proba >= 0) & (proba <= 1))
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    np.testing.assert_allclose(est.predict_log_proba(Xte), np.log(proba), rtol=1e-12, atol=1e-12)
    prior = np.bincount(ytr) / ytr.size
    constant = log_loss(yte, np.tile(prior, (yte.size, 1)), labels=est.classes_)
    assert log_loss(yte, proba, labels=est.classes_) < 0.7 * constant
    # Argmax of the probabilities mostly agrees with predict (not always: see the
    # docstring of predict_proba).
    assert np.mean(est.classes_[proba.argmax(axis=1)] == est.predict(Xte)) > 0.9


@pytest.mark.parametrize("n_classes", [2, 4])
def test_predict_proba_is_the_documented_formula(n_classes):
    X, y = _problem(n_classes)
    est = _linear(probability=True).fit(X, y)
    f = est.decision_function(X)
    if n_classes == 2:
        p = 1 / (1 + np.exp(est.probA_[0] * f + est.probB_[0]))
        expected = np.column_stack([1 - p, p])
    else:
        s = 1 / (1 + np.exp(est.probA_ * f + est.probB_))
        expected = s / s.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(est.predict_proba(X), expected, rtol=1e-12, atol=1e-15)
    assert est.probA_.shape == est.probB_.shape == (1 if n_classes == 2 else n_classes,)
    assert np.all(est.probA_ < 0)


def test_log_proba_does_not_underflow():
    X, y = _problem(3)
    est = _linear(probability=True).fit(X, y)
    far = 1e6 * np.asarray(X[:5])  # every sigmoid underflows to 0 in probability
    logs = est.predict_log_proba(far)
    assert np.all(np.isfinite(logs))
    np.testing.assert_allclose(np.exp(logs).sum(axis=1), 1.0, atol=1e-12)


def test_string_labels():
    X, y = _problem(3)
    names = np.array(["c", "a", "b"])[y]
    est = _linear(probability=True).fit(X, names)
    ints = _linear(probability=True).fit(X, np.searchsorted(["a", "b", "c"], names))
    np.testing.assert_array_equal(est.classes_, ["a", "b", "c"])
    assert est.predict_proba(X).tobytes() == ints.predict_proba(X).tobytes()


# --------------------------------------------------------------------------------------
# Availability, errors and state


@pytest.mark.parametrize("kind", sorted(ESTIMATORS))
def test_predict_proba_exists_only_with_probability(kind):
    X, y = _problem(2)
    est = ESTIMATORS[kind]().fit(X, y)
    for method in ("predict_proba", "predict_log_proba"):
        assert not hasattr(est, method)
        with pytest.raises(AttributeError, match="has no attribute") as info:
            getattr(est, method)
        assert "probability=False" in str(info.value.__cause__)
        # The message itself says why, and what to do (not only the chained cause).
        assert "fitted only with probability=True" in str(info.value)
        assert "Set probability=True and fit again" in str(info.value)
    unfitted = ESTIMATORS[kind](probability=True)
    assert hasattr(unfitted, "predict_proba")
    with pytest.raises(NotFittedError, match="probability=True"):
        unfitted.predict_proba(X)
    # Switched on after a fit without it: the fitted model still has none (the
    # parameter takes effect at the next fit).
    est.set_params(probability=True)
    assert not hasattr(est, "predict_log_proba")
    with pytest.raises(AttributeError, match="fitted with probability=False"):
        est.predict_log_proba(X)


def test_a_fit_without_probability_removes_the_sigmoids():
    X, y = _problem(2)
    est = _linear(probability=True).fit(X, y)
    est.set_params(probability=False).fit(X, y)
    assert not hasattr(est, "probA_") and not hasattr(est, "probB_")
    est.set_params(probability=True)
    with pytest.raises(AttributeError, match="fitted with probability=False"):
        est.predict_proba(X)


def test_partial_fit_is_not_available_with_probability():
    X, y = _problem(2)
    est = _linear(probability=True)
    assert not hasattr(est, "partial_fit")
    with pytest.raises(AttributeError) as info:
        est.partial_fit(X, y, classes=[0, 1])
    assert "probability=True" in str(info.value.__cause__)
    # Why, and what to do, in the message itself.
    assert "cannot be updated one batch at a time" in str(info.value)
    assert "Set probability=False to train with partial_fit" in str(info.value)
    est.fit(X, y)
    assert not hasattr(est, "partial_fit")
    # Switched off, partial_fit continues the model and drops the stale sigmoids.
    est.set_params(probability=False).partial_fit(X, y)
    assert not hasattr(est, "probA_")
    assert hasattr(_linear(), "partial_fit")


def test_warm_start_with_probability_is_refused_and_changes_nothing():
    X, y = _problem(2)
    est = _linear(probability=True).fit(X, y)
    before = pickle.dumps(est)
    est.set_params(warm_start=True)
    with pytest.raises(ValueError, match="warm_start"):
        est.fit(X, y)
    est.set_params(warm_start=False)
    assert pickle.dumps(est) == before


@pytest.mark.parametrize("kind", sorted(ESTIMATORS))
def test_a_small_class_reduces_the_folds(kind):
    X, y = _problem(3, n_samples=200)
    keep = np.flatnonzero(y == 2)[:3]  # class 2 keeps 3 examples: 3 folds
    rows = np.concatenate([np.flatnonzero(y != 2), keep])
    X, y = X[rows], y[rows]
    est = ESTIMATORS[kind](probability=True).fit(X, y)
    ref = _reference(est, X, y, n_folds=3)
    np.testing.assert_allclose(est.predict_proba(X), ref.predict_proba(X), rtol=0, atol=TOL)


@pytest.mark.parametrize("kind", sorted(ESTIMATORS))
def test_a_class_of_one_example_is_a_clear_error(kind):
    X, y = _problem(3, n_samples=200)
    rows = np.concatenate([np.flatnonzero(y != 2), np.flatnonzero(y == 2)[:1]])
    est = ESTIMATORS[kind](probability=True)
    with pytest.raises(ValueError, match="at least 2 examples of every class; one class has 1"):
        est.fit(X[rows], y[rows])
    assert not hasattr(est, "classes_")  # nothing was trained
    ESTIMATORS[kind]().fit(X[rows], y[rows])  # fine without probabilities


def test_sampling_order_is_restricted_to_each_fold():
    X, y = _problem(2, n_samples=100)
    order = np.random.RandomState(0).permutation(100)[:60]
    plain = _linear(sampling=order).fit(X, y)
    est = _linear(sampling=order, probability=True).fit(X, y)
    assert est.coef_.tobytes() == plain.coef_.tobytes()
    assert np.all(np.isfinite(est.probA_)) and np.all(est.probA_ < 0)


def test_parameter_is_validated():
    X, y = _problem(2)
    from sklearn.utils._param_validation import InvalidParameterError

    for make in ESTIMATORS.values():
        with pytest.raises(InvalidParameterError, match="probability"):
            make(probability="yes").fit(X, y)


def test_dask_estimator_refuses_probability():
    pdask = pytest.importorskip("pegasos_rs.dask")
    X, y = _problem(2)
    with pytest.raises(ValueError, match="probability=True is not supported"):
        pdask.PegasosClassifier(probability=True).fit(X, y)


# --------------------------------------------------------------------------------------
# Model files


@pytest.mark.parametrize("kind", sorted(ESTIMATORS))
@pytest.mark.parametrize("n_classes", [2, 3])
def test_saved_model_keeps_its_probabilities(tmp_path, kind, n_classes):
    X, y = _problem(n_classes, sparse=kind == "linear")
    est = ESTIMATORS[kind](probability=True).fit(X, y)
    est.save(tmp_path / "m.pegasos")
    loaded = load(tmp_path / "m.pegasos")
    assert loaded.probability is True
    assert loaded.probA_.tobytes() == est.probA_.tobytes()
    assert loaded.probB_.tobytes() == est.probB_.tobytes()
    assert loaded.predict_proba(X).tobytes() == est.predict_proba(X).tobytes()
    assert loaded.predict_log_proba(X).tobytes() == est.predict_log_proba(X).tobytes()


def test_saved_model_without_probability_has_none(tmp_path):
    X, y = _problem(2)
    _linear().fit(X, y).save(tmp_path / "m.pegasos")
    loaded = load(tmp_path / "m.pegasos")
    assert loaded.probability is False
    assert not hasattr(loaded, "predict_proba")
    assert not hasattr(loaded, "probA_")


def _rewrite(path, edit):
    """Apply ``edit(header, blob) -> blob`` to a model file, fixing its checksum."""
    raw = path.read_bytes()
    start = len(MAGIC) + 12
    (hlen,) = struct.unpack_from("<Q", raw, len(MAGIC) + 4)
    header = json.loads(raw[start : start + hlen])
    blob = edit(header, bytearray(raw[start + hlen : -4]))
    text = json.dumps(header).encode()
    body = MAGIC + struct.pack("<IQ", FORMAT_VERSION, len(text)) + text + bytes(blob)
    path.write_bytes(body + struct.pack("<I", zlib.crc32(body)))


def _drop_prob_b(header, blob):
    del header["arrays"]["probB_"]
    return blob


def _integer_prob_a(header, blob):
    header["arrays"]["probA_"]["dtype"] = "<i8"
    return blob


def _nan_prob_a(header, blob):
    offset = header["arrays"]["probA_"]["offset"]
    blob[offset : offset + 8] = struct.pack("<d", float("nan"))
    return blob


@pytest.mark.parametrize("edit", [_drop_prob_b, _integer_prob_a, _nan_prob_a])
def test_damaged_sigmoids_in_a_model_file_are_data_format_errors(tmp_path, edit):
    X, y = _problem(3)
    path = tmp_path / "m.pegasos"
    _linear(probability=True).fit(X, y).save(path)
    _rewrite(path, edit)
    with pytest.raises(DataFormatError, match="probA_ and probB_ must be finite floats"):
        load(path)


def test_a_file_from_before_the_parameter_loads(tmp_path):
    X, y = _problem(2)
    est = _linear().fit(X, y)
    path = tmp_path / "m.pegasos"
    est.save(path)

    def forget_probability(header, blob):
        del header["params"]["probability"]
        return blob

    _rewrite(path, forget_probability)
    loaded = load(path)
    assert loaded.probability is False
    assert loaded.coef_.tobytes() == est.coef_.tobytes()
