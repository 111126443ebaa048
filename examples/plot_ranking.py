"""
Learning to rank: PegasosRanker against RankSVM on the pairs
=============================================================

:class:`~pegasos_rs.PegasosRanker` minimises RankSVM's objective
``alpha/2 ||w||^2 + 1/|P| sum_{(i,j) in P} max(0, 1 - <w, x_i - x_j>)`` over the
preference pairs ``P`` of each query, drawing the pairs uniformly without ever listing
them. RankSVM itself is a linear SVM on the pairs' difference vectors: here
scikit-learn's ``LinearSVC`` on every pair (both orientations), with the ``C`` that
makes the two objectives the same. The example follows the test NDCG@10 of the
ranker pass by pass (``warm_start``) and checks that its objective ends within a few
percent of RankSVM's optimum.
"""

import itertools

import matplotlib.pyplot as plt
import numpy as np
from pegasos_rs import PegasosRanker
from sklearn.metrics import ndcg_score
from sklearn.svm import LinearSVC

rng = np.random.default_rng(0)
n_queries, per_query, d = 60, 12, 8
w_true = rng.normal(size=d)


def make_queries(n):
    X = rng.normal(size=(n * per_query, d))
    score = X @ w_true + 0.5 * rng.normal(size=len(X))
    relevance = np.digitize(score, [0.5, 2.0])  # grades 0, 1, 2
    qid = np.repeat(np.arange(n), per_query)
    return X, relevance, qid


X, y, qid = make_queries(n_queries)
X_test, y_test, qid_test = make_queries(n_queries)

# %%
# RankSVM: LinearSVC on the difference vectors of every within-query pair.
pairs = [
    (i, j)
    for q in np.unique(qid)
    for i, j in itertools.permutations(np.flatnonzero(qid == q), 2)
    if y[i] > y[j]
]
pairs = np.array(pairs)
D = X[pairs[:, 0]] - X[pairs[:, 1]]
alpha = 1e-2
C = 1 / (2 * alpha * len(pairs))  # the same objective (each pair appears twice, ±)
svc = LinearSVC(loss="hinge", C=C, fit_intercept=False, dual=True, tol=1e-8, max_iter=100000)
svc.fit(np.vstack([D, -D]), np.r_[np.ones(len(D)), -np.ones(len(D))])


def objective(w):
    return alpha / 2 * w @ w + np.maximum(0, 1 - D @ w).mean()


def test_ndcg(w):
    """Mean NDCG@10 over the test queries, LETOR's gain 2^rel - 1 (as ``score``)."""
    scores = X_test @ w
    return np.mean(
        [
            ndcg_score([2.0 ** y_test[m] - 1], [scores[m]], k=10)
            for m in (qid_test == q for q in np.unique(qid_test))
        ]
    )


print(f"{len(pairs)} preference pairs in {n_queries} queries")
print(f"RankSVM (LinearSVC):  objective {objective(svc.coef_.ravel()):.4f}, "
      f"test NDCG@10 {test_ndcg(svc.coef_.ravel()):.4f}")  # fmt: skip

# %%
# Pegasos, one pass at a time (the last iterate continues exactly).
ranker = PegasosRanker(alpha=alpha, max_iter=1, average=False, warm_start=True, random_state=0)
ndcgs, objectives = [], []
for _ in range(40):
    ranker.fit(X, y, qid)
    ndcgs.append(ranker.score(X_test, y_test, qid_test))
    objectives.append(objective(ranker.coef_))
averaged = PegasosRanker(alpha=alpha, max_iter=40, random_state=0).fit(X, y, qid)
print(f"PegasosRanker (avg):  objective {objective(averaged.coef_):.4f}, "
      f"test NDCG@10 {averaged.score(X_test, y_test, qid_test):.4f}")  # fmt: skip
assert objective(averaged.coef_) < 1.05 * objective(svc.coef_.ravel())
assert abs(test_ndcg(averaged.coef_) - averaged.score(X_test, y_test, qid_test)) < 1e-9

# %%
passes = np.arange(1, 41)
fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(9, 3.5))
ax1.plot(passes, objectives, marker=".", label="PegasosRanker, last iterate")
ax1.axhline(objective(svc.coef_.ravel()), color="k", ls="--", label="RankSVM optimum")
ax1.set_xlabel("passes")
ax1.set_ylabel("pairwise objective")
ax1.legend()
ax2.plot(passes, ndcgs, marker=".")
ax2.axhline(test_ndcg(svc.coef_.ravel()), color="k", ls="--")
ax2.set_xlabel("passes")
ax2.set_ylabel("test NDCG@10")
fig.suptitle("Learning to rank from sampled preference pairs")
fig.tight_layout()
plt.show()
