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
        alpha=1e-4, max_iter=3, fit_intercept=False, average=average, random_state=0
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
        (["train", "--passes", "0", str(train)], "invalid --passes 0: expected an integer >= 1"),
        (["train", "-p", "5", str(train)], "SVR epsilon.*passes over the data are --passes"),
        (["train", "-s", "0", str(train)], "logistic regression.*-s 3"),
        (["train", "-n", "2", str(train)], "nu.*threads are --threads"),
        (["train", "-C", str(train)], "-C .* not available"),
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
             "--projection", "--sampling", "--seed", "--threads", "--dask", "--mode"]  # fmt: skip
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
