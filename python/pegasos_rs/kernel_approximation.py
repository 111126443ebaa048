"""Explicit feature maps: the scalable route to non-linear Pegasos.

A kernel machine costs kernel evaluations against its support vectors; a feature
map ``psi`` with ``psi(x) . psi(y) ~ K(x, y)`` turns it into a linear problem that
:class:`~pegasos_rs.PegasosClassifier` solves at linear cost::

    make_pipeline(Nystroem(gamma=0.02, n_components=1000), PegasosClassifier())

* :class:`RandomFourierFeatures` -- the rbf kernel, by random Fourier features.
* :class:`Nystroem` -- any kernel of :class:`~pegasos_rs.KernelPegasosClassifier`,
  from landmark rows chosen uniformly or by k-means++.
* :class:`AdditiveKernelMap` -- chi2, intersection and Jensen-Shannon additive
  kernels on non-negative data (histograms), by homogeneous kernel maps.

All three are computed in Rust, in parallel row blocks (``n_jobs``), with float32
output for float32 input, and draw their randomness from the library's portable
generator: the same ``random_state`` gives the same features everywhere.
"""

from __future__ import annotations

import math
import warnings
from numbers import Integral, Real
from typing import TYPE_CHECKING, Any

import numpy as np
import scipy.sparse as sp
from sklearn.base import (
    BaseEstimator,
    ClassNamePrefixFeaturesOutMixin,
    TransformerMixin,
)
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import (
    _check_feature_names_in,
    check_is_fitted,
    check_non_negative,
)

from pegasos_rs import _core
from pegasos_rs._base import CachedParamNames, unchanged_on_error
from pegasos_rs._docs import filled
from pegasos_rs._fitted import fitted_param
from pegasos_rs._progress import reported
from pegasos_rs._registry import persisted
from pegasos_rs._typing import F, fit_context
from pegasos_rs._validation import (
    INPUT_CHECKS,
    KERNELS,
    PRECOMPUTED_CHECKS,
    as_rust_matrix,
    buffer,
    canonical_csr,
    check_csr_structure,
    kernel_view,
    n_threads,
    resolve_gamma,
    seed_from,
    validate_input,
)
from pegasos_rs.io import _model_file

if TYPE_CHECKING:
    from typing import Literal

    from numpy.typing import ArrayLike, NDArray
    from typing_extensions import Self

    from pegasos_rs._typing import (
        AdditiveKernelName,
        Float,
        Int,
        KernelName,
        Matrix,
        MatrixLike,
        RandomStateLike,
    )

__all__ = ["AdditiveKernelMap", "Nystroem", "RandomFourierFeatures"]


def _floats(a: Any, shape: tuple[int, ...]) -> bool:
    return isinstance(a, np.ndarray) and a.shape == shape and a.dtype.kind == "f"


def _positive(value: Any) -> bool:
    return isinstance(value, (int, float)) and math.isfinite(value) and value > 0


def _check_saved_fourier(est: Any, need: Any) -> None:
    """A loaded :class:`RandomFourierFeatures` transforms or raises ValueError."""
    _model_file.require_scalars(est, est._saved_state, need)
    n, out = est.n_features_in_, est._n_features_out
    need(
        est._form in ("sincos", "offset"), f"_form must be 'sincos' or 'offset', not {est._form!r}"
    )
    need(out >= 1, "_n_features_out must be at least 1")
    freqs = (out + 1) // 2 if est._form == "sincos" else out
    need(
        _floats(getattr(est, "random_weights_", None), (n, freqs)),
        f"random_weights_ must be floats of shape ({n}, {freqs})",
    )
    offset = getattr(est, "random_offset_", None)
    need(_floats(offset, (freqs,)), f"random_offset_ must be floats of shape ({freqs},)")
    need(_positive(est.gamma_), "gamma_ must be a positive number")


def _check_saved_nystroem(est: Any, need: Any) -> None:
    """A loaded :class:`Nystroem` transforms or raises ValueError."""
    _model_file.require_scalars(est, est._saved_state, need)
    n, m = est.n_features_in_, est.n_components_
    need(est._n_features_out == m, f"_n_features_out must be n_components_ = {m}")
    need(est.rank_ <= m, f"rank_ must be at most {m}")
    need(
        _floats(getattr(est, "_columns", None), (m, m)), f"normalization_ must be floats ({m}, {m})"
    )
    idx: Any = getattr(est, "component_indices_", None)  # checked by need()
    need(
        isinstance(idx, np.ndarray) and idx.shape == (m,) and idx.dtype.kind in "iu",
        f"component_indices_ must be {m} integers",
    )
    need(m == 0 or idx.min() >= 0, "component_indices_ must not be negative")
    need(_positive(est.gamma_), "gamma_ must be a positive number")
    if est.kernel == "precomputed":
        # transform reads these columns of the kernel against the training rows
        need(m == 0 or idx.max() < n, f"component_indices_ must be below {n}")
        need(not hasattr(est, "components_"), "a precomputed kernel has no components_")
        return
    for attr in ("components_", "_components_view"):
        rows: Any = getattr(est, attr, None)  # checked by need()
        if rows is None and attr == "_components_view":
            continue
        need(
            (isinstance(rows, np.ndarray) or sp.issparse(rows))
            and rows.shape == (m, n)
            and rows.dtype.kind == "f",
            f"{attr} must be floats of shape ({m}, {n})",
        )


def _check_saved_additive(est: Any, need: Any) -> None:
    """A loaded :class:`AdditiveKernelMap` transforms or raises ValueError."""
    _model_file.require_scalars(est, est._saved_state, need)
    n, width = est.n_features_in_, 2 * int(est.order) + 1
    need(_positive(est.period_), "period_ must be a positive number")
    need(_positive(est.sample_interval_), "sample_interval_ must be a positive number")
    need(est._n_features_out == n * width, f"_n_features_out must be {n} * {width}")


def _fit_method(fit: F) -> F:
    """The wrappers of every map's ``fit``: the map is left as it was when it raises,
    its parameters are validated, and its progress is reported in rows."""
    return unchanged_on_error(
        fit_context(prefer_skip_nested_validation=True)(reported("rows")(fit))
    )


def _sparse_tags(tags: Any) -> Any:
    tags.input_tags.sparse = True
    tags.transformer_tags.preserves_dtype = ["float64", "float32"]
    return tags


@persisted
@filled
class RandomFourierFeatures(
    CachedParamNames, ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator
):
    """Random Fourier features approximating the rbf kernel ``exp(-gamma ||x-y||^2)``.

    Frequencies ``w``, the columns of ``random_weights_``, are drawn from
    ``N(0, 2 gamma)`` (Rahimi and Recht, 2007). With ``form="sincos"`` (the default)
    each gives two features, ``sqrt(2 / n_components) (cos(x w), sin(x w))``, so
    ``z(x) . z(y)`` is an average of ``cos(w (x - y))``: an unbiased estimate of the
    kernel that depends on ``x - y`` only, with a lower variance than the offset form
    at the same ``n_components`` (Sutherland and Schneider, 2015) and half as many
    projections to compute. For an odd ``n_components`` the last frequency gives the
    single feature ``sqrt(2 / n_components) cos(x w + b)``. With ``form="offset"``
    every feature is ``sqrt(2 / n_components) cos(x w + b)`` with ``b`` uniform on
    ``[0, 2 pi)``, scikit-learn's ``RBFSampler``.

    The relative error ``||K - Z Z^T||_F / ||K||_F`` stays below
    ``2 / sqrt(n_components)`` in the tests for both forms; on RCV1-shaped text rows,
    where most kernel values are far from zero, the sin/cos form's error is half the
    offset form's. Computed in Rust: sparse rows cost their non-zeros times the
    number of frequencies.

    Parameters
    ----------
    gamma : "scale" or float, default=1.0
        Kernel width; ``"scale"`` is ``1 / (n_features X.var())`` as in SVC.
    n_components : int, default=100
        Number of features.
    form : {"sincos", "offset"}, default="sincos"
        Features ``2c`` and ``2c + 1`` are the cosine and sine of frequency ``c``
        (``"sincos"``), or feature ``c`` is ``cos(x w_c + b_c)`` (``"offset"``).
    random_state : int, RandomState instance or None, default=None
        Seed of the draws (the library's portable generator: an int gives the same
        ``W`` and ``b`` on every platform).
    n_jobs : int or None, default=None
        Threads of :meth:`transform` (None: one; -1: all cores).
    {map_verbose}

    Attributes
    ----------
    random_weights_ : ndarray of shape (n_features, n_frequencies)
        ``n_frequencies`` is ``ceil(n_components / 2)`` for ``"sincos"``,
        ``n_components`` for ``"offset"``.
    random_offset_ : ndarray of shape (n_frequencies,)
        Zero for the sin/cos pairs.
    gamma_ : float
        The numeric gamma used.
    n_features_in_ : int

    Notes
    -----
    {notes_maps}
    """

    #: What a model file holds (pegasos_rs.io.model_io reads only this declaration).
    _saved_state = _model_file.SavedState(
        arrays=("random_weights_", "random_offset_"),
        scalars={
            "n_features_in_": "count",
            "gamma_": "number",
            "_n_features_out": "count",
            "_form": "str",
        },
        check=_check_saved_fourier,
    )

    _parameter_constraints: dict = {  # noqa: RUF012 (scikit-learn convention)
        "gamma": [StrOptions({"scale"}), Interval(Real, 0, None, closed="neither")],
        "n_components": [Interval(Integral, 1, None, closed="left")],
        "form": [StrOptions({"sincos", "offset"})],
        "random_state": ["random_state"],
        "n_jobs": [None, Integral],
        "verbose": ["verbose"],
    }

    def __init__(
        self,
        *,
        gamma: Literal["scale"] | Float = 1.0,
        n_components: Int = 100,
        form: Literal["sincos", "offset"] = "sincos",
        random_state: RandomStateLike = None,
        n_jobs: Int | None = None,
        verbose: Int = 0,
    ) -> None:
        self.gamma = gamma
        self.n_components = n_components
        self.form = form
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.verbose = verbose

    def __sklearn_tags__(self):
        return _sparse_tags(super().__sklearn_tags__())

    @_fit_method
    @filled
    def fit(self, X: MatrixLike, y: object = None) -> Self:
        """Draw the random weights for the features of ``X``.

        {map_fit_parameters}
        """
        X = validate_input(self, X, accept_sparse="csr", dtype=[np.float64, np.float32])
        return self._draw(X.shape[1], resolve_gamma("rbf", self.gamma, X))

    def _draw(self, n_features: int, gamma: float) -> Self:
        """Draw the weights for ``n_features`` inputs and the numeric ``gamma``."""
        self.gamma_ = gamma
        self.random_weights_, self.random_offset_ = _core.fourier_sample(
            n_features,
            int(self.n_components),
            self.gamma_,
            self.form,
            seed_from(self.random_state),
        )
        self._n_features_out = int(self.n_components)
        self._form = self.form
        return self

    @reported("rows")
    def transform(self, X: MatrixLike) -> NDArray[np.floating[Any]]:
        """The features of ``X`` (see the class docs), in the dtype of ``X``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_components)
        """
        check_is_fitted(self)
        X = validate_input(self, X, reset=False, **INPUT_CHECKS)
        W = buffer(self.random_weights_, X.dtype)
        b = buffer(self.random_offset_, X.dtype)
        return _core.fourier_features(
            as_rust_matrix(X), W, b, self._n_features_out, self._form, n_threads(self.n_jobs)
        )


@persisted
@filled
class Nystroem(CachedParamNames, ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    """Nyström approximation of any kernel of :class:`KernelPegasosClassifier`.

    ``n_components`` training rows become landmarks ``c_j``; a row maps to
    ``psi(x) = L^-1 P^T (K(x, c_j))_j`` with ``P K_mm P^T = L L^T`` the pivoted
    Cholesky factorisation of the landmarks' kernel matrix (stopped at its numerical
    rank, ``rank_``; later outputs are zero). Then ``psi(x) . psi(y) =
    k(x)^T K_mm^+ k(y)``, the Nyström approximation of ``K(x, y)``: the same as
    scikit-learn's ``Nystroem`` up to a rotation of the features, to which a linear
    SVM with an L2 penalty is blind. The error falls as ``n_components`` grows and
    vanishes (below 1e-7 relative) when every training row is a landmark (tested for
    every kernel).

    Parameters
    ----------
    kernel : {"rbf", "linear", "poly", "sigmoid", "chi2", "intersection", \
"precomputed"}, default="rbf"
        As in :class:`KernelPegasosClassifier`. With ``"precomputed"``, ``fit``
        takes the kernel between the training rows ``(n, n)`` and ``transform`` the
        kernel between new rows and the training rows ``(n_new, n)``.
    gamma : float, "scale", "auto" or None, default=None
        Kernel width; None is scikit-learn's pairwise default (``1 / n_features``
        for rbf, poly and sigmoid; 1 for chi2).
    coef0 : float or None, default=None
        poly and sigmoid; None means 1 (scikit-learn's pairwise default).
    degree : int or None, default=None
        poly; None means 3.
    n_components : int, default=100
        Number of landmarks (and of output features); at most the number of
        training rows (more is reduced to it, with a warning).
    landmarks : {"uniform", "k-means++"}, default="uniform"
        Uniform draws without replacement, or k-means++ seeding in the kernel's
        feature space (each next landmark drawn with probability proportional to its
        squared distance to the nearest landmark so far; ``n n_components`` kernel
        evaluations), which covers the data better at the same size.
    random_state : int, RandomState instance or None, default=None
    n_jobs : int or None, default=None
        Threads of fit and transform (None: one; -1: all cores).
    verbose : int, default=0
        Report the progress of long calls (rows transformed, landmark kernel rows) on
        :data:`sys.stderr`, every few seconds.

    Attributes
    ----------
    components_ : ndarray or sparse matrix of shape (n_components, n_features)
        The landmark rows (absent for ``"precomputed"``).
    component_indices_ : ndarray of shape (n_components,)
        Their indices in the training data, increasing.
    normalization_ : ndarray of shape (n_components, n_components)
        ``L^-1 P^T``, in scikit-learn's orientation: ``transform(X)`` is
        ``kernel(X, components_) @ normalization_.T`` (up to rounding; row ``i`` holds
        output ``i``'s coefficients on the landmarks). Earlier builds stored
        it transposed; pickles of such fits are converted when they are read.
    rank_ : int
        Numerical rank of the landmarks' kernel matrix.
    gamma_ : float
    n_components_ : int
    n_features_in_ : int

    Notes
    -----
    {notes_maps}
    """

    #: What a model file holds (pegasos_rs.io.model_io reads only this declaration);
    #: ``normalization_`` in scikit-learn's orientation.
    _saved_state = _model_file.SavedState(
        arrays=("components_", "_components_view", "component_indices_", "normalization_"),
        scalars={
            "n_features_in_": "count",
            "gamma_": "number",
            "rank_": "count",
            "n_components_": "count",
            "_n_features_out": "count",
        },
        optional=("_components_view",),
        check=_check_saved_nystroem,
    )

    _parameter_constraints: dict = {  # noqa: RUF012 (scikit-learn convention)
        "kernel": [StrOptions(set(KERNELS))],
        "gamma": [
            StrOptions({"scale", "auto"}),
            Interval(Real, 0, None, closed="neither"),
            None,
        ],
        "coef0": [Interval(Real, None, None, closed="neither"), None],
        "degree": [Interval(Integral, 1, 2**32 - 1, closed="both"), None],
        "n_components": [Interval(Integral, 1, None, closed="left")],
        "landmarks": [StrOptions({"uniform", "k-means++"})],
        "random_state": ["random_state"],
        "n_jobs": [None, Integral],
        "verbose": ["verbose"],
    }

    def __init__(
        self,
        kernel: KernelName = "rbf",
        *,
        gamma: Literal["scale", "auto"] | Float | None = None,
        coef0: Float | None = None,
        degree: Int | None = None,
        n_components: Int = 100,
        landmarks: Literal["uniform", "k-means++"] = "uniform",
        random_state: RandomStateLike = None,
        n_jobs: Int | None = None,
        verbose: Int = 0,
    ) -> None:
        self.kernel = kernel
        self.gamma = gamma
        self.coef0 = coef0
        self.degree = degree
        self.n_components = n_components
        self.landmarks = landmarks
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.verbose = verbose

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = self.kernel != "precomputed"
        tags.input_tags.pairwise = self.kernel == "precomputed"
        # A precomputed kernel is read as float64 (as KernelPegasosClassifier does).
        dtypes = ["float64"] if self.kernel == "precomputed" else ["float64", "float32"]
        tags.transformer_tags.preserves_dtype = dtypes
        return tags

    def _kernel_args(self) -> dict:
        """The kernel as the extension reads it, with the parameters of the fit
        (under way, or last)."""
        degree, coef0 = fitted_param(self, "degree"), fitted_param(self, "coef0")
        return {
            "kernel_name": fitted_param(self, "kernel"),
            "gamma": float(self.gamma_),
            "degree": 3 if degree is None else int(degree),
            "coef0": 1.0 if coef0 is None else float(coef0),
        }

    @_fit_method
    def fit(self, X: MatrixLike, y: object = None) -> Self:
        """Choose the landmarks and factor their kernel matrix.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features), or \
(n_samples, n_samples) for a precomputed kernel
        y : ignored

        Returns
        -------
        self
        """
        precomputed = self.kernel == "precomputed"
        X = validate_input(self, X, **(PRECOMPUTED_CHECKS if precomputed else INPUT_CHECKS))
        if precomputed and X.shape[0] != X.shape[1]:
            raise ValueError(
                f"a precomputed kernel must be a square matrix for fit, got shape {X.shape}"
            )
        m = self._n_landmarks(X.shape[0])
        if self.gamma is None:
            self.gamma_ = 1.0 if self.kernel == "chi2" else 1.0 / X.shape[1]
        else:
            self.gamma_ = resolve_gamma(self.kernel, self.gamma, X)
        seed = seed_from(self.random_state)
        if self.landmarks == "uniform":
            # Drawn without the data: only the landmark rows are read (and converted).
            idx = _core.nystroem_uniform_landmarks(X.shape[0], m, seed)
            if sp.issparse(X):  # scipy's row indexing trusts indptr
                check_csr_structure(X, indices=False)
            rows = X[idx][:, idx] if precomputed else X[idx]
            return self._factor(X, rows, idx, "all", m, seed)
        return self._factor(X, X, None, self.landmarks, m, seed)

    def _n_landmarks(self, n_rows: int) -> int:
        """``n_components``, or ``n_rows`` with a warning when there are fewer rows."""
        m = int(self.n_components)
        if m > n_rows:
            warnings.warn(
                f"n_components ({m}) is more than the {n_rows} training rows; "
                f"using n_components = {n_rows}",
                stacklevel=3,
            )
            m = n_rows
        return m

    def _factor(self, X: Any, rows: Any, idx: Any, how: str, m: int, seed: int) -> Self:
        """Factor the landmarks' kernel: ``rows`` are the landmark rows (``how``
        "all", drawn as rows ``idx`` of the training data) or the rows to choose
        them from (k-means++, from ``X``)."""
        precomputed = self.kernel == "precomputed"
        Xk = rows if precomputed else kernel_view(rows)
        found, columns, rank = _core.nystroem_fit(
            as_rust_matrix(Xk),
            kernel=self._kernel_args(),
            n_components=m,
            landmarks=how,
            seed=seed,
            n_threads=n_threads(self.n_jobs),
        )
        if idx is None:
            idx = found
        self.component_indices_ = idx
        if not precomputed:
            self.components_ = rows if how == "all" else X[idx]
            # The landmark rows the kernel reads (CSR when the data is mostly zeros).
            view = Xk if how == "all" else Xk[idx]
            self._components_view = None if view is self.components_ else view
        self._columns = columns
        self.rank_ = int(rank)
        self.n_components_ = m
        self._n_features_out = m
        return self

    @reported("rows")
    def transform(self, X: MatrixLike) -> NDArray[np.floating[Any]]:
        """The Nyström features of ``X``, in its dtype (float64 for precomputed).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features), or \
(n_samples, n_train_samples) for a precomputed kernel

        Returns
        -------
        ndarray of shape (n_samples, ``n_components_``)
        """
        check_is_fitted(self)
        kernel = fitted_param(self, "kernel")
        precomputed = kernel == "precomputed"
        checks = PRECOMPUTED_CHECKS if precomputed else INPUT_CHECKS
        X = validate_input(self, X, reset=False, **checks)
        columns = buffer(self._columns, X.dtype)
        if precomputed:
            components = None
        else:
            view = getattr(self, "_components_view", None)
            components = as_rust_matrix(self.components_ if view is None else view)
            if kernel in ("chi2", "intersection"):
                # The inner-product kernels read dense rows through a matrix product;
                # the others gather non-zeros, faster from CSR.
                X = kernel_view(X)
        return _core.nystroem_features(
            as_rust_matrix(X),
            components,
            columns,
            buffer(self.component_indices_, np.int64),
            kernel=self._kernel_args(),
            n_threads=n_threads(self.n_jobs),
        )

    # The extension reads the transpose of scikit-learn's ``normalization_`` (row
    # ``j``: landmark ``j``'s coefficients on the outputs), kept as ``_columns``;
    # ``normalization_`` is its transpose, a view (transposing is exact, so the
    # features are the same bits either way).
    @property
    def normalization_(self) -> NDArray[np.float64]:
        try:
            return self._columns.T
        except AttributeError:
            raise AttributeError("'Nystroem' object has no attribute 'normalization_'") from None

    @normalization_.setter
    def normalization_(self, value: ArrayLike) -> None:
        self._columns = np.ascontiguousarray(np.asarray(value).T)


_ADDITIVE = ("chi2", "intersection", "js")


@persisted
@filled
class AdditiveKernelMap(CachedParamNames, TransformerMixin, BaseEstimator):
    """Homogeneous kernel map of an additive kernel (Vedaldi and Zisserman, 2012).

    For non-negative data (histograms, bag-of-words counts) and the additive kernels
    ``K(x, y) = sum_j k(x_j, y_j)`` with

    * ``"chi2"``: ``k(x, y) = 2xy / (x + y)``,
    * ``"intersection"``: ``k(x, y) = min(x, y)``,
    * ``"js"`` (Jensen-Shannon): ``k(x, y) = x/2 log2((x+y)/x) + y/2 log2((x+y)/y)``,

    each input feature becomes ``2 order + 1`` features sampling the kernel's
    spectrum at steps ``L = 2 pi / period``, so that ``psi(x) . psi(y)`` approximates
    ``K(x, y)``. Zeros stay zeros (CSR in, CSR out); feature ``j``'s outputs are
    columns ``j (2 order + 1)`` to ``(j + 1)(2 order + 1) - 1``: ``sqrt(x)`` times a
    constant, then a cosine and a sine of ``k L ln(x)`` for ``k = 1..order``
    (:meth:`get_feature_names_out` names them ``additivekernelmap_<feature>_sqrt``,
    ``..._cos1``, ``..._sin1``, ...). With ``kernel="chi2"``
    it is scikit-learn's ``AdditiveChi2Sampler`` (``sample_steps = order + 1``,
    ``sample_interval = L``), with the columns in another order. On random sparse
    histograms the relative error ``||K - Z Z^T||_F / ||K||_F`` is below 0.05 / 0.01
    / 0.003 at orders 1 / 3 / 5 for chi2 and js, and 0.1 / 0.06 / 0.05 for
    intersection (tested).

    Parameters
    ----------
    kernel : {"chi2", "intersection", "js"}, default="chi2"
    order : int, default=2
        ``n``: ``2n + 1`` features per input feature. The worst error of one feature's
        kernel value relative to ``sqrt(xy)`` over ``|ln(y/x)| <= 3`` at the default
        period: chi2 0.096 / 0.031 / 0.013 / 0.003 at orders 1 / 2 / 3 / 5; js
        0.074 / 0.022 / 0.008 / 0.002; intersection (a non-smooth kernel) 0.16 /
        0.12 / 0.10 / 0.07.
    period : float or None, default=None
        Period of the approximation in ``ln(y/x)``; None uses VLFeat's rule, which
        grows with the order (chi2: ``5.86 sqrt(order) + 3.65``).
    n_jobs : int or None, default=None
        Threads of :meth:`transform`.
    {map_verbose}

    Attributes
    ----------
    period_ : float
    sample_interval_ : float
        ``L = 2 pi / period_``.
    n_features_in_ : int

    Notes
    -----
    {notes_maps}
    """

    #: What a model file holds (pegasos_rs.io.model_io reads only this declaration).
    _saved_state = _model_file.SavedState(
        scalars={
            "n_features_in_": "count",
            "period_": "number",
            "sample_interval_": "number",
            "_n_features_out": "count",
        },
        check=_check_saved_additive,
    )

    _parameter_constraints: dict = {  # noqa: RUF012 (scikit-learn convention)
        "kernel": [StrOptions(set(_ADDITIVE))],
        "order": [Interval(Integral, 0, 1000, closed="both")],
        "period": [Interval(Real, 0, None, closed="neither"), None],
        "n_jobs": [None, Integral],
        "verbose": ["verbose"],
    }

    def __init__(
        self,
        kernel: AdditiveKernelName = "chi2",
        *,
        order: Int = 2,
        period: Float | None = None,
        n_jobs: Int | None = None,
        verbose: Int = 0,
    ) -> None:
        self.kernel = kernel
        self.order = order
        self.period = period
        self.n_jobs = n_jobs
        self.verbose = verbose

    def __sklearn_tags__(self):
        tags = _sparse_tags(super().__sklearn_tags__())
        tags.input_tags.positive_only = True
        tags.requires_fit = True
        return tags

    @_fit_method
    @filled
    def fit(self, X: MatrixLike, y: object = None) -> Self:
        """Check ``X`` (non-negative) and record the map's sampling.

        {map_fit_parameters}
        """
        X = validate_input(self, X, accept_sparse="csr", dtype=[np.float64, np.float32])
        check_non_negative(X, f"{type(self).__name__} (input X)")
        return self._sample(X.shape[1])

    def get_feature_names_out(self, input_features: ArrayLike | None = None) -> NDArray[Any]:
        """Names of the output columns, as scikit-learn's ``AdditiveChi2Sampler``
        forms them, in this map's column order.

        Parameters
        ----------
        input_features : array-like of str or None, default=None
            The input feature names; checked against ``feature_names_in_`` when it
            is set. None: ``feature_names_in_``, or ``x0``, ``x1``, ... .

        Returns
        -------
        ndarray of str objects
            For each input feature ``f`` in turn, ``additivekernelmap_f_sqrt``, then
            ``additivekernelmap_f_cos<k>`` and ``additivekernelmap_f_sin<k>`` for
            ``k = 1..order``.
        """
        check_is_fitted(self, "n_features_in_")
        names = _check_feature_names_in(self, input_features)
        prefix = type(self).__name__.lower()
        suffixes = ["sqrt"]
        for k in range(1, int(fitted_param(self, "order")) + 1):
            suffixes += [f"cos{k}", f"sin{k}"]
        return np.asarray(
            [f"{prefix}_{name}_{suffix}" for name in names for suffix in suffixes],
            dtype=object,
        )

    def _sample(self, n_features: int) -> Self:
        """Record the map's sampling for ``n_features`` inputs."""
        period = None if self.period is None else float(self.period)
        self.sample_interval_, self.period_ = _core.additive_map_info(
            self.kernel, int(self.order), period
        )
        self._n_features_out = n_features * (2 * int(self.order) + 1)
        return self

    @reported("rows")
    def transform(self, X: MatrixLike) -> Matrix:
        """The map of ``X``: CSR for sparse input, dense otherwise; dtype of ``X``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        ndarray or CSR matrix of shape (n_samples, n_features * (2 order + 1))
        """
        check_is_fitted(self)
        X = validate_input(
            self, X, reset=False, accept_sparse="csr", dtype=[np.float64, np.float32]
        )
        if sp.issparse(X):
            X = canonical_csr(X)  # the map is not linear: repeated entries add up first
        out = _core.additive_features(
            as_rust_matrix(X),
            fitted_param(self, "kernel"),
            int(fitted_param(self, "order")),
            self.period_,
            n_threads(self.n_jobs),
        )
        if not sp.issparse(X):
            return out
        # int32 indices when they fit (made so in Rust: no conversion here).
        data, indices, indptr = out
        return sp.csr_matrix((data, indices, indptr), shape=(X.shape[0], self._n_features_out))
