"""Converters of the explicit feature maps: :class:`~pegasos_rs.RandomFourierFeatures`,
:class:`~pegasos_rs.Nystroem` and :class:`~pegasos_rs.AdditiveKernelMap`.

Each writes the map's formula (``pegasos_rs.kernel_approximation`` and the Rust
``maps`` modules) with ONNX operators, its parameters rounded to the input's float
type:

* Fourier features: ``P = X W + b``; ``"offset"``: ``s cos(P)``; ``"sincos"``: the
  columns ``s cos(P_c), s sin(P_c)`` interleaved (an odd count's last frequency
  ``s cos(P_c)`` alone), ``s = sqrt(2 / n_components)``;
* Nyström: the kernel between ``X`` and the landmarks ``components_``, times
  ``normalization_.T``. rbf through ``||x||^2 + ||c||^2 - 2 x.c`` (clipped at 0) as
  the Rust kernel; linear, poly and sigmoid through ``X C^T``; chi2 and intersection
  elementwise on the ``(N, n_components, n_features)`` broadcast, which holds that
  many values per batch;
* additive map: per input value ``x``, ``sqrt(x) c_0`` then ``sqrt(x) c_k cos(k L
  ln x)``, ``sqrt(x) c_k sin(k L ln x)`` for ``k = 1..order`` (``c_k`` from the
  kernel's spectrum), ``x = 0`` giving zeros (``ln`` of ``max(x, tiny)``).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import scipy.sparse as sp

from pegasos_rs._fitted import fitted_param
from pegasos_rs.onnx._common import Graph, check_fitted, check_width, output_shape, refuse


def _width(model: Any) -> int:
    """The number of output features of a fitted map."""
    return int(model._n_features_out)


def map_shape(operator: Any) -> None:
    output_shape(operator, _width(operator.raw_operator))


def _finish(g: Graph, out: str) -> None:
    g.op("Identity", [out], g.operator.outputs[0].full_name)


# ---------------------------------------------------------------- Fourier features


def check_fourier(model: Any) -> None:
    check_fitted(model, ["random_weights_", "random_offset_", "_n_features_out"])


def convert_fourier(scope: Any, operator: Any, container: Any) -> None:
    """skl2onnx converter of :class:`~pegasos_rs.RandomFourierFeatures`."""
    model = operator.raw_operator
    g = Graph(scope, operator, container)
    W = np.asarray(model.random_weights_, dtype=np.float64)
    check_width(operator, W.shape[0])
    b = np.asarray(model.random_offset_, dtype=np.float64).reshape(1, -1)
    n_out = _width(model)
    scale = g.const(math.sqrt(2.0 / n_out), "scale")
    if model._form == "offset":
        _finish(g, g.mul(g.cos(g.affine(g.input, W, b)), scale))
        return
    n_freq = W.shape[1]
    pairs = n_out // 2
    P = g.affine(g.input, W[:, :pairs], b[:, :pairs])
    # [cos, sin] per frequency: stacked on a new last axis, then flattened per row.
    stacked = g.concat([g.unsqueeze(g.cos(P), 2), g.unsqueeze(g.op("Sin", [P]), 2)], axis=2)
    out = g.reshape(stacked, [0, 2 * pairs])
    if n_out % 2 == 1:
        last = g.cos(g.affine(g.input, W[:, n_freq - 1 :], b[:, n_freq - 1 :]))
        out = g.concat([out, last], axis=1)
    _finish(g, g.mul(out, scale))


# ------------------------------------------------------------------------ Nyström


def check_nystroem(model: Any) -> None:
    if getattr(model, "kernel", None) == "precomputed":
        refuse(
            model,
            'kernel="precomputed": its transform reads the kernel between new rows and '
            "the training rows, which the graph cannot compute from the rows alone. Fit it "
            "with the kernel by name (rbf, linear, poly, sigmoid, chi2, intersection)",
        )
    check_fitted(model, ["components_", "normalization_", "gamma_", "_n_features_out"])


def _landmarks(model: Any) -> np.ndarray:
    C = model.components_
    return np.asarray(C.toarray() if sp.issparse(C) else C, dtype=np.float64)


def _kernel(g: Graph, model: Any, C: np.ndarray) -> str:
    """The kernel matrix ``K(X, C)`` (N, n_components)."""
    x = g.input
    kernel = fitted_param(model, "kernel")
    gamma = float(model.gamma_)
    degree = 3 if fitted_param(model, "degree") is None else int(fitted_param(model, "degree"))
    coef0 = 1.0 if fitted_param(model, "coef0") is None else float(fitted_param(model, "coef0"))
    if kernel in ("linear", "poly", "sigmoid"):
        dots = g.matmul(x, g.const(C.T, "landmarks_t"))
        if kernel == "linear":
            return dots
        inner = g.add(g.mul(dots, g.const(gamma, "gamma")), g.const(coef0, "coef0"))
        if kernel == "sigmoid":
            return g.op("Tanh", [inner])
        return g.op("Pow", [inner, g.const(float(degree), "degree")])
    if kernel == "rbf":
        dots = g.matmul(x, g.const(-2.0 * C.T, "landmarks_t"))
        x_sq = g.reduce_sum(g.mul(x, x), axis=1)
        c_sq = g.const((C * C).sum(axis=1).reshape(1, -1), "landmark_norms")
        dist = g.op("Max", [g.add(g.add(dots, x_sq), c_sq), g.const(0.0, "zero")])
        return g.op("Exp", [g.mul(dist, g.const(-gamma, "minus_gamma"))])
    # chi2, intersection: elementwise over (N, n_components, n_features).
    xs = g.unsqueeze(x, 1)
    cs = g.const(C[np.newaxis, :, :], "landmarks")
    if kernel == "intersection":
        return g.reduce_sum(g.op("Min", [xs, cs]), axis=2, keepdims=0)
    if kernel != "chi2":
        refuse(model, f"kernel={kernel!r} has no converter")
    diff = g.sub(xs, cs)
    total = g.add(xs, cs)
    zero = g.const(0.0, "zero")
    positive = g.op("Greater", [total, zero])
    # (x - c)^2 / (x + c) where x + c > 0 (both zero: no term); the divisor of the
    # other entries is made 1 so that no NaN is computed.
    safe = g.op("Where", [positive, total, g.const(1.0, "one")])
    terms = g.op("Where", [positive, g.div(g.mul(diff, diff), safe), zero])
    distance = g.reduce_sum(terms, axis=2, keepdims=0)
    return g.op("Exp", [g.mul(distance, g.const(-gamma, "minus_gamma"))])


def convert_nystroem(scope: Any, operator: Any, container: Any) -> None:
    """skl2onnx converter of :class:`~pegasos_rs.Nystroem`."""
    model = operator.raw_operator
    g = Graph(scope, operator, container)
    C = _landmarks(model)
    check_width(operator, C.shape[1])
    K = _kernel(g, model, C)
    normalization = np.asarray(model.normalization_, dtype=np.float64)
    _finish(g, g.matmul(K, g.const(normalization.T, "normalization_t")))


# ------------------------------------------------------------------ additive map


def _spectrum(kernel: str, omega: float) -> float:
    """The kernel's spectrum at ``omega`` (the Rust ``AdditiveKernel::spectrum``)."""
    pi = math.pi

    def sech(t: float) -> float:
        return 2.0 / (math.exp(t) + math.exp(-t))

    if kernel == "chi2":
        return sech(pi * omega)
    if kernel == "intersection":
        return 2.0 / (pi * (1.0 + 4.0 * omega * omega))
    return 2.0 * sech(pi * omega) / (math.log(2.0) * 2.0 * (1.0 + 4.0 * omega * omega))


def check_additive(model: Any) -> None:
    check_fitted(model, ["sample_interval_", "period_", "_n_features_out"])


def convert_additive(scope: Any, operator: Any, container: Any) -> None:
    """skl2onnx converter of :class:`~pegasos_rs.AdditiveKernelMap`."""
    model = operator.raw_operator
    g = Graph(scope, operator, container)
    check_width(operator, int(model.n_features_in_))
    order = int(fitted_param(model, "order"))
    step = float(model.sample_interval_)
    coefs = [
        math.sqrt(
            (1.0 if j == 0 else 2.0) * step * _spectrum(fitted_param(model, "kernel"), j * step)
        )
        for j in range(order + 1)
    ]
    x = g.input
    root = g.unsqueeze(g.op("Sqrt", [x]), 2)  # (N, d, 1)
    if order == 0:
        _finish(g, g.reshape(g.mul(root, g.const(coefs[0], "c0")), [0, -1]))
        return
    tiny = g.const(np.finfo(g.dtype).tiny, "tiny")
    log_x = g.unsqueeze(g.op("Log", [g.op("Max", [x, tiny])]), 2)  # (N, d, 1)
    k = np.arange(1, order + 1, dtype=np.float64) * step
    angles = g.mul(log_x, g.const(k.reshape(1, 1, -1), "frequencies"))  # (N, d, order)
    # cos_k, sin_k interleaved: (N, d, order, 2) flattened to (N, d, 2 order).
    waves = g.concat([g.unsqueeze(g.cos(angles), 3), g.unsqueeze(g.op("Sin", [angles]), 3)], axis=3)
    waves = g.reshape(waves, [0, 0, 2 * order])
    one = g.const(np.ones((1, 1, 1)), "one")
    per_value = g.concat([one_like(g, root, one), waves], axis=2)  # (N, d, 2 order + 1)
    weights = np.repeat(coefs, [1] + [2] * order).reshape(1, 1, -1)
    out = g.mul(g.mul(per_value, root), g.const(weights, "weights"))
    _finish(g, g.reshape(out, [0, -1]))


def one_like(g: Graph, root: str, one: str) -> str:
    """A column of ones shaped as ``root`` (N, d, 1)."""
    return g.op("Expand", [one, g.op("Shape", [root])])


__all__ = [
    "check_additive",
    "check_fourier",
    "check_nystroem",
    "convert_additive",
    "convert_fourier",
    "convert_nystroem",
    "map_shape",
]
