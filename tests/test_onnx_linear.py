"""ONNX export of PegasosClassifier and PegasosRegressor, checked against onnxruntime
(float32 inference: labels on >= 99.9 % of rows, scores within 1e-4 relative)."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

pytest.importorskip("onnx")
pytest.importorskip("skl2onnx")
pytest.importorskip("onnxruntime")

import pegasos_rs
from conftest import make_problem, require_data
from onnx_checks import (
    assert_labels,
    assert_values,
    check_classifier,
    classifier_reference,
    run,
)
from pegasos_rs import PegasosClassifier, PegasosRanker, PegasosRegressor
from sklearn.exceptions import NotFittedError

LOSSES = ("hinge", "log_loss", "squared_hinge", "modified_huber")
REGRESSION_LOSSES = ("epsilon_insensitive", "squared_epsilon_insensitive", "squared_error", "huber")
NO_ZIPMAP = {"zipmap": False}


def _problem(n_classes: int, sparse: bool, seed: int = 0):
    X, y = make_problem(n_samples=300, n_features=12, n_classes=n_classes, seed=seed)
    return (sp.csr_matrix(X) if sparse else X), y


def _models():
    """Every loss, multiclass mode and probability setting the classifier accepts."""
    for loss in LOSSES:
        for multi_class in ("ovr", "ovr_shared", "crammer_singer"):
            for probability in (False, True):
                if multi_class == "crammer_singer" and (loss != "hinge" or probability):
                    continue  # refused by fit itself
                yield loss, multi_class, probability


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "sparse"])
@pytest.mark.parametrize("n_classes", [2, 4])
@pytest.mark.parametrize(("loss", "multi_class", "probability"), list(_models()))
def test_classifier_matches_onnxruntime(loss, multi_class, probability, n_classes, sparse):
    X, y = _problem(n_classes, sparse)
    model = PegasosClassifier(
        loss=loss, multi_class=multi_class, probability=probability, random_state=0, max_iter=5
    ).fit(X, y)
    onx = pegasos_rs.to_onnx(model, X[:1], options=NO_ZIPMAP, dtype=np.float32)
    check_classifier(model, onx, X)
    label, second = run(onx, X)
    assert label.dtype == np.int64 and label.shape == (X.shape[0],)
    assert second.dtype == np.float32 and second.shape == (X.shape[0], n_classes)
    if hasattr(model, "predict_proba"):
        np.testing.assert_allclose(second.sum(axis=1), 1.0, rtol=1e-5)


@pytest.mark.parametrize("loss", ["log_loss", "modified_huber"])
def test_raw_scores_option_gives_decision_values(loss):
    X, y = _problem(3, sparse=False)
    model = PegasosClassifier(loss=loss, random_state=0, max_iter=5).fit(X, y)
    onx = pegasos_rs.to_onnx(
        model, X, options={"zipmap": False, "raw_scores": True}, dtype=np.float32
    )
    label, scores = run(onx, X)
    assert_labels(label, model.predict(X))
    assert_values(scores, model.decision_function(X))


def test_binary_scores_are_minus_f_and_f():
    X, y = _problem(2, sparse=False)
    model = PegasosClassifier(random_state=0, max_iter=5).fit(X, y)
    _, scores = run(pegasos_rs.to_onnx(model, X, options=NO_ZIPMAP, dtype=np.float32), X)
    f = model.decision_function(X)
    assert_values(scores[:, 1], f)
    assert_values(scores[:, 0], -f)


def test_labels_follow_the_scores_not_the_platt_probabilities():
    """``predict`` is the largest score; Platt's sigmoids (one per class, fitted on
    held-out folds) may order classes differently: the graph's label is predict's."""
    X, y = make_problem(n_samples=400, n_features=10, n_classes=4, noise=2.0, seed=3)
    model = PegasosClassifier(probability=True, random_state=0, max_iter=3).fit(X, y)
    label, proba = run(pegasos_rs.to_onnx(model, X, options=NO_ZIPMAP, dtype=np.float32), X)
    assert np.array_equal(label, model.predict(X))
    assert_values(proba, model.predict_proba(X))


def test_string_and_signed_labels():
    X, y = _problem(3, sparse=False)
    names = np.array(["cat", "dog", "émeu"])[y]
    model = PegasosClassifier(random_state=0, max_iter=5).fit(X, names)
    label, _ = run(pegasos_rs.to_onnx(model, X, options=NO_ZIPMAP, dtype=np.float32), X)
    assert label.dtype == object
    assert_labels(label, model.predict(X))
    signed = PegasosClassifier(random_state=0, max_iter=5).fit(X[y < 2], 2.0 * y[y < 2] - 1)
    label, _ = run(pegasos_rs.to_onnx(signed, X, options=NO_ZIPMAP, dtype=np.float32), X)
    assert set(np.unique(label)) <= {-1, 1}
    assert_labels(label, signed.predict(X))


def test_zipmap_by_default():
    """skl2onnx's default: probabilities as a list of {class: probability}."""
    X, y = _problem(3, sparse=False)
    model = PegasosClassifier(loss="log_loss", random_state=0, max_iter=5).fit(X, y)
    _, maps = run(pegasos_rs.to_onnx(model, X[:1], dtype=np.float32), X[:5])
    assert isinstance(maps, list) and sorted(maps[0]) == [0, 1, 2]
    proba = model.predict_proba(X[:5])
    assert_values([[m[c] for c in (0, 1, 2)] for m in maps], proba)
    # float classes that are integers (svmlight files' -1.0 / +1.0): int64 keys
    X2, y2 = _problem(2, sparse=False)
    signed = PegasosClassifier(loss="log_loss", random_state=0, max_iter=5)
    signed.fit(X2, 2.0 * y2 - 1.0)
    label, maps = run(pegasos_rs.to_onnx(signed, X2[:1], dtype=np.float32), X2[:5])
    assert sorted(maps[0]) == [-1, 1]
    assert_labels(label, signed.predict(X2[:5]).astype(np.int64))
    assert_values([[m[-1], m[1]] for m in maps], signed.predict_proba(X2[:5]))


@pytest.mark.parametrize("probability", [False, True])
@pytest.mark.parametrize("loss", LOSSES)
@pytest.mark.parametrize("n_classes", [2, 3])
def test_double_input_computes_in_float64(n_classes, loss, probability):
    X, y = _problem(n_classes, sparse=False)
    model = PegasosClassifier(loss=loss, probability=probability, random_state=0, max_iter=5)
    model.fit(X, y)
    onx = pegasos_rs.to_onnx(model, X, dtype=np.float64, options=NO_ZIPMAP)
    label, second = run(onx, X, dtype=np.float64)
    assert second.dtype == np.float64
    assert np.array_equal(label, model.predict(X))
    np.testing.assert_allclose(second, classifier_reference(model, X), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "sparse"])
@pytest.mark.parametrize("loss", REGRESSION_LOSSES)
def test_regressor_matches_onnxruntime(loss, sparse):
    X, _ = _problem(2, sparse)
    rng = np.random.RandomState(0)
    y = np.asarray(X @ rng.randn(X.shape[1])).ravel() + 0.1 * rng.randn(X.shape[0]) + 3.0
    model = PegasosRegressor(loss=loss, random_state=0, max_iter=5).fit(X, y)
    (out,) = run(pegasos_rs.to_onnx(model, X[:1], dtype=np.float32), X)
    assert out.shape == (X.shape[0], 1) and out.dtype == np.float32
    assert_values(out.ravel(), model.predict(X))
    (out64,) = run(pegasos_rs.to_onnx(model, X, dtype=np.float64), X, dtype=np.float64)
    np.testing.assert_allclose(out64.ravel(), model.predict(X), rtol=1e-12, atol=1e-12)


def _input_type(onx) -> int:
    """The element type of the graph's input ``X`` (onnx.TensorProto's codes)."""
    return onx.graph.input[0].type.tensor_type.elem_type


def test_the_input_type_is_the_samples_as_in_skl2onnx():
    """``to_onnx(model, X)`` types the graph's input as skl2onnx's ``to_onnx`` does
    from a numpy sample: float64 rows give a float64 graph, float32 rows a float32
    one (sparse rows too); ``dtype`` overrides it, and without a float sample the
    input is float32."""
    import skl2onnx
    from onnx import TensorProto
    from sklearn.preprocessing import StandardScaler

    X, y = _problem(2, sparse=False)
    model = PegasosClassifier(random_state=0, max_iter=2).fit(X, y)
    scaler = StandardScaler().fit(X)
    X32 = X.astype(np.float32)
    for rows in (X[:1], X32[:1]):
        theirs = _input_type(skl2onnx.to_onnx(scaler, rows))
        assert _input_type(pegasos_rs.to_onnx(model, rows)) == theirs
    double, single = TensorProto.DOUBLE, TensorProto.FLOAT
    for rows, dtype, expected in [
        (X[:1], None, double),
        (sp.csr_matrix(X[:1]), None, double),
        (sp.csr_matrix(X32[:1]), None, single),
        (X[:1], np.float32, single),
        (X32[:1], np.float64, double),
        (None, None, single),
        (X[:1].astype(np.int64), None, single),
        (X[:1].tolist(), None, single),
    ]:
        assert _input_type(pegasos_rs.to_onnx(model, rows, dtype=dtype)) == expected
    # A float64 graph reads float64 rows and gives predict's labels.
    label, _ = run(pegasos_rs.to_onnx(model, X[:1], options=NO_ZIPMAP), X, dtype=np.float64)
    assert np.array_equal(label, model.predict(X))


@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("kernel", [False, True], ids=["linear", "kernel"])
def test_a_float64_graph_zips_its_probabilities_as_float32(kernel, n_classes):
    """ai.onnx.ml's ZipMap reads float32 only (skl2onnx's own classifiers make an
    invalid graph of a float64 input with the default ``zipmap=True``): a float64
    graph computes in float64, its labels are predict's, and its probabilities are
    rounded to float32 for the maps."""
    X, y = _problem(n_classes, sparse=False)
    cls = pegasos_rs.KernelPegasosClassifier if kernel else PegasosClassifier
    model = cls(loss="modified_huber", random_state=0, max_iter=2).fit(X, y)
    label, maps = run(pegasos_rs.to_onnx(model, X[:1]), X, dtype=np.float64)
    assert np.array_equal(label, model.predict(X))
    proba = [[m[c] for c in range(n_classes)] for m in maps]
    np.testing.assert_allclose(proba, model.predict_proba(X), rtol=1e-6, atol=1e-7)
    for zipmap in (False, "columns"):  # no ZipMap: float64 throughout
        onx = pegasos_rs.to_onnx(model, X[:1], options={"zipmap": zipmap})
        assert all(o.type.tensor_type.elem_type != 1 for o in onx.graph.output[1:])


# -- refusals: by name, with the reason ------------------------------------------


@pytest.mark.parametrize("cls", [PegasosClassifier, PegasosRegressor])
def test_unfitted_model_is_refused(cls):
    with pytest.raises(NotFittedError, match=f"{cls.__name__} cannot be exported.*not fitted"):
        pegasos_rs.to_onnx(cls(), np.zeros((1, 3)))


def test_probability_without_sigmoids_is_refused():
    """A model fitted with probability=True whose sigmoids are gone (a damaged
    object) is refused; probability=True set after a fit without it changes nothing."""
    X, y = _problem(2, sparse=False)
    model = PegasosClassifier(random_state=0, max_iter=2, probability=True).fit(X, y)
    del model.probA_
    with pytest.raises(ValueError, match=r"PegasosClassifier cannot be exported.*sigmoids"):
        pegasos_rs.to_onnx(model, X)
    plain = PegasosClassifier(random_state=0, max_iter=2).fit(X, y).set_params(probability=True)
    assert pegasos_rs.to_onnx(plain, X) is not None


def test_non_integer_float_classes_are_refused():
    X, y = _problem(2, sparse=False)
    model = PegasosClassifier(random_state=0, max_iter=2).fit(X, y)
    model.classes_ = np.array([0.5, 1.5])  # scikit-learn's check refuses such labels in fit
    with pytest.raises(ValueError, match="classes are floats that are not integers"):
        pegasos_rs.to_onnx(model, X)


def test_ranker_is_refused_by_name():
    X, y = _problem(2, sparse=False)
    ranker = PegasosRanker(random_state=0, max_iter=2).fit(X, y, qid=np.repeat([0, 1, 2], 100))
    with pytest.raises(TypeError, match="PegasosRanker cannot be exported to ONNX"):
        pegasos_rs.to_onnx(ranker, X)


def test_inputs_are_checked():
    X, y = _problem(2, sparse=False)
    model = PegasosClassifier(random_state=0, max_iter=2).fit(X, y)
    with pytest.raises(
        ValueError, match="X has 11 features, but PegasosClassifier is expecting 12"
    ):
        pegasos_rs.to_onnx(model, X[:, :-1])
    with pytest.raises(ValueError, match="X has 13 features"):
        pegasos_rs.to_onnx(model, n_features=13)
    with pytest.raises(TypeError, match="dtype must be float32 or float64"):
        pegasos_rs.to_onnx(model, X, dtype=np.int32)
    with pytest.raises(ValueError, match="2-d"):
        pegasos_rs.to_onnx(model, X[0])
    with pytest.raises(ValueError, match="needs opset 13"):
        pegasos_rs.to_onnx(model, X, target_opset=12)
    with pytest.raises(TypeError, match=r"LinearSVC cannot be exported.*no converter"):
        from sklearn.svm import LinearSVC

        class LinearSVC(LinearSVC):  # a pegasos-rs-looking class skl2onnx does not know
            __module__ = "pegasos_rs.fake"

        pegasos_rs.to_onnx(LinearSVC().fit(X, y), X)


def test_width_comes_from_the_model_without_rows():
    X, y = _problem(2, sparse=False)
    model = PegasosClassifier(random_state=0, max_iter=2).fit(X, y)
    check_classifier(model, pegasos_rs.to_onnx(model, options=NO_ZIPMAP), X)


# -- the benchmark sets (PEGASOS_DATA): the acceptance checks ---------------


@pytest.mark.parametrize("loss", ["hinge", "log_loss"])
def test_a9a_test_rows(loss):
    X, y, Xt, _ = require_data("a9a")
    model = PegasosClassifier(loss=loss, alpha=1e-4, max_iter=5, random_state=0).fit(X, y)
    check_classifier(
        model, pegasos_rs.to_onnx(model, X[:1], options=NO_ZIPMAP, dtype=np.float32), Xt
    )


def test_usps_test_rows():
    X, y, Xt, _ = require_data("usps")
    model = PegasosClassifier(alpha=1e-4, max_iter=5, random_state=0).fit(X, y)
    check_classifier(
        model, pegasos_rs.to_onnx(model, X[:1], options=NO_ZIPMAP, dtype=np.float32), Xt
    )


@pytest.mark.parametrize("name", ["cpusmall", "abalone"])
def test_regression_sets_test_rows(name):
    X, y, Xt, _ = require_data(name)
    model = PegasosRegressor(alpha=1e-5, max_iter=5, random_state=0).fit(X, y)
    (out,) = run(pegasos_rs.to_onnx(model, X[:1], dtype=np.float32), Xt)
    assert_values(out.ravel(), model.predict(Xt))


@pytest.mark.parametrize("search", ["exact", "halving"])
def test_a_cross_validated_search_exports_its_refit_model(search):
    """The graph of a search is its refit model's: its labels agree with the true
    labels as well as the search's own predictions do (a reference the export
    cannot share), and its scores are the refit model's."""
    from pegasos_rs import PegasosClassifierCV, PegasosRegressorCV
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    X, y = _problem(3, sparse=False, seed=4)
    cv = PegasosClassifierCV(alphas=[1e-1, 1e-2, 1e-3], cv=3, search=search, random_state=0)
    cv.set_params(loss="log_loss").fit(X, y)
    options = {PegasosClassifier: NO_ZIPMAP}  # keyed by the refit model's class
    onx = pegasos_rs.to_onnx(cv, X[:1], dtype=np.float32, options=options)
    check_classifier(cv, onx, X)
    label, _ = run(onx, X)
    assert np.mean(label == y) == pytest.approx(np.mean(cv.predict(X) == y), abs=0.01)
    # or keyed by the search's class, as skl2onnx.to_onnx takes them
    onx = pegasos_rs.to_onnx(cv, X[:1], dtype=np.float32, options={type(cv): NO_ZIPMAP})
    check_classifier(cv, onx, X)
    pipe = make_pipeline(StandardScaler(), PegasosRegressorCV(alphas=[1e-2, 1e-3], cv=3))
    pipe.fit(X, y.astype(float))
    (values,) = run(pegasos_rs.to_onnx(pipe, X[:1], dtype=np.float32), X)
    assert_values(values.ravel(), pipe.predict(X))
    with pytest.raises(ValueError, match="refit=False"):
        pegasos_rs.to_onnx(PegasosClassifierCV(alphas=[0.1], cv=3, refit=False).fit(X, y), X)


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "sparse"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_one_class_matches_onnxruntime_and_skl2onnx_s_own_converter(sparse, dtype):
    from skl2onnx import to_onnx as skl_to_onnx
    from sklearn.linear_model import SGDOneClassSVM

    X, _ = _problem(2, sparse)
    est = pegasos_rs.PegasosOneClassSVM(nu=0.2, random_state=0).fit(X)
    label, scores = run(pegasos_rs.to_onnx(est, X, dtype=dtype), X, dtype)
    assert label.dtype == np.int64 and label.shape == scores.shape == (X.shape[0],)
    decision = est.decision_function(X)
    if dtype == np.float64:
        np.testing.assert_allclose(scores, decision, rtol=1e-12, atol=1e-12)
        np.testing.assert_array_equal(label, est.predict(X))  # 1 at a score of 0 too
    else:
        assert_values(scores, decision)
        assert_labels(label, est.predict(X))
    # A reference that cannot share a defect of ours: skl2onnx's converter of
    # SGDOneClassSVM given the same coef_ and offset_ (its label is the sign of the
    # score, 0 where the score is 0, where predict gives 1).
    ref = SGDOneClassSVM(nu=0.2, max_iter=1).fit(X.toarray() if sparse else X)
    ref.coef_, ref.offset_ = est.coef_.ravel().copy(), est.offset_.copy()
    dense = X.toarray() if sparse else X
    ref_label, ref_scores = run(skl_to_onnx(ref, dense.astype(dtype)), X, dtype)
    assert_values(scores, np.asarray(ref_scores).ravel())
    nonzero = np.asarray(ref_scores).ravel() != 0
    np.testing.assert_array_equal(label[nonzero], np.asarray(ref_label)[nonzero])
