"""What a model file holds for scikit-learn's ``StandardScaler`` and
``MaxAbsScaler``, and the checks that a loaded one is consistent (the package's own
classes, the feature maps of :mod:`pegasos_rs.kernel_approximation` among them,
declare theirs as their ``_saved_state``).

Each transformer is saved as its parameters plus the fitted attributes its
``transform`` reads, nothing else: the check of a loaded one makes sure those agree
with each other (shapes, dtypes, index ranges, finite numbers), so that ``transform``
gives the saved transformer's features or raises ``ValueError``, never anything worse.
"""

from __future__ import annotations

import numpy as np
from sklearn.preprocessing import MaxAbsScaler, StandardScaler

from pegasos_rs.io import _model_file


def _check_standard(est, need) -> None:
    _model_file.require_scalars(est, SAVED_STATE["StandardScaler"], need)
    n = est.n_features_in_
    _check_seen(est, n, need)
    for attr, used in (("mean_", est.with_mean), ("scale_", est.with_std), ("var_", False)):
        value = getattr(est, attr)
        need(
            (value is None and not used) or _floats(value, (n,)),
            f"{attr} must be floats of shape ({n},)",
        )
    _check_scale(est.scale_, need)


def _check_max_abs(est, need) -> None:
    _model_file.require_scalars(est, SAVED_STATE["MaxAbsScaler"], need)
    n = est.n_features_in_
    _check_seen(est, n, need)
    for attr in ("max_abs_", "scale_"):
        need(_floats(getattr(est, attr, None), (n,)), f"{attr} must be floats of shape ({n},)")
    _check_scale(est.scale_, need)


#: What a model file holds of scikit-learn's scalers, whose classes cannot declare
#: it (the package's own classes declare theirs as ``_saved_state``): their public
#: fitted attributes. A numpy scalar or array ``n_samples_seen_`` (one count per
#: feature when the scaler saw NaNs) is stored with the arrays, so that it is read
#: back as it was.
SAVED_STATE = {
    "StandardScaler": _model_file.SavedState(
        arrays=("mean_", "var_", "scale_", "n_samples_seen_"),
        scalars={"n_features_in_": "count", "n_samples_seen_": "seen"},
        optional=("mean_", "var_", "scale_"),
        check=_check_standard,
    ),
    "MaxAbsScaler": _model_file.SavedState(
        arrays=("max_abs_", "scale_"),
        scalars={"n_features_in_": "count", "n_samples_seen_": "seen"},
        check=_check_max_abs,
    ),
}


def classes() -> dict:
    """scikit-learn's scalers that model files may hold, by name."""
    return {c.__name__: c for c in (StandardScaler, MaxAbsScaler)}


def _floats(a, shape) -> bool:
    return isinstance(a, np.ndarray) and a.shape == shape and a.dtype.kind == "f"


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
