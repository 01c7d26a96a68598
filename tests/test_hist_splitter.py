"""Trees grown with ``splitter='hist'``: the exact trees where every value
has its own bin, the exact trees of the bin codes otherwise (the bins of
``fasttree.reference.binning``), with thresholds between bins; parameters
checked, saved and loaded."""

import pickle

import numpy as np
import pandas as pd
import pytest

from fasttree import DecisionTreeClassifier, DecisionTreeRegressor, ExtraTreeClassifier, load
from fasttree.reference import bin_matrix, midpoint

TREE_ARRAYS = ("children_left", "children_right", "feature", "threshold", "n_node_samples",
               "weighted_n_node_samples", "value", "impurity", "missing_go_to_left")


def mixed_data(seed, n_samples=400, regression=False, missing=True):
    """Continuous, tied and heavy-valued columns (some missing values), a
    target that depends on all of them, and whole-number weights."""
    rng = np.random.default_rng(seed)
    X = np.column_stack([
        rng.normal(size=n_samples),
        rng.integers(0, 60, n_samples).astype(float),
        np.where(rng.random(n_samples) < 0.5, 0.0, rng.exponential(size=n_samples)),
        rng.normal(size=n_samples),
    ])
    signal = X[:, 0] + 0.05 * X[:, 1] - X[:, 2] + 0.5 * rng.normal(size=n_samples)
    if missing:
        X[rng.random(n_samples) < 0.1, 3] = np.nan
    y = signal if regression else np.digitize(signal, [-0.5, 0.8])
    weights = rng.integers(1, 4, n_samples).astype(float)
    return X, y, weights


def assert_same_tree(tree, other):
    for name in TREE_ARRAYS:
        np.testing.assert_array_equal(getattr(tree, name), getattr(other, name), err_msg=name)


@pytest.mark.parametrize("regression", [False, True])
@pytest.mark.parametrize("seed", range(4))
def test_a_hist_tree_with_a_bin_per_value_is_the_exact_tree(regression, seed):
    X, y, weights = mixed_data(seed, regression=regression)
    estimator_class = DecisionTreeRegressor if regression else DecisionTreeClassifier
    params = dict(random_state=seed, max_features=3, min_samples_leaf=2)
    exact = estimator_class(**params).fit(X, y, sample_weight=weights)
    hist = estimator_class(splitter="hist", max_bins=400, **params).fit(
        X, y, sample_weight=weights)
    assert_same_tree(hist.tree_, exact.tree_)


@pytest.mark.parametrize("regression", [False, True])
@pytest.mark.parametrize("max_bins", [3, 16, 255])
@pytest.mark.parametrize("seed", range(3))
def test_a_hist_tree_is_the_exact_tree_of_the_bin_codes_with_thresholds_between_bins(
        regression, max_bins, seed):
    X, y, weights = mixed_data(seed, regression=regression)
    estimator_class = DecisionTreeRegressor if regression else DecisionTreeClassifier
    params = dict(random_state=seed, max_features=3)
    hist = estimator_class(splitter="hist", max_bins=max_bins, **params).fit(
        X, y, sample_weight=weights)
    codes, columns = bin_matrix(X, max_bins)
    of_codes = estimator_class(**params).fit(codes, y, sample_weight=weights)
    tree, code_tree = hist.tree_, of_codes.tree_
    for name in TREE_ARRAYS:
        if name != "threshold":
            np.testing.assert_array_equal(getattr(tree, name), getattr(code_tree, name),
                                          err_msg=name)
    reaching = of_codes.decision_path(codes).tocsc()
    for node in np.flatnonzero(tree.children_left >= 0):
        feature, code_threshold = tree.feature[node], code_tree.threshold[node]
        if np.isinf(code_threshold):  # every known value left, missing ones right
            assert tree.threshold[node] == np.inf
            continue
        # The node's bins nearest the cut on either side (bins between them
        # hold none of its rows).
        node_codes = codes[reaching[:, node].indices, feature]
        left_bin = int(node_codes[node_codes < code_threshold].max())
        right_bin = int(node_codes[node_codes > code_threshold].min())
        expected = midpoint(columns[feature].upper[left_bin], columns[feature].lower[right_bin])
        assert np.float32(tree.threshold[node]) == expected
    # Every training row reaches the leaf its bin reached.
    np.testing.assert_array_equal(hist.apply(X), of_codes.apply(codes))


def test_hist_uses_fewer_thresholds_and_keeps_the_accuracy_on_new_rows():
    X, y, _ = mixed_data(0, n_samples=3000, missing=False)
    X_new, y_new, _ = mixed_data(1, n_samples=3000, missing=False)
    exact = DecisionTreeClassifier(random_state=0, max_depth=6).fit(X, y)
    hist = DecisionTreeClassifier(random_state=0, max_depth=6, splitter="hist",
                                  max_bins=32).fit(X, y)
    thresholds = hist.tree_.threshold[hist.tree_.children_left >= 0]
    for feature in (0, 2, 3):  # the continuous columns: at most 31 places to cut
        assert np.unique(thresholds[hist.tree_.feature[hist.tree_.children_left >= 0]
                                    == feature]).size <= 31
    assert hist.score(X_new, y_new) > exact.score(X_new, y_new) - 0.03


def test_categorical_features_keep_their_categories_in_a_hist_tree():
    rng = np.random.default_rng(3)
    frame = pd.DataFrame({"colour": pd.Categorical(rng.choice(list("abcdefgh"), 500)),
                          "size": rng.normal(size=500)})
    y = (frame["colour"].isin(["b", "e", "h"]) ^ (frame["size"] > 0.3)).astype(int)
    hist = DecisionTreeClassifier(random_state=0, splitter="hist", max_bins=3).fit(frame, y)
    # The tree of the size's bin codes: the same category sets at every node.
    codes, _ = bin_matrix(frame[["size"]].to_numpy(), 3)
    of_codes = DecisionTreeClassifier(random_state=0).fit(frame.assign(size=codes[:, 0]), y)
    for name in ("children_left", "feature", "n_node_samples", "value"):
        np.testing.assert_array_equal(getattr(hist.tree_, name), getattr(of_codes.tree_, name))
    on_colour = np.flatnonzero((hist.tree_.children_left >= 0) & (hist.tree_.feature == 0))
    assert on_colour.size > 0
    for node in on_colour:
        np.testing.assert_array_equal(hist.tree_.left_categories(node),
                                      of_codes.tree_.left_categories(node))


@pytest.mark.parametrize("max_bins", [1, 0, 65536, 2.5, "255", None, True])
def test_a_bad_max_bins_is_refused_by_name(max_bins):
    X, y, _ = mixed_data(0)
    with pytest.raises(ValueError, match=r"The 'max_bins' parameter must be an int in the "
                                         r"range \[2, 65535\]"):
        DecisionTreeClassifier(splitter="hist", max_bins=max_bins).fit(X, y)


def test_an_unknown_splitter_is_refused_naming_hist_among_the_choices():
    X, y, _ = mixed_data(0)
    with pytest.raises(ValueError, match=r"a str among \{'best', 'hist', 'random'\}"):
        DecisionTreeClassifier(splitter="histogram").fit(X, y)


def test_a_hist_tree_pickles_saves_and_loads(tmp_path):
    X, y, _ = mixed_data(2)
    tree = ExtraTreeClassifier(splitter="hist", max_bins=8, random_state=0).fit(X, y)
    tree.save(tmp_path / "tree.ft")
    for again in (pickle.loads(pickle.dumps(tree)), load(tmp_path / "tree.ft")):
        assert again.get_params() == tree.get_params()
        np.testing.assert_array_equal(again.predict_proba(X), tree.predict_proba(X))


def test_a_tree_saved_before_max_bins_existed_loads_with_the_default(tmp_path):
    X, y, _ = mixed_data(2)
    tree = DecisionTreeClassifier(max_depth=3, random_state=0).fit(X, y)
    del tree.__dict__["max_bins"]  # as trees were saved before it existed
    loaded = pickle.loads(pickle.dumps(tree))
    assert loaded.max_bins == 255
    np.testing.assert_array_equal(loaded.predict(X), tree.predict(X))
