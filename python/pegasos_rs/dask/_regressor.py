"""``pegasos_rs.dask.PegasosRegressor``: linear Pegasos regression trained where
the data lives."""

from __future__ import annotations

from numbers import Integral
from typing import TYPE_CHECKING, Any, Literal

import dask
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from pegasos_rs import _linear_solver
from pegasos_rs import linear_regressor as _regressor
from pegasos_rs._base import unchanged_on_error
from pegasos_rs.dask import _predict
from pegasos_rs.dask._common import DaskLinearMixin

if TYPE_CHECKING:
    from collections.abc import Callable

    import distributed
    from numpy.typing import ArrayLike
    from typing_extensions import Self

    from pegasos_rs._typing import Float, Int, MatrixLike, RandomStateLike

#: Fitted attributes a local copy gets (``feature_names_in_`` when set).
_FITTED = (
    "coef_",
    "intercept_",
    "n_iter_",
    "t_",
    "objective_",
    "n_features_in_",
    "feature_names_in_",
)


class PegasosRegressor(DaskLinearMixin, _regressor.PegasosRegressor):
    """Linear Pegasos regression on data held by a Dask cluster (the ``[dask]``
    extra).

    The same estimator as :class:`pegasos_rs.PegasosRegressor`, with the same
    parameters (every ``loss``) and fitted attributes, whose ``fit`` takes dask
    arrays (dense chunks, or row chunks of scipy CSR matrices; chunk sizes may be
    unknown), dask dataframes, or the arrays of :func:`pegasos_rs.dask.read_svmlight`
    (the files' labels are the targets), with real targets, and whose ``predict``
    and ``score`` (R^2) run block by block on the workers (lazily: ``predict``
    returns a dask array). :meth:`to_local` returns the fitted model as a plain
    :class:`pegasos_rs.PegasosRegressor`.

    The modes are those of :class:`pegasos_rs.dask.PegasosClassifier`:
    ``mode="exact"`` (default) gives the ``coef_`` of
    ``pegasos_rs.PegasosRegressor(...).fit(X.compute(), y.compute())`` with the
    same parameters, bit for bit, for any chunking and any number of workers: the
    client draws the examples, the workers send the drawn rows and their targets,
    the client takes the steps; the sums over the whole training set (the loss at
    zero of the projection radius, the objective for ``tol`` and ``verbose``, and
    for the squared losses the squared row norms a fresh fit starts from, which
    read every row once) are taken on the cluster in row order.
    ``mode="parallel"`` is iterative parameter mixing, one local pass per
    partition and round.

    Parameters
    ----------
    mode : {"exact", "parallel"}, default="exact"
        ``"exact"``: the in-memory solver's model, bit for bit; ``"parallel"``:
        iterative parameter mixing (see :class:`pegasos_rs.dask.PegasosClassifier`).
    client : distributed.Client or None, default=None
        The cluster to run on. None: the current client if there is one, else a
        ``LocalCluster`` of worker processes sized to the machine, started for the
        call and closed after it.
    round_bytes : int, default=32 MiB
        Exact mode: about how many bytes of drawn rows the workers send per round.

    The other parameters are those of :class:`pegasos_rs.PegasosRegressor`.

    Notes
    -----
    Inputs must not be modified while a fit runs. ``fit`` with ``check_input=False``
    checks only the rows training reads (see :meth:`fit`); the targets are always
    checked.
    """

    _parameter_constraints: dict = {  # noqa: RUF012 (scikit-learn convention)
        **_regressor.PegasosRegressor._parameter_constraints,
        "mode": [StrOptions({"exact", "parallel"})],
        "client": [None, HasMethods(["submit", "gather"])],
        "round_bytes": [Interval(Integral, 1, None, closed="left")],
    }

    _local_class = _regressor.PegasosRegressor
    _fitted_attributes = _FITTED

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
        warm_start: bool = False,
        random_state: RandomStateLike = None,
        n_jobs: Int | None = None,
        verbose: Int = 0,
        mode: Literal["exact", "parallel"] = "exact",
        client: distributed.Client | None = None,
        round_bytes: Int = 32 << 20,
    ) -> None:
        super().__init__(
            loss=loss,
            epsilon=epsilon,
            alpha=alpha,
            max_iter=max_iter,
            max_steps=max_steps,
            batch_size=batch_size,
            projection=projection,
            fit_intercept=fit_intercept,
            intercept_scaling=intercept_scaling,
            average=average,
            sampling=sampling,
            tol=tol,
            n_iter_no_change=n_iter_no_change,
            warm_start=warm_start,
            random_state=random_state,
            n_jobs=n_jobs,
            verbose=verbose,
        )
        self.mode = mode
        self.client = client
        self.round_bytes = round_bytes

    @unchanged_on_error
    def fit(
        self,
        X: MatrixLike,
        y: ArrayLike,
        sample_weight: ArrayLike | None = None,
        *,
        check_input: bool = True,
        callback: Callable[[dict[str, Any]], object] | None = None,
    ) -> Self:
        """Train on data held by the cluster (continuing the last fit if
        ``warm_start``).

        Parameters
        ----------
        X : dask array or dataframe of shape (n_samples, n_features)
            Or an in-memory matrix (sent to the cluster as one partition).
        y : dask array or series of shape (n_samples,)
            Real targets, in row blocks aligned with X's (or an in-memory array).
        sample_weight : dask array or array-like of shape (n_samples,), default=None
        check_input : bool, default=True
            Check every value as the in-memory estimator does before training
            (on arrays of :func:`read_svmlight`, once per version of each file, as
            :meth:`pegasos_rs.dask.PegasosClassifier.fit` does).
            ``False``: check only the targets of all rows and the rows training
            reads (but the squared losses' start reads every row).
        callback : callable or None, default=None
            Called after every round with a dict of progress, as
            :meth:`pegasos_rs.dask.PegasosClassifier.fit` calls it.

        Returns
        -------
        self
        """
        self._validate_params()
        resume = bool(self.warm_start) and hasattr(self, "_solver")
        return self._fit_dask(
            X, y, sample_weight, resume, self.max_iter, self.max_steps, check_input, callback
        )

    @unchanged_on_error
    def partial_fit(
        self, X: MatrixLike, y: ArrayLike, sample_weight: ArrayLike | None = None
    ) -> Self:
        """One pass over ``(X, y)``, continuing from the current solver state."""
        self._validate_params()  # on every call, as fit does
        resume = hasattr(self, "_solver")
        return self._fit_dask(X, y, sample_weight, resume, 1, None, True, None, partial=True)

    def _fit_dask(
        self, X, y, sample_weight, resume, max_iter, max_steps, check, callback, partial=False
    ):
        result, solver, data = self._fit_on_cluster(
            X,
            y,
            sample_weight,
            resume=resume,
            check=check,
            callback=callback,
            params=lambda: _linear_solver.linear_solver_params(
                self, resume, max_iter, max_steps, partial=partial
            ),
            regression=True,
        )
        unconverged = self._store_fit(result, solver)
        self._end_fit(data, unconverged, not partial and max_steps is None)
        return self

    def predict(self, X: MatrixLike) -> Any:
        """Predicted targets; a dask array computed block by block on the workers
        when ``X`` is a dask collection, else an in-memory array."""
        check_is_fitted(self)
        if not dask.is_dask_collection(X):
            return self.to_local().predict(X)
        return _predict.decision_function(self, X)

    def score(self, X: MatrixLike, y: ArrayLike, sample_weight: ArrayLike | None = None) -> float:
        """The coefficient of determination R^2 (scikit-learn's ``r2_score``),
        computed on the cluster for dask collections."""
        check_is_fitted(self)
        if not dask.is_dask_collection(X):
            return self.to_local().score(X, y, sample_weight=sample_weight)
        numerator, denominator = self._compute(_predict.r2_parts(self.predict(X), y, sample_weight))
        return _predict.r2_from(float(numerator), float(denominator))

    def to_local(self) -> _regressor.PegasosRegressor:
        """The fitted model as a plain :class:`pegasos_rs.PegasosRegressor` (same
        parameters and fitted attributes, a copy of the solver state): it pickles,
        saves and continues training like any other."""
        local: _regressor.PegasosRegressor = self._local_copy()
        return local
