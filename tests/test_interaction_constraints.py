"""Interaction constraints (``interaction_cst``) on every tree and forest:
trees grown under them against ``fasttree.reference``'s brute force (which
recomputes every node's features from its path), every root-to-leaf path of
fitted trees within one group, the constraints that constrain nothing
growing the unconstrained trees, the refusals, and the parameter saved,
loaded and pickled."""

import inspect
import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from fasttree import (DecisionTreeClassifier, DecisionTreeRegressor, ExtraTreeClassifier,
                      ExtraTreeRegressor, ExtraTreesClassifier, ExtraTreesRegressor,
                      RandomForestClassifier, RandomForestRegressor, load)
from fasttree.reference import bin_matrix
from fasttree.reference.mixed import build_mixed_tree
from fasttree.reference.tree import interaction_groups, splittable_features
from mixed_trees import assert_same_tree as assert_same_mixed_tree
from test_categorical import mixed_data as categorical_data
from test_hist_splitter import assert_the_tree_of_the_codes
from test_hist_splitter import mixed_data as spread_data
from test_tree_oracle import (REGRESSION, compare, encode, random_params, tie_free_data,
                              tie_prone_data)

TREES = (DecisionTreeClassifier, DecisionTreeRegressor, ExtraTreeClassifier,
         ExtraTreeRegressor)
FORESTS = (RandomForestClassifier, RandomForestRegressor, ExtraTreesClassifier,
           ExtraTreesRegressor)
NODE_ARRAYS = ("children_left", "children_right", "feature", "threshold", "value",
               "impurity", "n_node_samples", "weighted_n_node_samples")


# ------------------------------------------------------------------ helpers


def path_feature_sets(tree):
    """Per leaf, the set of features split on from the root down to it."""
    sets = []
    pending = [(0, frozenset())]
    while pending:
        node, used = pending.pop()
        if tree.children_left[node] == -1:
            sets.append(used)
            continue
        used = used | {int(tree.feature[node])}
        pending.append((tree.children_left[node], used))
        pending.append((tree.children_right[node], used))
    return sets


def paths_outside(tree, interaction_cst, n_features):
    """The paths of ``tree`` whose features lie in no one group."""
    groups = interaction_groups(interaction_cst, n_features)
    return [used for used in path_feature_sets(tree)
            if not any(used <= group for group in groups)]


def interacting_data(n_samples=400, n_features=6, seed=0, regression=False):
    """A target made of products of feature pairs: unconstrained trees
    combine features freely along their paths."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n_samples, n_features))
    signal = X[:, 0] * X[:, 1] + X[:, 2] * X[:, 3] + 0.5 * X[:, 4] * X[:, -1]
    signal += 0.2 * rng.normal(size=n_samples)
    return X, signal if regression else np.digitize(signal, [-0.5, 0.5])


def is_regressor(estimator_class):
    return estimator_class._estimator_type == "regressor"


def fitted_trees(model):
    return [member.tree_ for member in model.estimators_] if hasattr(
        model, "estimators_") else [model.tree_]


def assert_same_trees(model, other):
    for tree, other_tree in zip(fitted_trees(model), fitted_trees(other), strict=True):
        for name in NODE_ARRAYS:
            np.testing.assert_array_equal(getattr(tree, name), getattr(other_tree, name),
                                          err_msg=name)


def random_constraint(rng, n_features):
    """'pairwise', 'no_interactions', or groups of random features drawn
    as lists, tuples or sets (some features in several groups, some in
    none, now and then an empty group)."""
    kind = rng.integers(0, 4)
    if kind == 0:
        return "pairwise"
    if kind == 1:
        return "no_interactions"
    groups = []
    for _ in range(int(rng.integers(1, 4))):
        size = int(rng.integers(0 if rng.random() < 0.1 else 1, n_features + 1))
        group = rng.choice(n_features, size=size, replace=False).tolist()
        groups.append([list, tuple, set][int(rng.integers(0, 3))](group))
    return groups


def compare_with_oracle(criterion, seed, tie_prone):
    rng = np.random.default_rng(seed)
    n_rows = int(rng.integers(20, 121))
    n_features = int(rng.integers(2, 6))
    make = tie_prone_data if tie_prone else tie_free_data
    X, y, weights = make(rng, criterion, n_rows, n_features)
    # The signal of tie_free_data lies in the first and last features: other
    # features matter too, or the constraints rarely bite.
    if not tie_prone and n_features > 2:
        X[:, 1] += 0.5 * X[:, 0]
    y = encode(criterion, y)
    scale = float(np.var(y)) if criterion in REGRESSION else 0.5
    params = random_params(rng, n_rows, not tie_prone, scale)
    interaction_cst = random_constraint(rng, n_features)
    estimator, oracle, walk = compare(criterion, X, y, weights, params, rng, tie_prone,
                                      interaction_cst)
    assert not paths_outside(estimator.tree_, interaction_cst, n_features)
    return estimator, oracle, walk


# ------------------------------------------------------- against the oracle


@settings(max_examples=120, deadline=None)
@given(criterion=st.sampled_from(["gini", "entropy", "squared_error", "poisson"]),
       seed=st.integers(0, 2**32 - 1))
def test_constrained_trees_are_the_oracles_on_tie_free_data(criterion, seed):
    estimator, oracle, walk = compare_with_oracle(criterion, seed, tie_prone=False)
    assert (walk.partition_ties, walk.leaf_exemptions) == (0, 0)
    assert estimator.tree_.node_count == oracle.node_count
    assert estimator.get_depth() == oracle.max_depth


@settings(max_examples=80, deadline=None)
@given(criterion=st.sampled_from(["gini", "misclassification", "squared_error"]),
       seed=st.integers(0, 2**32 - 1))
def test_constrained_trees_are_the_oracles_up_to_ties_on_tie_prone_data(criterion, seed):
    compare_with_oracle(criterion, seed, tie_prone=True)


def test_the_oracle_recomputes_a_nodes_features_from_its_whole_path():
    groups = interaction_groups([[0, 1], {1, 2}], 5)
    assert groups == [frozenset({0, 1}), frozenset({1, 2}), frozenset({3, 4})]
    assert splittable_features(groups, set(), 5) == [0, 1, 2, 3, 4]
    assert splittable_features(groups, {1}, 5) == [0, 1, 2]
    assert splittable_features(groups, {1, 2}, 5) == [1, 2]
    assert splittable_features(groups, {0, 2}, 5) == []
    assert splittable_features(None, {0, 2}, 3) == [0, 1, 2]
    assert interaction_groups("pairwise", 3) == [frozenset({0, 1}), frozenset({0, 2}),
                                                 frozenset({1, 2})]
    assert interaction_groups("no_interactions", 2) == [frozenset({0}), frozenset({1})]


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n_classes=st.sampled_from([None, 2, 3]),
       share_missing=st.sampled_from([0.0, 0.2]),
       interaction_cst=st.sampled_from(["no_interactions", "pairwise", [[0, 2]],
                                        [(1, 2), {0}], [[0, 1]]]))
def test_constrained_trees_with_categories_and_missing_values_are_the_oracles(
        seed, n_classes, share_missing, interaction_cst):
    X, y, weights = categorical_data(seed, 150, 5, n_classes, share_missing)
    criterion = "squared_error" if n_classes is None else "gini"
    estimator_class = DecisionTreeRegressor if n_classes is None else DecisionTreeClassifier
    estimator = estimator_class(categorical_features=[0, 1], interaction_cst=interaction_cst,
                                random_state=0).fit(X, y, sample_weight=weights)
    oracle = build_mixed_tree(X, y, weights, categorical=[True, True, False],
                              criterion=criterion, n_classes=n_classes,
                              interaction_cst=interaction_cst)
    if assert_same_mixed_tree(estimator, oracle, X, y, weights, criterion) == 0:
        assert estimator.tree_.node_count == oracle.node_count
    assert not paths_outside(estimator.tree_, interaction_cst, 3)


@pytest.mark.parametrize("regression", [False, True])
@pytest.mark.parametrize("max_leaf_nodes", [None, 12])
@pytest.mark.parametrize("interaction_cst", ["no_interactions", [[0, 1], [1, 2, 3]]])
def test_a_constrained_hist_tree_is_the_constrained_tree_of_the_bin_codes(
        regression, max_leaf_nodes, interaction_cst):
    X, y, weights = spread_data(3, regression=regression)
    estimator_class = DecisionTreeRegressor if regression else DecisionTreeClassifier
    params = dict(random_state=0, max_features=3, max_leaf_nodes=max_leaf_nodes,
                  interaction_cst=interaction_cst)
    hist = estimator_class(splitter="hist", max_bins=16, **params).fit(
        X, y, sample_weight=weights)
    codes, columns = bin_matrix(X, 16)
    of_codes = estimator_class(**params).fit(codes, y, sample_weight=weights)
    assert_the_tree_of_the_codes(hist, of_codes, codes, columns)
    # With a bin per value, the exact tree itself.
    exact = estimator_class(**params).fit(X, y, sample_weight=weights)
    per_value = estimator_class(splitter="hist", max_bins=400, **params).fit(
        X, y, sample_weight=weights)
    assert_same_trees(per_value, exact)
    assert not paths_outside(hist.tree_, interaction_cst, X.shape[1])


# ------------------------------------------------------- paths within groups


CONSTRAINTS = {
    "pairwise": "pairwise",
    "no_interactions": "no_interactions",
    "groups": [[0, 1], (2, 3), {4, 5}],
    "overlapping": [[0, 1, 2], [2, 3]],
    "some-left-out": [[0, 1], [3]],  # 2, 4 and 5 form a group of their own
}


@pytest.mark.parametrize("splitter", ["best", "hist", "random"])
@pytest.mark.parametrize("max_features", [None, 2])
@pytest.mark.parametrize("max_leaf_nodes", [None, 20])
@pytest.mark.parametrize("constraint", list(CONSTRAINTS))
@pytest.mark.parametrize("estimator_class", [DecisionTreeClassifier, DecisionTreeRegressor])
def test_every_path_of_a_constrained_tree_lies_within_one_group(
        estimator_class, constraint, max_leaf_nodes, max_features, splitter):
    X, y = interacting_data(regression=is_regressor(estimator_class))
    params = dict(splitter=splitter, max_features=max_features, max_leaf_nodes=max_leaf_nodes,
                  random_state=1)
    interaction_cst = CONSTRAINTS[constraint]
    free = estimator_class(**params).fit(X, y)
    # The data make unconstrained trees break these groups: the check can fail.
    assert paths_outside(free.tree_, interaction_cst, X.shape[1])
    constrained = estimator_class(interaction_cst=interaction_cst, **params).fit(X, y)
    assert not paths_outside(constrained.tree_, interaction_cst, X.shape[1])
    assert constrained.tree_.node_count > 3


def test_features_no_group_names_form_one_group_of_their_own():
    # Disjoint groups: a tree keeps to its root's group, so trees of
    # several roots are looked at.
    X, y = interacting_data(regression=True)
    forest = ExtraTreesRegressor(n_estimators=12, max_features=1, interaction_cst=[[0, 1]],
                                 random_state=0).fit(X, y)
    paths = [path for tree in fitted_trees(forest) for path in path_feature_sets(tree)]
    assert all(path <= {0, 1} or path <= {2, 3, 4, 5} for path in paths)
    assert any(path == {0, 1} for path in paths)
    assert any(len(path & {2, 3, 4, 5}) == 4 for path in paths)


def test_no_interactions_grows_trees_of_their_roots_feature_alone():
    rng = np.random.default_rng(4)
    X = rng.uniform(-1, 1, size=(500, 3))
    y = np.sin(3 * X[:, 0]) + X[:, 1] ** 2 + 0.05 * rng.normal(size=500)
    tree = DecisionTreeRegressor(interaction_cst="no_interactions", max_depth=6,
                                 random_state=0).fit(X, y)
    root_feature = tree.tree_.feature[0]
    inner = tree.tree_.children_left >= 0
    assert set(tree.tree_.feature[inner]) == {root_feature}
    assert inner.sum() > 20
    shuffled = X.copy()
    for other in {0, 1, 2} - {root_feature}:
        shuffled[:, other] = rng.permutation(shuffled[:, other])
    np.testing.assert_array_equal(tree.predict(shuffled), tree.predict(X))


@pytest.mark.parametrize("forest_class", FORESTS)
@pytest.mark.parametrize("interaction_cst", ["pairwise", [[0, 1], [2, 3], [4, 5]]])
def test_every_tree_of_a_constrained_forest_keeps_the_constraints(forest_class,
                                                                  interaction_cst):
    X, y = interacting_data(regression=is_regressor(forest_class))
    params = dict(n_estimators=6, max_features=3, random_state=0)
    free = forest_class(**params).fit(X, y)
    assert any(paths_outside(tree, interaction_cst, 6) for tree in fitted_trees(free))
    forest = forest_class(interaction_cst=interaction_cst, **params).fit(X, y)
    for tree in fitted_trees(forest):
        assert not paths_outside(tree, interaction_cst, 6)
    assert forest.get_params()["interaction_cst"] == interaction_cst


def test_a_hist_forest_on_two_threads_keeps_the_constraints_and_its_trees():
    X, y = interacting_data()
    params = dict(n_estimators=4, splitter="hist", max_bins=20, random_state=0,
                  interaction_cst=[[0, 1], [2, 3]], max_leaf_nodes=30)
    one = RandomForestClassifier(n_jobs=1, **params).fit(X, y)
    two = RandomForestClassifier(n_jobs=2, **params).fit(X, y)
    assert_same_trees(one, two)
    for tree in fitted_trees(two):
        assert not paths_outside(tree, [[0, 1], [2, 3]], 6)


def test_several_outputs_and_sparse_input_keep_the_constraints():
    X, y = interacting_data(regression=True)
    X[np.abs(X) < 0.6] = 0.0
    targets = np.column_stack([y, X[:, 4] * X[:, 5]])
    interaction_cst = [[0, 1], [2, 3], [4, 5]]
    dense = DecisionTreeRegressor(interaction_cst=interaction_cst, max_features=4,
                                  random_state=0).fit(X, targets)
    sparse = DecisionTreeRegressor(interaction_cst=interaction_cst, max_features=4,
                                   random_state=0).fit(sp.csc_matrix(X), targets)
    assert dense.tree_.n_outputs == 2
    assert not paths_outside(dense.tree_, interaction_cst, 6)
    assert_same_trees(sparse, dense)


def test_categorical_features_and_missing_values_keep_the_constraints():
    X, y, weights = categorical_data(5, 400, 6, 3, 0.15)
    X = np.column_stack([X, np.random.default_rng(0).normal(size=400)])
    tree = DecisionTreeClassifier(categorical_features=[0, 1], interaction_cst=[[0, 3], [1, 2]],
                                  max_leaf_nodes=40, random_state=0).fit(X, y, weights)
    assert tree.tree_.is_categorical.any() and np.isnan(X).any()
    assert not paths_outside(tree.tree_, [[0, 3], [1, 2]], 4)


# ------------------------------------------------- constraints that constrain nothing


@pytest.mark.parametrize("estimator_class", TREES + FORESTS)
@pytest.mark.parametrize("max_leaf_nodes", [None, 15])
def test_one_group_of_every_feature_grows_the_unconstrained_trees(estimator_class,
                                                                  max_leaf_nodes):
    X, y = interacting_data(n_samples=200, regression=is_regressor(estimator_class))
    params = dict(random_state=3, max_features=2, max_leaf_nodes=max_leaf_nodes)
    if estimator_class in FORESTS:
        params["n_estimators"] = 3
    free = estimator_class(**params).fit(X, y)
    assert_same_trees(estimator_class(interaction_cst=None, **params).fit(X, y), free)
    for everything in ([list(range(6))], ([5, 4, 3, 2, 1, 0], [1, 2]), [range(6), []]):
        assert_same_trees(estimator_class(interaction_cst=everything, **params).fit(X, y),
                          free)


@pytest.mark.parametrize("splitter", ["best", "hist", "random"])
def test_an_empty_list_of_groups_puts_every_feature_in_one_group(splitter):
    X, y = interacting_data(n_samples=200)
    params = dict(random_state=3, max_features=3, splitter=splitter)
    assert_same_trees(DecisionTreeClassifier(interaction_cst=[], **params).fit(X, y),
                      DecisionTreeClassifier(**params).fit(X, y))


def test_pairwise_on_two_features_constrains_nothing():
    X, y = interacting_data(n_samples=200)
    X = X[:, :2]
    assert_same_trees(DecisionTreeClassifier(interaction_cst="pairwise").fit(X, y),
                      DecisionTreeClassifier().fit(X, y))


# ------------------------------------------------------------------ refusals


@pytest.mark.parametrize("interaction_cst, message", [
    ("bogus", "interaction_cst must be 'pairwise', 'no_interactions', a list or tuple of "
              "groups of feature indices, or None; got 'bogus'"),
    (3, "interaction_cst must be 'pairwise', 'no_interactions', a list or tuple of groups "
        "of feature indices, or None; got 3"),
    ({0, 1}, "interaction_cst must be 'pairwise', 'no_interactions', a list or tuple of "
             "groups of feature indices, or None; got {0, 1}"),
    (np.array([[0, 1]]), "interaction_cst must be 'pairwise', 'no_interactions', a list or "
                         "tuple of groups of feature indices, or None; got array([[0, 1]])"),
    ([0, 1], "interaction_cst must be a list or tuple of groups, each a list, tuple or set "
             "of feature indices; got the group 0"),
    (["01"], "interaction_cst must be a list or tuple of groups, each a list, tuple or set "
             "of feature indices; got the group '01'"),
    ([{0: 1}], "interaction_cst must be a list or tuple of groups, each a list, tuple or "
               "set of feature indices; got the group {0: 1}"),
    ([[0, 3]], "interaction_cst's feature indices must lie in [0, 2] (X has 3 features); "
               "the group [0, 3] holds 3"),
    ([[1], [-1, 0]], "interaction_cst's feature indices must lie in [0, 2] (X has 3 "
                     "features); the group [-1, 0] holds -1"),
    ([[0, 1.0]], "interaction_cst's groups hold feature indices (int); the group [0, 1.0] "
                 "holds 1.0"),
    ([(True, 2)], "interaction_cst's groups hold feature indices (int); the group "
                  "(True, 2) holds True"),
    ([[0, None]], "interaction_cst's groups hold feature indices (int); the group "
                  "[0, None] holds None"),
])
@pytest.mark.parametrize("estimator_class", [DecisionTreeClassifier, RandomForestRegressor])
def test_a_malformed_interaction_constraint_is_refused_naming_the_fault(
        estimator_class, interaction_cst, message):
    X, y = interacting_data(n_samples=30, regression=True)
    X = X[:, :3]
    estimator = estimator_class(interaction_cst=interaction_cst)
    with pytest.raises(ValueError) as raised:
        estimator.fit(X, y if is_regressor(estimator_class) else y > 0)
    assert str(raised.value) == message


def test_numpy_integers_and_arrays_are_feature_indices_and_groups():
    X, y = interacting_data(n_samples=200)
    groups = [np.array([0, 1]), (np.int64(2), np.int32(3)), range(4, 6)]
    tree = DecisionTreeClassifier(interaction_cst=groups, random_state=0).fit(X, y)
    assert not paths_outside(tree.tree_, [[0, 1], [2, 3], [4, 5]], 6)


@pytest.mark.parametrize("interaction_cst", ["pairwise", [[0, 1]]])
def test_multiway_trees_refuse_interaction_constraints(interaction_cst):
    X = np.column_stack([np.arange(40) % 3, np.arange(40) % 5]).astype(float)
    y = np.arange(40) % 2
    tree = DecisionTreeClassifier(categorical_features=[0, 1], categorical_split="multiway",
                                  criterion="entropy", interaction_cst=interaction_cst)
    with pytest.raises(ValueError, match=r"^interaction_cst constrains binary trees; "
                                         r"multiway \(C4.5\) trees take none$"):
        tree.fit(X, y)
    DecisionTreeClassifier(categorical_features=[0, 1], categorical_split="multiway",
                           criterion="entropy", interaction_cst=None).fit(X, y)


# --------------------------------------------------------- saved and loaded


@pytest.mark.parametrize("interaction_cst", [
    "pairwise", [{0, 1}, {2, 3}], ((0, 1), frozenset({4, 5})), [[3], []]])
@pytest.mark.parametrize("model_class", [ExtraTreeRegressor, RandomForestRegressor])
def test_interaction_constraints_are_saved_loaded_and_pickled_as_given(
        tmp_path, model_class, interaction_cst):
    X, y = interacting_data(n_samples=150, regression=True)
    params = dict(random_state=0, interaction_cst=interaction_cst)
    if model_class is RandomForestRegressor:
        params["n_estimators"] = 3
    model = model_class(**params).fit(X, y)
    model.save(tmp_path / "model.ft")
    for again in (pickle.loads(pickle.dumps(model)), load(tmp_path / "model.ft")):
        assert again.interaction_cst == interaction_cst
        assert type(again.interaction_cst) is type(interaction_cst)
        np.testing.assert_array_equal(again.predict(X), model.predict(X))
        # Refitted, the loaded parameter grows the same trees.
        assert_same_trees(again.fit(X, y), model)


def test_models_saved_before_interaction_cst_existed_load_without_constraints(tmp_path):
    X, y = interacting_data(n_samples=150)
    tree = DecisionTreeClassifier(max_depth=4, random_state=0).fit(X, y)
    forest = ExtraTreesClassifier(n_estimators=3, max_depth=4, random_state=0).fit(X, y)
    for model in (tree, forest):
        del model.__dict__["interaction_cst"]  # as models were saved before it existed
        loaded = pickle.loads(pickle.dumps(model))
        assert loaded.interaction_cst is None
        np.testing.assert_array_equal(loaded.predict(X), model.predict(X))
        model.save(tmp_path / "old.ft")
        assert load(tmp_path / "old.ft").interaction_cst is None


@pytest.mark.parametrize("estimator_class", TREES + FORESTS)
def test_interaction_cst_follows_monotonic_cst_and_defaults_to_none(estimator_class):
    names = list(inspect.signature(estimator_class.__init__).parameters)
    assert estimator_class().interaction_cst is None
    assert names.index("interaction_cst") == names.index("monotonic_cst") + 1
    assert "interaction_cst : {'pairwise', 'no_interactions'}" in estimator_class.__doc__
