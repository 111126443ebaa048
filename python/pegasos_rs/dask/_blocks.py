"""What a worker holds of one partition of the training data, and the tasks that
run where it lives.

A partition becomes a *block*: a :class:`MemoryBlock` (the rows computed by the
user's dask graph, kept in the worker's memory and spilled by dask when memory is
short) or a :class:`SvmlightBlock` (a byte range of an svmlight file, of which the
worker keeps only where each example starts and its label; the rows stay in the
file and are parsed when a step needs them, unless the worker keeps the block
parsed since an earlier use, :mod:`pegasos_rs.dask._kept`). Both answer the
same questions: how many rows, which labels, the rows with given local indices,
the whole matrix. The labels are classes, or a regression's real targets
(``classes`` None in the functions below).

Every function here runs on a worker and returns small results (summaries, the
sampled rows, partial sums), so the data itself never travels to the client.
"""

from __future__ import annotations

import bz2
import gzip
import lzma
import mmap
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np
import scipy.sparse as sp
from sklearn.utils import check_array
from sklearn.utils.multiclass import check_classification_targets

from pegasos_rs import _core
from pegasos_rs._validation import INPUT_CHECKS, as_rust_matrix, buffer
from pegasos_rs.dask import _kept
from pegasos_rs.exceptions import DataFormatError

#: How a partition is shaped for the extension: the in-memory estimator's rules
#: (CSR or C-ordered dense, float32/float64 kept, other types to float64; values
#: checked by the extension), but a partition may be empty.
_PARTITION_CHECKS = {**INPUT_CHECKS, "ensure_min_samples": 0}

#: Compressed files cannot be read from an offset: their blocks are whole files,
#: parsed once and kept in memory.
OPENERS: dict[str, Callable[..., Any]] = {
    ".gz": gzip.open,
    ".bz2": bz2.open,
    ".xz": lzma.open,
    ".lzma": lzma.open,
}


@dataclass(frozen=True)
class SvmlightSpec:
    """A block of an svmlight file: the lines of ``path`` that start at a byte in
    ``[offset, offset + length)`` (to the end of the file when ``length`` is -1),
    with the file's reading options. Blocks at consecutive ranges split the file's
    lines without gap or overlap."""

    path: str
    offset: int
    length: int
    n_features: int | None
    one_based: bool
    dtype: str

    @property
    def name(self) -> str:
        if self.length < 0 and self.offset == 0:
            return self.path
        end = "end" if self.length < 0 else self.offset + self.length
        return f"{self.path} (bytes {self.offset}-{end})"

    @property
    def compressed(self) -> bool:
        return os.path.splitext(self.path)[1].lower() in OPENERS


def _line_start(mm, pos: int) -> int:
    """The first line start at or after ``pos`` in the mapped file ``mm``."""
    if pos <= 0:
        return 0
    if pos >= len(mm):
        return len(mm)
    if mm[pos - 1 : pos] == b"\n":
        return pos
    nl = mm.find(b"\n", pos)
    return len(mm) if nl < 0 else nl + 1


def on_range(spec: SvmlightSpec, fn):
    """``fn(text, offset)`` with the block's text (its whole lines) as a read-only
    ``uint8`` array over the memory-mapped file (no copy) and its offset in the
    file. Not for compressed files.

    The map is not closed explicitly: it is unmapped when the last array over it
    goes away (a worker's profiler may hold a frame, and with it the array, a
    little longer than ``fn`` runs)."""
    with open(spec.path, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        if size == 0:
            return fn(np.zeros(0, np.uint8), 0)
        mm = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    start = _line_start(mm, spec.offset)
    end = size if spec.length < 0 else _line_start(mm, spec.offset + spec.length)
    return fn(np.frombuffer(mm, dtype=np.uint8)[start : max(start, end)], start)


def read_range(spec: SvmlightSpec) -> tuple[bytes, int]:
    """The block's text (its whole lines) and its offset in the file."""
    if spec.compressed:
        with OPENERS[os.path.splitext(spec.path)[1].lower()](spec.path, "rb") as f:
            return f.read(), 0
    return on_range(spec, lambda text, start: (text.tobytes(), start))


def in_file(error: DataFormatError, spec: SvmlightSpec, start: int | None) -> DataFormatError:
    """``error``, raised on the text of ``spec`` that starts at byte ``start`` of its
    file, with the file's name and the line counted from the start of the file (the
    block's name and its own line when ``start`` is unknown or the file compressed)."""
    if start is None or spec.compressed:
        return error.with_file(spec.name)
    with open(spec.path, "rb") as f:
        before = f.read(start).count(b"\n")  # on the error path only
    line = None if error.line is None else error.line + before
    return DataFormatError(error.reason, spec.path, line, error.column)


def parse(text: bytes, spec: SvmlightSpec, n_features: int, start: int | None = None):
    """Parse svmlight text into ``(CSR matrix, labels)`` with the block's options;
    errors are :class:`DataFormatError` naming the file and, when the text's offset
    ``start`` in the file is given, the line in the file."""
    try:
        data, indices, indptr, labels, _, _, max_index = _core.parse_svmlight(
            text, dtype=spec.dtype, one_based=spec.one_based, query_id=False, n_threads=1
        )
    except DataFormatError as e:
        raise in_file(e, spec, start) from None
    except ValueError as e:
        raise DataFormatError(str(e), spec.name) from None
    if spec.one_based:
        np.subtract(indices, 1, out=indices)
    top = -1 if max_index is None else max_index - int(spec.one_based)
    if top >= n_features:
        raise DataFormatError(
            f"feature index {top + int(spec.one_based)} is out of range for "
            f"n_features={n_features}",
            spec.name,
        )
    X = sp.csr_matrix((data, indices, indptr), shape=(indptr.size - 1, n_features))
    return X, labels


@dataclass
class Block:
    """Rows, labels and sample weights of one partition (see the module doc)."""

    name: str
    labels: np.ndarray
    sample_weight: np.ndarray | None

    @property
    def n_rows(self) -> int:
        return int(self.labels.shape[0])

    def rows(self, ids: np.ndarray):
        """The rows with local indices ``ids`` (sorted, unique), as a matrix."""
        raise NotImplementedError

    def matrix(self):
        """All rows, as a matrix."""
        raise NotImplementedError


@dataclass
class MemoryBlock(Block):
    """A partition held in the worker's memory."""

    X: Any = None

    def rows(self, ids):
        return self.X[ids]

    def matrix(self):
        return self.X


@dataclass
class SvmlightBlock(Block):
    """A range of an svmlight file: example offsets and labels; rows parsed on use."""

    # Always given: the default only lets the field follow the base's fields.
    spec: SvmlightSpec = None  # type: ignore[assignment]
    n_features: int = 0
    #: File offset of each example, and the end of the block's last one.
    starts: np.ndarray = field(default_factory=lambda: np.zeros(0, np.uint64))
    end: int = 0
    #: Whether ``labels`` are the file's (then each parsed row's label is checked).
    file_labels: bool = True
    #: The file's version when the block was indexed: the worker may keep the
    #: parsed block of that version (see :mod:`pegasos_rs.dask._kept`).
    version: tuple | None = None

    def _bounds(self, ids):
        ends = np.append(self.starts[1:], np.uint64(self.end))
        return self.starts[ids].astype(np.int64), ends[ids].astype(np.int64)

    def kept(self):
        """The parsed arrays this worker keeps of the block's version, or None."""
        return _kept.arrays(_kept.ident(self.spec, self.n_features), self.version)

    def rows(self, ids):
        kept = self.kept()
        if kept is not None:
            return _kept.take_rows(*kept, ids, self.n_features)
        _kept.count("row_parses")
        lo, hi = self._bounds(ids)
        # One read per run of consecutive examples.
        breaks = np.flatnonzero(lo[1:] != hi[:-1]) + 1
        pieces = []
        fd = os.open(self.spec.path, os.O_RDONLY)
        try:
            for a, b in zip(np.r_[0, breaks], np.r_[breaks, lo.size], strict=True):
                if a == b:
                    continue
                piece = os.pread(fd, int(hi[b - 1] - lo[a]), int(lo[a]))
                pieces.append(piece if piece.endswith(b"\n") else piece + b"\n")
        finally:
            os.close(fd)
        X, labels = parse(b"".join(pieces), self.spec, self.n_features)
        if X.shape[0] != len(ids) or (
            self.file_labels and not np.array_equal(labels, self.labels[ids])
        ):
            raise ValueError(
                f"{self.spec.name}: the file changed while training (its examples no "
                "longer match the index taken when training started)"
            )
        return X

    def matrix(self):
        """All rows: the parsed arrays this worker keeps, else parsed from the text
        and kept for the next use (a whole parse is a check)."""
        kept = self.kept()
        if kept is not None:
            return sp.csr_matrix(kept, shape=(kept[2].size - 1, self.n_features), copy=False)
        _kept.count("block_parses")
        text, start = read_range(self.spec)
        X, labels = parse(text, self.spec, self.n_features, start)
        if self.version is not None and _kept.version(self.spec) == self.version:
            key = _kept.ident(self.spec, self.n_features)
            _kept.keep(key, self.version, self.starts, labels, self.end, True, X)
        return X


def _labels(y, n_rows: int, name: str) -> np.ndarray:
    y = np.asarray(y)
    if y.ndim == 2 and y.shape[1] == 1:
        y = y.ravel()
    if y.ndim != 1:
        raise ValueError(f"{name}: y must be 1-D, got shape {y.shape}")
    if y.shape[0] != n_rows:
        raise ValueError(f"{name}: X has {n_rows} rows but y has {y.shape[0]}")
    return y


def _weights(sample_weight, n_rows: int, name: str):
    if sample_weight is None:
        return None
    sw = np.ascontiguousarray(sample_weight, dtype=np.float64)
    if sw.ndim != 1 or sw.shape[0] != n_rows:
        raise ValueError(f"{name}: sample_weight has shape {sw.shape}, expected ({n_rows},)")
    return sw


def memory_block(X, y, sample_weight, name: str) -> MemoryBlock:
    """A partition computed by dask, shaped as the in-memory estimator shapes X."""
    try:
        X = check_array(X, **_PARTITION_CHECKS)
        if y is None:
            labels = np.zeros(0)
        else:
            labels = _labels(y, X.shape[0], name)
        sw = _weights(sample_weight, X.shape[0], name)
    except ValueError as e:
        raise ValueError(f"{name}: {e}" if not str(e).startswith(name) else str(e)) from None
    return MemoryBlock(name=name, labels=labels, sample_weight=sw, X=X)


def svmlight_block(spec: SvmlightSpec, n_features: int, check: bool, y, sample_weight):
    """Index a block of an svmlight file: where each example starts and its label.
    With ``check`` the whole block is also parsed, so any malformed value raises
    now. A compressed file is parsed once and kept in memory. ``y``, when given,
    replaces the file's labels.

    The worker keeps the index and the parsed block for later fits on the same
    version of the file, and reuses what it kept (:mod:`pegasos_rs.dask._kept`)."""
    key, current = _kept.ident(spec, n_features), _kept.version(spec)
    entry = _kept.lookup(key, current, check)
    #: The version the block's rows are read at (None: the file changed meanwhile).
    version: tuple | None = current
    if spec.compressed:
        kept = None if entry is None else _kept.arrays(key, current)
        if entry is not None and kept is not None:
            X = sp.csr_matrix(kept, shape=(kept[2].size - 1, n_features), copy=False)
            labels = entry.labels
        else:
            _kept.count("block_parses")
            text, start = read_range(spec)
            X, labels = parse(text, spec, n_features, start)
            if _kept.version(spec) == current:
                _kept.keep(key, current, None, labels, 0, True, X)
        labels = labels if y is None else _labels(y, X.shape[0], spec.name)
        return MemoryBlock(
            name=spec.name,
            labels=labels,
            sample_weight=_weights(sample_weight, X.shape[0], spec.name),
            X=X,
        )

    def index(text, base):
        X = None
        if check:
            _kept.count("block_parses")
            X, _ = parse(text.tobytes(), spec, n_features, base)
        _kept.count("indexes")
        try:
            starts, labels = _core.index_svmlight(text, base)
        except DataFormatError as e:
            raise in_file(e, spec, base) from None
        except ValueError as e:
            raise DataFormatError(str(e), spec.name) from None
        return starts, labels, base + text.size, X

    if entry is not None:
        # An uncompressed file's entry has its row starts (only a compressed one,
        # handled above, keeps None).
        starts = cast(np.ndarray, entry.starts)
        labels, end = entry.labels, entry.end
    else:
        starts, labels, end, X = on_range(spec, index)
        if _kept.version(spec) == current:  # not rewritten while read
            _kept.keep(key, current, starts, labels, end, check, X)
        else:
            version = None
    if y is not None:
        labels = _labels(y, labels.shape[0], spec.name)
    return SvmlightBlock(
        file_labels=y is None,
        name=spec.name,
        labels=labels,
        sample_weight=_weights(sample_weight, labels.shape[0], spec.name),
        spec=spec,
        n_features=n_features,
        starts=starts,
        end=end,
        version=version,
    )


def with_labels(block: MemoryBlock | SvmlightBlock, y, sample_weight) -> Block:
    """``block`` with labels (and sample weights) from separate arrays (``y`` None:
    its labels kept)."""
    from dataclasses import replace

    if y is None:
        return replace(
            block, sample_weight=_weights(sample_weight, block.labels.shape[0], block.name)
        )
    labels = _labels(y, _rows_of(block), block.name)
    extra: dict[str, Any] = {"file_labels": False} if isinstance(block, SvmlightBlock) else {}
    return replace(
        block,
        labels=labels,
        sample_weight=_weights(sample_weight, labels.shape[0], block.name),
        **extra,
    )


def all_positive(block: MemoryBlock | SvmlightBlock) -> Block:
    """The one-class SVM's view of ``block``: every row labelled 1 (labels it had,
    from ``y`` or its files, are not read), its sample weights kept."""
    return with_labels(block, np.ones(_rows_of(block)), block.sample_weight)


def one_class_sq_norm_chain(block: Block, dtype, acc):
    """The largest squared norm of the rows of positive weight so far: ``acc``'s
    one value and this block's (``pegasos_rs._core.one_class_sq_norm``)."""
    X = full_matrix(block, dtype)
    w = None if block.sample_weight is None else buffer(block.sample_weight, np.float64)
    return [max(acc[0], _core.one_class_sq_norm(as_rust_matrix(X), w))]


def one_class_scores(block: Block, dtype, coef):
    """The scores ``<w, x>`` of this block's rows of positive weight, with their
    weights, for the one-class SVM's exact offset (the in-memory solver scores the
    same rows, ``decision_function``'s bits)."""
    X = full_matrix(block, dtype)
    coef = buffer(coef, np.float64)
    scores = _core.decision_function(as_rust_matrix(X), coef, np.zeros(1), 1).ravel()
    sw = block.sample_weight
    weights = np.ones(scores.shape[0]) if sw is None else np.asarray(sw, dtype=np.float64)
    keep = (weights > 0) & np.isfinite(scores)
    return scores[keep], weights[keep]


def _rows_of(block: MemoryBlock | SvmlightBlock) -> int:
    if isinstance(block, MemoryBlock):
        return int(block.X.shape[0])
    return int(block.starts.shape[0])


def summarize(block: MemoryBlock | SvmlightBlock, check: bool, regression: bool = False) -> dict:
    """What the client needs to know of a block: its shape, storage, classes and
    their counts (none for a regression). With ``check``, values, labels and
    sample weights are checked as the in-memory estimator checks them; a
    regression's targets are always checked (numbers, finite), as the in-memory
    regressor checks them."""
    name = block.name
    try:
        if isinstance(block, MemoryBlock):
            X = block.X
            sparse, dtype = sp.issparse(X), X.dtype.name
            n_features, stored = int(X.shape[1]), int(X.nnz if sp.issparse(X) else X.size)
            if check:
                _core.check_matrix(as_rust_matrix(X))
        else:
            sparse, dtype = True, block.spec.dtype
            n_features, stored = block.n_features, None
        if regression:
            targets(block)
            classes, counts = np.zeros(0), np.zeros(0, dtype=np.int64)
        else:
            if block.n_rows:
                check_classification_targets(block.labels)
            classes, counts = np.unique(block.labels, return_counts=True)
        sw = block.sample_weight
        if sw is not None and check and not (np.all(np.isfinite(sw)) and np.all(sw >= 0)):
            raise ValueError("sample_weight must be finite and non-negative")
    except ValueError as e:
        raise ValueError(f"{name}: {e}") from None
    return {
        "name": name,
        "n_rows": block.n_rows,
        "n_features": n_features,
        "sparse": sparse,
        "dtype": dtype,
        "stored": stored,
        "bytes": _text_bytes(block),
        "classes": classes,
        "counts": counts.astype(np.int64),
        "weighted": sw is not None,
    }


def targets(block: Block, ids=None) -> np.ndarray:
    """A regression's targets (of the rows ``ids``, all when None) as ``float64``;
    ``ValueError`` for labels that are not numbers or not finite, as the in-memory
    regressor raises."""
    from pegasos_rs.linear_regressor import regression_targets

    y = block.labels if ids is None else block.labels[ids]
    y = buffer(regression_targets("PegasosRegressor", y), np.float64)
    if not np.all(np.isfinite(y)):
        i = int(np.flatnonzero(~np.isfinite(y))[0])
        raise ValueError(f"the target of row {i} is {y[i]}; regression targets must be finite")
    return y


def _text_bytes(block: Block) -> int | None:
    if isinstance(block, SvmlightBlock):
        return int(block.end - (block.starts[0] if block.starts.size else block.end))
    return None


def local_rows(block: Block, classes, request) -> np.ndarray:
    """Local row indices of the requested examples: ``request`` is ``(kind, key,
    code)`` arrays; kind 0 asks for local row ``key``, kind 1 (2) for the
    ``key``-th row of class code ``code`` (of any other class), rows in order."""
    kind, key, code = request
    ids = np.empty(key.shape[0], dtype=np.int64)
    plain = kind == 0
    ids[plain] = key[plain]
    if not plain.all():
        codes = np.searchsorted(classes, block.labels)
        for c in np.unique(code[~plain]):
            for k, members in ((1, codes == c), (2, codes != c)):
                sel = (kind == k) & (code == c)
                if sel.any():
                    ids[sel] = np.flatnonzero(members)[key[sel]]
    return ids


def take(block: Block, classes, request, dtype: str):
    """The requested examples (see :func:`local_rows`): ``(X, codes, sample
    weights, position)``, each distinct row once, ``position[j]`` the row holding
    request ``j``; a regression's targets in place of the class codes."""
    ids = local_rows(block, classes, request)
    unique, position = np.unique(ids, return_inverse=True)
    X = block.rows(unique)
    if X.dtype != dtype:
        X = X.astype(dtype)
    if classes is None:
        codes = targets(block, unique)
    else:
        codes = np.searchsorted(classes, block.labels[unique]).astype(np.uint32)
    sw = None if block.sample_weight is None else block.sample_weight[unique]
    return X, codes, sw, position.astype(np.int64)


def stack(parts, sparse: bool):
    """One ``(X, codes, sample_weight, position)`` from several of :func:`take`'s
    results, positions shifted to the stacked rows."""
    if len(parts) == 1:
        return parts[0]
    mats = [X for X, _, _, _ in parts]
    offsets = np.cumsum([0] + [X.shape[0] for X in mats[:-1]])
    X = sp.vstack(mats, format="csr") if sparse else np.concatenate(mats)
    codes = np.concatenate([c for _, c, _, _ in parts])
    weights = [w for _, _, w, _ in parts]
    sw = None if weights[0] is None else np.concatenate(weights)
    position = np.concatenate([p + o for (_, _, _, p), o in zip(parts, offsets, strict=True)])
    return X, codes, sw, position


def take_many(blocks, classes, requests, dtype: str):
    """:func:`take` on several blocks (those one worker holds), stacked."""
    parts = [take(b, classes, r, dtype) for b, r in zip(blocks, requests, strict=True)]
    return stack(parts, sp.issparse(parts[0][0]))


def _examples(block: Block, classes, class_weight):
    """The block's targets and labels dict as the extension reads them: class
    codes with the classes' weights, or (``classes`` None) a regression's real
    targets; the sample weights in both."""
    sw = block.sample_weight
    weights = None if sw is None else buffer(sw, np.float64)
    if classes is None:
        return targets(block), {"sample_weight": weights}
    codes = np.searchsorted(classes, block.labels).astype(np.uint32)
    return codes, {
        "n_classes": len(classes),
        "class_weight": buffer(class_weight, np.float64),
        "sample_weight": weights,
    }


def zero_loss_chain(block: Block, classes, class_weight, loss: dict, acc, joint=False):
    """Continue the per-problem sums of weighted losses at zero over this block's
    rows (``pegasos_core::StreamedFit::zero_loss_sums``: the sums of the weights
    for the hinge), which set the projection radius; with ``joint``, the
    Crammer-Singer problem's one sum of weights."""
    y, labels = _examples(block, classes, class_weight)
    return _core.zero_loss_sums(y, labels, acc, loss, joint)


def first_step_chain(block: Block, classes, class_weight, dtype, params: dict, acc):
    """Continue the per-problem sums a fresh run of a squared loss starts from
    (``pegasos_core::StreamedFit::first_step_sums``: the sum, sum of squares and
    largest of the weighted squared row norms, the largest weight) over this
    block's rows."""
    X = full_matrix(block, dtype)
    y, labels = _examples(block, classes, class_weight)
    if params.get("order") is not None:  # arrays from the network may be unaligned
        params = {**params, "order": buffer(params["order"], np.int64)}
    return _core.first_step_sums(as_rust_matrix(X), y, labels, params, acc)


def full_matrix(block: Block, dtype: str):
    """All rows of ``block`` in ``dtype``; an svmlight block's from what the worker
    keeps of it, else parsed and kept for later uses (:mod:`pegasos_rs.dask._kept`),
    so passes over data larger than the workers' memory cost a read of the spilled
    blocks, not a parse."""
    X = block.matrix()
    return X if X.dtype == dtype else X.astype(dtype)


def moments(block: Block, dtype: str):
    """``(entries, mean, m2)`` of all the entries of ``block`` (the Rust core's
    ``moments``: float64, zeros included, a fixed order), for ``gamma="scale"``."""
    return _core.moments(as_rust_matrix(full_matrix(block, dtype)), 1)


def loss_chain(block: Block, classes, class_weight, dtype, model, loss: dict, acc, joint=False):
    """Continue the per-problem sums of weighted losses of ``model`` over this
    block (the objective's); with ``joint``, the Crammer-Singer loss of the model's
    class rows."""
    coef, intercept = (buffer(a, np.float64) for a in model)
    X = full_matrix(block, dtype)
    y, labels = _examples(block, classes, class_weight)
    return _core.loss_sums(as_rust_matrix(X), y, labels, coef, intercept, acc, loss, joint)


def mix_round(block: Block, classes, class_weight, dtype, params: dict, start: dict, seed: int):
    """One parameter-mixing round on this block: a local pass of the solver from
    ``start``; returns its last iterates (and, with ``start["average"]``, the mean
    of its iterates) times the block's rows, to be summed."""
    X = full_matrix(block, dtype)
    y, labels = _examples(block, classes, class_weight)
    start = {
        "v": buffer(start["v"], np.float64),
        "bias": buffer(start["bias"], np.float64),
        "t": int(start["t"]),
        "zero_loss": buffer(start["zero_loss"], np.float64),
        "average": bool(start["average"]),
    }
    v, b, mean = _core.local_pass(as_rust_matrix(X), y, labels, params, start, seed, 1)
    n = block.n_rows
    if mean is None:
        return v * n, b * n
    return v * n, b * n, mean[0] * n, mean[1] * n


def add(a, b):
    """Elementwise sum of two tuples of arrays."""
    return tuple(x + y for x, y in zip(a, b, strict=True))
