"""A seeded generator of text-like data shaped like RCV1 (issue 5).

RCV1 (binary, CCAT): about 800k documents, 47,236 features, about 75 non-zeros per
row, feature frequencies heavy-tailed (Zipf-like), rows L2-normalised TF-IDF. This
generator reproduces those statistics with a planted linear separator and label
noise, at any number of rows:

* each row has ``1 + Poisson(1.55 (nnz - 1))`` term draws, about ``nnz`` distinct;
  term ids follow ``p(rank) ∝ rank^-1.1`` over a fixed random permutation of the
  feature ids (repeated terms add up, as term counts do);
* a value is ``idf(term) * (1 + Exponential(1))``, with ``idf = log(1 + d / rank)``;
  rows are then L2-normalised;
* the label is the sign of ``<w*, x> - threshold`` for a fixed sparse Gaussian ``w*``
  (the threshold, the median score of a fixed pilot sample, balances the classes),
  flipped with probability ``noise``.

Rows are generated in chunks of :data:`CHUNK` rows, chunk ``k`` from its own seed
``(seed, k)``: the first ``m`` rows of a larger set are exactly the set of ``m`` rows,
so training sets of growing size are nested. Test rows come from chunks numbered from
:data:`TEST_CHUNK0` on, disjoint from every training set.
"""

from __future__ import annotations

import functools

import numpy as np
import scipy.sparse as sp

N_FEATURES = 47_236
NNZ_PER_ROW = 75
CHUNK = 50_000
TEST_CHUNK0 = 1_000_000
#: Term draws per distinct non-zero: repeated terms merge, and with this Zipf law
#: about 1.55 draws give one distinct term: 76 per row measured for 75.
_DRAWS_PER_NONZERO = 1.55
_PILOT_CHUNK = 2_000_000
_MODEL_CHUNK = 3_000_000


def _model(seed: int, d: int):
    """The fixed parts: term permutation, Zipf CDF, idf, planted separator."""
    rng = np.random.RandomState([seed, _MODEL_CHUNK])
    perm = rng.permutation(d)
    ranks = np.arange(1, d + 1, dtype=np.float64)
    p = ranks**-1.1
    cdf = np.cumsum(p / p.sum())
    idf = np.empty(d)
    idf[perm] = np.log1p(d / ranks)
    w = rng.standard_normal(d) * (rng.random_sample(d) < 0.3)
    return perm, cdf, idf, w


def _rows(rng, n: int, d: int, nnz: int, perm, cdf, idf, keep: int | None = None):
    """``n`` rows drawn from ``rng``, or their first ``keep``: every draw of the ``n``
    rows is made (the stream goes on as after all of them), only the kept rows are
    built."""
    counts = 1 + rng.poisson(_DRAWS_PER_NONZERO * (nnz - 1), size=n)
    total = int(counts.sum())
    n = n if keep is None else keep
    counts = counts[:n]
    kept = int(counts.sum())
    ranks = np.minimum(np.searchsorted(cdf, rng.random_sample(total)[:kept]), d - 1)
    cols = perm[ranks]
    rows = np.repeat(np.arange(n), counts)
    vals = idf[cols] * (1.0 + rng.exponential(1.0, size=total)[:kept])
    X = sp.csr_matrix((vals, (rows, cols)), shape=(n, d))
    X.sum_duplicates()
    norms = np.sqrt(np.bincount(np.repeat(np.arange(n), np.diff(X.indptr)), X.data**2, n))
    X.data /= np.repeat(np.maximum(norms, 1e-300), np.diff(X.indptr))
    return X


class _CsrBuilder:
    """Appends CSR chunks into preallocated arrays (grown by half when full), so that
    10^7 rows need one copy of the data, not the parts plus their stacked copy."""

    def __init__(self, n_rows: int, d: int, nnz_guess: int, dtype) -> None:
        self.d, self.n_rows, self.rows, self.nnz = d, n_rows, 0, 0
        self.data = np.empty(nnz_guess, dtype=dtype)
        self.indices = np.empty(nnz_guess, dtype=np.int32)
        self.indptr = np.zeros(n_rows + 1, dtype=np.int64)

    def append(self, X: sp.csr_matrix) -> None:
        n, k = X.shape[0], X.nnz
        if self.nnz + k > self.data.size:
            size = max(self.nnz + k, self.data.size + self.data.size // 2)
            self.data = np.resize(self.data, size)
            self.indices = np.resize(self.indices, size)
        self.data[self.nnz : self.nnz + k] = X.data
        self.indices[self.nnz : self.nnz + k] = X.indices
        self.indptr[self.rows + 1 : self.rows + n + 1] = self.nnz + X.indptr[1:]
        self.rows += n
        self.nnz += k

    def finish(self) -> sp.csr_matrix:
        indptr = self.indptr
        if self.nnz <= np.iinfo(np.int32).max:
            indptr = indptr.astype(np.int32)
        shape = (self.n_rows, self.d)
        args = (self.data[: self.nnz], self.indices[: self.nnz], indptr)
        return sp.csr_matrix(args, shape=shape, copy=False)


@functools.lru_cache(maxsize=4)
def _fixed(seed: int, d: int, nnz: int):
    """The model and the label threshold (the median score of a pilot sample)."""
    perm, cdf, idf, w = _model(seed, d)
    pilot = _rows(np.random.RandomState([seed, _PILOT_CHUNK]), 5000, d, nnz, perm, cdf, idf)
    return perm, cdf, idf, w, float(np.median(pilot @ w))


def chunk(
    k: int,
    *,
    seed: int = 0,
    n_features: int = N_FEATURES,
    nnz_per_row: int = NNZ_PER_ROW,
    noise: float = 0.05,
    rows: int | None = None,
):
    """Chunk ``k`` (:data:`CHUNK` rows, float64 CSR, labels in {-1, +1}), or its
    first ``rows`` rows (built alone, the same rows): what a worker generates for its
    own part of a large set (training chunks from 0, test chunks from
    :data:`TEST_CHUNK0`)."""
    rows = CHUNK if rows is None else rows
    if not 0 < rows <= CHUNK:
        raise ValueError(f"rows must be in 1..{CHUNK}, got {rows}")
    perm, cdf, idf, w, threshold = _fixed(seed, n_features, nnz_per_row)
    rng = np.random.RandomState([seed, k])
    X = _rows(rng, CHUNK, n_features, nnz_per_row, perm, cdf, idf, keep=rows)
    y = np.where(X @ w > threshold, 1, -1)
    flip = rng.random_sample(CHUNK)[:rows] < noise
    y[flip] = -y[flip]
    return X, y


def _generate(first_chunk: int, n_rows: int, seed: int, d: int, nnz: int, noise: float, dtype):
    out = _CsrBuilder(n_rows, d, int(n_rows * (nnz + 2)), dtype)
    labels = np.empty(n_rows, dtype=np.int64)
    k = first_chunk
    while out.rows < n_rows:
        take = min(n_rows - out.rows, CHUNK)
        X, y = chunk(k, seed=seed, n_features=d, nnz_per_row=nnz, noise=noise, rows=take)
        labels[out.rows : out.rows + take] = y
        out.append(X)
        k += 1
    return out.finish(), labels


def make_rcv1_like(
    n_rows: int,
    *,
    seed: int = 0,
    n_features: int = N_FEATURES,
    nnz_per_row: int = NNZ_PER_ROW,
    noise: float = 0.05,
    test: bool = False,
    dtype=np.float64,
):
    """``(X, y)``: ``n_rows`` training rows (or test rows with ``test=True``), CSR of
    ``dtype`` (values computed in float64, then rounded) with int32 indices, labels in
    {-1, +1}."""
    first = TEST_CHUNK0 if test else 0
    return _generate(first, n_rows, seed, n_features, nnz_per_row, noise, dtype)
