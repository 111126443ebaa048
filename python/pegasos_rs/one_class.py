"""Novelty detection by the linear one-class SVM trained with Pegasos:
:class:`PegasosOneClassSVM`, scikit-learn's ``SGDOneClassSVM`` objective and names."""

from __future__ import annotations

from numbers import Integral, Real
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

import numpy as np
from sklearn.base import BaseEstimator, OutlierMixin
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from pegasos_rs import _core, _linear_solver
from pegasos_rs._base import CachedParamNames, unchanged_on_error, warn_unconverged
from pegasos_rs._docs import filled
from pegasos_rs._fit_inputs import seed_from, solver_params
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


def nu_solver_fields(est) -> SimpleNamespace:
    """What the two-class solver's settings read of a one-class SVM ``est``
    (``solver_params``'s ``alpha``, ``batch_size``, ``fit_intercept``, ``sampling``
    and ``verbose``): its ``alpha`` is ``nu``."""
    return SimpleNamespace(
        alpha=est.nu,
        batch_size=est.batch_size,
        fit_intercept=est.fit_intercept,
        sampling=est.sampling,
        verbose=est.verbose,
    )


@persisted
@filled
class PegasosOneClassSVM(CachedParamNames, OutlierMixin, BaseEstimator):
    """The linear one-class SVM (Schölkopf et al., 2001) trained by Pegasos, for
    novelty and outlier detection.

    Minimises ``nu/2 ||w||^2 - nu rho + 1/m sum_i c_i max(0, rho - <w, x_i>)``
    over ``w`` and the offset ``rho`` (Schölkopf et al.'s objective times ``nu``,
    scikit-learn's ``SGDOneClassSVM``'s), with steps of size ``1/(nu t)`` on
    mini-batches of ``batch_size`` rows in ``O(nonzeros)`` per step. With ``b = 1 -
    rho`` it is the two-class hinge of rows all labelled positive with ``alpha =
    nu``, plus ``nu b``: ``w`` takes Pegasos' step and ``b`` the two-class step of
    the unregularised bias plus a drift of ``-1/t`` per step (the derivation is in
    the user guide's "Losses and problems" and the core's ``solvers::linear``).
    A row is an inlier (``predict`` 1) when ``<w, x> - rho >= 0``, else an outlier
    (-1). The nu-property: at the optimum, at most a fraction ``nu`` of the training
    rows are outliers and at least ``nu`` lie on or outside the boundary (the
    support vectors), up to the optimisation error of the passes run.

    Parameters
    ----------
    nu : float, default=0.5
        An upper bound on the fraction of training rows taken as outliers and a
        lower bound on the fraction of support vectors, in (0, 1]; the
        regularisation strength of the steps ``1/(nu t)``.
    fit_intercept : bool, default=True
        Learn the offset ``rho``; ``False`` keeps ``rho = 1`` (``offset_`` 1).
    max_iter : int, default=20
        Number of passes over the data; a pass is ``ceil(n_samples / batch_size)``
        steps (with ``tol`` it may stop earlier).
    max_steps : int or None, default=None
        If set, each ``fit`` runs exactly this many steps instead of ``max_iter``
        passes.
    batch_size : int, default=1
        Rows per step (the paper's k).
    projection : bool, default=True
        Project ``w`` onto the ball of radius ``max_i ||x_i||`` (over the rows of
        positive weight), which holds the optimum: the dual makes ``w`` a convex
        combination of the rows.
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
        If set, the objective is evaluated after every pass and training stops once
        it has not decreased by more than ``tol * |objective|`` for
        ``n_iter_no_change`` passes. Without it no pass is measured (the
        objective is 0 at ``w = 0`` and about 0 at the optimum on rows around the
        origin, where a relative decrease means nothing) and no
        ``ConvergenceWarning`` is issued.
    n_iter_no_change : int, default=5
        Passes without improvement tolerated when ``tol`` is set.
    warm_start : bool, default=False
        Continue from the previous fit's complete solver state: ``fit`` for ``p``
        passes then ``q`` more equals ``p + q`` passes at once, bit for bit (with
        ``average`` False or int).
    {random_state}
    n_jobs : int or None, default=None
        Threads for scoring (-1: all cores); a fit is one problem, one thread.
    verbose : int, default=0
        Report the objective after every pass, and progress during a pass, to
        :data:`sys.stderr`.

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features)
        ``w``.
    offset_ : ndarray of shape (1,)
        ``rho``: ``decision_function(X) = score_samples(X) - offset_``.
    n_features_in_ : int
    n_iter_ : int
        Passes run by the last call.
    t_ : int
        The step counter ``t`` of the schedule ``1/(nu t)`` after the last step.
    objective_ : float or None
        The objective above after the last pass, when computed (``tol`` or
        ``verbose`` set).
    """

    #: What a model file holds (pegasos_rs.io.model_io reads only this declaration):
    #: the fitted arrays, counts and the exact solver state.
    _saved_state = _model_file.SavedState(
        arrays=("coef_", "offset_", "objective_"),
        scalars=_linear_solver.LINEAR_SCALARS,
        solver="_solver",
        fitted="coef_",
        optional=("objective_",),
        check=_linear_solver.check_single_solver,
    )
    _solver: _core.LinearSolverState

    _parameter_constraints: dict = {  # noqa: RUF012 (scikit-learn convention)
        "nu": [Interval(Real, 0.0, 1.0, closed="right")],
        "fit_intercept": ["boolean"],
        "max_iter": [Interval(Integral, 1, 2**32 - 1, closed="both")],
        "max_steps": [None, Interval(Integral, 1, 2**63 - 1, closed="both")],
        "batch_size": [Interval(Integral, 1, None, closed="left")],
        "projection": ["boolean"],
        "average": ["boolean", Interval(Integral, 1, None, closed="left")],
        "sampling": [StrOptions({"uniform", "shuffle"}), "array-like"],
        "tol": [None, Interval(Real, 0, None, closed="left")],
        "n_iter_no_change": [Interval(Integral, 1, None, closed="left")],
        "warm_start": ["boolean"],
        "random_state": ["random_state"],
        "n_jobs": [None, Integral],
        "verbose": ["verbose"],
    }

    def __init__(
        self,
        *,
        nu: Float = 0.5,
        fit_intercept: bool = True,
        max_iter: Int = 20,
        max_steps: Int | None = None,
        batch_size: Int = 1,
        projection: bool = True,
        average: bool | Int = True,
        sampling: Literal["uniform", "shuffle"] | ArrayLike = "uniform",
        tol: Float | None = None,
        n_iter_no_change: Int = 5,
        warm_start: bool = False,
        random_state: RandomStateLike = None,
        n_jobs: Int | None = None,
        verbose: Int = 0,
    ) -> None:
        self.nu = nu
        self.fit_intercept = fit_intercept
        self.max_iter = max_iter
        self.max_steps = max_steps
        self.batch_size = batch_size
        self.projection = projection
        self.average = average
        self.sampling = sampling
        self.tol = tol
        self.n_iter_no_change = n_iter_no_change
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
        y: Any = None,
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
        y : Ignored
            Not used, present for API consistency by convention.
        sample_weight : array-like of shape (n_samples,), default=None
        check_input : bool, default=True
            ``False`` skips the pass over the whole of ``X`` before training, as
            :meth:`PegasosClassifier.fit` does: ``X`` must already be a CSR matrix
            or C-contiguous array of float32/float64 (else ``TypeError``), and each
            row the solver reads is checked just before it is used.

        Returns
        -------
        self
        """
        resume = bool(self.warm_start) and hasattr(self, "_solver")
        if not check_input:
            return self._fit_unchecked(X, sample_weight, resume)
        return self._fit(X, sample_weight, resume, self.max_iter, self.max_steps)

    @unchanged_on_error
    def partial_fit(
        self, X: MatrixLike, y: Any = None, sample_weight: ArrayLike | None = None
    ) -> Self:
        """One pass over ``X``, continuing from the current solver state. The
        parameters are validated on every call, as by ``fit``."""
        self._validate_params()
        resume = hasattr(self, "_solver")
        return self._fit(X, sample_weight, resume, 1, None, partial=True)

    def _params(self, resume: bool, max_iter: int, max_steps, partial=False) -> dict:
        """The solver's settings: the two-class solver's with ``alpha = nu``, the
        unregularised bias and the one-class step of the bias."""
        average_mode, average_start = _linear_solver.averaging(
            self.average, self.batch_size, partial
        )
        params = solver_params(
            nu_solver_fields(self),
            max_iter=max_iter,
            seed=seed_from(self.random_state) if not resume else 0,
            average=average_mode,
            average_start=average_start,
            projection=self.projection,
            intercept_scaling=None,
            max_steps=max_steps,
            tol=self.tol,
            n_iter_no_change=self.n_iter_no_change,
        )
        return {**params, "loss": {"name": "hinge", "epsilon": 0.0}, "one_class": True}

    @reported("steps", "fit")
    def _fit(self, X, sample_weight, resume, max_iter, max_steps, partial=False):
        X = validate_input(self, X, reset=not resume, **INPUT_CHECKS)
        sample_weight = sample_weight_vector(sample_weight, X)
        params = self._params(resume, max_iter, max_steps, partial=partial)
        unconverged = self._train(as_rust_matrix(X), X.shape[0], sample_weight, resume, params)
        warn_unconverged(unconverged, not partial and max_steps is None)
        return self

    @reported("steps", "fit")
    def _fit_unchecked(self, X, sample_weight, resume):
        matrix, (n_rows, n_features) = unchecked_matrix(X)
        check_width(self, n_features, resume)
        sample_weight = sample_weight_vector(sample_weight, X)
        params = self._params(resume, self.max_iter, self.max_steps)
        params["check_input"] = False
        unconverged = self._train(matrix, n_rows, sample_weight, resume, params)
        warn_unconverged(unconverged, self.max_steps is None)
        record_width(self, n_features, resume)
        return self

    def _train(self, matrix, n_rows: int, sample_weight, resume: bool, params: dict):
        """Run the extension on the rows, all positive, then set the fitted
        attributes and the solver state (only now: a failed call changes nothing).
        Returns the text of the ``ConvergenceWarning`` to issue, if any."""
        solver = self._solver if resume else _core.LinearSolverState()
        result = _core.fit_linear(
            matrix,
            np.ones(n_rows, dtype=np.uint32),
            {"n_classes": 2, "class_weight": np.ones(2), "sample_weight": sample_weight},
            solver,
            params,
            1,
        )
        return self._store(result, solver)

    def _store(self, result: dict, solver: _core.LinearSolverState) -> str | None:
        """Set the fitted attributes and the solver state from what the extension's
        fit returns (its intercept is ``-rho``); returns the text of the
        ``ConvergenceWarning`` to issue, if any."""
        unconverged = _linear_solver.store_fit(self, result)
        # The extension's intercept is -rho (the decision value <w, x> - rho):
        # scikit-learn's offset_ is rho.
        self.offset_ = -np.asarray(self.intercept_, dtype=np.float64)
        del self.intercept_
        objective = result["objective"][0]
        self.objective_ = None if objective is None else float(objective)
        self._solver = solver
        return unconverged

    def score_samples(self, X: MatrixLike) -> NDArray[np.float64]:
        """``<w, x>`` of each row (the higher, the more normal)."""
        check_is_fitted(self)
        X = validate_input(self, X, reset=False, **INPUT_CHECKS)
        values = _core.decision_function(
            as_rust_matrix(X),
            buffer(self.coef_, np.float64),
            np.zeros(1),
            n_threads(self.n_jobs),
        )
        return values.ravel()

    def decision_function(self, X: MatrixLike) -> NDArray[np.float64]:
        """``<w, x> - rho``: positive for inliers, negative for outliers."""
        return self.score_samples(X) - self.offset_[0]

    def predict(self, X: MatrixLike) -> NDArray[np.int64]:
        """1 for inliers (``decision_function >= 0``), -1 for outliers."""
        return np.where(self.decision_function(X) >= 0, 1, -1)

    def save(self, path: PathLike) -> None:
        """Write the fitted model to ``path`` in pegasos-rs' portable format (see
        :mod:`pegasos_rs.io.model_io`); read it back with :func:`pegasos_rs.load`."""
        save(self, path)
