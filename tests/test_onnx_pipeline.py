"""Pipelines of pegasos-rs maps and models with scikit-learn's scalers, exported by
``pegasos_rs.to_onnx`` and by ``skl2onnx.to_onnx`` (the converters registered when
``pegasos_rs.onnx`` is imported); the registration itself."""

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
    Nystroem,
    PegasosClassifier,
    PegasosRanker,
    PegasosRegressor,
    RandomFourierFeatures,
)
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
