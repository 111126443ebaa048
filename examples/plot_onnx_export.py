"""
Exporting a model to ONNX and serving it with onnxruntime
==========================================================

This example trains a pipeline of a scaler, a Nyström map and
:class:`~pegasos_rs.PegasosClassifier` on the digits scikit-learn ships, exports it
with :func:`pegasos_rs.to_onnx` and runs the graph in onnxruntime, which needs
neither Python's pegasos-rs nor scikit-learn. It checks that the graph's labels and
probabilities are the pipeline's (the graph computes in float32), and draws the
graph's probabilities against the pipeline's. It needs the ``[onnx]`` extra
(``python3 -m pip install ".[onnx]"`` from the clone).
"""

import matplotlib.pyplot as plt
import numpy as np
import onnxruntime as ort
import pegasos_rs
from pegasos_rs import Nystroem, PegasosClassifier
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

X, y = load_digits(return_X_y=True)
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=0)
pipe = make_pipeline(
    StandardScaler(),
    Nystroem(gamma=0.01, n_components=300, random_state=0),
    PegasosClassifier(loss="log_loss", alpha=1e-4, random_state=0),
).fit(X_train, y_train)
print(f"test accuracy of the pipeline: {pipe.score(X_test, y_test):.3f}")

# %%
# Export. ``X_train[:1]`` gives the width and the float type of the input (float32
# here, as onnxruntime serves most models; a float64 sample gives a float64 graph, as
# skl2onnx does); ``zipmap=False`` makes the probabilities one float tensor instead
# of skl2onnx's list of ``{class: p}`` (the default). The graph can be written with
# ``onx.SerializeToString()`` (the command line: ``pegasos-rs export pipe.model
# pipe.onnx``).
onx = pegasos_rs.to_onnx(pipe, X_train[:1].astype(np.float32), options={"zipmap": False})
print([(o.name, o.type.tensor_type.elem_type) for o in onx.graph.output])

# %%
# Serve with onnxruntime: one input ``X`` (float32), two outputs, the labels and the
# probabilities of the classes in the order of ``classes_``.
session = ort.InferenceSession(onx.SerializeToString(), providers=["CPUExecutionProvider"])
labels, proba = session.run(None, {"X": X_test.astype(np.float32)})
agree = np.mean(labels == pipe.predict(X_test))
error = np.abs(proba - pipe.predict_proba(X_test)).max()
print(f"labels equal to predict's on {agree:.1%} of the test rows")
print(f"largest difference of the probabilities: {error:.1e}")
assert agree >= 0.999 and error < 1e-4

# %%
# A single row is one call too (its latency is what an online service sees).
label, p = session.run(None, {"X": X_test[:1].astype(np.float32)})
assert label[0] == pipe.predict(X_test[:1])[0]

# %%
# The graph's probabilities against the pipeline's: float32 arithmetic moves them by
# about 1e-7, invisible at this scale.
fig, ax = plt.subplots(figsize=(4.5, 4.5))
ax.plot(pipe.predict_proba(X_test).ravel(), proba.ravel(), ".", markersize=2)
ax.plot([0, 1], [0, 1], color="grey", linewidth=0.5)
ax.set_xlabel("pipe.predict_proba (float64)")
ax.set_ylabel("onnxruntime (float32)")
ax.set_title("Probabilities of the 10 digits, test rows")
fig.tight_layout()
plt.show()
