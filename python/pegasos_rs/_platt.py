"""Platt scaling: probabilities from decision values, fitted on held-out folds.

Platt (1999), "Probabilistic outputs for support vector machines and comparisons to
regularized likelihood methods", maps a decision value ``f`` to
``P(y=1 | f) = 1 / (1 + exp(A f + B))`` and fits ``A, B`` by maximum likelihood on
decision values the model did not train on (here: out-of-fold values of a stratified
k-fold cross-validation), with the targets smoothed to ``(N+ + 1) / (N+ + 2)`` for
positives and ``1 / (N- + 2)`` for negatives. The fit is the Newton method with
backtracking line search of Lin, Lin and Weng (2007), "A note on Platt's
probabilistic outputs for support vector machines", vectorised.
"""

from __future__ import annotations

import warnings

import numpy as np
import scipy.sparse as sp
from scipy.special import expit, log_expit, logsumexp
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import StratifiedKFold

#: Folds of the internal cross-validation (as libsvm's ``-b 1``).
N_FOLDS = 5

# Lin, Lin and Weng's constants: Newton iterations, smallest step of the line search,
# the ridge added to the Hessian's diagonal, sufficient decrease of the line search.
_MAX_ITER = 100
_MIN_STEP = 1e-10
_SIGMA = 1e-12
_ARMIJO = 1e-4


def _objective(A, B, f, t, w):
    """``sum_i w_i (t_i z_i + log(1 + exp(-z_i)))`` with ``z = A f + B``: the
    negative log-likelihood of the targets, computed without overflow."""
    z = A * f + B
    return float(w @ (t * z + np.logaddexp(0.0, -z)))


def platt_targets(positive, sample_weight=None):
    """Platt's smoothed targets: ``(N+ + 1)/(N+ + 2)`` for positives and
    ``1/(N- + 2)`` for negatives, ``N+`` and ``N-`` the (weighted) class sizes.

    Parameters
    ----------
    positive : ndarray of bool, shape (n_samples,)
    sample_weight : ndarray of shape (n_samples,) or None

    Returns
    -------
    targets : ndarray of shape (n_samples,)
    n_pos, n_neg : float
        The weighted numbers of positives and negatives.
    """
    w = np.ones(positive.shape[0]) if sample_weight is None else sample_weight
    n_pos = float(w[positive].sum())
    n_neg = float(w[~positive].sum())
    targets = np.where(positive, (n_pos + 1.0) / (n_pos + 2.0), 1.0 / (n_neg + 2.0))
    return targets, n_pos, n_neg


def fit_sigmoid(decision, positive, sample_weight=None, *, tol=1e-10):
    """Fit Platt's sigmoid ``P(positive | f) = 1 / (1 + exp(A f + B))``.

    Newton's method with backtracking (Lin, Lin and Weng 2007, Algorithm 1) on the
    (weighted) cross-entropy between the sigmoid and Platt's smoothed targets (see
    :func:`platt_targets`); each example's term is multiplied by its weight.

    Parameters
    ----------
    decision : array-like of shape (n_samples,)
        Decision values, ideally from models that did not train on the examples.
    positive : array-like of bool, shape (n_samples,)
        Whether each example belongs to the positive class.
    sample_weight : array-like of shape (n_samples,) or None, default=None
        Non-negative weights.
    tol : float, default=1e-10
        Stop after a Newton step whose full length changes ``A`` and ``B`` by at
        most ``tol`` times ``max(1, |A|)`` and ``max(1, |B|)``. (The paper stops once the
        gradient is below 1e-5, which leaves relative errors up to about 1e-6 when
        the decision values are small; Newton's method converges quadratically, so
        the tighter criterion costs an iteration or two.) It also stops when no step
        decreases the objective: the gradient is then rounding noise.

    Returns
    -------
    A, B : float
        ``A < 0`` when larger decision values mean the positive class.
    """
    f = np.asarray(decision, dtype=np.float64)
    positive = np.asarray(positive, dtype=bool)
    w = np.ones(f.shape[0]) if sample_weight is None else np.asarray(sample_weight, np.float64)
    t, n_pos, n_neg = platt_targets(positive, w)
    A, B = 0.0, float(np.log((n_neg + 1.0) / (n_pos + 1.0)))
    value = _objective(A, B, f, t, w)
    for _ in range(_MAX_ITER):
        z = A * f + B
        p = expit(-z)  # P(positive) at the current A, B
        d2 = w * p * expit(z)  # w p (1 - p), without cancellation
        d1 = w * (t - p)
        g1, g2 = float(f @ d1), float(d1.sum())
        if g1 == 0.0 and g2 == 0.0:
            return A, B
        h11 = float((f * f) @ d2) + _SIGMA
        h22 = float(d2.sum()) + _SIGMA
        h21 = float(f @ d2)
        det = h11 * h22 - h21 * h21
        dA = -(h22 * g1 - h21 * g2) / det
        dB = -(-h21 * g1 + h11 * g2) / det
        if abs(dA) <= tol * max(1.0, abs(A)) and abs(dB) <= tol * max(1.0, abs(B)):
            # The full Newton step is the distance to the optimum, to second order.
            return A + dA, B + dB
        slope = g1 * dA + g2 * dB
        step = 1.0
        while step >= _MIN_STEP:
            new_A, new_B = A + step * dA, B + step * dB
            new_value = _objective(new_A, new_B, f, t, w)
            if new_value < value + _ARMIJO * step * slope:
                A, B, value = new_A, new_B, new_value
                break
            step /= 2.0
        else:
            # No step decreases the objective: the gradient is rounding noise away
            # from zero, the optimum as far as floating point can tell.
            return A, B
    warnings.warn(
        f"Platt scaling: Newton's method did not converge in {_MAX_ITER} iterations "
        f"(gradient {g1:.3g}, {g2:.3g})",
        ConvergenceWarning,
        stacklevel=3,
    )
    return A, B


def log_proba(decision, prob_a, prob_b):
    """Log-probabilities of the classes from decision values and fitted sigmoids.

    Two classes (``decision`` 1-d): ``[log(1 - p), log(p)]`` with
    ``p = 1 / (1 + exp(A f + B))``. More classes (one column per one-vs-rest problem):
    each column's sigmoid, then normalised so each row sums to 1 (in log space, so
    sigmoids that all underflow still give their ratios).

    Returns
    -------
    ndarray of shape (n_samples, n_classes)
    """
    if decision.ndim == 1:
        z = prob_a[0] * decision + prob_b[0]
        return np.column_stack([log_expit(z), log_expit(-z)])
    logs = log_expit(-(decision * prob_a + prob_b))
    return logs - logsumexp(logs, axis=1, keepdims=True)


def n_folds_for(counts) -> int:
    """Folds of the internal cross-validation: :data:`N_FOLDS`, or as many as the
    smallest class has examples when that is fewer; ``ValueError`` under 2 (every
    training part must hold every class)."""
    smallest = int(np.min(counts))
    if smallest < 2:
        raise ValueError(
            "probability=True fits the probabilities on held-out folds, which needs at "
            f"least 2 examples of every class; one class has {smallest}. Set "
            "probability=False or add examples"
        )
    return min(N_FOLDS, smallest)


def fit_calibration(estimator, X, y, sample_weight, classes, n_folds, *, pairwise=False):
    """Platt's sigmoids of ``estimator`` from out-of-fold decision values.

    A clone of ``estimator`` (its ``probability`` set to False, ``verbose`` to 0) is
    fitted on each training part of a stratified ``n_folds``-fold split of ``(X, y)``,
    shuffled with the estimator's ``random_state``, with the matching part of
    ``sample_weight``; its decision values on the held-out part are collected, and
    one sigmoid is fitted per one-vs-rest problem (one for two classes, positive
    class ``classes[1]``) with the same weights.

    Parameters
    ----------
    estimator : PegasosClassifier or KernelPegasosClassifier
    X : validated matrix of shape (n_samples, n_features) (the Gram matrix when
        ``pairwise``)
    y : ndarray of shape (n_samples,)
    sample_weight : ndarray of shape (n_samples,) or None
    classes : ndarray of shape (n_classes,)
        The sorted classes, all present in ``y`` with at least ``n_folds`` examples.
    n_folds : int
    pairwise : bool, default=False
        ``X`` is a precomputed kernel: a fold trains on ``X[train][:, train]`` and
        predicts ``X[test][:, train]``.

    Returns
    -------
    prob_a, prob_b : ndarray of shape (n_problems,)
    """
    n = y.shape[0]
    n_problems = 1 if classes.size == 2 else classes.size
    decision = np.empty(n if n_problems == 1 else (n, n_problems))
    folds = StratifiedKFold(n_folds, shuffle=True, random_state=estimator.random_state)
    for train, test in folds.split(np.zeros((n, 1)), y):
        fold = clone(estimator).set_params(probability=False, verbose=0)
        order = getattr(estimator, "sampling", "uniform")
        if not isinstance(order, str):
            fold.set_params(sampling=_order_within(np.asarray(order), train, n))
        weights = None if sample_weight is None else sample_weight[train]
        if pairwise:
            fold.fit(X[np.ix_(train, train)], y[train], sample_weight=weights)
            decision[test] = fold._class_scores(X[np.ix_(test, train)])
        else:
            fold.fit(_rows(X, train), y[train], sample_weight=weights)
            decision[test] = fold._class_scores(_rows(X, test))
    if n_problems == 1:
        pairs = [fit_sigmoid(decision, y == classes[1], sample_weight)]
    else:
        pairs = [fit_sigmoid(decision[:, k], y == c, sample_weight) for k, c in enumerate(classes)]
    return np.array([a for a, _ in pairs]), np.array([b for _, b in pairs])


def _rows(X, index):
    return X[index] if sp.issparse(X) else X[index, :]


def _order_within(order, train, n):
    """A visiting order over all rows as one over the rows of ``train`` (their
    positions in it), keeping the relative order of the rows it visits."""
    position = np.full(n, -1, dtype=np.int64)
    position[train] = np.arange(train.size)
    inside = position[order[(order >= 0) & (order < n)]]
    inside = inside[inside >= 0]
    if inside.size == 0:
        raise ValueError(
            "sampling (a visiting order) visits no row of a cross-validation training "
            "part, so probability=True cannot fit that part's model"
        )
    return inside
