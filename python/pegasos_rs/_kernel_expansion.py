"""What the kernel estimators share: a model that is a sum over support vectors.

:class:`~pegasos_rs.KernelPegasosClassifier` and
:class:`~pegasos_rs.KernelPegasosRegressor` train through the same kernel solver
and predict through the same expansion
``f(x) = sum_i dual_coef_[:, i] K(support_vectors_[i], x) + intercept_``: the kernel
and solver parameters they send the extension, the checks of the training matrix
(a precomputed kernel is square), the fitted attributes of the expansion, and its
decision values are written here once.
"""

from __future__ import annotations

import math
import warnings
from numbers import Integral, Real
from typing import TYPE_CHECKING, Any

import numpy as np
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from pegasos_rs import _core, _early_stopping
from pegasos_rs._fitted import fitted_param
from pegasos_rs._validation import (
    INPUT_CHECKS,
    KERNELS,
    PRECOMPUTED_CHECKS,
    as_rust_matrix,
    buffer,
    kernel_view,
    n_threads,
    seed_from,
    solver_params,
    validate_input,
)
from pegasos_rs.io import _model_file

if TYPE_CHECKING:
    from numpy.typing import NDArray

    from pegasos_rs._typing import Float, Int, MatrixLike, RandomStateLike

#: The parameter constraints both kernel estimators have (scikit-learn's
#: ``_parameter_constraints``); each adds its own.
PARAMETER_CONSTRAINTS: dict[str, list[Any]] = {
    "alpha": [Interval(Real, 0, None, closed="neither")],
    "kernel": [StrOptions(set(KERNELS))],
    "gamma": [StrOptions({"scale", "auto"}), Interval(Real, 0, None, closed="neither")],
    "degree": [Interval(Integral, 1, 2**32 - 1, closed="both")],
    "coef0": [Interval(Real, None, None, closed="neither")],
    "max_iter": [Interval(Integral, 1, 2**32 - 1, closed="both")],
    "batch_size": [Interval(Integral, 1, 2**63 - 1, closed="both")],
    "fit_intercept": ["boolean"],
    "average": ["boolean", StrOptions({"auto"})],
    "cache_size": [Interval(Real, 0, None, closed="left")],
    "strategy": [StrOptions({"auto", "margins", "support"})],
    "random_state": ["random_state"],
    "n_jobs": [None, Integral],
    "verbose": ["verbose"],
    "tol": [None, Interval(Real, 0, None, closed="left")],
    "n_iter_no_change": [Interval(Integral, 1, None, closed="left")],
    **_early_stopping.constraints(),
    "budget": [None, Interval(Integral, 2, None, closed="left")],
    "budget_maintenance": [StrOptions({"merge", "remove", "project"})],
}

#: ``multi_class="auto"`` trains the pairs of more than two classes when a pair has at
#: least this many rows on average (``2 n_samples / n_classes``); see ``multi_class``.
AUTO_OVO_ROWS = 500


def multi_class_used(multi_class: str, n_classes: int, n_samples: int) -> str:
    """The decomposition ``multi_class`` stands for on ``n_samples`` rows of
    ``n_classes`` classes: ``"ovo"`` (pairs of classes) or ``"ovr"`` (two classes
    train their one problem, which is both)."""
    if n_classes <= 2:
        return "ovr"
    if multi_class == "auto":
        return "ovo" if 2 * n_samples >= AUTO_OVO_ROWS * n_classes else "ovr"
    return multi_class


#: The keys of each problem's ``fit_report_`` entry, as the extension returns them.
REPORT_KEYS = (
    "strategy",
    "steps",
    "kernel_evaluations",
    "cache_hits",
    "cache_misses",
    "objective",
    "switched_at",
)


def _check_saved_kernel(model: Any, need) -> None:
    """The kernel's cached rows of the support vectors and its resolved gamma of a
    loaded model agree with its (already checked) support vectors."""
    if fitted_param(model, "kernel") == "precomputed":
        return
    n_sv, n_features = model.support_.size, model.n_features_in_
    rows = model._sv_kernel_rows
    if rows is not None:
        need(
            rows.ndim == 2 and rows.shape[0] == n_sv and rows.dtype.kind == "f",
            f"_sv_kernel_rows must be floats with {n_sv} rows",
        )
        need(rows.shape[1] == n_features, "_sv_kernel_rows has the wrong number of columns")
    gamma = getattr(model, "_gamma", None)
    need(
        isinstance(gamma, (int, float)) and math.isfinite(gamma) and gamma > 0,
        "_gamma must be a positive number",
    )


def saved_state(
    arrays: tuple[str, ...], fitted: str, scalars: dict[str, str] | None = None
) -> _model_file.SavedState:
    """What a model file holds of a kernel model (its class's ``_saved_state``): the
    fitted ``arrays`` in file order (the support vectors, their coefficients, the
    cached kernel rows ``_sv_kernel_rows``...), the counts, the resolved gamma, the
    class's own ``scalars`` (name: kind) and the fit report; ``fitted`` exists once
    fitted."""
    return _model_file.SavedState(
        arrays=arrays,
        scalars={
            "n_features_in_": "count",
            "n_iter_": "count",
            "t_": "count",
            "_gamma": "real",
            **(scalars or {}),
        },
        report_keys=REPORT_KEYS,
        fitted=fitted,
        optional=("_sv_kernel_rows",),
        check=_check_saved_kernel,
    )


class KernelExpansionMixin:
    """Training inputs, parameters and decision values of a kernel expansion.

    Put it left of scikit-learn's mixins and ``BaseEstimator``. The class defines
    the parameters of :data:`PARAMETER_CONSTRAINTS`.
    """

    if TYPE_CHECKING:  # what the classes using it define
        kernel: str
        gamma: Any
        degree: Int
        coef0: Float
        max_iter: Int
        average: bool | str
        random_state: RandomStateLike
        cache_size: Float
        strategy: str
        n_jobs: Int | None
        _gamma: float
        shape_fit_: tuple[int, int]
        support_: NDArray[np.int32]
        support_vectors_: Any
        dual_coef_: NDArray[np.float64]
        intercept_: NDArray[np.float64]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = self.kernel != "precomputed"
        tags.input_tags.pairwise = self.kernel == "precomputed"
        return tags

    def _training_matrix(self, X, y="no_validation", **y_checks):
        """``(X, y)`` validated for training (a square Gram matrix for a precomputed
        kernel; ``y`` None when not validated); sets ``n_features_in_``."""
        precomputed = self.kernel == "precomputed"
        checks = PRECOMPUTED_CHECKS if precomputed else INPUT_CHECKS
        if isinstance(y, str) and y == "no_validation":
            X, y = validate_input(self, X, **checks), None
        else:
            X, y = validate_input(self, X, y, **checks, **y_checks)
        if precomputed and X.shape[0] != X.shape[1]:
            raise ValueError(
                f"a precomputed kernel must be a square matrix for fit, got shape {X.shape}"
            )
        return X, y

    def _kernel_rows(self, X):
        """The matrix the kernel reads of validated training data ``X``
        (:func:`kernel_view`; ``X`` itself for a precomputed kernel)."""
        return X if self.kernel == "precomputed" else kernel_view(X)

    def _kernel_spec(self, gamma: float) -> dict:
        """The kernel as the extension reads it (one named dict), with the parameters
        of the fit (under way, or last)."""
        return {
            "kernel_name": fitted_param(self, "kernel"),
            "gamma": float(gamma),
            "degree": int(fitted_param(self, "degree")),
            "coef0": float(fitted_param(self, "coef0")),
        }

    def _kernel_params(self, gamma: float, loss: str, epsilon: Float = 0.0) -> dict:
        """The hyper-parameters as the extension reads them (one named dict): the
        kernel, the solver's settings with the loss, the cache and the strategy."""
        # tol and n_iter_no_change are early stopping's only (without it the
        # kernel solver runs all its passes).
        stopping = bool(getattr(self, "early_stopping", False))
        solver = solver_params(
            self._solver_fields(),
            max_iter=self.max_iter,
            seed=seed_from(self.random_state),
            average="suffix" if self._averaged() else "off",
            tol=getattr(self, "tol", None) if stopping else None,
            n_iter_no_change=getattr(self, "n_iter_no_change", 1) if stopping else 1,
        )
        solver["loss"] = {"name": loss, "epsilon": float(epsilon)}
        return {
            "kernel": self._kernel_spec(gamma),
            "solver": solver,
            "cache_size": float(self.cache_size),
            "strategy_name": self.strategy,
        }

    def _averaged(self) -> bool:
        """Whether the fit returns the suffix average: ``average=True``, or
        ``"auto"`` without a budget. With a budget ``"auto"`` is the last iterate:
        every maintenance step maps the average as it maps the iterate, and the
        average's errors, unlike the iterate's, are never corrected by later steps
        (see ``average``)."""
        if isinstance(self.average, str):  # "auto"
            return getattr(self, "budget", None) is None
        return bool(self.average)

    def _solver_fields(self):
        """What the solver's settings read ``alpha``, ``batch_size``,
        ``fit_intercept``, ``sampling`` and ``verbose`` from: the estimator."""
        return self

    def _hold_out(self, X, labels, weights, n_classes: int | None):
        """Early stopping: ``(X, labels, weights)`` with the held-out rows last (a
        copy; ``labels`` the class codes, stratified, or ``n_classes`` None for a
        regression's targets), the order of the rows, and how many are held out;
        without it, the inputs as given, ``None`` and 0."""
        if not _early_stopping.check_early_stopping(self, n_classes or 2):
            return X, labels, weights, None, 0
        if self.kernel == "precomputed":
            raise ValueError(
                "early_stopping=True is not available with kernel='precomputed': the "
                "held-out rows' kernel values against the training rows are not in the "
                "training kernel matrix"
            )
        stratify = labels if n_classes is not None else None
        order, n_held = _early_stopping.held_out_order(self, stratify, X.shape[0], weights)
        X, labels, weights = _early_stopping.reorder(order, X, labels, weights)
        return X, labels, weights, order, n_held

    def _store_expansion(self, X, Xk, result: dict, order=None) -> NDArray[np.intp]:
        """Set the fitted attributes of the expansion from what the extension's fit
        returns (``X`` validated, ``Xk`` the matrix the kernel read; with early
        stopping, their rows in ``order``); returns the indices of the support
        vectors among the rows of ``X``."""
        support = result["support"]
        self.support_ = (support if order is None else order[support]).astype(np.int32)
        self.shape_fit_ = X.shape
        if self.kernel == "precomputed":
            self.support_vectors_ = np.empty((0, 0), dtype=np.float64)
        else:
            self.support_vectors_ = X[support]
            # The rows the kernel is evaluated against at prediction time.
            self._sv_kernel_rows = Xk[support] if Xk is not X else None
        self.dual_coef_ = result["dual_coef"]
        self.intercept_ = result["intercept"]
        self.n_iter_ = int(max(result["passes"]))
        self.t_ = int(result["steps"][0])
        scores = result["validation_scores"]
        if any(len(s) for s in scores):
            self.validation_scores_ = [np.asarray(s, dtype=np.float64) for s in scores]
            converged = result["converged"]
            if not all(converged):
                missed = sum(not c for c in converged)
                which = (
                    f" {missed} of {len(converged)} binary problems" if len(converged) > 1 else ""
                )
                warnings.warn(
                    f"{type(self).__name__}: early stopping did not stop{which} within "
                    f"max_iter={self.max_iter} passes: the held-out score still improved by "
                    f"tol={_early_stopping.score_tol(self)}; increase max_iter or "
                    "tol to improve the fit.",
                    ConvergenceWarning,
                    stacklevel=4,
                )
        elif hasattr(self, "validation_scores_"):
            del self.validation_scores_
        self.fit_report_ = [
            dict(zip(REPORT_KEYS, values, strict=True))
            for values in zip(*(result[n] for n in REPORT_KEYS), strict=True)
        ]
        return support

    def _check_budget(self) -> None:
        """``ValueError`` for what a budget cannot go with (see ``budget``)."""
        if self.kernel == "precomputed":
            raise ValueError(
                "budget needs a kernel on data rows, not kernel='precomputed': the budget's "
                "support vectors may be merged points, which have no row in the kernel matrix"
            )
        if getattr(self, "early_stopping", False):
            raise ValueError("budget is not available with early_stopping=True yet")

    def _store_budget(self, shape: tuple[int, int], sparse: bool, result: dict) -> None:
        """Set the fitted attributes of a budgeted fit on training data of ``shape``
        (CSR when ``sparse``) from what the extension returns: its support vectors
        are points (``support_`` their training rows, -1 for merged points; CSR
        when the training data was)."""
        points = result["points"]
        self.support_ = result["source"].astype(np.int32)
        self.shape_fit_ = shape
        self.support_vectors_ = sp.csr_matrix(points) if sparse else points
        self._sv_kernel_rows = None
        self.dual_coef_ = result["dual_coef"]
        self.intercept_ = result["intercept"]
        self.n_iter_ = int(max(result["passes"]))
        self.t_ = int(result["steps"][0])
        if hasattr(self, "validation_scores_"):
            del self.validation_scores_
        k = len(result["steps"])
        self.fit_report_ = [
            {
                "strategy": "budget",
                "steps": int(result["steps"][p]),
                "kernel_evaluations": int(result["kernel_evaluations"][p]),
                "cache_hits": 0,
                "cache_misses": 0,
                "objective": None,
                "switched_at": None,
            }
            for p in range(k)
        ]

    def _expansion(self, X: MatrixLike, intercept=None) -> NDArray[np.float64]:
        """``sum_i dual_coef_[:, i] K(support_vectors_[i], x) + intercept_`` for the
        rows of ``X`` (``intercept`` instead of ``intercept_`` when given): one
        column per problem (1-d for one problem)."""
        check_is_fitted(self)
        b = buffer(self.intercept_ if intercept is None else intercept, np.float64)
        if fitted_param(self, "kernel") == "precomputed":
            X = validate_input(self, X, reset=False, **PRECOMPUTED_CHECKS)
            if X.shape[1] != self.shape_fit_[0]:
                raise ValueError(
                    f"X.shape[1] = {X.shape[1]} should be equal to {self.shape_fit_[0]}, "
                    "the number of samples at training time"
                )
            return self._support_sums(X[:, self.support_], b)
        else:
            X = validate_input(self, X, reset=False, **INPUT_CHECKS)
            sv = getattr(self, "_sv_kernel_rows", None)
            scores = _core.kernel_decision(
                as_rust_matrix(self.support_vectors_ if sv is None else sv),
                as_rust_matrix(X),
                buffer(self.dual_coef_, np.float64),
                b,
                kernel=self._kernel_spec(self._gamma),
                n_threads=n_threads(self.n_jobs),
            )
        return scores.ravel() if scores.shape[1] == 1 else scores

    def _support_sums(self, kernel_values, intercept=None) -> NDArray[np.float64]:
        """``sum_i dual_coef_[:, i] kernel_values[:, i] + intercept_`` (or
        ``intercept``), the decision
        values of rows whose kernel values against the support vectors are the
        columns of ``kernel_values`` (one column per problem, 1-d for one): the
        core's fixed-order product, not BLAS, so a row's values do not depend on the
        platform or on the rows predicted with it."""
        scores = _core.decision_function(
            buffer(kernel_values),
            buffer(self.dual_coef_, np.float64),
            buffer(self.intercept_ if intercept is None else intercept, np.float64),
            n_threads(self.n_jobs),
        )
        return scores.ravel() if scores.shape[1] == 1 else scores
