"""Writing pegasos-rs model files (the format is described in
:mod:`pegasos_rs.model_io`), given a class name, parameters and fitted attributes.

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
from typing import TYPE_CHECKING, Any

import numpy as np

from pegasos_rs import _core
from pegasos_rs._arrays import is_sparse

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Mapping

    from pegasos_rs._typing import PathLike

MAGIC = b"PEGASOS\x00"
#: The newest format version this module reads. Version 2 added transformers and
#: pipelines; a file holding one classifier is still written as version 1. Version 3
#: adds parameters newer than that (a class's ``_params_since_version``, such as
#: the kernel classifier's one-vs-one ``multi_class``); a file is written as version
#: 3 only when one of them is not at the value older files mean.
FORMAT_VERSION = 3

#: The classifiers' scalar attributes (counts; ``_gamma``, the kernel's resolved
#: gamma, a number).
CLASSIFIER_SCALARS = ("n_features_in_", "n_iter_", "t_", "_gamma")


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
    *,
    array_names: Iterable[str],
    scalar_kinds: Mapping[str, str],
    newer_params: Mapping[str, tuple[Any, int]],
    report_keys: Iterable[str] | None = None,
) -> dict:
    """The header entry of one fitted model of class ``name``: its parameters
    (``params``, as ``get_params(deep=False)`` gives them; a parameter of
    ``newer_params`` at the value a file without it means is left out, so that older
    releases read the file), and the attributes of ``fitted`` that the class saves
    (``array_names``, ``scalar_kinds``), its feature names, its fit report (entries
    restricted to ``report_keys``) and its solver state, each array given to
    ``add(entry, key, array)`` (:meth:`Arrays.add`)."""
    params = dict(params)
    for key, (default, _) in newer_params.items():
        if isinstance(params.get(key), str) and params[key] == default:
            del params[key]  # what a file without it means: older releases read it
    entry: dict[str, Any] = {
        "estimator": name,
        "params": {k: jsonable(v) for k, v in params.items()},
        "scalars": {},
        "arrays": {},
        "sparse": {},
    }
    array_names = list(array_names)
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
    if report is not None and report_keys is not None:  # a kernel fit's report
        keys = list(report_keys)
        entry["scalars"]["fit_report_"] = [{k: r[k] for k in keys} for r in report]
    solver = getattr(fitted, "_solver", None)
    if solver is not None:  # the exact solver state (warm_start continues it)
        add(entry, "_solver", np.frombuffer(solver.__getstate__(), dtype=np.uint8))
    return entry


def version_for(entry: dict, newer_params: Mapping[str, tuple[Any, int]], version: int) -> int:
    """``version``, or the newer one that a newer parameter written in ``entry``
    needs."""
    for key, (_, since) in newer_params.items():
        if key in entry.get("params", {}):
            version = max(version, since)
    return version


def write(path: PathLike, header: dict, arrays: Arrays, version: int) -> None:
    """Write a model file: ``header`` (with this library's version added), then the
    arrays, then the checksum; if writing fails midway (a full disk), the partial file
    is removed."""
    header["library_version"] = _core.__version__
    text = json.dumps(header, sort_keys=True).encode("utf-8")
    head = MAGIC + struct.pack("<IQ", version, len(text)) + text
    body = head + b"".join(arrays.blobs)
    try:
        with open(path, "wb") as f:
            f.write(body)
            f.write(struct.pack("<I", zlib.crc32(body)))
    except BaseException:
        with contextlib.suppress(OSError):
            os.remove(path)
        raise
