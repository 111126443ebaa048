"""
Kernel Pegasos with an rbf kernel on two moons
==============================================

:class:`~pegasos_rs.KernelPegasosClassifier` trains a kernel SVM with kernelized
Pegasos. The model is a weighted sum of kernel values at its support vectors,
``f(x) = sum_i dual_coef_[i] K(support_vectors_[i], x) + intercept_``. This example
draws its decision function on a 2-D toy problem and checks it against that sum.
"""

import matplotlib.pyplot as plt
import numpy as np
from pegasos_rs import KernelPegasosClassifier
from sklearn.datasets import make_moons
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.model_selection import train_test_split

X, y = make_moons(n_samples=400, noise=0.2, random_state=0)
X_train, X_test, y_train, y_test = train_test_split(X, y, random_state=0)

clf = KernelPegasosClassifier(alpha=1e-3, kernel="rbf", gamma=2.0, max_iter=20, random_state=0)
clf.fit(X_train, y_train)
print(f"test accuracy {clf.score(X_test, y_test):.3f}")
print(f"{clf.support_vectors_.shape[0]} support vectors of {X_train.shape[0]} rows")

# %%
# The decision function is the kernel expansion over the support vectors.
K = rbf_kernel(X_test, clf.support_vectors_, gamma=2.0)
expansion = K @ clf.dual_coef_.ravel() + clf.intercept_[0]
np.testing.assert_allclose(clf.decision_function(X_test), expansion, rtol=1e-9, atol=1e-12)

# %%
xx, yy = np.meshgrid(np.linspace(-1.5, 2.5, 200), np.linspace(-1.0, 1.5, 200))
grid = np.column_stack([xx.ravel(), yy.ravel()])
scores = clf.decision_function(grid).reshape(xx.shape)

fig, ax = plt.subplots(figsize=(6, 4.5))
ax.contourf(xx, yy, scores, levels=20, cmap="RdBu", alpha=0.6)
ax.contour(xx, yy, scores, levels=[-1, 0, 1], colors="k", linestyles=["--", "-", "--"])
ax.scatter(X_train[:, 0], X_train[:, 1], c=y_train, cmap="RdBu", edgecolors="k", s=20)
sv = clf.support_vectors_
ax.scatter(
    sv[:, 0],
    sv[:, 1],
    s=60,
    facecolors="none",
    edgecolors="k",
    linewidths=0.6,
    label="support vectors",
)
ax.set_title("KernelPegasosClassifier, rbf kernel: f(x) = 0 and f(x) = ±1")
ax.legend(loc="lower left")
fig.tight_layout()
plt.show()
