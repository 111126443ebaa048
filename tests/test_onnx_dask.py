"""``pegasos_rs.to_onnx`` on the estimators of ``pegasos_rs.dask``: exported as the
in-memory models they extend (fitted here on in-memory arrays, which they accept, on
a cluster of worker threads in this process: the export reads only the fitted model)."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("onnx")
pytest.importorskip("skl2onnx")
pytest.importorskip("onnxruntime")
pytest.importorskip("distributed")

import pegasos_rs
import pegasos_rs.dask as pdask
from conftest import local_cluster, make_problem
from onnx_checks import assert_values, check_classifier, run
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler


@pytest.fixture(autouse=True, scope="module")
def _on_a_cluster():
    # Its own (started in a fraction of a second): this module runs long after the
    # other Dask tests, whose shared clusters are closed by then.
    import distributed

    with (
        local_cluster(2, processes=False) as cluster,
        distributed.Client(cluster, set_as_default=False) as client,
        client.as_current(),
    ):
        yield


def test_dask_classifier_and_maps_in_a_pipeline():
    X, y = make_problem(n_samples=200, n_features=8, n_classes=3, seed=1)
    pipe = make_pipeline(
        StandardScaler(),
        pdask.Nystroem(n_components=20, random_state=0),
        pdask.PegasosClassifier(loss="log_loss", random_state=0),
    ).fit(X, y)
    onx = pegasos_rs.to_onnx(pipe, X[:1], options={"zipmap": False}, dtype=np.float32)
    check_classifier(pipe, onx, X)
    assert isinstance(pipe[-1], pdask.PegasosClassifier)  # the pipeline is not changed


@pytest.mark.parametrize("cls", [pdask.RandomFourierFeatures, pdask.AdditiveKernelMap])
def test_dask_maps(cls):
    X = np.abs(make_problem(n_samples=100, n_features=6, seed=2)[0])
    model = cls().fit(X)
    (out,) = run(pegasos_rs.to_onnx(model, X, dtype=np.float32), X)
    assert_values(out, model.transform(X))


def test_dask_regressor():
    X, _ = make_problem(n_samples=200, n_features=8, seed=3)
    model = pdask.PegasosRegressor(random_state=0).fit(X, X[:, 0] - X[:, 1])
    (out,) = run(pegasos_rs.to_onnx(model, X, dtype=np.float32), X)
    assert_values(out.ravel(), model.predict(X))
