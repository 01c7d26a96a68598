"""The estimator API of fasttree.tree: methods, fitted attributes, tree_ arrays,
input forms, parameters and scikit-learn interplay.

Randomness, max_features, sample weights, pickling and the stopping rules are
in test_tree_fitting.py.
"""

import math
import re

import numpy as np
import pandas as pd
import pytest
import scipy.sparse
from sklearn.base import clone, is_classifier, is_regressor
from sklearn.metrics import accuracy_score, r2_score
from sklearn.model_selection import GridSearchCV, KFold, StratifiedKFold, check_cv
from sklearn.model_selection import cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from fasttree import (AdaBoostRegressor, BaggingRegressor, DecisionTreeClassifier,
                      DecisionTreeRegressor, ExtraTreeRegressor, ExtraTreesRegressor,
                      RandomForestRegressor)
from fasttree.reference.criteria import weighted_median
from synthetic import classification_data, data_for, regression_data
from tolerances import assert_rounding_close, data_scale, rounding_equal

ESTIMATORS = [DecisionTreeClassifier, DecisionTreeRegressor]


def tree_arrays(estimator):
    t = estimator.tree_
    return (t.children_left, t.children_right, t.feature, t.threshold, t.value)


def assert_same_tree(first, second):
    for a, b in zip(tree_arrays(first), tree_arrays(second)):
        np.testing.assert_array_equal(a, b)


def walk_to_leaf(tree, row):
    """The test's own reading of the arrays: x[feature] <= threshold goes left."""
    node, path = 0, [0]
    while tree.children_left[node] != -1:
        go_left = np.float32(row[tree.feature[node]]) <= tree.threshold[node]
        node = tree.children_left[node] if go_left else tree.children_right[node]
        path.append(node)
    return node, path


def node_depths(tree):
    depth = np.zeros(tree.node_count, dtype=int)
    for node in range(tree.node_count):  # children always follow their parent
        if tree.children_left[node] != -1:
            depth[tree.children_left[node]] = depth[tree.children_right[node]] = depth[node] + 1
    return depth


# -- methods -------------------------------------------------------------------

@pytest.mark.parametrize("estimator_class", ESTIMATORS)
def test_fit_returns_the_estimator_itself(estimator_class):
    X, y = data_for(estimator_class)
    estimator = estimator_class(max_depth=3)
    assert estimator.fit(X, y) is estimator


@pytest.mark.parametrize("labels", [
    np.array([3, 7, -1]), np.array(["cat", "dog", "emu"]), np.array([True, False]),
    np.array([10, 2, 5, 40]), np.array(["b", "a", "c"], dtype=object)],
    ids=["int", "str", "bool", "unsorted-int", "object-str"])
def test_predict_returns_the_original_labels(labels):
    X, codes = classification_data(n_classes=3)
    y = labels[codes % len(labels)]
    tree = DecisionTreeClassifier().fit(X, y)
    np.testing.assert_array_equal(tree.classes_, np.sort(np.unique(y)))
    predictions = tree.predict(X)
    np.testing.assert_array_equal(predictions, y)  # distinct rows: a full tree is exact
    assert predictions.dtype == tree.classes_.dtype
    assert set(tree.predict(X + 0.01).tolist()) <= set(labels.tolist())


def test_predict_proba_rows_sum_to_one_with_columns_in_classes_order():
    X, codes = classification_data(n_classes=3)
    y = np.array(["zebra", "ant", "moose"])[codes]
    tree = DecisionTreeClassifier(max_depth=4).fit(X, y)
    proba = tree.predict_proba(X)
    assert proba.shape == (len(y), 3)
    assert_rounding_close(proba.sum(axis=1), 1.0)
    np.testing.assert_array_equal(tree.classes_[np.argmax(proba, axis=1)], tree.predict(X))
    full = DecisionTreeClassifier().fit(X, y)
    column = np.searchsorted(full.classes_, y)
    np.testing.assert_array_equal(full.predict_proba(X)[np.arange(len(y)), column], 1.0)


def test_predict_log_proba_is_the_log_of_predict_proba():
    X, y = classification_data()
    tree = DecisionTreeClassifier(max_depth=3).fit(X, y)
    with np.errstate(divide="ignore"):
        expected = np.log(tree.predict_proba(X))
    np.testing.assert_array_equal(tree.predict_log_proba(X), expected)
    assert np.isneginf(tree.predict_log_proba(X)).any()  # some leaf lacks a class


def test_score_is_accuracy_for_the_classifier_and_r2_for_the_regressor():
    X, y = classification_data()
    weights = np.random.default_rng(1).uniform(0.1, 3.0, size=len(y))
    clf = DecisionTreeClassifier(max_depth=2).fit(X, y)
    assert rounding_equal(clf.score(X, y), accuracy_score(y, clf.predict(X)))
    assert rounding_equal(clf.score(X, y, weights),
                          accuracy_score(y, clf.predict(X), sample_weight=weights))
    X, y = regression_data()
    reg = DecisionTreeRegressor(max_depth=3).fit(X, y)
    assert rounding_equal(reg.score(X, y), r2_score(y, reg.predict(X)))
    assert rounding_equal(reg.score(X, y, weights),
                          r2_score(y, reg.predict(X), sample_weight=weights))


@pytest.mark.parametrize("estimator_class", ESTIMATORS)
def test_apply_and_decision_path_follow_the_tree_arrays(estimator_class):
    X, y = data_for(estimator_class)
    estimator = estimator_class(max_depth=6).fit(X, y)
    tree = estimator.tree_
    X_new = np.vstack([X, np.random.default_rng(5).normal(size=(200, X.shape[1]))])
    leaves = estimator.apply(X_new)
    assert np.all(tree.children_left[leaves] == -1)
    path = estimator.decision_path(X_new)
    assert scipy.sparse.issparse(path) and path.format == "csr"
    assert path.shape == (len(X_new), tree.node_count)
    depth = node_depths(tree)
    np.testing.assert_array_equal(np.asarray(path.sum(axis=1)).ravel(), depth[leaves] + 1)
    for row in range(len(X_new)):
        leaf, walked = walk_to_leaf(tree, X_new[row])
        assert leaves[row] == leaf
        np.testing.assert_array_equal(np.sort(path[row].indices), np.sort(walked))
        assert 0 in path[row].indices and leaf in path[row].indices


@pytest.mark.parametrize("estimator_class", ESTIMATORS)
def test_predicting_many_rows_at_once_equals_predicting_them_in_small_batches(
        estimator_class):
    X, y = data_for(estimator_class)
    estimator = estimator_class(min_samples_leaf=2).fit(X, y)
    X_big = np.random.default_rng(6).normal(size=(50_000, X.shape[1]))  # several threads
    batches = np.array_split(np.arange(len(X_big)), 40)
    for method in ("predict", "apply"):
        whole = getattr(estimator, method)(X_big)
        pieces = np.concatenate([getattr(estimator, method)(X_big[b]) for b in batches])
        np.testing.assert_array_equal(whole, pieces)
    leaves = estimator.apply(X_big)
    for row in range(0, len(X_big), 997):
        assert leaves[row] == walk_to_leaf(estimator.tree_, X_big[row])[0]


@pytest.mark.parametrize("estimator_class", ESTIMATORS)
def test_get_depth_and_get_n_leaves_agree_with_tree_(estimator_class):
    X, y = data_for(estimator_class)
    estimator = estimator_class(min_samples_leaf=5).fit(X, y)
    tree = estimator.tree_
    assert estimator.get_depth() == tree.max_depth == node_depths(tree).max()
    assert estimator.get_n_leaves() == tree.n_leaves == np.sum(tree.children_left == -1)


@pytest.mark.parametrize("estimator_class", ESTIMATORS)
def test_feature_importances_sum_to_one_and_ignore_a_constant_feature(estimator_class):
    X, y = data_for(estimator_class)
    X = np.column_stack([X[:, :2], np.full(len(X), 4.0), X[:, 2:]])
    importances = estimator_class(max_depth=5).fit(X, y).feature_importances_
    assert importances.shape == (X.shape[1],)
    assert rounding_equal(importances.sum(), 1.0)
    assert importances[2] == 0.0 and np.all(importances >= 0.0)



@pytest.mark.parametrize("exponent", [-1074, -1000, -400, 0, 400, 1000])
def test_r2_is_the_same_for_targets_and_predictions_scaled_by_a_power_of_two(exponent):
    # Squares of targets near the float64 limits overflow or underflow (a
    # forest's score on denormal targets raised 'math range error').
    from fasttree._base import r2_score as fasttree_r2

    rng = np.random.default_rng(0)
    y = rng.integers(-4, 5, size=40).astype(np.float64)
    predicted = y + rng.integers(-1, 2, size=40)
    weights = rng.uniform(0.5, 2.0, size=40)
    expected = r2_score(y, predicted, sample_weight=weights)
    scaled = fasttree_r2(np.ldexp(y, exponent), np.ldexp(predicted, exponent), weights)
    assert rounding_equal(scaled, expected)

def test_feature_names_in_come_from_a_dataframe_only():
    X, y = classification_data()
    frame = pd.DataFrame(X, columns=["a", "b", "c", "d", "e"])
    tree = DecisionTreeClassifier(max_depth=3).fit(frame, pd.Series(y))
    assert tree.n_features_in_ == 5
    np.testing.assert_array_equal(tree.feature_names_in_, ["a", "b", "c", "d", "e"])
    np.testing.assert_array_equal(tree.predict(frame), tree.predict(X))
    with pytest.raises(ValueError, match="feature names"):
        tree.predict(frame.rename(columns={"c": "z"}))
    with pytest.raises(ValueError, match="feature names"):
        tree.predict(frame[["b", "a", "c", "d", "e"]])
    tree.fit(X, y)
    assert not hasattr(tree, "feature_names_in_")


def test_pandas_series_targets_are_accepted():
    X, codes = classification_data()
    y = pd.Series(np.array(["no", "yes", "maybe"])[codes], name="answer")
    tree = DecisionTreeClassifier(max_depth=3).fit(pd.DataFrame(X), y)
    np.testing.assert_array_equal(tree.predict(X), DecisionTreeClassifier(max_depth=3).fit(
        X, y.to_numpy()).predict(X))
    X, target = regression_data()
    reg = DecisionTreeRegressor(max_depth=3).fit(X, pd.Series(target))
    assert_same_tree(reg, DecisionTreeRegressor(max_depth=3).fit(X, target))


# -- tree_ arrays ---------------------------------------------------------------

@pytest.mark.parametrize("estimator_class", ESTIMATORS)
def test_tree_arrays_mark_leaves_and_link_children_forward(estimator_class):
    X, y = data_for(estimator_class)
    tree = estimator_class(max_depth=7).fit(X, y).tree_
    n = tree.node_count
    for array in (tree.children_left, tree.children_right, tree.feature, tree.threshold,
                  tree.impurity, tree.n_node_samples, tree.weighted_n_node_samples):
        assert array.shape == (n,)
    leaf = tree.children_left == -1
    np.testing.assert_array_equal(tree.children_right == -1, leaf)
    assert np.all(tree.feature[leaf] == -2)
    assert np.all((tree.feature[~leaf] >= 0) & (tree.feature[~leaf] < X.shape[1]))
    internal = np.flatnonzero(~leaf)
    assert np.all(tree.children_left[internal] > internal)
    children = np.concatenate([tree.children_left[internal], tree.children_right[internal]])
    np.testing.assert_array_equal(np.sort(children), np.arange(1, n))  # a tree, no sharing
    assert tree.n_leaves == n - len(internal) and tree.max_depth == node_depths(tree).max()


def test_classifier_tree_values_are_class_fractions():
    X, y = classification_data(n_classes=3)
    weights = np.random.default_rng(2).uniform(0.5, 2.0, size=len(y))
    clf = DecisionTreeClassifier(max_depth=4).fit(X, y, sample_weight=weights)
    tree = clf.tree_
    assert tree.value.shape == (tree.node_count, 1, 3)
    assert_rounding_close(tree.value.sum(axis=2), 1.0)
    root = np.bincount(y, weights=weights) / weights.sum()
    assert_rounding_close(tree.value[0, 0], root)
    assert rounding_equal(tree.impurity[0], 1.0 - np.sum(root ** 2))
    leaves = clf.apply(X)
    for leaf in np.unique(leaves):
        rows = leaves == leaf
        expected = np.bincount(y[rows], weights=weights[rows], minlength=3) / weights[rows].sum()
        assert_rounding_close(tree.value[leaf, 0], expected)
        assert tree.n_node_samples[leaf] == rows.sum()
        assert rounding_equal(tree.weighted_n_node_samples[leaf], weights[rows].sum())


def test_tree_values_of_many_classes_are_zero_exactly_for_the_classes_a_node_lacks():
    # The builder stores each node's non-zero fractions only (deep nodes
    # hold few of many classes); tree_.value and the leaf rows come from them.
    X, y = classification_data(n_samples=600, n_features=30, n_classes=30)
    clf = DecisionTreeClassifier(random_state=0).fit(X, y)
    tree = clf.tree_
    assert tree.value.shape == (tree.node_count, 1, 30)
    leaves = clf.apply(X)
    for leaf in np.unique(leaves):
        counts = np.bincount(y[leaves == leaf], minlength=30)
        np.testing.assert_array_equal(tree.value[leaf, 0] == 0.0, counts == 0)
        assert_rounding_close(tree.value[leaf, 0], counts / counts.sum())
    indptr, index, data = tree.leaf_value_rows
    is_leaf = tree.children_left == -1
    dense = np.zeros((is_leaf.sum(), 30))
    dense[np.repeat(np.arange(is_leaf.sum()), np.diff(indptr)), index.astype(int)] = data
    np.testing.assert_array_equal(dense, tree.value[is_leaf, 0])
    assert np.all(data != 0.0)


def test_regressor_tree_values_are_leaf_means():
    X, y = regression_data()
    reg = DecisionTreeRegressor(max_depth=4).fit(X, y)
    tree = reg.tree_
    assert tree.value.shape == (tree.node_count, 1, 1)
    scale = data_scale(y)
    assert rounding_equal(tree.value[0, 0, 0], y.mean(), scale)
    assert rounding_equal(tree.impurity[0], y.var(), scale ** 2)
    leaves = reg.apply(X)
    for leaf in np.unique(leaves):
        assert rounding_equal(tree.value[leaf, 0, 0], y[leaves == leaf].mean(), scale)
        assert rounding_equal(tree.impurity[leaf], y[leaves == leaf].var(), scale ** 2)
    np.testing.assert_array_equal(reg.predict(X), tree.value[leaves, 0, 0])


@pytest.mark.parametrize("estimator_class", [DecisionTreeRegressor, RandomForestRegressor])
@pytest.mark.parametrize("y, message", [([-1.0, 1.0, 3.0], "Some value\\(s\\) of y are negative"),
                                        ([0.0, 0.0, 0.0], "Sum of y is not .*positive")])
def test_poisson_refuses_negative_targets_and_a_zero_sum(estimator_class, y, message):
    with pytest.raises(ValueError, match=message):
        estimator_class(criterion="poisson").fit(np.arange(3.0).reshape(-1, 1), y)


@pytest.mark.parametrize("estimator_class", [DecisionTreeRegressor, RandomForestRegressor])
def test_poisson_leaves_never_predict_zero(estimator_class):
    # The first feature separates the zero counts exactly: squared error cuts
    # them off into a leaf predicting 0, Poisson may not.
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 3))
    y = np.where(X[:, 0] < 0, 0.0, rng.poisson(3.0, size=300) + 1.0)
    X_new = rng.normal(size=(300, 3))
    assert DecisionTreeRegressor().fit(X, y).predict(X_new).min() == 0.0
    model = estimator_class(criterion="poisson", random_state=0).fit(X, y)
    assert model.predict(X_new).min() > 0.0


@pytest.mark.parametrize("estimator_class", [DecisionTreeRegressor, RandomForestRegressor])
@pytest.mark.parametrize("stride", [1, 3])
def test_a_leaf_of_equal_whole_number_targets_predicts_that_number_exactly(estimator_class,
                                                                           stride):
    # A node's sums are of its targets minus one of them: zero for equal
    # targets, so that the leaf's value is that target.
    X, y = classification_data(n_samples=300, n_features=4)
    X, y = X[::stride], y[::stride]
    params = {"n_estimators": 3, "bootstrap": False} if estimator_class is not \
        DecisionTreeRegressor else {}
    predicted = estimator_class(random_state=0, **params).fit(X, y).predict(X)
    np.testing.assert_array_equal(predicted, y.astype(np.float64))


@pytest.mark.parametrize("estimator_class", ESTIMATORS)
def test_node_sample_counts_add_up_from_children_to_root(estimator_class):
    X, y = data_for(estimator_class)
    weights = np.random.default_rng(3).uniform(0.0, 2.0, size=len(y))
    weights[::7] = 0.0
    tree = estimator_class(max_depth=6).fit(X, y, sample_weight=weights).tree_
    assert tree.n_node_samples[0] == np.count_nonzero(weights > 0)
    assert rounding_equal(tree.weighted_n_node_samples[0], weights.sum())
    internal = np.flatnonzero(tree.children_left != -1)
    left, right = tree.children_left[internal], tree.children_right[internal]
    np.testing.assert_array_equal(tree.n_node_samples[left] + tree.n_node_samples[right],
                                  tree.n_node_samples[internal])
    assert_rounding_close(tree.weighted_n_node_samples[left]
                          + tree.weighted_n_node_samples[right],
                          tree.weighted_n_node_samples[internal], data_scale(weights))


# -- input forms -----------------------------------------------------------------

@pytest.mark.parametrize("estimator_class", ESTIMATORS)
def test_every_input_form_of_the_same_numbers_grows_the_same_tree(estimator_class):
    rng = np.random.default_rng(4)
    X = rng.integers(0, 6, size=(200, 4))
    y = (X[:, 0] + X[:, 1] * X[:, 2] + rng.integers(0, 3, size=200)) % 4
    reference = estimator_class().fit(X.astype(np.float64), y)
    forms = [np.asfortranarray(X.astype(np.float64)), X.astype(np.float32), X,
             X.astype(np.int32), X.astype(np.uint8), X.tolist(),
             pd.DataFrame(X, columns=["p", "q", "r", "s"])]
    for form in forms:
        assert_same_tree(estimator_class().fit(form, y), reference)
        np.testing.assert_array_equal(reference.predict(form), reference.predict(X))
    booleans = X > 2
    assert_same_tree(estimator_class().fit(booleans, y),
                     estimator_class().fit(booleans.astype(np.float64), y))


# -- parameters and scikit-learn interplay --------------------------------------

@pytest.mark.parametrize("estimator_class", ESTIMATORS)
def test_get_params_and_set_params_round_trip(estimator_class):
    estimator = estimator_class()
    params = estimator.get_params()
    assert params["max_depth"] is None and params["min_samples_split"] == 2
    changed = dict(params, max_depth=4, min_samples_leaf=3, max_features="sqrt",
                   random_state=7)
    assert estimator.set_params(**changed) is estimator
    assert estimator.get_params() == changed
    assert estimator_class(**changed).get_params() == changed
    with pytest.raises(ValueError, match="no_such_parameter"):
        estimator.set_params(no_such_parameter=1)


@pytest.mark.parametrize("estimator_class", ESTIMATORS)
def test_clone_copies_parameters_but_not_the_fit(estimator_class):
    X, y = data_for(estimator_class)
    estimator = estimator_class(max_depth=3, random_state=1).fit(X, y)
    copy = clone(estimator)
    assert copy is not estimator and copy.get_params() == estimator.get_params()
    assert not hasattr(copy, "tree_")
    assert_same_tree(copy.fit(X, y), estimator)


@pytest.mark.parametrize("estimator_class", ESTIMATORS)
def test_works_in_a_pipeline_and_in_cross_val_score(estimator_class):
    X, y = data_for(estimator_class)
    pipeline = make_pipeline(StandardScaler(), estimator_class(max_depth=4))
    scores = cross_val_score(pipeline, X, y, cv=3)
    assert scores.shape == (3,) and np.all(scores > 0.5)
    pipeline.set_params(**{pipeline.steps[-1][0] + "__max_depth": 2})
    assert pipeline.fit(X, y).steps[-1][1].get_depth() <= 2


def test_grid_search_uses_stratified_folds_for_the_classifier():
    X, y = classification_data(n_samples=90, n_classes=3)
    order = np.argsort(y, kind="stable")  # sorted labels: plain KFold would fail badly
    X, y = X[order] + 3.0 * y[order, None], y[order]
    estimator = DecisionTreeClassifier()
    assert is_classifier(estimator) and not is_regressor(estimator)
    assert isinstance(check_cv(3, y, classifier=is_classifier(estimator)), StratifiedKFold)
    search = GridSearchCV(estimator, {"max_depth": [1, 2, 3]}, cv=3).fit(X, y)
    assert search.best_score_ > 0.9
    assert search.best_params_["max_depth"] in (2, 3)


def test_grid_search_works_for_the_regressor():
    X, y = regression_data()
    estimator = DecisionTreeRegressor()
    assert is_regressor(estimator) and not is_classifier(estimator)
    assert isinstance(check_cv(3, y, classifier=is_classifier(estimator)), KFold)
    search = GridSearchCV(estimator, {"max_depth": [1, 4], "min_samples_leaf": [1, 10]},
                          cv=3).fit(X, y)
    assert search.best_params_["max_depth"] == 4
    assert search.best_estimator_.get_depth() == 4


def test_a_unit_loss_matrix_grows_the_gini_tree():
    X, y = classification_data(600, 5, n_classes=3, seed=4)
    unit = np.ones((3, 3)) - np.eye(3)
    plain = DecisionTreeClassifier(random_state=0).fit(X, y)
    costed = DecisionTreeClassifier(random_state=0, loss_matrix=unit).fit(X, y)
    np.testing.assert_array_equal(costed.tree_.nodes, plain.tree_.nodes)
    np.testing.assert_array_equal(costed.predict(X), plain.predict(X))


def test_predictions_are_the_classes_of_least_expected_cost():
    X, y = classification_data(1500, 5, n_classes=3, seed=5)
    # Missing class 1 costs ten times more than any other error.
    loss = np.array([[0.0, 1.0, 1.0], [10.0, 0.0, 10.0], [1.0, 1.0, 0.0]])
    costed = DecisionTreeClassifier(max_depth=4, loss_matrix=loss, random_state=0).fit(X, y)
    plain = DecisionTreeClassifier(max_depth=4, random_state=0).fit(X, y)
    expected_cost = costed.predict_proba(X) @ loss
    np.testing.assert_array_equal(costed.predict(X),
                                  costed.classes_[np.argmin(expected_cost, axis=1)])
    recall = [np.mean(model.predict(X)[y == 1] == 1) for model in (costed, plain)]
    assert recall[0] > recall[1]
    cost = [loss[y, model.predict(X)].mean() for model in (costed, plain)]
    assert cost[0] < cost[1]
    assert costed.loss_matrix_.shape == (3, 3) and plain.loss_matrix_ is None
    pruned = costed.prune_reduced_error(X, y)
    assert loss[y, pruned.predict(X)].sum() <= loss[y, costed.predict(X)].sum()
    with pytest.raises(ValueError, match="counts errors, not costs"):
        costed.prune_pessimistic()


def structure_with_leaves_at(tree, collapsed):
    """children_left, children_right, feature and threshold (inner nodes; -2
    at leaves) of ``tree_`` with the nodes in ``collapsed`` made leaves and
    the nodes renumbered in pre-order, left subtree first."""
    left, right, feature, threshold = [], [], [], []

    def copy(node):
        new_id = len(left)
        for values in (left, right, feature, threshold):
            values.append(-1)
        if tree.children_left[node] == -1 or node in collapsed:
            feature[new_id], threshold[new_id] = -2, -2.0
            return new_id
        feature[new_id] = int(tree.feature[node])
        threshold[new_id] = float(tree.threshold[node])
        left[new_id] = copy(tree.children_left[node])
        right[new_id] = copy(tree.children_right[node])
        return new_id

    copy(0)
    return left, right, feature, threshold


def reduced_error_pruned_nodes(tree, X_train, y_train, X_val, y_val, loss):
    """The nodes reduced-error pruning with a loss matrix collapses, in pure
    Python (y: class indices, unit weights). A node predicts the class of
    least expected cost over its training rows (sum_i count_i * loss[i, j],
    the first on ties); a validation row of class i predicted j costs
    loss[i, j]. Bottom-up, a node becomes a leaf when its validation rows
    cost no more with its prediction than with its subtree's, as pruned
    below (docstring of prune_reduced_error). A label the tree never saw
    (-1) costs the most any class costs for that prediction."""
    n_classes = loss.shape[0]
    collapsed = set()

    def visit(node, train_rows, val_rows):
        counts = [sum(1 for row in train_rows if y_train[row] == k) for k in range(n_classes)]
        costs = [sum(counts[i] * loss[i, j] for i in range(n_classes))
                 for j in range(n_classes)]
        # No tie between the cheapest classes: the kernel's fractions could
        # round one either way.
        assert sorted(costs)[0] < sorted(costs)[1] or not train_rows
        predicted = costs.index(min(costs))
        own = sum(loss[y_val[row], predicted] if y_val[row] >= 0
                  else max(loss[i, predicted] for i in range(n_classes)) for row in val_rows)
        if tree.children_left[node] == -1:
            return own
        feature, threshold = tree.feature[node], tree.threshold[node]
        below = (visit(tree.children_left[node],
                       [row for row in train_rows if X_train[row, feature] <= threshold],
                       [row for row in val_rows if X_val[row, feature] <= threshold])
                 + visit(tree.children_right[node],
                         [row for row in train_rows if X_train[row, feature] > threshold],
                         [row for row in val_rows if X_val[row, feature] > threshold]))
        if own <= below:
            collapsed.add(node)
            return own
        return below

    visit(0, range(len(y_train)), range(len(y_val)))
    return collapsed


@pytest.mark.parametrize("seed, unseen", [(0, False), (1, False), (2, False), (0, True),
                                          (3, True)])
def test_reduced_error_pruning_prices_held_out_rows_with_the_loss_matrix(seed, unseen):
    X, y = classification_data(900, 4, n_classes=3, seed=seed)
    X = X.astype(np.float32)
    # Not symmetric: whole costs, so that every sum is exact and ties of the
    # held-out loss between a node and its subtree are true ties; primes,
    # so that no node has two classes of least expected cost.
    loss = np.array([[0.0, 11.0, 61.0], [47.0, 0.0, 13.0], [29.0, 83.0, 0.0]])
    X_train, y_train, X_val, y_val = X[:450], y[:450], X[450:], y[450:].copy()
    grown = DecisionTreeClassifier(min_samples_leaf=3, loss_matrix=loss,
                                   random_state=0).fit(X_train, y_train)
    if unseen:  # a label the tree never saw, 7, on a fifth of the held-out rows
        y_val[::5] = -1
    pruned = grown.prune_reduced_error(X_val, np.where(y_val == -1, 7, y_val))
    collapsed = reduced_error_pruned_nodes(grown.tree_, X_train, y_train, X_val, y_val, loss)
    left, right, feature, threshold = structure_with_leaves_at(grown.tree_, collapsed)
    assert 1 < len(left) < grown.tree_.node_count
    assert pruned.tree_.node_count == len(left)
    np.testing.assert_array_equal(pruned.tree_.children_left, left)
    np.testing.assert_array_equal(pruned.tree_.children_right, right)
    inner = np.array(left) != -1
    np.testing.assert_array_equal(pruned.tree_.feature[inner], np.array(feature)[inner])
    np.testing.assert_array_equal(pruned.tree_.threshold[inner], np.array(threshold)[inner])
    # Pruned on them, the tree costs no more on the held-out rows.
    priced = np.vstack([loss, loss.max(axis=0)])  # row -1: the unseen label
    assert (priced[y_val, pruned.predict(X_val)].sum()
            <= priced[y_val, grown.predict(X_val)].sum())


@pytest.mark.parametrize("loss_matrix, message", [
    (np.ones((2, 2)), "zero diagonal"),
    ([[0.0, -1.0, 1.0], [1.0, 0.0, 1.0], [1.0, 1.0, 0.0]], "finite costs >= 0"),
    ([[0.0, np.nan, 1.0], [1.0, 0.0, 1.0], [1.0, 1.0, 0.0]], "finite costs >= 0"),
    (np.zeros((2, 3)), r"shape \(3, 3\)"),
    ("costly", "square array of numbers"),
])
def test_bad_loss_matrices_are_refused_by_name(loss_matrix, message):
    X, y = classification_data(60, 3, n_classes=3, seed=6)
    if np.shape(loss_matrix) == (2, 2):
        y = y % 2
    with pytest.raises(ValueError, match=message):
        DecisionTreeClassifier(loss_matrix=loss_matrix).fit(X, y)


def test_a_loss_matrix_needs_the_gini_criterion():
    X, y = classification_data(60, 3, n_classes=2, seed=7)
    with pytest.raises(ValueError, match="needs criterion='gini'"):
        DecisionTreeClassifier(criterion="entropy", loss_matrix=[[0, 1], [1, 0]]).fit(X, y)


@pytest.mark.parametrize("make", [
    lambda criterion: DecisionTreeClassifier(criterion=criterion, random_state=0),
    lambda criterion: DecisionTreeClassifier(criterion=criterion, max_depth=1),
    lambda criterion: DecisionTreeClassifier(criterion=criterion, categorical_split="multiway",
                                             categorical_features=[0]),
])
def test_log_loss_is_scikit_learns_name_for_the_entropy_criterion(make):
    from fasttree import AdaBoostClassifier, RandomForestClassifier

    X, y = classification_data(seed=3)
    X[:, 0] = np.round(X[:, 0])
    assert_same_tree(make("log_loss").fit(X, y), make("entropy").fit(X, y))
    forests = [RandomForestClassifier(n_estimators=3, criterion=criterion, random_state=0)
               .fit(X, y) for criterion in ("log_loss", "entropy")]
    np.testing.assert_array_equal(forests[0].predict_proba(X), forests[1].predict_proba(X))
    boosted = [AdaBoostClassifier(make(criterion), n_estimators=4, random_state=0).fit(X, y)
               for criterion in ("log_loss", "entropy")]
    np.testing.assert_array_equal(boosted[0].predict_proba(X), boosted[1].predict_proba(X))


@pytest.mark.parametrize("estimator_class", ["DecisionTreeRegressor", "RandomForestRegressor"])
def test_friedman_mse_becomes_squared_error_with_a_future_warning(estimator_class):
    import fasttree

    X, y = regression_data(seed=2)
    make = getattr(fasttree, estimator_class)
    with pytest.warns(FutureWarning, match="friedman_mse"):
        renamed = make(criterion="friedman_mse", random_state=0)
    assert renamed.get_params()["criterion"] == "squared_error"
    plain = make(criterion="squared_error", random_state=0)
    np.testing.assert_array_equal(renamed.fit(X, y).predict(X), plain.fit(X, y).predict(X))


def test_tree_n_classes_is_per_output_as_in_scikit_learn():
    X, y = classification_data(n_samples=60, n_classes=3)
    assert DecisionTreeClassifier().fit(X, y).tree_.n_classes.tolist() == [3]
    X, target = regression_data(n_samples=60)
    assert DecisionTreeRegressor().fit(X, target).tree_.n_classes.tolist() == [1]


# -- extreme targets ---------------------------------------------------------------

# Every regression path: each criterion, extra trees, and the ensembles that
# grow trees through fasttree.forest or through DecisionTreeRegressor.fit
# (one member, on every row, so that a leaf's value is the prediction).
REGRESSORS = {
    "squared_error": lambda: DecisionTreeRegressor(),
    "absolute_error": lambda: DecisionTreeRegressor(criterion="absolute_error"),
    "poisson": lambda: DecisionTreeRegressor(criterion="poisson"),
    "extra-tree": lambda: ExtraTreeRegressor(random_state=0),
    "forest": lambda: RandomForestRegressor(n_estimators=1, bootstrap=False, max_features=None,
                                            random_state=0),
    "forest-absolute-error": lambda: RandomForestRegressor(
        n_estimators=1, bootstrap=False, max_features=None, criterion="absolute_error",
        random_state=0),
    "forest-poisson": lambda: RandomForestRegressor(n_estimators=1, bootstrap=False,
                                                    criterion="poisson", random_state=0),
    "extra-trees": lambda: ExtraTreesRegressor(n_estimators=1, random_state=0),
    "bagging": lambda: BaggingRegressor(n_estimators=1, bootstrap=False, random_state=0),
}
# Targets of every magnitude side by side.
MIXED_TARGETS = np.array([1e17, 1.0, 0.3, -2.5, 1e-300, 3e12, -7e-5, 0.1, 1e-3, 5e15])


def mixed_target_data(n_distinct=30, n_outputs=1, positive=False, seed=0):
    """X of n_distinct rows, each twice; y of mixed magnitudes, equal on the
    two copies of a row (so a leaf's rows share their target); fractional
    weights."""
    rng = np.random.default_rng(seed)
    X = np.repeat(rng.permutation(n_distinct).astype(np.float64), 2)[:, None]
    y = np.repeat(rng.choice(MIXED_TARGETS, size=(n_distinct, n_outputs)), 2, axis=0)
    if positive:
        y = np.abs(y)
    weight = rng.uniform(0.1, 3.0, size=2 * n_distinct)
    return X, (y[:, 0] if n_outputs == 1 else y), weight


def leaves_of(model, X):
    """The leaf of each row in the model's (first) tree."""
    if hasattr(model, "tree_"):
        return model.apply(X)
    if hasattr(model, "estimators_features_"):  # bagging
        return model.estimators_[0].apply(X[:, model.estimators_features_[0]])
    return model.apply(X)[:, 0]


@pytest.mark.filterwarnings("ignore:When fitting BaggingRegressor with sample_weight")
@pytest.mark.parametrize("n_outputs", [1, 2])
@pytest.mark.parametrize("name", list(REGRESSORS))
def test_a_pure_leaf_predicts_its_target_exactly_whatever_the_other_targets(name, n_outputs):
    X, y, weight = mixed_target_data(n_outputs=n_outputs, positive="poisson" in name)
    model = REGRESSORS[name]().fit(X, y, sample_weight=weight)
    predicted, leaves = model.predict(X), leaves_of(model, X)
    targets = y.reshape(len(y), -1)
    pure = np.array([(targets[leaves == leaf] == targets[row]).all()
                     for row, leaf in enumerate(leaves)])
    # (The absolute error and the Poisson deviance do not always split
    # small targets apart beside large ones: their leaves may hold several.)
    assert pure.any()
    np.testing.assert_array_equal(predicted[pure], y[pure])


def node_rows(estimator, X):
    """Per node, the training rows it holds (a boolean matrix)."""
    return estimator.decision_path(X).toarray().astype(bool).T


def weighted_mean(values, weights):
    """The weighted mean, summed exactly (but for each product) relative to
    the first value."""
    return values[0] + math.fsum(weights * (values - values[0])) / math.fsum(weights)


@pytest.mark.parametrize("criterion", ["squared_error", "poisson", "absolute_error"])
@pytest.mark.parametrize("n_outputs", [1, 2])
def test_node_values_are_as_precise_as_their_own_rows_whatever_the_other_rows(criterion,
                                                                                n_outputs):
    # Shallow trees, so that nodes hold several targets; each node's value
    # is compared with its rows' weighted mean (or median), computed apart,
    # to the precision of the node's own targets.
    rng = np.random.default_rng(1)
    X = rng.normal(size=(300, 3))
    magnitude = 10.0 ** rng.integers(-3, 18, size=(300, 1))
    y = np.abs(rng.normal(size=(300, n_outputs))) * magnitude
    if criterion != "poisson":
        y *= rng.choice([-1.0, 1.0], size=y.shape)
    y = y[:, 0] if n_outputs == 1 else y
    weight = rng.uniform(0.1, 3.0, size=300)
    tree = DecisionTreeRegressor(criterion=criterion, max_depth=5).fit(X, y, sample_weight=weight)
    values = tree.tree_.value[:, :, 0]
    columns = y.reshape(300, -1)
    for node, rows in enumerate(node_rows(tree, X)):
        for k in range(n_outputs):
            if criterion == "absolute_error":
                expected = weighted_median(columns[rows, k], weight[rows])
            else:
                expected = weighted_mean(columns[rows, k], weight[rows])
            assert abs(values[node, k] - expected) <= 1e-12 * np.abs(columns[rows, k]).max(), (
                node, k, values[node, k], expected)


def test_impurities_are_as_precise_as_their_own_rows_whatever_the_other_rows():
    # Rows near 1e8 with a spread of 1e-3, rows near 1, and rows near 1e15:
    # each node's variance to the precision of its own spread.
    rng = np.random.default_rng(2)
    X = rng.normal(size=(300, 3))
    y = rng.choice([1e8, 1.0, 1e15], size=300) + 1e-3 * rng.normal(size=300)
    weight = rng.uniform(0.1, 3.0, size=300)
    tree = DecisionTreeRegressor(max_depth=6).fit(X, y, sample_weight=weight)
    for node, rows in enumerate(node_rows(tree, X)):
        mean = weighted_mean(y[rows], weight[rows])
        expected = math.fsum(weight[rows] * (y[rows] - mean) ** 2) / math.fsum(weight[rows])
        assert abs(tree.tree_.impurity[node] - expected) <= 1e-9 * expected + 1e-12, (
            node, tree.tree_.impurity[node], expected)


HUGE_TARGETS = {
    # Far beyond 1e154 in magnitude; the squared error needs a spread whose
    # square is a float64.
    "squared_error": 1e160 * (1.0 + np.array([0.0, 0.0, 1e-7, 1e-7, 3e-7, 3e-7])),
    "absolute_error": 1e200 * np.array([1.0, 1.0, 2.0, 2.0, 3.0, 3.0]),
    "poisson": 1e200 * np.array([1.0, 1.0, 2.0, 2.0, 3.0, 3.0]),
}
# Targets of every magnitude up to the largest float64 (no squares: the
# scikit-learn trees overflow on them).
EXTREME_TARGETS = {
    "absolute_error": np.array([1e-300, 1e-300, -3e300, -3e300, 1.7e308, 1.7e308]),
    # (Poisson sums targets: their sum overflows; and takes a child whose sum
    # is within the rounding of the node's for empty, so none is tiny.)
    "poisson": np.array([1e306, 1e306, 3e307, 3e307, 1.7e308, 1.7e308]),
}
HUGE_TARGET_REGRESSORS = {
    "tree": lambda criterion: DecisionTreeRegressor(criterion=criterion),
    "extra-tree": lambda criterion: ExtraTreeRegressor(criterion=criterion, random_state=0),
    "forest": lambda criterion: RandomForestRegressor(n_estimators=3, criterion=criterion,
                                                      random_state=0),
    "extra-trees": lambda criterion: ExtraTreesRegressor(n_estimators=3, criterion=criterion,
                                                         random_state=0),
    "bagging": lambda criterion: BaggingRegressor(DecisionTreeRegressor(criterion=criterion),
                                                  n_estimators=3, random_state=0),
    "adaboost": lambda criterion: AdaBoostRegressor(DecisionTreeRegressor(criterion=criterion),
                                                    n_estimators=3, random_state=0),
}


@pytest.mark.parametrize("criterion", list(HUGE_TARGETS))
@pytest.mark.parametrize("name", list(HUGE_TARGET_REGRESSORS))
def test_targets_beyond_1e154_are_fitted_within_their_range(name, criterion):
    X = np.arange(6.0)[:, None] // 2
    y = HUGE_TARGETS[criterion]
    model = HUGE_TARGET_REGRESSORS[name](criterion).fit(X, y)
    predicted = model.predict(X)
    assert np.isfinite(predicted).all()
    assert (predicted >= y.min()).all() and (predicted <= y.max()).all()
    if name == "tree":  # pure splits: the targets themselves, as scikit-learn predicts
        from sklearn.tree import DecisionTreeRegressor as SKDecisionTreeRegressor
        np.testing.assert_array_equal(predicted, y)
        np.testing.assert_array_equal(
            predicted, SKDecisionTreeRegressor(criterion=criterion).fit(X, y).predict(X))
        assert np.isfinite(model.tree_.impurity).all()


@pytest.mark.parametrize("criterion", list(EXTREME_TARGETS))
def test_targets_up_to_the_largest_float_are_fitted_exactly(criterion):
    X = np.arange(6.0)[:, None] // 2
    y = EXTREME_TARGETS[criterion]
    model = DecisionTreeRegressor(criterion=criterion).fit(X, y)
    np.testing.assert_array_equal(model.predict(X), y)
    assert np.isfinite(model.tree_.impurity).all()


@pytest.mark.parametrize("name", list(HUGE_TARGET_REGRESSORS))
def test_targets_near_the_largest_float_give_finite_means_and_importances(name):
    # A mean over trees of values near 1.7e308 summed them to infinity, and
    # so did the importances' weighted sums of impurities near 1.7e308.
    X = np.arange(6.0)[:, None] // 2
    y = 1.7e308 * np.array([1.0, 1.0, 1.0, 1.0, -1.0, -1.0])
    model = HUGE_TARGET_REGRESSORS[name]("absolute_error").fit(X, y)
    predicted = model.predict(X)
    assert np.isfinite(predicted).all()
    assert (predicted >= y.min()).all() and (predicted <= y.max()).all()
    if name != "adaboost":  # (a median of members: no sum)
        single = np.ones(1) * 1.7e308
        alone = HUGE_TARGET_REGRESSORS[name]("absolute_error").fit(X[:1], single)
        assert_rounding_close(alone.predict(X), 1.7e308, scale=1.7e308)
    importances = model.feature_importances_
    assert np.isfinite(importances).all() and rounding_equal(importances.sum(), 1.0)


SMALL_SPREAD_REGRESSORS = {
    "tree": lambda **kw: DecisionTreeRegressor(**kw),
    "best-first": lambda **kw: DecisionTreeRegressor(max_leaf_nodes=40, **kw),
    "absolute-error": lambda **kw: DecisionTreeRegressor(criterion="absolute_error", **kw),
    "extra-tree": lambda **kw: ExtraTreeRegressor(random_state=0, **kw),
    "forest": lambda **kw: RandomForestRegressor(n_estimators=3, random_state=0, **kw),
    "pruned": lambda **kw: DecisionTreeRegressor(ccp_alpha=0.01 * kw.pop("unit") ** 2, **kw),
    "min-decrease": lambda **kw: DecisionTreeRegressor(
        min_impurity_decrease=1e-3 * kw.pop("unit") ** 2, **kw),
}


def first_tree(model):
    return model.tree_ if hasattr(model, "tree_") else model.estimators_[0].tree_


@pytest.mark.parametrize("n_outputs", [1, 2])
@pytest.mark.parametrize("name, exponent", [
    *((name, -30) for name in SMALL_SPREAD_REGRESSORS),
    # (A ccp_alpha or min_impurity_decrease in units of 2**-2000 is 0.)
    *((name, -1000) for name in SMALL_SPREAD_REGRESSORS
      if name not in ("pruned", "min-decrease"))])
def test_targets_in_small_units_grow_the_tree_of_the_same_targets_in_unit_units(name, n_outputs,
                                                                                exponent):
    # The builders take impurities up to float64 epsilon for pure: targets
    # of a spread of 1e-9 (variances near 1e-18), or near 1e-300 (squared
    # deviations that underflow), grew a single leaf. They are scaled by a
    # power of two for the criteria: the same tree, values and impurities
    # scaled as the targets are, exactly.
    rng = np.random.default_rng(3)
    X = rng.normal(size=(120, 3))
    y = X[:, :n_outputs] * 3.0 + rng.normal(size=(120, n_outputs))
    y = y[:, 0] if n_outputs == 1 else y
    make = SMALL_SPREAD_REGRESSORS[name]
    unit = make(**({"unit": 1.0} if name in ("pruned", "min-decrease") else {})).fit(X, y)
    small = make(**({"unit": 2.0 ** exponent} if name in ("pruned", "min-decrease") else {}))
    small.fit(X, np.ldexp(y, exponent))
    power = 1 if name == "absolute-error" else 2
    expected, tree = first_tree(unit), first_tree(small)
    assert expected.node_count > 3
    np.testing.assert_array_equal(tree.nodes, expected.nodes)
    np.testing.assert_array_equal(tree.value, np.ldexp(expected.value, exponent))
    np.testing.assert_array_equal(tree.impurity, np.ldexp(expected.impurity, power * exponent))
    np.testing.assert_array_equal(small.predict(X), np.ldexp(unit.predict(X), exponent))


@pytest.mark.parametrize("name, n_outputs", [
    *((name, 1) for name in HUGE_TARGET_REGRESSORS),
    # AdaBoost boosts one output.
    *((name, 2) for name in HUGE_TARGET_REGRESSORS if name != "adaboost")])
def test_a_squared_error_of_targets_too_far_apart_is_refused_naming_y(name, n_outputs):
    # The variance of 1e160 and -1e160 is beyond float64.
    X = np.arange(6.0)[:, None] // 2
    y = np.array([1e160, 1e160, -1e160, -1e160, 0.0, 0.0])
    if n_outputs == 2:
        y = np.column_stack([np.arange(6.0), y])
    estimator = HUGE_TARGET_REGRESSORS[name]("squared_error")
    # Bagging and boosting leave y to their trees, which name themselves.
    named = ("DecisionTreeRegressor" if name in ("bagging", "adaboost")
             else type(estimator).__name__)
    with pytest.raises(ValueError, match="^" + re.escape(
            f"{named}: y spreads too wide for criterion='squared_error'")):
        estimator.fit(X, y)


# -- options that exclude each other, constraints, categories --------------------

CATEGORICAL_FRAME = pd.DataFrame({"colour": pd.Categorical(["red", "green", "blue"] * 4),
                                  "size": np.arange(12.0)})
# green, the middle code of three, is set apart by one split of the categories only.
GREEN = (CATEGORICAL_FRAME["colour"] == "green").to_numpy().astype(int)


@pytest.mark.parametrize("make, y, message", [
    (lambda: DecisionTreeClassifier(monotonic_cst=[1, 0]), [0, 1, 2] * 4,
     "Monotonicity constraints are not supported with multiclass classification."),
    (lambda: DecisionTreeClassifier(monotonic_cst=[0, 1]), np.c_[GREEN, GREEN],
     "Monotonicity constraints are not supported with multiple outputs."),
    (lambda: DecisionTreeRegressor(monotonic_cst=[0, 1]), np.c_[GREEN, GREEN],
     "Monotonicity constraints are not supported with multiple outputs."),
    (lambda: DecisionTreeClassifier(monotonic_cst=[1, 0]), GREEN,
     "monotonic_cst constrains numeric features only; give the categorical features 0"),
    (lambda: DecisionTreeRegressor(monotonic_cst=[-1, 0]), GREEN,
     "monotonic_cst constrains numeric features only; give the categorical features 0"),
    (lambda: DecisionTreeRegressor(criterion="absolute_error"), GREEN,
     "criterion='absolute_error' splits numeric features only; encode the categorical "
     "features as numbers (say, ordinal codes) or use another criterion"),
    (lambda: DecisionTreeClassifier(criterion="entropy", categorical_split="multiway",
                                    monotonic_cst=[0, 1]), GREEN,
     "monotonic_cst constrains binary trees; multiway (C4.5) trees take none"),
    (lambda: DecisionTreeClassifier(criterion="entropy", categorical_split="multiway"),
     np.c_[GREEN, GREEN],
     "categorical_split='multiway' grows a tree for one output; y has several columns"),
    (lambda: DecisionTreeClassifier(loss_matrix=[[0, 1], [1, 0]]), np.c_[GREEN, GREEN],
     "loss_matrix prices the classes of one output; y has several columns"),
])
def test_options_that_do_not_go_together_are_refused_with_their_messages(make, y, message):
    with pytest.raises(ValueError, match="^" + re.escape(message) + "$"):
        make().fit(CATEGORICAL_FRAME, y)


@pytest.mark.parametrize("estimator_class", ESTIMATORS)
def test_monotonic_cst_makes_predictions_follow_the_constraint(estimator_class):
    rng = np.random.default_rng(0)
    X = rng.uniform(size=(400, 2))
    # Rising in feature 0 overall, but falling inside (0.4, 0.6).
    y = X[:, 0] + np.where((X[:, 0] > 0.4) & (X[:, 0] < 0.6), -0.5, 0.0)
    if estimator_class is DecisionTreeClassifier:
        y = (y + 0.1 * rng.normal(size=400) > 0.5).astype(int)
    grid = np.c_[np.linspace(0.0, 1.0, 201), np.full(201, 0.5)]

    def steps(tree):
        values = (tree.predict_proba(grid)[:, 1] if estimator_class is DecisionTreeClassifier
                  else tree.predict(grid))
        return np.diff(values)

    params = dict(max_depth=6, random_state=0)
    assert (steps(estimator_class(**params).fit(X, y)) < 0).any()
    for constraint, sign in ((1, 1.0), (-1, -1.0)):
        constrained = estimator_class(monotonic_cst=[constraint, 0], **params).fit(X, y)
        assert (sign * steps(constrained) >= 0).all()
        assert constrained.get_params()["monotonic_cst"] == [constraint, 0]


@pytest.mark.parametrize("make", [
    lambda: DecisionTreeClassifier(max_depth=1),
    lambda: DecisionTreeRegressor(max_depth=1),
    lambda: ExtraTreeRegressor(random_state=0),
    lambda: DecisionTreeClassifier(max_depth=1, categorical_features=["colour"]),
])
def test_categorical_columns_split_on_sets_of_categories(make):
    frame = CATEGORICAL_FRAME
    if make().categorical_features != "from_dtype":
        frame = frame.assign(colour=frame["colour"].astype(str))  # named, not typed
    tree = make().fit(frame[["colour"]], GREEN)
    np.testing.assert_array_equal(tree.is_categorical_, [True])
    np.testing.assert_array_equal(tree.categories_[0], ["blue", "green", "red"])
    # One split of the categories sets green apart; thresholds on codes cannot.
    np.testing.assert_array_equal(tree.predict(frame[["colour"]]), GREEN)
    assert tree.tree_.is_categorical[0]


def test_a_classifier_of_two_outputs_takes_categorical_columns_and_names():
    tree = DecisionTreeClassifier(max_depth=1).fit(CATEGORICAL_FRAME, np.c_[GREEN, 1 - GREEN])
    np.testing.assert_array_equal(tree.is_categorical_, [True, False])
    np.testing.assert_array_equal(tree.feature_names_in_, ["colour", "size"])
    np.testing.assert_array_equal(tree.predict(CATEGORICAL_FRAME), np.c_[GREEN, 1 - GREEN])


def test_the_regressor_takes_feature_names_from_a_dataframe():
    tree = DecisionTreeRegressor(max_depth=2).fit(CATEGORICAL_FRAME[["size"]], GREEN)
    np.testing.assert_array_equal(tree.feature_names_in_, ["size"])


def test_multiway_trees_draw_their_features_from_random_state():
    rng = np.random.default_rng(1)
    X = rng.integers(0, 4, size=(200, 6)).astype(np.float64)
    y = (X[:, 0] + X[:, 1] + rng.integers(0, 3, size=200)) % 3

    def grown(seed):
        return DecisionTreeClassifier(criterion="entropy", categorical_split="multiway",
                                      max_features=1, random_state=seed).fit(X, y).tree_

    trees = [grown(seed) for seed in (0, 0, 1, 2)]
    np.testing.assert_array_equal(trees[0].feature, trees[1].feature)
    assert any(not np.array_equal(trees[0].feature, other.feature) for other in trees[2:])


@pytest.mark.parametrize("make, sklearn_class", [
    ("ExtraTreeClassifier", "ExtraTreeClassifier"),
    ("ExtraTreeRegressor", "ExtraTreeRegressor")])
def test_extra_trees_take_scikit_learns_defaults(make, sklearn_class):
    import fasttree
    import sklearn.tree
    ours = getattr(fasttree, make)().get_params()
    theirs = getattr(sklearn.tree, sklearn_class)().get_params()
    assert {name: ours[name] for name in theirs} == theirs

