"""What model files may hold, registered by the modules that define it.

The model file code (:mod:`pegasos_rs.io.model_io`) imports no estimator and no reader
of other formats: estimator classes register themselves here when their module is
imported, and so does the reader of LIBLINEAR's model files, which
:func:`pegasos_rs.load` also accepts. The package's modules thus import one another
in one direction only.

``import pegasos_rs`` imports none of these modules (its names are imported on first
use, so that the command line starts fast): :func:`classes` and :func:`text_reader`
import the modules named in :data:`PROVIDERS` when first called, by name, at call
time, once every module involved has finished importing.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T", bound=type)

_CLASSES: dict[str, type] = {}
_TEXT_READERS: dict[str, Callable[[str, str], Any]] = {}

#: The modules that register classes or readers here when imported.
PROVIDERS = (
    "pegasos_rs.linear",
    "pegasos_rs.linear_regressor",
    "pegasos_rs.ranker",
    "pegasos_rs.one_class",
    "pegasos_rs.kernel",
    "pegasos_rs.kernel_regressor",
    "pegasos_rs.kernel_one_class",
    "pegasos_rs.kernel_approximation",
    "pegasos_rs.io.liblinear_model",
)


def _import_providers() -> None:
    for name in PROVIDERS:
        importlib.import_module(name)


def persisted(cls: T) -> T:
    """Class decorator: model files may hold instances of ``cls`` (by its name)."""
    _CLASSES[cls.__name__] = cls
    return cls


def classes() -> dict[str, type]:
    """The registered classes by name (all of them: the modules of
    :data:`PROVIDERS` are imported first)."""
    _import_providers()
    return dict(_CLASSES)


def register_text_reader(name: str, reader: Callable[[str, str], Any]) -> None:
    """``reader(text, where)`` turns a text model file of format ``name`` into an
    estimator."""
    _TEXT_READERS[name] = reader


def text_reader(name: str) -> Callable[[str, str], Any]:
    """The reader registered for ``name`` (``pegasos_rs.io.liblinear_model`` registers
    LIBLINEAR's; the modules of :data:`PROVIDERS` are imported first)."""
    _import_providers()
    return _TEXT_READERS[name]
