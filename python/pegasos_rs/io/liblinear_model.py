"""LIBLINEAR's model files: :func:`read_liblinear` and the models it gives,
:class:`LiblinearModel` (classifiers, one-class SVM) and
:class:`LiblinearRegressionModel`, predicting as LIBLINEAR's ``predict`` does (see
:mod:`pegasos_rs.io.foreign_models`). :func:`pegasos_rs.load` reads LIBLINEAR's
classifiers through the reader this module registers.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, NoReturn

import numpy as np
import scipy.sparse as sp

from pegasos_rs import _core, _registry
from pegasos_rs._docs import filled
from pegasos_rs._validation import as_rust_matrix, buffer, n_threads
from pegasos_rs.exceptions import DataFormatError
from pegasos_rs.io._model_text import _check_X, _Header, _label_array, _labels

if TYPE_CHECKING:
    from pegasos_rs._typing import Int, MatrixLike
    from pegasos_rs.linear import PegasosClassifier

#: LIBLINEAR's classifiers, all predicting from ``w.x + b``.
LIBLINEAR_CLASSIFIERS = (
    "L2R_LR",
    "L2R_L2LOSS_SVC_DUAL",
    "L2R_L2LOSS_SVC",
    "L2R_L1LOSS_SVC_DUAL",
    "MCSVM_CS",
    "L1R_L2LOSS_SVC",
    "L1R_LR",
    "L2R_LR_DUAL",
)
#: LIBLINEAR's support vector regression solvers (``train -s 11``, ``12``, ``13``),
#: predicting the value ``w.x + b``.
LIBLINEAR_REGRESSORS = ("L2R_L2LOSS_SVR", "L2R_L2LOSS_SVR_DUAL", "L2R_L1LOSS_SVR_DUAL")
#: LIBLINEAR's one-class SVM (``train -s 21``): ``+1`` where ``w.x - rho > 0``, else ``-1``.
LIBLINEAR_ONE_CLASS = "ONECLASS_SVM"
#: LIBLINEAR's logistic regression solvers, whose models give probabilities (its
#: ``check_probability_model``).
LIBLINEAR_PROBABILITY = ("L2R_LR", "L1R_LR", "L2R_LR_DUAL")
_LIBLINEAR_KEYS = ("solver_type", "nr_class", "label", "nr_feature", "bias", "rho")


@filled
def read_liblinear(text: str, where: str = "<model>") -> LiblinearModel | LiblinearRegressionModel:
    """Parse the text of a LIBLINEAR model file.

    {reader_parameters}

    Returns
    -------
    model : LiblinearModel or LiblinearRegressionModel
        A :class:`LiblinearRegressionModel` for the regression solvers (``train -s
        11``, ``12``, ``13``), a :class:`LiblinearModel` for the others (the
        classifiers and the one-class SVM).

    Raises
    ------
    DataFormatError
        Malformed or truncated text, or an unknown solver type.
    """
    return _parse_liblinear(text, where)[0]


def _parse_liblinear(text: str, where: str):
    """The model of a LIBLINEAR model file and its header (for the line numbers)."""
    lines = text.splitlines()
    fmt = "LIBLINEAR"
    header = _Header(lines, "w", _LIBLINEAR_KEYS, where, fmt)
    solver = header.value("solver_type", str)
    known = (*LIBLINEAR_CLASSIFIERS, *LIBLINEAR_REGRESSORS, LIBLINEAR_ONE_CLASS)
    if solver not in known:
        raise DataFormatError(
            f"unknown LIBLINEAR solver_type {solver[:40]!r}; pegasos-rs predicts with "
            + ", ".join(known),
            where,
            header.line("solver_type"),
        )
    classifier = solver in LIBLINEAR_CLASSIFIERS
    n_class = header.value("nr_class", int)
    if not 1 <= n_class <= len(text):
        raise DataFormatError(f"bad nr_class {n_class}", where, header.line("nr_class"))
    if not classifier and n_class != 2:  # LIBLINEAR writes 2 and reads one weight per line
        raise DataFormatError(
            f"bad nr_class {n_class}: a {solver} model has nr_class 2",
            where,
            header.line("nr_class"),
        )
    # Regression and one-class models have no label line (LIBLINEAR ignores one).
    labels = _labels(header, n_class) if classifier else np.array([1.0, -1.0])
    rho = header.value("rho", float) if solver == LIBLINEAR_ONE_CLASS else 0.0
    n_feature = header.value("nr_feature", int)
    bias = header.value("bias", float)
    if n_feature < 0:
        raise DataFormatError(f"bad nr_feature {n_feature}", where, header.line("nr_feature"))
    n_w = 1 if n_class == 2 and solver != "MCSVM_CS" else n_class
    rows = n_feature + (1 if bias >= 0 else 0)
    start = header.end + 1
    if len(lines) - start < rows:
        raise DataFormatError(
            f"expected {rows} weight lines of {n_w} values after 'w' (line {start}), found "
            f"{len(lines) - start}: truncated?",
            where,
            len(lines) + 1,
        )
    W = np.empty((rows, n_w))
    for r in range(rows):
        parts = lines[start + r].split()
        try:
            row = [float(v) for v in parts]
        except ValueError:
            row = []
        if len(row) != n_w or not all(map(math.isfinite, row)):
            raise DataFormatError(
                f"expected {n_w} finite weights, got {lines[start + r][:60]!r}",
                where,
                start + r + 1,
            )
        W[r] = row
    for k in range(start + rows, len(lines)):
        if lines[k].strip():
            raise DataFormatError(
                f"text after the {rows} weight lines: {lines[k][:40]!r}", where, k + 1
            )
    weights = W[:n_feature]
    bias_weights = W[n_feature] if bias >= 0 else np.zeros(n_w)
    if solver in LIBLINEAR_REGRESSORS:
        model: Any = LiblinearRegressionModel(solver, weights[:, 0], bias, float(bias_weights[0]))
    else:
        model = LiblinearModel(solver, _label_array(labels), weights, bias, bias_weights, rho=rho)
    return model, header


def _read_liblinear_classifier(text: str, where: str) -> LiblinearModel:
    """:func:`read_liblinear` for :func:`pegasos_rs.load`, which turns the model into
    a :class:`~pegasos_rs.PegasosClassifier`: regression and one-class models are
    refused at their ``solver_type`` line."""
    model, header = _parse_liblinear(text, where)
    if isinstance(model, LiblinearRegressionModel) or model.solver_type == LIBLINEAR_ONE_CLASS:
        what = "a regression" if isinstance(model, LiblinearRegressionModel) else "a one-class"
        raise DataFormatError(
            f"LIBLINEAR solver_type {model.solver_type} is {what} model, not a classifier: "
            "pegasos_rs.load reads LIBLINEAR's classifiers (as PegasosClassifier); "
            "pegasos_rs.io.foreign_models.read_model reads this one and predicts as LIBLINEAR "
            "does",
            where,
            header.line("solver_type"),
        )
    return model


def _linear_scores(X: MatrixLike, weights, intercept, n_jobs: Int | None) -> np.ndarray:
    """``X weights + intercept`` as LIBLINEAR's ``predict`` computes it: ``X``'s
    columns beyond ``weights``' rows are ignored, missing ones are zero."""
    X = _check_X(X)
    d = weights.shape[0]
    if X.shape[1] != d:
        if sp.issparse(X):
            X = (
                X[:, :d]
                if X.shape[1] > d
                else sp.csr_matrix((X.data, X.indices, X.indptr), shape=(X.shape[0], d))
            )
        else:
            X = np.ascontiguousarray(X[:, :d]) if X.shape[1] > d else _pad(X, d)
    return _core.decision_function(
        as_rust_matrix(X),
        buffer(weights.T, np.float64),
        buffer(intercept, np.float64),
        n_threads(n_jobs),
    )


class LiblinearModel:
    """A LIBLINEAR classifier, or one-class SVM, read from its model file (see
    :func:`read_liblinear`).

    Attributes
    ----------
    solver_type : str
        LIBLINEAR's name of the solver that trained it (``L2R_L2LOSS_SVC_DUAL``, ...;
        ``ONECLASS_SVM`` for the one-class SVM, ``train -s 21``).
    labels : ndarray of shape (n_classes,)
        The class labels in the file's order (LIBLINEAR's order: first appearance in
        the training data), which decides ties. ``[1, -1]`` for the one-class SVM,
        whose file has none: LIBLINEAR predicts ``+1`` (inlier) or ``-1``.
    weights : ndarray of shape (n_features, n_scores)
        One column per score: one for two classes (except ``MCSVM_CS``), else one per
        class.
    bias : float
        The value of LIBLINEAR's bias feature (``-B``); negative when there is none.
    bias_weights : ndarray of shape (n_scores,)
        The weights of the bias feature (zeros without one).
    rho : float
        The one-class SVM's offset, subtracted from its score; 0 for the classifiers.
    n_features_in_ : int
        ``nr_feature``: features of larger index are ignored, as LIBLINEAR does.
    """

    def __init__(
        self,
        solver_type: str,
        labels: np.ndarray,
        weights: np.ndarray,
        bias: float,
        bias_weights: np.ndarray,
        *,
        rho: float = 0.0,
    ) -> None:
        self.solver_type = solver_type
        self.labels = labels
        self.weights = weights
        self.bias = bias
        self.bias_weights = bias_weights
        self.rho = rho
        self.n_features_in_ = weights.shape[0]

    def __repr__(self) -> str:
        return (
            f"LiblinearModel(solver_type={self.solver_type!r}, labels={self.labels.tolist()}, "
            f"n_features={self.n_features_in_}, bias={self.bias:g})"
        )

    def decision_function(self, X: MatrixLike, n_jobs: Int | None = None) -> np.ndarray:
        """LIBLINEAR's scores ``X w + bias w_bias`` (minus ``rho`` for the one-class
        SVM).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Column ``j`` is feature ``j + 1``; columns beyond ``n_features_in_`` are
            ignored, missing ones are zero.
        n_jobs : int, default=None
            Threads (-1: all cores).

        Returns
        -------
        scores : ndarray of shape (n_samples, n_scores)
        """
        intercept = self.bias * self.bias_weights if self.bias >= 0 else self.bias_weights
        scores = _linear_scores(X, self.weights, intercept, n_jobs)
        if self.rho:  # LIBLINEAR subtracts rho from the sum (bias term included)
            scores -= self.rho
        return scores

    @filled
    def predict(self, X: MatrixLike, n_jobs: Int | None = None) -> np.ndarray:
        """LIBLINEAR's predicted labels: for two classes ``labels[0]`` where the
        first score is positive, else ``labels[1]``; otherwise the label of the first
        largest score.

        {foreign_predict_parameters}
        """
        scores = self.decision_function(X, n_jobs)
        if self.labels.size == 2:
            return np.where(scores[:, 0] > 0, self.labels[0], self.labels[1])
        return self.labels[np.argmax(scores, axis=1)]

    def predict_proba(self, X: MatrixLike, n_jobs: Int | None = None) -> np.ndarray:
        """LIBLINEAR's probability estimates (its ``predict_probability``), for its
        logistic regression models (``solver_type`` ``L2R_LR``, ``L1R_LR``,
        ``L2R_LR_DUAL``: ``train -s 0``, ``6``, ``7``): the sigmoid
        ``1 / (1 + exp(-s))`` of each score ``s``; for two classes ``p`` for
        ``labels[0]`` and ``1 - p`` for ``labels[1]``, for more the one-vs-rest
        sigmoids normalised to sum to 1.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Column ``j`` is feature ``j + 1``.
        n_jobs : int, default=None
            Threads (-1: all cores).

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
            Columns in the order of ``labels`` (the file's, as LIBLINEAR's
            ``predict -b 1`` writes them).

        Raises
        ------
        ValueError
            For a model of another solver (LIBLINEAR's message: probability output
            is only supported for logistic regression).
        """
        if self.solver_type not in LIBLINEAR_PROBABILITY:
            raise ValueError(
                f"probability output is only supported for logistic regression "
                f"({', '.join(LIBLINEAR_PROBABILITY)}); this model is {self.solver_type}"
            )
        scores = self.decision_function(X, n_jobs)
        with np.errstate(over="ignore"):  # exp(-s) = inf for s < -709: p = 0, as in C
            p = 1.0 / (1.0 + np.exp(-scores))
        if self.labels.size == 2:
            return np.column_stack([p[:, 0], 1.0 - p[:, 0]])
        return p / p.sum(axis=1, keepdims=True)

    def to_classifier(self) -> PegasosClassifier:
        """The same linear model as a :class:`~pegasos_rs.PegasosClassifier` (classes
        sorted, scikit-learn's conventions). Its predictions equal LIBLINEAR's except
        on exact ties of scores, which scikit-learn breaks towards the smaller class.

        Returns
        -------
        estimator : PegasosClassifier

        Raises
        ------
        ValueError
            For a one-class SVM (``ONECLASS_SVM``), which is no classifier of classes
            seen in training.
        """
        if self.solver_type == LIBLINEAR_ONE_CLASS:
            raise ValueError(
                "to_classifier: this LIBLINEAR model is a one-class SVM (ONECLASS_SVM, "
                "novelty detection), not a classifier; predict with it directly"
            )
        PegasosClassifier = _registry.classes()["PegasosClassifier"]
        labels = self.labels.astype(np.float64)
        coef, intercept = self.weights.T, self.bias * self.bias_weights
        if self.bias < 0:
            intercept = np.zeros_like(self.bias_weights)
        order = np.argsort(labels)
        crammer_singer = self.solver_type == "MCSVM_CS"
        if labels.size == 2 and crammer_singer:
            # Two weight vectors, one per label: the larger class's minus the other's.
            hi, lo = order[1], order[0]
            coef, intercept = (
                coef[hi : hi + 1] - coef[lo : lo + 1],
                intercept[[hi]] - intercept[[lo]],
            )
        elif labels.size == 2:
            # LIBLINEAR predicts label[0] when the first score is > 0; ours the larger class.
            sign = 1.0 if labels[0] > labels[1] else -1.0
            coef, intercept = sign * coef[:1], sign * intercept[:1]
        else:
            coef, intercept = coef[order], intercept[order]
        bias = self.bias
        est = PegasosClassifier(
            fit_intercept=bias >= 0,
            intercept_scaling=bias if bias > 0 else 1.0,
            multi_class="crammer_singer" if crammer_singer else "ovr",
        )
        est.coef_ = np.ascontiguousarray(coef, dtype=np.float64)
        est.intercept_ = np.ascontiguousarray(intercept, dtype=np.float64)
        est.classes_ = self.labels[order]
        est.n_features_in_ = self.n_features_in_
        est.n_iter_ = 0
        est.t_ = 0
        est.objective_ = None
        return est


class LiblinearRegressionModel:
    """A LIBLINEAR support vector regression model read from its model file (see
    :func:`read_liblinear`): ``train -s 11`` (``L2R_L2LOSS_SVR``), ``-s 12``
    (``L2R_L2LOSS_SVR_DUAL``) or ``-s 13`` (``L2R_L1LOSS_SVR_DUAL``). It predicts
    real values, ``w.x + bias w_bias``, as LIBLINEAR's ``predict`` does; having no
    classes, it has no ``predict_proba`` and no ``decision_function``.

    Attributes
    ----------
    solver_type : str
        LIBLINEAR's name of the solver that trained it.
    weights : ndarray of shape (n_features,)
    bias : float
        The value of LIBLINEAR's bias feature (``-B``); negative when there is none.
    bias_weight : float
        The weight of the bias feature (0 without one).
    n_features_in_ : int
        ``nr_feature``: features of larger index are ignored, as LIBLINEAR does.
    """

    def __init__(
        self, solver_type: str, weights: np.ndarray, bias: float, bias_weight: float
    ) -> None:
        self.solver_type = solver_type
        self.weights = weights
        self.bias = bias
        self.bias_weight = bias_weight
        self.n_features_in_ = weights.shape[0]

    def __repr__(self) -> str:
        return (
            f"LiblinearRegressionModel(solver_type={self.solver_type!r}, "
            f"n_features={self.n_features_in_}, bias={self.bias:g})"
        )

    def predict(self, X: MatrixLike, n_jobs: Int | None = None) -> np.ndarray:
        """LIBLINEAR's predicted values ``X w + bias w_bias``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Column ``j`` is feature ``j + 1``; columns beyond ``n_features_in_`` are
            ignored, missing ones are zero.
        n_jobs : int, default=None
            Threads (-1: all cores).

        Returns
        -------
        values : ndarray of shape (n_samples,)
        """
        intercept = np.array([self.bias * self.bias_weight if self.bias >= 0 else 0.0])
        return _linear_scores(X, self.weights[:, None], intercept, n_jobs)[:, 0]

    def to_classifier(self) -> NoReturn:
        """Refused: a regression model is not a classifier.

        Raises
        ------
        ValueError
            Always, naming the model's solver.
        """
        raise ValueError(
            f"to_classifier: this LIBLINEAR model is a regression model ({self.solver_type}), "
            "not a classifier; predict with it directly (predict gives LIBLINEAR's values)"
        )


def _pad(X: np.ndarray, width: int) -> np.ndarray:
    out = np.zeros((X.shape[0], width))
    out[:, : X.shape[1]] = X
    return out


# pegasos_rs.load reads LIBLINEAR's classifiers too (model_io knows no other format).
_registry.register_text_reader("liblinear", _read_liblinear_classifier)
