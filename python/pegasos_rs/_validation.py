"""Input handling shared by the estimators: turn validated arrays into what the
extension borrows without copying, and map scikit-learn style options."""

from __future__ import annotations

import numbers

import numpy as np
import scipy.sparse as sp
from sklearn.utils.validation import validate_data

from pegasos_rs import _core

# The parts without scikit-learn live in modules of their own (the command line
# uses them without importing scikit-learn); the estimators import them from here.
from pegasos_rs._arrays import (  # noqa: F401 (re-exported)
    as_rust_matrix,
    buffer,
    canonical_csr,
    check_csr_structure,
    n_threads,
)
from pegasos_rs._fit_inputs import (  # noqa: F401 (re-exported)
    _unique_codes,
    check_classes,
    check_targets,
    class_weight_vector,
    encode_targets,
    sampling_args,
    seed_from,
    solver_params,
)

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
    than they stream zeros."""
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
    scikit-learn's error about the names. Where scikit-learn checks that ``X`` is
    finite (``ensure_all_finite``, as for a precomputed kernel), its error names the
    row and column of the first NaN or infinity, as the Rust core's check of data
    rows does (scikit-learn's names neither).

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
        located = _non_finite_located(X, e)
        if located is not None:
            raise located from e
        columns = non_numeric_columns(X)
        if not columns or not (reset or _names_match(estimator, X)):
            raise
        listed = ", ".join(f"{name!r} ({dtype})" for name, dtype in columns)
        raise ValueError(
            f"{type(estimator).__name__} needs numeric data, but X has columns that are "
            f"not numbers: {listed}. Encode them first (for example with a "
            "ColumnTransformer and a OneHotEncoder) or drop them."
        ) from e


def _non_finite_located(X, error: Exception) -> ValueError | None:
    """For scikit-learn's "Input X contains NaN" (or infinity), the Rust core's
    error for the same matrix, which names the row and column of the first such
    value (``pegasos_rs._core.check_matrix``, the check every data row goes
    through); ``None`` for any other error, or an ``X`` not read as a float64
    matrix."""
    if not (isinstance(error, ValueError) and str(error).startswith("Input X contains")):
        return None
    try:
        if sp.issparse(X):
            matrix = as_rust_matrix(sp.csr_matrix(X, dtype=np.float64))
        else:
            matrix = np.ascontiguousarray(X, dtype=np.float64)
            if matrix.ndim != 2:
                return None
        _core.check_matrix(matrix)
    except ValueError as located:
        return located if "NaN or infinity" in str(located) else None
    except TypeError:
        pass
    return None


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


def sample_weight_vector(sample_weight, X):
    """Validated ``float64`` sample weights of the rows of ``X``, or ``None``.

    A number weighs every row the same; an array-like needs one finite,
    non-negative weight per row, not all zero. Checked here rather than by
    scikit-learn's private ``_check_sample_weight``, whose checks differ between the
    scikit-learn versions this package supports (1.6 accepts all-zero weights)."""
    if sample_weight is None:
        return None
    n = X.shape[0]
    if isinstance(sample_weight, numbers.Number) and not isinstance(sample_weight, bool):
        weights = np.full(n, sample_weight, dtype=np.float64)
    else:
        weights = np.asarray(sample_weight)
        if weights.dtype.kind not in "biuf":
            raise ValueError(
                f"sample_weight must be numbers, got an array of dtype {weights.dtype}"
            )
        weights = weights.astype(np.float64, copy=False)
    if weights.shape != (n,):
        raise ValueError(f"sample_weight.shape == {weights.shape}, expected ({n},)")
    if np.isnan(weights).any():
        raise ValueError("Input sample_weight contains NaN.")
    if np.isinf(weights).any():
        raise ValueError("Input sample_weight contains infinity.")
    if np.any(weights < 0):
        raise ValueError("sample_weight must be non-negative")
    if not weights.any():
        raise ValueError("Sample weights must contain at least one non-zero number.")
    return weights


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
