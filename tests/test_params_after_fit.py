"""A fitted model is what ``fit`` made of its parameters: setting any parameter to
another valid value after ``fit`` changes none of its outputs (``predict``,
``decision_function``, the probabilities, ``transform``, ``score``), nor which of
them exist, until the next ``fit``. (Issue 36: ``set_params(multi_class="ovr")`` on
a fitted one-vs-one kernel model used to drop iris' accuracy from 0.947 to 0.227.)

The other values of each parameter are drawn from its ``_parameter_constraints``, so
a parameter added later is covered without a change here.
"""

from __future__ import annotations

import copy
import numbers

import numpy as np
import pytest
from pegasos_rs import (
    AdditiveKernelMap,
    KernelPegasosClassifier,
    KernelPegasosRegressor,
    Nystroem,
    PegasosClassifier,
    PegasosRanker,
    PegasosRegressor,
    RandomFourierFeatures,
    load,
    save,
)
from pegasos_rs.io.liblinear_format import _model_text
from sklearn.datasets import load_diabetes, load_iris
from sklearn.utils._param_validation import Interval, StrOptions

#: Parameters that choose only how an output is laid out, never its values, as
#: ``SVC``'s: read when called, as scikit-learn's estimators do.
OUTPUT_FORMAT = {"decision_function_shape"}

#: The methods whose outputs must not change.
METHODS = (
    "predict",
    "decision_function",
    "predict_proba",
    "predict_log_proba",
    "transform",
    "get_feature_names_out",
    "score",
)


def other_values(estimator, name: str) -> list:
    """Valid values of parameter ``name`` other than its current one."""
    current = estimator.get_params()[name]
    found: list = []
    for c in estimator._parameter_constraints[name]:
        if isinstance(c, StrOptions):
            found += sorted(o for o in c.options if o != current)
        elif c == "boolean":
            found.append(not current if isinstance(current, bool) else True)
        elif c is None:
            found.append(None)
        elif c == "random_state":
            found.append(12345)
        elif c == "verbose":
            found.append(0 if current else 1)
        elif c is dict:
            found.append({0: 3.0})
        elif isinstance(c, Interval):
            found += _in_interval(c, current)
        elif c is numbers.Integral:
            found.append(1)
    return [v for v in found if not _same(v, current)]


def _in_interval(c: Interval, current) -> list:
    base = current if isinstance(current, numbers.Real) and not isinstance(current, bool) else 1
    if c.type is numbers.Integral:
        candidates = [int(base) + 1, int(base) * 2 + 1, 2]
    else:
        candidates = [float(base) * 2, float(base) / 2 + 0.5, 0.5]
    return [v for v in candidates if v in c][:1]


def _same(a, b) -> bool:
    return type(a) is type(b) and a == b


def _outputs(model, X, y, extra):
    out = {}
    if isinstance(model, (PegasosClassifier, PegasosRegressor)):
        # The LIBLINEAR model file of the model (its text, or the error refusing it).
        try:
            out["liblinear"] = np.array(_model_text(model))
        except ValueError as e:
            out["liblinear"] = type(e).__name__
    for method in METHODS:
        if not hasattr(model, method):
            out[method] = "absent"
            continue
        try:
            if method == "score":
                out[method] = model.score(X, y, **extra)
            elif method == "get_feature_names_out":
                out[method] = model.get_feature_names_out()
            else:
                out[method] = getattr(model, method)(X)
        except (ValueError, TypeError, AttributeError) as e:
            out[method] = type(e).__name__
    return out


def _differences(before, after, where) -> list[str]:
    found = []
    for method, value in before.items():
        got = after[method]
        if isinstance(value, str) or isinstance(got, str):
            same = isinstance(value, str) and isinstance(got, str) and got == value
        else:
            same = np.array_equal(got, value)
        if not same:
            shown = [v if isinstance(v, str) else "values" for v in (value, got)]
            found.append(f"{where}: {method} changed ({shown[0]} -> {shown[1]})")
    return found


def _iris():
    X, y = load_iris(return_X_y=True)
    return X / X.max(axis=0), y


def _diabetes():
    X, y = load_diabetes(return_X_y=True)
    return X, y


def _ranking():
    rng = np.random.RandomState(0)
    X = rng.randn(120, 5)
    y = (X @ rng.randn(5) > 0).astype(float) + (X[:, 0] > 1)
    return X, y, np.repeat(np.arange(12), 10)


CASES = [
    ("linear ovr", PegasosClassifier(random_state=0, max_iter=3), "iris"),
    ("linear crammer_singer", PegasosClassifier(multi_class="crammer_singer", max_iter=3), "iris"),
    ("linear log_loss", PegasosClassifier(loss="log_loss", random_state=0, max_iter=3), "iris"),
    ("linear Platt", PegasosClassifier(probability=True, random_state=0, max_iter=3), "iris"),
    ("linear binary", PegasosClassifier(random_state=0, max_iter=3), "binary"),
    ("kernel ovo", KernelPegasosClassifier(multi_class="ovo", random_state=0), "iris"),
    ("kernel ovr", KernelPegasosClassifier(multi_class="ovr", random_state=0), "iris"),
    ("kernel auto", KernelPegasosClassifier(random_state=0), "iris"),
    (
        "kernel modified_huber",
        KernelPegasosClassifier(loss="modified_huber", multi_class="ovr", random_state=0),
        "iris",
    ),
    ("kernel Platt", KernelPegasosClassifier(probability=True, random_state=0), "iris"),
    ("kernel binary", KernelPegasosClassifier(random_state=0), "binary"),
    ("regressor", PegasosRegressor(random_state=0, max_iter=3), "diabetes"),
    ("kernel regressor", KernelPegasosRegressor(random_state=0), "diabetes"),
    ("ranker", PegasosRanker(random_state=0, max_iter=3), "ranking"),
    ("nystroem", Nystroem(n_components=20, random_state=0), "iris"),
    ("fourier", RandomFourierFeatures(n_components=20, random_state=0), "iris"),
    ("additive", AdditiveKernelMap(), "iris"),
]


@pytest.mark.parametrize(("name", "estimator", "data"), CASES, ids=[c[0] for c in CASES])
def test_setting_a_parameter_after_fit_changes_no_output(name, estimator, data, tmp_path):
    extra: dict = {}
    if data == "iris":
        X, y = _iris()
    elif data == "binary":
        X, y = _iris()
        X, y = X[y < 2], y[y < 2]
    elif data == "diabetes":
        X, y = _diabetes()
    else:
        X, y, qid = _ranking()
        extra = {"qid": qid}
    fitted = estimator.fit(X, y, **extra)
    before = _outputs(fitted, X, y, extra)
    assert any(not isinstance(v, str) for v in before.values())
    checked = 0
    changed: list[str] = []
    for param in sorted(fitted._parameter_constraints):
        if param in OUTPUT_FORMAT:
            continue
        for value in other_values(fitted, param):
            model = copy.deepcopy(fitted)
            model.set_params(**{param: value})
            where = f"{param}={value!r}"
            changed += _differences(before, _outputs(model, X, y, extra), where)
            # A model file holds the model that was fitted, with its parameters.
            save(model, tmp_path / "model")
            loaded = load(tmp_path / "model")
            changed += _differences(before, _outputs(loaded, X, y, extra), where + ", saved")
            checked += 1
    assert not changed, "\n".join(changed)
    assert checked >= len(fitted._parameter_constraints) - len(OUTPUT_FORMAT)


@pytest.mark.parametrize(
    "estimator",
    [KernelPegasosClassifier(multi_class="ovo", random_state=0), PegasosClassifier()],
    ids=["kernel", "linear"],
)
def test_output_format_parameters_change_no_prediction(estimator):
    X, y = _iris()
    fitted = estimator.fit(X, y)
    before = fitted.predict(X)
    for param in OUTPUT_FORMAT & set(fitted.get_params()):
        for value in other_values(fitted, param):
            model = copy.deepcopy(fitted).set_params(**{param: value})
            np.testing.assert_array_equal(model.predict(X), before)


def _rewrite_header(path, change) -> None:
    """Rewrite the JSON header of the model file at ``path`` through ``change``."""
    import json
    import struct
    import zlib

    from pegasos_rs.io._model_file import FORMAT_VERSION, MAGIC

    raw = path.read_bytes()
    (hlen,) = struct.unpack_from("<Q", raw, len(MAGIC) + 4)
    start = len(MAGIC) + 12
    header = json.loads(raw[start : start + hlen])
    change(header)
    text = json.dumps(header).encode()
    body = MAGIC + struct.pack("<IQ", FORMAT_VERSION, len(text)) + text + raw[start + hlen : -4]
    path.write_bytes(body + struct.pack("<I", zlib.crc32(body)))


def test_kernel_model_files_hold_the_decomposition_used(tmp_path):
    X, y = _iris()
    est = KernelPegasosClassifier(random_state=0).fit(X, y)  # "auto": one-vs-rest here
    path = tmp_path / "model"
    save(est, path)
    assert load(path).multi_class_ == est.multi_class_ == "ovr"
    # A file written before multi_class_ was saved resolves it as the fit did.
    _rewrite_header(path, lambda h: h["scalars"].pop("multi_class_"))
    old = load(path)
    assert old.multi_class_ == "ovr"
    np.testing.assert_array_equal(old.predict(X), est.predict(X))
    # One that contradicts its parameters is refused by name.
    _rewrite_header(path, lambda h: h["scalars"].update(multi_class_="ovo"))
    with pytest.raises(ValueError, match=r"multi_class_ must be 'ovr'"):
        load(path)
