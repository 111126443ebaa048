"""The linear solver's side of a fit, shared by :class:`~pegasos_rs.PegasosClassifier`
and ``pegasos-rs train``: the solver-parameter dict, the call of the extension, the
fitted attributes it gives, and the model file.

Imports no scikit-learn (the estimator, which derives from scikit-learn's classes,
calls these functions with itself; the command line with a :class:`LinearModel`),
so that ``pegasos-rs train`` trains and saves a linear model without the cost of
importing scikit-learn, and writes the very file ``PegasosClassifier.save`` writes.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from pegasos_rs import _core
from pegasos_rs._arrays import buffer, n_threads
from pegasos_rs._counts import counted, plural
from pegasos_rs._early_stopping import score_tol
from pegasos_rs._fit_inputs import (
    check_targets,
    class_weight_vector,
    encode_targets,
    seed_from,
    solver_params,
)
from pegasos_rs.io import _model_file

if TYPE_CHECKING:
    from pegasos_rs._typing import PathLike

#: The class name under which linear models are saved and named in messages.
NAME = "PegasosClassifier"

#: Without ``tol``, a fit of two passes or more warns (``ConvergenceWarning``) when its
#: last pass still lowered the objective of the model it returns by more than this
#: fraction of it (measured by the solver on up to ``PROBE_ROWS`` = 4096 of the
#: training rows: ``pegasos_core::solvers::passes``).
UNSETTLED = 0.05

#: The fitted counts a linear model's file holds in its header.
LINEAR_SCALARS = {"n_features_in_": "count", "n_iter_": "count", "t_": "count"}


def _check_classifier_solver(model: Any, need) -> None:
    """A loaded classifier's solver state has one problem per binary problem: the
    Crammer-Singer solver keeps a header and one state per class (also for two
    classes, whose model has one row)."""
    solver = getattr(model, "_solver", None)
    n_classes = model.classes_.size
    joint = getattr(model, "multi_class", "ovr") == "crammer_singer"
    states = n_classes + 1 if joint else (1 if n_classes == 2 else n_classes)
    if solver is not None and len(solver) not in (0, states):
        need(False, f"the solver state has {len(solver)} problems, the model {states}")


def check_single_solver(model: Any, need) -> None:
    """A loaded regressor's (or ranker's) solver state holds one problem."""
    solver = getattr(model, "_solver", None)
    need(solver is None or len(solver) in (0, 1), "the solver state must hold one problem")


#: What a model file holds of a ``PegasosClassifier`` (its ``_saved_state``; also
#: what :func:`save` writes): the fitted arrays, counts and the exact solver state.
SAVED_STATE = _model_file.SavedState(
    arrays=("coef_", "intercept_", "classes_", "objective_", "probA_", "probB_"),
    scalars=LINEAR_SCALARS,
    solver="_solver",
    fitted="classes_",
    optional=("objective_",),
    check=_check_classifier_solver,
)

#: The parameters of a ``PegasosClassifier`` (``get_params()``'s names; a test checks
#: them): what ``pegasos_rs.io.model_io._load_linear_classifier`` accepts in a file.
PARAMETERS = (
    "alpha",
    "average",
    "batch_size",
    "class_weight",
    "early_stopping",
    "fit_intercept",
    "intercept_scaling",
    "loss",
    "max_iter",
    "max_steps",
    "multi_class",
    "n_iter_no_change",
    "n_jobs",
    "probability",
    "projection",
    "random_state",
    "sampling",
    "tol",
    "validation_fraction",
    "verbose",
    "warm_start",
)

#: The classifier's losses (scikit-learn's ``SGDClassifier`` names).
CLASSIFICATION_LOSSES = ("hinge", "log_loss", "squared_hinge", "modified_huber")


class LinearModel:
    """:class:`~pegasos_rs.PegasosClassifier`'s parameters as plain attributes (and,
    after :func:`train`, its fitted attributes), without the estimator class: what
    ``pegasos-rs train`` trains and saves without importing scikit-learn.

    ``params`` must be the complete, valid parameters of a ``PegasosClassifier``
    (``get_params()``): they are not validated here, and are saved as given.
    """

    # Set from ``params`` and by ``fit`` (the ones the functions here name).
    max_iter: int
    max_steps: int | None
    n_features_in_: int

    def __init__(self, params: dict[str, Any]) -> None:
        self.params = dict(params)
        self.__dict__.update(params)


def _name(est) -> str:
    return NAME if isinstance(est, LinearModel) else type(est).__name__


def averaging(average, batch_size, partial: bool) -> tuple[str, int]:
    """The extension's averaging mode and start step from ``average``."""
    if average is True or (isinstance(average, np.bool_) and bool(average)):
        # partial_fit cannot know which steps are the last half: an anytime average.
        return ("weighted" if partial else "suffix"), 1
    if average is False or (isinstance(average, np.bool_) and not bool(average)):
        return "off", 1
    # An int n: average from the step at which n samples have been seen.
    return "from", max(1, math.ceil(int(average) / int(batch_size)))


def check_crammer_singer(est) -> None:
    """Refuse what ``multi_class="crammer_singer"`` cannot combine with: a loss other
    than the hinge (the Crammer-Singer loss is the multiclass hinge) and
    ``probability=True``."""
    if getattr(est, "multi_class", "ovr") != "crammer_singer":
        return
    if est.loss != "hinge":
        raise ValueError(
            f"multi_class='crammer_singer' minimises the Crammer-Singer multiclass hinge "
            f"loss; loss={est.loss!r} has no Crammer-Singer form: use loss='hinge' or "
            "multi_class='ovr'"
        )
    if getattr(est, "probability", False):
        raise ValueError(
            "probability=True is not available with multi_class='crammer_singer': its "
            "Platt sigmoids calibrate one-vs-rest decision values, while Crammer-Singer "
            "scores only rank the classes against each other; use multi_class='ovr' for "
            "probabilities"
        )


#: ``"auto"`` (``multi_class``, ``sampling``; the defaults) treats a problem of at least
#: this many classes as one of many classes: one-vs-rest on shared draws
#: (``"ovr_shared"``) and a new permutation every pass (``"shuffle"``); fewer classes
#: (two among them) train as ``"ovr"`` and ``"uniform"`` do. Measured
#: (``benches/results/multiclass_auto.md``, time to LIBLINEAR's accuracy - 0.3 pp):
#: sector's 105 classes reached it 2.9 times sooner on shared, shuffled draws; 20news'
#: 20 later (13 passes against 8) and the 26 of a letter-like set as soon. The
#: threshold lies between the sets measured (no set of 27 to 104 classes was).
AUTO_MANY_CLASSES = 50


def decided(est, n_classes: int) -> dict[str, Any]:
    """``multi_class`` and ``sampling`` of ``est`` with ``"auto"`` resolved for a
    fit of ``n_classes`` classes (see :data:`AUTO_MANY_CLASSES`; early stopping
    and balanced draws keep independent one-vs-rest)."""
    many = n_classes >= AUTO_MANY_CLASSES
    multi_class = getattr(est, "multi_class", "ovr")
    if multi_class == "auto":
        # Early stopping stops each problem alone; balanced draws balance one
        # problem's classes: both need independent problems.
        # (The Dask classifier, whose cluster sends each class its own draws, has
        # no shared draws either.)
        alone = bool(getattr(est, "early_stopping", False))
        balanced = isinstance(est.sampling, str) and est.sampling == "balanced"
        shared = getattr(est, "_shared_draws", True)
        multi_class = "ovr_shared" if many and shared and not (alone or balanced) else "ovr"
    sampling = est.sampling
    if isinstance(sampling, str) and sampling == "auto":
        sampling = "shuffle" if many else "uniform"
    return {"multi_class": multi_class, "sampling": sampling}


def linear_solver_params(
    est, resume: bool, max_iter: int, max_steps, *, partial=False, n_classes: int = 2
) -> dict:
    """The hyper-parameters of ``est`` as the extension reads them (one named dict),
    ``"auto"`` resolved for ``n_classes`` classes (:func:`decided`)."""
    check_crammer_singer(est)
    chosen = decided(est, n_classes)
    average_mode, average_start = averaging(est.average, est.batch_size, partial)
    params = solver_params(
        est,
        sampling=chosen["sampling"],
        max_iter=max_iter,
        seed=seed_from(est.random_state) if not resume else 0,
        average=average_mode,
        average_start=average_start,
        projection=est.projection,
        intercept_scaling=est.intercept_scaling,
        max_steps=max_steps,
        tol=est.tol,
        n_iter_no_change=est.n_iter_no_change,
    )
    params["loss"] = loss_spec(est)
    return {**params, "multi_class": str(chosen["multi_class"])}


def loss_spec(est) -> dict:
    """``est``'s loss as the extension reads it (its name and ``epsilon``)."""
    return {"name": str(est.loss), "epsilon": float(getattr(est, "epsilon", 0.0))}


def train(
    est, matrix, labels, sample_weight, resume: bool, params: dict, n_held_out: int = 0
) -> str | None:
    """Run the extension on ``matrix`` and the encoded ``labels`` (classes, those
    present, their counts, the codes), then set the fitted attributes of ``est``
    and its solver state (only now: a failed call changes nothing). The last
    ``n_held_out`` rows are held out for early stopping (``_early_stopping``).

    Returns what :func:`store_fit` returns: the problems that ran out of passes
    before ``tol``'s rule was met, as a message, or ``None``.
    """
    known, present, counts, codes = labels
    class_weight = class_weight_vector(est.class_weight, known, present, counts)
    solver = est._solver if resume else _core.LinearSolverState()
    result = _core.fit_linear(
        matrix,
        codes,
        {
            "n_classes": int(known.size),
            "class_weight": class_weight,
            "sample_weight": sample_weight,
        },
        solver,
        params,
        n_threads(est.n_jobs),
        n_held_out,
    )
    est.classes_ = known
    unconverged = store_fit(est, result)
    est._solver = solver
    return unconverged


def store_fit(est, result: dict) -> str | None:
    """Set the fitted attributes of a linear model from what
    ``pegasos_rs._core.fit_linear`` returns (a dict with ``coef``, ``intercept``,
    ``n_iter``, ``t``, ``objective`` and ``converged`` per binary problem).

    Returns, when ``tol`` was set and some problems ran out of passes before its
    stopping rule was met, a message saying which (the text of the estimators'
    ``ConvergenceWarning``); else ``None``.
    """
    coef, intercept, objective = result["coef"], result["intercept"], result["objective"]
    if getattr(est, "multi_class", "ovr") == "crammer_singer":
        # One joint objective, repeated per class by the extension.
        objective = objective[:1]
        if coef.shape[0] == 2:
            # As LinearSVC(multi_class="crammer_singer"): one row, w_1 - w_0, for two
            # classes, so that decision_function has one column.
            coef = (coef[1] - coef[0]).reshape(1, -1)
            intercept = np.array([intercept[1] - intercept[0]])
    est.coef_ = coef
    est.intercept_ = intercept
    est.n_iter_ = max(result["n_iter"])
    est.t_ = max(result["t"])
    est.objective_ = None if objective[0] is None else np.asarray(objective, dtype=float)
    scores = result.get("validation_scores") or []
    if any(len(s) for s in scores):
        # Early stopping: per binary problem, the held-out score after each pass.
        est.validation_scores_ = [np.asarray(s, dtype=np.float64) for s in scores]
    elif hasattr(est, "validation_scores_"):
        del est.validation_scores_
    converged, settling = result["converged"], result.get("settling") or []
    if getattr(est, "multi_class", "ovr") == "crammer_singer":
        converged, settling = converged[:1], settling[:1]  # one joint problem
    worse = result.get("worse_than_zero") or []
    if getattr(est, "multi_class", "ovr") == "crammer_singer":
        worse = worse[:1]
    if converged[0] is None:
        return _diverged(est, worse) or _unsettled(est, settling)
    if all(converged):
        return None
    missed = [i for i, c in enumerate(converged) if not c]
    which = (
        ""
        if len(converged) == 1
        else f" for {len(missed)} of {len(converged)} one-vs-rest problems "
        f"(classes {', '.join(str(est.classes_[i]) for i in missed[:5])}"
        f"{', ...' if len(missed) > 5 else ''})"
    )
    if hasattr(est, "validation_scores_"):
        return (
            f"{_name(est)}: early stopping did not stop within max_iter={est.max_iter} "
            f"{plural(est.max_iter, 'pass')}{which}: the held-out score still improved by "
            f"tol={score_tol(est)}; increase max_iter or tol to "
            "improve the fit."
        )
    return (
        f"{_name(est)}: tol={est.tol} was not reached within "
        f"max_iter={est.max_iter} {plural(est.max_iter, 'pass')}{which}; increase max_iter "
        "or tol to "
        "improve the fit."
    )


def _which(est, flagged: list[int], n_problems: int) -> str:
    """`` in k of n one-vs-rest problems (classes ...)`` for more than one problem."""
    if n_problems == 1:
        return ""
    return (
        f" in {len(flagged)} of {n_problems} one-vs-rest problems "
        f"(classes {', '.join(str(est.classes_[i]) for i in flagged[:5])}"
        f"{', ...' if len(flagged) > 5 else ''})"
    )


def _diverged(est, worse: list) -> str | None:
    """The ``ConvergenceWarning`` text of a fit without ``tol`` whose returned model
    has a higher training objective than ``w = 0`` (``worse``: per problem, as the
    solver's probe found, or None where it was not measured), or None."""
    flagged = [i for i, w in enumerate(worse) if w]
    if not flagged:
        return None
    return (
        f"{_name(est)}: the model {counted(est.max_iter, 'pass')} returned has a higher "
        "training objective than w = 0"
        f"{_which(est, flagged, len(worse))}: the fit diverged or is far from the "
        "optimum. Standardise the features, increase max_iter or alpha, or set tol."
    )


def _unsettled(est, settling: list) -> str | None:
    """The ``ConvergenceWarning`` text of a fit without ``tol`` whose last pass still
    lowered the objective by more than :data:`UNSETTLED` of it (``settling``: per
    problem, the fraction, or None where it was not measured), or None."""
    moving = [(i, s) for i, s in enumerate(settling) if s is not None and s > UNSETTLED]
    if not moving:
        return None
    worst = max(s for _, s in moving)
    which = _which(est, [i for i, _ in moving], len(settling))
    return (
        f"{_name(est)}: the last of max_iter={est.max_iter} passes still lowered the "
        f"training objective by {worst:.1%}{which}, more than {UNSETTLED:.0%}: the model "
        "is likely far from the optimum. Increase max_iter, or set tol to stop once "
        "the objective settles."
    )


def fit(model: LinearModel, matrix, y, n_features: int) -> str | None:
    """Train ``model`` from scratch as ``PegasosClassifier.fit`` does with the same
    parameters (``probability`` false), on ``matrix`` (the tuple or array the
    extension reads, already in its layout: ``_arrays.csr_parts``) with
    ``n_features`` columns and the labels ``y``, checked and encoded by the
    estimator's functions.

    Returns the text of the ``ConvergenceWarning`` ``fit`` would issue, or ``None``.
    """
    check_targets(y)
    labels = encode_targets(NAME, y)
    n_classes = int(labels[0].size)
    params = linear_solver_params(
        model, False, model.max_iter, model.max_steps, n_classes=n_classes
    )
    unconverged = train(model, matrix, labels, None, False, params)
    model.n_features_in_ = n_features
    # As fit: a run of exactly max_steps steps has no stopping rule to miss.
    return unconverged if model.max_steps is None else None


def decision_values(model: Any, matrix, n_jobs) -> np.ndarray:
    """``matrix coef_.T + intercept_`` of a linear model on ``matrix`` (the rows in
    the layout the extension reads, ``_arrays.as_rust_matrix``): shape (n_rows,) for
    one binary problem, else (n_rows, n_classes)."""
    scores = _core.decision_function(
        matrix,
        buffer(model.coef_, np.float64),
        buffer(model.intercept_, np.float64),
        n_threads(n_jobs),
    )
    return scores.ravel() if scores.shape[1] == 1 else scores


def labels_of(classes: np.ndarray, scores: np.ndarray) -> np.ndarray:
    """The classes ``predict`` gives for decision values ``scores``: the sign for
    two classes (one column; 0 is the first class), else the largest score."""
    if scores.ndim == 1:
        return classes[(scores > 0).astype(np.intp)]
    return classes[np.argmax(scores, axis=1)]


def save(model: LinearModel, path: PathLike) -> None:
    """Write a trained :class:`LinearModel` to ``path``: the file
    ``PegasosClassifier(**model.params)`` fitted the same way would write."""
    arrays = _model_file.Arrays()
    entry = _model_file.describe(
        NAME,
        model.params,
        model,
        arrays.add,
        SAVED_STATE,
    )
    _model_file.write(path, entry, arrays)
