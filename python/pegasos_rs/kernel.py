"""Kernel Pegasos as a scikit-learn classifier."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils._param_validation import StrOptions
from sklearn.utils.validation import check_is_fitted

from pegasos_rs import _core, _kernel_expansion, _platt
from pegasos_rs._base import PegasosModelMixin, unchanged_on_error
from pegasos_rs._docs import filled
from pegasos_rs._fitted import fitted_param
from pegasos_rs._kernel_expansion import AUTO_OVO_ROWS, KernelExpansionMixin, multi_class_used
from pegasos_rs._progress import reported
from pegasos_rs._registry import persisted
from pegasos_rs._typing import fit_context
from pegasos_rs._validation import (
    as_rust_matrix,
    check_targets,
    class_weight_vector,
    encode_targets,
    n_threads,
    resolve_gamma,
    sample_weight_vector,
)

if TYPE_CHECKING:
    from typing import Literal

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


@persisted
@filled
class KernelPegasosClassifier(
    KernelExpansionMixin, PegasosModelMixin, ClassifierMixin, BaseEstimator
):
    """Kernel SVM trained by kernelized Pegasos, predicting through its support vectors.

    Minimises ``alpha/2 ||w||^2 + 1/m sum_i c_i l(y_i (<w, phi(x_i)> + b))`` in the
    feature space of ``kernel``, ``l`` the hinge ``max(0, 1 - z)`` by default (see
    ``loss``). The solver keeps a coefficient ``a_i`` per example: each step adds
    ``c_i g_i / k`` to those of the drawn examples whose loss has a slope,
    ``g_i = -dl/dp`` at their prediction (for the hinge, ``y_i`` on a margin
    violation: ``a_i = alpha_i y_i`` with ``alpha_i`` the weighted count of
    violations). After ``T`` steps the model is
    ``f(x) = 1/(alpha T) sum_i a_i K(x_i, x) + b``, a sum over the support vectors
    (``a_i != 0``) only. With ``kernel="linear"``, the same seed and no projection it
    reproduces :class:`PegasosClassifier`'s decision values.
    ``SVC(C=1/(alpha * n_samples))`` solves the same problem exactly for the hinge.

    Multiclass problems are solved one-vs-rest (``multi_class="ovr"``) or
    one-vs-one (``"ovo"``, as :class:`sklearn.svm.SVC`; ``"auto"``, the default,
    chooses by the classes and rows), the binary problems in
    parallel (``n_jobs``), each with its own random stream, so results do not depend
    on the number of threads.

    Parameters
    ----------
    alpha : float, default=1e-4
        Regularisation strength, the paper's lambda; ``C = 1/(alpha n_samples)``.
    loss : {"hinge", "squared_hinge", "modified_huber", "log_loss"}, default="hinge"
        The loss of the margin ``z = y f(x)`` (scikit-learn's ``SGDClassifier``
        names). ``"hinge"``: ``max(0, 1 - z)``, the SVM (``SVC``, LIBSVM's C-SVC).
        ``"squared_hinge"``: ``max(0, 1 - z)**2``, the L2-loss SVM (LIBLINEAR's
        ``-s 1``/``-s 2`` objective, with a kernel); its slope grows with the
        violation, so its steps are bounded by starting the run at step
        ``t0 = ceil(2 max_i c_i (K(x_i, x_i) + e) / alpha)`` instead of 1 (``e`` = 1
        with ``fit_intercept``, else 0; ``K(x, x) = 1`` for rbf): from step 1 its
        first steps overshoot and the coefficients explode. Every step is still
        ``1/(alpha t)``; ``t_`` and the reported steps count from ``t0``.
        ``"modified_huber"``: the squared hinge down to ``z = -1``, linear below;
        its runs start at the squared hinge's ``t0``; ``predict_proba`` as
        ``SGDClassifier``'s for two classes and one-vs-rest models (a one-vs-one
        model's scores are votes: use ``probability=True``). ``"log_loss"`` is refused: its
        slope is never zero, so every example drawn would become a support vector;
        map the data explicitly and train the linear solver instead, for example
        ``make_pipeline(Nystroem(), PegasosClassifier(loss="log_loss"))``.
    kernel : {"linear", "rbf", "poly", "sigmoid", "chi2", "intersection", \
"precomputed"}, default="rbf"
        Kernel, with scikit-learn's definitions (``chi2`` is
        ``exp(-gamma sum (x-y)^2/(x+y))``, ``intersection`` is ``sum min(x, y)``; both
        need non-negative data). ``"precomputed"``: ``X`` is the Gram matrix
        (``fit``: square, assumed symmetric; ``predict``: ``(n_test, n_train)``).
    gamma : {"scale", "auto"} or float, default="scale"
        Kernel coefficient of rbf, poly, sigmoid and chi2. ``"scale"``:
        ``1 / (n_features * X.var())``; ``"auto"``: ``1 / n_features``.
    degree : int, default=3
        Degree of the poly kernel.
    coef0 : float, default=0.0
        Constant term of the poly and sigmoid kernels.
    max_iter : int, default=10
        Number of passes; a pass is ``ceil(n_samples / batch_size)`` steps.
    batch_size : int, default=1
        Examples per step (the paper's k); all k margins use the same iterate.
    fit_intercept : bool, default=False
        Learn the paper's unregularised bias (step ``1/(alpha t)``). Off by default,
        as in the paper's kernel experiments; the rbf kernel rarely needs it.
    average : bool or "auto", default="auto"
        Return the average of the iterates of the last half of the steps (suffix
        averaging) instead of the last iterate (the paper's choice, ``False``). It
        costs O(1) per violation, keeps the same support vectors, and is much less
        noisy. ``"auto"``: averaged without a ``budget``, the last iterate with one
        (each maintenance step maps the average as it maps the iterate, and the
        average's errors, unlike the iterate's, are never corrected by later steps,
        and at small budgets the averaged model lost much accuracy; see
        :ref:`kernel-budget`).
    sampling : {"uniform", "shuffle", "balanced"} or array-like of int, default="uniform"
        As for :class:`PegasosClassifier`.
    class_weight : dict, "balanced" or None, default=None
        Weights of the positive class of each one-vs-rest problem.
    cache_size : float, default=200
        Kernel cache in megabytes (as libsvm's), shared by the classes trained at the
        same time. It changes speed, never the result.
    strategy : {"auto", "margins", "support"}, default="auto"
        How margins are evaluated. ``"margins"`` keeps the margin of every
        training example up to date (a kernel column per violation, O(1) per step
        otherwise); ``"support"`` evaluates each drawn example against the support
        set (kernel rows cached). The two give the same model up to rounding.
        ``"auto"`` keeps margins from the start on small fits (``n**2 * max_iter``
        below 10**6); any other fit runs 1/16 of its first pass on the support set,
        then switches to margins (built from that support set) when a cost model
        projects the whole fit cheaper that way: a one-pass fit stays on the
        support set, longer fits switch unless the support set's kernel rows fit
        the cache and it grows slowly. The model counts the support vectors the
        pilot found, never times, and assumes the default ``cache_size``: the
        choice, hence the model, is the same on every machine, thread count and
        cache size. ``fit_report_`` says what ran.
    tol : float or None, default=None
        With ``early_stopping``: the improvement of the held-out score that counts
        (None: 1e-3). Not used otherwise (the kernel solver runs its passes).
    n_iter_no_change : int, default=5
        With ``early_stopping``: passes without improvement tolerated.
    {early_stopping}
    {budget}
    {random_state}
    n_jobs : int or None, default=None
        Threads for training (classes, kernel columns) and prediction (-1: all cores).
    verbose : int, default=0
        Report to :data:`sys.stderr` (so :func:`contextlib.redirect_stderr`
        captures it): a line after every pass, and during a pass a progress line
        every few seconds; prediction reports its progress too.
    multi_class : {"auto", "ovr", "ovo"}, default="auto"
        How more than two classes are learned. ``"ovr"``: one binary problem per
        class, that class against all the others, each on all the rows.
        ``"ovo"``: one problem per pair of classes ``(i, j)``, ``i < j`` in
        :class:`sklearn.svm.SVC`'s order, trained on the rows of those two classes
        only (class ``i`` positive; each row weighs its own class's
        ``class_weight``), pair ``p`` of the ``K (K - 1) / 2`` with random stream
        ``p``; a pair evaluates kernel values between its own rows only, its kernel
        columns cached over its passes. Each pair solves ``SVC``'s problem for its
        rows with the same ``C = 1/(alpha n_samples)``: its regularisation is
        ``alpha n_samples / n_pair`` for its ``n_pair`` rows. With many classes the
        pairs' problems are much smaller, and one-vs-one trains faster. Prediction
        takes a vote over the pairs, ties broken by the summed confidences (as
        ``SVC(break_ties=True)``). A ``sampling`` order is followed within each pair
        (its entries of the pair's rows). With two classes both give the same
        model, bit for bit. ``"auto"``: ``"ovo"`` when there are more than two
        classes and a pair has at least 500 rows on average
        (``2 n_samples / n_classes``), otherwise ``"ovr"``. Measured against
        ``SVC`` (the benchmarks' "many classes" page, ``kernel_classes.md``, has the
        figures), one-vs-one reached ``SVC``'s accuracy - 1 pp in a fraction of its
        time on 3 to 26 classes: as fast as one-vs-rest on 3 classes (dna), several
        times faster on 26 classes and usps; on pairs of tiny classes
        (scikit-learn's digits, 260 rows a pair) fixed costs dominate and
        one-vs-rest needs fewer passes.
        ``multi_class_`` says which one a fitted model used.
    decision_function_shape : {"ovr", "ovo"}, default="ovr"
        The shape of :meth:`decision_function` with ``multi_class="ovo"`` and more
        than two classes, as :class:`sklearn.svm.SVC`'s: ``"ovo"`` returns the
        pairs' decision values ``(n_samples, K (K - 1) / 2)`` (positive votes for the
        pair's first class); ``"ovr"`` turns them into one score per class, the
        votes plus the summed confidences scaled into ``(-1/3, 1/3)``
        (scikit-learn's transformation), whose largest entry is the predicted
        class. One-vs-rest models return one score per class: ``"ovo"`` with
        ``multi_class="ovr"`` and more than two classes raises ``ValueError`` in
        ``fit`` and ``decision_function`` (``SVC`` always trains the pairs, so
        ``"ovo"`` there always gives their values; here set ``multi_class="ovo"``
        for them). With two classes both shapes are the one decision value, as
        for ``SVC``.
    probability : bool, default=False
        {probability_platt}
        the support vectors, ``dual_coef_`` and ``predict`` are bit for bit those of
        ``probability=False``. ``fit`` takes up to about 6 times as long: 5 fits on 4/5
        of the data, then the final fit on all of it (less when the cost grows faster
        than the rows: about 4.2 times for a cost that grows as their square).
        ``gamma="scale"`` is computed on each fold's training part, as any clone in a
        scikit-learn cross-validation does. With ``multi_class="ovo"`` each class's
        sigmoid is fitted to its score as ``decision_function_shape="ovr"`` gives it.

    Attributes
    ----------
    support_ : ndarray of shape (n_SV,)
        Indices of the support vectors in the training set (union over the binary
        problems: classes, or pairs of classes with ``multi_class="ovo"``): the
        examples whose loss had a slope when they were drawn.
    support_vectors_ : ndarray or sparse matrix of shape (n_SV, n_features)
        The support vectors (sparse when the training data was sparse; empty for a
        precomputed kernel).
    dual_coef_ : ndarray of shape (n_problems, n_SV)
        ``a_i / (alpha T)`` (``alpha_i y_i / (alpha T)`` for the hinge) per binary
        problem (1 problem for two classes,
        otherwise one per class, or with ``multi_class="ovo"`` one per pair of
        classes in :class:`sklearn.svm.SVC`'s order, ``y_i = +1`` for the pair's first
        class); zero where an example is not a support vector of that problem.
    n_support_ : ndarray of shape (n_classes,)
        Number of support vectors of each class (by their label).
    multi_class_ : {"ovr", "ovo"}
        The decomposition the model was trained with (``multi_class`` with
        ``"auto"`` resolved); ``"ovr"`` for two classes, whose one problem both
        decompositions share.
    intercept_ : ndarray of shape (n_problems,)
        The bias of each binary problem.
    classes_ : ndarray of shape (n_classes,)
    shape_fit_ : tuple of int
        Shape of the training data (for a precomputed kernel, its Gram matrix), as
        :class:`sklearn.svm.SVC`'s.
    n_features_in_ : int
    n_iter_ : int
        Passes run (``max_iter``; with ``early_stopping``, the most any binary
        problem ran).
    t_ : int
        Steps taken per binary problem (the first problem's; with
        ``loss="squared_hinge"`` counted from the first step ``t0 - 1``, which
        depends on the problem's weights, see ``loss``).
    fit_report_ : list of dict
        Per binary problem (class or pair of classes): strategy used at the end
        (``"strategy"``), steps, kernel values computed, cache hits and misses, the
        primal objective of the last iterate (``"margins"`` strategy only; with
        ``average=True`` the returned model is the average, whose objective is
        usually lower), and ``"switched_at"``: the step after which
        ``strategy="auto"`` switched from ``"support"`` to ``"margins"`` (``None``
        when it did not).
    {validation_scores}
    {platt_attributes}

    Notes
    -----
    {notes_threads}
    """

    #: What a model file holds (pegasos_rs.io.model_io reads only this declaration):
    #: the fitted arrays, counts, resolved gamma and the per-problem ``fit_report_``
    #: (as a list of plain values).
    _saved_state = _kernel_expansion.saved_state(
        (
            "support_",
            "support_vectors_",
            "dual_coef_",
            "intercept_",
            "n_support_",
            "classes_",
            "shape_fit_",
            "_sv_kernel_rows",
            "probA_",
            "probB_",
        ),
        fitted="classes_",
        # Files written before it was saved resolve it from multi_class and shape_fit_.
        scalars={"multi_class_": "str"},
    )

    _parameter_constraints: dict = {  # noqa: RUF012 (scikit-learn convention)
        **_kernel_expansion.PARAMETER_CONSTRAINTS,
        # log_loss is refused by fit, with the reason and what to use instead.
        "loss": [StrOptions({"hinge", "squared_hinge", "modified_huber", "log_loss"})],
        "sampling": [StrOptions({"uniform", "shuffle", "balanced"}), "array-like"],
        "class_weight": [StrOptions({"balanced"}), dict, None],
        "probability": ["boolean"],
        "multi_class": [StrOptions({"auto", "ovr", "ovo"})],
        "decision_function_shape": [StrOptions({"ovr", "ovo"})],
    }

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
    ) -> None:
        self.alpha = alpha
        self.loss = loss
        self.kernel = kernel
        self.gamma = gamma
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
        self.budget = budget
        self.budget_maintenance = budget_maintenance
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.verbose = verbose
        self.probability = probability
        self.multi_class = multi_class
        self.decision_function_shape = decision_function_shape

    @unchanged_on_error
    @fit_context(prefer_skip_nested_validation=True)
    @reported("steps")
    def fit(self, X: MatrixLike, y: ArrayLike, sample_weight: ArrayLike | None = None) -> Self:
        """Train for ``max_iter`` passes from scratch.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features), or \
(n_samples, n_samples) for a precomputed kernel
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), default=None

        Returns
        -------
        self
        """
        precomputed = self.kernel == "precomputed"
        X, y = self._training_matrix(X, y)
        check_targets(y)
        classes, present, counts, codes = encode_targets(type(self).__name__, y)
        used = multi_class_used(self.multi_class, classes.size, X.shape[0])
        self._check_shape_is_available(used, classes.size)
        # Checked before training: too small a class for the folds is an input error.
        n_folds = _platt.n_folds_for(counts) if self.probability else 0
        weights = sample_weight_vector(sample_weight, X)
        class_weight = class_weight_vector(self.class_weight, classes, present, counts)
        gamma = resolve_gamma(self.kernel, self.gamma, X)
        if self.budget is not None:
            self._check_budget()
            Xk = self._kernel_rows(X)
            result = _core.fit_kernel_budget(
                as_rust_matrix(Xk),
                codes,
                {
                    "n_classes": int(classes.size),
                    "class_weight": class_weight,
                    "sample_weight": weights,
                },
                self._solver_params(gamma, used),
                n_threads(self.n_jobs),
                int(self.budget),
                self.budget_maintenance,
            )
            self.classes_ = classes
            self.multi_class_ = used
            self._gamma = gamma
            self._store_budget(X.shape, sp.issparse(X), result)
            self.n_support_ = _budget_support_counts(self.dual_coef_, classes.size, used)
            self._fit_probability(X, y, weights, n_folds, pairwise=precomputed)
            return self
        # Early stopping: the held-out rows last (a copy; the folds of the
        # probabilities read X).
        rows, codes_fit, weights_fit, order, n_held = self._hold_out(
            X, codes, weights, classes.size
        )
        Xk = self._kernel_rows(rows)
        result = _core.fit_kernel(
            as_rust_matrix(Xk),
            codes_fit,
            {
                "n_classes": int(classes.size),
                "class_weight": class_weight,
                "sample_weight": weights_fit,
            },
            self._solver_params(gamma, used),
            n_threads(self.n_jobs),
            n_held,
        )
        self.classes_ = classes
        self.multi_class_ = used
        self._gamma = gamma
        self._store_expansion(rows, Xk, result, order)
        self.n_support_ = np.bincount(codes[self.support_], minlength=classes.size).astype(np.int32)
        self._fit_probability(X, y, weights, n_folds, pairwise=precomputed)
        return self

    def _solver_params(self, gamma: float, multi_class: str) -> dict:
        """The hyper-parameters as the extension reads them (one named dict), with
        the decomposition ``multi_class`` used."""
        return {**self._kernel_params(gamma, self.loss), "multi_class": multi_class}

    @reported("rows")
    def decision_function(self, X: MatrixLike) -> NDArray[np.float64]:
        """Decision values of the binary problems, or a score per class.

        The binary problems' values are
        ``sum_i dual_coef_[:, i] K(support_vectors_[i], x) + intercept_``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features), or \
(n_samples, n_samples_fit) for a precomputed kernel

        Returns
        -------
        ndarray of shape (n_samples,), (n_samples, n_classes) or \
(n_samples, n_classes * (n_classes - 1) / 2)
            Two classes: one value, positive for ``classes_[1]``. One-vs-rest: a
            value per class. One-vs-one: the pairs' values
            (``decision_function_shape="ovo"``) or a score per class from their
            votes and confidences (``"ovr"``, see ``decision_function_shape``).
        """
        check_is_fitted(self)
        self._check_shape_is_available(self.multi_class_, self.classes_.size)
        scores = self._problem_scores(X)
        if self._pairs() and self.decision_function_shape == "ovr":
            return _votes(scores, self.classes_.size)
        return scores

    def _check_shape_is_available(self, multi_class: str, n_classes: int) -> None:
        """``ValueError`` for ``decision_function_shape="ovo"`` with a one-vs-rest
        model (``multi_class`` used) of more than two classes, which has no pairs'
        values to return (with two classes both shapes are the one value, as
        ``SVC``'s)."""
        if self.decision_function_shape == "ovo" and multi_class == "ovr" and n_classes > 2:
            asked = fitted_param(self, "multi_class")
            how = (
                "multi_class='auto' chose one-vs-rest (the pairs would average fewer than "
                f"{AUTO_OVO_ROWS} rows), which"
                if asked == "auto"
                else f"multi_class={asked!r}"
            )
            raise ValueError(
                "decision_function_shape='ovo' returns the decision values of the pairs "
                f"of classes, but {how} trains one problem per class, which "
                f"gives one score per class ({n_classes} classes), not the pairs' values. "
                "Set multi_class='ovo' to train one problem per pair of classes (as "
                "SVC does), or decision_function_shape='ovr' for the score per class"
            )

    def _class_scores(self, X: MatrixLike) -> NDArray[np.float64]:
        """A score per class (one for two classes), whatever the output shape."""
        return self._class_scores_of(self._problem_scores(X))

    def _class_scores_of(self, scores: NDArray[np.float64]) -> NDArray[np.float64]:
        """A score per class from the binary problems' decision values ``scores``."""
        return _votes(scores, self.classes_.size) if self._pairs() else scores

    def _pairs(self) -> bool:
        """The fitted model has a binary problem per pair of (more than 2) classes."""
        return self.multi_class_ == "ovo"

    def _why_no_loss_probabilities(self) -> str | None:
        """A one-vs-one model's ``modified_huber`` scores are its pairs' values (and
        the votes they cast), not a value per class: the loss's probabilities
        ``(clip(f, -1, 1) + 1) / 2`` are defined for one-vs-rest problems only."""
        if "classes_" not in self.__dict__ or not self._pairs():
            return None
        return (
            f"loss={fitted_param(self, 'loss')!r} gives probabilities from each class's "
            "own decision value (as SGDClassifier's), but this model was trained "
            f"one-vs-one (multi_class_='ovo', {self.classes_.size} classes): its values "
            "belong to pairs of classes, and clipping their votes is no probability. "
            "Fit with probability=True for Platt's probabilities (as SVC), or with "
            "multi_class='ovr' for the loss's own"
        )

    def _problem_scores(self, X: MatrixLike) -> NDArray[np.float64]:
        """The decision values of the binary problems (1-d for one problem)."""
        return self._expansion(X)


def _votes(pair_scores: NDArray[np.float64], n_classes: int) -> NDArray[np.float64]:
    """A score per class from one-vs-one decision values, as scikit-learn's SVC
    turns them (``decision_function_shape="ovr"``).

    Pair ``(i, j)`` (in order ``(0, 1), (0, 2), ..., (n_classes - 2, n_classes - 1)``)
    votes for ``i`` when its value is at least 0, else for ``j``; the confidences
    are summed per class (the value added for ``i``, subtracted for ``j``) and
    scaled into ``(-1/3, 1/3)``, so they break ties between equal votes and never
    overturn a vote.

    Parameters
    ----------
    pair_scores : ndarray of shape (n_samples, n_classes * (n_classes - 1) / 2)
    n_classes : int

    Returns
    -------
    ndarray of shape (n_samples, n_classes)
    """
    n = pair_scores.shape[0]
    votes = np.zeros((n, n_classes))
    confidence = np.zeros((n, n_classes))
    p = 0
    for i in range(n_classes):
        for j in range(i + 1, n_classes):
            f = pair_scores[:, p]
            confidence[:, i] += f
            confidence[:, j] -= f
            votes[:, i] += f >= 0
            votes[:, j] += f < 0
            p += 1
    return votes + confidence / (3 * (np.abs(confidence) + 1))


def _budget_support_counts(dual, n_classes: int, multi_class: str):
    """The support vectors of each class of a budgeted model: for two classes by
    the sign of their coefficient, one-vs-rest a class's problem's, one-vs-one the
    points of the pairs on the class's side (a positive coefficient is the pair's
    first class)."""
    if n_classes == 2:
        counts = [int(np.sum(dual[0] < 0)), int(np.sum(dual[0] > 0))]
    elif multi_class == "ovr":
        counts = [int(np.count_nonzero(row)) for row in dual]
    else:
        counts = [0] * n_classes
        pairs = [(i, j) for i in range(n_classes) for j in range(i + 1, n_classes)]
        for row, (i, j) in zip(dual, pairs, strict=True):
            counts[i] += int(np.sum(row > 0))
            counts[j] += int(np.sum(row < 0))
    return np.array(counts, dtype=np.int32)
