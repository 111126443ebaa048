"""Early stopping as scikit-learn's ``SGDClassifier`` has it: ``early_stopping``,
``validation_fraction`` and ``n_iter_no_change``, shared by the linear and kernel
estimators.

A fraction of the training rows is held out (stratified by class for a
classifier, as scikit-learn does; seeded by ``random_state``); the rows are
reordered so that the held-out ones come last, in their original order after the
training rows in theirs, and the extension trains on the first ones and scores
each pass's model on the last ones (``pegasos_core::solvers::held_out``: accuracy
on each binary problem's labels, R^2 for a regression, weighted by the sample
weights). The fit on the training rows is therefore the fit on ``X[train]`` alone,
bit for bit, until the rule stops it.
"""

from __future__ import annotations

from numbers import Real
from typing import Any

import numpy as np

from pegasos_rs._fit_inputs import seed_from

#: The improvement of the held-out score that counts when ``tol`` is None (the
#: core's ``SCORE_TOL``, scikit-learn's default ``tol``).
SCORE_TOL = 1e-3


def score_tol(est: Any) -> float:
    """The improvement of the held-out score early stopping asks of ``est``."""
    tol = getattr(est, "tol", None)
    return SCORE_TOL if tol is None else float(tol)


def constraints() -> dict[str, list[Any]]:
    """The ``_parameter_constraints`` entries of ``early_stopping`` and
    ``validation_fraction``."""
    from sklearn.utils._param_validation import Interval

    return {
        "early_stopping": ["boolean"],
        "validation_fraction": [Interval(Real, 0, 1, closed="neither")],
    }


def held_out_order(
    est: Any, codes: np.ndarray | None, n_rows: int, sample_weight: np.ndarray | None = None
) -> tuple[np.ndarray, int]:
    """The order of the rows that puts the held-out ones last, and their number.

    ``codes`` are the class codes (a stratified split, as scikit-learn's
    ``SGDClassifier``), or None for a regression (a plain shuffled split).
    Raises ``ValueError`` when either part would be empty, or when the held-out
    rows all weigh 0 (no score to stop by), as scikit-learn does.
    """
    from sklearn.model_selection import ShuffleSplit, StratifiedShuffleSplit

    fraction = float(est.validation_fraction)
    n_held = int(np.ceil(fraction * n_rows))
    if codes is not None:
        # A stratified split holds out a row of every class at least (scikit-learn's
        # splitter refuses fewer), so each one-vs-rest problem has both labels.
        n_held = max(n_held, int(np.unique(codes).size))
    if n_held == 0 or n_held >= n_rows:
        raise ValueError(
            f"Splitting {n_rows} samples into a train set and a validation set with "
            f"validation_fraction={fraction} led to an empty set ({n_rows - n_held} and "
            f"{n_held} samples). Please either change validation_fraction, increase "
            "the number of samples, or disable early_stopping."
        )
    seed = seed_from(est.random_state) % 2**32
    splitter: Any
    if codes is None:
        splitter = ShuffleSplit(test_size=n_held, random_state=seed)
        target = np.zeros(n_rows)
    else:
        splitter = StratifiedShuffleSplit(test_size=n_held, random_state=seed)
        target = codes
    try:
        train, held = next(splitter.split(np.zeros((n_rows, 1)), target))
    except ValueError as e:
        raise ValueError(
            f"early_stopping holds out validation_fraction={fraction} of the rows, "
            f"stratified by class: {e}"
        ) from e
    if sample_weight is not None and not np.any(sample_weight[held] > 0):
        raise ValueError(
            "early_stopping: the sample weights of the held-out rows are all zero, so "
            "no score can be computed on them; use another random_state or "
            "validation_fraction"
        )
    return np.concatenate([np.sort(train), np.sort(held)]), int(held.size)


def reorder(order: np.ndarray, X: Any, *arrays: Any) -> list[Any]:
    """The matrix ``X`` and each of ``arrays`` (labels, weights; None stays None)
    with their rows in ``order``: copies, C-ordered or CSR as the extension reads
    them. ``X`` is checked first (structure, finite values), so that an error names
    the row of ``X``, not of the copy."""
    from pegasos_rs import _core
    from pegasos_rs._arrays import as_rust_matrix

    _core.check_matrix(as_rust_matrix(X))
    return _reordered(order, X, *arrays)


def _reordered(order: np.ndarray, *arrays: Any) -> list[Any]:
    """Each of ``arrays`` with its rows in ``order`` (see :func:`reorder`)."""
    out: list[Any] = []
    for a in arrays:
        if a is None:
            out.append(None)
        elif hasattr(a, "tocsr"):
            out.append(a[order].tocsr())
        else:
            out.append(np.ascontiguousarray(np.asarray(a)[order]))
    return out


def check_early_stopping(
    est: Any, n_classes: int = 2, *, partial: bool = False, unchecked: bool = False
) -> bool:
    """Whether this fit of ``est`` (of ``n_classes`` classes; 2 for a regression)
    holds rows out; ``ValueError`` for what early stopping cannot combine with."""
    if not getattr(est, "early_stopping", False) or partial:
        return False
    if unchecked:
        raise ValueError(
            "early_stopping=True cannot be combined with check_input=False: holding "
            "rows out copies and reads every row of X"
        )
    if getattr(est, "max_steps", None) is not None:
        raise ValueError(
            "early_stopping=True stops between passes; max_steps runs one 'pass' of "
            "exactly max_steps steps: set one of them"
        )
    multi_class = getattr(est, "multi_class", "ovr")
    # Two classes are one binary problem whichever way more would be trained,
    # except Crammer-Singer's joint model.
    if multi_class == "crammer_singer" or (multi_class == "ovr_shared" and n_classes > 2):
        raise ValueError(
            f"early_stopping=True scores each one-vs-rest problem on the held-out rows "
            f"and stops it by its own score; multi_class={multi_class!r} trains the "
            "classes together: use multi_class='ovr'"
        )
    return True
