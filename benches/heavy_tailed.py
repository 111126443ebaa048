"""A seeded regression set whose rows' squared norms have a heavy tail once
standardised, as cpusmall's (issue 36).

Each row of Gaussian features is scaled by a log-normal factor ``exp(N(0, 1))``: after
standardisation the longest row's squared norm is about 125 times the mean (with the
default sizes). The target is linear in the rows plus Gaussian noise. Used by the
tests of the squared losses' start (``tests/test_defaults.py``) and by
``bench_defaults.py``.
"""

from __future__ import annotations

import numpy as np


def heavy_tailed_rows(seed: int = 0, n: int = 3000, d: int = 10) -> tuple[np.ndarray, np.ndarray]:
    """``(X, y)``: ``n`` rows of ``d`` features, each row Gaussian times a log-normal
    factor, and ``y = 50 + 3 <x, w> + 5 N(0, 1)`` for a Gaussian ``w``, all drawn from
    ``RandomState(seed)``."""
    rng = np.random.RandomState(seed)
    X = rng.randn(n, d) * np.exp(rng.randn(n, 1))
    y = 50.0 + 3.0 * X @ rng.randn(d) + 5.0 * rng.randn(n)
    return X, y
