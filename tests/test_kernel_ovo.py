"""One-vs-one kernel Pegasos (multi_class="ovo"): SVC's pair order, signs and
output shapes, votes, accuracy, threads, two classes, probabilities, model files and
bad parameters."""

from __future__ import annotations

import numpy as np
import pytest
from pegasos_rs import KernelPegasosClassifier
from pegasos_rs.io.model_io import load
from sklearn.datasets import load_digits, make_blobs
from sklearn.svm import SVC


def _blobs(n_classes=4, n=240, seed=0):
    centers = [(4 * np.cos(a), 4 * np.sin(a)) for a in np.linspace(0, 2 * np.pi, n_classes + 1)]
    X, y = make_blobs(n, centers=centers[:n_classes], cluster_std=0.4, random_state=seed)
    return X, np.array(["a", "b", "c", "d", "e"])[y]


def _ovo(**kw):
    params = {"random_state": 0, "alpha": 1e-2, "max_iter": 5, "multi_class": "ovo", **kw}
    return KernelPegasosClassifier(**params)


def test_pair_values_have_svc_signs_and_shapes_on_a_separable_problem():
    X, y = _blobs()
    ours = _ovo(decision_function_shape="ovo").fit(X, y)
    svc = SVC(decision_function_shape="ovo").fit(X, y)
    f, g = ours.decision_function(X), svc.decision_function(X)
    assert f.shape == g.shape == (X.shape[0], 6)
    assert ours.dual_coef_.shape == (6, ours.support_.size)
    assert ours.intercept_.shape == (6,)
    # Every pair separates its two classes with SVC's sign (positive: first class).
    for p, (i, j) in enumerate([(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]):
        rows = np.isin(y, ours.classes_[[i, j]])
        np.testing.assert_array_equal(np.sign(f[rows, p]), np.sign(g[rows, p]))
        assert np.all((f[rows, p] > 0) == (y[rows] == ours.classes_[i]))


def test_ovr_shape_is_svc_transform_and_its_argmax_is_predict():
    X, y = _blobs(n_classes=5, seed=1)
    ours = _ovo().fit(X, y)
    pairs = ours.set_params(decision_function_shape="ovo").decision_function(X)
    scores = ours.set_params(decision_function_shape="ovr").decision_function(X)
    assert scores.shape == (X.shape[0], 5)
    # scikit-learn's own transformation of the pair values into per-class scores.
    from sklearn.utils.multiclass import _ovr_decision_function

    np.testing.assert_allclose(scores, _ovr_decision_function(pairs < 0, -pairs, 5))
    np.testing.assert_array_equal(ours.predict(X), ours.classes_[np.argmax(scores, axis=1)])
    votes = np.floor(scores + 0.5)
    np.testing.assert_array_equal(votes.sum(axis=1), 10)
    assert ours.score(X, y) == 1.0


def test_pair_values_of_a_one_vs_rest_model_are_refused():
    # decision_function_shape="ovo" asks for the pairs' values, which a one-vs-rest
    # model does not have: it was silently ignored (one score per class).
    X, y = _blobs(n_classes=3, n=90, seed=8)
    ovr = _ovo(multi_class="ovr", decision_function_shape="ovo")
    with pytest.raises(ValueError, match=r"decision_function_shape='ovo'.*multi_class='ovr'") as e:
        ovr.fit(X, y)
    assert "Set multi_class='ovo'" in str(e.value)
    assert not hasattr(ovr, "dual_coef_")
    # Set after the fit: decision_function refuses it; predict does not depend on it.
    fitted = _ovo(multi_class="ovr").fit(X, y)
    labels = fitted.predict(X)
    fitted.set_params(decision_function_shape="ovo")
    with pytest.raises(ValueError, match="decision_function_shape='ovr' for the score per class"):
        fitted.decision_function(X)
    np.testing.assert_array_equal(fitted.predict(X), labels)
    # Two classes: both shapes are the one decision value, as SVC's.
    X2, y2 = _blobs(n_classes=2, n=60, seed=8)
    two = _ovo(multi_class="ovr", decision_function_shape="ovo").fit(X2, y2)
    assert two.decision_function(X2).shape == (60,)


def test_ties_are_broken_by_the_summed_confidences():
    from pegasos_rs.kernel import _votes

    # Three classes, a cycle: each class wins one pair; the confidences decide.
    pairs = np.array([[1.0, -0.5, 2.0]])  # 0 beats 1; 2 beats 0; 1 beats 2
    scores = _votes(pairs, 3)
    np.testing.assert_array_equal(np.floor(scores + 0.5), [[1, 1, 1]])
    # Confidences: class 0: 1 - 0.5 = 0.5, class 1: -1 + 2 = 1, class 2: 0.5 - 2.
    assert np.argmax(scores) == 1


def test_digits_accuracy_is_comparable_to_one_vs_rest():
    X, y = load_digits(return_X_y=True)
    X = X / 16
    train, test = slice(0, 1200), slice(1200, None)
    common = {"random_state": 0, "alpha": 1 / 1200, "max_iter": 4}
    ovr = KernelPegasosClassifier(**common).fit(X[train], y[train])
    ovo = KernelPegasosClassifier(multi_class="ovo", **common).fit(X[train], y[train])
    acc_ovr, acc_ovo = ovr.score(X[test], y[test]), ovo.score(X[test], y[test])
    assert acc_ovo > 0.9
    assert acc_ovo >= acc_ovr - 0.02
    assert len(ovo.fit_report_) == 45
    # n_support_ counts the union's support vectors by class, as for one-vs-rest.
    np.testing.assert_array_equal(ovo.n_support_, np.bincount(y[train][ovo.support_], minlength=10))
    assert np.all(np.diff(ovo.support_) > 0)


def test_thread_count_changes_nothing():
    X, y = _blobs(n_classes=4, n=300, seed=3)
    one = _ovo(n_jobs=1).fit(X, y)
    for jobs, cache in [(2, 200), (3, 0.001)]:
        other = _ovo(n_jobs=jobs, cache_size=cache).fit(X, y)
        assert other.dual_coef_.tobytes() == one.dual_coef_.tobytes()
        assert other.intercept_.tobytes() == one.intercept_.tobytes()
        np.testing.assert_array_equal(other.support_, one.support_)


@pytest.mark.parametrize("fit_intercept", [False, True])
def test_two_classes_give_the_one_vs_rest_model_bit_for_bit(fit_intercept):
    X, y = _blobs(n_classes=2, seed=4)
    kw = {"fit_intercept": fit_intercept, "class_weight": {"a": 2.0, "b": 1.0}}
    ovr = _ovo(multi_class="ovr", **kw).fit(X, y)
    ovo = _ovo(decision_function_shape="ovo", **kw).fit(X, y)
    assert ovo.dual_coef_.tobytes() == ovr.dual_coef_.tobytes()
    assert ovo.intercept_.tobytes() == ovr.intercept_.tobytes()
    np.testing.assert_array_equal(ovo.support_, ovr.support_)
    assert ovo.decision_function(X).shape == (X.shape[0],)
    # SVC's binary values: positive for classes_[1].
    assert np.all((ovo.decision_function(X) > 0) == (y == ovo.classes_[1]))


def test_probability_uses_the_per_class_scores():
    X, y = _blobs(n_classes=3, n=150, seed=5)
    est = _ovo(probability=True, decision_function_shape="ovo").fit(X, y)
    proba = est.predict_proba(X)
    assert est.probA_.shape == est.probB_.shape == (3,)
    assert proba.shape == (150, 3)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert np.mean(est.classes_[np.argmax(proba, axis=1)] == y) > 0.95
    # The final model is the one probability=False trains.
    plain = _ovo(decision_function_shape="ovo").fit(X, y)
    assert plain.dual_coef_.tobytes() == est.dual_coef_.tobytes()


def test_sampling_order_is_followed_within_each_pair():
    X, y = _blobs(n_classes=3, n=90, seed=6)
    order = np.arange(90)[::-1]
    est = _ovo(sampling=order).fit(X, y)
    assert est.score(X, y) > 0.95
    only_a = np.flatnonzero(y == "a")
    with pytest.raises(ValueError, match="visits no example of classes 1 and 2"):
        _ovo(sampling=only_a).fit(X, y)


def test_save_and_load_round_trip(tmp_path):
    X, y = _blobs(n_classes=4, seed=7)
    est = _ovo(decision_function_shape="ovo").fit(X, y)
    path = tmp_path / "ovo.pegasos"
    est.save(path)
    back = load(path)
    assert back.get_params() == est.get_params()
    assert back.decision_function(X).tobytes() == est.decision_function(X).tobytes()
    np.testing.assert_array_equal(back.predict(X), est.predict(X))
    assert int.from_bytes(path.read_bytes()[8:12], "little") == 1
    # A default (one-vs-rest) model: the same version, every parameter written.
    ovr = _ovo(multi_class="ovr").fit(X, y)
    ovr.save(path)
    raw = path.read_bytes()
    assert int.from_bytes(raw[8:12], "little") == 1
    assert b'"multi_class": "ovr"' in raw and b'"decision_function_shape": "ovr"' in raw
    assert load(path).get_params() == ovr.get_params()


@pytest.mark.parametrize(
    ("param", "value"),
    [("multi_class", "crammer_singer"), ("decision_function_shape", "ovx"), ("multi_class", 1)],
)
def test_bad_parameters_are_refused(param, value):
    X, y = _blobs(n_classes=3, n=60)
    with pytest.raises(ValueError, match=param):
        _ovo(**{param: value}).fit(X, y)


def test_each_pair_is_svcs_problem_with_the_same_c():
    """SVC trains every pair with the same C; C = 1/(alpha n) for n rows, so a pair of
    n_pair rows has alpha n / n_pair. Pair (a, b) is the first pair, on stream 0: the
    binary fit of its rows alone with that alpha (class b positive there, class a in
    the pair: the same steps with the signs flipped). Before, the pairs kept alpha,
    a C n / n_pair times SVC's."""
    X, y = _blobs(n_classes=3, n=150, seed=3)
    alpha = 1e-2
    ovo = _ovo(alpha=alpha, gamma=0.5).fit(X, y)
    keep = np.flatnonzero((y == "a") | (y == "b"))
    pair_alpha = alpha * y.size / keep.size
    alone = KernelPegasosClassifier(
        alpha=pair_alpha, gamma=0.5, max_iter=5, random_state=0, multi_class="ovo"
    ).fit(X[keep], y[keep])
    first = ovo.dual_coef_[0]
    np.testing.assert_array_equal(ovo.support_[first != 0], keep[alone.support_])
    np.testing.assert_array_equal(first[first != 0], -alone.dual_coef_[0])
    assert ovo.fit_report_[0]["steps"] == alone.fit_report_[0]["steps"]


@pytest.mark.parametrize(
    ("n_classes", "n", "used"),
    [(2, 2000, "ovr"), (3, 750, "ovo"), (3, 740, "ovr"), (5, 1250, "ovo"), (5, 1240, "ovr")],
)
def test_auto_trains_pairs_when_they_average_500_rows(n_classes, n, used):
    """multi_class="auto" is "ovo" for more than two classes whose pairs average at
    least 500 rows (2 n / n_classes), otherwise "ovr": the same model, bit for bit."""
    X, y = _blobs(n_classes=n_classes, n=n, seed=1)
    auto = _ovo(multi_class="auto", max_iter=1).fit(X, y)
    explicit = _ovo(multi_class=used, max_iter=1).fit(X, y)
    assert auto.multi_class_ == used == explicit.multi_class_
    np.testing.assert_array_equal(auto.dual_coef_, explicit.dual_coef_)
    np.testing.assert_array_equal(auto.decision_function(X), explicit.decision_function(X))
    assert KernelPegasosClassifier().multi_class == "auto"


def test_auto_model_file_keeps_its_decomposition(tmp_path):
    """A model file of multi_class="auto" predicts as the model (the choice is made
    again from the saved classes and training rows, shape_fit_)."""
    from pegasos_rs import save

    X, y = _blobs(n_classes=3, n=900, seed=2)
    model = _ovo(multi_class="auto", max_iter=1, decision_function_shape="ovo").fit(X, y)
    assert model.multi_class_ == "ovo" and model.shape_fit_ == X.shape
    save(model, tmp_path / "m.pgs")
    back = load(tmp_path / "m.pgs")
    assert back.multi_class_ == "ovo"
    np.testing.assert_array_equal(back.decision_function(X), model.decision_function(X))
    del back.shape_fit_
    save_path = tmp_path / "bad.pgs"
    save(back, save_path)
    with pytest.raises(ValueError, match="shape_fit_ must be two counts"):
        load(save_path)


def test_auto_names_its_choice_when_pair_values_are_unavailable():
    X, y = _blobs(n_classes=3, n=90, seed=8)
    model = _ovo(multi_class="auto", decision_function_shape="ovo")
    with pytest.raises(ValueError, match="multi_class='auto' chose one-vs-rest"):
        model.fit(X, y)


def test_auto_calibrates_the_decomposition_it_chose():
    """Platt's folds train on 4/5 of the rows: with multi_class="auto" near the
    threshold (750 rows of 3 classes: pairs of 500, folds' pairs of 400) they train
    the pairs the model chose, not one-vs-rest, so the sigmoids are those of
    multi_class="ovo" (before, the folds resolved "auto" again and fitted them to
    one-vs-rest scores)."""
    X, y = _blobs(n_classes=3, n=750, seed=4)
    auto = _ovo(multi_class="auto", max_iter=1, probability=True).fit(X, y)
    ovo = _ovo(multi_class="ovo", max_iter=1, probability=True).fit(X, y)
    assert auto.multi_class_ == "ovo"
    np.testing.assert_array_equal(auto.probA_, ovo.probA_)
    np.testing.assert_array_equal(auto.probB_, ovo.probB_)
