"""Learning to rank with Pegasos: RankSVM's objective on preference pairs within
queries (sofia-ml's ``rank`` learner), or across the whole set (AUC, its ``roc``
learner), as a scikit-learn style estimator."""

from __future__ import annotations

from numbers import Integral, Real
from typing import TYPE_CHECKING

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from pegasos_rs import _core, _linear_solver
from pegasos_rs._base import CachedParamNames, unchanged_on_error, warn_unconverged
from pegasos_rs._docs import filled
from pegasos_rs._fit_inputs import seed_from
from pegasos_rs._progress import reported
from pegasos_rs._ranking import mean_ndcg
from pegasos_rs._registry import persisted
from pegasos_rs._typing import fit_context
from pegasos_rs._validation import (
    INPUT_CHECKS,
    as_rust_matrix,
    buffer,
    n_threads,
    validate_input,
)
from pegasos_rs.io import _model_file
from pegasos_rs.io.model_io import save
from pegasos_rs.linear_regressor import regression_targets

if TYPE_CHECKING:
    from typing import Literal

    from numpy.typing import ArrayLike, NDArray
    from typing_extensions import Self

    from pegasos_rs._typing import Float, Int, MatrixLike, PathLike, RandomStateLike


def query_ids(qid, n_rows: int) -> NDArray[np.int64]:
    """``qid`` as the ``int64`` vector the extension reads: one integer per row
    (``ValueError`` otherwise: another length, more dimensions, values that are
    not integers)."""
    q = np.asarray(qid)
    if q.ndim != 1 or q.shape[0] != n_rows:
        raise ValueError(
            f"qid must be 1-d with one query id per row of X ({n_rows}), got shape {q.shape}"
        )
    if q.dtype.kind in "iu":
        return np.ascontiguousarray(q, dtype=np.int64)
    if q.dtype.kind == "f" and np.all(np.isfinite(q)) and np.all(q == np.round(q)):
        return np.ascontiguousarray(q, dtype=np.int64)
    raise ValueError(f"qid must hold integer query ids, got {q.dtype} values {q[:3].tolist()}")


@persisted
@filled
class PegasosRanker(CachedParamNames, BaseEstimator):
    """A linear ranking function trained by Pegasos on preference pairs.

    Minimises ``alpha/2 ||w||^2 + 1/|P| sum_{(i,j) in P} L(<w, x_i - x_j>)`` over
    the preference pairs ``P``: the pairs of rows of the same query whose relevance
    ``y_i > y_j`` (RankSVM's objective, Joachims 2002), or, with
    ``sampling="roc"``, of the whole set (the area under the ROC curve for binary
    ``y``). Each step draws ``batch_size`` pairs uniformly from ``P`` (without ever
    listing them: an alias table over the rows, see the user guide's "Losses and
    problems") and adds ``eta slope / k (x_i - x_j)`` for those whose loss has a
    slope, in ``O(nonzeros)``: the stochastic pairwise learner of D. Sculley,
    "Large Scale Learning to Rank" (2009) with the Pegasos steps
    ``1/(alpha t)`` and projection (Shalev-Shwartz et al., 2011). There is no
    intercept: it cancels in the differences.

    Parameters
    ----------
    loss : {"hinge", "log_loss"}, default="hinge"
        The pair loss of ``z = <w, x_i - x_j>``: ``max(0, 1 - z)`` (RankSVM) or
        ``ln(1 + e^-z)``.
    sampling : {"query", "roc"}, default="query"
        ``"query"``: pairs within the queries given as ``qid`` (required).
        ``"roc"``: pairs across the whole set, no ``qid`` (AUC optimisation).
    alpha : float, default=1e-4
        Regularisation strength, the paper's lambda. RankSVM's (LIBLINEAR's) ``C``
        on the pairs' difference vectors is ``1 / (alpha |P|)``.
    max_iter : int, default=20
        Number of passes; a pass is ``ceil(n_samples / batch_size)`` steps (with
        ``tol`` it may stop earlier).
    max_steps : int or None, default=None
        If set, each ``fit`` runs exactly this many steps instead of ``max_iter``
        passes.
    batch_size : int, default=1
        Pairs per step (the paper's k).
    projection : bool, default=True
        Project ``w`` onto the ball of radius ``sqrt(kappa L(0) / alpha)`` that
        holds the optimum (``kappa`` 1 for the hinge, 2 for the log loss).
    average : bool or int, default=True
        ``True``: the average of the iterates of the last half of the steps of each
        fit (with ``partial_fit``, of all iterates weighted by their step number);
        ``False``: the last iterate; an int ``n``: the mean of the iterates from the
        moment ``n`` pairs have been drawn.
    tol : float or None, default=None
        If set, the objective (over all pairs: ``O(|P|)``) is evaluated after every
        pass and training stops once it has not decreased by more than
        ``tol * objective`` for ``n_iter_no_change`` passes.
    n_iter_no_change : int, default=5
        Passes without improvement tolerated when ``tol`` is set.
    warm_start : bool, default=False
        Continue from the previous fit's complete solver state (its generator
        included): ``fit`` for ``p`` passes then ``q`` more equals ``p + q`` passes
        at once, bit for bit (with ``average`` False or int).
    {random_state}
    n_jobs : int or None, default=None
        Threads for prediction (-1: all cores); a fit runs on one thread.
    verbose : int, default=0
        Report the objective after every pass, and progress during a pass, to
        :data:`sys.stderr`.

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
        The weights; the score of ``x`` is ``<coef_, x>``.
    n_features_in_ : int
    n_iter_ : int
        Passes run by the last call.
    t_ : int
        Steps taken so far.
    objective_ : float or None
        The objective after the last pass, when computed (``tol`` or ``verbose``).

    Examples
    --------
    >>> import numpy as np
    >>> from pegasos_rs import PegasosRanker
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 3))
    >>> y = (X[:, 0] > 0).astype(int) + (X[:, 0] > 1)
    >>> qid = np.repeat(np.arange(20), 10)
    >>> ranker = PegasosRanker(alpha=1e-3, random_state=0).fit(X, y, qid)
    >>> ranker.score(X, y, qid) > 0.9
    True
    """

    #: What a model file holds (pegasos_rs.io.model_io reads only this declaration):
    #: the fitted arrays, counts and the exact solver state.
    _saved_state = _model_file.SavedState(
        arrays=("coef_", "objective_"),
        scalars=_linear_solver.LINEAR_SCALARS,
        solver="_solver",
        fitted="coef_",
        optional=("objective_",),
        check=_linear_solver.check_single_solver,
    )
    _solver: _core.LinearSolverState

    _parameter_constraints: dict = {  # noqa: RUF012 (scikit-learn convention)
        "loss": [StrOptions({"hinge", "log_loss"})],
        "sampling": [StrOptions({"query", "roc"})],
        "alpha": [Interval(Real, 0, None, closed="neither")],
        "max_iter": [Interval(Integral, 1, 2**32 - 1, closed="both")],
        "max_steps": [None, Interval(Integral, 1, 2**63 - 1, closed="both")],
        "batch_size": [Interval(Integral, 1, None, closed="left")],
        "projection": ["boolean"],
        "average": ["boolean", Interval(Integral, 1, None, closed="left")],
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
        loss: Literal["hinge", "log_loss"] = "hinge",
        sampling: Literal["query", "roc"] = "query",
        alpha: Float = 1e-4,
        max_iter: Int = 20,
        max_steps: Int | None = None,
        batch_size: Int = 1,
        projection: bool = True,
        average: bool | Int = True,
        tol: Float | None = None,
        n_iter_no_change: Int = 5,
        warm_start: bool = False,
        random_state: RandomStateLike = None,
        n_jobs: Int | None = None,
        verbose: Int = 0,
    ) -> None:
        self.loss = loss
        self.sampling = sampling
        self.alpha = alpha
        self.max_iter = max_iter
        self.max_steps = max_steps
        self.batch_size = batch_size
        self.projection = projection
        self.average = average
        self.tol = tol
        self.n_iter_no_change = n_iter_no_change
        self.warm_start = warm_start
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.verbose = verbose

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.target_tags.required = True
        return tags

    @unchanged_on_error
    @fit_context(prefer_skip_nested_validation=True)
    def fit(self, X: MatrixLike, y: ArrayLike, qid: ArrayLike | None = None) -> Self:
        """Train for ``max_iter`` passes (continuing the last fit if ``warm_start``).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            CSR float32/float64 and C-ordered dense arrays are read in place.
        y : array-like of shape (n_samples,)
            Relevance (graded, any real numbers; higher is more relevant).
        qid : array-like of int of shape (n_samples,), default=None
            The query of each row (need not be contiguous); required with
            ``sampling="query"``, refused with ``sampling="roc"``.

        Returns
        -------
        self
        """
        resume = bool(self.warm_start) and hasattr(self, "_solver")
        return self._fit(X, y, qid, resume, self.max_iter, self.max_steps)

    @unchanged_on_error
    def partial_fit(self, X: MatrixLike, y: ArrayLike, qid: ArrayLike | None = None) -> Self:
        """One pass over ``(X, y, qid)``, continuing from the current solver state.
        The parameters are validated on every call, as by ``fit``."""
        self._validate_params()
        resume = hasattr(self, "_solver")
        return self._fit(X, y, qid, resume, 1, None, partial=True)

    def _solver_params(self, resume: bool, max_iter, max_steps, partial: bool) -> dict:
        average, average_start = _linear_solver.averaging(self.average, self.batch_size, partial)
        return {
            "loss": {"name": str(self.loss), "epsilon": 0.0},
            "alpha": float(self.alpha),
            "batch_size": int(self.batch_size),
            "projection": bool(self.projection),
            "fit_intercept": False,
            "intercept_scaling": None,
            "average": average,
            "average_start": int(average_start),
            # The pairs' sampling is the ranking solver's own (qid or not).
            "sampling_name": "uniform",
            "order": None,
            "max_iter": int(max_iter),
            "max_steps": None if max_steps is None else int(max_steps),
            "tol": None if self.tol is None else float(self.tol),
            "n_iter_no_change": int(self.n_iter_no_change),
            "seed": seed_from(self.random_state) if not resume else 0,
            "verbose": bool(self.verbose),
        }

    @reported("steps", "fit")
    def _fit(self, X, y, qid, resume, max_iter, max_steps, partial=False):
        name = type(self).__name__
        if self.sampling == "query" and qid is None:
            raise ValueError(
                f'{name} with sampling="query" needs the query of each row: '
                'fit(X, y, qid); use sampling="roc" to rank across the whole set'
            )
        if self.sampling == "roc" and qid is not None:
            raise ValueError(
                f'{name} with sampling="roc" ranks across the whole set: pass no qid '
                '(or use sampling="query")'
            )
        y = regression_targets(name, y)
        X, y = validate_input(self, X, y, reset=not resume, y_numeric=True, **INPUT_CHECKS)
        if X.shape[0] < 2:
            raise ValueError(
                f"{name} ranks pairs of rows: n_samples={X.shape[0]} has none (at least "
                "2 samples of different relevance are needed)"
            )
        qid = None if qid is None else query_ids(qid, X.shape[0])
        params = self._solver_params(resume, max_iter, max_steps, partial)
        solver = self._solver if resume else _core.LinearSolverState()
        result = _core.fit_ranking(as_rust_matrix(X), buffer(y, np.float64), qid, solver, params)
        unconverged = _linear_solver.store_fit(self, result)
        del self.intercept_  # no intercept: it cancels in the pairs
        self.coef_ = result["coef"][0]
        objective = result["objective"][0]
        self.objective_ = None if objective is None else float(objective)
        self._solver = solver
        warn_unconverged(unconverged, not partial and max_steps is None)
        return self

    def predict(self, X: MatrixLike) -> NDArray[np.float64]:
        """Scores ``X coef_``, shape (n_samples,): rank a query's documents by
        decreasing score."""
        check_is_fitted(self)
        X = validate_input(self, X, reset=False, **INPUT_CHECKS)
        values = _core.decision_function(
            as_rust_matrix(X),
            buffer(self.coef_.reshape(1, -1), np.float64),
            np.zeros(1),
            n_threads(self.n_jobs),
        )
        return values.ravel()

    def score(self, X: MatrixLike, y: ArrayLike, qid: ArrayLike | None = None) -> float:
        """Mean NDCG@10 over the queries of ``qid`` (``None``: the whole set is one
        query), with LETOR's gain ``2^rel - 1`` and discount ``1/log2(rank + 1)``,
        documents ranked by decreasing :meth:`predict` (ties in input order). A
        query without a relevant document (all relevance 0) counts as NDCG 0, as in
        LETOR 4.0's evaluation script and scikit-learn's ``ndcg_score``."""
        scores = self.predict(X)
        y = np.asarray(regression_targets(type(self).__name__, y), dtype=np.float64)
        if y.ndim != 1 or y.shape[0] != scores.shape[0]:
            raise ValueError(f"y must be 1-d with one relevance per row of X ({scores.shape[0]})")
        if not np.all(np.isfinite(y)):
            raise ValueError("y contains NaN or infinity")
        q = None if qid is None else query_ids(qid, scores.shape[0])
        return mean_ndcg(y, scores, q, k=10)

    def save(self, path: PathLike) -> None:
        """Write the fitted model to ``path`` in pegasos-rs' portable format (see
        :mod:`pegasos_rs.io.model_io`); read it back with :func:`pegasos_rs.load`."""
        save(self, path)
