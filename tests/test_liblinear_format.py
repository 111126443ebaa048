"""write_liblinear_model and ``pegasos-rs export``: models pegasos-rs trained, written
as LIBLINEAR model files, predict in LIBLINEAR (liblinear-official's own C code) as
they predict here."""

from __future__ import annotations

import numpy as np
import pegasos_rs
import pytest
import scipy.sparse as sp
from conftest import make_problem
from pegasos_rs import (
    KernelPegasosClassifier,
    KernelPegasosRegressor,
    PegasosClassifier,
    PegasosRanker,
    PegasosRegressor,
    dump_svmlight_file,
    write_liblinear_model,
)
from pegasos_rs.cli import main
from pegasos_rs.exceptions import NotFittedError
from pegasos_rs.io.foreign_models import LiblinearRegressionModel, read_model

llu = pytest.importorskip("liblinear.liblinearutil")

LOSSES = ["hinge", "log_loss", "squared_hinge", "modified_huber"]
SOLVERS = {
    "hinge": "L2R_L1LOSS_SVC_DUAL",
    "log_loss": "L2R_LR",
    "squared_hinge": "L2R_L2LOSS_SVC",
    "modified_huber": "L2R_L2LOSS_SVC",
}
REGRESSION_SOLVERS = {
    "epsilon_insensitive": "L2R_L1LOSS_SVR_DUAL",
    "squared_epsilon_insensitive": "L2R_L2LOSS_SVR",
    "squared_error": "L2R_L2LOSS_SVR",
    "huber": "L2R_L2LOSS_SVR",
}
#: Labels that are neither sorted in LIBLINEAR's order nor 0..K-1.
LABELS = np.array([7, -1, 3, 12])


def _problem(n_classes, sparse, seed=0):
    X, y = make_problem(n_samples=120, n_features=8, n_classes=n_classes, seed=seed)
    X[:, -1] = 0.0  # the last feature never occurs: the svmlight file is narrower
    return (sp.csr_matrix(X) if sparse else X), LABELS[y]


def _liblinear_predict(tmp_path, model_file, X, y, options="-q"):
    """LIBLINEAR's labels, probabilities/decision values and label order for ``X``
    written with dump_svmlight_file(zero_based=False) and read by its reader."""
    data = tmp_path / "data.svm"
    dump_svmlight_file(X, y, data, zero_based=False)
    ys, xs = llu.svm_read_problem(str(data))
    m = llu.load_model(str(model_file))
    assert m is not None, "LIBLINEAR could not load the file"
    labels, _, values = llu.predict(ys, xs, m, options)
    return np.array(labels), np.array(values), np.array(m.get_labels())


def _close(ours, theirs):
    """Equal to 1e-12 relative (to the largest value: entries near 0 are sums of
    larger terms)."""
    scale = max(1.0, float(np.max(np.abs(ours), initial=0.0)))
    np.testing.assert_allclose(theirs, ours, rtol=1e-12, atol=1e-12 * scale)


def _check_classifier(tmp_path, est, X, y):
    path = tmp_path / "model.liblinear"
    write_liblinear_model(est, path)
    labels, values, order = _liblinear_predict(tmp_path, path, X, y)
    np.testing.assert_array_equal(labels, est.predict(X))
    ours = est.decision_function(X)
    if len(est.classes_) == 2:
        # label order classes_[1], classes_[0]: the first column scores classes_[1]
        np.testing.assert_array_equal(order, est.classes_[::-1])
        # (LIBLINEAR's predict gives two-class models one value, also for MCSVM_CS:
        # the first column's, whose sign decides)
        _close(ours, values[:, 0])
    else:
        np.testing.assert_array_equal(order, est.classes_)
        _close(ours, values)
    # the reader pegasos-rs already had gives the estimator's predictions back
    back = pegasos_rs.load(path)
    np.testing.assert_array_equal(back.predict(X), est.predict(X))
    _close(ours, back.decision_function(X))
    return path


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("loss", LOSSES)
def test_classifiers_predict_in_liblinear_as_here(tmp_path, loss, n_classes, fit_intercept, sparse):
    X, y = _problem(n_classes, sparse, seed=n_classes)
    est = PegasosClassifier(
        loss=loss, alpha=1e-2, max_iter=5, fit_intercept=fit_intercept, random_state=0
    ).fit(X, y)
    path = _check_classifier(tmp_path, est, X, y)
    head = path.read_text().splitlines()[:6]
    assert head[0] == f"solver_type {SOLVERS[loss]}"
    assert head[4] == ("bias 1" if fit_intercept else "bias -1")
    if loss == "log_loss":
        # LIBLINEAR's -b 1: the sigmoid for two classes, and for more the one-vs-rest
        # sigmoids normalised to sum to 1, which is what predict_proba computes.
        _, proba, order = _liblinear_predict(tmp_path, path, X, y, "-b 1 -q")
        ours = est.predict_proba(X)[:, np.searchsorted(est.classes_, order)]
        _close(ours, proba)
    else:  # LIBLINEAR refuses -b 1 for every solver but logistic regression
        m = llu.load_model(str(path))
        with pytest.raises(TypeError, match="probability output is only supported"):
            llu.predict([], [{1: 1.0}], m, "-b 1 -q")


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("n_classes", [2, 4])
def test_crammer_singer_is_written_as_mcsvm_cs(tmp_path, n_classes, fit_intercept, sparse):
    X, y = _problem(n_classes, sparse, seed=5)
    est = PegasosClassifier(
        multi_class="crammer_singer", alpha=1e-2, max_iter=5, fit_intercept=fit_intercept
    ).fit(X, y)
    path = _check_classifier(tmp_path, est, X, y)
    lines = path.read_text().splitlines()
    assert lines[0] == "solver_type MCSVM_CS"
    assert lines[1] == f"nr_class {n_classes}"
    # nr_w = nr_class columns, also for two classes
    assert all(len(row.split()) == n_classes for row in lines[6:])
    assert len(lines) == 6 + 8 + fit_intercept


@pytest.mark.parametrize("multi_class", ["ovr_shared", "ovr"])
@pytest.mark.parametrize("intercept_scaling", [None, 3.0])
def test_intercept_is_exact_whatever_intercept_scaling_was(
    tmp_path, intercept_scaling, multi_class
):
    X, y = _problem(3, False, seed=7)
    est = PegasosClassifier(
        alpha=1e-2, max_iter=5, intercept_scaling=intercept_scaling, multi_class=multi_class
    ).fit(X, y)
    path = _check_classifier(tmp_path, est, X, y)
    lines = path.read_text().splitlines()
    assert lines[4] == "bias 1"
    bias_row = np.array([float(v) for v in lines[-1].split()])
    np.testing.assert_array_equal(bias_row, est.intercept_)


def test_the_file_is_liblinears_layout_with_exact_values(tmp_path):
    X, y = _problem(2, False)
    est = PegasosClassifier(loss="log_loss", alpha=1e-2, max_iter=5).fit(X, y)
    path = tmp_path / "m"
    write_liblinear_model(est, path)
    text = path.read_text()
    lines = text.splitlines()
    head = ["solver_type L2R_LR", "nr_class 2", "label 7 -1", "nr_feature 8", "bias 1", "w"]
    assert lines[:6] == head
    assert text.endswith(" \n")
    assert all(row.endswith(" ") for row in lines[6:])  # "%.17g " after every value
    weights = np.array([float(row) for row in lines[6:]])
    np.testing.assert_array_equal(weights, np.r_[est.coef_[0], est.intercept_])
    # what LIBLINEAR's own save_model writes from the model it loaded: the same bytes
    again = tmp_path / "again"
    llu.save_model(str(again), llu.load_model(str(path)))
    assert again.read_text() == text


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("loss", list(REGRESSION_SOLVERS))
def test_regressors_predict_in_liblinear_as_here(tmp_path, loss, fit_intercept, sparse):
    rng = np.random.default_rng(3)
    X = rng.normal(size=(100, 6))
    X[:, -1] = 0.0
    y = X @ rng.normal(size=6) + 2.0 + 0.1 * rng.normal(size=100)
    X = sp.csr_matrix(X) if sparse else X
    est = PegasosRegressor(
        loss=loss, alpha=1e-3, max_iter=5, fit_intercept=fit_intercept, random_state=0
    ).fit(X, y)
    path = tmp_path / "model.liblinear"
    write_liblinear_model(est, path)
    lines = path.read_text().splitlines()
    assert lines[:2] == [f"solver_type {REGRESSION_SOLVERS[loss]}", "nr_class 2"]
    assert not any(line.startswith("label") for line in lines)  # as LIBLINEAR's files
    assert lines[3] == ("bias 1" if fit_intercept else "bias -1")
    values, decision, _ = _liblinear_predict(tmp_path, path, X, y)
    ours = est.predict(X)
    _close(ours, values)
    _close(ours, decision[:, 0])
    back = read_model(path)
    assert isinstance(back, LiblinearRegressionModel)
    np.testing.assert_array_equal(back.predict(X), ours)


def test_real_datasets(tmp_path):
    datasets = pytest.importorskip("sklearn.datasets")
    X, y = datasets.load_iris(return_X_y=True)
    _check_classifier(tmp_path, PegasosClassifier(alpha=1e-3, max_iter=5).fit(X, y), X, y)
    X, y = datasets.load_breast_cancer(return_X_y=True)
    X = X / X.max(axis=0)
    est = PegasosClassifier(loss="log_loss", alpha=1e-3, max_iter=5).fit(X, y)
    _check_classifier(tmp_path, est, X, y)


def _refused(tmp_path, model, error, message):
    path = tmp_path / "refused"
    with pytest.raises(error, match=message):
        write_liblinear_model(model, path)
    assert not path.exists()  # checked before the file is opened


def test_refusals_name_the_class_and_the_reason(tmp_path):
    X, y = _problem(2, False)
    _refused(tmp_path, PegasosClassifier(), NotFittedError, "PegasosClassifier that is not fitted")
    _refused(tmp_path, PegasosRegressor(), NotFittedError, "PegasosRegressor that is not fitted")
    kernel = KernelPegasosClassifier(max_iter=1).fit(X, y)
    _refused(tmp_path, kernel, TypeError, "KernelPegasosClassifier: it is a kernel model.*LIBSVM")
    kernel_r = KernelPegasosRegressor(max_iter=1).fit(X, y.astype(float))
    _refused(tmp_path, kernel_r, TypeError, "KernelPegasosRegressor: it is a kernel model")
    ranker = PegasosRanker(max_iter=1, sampling="roc").fit(X, y)
    _refused(tmp_path, ranker, TypeError, "PegasosRanker: LIBLINEAR has no ranking model")
    from sklearn.linear_model import LogisticRegression

    other = LogisticRegression().fit(X, y)
    _refused(tmp_path, other, TypeError, "LogisticRegression: .*PegasosClassifier, Pegasos")
    _refused(tmp_path, PegasosClassifier, TypeError, "pass a fitted estimator")
    platt = PegasosClassifier(probability=True, max_iter=2).fit(X, y)
    _refused(tmp_path, platt, ValueError, "probability=True: .*Platt's sigmoids")


@pytest.mark.parametrize(
    ("labels", "shown"),
    [
        (np.array(["no", "yes"]), "'no'"),
        (np.array([1, 2**40]), str(2**40)),
        (np.array([False, True]), "False"),
    ],
)
def test_labels_liblinear_cannot_hold_are_refused(tmp_path, labels, shown):
    X, y = _problem(2, False)
    est = PegasosClassifier(max_iter=1).fit(X, labels[(y == LABELS[1]).astype(int)])
    _refused(tmp_path, est, ValueError, f"class label {shown}: LIBLINEAR model files hold integer")


def test_non_integer_float_labels_are_refused(tmp_path):
    X, y = _problem(2, False)
    est = PegasosClassifier(max_iter=1).fit(X, y)
    # scikit-learn's target check refuses to fit on labels 0.5 / 1.5 (continuous), but
    # a fitted estimator's classes_ can be any array (set by hand, or by an older
    # scikit-learn): the writer checks what it is given.
    est.classes_ = np.array([0.5, 1.5])
    _refused(tmp_path, est, ValueError, "class label 0.5: LIBLINEAR model files hold integer")


def test_integral_float_labels_are_written_as_integers(tmp_path):
    X, y = _problem(3, False)
    est = PegasosClassifier(max_iter=2).fit(X, y.astype(float))
    path = _check_classifier(tmp_path, est, X, y)
    assert path.read_text().splitlines()[2] == "label -1 3 7"


def test_cli_export_writes_a_file_liblinear_loads(tmp_path, capsys):
    X, y = _problem(3, False)
    est = PegasosClassifier(loss="squared_hinge", alpha=1e-2, max_iter=3).fit(X, y)
    saved, out = tmp_path / "m.pegasos", tmp_path / "m.liblinear"
    est.save(saved)
    assert main(["export", "--format", "liblinear", str(saved), str(out)]) == 0
    labels, values, _ = _liblinear_predict(tmp_path, out, X, y)
    np.testing.assert_array_equal(labels, est.predict(X))
    _close(est.decision_function(X), values)

    with pytest.raises(SystemExit) as e:
        main(["export", "--help"])
    assert e.value.code == 0
    assert "LIBLINEAR's model file" in capsys.readouterr().out
    with pytest.raises(SystemExit) as e:  # --format is required (unless OUT ends in .onnx)
        main(["export", str(saved), str(out)])
    assert e.value.code == 2
    assert "--format" in capsys.readouterr().err


def test_cli_export_errors_are_one_line_messages(tmp_path):
    X, y = _problem(2, False)
    kernel = tmp_path / "kernel.model"
    KernelPegasosClassifier(max_iter=1).fit(X, y).save(kernel)
    out = tmp_path / "out"
    for argv, message in [
        ([str(kernel), str(out)], r"^pegasos-rs export: .*KernelPegasosClassifier: it is a kernel"),
        ([str(tmp_path / "missing"), str(out)], "^pegasos-rs export: .*No such file"),
        ([str(out.parent / "nodir" / "x"), str(out)], "^pegasos-rs export: "),
    ]:
        with pytest.raises(SystemExit, match=message) as e:
            main(["export", "--format", "liblinear", *argv])
        assert "\n" not in str(e.value.code)
    assert not out.exists()
    saved = tmp_path / "ok.model"
    PegasosClassifier(max_iter=1).fit(X, y).save(saved)
    with pytest.raises(SystemExit, match=r"^pegasos-rs export: .*No such file"):
        main(["export", "--format", "liblinear", str(saved), str(tmp_path / "no" / "out")])


def test_one_class_svm_predicts_in_liblinear_as_here(tmp_path):
    """A PegasosOneClassSVM written as LIBLINEAR's -s 21 file: LIBLINEAR's decision
    values are ours, its labels ours but at a score of exactly rho (LIBLINEAR's
    -1 for w.x - rho = 0, scikit-learn's rule +1); read back as LIBLINEAR's
    one-class model."""
    from pegasos_rs import PegasosOneClassSVM
    from pegasos_rs.io.foreign_models import read_model

    X, _ = make_problem(n_samples=150, n_features=6, n_classes=2, seed=4)
    X = X + 0.5
    est = PegasosOneClassSVM(nu=0.2, random_state=0).fit(X)
    path = tmp_path / "oc.liblinear"
    write_liblinear_model(est, path)
    y = np.ones(X.shape[0])
    labels, values, _ = _liblinear_predict(tmp_path, path, X, y)
    ours = est.decision_function(X)
    _close(ours, values.ravel())
    away = np.abs(ours) > 1e-9
    np.testing.assert_array_equal(labels[away], est.predict(X)[away])
    back = read_model(path)
    np.testing.assert_allclose(back.decision_function(X).ravel(), ours, rtol=1e-12, atol=1e-12)
