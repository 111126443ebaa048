"""Input handling: every accepted layout gives the same model, every bad input a clear
ValueError/TypeError (never a crash or a hang)."""

from __future__ import annotations

import textwrap

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import check_other_widths_rejected, unsorted_csr, with_value
from pegasos_rs import KernelPegasosClassifier, PegasosClassifier
from shared_child import SharedChild
from sklearn.exceptions import NotFittedError

PARAMS = {"random_state": 0, "alpha": 1e-3, "max_iter": 4}


#: The checks both classifiers make the same way run on each of them.
both_classifiers = pytest.mark.parametrize(
    "cls", [PegasosClassifier, KernelPegasosClassifier], ids=["linear", "kernel"]
)


def _fit(X, y, **kw):
    return PegasosClassifier(**{**PARAMS, **kw}).fit(X, y)


def _same_model(a, b):
    np.testing.assert_array_equal(a.coef_, b.coef_)
    np.testing.assert_array_equal(a.intercept_, b.intercept_)
    np.testing.assert_array_equal(a.classes_, b.classes_)


def _close(a, b):
    scale = max(np.abs(b).max(), 1e-300)
    np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12 * scale)


def _same_model_across_layouts(a, b):
    """Dense and CSR rows hold the same products, but a dense dot product sums them in
    lanes by feature index and a sparse one by position among the non-zeros, so the
    last bits may differ; nothing else does."""
    _close(a.coef_, b.coef_)
    _close(a.intercept_, b.intercept_)
    np.testing.assert_array_equal(a.classes_, b.classes_)


def _csr(X, value_dtype, index_dtype):
    """CSR of ``X`` with the requested dtypes (scipy would downcast int64 indices
    of a small matrix, so the index arrays are replaced after construction)."""
    S = sp.csr_matrix(np.asarray(X, dtype=value_dtype))
    S.indices = S.indices.astype(index_dtype)
    S.indptr = S.indptr.astype(index_dtype)
    assert S.dtype == value_dtype
    assert S.indices.dtype == index_dtype
    assert S.indptr.dtype == index_dtype
    return S


# --------------------------------------------------------------------------------------
# Sparse == dense


@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
@pytest.mark.parametrize("value_dtype", [np.float32, np.float64])
def test_csr_equals_dense(any_dense, value_dtype, index_dtype):
    X, y = any_dense
    dense = _fit(X.astype(value_dtype), y)
    S = _csr(X, value_dtype, index_dtype)
    sparse = _fit(S, y)
    _same_model_across_layouts(sparse, dense)
    # Prediction from either layout gives the same scores.
    _close(dense.decision_function(S), dense.decision_function(X.astype(value_dtype)))
    np.testing.assert_array_equal(sparse.predict(S), dense.predict(X.astype(value_dtype)))


@pytest.mark.parametrize(
    "indices_dtype, indptr_dtype",
    [(np.int32, np.int64), (np.int64, np.int32), (np.uint32, np.int32), (np.int16, np.int16)],
)
def test_csr_with_other_index_dtypes(binary_dense, indices_dtype, indptr_dtype):
    X, y = binary_dense
    S = sp.csr_matrix(X)
    S.indices = S.indices.astype(indices_dtype)
    S.indptr = S.indptr.astype(indptr_dtype)
    ref = _fit(X, y)
    est = _fit(S, y)
    _same_model_across_layouts(est, ref)
    _close(ref.decision_function(S), ref.decision_function(X))


def test_csr_with_all_zero_rows_and_columns(binary_dense):
    X, y = binary_dense
    X = X.copy()
    X[::7] = 0.0
    X[:, 3] = 0.0
    _same_model_across_layouts(_fit(sp.csr_matrix(X), y), _fit(X, y))


def test_csr_with_unsorted_indices(binary_dense):
    X, y = binary_dense
    ref = _fit(X, y)
    est = _fit(unsorted_csr(X), y)
    # Summation order differs: equal up to rounding.
    np.testing.assert_allclose(est.coef_, ref.coef_, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(est.intercept_, ref.intercept_, rtol=1e-9, atol=1e-12)


def test_csr_with_duplicate_indices_adds_them_up(binary_dense):
    X, y = binary_dense
    S = sp.csr_matrix(X)
    data, indices, indptr = [], [], [0]
    for i in range(S.shape[0]):
        lo, hi = S.indptr[i], S.indptr[i + 1]
        for j, v in zip(S.indices[lo:hi], S.data[lo:hi], strict=True):
            data += [0.25 * v, 0.75 * v]
            indices += [j, j]
        indptr.append(len(data))
    D = sp.csr_matrix(
        (np.array(data), np.array(indices, dtype=np.int32), np.array(indptr, dtype=np.int32)),
        shape=S.shape,
    )
    assert not D.has_canonical_format
    ref = _fit(X, y)
    est = _fit(D, y)
    np.testing.assert_allclose(est.coef_, ref.coef_, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(est.decision_function(D), ref.decision_function(X), atol=1e-10)
    assert D.nnz == 2 * S.nnz  # the caller's matrix is left as it was


# --------------------------------------------------------------------------------------
# float32 vs float64


def test_float32_representable_data_gives_the_float64_model(any_dense):
    X, y = any_dense
    X32 = X.astype(np.float32)
    # The solver works in float64: the same values in either dtype give the same bits.
    _same_model(_fit(X32, y), _fit(X32.astype(np.float64), y))
    _same_model(_fit(sp.csr_matrix(X32), y), _fit(sp.csr_matrix(X32.astype(np.float64)), y))


def test_float32_close_to_float64(any_dense):
    X, y = any_dense
    X = X + 1e-3 * np.sin(np.arange(X.size)).reshape(X.shape)  # not float32-exact
    m64 = _fit(X, y, average=True, max_iter=10)
    m32 = _fit(X.astype(np.float32), y, average=True, max_iter=10)
    scale = np.abs(m64.coef_).max()
    np.testing.assert_allclose(m32.coef_, m64.coef_, rtol=1e-3, atol=1e-4 * scale)
    np.testing.assert_allclose(m32.intercept_, m64.intercept_, rtol=1e-3, atol=1e-4 * scale)
    assert np.mean(m32.predict(X) == m64.predict(X)) >= 0.98
    assert m32.coef_.dtype == np.float64


# --------------------------------------------------------------------------------------
# Other accepted layouts


@pytest.mark.parametrize(
    "convert",
    [
        pytest.param(sp.coo_matrix, id="coo_matrix"),
        pytest.param(sp.csc_matrix, id="csc_matrix"),
        pytest.param(sp.lil_matrix, id="lil_matrix"),
        pytest.param(sp.csr_array, id="csr_array"),
        pytest.param(sp.coo_array, id="coo_array"),
        pytest.param(sp.csc_array, id="csc_array"),
        pytest.param(lambda X: X.tolist(), id="list"),
        pytest.param(np.asfortranarray, id="fortran"),
        pytest.param(lambda X: np.repeat(X, 2, axis=1)[:, ::2], id="strided"),
    ],
)
def test_other_layouts_give_the_same_model(any_dense, convert):
    X, y = any_dense
    ref = _fit(X, y)
    Xc = convert(X)
    est = _fit(Xc, y)
    _same_model_across_layouts(est, ref)
    _close(est.decision_function(Xc), ref.decision_function(X))


@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.int64, np.uint16, bool])
def test_integer_and_bool_features(binary_dense, dtype):
    X, y = binary_dense
    Xi = np.rint(X * 5).astype(dtype)
    # The last iterate, pinned: uint16 wraps the negative values to about 65 000, and
    # on features that large the suffix average (kept lazily as u + beta v) is only
    # accurate to about 3e-6 relative (cancellation; dense and CSR alike), so the
    # layouts' last-bit differences would show at 1e-7. This test is about dtypes.
    ref = _fit(Xi.astype(np.float64), y, average=False)
    _same_model(_fit(Xi, y, average=False), ref)
    _same_model_across_layouts(_fit(sp.csr_matrix(Xi), y, average=False), ref)


def test_read_only_inputs(binary_dense):
    X, y = binary_dense
    ref = _fit(X, y)
    Xr, yr = X.copy(), y.copy()
    Xr.setflags(write=False)
    yr.setflags(write=False)
    _same_model(_fit(Xr, yr), ref)
    S = sp.csr_matrix(X)
    for a in (S.data, S.indices, S.indptr):
        a.setflags(write=False)
    _same_model_across_layouts(_fit(S, y), ref)


def test_labels_as_list_and_sample_weight_as_list(binary_dense):
    X, y = binary_dense
    w = np.linspace(0.5, 1.5, len(y))
    a = PegasosClassifier(**PARAMS).fit(X, y, sample_weight=w)
    b = PegasosClassifier(**PARAMS).fit(X, y.tolist(), sample_weight=w.tolist())
    _same_model(a, b)


def test_inputs_are_not_modified(any_dense):
    X, y = any_dense
    S = sp.csr_matrix(X)
    w = np.linspace(0.5, 1.5, len(y))
    copies = [a.copy() for a in (X, y, w, S.data, S.indices, S.indptr)]
    est = PegasosClassifier(**PARAMS).fit(X, y, sample_weight=w)
    est.partial_fit(S, y, sample_weight=w)
    est.predict(X)
    est.predict(S)
    for a, b in zip((X, y, w, S.data, S.indices, S.indptr), copies, strict=True):
        np.testing.assert_array_equal(a, b)


# --------------------------------------------------------------------------------------
# Bad inputs


def _nan(X):
    return with_value(X, 3, 2, np.nan)


def _inf(X):
    return with_value(X, 5, 1, -np.inf)


def _sparse_with(value):
    def make(X):
        S = sp.csr_matrix(X)
        S.data[7] = value
        return S

    return make


@pytest.mark.parametrize(
    "corrupt, match",
    [
        pytest.param(_nan, "NaN at row 3, column 2", id="dense-nan"),
        pytest.param(_inf, "inf at row 5, column 1", id="dense-inf"),
        pytest.param(_sparse_with(np.nan), "NaN", id="sparse-nan"),
        pytest.param(_sparse_with(np.inf), "infinity", id="sparse-inf"),
        pytest.param(lambda X: _sparse_with(np.inf)(X).astype(np.float32), "infinity", id="f32"),
    ],
)
def test_non_finite_values_are_rejected(binary_dense, corrupt, match):
    X, y = binary_dense
    bad = corrupt(X)
    with pytest.raises(ValueError, match=match):
        _fit(bad, y)
    est = _fit(X, y)
    with pytest.raises(ValueError, match=match):
        est.predict(bad)
    with pytest.raises(ValueError, match=match):
        est.decision_function(bad)


def _sparse_at(value, k=7):
    """``_sparse_with(value)`` (stored entry ``k``) and the ``(row, column)`` of that
    entry."""

    def make(X):
        S = _sparse_with(value)(X)
        return S, (int(np.searchsorted(S.indptr, k, side="right")) - 1, int(S.indices[k]))

    return make


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
@pytest.mark.parametrize(
    "estimator",
    [
        # gamma="scale" reads the variance first, which a NaN makes NaN.
        pytest.param(lambda: KernelPegasosClassifier(max_iter=1, random_state=0), id="rbf-scale"),
        pytest.param(lambda: KernelPegasosClassifier(kernel="poly", max_iter=1), id="poly-scale"),
        pytest.param(lambda: KernelPegasosClassifier(gamma=0.1, max_iter=1), id="rbf-0.1"),
        pytest.param(lambda: KernelPegasosClassifier(kernel="linear", max_iter=1), id="linear"),
    ],
)
@pytest.mark.parametrize("value", [np.nan, -np.inf], ids=["nan", "inf"])
def test_the_kernel_estimator_names_non_finite_values_by_row_and_column(
    binary_dense, estimator, sparse, value
):
    # As the linear estimator does (the Rust core's input check), whatever the kernel
    # and gamma.
    X, y = binary_dense
    if sparse:
        bad, (row, column) = _sparse_at(value)(X)
    else:
        bad, (row, column) = with_value(X, 3, 2, value), (3, 2)
    shown = "NaN" if np.isnan(value) else "-inf"
    match = rf"NaN or infinity \(value {shown} at row {row}, column {column}\)"
    with pytest.raises(ValueError, match=match):
        estimator().fit(bad, y)
    with pytest.raises(ValueError, match=match):
        PegasosClassifier(**PARAMS).fit(bad, y)
    with pytest.raises(ValueError, match=match):
        estimator().fit(X, y).decision_function(bad)


@pytest.mark.parametrize("value", [np.nan, np.inf], ids=["nan", "inf"])
def test_a_precomputed_kernel_names_non_finite_values_by_row_and_column(binary_dense, value):
    # As for data rows (scikit-learn's "Input X contains NaN." named neither), in
    # fit, prediction and the Nyström map. Prediction reads only the support vectors'
    # columns: a NaN elsewhere is named too, by its column in X.
    from pegasos_rs import Nystroem

    X, y = binary_dense
    gram = X @ X.T
    model = KernelPegasosClassifier(kernel="precomputed", max_iter=1, random_state=0)
    model.fit(gram, y)
    shown = "NaN" if np.isnan(value) else "inf"
    for column in (
        int(model.support_[-1]),
        int(np.setdiff1d(np.arange(len(y)), model.support_)[0]),
    ):
        bad = with_value(gram, 5, column, value)
        match = rf"NaN or infinity \(value {shown} at row 5, column {column}\)"
        with pytest.raises(ValueError, match=match):
            KernelPegasosClassifier(kernel="precomputed", max_iter=1).fit(bad, y)
        with pytest.raises(ValueError, match=match):
            model.decision_function(bad)
        with pytest.raises(ValueError, match=match):
            model.predict(bad[:7])  # the row number is the row of the X given
        with pytest.raises(ValueError, match=match):
            Nystroem(kernel="precomputed", n_components=len(y)).fit(bad)
        with pytest.raises(ValueError, match=match):
            Nystroem(kernel="precomputed", n_components=10, random_state=0).fit(gram).transform(bad)


@pytest.mark.parametrize("layout", ["dense", "csr", "frame"])
def test_maps_checked_by_scikit_learn_name_non_finite_values_by_row_and_column(
    binary_dense, layout
):
    # The maps whose input scikit-learn checks for NaN name the row and column too.
    from pegasos_rs import AdditiveKernelMap, RandomFourierFeatures

    X = np.abs(binary_dense[0])
    bad = with_value(X, 6, 2, np.nan)
    if layout == "csr":
        bad = sp.csr_matrix(bad)
    elif layout == "frame":
        bad = pytest.importorskip("pandas").DataFrame(bad)
    match = r"NaN or infinity \(value NaN at row 6, column 2\)"
    with pytest.raises(ValueError, match=match):
        RandomFourierFeatures().fit(bad)
    with pytest.raises(ValueError, match=match):
        AdditiveKernelMap().fit(bad)
    with pytest.raises(ValueError, match=match):
        AdditiveKernelMap().fit(X).transform(bad)


@both_classifiers
def test_empty_inputs(binary_dense, cls):
    X, y = binary_dense
    with pytest.raises(ValueError, match="0 sample"):
        cls(**PARAMS).fit(np.empty((0, X.shape[1])), np.empty(0))
    with pytest.raises(ValueError, match="0 sample"):
        cls(**PARAMS).fit(sp.csr_matrix((0, X.shape[1])), np.empty(0))
    with pytest.raises(ValueError, match="0 feature"):
        cls(**PARAMS).fit(np.empty((X.shape[0], 0)), y)
    est = cls(**PARAMS).fit(X, y)
    with pytest.raises(ValueError, match="0 sample"):
        est.predict(np.empty((0, X.shape[1])))


@both_classifiers
def test_mismatched_lengths(binary_dense, cls):
    X, y = binary_dense
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        cls(**PARAMS).fit(X, y[:-1])
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        cls(**PARAMS).fit(sp.csr_matrix(X[:-2]), y)
    with pytest.raises(ValueError, match=r"sample_weight.*shape|shape.*sample_weight"):
        cls(**PARAMS).fit(X, y, sample_weight=np.ones(len(y) + 1))


def test_one_class_only(binary_dense):
    X, y = binary_dense
    with pytest.raises(ValueError, match="only one class"):
        _fit(X, np.zeros_like(y))
    with pytest.raises(ValueError, match="only one class"):
        PegasosClassifier().partial_fit(X, np.ones_like(y), classes=[1])


def test_bad_label_types(binary_dense):
    X, _ = binary_dense
    with pytest.raises(ValueError, match="continuous"):
        _fit(X, X[:, 0] + 0.5)
    with pytest.raises(ValueError, match="1d"):
        _fit(X, np.c_[np.arange(len(X)) % 2, np.arange(len(X)) % 2])


@pytest.mark.parametrize(
    "params, match",
    [
        ({"alpha": 0.0}, "alpha"),
        ({"alpha": -1.0}, "alpha"),
        ({"alpha": np.inf}, "alpha"),
        ({"batch_size": 0}, "batch_size"),
        ({"batch_size": -3}, "batch_size"),
        ({"max_iter": 0}, "max_iter"),
        ({"intercept_scaling": 0.0}, "intercept_scaling"),
        ({"average": 0}, "average"),
        ({"sampling": "random"}, "sampling"),
        ({"class_weight": "auto"}, "class_weight"),
        ({"tol": -1.0}, "tol"),
        ({"n_iter_no_change": 0}, "n_iter_no_change"),
        ({"random_state": -1}, "random_state"),
    ],
)
def test_bad_parameters(binary_dense, params, match):
    X, y = binary_dense
    # InvalidParameterError subclasses both ValueError and TypeError.
    with pytest.raises(ValueError, match=match):
        PegasosClassifier(**params).fit(X, y)
    with pytest.raises(ValueError, match=match):
        PegasosClassifier(**params).partial_fit(X, y, classes=[0, 1])


def test_n_jobs_zero(binary_dense):
    X, y = binary_dense
    with pytest.raises(ValueError, match="n_jobs"):
        PegasosClassifier(n_jobs=0).fit(X, y)


def test_wrong_number_of_features_at_predict(any_dense):
    X, y = any_dense
    check_other_widths_rejected(_fit(X, y), X, y)


def test_wrong_number_of_features_when_continuing(binary_dense):
    X, y = binary_dense
    est = PegasosClassifier(warm_start=True, **PARAMS).fit(X, y)
    with pytest.raises(ValueError, match="features"):
        est.fit(X[:, :-1], y)
    with pytest.raises(ValueError, match="features"):
        est.partial_fit(X[:, :-1], y)


def test_predict_before_fit(binary_dense):
    X, _ = binary_dense
    est = PegasosClassifier()
    for method in (est.predict, est.decision_function):
        with pytest.raises(NotFittedError):
            method(X)


def test_unsupported_value_types(binary_dense):
    X, y = binary_dense
    with pytest.raises(ValueError, match=r"[Cc]omplex"):
        _fit(X.astype(complex), y)
    with pytest.raises(ValueError, match="dim 3"):
        _fit(X[:, :, None], y)
    with pytest.raises(ValueError, match="2D array"):
        _fit(X[:, 0], y)


# Malformed CSR matrices, built through the constructor and then corrupted in place,
# so that scipy's own checks are bypassed: the extension must reject them.


def _malformed(kind):
    def make(X):
        S = sp.csr_matrix(X)
        if kind == "index-too-large":
            S.indices[3] = X.shape[1]
        elif kind == "index-huge":
            S.indices[-1] = np.iinfo(S.indices.dtype).max
        elif kind == "index-negative":
            S.indices[3] = -1
        elif kind == "indptr-decreasing":
            S.indptr[5], S.indptr[6] = S.indptr[6], S.indptr[5]
        elif kind == "indptr-past-end":
            S.indptr[-1] = S.nnz + 10
        elif kind == "indptr-short-end":
            S.indptr[-1] = S.nnz - 1
        elif kind == "indptr-negative":
            S.indptr[1] = -5
        elif kind == "indptr-not-starting-at-zero":
            S.indptr[0] = 1
        else:  # pragma: no cover
            raise AssertionError(kind)
        return S

    return make


MALFORMED_MESSAGE = r"malformed CSR matrix: .*(index|indptr)"

MALFORMED = [
    "index-too-large",
    "index-huge",
    "index-negative",
    "indptr-decreasing",
    "indptr-past-end",
    "indptr-short-end",
    "indptr-negative",
    "indptr-not-starting-at-zero",
]


@pytest.mark.parametrize("kind", MALFORMED)
def test_malformed_csr_is_rejected_by_fit(binary_dense, kind):
    X, y = binary_dense
    S = _malformed(kind)(X)
    with pytest.raises(ValueError, match=MALFORMED_MESSAGE):
        _fit(S, y)


@pytest.mark.parametrize("kind", MALFORMED)
def test_malformed_csr_is_rejected_by_predict(binary_dense, kind):
    X, y = binary_dense
    est = _fit(X, y)
    S = _malformed(kind)(X)
    with pytest.raises(ValueError, match=MALFORMED_MESSAGE):
        est.decision_function(S)
    with pytest.raises(ValueError, match=MALFORMED_MESSAGE):
        est.predict(S)


def test_malformed_csr_message_names_the_problem(binary_dense):
    X, y = binary_dense
    with pytest.raises(ValueError, match=r"column index .* out of range"):
        _fit(_malformed("index-too-large")(X), y)
    with pytest.raises(ValueError, match="indptr"):
        _fit(_malformed("indptr-decreasing")(X), y)


@pytest.fixture(scope="module")
def child():
    """The child process running the cases that could abort (an abort would take the
    test runner down); they share it, each checked by its own test."""
    with SharedChild() as c:
        yield c


def test_huge_n_features_is_an_error_not_an_abort(child):
    """A sparse matrix may declare far more columns than memory can hold weights for:
    that must be a Python exception (MemoryError or ValueError), not a process abort."""
    out = child.run(
        textwrap.dedent(
            """
            import numpy as np, scipy.sparse as sp
            from pegasos_rs import PegasosClassifier
            X = sp.csr_matrix(
                (np.ones(2), np.array([0, 5], dtype=np.int64),
                 np.array([0, 1, 2], dtype=np.int64)),
                shape=(2, 2**50),
            )
            try:
                PegasosClassifier().fit(X, [0, 1])
            except (MemoryError, ValueError) as e:
                print("raised", type(e).__name__)
            """
        ),
        timeout=120,
    )
    assert "raised" in out


@both_classifiers
@pytest.mark.parametrize("batch_size", ["2**40", "2**62"])
def test_huge_batch_size_is_an_error_or_works_not_an_abort(child, batch_size, cls):
    """``batch_size`` has no upper bound in the parameter constraints; a value far
    beyond the data must give a MemoryError or ValueError or work, never abort the
    interpreter or panic. Run with a 4 GB address-space limit (the soft limit, restored
    after the case)."""
    out = child.run(
        textwrap.dedent(
            f"""
            import resource
            import numpy as np
            from pegasos_rs import {cls.__name__}
            X = np.random.RandomState(0).randn(50, 3)
            y = np.arange(50) % 2
            soft, hard = resource.getrlimit(resource.RLIMIT_AS)
            resource.setrlimit(resource.RLIMIT_AS, (4 << 30, hard))
            try:
                {cls.__name__}(batch_size={batch_size}, max_iter=1).fit(X, y)
                print("fitted")
            except (MemoryError, ValueError) as e:
                print("raised", type(e).__name__, e)
            finally:
                resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
            """
        ),
        timeout=120,
    )
    assert "fitted" in out or "raised" in out, out


# --------------------------------------------------------------------------------------
# Weights, sampling orders, partial_fit misuse


@pytest.mark.parametrize(
    "weights, match",
    [
        (lambda n: -np.ones(n), "non-negative"),
        (lambda n: np.r_[np.ones(n - 1), -1e-12], "non-negative"),
        (lambda n: np.r_[np.ones(n - 1), np.nan], "NaN"),
        (lambda n: np.r_[np.ones(n - 1), np.inf], "infinity"),
        (lambda n: np.zeros(n), "non-zero"),
    ],
)
@both_classifiers
def test_bad_sample_weight(binary_dense, weights, match, cls):
    X, y = binary_dense
    with pytest.raises(ValueError, match=match):
        cls().fit(X, y, sample_weight=weights(len(y)))


@both_classifiers
def test_bad_class_weight(binary_dense, cls):
    X, y = binary_dense
    with pytest.raises(ValueError):
        cls(class_weight={0: 1.0, 7: 2.0}).fit(X, y)


@pytest.mark.parametrize(
    "order, match",
    [
        ([0, 1, 300], "index 300"),
        ([0, 1, 10**12], "index"),
        ([0, -1, 2], "negative"),
        ([], "non-empty"),
        ([0.0, 1.0], "int"),
        ([[0, 1], [2, 3]], "1-D"),
    ],
)
def test_bad_sampling_order(binary_dense, order, match):
    X, y = binary_dense
    assert len(y) == 300
    with pytest.raises(ValueError, match=match):
        PegasosClassifier(sampling=order).fit(X, y)


def test_sampling_order_checked_against_each_batch(binary_dense):
    X, y = binary_dense
    est = PegasosClassifier(sampling=list(range(299, -1, -1)))
    est.partial_fit(X, y, classes=[0, 1])
    with pytest.raises(ValueError, match="index"):
        est.partial_fit(X[:100], y[:100])


def test_balanced_sampling_needs_both_classes_in_the_batch(binary_dense):
    X, y = binary_dense
    est = PegasosClassifier(sampling="balanced")
    with pytest.raises(ValueError, match="both classes"):
        est.partial_fit(X[y == 0], y[y == 0], classes=[0, 1])


def test_partial_fit_needs_classes_on_the_first_call(binary_dense):
    X, y = binary_dense
    with pytest.raises(ValueError, match="classes must be passed"):
        PegasosClassifier().partial_fit(X, y)


def test_partial_fit_refuses_balanced_class_weight(binary_dense):
    # As SGDClassifier.partial_fit: a batch's class counts are not the training
    # set's, so the weights would change from call to call.
    X, y = binary_dense
    est = PegasosClassifier(class_weight="balanced", random_state=0)
    with pytest.raises(ValueError, match="class_weight='balanced' is not supported by partial_fit"):
        est.partial_fit(X, y, classes=[0, 1])
    assert not hasattr(est, "coef_")
    # Also on a later call, after a parameter change.
    est.set_params(class_weight=None).partial_fit(X, y, classes=[0, 1])
    before = est.coef_.copy()
    with pytest.raises(ValueError, match="compute_class_weight"):
        est.set_params(class_weight="balanced").partial_fit(X[:50], y[:50])
    assert est.coef_.tobytes() == before.tobytes()


def test_the_weights_partial_fit_suggests_are_balanced_fit_s(multiclass_dense):
    # What the message says to do gives the weights of fit(class_weight="balanced").
    from sklearn.utils.class_weight import compute_class_weight

    X, y = multiclass_dense
    classes = np.unique(y)
    weights = dict(
        zip(classes, compute_class_weight("balanced", classes=classes, y=y), strict=True)
    )
    params = dict(alpha=1e-3, average=False, sampling="shuffle", random_state=0)
    fitted = PegasosClassifier(class_weight="balanced", max_iter=1, **params).fit(X, y)
    batch = PegasosClassifier(class_weight=weights, **params).partial_fit(X, y, classes=classes)
    assert batch.coef_.tobytes() == fitted.coef_.tobytes()


def test_partial_fit_with_labels_outside_classes(binary_dense):
    X, y = binary_dense
    with pytest.raises(ValueError, match=r"not in classes: \[1\]"):
        PegasosClassifier().partial_fit(X, y, classes=[0, 2])
    est = PegasosClassifier().partial_fit(X, y, classes=[0, 1])
    with pytest.raises(ValueError, match=r"not in classes: \[5\]"):
        est.partial_fit(X, np.where(y == 1, 5, 0))


def test_failed_fit_leaves_a_fitted_estimator_usable(binary_dense):
    X, y = binary_dense
    est = _fit(X, y)
    before = est.coef_.copy()
    with pytest.raises(ValueError):
        est.fit(_nan(X), y)
    with pytest.raises(ValueError):
        est.partial_fit(_malformed("index-negative")(X), y)
    np.testing.assert_array_equal(est.coef_, before)
    est.partial_fit(X, y)  # the solver state is intact


@pytest.mark.parametrize("layout", ["dense64", "dense32", "csr", "csr_array"])
@pytest.mark.parametrize("labels", ["int", "bool", "float"])
def test_fast_validation_equals_scikit_learns(layout, labels):
    """validate_input's fast path returns what validate_data returns and sets the
    same attributes, for the inputs it takes."""
    from pegasos_rs._validation import INPUT_CHECKS, validate_input
    from sklearn.utils.validation import validate_data

    rng = np.random.RandomState(0)
    X = rng.randn(30, 4)
    X = {
        "dense64": X,
        "dense32": X.astype(np.float32),
        "csr": sp.csr_matrix(X),
        "csr_array": sp.csr_array(X),
    }[layout]
    y = {"int": np.arange(30) % 3, "bool": np.arange(30) % 2 == 0, "float": np.arange(30) % 2.0}
    y = y[labels]
    ours, theirs = PegasosClassifier(), PegasosClassifier()
    ours.feature_names_in_ = theirs.feature_names_in_ = np.array(["a"], dtype=object)
    Xo, yo = validate_input(ours, X, y, reset=True, **INPUT_CHECKS)
    Xt, yt = validate_data(theirs, X, y, reset=True, **INPUT_CHECKS)
    assert type(Xo) is type(Xt) and Xo.dtype == Xt.dtype and yo.dtype == yt.dtype
    assert (Xo != Xt).nnz == 0 if sp.issparse(Xo) else np.array_equal(Xo, Xt)
    np.testing.assert_array_equal(yo, yt)
    assert vars(ours) == vars(theirs) or (
        ours.n_features_in_ == theirs.n_features_in_ == 4
        and not hasattr(ours, "feature_names_in_")
        and not hasattr(theirs, "feature_names_in_")
    )
    assert validate_input(ours, X, reset=False, **INPUT_CHECKS) is Xo


def test_fast_validation_leaves_errors_and_warnings_to_scikit_learn():
    from pegasos_rs._validation import check_targets

    rng = np.random.RandomState(0)
    X, y = rng.randn(30, 4), np.arange(30) % 2
    est = PegasosClassifier(random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="X has 5 features, but PegasosClassifier is expecting 4"):
        est.predict(rng.randn(3, 5))
    for bad, message in [
        (np.where(y == 1, np.nan, 0.0), "Input y contains NaN"),
        (y + 0.5, "Unknown label type: continuous"),
    ]:
        with pytest.raises(ValueError, match=message):
            PegasosClassifier().fit(X, bad)
    with pytest.raises(ValueError, match="Unknown label type"):
        check_targets(y + 0.25)
    pd = pytest.importorskip("pandas")
    named = PegasosClassifier(random_state=0).fit(pd.DataFrame(X, columns=list("abcd")), y)
    with pytest.warns(UserWarning, match="X does not have valid feature names"):
        named.predict(X)


def test_label_codes_by_counting_equal_numpy_unique():
    from pegasos_rs._validation import _unique_codes

    rng = np.random.RandomState(0)
    cases = [
        rng.randint(-3, 4, size=1000),
        rng.randint(0, 2, size=17).astype(np.uint8),
        np.array([2**40, 2**40 + 5, 2**40], dtype=np.int64),
        np.array([np.iinfo(np.int64).min, 0, np.iinfo(np.int64).max]),  # wide: sorted
        rng.randint(0, 10**6, size=50),  # sparse range: sorted
        np.array([7], dtype=np.int16),
        rng.randn(20).round(),
        np.array([1.0, -1.0, 1.0, -1.0]),
        np.array([0.0, -0.0, 1.0]),  # a negative zero: sorted by numpy
        np.array([0.5, 1.0, 0.5]),
        np.array([1e300, 1.0]),
        np.array([np.nan, 1.0, np.nan]),
        np.arange(5, dtype=np.float32) * 3,
        np.array(["b", "a", "b"]),
    ]
    for y in cases:
        present, codes, counts = _unique_codes(y)
        ref = np.unique(y, return_inverse=True, return_counts=True)
        assert present.dtype == ref[0].dtype
        np.testing.assert_array_equal(present, ref[0])
        np.testing.assert_array_equal(codes, ref[1].reshape(-1))
        np.testing.assert_array_equal(counts, ref[2])
