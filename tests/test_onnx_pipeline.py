"""Pipelines of pegasos-rs maps and models with scikit-learn's scalers, exported by
``pegasos_rs.to_onnx`` and by ``skl2onnx.to_onnx`` (the converters registered when
``pegasos_rs.onnx`` is imported); the registration itself; the cross-validated
searches inside pipelines given to ``skl2onnx.to_onnx``."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
import scipy.sparse as sp

pytest.importorskip("onnx")
pytest.importorskip("skl2onnx")
pytest.importorskip("onnxruntime")

import pegasos_rs
from conftest import make_problem, require_data
from onnx_checks import assert_values, check_classifier, run
from pegasos_rs import (
    AdditiveKernelMap,
    KernelPegasosClassifierCV,
    KernelPegasosRegressorCV,
    Nystroem,
    PegasosClassifier,
    PegasosClassifierCV,
    PegasosRanker,
    PegasosRegressor,
    PegasosRegressorCV,
    RandomFourierFeatures,
)
from sklearn.exceptions import NotFittedError
from sklearn.metrics import r2_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import MaxAbsScaler, MinMaxScaler, StandardScaler

NO_ZIPMAP = {"zipmap": False}
SCALERS = {"standard": StandardScaler, "minmax": MinMaxScaler, "maxabs": MaxAbsScaler}


def _maps():
    return {
        "fourier": RandomFourierFeatures(gamma=0.3, n_components=40, random_state=0),
        "nystroem": Nystroem(gamma=0.3, n_components=40, random_state=0),
        "none": None,
    }


@pytest.mark.parametrize("feature_map", ["fourier", "nystroem", "none"])
@pytest.mark.parametrize("scaler", list(SCALERS))
@pytest.mark.parametrize("loss", ["hinge", "log_loss"])
def test_scaler_map_classifier(scaler, feature_map, loss):
    X, y = make_problem(n_samples=300, n_features=10, n_classes=3, seed=4)
    steps = [SCALERS[scaler](), _maps()[feature_map], PegasosClassifier(loss=loss, random_state=0)]
    pipe = make_pipeline(*[s for s in steps if s is not None]).fit(X, y)
    check_classifier(pipe, pegasos_rs.to_onnx(pipe, X[:1], options=NO_ZIPMAP, dtype=np.float32), X)


@pytest.mark.parametrize("scaler", list(SCALERS))
def test_scaler_map_regressor(scaler):
    X, _ = make_problem(n_samples=300, n_features=10, seed=5)
    target = np.sin(3 * X[:, 0]) + X[:, 1]
    pipe = make_pipeline(
        SCALERS[scaler](),
        Nystroem(n_components=30, random_state=0),
        PegasosRegressor(random_state=0),
    ).fit(X, target)
    (out,) = run(pegasos_rs.to_onnx(pipe, X[:1], dtype=np.float32), X)
    assert_values(out.ravel(), pipe.predict(X))


def test_sparse_trained_pipeline_with_additive_map():
    X, y = make_problem(n_samples=300, n_features=10, n_classes=2, seed=6)
    X = sp.csr_matrix(np.abs(X))
    pipe = make_pipeline(
        MaxAbsScaler(),
        AdditiveKernelMap(order=2),
        PegasosClassifier(probability=True, random_state=0),
    ).fit(X, y)
    check_classifier(pipe, pegasos_rs.to_onnx(pipe, X[:1], options=NO_ZIPMAP, dtype=np.float32), X)


def test_skl2onnx_to_onnx_converts_pipelines_once_registered():
    import pegasos_rs.onnx
    import skl2onnx
    from skl2onnx.common.data_types import FloatTensorType

    pegasos_rs.onnx.register()  # idempotent: already run on import
    pegasos_rs.onnx.register()
    X, y = make_problem(n_samples=200, n_features=8, n_classes=2, seed=7)
    pipe = make_pipeline(
        StandardScaler(), RandomFourierFeatures(random_state=0), PegasosClassifier(random_state=0)
    ).fit(X, y)
    onx = skl2onnx.to_onnx(
        pipe, initial_types=[("X", FloatTensorType([None, 8]))], options={"zipmap": False}
    )
    check_classifier(pipe, onx, X)


def test_refused_step_inside_a_pipeline_is_named():
    import pegasos_rs.onnx
    import skl2onnx
    from skl2onnx.common.data_types import FloatTensorType

    X, y = make_problem(n_samples=200, n_features=8, n_classes=2, seed=7)
    pipe = make_pipeline(StandardScaler(), PegasosRanker(sampling="roc", random_state=0)).fit(X, y)
    with pytest.raises(TypeError, match="PegasosRanker cannot be exported to ONNX"):
        pegasos_rs.to_onnx(pipe, X)
    with pytest.raises(TypeError, match="PegasosRanker cannot be exported to ONNX"):
        skl2onnx.to_onnx(pipe, initial_types=[("X", FloatTensorType([None, 8]))])
    unfitted = make_pipeline(StandardScaler(), Nystroem("precomputed"))
    with pytest.raises(ValueError, match=r'Nystroem cannot be exported.*"precomputed"'):
        pegasos_rs.to_onnx(unfitted, n_features=8)


def test_saved_and_loaded_pipeline_exports(tmp_path):
    X, y = make_problem(n_samples=200, n_features=8, n_classes=3, seed=8)
    pipe = make_pipeline(
        StandardScaler(),
        Nystroem(n_components=20, random_state=0),
        PegasosClassifier(random_state=0),
    ).fit(X, y)
    pegasos_rs.save(pipe, tmp_path / "pipe.pgs")
    loaded = pegasos_rs.load(tmp_path / "pipe.pgs")
    check_classifier(
        pipe, pegasos_rs.to_onnx(loaded, X[:1], options=NO_ZIPMAP, dtype=np.float32), X
    )


def test_import_pegasos_rs_does_not_import_onnx():
    code = (
        "import sys, pegasos_rs; pegasos_rs.PegasosClassifier; "
        "assert 'pegasos_rs.onnx' not in sys.modules and 'skl2onnx' not in sys.modules; "
        "f = pegasos_rs.to_onnx; assert 'skl2onnx' in sys.modules; "
        "assert 'to_onnx' in pegasos_rs.__all__"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_usps_standard_scaler_fourier_pipeline():
    X, y, Xt, _ = require_data("usps")
    pipe = make_pipeline(
        StandardScaler(with_mean=False),
        RandomFourierFeatures(gamma=0.002, n_components=300, random_state=0),
        PegasosClassifier(alpha=1e-4, max_iter=3, random_state=0),
    ).fit(X, y)
    check_classifier(pipe, pegasos_rs.to_onnx(pipe, X[:1], options=NO_ZIPMAP, dtype=np.float32), Xt)


# ---------------------------------------------------- searches inside pipelines

#: A first step and a search, small enough to fit in a fraction of a second.
SEARCHES = {
    "linear-classifier": lambda: (
        RandomFourierFeatures(gamma=0.5, n_components=30, random_state=0),
        PegasosClassifierCV(alphas=[1e-1, 1e-2, 1e-3], cv=3, loss="log_loss", random_state=0),
    ),
    "linear-regressor": lambda: (
        StandardScaler(),
        PegasosRegressorCV(alphas=[1e-2, 1e-3], cv=3, random_state=0),
    ),
    "kernel-classifier": lambda: (
        StandardScaler(),
        KernelPegasosClassifierCV(
            Cs=[1.0, 10.0], gammas=[0.05, 0.2], cv=3, loss="modified_huber", random_state=0
        ),
    ),
    "kernel-regressor": lambda: (
        StandardScaler(),
        KernelPegasosRegressorCV(Cs=[1.0, 10.0], gammas=[0.05, 0.2], cv=3, random_state=0),
    ),
}


def _search_problem(kind):
    n_classes = 3 if kind == "linear-classifier" else 2
    X, y = make_problem(n_samples=150, n_features=6, n_classes=n_classes, density=1.0, seed=9)
    if kind.endswith("regressor"):
        return X, np.sin(3 * X[:, 0]) + X[:, 1] - X[:, 2]
    return X, y


def _skl2onnx(pipe, n_features, options=None, tensor=None):
    import pegasos_rs.onnx  # noqa: F401 (registers the converters)
    import skl2onnx
    from skl2onnx.common.data_types import FloatTensorType

    tensor = FloatTensorType if tensor is None else tensor
    return skl2onnx.to_onnx(
        pipe, initial_types=[("X", tensor([None, n_features]))], options=options
    )


def _node_types(onx):
    return {(node.domain, node.op_type) for node in onx.graph.node}


@pytest.mark.parametrize("kind", list(SEARCHES))
def test_skl2onnx_converts_a_pipeline_holding_a_search(kind):
    """skl2onnx.to_onnx converts a search as its refit model: the graph follows the
    pipeline's predict, predict_proba and decision_function, and its labels (or
    predictions) score against the true targets as the pipeline does, a reference
    the export and the search cannot share."""
    X, y = _search_problem(kind)
    first, search = SEARCHES[kind]()
    pipe = make_pipeline(first, search).fit(X, y)
    assert hasattr(search, "best_estimator_")
    if kind.endswith("regressor"):
        (values,) = run(_skl2onnx(pipe, X.shape[1]), X)
        assert_values(values.ravel(), pipe.predict(X))
        assert r2_score(y, values.ravel()) == pytest.approx(pipe.score(X, y), abs=1e-4)
        return
    # zipmap=False given to the pipeline (skl2onnx hands it to the last step)
    onx = _skl2onnx(pipe, X.shape[1], options={"zipmap": False})
    check_classifier(pipe, onx, X)
    label, proba = run(onx, X)
    assert_values(proba, pipe.predict_proba(X))
    assert np.mean(label == y) == pytest.approx(pipe.score(X, y), abs=0.01)
    # raw_scores keyed by the step's name reach the refit model's converter
    name = pipe.steps[-1][0]
    options = {f"{name}__zipmap": False, f"{name}__raw_scores": True}
    _, scores = run(_skl2onnx(pipe, X.shape[1], options=options), X)
    f = pipe.decision_function(X)
    assert_values(scores, np.column_stack([-f, f]) if f.ndim == 1 else f)
    # by default, skl2onnx's ZipMap: a {class: probability} per row
    _, zipped = run(_skl2onnx(pipe, X.shape[1]), X)
    assert [sorted(row) for row in zipped] == [sorted(search.classes_.tolist())] * len(X)
    assert_values([[row[c] for c in search.classes_] for row in zipped], pipe.predict_proba(X))


@pytest.mark.parametrize("kind", ["kernel-classifier", "kernel-regressor"])
def test_kernel_search_options_reach_the_refit_models_converter(kind):
    """Options keyed by the search's class, or by its refit model's class (as
    pegasos_rs.to_onnx takes them), reach the refit model's converter: svm_ops
    selects its graph, in float64 too, and zipmap=False for the refit model's class
    wins over the zipmap=True skl2onnx gives a pipeline's last step."""
    from skl2onnx.common.data_types import DoubleTensorType

    X, y = _search_problem(kind)
    first, search = SEARCHES[kind]()
    pipe = make_pipeline(first, search).fit(X, y)
    classifier = kind == "kernel-classifier"
    default = _skl2onnx(
        pipe, X.shape[1], options={type(search): {"zipmap": False}} if classifier else None
    )
    assert ("ai.onnx.ml", "SVMRegressor") in _node_types(default)
    refit = type(search.best_estimator_)
    options = {refit: {"zipmap": False, "svm_ops": False} if classifier else {"svm_ops": False}}
    onx = _skl2onnx(pipe, X.shape[1], options=options, tensor=DoubleTensorType)
    assert ("ai.onnx.ml", "SVMRegressor") not in _node_types(onx)
    outputs = run(onx, X, dtype=np.float64)
    if classifier:
        np.testing.assert_array_equal(outputs[0], pipe.predict(X))
        np.testing.assert_allclose(outputs[1], pipe.predict_proba(X), rtol=1e-9, atol=1e-12)
    else:
        np.testing.assert_allclose(outputs[0].ravel(), pipe.predict(X), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize(
    "search",
    [
        PegasosClassifierCV(alphas=[1e-2, 1e-3], cv=3, refit=False),
        PegasosRegressorCV(alphas=[1e-2, 1e-3], cv=3, refit=False),
        KernelPegasosClassifierCV(Cs=[1.0], gammas=[0.1], cv=3, max_iter=2, refit=False),
        KernelPegasosRegressorCV(Cs=[1.0], gammas=[0.1], cv=3, max_iter=2, refit=False),
    ],
    ids=lambda search: type(search).__name__,
)
def test_a_search_without_a_refit_model_is_refused_by_name(search):
    X, y = make_problem(n_samples=60, n_features=4, n_classes=2, density=1.0, seed=10)
    name = type(search).__name__
    with pytest.raises(
        NotFittedError, match=f"{name} cannot be exported to ONNX: it is not fitted"
    ):
        _skl2onnx(search, 4)
    pipe = make_pipeline(StandardScaler(), search).fit(X, y.astype(float))
    with pytest.raises(ValueError, match=f"{name} cannot be exported to ONNX: .*refit=False"):
        _skl2onnx(pipe, 4)
    with pytest.raises(ValueError, match=f"{name} cannot be exported to ONNX: .*refit=False"):
        pegasos_rs.to_onnx(pipe, X)
