"""``pegasos_rs.dask.PegasosClassifierCV``: ``alpha`` (or ``C``) chosen by
cross-validation on data held by a Dask cluster, every fold's fits in exact mode."""

from __future__ import annotations

import contextlib
import copy
import time
from numbers import Integral
from typing import TYPE_CHECKING, Any

import dask
import numpy as np
from sklearn.utils._param_validation import HasMethods, Interval
from sklearn.utils.validation import check_is_fitted

from pegasos_rs import _core, _search
from pegasos_rs import linear_cv as _linear_cv
from pegasos_rs._base import unchanged_on_error
from pegasos_rs._validation import n_threads, seed_from
from pegasos_rs.dask import _exact_grid, _fold_blocks
from pegasos_rs.dask._classifier import PegasosClassifier
from pegasos_rs.dask._cluster import cluster
from pegasos_rs.dask._common import DaskClientMixin
from pegasos_rs.dask._data import distribute
from pegasos_rs.dask._exact import gather
from pegasos_rs.dask._interrupt import deferred_ctrl_c

if TYPE_CHECKING:
    from collections.abc import Callable

    import distributed
    from numpy.typing import ArrayLike
    from typing_extensions import Self

    from pegasos_rs._typing import MatrixLike

#: Parameters of the in-memory search that this one does not have: its candidates
#: all share one exact grid (no halving), and the Dask classifier has no early
#: stopping.
_NOT_HERE = ("search", "factor", "early_stopping", "validation_fraction")

#: Fitted attributes of the search itself that a local copy gets.
_FITTED = (
    "cv_results_",
    "best_index_",
    "best_score_",
    "best_params_",
    "alpha_",
    "C_",
    "classes_",
    "n_splits_",
    "refit_time_",
    "coef_",
    "intercept_",
    "n_iter_",
    "t_",
    "objective_",
    "n_features_in_",
    "feature_names_in_",
)


class PegasosClassifierCV(DaskClientMixin, _linear_cv.PegasosClassifierCV):
    """Linear Pegasos with ``alpha`` (or ``C``) chosen by cross-validation, on data
    held by a Dask cluster (the ``[dask]`` extra).

    :class:`pegasos_rs.PegasosClassifierCV` on dask arrays, dataframes or the
    arrays of :func:`read_svmlight`, every fit in exact mode (see
    :class:`PegasosClassifier`): the client draws each fold's examples with the
    solver's seeded generator and the workers send the drawn rows, once for all
    the candidates of a fold (with one seed their draws are the same: each drawn
    row steps every candidate's model) and once for all the folds that drew it in
    a round. So the row traffic that bounds exact mode is paid per fold, not per
    (fold, candidate) fit; the held-out rows are scored where they are (the
    models travel, not the rows). Each candidate's model on each fold is, bit for
    bit, :class:`pegasos_rs.PegasosClassifier`'s on the fold's rows with the same
    ``random_state``, hence each fold's score is the in-memory search's (with
    ``multi_class="ovr"``); the refit is a :class:`PegasosClassifier` fit in exact
    mode on all the rows.

    The client holds the labels and sample weights of all rows and each fold's
    row indices (8 bytes per row and fold), besides the models: a fold is a set
    of rows, and its draws are indices among them. The search's parameters are
    :class:`pegasos_rs.PegasosClassifierCV`'s (``cv`` an int or any splitter,
    called with an empty matrix of as many rows and the labels; ``groups`` in
    memory or as a dask array), without ``search="halving"`` and early stopping;
    the rest are :class:`PegasosClassifier`'s (``multi_class`` ``"ovr"`` or
    ``"auto"``, which is one-vs-rest here; ``sampling`` ``"auto"``,
    ``"uniform"``, ``"shuffle"`` or ``"sequential"``; ``probability`` False).
    A ``scoring`` must be computable from predictions or decision values (a
    callable or a scorer of probabilities would need every candidate's model
    fitted and kept on its own).

    Parameters
    ----------
    client : distributed.Client or None, default=None
        As :class:`PegasosClassifier`'s: None is the current client, else a
        ``LocalCluster`` started for the call (the search and its refit).
    round_bytes : int, default=32 MiB
        About how many bytes of drawn rows the workers send per round, for all
        the folds.
    n_jobs : int or None, default=None
        Threads of each fit's one-vs-rest problems on the client.

    Attributes
    ----------
    best_estimator_ : pegasos_rs.dask.PegasosClassifier
        The refit model (``refit=True``); the search predicts with it, on dask
        collections block by block on the workers.

    The other attributes are :class:`pegasos_rs.PegasosClassifierCV`'s.
    """

    _estimator_class = PegasosClassifier  # type: ignore[assignment]
    _parameter_constraints: dict = {  # noqa: RUF012 (scikit-learn convention)
        **{
            k: v
            for k, v in _linear_cv.PegasosClassifierCV._parameter_constraints.items()
            if k not in _NOT_HERE
        },
        "client": [None, HasMethods(["submit", "gather"])],
        "round_bytes": [Interval(Integral, 1, None, closed="left")],
    }

    def __init__(
        self,
        *,
        alphas: ArrayLike | None = None,
        Cs: int | ArrayLike | None = None,
        cv: Any = 5,
        scoring: Any = None,
        refit: bool = True,
        loss: str = "hinge",
        max_iter: int = 20,
        max_steps: int | None = None,
        batch_size: int = 1,
        projection: bool = True,
        fit_intercept: bool = True,
        intercept_scaling: float | None = 1.0,
        average: bool | int = True,
        sampling: Any = "auto",
        class_weight: Any = None,
        tol: float | None = None,
        n_iter_no_change: int = 5,
        random_state: Any = None,
        n_jobs: int | None = None,
        verbose: int = 0,
        probability: bool = False,
        multi_class: str = "auto",
        client: distributed.Client | None = None,
        round_bytes: int = 32 << 20,
    ) -> None:
        self.alphas = alphas
        self.Cs = Cs
        self.cv = cv
        self.scoring = scoring
        self.refit = refit
        self.loss = loss
        self.max_iter = max_iter
        self.max_steps = max_steps
        self.batch_size = batch_size
        self.projection = projection
        self.fit_intercept = fit_intercept
        self.intercept_scaling = intercept_scaling
        self.average = average
        self.sampling = sampling
        self.class_weight = class_weight
        self.tol = tol
        self.n_iter_no_change = n_iter_no_change
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.verbose = verbose
        self.probability = probability
        self.multi_class = multi_class
        self.client = client
        self.round_bytes = round_bytes

    def _check_supported(self) -> None:
        name = type(self).__name__
        if self.multi_class not in ("auto", "ovr"):
            raise ValueError(
                f"{name}: multi_class={self.multi_class!r} is not supported on a Dask "
                "cluster's search (its candidates share each fold's one-vs-rest "
                "draws); use multi_class='ovr' or 'auto'"
            )
        if not isinstance(self.sampling, str) or self.sampling == "balanced":
            raise ValueError(
                f"{name}: sampling={self.sampling!r} is not supported on a Dask "
                "cluster's search (its draws are indices among each fold's rows); use "
                "'auto', 'uniform', 'shuffle' or 'sequential'"
            )
        if self.probability:
            raise ValueError(
                f"{name}: probability=True is not supported on a Dask cluster; use "
                "probability=False"
            )

    @unchanged_on_error
    def fit(
        self,
        X: MatrixLike,
        y: ArrayLike,
        sample_weight: ArrayLike | None = None,
        *,
        groups: ArrayLike | None = None,
        check_input: bool = True,
        callback: Callable[[dict[str, Any]], object] | None = None,
    ) -> Self:
        """Score every candidate on every fold, then refit the best on all rows.

        Parameters
        ----------
        X, y, sample_weight
            As :meth:`PegasosClassifier.fit` takes them.
        groups : array-like or dask array of shape (n_samples,), default=None
            Passed to the splitter (``GroupKFold``, ...).
        check_input : bool, default=True
            As :meth:`PegasosClassifier.fit`'s (the refit's too).
        callback : callable or None, default=None
            Called after every round of the search's fits with a dict of
            progress, as :meth:`PegasosClassifier.fit` calls it.

        Returns
        -------
        self
        """
        self._validate_params()
        self._check_supported()
        seed = seed_from(self.random_state)
        base = self._estimator(alpha=1.0, random_state=seed, verbose=0)
        score_of = _search.scorer_from_predictions(base, self.scoring)
        if score_of is None:
            raise ValueError(
                f"{type(self).__name__}: scoring={self.scoring!r} needs each candidate's "
                "model fitted on its own, which the Dask search does not do; give a "
                "scorer of predictions or decision values (a name such as 'accuracy', "
                "'f1' or 'roc_auc')"
            )
        report = _search.SearchReport(self) if self.verbose else None
        with cluster(self.client) as client, deferred_ctrl_c() as ctrl_c:
            data = distribute(client, X, y, sample_weight, check=check_input, ctrl_c=ctrl_c)
            try:
                grid = _search.resolve_grid(self, lambda n: self._default_cs_on(data, n), 10)
                y_all, sw_all = self._labels(data)
                codes = np.searchsorted(np.asarray(data.classes), y_all)
                folds = _search.folds_of(
                    self, np.empty((data.n_rows, 0)), y_all, _in_memory(groups)
                )
                _search.check_fold_classes(type(self).__name__, data.classes, codes, folds)
                candidates = grid.candidates()
                if report is not None:
                    report.start(len(folds), candidates, shared=True)
                with contextlib.nullcontext() if report is None else report.progress():
                    measured = self._measure(
                        data, base, grid, folds, (y_all, sw_all, codes), score_of, callback
                    )
            finally:
                data.release()
            base = base.set_params(client=client)
            self._choose_and_refit(
                base,
                candidates,
                measured,
                X,
                y,
                sample_weight,
                (data.classes,),
                len(folds),
                report,
                n_rows=data.n_rows,
                # The search's distribute checked every value already (when
                # check_input): the refit checks what it reads, as check_input=False.
                fit_kwargs={"check_input": False},
            )
        if self.refit:
            self.best_estimator_.set_params(client=self.client)
        self.n_features_in_ = data.n_features
        if data.feature_names is not None:
            self.feature_names_in_ = data.feature_names
        elif hasattr(self, "feature_names_in_"):
            del self.feature_names_in_
        return self

    def _default_cs_on(self, data, n: int):
        """``n`` values of ``C`` from LIBLINEAR's start for the data on the cluster."""
        client = data.client
        futures = client.map(
            _fold_blocks.largest_squared_norm,
            data.blocks,
            [data.dtype] * len(data.blocks),
            pure=False,
        )
        largest = max(gather(data, futures, list(range(len(data.blocks)))))
        sq = largest + _search.bias_square(self.fit_intercept, self.intercept_scaling)
        return _search.default_cs(n, sq, data.n_rows, str(self.loss))

    @staticmethod
    def _labels(data):
        """The labels of all rows, and their sample weights (None: unweighted)."""
        futures = data.client.map(_fold_blocks.labels_and_weights, data.blocks, pure=False)
        parts = gather(data, futures, list(range(len(data.blocks))))
        y = np.concatenate([labels for labels, _ in parts])
        if not data.weighted:
            return y, None
        sw = np.concatenate(
            [
                np.ones(labels.shape[0]) if w is None else np.asarray(w, dtype=np.float64)
                for labels, w in parts
            ]
        )
        return y, sw

    def _measure(self, data, base, grid, folds, labels, score_of, callback):
        """Every (fold, candidate) fit in exact mode and its held-out score: the
        ``(n_candidates, n_folds)`` scores, fit times, score times and passes."""
        y, sw, codes = labels
        classes = data.classes
        k = int(classes.size)
        params = base._solver_params(False, base.max_iter, base.max_steps, n_classes=k)
        params["verbose"] = False
        plans = [
            _exact_grid.FoldPlan(
                train=np.asarray(tr, dtype=np.int64),
                test=np.asarray(te, dtype=np.int64),
                class_weight=self._fold_class_weight(classes, codes[tr]),
            )
            for tr, te in folds
        ]
        started = time.perf_counter()
        starts = _exact_grid.start_sums(data, plans, params)
        threads = n_threads(self.n_jobs)
        for plan, start, (tr, _) in zip(plans, starts, folds, strict=True):
            summary = {
                "zero_loss_sums": self._zero_loss_sums(plan, codes[tr], sw, params, data),
                "first_step_sums": start,
                "n_classes": k,
                "class_weight": plan.class_weight,
                "class_counts": np.bincount(codes[tr], minlength=k).astype(np.uint64),
            }
            for alpha in grid.alphas_for(tr.size):
                plan.fits.append(
                    _core.StreamedLinearFit(
                        _core.LinearSolverState(),
                        {**params, "alpha": float(alpha)},
                        int(tr.size),
                        data.n_features,
                        summary,
                        threads,
                    )
                )
                plan.running.append(True)
        results = _exact_grid.run(
            data,
            plans,
            batch_size=int(params["batch_size"]),
            round_bytes=int(self.round_bytes),
            loss=params["loss"],
            callback=callback,
        )
        # The accuracy as a count of right predictions made on the workers, which
        # accuracy_score divides by the rows as well: the same number.
        counted = self.scoring is None and sw is None
        decisions = _exact_grid.held_out_decisions(data, plans, results, counts=counted)
        elapsed = time.perf_counter() - started

        def held_out(f, a):
            return decisions[f][a] / folds[f][1].size if counted else decisions[f][a]

        scores, timed = _search.scores_from_held_out(
            folds, len(grid), y, sw, classes, score_of, held_out
        )
        shape = (len(grid), len(folds))
        n_iter = np.array([[max(r[a]["n_iter"]) for r in results] for a in range(len(grid))])
        fit_time = np.full(shape, elapsed / (len(folds) * len(grid)))
        return scores, fit_time, timed, n_iter

    @staticmethod
    def _zero_loss_sums(plan, codes, sw, params, data):
        """The fold's per-problem sums of weighted losses at zero, in the order of
        its training rows (``None`` when every weight is 1)."""
        if sw is None and np.all(plan.class_weight == 1.0):
            return None
        labels = {
            "n_classes": int(data.classes.size),
            "class_weight": plan.class_weight,
            "sample_weight": None if sw is None else np.ascontiguousarray(sw[plan.train]),
        }
        acc = [-0.0] * data.n_problems
        sums = _core.zero_loss_sums(codes.astype(np.uint32), labels, acc, params["loss"], False)
        return np.asarray(sums, dtype=np.float64)

    def score(self, X: MatrixLike, y: ArrayLike, sample_weight: ArrayLike | None = None) -> float:
        """The refit model's mean accuracy (on the cluster for dask collections)."""
        check_is_fitted(self)
        _search._has_refit(self)
        return self.best_estimator_.score(X, y, sample_weight=sample_weight)

    def to_local(self) -> _linear_cv.PegasosClassifierCV:
        """The fitted search as a plain :class:`pegasos_rs.PegasosClassifierCV`
        (same parameters, scores and refit model, as
        :meth:`PegasosClassifier.to_local` gives it): it pickles, saves and
        predicts on in-memory data like any other."""
        check_is_fitted(self)
        cls = _linear_cv.PegasosClassifierCV
        params = self.get_params(deep=False)
        local = cls(**{k: params[k] for k in cls._get_param_names() if k in params})
        for attr in _FITTED:
            if hasattr(self, attr):
                setattr(local, attr, copy.deepcopy(getattr(self, attr)))
        if hasattr(self, "best_estimator_"):
            local.best_estimator_ = self.best_estimator_.to_local()
        return local


def _in_memory(groups):
    """``groups`` as an in-memory array (a dask collection is computed)."""
    if groups is None:
        return None
    if dask.is_dask_collection(groups):
        return np.asarray(groups.compute())
    return np.asarray(groups)
