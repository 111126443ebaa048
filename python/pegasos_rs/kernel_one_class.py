"""Novelty detection by the kernel one-class SVM trained with kernel Pegasos:
:class:`KernelPegasosOneClassSVM`, scikit-learn's ``OneClassSVM`` objective and
names."""

from __future__ import annotations

from numbers import Real
from typing import TYPE_CHECKING, Any

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, OutlierMixin
from sklearn.utils._param_validation import Interval, StrOptions

from pegasos_rs import _core, _kernel_expansion
from pegasos_rs._base import CachedParamNames, unchanged_on_error
from pegasos_rs._docs import filled
from pegasos_rs._kernel_expansion import KernelExpansionMixin
from pegasos_rs._progress import reported
from pegasos_rs._registry import persisted
from pegasos_rs._typing import fit_context
from pegasos_rs._validation import (
    as_rust_matrix,
    n_threads,
    resolve_gamma,
    sample_weight_vector,
)
from pegasos_rs.io.model_io import save
from pegasos_rs.one_class import nu_solver_fields

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Literal

    from numpy.typing import ArrayLike, NDArray
    from typing_extensions import Self

    from pegasos_rs._typing import (
        Float,
        Int,
        KernelName,
        MatrixLike,
        PathLike,
        RandomStateLike,
    )

#: The kernel estimators' constraints without what the one-class SVM does not have:
#: ``alpha`` (it is ``nu``) and early stopping (no labels to score held-out rows by).
_SHARED = {
    k: v
    for k, v in _kernel_expansion.PARAMETER_CONSTRAINTS.items()
    if k
    not in {
        "alpha",
        "tol",
        "n_iter_no_change",
        "early_stopping",
        "validation_fraction",
    }
}


@persisted
@filled
class KernelPegasosOneClassSVM(KernelExpansionMixin, CachedParamNames, OutlierMixin, BaseEstimator):
    """The kernel one-class SVM (Schölkopf et al., 2001) trained by kernel Pegasos,
    for novelty and outlier detection.

    Minimises ``nu/2 ||w||^2 - nu rho + 1/m sum_i c_i max(0, rho - <w, phi(x_i)>)``
    in the feature space ``phi`` of ``kernel`` (Schölkopf et al.'s objective times
    ``nu``; :class:`sklearn.svm.OneClassSVM`'s, whose LIBSVM dual scales the
    coefficients by ``nu n_samples``). With ``b = 1 - rho`` it is the two-class
    hinge of rows all labelled positive with ``alpha = nu``: each step draws a row
    and, when its score falls below ``rho``, adds ``c_i / k`` to its coefficient;
    the bias takes the two-class step and drifts by ``-1/t``, and after every pass
    it is set to the ``nu``-quantile of the iterate's scores (the derivation is in
    the user guide's "Losses and problems"). The returned model's offset
    ``offset_`` is solved exactly: the ``nu``-quantile of its scores on the
    training rows, computed as :meth:`score_samples` computes them. So the
    nu-property holds on the training rows by construction: at most a fraction
    ``nu`` of them (by weight) have a negative decision value, at least ``nu`` a
    value of at most 0. A row is an inlier (``predict`` 1) when
    ``decision_function >= 0``, else an outlier (-1).

    A step costs a kernel row against the support set (the rows whose score ever
    fell below ``rho`` when drawn) or, once the margins are kept (``strategy``), a
    kernel column per such row.

    Parameters
    ----------
    nu : float, default=0.5
        An upper bound on the fraction of training rows taken as outliers and a
        lower bound on the fraction at or outside the boundary, in (0, 1]; the
        regularisation strength of the steps ``1/(nu t)``.
    kernel : {"linear", "rbf", "poly", "sigmoid", "chi2", "intersection", \
"precomputed"}, default="rbf"
        Kernel, as for :class:`KernelPegasosClassifier`.
    gamma : {"scale", "auto"} or float, default="scale"
        Kernel coefficient of rbf, poly, sigmoid and chi2. ``"scale"``:
        ``1 / (n_features * X.var())``; ``"auto"``: ``1 / n_features``.
    degree : int, default=3
        Degree of the poly kernel.
    coef0 : float, default=0.0
        Constant term of the poly and sigmoid kernels.
    max_iter : int, default=10
        Number of passes; a pass is ``ceil(n_samples / batch_size)`` steps.
    batch_size : int, default=1
        Rows per step (the paper's k); all k scores use the same iterate.
    fit_intercept : bool, default=True
        Learn the offset ``rho``; ``False`` keeps ``rho = 1`` (``offset_`` 1).
    average : bool or "auto", default="auto"
        Return the average of the iterates of the last half of the steps (suffix
        averaging) instead of the last iterate, as :class:`KernelPegasosClassifier`
        (``"auto"``: averaged without a budget, the last iterate with one).
    sampling : {"uniform", "shuffle"} or array-like of int, default="uniform"
        How the rows of each step are drawn: with replacement, each pass a new
        permutation, or a visiting order (row indices, cycled).
    cache_size : float, default=200
        Kernel cache in megabytes. It changes speed, never the result.
    strategy : {"auto", "margins", "support"}, default="auto"
        How the scores during training are evaluated, as for
        :class:`KernelPegasosClassifier`.
    {budget}
    {random_state}
    n_jobs : int or None, default=None
        Threads for the kernel columns and for scoring (-1: all cores).
    verbose : int, default=0
        Report to :data:`sys.stderr`: a line after every pass, and during a pass a
        progress line every few seconds; scoring reports its progress too.

    Attributes
    ----------
    support_ : ndarray of shape (n_SV,)
        Indices of the support vectors (the rows with a coefficient) in the
        training set.
    support_vectors_ : ndarray or sparse matrix of shape (n_SV, n_features)
        The support vectors (sparse when the training data was sparse; empty for a
        precomputed kernel).
    dual_coef_ : ndarray of shape (1, n_SV)
        ``a_i / (nu T)`` of each support vector, positive, summing to about 1 (the
        dual's convex combination; ``OneClassSVM``'s divided by ``nu n_samples``).
    intercept_ : ndarray of shape (1,)
        ``-rho``.
    offset_ : ndarray of shape (1,)
        ``rho``: ``decision_function(X) = score_samples(X) - offset_``.
    n_support_ : ndarray of shape (1,)
        Number of support vectors.
    shape_fit_ : tuple of int
        Shape of the training data (for a precomputed kernel, its Gram matrix).
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (``n_features_in_``,)
        Names of the columns of a data frame ``X``, when they are all strings.
    n_iter_ : int
        Passes run.
    t_ : int
        Steps taken.
    fit_report_ : list of one dict
        The strategy used at the end, steps, kernel values computed, cache hits and
        misses, the objective above for the last iterate (``"margins"`` strategy
        only) and ``"switched_at"``, as :class:`KernelPegasosClassifier`'s.

    Notes
    -----
    {notes_threads}
    """

    #: What a model file holds (pegasos_rs.io.model_io reads only this declaration).
    _saved_state = _kernel_expansion.saved_state(
        (
            "support_",
            "support_vectors_",
            "dual_coef_",
            "intercept_",
            "offset_",
            "n_support_",
            "shape_fit_",
            "_sv_kernel_rows",
        ),
        fitted="support_",
    )

    _parameter_constraints: dict = {  # noqa: RUF012 (scikit-learn convention)
        **_SHARED,
        "nu": [Interval(Real, 0.0, 1.0, closed="right")],
        "sampling": [StrOptions({"uniform", "shuffle"}), "array-like"],
    }

    def __init__(
        self,
        *,
        nu: Float = 0.5,
        kernel: KernelName = "rbf",
        gamma: Literal["scale", "auto"] | Float = "scale",
        degree: Int = 3,
        coef0: Float = 0.0,
        max_iter: Int = 10,
        batch_size: Int = 1,
        fit_intercept: bool = True,
        average: bool | Literal["auto"] = "auto",
        sampling: Literal["uniform", "shuffle"] | Sequence[Int] | NDArray[np.integer[Any]] = (
            "uniform"
        ),
        cache_size: Float = 200,
        strategy: Literal["auto", "margins", "support"] = "auto",
        budget: Int | None = None,
        budget_maintenance: Literal["merge", "remove", "project"] = "merge",
        random_state: RandomStateLike = None,
        n_jobs: Int | None = None,
        verbose: Int = 0,
    ) -> None:
        self.nu = nu
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.max_iter = max_iter
        self.batch_size = batch_size
        self.fit_intercept = fit_intercept
        self.average = average
        self.sampling = sampling
        self.cache_size = cache_size
        self.strategy = strategy
        self.budget = budget
        self.budget_maintenance = budget_maintenance
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.verbose = verbose

    def _solver_fields(self):
        """The two-class solver's settings read ``alpha``: here ``nu``."""
        return nu_solver_fields(self)

    @unchanged_on_error
    @fit_context(prefer_skip_nested_validation=True)
    @reported("steps")
    def fit(self, X: MatrixLike, y: Any = None, sample_weight: ArrayLike | None = None) -> Self:
        """Train for ``max_iter`` passes from scratch, then place the offset.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features), or \
(n_samples, n_samples) for a precomputed kernel
        y : Ignored
            Not used, present for API consistency by convention.
        sample_weight : array-like of shape (n_samples,), default=None
            Per-row weights ``c_i``.

        Returns
        -------
        self
        """
        X, _ = self._training_matrix(X)
        weights = sample_weight_vector(sample_weight, X)
        gamma = resolve_gamma(self.kernel, self.gamma, X)
        Xk = self._kernel_rows(X)
        params = self._kernel_params(gamma, "hinge")
        params["solver"]["one_class"] = True
        params["multi_class"] = "ovr"
        n = X.shape[0]
        labels = {"n_classes": 2, "class_weight": np.ones(2), "sample_weight": weights}
        codes = np.ones(n, dtype=np.uint32)
        threads = n_threads(self.n_jobs)
        self._gamma = gamma
        if self.budget is not None:
            self._check_budget()
            budget, how = int(self.budget), self.budget_maintenance
            result = _core.fit_kernel_budget(
                as_rust_matrix(Xk), codes, labels, params, threads, budget, how
            )
            self._store_budget(X.shape, sp.issparse(X), result)
        else:
            result = _core.fit_kernel(as_rust_matrix(Xk), codes, labels, params, threads, 0)
            self._store_expansion(X, Xk, result)
        self.n_support_ = np.array([self.support_.size], dtype=np.int32)
        # The offset, exact for the returned model: the nu-quantile of its scores on
        # the training rows, computed as score_samples computes them.
        if self.fit_intercept:
            rho = _core.one_class_offset(self._scores(X), weights, float(self.nu))
        else:
            rho = 1.0
        self.intercept_ = np.array([-rho])
        self.offset_ = np.array([rho])
        return self

    def _scores(self, X: MatrixLike) -> NDArray[np.float64]:
        """``sum_i dual_coef_[0, i] K(support_vectors_[i], x)`` of each row."""
        return self._expansion(X, intercept=np.zeros(1))

    @reported("rows")
    def score_samples(self, X: MatrixLike) -> NDArray[np.float64]:
        """``sum_i dual_coef_[0, i] K(support_vectors_[i], x)``: the higher, the more
        normal.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features), or \
(n_samples, n_samples_fit) for a precomputed kernel

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        return self._scores(X)

    def decision_function(self, X: MatrixLike) -> NDArray[np.float64]:
        """``score_samples(X) - offset_``: positive for inliers, negative for
        outliers."""
        return self.score_samples(X) - self.offset_[0]

    def predict(self, X: MatrixLike) -> NDArray[np.int64]:
        """1 for inliers (``decision_function >= 0``), -1 for outliers."""
        return np.where(self.decision_function(X) >= 0, 1, -1)

    def save(self, path: PathLike) -> None:
        """Write the fitted model to ``path`` in pegasos-rs' portable format (see
        :mod:`pegasos_rs.io.model_io`); read it back with :func:`pegasos_rs.load`."""
        save(self, path)
