"""The command line's start (issue 24): ``pegasos-rs --version``, ``--help``, a
linear ``train`` and ``predict`` with a linear classifier import no scikit-learn
(checked in ``sys.modules`` of a fresh process, not by timing), ``import
pegasos_rs`` is lazy and keeps its names, the model file ``train`` writes without
scikit-learn is byte for byte the estimator's, and ``predict`` without scikit-learn
writes what the estimator predicts."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import warnings

import numpy as np
import pegasos_rs
import pytest
import sklearn
from conftest import make_problem
from pegasos_rs import PegasosClassifier, dump_svmlight_file
from pegasos_rs.cli import main

#: Runs the command line in this process with the given arguments, then prints
#: the top-level packages of interest that were imported.
WRAPPER = """
import json, sys
from pegasos_rs.cli import run
sys.argv = ["pegasos-rs", *json.loads(sys.argv[1])]
try:
    code = run()
except SystemExit as e:
    code = e.code
loaded = sorted({m.split(".")[0] for m in sys.modules} & {"numpy", "scipy", "sklearn"})
print(json.dumps({"code": code, "loaded": loaded}), file=sys.__stderr__)
"""


def _run_cli(args: list[str], cwd) -> dict:
    run = subprocess.run(
        [sys.executable, "-c", WRAPPER, json.dumps(args)],
        capture_output=True,
        text=True,
        cwd=cwd,
        check=True,
    )
    return json.loads(run.stderr.strip().splitlines()[-1])


@pytest.fixture
def data(tmp_path):
    X, y = make_problem(n_samples=200, n_features=10, n_classes=3, seed=5)
    path = tmp_path / "small.svm"
    dump_svmlight_file(X, np.array([-1, 1, 7])[y], path, zero_based=False)
    return path


@pytest.fixture
def model(data):
    """The model ``pegasos-rs train`` writes for ``data``."""
    path = data.parent / "small.model"
    assert main(["train", "-q", "--passes", "2", str(data), str(path)]) == 0
    return path


@pytest.mark.slow  # a fresh interpreter per case
@pytest.mark.parametrize(
    ("args", "allowed"),
    [
        (["--version"], {"numpy"}),  # the version comes from the extension
        (["--help"], set()),
        (["train", "--help"], set()),
        (["train", "-h"], set()),
        (["train", "-q", "DATA"], {"numpy"}),
        (["train", "-q", "-c", "2", "-B", "1", "-e", "0.1", "-w7", "2", "DATA", "m"], {"numpy"}),
        (["train", "-q", "-t", "0", "-g", "0.5", "--sampling", "shuffle", "DATA"], {"numpy"}),
        (["predict", "DATA", "MODEL", "out"], {"numpy"}),
        (["predict", "-q", "--threads", "2", "DATA", "MODEL", "out"], {"numpy"}),
    ],
)
def test_cli_start_imports_no_scikit_learn(data, model, args, allowed):
    args = [{"DATA": str(data), "MODEL": str(model)}.get(a, a) for a in args]
    result = _run_cli(args, data.parent)
    assert result["code"] in (0, None)
    assert set(result["loaded"]) <= allowed, result["loaded"]


def test_import_pegasos_rs_is_lazy_and_keeps_its_names():
    code = (
        "import sys, pegasos_rs; "
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'numpy', 'scipy', 'sklearn'}))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
    for name in pegasos_rs.__all__:
        assert getattr(pegasos_rs, name) is not None
        assert name in dir(pegasos_rs)
    from pegasos_rs import KernelPegasosClassifier, exceptions, load  # noqa: F401

    assert exceptions.NotFittedError.__name__ == "NotFittedError"
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        pegasos_rs.nope  # noqa: B018


@pytest.mark.slow  # a fresh interpreter
def test_load_in_a_fresh_process_finds_every_model_class(tmp_path):
    """Nothing imports the estimator modules up front any more: loading a model
    file, or a LIBLINEAR one, imports the modules that register their readers."""
    X, y = make_problem(n_samples=60, n_features=5, seed=1)
    PegasosClassifier(random_state=0, max_iter=2).fit(X, y).save(tmp_path / "p.model")
    liblinear = tmp_path / "ll.model"
    liblinear.write_text(
        "solver_type L2R_L2LOSS_SVC_DUAL\nnr_class 2\nlabel 1 -1\nnr_feature 2\nbias -1\n"
        "w\n0.5\n-0.25\n"
    )
    for path in (tmp_path / "p.model", liblinear):
        code = f"from pegasos_rs.io.model_io import load; print(type(load({str(path)!r})).__name__)"
        out = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True
        )
        assert out.stdout.strip() == "PegasosClassifier"


@pytest.mark.parametrize(
    ("flags", "expected"),
    [
        ([], {}),
        (
            ["-c", "2", "-B", "1", "-e", "0.01", "-w7", "2", "-w-1", "0.5", "--passes", "4"],
            {"alpha": 1 / (2 * 200), "fit_intercept": True, "tol": 0.01, "max_iter": 4,
             "class_weight": {7.0: 2.0, -1.0: 0.5}},
        ),
        (
            ["--alpha", "0.003", "-B", "1", "-R", "--average", "0", "--sampling", "shuffle",
             "--seed", "9", "--batch-size", "3", "--projection", "0", "--threads", "2"],
            {"alpha": 0.003, "fit_intercept": True, "intercept_scaling": None,
             "average": False, "sampling": "shuffle", "random_state": 9, "batch_size": 3,
             "projection": False, "n_jobs": 2},
        ),
        (["--max-steps", "777", "-t", "linear"], {"max_steps": 777}),
        (["-w1", "3", "--sampling", "balanced"],
         {"class_weight": {1.0: 3.0}, "sampling": "balanced"}),
    ],
)  # fmt: skip
def test_train_writes_the_estimators_model_file_byte_for_byte(data, tmp_path, flags, expected):
    """The model file of ``pegasos-rs train`` (which builds no estimator) equals
    ``PegasosClassifier(...).fit(X, y).save(...)`` with the parameters the options
    stand for, byte for byte, and loads."""
    cli_file, api_file = tmp_path / "cli.model", tmp_path / "api.model"
    assert main(["train", "-q", *flags, str(data), str(cli_file)]) == 0
    X, y = pegasos_rs.load_svmlight_file(data)
    params = {
        "alpha": 1 / X.shape[0],  # -c 1
        "fit_intercept": False,  # no -B
        "random_state": 0,
        "n_jobs": 1,
        **expected,
    }
    with warnings.catch_warnings():  # -e 0.01 in 4 passes: a ConvergenceWarning
        warnings.simplefilter("ignore")
        PegasosClassifier(**params).fit(X, y).save(api_file)
    assert cli_file.read_bytes() == api_file.read_bytes()
    est = pegasos_rs.load(cli_file)
    np.testing.assert_array_equal(est.predict(X), pegasos_rs.load(api_file).predict(X))


def test_cli_limits_are_the_estimators():
    """--passes, --max-steps and --seed are checked by the command line itself (the
    linear path builds no estimator): within the ranges the estimator accepts."""
    from pegasos_rs import _linear_solver
    from pegasos_rs.cli import options as cli

    # the parameters predict's scikit-learn-free reading accepts in a file
    assert set(_linear_solver.PARAMETERS) == set(PegasosClassifier().get_params())
    constraints = PegasosClassifier._parameter_constraints
    assert constraints["max_iter"][0].right == cli.MAX_PASSES
    assert constraints["max_steps"][1].right == cli.MAX_STEPS
    for value, ok in [(cli.MAX_SEED, True), (cli.MAX_SEED + 1, False), (-1, False)]:
        est = PegasosClassifier(random_state=value)
        if ok:
            est._validate_params()
        else:
            with pytest.raises(ValueError, match="random_state"):
                est._validate_params()


_SKLEARN_VERSION = tuple(int(p) for p in re.findall(r"\d+", sklearn.__version__)[:2])


def _whole_numbers(message: str) -> str:
    """``message`` with ``2.0`` written ``2``."""
    return re.sub(r"\b(\d+)\.0\b", r"\1", message)


@pytest.mark.parametrize(
    "class_weight",
    [
        {1: 2.0},
        {1.0: 2.0, 2: 0.5},
        {3: 2.0},  # a label none of the classes has, all other classes unweighted
        {1: 2.0, 9: 3.0},  # refused: 9 is not a class while 0 and 2 are unweighted
        {},
        {0: "2"},  # numpy converts the value, in both
    ],
)
@pytest.mark.parametrize(
    "present",
    [
        np.array([0.0, 1.0, 2.0]),
        np.array([0, 1, 2]),
        pytest.param(
            np.array([0.5, 1.0, 1.5]),
            marks=pytest.mark.skipif(
                _SKLEARN_VERSION < (1, 7),
                reason="scikit-learn 1.6, the oldest supported, refuses the dict keys of "
                "fractional float classes where later versions match them, as "
                "class_weight_vector does",
            ),
        ),
    ],
)
def test_class_weight_dicts_weigh_as_scikit_learns_compute_class_weight(class_weight, present):
    """The dict branch of ``class_weight_vector`` (written without scikit-learn, for
    the command line) gives scikit-learn's numbers and errors."""
    from pegasos_rs._fit_inputs import class_weight_vector
    from sklearn.utils.class_weight import compute_class_weight

    counts = np.ones(present.size)
    try:
        want = compute_class_weight(class_weight, classes=present, y=present)
    except ValueError as e:
        with pytest.raises(ValueError) as ours:
            class_weight_vector(class_weight, present, present, counts)
        # The same message, up to how the scikit-learn version prints the classes
        # (1.6 writes [0.0, 1.0], later versions [0, 1]).
        assert _whole_numbers(str(ours.value)) == _whole_numbers(str(e))
    else:
        got = class_weight_vector(class_weight, present, present, counts)
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("width", [10, 7, 14])  # the model's, fewer, more features
@pytest.mark.parametrize(
    ("n_classes", "flags"), [(2, []), (3, ["-B", "1"]), (3, ["-s", "4"]), (2, ["-s", "4"])]
)
def test_predict_without_scikit_learn_writes_the_estimators_predictions(
    tmp_path, capsys, n_classes, flags, width
):
    """``predict`` with a linear classifier's file, which reads it without
    scikit-learn, writes and prints what the loaded estimator predicts (a file of
    fewer features: the rest are zeros; of more: they are dropped with a warning)."""
    X, y = make_problem(n_samples=150, n_features=10, n_classes=n_classes, seed=n_classes)
    labels = np.array([-1, 1, 7])[y]
    train, test, model = tmp_path / "train.svm", tmp_path / "test.svm", tmp_path / "m.model"
    dump_svmlight_file(X[:100], labels[:100], train, zero_based=False)
    Xt = np.zeros((50, width))
    Xt[:, : min(width, 10)] = X[100:, : min(width, 10)]
    Xt[:, 10:] = 0.5
    dump_svmlight_file(Xt, labels[100:], test, zero_based=False)
    assert main(["train", "-q", "--passes", "3", *flags, str(train), str(model)]) == 0
    assert main(["predict", str(test), str(model), str(tmp_path / "out")]) == 0
    printed = capsys.readouterr()
    Xm = np.zeros((50, 10))
    Xm[:, : min(width, 10)] = Xt[:, : min(width, 10)]
    expected = pegasos_rs.load(model).predict(Xm)
    assert (tmp_path / "out").read_text().split() == [f"{v:g}" for v in expected]
    correct = int(np.sum(expected == labels[100:]))
    assert printed.out == f"Accuracy = {100 * correct / 50:g}% ({correct}/50)\n"
    assert ("has 14 features but the model was trained on 10" in printed.err) == (width > 10)


def test_predict_reports_a_damaged_linear_model_as_load_does(tmp_path, data, model):
    """A file ``predict`` would read without scikit-learn that fails a check is
    refused with the message :func:`pegasos_rs.load` gives."""
    raw = bytearray(model.read_bytes())
    start = raw.index(b'"coef_"')
    raw[start : start + 7] = b'"coef0"'  # the coefficients' array is no longer named
    import struct
    import zlib

    raw[-4:] = struct.pack("<I", zlib.crc32(bytes(raw[:-4])))
    damaged = tmp_path / "damaged.model"
    damaged.write_bytes(bytes(raw))
    with pytest.raises(ValueError) as loaded:
        pegasos_rs.load(damaged)
    with pytest.raises(SystemExit) as predicted:
        main(["predict", str(data), str(damaged), str(tmp_path / "out")])
    assert predicted.value.code == f"pegasos-rs predict: {loaded.value}"
