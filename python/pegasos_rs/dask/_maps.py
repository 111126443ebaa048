"""The explicit feature maps on dask collections: fitted from a few numbers of the
data (its shape, its variance for ``gamma="scale"``, the landmark rows), applied
block by block on the workers, lazily. ``map + PegasosClassifier`` then scales
as linear Pegasos does."""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any

import dask
import numpy as np
import scipy.sparse as sp
from sklearn.utils import check_array
from sklearn.utils.validation import check_is_fitted

from pegasos_rs import _core
from pegasos_rs import kernel_approximation as _maps
from pegasos_rs._base import unchanged_on_error
from pegasos_rs._validation import as_rust_matrix, seed_from
from pegasos_rs.dask._blocks import _PARTITION_CHECKS
from pegasos_rs.dask._predict import _rows

if TYPE_CHECKING:
    from typing_extensions import Self

    from pegasos_rs._typing import MatrixLike


def _moments(block):
    """``(entries, mean, m2)`` of a block, zeros included (the Rust core's
    ``moments``: float64, a fixed order)."""
    X = check_array(block, **_PARTITION_CHECKS)
    return _core.moments(as_rust_matrix(X), 1)


def _take_rows(rows, idx):
    """``rows[idx]`` of a dask array of one column block, computed: each block's rows
    taken on its worker, then stacked in the order of ``idx``. (dask's own fancy
    indexing concatenates the taken pieces with numpy, which fails on scipy sparse
    blocks in the dask versions this package supports, 2024.8 among them.)"""
    bounds = np.concatenate([[0], np.cumsum(rows.chunks[0])])
    block_of = np.searchsorted(bounds, idx, side="right") - 1
    blocks = rows.to_delayed().ravel()
    pieces, positions = [], []
    for b in np.unique(block_of):
        at = np.flatnonzero(block_of == b)
        pieces.append(dask.delayed(_pick)(blocks[b], idx[at] - bounds[b]))
        positions.append(at)
    taken = dask.compute(*pieces)
    stacked = sp.vstack(taken, format="csr") if sp.issparse(taken[0]) else np.vstack(taken)
    order = np.empty(idx.size, dtype=np.intp)
    order[np.concatenate(positions)] = np.arange(idx.size)
    return stacked[order]


def _pick(block, local):
    """Rows ``local`` of a block (a numpy array or a scipy sparse matrix)."""
    return block[local]


def _min_value(block):
    X = check_array(block, **_PARTITION_CHECKS)
    data = X.data if sp.issparse(X) else X.ravel()
    return float(data.min()) if data.size else 0.0


def _gamma(kernel: str, gamma, rows) -> float:
    """``resolve_gamma`` on a dask array (see :func:`gamma_of`)."""
    return gamma_of(
        kernel,
        gamma,
        int(rows.shape[1]),
        lambda: dask.compute(*[dask.delayed(_moments)(b) for b in rows.to_delayed().ravel()]),
    )


def gamma_of(kernel: str, gamma, d: int, block_moments) -> float:
    """``resolve_gamma`` for data of ``d`` features held in blocks: for
    ``"scale"``, the blocks' moments (``block_moments()``, in block order) are
    combined pairwise (the same bits on every platform for a given chunking; the
    in-memory value up to rounding)."""
    if kernel in ("linear", "intersection", "precomputed"):
        return 1.0
    if gamma == "auto":
        return 1.0 / d
    if gamma != "scale":
        return float(gamma)
    var = _core.variance_of(list(block_moments()))
    return 1.0 / (d * var) if var != 0 else 1.0


def _set_input(est, X, rows) -> None:
    est.n_features_in_ = int(rows.shape[1])
    if hasattr(X, "columns"):
        from sklearn.utils.validation import _get_feature_names

        names = _get_feature_names(X._meta)
        if names is not None:
            est.feature_names_in_ = names


def _transform_block(block, transformer):
    return transformer.transform(check_array(block, **_PARTITION_CHECKS))


class _DaskMap:
    """``fit`` and ``transform`` on dask collections for a transformer of
    :mod:`pegasos_rs.kernel_approximation`; in-memory inputs go to the parent."""

    if TYPE_CHECKING:  # what the transformers it is mixed into define
        n_features_in_: int
        _n_features_out: int

        def _validate_params(self) -> None: ...

    @unchanged_on_error
    def fit(self, X: MatrixLike, y: object = None) -> Self:
        # No docstring: the documentation shows the in-memory transformer's (the
        # class docs say what changes on dask collections).
        if not dask.is_dask_collection(X):
            # The transformer this is mixed into (mypy sees no base class here).
            return super().fit(X, y)  # type: ignore[misc]
        self._validate_params()
        return self._fit_dask(X)

    def _fit_dask(self, X: Any) -> Self:
        """``fit`` on the dask collection ``X``, parameters validated."""
        raise NotImplementedError

    def transform(self, X: MatrixLike) -> Any:
        """The features of ``X``: a dask array with X's row chunks, computed block by
        block on the workers, when ``X`` is a dask collection."""
        if not dask.is_dask_collection(X):
            # The transformer this is mixed into (mypy sees no base class here).
            return super().transform(X)  # type: ignore[misc]
        check_is_fitted(self)
        rows = _rows(X)
        if rows.shape[1] != self.n_features_in_:
            raise ValueError(
                f"X has {rows.shape[1]} features, but {type(self).__name__} is expecting "
                f"{self.n_features_in_} features as input."
            )
        local = copy.copy(self)
        if hasattr(local, "feature_names_in_"):
            del local.feature_names_in_  # the blocks are arrays, checked here
        width = int(self._n_features_out)
        sparse_out = isinstance(self, _maps.AdditiveKernelMap) and sp.issparse(rows._meta)
        meta = (
            sp.csr_matrix((0, width), dtype=rows.dtype)
            if sparse_out
            else np.empty((0, 0), rows.dtype)
        )
        return rows.map_blocks(
            _transform_block,
            dask.delayed(local, pure=True),
            chunks=(rows.chunks[0], (width,)),
            dtype=rows.dtype,
            meta=meta,
        )


class RandomFourierFeatures(_DaskMap, _maps.RandomFourierFeatures):
    __doc__ = (
        (_maps.RandomFourierFeatures.__doc__ or "")
        + """
    On dask collections (``pegasos_rs.dask``): ``fit`` reads only the shape (and,
    for ``gamma="scale"``, the variance: each block's moments, combined in block
    order); ``transform`` maps block by block on the workers. The weights are those of the in-memory
    transformer with the same seed and gamma.
    """
    )

    def _fit_dask(self, X: Any) -> Self:
        rows = _rows(X)
        _set_input(self, X, rows)
        return self._draw(int(rows.shape[1]), _gamma("rbf", self.gamma, rows))


class Nystroem(_DaskMap, _maps.Nystroem):
    __doc__ = (
        (_maps.Nystroem.__doc__ or "")
        + """
    On dask collections (``pegasos_rs.dask``): ``fit`` draws the landmark rows
    uniformly (``landmarks="uniform"``; k-means++ and precomputed kernels need the
    data in memory), fetches those rows only and factors their kernel on the
    client, as the in-memory transformer does with the same seed; ``transform``
    maps block by block on the workers.
    """
    )

    def _fit_dask(self, X: Any) -> Self:
        if self.kernel == "precomputed" or self.landmarks != "uniform":
            raise ValueError(
                "on a dask collection, Nystroem needs landmarks='uniform' and a kernel "
                "other than 'precomputed' (the others read all rows in memory)"
            )
        rows = _rows(X)
        if np.isnan(rows.shape[0]):
            rows = rows.compute_chunk_sizes()
        n, d = int(rows.shape[0]), int(rows.shape[1])
        _set_input(self, X, rows)
        m = self._n_landmarks(n)
        if self.gamma is None:
            self.gamma_ = 1.0 if self.kernel == "chi2" else 1.0 / d
        else:
            self.gamma_ = _gamma(self.kernel, self.gamma, rows)
        seed = seed_from(self.random_state)
        from pegasos_rs import _core

        idx = _core.nystroem_uniform_landmarks(n, m, seed)
        landmarks = check_array(_take_rows(rows, idx), **_PARTITION_CHECKS)
        return self._factor(None, landmarks, idx, "all", m, seed)


class AdditiveKernelMap(_DaskMap, _maps.AdditiveKernelMap):
    __doc__ = (
        (_maps.AdditiveKernelMap.__doc__ or "")
        + """
    On dask collections (``pegasos_rs.dask``): ``fit`` checks that no value is
    negative, block by block; ``transform`` maps block by block on the workers
    (CSR blocks for CSR input).
    """
    )

    def _fit_dask(self, X: Any) -> Self:
        rows = _rows(X)
        lows = dask.compute(*[dask.delayed(_min_value)(b) for b in rows.to_delayed().ravel()])
        if lows and min(lows) < 0:
            raise ValueError(f"Negative values in data passed to {type(self).__name__} (input X)")
        _set_input(self, X, rows)
        return self._sample(int(rows.shape[1]))
