"""Input handling shared by the estimators: turn validated arrays into what the
extension borrows without copying, and map scikit-learn style options."""

from __future__ import annotations

import numbers
import os

import numpy as np
import scipy.sparse as sp
from sklearn.utils import check_random_state
from sklearn.utils.class_weight import compute_class_weight
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import _check_sample_weight, validate_data

from pegasos_rs import _core

#: How ``validate_data`` shapes X for the extension: CSR (int32/int64 indices) or
#: C-ordered dense, float32/float64 kept as they are, so common inputs are not
#: copied. NaN/inf are rejected by the Rust view (one O(nnz) pass, not two). Used by
#: every estimator that reads data rows (linear, kernel, feature maps, Dask blocks).
INPUT_CHECKS = {
    "accept_sparse": "csr",
    "dtype": [np.float64, np.float32],
    "order": "C",
    "accept_large_sparse": True,
    "ensure_all_finite": False,
}

#: Precomputed kernels: a dense float64 matrix.
PRECOMPUTED_CHECKS = {"dtype": np.float64, "order": "C"}

#: The kernels of the kernel estimator and the Nyström map.
KERNELS = ("linear", "rbf", "poly", "sigmoid", "chi2", "intersection", "precomputed")


def kernel_view(X):
    """The matrix the kernel code reads: a dense array that is mostly zeros becomes
    CSR (a copy of its non-zeros), because kernel rows gather non-zeros much faster
    than they stream zeros (MNIST, 19 % non-zeros: about 5x)."""
    if sp.issparse(X) or X.size == 0:
        return X
    if np.count_nonzero(X) <= 0.5 * X.size:
        return sp.csr_matrix(X)
    return X


def validate_input(estimator, X, y="no_validation", *, reset=True, **check_params):
    """scikit-learn's ``validate_data`` (``n_features_in_``, ``feature_names_in_`` and
    their checks, then ``check_array``), with a clearer error for data frames with
    columns that are not numbers: scikit-learn reports only the first value it could
    not convert; this names the columns and their dtypes. Column names are checked
    first, as by scikit-learn: a frame whose names do not match the fit's gets
    scikit-learn's error about the names.

    Inputs that ``validate_data`` would return unchanged (a C-ordered float numpy
    array or a CSR matrix of the accepted dtypes, a finite numeric 1-d ``y``, no
    column names now or at fit time, the fitted number of features) take a fast
    path with the same result and side effects, in a few microseconds instead of
    about 150 (a noticeable part of a small fit or prediction); anything else, and
    every error, goes through scikit-learn's code and messages.
    """
    fast = _unchanged_by_validation(estimator, X, y, reset, check_params)
    if fast is not None:
        return fast
    try:
        return validate_data(estimator, X, y, reset=reset, **check_params)
    except (ValueError, TypeError) as e:
        columns = non_numeric_columns(X)
        if not columns or not (reset or _names_match(estimator, X)):
            raise
        listed = ", ".join(f"{name!r} ({dtype})" for name, dtype in columns)
        raise ValueError(
            f"{type(estimator).__name__} needs numeric data, but X has columns that are "
            f"not numbers: {listed}. Encode them first (for example with a "
            "ColumnTransformer and a OneHotEncoder) or drop them."
        ) from e


#: ``validate_data`` options under which the fast path of :func:`validate_input`
#: returns what scikit-learn would (others go through scikit-learn).
_FAST_OPTIONS = frozenset(
    {"accept_sparse", "dtype", "order", "accept_large_sparse", "ensure_all_finite"}
)
_CSR_TYPES = (sp.csr_matrix, sp.csr_array)


def _unchanged_by_validation(estimator, X, y, reset, check_params):
    """``X`` (or ``(X, y)``) when ``validate_data`` would return it unchanged and
    raise or warn nothing, after doing what it does to the estimator
    (``n_features_in_``, dropping ``feature_names_in_`` on reset); else ``None``."""
    if not set(check_params) <= _FAST_OPTIONS or check_params.get("ensure_all_finite", True):
        return None
    dtypes = check_params.get("dtype")
    if not isinstance(dtypes, list) or X.__class__ not in (np.ndarray, *_CSR_TYPES):
        return None
    if X.ndim != 2 or X.shape[0] < 1 or X.shape[1] < 1 or X.dtype not in dtypes:
        return None
    if isinstance(X, np.ndarray):
        if check_params.get("order") == "C" and not X.flags.c_contiguous:
            return None
    elif check_params.get("accept_sparse") not in ("csr", ["csr"]) or X.format != "csr":
        return None
    checked_y = isinstance(y, str) and y == "no_validation"
    if not checked_y and not _plain_labels(y, X.shape[0]):
        return None
    if reset:
        estimator.n_features_in_ = X.shape[1]
        if hasattr(estimator, "feature_names_in_"):
            del estimator.feature_names_in_
    elif hasattr(estimator, "feature_names_in_") or (
        getattr(estimator, "n_features_in_", X.shape[1]) != X.shape[1]
    ):
        return None  # scikit-learn's warning or error
    return X if checked_y else (X, y)


def _plain_labels(y, n_rows: int) -> bool:
    """Whether ``y`` is a 1-d numpy array of ``n_rows`` finite numbers that
    scikit-learn's checks leave as they are."""
    if y.__class__ is not np.ndarray or y.ndim != 1 or y.shape[0] != n_rows:
        return False
    if y.dtype.kind in "biu":
        return True
    return y.dtype.kind == "f" and bool(np.isfinite(y).all())


def check_targets(y) -> None:
    """scikit-learn's ``check_classification_targets``, answered at once for the
    common labels (integers, or floats with integral values) that it accepts."""
    if y.__class__ is np.ndarray and y.ndim == 1:
        if y.dtype.kind in "biu":
            return
        # Integral values within int32: scikit-learn's own test (astype(int)) agrees.
        if (
            y.dtype.kind == "f"
            and np.isfinite(y).all()
            and (np.abs(y) < 2**31).all()
            and not (y != np.floor(y)).any()
        ):
            return
    check_classification_targets(y)


def _names_match(estimator, X) -> bool:
    """Whether ``X`` passes the fitted estimator's column name check."""
    try:
        validate_data(estimator, X, reset=False, skip_check_array=True, ensure_2d=False)
    except ValueError:
        return False
    return True


def non_numeric_columns(X) -> list:
    """``(name, dtype)`` of the columns of a pandas or polars data frame ``X`` whose
    values cannot be read as float64 (empty for anything else). Columns of a numeric
    or boolean dtype are not examined; the others (strings, categories, objects) are
    tried, so that an object column holding numbers, which scikit-learn accepts, is
    not reported."""
    columns, dtypes = getattr(X, "columns", None), getattr(X, "dtypes", None)
    if (
        columns is None
        or dtypes is None
        or sp.issparse(X)
        or not callable(getattr(X, "__getitem__", None))
    ):
        return []
    found = []
    for name, dtype in zip(list(columns), list(dtypes), strict=True):
        if _numeric_dtype(dtype):
            continue
        try:
            np.asarray(X[name]).astype(np.float64)
        except (ValueError, TypeError):
            found.append((name, dtype))
    return found


def _numeric_dtype(dtype) -> bool:
    """A numpy, pandas or polars column dtype of numbers or booleans."""
    if callable(getattr(dtype, "is_numeric", None)):  # polars
        return bool(dtype.is_numeric()) or str(dtype) == "Boolean"
    return getattr(dtype, "kind", "O") in "biufc"


def buffer(a, dtype=None):
    """``a`` as a C-contiguous, aligned array (copied only when it is not one):
    the extension reads such buffers in place. Arrays rebuilt from network frames
    (a Dask worker's) can be contiguous but unaligned."""
    return np.require(a, dtype=dtype, requirements=["C_CONTIGUOUS", "ALIGNED"])


def as_rust_matrix(X):
    """Return a C-contiguous dense array, or the CSR tuple the extension reads.

    ``X`` must already be validated (CSR or dense, float32/float64). Buffers that are
    already contiguous and aligned are passed through; nothing is copied in the
    common case.
    """
    if sp.issparse(X):
        if X.format != "csr":
            raise TypeError(f"expected a CSR matrix, got format {X.format!r}")
        index_dtype = np.promote_types(X.indices.dtype, X.indptr.dtype)
        if index_dtype not in (np.int32, np.int64):
            index_dtype = np.dtype(np.int64)
        n_rows, n_features = X.shape
        return (
            buffer(X.data),
            buffer(X.indices, dtype=index_dtype),
            buffer(X.indptr, dtype=index_dtype),
            int(n_rows),
            int(n_features),
        )
    return buffer(X)


def check_csr_structure(X, *, indices: bool = True) -> None:
    """Raise ``ValueError`` unless the CSR arrays of ``X`` are consistent.

    scipy's routines (``sum_duplicates``, ``sort_indices``, row indexing) trust
    ``indptr`` and ``indices``: on a malformed matrix they read or write out of
    bounds and can corrupt the heap. Run this before any of them on a caller's
    matrix (the extension checks the same things, with the same messages, on what it
    reads). ``indices=False`` checks only ``indptr`` and the array lengths, in
    ``O(n_rows)``: enough for row indexing, which copies column indices without
    reading them.
    """
    check_indices = indices
    data, columns, indptr = X.data, X.indices, X.indptr
    n_rows, n_features = X.shape
    if indptr.ndim != 1 or indptr.shape[0] != n_rows + 1:
        raise ValueError(
            f"malformed CSR matrix: indptr has {indptr.size} entries, expected "
            f"n_rows + 1 = {n_rows + 1}"
        )
    if data.shape[0] != columns.shape[0]:
        raise ValueError(
            f"malformed CSR matrix: data has {data.shape[0]} entries but indices has "
            f"{columns.shape[0]}"
        )
    if int(indptr[0]) != 0:
        raise ValueError(f"malformed CSR matrix: indptr[0] is {int(indptr[0])}, expected 0")
    if int(indptr[-1]) != columns.shape[0]:
        raise ValueError(
            f"malformed CSR matrix: indptr[-1] is {int(indptr[-1])} but there are "
            f"{columns.shape[0]} stored values"
        )
    steps = np.diff(indptr)
    if steps.size and steps.min() < 0:
        position = int(np.argmax(steps < 0)) + 1
        raise ValueError(
            f"malformed CSR matrix: indptr is not non-decreasing at position {position}"
        )
    if check_indices and columns.size:
        bad = (columns < 0) | (columns >= n_features)
        if bad.any():
            position = int(np.argmax(bad))
            raise ValueError(
                f"malformed CSR matrix: column index {int(columns[position])} at position "
                f"{position} is out of range [0, {n_features})"
            )


def canonical_csr(X):
    """CSR ``X`` itself when its indices are sorted and unique, otherwise a copy with
    sorted indices and repeated entries added up (the caller's matrix is left as it
    is); ``ValueError`` when its arrays are inconsistent (checked first: scipy's
    ``has_canonical_format`` and ``sum_duplicates`` trust them)."""
    check_csr_structure(X, indices=False)
    if X.has_canonical_format:
        return X
    X = X.copy()
    check_csr_structure(X)
    X.sum_duplicates()
    return X


def n_threads(n_jobs: int | np.integer | None) -> int:
    """joblib's convention mapped to a thread count (0 lets Rust use every core).

    More threads than four per core are not started (results do not depend on the
    thread count): ``n_jobs=10**12``, from a hostile model file say, would otherwise
    make the extension try to start that many.
    """
    if n_jobs is None:
        return 1
    if n_jobs == 0:
        raise ValueError("n_jobs == 0 has no meaning; use None, a positive number or -1")
    cores = os.cpu_count() or 1
    if n_jobs < 0:
        return max(1, cores + 1 + n_jobs)
    return min(int(n_jobs), 4 * cores)


def seed_from(random_state) -> int:
    """A u64 seed: an int ``random_state`` is used as is (so the same int always gives
    the same model); otherwise one seed is drawn from the generator."""
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool):
        if random_state < 0:
            raise ValueError(f"random_state must be non-negative, got {random_state}")
        return int(random_state)
    rng = check_random_state(random_state)
    return int(rng.randint(np.iinfo(np.int32).max))


def check_classes(estimator_name: str, present, known=None):
    """The classes of a fit from the sorted labels ``present`` in its data: ``known``
    when given (``partial_fit``'s ``classes`` or a previous fit; labels outside it
    raise ``ValueError``), else ``present``; at least two."""
    if known is None:
        known = present
    else:
        unseen = np.setdiff1d(present, known)
        if unseen.size:
            raise ValueError(f"y contains labels not in classes: {unseen.tolist()}")
    if known.size < 2:
        raise ValueError(
            f"{estimator_name} needs samples of at least 2 classes in the data, "
            f"but the data contains only one class: {known.tolist()}"
        )
    return known


def encode_targets(estimator_name: str, y, known=None):
    """Classes and ``uint32`` class codes of ``y`` (see :func:`check_classes`).

    Returns ``(classes, present, counts, codes)``: ``present`` are the classes that
    occur in ``y`` and ``counts`` their numbers of examples.
    """
    present, codes, counts = _unique_codes(y)
    classes = check_classes(estimator_name, present, known)
    if known is not None:
        codes = np.searchsorted(classes, present)[codes]
    return classes, present, counts, codes.astype(np.uint32)


def _unique_codes(y):
    """``np.unique(y, return_inverse=True, return_counts=True)``: for integer labels
    of a small range by counting (a few linear passes) instead of sorting, which at
    10^7 labels costs more than the fit itself."""
    y = np.asarray(y)
    if y.ndim == 1 and y.size and y.dtype.kind == "f":
        # Labels read from svmlight files are floats with integral values.
        finite = np.isfinite(y).all() and np.abs(y).max() < 2**31
        as_int = y.astype(np.int64) if finite else None
        if as_int is not None and (as_int == y).all() and not np.signbit(y[y == 0]).any():
            present, codes, counts = _unique_codes(as_int)
            return present.astype(y.dtype), codes, counts
    if y.ndim == 1 and y.size and y.dtype.kind in "iu":
        lo, hi = int(y.min()), int(y.max())
        if hi - lo < min(1 << 20, 4 * y.size):
            shifted = (y - lo).astype(np.intp, copy=False)
            counts = np.bincount(shifted, minlength=hi - lo + 1)
            offsets = np.flatnonzero(counts)
            lookup = np.zeros(hi - lo + 1, dtype=np.intp)
            lookup[offsets] = np.arange(offsets.size)
            present = (offsets + lo).astype(y.dtype)
            return present, lookup[shifted], counts[offsets]
    present, codes, counts = np.unique(y, return_inverse=True, return_counts=True)
    return present, codes.reshape(-1), counts


def class_weight_vector(class_weight, classes, present, counts):
    """Per-class weights (``float64``, one per class) from a ``class_weight`` option;
    ``counts``: examples of each class in ``present``. The same numbers as
    scikit-learn's ``compute_class_weight(class_weight, classes=present, y=y)``,
    computed from the counts (a distributed fit has no ``y`` in one place)."""
    weights = np.ones(classes.size)
    if isinstance(class_weight, str) and class_weight == "balanced":
        # scikit-learn's formula, operation for operation.
        counts = np.asarray(counts).astype(np.float64)
        weights[np.searchsorted(classes, present)] = counts.sum() / (present.size * counts)
    elif class_weight is not None:
        weights[np.searchsorted(classes, present)] = compute_class_weight(
            class_weight, classes=present, y=present
        )
    return weights


def sample_weight_vector(sample_weight, X):
    """Validated non-negative ``float64`` sample weights, or ``None``."""
    if sample_weight is None:
        return None
    sample_weight = _check_sample_weight(sample_weight, X, dtype=np.float64)
    if np.any(sample_weight < 0):
        raise ValueError("sample_weight must be non-negative")
    return sample_weight


def solver_params(
    estimator,
    *,
    max_iter: int | np.integer,
    seed: int,
    average: str = "off",
    average_start: int = 1,
    projection: bool = False,
    intercept_scaling=None,
    max_steps=None,
    tol=None,
    n_iter_no_change: int | np.integer = 1,
) -> dict:
    """The solver's settings as the extension reads them (one named dict, the same
    for the linear and the kernel solver): ``estimator``'s ``alpha``,
    ``batch_size``, ``fit_intercept``, ``sampling`` and ``verbose``, and the rest
    as given (``average``: "off", "suffix", "from" (from step ``average_start``) or
    "weighted")."""
    sampling_name, order = sampling_args(estimator.sampling)
    return {
        "alpha": float(estimator.alpha),
        "batch_size": int(estimator.batch_size),
        "projection": bool(projection),
        "fit_intercept": bool(estimator.fit_intercept),
        "intercept_scaling": None if intercept_scaling is None else float(intercept_scaling),
        "average": average,
        "average_start": int(average_start),
        "sampling_name": sampling_name,
        "order": order,
        "max_iter": int(max_iter),
        "max_steps": None if max_steps is None else int(max_steps),
        "tol": None if tol is None else float(tol),
        "n_iter_no_change": int(n_iter_no_change),
        "seed": int(seed),
        "verbose": bool(estimator.verbose),
    }


def sampling_args(sampling):
    """``(name, order)`` for the extension from a ``sampling`` option."""
    if isinstance(sampling, str):
        return sampling, None
    order = np.asarray(sampling)
    if order.ndim != 1 or order.size == 0 or not np.issubdtype(order.dtype, np.integer):
        raise ValueError("sampling as a visiting order must be a non-empty 1-D int array")
    return "order", order.astype(np.int64)


def resolve_gamma(kernel: str, gamma, X) -> float:
    """The numeric gamma of ``kernel`` on training data ``X``: scikit-learn's rules
    for ``"scale"`` (``1 / (n_features X.var())``) and ``"auto"`` (``1 /
    n_features``); 1.0 for kernels without one.

    The variance is that of all ``n_samples * n_features`` entries (a sparse
    matrix's zeros included), in float64 whatever the input's dtype (as SVC), computed
    by the Rust core in a fixed order (two passes per group of entries, groups
    combined pairwise), so it has the same bits on every platform; non-finite or
    malformed input raises ``ValueError`` naming the problem."""
    if kernel in ("linear", "intersection", "precomputed"):
        return 1.0  # unused
    if gamma == "auto":
        return 1.0 / X.shape[1]
    if gamma == "scale":
        var = _core.variance_of([_core.moments(as_rust_matrix(X), 1)])
        return 1.0 / (X.shape[1] * var) if var != 0 else 1.0
    return float(gamma)
