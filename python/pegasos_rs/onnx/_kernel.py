"""Converters of :class:`~pegasos_rs.KernelPegasosClassifier`,
:class:`~pegasos_rs.KernelPegasosRegressor` and
:class:`~pegasos_rs.KernelPegasosOneClassSVM`.

The models predict through the expansion
``f(x) = sum_i dual_coef_[p, i] K(support_vectors_[i], x) + intercept_[p]``, one
column per binary problem ``p``. The graph computes it in the input's float type,
the parameters rounded to it:

* with ``ai.onnx.ml``'s ``SVMRegressor`` where it expresses the model exactly: a
  single problem (the regressor, a two-class classifier) with a kernel it knows
  (linear, rbf, poly, sigmoid) and a float32 input (its parameters are float32
  attributes). The option ``svm_ops=False`` uses the graph below instead, which
  onnxruntime runs faster for rbf (its ``SVMRegressor`` evaluates rbf in a
  single-threaded loop, against a multithreaded ``MatMul``);
* otherwise with standard operators: a ``MatMul`` with the support vectors and the
  kernel's elementwise function for the dot-product kernels (rbf through
  ``|x - c|^2 + |s - c|^2 - 2 (x - c).(s - c)``, clipped at 0 as the Rust kernel
  does, with ``c`` the support vectors' mean: centring keeps the norms, hence what
  float32 loses to cancellation, small), a ``Scan`` over the input rows for the
  additive kernels (chi2, intersection: each row against every support vector, so
  a batch holds ``n_SV * n_features`` values at a time, not ``N`` times as many),
  then a ``MatMul`` with the dual coefficients of all the problems at once.

``SVMClassifier`` is not used: its labels are libsvm's (a pair votes for its first
class when its value is > 0, ties go to the lower class) and its probabilities
libsvm's pairwise coupling, while the model's one-vs-one votes count ``f >= 0``,
break ties by the summed confidences, and its probabilities are one Platt sigmoid
per class; its one-vs-rest problems have no ``SVMClassifier`` form at all.

The classifier's outputs follow the model (and :mod:`pegasos_rs.onnx._common`'s
layout): ``label`` by ``predict``'s rule (the sign of ``f`` for two classes, the
largest score otherwise, one-vs-one scores being the votes plus the scaled summed
confidences of ``decision_function_shape="ovr"``), ``probabilities`` by
``predict_proba`` (Platt's sigmoids, or ``loss="modified_huber"``'s), or the
decision scores: ``[-f, f]`` for two classes, one column per class, or with
``multi_class="ovo"`` and ``decision_function_shape="ovo"`` the pairs' values
``(N, n_classes (n_classes - 1) / 2)`` as ``decision_function`` gives them (then no
``ZipMap``: the columns are pairs, not classes).

The one-class SVM's outputs are skl2onnx's of ``OneClassSVM``: ``label`` (int64, 1
where the score is at least 0, else -1: ``predict``) and ``scores``, the decision
values ``f`` (N,) with ``intercept_ = -offset_``.

The additive kernels need non-negative input, as the model does; the graph cannot
raise, so a negative value gives a meaningless score instead of the model's error.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp

from pegasos_rs._fitted import fitted_param
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
    refuse,
    two_columns,
)

#: The kernels the graph computes, with the name ``SVMRegressor`` gives those it
#: knows (``None``: standard operators only).
KERNELS: dict[str, str | None] = {
    "linear": "LINEAR",
    "rbf": "RBF",
    "poly": "POLY",
    "sigmoid": "SIGMOID",
    "chi2": None,
    "intersection": None,
}

_FITTED = ["support_", "support_vectors_", "dual_coef_", "intercept_", "_gamma"]


def _check_expansion(model: Any) -> None:
    """Refuse what no graph computes: a precomputed or callable kernel, fitted
    attributes that do not make an expansion."""
    kernel = fitted_param(model, "kernel")
    if callable(kernel) or not isinstance(kernel, str):
        refuse(
            model,
            f"its kernel is a callable ({kernel!r}): the graph must compute the kernel "
            f"itself, and only the named kernels ({', '.join(KERNELS)}) have an ONNX form",
            TypeError,
        )
    if kernel == "precomputed":
        refuse(
            model,
            "kernel='precomputed' reads a Gram matrix against the training rows, which "
            "the model does not keep: no graph can compute it from a row's features. "
            "Fit it with the kernel itself (e.g. kernel='rbf') to export it",
        )
    if kernel not in KERNELS:
        refuse(model, f"kernel={kernel!r} has no ONNX form")
    n_sv = np.asarray(model.support_).size
    n_problems = np.asarray(model.intercept_).size
    coef_shape = np.shape(model.dual_coef_)
    sv_shape = getattr(model.support_vectors_, "shape", None)
    if coef_shape != (n_problems, n_sv) or sv_shape != (n_sv, model.n_features_in_):
        refuse(
            model,
            f"its fitted attributes do not make an expansion: dual_coef_ {coef_shape}, "
            f"intercept_ ({n_problems},), support_vectors_ {sv_shape}, n_features_in_ "
            f"{model.n_features_in_}",
        )


def check_classifier(model: Any) -> None:
    """Refuse an unfitted classifier, a kernel without an ONNX form, Platt's
    sigmoids missing (``probability`` set after ``fit``), and classes that ONNX
    labels cannot hold."""
    check_fitted(model, [*_FITTED, "classes_"])
    _check_expansion(model)
    check_sigmoids(model)
    n_classes = len(model.classes_)
    expected = 1 if n_classes == 2 else n_classes
    if model.multi_class_ == "ovo":
        expected = n_classes * (n_classes - 1) // 2
    if np.asarray(model.intercept_).size != expected:
        refuse(
            model,
            f"it has {np.asarray(model.intercept_).size} binary problems, but "
            f"multi_class_={model.multi_class_!r} with {n_classes} classes makes {expected}",
        )
    if model.decision_function_shape == "ovo" and model.multi_class_ == "ovr" and n_classes > 2:
        refuse(
            model,
            "decision_function_shape='ovo' with a one-vs-rest model has no pairs' values "
            "(decision_function raises ValueError): set decision_function_shape='ovr'",
        )
    label_kind(model)


def check_regressor(model: Any) -> None:
    """Refuse an unfitted regressor and a kernel without an ONNX form."""
    check_fitted(model, _FITTED)
    _check_expansion(model)


# ------------------------------------------------------------------ the expansion


def _dense(matrix: Any) -> np.ndarray:
    """The support vectors as a dense float64 array (a CSR matrix's repeated
    columns summed, as the kernels read them)."""
    if sp.issparse(matrix):
        return np.asarray(matrix.toarray(), dtype=np.float64)
    return np.asarray(matrix, dtype=np.float64)


def _svm_regressor(g: Graph, sv: np.ndarray, coef: np.ndarray, b: float, model: Any) -> str:
    """``ai.onnx.ml.SVMRegressor`` of one problem (float32 input): ``(N, 1)``. Support
    vectors without a coefficient in this problem are left out."""
    keep = coef != 0
    keep[0] |= not keep.any()  # the operator needs one support vector
    out = g.name("svm_scores")
    params = [
        float(model._gamma),
        float(fitted_param(model, "coef0")),
        float(fitted_param(model, "degree")),
    ]
    g.container.add_node(
        "SVMRegressor",
        [g.input],
        [out],
        op_domain="ai.onnx.ml",
        op_version=1,
        name=g.scope.get_unique_operator_name("SVMRegressor"),
        kernel_type=KERNELS[fitted_param(model, "kernel")],
        kernel_params=np.asarray(params, dtype=np.float32),
        support_vectors=sv[keep].astype(np.float32).ravel(),
        n_supports=int(keep.sum()),
        coefficients=coef[keep].astype(np.float32),
        rho=np.asarray([b], dtype=np.float32),
        post_transform="NONE",
    )
    return out


def _dot_kernel(g: Graph, sv: np.ndarray, model: Any) -> str:
    """``K(x, s)`` of the dot-product kernels through a matrix product: ``(N, n_SV)``."""
    gamma, coef0, degree = (
        float(model._gamma),
        float(fitted_param(model, "coef0")),
        int(fitted_param(model, "degree")),
    )
    if fitted_param(model, "kernel") == "rbf":
        centre = sv.mean(axis=0)
        svc = sv - centre
        xc = g.sub(g.input, g.const(centre.reshape(1, -1), "sv_centre"))
        dots = g.matmul(xc, g.const(svc.T, "centred_svs"))
        x_sq = g.matmul(g.mul(xc, xc), g.const(np.ones((sv.shape[1], 1)), "ones"))
        sv_sq = (svc * svc).sum(axis=1).reshape(1, -1)
        # -gamma |x - s|^2 = 2 gamma x.s - gamma |x|^2 - gamma |s|^2, at most 0.
        exponent = g.add(
            g.add(
                g.mul(dots, g.const(2.0 * gamma, "two_gamma")),
                g.mul(x_sq, g.const(-gamma, "minus_gamma")),
            ),
            g.const(-gamma * sv_sq, "minus_gamma_sv_sq"),
        )
        return g.op("Exp", [g.op("Min", [exponent, g.const(0.0, "zero")])])
    dots = g.matmul(g.input, g.const(sv.T, "svs"))
    if fitted_param(model, "kernel") == "linear":
        return dots
    inner = g.add(g.mul(dots, g.const(gamma, "gamma")), g.const(coef0, "coef0"))
    if fitted_param(model, "kernel") == "sigmoid":
        return g.op("Tanh", [inner])
    return g.op("Pow", [inner, g.const(degree, "degree", np.int64)])


def _additive_kernel(g: Graph, sv: np.ndarray, model: Any) -> str:
    """``K(x, s)`` of chi2 and intersection, a ``Scan`` over the input rows whose
    body compares one row with every support vector: ``(N, n_SV)``."""
    from onnx import helper, numpy_helper

    n_sv, d = sv.shape

    def tensor(name: str, value: Any) -> Any:
        return numpy_helper.from_array(np.asarray(value, dtype=g.dtype), name)

    inits = [tensor("svs", sv), tensor("ones", np.ones(d))]
    if fitted_param(model, "kernel") == "intersection":
        nodes = [
            helper.make_node("Min", ["row", "svs"], ["minima"]),
            helper.make_node("MatMul", ["minima", "ones"], ["kernel_row"]),
        ]
    else:
        # sum (x - s)^2 / (x + s), a term 0 where x + s = 0: then x = s = 0 on
        # non-negative data, and dividing by the smallest normal number gives it.
        inits += [tensor("tiny", np.finfo(g.dtype).tiny), tensor("minus_gamma", -model._gamma)]
        nodes = [
            helper.make_node("Sub", ["row", "svs"], ["diff"]),
            helper.make_node("Mul", ["diff", "diff"], ["diff_sq"]),
            helper.make_node("Add", ["row", "svs"], ["total"]),
            helper.make_node("Max", ["total", "tiny"], ["denominator"]),
            helper.make_node("Div", ["diff_sq", "denominator"], ["terms"]),
            helper.make_node("MatMul", ["terms", "ones"], ["distance"]),
            helper.make_node("Mul", ["distance", "minus_gamma"], ["exponent"]),
            helper.make_node("Exp", ["exponent"], ["kernel_row"]),
        ]
    body = helper.make_graph(
        nodes,
        g.name("kernel_row_body"),
        [helper.make_tensor_value_info("row", g.proto, [d])],
        [helper.make_tensor_value_info("kernel_row", g.proto, [n_sv])],
        initializer=inits,
    )
    return g.op("Scan", [g.input], body=body, num_scan_inputs=1)


def _expansion(g: Graph, model: Any, svm_ops: bool) -> str:
    """The decision values of the model's binary problems: ``(N, n_problems)``."""
    sv = _dense(model.support_vectors_)
    coef = np.asarray(model.dual_coef_, dtype=np.float64)
    intercept = np.asarray(model.intercept_, dtype=np.float64).reshape(1, -1)
    single = intercept.size == 1
    if (
        svm_ops
        and single
        and KERNELS[fitted_param(model, "kernel")]
        and not g.double
        and sv.shape[0]
    ):
        return _svm_regressor(g, sv, coef[0], float(intercept[0, 0]), model)
    if sv.shape[0] == 0:  # no support vector: the intercepts alone
        return g.affine(g.input, np.zeros((sv.shape[1], intercept.size)), intercept)
    if fitted_param(model, "kernel") in ("chi2", "intersection"):
        kernel = _additive_kernel(g, sv, model)
    else:
        kernel = _dot_kernel(g, sv, model)
    return g.affine(kernel, coef.T, intercept)


def _votes(g: Graph, pair_scores: str, n_classes: int) -> str:
    """One-vs-one values to a score per class, as the model's ``_votes`` (scikit-
    learn's ``decision_function_shape="ovr"``): the votes (pair ``(i, j)`` votes for
    ``i`` when its value is ``>= 0``, else for ``j``) plus the summed confidences
    scaled into ``(-1/3, 1/3)``, which break ties between equal votes."""
    pairs = [(i, j) for i in range(n_classes) for j in range(i + 1, n_classes)]
    first = np.zeros((len(pairs), n_classes))
    second = np.zeros((len(pairs), n_classes))
    for p, (i, j) in enumerate(pairs):
        first[p, i] = 1.0
        second[p, j] = 1.0
    # Every pair's vote starts at its first class; a negative value moves it to j.
    negative = g.op("Cast", [g.op("Less", [pair_scores, g.const(0.0, "zero")])], to=g.proto)
    votes = g.add(
        g.const(first.sum(axis=0).reshape(1, -1), "first_votes"),
        g.matmul(negative, g.const(second - first, "vote_moves")),
    )
    confidence = g.matmul(pair_scores, g.const(first - second, "pair_signs"))
    scale = g.mul(g.add(g.op("Abs", [confidence]), g.const(1.0, "one")), g.const(3.0, "three"))
    return g.add(votes, g.div(confidence, scale))


def _pair_output(model: Any, raw_scores: bool) -> bool:
    """Whether the classifier's second output holds the pairs' values."""
    return (
        model.multi_class_ == "ovo"
        and model.decision_function_shape == "ovo"
        and len(model.classes_) > 2
        and (raw_scores or not _has_probabilities(model))
    )


def _has_probabilities(model: Any) -> bool:
    """Whether the model has ``predict_proba`` (Platt's, or modified_huber's, which a
    one-vs-one model of more than two classes has not: its scores are votes)."""
    if fitted_param(model, "probability"):
        return True
    pairs = model.multi_class_ == "ovo" and len(model.classes_) > 2
    return fitted_param(model, "loss") == "modified_huber" and not pairs


# ------------------------------------------------------------ converters, shapes


def convert_classifier(scope: Any, operator: Any, container: Any) -> None:
    """skl2onnx converter of :class:`~pegasos_rs.KernelPegasosClassifier`."""
    model = operator.raw_operator
    g = Graph(scope, operator, container)
    check_width(operator, int(model.n_features_in_))
    options = container.get_options(model, dict(raw_scores=False, svm_ops=True))
    raw = bool(options["raw_scores"])
    problems = _expansion(g, model, bool(options["svm_ops"]))
    n_classes = len(model.classes_)
    binary = n_classes == 2
    f = _votes(g, problems, n_classes) if model.multi_class_ == "ovo" and not binary else problems
    scores = two_columns(g, f) if binary else f
    proba = (
        None if raw or not _has_probabilities(model) else probabilities(g, model, f, scores, binary)
    )
    if proba is not None:
        second = proba
    elif _pair_output(model, raw):
        second = problems
    else:
        second = scores
    classifier_outputs(g, scores, second, model.classes_, label_kind(model))


def kernel_classifier_shape(operator: Any) -> None:
    """``label`` ``(N,)`` and ``probabilities`` ``(N, n_classes)``, or ``(N, n_pairs)``
    for one-vs-one pairs' values."""
    model = operator.raw_operator
    options = operator.scope_inst.get_options(model, dict(raw_scores=False), fail=False) or {}
    pairs = _pair_output(model, bool(options.get("raw_scores", False)))
    classifier_shape(operator, zipped=False if pairs else None)  # pairs are not zipped
    if pairs:
        n_classes = len(model.classes_)
        n = operator.inputs[0].get_first_dimension()
        operator.outputs[1].type = type(operator.outputs[1].type)(
            shape=[n, n_classes * (n_classes - 1) // 2]
        )


def check_one_class(model: Any) -> None:
    """Refuse an unfitted one-class SVM and a kernel without an ONNX form."""
    check_fitted(model, [*_FITTED, "offset_"])
    _check_expansion(model)


def convert_one_class(scope: Any, operator: Any, container: Any) -> None:
    """skl2onnx converter of :class:`~pegasos_rs.KernelPegasosOneClassSVM`: ``label``
    and ``scores`` (see the module documentation)."""
    model = operator.raw_operator
    g = Graph(scope, operator, container)
    check_width(operator, int(model.n_features_in_))
    options = container.get_options(model, dict(svm_ops=True))
    one_class_outputs(g, _expansion(g, model, bool(options["svm_ops"])))


def regressor_shape(operator: Any) -> None:
    output_shape(operator, 1)


def convert_regressor(scope: Any, operator: Any, container: Any) -> None:
    """skl2onnx converter of :class:`~pegasos_rs.KernelPegasosRegressor`:
    ``variable``, the predictions ``(N, 1)``."""
    model = operator.raw_operator
    g = Graph(scope, operator, container)
    check_width(operator, int(model.n_features_in_))
    options = container.get_options(model, dict(svm_ops=True))
    out = _expansion(g, model, bool(options["svm_ops"]))
    g.op("Identity", [out], operator.outputs[0].full_name)


def parse_classifier(scope: Any, model: Any, inputs: list, custom_parsers: Any = None) -> list:
    """skl2onnx parser of the classifier: its ``label`` and ``probabilities``
    outputs, then skl2onnx's ``ZipMap`` (option ``zipmap``, True by default) when
    the second output has a column per class; the pairs' values of
    ``decision_function_shape="ovo"`` stay a tensor."""
    from skl2onnx._parse import _apply_zipmap, _parse_sklearn_simple_model

    check_classifier(model)  # the parser runs before the shape calculator's check
    options = scope.get_options(model, dict(zipmap=True, raw_scores=False))
    outputs = _parse_sklearn_simple_model(scope, model, inputs, custom_parsers=custom_parsers)
    if not options["zipmap"] or _pair_output(model, bool(options["raw_scores"])):
        return outputs
    return _apply_zipmap(options["zipmap"], scope, model, inputs[0].type, outputs)


__all__ = [
    "check_classifier",
    "check_one_class",
    "check_regressor",
    "convert_classifier",
    "convert_one_class",
    "convert_regressor",
    "kernel_classifier_shape",
    "one_class_shape",
    "parse_classifier",
    "regressor_shape",
]
