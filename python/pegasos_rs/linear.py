"""Linear Pegasos as a scikit-learn classifier."""

from __future__ import annotations

from numbers import Integral, Real
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from pegasos_rs import _core, _early_stopping, _fitted, _linear_solver, _platt
from pegasos_rs._base import (
    PegasosModelMixin,
    available_if,
    unchanged_on_error,
    warn_unconverged,
)
from pegasos_rs._docs import filled
from pegasos_rs._linear_solver import CLASSIFICATION_LOSSES
from pegasos_rs._progress import reported
from pegasos_rs._registry import persisted
from pegasos_rs._typing import fit_context
from pegasos_rs._unchecked import (
    check_width,
    record_width,
    unchecked_codes,
    unchecked_counts,
    unchecked_matrix,
)
from pegasos_rs._validation import (
    INPUT_CHECKS,
    as_rust_matrix,
    check_targets,
    encode_targets,
    sample_weight_vector,
    validate_input,
)

if TYPE_CHECKING:
    from typing import Literal

    from numpy.typing import ArrayLike, NDArray
    from typing_extensions import Self

    from pegasos_rs._typing import (
        ClassWeight,
        Float,
        Int,
        MatrixLike,
        RandomStateLike,
        Sampling,
    )


def _without_probability(estimator: Any) -> bool:
    if estimator.probability:
        raise AttributeError(
            "with probability=True, fit also fits the sigmoids that turn decision "
            "values into probabilities, on cross-validation folds of all the data at "
            "once: they cannot be updated one batch at a time, and a partial_fit "
            "would leave them describing the previous model. Set probability=False "
            "to train with partial_fit (then, for "
            "probabilities, calibrate the trained model on held-out data, for example "
            "with sklearn.calibration.CalibratedClassifierCV), or fit with "
            "probability=True on all the data"
        )
    return True


def check_partial_fit_class_weight(estimator: Any) -> None:
    """``ValueError`` for ``class_weight="balanced"`` in ``partial_fit`` (the Dask
    classifier's too), as scikit-learn's ``SGDClassifier.partial_fit`` refuses it."""
    if isinstance(estimator.class_weight, str) and estimator.class_weight == "balanced":
        raise ValueError(
            "class_weight='balanced' is not supported by partial_fit: each call sees "
            "only its batch, so the weights would be computed from each batch's class "
            "counts and change from call to call, instead of those of the whole "
            "training set. Compute them once from all the labels (or a large enough "
            "sample of them): weights = sklearn.utils.class_weight."
            "compute_class_weight('balanced', classes=classes, y=y), and pass "
            "class_weight=dict(zip(classes, weights))"
        )


@persisted
@filled
class PegasosClassifier(PegasosModelMixin, ClassifierMixin, BaseEstimator):
    """Linear SVM (or logistic regression) trained by Pegasos (primal estimated
    sub-gradient solver).

    Minimises ``alpha/2 ||w||^2 + 1/m sum_i c_i L(y_i (<w, x_i> + b))`` with steps of
    size ``1/(alpha t)`` on mini-batches of ``batch_size`` examples, in
    ``O(nonzeros)`` per step; ``L`` is the hinge ``max(0, 1 - z)`` by default
    (``loss``). Multiclass problems are solved one-vs-rest, classes in
    parallel (``n_jobs``), each class with its own random stream (or, with
    ``multi_class="ovr_shared"``, all classes stepping on the same drawn rows), so
    results do not depend on the number of threads; or, with
    ``multi_class="crammer_singer"``, by one joint Crammer-Singer objective.

    Parameters
    ----------
    loss : {"hinge", "log_loss", "squared_hinge", "modified_huber"}, default="hinge"
        The loss ``L`` of the margin ``z``, with scikit-learn's ``SGDClassifier``
        names: ``"hinge"`` ``max(0, 1 - z)``, the SVM (LIBLINEAR ``-s 3``);
        ``"log_loss"`` ``ln(1 + exp(-z))``, logistic regression (LIBLINEAR ``-s 0``),
        whose ``predict_proba`` needs no ``probability=True``; ``"squared_hinge"``
        ``max(0, 1 - z)^2``, the L2-loss SVM (LIBLINEAR ``-s 2``, its default);
        ``"modified_huber"``, the squared hinge down to ``z = -1`` and ``-4 z`` below,
        which also gives ``predict_proba``. Each step adds only the examples whose
        loss has a slope. The squared hinge and the modified Huber loss, whose
        slopes grow with the violation, start their steps at ``t0 = ceil(2 R^2 /
        alpha)`` rather than 1 so that their first steps are stable: with ``s_i =
        c_i (||x_i||^2 + 1)``, ``R^2 = max_i s_i`` for the squared hinge (its slope
        is unbounded) and ``sum_i s_i^2 / sum_i s_i`` for the modified Huber loss
        (the user guide's "Losses and problems").
    alpha : float, default=1e-4
        Regularisation strength, the paper's lambda. The equivalent ``C`` of
        LIBLINEAR, ``LinearSVC`` and ``SVC`` is ``1 / (alpha * n_samples)``.
    max_iter : int, default=20
        Number of passes over the data; a pass is ``ceil(n_samples / batch_size)``
        steps (with ``tol`` it may stop earlier).
    max_steps : int or None, default=None
        If set, each ``fit`` runs exactly this many steps (the paper's T) instead
        of ``max_iter`` passes, even fewer than one pass: Pegasos' error after T
        steps does not depend on the number of samples, so on large data a fraction
        of a pass is enough (``partial_fit`` still runs one pass).
    batch_size : int, default=1
        Examples per step (the paper's k). All k margins are evaluated at the same
        ``w_t``.
    projection : bool, default=True
        Project ``w`` onto a ball that holds the optimum after each step: radius
        ``1/sqrt(alpha)`` for the hinge (with unit weights; ``sqrt(mean(c) /
        alpha)`` with weights), ``sqrt(2 L(0) mean(c) / alpha)`` for the other
        losses.
    fit_intercept : bool, default=True
        Learn an intercept.
    intercept_scaling : float or None, default=1.0
        A float ``B`` (default): LIBLINEAR's / VLFeat's bias multiplier, a constant
        feature ``B`` whose weight is regularised and projected like the others
        (``intercept_ = B * w_B``); this is the objective LIBLINEAR and
        ``LinearSVC`` solve. ``None``: the paper's unregularised bias, updated with
        the same step ``1/(alpha t)`` and left out of the projection. It is not the
        default because the first steps move it by up to ``1/alpha`` and, for small
        ``alpha``, it needs very many steps to come back (on digits with
        ``alpha=1e-4`` it ends near -3000 after 20 passes).
    average : bool or int, default=True
        ``True`` (default): return the average of the iterates of the last half of
        the steps of each fit (suffix averaging, which converges at the optimal
        rate; an average from step 1 would be dominated by the first iterates); it
        is less noisy than the last iterate and, on most problems, more accurate
        after the same number of passes. With ``partial_fit``, whose calls do not
        know which steps will be the last half, ``True`` is the average of all
        iterates since the first call weighted by their step number ``t``
        (Lacoste-Julien, Schmidt, Bach 2012; an anytime average with the same
        optimal rate), continued across calls. ``False``: return the last
        iterate. An int ``n``: the plain mean of the iterates from the moment ``n``
        samples have been seen, across calls (as scikit-learn's ``SGDClassifier``).
    sampling : {"uniform", "shuffle", "balanced", "auto"} or array-like of int, \
default="auto"
        ``"uniform"``: i.i.d. draws with replacement (the paper). ``"shuffle"``: a
        new permutation every pass. ``"balanced"``: positives and negatives drawn
        equally often. An array of row indices: visit the rows in that order,
        cyclically. ``"auto"`` (default): ``"shuffle"`` with many classes, else
        ``"uniform"`` (see ``multi_class="auto"``).
    class_weight : dict, "balanced" or None, default=None
        Weights of the positive class of each one-vs-rest problem (as LIBLINEAR's
        ``-wi``); for two classes, the weights of both classes. ``"balanced"``:
        ``n_samples / (n_classes * np.bincount(y))`` from the labels given to
        ``fit`` (with ``fit(check_input=False, classes=...)`` every class needs an
        example). Not with ``partial_fit``, which sees one batch at a time
        (``ValueError``, as ``SGDClassifier``): compute the weights once from all
        the labels with :func:`sklearn.utils.class_weight.compute_class_weight`
        and pass them as a dict.
    tol : float or None, default=None
        If set, the primal objective is evaluated after every pass and training stops
        once it has not decreased by more than ``tol * objective`` for
        ``n_iter_no_change`` passes. Without it, a fit of two passes or more
        measures how much its last pass lowered the objective (on up to 4096
        rows) and issues a ``ConvergenceWarning`` above 5 % (the user guide's
        "Whether the passes were enough").
    n_iter_no_change : int, default=5
        Passes without improvement tolerated when ``tol`` is set, or with
        ``early_stopping``.
    {early_stopping}
    warm_start : bool, default=False
        Continue from the previous fit's complete solver state (weights, step count,
        averaging state and random stream): ``fit`` for ``p`` passes then ``q`` more
        equals ``p + q`` passes at once, bit for bit (with ``average`` False or int).
    {random_state}
    n_jobs : int or None, default=None
        Threads for one-vs-rest training and prediction (-1: all cores).
    verbose : int, default=0
        Report to :data:`sys.stderr` (so :func:`contextlib.redirect_stderr`
        captures it): the primal objective after every pass, and during a pass a
        progress line every few seconds; prediction reports its progress too.
        Evaluating the objective costs one pass over the data per pass.
    probability : bool, default=False
        {probability_platt}
        ``coef_``, ``decision_function`` and ``predict`` are bit for bit those of
        ``probability=False``. ``fit`` takes about 5 to 6 times as long: 5 fits on 4/5
        of the data, then the final fit on all of it. Not with ``warm_start`` (the
        folds' models could not continue the previous fit): ``fit`` raises
        ``ValueError``; and ``partial_fit`` is not available (the sigmoids would no
        longer describe the model).
    multi_class : {"ovr", "ovr_shared", "crammer_singer", "auto"}, default="auto"
        How more than two classes are learnt. ``"ovr"`` and ``"ovr_shared"`` are
        one-vs-rest and differ only in how the problems draw their examples; both
        solve the same problems (class ``c`` against the rest, each with its
        own objective ``alpha/2 ||w_c||^2 + 1/m sum_i c_ic max(0, 1 - y_ic (<w_c,
        x_i> + b_c))``, class weights as LIBLINEAR's one-vs-rest). ``"ovr"``: each
        class draws its own rows from its own random stream (stream ``c`` of the
        seed for class ``c``). ``"ovr_shared"``: every class takes its step ``t`` on
        the same drawn rows (stream 0 of the seed), so each row is read once for
        all classes and the weights of one feature for all classes sit together:
        on many classes a pass costs less than ``"ovr"``'s (on the 105 classes of
        sector about half, one thread). Each class's model is then exactly what ``"ovr"``
        would give class ``c`` if it drew from stream 0 (for ``squared_hinge`` with
        class or sample weights, up to the start step ``t0``, which the classes
        share: the latest any class needs). With ``tol``, the passes
        stop for all classes at once, on the sum of the classes' objectives (the
        objective of the verbose lines); ``objective_`` is still per class.
        Not with ``sampling="balanced"`` (which balances one problem's classes):
        ``fit`` raises ``ValueError``; nor can one continue (``warm_start``,
        ``partial_fit``) a fit of the other mode. For two classes the modes are
        the same problem and the same draws. With many classes, combine it with
        ``sampling="shuffle"``: on sector it then comes within 0.3 pp of
        LIBLINEAR's accuracy in 3 passes instead of 20 (see the user guide's
        "Many classes").
        ``"crammer_singer"``: one joint objective over all classes, ``alpha/2
        sum_r ||w_r||^2 + 1/m sum_i c_i max_r [1(r != y_i) + <w_r - w_{y_i}, x_i> +
        b_r - b_{y_i}]`` (LIBLINEAR ``-s 4``, ``LinearSVC(multi_class=
        "crammer_singer")``), whose step moves ``w_{y_i}`` towards ``x_i`` and the
        highest-scoring wrong class away from it (the user guide's "Losses and
        problems"); also for two classes, whose ``coef_`` is then the one row
        ``w_1 - w_0``, as ``LinearSVC``'s. ``objective_`` holds the one joint
        objective. Only with ``loss="hinge"``, ``probability=False`` and a sampling
        other than ``"balanced"`` (else ``ValueError``); the steps are sequential,
        ``n_jobs`` parallelises prediction only. A fit of another mode cannot be
        continued by it, nor its fit by another mode.
        ``"auto"`` (default): with many classes (``AUTO_MANY_CLASSES`` of
        ``pegasos_rs._linear_solver`` or more) ``"ovr_shared"``, otherwise (two
        classes among them) ``"ovr"``; with ``early_stopping`` or
        ``sampling="balanced"``, ``"ovr"`` (each problem stops, or balances its
        draws, alone). With ``sampling="auto"`` as well (the default), many
        classes train on shared, shuffled draws, which the benchmarks measured
        faster to LIBLINEAR's accuracy than one-vs-rest with uniform draws on
        sector's 105 classes, not on 20 or 26 classes (the user guide's "Many
        classes" has the figures); fewer classes train as ``"ovr"`` with
        uniform draws, bit for bit (the models of earlier versions).

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features) or (n_classes, n_features)
    intercept_ : ndarray of shape (1,) or (n_classes,)
    classes_ : ndarray of shape (n_classes,)
    n_features_in_ : int
    n_iter_ : int
        Passes run by the last call (the maximum over classes). When ``fit`` with
        ``tol`` runs all ``max_iter`` passes without meeting the stopping rule, a
        :class:`~sklearn.exceptions.ConvergenceWarning` is issued.
    t_ : int
        Total steps taken so far (the paper's t; the maximum over classes).
    multi_class_ : {"ovr", "ovr_shared", "crammer_singer"}
        The decomposition the last fit trained (``multi_class="auto"`` resolved).
    objective_ : ndarray or None
        Primal objective per binary problem after the last pass, when computed
        (``tol`` or ``verbose`` set); with ``multi_class="crammer_singer"`` one
        value, the joint objective.
    {validation_scores}
    {platt_attributes}

    Notes
    -----
    {notes_threads}
    """

    #: What a model file holds (pegasos_rs.io.model_io reads only this declaration).
    _saved_state = _linear_solver.SAVED_STATE
    #: The exact solver state of the last fit (set by ``fit``; warm starts continue it).
    _solver: _core.LinearSolverState

    _parameter_constraints: dict = {  # noqa: RUF012 (scikit-learn convention)
        "loss": [StrOptions(set(CLASSIFICATION_LOSSES))],
        "alpha": [Interval(Real, 0, None, closed="neither")],
        "max_iter": [Interval(Integral, 1, 2**32 - 1, closed="both")],
        "max_steps": [None, Interval(Integral, 1, 2**63 - 1, closed="both")],
        "batch_size": [Interval(Integral, 1, None, closed="left")],
        "projection": ["boolean"],
        "fit_intercept": ["boolean"],
        "intercept_scaling": [None, Interval(Real, 0, None, closed="neither")],
        "average": ["boolean", Interval(Integral, 1, None, closed="left")],
        "sampling": [StrOptions({"uniform", "shuffle", "balanced", "auto"}), "array-like"],
        "class_weight": [StrOptions({"balanced"}), dict, None],
        "tol": [None, Interval(Real, 0, None, closed="left")],
        "n_iter_no_change": [Interval(Integral, 1, None, closed="left")],
        **_early_stopping.constraints(),
        "warm_start": ["boolean"],
        "random_state": ["random_state"],
        "n_jobs": [None, Integral],
        "verbose": ["verbose"],
        "probability": ["boolean"],
        "multi_class": [StrOptions({"ovr", "ovr_shared", "crammer_singer", "auto"})],
    }

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
        sampling: Sampling | Literal["auto"] = "auto",
        class_weight: ClassWeight = None,
        tol: Float | None = None,
        n_iter_no_change: Int = 5,
        early_stopping: bool = False,
        validation_fraction: Float = 0.1,
        warm_start: bool = False,
        random_state: RandomStateLike = None,
        n_jobs: Int | None = None,
        verbose: Int = 0,
        probability: bool = False,
        multi_class: Literal["ovr", "ovr_shared", "crammer_singer", "auto"] = "auto",
    ) -> None:
        self.loss = loss
        self.alpha = alpha
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
        self.warm_start = warm_start
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.verbose = verbose
        self.probability = probability
        self.multi_class = multi_class

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags

    @unchanged_on_error
    @fit_context(prefer_skip_nested_validation=True)
    def fit(
        self,
        X: MatrixLike,
        y: ArrayLike,
        sample_weight: ArrayLike | None = None,
        *,
        check_input: bool = True,
        classes: ArrayLike | None = None,
    ) -> Self:
        """Train for ``max_iter`` passes (continuing the last fit if ``warm_start``).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            CSR float32/float64 (int32 or int64 indices) and C-ordered dense arrays
            are read in place; other inputs are converted once.
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), default=None
        check_input : bool, default=True
            ``False`` skips the pass over the whole input before training (as
            scikit-learn's ``Lasso.fit(check_input=False)``), so that the cost of a
            fit of ``max_steps`` steps does not grow with the number of rows: ``X``
            must then already be a CSR matrix of float32/float64 values with int32
            or int64 indices, or a C-contiguous float32/float64 array (else
            ``TypeError``); no conversion, column name or data frame handling is
            done. Each row the solver reads is checked just before it is used, as the
            whole input would have been: bounds, column indices, finite values and,
            with ``classes``, the class code; a bad row raises ``ValueError``.
            **Rows the solver never reads are not checked**, so a NaN in such a row
            goes unnoticed (it does not affect the model). With ``tol`` or
            ``verbose`` the objective reads every row, so every row is checked after
            the first pass.
        classes : array-like of shape (n_classes,), default=None
            Only with ``check_input=False``: the classes, sorted and without
            repeats, and ``y`` then holds each example's class *code*, its index
            into ``classes`` (int32 or uint32 codes are read in place; other integer
            dtypes are converted once), so the labels are not read as a whole
            either (but ``class_weight="balanced"`` counts the codes, in one pass
            over ``y`` that checks each of them: a code out of range, or a class
            without examples, raises ``ValueError`` naming it). Without it, ``y``
            holds labels and is encoded as usual (one pass over ``y``).

        Returns
        -------
        self
        """
        if self.probability and self.warm_start:
            raise ValueError(
                "probability=True cannot be combined with warm_start=True: the models of "
                "the cross-validation folds that fit the probabilities could not continue "
                "the previous fit. Set one of them to False"
            )
        resume = bool(self.warm_start) and hasattr(self, "_solver")
        if not check_input:
            return self._fit_unchecked(X, y, sample_weight, classes, resume)
        if classes is not None:
            raise ValueError(
                "fit takes classes only with check_input=False (y then holds class "
                "codes); partial_fit takes the classes of labels"
            )
        return self._fit(X, y, sample_weight, None, resume, self.max_iter, self.max_steps)

    @available_if(_without_probability)
    @unchanged_on_error
    def partial_fit(
        self,
        X: MatrixLike,
        y: ArrayLike,
        classes: ArrayLike | None = None,
        sample_weight: ArrayLike | None = None,
    ) -> Self:
        """One pass over ``(X, y)``, continuing from the current solver state.

        ``classes`` must be given on the first call. The parameters are validated on
        every call, as by ``fit``. Only with ``probability=False`` (the probabilities
        fitted by ``fit`` would no longer describe the model); a ``partial_fit``
        after switching ``probability`` off removes them. Not with
        ``class_weight="balanced"`` (``ValueError``, as ``SGDClassifier``'s): give
        the weights as a dict (see ``class_weight``).
        """
        first = not hasattr(self, "_solver")
        # On every call (scikit-learn's _fit_context checks only the first one): a
        # parameter set in between must not reach the solver unchecked.
        self._validate_params()
        if first and classes is None:
            raise ValueError("classes must be passed on the first call to partial_fit")
        check_partial_fit_class_weight(self)
        return self._fit(X, y, sample_weight, classes, not first, 1, None, partial=True)

    @reported("steps", "fit")
    def _fit_unchecked(self, X, y, sample_weight, classes, resume):
        """``fit`` with ``check_input=False``: see ``pegasos_rs._unchecked``."""
        _early_stopping.check_early_stopping(self, unchecked=True)
        if self.probability:
            raise ValueError(
                "check_input=False cannot be combined with probability=True: the "
                "cross-validation of the probabilities reads every row"
            )
        matrix, (n_rows, n_features) = unchecked_matrix(X)
        check_width(self, n_features, resume)
        name = type(self).__name__
        if classes is not None:
            known, codes = unchecked_codes(name, y, classes, n_rows)
            if resume and not np.array_equal(known, self.classes_):
                raise ValueError(
                    f"classes {known.tolist()} differ from those of the fit being "
                    f"continued ({self.classes_.tolist()})"
                )
            present = known
            balanced = isinstance(self.class_weight, str)
            counts = unchecked_counts(known, codes) if balanced else None
        else:
            y = np.asarray(y)
            if y.ndim != 1 or y.shape[0] != n_rows:
                raise ValueError(f"y must be 1-d with one label per row of X ({n_rows})")
            check_targets(y)
            prior = self.classes_ if resume else None
            known, present, counts, codes = encode_targets(name, y, prior)
        sample_weight = sample_weight_vector(sample_weight, X)
        labels = (known, present, counts, codes)
        params = self._solver_params(
            resume, self.max_iter, self.max_steps, n_classes=int(known.size)
        )
        params["check_input"] = False
        self._train(matrix, labels, sample_weight, resume, params, self.max_steps is None)
        record_width(self, n_features, resume)
        self._fit_probability(None, None, None, 0)  # removes earlier probabilities
        return self

    @reported("steps", "fit")
    def _fit(self, X, y, sample_weight, classes, resume, max_iter, max_steps, partial=False):
        X, y = validate_input(self, X, y, reset=not resume, **INPUT_CHECKS)
        check_targets(y)
        known = self._known_classes(resume, classes)
        known, present, counts, codes = encode_targets(type(self).__name__, y, known)
        # Checked before training: too small a class for the folds is an input error.
        n_folds = _platt.n_folds_for(counts) if self.probability else 0
        sample_weight = sample_weight_vector(sample_weight, X)
        params = self._solver_params(
            resume, max_iter, max_steps, partial=partial, n_classes=int(known.size)
        )
        rows, weights, n_held = X, sample_weight, 0
        if _early_stopping.check_early_stopping(self, known.size, partial=partial):
            # The held-out rows last (a copy); the probabilities' folds read X.
            order, n_held = _early_stopping.held_out_order(self, codes, X.shape[0], sample_weight)
            rows, codes, weights = _early_stopping.reorder(order, X, codes, sample_weight)
        labels = (known, present, counts, codes)
        # partial_fit runs one pass by design, and max_steps one "pass" of T steps:
        # only fit's passes can fall short of `tol`.
        converging = not partial and max_steps is None
        self._train(as_rust_matrix(rows), labels, weights, resume, params, converging, n_held)
        del rows, weights
        self._fit_probability(X, y, sample_weight, n_folds)
        return self

    def _train(
        self, matrix, labels, sample_weight, resume, params, check_convergence, n_held_out=0
    ) -> None:
        """Run the extension on ``matrix`` and the encoded ``labels`` (classes, those
        present, their counts, the codes), then set the fitted attributes (with a
        ``ConvergenceWarning`` if ``check_convergence`` and ``tol`` was not met) and
        the solver state (only now: a failed call changes nothing). The last
        ``n_held_out`` rows are held out (early stopping)."""
        unconverged = _linear_solver.train(
            self, matrix, labels, sample_weight, resume, params, n_held_out
        )
        warn_unconverged(unconverged, check_convergence)

    def _known_classes(self, resume: bool, classes: ArrayLike | None) -> NDArray[Any] | None:
        """The classes a fit must know before it reads the labels: those of the fit it
        continues, those given to ``partial_fit``, or None (the labels' own)."""
        if resume:
            return self.classes_
        if classes is not None:
            return np.unique(np.asarray(classes))
        return None

    def _solver_params(
        self, resume: bool, max_iter: int, max_steps, *, partial=False, n_classes: int = 2
    ) -> dict:
        """The hyper-parameters as the extension reads them (one named dict), for a fit
        of ``n_classes`` classes (``"auto"`` resolves from it)."""
        return _linear_solver.linear_solver_params(
            self, resume, max_iter, max_steps, partial=partial, n_classes=n_classes
        )

    @property
    def multi_class_(self) -> str:
        """The decomposition the last fit trained: ``multi_class`` as that fit had it,
        ``"auto"`` resolved for its classes (``"ovr"``, ``"ovr_shared"`` or
        ``"crammer_singer"``)."""
        check_is_fitted(self)
        fitted = SimpleNamespace(
            **_fitted.fit_params(self), _shared_draws=getattr(self, "_shared_draws", True)
        )
        return str(_linear_solver.decided(fitted, int(self.classes_.size))["multi_class"])

    @reported("rows")
    def decision_function(self, X: MatrixLike) -> NDArray[np.float64]:
        """Signed distances ``X coef_.T + intercept_``; shape (n_samples,) for two
        classes, else (n_samples, n_classes)."""
        check_is_fitted(self)
        X = validate_input(self, X, reset=False, **INPUT_CHECKS)
        return _linear_solver.decision_values(self, as_rust_matrix(X), self.n_jobs)
