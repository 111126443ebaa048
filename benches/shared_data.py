"""Locating and loading the shared benchmark files (svmlight/IDX, xz-compressed).

The files live outside the package: in ``$PEGASOS_DATA`` or ``../shared/data``
beside a source checkout. Loaded matrices are cached as ``.npz`` next to nothing
the user owns: under ``$PEGASOS_CACHE`` or ``~/.cache/pegasos-rs``.
"""

from __future__ import annotations

import lzma
import os
from pathlib import Path

import numpy as np
import scipy.sparse as sp

#: n_features of each svmlight dataset (test files may not reach the last feature).
N_FEATURES = {
    "a9a": 123,
    "w8a": 300,
    "ijcnn1": 22,
    "reuters-lasvm": 8315,
    "sector": 55197,
    "usps": 256,
    "20news": 385513,
    "imdb": 44958,
    "cpusmall": 12,
    "abalone": 8,
    "dna": 180,
}

#: (train file, test file or None) of each svmlight dataset.
FILES = {
    "a9a": ("a9a.xz", "a9a.t.xz"),
    "w8a": ("w8a.xz", None),
    "ijcnn1": ("ijcnn1.xz", "ijcnn1.t.xz"),
    "reuters-lasvm": ("reuters-lasvm.trn.xz", "reuters-lasvm.tst.xz"),
    "sector": ("sector.scale.xz", "sector.t.scale.xz"),
    "usps": ("usps.xz", "usps.t.xz"),
    "20news": ("20news-bydate.tfidf12.train.xz", "20news-bydate.tfidf12.test.xz"),
    "imdb": ("imdb.tfidf1.train.xz", "imdb.tfidf1.test.xz"),
    "cpusmall": ("cpusmall_scale.xz", None),
    "abalone": ("abalone_scale.xz", None),
    "dna": ("dna.scale.xz", "dna.scale.t.xz"),
}


def data_dir() -> Path | None:
    """The data folder, or None when it cannot be found."""
    env = os.environ.get("PEGASOS_DATA")
    candidates = [Path(env)] if env else []
    here = Path(__file__).resolve()
    candidates += [p / "shared" / "data" for p in here.parents]
    candidates += [Path.cwd().parent / "shared" / "data"]
    for c in candidates:
        if c.is_dir() and any(c.glob("*.xz")):
            return c
    return None


def cache_dir() -> Path:
    """The folder of cached matrices (created): ``$PEGASOS_CACHE`` or
    ``~/.cache/pegasos-rs``, outside the repository."""
    d = Path(os.environ.get("PEGASOS_CACHE", Path.home() / ".cache" / "pegasos-rs"))
    d.mkdir(parents=True, exist_ok=True)
    return d


def _load_svmlight_xz(path: Path, n_features: int):
    from sklearn.datasets import load_svmlight_file

    cache = cache_dir() / (path.name + f".{n_features}.npz")
    if cache.exists() and cache.stat().st_mtime >= path.stat().st_mtime:
        z = np.load(cache)
        X = sp.csr_matrix((z["data"], z["indices"], z["indptr"]), shape=tuple(z["shape"]))
        return X, z["y"]
    with lzma.open(path, "rb") as f:
        X, y = load_svmlight_file(f, n_features=n_features)
    X = sp.csr_matrix(X)
    np.savez(cache, data=X.data, indices=X.indices, indptr=X.indptr, shape=np.array(X.shape), y=y)
    return X, y


def available(name: str) -> bool:
    """True when the files of dataset ``name`` are present."""
    d = data_dir()
    if d is None:
        return False
    if name == "mnist":
        return (d / "mnist-train-images-idx3-ubyte.xz").exists()
    return (d / FILES[name][0]).exists()


def load(name: str, *, test_size: float = 0.3, seed: int = 0):
    """``(X_train, y_train, X_test, y_test)`` of a benchmark dataset.

    svmlight sets come as CSR float64; ``mnist`` as dense float64 in [0, 1]. Sets
    without a test file (w8a) are split with a seeded permutation.
    """
    d = data_dir()
    if d is None:
        raise FileNotFoundError("benchmark data not found: set PEGASOS_DATA")
    if name == "mnist":
        return _load_mnist(d)
    train, test = FILES[name]
    nf = N_FEATURES[name]
    X, y = _load_svmlight_xz(d / train, nf)
    if test is not None:
        Xt, yt = _load_svmlight_xz(d / test, nf)
        return X, y, Xt, yt
    return split(X, y, test_size=test_size, seed=seed)


def split(X, y, *, test_size: float = 0.3, seed: int = 0):
    """``(X_train, y_train, X_test, y_test)``: the rows of a seeded permutation, the
    first ``round(test_size m)`` of them the test rows (the split of the sets without
    a test file)."""
    perm = np.random.RandomState(seed).permutation(X.shape[0])
    n_test = round(test_size * X.shape[0])
    te, tr = perm[:n_test], perm[n_test:]
    return X[tr], y[tr], X[te], y[te]


def _read_idx(path: Path) -> np.ndarray:
    with lzma.open(path, "rb") as f:
        raw = f.read()
    ndim = raw[3]
    shape = tuple(int.from_bytes(raw[4 + 4 * i : 8 + 4 * i], "big") for i in range(ndim))
    return np.frombuffer(raw, dtype=np.uint8, offset=4 + 4 * ndim).reshape(shape)


def _load_mnist(d: Path):
    def images(stem):
        a = _read_idx(d / f"mnist-{stem}-images-idx3-ubyte.xz")
        return a.reshape(a.shape[0], -1).astype(np.float64) / 255.0

    def labels(stem):
        return _read_idx(d / f"mnist-{stem}-labels-idx1-ubyte.xz").astype(np.int64)

    return images("train"), labels("train"), images("t10k"), labels("t10k")


#: The LETOR 4.0 MQ2008 Fold 1 files (train, validation, test): 46 features,
#: relevance 0-2, with ``qid:``.
LETOR_FILES = {
    "train": "MQ2008_Fold1_train.txt.xz",
    "vali": "MQ2008_Fold1_vali.txt.xz",
    "test": "MQ2008_Fold1_test.txt.xz",
}


def letor_available() -> bool:
    """True when the three MQ2008 Fold 1 files are present."""
    d = data_dir()
    return d is not None and all((d / f).exists() for f in LETOR_FILES.values())


def load_letor(split: str):
    """``(X, y, qid)`` of a split of LETOR 4.0 MQ2008 Fold 1 (``"train"``,
    ``"vali"`` or ``"test"``): CSR float64 with 46 features (small: no cache)."""
    from sklearn.datasets import load_svmlight_file

    d = data_dir()
    if d is None:
        raise FileNotFoundError("benchmark data not found: set PEGASOS_DATA")
    with lzma.open(d / LETOR_FILES[split], "rb") as f:
        X, y, qid = load_svmlight_file(f, n_features=46, query_id=True)
    return sp.csr_matrix(X), y, qid
