"""A seeded non-linear classification problem: dense Gaussian rows labelled by a
random rbf network (issue 40's 10^6-row problem).

* rows: ``x ~ N(0, I_d)``, ``d = 20`` features, values rounded to :data:`DECIMALS`
  decimals, so that the svmlight files :func:`write_svmlight` writes hold exactly
  the rows :func:`make_rbf_network` returns;
* the labelling function: ``f(x) = sum_j a_j exp(-width ||x - c_j||^2)`` over
  :data:`N_CENTERS` centres ``c_j ~ N(0, I_d)`` with weights ``a_j ~ N(0, 1)``; the
  clean label is ``+1`` where ``f(x)`` is above the median of ``f`` on a fixed pilot
  sample (balanced classes), else ``-1``;
* label noise: each label flipped with probability ``noise`` (2 %), independently of
  ``x``. The clean labelling is a function of ``x``, so the Bayes classifier is that
  function and the Bayes accuracy is ``1 - noise``, 98 %, by construction
  (:func:`bayes_accuracy` gives the realised value of a set: its unflipped share).

bench_budget.py's page shows what SVC on a subsample, Nyström + a linear model and
the budgeted kernel models reach on it (rbf, ``gamma = width / 2``).

Rows are generated in chunks of :data:`CHUNK` rows, chunk ``k`` from its own seed
``(seed, k)``: the first ``m`` rows of a larger set are exactly the set of ``m`` rows
(nested training sets), and a chunk can be made alone (on a worker, or while writing
a file). Test rows come from chunks numbered from :data:`TEST_CHUNK0` on, disjoint
from every training set. This is :mod:`rcv1_like`'s layout, for dense rows.
"""

from __future__ import annotations

import functools
import os
from pathlib import Path

import numpy as np

N_FEATURES = 20
N_CENTERS = 30
#: The centres' rbf width in the labelling function.
WIDTH = 0.05
NOISE = 0.02
DECIMALS = 6
CHUNK = 50_000
TEST_CHUNK0 = 1_000_000
_PILOT_CHUNK = 2_000_000
_MODEL_CHUNK = 3_000_000
_PILOT_ROWS = 20_000


@functools.lru_cache(maxsize=4)
def _network(seed: int, d: int, centers: int, width: float):
    """The centres, their weights and the label threshold (the median of ``f`` on a
    pilot sample)."""
    rng = np.random.RandomState([seed, _MODEL_CHUNK])
    c = rng.standard_normal((centers, d))
    a = rng.standard_normal(centers)
    pilot = np.random.RandomState([seed, _PILOT_CHUNK]).standard_normal((_PILOT_ROWS, d))
    threshold = float(np.median(_f(pilot, c, a, width)))
    return c, a, threshold


def _f(X: np.ndarray, c: np.ndarray, a: np.ndarray, width: float) -> np.ndarray:
    sq = np.einsum("ij,ij->i", X, X)[:, None] - 2.0 * (X @ c.T) + np.einsum("ij,ij->i", c, c)
    return np.exp(-width * np.maximum(sq, 0.0)) @ a


def chunk(
    k: int,
    *,
    seed: int = 0,
    n_features: int = N_FEATURES,
    centers: int = N_CENTERS,
    width: float = WIDTH,
    noise: float = NOISE,
    rows: int | None = None,
    clean: bool = False,
):
    """Chunk ``k`` (:data:`CHUNK` rows: float64 C-ordered ``X``, labels in {-1, +1}),
    or its first ``rows`` rows (the same rows). ``clean=True`` also returns the
    labels before the noise: ``(X, y, y_clean)``."""
    rows = CHUNK if rows is None else rows
    if not 0 < rows <= CHUNK:
        raise ValueError(f"rows must be in 1..{CHUNK}, got {rows}")
    c, a, threshold = _network(seed, n_features, centers, width)
    rng = np.random.RandomState([seed, k])
    X = np.round(rng.standard_normal((CHUNK, n_features))[:rows], DECIMALS)
    y_clean = np.where(_f(X, c, a, width) > threshold, 1, -1)
    flip = rng.random_sample(CHUNK)[:rows] < noise
    y = np.where(flip, -y_clean, y_clean)
    return (X, y, y_clean) if clean else (X, y)


def make_rbf_network(n_rows: int, *, test: bool = False, clean: bool = False, **shape):
    """``(X, y)``: ``n_rows`` training rows (or test rows with ``test=True``), dense
    float64, labels in {-1, +1}; ``(X, y, y_clean)`` with ``clean=True``. ``shape``:
    the keywords of :func:`chunk` (``seed``, ``n_features``, ...)."""
    d = shape.get("n_features", N_FEATURES)
    X = np.empty((n_rows, d))
    y = np.empty(n_rows, dtype=np.int64)
    y_clean = np.empty(n_rows, dtype=np.int64)
    k = TEST_CHUNK0 if test else 0
    done = 0
    while done < n_rows:
        take = min(n_rows - done, CHUNK)
        X[done : done + take], y[done : done + take], y_clean[done : done + take] = chunk(
            k, rows=take, clean=True, **shape
        )
        done += take
        k += 1
    return (X, y, y_clean) if clean else (X, y)


def bayes_accuracy(y: np.ndarray, y_clean: np.ndarray) -> float:
    """The Bayes classifier's accuracy on a set: the share of its labels the noise
    left as they were (``1 - noise`` in expectation)."""
    return float(np.mean(np.asarray(y) == np.asarray(y_clean)))


def write_svmlight(
    folder: str | os.PathLike,
    n_rows: int,
    *,
    rows_per_file: int = 250_000,
    test: bool = False,
    **shape,
) -> list[Path]:
    """Write the ``n_rows`` rows of :func:`make_rbf_network` (the same rows, the same
    order) as svmlight files of ``rows_per_file`` rows (a multiple of
    :data:`CHUNK`, but the last), ``part_000.svm``, ... in ``folder``, one chunk in
    memory at a time, zero-based feature indices (for ``read_svmlight(...,
    n_features=20, zero_based=True)``). A file already there is kept (each is
    written to ``.part`` first, then renamed). Returns the files in row order."""
    import pegasos_rs

    if rows_per_file % CHUNK:
        raise ValueError(f"rows_per_file must be a multiple of {CHUNK}, got {rows_per_file}")
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    first = TEST_CHUNK0 if test else 0
    stem = "test" if test else "part"
    files = []
    for i, start in enumerate(range(0, n_rows, rows_per_file)):
        path = folder / f"{stem}_{i:03d}.svm"
        files.append(path)
        if path.exists():
            continue
        tmp = path.with_suffix(".svm.part")
        with open(tmp, "wb") as f:
            for row in range(start, min(n_rows, start + rows_per_file), CHUNK):
                take = min(CHUNK, n_rows - row)
                X, y = chunk(first + row // CHUNK, rows=take, **shape)
                pegasos_rs.dump_svmlight_file(X, y, f, zero_based=True)
        os.replace(tmp, path)
    return files
