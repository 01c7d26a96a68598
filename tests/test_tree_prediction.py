"""What the trees of fasttree.tree take to predict: X checked for predict,
predict_proba and decision_path (dense, sparse, missing and infinite
values, messages naming the estimator), a fitted state found corrupt, and
the labels and fractions of a tree of several outputs."""

import re

import numpy as np
import pandas as pd
import pytest
import scipy.sparse

from fasttree import DecisionTreeClassifier, DecisionTreeRegressor
from synthetic import data_for

ESTIMATORS = [DecisionTreeClassifier, DecisionTreeRegressor]


def fitted(estimator_class, **params):
    X, y = data_for(estimator_class)
    return estimator_class(max_depth=4, random_state=0, **params).fit(X, y), X


def exactly(message):
    return "^" + re.escape(message) + "$"


# -- X for prediction -----------------------------------------------------------

@pytest.mark.parametrize("estimator_class", ESTIMATORS)
@pytest.mark.parametrize("method", ["predict", "apply", "decision_path"])
def test_a_one_dimensional_x_is_refused_naming_the_estimator(estimator_class, method):
    tree, _ = fitted(estimator_class)
    name = estimator_class.__name__
    with pytest.raises(ValueError, match=exactly(
            f"{name}: X must be 2-D, got 1-D with shape (3,); Reshape your data with "
            "X.reshape(-1, 1) for a single feature or X.reshape(1, -1) for a single sample")):
        getattr(tree, method)([1.0, 2.0, 3.0])


@pytest.mark.parametrize("estimator_class", ESTIMATORS)
@pytest.mark.parametrize("sparse_format", ["csr", "csc"])
def test_sparse_rows_predict_and_follow_the_paths_of_their_dense_rows(estimator_class,
                                                                     sparse_format):
    tree, X = fitted(estimator_class)
    dense = np.where(np.abs(X) < 0.5, 0.0, X)  # with implicit zeros
    sparse = scipy.sparse.csr_matrix(dense).asformat(sparse_format)
    np.testing.assert_array_equal(tree.predict(sparse), tree.predict(dense))
    np.testing.assert_array_equal(tree.apply(sparse), tree.apply(dense))
    np.testing.assert_array_equal(tree.decision_path(sparse).toarray(),
                                  tree.decision_path(dense).toarray())
    if estimator_class is DecisionTreeClassifier:
        np.testing.assert_array_equal(tree.predict_proba(sparse), tree.predict_proba(dense))


@pytest.mark.parametrize("estimator_class", ESTIMATORS)
@pytest.mark.parametrize("method", ["predict", "decision_path"])
def test_sparse_rows_with_nan_or_without_rows_are_refused_naming_the_estimator(
        estimator_class, method):
    tree, X = fitted(estimator_class)
    name = estimator_class.__name__
    with_nan = scipy.sparse.csr_matrix(np.where(np.arange(X.shape[1]) == 1, np.nan, X[:3]))
    with pytest.raises(ValueError, match=exactly(
            f"{name}: Input X contains NaN in a sparse matrix; missing values are supported "
            "in dense X only")):
        getattr(tree, method)(with_nan)
    no_rows = scipy.sparse.csr_matrix((0, X.shape[1]))
    with pytest.raises(ValueError, match=exactly(
            f"{name}: X has 0 sample(s) (shape=(0, {X.shape[1]})) while a minimum of 1 is "
            "required.")):
        getattr(tree, method)(no_rows)


@pytest.mark.parametrize("estimator_class", ESTIMATORS)
@pytest.mark.parametrize("as_sparse", [False, True])
def test_decision_path_refuses_infinity_naming_the_estimator(estimator_class, as_sparse):
    tree, X = fitted(estimator_class)
    rows = X[:4].copy()
    rows[2, 1] = -np.inf
    with pytest.raises(ValueError, match=exactly(
            f"{estimator_class.__name__}: X contains infinity (1 cells, first in column 1); "
            "infinite values are not supported")):
        tree.decision_path(scipy.sparse.csr_matrix(rows) if as_sparse else rows)


@pytest.mark.parametrize("estimator_class", ESTIMATORS)
def test_decision_path_sends_missing_values_where_apply_sends_them(estimator_class):
    tree, X = fitted(estimator_class)
    rows = X[:20].copy()
    rows[::2, tree.tree_.feature[0]] = np.nan  # every other row misses the root's feature
    paths = tree.decision_path(rows).toarray()
    leaves = tree.apply(rows)
    np.testing.assert_array_equal(paths[np.arange(20), leaves], 1)
    np.testing.assert_array_equal(paths.sum(axis=1), depth_of(tree.tree_, leaves) + 1)


def depth_of(tree, nodes):
    depth = np.zeros(tree.node_count, dtype=int)
    for node in range(tree.node_count):
        if tree.children_left[node] != -1:
            depth[tree.children_left[node]] = depth[tree.children_right[node]] = depth[node] + 1
    return depth[nodes]


# -- fitted state ---------------------------------------------------------------

@pytest.mark.parametrize("estimator_class", ESTIMATORS)
def test_a_fitted_tree_whose_feature_count_was_changed_or_lost_is_called_corrupt(
        estimator_class):
    tree, X = fitted(estimator_class)
    message = exactly(f"corrupt {estimator_class.__name__}: n_features_in_ does not match "
                      "the fitted tree")
    tree.n_features_in_ = X.shape[1] + 1
    with pytest.raises(ValueError, match=message):
        tree.predict(X)
    del tree.n_features_in_
    with pytest.raises(ValueError, match=message):
        tree.predict(X)


def test_a_classifier_whose_classes_were_changed_or_lost_is_called_corrupt():
    tree, X = fitted(DecisionTreeClassifier)
    message = exactly("corrupt DecisionTreeClassifier: classes_ does not match the fitted "
                      "tree")
    tree.classes_ = tree.classes_[:-1]
    with pytest.raises(ValueError, match=message):
        tree.predict(X)
    del tree.classes_
    with pytest.raises(ValueError, match=message):
        tree.predict(X)
    two_outputs = DecisionTreeClassifier().fit(X[:6], pd.DataFrame(
        {"number": [0, 1, 2, 0, 1, 2], "letter": ["a", "b", "c", "a", "b", "a"]}))
    two_outputs.classes_ = two_outputs.classes_[::-1]  # widths 3 and 3: still whole
    two_outputs.predict(X[:6])
    two_outputs.classes_ = [two_outputs.classes_[0], two_outputs.classes_[1][:2]]
    with pytest.raises(ValueError, match=exactly(
            "corrupt DecisionTreeClassifier: classes_ does not match the fitted tree")):
        two_outputs.predict(X[:6])


# -- several outputs ------------------------------------------------------------

def test_a_classifier_of_two_outputs_predicts_each_outputs_labels_and_fractions():
    rng = np.random.default_rng(0)
    X = rng.permutation(40).reshape(20, 2).astype(np.float64)  # distinct rows
    first = rng.choice(["no", "yes"], size=20)
    second = rng.choice([3, 5, 7], size=20)
    y = pd.DataFrame({"first": first, "second": second})
    tree = DecisionTreeClassifier(random_state=0).fit(X, y)
    # Grown to pure leaves, it gives each training row its own labels back.
    predicted = tree.predict(X)
    assert predicted.shape == (20, 2)
    np.testing.assert_array_equal(predicted[:, 0], first)
    np.testing.assert_array_equal(predicted[:, 1].astype(int), second)
    assert tree.n_outputs_ == 2 and tree.n_classes_ == [2, 3]
    np.testing.assert_array_equal(tree.classes_[0], ["no", "yes"])
    np.testing.assert_array_equal(tree.classes_[1], [3, 5, 7])
    assert tree.loss_matrix_ is None
    fractions = tree.predict_proba(X)
    assert isinstance(fractions, list) and len(fractions) == 2
    for output, labels in zip(fractions, (first, second)):
        assert output.flags.c_contiguous
        expected = (labels[:, None] == np.unique(labels)[None, :]).astype(float)
        np.testing.assert_array_equal(output, expected)


# -- X and y for fit ------------------------------------------------------------

WRONG_FITS = [
    (DecisionTreeClassifier, {}, [1.0, 2.0, 3.0, 4.0], [0, 0, 1, 1], None,
     "DecisionTreeClassifier: X must be 2-D, got 1-D with shape (4,); Reshape your data with "
     "X.reshape(-1, 1) for a single feature or X.reshape(1, -1) for a single sample"),
    (DecisionTreeRegressor, {}, scipy.sparse.csr_matrix([[np.nan, 1.0], [0.0, 1.0]]),
     [0.0, 1.0], None, "DecisionTreeRegressor: Input X contains NaN in a sparse matrix; "
     "missing values are supported in dense X only"),
    (DecisionTreeClassifier, {}, np.eye(4), [0, 1], None,
     "DecisionTreeClassifier: y has 2 entries but X has 4 samples"),
    (DecisionTreeRegressor, {}, np.eye(4), [0.0, 1.0], None,
     "DecisionTreeRegressor: y has 2 entries but X has 4 samples"),
    (DecisionTreeClassifier, {}, np.eye(4), [0, 0, 1, 1], [1.0, -1.0, 1.0, 1.0],
     "DecisionTreeClassifier: Negative values in data passed to `sample_weight`: weights "
     "must be >= 0, and negative ones are refused"),
    (DecisionTreeRegressor, {}, np.eye(4), [0.0, 0.0, 1.0, 1.0], [1.0, -1.0, 1.0, 1.0],
     "DecisionTreeRegressor: Negative values in data passed to `sample_weight`: weights "
     "must be >= 0, and negative ones are refused"),
    (DecisionTreeClassifier, {"class_weight": {0: 0.0, 1: 0.0}}, np.eye(4), [0, 0, 1, 1],
     None, "DecisionTreeClassifier: the class weights leave every sample with weight zero: "
     "class_weight must give a positive weight to a class of y that has samples of positive "
     "weight"),
    # scikit-learn judges a Poisson target before its length.
    (DecisionTreeRegressor, {"criterion": "poisson"}, np.eye(4), [-1.0, 2.0], None,
     "DecisionTreeRegressor: Some value(s) of y are negative which is not allowed for "
     "Poisson regression."),
    (DecisionTreeRegressor, {"criterion": "poisson"}, np.eye(4), [-1.0, np.nan, 1.0, 1.0],
     None, "DecisionTreeRegressor: y contains NaN or infinity"),
    (DecisionTreeRegressor, {"criterion": "poisson"}, np.eye(4), ["a", "b", "c", "d"], None,
     "DecisionTreeRegressor: y must hold numbers for regression"),
]


@pytest.mark.parametrize("estimator_class, params, X, y, sample_weight, message", WRONG_FITS)
def test_wrong_training_data_is_refused_naming_the_estimator(estimator_class, params, X, y,
                                                             sample_weight, message):
    with pytest.raises(ValueError, match=exactly(message)):
        estimator_class(**params).fit(X, y, sample_weight=sample_weight)


@pytest.mark.parametrize("estimator_class", ESTIMATORS)
def test_missing_values_in_training_x_are_learnt(estimator_class):
    X = np.array([[0.0], [1.0], [np.nan], [np.nan], [2.0]])
    tree = estimator_class().fit(X, [0, 1, 1, 1, 0])
    np.testing.assert_array_equal(tree.predict([[np.nan], [0.0], [2.0]]), [1, 0, 0])


@pytest.mark.parametrize("estimator_class", ESTIMATORS)
def test_a_sparse_training_x_grows_the_tree_of_its_dense_rows(estimator_class):
    X, y = data_for(estimator_class, n_samples=120)
    dense = np.where(np.abs(X) < 0.5, 0.0, X)
    from_sparse = estimator_class(random_state=0).fit(scipy.sparse.csc_matrix(dense), y)
    from_dense = estimator_class(random_state=0).fit(dense, y)
    for name in ("children_left", "feature", "threshold", "value"):
        np.testing.assert_array_equal(getattr(from_sparse.tree_, name),
                                      getattr(from_dense.tree_, name))


@pytest.mark.parametrize("estimator_class", ESTIMATORS)
def test_more_rows_than_max_samples_are_refused(estimator_class, monkeypatch):
    import fasttree._growth
    monkeypatch.setattr(fasttree._growth, "MAX_SAMPLES", 3)
    wide = np.arange(15.0).reshape(3, 5)  # as many rows as allowed, more columns
    estimator_class().fit(wide, [0, 1, 1])
    with pytest.raises(ValueError, match=exactly(
            f"{estimator_class.__name__} supports at most 3 samples")):
        estimator_class().fit(np.arange(4.0).reshape(4, 1), [0, 1, 1, 0])
