"""LIBSVM's model files: :func:`read_libsvm` and the models it gives,
:class:`LibsvmModel` (classifiers), :class:`LibsvmRegressionModel` and
:class:`LibsvmOneClassModel`, predicting through their support vectors as LIBSVM's
``svm-predict`` does (see :mod:`pegasos_rs.io.foreign_models`).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, NoReturn

import numpy as np
import scipy.sparse as sp

from pegasos_rs import _core
from pegasos_rs._docs import filled
from pegasos_rs._validation import as_rust_matrix, n_threads
from pegasos_rs.exceptions import DataFormatError
from pegasos_rs.io._model_text import _check_X, _Header, _label_array, _labels

if TYPE_CHECKING:
    from pegasos_rs._typing import Int, MatrixLike

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
