"""Ranking measures over queries, without scikit-learn (the command line uses them):
NDCG@k and mean average precision, LETOR's definitions.

A query's documents are ranked by decreasing score, ties in the order the documents
come in (a stable sort). NDCG@k: ``DCG@k / IDCG@k`` with ``DCG@k = sum_{r <= k}
(2^rel_r - 1) / log2(r + 1)``; a query without a relevant document (every
relevance 0: ``IDCG@k = 0``) counts as NDCG 0, the LETOR 4.0 evaluation script's
convention and scikit-learn's ``ndcg_score``'s. Average precision counts the
documents of relevance > 0 as relevant; a query without one counts as 0.
"""

from __future__ import annotations

import numpy as np


def query_groups(qid, n: int) -> list[np.ndarray]:
    """The row indices of each query, queries in order of first appearance
    (``qid`` None: all ``n`` rows are one query)."""
    if qid is None:
        return [np.arange(n)]
    qid = np.asarray(qid)
    _, first, inverse = np.unique(qid, return_index=True, return_inverse=True)
    order = np.argsort(inverse, kind="stable")
    bounds = np.cumsum(np.bincount(inverse.reshape(-1)))[:-1]
    groups = np.split(order, bounds)
    return [groups[g] for g in np.argsort(first, kind="stable")]


def _ranked(y, scores, rows) -> np.ndarray:
    """The relevance of the rows of one query, by decreasing score (stable)."""
    return np.asarray(y, dtype=np.float64)[rows][np.argsort(-scores[rows], kind="stable")]


def ndcg_per_query(y, scores, qid=None, k: int = 10) -> np.ndarray:
    """NDCG@``k`` of each query (see the module documentation)."""
    scores = np.asarray(scores, dtype=np.float64)
    out = []
    for rows in query_groups(qid, len(scores)):
        rel = _ranked(y, scores, rows)
        discount = 1.0 / np.log2(np.arange(2, min(k, rel.size) + 2))
        dcg = np.sum((2.0 ** rel[:k] - 1.0) * discount)
        ideal = np.sort(rel)[::-1][:k]
        idcg = np.sum((2.0**ideal - 1.0) * discount)
        out.append(dcg / idcg if idcg > 0 else 0.0)
    return np.asarray(out)


def mean_ndcg(y, scores, qid=None, k: int = 10) -> float:
    """The mean NDCG@``k`` over the queries (a query without a relevant document
    counts as 0)."""
    return float(np.mean(ndcg_per_query(y, scores, qid, k)))


def mean_average_precision(y, scores, qid=None) -> float:
    """The mean over the queries of the average precision, relevance > 0 being
    relevant (a query without a relevant document counts as 0)."""
    scores = np.asarray(scores, dtype=np.float64)
    out = []
    for rows in query_groups(qid, len(scores)):
        hit = _ranked(y, scores, rows) > 0
        if not hit.any():
            out.append(0.0)
            continue
        precision = np.cumsum(hit) / np.arange(1, hit.size + 1)
        out.append(float(np.sum(precision[hit]) / hit.sum()))
    return float(np.mean(out))
