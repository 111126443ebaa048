"""
Choosing C by cross-validation
==============================

:class:`~pegasos_rs.PegasosClassifierCV` scores every candidate ``C`` on every
fold in one call: with one seed, Pegasos draws the same rows whatever ``C`` is, so
the candidates of a fold step on each drawn row together. Its fold scores are
those of ``GridSearchCV(PegasosClassifier)`` over the same folds, bit for bit;
``search="halving"`` stops the candidates that are behind after the first passes.
This example draws the cross-validated accuracy of each ``C`` on scikit-learn's
digits and checks the scores against ``GridSearchCV``.
"""

import time

import matplotlib.pyplot as plt
import numpy as np
from pegasos_rs import PegasosClassifier, PegasosClassifierCV
from sklearn.datasets import load_digits
from sklearn.model_selection import GridSearchCV, StratifiedKFold, train_test_split

X, y = load_digits(return_X_y=True)
X = X / 16.0
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=0)
Cs = 2.0 ** np.arange(-6, 6)
folds = list(StratifiedKFold(5).split(X_train, y_train))
params = {"loss": "squared_hinge", "max_iter": 10, "random_state": 0}

started = time.perf_counter()
search = PegasosClassifierCV(Cs=Cs, cv=folds, **params).fit(X_train, y_train)
shared = time.perf_counter() - started

started = time.perf_counter()
halving = PegasosClassifierCV(Cs=Cs, cv=folds, search="halving", **params)
halving.fit(X_train, y_train)
halved = time.perf_counter() - started

# The same candidates one by one: alpha = 1 / (C m) for a fold of m rows.
m_fold = len(folds[0][0])
grid = GridSearchCV(PegasosClassifier(**params), {"alpha": list(1 / (Cs * m_fold))}, cv=folds)
started = time.perf_counter()
grid.fit(X_train, y_train)
one_by_one = time.perf_counter() - started

same = all(
    np.array_equal(search.cv_results_[key], grid.cv_results_[key])
    for key in (f"split{k}_test_score" for k in range(len(folds)))
)
print(f"the fold scores are GridSearchCV's, bit for bit: {same}")
print(f"best C {search.C_:g}, test accuracy {search.score(X_test, y_test):.3f}")
print(f"halving: best C {halving.C_:g}, test accuracy {halving.score(X_test, y_test):.3f}")
print(f"time: {shared:.2f} s shared, {halved:.2f} s halving, {one_by_one:.2f} s one by one")

fig, ax = plt.subplots(figsize=(6, 4))
mean, std = search.cv_results_["mean_test_score"], search.cv_results_["std_test_score"]
ax.errorbar(Cs, mean, yerr=std, marker="o", capsize=3, label="every candidate, all passes")
ax.plot(Cs, halving.cv_results_["mean_test_score"], "x", label="halving: where each stopped")
ax.axvline(search.C_, color="grey", linestyle=":", label=f"best C = {search.C_:g}")
ax.set_xscale("log", base=2)
ax.set_xlabel("C")
ax.set_ylabel("cross-validated accuracy")
ax.set_title("PegasosClassifierCV on digits (5 folds)")
ax.legend()
fig.tight_layout()
plt.show()
