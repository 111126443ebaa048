"""
Warm starts and ``partial_fit``: a learning curve pass by pass
==============================================================

With ``warm_start=True`` every ``fit`` continues the complete solver state
(weights, step count, averaging state and random stream), so ``p`` passes followed
by ``q`` more give exactly the model of ``p + q`` passes at once, for the last
iterate (``average=False``) and for an average from a fixed step (``average=n``).
The default ``average=True`` averages the last half of each ``fit``'s own steps,
so there the models differ. This example follows the primal objective and the
test accuracy one pass at a time and checks that equality.
"""

import matplotlib.pyplot as plt
import numpy as np
from pegasos_rs import PegasosClassifier
from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler

X, y = load_breast_cancer(return_X_y=True)
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=0)
scaler = StandardScaler().fit(X_train)
X_train, X_test = scaler.transform(X_train), scaler.transform(X_test)
alpha = 1e-3


def objective(clf):
    """The primal objective alpha/2 ||w||^2 + mean hinge (with the regularised bias)."""
    signs = np.where(y_train == clf.classes_[1], 1.0, -1.0)
    margins = signs * clf.decision_function(X_train)
    w_b = clf.intercept_[0] / clf.intercept_scaling  # the weight of the constant feature
    norm2 = clf.coef_.ravel() @ clf.coef_.ravel() + w_b**2
    return alpha / 2 * norm2 + np.maximum(0.0, 1.0 - margins).mean()


clf = PegasosClassifier(alpha=alpha, max_iter=1, warm_start=True, average=False, random_state=0)
objectives, accuracies = [], []
for _ in range(30):
    clf.fit(X_train, y_train)  # one more pass
    objectives.append(objective(clf))
    accuracies.append(clf.score(X_test, y_test))

# %%
# Thirty warm-started passes are thirty passes at once, bit for bit.
at_once = PegasosClassifier(alpha=alpha, max_iter=30, average=False, random_state=0)
at_once.fit(X_train, y_train)
assert np.array_equal(clf.coef_, at_once.coef_)
assert np.array_equal(clf.intercept_, at_once.intercept_)
print(f"steps taken: {clf.t_}; identical to a 30-pass fit")

# %%
# ``partial_fit`` runs one pass per call from the same state.
online = PegasosClassifier(alpha=alpha, random_state=0)
for _ in range(30):
    online.partial_fit(X_train, y_train, classes=np.unique(y_train))
print(f"partial_fit: {online.t_} steps, test accuracy {online.score(X_test, y_test):.3f}")

# %%
passes = np.arange(1, 31)
fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(9, 3.5))
ax1.plot(passes, objectives, marker=".")
ax1.set_yscale("log")
ax1.set_xlabel("passes")
ax1.set_ylabel("primal objective")
ax2.plot(passes, accuracies, marker=".")
ax2.set_xlabel("passes")
ax2.set_ylabel("test accuracy")
fig.suptitle("PegasosClassifier(warm_start=True, average=False), one pass per fit")
fig.tight_layout()
plt.show()
