"""Converters of :class:`~pegasos_rs.PegasosClassifier`,
:class:`~pegasos_rs.PegasosRegressor` and :class:`~pegasos_rs.PegasosOneClassSVM`.

The decision values are ``X coef_.T + intercept_`` (MatMul, Add). Labels are the
index of the largest score, as ``predict`` (never of the largest probability:
Platt's sigmoids can order the classes differently). Probabilities follow
``predict_proba`` (``pegasos_rs._base``):

* Platt (``probability=True``), ``z = probA_ f + probB_``: two classes
  ``[sigmoid(z), sigmoid(-z)]``; more classes ``softmax(log_sigmoid(-z))``, which is
  each class's sigmoid normalised to sum 1, computed in log space as the Rust core
  does (sigmoids that all underflow still give their ratios);
* ``log_loss``: two classes ``sigmoid([-f, f])``; more classes
  ``softmax(log_sigmoid(f))`` (the one-vs-rest sigmoids normalised);
* ``modified_huber``: ``(clip(s, -1, 1) + 1) / 2`` of the scores ``s`` (``[-f, f]`` for
  two classes); more classes normalised by their sum, a row of zeros uniform.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pegasos_rs.onnx._common import (
    Graph,
    check_fitted,
    check_sigmoids,
    check_width,
    classifier_outputs,
    classifier_shape,
    label_kind,
    one_class_outputs,
    one_class_shape,
    output_shape,
    probabilities,
    two_columns,
)


def check_classifier(model: Any) -> None:
    """Refuse an unfitted classifier, one whose ``probability=True`` has no fitted
    sigmoids, and classes ONNX labels cannot hold."""
    check_fitted(model, ["coef_", "intercept_", "classes_"])
    check_sigmoids(model)
    label_kind(model)


def convert_classifier(scope: Any, operator: Any, container: Any) -> None:
    """skl2onnx converter of :class:`~pegasos_rs.PegasosClassifier`."""
    model = operator.raw_operator
    g = Graph(scope, operator, container)
    check_width(operator, int(model.coef_.shape[1]))
    raw = container.get_options(model, dict(raw_scores=False))["raw_scores"]
    coef = np.asarray(model.coef_, dtype=np.float64)
    intercept = np.asarray(model.intercept_, dtype=np.float64).reshape(1, -1)
    f = g.affine(g.input, coef.T, intercept)
    binary = coef.shape[0] == 1
    scores = two_columns(g, f) if binary else f
    proba = None if raw else probabilities(g, model, f, scores, binary)
    classifier_outputs(
        g, scores, scores if proba is None else proba, model.classes_, label_kind(model)
    )


def check_regressor(model: Any) -> None:
    """Refuse an unfitted regressor."""
    check_fitted(model, ["coef_", "intercept_"])


def regressor_shape(operator: Any) -> None:
    output_shape(operator, 1)


def convert_regressor(scope: Any, operator: Any, container: Any) -> None:
    """skl2onnx converter of :class:`~pegasos_rs.PegasosRegressor`: ``variable`` is
    ``X coef_ + intercept_``, shape (N, 1)."""
    model = operator.raw_operator
    g = Graph(scope, operator, container)
    coef = np.asarray(model.coef_, dtype=np.float64).reshape(-1, 1)
    check_width(operator, coef.shape[0])
    intercept = np.asarray(model.intercept_, dtype=np.float64).reshape(1, 1)
    out = g.affine(g.input, coef, intercept)
    g.op("Identity", [out], operator.outputs[0].full_name)


def check_one_class(model: Any) -> None:
    """Refuse an unfitted one-class SVM."""
    check_fitted(model, ["coef_", "offset_"])


def convert_one_class(scope: Any, operator: Any, container: Any) -> None:
    """skl2onnx converter of :class:`~pegasos_rs.PegasosOneClassSVM`: ``scores`` is
    ``decision_function``, ``X coef_.T - offset_``; ``label`` is ``predict``, 1
    where the score is at least 0, else -1."""
    model = operator.raw_operator
    g = Graph(scope, operator, container)
    coef = np.asarray(model.coef_, dtype=np.float64).reshape(-1, 1)
    check_width(operator, coef.shape[0])
    offset = -np.asarray(model.offset_, dtype=np.float64).reshape(1, 1)
    one_class_outputs(g, g.affine(g.input, coef, offset))


__all__ = [
    "check_classifier",
    "check_one_class",
    "check_regressor",
    "classifier_shape",
    "convert_classifier",
    "convert_one_class",
    "convert_regressor",
    "one_class_shape",
    "regressor_shape",
]
