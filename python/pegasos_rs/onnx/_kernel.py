"""ONNX converters of :class:`~pegasos_rs.KernelPegasosClassifier` and
:class:`~pegasos_rs.KernelPegasosRegressor` (skl2onnx's converter protocol).

Both models predict through the expansion
``f(x) = sum_i dual_coef_[:, i] K(support_vectors_[i], x) + intercept_``, one column
per binary problem. The graph computes it in the input's precision (float32 for a
``FloatTensorType`` input, float64 for a ``DoubleTensorType`` one):

- with the ``ai.onnx.ml`` operators where they express the model exactly
  (option ``svm_ops=True``, the default, float input, kernels linear, rbf, poly and
  sigmoid): ``SVMRegressor`` for a single problem (the regressor, a binary
  classifier);
- otherwise with standard operators: ``MatMul`` against the support vectors and the
  kernel's elementwise function for the dot-product kernels (rbf as
  ``exp(-gamma (|x - c|^2 - 2 (x - c).(s - c) + |s - c|^2))``, centred on the support
  vectors' mean ``c`` so that float32 loses less to cancellation), a ``Scan`` over the
  rows for the additive kernels (chi2, intersection), then a ``MatMul`` with the
  dual coefficients of every problem at once.

The classifier's outputs follow the model, not onnxruntime's ``SVMClassifier``:
labels by ``predict``'s rule (the sign of the decision value for two classes, the
largest score otherwise; one-vs-one votes with ties broken by the summed
confidences, as ``decision_function_shape="ovr"`` gives them), scores in
``decision_function``'s layout, probabilities as ``predict_proba`` (Platt's
sigmoids, or ``loss="modified_huber"``'s).
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np
import scipy.sparse as sp

#: The kernels the graph computes, and the name of those ``SVMRegressor`` and
#: ``SVMClassifier`` know (``None``: standard operators only).
KERNELS: dict[str, str | None] = {
    "linear": "LINEAR",
    "rbf": "RBF",
    "poly": "POLY",
    "sigmoid": "SIGMOID",
    "chi2": None,
    "intersection": None,
}

#: The converter options (skl2onnx's ``options``) of each estimator.
CLASSIFIER_OPTIONS: dict[str, list[Any]] = {
    "zipmap": [True, False, "columns"],
    "raw_scores": [True, False],
    "svm_ops": [True, False],
}
REGRESSOR_OPTIONS: dict[str, list[Any]] = {"svm_ops": [True, False]}


def check_exportable(model: Any) -> None:
    """Raise ``TypeError``/``ValueError`` naming the model and the reason when it
    cannot be exported: not fitted, a precomputed or callable kernel, or fitted
    attributes that do not make an expansion."""
    from sklearn.exceptions import NotFittedError
    from sklearn.utils.validation import check_is_fitted

    name = type(model).__name__
    try:
        check_is_fitted(model)
    except NotFittedError as e:
        raise ValueError(f"{name} is not fitted: call fit before exporting it to ONNX") from e
    kernel = model.kernel
    if callable(kernel) or not isinstance(kernel, str):
        raise TypeError(
            f"{name} with a callable kernel ({kernel!r}) cannot be exported to ONNX: "
            "the graph must compute the kernel itself, and only the named kernels "
            f"{', '.join(KERNELS)} have an ONNX form"
        )
    if kernel == "precomputed":
        raise ValueError(
            f"{name} with kernel='precomputed' cannot be exported to ONNX: its input "
            "is a Gram matrix against the training rows, which the model does not keep, "
            "so no graph can compute it from a sample's features"
        )
    if kernel not in KERNELS:
        raise ValueError(f"{name} has kernel={kernel!r}, which has no ONNX form")
    n_sv, n_problems = model.support_.size, np.asarray(model.intercept_).size
    coef = np.asarray(model.dual_coef_)
    if coef.shape != (n_problems, n_sv) or getattr(model.support_vectors_, "shape", None) != (
        n_sv,
        model.n_features_in_,
    ):
        raise ValueError(
            f"{name}'s fitted attributes are inconsistent: dual_coef_ {coef.shape}, "
            f"intercept_ ({n_problems},), support_vectors_ "
            f"{getattr(model.support_vectors_, 'shape', None)}, "
            f"n_features_in_ {model.n_features_in_}"
        )


# ---------------------------------------------------------------------------
# Graph building: a thin layer over skl2onnx's container.


class _Graph:
    """Adds nodes and constants to a skl2onnx container in one floating dtype."""

    def __init__(self, scope: Any, container: Any, proto_dtype: int) -> None:
        from onnx import TensorProto

        self.scope = scope
        self.container = container
        self.proto = proto_dtype
        self.np_dtype = np.float64 if proto_dtype == TensorProto.DOUBLE else np.float32

    def name(self, hint: str) -> str:
        return self.scope.get_unique_variable_name(hint)

    def const(self, hint: str, value: Any, dtype: Any = None) -> str:
        """An initializer holding ``value`` (in the graph's dtype unless ``dtype``)."""
        from onnx import numpy_helper

        array = np.asarray(value, dtype=self.np_dtype if dtype is None else dtype)
        name = self.name(hint)
        tensor = numpy_helper.from_array(np.ascontiguousarray(array), name)
        self.container.add_initializer(name, tensor.data_type, list(array.shape), tensor)
        return name

    def op(self, op_type: str, inputs: list[str], hint: str | None = None, **attrs: Any) -> str:
        """One node with one output (a fresh name); returns the output's name."""
        out = self.name(hint or op_type.lower())
        self.node(op_type, inputs, [out], **attrs)
        return out

    def node(self, op_type: str, inputs: list[str], outputs: list[str], **attrs: Any) -> None:
        domain = "ai.onnx.ml" if op_type in ("SVMRegressor", "SVMClassifier") else ""
        self.container.add_node(
            op_type,
            inputs,
            outputs,
            op_domain=domain,
            op_version=1 if domain else None,
            name=self.scope.get_unique_operator_name(op_type),
            **attrs,
        )

    def cast(self, name: str, to: int, hint: str = "cast") -> str:
        return self.op("Cast", [name], hint, to=to)


def _dense(matrix: Any) -> np.ndarray:
    """A dense float64 copy of the support vectors (CSR sums repeated columns, as
    the kernels do)."""
    if sp.issparse(matrix):
        return np.asarray(matrix.toarray(), dtype=np.float64)
    return np.asarray(matrix, dtype=np.float64)


def _kernel_params(model: Any) -> tuple[float, float, int]:
    return float(model._gamma), float(model.coef0), int(model.degree)


def _svm_regressor(g: _Graph, x: str, sv: np.ndarray, coef: np.ndarray, b: float, model) -> str:
    """``SVMRegressor`` for one problem (float input): ``[N, 1]``."""
    keep = coef != 0
    if not keep.any():  # the operator needs a support vector
        keep[: min(1, keep.size)] = True
    gamma, coef0, degree = _kernel_params(model)
    kernel = KERNELS[model.kernel]
    return g.op(
        "SVMRegressor",
        [x],
        "svm_scores",
        kernel_type=kernel,
        kernel_params=[float(np.float32(v)) for v in (gamma, coef0, degree)],
        support_vectors=sv[keep].astype(np.float32).ravel(),
        n_supports=int(keep.sum()),
        coefficients=coef[keep].astype(np.float32),
        rho=[float(np.float32(b))],
        post_transform="NONE",
    )


def _dot_kernel(g: _Graph, x: str, sv: np.ndarray, model: Any) -> str:
    """``K(x, sv_j)`` of the dot-product kernels by a matrix product: ``[N, M]``."""
    gamma, coef0, degree = _kernel_params(model)
    kernel = model.kernel
    if kernel == "rbf":
        # |x - s|^2 = |x - c|^2 + |s - c|^2 - 2 (x - c).(s - c) for any c: the mean
        # of the support vectors keeps the norms (hence the cancellation) small.
        centre = sv.mean(axis=0) if sv.shape[0] else np.zeros(sv.shape[1])
        svc = sv - centre
        xc = g.op("Sub", [x, g.const("sv_centre", centre)], "x_centred")
        dots = g.op("MatMul", [xc, g.const("sv_t", svc.T)], "dots")
        ones = g.const("ones", np.ones((sv.shape[1], 1)))
        x_sq = g.op("MatMul", [g.op("Mul", [xc, xc], "x_sq_terms"), ones], "x_sq")
        sv_sq = (svc * svc).sum(axis=1)[np.newaxis, :]
        # -gamma |x - s|^2, clamped at 0 from above as the core clamps the distance.
        two_dots = g.op("Mul", [dots, g.const("two_gamma", 2.0 * gamma)], "two_gamma_dots")
        minus_x = g.op("Mul", [x_sq, g.const("minus_gamma", -gamma)], "minus_gamma_x_sq")
        exponent = g.op(
            "Add",
            [g.op("Add", [two_dots, minus_x], "partial"), g.const("minus_gamma_sv_sq", -gamma * sv_sq)],
            "exponent",
        )
        exponent = g.op("Min", [exponent, g.const("zero", 0.0)], "exponent_clamped")
        return g.op("Exp", [exponent], "kernel")
    dots = g.op("MatMul", [x, g.const("sv_t", sv.T)], "dots")
    if kernel == "linear":
        return dots
    inner = g.op(
        "Add",
        [g.op("Mul", [dots, g.const("gamma", gamma)], "scaled"), g.const("coef0", coef0)],
        "inner",
    )
    if kernel == "sigmoid":
        return g.op("Tanh", [inner], "kernel")
    return g.op("Pow", [inner, g.const("degree", float(degree))], "kernel")


def _additive_kernel(g: _Graph, x: str, sv: np.ndarray, model: Any) -> str:
    """``K(x, sv_j)`` of chi2 and intersection, one input row at a time (a ``Scan``
    whose body compares the row with every support vector): ``[N, M]``."""
    from onnx import helper

    m, d = sv.shape
    gamma = float(model._gamma)
    dtype = g.np_dtype
    row, out = "row", "kernel_row"
    inits = [
        _tensor("svs", sv.astype(dtype)),
        _tensor("ones", np.ones(d, dtype=dtype)),
    ]
    if model.kernel == "intersection":
        nodes = [
            helper.make_node("Min", [row, "svs"], ["minima"]),
            helper.make_node("MatMul", ["minima", "ones"], [out]),
        ]
    else:
        # (x - s)^2 / (x + s), 0 where x + s = 0 (then x = s = 0 on non-negative
        # data, so dividing by the smallest normal number instead gives the 0).
        inits += [
            _tensor("tiny", np.array(np.finfo(dtype).tiny, dtype=dtype)),
            _tensor("minus_gamma", np.array(-gamma, dtype=dtype)),
        ]
        nodes = [
            helper.make_node("Sub", [row, "svs"], ["diff"]),
            helper.make_node("Mul", ["diff", "diff"], ["diff_sq"]),
            helper.make_node("Add", [row, "svs"], ["total"]),
            helper.make_node("Max", ["total", "tiny"], ["denominator"]),
            helper.make_node("Div", ["diff_sq", "denominator"], ["terms"]),
            helper.make_node("MatMul", ["terms", "ones"], ["distance"]),
            helper.make_node("Mul", ["distance", "minus_gamma"], ["exponent"]),
            helper.make_node("Exp", ["exponent"], [out]),
        ]
    body = helper.make_graph(
        nodes,
        g.name("additive_kernel_body"),
        [helper.make_tensor_value_info(row, g.proto, [d])],
        [helper.make_tensor_value_info(out, g.proto, [m])],
        initializer=inits,
    )
    return g.op("Scan", [x], "kernel", body=body, num_scan_inputs=1)


def _tensor(name: str, array: np.ndarray):
    from onnx import numpy_helper

    return numpy_helper.from_array(np.ascontiguousarray(array), name)


def _expansion(g: _Graph, x: str, model: Any, svm_ops: bool) -> str:
    """The decision values of the model's binary problems: ``[N, n_problems]``."""
    sv = _dense(model.support_vectors_)
    coef = np.asarray(model.dual_coef_, dtype=np.float64)
    intercept = np.asarray(model.intercept_, dtype=np.float64).ravel()
    n_problems = intercept.size
    use_svm = svm_ops and KERNELS[model.kernel] is not None and g.np_dtype == np.float32
    if use_svm and n_problems == 1:
        return _svm_regressor(g, x, sv, coef[0], float(intercept[0]), model)
    if sv.shape[0] == 0:  # no support vector: the intercepts alone
        zeros = g.op("MatMul", [x, g.const("zero_weights", np.zeros((sv.shape[1], 1)))], "zeros")
        return g.op("Add", [zeros, g.const("intercept", intercept[np.newaxis, :])], "scores")
    if model.kernel in ("chi2", "intersection"):
        kernel = _additive_kernel(g, x, sv, model)
    else:
        kernel = _dot_kernel(g, x, sv, model)
    weighted = g.op("MatMul", [kernel, g.const("dual_coef_t", coef.T)], "weighted")
    return g.op("Add", [weighted, g.const("intercept", intercept[np.newaxis, :])], "scores")


# ---------------------------------------------------------------------------
# The classifier's outputs.


def _pairs(n_classes: int) -> list[tuple[int, int]]:
    return [(i, j) for i in range(n_classes) for j in range(i + 1, n_classes)]


def _ovo_scores(g: _Graph, pair_scores: str, n_classes: int) -> str:
    """scikit-learn's transformation of one-vs-one values into a score per class
    (``KernelPegasosClassifier``'s ``_votes``): votes (``f >= 0`` for the pair's
    first class) plus the summed confidences scaled into ``(-1/3, 1/3)``."""
    pairs = _pairs(n_classes)
    first = np.zeros((len(pairs), n_classes))
    second = np.zeros((len(pairs), n_classes))
    for p, (i, j) in enumerate(pairs):
        first[p, i] = 1.0
        second[p, j] = 1.0
    # votes = (pairs where the class comes first) + negatives moved from i to j.
    negative = g.cast(g.op("Less", [pair_scores, g.const("zero", 0.0)], "negative"), g.proto)
    votes = g.op(
        "Add",
        [g.const("first_votes", first.sum(axis=0)[np.newaxis, :]), g.op(
            "MatMul", [negative, g.const("vote_moves", second - first)], "vote_changes"
        )],
        "votes",
    )
    confidence = g.op("MatMul", [pair_scores, g.const("signs", first - second)], "confidence")
    scale = g.op(
        "Mul",
        [g.op("Add", [g.op("Abs", [confidence], "abs_confidence"), g.const("one", 1.0)]),
         g.const("three", 3.0)],
        "scale",
    )
    return g.op("Add", [votes, g.op("Div", [confidence, scale], "tie_breaks")], "class_scores")


def _class_labels(model: Any) -> tuple[np.ndarray, bool]:
    """The classes as an ONNX label tensor's values: ``(int64 array, False)`` or
    ``(str array, True)``; ``ValueError`` for labels that are neither."""
    classes = np.asarray(model.classes_)
    name = type(model).__name__
    if classes.dtype.kind in "biu":
        return classes.astype(np.int64), False
    if classes.dtype.kind == "f":
        if np.all(np.isfinite(classes)) and np.all(classes == np.round(classes)):
            return classes.astype(np.int64), False
        raise ValueError(
            f"{name} has class labels {classes.tolist()} that are not integers: an ONNX "
            "classifier's labels are int64 or strings. Fit it on integer or string labels"
        )
    if all(isinstance(c, str) for c in classes.tolist()):
        return np.array([str(c) for c in classes.tolist()], dtype=object), True
    raise ValueError(
        f"{name}'s class labels must be all integers or all strings for ONNX, got "
        f"{classes.tolist()!r}"
    )


def has_probabilities(model: Any) -> bool:
    """Whether the fitted classifier has ``predict_proba`` (Platt's sigmoids, or the
    modified Huber loss)."""
    return bool(getattr(model, "probability", False)) or model.loss == "modified_huber"


def _binary_probabilities(g: _Graph, f: str, model: Any) -> str:
    if model.probability:
        a, b = float(model.probA_[0]), float(model.probB_[0])
        z = g.op("Add", [g.op("Mul", [f, g.const("prob_a", a)]), g.const("prob_b", b)], "z")
        p0 = g.op("Sigmoid", [z], "p0")  # 1 - sigmoid(-z), without the subtraction
        p1 = g.op("Sigmoid", [g.op("Neg", [z])], "p1")
    else:  # modified Huber: (clip(f, -1, 1) + 1) / 2 for classes_[1]
        half = g.const("half", 0.5)
        clipped = g.op("Max", [g.op("Min", [f, g.const("one", 1.0)]), g.const("minus_one", -1.0)])
        p1 = g.op("Mul", [g.op("Add", [clipped, g.const("one_", 1.0)]), half], "p1")
        p0 = g.op("Mul", [g.op("Sub", [g.const("one__", 1.0), clipped]), half], "p0")
    return g.op("Concat", [p0, p1], "probabilities", axis=1)


def _multi_probabilities(g: _Graph, scores: str, model: Any) -> str:
    n_classes = len(model.classes_)
    if model.probability:
        # Each class's sigmoid 1 / (1 + exp(z)), normalised: softmax of the
        # log-probabilities -softplus(z), which does not underflow.
        a = np.asarray(model.probA_, dtype=np.float64)[np.newaxis, :]
        b = np.asarray(model.probB_, dtype=np.float64)[np.newaxis, :]
        z = g.op("Add", [g.op("Mul", [scores, g.const("prob_a", a)]), g.const("prob_b", b)], "z")
        log_p = g.op("Neg", [g.op("Softplus", [z])], "log_p")
        return g.op("Softmax", [log_p], "probabilities", axis=1)
    clipped = g.op("Max", [g.op("Min", [scores, g.const("one", 1.0)]), g.const("minus_one", -1.0)])
    p = g.op("Mul", [g.op("Add", [clipped, g.const("one_", 1.0)]), g.const("half", 0.5)], "p")
    total = g.op("MatMul", [p, g.const("ones", np.ones((n_classes, 1)))], "total")
    zero = g.op("Equal", [total, g.const("zero", 0.0)], "all_zero")
    uniform = g.const("uniform", np.full((1, n_classes), 1.0 / n_classes))
    return g.op("Where", [zero, uniform, g.op("Div", [p, total])], "probabilities")


def classifier_score_width(model: Any, raw_scores: bool) -> int:
    """The number of columns of the classifier's second output."""
    n_classes = len(model.classes_)
    if has_probabilities(model) and not raw_scores:
        return n_classes
    if n_classes == 2:
        return 1
    if model.multi_class == "ovo" and model.decision_function_shape == "ovo":
        return n_classes * (n_classes - 1) // 2
    return n_classes


def _input(g: _Graph, operator: Any) -> str:
    """The input's name, cast to the graph's dtype when it is not a float tensor;
    ``ValueError`` when its width is not the model's."""
    from onnx import TensorProto
    from skl2onnx.common.data_types import guess_proto_type

    model = operator.raw_operator
    variable = operator.inputs[0]
    shape = getattr(variable.type, "shape", None)
    if shape is not None and len(shape) == 2 and isinstance(shape[1], numbers.Integral):
        if shape[1] != model.n_features_in_:
            raise ValueError(
                f"{type(model).__name__} was fitted on {model.n_features_in_} features, "
                f"but the ONNX input {variable.onnx_name!r} has {shape[1]} columns"
            )
    name = variable.full_name
    if guess_proto_type(variable.type) not in (TensorProto.FLOAT, TensorProto.DOUBLE):
        name = g.cast(name, g.proto, "cast_input")
    return name


def _graph(scope: Any, operator: Any, container: Any) -> _Graph:
    from onnx import TensorProto
    from skl2onnx.common.data_types import guess_proto_type

    proto = guess_proto_type(operator.inputs[0].type)
    return _Graph(scope, container, proto if proto == TensorProto.DOUBLE else TensorProto.FLOAT)


def convert_kernel_classifier(scope: Any, operator: Any, container: Any) -> None:
    """skl2onnx converter of :class:`~pegasos_rs.KernelPegasosClassifier`: outputs
    ``label`` and the probabilities (models with ``predict_proba``, unless option
    ``raw_scores``) or the decision scores in ``decision_function``'s layout (a
    column for two classes)."""
    from onnx import TensorProto

    model = operator.raw_operator
    check_exportable(model)
    options = container.get_options(model, dict(raw_scores=False, svm_ops=True))
    labels, strings = _class_labels(model)
    g = _graph(scope, operator, container)
    x = _input(g, operator)
    scores = _expansion(g, x, model, bool(options["svm_ops"]))
    n_classes = labels.size
    pairs = model.multi_class == "ovo" and n_classes > 2
    class_scores = _ovo_scores(g, scores, n_classes) if pairs else scores

    if n_classes == 2:
        positive = g.op("Greater", [class_scores, g.const("zero", 0.0)], "positive")
        index = g.op(
            "Reshape",
            [g.cast(positive, TensorProto.INT64), g.const("flat", [-1], np.int64)],
            "label_index",
        )
    else:
        index = g.op("ArgMax", [class_scores], "label_index", axis=1, keepdims=0)
    classes = g.const("classes", labels, object if strings else np.int64)
    g.node("Gather", [classes, index], [operator.outputs[0].full_name], axis=0)

    if has_probabilities(model) and not options["raw_scores"]:
        if n_classes == 2:
            second = _binary_probabilities(g, class_scores, model)
        else:
            second = _multi_probabilities(g, class_scores, model)
    elif pairs and model.decision_function_shape == "ovo":
        second = scores
    else:
        second = class_scores
    g.node("Identity", [second], [operator.outputs[1].full_name])


def convert_kernel_regressor(scope: Any, operator: Any, container: Any) -> None:
    """skl2onnx converter of :class:`~pegasos_rs.KernelPegasosRegressor`: one output,
    the predictions ``[N, 1]``."""
    model = operator.raw_operator
    check_exportable(model)
    options = container.get_options(model, dict(svm_ops=True))
    g = _graph(scope, operator, container)
    x = _input(g, operator)
    scores = _expansion(g, x, model, bool(options["svm_ops"]))
    g.node("Identity", [scores], [operator.outputs[0].full_name])


def kernel_classifier_shape_calculator(operator: Any) -> None:
    """Output types of the classifier: labels ``[N]`` (int64 or strings) and a float
    tensor ``[N, width]`` in the input's precision."""
    from skl2onnx.common.data_types import (
        DoubleTensorType,
        FloatTensorType,
        Int64TensorType,
        StringTensorType,
    )

    model = operator.raw_operator
    check_exportable(model)
    _, strings = _class_labels(model)
    n = operator.inputs[0].get_first_dimension()
    options = operator.scope_inst.get_options(model, dict(raw_scores=False), fail=False) or {}
    width = classifier_score_width(model, bool(options.get("raw_scores", False)))
    float_type = (
        DoubleTensorType if isinstance(operator.inputs[0].type, DoubleTensorType) else FloatTensorType
    )
    operator.outputs[0].type = StringTensorType([n]) if strings else Int64TensorType([n])
    operator.outputs[1].type = float_type([n, width])


def kernel_regressor_shape_calculator(operator: Any) -> None:
    """Output type of the regressor: ``[N, 1]`` in the input's precision."""
    from skl2onnx.common.data_types import DoubleTensorType, FloatTensorType

    check_exportable(operator.raw_operator)
    n = operator.inputs[0].get_first_dimension()
    float_type = (
        DoubleTensorType if isinstance(operator.inputs[0].type, DoubleTensorType) else FloatTensorType
    )
    operator.outputs[0].type = float_type([n, 1])


def parse_kernel_classifier(scope: Any, model: Any, inputs: list, custom_parsers: Any = None):
    """skl2onnx parser of the classifier: ``label`` and ``probabilities`` (the name
    skl2onnx's ``SVC`` gives its second output, scores or probabilities), then
    ``ZipMap`` (option ``zipmap``, default True) only when they are probabilities:
    a model without ``predict_proba`` keeps its scores as a tensor, as skl2onnx does
    for ``SVC(probability=False)``."""
    from skl2onnx._parse import _apply_zipmap, _get_sklearn_operator_name
    from skl2onnx.common.data_types import (
        Int64TensorType,
        StringTensorType,
        guess_tensor_type,
    )

    check_exportable(model)
    _, strings = _class_labels(model)
    operator = scope.declare_local_operator(_get_sklearn_operator_name(type(model)), model)
    operator.inputs = inputs
    label_type = StringTensorType() if strings else Int64TensorType()
    label = scope.declare_local_variable("label", label_type)
    second = scope.declare_local_variable("probabilities", guess_tensor_type(inputs[0].type))
    operator.outputs.append(label)
    operator.outputs.append(second)
    options = scope.get_options(model, dict(zipmap=True, raw_scores=False))
    if has_probabilities(model) and not options["raw_scores"] and options["zipmap"]:
        return _apply_zipmap(options["zipmap"], scope, model, inputs[0].type, operator.outputs)
    return operator.outputs
