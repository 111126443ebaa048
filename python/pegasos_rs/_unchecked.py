"""The inputs of ``fit(..., check_input=False)``: taken as they are, in ``O(1)``.

A default fit reads its whole input once before the first step (structure,
finiteness, labels), which at 10^7 rows costs more than the steps themselves.
With ``check_input=False`` nothing here reads the data: the arrays must already be
in the layout the solver reads, and the solver checks each row (bounds, column
indices, values, class code) each time a step draws it. Rows the steps never draw
are never looked at. Only ``class_weight="balanced"`` reads the class codes as a
whole, since it needs their counts: :func:`unchecked_counts` checks every code in
that same pass.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from pegasos_rs import _core
from pegasos_rs._validation import check_classes

_FORMAT = (
    "check_input=False takes X as a CSR matrix (scipy.sparse csr_matrix or "
    "csr_array) of float32 or float64 values whose indices and indptr are both "
    "int32 or both int64, or as a C-contiguous float32 or float64 numpy array; "
    "got {}. Convert it, or pass check_input=True"
)


def unchecked_matrix(X):
    """``X`` as the extension reads it (see ``as_rust_matrix``), without reading its
    values: ``TypeError`` unless it is already in that layout."""
    if sp.issparse(X):
        if X.format != "csr":
            raise TypeError(_FORMAT.format(f"a sparse matrix in {X.format!r} format"))
        ok = (
            X.data.dtype in (np.float32, np.float64)
            and X.indices.dtype == X.indptr.dtype
            and X.indices.dtype in (np.int32, np.int64)
            and all(a.ndim == 1 and a.flags.c_contiguous for a in (X.data, X.indices))
            and X.indptr.flags.c_contiguous
        )
        if not ok:
            raise TypeError(
                _FORMAT.format(
                    f"a {X.format} matrix of {X.dtype} with {X.indices.dtype} indices "
                    f"and {X.indptr.dtype} indptr"
                )
            )
        n_rows, n_features = X.shape
        return (X.data, X.indices, X.indptr, int(n_rows), int(n_features)), X.shape
    if (
        X.__class__ is np.ndarray
        and X.ndim == 2
        and X.dtype in (np.float32, np.float64)
        and X.flags.c_contiguous
        and X.flags.aligned
    ):
        return X, X.shape
    what = (
        f"a {X.ndim}-d {X.dtype} array (C-contiguous: {X.flags.c_contiguous})"
        if isinstance(X, np.ndarray)
        else f"a {type(X).__module__}.{type(X).__qualname__}"
    )
    raise TypeError(_FORMAT.format(what))


def unchecked_codes(estimator_name: str, y, classes, n_rows: int):
    """``(classes, codes)`` from labels given as class codes: ``y[i]`` is the index of
    example ``i``'s class in ``classes`` (sorted, without repeats). int32 and uint32
    codes are read in place (a negative int32 reads as out of range); other integer
    dtypes are converted once, after a range check."""
    classes = np.asarray(classes)
    if classes.ndim != 1:
        raise ValueError(f"classes must be 1-d, got shape {classes.shape}")
    if classes.size > 1 and not (classes[1:] > classes[:-1]).all():
        raise ValueError(
            "with check_input=False, classes must be sorted and without repeats "
            "(y holds indices into it)"
        )
    classes = check_classes(estimator_name, classes, None)
    if not isinstance(y, np.ndarray) or y.ndim != 1 or y.dtype.kind not in "iu":
        raise TypeError(
            "with check_input=False and classes, y must be a 1-d numpy array of integer "
            "class codes (indices into classes); got "
            + (f"a {y.ndim}-d {y.dtype} array" if isinstance(y, np.ndarray) else repr(type(y)))
        )
    if y.shape[0] != n_rows:
        raise ValueError(f"X has {n_rows} rows but y has {y.shape[0]} labels")
    if y.dtype == np.uint32:
        return classes, np.ascontiguousarray(y)
    if y.dtype == np.int32:
        return classes, np.ascontiguousarray(y).view(np.uint32)
    low, high = (int(y.min()), int(y.max())) if y.size else (0, 0)
    if low < 0 or high >= classes.size:
        bad = low if low < 0 else high
        raise ValueError(f"class code {bad} is out of range for {classes.size} classes")
    return classes, y.astype(np.uint32)


def unchecked_counts(classes, codes):
    """The examples of each class for ``class_weight="balanced"``, counted from the
    ``uint32`` ``codes`` in one pass that checks each of them (the pass the counts
    need anyway, not one more): a code not below ``classes.size`` raises
    ``ValueError`` naming it (a negative ``int32`` code as the caller wrote it) and
    its example, and so does a class no code names (its weight would be
    ``n_samples / 0``), naming the class and its code."""
    counts = _core.class_counts(codes, classes.size)
    absent = np.flatnonzero(counts == 0)
    if absent.size:
        first = absent[:5]
        named = ", ".join(
            f"{label!r} (code {c})"
            for label, c in zip(classes[first].tolist(), first.tolist(), strict=True)
        )
        more = f" and {absent.size - 5} more" if absent.size > 5 else ""
        which = "class" if absent.size == 1 else "classes"
        raise ValueError(
            f"class_weight='balanced' weighs each class by n_samples / (n_classes * "
            f"its examples), but y has no example of {which} {named}{more}: the "
            "weight would be n_samples / 0. Leave such classes out of classes (and "
            "renumber the codes), or pass class_weight as a dict"
        )
    return counts


def check_width(estimator, n_features: int, resume: bool) -> None:
    """``ValueError`` when a fit continuing ``estimator`` gets another number of
    columns than it was fitted with (``check_input=False`` reads no column names)."""
    if resume and n_features != estimator.n_features_in_:
        raise ValueError(
            f"X has {n_features} features, but {type(estimator).__name__} is expecting "
            f"{estimator.n_features_in_} features as input"
        )


def record_width(estimator, n_features: int, resume: bool) -> None:
    """After a fresh unchecked fit: the number of columns, and no column names (the
    unchecked input has none)."""
    if not resume:
        estimator.n_features_in_ = n_features
        if hasattr(estimator, "feature_names_in_"):
            del estimator.feature_names_in_
