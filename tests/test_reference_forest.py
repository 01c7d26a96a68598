"""Tests of the pure-Python forest oracle (fasttree.reference.forest)."""

import numpy as np
import pytest

from fasttree.reference import bootstrap_counts, build_forest, build_tree


def two_feature_problem(n_samples, seed, flip_rate=0.1):
    """Feature 0 decides the class (with label noise); feature 1 is noise."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n_samples, 2)).astype(np.float32)
    y = (X[:, 0] > 0).astype(np.intp)
    flip = rng.random(n_samples) < flip_rate
    y[flip] = 1 - y[flip]
    return X, y


def bootstrap_forest(X, y, n_trees, seed, **params):
    rng = np.random.default_rng(seed)
    counts = [bootstrap_counts(len(y), len(y), rng) for _ in range(n_trees)]
    return build_forest(X, y, counts, **params)


@pytest.fixture(scope="module")
def informative_forest():
    X, y = two_feature_problem(150, seed=1)
    return X, y, bootstrap_forest(X, y, n_trees=15, seed=2, max_depth=3)


def test_bootstrap_leaves_about_one_over_e_of_rows_out_of_bag():
    counts = bootstrap_counts(20000, 20000, np.random.default_rng(0))
    assert counts.dtype == np.int64 and counts.sum() == 20000
    assert abs(np.mean(counts == 0) - np.exp(-1)) < 0.01


def test_bootstrap_counts_follow_the_documented_draws():
    counts = bootstrap_counts(50, 70, np.random.default_rng(5))
    drawn = np.random.default_rng(5).integers(0, 50, 70)
    np.testing.assert_array_equal(counts, np.bincount(drawn, minlength=50))
    subsample = bootstrap_counts(50, 20, np.random.default_rng(5), replace=False)
    chosen = np.random.default_rng(5).choice(50, 20, replace=False)
    np.testing.assert_array_equal(np.flatnonzero(subsample), np.sort(chosen))


def test_sampling_without_replacement_draws_exactly_half_the_rows_once():
    counts = bootstrap_counts(1000, 500, np.random.default_rng(3), replace=False)
    assert set(np.unique(counts)) == {0, 1}
    assert np.count_nonzero(counts) == 500


def test_one_tree_with_all_counts_one_equals_build_tree():
    X, y = two_feature_problem(60, seed=4)
    forest = build_forest(X, y, [np.ones(60, dtype=np.int64)], max_depth=3)
    tree = build_tree(X, y, max_depth=3)
    forest_tree = forest.trees[0]
    assert forest_tree.node_count == tree.node_count
    for mine, theirs in zip(forest_tree.nodes, tree.nodes):
        assert (mine.feature, mine.threshold) == (theirs.feature, theirs.threshold)
        np.testing.assert_array_equal(mine.value, theirs.value)
    np.testing.assert_array_equal(forest.predict_proba(X), tree.predict_value(X))
    np.testing.assert_array_equal(forest.predict(X), tree.predict(X))


def test_repeated_rows_act_as_weights_and_zero_counts_are_left_out():
    X, y = two_feature_problem(40, seed=6)
    counts = np.random.default_rng(7).integers(0, 3, 40)
    weight = np.linspace(0.5, 2.0, 40)
    forest = build_forest(X, y, [counts], sample_weight=weight, max_depth=2)
    rows = np.flatnonzero(counts)
    tree = build_tree(X[rows], y[rows], counts[rows] * weight[rows], max_depth=2)
    assert forest.trees[0].nodes[0].n_node_samples == rows.size
    np.testing.assert_array_equal(forest.predict_proba(X), tree.predict_value(X))


def test_soft_and_hard_voting_differ_on_a_hand_made_forest():
    # One constant feature, so each tree is a single leaf holding the class
    # shares of its counts: (0.6, 0.4), (0.6, 0.4) and (0, 1).
    X = np.zeros((2, 1))
    forest = build_forest(X, [0, 1], [[3, 2], [3, 2], [0, 1]])
    np.testing.assert_allclose(forest.predict_proba(X[:1]), [[0.4, 0.6]])
    np.testing.assert_allclose(forest.vote_fractions(X[:1]), [[2 / 3, 1 / 3]])
    assert forest.predict(X[:1], voting="soft")[0] == 1
    assert forest.predict(X[:1], voting="hard")[0] == 0


def test_tied_votes_go_to_the_lowest_class():
    X = np.zeros((2, 1))
    forest = build_forest(X, [0, 1], [[1, 1], [1, 0], [0, 1]])
    per_tree = forest.tree_outputs(X[:1])[:, 0]
    np.testing.assert_allclose(per_tree, [[0.5, 0.5], [1, 0], [0, 1]])
    np.testing.assert_allclose(forest.vote_fractions(X[:1]), [[2 / 3, 1 / 3]])
    two = build_forest(X, [0, 1], [[1, 0], [0, 1]])
    assert two.predict(X[:1], voting="soft")[0] == 0
    assert two.predict(X[:1], voting="hard")[0] == 0


def test_vote_fractions_rows_sum_to_one():
    rng = np.random.default_rng(8)
    X = rng.normal(size=(60, 3))
    y = rng.integers(0, 3, 60)
    forest = bootstrap_forest(X, y, n_trees=7, seed=9, max_depth=2)
    fractions = forest.vote_fractions(X)
    assert fractions.shape == (60, 3)
    np.testing.assert_allclose(fractions.sum(axis=1), 1.0)
    np.testing.assert_allclose(fractions * 7, np.round(fractions * 7))
    np.testing.assert_allclose(forest.predict_proba(X).sum(axis=1), 1.0)


def test_median_aggregation_ignores_an_outlier_tree():
    X = np.zeros((4, 1))
    y = [1.0, 2.0, 3.0, 100.0]
    odd = build_forest(X[:3], [1.0, 2.0, 100.0], np.eye(3, dtype=int),
                       criterion="squared_error")
    assert odd.tree_outputs(X[:1]).shape == (3, 1, 1)
    assert odd.predict(X[:1], aggregation="median")[0] == 2.0
    assert odd.predict(X[:1], aggregation="mean")[0] == pytest.approx(103 / 3)
    even = build_forest(X, y, np.eye(4, dtype=int), criterion="squared_error")
    assert even.predict(X[:1], aggregation="median")[0] == 2.5


def test_oob_rows_average_only_their_out_of_bag_trees():
    # Single-leaf trees: (0.5, 0.5), (0, 1), (0, 1).  Row 1 is in every bag.
    X = np.zeros((3, 1))
    counts = [[1, 1, 0], [0, 1, 1], [0, 1, 0]]
    forest = build_forest(X, [0, 1, 1], counts)
    oob = forest.oob_decision_function()
    np.testing.assert_allclose(oob[0], [0.0, 1.0])  # trees 1 and 2
    assert np.isnan(oob[1]).all()
    np.testing.assert_allclose(oob[2], [0.25, 0.75])  # trees 0 and 2
    assert forest.oob_score([0, 1, 1]) == 0.5


def test_oob_regression_prediction_and_r2_by_hand():
    X = np.zeros((3, 1))
    counts = [[1, 1, 0], [0, 1, 1], [0, 1, 0]]  # leaf means 1.5, 3 and 2
    forest = build_forest(X, [1.0, 2.0, 4.0], counts, criterion="squared_error")
    oob = forest.oob_prediction()
    np.testing.assert_allclose(oob[[0, 2]], [2.5, 1.75])
    assert np.isnan(oob[1])
    ss_res = (1 - 2.5) ** 2 + (4 - 1.75) ** 2
    assert forest.oob_score([1.0, 2.0, 4.0]) == pytest.approx(1 - ss_res / 4.5)


def test_oob_score_is_close_to_held_out_accuracy(informative_forest):
    _, y, forest = informative_forest
    X_test, y_test = two_feature_problem(3000, seed=10)
    held_out = np.mean(forest.predict(X_test) == y_test)
    assert abs(forest.oob_score(y) - held_out) < 0.07


def test_importances_sum_to_one_and_favour_the_informative_feature(
    informative_forest,
):
    importances = informative_forest[2].feature_importances()
    assert importances.sum() == pytest.approx(1.0)
    assert importances[0] > 0.7 > importances[1]


def test_permutation_importance_separates_signal_from_noise(informative_forest):
    X, y, forest = informative_forest
    importances = forest.permutation_importance(X, y, np.random.default_rng(11),
                                                n_repeats=3)
    assert importances[0] > 0.25
    assert abs(importances[1]) < 0.03
    again = forest.permutation_importance(X, y, np.random.default_rng(11),
                                          n_repeats=3)
    np.testing.assert_array_equal(importances, again)


def test_permutation_importance_follows_the_documented_rng_order():
    X, y = two_feature_problem(40, seed=12)
    counts = [bootstrap_counts(40, 40, np.random.default_rng(s)) for s in (1, 2)]
    forest = build_forest(X, y, counts, max_depth=2)
    rng = np.random.default_rng(13)
    expected = np.zeros(2)
    for tree, tree_counts in zip(forest.trees, counts):
        oob = np.flatnonzero(tree_counts == 0)
        base = np.mean(tree.predict(X[oob]) == y[oob])
        for feature in range(2):
            for _ in range(2):
                permuted = X[oob].copy()
                permuted[:, feature] = X[oob][rng.permutation(oob.size), feature]
                expected[feature] += base - np.mean(tree.predict(permuted) == y[oob])
    got = forest.permutation_importance(X, y, np.random.default_rng(13), n_repeats=2)
    np.testing.assert_allclose(got, expected / 4)


def test_feature_subsets_restrict_the_features_a_tree_splits_on():
    rng = np.random.default_rng(14)
    X = rng.normal(size=(50, 3))
    y = (X[:, 0] + X[:, 2] > 0).astype(int)
    ones = np.ones(50, dtype=int)
    forest = build_forest(X, y, [ones, ones], feature_subsets=[[2], [1, 1]],
                          max_depth=3)
    only_2 = forest.trees[0]
    split_nodes = [node for node in only_2.nodes if not node.is_leaf]
    assert split_nodes and all(node.feature == 0 for node in split_nodes)
    np.testing.assert_array_equal(
        forest.tree_outputs(X)[0], only_2.predict_value(X[:, [2]])
    )
    alone = build_forest(X, y, [ones], feature_subsets=[[2]], max_depth=3)
    np.testing.assert_array_equal(alone.feature_importances(), [0.0, 0.0, 1.0])
    importances = forest.feature_importances()
    assert importances[0] == 0.0 and importances.sum() == pytest.approx(1.0)
