"""Prediction on dask collections: block by block on the workers, lazily."""

from __future__ import annotations

import dask
import dask.array as da
import numpy as np
from sklearn.utils import check_array

from pegasos_rs import _core
from pegasos_rs._validation import as_rust_matrix, buffer
from pegasos_rs.dask._blocks import _PARTITION_CHECKS
from pegasos_rs.dask._data import check_feature_names


def _rows(X):
    """A dask array of the rows of ``X`` (a dataframe's values), one column block."""
    if isinstance(X, da.Array):
        if X.ndim != 2:
            raise ValueError(f"expected a 2-D X, got a dask array of shape {X.shape}")
        return X if X.numblocks[1] == 1 else X.rechunk({1: -1})
    if hasattr(X, "to_dask_array"):
        return X.to_dask_array()  # rows per partition unknown: nothing is computed
    raise TypeError(f"expected a dask array or dataframe, got {type(X).__name__}")


def _decision_block(block, model):
    coef, intercept = (buffer(a, np.float64) for a in model)
    X = check_array(block, **_PARTITION_CHECKS)
    if X.shape[1] != coef.shape[1]:
        raise ValueError(
            f"X has {X.shape[1]} features, but the model is expecting {coef.shape[1]} "
            "features as input."
        )
    scores = _core.decision_function(as_rust_matrix(X), coef, intercept, 1)
    return scores.ravel() if scores.shape[1] == 1 else scores


def checked_rows(est, X):
    """The rows of the dask collection ``X`` for the fitted ``est``: its column
    names and width checked (a width not known yet is checked block by block)."""
    check_feature_names(est, X)
    rows = _rows(X)
    if not np.isnan(rows.shape[1]) and rows.shape[1] != est.n_features_in_:
        raise ValueError(
            f"X has {rows.shape[1]} features, but {type(est).__name__} is expecting "
            f"{est.n_features_in_} features as input."
        )
    return rows


def map_rows(rows, func, *args, dtype, width: int | None):
    """``func(block, *args)`` on each row block of ``rows``, lazily: a dask array
    with the row chunks, 1-d when ``width`` is None, else ``width`` columns."""
    if width is None:
        return rows.map_blocks(func, *args, drop_axis=1, dtype=dtype, meta=np.empty(0, dtype))
    return rows.map_blocks(
        func,
        *args,
        chunks=(rows.chunks[0], (width,)),
        dtype=dtype,
        meta=np.empty((0, 0), dtype),
    )


def decision_function(est, X, intercept=None):
    """``est``'s decision values on ``X`` (a regressor's predictions; with
    ``intercept`` in place of ``est.intercept_``), a dask array with X's row
    chunks."""
    rows = checked_rows(est, X)
    coef = np.atleast_2d(est.coef_)  # a regressor's is 1-D
    b = est.intercept_ if intercept is None else intercept
    model = dask.delayed((coef, b), pure=True)
    k = coef.shape[0]
    return map_rows(rows, _decision_block, model, dtype=np.float64, width=None if k == 1 else k)


def _labels_block(scores, classes):
    if scores.ndim == 1:
        return classes[(scores > 0).astype(np.intp)]
    return classes[np.argmax(scores, axis=1)]


def predict(est, X):
    """``est``'s class labels on ``X``, a dask array with X's row chunks."""
    scores = decision_function(est, X)
    classes = est.classes_
    kwargs = {} if scores.ndim == 1 else {"drop_axis": 1}
    return scores.map_blocks(
        _labels_block, classes, dtype=classes.dtype, meta=np.empty(0, classes.dtype), **kwargs
    )


def _as_vector(v, like, what: str):
    """``v`` as a 1-D dask array with the row chunks of ``like``."""
    if v is None:
        return None
    if not dask.is_dask_collection(v):
        v = np.asarray(v)
        if np.isnan(like.shape[0]):
            like = like.compute_chunk_sizes()
        return da.from_array(v, chunks=(like.chunks[0],))
    if hasattr(v, "to_dask_array"):
        v = v.to_dask_array()
    if v.ndim == 2 and v.shape[1] == 1:
        v = v[:, 0]
    if v.numblocks[0] == like.numblocks[0] and (
        np.isnan(v.shape[0]) or np.isnan(like.shape[0]) or v.chunks == like.chunks[:1]
    ):
        return v
    if not (np.isnan(v.shape[0]) or np.isnan(like.shape[0])):
        return v.rechunk((like.chunks[0],))
    raise ValueError(f"{what} must have the row blocks of X (its chunk sizes are unknown)")


def accuracy(predicted, y, sample_weight=None):
    """The (weighted) fraction of ``predicted == y``, a lazy dask scalar."""
    y = _as_vector(y, predicted, "y")
    correct = da.map_blocks(
        lambda p, t: (p == t).astype(np.float64), predicted, y, dtype=np.float64
    )
    if sample_weight is None:
        return correct.mean()
    sw = _as_vector(sample_weight, predicted, "sample_weight").astype(np.float64)
    return (correct * sw).sum() / sw.sum()


def r2_parts(predicted, y, sample_weight=None):
    """The numerator and denominator of R^2 (scikit-learn's ``r2_score``): the
    (weighted) sums of squared residuals and of squared deviations from the
    (weighted) mean of ``y``, as lazy dask scalars."""
    y = _as_vector(y, predicted, "y").astype(np.float64)
    if sample_weight is None:
        residual = ((y - predicted) ** 2).sum()
        spread = ((y - y.mean()) ** 2).sum()
        return residual, spread
    sw = _as_vector(sample_weight, predicted, "sample_weight").astype(np.float64)
    mean = (sw * y).sum() / sw.sum()
    return (sw * (y - predicted) ** 2).sum(), (sw * (y - mean) ** 2).sum()


def r2_from(numerator: float, denominator: float) -> float:
    """R^2 from :func:`r2_parts`, with ``r2_score``'s values for constant targets
    (1 for a perfect fit, else 0)."""
    if denominator == 0.0:
        return 1.0 if numerator == 0.0 else 0.0
    return 1.0 - numerator / denominator
