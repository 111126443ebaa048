"""Input handling shared by the estimators: turn validated arrays into what the
extension borrows without copying, and map scikit-learn style options."""

from __future__ import annotations

import numbers
import os

import numpy as np
import scipy.sparse as sp
from sklearn.utils import check_random_state


def as_rust_matrix(X):
    """Return a C-contiguous dense array, or the CSR tuple the extension reads.

    ``X`` must already be validated (CSR or dense, float32/float64). Buffers that are
    already contiguous are passed through; nothing is copied in the common case.
    """
    if sp.issparse(X):
        if X.format != "csr":
            raise TypeError(f"expected a CSR matrix, got format {X.format!r}")
        index_dtype = np.promote_types(X.indices.dtype, X.indptr.dtype)
        if index_dtype not in (np.int32, np.int64):
            index_dtype = np.dtype(np.int64)
        n_rows, n_features = X.shape
        return (
            np.ascontiguousarray(X.data),
            np.ascontiguousarray(X.indices, dtype=index_dtype),
            np.ascontiguousarray(X.indptr, dtype=index_dtype),
            int(n_rows),
            int(n_features),
        )
    return np.ascontiguousarray(X)


def n_threads(n_jobs: int | None) -> int:
    """joblib's convention mapped to a thread count (0 lets Rust use every core)."""
    if n_jobs is None:
        return 1
    if n_jobs == 0:
        raise ValueError("n_jobs == 0 has no meaning; use None, a positive number or -1")
    if n_jobs < 0:
        return max(1, (os.cpu_count() or 1) + 1 + n_jobs)
    return int(n_jobs)


def seed_from(random_state) -> int:
    """A u64 seed: an int ``random_state`` is used as is (so the same int always gives
    the same model); otherwise one seed is drawn from the generator."""
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool):
        if random_state < 0:
            raise ValueError(f"random_state must be non-negative, got {random_state}")
        return int(random_state)
    rng = check_random_state(random_state)
    return int(rng.randint(np.iinfo(np.int32).max))
