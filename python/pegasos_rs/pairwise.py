"""Kernel matrices between rows: scikit-learn's ``pairwise_kernels``, computed in Rust.

:func:`pairwise_kernels` has scikit-learn's name, signature, keywords and defaults, so
code written for ``sklearn.metrics.pairwise.pairwise_kernels`` gives the same matrix
(up to rounding).
"""

from __future__ import annotations

from numbers import Integral, Real
from typing import TYPE_CHECKING

from sklearn.utils import check_array

from pegasos_rs import _core
from pegasos_rs._validation import INPUT_CHECKS, as_rust_matrix, n_threads

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

    from pegasos_rs._typing import Float, Int, MatrixLike, PairwiseMetric

__all__ = ["pairwise_kernels"]

#: The metrics computed here and the keywords each takes (scikit-learn's
#: ``KERNEL_PARAMS``; ``intersection``, ``sum min(x, y)``, is ours only).
KERNEL_PARAMS = {
    "linear": (),
    "rbf": ("gamma",),
    "poly": ("gamma", "degree", "coef0"),
    "polynomial": ("gamma", "degree", "coef0"),
    "sigmoid": ("gamma", "coef0"),
    "chi2": ("gamma",),
    "intersection": (),
}


def pairwise_kernels(
    X: MatrixLike,
    Y: MatrixLike | None = None,
    metric: PairwiseMetric = "linear",
    *,
    filter_params: bool = False,
    n_jobs: Int | None = None,
    **kwds: Float | None,
) -> NDArray[np.float64]:
    """The kernel matrix ``K(X[i], Y[j])``, as scikit-learn's ``pairwise_kernels``.

    Same signature, keywords and defaults as
    ``sklearn.metrics.pairwise.pairwise_kernels``, for the kernels both libraries
    have (and ``"intersection"``), computed in Rust: dense and CSR inputs, float32 or
    float64, are read in place, rows in parallel blocks (``n_jobs``); the result is
    float64, and the same for every ``n_jobs``.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples_X, n_features)
    Y : {array-like, sparse matrix} of shape (n_samples_Y, n_features), default=None
        None means ``X``.
    metric : {"linear", "rbf", "poly", "polynomial", "sigmoid", "chi2", \
"intersection"}, default="linear"
        scikit-learn's definitions: ``<x, y>``; ``exp(-gamma ||x - y||^2)``;
        ``(gamma <x, y> + coef0)^degree``; ``tanh(gamma <x, y> + coef0)``;
        ``exp(-gamma sum (x - y)^2 / (x + y))`` and ``sum min(x, y)`` (both for
        non-negative data). scikit-learn's other metrics, callables and
        ``"precomputed"`` are not computed here (ValueError).
    filter_params : bool, default=False
        Drop keywords the metric does not take; otherwise they raise TypeError (as
        scikit-learn's kernel functions do).
    n_jobs : int or None, default=None
        Threads (None: one; -1: all cores).
    **kwds
        The metric's parameters: ``gamma`` (None, the default, is ``1 / n_features``
        for rbf, poly and sigmoid, 1 for chi2), ``degree`` (integer, default 3) and
        ``coef0`` (default 1).

    Returns
    -------
    ndarray of shape (n_samples_X, n_samples_Y)
    """
    if not isinstance(metric, str) or metric not in KERNEL_PARAMS:
        raise ValueError(
            f"metric must be one of {sorted(KERNEL_PARAMS)}, got {metric!r:.80}; for "
            "scikit-learn's other metrics, callables or 'precomputed', use "
            "sklearn.metrics.pairwise.pairwise_kernels"
        )
    allowed = KERNEL_PARAMS[metric]
    if filter_params:
        kwds = {k: v for k, v in kwds.items() if k in allowed}
    extra = sorted(set(kwds) - set(allowed))
    if extra:
        takes = ", ".join(allowed) if allowed else "no parameters"
        raise TypeError(
            f"the {metric} kernel got an unexpected keyword argument {extra[0]!r} (it takes "
            f"{takes}); pass filter_params=True to drop the others"
        )
    X = check_array(X, **INPUT_CHECKS)
    gamma = kwds.get("gamma")
    if gamma is None:
        gamma = 1.0 if metric == "chi2" else 1.0 / X.shape[1]
    kernel = "poly" if metric == "polynomial" else metric
    return _kernel_matrix(
        X, Y, kernel, gamma, kwds.get("degree", 3), kwds.get("coef0", 1.0), n_jobs
    )


def _kernel_matrix(X, Y, kernel: str, gamma, degree, coef0, n_jobs):
    """The kernel matrix of checked ``X`` and ``Y`` (None: ``X``)."""
    if (
        not (
            isinstance(degree, Integral)
            or (isinstance(degree, Real) and float(degree).is_integer())
        )
        or not 1 <= degree < 2**32  # type: ignore[operator]  # typeshed: Real has no <
    ):
        raise ValueError(f"degree must be an integer in [1, 2**32), got {degree!r:.40}")
    for name, value in (("gamma", gamma), ("coef0", coef0)):
        if isinstance(value, bool) or not isinstance(value, Real):
            raise TypeError(f"{name} must be a real number, got {value!r:.40}")
    Y = X if Y is None else check_array(Y, **INPUT_CHECKS)
    if X.shape[1] != Y.shape[1]:
        raise ValueError(f"X has {X.shape[1]} features but Y has {Y.shape[1]}")
    return _core.pairwise_kernel(
        as_rust_matrix(X),
        as_rust_matrix(Y),
        kernel={
            "kernel_name": kernel,
            "gamma": float(gamma),
            "degree": int(degree),  # type: ignore[call-overload]  # an integral Real
            "coef0": float(coef0),
        },
        n_threads=n_threads(n_jobs),
    )
