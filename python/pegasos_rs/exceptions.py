"""The exceptions pegasos-rs raises on purpose.

::

    Exception
    ├── PegasosError                      base of this library's own exceptions
    │   └── DataFormatError (+ ValueError) a malformed svmlight file or model file
    └── ValueError
        └── NotFittedError (+ AttributeError, scikit-learn's)

:class:`DataFormatError` is also a :class:`ValueError`, so code written as
``except ValueError`` keeps catching malformed files. It names the file and the
position (``file``, ``line`` and ``column`` attributes, ``None`` when unknown) and
says what was expected::

    data.svm: line 12: expected index:value, got "x" (column 7)

``NotFittedError`` is :class:`sklearn.exceptions.NotFittedError` itself (re-exported
here): the estimators raise it when asked to predict before ``fit``. Out-of-range
parameters and arrays of the wrong shape raise plain :class:`ValueError` (as in
scikit-learn), buffers that cannot be allocated :class:`MemoryError`, and Ctrl-C
during a long call :class:`KeyboardInterrupt`.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sklearn.exceptions import NotFittedError

__all__ = ["DataFormatError", "NotFittedError", "PegasosError"]


class PegasosError(Exception):
    """Base class of the exceptions defined by pegasos-rs."""


class DataFormatError(PegasosError, ValueError):
    """A malformed svmlight / libsvm file or model file.

    ``reason`` is what is wrong at the position (e.g. ``expected index:value, got
    "x"``); ``file`` (a str), ``line`` and ``column`` (1-based; the column counts
    bytes) are ``None`` when unknown. ``str()`` gives the whole message: file, line,
    what is wrong, column (``data.svm: line 12: expected index:value, got "x"
    (column 7)``).
    """

    def __init__(
        self,
        reason: str,
        file: str | os.PathLike | None = None,
        line: int | None = None,
        column: int | None = None,
    ) -> None:
        file = None if file is None else os.fspath(file)
        if isinstance(file, bytes):
            file = os.fsdecode(file)
        super().__init__(reason, file, line, column)
        self.reason = reason
        self.file = file
        self.line = line
        self.column = column

    def __str__(self) -> str:
        text = self.reason
        if self.line is not None:
            text = f"line {self.line}: {text}"
            if self.column is not None:
                text += f" (column {self.column})"
        if self.file is not None:
            text = f"{self.file}: {text}"
        return text

    def with_file(self, file: str | os.PathLike) -> DataFormatError:
        """The same error, naming ``file`` (a new exception; this one is unchanged)."""
        return DataFormatError(self.reason, file, self.line, self.column)


def __getattr__(name: str) -> Any:
    # scikit-learn's NotFittedError, imported when first asked for (PEP 562): the
    # extension imports this module to raise DataFormatError, and the command line
    # must not import scikit-learn for that.
    if name == "NotFittedError":
        from sklearn.exceptions import NotFittedError

        return NotFittedError
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), "NotFittedError"])
