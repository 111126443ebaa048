"""A budget of support vectors for the kernel estimators (issue 40): budgeted SGD.

Oracles: with a budget no fit reaches, the model without a budget (the same draws
and steps; the kernel values rounded otherwise, so to 1e-8); the budget never
exceeded; the support vectors that are training rows equal to those rows; on real
data (scikit-learn's digits and diabetes) a merged or projected budget close to the
unbudgeted model; scikit-learn's estimator checks.
"""

from __future__ import annotations

import pickle

import numpy as np
import pegasos_rs
import pytest
import scipy.sparse as sp
from conftest import parametrize_with_checks, stochastic_weight_failures
from pegasos_rs import KernelPegasosClassifier, KernelPegasosRegressor
from sklearn.datasets import load_diabetes, load_digits, make_classification
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler


def _problem(n_classes=2, sparse=False):
    X, y = make_classification(
        n_samples=300, n_features=6, n_informative=4, n_redundant=0,
        n_classes=n_classes, random_state=1,
    )  # fmt: skip
    if sparse:
        X[np.abs(X) < 0.5] = 0.0
        return sp.csr_matrix(X), y
    return X, y


@pytest.mark.parametrize("maintenance", ["merge", "project"])
@pytest.mark.parametrize(("n_classes", "sparse"), [(2, False), (3, True)])
def test_a_budget_no_fit_reaches_gives_the_model_without_one(n_classes, sparse, maintenance):
    X, y = _problem(n_classes, sparse)
    kw = {"alpha": 0.01, "gamma": 0.3, "max_iter": 3, "random_state": 0, "multi_class": "ovr"}
    kw["average"] = True  # both averaged (with a budget "auto" is the last iterate)
    plain = KernelPegasosClassifier(strategy="support", **kw).fit(X, y)
    budgeted = KernelPegasosClassifier(budget=10_000, budget_maintenance=maintenance, **kw)
    budgeted.fit(X, y)
    np.testing.assert_allclose(
        budgeted.decision_function(X), plain.decision_function(X), rtol=1e-8, atol=1e-8
    )
    assert (budgeted.support_ >= 0).all()
    assert set(budgeted.support_) == set(plain.support_)
    assert budgeted.fit_report_[0]["strategy"] == "budget"
    assert budgeted.t_ == plain.t_


@pytest.mark.parametrize("maintenance", ["merge", "project"])
def test_the_regressor_with_a_budget_no_fit_reaches(maintenance):
    X, y = load_diabetes(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    kw = {"alpha": 1e-3, "epsilon": 10.0, "gamma": 0.1, "max_iter": 2, "random_state": 0}
    kw["average"] = True
    plain = KernelPegasosRegressor(strategy="support", **kw).fit(X, y)
    budgeted = KernelPegasosRegressor(budget=10_000, budget_maintenance=maintenance, **kw)
    budgeted.fit(X, y)
    np.testing.assert_allclose(budgeted.predict(X), plain.predict(X), rtol=1e-8, atol=1e-6)


@pytest.mark.parametrize("cls", [KernelPegasosClassifier, KernelPegasosRegressor])
def test_average_auto_is_the_last_iterate_with_a_budget_only(cls):
    """``average="auto"`` (the default): the suffix average without a budget, the
    last iterate with one (the average's maintenance errors are never corrected)."""
    X, y = _problem(3) if cls is KernelPegasosClassifier else load_diabetes(return_X_y=True)
    if cls is KernelPegasosRegressor:
        X = StandardScaler().fit_transform(X)
    kw = {"alpha": 0.01, "gamma": 0.3, "max_iter": 2, "random_state": 0}
    assert cls().average == "auto"

    def model(**more):
        est = cls(**kw, **more).fit(X, y)
        return est.dual_coef_.tobytes(), est.intercept_.tobytes()

    assert model() == model(average=True)
    assert model(budget=9) == model(budget=9, average=False)
    assert model(budget=9) != model(budget=9, average=True)


@pytest.mark.parametrize("maintenance", ["merge", "remove", "project"])
def test_the_budget_holds_and_its_training_rows_are_the_rows(maintenance):
    X, y = _problem(3)
    est = KernelPegasosClassifier(
        budget=12, budget_maintenance=maintenance, gamma=0.3, alpha=0.01, random_state=0
    ).fit(X, y)
    assert est.multi_class_ == "ovr"
    assert est.n_support_.tolist() == [int(np.count_nonzero(r)) for r in est.dual_coef_]
    assert (est.n_support_ <= 12).all()
    rows = est.support_ >= 0
    np.testing.assert_array_equal(est.support_vectors_[rows], X[est.support_[rows]])
    if maintenance == "merge":
        assert (est.support_ == -1).any()  # merged points
    else:
        assert rows.all()


@pytest.mark.parametrize("maintenance", ["merge", "project"])
def test_one_vs_one_pairs_keep_budgets_of_their_own(maintenance):
    """Each pair of classes on its rows with its own budget; a budget no pair
    reaches gives the one-vs-one model without one."""
    X, y = _problem(3)
    kw = {"alpha": 0.01, "gamma": 0.3, "max_iter": 2, "random_state": 0, "multi_class": "ovo"}
    kw["average"] = True
    plain = KernelPegasosClassifier(strategy="support", **kw).fit(X, y)
    kw["budget_maintenance"] = maintenance
    big = KernelPegasosClassifier(budget=10_000, **kw).fit(X, y)
    np.testing.assert_allclose(
        big.decision_function(X), plain.decision_function(X), rtol=1e-8, atol=1e-8
    )
    np.testing.assert_array_equal(big.predict(X), plain.predict(X))
    small = KernelPegasosClassifier(budget=7, **kw).fit(X, y)
    assert small.multi_class_ == "ovo" and small.dual_coef_.shape[0] == 3
    assert all(np.count_nonzero(row) <= 7 for row in small.dual_coef_)
    assert small.n_support_.sum() == small.support_.size
    rows = small.support_ >= 0
    np.testing.assert_array_equal(small.support_vectors_[rows], X[small.support_[rows]])


@pytest.mark.parametrize("maintenance", ["merge", "project"])
def test_the_one_class_svm_with_a_budget(maintenance):
    """A budget no fit reaches gives the one-class model without one; a small budget
    holds, keeps the nu-property (the exact offset) and most of the AUC."""
    from pegasos_rs import KernelPegasosOneClassSVM
    from sklearn.metrics import roc_auc_score

    X, y = load_digits(return_X_y=True)
    X_train, X_test, y_train, y_test = train_test_split(X / 16.0, y, random_state=0)
    normal = X_train[y_train == 3]
    kw = {"nu": 0.1, "gamma": 0.05, "random_state": 0, "average": True}
    plain = KernelPegasosOneClassSVM(strategy="support", **kw).fit(normal)
    kw["budget_maintenance"] = maintenance
    big = KernelPegasosOneClassSVM(budget=10_000, **kw).fit(normal)
    np.testing.assert_allclose(
        big.decision_function(X_test), plain.decision_function(X_test), rtol=1e-8, atol=1e-8
    )
    small = KernelPegasosOneClassSVM(budget=15, **kw).fit(normal)
    assert small.n_support_[0] <= 15
    d = small.decision_function(normal)
    assert np.mean(d < 0) <= 0.1 <= np.mean(d <= 0)
    other = y_test != 3
    a = roc_auc_score(other, -small.decision_function(X_test))
    b = roc_auc_score(other, -plain.decision_function(X_test))
    assert a >= b - 0.02, (a, b)


@pytest.mark.parametrize("maintenance", ["merge", "project"])
def test_real_data_merging_and_projection_keep_the_accuracy(maintenance):
    """digits (10 classes, one-vs-rest): 60 merged or projected points a class
    against the unbudgeted model's hundreds of support vectors."""
    X, y = load_digits(return_X_y=True)
    X_train, X_test, y_train, y_test = train_test_split(X / 16.0, y, random_state=0)
    kw = {"alpha": 1e-3, "gamma": 0.05, "max_iter": 5, "random_state": 0, "multi_class": "ovr"}
    plain = KernelPegasosClassifier(**kw).fit(X_train, y_train)
    budgeted = KernelPegasosClassifier(budget=60, budget_maintenance=maintenance, **kw)
    budgeted.fit(X_train, y_train)
    a, b = budgeted.score(X_test, y_test), plain.score(X_test, y_test)
    assert a >= b - 0.03, (a, b)
    assert budgeted.support_vectors_.shape[0] <= 600 < plain.support_vectors_.shape[0]


def test_model_files_pickle_and_probabilities(tmp_path):
    X, y = _problem(2, sparse=True)
    est = KernelPegasosClassifier(budget=15, gamma=0.3, random_state=0, probability=True)
    est.fit(X, y)
    assert sp.issparse(est.support_vectors_)
    for other in (pickle.loads(pickle.dumps(est)), None):
        if other is None:
            est.save(tmp_path / "b.model")
            other = pegasos_rs.load(tmp_path / "b.model")
        np.testing.assert_array_equal(other.decision_function(X), est.decision_function(X))
        np.testing.assert_array_equal(other.predict_proba(X), est.predict_proba(X))


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"budget": 1}, "budget"),
        ({"budget": 5, "kernel": "precomputed"}, "precomputed"),
        ({"budget": 5, "early_stopping": True}, "early_stopping"),
        ({"budget": 5, "kernel": "poly"}, "rbf kernel only"),
        ({"budget": 5, "loss": "squared_hinge"}, "squared_hinge"),
        ({"budget": 5, "budget_maintenance": "drop"}, "budget_maintenance"),
        (
            {"budget": 5, "kernel": "sigmoid", "budget_maintenance": "project"},
            "positive semi-definite kernel, which the sigmoid kernel is not",
        ),
        (
            {"budget": 5, "kernel": "poly", "coef0": -1.0, "budget_maintenance": "project"},
            "poly kernel with coef0 < 0",
        ),
    ],
)
def test_what_a_budget_cannot_go_with_is_refused(params, message):
    X, y = _problem(3)
    if params.get("kernel") == "precomputed":
        X = X @ X.T
    with pytest.raises(ValueError, match=message):
        KernelPegasosClassifier(random_state=0, **params).fit(X, y)


@parametrize_with_checks(
    [
        KernelPegasosClassifier(budget=8, random_state=0),
        KernelPegasosRegressor(budget=20, random_state=0),
        KernelPegasosClassifier(budget=8, budget_maintenance="project", random_state=0),
    ],
    expected_failed_checks=lambda est: {
        **stochastic_weight_failures(est),
        **(
            {
                "check_class_weight_classifiers": "8 projected points a class, last iterate: "
                "the balanced accuracy on the check's small imbalanced problem falls below "
                "its 0.87 at some budgets (at 12 it passes, at 16 not even averaged)"
            }
            if est.get_params().get("budget_maintenance") == "project"
            else {}
        ),
    },
)
def test_sklearn_compatible_budgeted(estimator, check):
    check(estimator)
