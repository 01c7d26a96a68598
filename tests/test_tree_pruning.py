"""Reduced-error and pessimistic pruning as the trees of fasttree.tree offer
them (prune_reduced_error, prune_pessimistic): against the oracles in
fasttree.reference.pruning, their arguments and the trees they refuse.
The pruning kernels themselves are tested in test_error_pruning.py; pruning
with a loss matrix in test_tree.py."""

import re

import numpy as np
import pytest
import scipy.sparse

from fasttree import DecisionTreeClassifier, DecisionTreeRegressor, RandomForestClassifier
from fasttree._structure import Tree
from fasttree.reference import pessimistic_prune, reduced_error_prune
from test_pruning import as_reference

ESTIMATORS = [DecisionTreeClassifier, DecisionTreeRegressor]


def pruning_data(seed, n_rows):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 8, size=(n_rows, 3)).astype(np.float32)
    return X, (X[:, 0].astype(int) + rng.integers(0, 5, size=n_rows)) % 3


def same_structure(tree, reference):
    return (tree.node_count == reference.node_count
            and np.array_equal(tree.children_left, [n.left for n in reference.nodes])
            and np.array_equal(tree.feature, [n.feature for n in reference.nodes])
            and np.array_equal(tree.threshold, [n.threshold for n in reference.nodes]))


def test_pessimistic_pruning_is_c45s_at_a_25_percent_confidence_by_default():
    X, y = pruning_data(0, 120)
    grown = DecisionTreeClassifier(random_state=0).fit(X, y)
    pruned = grown.prune_pessimistic()
    assert pruned.tree_.node_count < grown.tree_.node_count
    assert same_structure(pruned.tree_, pessimistic_prune(as_reference(grown.tree_), X, y))
    harsher = grown.prune_pessimistic(np.float32(0.01))
    assert same_structure(harsher.tree_,
                          pessimistic_prune(as_reference(grown.tree_), X, y, 0.01))
    assert harsher.tree_.node_count < pruned.tree_.node_count


@pytest.mark.parametrize("confidence_factor", [0.0, 1.0, -0.25, 1.5, 2.0, True, "0.25", None])
def test_a_confidence_factor_outside_zero_to_one_is_refused(confidence_factor):
    X, y = pruning_data(0, 60)
    grown = DecisionTreeClassifier(random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="^" + re.escape(
            f"confidence_factor must be a float in (0, 1); got {confidence_factor!r}") + "$"):
        grown.prune_pessimistic(confidence_factor)
    for inside in (1e-9, 0.999):
        grown.prune_pessimistic(inside)


def test_reduced_error_pruning_weighs_held_out_rows_and_counts_unseen_labels_as_errors():
    X, y = pruning_data(1, 240)
    weight = np.random.default_rng(2).choice([0.25, 1.0, 4.0], size=120)
    grown = DecisionTreeClassifier(random_state=0).fit(X[:120], y[:120])
    labels = np.where(np.arange(120) % 7 == 0, 9, y[120:])  # 9: a label never seen
    pruned = grown.prune_reduced_error(X[120:], labels, sample_weight=weight)
    expected = reduced_error_prune(as_reference(grown.tree_), X[120:],
                                   np.where(labels == 9, -1, labels), weight)
    assert same_structure(pruned.tree_, expected)
    unweighted = reduced_error_prune(as_reference(grown.tree_), X[120:],
                                     np.where(labels == 9, -1, labels), np.ones(120))
    assert not same_structure(pruned.tree_, unweighted)


def tree_without_statistics():
    X, y = pruning_data(3, 60)
    member = RandomForestClassifier(n_estimators=1, random_state=0).fit(X, y).estimators_[0]
    state = member.tree_.plain_state()
    for name in ("leaf_n_node_samples", "leaf_weighted_n_node_samples", "impurity_rule"):
        del state[name]  # as forests pickled before compact trees kept statistics
    member.tree_ = Tree.__new__(Tree)
    member.tree_.__setstate__(state)
    return member, X, y


ONE_OUTPUT = ("reduced-error and pessimistic pruning take one output; a tree of several "
              "outputs can be pruned with ccp_alpha")
NO_STATISTICS = ("this tree belongs to a forest pickled by an older fasttree and keeps no "
                 "inner-node values; prune a tree fitted on its own")


@pytest.mark.parametrize("prune, tree, message", [
    ("pessimistic", "two outputs", ONE_OUTPUT),
    ("reduced_error", "two outputs", ONE_OUTPUT),
    ("pessimistic", "no statistics", NO_STATISTICS),
    ("reduced_error", "no statistics", NO_STATISTICS),
    ("pessimistic", "loss matrix", "pessimistic pruning counts errors, not costs; prune a "
                                   "tree grown with a loss_matrix with prune_reduced_error"),
])
def test_trees_that_cannot_be_pruned_so_are_refused_with_the_reason(prune, tree, message):
    X, y = pruning_data(4, 60)
    if tree == "two outputs":
        tree, y = DecisionTreeClassifier().fit(X, np.c_[y, y]), np.c_[y, y]
    elif tree == "no statistics":
        tree, X, y = tree_without_statistics()
    else:
        tree = DecisionTreeClassifier(loss_matrix=1 - np.eye(3)).fit(X, y)
    with pytest.raises(ValueError, match="^" + re.escape(message) + "$"):
        if prune == "pessimistic":
            tree.prune_pessimistic()
        else:
            tree.prune_reduced_error(X, y)


@pytest.mark.parametrize("estimator_class", ESTIMATORS)
def test_reduced_error_pruning_refuses_wrong_held_out_rows_naming_the_estimator(
        estimator_class):
    X, y = pruning_data(5, 40)
    grown = estimator_class(random_state=0).fit(X, y)
    name = estimator_class.__name__
    bad_X = X.copy()
    bad_X[3, 2] = np.inf
    for args, message in (
            ((bad_X, y), f"{name}: X contains infinity (1 cells, first in column 2); infinite "
                         "values are not supported"),
            ((X, y[:5]), f"{name}: y has 5 entries but X has 40 samples"),
            ((X, y, -np.ones(40)), f"{name}: Negative values in data passed to "
                                   "`sample_weight`: weights must be >= 0, and negative "
                                   "ones are refused")):
        with pytest.raises(ValueError, match="^" + re.escape(message) + "$"):
            grown.prune_reduced_error(*args)
    sparse = scipy.sparse.csr_matrix(X)
    np.testing.assert_array_equal(grown.prune_reduced_error(sparse, y).tree_.children_left,
                                  grown.prune_reduced_error(X, y).tree_.children_left)
