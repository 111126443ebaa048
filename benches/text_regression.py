"""A sparse text regression set built from the raw 20 Newsgroups archive.

Each post of ``20news-bydate.tar.xz`` (the shared data folder; see its SOURCES.md)
becomes one row:

* features: the TF-IDF of the post's body, the headers removed (everything up to
  the first blank line: From, Subject, Organization, Lines, ...), by scikit-learn's
  ``TfidfVectorizer(sublinear_tf=True, min_df=2)`` (lower-cased words of two or more
  letters or digits, l2-normalised rows) fitted on the train split only and applied
  to the test split; the archive's own "bydate" split (posts before and after a
  date);
* target: the share of the body's non-blank lines that quote another post, i.e.
  begin, after optional spaces, with ``>`` or ``|`` (the prefixes newsreaders put
  before quoted text): 0 for a post that quotes nothing, near 1 for a one-line
  answer under a long quote. Posts without a non-blank body line are left out.

Why this target. It is a real numeric property of every post (how much of it is
the text it answers), and the features do not give it away: the quote markers are
not tokens (the vectorizer keeps words of two or more letters or digits), and it is
a share, not a size, so the number of distinct words does not carry it (a
regression on the logarithm of each row's number of non-zeros alone reaches a test
R^2 of 0.06; ridge regression (alpha 1) on the TF-IDF 0.47). What the features
carry are the cues a reader uses: attribution lines ("In article <...>, ...
writes:"), replies' vocabulary against announcements' and FAQs'. The obvious
numeric header, ``Lines:``, was rejected: it is the body's length, and l2-normalised
TF-IDF rows carry the length through their number of non-zeros (log(1 + Lines) from
that count alone: test R^2 0.85, more than ridge on the whole TF-IDF, 0.84).

The built matrices are cached as one ``.npz`` in shared_data's cache folder
(``$PEGASOS_CACHE`` or ``~/.cache/pegasos-rs``), never in the repository; the cache
is rebuilt when the archive is newer or :data:`RECIPE` changes.

    python benches/text_regression.py     # build (about a minute) and describe the set
"""

from __future__ import annotations

import re
import sys
import tarfile
from pathlib import Path

import numpy as np
import scipy.sparse as sp
import shared_data

ARCHIVE = "20news-bydate.tar.xz"
NAME = "20news-quoted"
#: Changing the recipe (parsing, target, vectorizer) changes the cache file's name.
RECIPE = "v1-body-tfidf1-mindf2-sublinear-quoted-share"
#: Lines quoting another post begin, after optional spaces, with one of these.
QUOTE_PREFIXES = (">", "|")
_SPLIT = re.compile(r"/20news-bydate-(train|test)/")


def split_post(raw: str) -> tuple[str, str]:
    """``(headers, body)`` of a post: the headers end at the first blank line."""
    headers, _, body = raw.replace("\r\n", "\n").partition("\n\n")
    return headers, body


def quoted_share(body: str) -> float | None:
    """The share of ``body``'s non-blank lines that quote another post (see the
    module's docstring), or None when it has no non-blank line."""
    lines = [line.lstrip() for line in body.splitlines() if line.strip()]
    if not lines:
        return None
    return sum(line.startswith(QUOTE_PREFIXES) for line in lines) / len(lines)


def read_posts(path: Path) -> dict[str, tuple[list[str], list[float]]]:
    """The bodies and targets of the archive's posts, by split (``train``, ``test``),
    in the archive's order; posts with an empty body left out."""
    out: dict[str, tuple[list[str], list[float]]] = {"train": ([], []), "test": ([], [])}
    with tarfile.open(path) as tar:
        for member in tar:
            m = _SPLIT.search(member.name)
            if not member.isfile() or m is None:
                continue
            raw = tar.extractfile(member).read().decode("latin-1")
            body = split_post(raw)[1]
            share = quoted_share(body)
            if share is not None:
                out[m.group(1)][0].append(body)
                out[m.group(1)][1].append(share)
    return out


def build(path: Path):
    """``(X, y, X_test, y_test)``: the TF-IDF fitted on the train bodies, CSR float64
    with int32 indices, and the targets."""
    from sklearn.feature_extraction.text import TfidfVectorizer

    posts = read_posts(path)
    vec = TfidfVectorizer(sublinear_tf=True, min_df=2, dtype=np.float64)
    X = vec.fit_transform(posts["train"][0])
    Xt = vec.transform(posts["test"][0])
    return X, np.asarray(posts["train"][1]), Xt, np.asarray(posts["test"][1])


def available() -> bool:
    """Whether the raw archive is in the shared data folder."""
    d = shared_data.data_dir()
    return d is not None and (d / ARCHIVE).exists()


def load():
    """``(X, y, X_test, y_test)`` from the cache, built first when needed; None when
    the archive is absent."""
    if not available():
        return None
    path = shared_data.data_dir() / ARCHIVE
    cache = shared_data.cache_dir() / f"{NAME}.{RECIPE}.npz"
    if cache.exists() and cache.stat().st_mtime >= path.stat().st_mtime:
        z = np.load(cache)
        return (_csr(z, "train"), z["y_train"], _csr(z, "test"), z["y_test"])
    X, y, Xt, yt = build(path)
    arrays = {}
    for split, M in (("train", X), ("test", Xt)):
        arrays |= {f"{split}_{k}": getattr(M, k) for k in ("data", "indices", "indptr")}
        arrays[f"{split}_shape"] = np.asarray(M.shape)
    np.savez(cache, y_train=y, y_test=yt, **arrays)
    return X, y, Xt, yt


def _csr(z, split: str) -> sp.csr_matrix:
    parts = tuple(z[f"{split}_{k}"] for k in ("data", "indices", "indptr"))
    return sp.csr_matrix(parts, shape=tuple(z[f"{split}_shape"]))


def main() -> int:
    data = load()
    if data is None:
        print(f"{ARCHIVE} not found in the shared data folder", file=sys.stderr)
        return 1
    X, y, Xt, _ = data
    print(f"{NAME}: train {X.shape} nnz {X.nnz}, test {Xt.shape} nnz {Xt.nnz}")
    print(f"target: mean {y.mean():.3f}, std {y.std():.3f}, zero for {np.mean(y == 0):.1%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
