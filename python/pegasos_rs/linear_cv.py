"""Linear Pegasos with ``alpha`` (or ``C``) chosen by cross-validation:
:class:`PegasosClassifierCV` and :class:`PegasosRegressorCV`.

Every (fold, candidate) pair is trained in one call of the extension: with one
seed, Pegasos draws the same rows whatever ``alpha`` is, so the candidates of a
fold step on each drawn row together (it is read once), their weights side by
side. Each candidate's model is, bit for bit, what the estimator fitted on the
fold's rows with that ``alpha`` and the same ``random_state`` gives, so the fold
scores are ``GridSearchCV``'s over the same folds.
"""

from __future__ import annotations

import time
from numbers import Real
from typing import TYPE_CHECKING, Any

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.utils._param_validation import Interval, StrOptions

from pegasos_rs import _core, _linear_solver, _search
from pegasos_rs._arrays import buffer, n_threads
from pegasos_rs._base import R2Score, unchanged_on_error
from pegasos_rs._fit_inputs import class_weight_vector, seed_from
from pegasos_rs._typing import fit_context
from pegasos_rs._validation import (
    INPUT_CHECKS,
    as_rust_matrix,
    check_targets,
    encode_targets,
    sample_weight_vector,
    validate_input,
)
from pegasos_rs.linear import PegasosClassifier
from pegasos_rs.linear_regressor import PegasosRegressor, regression_targets

if TYPE_CHECKING:
    from numpy.typing import ArrayLike
    from typing_extensions import Self

    from pegasos_rs._typing import MatrixLike

#: The parameters of a linear search (beside those of the estimator it tunes).
_SEARCH_CONSTRAINTS: dict = {
    **_search.SEARCH_CONSTRAINTS,
    "search": [StrOptions({"exact", "halving"})],
    "factor": [Interval(Real, 1, None, closed="neither")],
}


class _LinearSearch(_search.SearchMixin):
    """The fit of the two linear searches: every (fold, candidate) pair in one call
    of the extension."""

    alphas: Any
    Cs: Any
    search: str
    factor: float
    _refit_attributes = ("coef_", "intercept_", "n_iter_", "t_", "objective_")

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags

    def _search(self, X, y, sample_weight, groups, labels) -> None:
        """Score every candidate on every fold, choose the best, refit."""
        name = type(self).__name__
        seed = seed_from(self.random_state)  # type: ignore[attr-defined]
        # The candidates' fits are silent: the search reports for them.
        base = self._estimator(alpha=1.0, random_state=seed, warm_start=False, verbose=0)
        grid = _search.resolve_grid(self, lambda n: self._default_cs(X, n), 10)
        folds = _search.folds_of(self, X, y, groups)
        if labels is not None:
            classes, _, _, codes = labels
            _search.check_fold_classes(name, classes, codes, folds)
        score_of = _search.scorer_from_predictions(base, self.scoring)
        joint = getattr(self, "multi_class", "ovr") == "crammer_singer"
        # Early stopping holds rows out of each fold's fit: the fits run one by one.
        alone = joint or bool(getattr(self, "early_stopping", False))
        if self.search == "halving" and (alone or score_of is None):
            raise ValueError(
                f"{name}: search='halving' ranks the candidates inside the shared fit, "
                "which multi_class='crammer_singer', early_stopping=True and a callable "
                "scoring or a scorer of probabilities do not run in; use search='exact'"
            )
        candidates = grid.candidates()
        shared = None
        if score_of is not None and not alone:

            def shared():
                return self._shared_grid(
                    base, as_rust_matrix(X), y, sample_weight, labels, grid, folds, score_of
                )

        self._measure_and_choose(base, candidates, folds, (X, y, sample_weight, labels), shared)

    def _default_cs(self, X, n: int):
        """``n`` values of ``C`` from LIBLINEAR's start for ``X`` up to its largest."""
        est: Any = self
        sq = _search.largest_squared_norm(X, est.fit_intercept, est.intercept_scaling)
        return _search.default_cs(n, sq, X.shape[0], str(est.loss))

    def _shared_grid(self, base, matrix, y, sample_weight, labels, grid, folds, score_of):
        """Every (fold, candidate) pair in one call of the extension; the scores
        from the held-out decision values."""
        n_folds = len(folds)
        alphas = np.stack([grid.alphas_for(tr.size) for tr, _ in folds])
        n_classes = 0 if labels is None else int(labels[0].size)
        params = _linear_solver.linear_solver_params(
            base, False, base.max_iter, base.max_steps, n_classes=max(n_classes, 2)
        )
        params["verbose"] = False
        if labels is not None:
            classes, _, _, codes = labels
            n_classes = classes.size
            class_weight = np.stack(
                [self._fold_class_weight(classes, codes[tr]) for tr, _ in folds]
            )
            codes_arg, targets_arg = codes, None
        else:
            n_classes = 0
            class_weight = np.zeros((n_folds, 0))
            codes_arg, targets_arg = None, buffer(y, np.float64)
        started = time.perf_counter()
        out = _core.cv_linear(
            matrix,
            codes_arg,
            targets_arg,
            n_classes,
            sample_weight,
            folds,
            class_weight,
            alphas,
            params,
            float(self.factor) if self.search == "halving" else None,
            n_threads(self.n_jobs),
        )
        elapsed = time.perf_counter() - started
        counted = labels is not None and self.scoring is None and sample_weight is None

        def held_out(f, a):
            decision, _, accuracy = out[f]
            # The extension's count, as accuracy_score's.
            return float(accuracy[a]) if counted else decision[a]

        scores, timed = _search.scores_from_held_out(
            folds, len(grid), y, sample_weight, classes if labels else None, score_of, held_out
        )
        shape = (len(grid), n_folds)
        n_iter = np.array([[out[f][1][a] for f in range(n_folds)] for a in range(len(grid))])
        # One call trained them all: each candidate is given an equal share.
        fit_time = np.full(shape, elapsed / (n_folds * len(grid)))
        return scores, fit_time, timed, n_iter

    def _fold_class_weight(self, classes, codes):
        """The class weights a fit on a fold's labels ``codes`` computes."""
        counts = np.bincount(codes, minlength=classes.size)
        present = np.flatnonzero(counts)
        return class_weight_vector(
            self.class_weight,
            classes,
            classes[present],
            counts[present],
        )


_SEARCH_DOC = """
    alphas : array-like of float or None, default=None
        The candidate values of ``alpha``, the same in every fold and in the
        refit. Give ``alphas`` or ``Cs``, not both.
    Cs : int or array-like of float or None, default=None
        The candidate values of ``C``, LIBLINEAR's and ``SVC``'s: a fit on ``m``
        rows uses ``alpha = 1 / (C m)`` (each fold its own ``m``, the refit all
        the rows). An int ``n`` (``None``: 10) is ``n`` powers of two spread
        evenly from the smallest ``C`` LIBLINEAR's ``-C`` search starts from,
        ``2^floor(log2(1 / (f l max_i ||x_i||^2)))`` (``f`` 2 for the squared
        losses, else 1; ``||x_i||^2`` with the bias feature), up to its largest,
        1024.
    cv : int, cross-validation generator or iterable, default=5
        The folds, as ``GridSearchCV`` takes them (an int: stratified folds for
        a classifier, unshuffled).
    scoring : str, callable or None, default=None
        How candidates are compared (``None``: the estimator's ``score``,
        accuracy or R^2). A scorer of predictions or decision values (accuracy,
        balanced accuracy, F1, ROC AUC, R^2, the squared and absolute errors, ...)
        is computed from the held-out decision values the shared fit returns; a
        callable or a scorer of probabilities fits and scores each candidate on
        each fold, as ``GridSearchCV`` does (slower, the same scores).
    refit : bool, default=True
        Refit the best candidate on all the rows (``best_estimator_``; the
        search then predicts with it).
    search : {"exact", "halving"}, default="exact"
        ``"exact"``: every candidate runs all its passes in every fold (each
        fold's scores are ``GridSearchCV``'s, bit for bit). ``"halving"``:
        successive halving over the passes, as ``HalvingGridSearchCV`` over a
        resource: after the first passes (``ceil(max_iter / factor^r)`` at rung
        ``r`` from the last), the candidates whose mean held-out accuracy (the
        negated mean squared error for a regressor) over the folds is among the
        best ``1 / factor`` go on, the others stop there, until one has run all
        the passes; the survivor's fold scores are the exact search's. Ranking
        uses the accuracy (or the squared error) whatever ``scoring`` says;
        ``cv_results_`` holds each candidate's scores where it stopped (and its
        passes in ``mean_n_iter``). All folds' models are kept between rungs
        when they fit in 2 GiB; beyond, each rung trains its candidates again from
        the start, one problem at a time (the same draws: the same models, more
        passes).
    factor : float, default=3
        The halving search's ``1 / factor`` kept at each rung (> 1).    verbose : int, default=0
        ``1``: report to :data:`sys.stderr` what the search fits, a progress line
        every few seconds during a long call, each candidate's mean score, the
        best and the refit (whose passes report as the estimator's ``verbose``
        does); the candidates' own fits are silent. ``2``: also each fit's score
        when the candidates are fitted one by one.
"""

_SEARCH_ATTRIBUTES = """
    alpha_ : float
        The ``alpha`` of the refit (of the best candidate, for all the rows).
    C_ : float
        The best ``C`` (with ``alphas``, the ``C`` that ``alpha_`` is on all the
        rows).
    best_score_ : float
        The best candidate's mean held-out score.
    best_index_ : int
        Its index in ``cv_results_``.
    best_params_ : dict
        ``{"alpha": ...}`` or ``{"C": ...}``.
    cv_results_ : dict of arrays
        ``GridSearchCV``'s layout: ``split{k}_test_score``, ``mean_test_score``,
        ``std_test_score``, ``rank_test_score``, ``params``, ``param_alpha`` (or
        ``param_C``), the times (the shared fit's time is given to its
        candidates in equal shares) and ``mean_n_iter`` (passes run).
    best_estimator_ : estimator
        The refit model (``refit=True``).
    coef_, intercept_, n_iter_, t_, objective_
        The refit model's.
    n_splits_ : int
        The number of folds.
"""


class PegasosClassifierCV(_LinearSearch, ClassifierMixin, BaseEstimator):
    __doc__ = f"""Linear Pegasos classifier with ``alpha`` (or ``C``) chosen by
    cross-validation, as ``LogisticRegressionCV``.

    The candidates of a fold step together on each drawn row (one seed: their
    draws are the same), so the search costs far less than its fits one by one;
    each candidate's fold model is bit for bit :class:`PegasosClassifier`'s on
    the fold's rows with the same ``random_state``. One-vs-rest (``"ovr"`` and
    ``"ovr_shared"``) share the draws; ``"crammer_singer"`` and
    ``early_stopping=True`` (each fit holds rows of its fold out) fit the
    candidates one by one. Every other parameter is :class:`PegasosClassifier`'s, used by
    every candidate and the refit; ``random_state=None`` draws one seed for the
    whole search (the folds and the refit).

    Parameters
    ----------
    {_SEARCH_DOC}
    loss, max_iter, max_steps, batch_size, projection, fit_intercept, \
intercept_scaling, average, sampling, class_weight, tol, n_iter_no_change, \
early_stopping, validation_fraction, random_state, n_jobs, probability, \
multi_class
        As :class:`PegasosClassifier` (``sampling`` not an array: the folds train
        on different rows). ``n_jobs`` also runs the folds' problems in parallel.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    {_SEARCH_ATTRIBUTES}
    """

    _estimator_class = PegasosClassifier
    _parameter_constraints: dict = {  # noqa: RUF012 (scikit-learn convention)
        **{
            k: v
            for k, v in PegasosClassifier._parameter_constraints.items()
            if k not in ("alpha", "warm_start")
        },
        **_SEARCH_CONSTRAINTS,
    }

    def __init__(
        self,
        *,
        alphas: ArrayLike | None = None,
        Cs: int | ArrayLike | None = None,
        cv: Any = 5,
        scoring: Any = None,
        refit: bool = True,
        search: str = "exact",
        factor: float = 3,
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
        early_stopping: bool = False,
        validation_fraction: float = 0.1,
        random_state: Any = None,
        n_jobs: int | None = None,
        verbose: int = 0,
        probability: bool = False,
        multi_class: str = "auto",
    ) -> None:
        self.alphas = alphas
        self.Cs = Cs
        self.cv = cv
        self.scoring = scoring
        self.refit = refit
        self.search = search
        self.factor = factor
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
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.verbose = verbose
        self.probability = probability
        self.multi_class = multi_class

    @unchanged_on_error
    @fit_context(prefer_skip_nested_validation=True)
    def fit(
        self,
        X: MatrixLike,
        y: ArrayLike,
        sample_weight: ArrayLike | None = None,
        *,
        groups: ArrayLike | None = None,
    ) -> Self:
        """Score every candidate on every fold, then refit the best on all rows.

        ``groups`` are passed to the splitter (``GroupKFold``, ...).
        """
        X, y = validate_input(self, X, y, reset=True, **INPUT_CHECKS)
        check_targets(y)
        labels = encode_targets(type(self).__name__, y)
        sample_weight = sample_weight_vector(sample_weight, X)
        self._search(X, y, sample_weight, groups, labels)
        return self


class PegasosRegressorCV(_LinearSearch, R2Score, RegressorMixin, BaseEstimator):
    __doc__ = f"""Linear Pegasos regressor with ``alpha`` (or ``C``) chosen by
    cross-validation, as ``RidgeCV``.

    The candidates of a fold step together on each drawn row, as in
    :class:`PegasosClassifierCV`; each candidate's fold model is bit for bit
    :class:`PegasosRegressor`'s on the fold's rows with the same
    ``random_state``. Every other parameter is :class:`PegasosRegressor`'s.

    Parameters
    ----------
    {_SEARCH_DOC}
    loss, epsilon, max_iter, max_steps, batch_size, projection, fit_intercept, \
intercept_scaling, average, sampling, tol, n_iter_no_change, early_stopping, \
validation_fraction, random_state, \
n_jobs
        As :class:`PegasosRegressor` (``sampling`` not an array).

    Attributes
    ----------
    {_SEARCH_ATTRIBUTES}
    """

    _estimator_class = PegasosRegressor
    _parameter_constraints: dict = {  # noqa: RUF012 (scikit-learn convention)
        **{
            k: v
            for k, v in PegasosRegressor._parameter_constraints.items()
            if k not in ("alpha", "warm_start")
        },
        **_SEARCH_CONSTRAINTS,
    }

    def __init__(
        self,
        *,
        alphas: ArrayLike | None = None,
        Cs: int | ArrayLike | None = None,
        cv: Any = 5,
        scoring: Any = None,
        refit: bool = True,
        search: str = "exact",
        factor: float = 3,
        loss: str = "epsilon_insensitive",
        epsilon: float = 0.1,
        max_iter: int = 20,
        max_steps: int | None = None,
        batch_size: int = 1,
        projection: bool = True,
        fit_intercept: bool = True,
        intercept_scaling: float | None = 1.0,
        average: bool | int = True,
        sampling: Any = "uniform",
        tol: float | None = None,
        n_iter_no_change: int = 5,
        early_stopping: bool = False,
        validation_fraction: float = 0.1,
        random_state: Any = None,
        n_jobs: int | None = None,
        verbose: int = 0,
    ) -> None:
        self.alphas = alphas
        self.Cs = Cs
        self.cv = cv
        self.scoring = scoring
        self.refit = refit
        self.search = search
        self.factor = factor
        self.loss = loss
        self.epsilon = epsilon
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
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.verbose = verbose

    @unchanged_on_error
    @fit_context(prefer_skip_nested_validation=True)
    def fit(
        self,
        X: MatrixLike,
        y: ArrayLike,
        sample_weight: ArrayLike | None = None,
        *,
        groups: ArrayLike | None = None,
    ) -> Self:
        """Score every candidate on every fold, then refit the best on all rows."""
        y = regression_targets(type(self).__name__, y)
        X, y = validate_input(self, X, y, reset=True, y_numeric=True, **INPUT_CHECKS)
        y = np.asarray(y, dtype=np.float64)
        sample_weight = sample_weight_vector(sample_weight, X)
        self._search(X, y, sample_weight, groups, None)
        return self
