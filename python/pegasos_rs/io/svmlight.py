"""Reading and writing svmlight / libsvm files, parsed in Rust.

The functions mirror scikit-learn's ``load_svmlight_file``, ``load_svmlight_files`` and
``dump_svmlight_file``: same arguments, same results (the same CSR values, indices and
labels, bit for bit), with these differences:

* ``.xz``/``.lzma`` files are read too (besides ``.gz`` and ``.bz2``);
* parsing runs in Rust, in parallel chunks (``n_jobs``), with the GIL released;
* malformed input raises :class:`~pegasos_rs.exceptions.DataFormatError` (a
  ``ValueError``) naming the file, the line and the column and what was expected
  there: a label or value that is not a number or is NaN/infinite (or beyond the
  float32 range when reading float32), a token without ``:``, a missing value, a
  negative index, index 0 in a file read with ``zero_based=False``, an index above
  2**31 - 2, indices not strictly increasing within a line (unsorted or duplicate, as
  scikit-learn), a line without ``qid`` when ``query_id=True``, and a compressed file
  that is damaged or truncated;
* ``n_features`` is at most 2**31 - 1;
* ``dump_svmlight_file`` writes every value as the shortest decimal that reads back to
  the same float64 (scikit-learn's ``%.16g`` can lose the last bit), so a round trip
  is exact; ``multilabel`` files are not supported.
"""

from __future__ import annotations

import bz2
import gzip
import lzma
import os
import zlib
from collections.abc import Callable
from typing import IO, TYPE_CHECKING, Any, Literal, overload

import numpy as np

from pegasos_rs import _core, _progress
from pegasos_rs._arrays import as_rust_matrix, buffer, canonical_csr, is_sparse, n_threads
from pegasos_rs._counts import counted
from pegasos_rs.exceptions import DataFormatError

if TYPE_CHECKING:
    from collections.abc import Iterable

    import scipy.sparse as sp
    from numpy.typing import ArrayLike, DTypeLike, NDArray

    from pegasos_rs._typing import FileLike, Int, MatrixLike, PathLike

_OPENERS: dict[str, Callable[..., Any]] = {
    ".gz": gzip.open,
    ".bz2": bz2.open,
    ".xz": lzma.open,
    ".lzma": lzma.open,
}

#: Bytes read at once while a progress bar shows the reading.
_READ_PIECE = 1 << 22

#: The largest feature index the parser accepts (``n_features`` fits an int32).
MAX_INDEX = 2**31 - 2


def _read(f) -> tuple[bytes, str]:
    """The whole (decompressed) content of ``f`` and a name for messages."""
    if hasattr(f, "read"):
        data = f.read()
        if isinstance(data, str):
            raise TypeError("open svmlight files in binary mode ('rb')")
        return bytes(data), str(getattr(f, "name", "<file object>"))
    if isinstance(f, int) and not isinstance(f, bool):
        with open(f, "rb", closefd=False) as fh:
            return fh.read(), f"file descriptor {f}"
    if not isinstance(f, (str, os.PathLike)):
        raise TypeError(f"expected a path, a file descriptor or a binary file, got {type(f)}")
    path = os.fspath(f)
    ext = os.path.splitext(path)[1].lower()
    opener = _OPENERS.get(ext, open)
    if opener is open:
        with open(path, "rb") as fh:
            return _read_all(fh, fh), path
    with open(path, "rb") as raw:  # a missing file is a FileNotFoundError, as usual
        try:
            with opener(raw, "rb") as fh:
                return _read_all(fh, raw), path
        except (OSError, EOFError, lzma.LZMAError, zlib.error) as e:
            # gzip.BadGzipFile and bz2's "Invalid data stream" are OSErrors, a
            # truncated stream is an EOFError, damaged deflate data a zlib.error.
            raise DataFormatError(
                f"not a valid {ext[1:]} file ({e or type(e).__name__}); expected "
                f"{ext[1:]}-compressed svmlight text",
                path,
            ) from None


def _read_all(fh, raw) -> bytes:
    """The rest of ``fh``; while a progress reporter is active, read in pieces and
    report the bytes of the file on disk (``raw``) read so far."""
    reporter = _progress.current()
    if reporter is None:
        return fh.read()
    try:
        size = os.fstat(raw.fileno()).st_size
    except (OSError, AttributeError, ValueError):
        size = 0
    pieces = []
    while piece := fh.read(_READ_PIECE):
        pieces.append(piece)
        reporter.update(raw.tell(), size, None, [], False)
    reporter.update(size, size, None, [], True)
    return b"".join(pieces)


def _window(text: bytes, offset: int, length: int) -> bytes:
    """The lines scikit-learn reads for ``offset`` and ``length``: after ``offset``, the
    rest of the line it falls in is dropped; reading stops after the line that ends
    beyond ``offset + length``. The lines before the window are counted by
    :func:`_lines_before`."""
    start = 0
    if offset > 0:
        nl = text.find(b"\n", offset)
        start = len(text) if nl < 0 else nl + 1
    end = len(text)
    if length > 0:
        nl = text.find(b"\n", max(start, offset + length))
        end = len(text) if nl < 0 else nl + 1
    return text[start:end]


def _lines_before(text: bytes, offset: int) -> int:
    """The number of lines :func:`_window` drops before the window."""
    if offset <= 0:
        return 0
    nl = text.find(b"\n", offset)
    return text.count(b"\n", 0, len(text) if nl < 0 else nl + 1)


def load_svmlight_files(
    files: Iterable[FileLike],
    *,
    n_features: Int | None = None,
    dtype: DTypeLike = np.float64,
    multilabel: bool = False,
    zero_based: bool | Literal["auto"] = "auto",
    query_id: bool = False,
    offset: Int = 0,
    length: Int = -1,
    n_jobs: Int | None = None,
    verbose: Int = 0,
) -> list[Any]:
    """Load several svmlight files with a common number of features.

    Returns ``[X1, y1, X2, y2, ...]`` (with ``q1``, ``q2``, ... after each ``y`` when
    ``query_id``), as :func:`sklearn.datasets.load_svmlight_files`. ``n_jobs``
    threads parse each file in chunks (None: one). With ``verbose``, the progress
    of long reads (every few seconds) and a summary of each file are written to
    :data:`sys.stderr`.
    """
    report = _progress.verbose_report(verbose, "load_svmlight_file", "bytes")
    with _progress.reporting(report):
        return _load_files(
            files,
            n_features,
            dtype,
            multilabel,
            zero_based,
            query_id,
            offset,
            length,
            n_jobs,
            report,
        )


def _load_files(
    files, n_features, dtype, multilabel, zero_based, query_id, offset, length, n_jobs, report
):
    """:func:`load_svmlight_files` with its reporter in place."""
    import scipy.sparse as sp

    parsed, n_features = _parse_files(
        files, n_features, dtype, multilabel, zero_based, query_id, offset, length, n_jobs, report
    )
    result = []
    for data, indices, indptr, labels, qid in parsed:
        X = sp.csr_matrix((data, indices, indptr), shape=(indptr.shape[0] - 1, n_features))
        result += [X, labels]
        if query_id:
            result.append(qid)
    return result


def read_svmlight_arrays(f: FileLike, *, n_jobs: Int | None = None):
    """One svmlight file (as :func:`load_svmlight_file` with its defaults reads it)
    as ``(data, indices, indptr, labels, n_features)``: the arrays of its CSR matrix,
    without building a scipy matrix, so that ``pegasos-rs train`` need not import
    scipy. A progress reporter active in the caller's context sees the reading."""
    parsed, n_features = _parse_files(
        [f], None, np.float64, False, "auto", False, 0, -1, n_jobs, None
    )
    data, indices, indptr, labels, _ = parsed[0]
    return data, indices, indptr, labels, n_features


def _parse_files(
    files, n_features, dtype, multilabel, zero_based, query_id, offset, length, n_jobs, report
):
    """The files parsed and checked: a list of ``(data, indices, indptr, labels,
    qid)`` (0-based indices, values of ``dtype``) and the common number of
    features."""
    if multilabel:
        raise ValueError("multilabel svmlight files are not supported by pegasos_rs")
    if zero_based not in (True, False, "auto"):
        raise ValueError(f"zero_based must be True, False or 'auto', got {zero_based!r}")
    if not isinstance(offset, (int, np.integer)) or offset < 0:
        raise ValueError(f"offset must be a non-negative integer, got {offset!r}")
    if not isinstance(length, (int, np.integer)):
        raise ValueError(f"length must be an integer (-1: to the end), got {length!r}")
    if n_features is not None and (not isinstance(n_features, (int, np.integer)) or n_features < 1):
        raise ValueError(f"n_features must be a positive integer, got {n_features!r}")
    if n_features is not None and n_features > MAX_INDEX + 1:
        raise ValueError(
            f"n_features must be at most {MAX_INDEX + 1} (the largest feature index "
            f"pegasos-rs reads is {MAX_INDEX}), got {n_features}"
        )
    if (offset != 0 or length > 0) and zero_based == "auto":
        zero_based = True  # the heuristic needs the whole file (as scikit-learn)
    if (offset != 0 or length > 0) and n_features is None:
        raise ValueError("n_features is required when offset or length is specified.")
    if isinstance(files, (str, os.PathLike, int)) or hasattr(files, "read"):
        raise TypeError("files must be a list of files; use load_svmlight_file for one")
    parse_dtype = "float32" if np.dtype(dtype) == np.float32 else "float64"
    threads = n_threads(n_jobs)
    parsed = []
    for f in files:
        text, name = _read(f)
        skipped = 0
        if offset != 0 or length > 0:
            skipped = _lines_before(text, offset)
            text = _window(text, offset, length)
        try:
            parsed.append(
                _core.parse_svmlight(
                    text,
                    dtype=parse_dtype,
                    one_based=zero_based is False,
                    query_id=bool(query_id),
                    n_threads=threads,
                )
            )
        except DataFormatError as e:
            line = None if e.line is None else e.line + skipped
            raise DataFormatError(e.reason, name, line, e.column) from None
        except ValueError as e:
            raise ValueError(f"{name}: {e}") from None
        if report is not None:
            rows, nnz = parsed[-1][2].shape[0] - 1, parsed[-1][0].shape[0]
            counts = [(len(text), "byte"), (rows, "row"), (nnz, "stored value")]
            report.write(f"{name}: " + ", ".join(counted(n, w, thousands=True) for n, w in counts))
    one_based = zero_based is False or (
        zero_based == "auto" and all(p[5] is not None and p[5] > 0 for p in parsed)
    )
    if one_based:
        for p in parsed:
            np.subtract(p[1], 1, out=p[1])
    # A file without any index counts as index 0, as in scikit-learn: at least 1 column.
    n_f = max((p[6] - int(one_based) if p[6] is not None else 0) for p in parsed) + 1
    if n_features is None:
        n_features = n_f
    elif n_features < n_f:
        raise ValueError(
            f"n_features was set to {n_features}, but input file contains {n_f} features"
        )
    arrays = [
        (np.asarray(data, dtype=dtype), indices, indptr, labels, qid)
        for data, indices, indptr, labels, qid, _, _ in parsed
    ]
    return arrays, n_features


@overload
def load_svmlight_file(
    f: FileLike,
    *,
    n_features: Int | None = None,
    dtype: DTypeLike = np.float64,
    multilabel: bool = False,
    zero_based: bool | Literal["auto"] = "auto",
    query_id: Literal[False] = False,
    offset: Int = 0,
    length: Int = -1,
    n_jobs: Int | None = None,
    verbose: Int = 0,
) -> tuple[sp.csr_matrix, NDArray[np.float64]]: ...


@overload
def load_svmlight_file(
    f: FileLike,
    *,
    n_features: Int | None = None,
    dtype: DTypeLike = np.float64,
    multilabel: bool = False,
    zero_based: bool | Literal["auto"] = "auto",
    query_id: Literal[True],
    offset: Int = 0,
    length: Int = -1,
    n_jobs: Int | None = None,
    verbose: Int = 0,
) -> tuple[sp.csr_matrix, NDArray[np.float64], NDArray[np.int64]]: ...


@overload
def load_svmlight_file(
    f: FileLike,
    *,
    n_features: Int | None = None,
    dtype: DTypeLike = np.float64,
    multilabel: bool = False,
    zero_based: bool | Literal["auto"] = "auto",
    query_id: bool = False,
    offset: Int = 0,
    length: Int = -1,
    n_jobs: Int | None = None,
    verbose: Int = 0,
) -> (
    tuple[sp.csr_matrix, NDArray[np.float64]]
    | tuple[sp.csr_matrix, NDArray[np.float64], NDArray[np.int64]]
): ...


def load_svmlight_file(
    f: FileLike,
    *,
    n_features: Int | None = None,
    dtype: DTypeLike = np.float64,
    multilabel: bool = False,
    zero_based: bool | Literal["auto"] = "auto",
    query_id: bool = False,
    offset: Int = 0,
    length: Int = -1,
    n_jobs: Int | None = None,
    verbose: Int = 0,
) -> tuple[Any, ...]:
    """Load one svmlight / libsvm file as ``(X, y)`` (CSR matrix and float64 labels),
    or ``(X, y, query_id)``, as :func:`sklearn.datasets.load_svmlight_file`.

    ``f`` is a path (``.gz``, ``.bz2``, ``.xz`` are decompressed), a file descriptor
    or a binary file object.
    """
    return tuple(
        load_svmlight_files(
            [f],
            n_features=n_features,
            dtype=dtype,
            multilabel=multilabel,
            zero_based=zero_based,
            query_id=query_id,
            offset=offset,
            length=length,
            n_jobs=n_jobs,
            verbose=verbose,
        )
    )


def dump_svmlight_file(
    X: MatrixLike,
    y: ArrayLike,
    f: PathLike | IO[bytes],
    *,
    zero_based: bool = True,
    comment: str | bytes | None = None,
    query_id: ArrayLike | None = None,
    multilabel: bool = False,
    n_jobs: Int | None = None,
) -> None:
    """Write ``X`` (dense or sparse) and ``y`` to ``f`` (a path or a binary file) in
    svmlight format, zeros omitted, values written exactly (shortest round-trip
    decimal), as :func:`sklearn.datasets.dump_svmlight_file`."""
    if multilabel:
        raise ValueError("multilabel svmlight files are not supported by pegasos_rs")
    from sklearn.utils import check_array

    X = check_array(X, accept_sparse="csr", dtype=[np.float64, np.float32], order="C")
    if is_sparse(X):
        X = canonical_csr(X)  # checks the structure before scipy touches it
    y = np.asarray(y)
    if y.ndim != 1:
        raise ValueError(f"expected y of shape (n_samples,), got {y.shape}")
    if y.shape[0] != X.shape[0]:
        raise ValueError(
            f"X.shape[0] and y.shape[0] should be the same, got {X.shape[0]} and {y.shape[0]}"
        )
    labels = buffer(y, np.float64)
    if not np.all(np.isfinite(labels)):
        raise ValueError("y contains NaN or infinity")
    qid = None
    if query_id is not None:
        qid = buffer(query_id, np.int64)
        if qid.shape != (X.shape[0],):
            raise ValueError(f"expected query_id of shape (n_samples,), got {qid.shape}")
    head = b""
    if comment is not None:
        if isinstance(comment, bytes):
            comment.decode("ascii")  # raises for non-ASCII bytes, as scikit-learn
        else:
            comment = str(comment).encode("utf-8")
        if b"\0" in comment:
            raise ValueError("comment string contains NUL byte")
        head = (
            f"# Generated by dump_svmlight_file from pegasos-rs {_core.__version__}\n"
            f"# Column indices are {'zero' if zero_based else 'one'}-based\n#\n"
        ).encode() + b"".join(b"# " + line + b"\n" for line in comment.splitlines())
    body = _core.format_svmlight(
        as_rust_matrix(X),
        labels,
        qid,
        one_based=not zero_based,
        n_threads=n_threads(n_jobs),
    )
    if hasattr(f, "write"):
        f.write(head + body)
    else:
        with open(f, "wb") as fh:
            fh.write(head)
            fh.write(body)
