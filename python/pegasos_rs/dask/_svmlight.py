"""svmlight / libsvm files as dask arrays, parsed on the workers."""

from __future__ import annotations

import collections
import glob
import os
import threading
from typing import TYPE_CHECKING, Literal

import dask
import dask.array as da
import numpy as np
import scipy.sparse as sp
from dask.utils import parse_bytes

from pegasos_rs.dask._blocks import SvmlightSpec, in_file, parse, read_range
from pegasos_rs.exceptions import DataFormatError

if TYPE_CHECKING:
    from collections.abc import Iterable

    from numpy.typing import DTypeLike

    from pegasos_rs._typing import Int, PathLike

#: ``X.name`` of arrays made by :func:`read_svmlight` -> their blocks, and ``y.name``
#: -> the same key, so that training can read the files' rows where they are
#: instead of computing the arrays. Bounded: only recent reads are remembered.
_SOURCES: collections.OrderedDict = collections.OrderedDict()
_LABELS: collections.OrderedDict = collections.OrderedDict()
_LOCK = threading.Lock()
_REMEMBER = 256


def _remember(table, key, value) -> None:
    with _LOCK:
        table[key] = value
        table.move_to_end(key)
        while len(table) > _REMEMBER:
            table.popitem(last=False)


def svmlight_source(X, y):
    """``(specs, labels_from_files)`` when ``X`` is an array made by
    :func:`read_svmlight` (``labels_from_files``: ``y`` is the same read's labels),
    else ``None``."""
    name = getattr(X, "name", None)
    with _LOCK:
        specs = _SOURCES.get(name)
        same = specs is not None and _LABELS.get(getattr(y, "name", None)) == name
    if specs is None:
        return None
    return specs, same


def _paths(paths_or_glob) -> list[str]:
    """The files named: a path, a glob, or a list of them (globs expanded, sorted)."""
    items = [paths_or_glob] if isinstance(paths_or_glob, (str, os.PathLike)) else paths_or_glob
    found = []
    for item in items:
        pattern = os.fspath(item)
        if glob.has_magic(pattern):
            matches = sorted(glob.glob(pattern))
            if not matches:
                raise FileNotFoundError(f"no file matches {pattern!r}")
            found += matches
        else:
            found.append(pattern)
    if not found:
        raise FileNotFoundError(f"no file matches {paths_or_glob!r}")
    for p in found:
        if not os.path.isfile(p):
            raise FileNotFoundError(f"no such file: {p!r}")
    return found


def _split(path: str, blocksize: int, n_features, one_based, dtype) -> list[SvmlightSpec]:
    size = os.path.getsize(path)
    spec = SvmlightSpec(path, 0, -1, n_features, one_based, dtype)
    if spec.compressed or size <= blocksize:
        return [spec]
    starts = range(0, size, blocksize)
    return [
        SvmlightSpec(
            path, o, blocksize if o + blocksize < size else -1, n_features, one_based, dtype
        )
        for o in starts
    ]


def _stats(spec: SvmlightSpec):
    """Rows, smallest and largest index of a block (a whole parse, kept nowhere)."""
    from pegasos_rs import _core

    text, start = read_range(spec)
    try:
        _, _, indptr, _, _, lo, hi = _core.parse_svmlight(
            text, dtype=spec.dtype, one_based=False, query_id=False, n_threads=1
        )
    except DataFormatError as e:
        raise in_file(e, spec, start) from None
    except ValueError as e:
        raise DataFormatError(str(e), spec.name) from None
    return indptr.size - 1, lo, hi


def _parse_block(spec: SvmlightSpec):
    text, start = read_range(spec)
    # Blocks are parsed with their n_features known (only probes have None).
    X, y = parse(text, spec, spec.n_features, start)  # type: ignore[arg-type]
    return X, y


def read_svmlight(
    paths_or_glob: PathLike | Iterable[PathLike],
    n_features: Int | None = None,
    *,
    dtype: DTypeLike = np.float64,
    zero_based: bool | Literal["auto"] = "auto",
    blocksize: str | Int = "64MiB",
) -> tuple[da.Array, da.Array]:
    """Read svmlight / libsvm files as ``(X, y)``: a dask array of CSR row blocks and
    a dask array of float64 labels, parsed on the workers by the Rust reader.

    Each file is split at ``blocksize`` bytes into blocks of whole lines (a line
    belongs to the block its first byte falls in); ``.gz``, ``.bz2`` and ``.xz``
    files cannot be split and are one block each. The values are those of
    :func:`pegasos_rs.load_svmlight_files` on the same files, bit for bit.

    ``n_features`` and ``zero_based`` work as in :func:`pegasos_rs.load_svmlight_file`.
    Unless both are given (``zero_based`` True or False), the blocks are parsed once
    now, in parallel on the current cluster (or threads when there is none), to
    find the largest index and whether one is 0; the chunk sizes are then known.
    With both given nothing is read now, and the chunk sizes are unknown.

    Training ``pegasos_rs.dask.PegasosClassifier`` on these arrays reads the files
    where they are: each worker indexes its blocks (example offsets and labels)
    and parses only the rows the solver draws.
    """
    if zero_based not in (True, False, "auto"):
        raise ValueError(f"zero_based must be True, False or 'auto', got {zero_based!r}")
    if n_features is not None and (
        not isinstance(n_features, (int, np.integer))
        or isinstance(n_features, bool)
        or n_features < 1
    ):
        raise ValueError(f"n_features must be a positive integer, got {n_features!r}")
    dtype = np.dtype(dtype)
    if dtype not in (np.float32, np.float64):
        raise ValueError(f"dtype must be float32 or float64, got {dtype}")
    size = parse_bytes(blocksize) if isinstance(blocksize, str) else int(blocksize)
    if size < 1:
        raise ValueError(f"blocksize must be positive, got {blocksize!r}")
    paths = _paths(paths_or_glob)
    probe = [s for p in paths for s in _split(p, size, None, False, dtype.name)]
    rows = [np.nan] * len(probe)
    one_based = zero_based is False
    if n_features is None or zero_based == "auto":
        stats = dask.compute(*[dask.delayed(_stats, pure=False)(s) for s in probe])
        rows = [r for r, _, _ in stats]
        per_file: dict[str, int | None] = {}
        top = -1
        for s, (_, lo, hi) in zip(probe, stats, strict=True):
            if lo is not None:
                prev = per_file.get(s.path)
                per_file[s.path] = lo if prev is None else min(prev, lo)
            else:
                per_file.setdefault(s.path, None)
            if hi is not None:
                top = max(top, hi)
        if zero_based == "auto":
            one_based = all(v is not None and v > 0 for v in per_file.values())
        n_found = top - int(one_based) + 1 if top >= 0 else 0
        if n_features is None:
            n_features = n_found
        elif n_features < n_found:
            raise ValueError(
                f"n_features was set to {n_features}, but input file contains {n_found} features"
            )
    specs = [
        SvmlightSpec(s.path, s.offset, s.length, int(n_features), one_based, dtype.name)
        for s in probe
    ]
    blocks = [dask.delayed(_parse_block, pure=True)(s) for s in specs]
    meta = sp.csr_matrix((0, int(n_features)), dtype=dtype)
    X = da.concatenate(
        [
            da.from_delayed(b[0], shape=(r, int(n_features)), dtype=dtype, meta=meta)
            for b, r in zip(blocks, rows, strict=True)
        ],
        axis=0,
    )
    y = da.concatenate(
        [
            da.from_delayed(b[1], shape=(r,), dtype=np.float64, meta=np.empty(0))
            for b, r in zip(blocks, rows, strict=True)
        ]
    )
    _remember(_SOURCES, X.name, specs)
    _remember(_LABELS, y.name, X.name)
    return X, y
