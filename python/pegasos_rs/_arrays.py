"""Arrays as the extension reads them, and thread counts.

Imports neither scikit-learn nor scipy, so that ``pegasos-rs train`` can hand the
arrays of an svmlight file to the solver without paying for them (importing
scikit-learn takes longer than training on a9a). :mod:`pegasos_rs._validation`
re-exports everything here for the estimators.
"""

from __future__ import annotations

import os
import sys

import numpy as np


def is_sparse(X) -> bool:
    """``scipy.sparse.issparse(X)``, without importing scipy: no scipy sparse
    matrix can exist before :mod:`scipy.sparse` has been imported."""
    sp = sys.modules.get("scipy.sparse")
    return sp is not None and sp.issparse(X)


def buffer(a, dtype=None):
    """``a`` as a C-contiguous, aligned array (copied only when it is not one):
    the extension reads such buffers in place. Arrays rebuilt from network frames
    (a Dask worker's) can be contiguous but unaligned."""
    return np.require(a, dtype=dtype, requirements=["C_CONTIGUOUS", "ALIGNED"])


def csr_parts(data, indices, indptr, shape: tuple[int, int]) -> tuple:
    """The tuple the extension reads for a CSR matrix of ``shape`` given by its three
    arrays: contiguous, aligned buffers (copied only when they are not), the two
    index arrays of one integer type (int32 or int64)."""
    index_dtype = np.promote_types(indices.dtype, indptr.dtype)
    if index_dtype not in (np.int32, np.int64):
        index_dtype = np.dtype(np.int64)
    n_rows, n_features = shape
    return (
        buffer(data),
        buffer(indices, dtype=index_dtype),
        buffer(indptr, dtype=index_dtype),
        int(n_rows),
        int(n_features),
    )


def as_rust_matrix(X):
    """Return a C-contiguous dense array, or the CSR tuple the extension reads.

    ``X`` must already be validated (CSR or dense, float32/float64). Buffers that are
    already contiguous and aligned are passed through; nothing is copied in the
    common case.
    """
    if is_sparse(X):
        if X.format != "csr":
            raise TypeError(f"expected a CSR matrix, got format {X.format!r}")
        return csr_parts(X.data, X.indices, X.indptr, X.shape)
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
