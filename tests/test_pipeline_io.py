"""Model files holding the feature maps, scikit-learn's scalers and Pipelines of them:
bit-identical round trips, settings kept, unsupported steps refused before anything is
written, damaged files reported with the file and the step."""

from __future__ import annotations

import json
import os
import struct
import zlib

import numpy as np
import pegasos_rs
import pytest
import scipy.sparse as sp
from conftest import make_problem
from pegasos_rs import (
    AdditiveKernelMap,
    DataFormatError,
    KernelPegasosClassifier,
    Nystroem,
    PegasosClassifier,
    RandomFourierFeatures,
)
from pegasos_rs.io.model_io import FORMAT_VERSION, MAGIC
from sklearn.decomposition import PCA
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.preprocessing import FunctionTransformer, MaxAbsScaler, StandardScaler


def _problem(sparse: bool, n_classes: int = 2, seed: int = 3):
    X, y = make_problem(n_samples=150, n_features=7, n_classes=n_classes, seed=seed)
    X = np.abs(X)  # the additive kernels need non-negative data
    return (sp.csr_matrix(X) if sparse else X), y


def _dense(Z):
    return Z.toarray() if sp.issparse(Z) else Z


def _same_bits(a, b) -> bool:
    if sp.issparse(a) or sp.issparse(b):
        return (
            sp.issparse(a)
            and sp.issparse(b)
            and all(
                np.asarray(getattr(a, k)).tobytes() == np.asarray(getattr(b, k)).tobytes()
                for k in ("data", "indices", "indptr")
            )
            and a.shape == b.shape
        )
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


def _maps():
    return [
        RandomFourierFeatures(gamma=0.5, n_components=31, random_state=0),
        RandomFourierFeatures(gamma="scale", n_components=16, form="offset", random_state=1),
        Nystroem(gamma=0.5, n_components=20, random_state=0),
        Nystroem(
            "poly", degree=2, coef0=0.5, n_components=15, landmarks="k-means++", random_state=2
        ),
        Nystroem("chi2", n_components=12, random_state=3),
        AdditiveKernelMap(),
        AdditiveKernelMap("js", order=1),
        AdditiveKernelMap("intersection", order=3, period=4.0),
    ]


@pytest.mark.parametrize("est", _maps(), ids=repr)
@pytest.mark.parametrize("sparse", [False, True])
def test_feature_maps_round_trip_bit_for_bit(tmp_path, est, sparse):
    X, _ = _problem(sparse)
    est.fit(X)
    path = tmp_path / "map.pgs"
    pegasos_rs.save(est, path)
    loaded = pegasos_rs.load(path)
    assert type(loaded) is type(est)
    assert repr(loaded.get_params()) == repr(est.get_params())
    for Xin in (X, X.astype(np.float32)):
        assert _same_bits(loaded.transform(Xin), est.transform(Xin))
    for attr in ("random_weights_", "normalization_", "component_indices_", "period_"):
        if hasattr(est, attr):
            np.testing.assert_array_equal(getattr(loaded, attr), getattr(est, attr))
    assert loaded.get_feature_names_out().tolist() == est.get_feature_names_out().tolist()


def test_nystroem_variants_round_trip(tmp_path):
    X, _ = _problem(False)
    # Mostly zeros and dense: the kernel reads a CSR copy of the landmarks.
    Xz = np.where(X > 0.2, X, 0.0)
    assert np.count_nonzero(Xz) < 0.5 * Xz.size
    K = X @ X.T
    cases = [
        (Nystroem(gamma=0.3, n_components=10, random_state=0).fit(Xz), Xz),
        (Nystroem(n_components=10, landmarks="k-means++", random_state=0).fit(Xz), Xz),
        (Nystroem("precomputed", n_components=10, random_state=0).fit(K), K[:20]),
        (Nystroem(n_components=10, random_state=0).fit(X.astype(np.float32)), X),
    ]
    for est, Xt in cases:
        pegasos_rs.save(est, tmp_path / "n.pgs")
        loaded = pegasos_rs.load(tmp_path / "n.pgs")
        assert _same_bits(loaded.transform(Xt), est.transform(Xt)), est
        if est.kernel != "precomputed":
            assert loaded.components_.dtype == est.components_.dtype
            assert type(loaded._components_view) is type(est._components_view)


def test_nystroem_file_holds_scikit_learns_orientation(tmp_path):
    X, _ = _problem(False)
    est = Nystroem(gamma=0.5, n_components=8, landmarks="k-means++", random_state=0).fit(X)
    path = tmp_path / "n.pgs"
    pegasos_rs.save(est, path)
    header, blob = _split(path.read_bytes())
    meta = header["arrays"]["normalization_"]
    stored = np.frombuffer(blob[meta["offset"] : meta["offset"] + meta["nbytes"]], "<f8")
    np.testing.assert_array_equal(stored.reshape(meta["shape"]), est.normalization_)


def _classifiers():
    return [
        PegasosClassifier(random_state=0, max_iter=3),
        KernelPegasosClassifier(kernel="linear", random_state=0, max_iter=2),
    ]


def _transformers():
    return [
        Nystroem(gamma=0.5, n_components=20, random_state=0),
        RandomFourierFeatures(gamma=0.5, n_components=24, random_state=0),
        AdditiveKernelMap("chi2", order=1),
    ]


@pytest.mark.parametrize("transformer", _transformers(), ids=lambda t: type(t).__name__)
@pytest.mark.parametrize("clf", _classifiers(), ids=lambda c: type(c).__name__)
@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("n_classes", [2, 3])
def test_pipelines_round_trip_bit_for_bit(tmp_path, transformer, clf, sparse, n_classes):
    X, y = _problem(sparse, n_classes)
    pipe = make_pipeline(MaxAbsScaler(), transformer, clf).fit(X, y)
    path = tmp_path / "pipe.pgs"
    pegasos_rs.save(pipe, path)
    loaded = pegasos_rs.load(path)
    assert isinstance(loaded, Pipeline)
    assert [n for n, _ in loaded.steps] == [n for n, _ in pipe.steps]
    assert [type(s) for _, s in loaded.steps] == [type(s) for _, s in pipe.steps]
    assert repr(loaded.get_params()) == repr(pipe.get_params())
    assert _same_bits(loaded.decision_function(X), pipe.decision_function(X))
    assert _same_bits(loaded.predict(X), pipe.predict(X))
    assert _same_bits(loaded[:-1].transform(X), pipe[:-1].transform(X))


def test_pipeline_settings_names_and_passthrough_steps_survive(tmp_path):
    X, y = _problem(False)
    pipe = Pipeline(
        [
            ("first", "passthrough"),
            ("scale", StandardScaler()),
            ("nothing", None),
            ("map", Nystroem(gamma=0.5, n_components=20, random_state=0)),
            ("svm", PegasosClassifier(random_state=0)),
        ],
    ).fit(X, y)
    pipe.set_params(memory=str(tmp_path / "cache"), verbose=True)
    path = tmp_path / "pipe.pgs"
    pegasos_rs.save(pipe, path)
    loaded = pegasos_rs.load(path)
    assert loaded.memory == str(tmp_path / "cache")
    assert loaded.verbose is True
    assert [n for n, _ in loaded.steps] == ["first", "scale", "nothing", "map", "svm"]
    assert loaded.steps[0][1] == "passthrough" and loaded.steps[2][1] == "passthrough"
    assert _same_bits(loaded.predict(X), pipe.predict(X))
    # A transformer-only pipeline.
    maps = make_pipeline(StandardScaler(), RandomFourierFeatures(random_state=0)).fit(X)
    pegasos_rs.save(maps, path)
    assert _same_bits(pegasos_rs.load(path).transform(X), maps.transform(X))


def _scalers():
    X, _ = _problem(False)
    Xnan = X.copy()
    Xnan[0, 2] = np.nan
    w = np.linspace(0.5, 2.0, X.shape[0])
    return [
        (StandardScaler(), X, None),
        (StandardScaler(with_mean=False), sp.csr_matrix(X), None),
        (StandardScaler(with_std=False), X, None),
        (StandardScaler(with_mean=False, with_std=False), X, None),
        (StandardScaler(), X, w),  # n_samples_seen_ a float: the weights' sum
        (StandardScaler(), Xnan, None),  # n_samples_seen_ one count per feature
        (MaxAbsScaler(), X, None),
        (MaxAbsScaler(), sp.csr_matrix(X), None),
    ]


@pytest.mark.parametrize("i", range(len(_scalers())))
def test_scalers_round_trip_with_their_fitted_attributes(tmp_path, i):
    scaler, X, w = _scalers()[i]
    scaler.fit(X, sample_weight=w) if w is not None else scaler.fit(X)
    pegasos_rs.save(scaler, tmp_path / "s.pgs")
    loaded = pegasos_rs.load(tmp_path / "s.pgs")
    assert type(loaded) is type(scaler)
    assert loaded.get_params() == scaler.get_params()
    for attr in ("mean_", "var_", "scale_", "max_abs_", "n_samples_seen_", "n_features_in_"):
        if hasattr(scaler, attr):
            mine, theirs = getattr(loaded, attr), getattr(scaler, attr)
            assert type(mine) is type(theirs), attr
            if theirs is not None:
                np.testing.assert_array_equal(mine, theirs)
    assert _same_bits(loaded.transform(X), scaler.transform(X))
    # partial_fit continues from the loaded counts as from the saved ones.
    if w is None and not sp.issparse(X):
        more = np.nan_to_num(X[:10]) + 1.0
        a = loaded.partial_fit(more).transform(X)
        b = scaler.partial_fit(more).transform(X)
        assert _same_bits(a, b)


def test_feature_names_survive(tmp_path):
    pd = pytest.importorskip("pandas")
    X, y = _problem(False)
    df = pd.DataFrame(X, columns=[f"f{j}" for j in range(X.shape[1])])
    pipe = make_pipeline(StandardScaler(), Nystroem(n_components=10, random_state=0),
                         PegasosClassifier(random_state=0)).fit(df, y)  # fmt: skip
    pegasos_rs.save(pipe, tmp_path / "p.pgs")
    loaded = pegasos_rs.load(tmp_path / "p.pgs")
    assert loaded.feature_names_in_.tolist() == df.columns.tolist()
    assert _same_bits(loaded.predict(df), pipe.predict(df))  # no feature-name warning


# ------------------------------------------------------------------------ refusals


def _refused():
    X, y = _problem(False)
    fitted_clf = PegasosClassifier(random_state=0).fit(X, y)
    return [
        (make_pipeline(PCA(2), PegasosClassifier()).fit(X, y), TypeError, "'pca' (PCA)"),
        (
            make_pipeline(FunctionTransformer(np.sqrt), PegasosClassifier()).fit(X, y),
            TypeError,
            "'functiontransformer' (FunctionTransformer)",
        ),
        (
            Pipeline([("scale", StandardScaler()), ("svm", fitted_clf)]),
            ValueError,
            "'scale' (StandardScaler) is not fitted",
        ),
        (
            Pipeline([("inner", make_pipeline(StandardScaler())), ("svm", fitted_clf)]).fit(X, y),
            TypeError,
            "'inner' (Pipeline)",
        ),
        (
            make_pipeline(Nystroem(random_state=np.random.RandomState(0)), PegasosClassifier()).fit(
                X, y
            ),
            TypeError,
            "int seed",
        ),
        (PCA(2).fit(X), TypeError, "a PCA cannot be saved"),
        (Nystroem(), ValueError, "a Nystroem is not fitted"),
    ]


@pytest.mark.parametrize("i", range(len(_refused())))
def test_unsupported_steps_are_refused_before_writing(tmp_path, i):
    est, error, fragment = _refused()[i]
    path = tmp_path / "m.pgs"
    with pytest.raises(error, match=fragment.replace("(", r"\(").replace(")", r"\)")):
        pegasos_rs.save(est, path)
    assert not path.exists()
    path.write_bytes(b"old content")
    with pytest.raises(error):
        pegasos_rs.save(est, path)
    assert path.read_bytes() == b"old content"


def test_a_memory_object_is_refused(tmp_path):
    joblib = pytest.importorskip("joblib")
    X, y = _problem(False)
    pipe = make_pipeline(StandardScaler(), PegasosClassifier(random_state=0)).fit(X, y)
    pipe.set_params(memory=joblib.Memory(None))
    with pytest.raises(TypeError, match="memory="):
        pegasos_rs.save(pipe, tmp_path / "m.pgs")
    assert not (tmp_path / "m.pgs").exists()


# ------------------------------------------------------------------- versions, damage


def _split(raw: bytes):
    (hlen,) = struct.unpack_from("<Q", raw, len(MAGIC) + 4)
    start = len(MAGIC) + 12
    return json.loads(raw[start : start + hlen]), raw[start + hlen : -4]


def _join(header, blob: bytes, version=FORMAT_VERSION) -> bytes:
    text = json.dumps(header).encode()
    body = MAGIC + struct.pack("<IQ", version, len(text)) + text + blob
    return body + struct.pack("<I", zlib.crc32(body))


def _version(path) -> int:
    return struct.unpack_from("<I", path.read_bytes(), len(MAGIC))[0]


def test_every_file_is_version_1_and_a_hand_made_version_1_file_loads(tmp_path):
    X, y = _problem(False)
    path = tmp_path / "m.pgs"
    assert FORMAT_VERSION == 1
    for est in (
        PegasosClassifier(random_state=0).fit(X, y),
        PegasosClassifier(random_state=0, multi_class="crammer_singer").fit(X, y),
        Nystroem(n_components=5, random_state=0).fit(X),
        make_pipeline(StandardScaler(), PegasosClassifier(random_state=0)).fit(X, y),
    ):
        pegasos_rs.save(est, path)
        assert _version(path) == 1, est
    # A version 1 file written by hand: the parameters it lacks take their defaults.
    coef, intercept = np.array([[0.5, -1.0, 2.0]]), np.array([0.25])
    arrays, blob = {}, b""
    for key, arr in (("coef_", coef), ("intercept_", intercept), ("classes_", np.array([3, 7]))):
        raw = arr.astype(arr.dtype.newbyteorder("<")).tobytes()
        meta = {"dtype": arr.dtype.newbyteorder("<").str, "shape": list(arr.shape)}
        arrays[key] = {**meta, "offset": len(blob), "nbytes": len(raw)}
        blob += raw
    header = {
        "estimator": "PegasosClassifier",
        "library_version": "0.1.0",
        "params": {"alpha": 0.001, "random_state": 0},
        "scalars": {"n_features_in_": 3, "n_iter_": 5, "t_": 100},
        "arrays": arrays,
        "sparse": {},
    }
    path.write_bytes(_join(header, blob, version=1))
    est = pegasos_rs.load(path)
    Xt = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
    np.testing.assert_array_equal(est.decision_function(Xt), Xt @ coef[0] + intercept)
    np.testing.assert_array_equal(est.predict(Xt), [7, 3])


@pytest.mark.parametrize("version", [0, 2, 3, 4])
def test_files_of_any_other_version_are_refused_naming_it(tmp_path, version):
    """Development builds wrote versions 2 and 3 (transformers, newer parameters);
    no release did, so only version 1 is read."""
    X, y = _problem(False)
    path = tmp_path / "m.pgs"
    pegasos_rs.save(
        make_pipeline(StandardScaler(), PegasosClassifier(random_state=0)).fit(X, y), path
    )
    header, blob = _split(path.read_bytes())
    path.write_bytes(_join(header, blob, version=version))
    with pytest.raises(DataFormatError, match=f"model format version {version};.*version 1 only"):
        pegasos_rs.load(path)


def _saved_pipeline(tmp_path, *steps):
    X, y = _problem(False)
    pipe = make_pipeline(*steps).fit(X, y)
    path = tmp_path / "p.pgs"
    pegasos_rs.save(pipe, path)
    return path, path.read_bytes()


def test_truncated_or_corrupted_pipeline_files_name_the_file(tmp_path):
    path, raw = _saved_pipeline(
        tmp_path, StandardScaler(), Nystroem(n_components=8, random_state=0), PegasosClassifier()
    )
    for content in (raw[: len(raw) // 2], raw[:-1], raw[:30]):
        path.write_bytes(content)
        with pytest.raises(DataFormatError, match=r"truncated|corrupted") as info:
            pegasos_rs.load(path)
        assert info.value.file == str(path)
        assert str(path) in str(info.value)
    flipped = bytearray(raw)
    flipped[-20] ^= 0x10
    path.write_bytes(bytes(flipped))
    with pytest.raises(DataFormatError, match="checksum"):
        pegasos_rs.load(path)


def _edit(header, keys, value):
    h = json.loads(json.dumps(header))
    node = h
    for k in keys[:-1]:
        node = node[k]
    if callable(value):
        node[keys[-1]] = value(h)
    elif value is _DELETE:
        del node[keys[-1]]
    else:
        node[keys[-1]] = value
    return h


_DELETE = object()

#: (keys into the header, value, fragment of the message)
BAD_PIPELINES = [
    (["steps"], [], "at least one step"),
    (["steps"], "x", "'steps' must be a list"),
    (["steps", 0, "name"], 5, "step 0 has no name"),
    (["steps", 0, "name"], "nystroem", "repeated step name"),
    (["steps", 0, "name"], "a__b", "bad or repeated step name"),
    (["steps", 0, "name"], "memory", "bad or repeated step name"),
    (["steps", 0, "estimator"], "os.system", "step 'standardscaler' (os.system): unknown"),
    (["steps", 0], lambda h: {**h["steps"][2], "name": "x"}, "'x' (PegasosClassifier) comes"),
    (["params", "memory"], 5, "bad Pipeline setting 'memory'"),
    (["params", "verbose"], "yes", "bad Pipeline setting 'verbose'"),
    (["params", "steps"], [], "bad Pipeline setting 'steps'"),
    (["params", "transform_input"], ["x", 1], "bad Pipeline setting 'transform_input'"),
    (["steps", 0, "params", "with_mean"], "maybe", "step 'standardscaler' (StandardScaler): inv"),
    (["steps", 0, "arrays", "mean_", "shape"], [3], "needs"),
    (["steps", 0, "arrays", "mean_"], _DELETE, "mean_ must be floats of shape (7,)"),
    (["steps", 0, "scalars", "n_samples_seen_"], -1, "n_samples_seen_ must be a non-negative"),
    (["steps", 0, "scalars", "feature_names_in_"], ["a"], "one feature name per feature"),
    (["steps", 1, "arrays", "normalization_", "shape"], [4, 16], "normalization_ must be"),
    (["steps", 1, "arrays", "component_indices_", "dtype"], "<f8", "component_indices_ must"),
    (["steps", 1, "arrays", "components_", "shape"], [8, 1, 7], "components_ must be floats"),
    (["steps", 1, "scalars", "gamma_"], -1.0, "gamma_ must be a positive number"),
    (["steps", 1, "scalars", "gamma_"], "x", "gamma_ must be a number"),
    (["steps", 1, "scalars", "_n_features_out"], 9, "_n_features_out must be n_components_"),
    (["steps", 1, "scalars", "rank_"], 99, "rank_ must be at most 8"),
    (["steps", 2, "arrays", "coef_", "shape"], [1, 4], "needs 32 bytes"),
    (["steps", 2, "arrays", "coef_", "shape"], [2, 4], "coef_ must have shape (1, 8)"),
]


@pytest.mark.parametrize("keys, value, fragment", BAD_PIPELINES, ids=lambda v: str(v)[:30])
def test_damaged_pipeline_headers_name_the_file_and_step(tmp_path, keys, value, fragment):
    path, raw = _saved_pipeline(
        tmp_path, StandardScaler(), Nystroem(n_components=8, random_state=0), PegasosClassifier()
    )
    header, blob = _split(raw)
    path.write_bytes(_join(_edit(header, keys, value), blob))
    with pytest.raises(DataFormatError) as info:
        pegasos_rs.load(path)
    assert info.value.file == str(path)
    assert fragment in info.value.reason, info.value.reason


def test_inconsistent_maps_are_refused(tmp_path):
    X, _ = _problem(False)
    K = X @ X.T
    cases = [
        (RandomFourierFeatures(n_components=9, random_state=0).fit(X),
         ["scalars", "_n_features_out"], 12, "random_weights_ must be floats of shape (7, 6)"),
        (RandomFourierFeatures(n_components=9, random_state=0).fit(X),
         ["scalars", "_form"], "other", "_form must be"),
        (RandomFourierFeatures(n_components=9, random_state=0).fit(X),
         ["arrays", "random_offset_", "shape"], [1, 5], "random_offset_ must be floats of"),
        (AdditiveKernelMap().fit(X), ["scalars", "period_"], -2.0, "period_ must be a positive"),
        (AdditiveKernelMap().fit(X), ["scalars", "_n_features_out"], 3, "_n_features_out must"),
        (AdditiveKernelMap().fit(X), ["params", "order"], 1, "_n_features_out must be 7 * 3"),
        (Nystroem("precomputed", n_components=5, random_state=0).fit(K),
         ["scalars", "n_features_in_"], 3, "component_indices_ must be below 3"),
        (MaxAbsScaler().fit(X), ["arrays", "scale_", "dtype"], "<i8", "scale_ must be floats"),
    ]  # fmt: skip
    path = tmp_path / "m.pgs"
    for est, keys, value, fragment in cases:
        pegasos_rs.save(est, path)
        header, blob = _split(path.read_bytes())
        path.write_bytes(_join(_edit(header, keys, value), blob))
        with pytest.raises(DataFormatError) as info:
            pegasos_rs.load(path)
        assert fragment in info.value.reason, (est, info.value.reason)


@pytest.mark.parametrize("scaler", [StandardScaler(), MaxAbsScaler()], ids=repr)
def test_a_zero_scale_is_refused(tmp_path, scaler):
    X, _ = _problem(False)
    path = tmp_path / "s.pgs"
    pegasos_rs.save(scaler.fit(X), path)
    header, blob = _split(path.read_bytes())
    meta = header["arrays"]["scale_"]
    bad = bytearray(blob)
    bad[meta["offset"] : meta["offset"] + 8] = bytes(8)
    path.write_bytes(_join(header, bytes(bad)))
    with pytest.raises(DataFormatError, match="scale_ must be finite, not 0"):
        pegasos_rs.load(path)


def test_a_huge_n_jobs_in_a_file_starts_no_more_threads_than_cores_allow(tmp_path):
    """n_jobs is a parameter a hostile file may set: the thread count is capped (at
    four per core), so transform neither tries to start 10**12 threads nor changes."""
    from pegasos_rs._validation import n_threads

    X, y = _problem(False)
    pipe = make_pipeline(RandomFourierFeatures(random_state=0), PegasosClassifier()).fit(X, y)
    path = tmp_path / "p.pgs"
    pegasos_rs.save(pipe, path)
    header, blob = _split(path.read_bytes())
    for entry in header["steps"]:
        entry["params"]["n_jobs"] = 10**12
    path.write_bytes(_join(header, blob))
    loaded = pegasos_rs.load(path)
    assert loaded[0].n_jobs == 10**12
    assert 1 <= n_threads(10**12) <= 4 * (os.cpu_count() or 1)
    assert _same_bits(loaded.decision_function(X), pipe.decision_function(X))
