"""AdaBoost (src/fasttree/boosting.py): SAMME against the reference and
scikit-learn, the presorted stump path, early stops, resampling."""

import warnings

import numpy as np
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.datasets import load_iris
from sklearn.ensemble import AdaBoostClassifier as SklearnAdaBoost
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import r2_score
from sklearn.tree import DecisionTreeClassifier as SklearnTree

import fasttree.boosting as boosting
from fasttree import (AdaBoostClassifier, AdaBoostRegressor, DecisionTreeClassifier,
                      DecisionTreeRegressor, reference)
from tolerances import assert_rounding_close, data_scale, rounding_equal


def corner_problem(n_samples, seed, n_flipped):
    """The textbook's example: one class in the top-right corner, a few labels flipped."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(size=(n_samples, 2)).astype(np.float32)
    y = ((X[:, 0] > 0.6) & (X[:, 1] > 0.6)).astype(int)
    flipped = rng.choice(n_samples, n_flipped, replace=False)
    y[flipped] = 1 - y[flipped]
    return X, y


def three_classes(n_samples=600, seed=1):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n_samples, 4)).astype(np.float32)
    y = np.digitize(X[:, 0] + 0.5 * X[:, 1] + 0.3 * rng.normal(size=n_samples), [-0.5, 0.5])
    return X, y


def generic_path(monkeypatch):
    monkeypatch.setattr(boosting, "uses_fast_stump", lambda estimator: False)


def test_boosted_stumps_learn_the_corner_that_one_stump_cannot():
    X, y = corner_problem(1000, 0, 30)
    X_test, y_test = corner_problem(2000, 1, 0)
    boosted = AdaBoostClassifier(n_estimators=60).fit(X, y)
    errors = [1.0 - score for score in boosted.staged_score(X, y)]
    assert errors[0] > 0.1
    # The flipped labels (3%) are the floor the training error falls to.
    assert errors[-1] <= errors[9] < errors[0] / 2
    assert errors[-1] <= 0.035
    assert boosted.score(X_test, y_test) > 0.95


@pytest.mark.parametrize("make_data", [lambda: corner_problem(500, 2, 20), three_classes])
def test_samme_equals_the_reference(make_data):
    X, y = make_data()
    ours = AdaBoostClassifier(n_estimators=25, learning_rate=0.8).fit(X, y)
    oracle = reference.samme(X, y, n_estimators=25, learning_rate=0.8)
    assert_rounding_close(ours.estimator_weights_, oracle.alphas)
    assert_rounding_close(ours.estimator_errors_, oracle.errors)
    np.testing.assert_array_equal(ours.predict(X), oracle.predict(X))


def assert_same_stumps(fast, slow):
    """The presorted stumps are the trees a fit grows, down to their node counts."""
    assert_rounding_close(fast.estimator_weights_, slow.estimator_weights_)
    for fast_member, slow_member in zip(fast.estimators_, slow.estimators_):
        np.testing.assert_array_equal(fast_member.tree_.feature, slow_member.tree_.feature)
        np.testing.assert_array_equal(fast_member.tree_.threshold, slow_member.tree_.threshold)
        assert_rounding_close(fast_member.tree_.value, slow_member.tree_.value)
        assert_rounding_close(fast_member.tree_.impurity, slow_member.tree_.impurity)
        np.testing.assert_array_equal(fast_member.tree_.n_node_samples,
                                      slow_member.tree_.n_node_samples)
        assert_rounding_close(fast_member.tree_.weighted_n_node_samples,
                              slow_member.tree_.weighted_n_node_samples)
        assert fast_member.tree_.max_depth == slow_member.get_depth()
        for attribute in ("n_features_in_", "n_outputs_", "max_features_", "n_classes_"):
            assert getattr(fast_member, attribute) == getattr(slow_member, attribute)
        np.testing.assert_array_equal(fast_member.classes_, slow_member.classes_)
    assert_rounding_close(fast.feature_importances_, slow.feature_importances_)


@pytest.mark.parametrize("criterion", ["gini", "entropy"])
@pytest.mark.parametrize("weighted", [False, True])
def test_presorted_stumps_equal_fitting_trees(criterion, weighted, monkeypatch):
    X, y = three_classes(seed=3)
    # Rows of weight 0 take no part, in either path.
    weight = np.where(np.arange(y.size) % 5 == 0, 0.0, 1.0 + np.arange(y.size) % 3) \
        if weighted else None
    stump = DecisionTreeClassifier(max_depth=1, criterion=criterion, min_samples_leaf=5)
    fast = AdaBoostClassifier(stump, n_estimators=20).fit(X, y, sample_weight=weight)
    generic_path(monkeypatch)
    slow = AdaBoostClassifier(stump, n_estimators=20).fit(X, y, sample_weight=weight)
    assert_same_stumps(fast, slow)


@pytest.mark.parametrize("n_rows, min_samples_leaf", [(2, 1), (6, 3), (5, 3)])
def test_presorted_stumps_split_as_few_rows_as_a_fitted_tree_does(n_rows, min_samples_leaf,
                                                                   monkeypatch):
    # Two leaves of min_samples_leaf rows each need 2 * min_samples_leaf rows.
    X = np.arange(n_rows, dtype=np.float64)[:, None]
    y = (np.arange(n_rows) >= n_rows // 2).astype(int)
    stump = DecisionTreeClassifier(max_depth=1, min_samples_leaf=min_samples_leaf)
    fast = AdaBoostClassifier(stump, n_estimators=1).fit(X, y)
    assert fast.estimators_[0].tree_.node_count == (3 if n_rows >= 2 * min_samples_leaf else 1)
    generic_path(monkeypatch)
    assert_same_stumps(fast, AdaBoostClassifier(stump, n_estimators=1).fit(X, y))


@pytest.mark.parametrize("params", [dict(class_weight="balanced"),
                                    dict(loss_matrix=np.array([[0.0, 1.0], [6.0, 0.0]])),
                                    dict(criterion="misclassification")],
                         ids=["class_weight", "loss_matrix", "misclassification"])
def test_stumps_with_parameters_the_presorted_path_lacks_boost_as_fitted_trees(params):
    X, y = corner_problem(400, 14, 12)
    stump = DecisionTreeClassifier(max_depth=1, **params)
    assert not boosting.uses_fast_stump(stump)
    boosted = AdaBoostClassifier(stump, n_estimators=6).fit(X, y)
    # By hand: each round a stump fitted on the boosting weights.
    weight = np.full(y.size, 1.0 / y.size)
    for member, alpha in zip(boosted.estimators_, boosted.estimator_weights_):
        tree = DecisionTreeClassifier(max_depth=1, **params).fit(X, y, sample_weight=weight)
        np.testing.assert_array_equal(member.tree_.threshold, tree.tree_.threshold)
        np.testing.assert_array_equal(member.tree_.feature, tree.tree_.feature)
        wrong = tree.predict(X) != y
        assert_rounding_close(alpha, np.log((1 - weight[wrong].sum()) / weight[wrong].sum()))
        weight = weight * np.exp(alpha * wrong)
        weight /= weight.sum()


@pytest.mark.parametrize("problem", ["two classes", "three classes"])
def test_estimator_weights_and_predictions_equal_scikit_learn(problem):
    X, y = corner_problem(800, 4, 25) if problem == "two classes" else three_classes()
    ours = AdaBoostClassifier(n_estimators=30).fit(X, y)
    theirs = SklearnAdaBoost(estimator=SklearnTree(max_depth=1), n_estimators=30,
                             random_state=0).fit(X, y)
    assert_rounding_close(ours.estimator_weights_, theirs.estimator_weights_)
    np.testing.assert_array_equal(ours.predict(X), theirs.predict(X))
    # The decision function and probabilities in scikit-learn's coding.
    assert_rounding_close(ours.decision_function(X), theirs.decision_function(X))
    assert_rounding_close(ours.predict_proba(X), theirs.predict_proba(X))
    for mine, sklearns in zip(ours.staged_decision_function(X),
                              theirs.staged_decision_function(X)):
        assert_rounding_close(mine, sklearns)


def test_an_error_free_estimator_stops_boosting():
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    y = np.array([0, 0, 1, 1])
    boosted = AdaBoostClassifier(n_estimators=10).fit(X, y)
    assert len(boosted.estimators_) == 1
    assert boosted.estimator_weights_.tolist() == [1.0]
    assert boosted.estimator_errors_.tolist() == [0.0]


def test_an_estimator_no_better_than_chance_stops_boosting():
    # A constant feature: every stump is one leaf, wrong on half the weight.
    X = np.zeros((6, 1))
    y = np.array([0, 0, 0, 1, 1, 1])
    with pytest.raises(ValueError, match="no better than chance"):
        AdaBoostClassifier(n_estimators=5).fit(X, y)


def test_samme_adds_log_of_classes_minus_one():
    X, y = three_classes(seed=5)
    boosted = AdaBoostClassifier(n_estimators=1, learning_rate=0.5).fit(X, y)
    error = boosted.estimator_errors_[0]
    expected = 0.5 * (np.log((1 - error) / error) + np.log(2))
    assert rounding_equal(boosted.estimator_weights_[0], expected)


def test_resampling_is_reproducible_and_equals_the_reference():
    X, y = corner_problem(400, 6, 15)
    first = AdaBoostClassifier(n_estimators=15, boosting="resample", random_state=3).fit(X, y)
    again = AdaBoostClassifier(n_estimators=15, boosting="resample", random_state=3).fit(X, y)
    np.testing.assert_array_equal(first.estimator_weights_, again.estimator_weights_)
    oracle = reference.samme(X, y, n_estimators=15, resample_rng=np.random.default_rng(3))
    assert_rounding_close(first.estimator_weights_, oracle.alphas)
    other = AdaBoostClassifier(n_estimators=15, boosting="resample", random_state=4).fit(X, y)
    assert not np.array_equal(first.estimator_weights_, other.estimator_weights_)


def test_staged_outputs_end_at_the_final_ones_and_probabilities_sum_to_one():
    X, y = three_classes(seed=7)
    boosted = AdaBoostClassifier(n_estimators=12).fit(X, y)
    staged = list(boosted.staged_predict(X))
    assert len(staged) == len(boosted.estimators_)
    np.testing.assert_array_equal(staged[-1], boosted.predict(X))
    probabilities = list(boosted.staged_predict_proba(X))[-1]
    assert_rounding_close(probabilities, boosted.predict_proba(X))
    assert_rounding_close(probabilities.sum(axis=1), 1.0)
    assert boosted.decision_function(X).shape == (len(y), 3)
    np.testing.assert_array_equal(np.argmax(boosted.predict_proba(X), axis=1),
                                  np.searchsorted(boosted.classes_, boosted.predict(X)))


def test_labels_are_returned_as_given_and_binary_decision_is_one_column():
    X, y = corner_problem(300, 8, 10)
    labels = np.where(y == 1, "corner", "rest")
    boosted = AdaBoostClassifier(n_estimators=8).fit(X, labels)
    assert set(boosted.predict(X)) <= {"corner", "rest"}
    decision = boosted.decision_function(X)
    assert decision.shape == (len(y),)
    np.testing.assert_array_equal(boosted.predict(X) == "rest", decision > 0)


def test_any_classifier_with_sample_weight_can_be_boosted():
    X, y = corner_problem(300, 9, 10)
    boosted = AdaBoostClassifier(LogisticRegression(), n_estimators=5).fit(X, y)
    assert 1 <= len(boosted.estimators_) <= 5
    assert boosted.score(X, y) > 0.7


@pytest.mark.parametrize("params, message", [
    ({"n_estimators": 0}, "n_estimators"),
    ({"learning_rate": 0.0}, "learning_rate"),
    ({"learning_rate": 10**400}, "learning_rate must be a finite number"),
    ({"boosting": "bogus"}, "boosting"),
    ({"boosting": ["reweight"]}, "The 'boosting' parameter must be a str among"),
    ({"boosting": np.array(["reweight", "resample"])}, "The 'boosting' parameter"),
])
def test_bad_parameters_are_refused(params, message):
    X, y = corner_problem(50, 10, 0)
    with pytest.raises(ValueError, match=message):
        AdaBoostClassifier(**params).fit(X, y)


@pytest.mark.parametrize("min_samples_leaf, message", [
    (0, "min_samples_leaf"), (-5, "min_samples_leaf")])
def test_the_presorted_stumps_check_their_parameters_as_the_tree_does(min_samples_leaf,
                                                                      message):
    X, y = corner_problem(50, 10, 0)
    stump = DecisionTreeClassifier(max_depth=1, min_samples_leaf=min_samples_leaf)
    assert boosting.uses_fast_stump(stump)
    with pytest.raises(ValueError, match=message):
        AdaBoostClassifier(stump, n_estimators=3).fit(X, y)


@pytest.mark.parametrize("small_side", ["left", "right"])
def test_presorted_stumps_split_off_exactly_min_samples_leaf_rows(small_side):
    # The only perfect split leaves exactly min_samples_leaf rows on one side:
    # the presorted stump sweep takes it, as a fitted tree does.
    X = np.arange(20, dtype=np.float64)[:, None]
    y = (X[:, 0] < 3 if small_side == "left" else X[:, 0] >= 17).astype(int)
    stump = DecisionTreeClassifier(max_depth=1, min_samples_leaf=3)
    boosted = AdaBoostClassifier(stump, n_estimators=2).fit(X, y)
    tree = DecisionTreeClassifier(max_depth=1, min_samples_leaf=3).fit(X, y)
    assert tree.tree_.threshold[0] == (2.5 if small_side == "left" else 16.5)
    assert boosted.estimators_[0].tree_.threshold[0] == tree.tree_.threshold[0]
    np.testing.assert_array_equal(boosted.predict(X), y)


def test_presorted_stumps_of_a_huge_min_samples_leaf_are_single_leaves():
    X, y = corner_problem(50, 10, 0)
    stump = DecisionTreeClassifier(max_depth=1, min_samples_leaf=2**63)
    boosted = AdaBoostClassifier(stump, n_estimators=3).fit(X, y)
    assert all(member.tree_.node_count == 1 for member in boosted.estimators_)


def test_one_class_is_predicted_with_certainty_as_scikit_learn_does():
    X = np.arange(10, dtype=np.float64).reshape(5, 2)
    boosted = AdaBoostClassifier(random_state=0).fit(X, np.full(5, 7))
    assert len(boosted.estimators_) == 1
    np.testing.assert_array_equal(boosted.predict(X), np.full(5, 7))
    np.testing.assert_array_equal(boosted.predict_proba(X), np.ones((5, 1)))
    np.testing.assert_array_equal(boosted.decision_function(X), np.zeros((5, 1)))


def noisy_steps(n_samples=300, seed=11):
    rng = np.random.default_rng(seed)
    X = rng.uniform(size=(n_samples, 1)).astype(np.float32)
    y = np.where(X[:, 0] < 0.3, 0.0, np.where(X[:, 0] < 0.7, 2.0, 1.0))
    return X, y + 0.2 * rng.normal(size=n_samples)


@pytest.mark.parametrize("loss", ["linear", "square", "exponential"])
def test_adaboost_r2_equals_the_reference(loss):
    X, y = noisy_steps()
    ours = AdaBoostRegressor(n_estimators=12, loss=loss, learning_rate=0.7,
                             random_state=5).fit(X, y)
    oracle = reference.adaboost_r2(X, y, n_estimators=12, loss=loss, learning_rate=0.7,
                                   rng=np.random.default_rng(5))
    assert_rounding_close(ours.estimator_weights_, oracle.weights)
    assert_rounding_close(ours.estimator_errors_, oracle.errors)
    assert_rounding_close(ours.predict(X), oracle.predict(X), data_scale(y))


def test_adaboost_r2_of_stumps_beats_one_stump():
    X, y = noisy_steps(600)
    X_test, y_test = noisy_steps(600, seed=12)
    stump = DecisionTreeRegressor(max_depth=1)
    single = stump.fit(X, y)
    # With the linear loss boosting stops early here (mean loss >= 0.5).
    boosted = AdaBoostRegressor(stump, n_estimators=30, loss="square",
                                random_state=0).fit(X, y)
    single_error = np.mean((single.predict(X_test) - y_test) ** 2)
    assert np.mean((boosted.predict(X_test) - y_test) ** 2) < 0.85 * single_error
    staged = list(boosted.staged_predict(X_test))
    np.testing.assert_array_equal(staged[-1], boosted.predict(X_test))


def test_adaboost_r2_stops_on_a_perfect_estimator():
    X = np.arange(8, dtype=np.float64).reshape(-1, 1)
    y = np.where(X[:, 0] < 4, 1.0, 3.0)
    boosted = AdaBoostRegressor(n_estimators=10, random_state=0).fit(X, y)
    assert len(boosted.estimators_) == 1
    assert boosted.estimator_weights_.tolist() == [1.0]


class ZeroRegressor:
    """Predicts 0; its fit returns None, as some estimators' fits do."""

    def get_params(self, deep=True):
        return {}

    def set_params(self, **params):
        return self

    def fit(self, X, y):
        return None

    def predict(self, X):
        return np.zeros(len(X))


def test_adaboost_r2_keeps_a_poor_first_estimator_alone_as_scikit_learn_does():
    # Every row's loss is at least a quarter of the largest: Lbar >= 0.5 at once.
    X = np.arange(8, dtype=np.float64).reshape(-1, 1)
    y = 4.0 + X[:, 0] % 2
    boosted = AdaBoostRegressor(ZeroRegressor(), n_estimators=5, random_state=0).fit(X, y)
    assert len(boosted.estimators_) == 1
    assert boosted.estimator_errors_[0] >= 0.5
    np.testing.assert_array_equal(boosted.predict(X), np.zeros(8))


@pytest.mark.parametrize("loss", ["huber", ["linear"], None])
def test_adaboost_r2_refuses_an_unknown_loss(loss):
    X, y = noisy_steps(50)
    with pytest.raises(ValueError, match="The 'loss' parameter must be a str among"):
        AdaBoostRegressor(loss=loss).fit(X, y)


def test_adaboost_r2_refuses_a_member_whose_predictions_overflow():
    # scikit-learn's tree sums targets near the float64 limit into infinity;
    # boosting its predictions used to give NaN predictions and scores.
    from sklearn.tree import DecisionTreeRegressor as SklearnRegressor

    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 1))
    y = np.sign(rng.normal(size=30)) * 1.7e308
    with np.errstate(all="ignore"), pytest.raises(
            ValueError, match=r"estimator \(DecisionTreeRegressor\) predicted NaN or infinity"):
        AdaBoostRegressor(SklearnRegressor(), random_state=0).fit(X, y)


def test_adaboost_r2_boosts_targets_whose_differences_overflow():
    # Targets of opposite signs near the float64 limit: their errors
    # (target minus prediction) reach twice the limit.
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 1))
    y = np.sign(rng.normal(size=30)) * 1.7e308
    model = AdaBoostRegressor(DecisionTreeRegressor(criterion="absolute_error", max_depth=3),
                              random_state=0).fit(X, y)
    assert np.isfinite(model.estimator_errors_).all()
    predicted = model.predict(X)
    assert np.isin(predicted, y).all()
    # R^2 does not change when y and the predictions are scaled alike.
    scale = 2.0 ** -1000
    assert model.score(X, y) == pytest.approx(r2_score(y * scale, predicted * scale))


@pytest.mark.parametrize("boosted_class", [AdaBoostClassifier, AdaBoostRegressor])
def test_a_member_of_denormal_error_gets_a_finite_weight(boosted_class):
    # Its error is the weight of the denormal row it gets wrong, and
    # (1 - error) / error overflowed: the weight was infinite, every
    # probability and decision NaN.
    X = np.array([[0.3], [1.2], [2.0], [3.0]])
    y = np.array([0, 1, 1, 1]) if boosted_class is AdaBoostClassifier else np.array(
        [0.0, 1.0, 1.0, 1.0])
    weight = np.array([1e-320, 1.0, 1.0, 1.0])
    stump = (DecisionTreeClassifier if boosted_class is AdaBoostClassifier
             else DecisionTreeRegressor)(max_depth=1, min_samples_leaf=2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # the weights overflow next
        # ... but the overflowing log-odds, worked around, are no warning.
        warnings.simplefilter("error", RuntimeWarning)
        model = boosted_class(stump, random_state=0).fit(X, y, sample_weight=weight)
    assert np.isfinite(model.estimator_weights_).all() and model.estimator_weights_[0] > 700
    assert np.isfinite(model.predict(X)).all()
    if boosted_class is AdaBoostClassifier:
        assert np.isfinite(model.predict_proba(X)).all()
        assert np.isfinite(model.decision_function(X)).all()


def test_a_learning_rate_that_makes_a_member_weight_overflow_is_refused():
    X = np.array([[0.3], [1.2], [2.0]])
    with pytest.raises(ValueError, match="learning_rate=1e[+]308 times the member's log-odds"
                                         ".*; use a smaller learning_rate$"):
        AdaBoostClassifier(DecisionTreeClassifier(max_depth=1, min_samples_leaf=2),
                           learning_rate=1e308).fit(X, [0, 1, 1], sample_weight=[1e-300, 1, 1])


def test_adaboost_r2_refuses_a_learning_rate_beyond_a_float():
    X, y = noisy_steps(50)
    with pytest.raises(ValueError, match="learning_rate must be a finite number"):
        AdaBoostRegressor(learning_rate=10**400).fit(X, y)


# With 'hist' the ranks shared are the bins of all the rows, made once; a
# plain fit bins the rows it is given, all of them when reweighting (a
# resampled round's bins are those of all the rows: test_hist_splitter).
@pytest.mark.parametrize("boosting_mode, splitter", [("reweight", "best"), ("resample", "best"),
                                                     ("reweight", "hist")])
def test_shallow_trees_reusing_the_fit_ranks_equal_plain_fits(boosting_mode, splitter,
                                                              monkeypatch):
    X, y = three_classes(seed=13)
    tree = DecisionTreeClassifier(max_depth=2, splitter=splitter, max_bins=6)
    shared = AdaBoostClassifier(tree, n_estimators=10, boosting=boosting_mode,
                                random_state=1).fit(X, y)
    monkeypatch.setattr(boosting, "shared_ranks", lambda *arguments: None)
    plain = AdaBoostClassifier(tree, n_estimators=10, boosting=boosting_mode,
                               random_state=1).fit(X, y)
    assert_rounding_close(shared.estimator_weights_, plain.estimator_weights_)
    np.testing.assert_array_equal(shared.predict(X), plain.predict(X))


class MajorityGuess:
    """A weak learner that always predicts the weighted majority class of its fit."""

    def __init__(self):
        pass

    def get_params(self, deep=True):
        return {}

    def fit(self, X, y, sample_weight=None):
        weights = np.ones(len(y)) if sample_weight is None else sample_weight
        self.label_ = np.argmax(np.bincount(y, weights=weights))
        return self

    def predict(self, X):
        return np.full(len(X), self.label_)


def test_a_later_estimator_no_better_than_chance_is_discarded_and_boosting_stops():
    # Round 1 errs on one row in four (kept); that row then weighs one half, so
    # round 2's guess errs on half the weight: discarded, and boosting stops.
    X = np.zeros((4, 1))
    y = np.array([0, 0, 0, 1])
    boosted = AdaBoostClassifier(MajorityGuess(), n_estimators=10).fit(X, y)
    assert len(boosted.estimators_) == 1
    assert boosted.estimator_errors_.tolist() == [0.25]


@pytest.mark.parametrize("path", ["presorted stumps", "generic"])
def test_every_member_gets_its_own_random_state(path, monkeypatch):
    if path == "generic":
        generic_path(monkeypatch)
    X, y = three_classes()
    members = AdaBoostClassifier(n_estimators=12, random_state=0).fit(X, y).estimators_
    assert len(members) > 1
    assert len({member.random_state for member in members}) == len(members)
    again = AdaBoostClassifier(n_estimators=12, random_state=0).fit(X, y).estimators_
    assert [member.random_state for member in again] == [m.random_state for m in members]


@pytest.mark.parametrize("boosted_class", [AdaBoostClassifier, AdaBoostRegressor])
def test_staged_scores_end_at_the_final_score(boosted_class):
    X, y = three_classes()
    weights = np.linspace(0.5, 2.0, y.size)
    boosted = boosted_class(n_estimators=6, random_state=0).fit(X, y)
    scores = list(boosted.staged_score(X, y, sample_weight=weights))
    assert len(scores) == len(boosted.estimators_)
    assert scores[-1] == boosted.score(X, y, sample_weight=weights)
    # After one round the prediction is the first estimator's.
    from sklearn.metrics import accuracy_score, r2_score

    metric = accuracy_score if boosted_class is AdaBoostClassifier else r2_score
    first = boosted.estimators_[0].predict(X)
    assert_rounding_close(scores[0], metric(y, first, sample_weight=weights))


def test_weights_that_overflow_stop_the_boosting_with_a_warning():
    # A huge learning rate multiplies the wrong rows' weights past float64.
    X, y = load_iris(return_X_y=True)
    with pytest.warns(UserWarning, match="Sample weights have reached infinite values"):
        model = AdaBoostClassifier(n_estimators=30, learning_rate=23.0).fit(X, y)
    assert 1 <= len(model.estimators_) < 30
    assert np.all(np.isfinite(model.estimator_weights_))
    assert np.all(np.isfinite(model.predict_proba(X)))


def test_members_from_other_libraries_get_x_of_more_than_two_dimensions():
    dummy = pytest.importorskip("sklearn.dummy")
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3, 3))
    y = (np.arange(40) % 3 > 0).astype(int)  # two thirds 1: the dummy beats chance
    booster = AdaBoostClassifier(dummy.DummyClassifier(strategy="most_frequent")).fit(X, y)
    assert booster.predict(X).shape == (40,)
    assert booster.predict_proba(X).shape == (40, 2)
    regressor = AdaBoostRegressor(dummy.DummyRegressor()).fit(X, rng.normal(size=40))
    assert regressor.predict(X).shape == (40,)
    # fasttree's own stumps read a 2-D matrix and say so.
    with pytest.raises(ValueError, match="2D|2-D|dimension"):
        AdaBoostClassifier().fit(X, y)


class MajorityRecorder(ClassifierMixin, BaseEstimator):
    """Remembers the rows and weights its fit got; predicts their weighted majority."""

    def __init__(self, random_state=None):
        self.random_state = random_state

    def fit(self, X, y, sample_weight=None):
        self.X_, self.weight_ = X, sample_weight
        self.label_ = np.argmax(np.bincount(y, weights=sample_weight))
        return self

    def predict(self, X):
        return np.full(len(X), self.label_)


class UnweightedMajorityRecorder(MajorityRecorder):
    def fit(self, X, y):
        return super().fit(X, y)


def first_draw(n_rows, seed):
    """How often each row is drawn in the first round (uniform weights), as
    the docstring of boosting_generators states: from default_rng(seed)."""
    rng = np.random.default_rng(seed)
    return np.bincount(rng.choice(n_rows, n_rows, p=np.full(n_rows, 1.0 / n_rows)),
                       minlength=n_rows)


def test_resampled_members_get_draw_counts_as_weights_or_their_rows_repeated():
    X, y = corner_problem(120, 15, 4)
    counts = first_draw(120, seed=5)
    drawn = np.flatnonzero(counts)
    weighted = AdaBoostClassifier(MajorityRecorder(), n_estimators=1, boosting="resample",
                                  random_state=5).fit(X, y).estimators_[0]
    np.testing.assert_array_equal(weighted.X_, X[drawn])
    np.testing.assert_array_equal(weighted.weight_, counts[drawn])
    plain = AdaBoostClassifier(UnweightedMajorityRecorder(), n_estimators=1,
                               boosting="resample", random_state=5).fit(X, y).estimators_[0]
    np.testing.assert_array_equal(plain.X_, X[np.repeat(drawn, counts[drawn])])


def test_a_pipeline_without_sample_weight_is_boosted_by_resampling_only():
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import StandardScaler

    X, y = corner_problem(300, 16, 8)
    pipeline = Pipeline([("scale", StandardScaler()), ("tree", SklearnTree(max_depth=1))])
    boosted = AdaBoostClassifier(pipeline, n_estimators=5, boosting="resample",
                                 random_state=0).fit(X, y)
    assert all(isinstance(member, Pipeline) for member in boosted.estimators_)
    # Scaling moves no stump's partition: the same rounds as the bare tree's.
    bare = AdaBoostClassifier(SklearnTree(max_depth=1), n_estimators=5, boosting="resample",
                              random_state=0).fit(X, y)
    assert_rounding_close(boosted.estimator_weights_, bare.estimator_weights_)
    np.testing.assert_array_equal(boosted.predict(X), bare.predict(X))
    with pytest.raises(ValueError, match=r"^UnweightedMajorityRecorder doesn't support "
                                         r"sample_weight \(its fit takes none\); use "
                                         r"boosting='resample'$"):
        AdaBoostClassifier(UnweightedMajorityRecorder()).fit(X, y)


@pytest.mark.parametrize("boosted_class", [AdaBoostClassifier, AdaBoostRegressor])
def test_a_random_state_generator_gives_the_same_boosting_twice(boosted_class):
    X, y = three_classes(200, seed=17)
    kwargs = dict(boosting="resample") if boosted_class is AdaBoostClassifier else {}
    first, again = (boosted_class(n_estimators=5, random_state=np.random.RandomState(2),
                                  **kwargs).fit(X, y) for _ in range(2))
    np.testing.assert_array_equal(first.estimator_weights_, again.estimator_weights_)
    np.testing.assert_array_equal(first.predict(X), again.predict(X))


@pytest.mark.parametrize("boosted_class", [AdaBoostClassifier, AdaBoostRegressor])
def test_frames_give_feature_names_and_tell_members_their_categorical_columns(
        boosted_class):
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(18)
    frame = pd.DataFrame({"a": rng.normal(size=90),
                          "colour": pd.Categorical(rng.choice(["red", "green", "blue"], 90)),
                          "b": rng.normal(size=90)})
    y = ((frame["colour"] == "red") ^ (frame["a"] > 1)).to_numpy().astype(int)
    boosted = boosted_class(DecisionTreeClassifier(max_depth=2) if boosted_class is
                            AdaBoostClassifier else DecisionTreeRegressor(max_depth=2),
                            n_estimators=3, random_state=0).fit(frame, y)
    np.testing.assert_array_equal(boosted.feature_names_in_, ["a", "colour", "b"])
    for member in boosted.estimators_:
        np.testing.assert_array_equal(member.categorical_features, [False, True, False])
    name = boosted_class.__name__
    with pytest.raises(ValueError, match=f"^{name}: X contains infinity"):
        boosted_class().fit(np.array([[np.inf, 1.0], [1.0, 2.0], [3.0, 4.0]]), [0, 1, 0])
    with pytest.raises(ValueError, match=f"^{name}: feature 0 holds values that are not "
                                         "numbers"):
        boosted_class(n_estimators=2).fit(np.arange(6.0).reshape(3, 2), [0, 1, 0]).predict(
            np.full((1, 2), "word", dtype=object))


@pytest.mark.parametrize("boosted_class", [AdaBoostClassifier, AdaBoostRegressor])
def test_defaults_are_scikit_learns_and_every_parameter_reads_back(boosted_class):
    import sklearn.ensemble

    ours = boosted_class().get_params()
    theirs = getattr(sklearn.ensemble, boosted_class.__name__)().get_params()
    shared = set(ours) & set(theirs)
    assert shared >= {"estimator", "n_estimators", "learning_rate", "random_state"}
    assert {name: ours[name] for name in shared} == {name: theirs[name] for name in shared}
    # The documented defaults of fasttree's own parameters.
    assert ours["verbose"] == 0 and ours["categorical_features"] == "from_dtype"
    given = dict(n_estimators=3, learning_rate=0.5, random_state=7, verbose=1,
                 categorical_features=[0])
    given.update(boosting="resample") if boosted_class is AdaBoostClassifier else given.update(
        loss="square")
    params = boosted_class(**given).get_params()
    assert {name: params[name] for name in given} == given


def test_a_weighted_median_at_exactly_half_the_weight_is_the_smaller_prediction():
    predictions = np.array([[3.0, 1.0, 2.0], [1.0, 3.0, 2.0], [5.0, 0.0, 2.0]])
    for weights in ([1.0, 1.0, 2.0], [2.0, 1.0, 1.0], [1.0, 2.0, 1.0]):
        weights = np.array(weights)
        np.testing.assert_array_equal(boosting.weighted_median(predictions, weights),
                                      reference.boosting.weighted_median(predictions, weights))
    np.testing.assert_array_equal(boosting.weighted_median(predictions[:2], np.ones(2)),
                                  [1.0, 1.0, 2.0])


def test_trees_boosted_on_labels_equal_trees_boosted_on_their_codes():
    X, y = three_classes(seed=19)
    names = np.array(["low", "mid", "top"])
    labels = names[y]
    tree = DecisionTreeClassifier(max_depth=2)
    on_labels = AdaBoostClassifier(tree, n_estimators=6).fit(X, labels)
    on_codes = AdaBoostClassifier(tree, n_estimators=6).fit(X, y)
    np.testing.assert_array_equal(on_labels.estimator_weights_, on_codes.estimator_weights_)
    np.testing.assert_array_equal(on_labels.predict(X), names[on_codes.predict(X)])
    # Fitted again on other labels, it forgets the first ones.
    on_labels.fit(X, y + 10)
    np.testing.assert_array_equal(on_labels.predict(X), on_codes.predict(X) + 10)
    np.testing.assert_array_equal(on_labels.estimator_weights_, on_codes.estimator_weights_)


def test_categorical_features_named_by_column_are_told_to_the_members():
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(20)
    frame = pd.DataFrame({"a": rng.normal(size=90), "colour": rng.choice([0.0, 1.0, 2.0], 90),
                          "b": rng.normal(size=90)})
    y = ((frame["colour"] == 1.0) ^ (frame["a"] > 1)).to_numpy().astype(int)
    boosted = AdaBoostClassifier(DecisionTreeClassifier(max_depth=2), n_estimators=3,
                                 categorical_features=["colour"]).fit(frame, y)
    for member in boosted.estimators_:
        np.testing.assert_array_equal(member.categorical_features, [False, True, False])
