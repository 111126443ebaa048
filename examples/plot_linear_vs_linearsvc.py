"""
Linear Pegasos against LinearSVC on a sparse problem
====================================================

:class:`~pegasos_rs.PegasosClassifier` and scikit-learn's
:class:`~sklearn.svm.LinearSVC` (LIBLINEAR's dual coordinate descent) minimise the
same objective when ``C = 1 / (alpha * n_samples)`` and neither fits a bias. Here
both train on a generated sparse, text-like problem (a CSR matrix with a planted
linear separator and 5 % label noise), and Pegasos' test accuracy is followed pass
by pass, for the last iterate and for the suffix average.
"""

import time

import matplotlib.pyplot as plt
import numpy as np
import scipy.sparse as sp
from pegasos_rs import PegasosClassifier
from sklearn.svm import LinearSVC

# %%
# A sparse problem: 10,000 rows, 2,000 features, about 50 non-zeros per row.
rng = np.random.default_rng(0)
n_samples, n_features = 10_000, 2000
X = sp.random(n_samples, n_features, density=0.025, format="csr", random_state=0)
w_true = rng.standard_normal(n_features)
y = np.where(X @ w_true > 0, 1, -1)
y[rng.random(n_samples) < 0.05] *= -1  # label noise
X_train, X_test = X[:7000], X[7000:]
y_train, y_test = y[:7000], y[7000:]

alpha = 1e-4
C = 1.0 / (alpha * X_train.shape[0])

# %%
# LinearSVC with the hinge loss solves the same problem to its tolerance.
start = time.perf_counter()
svc = LinearSVC(C=C, loss="hinge", fit_intercept=False, dual=True, max_iter=10_000)
svc.fit(X_train, y_train)
svc_time = time.perf_counter() - start
svc_acc = svc.score(X_test, y_test)
print(f"LinearSVC: test accuracy {svc_acc:.3f}")

# %%
# Pegasos, trained from scratch for a growing number of passes.
passes = [1, 2, 3, 5, 8, 13, 20]
curves = {}
for average in (False, True):
    accuracies = []
    for p in passes:
        clf = PegasosClassifier(
            alpha=alpha, max_iter=p, fit_intercept=False, average=average, random_state=0
        )
        clf.fit(X_train, y_train)
        accuracies.append(clf.score(X_test, y_test))
    curves["averaged" if average else "last iterate"] = accuracies
    print(f"Pegasos ({'averaged' if average else 'last iterate'}): {accuracies[-1]:.3f}")

# %%
fig, ax = plt.subplots(figsize=(6, 4))
for label, accuracies in curves.items():
    ax.plot(passes, accuracies, marker="o", label=f"Pegasos, {label}")
ax.axhline(svc_acc, color="k", linestyle="--", label="LinearSVC (hinge)")
ax.set_xscale("log")
ax.set_xlabel("passes over the training set")
ax.set_ylabel("test accuracy")
ax.set_title("Same objective, C = 1 / (alpha n)")
ax.legend()
fig.tight_layout()
plt.show()
