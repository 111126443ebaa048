"""``pegasos_rs.dask.KernelPegasosClassifier`` and ``KernelPegasosRegressor``:
kernel Pegasos with a budget of support vectors, trained where the data lives."""

from __future__ import annotations

from numbers import Integral
from typing import TYPE_CHECKING, Any, ClassVar, Literal

import dask
import numpy as np
from sklearn.utils import check_array
from sklearn.utils._param_validation import HasMethods, Interval
from sklearn.utils.validation import check_is_fitted

from pegasos_rs import _core, _progress
from pegasos_rs import kernel as _kernel
from pegasos_rs import kernel_regressor as _kernel_regressor
from pegasos_rs._base import unchanged_on_error
from pegasos_rs._validation import class_weight_vector, n_threads
from pegasos_rs.dask import _blocks, _exact, _predict
from pegasos_rs.dask._blocks import _PARTITION_CHECKS
from pegasos_rs.dask._cluster import cluster
from pegasos_rs.dask._common import DaskModelMixin
from pegasos_rs.dask._data import distribute
from pegasos_rs.dask._interrupt import deferred_ctrl_c
from pegasos_rs.dask._maps import gamma_of

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    import distributed
    from numpy.typing import ArrayLike, NDArray
    from typing_extensions import Self

    from pegasos_rs._typing import (
        ClassWeight,
        Float,
        Int,
        KernelName,
        MatrixLike,
        RandomStateLike,
        Sampling,
    )

#: The fitted attributes of a budgeted kernel model (``feature_names_in_`` when
#: set; the private ones are the resolved gamma and the kernel's view of the
#: support vectors).
_FITTED = (
    "support_",
    "support_vectors_",
    "dual_coef_",
    "intercept_",
    "n_support_",
    "shape_fit_",
    "n_iter_",
    "t_",
    "fit_report_",
    "n_features_in_",
    "feature_names_in_",
    "_gamma",
    "_sv_kernel_rows",
)

_EXTRA_CONSTRAINTS: dict = {
    "client": [None, HasMethods(["submit", "gather"])],
    "round_bytes": [Interval(Integral, 1, None, closed="left")],
}


class _DaskKernelMixin(DaskModelMixin):
    """The Dask side of a budgeted kernel estimator (left of the in-memory class in
    the bases): the fit in exact mode, prediction block by block."""

    budget: Any
    budget_maintenance: Any
    batch_size: Any
    kernel: Any
    gamma: Any
    round_bytes: Any
    n_jobs: Any
    verbose: Any
    client: Any
    _fitted_attributes: ClassVar[tuple[str, ...]] = _FITTED
    # The in-memory estimator's (right of this mixin in the bases).
    _check_budget: Any
    _store_budget: Any
    to_local: Any

    def _fit_budget_on_cluster(
        self, X, y, sample_weight, *, check_input: bool, callback, regression: bool
    ) -> None:
        """Train on the cluster: the data distributed, gamma resolved, the exact
        fit run (``self._streamed_params(data, gamma)`` gives its parameters and
        class weights) and its model stored."""
        if self.budget is None:
            raise ValueError(
                f"{type(self).__name__} on a Dask cluster needs a budget (budget=B "
                "support vectors a problem): without one the support vectors grow with "
                "the data (a row that violates the margin joins them), and so do each "
                "step's cost and the model; fit pegasos_rs."
                f"{self._local_class.__name__} in memory for an unbudgeted model"
            )
        self._check_budget()
        with cluster(self.client) as client, deferred_ctrl_c() as ctrl_c:
            data = distribute(
                client, X, y, sample_weight, check=check_input, ctrl_c=ctrl_c, regression=regression
            )
            try:
                gamma = gamma_of(
                    self.kernel,
                    self.gamma,
                    data.n_features,
                    lambda: _exact.per_block(data, _blocks.moments, data.dtype),
                )
                params, class_weight = self._streamed_params(data, gamma)
                fit = _core.StreamedBudgetFit(
                    params,
                    data.n_rows,
                    data.n_features,
                    class_weight,
                    int(self.budget),
                    self.budget_maintenance,
                    n_threads(self.n_jobs),
                )
                name = f"{type(self).__name__}.fit"
                with _progress.reporting(_progress.verbose_report(self.verbose, name, "steps")):
                    result = _exact.fit_budget(
                        data,
                        fit,
                        int(self.batch_size),
                        round_bytes=int(self.round_bytes),
                        callback=callback if callback is not None else self._verbose_callback(),
                    )
            finally:
                data.release()
        self._gamma = gamma
        self._store_budget((data.n_rows, data.n_features), data.sparse, result)
        self.n_features_in_ = data.n_features
        self._keep_feature_names(data)

    def _streamed_params(self, data, gamma: float) -> tuple[dict, Any]:
        """The fit's parameters as ``StreamedBudgetFit`` takes them, and the class
        weights (None for a regression)."""
        raise NotImplementedError

    def _on_blocks(self, X, method: str, dtype, width: int | None):
        """``self.to_local().<method>`` on the blocks of the dask collection ``X``,
        lazily: a dask array with X's row chunks (1-d when ``width`` is None)."""
        rows = _predict.checked_rows(self, X)
        model = dask.delayed(self.to_local(), pure=True)
        return _predict.map_rows(rows, _apply, model, method, dtype=dtype, width=width)


def _apply(block, model, method: str):
    """``model.<method>`` on a block of rows (checked as the workers check a
    partition; column names are checked by the caller)."""
    return getattr(model, method)(check_array(block, **_PARTITION_CHECKS))


class KernelPegasosClassifier(_DaskKernelMixin, _kernel.KernelPegasosClassifier):
    """Kernel Pegasos with a budget of support vectors, on data held by a Dask
    cluster (the ``[dask]`` extra).

    The same estimator as :class:`pegasos_rs.KernelPegasosClassifier` with a
    ``budget`` (required here: an unbudgeted kernel model grows with the data),
    with the same parameters and fitted attributes, whose ``fit`` takes dask arrays
    (dense chunks, or row chunks of scipy CSR matrices), dask dataframes or the
    arrays of :func:`pegasos_rs.dask.read_svmlight`, and whose ``predict``,
    ``decision_function`` and ``score`` run block by block on the workers (lazily:
    they return dask arrays). :meth:`to_local` returns the fitted model as a plain
    :class:`pegasos_rs.KernelPegasosClassifier`.

    Exact mode: the client draws the examples with the in-memory fit's seeded
    generator, the workers send the drawn rows only, and the client takes the
    budgeted steps, each reading its rows and the budget's at most ``budget``
    points. ``fit(X, y)`` gives the model of ``pegasos_rs.KernelPegasosClassifier(
    ..., budget=B, multi_class="ovr").fit(X.compute(), y.compute())`` with the same
    parameters, bit for bit, for any chunking and any number of workers (with
    ``gamma="scale"``, the variance is combined from the blocks' moments: the
    in-memory value up to rounding; a number or ``"auto"`` gives the same gamma).
    The client holds the model, ``budget x n_features`` a problem, and at most two
    rounds of drawn rows (about ``round_bytes`` each). A fit of ``max_iter``
    passes fetches ``max_iter x n_samples`` drawn rows a problem; the model
    costs ``budget`` kernel values a row to apply.

    Multiclass problems are one-vs-rest (``multi_class="auto"`` resolves to
    ``"ovr"`` here; ``"ovo"``, whose pairs draw from their classes' rows, is
    refused), each class with a budget of its own. Refused with the reason:
    ``budget=None``, ``probability=True`` (its folds refit on all rows),
    ``sampling="balanced"``, ``kernel="precomputed"`` and early stopping.

    Parameters
    ----------
    client : distributed.Client or None, default=None
        The cluster to run on. None: the current client if there is one, else a
        ``LocalCluster`` of worker processes sized to the machine, started for the
        call and closed after it.
    round_bytes : int, default=32 MiB
        About how many bytes of drawn rows the workers send per round.

    The other parameters are those of :class:`pegasos_rs.KernelPegasosClassifier`.
    """

    _parameter_constraints: dict = {  # noqa: RUF012 (scikit-learn convention)
        **_kernel.KernelPegasosClassifier._parameter_constraints,
        **_EXTRA_CONSTRAINTS,
    }
    _local_class = _kernel.KernelPegasosClassifier
    _fitted_attributes = ("classes_", "multi_class_", *_FITTED)

    def __init__(
        self,
        *,
        alpha: Float = 1e-4,
        loss: Literal["hinge", "squared_hinge", "modified_huber", "log_loss"] = "hinge",
        kernel: KernelName = "rbf",
        gamma: Literal["scale", "auto"] | Float = "scale",
        degree: Int = 3,
        coef0: Float = 0.0,
        max_iter: Int = 10,
        batch_size: Int = 1,
        fit_intercept: bool = False,
        average: bool | Literal["auto"] = "auto",
        sampling: Sampling = "uniform",
        class_weight: ClassWeight = None,
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
        probability: bool = False,
        multi_class: Literal["auto", "ovr", "ovo"] = "auto",
        decision_function_shape: Literal["ovr", "ovo"] = "ovr",
        client: distributed.Client | None = None,
        round_bytes: Int = 32 << 20,
    ) -> None:
        super().__init__(
            alpha=alpha,
            loss=loss,
            kernel=kernel,
            gamma=gamma,
            degree=degree,
            coef0=coef0,
            max_iter=max_iter,
            batch_size=batch_size,
            fit_intercept=fit_intercept,
            average=average,
            sampling=sampling,
            class_weight=class_weight,
            cache_size=cache_size,
            strategy=strategy,
            tol=tol,
            n_iter_no_change=n_iter_no_change,
            early_stopping=early_stopping,
            validation_fraction=validation_fraction,
            budget=budget,
            budget_maintenance=budget_maintenance,
            random_state=random_state,
            n_jobs=n_jobs,
            verbose=verbose,
            probability=probability,
            multi_class=multi_class,
            decision_function_shape=decision_function_shape,
        )
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
        """Train for ``max_iter`` passes from scratch on data held by the cluster.

        Parameters
        ----------
        X : dask array or dataframe of shape (n_samples, n_features)
            Or an in-memory matrix (sent to the cluster as one partition).
        y : dask array or series of shape (n_samples,)
            Row blocks aligned with X's (or an in-memory array).
        sample_weight : dask array or array-like of shape (n_samples,), default=None
        check_input : bool, default=True
            Check every value as the in-memory estimator does before training.
            ``False``: check only the labels of all rows and the rows training reads.
        callback : callable or None, default=None
            Called after every round with a dict of progress (``stage``, ``pass``,
            ``steps``, ``steps_in_pass``, ``seconds``, ``rounds``, ``bytes_sent``,
            ``bytes_received``), as :class:`pegasos_rs.dask.PegasosClassifier`'s.

        Returns
        -------
        self
        """
        self._validate_params()
        if self.probability:
            raise ValueError(
                "probability=True is not supported on a Dask cluster (its folds refit "
                "on all rows); fit with probability=False, or fit "
                "pegasos_rs.KernelPegasosClassifier in memory"
            )
        if self.multi_class == "ovo":
            raise ValueError(
                "multi_class='ovo' is not supported on a Dask cluster (each pair draws "
                "from its two classes' rows, which the client does not hold); use "
                "multi_class='ovr' (what 'auto' resolves to here)"
            )
        self._fit_budget_on_cluster(
            X, y, sample_weight, check_input=check_input, callback=callback, regression=False
        )
        self.n_support_ = _kernel._budget_support_counts(self.dual_coef_, self.classes_.size, "ovr")
        return self

    def _streamed_params(self, data, gamma: float) -> tuple[dict, Any]:
        classes = data.classes
        counts = data.counts.sum(axis=0)
        class_weight = class_weight_vector(self.class_weight, classes, classes, counts)
        self.classes_ = classes
        self.multi_class_ = "ovr"
        return self._solver_params(gamma, "ovr"), [float(w) for w in class_weight]

    def decision_function(self, X: MatrixLike) -> Any:
        """Decision values; a dask array computed block by block on the workers when
        ``X`` is a dask collection, else an in-memory array."""
        check_is_fitted(self)
        if not dask.is_dask_collection(X):
            return self.to_local().decision_function(X)
        k = self.classes_.size
        return self._on_blocks(X, "decision_function", np.float64, None if k == 2 else k)

    def predict(self, X: MatrixLike) -> Any:
        """Class labels (lazily for dask collections, as ``decision_function``)."""
        check_is_fitted(self)
        if not dask.is_dask_collection(X):
            return self.to_local().predict(X)
        return self._on_blocks(X, "predict", self.classes_.dtype, None)

    def score(self, X: MatrixLike, y: ArrayLike, sample_weight: ArrayLike | None = None) -> float:
        """Mean accuracy, computed on the cluster for dask collections."""
        check_is_fitted(self)
        if not dask.is_dask_collection(X):
            return self.to_local().score(X, y, sample_weight=sample_weight)
        return float(self._compute(_predict.accuracy(self.predict(X), y, sample_weight)))

    def to_local(self) -> _kernel.KernelPegasosClassifier:
        """The fitted model as a plain :class:`pegasos_rs.KernelPegasosClassifier`
        (same parameters and fitted attributes): it pickles, saves and exports like
        any other."""
        local: _kernel.KernelPegasosClassifier = self._local_copy()
        return local


class KernelPegasosRegressor(_DaskKernelMixin, _kernel_regressor.KernelPegasosRegressor):
    """Kernel Pegasos regression with a budget of support vectors, on data held by
    a Dask cluster (the ``[dask]`` extra).

    The same estimator as :class:`pegasos_rs.KernelPegasosRegressor` with a
    ``budget`` (required here), with the same parameters and fitted attributes,
    whose ``fit`` takes dask collections of rows and real targets (or the arrays of
    :func:`pegasos_rs.dask.read_svmlight`, whose labels are the targets), in the
    exact mode of :class:`pegasos_rs.dask.KernelPegasosClassifier`: the model of
    ``pegasos_rs.KernelPegasosRegressor(..., budget=B).fit(X.compute(),
    y.compute())``, bit for bit. ``predict`` and ``score`` (R^2) run block by block
    on the workers (``predict`` lazily). Refused with the reason: ``budget=None``,
    ``kernel="precomputed"``, early stopping.

    Parameters
    ----------
    client : distributed.Client or None, default=None
        The cluster to run on (see :class:`pegasos_rs.dask.KernelPegasosClassifier`).
    round_bytes : int, default=32 MiB
        About how many bytes of drawn rows the workers send per round.

    The other parameters are those of :class:`pegasos_rs.KernelPegasosRegressor`.
    """

    _parameter_constraints: dict = {  # noqa: RUF012 (scikit-learn convention)
        **_kernel_regressor.KernelPegasosRegressor._parameter_constraints,
        **_EXTRA_CONSTRAINTS,
    }
    _local_class = _kernel_regressor.KernelPegasosRegressor

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
        client: distributed.Client | None = None,
        round_bytes: Int = 32 << 20,
    ) -> None:
        super().__init__(
            alpha=alpha,
            loss=loss,
            epsilon=epsilon,
            kernel=kernel,
            gamma=gamma,
            degree=degree,
            coef0=coef0,
            max_iter=max_iter,
            batch_size=batch_size,
            fit_intercept=fit_intercept,
            average=average,
            sampling=sampling,
            cache_size=cache_size,
            strategy=strategy,
            tol=tol,
            n_iter_no_change=n_iter_no_change,
            early_stopping=early_stopping,
            validation_fraction=validation_fraction,
            budget=budget,
            budget_maintenance=budget_maintenance,
            random_state=random_state,
            n_jobs=n_jobs,
            verbose=verbose,
        )
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
        """Train for ``max_iter`` passes from scratch on data held by the cluster
        (parameters as :meth:`pegasos_rs.dask.KernelPegasosClassifier.fit`'s, ``y``
        real targets).

        Returns
        -------
        self
        """
        self._validate_params()
        self._fit_budget_on_cluster(
            X, y, sample_weight, check_input=check_input, callback=callback, regression=True
        )
        self.n_support_ = np.array([self.support_.size], dtype=np.int32)
        return self

    def _streamed_params(self, data, gamma: float) -> tuple[dict, Any]:
        return self._kernel_params(gamma, self.loss, self.epsilon), None

    def predict(self, X: MatrixLike) -> Any:
        """Predicted targets; a dask array computed block by block on the workers
        when ``X`` is a dask collection, else an in-memory array."""
        check_is_fitted(self)
        if not dask.is_dask_collection(X):
            return self.to_local().predict(X)
        return self._on_blocks(X, "predict", np.float64, None)

    def score(self, X: MatrixLike, y: ArrayLike, sample_weight: ArrayLike | None = None) -> float:
        """The coefficient of determination R^2, computed on the cluster for dask
        collections."""
        check_is_fitted(self)
        if not dask.is_dask_collection(X):
            return self.to_local().score(X, y, sample_weight=sample_weight)
        parts = _predict.r2_parts(self.predict(X), y, sample_weight)
        numerator, denominator = self._compute(parts)
        return _predict.r2_from(float(numerator), float(denominator))

    def to_local(self) -> _kernel_regressor.KernelPegasosRegressor:
        """The fitted model as a plain :class:`pegasos_rs.KernelPegasosRegressor`."""
        local: _kernel_regressor.KernelPegasosRegressor = self._local_copy()
        return local
