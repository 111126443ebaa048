"""``PegasosClassifier.fit(..., check_input=False)``: the same model, rows checked as
the solver reads them, clear errors for inputs it cannot take as they are."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from pegasos_rs import PegasosClassifier


def _problem(n=400, d=30, n_classes=2, seed=0):
    rng = np.random.default_rng(seed)
    X = sp.random(n, d, density=0.2, format="csr", dtype=np.float64, random_state=seed)
    scores = X @ rng.normal(size=(d, n_classes))
    return X, scores.argmax(axis=1)


def _same_model(a, b):
    assert np.array_equal(a.coef_, b.coef_)
    assert np.array_equal(a.intercept_, b.intercept_)
    assert np.array_equal(a.classes_, b.classes_)
    assert a.t_ == b.t_


@pytest.mark.parametrize("layout", ["csr32", "csr64", "csr-f32", "csr_array", "dense", "dense-f32"])
@pytest.mark.parametrize("n_classes", [2, 4])
def test_the_model_is_the_checked_fit_bit_for_bit(layout, n_classes):
    X, codes = _problem(n_classes=n_classes)
    if layout == "csr64":
        X.indices, X.indptr = X.indices.astype(np.int64), X.indptr.astype(np.int64)
    elif layout == "csr-f32":
        X = X.astype(np.float32)
    elif layout == "csr_array":
        X = sp.csr_array(X)
    elif layout.startswith("dense"):
        X = X.toarray().astype(np.float32 if layout.endswith("f32") else np.float64)
    labels = np.array([-5, 3, 7, 11])[codes]
    params = dict(alpha=1e-3, max_iter=3, class_weight="balanced", random_state=1)
    weights = np.linspace(0.5, 2, X.shape[0])
    checked = PegasosClassifier(**params).fit(X, labels, sample_weight=weights)
    by_labels = PegasosClassifier(**params).fit(X, labels, weights, check_input=False)
    classes = np.array([-5, 3, 7, 11])[:n_classes]
    for dtype in (np.int32, np.uint32, np.int64):
        by_codes = PegasosClassifier(**params).fit(
            X, codes.astype(dtype), weights, check_input=False, classes=classes
        )
        _same_model(checked, by_codes)
    _same_model(checked, by_labels)
    assert by_labels.n_features_in_ == X.shape[1]
    np.testing.assert_array_equal(by_labels.predict(X), checked.predict(X))


def test_warm_start_continues_as_the_checked_fit():
    X, y = _problem(n_classes=3)
    a = PegasosClassifier(warm_start=True, max_iter=2, random_state=0)
    b = PegasosClassifier(warm_start=True, max_iter=2, random_state=0)
    a.fit(X, y).fit(X, y)
    b.fit(X, y, check_input=False).fit(X, y.astype(np.int32), check_input=False, classes=[0, 1, 2])
    _same_model(a, b)
    with pytest.raises(ValueError, match="differ from those of the fit being continued"):
        b.fit(X, y, check_input=False, classes=[0, 1, 2, 3])
    with pytest.raises(ValueError, match="X has 29 features"):
        b.fit(X[:, :29].tocsr(), y, check_input=False)


@pytest.mark.parametrize("dense", [False, True])
def test_a_bad_value_in_a_row_read_is_an_error_in_a_row_not_read_is_not(dense):
    X, y = _problem()
    X = X.toarray() if dense else X
    order = np.arange(X.shape[0])
    # max_steps=10 with this order reads rows 0..9 only.
    model = dict(max_steps=10, sampling=order, random_state=0)
    for row, read in [(3, True), (200, False)]:
        bad = X.copy()
        if dense:
            bad[row, 0] = np.nan
        else:
            bad.data[bad.indptr[row]] = np.inf
        if read:
            with pytest.raises(ValueError, match=f"NaN or infinity .* at row {row}"):
                PegasosClassifier(**model).fit(bad, y, check_input=False)
        else:
            PegasosClassifier(**model).fit(bad, y, check_input=False)
        # The checked fit reads every row first.
        with pytest.raises(ValueError, match="NaN"):
            PegasosClassifier(**model).fit(bad, y)
        # An objective (tol or verbose) reads every row, so checks every row.
        with pytest.raises(ValueError, match=f"at row {row}"):
            PegasosClassifier(max_iter=2, tol=1e-3, random_state=0).fit(bad, y, check_input=False)


def test_bad_structure_and_codes_of_a_row_read_are_errors():
    X, y = _problem()
    order = np.arange(X.shape[0])
    model = dict(max_steps=10, sampling=order, random_state=0)
    bad = X.copy()
    bad.indices = bad.indices.copy()
    bad.indices[bad.indptr[2]] = X.shape[1] + 5
    with pytest.raises(ValueError, match="malformed CSR matrix: column index 35"):
        PegasosClassifier(**model).fit(bad, y, check_input=False)
    bad = X.copy()
    bad.indptr = bad.indptr.copy()
    bad.indptr[5] = bad.indptr[3] - 1  # row 4 ends before it starts
    with pytest.raises(ValueError, match="malformed CSR matrix"):
        PegasosClassifier(**model).fit(bad, y, check_input=False)
    codes = y.astype(np.int32)
    codes[5] = 2
    with pytest.raises(ValueError, match="class code 2 of example 5 is out of range for 2"):
        PegasosClassifier(**model).fit(X, codes, check_input=False, classes=[0, 1])
    codes[5] = -1
    with pytest.raises(ValueError, match="class code 4294967295 of example 5") as info:
        PegasosClassifier(**model).fit(X, codes, check_input=False, classes=[0, 1])
    # Named as the caller wrote it too.
    assert "it is -1 read as unsigned" in str(info.value)
    with pytest.raises(ValueError, match="class code -1 is out of range for 2 classes"):
        PegasosClassifier(**model).fit(X, codes.astype(np.int64), check_input=False, classes=[0, 1])
    # The end of indptr is checked at once, whatever the rows read.
    bad = X.copy()
    bad.indptr = bad.indptr.copy()
    bad.indptr[-1] += 1
    with pytest.raises(ValueError, match="malformed CSR matrix: indptr\\[-1\\]"):
        PegasosClassifier(**model).fit(bad, y, check_input=False)


@pytest.mark.parametrize("dtype", [np.int32, np.uint32, np.int64])
def test_balanced_weights_check_the_codes_they_count(dtype):
    # class_weight="balanced" counts the codes (the only pass over them): a code out
    # of range, negative or not, and a class without examples are ValueErrors naming
    # them, not a 0/0 weight or a 2^32-entry bincount (MemoryError).
    X, y = _problem(n_classes=3)
    classes = [10, 20, 30]
    est = PegasosClassifier(class_weight="balanced", max_steps=5, random_state=0)
    codes = y.astype(dtype)
    codes[7] = 3
    with pytest.raises(ValueError, match=r"class code 3 (of example 7 )?is out of range for 3"):
        est.fit(X, codes, check_input=False, classes=classes)
    if dtype != np.uint32:
        codes[7] = -1
        match = (
            "class code 4294967295 of example 7 is out of range for 3 classes "
            r"\(it is -1 read as unsigned"
            if dtype == np.int32
            else "class code -1 is out of range for 3 classes"
        )
        with pytest.raises(ValueError, match=match):
            est.fit(X, codes, check_input=False, classes=classes)
    codes = np.where(y == 2, 0, y).astype(dtype)  # class 30 has no example
    with pytest.raises(ValueError, match=r"no example of class 30 \(code 2\)"):
        est.fit(X, codes, check_input=False, classes=classes)
    with pytest.raises(ValueError, match=r"no example of classes 20 \(code 1\), 30 \(code 2\)"):
        est.fit(X, np.zeros_like(codes), check_input=False, classes=classes)
    assert not hasattr(est, "coef_")
    # Without "balanced" such a class is allowed (its problem has no positive
    # example), and weights given as a dict need no counts.
    PegasosClassifier(max_steps=5).fit(X, codes, check_input=False, classes=classes)
    weights = {10: 1.0, 20: 2.0, 30: 3.0}
    PegasosClassifier(class_weight=weights, max_steps=5).fit(
        X, codes, check_input=False, classes=classes
    )


@pytest.mark.parametrize(
    "make, what",
    [
        (lambda X: X.tocoo(), "'coo' format"),
        (lambda X: X.tocsc(), "'csc' format"),
        (lambda X: X.astype(np.int32), "csr matrix of int32"),
        (lambda X: X.toarray().astype(np.int64), "int64 array"),
        (lambda X: np.asfortranarray(X.toarray()), "C-contiguous: False"),
        (lambda X: X.toarray().tolist(), "builtins.list"),
        (lambda X: pd.DataFrame(X.toarray()), "pandas"),
    ],
)
def test_inputs_not_in_the_solver_layout_are_type_errors(make, what):
    X, y = _problem()
    with pytest.raises(TypeError, match=f"check_input=False takes X as a CSR matrix.*{what}"):
        PegasosClassifier().fit(make(X), y, check_input=False)


def test_mixed_index_dtypes_are_a_type_error():
    X, y = _problem()
    X.indptr = X.indptr.astype(np.int64)
    with pytest.raises(TypeError, match="int32 indices and int64 indptr"):
        PegasosClassifier().fit(X, y, check_input=False)


def test_bad_uses_of_classes_and_check_input():
    X, y = _problem()
    with pytest.raises(ValueError, match="fit takes classes only with check_input=False"):
        PegasosClassifier().fit(X, y, classes=[0, 1])
    with pytest.raises(ValueError, match="sorted and without repeats"):
        PegasosClassifier().fit(X, y, check_input=False, classes=[1, 0])
    with pytest.raises(ValueError, match="at least 2 classes"):
        PegasosClassifier().fit(X, y, check_input=False, classes=[0])
    with pytest.raises(TypeError, match="integer class codes"):
        PegasosClassifier().fit(X, y.astype(float), check_input=False, classes=[0, 1])
    with pytest.raises(ValueError, match="X has 400 rows but y has 399 labels"):
        PegasosClassifier().fit(X, y[:-1], check_input=False, classes=[0, 1])
    with pytest.raises(ValueError, match="one label per row"):
        PegasosClassifier().fit(X, y[:-1], check_input=False)
    with pytest.raises(ValueError, match="cannot be combined with probability=True"):
        PegasosClassifier(probability=True).fit(X, y, check_input=False)


def test_probabilities_and_names_of_an_earlier_fit_are_removed():
    X, y = _problem()
    model = PegasosClassifier(probability=True, random_state=0)
    model.fit(pd.DataFrame(X.toarray(), columns=[f"f{j}" for j in range(30)]), y)
    assert hasattr(model, "probA_") and hasattr(model, "feature_names_in_")
    model.set_params(probability=False).fit(X, y, check_input=False)
    assert not hasattr(model, "probA_")
    assert not hasattr(model, "feature_names_in_")
