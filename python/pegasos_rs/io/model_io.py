"""Model files: a portable, versioned format that is not pickle.

Layout (all integers little-endian)::

    8 bytes   magic b"PEGASOS\\x00"
    4 bytes   format version (uint32)
    8 bytes   header length H (uint64)
    H bytes   header, UTF-8 JSON
    ...       the arrays' bytes, one after the other, each little-endian
    4 bytes   CRC-32 of everything before it

The header of one estimator holds ``{"estimator": class name, "library_version": ...,
"params": get_params(), "scalars": {...}, "arrays": {name: {"dtype", "shape",
"offset", "nbytes"}}, "sparse": {name: {"shape", "format": "csr"}}}``; a sparse
attribute is stored as the three arrays ``name.data``, ``name.indices``,
``name.indptr``. A scikit-learn ``Pipeline`` is ``{"estimator": "Pipeline",
"library_version": ..., "params": {"memory", "verbose"}, "steps": [...]}``, each step
``{"name": ..., "estimator": "passthrough"}`` or an estimator's entry as above with its
``"name"``, all steps' arrays in the one byte area after the header (offsets from its
start).

The format version is 1, for every file; only files of version 1 are read (a file
of any other version raises :class:`~pegasos_rs.exceptions.DataFormatError` naming
it). A file holds :class:`PegasosClassifier`, :class:`KernelPegasosClassifier`,
:class:`PegasosRegressor`, :class:`KernelPegasosRegressor`, :class:`PegasosRanker`,
the feature maps (:class:`Nystroem`, :class:`RandomFourierFeatures`,
:class:`AdditiveKernelMap`), scikit-learn's ``StandardScaler`` and ``MaxAbsScaler``
(saved by their fitted attributes) and Pipelines of these, with all their
parameters. ``Nystroem.normalization_`` is stored in scikit-learn's orientation
(``transform(X) = kernel(X, components_) @ normalization_.T``).

What a file holds of an estimator (arrays, header scalars, fit report, solver
state) is what its class declares as its ``_saved_state``
(:class:`pegasos_rs.io._model_file.SavedState`; scikit-learn's scalers' in
:mod:`pegasos_rs.io._saved_transformers`): this module reads and writes exactly those
attributes, by those names, and names no estimator's private attribute itself.

Nothing in a file is executed when it is read: only known estimator classes are
built, with parameters that are JSON values, so loading an untrusted file is safe
(unlike pickle).

``load`` also reads LIBLINEAR's text model files of classifiers (``train``'s output)
into a :class:`PegasosClassifier`, so that models can move over (the parser is
:mod:`pegasos_rs.io.foreign_models`, which also reads LIBLINEAR's regression and
one-class models and LIBSVM's model files; ``load`` refuses those, naming it).
"""

from __future__ import annotations

import json
import os
import re
import struct
import zlib
from typing import TYPE_CHECKING, Any

import numpy as np

# scipy and scikit-learn are imported where they are needed: ``pegasos-rs predict``
# reads a linear classifier's file through this module without them
# (``_load_linear_classifier``).
from pegasos_rs import _core, _linear_solver, _registry
from pegasos_rs._fitted import fit_params, record
from pegasos_rs.exceptions import DataFormatError
from pegasos_rs.io import _model_file
from pegasos_rs.io._model_file import FORMAT_VERSION, MAGIC, SavedState

if TYPE_CHECKING:
    from pegasos_rs._typing import PathLike


#: Top-level packages whose classes may be saved (a subclass defined elsewhere may
#: change what its parent computes, so it is refused).
_MODULES = ("pegasos_rs", "sklearn")


def _states() -> dict[str, tuple[type, SavedState]]:
    """The saveable classes by name, each with what a file holds of it: the
    package's classes declare it (``_saved_state``, next to their code),
    scikit-learn's scalers have theirs in :mod:`pegasos_rs.io._saved_transformers`."""
    from pegasos_rs.io import _saved_transformers

    found: dict[str, tuple[type, SavedState]] = {}
    for name, cls in _registry.classes().items():
        state = getattr(cls, "_saved_state", None)
        if isinstance(state, SavedState):
            found[name] = (cls, state)
    for name, cls in _saved_transformers.classes().items():
        found[name] = (cls, _saved_transformers.SAVED_STATE[name])
    return found


def _from_json(value):
    if isinstance(value, dict) and "__array__" in value:
        return np.asarray(value["__array__"])
    if isinstance(value, dict) and "__dict__" in value:
        return {_from_json(k): _from_json(v) for k, v in value["__dict__"]}
    if isinstance(value, list):
        return [_from_json(v) for v in value]
    return value


def _spec(estimator, what: str):
    """The class name under which ``estimator`` is saved; TypeError if it cannot be."""
    name = type(estimator).__name__
    known = {n: cls for n, (cls, _) in _states().items()}
    module = type(estimator).__module__.partition(".")[0]
    if name not in known or not isinstance(estimator, known[name]) or module not in _MODULES:
        saveable = ", ".join(sorted(known))
        raise TypeError(
            f"{what} cannot be saved: pegasos-rs model files hold {saveable} and Pipelines of them"
        )
    return name


def _fitted(estimator, state: SavedState) -> bool:
    from sklearn.exceptions import NotFittedError
    from sklearn.utils.validation import check_is_fitted

    if state.fitted is not None:
        return hasattr(estimator, state.fitted)
    try:
        check_is_fitted(estimator)
    except NotFittedError:
        return False
    return True


def _describe(estimator, add, what: str) -> dict:
    """The header entry of one fitted estimator; its arrays go through ``add``."""
    name = _spec(estimator, what)
    state = _states()[name][1]
    if not _fitted(estimator, state):
        raise ValueError(f"{what} is not fitted yet; call fit first")
    # The parameters the model was fitted with, whatever set_params did since.
    params = fit_params(estimator)
    return _model_file.describe(name, params, estimator, add, state)


def _pipeline_header(pipeline, add) -> dict:
    """The header of a Pipeline: its settings and one entry per step, in order."""
    params = pipeline.get_params(deep=False)
    memory = params.get("memory")
    if not (memory is None or isinstance(memory, str)):
        raise TypeError(
            f"the Pipeline's memory={memory!r:.80} cannot be saved; use a directory path or None"
        )
    settings = {"memory": memory, "verbose": bool(params.get("verbose", False))}
    if params.get("transform_input") is not None:
        settings["transform_input"] = _model_file.jsonable(params["transform_input"])
    steps = []
    for i, step in enumerate(pipeline.steps):
        if not (isinstance(step, tuple) and len(step) == 2 and isinstance(step[0], str)):
            raise TypeError(f"pipeline step {i} is not a (name, estimator) pair: {step!r:.80}")
        step_name, est = step
        if est is None or (isinstance(est, str) and est == "passthrough"):
            steps.append({"name": step_name, "estimator": "passthrough"})
            continue
        what = f"pipeline step {step_name!r} ({type(est).__name__})"
        if isinstance(est, str):
            raise TypeError(f"{what}: only 'passthrough' may stand for a step")
        entry = _describe(est, add, what)
        entry["name"] = step_name
        steps.append(entry)
    return {"estimator": "Pipeline", "params": settings, "steps": steps}


def save(estimator: Any, path: PathLike) -> None:
    """Write a fitted estimator to ``path`` in pegasos-rs' portable format.

    Parameters
    ----------
    estimator : estimator or Pipeline
        A fitted :class:`PegasosClassifier`, :class:`KernelPegasosClassifier`,
        :class:`Nystroem`, :class:`RandomFourierFeatures`, :class:`AdditiveKernelMap`,
        scikit-learn ``StandardScaler`` or ``MaxAbsScaler``, or a scikit-learn
        ``Pipeline`` of them (``"passthrough"`` steps included). Parameters must be
        plain values (an int ``random_state``, not a ``RandomState``).
    path : str or path-like
        The file to write (replaced if it exists).

    Raises
    ------
    TypeError
        For an estimator (or pipeline step, named with its class) that cannot be saved.
    ValueError
        For an estimator (or step) that is not fitted.

    Notes
    -----
    Everything is checked before the file is opened; if writing fails midway (a
    full disk), the partial file is removed. Every file is format version 1.
    """
    arrays = _model_file.Arrays()
    if _is_pipeline(estimator):
        header = _pipeline_header(estimator, arrays.add)
    else:
        header = _describe(estimator, arrays.add, f"a {type(estimator).__name__}")
    _model_file.write(path, header, arrays)


def _is_pipeline(estimator) -> bool:
    from sklearn.pipeline import Pipeline

    return isinstance(estimator, Pipeline)


#: dtypes an array of a model file may have: byte order, kind (bool, integers,
#: floats, str), item size.
_DTYPE = re.compile(r"[<>|=]?(b1|[iu][1248]|f[248]|U[0-9]{1,4})")


def load(path: PathLike) -> Any:
    """Read an estimator or Pipeline saved by :func:`save` (or a LIBLINEAR classifier's
    text model file, as a :class:`PegasosClassifier`; its regression and one-class
    models are read by :func:`pegasos_rs.io.foreign_models.read_model`).

    Parameters
    ----------
    path : str or path-like

    Returns
    -------
    estimator
        The fitted estimator, or a scikit-learn ``Pipeline`` with the saved step
        names, ``memory`` and ``verbose``; it predicts and transforms exactly (bit for
        bit) as the saved one did.

    Raises
    ------
    DataFormatError
        A damaged, truncated or hostile file raises
        :class:`~pegasos_rs.exceptions.DataFormatError` (a ``ValueError``) naming the
        file (and the pipeline step) and what is wrong, before any array larger than
        the file is allocated; a file that loads gives a model whose arrays agree with
        each other.
    """
    raw, where = _read(path)
    if not raw.startswith(MAGIC):
        if raw.startswith(b"solver_type"):
            return _load_liblinear(raw.decode("ascii", errors="replace"), where)
        if raw.startswith(b"svm_type"):
            raise DataFormatError(
                "a LIBSVM model file: pegasos_rs.load reads pegasos-rs and LIBLINEAR models; "
                "pegasos_rs.io.foreign_models.read_model (and pegasos-rs predict) read LIBSVM's",
                where,
            )
        raise DataFormatError(
            "not a pegasos-rs model file (bad magic bytes; expected a file written by "
            "pegasos_rs save or a LIBLINEAR text model)",
            where,
        )
    header, blob = _parse(raw, where)
    return _build(header, blob, where)


def _load_linear_classifier(path: PathLike) -> Any:
    """The :class:`PegasosClassifier` a model file holds, read without scikit-learn
    or scipy as a ``pegasos_rs._linear_solver.LinearModel`` (its parameters and
    fitted attributes), or ``None`` when the file holds anything else or is not
    one :func:`load` reads (:func:`load` then reads it, or says why not).

    What ``pegasos-rs predict`` reads the files of ``pegasos-rs train`` with: the
    same checks of the fitted attributes as :func:`load`, but the parameters, which
    prediction does not read, are only checked to be the classifier's (not their
    values: scikit-learn's validation is what importing it would cost).
    """
    try:
        raw, where = _read(path)
        if not raw.startswith(MAGIC):
            return None
        header, blob = _parse(raw, where)
        if not (isinstance(header, dict) and header.get("estimator") == _linear_solver.NAME):
            return None
        params = header.get("params")
        if not (isinstance(params, dict) and set(params) <= set(_linear_solver.PARAMETERS)):
            return None
        model = _linear_solver.LinearModel({k: _from_json(v) for k, v in params.items()})
        _fill(model, _linear_solver.NAME, _linear_solver.SAVED_STATE, header, blob, where, "")
    except Exception:  # load reads the file again and says what is wrong
        return None
    return model


def _read(path: PathLike) -> tuple[bytes, str]:
    """The bytes of the file at ``path`` and its name for messages."""
    with open(path, "rb") as f:
        raw = f.read()
    return raw, os.fspath(path)


def _parse(raw: bytes, where: str) -> tuple[Any, memoryview]:
    """The parsed header and the arrays' bytes of a pegasos-rs model file's bytes
    ``raw`` (its magic bytes already checked): the version, the checksum and the
    header's length and JSON are checked here."""
    if len(raw) < len(MAGIC) + 16:
        raise DataFormatError(f"the file is truncated ({len(raw)} bytes)", where)
    version, hlen = struct.unpack_from("<IQ", raw, len(MAGIC))
    if version != FORMAT_VERSION:
        raise DataFormatError(
            f"model format version {version}; this pegasos-rs ({_core.__version__}) "
            f"reads version {FORMAT_VERSION} only (files of other versions were written by "
            "another pegasos-rs: save the model again with it)",
            where,
        )
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
    return header, memoryview(raw)[start + hlen : len(raw) - 4]


def _bad(where: str, reason: str) -> DataFormatError:
    return DataFormatError(reason, where)


def _field(header: dict, key: str, kind: type, bad, default=None):
    value = header.get(key, default)
    if not isinstance(value, kind):
        raise bad(f"header field {key!r} must be a {kind.__name__}, got {value!r:.60}")
    return value


def _build(header, blob: memoryview, where: str):
    """The estimator described by a parsed header and the arrays' bytes."""
    if not isinstance(header, dict):
        raise _bad(where, "the header is not a JSON object")
    if header.get("estimator") == "Pipeline":
        return _build_pipeline(header, blob, where)
    return _build_one(header, blob, where, "")


#: Pipeline settings a file may hold, with the types they must have.
_PIPELINE_PARAMS: dict[str, Any] = {
    "memory": (str, type(None)),
    "verbose": bool,
    "transform_input": list,
}


def _build_pipeline(header: dict, blob: memoryview, where: str):
    """A scikit-learn Pipeline: its settings and its steps, each checked."""
    from sklearn.pipeline import Pipeline

    def bad(reason):
        return _bad(where, reason)

    params = _field(header, "params", dict, bad)
    entries = _field(header, "steps", list, bad)
    for key, value in params.items():
        kind = _PIPELINE_PARAMS.get(key)
        if (
            kind is None
            or not isinstance(value, kind)
            or (key == "transform_input" and not all(isinstance(v, str) for v in value))
        ):
            raise bad(f"bad Pipeline setting {key!r:.40}: {value!r:.60}")
    known = Pipeline([("a", "passthrough")]).get_params(deep=False)
    if not set(params) <= set(known):
        raise bad(f"this scikit-learn's Pipeline has no {sorted(set(params) - set(known))}")
    if not entries:
        raise bad("a Pipeline needs at least one step")
    steps: list[tuple[str, Any]] = []
    for i, entry in enumerate(entries):
        if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
            raise bad(f"pipeline step {i} has no name")
        name, kind = entry["name"], entry.get("estimator")
        if not name or "__" in name or name in known or name in {n for n, _ in steps}:
            raise bad(f"pipeline step {i}: bad or repeated step name {name!r:.80}")
        if kind == "passthrough":
            steps.append((name, "passthrough"))
            continue
        est = _build_one(entry, blob, where, f"pipeline step {name!r} ({kind!s:.40}): ")
        if i < len(entries) - 1 and not hasattr(est, "transform"):
            raise bad(f"pipeline step {name!r} ({kind}) comes before the last but has no transform")
        steps.append((name, est))
    try:
        pipeline = Pipeline(steps, **params)
        pipeline._validate_params()
    except (ValueError, TypeError) as e:
        raise bad(f"invalid Pipeline settings: {e}") from None
    return pipeline


def _build_one(header: dict, blob: memoryview, where: str, prefix: str):
    """One estimator from its header entry (``prefix`` starts its error messages)."""

    def bad(reason):
        return _bad(where, prefix + reason)

    states = _states()
    name = header.get("estimator")
    if not isinstance(name, str) or name not in states:
        raise bad(f"unknown estimator {name!r:.80} (expected one of {sorted(states)})")
    params = _field(header, "params", dict, bad)
    cls, state = states[name]
    known = cls().get_params(deep=False)
    unknown = sorted(set(params) - set(known))
    if unknown:
        raise bad(f"unknown parameters {unknown} for {name}")
    try:
        est = cls(**{k: _from_json(v) for k, v in params.items()})
        est._validate_params()
    except (ValueError, TypeError, RecursionError) as e:
        raise bad(f"invalid parameters for {name}: {e}") from None

    _fill(est, name, state, header, blob, where, prefix)
    record(est)  # the file's parameters are those of the fit
    return est


def _fill(
    est: Any, name: str, state: SavedState, header: dict, blob: memoryview, where: str, prefix: str
) -> None:
    """Set on ``est`` (an estimator of class ``name``, or the command line's
    ``LinearModel``) the fitted attributes ``state`` declares, from its header entry
    and the arrays' bytes, and check that they agree with each other."""

    def bad(reason):
        return _bad(where, prefix + reason)

    scalars = _field(header, "scalars", dict, bad, {})
    arrays = _field(header, "arrays", dict, bad, {})
    sparse = _field(header, "sparse", dict, bad, {})

    def array(key):
        meta = arrays.get(key)
        if not isinstance(meta, dict):
            raise bad(f"no description of array {key!r}")
        kind = meta.get("dtype")
        # Only the plain forms save writes ("<f8", "|u1", "<U3"): numpy's parser
        # of other strings can raise anything (a SyntaxError for "f8,(").
        if not (isinstance(kind, str) and _DTYPE.fullmatch(kind)):
            raise bad(f"array {key}: unsupported dtype {kind!r:.40}")
        dtype = np.dtype(kind)
        shape, offset, nbytes = meta.get("shape"), meta.get("offset"), meta.get("nbytes")
        if not (
            isinstance(shape, list)
            and len(shape) <= 8
            and all(_is_count(n) for n in shape)
            and _is_count(offset)
            and _is_count(nbytes)
        ):
            raise bad(f"array {key}: bad shape, offset or size in {meta!r:.200}")
        count = 1
        for n in shape:
            count *= n
        if count * dtype.itemsize != nbytes:
            raise bad(
                f"array {key}: shape {shape} of {dtype} needs {count * dtype.itemsize} "
                f"bytes, the header says {nbytes}",
            )
        if offset + nbytes > len(blob):
            raise bad(
                f"array {key} lies outside the file (bytes {offset} to {offset + nbytes} "
                f"of {len(blob)})",
            )
        if dtype.itemsize == 0:
            raise bad(f"array {key}: empty dtype {kind!r}")
        a = np.frombuffer(blob[offset : offset + nbytes], dtype=dtype)
        return a.reshape(shape).astype(a.dtype.newbyteorder("="))

    for attr in state.arrays:
        if attr in sparse:
            meta = sparse[attr]
            shape = meta.get("shape") if isinstance(meta, dict) else None
            if not (isinstance(shape, list) and len(shape) == 2 and all(map(_is_count, shape))):
                raise bad(f"sparse {attr}: bad shape in {meta!r:.200}")
            parts = [array(f"{attr}.{p}") for p in ("data", "indices", "indptr")]
            if not all(p.ndim == 1 for p in parts) or parts[1].dtype.kind not in "iu":
                raise bad(f"sparse {attr}: its arrays must be 1-d, indices integers")
            import scipy.sparse as sp

            try:
                value = sp.csr_matrix(tuple(parts), shape=tuple(shape))
                value.check_format(full_check=True)
            except (ValueError, TypeError, OverflowError) as e:
                raise bad(f"sparse {attr}: {e}") from None
            setattr(est, attr, value)
        elif attr in arrays:
            value = array(attr)
            setattr(est, attr, value[()] if value.ndim == 0 else value)
        elif attr in scalars and attr not in state.scalars:  # a tuple of counts
            value = scalars[attr]
            if not (isinstance(value, list) and all(_is_count(n) for n in value)):
                raise bad(f"{attr} must be a list of counts, got {value!r:.80}")
            setattr(est, attr, tuple(value))
    _set_scalars(est, state, scalars, bad)
    if "feature_names_in_" in scalars:
        names = scalars["feature_names_in_"]
        if not (isinstance(names, list) and all(isinstance(v, str) for v in names)):
            raise bad(f"feature_names_in_ must be a list of strings, got {names!r:.80}")
        est.feature_names_in_ = np.asarray(names, dtype=object)
    for attr in state.optional:
        if not hasattr(est, attr):
            setattr(est, attr, None)
    if state.solver is not None and state.solver in arrays:
        solver = _core.LinearSolverState()
        try:
            solver.__setstate__(array(state.solver).tobytes())
        except ValueError as e:
            raise bad(f"the solver state cannot be read: {e}") from None
        setattr(est, state.solver, solver)

    def need(cond, what):
        if not cond:
            raise bad(f"inconsistent {name}: {what}")

    _check_public(est, name, need)
    if state.check is not None:
        state.check(est, need)
    n_names = getattr(est, "feature_names_in_", None)
    need(n_names is None or n_names.size == est.n_features_in_, "one feature name per feature")


def _fit_report(state: SavedState, value, bad) -> list[dict]:
    """A kernel fit's ``fit_report_`` read from a file, checked entry by entry
    against the keys its class declares (``report_keys``)."""
    keys = set(state.report_keys or ())

    def ok(key: str, v) -> bool:
        if key == "strategy":
            return v in ("support", "margins", "budget")
        if key == "objective":
            return v is None or (isinstance(v, (int, float)) and not isinstance(v, bool))
        if key == "switched_at":
            return v is None or _is_count(v)
        return _is_count(v)

    if not (
        isinstance(value, list)
        and all(isinstance(r, dict) and set(r) == keys for r in value)
        and all(ok(k, r[k]) for r in value for k in r)
    ):
        raise bad(f"fit_report_ must be a list of per-problem reports, got {value!r:.80}")
    return [{k: r[k] for k in state.report_keys or ()} for r in value]


#: What a scalar of each kind (:class:`~pegasos_rs.io._model_file.SavedState`) may be,
#: and how a message names it.
_KINDS = {
    "count": (lambda v: _is_count(v), "non-negative number"),
    "real": (lambda v: isinstance(v, float) or _is_count(v), "non-negative number"),
    "number": (lambda v: isinstance(v, (int, float)) and not isinstance(v, bool), "number"),
    "str": (lambda v: isinstance(v, str), "str"),
    "seen": (lambda v: _is_count(v) or (isinstance(v, float) and v >= 0), "non-negative number"),
}


def _set_scalars(est, state: SavedState, scalars: dict, bad) -> None:
    """Set the scalars ``state`` declares (of their kinds) and the fit report."""
    for attr, value in scalars.items():
        if attr == "fit_report_":
            if state.report_keys is None:
                raise bad(f"a {type(est).__name__} has no fit_report_")
            est.fit_report_ = _fit_report(state, value, bad)
            continue
        kind = state.scalars.get(attr)
        if kind is None:
            continue
        ok, what = _KINDS[kind]
        if not ok(value):
            raise bad(f"{attr} must be a {what}, got {value!r:.80}")
        setattr(est, attr, value)


def _trained_pairs(est, name: str, need) -> bool:
    """Whether a loaded classifier of more than two classes trained a problem per pair
    of classes: a kernel model's ``multi_class_`` (files written before it was saved:
    its ``multi_class``, where ``"auto"`` resolves from the classes and the training
    rows ``shape_fit_[0]``, as fit resolved it); a linear model's ``multi_class``."""
    asked = getattr(est, "multi_class", "ovr")
    if name != "KernelPegasosClassifier":
        return asked == "ovo"
    from pegasos_rs._kernel_expansion import multi_class_used

    shape = getattr(est, "shape_fit_", None)
    need(
        isinstance(shape, tuple) and len(shape) == 2 and all(map(_is_count, shape)),
        "shape_fit_ must be two counts",
    )
    resolved = multi_class_used(asked, est.classes_.size, est.shape_fit_[0])
    if not hasattr(est, "multi_class_"):
        est.multi_class_ = resolved
    need(est.multi_class_ == resolved, f"multi_class_ must be {resolved!r} (multi_class={asked!r})")
    return est.multi_class_ == "ovo"


def _is_count(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


#: The predictors whose public fitted attributes :func:`_check_public` checks.
_PREDICTORS = (
    "PegasosClassifier",
    "KernelPegasosClassifier",
    "PegasosRegressor",
    "PegasosRanker",
    "KernelPegasosRegressor",
)


def _check_public(est, name: str, need) -> None:
    """The public fitted arrays of a loaded model agree with each other (shapes,
    dtypes, index ranges), so that, with its class's own checks of the rest
    (``SavedState.check``), the model predicts or raises ValueError, never anything
    worse. Transformers have only their class's checks."""
    if name not in _PREDICTORS:
        return
    if name == "PegasosRegressor":
        _check_regressor(est, need)
        return
    if name == "PegasosRanker":
        _check_regressor(est, need, intercept=False)
        return
    if name == "KernelPegasosRegressor":
        need(_is_count(getattr(est, "n_features_in_", None)), "n_features_in_ must be a count")
        intercept = getattr(est, "intercept_", None)
        need(
            isinstance(intercept, np.ndarray)
            and intercept.shape == (1,)
            and intercept.dtype.kind == "f",
            "intercept_ must be floats of shape (1,)",
        )
        n_support = getattr(est, "n_support_", None)
        need(
            isinstance(n_support, np.ndarray) and n_support.shape == (1,),
            "n_support_ must have shape (1,)",
        )
        _check_expansion(est, 1, est.n_features_in_, need)
        return
    for attr in ("classes_", "intercept_", "n_features_in_"):
        need(hasattr(est, attr), f"{attr} is missing")
    classes, intercept = est.classes_, est.intercept_
    need(isinstance(classes, np.ndarray) and classes.ndim == 1, "classes_ must be 1-d")
    need(classes.size >= 2, f"{classes.size} classes (expected at least 2)")
    n_out = 1 if classes.size == 2 else classes.size
    # One-vs-one kernel models: a binary problem per pair of classes.
    pairs = _trained_pairs(est, name, need) and classes.size > 2
    n_problems = classes.size * (classes.size - 1) // 2 if pairs else n_out
    need(
        isinstance(intercept, np.ndarray) and intercept.shape == (n_problems,),
        f"intercept_ must have shape ({n_problems},)",
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
        coef: Any = getattr(est, "coef_", None)  # checked by need()
        need(
            isinstance(coef, np.ndarray) and coef.shape == (n_out, n_features),
            f"coef_ must have shape ({n_out}, {n_features})",
        )
        need(coef.dtype.kind == "f", "coef_ must hold floats")
        return
    n_support = getattr(est, "n_support_", None)
    need(
        isinstance(n_support, np.ndarray) and n_support.shape == (classes.size,),
        f"n_support_ must have shape ({classes.size},)",
    )
    _check_expansion(est, n_problems, n_features, need)


def _check_expansion(est, n_problems: int, n_features: int, need) -> None:
    """The support vectors and their coefficients (``n_problems`` rows) of a kernel
    model agree with each other."""
    for attr in ("support_", "support_vectors_", "dual_coef_"):
        need(hasattr(est, attr), f"{attr} is missing")
    support, sv, dual = est.support_, est.support_vectors_, est.dual_coef_
    need(isinstance(support, np.ndarray) and support.ndim == 1, "support_ must be 1-d")
    need(support.dtype.kind in "iu", "support_ must hold integers")
    n_sv = support.size
    need(
        isinstance(dual, np.ndarray)
        and dual.shape == (n_problems, n_sv)
        and dual.dtype.kind == "f",
        f"dual_coef_ must be floats of shape ({n_problems}, {n_sv})",
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


def _check_regressor(est, need, *, intercept: bool = True) -> None:
    """:func:`_check_public` for a linear regressor (or, without ``intercept_``, a
    ranker)."""
    coef = getattr(est, "coef_", None)
    n_features = getattr(est, "n_features_in_", None)
    need(_is_count(n_features), "n_features_in_ must be a count")
    need(not intercept or hasattr(est, "intercept_"), "intercept_ is missing")
    need(
        isinstance(coef, np.ndarray) and coef.shape == (n_features,) and coef.dtype.kind == "f",
        f"coef_ must be floats of shape ({n_features},)",
    )
    need(
        not intercept
        or (
            isinstance(est.intercept_, np.ndarray)
            and est.intercept_.shape == (1,)
            and est.intercept_.dtype.kind == "f"
        ),
        "intercept_ must be floats of shape (1,)",
    )
    objective = est.objective_
    need(
        objective is None or isinstance(objective, (float, np.floating)),
        "objective_ must be a number",
    )


def _load_liblinear(text: str, where: str):
    """A LIBLINEAR model file (any of its linear classifiers) as a PegasosClassifier
    with the same decision function."""
    model = _registry.text_reader("liblinear")(text, where)
    if model.labels.size < 2:
        raise _bad(where, f"{model.labels.size} class (a classifier needs at least 2)")
    return model.to_classifier()
