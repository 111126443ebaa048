"""Atheris target: ``pegasos_rs.load_svmlight_file`` on files (plain, .gz, .xz, .bz2;
offset/length windows), compared with scikit-learn's reader.

    python fuzz/atheris_svmlight.py fuzz/corpus/svmlight_file -atheris_runs=200000 \\
        -rss_limit_mb=2048 -timeout=10

The first byte holds the options: bits 0-1 the compression (none, gz, xz, bz2: the
content is written as is under that extension, so it is fuzzed compressed), bit 2 a
window (offset and length from the next two bytes), bit 3 ``zero_based=False``, bit
4 float32, bit 5 ``query_id``, bit 6 ``n_features=300``. Every input must load or
raise ``DataFormatError``, or ``ValueError`` for a file with more features than
``n_features``, or ``MemoryError``. When both load an uncompressed text without
a window, the arrays must equal scikit-learn's.

``check(data)`` is the body; tests/test_hostile_input.py runs it over the seeds and
mutations without atheris.
"""

from __future__ import annotations

import atexit
import os
import shutil
import sys
import tempfile
import warnings

import numpy as np

_DIR = tempfile.mkdtemp(
    prefix="pegasos-fuzz-", dir="/dev/shm" if os.path.isdir("/dev/shm") else None
)
atexit.register(shutil.rmtree, _DIR, True)
_EXT = ["svm", "gz", "xz", "bz2"]


def check(data: bytes) -> None:
    from pegasos_rs import load_svmlight_file
    from pegasos_rs.exceptions import DataFormatError

    if not data:
        return
    flags, rest = data[0], data[1:]
    path = os.path.join(_DIR, "data." + _EXT[flags & 3])
    kwargs: dict = {}
    if flags & 4 and len(rest) >= 2:
        kwargs.update(offset=rest[0], length=rest[1] - 64, n_features=2**31 - 1)
        rest = rest[2:]
    if flags & 8:
        kwargs["zero_based"] = False
    if flags & 16:
        kwargs["dtype"] = np.float32
    if flags & 32:
        kwargs["query_id"] = True
    if flags & 64:
        kwargs["n_features"] = 300
    with open(path, "wb") as f:
        f.write(rest)
    try:
        ours = load_svmlight_file(path, **kwargs)
    except (DataFormatError, MemoryError):
        return
    except ValueError as e:
        if "input file contains" in str(e):
            return
        raise
    X, y = ours[0], ours[1]
    assert X.shape[0] == y.shape[0]
    assert X.has_canonical_format
    if flags & 7:
        return
    from sklearn.datasets import load_svmlight_file as sk_load

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            theirs = sk_load(path, **kwargs)
    except (ValueError, RuntimeError, OverflowError, UnicodeDecodeError):
        return  # scikit-learn is stricter here (e.g. a label like "1_0")
    for a, b in zip(ours, theirs, strict=True):
        if hasattr(a, "toarray"):
            assert a.shape == b.shape, (a.shape, b.shape)
            assert (a != b).nnz == 0
            assert a.dtype == b.dtype
        else:
            np.testing.assert_array_equal(a, b)


def main() -> None:
    import atheris

    with atheris.instrument_imports(include=["pegasos_rs"]):
        import pegasos_rs.io.svmlight  # noqa: F401

    atheris.Setup(sys.argv, check)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
