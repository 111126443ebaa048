"""
Explicit feature maps followed by linear Pegasos
================================================

An explicit feature map ``psi`` with ``psi(x) . psi(y) ≈ K(x, y)`` lets the linear
solver learn a non-linear model. This example compares, on scikit-learn's digits,
three pipelines of a map and :class:`~pegasos_rs.PegasosClassifier` with the
kernel solver :class:`~pegasos_rs.KernelPegasosClassifier` on the same rbf kernel,
for a growing number of components.
"""

import matplotlib.pyplot as plt
from pegasos_rs import (
    KernelPegasosClassifier,
    Nystroem,
    PegasosClassifier,
    RandomFourierFeatures,
)
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline

X, y = load_digits(return_X_y=True)
X = X / 16.0  # pixels in [0, 1]
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=0)
gamma, alpha = 0.05, 1e-4

kernel = KernelPegasosClassifier(alpha=alpha, gamma=gamma, max_iter=10, random_state=0)
kernel_acc = kernel.fit(X_train, y_train).score(X_test, y_test)
print(f"KernelPegasosClassifier: {kernel_acc:.3f}")


def pipeline(feature_map):
    linear = PegasosClassifier(alpha=alpha, max_iter=30, average=True, random_state=0)
    return make_pipeline(feature_map, linear)


sizes = [50, 100, 200, 400, 800]
maps = {
    "RandomFourierFeatures": lambda n: RandomFourierFeatures(
        gamma=gamma, n_components=n, random_state=0
    ),
    "Nystroem (uniform)": lambda n: Nystroem(gamma=gamma, n_components=n, random_state=0),
    "Nystroem (k-means++)": lambda n: Nystroem(
        gamma=gamma, n_components=n, landmarks="k-means++", random_state=0
    ),
}
results = {}
for name, make_map in maps.items():
    results[name] = [
        pipeline(make_map(n)).fit(X_train, y_train).score(X_test, y_test) for n in sizes
    ]
    print(name, [f"{a:.3f}" for a in results[name]])

# %%
fig, ax = plt.subplots(figsize=(6, 4))
for name, accuracies in results.items():
    ax.plot(sizes, accuracies, marker="o", label=f"{name} + Pegasos")
ax.axhline(kernel_acc, color="k", linestyle="--", label="KernelPegasosClassifier")
ax.set_xscale("log")
ax.set_xlabel("n_components")
ax.set_ylabel("test accuracy")
ax.set_title("digits, rbf kernel (gamma = 0.05)")
ax.legend()
fig.tight_layout()
plt.show()
