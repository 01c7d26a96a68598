"""Multiway (ID3 / C4.5-style) trees: ``categorical_split='multiway'`` against
the oracle ``fasttree.reference.c45`` and the textbooks' trees.

Trees are compared node by node: the same split (feature, threshold or one
child per category, where missing values go or how they spread), value and
weight. Where the two choose different splits, the oracle must score the
estimator's split as its own best up to rounding (a tie broken the other
way), and the subtrees below are not compared.
"""

import csv
import pickle
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import sparse
from scipy.stats import beta

from fasttree import DecisionTreeClassifier, export_text, tree_rules
from fasttree.reference import id3_tree
from fasttree.reference.c45 import build_c45_tree, c45_split_scores
from mixed_trees import rows_clear_of
from tolerances import assert_rounding_close

DATA = Path(__file__).parent / "data"


def table(name):
    """A textbook table as read by pandas, its "None" a category, not a gap."""
    return pd.read_csv(DATA / name, keep_default_na=False)


def test_id3_grows_the_textbook_party_tree():
    frame = table("party.csv")
    X, y = frame.drop(columns="activity"), frame["activity"]
    estimator = DecisionTreeClassifier(criterion="entropy", categorical_split="multiway")
    estimator.fit(X, y)
    tree = estimator.tree_
    names = list(X.columns)
    assert names[tree.feature[0]] == "party" and tree.max_depth == 3
    with open(DATA / "party.csv", newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert structure(estimator, 0) == id3_tree(rows, ["deadline", "party", "lazy"], "activity")
    assert (estimator.predict(X) == y).all()
    assert export_text(estimator).startswith("party = No\n|   deadline = Near\n")


def structure(estimator, node):
    """The tree as nested dicts {feature: {category: subtree}}, leaves as classes."""
    tree = estimator.tree_
    children = tree.children(node)
    if children.size == 0:
        return estimator.classes_[tree.majority_class[node]]
    feature = int(tree.feature[node])
    levels = estimator.categories_[int(np.flatnonzero(estimator.is_categorical_)
                                       .tolist().index(feature))]
    codes, _ = tree.branches(node)
    return {estimator.feature_names_in_[feature]: {
        str(levels[child_codes[0]]): structure(estimator, child)
        for child_codes, child in zip(codes, children)}}


@pytest.mark.parametrize("criterion", ["entropy", "gain_ratio"])
def test_the_restaurant_tree_splits_on_patrons_first(criterion):
    frame = table("restaurant.csv")
    X, y = frame.drop(columns="will_wait"), frame["will_wait"]
    estimator = DecisionTreeClassifier(criterion=criterion, categorical_split="multiway")
    estimator.fit(X, y)
    assert X.columns[estimator.tree_.feature[0]] == "pat"
    assert estimator.tree_.children(0).size == 3  # None, Some, Full
    assert (estimator.predict(X) == y).all()


def random_data(seed, n_samples, share_missing):
    rng = np.random.default_rng(seed)
    X = np.column_stack([rng.integers(0, 4, n_samples), rng.integers(0, 3, n_samples),
                         np.round(rng.normal(size=n_samples), 1),
                         rng.normal(size=n_samples)]).astype(np.float64)
    signal = (X[:, 0] == 1) + 0.7 * X[:, 2] + (X[:, 1] == 2) * X[:, 3]
    y = np.digitize(signal + rng.normal(scale=0.5, size=n_samples), [0.0, 1.0])
    X[rng.random(X.shape) < share_missing] = np.nan
    return X.astype(np.float32).astype(np.float64), y


def fitted_pair(X, y, weights, criterion, missing, n_classes=3, **params):
    categorical = [True, True, False, False]
    estimator = DecisionTreeClassifier(criterion=criterion, categorical_split="multiway",
                                       missing=missing, categorical_features=[0, 1], **params)
    estimator.fit(X, y, sample_weight=weights)
    oracle = build_c45_tree(X, y, weights, categorical=categorical, n_classes=n_classes,
                            criterion=criterion, missing=missing,
                            max_depth=params.get("max_depth"))
    return estimator, oracle


def oracle_children(node, X, rows, weights, missing):
    """The rows and weights of each child of an oracle node, as it grows them."""
    positions = [node.child_position(x) for x in X[rows, node.feature]]
    unknown = np.array([position is None for position in positions])
    result = []
    for child in range(len(node.children)):
        takes = np.array([position == child for position in positions])
        if missing == "fractional":
            joins = takes | unknown
            child_weights = np.where(unknown, weights * node.missing_fractions[child],
                                     weights)[joins]
        else:
            joins = takes | (unknown & (node.missing_child == child))
            child_weights = weights[joins]
        result.append((rows[joins], child_weights))
    return result


def split_score(criterion, y, weights, child_of, n_children, missing, missing_child):
    gain, information = c45_split_scores(y, weights, child_of, n_children, 3, missing,
                                         missing_child)
    return gain if criterion == "entropy" else gain / information


def ours_child_of(estimator, node, column):
    tree = estimator.tree_
    if tree.is_multiway[node]:
        codes, _ = tree.branches(node)
        child_of = np.full(column.size, -1)
        for child, child_codes in enumerate(codes):
            child_of[np.isin(column, child_codes)] = child
        return child_of, len(codes)
    return np.where(np.isnan(column), -1, (column > tree.threshold[node]).astype(int)), 2


def assert_same_c45_tree(estimator, oracle, X, y, weights, criterion, missing,
                         tied_nodes=None):
    """Walk both trees; returns the number of ties met, and appends the
    estimator's tied nodes to the list ``tied_nodes`` if one is given."""
    tree = estimator.tree_
    ties = 0
    tied_nodes = [] if tied_nodes is None else tied_nodes
    pending = [(0, 0, np.arange(X.shape[0]), weights)]
    while pending:
        node_id, oracle_id, rows, row_weights = pending.pop()
        node = oracle.nodes[oracle_id]
        assert_rounding_close(tree.weighted_n_node_samples[node_id], node.weight,
                              scale=weights.sum())
        assert_rounding_close(tree.value[node_id, 0], node.value / node.value.sum())
        if node.is_leaf:
            assert tree.children(node_id).size == 0
            continue
        assert tree.children(node_id).size > 0
        same = tree.feature[node_id] == node.feature and (
            tree.is_multiway[node_id] == (node.categories is not None))
        if same and node.categories is None:
            same = np.float32(tree.threshold[node_id]) == node.threshold
        if same and missing == "learn":
            _, missing_child = (tree.branches(node_id) if tree.is_multiway[node_id]
                                else (None, 0 if tree.missing_go_to_left[node_id] else 1))
            same = missing_child == node.missing_child
        if not same:
            column = X[rows, tree.feature[node_id]]
            child_of, n_children = ours_child_of(estimator, node_id, column)
            if missing == "learn":
                missing_child = (tree.branches(node_id)[1] if tree.is_multiway[node_id]
                                 else 0 if tree.missing_go_to_left[node_id] else 1)
            else:
                missing_child = None
            ours = split_score(criterion, y[rows], row_weights, child_of, n_children, missing,
                               missing_child if (child_of < 0).any() else None)
            theirs_of = np.array([-1 if p is None else p for p in
                                  (node.child_position(x) for x in X[rows, node.feature])])
            theirs = split_score(criterion, y[rows], row_weights, theirs_of,
                                 len(node.children), missing,
                                 node.missing_child if (theirs_of < 0).any() else None)
            assert_rounding_close(ours, theirs)
            ties += 1
            tied_nodes.append(node_id)
            continue
        if missing == "fractional":
            assert_rounding_close(tree.branch_fractions(node_id), node.missing_fractions)
        for child, oracle_child, (child_rows, child_weights) in zip(
                tree.children(node_id), node.children,
                oracle_children(node, X, rows, row_weights, missing)):
            pending.append((child, oracle_child, child_rows, child_weights))
    return ties


@given(seed=st.integers(0, 2**32 - 1), share_missing=st.sampled_from([0.0, 0.15]),
       criterion=st.sampled_from(["entropy", "gain_ratio"]),
       missing=st.sampled_from(["learn", "fractional"]))
@settings(max_examples=60, deadline=None)
def test_multiway_trees_are_the_oracles(seed, share_missing, criterion, missing):
    X, y = random_data(seed, 120, share_missing)
    weights = np.random.default_rng(seed).uniform(0.5, 2.0, size=y.size)
    estimator, oracle = fitted_pair(X, y, weights, criterion, missing)
    tied_nodes = []
    if not assert_same_c45_tree(estimator, oracle, X, y, weights, criterion, missing,
                                tied_nodes):
        assert estimator.tree_.node_count == oracle.node_count
    # Where the trees part at a tie (a node of a few rows that two features
    # both split into pure children), fresh rows below it may take different
    # paths; every other row must be predicted alike, and they are most rows.
    fresh, _ = random_data(seed + 1, 200, 0.2)
    fresh[:5, 0] = 7.0  # a code fit never saw: it goes with the missing values
    clear = rows_clear_of(estimator, tied_nodes, fresh)
    assert clear.mean() >= 0.5
    expected = oracle.predict_proba(np.where(fresh == 7.0, np.nan, fresh)[clear])
    assert_rounding_close(estimator.predict_proba(fresh[clear]), expected)


def many_class_data(seed, n_samples, share_missing):
    """Two categorical columns of a dozen levels, the first with gaps (codes
    of the levels left, as the estimator numbers them), and two numeric
    ones; nine classes, which a node holds few of."""
    rng = np.random.default_rng(seed)
    levels = rng.integers(0, 12, (n_samples, 2))
    X = np.column_stack([np.full(n_samples, np.nan),
                         np.unique(levels[:, 1], return_inverse=True)[1],
                         np.round(rng.normal(size=(n_samples, 2)), 1)])
    known = rng.random(n_samples) >= share_missing
    X[known, 0] = np.unique(levels[known, 0], return_inverse=True)[1]
    X[:, 2:][rng.random((n_samples, 2)) < share_missing] = np.nan
    y = np.unique((levels[:, 0] + rng.integers(0, 3, n_samples)) % 9, return_inverse=True)[1]
    return X.astype(np.float32).astype(np.float64), y


@given(seed=st.integers(0, 2**32 - 1), share_missing=st.sampled_from([0.0, 0.15]),
       criterion=st.sampled_from(["entropy", "gain_ratio"]),
       missing=st.sampled_from(["learn", "fractional"]))
@settings(max_examples=30, deadline=None)
def test_multiway_trees_of_many_categories_and_classes_are_the_oracles(seed, share_missing,
                                                                       criterion, missing):
    X, y = many_class_data(seed, 150, share_missing)
    weights = np.random.default_rng(seed).uniform(0.5, 2.0, size=y.size)
    estimator, oracle = fitted_pair(X, y, weights, criterion, missing, n_classes=int(y.max()) + 1,
                                    max_depth=4)
    if assert_same_c45_tree(estimator, oracle, X, y, weights, criterion, missing):
        return
    assert estimator.tree_.node_count == oracle.node_count


def test_fractional_prediction_mixes_the_leaves_by_the_branch_weights():
    X = np.array([[0.0], [0.0], [0.0], [1.0], [np.nan]])
    y = np.array([0, 0, 0, 1, 0])
    estimator = DecisionTreeClassifier(criterion="entropy", categorical_split="multiway",
                                       missing="fractional", categorical_features=[0]).fit(X, y)
    tree = estimator.tree_
    np.testing.assert_allclose(tree.branch_fractions(0), [0.75, 0.25])
    # The missing row went down both branches with weights 3/4 and 1/4.
    assert_rounding_close(tree.weighted_n_node_samples[tree.children(0)], [3.75, 1.25])
    proba = estimator.predict_proba(np.array([[np.nan]]))
    left, right = tree.value[tree.children(0), 0]
    assert_rounding_close(proba[0], 0.75 * left + 0.25 * right)


def test_a_categorical_feature_splits_once_per_path_and_numbers_take_thresholds():
    X, y = random_data(3, 400, 0.0)
    estimator, _ = fitted_pair(X, y, np.ones(y.size), "gain_ratio", "learn")
    tree = estimator.tree_
    for leaf in np.flatnonzero(tree.children_left == -1):
        path = [node for node in range(tree.node_count) if tree.children(node).size
                and leaf in set(descendants(tree, node))]
        multiway = [tree.feature[node] for node in path if tree.is_multiway[node]]
        assert len(multiway) == len(set(multiway))
    assert not tree.is_multiway[tree.feature >= 2].any()


@pytest.mark.parametrize("seed", range(8))
def test_a_feature_draw_counts_only_features_that_can_split_the_node(seed):
    # y = a and b: after the root's split the node needs the other feature;
    # the one already split on (and the constant column) must not use up the
    # single draw, else half the trees would stop short.
    a, b = np.meshgrid([0, 1], [0, 1])
    X = np.column_stack([a.ravel(), b.ravel(), np.zeros(4)]).repeat(5, axis=0)
    y = (X[:, 0] * X[:, 1]).astype(int)
    tree = DecisionTreeClassifier(criterion="entropy", categorical_split="multiway",
                                  categorical_features=[0, 1], max_features=1,
                                  random_state=seed).fit(X, y)
    np.testing.assert_array_equal(tree.predict(X), y)
    assert tree.get_depth() == 2


def test_candidates_stop_after_max_features_features_that_split():
    from fasttree._multiway import CandidateSearch
    from fasttree._features import rank_features

    rng = np.random.default_rng(0)
    X = np.column_stack([rng.integers(0, 3, 60), np.zeros(60), rng.normal(size=60),
                         rng.normal(size=60)]).astype(np.float32)
    y = rng.integers(0, 2, 60).astype(np.int32)
    search = CandidateSearch(rank_features(X), np.array([3, 0, 0, 0], dtype=np.intp), y, 2,
                             False)
    used = np.array([1, 0, 0, 0], dtype=np.int8)
    rows, weights = np.arange(60, dtype=np.intp), np.ones(60)
    order = np.array([0, 1, 3, 2], dtype=np.intp)
    assert {c[0] for c in search.candidates(used, rows, weights, order, 1)} == {3}
    assert {c[0] for c in search.candidates(used, rows, weights, order, 2)} == {2, 3}
    assert {c[0] for c in search.candidates(used, rows, weights, order)} == {2, 3}
    used[0] = 0
    assert {c[0] for c in search.candidates(used, rows, weights, order, 1)} == {0}


def descendants(tree, node):
    pending = list(tree.children(node))
    while pending:
        child = pending.pop()
        yield child
        pending.extend(tree.children(child))


@pytest.mark.parametrize("missing", ["learn", "fractional"])
def test_multiway_trees_apply_pickle_and_read_as_rules(missing):
    X, y = random_data(5, 300, 0.1)
    estimator, _ = fitted_pair(X, y, np.ones(y.size), "gain_ratio", missing)
    fresh, _ = random_data(6, 200, 0.2)
    restored = pickle.loads(pickle.dumps(estimator))
    np.testing.assert_array_equal(restored.predict_proba(fresh), estimator.predict_proba(fresh))
    np.testing.assert_array_equal(restored.apply(fresh), estimator.apply(fresh))
    leaves = estimator.apply(fresh)
    path = estimator.decision_path(fresh).toarray().astype(bool)
    assert path[np.arange(len(leaves)), leaves].all() and path[:, 0].all()
    for rule in tree_rules(estimator):
        np.testing.assert_array_equal(rule.covers(fresh), leaves == rule.leaf, str(rule))
    importances = estimator.feature_importances_
    assert_rounding_close(importances.sum(), 1.0)


@pytest.mark.parametrize("params, message", [
    ({"criterion": "gain_ratio"}, "needs categorical_split='multiway'"),
    ({"missing": "fractional"}, "needs categorical_split='multiway'"),
    ({"categorical_split": "multiway"}, "grows by 'entropy'"),
    ({"categorical_split": "ternary"}, "categorical_split must be"),
    ({"missing": "impute"}, "missing must be"),
    ({"categorical_split": "multiway", "criterion": "entropy", "max_leaf_nodes": 5},
     "max_leaf_nodes=5 is not supported"),
    ({"categorical_split": "multiway", "criterion": "entropy", "ccp_alpha": 0.1},
     "ccp_alpha=0.1 is not supported"),
])
def test_bad_split_options_are_refused_with_a_clear_message(params, message):
    X, y = random_data(0, 50, 0.0)
    with pytest.raises(ValueError, match=message):
        DecisionTreeClassifier(**params).fit(X, y)


def test_pruning_a_multiway_tree_says_it_is_not_supported():
    X, y = random_data(0, 100, 0.0)
    estimator, _ = fitted_pair(X, y, np.ones(y.size), "entropy", "learn")
    with pytest.raises(ValueError, match="multiway"):
        estimator.cost_complexity_pruning_path(X, y)


@pytest.mark.parametrize("missing", ["learn", "fractional"])
def test_multiway_forests_predict_the_mean_of_their_trees_on_any_threads(missing):
    from fasttree import RandomForestClassifier

    frame = pd.read_csv(DATA / "congressional_votes.csv")  # missing votes are empty
    y = frame.pop("Class")
    params = dict(n_estimators=12, max_samples=100, max_depth=5, criterion="gain_ratio",
                  categorical_split="multiway", missing=missing, random_state=0)
    forest = RandomForestClassifier(**params, oob_score=True).fit(frame, y)
    assert all(member.tree_.is_multiway.any() for member in forest.estimators_)
    assert all(member.tree_.fractional == (missing == "fractional")
               for member in forest.estimators_)
    members = np.mean([member.predict_proba(frame) for member in forest.estimators_], axis=0)
    assert_rounding_close(forest.predict_proba(frame), members)
    assert forest.oob_score_ > 0.85
    threaded = RandomForestClassifier(**params, n_jobs=2).fit(frame, y)
    np.testing.assert_array_equal(threaded.predict_proba(frame), forest.predict_proba(frame))
    restored = pickle.loads(pickle.dumps(forest))
    np.testing.assert_array_equal(restored.predict_proba(frame), forest.predict_proba(frame))


def test_a_fractional_forest_votes_by_its_trees_classes_and_refuses_infinity():
    from fasttree import RandomForestClassifier

    X, y = random_data(7, 300, 0.15)
    forest = RandomForestClassifier(n_estimators=5, criterion="gain_ratio", max_depth=4,
                                    categorical_split="multiway", missing="fractional",
                                    categorical_features=[0, 1], voting="hard",
                                    random_state=0).fit(X, y)
    # Rows without missing values reach one leaf per tree, whose class it votes.
    fresh, _ = random_data(8, 200, 0.0)
    votes = np.mean([np.eye(3)[member.predict(fresh)] for member in forest.estimators_],
                    axis=0)
    np.testing.assert_array_equal(forest.vote_fractions(fresh), votes)
    np.testing.assert_array_equal(forest.predict(fresh), votes.argmax(axis=1))
    np.testing.assert_array_equal(forest.predict_proba(sparse.csr_matrix(fresh)),
                                  forest.predict_proba(fresh))
    fresh[3, 2] = np.inf
    with pytest.raises(ValueError, match="infinity"):
        forest.predict(fresh)


def test_bagging_and_adaboost_take_multiway_members():
    from fasttree import AdaBoostClassifier, BaggingClassifier

    frame = pd.read_csv(DATA / "congressional_votes.csv")
    y = frame.pop("Class")
    member = DecisionTreeClassifier(criterion="gain_ratio", categorical_split="multiway",
                                    max_depth=1)
    boosted = AdaBoostClassifier(member, n_estimators=10, random_state=0).fit(frame, y)
    assert all(stump.tree_.is_multiway[0] for stump in boosted.estimators_)
    assert boosted.score(frame, y) > 0.9
    bagged = BaggingClassifier(member.set_params(max_depth=None), n_estimators=5,
                               random_state=0).fit(frame, y)
    assert all(tree.tree_.is_multiway.any() for tree in bagged.estimators_)
    assert bagged.score(frame, y) > 0.9


@pytest.mark.parametrize("missing", ["learn", "fractional"])
def test_pessimistic_pruning_of_a_multiway_tree_collapses_as_c45s_rule_says(missing):
    frame = pd.read_csv(DATA / "congressional_votes.csv")
    y = frame.pop("Class")
    estimator = DecisionTreeClassifier(criterion="gain_ratio", categorical_split="multiway",
                                       missing=missing).fit(frame, y)
    tree = estimator.tree_
    # C4.5's rule, bottom-up over the children lists, written out here.
    weight = tree.weighted_n_node_samples
    errors = np.clip(weight * (1.0 - tree.value[:, 0].max(axis=1)), 0.0, weight)
    estimate = weight * upper_limit(errors, weight, 0.25)
    subtree = estimate.copy()
    collapsed = np.zeros(tree.node_count, dtype=bool)
    for node in range(tree.node_count - 1, -1, -1):
        children = tree.children(node)
        if children.size:
            below = subtree[children].sum()
            collapsed[node] = estimate[node] <= below
            subtree[node] = estimate[node] if collapsed[node] else below
    pruned = estimator.prune_pessimistic()
    kept = [node for node in range(tree.node_count)
            if not any(collapsed[ancestor] for ancestor in ancestors(tree, node))]
    assert pruned.tree_.node_count == len(kept) < tree.node_count
    assert_rounding_close(pruned.tree_.weighted_n_node_samples, weight[kept],
                          scale=weight[0])
    restored = pickle.loads(pickle.dumps(pruned))
    np.testing.assert_array_equal(restored.predict_proba(frame), pruned.predict_proba(frame))
    assert estimator.tree_.node_count == tree.node_count  # the original is untouched


def upper_limit(errors, n, confidence):
    """C4.5's U_CF(E, N), computed apart from fasttree: the p at which E or
    fewer errors in N trials have probability CF, P(X <= E) = 1 - I_p(E + 1,
    N - E) = CF, from scipy's inverse of the regularised incomplete beta."""
    errors, n = np.broadcast_arrays(np.asarray(errors, dtype=np.float64),
                                    np.asarray(n, dtype=np.float64))
    full = errors >= n
    return np.where(full, 1.0, beta.ppf(1.0 - confidence, errors + 1.0,
                                        np.where(full, 1.0, n - errors)))


def test_the_upper_limit_the_pruning_test_expects_is_quinlans():
    # C4.5 (Quinlan 1993, section 4.2): U_25%(0, 6) = 0.206, U_25%(0, 9) =
    # 0.143, U_25%(0, 1) = 0.750, i.e. 1 - 0.25 ** (1 / N) without errors.
    np.testing.assert_allclose(upper_limit([0, 0, 0], [6, 9, 1], 0.25), [0.206, 0.143, 0.750],
                               atol=5e-4)
    # The book's U_25%(1, 16) = 0.157 comes from C4.5's normal approximation;
    # the exact binomial limit is 0.1596: 1 error in 16 trials (or fewer)
    # has probability 0.25 at it.
    p = upper_limit(1, 16, 0.25)
    assert abs(p - 0.1596) < 1e-4
    assert abs((1 - p) ** 16 + 16 * p * (1 - p) ** 15 - 0.25) < 1e-12
    np.testing.assert_array_equal(upper_limit([3.0, 2.5], [3.0, 2.0], 0.25), [1.0, 1.0])


def ancestors(tree, node):
    """The proper ancestors of a node."""
    parent = {child: inner for inner in range(tree.node_count)
              for child in tree.children(inner)}
    while node in parent:
        node = parent[node]
        yield node


def test_reduced_error_pruning_of_a_multiway_tree_never_raises_the_validation_error():
    frame = pd.read_csv(DATA / "congressional_votes.csv")
    y = frame.pop("Class").to_numpy()
    half = len(y) // 2
    estimator = DecisionTreeClassifier(criterion="entropy", categorical_split="multiway")
    estimator.fit(frame[:half], y[:half])
    pruned = estimator.prune_reduced_error(frame[half:], y[half:])
    assert pruned.tree_.node_count < estimator.tree_.node_count
    assert pruned.score(frame[half:], y[half:]) >= estimator.score(frame[half:], y[half:])


def test_a_multiway_tree_draws_one_edge_per_branch_labelled_with_its_categories():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from fasttree import export_graphviz, plot_tree

    frame = table("party.csv")
    estimator = DecisionTreeClassifier(criterion="entropy", categorical_split="multiway")
    estimator.fit(frame.drop(columns="activity"), frame["activity"])
    dot = export_graphviz(estimator)
    edges = [line for line in dot.splitlines() if "->" in line]
    assert len(edges) == estimator.tree_.node_count - 1
    assert '0 -> 1 [label="= No"]' in dot and 'label="= Urgent"' in dot
    figure, axes = plt.subplots()
    boxes = plot_tree(estimator, ax=axes)
    assert len(boxes) == estimator.tree_.node_count
    plt.close(figure)


def test_the_leaf_mixture_of_a_tree_without_fractions_is_its_walk():
    X, y = random_data(8, 300, 0.2)
    for estimator in (DecisionTreeClassifier(categorical_features=[0, 1]).fit(X, y),
                      fitted_pair(X, y, np.ones(y.size), "entropy", "learn")[0]):
        rows, nodes, shares = estimator.tree_.leaf_mixture(X.astype(np.float32))
        np.testing.assert_array_equal(shares, 1.0)
        leaves = np.empty(X.shape[0], dtype=np.intp)
        leaves[rows] = nodes
        np.testing.assert_array_equal(leaves, estimator.apply(X))
