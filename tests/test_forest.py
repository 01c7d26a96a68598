"""RandomForestClassifier / RandomForestRegressor: the member trees, randomness,
warm start, voting and aggregation, importances, pickling, scikit-learn
interplay, validation and progress output.

Agreement with the reference forest on the same bootstrap draws, the draws
themselves (max_samples, the 1/e rule), class weights and the out-of-bag
estimates are in test_forest_oob.py.
"""

import pickle
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone, is_classifier, is_regressor
from sklearn.ensemble import RandomForestClassifier as SklearnForestClassifier
from sklearn.model_selection import GridSearchCV, cross_val_score

from fasttree import (DecisionTreeClassifier, DecisionTreeRegressor, ExtraTreesClassifier,
                      ExtraTreesRegressor, NotFittedError, RandomForestClassifier,
                      RandomForestRegressor)
from synthetic import classification_data, regression_data
from tolerances import assert_rounding_close, data_scale

FORESTS = [RandomForestClassifier, RandomForestRegressor]
FORESTS_AND_TREES = [(RandomForestClassifier, DecisionTreeClassifier),
                     (RandomForestRegressor, DecisionTreeRegressor)]


def data_for_forest(forest_class, **kwargs):
    if forest_class is RandomForestClassifier:
        return classification_data(**kwargs)
    return regression_data(**kwargs)


def forest_output(estimator, X):
    """Class probabilities of a classifier (forest or tree), predictions otherwise."""
    if is_classifier(estimator):
        return estimator.predict_proba(X)
    return estimator.predict(X)


def prediction_methods(forest_class):
    if forest_class is RandomForestClassifier:
        return ["predict", "apply", "predict_proba", "vote_fractions"]
    return ["predict", "apply"]


def tree_arrays(tree):
    return (tree.children_left, tree.children_right, tree.feature, tree.threshold)


# -- the member trees ----------------------------------------------------------------

@pytest.mark.parametrize("forest_class, tree_class", FORESTS_AND_TREES)
def test_one_tree_without_bootstrap_equals_a_single_decision_tree(forest_class, tree_class):
    X, y = data_for_forest(forest_class)
    forest = forest_class(n_estimators=1, bootstrap=False, max_features=None,
                          random_state=3).fit(X, y)
    tree = tree_class().fit(X, y)
    for ours, theirs in zip(tree_arrays(forest.estimators_[0].tree_), tree_arrays(tree.tree_)):
        np.testing.assert_array_equal(ours, theirs)
    leaf = tree.tree_.children_left == -1
    np.testing.assert_array_equal(forest.estimators_[0].tree_.value[leaf],
                                  tree.tree_.value[leaf])
    X_new = np.random.default_rng(4).normal(size=(500, X.shape[1]))
    for rows in (X, X_new):
        np.testing.assert_array_equal(forest.predict(rows), tree.predict(rows))
        if forest_class is RandomForestClassifier:
            np.testing.assert_array_equal(forest.predict_proba(rows), tree.predict_proba(rows))


@pytest.mark.parametrize("forest_class, tree_class", FORESTS_AND_TREES)
def test_estimators_are_fitted_trees_that_make_up_the_forest(forest_class, tree_class):
    X, y = data_for_forest(forest_class)
    forest = forest_class(n_estimators=7, max_depth=5, random_state=0).fit(X, y)
    X_new = np.random.default_rng(1).normal(size=(200, X.shape[1]))
    assert len(forest.estimators_) == 7
    assert all(isinstance(member, tree_class) for member in forest.estimators_)
    leaves = forest.apply(X_new)
    assert leaves.shape == (200, 7)
    member_outputs = []
    for t, member in enumerate(forest.estimators_):
        assert member.n_features_in_ == X.shape[1]
        np.testing.assert_array_equal(member.apply(X_new), leaves[:, t])
        assert np.all(member.tree_.children_left[leaves[:, t]] == -1)
        member_outputs.append(forest_output(member, X_new))
    assert_rounding_close(forest_output(forest, X_new), np.mean(member_outputs, axis=0),
                          data_scale(y))
    if forest_class is RandomForestClassifier:
        np.testing.assert_array_equal(forest.estimators_[0].classes_, forest.classes_)


# -- randomness ------------------------------------------------------------------------

@pytest.mark.parametrize("forest_class", FORESTS)
def test_the_same_random_state_gives_the_same_forest_for_any_n_jobs(forest_class):
    X, y = data_for_forest(forest_class)
    X_new = np.random.default_rng(2).normal(size=(5000, X.shape[1]))  # several chunks
    forests = [forest_class(n_estimators=12, random_state=5, n_jobs=n_jobs).fit(X, y)
               for n_jobs in (1, 2, -1)]
    outputs = [forest_output(forest, X_new) for forest in forests]
    for forest, output in zip(forests[1:], outputs[1:]):
        np.testing.assert_array_equal(output, outputs[0])
        np.testing.assert_array_equal(forest.predict(X_new), forests[0].predict(X_new))
        for ours, theirs in zip(forest.estimators_, forests[0].estimators_):
            for a, b in zip(tree_arrays(ours.tree_), tree_arrays(theirs.tree_)):
                np.testing.assert_array_equal(a, b)
    single = forests[0]
    for n_jobs in (2, -1):
        single.set_params(n_jobs=n_jobs)
        np.testing.assert_array_equal(forest_output(single, X_new), outputs[0])


@pytest.mark.parametrize("forest_class", FORESTS)
def test_different_random_states_give_different_forests(forest_class):
    X, y = data_for_forest(forest_class)
    first = forest_class(n_estimators=5, random_state=0).fit(X, y)
    second = forest_class(n_estimators=5, random_state=1).fit(X, y)
    assert not np.array_equal(forest_output(first, X), forest_output(second, X))
    assert not np.array_equal(first.estimators_samples_[0], second.estimators_samples_[0])


@pytest.mark.parametrize("make_state", [np.random.default_rng, np.random.RandomState],
                         ids=["Generator", "RandomState"])
def test_a_generator_or_random_state_is_accepted_as_random_state(make_state):
    X, y = classification_data()
    first = RandomForestClassifier(n_estimators=5, random_state=make_state(9)).fit(X, y)
    second = RandomForestClassifier(n_estimators=5, random_state=make_state(9)).fit(X, y)
    np.testing.assert_array_equal(first.predict_proba(X), second.predict_proba(X))
    assert first.score(X, y) > 0.8


# -- warm start ------------------------------------------------------------------------

@pytest.mark.parametrize("forest_class", FORESTS)
def test_warm_start_growing_ten_then_twenty_trees_equals_twenty_at_once(forest_class):
    X, y = data_for_forest(forest_class)
    warm = forest_class(n_estimators=10, random_state=4, warm_start=True).fit(X, y)
    first_ten = list(warm.estimators_)
    warm.set_params(n_estimators=20).fit(X, y)
    cold = forest_class(n_estimators=20, random_state=4).fit(X, y)
    assert len(warm.estimators_) == 20
    assert all(a.tree_ is b.tree_ for a, b in zip(warm.estimators_[:10], first_ten))
    X_new = np.random.default_rng(3).normal(size=(300, X.shape[1]))
    np.testing.assert_array_equal(forest_output(warm, X_new), forest_output(cold, X_new))
    for a, b in zip(warm.estimators_samples_, cold.estimators_samples_):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("forest_class", FORESTS)
def test_warm_start_refuses_to_shrink_the_forest(forest_class):
    X, y = data_for_forest(forest_class)
    forest = forest_class(n_estimators=10, random_state=0, warm_start=True).fit(X, y)
    with pytest.raises(ValueError, match="n_estimators"):
        forest.set_params(n_estimators=5).fit(X, y)


# -- voting and aggregation --------------------------------------------------------------

def test_hard_and_soft_voting_follow_their_own_scores_and_can_differ():
    X, y = classification_data(n_samples=300, n_classes=3)
    soft = RandomForestClassifier(n_estimators=5, max_depth=3, random_state=2).fit(X, y)
    hard = clone(soft).set_params(voting="hard").fit(X, y)
    X_new = np.random.default_rng(7).normal(size=(2000, X.shape[1]))
    proba, votes = soft.predict_proba(X_new), hard.vote_fractions(X_new)
    np.testing.assert_array_equal(soft.predict(X_new), soft.classes_[np.argmax(proba, axis=1)])
    np.testing.assert_array_equal(hard.predict(X_new), hard.classes_[np.argmax(votes, axis=1)])
    np.testing.assert_array_equal(hard.predict_proba(X_new), proba)  # voting only picks
    assert np.any(soft.predict(X_new) != hard.predict(X_new))


def test_soft_voting_predicts_the_class_of_largest_probability_at_rounding_ties():
    # Class sums that differ by a rounding but are equal once divided by
    # the number of trees (seeds where they did): predict went by the sums,
    # predict_proba's argmax by the quotients.
    y = np.array([0, 0, 0, 1, 1, 2, 2, 2, 1])
    for seed in (410, 500, 506, 1141, 1159, 2410):
        weights = np.random.default_rng(seed).uniform(0.5, 2.0, 9)
        forest = RandomForestClassifier(5, random_state=seed).fit(np.zeros((9, 1)), y,
                                                                   sample_weight=weights)
        probabilities = forest.predict_proba(np.zeros((1, 1)))
        assert forest.predict(np.zeros((1, 1)))[0] == np.argmax(probabilities[0]), seed


def test_tied_hard_votes_go_to_the_first_class():
    X, codes = classification_data(n_samples=300, n_classes=3)
    y = np.array(["c", "a", "b"])[codes]
    forest = RandomForestClassifier(n_estimators=4, max_depth=2, voting="hard",
                                    random_state=0).fit(X, y)
    X_new = np.random.default_rng(8).normal(size=(2000, X.shape[1]))
    votes = forest.vote_fractions(X_new)
    top = votes.max(axis=1)
    tied = np.sum(votes == top[:, None], axis=1) > 1
    assert tied.any()
    first_top = np.argmax(votes == top[:, None], axis=1)
    np.testing.assert_array_equal(forest.predict(X_new), forest.classes_[first_top])


def test_vote_fractions_sum_to_one_and_support_unanimity_and_majority_rules():
    X, y = classification_data(n_samples=300, n_classes=3)
    forest = RandomForestClassifier(n_estimators=9, max_depth=4, random_state=1).fit(X, y)
    X_new = np.random.default_rng(9).normal(size=(1000, X.shape[1]))
    votes = forest.vote_fractions(X_new)
    assert votes.shape == (1000, 3)
    assert_rounding_close(votes.sum(axis=1), 1.0)
    assert_rounding_close(votes * 9, np.round(votes * 9))  # whole votes
    member_votes = np.stack([member.predict(X_new) for member in forest.estimators_], axis=1)
    unanimous = np.isclose(votes.max(axis=1), 1.0)
    assert unanimous.any() and not unanimous.all()
    assert np.all(member_votes[unanimous] == member_votes[unanimous, :1])
    majority = votes.max(axis=1) > 0.5
    winner = forest.classes_[np.argmax(votes, axis=1)]
    agreeing = np.sum(member_votes == winner[:, None], axis=1)
    np.testing.assert_array_equal(agreeing[majority] > 4.5, True)
    np.testing.assert_array_equal(agreeing[~majority] <= 4, True)


@pytest.mark.parametrize("n_estimators", [7, 8])
def test_median_aggregation_is_the_median_of_the_member_predictions(n_estimators):
    X, y = regression_data()
    y = y.copy()
    y[::25] += 50.0  # outliers pull some trees' means
    forest = RandomForestRegressor(n_estimators=n_estimators, aggregation="median",
                                   random_state=6).fit(X, y)
    X_new = np.random.default_rng(10).normal(size=(500, X.shape[1]))
    members = np.stack([member.predict(X_new) for member in forest.estimators_])
    # An odd count's median is one member's value; an even count's is the mean
    # of two, which the forest computes as numpy does.
    assert_rounding_close(forest.predict(X_new), np.median(members, axis=0), data_scale(y))
    mean = forest.set_params(aggregation="mean").predict(X_new)
    assert not np.allclose(mean, np.median(members, axis=0))



@pytest.mark.parametrize("forest_class", FORESTS)
def test_many_rows_in_several_chunks_predict_as_the_member_trees_do(forest_class):
    # Prediction takes 256 rows through a tree before the next rows; 1,001
    # rows make four chunks and a last, partial block of one row.
    X, y = data_for_forest(forest_class)
    forest = forest_class(n_estimators=5, random_state=0).fit(X, y)
    X_new = np.random.default_rng(11).normal(size=(1001, X.shape[1]))
    members = np.stack([forest_output(member, X_new) for member in forest.estimators_])
    assert_rounding_close(forest_output(forest, X_new), members.mean(axis=0), data_scale(y))


@pytest.mark.parametrize("forest_class", FORESTS)
def test_forests_larger_than_one_group_of_trees_predict_as_the_member_trees_do(forest_class):
    # Rows pass through groups of trees of up to 16,384 nodes in all: fully
    # grown trees on 6,000 noisy rows (thousands of nodes each) make many
    # groups, several trees in most.
    rng = np.random.default_rng(13)
    X = rng.normal(size=(6000, 4))
    y = rng.integers(0, 3, size=6000) if forest_class is RandomForestClassifier \
        else rng.normal(size=6000)
    forest = forest_class(n_estimators=30, random_state=0).fit(X, y)
    assert sum(member.tree_.node_count for member in forest.estimators_) > 4 * 16384
    X_new = rng.normal(size=(700, 4))
    members = np.stack([forest_output(member, X_new) for member in forest.estimators_])
    assert_rounding_close(forest_output(forest, X_new), members.mean(axis=0), data_scale(y))


@pytest.mark.parametrize("forest_class", FORESTS)
def test_narrow_rows_walked_in_place_in_several_parts_predict_as_the_member_trees_do(
        forest_class):
    # C-contiguous float32 rows under 64 features are walked where they lie,
    # in parts of 4 MiB: 4 features make 262,144 rows a part, so two parts
    # and three rows take three parts, the last one a zero-padded block.
    rng = np.random.default_rng(14)
    X = rng.normal(size=(300, 4))
    y = (X[:, 0] + X[:, 1] > 0).astype(int) if forest_class is RandomForestClassifier \
        else X[:, 0] + X[:, 1]
    forest = forest_class(n_estimators=3, random_state=0).fit(X, y)
    X_new = rng.normal(size=(2 * 262_144 + 3, 4)).astype(np.float32)
    members = np.stack([forest_output(member, X_new) for member in forest.estimators_])
    assert_rounding_close(forest_output(forest, X_new), members.mean(axis=0), data_scale(y))


@pytest.mark.parametrize("forest_class", FORESTS)
def test_wide_rows_interleaved_in_several_parts_predict_as_the_member_trees_do(forest_class):
    # From 64 features on, rows are interleaved into a 4 MiB buffer before the
    # walk: 2,500 float32 features make 416 rows a part, so 901 rows take
    # three parts, the last ending in a partial block.
    rng = np.random.default_rng(12)
    X = rng.normal(size=(300, 2500))
    y = (X[:, 0] + X[:, 1] > 0).astype(int) if forest_class is RandomForestClassifier \
        else X[:, 0] + X[:, 1]
    forest = forest_class(n_estimators=5, random_state=0).fit(X, y)
    X_new = rng.normal(size=(901, 2500))
    members = np.stack([forest_output(member, X_new) for member in forest.estimators_])
    assert_rounding_close(forest_output(forest, X_new), members.mean(axis=0), data_scale(y))
    X_new[850, 3] = np.nan  # in the last part only: it takes the general walk
    members = np.stack([forest_output(member, X_new) for member in forest.estimators_])
    assert_rounding_close(forest_output(forest, X_new), members.mean(axis=0), data_scale(y))
    X_new[851, 3] = np.inf
    with pytest.raises(ValueError, match="infinity"):
        forest_output(forest, X_new)

# -- importances ---------------------------------------------

@pytest.mark.parametrize("forest_class", FORESTS)
def test_feature_importances_sum_to_one_and_rank_signal_above_noise(forest_class):
    X, y = data_for_forest(forest_class, n_samples=500, n_features=6)
    if forest_class is RandomForestClassifier:
        y = (X[:, 0] + X[:, 1] > 0).astype(int)
    importances = forest_class(n_estimators=20, random_state=0).fit(X, y).feature_importances_
    assert importances.shape == (6,)
    assert_rounding_close(importances.sum(), 1.0)
    assert np.all(importances >= 0.0)
    assert min(importances[:2]) > max(importances[2:])


# -- pickling ------------------------------------------------------------------------------

@pytest.mark.parametrize("forest_class", FORESTS)
def test_pickle_round_trip_keeps_predictions_and_members(forest_class):
    X, y = data_for_forest(forest_class)
    forest = forest_class(n_estimators=10, random_state=0).fit(X, y)
    X_new = np.random.default_rng(11).normal(size=(300, X.shape[1]))
    expected = forest_output(forest, X_new)
    loaded = pickle.loads(pickle.dumps(forest))
    np.testing.assert_array_equal(forest_output(loaded, X_new), expected)
    np.testing.assert_array_equal(loaded.predict(X_new), forest.predict(X_new))
    np.testing.assert_array_equal(loaded.apply(X_new), forest.apply(X_new))
    assert len(loaded.estimators_) == 10
    np.testing.assert_array_equal(loaded.estimators_[3].predict(X_new),
                                  forest.estimators_[3].predict(X_new))


@pytest.mark.parametrize("forest_class", FORESTS)
def test_an_unfitted_forest_pickles_and_fits_after_loading(forest_class):
    X, y = data_for_forest(forest_class)
    loaded = pickle.loads(pickle.dumps(forest_class(n_estimators=3, random_state=0)))
    with pytest.raises(NotFittedError):
        loaded.predict(X)
    fitted = forest_class(n_estimators=3, random_state=0).fit(X, y)
    np.testing.assert_array_equal(loaded.fit(X, y).predict(X), fitted.predict(X))


def test_a_pickled_forest_holds_each_tree_once_and_no_prediction_cache():
    # The members are views of the trees, made again on load: pickling them
    # too would cost every tree its estimator's parameters once more.
    X, y = classification_data(n_samples=300, n_classes=3)
    overhead = []
    for n_estimators in (4, 16):
        forest = RandomForestClassifier(n_estimators=n_estimators, max_depth=4,
                                        random_state=0).fit(X, y)
        before = pickle.dumps(forest)
        forest.predict(X)  # builds the forest's prediction arrays
        assert pickle.dumps(forest) == before
        trees = pickle.dumps([member.tree_ for member in forest.estimators_])
        overhead.append(len(before) - len(trees))
    # Per tree, a seed and importances; a member's parameters take 200 bytes.
    assert (overhead[1] - overhead[0]) / 12 < 120


@pytest.mark.parametrize("n_classes", [2, 26])
def test_pickled_forest_is_much_smaller_than_scikit_learns(n_classes):
    X, y = classification_data(n_samples=1000, n_features=n_classes, n_classes=n_classes)
    ours = RandomForestClassifier(n_estimators=20, random_state=0).fit(X, y)
    theirs = SklearnForestClassifier(n_estimators=20, random_state=0).fit(X, y)
    # Leaves keep only their non-zero class fractions: most full-grown leaves
    # are pure, so many classes cost little more than two.
    assert len(pickle.dumps(ours)) < 0.35 * len(pickle.dumps(theirs))


@pytest.mark.parametrize("voting", ["soft", "hard"])
def test_class_scores_are_the_tree_by_tree_sums_of_the_leaf_rows(voting):
    # The kernel adds each tree's sparse leaf row in tree order; adding the
    # dense rows (zeros elsewhere) in that order gives the very same floats.
    X, y = classification_data(n_samples=400, n_classes=5)
    forest = RandomForestClassifier(n_estimators=9, min_samples_leaf=3, random_state=0,
                                    voting=voting).fit(X, y)
    X_new = np.random.default_rng(12).normal(size=(700, X.shape[1]))
    total = np.zeros((700, 5))
    for member in forest.estimators_:
        values = member.tree_.value[member.apply(X_new), 0, :]
        if voting == "hard":
            values = np.eye(5)[np.argmax(values, axis=1)]
        total += values
    method = forest.predict_proba if voting == "soft" else forest.vote_fractions
    np.testing.assert_array_equal(method(X_new), total / 9)
    np.testing.assert_array_equal(forest.predict(X_new),
                                  forest.classes_[np.argmax(total, axis=1)])


def test_member_trees_keep_their_leaf_values_as_sparse_rows():
    X, y = classification_data(n_samples=400, n_classes=4)
    forest = RandomForestClassifier(n_estimators=3, random_state=0).fit(X, y)
    full = DecisionTreeClassifier(random_state=0).fit(X, y).tree_
    for member in forest.estimators_:
        tree = member.tree_
        indptr, index, data = tree.leaf_value_rows
        dense = tree.leaf_values
        assert dense.shape == (tree.n_leaves, 4)
        np.testing.assert_array_equal(np.diff(indptr), np.count_nonzero(dense, axis=1))
        np.testing.assert_array_equal(dense[np.repeat(np.arange(tree.n_leaves),
                                                      np.diff(indptr)), index], data)
        assert index.dtype == np.uint16 and data.dtype == np.float64
        inner = np.flatnonzero(tree.children_left != -1)
        np.testing.assert_array_equal(tree.value[tree.children_left == -1, 0, :], dense)
        # Inner nodes' values are derived: their children's weighted means.
        weight = tree.weighted_n_node_samples
        left, right = tree.children_left[inner], tree.children_right[inner]
        assert_rounding_close(
            tree.value[inner, 0, :],
            (weight[left, None] * tree.value[left, 0, :]
             + weight[right, None] * tree.value[right, 0, :]) / weight[inner, None])
    # A full tree's rows are its leaves' values too.
    indptr, index, data = full.leaf_value_rows
    assert indptr[-1] == data.size == np.count_nonzero(full.leaf_values)


def corrupt_leaf_rows():
    X, y = classification_data(n_samples=300, n_classes=3)
    tree = RandomForestClassifier(n_estimators=1, random_state=0).fit(X, y)._trees[0]
    state = tree.plain_state()
    indptr = state["leaf_value_indptr"]
    yield "offsets", dict(state, leaf_value_indptr=indptr[::-1].copy())
    yield "offsets", dict(state, leaf_value_indptr=indptr + 1)
    yield "wrong shape", dict(state, leaf_value_indptr=indptr[:-1])
    index = state["leaf_value_index"].copy()
    index[-1] = 3
    yield "column is out of range", dict(state, leaf_value_index=index)
    data = state["leaf_value_data"].copy()
    data[0] = np.nan
    yield "not finite", dict(state, leaf_value_data=data)
    yield "offsets", dict(state, leaf_value_data=data[:-1])


@pytest.mark.parametrize("message, state", list(corrupt_leaf_rows()),
                         ids=["reversed", "shifted", "short", "column", "nan", "short-data"])
def test_corrupt_sparse_leaf_rows_are_refused_on_load(message, state):
    from fasttree._structure import Tree

    with pytest.raises(ValueError, match=message):
        Tree.__new__(Tree).__setstate__(state)


def test_forest_trees_of_format_version_1_still_load():
    # Version 1 kept every leaf's dense row of class fractions.
    from fasttree._structure import Tree

    X, y = classification_data(n_samples=300, n_classes=3)
    forest = RandomForestClassifier(n_estimators=4, random_state=0).fit(X, y)
    X_new = np.random.default_rng(13).normal(size=(200, X.shape[1]))
    old_trees = []
    for tree in forest._trees:
        state = {key: value for key, value in tree.plain_state().items()
                 if not key.startswith("leaf_value") and key not in ("flags", "category_bits")}
        state.update(format_version=1, leaf_value=tree.leaf_values)
        old = Tree.__new__(Tree)
        old.__setstate__(state)
        old_trees.append(old)
    expected = forest.predict_proba(X_new)
    forest._trees, forest._ensemble = old_trees, None
    np.testing.assert_array_equal(forest.predict_proba(X_new), expected)


# -- scikit-learn interplay ---------------------------------------------------------------

def test_forests_are_a_classifier_and_a_regressor():
    assert is_classifier(RandomForestClassifier()) and not is_regressor(RandomForestClassifier())
    assert is_regressor(RandomForestRegressor()) and not is_classifier(RandomForestRegressor())


@pytest.mark.parametrize("forest_class, extra", [
    (RandomForestClassifier, {"voting": "hard", "class_weight": "balanced"}),
    (RandomForestRegressor, {"aggregation": "median"})])
def test_get_params_set_params_and_clone_round_trip(forest_class, extra):
    forest = forest_class()
    params = forest.get_params()
    assert params["n_estimators"] == 100 and params["bootstrap"] is True
    changed = dict(params, n_estimators=7, max_features=2, max_samples=0.5, oob_score=True,
                   random_state=3, **extra)
    assert forest.set_params(**changed) is forest
    assert forest.get_params() == changed
    X, y = data_for_forest(forest_class)
    forest.fit(X, y)
    copy = clone(forest)
    assert copy.get_params() == changed and not hasattr(copy, "estimators_")
    np.testing.assert_array_equal(forest_output(copy.fit(X, y), X), forest_output(forest, X))
    with pytest.raises(ValueError, match="no_such_parameter"):
        forest.set_params(no_such_parameter=1)


@pytest.mark.parametrize("forest_class", FORESTS)
def test_grid_search_and_cross_val_score_work(forest_class):
    X, y = data_for_forest(forest_class, n_samples=240)
    search = GridSearchCV(forest_class(random_state=0),
                          {"n_estimators": [3, 10], "max_features": [1, None]}, cv=3)
    search.fit(X, y)
    assert search.best_params_["n_estimators"] in (3, 10)
    assert search.best_estimator_.n_estimators == search.best_params_["n_estimators"]
    assert len(search.best_estimator_.estimators_) == search.best_params_["n_estimators"]
    scores = cross_val_score(forest_class(n_estimators=10, random_state=0), X, y, cv=3)
    assert scores.shape == (3,) and np.all(scores > 0.5)


# -- validation and progress -----------------------------------------------------------------

@pytest.mark.parametrize("forest_class", FORESTS)
@pytest.mark.parametrize("params", [
    {"n_estimators": 0}, {"n_estimators": 2.5}, {"n_estimators": True}, {"n_jobs": 0},
    {"n_jobs": 1.5}, {"criterion": "bogus"}],
    ids=["n_estimators=0", "n_estimators=2.5", "n_estimators=True", "n_jobs=0",
         "n_jobs=1.5", "criterion=bogus"])
def test_invalid_parameters_are_rejected_at_fit(forest_class, params):
    X, y = data_for_forest(forest_class)
    with pytest.raises(ValueError):
        forest_class(**dict({"n_estimators": 3}, **params)).fit(X, y)


ALL_FORESTS = [RandomForestClassifier, RandomForestRegressor, ExtraTreesClassifier,
               ExtraTreesRegressor]


WRONG_TYPES = [
    ({"n_estimators": None}, "an int in the range [1, 2147483647]"),
    ({"n_estimators": "10"}, "an int in the range [1, 2147483647]"),
    ({"n_estimators": [10]}, "an int in the range [1, 2147483647]"),
    ({"warm_start": "yes"}, "an instance of 'bool'"),
    ({"warm_start": None}, "an instance of 'bool'"),
    ({"bootstrap": "no"}, "an instance of 'bool'"),
    ({"oob_score": "yes"}, "an instance of 'bool' or a callable"),
    ({"oob_batch_size": "5"}, "an int in the range [1, inf) or None"),
    ({"max_samples": "half"}, "an int in the range [1, inf) or a float in the range (0.0, inf]"),
    ({"verbose": "1"}, "an int in the range [0, inf)"),
    ({"criterion": np.array(["gini", "poisson"])}, "a str among ["),
]


@pytest.mark.parametrize("forest_class", ALL_FORESTS)
@pytest.mark.parametrize("params, requirement", WRONG_TYPES,
                         ids=[f"{next(iter(p))}={next(iter(p.values()))!r}"
                              for p, _ in WRONG_TYPES])
def test_a_parameter_of_the_wrong_type_is_refused_by_name_before_it_is_used(forest_class,
                                                                             params,
                                                                             requirement):
    X, y = data_for_forest(RandomForestClassifier if forest_class in (
        RandomForestClassifier, ExtraTreesClassifier) else RandomForestRegressor)
    (name, value), = params.items()
    # bootstrap=True so that the out-of-bag parameters are checked for their type.
    forest = forest_class(**{"n_estimators": 3, "bootstrap": True, **params})
    expected = re.escape(f"The '{name}' parameter must be {requirement}")
    if not isinstance(value, np.ndarray):
        expected += re.escape(f". Got {value!r} instead.")
    with pytest.raises(ValueError, match=expected):
        forest.fit(X, y)


@pytest.mark.parametrize("forest_class", ALL_FORESTS)
def test_n_jobs_of_the_wrong_type_and_max_samples_without_bootstrap_are_refused(forest_class):
    X, y = data_for_forest(RandomForestClassifier if forest_class in (
        RandomForestClassifier, ExtraTreesClassifier) else RandomForestRegressor)
    with pytest.raises(ValueError, match="n_jobs must be None or a non-zero int; got '2'"):
        forest_class(n_estimators=3, n_jobs="2").fit(X, y)
    # scikit-learn's words, which scripts may match.
    with pytest.raises(ValueError, match=re.escape(
            "`max_sample` cannot be set if `bootstrap=False`. Either switch to "
            "`bootstrap=True` or set `max_sample=None`.")):
        forest_class(n_estimators=3, bootstrap=False, max_samples=0.5).fit(X, y)


@pytest.mark.parametrize("forest_class", ALL_FORESTS)
def test_a_max_depth_beyond_any_tree_grows_the_forest_of_max_depth_none(forest_class):
    X, y = data_for_forest(RandomForestClassifier if forest_class in (
        RandomForestClassifier, ExtraTreesClassifier) else RandomForestRegressor)
    deep = forest_class(n_estimators=3, max_depth=2**63, max_leaf_nodes=10**30,
                        random_state=0).fit(X, y)
    full = forest_class(n_estimators=3, max_leaf_nodes=10_000, random_state=0).fit(X, y)
    np.testing.assert_array_equal(forest_output(deep, X), forest_output(full, X))


@pytest.mark.parametrize("forest_class, params", [
    (RandomForestClassifier, {"voting": np.array(["soft", "hard"])}),
    (RandomForestRegressor, {"aggregation": np.array(["mean", "median"])})])
def test_voting_or_aggregation_given_an_array_is_refused_by_name(forest_class, params):
    X, y = data_for_forest(forest_class)
    name = next(iter(params))
    with pytest.raises(ValueError, match=f"The '{name}' parameter must be a str among"):
        forest_class(n_estimators=3, **params).fit(X, y)


@pytest.mark.parametrize("forest_class, params", [
    (RandomForestClassifier, {"voting": "bogus"}),
    (RandomForestRegressor, {"aggregation": "bogus"})])
def test_unknown_voting_or_aggregation_is_rejected_at_fit(forest_class, params):
    X, y = data_for_forest(forest_class)
    name = next(iter(params))
    with pytest.raises(ValueError, match=name):
        forest_class(n_estimators=3, **params).fit(X, y)


@pytest.mark.parametrize("forest_class", FORESTS)
def test_predicting_before_fit_raises_not_fitted_error(forest_class):
    X, _ = data_for_forest(forest_class)
    forest = forest_class(n_estimators=3)
    for method in prediction_methods(forest_class):
        with pytest.raises(NotFittedError):
            getattr(forest, method)(X)


@pytest.mark.parametrize("forest_class", FORESTS)
def test_wrong_feature_count_and_infinity_are_rejected(forest_class):
    X, y = data_for_forest(forest_class)
    forest = forest_class(n_estimators=3, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="features"):
        forest.predict(X[:, :-1])
    with pytest.raises(ValueError, match="features"):
        forest.predict(np.column_stack([X, X[:, 0]]))
    with_inf = X.copy()
    with_inf[5, 2] = np.inf
    with pytest.raises(ValueError, match="infinity"):
        forest_class(n_estimators=3).fit(with_inf, y)
    forest.set_params(n_jobs=2)
    for method in prediction_methods(forest_class):
        with pytest.raises(ValueError, match="infinity"):
            getattr(forest, method)(with_inf)


@pytest.mark.parametrize("forest_class", FORESTS)
def test_verbose_2_reports_one_progress_line_per_tree_on_standard_error(forest_class, capsys):
    X, y = data_for_forest(forest_class)
    forest_class(n_estimators=4, verbose=2, random_state=0).fit(X, y)
    captured = capsys.readouterr()
    lines = [line for line in captured.err.splitlines() if line.strip()]
    assert len(lines) == 4 and all("trees built" in line for line in lines)
    assert captured.out == ""
    forest_class(n_estimators=4, random_state=0).fit(X, y)
    assert capsys.readouterr().err == ""


def test_a_unit_loss_matrix_grows_the_gini_forest():
    # Two features that split a small node into the same two groups, one
    # the mirror of the other, tie exactly, and the two impurities' rounding
    # breaks such ties apart: nodes of at least 30 rows of continuous
    # weights (taken as they are without a bootstrap) meet none.
    X, y = classification_data(500, 5, n_classes=3, seed=11)
    weights = np.random.default_rng(11).uniform(0.5, 2.0, size=500)
    unit = np.ones((3, 3)) - np.eye(3)
    params = {"n_estimators": 6, "random_state": 2, "bootstrap": False,
              "min_samples_leaf": 15}
    plain = RandomForestClassifier(**params).fit(X, y, sample_weight=weights)
    costed = RandomForestClassifier(**params, loss_matrix=unit).fit(X, y,
                                                                     sample_weight=weights)
    for ours, theirs in zip(costed.estimators_, plain.estimators_):
        np.testing.assert_array_equal(ours.tree_.nodes, theirs.tree_.nodes)
    np.testing.assert_array_equal(costed.predict(X), plain.predict(X))


@pytest.mark.parametrize("voting", ["soft", "hard"])
def test_a_loss_matrix_makes_the_forest_predict_the_least_costly_class(voting):
    X, y = classification_data(1200, 5, n_classes=3, seed=12)
    loss = np.array([[0.0, 1.0, 1.0], [8.0, 0.0, 8.0], [1.0, 1.0, 0.0]])
    forests = [RandomForestClassifier(n_estimators=10, max_depth=4, random_state=3,
                                      voting=voting, loss_matrix=loss, n_jobs=n_jobs,
                                      oob_score=True).fit(X, y)
               for n_jobs in (1, 2)]
    forest = forests[0]
    np.testing.assert_array_equal(forest.predict(X), forests[1].predict(X))
    assert forest.oob_score_ == forests[1].oob_score_
    if voting == "soft":
        expected = np.argmin(forest.predict_proba(X) @ loss, axis=1)
    else:
        votes = np.zeros((X.shape[0], 3))
        for member in forest.estimators_:
            votes[np.arange(X.shape[0]), member.predict(X)] += 1
        expected = np.argmax(votes, axis=1)
    np.testing.assert_array_equal(forest.predict(X), forest.classes_[expected])
    if voting == "soft":
        plain = RandomForestClassifier(n_estimators=10, max_depth=4, random_state=3).fit(X, y)
        assert np.mean(forest.predict(X)[y == 1] == 1) > np.mean(plain.predict(X)[y == 1] == 1)
    oob_decision = forest.oob_decision_function_
    seen = ~np.isnan(oob_decision).any(axis=1)
    assert forest.oob_score_ == np.mean(
        np.argmin(oob_decision[seen] @ loss, axis=1) == y[seen])
    copy = pickle.loads(pickle.dumps(forest))
    np.testing.assert_array_equal(copy.predict(X), forest.predict(X))


def test_a_forest_refuses_a_loss_matrix_of_the_wrong_shape():
    X, y = classification_data(100, 3, n_classes=2, seed=13)
    with pytest.raises(ValueError, match=r"loss_matrix must have shape \(2, 2\)"):
        RandomForestClassifier(n_estimators=2, loss_matrix=np.zeros((3, 3))).fit(X, y)


@pytest.mark.parametrize("bootstrap", [True, False])
def test_estimators_samples_are_each_trees_rows_as_int32(bootstrap):
    X, y = classification_data(n_samples=90, seed=4)
    forest = RandomForestClassifier(n_estimators=3, bootstrap=bootstrap, random_state=0,
                                    max_samples=0.5 if bootstrap else None).fit(X, y)
    samples = forest.estimators_samples_
    assert len(samples) == 3 and all(rows.dtype == np.int32 for rows in samples)
    if bootstrap:
        assert all(rows.size == 45 and np.unique(rows).size < 45 for rows in samples)
    else:
        assert all(np.array_equal(rows, np.arange(90)) for rows in samples)


@pytest.mark.parametrize("forest_class", [RandomForestClassifier, RandomForestRegressor])
def test_a_forests_decision_path_is_its_trees_paths_side_by_side(forest_class):
    X, y = classification_data(n_samples=80, seed=5)
    forest = forest_class(n_estimators=4, max_depth=4, random_state=0).fit(X, y)
    indicator, n_nodes_ptr = forest.decision_path(X[:30])
    assert indicator.shape == (30, n_nodes_ptr[-1])
    for tree_index, member in enumerate(forest.estimators_):
        columns = slice(n_nodes_ptr[tree_index], n_nodes_ptr[tree_index + 1])
        np.testing.assert_array_equal(indicator[:, columns].toarray(),
                                      member.decision_path(X[:30]).toarray())
    leaves = forest.apply(X[:30]) + n_nodes_ptr[:-1]
    assert indicator.toarray()[np.arange(30)[:, None], leaves].all()


def test_a_forests_decision_path_refuses_infinity_and_takes_nan():
    X, y = classification_data(n_samples=60, seed=6)
    forest = RandomForestClassifier(n_estimators=2, random_state=0).fit(X, y)
    rows = X[:2].copy()
    rows[0, 0] = np.nan
    assert forest.decision_path(rows)[0].shape[0] == 2
    rows[0, 0] = np.inf
    with pytest.raises(ValueError, match="infinity"):
        forest.decision_path(rows)


@pytest.mark.parametrize("forest_class", [RandomForestClassifier, RandomForestRegressor])
def test_a_member_refit_on_its_own_rows_grows_its_tree_again(forest_class):
    X, y = classification_data(n_samples=150, seed=7)
    forest = forest_class(n_estimators=4, max_features=0.5, max_samples=0.6,
                          random_state=3).fit(X, y)
    states = [member.random_state for member in forest.estimators_]
    assert len(set(states)) == 4 and all(0 <= state < 2**31 for state in states)
    for member, rows in zip(forest.estimators_, forest.estimators_samples_):
        refit = clone(member).fit(X[rows], y[rows])
        np.testing.assert_array_equal(refit.apply(X), member.apply(X))
        # Repeated rows and draw-count weights sum the leaf values in another order.
        assert_rounding_close(refit.predict(X), member.predict(X), data_scale(y))


def test_a_multiway_forests_member_refit_on_its_own_rows_grows_its_tree_again():
    # C4.5 members: categorical features split once per category.
    frame = pd.read_csv(Path(__file__).parent / "data" / "congressional_votes.csv")
    y = frame.pop("Class").to_numpy()
    forest = RandomForestClassifier(n_estimators=3, max_samples=150, max_depth=4,
                                    max_features=0.5, criterion="gain_ratio",
                                    categorical_split="multiway", random_state=2).fit(frame, y)
    members = forest.estimators_
    assert all(member.tree_.is_multiway.any() for member in members)
    for member, rows in zip(members, forest.estimators_samples_):
        refit = clone(member).fit(frame.iloc[rows], y[rows])
        np.testing.assert_array_equal(refit.apply(frame), member.apply(frame))
    average = np.mean([member.predict_proba(frame) for member in members], axis=0)
    assert_rounding_close(forest.predict_proba(frame), average, 1.0)


def test_members_carry_the_fitted_attributes_of_their_tree_fit_alone():
    X, y = classification_data(n_samples=120, seed=8)
    frame = pd.DataFrame(X, columns=[f"f{index}" for index in range(X.shape[1])])
    forest = RandomForestClassifier(n_estimators=3, max_features=0.5, class_weight="balanced",
                                    random_state=1).fit(frame, y)
    for member, rows in zip(forest.estimators_, forest.estimators_samples_):
        # The forest weighs the rows by the class weights itself: its members take none.
        assert member.get_params()["class_weight"] is None
        refit = clone(member).fit(frame.iloc[rows], y[rows])
        assert member.n_outputs_ == refit.n_outputs_ == 1
        assert member.max_features_ == refit.max_features_ == forest.max_features_
        assert list(member.feature_names_in_) == list(refit.feature_names_in_) == list(
            frame.columns)


def test_median_aggregation_of_several_outputs_is_each_outputs_median_over_the_members():
    X, y = regression_data()
    Y = np.column_stack([y, -2.0 * y + X[:, 0], np.abs(y)])
    forest = RandomForestRegressor(n_estimators=7, aggregation="median",
                                   random_state=3).fit(X, Y)
    X_new = np.random.default_rng(11).normal(size=(300, X.shape[1]))
    members = np.stack([member.predict(X_new) for member in forest.estimators_])
    predicted = forest.predict(X_new)
    assert predicted.shape == (300, 3)
    # Seven members: each median is one member's value, exactly.
    np.testing.assert_array_equal(predicted, np.median(members, axis=0))


def test_hard_voting_with_several_outputs_predicts_each_outputs_majority_of_the_members():
    X, y = classification_data(n_samples=400, seed=12)
    Y = np.column_stack([y == 0, (X[:, 1] > 0).astype(int), np.where(X[:, 2] > 0.3, "high", "low")])
    forest = RandomForestClassifier(n_estimators=7, voting="hard", max_depth=3,
                                    random_state=4).fit(X, Y)
    X_new = np.random.default_rng(13).normal(size=(300, X.shape[1]))
    members = np.stack([member.predict(X_new) for member in forest.estimators_])
    predicted = forest.predict(X_new)
    assert predicted.shape == (300, 3)
    for k in range(3):
        # Seven votes between two classes: never a tie.
        labels, votes = np.unique(members[:, :, k], return_inverse=True)
        counts = np.stack([(votes.reshape(members.shape[:2]) == c).sum(axis=0)
                           for c in range(len(labels))])
        np.testing.assert_array_equal(predicted[:, k], labels[counts.argmax(axis=0)])
    soft = forest.set_params(voting="soft").predict(X_new)
    assert (soft != predicted).any()


@pytest.mark.parametrize("bootstrap", [True, False])
def test_a_forest_on_targets_of_a_huge_spread_grows_the_trees_of_the_targets_scaled_down(
        bootstrap):
    # Squares of targets near 2**500 times a total weight of 200 pass the
    # largest float64: the forest divides its trees' weights by a power of
    # two while growing them, and reports them unscaled.
    X, y = regression_data(n_samples=200, seed=5)
    params = dict(n_estimators=3, max_depth=4, random_state=0, bootstrap=bootstrap)
    plain = RandomForestRegressor(**params).fit(X, y)
    spread = RandomForestRegressor(**params).fit(X, np.ldexp(y, 500))
    X_new = np.random.default_rng(6).normal(size=(300, X.shape[1]))
    np.testing.assert_array_equal(spread.apply(X_new), plain.apply(X_new))
    np.testing.assert_array_equal(spread.predict(X_new), np.ldexp(plain.predict(X_new), 500))
    for scaled, member in zip(spread.estimators_, plain.estimators_):
        np.testing.assert_array_equal(scaled.tree_.weighted_n_node_samples,
                                      member.tree_.weighted_n_node_samples)


SKLEARN_TWINS = {RandomForestClassifier: "RandomForestClassifier",
                 RandomForestRegressor: "RandomForestRegressor",
                 ExtraTreesClassifier: "ExtraTreesClassifier",
                 ExtraTreesRegressor: "ExtraTreesRegressor"}
# fasttree's own parameters and their defaults, as docs/estimators.md gives them.
OWN_DEFAULTS = {"oob_batch_size": None, "oob_tol": 1e-3, "oob_patience": 3,
                "categorical_features": "from_dtype"}
OWN_CLASSIFIER_DEFAULTS = {"voting": "soft", "loss_matrix": None,
                           "categorical_split": "binary", "missing": "learn"}


@pytest.mark.parametrize("forest_class", ALL_FORESTS)
def test_the_defaults_are_scikit_learns_and_the_documented_ones(forest_class):
    import sklearn.ensemble

    ours = forest_class().get_params()
    theirs = getattr(sklearn.ensemble, SKLEARN_TWINS[forest_class])().get_params()
    shared = sorted(set(ours) & set(theirs))
    assert {name: ours[name] for name in shared} == {name: theirs[name] for name in shared}
    expected = dict(OWN_DEFAULTS)
    if is_classifier(forest_class()):
        expected.update(OWN_CLASSIFIER_DEFAULTS)
    else:
        expected["aggregation"] = "mean"
    expected.update(splitter="best" if forest_class in (RandomForestClassifier,
                                                        RandomForestRegressor) else "random",
                    max_bins=255)
    if "interaction_cst" not in theirs:  # scikit-learn's from 1.10
        expected["interaction_cst"] = None
    if "quantile" not in theirs and not is_classifier(forest_class()):
        expected["quantile"] = 0.5  # criterion='quantile''s level, scikit-learn 1.10's name
    assert {name: ours[name] for name in set(ours) - set(theirs)} == expected


def test_a_loss_matrix_forest_grows_cost_sensitive_trees():
    X, y = classification_data(n_samples=200, n_classes=3, seed=8)
    loss = [[0.0, 1.0, 1.0], [6.0, 0.0, 1.0], [1.0, 4.0, 0.0]]
    forest = RandomForestClassifier(n_estimators=3, max_depth=4, random_state=2,
                                    loss_matrix=loss).fit(X, y)
    for member, rows in zip(forest.estimators_, forest.estimators_samples_):
        counts = np.bincount(rows, minlength=len(y)).astype(float)
        alone = DecisionTreeClassifier(**member.get_params()).fit(X, y, sample_weight=counts)
        np.testing.assert_array_equal(member.apply(X), alone.apply(X))
    # The plain Gini splits the first tree's rows otherwise.
    plain = DecisionTreeClassifier(**{**forest.estimators_[0].get_params(), "loss_matrix": None})
    counts = np.bincount(forest.estimators_samples_[0], minlength=len(y)).astype(float)
    assert not np.array_equal(plain.fit(X, y, sample_weight=counts).apply(X),
                              forest.estimators_[0].apply(X))


def test_balanced_subsample_weighs_each_trees_classes_to_equal_totals():
    X, y = classification_data(n_samples=300, n_classes=3, seed=9)
    y = np.where(np.arange(300) < 40, 2, y)  # uneven classes
    forest = RandomForestClassifier(n_estimators=4, max_depth=2, random_state=0,
                                    class_weight="balanced_subsample").fit(X, y)
    for member in forest.estimators_:
        # The root's class fractions: each class's weight in the tree's draw.
        np.testing.assert_allclose(member.tree_.value[0, 0], [1 / 3] * 3, rtol=1e-12)


def test_the_median_of_a_two_output_forest_is_each_outputs_median_over_the_trees():
    X, y = regression_data(n_samples=300, seed=10)
    Y = np.column_stack([y, np.abs(X[:, 1]) * 10])
    forest = RandomForestRegressor(n_estimators=5, max_depth=5, random_state=0,
                                   aggregation="median").fit(X, Y)
    X_new = np.random.default_rng(10).normal(size=(100, X.shape[1]))
    per_tree = np.stack([member.predict(X_new) for member in forest.estimators_])
    np.testing.assert_array_equal(forest.predict(X_new), np.median(per_tree, axis=0))


def test_the_mean_of_trees_near_the_largest_float64_does_not_overflow():
    X, y = regression_data(n_samples=200, seed=11)
    huge = np.ldexp(1.0 + np.abs(y) / (1 + np.abs(y).max()), 1022)  # up to 2**1023
    # (No squared error holds a spread that wide: the absolute error does.)
    forest = RandomForestRegressor(n_estimators=6, max_depth=3, random_state=0,
                                   criterion="absolute_error").fit(X, huge)
    per_tree = np.stack([member.predict(X) for member in forest.estimators_])
    expected = np.ldexp(np.mean(np.ldexp(per_tree, -4), axis=0), 4)
    predicted = forest.predict(X)
    assert np.isfinite(predicted).all()
    np.testing.assert_allclose(predicted, expected, rtol=1e-12)


@pytest.mark.parametrize("forest_class", FORESTS)
def test_decision_paths_are_csr_and_bad_rows_are_refused_naming_the_forest(forest_class):
    X, y = data_for_forest(forest_class)
    forest = forest_class(n_estimators=3, max_depth=3, random_state=0).fit(X, y)
    indicator, starts = forest.decision_path(X[:20])
    assert indicator.format == "csr"
    for method in (forest.decision_path, forest.predict, forest.apply):
        with pytest.raises(ValueError, match=f"^{forest_class.__name__}: X must be 2-D"):
            method(X[:, :, None])


def test_a_forest_classifiers_label_errors_name_it_and_its_members_know_the_classes():
    X, y = classification_data(n_samples=100)
    with pytest.raises(ValueError, match="^RandomForestClassifier: "):
        RandomForestClassifier(n_estimators=2).fit(X, np.r_[y[:-1].astype(float), np.nan])
    mixed = np.array(["a" if label == 0 else label for label in y], dtype=object)
    with pytest.raises(TypeError, match=r"^RandomForestClassifier: class labels must be of one "
                                        r"sortable type; got a mix of "):
        RandomForestClassifier(n_estimators=2).fit(X, mixed)
    forest = RandomForestClassifier(n_estimators=2, random_state=0).fit(X, y)
    assert [member.n_classes_ for member in forest.estimators_] == [forest.n_classes_] * 2


def test_a_forest_regressors_target_errors_name_it():
    X, y = regression_data(n_samples=100)
    with pytest.raises(ValueError, match="^RandomForestRegressor: y contains NaN or infinity"):
        RandomForestRegressor(n_estimators=2).fit(X, np.r_[y[:-1], np.nan])
    with pytest.raises(ValueError, match=r"^RandomForestRegressor: Some value\(s\) of y are "
                                         "negative which is not allowed for Poisson"):
        RandomForestRegressor(n_estimators=2, criterion="poisson").fit(X, y - y.max() - 1)


def test_balanced_class_weights_count_each_classs_sample_weight():
    # scikit-learn 1.9's rule: a class's weight is the total weight over the
    # number of classes times the class's own total weight.
    X, y = classification_data(n_samples=300, n_classes=3, seed=12)
    weights = np.random.default_rng(12).uniform(0.5, 3.0, size=300)
    balanced = RandomForestClassifier(n_estimators=3, max_depth=3, random_state=0,
                                      class_weight="balanced").fit(X, y, sample_weight=weights)
    factor = weights.sum() / (3 * np.bincount(y, weights=weights))
    by_hand = RandomForestClassifier(n_estimators=3, max_depth=3, random_state=0).fit(
        X, y, sample_weight=weights * factor[y])
    for ours, theirs in zip(balanced.estimators_samples_, by_hand.estimators_samples_):
        np.testing.assert_array_equal(ours, theirs)
    np.testing.assert_array_equal(balanced.apply(X), by_hand.apply(X))


def test_class_weights_that_overflow_the_weights_are_refused_naming_the_forest():
    X, y = classification_data(n_samples=100)
    with pytest.raises(ValueError, match="^RandomForestClassifier: sample_weight times "
                                         "class_weight is too large"):
        RandomForestClassifier(n_estimators=2, class_weight={0: 1e308, 1: 1e308}).fit(X, y)


def test_a_forest_of_one_tree_with_two_outputs_predicts_as_its_tree():
    X, y = classification_data(n_samples=200, seed=13)
    Y = np.column_stack([y > 0, X[:, 1] > 0]).astype(int)  # 0/1 labels: OOB scores
    with pytest.warns(UserWarning, match="Some inputs do not have OOB scores"):
        forest = RandomForestClassifier(n_estimators=1, max_depth=4, random_state=0,
                                        oob_score=True).fit(X, Y)
    assert forest.oob_decision_function_.shape == (200, 2, 2)
    hard = RandomForestClassifier(n_estimators=1, max_depth=4, random_state=0,
                                  voting="hard").fit(X, Y)
    np.testing.assert_array_equal(hard.predict(X), hard.estimators_[0].predict(X))
    tree = forest.estimators_[0]
    np.testing.assert_array_equal(forest.predict(X), tree.predict(X))
    for ours, its in zip(forest.predict_proba(X), tree.predict_proba(X)):
        np.testing.assert_array_equal(ours, its)


def test_targets_spread_too_wide_for_the_criterion_are_refused_naming_the_forest():
    X, y = regression_data(n_samples=100)
    with pytest.raises(ValueError, match=r"^RandomForestRegressor: y spreads too wide for "
                                         r"criterion='squared_error'"):
        RandomForestRegressor(n_estimators=2).fit(X, np.where(y > 0, 1e300, -1e300))


def test_a_verbose_forest_counts_the_trees_built(capsys):
    X, y = classification_data(n_samples=100)
    RandomForestClassifier(n_estimators=3, verbose=2, random_state=0).fit(X, y)
    assert "3/3 trees built" in capsys.readouterr().err
