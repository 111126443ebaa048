"""Platt scaling: probabilities from decision values, fitted on held-out folds.

Platt (1999), "Probabilistic outputs for support vector machines and comparisons to
regularized likelihood methods", maps a decision value ``f`` to
``P(y=1 | f) = 1 / (1 + exp(A f + B))`` and fits ``A, B`` by maximum likelihood on
decision values the model did not train on (here: out-of-fold values of a stratified
k-fold cross-validation), with the targets smoothed to ``(N+ + 1) / (N+ + 2)`` for
positives and ``1 / (N- + 2)`` for negatives. The fit is the Newton method with
backtracking line search of Lin, Lin and Weng (2007), "A note on Platt's
probabilistic outputs for support vector machines".

The fit and the probabilities are computed by the Rust core
(``pegasos_core::fit_sigmoid``: sums in a fixed order, the crate's portable
``exp`` and ``log``), so a seed gives the same bits on every platform; this module
chooses the folds (scikit-learn's ``StratifiedKFold``, whose shuffle is numpy's
portable MT19937 ``RandomState``) and collects the out-of-fold decision values.
"""

from __future__ import annotations

import warnings

import numpy as np
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import StratifiedKFold

from pegasos_rs import _core
from pegasos_rs._validation import buffer

#: Folds of the internal cross-validation (as libsvm's ``-b 1``).
N_FOLDS = 5


def fit_sigmoid(decision, positive, sample_weight=None, *, tol=1e-10, max_iter=None):
    """Fit Platt's sigmoid ``P(positive | f) = 1 / (1 + exp(A f + B))``.

    Newton's method with backtracking (Lin, Lin and Weng 2007, Algorithm 1, with
    their constants) on the (weighted) cross-entropy between the sigmoid and Platt's
    smoothed targets ``(N+ + 1)/(N+ + 2)`` for positives and ``1/(N- + 2)`` for
    negatives (``N+``, ``N-`` the weighted class sizes); each example's term is
    multiplied by its weight. Computed by the Rust core, the same bits on every
    platform.

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
    max_iter : int or None, default=None
        Newton iterations at most; None is the paper's 100. Running out of them
        issues a :class:`~sklearn.exceptions.ConvergenceWarning`.

    Returns
    -------
    A, B : float
        ``A < 0`` when larger decision values mean the positive class.
    """
    f = buffer(np.asarray(decision, dtype=np.float64))
    positive = buffer(np.asarray(positive, dtype=bool))
    w = None if sample_weight is None else buffer(np.asarray(sample_weight, dtype=np.float64))
    A, B, n_iter, stop, (g1, g2) = _core.platt_fit(f, positive, w, float(tol), max_iter)
    if stop == "max_iter":
        warnings.warn(
            f"Platt scaling: Newton's method did not converge in {n_iter} iterations "
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
    sigmoids that all underflow still give their ratios). Computed by the Rust
    core, the same bits on every platform.

    Returns
    -------
    ndarray of shape (n_samples, n_classes)
    """
    return _platt_proba(decision, prob_a, prob_b, log=True)


def proba(decision, prob_a, prob_b):
    """The probabilities of the classes: ``exp`` of :func:`log_proba` (the crate's
    portable ``exp``)."""
    return _platt_proba(decision, prob_a, prob_b, log=False)


def _platt_proba(decision, prob_a, prob_b, *, log):
    decision = np.asarray(decision, dtype=np.float64)
    rows = decision[:, np.newaxis] if decision.ndim == 1 else decision
    return _core.platt_proba(
        buffer(rows),
        buffer(np.asarray(prob_a, dtype=np.float64)),
        buffer(np.asarray(prob_b, dtype=np.float64)),
        log=log,
    )


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


def _decided(estimator) -> dict:
    """The parameters a fold must take from the fitted ``estimator`` rather than
    decide again from its fewer rows: a kernel model's decomposition
    (``multi_class="auto"`` resolved as ``multi_class_``), so that the sigmoids are
    fitted to the scores of the model they calibrate."""
    used = getattr(estimator, "multi_class_", None)
    return {} if used is None else {"multi_class": used}


def fit_calibration(estimator, X, y, sample_weight, classes, n_folds, *, pairwise=False):
    """Platt's sigmoids of ``estimator`` from out-of-fold decision values.

    A clone of ``estimator`` (its ``probability`` set to False, ``verbose`` to 0, and
    what the fit decided from all the rows kept: see :func:`_decided`) is fitted on
    each training part of a stratified ``n_folds``-fold split of ``(X, y)``, shuffled
    with the estimator's ``random_state``, with the matching part of
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
        fold = clone(estimator).set_params(probability=False, verbose=0, **_decided(estimator))
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
