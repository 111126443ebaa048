"""pandas and polars data frames as scikit-learn handles them: ``feature_names_in_`` and
the column name checks, ``get_feature_names_out`` and ``set_output`` of the feature
maps, pipelines, model files, and scikit-learn's data frame checks. Every result on a
frame is compared bit for bit with the same estimator on the equivalent numpy array."""

from __future__ import annotations

import json
import struct
import warnings
import zlib
from unittest import SkipTest

import numpy as np
import pandas as pd
import polars as pl
import pytest
import scipy.sparse as sp
import sklearn
from pegasos_rs import KernelPegasosClassifier, KernelPegasosRegressor, PegasosClassifier, load
from pegasos_rs.exceptions import DataFormatError
from pegasos_rs.kernel_approximation import AdditiveKernelMap, Nystroem, RandomFourierFeatures
from sklearn.base import clone
from sklearn.kernel_approximation import AdditiveChi2Sampler
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils import estimator_checks

COLUMNS = ["age", "height", "weight", "score"]


def _estimators():
    return [
        PegasosClassifier(random_state=0, max_iter=3),
        KernelPegasosClassifier(random_state=0, max_iter=2),
        RandomFourierFeatures(n_components=7, random_state=0),
        Nystroem(n_components=6, random_state=0),
        Nystroem(kernel="poly", n_components=6, landmarks="k-means++", random_state=0),
        AdditiveKernelMap(order=2),
    ]


ESTIMATORS = _estimators()
TRANSFORMERS = [e for e in ESTIMATORS if hasattr(e, "transform")]
CLASSIFIERS = [e for e in ESTIMATORS if not hasattr(e, "transform")]
#: Checked only by scikit-learn's data frame checks below (model files do not hold
#: them yet).
REGRESSORS = [KernelPegasosRegressor(random_state=0, max_iter=2)]


def _data(n=60, seed=0):
    """Non-negative rows (the additive maps need them) and labels of three classes."""
    rng = np.random.RandomState(seed)
    X = rng.rand(n, len(COLUMNS))
    y = np.argmax(X[:, :3] + 0.2 * rng.rand(n, 3), axis=1)
    return X, y


def _frame(lib, X, columns=COLUMNS, index=None):
    if lib == "pandas":
        return pd.DataFrame(X, columns=columns, index=index)
    return pl.DataFrame(X, schema=list(columns), orient="row")


def _output(est, X):
    """What a fitted estimator computes: decision values or features (dense)."""
    out = est.decision_function(X) if hasattr(est, "decision_function") else est.transform(X)
    return out.toarray() if sp.issparse(out) else np.asarray(out)


def _same_bits(a, b):
    a, b = np.asarray(a), np.asarray(b)
    assert a.dtype == b.dtype and a.shape == b.shape
    assert a.tobytes() == b.tobytes()


# --------------------------------------------------------------------------------------
# Frames in, the same numbers out


@pytest.mark.parametrize("lib", ["pandas", "polars"])
@pytest.mark.parametrize("estimator", ESTIMATORS, ids=repr)
def test_frame_input_matches_numpy_bit_for_bit(lib, estimator):
    X, y = _data()
    frame = _frame(lib, X)
    on_frame = clone(estimator).fit(frame, y)
    on_array = clone(estimator).fit(X, y)
    np.testing.assert_array_equal(on_frame.feature_names_in_, COLUMNS)
    assert on_frame.feature_names_in_.dtype == object
    assert on_frame.n_features_in_ == len(COLUMNS)
    assert not hasattr(on_array, "feature_names_in_")
    _same_bits(_output(on_frame, frame), _output(on_array, X))
    if hasattr(on_frame, "predict"):
        _same_bits(on_frame.predict(frame), on_array.predict(X))


@pytest.mark.parametrize("lib", ["pandas", "polars"])
@pytest.mark.parametrize("estimator", ESTIMATORS, ids=repr)
def test_mixed_int_and_float_columns(lib, estimator):
    X, y = _data()
    X[:, 1] = np.round(X[:, 1] * 10)  # whole numbers, stored as int64 in the frame
    if lib == "pandas":
        frame = pd.DataFrame(X, columns=COLUMNS).astype({"height": np.int64, "age": np.float32})
    else:
        frame = pl.DataFrame(X, schema=COLUMNS, orient="row").with_columns(
            pl.col("height").cast(pl.Int64), pl.col("age").cast(pl.Float32)
        )
    # The columns meet in float64, as numpy promotes them.
    expected_X = np.column_stack([X[:, 0].astype(np.float32), X[:, 1:]]).astype(np.float64)
    on_frame = clone(estimator).fit(frame, y)
    on_array = clone(estimator).fit(expected_X, y)
    _same_bits(_output(on_frame, frame), _output(on_array, expected_X))


@pytest.mark.parametrize("lib", ["pandas", "polars"])
@pytest.mark.parametrize("transformer", TRANSFORMERS, ids=repr)
def test_float32_frames_are_read_as_scikit_learn_reads_them(lib, transformer):
    """A float32 pandas frame stays float32, as a float32 array; scikit-learn's
    validation reads a polars frame as float64 whatever its dtypes (so does its
    StandardScaler)."""
    X, _ = _data()
    X = X.astype(np.float32)
    frame = _frame(lib, X)
    out = clone(transformer).fit(frame).transform(frame)
    dtype = np.float32 if lib == "pandas" else np.float64
    assert out.dtype == StandardScaler().fit_transform(frame).dtype == dtype
    _same_bits(out, clone(transformer).fit(X.astype(dtype)).transform(X.astype(dtype)))


def test_object_column_holding_numbers_is_accepted():
    X, y = _data()
    frame = pd.DataFrame(X, columns=COLUMNS).astype({"score": object})
    on_frame = PegasosClassifier(random_state=0).fit(frame, y)
    _same_bits(on_frame.coef_, PegasosClassifier(random_state=0).fit(X, y).coef_)


@pytest.mark.parametrize("estimator", ESTIMATORS, ids=repr)
def test_pandas_sparse_frame_matches_csr(estimator):
    X, y = _data()
    X[X < 0.6] = 0.0
    S = sp.csr_matrix(X)
    frame = pd.DataFrame.sparse.from_spmatrix(S, columns=COLUMNS)
    on_frame = clone(estimator).fit(frame, y)
    on_csr = clone(estimator).fit(S, y)
    np.testing.assert_array_equal(on_frame.feature_names_in_, COLUMNS)
    a = on_frame.decision_function(frame) if hasattr(on_frame, "predict") else None
    if a is None:
        a, b = on_frame.transform(frame), on_csr.transform(S)
        # A sparse map of a sparse frame is CSR, as for a CSR matrix.
        assert sp.issparse(a) == sp.issparse(b)
    else:
        b = on_csr.decision_function(S)
    _same_bits(_output_dense(a), _output_dense(b))


def _output_dense(a):
    return a.toarray() if sp.issparse(a) else a


# --------------------------------------------------------------------------------------
# Columns that are not numbers


def _with_text_column(lib, X, name="colour", values=("red", "blue")):
    words = [values[i % len(values)] for i in range(X.shape[0])]
    frame = _frame(lib, X)
    if lib == "pandas":
        return frame.assign(**{name: words})
    return frame.with_columns(pl.Series(name, words))


@pytest.mark.parametrize("lib", ["pandas", "polars"])
@pytest.mark.parametrize("estimator", ESTIMATORS, ids=repr)
def test_text_column_is_named_in_the_error(lib, estimator):
    X, y = _data()
    est = clone(estimator)
    with pytest.raises(ValueError, match=r"not numbers: 'colour' \((str|String|object)\)") as info:
        est.fit(_with_text_column(lib, X), y)
    assert type(estimator).__name__ in str(info.value)
    assert not hasattr(est, "n_features_in_")


def test_categorical_and_several_text_columns_are_all_named():
    X, y = _data()
    frame = pd.DataFrame(X, columns=COLUMNS).assign(
        city=pd.Categorical(["Oslo", "Lima"] * 30), note=["a"] * 60
    )
    with pytest.raises(ValueError, match=r"'city' \(category\), 'note' \((str|object)\)"):
        PegasosClassifier().fit(frame, y)


@pytest.mark.parametrize("lib", ["pandas", "polars"])
@pytest.mark.parametrize("estimator", ESTIMATORS, ids=repr)
def test_text_values_at_prediction_time_are_named(lib, estimator):
    X, y = _data()
    est = clone(estimator).fit(_frame(lib, X), y)
    frame = _frame(lib, X)
    if lib == "pandas":
        frame = frame.assign(height=["tall"] * X.shape[0])
    else:
        frame = frame.with_columns(pl.lit("tall").alias("height"))
    with pytest.raises(ValueError, match="not numbers: 'height'"):
        _output(est, frame)


# --------------------------------------------------------------------------------------
# Column names: the checks of scikit-learn's validate_data


def _sklearn_error(X_fit, X_new):
    """The message of scikit-learn's own estimator for the same column change."""
    with pytest.raises(ValueError) as info:
        StandardScaler().fit(X_fit).transform(X_new)
    return str(info.value)


def _changed(lib, frame, change):
    if change == "reordered":
        order = [COLUMNS[1], COLUMNS[0], *COLUMNS[2:]]
        return frame[order] if lib == "pandas" else frame.select(order)
    if change == "renamed":
        return (
            frame.rename(columns={"age": "years"})
            if lib == "pandas"
            else frame.rename({"age": "years"})
        )
    extra = np.zeros(frame.shape[0])
    return frame.assign(extra=extra) if lib == "pandas" else frame.with_columns(extra=extra)


@pytest.mark.parametrize("change", ["reordered", "renamed", "extra"])
@pytest.mark.parametrize("lib", ["pandas", "polars"])
@pytest.mark.parametrize("estimator", ESTIMATORS, ids=repr)
def test_changed_columns_raise_scikit_learns_error(estimator, lib, change):
    X, y = _data()
    frame = _frame(lib, X)
    est = clone(estimator).fit(frame, y)
    new = _changed(lib, frame, change)
    with pytest.raises(ValueError) as info:
        _output(est, new)
    assert str(info.value) == _sklearn_error(frame, new)
    if hasattr(est, "predict"):
        with pytest.raises(ValueError, match="feature names should match"):
            est.predict(new)


@pytest.mark.parametrize("estimator", ESTIMATORS, ids=repr)
def test_array_after_frame_and_frame_after_array_warn(estimator):
    X, y = _data()
    frame = _frame("pandas", X)
    est = clone(estimator).fit(frame, y)
    name = type(estimator).__name__
    with pytest.warns(UserWarning, match=f"X does not have valid feature names, but {name}"):
        from_array = _output(est, X)
    _same_bits(from_array, _output(est, frame))
    est = clone(estimator).fit(X, y)
    with pytest.warns(UserWarning, match=f"X has feature names, but {name} was fitted without"):
        _output(est, frame)


def test_partial_fit_checks_the_names_of_every_batch():
    X, y = _data()
    frame = _frame("pandas", X)
    est = PegasosClassifier(random_state=0).partial_fit(frame[:30], y[:30], classes=[0, 1, 2])
    coef = est.coef_.copy()
    with pytest.raises(ValueError, match="same order as they were in fit"):
        est.partial_fit(_changed("pandas", frame, "reordered")[30:], y[30:])
    _same_bits(est.coef_, coef)  # the failed call changed nothing
    est.partial_fit(frame[30:], y[30:])
    again = PegasosClassifier(random_state=0).partial_fit(X[:30], y[:30], classes=[0, 1, 2])
    _same_bits(est.coef_, again.partial_fit(X[30:], y[30:]).coef_)


def test_warm_start_refit_on_other_columns_raises():
    X, y = _data()
    frame = _frame("pandas", X)
    est = PegasosClassifier(random_state=0, warm_start=True, max_iter=2).fit(frame, y)
    with pytest.raises(ValueError, match="Feature names unseen at fit time"):
        est.fit(_changed("pandas", frame, "renamed"), y)


def test_non_string_column_names_give_no_feature_names():
    X, y = _data()
    est = PegasosClassifier(random_state=0).fit(pd.DataFrame(X), y)  # columns 0, 1, ...
    assert not hasattr(est, "feature_names_in_")
    _same_bits(est.coef_, PegasosClassifier(random_state=0).fit(X, y).coef_)


# --------------------------------------------------------------------------------------
# get_feature_names_out and set_output


def test_feature_names_out_of_the_maps():
    X, _ = _data()
    frame = _frame("pandas", X)
    rff = RandomFourierFeatures(n_components=5, random_state=0).fit(frame)
    assert rff.get_feature_names_out().tolist() == [f"randomfourierfeatures{i}" for i in range(5)]
    ny = Nystroem(n_components=4, random_state=0).fit(frame)
    assert ny.get_feature_names_out().tolist() == [f"nystroem{i}" for i in range(4)]
    akm = AdditiveKernelMap(order=2).fit(frame)
    parts = ["sqrt", "cos1", "sin1", "cos2", "sin2"]
    expected = [f"additivekernelmap_{c}_{p}" for c in COLUMNS for p in parts]
    assert akm.get_feature_names_out().tolist() == expected
    # Without names, x0, x1, ... (as scikit-learn's AdditiveChi2Sampler).
    names = AdditiveKernelMap(order=0).fit(X).get_feature_names_out()
    assert names.tolist() == [f"additivekernelmap_x{i}_sqrt" for i in range(len(COLUMNS))]
    with pytest.raises(ValueError, match="input_features is not equal to feature_names_in_"):
        akm.get_feature_names_out(["a", "b", "c", "d"])


def test_additive_map_names_follow_scikit_learns_sampler():
    """The same names as AdditiveChi2Sampler (sample_steps = order + 1), and the
    columns so named hold the same values, up to rounding."""
    X, _ = _data()
    frame = _frame("pandas", X)
    theirs = AdditiveChi2Sampler(sample_steps=3, sample_interval=0.4)
    b = theirs.set_output(transform="pandas").fit_transform(frame)
    b.columns = [c.replace("additivechi2sampler", "additivekernelmap") for c in b.columns]
    ours = AdditiveKernelMap(order=2, period=2 * np.pi / 0.4).set_output(transform="pandas")
    a = ours.fit_transform(frame)
    assert sorted(a.columns) == sorted(b.columns)
    pd.testing.assert_frame_equal(a, b[a.columns], rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("transformer", TRANSFORMERS, ids=repr)
def test_set_output_pandas_keeps_the_index(transformer):
    X, _ = _data()
    index = pd.Index([f"row{i}" for i in range(X.shape[0])], name="id")
    frame = _frame("pandas", X, index=index)
    est = clone(transformer).set_output(transform="pandas").fit(frame)
    out = est.transform(frame)
    assert isinstance(out, pd.DataFrame)
    assert out.columns.tolist() == est.get_feature_names_out().tolist()
    pd.testing.assert_index_equal(out.index, index)
    _same_bits(out.to_numpy(), clone(transformer).fit(X).transform(X))
    _same_bits(est.fit_transform(frame).to_numpy(), out.to_numpy())


@pytest.mark.parametrize("transformer", TRANSFORMERS, ids=repr)
def test_set_output_polars(transformer):
    X, _ = _data()
    est = clone(transformer).set_output(transform="polars")
    out = est.fit(_frame("polars", X)).transform(_frame("polars", X))
    assert isinstance(out, pl.DataFrame)
    assert out.columns == est.get_feature_names_out().tolist()
    _same_bits(out.to_numpy(), clone(transformer).fit(X).transform(X))
    # From a numpy array too.
    assert isinstance(clone(est).fit_transform(X), pl.DataFrame)


@pytest.mark.parametrize("lib", ["pandas", "polars"])
def test_global_transform_output_config(lib):
    X, _ = _data()
    with sklearn.config_context(transform_output=lib):
        for transformer in TRANSFORMERS:
            out = clone(transformer).fit_transform(X)
            assert type(out).__module__.split(".")[0] == lib
            assert list(out.columns) == transformer.fit(X).get_feature_names_out().tolist()


@pytest.mark.parametrize("lib", ["pandas", "polars"])
@pytest.mark.parametrize("transformer", TRANSFORMERS, ids=repr)
def test_pipeline_with_set_output(lib, transformer):
    X, y = _data()
    frame = _frame(lib, X)
    pipe = make_pipeline(clone(transformer), PegasosClassifier(random_state=0, max_iter=3))
    pipe.set_output(transform=lib).fit(frame, y)
    svm = pipe[-1]
    np.testing.assert_array_equal(svm.feature_names_in_, pipe[0].get_feature_names_out())
    np.testing.assert_array_equal(pipe.feature_names_in_, COLUMNS)
    plain = make_pipeline(clone(transformer), PegasosClassifier(random_state=0, max_iter=3))
    plain.fit(X, y)
    _same_bits(svm.coef_, plain[-1].coef_)
    _same_bits(pipe.decision_function(frame), plain.decision_function(X))
    with pytest.raises(ValueError, match="feature names should match"):
        pipe.predict(_changed(lib, frame, "reordered"))


def test_pipeline_under_global_pandas_output():
    X, y = _data()
    frame = _frame("pandas", X)
    with sklearn.config_context(transform_output="pandas"):
        pipe = make_pipeline(
            Nystroem(n_components=6, random_state=0),
            KernelPegasosClassifier(kernel="linear", random_state=0),
        ).fit(frame, y)
        assert pipe[-1].feature_names_in_.tolist() == [f"nystroem{i}" for i in range(6)]
        assert isinstance(pipe[:-1].transform(frame), pd.DataFrame)
        scores = pipe.decision_function(frame)
    plain = make_pipeline(
        Nystroem(n_components=6, random_state=0),
        KernelPegasosClassifier(kernel="linear", random_state=0),
    ).fit(X, y)
    _same_bits(scores, plain.decision_function(X))


@pytest.mark.parametrize("how", ["pandas", "polars", "global"])
def test_sparse_features_refuse_frame_output_as_scikit_learn(how):
    X, _ = _data()
    S = sp.csr_matrix(np.where(X > 0.5, X, 0.0))
    messages = []
    for est in (AdditiveKernelMap(), AdditiveChi2Sampler()):
        if how == "global":
            context = sklearn.config_context(transform_output="pandas")
        else:
            est.set_output(transform=how)
            context = warnings.catch_warnings()
        with context, pytest.raises(ValueError, match="outputs a scipy sparse matrix") as info:
            est.fit(S).transform(S)
        messages.append(str(info.value))
    assert messages[0] == messages[1]
    # Dense input gives dense features, which can be a frame.
    with sklearn.config_context(transform_output="pandas"):
        assert isinstance(AdditiveKernelMap().fit_transform(X), pd.DataFrame)


# --------------------------------------------------------------------------------------
# Model files


def _rewrite_header(path, edit):
    """Rewrite a model file's JSON header with ``edit`` (and a valid checksum)."""
    raw = path.read_bytes()
    start = 8 + 12
    (hlen,) = struct.unpack_from("<Q", raw, 12)
    header = json.loads(raw[start : start + hlen])
    edit(header)
    text = json.dumps(header).encode()
    body = raw[:8] + struct.pack("<IQ", 1, len(text)) + text + raw[start + hlen : -4]
    with open(path, "wb") as f:
        f.write(body + struct.pack("<I", zlib.crc32(body)))


@pytest.mark.parametrize("estimator", CLASSIFIERS, ids=repr)
def test_model_file_keeps_feature_names(estimator, tmp_path):
    X, y = _data()
    frame = _frame("pandas", X)
    labels = pd.Series(np.array(["low", "mid", "high"])[y])  # string labels of a frame
    est = clone(estimator).fit(frame, labels)
    path = tmp_path / "model.pegasos"
    est.save(path)
    back = load(path)
    np.testing.assert_array_equal(back.feature_names_in_, COLUMNS)
    assert back.feature_names_in_.dtype == object
    np.testing.assert_array_equal(back.classes_, est.classes_)
    np.testing.assert_array_equal(back.predict(frame), est.predict(frame))
    _same_bits(back.decision_function(frame), est.decision_function(frame))
    with pytest.raises(ValueError, match="same order as they were in fit"):
        back.predict(_changed("pandas", frame, "reordered"))
    # A model fitted on an array writes no names (its file is as before).
    est = clone(estimator).fit(X, y)
    est.save(path)
    assert b"feature_names_in_" not in path.read_bytes()
    assert not hasattr(load(path), "feature_names_in_")


@pytest.mark.parametrize(
    "names", [["a", "b"], ["a", "b", "c", 4], "abcd", None], ids=["short", "int", "str", "null"]
)
def test_model_file_with_bad_feature_names_is_refused(names, tmp_path):
    X, y = _data()
    path = tmp_path / "model.pegasos"
    PegasosClassifier(random_state=0).fit(_frame("pandas", X), y).save(path)
    _rewrite_header(path, lambda header: header["scalars"].update(feature_names_in_=names))
    message = "feature_names_in_ must be a list of strings|one feature name per feature"
    with pytest.raises(DataFormatError, match=message):
        load(path)


# --------------------------------------------------------------------------------------
# scikit-learn's checks that need pandas or polars


def _run(check, estimator):
    """Run a scikit-learn check; a skip (pandas or polars missing) is a failure."""
    try:
        check(type(estimator).__name__, clone(estimator))
    except SkipTest as e:
        pytest.fail(f"{check.__name__} was skipped: {e}")


_TRANSFORMER_CHECKS = [
    "check_transformer_get_feature_names_out",
    "check_transformer_get_feature_names_out_pandas",
    "check_get_feature_names_out_error",
    "check_set_output_transform",
    "check_set_output_transform_pandas",
    "check_global_output_transform_pandas",
    "check_set_output_transform_polars",
    "check_global_set_output_transform_polars",
]

_DATAFRAME_CHECKS = [
    (est, "check_dataframe_column_names_consistency")
    for est in [*ESTIMATORS, KernelPegasosClassifier(kernel="precomputed"), *REGRESSORS]
] + [
    (est, check)
    for est in [*TRANSFORMERS, Nystroem(kernel="precomputed", n_components=5)]
    for check in _TRANSFORMER_CHECKS
]


@pytest.mark.parametrize(
    ("estimator", "check"), _DATAFRAME_CHECKS, ids=[f"{e!r}-{c}" for e, c in _DATAFRAME_CHECKS]
)
def test_scikit_learn_dataframe_checks(estimator, check):
    """The checks scikit-learn runs on its own estimators outside
    ``parametrize_with_checks`` (its test_common.py)."""
    with warnings.catch_warnings():
        # The set_output checks fit on a frame and transform an array (and the other
        # way round) on purpose.
        warnings.filterwarnings("ignore", message="X does not have valid feature names")
        warnings.filterwarnings("ignore", message="X has feature names, but")
        _run(getattr(estimator_checks, check), estimator)


_PANDAS_CHECKS = [(est, "check_sample_weights_pandas_series") for est in CLASSIFIERS]
_PANDAS_CHECKS += [(est, "check_classifier_data_not_an_array") for est in CLASSIFIERS]
_PANDAS_CHECKS += [(est, "check_transformer_data_not_an_array") for est in TRANSFORMERS]
_PANDAS_CHECKS += [(est, "check_sample_weights_pandas_series") for est in REGRESSORS]
_PANDAS_CHECKS += [(est, "check_regressor_data_not_an_array") for est in REGRESSORS]


@pytest.mark.parametrize(
    ("estimator", "check"), _PANDAS_CHECKS, ids=[f"{e!r}-{c}" for e, c in _PANDAS_CHECKS]
)
def test_pandas_checks_of_parametrize_with_checks_are_not_skipped(estimator, check):
    """These run in the estimator test files too, where a missing pandas would only
    show as a skip; here it fails (pandas is in the ``test`` extra)."""
    _run(getattr(estimator_checks, check), estimator)
