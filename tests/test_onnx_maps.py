"""ONNX export of the feature maps (RandomFourierFeatures, Nystroem, AdditiveKernelMap),
checked against onnxruntime: features within 1e-4 relative in float32, 1e-9 in
float64."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

pytest.importorskip("onnx")
pytest.importorskip("skl2onnx")
pytest.importorskip("onnxruntime")

import pegasos_rs
from conftest import make_problem
from onnx_checks import assert_values, run
from pegasos_rs import AdditiveKernelMap, Nystroem, RandomFourierFeatures
from sklearn.exceptions import NotFittedError

KERNELS = ("rbf", "linear", "poly", "sigmoid", "chi2", "intersection")


def _rows(sparse: bool, non_negative: bool = False, n_samples: int = 200):
    X, _ = make_problem(n_samples=n_samples, n_features=9, seed=2)
    if non_negative:
        X = np.abs(X)
    return sp.csr_matrix(X) if sparse else X


def _check(model, X) -> None:
    """The graph's features against ``transform``, in float32 and float64."""
    expected = model.transform(X)
    expected = expected.toarray() if sp.issparse(expected) else expected
    (out,) = run(pegasos_rs.to_onnx(model, X[:1], dtype=np.float32), X)
    assert out.dtype == np.float32
    assert_values(out, expected)
    (out64,) = run(pegasos_rs.to_onnx(model, X[:1], dtype=np.float64), X, dtype=np.float64)
    assert out64.dtype == np.float64
    np.testing.assert_allclose(out64, expected, rtol=1e-9, atol=1e-9 * np.abs(expected).max())


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "sparse"])
@pytest.mark.parametrize("n_components", [8, 7])
@pytest.mark.parametrize("form", ["sincos", "offset"])
def test_fourier_features(form, n_components, sparse):
    X = _rows(sparse)
    model = RandomFourierFeatures(
        gamma=0.7, n_components=n_components, form=form, random_state=0
    ).fit(X)
    _check(model, X)


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "sparse"])
@pytest.mark.parametrize("landmarks", ["uniform", "k-means++"])
@pytest.mark.parametrize("kernel", KERNELS)
def test_nystroem(kernel, landmarks, sparse):
    X = _rows(sparse, non_negative=kernel in ("chi2", "intersection"))
    model = Nystroem(
        kernel,
        gamma=0.5,
        degree=2,
        coef0=0.5,
        n_components=25,
        landmarks=landmarks,
        random_state=0,
    ).fit(X)
    _check(model, X)


def test_nystroem_default_parameters():
    """gamma, degree and coef0 None: scikit-learn's pairwise defaults."""
    X = _rows(False)
    for kernel in KERNELS:
        _check(Nystroem(kernel, n_components=20, random_state=0).fit(np.abs(X)), np.abs(X))


def test_nystroem_beyond_the_kernel_rank():
    """More landmarks than the kernel's rank: the later outputs are zeros. The last
    pivots' coefficients are large (the factor is ill-conditioned there), so their
    features amplify float32 rounding: float64 inference is exact, float32 is not
    held to 1e-4 (the user guide says so)."""
    X = _rows(False)[:, :3]
    model = Nystroem("poly", n_components=60, random_state=0).fit(X)
    assert model.rank_ == 20  # the cubic polynomials of 3 variables
    expected = model.transform(X)
    (out64,) = run(pegasos_rs.to_onnx(model, X, dtype=np.float64), X, dtype=np.float64)
    np.testing.assert_allclose(out64, expected, rtol=1e-9, atol=1e-9)
    (out,) = run(pegasos_rs.to_onnx(model, X, dtype=np.float32), X)
    assert np.all(out[:, model.rank_ :] == 0)
    assert_values(out[:, :10], expected[:, :10])


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "sparse"])
@pytest.mark.parametrize("order", [0, 1, 3])
@pytest.mark.parametrize("kernel", ["chi2", "intersection", "js"])
def test_additive_kernel_map(kernel, order, sparse):
    X = _rows(sparse, non_negative=True)  # about 60 % zeros: they map to zeros
    _check(AdditiveKernelMap(kernel, order=order).fit(X), X)


def test_additive_kernel_map_tiny_and_large_values():
    X = np.array([[0.0, 1e-30, 1e-3, 1.0, 1e4], [5.0, 0.0, 0.0, 1e-7, 2.0]])
    model = AdditiveKernelMap(order=2, period=4.0).fit(X)
    (out,) = run(pegasos_rs.to_onnx(model, X, dtype=np.float32), X)
    expected = model.transform(X)
    assert np.all(out[expected == 0] == 0)
    assert_values(out, expected)


# -- refusals ---------------------------------------------------------------------


def test_precomputed_nystroem_is_refused():
    X = _rows(False)
    model = Nystroem("precomputed", n_components=10, random_state=0).fit(X @ X.T)
    with pytest.raises(ValueError, match=r'Nystroem cannot be exported.*kernel="precomputed"'):
        pegasos_rs.to_onnx(model, n_features=X.shape[0])


@pytest.mark.parametrize("cls", [RandomFourierFeatures, Nystroem, AdditiveKernelMap])
def test_unfitted_maps_are_refused(cls):
    with pytest.raises(NotFittedError, match=f"{cls.__name__} cannot be exported.*not fitted"):
        pegasos_rs.to_onnx(cls(), np.ones((1, 3)))


def test_wrong_width_is_refused():
    X = _rows(False)
    model = RandomFourierFeatures(random_state=0).fit(X)
    with pytest.raises(ValueError, match="X has 8 features, but RandomFourierFeatures"):
        pegasos_rs.to_onnx(model, X[:, :-1])
