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
"nbytes"}}, "sparse": {name: {"shape", "format": "csr"}}}``, plus
``"feature_names_in_": [str, ...]`` for a model fitted on a data frame; a sparse
attribute is stored as the three arrays ``name.data``, ``name.indices``,
``name.indptr``. Nothing in a file is executed when it is read: only known estimator
classes are built, with parameters that are JSON values, so loading an untrusted file
is safe (unlike pickle).

``load`` also reads LIBLINEAR's text model files (``train``'s output) into a
:class:`PegasosClassifier`, so that models can move over (the parser is
:mod:`pegasos_rs.foreign_models`, which also reads LIBSVM's model files).
"""

from __future__ import annotations

import json
import math
import os
import re
import struct
import zlib

import numpy as np
import scipy.sparse as sp

from pegasos_rs import _core
from pegasos_rs.exceptions import DataFormatError

MAGIC = b"PEGASOS\x00"
FORMAT_VERSION = 1

#: Fitted attributes written for each estimator (those present are saved).
_ATTRIBUTES = {
    "PegasosClassifier": ["coef_", "intercept_", "classes_", "objective_", "probA_", "probB_"],
    "KernelPegasosClassifier": [
        "support_",
        "support_vectors_",
        "dual_coef_",
        "intercept_",
        "n_support_",
        "classes_",
        "shape_fit_",
        "_sv_kernel_rows",
        "probA_",
        "probB_",
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
        if arr.dtype == object and all(isinstance(v, str) for v in arr.flat):
            arr = arr.astype(str)  # string labels from a data frame's column
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
    names = getattr(estimator, "feature_names_in_", None)
    if names is not None:  # fitted on a data frame (its column names are strings)
        header["feature_names_in_"] = [str(n) for n in names]
    solver = getattr(estimator, "_solver", None)
    if solver is not None:  # the exact solver state (warm_start continues it)
        add("_solver", np.frombuffer(solver.__getstate__(), dtype=np.uint8))
    text = json.dumps(header, sort_keys=True).encode("utf-8")
    head = MAGIC + struct.pack("<IQ", FORMAT_VERSION, len(text)) + text
    body = head + b"".join(blobs)
    with open(path, "wb") as f:
        f.write(body)
        f.write(struct.pack("<I", zlib.crc32(body)))


#: dtypes an array of a model file may have: byte order, kind (bool, integers,
#: floats, str), item size.
_DTYPE = re.compile(r"[<>|=]?(b1|[iu][1248]|f[248]|U[0-9]{1,4})")


def load(path):
    """Read an estimator saved by :func:`save` (or a LIBLINEAR text model file).

    A damaged, truncated or hostile file raises
    :class:`~pegasos_rs.exceptions.DataFormatError` (a ``ValueError``) naming the file
    and what is wrong, before any array larger than the file is allocated; a file
    that loads gives a model whose arrays agree with each other.
    """
    with open(path, "rb") as f:
        raw = f.read()
    where = os.fspath(path)
    if not raw.startswith(MAGIC):
        if raw.startswith(b"solver_type"):
            return _load_liblinear(raw.decode("ascii", errors="replace"), where)
        if raw.startswith(b"svm_type"):
            raise DataFormatError(
                "a LIBSVM model file: pegasos_rs.load reads pegasos-rs and LIBLINEAR models; "
                "pegasos_rs.foreign_models.read_model (and pegasos-rs predict) read LIBSVM's",
                where,
            )
        raise DataFormatError(
            "not a pegasos-rs model file (bad magic bytes; expected a file written by "
            "pegasos_rs save or a LIBLINEAR text model)",
            where,
        )
    if len(raw) < len(MAGIC) + 16:
        raise DataFormatError(f"the file is truncated ({len(raw)} bytes)", where)
    version, hlen = struct.unpack_from("<IQ", raw, len(MAGIC))
    if version > FORMAT_VERSION:
        raise DataFormatError(
            f"model format version {version}; this pegasos-rs "
            f"({_core.__version__}) reads up to version {FORMAT_VERSION}: upgrade pegasos-rs",
            where,
        )
    if version < 1:
        raise DataFormatError(f"unknown model format version {version}", where)
    (crc,) = struct.unpack_from("<I", raw, len(raw) - 4)
    if zlib.crc32(raw[:-4]) != crc:
        raise DataFormatError("the file is corrupted or truncated (checksum mismatch)", where)
    start = len(MAGIC) + 12
    if hlen > len(raw) - 4 - start:
        raise DataFormatError(
            f"the header length {hlen} exceeds the file ({len(raw)} bytes): truncated", where
        )
    try:
        header = json.loads(raw[start : start + hlen].decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as e:
        raise DataFormatError(f"unreadable header ({e})", where) from None
    blob = memoryview(raw)[start + hlen : len(raw) - 4]
    return _build(header, blob, where)


def _bad(where: str, reason: str) -> DataFormatError:
    return DataFormatError(reason, where)


def _field(header: dict, key: str, kind: type, where: str, default=None):
    value = header.get(key, default)
    if not isinstance(value, kind):
        raise _bad(where, f"header field {key!r} must be a {kind.__name__}, got {value!r:.60}")
    return value


def _build(header, blob: memoryview, where: str):
    """The estimator described by a parsed header and the arrays' bytes."""
    if not isinstance(header, dict):
        raise _bad(where, "the header is not a JSON object")
    classes = _estimator_classes()
    name = header.get("estimator")
    if not isinstance(name, str) or name not in classes:
        raise _bad(where, f"unknown estimator {name!r:.80} (expected one of {sorted(classes)})")
    params = _field(header, "params", dict, where)
    scalars = _field(header, "scalars", dict, where, {})
    arrays = _field(header, "arrays", dict, where, {})
    sparse = _field(header, "sparse", dict, where, {})
    cls = classes[name]
    known = cls().get_params(deep=False)
    unknown = sorted(set(params) - set(known))
    if unknown:
        raise _bad(where, f"unknown parameters {unknown} for {name}")
    try:
        est = cls(**{k: _from_json(v) for k, v in params.items()})
        est._validate_params()
    except (ValueError, TypeError, RecursionError) as e:
        raise _bad(where, f"invalid parameters for {name}: {e}") from None

    def array(key):
        meta = arrays.get(key)
        if not isinstance(meta, dict):
            raise _bad(where, f"no description of array {key!r}")
        kind = meta.get("dtype")
        # Only the plain forms save writes ("<f8", "|u1", "<U3"): numpy's parser
        # of other strings can raise anything (a SyntaxError for "f8,(").
        if not (isinstance(kind, str) and _DTYPE.fullmatch(kind)):
            raise _bad(where, f"array {key}: unsupported dtype {kind!r:.40}")
        dtype = np.dtype(kind)
        shape, offset, nbytes = meta.get("shape"), meta.get("offset"), meta.get("nbytes")
        if not (
            isinstance(shape, list)
            and len(shape) <= 8
            and all(_is_count(n) for n in shape)
            and _is_count(offset)
            and _is_count(nbytes)
        ):
            raise _bad(where, f"array {key}: bad shape, offset or size in {meta!r:.200}")
        count = 1
        for n in shape:
            count *= n
        if count * dtype.itemsize != nbytes:
            raise _bad(
                where,
                f"array {key}: shape {shape} of {dtype} needs {count * dtype.itemsize} "
                f"bytes, the header says {nbytes}",
            )
        if offset + nbytes > len(blob):
            raise _bad(
                where,
                f"array {key} lies outside the file (bytes {offset} to {offset + nbytes} "
                f"of {len(blob)})",
            )
        if dtype.itemsize == 0:
            raise _bad(where, f"array {key}: empty dtype {kind!r}")
        a = np.frombuffer(blob[offset : offset + nbytes], dtype=dtype)
        return a.reshape(shape).astype(a.dtype.newbyteorder("="))

    for attr in _ATTRIBUTES[name]:
        if attr in sparse:
            meta = sparse[attr]
            shape = meta.get("shape") if isinstance(meta, dict) else None
            if not (isinstance(shape, list) and len(shape) == 2 and all(map(_is_count, shape))):
                raise _bad(where, f"sparse {attr}: bad shape in {meta!r:.200}")
            parts = [array(f"{attr}.{p}") for p in ("data", "indices", "indptr")]
            if not all(p.ndim == 1 for p in parts) or parts[1].dtype.kind not in "iu":
                raise _bad(where, f"sparse {attr}: its arrays must be 1-d, indices integers")
            try:
                value = sp.csr_matrix(tuple(parts), shape=tuple(shape))
                value.check_format(full_check=True)
            except (ValueError, TypeError, OverflowError) as e:
                raise _bad(where, f"sparse {attr}: {e}") from None
            setattr(est, attr, value)
        elif attr in arrays:
            setattr(est, attr, array(attr))
        elif attr in scalars:
            value = scalars[attr]
            if not (isinstance(value, list) and all(_is_count(n) for n in value)):
                raise _bad(where, f"{attr} must be a list of counts, got {value!r:.80}")
            setattr(est, attr, tuple(value))
    for attr, value in scalars.items():
        if attr in _SCALARS:
            ok = (
                isinstance(value, float) or _is_count(value)
                if attr == "_gamma"
                else (_is_count(value))
            )
            if not ok:
                raise _bad(where, f"{attr} must be a non-negative number, got {value!r:.80}")
            setattr(est, attr, value)
    if name == "KernelPegasosClassifier" and not hasattr(est, "_sv_kernel_rows"):
        est._sv_kernel_rows = None
    if "_solver" in arrays:
        solver = _core.LinearSolverState()
        try:
            solver.__setstate__(array("_solver").tobytes())
        except ValueError as e:
            raise _bad(where, f"the solver state cannot be read: {e}") from None
        est._solver = solver
    if name == "PegasosClassifier" and not hasattr(est, "objective_"):
        est.objective_ = None
    _check_fitted(est, name, where)
    if "feature_names_in_" in header:
        names = header["feature_names_in_"]
        if not (
            isinstance(names, list)
            and len(names) == est.n_features_in_
            and all(isinstance(n, str) for n in names)
        ):
            raise _bad(where, f"feature_names_in_ must be {est.n_features_in_} strings")
        est.feature_names_in_ = np.asarray(names, dtype=object)
    return est


def _is_count(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _check_fitted(est, name: str, where: str) -> None:
    """The fitted arrays agree with each other (shapes, dtypes, index ranges), so the
    loaded model predicts or raises ValueError, never anything worse."""

    def need(cond, what):
        if not cond:
            raise _bad(where, f"inconsistent {name}: {what}")

    for attr in ("classes_", "intercept_", "n_features_in_"):
        need(hasattr(est, attr), f"{attr} is missing")
    classes, intercept = est.classes_, est.intercept_
    need(isinstance(classes, np.ndarray) and classes.ndim == 1, "classes_ must be 1-d")
    need(classes.size >= 2, f"{classes.size} classes (expected at least 2)")
    n_out = 1 if classes.size == 2 else classes.size
    need(
        isinstance(intercept, np.ndarray) and intercept.shape == (n_out,),
        f"intercept_ must have shape ({n_out},)",
    )
    need(intercept.dtype.kind == "f", "intercept_ must hold floats")
    n_features = est.n_features_in_
    need(_is_count(n_features), "n_features_in_ must be a count")
    # Platt's sigmoids (probability=True): both or neither, one per problem.
    sigmoids = [getattr(est, attr, None) for attr in ("probA_", "probB_")]
    if any(s is not None for s in sigmoids):
        need(
            all(
                isinstance(s, np.ndarray)
                and s.shape == (n_out,)
                and s.dtype.kind == "f"
                and np.all(np.isfinite(s))
                for s in sigmoids
            ),
            f"probA_ and probB_ must be finite floats of shape ({n_out},)",
        )
    if name == "PegasosClassifier":
        coef = getattr(est, "coef_", None)
        need(
            isinstance(coef, np.ndarray) and coef.shape == (n_out, n_features),
            f"coef_ must have shape ({n_out}, {n_features})",
        )
        need(coef.dtype.kind == "f", "coef_ must hold floats")
        solver = getattr(est, "_solver", None)
        if solver is not None and len(solver) not in (0, n_out):
            need(False, f"the solver state has {len(solver)} problems, the model {n_out}")
        return
    for attr in ("support_", "support_vectors_", "dual_coef_", "n_support_"):
        need(hasattr(est, attr), f"{attr} is missing")
    support, sv, dual = est.support_, est.support_vectors_, est.dual_coef_
    need(isinstance(support, np.ndarray) and support.ndim == 1, "support_ must be 1-d")
    need(support.dtype.kind in "iu", "support_ must hold integers")
    n_sv = support.size
    need(
        isinstance(dual, np.ndarray) and dual.shape == (n_out, n_sv) and dual.dtype.kind == "f",
        f"dual_coef_ must be floats of shape ({n_out}, {n_sv})",
    )
    n_support = est.n_support_
    need(
        isinstance(n_support, np.ndarray) and n_support.shape == (classes.size,),
        f"n_support_ must have shape ({classes.size},)",
    )
    if est.kernel == "precomputed":
        shape_fit = getattr(est, "shape_fit_", None)
        need(
            isinstance(shape_fit, tuple)
            and len(shape_fit) == 2
            and all(map(_is_count, shape_fit))
            and shape_fit[0] == n_features,
            f"shape_fit_ must be two counts, the first {n_features}",
        )
        need(n_sv == 0 or (support.min() >= 0 and support.max() < n_features), "bad support_")
        return
    need(sv.ndim == 2 and sv.shape == (n_sv, n_features), f"support_vectors_ must be {n_sv} rows")
    need(sv.dtype.kind == "f", "support_vectors_ must hold floats")
    rows = est._sv_kernel_rows
    if rows is not None:
        need(
            rows.ndim == 2 and rows.shape[0] == n_sv and rows.dtype.kind == "f",
            f"_sv_kernel_rows must be floats with {n_sv} rows",
        )
        need(rows.shape[1] == n_features, "_sv_kernel_rows has the wrong number of columns")
    gamma = getattr(est, "_gamma", None)
    need(
        isinstance(gamma, (int, float)) and math.isfinite(gamma) and gamma > 0,
        "_gamma must be a positive number",
    )


def _load_liblinear(text: str, where: str):
    """A LIBLINEAR model file (any of its linear classifiers) as a PegasosClassifier
    with the same decision function."""
    from pegasos_rs.foreign_models import read_liblinear

    model = read_liblinear(text, where)
    if model.labels.size < 2:
        raise _bad(where, f"{model.labels.size} class (a classifier needs at least 2)")
    return model.to_classifier()
