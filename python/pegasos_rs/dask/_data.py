"""The client's view of training data that lives on a cluster.

:func:`distribute` turns ``(X, y, sample_weight)`` (dask arrays or dataframes,
arrays made by :func:`pegasos_rs.dask.read_svmlight`, or in-memory arrays) into one
block per row partition on the workers (see :mod:`pegasos_rs.dask._blocks`) and
gathers their summaries: row counts, classes and their counts per block (none for
a regression's real targets), storage. The client keeps O(blocks x classes)
numbers and the futures, never the rows.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from itertools import pairwise
from typing import TYPE_CHECKING

import dask
import dask.array as da
import numpy as np
import scipy.sparse as sp

from pegasos_rs.dask import _blocks, _kept
from pegasos_rs.dask._cluster import scatter
from pegasos_rs.dask._interrupt import CtrlC
from pegasos_rs.dask._svmlight import svmlight_source

if TYPE_CHECKING:
    import distributed


@dataclass
class TrainingData:
    """Blocks on the workers and what the client knows of them."""

    client: distributed.Client
    blocks: list
    names: list
    offsets: np.ndarray  #: first global row of each block, then the total
    n_features: int
    sparse: bool
    dtype: str
    #: The classes (None: real targets, a regression).
    classes: np.ndarray | None
    counts: np.ndarray  #: examples of each class (columns) in each block (rows)
    weighted: bool
    row_bytes: float  #: about how many bytes a fetched row takes
    feature_names: np.ndarray | None = None
    #: Whether every value was checked before training (``fit``'s ``check_input``).
    checked: bool = True
    ctrl_c: CtrlC = field(default_factory=CtrlC)  #: the fit's Ctrl-C flag
    #: Whether the blocks are svmlight files' (the workers' block cache serves them).
    files: bool = False

    @property
    def n_rows(self) -> int:
        return int(self.offsets[-1])

    @property
    def n_problems(self) -> int:
        """Problems the solver trains: one per class (one for two classes, or for a
        regression)."""
        if self.classes is None or self.classes.size == 2:
            return 1
        return int(self.classes.size)

    def release(self) -> None:
        """Let the workers drop the blocks (what their block cache keeps stays),
        and warn of the errors their block cache met, if any."""
        blocks, self.blocks = self.blocks, []
        if blocks:
            self.client.cancel(blocks, force=True)
            if self.files:
                _kept.warn_news(self.client)


def _is_dataframe(obj) -> bool:
    """Whether ``obj`` is a dask dataframe or series. Imports nothing: a dask
    dataframe cannot exist unless ``dask.dataframe`` (which needs pandas and
    pyarrow, not part of the ``[dask]`` extra) was imported, so arrays train
    without it."""
    dd = sys.modules.get("dask.dataframe")
    if dd is None or not dask.is_dask_collection(obj):
        return False
    return isinstance(obj, (dd.DataFrame, dd.Series))


def _x_parts(X, client):
    """Row partitions of ``X`` (delayed, or one scattered future for an in-memory
    matrix) and their row counts (``None`` when unknown)."""
    if not dask.is_dask_collection(X):
        if not sp.issparse(X) and not hasattr(X, "shape"):
            X = np.asarray(X)
        if len(X.shape) != 2:
            raise ValueError(f"expected a 2-D X, got shape {X.shape}")
        return scatter(client, [X]), [int(X.shape[0])]
    if isinstance(X, da.Array):
        if X.ndim != 2:
            raise ValueError(f"X must be 2-D, got a dask array of shape {X.shape}")
        if X.numblocks[1] != 1:
            X = X.rechunk({1: -1})
        rows = None if np.isnan(X.shape[0]) else [int(c) for c in X.chunks[0]]
        return list(X.to_delayed().ravel()), rows
    if _is_dataframe(X):
        return list(X.to_delayed()), None
    raise TypeError(f"expected a dask array or dataframe, got {type(X).__name__}")


def _aligned(v, rows, n_parts: int, what: str, client):
    """``v`` (y or sample_weight) cut into the row partitions of X: delayed parts,
    scattered slices, or ``None`` per part when ``v`` is None. Returns ``None``
    when ``v`` is an in-memory array and X's row counts are not known yet."""
    if v is None:
        return [None] * n_parts
    if isinstance(v, da.Array):
        if v.ndim == 2 and v.shape[1] == 1:
            v = v[:, 0]
        if v.ndim != 1:
            raise ValueError(f"{what} must be 1-D, got a dask array of shape {v.shape}")
        if v.numblocks[0] == n_parts and (rows is None or np.isnan(v.shape[0])):
            return list(v.to_delayed().ravel())
        if rows is not None and not np.isnan(v.shape[0]):
            if v.shape[0] != sum(rows):
                raise ValueError(f"X has {sum(rows)} rows but {what} has {v.shape[0]}")
            return list(v.rechunk((tuple(rows),)).to_delayed().ravel())
        raise ValueError(
            f"X has unknown chunk sizes and {what} has {v.numblocks[0]} blocks, not "
            f"{n_parts}: pass {what} with the same row blocks as X, or call "
            "X.compute_chunk_sizes() first"
        )
    if _is_dataframe(v):
        if v.npartitions == n_parts:
            return list(v.to_delayed())
        return _aligned(v.to_dask_array(lengths=True), rows, n_parts, what, client)
    if dask.is_dask_collection(v):
        raise TypeError(f"{what}: unsupported dask collection {type(v).__name__}")
    v = np.asarray(v)
    if rows is None:
        return None
    if v.shape[0] != sum(rows):
        raise ValueError(f"X has {sum(rows)} rows but {what} has {v.shape[0]}")
    cuts = np.cumsum([0, *rows])
    return scatter(client, [v[a:b] for a, b in pairwise(cuts)])


def _feature_names(X):
    from sklearn.utils.validation import _get_feature_names

    return _get_feature_names(X._meta if _is_dataframe(X) else X)


def check_feature_names(est, X) -> None:
    """scikit-learn's check of ``X``'s column names against those ``est`` was fitted
    with (a dask dataframe's are those of its meta): ``ValueError`` when they differ,
    a warning when only one of the two has names."""
    from sklearn.utils.validation import _check_feature_names

    _check_feature_names(est, X._meta if _is_dataframe(X) else X, reset=False)


def distribute(
    client,
    X,
    y,
    sample_weight,
    *,
    check: bool,
    ctrl_c: CtrlC,
    regression: bool = False,
    one_class: bool = False,
) -> TrainingData:
    """Put ``(X, y, sample_weight)`` on the cluster, one block per row partition
    (see the module doc). ``check``: check every value as the in-memory estimator
    does (else only the rows training reads are checked, when it reads them; a
    regression's targets are always checked). ``regression``: ``y`` holds real
    targets, not classes. ``one_class``: ``y`` is not read (None, or ignored), every
    row is of class 1 of the classes ``[0, 1]``, the one-class SVM's two-class view.
    Waits stop at Ctrl-C (``ctrl_c``)."""
    if one_class:
        y = None
    elif y is None:
        raise ValueError("y is required")
    source = svmlight_source(X, y)
    if source is not None:
        specs, from_files = source
        rows = None if np.isnan(X.shape[0]) else [int(c) for c in X.chunks[0]]
        n_parts = len(specs)
        ys = [None] * n_parts if from_files else _aligned(y, rows, n_parts, "y", client)
        sws = _aligned(sample_weight, rows, n_parts, "sample_weight", client)
        # A block goes to the worker that keeps it from an earlier fit, if any.
        holders = _kept.prepare(client)
        make = []
        for i, s in enumerate(specs):
            where = holders.get(_kept.ident(s, s.n_features))
            place = {} if where is None else {"workers": [where], "allow_other_workers": True}
            with dask.annotate(**place):
                make.append(
                    dask.delayed(_blocks.svmlight_block, pure=False)(
                        s,
                        s.n_features,
                        check,
                        None if ys is None else ys[i],
                        None if sws is None else sws[i],
                    )
                )
    else:
        parts, rows = _x_parts(X, client)
        n_parts = len(parts)
        ys = _aligned(y, rows, n_parts, "y", client)
        sws = _aligned(sample_weight, rows, n_parts, "sample_weight", client)
        make = [
            dask.delayed(_blocks.memory_block, pure=False)(
                p,
                None if ys is None else ys[i],
                None if sws is None else sws[i],
                f"block {i}",
            )
            for i, p in enumerate(parts)
        ]
    blocks = client.compute(make)
    try:
        if one_class:
            blocks = [client.submit(_blocks.all_positive, b, pure=False) for b in blocks]
        if ys is None or sws is None:
            blocks = _attach_late(client, blocks, y, sample_weight, ctrl_c)
        summaries = ctrl_c.gather(
            client,
            client.map(
                _blocks.summarize,
                blocks,
                [check] * len(blocks),
                [regression] * len(blocks),
                pure=False,
            ),
        )
    except BaseException:
        client.cancel(blocks, force=True)
        raise
    data = _merge(client, blocks, summaries, _feature_names(X), regression)
    if one_class:
        # Every row is class 1 of two: the binary problem the one-class SVM trains.
        data.classes = np.array([0.0, 1.0])
        data.counts = np.column_stack([np.zeros_like(data.counts[:, -1]), data.counts[:, -1]])
    data.ctrl_c = ctrl_c
    data.checked = check
    data.files = source is not None
    return data


def _attach_late(client, blocks, y, sample_weight, ctrl_c):
    """Cut in-memory ``y`` / ``sample_weight`` by the blocks' row counts (known
    only now) and attach them."""
    rows = ctrl_c.gather(client, client.map(_blocks._rows_of, blocks, pure=False))
    cuts = np.cumsum([0, *rows])

    def pieces(v):
        if v is None:
            return [None] * len(rows)
        v = np.asarray(v)
        if v.shape[0] != cuts[-1]:
            raise ValueError(f"X has {cuts[-1]} rows but y or sample_weight has {v.shape[0]}")
        return scatter(client, [v[a:b] for a, b in pairwise(cuts)])

    ys, sws = pieces(y), pieces(sample_weight)
    return [
        client.submit(_blocks.with_labels, b, yy, ww, pure=False)
        for b, yy, ww in zip(blocks, ys, sws, strict=True)
    ]


def _merge(client, blocks, summaries, feature_names, regression: bool) -> TrainingData:
    names = [s["name"] for s in summaries]
    widths = {s["n_features"] for s in summaries}
    if len(widths) > 1:
        first = summaries[0]["n_features"]
        bad = next(s for s in summaries if s["n_features"] != first)
        raise ValueError(
            f"the partitions disagree on the number of features: {names[0]} has {first}, "
            f"{bad['name']} has {bad['n_features']}"
        )
    sparse = {s["sparse"] for s in summaries}
    if len(sparse) > 1:
        raise TypeError("the partitions mix sparse and dense matrices")
    rows = np.array([s["n_rows"] for s in summaries], dtype=np.int64)
    n = int(rows.sum())
    if n == 0:
        raise ValueError(
            f"Found array with 0 sample(s) (shape=(0, {widths.pop()})) while a minimum of 1 "
            "is required."
        )
    classes: np.ndarray | None = None
    counts = np.zeros((len(summaries), 0), dtype=np.int64)
    if not regression:
        present = [s["classes"] for s in summaries if s["n_rows"]]
        classes = np.unique(np.concatenate(present))
        counts = np.zeros((len(summaries), classes.size), dtype=np.int64)
        for i, s in enumerate(summaries):
            if s["n_rows"]:
                counts[i, np.searchsorted(classes, s["classes"])] = s["counts"]
    dtype = np.result_type(*[np.dtype(s["dtype"]) for s in summaries]).name
    d = int(widths.pop())
    itemsize = np.dtype(dtype).itemsize
    if not sparse.pop():
        row_bytes, is_sparse = float(d * itemsize), False
    else:
        stored = [s["stored"] for s in summaries if s["stored"] is not None]
        text = [s["bytes"] for s in summaries if s["bytes"] is not None]
        per_row = (
            (sum(stored) / max(1, sum(rows[[s["stored"] is not None for s in summaries]])))
            if stored
            else 0.0
        )
        if text:
            # About 12 characters per "index:value" in a text file.
            per_row = max(per_row, sum(text) / max(1, n) / 12)
        row_bytes, is_sparse = float(per_row * (itemsize + 8) + 16), True
    return TrainingData(
        client=client,
        blocks=blocks,
        names=names,
        offsets=np.concatenate([[0], np.cumsum(rows)]).astype(np.int64),
        n_features=d,
        sparse=is_sparse,
        dtype=dtype,
        classes=classes,
        counts=counts,
        weighted=any(s["weighted"] for s in summaries),
        row_bytes=row_bytes,
        feature_names=feature_names,
    )
