"""``multi_class="auto"`` and ``sampling="auto"`` of the linear classifier: what each
resolves to, for few classes (one-vs-rest with uniform draws, bit for bit) and for
many (shared, shuffled draws)."""

from __future__ import annotations

import numpy as np
import pytest
from pegasos_rs import PegasosClassifier, PegasosClassifierCV
from pegasos_rs._linear_solver import AUTO_MANY_CLASSES
from sklearn.datasets import make_classification
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import GridSearchCV, StratifiedKFold

AUTO = {"multi_class": "auto", "sampling": "auto"}
MANY = {"multi_class": "ovr_shared", "sampling": "shuffle"}
FEW = {"multi_class": "ovr", "sampling": "uniform"}


def _data(n_classes: int, n: int = 600):
    return make_classification(
        n_samples=n,
        n_features=30,
        n_informative=20,
        n_classes=n_classes,
        n_clusters_per_class=1,
        random_state=n_classes,
    )


def _same_model(a, b) -> None:
    np.testing.assert_array_equal(a.coef_, b.coef_)
    np.testing.assert_array_equal(a.intercept_, b.intercept_)


@pytest.mark.parametrize("n_classes", [2, 3, AUTO_MANY_CLASSES - 1])
def test_few_classes_train_as_one_vs_rest_with_uniform_draws(n_classes):
    """The defaults are "auto": below the threshold, the models of before, bit for bit."""
    X, y = _data(n_classes, n=max(600, 12 * n_classes))
    common = {"alpha": 1e-3, "max_iter": 4, "random_state": 1}
    assert {k: PegasosClassifier().get_params()[k] for k in AUTO} == AUTO
    _same_model(
        PegasosClassifier(**common).fit(X, y),
        PegasosClassifier(**FEW, **common).fit(X, y),
    )


def test_many_classes_train_on_shared_shuffled_draws():
    X, y = _data(AUTO_MANY_CLASSES, n=1200)
    common = {"alpha": 1e-3, "max_iter": 4, "random_state": 1}
    auto = PegasosClassifier(**AUTO, **common).fit(X, y)
    _same_model(auto, PegasosClassifier(**MANY, **common).fit(X, y))
    # Each "auto" on its own resolves independently of the others.
    one = PegasosClassifier(multi_class="auto", sampling="uniform", **common)
    _same_model(
        one.fit(X, y),
        PegasosClassifier(multi_class="ovr_shared", sampling="uniform", **common).fit(X, y),
    )
    # partial_fit resolves from its classes (its average is the anytime one).
    classes = np.unique(y)
    first = PegasosClassifier(**AUTO, **common).partial_fit(X, y, classes=classes)
    explicit = PegasosClassifier(**MANY, **common).partial_fit(X, y, classes=classes)
    _same_model(first, explicit)


def test_balanced_draws_keep_one_vs_rest_with_many_classes():
    X, y = _data(AUTO_MANY_CLASSES, n=1200)
    common = {"alpha": 1e-3, "max_iter": 2, "random_state": 1, "sampling": "balanced"}
    _same_model(
        PegasosClassifier(multi_class="auto", **common).fit(X, y),
        PegasosClassifier(multi_class="ovr", **common).fit(X, y),
    )


def test_early_stopping_keeps_one_vs_rest_with_many_classes():
    X, y = _data(AUTO_MANY_CLASSES, n=1200)
    common = {"alpha": 1e-3, "max_iter": 3, "random_state": 1, "early_stopping": True}
    with pytest.warns(ConvergenceWarning):
        auto = PegasosClassifier(**AUTO, **common, n_iter_no_change=9).fit(X, y)
    explicit = {**MANY, "multi_class": "ovr"}
    with pytest.warns(ConvergenceWarning):
        ovr = PegasosClassifier(**explicit, **common, n_iter_no_change=9).fit(X, y)
    _same_model(auto, ovr)


def test_a_search_resolves_auto_as_each_fold_fit_does():
    X, y = _data(AUTO_MANY_CLASSES, n=1200)
    folds = StratifiedKFold(3)
    common = {**AUTO, "max_iter": 3, "random_state": 2}
    cv = PegasosClassifierCV(alphas=[1e-3, 1e-2], cv=folds, **common).fit(X, y)
    grid = GridSearchCV(PegasosClassifier(**common), {"alpha": [1e-3, 1e-2]}, cv=folds).fit(X, y)
    for k in range(3):
        np.testing.assert_array_equal(
            cv.cv_results_[f"split{k}_test_score"], grid.cv_results_[f"split{k}_test_score"]
        )


def test_auto_is_not_an_average():
    X, y = _data(3)
    with pytest.raises(ValueError, match="average"):
        PegasosClassifier(average="auto").fit(X, y)


def test_multi_class_says_what_the_last_fit_trained():
    """``multi_class_`` resolves "auto" for the classes and the parameters of the
    last fit (a parameter set after it does not change it)."""
    many, y_many = _data(AUTO_MANY_CLASSES, n=1200)
    few, y_few = _data(3)
    est = PegasosClassifier(max_iter=1, random_state=0)
    assert not hasattr(est, "multi_class_")
    assert est.fit(many, y_many).multi_class_ == "ovr_shared"
    est.set_params(multi_class="crammer_singer")
    assert est.multi_class_ == "ovr_shared"
    assert est.fit(few, y_few).multi_class_ == "crammer_singer"
    assert est.set_params(multi_class="auto").fit(few, y_few).multi_class_ == "ovr"
    stops = PegasosClassifier(early_stopping=True, max_iter=2, random_state=0)
    assert stops.fit(many, y_many).multi_class_ == "ovr"
