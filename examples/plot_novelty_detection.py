"""
Novelty detection with the one-class SVM
========================================

:class:`~pegasos_rs.PegasosOneClassSVM` learns from normal rows only and flags the
rows that fall outside them. It minimises the objective of scikit-learn's
``SGDOneClassSVM``; its offset ``rho`` is solved exactly for the weights it
returns, so at most a fraction ``nu`` of the training rows are called outliers and
at least ``nu`` lie on the boundary. This example trains it on digit 8 of
scikit-learn's digits, after a Nyström map of 80 landmarks (on raw pixels the
linear one-class SVM could only cut the rows off by a hyperplane), and draws the
scores of the test rows of every digit: the other digits score below the eights,
and the ROC AUC of "is another digit" says by how much. ``SGDOneClassSVM`` on the
same map is printed beside it, and the kernel one-class SVM,
:class:`~pegasos_rs.KernelPegasosOneClassSVM`, on the raw pixels with the same rbf
kernel (no map: its model is a sum over support vectors), beside scikit-learn's
``OneClassSVM``.
"""

import matplotlib.pyplot as plt
import numpy as np
from pegasos_rs import KernelPegasosOneClassSVM, Nystroem, PegasosOneClassSVM
from sklearn.datasets import load_digits
from sklearn.linear_model import SGDOneClassSVM
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import train_test_split
from sklearn.svm import OneClassSVM

X, y = load_digits(return_X_y=True)
X = X / 16.0
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.5, random_state=0)
normal = X_train[y_train == 8]
nu = 0.1

feature_map = Nystroem(gamma=0.05, n_components=80, random_state=0).fit(normal)
Z_train, Z_test = feature_map.transform(normal), feature_map.transform(X_test)

pegasos = PegasosOneClassSVM(nu=nu, batch_size=8, random_state=0).fit(Z_train)
sgd = SGDOneClassSVM(nu=nu, random_state=0).fit(Z_train)
kernel = KernelPegasosOneClassSVM(nu=nu, gamma=0.05, random_state=0).fit(normal)
libsvm = OneClassSVM(nu=nu, gamma=0.05).fit(normal)

train_scores = pegasos.decision_function(Z_train)
print(f"training rows called outliers: {np.mean(train_scores < 0):.3f} (nu = {nu})")
print(f"support vectors (score <= 0):  {np.mean(train_scores <= 0):.3f}")
other = y_test != 8
for name, model in (("Pegasos", pegasos), ("SGD", sgd)):
    auc = roc_auc_score(other, -model.decision_function(Z_test))
    print(f"{name:8s} ROC AUC of 'is another digit': {auc:.4f}")
for name, model in (("kernel Pegasos", kernel), ("OneClassSVM", libsvm)):
    auc = roc_auc_score(other, -model.decision_function(X_test))
    print(f"{name:14s} ROC AUC on raw pixels: {auc:.4f}, {model.n_support_[0]} support vectors")

scores = pegasos.decision_function(Z_test)
fig, ax = plt.subplots(figsize=(7, 3.5))
ax.boxplot([scores[y_test == d] for d in range(10)], positions=range(10))
ax.axhline(0.0, color="grey", linestyle="--", label="the boundary (offset_)")
ax.set_xlabel("digit of the test row")
ax.set_ylabel("decision_function")
ax.set_title("PegasosOneClassSVM trained on eights (Nyström map)")
ax.legend()
fig.tight_layout()
plt.show()
