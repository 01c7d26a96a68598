"""Categorical features in the estimators: binary subset splits found by the
kernel as ``fasttree.reference.mixed`` finds them, strings and pandas
categories straight into fit and predict, unseen categories as missing values.
"""

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from fasttree import DecisionTreeClassifier, DecisionTreeRegressor, _splitter
from fasttree.reference.mixed import build_mixed_tree
from mixed_trees import assert_same_tree, rows_clear_of
from tolerances import assert_rounding_close, data_scale


def mixed_data(seed, n_samples, n_categories, n_classes, share_missing):
    """Two categorical columns (codes), one numeric; a target that depends
    on a random subset of the first column's categories."""
    rng = np.random.default_rng(seed)
    X = np.column_stack([rng.integers(0, n_categories, n_samples),
                         rng.integers(0, max(2, n_categories // 3), n_samples),
                         rng.normal(size=n_samples)]).astype(np.float64)
    X[rng.random(X.shape) < share_missing] = np.nan
    effect = rng.normal(size=n_categories)
    signal = np.where(np.isnan(X[:, 0]), 0.3, effect[np.nan_to_num(X[:, 0]).astype(int)])
    signal += 0.5 * np.nan_to_num(X[:, 2])
    if n_classes is None:
        y = signal + rng.normal(scale=0.3, size=n_samples)
    else:
        y = np.digitize(signal + rng.normal(scale=0.4, size=n_samples),
                        np.quantile(signal, np.linspace(0, 1, n_classes + 1)[1:-1]))
    # Continuous weights: different splits do not tie exactly.
    return X, y, rng.uniform(0.5, 2.0, size=n_samples)


@given(seed=st.integers(0, 2**32 - 1), n_categories=st.sampled_from([2, 5, 12]),
       n_classes=st.sampled_from([None, 2, 3, 4]), share_missing=st.sampled_from([0.0, 0.2]),
       min_samples_leaf=st.sampled_from([1, 4]))
@settings(max_examples=80, deadline=None)
def test_trees_with_categorical_features_are_the_oracles(seed, n_categories, n_classes,
                                                         share_missing, min_samples_leaf):
    X, y, weights = mixed_data(seed, 150, n_categories, n_classes, share_missing)
    criterion = "squared_error" if n_classes is None else "gini"
    estimator_class = DecisionTreeRegressor if n_classes is None else DecisionTreeClassifier
    estimator = estimator_class(categorical_features=[0, 1], min_samples_leaf=min_samples_leaf,
                                random_state=0).fit(X, y, sample_weight=weights)
    oracle = build_mixed_tree(X, y, weights, categorical=[True, True, False],
                              criterion=criterion, n_classes=n_classes,
                              min_samples_leaf=min_samples_leaf)
    tied_nodes = []
    if not assert_same_tree(estimator, oracle, X, y, weights, criterion, tied_nodes):
        assert estimator.tree_.node_count == oracle.node_count
    assert estimator.tree_.is_categorical.any() or n_categories == 2
    # Fresh rows below a tie (two splits into pure children, in a node of a
    # few rows) may take different paths; every other row must be predicted
    # alike, and they are most rows.
    fresh, _, _ = mixed_data(seed + 1, 200, n_categories + 2, n_classes, 0.1)  # unseen codes
    clear = rows_clear_of(estimator, tied_nodes, fresh)
    assert clear.mean() >= 0.5
    got = (estimator.predict(fresh[clear]) if n_classes is None
           else estimator.predict_proba(fresh[clear]))
    expected = oracle.predict_value(_unseen_as_missing(fresh, X)[clear])
    assert_rounding_close(got, expected, scale=data_scale(y) if n_classes is None else 1.0)


def _unseen_as_missing(fresh, X):
    """The codes fit never saw, as missing values (what encoding makes of them)."""
    fresh = fresh.copy()
    for column in (0, 1):
        seen = np.unique(X[:, column][~np.isnan(X[:, column])])
        fresh[~np.isin(fresh[:, column], seen), column] = np.nan
    return fresh


@given(seed=st.integers(0, 2**32 - 1), n_categories=st.sampled_from([3, 40, 3000]),
       n_classes=st.sampled_from([None, 2, 5]))
@settings(max_examples=40, deadline=None)
def test_counted_and_sorted_category_sweeps_grow_the_same_tree(seed, n_categories, n_classes):
    # 3,000 categories in 600 rows: most nodes number their categories after
    # a sort; few categories take the histograms.
    X, y, _ = mixed_data(seed, 600, n_categories, n_classes, 0.1)
    estimator_class = DecisionTreeRegressor if n_classes is None else DecisionTreeClassifier
    trees = []
    for method in (_splitter.SplitMethod.SPLIT_SORT, _splitter.SplitMethod.SPLIT_COUNT,
                   _splitter.SplitMethod.SPLIT_AUTO):
        previous = _splitter.split_method
        _splitter.split_method = method
        try:
            trees.append(estimator_class(categorical_features=[0, 1], random_state=0)
                         .fit(X, y).tree_)
        finally:
            _splitter.split_method = previous
    for tree in trees[1:]:
        np.testing.assert_array_equal(tree.nodes, trees[0].nodes)
        np.testing.assert_array_equal(tree.flags, trees[0].flags)
        np.testing.assert_array_equal(tree.category_bits, trees[0].category_bits)
        np.testing.assert_array_equal(tree.value, trees[0].value)


def many_class_data(seed, n_samples, n_levels, n_classes, share_missing, weight_kind):
    """Three categorical columns of many levels (codes) and a target of many
    classes, encoded 0 .. n - 1, that follows the first column loosely;
    weights of one, whole, continuous, or with zeros among them."""
    rng = np.random.default_rng(seed)
    levels = rng.integers(0, n_levels, (n_samples, 3))
    class_of_level = rng.integers(0, n_classes, n_levels)
    y = np.where(rng.random(n_samples) < 0.5, class_of_level[levels[:, 0]],
                 rng.integers(0, n_classes, n_samples))
    # Codes 0 .. n - 1 of the levels left after the gaps, as the estimators
    # number them (the oracle reads codes as they are).
    X = np.full(levels.shape, np.nan)
    known = rng.random(levels.shape) >= share_missing
    for column in range(3):
        X[known[:, column], column] = np.unique(levels[known[:, column], column],
                                                return_inverse=True)[1]
    y = np.unique(y, return_inverse=True)[1]
    weights = {"ones": np.ones(n_samples),
               "whole": rng.integers(1, 4, n_samples).astype(np.float64),
               "continuous": rng.uniform(0.5, 2.0, n_samples),
               "zeros": rng.integers(0, 3, n_samples).astype(np.float64)}[weight_kind]
    weights[0] = 1.0  # not all zero
    return X, y, weights


@given(seed=st.integers(0, 2**32 - 1), n_levels=st.sampled_from([4, 9, 14]),
       n_classes=st.sampled_from([3, 6, 11]), share_missing=st.sampled_from([0.0, 0.2]),
       criterion=st.sampled_from(["gini", "entropy", "misclassification"]),
       weight_kind=st.sampled_from(["ones", "whole", "continuous"]))
@settings(max_examples=60, deadline=None)
# A node whose every split improves misclassification by zero, rounded
# below -epsilon: a leaf in the estimator, split by the oracle.
@example(seed=164, n_levels=4, n_classes=3, share_missing=0.2,
         criterion="misclassification", weight_kind="continuous")
def test_trees_of_many_classes_and_categories_are_the_oracles(seed, n_levels, n_classes,
                                                              share_missing, criterion,
                                                              weight_kind):
    # Every class's ordering, each category alone, the missing values on
    # either side: the oracle tries them all by brute force.
    X, y, weights = many_class_data(seed, 45, n_levels, n_classes, share_missing, weight_kind)
    estimator = DecisionTreeClassifier(categorical_features=[0, 1, 2], criterion=criterion,
                                       random_state=0).fit(X, y, sample_weight=weights)
    oracle = build_mixed_tree(X, y, weights, categorical=[True, True, True],
                              criterion=criterion, n_classes=int(y.max()) + 1)
    if assert_same_tree(estimator, oracle, X, y, weights, criterion) == 0:
        assert estimator.tree_.node_count == oracle.node_count


def fit_without_subset_shortcuts(estimator, X, y, weights):
    previous = _splitter.subset_shortcuts
    _splitter.subset_shortcuts = False
    try:
        return estimator.fit(X, y, sample_weight=weights)
    finally:
        _splitter.subset_shortcuts = previous


@given(seed=st.integers(0, 2**32 - 1), n_levels=st.sampled_from([3, 20, 120]),
       n_classes=st.sampled_from([2, 5, 40, 150]), share_missing=st.sampled_from([0.0, 0.15]),
       criterion=st.sampled_from(["gini", "entropy", "misclassification", "loss_matrix"]),
       weight_kind=st.sampled_from(["ones", "whole", "continuous", "zeros"]),
       params=st.sampled_from([{}, {"min_samples_leaf": 3}, {"splitter": "random"},
                               {"min_weight_fraction_leaf": 0.05}]))
@settings(max_examples=80, deadline=None)
def test_subset_sweep_shortcuts_grow_the_same_tree_bit_for_bit(seed, n_levels, n_classes,
                                                                share_missing, criterion,
                                                                weight_kind, params):
    X, y, weights = many_class_data(seed, 300, n_levels, n_classes, share_missing, weight_kind)
    if criterion == "loss_matrix":
        n_seen = int(y.max()) + 1
        params = {**params, "loss_matrix": np.random.default_rng(seed).uniform(
            0.5, 2.0, (n_seen, n_seen)) * (1 - np.eye(n_seen))}
        criterion = "gini"
    def make():
        return DecisionTreeClassifier(categorical_features=[0, 1, 2], criterion=criterion,
                                      random_state=seed % 1000, **params)

    fast = make().fit(X, y, sample_weight=weights).tree_
    plain = fit_without_subset_shortcuts(make(), X, y, weights).tree_
    for name in ("nodes", "flags", "category_bits", "value"):
        np.testing.assert_array_equal(getattr(fast, name), getattr(plain, name))


def test_breimans_ordering_splits_off_the_best_subset_at_once():
    # Two classes: categories {0, 3, 5} hold class 1. One split separates them.
    rng = np.random.default_rng(0)
    codes = rng.integers(0, 7, 700)
    y = np.isin(codes, [0, 3, 5]).astype(int)
    estimator = DecisionTreeClassifier(categorical_features=[0]).fit(codes[:, None], y)
    tree = estimator.tree_
    assert tree.node_count == 3 and tree.is_categorical[0]
    left = set(tree.left_categories(0).tolist())
    assert left in ({0, 3, 5}, {1, 2, 4, 6})


def test_strings_and_pandas_categories_go_straight_into_fit_and_predict():
    import pandas as pd

    rng = np.random.default_rng(1)
    colours = np.array(["red", "green", "blue", "teal"])[rng.integers(0, 4, 500)]
    sizes = rng.normal(size=500)
    y = ((colours == "red") | (colours == "teal")) ^ (sizes > 1.0)
    frame = pd.DataFrame({"colour": colours, "size": sizes})
    as_category = frame.assign(colour=frame["colour"].astype("category"))
    as_objects = np.array(frame.to_numpy(dtype=object))
    predictions = []
    for X in (frame, as_category, as_objects):
        estimator = DecisionTreeClassifier(random_state=0).fit(X, y)
        np.testing.assert_array_equal(estimator.is_categorical_, [True, False])
        assert list(estimator.categories_[0]) == ["blue", "green", "red", "teal"]
        predictions.append(estimator.predict(X))
        assert (predictions[-1] == y).mean() == 1.0
    np.testing.assert_array_equal(predictions[0], predictions[1])
    np.testing.assert_array_equal(predictions[0], predictions[2])


def test_unseen_and_missing_categories_go_where_missing_values_go():
    import pandas as pd

    X = pd.DataFrame({"city": ["oslo", "rome", "oslo", "rome", None, "lima", "lima", None]})
    y = [0, 1, 0, 1, 1, 0, 0, 1]
    estimator = DecisionTreeClassifier().fit(X, y)
    tree = estimator.tree_
    assert tree.is_categorical[0]
    missing_left = tree.missing_go_to_left[0] == 1
    fresh = pd.DataFrame({"city": ["paris", None, np.nan, "rome"]})
    leaves = estimator.apply(fresh)
    missing_leaf = tree.children_left[0] if missing_left else tree.children_right[0]
    assert (leaves[:3] == missing_leaf).all()
    np.testing.assert_array_equal(estimator.predict(fresh), [1, 1, 1, 1])


def test_a_regression_tree_orders_categories_by_mean_target():
    codes = np.repeat(np.arange(6), 50)
    means = np.array([5.0, -1.0, 3.0, -2.0, 4.0, 0.0])
    y = means[codes] + np.random.default_rng(2).normal(scale=0.1, size=codes.size)
    tree = DecisionTreeRegressor(max_depth=1, categorical_features=[0]).fit(
        codes[:, None].astype(float), y).tree_
    assert set(tree.left_categories(0).tolist()) in ({1, 3, 5}, {0, 2, 4})


@pytest.mark.parametrize("categorical_features", [[0], [True, False], ["c"], "from_dtype"])
def test_categorical_features_take_indices_masks_names_and_dtypes(categorical_features):
    import pandas as pd

    X = pd.DataFrame({"c": pd.Categorical(list("abcab") * 20), "x": np.arange(100.0)})
    estimator = DecisionTreeClassifier(categorical_features=categorical_features).fit(
        X, [0, 1, 1, 0, 1] * 20)
    np.testing.assert_array_equal(estimator.is_categorical_, [True, False])


def test_without_categorical_features_no_encoding_is_kept():
    estimator = DecisionTreeClassifier().fit(np.eye(4), [0, 1, 0, 1])
    assert not hasattr(estimator, "is_categorical_")
    estimator.set_params(categorical_features=[0]).fit(np.eye(4), [0, 1, 0, 1])
    assert estimator.is_categorical_.tolist() == [True, False, False, False]
    estimator.set_params(categorical_features=None).fit(np.eye(4), [0, 1, 0, 1])
    assert not hasattr(estimator, "is_categorical_")


@pytest.mark.parametrize("categorical_features, message", [
    ("auto", "categorical_features must be None, 'from_dtype'"),
    ([5], r"indices must lie in \[0, 2\)"),
    ([True], "needs 2 entries"),
    (["nope"], "names unknown features"),
])
def test_bad_categorical_features_are_refused_with_a_clear_message(categorical_features,
                                                                   message):
    import pandas as pd

    X = pd.DataFrame({"c": list("abab"), "x": [1.0, 2.0, 3.0, 4.0]})
    with pytest.raises(ValueError, match=message):
        DecisionTreeClassifier(categorical_features=categorical_features).fit(X, [0, 1, 0, 1])


def test_a_string_column_not_marked_categorical_is_refused():
    X = np.array([["a", 1.0], ["b", 2.0]], dtype=object)
    with pytest.raises(ValueError, match=r"feature 0 holds values that are not numbers; "
                                         r"mark it categorical \(categorical_features\)"):
        DecisionTreeClassifier(categorical_features=None).fit(X, [0, 1])


def test_a_column_of_thousands_of_categories_fits_and_predicts():
    rng = np.random.default_rng(3)
    n_categories = 5000
    codes = rng.integers(0, n_categories, 40_000)
    effect = rng.normal(size=n_categories)
    y = (effect[codes] + rng.normal(scale=0.5, size=codes.size) > 0).astype(int)
    postcodes = np.array([f"PC{code:05d}" for code in range(n_categories)])[codes]
    X = np.column_stack([postcodes, rng.normal(size=codes.size)]).astype(object)
    X[:, 1] = X[:, 1].astype(float)
    estimator = DecisionTreeClassifier(min_samples_leaf=20, random_state=0).fit(X, y)
    assert estimator.tree_.is_categorical[0]
    assert len(estimator.categories_[0]) == n_categories
    truth = (effect[codes] > 0).astype(int)
    assert (estimator.predict(X) == truth).mean() > 0.85


def frame_with_strings_and_gaps(seed, n_samples):
    import pandas as pd

    rng = np.random.default_rng(seed)
    colour = np.array(["red", "green", "blue", "teal", "gold"], dtype=object)[
        rng.integers(0, 5, n_samples)]
    colour[rng.random(n_samples) < 0.1] = None
    size = rng.normal(size=n_samples)
    size[rng.random(n_samples) < 0.1] = np.nan
    signal = np.isin(colour, ["red", "teal"]) + 0.8 * np.nan_to_num(size)
    frame = pd.DataFrame({"colour": colour, "size": size,
                          "grade": pd.Categorical(rng.choice(["a", "b", "c"], n_samples))})
    return frame, signal + rng.normal(scale=0.3, size=n_samples)


ENSEMBLES = ["RandomForestClassifier", "RandomForestRegressor", "BaggingClassifier",
             "BaggingRegressor", "AdaBoostClassifier", "AdaBoostRegressor"]


@pytest.mark.parametrize("name", ENSEMBLES)
def test_every_ensemble_takes_strings_categories_and_missing_values(name):
    import pickle

    import fasttree

    frame, signal = frame_with_strings_and_gaps(0, 600)
    classifier = name.endswith("Classifier")
    y = (signal > 0.5).astype(int) if classifier else signal
    params = {"random_state": 0, "n_estimators": 8}
    if name.startswith("Bagging"):
        tree_class = DecisionTreeClassifier if classifier else DecisionTreeRegressor
        params["estimator"] = tree_class(max_depth=6)
    model = getattr(fasttree, name)(**params).fit(frame, y)
    np.testing.assert_array_equal(model.is_categorical_, [True, False, True])
    fresh, _ = frame_with_strings_and_gaps(1, 300)
    fresh.loc[:20, "colour"] = "violet"  # never seen in fit
    predicted = model.predict(fresh)
    assert predicted.shape == (300,)
    if classifier:
        assert (model.predict(frame) == y).mean() > 0.8
    else:
        assert np.corrcoef(model.predict(frame), y)[0, 1] > 0.8
    restored = pickle.loads(pickle.dumps(model))
    np.testing.assert_array_equal(restored.predict(fresh), predicted)
    if "n_jobs" in model.get_params():
        np.testing.assert_array_equal(
            model.set_params(n_jobs=2).fit(frame, y).predict(fresh), predicted)


def test_forest_members_predict_strings_as_the_forest_reads_them():
    from fasttree import RandomForestRegressor

    frame, y = frame_with_strings_and_gaps(2, 400)
    forest = RandomForestRegressor(n_estimators=5, random_state=0).fit(frame, y)
    members = np.mean([member.predict(frame) for member in forest.estimators_], axis=0)
    assert_rounding_close(forest.predict(frame), members, scale=data_scale(y))


def test_warm_start_refuses_other_categories():
    from fasttree import RandomForestClassifier

    frame, signal = frame_with_strings_and_gaps(3, 300)
    y = (signal > 0.5).astype(int)
    forest = RandomForestClassifier(n_estimators=3, warm_start=True, random_state=0)
    forest.fit(frame, y)
    other = frame.assign(colour=frame["colour"].replace({"gold": "silver"}))
    with pytest.raises(ValueError, match="categorical features or their categories differ"):
        forest.set_params(n_estimators=5).fit(other, y)
