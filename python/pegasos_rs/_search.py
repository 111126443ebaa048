"""What the cross-validated estimators share: the grid of ``alpha`` (or ``C``, and
``gamma`` for a kernel), the folds, the scores of every candidate on them,
``cv_results_`` in ``GridSearchCV``'s layout, the choice of the best candidate, its
refit and the delegation to it (:class:`SearchMixin`).

The linear estimators train every (fold, candidate) pair in one call of the
extension (``_core.cv_linear``: the candidates of a fold step on the same drawn
rows), the kernel ones every candidate of a ``gamma`` on one kernel matrix
(``kernel_cv``); both score them from the held-out decision values; a ``scoring``
those values cannot answer (a callable, a scorer of probabilities) is answered by
fitting and scoring each candidate as ``GridSearchCV`` does.
"""

from __future__ import annotations

import contextlib
import math
import time
from dataclasses import dataclass, field
from numbers import Integral
from typing import TYPE_CHECKING, Any

import numpy as np
from sklearn.base import clone, is_classifier
from sklearn.metrics import check_scoring
from sklearn.model_selection import check_cv
from sklearn.utils import _safe_indexing
from sklearn.utils._param_validation import Interval
from sklearn.utils.validation import check_is_fitted

from pegasos_rs._base import available_if
from pegasos_rs._progress import VerboseReport, reporting

if TYPE_CHECKING:
    from numpy.typing import NDArray

#: LIBLINEAR's largest ``C`` of its ``-C`` search (``find_parameters``' ``max_C``).
LIBLINEAR_MAX_C = 1024.0

#: The parameters every search has (beside those of the estimator it tunes).
SEARCH_CONSTRAINTS: dict = {
    "alphas": [None, "array-like"],
    "Cs": [None, Interval(Integral, 1, None, closed="left"), "array-like"],
    "cv": ["cv_object"],
    "scoring": [None, callable, str],
    "refit": ["boolean"],
}


def start_c(squared_row_norm: float, n_rows: int, loss: str) -> float:
    """LIBLINEAR's smallest ``C`` of a ``-C`` search (``calc_start_C``), a power of
    two: ``1 / (2 l max_i ||x_i||^2)`` for the squared hinge, ``1 / (l max_i
    ||x_i||^2)`` for the other losses (``||x_i||^2`` with the bias feature, as
    LIBLINEAR appends it); below it the model is all but ``w = 0``."""
    factor = 2.0 if loss in ("squared_hinge", "squared_epsilon_insensitive") else 1.0
    smallest = 1.0 / (factor * n_rows * max(squared_row_norm, 1e-300))
    return float(2.0 ** math.floor(math.log2(smallest)))


def start_c_svr(squared_row_norm: float, y, p: float) -> float:
    """LIBLINEAR's smallest ``C`` of the L2-loss SVR's search (``-s 11 -C``) at
    ``epsilon = p``: ``0.01 sum_i max(|y_i| - p, 0)^2 / (8 (sum_i |y_i|)^2 max_i
    ||x_i||^2)``, as a power of two; infinite when no target lies outside the tube
    (LIBLINEAR's search then starts at its largest C)."""
    y = np.abs(np.asarray(y, dtype=np.float64))
    loss = float(np.sum(np.maximum(y - p, 0.0) ** 2))
    if loss <= 0:
        return math.inf
    smallest = 0.1 * 0.1 * loss / (8 * float(y.sum()) ** 2 * max(squared_row_norm, 1e-300))
    return float(2.0 ** math.floor(math.log2(smallest)))


def default_cs(n_cs: int, squared_row_norm: float, n_rows: int, loss: str) -> NDArray[Any]:
    """``n_cs`` values of ``C``, powers of two spread evenly (in log) from
    LIBLINEAR's start (:func:`start_c`) to its largest ``C``, 1024."""
    low = math.log2(start_c(squared_row_norm, n_rows, loss))
    high = math.log2(LIBLINEAR_MAX_C)
    if n_cs == 1 or low >= high:
        return np.array([2.0**high])
    return 2.0 ** np.round(np.linspace(low, high, n_cs))


def largest_squared_norm(matrix, fit_intercept: bool, intercept_scaling) -> float:
    """``max_i ||x_i||^2`` of a validated matrix, with the bias feature's square."""
    import scipy.sparse as sp

    if sp.issparse(matrix):
        norms = np.asarray(matrix.multiply(matrix).sum(axis=1)).ravel()
    else:
        norms = np.einsum("ij,ij->i", matrix, matrix)
    return float(norms.max(initial=0.0)) + bias_square(fit_intercept, intercept_scaling)


def bias_square(fit_intercept: bool, intercept_scaling) -> float:
    """The square of the bias feature a fit appends to every row (0 without one)."""
    if not fit_intercept:
        return 0.0
    return 1.0 if intercept_scaling is None else float(intercept_scaling) ** 2


class Grid:
    """The candidates of a search: ``alphas`` as given, or ``Cs`` (LIBLINEAR's and
    ``SVC``'s ``C``, ``alpha = 1 / (C m)`` for a training set of ``m`` rows)."""

    def __init__(self, name: str, values, *, as_c: bool, what: str | None = None) -> None:
        values = np.asarray(values, dtype=np.float64).ravel()
        what = what or ("Cs" if as_c else "alphas")
        if values.size == 0:
            raise ValueError(f"{name}: {what} is empty; give at least one value")
        if not np.isfinite(values).all() or (values <= 0).any():
            raise ValueError(
                f"{name}: every value of {what} must be positive and finite, got {values.tolist()}"
            )
        self.values = values
        self.as_c = as_c
        self.param = "C" if as_c else "alpha"

    def alphas_for(self, n_rows: int) -> NDArray[np.float64]:
        """The ``alpha`` of every candidate for a training set of ``n_rows`` rows."""
        if self.as_c:
            return 1.0 / (self.values * n_rows)
        return self.values.copy()

    def __len__(self) -> int:
        return self.values.size

    def candidates(self, gammas=None) -> list[Candidate]:
        """The candidates in ``GridSearchCV``'s order for the grid ``{param:
        values}`` (and ``{"gamma": gammas}``): its parameters sorted by name, the
        last varying fastest (``C`` and ``alpha`` sort before ``gamma``)."""
        if gammas is None:
            return [Candidate(float(v), self.as_c) for v in self.values]
        return [
            Candidate(float(v), self.as_c, {"gamma": float(g)}) for v in self.values for g in gammas
        ]


@dataclass(frozen=True)
class Candidate:
    """One point of a grid: ``C`` (``as_c``) or ``alpha``, and the other parameters
    it sets (``{"gamma": ...}``)."""

    value: float
    as_c: bool
    extra: dict = field(default_factory=dict)

    @property
    def params(self) -> dict:
        """The candidate as ``cv_results_["params"]`` shows it."""
        return {"C" if self.as_c else "alpha": self.value, **self.extra}

    def alpha_for(self, n_rows: int) -> float:
        """Its ``alpha`` for a training set of ``n_rows`` rows."""
        return 1.0 / (self.value * n_rows) if self.as_c else self.value

    def changes(self, n_rows: int) -> dict:
        """The estimator's parameters it sets for a training set of ``n_rows`` rows."""
        return {"alpha": self.alpha_for(n_rows), **self.extra}


def resolve_grid(est, default_cs, n_default: int) -> Grid:
    """The grid of a CV estimator: its ``alphas`` or ``Cs``; an int ``Cs`` (``None``:
    ``n_default``) is ``default_cs(n)``, that many values of ``C``."""
    name = type(est).__name__
    if est.alphas is not None and est.Cs is not None:
        raise ValueError(f"{name}: give alphas or Cs, not both")
    if est.alphas is not None:
        return Grid(name, est.alphas, as_c=False)
    cs = est.Cs if est.Cs is not None else n_default
    if isinstance(cs, (int, np.integer)) and not isinstance(cs, bool):
        if cs < 1:
            raise ValueError(f"{name}: Cs as a number of values must be at least 1, got {cs}")
        return Grid(name, default_cs(int(cs)), as_c=True)
    return Grid(name, cs, as_c=True)


def folds_of(est, X, y, groups) -> list[tuple[NDArray[np.intp], NDArray[np.intp]]]:
    """The ``(train, test)`` row indices of ``est.cv`` (an int: stratified folds for
    a classifier, as ``GridSearchCV``)."""
    splitter = check_cv(est.cv, y, classifier=is_classifier(est))
    folds = [
        (np.asarray(tr, dtype=np.intp), np.asarray(te, dtype=np.intp))
        for tr, te in splitter.split(X, y, groups)
    ]
    if not folds:
        raise ValueError(f"{type(est).__name__}: the cross-validation gave no folds")
    for k, (tr, te) in enumerate(folds):
        if tr.size == 0 or te.size == 0:
            raise ValueError(
                f"{type(est).__name__}: fold {k} has {tr.size} training and {te.size} "
                "held-out rows; every fold needs both"
            )
    return folds


def check_fold_classes(name: str, classes, codes, folds) -> None:
    """``ValueError`` when a fold's training rows lack a class: its model could not
    predict that class (more folds than the class has rows)."""
    n_classes = classes.size
    for k, (tr, _) in enumerate(folds):
        counts = np.bincount(codes[tr], minlength=n_classes)
        missing = np.flatnonzero(counts == 0)
        if missing.size:
            total = np.bincount(codes, minlength=n_classes)
            c = missing[0]
            raise ValueError(
                f"{name}: the training rows of fold {k} have no example of class "
                f"{classes[c].tolist()!r} ({total[c]} in all), so its models could not "
                "predict that class; use stratified folds (cv=int, StratifiedKFold), "
                "fewer folds or more data"
            )


def scorer_from_predictions(est, scoring):
    """A function ``(y_true, y_pred, decision, sample_weight) -> score`` equal to
    what ``scoring`` gives a fitted candidate on held-out rows (weighted by the
    held-out rows' ``sample_weight`` when given, as ``GridSearchCV`` forwards
    them to a scorer that accepts them), when it can be computed
    from the candidate's predictions or decision values; ``None`` when it cannot
    (a callable, a scorer of probabilities): the candidates are then fitted one by
    one. ``ValueError`` for a scoring that does not fit the estimator."""
    from sklearn import metrics

    classifier = is_classifier(est)
    name = type(est).__name__
    if scoring is None:
        if classifier:
            return lambda y, pred, _, w: metrics.accuracy_score(y, pred, sample_weight=w)
        return lambda y, pred, _, w: metrics.r2_score(y, pred, sample_weight=w)
    if callable(scoring) and not hasattr(scoring, "_score_func"):
        return None
    scorer = check_scoring(est, scoring=scoring)
    func = getattr(scorer, "_score_func", None)
    sign = getattr(scorer, "_sign", None)
    kwargs = getattr(scorer, "_kwargs", None)
    response = getattr(scorer, "_response_method", None)
    if func is None or sign is None or kwargs is None or response is None:
        return None
    module = getattr(func, "__module__", "")
    if classifier and module.endswith("_regression"):
        raise ValueError(
            f"{name}: scoring={scoring!r} is a regression metric; a classifier is "
            "scored on classes (for example 'accuracy', 'balanced_accuracy', 'f1')"
        )
    if not classifier and (module.endswith("_classification") or module.endswith("_ranking")):
        raise ValueError(
            f"{name}: scoring={scoring!r} scores classes; a regressor is scored on "
            "real values (for example 'r2', 'neg_mean_squared_error')"
        )
    methods = (response,) if isinstance(response, str) else tuple(response)

    def weighted(w):
        return kwargs if w is None else {**kwargs, "sample_weight": w}

    if methods[0] == "predict":
        return lambda y, pred, _, w: sign * func(y, pred, **weighted(w))
    if methods[0] == "decision_function":
        return lambda y, _, decision, w: sign * func(y, decision, **weighted(w))
    return None


def accepts_sample_weight(scorer) -> bool:
    """Whether ``scorer`` (a callable ``(estimator, X, y, ...)``) takes
    ``sample_weight``, as ``GridSearchCV`` asks before forwarding it."""
    import inspect

    try:
        params = inspect.signature(scorer).parameters
    except (TypeError, ValueError):
        return False
    return "sample_weight" in params or any(
        p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()
    )


def rank(scores: NDArray[np.float64]) -> NDArray[np.int32]:
    """``GridSearchCV``'s ranks of mean scores: 1 is best, ties share the smallest
    rank, NaN scores rank last."""
    from scipy.stats import rankdata

    filled = np.where(np.isnan(scores), -np.inf, scores)
    return np.asarray(rankdata(-filled, method="min"), dtype=np.int32)


def cv_results(
    candidates: list[Candidate],
    scores: NDArray[np.float64],
    fit_time: NDArray[np.float64],
    score_time,
    n_iter,
) -> dict:
    """``cv_results_`` in ``GridSearchCV``'s layout from the ``(n_candidates,
    n_folds)`` scores, fit and score times, and passes run."""
    n_folds = scores.shape[1]
    params = [c.params for c in candidates]
    results: dict[str, Any] = {
        "mean_fit_time": fit_time.mean(axis=1),
        "std_fit_time": fit_time.std(axis=1),
        "mean_score_time": score_time.mean(axis=1),
        "std_score_time": score_time.std(axis=1),
    }
    for name in params[0]:
        column = np.array([p[name] for p in params], dtype=object)
        results[f"param_{name}"] = np.ma.MaskedArray(column, mask=False)
    results["params"] = params
    for k in range(n_folds):
        results[f"split{k}_test_score"] = scores[:, k]
    results["mean_test_score"] = scores.mean(axis=1)
    results["std_test_score"] = scores.std(axis=1)
    results["rank_test_score"] = rank(results["mean_test_score"])
    results["mean_n_iter"] = np.asarray(n_iter, dtype=np.float64).mean(axis=1)
    return results


def scores_from_held_out(folds, n_points: int, y, sample_weight, classes, score_of, held_out):
    """The ``(n_points, n_folds)`` scores and score times of a shared fit's
    candidates: ``held_out(f, a)`` gives candidate ``a``'s held-out decision values
    on fold ``f`` (shape (rows, outputs)), or its accuracy already counted (a float,
    accuracy_score's number); ``classes`` is None for a regression; ``score_of`` as
    :func:`scorer_from_predictions` gives it."""
    from pegasos_rs import _linear_solver

    shape = (n_points, len(folds))
    scores, timed = np.zeros(shape), np.zeros(shape)
    for f, (_, te) in enumerate(folds):
        y_te = y[te]
        w_te = None if sample_weight is None else sample_weight[te]
        for a in range(n_points):
            started = time.perf_counter()
            values = held_out(f, a)
            if isinstance(values, float):
                scores[a, f] = values
            else:
                values = values[:, 0] if values.shape[1] == 1 else values
                pred = values if classes is None else _linear_solver.labels_of(classes, values)
                scores[a, f] = score_of(y_te, pred, values, w_te)
            timed[a, f] = time.perf_counter() - started
    return scores, timed


def fit_one_by_one(
    base, candidates: list[Candidate], X, y, sample_weight, folds, scoring, report=None
):
    """Each candidate fitted on each fold's training rows and scored on its
    held-out rows by ``scoring``, as ``GridSearchCV`` does: the ``(n_candidates,
    n_folds)`` scores, fit times, score times and passes. ``report``
    (:class:`SearchReport`), when given, says each fit's score as it ends."""
    scorer = check_scoring(base, scoring=scoring)
    weigh = sample_weight is not None and accepts_sample_weight(scorer)
    shape = (len(candidates), len(folds))
    scores, fits, timed, n_iter = (np.zeros(shape) for _ in range(4))
    for f, (tr, te) in enumerate(folds):
        X_tr, y_tr = _safe_indexing(X, tr), _safe_indexing(y, tr)
        X_te, y_te = _safe_indexing(X, te), _safe_indexing(y, te)
        kwargs = {} if sample_weight is None else {"sample_weight": sample_weight[tr]}
        score_kwargs = {"sample_weight": sample_weight[te]} if weigh else {}
        for a, candidate in enumerate(candidates):
            model = clone(base).set_params(**candidate.changes(tr.size))
            started = time.perf_counter()
            model.fit(X_tr, y_tr, **kwargs)
            fits[a, f] = time.perf_counter() - started
            started = time.perf_counter()
            scores[a, f] = scorer(model, X_te, y_te, **score_kwargs)
            timed[a, f] = time.perf_counter() - started
            n_iter[a, f] = model.n_iter_
            if report is not None:
                report.fitted(f, len(folds), candidate, scores[a, f], fits[a, f])
    return scores, fits, timed, n_iter


class SearchReport:
    """The ``verbose`` report of a search, on :data:`sys.stderr` (as the
    estimators' reports): what it fits, a progress line every few seconds during a
    long call of the extension, each candidate's mean score (with ``verbose >= 2``
    also each fit's, when the candidates are fitted one by one), the best and the
    refit. The candidates' own fits are silent; the refit reports as the
    estimator does."""

    def __init__(self, search: Any) -> None:
        self.level = int(search.verbose)
        self.lines = VerboseReport(f"{type(search).__name__}.fit", "steps")

    def start(self, n_folds: int, candidates: list[Candidate], shared: bool) -> None:
        """The first line: the folds, the candidates and how they are fitted."""
        n = len(candidates)
        how = "their fits sharing one call" if shared else "fitted one by one"
        self.lines.write(
            f"fitting {n_folds} folds for each of {n} candidates, totalling "
            f"{n_folds * n} fits ({how})"
        )

    def progress(self):
        """The context in which the extension's long calls report their progress."""
        return reporting(self.lines)

    def fitted(self, fold: int, n_folds: int, candidate: Candidate, score, seconds) -> None:
        """One fit's score (``verbose >= 2``)."""
        if self.level >= 2:
            self.lines.write(
                f"[fold {fold + 1}/{n_folds}] {_shown(candidate.params)}: score "
                f"{score:.4f}, {seconds:.2f}s"
            )

    def scored(self, candidates: list[Candidate], results: dict) -> None:
        """Each candidate's mean score over the folds, in the order of
        ``cv_results_``."""
        for a, candidate in enumerate(candidates):
            self.lines.write(
                f"candidate {a + 1}/{len(candidates)} {_shown(candidate.params)}: mean "
                f"test score {results['mean_test_score'][a]:.4f} (std "
                f"{results['std_test_score'][a]:.4f}), {results['mean_n_iter'][a]:g} passes"
            )

    def best(self, candidate: Candidate, score: float, refit_rows: int | None) -> None:
        """The best candidate, and the refit that follows (``None``: none)."""
        then = "" if refit_rows is None else f"; refit on all {refit_rows:,} rows"
        self.lines.write(f"best {_shown(candidate.params)}: mean test score {score:.4f}{then}")


def _shown(params: dict) -> str:
    """``C=0.5, gamma=0.01``: a candidate's parameters, short."""
    return ", ".join(
        f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}" for k, v in params.items()
    )


def _has_refit(search: Any) -> bool:
    """Whether the search has a refit model to predict with."""
    if not search.refit:
        raise AttributeError(
            f"this {type(search).__name__} was fitted with refit=False: it keeps the "
            "scores (cv_results_, best_params_) but no model; set refit=True to "
            "predict"
        )
    return True


def _refit_has(method: str):
    """``available_if`` check: the refit model has ``method``."""

    def check(search: Any) -> bool:
        _has_refit(search)
        if hasattr(search, "best_estimator_"):
            getattr(search.best_estimator_, method)  # its AttributeError says why
            return True
        return hasattr(search._estimator(), method)

    return check


class SearchMixin:
    """The choice of the best candidate, its refit on all the rows and the methods
    that delegate to it, for a search over the estimator ``_estimator_class``
    (whose parameters the search has, but ``alpha``), copying the refit model's
    ``_refit_attributes``. Put it left of scikit-learn's mixins."""

    _estimator_class: type
    _refit_attributes: tuple[str, ...]
    cv: Any
    scoring: Any
    refit: bool
    n_jobs: Any

    def _estimator(self, **changes):
        """The estimator the search tunes, with the search's parameters."""
        names = self._estimator_class().get_params().keys()
        params = {k: getattr(self, k) for k in names if hasattr(self, k)}
        params.update(changes)
        return self._estimator_class(**params)

    def _measure_and_choose(self, base, candidates, folds, data, shared) -> None:
        """Score every candidate on every fold, by ``shared()`` (one call of the
        extension for them all) or, when it is ``None``, fitting them one by one;
        then choose the best and refit it (:meth:`_choose_and_refit`). ``data`` is
        ``(X, y, sample_weight, labels)``; ``verbose`` reports all of it."""
        X, y, sample_weight, labels = data
        report = SearchReport(self) if getattr(self, "verbose", 0) else None
        if report is not None:
            report.start(len(folds), candidates, shared=shared is not None)
        with contextlib.nullcontext() if report is None else report.progress():
            if shared is None:
                scoring = getattr(self, "scoring", None)
                measured = fit_one_by_one(
                    base, candidates, X, y, sample_weight, folds, scoring, report
                )
            else:
                measured = shared()
        self._choose_and_refit(
            base, candidates, measured, X, y, sample_weight, labels, len(folds), report
        )

    def _choose_and_refit(
        self,
        base,
        candidates: list[Candidate],
        measured,
        X,
        y,
        sample_weight,
        labels,
        n_splits,
        report: SearchReport | None = None,
        *,
        n_rows: int | None = None,
        fit_kwargs: dict | None = None,
    ) -> None:
        """Set ``cv_results_`` from the ``measured`` (scores, fit times, score times,
        passes), the best candidate's attributes, and refit it on all the rows
        (``base`` with its parameters and the search's ``verbose``, fitted with
        ``fit_kwargs`` beside the weights) when ``refit``; ``report`` says the
        scores and the choice. ``n_rows``: the rows of ``X`` (by default its
        shape's)."""
        results = cv_results(candidates, *measured)
        n_rows = X.shape[0] if n_rows is None else n_rows
        self.cv_results_ = results
        self.n_splits_ = n_splits
        self.best_index_ = int(np.argmin(results["rank_test_score"]))
        self.best_score_ = float(results["mean_test_score"][self.best_index_])
        best = candidates[self.best_index_]
        self.best_params_ = best.params
        self.alpha_ = best.alpha_for(n_rows)
        self.C_ = best.value if best.as_c else 1.0 / (self.alpha_ * n_rows)
        if "gamma" in best.extra:
            self.gamma_ = best.extra["gamma"]
        if labels is not None:
            self.classes_ = labels[0]
        if report is not None:
            report.scored(candidates, results)
            report.best(best, self.best_score_, n_rows if self.refit else None)
        if not self.refit:
            return
        verbose = getattr(self, "verbose", 0)
        model = clone(base).set_params(**best.changes(n_rows), verbose=verbose)
        kwargs = dict(fit_kwargs or {})
        if sample_weight is not None:
            kwargs["sample_weight"] = sample_weight
        started = time.perf_counter()
        model.fit(X, y, **kwargs)
        self.refit_time_ = time.perf_counter() - started
        self.best_estimator_ = model
        for attr in self._refit_attributes:
            setattr(self, attr, getattr(model, attr))

    @available_if(_refit_has("decision_function"))
    def decision_function(self, X) -> NDArray[np.float64]:
        """The refit model's decision values."""
        check_is_fitted(self)
        return self.best_estimator_.decision_function(X)

    @available_if(_has_refit)
    def predict(self, X) -> NDArray[Any]:
        """The refit model's predictions."""
        check_is_fitted(self)
        return self.best_estimator_.predict(X)

    @available_if(_refit_has("predict_proba"))
    def predict_proba(self, X) -> NDArray[np.float64]:
        """The refit model's probabilities (``probability=True``, or the
        ``log_loss`` and ``modified_huber`` losses)."""
        check_is_fitted(self)
        return self.best_estimator_.predict_proba(X)

    @available_if(_refit_has("predict_log_proba"))
    def predict_log_proba(self, X) -> NDArray[np.float64]:
        """The logarithms of :meth:`predict_proba`."""
        check_is_fitted(self)
        return self.best_estimator_.predict_log_proba(X)

    def save(self, path) -> None:
        """Write the refit model to a model file (it loads as the estimator it is,
        for example a :class:`~pegasos_rs.PegasosClassifier`)."""
        _has_refit(self)
        check_is_fitted(self)
        self.best_estimator_.save(path)
