"""Whole trees of the estimators (the _tree.pyx builders) against reference.build_tree.

Both trees are walked together from the root. At every pair of nodes the
training rows reaching them must be the same set, with the same weight, value
and impurity. Where both nodes split:

* same feature and threshold: the walk goes on into both children;
* a different feature or threshold that cuts the training rows into the same
  two children (possibly mirrored: one tree's left child is the other's right
  one), a tie between equivalent splits: the walk goes on into the matching
  children, but fresh rows through that node are not compared, since the two
  thresholds cut the space apart differently;
* a different partition: allowed only if the oracle's improvement of the
  estimator's partition equals the oracle's own best within 1e-9 relative
  (a tie broken the other way by rounding); that subtree is not compared.

A node that is a leaf in one tree and split in the other is allowed only if
its weighted improvement lies within 1e-9 of min_impurity_decrease (a
rounding decision either way). Predictions (class, probabilities, regression
value) must agree on every training and fresh row whose path avoids the
exempted nodes; training rows may pass the same-children ties.

Two regimes. Tie-free data (distinct continuous X, continuous targets and
weights; gini, entropy or squared error) has no near-ties between different
partitions, so there no partition tie or leaf exemption may occur, and
node_count, n_leaves and depth must agree, depth-first and best-first
(max_leaf_nodes). Tie-prone data (few integer values, duplicate rows,
integer or unit weights, misclassification) exercises the exemptions and is
grown depth-first only: under best-first growth one tie broken the other way
changes the improvements that order the whole frontier, so any later node
may legitimately differ. Best-first's own tie rule (the earliest node first)
is checked on a hand-made exact tie instead.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fasttree import DecisionTreeClassifier, DecisionTreeRegressor
from fasttree.reference import CostSensitiveGini, build_tree, impurity
from tolerances import ROUNDING, assert_rounding_close, data_scale, rounding_tolerance

EPS = float(np.finfo(np.float64).eps)
REGRESSION = ("squared_error", "poisson")


# ------------------------------------------------------------------ helpers


def fit_both(criterion, X, y, weights, params, interaction_cst=None):
    """The estimator and the oracle grown on the same data and rules
    (``criterion``: a name, or the oracle's CostSensitiveGini), under the
    same interaction constraints."""
    if isinstance(criterion, CostSensitiveGini):
        estimator = DecisionTreeClassifier(criterion="gini", loss_matrix=criterion.loss_matrix,
                                           random_state=0, **params)
    else:
        estimator_class = (DecisionTreeRegressor if criterion in REGRESSION
                           else DecisionTreeClassifier)
        estimator = estimator_class(criterion=criterion, random_state=0,
                                    interaction_cst=interaction_cst, **params)
    estimator.fit(X, y, sample_weight=weights)
    total = float(weights.sum())  # as the estimator turns the fraction into a weight
    oracle = build_tree(
        X, y, weights, criterion=criterion,
        n_classes=None if criterion in REGRESSION else int(y.max()) + 1,
        max_depth=params["max_depth"], min_samples_split=params["min_samples_split"],
        min_samples_leaf=params["min_samples_leaf"],
        min_weight_leaf=params["min_weight_fraction_leaf"] * total,
        min_impurity_decrease=params["min_impurity_decrease"],
        max_leaf_nodes=params["max_leaf_nodes"], interaction_cst=interaction_cst)
    return estimator, oracle


class Walk:
    """The outcome of walking the estimator's and the oracle's trees together."""

    def __init__(self):
        self.unsafe_for_fresh = set()     # oracle nodes fresh rows may not pass
        self.unsafe_for_training = set()  # oracle nodes training rows may not pass
        self.partition_ties = 0           # different partitions, equal improvement
        self.threshold_ties = 0           # same partition, other feature/threshold
        self.leaf_exemptions = 0          # leaf in one tree, split in the other


def weighted_improvement(criterion, y, weights, rows, goes_left, total):
    node_weight = weights[rows].sum()
    left, right = rows[goes_left], rows[~goes_left]
    improvement = (impurity(criterion, y[rows], weights[rows])
                   - weights[left].sum() / node_weight
                   * impurity(criterion, y[left], weights[left])
                   - weights[right].sum() / node_weight
                   * impurity(criterion, y[right], weights[right]))
    return node_weight / total * improvement


def walk_trees(estimator, oracle, criterion, X, y, weights, params):
    tree = estimator.tree_
    regression = criterion in REGRESSION
    scale = 1.0 + float(np.dot(weights, y**2) / weights.sum()) if regression else 1.0
    tolerance = ROUNDING * scale
    value_tolerance = rounding_tolerance(data_scale(y)) if regression else ROUNDING
    total = float(weights.sum())
    values = tree.value[:, 0, :]
    walk = Walk()
    stack = [(0, 0, np.arange(X.shape[0]))]
    while stack:
        k, o, rows = stack.pop()
        node = oracle.nodes[o]
        assert tree.n_node_samples[k] == node.n_node_samples == rows.shape[0]
        assert tree.weighted_n_node_samples[k] == pytest.approx(weights[rows].sum(), rel=ROUNDING)
        assert abs(tree.impurity[k] - node.impurity) <= tolerance
        np.testing.assert_allclose(values[k], np.atleast_1d(node.value), rtol=0,
                                   atol=value_tolerance)
        kernel_leaf = tree.children_left[k] == -1
        if kernel_leaf and node.is_leaf:
            continue
        if kernel_leaf != node.is_leaf:
            feature = node.feature if kernel_leaf else tree.feature[k]
            threshold = node.threshold if kernel_leaf else tree.threshold[k]
            gain = weighted_improvement(criterion, y, weights, rows,
                                        X[rows, feature] <= threshold, total)
            assert abs(gain + EPS - params["min_impurity_decrease"]) <= tolerance, (
                f"node {k} / {o}: leaf in one tree only, weighted improvement {gain}")
            walk.leaf_exemptions += 1
            walk.unsafe_for_fresh.add(o)
            walk.unsafe_for_training.add(o)
            continue
        kernel_left = X[rows, tree.feature[k]] <= tree.threshold[k]
        oracle_left = X[rows, node.feature] <= node.threshold
        check_leaf_limits(rows, kernel_left, weights, params, total)
        swapped = np.array_equal(kernel_left, ~oracle_left)  # mirror image, same children
        if not (swapped or np.array_equal(kernel_left, oracle_left)):
            kernel_gain = weighted_improvement(criterion, y, weights, rows, kernel_left, total)
            oracle_gain = weighted_improvement(criterion, y, weights, rows, oracle_left, total)
            assert abs(kernel_gain - oracle_gain) <= tolerance * node.weighted_n_node_samples \
                / total, f"node {k} / {o}: a worse split than the oracle's"
            walk.partition_ties += 1
            walk.unsafe_for_fresh.add(o)
            walk.unsafe_for_training.add(o)
            continue
        if (tree.feature[k], tree.threshold[k]) != (node.feature, node.threshold):
            walk.threshold_ties += 1
            walk.unsafe_for_fresh.add(o)
        oracle_children = (node.right, node.left) if swapped else (node.left, node.right)
        stack.append((tree.children_left[k], oracle_children[0], rows[kernel_left]))
        stack.append((tree.children_right[k], oracle_children[1], rows[~kernel_left]))
    return walk


def check_leaf_limits(rows, goes_left, weights, params, total):
    min_leaf = params["min_samples_leaf"]
    min_weight = params["min_weight_fraction_leaf"] * total
    assert goes_left.sum() >= min_leaf and (~goes_left).sum() >= min_leaf
    assert weights[rows[goes_left]].sum() >= min_weight * (1 - ROUNDING)
    assert weights[rows[~goes_left]].sum() >= min_weight * (1 - ROUNDING)


def comparable_rows(oracle, X, unsafe):
    """Rows whose path through the oracle's tree avoids every unsafe node."""
    keep = np.ones(X.shape[0], dtype=bool)
    for row in range(X.shape[0]):
        o = 0
        while True:
            if o in unsafe:
                keep[row] = False
                break
            node = oracle.nodes[o]
            if node.is_leaf:
                break
            o = node.left if X[row, node.feature] <= np.float32(node.threshold) else node.right
    return keep


def check_predictions(estimator, oracle, criterion, X, keep, y):
    if not keep.any():
        return
    X = X[keep]
    expected = oracle.predict_value(X)
    if criterion in REGRESSION:
        assert_rounding_close(estimator.predict(X), expected, data_scale(y))
        return
    assert_rounding_close(estimator.predict_proba(X), expected)
    labels = estimator.predict(X)
    # The first of the most probable classes (of the least expected cost,
    # with a loss matrix); equal values reached by different sums may round
    # apart, so accept any class within rounding.
    if isinstance(criterion, CostSensitiveGini):
        cost = expected @ criterion.loss_matrix
        scale = criterion.loss_matrix.max()
        assert np.all(cost[np.arange(X.shape[0]), labels]
                      <= cost.min(axis=1) + ROUNDING * scale)
        return
    assert np.all(expected[np.arange(X.shape[0]), labels] >= expected.max(axis=1) - ROUNDING)


def fresh_rows(rng, X, tree, n_rows, tie_prone):
    if tie_prone:
        fresh = np.column_stack([rng.choice(np.unique(X[:, f]), size=n_rows)
                                 for f in range(X.shape[1])])
        fresh = fresh + rng.integers(-1, 2, size=fresh.shape)  # also values seen nowhere
    else:
        fresh = rng.normal(size=(n_rows, X.shape[1])) * 1.5
    fresh = fresh.astype(np.float32)
    # Rows sitting exactly on a threshold must go left in both trees.
    internal = np.flatnonzero(tree.children_left != -1)
    for row in range(0, n_rows, 3):
        if internal.size:
            node = rng.choice(internal)
            fresh[row, tree.feature[node]] = np.float32(tree.threshold[node])
    return fresh


def compare(criterion, X, y, weights, params, rng, tie_prone, interaction_cst=None):
    estimator, oracle = fit_both(criterion, X, y, weights, params, interaction_cst)
    walk = walk_trees(estimator, oracle, criterion, X, y, weights, params)
    check_predictions(estimator, oracle, criterion, X,
                      comparable_rows(oracle, X, walk.unsafe_for_training), y)
    fresh = fresh_rows(rng, X, estimator.tree_, 40, tie_prone)
    check_predictions(estimator, oracle, criterion, fresh,
                      comparable_rows(oracle, fresh, walk.unsafe_for_fresh), y)
    return estimator, oracle, walk


# ------------------------------------------------------------- random data


def random_params(rng, n_rows, allow_best_first, impurity_scale):
    params = {
        "max_depth": [None, None, 1, 2, 3, 5][rng.integers(0, 6)],
        "min_samples_split": int(rng.choice([2, 2, 3, 5, 10])),
        "min_samples_leaf": int(rng.choice([1, 1, 1, 2, 3, 5])),
        "min_weight_fraction_leaf": float(rng.choice([0.0, 0.0, rng.uniform(0.0, 0.3)])),
        "min_impurity_decrease": float(rng.choice([0.0, 0.0, rng.uniform(0.0, 0.03)])
                                       * impurity_scale),
        "max_leaf_nodes": None,
    }
    if allow_best_first and rng.random() < 0.4:
        params["max_leaf_nodes"] = int(rng.integers(2, 16))
    return params


def tie_free_data(rng, criterion, n_rows, n_features):
    X = rng.normal(size=(n_rows, n_features)).astype(np.float32)
    noise = rng.uniform(0.1, 1.5)  # from near-separable data to deep noisy trees
    signal = X[:, 0] + 0.7 * np.sin(2.0 * X[:, -1]) + noise * rng.normal(size=n_rows)
    if criterion == "squared_error":
        y = rng.uniform(-10, 10) + 3.0 * signal + noise * rng.normal(size=n_rows)
    elif criterion == "poisson":
        # Positive rates, and some zeros, which Poisson children may not be
        # made of alone.
        y = np.exp(0.8 * signal) * rng.uniform(0.5, 1.5, size=n_rows)
        y[rng.random(n_rows) < 0.2] = 0.0
        y[np.argmax(signal)] += 1.0  # a positive sum
    else:
        n_classes = int(rng.integers(2, 5))
        edges = np.quantile(signal, np.linspace(0, 1, n_classes + 1)[1:-1])
        y = np.searchsorted(edges, signal)
        flip = rng.random(n_rows) < noise / 4
        y[flip] = rng.integers(0, n_classes, size=flip.sum())
    return X, y, rng.uniform(0.5, 2.0, size=n_rows)


def tie_prone_data(rng, criterion, n_rows, n_features):
    distinct = int(rng.integers(2, 6))
    X = rng.integers(0, distinct, size=(n_rows, n_features)).astype(np.float32)
    if rng.random() < 0.5:  # duplicate rows
        X = X[rng.integers(0, max(1, n_rows // 2), size=n_rows)]
    if criterion == "squared_error":
        y = rng.integers(-2, 3, size=n_rows) * 1.5 + (X[:, 0] > 0) * 2.0
    elif criterion == "poisson":
        y = rng.poisson(1.0 + 2.0 * (X[:, 0] > 0), size=n_rows).astype(np.float64)
        y[0] += 1.0  # a positive sum
    else:
        y = (X[:, 0] + rng.integers(0, 2, size=n_rows)) % int(rng.integers(2, 4))
    weights = (np.ones(n_rows) if rng.random() < 0.5
               else rng.integers(1, 4, size=n_rows).astype(np.float64))
    return X, y, weights


def encode(criterion, y):
    if criterion in REGRESSION:
        return y.astype(np.float64)
    return np.unique(y, return_inverse=True)[1].reshape(-1)


def draw_case(rng, criterion, tie_prone, allow_best_first):
    n_rows = int(rng.choice([rng.integers(5, 30), rng.integers(5, 60), rng.integers(5, 121)]))
    n_features = int(rng.integers(1, 6))
    make = tie_prone_data if tie_prone else tie_free_data
    X, y, weights = make(rng, criterion, n_rows, n_features)
    y = encode(criterion, y)
    scale = float(np.var(y)) if criterion in REGRESSION else 0.5
    return X, y, weights, random_params(rng, n_rows, allow_best_first, scale)


# ------------------------------------------------------------------- tests


@settings(max_examples=250, deadline=None)
@given(criterion=st.sampled_from(["gini", "entropy", "squared_error", "poisson"]),
       seed=st.integers(0, 2**32 - 1))
def test_tree_matches_the_oracle_exactly_on_tie_free_data(criterion, seed):
    rng = np.random.default_rng(seed)
    X, y, weights, params = draw_case(rng, criterion, tie_prone=False, allow_best_first=True)
    estimator, oracle, walk = compare(criterion, X, y, weights, params, rng, tie_prone=False)
    assert (walk.partition_ties, walk.leaf_exemptions) == (0, 0)
    assert estimator.tree_.node_count == oracle.node_count
    assert estimator.get_n_leaves() == oracle.n_leaves
    assert estimator.get_depth() == oracle.max_depth


@settings(max_examples=300, deadline=None)
@given(criterion=st.sampled_from(["gini", "entropy", "misclassification", "squared_error",
                                  "poisson"]),
       seed=st.integers(0, 2**32 - 1))
def test_depth_first_tree_matches_the_oracle_up_to_ties_on_tie_prone_data(criterion, seed):
    rng = np.random.default_rng(seed)
    X, y, weights, params = draw_case(rng, criterion, tie_prone=True, allow_best_first=False)
    compare(criterion, X, y, weights, params, rng, tie_prone=True)


@settings(max_examples=150, deadline=None)
@given(criterion=st.sampled_from(["gini", "entropy", "misclassification"]),
       seed=st.integers(0, 2**32 - 1))
def test_unit_weight_trees_match_the_oracle_up_to_ties_on_continuous_data(criterion, seed):
    # Misclassification has many zero-improvement splits even on continuous
    # data, and unit weights make count ties common for every criterion.
    rng = np.random.default_rng(seed)
    X, y, weights, params = draw_case(rng, criterion, tie_prone=False, allow_best_first=False)
    compare(criterion, X, y, np.ones_like(weights), params, rng, tie_prone=False)


@pytest.mark.parametrize("criterion", ["gini", "entropy", "misclassification"])
@pytest.mark.parametrize("max_leaf_nodes", [2, 3, 4, 5])
def test_best_first_breaks_exact_frontier_ties_like_the_oracle(criterion, max_leaf_nodes):
    # The root splits 0 1 0 0 | 2 3 2 2 (x = 0..7); both children then have
    # class counts (3, 1), so their best splits improve equally and the
    # earlier node (the left one) must be expanded first.
    X = np.arange(8, dtype=np.float32).reshape(-1, 1)
    y = np.array([0, 1, 0, 0, 2, 3, 2, 2])
    params = {"max_depth": None, "min_samples_split": 2, "min_samples_leaf": 1,
              "min_weight_fraction_leaf": 0.0, "min_impurity_decrease": 0.0,
              "max_leaf_nodes": max_leaf_nodes}
    estimator, oracle, walk = compare(criterion, X, y, np.ones(8), params,
                                      np.random.default_rng(0), tie_prone=True)
    assert (walk.partition_ties, walk.threshold_ties, walk.leaf_exemptions) == (0, 0, 0)
    assert estimator.tree_.node_count == oracle.node_count
    np.testing.assert_array_equal(estimator.tree_.children_left,
                                  [node.left for node in oracle.nodes])


def test_a_node_with_equal_targets_is_a_leaf():
    # Blocks of equal targets whose mean is no round number. A one-pass
    # variance (E[y^2] - mean^2) leaves ~1e-15 in such nodes, above the
    # builders' purity limit of 2.2e-16, and the regressor then splits them
    # (with that formula it grew 27 nodes here where the oracle has 23).
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 2)).astype(np.float32)
    y = np.r_[np.full(20, 10.3), np.full(20, -3.7)]
    params = {"max_depth": None, "min_samples_split": 2, "min_samples_leaf": 1,
              "min_weight_fraction_leaf": 0.0, "min_impurity_decrease": 0.0,
              "max_leaf_nodes": None}
    estimator, oracle, walk = compare("squared_error", X, y, np.ones(40), params, rng,
                                      tie_prone=False)
    tree = estimator.tree_
    internal = np.flatnonzero(tree.children_left != -1)
    paths = estimator.decision_path(X).toarray().astype(bool)
    for node in internal:
        assert np.ptp(y[paths[:, node]]) > 0, f"node {node} holds equal targets but is split"
    assert walk.leaf_exemptions == 0
    assert tree.node_count == oracle.node_count


@pytest.mark.parametrize("criterion", ["gini", "entropy", "squared_error"])
@pytest.mark.parametrize("max_leaf_nodes", [None, 12])
def test_trees_on_nodes_large_enough_for_the_radix_sort_match_the_oracle(criterion,
                                                                         max_leaf_nodes):
    # The builders sort nodes of 384 samples or more with the radix sort.
    rng = np.random.default_rng(17)
    X, y, weights = tie_free_data(rng, criterion, 700, 3)
    y = encode(criterion, y)
    params = {"max_depth": 4, "min_samples_split": 2, "min_samples_leaf": 5,
              "min_weight_fraction_leaf": 0.0, "min_impurity_decrease": 0.0,
              "max_leaf_nodes": max_leaf_nodes}
    estimator, oracle, walk = compare(criterion, X, y, weights, params, rng, tie_prone=False)
    assert (walk.partition_ties, walk.leaf_exemptions) == (0, 0)
    assert estimator.tree_.node_count == oracle.node_count
    assert estimator.tree_.n_node_samples[0] >= 384


def random_loss(rng, y, free_errors=True):
    """A loss matrix for the classes of y: zero diagonal, costs from 0 to 5
    (from 0.5 without ``free_errors``: a zero cost makes some classes
    interchangeable, and so ties between splits even on continuous data)."""
    n_classes = int(y.max()) + 1
    costs = [0.0, 0.5, 1.0, 2.0, 5.0] if free_errors else [0.5, 1.0, 2.0, 5.0]
    loss = rng.choice(costs, size=(n_classes, n_classes))
    np.fill_diagonal(loss, 0.0)
    return loss


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_cost_sensitive_tree_matches_the_oracle_exactly_on_tie_free_data(seed):
    rng = np.random.default_rng(seed)
    X, y, weights, params = draw_case(rng, "gini", tie_prone=False, allow_best_first=True)
    criterion = CostSensitiveGini(random_loss(rng, y, free_errors=False))
    estimator, oracle, walk = compare(criterion, X, y, weights, params, rng, tie_prone=False)
    assert (walk.partition_ties, walk.leaf_exemptions) == (0, 0)
    assert estimator.tree_.node_count == oracle.node_count


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_cost_sensitive_tree_matches_the_oracle_up_to_ties_on_tie_prone_data(seed):
    rng = np.random.default_rng(seed)
    X, y, weights, params = draw_case(rng, "gini", tie_prone=True, allow_best_first=False)
    compare(CostSensitiveGini(random_loss(rng, y)), X, y, weights, params, rng, tie_prone=True)
