"""Model files: exact round trips, warm starts after loading, clear errors for damaged
or future files, and LIBLINEAR text models read into PegasosClassifier."""

from __future__ import annotations

import json
import struct
import zlib

import numpy as np
import pegasos_rs
import pytest
import scipy.sparse as sp
from conftest import make_problem
from pegasos_rs import KernelPegasosClassifier, PegasosClassifier
from pegasos_rs.io.model_io import FORMAT_VERSION, MAGIC


def _estimators():
    return [
        PegasosClassifier(random_state=0, average=True, class_weight={0: 2.0}),
        PegasosClassifier(random_state=1, intercept_scaling=None, sampling=[3, 1, 2, 0]),
        KernelPegasosClassifier(random_state=0, max_iter=2, gamma=0.5),
        KernelPegasosClassifier(random_state=0, max_iter=2, kernel="poly", degree=2),
    ]


@pytest.mark.parametrize("est", _estimators(), ids=lambda e: repr(e))
@pytest.mark.parametrize("n_classes", [2, 4])
@pytest.mark.parametrize("sparse", [False, True])
def test_round_trip_gives_identical_predictions(tmp_path, est, n_classes, sparse):
    X, y = make_problem(n_samples=200, n_features=8, n_classes=n_classes, seed=3)
    Xin = sp.csr_matrix(X) if sparse else X
    est.fit(Xin, y)
    path = tmp_path / "model.pgs"
    est.save(path)
    loaded = pegasos_rs.load(path)
    assert type(loaded) is type(est)
    assert repr(loaded.get_params()) == repr(est.get_params())
    np.testing.assert_array_equal(loaded.decision_function(Xin), est.decision_function(Xin))
    np.testing.assert_array_equal(loaded.predict(Xin), est.predict(Xin))
    np.testing.assert_array_equal(loaded.classes_, est.classes_)
    if isinstance(est, KernelPegasosClassifier):
        np.testing.assert_array_equal(loaded.support_, est.support_)
        assert sp.issparse(loaded.support_vectors_) == sparse


def test_precomputed_kernel_model_round_trips(tmp_path):
    X, y = make_problem(n_samples=120, n_features=5, seed=4)
    K = X @ X.T
    est = KernelPegasosClassifier(kernel="precomputed", random_state=0, max_iter=3).fit(K, y)
    est.save(tmp_path / "m")
    loaded = pegasos_rs.load(tmp_path / "m")
    assert loaded.shape_fit_ == est.shape_fit_
    np.testing.assert_array_equal(loaded.decision_function(K), est.decision_function(K))


def test_warm_start_continues_exactly_after_loading(tmp_path):
    X, y = make_problem(n_samples=300, n_features=10, n_classes=3, seed=5)
    a = PegasosClassifier(random_state=0, warm_start=True, max_iter=3).fit(X, y)
    a.save(tmp_path / "m")
    b = pegasos_rs.load(tmp_path / "m")
    a.fit(X, y)
    b.fit(X, y)
    np.testing.assert_array_equal(a.coef_, b.coef_)
    assert a.t_ == b.t_


def _saved(tmp_path):
    X, y = make_problem(n_samples=100, n_features=6, seed=6)
    path = tmp_path / "m"
    PegasosClassifier(random_state=0).fit(X, y).save(path)
    return path, path.read_bytes()


def _with_crc(body: bytes) -> bytes:
    return body + struct.pack("<I", zlib.crc32(body))


def test_damaged_truncated_and_future_files_are_clear_errors(tmp_path):
    path, raw = _saved(tmp_path)
    flipped = bytearray(raw)
    flipped[len(raw) // 2] ^= 0xFF
    path.write_bytes(bytes(flipped))
    with pytest.raises(ValueError, match="corrupted or truncated"):
        pegasos_rs.load(path)
    for cut in (len(raw) - 9, 30, 10):
        path.write_bytes(raw[:cut])
        with pytest.raises(ValueError, match=r"truncated|corrupted"):
            pegasos_rs.load(path)
    future = bytearray(raw[:-4])
    struct.pack_into("<I", future, len(MAGIC), FORMAT_VERSION + 1)
    path.write_bytes(_with_crc(bytes(future)))
    with pytest.raises(ValueError, match=f"format version {FORMAT_VERSION + 1}.*version 1 only"):
        pegasos_rs.load(path)
    path.write_bytes(b"hello world, not a model")
    with pytest.raises(ValueError, match="not a pegasos-rs model file"):
        pegasos_rs.load(path)


def test_unknown_estimator_in_header_is_rejected(tmp_path):
    path, raw = _saved(tmp_path)
    (hlen,) = struct.unpack_from("<Q", raw, len(MAGIC) + 4)
    start = len(MAGIC) + 12
    header = json.loads(raw[start : start + hlen])
    header["estimator"] = "os.system"
    text = json.dumps(header).encode()
    body = MAGIC + struct.pack("<IQ", FORMAT_VERSION, len(text)) + text + raw[start + hlen : -4]
    path.write_bytes(_with_crc(body))
    with pytest.raises(ValueError, match=r"unknown estimator 'os\.system'"):
        pegasos_rs.load(path)


def test_saving_needs_a_fitted_model_and_plain_parameters(tmp_path):
    with pytest.raises(ValueError, match="not fitted"):
        PegasosClassifier().save(tmp_path / "m")
    X, y = make_problem(n_samples=50, n_features=4, seed=7)
    est = PegasosClassifier(random_state=np.random.RandomState(0)).fit(X, y)
    with pytest.raises(TypeError, match="int seed"):
        est.save(tmp_path / "m")


# --------------------------------------------------------------------------------------
# LIBLINEAR text models


@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("bias", [-1, 1, 2.5])
@pytest.mark.parametrize("labels", [(0, 1, 2), (5, -1, 3)])
def test_liblinear_model_files_predict_like_liblinear(tmp_path, n_classes, bias, labels):
    liblinear = pytest.importorskip("liblinear.liblinearutil")
    X, y = make_problem(n_samples=300, n_features=12, n_classes=n_classes, seed=8)
    y = np.asarray(labels)[y]
    Xs = sp.csr_matrix(X)
    model = liblinear.train(y.tolist(), Xs, f"-s 3 -c 1 -B {bias} -q")
    path = tmp_path / "liblinear.model"
    liblinear.save_model(str(path), model)
    est = pegasos_rs.load(path)
    want, _, dec = liblinear.predict([], Xs, model, "-q")
    # Rows without non-zeros and without a bias score 0 for every class; LIBLINEAR
    # then picks its first label, scikit-learn's convention the smallest class.
    dec = np.asarray(dec)
    untied = np.ptp(dec, axis=1) > 0 if n_classes > 2 else dec.ravel() != 0
    assert untied.mean() > 0.95
    np.testing.assert_array_equal(est.predict(X)[untied], np.asarray(want)[untied])
    np.testing.assert_allclose(
        np.sort(np.abs(est.decision_function(X)), axis=-1)
        if n_classes > 2
        else np.abs(est.decision_function(X)),
        np.sort(np.abs(np.asarray(dec)), axis=-1)
        if n_classes > 2
        else np.abs(np.asarray(dec)).ravel(),
        # LIBLINEAR adds the products in another order: near 0 only the absolute
        # rounding (a few ulps of the terms, about 1e-16 here) is meaningful.
        rtol=1e-12,
        atol=1e-13,
    )
    assert est.n_features_in_ == 12


def test_non_liblinear_text_is_rejected(tmp_path):
    path = tmp_path / "m"
    path.write_text("solver_type L2R_L2LOSS_SVC_DUAL\nnr_class 2\nw\n")
    with pytest.raises(ValueError, match="not a LIBLINEAR model file"):
        pegasos_rs.load(path)


def test_every_fitted_attribute_survives_save_and_load(tmp_path):
    """The attributes a model file holds are declared once, next to each classifier
    (``_saved_state``); fit_report_ of the kernel estimator survives as well."""
    import pegasos_rs
    from pegasos_rs import KernelPegasosClassifier, PegasosClassifier
    from pegasos_rs.exceptions import DataFormatError

    rng = np.random.RandomState(0)
    X, y = rng.randn(120, 4), np.arange(120) % 3
    for est in (
        PegasosClassifier(random_state=0, tol=10.0, max_iter=8, n_iter_no_change=2),
        KernelPegasosClassifier(random_state=0, max_iter=2),
    ):
        est.fit(X, y)
        path = tmp_path / f"{type(est).__name__}.model"
        est.save(path)
        back = pegasos_rs.load(path)
        fitted = {k for k in vars(est) if k.endswith("_") and not k.startswith("__")}
        assert fitted <= set(vars(back)), fitted - set(vars(back))
        for k in fitted:
            a, b = getattr(est, k), getattr(back, k)
            if isinstance(a, np.ndarray):
                np.testing.assert_array_equal(a, b)
            else:
                assert a == b or (a is None and b is None), k
    assert back.fit_report_ == est.fit_report_ and len(back.fit_report_) == 3
    # A damaged report is refused with the file named.
    raw = path.read_bytes()
    # A report without one of the keys (here "switched_at") is refused too.
    from pegasos_rs.io.model_io import _fit_report

    partial = [{k: v for k, v in r.items() if k != "switched_at"} for r in est.fit_report_]
    with pytest.raises(DataFormatError, match="fit_report_"):
        _fit_report(type(est)._saved_state, partial, lambda m: DataFormatError(m, "f"))
    bad = raw.replace(b'"strategy": "', b'"strategy": "x', 1)
    path.write_bytes(bad)
    with pytest.raises(DataFormatError):
        pegasos_rs.load(path)
