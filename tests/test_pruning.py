"""Minimal cost-complexity pruning (``fasttree._pruning``): the kernel against
the recursive oracle in ``fasttree.reference.pruning``, the estimators
against scikit-learn, and the pruned trees' own properties."""

import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fasttree import (BaggingClassifier, DecisionTreeClassifier, DecisionTreeRegressor,
                      RandomForestClassifier, RandomForestRegressor)
from fasttree.reference import cost_complexity_path, cost_complexity_prune
from fasttree.reference.tree import Node, ReferenceTree
from test_sklearn_parity import spread_normal
from tolerances import ROUNDING, assert_rounding_close, rounding_tolerance


def as_reference(tree, classifier=True):
    """A fasttree Tree as a ReferenceTree with the same nodes and statistics."""
    nodes = []
    for node_id in range(tree.node_count):
        nodes.append(Node(
            feature=int(tree.feature[node_id]), threshold=float(tree.threshold[node_id]),
            left=int(tree.children_left[node_id]), right=int(tree.children_right[node_id]),
            impurity=float(tree.impurity[node_id]),
            n_node_samples=int(tree.n_node_samples[node_id]),
            weighted_n_node_samples=float(tree.weighted_n_node_samples[node_id]),
            value=tree.node_values[node_id], depth=0))
    return ReferenceTree(nodes, tree.n_features, tree.n_values if classifier else None, "any")


def merged_path(alphas, risks):
    """The pruning path as a step function: each run of alphas equal up to
    rounding becomes one step, with the risk after its last collapse.

    Collapses of exactly equal alpha may come in another order, or one may
    swallow the other, when two implementations sum risks in another order;
    the step function is the same."""
    steps_alpha, steps_risk = [], []
    for alpha, risk in zip(alphas, risks):
        if steps_alpha and abs(alpha - steps_alpha[-1]) <= (
                ROUNDING * abs(alpha) + rounding_tolerance()):
            steps_risk[-1] = risk
        else:
            steps_alpha.append(alpha)
            steps_risk.append(risk)
    return np.array(steps_alpha), np.array(steps_risk)


def assert_same_path(actual, desired):
    actual_alphas, actual_risks = merged_path(*actual)
    desired_alphas, desired_risks = merged_path(*desired)
    assert_rounding_close(actual_alphas, desired_alphas)
    assert_rounding_close(actual_risks, desired_risks)


def alphas_between_steps(alphas, risks):
    """A complexity parameter inside every step of the path, away from its ends."""
    steps, _ = merged_path(alphas, risks)
    return list((steps[:-1] + steps[1:]) / 2) + [steps[-1] * 2 + 1e-3]


def random_data(seed, regression, n_rows=60, n_features=3):
    rng = np.random.default_rng(seed)
    # Few distinct values make ties between splits and between alphas common.
    X = rng.integers(0, 6, size=(n_rows, n_features)).astype(np.float32)
    if regression:
        y = X[:, 0] * 2.0 - X[:, 1] + rng.normal(scale=1.5, size=n_rows)
    else:
        y = (X[:, 0] + rng.integers(0, 4, size=n_rows) > 4).astype(int) + (X[:, 1] > 3)
    weight = rng.choice([0.5, 1.0, 2.0, 3.0], size=n_rows)
    return X, y, weight


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1),
       criterion=st.sampled_from(["gini", "entropy", "misclassification", "squared_error"]),
       max_leaf_nodes=st.sampled_from([None, 7]), weighted=st.booleans())
def test_pruning_path_matches_the_oracle(seed, criterion, max_leaf_nodes, weighted):
    # With criterion='misclassification' a node's risk is its error rate
    # times its weight share: CART's original cost-complexity measure.
    regression = criterion == "squared_error"
    X, y, weight = random_data(seed, regression)
    estimator = (DecisionTreeRegressor if regression else DecisionTreeClassifier)(
        criterion=criterion, max_leaf_nodes=max_leaf_nodes, random_state=0)
    estimator.fit(X, y, sample_weight=weight if weighted else None)
    alphas, risks, _ = estimator.tree_.cost_complexity_pruning(np.inf)
    assert_same_path((alphas, risks),
                     cost_complexity_path(as_reference(estimator.tree_, not regression)))


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), regression=st.booleans(),
       max_leaf_nodes=st.sampled_from([None, 9]))
def test_pruned_trees_match_the_oracle_inside_every_step_of_the_path(seed, regression,
                                                                     max_leaf_nodes):
    X, y, weight = random_data(seed, regression)
    tree = (DecisionTreeRegressor if regression else DecisionTreeClassifier)(
        max_leaf_nodes=max_leaf_nodes, random_state=0).fit(X, y, sample_weight=weight).tree_
    reference = as_reference(tree)
    for ccp_alpha in alphas_between_steps(*cost_complexity_path(reference)):
        pruned = tree.pruned(tree.cost_complexity_pruning(ccp_alpha)[2])
        expected = cost_complexity_prune(reference, ccp_alpha)
        assert pruned.node_count == expected.node_count
        np.testing.assert_array_equal(pruned.children_left, [n.left for n in expected.nodes])
        np.testing.assert_array_equal(pruned.children_right, [n.right for n in expected.nodes])
        np.testing.assert_array_equal(pruned.feature, [n.feature for n in expected.nodes])
        np.testing.assert_array_equal(pruned.threshold, [n.threshold for n in expected.nodes])
        np.testing.assert_array_equal(pruned.node_values,
                                      np.array([n.value for n in expected.nodes]))
        np.testing.assert_array_equal(pruned.impurity, [n.impurity for n in expected.nodes])


def sklearn_pair(regression, **params):
    from sklearn.tree import DecisionTreeClassifier as SkClassifier
    from sklearn.tree import DecisionTreeRegressor as SkRegressor
    if regression:
        return DecisionTreeRegressor(**params), SkRegressor(**params)
    return DecisionTreeClassifier(**params), SkClassifier(**params)


def continuous_data(regression, seed=0, n_rows=300):
    """Data on which both libraries grow the same tree: float32 values spaced
    out (see test_sklearn_parity) and, for classes, weights that leave no exact
    ties between splits."""
    rng = np.random.default_rng(seed)
    X = spread_normal(rng, n_rows, 4)
    if regression:
        y = X[:, 0] + np.sin(2 * X[:, 1]) + rng.normal(scale=0.3, size=n_rows)
    else:
        y = (X[:, 0] + 0.5 * X[:, 1] + rng.normal(scale=0.7, size=n_rows) > 0).astype(int)
        y += (X[:, 2] > 1).astype(int)
    weight = rng.uniform(0.5, 2.0, size=n_rows)
    return X, y, weight


@pytest.mark.parametrize("regression, weighted", [(False, True), (True, False), (True, True)])
def test_pruning_path_matches_scikit_learn(regression, weighted):
    X, y, weight = continuous_data(regression)
    ours, theirs = sklearn_pair(regression, random_state=0)
    weight = weight if weighted else None
    path = ours.cost_complexity_pruning_path(X, y, sample_weight=weight)
    expected = theirs.cost_complexity_pruning_path(X, y, sample_weight=weight)
    assert set(path) == {"ccp_alphas", "impurities"}
    assert_same_path((path.ccp_alphas, path.impurities),
                     (expected.ccp_alphas, expected.impurities))


@pytest.mark.parametrize("regression", [False, True])
def test_pruned_trees_match_scikit_learn_along_the_path(regression):
    X, y, weight = continuous_data(regression, seed=1)
    path = sklearn_pair(regression)[1].cost_complexity_pruning_path(X, y, sample_weight=weight)
    for ccp_alpha in alphas_between_steps(path.ccp_alphas, path.impurities)[::4]:
        ours, theirs = sklearn_pair(regression, random_state=0, ccp_alpha=ccp_alpha)
        ours.fit(X, y, sample_weight=weight)
        theirs.fit(X, y, sample_weight=weight)
        # A small node can be cut alike by two features, sending its rows the
        # same way or mirrored (a tie each library breaks its own way): the
        # trees are compared by the training rows their leaves hold, which
        # ties leave unchanged, not node by node.
        assert ours.tree_.node_count == theirs.tree_.node_count
        np.testing.assert_array_equal(np.sort(ours.tree_.n_node_samples),
                                      np.sort(theirs.tree_.n_node_samples))
        if regression:
            assert_rounding_close(ours.predict(X), theirs.predict(X), scale=np.abs(y).max())
        else:
            assert_rounding_close(ours.predict_proba(X), theirs.predict_proba(X))


@pytest.mark.parametrize("regression", [False, True])
def test_an_alpha_equal_to_a_step_of_the_path_prunes_that_step(regression):
    # scikit-learn's rule: a subtree whose effective alpha is at most ccp_alpha
    # is pruned, so an alpha equal to a step of the path gives that step's tree.
    X, y, weight = continuous_data(regression, seed=2)
    path = sklearn_pair(regression, random_state=0)[0].cost_complexity_pruning_path(
        X, y, sample_weight=weight)
    alphas = np.unique(path.ccp_alphas[path.ccp_alphas > 0.0])
    assert len(alphas) >= 4
    for ccp_alpha in alphas[::3]:
        tree = sklearn_pair(regression, random_state=0, ccp_alpha=ccp_alpha)[0].fit(
            X, y, sample_weight=weight).tree_
        risk = leaf_risk(tree)
        step = np.searchsorted(path.ccp_alphas, ccp_alpha, side="right") - 1
        assert_rounding_close(risk, path.impurities[step])


def leaf_risk(tree):
    """The tree's leaf impurities weighted by their share of the root's weight."""
    leaves = tree.children_left == -1
    return np.sum(tree.impurity[leaves] * tree.weighted_n_node_samples[leaves]
                  ) / tree.weighted_n_node_samples[0]


def test_a_large_alpha_leaves_the_root_alone_predicting_the_weighted_majority():
    X, y, weight = continuous_data(False)
    tree = DecisionTreeClassifier(ccp_alpha=10.0).fit(X, y, sample_weight=weight)
    assert tree.tree_.node_count == 1 and tree.get_depth() == 0 and tree.get_n_leaves() == 1
    totals = np.bincount(y, weights=weight)
    np.testing.assert_array_equal(tree.predict(X), np.argmax(totals))
    assert_rounding_close(tree.predict_proba(X[:1])[0], totals / totals.sum())


def test_zero_alpha_keeps_the_grown_tree_and_pruning_leaves_the_original_untouched():
    X, y, _ = continuous_data(True)
    grown = DecisionTreeRegressor(random_state=0).fit(X, y).tree_
    same = DecisionTreeRegressor(random_state=0, ccp_alpha=0.0).fit(X, y).tree_
    np.testing.assert_array_equal(grown.nodes, same.nodes)
    before = grown.nodes.copy()
    pruned = grown.pruned(grown.cost_complexity_pruning(0.01)[2])
    np.testing.assert_array_equal(grown.nodes, before)
    assert pruned.node_count < grown.node_count


@pytest.mark.parametrize("regression", [False, True])
def test_larger_alphas_give_nested_subtrees(regression):
    X, y, weight = continuous_data(regression)
    estimator = sklearn_pair(regression, random_state=0)[0]
    path = estimator.cost_complexity_pruning_path(X, y, sample_weight=weight)
    previous = None
    for ccp_alpha in alphas_between_steps(path.ccp_alphas, path.impurities):
        tree = sklearn_pair(regression, random_state=0, ccp_alpha=ccp_alpha)[0].fit(
            X, y, sample_weight=weight).tree_
        # The pruned tree's total leaf risk is the path's at this step.
        risk = leaf_risk(tree)
        step = np.searchsorted(path.ccp_alphas, ccp_alpha, side="right") - 1
        assert_rounding_close(risk, path.impurities[step])
        if previous is not None:
            assert tree.node_count < previous.node_count
            # Every split of the smaller tree is a split of the larger one, at
            # the same place: its nodes are the larger tree's first ones in
            # pre-order, minus dropped subtrees.
            inner = tree.children_left != -1
            assert set(zip(tree.feature[inner], tree.threshold[inner])) <= set(
                zip(previous.feature, previous.threshold))
        previous = tree


def test_pruned_trees_pickle_and_predict_alike():
    X, y, weight = continuous_data(False, n_rows=500)
    tree = DecisionTreeClassifier(random_state=0, ccp_alpha=0.004).fit(X, y, weight)
    copy = pickle.loads(pickle.dumps(tree))
    np.testing.assert_array_equal(copy.predict_proba(X), tree.predict_proba(X))
    np.testing.assert_array_equal(copy.tree_.nodes, tree.tree_.nodes)
    assert tree.get_depth() == copy.tree_.max_depth
    np.testing.assert_array_equal(tree.apply(X), copy.apply(X))
    assert np.isclose(tree.feature_importances_.sum(), 1.0)


@pytest.mark.parametrize("forest_class", [RandomForestClassifier, RandomForestRegressor])
def test_forests_prune_every_tree_alike_on_any_number_of_threads(forest_class):
    X, y, _ = continuous_data(forest_class is RandomForestRegressor, n_rows=400)
    full = forest_class(n_estimators=8, random_state=3).fit(X, y)
    pruned = [forest_class(n_estimators=8, random_state=3, ccp_alpha=0.005,
                           n_jobs=n_jobs).fit(X, y) for n_jobs in (1, 2)]
    for ours, other in zip(pruned[0].estimators_, pruned[1].estimators_):
        np.testing.assert_array_equal(ours.tree_.nodes, other.tree_.nodes)
    assert all(small.tree_.node_count < large.tree_.node_count
               for small, large in zip(pruned[0].estimators_, full.estimators_))
    np.testing.assert_array_equal(pruned[0].predict(X), pruned[1].predict(X))
    assert pruned[0].estimators_[0].ccp_alpha == 0.005


def test_forest_trees_are_the_trees_pruned_on_their_bootstrap_weights():
    X, y, _ = continuous_data(False, n_rows=300)
    forest = RandomForestClassifier(n_estimators=3, max_features=None, random_state=5,
                                    ccp_alpha=0.01).fit(X, y)
    for member, counts in zip(forest.estimators_, forest.estimators_samples_):
        weight = np.bincount(counts, minlength=X.shape[0]).astype(float)
        alone = DecisionTreeClassifier(ccp_alpha=0.01, random_state=0).fit(X, y, weight)
        np.testing.assert_array_equal(member.tree_.nodes, alone.tree_.nodes)


def test_bagging_passes_the_alpha_to_its_trees():
    X, y, _ = continuous_data(False)
    bagging = BaggingClassifier(DecisionTreeClassifier(ccp_alpha=10.0), n_estimators=4,
                                random_state=0).fit(X, y)
    assert all(member.tree_.node_count == 1 for member in bagging.estimators_)


@pytest.mark.parametrize("ccp_alpha", [-0.1, np.nan, np.inf, "0.1", True, None])
@pytest.mark.parametrize("estimator_class", [DecisionTreeClassifier, RandomForestRegressor])
def test_invalid_alphas_are_refused_by_name(estimator_class, ccp_alpha):
    X, y, _ = continuous_data(False, n_rows=40)
    with pytest.raises(ValueError,
                       match=r"'ccp_alpha' parameter must be a float in the range \[0.0, inf\)"):
        estimator_class(ccp_alpha=ccp_alpha).fit(X, y)


def test_a_forests_tree_prunes_as_the_tree_grown_alone_on_its_rows():
    X, y, _ = continuous_data(False, n_rows=100)
    forest = RandomForestClassifier(n_estimators=1, random_state=0).fit(X, y)
    member = forest.estimators_[0]
    counts = np.bincount(forest.estimators_samples_[0], minlength=X.shape[0])
    alone = DecisionTreeClassifier(**member.get_params()).fit(X, y, sample_weight=counts)
    ours = member.tree_.cost_complexity_pruning(np.inf)
    theirs = alone.tree_.cost_complexity_pruning(np.inf)
    assert_rounding_close(ours[0], theirs[0])
    np.testing.assert_array_equal(ours[2], theirs[2])
    pruned = member.tree_.pruned(member.tree_.cost_complexity_pruning(0.01)[2])
    expected = alone.tree_.pruned(alone.tree_.cost_complexity_pruning(0.01)[2])
    np.testing.assert_array_equal(pruned.feature, expected.feature)
    assert_rounding_close(pruned.value, expected.value)


@pytest.mark.parametrize("criterion", ["squared_error", "absolute_error", "poisson"])
def test_the_pruning_path_of_extreme_targets_never_goes_below_zero(criterion):
    # Targets of wildly different magnitudes, and weights: a collapse adds
    # risk, never takes it away, however the sums round.
    rng = np.random.default_rng(1)
    values = [0.0, 1.0, 0.5, 1e-300, 1e17, 3e29, 1e30, 1e150, 3e153]
    if criterion != "poisson":
        values += [-1.0, -1e30]
    for _ in range(300):
        n_rows = int(rng.integers(3, 12))
        X = rng.integers(0, 3, size=(n_rows, 2)).astype(float)
        y = rng.choice(values, size=n_rows)
        if criterion == "poisson" and not y.sum() > 0:
            continue
        weight = rng.choice([1.0, 0.5, 3.0, 1e-5, 1e5], size=n_rows) if rng.random() < 0.5 \
            else None
        path = DecisionTreeRegressor(criterion=criterion).cost_complexity_pruning_path(
            X, y, sample_weight=weight)
        assert (path.ccp_alphas >= 0.0).all(), (y, weight, path)
        assert (path.impurities >= 0.0).all(), (y, weight, path)
        assert (np.diff(path.ccp_alphas) >= 0.0).all(), (y, weight, path)
        assert (np.diff(path.impurities) >= 0.0).all(), (y, weight, path)
