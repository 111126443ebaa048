"""``pegasos-rs train`` / ``predict`` end to end, as LIBLINEAR's programs are used."""

from __future__ import annotations

import re
import subprocess
import sys

import numpy as np
import pegasos_rs
import pytest
from conftest import make_problem
from pegasos_rs import dump_svmlight_file
from pegasos_rs.cli import main


@pytest.fixture
def files(tmp_path):
    X, y = make_problem(n_samples=400, n_features=10, n_classes=3, seed=2)
    labels = np.array([-1, 1, 7])[y]
    train, test = tmp_path / "train.svm", tmp_path / "test.svm"
    dump_svmlight_file(X[:300], labels[:300], train, zero_based=False)
    dump_svmlight_file(X[300:], labels[300:], test, zero_based=False)
    return tmp_path, train, test, labels[300:]


def test_train_then_predict_prints_accuracy_like_liblinear(files, capsys, monkeypatch):
    tmp, train, test, y_test = files
    monkeypatch.chdir(tmp)
    assert main(["train", "-c", "1", "-B", "1", "--passes", "5", "--average", "1", str(train)]) == 0
    assert (tmp / "train.svm.model").exists()  # LIBLINEAR's default model name
    out = tmp / "out.txt"
    assert main(["predict", str(test), "train.svm.model", str(out)]) == 0
    line = capsys.readouterr().out.strip()
    m = re.fullmatch(r"Accuracy = ([\d.]+)% \((\d+)/(\d+)\)", line)
    assert m, line
    predicted = np.array([float(v) for v in out.read_text().split()])
    assert len(predicted) == len(y_test) == int(m.group(3))
    assert int(m.group(2)) == int(np.sum(predicted == y_test))
    assert set(out.read_text().split()) <= {"-1", "1", "7"}  # labels as LIBLINEAR writes
    assert float(m.group(1)) > 60
    model = pegasos_rs.load(tmp / "train.svm.model")
    assert model.alpha == pytest.approx(1 / 300)


@pytest.mark.parametrize(("flag", "average"), [([], True), (["--average", "0"], False)])
def test_train_averages_by_default_as_the_estimator_does(files, tmp_path, flag, average):
    _, train, _, _ = files
    model = tmp_path / "m.model"
    assert main(["train", "-q", "--passes", "3", *flag, str(train), str(model)]) == 0
    est = pegasos_rs.load(model)
    assert est.average is average
    X, y = pegasos_rs.load_svmlight_file(train)
    ref = pegasos_rs.PegasosClassifier(
        alpha=1 / X.shape[0], max_iter=3, fit_intercept=False, average=average, random_state=0
    ).fit(X, y)
    np.testing.assert_array_equal(est.coef_, ref.coef_)


def test_kernel_training_class_weights_and_cross_validation(files, capsys):
    tmp, train, _, _ = files
    model = tmp / "k.model"
    args = ["train", "-t", "2", "-g", "0.5", "--alpha", "0.01", "--passes", "3", "-w7", "2"]
    args += ["-w-1", "0.5"]
    assert main([*args, "-q", str(train), str(model)]) == 0
    est = pegasos_rs.load(model)
    assert type(est).__name__ == "KernelPegasosClassifier"
    assert est.class_weight == {7.0: 2.0, -1.0: 0.5}
    assert main(["train", "-v", "3", "--passes", "3", str(train)]) == 0
    assert re.fullmatch(r"Cross Validation Accuracy = [\d.]+%", capsys.readouterr().out.strip())


def test_train_s4_trains_crammer_singer_and_predicts(files, capsys, tmp_path):
    _, train, test, y_test = files
    model = tmp_path / "cs.model"
    args = ["-s", "4", "-c", "1", "-B", "1", "--passes", "5", "-q", str(train), str(model)]
    assert main(["train", *args]) == 0
    est = pegasos_rs.load(model)
    assert est.multi_class == "crammer_singer"
    assert est.coef_.shape == (3, 10)
    X, y = pegasos_rs.load_svmlight_file(train)
    ref = pegasos_rs.PegasosClassifier(
        alpha=1 / X.shape[0],
        max_iter=5,
        intercept_scaling=1.0,
        multi_class="crammer_singer",
        random_state=0,
    ).fit(X, y)
    np.testing.assert_array_equal(est.coef_, ref.coef_)
    out = tmp_path / "out"
    assert main(["predict", str(test), str(model), str(out)]) == 0
    acc = float(re.search(r"Accuracy = ([\d.]+)%", capsys.readouterr().out).group(1))
    predicted = np.array([float(v) for v in out.read_text().split()])
    assert acc == pytest.approx(100 * np.mean(predicted == y_test), abs=1e-3)
    assert acc > 60


def test_predict_reads_liblinear_models(files, capsys):
    liblinear = pytest.importorskip("liblinear.liblinearutil")
    tmp, train, test, _ = files
    y, x = liblinear.svm_read_problem(str(train))
    model = liblinear.train(y, x, "-s 3 -c 1 -B 1 -q")
    liblinear.save_model(str(tmp / "ll.model"), model)
    yt, xt = liblinear.svm_read_problem(str(test))
    want, (acc, _, _), _ = liblinear.predict(yt, xt, model, "-q")
    assert main(["predict", str(test), str(tmp / "ll.model"), str(tmp / "out")]) == 0
    line = capsys.readouterr().out
    assert f"Accuracy = {acc:g}%" in line
    got = np.array([float(v) for v in (tmp / "out").read_text().split()])
    np.testing.assert_array_equal(got, want)


def test_errors_are_messages_not_tracebacks(files, tmp_path):
    _, train, _, _ = files
    bad = tmp_path / "bad.svm"
    bad.write_text("1 1:0.5\n-1 2:x\n")
    for argv, message in [
        (["train", str(bad)], r"bad\.svm: line 2: the value .x. is not a number"),
        (["train", str(tmp_path / "missing.svm")], "No such file"),
        (["train", "--passes", "0", str(train)], r"invalid --passes 0: expected an int.* in \[1,"),
        (["train", "-p", "-1", str(train)], "invalid -p epsilon -1.0: expected a number >= 0"),
        (["train", "-s", "5", str(train)], "L1-regularised.*L2-regularised.*-s 2"),
        (["train", "-s", "4", "-b", "1", str(train)], "probability=True is not available"),
        (["train", "-s", "11", "-w1", "2", str(train)], "-wi weights classes.*regression"),
        (["train", "-s", "13", "-b", "1", str(train)], "-b 1 is for classifiers"),
        (["train", "-s", "11", "--sampling", "balanced", str(train)], "balanced is for"),
        (["train", "-n", "2", str(train)], "nu.*threads are --threads"),
        (["train", "-C", "-b", "1", str(train)], "-C cannot be combined with -b 1"),
        (["train", "-C", "--alpha", "0.1", str(train)], "-C cannot be combined with --alpha"),
        (["train", "-t", "4", str(train)], "precomputed"),
        (["train", "-t", "9", str(train)], "invalid -t 9: expected 0-3"),
        (["train", "-R", str(train)], "-R needs -B 1"),
        (["train", "-b", "1", "--dask", str(train), str(tmp_path / "m")], "-b 1 is not"),
        (["train", "-c", "-1", str(train)], "invalid -c cost -1.0: expected a number > 0"),
        (["train", "-w1", str(train)], "bad class weight"),
        (["train", "-t", "rbf", "-B", "1", str(train)], "unregularised bias: -R"),
        (["predict", str(train), str(bad), str(tmp_path / "o")], "not a model file pegasos-rs"),
        (["train", str(train), str(tmp_path / "no" / "m.model")], "cannot write the model"),
        (["train", "-v", "500", str(train)], "cross-validation: "),
        (["train", "--batch-size", str(2**70), str(train)], "invalid --batch-size"),
        (["train", "--seed", "-1", str(train)], r"invalid --seed -1: expected an int.* in \[0,"),
        (["train", "-B", "inf", str(train)], "invalid -B bias inf"),
        (["train", "--passes", str(2**32), str(train)], "invalid --passes"),
    ]:
        with pytest.raises(SystemExit, match=message):
            main(argv)


def test_console_script_help_documents_every_option():
    out = subprocess.run(
        [sys.executable, "-m", "pegasos_rs", "train", "--help"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    flags = ["-s", "-c", "-e", "-B", "-R", "-wi", "-t", "-g", "-d", "-r", "-m", "-h", "-v",
             "-q", "--alpha", "--passes", "--max-steps", "--batch-size", "--average",
             "--projection", "--sampling", "--seed", "--threads", "--dask", "--mode",
             "--rank", "--budget", "--budget-maintenance"]  # fmt: skip
    for flag in flags:
        assert re.search(rf"^\s+{re.escape(flag)}\b", out, re.M), flag
    assert "\noptions:\n" not in out  # one list of options, not argparse's twin
    out = subprocess.run(
        [sys.executable, "-m", "pegasos_rs", "--help"], capture_output=True, text=True, check=True
    ).stdout
    assert "train" in out and "predict" in out and "demo" in out


def test_ctrl_c_ends_the_program_with_status_130_and_no_traceback(monkeypatch, capsys):
    import pegasos_rs.cli as cli

    def interrupted():
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "main", interrupted)
    assert cli.run() == 130
    err = capsys.readouterr().err
    assert err == "pegasos-rs: interrupted\n"


def test_version():
    out = subprocess.run(
        [sys.executable, "-m", "pegasos_rs", "--version"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert out.strip() == f"pegasos-rs {pegasos_rs.__version__}"


def test_predict_warns_loudly_about_features_the_model_never_saw(files, tmp_path, capsys):
    _, train, _, _ = files
    model = tmp_path / "m.model"
    assert main(["train", "-q", "--passes", "2", str(train), str(model)]) == 0
    wide = tmp_path / "wide.svm"
    X = np.zeros((5, 40))
    X[:, 35] = 1.0
    dump_svmlight_file(X, np.ones(5), wide, zero_based=False)
    assert main(["predict", "-q", str(wide), str(model), str(tmp_path / "o")]) == 0
    err = capsys.readouterr().err
    assert "WARNING" in err and "has 36 features but the model was trained on 10" in err


def test_liblinear_and_libsvm_letters_keep_their_meaning(files, tmp_path):
    _, train, _, _ = files
    path = tmp_path / "m.model"

    def trained(*argv):
        assert main(["train", "-q", *argv, str(train), str(path)]) == 0
        return pegasos_rs.load(path)

    est = trained("-s", "3", "-c", "2", "-e", "0.01", "-h", "0", "--passes", "3")
    assert est.tol == 0.01 and est.fit_intercept is False  # LIBLINEAR's default: no bias
    est = trained("-B", "1", "--passes", "3")
    assert est.fit_intercept and est.intercept_scaling == 1.0
    est = trained("-B", "1", "-R", "--passes", "3")
    assert est.fit_intercept and est.intercept_scaling is None  # the unregularised bias
    for number, name in [("1", "poly"), ("2", "rbf"), ("3", "sigmoid")]:
        assert trained("-t", number, "--passes", "1").kernel == name
    assert trained("-t", "2", "-R", "--passes", "1").fit_intercept


def test_probability_estimates_with_b_1(tmp_path):
    """-b 1 at training fits Platt's sigmoids (probability=True); -b 1 at prediction
    writes LIBLINEAR's layout: a "labels" header, then the label and one
    probability per class; a model trained without -b 1 is refused."""
    rng = np.random.RandomState(0)
    X = rng.randn(300, 5)
    y = np.where(X[:, 0] + 0.3 * rng.randn(300) > 0, 1, -1)
    data = tmp_path / "d.svm"
    pegasos_rs.dump_svmlight_file(X, y, data)
    model, plain, out = tmp_path / "p.model", tmp_path / "q.model", tmp_path / "o.txt"
    assert main(["train", "-q", "-b", "1", "--seed", "3", str(data), str(model)]) == 0
    assert main(["train", "-q", "--seed", "3", str(data), str(plain)]) == 0
    assert main(["predict", "-q", "-b", "1", str(data), str(model), str(out)]) == 0
    lines = out.read_text().splitlines()
    assert lines[0] == "labels -1 1"
    rows = np.array([[float(v) for v in line.split()] for line in lines[1:]])
    est = pegasos_rs.load(model)
    np.testing.assert_array_equal(rows[:, 0], est.predict(X))
    np.testing.assert_allclose(rows[:, 1:], est.predict_proba(X), rtol=1e-5)
    with pytest.raises(SystemExit, match="has no probability estimates; train the model with"):
        main(["predict", "-b", "1", str(data), str(plain), str(out)])


# --- issue 24: LIBLINEAR's and LIBSVM's meanings, and messages that say what to do


def test_without_c_or_alpha_the_cost_is_liblinears_default_c_1(files, tmp_path):
    """No -c and no --alpha: C = 1 (LIBLINEAR's default), lambda = 1 / n_samples,
    the model of -c 1; -c and --alpha together are refused."""
    _, train, _, _ = files
    default, c1 = tmp_path / "d.model", tmp_path / "c1.model"
    assert main(["train", "-q", "--passes", "2", str(train), str(default)]) == 0
    assert main(["train", "-q", "--passes", "2", "-c", "1", str(train), str(c1)]) == 0
    est = pegasos_rs.load(default)
    assert est.alpha == 1 / 300
    np.testing.assert_array_equal(est.coef_, pegasos_rs.load(c1).coef_)
    with pytest.raises(SystemExit, match="-c and --alpha set the same thing"):
        main(["train", "-c", "1", "--alpha", "0.01", str(train), str(c1)])


def test_linear_kernel_trains_the_linear_solver_and_unused_kernel_options_warn(
    files, tmp_path, capsys
):
    """-t 0 / -t linear is PegasosClassifier whatever -g says; a kernel option the
    kernel does not use is named in a warning on stderr (and otherwise ignored)."""
    _, train, _, _ = files
    path = tmp_path / "m.model"
    for kernel in ("0", "linear"):
        argv = ["train", "-q", "-t", kernel, "-g", "0.5", "-d", "2", "-r", "1", "-m", "50"]
        assert main([*argv, "--passes", "2", str(train), str(path)]) == 0
        assert type(pegasos_rs.load(path)).__name__ == "PegasosClassifier"
        err = capsys.readouterr().err
        for flag in ("-g 0.5", "-d 2", "-r 1.0", "-m 50.0"):
            assert f"WARNING: {flag} has no effect with the linear kernel" in err, (flag, err)
    assert main(["train", "-q", "-t", "2", "-d", "5", "--projection", "0", "--passes", "1",
                 str(train), str(path)]) == 0  # fmt: skip
    err = capsys.readouterr().err
    assert "-d 5 has no effect with the rbf kernel" in err
    assert "--projection 0 has no effect with a kernel" in err
    assert main(["train", "-q", "-t", "1", "-d", "2", "-g", "0.1", "-r", "1", "--passes", "1",
                 str(train), str(path)]) == 0  # fmt: skip
    assert capsys.readouterr().err == ""  # poly uses all three
    assert pegasos_rs.load(path).degree == 2


def test_help_says_how_e_differs_from_liblinear():
    out = subprocess.run(
        [sys.executable, "-m", "pegasos_rs", "train", "--help"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    entry = re.search(r"^  -e epsilon.*?(?=^  -B)", out, re.M | re.S)
    assert entry, out
    text = " ".join(entry.group(0).split())
    assert "relative" in text
    assert "another rule than LIBLINEAR's" in text
    assert "primal objective is evaluated after every pass" in text


def test_weight_of_a_label_the_data_lacks_is_a_warning_then_training(files, tmp_path, capsys):
    """LIBLINEAR warns "class label 2 specified in weight is not found" and trains."""
    _, train, _, _ = files
    path = tmp_path / "m.model"
    assert main(["train", "-q", "-w2", "3", "-w7", "2", "--passes", "2", str(train),
                 str(path)]) == 0  # fmt: skip
    err = capsys.readouterr().err
    assert "WARNING: class label 2 of -w2 is not in the data (its labels: -1, 1, 7)" in err
    assert pegasos_rs.load(path).class_weight == {7.0: 2.0}
    assert main(["train", "-q", "-w2", "3", "-t", "2", "--passes", "1", str(train),
                 str(path)]) == 0  # fmt: skip
    assert "class label 2 of -w2" in capsys.readouterr().err
    assert pegasos_rs.load(path).class_weight is None


@pytest.mark.parametrize("solver", [0, 6, 7])
@pytest.mark.parametrize("n_classes", [2, 3])
def test_predict_b_1_gives_liblinears_logistic_regression_probabilities(
    tmp_path, capsys, solver, n_classes
):
    """predict -b 1 on a LIBLINEAR -s 0/6/7 model writes what LIBLINEAR's predict
    -b 1 gives: the labels in the model's order, the sigmoid of the decision value
    (two classes) or the normalised one-vs-rest sigmoids."""
    liblinear = pytest.importorskip("liblinear.liblinearutil")
    X, y = make_problem(n_samples=200, n_features=8, n_classes=n_classes, seed=4)
    labels = np.array([3, -1, 5])[y]  # LIBLINEAR's order: first appearance
    data = tmp_path / "d.svm"
    dump_svmlight_file(X, labels, data, zero_based=False)
    yy, xx = liblinear.svm_read_problem(str(data))
    model = liblinear.train(yy, xx, f"-s {solver} -c 4 -B 1 -q")
    liblinear.save_model(str(tmp_path / "lr.model"), model)
    want_labels, _, want = liblinear.predict(yy, xx, model, "-b 1 -q")
    out = tmp_path / "p.txt"
    assert main(["predict", "-q", "-b", "1", str(data), str(tmp_path / "lr.model"), str(out)]) == 0
    lines = out.read_text().splitlines()
    assert lines[0] == "labels " + " ".join(str(v) for v in model.get_labels())
    rows = np.array([[float(v) for v in line.split()] for line in lines[1:]])
    np.testing.assert_array_equal(rows[:, 0], want_labels)
    np.testing.assert_allclose(rows[:, 1:], np.array(want), rtol=1e-5, atol=1e-6)
    # The reader's own probabilities, unrounded.
    from pegasos_rs.io.foreign_models import read_model

    proba = read_model(tmp_path / "lr.model").predict_proba(pegasos_rs.load_svmlight_file(data)[0])
    np.testing.assert_allclose(proba, np.array(want), rtol=1e-9, atol=1e-12)


def test_predict_b_1_refuses_liblinear_models_without_probabilities(files, tmp_path):
    liblinear = pytest.importorskip("liblinear.liblinearutil")
    _, train, test, _ = files
    y, x = liblinear.svm_read_problem(str(train))
    liblinear.save_model(str(tmp_path / "svm.model"), liblinear.train(y, x, "-s 3 -q"))
    with pytest.raises(SystemExit, match=r"only supported for logistic regression.*-s 0, 6 or 7"):
        main(["predict", "-b", "1", str(test), str(tmp_path / "svm.model"), str(tmp_path / "o")])


def test_dask_without_dask_names_the_extra_to_install(files, tmp_path, monkeypatch):
    """--dask where dask is not installed: the message of pegasos_rs.dask's own
    ImportError (which names the extra and how to install it), not Python's."""
    import importlib

    _, train, _, _ = files
    for name in list(sys.modules):
        if name == "pegasos_rs.dask" or name.startswith("pegasos_rs.dask."):
            monkeypatch.delitem(sys.modules, name)
    monkeypatch.delattr(pegasos_rs, "dask", raising=False)
    monkeypatch.setitem(sys.modules, "dask", None)  # import dask raises ImportError
    monkeypatch.setitem(sys.modules, "distributed", None)
    with pytest.raises(ImportError) as expected:
        importlib.import_module("pegasos_rs.dask")
    assert "[dask]" in str(expected.value)
    with pytest.raises(SystemExit) as e:
        main(["train", "--dask", str(train), str(tmp_path / "m.model")])
    assert str(expected.value) in str(e.value.code)


def test_train_without_a_data_file_prints_liblinears_kind_of_usage():
    run = subprocess.run(
        [sys.executable, "-m", "pegasos_rs", "train", "-q"], capture_output=True, text=True
    )
    assert run.returncode == 1  # as LIBLINEAR's train
    assert run.stderr.startswith("Usage: pegasos-rs train [options] data_file [model_file]\n")
    assert "-c cost" in run.stderr
    assert "more_files" not in run.stderr and "error:" not in run.stderr


def test_libsvm_c_svc_with_a_kernel_is_accepted_other_types_are_refused(files, tmp_path):
    """svm-train -s 0 -t 2 is C-SVC, what the kernel solver does; LIBLINEAR's -s 0
    (logistic regression, no -t) and LIBSVM's other types are refused, saying what
    to use instead."""
    _, train, _, _ = files
    path = tmp_path / "m.model"
    assert main(["train", "-q", "-s", "0", "-t", "2", "--passes", "1", str(train), str(path)]) == 0
    assert type(pegasos_rs.load(path)).__name__ == "KernelPegasosClassifier"
    assert main(["train", "-q", "-s", "0", "-t", "0", "--passes", "1", str(train), str(path)]) == 0
    assert type(pegasos_rs.load(path)).__name__ == "PegasosClassifier"
    for argv, message in [
        (["-s", "1", "-t", "2"], "LIBSVM's svm type, and -s 1 is nu-SVC.*-s 0"),
        (["-s", "4", "-t", "2"], "nu-SVR.*epsilon-SVR.*-s 3"),
        (["-s", "6"], "-s 6 is LIBLINEAR's L1-regularised.*-s 0"),
        (["-s", "9"], "not a LIBLINEAR solver type.*0-4, 7.*11-13.*21"),
    ]:
        with pytest.raises(SystemExit, match=message):
            main(["train", *argv, str(train), str(path)])


@pytest.mark.parametrize(
    ("solver", "loss"),
    [(0, "log_loss"), (7, "log_loss"), (1, "squared_hinge"), (2, "squared_hinge"), (3, "hinge")],
)
def test_liblinear_solver_types_train_their_losses(files, tmp_path, solver, loss):
    """-s keeps LIBLINEAR's objectives; the model file is the estimator's, byte for
    byte (the linear classifier's path imports no scikit-learn)."""
    _, train, _, _ = files
    path = tmp_path / "m.model"
    args = ["train", "-q", "-s", str(solver), "-B", "1", "--passes", "3", str(train), str(path)]
    assert main(args) == 0
    X, y = pegasos_rs.load_svmlight_file(train)
    ref = pegasos_rs.PegasosClassifier(
        loss=loss, alpha=1 / X.shape[0], max_iter=3, random_state=0, n_jobs=1
    ).fit(X, y)
    ref.save(tmp_path / "ref.model")
    strip = re.compile(rb'"library_version": "[^"]*"')
    assert strip.sub(b"", path.read_bytes()) == strip.sub(
        b"", (tmp_path / "ref.model").read_bytes()
    )
    assert pegasos_rs.load(path).loss == loss


@pytest.fixture
def regression_files(tmp_path):
    from sklearn.datasets import load_diabetes

    X, y = load_diabetes(return_X_y=True)
    train, test = tmp_path / "train.svm", tmp_path / "test.svm"
    dump_svmlight_file(X[:350], y[:350], train, zero_based=False)
    dump_svmlight_file(X[350:], y[350:], test, zero_based=False)
    return train, test, y[350:]


@pytest.mark.parametrize(
    ("solver", "loss"),
    [
        (11, "squared_epsilon_insensitive"),
        (12, "squared_epsilon_insensitive"),
        (13, "epsilon_insensitive"),
    ],
)
def test_liblinear_svr_types_train_the_regressor(regression_files, tmp_path, capsys, solver, loss):
    train, test, y_test = regression_files
    path = tmp_path / "m.model"
    args = ["train", "-q", "-s", str(solver), "-p", "2.5", "-c", "100", "-B", "1"]
    assert main([*args, str(train), str(path)]) == 0
    est = pegasos_rs.load(path)
    assert type(est).__name__ == "PegasosRegressor"
    assert (est.loss, est.epsilon, est.alpha) == (loss, 2.5, pytest.approx(1 / (100 * 350)))
    X, y = pegasos_rs.load_svmlight_file(train)
    ref = pegasos_rs.PegasosRegressor(
        loss=loss, epsilon=2.5, alpha=1 / (100 * 350), random_state=0, n_jobs=1
    ).fit(X, y)
    assert est.coef_.tobytes() == ref.coef_.tobytes()
    out = tmp_path / "out"
    assert main(["predict", str(test), str(path), str(out)]) == 0
    lines = capsys.readouterr().out.splitlines()
    pred = np.array([float(v) for v in out.read_text().split()])
    mse = np.mean((pred - y_test) ** 2)
    assert lines[0] == f"Mean squared error = {mse:g} (regression)"
    assert lines[1].startswith("Squared correlation coefficient = ")
    assert main(["train", "-s", str(solver), "-v", "3", "--passes", "2", str(train)]) == 0
    cv = capsys.readouterr().out.splitlines()
    assert re.fullmatch(r"Cross Validation Mean squared error = [\d.e+]+", cv[0])
    assert cv[1].startswith("Cross Validation Squared correlation coefficient = ")


def test_logistic_models_predict_probabilities_without_b_1_at_training(files, tmp_path):
    _, train, test, _ = files
    path, out = tmp_path / "m.model", tmp_path / "out"
    assert main(["train", "-q", "-s", "0", "--passes", "3", str(train), str(path)]) == 0
    assert main(["predict", "-q", "-b", "1", str(test), str(path), str(out)]) == 0
    lines = out.read_text().splitlines()
    assert lines[0].split()[0] == "labels"
    est = pegasos_rs.load(path)
    X, _ = pegasos_rs.load_svmlight_file(test, n_features=est.n_features_in_)
    first = np.array([float(v) for v in lines[1].split()[1:]])
    order = [list(est.classes_).index(float(v)) for v in lines[0].split()[1:]]
    np.testing.assert_allclose(first, est.predict_proba(X[:1])[0][order], rtol=1e-5)
    assert main(["train", "-q", "-s", "2", "--passes", "1", str(train), str(path)]) == 0
    with pytest.raises(SystemExit, match=r"no probability estimates.*-s 0"):
        main(["predict", "-b", "1", str(test), str(path), str(out)])


def test_libsvm_epsilon_svr_trains_the_kernel_regressor(regression_files, tmp_path, capsys):
    """svm-train -s 3 -t 2 is epsilon-SVR: KernelPegasosRegressor, saved and
    predicted with LIBSVM's regression lines."""
    train, test, _ = regression_files
    path, out = tmp_path / "k.model", tmp_path / "out"
    args = ["train", "-q", "-s", "3", "-t", "2", "-g", "0.5", "-p", "5", "-c", "10", "-R"]
    assert main([*args, "--passes", "3", str(train), str(path)]) == 0
    est = pegasos_rs.load(path)
    assert type(est).__name__ == "KernelPegasosRegressor"
    assert (est.loss, est.epsilon, est.gamma) == ("epsilon_insensitive", 5.0, 0.5)
    assert main(["predict", str(test), str(path), str(out)]) == 0
    assert capsys.readouterr().out.startswith("Mean squared error = ")


@pytest.fixture
def ranking_files(tmp_path):
    rng = np.random.default_rng(3)
    X = rng.normal(size=(240, 5))
    s = X @ np.array([1.0, -0.5, 0.2, 0.0, 0.0]) + 0.3 * rng.normal(size=240)
    y = np.digitize(s, [-0.5, 0.7]).astype(float)
    qid = np.repeat(np.arange(24) + 100, 10)
    train, test = tmp_path / "rank.train", tmp_path / "rank.test"
    dump_svmlight_file(X[:160], y[:160], train, query_id=qid[:160], zero_based=False)
    dump_svmlight_file(X[160:], y[160:], test, query_id=qid[160:], zero_based=False)
    return tmp_path, train, test, X, y, qid


def test_train_rank_then_predict_prints_ndcg(ranking_files, capsys):
    tmp, train, test, X, y, qid = ranking_files
    model = tmp / "rank.model"
    argv = ["train", "--rank", "--alpha", "0.001", "--passes", "5", str(train), str(model)]
    assert main(argv) == 0
    assert "trained PegasosRanker on 160 examples x 5 features, 16 queries" in (
        capsys.readouterr().err
    )
    est = pegasos_rs.load(model)
    assert type(est).__name__ == "PegasosRanker"
    # The estimator fitted on the same data gives the same model.
    ref = pegasos_rs.PegasosRanker(alpha=0.001, max_iter=5, random_state=0)
    ref.fit(X[:160], y[:160], qid[:160])
    np.testing.assert_array_equal(est.coef_, ref.coef_)
    out = tmp / "scores.txt"
    capsys.readouterr()
    assert main(["predict", str(test), str(model), str(out)]) == 0
    line = capsys.readouterr().out.strip()
    m = re.fullmatch(r"Mean NDCG@10 = ([\d.]+) \(8 queries\)", line)
    assert m, line
    scores = np.array([float(v) for v in out.read_text().split()])
    np.testing.assert_array_equal(scores, ref.predict(X[160:]))
    assert float(m.group(1)) == pytest.approx(ref.score(X[160:], y[160:], qid[160:]), abs=1e-6)
    # A test file without qid: scores only.
    plain = tmp / "plain.svm"
    dump_svmlight_file(X[160:], y[160:], plain, zero_based=False)
    assert main(["predict", str(plain), str(model), str(out)]) == 0
    assert capsys.readouterr().out == ""
    assert len(out.read_text().split()) == 80


def test_train_rank_errors_are_messages(ranking_files, files):
    _, train, _, _, _, _ = ranking_files
    _, no_qid, _, _ = files
    for argv, message in [
        (["train", "--rank", str(no_qid)], "qid"),
        (["train", "--rank", "-v", "3", str(train)], "-v is not available with --rank"),
        (["train", "--rank", "-t", "rbf", str(train)], "-t is not available with --rank"),
        (["train", "--rank", "-s", "11", str(train)], "--rank trains -s 3"),
        (["train", "--rank", "-B", "1", str(train)], "-B is not available"),
    ]:
        with pytest.raises(SystemExit, match=message):
            main(argv)


def test_help_names_both_export_formats_and_what_each_writes(capsys):
    """``pegasos-rs --help`` says export writes LIBLINEAR model files and ONNX graphs;
    ``export --help`` names the models each format writes, as the code decides:
    pegasos_rs.onnx's converter table (and its refusals) for ONNX,
    write_liblinear_model for LIBLINEAR."""
    from pegasos_rs import _registry, cli
    from pegasos_rs.exceptions import NotFittedError
    from pegasos_rs.io.liblinear_format import write_liblinear_model
    from pegasos_rs.onnx import CONVERTERS, REFUSED

    with pytest.raises(SystemExit):
        main(["--help"])
    # the export line and its continuation lines (argparse wraps long ones)
    line = re.search(r"^ +export +\S.*(\n {20,}\S.*)*", capsys.readouterr().out, re.M)
    assert line and "LIBLINEAR" in line.group() and "ONNX" in line.group()
    with pytest.raises(SystemExit):
        main(["export", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    # A search is saved as its refit model: no model file holds a search's class.
    files = tuple(row.name for row in CONVERTERS if row.impl != "_search")
    assert cli.EXPORTED["onnx"] == files
    assert cli.REFUSED_BY_ONNX == tuple(name for _, name in REFUSED)
    written = set()
    for name, cls in _registry.classes().items():
        try:
            write_liblinear_model(cls(), "unused")  # refused by class before the fit check
        except NotFittedError:
            written.add(name)
        except TypeError:
            pass
    assert set(cli.EXPORTED["liblinear"]) == written
    for names in (*cli.EXPORTED.values(), cli.REFUSED_BY_ONNX):
        listed = ", ".join(names[:-1]) + (" and " if len(names) > 1 else "") + names[-1]
        assert listed in text, listed


def test_export_says_what_it_wrote_unless_quiet(tmp_path, capsys):
    """``export`` ends with a line on stderr as ``train`` does (none with -q)."""
    X, y = make_problem(n_samples=60, n_features=5, n_classes=3, seed=1)
    pegasos_rs.PegasosClassifier(max_iter=1).fit(X, y).save(tmp_path / "m.model")
    out = tmp_path / "m.liblinear"
    assert main(["export", "--format", "liblinear", str(tmp_path / "m.model"), str(out)]) == 0
    err = capsys.readouterr().err
    assert err == (
        f"exported PegasosClassifier (3 classes, 5 features) from {tmp_path / 'm.model'} "
        f"to {out}: a LIBLINEAR model file\n"
    )
    assert main(["export", "-q", "--format", "liblinear", str(tmp_path / "m.model"), str(out)]) == 0
    assert capsys.readouterr().err == ""


def test_counts_of_one_are_singular(files, tmp_path, capsys):
    """A one-pass fit says "1 pass", not "1 passes" (every count the command line,
    the progress reports and the demo print goes through ``counted``)."""
    from pegasos_rs._counts import counted

    _, train, _, _ = files
    assert main(["train", "--passes", "1", str(train), str(tmp_path / "m")]) == 0
    err = capsys.readouterr().err
    assert "300 examples x 10 features, 3 classes, 1 pass in" in err, err
    assert [counted(n, "pass") for n in (0, 1, 2)] == ["0 passes", "1 pass", "2 passes"]
    assert counted(1, "class") == "1 class" and counted(2, "query") == "2 queries"
    assert counted(2, "training row") == "2 training rows" and counted(3, "day") == "3 days"
    assert counted(12345, "step", thousands=True) == "12,345 steps"


def _liblinear_search_cs(start: float, max_c: float) -> np.ndarray:
    return start * 2.0 ** np.arange(int(np.floor(np.log2(max_c / start))) + 1)


def test_parameter_search_prints_liblinears_lines_and_writes_no_model(
    files, tmp_path, capsys, monkeypatch
):
    """``train -C``: LIBLINEAR's lines, the best C among c, 2c, ... 1024 by the folds'
    pooled accuracy, each C's accuracy the one -v prints at that C, and no model."""
    monkeypatch.chdir(tmp_path)
    _, train, _, _ = files
    argv = ["-s", "2", "-v", "3", "--passes", "3", "--seed", "4"]
    assert main(["train", "-C", "-c", "64", *argv, str(train)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "Doing parameter search with 3-fold cross validation."
    best = re.fullmatch(r"Best C = (\S+)  CV accuracy = (\S+)%", out[1])
    assert best, out
    assert not list(tmp_path.glob("*.model"))
    # The pooled accuracy of the best C is the highest of c = 64, 128, ..., 1024,
    # each scored on the folds by hand (the first best on ties, as LIBLINEAR).
    from pegasos_rs import PegasosClassifier, load_svmlight_file

    X, y = load_svmlight_file(str(train))
    order = np.random.RandomState(4).permutation(X.shape[0])
    rates = []
    for C in _liblinear_search_cs(64.0, 1024.0):
        correct = 0
        for test in np.array_split(order, 3):
            tr = np.sort(np.setdiff1d(order, test))
            te = np.sort(test)
            model = PegasosClassifier(
                loss="squared_hinge",
                alpha=1 / (C * tr.size),
                max_iter=3,
                random_state=4,
                intercept_scaling=1.0,
                fit_intercept=False,
            ).fit(X[tr], y[tr])
            correct += int(np.sum(model.predict(X[te]) == y[te]))
        rates.append(correct / X.shape[0])
    k = int(np.argmax(rates))
    assert float(best.group(1)) == _liblinear_search_cs(64.0, 1024.0)[k]
    assert float(best.group(2)) == pytest.approx(100 * rates[k], abs=1e-4)


def test_parameter_search_with_a_kernel_searches_c_and_gamma(files, tmp_path, capsys, monkeypatch):
    """``train -t rbf -C``: C = c, 4c, ... up to 2^8 and gamma = g/4 .. 4g, the best
    by the folds' pooled accuracy, each candidate scored on the folds by hand with
    the kernel estimator (the search's shared kernel matrix changes kernel values
    by rounding at most: the same pooled accuracy here), and no model."""
    monkeypatch.chdir(tmp_path)
    _, train, _, _ = files
    argv = ["-t", "rbf", "-g", "0.2", "-c", "16", "-v", "3", "--passes", "2", "--seed", "1"]
    assert main(["train", "-C", *argv, str(train)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "Doing parameter search with 3-fold cross validation."
    best = re.fullmatch(r"Best C = (\S+) Best gamma = (\S+)  CV accuracy = (\S+)%", out[1])
    assert best, out
    assert not list(tmp_path.glob("*.model"))
    from pegasos_rs import KernelPegasosClassifier, load_svmlight_file

    X, y = load_svmlight_file(str(train))
    order = np.random.RandomState(1).permutation(X.shape[0])
    rates, grid = [], []
    for C in (16.0, 64.0, 256.0):
        for gamma in (0.05, 0.1, 0.2, 0.4, 0.8):
            correct = 0
            for test in np.array_split(order, 3):
                tr, te = np.sort(np.setdiff1d(order, test)), np.sort(test)
                model = KernelPegasosClassifier(
                    alpha=1 / (C * tr.size), gamma=gamma, max_iter=2, random_state=1
                ).fit(X[tr], y[tr])
                correct += int(np.sum(model.predict(X[te]) == y[te]))
            rates.append(correct / X.shape[0])
            grid.append((C, gamma))
    k = int(np.argmax(rates))
    assert (float(best.group(1)), float(best.group(2))) == pytest.approx(grid[k])
    assert float(best.group(3)) == pytest.approx(100 * rates[k], abs=1e-4)
    # The SVR (-s 3 with -t) prints its mean squared error.
    assert main(["train", "-C", "-t", "2", "-s", "3", "--passes", "1", str(train)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert re.fullmatch(r"Best C = \S+ Best gamma = \S+  CV MSE = \S+", out[1]), out


def test_parameter_search_of_the_svr_searches_p_too(files, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _, train, _, _ = files
    assert main(["train", "-C", "-s", "11", "-c", "256", "--passes", "2", str(train)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "Doing parameter search with 5-fold cross validation."
    assert re.fullmatch(r"Best C = \S+ Best p = \S+  CV MSE = \S+", out[1]), out
    assert not list(tmp_path.glob("*.model"))


def test_s_21_trains_the_one_class_svm_and_predict_writes_plus_or_minus_one(
    files, tmp_path, capsys
):
    """LIBLINEAR's -s 21 -n nu: PegasosOneClassSVM with its defaults and the seed;
    predict writes +1 / -1 (and the accuracy against the file's labels, as
    LIBLINEAR's predict does)."""
    _, train, test, _ = files
    model, out = tmp_path / "oc.model", tmp_path / "out.txt"
    assert main(["train", "-s", "21", "-n", "0.2", "--passes", "5", str(train), str(model)]) == 0
    assert "one class (novelty detection)" in capsys.readouterr().err
    est = pegasos_rs.load(model)
    X, _ = pegasos_rs.load_svmlight_file(train, n_features=10)
    ref = pegasos_rs.PegasosOneClassSVM(nu=0.2, max_iter=5, random_state=0).fit(X)
    assert type(est) is pegasos_rs.PegasosOneClassSVM and est.nu == 0.2
    np.testing.assert_array_equal(est.coef_, ref.coef_)
    np.testing.assert_array_equal(est.offset_, ref.offset_)
    assert main(["predict", str(test), str(model), str(out)]) == 0
    X_test, _ = pegasos_rs.load_svmlight_file(test, n_features=10)
    written = np.loadtxt(out)
    np.testing.assert_array_equal(written, est.predict(X_test))
    assert set(np.unique(written)) <= {-1.0, 1.0}
    assert "Accuracy = " in capsys.readouterr().out
    for argv, message in [
        (["-s", "3", "-n", "0.2"], "-n is nu of the one-class SVM"),
        (["-s", "21", "-n", "0"], "invalid -n 0"),
        (["-s", "21", "-v", "3"], "takes no -v"),
        (["-s", "21", "-b", "1"], "takes no -b 1"),
        (["-s", "21", "-w1", "2"], "takes no -wi"),
    ]:
        with pytest.raises(SystemExit, match=message):
            main(["train", *argv, str(train), str(model)])
    # -c has no effect there: a warning, then the same model as without it.
    assert (
        main(["train", "-s", "21", "-n", "0.2", "-c", "4", "--passes", "5", str(train), str(model)])
        == 0
    )
    assert "-c 4 has no effect with -s 21" in capsys.readouterr().err
    np.testing.assert_array_equal(pegasos_rs.load(model).coef_, ref.coef_)


def test_t_s_2_trains_the_kernel_one_class_svm_as_libsvm_s_svm_train(files, tmp_path, capsys):
    """LIBSVM's -s 2 -n nu with -t: KernelPegasosOneClassSVM with the kernel's
    options and the seed; predict writes +1 / -1; the linear kernel (-t 0) trains
    the linear one-class SVM; what the one-class SVM takes no is refused by LIBSVM's
    type's name."""
    _, train, test, _ = files
    model, out = tmp_path / "koc.model", tmp_path / "out.txt"
    argv = ["train", "-s", "2", "-t", "2", "-g", "0.3", "-n", "0.2", "--passes", "3"]
    assert main([*argv, str(train), str(model)]) == 0
    assert "one class (novelty detection)" in capsys.readouterr().err
    est = pegasos_rs.load(model)
    X, _ = pegasos_rs.load_svmlight_file(train, n_features=10)
    ref = pegasos_rs.KernelPegasosOneClassSVM(nu=0.2, gamma=0.3, max_iter=3, random_state=0)
    ref.fit(X)
    assert type(est) is pegasos_rs.KernelPegasosOneClassSVM
    np.testing.assert_array_equal(est.dual_coef_, ref.dual_coef_)
    np.testing.assert_array_equal(est.offset_, ref.offset_)
    assert main(["predict", str(test), str(model), str(out)]) == 0
    X_test, _ = pegasos_rs.load_svmlight_file(test, n_features=10)
    written = np.loadtxt(out)
    np.testing.assert_array_equal(written, est.predict(X_test))
    assert set(np.unique(written)) == {-1.0, 1.0}
    linear = ["train", "-q", "-s", "2", "-t", "0", "-n", "0.2", str(train), str(model)]
    assert main(linear) == 0
    assert type(pegasos_rs.load(model)) is pegasos_rs.PegasosOneClassSVM
    with pytest.raises(SystemExit, match=r"-s 2 \(the one-class SVM\) takes no -v"):
        main(["train", "-s", "2", "-t", "2", "-v", "3", str(train), str(model)])
    capsys.readouterr()
    assert main(["train", "-q", "-s", "2", "-t", "2", "-c", "3", str(train), str(model)]) == 0
    assert "-c 3 has no effect with -s 2" in capsys.readouterr().err


def test_s_21_agrees_with_liblinears_one_class_svm(tmp_path):
    """The same objective as liblinear-official's -s 21 (its exact dual solver): the
    labels of nearly every row agree, and ours keep at most nu of them outliers."""
    llu = pytest.importorskip("liblinear.liblinearutil")
    # Rows away from the origin (around it the optimum is w = 0, rho = 0, and the
    # labels are arbitrary).
    X, _ = make_problem(n_samples=300, n_features=10, seed=5)
    train = tmp_path / "away.svm"
    dump_svmlight_file(X + 0.5, np.ones(300), train, zero_based=False)
    model = tmp_path / "oc.model"
    assert main(["train", "-q", "-s", "21", "-n", "0.1", str(train), str(model)]) == 0
    ys, xs = llu.svm_read_problem(str(train))
    theirs, _, _ = llu.predict(ys, xs, llu.train(ys, xs, "-s 21 -n 0.1 -q"), "-q")
    X, _ = pegasos_rs.load_svmlight_file(train, n_features=10)
    ours = pegasos_rs.load(model).predict(X)
    assert np.mean(ours == np.array(theirs)) >= 0.95
    assert np.mean(ours < 0) <= 0.1


def test_budget_trains_the_kernel_estimators_with_a_budget(files, tmp_path):
    """--budget B with -t: KernelPegasosClassifier(budget=B) (and the SVR's); refused
    without a kernel, for the one-class SVM and with -C."""
    _, train, _, _ = files
    model = tmp_path / "b.model"
    args = ["train", "-q", "-t", "2", "--budget", "6", "--passes", "2", str(train), str(model)]
    assert main(args) == 0
    est = pegasos_rs.load(model)
    assert type(est).__name__ == "KernelPegasosClassifier" and est.budget == 6
    assert (est.n_support_ <= 6).all()
    args = ["train", "-q", "-t", "2", "-s", "3", "--budget", "5", "--budget-maintenance",
            "remove", "--passes", "2", str(train), str(model)]  # fmt: skip
    assert main(args) == 0
    reg = pegasos_rs.load(model)
    assert reg.budget_maintenance == "remove" and reg.support_.size <= 5
    args[args.index("remove")] = "project"
    assert main(args) == 0
    reg = pegasos_rs.load(model)
    assert reg.budget_maintenance == "project" and 0 < reg.support_.size <= 5
    for argv, message in [
        (["--budget", "5"], "needs a kernel"),
        (["-s", "21", "--budget", "5"], "needs a kernel"),
        (["-t", "2", "-C", "--budget", "5"], "-C"),
        (["-t", "2", "--budget", "1"], "--budget"),
    ]:
        with pytest.raises(SystemExit, match=message):
            main(["train", *argv, str(train), str(model)])
