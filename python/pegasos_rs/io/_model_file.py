"""Writing pegasos-rs model files (the format is described in
:mod:`pegasos_rs.io.model_io`), given a class name, parameters and fitted attributes.

:func:`pegasos_rs.save` checks what it is given (a saveable class, fitted, a
Pipeline's steps) and writes through this module; ``pegasos-rs train`` writes the
models it trains through it too, without building an estimator: this module imports
neither scikit-learn nor scipy, so the command line's files are exactly those of
``save`` (tested byte for byte) without the cost of importing scikit-learn.
"""

from __future__ import annotations

import contextlib
import json
import os
import struct
import zlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from pegasos_rs import _core
from pegasos_rs._arrays import is_sparse

if TYPE_CHECKING:
    from pegasos_rs._typing import PathLike

MAGIC = b"PEGASOS\x00"
#: The format version: every file is written with it, and only files of it are read.
FORMAT_VERSION = 1


@dataclass(frozen=True)
class SavedState:
    """What a model file holds of an estimator class, declared by that class (its
    ``_saved_state``): this module and :mod:`pegasos_rs.io.model_io` read and write
    exactly these attributes, by these names, and name none of them themselves.

    ``arrays``: fitted attributes stored as arrays (dense or CSR; a tuple of counts
    is stored in the header; those that are None are left out). ``scalars``: fitted
    attributes stored in the header, by kind: ``"count"`` (an int >= 0),
    ``"number"`` (a float or int), ``"real"`` (a float, or an int >= 0), ``"str"``,
    ``"seen"`` (an int >= 0, or a float >= 0); a numpy scalar or array among the
    ``arrays`` is stored with the arrays. ``report_keys``: the keys of each entry of
    ``fit_report_`` kept, or None when it is not saved. ``solver``: the attribute
    holding a ``_core.LinearSolverState`` (saved as bytes under that name), or
    None. ``fitted``: an attribute that exists once fitted (None: scikit-learn's
    ``check_is_fitted`` decides). ``optional``: attributes set to None when a file
    lacks them. ``check(estimator, need)``: the class's own checks of a loaded
    estimator (``need(condition, what)`` reports a failure), run after the public
    attributes are checked.
    """

    arrays: tuple[str, ...] = ()
    scalars: Mapping[str, str] = field(default_factory=dict)
    report_keys: tuple[str, ...] | None = None
    solver: str | None = None
    fitted: str | None = None
    optional: tuple[str, ...] = ()
    check: Callable[[Any, Callable[[bool, str], None]], None] | None = None


def require_scalars(fitted: Any, state: SavedState, need: Callable[[bool, str], None]) -> None:
    """``need`` every scalar ``state`` declares to be set on ``fitted`` (a loaded
    transformer, whose file always holds them)."""
    for attr in state.scalars:
        need(hasattr(fitted, attr), f"{attr} is missing")


def jsonable(value):
    """Parameters as JSON values (numpy scalars and arrays become Python ones)."""
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return {"__array__": value.tolist()}
    if isinstance(value, dict):
        if not all(isinstance(k, (str, int, float, bool)) for k in value):
            raise TypeError("dict parameters must have str/int/float/bool keys")
        return {"__dict__": [[jsonable(k), jsonable(v)] for k, v in value.items()]}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    raise TypeError(
        f"parameter value {value!r} cannot be saved; set an int seed instead of a "
        "RandomState object"
    )


class Arrays:
    """The byte area after the header: arrays appended one after the other, each
    described in its header entry (dtype, shape, offset, size)."""

    def __init__(self) -> None:
        self.blobs: list[bytes] = []
        self.offset = 0

    def add(self, entry: dict, key: str, arr) -> None:
        """Append ``arr`` (little-endian) and describe it as ``key`` in ``entry``."""
        arr = np.asarray(arr)
        if arr.ndim:  # (ascontiguousarray would make a 0-d array 1-d)
            arr = np.ascontiguousarray(arr)
        if arr.dtype == object and all(isinstance(v, str) for v in arr.flat):
            arr = arr.astype(str)  # string labels from a data frame's column
        if arr.dtype == object:
            raise TypeError(f"{key} holds Python objects; only numeric labels can be saved")
        arr = arr.astype(arr.dtype.newbyteorder("<"), copy=False)
        raw = arr.tobytes()
        entry["arrays"][key] = {
            "dtype": arr.dtype.str,
            "shape": list(arr.shape),
            "offset": self.offset,
            "nbytes": len(raw),
        }
        self.blobs.append(raw)
        self.offset += len(raw)


def describe(
    name: str,
    params: Mapping[str, Any],
    fitted: Any,
    add: Callable[[dict, str, Any], None],
    state: SavedState,
) -> dict:
    """The header entry of one fitted model of class ``name``: its parameters
    (``params``, as ``get_params(deep=False)`` gives them) and the attributes of
    ``fitted`` that its class declares in ``state`` (arrays, scalars, fit report,
    solver state) and its feature names, each array given to ``add(entry, key,
    array)`` (:meth:`Arrays.add`)."""
    entry: dict[str, Any] = {
        "estimator": name,
        "params": {k: jsonable(v) for k, v in params.items()},
        "scalars": {},
        "arrays": {},
        "sparse": {},
    }
    array_names, scalar_kinds = list(state.arrays), state.scalars
    for attr in array_names:
        value = getattr(fitted, attr, None)
        if attr in scalar_kinds and isinstance(value, np.generic):
            value = np.asarray(value)  # a numpy scalar: stored 0-d, read back as one
        elif value is None or (attr in scalar_kinds and not isinstance(value, np.ndarray)):
            continue
        if is_sparse(value):
            import scipy.sparse as sp  # loaded already: value is a scipy matrix

            value = sp.csr_matrix(value)
            entry["sparse"][attr] = {"shape": list(value.shape), "format": "csr"}
            add(entry, attr + ".data", value.data)
            add(entry, attr + ".indices", value.indices)
            add(entry, attr + ".indptr", value.indptr)
        elif isinstance(value, tuple):
            entry["scalars"][attr] = list(value)
        else:
            add(entry, attr, np.asarray(value))
    for attr in scalar_kinds:
        value = getattr(fitted, attr, None)
        stored = isinstance(value, np.ndarray) or (
            attr in array_names and isinstance(value, np.generic)
        )
        if value is not None and not stored:
            entry["scalars"][attr] = jsonable(value)
    names = getattr(fitted, "feature_names_in_", None)
    if names is not None:
        entry["scalars"]["feature_names_in_"] = [str(v) for v in names]
    report = getattr(fitted, "fit_report_", None)
    if report is not None and state.report_keys is not None:  # a kernel fit's report
        keys = list(state.report_keys)
        entry["scalars"]["fit_report_"] = [{k: r[k] for k in keys} for r in report]
    if state.solver is not None:  # the exact solver state (warm_start continues it)
        solver = getattr(fitted, state.solver, None)
        if solver is not None:
            add(entry, state.solver, np.frombuffer(solver.__getstate__(), dtype=np.uint8))
    return entry


def write(path: PathLike, header: dict, arrays: Arrays) -> None:
    """Write a model file (format :data:`FORMAT_VERSION`): ``header`` (with this
    library's version added), then the arrays, then the checksum; if writing fails
    midway (a full disk), the partial file is removed."""
    header["library_version"] = _core.__version__
    text = json.dumps(header, sort_keys=True).encode("utf-8")
    head = MAGIC + struct.pack("<IQ", FORMAT_VERSION, len(text)) + text
    body = head + b"".join(arrays.blobs)
    try:
        with open(path, "wb") as f:
            f.write(body)
            f.write(struct.pack("<I", zlib.crc32(body)))
    except BaseException:
        with contextlib.suppress(OSError):
            os.remove(path)
        raise
