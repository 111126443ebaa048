"""Kernel Pegasos as a scikit-learn regressor: support vector regression."""

from __future__ import annotations

from numbers import Real
from typing import TYPE_CHECKING, Any

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.utils._param_validation import Interval, StrOptions

from pegasos_rs import _core, _kernel_expansion
from pegasos_rs._base import CachedParamNames, R2Score, unchanged_on_error
from pegasos_rs._docs import filled
from pegasos_rs._kernel_expansion import KernelExpansionMixin
from pegasos_rs._progress import reported
from pegasos_rs._registry import persisted
from pegasos_rs._typing import fit_context
from pegasos_rs._validation import (
    as_rust_matrix,
    buffer,
    n_threads,
    resolve_gamma,
    sample_weight_vector,
)
from pegasos_rs.io.model_io import save

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


@persisted
@filled
class KernelPegasosRegressor(
    KernelExpansionMixin, CachedParamNames, R2Score, RegressorMixin, BaseEstimator
):
    """Support vector regression with a kernel, trained by kernelized Pegasos.

    Minimises ``alpha/2 ||w||^2 + 1/m sum_i c_i l(<w, phi(x_i)> + b, y_i)`` in the
    feature space of ``kernel``, with ``l`` the epsilon-insensitive loss
    ``max(0, |f(x) - y| - epsilon)`` by default: LIBSVM's epsilon-SVR
    (``svm-train -s 3``) and :class:`sklearn.svm.SVR`'s objective with
    ``C = 1/(alpha n_samples)`` (``c_i`` the sample weights). Each step draws an
    example and, when its prediction lies outside the tube, adds
    ``c_i sign(y_i - f(x_i)) / k`` to its coefficient ``a_i`` (and the same over
    ``alpha t`` to the bias); after ``T`` steps the model is
    ``f(x) = 1/(alpha T) sum_i a_i K(x_i, x) + b``, a sum over the support vectors
    (``a_i != 0``): the examples that stayed inside the tube whenever drawn are
    not in it. A step costs a kernel row against the support set or, once the
    margins are kept (``strategy``), a kernel column per example outside the tube:
    a wide tube (large ``epsilon``) makes a model with fewer support vectors and a
    faster fit.

    Parameters
    ----------
    alpha : float, default=1e-4
        Regularisation strength, the paper's lambda; ``C = 1/(alpha n_samples)``.
        Pegasos' steps are ``1/(alpha t)``: the smaller ``alpha`` (the larger
        ``C``), the more passes the model needs (its error after ``T`` steps shrinks
        as ``1/(alpha T)``).
    loss : {"epsilon_insensitive", "squared_epsilon_insensitive", "squared_error", \
"huber"}, default="epsilon_insensitive"
        The loss of the residual ``r = f(x) - y`` (scikit-learn's ``SGDRegressor``
        names). ``"epsilon_insensitive"``: ``max(0, |r| - epsilon)``, epsilon-SVR.
        ``"squared_epsilon_insensitive"``: ``max(0, |r| - epsilon)**2``, the L2-loss
        SVR (LIBLINEAR's ``-s 11`` objective, with a kernel); its slope grows with
        the residual, so the run starts at step
        ``t0 = ceil(2 max_i c_i (K(x_i, x_i) + e) / alpha)`` instead of 1 (``e`` = 1
        with ``fit_intercept``, else 0), where every step is stable; ``t_`` counts
        from ``t0``. ``"squared_error"`` and ``"huber"`` are refused: their slope is
        never zero, so every example drawn would become a support vector; map the
        data explicitly and train the linear solver instead, for example
        ``make_pipeline(Nystroem(), PegasosRegressor(loss="squared_error"))``.
    epsilon : float, default=0.1
        Width of the tube in which errors cost nothing, in the units of ``y``
        (``SVR``'s ``epsilon``).
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
        Examples per step (the paper's k); all k predictions use the same iterate.
    fit_intercept : bool, default=True
        Learn the unregularised bias ``b`` (step ``1/(alpha t)``), as ``SVR``
        always does. Unlike :class:`KernelPegasosClassifier` the default is on:
        targets are rarely centred, and without a bias the kernel expansion must
        carry their mean.
    average : bool or "auto", default="auto"
        Return the average of the iterates of the last half of the steps (suffix
        averaging) instead of the last iterate, as for
        :class:`KernelPegasosClassifier` (``"auto"``: averaged without a budget,
        the last iterate with one).
    sampling : {"uniform", "shuffle"} or array-like of int, default="uniform"
        How the examples of each step are drawn: with replacement, each pass a
        new permutation, or a visiting order (row indices, cycled).
    cache_size : float, default=200
        Kernel cache in megabytes. It changes speed, never the result.
    strategy : {"auto", "margins", "support"}, default="auto"
        How predictions during training are evaluated, as for
        :class:`KernelPegasosClassifier` (``"margins"`` keeps the prediction of
        every training example up to date). ``"auto"`` keeps the margin vector on
        small fits (``n_samples**2 * max_iter`` below 10**6, for the objective in
        ``fit_report_``) and the support set otherwise: unlike a classifier's
        margin violations, most examples stay outside the tube, and a kernel
        column per violation costs more than a row against the support set (it
        was slower on cpusmall and abalone).
    tol : float or None, default=None
        With ``early_stopping``: the improvement of the held-out R^2 that counts
        (None: 1e-3). Not used otherwise (the kernel solver runs its passes).
    n_iter_no_change : int, default=5
        With ``early_stopping``: passes without improvement tolerated.
    {early_stopping}
    {budget}
    {random_state}
    n_jobs : int or None, default=None
        Threads for the kernel columns and for prediction (-1: all cores).
    verbose : int, default=0
        Report to :data:`sys.stderr`: a line after every pass, and during a pass
        a progress line every few seconds; prediction reports its progress too.

    Attributes
    ----------
    support_ : ndarray of shape (n_SV,)
        Indices of the support vectors in the training set.
    support_vectors_ : ndarray or sparse matrix of shape (n_SV, n_features)
        The support vectors (sparse when the training data was sparse; empty for a
        precomputed kernel).
    dual_coef_ : ndarray of shape (1, n_SV)
        ``a_i / (alpha T)`` of each support vector: LIBSVM's and ``SVR``'s
        ``alpha_i - alpha_i^*`` (positive where the model was pulled up).
    intercept_ : ndarray of shape (1,)
        The bias (0 without ``fit_intercept``).
    n_support_ : ndarray of shape (1,)
        Number of support vectors.
    shape_fit_ : tuple of int
        Shape of the training data (for a precomputed kernel, its Gram matrix), as
        :class:`sklearn.svm.SVR`'s.
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (``n_features_in_``,)
        Names of the columns of a data frame ``X``, when they are all strings.
    n_iter_ : int
        Passes run (``max_iter``, or fewer with ``early_stopping``).
    t_ : int
        Steps taken.
    fit_report_ : list of one dict
        The strategy used at the end (``"strategy"``), steps, kernel values
        computed, cache hits and misses, the primal objective of the last iterate
        (``"margins"`` strategy only) and ``"switched_at"``, as
        :class:`KernelPegasosClassifier`'s.
    {validation_scores}

    Notes
    -----
    {notes_threads}
    """

    #: What a model file holds (pegasos_rs.io.model_io reads only this declaration):
    #: the fitted arrays, counts, resolved gamma and ``fit_report_``.
    _saved_state = _kernel_expansion.saved_state(
        (
            "support_",
            "support_vectors_",
            "dual_coef_",
            "intercept_",
            "n_support_",
            "shape_fit_",
            "_sv_kernel_rows",
        ),
        fitted="support_",
    )

    _parameter_constraints: dict = {  # noqa: RUF012 (scikit-learn convention)
        **_kernel_expansion.PARAMETER_CONSTRAINTS,
        # squared_error and huber are refused by fit, with the reason and what to
        # use instead.
        "loss": [
            StrOptions(
                {"epsilon_insensitive", "squared_epsilon_insensitive", "squared_error", "huber"}
            )
        ],
        "epsilon": [Interval(Real, 0, None, closed="left")],
        "sampling": [StrOptions({"uniform", "shuffle"}), "array-like"],
    }

    def __init__(
        self,
        *,
        alpha: Float = 1e-4,
        loss: Literal[
            "epsilon_insensitive", "squared_epsilon_insensitive", "squared_error", "huber"
        ] = "epsilon_insensitive",
        epsilon: Float = 0.1,
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
        tol: Float | None = None,
        n_iter_no_change: Int = 5,
        early_stopping: bool = False,
        validation_fraction: Float = 0.1,
        budget: Int | None = None,
        budget_maintenance: Literal["merge", "remove", "project"] = "merge",
        random_state: RandomStateLike = None,
        n_jobs: Int | None = None,
        verbose: Int = 0,
    ) -> None:
        self.alpha = alpha
        self.loss = loss
        self.epsilon = epsilon
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
        self.tol = tol
        self.n_iter_no_change = n_iter_no_change
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.budget = budget
        self.budget_maintenance = budget_maintenance
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.verbose = verbose

    @unchanged_on_error
    @fit_context(prefer_skip_nested_validation=True)
    @reported("steps")
    def fit(self, X: MatrixLike, y: ArrayLike, sample_weight: ArrayLike | None = None) -> Self:
        """Train for ``max_iter`` passes from scratch.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features), or \
(n_samples, n_samples) for a precomputed kernel
        y : array-like of shape (n_samples,)
            Real targets, finite.
        sample_weight : array-like of shape (n_samples,), default=None
            Per-example weights ``c_i`` (``SVR``'s per-sample scaling of ``C``).

        Returns
        -------
        self
        """
        _refuse_labels(type(self).__name__, y)
        X, y = self._training_matrix(X, y, y_numeric=True)
        targets = buffer(np.asarray(y, dtype=np.float64))
        weights = sample_weight_vector(sample_weight, X)
        gamma = resolve_gamma(self.kernel, self.gamma, X)
        if self.budget is not None:
            self._check_budget()
            result = _core.fit_kernel_budget_regression(
                as_rust_matrix(self._kernel_rows(X)),
                targets,
                weights,
                self._kernel_params(gamma, self.loss, self.epsilon),
                int(self.budget),
                self.budget_maintenance,
            )
            self._gamma = gamma
            self._store_budget(X.shape, sp.issparse(X), result)
            self.n_support_ = np.array([self.support_.size], dtype=np.int32)
            return self
        rows, targets, weights, order, n_held = self._hold_out(X, targets, weights, None)
        Xk = self._kernel_rows(rows)
        result = _core.fit_kernel_regression(
            as_rust_matrix(Xk),
            buffer(targets),
            weights,
            self._kernel_params(gamma, self.loss, self.epsilon),
            n_threads(self.n_jobs),
            n_held,
        )
        self._gamma = gamma
        support = self._store_expansion(rows, Xk, result, order)
        self.n_support_ = np.array([support.size], dtype=np.int32)
        return self

    @reported("rows")
    def predict(self, X: MatrixLike) -> NDArray[np.float64]:
        """Predicted targets: ``sum_i dual_coef_[0, i] K(support_vectors_[i], x) +
        intercept_[0]``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features), or \
(n_samples, n_samples_fit) for a precomputed kernel

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        return self._expansion(X)

    def save(self, path: PathLike) -> None:
        """Write the fitted model to ``path`` in pegasos-rs' portable format (see
        :mod:`pegasos_rs.io.model_io`); read it back with :func:`pegasos_rs.load`."""
        save(self, path)


def _refuse_labels(name: str, y: Any) -> None:
    """``ValueError`` for targets that are text (class labels, most likely), with
    what to use instead; numbers pass (scikit-learn's checks follow)."""
    if y is None:
        return
    try:
        values = np.asarray(y)
    except (ValueError, TypeError):
        return  # ragged: scikit-learn's checks say what is wrong
    if values.dtype.kind in "USO":
        text = next((v for v in values.flat if isinstance(v, (str, bytes, np.str_))), None)
        if text is not None:
            raise ValueError(
                f"{name} needs real-valued targets, but y holds text such as {str(text)!r}: "
                "class labels? KernelPegasosClassifier predicts classes"
            )
