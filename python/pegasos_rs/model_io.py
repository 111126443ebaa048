"""Model files: a portable, versioned format that is not pickle.

Layout (all integers little-endian)::

    8 bytes   magic b"PEGASOS\\x00"
    4 bytes   format version (uint32)
    8 bytes   header length H (uint64)
    H bytes   header, UTF-8 JSON
    ...       the arrays' bytes, one after the other, each little-endian
    4 bytes   CRC-32 of everything before it

The header holds ``{"estimator": class name, "library_version": ..., "params":
get_params(), "scalars": {...}, "arrays": {name: {"dtype", "shape", "offset",
"nbytes"}}, "sparse": {name: {"shape", "format": "csr"}}}``; a sparse attribute is
stored as the three arrays ``name.data``, ``name.indices``, ``name.indptr``. Nothing in
a file is executed when it is read: only known estimator classes are built, with
parameters that are JSON values, so loading an untrusted file is safe (unlike pickle).

``load`` also reads LIBLINEAR's text model files (``train``'s output) into a
:class:`PegasosClassifier`, so that models can move over.
"""

from __future__ import annotations

import json
import os
import struct
import zlib

import numpy as np
import scipy.sparse as sp

from pegasos_rs import _core

MAGIC = b"PEGASOS\x00"
FORMAT_VERSION = 1

#: Fitted attributes written for each estimator (those present are saved).
_ATTRIBUTES = {
    "PegasosClassifier": ["coef_", "intercept_", "classes_", "objective_"],
    "KernelPegasosClassifier": [
        "support_",
        "support_vectors_",
        "dual_coef_",
        "intercept_",
        "n_support_",
        "classes_",
        "shape_fit_",
        "_sv_kernel_rows",
    ],
}
_SCALARS = ["n_features_in_", "n_iter_", "t_", "_gamma"]


def _estimator_classes():
    from pegasos_rs.kernel import KernelPegasosClassifier
    from pegasos_rs.linear import PegasosClassifier

    return {c.__name__: c for c in (PegasosClassifier, KernelPegasosClassifier)}


def _jsonable(value):
    """Parameters as JSON values (numpy scalars and arrays become Python ones)."""
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return {"__array__": value.tolist()}
    if isinstance(value, dict):
        if not all(isinstance(k, (str, int, float, bool)) for k in value):
            raise TypeError("dict parameters must have str/int/float/bool keys")
        return {"__dict__": [[_jsonable(k), _jsonable(v)] for k, v in value.items()]}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    raise TypeError(
        f"parameter value {value!r} cannot be saved; set an int seed instead of a "
        "RandomState object"
    )


def _from_json(value):
    if isinstance(value, dict) and "__array__" in value:
        return np.asarray(value["__array__"])
    if isinstance(value, dict) and "__dict__" in value:
        return {_from_json(k): _from_json(v) for k, v in value["__dict__"]}
    if isinstance(value, list):
        return [_from_json(v) for v in value]
    return value


def save(estimator, path) -> None:
    """Write a fitted estimator to ``path`` (see the module documentation)."""
    name = type(estimator).__name__
    if name not in _ATTRIBUTES:
        raise TypeError(f"cannot save a {name}")
    if not hasattr(estimator, "classes_"):
        raise ValueError(f"this {name} is not fitted yet; call fit first")
    header = {
        "estimator": name,
        "library_version": _core.__version__,
        "params": {k: _jsonable(v) for k, v in estimator.get_params(deep=False).items()},
        "scalars": {},
        "arrays": {},
        "sparse": {},
    }
    blobs: list[bytes] = []
    offset = 0

    def add(key, arr):
        nonlocal offset
        arr = np.ascontiguousarray(arr)
        if arr.dtype == object:
            raise TypeError(f"{key} holds Python objects; only numeric labels can be saved")
        arr = arr.astype(arr.dtype.newbyteorder("<"), copy=False)
        raw = arr.tobytes()
        header["arrays"][key] = {
            "dtype": arr.dtype.str,
            "shape": list(arr.shape),
            "offset": offset,
            "nbytes": len(raw),
        }
        blobs.append(raw)
        offset += len(raw)

    for attr in _ATTRIBUTES[name]:
        value = getattr(estimator, attr, None)
        if value is None:
            continue
        if sp.issparse(value):
            value = sp.csr_matrix(value)
            header["sparse"][attr] = {"shape": list(value.shape), "format": "csr"}
            add(attr + ".data", value.data)
            add(attr + ".indices", value.indices)
            add(attr + ".indptr", value.indptr)
        elif isinstance(value, tuple):
            header["scalars"][attr] = list(value)
        else:
            add(attr, np.asarray(value))
    for attr in _SCALARS:
        if hasattr(estimator, attr):
            header["scalars"][attr] = _jsonable(getattr(estimator, attr))
    solver = getattr(estimator, "_solver", None)
    if solver is not None:  # the exact solver state (warm_start continues it)
        add("_solver", np.frombuffer(solver.__getstate__(), dtype=np.uint8))
    text = json.dumps(header, sort_keys=True).encode("utf-8")
    head = MAGIC + struct.pack("<IQ", FORMAT_VERSION, len(text)) + text
    body = head + b"".join(blobs)
    with open(path, "wb") as f:
        f.write(body)
        f.write(struct.pack("<I", zlib.crc32(body)))


def load(path):
    """Read an estimator saved by :func:`save` (or a LIBLINEAR text model file)."""
    with open(path, "rb") as f:
        raw = f.read()
    where = os.fspath(path)
    if not raw.startswith(MAGIC):
        if raw.startswith(b"solver_type"):
            return _load_liblinear(raw.decode("ascii", errors="replace"), where)
        raise ValueError(f"{where} is not a pegasos-rs model file (bad magic bytes)")
    if len(raw) < len(MAGIC) + 16:
        raise ValueError(f"{where} is truncated")
    version, hlen = struct.unpack_from("<IQ", raw, len(MAGIC))
    if version > FORMAT_VERSION:
        raise ValueError(
            f"{where} has model format version {version}; this pegasos-rs "
            f"({_core.__version__}) reads up to version {FORMAT_VERSION}: upgrade pegasos-rs"
        )
    (crc,) = struct.unpack_from("<I", raw, len(raw) - 4)
    if zlib.crc32(raw[:-4]) != crc:
        raise ValueError(f"{where} is corrupted or truncated (checksum mismatch)")
    start = len(MAGIC) + 12
    try:
        header = json.loads(raw[start : start + hlen].decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ValueError(f"{where}: unreadable header ({e})") from None
    blob = memoryview(raw)[start + hlen : len(raw) - 4]
    classes = _estimator_classes()
    name = header.get("estimator")
    if name not in classes:
        raise ValueError(f"{where}: unknown estimator {name!r}")
    est = classes[name](**{k: _from_json(v) for k, v in header["params"].items()})

    def array(key):
        meta = header["arrays"][key]
        end = meta["offset"] + meta["nbytes"]
        if end > len(blob):
            raise ValueError(f"{where}: array {key} lies outside the file")
        a = np.frombuffer(blob[meta["offset"] : end], dtype=np.dtype(meta["dtype"]))
        return a.reshape(meta["shape"]).astype(a.dtype.newbyteorder("="))

    for attr in _ATTRIBUTES[name]:
        if attr in header["sparse"]:
            shape = tuple(header["sparse"][attr]["shape"])
            value = sp.csr_matrix(
                (array(attr + ".data"), array(attr + ".indices"), array(attr + ".indptr")),
                shape=shape,
            )
            setattr(est, attr, value)
        elif attr in header["arrays"]:
            setattr(est, attr, array(attr))
        elif attr in header["scalars"]:
            setattr(est, attr, tuple(header["scalars"][attr]))
    for attr, value in header["scalars"].items():
        if attr in _SCALARS:
            setattr(est, attr, value)
    if name == "KernelPegasosClassifier" and not hasattr(est, "_sv_kernel_rows"):
        est._sv_kernel_rows = None
    if "_solver" in header["arrays"]:
        solver = _core.LinearSolverState()
        solver.__setstate__(array("_solver").tobytes())
        est._solver = solver
    if name == "PegasosClassifier" and not hasattr(est, "objective_"):
        est.objective_ = None
    return est


def _load_liblinear(text: str, where: str):
    """A LIBLINEAR model file (binary or one-vs-rest linear SVM / LR) as a
    PegasosClassifier with the same decision function."""
    from pegasos_rs.linear import PegasosClassifier

    lines = text.splitlines()
    fields: dict[str, list[str]] = {}
    k = 0
    while k < len(lines) and lines[k].strip() != "w":
        parts = lines[k].split()
        if parts:
            fields[parts[0]] = parts[1:]
        k += 1
    try:
        solver = fields["solver_type"][0]
        labels = np.array([float(v) for v in fields["label"]])
        n_class = int(fields["nr_class"][0])
        n_feature = int(fields["nr_feature"][0])
        bias = float(fields["bias"][0])
    except (KeyError, IndexError, ValueError) as e:
        raise ValueError(f"{where}: not a LIBLINEAR model file ({e})") from None
    if solver == "MCSVM_CS" or solver.endswith("SVR") or solver.startswith("ONECLASS"):
        raise ValueError(f"{where}: LIBLINEAR solver {solver} has no one-vs-rest form")
    n_out = 1 if n_class == 2 else n_class
    rows = n_feature + (1 if bias >= 0 else 0)
    try:
        W = np.array([[float(v) for v in line.split()] for line in lines[k + 1 : k + 1 + rows]])
    except ValueError as e:
        raise ValueError(f"{where}: bad weight line ({e})") from None
    if W.shape != (rows, n_out) or labels.size != n_class:
        raise ValueError(
            f"{where}: expected {rows} weight lines of {n_out} values and {n_class} labels"
        )
    coef = W[:n_feature].T.copy()
    intercept = bias * W[n_feature] if bias >= 0 else np.zeros(n_out)
    order = np.argsort(labels)
    if n_out == 1:
        # LIBLINEAR predicts label[0] when w.x > 0; ours the larger class.
        sign = 1.0 if labels[0] > labels[1] else -1.0
        coef, intercept = sign * coef, sign * np.atleast_1d(intercept)
    else:
        coef, intercept = coef[order], np.asarray(intercept)[order]
    classes = labels[order]
    if np.all(classes == np.round(classes)):
        classes = classes.astype(np.int64)
    est = PegasosClassifier(fit_intercept=bias >= 0, intercept_scaling=bias if bias > 0 else 1.0)
    est.coef_ = coef
    est.intercept_ = np.atleast_1d(intercept).astype(np.float64)
    est.classes_ = classes
    est.n_features_in_ = n_feature
    est.n_iter_ = 0
    est.t_ = 0
    est.objective_ = None
    return est
