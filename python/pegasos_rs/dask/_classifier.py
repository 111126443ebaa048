"""``pegasos_rs.dask.PegasosClassifier``: linear Pegasos trained where the data lives."""

from __future__ import annotations

import copy
from numbers import Integral
from typing import TYPE_CHECKING, Any, Literal

import dask
import numpy as np
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from pegasos_rs import _core
from pegasos_rs import linear as _linear
from pegasos_rs._base import store_linear_fit, unchanged_on_error
from pegasos_rs._validation import check_classes, class_weight_vector
from pegasos_rs.dask import _predict
from pegasos_rs.dask._cluster import cluster
from pegasos_rs.dask._common import DaskLinearMixin
from pegasos_rs.dask._data import check_feature_names, distribute
from pegasos_rs.dask._interrupt import deferred_ctrl_c

if TYPE_CHECKING:
    from collections.abc import Callable

    import distributed
    from numpy.typing import ArrayLike
    from typing_extensions import Self

    from pegasos_rs._typing import (
        ClassWeight,
        Float,
        Int,
        MatrixLike,
        RandomStateLike,
        Sampling,
    )

#: Fitted attributes a local copy gets (``feature_names_in_`` when set).
_FITTED = (
    "classes_",
    "coef_",
    "intercept_",
    "n_iter_",
    "t_",
    "objective_",
    "n_features_in_",
    "feature_names_in_",
)


class PegasosClassifier(DaskLinearMixin, _linear.PegasosClassifier):
    """Linear Pegasos on data held by a Dask cluster (the ``[dask]`` extra).

    The same estimator as :class:`pegasos_rs.PegasosClassifier`, with the same
    parameters and fitted attributes, whose ``fit`` takes dask arrays (dense
    chunks, or row chunks of scipy CSR matrices; chunk sizes may be unknown), dask
    dataframes, or the arrays of :func:`pegasos_rs.dask.read_svmlight`, and whose
    ``predict``, ``decision_function`` and ``score`` run block by block on the
    workers (lazily: they return dask arrays). :meth:`to_local` returns the fitted
    model as a plain :class:`pegasos_rs.PegasosClassifier`.

    The rows of row partition ``b`` are rows ``offset_b ... offset_b + n_b - 1`` of
    the training set, partitions in order: the order of ``X.compute()``.

    ``mode="exact"`` (default): the iterates of the in-memory solver, bit for bit:
    ``fit(X, y)`` gives the ``coef_`` of ``pegasos_rs.PegasosClassifier(...).fit(
    X.compute(), y.compute())`` with the same parameters, for any chunking and any
    number of workers. The client draws the examples with the solver's seeded
    generator, the workers send the drawn rows only, and the client takes the
    steps; a fit reads ``T · batch_size`` rows whatever the number of rows, so
    ``max_steps`` with a fraction of a pass is how it scales (the paper's claim).
    The client holds the model, O(n_features x classes), and at most two rounds of
    drawn rows (about ``round_bytes`` each: the next round's rows travel while the
    current round's steps run).
    ``sampling="shuffle"`` keeps a permutation of all rows on the client (4 bytes
    per row).

    ``mode="parallel"``: iterative parameter mixing (McDonald, Hall, Mann 2010;
    Zinkevich, Weimer, Smola, Li 2010), for many passes over data that does not fit
    one machine: in each round every partition runs one local pass of the solver
    from the shared iterate, on the worker that holds it, and the client averages
    the results (weighted by rows, summed on the cluster). ``max_iter`` is the
    number of rounds. Blocks read from svmlight files are parsed in the first
    round (unless a worker keeps them already) and kept in the workers' block cache
    (memory, or local disk as memory-mapped binary CSR; :func:`limit_block_cache`)
    for later rounds and fits. Not the in-memory iterates; its
    objective is reported against the exact mode's in the Dask benchmark.

    It takes every parameter of :class:`pegasos_rs.PegasosClassifier`
    (``probability`` only False; ``multi_class`` ``"ovr"``, or
    ``"crammer_singer"`` in exact mode), every ``loss``
    included, in both modes: the sums over the whole training set each loss needs
    (its projection radius, its objective for ``tol`` and ``verbose``, and, for
    ``"squared_hinge"``, the squared row norms a fresh fit starts from, which read
    every row once) are taken on the cluster in row order, so exact mode stays the
    in-memory model bit for bit; those below are its own, or mean more here.

    Parameters
    ----------
    mode : {"exact", "parallel"}, default="exact"
        ``"exact"``: the in-memory solver's model, bit for bit; ``"parallel"``:
        iterative parameter mixing (both described above).
    client : distributed.Client or None, default=None
        The cluster to run on. None: the current client if there is one, else a
        ``LocalCluster`` of worker processes sized to the machine, started for the
        call and closed after it.
    round_bytes : int, default=32 MiB
        Exact mode: about how many bytes of drawn rows the workers send per round.
    n_jobs : int or None, default=None
        Threads of the client's steps (one-vs-rest problems in parallel).

    Notes
    -----
    Inputs must not be modified while a fit runs. ``fit`` with ``check_input=False``
    checks only the rows training reads (see :meth:`fit`).
    """

    _parameter_constraints: dict = {  # noqa: RUF012 (scikit-learn convention)
        **_linear.PegasosClassifier._parameter_constraints,
        "mode": [StrOptions({"exact", "parallel"})],
        "client": [None, HasMethods(["submit", "gather"])],
        "round_bytes": [Interval(Integral, 1, None, closed="left")],
    }

    _local_class = _linear.PegasosClassifier
    #: ``multi_class="auto"`` resolves to one-vs-rest here: the cluster sends each
    #: class its own draws (``"ovr_shared"`` is refused).
    _shared_draws = False
    _fitted_attributes = _FITTED

    def __init__(
        self,
        *,
        loss: Literal["hinge", "log_loss", "squared_hinge", "modified_huber"] = "hinge",
        alpha: Float = 1e-4,
        max_iter: Int = 20,
        max_steps: Int | None = None,
        batch_size: Int = 1,
        projection: bool = True,
        fit_intercept: bool = True,
        intercept_scaling: Float | None = 1.0,
        average: bool | Int = True,
        sampling: Sampling = "uniform",
        class_weight: ClassWeight = None,
        tol: Float | None = None,
        n_iter_no_change: Int = 5,
        warm_start: bool = False,
        random_state: RandomStateLike = None,
        n_jobs: Int | None = None,
        verbose: Int = 0,
        probability: bool = False,
        multi_class: Literal["ovr", "ovr_shared", "crammer_singer"] = "ovr",
        mode: Literal["exact", "parallel"] = "exact",
        client: distributed.Client | None = None,
        round_bytes: Int = 32 << 20,
    ) -> None:
        super().__init__(
            loss=loss,
            alpha=alpha,
            max_iter=max_iter,
            max_steps=max_steps,
            batch_size=batch_size,
            projection=projection,
            fit_intercept=fit_intercept,
            intercept_scaling=intercept_scaling,
            average=average,
            sampling=sampling,
            class_weight=class_weight,
            tol=tol,
            n_iter_no_change=n_iter_no_change,
            warm_start=warm_start,
            random_state=random_state,
            n_jobs=n_jobs,
            verbose=verbose,
            probability=probability,
            multi_class=multi_class,
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
        classes: ArrayLike | None = None,
        callback: Callable[[dict[str, Any]], object] | None = None,
    ) -> Self:
        """Train on data held by the cluster (continuing the last fit if
        ``warm_start``).

        Parameters
        ----------
        X : dask array or dataframe of shape (n_samples, n_features)
            Or an in-memory matrix (sent to the cluster as one partition).
        y : dask array or series of shape (n_samples,)
            Row blocks aligned with X's (or an in-memory array).
        sample_weight : dask array or array-like of shape (n_samples,), default=None
        check_input : bool, default=True
            Check every value as the in-memory estimator does before training
            (on arrays of :func:`read_svmlight`, once per version of each file: the
            workers keep the checked, parsed blocks for later fits, see
            :func:`drop_block_cache`).
            ``False``: check only the labels of all rows and the rows training reads
            (on arrays of :func:`read_svmlight`, the files' other rows are then not
            parsed at all); a NaN or a malformed line in a row that is read still
            raises ``ValueError``.
        classes : None
            Not taken (``ValueError`` otherwise): the in-memory estimator's class
            codes with ``check_input=False`` have no counterpart here, where the
            labels are encoded block by block on the cluster.
        callback : callable or None, default=None
            Called after every round with a dict of progress: ``stage``, ``pass``
            (the round in parallel mode), ``steps`` (done in this pass),
            ``steps_in_pass``, ``seconds``; in exact mode also ``rounds`` (fetches
            so far), ``bytes_sent`` and ``bytes_received`` (requests and rows, so
            far).

        Returns
        -------
        self
        """
        self._validate_params()
        if classes is not None:
            raise ValueError(
                "classes is not taken by the Dask classifier's fit: its labels are "
                "encoded block by block on the cluster (use partial_fit's classes for "
                "the label set)"
            )
        resume = bool(self.warm_start) and hasattr(self, "_solver")
        return self._fit_dask(
            X, y, sample_weight, None, resume, self.max_iter, self.max_steps, check_input, callback
        )

    @unchanged_on_error
    def partial_fit(
        self,
        X: MatrixLike,
        y: ArrayLike,
        classes: ArrayLike | None = None,
        sample_weight: ArrayLike | None = None,
    ) -> Self:
        """One pass over ``(X, y)``, continuing from the current solver state
        (``classes`` must be given on the first call)."""
        first = not hasattr(self, "_solver")
        self._validate_params()  # on every call, as fit does
        if first and classes is None:
            raise ValueError("classes must be passed on the first call to partial_fit")
        _linear.check_partial_fit_class_weight(self)
        return self._fit_dask(
            X, y, sample_weight, classes, not first, 1, None, True, None, partial=True
        )

    def _fit_dask(
        self,
        X,
        y,
        sample_weight,
        classes,
        resume,
        max_iter,
        max_steps,
        check,
        callback,
        partial=False,
    ):
        if self.probability:
            raise ValueError(
                "probability=True is not supported on a Dask cluster; fit with "
                "probability=False (or fit pegasos_rs.PegasosClassifier in memory)"
            )
        if self.multi_class == "crammer_singer" and self.mode == "parallel":
            raise ValueError(
                "multi_class='crammer_singer' is not supported in parallel mode (its "
                "averaged local passes are one-vs-rest's); use mode='exact'"
            )
        if self.multi_class == "ovr_shared":
            raise ValueError(
                "multi_class='ovr_shared' is not supported on a Dask cluster (the "
                "cluster sends each class its own draws); use multi_class='ovr' or "
                "'crammer_singer', or fit pegasos_rs.PegasosClassifier in memory"
            )
        self._check_mode()
        if resume:  # the columns must be those of the fit being continued
            check_feature_names(self, X)
        with cluster(self.client) as client, deferred_ctrl_c() as ctrl_c:
            data = distribute(client, X, y, sample_weight, check=check, ctrl_c=ctrl_c)
            try:
                if resume and data.n_features != self.n_features_in_:
                    raise ValueError(
                        f"X has {data.n_features} features, but {type(self).__name__} is "
                        f"expecting {self.n_features_in_} features as input."
                    )
                present = data.classes
                counts = data.counts.sum(axis=0)
                known = self._known_classes(resume, classes)
                known = check_classes(type(self).__name__, present, known)
                class_weight = class_weight_vector(self.class_weight, known, present, counts)
                if known.size != present.size or np.any(known != present):
                    moved = np.zeros((data.counts.shape[0], known.size), dtype=np.int64)
                    moved[:, np.searchsorted(known, present)] = data.counts
                    data.classes, data.counts = known, moved
                solver = copy.deepcopy(self._solver) if resume else _core.LinearSolverState()
                params = self._solver_params(
                    resume, max_iter, max_steps, partial=partial, n_classes=int(known.size)
                )
                result = self._run(data, params, solver, class_weight, callback)
            finally:
                data.release()
        self.classes_ = known
        store_linear_fit(self, result, check_convergence=not partial and max_steps is None)
        self._solver = solver
        self.n_features_in_ = data.n_features
        self._keep_feature_names(data)
        return self

    def decision_function(self, X: MatrixLike) -> Any:
        """Decision values; a dask array computed block by block on the workers when
        ``X`` is a dask collection, else an in-memory array."""
        check_is_fitted(self)
        if not dask.is_dask_collection(X):
            return self.to_local().decision_function(X)
        return _predict.decision_function(self, X)

    def predict(self, X: MatrixLike) -> Any:
        """Class labels (lazily for dask collections, as ``decision_function``)."""
        check_is_fitted(self)
        if not dask.is_dask_collection(X):
            return self.to_local().predict(X)
        return _predict.predict(self, X)

    def score(self, X: MatrixLike, y: ArrayLike, sample_weight: ArrayLike | None = None) -> float:
        """Mean accuracy, computed on the cluster for dask collections."""
        check_is_fitted(self)
        if not dask.is_dask_collection(X):
            return self.to_local().score(X, y, sample_weight=sample_weight)
        return float(self._compute(_predict.accuracy(self.predict(X), y, sample_weight)))

    def to_local(self) -> _linear.PegasosClassifier:
        """The fitted model as a plain :class:`pegasos_rs.PegasosClassifier` (same
        parameters and fitted attributes, a copy of the solver state): it pickles,
        saves and continues training like any other."""
        local: _linear.PegasosClassifier = self._local_copy()
        return local
