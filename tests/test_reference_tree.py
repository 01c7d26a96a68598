"""Tests of the pure-Python tree builder oracle (fasttree.reference.tree)."""

import numpy as np
import pytest

from fasttree.reference import TREE_LEAF, build_tree, entropy, gini, squared_error
from tolerances import ROUNDING


def noisy_classes(n_samples=120, n_features=4, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n_samples, n_features)).astype(np.float32)
    y = (X[:, 0] + 0.5 * X[:, 1] > 0).astype(np.intp)
    flip = rng.random(n_samples) < 0.15
    y[flip] = 1 - y[flip]
    return X, y


def subtree_ids(tree, node_id):
    node = tree.nodes[node_id]
    if node.is_leaf:
        return [node_id]
    return [node_id] + subtree_ids(tree, node.left) + subtree_ids(tree, node.right)


def test_pure_node_becomes_a_leaf():
    X = np.arange(6, dtype=np.float32).reshape(-1, 1)
    tree = build_tree(X, [1, 1, 1, 1, 1, 1], n_classes=2)
    assert tree.node_count == 1 and tree.n_leaves == 1 and tree.max_depth == 0
    assert list(tree.nodes[0].value) == [0.0, 1.0]


def test_max_depth_one_gives_a_stump():
    X, y = noisy_classes()
    tree = build_tree(X, y, max_depth=1)
    assert (tree.node_count, tree.n_leaves, tree.max_depth) == (3, 2, 1)
    root = tree.nodes[0]
    assert (root.left, root.right) == (1, 2)
    assert root.feature == 0


@pytest.mark.parametrize("max_leaf_nodes", [2, 3, 5, 8])
def test_max_leaf_nodes_bounds_the_number_of_leaves(max_leaf_nodes):
    X, y = noisy_classes()
    full = build_tree(X, y)
    tree = build_tree(X, y, max_leaf_nodes=max_leaf_nodes)
    assert tree.n_leaves == min(max_leaf_nodes, full.n_leaves)
    assert tree.node_count == 2 * tree.n_leaves - 1


def test_max_leaf_nodes_larger_than_needed_gives_the_full_tree_shape():
    X, y = noisy_classes(n_samples=40)
    full = build_tree(X, y)
    tree = build_tree(X, y, max_leaf_nodes=10_000)
    assert tree.n_leaves == full.n_leaves
    assert np.array_equal(tree.predict(X), full.predict(X))


def test_best_first_expands_the_largest_weighted_improvement_first():
    # The root splits at 3.5; its left child {0..3} is pure, and its right
    # child holds the only other useful split.  With 3 leaves, node 2 (right)
    # must be expanded into nodes 3 and 4.
    X = np.arange(10, dtype=np.float32).reshape(-1, 1)
    y = [0, 0, 0, 0, 1, 1, 1, 1, 0, 0]
    tree = build_tree(X, y, max_leaf_nodes=3)
    assert tree.n_leaves == 3
    assert tree.nodes[0].threshold == pytest.approx(3.5)
    assert tree.nodes[1].is_leaf
    assert (tree.nodes[2].left, tree.nodes[2].right) == (3, 4)
    assert tree.nodes[2].threshold == pytest.approx(7.5)


def test_best_first_ties_go_to_the_earliest_node():
    # The root splits 0 1 0 0 | 2 3 2 2; both children then have the same
    # class counts, so the same best improvement, and the left one (id 1) wins.
    X = np.arange(8, dtype=np.float32).reshape(-1, 1)
    y = [0, 1, 0, 0, 2, 3, 2, 2]
    tree = build_tree(X, y, max_leaf_nodes=3)
    assert tree.nodes[0].threshold == pytest.approx(3.5)
    assert (tree.nodes[1].left, tree.nodes[1].right) == (3, 4)
    assert tree.nodes[2].is_leaf
    assert tree.nodes[2].n_node_samples == 4


def test_full_classification_tree_fits_training_data_perfectly():
    X, y = noisy_classes()
    assert len(np.unique(X, axis=0)) == len(X)
    tree = build_tree(X, y, criterion="entropy")
    assert np.array_equal(tree.predict(X), y)
    assert all(node.impurity == 0.0 for node in tree.nodes if node.is_leaf)


def test_full_regression_tree_fits_training_data_perfectly():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(60, 3)).astype(np.float32)
    y = rng.normal(size=60)
    tree = build_tree(X, y, criterion="squared_error")
    assert np.allclose(tree.predict(X), y, rtol=0, atol=1e-12)
    assert tree.n_leaves == 60


def test_depth_first_ids_are_preorder_left_subtree_first():
    X, y = noisy_classes(n_samples=60)
    tree = build_tree(X, y)
    assert subtree_ids(tree, 0) == list(range(tree.node_count))
    for node_id, node in enumerate(tree.nodes):
        if not node.is_leaf:
            assert node.left == node_id + 1
            assert tree.nodes[node.left].depth == node.depth + 1


def test_every_split_sends_x_le_threshold_left():
    X, y = noisy_classes(n_samples=80)
    tree = build_tree(X, y, max_depth=4)
    paths = {0: np.ones(len(X), dtype=bool)}
    for node_id, node in enumerate(tree.nodes):
        rows = paths[node_id]
        assert rows.sum() == node.n_node_samples
        if not node.is_leaf:
            goes_left = X[:, node.feature] <= np.float32(node.threshold)
            paths[node.left] = rows & goes_left
            paths[node.right] = rows & ~goes_left
    leaves = tree.apply(X)
    for leaf in set(leaves):
        assert np.array_equal(leaves == leaf, paths[leaf])


def test_node_statistics_match_the_criteria():
    X, y = noisy_classes(n_samples=70)
    weights = np.random.default_rng(2).uniform(0.5, 2.0, size=70)
    tree = build_tree(X, y, weights, criterion="gini", max_depth=3)
    leaves = tree.apply(X)
    for leaf in set(leaves):
        rows = leaves == leaf
        node = tree.nodes[leaf]
        assert node.impurity == pytest.approx(gini(y[rows], weights[rows]), rel=ROUNDING, abs=ROUNDING)
        assert node.weighted_n_node_samples == pytest.approx(weights[rows].sum())
        counts = np.bincount(y[rows], weights=weights[rows], minlength=2)
        assert np.allclose(node.value, counts / counts.sum())


def test_regression_leaf_value_is_the_weighted_mean():
    X = np.array([[0.0], [0.0], [1.0], [1.0]], dtype=np.float32)
    y = np.array([1.0, 3.0, 10.0, 20.0])
    tree = build_tree(X, y, [3.0, 1.0, 1.0, 1.0], criterion="squared_error")
    assert np.allclose(tree.predict(X), [1.5, 1.5, 15.0, 15.0])
    assert tree.nodes[0].impurity == pytest.approx(
        squared_error(y, [3.0, 1.0, 1.0, 1.0])
    )


def test_predict_breaks_probability_ties_towards_the_lowest_class():
    X = np.zeros((4, 1), dtype=np.float32)
    tree = build_tree(X, [2, 1, 2, 1], n_classes=3)
    assert list(tree.predict_value(X[:1])[0]) == [0.0, 0.5, 0.5]
    assert list(tree.predict(X)) == [1, 1, 1, 1]


def test_min_samples_rules_hold_in_every_node():
    X, y = noisy_classes()
    tree = build_tree(X, y, min_samples_split=10, min_samples_leaf=4)
    for node in tree.nodes:
        assert node.n_node_samples >= 4
        if not node.is_leaf:
            assert node.n_node_samples >= 10


def test_min_samples_leaf_raises_the_effective_min_samples_split():
    # 7 rows < 2 * min_samples_leaf = 8, so the root may not be split even
    # though min_samples_split=2 would allow it.
    X = np.arange(7, dtype=np.float32).reshape(-1, 1)
    assert build_tree(X, [0, 0, 0, 1, 1, 1, 1], min_samples_leaf=4).node_count == 1


def test_min_weight_leaf_holds_in_every_leaf():
    X, y = noisy_classes()
    weights = np.random.default_rng(4).uniform(0.1, 3.0, size=len(y))
    tree = build_tree(X, y, weights, min_weight_leaf=6.0)
    assert tree.node_count > 1
    for node in tree.nodes:
        assert node.weighted_n_node_samples >= 6.0


def test_min_impurity_decrease_compares_the_root_weighted_improvement():
    X = np.arange(8, dtype=np.float32).reshape(-1, 1)
    y = [0, 0, 0, 0, 1, 1, 1, 1]
    # The only split has improvement 0.5 = gini of the root.
    assert build_tree(X, y, min_impurity_decrease=0.5).node_count == 3
    assert build_tree(X, y, min_impurity_decrease=0.5001).node_count == 1


def test_min_impurity_decrease_scales_by_the_node_weight_share():
    # The root split 0..3 | 4..7 improves gini by 0.375; the right child's
    # split improves its own gini by 0.5, but only 0.25 after scaling by 4/8.
    X = np.arange(8, dtype=np.float32).reshape(-1, 1)
    y = [0, 0, 0, 0, 1, 1, 2, 2]
    assert build_tree(X, y).node_count == 5
    assert build_tree(X, y, min_impurity_decrease=0.26).node_count == 3


def test_weight_two_equals_a_duplicated_row_in_the_whole_tree():
    X, y = noisy_classes(n_samples=50, seed=5)
    weights = np.ones(50)
    weights[7] = 2.0
    weighted = build_tree(X, y, weights, criterion="entropy")
    duplicated = build_tree(
        np.vstack([X, X[7:8]]), np.append(y, y[7]), criterion="entropy"
    )
    assert weighted.node_count == duplicated.node_count
    for a, b in zip(weighted.nodes, duplicated.nodes):
        assert (a.feature, a.threshold, a.left) == (b.feature, b.threshold, b.left)
        assert a.weighted_n_node_samples == b.weighted_n_node_samples
        assert a.impurity == pytest.approx(b.impurity, rel=ROUNDING, abs=ROUNDING)


def test_feature_importances_sum_to_one_and_favour_the_informative_feature():
    X, y = noisy_classes()
    importances = build_tree(X, y, max_depth=3).feature_importances()
    assert importances.sum() == pytest.approx(1.0)
    assert importances.argmax() == 0


def test_feature_importances_of_a_single_leaf_are_zero():
    X = np.zeros((3, 2), dtype=np.float32)
    tree = build_tree(X, [0, 1, 0])
    assert tree.node_count == 1
    assert list(tree.feature_importances()) == [0.0, 0.0]


def test_feature_importance_counts_weighted_impurity_decrease():
    X = np.array([[0, 0], [0, 1], [1, 0], [1, 1]], dtype=np.float32)
    y = [0, 0, 1, 2]
    tree = build_tree(X, y, criterion="entropy")
    # Root on feature 0: 4*1.5 - 2*0 - 2*1 = 4; then feature 1: 2*1 = 2.
    assert np.allclose(tree.feature_importances(), [4 / 6, 2 / 6])
    assert tree.nodes[0].impurity == pytest.approx(entropy(y))


def test_leaf_markers_use_tree_leaf():
    tree = build_tree(np.zeros((2, 1)), [0, 0])
    assert tree.nodes[0].left == tree.nodes[0].right == TREE_LEAF


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(criterion="hinge"), "'hinge'"),
        (dict(max_leaf_nodes=1), "max_leaf_nodes"),
        (dict(min_samples_leaf=0), "min_samples_leaf"),
        (dict(n_classes=1), "n_classes"),
    ],
)
def test_build_tree_rejects_bad_arguments(kwargs, message):
    with pytest.raises(ValueError, match=message):
        build_tree(np.zeros((3, 1)), [0, 1, 0], **kwargs)


@pytest.mark.parametrize(
    "criterion, kwargs",
    [
        ("gini", dict(max_depth=4, min_samples_leaf=8)),
        ("entropy", dict(max_leaf_nodes=8, min_samples_leaf=3)),
        ("squared_error", dict(min_samples_split=10, min_impurity_decrease=0.01)),
    ],
)
def test_agrees_with_scikit_learn_when_there_are_no_ties(criterion, kwargs):
    # scikit-learn visits features in a random order, so only data without
    # tied best splits can be compared; several random_state values check
    # that these cases have none.
    from sklearn import tree as tree_module

    X, y = noisy_classes(n_samples=150, n_features=3, seed=11)
    if criterion == "squared_error":
        y = X[:, 0] * 2.0 + np.random.default_rng(12).normal(size=len(X))
        estimator = tree_module.DecisionTreeRegressor
    else:
        estimator = tree_module.DecisionTreeClassifier
    ours = build_tree(X, y, criterion=criterion, **kwargs)
    for random_state in range(3):
        fitted = estimator(criterion=criterion, random_state=random_state, **kwargs)
        assert_same_structure(ours, fitted.fit(X, y).tree_)


def assert_same_structure(ours, theirs):
    assert ours.node_count == theirs.node_count
    for node_id, node in enumerate(ours.nodes):
        assert (node.left, node.right) == (
            theirs.children_left[node_id],
            theirs.children_right[node_id],
        )
        assert node.n_node_samples == theirs.n_node_samples[node_id]
        assert node.impurity == pytest.approx(theirs.impurity[node_id], rel=ROUNDING, abs=ROUNDING)
        if not node.is_leaf:
            assert node.feature == theirs.feature[node_id]
