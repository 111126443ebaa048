"""What the converters share: a small graph builder over skl2onnx's scope and
container, the checks that refuse a model by name, and the outputs and shapes of
classifiers, regressors and transformers.

Layout of the outputs (every converter follows it; see the package docstring):

* classifiers: ``label`` (int64 or string, shape ``(N,)``), the index of the largest
  decision score (as ``predict``: for two classes the scores are ``[-f, f]``, so
  ``f = 0`` gives ``classes_[0]`` as ``predict`` does) mapped to ``classes_``; and
  ``probabilities`` ``(N, n_classes)``: probabilities, or the decision scores
  (:func:`two_columns` for two classes) when the model has none or with
  ``raw_scores=True``;
* regressors and transformers: one output of shape ``(N, 1)`` / ``(N, n_out)``.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from pegasos_rs._fitted import fitted_param

#: The lowest opset the converters emit (ReduceSum, Unsqueeze, Squeeze with their
#: axes as inputs).
MIN_OPSET = 13


def refuse(model: Any, reason: str, error: type[Exception] = ValueError) -> None:
    """Raise ``error`` saying that ``model``'s class cannot be exported, and why."""
    raise error(f"{type(model).__name__} cannot be exported to ONNX: {reason}")


def check_fitted(model: Any, attributes: list[str]) -> None:
    """``NotFittedError`` (a ``ValueError``) naming the class when ``model`` lacks
    one of the fitted ``attributes``."""
    from sklearn.exceptions import NotFittedError

    missing = [a for a in attributes if not hasattr(model, a)]
    if missing:
        raise NotFittedError(
            f"{type(model).__name__} cannot be exported to ONNX: it is not fitted "
            f"(no {missing[0]}); call fit first"
        )


def check_sigmoids(model: Any) -> None:
    """Refuse a classifier with ``probability=True`` whose Platt sigmoids were not
    fitted (``probability`` set after ``fit``): the graph would have no
    probabilities to compute."""
    if fitted_param(model, "probability") and not (
        hasattr(model, "probA_") and hasattr(model, "probB_")
    ):
        refuse(
            model,
            "probability=True, but its sigmoids were not fitted (probability was set "
            "after fit): fit again, or set probability=False to export its scores",
        )


def label_kind(model: Any) -> str:
    """``"int64"`` or ``"string"``: the tensor type of a classifier's ``label``
    output, from its ``classes_`` (integers, booleans and integral floats give int64,
    as skl2onnx does); ``ValueError`` for other classes."""
    classes = np.asarray(model.classes_)
    if classes.dtype.kind in "iub":
        return "int64"
    if classes.dtype.kind == "f":
        if np.all(np.isfinite(classes)) and np.all(classes == np.round(classes)):
            return "int64"
        refuse(
            model,
            f"its classes are floats that are not integers ({classes[:3].tolist()}); "
            "ONNX labels are int64 or strings: fit on integer or string labels",
        )
    if all(isinstance(c, str) for c in classes.tolist()):
        return "string"
    if all(isinstance(c, numbers.Integral) for c in classes.tolist()):
        return "int64"
    refuse(
        model,
        f"its classes {classes[:3].tolist()} are neither all integers nor all "
        "strings (ONNX labels are int64 or strings)",
    )
    raise AssertionError  # unreachable (refuse raised)


class Graph:
    """Nodes and constants added to skl2onnx's container for one operator, in the
    float type of its input (float32, or float64 for a ``DoubleTensorType``)."""

    def __init__(self, scope: Any, operator: Any, container: Any) -> None:
        from onnx import TensorProto
        from skl2onnx.common.data_types import DoubleTensorType

        if container.target_opset is not None and container.target_opset < MIN_OPSET:
            refuse(
                operator.raw_operator,
                f"its converter needs opset {MIN_OPSET} or later, not "
                f"target_opset={container.target_opset}",
            )
        self.scope = scope
        self.container = container
        self.operator = operator
        self.double = isinstance(operator.inputs[0].type, DoubleTensorType)
        self.dtype = np.dtype(np.float64 if self.double else np.float32)
        self.proto = TensorProto.DOUBLE if self.double else TensorProto.FLOAT
        self.input = operator.inputs[0].full_name

    def name(self, hint: str) -> str:
        return self.scope.get_unique_variable_name(hint)

    def const(self, value: Any, hint: str = "c", dtype: Any = None) -> str:
        """An initializer holding ``value`` (in the graph's float type unless
        ``dtype``: ``np.int64`` for indices and shapes, ``str`` for strings)."""
        from onnx import TensorProto

        name = self.name(hint)
        if dtype is str:
            array = np.asarray(value, dtype=object)
            content: Any = [str(v).encode("utf-8") for v in array.ravel()]
            self.container.add_initializer(name, TensorProto.STRING, list(array.shape), content)
            return name
        array = np.asarray(value, dtype=self.dtype if dtype is None else dtype)
        proto = {
            np.dtype(np.int64): TensorProto.INT64,
            np.dtype(np.float32): TensorProto.FLOAT,
            np.dtype(np.float64): TensorProto.DOUBLE,
        }[array.dtype]
        self.container.add_initializer(name, proto, list(array.shape), array.ravel())
        return name

    def op(self, op_type: str, inputs: list[str], output: str | None = None, **attrs: Any) -> str:
        """Add a node of the default domain; returns its (single) output's name."""
        out = output if output is not None else self.name(op_type.lower())
        self.container.add_node(
            op_type,
            inputs,
            [out],
            name=self.scope.get_unique_operator_name(op_type),
            **attrs,
        )
        return out

    # Shortcuts for the operators the converters use most.
    def matmul(self, a: str, b: str) -> str:
        return self.op("MatMul", [a, b])

    def add(self, a: str, b: str) -> str:
        return self.op("Add", [a, b])

    def sub(self, a: str, b: str) -> str:
        return self.op("Sub", [a, b])

    def mul(self, a: str, b: str) -> str:
        return self.op("Mul", [a, b])

    def div(self, a: str, b: str) -> str:
        return self.op("Div", [a, b])

    def neg(self, a: str) -> str:
        return self.op("Neg", [a])

    def concat(self, parts: list[str], axis: int) -> str:
        return self.op("Concat", parts, axis=axis)

    def reduce_sum(self, a: str, axis: int, keepdims: int = 1) -> str:
        return self.op("ReduceSum", [a, self.const([axis], "axes", np.int64)], keepdims=keepdims)

    def unsqueeze(self, a: str, axis: int) -> str:
        return self.op("Unsqueeze", [a, self.const([axis], "axes", np.int64)])

    def reshape(self, a: str, shape: list[int]) -> str:
        return self.op("Reshape", [a, self.const(shape, "shape", np.int64)])

    def affine(self, x: str, matrix: Any, offset: Any = None) -> str:
        """``x @ matrix (+ offset)``, the parameters rounded to the graph's type."""
        out = self.matmul(x, self.const(matrix, "coef"))
        if offset is None:
            return out
        return self.add(out, self.const(offset, "intercept"))

    def cos(self, a: str) -> str:
        """``cos(a)``; in a float64 graph ``sin(a + pi/2)``: onnxruntime's CPU
        kernels of ``Cos`` are float32 only before its releases of mid-2026 (``Sin``
        has a float64 kernel), and the shift costs float64 rounding only."""
        if not self.double:
            return self.op("Cos", [a])
        return self.op("Sin", [self.add(a, self.const(np.pi / 2, "half_pi"))])

    def log_sigmoid(self, z: str) -> str:
        """``log(1 / (1 + exp(-z)))`` without overflow: ``min(z, 0) - log(1 +
        exp(-|z|))``."""
        zero = self.const(0.0, "zero")
        one = self.const(1.0, "one")
        soft = self.op("Log", [self.add(one, self.op("Exp", [self.neg(self.op("Abs", [z]))]))])
        return self.sub(self.op("Min", [z, zero]), soft)


def probabilities(g: Graph, model: Any, f: str, scores: str, binary: bool) -> str | None:
    """The probabilities graph of a classifier (linear or kernel) from its decision
    values ``f`` and scores ``scores``, or None when it has no ``predict_proba``:
    Platt's sigmoids, ``log_loss``'s and ``modified_huber``'s own."""
    if fitted_param(model, "probability"):
        a = np.asarray(model.probA_, dtype=np.float64)
        b = np.asarray(model.probB_, dtype=np.float64)
        z = g.add(
            g.mul(f, g.const(a.reshape(1, -1), "prob_a")), g.const(b.reshape(1, -1), "prob_b")
        )
        if binary:
            return g.op("Sigmoid", [g.concat([z, g.neg(z)], axis=1)])
        return g.op("Softmax", [g.log_sigmoid(g.neg(z))], axis=1)
    if fitted_param(model, "loss") == "log_loss":
        if binary:
            return g.op("Sigmoid", [scores])
        return g.op("Softmax", [g.log_sigmoid(scores)], axis=1)
    if fitted_param(model, "loss") == "modified_huber":
        clipped = g.op("Clip", [scores, g.const(-1.0, "low"), g.const(1.0, "high")])
        p = g.div(g.add(clipped, g.const(1.0, "one")), g.const(2.0, "two"))
        if binary:
            return p
        total = g.reduce_sum(p, axis=1)
        zero = g.op("Equal", [total, g.const(0.0, "zero")])
        k = len(model.classes_)
        uniform = g.const(np.full((1, k), 1.0 / k), "uniform")
        return g.op("Where", [zero, uniform, g.div(p, total)])
    return None


def two_columns(g: Graph, f: str) -> str:
    """The two-class scores ``[-f, f]`` (N, 2) of decision values ``f`` (N, 1)."""
    return g.concat([g.neg(f), f], axis=1)


def classifier_outputs(g: Graph, scores: str, second: str, classes: Any, kind: str) -> None:
    """Write a classifier's two outputs: ``label``, ``classes[argmax(scores)]``, and
    ``second`` (probabilities or scores) as ``probabilities``, rounded to float32
    when :func:`classifier_shape` declared it so (for a ``ZipMap``)."""
    from onnx import TensorProto
    from skl2onnx.common.data_types import DoubleTensorType

    outputs = g.operator.outputs
    index = g.op("ArgMax", [scores], axis=1, keepdims=0)
    values = np.asarray(classes)
    if kind == "string":
        table = g.const(values, "classes", str)
    else:
        table = g.const(values.astype(np.int64), "classes", np.int64)
    g.op("Gather", [table, index], outputs[0].full_name, axis=0)
    if g.double and not isinstance(outputs[1].type, DoubleTensorType):
        g.op("Cast", [second], outputs[1].full_name, to=TensorProto.FLOAT)
    else:
        g.op("Identity", [second], outputs[1].full_name)


def classifier_shape(operator: Any, zipped: bool | None = None) -> None:
    """skl2onnx's shape calculator of a classifier: ``label`` ``(N,)`` (int64 or
    string), ``probabilities`` ``(N, n_classes)`` in the input's float type, but
    float32 when ``ai.onnx.ml``'s ``ZipMap`` reads it (option ``zipmap=True``, the
    default; ``zipped`` says so when given): ZipMap takes float32 only, so a
    float64 graph's probabilities are rounded for it (skl2onnx's own classifiers
    make an invalid graph there)."""
    from skl2onnx.common.data_types import (
        DoubleTensorType,
        FloatTensorType,
        Int64TensorType,
        StringTensorType,
    )

    model = operator.raw_operator
    n = operator.inputs[0].get_first_dimension()
    label = StringTensorType if label_kind(model) == "string" else Int64TensorType
    operator.outputs[0].type = label(shape=[n])
    if zipped is None:
        options = operator.scope_inst.get_options(model, dict(zipmap=True), fail=False) or {}
        zipped = options.get("zipmap", True) is True
    double = isinstance(operator.inputs[0].type, DoubleTensorType) and not zipped
    scores = DoubleTensorType if double else FloatTensorType
    operator.outputs[1].type = scores(shape=[n, len(model.classes_)])


def output_shape(operator: Any, width: int) -> None:
    """The one output ``(N, width)`` of a regressor or transformer, in the input's
    float type."""
    from skl2onnx.common.data_types import DoubleTensorType, FloatTensorType

    n = operator.inputs[0].get_first_dimension()
    double = isinstance(operator.inputs[0].type, DoubleTensorType)
    operator.outputs[0].type = (DoubleTensorType if double else FloatTensorType)(shape=[n, width])


def one_class_shape(operator: Any) -> None:
    """skl2onnx's outputs of an outlier detector: ``label`` and ``scores``, both
    (N,), as skl2onnx gives ``SGDOneClassSVM``'s and ``OneClassSVM``'s."""
    from skl2onnx.common.data_types import Int64TensorType

    n = operator.inputs[0].get_first_dimension()
    operator.outputs[0].type = Int64TensorType([n])
    operator.outputs[1].type.shape = [n]


def one_class_outputs(g: Graph, f: str) -> None:
    """A one-class SVM's outputs from its decision values ``f`` ``(N, 1)``:
    ``scores`` (N,) and ``label``, ``predict``'s 1 where the score is at least 0,
    else -1."""
    outputs = g.operator.outputs
    scores = g.op("Reshape", [f, g.const(np.array([-1]), "flat", np.int64)])
    outlier = g.op("Less", [scores, g.const(np.zeros(1), "zero")])
    g.op(
        "Where",
        [
            outlier,
            g.const(np.array([-1]), "minus", np.int64),
            g.const(np.array([1]), "plus", np.int64),
        ],
        outputs[0].full_name,
    )
    g.op("Identity", [scores], outputs[1].full_name)


def check_width(operator: Any, expected: int) -> None:
    """``ValueError`` when the input's width is known and differs from the model's."""
    model = operator.raw_operator
    shape = operator.inputs[0].type.shape
    width = shape[1] if len(shape) == 2 else None
    if isinstance(width, int) and width != expected:
        raise ValueError(
            f"X has {width} features, but {type(model).__name__} is expecting "
            f"{expected} features as input"
        )
