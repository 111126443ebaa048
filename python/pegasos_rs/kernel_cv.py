"""Kernel Pegasos with ``C`` (or ``alpha``) and ``gamma`` chosen by cross-validation:
:class:`KernelPegasosClassifierCV` and :class:`KernelPegasosRegressorCV`.

A kernel fit's cost is its kernel values, and a grid shares them: the folds' rows
are subsets of one training set, and every ``C`` of a ``gamma`` reads the same
values, and the inner products between rows, the costly part of those values, do
not depend on ``gamma``. So the search computes the inner products once, turns them
into the kernel matrix of all the rows for each ``gamma`` (in Rust: the values
:func:`~pegasos_rs.pairwise_kernels` gives, bit for bit) and trains every
(fold, ``C``) candidate of that ``gamma`` on its rows and columns
(``kernel="precomputed"``), scoring it on the held-out rows' columns. Each
candidate's fold model is, bit for bit, what the estimator fitted with
``kernel="precomputed"`` on that matrix's fold gives (``GridSearchCV`` over it), and
the model the kernel itself gives on the fold's rows up to the rounding of kernel
values. ``GridSearchCV(SVC)`` computes its kernel values again for every ``C`` and
every fold.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin, clone
from sklearn.utils._param_validation import StrOptions

from pegasos_rs import _core, _search
from pegasos_rs._base import R2Score, unchanged_on_error
from pegasos_rs._fit_inputs import seed_from
from pegasos_rs._kernel_expansion import KernelExpansionMixin
from pegasos_rs._linear_solver import labels_of
from pegasos_rs._typing import fit_context
from pegasos_rs._validation import (
    as_rust_matrix,
    check_targets,
    encode_targets,
    kernel_view,
    n_threads,
    resolve_gamma,
    sample_weight_vector,
)
from pegasos_rs.kernel import KernelPegasosClassifier
from pegasos_rs.kernel_regressor import KernelPegasosRegressor, _refuse_labels

if TYPE_CHECKING:
    from numpy.typing import ArrayLike, NDArray
    from typing_extensions import Self

    from pegasos_rs._typing import MatrixLike

#: The memory a search may give its kernel matrices (bytes): the raw values and one
#: ``gamma``'s matrix of all the rows, and a fold's parts, about ``3.7 n^2`` float64
#: values, fit in 4 GiB up to about 11,700 rows. Beyond, every candidate computes its
#: own kernel values on its fold, as ``GridSearchCV`` would.
GRAM_BYTES = 4 << 30

#: ``precompute="auto"`` shares the kernel matrices when the rows store at least this
#: many values on average: below, a kernel value costs a few products, and each fit
#: computing only the values it reads was faster than computing all of them once
#: (``benches/results/kernel_selection.md``: a9a, 14 values a row, against usps, 256).
SHARED_MIN_VALUES = 64

#: The kernels with a ``gamma``.
_GAMMA_KERNELS = ("rbf", "poly", "sigmoid", "chi2")

#: ``gammas=None``: these multiples of the ``gamma="scale"`` value.
DEFAULT_GAMMA_FACTORS = (0.25, 0.5, 1.0, 2.0, 4.0)

#: ``Cs=n``: ``n`` powers of two spread evenly (in log) between these exponents.
DEFAULT_C_EXPONENTS = (-2.0, 8.0)

#: The parameters of a kernel search (beside those of the estimator it tunes).
_SEARCH_CONSTRAINTS: dict = {
    **_search.SEARCH_CONSTRAINTS,
    "gammas": [None, "array-like"],
    "precompute": [StrOptions({"auto"}), "boolean"],
}


def _default_cs(n: int) -> NDArray[np.float64]:
    """``n`` powers of two spread evenly (in log) from ``2^-2`` to ``2^8``."""
    low, high = DEFAULT_C_EXPONENTS
    return 2.0 ** (np.round(np.linspace(low, high, n)) if n > 1 else np.array([0.0]))


def _gammas(est, X) -> NDArray[np.float64] | None:
    """The ``gamma`` values of a kernel search: ``gammas``, or the ``"scale"`` value
    of all the rows times :data:`DEFAULT_GAMMA_FACTORS`; ``None`` for a kernel
    without one."""
    name = type(est).__name__
    if est.kernel not in _GAMMA_KERNELS:
        if est.gammas is not None:
            raise ValueError(
                f"{name}: kernel={est.kernel!r} has no gamma; leave gammas=None "
                f"(the kernels with one: {', '.join(_GAMMA_KERNELS)})"
            )
        return None
    if est.gammas is None:
        scale = resolve_gamma(est.kernel, "scale", X)
        return scale * np.asarray(DEFAULT_GAMMA_FACTORS)
    return _search.Grid(name, est.gammas, as_c=False, what="gammas").values


class _KernelSearch(_search.SearchMixin):
    """The fit of the two kernel searches: one kernel matrix per ``gamma`` for all
    its candidates and folds."""

    alphas: Any
    Cs: Any
    gammas: Any
    precompute: Any
    kernel: str
    _refit_attributes = (
        "support_",
        "support_vectors_",
        "dual_coef_",
        "intercept_",
        "n_support_",
        "n_iter_",
    )

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = self.kernel != "precomputed"
        tags.input_tags.pairwise = self.kernel == "precomputed"
        return tags

    def _search(self, X, y, sample_weight, groups, labels) -> None:
        """Score every candidate on every fold, choose the best, refit."""
        name = type(self).__name__
        if not isinstance(self.sampling, str):  # type: ignore[attr-defined]
            raise ValueError(
                f"{name}: sampling as an order of rows cannot be followed by a search, "
                "whose folds train on different rows; use 'uniform' or 'shuffle'"
            )
        seed = seed_from(self.random_state)  # type: ignore[attr-defined]
        # The candidates' fits are silent: the search reports for them.
        base = self._estimator(alpha=1.0, random_state=seed, verbose=0)
        grid = _search.resolve_grid(self, _default_cs, 6)
        gammas = _gammas(self, X)
        folds = _search.folds_of(self, X, y, groups)
        if labels is not None:
            classes, _, _, codes = labels
            _search.check_fold_classes(name, classes, codes, folds)
        score_of = _search.scorer_from_predictions(base, self.scoring)
        candidates = grid.candidates(gammas)
        # Early stopping holds rows out of each fit, and reads their kernel values
        # against the fold's rows: each candidate fits on its own.
        alone = bool(getattr(self, "early_stopping", False))
        shared = None
        if score_of is not None and not alone and self._shares_matrices(X):

            def shared():
                return self._shared_kernel(
                    base, X, y, sample_weight, labels, grid, gammas, folds, score_of
                )

        self._measure_and_choose(base, candidates, folds, (X, y, sample_weight, labels), shared)

    def _shares_matrices(self, X) -> bool:
        """Whether the candidates train on kernel matrices computed once per gamma
        (``precompute``), rather than each on its own kernel values."""
        if self.kernel == "precomputed":
            return True
        if 3.7 * X.shape[0] ** 2 * 8 > GRAM_BYTES:
            return False
        if self.precompute == "auto":
            stored = X.nnz if sp.issparse(X) else X.size
            return stored >= SHARED_MIN_VALUES * X.shape[0]
        return bool(self.precompute)

    def _spec(self, gamma: float | None) -> dict:
        """The kernel as the extension reads it, with ``gamma`` (1 when it has none)."""
        return {
            "kernel_name": self.kernel,
            "gamma": 1.0 if gamma is None else float(gamma),
            "degree": int(self.degree),  # type: ignore[attr-defined]
            "coef0": float(self.coef0),  # type: ignore[attr-defined]
        }

    def _shared_kernel(self, base, X, y, sample_weight, labels, grid, gammas, folds, score_of):
        """Every candidate of a ``gamma`` trained on that ``gamma``'s kernel matrix of
        all the rows, whose ``gamma``-free part (the inner products) is computed once
        for all; the scores from the held-out rows' decision values."""
        n_values, n_folds = len(grid), len(folds)
        n_gammas = 1 if gammas is None else len(gammas)
        shape = (n_values * n_gammas, n_folds)
        scores, fit_time, score_time, n_iter = (np.zeros(shape) for _ in range(4))
        # Probabilities are not scored here (those scorings fit one by one), and
        # predict is the same with or without them.
        on_matrix = clone(base).set_params(kernel="precomputed")
        if labels is not None:
            on_matrix.set_params(probability=False)
        threads = n_threads(self.n_jobs)
        started = time.perf_counter()
        if self.kernel == "precomputed":
            rows, raw = None, None
        else:
            rows = as_rust_matrix(kernel_view(X))
            raw = _core.raw_gram(rows, kernel=self._spec(None), n_threads=threads)
        # Each matrix's time is given to the candidates it served in equal shares.
        shared = (time.perf_counter() - started) / shape[0]
        for g in range(n_gammas):
            started = time.perf_counter()
            if raw is None:
                gram = np.asarray(X, dtype=np.float64)
            else:
                spec = self._spec(None if gammas is None else gammas[g])
                gram = _core.finish_gram(rows, raw, kernel=spec, n_threads=threads)
            share = shared + (time.perf_counter() - started) / n_values
            for f, (tr, te) in enumerate(folds):
                train = gram[np.ix_(tr, tr)]
                # The held-out rows' kernel values; each candidate reads the columns
                # of its support vectors.
                held_out = gram.take(te, axis=0)
                kwargs = {} if sample_weight is None else {"sample_weight": sample_weight[tr]}
                w_te = None if sample_weight is None else sample_weight[te]
                for v, alpha in enumerate(grid.alphas_for(tr.size)):
                    row = v * n_gammas + g  # GridSearchCV's order: gamma varies fastest
                    model = clone(on_matrix).set_params(alpha=float(alpha))
                    started = time.perf_counter()
                    model.fit(train, y[tr], **kwargs)
                    fit_time[row, f] = time.perf_counter() - started + share / n_folds
                    started = time.perf_counter()
                    pred, values = _held_out_values(model, held_out, tr, labels is not None)
                    scores[row, f] = score_of(y[te], pred, values, w_te)
                    score_time[row, f] = time.perf_counter() - started
                    n_iter[row, f] = model.n_iter_
        return scores, fit_time, score_time, n_iter


def _held_out_values(model, held_out, train, classifier: bool):
    """``(predictions, decision values)`` of a candidate fitted on the rows ``train``,
    for the held-out rows whose kernel values against all the rows are ``held_out``:
    from their columns of its support vectors alone (the values
    ``decision_function`` reads of the held-out rows' block against ``train``, bit
    for bit). A regressor's decision values are its predictions."""
    problems = model._support_sums(held_out.take(train[model.support_], axis=1))
    if not classifier:
        return problems, problems
    scores = model._class_scores_of(problems)  # what predict takes its labels from
    pred = labels_of(model.classes_, scores)
    if model.decision_function_shape == "ovo" and model._pairs():
        return pred, problems
    return pred, scores


_SEARCH_DOC = """
    alphas : array-like of float or None, default=None
        The candidate values of ``alpha``, the same in every fold and in the
        refit. Give ``alphas`` or ``Cs``, not both.
    Cs : int or array-like of float or None, default=None
        The candidate values of ``C``, ``SVC``'s: a fit on ``m`` rows uses
        ``alpha = 1 / (C m)`` (each fold its own ``m``, the refit all the rows).
        An int ``n`` (``None``: 6) is ``n`` powers of two spread evenly from
        ``2^-2`` to ``2^8``.
    gammas : array-like of float or None, default=None
        The candidate values of ``gamma`` (rbf, poly, sigmoid and chi2 kernels;
        ``None`` for the others). ``None``: ``gamma="scale"``'s value on all the
        rows, ``1 / (n_features X.var())``, times 1/4, 1/2, 1, 2 and 4.
    precompute : "auto" or bool, default="auto"
        ``True``: compute each ``gamma``'s kernel matrix of all the rows once
        (their inner products once for every ``gamma``), and train every
        candidate on its fold's part. ``False``: each candidate computes the
        kernel values its fit reads, on its fold's rows, as ``GridSearchCV``
        does. ``"auto"``: ``True`` when the rows store at least 64 values on
        average (a kernel value then costs more than reading it from a matrix;
        on sparser rows, a fit reads few of the values the matrix would hold).
        Either way the matrices must fit in 4 GiB, about 11,700 rows; beyond,
        ``False``.
    cv : int, cross-validation generator or iterable, default=5
        The folds, as ``GridSearchCV`` takes them (an int: stratified folds for
        a classifier, unshuffled).
    scoring : str, callable or None, default=None
        How candidates are compared (``None``: the estimator's ``score``,
        accuracy or R^2). A scorer of predictions or decision values is computed
        from the held-out rows' values; a callable or a scorer of probabilities
        fits and scores each candidate on each fold with the kernel itself, as
        ``GridSearchCV`` does (no matrix is shared).
    refit : bool, default=True
        Refit the best candidate on all the rows with the kernel itself
        (``best_estimator_``; the search then predicts with it).    verbose : int, default=0
        ``1``: report to :data:`sys.stderr` what the search fits, a progress line
        every few seconds during a long call, each candidate's mean score, the
        best and the refit (whose passes report as the estimator's ``verbose``
        does); the candidates' own fits are silent. ``2``: also each fit's score
        when the candidates are fitted one by one.
"""

_HOW = """
    The kernel matrix of all the rows is computed once per ``gamma``, its costly
    part (the inner products between rows, which do not depend on ``gamma``) once
    for all, in Rust: the values :func:`~pegasos_rs.pairwise_kernels` gives, bit
    for bit. Every (fold, ``C``) candidate of a ``gamma`` trains on its fold's
    part of that matrix (``kernel="precomputed"``) and is scored on the held-out
    rows' part: each candidate's fold scores are those of ``GridSearchCV`` over
    the estimator with ``kernel="precomputed"`` on that matrix, bit for bit, and
    those of the kernel itself on the fold's rows up to the rounding of kernel
    values. The matrices take about ``3.7 * 8 n^2`` bytes at once; beyond 4 GiB
    (about 11,700 rows), and on sparse rows (see ``precompute``), each candidate
    computes its own kernel values on its fold instead, as ``GridSearchCV``
    does. The refit uses the kernel itself, on all the rows, with the best ``C``
    and ``gamma``; the search predicts with it.
"""

_ATTRIBUTES = """
    alpha_ : float
        The ``alpha`` of the refit (of the best candidate, for all the rows).
    C_ : float
        The best ``C`` (with ``alphas``, the ``C`` that ``alpha_`` is on all the
        rows).
    gamma_ : float
        The best ``gamma`` (kernels with one).
    best_score_ : float
        The best candidate's mean held-out score.
    best_index_ : int
        Its index in ``cv_results_``.
    best_params_ : dict
        ``{"C": ..., "gamma": ...}`` (or ``"alpha"``; no ``"gamma"`` for a kernel
        without one).
    cv_results_ : dict of arrays
        ``GridSearchCV``'s layout and order (``gamma`` varies fastest):
        ``split{k}_test_score``, ``mean_test_score``, ``std_test_score``,
        ``rank_test_score``, ``params``, ``param_C`` (or ``param_alpha``),
        ``param_gamma``, the times (a kernel matrix's time is given to its
        candidates in equal shares) and ``mean_n_iter``.
    best_estimator_ : estimator
        The refit model (``refit=True``).
    support_, support_vectors_, dual_coef_, intercept_, n_support_, n_iter_
        The refit model's.
    n_splits_ : int
        The number of folds.
"""


class KernelPegasosClassifierCV(_KernelSearch, ClassifierMixin, BaseEstimator):
    __doc__ = f"""Kernel Pegasos classifier with ``C`` (or ``alpha``) and ``gamma``
    chosen by cross-validation.
    {_HOW}
    Every other parameter is :class:`KernelPegasosClassifier`'s, used by every
    candidate and the refit; ``random_state=None`` draws one seed for the whole
    search.

    Parameters
    ----------
    {_SEARCH_DOC}
    loss, kernel, degree, coef0, max_iter, batch_size, fit_intercept, average, \
sampling, class_weight, cache_size, strategy, tol, n_iter_no_change, early_stopping, \
validation_fraction, random_state, n_jobs, probability, multi_class, \
decision_function_shape
        As :class:`KernelPegasosClassifier` (``sampling`` not an array: the folds
        train on different rows; ``early_stopping`` fits each candidate on its
        own).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    {_ATTRIBUTES}
    """

    _estimator_class = KernelPegasosClassifier
    _parameter_constraints: dict = {  # noqa: RUF012 (scikit-learn convention)
        **{
            k: v
            for k, v in KernelPegasosClassifier._parameter_constraints.items()
            if k not in ("alpha", "gamma")
        },
        **_SEARCH_CONSTRAINTS,
    }

    def __init__(
        self,
        *,
        alphas: ArrayLike | None = None,
        Cs: int | ArrayLike | None = None,
        gammas: ArrayLike | None = None,
        precompute: str | bool = "auto",
        cv: Any = 5,
        scoring: Any = None,
        refit: bool = True,
        loss: str = "hinge",
        kernel: str = "rbf",
        degree: int = 3,
        coef0: float = 0.0,
        max_iter: int = 10,
        batch_size: int = 1,
        fit_intercept: bool = False,
        average: bool = True,
        sampling: Any = "uniform",
        class_weight: Any = None,
        cache_size: float = 200,
        strategy: str = "auto",
        tol: float | None = None,
        n_iter_no_change: int = 5,
        early_stopping: bool = False,
        validation_fraction: float = 0.1,
        random_state: Any = None,
        n_jobs: int | None = None,
        verbose: int = 0,
        probability: bool = False,
        multi_class: str = "auto",
        decision_function_shape: str = "ovr",
    ) -> None:
        self.alphas = alphas
        self.Cs = Cs
        self.gammas = gammas
        self.precompute = precompute
        self.cv = cv
        self.scoring = scoring
        self.refit = refit
        self.loss = loss
        self.kernel = kernel
        self.degree = degree
        self.coef0 = coef0
        self.max_iter = max_iter
        self.batch_size = batch_size
        self.fit_intercept = fit_intercept
        self.average = average
        self.sampling = sampling
        self.class_weight = class_weight
        self.cache_size = cache_size
        self.strategy = strategy
        self.tol = tol
        self.n_iter_no_change = n_iter_no_change
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.verbose = verbose
        self.probability = probability
        self.multi_class = multi_class
        self.decision_function_shape = decision_function_shape

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
        X, y = KernelExpansionMixin._training_matrix(self, X, y)
        check_targets(y)
        labels = encode_targets(type(self).__name__, y)
        sample_weight = sample_weight_vector(sample_weight, X)
        self._search(X, y, sample_weight, groups, labels)
        return self


class KernelPegasosRegressorCV(_KernelSearch, R2Score, RegressorMixin, BaseEstimator):
    __doc__ = f"""Kernel Pegasos regressor (support vector regression) with ``C``
    (or ``alpha``) and ``gamma`` chosen by cross-validation.
    {_HOW}
    Every other parameter is :class:`KernelPegasosRegressor`'s, used by every
    candidate and the refit.

    Parameters
    ----------
    {_SEARCH_DOC}
    loss, epsilon, kernel, degree, coef0, max_iter, batch_size, fit_intercept, \
average, sampling, cache_size, strategy, tol, n_iter_no_change, early_stopping, \
validation_fraction, random_state, n_jobs
        As :class:`KernelPegasosRegressor` (``sampling`` not an array;
        ``early_stopping`` fits each candidate on its own).

    Attributes
    ----------
    {_ATTRIBUTES}
    """

    _estimator_class = KernelPegasosRegressor
    _parameter_constraints: dict = {  # noqa: RUF012 (scikit-learn convention)
        **{
            k: v
            for k, v in KernelPegasosRegressor._parameter_constraints.items()
            if k not in ("alpha", "gamma")
        },
        **_SEARCH_CONSTRAINTS,
    }

    def __init__(
        self,
        *,
        alphas: ArrayLike | None = None,
        Cs: int | ArrayLike | None = None,
        gammas: ArrayLike | None = None,
        precompute: str | bool = "auto",
        cv: Any = 5,
        scoring: Any = None,
        refit: bool = True,
        loss: str = "epsilon_insensitive",
        epsilon: float = 0.1,
        kernel: str = "rbf",
        degree: int = 3,
        coef0: float = 0.0,
        max_iter: int = 10,
        batch_size: int = 1,
        fit_intercept: bool = True,
        average: bool = True,
        sampling: Any = "uniform",
        cache_size: float = 200,
        strategy: str = "auto",
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
        self.gammas = gammas
        self.precompute = precompute
        self.cv = cv
        self.scoring = scoring
        self.refit = refit
        self.loss = loss
        self.epsilon = epsilon
        self.kernel = kernel
        self.degree = degree
        self.coef0 = coef0
        self.max_iter = max_iter
        self.batch_size = batch_size
        self.fit_intercept = fit_intercept
        self.average = average
        self.sampling = sampling
        self.cache_size = cache_size
        self.strategy = strategy
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
        _refuse_labels(type(self).__name__, y)
        X, y = KernelExpansionMixin._training_matrix(self, X, y, y_numeric=True)
        y = np.asarray(y, dtype=np.float64)
        sample_weight = sample_weight_vector(sample_weight, X)
        self._search(X, y, sample_weight, groups, None)
        return self
