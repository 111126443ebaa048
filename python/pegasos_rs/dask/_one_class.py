"""``pegasos_rs.dask.PegasosOneClassSVM``: the linear one-class SVM trained where
the data lives."""

from __future__ import annotations

from numbers import Integral
from typing import TYPE_CHECKING, Any, Literal

import dask
import dask.array as da
import numpy as np
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from pegasos_rs import one_class as _one_class
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
    "offset_",
    "n_iter_",
    "t_",
    "objective_",
    "n_features_in_",
    "feature_names_in_",
)


class PegasosOneClassSVM(DaskLinearMixin, _one_class.PegasosOneClassSVM):
    """The linear one-class SVM on data held by a Dask cluster (the ``[dask]``
    extra).

    The same estimator as :class:`pegasos_rs.PegasosOneClassSVM`, with the same
    parameters and fitted attributes, whose ``fit`` takes dask arrays (dense chunks,
    or row chunks of scipy CSR matrices), dask dataframes or the arrays of
    :func:`pegasos_rs.dask.read_svmlight` (their labels are not read), and whose
    ``decision_function``, ``score_samples`` and ``predict`` run block by block on
    the workers (lazily: they return dask arrays). :meth:`to_local` returns the
    fitted model as a plain :class:`pegasos_rs.PegasosOneClassSVM`.

    Exact mode only: the model is that of
    ``pegasos_rs.PegasosOneClassSVM(...).fit(X.compute())`` with the same
    parameters, bit for bit, for any chunking and any number of workers. The client
    draws the rows and takes the steps (as :class:`pegasos_rs.dask.PegasosClassifier`
    does); what the in-memory fit reads of all the rows is read on the cluster: the
    largest row norm (the projection's radius, one pass before training), the rows
    whose scores reset the bias after each pass (at most 8,192, fetched once), and
    the scores of every row for the exact offset ``rho`` (one pass after training;
    the client ranks them, 16 bytes a row). Parameter mixing (``mode="parallel"``)
    is refused: each partition would have an offset of its own.

    Parameters
    ----------
    mode : {"exact"}, default="exact"
        Exact mode (``"parallel"`` is refused, saying why).
    client : distributed.Client or None, default=None
        The cluster to run on. None: the current client if there is one, else a
        ``LocalCluster`` of worker processes sized to the machine, started for the
        call and closed after it.
    round_bytes : int, default=32 MiB
        About how many bytes of drawn rows the workers send per round.

    The other parameters are those of :class:`pegasos_rs.PegasosOneClassSVM`.
    """

    _parameter_constraints: dict = {  # noqa: RUF012 (scikit-learn convention)
        **_one_class.PegasosOneClassSVM._parameter_constraints,
        "mode": [StrOptions({"exact", "parallel"})],
        "client": [None, HasMethods(["submit", "gather"])],
        "round_bytes": [Interval(Integral, 1, None, closed="left")],
    }

    _local_class = _one_class.PegasosOneClassSVM
    _fitted_attributes = _FITTED

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
        mode: Literal["exact", "parallel"] = "exact",
        client: distributed.Client | None = None,
        round_bytes: Int = 32 << 20,
    ) -> None:
        super().__init__(
            nu=nu,
            fit_intercept=fit_intercept,
            max_iter=max_iter,
            max_steps=max_steps,
            batch_size=batch_size,
            projection=projection,
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
        y: Any = None,
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
        y : Ignored
            Not used, present for API consistency by convention.
        sample_weight : dask array or array-like of shape (n_samples,), default=None
        check_input : bool, default=True
            Check every value as the in-memory estimator does before training.
            ``False``: check only the rows training reads.
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
            X, sample_weight, resume, self.max_iter, self.max_steps, check_input, callback
        )

    @unchanged_on_error
    def partial_fit(
        self, X: MatrixLike, y: Any = None, sample_weight: ArrayLike | None = None
    ) -> Self:
        """One pass over ``X``, continuing from the current solver state."""
        self._validate_params()
        resume = hasattr(self, "_solver")
        return self._fit_dask(X, sample_weight, resume, 1, None, True, None, partial=True)

    def _fit_dask(
        self, X, sample_weight, resume, max_iter, max_steps, check, callback, partial=False
    ):
        if self.mode == "parallel":
            raise ValueError(
                "mode='parallel' is not available for the one-class SVM: parameter mixing "
                "averages models trained on each partition, and each would place its own "
                "offset rho; use mode='exact' (the in-memory model, bit for bit)"
            )
        result, solver, data = self._fit_on_cluster(
            X,
            None,
            sample_weight,
            resume=resume,
            check=check,
            callback=callback,
            params=lambda: self._params(resume, max_iter, max_steps, partial=partial),
            class_weight=np.ones(2),
            one_class=True,
        )
        unconverged = self._store(result, solver)
        self._end_fit(data, unconverged, not partial and max_steps is None)
        return self

    def score_samples(self, X: MatrixLike) -> Any:
        """``<w, x>`` of each row; a dask array computed block by block on the
        workers when ``X`` is a dask collection, else an in-memory array."""
        check_is_fitted(self)
        if not dask.is_dask_collection(X):
            return self.to_local().score_samples(X)
        return _predict.decision_function(self, X, intercept=np.zeros(1))

    def decision_function(self, X: MatrixLike) -> Any:
        """``<w, x> - rho``: positive for inliers, negative for outliers."""
        return self.score_samples(X) - self.offset_[0]

    def predict(self, X: MatrixLike) -> Any:
        """1 for inliers (``decision_function >= 0``), -1 for outliers."""
        scores = self.decision_function(X)
        if not dask.is_dask_collection(scores):
            return np.where(scores >= 0, 1, -1)
        return da.where(scores >= 0, 1, -1)

    def to_local(self) -> _one_class.PegasosOneClassSVM:
        """The fitted model as a plain :class:`pegasos_rs.PegasosOneClassSVM` (same
        parameters and fitted attributes, a copy of the solver state)."""
        local: _one_class.PegasosOneClassSVM = self._local_copy()
        return local
