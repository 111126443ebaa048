"""Property tests (hypothesis) over random inputs for every estimator.

For random CSR structures (empty rows, explicit zeros, unsorted rows, int32/int64
indices, float32/float64 values), shapes (0 or 1 row, 1 feature, no feature), label
types (ints, strings, bools, integral and fractional floats, object arrays, a mix of
types, one class only, 2-d labels) and parameter values (valid ones and, one at a time,
invalid ones), every call

* either works or raises a documented exception: ``ValueError`` or ``TypeError``
  (``pegasos_rs.exceptions.PegasosError`` subclasses are ``ValueError`` too, as is
  scikit-learn's ``NotFittedError``), never another exception type (and never a crash);
* raises when an input is known to be invalid (a bad parameter value, NaN or infinity
  in ``X``, fractional "continuous" labels, malformed CSR arrays);
* gives the same result for the CSR and the dense form of the same data (the outcome,
  and the model up to the last bits, which differ because a dense dot product and a
  sparse one add the same products in different orders; see ``tests/test_inputs.py``),
  and bit-identical models where the project promises it: int32 against int64 CSR
  indices, and float32 against float64 values that float32 represents exactly.

The data are tiny and ``max_examples`` modest so the file runs in well under a minute.
Set ``PEGASOS_PROPERTY_STATS=path.json`` to write how many cases each test tried and
how many of them were rejected (the bad-input cases), and ``PEGASOS_PROPERTY_SCALE=k``
to try k times as many examples (a longer search).
"""

from __future__ import annotations

import collections
import json
import math
import os
import pathlib
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from pegasos_rs import (
    AdditiveKernelMap,
    KernelPegasosClassifier,
    Nystroem,
    PegasosClassifier,
    RandomFourierFeatures,
)

#: The exception types a caller is told to expect.
DOCUMENTED = (ValueError, TypeError)


def _settings(max_examples):
    scale = int(os.environ.get("PEGASOS_PROPERTY_SCALE", "1"))
    return settings(
        max_examples=max_examples * scale,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )


STATS: collections.Counter = collections.Counter()


@pytest.fixture(scope="module", autouse=True)
def _write_stats():
    yield
    path = os.environ.get("PEGASOS_PROPERTY_STATS")
    if path:
        with open(path, "w") as f:
            json.dump(dict(sorted(STATS.items())), f, indent=1)


def _record(test: str, outcome: str, bad: bool) -> None:
    STATS[f"{test}: cases"] += 1
    STATS[f"{test}: {outcome}"] += 1
    if bad:
        STATS[f"{test}: known-bad inputs"] += 1
    if outcome != "ok":
        STATS["all: rejected"] += 1
    STATS["all: cases"] += 1
    if bad:
        STATS["all: known-bad inputs"] += 1


def _call(fn, *args, **kwargs):
    """``("ok", result)`` or ``("TypeName", exception)``; an undocumented exception
    type fails the test with the exception chained."""
    with warnings.catch_warnings():
        # A warning is a documented outcome too; it must not turn into an exception
        # here (pytest runs with filterwarnings=error).
        warnings.simplefilter("ignore")
        try:
            return "ok", fn(*args, **kwargs)
        except DOCUMENTED as exc:
            return type(exc).__name__, exc
        except Exception as exc:  # pragma: no cover - reported as a failure
            raise AssertionError(f"undocumented exception {type(exc).__name__}: {exc}") from exc


def _dense(Z):
    return Z.toarray() if sp.issparse(Z) else np.asarray(Z)


def _close(a, b):
    """Equal up to the last bits of the arrays' precision (float32 outputs of the
    feature maps: a few float32 ulps; float64: rounding of a different order)."""
    single = np.asarray(a).dtype == np.float32 or np.asarray(b).dtype == np.float32
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    scale = max(float(np.abs(b).max(initial=0.0)), 1.0)
    rtol, atol = (1e-4, 2e-5) if single else (1e-7, 1e-9)
    np.testing.assert_allclose(a, b, rtol=rtol, atol=atol * scale)


# --------------------------------------------------------------------------------------
# Data


#: Values that float32 represents exactly and whose products and sums are exact for
#: these sizes (so that only the solver's own rounding differs between layouts).
VALUES = st.one_of(st.just(0.0), st.integers(-8, 8).map(lambda k: k / 4.0))


@st.composite
def problems(draw, max_rows=10, max_features=5, allow_empty=True, non_negative=False):
    """``(X dense, S csr, info)``: the same matrix in both forms."""
    # Mostly 2+ rows and 1+ features; a degenerate shape (0 or 1 row, 0 or 1
    # feature) in about one example out of four.
    lo = 0 if allow_empty else 1
    # (hypothesis favours the smallest value of a range: the rare branch is the top.)
    if draw(st.integers(0, 3)) == 3:
        n = draw(st.integers(lo, 1))
        d = draw(st.integers(lo, 1)) if draw(st.booleans()) else draw(st.integers(1, max_features))
    else:
        n = draw(st.integers(2, max_rows))
        d = draw(st.integers(1, max_features))
    values = draw(hnp.arrays(np.float64, (n, d), elements=VALUES))
    if non_negative:
        values = np.abs(values)
    # Stored positions: every non-zero, plus random explicit zeros.
    extra = draw(hnp.arrays(np.bool_, (n, d), elements=st.booleans()))
    stored = (values != 0) | (extra & draw(st.booleans()))
    value_dtype = draw(st.sampled_from([np.float64, np.float32]))
    index_dtype = draw(st.sampled_from([np.int32, np.int64]))
    unsorted = draw(st.booleans())
    seed = draw(st.integers(0, 2**16))
    rng = np.random.RandomState(seed)
    data, indices, indptr = [], [], [0]
    for i in range(n):
        cols = np.flatnonzero(stored[i])
        if unsorted:
            cols = rng.permutation(cols)
        indices.extend(cols.tolist())
        data.extend(values[i, cols].tolist())
        indptr.append(len(indices))
    S = sp.csr_matrix(
        (
            np.asarray(data, dtype=value_dtype),
            np.asarray(indices, dtype=index_dtype),
            np.asarray(indptr, dtype=index_dtype),
        ),
        shape=(n, d),
    )
    # scipy may downcast small index arrays: put the requested dtype back.
    S.indices = S.indices.astype(index_dtype)
    S.indptr = S.indptr.astype(index_dtype)
    if unsorted:
        S.has_sorted_indices = False
    X = values.astype(value_dtype)
    info = {"n": n, "d": d, "value_dtype": value_dtype, "index_dtype": index_dtype}
    return X, S, info


LABEL_KINDS = [
    "int",
    "negative int",
    "uint8",
    "str",
    "bool",
    "integral float",
    "object str",
    "object int",  # scikit-learn's "unknown" target type: rejected, as by SVC
    "fractional float",  # "continuous": rejected
    "mixed object",  # ints and strings: rejected
    "2d",  # (n, 2): rejected
]
BAD_LABELS = {"object int", "fractional float", "mixed object", "2d"}


@st.composite
def labels(draw, n):
    """``(y, kind, n_distinct)``."""
    good = [kind for kind in LABEL_KINDS if kind not in BAD_LABELS]
    bad = draw(st.integers(0, 5)) == 5
    kind = draw(st.sampled_from(sorted(BAD_LABELS) if bad else good))
    n_classes = 1 if draw(st.integers(0, 9)) == 9 else draw(st.integers(2, 3))
    if kind == "bool":
        n_classes = min(n_classes, 2)
    k = draw(hnp.arrays(np.int64, n, elements=st.integers(0, n_classes - 1)))
    if n >= n_classes and draw(st.integers(0, 9)) < 9:
        k[:n_classes] = np.arange(n_classes)  # usually every class is present
    if kind == "int":
        y = k
    elif kind == "negative int":
        y = -3 * k - 1
    elif kind == "uint8":
        y = (k + 250).astype(np.uint8)
    elif kind == "str":
        y = np.array(["cat", "dog", "eel"])[k] if n else np.array([], dtype="<U3")
    elif kind == "bool":
        y = k.astype(bool)
    elif kind == "integral float":
        y = k.astype(np.float64) * 2.0 - 1.0
    elif kind == "object str":
        y = np.array([["a", "b", "c"][i] for i in k], dtype=object)
    elif kind == "object int":
        y = np.array([int(i) for i in k], dtype=object)
    elif kind == "fractional float":
        y = k + 0.5
    elif kind == "mixed object":
        y = np.array([("x" if i % 2 else i) for i in k], dtype=object)
    else:  # 2d
        y = np.stack([k, k], axis=1)
    return y, kind, int(np.unique(k).size)


# --------------------------------------------------------------------------------------
# Parameters: valid values, and invalid ones (at most one per example)


def _linear_params(draw, y, n):
    valid = {
        "alpha": st.sampled_from([1e-4, 1e-2, 0.3, 10.0]),
        "max_iter": st.integers(1, 3),
        "max_steps": st.sampled_from([None, None, 1, 7]),
        "batch_size": st.sampled_from([1, 2, 3, 50]),
        "projection": st.booleans(),
        "fit_intercept": st.booleans(),
        "intercept_scaling": st.sampled_from([1.0, 0.5, 3.0, None]),
        "average": st.sampled_from([False, True, 1, 5]),
        "sampling": st.sampled_from(["uniform", "shuffle", "balanced", "order"]),
        "class_weight": st.sampled_from([None, "balanced", "dict"]),
        "tol": st.sampled_from([None, None, 1e-3]),
        "random_state": st.integers(0, 2**32 - 1),
        "n_jobs": st.sampled_from([None, 1, 2]),
    }
    invalid = {
        "alpha": [0.0, -1.0, math.inf, math.nan],
        "max_iter": [0, -1],
        "max_steps": [0, -5],
        "batch_size": [0, -2],
        "intercept_scaling": [0.0, -1.0],
        "average": [0, -3],
        "sampling": ["random", "bad order"],
        "class_weight": ["auto", "unknown label"],
        "tol": [-1.0],
        "n_iter_no_change": [0],
        "random_state": [-1],
        "projection": ["yes"],
    }
    return _draw_params(draw, valid, invalid, y, n)


def _kernel_params(draw, y, n, d):
    valid = {
        "alpha": st.sampled_from([1e-3, 0.1, 2.0]),
        "kernel": st.sampled_from(["rbf", "linear", "poly", "sigmoid", "chi2", "intersection"]),
        "gamma": st.sampled_from(["scale", "auto", 0.5]),
        "degree": st.integers(1, 3),
        "coef0": st.sampled_from([0.0, 1.0]),
        "max_iter": st.integers(1, 2),
        "batch_size": st.sampled_from([1, 2, 50]),
        "fit_intercept": st.booleans(),
        "average": st.booleans(),
        "sampling": st.sampled_from(["uniform", "shuffle", "balanced", "order"]),
        "class_weight": st.sampled_from([None, "balanced", "dict"]),
        "cache_size": st.sampled_from([0, 1, 200]),
        "strategy": st.sampled_from(["auto", "margins", "support"]),
        "random_state": st.integers(0, 2**32 - 1),
        "n_jobs": st.sampled_from([None, 1, 2]),
    }
    invalid = {
        "alpha": [0.0, -1.0, math.nan],
        "kernel": ["gaussian"],
        "gamma": [0.0, -1.0, "large"],
        "degree": [0, 1.5],
        "coef0": [math.inf],
        "max_iter": [0],
        "batch_size": [0],
        "average": [3],
        "sampling": ["random", "bad order"],
        "class_weight": ["auto", "unknown label"],
        "cache_size": [-1.0],
        "strategy": ["fast"],
        "random_state": [-1],
    }
    return _draw_params(draw, valid, invalid, y, n)


def _draw_params(draw, valid, invalid, y, n):
    bad = draw(st.sampled_from(sorted(invalid))) if draw(st.integers(0, 3)) == 3 else None
    params = {name: draw(strategy) for name, strategy in valid.items()}
    if bad is not None:
        params[bad] = draw(st.sampled_from(invalid[bad]))
    classes = np.unique(y) if y.ndim == 1 and y.size and y.dtype != object else []
    if params.get("sampling") == "order":
        params["sampling"] = np.arange(max(n, 1)) if n else [0]
    elif params.get("sampling") == "bad order":
        params["sampling"] = [n + 3]  # a row that does not exist
    if params.get("class_weight") == "dict":
        params["class_weight"] = {classes[0]: 2.0} if len(classes) else None
    elif params.get("class_weight") == "unknown label":
        params["class_weight"] = {"no such label": 2.0}
    return params, bad


# --------------------------------------------------------------------------------------
# Classifiers


def _classifier_case(draw, make_params, **data_kw):
    X, S, info = draw(problems(**data_kw))
    y, kind, n_distinct = draw(labels(info["n"]))
    params, bad_param = make_params(draw, y, info)
    poison = draw(st.sampled_from(["nan", "inf"])) if draw(st.integers(0, 9)) == 9 else None
    if poison and info["n"] and info["d"]:
        i, j = draw(st.integers(0, info["n"] - 1)), draw(st.integers(0, info["d"] - 1))
        value = np.nan if poison == "nan" else -np.inf
        X = X.copy()
        X[i, j] = value
        S = sp.csr_matrix(X)  # stores the poisoned entry
    else:
        poison = None
    reasons = [
        reason
        for reason, present in [
            (f"parameter {bad_param}", bad_param is not None),
            (f"{poison} in X", poison is not None),
            (f"{kind} labels", kind in BAD_LABELS),
            ("no sample", info["n"] == 0),
            ("no feature", info["d"] == 0),
            ("one class", n_distinct < 2 and info["n"] > 0),
        ]
        if present
    ]
    known_bad = bool(reasons)
    return X, S, y, params, {**info, "labels": kind, "bad_param": bad_param,
                             "poison": poison, "known_bad": known_bad,
                             "reasons": reasons}  # fmt: skip


def _check_classifier(test, make, X, S, y, params, info):
    out_dense = _call(lambda: make(**params).fit(X, y))
    out_sparse = _call(lambda: make(**params).fit(S, y))
    _record(test, out_dense[0], info["known_bad"])
    for reason in info["reasons"]:
        STATS[f"{test}: bad because {reason}"] += 1
    # The CSR and dense forms of the same data have the same outcome.
    assert out_dense[0] == out_sparse[0], (info, out_dense[1], out_sparse[1])
    if info["known_bad"]:
        # A bad parameter, NaN/inf in X, labels that are not classes, no sample, no
        # feature or a single class: always an error.
        assert out_dense[0] != "ok", info
        return None
    if out_dense[0] != "ok":
        STATS[f"{test}: other rejection: {str(out_dense[1])[:90]}"] += 1
        return None
    dense, sparse = out_dense[1], out_sparse[1]
    np.testing.assert_array_equal(dense.classes_, sparse.classes_)
    np.testing.assert_array_equal(dense.classes_, np.unique(y))
    pred = dense.predict(X)
    assert pred.shape == (X.shape[0],)
    assert np.isin(pred, dense.classes_).all()
    scores = dense.decision_function(X)
    assert np.all(np.isfinite(scores))
    _close(sparse.decision_function(S), scores)
    return dense, sparse


@st.composite
def linear_cases(draw):
    return _classifier_case(draw, lambda d, y, info: _linear_params(d, y, info["n"]))


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")  # random tol
@_settings(200)
@given(case=linear_cases())
def test_linear_fits_or_raises_and_layouts_agree(case):
    X, S, y, params, info = case
    res = _check_classifier("linear", PegasosClassifier, X, S, y, params, info)
    if res is None:
        return
    dense, sparse = res
    _close(sparse.coef_, dense.coef_)
    _close(sparse.intercept_, dense.intercept_)
    assert np.all(np.isfinite(dense.coef_))
    # Promised bit for bit: int64 against int32 indices (the same CSR), and float32
    # data that float32 represents exactly against the same values in float64.
    other = S.copy()
    other_index = np.int64 if S.indices.dtype == np.int32 else np.int32
    other.indices = other.indices.astype(other_index)
    other.indptr = other.indptr.astype(other_index)
    same = PegasosClassifier(**params).fit(other, y)
    np.testing.assert_array_equal(same.coef_, sparse.coef_)
    np.testing.assert_array_equal(same.intercept_, sparse.intercept_)
    other_value = np.float64 if X.dtype == np.float32 else np.float32
    same = PegasosClassifier(**params).fit(X.astype(other_value), y)
    np.testing.assert_array_equal(same.coef_, dense.coef_)
    np.testing.assert_array_equal(same.intercept_, dense.intercept_)


@st.composite
def kernel_cases(draw):
    case = _classifier_case(
        draw, lambda d, y, info: _kernel_params(d, y, info["n"], info["d"]), max_rows=8
    )
    X, S, y, params, info = case
    if params.get("kernel") in ("chi2", "intersection") and draw(st.booleans()):
        X, S = np.abs(X), abs(S)  # same structure (explicit zeros kept)
    if params.get("kernel") in ("chi2", "intersection") and (X < 0).any():
        info["known_bad"] = True  # additive kernels need non-negative data
        info["reasons"].append("negative data, additive kernel")
    return X, S, y, params, info


@_settings(150)
@given(case=kernel_cases())
def test_kernel_fits_or_raises_and_layouts_agree(case):
    X, S, y, params, info = case
    res = _check_classifier("kernel", KernelPegasosClassifier, X, S, y, params, info)
    if res is None:
        return
    dense, sparse = res
    np.testing.assert_array_equal(dense.support_, sparse.support_)
    _close(sparse.dual_coef_, dense.dual_coef_)
    _close(sparse.intercept_, dense.intercept_)


# --------------------------------------------------------------------------------------
# Feature maps


@st.composite
def map_cases(draw):
    which = draw(st.sampled_from(["rff", "nystroem", "additive"]))
    non_negative = which == "additive" and draw(st.booleans())
    X, S, info = draw(problems(max_rows=8, non_negative=non_negative))
    bad_param = None
    if which == "rff":
        params = {
            "gamma": draw(st.sampled_from(["scale", 0.5, 2.0])),
            "n_components": draw(st.integers(1, 9)),
            "form": draw(st.sampled_from(["sincos", "offset"])),
            "random_state": draw(st.integers(0, 2**32 - 1)),
            "n_jobs": draw(st.sampled_from([None, 1, 2])),
        }
        invalid = {"gamma": [0.0, -1.0], "n_components": [0, -1], "form": ["cos"]}
    elif which == "nystroem":
        kernel = draw(st.sampled_from(["rbf", "linear", "poly", "sigmoid"]))
        params = {
            "kernel": kernel,
            "gamma": draw(st.sampled_from([None, 0.5])),
            "n_components": draw(st.integers(1, 12)),
            "landmarks": draw(st.sampled_from(["uniform", "k-means++"])),
            "random_state": draw(st.integers(0, 2**32 - 1)),
            "n_jobs": draw(st.sampled_from([None, 1, 2])),
        }
        invalid = {"kernel": ["gaussian"], "n_components": [0], "landmarks": ["random"],
                   "gamma": [-1.0], "degree": [0]}  # fmt: skip
    else:
        params = {
            "kernel": draw(st.sampled_from(["chi2", "intersection", "js"])),
            "order": draw(st.integers(0, 3)),
            "period": draw(st.sampled_from([None, 0.5])),
            "n_jobs": draw(st.sampled_from([None, 1, 2])),
        }
        invalid = {"kernel": ["hellinger"], "order": [-1, 1001], "period": [0.0, -1.0]}
    bad_param = draw(st.sampled_from(sorted(invalid))) if draw(st.integers(0, 3)) == 3 else None
    if bad_param is not None:
        params[bad_param] = draw(st.sampled_from(invalid[bad_param]))
    known_bad = bad_param is not None or info["n"] == 0 or info["d"] == 0
    if which == "additive" and (X < 0).any():
        known_bad = True
    info = {**info, "which": which, "bad_param": bad_param, "known_bad": known_bad}
    return which, X, S, params, info


MAPS = {"rff": RandomFourierFeatures, "nystroem": Nystroem, "additive": AdditiveKernelMap}


@_settings(150)
@given(case=map_cases())
def test_feature_maps_fit_or_raise_and_layouts_agree(case):
    which, X, S, params, info = case
    make = MAPS[which]
    out_dense = _call(lambda: make(**params).fit(X))
    out_sparse = _call(lambda: make(**params).fit(S))
    _record(which, out_dense[0], info["known_bad"])
    assert out_dense[0] == out_sparse[0], (info, out_dense[1], out_sparse[1])
    if info["known_bad"]:
        assert out_dense[0] != "ok", info
        return
    if out_dense[0] != "ok":
        STATS[f"{which}: other rejection: {str(out_dense[1])[:90]}"] += 1
        return
    est = out_dense[1]
    Z = _dense(est.transform(X))
    assert Z.shape[0] == X.shape[0]
    assert np.all(np.isfinite(Z))
    # One fitted map transforms both layouts alike ...
    _close(_dense(est.transform(S)), Z)
    # ... and the map fitted on CSR input is the map fitted on dense input.
    _close(_dense(out_sparse[1].transform(X)), Z)


# --------------------------------------------------------------------------------------
# Malformed CSR: always a ValueError/TypeError, never a crash or an out-of-bounds read


CORRUPTIONS = [
    "index too large",
    "negative index",
    "indptr decreasing",
    "indptr past the end",
    "indptr too short",
    "indptr not starting at 0",
    "data shorter than indices",
]


def _corrupt(S, how, rng):
    S = S.copy()
    data, indices, indptr = S.data.copy(), S.indices.copy(), S.indptr.copy()
    n, d = S.shape
    if how == "index too large":
        indices[rng.randint(indices.size)] = d + rng.randint(0, 1000)
    elif how == "negative index":
        indices[rng.randint(indices.size)] = -1 - rng.randint(0, 5)
    elif how == "indptr decreasing":
        indptr[1] = indptr[-1] + 1
    elif how == "indptr past the end":
        indptr[-1] = indptr[-1] + 1 + rng.randint(0, 50)
    elif how == "indptr too short":
        indptr = indptr[:-1]
    elif how == "indptr not starting at 0":
        indptr[0] = 1
    else:
        data = data[:-1]
    # Assemble without scipy's checks (as a careless caller or a bad reader could).
    B = sp.csr_matrix((n, d), dtype=S.dtype)
    B.data, B.indices, B.indptr = data, indices, indptr
    return B


@_settings(150)
@given(
    problem=problems(max_rows=8, max_features=5, allow_empty=False),
    how=st.sampled_from(CORRUPTIONS),
    target=st.sampled_from(["linear", "kernel", "rff", "nystroem", "additive"]),
    stage=st.sampled_from(["fit", "predict"]),
    seed=st.integers(0, 2**16),
)
def test_malformed_csr_raises_a_documented_error(problem, how, target, stage, seed):
    X, S, _ = problem
    X, S = np.abs(X), abs(S)  # the additive map needs non-negative data
    if S.nnz == 0:
        X[0, 0] = 1.0
        S = sp.csr_matrix(X)
    rng = np.random.RandomState(seed)
    bad = _corrupt(S, how, rng)
    n = X.shape[0]
    y = np.arange(n) % 2
    if n < 2:
        X, y = np.vstack([X, X + 1.0]), np.array([0, 1])
    make = {
        "linear": lambda: PegasosClassifier(max_iter=1, random_state=0),
        "kernel": lambda: KernelPegasosClassifier(max_iter=1, random_state=0),
        "rff": lambda: RandomFourierFeatures(gamma="scale", n_components=4, random_state=0),
        "nystroem": lambda: Nystroem(n_components=2, random_state=0),
        "additive": lambda: AdditiveKernelMap(),
    }[target]
    is_classifier = target in ("linear", "kernel")
    if stage == "fit":
        if bad.shape[0] != y.shape[0]:
            y = np.arange(bad.shape[0]) % 2
        args = (bad, y) if is_classifier else (bad,)
        outcome, _ = _call(lambda: make().fit(*args))
        if outcome == "ok" and target in ("rff", "additive", "nystroem"):
            # These fits read only the shape and the values (gamma="scale", the
            # non-negativity check) or, for Nystroem's uniform landmarks, only the
            # landmark rows: the rest of the structure is checked where it is read.
            outcome, _ = _call(lambda: make().fit(X).transform(bad))
    else:
        est = make().fit(X, y) if is_classifier else make().fit(X)
        method = est.decision_function if is_classifier else est.transform
        outcome, _ = _call(lambda: method(bad))
    _record(f"malformed csr ({target})", outcome, True)
    assert outcome != "ok", (how, target, stage)


def _decreasing_indptr_csr():
    """A CSR matrix whose indptr goes down (``[0, 7, 3, 4]`` for 4 stored values),
    flagged unsorted so that scipy would sort it: before the structure was checked
    first, scipy's ``sum_duplicates`` / row indexing ran on it and corrupted the heap
    ("corrupted size vs. prev_size", "free(): invalid size", SIGSEGV)."""
    S = sp.csr_matrix(np.array([[1.0, 0, 2], [0, 3, 0], [4, 0, 0]]))
    B = sp.csr_matrix(S.shape)
    B.data, B.indices = S.data.copy(), S.indices.copy()
    B.indptr = np.array([0, 7, 3, 4], dtype=S.indptr.dtype)
    B.has_sorted_indices = False
    return B


@pytest.mark.parametrize(
    "call",
    [
        lambda B: KernelPegasosClassifier(gamma="scale").fit(B, [0, 1, 1]),
        lambda B: RandomFourierFeatures(gamma="scale").fit(B),
        lambda B: Nystroem(gamma="scale", n_components=2).fit(B),
        lambda B: Nystroem(n_components=2).fit(B),
        lambda B: AdditiveKernelMap().fit(np.ones((2, 3))).transform(B),
    ],
    ids=[
        "kernel-fit-gamma-scale",
        "rff-fit-gamma-scale",
        "nystroem-fit-gamma-scale",
        "nystroem-fit-landmark-rows",
        "additive-transform",
    ],
)
def test_malformed_csr_regression_no_heap_corruption(call):
    with pytest.raises(ValueError, match="malformed CSR matrix: indptr is not non-decreasing"):
        call(_decreasing_indptr_csr())


def test_dump_svmlight_file_rejects_malformed_csr_without_heap_corruption():
    # In a child process: the bug aborts the interpreter.
    code = textwrap.dedent(
        """
        import io, sys
        import numpy as np, scipy.sparse as sp
        sys.path.insert(0, sys.argv[1])
        from test_properties import _decreasing_indptr_csr
        from pegasos_rs import dump_svmlight_file
        try:
            dump_svmlight_file(_decreasing_indptr_csr(), [0, 1, 1], io.BytesIO())
        except ValueError as exc:
            print("ValueError", exc)
        """
    )
    here = str(pathlib.Path(__file__).parent)
    out = subprocess.run(
        [sys.executable, "-c", code, here], capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert "ValueError malformed CSR matrix" in out.stdout


def test_hypothesis_keeps_its_files_out_of_the_checkout():
    """Hypothesis' example database and caches go under the session's temporary
    directory (conftest.py), not into .hypothesis/ of the directory pytest runs in."""
    checkout = pathlib.Path(__file__).resolve().parent.parent
    storage = pathlib.Path(os.environ["HYPOTHESIS_STORAGE_DIRECTORY"]).resolve()
    assert checkout not in (storage, *storage.parents), storage
    # With CI set in the environment Hypothesis loads its "ci" profile, which keeps no
    # example database at all; otherwise the database lives in the storage directory.
    database = settings.default.database
    if database is not None:
        where = pathlib.Path(database.path).resolve()
        assert checkout not in (where, *where.parents), where
