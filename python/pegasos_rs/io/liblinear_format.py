"""Writing linear models as LIBLINEAR model files.

:func:`write_liblinear_model` writes a fitted :class:`~pegasos_rs.PegasosClassifier`
or :class:`~pegasos_rs.PegasosRegressor` in the text layout LIBLINEAR's
``save_model`` writes, so that LIBLINEAR's ``predict`` (or its Python bindings'
``liblinearutil.load_model`` and ``predict``) predicts with a model pegasos-rs
trained. Reading these files back is :mod:`pegasos_rs.io.foreign_models`' job.
"""

from __future__ import annotations

import math
import operator
from typing import TYPE_CHECKING, Any

import numpy as np

from pegasos_rs import _registry
from pegasos_rs._fitted import fitted_param
from pegasos_rs.exceptions import NotFittedError

if TYPE_CHECKING:
    from pegasos_rs._typing import PathLike

__all__ = ["write_liblinear_model"]

#: The LIBLINEAR solver each classifier loss is written as (the closest one; the
#: file's weights are ours whatever the name).
CLASSIFIER_SOLVERS = {
    "log_loss": "L2R_LR",
    "hinge": "L2R_L1LOSS_SVC_DUAL",
    "squared_hinge": "L2R_L2LOSS_SVC",
    "modified_huber": "L2R_L2LOSS_SVC",
}
#: The LIBLINEAR solver each regression loss is written as.
REGRESSOR_SOLVERS = {
    "epsilon_insensitive": "L2R_L1LOSS_SVR_DUAL",
    "squared_epsilon_insensitive": "L2R_L2LOSS_SVR",
    "squared_error": "L2R_L2LOSS_SVR",
    "huber": "L2R_L2LOSS_SVR",
}
#: LIBLINEAR stores labels as C ``int`` and writes them with ``%d``.
_INT_MIN, _INT_MAX = -(2**31), 2**31 - 1


def write_liblinear_model(model: Any, path: PathLike) -> None:
    """Write a fitted linear model to ``path`` as a LIBLINEAR model file.

    The file is what LIBLINEAR's ``save_model`` writes (``solver_type``,
    ``nr_class``, ``label`` for classifiers, ``nr_feature``, ``bias``, then ``w``
    and one line of weights per feature, then one for the bias feature), every
    number written with ``%.17g`` so that it reads back exactly. LIBLINEAR's
    ``predict`` then gives the model's labels, and its decision values up to the
    rounding of sums added in another order.

    * :class:`~pegasos_rs.PegasosClassifier` (every loss; ``multi_class`` ``"ovr"``,
      ``"ovr_shared"`` and ``"crammer_singer"``). ``solver_type`` names the closest
      LIBLINEAR solver: ``log_loss`` ``L2R_LR``, ``hinge`` ``L2R_L1LOSS_SVC_DUAL``,
      ``squared_hinge`` ``L2R_L2LOSS_SVC``, ``crammer_singer`` ``MCSVM_CS``.
      ``modified_huber``, which LIBLINEAR lacks, is written as ``L2R_L2LOSS_SVC``:
      labels and decision values are exact, but LIBLINEAR's ``predict -b 1``
      refuses it as it refuses every solver but logistic regression (so it gives
      none of ``predict_proba``'s modified-Huber probabilities). For ``log_loss``,
      ``predict -b 1`` gives ``predict_proba``'s probabilities (LIBLINEAR normalises
      the one-vs-rest sigmoids as ``predict_proba`` does). Two classes: LIBLINEAR's
      single weight vector scores its first label positive, so the labels are
      written ``classes_[1] classes_[0]`` with ``coef_[0]``. More classes: the
      labels in the order of ``classes_``, column ``r`` holding ``coef_[r]``.
      Two-class ``crammer_singer`` (whose ``coef_`` is the one row ``w_1 - w_0``)
      is written as ``MCSVM_CS`` with two columns, ``coef_[0]`` for ``classes_[1]``
      and zeros for ``classes_[0]``: LIBLINEAR predicts two classes from the first
      column's sign, which is ours.
    * :class:`~pegasos_rs.PegasosOneClassSVM` as LIBLINEAR's one-class SVM
      (``ONECLASS_SVM``, ``train -s 21``): ``rho`` its ``offset_``, no bias.
      LIBLINEAR's ``predict`` gives +1 where ``w.x - rho > 0``, ``predict`` here
      where it is ``>= 0`` (scikit-learn's rule): a row scoring exactly ``rho`` is
      an outlier there, an inlier here.
    * :class:`~pegasos_rs.PegasosRegressor`, one column and no ``label`` line, as
      LIBLINEAR's regression files: ``epsilon_insensitive`` as
      ``L2R_L1LOSS_SVR_DUAL``, the other losses as ``L2R_L2LOSS_SVR``; the type
      only names the closest LIBLINEAR solver, the prediction ``w.x + b`` is the
      same whatever it is.

    The intercept: without ``fit_intercept``, ``bias -1`` and no bias line; with it,
    ``bias 1`` and the bias line ``intercept_`` (exact whatever
    ``intercept_scaling`` was, since LIBLINEAR adds ``bias * w_bias``). Feature
    ``j`` of the file (1-based, as LIBLINEAR and svmlight files number them) is
    column ``j - 1`` of ``X``, as :func:`~pegasos_rs.dump_svmlight_file` writes it
    with ``zero_based=False``. :func:`pegasos_rs.io.foreign_models.read_model` reads
    the file back (and :func:`pegasos_rs.load` the classifiers).

    Parameters
    ----------
    model : PegasosClassifier or PegasosRegressor
        A fitted estimator.
    path : str or os.PathLike
        The file to write (replaced if it exists). Nothing is written when the model
        is refused.

    Raises
    ------
    TypeError
        Another kind of model: kernel estimators (LIBSVM's format would hold them,
        LIBLINEAR's cannot), :class:`~pegasos_rs.PegasosRanker` (LIBLINEAR has no
        ranking model), anything else.
    NotFittedError
        The model is not fitted.
    ValueError
        A classifier with ``probability=True`` (Platt's sigmoids cannot be written
        in a LIBLINEAR file, and its ``predict -b 1`` would give other
        probabilities), class labels LIBLINEAR cannot hold (it stores labels as C
        ``int``: strings, non-integers such as 1.5, or integers beyond 32 bits), or
        non-finite weights.
    """
    text = _model_text(model)
    with open(path, "w", encoding="ascii", newline="\n") as f:
        f.write(text)


def _model_text(model: Any) -> str:
    """The file's text, after every check (so that a refused model writes nothing)."""
    classes = _registry.classes()
    name = type(model).__name__
    where = f"write_liblinear_model: cannot write a {name}"
    if isinstance(model, type):
        raise TypeError(f"{where} class: pass a fitted estimator (an instance)")
    if isinstance(model, classes["PegasosRanker"]):
        raise TypeError(
            f"{where}: LIBLINEAR has no ranking model (its files hold classifiers and "
            "regressors); save it with pegasos_rs.save"
        )
    if isinstance(model, (classes["KernelPegasosClassifier"], classes["KernelPegasosRegressor"])):
        raise TypeError(
            f"{where}: it is a kernel model (support vectors), which LIBLINEAR's linear "
            "model files cannot hold; LIBSVM's model format can, which this function "
            "does not write"
        )
    classifier = isinstance(model, classes["PegasosClassifier"])
    one_class = isinstance(model, classes["PegasosOneClassSVM"])
    if not (classifier or one_class or isinstance(model, classes["PegasosRegressor"])):
        raise TypeError(
            f"{where}: LIBLINEAR model files hold linear models; write_liblinear_model "
            "writes a fitted PegasosClassifier, PegasosRegressor or PegasosOneClassSVM"
        )
    if getattr(model, "coef_", None) is None:
        raise NotFittedError(f"{where} that is not fitted: call fit before writing it")
    coef = np.asarray(model.coef_, dtype=np.float64)
    if one_class:
        return _one_class_text(coef, float(np.asarray(model.offset_)[0]), where)
    intercept = np.asarray(model.intercept_, dtype=np.float64).reshape(-1)
    if not (np.all(np.isfinite(coef)) and np.all(np.isfinite(intercept))):
        raise ValueError(f"{where} with non-finite weights (inf or NaN)")
    n_features = int(model.n_features_in_)
    with_bias = bool(fitted_param(model, "fit_intercept")) or bool(np.any(intercept))
    if classifier:
        solver, labels, W, b = _classifier_columns(model, coef, intercept, where)
    else:
        loss = fitted_param(model, "loss")
        if loss not in REGRESSOR_SOLVERS:
            raise ValueError(f"{where} with loss={loss!r}: no LIBLINEAR solver is known")
        solver, labels = REGRESSOR_SOLVERS[loss], None
        W, b = coef.reshape(n_features, 1), intercept[:1]
    lines = [f"solver_type {solver}", f"nr_class {2 if labels is None else len(labels)}"]
    if labels is not None:
        lines.append("label " + " ".join(str(v) for v in labels))
    lines += [f"nr_feature {n_features}", f"bias {_g(1.0 if with_bias else -1.0)}", "w"]
    rows = np.vstack([W, b[None, :]]) if with_bias else W
    # LIBLINEAR's "%.17g " after every value, the line included.
    lines += ["".join(f"{_g(v)} " for v in row) for row in rows.tolist()]
    return "\n".join(lines) + "\n"


def _one_class_text(coef: np.ndarray, rho: float, where: str) -> str:
    """LIBLINEAR's ``-s 21`` file: ``ONECLASS_SVM``, no label line, no bias, ``rho``
    before the weights (LIBLINEAR's ``save_model`` order)."""
    if not (np.all(np.isfinite(coef)) and math.isfinite(rho)):
        raise ValueError(f"{where} with non-finite weights (inf or NaN)")
    lines = [
        "solver_type ONECLASS_SVM",
        "nr_class 2",
        f"nr_feature {coef.shape[1]}",
        f"bias {_g(-1.0)}",
        f"rho {_g(rho)}",
        "w",
    ]
    lines += [f"{_g(v)} " for v in coef[0].tolist()]
    return "\n".join(lines) + "\n"


def _classifier_columns(model: Any, coef: np.ndarray, intercept: np.ndarray, where: str):
    """``(solver_type, labels, W, bias_weights)`` of a fitted classifier: ``W`` of
    shape (n_features, nr_w), column ``r`` scoring ``labels[r]``."""
    if fitted_param(model, "probability"):
        raise ValueError(
            f"{where} with probability=True: its predict_proba uses Platt's sigmoids "
            "(probA_, probB_), which a LIBLINEAR model file cannot hold, and LIBLINEAR's "
            "predict -b 1 would give other probabilities; refit with probability=False "
            "(loss='log_loss' gives LIBLINEAR's logistic probabilities)"
        )
    labels = _int_labels(model.classes_, where)
    crammer_singer = fitted_param(model, "multi_class") == "crammer_singer"
    loss = fitted_param(model, "loss")
    if crammer_singer:
        solver = "MCSVM_CS"
    elif loss in CLASSIFIER_SOLVERS:
        solver = CLASSIFIER_SOLVERS[loss]
    else:
        raise ValueError(f"{where} with loss={loss!r}: no LIBLINEAR solver is known")
    if len(labels) == 2:
        # LIBLINEAR scores label[0] positive; our single row scores classes_[1].
        labels = [labels[1], labels[0]]
        W, b = coef[:1].T, intercept[:1]
        if crammer_singer:  # MCSVM_CS keeps a column per class; the first one decides
            W = np.hstack([W, np.zeros_like(W)])
            b = np.array([b[0], 0.0])
        return solver, labels, W, b
    return solver, labels, coef.T, intercept


def _int_labels(classes: Any, where: str) -> list[int]:
    """The class labels as Python ints, or ValueError: LIBLINEAR holds C ints."""
    values = np.asarray(classes)
    out = []
    for v in values.tolist():
        try:
            number = operator.index(v) if not isinstance(v, float) else None
        except TypeError:
            number = None
        if number is None and isinstance(v, float) and math.isfinite(v) and v == int(v):
            number = int(v)
        if number is None or isinstance(v, bool) or not _INT_MIN <= number <= _INT_MAX:
            raise ValueError(
                f"{where} with class label {v!r}: LIBLINEAR model files hold integer labels "
                f"(C int, {_INT_MIN} to {_INT_MAX}, written with %d); refit with labels "
                "encoded as such integers"
            )
        out.append(number)
    return out


def _g(value: float) -> str:
    """C's ``%.17g`` (17 significant digits, trailing zeros dropped), exact for a
    double read back with ``strtod``."""
    return f"{value:.17g}"
