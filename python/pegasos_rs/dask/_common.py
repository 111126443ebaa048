"""What the Dask linear estimators share: running a fit on the cluster in
the chosen mode, the in-memory copy of a fitted model, cloning, pickling and
saving."""

from __future__ import annotations

import copy
import sys
from typing import Any, ClassVar

import dask
from sklearn.base import clone
from sklearn.utils.validation import check_is_fitted

from pegasos_rs import _core, _fitted, _progress
from pegasos_rs._base import warn_unconverged
from pegasos_rs._validation import n_threads, seed_from
from pegasos_rs.dask import _exact, _parallel
from pegasos_rs.dask._cluster import cluster, current_client
from pegasos_rs.dask._data import check_feature_names, distribute
from pegasos_rs.dask._interrupt import deferred_ctrl_c


class DaskClientMixin:
    """An estimator with a ``client`` parameter: a clone shares the client (it is
    not copied), a pickle leaves it out (a connection is not part of a model); the
    column names and verbose lines of a fit on the cluster. Put it left of the
    in-memory class in the bases."""

    def __sklearn_clone__(self):
        # The client is shared, not copied (scikit-learn would deep-copy it).
        params = self.get_params(deep=False)
        client = params.pop("client")
        return type(self)(**{k: clone(v, safe=False) for k, v in params.items()}, client=client)

    def __getstate__(self):
        state = dict(super().__getstate__())  # a copy: the base may return __dict__
        state["client"] = None  # a connection is not part of a model
        if _fitted.ATTRIBUTE in state:
            state[_fitted.ATTRIBUTE] = {**state[_fitted.ATTRIBUTE], "client": None}
        return state

    verbose: Any

    def _compute(self, value):
        """``value`` (dask collections) computed on the estimator's client, the
        current one, or dask's default scheduler."""
        client = getattr(self, "client", None)
        client = client if client is not None else current_client()
        if client is not None:
            return client.compute(value, sync=True)
        return dask.compute(value)[0]

    def _keep_feature_names(self, data) -> None:
        if data.feature_names is not None:
            self.feature_names_in_ = data.feature_names
        elif hasattr(self, "feature_names_in_"):
            del self.feature_names_in_

    def _verbose_callback(self):
        if int(self.verbose) < 2:
            return None

        def show(info):
            print(
                f"[dask] pass {info['pass']}: {info['stage']} {info['steps']}/"
                f"{info['steps_in_pass']} steps, {info['seconds']:.2f}s",
                file=sys.stderr,
            )

        return show


class DaskModelMixin(DaskClientMixin):
    """A Dask estimator whose fitted model has an in-memory twin: :meth:`_local_copy`
    and ``save``."""

    #: The in-memory estimator :meth:`_local_copy` makes.
    _local_class: ClassVar[type]
    #: Fitted attributes a local copy gets (``feature_names_in_`` when set).
    _fitted_attributes: ClassVar[tuple[str, ...]]

    def _local_copy(self) -> Any:
        """The fitted model as the in-memory estimator (same parameters and fitted
        attributes, a copy of the solver state of a linear model)."""
        check_is_fitted(self)
        cls: Any = self._local_class
        fitted = _fitted.fit_params(self)  # the model is what its fit made of them
        # Parameters the Dask estimator does not have (early stopping) keep the
        # in-memory default: its fit did not use them.
        local = cls(**{k: fitted[k] for k in cls._get_param_names() if k in fitted})
        _fitted.record(local)
        for attr in self._fitted_attributes:
            if hasattr(self, attr):
                setattr(local, attr, copy.deepcopy(getattr(self, attr)))
        if hasattr(self, "_solver"):  # a linear model's solver state
            local._solver = copy.deepcopy(self._solver)
        return local

    def save(self, path) -> None:
        """Save the fitted model (as :meth:`to_local` returns it) to ``path``."""
        self._local_copy().save(path)


class DaskLinearMixin(DaskModelMixin):
    """The Dask side of a linear estimator (before the in-memory class in the
    bases: ``class PegasosRegressor(DaskLinearMixin, linear_regressor.
    PegasosRegressor)``)."""

    # Parameters of the estimators using this mixin, and their solver state.
    _solver: Any
    n_features_in_: int
    mode: str
    client: Any
    round_bytes: Any
    sampling: Any
    verbose: Any
    n_jobs: Any
    random_state: Any

    def _check_mode(self) -> None:
        if self.mode == "parallel" and not isinstance(self.sampling, str):
            raise ValueError("sampling as a visiting order is not supported in parallel mode")

    def _run(self, data, params: dict, solver, class_weight, callback) -> dict:
        """Train ``params`` on ``data`` in the estimator's mode, continuing
        ``solver``; returns what ``pegasos_rs._core.fit_linear`` returns."""
        callback = callback if callback is not None else self._verbose_callback()
        run = _exact.fit if self.mode == "exact" else _parallel.fit
        report = _progress.verbose_report(self.verbose, f"{type(self).__name__}.fit", "steps")
        with _progress.reporting(report):
            return run(
                data,
                params,
                solver,
                class_weight,
                n_threads=n_threads(self.n_jobs),
                round_bytes=int(self.round_bytes),
                callback=callback,
                seed=seed_from(self.random_state),
            )

    def _fit_on_cluster(
        self, X, y, sample_weight, *, resume, check, callback, params, class_weight=None, **how
    ) -> tuple[dict, Any, Any]:
        """Put the data on the cluster (``how``: ``distribute``'s ``regression`` or
        ``one_class``), check a resumed fit's width, and train ``params()`` (called
        once the data is there) continuing a copy of the solver state (a fresh one
        without ``resume``): ``(result, solver, data)``, the data released."""
        self._check_mode()
        if resume:  # the columns must be those of the fit being continued
            check_feature_names(self, X)
        with cluster(self.client) as client, deferred_ctrl_c() as ctrl_c:
            data = distribute(client, X, y, sample_weight, check=check, ctrl_c=ctrl_c, **how)
            try:
                if resume and data.n_features != self.n_features_in_:
                    raise ValueError(
                        f"X has {data.n_features} features, but {type(self).__name__} is "
                        f"expecting {self.n_features_in_} features as input."
                    )
                solver = copy.deepcopy(self._solver) if resume else _core.LinearSolverState()
                result = self._run(data, params(), solver, class_weight, callback)
            finally:
                data.release()
        return result, solver, data

    def _end_fit(self, data, unconverged, warn: bool) -> None:
        """After the fitted attributes are stored: the width, the column names and
        the ``ConvergenceWarning`` (when ``warn``)."""
        self.n_features_in_ = data.n_features
        self._keep_feature_names(data)
        warn_unconverged(unconverged, warn)
