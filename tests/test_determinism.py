"""Reproducibility: seeds, thread counts, and exact restarts (partial_fit, warm_start,
pickling) are bit-for-bit."""

from __future__ import annotations

import pickle
import sys

import numpy as np
import pytest
import scipy.sparse as sp
from _digest import le_bytes, sha256_le
from pegasos_rs import (
    AdditiveKernelMap,
    KernelPegasosClassifier,
    Nystroem,
    PegasosClassifier,
    RandomFourierFeatures,
)

SAMPLINGS = ["uniform", "shuffle", "balanced"]


def _bits(est):
    return est.coef_.tobytes(), est.intercept_.tobytes()


def _assert_identical(a, b):
    assert a.coef_.tobytes() == b.coef_.tobytes(), np.max(np.abs(a.coef_ - b.coef_))
    assert a.intercept_.tobytes() == b.intercept_.tobytes()
    assert a.t_ == b.t_


# --------------------------------------------------------------------------------------
# Seeds


@pytest.mark.parametrize("sampling", SAMPLINGS)
def test_same_seed_same_bits(any_dense, sampling):
    X, y = any_dense
    a = PegasosClassifier(random_state=7, sampling=sampling).fit(X, y)
    b = PegasosClassifier(random_state=7, sampling=sampling).fit(X, y)
    _assert_identical(a, b)
    # Refitting the same estimator object starts over from the seed.
    a.fit(X, y)
    _assert_identical(a, b)


@pytest.mark.parametrize("sampling", SAMPLINGS)
def test_different_seed_different_model(any_dense, sampling):
    X, y = any_dense
    a = PegasosClassifier(random_state=0, sampling=sampling, average=True).fit(X, y)
    b = PegasosClassifier(random_state=1, sampling=sampling, average=True).fit(X, y)
    assert not np.array_equal(a.coef_, b.coef_)
    # ... but both are reasonable classifiers of the same data.
    assert np.mean(a.predict(X) == b.predict(X)) > 0.9


def test_random_state_instance_is_reproducible(binary_dense):
    X, y = binary_dense
    a = PegasosClassifier(random_state=np.random.RandomState(3)).fit(X, y)
    b = PegasosClassifier(random_state=np.random.RandomState(3)).fit(X, y)
    _assert_identical(a, b)


def test_visiting_order_does_not_depend_on_the_seed(binary_dense):
    X, y = binary_dense
    order = np.random.RandomState(0).permutation(len(y))
    a = PegasosClassifier(random_state=0, sampling=order).fit(X, y)
    b = PegasosClassifier(random_state=99, sampling=order).fit(X, y)
    _assert_identical(a, b)


def test_known_bits_are_stable_across_runs(binary_dense):
    """The same fit, in a fresh interpreter, gives the same bits (no dependence on
    address-space layout, hashing or thread scheduling)."""
    import subprocess
    import sys

    X, y = binary_dense
    est = PegasosClassifier(random_state=11, n_jobs=2, max_iter=3).fit(X, y)
    code = (
        "import sys, numpy as np; sys.path.insert(0, sys.argv[1]);"
        "from conftest import make_problem; from pegasos_rs import PegasosClassifier;"
        "X, y = make_problem(n_samples=300, n_features=20, n_classes=2, seed=0);"
        "e = PegasosClassifier(random_state=11, max_iter=3).fit(X, y);"
        "print(e.coef_.tobytes().hex() + e.intercept_.tobytes().hex())"
    )
    import pathlib

    here = str(pathlib.Path(__file__).parent)
    out = subprocess.run(
        [sys.executable, "-c", code, here], capture_output=True, text=True, timeout=60, check=True
    ).stdout.strip()
    assert out == est.coef_.tobytes().hex() + est.intercept_.tobytes().hex()


# --------------------------------------------------------------------------------------
# Threads


@pytest.mark.parametrize("sampling", SAMPLINGS)
@pytest.mark.parametrize("n_jobs", [2, 3, -1])
def test_parallel_one_vs_rest_equals_sequential(multiclass_dense, sampling, n_jobs):
    X, y = multiclass_dense
    kw = {"random_state": 4, "sampling": sampling, "max_iter": 5, "average": True}
    seq = PegasosClassifier(n_jobs=1, **kw).fit(X, y)
    par = PegasosClassifier(n_jobs=n_jobs, **kw).fit(X, y)
    _assert_identical(seq, par)
    np.testing.assert_array_equal(seq.decision_function(X), par.decision_function(X))


def test_parallel_equals_sequential_on_sparse_input(multiclass_csr):
    X, y = multiclass_csr
    seq = PegasosClassifier(random_state=2, n_jobs=1).fit(X, y)
    par = PegasosClassifier(random_state=2, n_jobs=2).fit(X, y)
    _assert_identical(seq, par)


def test_one_vs_rest_problem_does_not_depend_on_the_other_classes(multiclass_dense):
    """Class c trains on its own random stream: relabelling the other classes (still
    'rest' for class c) leaves row c of coef_ bit-identical."""
    X, y = multiclass_dense
    a = PegasosClassifier(random_state=5, max_iter=3).fit(X, y)
    y2 = np.where(y == 3, 2, y)  # merge classes 2 and 3: classes 0 and 1 keep streams 0, 1
    b = PegasosClassifier(random_state=5, max_iter=3).fit(X, y2)
    assert b.coef_.shape[0] == 3
    assert a.coef_[:2].tobytes() == b.coef_[:2].tobytes()


# --------------------------------------------------------------------------------------
# Exact restarts


def _restart_params(sampling, batch_size, average):
    return {
        "random_state": 3,
        "sampling": sampling,
        "batch_size": batch_size,
        "average": average,
        "alpha": 1e-2,
    }


@pytest.mark.parametrize("batch_size", [1, 4])
@pytest.mark.parametrize("sampling", SAMPLINGS)
@pytest.mark.parametrize("average", [False, 50])
def test_partial_fit_three_times_equals_fit_three_passes(any_dense, sampling, batch_size, average):
    X, y = any_dense
    kw = _restart_params(sampling, batch_size, average)
    full = PegasosClassifier(max_iter=3, **kw).fit(X, y)
    inc = PegasosClassifier(**kw)
    for _ in range(3):
        inc.partial_fit(X, y, classes=np.unique(y))
    _assert_identical(inc, full)


@pytest.mark.parametrize("batch_size", [1, 4])
@pytest.mark.parametrize("sampling", SAMPLINGS)
@pytest.mark.parametrize("average", [False, 50])
def test_warm_start_two_plus_three_equals_five(any_dense, sampling, batch_size, average):
    X, y = any_dense
    kw = _restart_params(sampling, batch_size, average)
    full = PegasosClassifier(max_iter=5, **kw).fit(X, y)
    warm = PegasosClassifier(max_iter=2, warm_start=True, **kw).fit(X, y)
    assert warm.n_iter_ == 2
    warm.set_params(max_iter=3).fit(X, y)
    assert warm.n_iter_ == 3
    _assert_identical(warm, full)


def test_warm_start_with_visiting_order_and_sparse_input(binary_csr):
    X, y = binary_csr
    order = np.random.RandomState(0).randint(0, X.shape[0], size=97)
    kw = {"sampling": order, "batch_size": 3, "average": 100}
    full = PegasosClassifier(max_iter=5, **kw).fit(X, y)
    warm = PegasosClassifier(max_iter=1, warm_start=True, **kw).fit(X, y)
    for _ in range(4):
        warm.set_params(max_iter=1).fit(X, y)
    _assert_identical(warm, full)


@pytest.mark.parametrize("intercept", [{"intercept_scaling": None}, {"fit_intercept": False}])
def test_exact_restart_with_other_intercept_modes(binary_dense, intercept):
    X, y = binary_dense
    kw = {"random_state": 1, "sampling": "shuffle", "average": 10, **intercept}
    full = PegasosClassifier(max_iter=4, **kw).fit(X, y)
    inc = PegasosClassifier(**kw)
    for _ in range(4):
        inc.partial_fit(X, y, classes=[0, 1])
    _assert_identical(inc, full)


def test_mixing_partial_fit_and_warm_start(binary_dense):
    X, y = binary_dense
    # The last iterate, pinned: chained calls equal one fit bit for bit with
    # ``average`` False or an int, not with the default suffix average (each call
    # averages the last half of its own steps).
    kw = {"random_state": 8, "sampling": "shuffle", "batch_size": 4, "average": False}
    full = PegasosClassifier(max_iter=6, **kw).fit(X, y)
    est = PegasosClassifier(max_iter=2, warm_start=True, **kw).fit(X, y)
    est.partial_fit(X, y)
    est.set_params(max_iter=3).fit(X, y)
    _assert_identical(est, full)


def test_fit_without_warm_start_forgets_partial_fit(binary_dense):
    X, y = binary_dense
    fresh = PegasosClassifier(random_state=0, max_iter=2).fit(X, y)
    est = PegasosClassifier(random_state=0, max_iter=2)
    est.partial_fit(X, y, classes=[0, 1])
    est.fit(X, y)
    _assert_identical(est, fresh)


@pytest.mark.parametrize("sampling", SAMPLINGS)
def test_pickled_estimator_continues_like_the_original(any_dense, sampling):
    X, y = any_dense
    kw = {"random_state": 6, "sampling": sampling, "batch_size": 2, "average": 30}
    orig = PegasosClassifier(**kw)
    orig.partial_fit(X, y, classes=np.unique(y))
    orig.partial_fit(X, y)
    copy = pickle.loads(pickle.dumps(orig))
    _assert_identical(copy, orig)
    for _ in range(2):
        orig.partial_fit(X, y)
        copy.partial_fit(X, y)
    _assert_identical(copy, orig)
    # And the continuation equals an uninterrupted fit of four passes.
    _assert_identical(copy, PegasosClassifier(max_iter=4, **kw).fit(X, y))


def test_pickled_warm_start_estimator_continues_like_the_original(multiclass_csr):
    X, y = multiclass_csr
    kw = {"random_state": 9, "sampling": "shuffle", "warm_start": True, "max_iter": 2}
    orig = PegasosClassifier(**kw).fit(X, y)
    copy = pickle.loads(pickle.dumps(orig))
    orig.fit(X, y)
    copy.fit(X, y)
    _assert_identical(copy, orig)


def test_continuation_is_independent_of_thread_count(multiclass_dense):
    X, y = multiclass_dense
    kw = {"random_state": 2, "sampling": "shuffle", "warm_start": True, "max_iter": 2}
    a = PegasosClassifier(n_jobs=1, **kw).fit(X, y)
    b = PegasosClassifier(n_jobs=2, **kw).fit(X, y)
    a.fit(X, y)
    b.set_params(n_jobs=1).fit(X, y)
    _assert_identical(a, b)


def test_partial_fit_on_changing_batches_is_reproducible(binary_dense):
    X, y = binary_dense
    S = sp.csr_matrix(X)
    batches = [slice(0, 100), slice(100, 220), slice(220, 300)]

    def run():
        est = PegasosClassifier(random_state=1, sampling="shuffle", average=20)
        for i, s in enumerate(batches):
            est.partial_fit(S[s], y[s], classes=[0, 1] if i == 0 else None)
        return est

    _assert_identical(run(), run())


@pytest.mark.parametrize("sampling", SAMPLINGS)
def test_stopping_on_tol_leaves_the_same_state_as_asking_for_fewer_passes(binary_dense, sampling):
    """``tol`` only decides how many passes run: the model and the state it leaves
    (hence any continuation) are those of a fit of exactly that many passes."""
    X, y = binary_dense
    kw = {"random_state": 0, "sampling": sampling, "warm_start": True, "average": 7}
    early = PegasosClassifier(tol=1e-2, max_iter=200, **kw).fit(X, y)
    assert 1 < early.n_iter_ < 200
    plain = PegasosClassifier(max_iter=early.n_iter_, **kw).fit(X, y)
    _assert_identical(early, plain)
    early.set_params(tol=None, max_iter=3).fit(X, y)
    plain.set_params(max_iter=3).fit(X, y)
    _assert_identical(early, plain)


def test_golden_model_bytes_are_pinned():
    """The documented guarantee: an int seed gives the same model bit for bit on every
    platform, thread count and release that does not announce a change. The data comes
    from numpy's legacy RandomState, whose stream numpy keeps fixed."""
    rng = np.random.RandomState(1234)
    X = rng.randn(300, 8)
    y = (X @ rng.randn(8) + 0.3 * rng.randn(300) > 0).astype(int) + 2 * (X[:, 0] > 1)
    est = PegasosClassifier(alpha=1e-3, max_iter=3, average=True, random_state=7, n_jobs=2)
    est.fit(X, y)
    digest = sha256_le(est.coef_, est.intercept_)
    assert digest == GOLDEN_SHA256, digest


GOLDEN_SHA256 = "5e575e717f26e1b902973411949d20d6bea9ec076ab57b7b8690f04cc8689cec"


def test_max_steps_equals_passes_when_it_is_a_whole_number_of_passes(binary_dense):
    """``max_steps=T`` runs exactly T steps; T = p passes gives the p-pass model bit
    for bit, and T below one pass is allowed (the paper's T independent of m)."""
    X, y = binary_dense
    n = X.shape[0]
    a = PegasosClassifier(max_iter=3, random_state=5).fit(X, y)
    b = PegasosClassifier(max_steps=3 * n, max_iter=1, random_state=5).fit(X, y)
    np.testing.assert_array_equal(a.coef_, b.coef_)
    assert b.t_ == 3 * n and b.n_iter_ == 1
    c = PegasosClassifier(max_steps=17, random_state=5).fit(X, y)
    assert c.t_ == 17
    c.partial_fit(X, y)  # partial_fit still runs one pass
    assert c.t_ == 17 + n


def test_golden_digests_hash_little_endian_bytes():
    """Golden digests (here, in test_kernel_estimator.py, test_kernel_approximation.py and
    test_probability.py) hash the arrays' little-endian bytes: the same numbers give the
    same digest on a big-endian machine, and the pinned values are those of the native
    bytes here."""
    a = np.linspace(-1.0, 1.0, 12).reshape(3, 4)
    assert le_bytes(a.astype(">f8")) == le_bytes(a.astype("<f8"))
    assert le_bytes(np.asfortranarray(a)) == le_bytes(a)
    assert sha256_le(a.astype(">f8"), np.arange(3, dtype=">i4")) == sha256_le(
        a, np.arange(3, dtype="<i4")
    )
    if sys.byteorder == "little":
        assert le_bytes(a) == a.tobytes()


@pytest.mark.parametrize("layout", ["dense", "csr"])
def test_a_rows_outputs_do_not_depend_on_the_rows_predicted_with_it(layout):
    """The documented guarantee covers predictions too: each row is computed by the
    crate in a fixed order, so predicting a row alone or among others gives the same
    bits (a BLAS product would not: its matrix-vector and matrix-matrix kernels sum
    in different orders)."""
    rng = np.random.RandomState(0)
    X = np.abs(rng.randn(200, 12))
    y = (X[:, 0] > X[:, 1]).astype(int) + (X[:, 2] > 1)
    Z = np.abs(rng.randn(30, 12))
    Z = sp.csr_matrix(np.where(Z > 0.8, Z, 0.0)) if layout == "csr" else Z
    outputs = []
    for est in (
        PegasosClassifier(probability=True, random_state=0),
        KernelPegasosClassifier(probability=True, max_iter=2, random_state=0),
        KernelPegasosClassifier(multi_class="ovo", probability=True, max_iter=2, random_state=0),
    ):
        est.fit(X, y)
        outputs += [est.decision_function, est.predict_proba, est.predict_log_proba]
    for est in (
        RandomFourierFeatures(n_components=64, random_state=0),
        Nystroem(n_components=40, random_state=0),
        AdditiveKernelMap(),
    ):
        outputs.append(est.fit(X).transform)
    for output in outputs:
        dense = [_dense(output(Z[i : i + 1])) for i in range(Z.shape[0])]
        assert np.concatenate(dense).tobytes() == _dense(output(Z)).tobytes(), output


def _dense(a):
    return a.toarray() if sp.issparse(a) else np.asarray(a)
