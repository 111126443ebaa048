"""What model files may hold, registered by the modules that define it.

The model file code (:mod:`pegasos_rs.model_io`) imports no estimator and no reader
of other formats: estimator classes register themselves here when their module is
imported (``pegasos_rs/__init__.py`` imports them all), and so does the reader of
LIBLINEAR's model files, which :func:`pegasos_rs.load` also accepts. The package's
modules thus import one another in one direction only.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T", bound=type)

_CLASSES: dict[str, type] = {}
_TEXT_READERS: dict[str, Callable[[str, str], Any]] = {}


def persisted(cls: T) -> T:
    """Class decorator: model files may hold instances of ``cls`` (by its name)."""
    _CLASSES[cls.__name__] = cls
    return cls


def classes() -> dict[str, type]:
    """The registered classes by name (importing ``pegasos_rs`` registers them all)."""
    return dict(_CLASSES)


def register_text_reader(name: str, reader: Callable[[str, str], Any]) -> None:
    """``reader(text, where)`` turns a text model file of format ``name`` into an
    estimator."""
    _TEXT_READERS[name] = reader


def text_reader(name: str) -> Callable[[str, str], Any]:
    """The reader registered for ``name`` (``pegasos_rs.foreign_models`` registers
    LIBLINEAR's when the package is imported)."""
    return _TEXT_READERS[name]
