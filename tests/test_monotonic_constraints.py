"""monotonic_cst: constrained splits against a brute-force search, monotone
predictions from every estimator that takes it, and the errors."""

import pickle

import numpy as np
import pytest

from fasttree import (DecisionTreeClassifier, DecisionTreeRegressor, ExtraTreeRegressor,
                      ExtraTreesClassifier, ExtraTreesRegressor, RandomForestClassifier,
                      RandomForestRegressor)
from fasttree.reference.criteria import impurity, weighted_median
from fasttree.reference.split import midpoint
from tolerances import assert_rounding_close, data_scale


def split_value(y, weights, rows, criterion, classification):
    """The value a constraint bounds: fraction of class 1, median or mean."""
    if classification:
        return np.average(y[rows] == 1, weights=weights[rows])
    if criterion == "absolute_error":
        return weighted_median(y[rows], weights[rows])
    return np.average(y[rows], weights=weights[rows])


def split_gain(y, weights, left, criterion):
    """The oracle's impurity decrease of the split sending ``left`` left."""
    total = weights.sum()
    gain = impurity(criterion, y, weights)
    for side in (left, ~left):
        gain -= weights[side].sum() / total * impurity(criterion, y[side], weights[side])
    return gain


def brute_force_best_gain(X, y, weights, criterion, constraints, classification):
    """The largest gain of a root split whose children's values are ordered as
    ``constraints`` asks (None when no split is allowed)."""
    best = None
    for feature in range(X.shape[1]):
        distinct = np.unique(X[:, feature])
        for low, high in zip(distinct[:-1], distinct[1:]):
            left = X[:, feature] <= midpoint(low, high)
            if constraints[feature] * (split_value(y, weights, left, criterion, classification)
                                       - split_value(y, weights, ~left, criterion,
                                                     classification)) > 0:
                continue
            gain = split_gain(y, weights, left, criterion)
            best = gain if best is None else max(best, gain)
    return best


@pytest.mark.parametrize("criterion", ["squared_error", "absolute_error", "poisson", "gini",
                                       "entropy"])
@pytest.mark.parametrize("seed", range(8))
def test_root_split_is_the_best_one_the_constraints_allow(criterion, seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(40, 3)).astype(np.float32)
    weights = rng.uniform(0.5, 2.0, 40)
    # A trend against the increasing constraint on feature 0, so it binds.
    signal = -X[:, 0] + 0.5 * X[:, 1] + rng.normal(scale=0.7, size=40)
    constraints = np.array([1, -1, 0])
    classification = criterion in ("gini", "entropy")
    if classification:
        y = (signal > 0).astype(int)
        tree = DecisionTreeClassifier(criterion=criterion, max_depth=1,
                                      monotonic_cst=constraints)
    else:
        y = np.exp(signal) if criterion == "poisson" else signal
        tree = DecisionTreeRegressor(criterion=criterion, max_depth=1,
                                     monotonic_cst=constraints)
    tree.fit(X, y, sample_weight=weights)
    best = brute_force_best_gain(X, y, weights, criterion, constraints, classification)
    if best is None:
        assert tree.tree_.node_count == 1
        return
    feature = tree.tree_.feature[0]
    left = X[:, feature] <= np.float32(tree.tree_.threshold[0])
    ordered = constraints[feature] * (split_value(y, weights, left, criterion, classification)
                                      - split_value(y, weights, ~left, criterion,
                                                    classification))
    assert ordered <= 0
    assert_rounding_close(split_gain(y, weights, left, criterion), best,
                          scale=data_scale(y) if not classification else 1.0)


ESTIMATORS = [
    DecisionTreeRegressor(random_state=0),
    DecisionTreeRegressor(criterion="absolute_error", random_state=0),
    DecisionTreeRegressor(criterion="poisson", random_state=0, max_leaf_nodes=30),
    ExtraTreeRegressor(random_state=0),
    RandomForestRegressor(n_estimators=10, random_state=0),
    ExtraTreesRegressor(n_estimators=10, random_state=0),
    DecisionTreeClassifier(random_state=0),
    DecisionTreeClassifier(criterion="entropy", random_state=0, max_leaf_nodes=20),
    RandomForestClassifier(n_estimators=10, random_state=0),
    ExtraTreesClassifier(n_estimators=10, random_state=0),
]


@pytest.mark.parametrize("estimator", ESTIMATORS, ids=lambda e: repr(e)[:60])
@pytest.mark.parametrize("with_missing", [False, True])
def test_predictions_are_monotone_in_the_constrained_features(estimator, with_missing):
    rng = np.random.default_rng(1)
    X = rng.uniform(-2, 2, size=(600, 3))
    # Non-monotone in both constrained features, so the constraints bind.
    signal = np.sin(3 * X[:, 0]) + X[:, 0] - np.cos(2 * X[:, 1]) - X[:, 1] + X[:, 2]
    signal += rng.normal(scale=0.3, size=600)
    if with_missing:
        X[rng.random(X.shape) < 0.05] = np.nan
    is_classifier = hasattr(estimator, "predict_proba")
    y = (signal > 0).astype(int) if is_classifier else np.exp(signal / 2)
    model = pickle.loads(pickle.dumps(estimator))
    model.set_params(monotonic_cst=[1, -1, 0]).fit(X, y)
    grid = np.linspace(-2.5, 2.5, 101)
    for anchor in rng.uniform(-2, 2, size=(10, 3)):
        for feature, sign in ((0, 1), (1, -1)):
            rows = np.tile(anchor, (grid.size, 1))
            rows[:, feature] = grid
            values = model.predict_proba(rows)[:, 1] if is_classifier else model.predict(rows)
            assert np.all(sign * np.diff(values) >= -1e-12)


@pytest.mark.parametrize("estimator_class", [DecisionTreeRegressor, DecisionTreeClassifier])
def test_zero_constraints_grow_the_unconstrained_tree(estimator_class):
    rng = np.random.default_rng(2)
    X = rng.normal(size=(200, 4))
    y = (X[:, 0] + rng.normal(size=200) > 0).astype(int)
    free = estimator_class(random_state=0).fit(X, y)
    zero = estimator_class(random_state=0, monotonic_cst=[0, 0, 0, 0]).fit(X, y)
    np.testing.assert_array_equal(zero.tree_.feature, free.tree_.feature)
    np.testing.assert_array_equal(zero.tree_.threshold, free.tree_.threshold)
    np.testing.assert_array_equal(zero.tree_.value, free.tree_.value)


def test_node_values_stay_within_the_bounds_their_ancestors_set():
    rng = np.random.default_rng(3)
    X = rng.uniform(size=(500, 1))
    y = np.sin(8 * X[:, 0]) + rng.normal(scale=0.2, size=500)
    tree = DecisionTreeRegressor(monotonic_cst=[1], random_state=0).fit(X, y)
    value = tree.tree_.value[:, 0, 0]
    left, right = tree.tree_.children_left, tree.tree_.children_right

    def check(node, lower, upper):
        assert lower - 1e-12 <= value[node] <= upper + 1e-12
        if left[node] == -1:
            return
        middle = (value[left[node]] + value[right[node]]) / 2
        assert value[left[node]] <= value[right[node]]
        check(left[node], lower, middle)
        check(right[node], middle, upper)

    check(0, -np.inf, np.inf)
    # The leaves' values, in threshold order, rise.
    order = np.argsort(X[:, 0])
    assert np.all(np.diff(tree.predict(X[order])) >= 0)
    assert_rounding_close(value[0], y.mean(), scale=data_scale(y))


@pytest.mark.parametrize("params, y_kind, message", [
    ({"monotonic_cst": [1, 0, 0]}, "multiclass", "multiclass classification"),
    ({"monotonic_cst": [1, 0, 0]}, "multi-output", "multiple outputs"),
    ({"monotonic_cst": [1, 0]}, "binary", "has shape 2 but the input data X has 3 features"),
    ({"monotonic_cst": [2, 0, 0]}, "binary", "array-like of -1, 0 or 1"),
    ({"monotonic_cst": [1, 0, 0], "categorical_split": "multiway", "criterion": "entropy"},
     "binary", "multiway"),
])
def test_constraints_that_cannot_hold_are_refused(params, y_kind, message):
    rng = np.random.default_rng(4)
    X = rng.normal(size=(60, 3))
    y = {"binary": np.arange(60) % 2, "multiclass": np.arange(60) % 3,
         "multi-output": np.stack([np.arange(60) % 2, np.arange(60) % 2], axis=1)}[y_kind]
    for estimator_class in (DecisionTreeClassifier, RandomForestClassifier):
        with pytest.raises(ValueError, match=message):
            estimator_class(**params).fit(X, y)


def test_a_constraint_on_a_categorical_feature_is_refused():
    pandas = pytest.importorskip("pandas")
    X = pandas.DataFrame({"colour": pandas.Categorical(["red", "blue"] * 10),
                          "size": np.arange(20.0)})
    with pytest.raises(ValueError, match="numeric features only"):
        DecisionTreeRegressor(monotonic_cst=[1, 0]).fit(X, np.arange(20.0))
    # 0 for the categorical feature is fine.
    DecisionTreeRegressor(monotonic_cst=[0, 1]).fit(X, np.arange(20.0))
