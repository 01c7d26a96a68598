"""Trees grown with ``splitter='hist'``: the exact trees where every value
has its own bin, the exact trees of the bin codes otherwise (the bins of
``fasttree.reference.binning``), with thresholds between bins; parameters
checked, saved and loaded."""

import pickle

import numpy as np
import pandas as pd
import pytest

from fasttree import (AdaBoostClassifier, BaggingClassifier, BaggingRegressor,
                      DecisionTreeClassifier, DecisionTreeRegressor,
                      ExtraTreeClassifier, ExtraTreeRegressor, ExtraTreesClassifier,
                      ExtraTreesRegressor, RandomForestClassifier, RandomForestRegressor, load)
import fasttree.tree
from fasttree import _growth
from fasttree._binning import bin_features, binned_features
from fasttree._features import rank_features
from fasttree.reference import bin_matrix, midpoint
from synthetic import spread_columns

TREE_ARRAYS = ("children_left", "children_right", "feature", "threshold", "n_node_samples",
               "weighted_n_node_samples", "value", "impurity", "missing_go_to_left")


def mixed_data(seed, n_samples=400, regression=False, missing=True):
    """``spread_columns`` (some values missing), a target that depends on
    all of them, and whole-number weights."""
    X = spread_columns(n_samples, seed, missing_share=0.1 if missing else 0.0)
    rng = np.random.default_rng(seed + 1000)
    signal = (X[:, 0] + 0.05 * X[:, 1] - X[:, 2] + np.nan_to_num(0.3 * X[:, 3])
              + 0.5 * rng.normal(size=n_samples))
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
    assert_the_tree_of_the_codes(hist, of_codes, codes, columns)
    # Every training row reaches the leaf its bin reached.
    np.testing.assert_array_equal(hist.apply(X), of_codes.apply(codes))


def assert_the_tree_of_the_codes(hist, of_codes, codes, columns, grown_on=None):
    """``hist`` (a fitted tree) is ``of_codes`` (the tree fitted on the bin
    codes: a decision tree's, or for an extra tree the random tree of the
    codes) but for its thresholds: where the codes' tree cut between two of
    a node's bins, ``hist`` cuts halfway between those bins' values, of the
    rows it was grown on (``grown_on``, a mask; every row by default)."""
    tree, code_tree = hist.tree_, of_codes.tree_
    for name in TREE_ARRAYS:
        if name != "threshold":
            np.testing.assert_array_equal(getattr(tree, name), getattr(code_tree, name),
                                          err_msg=name)
    reaching = of_codes.decision_path(codes).tocsc()
    for node in np.flatnonzero(tree.children_left >= 0):
        feature, code_threshold = tree.feature[node], code_tree.threshold[node]
        # The node's bins nearest the cut on either side (bins between them
        # hold none of its rows).
        rows = reaching[:, node].indices
        if grown_on is not None:
            rows = rows[grown_on[rows]]
        node_codes = codes[rows, feature]
        node_codes = node_codes[~np.isnan(node_codes)]
        if not (node_codes > code_threshold).any():  # every known value left, missing right
            assert tree.threshold[node] == np.inf
            continue
        left_bin = int(node_codes[node_codes <= code_threshold].max())
        right_bin = int(node_codes[node_codes > code_threshold].min())
        expected = midpoint(columns[feature].upper[left_bin], columns[feature].lower[right_bin])
        assert np.float32(tree.threshold[node]) == expected


OPTION_CASES = {
    "class-weight": (DecisionTreeClassifier, {"class_weight": "balanced"}, False),
    "monotonic": (DecisionTreeRegressor, {"monotonic_cst": [1, 0, -1, 0]}, True),
    "two-outputs": (DecisionTreeClassifier, {}, False),
    "two-outputs-regression": (DecisionTreeRegressor, {}, True),
    "absolute-error": (DecisionTreeRegressor, {"criterion": "absolute_error"}, True),
    "entropy-loss-matrix": (DecisionTreeClassifier, {
        "loss_matrix": [[0, 1, 2], [1, 0, 1], [4, 1, 0]]}, False),
}


# A decision tree's extremely randomized twin, whose 'hist' draws a boundary
# between bins as 'random' draws a threshold between the codes.
EXTRA_TREE_OF = {DecisionTreeClassifier: ExtraTreeClassifier,
                 DecisionTreeRegressor: ExtraTreeRegressor}


@pytest.mark.parametrize("drawn", [False, True], ids=["swept", "drawn"])
@pytest.mark.parametrize("case", list(OPTION_CASES))
def test_every_option_grows_the_tree_of_the_bin_codes(case, drawn):
    estimator_class, options, regression = OPTION_CASES[case]
    if drawn:
        estimator_class = EXTRA_TREE_OF[estimator_class]
    X, y, weights = mixed_data(8, regression=regression, missing=case != "monotonic")
    if case.startswith("two-outputs"):
        y = np.column_stack([y, X[:, 1] > 30 if not regression else np.abs(X[:, 0])])
    params = dict(random_state=0, max_depth=6, **options)
    hist = estimator_class(splitter="hist", max_bins=10, **params).fit(
        X, y, sample_weight=weights)
    codes, columns = bin_matrix(X, 10)
    of_codes = estimator_class(**params).fit(codes, y, sample_weight=weights)
    assert_the_tree_of_the_codes(hist, of_codes, codes, columns)


def capture_binned(monkeypatch):
    """The binned features the fits that follow sweep, as they make them."""
    made, binned = _growth.binned_features, []
    monkeypatch.setattr(_growth, "binned_features",
                        lambda *args, **kwargs: binned.append(made(*args, **kwargs))
                        or binned[-1])
    return binned


def assert_held_in_two_byte_codes(ranked):
    """Binned features of more than 256 bins read from uint16 codes, not
    from four-byte ranks; the others from one-byte codes."""
    n_bins = np.diff(ranked.value_offsets)
    assert (n_bins > 256).any() and (n_bins <= 256).any()
    assert ranked.ranks.shape[1] == 0
    assert ranked.short_ranks.dtype == np.uint16
    assert ranked.narrow_ranks.dtype == np.uint8
    assert ranked.short_ranks.max() >= 256


@pytest.mark.parametrize("drawn", [False, True], ids=["swept", "drawn"])
@pytest.mark.parametrize("regression", [False, True])
def test_more_than_255_bins_grow_the_tree_of_the_bin_codes_from_two_byte_codes(
        regression, drawn, monkeypatch):
    binned = capture_binned(monkeypatch)
    X, y, weights = mixed_data(3, n_samples=3000, regression=regression)
    estimator_class = DecisionTreeRegressor if regression else DecisionTreeClassifier
    if drawn:
        estimator_class = EXTRA_TREE_OF[estimator_class]
    params = dict(random_state=0, max_features=3, min_samples_leaf=2)
    hist = estimator_class(splitter="hist", max_bins=1000, **params).fit(
        X, y, sample_weight=weights)
    assert_held_in_two_byte_codes(binned[0])
    codes, columns = bin_matrix(X, 1000)
    of_codes = estimator_class(splitter="random" if drawn else "best", **params).fit(
        codes, y, sample_weight=weights)
    assert_the_tree_of_the_codes(hist, of_codes, codes, columns)
    np.testing.assert_array_equal(hist.apply(X), of_codes.apply(codes))


def test_two_byte_codes_are_the_bins_of_the_ranks():
    X, _, _ = mixed_data(4, n_samples=3000)
    X = X.astype(np.float32)
    from_columns = binned_features(X, 1000)
    from_ranks = bin_features(rank_features(X), 1000)
    assert_held_in_two_byte_codes(from_columns)
    for feature, n_bins in enumerate(np.diff(from_columns.value_offsets)):
        codes = (from_columns.narrow_ranks if n_bins <= 256 else from_columns.short_ranks)
        np.testing.assert_array_equal(codes[feature], from_ranks.ranks[feature])
    for name in ("values", "upper_values", "value_offsets", "common_rank", "rare_offsets",
                 "rare_rows", "rare_ranks"):
        np.testing.assert_array_equal(getattr(from_columns, name), getattr(from_ranks, name),
                                      err_msg=name)


@pytest.mark.parametrize("regression", [False, True])
def test_a_hist_tree_of_at_most_max_bins_values_above_256_is_the_exact_tree(
        regression, monkeypatch):
    binned = capture_binned(monkeypatch)
    X, y, weights = mixed_data(5, n_samples=3000, regression=regression)
    X = np.round(X, 2)  # some hundreds of values a feature
    estimator_class = DecisionTreeRegressor if regression else DecisionTreeClassifier
    params = dict(random_state=1, max_features=3, min_samples_leaf=2)
    exact = estimator_class(**params).fit(X, y, sample_weight=weights)
    hist = estimator_class(splitter="hist", max_bins=1000, **params).fit(
        X, y, sample_weight=weights)
    assert_held_in_two_byte_codes(binned[0])
    assert (np.diff(binned[0].value_offsets) <= 1001).all()
    assert_same_tree(hist.tree_, exact.tree_)


@pytest.mark.parametrize("regression", [False, True])
def test_features_at_the_one_byte_boundary_grow_the_exact_tree_under_max_bins_above_255(
        regression, monkeypatch):
    # 255, 256 and 257 bins, counting a bin of missing values: the largest
    # features one-byte codes hold, and the smallest that need two bytes.
    binned = capture_binned(monkeypatch)
    rng = np.random.default_rng(11)
    n_samples = 3000
    columns = []
    for n_values, missing in ((255, False), (256, False), (257, False), (255, True),
                              (256, True)):
        column = rng.integers(0, n_values, n_samples).astype(np.float64)
        column[:n_values] = np.arange(n_values)
        if missing:
            column[n_values:n_values + 200] = np.nan
        columns.append(rng.permutation(column))
    X = np.column_stack(columns)
    signal = np.nan_to_num(X[:, 0] - X[:, 2] + 0.5 * X[:, 4], nan=300.0)
    y = signal + rng.normal(scale=20.0, size=n_samples)
    if not regression:
        y = (y > np.median(y)).astype(int)
    estimator_class = DecisionTreeRegressor if regression else DecisionTreeClassifier
    params = dict(random_state=0, min_samples_leaf=3)
    exact = estimator_class(**params).fit(X, y)
    hist = estimator_class(splitter="hist", max_bins=300, **params).fit(X, y)
    np.testing.assert_array_equal(np.diff(binned[0].value_offsets), [255, 256, 257, 256, 257])
    assert_same_tree(hist.tree_, exact.tree_)
    assert set(np.unique(hist.tree_.feature[hist.tree_.feature >= 0])) == set(range(5))


def test_a_sparse_matrix_grows_the_hist_tree_of_its_dense_twin():
    from scipy import sparse

    X, y, _ = mixed_data(9, missing=False)
    X[:, 2][X[:, 2] < 1.0] = 0.0
    dense = DecisionTreeClassifier(splitter="hist", max_bins=6, random_state=0).fit(X, y)
    from_sparse = DecisionTreeClassifier(splitter="hist", max_bins=6, random_state=0).fit(
        sparse.csc_matrix(X), y)
    assert_same_tree(from_sparse.tree_, dense.tree_)


@pytest.mark.parametrize("forest_class", [RandomForestClassifier, RandomForestRegressor,
                                          ExtraTreesClassifier, ExtraTreesRegressor])
def test_a_hist_forests_trees_are_the_trees_of_the_bins_of_all_the_rows(forest_class):
    # The forest bins once, from every row: each tree, grown on its
    # bootstrap of the bin codes, is that of the forest of the codes (for
    # extra trees, the random trees of the codes), on any number of threads.
    regression = forest_class in (RandomForestRegressor, ExtraTreesRegressor)
    X, y, weights = mixed_data(5, regression=regression)
    params = dict(n_estimators=4, max_features=3, random_state=1, min_samples_leaf=2,
                  bootstrap=True)
    forest = forest_class(splitter="hist", max_bins=12, **params).fit(
        X, y, sample_weight=weights)
    codes, columns = bin_matrix(X, 12)
    of_codes = forest_class(**params).fit(codes, y, sample_weight=weights)
    threaded = forest_class(splitter="hist", max_bins=12, n_jobs=2, **params).fit(
        X, y, sample_weight=weights)
    for member, code_member, threaded_member, drawn in zip(
            forest.estimators_, of_codes.estimators_, threaded.estimators_,
            forest.estimators_samples_):
        assert (member.splitter, member.max_bins) == ("hist", 12)
        grown_on = np.bincount(drawn, minlength=len(y)) > 0
        assert_the_tree_of_the_codes(member, code_member, codes, columns, grown_on)
        # A row the tree did not draw may hold a bin between two of a node's
        # bins, and be sent either way.
        np.testing.assert_array_equal(member.apply(X)[grown_on],
                                      code_member.apply(codes)[grown_on])
        assert_same_tree(threaded_member.tree_, member.tree_)


@pytest.mark.parametrize("forest_class", [RandomForestClassifier, RandomForestRegressor])
def test_a_hist_forest_with_a_bin_per_value_is_the_exact_forest(forest_class):
    X, y, _ = mixed_data(6, regression=forest_class is RandomForestRegressor)
    exact = forest_class(n_estimators=20, random_state=0, oob_score=True).fit(X, y)
    hist = forest_class(n_estimators=20, random_state=0, oob_score=True, splitter="hist",
                        max_bins=1000).fit(X, y)
    for member, exact_member in zip(hist.estimators_, exact.estimators_):
        assert_same_tree(member.tree_, exact_member.tree_)
    assert hist.oob_score_ == exact.oob_score_


def test_boosted_hist_trees_are_the_boosted_trees_of_the_bin_codes():
    # Every round bins all the rows alike: the boosting of hist trees is that
    # of the trees of the codes, round by round.
    X, y, _ = mixed_data(7, missing=False)
    params = dict(n_estimators=6, random_state=0)
    boosted = AdaBoostClassifier(DecisionTreeClassifier(max_depth=2, splitter="hist",
                                                        max_bins=8), **params).fit(X, y)
    codes, columns = bin_matrix(X, 8)
    of_codes = AdaBoostClassifier(DecisionTreeClassifier(max_depth=2), **params).fit(codes, y)
    np.testing.assert_array_equal(boosted.estimator_weights_, of_codes.estimator_weights_)
    for member, code_member in zip(boosted.estimators_, of_codes.estimators_):
        assert_the_tree_of_the_codes(member, code_member, codes, columns)


@pytest.mark.parametrize("boosting", ["reweight", "resample"])
def test_boosting_bins_once_and_keeps_categorical_features_unbinned(boosting, monkeypatch):
    calls = []
    for module in (_growth, fasttree.tree):
        counted = module.binned_features
        monkeypatch.setattr(module, "binned_features", lambda *args, counted=counted, **kwargs:
                            calls.append(1) or counted(*args, **kwargs))
    rng = np.random.default_rng(5)
    frame = pd.DataFrame({"colour": pd.Categorical(rng.choice(list("abcdefgh"), 400)),
                          "size": rng.normal(size=400)})
    y = (frame["colour"].isin(["b", "e", "h"]) ^ (frame["size"] > 0.3)).astype(int)
    params = dict(n_estimators=5, random_state=0, boosting=boosting)
    boosted = AdaBoostClassifier(DecisionTreeClassifier(max_depth=2, splitter="hist",
                                                        max_bins=3), **params).fit(frame, y)
    assert len(calls) == 1
    codes, _ = bin_matrix(frame[["size"]].to_numpy(), 3)
    of_codes = AdaBoostClassifier(DecisionTreeClassifier(max_depth=2), **params).fit(
        frame.assign(size=codes[:, 0]), y)
    np.testing.assert_array_equal(boosted.estimator_weights_, of_codes.estimator_weights_)
    for member, code_member in zip(boosted.estimators_, of_codes.estimators_):
        for name in ("children_left", "feature", "n_node_samples", "value"):
            np.testing.assert_array_equal(getattr(member.tree_, name),
                                          getattr(code_member.tree_, name))


def test_boosting_refuses_a_bad_max_bins_as_its_members_fit_does():
    X, y, _ = mixed_data(0)
    with pytest.raises(ValueError, match=r"The 'max_bins' parameter must be an int in the "
                                         r"range \[2, 65535\]"):
        AdaBoostClassifier(DecisionTreeClassifier(splitter="hist", max_bins="8"),
                           n_estimators=2).fit(X, y)


@pytest.mark.parametrize("regression", [False, True])
@pytest.mark.parametrize("max_bins", [2, 5, 40])
@pytest.mark.parametrize("seed", range(3))
def test_a_hist_extra_tree_is_the_random_tree_of_the_bin_codes(regression, max_bins, seed):
    # A boundary between bins is drawn as the random splitter draws a
    # threshold between the codes (the same random stream), so the trees
    # are the same.
    X, y, weights = mixed_data(seed, regression=regression)
    estimator_class = ExtraTreeRegressor if regression else ExtraTreeClassifier
    params = dict(random_state=seed, max_features=3)
    hist = estimator_class(splitter="hist", max_bins=max_bins, **params).fit(
        X, y, sample_weight=weights)
    codes, columns = bin_matrix(X, max_bins)
    of_codes = estimator_class(splitter="random", **params).fit(codes, y, sample_weight=weights)
    assert_the_tree_of_the_codes(hist, of_codes, codes, columns)
    np.testing.assert_array_equal(hist.apply(X), of_codes.apply(codes))


def test_a_hist_extra_tree_draws_every_boundary_between_its_bins_alike():
    # One feature of four bins at the root: over many seeds each of its
    # three boundaries is drawn about a third of the time.
    X = np.repeat(np.arange(4.0), 50)[:, None] ** 2
    y = np.arange(200) % 2
    thresholds = [ExtraTreeClassifier(splitter="hist", max_depth=1, random_state=seed)
                  .fit(X, y).tree_.threshold[0] for seed in range(600)]
    values, counts = np.unique(thresholds, return_counts=True)
    np.testing.assert_array_equal(values, [0.5, 2.5, 6.5])  # halfway between the squares
    assert counts.min() > 150


@pytest.mark.parametrize("forest_class", [RandomForestClassifier, ExtraTreesRegressor])
def test_a_hist_forest_bins_its_features_once_for_all_its_trees(forest_class, monkeypatch):
    calls = []
    counted = _growth.binned_features
    monkeypatch.setattr(_growth, "binned_features",
                        lambda *args, **kwargs: calls.append(1) or counted(*args, **kwargs))
    X, y, _ = mixed_data(1, regression=forest_class is ExtraTreesRegressor)
    forest_class(n_estimators=5, splitter="hist", max_bins=8, random_state=0, n_jobs=2).fit(X, y)
    assert len(calls) == 1


def test_extra_trees_forests_draw_their_thresholds_by_default():
    assert ExtraTreesClassifier().get_params()["splitter"] == "random"
    assert ExtraTreesRegressor().get_params()["max_bins"] == 255
    assert ExtraTreesClassifier(n_estimators=2).fit(*mixed_data(0)[:2]).estimators_[
        0].splitter == "random"


@pytest.mark.parametrize("estimator", [ExtraTreeClassifier(criterion="entropy", splitter="hist"),
                                       ExtraTreesClassifier(criterion="entropy"),
                                       DecisionTreeClassifier(criterion="entropy",
                                                              splitter="random")])
def test_multiway_trees_refuse_every_splitter_but_best_by_name(estimator):
    X, y, _ = mixed_data(0)
    with pytest.raises(ValueError, match=r"splitter='(hist|random)' is not supported with "
                                         r"categorical_split='multiway'; use splitter='best'"):
        estimator.set_params(categorical_split="multiway").fit(X, y)


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


@pytest.mark.parametrize("max_bins", [2, 65535])
def test_max_bins_takes_every_int_of_its_range(max_bins):
    X, y, _ = mixed_data(0)
    tree = DecisionTreeClassifier(splitter="hist", max_bins=max_bins, random_state=0).fit(X, y)
    codes, _ = bin_matrix(X, max_bins)
    np.testing.assert_array_equal(tree.apply(X), DecisionTreeClassifier(random_state=0).fit(
        codes, y).apply(codes))


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


def test_models_saved_before_splitter_and_max_bins_existed_load_with_the_defaults(tmp_path):
    X, y, _ = mixed_data(2)
    tree = DecisionTreeClassifier(max_depth=3, random_state=0).fit(X, y)
    forest = RandomForestClassifier(n_estimators=3, max_depth=3, random_state=0).fit(X, y)
    del tree.__dict__["max_bins"]  # as trees were saved before it existed
    del forest.__dict__["max_bins"], forest.__dict__["splitter"]
    for model in (tree, forest):
        loaded = pickle.loads(pickle.dumps(model))
        assert (loaded.max_bins, loaded.splitter) == (255, "best")
        np.testing.assert_array_equal(loaded.predict(X), model.predict(X))


@pytest.mark.parametrize("forest_class", [RandomForestClassifier, ExtraTreesRegressor])
def test_a_hist_forest_fits_a_memory_map_as_the_array_in_memory(forest_class, tmp_path):
    X, y, weights = mixed_data(2, regression=forest_class is ExtraTreesRegressor)
    np.save(tmp_path / "X.npy", X.astype(np.float32))
    mapped = np.load(tmp_path / "X.npy", mmap_mode="r")
    params = dict(n_estimators=3, splitter="hist", max_bins=20, random_state=0, n_jobs=2)
    from_map = forest_class(**params).fit(mapped, y, sample_weight=weights)
    in_memory = forest_class(**params).fit(X.astype(np.float32), y, sample_weight=weights)
    for member, other in zip(from_map.estimators_, in_memory.estimators_):
        assert_same_tree(member.tree_, other.tree_)


@pytest.mark.parametrize("bagging_class, regression", [(BaggingClassifier, False),
                                                       (BaggingRegressor, True)])
def test_bagged_hist_trees_bin_once_and_are_the_bagged_trees_of_the_codes(
        bagging_class, regression, monkeypatch):
    calls = []
    counted = fasttree.tree.binned_features
    monkeypatch.setattr(fasttree.tree, "binned_features",
                        lambda *args, **kwargs: calls.append(1) or counted(*args, **kwargs))
    X, y, weights = mixed_data(6, regression=regression)
    tree_class = DecisionTreeRegressor if regression else DecisionTreeClassifier
    params = dict(n_estimators=4, max_features=3, random_state=2, n_jobs=2)
    bagged = bagging_class(tree_class(splitter="hist", max_bins=10, min_samples_leaf=2),
                           **params).fit(X, y, sample_weight=weights)
    assert len(calls) == 1
    codes, columns = bin_matrix(X, 10)
    of_codes = bagging_class(tree_class(min_samples_leaf=2), **params).fit(
        codes, y, sample_weight=weights)
    for member, code_member, rows, features in zip(
            bagged.estimators_, of_codes.estimators_, bagged.estimators_samples_,
            bagged.estimators_features_):
        grown_on = np.bincount(rows, minlength=len(y)) > 0
        assert_the_tree_of_the_codes(member, code_member, codes[:, features],
                                     [columns[feature] for feature in features], grown_on)
