"""LIBLINEAR and LIBSVM model files predict exactly as LIBLINEAR and LIBSVM do.

The references are the libraries themselves (liblinear-official, libsvm-official),
each predicting with the model read back from the file written, as their
``predict`` programs do, on synthetic problems and on real data (scikit-learn's
breast cancer, iris and diabetes sets; the shared cpusmall and abalone regression
sets when present). LIBSVM's decision values are taken from the C function
``svm_predict_values`` directly: libsvm-official's ``svm_predict`` sizes its buffer
of decision values for one value when the model is a ``nu_svc`` (it means
``nu_svr``) and writes past its end for three or more classes.
"""

from __future__ import annotations

import ctypes
import lzma
import re
import subprocess
import sys

import numpy as np
import pegasos_rs
import pytest
import scipy.sparse as sp
from conftest import _datasets, make_problem
from pegasos_rs import dump_svmlight_file
from pegasos_rs.cli import main
from pegasos_rs.exceptions import DataFormatError
from pegasos_rs.io.foreign_models import (
    LiblinearModel,
    LiblinearRegressionModel,
    LibsvmModel,
    LibsvmOneClassModel,
    LibsvmRegressionModel,
    read_model,
)

liblinear = pytest.importorskip("liblinear.liblinearutil")
svmutil = pytest.importorskip("libsvm.svmutil")
from libsvm.svm import gen_svm_nodearray  # noqa: E402
from libsvm.svm import libsvm as libsvm_c  # noqa: E402

#: Labels in an order that is neither sorted nor LIBLINEAR's first-appearance one
#: for every problem, so that label order mistakes show.
LABELS = np.array([5, -1, 3, 0])


def problem(n_classes, seed, n_samples=160, n_features=8):
    """Training rows, their labels, and test rows: wider than the training rows (a
    feature never seen in training) and with some all-zero rows (exact ties of
    LIBLINEAR's scores without a bias)."""
    X, y = make_problem(n_samples=n_samples + 60, n_features=n_features, n_classes=n_classes,
                        density=0.6, seed=seed)  # fmt: skip
    rng = np.random.RandomState(seed)
    Xt = np.hstack([X[n_samples:], rng.randn(60, 1) * (rng.rand(60, 1) < 0.3)])
    Xt[::15] = 0.0
    return sp.csr_matrix(X[:n_samples]), LABELS[y[:n_samples]], sp.csr_matrix(Xt)


def libsvm_reference(model, X):
    """LIBSVM's labels and one-vs-one decision values, row by row, through
    ``svm_predict_values`` with a buffer of the right size."""
    k = model.get_nr_class()
    n_pairs = k * (k - 1) // 2
    buf = (ctypes.c_double * max(n_pairs, 1))()
    labels, values = [], []
    for i in range(X.shape[0]):
        part = slice(X.indptr[i], X.indptr[i + 1])
        node, _ = gen_svm_nodearray((X.indices[part], X.data[part]))
        labels.append(libsvm_c.svm_predict_values(model, node, buf))
        values.append(buf[:n_pairs])
    return np.array(labels), np.array(values).reshape(X.shape[0], n_pairs)


def libsvm_file(tmp_path, X, y, options):
    """Train LIBSVM, save the model, and read it back with LIBSVM."""
    path = tmp_path / "libsvm.model"
    model = svmutil.svm_train(y.astype(float).tolist(), X, options + " -q")
    svmutil.svm_save_model(str(path), model)
    return path, svmutil.svm_load_model(str(path))


def assert_close_values(ours, theirs):
    """Decision values agree to 1e-9 relative (the summation orders differ; near 0
    only the rounding of the terms, relative to the largest value, is meaningful)."""
    assert ours.shape == theirs.shape
    scale = max(float(np.abs(theirs).max()), 1e-300)
    np.testing.assert_allclose(ours, theirs, rtol=1e-9, atol=1e-9 * scale)


def assert_same_values(ours, theirs, rtol=1e-12):
    """Values agree to ``rtol`` relative to the largest of them (our sums add the
    same terms in another order: a few units in the last place)."""
    ours, theirs = np.asarray(ours), np.asarray(theirs)
    assert ours.shape == theirs.shape
    scale = max(float(np.abs(theirs).max()), 1e-300)
    np.testing.assert_allclose(ours, theirs, rtol=rtol, atol=rtol * scale)


#: The shared regression sets (benches/shared_data's folder), when present.
SHARED_REGRESSION = {"cpusmall": "cpusmall_scale.xz", "abalone": "abalone_scale.xz"}


def real_data(name, n_train=None):
    """``(X, y, X_test, y_test)`` of a real data set, rows shuffled with a fixed
    seed, 2/3 for training (at most ``n_train`` rows), as CSR matrices: scikit-learn's
    ``breast_cancer`` (2 classes) and ``iris`` (3), standardised, and ``diabetes``
    (regression); the shared ``cpusmall`` and ``abalone`` regression sets (LIBSVM's
    scaled files), skipped when absent."""
    from sklearn import datasets
    from sklearn.preprocessing import StandardScaler

    if name in SHARED_REGRESSION:
        folder = _datasets.data_dir()
        path = None if folder is None else folder / SHARED_REGRESSION[name]
        if path is None or not path.exists():
            pytest.skip(f"{SHARED_REGRESSION[name]} is not available (set PEGASOS_DATA)")
        with lzma.open(path, "rb") as f:
            X, y = datasets.load_svmlight_file(f)
    else:
        X, y = getattr(datasets, f"load_{name}")(return_X_y=True)
        if name != "diabetes":
            X = StandardScaler().fit_transform(X)
    X, y = sp.csr_matrix(X), np.asarray(y, dtype=np.float64)
    order = np.random.RandomState(0).permutation(X.shape[0])
    cut = 2 * X.shape[0] // 3
    train, test = order[:cut][:n_train], order[cut:]
    return X[train], y[train], X[test], y[test]


def svr_epsilon(y):
    """An SVR epsilon of a tenth of the targets' spread, written as ``-p`` takes it."""
    return f"{0.1 * float(np.std(y)):.4g}"


# ----------------------------------------------------------------------------------
# LIBLINEAR


@pytest.mark.parametrize("solver", [0, 1, 2, 3, 4, 5, 6, 7])
@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("bias", [-1, 1])
def test_liblinear_classifiers_predict_exactly_like_liblinear(tmp_path, solver, n_classes, bias):
    X, y, Xt = problem(n_classes, seed=10 * solver + n_classes)
    model = liblinear.train(y.astype(float).tolist(), X, f"-s {solver} -B {bias} -q")
    path = tmp_path / "liblinear.model"
    liblinear.save_model(str(path), model)
    want, _, dec = liblinear.predict([], Xt, liblinear.load_model(str(path)), "-q")
    ours = read_model(path)
    assert isinstance(ours, LiblinearModel)
    assert ours.solver_type == path.read_text().split()[1]
    np.testing.assert_array_equal(ours.predict(Xt), want)
    dec = np.asarray(dec)  # liblinearutil returns one score for any two-class model
    assert_close_values(ours.decision_function(Xt)[:, : dec.shape[1]], dec)
    if bias < 0:  # all scores of the all-zero rows are 0: LIBLINEAR's label order decides
        tied = ours.labels[1] if n_classes == 2 else ours.labels[0]
        np.testing.assert_array_equal(ours.predict(Xt[::15]), tied)


LIBLINEAR_REAL = [
    *[(solver, data) for solver in range(8) for data in ("breast_cancer", "iris")],
    *[(solver, data) for solver in (11, 12, 13) for data in ("diabetes", *SHARED_REGRESSION)],
]


@pytest.mark.parametrize("solver, data", LIBLINEAR_REAL)
@pytest.mark.parametrize("bias", [-1, 1])
def test_liblinear_models_of_every_solver_predict_like_liblinear_on_real_data(
    tmp_path, solver, data, bias
):
    """Every solver of LIBLINEAR (classifiers -s 0 to 7, regression -s 11 to 13):
    the model file read back predicts LIBLINEAR's labels, or values, and its decision
    values; the logistic models (-s 0, 6, 7) give predict -b 1's probabilities."""
    X, y, Xt, yt = real_data(data)
    options = f"-s {solver} -B {bias} -q"
    if solver >= 11:
        options += f" -p {svr_epsilon(y)}"
    path = tmp_path / "liblinear.model"
    liblinear.save_model(str(path), liblinear.train(y.tolist(), X, options))
    reloaded = liblinear.load_model(str(path))
    want, _, want_values = liblinear.predict(yt.tolist(), Xt, reloaded, "-q")
    want_values = np.asarray(want_values)
    ours = read_model(path)
    assert ours.solver_type == path.read_text().split()[1]
    if solver >= 11:
        assert isinstance(ours, LiblinearRegressionModel)
        values = ours.predict(Xt)
        assert_same_values(values, want)  # LIBLINEAR's prediction is the value itself
        assert_same_values(values, want_values[:, 0])
        assert np.ptp(values) > 0  # not a constant: the features count
        return
    assert isinstance(ours, LiblinearModel)
    np.testing.assert_array_equal(ours.predict(Xt), want)
    # liblinearutil returns one score for any two-class model (MCSVM_CS has two)
    assert_same_values(ours.decision_function(Xt)[:, : want_values.shape[1]], want_values)
    if solver in (0, 6, 7):
        _, _, proba = liblinear.predict(yt.tolist(), Xt, reloaded, "-b 1 -q")
        assert_same_values(ours.predict_proba(Xt), proba)
    else:
        with pytest.raises(ValueError, match=f"only supported for logistic.*{ours.solver_type}"):
            ours.predict_proba(Xt)


@pytest.mark.parametrize("solver", [11, 12, 13])
def test_liblinear_regression_models_are_regressors_not_classifiers(tmp_path, solver):
    """A regression model predicts values only: no classes, probabilities or
    decision values; it refuses to_classifier, and pegasos_rs.load (which gives a
    PegasosClassifier) refuses its file at the solver_type line, naming read_model."""
    X, y, Xt, _ = real_data("diabetes")
    path = tmp_path / "svr.model"
    model = liblinear.train(y.tolist(), X, f"-s {solver} -B 1 -p 5 -q")
    liblinear.save_model(str(path), model)
    ours = read_model(path)
    assert "label" not in path.read_text()
    for name in ("predict_proba", "decision_function", "classes_", "labels"):
        assert not hasattr(ours, name), name
    assert ours.predict(Xt).shape == (Xt.shape[0],)
    with pytest.raises(ValueError, match=f"regression model \\({ours.solver_type}\\)"):
        ours.to_classifier()
    with pytest.raises(DataFormatError) as info:
        pegasos_rs.load(path)
    assert (info.value.file, info.value.line) == (str(path), 1)
    assert "regression model" in info.value.reason and "read_model" in info.value.reason


def test_liblinear_regression_drops_unseen_features_and_pads_missing_ones(tmp_path):
    """As LIBLINEAR's predict: features beyond nr_feature are ignored (with a bias,
    the bias weight is not applied to feature nr_feature + 1), missing trailing
    features are zeros; dense and sparse rows alike."""
    X, y, Xt, _ = real_data("diabetes")
    path = tmp_path / "svr.model"
    liblinear.save_model(str(path), liblinear.train(y.tolist(), X, "-s 11 -B 1 -p 5 -q"))
    reloaded = liblinear.load_model(str(path))
    ours = read_model(path)
    rng = np.random.RandomState(0)
    wide = sp.hstack([Xt, sp.csr_matrix(rng.randn(Xt.shape[0], 2))], format="csr")
    narrow = Xt[:, :7]
    for X_other in (wide, narrow):
        want, _, _ = liblinear.predict([], X_other, reloaded, "-q")
        assert_same_values(ours.predict(X_other), want)
        assert_same_values(ours.predict(X_other.toarray()), want)
    assert np.any(ours.predict(narrow) != ours.predict(Xt))


def test_liblinear_one_class_models_predict_like_liblinear(tmp_path):
    """LIBLINEAR's one-class SVM (-s 21): scores w.x - rho, +1 where positive, else
    -1; no probabilities, no classifier, refused by pegasos_rs.load."""
    X, y, Xt, _ = real_data("breast_cancer")
    path = tmp_path / "oneclass.model"
    liblinear.save_model(str(path), liblinear.train(y.tolist(), X, "-s 21 -n 0.3 -q"))
    want, _, want_values = liblinear.predict([], Xt, liblinear.load_model(str(path)), "-q")
    ours = read_model(path)
    assert isinstance(ours, LiblinearModel)
    assert ours.solver_type == "ONECLASS_SVM" and ours.rho != 0
    np.testing.assert_array_equal(ours.predict(Xt), want)
    assert set(want) == {-1.0, 1.0}
    assert_same_values(ours.decision_function(Xt), want_values)
    with pytest.raises(ValueError, match=r"only supported for logistic.*ONECLASS_SVM"):
        ours.predict_proba(Xt)
    with pytest.raises(ValueError, match="one-class SVM"):
        ours.to_classifier()
    with pytest.raises(DataFormatError, match=r"one-class model.*read_model"):
        pegasos_rs.load(path)


@pytest.mark.parametrize(
    "text, line, fragment",
    [
        (
            "solver_type L2R_L2LOSS_SVR\nnr_class 3\nnr_feature 1\nbias -1\nw\n0.5\n",
            2,
            "a L2R_L2LOSS_SVR model has nr_class 2",
        ),
        (
            "solver_type ONECLASS_SVM\nnr_class 2\nnr_feature 1\nbias -1\nw\n0.5\n",
            None,
            "no 'rho' line",
        ),
        (
            "solver_type L2R_L1LOSS_SVR_DUAL\nnr_class 2\nnr_feature 2\nbias 1\nw\n0.5\n1\n",
            None,
            "truncated",
        ),
    ],
)
def test_bad_liblinear_regression_and_one_class_files_name_the_problem(
    tmp_path, text, line, fragment
):
    path = tmp_path / "m.model"
    path.write_text(text)
    with pytest.raises(DataFormatError) as info:
        read_model(path)
    assert fragment in info.value.reason, info.value.reason
    if line is not None:
        assert info.value.line == line


def test_liblinear_ties_follow_liblinears_label_order(tmp_path):
    """Scores of exactly 0: two classes predict the second label, more classes the
    first largest score's label, in the file's order (not sorted)."""
    two = "solver_type L2R_LR\nnr_class 2\nlabel 4 -2\nnr_feature 1\nbias -1\nw\n0.5\n"
    three = two.replace("nr_class 2\nlabel 4 -2", "nr_class 3\nlabel 4 -2 9").replace(
        "w\n0.5\n", "w\n0 0 0\n"
    )
    for text, tied in [(two, -2), (three, 4)]:
        path = tmp_path / "m"
        path.write_text(text)
        ours = read_model(path).predict(np.zeros((2, 1)))
        reloaded = liblinear.load_model(str(path))
        theirs, _, _ = liblinear.predict([], sp.csr_matrix((2, 1)), reloaded, "-q")
        np.testing.assert_array_equal(ours, tied)
        np.testing.assert_array_equal(ours, theirs)


def test_pegasos_load_reads_mcsvm_cs_models_as_classifiers(tmp_path):
    X, y, Xt = problem(3, seed=4)
    model = liblinear.train(y.astype(float).tolist(), X, "-s 4 -B 1 -q")
    path = tmp_path / "cs.model"
    liblinear.save_model(str(path), model)
    want, _, _ = liblinear.predict([], Xt, model, "-q")
    est = pegasos_rs.load(path)
    assert type(est).__name__ == "PegasosClassifier"
    assert est.multi_class == "crammer_singer"
    np.testing.assert_array_equal(est.predict(Xt[:, :8]), want)


def test_pegasos_load_reads_binary_mcsvm_cs_models_with_both_weight_vectors(tmp_path):
    """LIBLINEAR's -s 4 keeps two weight vectors for two classes (not one, as its
    other classifiers): the loaded classifier's one row is their difference, as
    PegasosClassifier(multi_class="crammer_singer") and LinearSVC keep it."""
    X, y, Xt = problem(2, seed=5)
    model = liblinear.train(y.astype(float).tolist(), X, "-s 4 -B 1 -q")
    path = tmp_path / "cs2.model"
    liblinear.save_model(str(path), model)
    want, _, _ = liblinear.predict([], Xt, model, "-q")
    est = pegasos_rs.load(path)
    assert est.multi_class == "crammer_singer" and est.coef_.shape == (1, 8)
    np.testing.assert_array_equal(est.predict(Xt[:, :8]), want)


# ----------------------------------------------------------------------------------
# LIBSVM

KERNELS = {
    "linear": "-t 0",
    "poly": "-t 1 -g 0.7 -r 1 -d 3",
    "rbf": "-t 2 -g 2",
    "sigmoid": "-t 3 -g 0.5 -r -0.2",
}


@pytest.mark.parametrize("kernel", list(KERNELS))
@pytest.mark.parametrize("n_classes", [2, 3, 4])
def test_libsvm_c_svc_models_predict_exactly_like_libsvm(tmp_path, kernel, n_classes):
    X, y, Xt = problem(n_classes, seed=n_classes + len(kernel))
    path, model = libsvm_file(tmp_path, X, y, KERNELS[kernel] + " -c 4")
    want, want_values = libsvm_reference(model, Xt)
    ours = read_model(path)
    assert isinstance(ours, LibsvmModel)
    assert (ours.svm_type, ours.kernel) == ("c_svc", kernel)
    assert_close_values(ours.decision_function(Xt), want_values)
    np.testing.assert_array_equal(ours.predict(Xt), want)


def test_libsvm_vote_ties_go_to_the_first_label_in_the_files_order(tmp_path):
    """Four classes with random labels: many rows tie (2-2-1-1, 2-2-2-0); LIBSVM
    gives them to the first of the tied labels in its label order, which is not the
    smallest label on some of them."""
    rng = np.random.RandomState(3)
    X = sp.csr_matrix(rng.rand(120, 4))
    y = LABELS[rng.randint(0, 4, 120)]
    path, model = libsvm_file(tmp_path, X, y, "-t 2 -g 4 -c 10")
    Xt = sp.csr_matrix(rng.rand(300, 4))
    want, values = libsvm_reference(model, Xt)
    ours = read_model(path)
    np.testing.assert_array_equal(ours.predict(Xt), want)
    votes = np.zeros((Xt.shape[0], 4), dtype=int)
    for p, (i, j) in enumerate(zip(*np.triu_indices(4, 1), strict=True)):
        votes[np.arange(Xt.shape[0]), np.where(values[:, p] > 0, i, j)] += 1
    top = votes == votes.max(axis=1, keepdims=True)
    tied = top.sum(axis=1) > 1
    smallest = np.array([ours.labels[t].min() for t in top])
    assert tied.sum() >= 10
    assert np.any(want[tied] != smallest[tied])


@pytest.mark.parametrize("n_classes", [2, 3])
def test_libsvm_nu_svc_and_probability_models_predict_like_libsvm(tmp_path, n_classes):
    X, y, Xt = problem(n_classes, seed=20 + n_classes)
    for options in ["-s 1 -n 0.3 -t 2 -g 1", "-t 2 -g 1 -b 1"]:
        path, model = libsvm_file(tmp_path, X, y, options)
        want, want_values = libsvm_reference(model, Xt)
        ours = read_model(path)
        assert_close_values(ours.decision_function(Xt), want_values)
        np.testing.assert_array_equal(ours.predict(Xt), want)


@pytest.mark.parametrize("kernel", list(KERNELS))
@pytest.mark.parametrize("svm_type", ["-s 3", "-s 4 -n 0.4"])
@pytest.mark.parametrize("data", ["diabetes", "abalone"])
def test_libsvm_regression_models_predict_like_libsvm(tmp_path, kernel, svm_type, data):
    """epsilon-SVR (svm-train -s 3) and nu-SVR (-s 4) with each kernel: the values
    sum_s coef_s K(sv_s, x) - rho of svm_predict, on real data."""
    X, y, Xt, _ = real_data(data, n_train=600)
    options = f"{svm_type} {KERNELS[kernel]} -c 4"
    if svm_type == "-s 3":
        options += f" -p {svr_epsilon(y)}"
    path, model = libsvm_file(tmp_path, X, y, options)
    want, want_values = libsvm_reference(model, Xt)
    ours = read_model(path)
    assert isinstance(ours, LibsvmRegressionModel)
    assert (ours.svm_type, ours.kernel) == (
        ("epsilon_svr" if svm_type == "-s 3" else "nu_svr"),
        kernel,
    )
    values = ours.predict(Xt)
    assert_same_values(values, want)
    assert_same_values(values, want_values[:, 0])
    assert np.ptp(values) > 0
    for name in ("predict_proba", "decision_function", "labels", "classes_"):
        assert not hasattr(ours, name), name


@pytest.mark.parametrize("kernel", list(KERNELS))
def test_libsvm_one_class_models_predict_like_libsvm(tmp_path, kernel):
    """The one-class SVM (svm-train -s 2) with each kernel: svm_predict's scores
    sum_s coef_s K(sv_s, x) - rho and its labels (+1 where positive, else -1), on
    real data; pegasos_rs.load refuses the file (read_model reads it)."""
    X, y, Xt, _ = real_data("breast_cancer")
    # rbf's -g 2 is too narrow for 30 standardised features: every test row an outlier.
    options = "-t 2 -g 0.03" if kernel == "rbf" else KERNELS[kernel]
    path, model = libsvm_file(tmp_path, X, y, f"-s 2 -n 0.2 {options}")
    want, want_values = libsvm_reference(model, Xt)
    ours = read_model(path)
    assert isinstance(ours, LibsvmOneClassModel)
    assert (ours.svm_type, ours.kernel) == ("one_class", kernel)
    assert_close_values(ours.decision_function(Xt), want_values[:, 0])
    np.testing.assert_array_equal(ours.predict(Xt), want)
    assert set(want) == {-1.0, 1.0}
    for name in ("predict_proba", "classes_", "labels"):
        assert not hasattr(ours, name), name
    with pytest.raises(ValueError, match=r"a LIBSVM model file.*read_model"):
        pegasos_rs.load(path)


def test_libsvm_regression_with_probability_and_constant_kernels(tmp_path):
    """An SVR model trained with -b 1 (its file has a probA line) predicts the same
    values; a hand-made rbf model with gamma 0 (a constant kernel) too."""
    X, y, Xt, _ = real_data("diabetes", n_train=200)
    path, model = libsvm_file(tmp_path, X, y, "-s 3 -t 2 -g 1 -p 5 -b 1")
    assert "probA" in path.read_text()
    want, _ = libsvm_reference(model, Xt)
    assert_same_values(read_model(path).predict(Xt), want)
    path.write_text(
        "svm_type nu_svr\nkernel_type rbf\ngamma 0\nnr_class 2\ntotal_sv 2\nrho 0.25\n"
        "SV\n1.5 1:1\n-0.5 2:3\n"
    )
    want, _ = libsvm_reference(svmutil.svm_load_model(str(path)), Xt)
    np.testing.assert_array_equal(read_model(path).predict(Xt), want)
    np.testing.assert_array_equal(want, 0.75)


@pytest.mark.parametrize(
    "text, line, fragment",
    [
        ("nr_class 2", "nr_class 3", "an epsilon_svr model has nr_class 2"),
        ("total_sv 2", "total_sv -1", "bad total_sv -1"),
        ("rho 0.25", "rho 0.25 1", "expected 1 value(s) after rho"),
        ("1.5 1:1", "1.5 2 1:1", "coefficient(s) then index:value"),
    ],
)
def test_bad_libsvm_regression_files_name_the_line(tmp_path, text, line, fragment):
    good = (
        "svm_type epsilon_svr\nkernel_type linear\nnr_class 2\ntotal_sv 2\nrho 0.25\n"
        "SV\n1.5 1:1\n-0.5 2:3\n"
    )
    path = tmp_path / "m.model"
    path.write_text(good)
    assert isinstance(read_model(path), LibsvmRegressionModel)
    path.write_text(good.replace(text, line))
    with pytest.raises(DataFormatError) as info:
        read_model(path)
    assert fragment in info.value.reason, info.value.reason
    number = next(k for k, t in enumerate(good.splitlines(), 1) if t == text)
    assert info.value.line == number


def test_libsvm_vote_ties_and_zero_values_follow_libsvm(tmp_path):
    """Hand-made models whose decision values are ``-rho``: cyclic votes (1-1-1) go
    to the first label of the file, a value of exactly 0 votes for the second class
    of its pair."""
    sv = "0 0 1:1\n0 0 2:1\n0 0 3:1\n"
    head = "svm_type c_svc\nkernel_type linear\nnr_class 3\ntotal_sv 3\nlabel 7 2 5\nnr_sv 1 1 1\n"
    for rho, expected in [("-1 1 -1", 7), ("0 0 0", 5), ("1 1 1", 5), ("-1 -1 1", 7)]:
        path = tmp_path / "m"
        path.write_text(f"{head}rho {rho}\nSV\n{sv}")
        X = sp.csr_matrix(np.eye(3)[:2])
        ours = read_model(path).predict(X)
        want, _ = libsvm_reference(svmutil.svm_load_model(str(path)), X)
        np.testing.assert_array_equal(ours, want)
        np.testing.assert_array_equal(ours, expected)


@pytest.mark.parametrize(
    "kernel_lines",
    [
        "kernel_type rbf\ngamma 0",
        "kernel_type polynomial\ndegree 0\ngamma 0.5\ncoef0 0.3",
        "kernel_type polynomial\ndegree 2\ngamma 0\ncoef0 -0.7",
        "kernel_type sigmoid\ngamma 0\ncoef0 0.4",
    ],
)
def test_libsvm_kernels_that_do_not_depend_on_the_data(tmp_path, kernel_lines):
    path = tmp_path / "m"
    path.write_text(
        f"svm_type c_svc\n{kernel_lines}\nnr_class 3\ntotal_sv 4\nrho 0.1 -0.2 0.05\n"
        "label 1 2 3\nnr_sv 2 1 1\nSV\n0.5 1 1:1\n-0.25 0.5 2:3\n-1 -0.5 1:2\n-0.5 -1 3:1\n"
    )
    X = sp.csr_matrix(np.random.RandomState(0).randn(5, 3))
    want, want_values = libsvm_reference(svmutil.svm_load_model(str(path)), X)
    ours = read_model(path)
    assert_close_values(ours.decision_function(X), want_values)
    np.testing.assert_array_equal(ours.predict(X), want)


def test_libsvm_support_vectors_with_huge_feature_indices(tmp_path):
    """The kernels run on the features the support vectors use, so an index of two
    billion costs nothing; the rest of a test row still counts in rbf distances."""
    path = tmp_path / "m"
    path.write_text(
        "svm_type c_svc\nkernel_type rbf\ngamma 0.5\nnr_class 2\ntotal_sv 2\nrho 0.1\n"
        "label 1 -1\nnr_sv 1 1\nSV\n1 1:0.5 2000000000:1\n-1 2:1\n"
    )
    ours = read_model(path)
    assert ours.support_vectors.shape == (2, 2000000000)
    entries = ([0.3, 1.0, 0.7, 2.0], ([0, 0, 1, 1], [0, 1999999999, 1, 7]))
    X = sp.csr_matrix(entries, shape=(2, 2 * 10**9))
    want, want_values = libsvm_reference(svmutil.svm_load_model(str(path)), X)
    assert_close_values(ours.decision_function(X), want_values)
    np.testing.assert_array_equal(ours.predict(X), want)


# ----------------------------------------------------------------------------------
# The command line


@pytest.fixture
def svm_files(tmp_path):
    X, y, Xt = problem(3, seed=7)
    yt = LABELS[np.random.RandomState(7).randint(0, 3, Xt.shape[0])]
    test = tmp_path / "test.svm"
    dump_svmlight_file(Xt, yt, test, zero_based=False)
    return X, y, test, yt


def run_predict(capsys, test, model, out):
    assert main(["predict", str(test), str(model), str(out)]) == 0
    return capsys.readouterr().out.strip()


@pytest.mark.parametrize("bias", [-1, 1])
def test_cli_predicts_with_liblinear_models_like_liblinear(tmp_path, svm_files, capsys, bias):
    X, y, test, yt = svm_files
    model_path = tmp_path / "ll.model"
    model = liblinear.train(y.astype(float).tolist(), X, f"-s 4 -B {bias} -q")
    liblinear.save_model(str(model_path), model)
    yt_, xt = liblinear.svm_read_problem(str(test))
    want, (acc, _, _), _ = liblinear.predict(yt_, xt, liblinear.load_model(str(model_path)), "-q")
    line = run_predict(capsys, test, model_path, tmp_path / "out")
    correct = int(np.sum(np.asarray(want) == yt))
    assert line == f"Accuracy = {acc:g}% ({correct}/{len(yt)})"
    got = (tmp_path / "out").read_text().split()
    assert got == [f"{v:g}" for v in want]


@pytest.mark.parametrize("kernel", ["rbf", "poly"])
def test_cli_predicts_with_libsvm_models_like_svm_predict(tmp_path, svm_files, capsys, kernel):
    X, y, test, yt = svm_files
    model_path, model = libsvm_file(tmp_path, X, y, KERNELS[kernel])
    Xt, _ = pegasos_rs.load_svmlight_file(test)
    want, _ = libsvm_reference(model, Xt)
    line = run_predict(capsys, test, model_path, tmp_path / "out")
    correct = int(np.sum(want == yt))
    m = re.fullmatch(r"Accuracy = ([\d.]+)% \((\d+)/(\d+)\) \(classification\)", line)
    assert m, line
    assert (int(m.group(2)), int(m.group(3))) == (correct, len(yt))
    assert float(m.group(1)) == pytest.approx(100 * correct / len(yt), rel=1e-5)
    got = np.array([float(v) for v in (tmp_path / "out").read_text().split()])
    np.testing.assert_array_equal(got, want)


def test_cli_predicts_with_libsvm_one_class_models_like_svm_predict(tmp_path, svm_files, capsys):
    """svm-predict with a one-class model writes +1/-1 and the accuracy against the
    file's labels (classification)."""
    X, y, test, yt = svm_files
    model_path, model = libsvm_file(tmp_path, X, y, "-s 2 -n 0.3 -t 2 -g 0.5")
    Xt, _ = pegasos_rs.load_svmlight_file(test)
    want, _ = libsvm_reference(model, Xt)
    line = run_predict(capsys, test, model_path, tmp_path / "out")
    correct = int(np.sum(want == yt))
    assert line.startswith("Accuracy = ") and line.endswith(
        f"({correct}/{len(yt)}) (classification)"
    ), line
    got = (tmp_path / "out").read_text().split()
    assert set(got) <= {"1", "-1"}
    np.testing.assert_array_equal(np.array(got, dtype=float), want)


def predict_c_regression_lines(pred, target):
    """The two lines LIBLINEAR's predict.c (and LIBSVM's svm-predict.c) print for a
    regression model: its running sums, row by row, then its formulas (a plain
    Python loop, as the C one)."""
    error = sump = sumt = sumpp = sumtt = sumpt = 0.0
    for p, t in zip(pred, target, strict=True):
        error += (p - t) * (p - t)
        sump += p
        sumt += t
        sumpp += p * p
        sumtt += t * t
        sumpt += p * t
    total = len(pred)
    num = total * sumpt - sump * sumt
    scc = (num * num) / ((total * sumpp - sump * sump) * (total * sumtt - sumt * sumt))
    return [
        f"Mean squared error = {error / total:g} (regression)",
        f"Squared correlation coefficient = {scc:g} (regression)",
    ]


def regression_test_file(tmp_path, Xt, yt):
    test = tmp_path / "test.svm"
    dump_svmlight_file(Xt, yt, test, zero_based=False)
    return test


@pytest.mark.parametrize("solver", [11, 12, 13])
@pytest.mark.parametrize("data", ["diabetes", "cpusmall"])
def test_cli_predict_reports_liblinear_regression_as_liblinear(tmp_path, capsys, solver, data):
    """pegasos-rs predict on a LIBLINEAR SVR model prints predict's two regression
    lines (not an accuracy) and writes one value per line with %.17g."""
    X, y, Xt, yt = real_data(data)
    test = regression_test_file(tmp_path, Xt, yt)
    path = tmp_path / "svr.model"
    options = f"-s {solver} -B 1 -p {svr_epsilon(y)} -q"
    liblinear.save_model(str(path), liblinear.train(y.tolist(), X, options))
    yy, xx = liblinear.svm_read_problem(str(test))  # the test file as LIBLINEAR reads it
    want, _, _ = liblinear.predict(yy, xx, liblinear.load_model(str(path)), "-q")
    out = tmp_path / "out"
    assert run_predict(capsys, test, path, out).splitlines() == predict_c_regression_lines(want, yy)
    lines = out.read_text().splitlines()
    assert_same_values([float(v) for v in lines], want)
    ours = read_model(path).predict(pegasos_rs.load_svmlight_file(test)[0])
    assert lines == [f"{v:.17g}" for v in ours]  # every digit of the value, as LIBLINEAR


@pytest.mark.parametrize("svm_type", ["-s 3 -p 5", "-s 4 -n 0.4"])
def test_cli_predict_reports_libsvm_regression_as_svm_predict(tmp_path, capsys, svm_type):
    X, y, Xt, yt = real_data("diabetes")
    test = regression_test_file(tmp_path, Xt, yt)
    path, model = libsvm_file(tmp_path, X, y, f"{svm_type} -t 2 -g 1 -c 10")
    want, _ = libsvm_reference(model, pegasos_rs.load_svmlight_file(test)[0])
    out = tmp_path / "out"
    lines = run_predict(capsys, test, path, out).splitlines()
    assert lines == predict_c_regression_lines(want, yt)
    assert_same_values([float(v) for v in out.read_text().split()], want)


def test_cli_predict_regression_edge_cases_as_liblinear(tmp_path, capsys):
    """No rows: 0/0 in both measures, which C's printf writes 'nan' ('-nan' on
    x86-64, where 0.0/0.0 has its sign bit set); constant predictions: the squared
    correlation is 0/0 too; -q prints nothing; -b 1 is refused as LIBLINEAR's
    predict refuses it, before anything is written."""
    path = tmp_path / "svr.model"
    path.write_text("solver_type L2R_L2LOSS_SVR\nnr_class 2\nnr_feature 2\nbias -1\nw\n0\n0\n")
    empty = tmp_path / "empty.svm"
    empty.write_text("")
    out = tmp_path / "out"
    lines = run_predict(capsys, empty, path, out).splitlines()
    assert [re.sub(r"-?nan", "nan", line) for line in lines] == [
        "Mean squared error = nan (regression)",
        "Squared correlation coefficient = nan (regression)",
    ]
    assert out.read_text() == ""
    data = tmp_path / "d.svm"
    data.write_text("1.5 1:1\n-2 2:3\n4 1:2 2:1\n")
    lines = run_predict(capsys, data, path, out).splitlines()
    assert lines[0] == f"Mean squared error = {(1.5**2 + 2**2 + 4**2) / 3:g} (regression)"
    assert re.fullmatch(r"Squared correlation coefficient = -?nan \(regression\)", lines[1])
    assert out.read_text() == "0\n0\n0\n"
    assert main(["predict", "-q", str(data), str(path), str(out)]) == 0
    assert capsys.readouterr().out == ""
    out.unlink()
    with pytest.raises(SystemExit, match=r"regression model.*only supported for logistic regr"):
        main(["predict", "-b", "1", str(data), str(path), str(out)])
    assert not out.exists()


def test_what_predict_reports_as_regression():
    """One predicate decides: LIBLINEAR's and LIBSVM's regression models and any
    scikit-learn regressor (so pegasos-rs' regressors need no change here)."""
    from pegasos_rs import PegasosClassifier
    from pegasos_rs.cli.predict import _is_regression
    from pegasos_rs.io.foreign_models import read_libsvm
    from sklearn.linear_model import Ridge, SGDRegressor
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    class Marked:
        _estimator_type = "regressor"

    svr = LiblinearRegressionModel("L2R_L2LOSS_SVR", np.zeros(2), -1.0, 0.0)
    kernel_svr = read_libsvm(
        "svm_type nu_svr\nkernel_type linear\nnr_class 2\ntotal_sv 1\nrho 0\nSV\n1 1:1\n"
    )
    for model in (
        svr,
        kernel_svr,
        SGDRegressor(),
        make_pipeline(StandardScaler(), Ridge()),
        Marked(),
    ):
        assert _is_regression(model), model
    classifier = LiblinearModel("L2R_LR", np.array([1, -1]), np.zeros((2, 1)), -1.0, np.zeros(1))
    for model in (classifier, PegasosClassifier(), make_pipeline(PegasosClassifier()), object()):
        assert not _is_regression(model), model


def refused_models(tmp_path, X, y):
    """(model file, line, fragment of the message) for each model type refused."""
    out, labels = [], y.astype(float).tolist()
    K = np.hstack([np.arange(1, X.shape[0] + 1)[:, None], (X @ X.T).toarray()])
    for options in ("-t 4", "-s 3 -t 4"):  # a classifier, a regression model
        path = tmp_path / f"precomputed{len(out)}.model"
        svmutil.svm_save_model(str(path), svmutil.svm_train(labels, K, options + " -q"))
        out.append((path, 2, "precomputed kernel"))
    return out


def test_refused_model_types_say_what_is_supported(tmp_path, svm_files):
    X, y, test, _ = svm_files
    for path, line, what in refused_models(tmp_path, X, y):
        with pytest.raises(DataFormatError) as info:
            read_model(path)
        e = info.value
        assert (e.file, e.line) == (str(path), line), str(e)
        assert what in e.reason
        assert "c_svc, nu_svc, epsilon_svr, nu_svr and one_class" in e.reason
        with pytest.raises(SystemExit, match=re.escape(f"{path}: line {line}: ")):
            main(["predict", str(test), str(path), str(tmp_path / "out")])
    with pytest.raises(ValueError, match=r"a LIBSVM model file.*read_model"):
        pegasos_rs.load(tmp_path / "precomputed0.model")


def test_a_bad_model_file_is_one_line_and_exit_status_1(tmp_path, svm_files):
    X, y, test, _ = svm_files
    path, _ = libsvm_file(tmp_path, X, y, "-t 2")
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join(lines[:-3]))  # three support vectors short
    done = subprocess.run(
        [sys.executable, "-m", "pegasos_rs", "predict", str(test), str(path), str(tmp_path / "o")],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 1
    assert done.stdout == ""
    assert re.fullmatch(
        rf"pegasos-rs predict: {re.escape(str(path))}: line {len(lines) - 2}: expected \d+ "
        r"support vectors after 'SV' \(line \d+\), found \d+: truncated\?\n",
        done.stderr,
    ), done.stderr


def test_truncated_libsvm_models_are_refused_at_every_line(tmp_path, svm_files):
    X, y, _, _ = svm_files
    path, _ = libsvm_file(tmp_path, X, y, "-t 1 -g 0.5 -r 1 -d 2")
    lines = path.read_text().splitlines(keepends=True)
    cut = tmp_path / "cut.model"
    for k in range(len(lines)):
        cut.write_text("".join(lines[:k]))
        with pytest.raises(DataFormatError) as info:
            read_model(cut)
        assert info.value.file == str(cut)
    # Cut inside a support vector's line, in the middle of an index:value pair.
    cut.write_text("".join(lines[:-1]) + lines[-1].split(":")[0])
    with pytest.raises(DataFormatError) as info:
        read_model(cut)
    assert info.value.line == len(lines)


LIBSVM_OK = (
    "svm_type c_svc\nkernel_type rbf\ngamma 0.5\nnr_class 2\ntotal_sv 2\nrho 0.1\n"
    "label 1 -1\nnr_sv 1 1\nSV\n1 1:0.5 3:1\n-1 2:1\n"
)


@pytest.mark.parametrize(
    "text, line, fragment",
    [
        (LIBSVM_OK.replace("1 1:0.5", "x 1:0.5"), 10, "coefficient(s) then index:value"),
        (LIBSVM_OK.replace("1:0.5 3:1", "3:0.5 1:1"), 10, "increasing"),
        (LIBSVM_OK.replace("1:0.5 3:1", "0:0.5 3:1"), 10, "indices >= 1"),
        (LIBSVM_OK.replace("3:1", "3:nan"), 10, "finite values"),
        (LIBSVM_OK.replace("3:1", "3"), 10, "index:value"),
        (LIBSVM_OK.replace("nr_sv 1 1", "nr_sv 1 2"), 8, "adding up to total_sv"),
        (LIBSVM_OK.replace("rho 0.1", "rho 0.1 0.2"), 6, "expected 1 value(s) after rho"),
        (LIBSVM_OK.replace("gamma 0.5", "gamma -1"), 3, "gamma -1.0 < 0"),
        (LIBSVM_OK.replace("gamma 0.5\n", ""), None, "no 'gamma' line"),
        (LIBSVM_OK.replace("label 1 -1", "label 1 1"), 7, "not distinct"),
        (LIBSVM_OK.replace("nr_class 2", "nr_class 0"), 4, "bad nr_class"),
        (LIBSVM_OK.replace("nr_class 2", "nr_class 3"), 7, "expected 3 value(s) after label"),
        (LIBSVM_OK.replace("svm_type c_svc", "svm_type c_svm"), 1, "unknown LIBSVM svm_type"),
        (LIBSVM_OK.replace("kernel_type rbf", "kernel_type chi2"), 2, "unknown kernel_type"),
        (LIBSVM_OK.replace("SV\n", "SV\nprobC 1\n"), 10, "coefficient(s)"),
        (LIBSVM_OK.replace("label", "probC 1\nlabel"), 7, "unknown keyword 'probC'"),
        (LIBSVM_OK + "2 4:1\n", 12, "text after the 2 support vectors"),
        (LIBSVM_OK.replace("SV\n", ""), None, "no 'SV' line"),
    ],
)
def test_garbled_libsvm_models_name_the_line(tmp_path, text, line, fragment):
    path = tmp_path / "m.model"
    path.write_text(LIBSVM_OK)
    assert isinstance(read_model(path), LibsvmModel)
    path.write_text(text)
    with pytest.raises(DataFormatError) as info:
        read_model(path)
    assert fragment in info.value.reason, info.value.reason
    assert (info.value.file, info.value.line) == (str(path), line)


def test_other_files_are_not_models(tmp_path, svm_files):
    _, _, test, _ = svm_files
    with pytest.raises(DataFormatError, match="not a model file pegasos-rs reads"):
        read_model(test)


def test_mutated_model_files_load_and_predict_or_raise_data_format_error(tmp_path):
    """Random byte edits of LIBSVM and LIBLINEAR files: reading raises
    DataFormatError or gives a model that predicts (or raises ValueError)."""
    rng = np.random.RandomState(0)
    liblinear_ok = (
        "solver_type MCSVM_CS\nnr_class 3\nlabel 2 0 1\nnr_feature 2\nbias 1\n"
        "w\n0.5 1 -1\n-0.25 0 1\n0.125 2 3\n"
    )
    poly = LIBSVM_OK.replace("rbf\ngamma 0.5", "polynomial\ndegree 3\ngamma 0.5\ncoef0 1")
    alphabet = [*b"0123456789 .:-e\nxn", 0, 255]
    X = sp.csr_matrix(np.random.RandomState(1).rand(3, 5))
    path = tmp_path / "m"
    outcomes = set()
    for seed_text in (LIBSVM_OK, poly, liblinear_ok):
        for _ in range(150):
            data = bytearray(seed_text.encode())
            for _ in range(rng.randint(1, 4)):
                at = rng.randint(len(data))
                edit = rng.randint(3)
                if edit == 0:
                    del data[at]
                elif edit == 1:
                    data.insert(at, alphabet[rng.randint(len(alphabet))])
                else:
                    data[at] = alphabet[rng.randint(len(alphabet))]
            path.write_bytes(bytes(data))
            try:
                model = read_model(path)
            except DataFormatError:
                outcomes.add("refused")
                continue
            try:
                assert model.predict(X).shape == (3,)
                outcomes.add("predicted")
            except ValueError:
                outcomes.add("refused X")
    assert {"refused", "predicted"} <= outcomes


def test_cli_an_empty_data_file_predicts_nothing(tmp_path, svm_files, capsys):
    X, y, _, _ = svm_files
    empty = tmp_path / "empty.svm"
    empty.write_text("")
    path, _ = libsvm_file(tmp_path, X, y, "-t 2")
    out = tmp_path / "out"
    assert run_predict(capsys, empty, path, out) == "Accuracy = 0% (0/0) (classification)"
    assert out.read_text() == ""
