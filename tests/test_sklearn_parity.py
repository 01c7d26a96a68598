"""fasttree grows the same trees as scikit-learn on continuous data.

Both libraries search every threshold between distinct values exactly, so on
float32 data without repeated values they must pick the same splits, except
where two candidate splits are genuinely tied.  Two kinds of divergence are
recognised and checked to be what they claim to be, nothing else is accepted:

* a tie: both trees split a node differently, and the two splits' impurity
  decreases (recomputed here) are equal up to rounding (tests/tolerances.py).  Unweighted
  classification has many exact ties, since the class counts are integers and
  two features can cut the same samples off a small node.  fasttree breaks
  ties towards the lowest feature index; scikit-learn towards whichever
  feature its random permutation visits first.
* a pure node split by scikit-learn: with fractional sample weights its Gini
  of a one-class node can round to ~1e-15 > eps, and it splits the node into
  two children of the same class.  fasttree keeps such a node a leaf.

Cases without any such divergence must agree completely: leaf counts,
predictions on training and fresh rows, and node-by-node features and
thresholds.
"""

from fractions import Fraction

import numpy as np
import pytest
from sklearn.tree import DecisionTreeClassifier as SkClassifier
from sklearn.tree import DecisionTreeRegressor as SkRegressor

from fasttree import DecisionTreeClassifier, DecisionTreeRegressor
from tolerances import assert_rounding_close, data_scale, rounding_equal

SEEDS = [0, 1, 2, 3, 4, 5]
SETTINGS = [
    {"min_samples_leaf": 20},
    {"max_depth": 3, "min_samples_leaf": 20},
    {"max_depth": 6, "min_samples_leaf": 20},
    {"min_samples_leaf": 50},
    {"max_leaf_nodes": 8, "min_samples_leaf": 20},
    {"max_leaf_nodes": 30, "min_samples_leaf": 20},
]
SETTING_IDS = ["plain", "depth3", "depth6", "leaf50", "leaves8", "leaves30"]


def spread_normal(rng, n_samples, n_features):
    """float32 normal columns whose sorted values are at least 1e-6 apart.

    scikit-learn treats values closer than 1e-7 as equal, fasttree only equal
    ones; spacing them out keeps that difference out of the comparison.
    """
    X = rng.normal(size=(n_samples, n_features))
    order = np.argsort(X, axis=0)
    ramp = 1e-6 * np.arange(n_samples)[:, None]
    spread = np.maximum.accumulate(np.take_along_axis(X, order, axis=0) - ramp, axis=0) + ramp
    np.put_along_axis(X, order, spread, axis=0)
    return X.astype(np.float32)


def make_data(seed):
    """Continuous float32 features, labels of 2..5 classes and a regression target."""
    rng = np.random.default_rng(seed)
    n_samples = int(rng.integers(200, 3001))
    n_features = int(rng.integers(2, 8))
    n_classes = int(rng.integers(2, 6))
    X = spread_normal(rng, n_samples, n_features)
    X_fresh = rng.normal(size=(500, n_features)).astype(np.float32)
    mixing = rng.normal(size=(n_features, n_classes))
    labels = np.argmax(X @ mixing + rng.normal(size=(n_samples, n_classes)), axis=1)
    target = X @ mixing[:, 0] + np.sin(2.0 * X[:, 0]) + 0.3 * rng.normal(size=n_samples)
    weights = rng.uniform(0.5, 2.0, size=n_samples)
    assert all(np.diff(np.sort(X[:, f])).min() > 1e-7 for f in range(n_features))
    return X, X_fresh, labels, target, weights


def split_improvement(X, y, weights, rows, feature, threshold, criterion):
    """Weighted impurity decrease of splitting ``rows`` by x[feature] <= threshold."""
    rows = np.sort(rows)
    left = rows[X[rows, feature].astype(np.float64) <= threshold]
    right = rows[X[rows, feature].astype(np.float64) > threshold]
    if criterion == "squared_error":
        w_left, w_right = weights[left].sum(), weights[right].sum()
        mean_left = np.average(y[left], weights=weights[left])
        mean_right = np.average(y[right], weights=weights[right])
        return w_left * w_right / (w_left + w_right) * (mean_left - mean_right) ** 2
    if criterion == "poisson":
        def half_deviance(part):
            mean = np.average(y[part], weights=weights[part])
            positive = part[y[part] > 0]
            return np.sum(weights[positive] * y[positive] * np.log(y[positive] / mean))
        return half_deviance(rows) - half_deviance(left) - half_deviance(right)
    n_classes = int(y.max()) + 1
    if criterion == "gini" and np.all(weights == 1.0):
        # Exact rational arithmetic: integer counts make exact ties common.
        def sum_of_squares_over_total(part):
            counts = np.bincount(y[part], minlength=n_classes)
            return Fraction(int((counts ** 2).sum()), int(counts.sum()))
        return (sum_of_squares_over_total(left) + sum_of_squares_over_total(right)
                - sum_of_squares_over_total(rows))

    def weighted_impurity(part):
        counts = np.bincount(y[part], weights=weights[part], minlength=n_classes)
        total = counts.sum()
        fractions = counts[counts > 0] / total
        if criterion == "gini":
            return total * (1.0 - np.sum(fractions ** 2))
        return -total * np.sum(fractions * np.log2(fractions))
    return weighted_impurity(rows) - weighted_impurity(left) - weighted_impurity(right)


def same_threshold(ours, theirs):
    """fasttree stores the float32 rounding of scikit-learn's float64 midpoint, or the
    value just below it when that rounding lands on the upper sample value."""
    rounded = np.float32(theirs)
    return ours == rounded or ours == np.nextafter(rounded, np.float32(-np.inf))


def divergences(ours, theirs, X, y, weights, criterion):
    """Walk both trees in step; return the nodes where they legitimately part.

    Fails on any divergence that is not a near-tie or a pure node split by
    scikit-learn.
    """
    a, b = ours.tree_, theirs.tree_
    found = []
    stack = [(0, 0, np.arange(X.shape[0])[weights > 0])]
    while stack:
        i, j, rows = stack.pop()
        assert a.n_node_samples[i] == b.n_node_samples[j] == rows.size
        a_leaf, b_leaf = a.children_left[i] == -1, b.children_left[j] == -1
        if a_leaf and b_leaf:
            continue
        if a_leaf and not b_leaf:
            assert np.unique(y[rows]).size == 1, (
                f"scikit-learn split node {j} ({rows.size} rows) that fasttree left a leaf")
            found.append(("pure node split by scikit-learn", rows.size))
            continue
        assert not b_leaf, f"fasttree split node {i} ({rows.size} rows) that scikit-learn did not"
        if a.feature[i] == b.feature[j] and same_threshold(a.threshold[i], b.threshold[j]):
            go_left = X[rows, a.feature[i]] <= a.threshold[i]
            stack.append((a.children_right[i], b.children_right[j], rows[~go_left]))
            stack.append((a.children_left[i], b.children_left[j], rows[go_left]))
            continue
        ours_gain = split_improvement(X, y, weights, rows, a.feature[i], a.threshold[i],
                                      criterion)
        theirs_gain = split_improvement(X, y, weights, rows, b.feature[j], b.threshold[j],
                                        criterion)
        # The gains are in units of the node's weight times the impurity's scale.
        gain_scale = float(weights[rows].sum()) * {"squared_error": data_scale(y) ** 2,
                                                   "poisson": data_scale(y)}.get(criterion, 1.0)
        assert rounding_equal(ours_gain, theirs_gain, gain_scale), (
            f"node of {rows.size} rows: fasttree splits feature {a.feature[i]} at "
            f"{a.threshold[i]} (gain {float(ours_gain)!r}), scikit-learn feature "
            f"{b.feature[j]} at {b.threshold[j]} (gain {float(theirs_gain)!r})")
        found.append(("tie", rows.size))
    return found


def assert_identical_trees(ours, theirs, X, X_fresh, y):
    a, b = ours.tree_, theirs.tree_
    assert ours.get_n_leaves() == theirs.get_n_leaves()
    assert ours.get_depth() == theirs.get_depth()
    assert a.node_count == b.node_count
    np.testing.assert_array_equal(a.children_left, b.children_left)
    np.testing.assert_array_equal(a.children_right, b.children_right)
    np.testing.assert_array_equal(a.feature, b.feature)
    np.testing.assert_array_equal(a.n_node_samples, b.n_node_samples)
    split = np.flatnonzero(a.children_left != -1)
    assert all(same_threshold(a.threshold[n], b.threshold[n]) for n in split)
    scale = 1.0 if hasattr(ours, "classes_") else data_scale(y) ** 2
    assert_rounding_close(a.impurity, b.impurity, scale)
    if hasattr(ours, "classes_"):
        np.testing.assert_array_equal(ours.predict(X), theirs.predict(X))
        np.testing.assert_array_equal(ours.predict(X_fresh), theirs.predict(X_fresh))
        assert_rounding_close(ours.predict_proba(X_fresh), theirs.predict_proba(X_fresh))
    else:
        assert_rounding_close(ours.predict(X), theirs.predict(X), data_scale(y))
        assert_rounding_close(ours.predict(X_fresh), theirs.predict(X_fresh), data_scale(y))
        np.testing.assert_array_equal(ours.apply(X_fresh), theirs.apply(X_fresh))


@pytest.mark.parametrize("settings", SETTINGS, ids=SETTING_IDS)
@pytest.mark.parametrize("seed", SEEDS)
def test_regression_tree_is_identical_to_scikit_learn(seed, settings):
    X, X_fresh, _, target, _ = make_data(seed)
    ours = DecisionTreeRegressor(**settings).fit(X, target)
    theirs = SkRegressor(random_state=0, **settings).fit(X, target)
    assert divergences(ours, theirs, X, target, np.ones(len(target)), "squared_error") == []
    assert_identical_trees(ours, theirs, X, X_fresh, target)


@pytest.mark.parametrize("settings", SETTINGS, ids=SETTING_IDS)
@pytest.mark.parametrize("seed", SEEDS)
def test_poisson_regression_tree_matches_scikit_learn(seed, settings):
    # Counts drawn with a log-linear rate: whole numbers, many of them zero.
    X, X_fresh, _, target, _ = make_data(seed)
    counts = np.random.default_rng(seed).poisson(np.exp(0.5 * target)).astype(np.float64)
    ours = DecisionTreeRegressor(criterion="poisson", **settings).fit(X, counts)
    theirs = SkRegressor(criterion="poisson", random_state=0, **settings).fit(X, counts)
    found = divergences(ours, theirs, X, counts, np.ones(len(counts)), "poisson")
    if not found:
        assert_identical_trees(ours, theirs, X, X_fresh, counts)
    assert np.all(ours.predict(X_fresh) > 0)


@pytest.mark.parametrize("settings", SETTINGS, ids=SETTING_IDS)
@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("criterion", ["gini", "entropy"])
def test_weighted_classification_tree_matches_scikit_learn(criterion, seed, settings):
    X, X_fresh, labels, _, weights = make_data(seed)
    ours = DecisionTreeClassifier(criterion=criterion, **settings).fit(X, labels, weights)
    theirs = SkClassifier(criterion=criterion, random_state=0, **settings).fit(
        X, labels, sample_weight=weights)
    found = divergences(ours, theirs, X, labels, weights, criterion)
    if not found:
        assert_identical_trees(ours, theirs, X, X_fresh, labels)
    else:
        # Pure nodes split by scikit-learn change neither prediction.
        assert {kind for kind, _ in found} <= {"pure node split by scikit-learn", "tie"}
        if all(kind != "tie" for kind, _ in found):
            np.testing.assert_array_equal(ours.predict(X), theirs.predict(X))
            np.testing.assert_array_equal(ours.predict(X_fresh), theirs.predict(X_fresh))


@pytest.mark.parametrize("settings", SETTINGS, ids=SETTING_IDS)
@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("criterion", ["gini", "entropy"])
def test_unweighted_classification_tree_matches_scikit_learn_up_to_ties(
        criterion, seed, settings):
    X, X_fresh, labels, _, _ = make_data(seed)
    ours = DecisionTreeClassifier(criterion=criterion, **settings).fit(X, labels)
    theirs = SkClassifier(criterion=criterion, random_state=0, **settings).fit(X, labels)
    found = divergences(ours, theirs, X, labels, np.ones(len(labels)), criterion)
    # Integer counts leave scikit-learn's impurities exact: only ties can differ.
    assert all(kind == "tie" for kind, _ in found)
    if not found:
        assert_identical_trees(ours, theirs, X, X_fresh, labels)
