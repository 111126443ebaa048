"""What the ONNX tests share: running a graph in onnxruntime and comparing its outputs
with the model's (test modules import it after ``pytest.importorskip("onnxruntime")``).

Float32 inference rounds the rows and the parameters to float32, so the comparisons
are the issue's: labels equal on at least 99.9 % of the rows (a row within rounding
of a decision boundary may flip), and scores, probabilities and features within
``1e-4`` relative to the largest magnitude of the model's values (``atol = 1e-4 *
max|expected|``, plus ``rtol = 1e-4``: a value near zero is a difference of larger
terms, whose rounding is relative to them, not to the value).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

#: The smallest fraction of rows whose ONNX label must equal ``predict``'s.
LABEL_AGREEMENT = 0.999
#: Relative tolerance of float32 inference.
RTOL = 1e-4


def dense32(X) -> np.ndarray:
    """``X`` (dense or sparse) as the float32 array a graph reads."""
    X = X.toarray() if sp.issparse(X) else np.asarray(X)
    return np.ascontiguousarray(X, dtype=np.float32)


def session(onx):
    import onnxruntime as ort

    return ort.InferenceSession(onx.SerializeToString(), providers=["CPUExecutionProvider"])


def run(onx, X, dtype=np.float32) -> list:
    """The outputs of graph ``onx`` on rows ``X`` (converted to ``dtype``)."""
    X = X.toarray() if sp.issparse(X) else np.asarray(X)
    return session(onx).run(None, {"X": np.ascontiguousarray(X, dtype=dtype)})


def assert_labels(actual, expected, agreement: float = LABEL_AGREEMENT) -> None:
    actual = np.asarray(actual).ravel()
    expected = np.asarray(expected).ravel()
    assert actual.shape == expected.shape
    if expected.dtype.kind in "OUS":
        same = actual.astype(str) == expected.astype(str)
    else:
        same = actual == expected
    assert same.mean() >= agreement, f"only {same.mean():.5f} of the labels agree"


def assert_values(actual, expected, rtol: float = RTOL) -> None:
    """Scores, probabilities or features within ``rtol`` relative to the largest."""
    actual = np.asarray(actual, dtype=np.float64)
    expected = np.asarray(expected, dtype=np.float64)
    assert actual.shape == expected.shape, (actual.shape, expected.shape)
    assert np.all(np.isfinite(actual))
    scale = max(float(np.abs(expected).max(initial=0.0)), 1e-12)
    np.testing.assert_allclose(actual, expected, rtol=rtol, atol=rtol * scale)


def classifier_reference(model, X):
    """What a classifier's second output holds: ``predict_proba`` when the model has
    it, else its decision scores (``[-f, f]`` for two classes)."""
    if hasattr(model, "predict_proba"):
        return model.predict_proba(X)
    scores = model.decision_function(X)
    return np.column_stack([-scores, scores]) if scores.ndim == 1 else scores


def check_classifier(model, onx, X, agreement: float = LABEL_AGREEMENT) -> None:
    """The graph's labels and second output against ``model`` on rows ``X`` (the
    model reads ``X`` as given; the graph its float32 copy)."""
    label, second = run(onx, X)
    assert_labels(label, model.predict(X), agreement)
    assert_values(second, classifier_reference(model, X))
