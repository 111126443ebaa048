"""Endian-independent digests of arrays for golden-value tests.

``ndarray.tobytes()`` gives native-endian bytes, so a digest of them differs between
little- and big-endian machines although the numbers are the same. Every golden digest
hashes the arrays' little-endian bytes instead (on a little-endian machine those are the
native bytes, so the pinned values did not change when the helper was introduced).
"""

from __future__ import annotations

import hashlib

import numpy as np


def le_bytes(a) -> bytes:
    """The C-order bytes of ``a`` with every element stored little-endian."""
    a = np.asarray(a)
    if a.dtype.hasobject:
        raise TypeError("object arrays have no portable byte representation")
    return np.ascontiguousarray(a, dtype=a.dtype.newbyteorder("<")).tobytes()


def sha256_le(*arrays) -> str:
    """SHA-256 hex digest of the little-endian bytes of ``arrays``, concatenated."""
    h = hashlib.sha256()
    for a in arrays:
        h.update(le_bytes(a))
    return h.hexdigest()
