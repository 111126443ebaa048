"""What a model file holds for the transformers it can save (the feature maps of
:mod:`pegasos_rs.kernel_approximation` and scikit-learn's ``StandardScaler`` and
``MaxAbsScaler``), and the checks that a loaded one is consistent.

Each transformer is saved as its parameters plus the fitted attributes its
``transform`` reads, nothing else: the check of a loaded one makes sure those agree
with each other (shapes, dtypes, index ranges, finite numbers), so that ``transform``
gives the saved transformer's features or raises ``ValueError``, never anything worse.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import scipy.sparse as sp
from sklearn.preprocessing import MaxAbsScaler, StandardScaler

from pegasos_rs import _registry

#: Fitted attributes stored as arrays (dense or CSR; those that are None are left out).
ARRAYS = {
    "RandomFourierFeatures": ["random_weights_", "random_offset_"],
    "Nystroem": ["components_", "_components_view", "component_indices_", "normalization_"],
    "AdditiveKernelMap": [],
    "StandardScaler": ["mean_", "var_", "scale_", "n_samples_seen_"],
    "MaxAbsScaler": ["max_abs_", "scale_"],
}

#: Fitted attributes stored in the header, by kind: "count" (int >= 0), "number" (a
#: float or int), "str", "seen" (an int, or a float for weighted samples). A numpy
#: scalar or array ``n_samples_seen_`` (one count per feature when the scaler saw
#: NaNs) is stored with the arrays instead, so that it is read back as it was.
SCALARS = {
    "RandomFourierFeatures": {
        "n_features_in_": "count",
        "gamma_": "number",
        "_n_features_out": "count",
        "_form": "str",
    },
    "Nystroem": {
        "n_features_in_": "count",
        "gamma_": "number",
        "rank_": "count",
        "n_components_": "count",
        "_n_features_out": "count",
    },
    "AdditiveKernelMap": {
        "n_features_in_": "count",
        "period_": "number",
        "sample_interval_": "number",
        "_n_features_out": "count",
    },
    "StandardScaler": {"n_features_in_": "count", "n_samples_seen_": "seen"},
    "MaxAbsScaler": {"n_features_in_": "count", "n_samples_seen_": "seen"},
}

#: Attributes that are None in a fitted transformer when absent from the file.
OPTIONAL = {
    "Nystroem": ["_components_view"],
    "StandardScaler": ["mean_", "var_", "scale_"],
}


def classes() -> dict:
    """The transformer classes by name: scikit-learn's scalers, and the feature maps
    as :mod:`pegasos_rs.kernel_approximation` registered them (this module imports
    none of the package's estimators)."""
    registered = _registry.classes()
    found = {c.__name__: c for c in (StandardScaler, MaxAbsScaler)}
    return found | {n: registered[n] for n in SCALARS if n in registered}


def check(est, name: str, need) -> None:
    """Check a loaded transformer; ``need(condition, what)`` reports a failure."""
    for attr in SCALARS[name]:
        need(hasattr(est, attr), f"{attr} is missing")
    n = est.n_features_in_
    CHECKS[name](est, n, need)


def _floats(a, shape) -> bool:
    return isinstance(a, np.ndarray) and a.shape == shape and a.dtype.kind == "f"


def _positive(value) -> bool:
    return isinstance(value, (int, float)) and math.isfinite(value) and value > 0


def _check_fourier(est, n: int, need) -> None:
    out = est._n_features_out
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


def _check_nystroem(est, n: int, need) -> None:
    m = est.n_components_
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


def _check_additive(est, n: int, need) -> None:
    width = 2 * int(est.order) + 1
    need(_positive(est.period_), "period_ must be a positive number")
    need(_positive(est.sample_interval_), "sample_interval_ must be a positive number")
    need(est._n_features_out == n * width, f"_n_features_out must be {n} * {width}")


def _check_seen(est, n: int, need) -> None:
    seen = est.n_samples_seen_
    need(
        isinstance(seen, (int, float, np.integer, np.floating))
        or (isinstance(seen, np.ndarray) and seen.shape == (n,) and seen.dtype.kind in "iuf"),
        f"n_samples_seen_ must be a number or {n} numbers",
    )


def _check_scale(scale, need) -> None:
    """A scaler divides by ``scale_``: scikit-learn makes it finite and non-zero."""
    if scale is not None:
        need(
            bool(np.all(np.isfinite(scale)) and np.all(scale != 0)), "scale_ must be finite, not 0"
        )


def _check_standard(est, n: int, need) -> None:
    _check_seen(est, n, need)
    for attr, used in (("mean_", est.with_mean), ("scale_", est.with_std), ("var_", False)):
        value = getattr(est, attr)
        need(
            (value is None and not used) or _floats(value, (n,)),
            f"{attr} must be floats of shape ({n},)",
        )
    _check_scale(est.scale_, need)


def _check_max_abs(est, n: int, need) -> None:
    _check_seen(est, n, need)
    for attr in ("max_abs_", "scale_"):
        need(_floats(getattr(est, attr, None), (n,)), f"{attr} must be floats of shape ({n},)")
    _check_scale(est.scale_, need)


CHECKS = {
    "RandomFourierFeatures": _check_fourier,
    "Nystroem": _check_nystroem,
    "AdditiveKernelMap": _check_additive,
    "StandardScaler": _check_standard,
    "MaxAbsScaler": _check_max_abs,
}
