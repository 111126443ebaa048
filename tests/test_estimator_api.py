"""PegasosClassifier as a scikit-learn estimator: the common checks, pickling,
composition (Pipeline, GridSearchCV), fitted attributes and prediction consistency."""

from __future__ import annotations

import math
import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import PROBABILITY_ARGMAX, make_problem, parametrize_with_checks
from pegasos_rs import PegasosClassifier, PegasosRegressor
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.preprocessing import StandardScaler


def _expected_failed_checks(estimator):
    failed = {
        "check_sample_weight_equivalence_on_dense_data": (
            "a stochastic solver: an integer weight w_i and w_i copies of a row define the "
            "same objective, but the data set with copies has more rows, hence other draws "
            "and more steps per pass, so the two models are not equal to 1e-7"
        ),
        "check_sample_weight_equivalence_on_sparse_data": (
            "a stochastic solver: duplicated rows change the sampled sequence (see the "
            "dense variant)"
        ),
        "check_class_weight_classifiers": (
            "weights 1000 vs 0.0001 on blobs with std 20: Pegasos' error bound grows with "
            "(max weight * max ||x||)^2 / (alpha T), so 1000 passes are far too few from the "
            "default step 1/(alpha t); test_class_weight_check_without_projection shows the "
            "weights act as intended"
        ),
    }
    if estimator.loss in ("squared_hinge", "modified_huber"):
        # Their steps start at t0 (from the weighted squared row norms and the largest
        # weight, see "Losses and problems"): stable at any weights.
        del failed["check_class_weight_classifiers"]
    if estimator.probability:
        failed["check_classifiers_train"] = PROBABILITY_ARGMAX
    return failed


def test_class_weight_check_without_projection():
    from sklearn.utils.estimator_checks import check_class_weight_classifiers

    check_class_weight_classifiers(
        "PegasosClassifier", PegasosClassifier(random_state=0, projection=False)
    )


@parametrize_with_checks(
    [
        PegasosClassifier(random_state=0),
        PegasosClassifier(random_state=0, probability=True),
        PegasosClassifier(random_state=0, multi_class="ovr_shared"),
        PegasosClassifier(random_state=0, multi_class="crammer_singer"),
        PegasosClassifier(random_state=0, loss="log_loss"),
        PegasosClassifier(random_state=0, loss="squared_hinge"),
        PegasosClassifier(random_state=0, loss="modified_huber"),
        PegasosClassifier(random_state=0, early_stopping=True),
    ],
    expected_failed_checks=_expected_failed_checks,
)
def test_sklearn_compatible_estimator(estimator, check):
    check(estimator)


def _regressor_failed_checks(estimator):
    return {
        "check_sample_weight_equivalence_on_dense_data": (
            "a stochastic solver: duplicated rows change the sampled sequence"
        ),
        "check_sample_weight_equivalence_on_sparse_data": (
            "a stochastic solver: duplicated rows change the sampled sequence"
        ),
    }


@parametrize_with_checks(
    [
        PegasosRegressor(random_state=0),
        PegasosRegressor(random_state=0, loss="squared_epsilon_insensitive"),
        PegasosRegressor(random_state=0, loss="squared_error"),
        PegasosRegressor(random_state=0, loss="huber"),
        PegasosRegressor(random_state=0, early_stopping=True),
    ],
    expected_failed_checks=_regressor_failed_checks,
)
def test_sklearn_compatible_regressor(estimator, check):
    check(estimator)


# --------------------------------------------------------------------------------------
# Pickling


@pytest.mark.parametrize("sparse", [False, True])
def test_pickle_round_trip_gives_identical_predictions(any_dense, sparse):
    X, y = any_dense
    if sparse:
        X = sp.csr_matrix(X)
    est = PegasosClassifier(random_state=0, alpha=1e-3, max_iter=5).fit(X, y)
    clone_ = pickle.loads(pickle.dumps(est))
    assert clone_.coef_.tobytes() == est.coef_.tobytes()
    assert clone_.intercept_.tobytes() == est.intercept_.tobytes()
    np.testing.assert_array_equal(clone_.classes_, est.classes_)
    np.testing.assert_array_equal(clone_.predict(X), est.predict(X))
    assert clone_.decision_function(X).tobytes() == est.decision_function(X).tobytes()
    assert clone_.get_params() == est.get_params()


def test_pickle_of_unfitted_estimator():
    est = PegasosClassifier(alpha=0.5, sampling="shuffle")
    again = pickle.loads(pickle.dumps(est))
    assert again.get_params() == est.get_params()
    assert not hasattr(again, "coef_")


# --------------------------------------------------------------------------------------
# Composition


def test_pipeline_with_standard_scaler(multiclass_dense):
    X, y = multiclass_dense
    X = X * 50.0 + 3.0  # badly scaled input that the scaler repairs
    pipe = Pipeline(
        [
            ("scale", StandardScaler()),
            ("svm", PegasosClassifier(random_state=0, alpha=1e-3, average=True)),
        ]
    )
    pipe.fit(X, y)
    assert pipe.score(X, y) > 0.8
    np.testing.assert_array_equal(pipe.classes_, np.unique(y))
    scores = pipe.decision_function(X)
    assert scores.shape == (X.shape[0], 4)
    np.testing.assert_array_equal(pipe.predict(X), pipe.classes_[np.argmax(scores, axis=1)])


def test_grid_search_over_alpha(binary_dense):
    X, y = binary_dense
    grid = {"pegasosclassifier__alpha": [1e-4, 1e-2, 10.0]}
    pipe = make_pipeline(StandardScaler(), PegasosClassifier(random_state=0, average=True))
    search = GridSearchCV(pipe, grid, cv=3).fit(X, y)
    assert search.best_params_["pegasosclassifier__alpha"] in grid["pegasosclassifier__alpha"]
    scores = search.cv_results_["mean_test_score"]
    assert scores.shape == (3,)
    assert np.all(np.isfinite(scores))
    # alpha = 10 shrinks the model to almost nothing; it cannot be the best choice.
    assert search.best_params_["pegasosclassifier__alpha"] != 10.0
    assert search.score(X, y) > 0.85
    # The search is reproducible.
    again = GridSearchCV(pipe, grid, cv=3).fit(X, y)
    np.testing.assert_array_equal(again.cv_results_["mean_test_score"], scores)


def test_grid_search_with_parallel_jobs_matches_sequential(binary_dense):
    X, y = binary_dense
    grid = {"alpha": [1e-3, 1e-1]}
    est = PegasosClassifier(random_state=0, max_iter=5)
    seq = GridSearchCV(est, grid, cv=2, n_jobs=1).fit(X, y)
    par = GridSearchCV(est, grid, cv=2, n_jobs=2).fit(X, y)
    np.testing.assert_array_equal(
        seq.cv_results_["mean_test_score"], par.cv_results_["mean_test_score"]
    )


def test_clone_keeps_parameters_and_drops_fit():
    est = PegasosClassifier(alpha=0.1, batch_size=3, sampling=[2, 0, 1], random_state=5)
    X, y = np.eye(3), np.array([0, 1, 1])
    est.fit(X, y)
    c = clone(est)
    assert c.get_params()["sampling"] == [2, 0, 1]
    assert c.get_params()["batch_size"] == 3
    assert not hasattr(c, "coef_")


# --------------------------------------------------------------------------------------
# Fitted attributes


@pytest.mark.parametrize("batch_size", [1, 7])
def test_fitted_attributes_binary(binary_dense, batch_size):
    X, y = binary_dense
    n, d = X.shape
    est = PegasosClassifier(random_state=0, max_iter=3, batch_size=batch_size).fit(X, y)
    assert est.coef_.shape == (1, d)
    assert est.coef_.dtype == np.float64
    assert est.intercept_.shape == (1,)
    assert est.intercept_.dtype == np.float64
    np.testing.assert_array_equal(est.classes_, [0, 1])
    assert est.n_features_in_ == d
    assert est.n_iter_ == 3
    assert est.t_ == 3 * math.ceil(n / batch_size)
    assert est.objective_ is None
    assert np.all(np.isfinite(est.coef_))


def test_fitted_attributes_multiclass(multiclass_dense):
    X, y = multiclass_dense
    n, d = X.shape
    est = PegasosClassifier(random_state=0, max_iter=4).fit(X, y)
    assert est.coef_.shape == (4, d)
    assert est.intercept_.shape == (4,)
    np.testing.assert_array_equal(est.classes_, [0, 1, 2, 3])
    assert est.n_features_in_ == d
    assert est.n_iter_ == 4
    assert est.t_ == 4 * n
    # A second fit without warm_start starts over.
    est.set_params(max_iter=2).fit(X, y)
    assert est.n_iter_ == 2
    assert est.t_ == 2 * n


def test_fitted_attributes_after_partial_fit(binary_dense):
    X, y = binary_dense
    est = PegasosClassifier(random_state=0)
    for calls in (1, 2, 3):
        est.partial_fit(X, y, classes=[0, 1])
        assert est.n_iter_ == 1
        assert est.t_ == calls * X.shape[0]


def test_fit_intercept_false_gives_zero_intercept(any_dense):
    X, y = any_dense
    est = PegasosClassifier(random_state=0, fit_intercept=False).fit(X, y)
    assert np.all(est.intercept_ == 0.0)


def test_objective_attribute_with_tol_or_verbose(binary_dense, capfd):
    X, y = binary_dense
    est = PegasosClassifier(random_state=0, max_iter=3, verbose=1).fit(X, y)
    assert est.objective_.shape == (1,)
    err = capfd.readouterr().err
    assert err.count("objective") == 3, err
    # 3 passes are too few for tol's rule (5 passes without improvement): warned.
    with pytest.warns(ConvergenceWarning, match="tol=0.0 was not reached"):
        est = PegasosClassifier(random_state=0, max_iter=3, tol=0.0).fit(X, y)
    assert est.objective_.shape == (1,)
    assert capfd.readouterr().err == ""


def test_fit_returns_self(binary_dense):
    X, y = binary_dense
    est = PegasosClassifier(random_state=0)
    assert est.fit(X, y) is est
    assert est.partial_fit(X, y) is est


# --------------------------------------------------------------------------------------
# Labels and predictions


def test_string_labels_binary(binary_dense):
    X, y = binary_dense
    names = np.array(["spam", "ham"])[y]  # 0 -> "spam", 1 -> "ham"
    est = PegasosClassifier(random_state=0, alpha=1e-3).fit(X, names)
    np.testing.assert_array_equal(est.classes_, ["ham", "spam"])
    pred = est.predict(X)
    assert pred.dtype.kind == "U"
    assert set(pred) <= {"ham", "spam"}
    # The positive class of the decision function is classes_[1].
    scores = est.decision_function(X)
    np.testing.assert_array_equal(pred, np.where(scores > 0, "spam", "ham"))
    assert est.score(X, names) > 0.85
    # Same model as with the equivalent integer coding (ham=0, spam=1).
    ints = PegasosClassifier(random_state=0, alpha=1e-3).fit(X, (names == "spam").astype(int))
    assert ints.coef_.tobytes() == est.coef_.tobytes()


def test_string_labels_multiclass(multiclass_dense):
    X, y = multiclass_dense
    labels = np.array(["d", "a", "c", "b"])
    est = PegasosClassifier(random_state=0, alpha=1e-3).fit(X, labels[y].tolist())
    np.testing.assert_array_equal(est.classes_, ["a", "b", "c", "d"])
    pred = est.predict(X)
    assert set(pred) <= set(labels)
    assert np.mean(pred == labels[y]) > 0.7


def test_partial_fit_with_string_classes(binary_dense):
    X, y = binary_dense
    names = np.array(["no", "yes"])[y]
    est = PegasosClassifier(random_state=0)
    est.partial_fit(X[:100], names[:100], classes=["yes", "no"])
    est.partial_fit(X[100:], names[100:])
    np.testing.assert_array_equal(est.classes_, ["no", "yes"])


def test_partial_fit_classes_absent_from_first_batch(multiclass_dense):
    X, y = multiclass_dense
    first = y != 3
    est = PegasosClassifier(random_state=0)
    est.partial_fit(X[first], y[first], classes=[0, 1, 2, 3])
    assert est.coef_.shape == (4, X.shape[1])
    est.partial_fit(X, y)
    np.testing.assert_array_equal(est.classes_, [0, 1, 2, 3])


@pytest.mark.parametrize("sparse", [False, True])
def test_predict_and_decision_function_are_consistent(any_dense, sparse):
    X, y = any_dense
    est = PegasosClassifier(random_state=0, alpha=1e-3).fit(X, y)
    Xin = sp.csr_matrix(X) if sparse else X
    scores = est.decision_function(Xin)
    expected = X @ est.coef_.T + est.intercept_
    if est.classes_.size == 2:
        assert scores.shape == (X.shape[0],)
        np.testing.assert_allclose(scores, expected.ravel(), rtol=1e-12, atol=1e-12)
        np.testing.assert_array_equal(est.predict(Xin), est.classes_[(scores > 0).astype(int)])
    else:
        assert scores.shape == (X.shape[0], est.classes_.size)
        np.testing.assert_allclose(scores, expected, rtol=1e-12, atol=1e-12)
        np.testing.assert_array_equal(est.predict(Xin), est.classes_[np.argmax(scores, 1)])
    assert est.score(Xin, y) == np.mean(est.predict(Xin) == y)


def test_prediction_does_not_depend_on_n_jobs(multiclass_dense):
    X, y = multiclass_dense
    X = np.repeat(X, 10, axis=0)  # more rows than one parallel block
    y = np.repeat(y, 10)
    est = PegasosClassifier(random_state=0, max_iter=2).fit(X, y)
    one = est.decision_function(X)
    for n_jobs in (2, -1):
        est.set_params(n_jobs=n_jobs)
        assert est.decision_function(X).tobytes() == one.tobytes()


def test_decision_function_of_a_single_row(any_dense):
    X, y = any_dense
    est = PegasosClassifier(random_state=0).fit(X, y)
    row = est.decision_function(X[:1])
    assert row.shape == ((1,) if est.classes_.size == 2 else (1, est.classes_.size))
    np.testing.assert_array_equal(row, est.decision_function(X)[:1])


def test_quiet_by_default(capfd):
    rng = np.random.RandomState(0)
    X = rng.randn(50, 3)
    PegasosClassifier(max_iter=2, random_state=0).fit(X, X[:, 0] > 0)
    assert capfd.readouterr().err == ""


def test_partial_fit_validates_its_parameters_on_every_call():
    from sklearn.utils._param_validation import InvalidParameterError

    X, y = make_problem(n_samples=100, n_features=5, seed=0)
    est = PegasosClassifier(random_state=0).partial_fit(X, y, classes=[0, 1])
    est.set_params(alpha=-1.0)
    before = pickle.dumps(dict(vars(est)))
    with pytest.raises(InvalidParameterError, match="alpha"):
        est.partial_fit(X, y)
    assert pickle.dumps(dict(vars(est))) == before
