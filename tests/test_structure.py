"""The compact trees of forests (``Tree.compacted``): what they keep, what
they derive, and how trees pickle (their larger arrays compressed).

A forest keeps each tree's nodes and leaf values, and its leaves' sample
counts and weights; inner-node values, counts, weights and (for class
fractions) impurities are derived when read. They must be the statistics of
the tree grown alone on the member's rows.
"""

import pickle
import zlib

import numpy as np
import pytest

from fasttree import (DecisionTreeClassifier, DecisionTreeRegressor, ExtraTreesClassifier,
                      ExtraTreesRegressor, RandomForestClassifier, RandomForestRegressor)
from fasttree._structure import Tree
from fasttree._walk_layout import WalkTests
from synthetic import classification_data, regression_data
from tolerances import assert_rounding_close

CASES = [
    (RandomForestClassifier, {"criterion": "gini"}),
    (RandomForestClassifier, {"criterion": "entropy"}),
    (RandomForestClassifier, {"criterion": "misclassification", "max_depth": 6}),
    (RandomForestClassifier, {"class_weight": "balanced"}),
    (ExtraTreesClassifier, {"bootstrap": True}),
    (RandomForestRegressor, {"criterion": "squared_error"}),
    (RandomForestRegressor, {"criterion": "poisson"}),
    (ExtraTreesRegressor, {}),
]


def fitted_forest(forest_class, params, n_outputs=1, seed=0):
    if forest_class in (RandomForestClassifier, ExtraTreesClassifier):
        X, y = classification_data(n_samples=300, n_classes=3, seed=seed)
        if n_outputs > 1:
            y = np.column_stack([y, (X[:, 1] > 0).astype(int)])
    else:
        X, y = regression_data(n_samples=300, seed=seed)
        y = np.abs(y) if params.get("criterion") == "poisson" else y
        if n_outputs > 1:
            y = np.column_stack([y, np.abs(X[:, 1])])
    forest = forest_class(n_estimators=3, random_state=seed, **params).fit(X, y)
    return forest, X, y


def grown_alone(forest, index, X, y):
    """The member's tree refit on its draws, as weights (so that it counts the
    distinct rows, as the forest's tree does)."""
    member = forest.estimators_[index]
    counts = np.bincount(forest.estimators_samples_[index], minlength=X.shape[0])
    return type(member)(**member.get_params()).fit(X, y, sample_weight=counts).tree_


# misclassification scores one output only.
OUTPUT_CASES = [(forest_class, params, n_outputs) for forest_class, params in CASES
                for n_outputs in (1, 2)
                if n_outputs == 1 or params.get("criterion") != "misclassification"]


@pytest.mark.parametrize("forest_class, params, n_outputs", OUTPUT_CASES,
                         ids=[f"{c.__name__}-{p}-{k}" for c, p, k in OUTPUT_CASES])
def test_a_compact_tree_has_the_statistics_of_the_tree_grown_alone(forest_class, params,
                                                                   n_outputs):
    forest, X, y = fitted_forest(forest_class, params, n_outputs)
    for index in range(len(forest)):
        compact, alone = forest.estimators_[index].tree_, grown_alone(forest, index, X, y)
        assert compact.compact and not alone.compact
        np.testing.assert_array_equal(compact.children_left, alone.children_left)
        np.testing.assert_array_equal(compact.n_node_samples, alone.n_node_samples)
        # Whole weights (bootstrap counts) add up exactly in any order.
        if "class_weight" not in params:
            np.testing.assert_array_equal(compact.weighted_n_node_samples,
                                          alone.weighted_n_node_samples)
        assert_rounding_close(compact.weighted_n_node_samples, alone.weighted_n_node_samples,
                              scale=alone.weighted_n_node_samples[0])
        scale = max(1.0, float(np.abs(alone.value).max()))
        assert_rounding_close(compact.value, alone.value, scale=scale)
        assert_rounding_close(compact.impurity, alone.impurity,
                              scale=max(1.0, float(alone.impurity.max())))
        assert_rounding_close(compact.compute_feature_importances(normalize=False),
                              alone.compute_feature_importances(normalize=False),
                              scale=max(1.0, float(alone.impurity[0])))


def test_classifier_trees_derive_inner_values_and_regressors_keep_them():
    classifier, _, _ = fitted_forest(RandomForestClassifier, {})
    regressor, X, y = fitted_forest(RandomForestRegressor, {})
    state = classifier.estimators_[0].tree_.plain_state()
    assert classifier.estimators_[0].tree_.impurity_rule == "gini"
    assert "impurity" not in state and "leaf_value_indptr" in state
    state = regressor.estimators_[0].tree_.plain_state()
    assert regressor.estimators_[0].tree_.impurity_rule is None
    assert "impurity" in state and state["value"].shape[0] == state["nodes"].shape[0]
    # A mean near zero is not the rounded sum of its children's terms: the
    # regression tree's values are exactly those of the tree grown alone.
    for index in range(len(regressor)):
        np.testing.assert_array_equal(regressor.estimators_[index].tree_.value,
                                      grown_alone(regressor, index, X, y).value)
    costly = RandomForestClassifier(n_estimators=1, random_state=0,
                                    loss_matrix=[[0, 1, 1], [5, 0, 1], [1, 1, 0]])
    X, y = classification_data(n_samples=200, n_classes=3)
    # The cost-sensitive Gini is not a function of the fractions alone.
    assert costly.fit(X, y).estimators_[0].tree_.impurity_rule is None


@pytest.mark.parametrize("criterion", ["gini", "entropy", "log_loss", "misclassification"])
def test_a_classifier_forests_trees_derive_impurities_by_their_criterion(criterion):
    forest, _, _ = fitted_forest(RandomForestClassifier, {"criterion": criterion,
                                                          "max_depth": 4})
    expected = "entropy" if criterion == "log_loss" else criterion
    assert all(member.tree_.impurity_rule == expected for member in forest.estimators_)


@pytest.mark.parametrize("params", [{"criterion": "absolute_error"},
                                    {"monotonic_cst": [1, 0, 0, 0, 0, 0]}])
def test_trees_whose_inner_values_are_not_means_are_kept_whole(params):
    # A median, or a value clipped by a constraint, is not the weighted mean
    # of the children's values: such trees keep every node's value.
    X, y = regression_data(n_samples=200, n_features=6)
    forest = RandomForestRegressor(n_estimators=2, random_state=0, max_depth=5,
                                   **params).fit(X, y)
    for index in range(len(forest)):
        tree = forest.estimators_[index].tree_
        assert not tree.compact
        np.testing.assert_array_equal(tree.value, grown_alone(forest, index, X, y).value)


@pytest.mark.parametrize("forest_class, params", CASES[:2] + CASES[5:6])
def test_a_pickled_compact_tree_keeps_its_statistics_exactly(forest_class, params):
    forest, X, _ = fitted_forest(forest_class, params)
    loaded = pickle.loads(pickle.dumps(forest))
    for before, after in zip(forest.estimators_, loaded.estimators_):
        for name in ("n_node_samples", "weighted_n_node_samples", "impurity", "value"):
            np.testing.assert_array_equal(getattr(after.tree_, name),
                                          getattr(before.tree_, name))
        np.testing.assert_array_equal(after.predict(X), before.predict(X))


def test_pickles_narrow_the_leaf_arrays_to_the_dtypes_that_hold_them():
    forest, _, _ = fitted_forest(RandomForestClassifier, {})
    state = forest.estimators_[0].tree_.plain_state()
    # Bootstrap counts of a full-grown tree's leaves are small whole numbers,
    # and its pure leaves hold one fraction, 1.0.
    assert state["leaf_n_node_samples"].dtype == np.uint8
    assert state["leaf_weighted_n_node_samples"].dtype == np.uint8
    assert state["leaf_value_indptr"].dtype == np.int32
    # Without a bootstrap the trees take the sample weights as they are.
    weighted = RandomForestClassifier(n_estimators=1, random_state=0, bootstrap=False)
    X, y = classification_data(n_samples=300, n_classes=3)
    weights = np.random.default_rng(0).uniform(0.5, 2.0, size=300)
    state = weighted.fit(X, y, sample_weight=weights).estimators_[0].tree_.plain_state()
    assert state["leaf_weighted_n_node_samples"].dtype == np.float64


def test_a_compact_tree_pickled_without_statistics_still_predicts():
    # Forests pickled before compact trees kept statistics.
    forest, X, _ = fitted_forest(RandomForestClassifier, {})
    state = forest.estimators_[0].tree_.plain_state()
    for name in ("leaf_n_node_samples", "leaf_weighted_n_node_samples", "impurity_rule"):
        del state[name]
    tree = Tree.__new__(Tree)
    tree.__setstate__(state)
    assert not tree.has_statistics and tree.n_node_samples is None
    inner = tree.children_left != -1
    assert np.isnan(tree.value[inner]).all()
    np.testing.assert_array_equal(tree.predict(X), forest.estimators_[0].tree_.predict(X))
    with pytest.raises(ValueError, match="node statistics"):
        tree.compute_feature_importances()


@pytest.mark.parametrize("name, value, message", [
    ("leaf_n_node_samples", np.array([1.5]), "wrong length"),
    ("leaf_weighted_n_node_samples", -1.0, "negative"),
    ("leaf_weighted_n_node_samples", np.nan, "non-finite"),
    ("leaf_n_node_samples", 2.5, "fraction"),
    ("impurity_rule", "variance", "unknown impurity rule"),
])
def test_corrupt_leaf_statistics_are_refused_on_load(name, value, message):
    forest, _, _ = fitted_forest(RandomForestClassifier, {})
    state = dict(forest.estimators_[0].tree_.plain_state())
    if isinstance(value, np.ndarray) or isinstance(value, str):
        state[name] = value
    else:
        state[name] = state[name].astype(np.float64)
        state[name][0] = value
    with pytest.raises(ValueError, match=message):
        Tree.__new__(Tree).__setstate__(state)


def prediction_bytes(model):
    """Bytes of the arrays that prediction reads in memory: a tree's walk
    and node values, or a forest's trees laid out back to back."""
    if hasattr(model, "_ensemble_arrays"):
        parts = list(model._ensemble_arrays().values())
    else:
        parts = [model.tree_.walk_tests, model.tree_.node_values]
    # Sparse leaf rows are a tuple of arrays.
    parts = [item for part in parts for item in (part if isinstance(part, tuple) else [part])]
    return sum(part.nbytes for part in parts if isinstance(part, (np.ndarray, WalkTests)))


@pytest.mark.parametrize("model", [
    DecisionTreeClassifier(random_state=0), DecisionTreeRegressor(random_state=0),
    RandomForestClassifier(n_estimators=5, random_state=0),
    RandomForestRegressor(n_estimators=5, max_depth=10, random_state=0),
], ids=["tree", "regression-tree", "forest", "regression-forest"])
def test_pickles_are_smaller_than_the_arrays_prediction_reads(model):
    X, y = classification_data(n_samples=3000, n_features=10, n_classes=4)
    model.fit(X, y if hasattr(model, "predict_proba") else X[:, 0] + y)
    pickled = pickle.dumps(model)
    assert len(pickled) < prediction_bytes(model)
    np.testing.assert_array_equal(pickle.loads(pickled).predict(X), model.predict(X))


def compressed_state(params=None):
    X, y = classification_data(n_samples=500, n_classes=3)
    tree = DecisionTreeClassifier(random_state=0, **(params or {})).fit(X, y).tree_
    return tree, tree.__getstate__(), X


def test_pickled_trees_hold_their_large_arrays_compressed():
    tree, state, X = compressed_state()
    assert "nodes" in state["compressed"] and "nodes" not in state
    loaded = Tree.__new__(Tree)
    loaded.__setstate__(state)
    for name in ("children_left", "threshold", "value", "impurity", "n_node_samples"):
        np.testing.assert_array_equal(getattr(loaded, name), getattr(tree, name))


def test_a_compressed_array_of_the_other_byte_order_loads():
    tree, state, X = compressed_state()
    swapped = {}
    for name, (descr, shape, blob) in state["compressed"].items():
        dtype = np.lib.format.descr_to_dtype(descr)
        array = np.frombuffer(zlib.decompress(blob), dtype=dtype).reshape(shape)
        other = array.byteswap().view(dtype.newbyteorder())
        swapped[name] = (np.lib.format.dtype_to_descr(other.dtype), shape,
                         zlib.compress(other.tobytes()))
    loaded = Tree.__new__(Tree)
    loaded.__setstate__(dict(state, compressed=swapped))
    np.testing.assert_array_equal(loaded.predict(X), tree.predict(X))


@pytest.mark.parametrize("damage, message", [
    (lambda entry: (entry[0], entry[1], entry[2][:-5]), "decompress|bytes"),
    (lambda entry: (entry[0], (entry[1][0] + 1,), entry[2]), "bytes, not the"),
    (lambda entry: (entry[0], entry[1], zlib.compress(bytes(10 ** 7))), "bytes, not the"),
    (lambda entry: (entry[0], entry[1], entry[2] + b"tail"), "bytes, not the"),
    (lambda entry: ("|O", entry[1], entry[2]), "malformed"),
    (lambda entry: ("not a dtype", entry[1], entry[2]), "malformed"),
    (lambda entry: (entry[0], (-1,), entry[2]), "malformed"),
    (lambda entry: entry[:2], "malformed"),
], ids=["truncated", "wrong-shape", "too-long", "trailing-bytes", "object-dtype",
        "bad-dtype", "negative-shape", "missing-bytes"])
def test_damaged_compressed_arrays_are_refused_by_name(damage, message):
    _, state, _ = compressed_state()
    compressed = dict(state["compressed"])
    compressed["nodes"] = damage(compressed["nodes"])
    with pytest.raises(ValueError, match=f"corrupt fasttree model: compressed array 'nodes'.*"
                                         f"({message})"):
        Tree.__new__(Tree).__setstate__(dict(state, compressed=compressed))


@pytest.mark.parametrize("n_outputs", [1, 2])
def test_squared_error_rule_keeps_leaves_and_derives_inner_values_and_impurities(n_outputs):
    X, y = regression_data(n_samples=400, n_features=5)
    if n_outputs == 2:
        y = np.column_stack([y, np.sin(y)])
    weight = np.random.default_rng(0).integers(0, 3, size=400).astype(np.float64)
    whole = DecisionTreeRegressor(min_samples_leaf=2, random_state=0).fit(
        X, y, sample_weight=weight).tree_
    compact = whole.compacted("squared_error")
    leaves = whole.nodes["left_child"] == -1
    np.testing.assert_array_equal(compact.leaf_values, whole.node_values[leaves])
    np.testing.assert_array_equal(compact.impurity[leaves], whole.impurity[leaves])
    scale = np.abs(y).max()
    assert_rounding_close(compact.node_values, whole.node_values, scale=scale)
    assert_rounding_close(compact.impurity, whole.impurity, scale=scale ** 2)
    np.testing.assert_array_equal(compact.predict(X.astype(np.float32)),
                                  whole.predict(X.astype(np.float32)))
    again = pickle.loads(pickle.dumps(compact))
    np.testing.assert_array_equal(again.impurity, compact.impurity)
    np.testing.assert_array_equal(again.node_values, compact.node_values)
    # Half the bytes of the tree that keeps every node's value and impurity.
    assert len(pickle.dumps(compact)) < 0.75 * len(pickle.dumps(whole.compacted(None)))


def test_squared_error_rule_refuses_damaged_leaf_impurities():
    X, y = regression_data(n_samples=100, n_features=3)
    state = DecisionTreeRegressor(random_state=0).fit(X, y).tree_.compacted(
        "squared_error").plain_state()
    for damage, message in ((lambda s: s.pop("leaf_impurity"), "leaf_impurity"),
                            (lambda s: s.update(leaf_impurity=s["leaf_impurity"][:-1]),
                             "wrong length"),
                            (lambda s: s.update(leaf_impurity=-1 - s["leaf_impurity"]),
                             "negative")):
        damaged = dict(state)
        damage(damaged)
        with pytest.raises((ValueError, KeyError), match=message):
            Tree(damaged["n_features"], damaged["n_values"], damaged)
