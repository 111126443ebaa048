"""One-vs-rest with shared draws (multi_class="ovr_shared"): accuracy against
independent draws, two classes bit for bit, threads, continuation, tol, model files,
bad parameters and the Dask classifier's refusal."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from pegasos_rs import PegasosClassifier
from pegasos_rs.io.model_io import load
from sklearn.datasets import load_digits, make_classification
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import train_test_split


def _shared(**kw):
    params = {"random_state": 0, "alpha": 1e-3, "max_iter": 10, "multi_class": "ovr_shared"}
    return PegasosClassifier(**{**params, **kw})


@pytest.fixture(scope="module")
def digits():
    X, y = load_digits(return_X_y=True)
    return train_test_split(X / 16.0, y, random_state=0)


@pytest.fixture(scope="module")
def twenty_classes():
    X, y = make_classification(
        1500,
        40,
        n_informative=30,
        n_classes=20,
        n_clusters_per_class=1,
        class_sep=3.0,
        random_state=3,
    )
    return train_test_split(X, y, random_state=0)


def test_accuracy_is_that_of_independent_draws(digits, twenty_classes):
    for Xa, Xb, ya, yb in (digits, twenty_classes):
        ovr = _shared(multi_class="ovr").fit(Xa, ya).score(Xb, yb)
        shared = _shared().fit(Xa, ya).score(Xb, yb)
        assert shared > ovr - 0.02, (shared, ovr)
        assert shared > 0.9
    Xa, Xb, ya, yb = digits  # the last iterate too
    ovr = _shared(multi_class="ovr", average=False).fit(Xa, ya).score(Xb, yb)
    assert _shared(average=False).fit(Xa, ya).score(Xb, yb) > ovr - 0.03


def test_digits_accuracy(digits):
    Xa, Xb, ya, yb = digits
    assert _shared().fit(sp.csr_matrix(Xa), ya).score(sp.csr_matrix(Xb), yb) > 0.93


def test_two_classes_give_the_independent_model_bit_for_bit(digits):
    Xa, _, ya, _ = digits
    keep = ya < 2
    for kw in ({}, {"class_weight": {0: 2.0, 1: 0.5}}, {"intercept_scaling": None}):
        a = _shared(multi_class="ovr", **kw).fit(Xa[keep], ya[keep])
        b = _shared(**kw).fit(Xa[keep], ya[keep])
        assert a.coef_.tobytes() == b.coef_.tobytes()
        assert a.intercept_.tobytes() == b.intercept_.tobytes()


def test_models_differ_from_independent_draws_on_many_classes(digits):
    Xa, _, ya, _ = digits
    a = _shared(multi_class="ovr").fit(Xa, ya)
    b = _shared().fit(Xa, ya)
    # Class 0 draws from stream 0 in both modes; the other classes do not.
    assert a.coef_[0].tobytes() == b.coef_[0].tobytes()
    assert a.coef_[1].tobytes() != b.coef_[1].tobytes()


@pytest.mark.parametrize("n_jobs", [2, 3, -1])
def test_threads_do_not_change_the_model(twenty_classes, n_jobs):
    Xa, _, ya, _ = twenty_classes
    one = _shared(n_jobs=1, max_iter=3).fit(Xa, ya)
    many = _shared(n_jobs=n_jobs, max_iter=3).fit(Xa, ya)
    assert one.coef_.tobytes() == many.coef_.tobytes()
    assert one.intercept_.tobytes() == many.intercept_.tobytes()


def test_sample_weights_and_class_weights_are_used(digits):
    Xa, _, ya, _ = digits
    base = _shared(max_iter=2).fit(Xa, ya)
    weighted = _shared(max_iter=2).fit(Xa, ya, sample_weight=np.linspace(0.5, 2, ya.size))
    balanced = _shared(max_iter=2, class_weight={3: 5.0}).fit(Xa, ya)
    assert not np.array_equal(base.coef_, weighted.coef_)
    assert not np.array_equal(base.coef_[3], balanced.coef_[3])
    # Class 3's weight changes class 3's problem only.
    assert base.coef_[4].tobytes() == balanced.coef_[4].tobytes()


def test_warm_start_continues_bit_for_bit(digits):
    Xa, _, ya, _ = digits
    once = _shared(max_iter=4, average=False).fit(Xa, ya)
    twice = _shared(max_iter=2, average=False, warm_start=True).fit(Xa, ya).fit(Xa, ya)
    assert once.coef_.tobytes() == twice.coef_.tobytes()
    assert once.t_ == twice.t_


def test_partial_fit_and_switching_modes(digits):
    Xa, Xb, ya, yb = digits
    est = _shared()
    for _ in range(5):
        est.partial_fit(Xa, ya, classes=np.arange(10))
    assert est.score(Xb, yb) > 0.85
    other = _shared(multi_class="ovr", warm_start=True).fit(Xa, ya)
    other.set_params(multi_class="ovr_shared")
    before = other.coef_.copy()
    with pytest.raises(ValueError, match="independent draws"):
        other.fit(Xa, ya)
    np.testing.assert_array_equal(other.coef_, before)


def test_tol_stops_every_class_at_the_same_pass(digits):
    Xa, _, ya, _ = digits
    est = _shared(tol=1e-2, n_iter_no_change=2, max_iter=200).fit(Xa, ya)
    assert est.n_iter_ < 200
    assert est.objective_.shape == (10,)
    assert np.all(est.objective_ > 0)
    with pytest.warns(ConvergenceWarning):
        _shared(tol=0.0, n_iter_no_change=3, max_iter=2).fit(Xa, ya)


def test_save_and_load_round_trip(tmp_path, digits):
    Xa, Xb, ya, _ = digits
    est = _shared(average=False, warm_start=True, max_iter=2).fit(Xa, ya)
    path = tmp_path / "shared.pegasos"
    est.save(path)
    assert int.from_bytes(path.read_bytes()[8:12], "little") == 1
    back = load(path)
    assert back.get_params() == est.get_params()
    assert back.decision_function(Xb).tobytes() == est.decision_function(Xb).tobytes()
    # The solver state is saved too: the loaded model continues as the original.
    assert back.fit(Xa, ya).coef_.tobytes() == est.fit(Xa, ya).coef_.tobytes()
    default = _shared(multi_class="ovr").fit(Xa, ya)
    default.save(path)
    raw = path.read_bytes()
    assert int.from_bytes(raw[8:12], "little") == 1
    assert b'"multi_class": "ovr"' in raw
    assert load(path).get_params() == default.get_params()


@pytest.mark.parametrize(
    ("params", "match"),
    [
        ({"multi_class": "ovo"}, "multi_class"),
        ({"multi_class": None}, "multi_class"),
        ({"sampling": "balanced"}, "balanced"),
    ],
)
def test_bad_parameters_are_refused(digits, params, match):
    Xa, _, ya, _ = digits
    with pytest.raises(ValueError, match=match):
        _shared(**params).fit(Xa, ya)


def test_probability_and_shuffle_work(digits):
    Xa, Xb, ya, yb = digits
    est = _shared(probability=True, sampling="shuffle", max_iter=3).fit(Xa, ya)
    proba = est.predict_proba(Xb)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert est.score(Xb, yb) > 0.9


def test_dask_classifier_refuses_shared_draws(digits):
    pytest.importorskip("distributed")
    from pegasos_rs.dask import PegasosClassifier as DaskPegasos

    Xa, _, ya, _ = digits
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # dask's own import-time notices, if any
        est = DaskPegasos(multi_class="ovr_shared")
    with pytest.raises(ValueError, match="not supported on a Dask cluster"):
        est.fit(Xa, ya)
    assert est.get_params()["multi_class"] == "ovr_shared"
