"""What the readers of LIBLINEAR's and LIBSVM's model files share
(:mod:`pegasos_rs.io.liblinear_model`, :mod:`pegasos_rs.io.libsvm_model`): the
``keyword values...`` header lines, the labels, and the check of the rows their
models predict.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np
from sklearn.utils import check_array

from pegasos_rs.exceptions import DataFormatError

if TYPE_CHECKING:
    from pegasos_rs._typing import MatrixLike


class _Header:
    """The ``keyword values...`` lines of a model file before its data section."""

    def __init__(self, lines: list[str], end: str, known: tuple[str, ...], where: str, fmt):
        self.where, self.fmt, self.end_word = where, fmt, end
        self.fields: dict[str, tuple[int, list[str]]] = {}
        k = next((k for k, text in enumerate(lines) if text.strip() == end), None)
        if k is None:
            raise DataFormatError(f"not a {fmt} model file (no {end!r} line)", where)
        for number, text in enumerate(lines[:k], 1):
            parts = text.split()
            if parts:
                if parts[0] not in known:
                    raise DataFormatError(
                        f"not a {fmt} model file: unknown keyword {parts[0][:40]!r} before "
                        f"the {end!r} line",
                        where,
                        number,
                    )
                self.fields[parts[0]] = (number, parts[1:])
        self.end = k  # index of the line holding `end`

    def line(self, key: str) -> int | None:
        return self.fields[key][0] if key in self.fields else None

    def values(self, key: str, convert, count: int | None = None) -> list:
        """The values after ``key``, each converted; exactly ``count`` of them if
        given (the line's own count otherwise)."""
        if key not in self.fields:
            raise DataFormatError(
                f"not a {self.fmt} model file (no {key!r} line before {self.end_word!r})",
                self.where,
            )
        line, parts = self.fields[key]
        name = "integer" if convert is int else "number"
        if count is not None and len(parts) != count:
            raise DataFormatError(
                f"expected {count} value(s) after {key}, got {len(parts)}", self.where, line
            )
        try:
            out = [convert(v) for v in parts]
        except (ValueError, OverflowError):
            raise DataFormatError(
                f"expected {name}s after {key}, got {' '.join(parts)[:40]!r}", self.where, line
            ) from None
        if convert is float and not all(map(math.isfinite, out)):
            raise DataFormatError(f"{key}: the values must be finite", self.where, line)
        return out

    def value(self, key: str, convert):
        return self.values(key, convert, 1)[0]


def _labels(header: _Header, count: int) -> np.ndarray:
    labels = np.array(header.values("label", float, count), dtype=np.float64)
    if np.unique(labels).size != labels.size:
        raise DataFormatError("the labels are not distinct", header.where, header.line("label"))
    return labels


def _label_array(labels: np.ndarray) -> np.ndarray:
    """Integer labels as int64 (as LIBLINEAR/LIBSVM store them), others as floats."""
    if np.all(labels == np.round(labels)) and np.all(np.abs(labels) < 2**53):
        return labels.astype(np.int64)
    return labels


def _check_X(X: MatrixLike) -> Any:  # CSR or ndarray (a union would not narrow by issparse)
    return check_array(X, accept_sparse="csr", dtype=np.float64, order="C")
