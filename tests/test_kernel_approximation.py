"""The explicit feature maps: scikit-learn's checks, approximation error against the
exact kernels (falling as components grow, within documented bounds), agreement with
scikit-learn's transformers, seeds, dtypes, threads, bad inputs, pipelines."""

from __future__ import annotations

import math
import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from _digest import sha256_le
from conftest import parametrize_with_checks
from pegasos_rs import (
    AdditiveKernelMap,
    KernelPegasosClassifier,
    Nystroem,
    PegasosClassifier,
    RandomFourierFeatures,
    pairwise_kernels,
)
from sklearn.datasets import make_moons
from sklearn.kernel_approximation import AdditiveChi2Sampler
from sklearn.kernel_approximation import Nystroem as SkNystroem
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline

ESTIMATORS = [
    RandomFourierFeatures(n_components=20, random_state=0),
    Nystroem(n_components=5, random_state=0),
    Nystroem(kernel="poly", n_components=5, landmarks="k-means++", random_state=0),
    Nystroem(kernel="precomputed", n_components=5, random_state=0),
    AdditiveKernelMap(),
    AdditiveKernelMap(kernel="js", order=1),
]


@parametrize_with_checks(ESTIMATORS)
def test_scikit_learn_checks(estimator, check):
    check(estimator)


def _rel_error(K, Z):
    Z = Z.toarray() if sp.issparse(Z) else Z
    return np.linalg.norm(K - Z @ Z.T) / np.linalg.norm(K)


def _data(n=200, d=10, seed=0):
    return np.random.RandomState(seed).rand(n, d)


# ------------------------------------------------------------------------- errors


@pytest.mark.parametrize("form", ["sincos", "offset"])
def test_fourier_error_falls_like_one_over_sqrt_components(form):
    X = _data()
    K = rbf_kernel(X, gamma=0.2)
    errors = []
    for D in (100, 1000, 10000):
        e = np.mean(
            [
                _rel_error(K, RandomFourierFeatures(gamma=0.2, n_components=D, form=form,
                                                    random_state=s).fit_transform(X))
                for s in range(3)
            ]
        )  # fmt: skip
        errors.append(e)
        # Documented bound: relative Frobenius error below 2 / sqrt(n_components).
        assert e < 2 / math.sqrt(D), (D, e)
    assert errors[0] > errors[1] > errors[2]
    assert errors[0] / errors[2] > 5  # ten-fold sqrt: about 10x


@pytest.mark.parametrize("landmarks", ["uniform", "k-means++"])
@pytest.mark.parametrize("kernel", ["rbf", "poly", "chi2", "intersection", "linear"])
def test_nystroem_error_falls_and_is_exact_with_every_row(kernel, landmarks):
    X = _data(120, 6)
    kw = {"gamma": 0.5} if kernel in ("rbf", "chi2") else {}
    K = pairwise_kernels(
        X, metric=kernel, filter_params=True, **(kw or {"gamma": 1 / 6}), coef0=1.0
    )
    errors = [
        _rel_error(
            K,
            Nystroem(
                kernel, n_components=m, landmarks=landmarks, random_state=0, **kw
            ).fit_transform(X),
        )
        for m in (5, 20, 60)
    ]
    assert errors[0] >= errors[1] >= errors[2] - 1e-12, errors
    full = Nystroem(kernel, n_components=120, landmarks=landmarks, random_state=0, **kw)
    assert _rel_error(K, full.fit_transform(X)) < 1e-7


def test_kmeans_plus_plus_landmarks_beat_uniform_on_clustered_data():
    # Many small clusters of unequal size: uniform draws miss the small ones.
    rng = np.random.RandomState(0)
    centers = rng.rand(30, 5) * 20
    sizes = np.r_[np.full(5, 300), np.full(25, 8)]
    X = np.vstack([c + 0.05 * rng.randn(s, 5) for c, s in zip(centers, sizes, strict=True)])
    K = rbf_kernel(X, gamma=0.5)
    err = {
        lm: np.mean(
            [
                _rel_error(
                    K,
                    Nystroem(
                        gamma=0.5, n_components=30, landmarks=lm, random_state=s
                    ).fit_transform(X),
                )
                for s in range(3)
            ]
        )
        for lm in ("uniform", "k-means++")
    }
    assert err["k-means++"] < 0.5 * err["uniform"], err


def _additive_exact(kernel, A, B):
    A, B = A[:, None, :], B[None, :, :]
    with np.errstate(divide="ignore", invalid="ignore"):
        if kernel == "chi2":
            k = np.where(A + B > 0, 2 * A * B / (A + B), 0.0)
        elif kernel == "intersection":
            k = np.minimum(A, B)
        else:
            s = A + B
            k = np.where(A > 0, A / 2 * np.log2(s / A), 0.0) + np.where(
                B > 0, B / 2 * np.log2(s / B), 0.0
            )
            k = np.where((A > 0) & (B > 0), k, 0.0)
    return k.sum(axis=2)


#: Documented relative Frobenius errors on random sparse histograms (orders 1, 3, 5).
ADDITIVE_BOUNDS = {"chi2": (0.05, 0.01, 0.003), "js": (0.05, 0.01, 0.003),
                   "intersection": (0.1, 0.06, 0.05)}  # fmt: skip


@pytest.mark.parametrize("kernel", ["chi2", "intersection", "js"])
def test_additive_map_error_falls_with_the_order(kernel):
    rng = np.random.RandomState(1)
    H = rng.rand(150, 20) * (rng.rand(150, 20) < 0.6)
    H /= H.sum(axis=1, keepdims=True)  # histograms
    K = _additive_exact(kernel, H, H)
    errors = [
        _rel_error(K, AdditiveKernelMap(kernel, order=n).fit_transform(sp.csr_matrix(H)))
        for n in (1, 3, 5)
    ]
    assert errors[0] > errors[1] > errors[2], errors
    for e, bound in zip(errors, ADDITIVE_BOUNDS[kernel], strict=True):
        assert e < bound, (kernel, errors)


# ---------------------------------------------------------- agreement with sklearn


@pytest.mark.parametrize("steps", [1, 2, 3])
def test_chi2_map_equals_scikit_learns_sampler_up_to_column_order(steps):
    rng = np.random.RandomState(2)
    H = rng.rand(40, 7) * (rng.rand(40, 7) < 0.5)
    interval = {1: 0.8, 2: 0.5, 3: 0.4}[steps]  # scikit-learn's defaults
    sk = AdditiveChi2Sampler(sample_steps=steps, sample_interval=interval).fit(H)
    ours = AdditiveKernelMap(order=steps - 1, period=2 * np.pi / interval).fit(H)
    Z, S = ours.transform(H), sk.transform(H)
    assert Z.shape == S.shape
    np.testing.assert_allclose(np.sort(Z, axis=1), np.sort(S, axis=1), atol=1e-12)
    np.testing.assert_allclose(Z @ Z.T, S @ S.T, rtol=1e-12, atol=1e-14)
    assert ours.sample_interval_ == pytest.approx(interval)


def test_nystroem_spans_what_scikit_learns_does():
    X = _data(80, 5)
    ours = Nystroem(gamma=0.3, n_components=80, random_state=0).fit_transform(X)
    sk = SkNystroem(gamma=0.3, n_components=80, random_state=0).fit_transform(X)
    np.testing.assert_allclose(ours @ ours.T, sk @ sk.T, atol=1e-7)


@pytest.mark.parametrize(
    "kernel, params",
    [
        ("rbf", {"gamma": 0.3}),
        ("linear", {}),
        ("poly", {"gamma": 0.5, "degree": 2, "coef0": 0.7}),
        ("sigmoid", {"gamma": 0.05, "coef0": 0.2}),
        ("chi2", {"gamma": 0.4}),
    ],
)
@pytest.mark.parametrize("sparse", [False, True])
def test_nystroem_attributes_work_in_scikit_learns_formula(kernel, params, sparse):
    """normalization_ has scikit-learn's orientation: scikit-learn's Nystroem.transform
    (``kernel(X, components_) @ normalization_.T``) run on our fitted attributes gives
    our features."""
    X = _data(90, 6)
    X[X < 0.3] = 0.0
    Xin = sp.csr_matrix(X) if sparse else X
    ours = Nystroem(kernel, n_components=25, random_state=0, **params).fit(Xin)
    sk = SkNystroem(
        kernel=kernel,
        gamma=ours.gamma_,
        degree=params.get("degree", 3),
        coef0=params.get("coef0", 1.0),
        n_components=25,
    )
    # scikit-learn's chi2 kernel reads dense arrays only
    dense = kernel == "chi2"
    sk.components_ = ours.components_.toarray() if dense and sparse else ours.components_
    sk.component_indices_ = ours.component_indices_
    sk.normalization_ = ours.normalization_
    sk.n_features_in_ = ours.n_features_in_
    sk._n_features_out = ours.n_components_
    theirs = sk.transform(X if dense else Xin)
    np.testing.assert_allclose(theirs, ours.transform(Xin), atol=1e-10)
    assert ours.normalization_.shape == (25, 25)
    # Landmark j's kernel column times normalization_.T: output i mixes landmarks
    # 0..n through row i, so a non-symmetric factor shows the orientation.
    assert not np.allclose(ours.normalization_, ours.normalization_.T)


def test_nystroem_normalization_assignment_and_pickles_keep_the_features():
    X = _data(70, 5)
    est = Nystroem(gamma=0.4, n_components=20, landmarks="k-means++", random_state=1).fit(X)
    Z = est.transform(X)
    # Code written for scikit-learn's attribute may assign it.
    other = pickle.loads(pickle.dumps(est))
    other.normalization_ = np.array(est.normalization_)
    assert other.transform(X).tobytes() == Z.tobytes()
    assert pickle.loads(pickle.dumps(est)).transform(X).tobytes() == Z.tobytes()
    assert not hasattr(Nystroem(), "normalization_")


@pytest.mark.parametrize("D", [300, 301])
def test_fourier_transform_is_the_documented_formula(D):
    X = _data(50, 8)
    f = RandomFourierFeatures(gamma=0.7, n_components=D, random_state=4).fit(X)
    W, b = f.random_weights_, f.random_offset_
    F = (D + 1) // 2
    assert W.shape == (8, F) and b.shape == (F,)
    assert abs(W.var() - 2 * 0.7) < 0.1
    # Frequency c gives features 2c (cos) and 2c + 1 (sin); an odd D's last one
    # gives cos(x w + b) alone.
    P = X @ W + b
    expected = np.empty((50, D))
    expected[:, 0::2] = np.cos(P)
    expected[:, 1::2] = np.sin(P[:, : D // 2])
    np.testing.assert_allclose(f.transform(X), np.sqrt(2 / D) * expected, atol=1e-13)
    assert np.all(b[: D // 2] == 0) and (D % 2 == 0 or 0 < b[-1] < 2 * np.pi)
    offset = RandomFourierFeatures(gamma=0.7, n_components=D, form="offset", random_state=4)
    offset.fit(X)
    W, b = offset.random_weights_, offset.random_offset_
    assert W.shape == (8, D) and b.shape == (D,)
    assert 0 <= b.min() and b.max() < 2 * np.pi
    np.testing.assert_allclose(offset.transform(X), np.sqrt(2 / D) * np.cos(X @ W + b), atol=1e-13)
    # The same seed draws the same normals, in the same (row-major) order.
    np.testing.assert_array_equal(W.ravel()[: 8 * F], f.random_weights_.ravel())
    assert f.gamma_ == 0.7
    scale = RandomFourierFeatures(gamma="scale").fit(X)
    assert scale.gamma_ == pytest.approx(1 / (8 * X.var()))


def test_sincos_form_has_the_lower_error_where_the_kernel_is_large():
    """Sutherland and Schneider (2015): at equal n_components the sin/cos pairs
    estimate the rbf kernel with less variance than cos(x w + b); the gap is largest
    where kernel values are far from zero (here their mean is 0.72)."""
    X = _data(300, 20)
    K = rbf_kernel(X, gamma=0.1)

    def error(form):
        return np.mean([
            _rel_error(K, RandomFourierFeatures(gamma=0.1, n_components=200, form=form,
                                                random_state=s).fit_transform(X))
            for s in range(5)
        ])  # fmt: skip

    sincos, offset = error("sincos"), error("offset")
    assert sincos < 0.8 * offset, (sincos, offset)


# ------------------------------------------------- seeds, dtypes, sparse, threads


def test_seeds_reproduce_and_are_pinned():
    X = _data(30, 4)
    a = RandomFourierFeatures(n_components=16, random_state=7).fit(X)
    b = RandomFourierFeatures(n_components=16, random_state=7).fit(X)
    c = RandomFourierFeatures(n_components=16, random_state=8).fit(X)
    assert np.array_equal(a.random_weights_, b.random_weights_)
    assert not np.array_equal(a.random_weights_, c.random_weights_)

    # The draws are the library's portable generator: pinned bit for bit, for both
    # forms (an odd size draws the sin/cos form's one offset).
    def digest(f):
        both = np.concatenate([f.random_weights_.ravel(), f.random_offset_])
        return sha256_le(both.astype(np.float64))

    offset = RandomFourierFeatures(n_components=16, form="offset", random_state=7).fit(X)
    assert digest(offset) == FOURIER_DIGEST
    odd = RandomFourierFeatures(n_components=15, random_state=7).fit(X)
    assert digest(odd) == SINCOS_DIGEST
    for lm in ("uniform", "k-means++"):
        n1 = Nystroem(n_components=10, landmarks=lm, random_state=3).fit(_data())
        n2 = Nystroem(n_components=10, landmarks=lm, random_state=3).fit(_data())
        assert np.array_equal(n1.component_indices_, n2.component_indices_)
        assert np.array_equal(n1.normalization_, n2.normalization_)


FOURIER_DIGEST = "2ef668b48b653a88384ee47cfc019150a89e9e14abdb4f70bcb4f212995a2748"
SINCOS_DIGEST = "dcfcaa9c2588782229aaf17f60776ab4cbd28875575f65dd6d1d58f48f8e951a"


def _all_maps():
    return [
        RandomFourierFeatures(gamma=0.5, n_components=64, random_state=0),
        Nystroem(gamma=0.5, n_components=20, random_state=0),
        Nystroem("chi2", gamma=0.5, n_components=20, landmarks="k-means++", random_state=0),
        AdditiveKernelMap("js", order=2),
    ]


@pytest.mark.parametrize("est", _all_maps(), ids=lambda e: type(e).__name__)
def test_float32_in_float32_out_and_sparse_equals_dense(est):
    X = _data(120, 9)
    X[X < 0.4] = 0.0
    Z = est.fit(X).transform(X)
    Zs = est.transform(sp.csr_matrix(X))
    Zs = Zs.toarray() if sp.issparse(Zs) else Zs
    np.testing.assert_allclose(Zs, Z, atol=1e-12)
    Z32 = est.transform(X.astype(np.float32))
    Z32 = Z32.toarray() if sp.issparse(Z32) else Z32
    assert Z32.dtype == np.float32
    np.testing.assert_allclose(Z32, Z, atol=2e-5)
    one = est.set_params(n_jobs=1).transform(np.tile(X, (30, 1)))
    two = est.set_params(n_jobs=2).transform(np.tile(X, (30, 1)))
    one, two = (z.toarray() if sp.issparse(z) else z for z in (one, two))
    assert np.array_equal(one, two), "results do not depend on the thread count"


def test_nystroem_precomputed_matches_the_kernel_route():
    X = _data(100, 5)
    Xt = _data(20, 5, seed=9)
    est = Nystroem(gamma=0.4, n_components=30, random_state=1).fit(X)
    pre = Nystroem("precomputed", n_components=30, random_state=1).fit(rbf_kernel(X, gamma=0.4))
    assert np.array_equal(est.component_indices_, pre.component_indices_)
    np.testing.assert_allclose(
        pre.transform(rbf_kernel(Xt, X, gamma=0.4)), est.transform(Xt), atol=1e-10
    )


def test_rank_deficient_landmarks_give_zero_columns():
    X = _data(50, 3)
    est = Nystroem("linear", n_components=10, random_state=0).fit(X)
    assert est.rank_ == 3
    Z = est.transform(X)
    assert np.all(Z[:, 3:] == 0)
    np.testing.assert_allclose(Z @ Z.T, X @ X.T, atol=1e-10)


# -------------------------------------------------------------------- bad input


def test_bad_parameters_and_inputs_raise_clear_errors():
    X = _data(20, 3)
    with pytest.raises(ValueError, match="n_components"):
        RandomFourierFeatures(n_components=0).fit(X)
    with pytest.raises(ValueError, match="gamma"):
        RandomFourierFeatures(gamma=-1.0).fit(X)
    with pytest.raises(ValueError, match="landmarks"):
        Nystroem(landmarks="random").fit(X)
    with pytest.raises(ValueError, match="kernel"):
        AdditiveKernelMap("rbf").fit(X)
    with pytest.raises(ValueError, match="order"):
        AdditiveKernelMap(order=-1).fit(X)
    with pytest.raises(ValueError, match="period"):
        AdditiveKernelMap(period=0.0).fit(X)
    with pytest.raises(ValueError, match=r"[Nn]egative"):
        AdditiveKernelMap().fit(-X)
    fitted = AdditiveKernelMap().fit(X)
    with pytest.raises(ValueError, match=r"[Nn]egative"):
        fitted.transform(sp.csr_matrix(-X))
    with pytest.raises(ValueError, match="features"):
        fitted.transform(X[:, :2])
    bad = X.copy()
    bad[3, 1] = np.nan
    for est in _all_maps()[:3]:
        est.fit(X)
        with pytest.raises(ValueError, match=r"NaN|infinity"):
            est.transform(bad)
        with pytest.raises(ValueError, match="features"):
            est.transform(X[:, :2])
    with pytest.raises(ValueError, match="square"):
        Nystroem("precomputed").fit(X)
    with pytest.raises(ValueError, match="non-negative"):
        Nystroem("chi2", n_components=5).fit(-X)
    with pytest.warns(UserWarning, match="n_components"):
        est = Nystroem(n_components=50).fit(X)
    assert est.n_components_ == 20 and est.transform(X).shape == (20, 20)


def test_nystroem_refuses_landmark_indices_out_of_range():
    # The extension reads the landmarks' indices as row numbers (unsigned, 32 bits):
    # a negative one (a tampered model) is refused whatever the kernel, also when
    # the transform reads landmark rows rather than kernel columns.
    X = _data(30, 3)
    for kernel, data in [("rbf", X), ("precomputed", rbf_kernel(X))]:
        est = Nystroem(kernel, n_components=5, random_state=0).fit(data)
        est.component_indices_ = est.component_indices_.copy()
        est.component_indices_[0] = -1
        with pytest.raises(ValueError, match="landmark indices"):
            est.transform(data)


# -------------------------------------------------------------------- pipelines


def test_map_plus_pegasos_learns_a_non_linear_boundary():
    X, y = make_moons(2000, noise=0.15, random_state=0)
    Xtr, Xte, ytr, yte = train_test_split(X, y, random_state=0)
    linear = PegasosClassifier(alpha=1e-4, max_iter=10, random_state=0).fit(Xtr, ytr)
    exact = KernelPegasosClassifier(alpha=1e-4, gamma=2.0, max_iter=10, random_state=0)
    exact_acc = exact.fit(Xtr, ytr).score(Xte, yte)
    for fmap in (
        RandomFourierFeatures(gamma=2.0, n_components=300, random_state=0),
        Nystroem(gamma=2.0, n_components=100, random_state=0),
        Nystroem(gamma=2.0, n_components=100, landmarks="k-means++", random_state=0),
    ):
        pipe = make_pipeline(fmap, PegasosClassifier(alpha=1e-4, max_iter=10, random_state=0))
        acc = pipe.fit(Xtr, ytr).score(Xte, yte)
        assert acc > linear.score(Xte, yte) + 0.08
        assert acc > exact_acc - 0.02, (type(fmap).__name__, acc, exact_acc)


def test_feature_names_out():
    X = _data(10, 3)
    names = AdditiveKernelMap(order=1).fit(X).get_feature_names_out()
    assert names.tolist() == [
        f"additivekernelmap_x{j}_{part}" for j in range(3) for part in ("sqrt", "cos1", "sin1")
    ]
    assert len(Nystroem(n_components=4).fit(X).get_feature_names_out()) == 4
