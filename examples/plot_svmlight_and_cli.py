"""
svmlight files, model files and the command line
================================================

This example writes a training and a test set as svmlight files, trains the same
model twice -- with the ``pegasos-rs train`` command (LIBLINEAR's flags) and with
:class:`~pegasos_rs.PegasosClassifier` in Python -- and shows that the model file
the command wrote, read back with :func:`pegasos_rs.load`, holds the same weights.
It also shows the errors the reader raises for malformed input and for NaN.
"""

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pegasos_rs
from pegasos_rs import PegasosClassifier, dump_svmlight_file, load, load_svmlight_file
from sklearn.datasets import make_classification

workdir = Path(tempfile.mkdtemp())
X, y = make_classification(n_samples=3000, n_features=40, n_informative=10, random_state=0)
dump_svmlight_file(X[:2000], y[:2000], workdir / "train.svm")
dump_svmlight_file(X[2000:], y[2000:], workdir / "test.svm")

# %%
# The writer prints the shortest decimal that reads back to the same float64, so
# the round trip is exact.
X_train, y_train = load_svmlight_file(workdir / "train.svm", n_features=40)
assert np.array_equal(X_train.toarray(), X[:2000]) and np.array_equal(y_train, y[:2000])

# %%
# Train on the command line: ``-c 1`` is LIBLINEAR's C, ``-B 1`` its bias feature,
# ``--passes``, ``--average`` and ``--seed`` are Pegasos' own options. ``python -m pegasos_rs`` is
# the ``pegasos-rs`` command.
cli = [sys.executable, "-m", "pegasos_rs"]
train = ["train", "-c", "1", "-B", "1", "--passes", "10", "--average", "1", "--seed", "0", "-q"]
subprocess.run([*cli, *train, str(workdir / "train.svm"), str(workdir / "model")], check=True)
out = subprocess.run(
    [*cli, "predict", str(workdir / "test.svm"), str(workdir / "model"), str(workdir / "pred")],
    check=True,
    capture_output=True,
    text=True,
)
print(out.stdout.strip())

# %%
# The same model in Python: C = 1 / (alpha * n_samples), so alpha = 1 / n_samples.
clf = PegasosClassifier(alpha=1.0 / X_train.shape[0], max_iter=10, average=True, random_state=0)
clf.fit(X_train, y_train)
from_file = load(workdir / "model")
print(type(from_file).__name__, "from the model file")
assert np.array_equal(from_file.coef_, clf.coef_)
predictions = np.loadtxt(workdir / "pred")
assert np.array_equal(predictions, clf.predict(X[2000:]))

# %%
# Malformed input and NaN raise :class:`~pegasos_rs.DataFormatError` (a
# ``ValueError``) naming the file, the line and the column.
for name, text in [("bad.svm", b"1 3:0.5\n-1 4:x\n"), ("nan.svm", b"1 1:nan\n")]:
    (workdir / name).write_bytes(text)
    try:
        load_svmlight_file(workdir / name)
    except pegasos_rs.DataFormatError as e:
        print(e)

# %%
fig, ax = plt.subplots(figsize=(4.5, 4.5))
ax.scatter(clf.coef_.ravel(), from_file.coef_.ravel(), s=15)
lim = np.abs(clf.coef_).max() * 1.1
ax.plot([-lim, lim], [-lim, lim], color="k", linewidth=0.5)
ax.set_xlabel("coef_ of PegasosClassifier.fit")
ax.set_ylabel("coef_ of pegasos-rs train, read by load()")
ax.set_title("The same model, bit for bit")
fig.tight_layout()
plt.show()

shutil.rmtree(workdir)
