"""How fasttree trees are grown: random_state, max_features, sample and class
weights, pickling (and refusing tampered pickles) and the stopping rules."""

import pickle

import numpy as np
import pytest

from fasttree import (DecisionTreeClassifier, DecisionTreeRegressor, ExtraTreeClassifier,
                      ExtraTreeRegressor, RandomForestClassifier, RandomForestRegressor,
                      _criterion_classification, _splitter)
from synthetic import classification_data, data_for, regression_data, tied_columns
from fasttree._structure import Tree
from tolerances import assert_rounding_close, data_scale

ESTIMATORS = [DecisionTreeClassifier, DecisionTreeRegressor]


def assert_same_tree(first, second, value_scale=None):
    """The same nodes; the same values, or, given the data's scale, values
    equal up to rounding (when they were summed in another order)."""
    a, b = first.tree_, second.tree_
    for name in ("children_left", "children_right", "feature", "threshold"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name))
    if value_scale is None:
        np.testing.assert_array_equal(a.value, b.value)
    else:
        assert_rounding_close(a.value, b.value, value_scale)


# -- random_state and max_features -------------------------------------------------

@pytest.mark.parametrize("random_state", [None, 0, np.int64(3), np.random.default_rng(0),
                                          np.random.RandomState(0)],
                         ids=["None", "int", "np.int64", "Generator", "RandomState"])
def test_random_state_forms_are_accepted(random_state):
    X, y = classification_data()
    tree = DecisionTreeClassifier(max_features=2, random_state=random_state).fit(X, y)
    assert tree.score(X, y) == 1.0


def test_same_seed_gives_the_same_tree_and_different_seeds_can_differ():
    X, y = classification_data(n_features=12)
    trees = [DecisionTreeClassifier(max_features="sqrt", random_state=seed).fit(X, y)
             for seed in (5, 5, 6, 7, 8)]
    assert_same_tree(trees[0], trees[1])
    shapes = {tuple(t.tree_.feature) for t in trees[1:]}
    assert len(shapes) > 1
    for make in (np.random.default_rng, np.random.RandomState):
        first, second = (DecisionTreeClassifier(max_features="sqrt", random_state=make(3))
                         .fit(X, y) for _ in range(2))
        assert_same_tree(first, second)


def test_without_feature_sampling_the_seed_does_not_matter():
    X, y = classification_data(n_features=8)
    first = DecisionTreeClassifier(random_state=0).fit(X, y)
    for seed in (1, 2, 3):
        assert_same_tree(DecisionTreeClassifier(random_state=seed).fit(X, y), first)


@pytest.mark.parametrize("max_features, expected", [
    (7, 7), (0.5, 15), (0.01, 1), (1.0, 30), ("sqrt", 5), ("log2", 4), (None, 30)])
def test_max_features_resolves_to_a_feature_count(max_features, expected):
    X, y = classification_data(n_features=30)
    tree = DecisionTreeClassifier(max_features=max_features, random_state=0).fit(X, y)
    assert tree.max_features_ == expected
    assert tree.score(X, y) == 1.0


# -- sample weights ------------------------------------------------------------------

def test_integer_weights_equal_duplicated_rows_for_the_classifier():
    X, y = classification_data(n_samples=150)
    counts = np.random.default_rng(6).integers(1, 4, size=len(y))
    weighted = DecisionTreeClassifier().fit(X, y, sample_weight=counts)
    repeated = DecisionTreeClassifier().fit(np.repeat(X, counts, axis=0), np.repeat(y, counts))
    assert_same_tree(weighted, repeated)  # class counts are exact: the very same tree
    np.testing.assert_array_equal(weighted.tree_.weighted_n_node_samples,
                                  repeated.tree_.n_node_samples)
    X_new = np.random.default_rng(7).normal(size=(300, X.shape[1]))
    np.testing.assert_array_equal(weighted.predict_proba(X_new), repeated.predict_proba(X_new))


def test_integer_weights_equal_duplicated_rows_for_the_regressor():
    """Repeated rows make the sums round differently, which may swap which of two
    features cutting a small node into the very same halves is chosen (an exact
    tie).  Everything that does not depend on that choice must agree."""
    X, y = regression_data(n_samples=150)
    counts = np.random.default_rng(6).integers(1, 4, size=len(y))
    weighted = DecisionTreeRegressor().fit(X, y, sample_weight=counts)
    repeated = DecisionTreeRegressor().fit(np.repeat(X, counts, axis=0), np.repeat(y, counts))
    assert weighted.tree_.node_count == repeated.tree_.node_count
    assert weighted.tree_.weighted_n_node_samples[0] == repeated.tree_.n_node_samples[0]
    assert_rounding_close(weighted.predict(X), repeated.predict(X), data_scale(y))
    # The same training rows share a leaf in both trees.
    _, ours = np.unique(weighted.apply(X), return_inverse=True)
    _, theirs = np.unique(repeated.apply(X), return_inverse=True)
    pairs = set(zip(ours.tolist(), theirs.tolist()))
    assert len(pairs) == len(set(ours.tolist())) == len(set(theirs.tolist()))
    # Shallow trees have no such ties: the same splits, means equal up to rounding.
    weighted = DecisionTreeRegressor(max_depth=3).fit(X, y, sample_weight=counts)
    repeated = DecisionTreeRegressor(max_depth=3).fit(np.repeat(X, counts, axis=0),
                                                      np.repeat(y, counts))
    for name in ("children_left", "feature", "threshold"):
        np.testing.assert_array_equal(getattr(weighted.tree_, name),
                                      getattr(repeated.tree_, name))
    assert_rounding_close(weighted.tree_.value, repeated.tree_.value, data_scale(y))


@pytest.mark.parametrize("estimator_class", ESTIMATORS)
def test_zero_weights_equal_removed_rows(estimator_class):
    X, y = data_for(estimator_class)
    weights = np.ones(len(y))
    weights[np.random.default_rng(8).random(len(y)) < 0.3] = 0.0
    kept = weights > 0
    with_zeros = estimator_class(min_samples_leaf=3).fit(X, y, sample_weight=weights)
    removed = estimator_class(min_samples_leaf=3).fit(X[kept], y[kept])
    # The regressor centres its target on the weighted mean, which may round
    # differently with the zero-weight rows present.
    assert_same_tree(with_zeros, removed, value_scale=data_scale(y))
    np.testing.assert_array_equal(with_zeros.tree_.n_node_samples, removed.tree_.n_node_samples)


def test_class_weight_equals_the_matching_sample_weights():
    X, y = classification_data(n_classes=3)
    y = np.where(np.arange(len(y)) % 5 == 0, 2, y)  # uneven classes
    by_dict = DecisionTreeClassifier(class_weight={0: 1.0, 2: 4.0}, max_depth=5).fit(X, y)
    explicit = DecisionTreeClassifier(max_depth=5).fit(X, y, np.where(y == 2, 4.0, 1.0))
    assert_same_tree(by_dict, explicit)
    balanced = DecisionTreeClassifier(class_weight="balanced", max_depth=5).fit(X, y)
    counts = np.bincount(y)
    explicit = DecisionTreeClassifier(max_depth=5).fit(X, y, len(y) / (3 * counts[y]))
    assert_same_tree(balanced, explicit)
    base = np.random.default_rng(9).uniform(0.5, 2.0, size=len(y))
    both = DecisionTreeClassifier(class_weight={1: 3.0}, max_depth=5).fit(X, y, base)
    explicit = DecisionTreeClassifier(max_depth=5).fit(X, y, base * np.where(y == 1, 3.0, 1.0))
    assert_same_tree(both, explicit)


# -- pickling ---------------------------------------------------------------------

@pytest.mark.parametrize("estimator_class", ESTIMATORS)
def test_pickle_round_trip_keeps_predictions(estimator_class):
    X, y = data_for(estimator_class)
    if estimator_class is DecisionTreeClassifier:
        y = np.array(["low", "mid", "high"])[y]
    estimator = estimator_class(max_depth=6).fit(X, y)
    loaded = pickle.loads(pickle.dumps(estimator))
    assert_same_tree(loaded, estimator)
    X_new = np.random.default_rng(10).normal(size=(200, X.shape[1]))
    np.testing.assert_array_equal(loaded.predict(X_new), estimator.predict(X_new))
    np.testing.assert_array_equal(loaded.apply(X_new), estimator.apply(X_new))
    if estimator_class is DecisionTreeClassifier:
        np.testing.assert_array_equal(loaded.predict_proba(X_new), estimator.predict_proba(X_new))
    assert loaded.get_params() == estimator.get_params()


class TamperedTree:
    """Pickles as a Tree whose state is ``state``: what an edited file would hold."""

    def __init__(self, state):
        self.state = state

    def __reduce__(self):
        return object.__new__, (Tree,), self.state


def tampered_states():
    X, y = classification_data()
    state = dict(DecisionTreeClassifier(max_depth=3).fit(X, y).tree_.plain_state())
    state["nodes"] = state["nodes"].copy()
    yield "format version", dict(state, format_version=state["format_version"] + 1)
    yield "format version", {key: value for key, value in state.items()
                             if key != "format_version"}
    out_of_range = state["nodes"].copy()
    out_of_range["left_child"][0] = len(out_of_range) + 5
    yield "child index", dict(state, nodes=out_of_range)
    backwards = state["nodes"].copy()
    backwards["right_child"][1] = 0  # a loop back to the root
    yield "child index", dict(state, nodes=backwards)
    wide = np.zeros(len(state["nodes"]), dtype=[("left_child", np.int64),
                                                ("right_child", np.int64),
                                                ("feature", np.int64), ("threshold", np.float64)])
    for name in wide.dtype.names:
        wide[name] = state["nodes"][name]
    yield "layout", dict(state, nodes=wide)
    bad_feature = state["nodes"].copy()
    bad_feature["feature"][0] = 99
    yield "feature", dict(state, nodes=bad_feature)
    yield "node values have the wrong shape", dict(state, value_indptr=state["value_indptr"][:-1])
    yield "flags do not match", dict(state, flags=state["flags"][:-1])
    unknown = state["flags"].copy()
    unknown[0] |= 32
    yield "unknown flags", dict(state, flags=unknown)
    multiway = state["flags"].copy()
    multiway[0] = 3  # a multiway node, but the tree holds no branch table
    yield "branch table", dict(state, flags=multiway)
    leaf_kind = state["flags"].copy()
    leaf_kind[0] = 0
    yield "kind does not match", dict(state, flags=leaf_kind)
    subset = state["flags"].copy()
    subset[0] = 2  # a category set, but the tree holds none
    yield "category set is out of range", dict(state, flags=subset)
    yield "category_bits is not", dict(state, category_bits=np.zeros((2, 2), np.uint32))


@pytest.mark.parametrize("message, state", list(tampered_states()),
                         ids=["version+1", "no-version", "child-out-of-range", "child-loop",
                              "node-dtype", "feature-out-of-range", "value-length",
                              "flags-length", "flags-unknown-bit", "flags-multiway",
                              "flags-leaf-kind",
                              "flags-subset-without-set", "bits-shape"])
def test_a_tampered_tree_state_is_refused_on_load(message, state):
    with pytest.raises(ValueError, match=message):
        Tree.__new__(Tree).__setstate__(state)
    X, y = classification_data()
    estimator = DecisionTreeClassifier(max_depth=3).fit(X, y)
    estimator.tree_ = TamperedTree(state)
    payload = pickle.dumps(estimator)
    with pytest.raises(ValueError, match=message):
        pickle.loads(payload)



@pytest.mark.parametrize("estimator_class", [DecisionTreeClassifier, DecisionTreeRegressor])
def test_a_tree_of_format_version_2_sends_missing_values_to_its_heavier_child(
        estimator_class):
    # Version 2 had no flags: its trees never saw missing values.
    X, y = classification_data(n_samples=400)
    tree = estimator_class(random_state=0).fit(X, y).tree_
    state = {key: value for key, value in tree.plain_state().items()
             if key not in ("flags", "category_bits")}
    old = Tree.__new__(Tree)
    old.__setstate__(dict(state, format_version=2))
    inner = tree.children_left != -1
    heavier_left = (tree.weighted_n_node_samples[tree.children_left[inner]]
                    > tree.weighted_n_node_samples[tree.children_right[inner]])
    np.testing.assert_array_equal(old.missing_go_to_left[inner], heavier_left)
    np.testing.assert_array_equal(old.missing_go_to_left, tree.missing_go_to_left)
    X_new = np.random.default_rng(3).normal(size=(300, X.shape[1]))
    X_new[::3, :] = np.nan
    np.testing.assert_array_equal(old.apply(X_new), tree.apply(X_new))


def test_a_pickled_estimator_whose_width_disagrees_with_its_tree_is_refused():
    """n_features_in_ edited to 1 while the tree splits on feature 3: loading or
    predicting must raise rather than read past the end of 1-value rows."""
    rng = np.random.default_rng(13)
    X = rng.normal(size=(200, 4))
    estimator = DecisionTreeRegressor(max_depth=2).fit(X, X[:, 3])
    assert estimator.tree_.feature[0] == 3
    estimator.n_features_in_ = 1
    with pytest.raises(ValueError):
        pickle.loads(pickle.dumps(estimator)).predict(rng.normal(size=(5, 1)))


# -- stopping rules ----------------------------------------------------------------

def leaf_mask(estimator):
    return estimator.tree_.children_left == -1


@pytest.mark.parametrize("estimator_class", ESTIMATORS)
@pytest.mark.parametrize("max_depth", [1, 2, 5])
def test_max_depth_is_reached_and_never_exceeded(estimator_class, max_depth):
    X, y = data_for(estimator_class)
    estimator = estimator_class(max_depth=max_depth).fit(X, y)
    assert estimator.get_depth() == max_depth
    if max_depth == 1:
        assert estimator.tree_.node_count == 3


@pytest.mark.parametrize("estimator_class", ESTIMATORS)
@pytest.mark.parametrize("min_samples_leaf, smallest", [(1, 1), (7, 7), (0.05, 15)])
def test_every_leaf_keeps_min_samples_leaf(estimator_class, min_samples_leaf, smallest):
    X, y = data_for(estimator_class)
    estimator = estimator_class(min_samples_leaf=min_samples_leaf).fit(X, y)
    counts = estimator.tree_.n_node_samples[leaf_mask(estimator)]
    assert counts.min() >= smallest
    assert counts.min() < 2 * smallest  # the rule binds somewhere, not just holds


@pytest.mark.parametrize("estimator_class", ESTIMATORS)
@pytest.mark.parametrize("min_samples_split", [2, 20, 61])
def test_only_nodes_of_min_samples_split_rows_are_split(estimator_class, min_samples_split):
    X, y = data_for(estimator_class)
    estimator = estimator_class(min_samples_split=min_samples_split).fit(X, y)
    tree = estimator.tree_
    assert tree.n_node_samples[~leaf_mask(estimator)].min() >= min_samples_split
    unsplit_big = leaf_mask(estimator) & (tree.n_node_samples >= min_samples_split)
    assert np.all(tree.impurity[unsplit_big] <= 1e-12)  # only pure nodes stay whole


@pytest.mark.parametrize("estimator_class", ESTIMATORS)
@pytest.mark.parametrize("fraction", [0.01, 0.1, 0.3])
def test_every_leaf_keeps_min_weight_fraction_leaf(estimator_class, fraction):
    X, y = data_for(estimator_class)
    weights = np.random.default_rng(11).uniform(0.1, 5.0, size=len(y))
    estimator = estimator_class(min_weight_fraction_leaf=fraction).fit(X, y, weights)
    leaf_weights = estimator.tree_.weighted_n_node_samples[leaf_mask(estimator)]
    assert leaf_weights.min() >= fraction * weights.sum() * (1 - 1e-12)
    assert estimator.get_n_leaves() > 1


@pytest.mark.parametrize("estimator_class", ESTIMATORS)
def test_min_impurity_decrease_bounds_every_split(estimator_class):
    X, y = data_for(estimator_class)
    full = estimator_class().fit(X, y)
    pruned = estimator_class(min_impurity_decrease=0.01).fit(X, y)
    tree = pruned.tree_
    split = np.flatnonzero(tree.children_left != -1)
    w, imp = tree.weighted_n_node_samples, tree.impurity
    left, right = tree.children_left[split], tree.children_right[split]
    gain = (w[split] * imp[split] - w[left] * imp[left] - w[right] * imp[right]) / w[0]
    assert np.all(gain >= 0.01 - 1e-12)
    assert 1 < pruned.get_n_leaves() < full.get_n_leaves()
    assert estimator_class(min_impurity_decrease=1e6).fit(X, y).tree_.node_count == 1


@pytest.mark.parametrize("estimator_class", ESTIMATORS)
@pytest.mark.parametrize("max_leaf_nodes", [2, 5, 17, 60])
def test_max_leaf_nodes_gives_exactly_that_many_leaves(estimator_class, max_leaf_nodes):
    X, y = data_for(estimator_class)
    estimator = estimator_class(max_leaf_nodes=max_leaf_nodes).fit(X, y)
    assert estimator.get_n_leaves() == max_leaf_nodes
    assert estimator.tree_.node_count == 2 * max_leaf_nodes - 1


def test_max_leaf_nodes_beyond_the_full_tree_grows_the_full_tree():
    X, y = classification_data(n_samples=60)
    full = DecisionTreeClassifier().fit(X, y)
    capped = DecisionTreeClassifier(max_leaf_nodes=10_000).fit(X, y)
    assert capped.get_n_leaves() == full.get_n_leaves()
    np.testing.assert_array_equal(capped.predict(X), full.predict(X))


HUGE = [2**31, 2**63, 10**30]
ALL_TREES = [DecisionTreeClassifier, DecisionTreeRegressor, ExtraTreeClassifier,
             ExtraTreeRegressor]


@pytest.mark.parametrize("estimator_class", ALL_TREES)
@pytest.mark.parametrize("huge", HUGE)
@pytest.mark.parametrize("name, same_as", [
    ("max_depth", None), ("max_leaf_nodes", 10_000), ("min_samples_split", 10_000),
    ("min_samples_leaf", 10_000)])
def test_a_stopping_rule_beyond_any_tree_limits_as_the_largest_reachable_one(
        estimator_class, huge, name, same_as):
    # No tree of 60 rows is 2**31 deep or holds more than 60 rows in a node,
    # so a huge value stops growth exactly where the reachable one does.
    make = classification_data if estimator_class._estimator_type == "classifier" \
        else regression_data
    X, y = make(n_samples=60)
    grown = estimator_class(random_state=0, **{name: huge}).fit(X, y)
    assert_same_tree(grown, estimator_class(random_state=0, **{name: same_as}).fit(X, y))


@pytest.mark.parametrize("estimator_class", ESTIMATORS)
def test_a_pure_target_gives_a_single_leaf(estimator_class):
    X = np.random.default_rng(12).normal(size=(50, 3))
    y = np.full(50, 7)
    estimator = estimator_class().fit(X, y)
    assert estimator.tree_.node_count == 1 and estimator.get_depth() == 0
    assert estimator.get_n_leaves() == 1
    np.testing.assert_array_equal(estimator.predict(X[:5]), np.full(5, 7))


@pytest.mark.parametrize("estimator_class", ESTIMATORS)
def test_a_single_sample_can_be_fitted(estimator_class):
    estimator = estimator_class().fit([[1.5, -2.0]], [3])
    assert estimator.tree_.node_count == 1
    np.testing.assert_array_equal(estimator.predict([[0.0, 0.0], [9.0, 9.0]]), [3, 3])
    assert estimator.tree_.n_node_samples[0] == 1


def test_regression_keeps_precision_with_a_large_target_offset():
    # Sums of squares at 1e6 lose the 1e-3 spread entirely; deviations do not.
    rng = np.random.default_rng(0)
    X = rng.normal(size=(2000, 3)).astype(np.float32)
    signal = 1e-3 * (X[:, 0] > 0) + 1e-5 * rng.normal(size=2000)
    shifted = DecisionTreeRegressor(max_depth=2).fit(X, 1e6 + signal)
    centred = DecisionTreeRegressor(max_depth=2).fit(X, signal)
    assert shifted.tree_.feature[0] == 0
    np.testing.assert_array_equal(shifted.apply(X), centred.apply(X))
    np.testing.assert_allclose(shifted.predict(X) - 1e6, centred.predict(X), atol=1e-9)


# -- the two sweeps ----------------------------------------------------------------

@pytest.mark.parametrize("estimator_class, criterion", [
    (DecisionTreeClassifier, "gini"), (DecisionTreeClassifier, "entropy"),
    (DecisionTreeClassifier, "misclassification"), (DecisionTreeRegressor, "squared_error"),
    (RandomForestClassifier, "gini"), (RandomForestRegressor, "squared_error")])
@pytest.mark.parametrize("levels", [2, 8, 60])
def test_sorted_and_counted_sweeps_grow_the_same_trees(estimator_class, criterion, levels,
                                                       monkeypatch):
    # Whichever way each node's thresholds are swept, the trees are the
    # same, bit for bit, even with fractional weights.
    is_classifier = estimator_class in (DecisionTreeClassifier, RandomForestClassifier)
    X, y = (classification_data(n_samples=900, n_classes=5) if is_classifier
            else regression_data(n_samples=900))
    X = tied_columns(X, levels)
    weights = np.random.default_rng(levels).uniform(0.2, 3.0, size=len(y))
    params = {"criterion": criterion, "random_state": 0}
    if estimator_class in (RandomForestClassifier, RandomForestRegressor):
        params["n_estimators"] = 4
    fitted = []
    for method in (_splitter.SplitMethod.SPLIT_SORT, _splitter.SplitMethod.SPLIT_COUNT,
                   _splitter.SplitMethod.SPLIT_AUTO):
        monkeypatch.setattr(_splitter, "split_method", method)
        fitted.append(estimator_class(**params).fit(X, y, sample_weight=weights))
    trees = [getattr(model, "estimators_", [model]) for model in fitted]
    assert trees[0][0].tree_.node_count > 50
    for other in trees[1:]:
        for first, second in zip(trees[0], other):
            assert_same_tree(first, second)
            for name in ("impurity", "n_node_samples", "weighted_n_node_samples"):
                np.testing.assert_array_equal(getattr(first.tree_, name),
                                              getattr(second.tree_, name))


@pytest.mark.parametrize("estimator_class", [DecisionTreeClassifier, RandomForestClassifier])
@pytest.mark.parametrize("criterion", ["gini", "entropy", "misclassification"])
@pytest.mark.parametrize("weight_kind", ["none", "integer", "large_integer"])
@pytest.mark.parametrize("levels", [2, 8, 60])
def test_whole_weights_take_the_exact_shortcuts_to_the_same_trees(
        estimator_class, criterion, weight_kind, levels, monkeypatch):
    # With whole weights the classifiers add a bin's samples in any order
    # (copies of the bins, packed weight-and-count integers) and take a
    # split's children from the sweep: sums that are exact either way, so
    # every way must grow the same trees, bit for bit.
    X, y = classification_data(n_samples=1200, n_features=6, n_classes=5)
    X = tied_columns(X, levels)
    # Large whole weights sum beyond 2**31: exact, but too large to pack.
    scale = 2.0 ** 30 if weight_kind == "large_integer" else 1.0
    weights = (None if weight_kind == "none"
               else scale * np.random.default_rng(levels).integers(1, 4, size=len(y)))
    params = {"criterion": criterion, "random_state": 0}
    if estimator_class is RandomForestClassifier:
        params["n_estimators"] = 3
    fitted = []
    for method, from_sweeps in [(_splitter.SplitMethod.SPLIT_SORT, False),
                                (_splitter.SplitMethod.SPLIT_COUNT, False),
                                (_splitter.SplitMethod.SPLIT_COUNT, True),
                                (_splitter.SplitMethod.SPLIT_AUTO, True)]:
        monkeypatch.setattr(_splitter, "split_method", method)
        monkeypatch.setattr(_criterion_classification, "children_from_sweeps", from_sweeps)
        fitted.append(estimator_class(**params).fit(X, y, sample_weight=weights))
    trees = [getattr(model, "estimators_", [model]) for model in fitted]
    assert trees[0][0].tree_.node_count > 50
    for other in trees[1:]:
        for first, second in zip(trees[0], other):
            assert_same_tree(first, second)
            if estimator_class is DecisionTreeClassifier:
                for name in ("impurity", "n_node_samples", "weighted_n_node_samples"):
                    np.testing.assert_array_equal(getattr(first.tree_, name),
                                                  getattr(second.tree_, name))
