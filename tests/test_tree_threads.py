"""Threads inside one tree (``n_jobs`` of a tree, and of a forest with fewer
trees than threads): a large node's candidate features are swept on several
threads (``Splitter.set_threads``), and the tree is the one-thread tree, bit
for bit, whatever the number of threads.

The splitter's ``thread_min_work`` is lowered to 1 here so that every
node of these small trees is searched on threads (the default leaves small
nodes on one)."""

import pickle

import numpy as np
import pytest

import fasttree
import fasttree._splitter as splitter_module
from fasttree import (DecisionTreeClassifier, DecisionTreeRegressor, ExtraTreeClassifier,
                      ExtraTreeRegressor, ExtraTreesRegressor, RandomForestClassifier,
                      RandomForestRegressor)

TREE_ARRAYS = ("children_left", "children_right", "feature", "threshold", "n_node_samples",
               "weighted_n_node_samples", "value", "impurity", "missing_go_to_left")


@pytest.fixture(autouse=True)
def every_node_on_threads(monkeypatch):
    monkeypatch.setattr(splitter_module, "thread_min_work", 1)


def assert_same_tree(tree, other):
    for name in TREE_ARRAYS:
        np.testing.assert_array_equal(getattr(tree, name), getattr(other, name), err_msg=name)


def data(seed=0, n_samples=600, n_features=8, missing=False, constant=False, ties=False):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n_samples, n_features)).astype(np.float32)
    if ties:
        X = np.round(X * 2).astype(np.float32)
    signal = X[:, 0] - 0.5 * X[:, 1] + 0.3 * X[:, 2] * X[:, 3] + 0.5 * rng.normal(size=n_samples)
    if missing:
        X[rng.random(X.shape) < 0.1] = np.nan
    if constant:
        X[:, 1] = 3.0
        X[:, 5] = -1.0
    return X, signal


def fit_each(make, X, y, sample_weight=None, n_jobs=(1, 2, 3)):
    return [make(n_jobs=n).fit(X, y, sample_weight=sample_weight) for n in n_jobs]


def assert_same_for_any_n_jobs(make, X, y, sample_weight=None):
    first, *others = fit_each(make, X, y, sample_weight)
    for other in others:
        assert_same_tree(first.tree_, other.tree_)
    return first


CLASSIFIER_CASES = {
    "gini": {},
    "entropy": {"criterion": "entropy"},
    "hist": {"splitter": "hist", "max_bins": 16},
    "best_first": {"max_leaf_nodes": 40},
    "hist_best_first": {"splitter": "hist", "max_leaf_nodes": 40},
    "few_features": {"max_features": 3},
    "min_leaf": {"min_samples_leaf": 7, "max_features": 5},
    "balanced": {"class_weight": "balanced"},
    "interaction": {"interaction_cst": [[0, 1, 2], [2, 3, 4, 5, 6, 7]]},
}


@pytest.mark.parametrize("case", CLASSIFIER_CASES)
def test_a_classifier_is_the_same_tree_on_any_number_of_threads(case):
    X, signal = data(seed=1, missing=case == "gini", constant=case == "few_features")
    y = np.digitize(signal, [-0.5, 0.7])
    tree = assert_same_for_any_n_jobs(
        lambda n_jobs: DecisionTreeClassifier(random_state=3, n_jobs=n_jobs,
                                              **CLASSIFIER_CASES[case]), X, y)
    assert tree.tree_.node_count > 20


REGRESSOR_CASES = {
    "squared_error": {},
    "poisson": {"criterion": "poisson"},
    "absolute_error": {"criterion": "absolute_error", "max_depth": 6},
    "hist": {"splitter": "hist", "max_bins": 32},
    "best_first": {"max_leaf_nodes": 30, "max_features": 4},
    "monotonic": {"monotonic_cst": [1, -1, 0, 0, 0, 0, 0, 0]},
    "hist_monotonic": {"splitter": "hist", "monotonic_cst": [1, -1, 0, 0, 0, 0, 0, 0]},
}


@pytest.mark.parametrize("case", REGRESSOR_CASES)
def test_a_regressor_is_the_same_tree_on_any_number_of_threads(case):
    X, signal = data(seed=2, missing=case == "hist")
    y = np.exp(signal) if case == "poisson" else signal
    weights = np.random.default_rng(4).integers(0, 3, len(y)).astype(float)
    tree = assert_same_for_any_n_jobs(
        lambda n_jobs: DecisionTreeRegressor(random_state=5, n_jobs=n_jobs,
                                             **REGRESSOR_CASES[case]), X, y, weights)
    assert tree.tree_.node_count > 20


@pytest.mark.parametrize("regression", [False, True])
def test_several_outputs_are_the_same_tree_on_any_number_of_threads(regression):
    X, signal = data(seed=6)
    y = np.column_stack([signal, X[:, 4] + signal ** 2])
    if regression:
        make = lambda n_jobs: DecisionTreeRegressor(random_state=0, n_jobs=n_jobs)  # noqa: E731
    else:
        y = (y > 0).astype(int)
        make = lambda n_jobs: DecisionTreeClassifier(random_state=0, n_jobs=n_jobs)  # noqa: E731
    assert_same_for_any_n_jobs(make, X, y)


@pytest.mark.parametrize("splitter", ["best", "hist"])
def test_tied_and_duplicated_features_split_on_the_lowest_feature_on_any_number_of_threads(
        splitter):
    # Copies of a column tie exactly: the lowest copy wins, whichever the
    # threads swept first; integer values tie the thresholds of a feature.
    X, signal = data(seed=7, ties=True)
    X = np.column_stack([X[:, [3, 0, 1]], X[:, [0, 0, 1]], X[:, 2:]])
    y = (signal > 0.2).astype(int)
    tree = assert_same_for_any_n_jobs(
        lambda n_jobs: DecisionTreeClassifier(splitter=splitter, random_state=1,
                                              n_jobs=n_jobs), X, y)
    assert not np.isin(tree.tree_.feature, [3, 4]).any()
    regressor = assert_same_for_any_n_jobs(
        lambda n_jobs: DecisionTreeRegressor(splitter=splitter, random_state=1,
                                             max_features=6, n_jobs=n_jobs), X, signal)
    assert regressor.tree_.node_count > 20


@pytest.mark.parametrize("make", [ExtraTreeClassifier, ExtraTreeRegressor])
@pytest.mark.parametrize("splitter", ["random", "best", "hist"])
def test_an_extra_tree_is_the_same_tree_on_any_number_of_threads(make, splitter):
    X, signal = data(seed=8, missing=True)
    y = signal if make is ExtraTreeRegressor else (signal > 0).astype(int)
    assert_same_for_any_n_jobs(
        lambda n_jobs: make(splitter=splitter, random_state=2, n_jobs=n_jobs), X, y)


def test_categorical_features_are_swept_on_one_thread_with_the_same_tree():
    X, signal = data(seed=9)
    X[:, 2] = np.abs(np.round(X[:, 2] * 2))
    y = (signal > 0).astype(int)
    assert_same_for_any_n_jobs(
        lambda n_jobs: DecisionTreeClassifier(categorical_features=[2], random_state=0,
                                              n_jobs=n_jobs), X, y)


def splitter_for(criterion_class, X, y, **options):
    from fasttree._features import rank_features
    criterion = criterion_class(np.asarray(y, dtype=np.int32), np.ones(len(y)), 2)
    return fasttree._splitter.Splitter(criterion, rank_features(X), X.shape[1], 1, 0.0, 0,
                                       **options), criterion


def test_set_threads_takes_the_exact_sweeps_only():
    from fasttree._criterion_classification import Gini
    from fasttree._features import feature_columns
    X, signal = data(seed=10)
    y = (signal > 0).astype(int)
    splitter, criterion = splitter_for(Gini, X, y)
    other, _ = splitter_for(Gini, X, y)
    assert splitter.set_threads([other])
    lonely, shared = splitter_for(Gini, X, y)
    sharing = fasttree._splitter.Splitter(shared, fasttree._features.rank_features(X), 8, 1,
                                          0.0, 0)
    with pytest.raises(ValueError, match="criteria of their own"):
        lonely.set_threads([sharing])
    columns = feature_columns(X)
    random, _ = splitter_for(Gini, X, y, method=fasttree._splitter.SplitMethod.SPLIT_RANDOM,
                             columns=columns)
    other_random, _ = splitter_for(Gini, X, y,
                                   method=fasttree._splitter.SplitMethod.SPLIT_RANDOM,
                                   columns=columns)
    assert not random.set_threads([other_random])


def test_a_criterion_clone_has_the_same_class_and_targets():
    from fasttree._criterion_regression import Poisson
    target = np.linspace(1.0, 2.0, 10)
    criterion = Poisson(target, np.ones(10))
    clone = criterion.clone()
    assert type(clone) is Poisson and clone is not criterion
    assert clone.init_args[0][0] is target


@pytest.mark.parametrize("forest", [RandomForestClassifier, RandomForestRegressor,
                                    ExtraTreesRegressor])
@pytest.mark.parametrize("n_estimators", [1, 2])
def test_a_forest_of_fewer_trees_than_threads_is_the_same_forest(forest, n_estimators):
    X, signal = data(seed=11)
    y = signal if forest is not RandomForestClassifier else (signal > 0).astype(int)
    splitter = {"splitter": "best"} if forest is ExtraTreesRegressor else {}
    fitted = [forest(n_estimators=n_estimators, random_state=0, n_jobs=n_jobs,
                     **splitter).fit(X, y) for n_jobs in (1, 3, 4)]
    for other in fitted[1:]:
        for ours, theirs in zip(fitted[0].estimators_, other.estimators_):
            assert_same_tree(ours.tree_, theirs.tree_)


def test_n_jobs_is_a_parameter_kept_by_pickles_and_model_files(tmp_path):
    X, signal = data(seed=12)
    tree = DecisionTreeRegressor(max_depth=5, n_jobs=2).fit(X, signal)
    assert tree.get_params()["n_jobs"] == 2
    assert DecisionTreeClassifier().get_params()["n_jobs"] is None
    for loaded in (pickle.loads(pickle.dumps(tree)), tree.save(tmp_path / "tree") or
                   fasttree.load(tmp_path / "tree")):
        assert loaded.get_params() == tree.get_params()
        assert_same_tree(loaded.tree_, tree.tree_)
        np.testing.assert_array_equal(loaded.predict(X), tree.predict(X))


def test_a_tree_saved_before_n_jobs_loads_with_one_thread():
    X, signal = data(seed=13)
    tree = DecisionTreeRegressor(max_depth=4).fit(X, signal)
    del tree.__dict__["n_jobs"]
    loaded = pickle.loads(pickle.dumps(tree))
    assert loaded.n_jobs is None
    np.testing.assert_array_equal(loaded.predict(X), DecisionTreeRegressor(
        max_depth=4).fit(X, signal).predict(X))


@pytest.mark.parametrize("n_jobs", [0, 1.5, "2", True])
@pytest.mark.parametrize("make", [DecisionTreeClassifier, DecisionTreeRegressor,
                                  ExtraTreeClassifier, ExtraTreeRegressor])
def test_a_bad_n_jobs_is_refused_before_growing(make, n_jobs):
    X, signal = data(seed=14, n_samples=50)
    with pytest.raises(ValueError, match="n_jobs"):
        make(n_jobs=n_jobs).fit(X, (signal > 0).astype(int))


def test_n_jobs_minus_one_takes_every_core_and_grows_the_same_tree():
    X, signal = data(seed=15)
    assert_same_tree(DecisionTreeRegressor(random_state=0, n_jobs=-1).fit(X, signal).tree_,
                     DecisionTreeRegressor(random_state=0).fit(X, signal).tree_)
