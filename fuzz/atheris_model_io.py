"""Atheris target: ``pegasos_rs.load`` (pegasos-rs model files and LIBLINEAR text).

    python fuzz/atheris_model_io.py fuzz/corpus/model_io -atheris_runs=200000 \\
        -rss_limit_mb=2048 -timeout=10

Every input must load or raise ``DataFormatError`` (a ``ValueError``) or
``MemoryError``; a model (a transformer, a pipeline) that loads must predict (or
transform) a small input, or raise ``ValueError``. The first byte picks how the rest becomes a file:

* 0: as is;
* 1: with its last 4 bytes replaced by the right CRC-32 (so that mutations reach the
  header and the arrays instead of failing the checksum);
* 2: ``header JSON`` NUL ``array bytes``, framed as a model file with magic, version,
  header length and CRC.

``check(data)`` is the body; tests/test_hostile_input.py runs it over the seeds and
mutations without atheris.
"""

from __future__ import annotations

import atexit
import os
import shutil
import struct
import sys
import tempfile
import zlib

import numpy as np
import scipy.sparse as sp

_DIR = tempfile.mkdtemp(
    prefix="pegasos-fuzz-", dir="/dev/shm" if os.path.isdir("/dev/shm") else None
)
atexit.register(shutil.rmtree, _DIR, True)
_PATH = os.path.join(_DIR, "model")


def frame(data: bytes) -> bytes:
    """The file content the input stands for (see the module documentation)."""
    from pegasos_rs.io.model_io import FORMAT_VERSION, MAGIC

    if not data:
        return b""
    mode, rest = data[0] % 3, data[1:]
    if mode == 0:
        return rest
    if mode == 1:
        body = rest[:-4] if len(rest) >= 4 else rest
        return body + struct.pack("<I", zlib.crc32(body))
    header, _, blob = rest.partition(b"\x00")
    body = MAGIC + struct.pack("<IQ", FORMAT_VERSION, len(header)) + header + blob
    return body + struct.pack("<I", zlib.crc32(body))


def check(data: bytes) -> None:
    import pegasos_rs
    from pegasos_rs.exceptions import DataFormatError

    with open(_PATH, "wb") as f:
        f.write(frame(data))
    try:
        est = pegasos_rs.load(_PATH)
    except (DataFormatError, MemoryError):
        return
    steps = [s for _, s in est.steps if s != "passthrough"] if hasattr(est, "steps") else [est]
    if not steps:
        return
    n = steps[0].n_features_in_
    if n > 100_000:
        return
    if getattr(steps[0], "kernel", None) == "precomputed":
        X = np.zeros((2, n))
    else:
        X = sp.csr_matrix(([1.0], [0], [0, 1, 1]), shape=(2, n)) if n else sp.csr_matrix((2, 0))
    for method in ("decision_function", "predict", "transform"):
        if hasattr(est, method):
            try:
                getattr(est, method)(X)
            except ValueError:
                pass


def main() -> None:
    import atheris

    with atheris.instrument_imports(include=["pegasos_rs"]):
        import pegasos_rs.io.model_io  # noqa: F401

    atheris.Setup(sys.argv, check)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
