"""Linear Pegasos on real targets, as a scikit-learn regressor: support vector
regression (LIBLINEAR's ``-s 11``, ``-s 12``/``13``), least squares and Huber's
loss."""

from __future__ import annotations

from numbers import Integral, Real
from typing import TYPE_CHECKING, Any

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from pegasos_rs import _core, _early_stopping, _linear_solver
from pegasos_rs._base import CachedParamNames, R2Score, unchanged_on_error, warn_unconverged
from pegasos_rs._docs import filled
from pegasos_rs._progress import reported
from pegasos_rs._registry import persisted
from pegasos_rs._typing import fit_context
from pegasos_rs._unchecked import check_width, record_width, unchecked_matrix
from pegasos_rs._validation import (
    INPUT_CHECKS,
    as_rust_matrix,
    buffer,
    n_threads,
    sample_weight_vector,
    validate_input,
)
from pegasos_rs.io import _model_file
from pegasos_rs.io.model_io import save

if TYPE_CHECKING:
    from typing import Literal

    from numpy.typing import ArrayLike, NDArray
    from typing_extensions import Self

    from pegasos_rs._typing import Float, Int, MatrixLike, PathLike, RandomStateLike

#: The regressor's losses (scikit-learn's ``SGDRegressor`` names).
REGRESSION_LOSSES = (
    "epsilon_insensitive",
    "squared_epsilon_insensitive",
    "squared_error",
    "huber",
)


def regression_targets(name: str, y) -> NDArray[Any]:
    """``y`` as numbers (strings that spell numbers converted to ``float64``);
    ``ValueError`` naming the problem for labels that are not numbers (classes are
    for a classifier) and for complex values."""
    y = np.asarray(y)
    if y.dtype.kind == "c":
        raise ValueError("Complex data not supported: regression targets must be real")
    if y.dtype.kind in "OUS":
        try:
            return y.astype(np.float64)
        except (TypeError, ValueError):
            raise ValueError(
                f"{name} needs numeric targets, but y holds {y.dtype} values such as "
                f"{y.ravel()[:3].tolist()}: these look like class labels; use "
                "PegasosClassifier for classes"
            ) from None
    return y


@persisted
@filled
class PegasosRegressor(CachedParamNames, R2Score, RegressorMixin, BaseEstimator):
    """Linear regression trained by Pegasos: support vector regression by default.

    Minimises ``alpha/2 ||w||^2 + 1/m sum_i c_i L(<w, x_i> + b - y_i)`` with steps of
    size ``1/(alpha t)`` on mini-batches of ``batch_size`` examples, in
    ``O(nonzeros)`` per step (Shalev-Shwartz et al., "Pegasos", section 5: any
    convex loss). Each step adds only the examples whose loss has a slope: for the
    epsilon-insensitive losses, those outside the tube ``|p - y| <= epsilon``.

    Parameters
    ----------
    loss : {"epsilon_insensitive", "squared_epsilon_insensitive", "squared_error", \
"huber"}, default="epsilon_insensitive"
        The loss ``L`` of the residual ``r``, with scikit-learn's ``SGDRegressor``
        names: ``"epsilon_insensitive"`` ``max(0, |r| - epsilon)``, the SVR
        (LIBLINEAR ``-s 12``/``-s 13``, LIBSVM's epsilon-SVR with a linear kernel);
        ``"squared_epsilon_insensitive"`` ``max(0, |r| - epsilon)^2``, the L2-loss
        SVR (LIBLINEAR ``-s 11``); ``"squared_error"`` ``r^2 / 2``, ridge regression;
        ``"huber"`` ``r^2 / 2`` up to ``|r| = epsilon``, linear beyond. The squared
        losses, whose slope is unbounded, start their steps at ``t0 = ceil(kappa
        max_i c_i (||x_i||^2 + 1) / alpha)`` (``kappa`` 2, or 1 for
        ``squared_error``) rather than 1, so that every step is stable, the longest
        row's too (see the user guide's "Losses and problems").
    epsilon : float, default=0.1
        Width of the insensitive tube (LIBLINEAR's ``-p``), or where Huber's loss
        turns linear.
    alpha : float, default=1e-4
        Regularisation strength, the paper's lambda. LIBLINEAR's ``C`` is
        ``1 / (alpha * n_samples)``.
    max_iter : int, default=20
        Number of passes over the data; a pass is ``ceil(n_samples / batch_size)``
        steps (with ``tol`` it may stop earlier).
    max_steps : int or None, default=None
        If set, each ``fit`` runs exactly this many steps instead of ``max_iter``
        passes.
    batch_size : int, default=1
        Examples per step (the paper's k).
    projection : bool, default=True
        Project ``w`` onto the ball of radius ``sqrt(2 L0 / alpha)``, ``L0 = 1/m
        sum_i c_i L(-y_i)`` the objective at ``w = 0``, which holds the optimum.
    fit_intercept : bool, default=True
        Learn an intercept.
    intercept_scaling : float or None, default=1.0
        A float ``B``: a constant feature ``B`` whose weight is regularised and
        projected like the others (LIBLINEAR's ``-B``, ``intercept_ = B * w_B``).
        ``None``: an unregularised bias updated with the same step.
    average : bool or int, default=True
        ``True``: the average of the iterates of the last half of the steps of each
        fit (with ``partial_fit``, of all iterates weighted by their step number);
        ``False``: the last iterate; an int ``n``: the mean of the iterates from the
        moment ``n`` samples have been seen.
    sampling : {"uniform", "shuffle"} or array-like of int, default="uniform"
        ``"uniform"``: i.i.d. draws with replacement (the paper). ``"shuffle"``: a
        new permutation every pass. An array of row indices: visit the rows in that
        order, cyclically.
    tol : float or None, default=None
        If set, the primal objective is evaluated after every pass and training
        stops once it has not decreased by more than ``tol * objective`` for
        ``n_iter_no_change`` passes. Without it, a fit of two passes or more
        measures how much its last pass lowered the objective (on up to 4096
        rows) and issues a ``ConvergenceWarning`` above 5 % (the user guide's
        "Whether the passes were enough").
    n_iter_no_change : int, default=5
        Passes without improvement tolerated when ``tol`` is set, or with
        ``early_stopping``.
    {early_stopping}
    warm_start : bool, default=False
        Continue from the previous fit's complete solver state: ``fit`` for ``p``
        passes then ``q`` more equals ``p + q`` passes at once, bit for bit (with
        ``average`` False or int).
    {random_state}
    n_jobs : int or None, default=None
        Threads for prediction (-1: all cores); a fit is one problem, one thread.
    verbose : int, default=0
        Report the primal objective after every pass, and progress during a pass,
        to :data:`sys.stderr`.

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
    intercept_ : ndarray of shape (1,)
    n_features_in_ : int
    n_iter_ : int
        Passes run by the last call.
    t_ : int
        The step counter ``t`` of the schedule ``1/(alpha t)`` after the last step:
        the steps taken so far, plus ``t0 - 1`` for the squared losses.
    objective_ : float or None
        Primal objective after the last pass, when computed (``tol`` or
        ``verbose`` set).
    {validation_scores}
    """

    #: What a model file holds (pegasos_rs.io.model_io reads only this declaration):
    #: the fitted arrays, counts and the exact solver state.
    _saved_state = _model_file.SavedState(
        arrays=("coef_", "intercept_", "objective_"),
        scalars=_linear_solver.LINEAR_SCALARS,
        solver="_solver",
        fitted="coef_",
        optional=("objective_",),
        check=_linear_solver.check_single_solver,
    )
    _solver: _core.LinearSolverState

    _parameter_constraints: dict = {  # noqa: RUF012 (scikit-learn convention)
        "loss": [StrOptions(set(REGRESSION_LOSSES))],
        "epsilon": [Interval(Real, 0, None, closed="left")],
        "alpha": [Interval(Real, 0, None, closed="neither")],
        "max_iter": [Interval(Integral, 1, 2**32 - 1, closed="both")],
        "max_steps": [None, Interval(Integral, 1, 2**63 - 1, closed="both")],
        "batch_size": [Interval(Integral, 1, None, closed="left")],
        "projection": ["boolean"],
        "fit_intercept": ["boolean"],
        "intercept_scaling": [None, Interval(Real, 0, None, closed="neither")],
        "average": ["boolean", Interval(Integral, 1, None, closed="left")],
        "sampling": [StrOptions({"uniform", "shuffle"}), "array-like"],
        "tol": [None, Interval(Real, 0, None, closed="left")],
        "n_iter_no_change": [Interval(Integral, 1, None, closed="left")],
        **_early_stopping.constraints(),
        "warm_start": ["boolean"],
        "random_state": ["random_state"],
        "n_jobs": [None, Integral],
        "verbose": ["verbose"],
    }

    def __init__(
        self,
        *,
        loss: Literal[
            "epsilon_insensitive", "squared_epsilon_insensitive", "squared_error", "huber"
        ] = "epsilon_insensitive",
        epsilon: Float = 0.1,
        alpha: Float = 1e-4,
        max_iter: Int = 20,
        max_steps: Int | None = None,
        batch_size: Int = 1,
        projection: bool = True,
        fit_intercept: bool = True,
        intercept_scaling: Float | None = 1.0,
        average: bool | Int = True,
        sampling: Literal["uniform", "shuffle"] | ArrayLike = "uniform",
        tol: Float | None = None,
        n_iter_no_change: Int = 5,
        early_stopping: bool = False,
        validation_fraction: Float = 0.1,
        warm_start: bool = False,
        random_state: RandomStateLike = None,
        n_jobs: Int | None = None,
        verbose: Int = 0,
    ) -> None:
        self.loss = loss
        self.epsilon = epsilon
        self.alpha = alpha
        self.max_iter = max_iter
        self.max_steps = max_steps
        self.batch_size = batch_size
        self.projection = projection
        self.fit_intercept = fit_intercept
        self.intercept_scaling = intercept_scaling
        self.average = average
        self.sampling = sampling
        self.tol = tol
        self.n_iter_no_change = n_iter_no_change
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.warm_start = warm_start
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.verbose = verbose

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags

    @unchanged_on_error
    @fit_context(prefer_skip_nested_validation=True)
    def fit(
        self,
        X: MatrixLike,
        y: ArrayLike,
        sample_weight: ArrayLike | None = None,
        *,
        check_input: bool = True,
    ) -> Self:
        """Train for ``max_iter`` passes (continuing the last fit if ``warm_start``).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            CSR float32/float64 (int32 or int64 indices) and C-ordered dense arrays
            are read in place; other inputs are converted once.
        y : array-like of shape (n_samples,)
            Real targets.
        sample_weight : array-like of shape (n_samples,), default=None
        check_input : bool, default=True
            ``False`` skips the pass over the whole of ``X`` before training, as
            :meth:`PegasosClassifier.fit` does: ``X`` must already be a CSR matrix
            or C-contiguous array of float32/float64 (else ``TypeError``), and each
            row the solver reads is checked just before it is used. The targets are
            still checked (finite), in one pass.

        Returns
        -------
        self
        """
        resume = bool(self.warm_start) and hasattr(self, "_solver")
        if not check_input:
            return self._fit_unchecked(X, y, sample_weight, resume)
        return self._fit(X, y, sample_weight, resume, self.max_iter, self.max_steps)

    @unchanged_on_error
    def partial_fit(
        self, X: MatrixLike, y: ArrayLike, sample_weight: ArrayLike | None = None
    ) -> Self:
        """One pass over ``(X, y)``, continuing from the current solver state. The
        parameters are validated on every call, as by ``fit``."""
        self._validate_params()
        resume = hasattr(self, "_solver")
        return self._fit(X, y, sample_weight, resume, 1, None, partial=True)

    @reported("steps", "fit")
    def _fit(self, X, y, sample_weight, resume, max_iter, max_steps, partial=False):
        y = regression_targets(type(self).__name__, y)
        X, y = validate_input(self, X, y, reset=not resume, y_numeric=True, **INPUT_CHECKS)
        sample_weight = sample_weight_vector(sample_weight, X)
        params = _linear_solver.linear_solver_params(
            self, resume, max_iter, max_steps, partial=partial
        )
        rows, n_held = X, 0
        if _early_stopping.check_early_stopping(self, partial=partial):
            order, n_held = _early_stopping.held_out_order(self, None, X.shape[0], sample_weight)
            rows, y, sample_weight = _early_stopping.reorder(order, X, y, sample_weight)
        unconverged = self._train(as_rust_matrix(rows), y, sample_weight, resume, params, n_held)
        warn_unconverged(unconverged, not partial and max_steps is None)
        return self

    @reported("steps", "fit")
    def _fit_unchecked(self, X, y, sample_weight, resume):
        _early_stopping.check_early_stopping(self, unchecked=True)
        matrix, (n_rows, n_features) = unchecked_matrix(X)
        check_width(self, n_features, resume)
        y = regression_targets(type(self).__name__, y)
        if y.ndim != 1 or y.shape[0] != n_rows:
            raise ValueError(f"y must be 1-d with one target per row of X ({n_rows})")
        y = y.astype(np.float64, copy=False)
        sample_weight = sample_weight_vector(sample_weight, X)
        params = _linear_solver.linear_solver_params(self, resume, self.max_iter, self.max_steps)
        params["check_input"] = False
        unconverged = self._train(matrix, y, sample_weight, resume, params)
        warn_unconverged(unconverged, self.max_steps is None)
        record_width(self, n_features, resume)
        return self

    def _train(
        self, matrix, y, sample_weight, resume: bool, params: dict, n_held_out: int = 0
    ) -> str | None:
        """Run the extension, then set the fitted attributes and the solver state
        (only now: a failed call changes nothing); the last ``n_held_out`` rows are
        held out (early stopping). Returns the text of the ``ConvergenceWarning`` to
        issue, if any (``_linear_solver.store_fit``)."""
        solver = self._solver if resume else _core.LinearSolverState()
        result = _core.fit_linear_regression(
            matrix, buffer(y, np.float64), sample_weight, solver, params, n_held_out
        )
        return self._store_fit(result, solver)

    def _store_fit(self, result: dict, solver: _core.LinearSolverState) -> str | None:
        """Set the fitted attributes from what the extension returns for one
        problem, and the solver state; returns ``_linear_solver.store_fit``'s
        message (``pegasos_rs.dask.PegasosRegressor`` stores its fits here too)."""
        unconverged = _linear_solver.store_fit(self, result)
        self.coef_ = result["coef"][0]
        objective = result["objective"][0]
        self.objective_ = None if objective is None else float(objective)
        self._solver = solver
        return unconverged

    def predict(self, X: MatrixLike) -> NDArray[np.float64]:
        """Predicted targets ``X coef_ + intercept_``, shape (n_samples,)."""
        check_is_fitted(self)
        X = validate_input(self, X, reset=False, **INPUT_CHECKS)
        values = _core.decision_function(
            as_rust_matrix(X),
            buffer(self.coef_.reshape(1, -1), np.float64),
            buffer(self.intercept_, np.float64),
            n_threads(self.n_jobs),
        )
        return values.ravel()

    def save(self, path: PathLike) -> None:
        """Write the fitted model to ``path`` in pegasos-rs' portable format (see
        :mod:`pegasos_rs.io.model_io`); read it back with :func:`pegasos_rs.load`."""
        save(self, path)
