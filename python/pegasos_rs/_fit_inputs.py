"""What a fit hands the extension besides the matrix: class codes, class weights,
the seed and the solver-parameter dict.

Imports no scikit-learn (only for the rare inputs its own checks must judge, when
they occur), so that ``pegasos-rs train`` shares these functions with the
estimators without paying for scikit-learn's import. :mod:`pegasos_rs._validation`
re-exports them.
"""

from __future__ import annotations

import numbers

import numpy as np


def check_targets(y) -> None:
    """scikit-learn's ``check_classification_targets``, answered at once for the
    common labels (integers, or floats with integral values) that it accepts."""
    if y.__class__ is np.ndarray and y.ndim == 1:
        if y.dtype.kind in "biu":
            return
        # Integral values within int32: scikit-learn's own test (astype(int)) agrees.
        if (
            y.dtype.kind == "f"
            and np.isfinite(y).all()
            and (np.abs(y) < 2**31).all()
            and not (y != np.floor(y)).any()
        ):
            return
    from sklearn.utils.multiclass import check_classification_targets

    check_classification_targets(y)


def seed_from(random_state) -> int:
    """A u64 seed: an int ``random_state`` is used as is (so the same int always gives
    the same model); otherwise one seed is drawn from the generator."""
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool):
        if random_state < 0:
            raise ValueError(f"random_state must be non-negative, got {random_state}")
        return int(random_state)
    from sklearn.utils import check_random_state

    rng = check_random_state(random_state)
    return int(rng.randint(np.iinfo(np.int32).max))


def check_classes(estimator_name: str, present, known=None):
    """The classes of a fit from the sorted labels ``present`` in its data: ``known``
    when given (``partial_fit``'s ``classes`` or a previous fit; labels outside it
    raise ``ValueError``), else ``present``; at least two."""
    if known is None:
        known = present
    else:
        unseen = np.setdiff1d(present, known)
        if unseen.size:
            raise ValueError(f"y contains labels not in classes: {unseen.tolist()}")
    if known.size < 2:
        raise ValueError(
            f"{estimator_name} needs samples of at least 2 classes in the data, "
            f"but the data contains only one class: {known.tolist()}"
        )
    return known


def encode_targets(estimator_name: str, y, known=None):
    """Classes and ``uint32`` class codes of ``y`` (see :func:`check_classes`).

    Returns ``(classes, present, counts, codes)``: ``present`` are the classes that
    occur in ``y`` and ``counts`` their numbers of examples.
    """
    present, codes, counts = _unique_codes(y)
    classes = check_classes(estimator_name, present, known)
    if known is not None:
        codes = np.searchsorted(classes, present)[codes]
    return classes, present, counts, codes.astype(np.uint32)


def _unique_codes(y):
    """``np.unique(y, return_inverse=True, return_counts=True)``: for integer labels
    of a small range by counting (a few linear passes) instead of sorting, which at
    10^7 labels costs more than the fit itself."""
    y = np.asarray(y)
    if y.ndim == 1 and y.size and y.dtype.kind == "f":
        # Labels read from svmlight files are floats with integral values.
        finite = np.isfinite(y).all() and np.abs(y).max() < 2**31
        as_int = y.astype(np.int64) if finite else None
        if as_int is not None and (as_int == y).all() and not np.signbit(y[y == 0]).any():
            present, codes, counts = _unique_codes(as_int)
            return present.astype(y.dtype), codes, counts
    if y.ndim == 1 and y.size and y.dtype.kind in "iu":
        lo, hi = int(y.min()), int(y.max())
        if hi - lo < min(1 << 20, 4 * y.size):
            shifted = (y - lo).astype(np.intp, copy=False)
            counts = np.bincount(shifted, minlength=hi - lo + 1)
            offsets = np.flatnonzero(counts)
            lookup = np.zeros(hi - lo + 1, dtype=np.intp)
            lookup[offsets] = np.arange(offsets.size)
            present = (offsets + lo).astype(y.dtype)
            return present, lookup[shifted], counts[offsets]
    present, codes, counts = np.unique(y, return_inverse=True, return_counts=True)
    return present, codes.reshape(-1), counts


def class_weight_vector(class_weight, classes, present, counts):
    """Per-class weights (``float64``, one per class) from a ``class_weight`` option;
    ``counts``: examples of each class in ``present``. The same numbers as
    scikit-learn's ``compute_class_weight(class_weight, classes=present, y=y)``,
    computed operation for operation from the counts (a distributed fit has no ``y``
    in one place) and without importing scikit-learn."""
    weights = np.ones(classes.size)
    if isinstance(class_weight, str) and class_weight == "balanced":
        # scikit-learn's formula, operation for operation.
        counts = np.asarray(counts).astype(np.float64)
        weights[np.searchsorted(classes, present)] = counts.sum() / (present.size * counts)
    elif class_weight is not None and len(class_weight):
        weights[np.searchsorted(classes, present)] = _dict_weights(class_weight, present)
    return weights


def _dict_weights(class_weight, present):
    """scikit-learn's ``compute_class_weight`` for a dict, step by step: a class is
    looked up as ``int(c)`` (as ``str(c)`` when that fails), classes missing from
    the dict weigh 1, and a dict naming labels none of the classes has while some
    class is unweighted is refused with scikit-learn's message."""
    weights = np.ones(present.size)
    unweighted = []
    for i, c in enumerate(present):
        try:
            c = int(c)
        except ValueError:  # string classes
            c = str(c)
        if c in class_weight:
            weights[i] = class_weight[c]
        else:
            unweighted.append(c)
    if unweighted and present.size - len(unweighted) != len(class_weight):
        raise ValueError(f"The classes, {np.array(unweighted).tolist()}, are not in class_weight")
    return weights


def solver_params(
    estimator,
    *,
    max_iter: int | np.integer,
    seed: int,
    average: str = "off",
    average_start: int = 1,
    projection: bool = False,
    intercept_scaling=None,
    max_steps=None,
    tol=None,
    n_iter_no_change: int | np.integer = 1,
    sampling=None,
) -> dict:
    """The solver's settings as the extension reads them (one named dict, the same
    for the linear and the kernel solver): ``estimator``'s ``alpha``,
    ``batch_size``, ``fit_intercept``, ``sampling`` and ``verbose``, and the rest
    as given (``average``: "off", "suffix", "from" (from step ``average_start``) or
    "weighted"; ``sampling``: instead of ``estimator.sampling``)."""
    chosen = estimator.sampling if sampling is None else sampling
    sampling_name, order = sampling_args(chosen)
    return {
        "alpha": float(estimator.alpha),
        "batch_size": int(estimator.batch_size),
        "projection": bool(projection),
        "fit_intercept": bool(estimator.fit_intercept),
        "intercept_scaling": None if intercept_scaling is None else float(intercept_scaling),
        "average": average,
        "average_start": int(average_start),
        "sampling_name": sampling_name,
        "order": order,
        "max_iter": int(max_iter),
        "max_steps": None if max_steps is None else int(max_steps),
        "tol": None if tol is None else float(tol),
        "n_iter_no_change": int(n_iter_no_change),
        "seed": int(seed),
        "verbose": bool(estimator.verbose),
    }


def sampling_args(sampling):
    """``(name, order)`` for the extension from a ``sampling`` option."""
    if isinstance(sampling, str):
        return sampling, None
    order = np.asarray(sampling)
    if order.ndim != 1 or order.size == 0 or not np.issubdtype(order.dtype, np.integer):
        raise ValueError("sampling as a visiting order must be a non-empty 1-D int array")
    return "order", order.astype(np.int64)
