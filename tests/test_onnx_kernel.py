"""ONNX export of KernelPegasosClassifier and KernelPegasosRegressor (issue 29):
onnxruntime against the model on float32 inference, for every kernel, dense- and
sparse-trained, binary and multiclass, one-vs-rest and one-vs-one, with and without
the ai.onnx.ml SVM operators; the refusals; and usps / cpusmall when the shared
data is there.

Tolerances. The model computes in float64 on the float32 rows the graph reads; the
graph computes in float32. Labels must agree on >= 99.9 % of the rows. A decision
value ``f = sum_i c_i K(x, s_i) + b`` summed in float32 carries an error relative
to the sum of its terms' magnitudes, ``scale = sum_i |c_i K(x, s_i)| + |b|`` (about
``sqrt(n_SV) * 6e-8`` of it; usps' 1900 support vectors measured 7e-7), not to
``|f|``, which cancellation can make as small as it likes. So a score must be
within 1e-4 of ``|f|``, relative, with an absolute floor of a tenth of ``scale``:
``|onnx - f| <= 1e-4 * max(|f|, 0.1 * scale)``, i.e. at most ``1e-5 * scale``. The
per-class scores of one-vs-one models add the pairs' votes to their confidences:
those compare the same way with the summed scales of the class's pairs, on the rows
where no pair's value is within its own tolerance of 0 (where float32 may vote the
other way; such rows count against the 0.1 % of labels). Probabilities lie in
[0, 1]: within 1e-4 relative with an absolute floor of 1e-5.
"""

from __future__ import annotations

import numpy as np
import pegasos_rs
import pytest
import scipy.sparse as sp
from conftest import require_data
from pegasos_rs import KernelPegasosClassifier, KernelPegasosRegressor
from pegasos_rs.pairwise import pairwise_kernels
from sklearn.datasets import make_classification
from sklearn.exceptions import NotFittedError
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import MinMaxScaler

ort = pytest.importorskip("onnxruntime")
skl2onnx = pytest.importorskip("skl2onnx")
pytest.importorskip("onnx")

KERNELS = ["linear", "rbf", "poly", "sigmoid", "chi2", "intersection"]
RTOL = 1e-4
FLOOR = 0.1
PROBA_ATOL = 1e-5
LABELS = 0.999


# ------------------------------------------------------------------------ helpers


def _problem(n_classes: int, sparse: bool, seed: int = 0):
    """Non-negative rows (the additive kernels need them), train and test; the
    sparse variant has about half its entries zero (some columns of a row and of a
    support vector both zero: chi2's 0/0 terms)."""
    X, y = make_classification(
        n_samples=500,
        n_features=8,
        n_informative=6,
        n_redundant=0,
        n_classes=n_classes,
        random_state=seed,
    )
    X = np.abs(X)
    if sparse:
        X[X < np.median(X)] = 0.0
    X_train, y_train, X_test = X[:350], y[:350], X[350:].astype(np.float32)
    return (sp.csr_matrix(X_train) if sparse else X_train), y_train, X_test


def _run(model, X32, **to_onnx_args):
    """onnxruntime's outputs (a list) for ``model`` exported by pegasos_rs.to_onnx."""
    onx = pegasos_rs.to_onnx(model, X32[:1], **to_onnx_args)
    session = ort.InferenceSession(onx.SerializeToString(), providers=["CPUExecutionProvider"])
    return session.run(None, {"X": X32}), onx


def _scale(model, X):
    """``sum_i |c_i K(x, s_i)| + |b|`` per row and problem, in float64."""
    K = pairwise_kernels(
        np.asarray(X, dtype=np.float64),
        model.support_vectors_,
        metric=model.kernel,
        filter_params=True,
        gamma=model._gamma,
        degree=model.degree,
        coef0=model.coef0,
    )
    return np.abs(K) @ np.abs(model.dual_coef_).T + np.abs(model.intercept_)


def _bound(ref, scale):
    return RTOL * np.maximum(np.abs(ref), FLOOR * scale)


def _assert_within(got, ref, scale, what=""):
    got = np.asarray(got, dtype=np.float64)
    assert got.shape == ref.shape, (what, got.shape, ref.shape)
    excess = np.abs(got - ref) - _bound(ref, scale)
    worst = np.unravel_index(np.argmax(excess), excess.shape)
    assert excess[worst] <= 0, (
        f"{what}: |onnx - model| = {abs(got[worst] - ref[worst]):.3g} at {worst} "
        f"(model {ref[worst]:.6g}, scale {np.broadcast_to(scale, ref.shape)[worst]:.3g})"
    )


def _assert_labels(got, ref):
    agree = np.mean(np.asarray(got) == np.asarray(ref))
    assert agree >= LABELS, f"labels agree on {agree:.4%} of the rows"


def _pair_matrix(n_classes):
    pairs = [(i, j) for i in range(n_classes) for j in range(i + 1, n_classes)]
    member = np.zeros((len(pairs), n_classes))
    for p, (i, j) in enumerate(pairs):
        member[p, [i, j]] = 1.0
    return member


def _check_scores(model, X32, scores):
    """The classifier's score output against ``decision_function`` (two columns
    ``[-f, f]`` for two classes), with the tolerance of the module docstring."""
    ref = model.decision_function(X32)
    scale = _scale(model, X32)
    n_classes = len(model.classes_)
    if n_classes == 2:
        _assert_within(scores, np.column_stack([-ref, ref]), np.hstack([scale, scale]), "f")
        return
    if model.multi_class_ == "ovr" or model.decision_function_shape == "ovo":
        _assert_within(scores, ref, scale, "scores")
        return
    # Per-class scores of the pairs: votes (the nearest integer) plus confidences.
    # Rows where float32 voted otherwise (a pair's value within rounding of 0) are
    # left out; there may be as many as labels may differ.
    flipped = (np.round(scores) != np.round(ref)).any(axis=1)
    assert flipped.mean() <= 1 - LABELS, f"votes differ on {flipped.mean():.4%} of the rows"
    problems = model._problem_scores(X32)
    near_zero = np.abs(problems[flipped]) <= _bound(problems[flipped], scale[flipped])
    assert near_zero.any(axis=1).all(), "votes differ where no pair's value is near 0"
    class_scale = scale @ _pair_matrix(n_classes)
    _assert_within(scores[~flipped], ref[~flipped], class_scale[~flipped], "class scores")


def _assert_probabilities(got, ref):
    got = np.asarray(got, dtype=np.float64)
    assert got.shape == ref.shape
    excess = np.abs(got - ref) - np.maximum(RTOL * np.abs(ref), PROBA_ATOL)
    assert excess.max() <= 0, f"probabilities differ by {np.abs(got - ref).max():.3g}"
    np.testing.assert_allclose(got.sum(axis=1), 1.0, atol=1e-5)


def _node_types(onx):
    return {(n.domain, n.op_type) for n in onx.graph.node}


# -------------------------------------------------------------------- classifier


@pytest.mark.parametrize("kernel", KERNELS)
@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "sparse"])
@pytest.mark.parametrize(
    ("n_classes", "multi_class", "shape"),
    [(2, "ovr", "ovr"), (4, "ovr", "ovr"), (4, "ovo", "ovr"), (4, "ovo", "ovo")],
    ids=["binary", "ovr", "ovo", "ovo-pairs"],
)
def test_classifier_labels_and_scores(kernel, sparse, n_classes, multi_class, shape):
    X, y, X32 = _problem(n_classes, sparse)
    model = KernelPegasosClassifier(
        kernel=kernel,
        alpha=0.01,
        max_iter=3,
        multi_class=multi_class,
        decision_function_shape=shape,
        random_state=0,
    ).fit(X, y)
    (label, scores), onx = _run(model, X32, options={id(model): {"zipmap": False}})
    assert [o.name for o in onx.graph.output] == ["label", "probabilities"]
    assert label.dtype == np.int64
    _assert_labels(label, model.predict(X32))
    _check_scores(model, X32, scores)
    width = 2 if n_classes == 2 else n_classes
    if shape == "ovo" and n_classes > 2:
        width = n_classes * (n_classes - 1) // 2
    assert scores.shape == (X32.shape[0], width)


@pytest.mark.parametrize("kernel", ["linear", "rbf", "poly", "sigmoid"])
@pytest.mark.parametrize("svm_ops", [True, False])
def test_svm_operator_or_graph(kernel, svm_ops):
    """A single problem with a kernel SVMRegressor knows goes through that operator
    unless svm_ops=False; both agree with the model."""
    X, y, X32 = _problem(2, sparse=False)
    model = KernelPegasosClassifier(kernel=kernel, alpha=0.01, max_iter=3, random_state=0)
    model.fit(X, y)
    (label, scores), onx = _run(
        model, X32, options={id(model): {"zipmap": False, "svm_ops": svm_ops}}
    )
    assert (("ai.onnx.ml", "SVMRegressor") in _node_types(onx)) is svm_ops
    _assert_labels(label, model.predict(X32))
    _check_scores(model, X32, scores)


def test_multiclass_and_additive_kernels_never_use_svm_operators():
    X, y, X32 = _problem(4, sparse=False)
    for model in (
        KernelPegasosClassifier(kernel="rbf", random_state=0).fit(X, y),
        KernelPegasosClassifier(kernel="chi2", random_state=0).fit(X, y == 1),
    ):
        _, onx = _run(model, X32)
        assert all(domain != "ai.onnx.ml" or op == "ZipMap" for domain, op in _node_types(onx))


@pytest.mark.parametrize("multi_class", ["ovr", "ovo"])
@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize(
    ("loss", "probability"),
    [("hinge", True), ("modified_huber", False), ("modified_huber", True)],
)
def test_classifier_probabilities(multi_class, n_classes, loss, probability):
    X, y, X32 = _problem(n_classes, sparse=False, seed=1)
    model = KernelPegasosClassifier(
        loss=loss,
        probability=probability,
        alpha=0.01,
        max_iter=3,
        multi_class=multi_class,
        random_state=0,
    ).fit(X, y)
    (label, proba), _ = _run(model, X32, options={id(model): {"zipmap": False}})
    _assert_labels(label, model.predict(X32))
    if hasattr(model, "predict_proba"):
        _assert_probabilities(proba, model.predict_proba(X32))
    else:
        # A one-vs-one modified_huber model of more than two classes has no loss
        # probabilities (its scores are votes): the graph gives its scores.
        assert loss == "modified_huber" and multi_class == "ovo" and n_classes > 2
        _check_scores(model, X32, proba)
    # raw_scores: the decision scores instead, in decision_function's layout.
    (label, scores), _ = _run(
        model, X32, options={id(model): {"zipmap": False, "raw_scores": True}}
    )
    _check_scores(model, X32, scores)


def test_zipmap_default_gives_a_dict_per_row_of_probabilities():
    X, y, X32 = _problem(3, sparse=False)
    model = KernelPegasosClassifier(probability=True, alpha=0.01, random_state=0).fit(X, y)
    (_, proba), onx = _run(model, X32)
    assert [o.name for o in onx.graph.output] == ["output_label", "output_probability"]
    expected = model.predict_proba(X32)
    assert sorted(proba[0]) == [0, 1, 2]
    got = np.array([[row[c] for c in model.classes_] for row in proba])
    _assert_probabilities(got, expected)


def test_pairs_values_stay_a_tensor_under_zipmap():
    """decision_function_shape='ovo' scores are pairs, not classes: no ZipMap."""
    X, y, X32 = _problem(4, sparse=False)
    model = KernelPegasosClassifier(
        multi_class="ovo", decision_function_shape="ovo", alpha=0.01, random_state=0
    ).fit(X, y)
    (_, scores), _ = _run(model, X32)
    assert scores.shape == (X32.shape[0], 6)
    _check_scores(model, X32, scores)
    # The one-vs-one per-class scores are zipped as skl2onnx zips scores.
    model.set_params(decision_function_shape="ovr")
    (_, scores), _ = _run(model, X32)
    assert isinstance(scores, list) and sorted(scores[0]) == [0, 1, 2, 3]


def test_string_labels_and_ties_at_zero():
    X, y, X32 = _problem(3, sparse=False)
    names = np.array(["ant", "bee", "cat"])
    model = KernelPegasosClassifier(alpha=0.01, multi_class="ovo", random_state=0)
    model.fit(X, names[y])
    (label, _), _ = _run(model, X32, options={id(model): {"zipmap": False}})
    assert label.dtype == object
    _assert_labels(label, model.predict(X32))
    # A binary model whose decision value is exactly 0 predicts classes_[0].
    binary = KernelPegasosClassifier(alpha=0.01, random_state=0).fit(X, names[(y == 1) * 1])
    binary.dual_coef_ = np.zeros_like(binary.dual_coef_)
    binary.intercept_ = np.zeros_like(binary.intercept_)
    for svm_ops in (True, False):
        (label, _), _ = _run(binary, X32, options={id(binary): {"svm_ops": svm_ops}})
        assert set(label) == {binary.classes_[0]} == set(binary.predict(X32))


@pytest.mark.parametrize("kernel", KERNELS)
def test_float64_input_computes_in_float64(kernel):
    X, y, X32 = _problem(4, sparse=True)
    X64 = X32.astype(np.float64)
    model = KernelPegasosClassifier(kernel=kernel, alpha=0.01, multi_class="ovo")
    model.set_params(decision_function_shape="ovo", random_state=0).fit(X, y)
    (label, scores), onx = _run(model, X64, dtype=np.float64)
    assert scores.dtype == np.float64
    assert all(domain != "ai.onnx.ml" for domain, _ in _node_types(onx))
    ref = model.decision_function(X64)
    np.testing.assert_allclose(scores, ref, rtol=1e-9, atol=1e-9 * _scale(model, X64).max())
    np.testing.assert_array_equal(label, model.predict(X64))


@pytest.mark.parametrize(("loss", "multi_class"), [("hinge", "ovo"), ("modified_huber", "ovr")])
def test_float64_probabilities(loss, multi_class):
    X, y, X32 = _problem(3, sparse=False)
    X64 = X32.astype(np.float64)
    model = KernelPegasosClassifier(loss=loss, probability=loss == "hinge", alpha=0.01)
    model.set_params(multi_class=multi_class, random_state=0).fit(X, y)
    (label, proba), _ = _run(model, X64, dtype=np.float64, options={id(model): {"zipmap": False}})
    assert proba.dtype == np.float64
    np.testing.assert_allclose(proba, model.predict_proba(X64), rtol=1e-9, atol=1e-12)
    np.testing.assert_array_equal(label, model.predict(X64))


def test_float32_trained_model():
    X, y, X32 = _problem(3, sparse=False)
    model = KernelPegasosClassifier(alpha=0.01, random_state=0).fit(X.astype(np.float32), y)
    assert model.support_vectors_.dtype == np.float32
    (label, scores), _ = _run(model, X32, options={id(model): {"zipmap": False}})
    _assert_labels(label, model.predict(X32))
    _check_scores(model, X32, scores)


def test_skl2onnx_pipeline_with_a_scaler():
    """Importing pegasos_rs.onnx registers the converters: skl2onnx.to_onnx converts
    a pipeline holding the kernel model."""
    import pegasos_rs.onnx  # noqa: F401

    X, y, X32 = _problem(3, sparse=False)
    pipe = make_pipeline(MinMaxScaler(), KernelPegasosClassifier(alpha=0.01, random_state=0))
    pipe.fit(X, y)
    onx = skl2onnx.to_onnx(pipe, X32[:1], options={id(pipe[-1]): {"zipmap": False}})
    session = ort.InferenceSession(onx.SerializeToString(), providers=["CPUExecutionProvider"])
    label, scores = session.run(None, {session.get_inputs()[0].name: X32})
    _assert_labels(label, pipe.predict(X32))
    np.testing.assert_allclose(scores, pipe.decision_function(X32), rtol=1e-3, atol=1e-4)


# --------------------------------------------------------------------- regressor


@pytest.mark.parametrize("kernel", KERNELS)
@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "sparse"])
@pytest.mark.parametrize("svm_ops", [True, False])
def test_regressor(kernel, sparse, svm_ops):
    X, _, X32 = _problem(2, sparse)
    dense = X.toarray() if sparse else X
    y = dense @ np.linspace(-1.0, 2.0, dense.shape[1]) + 3.0
    model = KernelPegasosRegressor(kernel=kernel, alpha=0.01, max_iter=3, random_state=0)
    model.fit(X, y)
    (pred,), onx = _run(model, X32, options={id(model): {"svm_ops": svm_ops}})
    assert [o.name for o in onx.graph.output] == ["variable"]
    assert pred.shape == (X32.shape[0], 1)
    uses_svm = ("ai.onnx.ml", "SVMRegressor") in _node_types(onx)
    assert uses_svm is (svm_ops and kernel not in ("chi2", "intersection"))
    _assert_within(pred, model.predict(X32)[:, np.newaxis], _scale(model, X32), kernel)


def test_rbf_on_rows_far_from_the_origin():
    """|x - s|^2 from float32 norms of rows at distance 100 from the origin would
    lose the distances to cancellation (6.7e-4 of the scale on abalone shifted so);
    the graph centres on the support vectors' mean."""
    X, _, X32 = _problem(2, sparse=False)
    y = X @ np.linspace(-1.0, 2.0, X.shape[1])
    model = KernelPegasosRegressor(alpha=0.01, max_iter=3, random_state=0).fit(X + 100.0, y)
    far = X32 + np.float32(100.0)
    (pred,), _ = _run(model, far, options={id(model): {"svm_ops": False}})
    _assert_within(pred, model.predict(far)[:, np.newaxis], _scale(model, far), "far rows")


def test_chi2_on_tiny_values():
    """chi2's terms (x - s)^2 / (x + s) stay exact for values far below 1 (the
    graph divides by max(x + s, smallest normal number) only to make 0/0 a 0)."""
    X, _, X32 = _problem(2, sparse=True)
    X, X32 = X * 1e-6, X32 * np.float32(1e-6)
    y = X.toarray() @ np.linspace(1e6, 2e6, X.shape[1])
    model = KernelPegasosRegressor(kernel="chi2", alpha=0.01, max_iter=3, random_state=0)
    model.fit(X, y)
    (pred,), _ = _run(model, X32)
    _assert_within(pred, model.predict(X32)[:, np.newaxis], _scale(model, X32), "tiny")


def test_regressor_without_support_vectors():
    """A tube wide enough that no example leaves it: the intercept alone."""
    X, _, X32 = _problem(2, sparse=False)
    model = KernelPegasosRegressor(epsilon=1e6, random_state=0).fit(X, np.ones(X.shape[0]))
    assert model.support_.size == 0
    (pred,), _ = _run(model, X32)
    np.testing.assert_allclose(pred[:, 0], model.predict(X32), rtol=1e-6)


def test_regressor_float64():
    X, _, X32 = _problem(2, sparse=False)
    model = KernelPegasosRegressor(alpha=0.01, random_state=0).fit(X, X[:, 0] * 2.0)
    X64 = X32.astype(np.float64)
    (pred,), onx = _run(model, X64, dtype=np.float64)
    assert pred.dtype == np.float64
    assert ("ai.onnx.ml", "SVMRegressor") not in _node_types(onx)  # float32 attributes
    np.testing.assert_allclose(pred[:, 0], model.predict(X64), rtol=1e-9, atol=1e-9)


# ------------------------------------------------------------ saved model files


def test_export_saved_models_from_the_command_line(tmp_path):
    """``pegasos-rs export MODEL OUT.onnx`` of saved kernel models (a sparse fit read
    back holds sparse support vectors) predicts as the loaded models."""
    from pegasos_rs.cli import main

    X, y, X32 = _problem(4, sparse=True)
    model = KernelPegasosClassifier(
        kernel="chi2", multi_class="ovo", decision_function_shape="ovo", random_state=0
    ).fit(X, y)
    model.save(tmp_path / "c.model")
    assert main(["export", str(tmp_path / "c.model"), str(tmp_path / "c.onnx")]) == 0
    loaded = pegasos_rs.load(tmp_path / "c.model")
    assert sp.issparse(loaded.support_vectors_)
    session = ort.InferenceSession(str(tmp_path / "c.onnx"), providers=["CPUExecutionProvider"])
    label, scores = session.run(None, {"X": X32})
    _assert_labels(label, loaded.predict(X32))
    _check_scores(loaded, X32, scores)

    reg = KernelPegasosRegressor(kernel="poly", alpha=0.01, random_state=0)
    reg.fit(X, X.toarray() @ np.arange(X.shape[1]))
    reg.save(tmp_path / "r.model")
    assert main(["export", str(tmp_path / "r.model"), str(tmp_path / "r.onnx")]) == 0
    session = ort.InferenceSession(str(tmp_path / "r.onnx"), providers=["CPUExecutionProvider"])
    (pred,) = session.run(None, {"X": X32})
    _assert_within(pred, reg.predict(X32)[:, np.newaxis], _scale(reg, X32), "saved")


def test_command_line_refuses_a_saved_precomputed_kernel(tmp_path):
    from pegasos_rs.cli import main

    X, y, _ = _problem(2, sparse=False)
    KernelPegasosClassifier(kernel="precomputed").fit(X @ X.T, y).save(tmp_path / "p.model")
    with pytest.raises(
        SystemExit, match=r"KernelPegasosClassifier cannot be exported.*precomputed"
    ):
        main(["export", str(tmp_path / "p.model"), str(tmp_path / "p.onnx")])
    assert not (tmp_path / "p.onnx").exists()


# ---------------------------------------------------------------------- refusals


@pytest.mark.parametrize("cls", [KernelPegasosClassifier, KernelPegasosRegressor])
def test_refuses_unfitted(cls):
    with pytest.raises(NotFittedError, match=f"{cls.__name__}.*not fitted"):
        pegasos_rs.to_onnx(cls(), n_features=3)


@pytest.mark.parametrize("cls", [KernelPegasosClassifier, KernelPegasosRegressor])
def test_refuses_precomputed_kernel(cls):
    X, y, _ = _problem(2, sparse=False)
    model = cls(kernel="precomputed", random_state=0).fit(X @ X.T, y)
    with pytest.raises(ValueError, match=f"{cls.__name__} cannot be exported.*precomputed"):
        pegasos_rs.to_onnx(model, n_features=X.shape[0])


@pytest.mark.parametrize("cls", [KernelPegasosClassifier, KernelPegasosRegressor])
def test_refuses_callable_kernel(cls):
    """The parameter constraints refuse a callable in fit; one set afterwards changes
    nothing (the graph is the fitted model's); a model fitted with one (a subclass
    without the constraints) is refused by the export, which cannot compute it."""
    X, y, X32 = _problem(2, sparse=False)
    model = cls(random_state=0).fit(X, y)
    model.kernel = lambda a, b: a @ b.T
    zipmap = {id(model): {"zipmap": False}} if cls is KernelPegasosClassifier else None
    (out, *_), _ = _run(model, X32, options=zipmap)
    assert out.shape[0] == X32.shape[0]
    model._fit_params["kernel"] = model.kernel  # as fitted by such a subclass
    with pytest.raises(TypeError, match=f"{cls.__name__} cannot be exported.*callable"):
        pegasos_rs.to_onnx(model, X32)


def test_refusals_inside_a_skl2onnx_pipeline():
    import pegasos_rs.onnx  # noqa: F401

    X, _, X32 = _problem(2, sparse=False)
    pipe = make_pipeline(MinMaxScaler(), KernelPegasosClassifier(kernel="precomputed"))
    pipe[0].fit(X)
    with pytest.raises(NotFittedError, match="KernelPegasosClassifier"):
        skl2onnx.to_onnx(pipe, X32[:1])


def test_refuses_a_probability_model_without_its_sigmoids():
    """probability=True set after fit changes nothing (the model has no sigmoids, the
    graph no probabilities); a model fitted with it whose sigmoids are gone (a
    damaged object) is refused."""
    X, y, X32 = _problem(2, sparse=False)
    model = KernelPegasosClassifier(random_state=0).fit(X, y)
    model.probability = True
    (_, scores), _ = _run(model, X32, options={id(model): {"zipmap": False}})
    _check_scores(model, X32, scores)
    calibrated = KernelPegasosClassifier(probability=True, random_state=0).fit(X, y)
    del calibrated.probB_
    with pytest.raises(ValueError, match="sigmoids were not fitted"):
        pegasos_rs.to_onnx(calibrated, X32)


def test_the_graph_is_the_fitted_model_whatever_set_params_did_since():
    """The converter reads the parameters of the fit: multi_class, kernel, degree or
    loss set after fit change neither predict nor the graph. With 3 classes, 3 pairs
    look like 3 one-vs-rest problems: a converter reading multi_class exported
    another model without noticing. The reference is the labels themselves."""
    X, y, _ = _problem(3, sparse=False)
    X32 = X.astype(np.float32)
    model = KernelPegasosClassifier(multi_class="ovo", alpha=0.01, random_state=0)
    model.fit(X, y)
    accuracy = (model.predict(X32) == y).mean()
    assert accuracy > 0.5  # 3 classes
    model.set_params(multi_class="ovr", kernel="poly", degree=5, loss="squared_hinge")
    (label, scores), _ = _run(model, X32, options={id(model): {"zipmap": False}})
    _assert_labels(label, model.predict(X32))
    assert (label == y).mean() >= accuracy - 0.005
    _check_scores(model, X32, scores)
    # decision_function_shape lays out decision_function when called (as SVC's),
    # and the graph's scores with it: "ovo" of a one-vs-rest model has no pairs.
    ovr = KernelPegasosClassifier(multi_class="ovr", random_state=0).fit(X, y)
    ovr.set_params(decision_function_shape="ovo")
    with pytest.raises(ValueError, match="no pairs' values"):
        pegasos_rs.to_onnx(ovr, X32)


def test_float_class_labels_are_int64():
    """Integral float classes (scikit-learn refuses fractional ones in fit) export
    as int64 labels, as skl2onnx does."""
    X, y, X32 = _problem(3, sparse=False)
    model = KernelPegasosClassifier(alpha=0.01, random_state=0).fit(X, y + 1.0)
    (label, _), _ = _run(model, X32, options={id(model): {"zipmap": False}})
    assert label.dtype == np.int64
    _assert_labels(label, model.predict(X32).astype(np.int64))


def test_refuses_wrong_width():
    X, y, _ = _problem(2, sparse=False)
    model = KernelPegasosRegressor(random_state=0).fit(X, y.astype(float))
    with pytest.raises(ValueError, match="expecting 8 features"):
        pegasos_rs.to_onnx(model, n_features=5)


# ---------------------------------------------------------- benchmark data sets


@pytest.mark.parametrize("multi_class", ["ovr", "ovo"])
def test_usps(multi_class):
    X, y, X_test, _ = require_data("usps")
    model = KernelPegasosClassifier(max_iter=1, multi_class=multi_class, random_state=0)
    model.fit(X, y)
    X32 = X_test.toarray().astype(np.float32)
    (label, scores), _ = _run(model, X32, options={id(model): {"zipmap": False}})
    _assert_labels(label, model.predict(X32))
    _check_scores(model, X32, scores)
    if multi_class == "ovo":
        model.set_params(decision_function_shape="ovo")
        (label, scores), _ = _run(model, X32, options={id(model): {"zipmap": False}})
        _check_scores(model, X32, scores)


@pytest.mark.parametrize("svm_ops", [True, False])
def test_cpusmall(svm_ops):
    X, y, X_test, _ = require_data("cpusmall")
    model = KernelPegasosRegressor(max_iter=1, random_state=0).fit(X, y)
    X32 = X_test.toarray().astype(np.float32)
    (pred,), _ = _run(model, X32, options={id(model): {"svm_ops": svm_ops}})
    _assert_within(pred, model.predict(X32)[:, np.newaxis], _scale(model, X32), "cpusmall")


# -------------------------------------------------------------- one-class SVM


@pytest.mark.parametrize("kernel", KERNELS)
@pytest.mark.parametrize("svm_ops", [True, False])
def test_one_class(kernel, svm_ops):
    """``label`` (+1 / -1 as predict) and ``scores`` (decision_function) against the
    model, and the scores against a reference that cannot share the model's
    defects: scikit-learn's pairwise kernels times dual_coef_, minus offset_."""
    from sklearn.metrics.pairwise import pairwise_kernels as sk_kernels

    X, _, X32 = _problem(2, sparse=True)
    model = pegasos_rs.KernelPegasosOneClassSVM(nu=0.2, kernel=kernel, max_iter=3, random_state=0)
    model.fit(X)
    (label, scores), onx = _run(model, X32, options={id(model): {"svm_ops": svm_ops}})
    assert [o.name for o in onx.graph.output] == ["label", "scores"]
    assert label.dtype == np.int64 and label.shape == scores.shape == (X32.shape[0],)
    uses_svm = ("ai.onnx.ml", "SVMRegressor") in _node_types(onx)
    assert uses_svm is (svm_ops and kernel not in ("chi2", "intersection"))
    scale = _scale(model, X32)[:, 0]
    _assert_within(scores, model.decision_function(X32), scale, kernel)
    _assert_labels(label, model.predict(X32))
    params = {"gamma": model._gamma} if kernel in ("rbf", "poly", "sigmoid", "chi2") else {}
    if kernel in ("poly", "sigmoid"):
        params["coef0"] = model.coef0
    if kernel == "poly":
        params["degree"] = model.degree
    sv = model.support_vectors_.toarray()
    if kernel == "intersection":  # not among scikit-learn's kernels
        ref = np.array([[np.minimum(x, s).sum() for s in sv] for x in X32.astype(np.float64)])
    else:
        ref = sk_kernels(X32.astype(np.float64), sv, metric=kernel, **params)
    ref = ref @ model.dual_coef_[0] - model.offset_[0]
    _assert_within(scores, ref, scale, f"{kernel} against scikit-learn's kernels")


@pytest.mark.parametrize("maintenance", ["merge", "project"])
@pytest.mark.parametrize("svm_ops", [True, False])
def test_budgeted_models_whose_support_vectors_are_merged_points(svm_ops, maintenance):
    """A budget's support vectors are points (merged ones are no training row): the
    graph reads them from support_vectors_, as the model does."""
    X, y, X32 = _problem(2, sparse=False)
    kw = {"alpha": 0.01, "max_iter": 3, "random_state": 0, "budget_maintenance": maintenance}
    model = KernelPegasosClassifier(budget=10, **kw).fit(X, y)
    assert (model.support_ == -1).any() == (maintenance == "merge")
    (label, scores), _ = _run(
        model, X32, options={id(model): {"svm_ops": svm_ops, "zipmap": False}}
    )
    _check_scores(model, X32, scores)
    _assert_labels(label, model.predict(X32))
    reg = KernelPegasosRegressor(budget=10, **kw)
    reg.fit(X, X @ np.linspace(-1.0, 2.0, X.shape[1]))
    (pred,), _ = _run(reg, X32, options={id(reg): {"svm_ops": svm_ops}})
    _assert_within(pred, reg.predict(X32)[:, np.newaxis], _scale(reg, X32), "budget")
