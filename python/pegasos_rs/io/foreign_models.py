"""Model files written by LIBLINEAR and LIBSVM, predicting exactly as those
libraries' ``predict`` programs do.

:func:`read_model` reads any model file ``pegasos-rs predict`` accepts and tells
them apart by their first line: pegasos-rs' binary format (:mod:`pegasos_rs.io.model_io`),
LIBLINEAR's text format (first line ``solver_type ...``) or LIBSVM's (first line
``svm_type ...``).

* :class:`LiblinearModel`: LIBLINEAR's linear classifiers (``L2R_LR``,
  ``L2R_L2LOSS_SVC_DUAL``, ``L2R_L2LOSS_SVC``, ``L2R_L1LOSS_SVC_DUAL``, ``MCSVM_CS``,
  ``L1R_L2LOSS_SVC``, ``L1R_LR``, ``L2R_LR_DUAL``: ``train -s 0`` to ``7``) score
  ``w.x + bias w_bias``; two classes predict ``label[0]`` when the first score is
  positive, else ``label[1]``; more classes predict the label of the first largest
  score (labels in the file's order). The logistic regression models (``-s 0``,
  ``6``, ``7``) give LIBLINEAR's probabilities (``predict -b 1``). LIBLINEAR's
  one-class SVM (``ONECLASS_SVM``, ``-s 21``) scores ``w.x - rho`` and predicts
  ``+1`` where it is positive, else ``-1``.
* :class:`LiblinearRegressionModel`: LIBLINEAR's support vector regression models
  (``L2R_L2LOSS_SVR``, ``L2R_L2LOSS_SVR_DUAL``, ``L2R_L1LOSS_SVR_DUAL``: ``train -s
  11``, ``12``, ``13``) predict the value ``w.x + bias w_bias``.
* :class:`LibsvmModel`: LIBSVM's ``c_svc`` and ``nu_svc`` models with the ``linear``,
  ``polynomial``, ``rbf`` or ``sigmoid`` kernel predict through their support
  vectors: every pair of classes ``i < j`` (in the file's label order) has the
  decision value ``sum_{s in i} coef[j-1]_s K(sv_s, x) + sum_{s in j} coef[i]_s
  K(sv_s, x) - rho_p``, a positive value is a vote for ``i``, otherwise for ``j``,
  and the first class with the most votes wins (LIBSVM's ``svm_predict_values``).
* :class:`LibsvmRegressionModel`: LIBSVM's ``epsilon_svr`` and ``nu_svr`` models
  (``svm-train -s 3``, ``-s 4``) with the same kernels predict the value
  ``sum_s coef_s K(sv_s, x) - rho``.
* :class:`LibsvmOneClassModel`: LIBSVM's ``one_class`` models (``svm-train -s 2``)
  score ``sum_s coef_s K(sv_s, x) - rho`` and predict ``+1`` where it is positive,
  else ``-1``.

The kernel values of the LIBSVM models come from the Rust kernels of
:func:`pegasos_rs.pairwise_kernels`, many rows at a time; LIBLINEAR's scores from
the Rust products the estimators use. The values agree with LIBLINEAR's and LIBSVM's
to the last bits (the sums are added in another order), and so do the predicted
labels, except where a score lies within that rounding of a tie.
LIBSVM's precomputed kernels are refused. The regression models have ``predict``
only (no ``decision_function``, ``predict_proba`` or classes).

Feature indices in both formats are 1-based, as in svmlight files: column ``j`` of
``X`` is feature ``j + 1``. LIBSVM's support-vector lines (``c1 ... ck index:value
...``, ``k = nr_class - 1``) are svmlight lines with ``k`` numbers for a label and
are read by the Rust svmlight parser (values correctly rounded, as C's ``strtod``).
Malformed files raise :class:`~pegasos_rs.exceptions.DataFormatError` naming the
file and the line (and, in the support vectors, the column).
"""

from __future__ import annotations

import math
import os
from typing import TYPE_CHECKING, Any, NoReturn

import numpy as np
import scipy.sparse as sp
from pegasos_rs import _core, _registry
from pegasos_rs._docs import filled
from pegasos_rs._validation import as_rust_matrix, buffer, n_threads
from pegasos_rs.exceptions import DataFormatError
from pegasos_rs.io import model_io
from sklearn.utils import check_array

if TYPE_CHECKING:
    from pegasos_rs._typing import Int, MatrixLike, PathLike
    from pegasos_rs.linear import PegasosClassifier

__all__ = [
    "LiblinearModel",
    "LiblinearRegressionModel",
    "LibsvmModel",
    "LibsvmRegressionModel",
    "read_liblinear",
    "read_libsvm",
    "read_model",
]

#: LIBLINEAR's classifiers, all predicting from ``w.x + b``.
LIBLINEAR_CLASSIFIERS = (
    "L2R_LR",
    "L2R_L2LOSS_SVC_DUAL",
    "L2R_L2LOSS_SVC",
    "L2R_L1LOSS_SVC_DUAL",
    "MCSVM_CS",
    "L1R_L2LOSS_SVC",
    "L1R_LR",
    "L2R_LR_DUAL",
)
#: LIBLINEAR's support vector regression solvers (``train -s 11``, ``12``, ``13``),
#: predicting the value ``w.x + b``.
LIBLINEAR_REGRESSORS = ("L2R_L2LOSS_SVR", "L2R_L2LOSS_SVR_DUAL", "L2R_L1LOSS_SVR_DUAL")
#: LIBLINEAR's one-class SVM (``train -s 21``): ``+1`` where ``w.x - rho > 0``, else ``-1``.
LIBLINEAR_ONE_CLASS = "ONECLASS_SVM"
#: LIBLINEAR's logistic regression solvers, whose models give probabilities (its
#: ``check_probability_model``).
LIBLINEAR_PROBABILITY = ("L2R_LR", "L1R_LR", "L2R_LR_DUAL")
_LIBLINEAR_KEYS = ("solver_type", "nr_class", "label", "nr_feature", "bias", "rho")

#: LIBSVM's kernel names (``kernel_type``) and scikit-learn's (ours).
LIBSVM_KERNELS = {"linear": "linear", "polynomial": "poly", "rbf": "rbf", "sigmoid": "sigmoid"}
LIBSVM_CLASSIFIERS = ("c_svc", "nu_svc")
#: LIBSVM's regression models (``svm-train -s 3``, ``-s 4``).
LIBSVM_REGRESSORS = ("epsilon_svr", "nu_svr")
#: LIBSVM's one-class SVM (``svm-train -s 2``).
LIBSVM_ONE_CLASS = "one_class"
_LIBSVM_KEYS = (
    "svm_type",
    "kernel_type",
    "degree",
    "gamma",
    "coef0",
    "nr_class",
    "total_sv",
    "rho",
    "label",
    "probA",
    "probB",
    "prob_density_marks",
    "nr_sv",
)

#: Kernel values computed at once when predicting (rows x support vectors): 32 MB.
_KERNEL_BLOCK = 1 << 22


def read_model(path: PathLike) -> Any:
    """Read a model file ``pegasos-rs predict`` accepts, whatever wrote it.

    Parameters
    ----------
    path : str or os.PathLike
        A file written by pegasos-rs (``save``), LIBLINEAR's ``train`` or LIBSVM's
        ``svm-train`` (or their Python bindings' ``save_model``).

    Returns
    -------
    model : estimator or a LIBLINEAR or LIBSVM model
        The pegasos-rs estimator for pegasos-rs' files (as :func:`pegasos_rs.load`);
        for LIBLINEAR's files a :class:`LiblinearModel` (classifiers, one-class SVM)
        or a :class:`LiblinearRegressionModel`, for LIBSVM's a :class:`LibsvmModel`
        (classifiers) or a :class:`LibsvmRegressionModel`. Each has ``predict(X)``.

    Raises
    ------
    DataFormatError
        The file is none of these, is damaged or truncated, or holds a model type
        that cannot be evaluated here (the message says which types can); the
        message names the file and the line.
    """
    with open(path, "rb") as f:
        raw = f.read()
    where = os.fspath(path)
    if isinstance(where, bytes):
        where = os.fsdecode(where)
    if raw.startswith(model_io.MAGIC):
        return model_io.load(path)
    first = raw.lstrip()[:32]
    if first.startswith(b"solver_type"):
        return read_liblinear(raw.decode("utf-8", errors="replace"), where)
    if first.startswith(b"svm_type"):
        return read_libsvm(raw.decode("utf-8", errors="replace"), where)
    raise DataFormatError(
        "not a model file pegasos-rs reads: expected a file written by pegasos-rs, a "
        "LIBLINEAR model (first line 'solver_type ...') or a LIBSVM model (first line "
        "'svm_type ...')",
        where,
    )


# ----------------------------------------------------------------------------------
# Reading the text formats


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


@filled
def read_liblinear(text: str, where: str = "<model>") -> LiblinearModel | LiblinearRegressionModel:
    """Parse the text of a LIBLINEAR model file.

    {reader_parameters}

    Returns
    -------
    model : LiblinearModel or LiblinearRegressionModel
        A :class:`LiblinearRegressionModel` for the regression solvers (``train -s
        11``, ``12``, ``13``), a :class:`LiblinearModel` for the others (the
        classifiers and the one-class SVM).

    Raises
    ------
    DataFormatError
        Malformed or truncated text, or an unknown solver type.
    """
    return _parse_liblinear(text, where)[0]


def _parse_liblinear(text: str, where: str):
    """The model of a LIBLINEAR model file and its header (for the line numbers)."""
    lines = text.splitlines()
    fmt = "LIBLINEAR"
    header = _Header(lines, "w", _LIBLINEAR_KEYS, where, fmt)
    solver = header.value("solver_type", str)
    known = (*LIBLINEAR_CLASSIFIERS, *LIBLINEAR_REGRESSORS, LIBLINEAR_ONE_CLASS)
    if solver not in known:
        raise DataFormatError(
            f"unknown LIBLINEAR solver_type {solver[:40]!r}; pegasos-rs predicts with "
            + ", ".join(known),
            where,
            header.line("solver_type"),
        )
    classifier = solver in LIBLINEAR_CLASSIFIERS
    n_class = header.value("nr_class", int)
    if not 1 <= n_class <= len(text):
        raise DataFormatError(f"bad nr_class {n_class}", where, header.line("nr_class"))
    if not classifier and n_class != 2:  # LIBLINEAR writes 2 and reads one weight per line
        raise DataFormatError(
            f"bad nr_class {n_class}: a {solver} model has nr_class 2",
            where,
            header.line("nr_class"),
        )
    # Regression and one-class models have no label line (LIBLINEAR ignores one).
    labels = _labels(header, n_class) if classifier else np.array([1.0, -1.0])
    rho = header.value("rho", float) if solver == LIBLINEAR_ONE_CLASS else 0.0
    n_feature = header.value("nr_feature", int)
    bias = header.value("bias", float)
    if n_feature < 0:
        raise DataFormatError(f"bad nr_feature {n_feature}", where, header.line("nr_feature"))
    n_w = 1 if n_class == 2 and solver != "MCSVM_CS" else n_class
    rows = n_feature + (1 if bias >= 0 else 0)
    start = header.end + 1
    if len(lines) - start < rows:
        raise DataFormatError(
            f"expected {rows} weight lines of {n_w} values after 'w' (line {start}), found "
            f"{len(lines) - start}: truncated?",
            where,
            len(lines) + 1,
        )
    W = np.empty((rows, n_w))
    for r in range(rows):
        parts = lines[start + r].split()
        try:
            row = [float(v) for v in parts]
        except ValueError:
            row = []
        if len(row) != n_w or not all(map(math.isfinite, row)):
            raise DataFormatError(
                f"expected {n_w} finite weights, got {lines[start + r][:60]!r}",
                where,
                start + r + 1,
            )
        W[r] = row
    for k in range(start + rows, len(lines)):
        if lines[k].strip():
            raise DataFormatError(
                f"text after the {rows} weight lines: {lines[k][:40]!r}", where, k + 1
            )
    weights = W[:n_feature]
    bias_weights = W[n_feature] if bias >= 0 else np.zeros(n_w)
    if solver in LIBLINEAR_REGRESSORS:
        model: Any = LiblinearRegressionModel(solver, weights[:, 0], bias, float(bias_weights[0]))
    else:
        model = LiblinearModel(solver, _label_array(labels), weights, bias, bias_weights, rho=rho)
    return model, header


def _read_liblinear_classifier(text: str, where: str) -> LiblinearModel:
    """:func:`read_liblinear` for :func:`pegasos_rs.load`, which turns the model into
    a :class:`~pegasos_rs.PegasosClassifier`: regression and one-class models are
    refused at their ``solver_type`` line."""
    model, header = _parse_liblinear(text, where)
    if isinstance(model, LiblinearRegressionModel) or model.solver_type == LIBLINEAR_ONE_CLASS:
        what = "a regression" if isinstance(model, LiblinearRegressionModel) else "a one-class"
        raise DataFormatError(
            f"LIBLINEAR solver_type {model.solver_type} is {what} model, not a classifier: "
            "pegasos_rs.load reads LIBLINEAR's classifiers (as PegasosClassifier); "
            "pegasos_rs.io.foreign_models.read_model reads this one and predicts as LIBLINEAR "
            "does",
            where,
            header.line("solver_type"),
        )
    return model


@filled
def read_libsvm(
    text: str, where: str = "<model>"
) -> LibsvmModel | LibsvmRegressionModel | LibsvmOneClassModel:
    """Parse the text of a LIBSVM model file.

    {reader_parameters}

    Returns
    -------
    model : LibsvmModel, LibsvmRegressionModel or LibsvmOneClassModel
        A :class:`LibsvmModel` for ``c_svc`` and ``nu_svc`` models, a
        :class:`LibsvmRegressionModel` for ``epsilon_svr`` and ``nu_svr`` models, a
        :class:`LibsvmOneClassModel` for ``one_class`` models.

    Raises
    ------
    DataFormatError
        Malformed or truncated text, or a model type other than ``c_svc``,
        ``nu_svc``, ``epsilon_svr``, ``nu_svr`` and ``one_class`` with a
        ``linear``, ``polynomial``, ``rbf`` or ``sigmoid`` kernel.
    """
    lines = text.splitlines()
    header = _Header(lines, "SV", _LIBSVM_KEYS, where, "LIBSVM")
    supported = (
        "pegasos-rs predicts with LIBSVM's c_svc, nu_svc, epsilon_svr, nu_svr and "
        "one_class models with kernel_type " + ", ".join(LIBSVM_KERNELS)
    )
    svm_type = header.value("svm_type", str)
    if svm_type not in (*LIBSVM_CLASSIFIERS, *LIBSVM_REGRESSORS, LIBSVM_ONE_CLASS):
        what = f"unknown LIBSVM svm_type {svm_type[:40]!r}"
        raise DataFormatError(f"{what}; {supported}", where, header.line("svm_type"))
    classifier = svm_type in LIBSVM_CLASSIFIERS
    kernel_type = header.value("kernel_type", str)
    if kernel_type not in LIBSVM_KERNELS:
        what = (
            "a precomputed kernel (the model names training examples by number, not their features)"
            if kernel_type == "precomputed"
            else f"unknown kernel_type {kernel_type[:40]!r}"
        )
        raise DataFormatError(f"{what}; {supported}", where, header.line("kernel_type"))
    kernel = LIBSVM_KERNELS[kernel_type]
    gamma = header.value("gamma", float) if kernel != "linear" else 0.0
    if gamma < 0:
        raise DataFormatError(f"gamma {gamma} < 0", where, header.line("gamma"))
    degree = header.value("degree", int) if kernel == "poly" else 3
    if not 0 <= degree < 2**31:
        raise DataFormatError(f"bad degree {degree}", where, header.line("degree"))
    coef0 = header.value("coef0", float) if kernel in ("poly", "sigmoid") else 0.0
    n_class = header.value("nr_class", int)
    if not 1 <= n_class <= len(text):
        raise DataFormatError(f"bad nr_class {n_class}", where, header.line("nr_class"))
    if not classifier and n_class != 2:  # LIBSVM writes 2: one rho, one coefficient
        raise DataFormatError(
            f"bad nr_class {n_class}: an {svm_type} model has nr_class 2",
            where,
            header.line("nr_class"),
        )
    total = header.value("total_sv", int)
    if total < 0:
        raise DataFormatError(f"bad total_sv {total}", where, header.line("total_sv"))
    # Regression and one-class models have no label and nr_sv lines (LIBSVM ignores
    # them).
    labels = _labels(header, n_class) if classifier else np.zeros(0)
    n_sv = (
        np.array(header.values("nr_sv", int, n_class), dtype=np.int64)
        if classifier
        else np.array([total])
    )
    if np.any(n_sv < 0) or int(n_sv.sum()) != total:
        raise DataFormatError(
            f"nr_sv must be {n_class} counts adding up to total_sv = {total}",
            where,
            header.line("nr_sv"),
        )
    rho = np.array(header.values("rho", float, n_class * (n_class - 1) // 2))
    sv_line = header.end + 1  # 1-based number of the "SV" line
    if len(lines) - sv_line < total:
        raise DataFormatError(
            f"expected {total} support vectors after 'SV' (line {sv_line}), found "
            f"{len(lines) - sv_line}: truncated?",
            where,
            len(lines) + 1,
        )
    n_coef = n_class - 1
    if n_coef == 0 and total:  # LIBSVM writes total_sv 0 for one class (no pairs)
        raise DataFormatError(
            f"bad total_sv {total}: a model of one class has no support vectors",
            where,
            header.line("total_sv"),
        )
    coef, sv = _support_vectors(lines[sv_line : sv_line + total], n_coef, sv_line, where)
    for k in range(sv_line + total, len(lines)):
        if lines[k].strip():
            raise DataFormatError(
                f"text after the {total} support vectors: {lines[k][:40]!r}", where, k + 1
            )
    if svm_type == LIBSVM_ONE_CLASS:
        return LibsvmOneClassModel(
            svm_type=svm_type,
            kernel=kernel,
            gamma=gamma,
            degree=degree,
            coef0=coef0,
            support_vectors=sv,
            dual_coef=coef[:, 0].copy(),
            rho=float(rho[0]),
        )
    if not classifier:
        return LibsvmRegressionModel(
            svm_type=svm_type,
            kernel=kernel,
            gamma=gamma,
            degree=degree,
            coef0=coef0,
            support_vectors=sv,
            dual_coef=coef[:, 0].copy(),
            rho=float(rho[0]),
        )
    return LibsvmModel(
        svm_type=svm_type,
        kernel=kernel,
        gamma=gamma,
        degree=degree,
        coef0=coef0,
        labels=_label_array(labels),
        n_support=n_sv,
        support_vectors=sv,
        dual_coef=coef.T.copy(),
        rho=rho,
    )


def _support_vectors(
    sv_lines: list[str], n_coef: int, before: int, where: str
) -> tuple[np.ndarray, sp.csr_matrix]:
    """The coefficients ``(n, n_coef)`` and the support vectors (CSR, column ``j`` for
    feature ``j + 1``) of a LIBSVM model's support-vector lines ``c1 ... index:value
    ...``, read by the Rust svmlight parser with ``n_coef`` leading numbers (values
    correctly rounded, as strtod). ``before`` is the number of lines before them in
    the file (errors name the file's line)."""
    expected = (
        f"expected {n_coef} coefficient(s) then index:value pairs with increasing "
        "indices >= 1 and finite values"
    )

    def bad(k: int, reason: str | None = None, column: int | None = None) -> NoReturn:
        what = f"{reason} ({expected})" if reason else f"{expected}, got {sv_lines[k][:60]!r}"
        raise DataFormatError(what, where, before + k + 1, column)

    if not sv_lines:  # the arrays (and index dtypes) of an empty section, as before
        empty = (np.zeros(0), np.zeros(0, dtype=np.int64), np.zeros(1, dtype=np.int64))
        return np.empty((0, n_coef)), sp.csr_matrix(empty, shape=(0, 0))
    # One line per support vector, as Python split the text (its line breaks are
    # "\n" here); invalid UTF-8 stays invalid, and is refused.
    section = "\n".join(sv_lines).encode("utf-8", "surrogatepass")
    # Comments and query ids are svmlight's: in a model file they are damage (no
    # number has a "q": a byte search, as fast as memchr, finds "qid:").
    marks = [at for at in (section.find(b"#"), section.find(b"q")) if at >= 0]
    if marks:
        bad(section.count(b"\n", 0, min(marks)))
    try:
        data, indices, indptr, coef, _, _, max_index = _core.parse_svmlight(
            section,
            dtype="float64",
            one_based=True,
            query_id=False,
            n_threads=1,
            leading=n_coef,
        )
    except DataFormatError as e:
        bad((e.line or 1) - 1, e.reason, e.column)
    if coef.shape[0] != len(sv_lines):  # the parser skips blank lines
        bad(next((k for k, text in enumerate(sv_lines) if not text.split()), 0))
    np.subtract(indices, 1, out=indices)
    width = 0 if max_index is None else int(max_index)
    return coef, sp.csr_matrix((data, indices, indptr), shape=(len(sv_lines), width))


def _check_X(X: MatrixLike) -> Any:  # CSR or ndarray (a union would not narrow by issparse)
    return check_array(X, accept_sparse="csr", dtype=np.float64, order="C")


# ----------------------------------------------------------------------------------
# The models


def _linear_scores(X: MatrixLike, weights, intercept, n_jobs: Int | None) -> np.ndarray:
    """``X weights + intercept`` as LIBLINEAR's ``predict`` computes it: ``X``'s
    columns beyond ``weights``' rows are ignored, missing ones are zero."""
    X = _check_X(X)
    d = weights.shape[0]
    if X.shape[1] != d:
        if sp.issparse(X):
            X = (
                X[:, :d]
                if X.shape[1] > d
                else sp.csr_matrix((X.data, X.indices, X.indptr), shape=(X.shape[0], d))
            )
        else:
            X = np.ascontiguousarray(X[:, :d]) if X.shape[1] > d else _pad(X, d)
    return _core.decision_function(
        as_rust_matrix(X),
        buffer(weights.T, np.float64),
        buffer(intercept, np.float64),
        n_threads(n_jobs),
    )


class LiblinearModel:
    """A LIBLINEAR classifier, or one-class SVM, read from its model file (see
    :func:`read_liblinear`).

    Attributes
    ----------
    solver_type : str
        LIBLINEAR's name of the solver that trained it (``L2R_L2LOSS_SVC_DUAL``, ...;
        ``ONECLASS_SVM`` for the one-class SVM, ``train -s 21``).
    labels : ndarray of shape (n_classes,)
        The class labels in the file's order (LIBLINEAR's order: first appearance in
        the training data), which decides ties. ``[1, -1]`` for the one-class SVM,
        whose file has none: LIBLINEAR predicts ``+1`` (inlier) or ``-1``.
    weights : ndarray of shape (n_features, n_scores)
        One column per score: one for two classes (except ``MCSVM_CS``), else one per
        class.
    bias : float
        The value of LIBLINEAR's bias feature (``-B``); negative when there is none.
    bias_weights : ndarray of shape (n_scores,)
        The weights of the bias feature (zeros without one).
    rho : float
        The one-class SVM's offset, subtracted from its score; 0 for the classifiers.
    n_features_in_ : int
        ``nr_feature``: features of larger index are ignored, as LIBLINEAR does.
    """

    def __init__(
        self,
        solver_type: str,
        labels: np.ndarray,
        weights: np.ndarray,
        bias: float,
        bias_weights: np.ndarray,
        *,
        rho: float = 0.0,
    ) -> None:
        self.solver_type = solver_type
        self.labels = labels
        self.weights = weights
        self.bias = bias
        self.bias_weights = bias_weights
        self.rho = rho
        self.n_features_in_ = weights.shape[0]

    def __repr__(self) -> str:
        return (
            f"LiblinearModel(solver_type={self.solver_type!r}, labels={self.labels.tolist()}, "
            f"n_features={self.n_features_in_}, bias={self.bias:g})"
        )

    def decision_function(self, X: MatrixLike, n_jobs: Int | None = None) -> np.ndarray:
        """LIBLINEAR's scores ``X w + bias w_bias`` (minus ``rho`` for the one-class
        SVM).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Column ``j`` is feature ``j + 1``; columns beyond ``n_features_in_`` are
            ignored, missing ones are zero.
        n_jobs : int, default=None
            Threads (-1: all cores).

        Returns
        -------
        scores : ndarray of shape (n_samples, n_scores)
        """
        intercept = self.bias * self.bias_weights if self.bias >= 0 else self.bias_weights
        scores = _linear_scores(X, self.weights, intercept, n_jobs)
        if self.rho:  # LIBLINEAR subtracts rho from the sum (bias term included)
            scores -= self.rho
        return scores

    @filled
    def predict(self, X: MatrixLike, n_jobs: Int | None = None) -> np.ndarray:
        """LIBLINEAR's predicted labels: for two classes ``labels[0]`` where the
        first score is positive, else ``labels[1]``; otherwise the label of the first
        largest score.

        {foreign_predict_parameters}
        """
        scores = self.decision_function(X, n_jobs)
        if self.labels.size == 2:
            return np.where(scores[:, 0] > 0, self.labels[0], self.labels[1])
        return self.labels[np.argmax(scores, axis=1)]

    def predict_proba(self, X: MatrixLike, n_jobs: Int | None = None) -> np.ndarray:
        """LIBLINEAR's probability estimates (its ``predict_probability``), for its
        logistic regression models (``solver_type`` ``L2R_LR``, ``L1R_LR``,
        ``L2R_LR_DUAL``: ``train -s 0``, ``6``, ``7``): the sigmoid
        ``1 / (1 + exp(-s))`` of each score ``s``; for two classes ``p`` for
        ``labels[0]`` and ``1 - p`` for ``labels[1]``, for more the one-vs-rest
        sigmoids normalised to sum to 1.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Column ``j`` is feature ``j + 1``.
        n_jobs : int, default=None
            Threads (-1: all cores).

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
            Columns in the order of ``labels`` (the file's, as LIBLINEAR's
            ``predict -b 1`` writes them).

        Raises
        ------
        ValueError
            For a model of another solver (LIBLINEAR's message: probability output
            is only supported for logistic regression).
        """
        if self.solver_type not in LIBLINEAR_PROBABILITY:
            raise ValueError(
                f"probability output is only supported for logistic regression "
                f"({', '.join(LIBLINEAR_PROBABILITY)}); this model is {self.solver_type}"
            )
        scores = self.decision_function(X, n_jobs)
        with np.errstate(over="ignore"):  # exp(-s) = inf for s < -709: p = 0, as in C
            p = 1.0 / (1.0 + np.exp(-scores))
        if self.labels.size == 2:
            return np.column_stack([p[:, 0], 1.0 - p[:, 0]])
        return p / p.sum(axis=1, keepdims=True)

    def to_classifier(self) -> PegasosClassifier:
        """The same linear model as a :class:`~pegasos_rs.PegasosClassifier` (classes
        sorted, scikit-learn's conventions). Its predictions equal LIBLINEAR's except
        on exact ties of scores, which scikit-learn breaks towards the smaller class.

        Returns
        -------
        estimator : PegasosClassifier

        Raises
        ------
        ValueError
            For a one-class SVM (``ONECLASS_SVM``), which is no classifier of classes
            seen in training.
        """
        if self.solver_type == LIBLINEAR_ONE_CLASS:
            raise ValueError(
                "to_classifier: this LIBLINEAR model is a one-class SVM (ONECLASS_SVM, "
                "novelty detection), not a classifier; predict with it directly"
            )
        PegasosClassifier = _registry.classes()["PegasosClassifier"]
        labels = self.labels.astype(np.float64)
        coef, intercept = self.weights.T, self.bias * self.bias_weights
        if self.bias < 0:
            intercept = np.zeros_like(self.bias_weights)
        order = np.argsort(labels)
        crammer_singer = self.solver_type == "MCSVM_CS"
        if labels.size == 2 and crammer_singer:
            # Two weight vectors, one per label: the larger class's minus the other's.
            hi, lo = order[1], order[0]
            coef, intercept = (
                coef[hi : hi + 1] - coef[lo : lo + 1],
                intercept[[hi]] - intercept[[lo]],
            )
        elif labels.size == 2:
            # LIBLINEAR predicts label[0] when the first score is > 0; ours the larger class.
            sign = 1.0 if labels[0] > labels[1] else -1.0
            coef, intercept = sign * coef[:1], sign * intercept[:1]
        else:
            coef, intercept = coef[order], intercept[order]
        bias = self.bias
        est = PegasosClassifier(
            fit_intercept=bias >= 0,
            intercept_scaling=bias if bias > 0 else 1.0,
            multi_class="crammer_singer" if crammer_singer else "ovr",
        )
        est.coef_ = np.ascontiguousarray(coef, dtype=np.float64)
        est.intercept_ = np.ascontiguousarray(intercept, dtype=np.float64)
        est.classes_ = self.labels[order]
        est.n_features_in_ = self.n_features_in_
        est.n_iter_ = 0
        est.t_ = 0
        est.objective_ = None
        return est


class LiblinearRegressionModel:
    """A LIBLINEAR support vector regression model read from its model file (see
    :func:`read_liblinear`): ``train -s 11`` (``L2R_L2LOSS_SVR``), ``-s 12``
    (``L2R_L2LOSS_SVR_DUAL``) or ``-s 13`` (``L2R_L1LOSS_SVR_DUAL``). It predicts
    real values, ``w.x + bias w_bias``, as LIBLINEAR's ``predict`` does; having no
    classes, it has no ``predict_proba`` and no ``decision_function``.

    Attributes
    ----------
    solver_type : str
        LIBLINEAR's name of the solver that trained it.
    weights : ndarray of shape (n_features,)
    bias : float
        The value of LIBLINEAR's bias feature (``-B``); negative when there is none.
    bias_weight : float
        The weight of the bias feature (0 without one).
    n_features_in_ : int
        ``nr_feature``: features of larger index are ignored, as LIBLINEAR does.
    """

    def __init__(
        self, solver_type: str, weights: np.ndarray, bias: float, bias_weight: float
    ) -> None:
        self.solver_type = solver_type
        self.weights = weights
        self.bias = bias
        self.bias_weight = bias_weight
        self.n_features_in_ = weights.shape[0]

    def __repr__(self) -> str:
        return (
            f"LiblinearRegressionModel(solver_type={self.solver_type!r}, "
            f"n_features={self.n_features_in_}, bias={self.bias:g})"
        )

    def predict(self, X: MatrixLike, n_jobs: Int | None = None) -> np.ndarray:
        """LIBLINEAR's predicted values ``X w + bias w_bias``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Column ``j`` is feature ``j + 1``; columns beyond ``n_features_in_`` are
            ignored, missing ones are zero.
        n_jobs : int, default=None
            Threads (-1: all cores).

        Returns
        -------
        values : ndarray of shape (n_samples,)
        """
        intercept = np.array([self.bias * self.bias_weight if self.bias >= 0 else 0.0])
        return _linear_scores(X, self.weights[:, None], intercept, n_jobs)[:, 0]

    def to_classifier(self) -> NoReturn:
        """Refused: a regression model is not a classifier.

        Raises
        ------
        ValueError
            Always, naming the model's solver.
        """
        raise ValueError(
            f"to_classifier: this LIBLINEAR model is a regression model ({self.solver_type}), "
            "not a classifier; predict with it directly (predict gives LIBLINEAR's values)"
        )


class _SupportVectorExpansion:
    """What LIBSVM's models share: the kernel and the support vectors, and their
    values ``K(X, support_vectors) C - rho`` (:meth:`_expansion`), computed with the
    Rust kernels of :func:`pegasos_rs.pairwise_kernels`, many rows at a time."""

    def __init__(
        self,
        *,
        svm_type: str,
        kernel: str,
        gamma: float,
        degree: int,
        coef0: float,
        support_vectors: sp.csr_matrix,
    ) -> None:
        self.svm_type = svm_type
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.support_vectors = support_vectors

    def _constant_kernel(self) -> float | None:
        """The kernel's value when it does not depend on the data (``gamma = 0``, or
        a polynomial of degree 0), else None."""
        if self.kernel == "poly" and (self.degree == 0 or self.gamma == 0):
            with np.errstate(over="ignore"):
                return float(np.power(np.float64(self.coef0), self.degree))
        if self.kernel == "rbf" and self.gamma == 0:
            return 1.0
        if self.kernel == "sigmoid" and self.gamma == 0:
            return math.tanh(self.coef0)
        return None

    def _expansion(self, X: MatrixLike, C, rho, n_jobs: Int | None) -> np.ndarray:
        """``K(X, support_vectors) C - rho``: ``C`` (sparse, total_sv x m) holds the
        coefficients of the ``m`` sums, ``rho`` their offsets."""
        X = _check_X(X)
        n = X.shape[0]
        constant = self._constant_kernel()
        if constant is not None:
            sums = np.asarray(C.sum(axis=0)).ravel()
            with np.errstate(over="ignore", invalid="ignore"):  # inf * 0 is NaN, as in C
                values = constant * sums - rho
            return np.broadcast_to(values, (n, C.shape[1])).copy()
        xs, svs = self._kernel_inputs(X)
        out = np.empty((n, C.shape[1]))
        total = svs.shape[0]
        step = max(1, _KERNEL_BLOCK // max(total, 1))
        for lo in range(0, n, step):  # blocks of rows bound the kernel values' memory
            K = _core.pairwise_kernel(
                as_rust_matrix(xs[lo : lo + step]),
                as_rust_matrix(svs),
                kernel={
                    "kernel_name": self.kernel,
                    "gamma": float(self.gamma) if self.kernel != "linear" else 1.0,
                    "degree": int(self.degree),
                    "coef0": float(self.coef0),
                },
                n_threads=n_threads(n_jobs),
            )
            out[lo : lo + step] = np.asarray((C.T @ K.T).T) - rho
        return out

    def _kernel_inputs(self, X):
        """``X`` and the support vectors restricted to the features the support
        vectors use (so that the width is bounded by the model, whatever the indices
        in the file), plus, for rbf, one column holding the norm of the rest of each
        row of ``X`` (which counts in its distances to the support vectors)."""
        sv = self.support_vectors
        used = np.unique(sv.indices)  # sorted feature numbers
        svs = sp.csr_matrix(
            (sv.data, np.searchsorted(used, sv.indices), sv.indptr),
            shape=(sv.shape[0], used.size),
        )
        X = sp.csr_matrix(X)
        if not X.has_canonical_format:
            X = X.copy()
            X.sum_duplicates()
        position = np.searchsorted(used, X.indices)
        inside = np.zeros(X.indices.shape, dtype=bool)
        if used.size:
            inside = used[np.minimum(position, used.size - 1)] == X.indices
        row = np.repeat(np.arange(X.shape[0]), np.diff(X.indptr))
        xs = sp.csr_matrix(
            (X.data[inside], (row[inside], position[inside])),
            shape=(X.shape[0], used.size),
        )
        if self.kernel == "rbf":
            rest = np.bincount(row[~inside], X.data[~inside] ** 2, minlength=X.shape[0])
            xs = sp.hstack([xs, sp.csr_matrix(np.sqrt(rest)[:, None])], format="csr")
            svs = sp.csr_matrix(
                (svs.data, svs.indices, svs.indptr), shape=(svs.shape[0], used.size + 1)
            )
        xs.sort_indices()
        svs.sort_indices()
        return xs, svs


class LibsvmModel(_SupportVectorExpansion):
    """A LIBSVM ``c_svc`` or ``nu_svc`` classifier read from its model file (see
    :func:`read_libsvm`), predicting by one-vs-one votes as LIBSVM does.

    Attributes
    ----------
    svm_type : str
        ``"c_svc"`` or ``"nu_svc"``.
    kernel : str
        ``"linear"``, ``"poly"``, ``"rbf"`` or ``"sigmoid"`` (scikit-learn's names).
    gamma, degree, coef0 : float, int, float
        The kernel's parameters (LIBSVM's definitions, which are scikit-learn's).
    labels : ndarray of shape (n_classes,)
        The labels in the file's order, which decides ties of votes.
    n_support : ndarray of shape (n_classes,)
        Support vectors of each class; they come in this order.
    support_vectors : scipy.sparse.csr_matrix of shape (total_sv, n_features)
    dual_coef : ndarray of shape (n_classes - 1, total_sv)
        LIBSVM's ``sv_coef``.
    rho : ndarray of shape (n_classes * (n_classes - 1) / 2,)
        One per pair of classes ``(0, 1), (0, 2), ..., (1, 2), ...``.
    """

    def __init__(
        self,
        *,
        svm_type: str,
        kernel: str,
        gamma: float,
        degree: int,
        coef0: float,
        labels: np.ndarray,
        n_support: np.ndarray,
        support_vectors: sp.csr_matrix,
        dual_coef: np.ndarray,
        rho: np.ndarray,
    ) -> None:
        super().__init__(
            svm_type=svm_type,
            kernel=kernel,
            gamma=gamma,
            degree=degree,
            coef0=coef0,
            support_vectors=support_vectors,
        )
        self.labels = labels
        self.n_support = n_support
        self.dual_coef = dual_coef
        self.rho = rho

    def __repr__(self) -> str:
        return (
            f"LibsvmModel(svm_type={self.svm_type!r}, kernel={self.kernel!r}, "
            f"labels={self.labels.tolist()}, n_support={self.n_support.tolist()})"
        )

    def _pair_coefficients(self) -> sp.csc_matrix:
        """The matrix ``C`` (total_sv x n_pairs) with ``K C - rho`` = the decision
        values: column ``p`` of pair ``(i, j)`` holds ``dual_coef[j-1]`` on class
        ``i``'s support vectors and ``dual_coef[i]`` on class ``j``'s."""
        k = self.labels.size
        start = np.concatenate([[0], np.cumsum(self.n_support)])
        rows, cols, vals = [], [], []
        p = 0
        for i in range(k):
            for j in range(i + 1, k):
                si = np.arange(start[i], start[i + 1])
                sj = np.arange(start[j], start[j + 1])
                rows += [si, sj]
                vals += [self.dual_coef[j - 1, si], self.dual_coef[i, sj]]
                cols.append(np.full(si.size + sj.size, p))
                p += 1
        total = self.support_vectors.shape[0]
        if p == 0:
            return sp.csc_matrix((total, 0))
        return sp.csc_matrix(
            (np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
            shape=(total, p),
        )

    def decision_function(self, X: MatrixLike, n_jobs: Int | None = None) -> np.ndarray:
        """LIBSVM's one-vs-one decision values, computed through the support vectors.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Column ``j`` is feature ``j + 1``; any number of columns (features the
            support vectors lack still count in the rbf kernel's distances).
        n_jobs : int, default=None
            Threads for the kernel values (-1: all cores).

        Returns
        -------
        values : ndarray of shape (n_samples, n_classes * (n_classes - 1) / 2)
            Column ``p`` is pair ``(i, j)`` of labels ``i < j`` in the order
            ``(0, 1), (0, 2), ..., (1, 2), ...``; positive votes for ``labels[i]``.
        """
        return self._expansion(X, self._pair_coefficients(), self.rho, n_jobs)

    @filled
    def predict(self, X: MatrixLike, n_jobs: Int | None = None) -> np.ndarray:
        """LIBSVM's predicted labels: one vote per pair of classes (a positive
        decision value votes for the first of the pair), the first label (in the
        file's order) with the most votes wins.

        {foreign_predict_parameters}
        """
        values = self.decision_function(X, n_jobs)
        k = self.labels.size
        first, second = np.triu_indices(k, 1)  # (0, 1), (0, 2), ..., (1, 2), ...
        winner = np.where(values > 0, first, second)
        n = values.shape[0]
        cells = (np.arange(n)[:, None] * k + winner).ravel()
        votes = np.bincount(cells, minlength=n * k).reshape(n, k)
        return self.labels[np.argmax(votes, axis=1)]  # the first of the most voted


class _OneExpansion(_SupportVectorExpansion):
    """A LIBSVM model of one sum ``sum_s dual_coef_s K(sv_s, x) - rho``: its
    regression and one-class models."""

    def __init__(
        self,
        *,
        svm_type: str,
        kernel: str,
        gamma: float,
        degree: int,
        coef0: float,
        support_vectors: sp.csr_matrix,
        dual_coef: np.ndarray,
        rho: float,
    ) -> None:
        super().__init__(
            svm_type=svm_type,
            kernel=kernel,
            gamma=gamma,
            degree=degree,
            coef0=coef0,
            support_vectors=support_vectors,
        )
        self.dual_coef = dual_coef
        self.rho = rho

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(svm_type={self.svm_type!r}, kernel={self.kernel!r}, "
            f"total_sv={self.support_vectors.shape[0]})"
        )

    def _sums(self, X: MatrixLike, n_jobs: Int | None) -> np.ndarray:
        """``sum_s dual_coef_s K(sv_s, x) - rho`` of each row of ``X``."""
        C = sp.csc_matrix(self.dual_coef[:, None])
        return self._expansion(X, C, np.array([self.rho]), n_jobs)[:, 0]


class LibsvmRegressionModel(_OneExpansion):
    """A LIBSVM ``epsilon_svr`` or ``nu_svr`` regression model read from its model
    file (see :func:`read_libsvm`): ``svm-train -s 3`` or ``-s 4``. It predicts
    real values through its support vectors, ``sum_s dual_coef_s K(sv_s, x) - rho``,
    as LIBSVM's ``svm_predict`` does; having no classes, it has no
    ``predict_proba`` and no ``decision_function``.

    Attributes
    ----------
    svm_type : str
        ``"epsilon_svr"`` or ``"nu_svr"``.
    kernel : str
        ``"linear"``, ``"poly"``, ``"rbf"`` or ``"sigmoid"`` (scikit-learn's names).
    gamma, degree, coef0 : float, int, float
        The kernel's parameters (LIBSVM's definitions, which are scikit-learn's).
    support_vectors : scipy.sparse.csr_matrix of shape (total_sv, n_features)
    dual_coef : ndarray of shape (total_sv,)
        LIBSVM's ``sv_coef``.
    rho : float
    """

    def predict(self, X: MatrixLike, n_jobs: Int | None = None) -> np.ndarray:
        """LIBSVM's predicted values ``sum_s dual_coef_s K(sv_s, x) - rho``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Column ``j`` is feature ``j + 1``; any number of columns (features the
            support vectors lack still count in the rbf kernel's distances).
        n_jobs : int, default=None
            Threads for the kernel values (-1: all cores).

        Returns
        -------
        values : ndarray of shape (n_samples,)
        """
        return self._sums(X, n_jobs)


class LibsvmOneClassModel(_OneExpansion):
    """A LIBSVM ``one_class`` model read from its model file (see :func:`read_libsvm`):
    ``svm-train -s 2``. Its score is ``sum_s dual_coef_s K(sv_s, x) - rho``, and it
    predicts ``+1`` where the score is positive, else ``-1``, as LIBSVM's
    ``svm_predict`` (scikit-learn's ``OneClassSVM``, and pegasos-rs' one-class
    estimators, predict ``+1`` at a score of exactly 0).

    Attributes
    ----------
    svm_type : str
        ``"one_class"``.
    kernel : str
        ``"linear"``, ``"poly"``, ``"rbf"`` or ``"sigmoid"`` (scikit-learn's names).
    gamma, degree, coef0 : float, int, float
        The kernel's parameters.
    support_vectors : scipy.sparse.csr_matrix of shape (total_sv, n_features)
    dual_coef : ndarray of shape (total_sv,)
        LIBSVM's ``sv_coef`` (its dual, which sums to ``nu`` times the training rows).
    rho : float
    """

    def decision_function(self, X: MatrixLike, n_jobs: Int | None = None) -> np.ndarray:
        """LIBSVM's scores ``sum_s dual_coef_s K(sv_s, x) - rho``: positive for
        inliers.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Column ``j`` is feature ``j + 1``.
        n_jobs : int, default=None
            Threads for the kernel values (-1: all cores).

        Returns
        -------
        scores : ndarray of shape (n_samples,)
        """
        return self._sums(X, n_jobs)

    def predict(self, X: MatrixLike, n_jobs: Int | None = None) -> np.ndarray:
        """``+1.0`` where :meth:`decision_function` is positive, else ``-1.0``
        (LIBSVM's labels)."""
        return np.where(self.decision_function(X, n_jobs) > 0, 1.0, -1.0)


def _pad(X: np.ndarray, width: int) -> np.ndarray:
    out = np.zeros((X.shape[0], width))
    out[:, : X.shape[1]] = X
    return out


# pegasos_rs.load reads LIBLINEAR's classifiers too (model_io knows no other format).
_registry.register_text_reader("liblinear", _read_liblinear_classifier)
