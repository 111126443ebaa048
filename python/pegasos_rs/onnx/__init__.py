"""ONNX export of pegasos-rs models (the ``onnx`` extra: skl2onnx, onnx, onnxruntime).

:func:`to_onnx` converts a fitted model, or a scikit-learn pipeline mixing
pegasos-rs and scikit-learn steps, into an ONNX graph that onnxruntime (or any
ONNX runtime) evaluates without Python or pegasos-rs::

    onx = pegasos_rs.to_onnx(model, X[:1], dtype=np.float32)
    session = onnxruntime.InferenceSession(onx.SerializeToString())
    label, scores = session.run(None, {"X": X.astype(np.float32)})

Importing this module registers a converter for every covered class with skl2onnx
(:func:`register`, idempotent), so ``skl2onnx.to_onnx`` converts pipelines that
hold them too; a cross-validated search is converted as its refit model, with the
options given for the search or for the refit model. Without the ``onnx`` extra
the module still imports, and :func:`to_onnx` raises :class:`ImportError` saying
what to install. A model that cannot be exported is refused by name, with the
reason: :class:`TypeError` for a class that has no converter, :class:`ValueError`
for a model whose fitted state or parameters the graph cannot express (an unfitted
model, a precomputed kernel, a search fitted with ``refit=False``...).

Conventions (those of skl2onnx's own converters, so that users get what they know):

* one input ``X``, a ``FloatTensorType([None, n_features])`` (float32 inference)
  or a ``DoubleTensorType`` (float64), the type of the sample rows ``X`` as
  ``skl2onnx.to_onnx`` guesses it (float64 rows: float64) unless ``dtype`` says
  otherwise; float32 without a float sample;
* classifiers: ``label`` (int64 for integer classes, string for string classes) and
  ``probabilities``, shape ``(N, n_classes)``: the class probabilities when the model
  has ``predict_proba``, else its decision scores, as skl2onnx's
  ``SGDClassifier``: ``[-f, f]`` for two classes (column 1 is ``decision_function``)
  and the per-class scores for more (a one-vs-one kernel classifier with
  ``decision_function_shape="ovo"``: its pairs' values, never zipped). The option
  ``raw_scores=True`` gives the decision scores even when the model has
  probabilities; ``zipmap`` is skl2onnx's (True by default: a list of dicts, of
  float32 values also in a float64 graph, as ``ai.onnx.ml``'s ``ZipMap`` takes no
  other type; ``False``: a tensor);
* regressors: ``variable``, shape ``(N, 1)``;
* transformers: ``variable``, shape ``(N, n_output_features)``.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["register", "to_onnx"]


#: The options a classifier's converter accepts (as skl2onnx's classifiers).
CLASSIFIER_OPTIONS: dict[str, list[Any]] = {
    "zipmap": [True, False, "columns"],
    "nocl": [False],
    "output_class_labels": [False],
    "raw_scores": [True, False],
}


class Converter(NamedTuple):
    """One row of :data:`CONVERTERS`: the class ``pegasos_rs.<module>.<name>`` is
    converted by ``pegasos_rs.onnx.<impl>``'s functions ``shape`` (skl2onnx's shape
    calculator) and ``convert`` (the converter), after ``check`` (raises
    ``TypeError``/``ValueError`` naming the class and the reason when the model cannot
    be exported); ``options`` are the converter's skl2onnx options (a classifier's
    :data:`CLASSIFIER_OPTIONS` also makes skl2onnx's parser add its ``label`` and
    ``probabilities`` outputs and the ZipMap); ``parser``, when given, names the
    function of ``impl`` that replaces skl2onnx's parser (skl2onnx's signature
    ``parser(scope, model, inputs, custom_parsers=None)``)."""

    module: str
    name: str
    impl: str
    check: str
    shape: str
    convert: str
    options: dict[str, list[Any]] | None
    parser: str | None = None


def _search(module: str, name: str, tuned: Converter) -> Converter:
    """The row of the search ``pegasos_rs.<module>.<name>`` over the estimator of
    row ``tuned``: converted as its refit model (``pegasos_rs.onnx._search``), with
    the options of that model's converter."""
    return Converter(
        module,
        name,
        "_search",
        "check_search",
        "search_shape",
        "convert_search",
        tuned.options,
        "parse_search",
    )


_LINEAR_CLASSIFIER = Converter(
    "linear",
    "PegasosClassifier",
    "_linear",
    "check_classifier",
    "classifier_shape",
    "convert_classifier",
    CLASSIFIER_OPTIONS,
)
_LINEAR_REGRESSOR = Converter(
    "linear_regressor",
    "PegasosRegressor",
    "_linear",
    "check_regressor",
    "regressor_shape",
    "convert_regressor",
    None,
)
_KERNEL_CLASSIFIER = Converter(
    "kernel",
    "KernelPegasosClassifier",
    "_kernel",
    "check_classifier",
    "kernel_classifier_shape",
    "convert_classifier",
    {**CLASSIFIER_OPTIONS, "svm_ops": [True, False]},
    "parse_classifier",
)
_KERNEL_REGRESSOR = Converter(
    "kernel_regressor",
    "KernelPegasosRegressor",
    "_kernel",
    "check_regressor",
    "regressor_shape",
    "convert_regressor",
    {"svm_ops": [True, False]},
)

#: Every class with a converter: one row per class. A pegasos-rs estimator missing
#: here is refused by :func:`to_onnx` (and, inside a pipeline, by the row of
#: :data:`REFUSED` when it has one).
CONVERTERS: tuple[Converter, ...] = (
    _LINEAR_CLASSIFIER,
    _LINEAR_REGRESSOR,
    Converter(
        "one_class",
        "PegasosOneClassSVM",
        "_linear",
        "check_one_class",
        "one_class_shape",
        "convert_one_class",
        None,
    ),
    _KERNEL_CLASSIFIER,
    _KERNEL_REGRESSOR,
    Converter(
        "kernel_one_class",
        "KernelPegasosOneClassSVM",
        "_kernel",
        "check_one_class",
        "one_class_shape",
        "convert_one_class",
        {"svm_ops": [True, False]},
    ),
    Converter(
        "kernel_approximation",
        "RandomFourierFeatures",
        "_maps",
        "check_fourier",
        "map_shape",
        "convert_fourier",
        None,
    ),
    Converter(
        "kernel_approximation",
        "Nystroem",
        "_maps",
        "check_nystroem",
        "map_shape",
        "convert_nystroem",
        None,
    ),
    Converter(
        "kernel_approximation",
        "AdditiveKernelMap",
        "_maps",
        "check_additive",
        "map_shape",
        "convert_additive",
        None,
    ),
    _search("linear_cv", "PegasosClassifierCV", _LINEAR_CLASSIFIER),
    _search("linear_cv", "PegasosRegressorCV", _LINEAR_REGRESSOR),
    _search("kernel_cv", "KernelPegasosClassifierCV", _KERNEL_CLASSIFIER),
    _search("kernel_cv", "KernelPegasosRegressorCV", _KERNEL_REGRESSOR),
)

#: Public classes without a converter, and why: refused by name, also inside a
#: pipeline converted by ``skl2onnx.to_onnx``.
REFUSED: dict[tuple[str, str], str] = {
    ("ranker", "PegasosRanker"): (
        "a ranker's scores rank the rows of a query: export its linear scores with "
        "a PegasosRegressor of the same coef_ and intercept_, or use predict"
    ),
}

_registered = False


def _alias(name: str) -> str:
    return f"PegasosRs{name}"


def _class(module: str, name: str) -> type:
    return getattr(importlib.import_module(f"pegasos_rs.{module}"), name)


def _function(impl: str, name: str) -> Callable[..., Any]:
    return getattr(importlib.import_module(f"pegasos_rs.onnx.{impl}"), name)


def _checked_shape(
    check: Callable[[Any], None], shape: Callable[[Any], None]
) -> Callable[[Any], None]:
    """skl2onnx's shape calculator of a row, which first checks the model (skl2onnx
    calls it before any converter, so that an unfitted or unexportable model inside
    a pipeline fails with the row's own message)."""

    def calculate(operator: Any) -> None:
        check(operator.raw_operator)
        shape(operator)

    return calculate


def _refusing(name: str, reason: str) -> tuple[Callable[..., None], Callable[..., None]]:
    """The shape calculator and converter of a class that is refused."""

    def refuse() -> None:
        raise TypeError(f"{name} cannot be exported to ONNX: {reason}")

    def shape(operator: Any) -> None:
        refuse()

    def convert(scope: Any, operator: Any, container: Any) -> None:
        refuse()

    return shape, convert


def register() -> None:
    """Register the converters of :data:`CONVERTERS` with skl2onnx (and the refusals
    of :data:`REFUSED`), so that ``skl2onnx.to_onnx`` converts pipelines holding
    pegasos-rs models. Idempotent; run when :mod:`pegasos_rs.onnx` is imported."""
    global _registered
    if _registered:
        return
    try:
        from skl2onnx import update_registered_converter
    except ImportError as e:
        # pegasos-rs is on no package index: ``pip install "pegasos-rs[onnx]"`` would
        # find nothing (as for the [dask] extra).
        raise ImportError(
            f"ONNX export needs skl2onnx, onnx and onnxruntime ({e}), which the [onnx] "
            'extra of pegasos-rs installs: from the clone, python3 -m pip install ".[onnx]"; '
            "from a built wheel, python3 -m pip install "
            '"dist/pegasos_rs-<version>-<tags>.whl[onnx]"'
        ) from e

    for row in CONVERTERS:
        update_registered_converter(
            _class(row.module, row.name),
            _alias(row.name),
            _checked_shape(_function(row.impl, row.check), _function(row.impl, row.shape)),
            _function(row.impl, row.convert),
            options=row.options,
            parser=None if row.parser is None else _function(row.impl, row.parser),
        )
    covered = {(row.module, row.name) for row in CONVERTERS}
    for (module, name), reason in REFUSED.items():
        if (module, name) in covered:
            continue
        shape, convert = _refusing(name, reason)
        update_registered_converter(_class(module, name), _alias(name), shape, convert)
    _registered = True


def check_exportable(model: Any) -> None:
    """Raise ``TypeError``/``ValueError`` naming the class and the reason when
    ``model`` (or a step of a pipeline) cannot be exported. Steps that are not
    pegasos-rs models are left to skl2onnx."""
    from sklearn.pipeline import Pipeline

    if isinstance(model, Pipeline):
        for _, step in model.steps:
            if step is not None and step != "passthrough":
                check_exportable(step)
        return
    cls = type(model)
    if not cls.__module__.startswith("pegasos_rs."):
        return
    for row in CONVERTERS:
        if cls is _class(row.module, row.name):
            _function(row.impl, row.check)(model)
            return
    for (module, name), reason in REFUSED.items():
        if cls is _class(module, name):
            raise TypeError(f"{name} cannot be exported to ONNX: {reason}")
    raise TypeError(f"{cls.__name__} cannot be exported to ONNX: it has no converter")


def in_memory(model: Any) -> Any:
    """``model`` with every ``pegasos_rs.dask`` estimator (steps of a pipeline too)
    replaced by an instance of the in-memory class it extends, holding the same
    parameters and fitted attributes (the graph reads only those); other models are
    returned as they are (a cross-validated search has its own converter, which
    converts its refit model)."""
    from sklearn.pipeline import Pipeline

    if isinstance(model, Pipeline):
        steps = [(name, in_memory(step)) for name, step in model.steps]
        if all(new is old for (_, new), (_, old) in zip(steps, model.steps, strict=True)):
            return model
        return Pipeline(steps)
    if not type(model).__module__.startswith("pegasos_rs.dask"):
        return model
    for row in CONVERTERS:
        base: Any = _class(row.module, row.name)
        if isinstance(model, base):
            local = base.__new__(base)
            local.__dict__.update(model.__dict__)
            return local
    return model


def to_onnx(
    model: Any,
    X: Any = None,
    *,
    n_features: int | None = None,
    dtype: Any = None,
    options: dict[Any, Any] | None = None,
    target_opset: int | dict[str, int] | None = None,
    name: str | None = None,
) -> Any:
    """Convert a fitted pegasos-rs model, or a pipeline holding some, to ONNX.

    Parameters
    ----------
    model : estimator or :class:`~sklearn.pipeline.Pipeline`
        Fitted. Covered: ``PegasosClassifier`` (every loss and ``multi_class``,
        Platt's ``probability=True``), ``PegasosRegressor``, ``PegasosOneClassSVM``
        (outputs ``label``, +1 / -1, and ``scores``, the decision values, as
        skl2onnx gives ``SGDOneClassSVM``'s), ``KernelPegasosClassifier`` and
        ``KernelPegasosRegressor`` (every kernel but ``"precomputed"``; one-vs-one
        scores as ``decision_function_shape`` says), ``KernelPegasosOneClassSVM``
        (``label`` and ``scores``, as ``PegasosOneClassSVM``),
        ``RandomFourierFeatures``, ``Nystroem`` (not ``kernel="precomputed"``),
        ``AdditiveKernelMap``, and pipelines of these with scikit-learn steps that
        skl2onnx converts (``StandardScaler``, ``MinMaxScaler``, ``MaxAbsScaler``...).
        The estimators of :mod:`pegasos_rs.dask` are exported as the in-memory
        models they extend, the cross-validated searches (``PegasosClassifierCV``,
        ``PegasosRegressorCV``, ``KernelPegasosClassifierCV``,
        ``KernelPegasosRegressorCV``) as their refit model (``best_estimator_``:
        options keyed by its ``id`` or by its class).
    X : array-like or sparse matrix, optional
        Rows like those the graph will read: their number of columns is the input's
        width, and their float type its type, as ``skl2onnx.to_onnx`` guesses it
        from a numpy sample (float64 rows give a float64 graph, float32 rows a
        float32 one; sparse rows are fine, the graph's input is a dense tensor).
        Without it, ``n_features`` or the model's ``n_features_in_`` give the width.
    n_features : int, optional
        The width of the input, when ``X`` is not given.
    dtype : numpy dtype, optional
        The input's type, whatever ``X`` holds: ``np.float32`` (``FloatTensorType``)
        or ``np.float64`` (``DoubleTensorType``: the graph computes in float64).
        By default the type of ``X`` when it holds float32 or float64 values (a
        numpy array or sparse matrix), otherwise float32 (no ``X``, integers, lists).
    options : dict, optional
        skl2onnx's converter options, e.g. ``{id(clf): {"zipmap": False}}`` or
        ``{PegasosClassifier: {"zipmap": False, "raw_scores": True}}``. The kernel
        models also take ``svm_ops`` (default True): a single binary problem with a
        linear, rbf, poly or sigmoid kernel runs as ``ai.onnx.ml``'s
        ``SVMRegressor`` on float32 input; ``False`` computes it with ``MatMul`` and
        the kernel's elementwise operators, as every other kernel model (faster for
        rbf in onnxruntime, whose ``SVMRegressor`` evaluates rbf on one thread).
    target_opset : int or dict, optional
        skl2onnx's ``target_opset``.
    name : str, optional
        The graph's name.

    Returns
    -------
    onnx.ModelProto

    Raises
    ------
    TypeError
        For a class without a converter (e.g. ``PegasosRanker``), or a ``dtype``
        other than float32/float64.
    ValueError
        For a model that cannot be exported (unfitted; a precomputed kernel;
        ``probability=True`` without fitted sigmoids; a search fitted with
        ``refit=False``...), or an input width that differs from the model's.
    """
    import numpy as np

    register()
    model = in_memory(model)
    check_exportable(model)
    from skl2onnx import to_onnx as skl_to_onnx
    from skl2onnx.common.data_types import DoubleTensorType, FloatTensorType

    if dtype is None:
        # skl2onnx's to_onnx guesses the input type from a numpy sample's dtype.
        given = getattr(X, "dtype", None)
        dtype = given if given in (np.float32, np.float64) else np.float32
    dtype = np.dtype(dtype)
    if dtype == np.float32:
        tensor: Any = FloatTensorType
    elif dtype == np.float64:
        tensor = DoubleTensorType
    else:
        raise TypeError(f"dtype must be float32 or float64, not {dtype}")
    expected = getattr(model, "n_features_in_", None)
    if X is not None:
        shape = getattr(X, "shape", None)
        if shape is None:
            shape = np.asarray(X).shape
        if len(shape) != 2:
            raise ValueError(f"X must be 2-d rows (n_samples, n_features), not shape {shape}")
        width = int(shape[1])
    elif n_features is not None:
        width = int(n_features)
    elif expected is not None:
        width = int(expected)
    else:
        raise ValueError(
            f"the input width of {type(model).__name__} is unknown: pass X (rows like "
            "those to predict) or n_features"
        )
    if expected is not None and width != int(expected):
        raise ValueError(
            f"X has {width} features, but {type(model).__name__} is expecting "
            f"{int(expected)} features as input"
        )
    return skl_to_onnx(
        model,
        initial_types=[("X", tensor([None, width]))],
        options=options,
        target_opset=target_opset,
        name=name,
    )


try:
    import skl2onnx  # noqa: F401 (only whether the extra is installed)
except ImportError:
    pass  # pegasos_rs.to_onnx stays importable; to_onnx and register() say what to install
else:
    register()
