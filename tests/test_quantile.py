"""Quantile regression forests (``quantile.py``): predictions against the
oracle on the fitted trees' own leaves, quantile-forest's shapes and
options, out-of-bag quantiles, leaf lists kept and stored, and errors."""

import pickle

import numpy as np
import pytest

import fasttree
from fasttree import ExtraTreesQuantileRegressor, ModelFileError, RandomForestQuantileRegressor
from fasttree.reference.quantile_forest import (leaf_entries, quantile_forest_means,
                                                quantile_forest_predict,
                                                quantile_forest_ranks)

QUANTILES = [0.05, 0.25, 0.5, 0.9, 0.95]


def heteroscedastic(n_samples, seed=0, ties=False):
    """y = x0 + noise whose spread grows with x1: intervals must widen with x1."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(0, 1, size=(n_samples, 4))
    y = 3 * X[:, 0] + rng.normal(size=n_samples) * (0.2 + 2 * X[:, 1])
    if ties:
        y = np.round(y, 1)
    return X, y


def oracle_of(forest, X_train, y, sample_weight=None):
    """The oracle's leaf lists of a fitted forest: its trees' leaves of the
    training rows and their draws."""
    leaves = np.array([tree.apply(X_train) for tree in forest._trees])
    if forest.bootstrap:
        counts = np.array([forest._tree_counts(index) for index in range(len(forest._trees))])
        sample_weight = None  # the draws carry the weights
    else:
        counts = np.ones_like(leaves)
    return leaf_entries(leaves, counts, y, sample_weight)


def row_leaves_of(forest, X):
    return np.array([tree.apply(X) for tree in forest._trees]).T


@pytest.mark.parametrize("estimator,weighted", [
    (RandomForestQuantileRegressor, False), (RandomForestQuantileRegressor, True),
    (ExtraTreesQuantileRegressor, False), (ExtraTreesQuantileRegressor, True)])
@pytest.mark.parametrize("interpolation", ["linear", "lower", "higher", "midpoint", "nearest"])
def test_quantiles_equal_the_oracle_on_the_forests_own_leaves(estimator, weighted,
                                                              interpolation):
    X, y = heteroscedastic(300, ties=True)
    weights = np.random.default_rng(1).choice([0.0, 0.5, 1.0, 2.0], size=300) if weighted \
        else None
    forest = estimator(12, max_samples_leaf=None, min_samples_leaf=3, random_state=0)
    forest.fit(X[:200], y[:200], sample_weight=None if weights is None else weights[:200])
    trees = oracle_of(forest, X[:200].astype(np.float32), y[:200],
                      None if weights is None else weights[:200])
    leaves = row_leaves_of(forest, X[200:].astype(np.float32))
    np.testing.assert_array_equal(
        forest.predict(X[200:], quantiles=QUANTILES, interpolation=interpolation),
        quantile_forest_predict(trees, leaves, QUANTILES, interpolation))
    np.testing.assert_array_equal(forest.predict(X[200:], quantiles="mean"),
                                  quantile_forest_means(trees, leaves))
    for kind in ("rank", "weak", "strict", "mean"):
        np.testing.assert_array_equal(forest.quantile_ranks(X[200:], y[200:], kind=kind),
                                      quantile_forest_ranks(trees, leaves, y[200:], kind))
    # Every target weighing alike, whatever its leaf's size (quantile-forest's default).
    np.testing.assert_array_equal(
        forest.predict(X[200:], quantiles=QUANTILES, interpolation=interpolation,
                       weighted_leaves=False),
        quantile_forest_predict(trees, leaves, QUANTILES, interpolation, tree_weighted=False))
    np.testing.assert_array_equal(
        forest.predict(X[200:], quantiles="mean", weighted_leaves=False),
        quantile_forest_means(trees, leaves, tree_weighted=False))
    # quantile-forest's weighted_quantile=False (in its place among the
    # arguments): every target alike, as weighted_leaves=False.
    np.testing.assert_array_equal(
        forest.predict(X[200:], QUANTILES, interpolation, False),
        quantile_forest_predict(trees, leaves, QUANTILES, interpolation, tree_weighted=False))
    np.testing.assert_array_equal(
        forest.predict(X[200:], QUANTILES, interpolation, True),
        forest.predict(X[200:], quantiles=QUANTILES, interpolation=interpolation))
    np.testing.assert_array_equal(
        forest.quantile_ranks(X[200:], y[200:], weighted_leaves=False),
        quantile_forest_ranks(trees, leaves, y[200:], "rank", tree_weighted=False))
    # Each tree's quantiles of its own leaf, averaged over the trees.
    np.testing.assert_array_equal(
        forest.predict(X[200:], quantiles=QUANTILES, interpolation=interpolation,
                       aggregate_leaves_first=False),
        quantile_forest_predict(trees, leaves, QUANTILES, interpolation, pooled=False))
    np.testing.assert_array_equal(
        forest.predict(X[200:], quantiles="mean", weighted_leaves=False,
                       aggregate_leaves_first=False),
        quantile_forest_means(trees, leaves))


@pytest.mark.filterwarnings("ignore:Some inputs do not have OOB scores")
def test_out_of_bag_quantiles_equal_the_oracle_without_each_rows_trees():
    X, y = heteroscedastic(250, seed=3)
    forest = RandomForestQuantileRegressor(15, max_samples_leaf=None, min_samples_leaf=2,
                                           random_state=0).fit(X, y)
    trees = oracle_of(forest, X.astype(np.float32), y)
    counts = np.array([forest._tree_counts(index) for index in range(15)]).T
    leaves = np.where(counts > 0, -1, row_leaves_of(forest, X.astype(np.float32)))
    np.testing.assert_array_equal(forest.predict(X, quantiles=QUANTILES, oob_score=True),
                                  quantile_forest_predict(trees, leaves, QUANTILES))
    # indices name the training rows of some rows of X; -1 is a new row.
    rows = np.array([5, 17, -1, 3])
    part = forest.predict(X[[5, 17, 40, 3]], quantiles=QUANTILES, oob_score=True,
                          indices=rows)
    full = forest.predict(X[[40]], quantiles=QUANTILES)
    np.testing.assert_array_equal(part[[0, 1, 3]], forest.predict(
        X, quantiles=QUANTILES, oob_score=True)[[5, 17, 3]])
    np.testing.assert_array_equal(part[2], full[0])
    # Out of bag, a row's own target is never in its leaves: its quantile
    # rank is not pulled to the middle as in bag.
    in_bag = forest.quantile_ranks(X, y, kind="weak")
    out_of_bag = forest.quantile_ranks(X, y, kind="weak", oob_score=True)
    assert np.nanstd(out_of_bag) > np.std(in_bag)


def test_one_target_per_leaf_gives_numpys_quantiles_of_the_trees_picks():
    # max_samples_leaf=1 (quantile-forest's default): each tree gives one
    # training target, and the quantiles are np.quantile's of those.
    X, y = heteroscedastic(400, seed=2)
    forest = RandomForestQuantileRegressor(25, min_samples_leaf=5, random_state=0)
    forest.fit(X[:300], y[:300])
    lists = forest._leaf_lists
    assert np.all(lists["sizes"] == 1)
    starts = np.concatenate([[0], np.cumsum(lists["sizes"], dtype=np.int64)])
    picks = lists["targets"][0][lists["entries"][0][starts[:-1]]]
    leaf_offsets = np.cumsum([0] + [tree.n_leaves for tree in forest._trees[:-1]])
    node_to_leaf = [np.cumsum(tree.nodes["left_child"] == -1) - 1 for tree in forest._trees]
    per_tree = np.array([picks[offset + node_to_leaf[t][tree.apply(X[300:].astype(np.float32))]]
                         for t, (tree, offset) in enumerate(zip(forest._trees, leaf_offsets))]).T
    for method in ("linear", "lower", "higher", "midpoint"):
        np.testing.assert_allclose(
            forest.predict(X[300:], quantiles=QUANTILES, interpolation=method),
            np.quantile(per_tree, QUANTILES, axis=1, method=method).T, rtol=1e-12, atol=1e-12)
    # Each pick is a target its tree drew into that leaf.
    trees = oracle_of(forest, X[:300].astype(np.float32), y[:300])
    for t, tree in enumerate(forest._trees):
        for node, leaf in enumerate(node_to_leaf[t]):
            if tree.nodes["left_child"][node] == -1:
                drawn = {value for _, value, _ in trees[t][node]}
                assert picks[leaf_offsets[t] + leaf] in drawn


@pytest.mark.parametrize("limit", [2, 5, 0.01])
def test_max_samples_leaf_keeps_a_random_part_of_each_leafs_draws(limit):
    X, y = heteroscedastic(500, seed=4)
    forest = RandomForestQuantileRegressor(6, max_samples_leaf=limit, min_samples_leaf=4,
                                           random_state=0).fit(X, y)
    full = oracle_of(forest, X.astype(np.float32), y)
    most = 5 if limit == 0.01 else limit
    lists = forest._leaf_lists
    starts = np.concatenate([[0], np.cumsum(lists["sizes"], dtype=np.int64)])
    leaf = 0
    for t, tree in enumerate(forest._trees):
        for node in np.flatnonzero(tree.nodes["left_child"] == -1):
            kept = lists["entries"][0][starts[leaf]:starts[leaf + 1]].tolist()
            drawn = [rank for rank, _, _ in full[t][node]]
            assert kept == sorted(kept)
            assert len(kept) == min(most, len(drawn))
            for rank in set(kept):
                assert kept.count(rank) <= drawn.count(rank)
            leaf += 1


def test_rows_of_zero_weight_stay_out_of_the_lists_and_the_model_reloads(tmp_path):
    # (Found by the API fuzz: the weights of such rows made the model file
    # refuse to load.)
    X, y = heteroscedastic(9, seed=13)
    weights = np.array([0, 1, 2, 3, 1, 2, 0, 1, 3], dtype=np.float64)
    forest = ExtraTreesQuantileRegressor(4, max_samples_leaf=None, random_state=0).fit(
        X, y, sample_weight=weights)
    kept = forest._leaf_lists["rank_weights"][0][forest._leaf_lists["entries"][0]]
    assert (kept > 0).all()
    forest.save(tmp_path / "model.ftm")
    np.testing.assert_array_equal(fasttree.load(tmp_path / "model.ftm").predict(X, [0.2, 0.7]),
                                  forest.predict(X, [0.2, 0.7]))


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_same_quantiles_for_any_n_jobs_refit_pickle_and_model_file(n_jobs, tmp_path):
    X, y = heteroscedastic(600, seed=5)
    params = dict(n_estimators=20, min_samples_leaf=3, random_state=7, max_samples_leaf=3)
    reference = RandomForestQuantileRegressor(**params, n_jobs=1).fit(X, y)
    forest = RandomForestQuantileRegressor(**params, n_jobs=n_jobs).fit(X, y)
    expected = reference.predict(X[:50], quantiles=QUANTILES)
    np.testing.assert_array_equal(forest.predict(X[:50], quantiles=QUANTILES), expected)
    np.testing.assert_array_equal(forest.fit(X, y).predict(X[:50], quantiles=QUANTILES),
                                  expected)
    restored = pickle.loads(pickle.dumps(forest))
    np.testing.assert_array_equal(restored.predict(X[:50], quantiles=QUANTILES), expected)
    forest.save(tmp_path / "model.ftm")
    loaded = fasttree.load(tmp_path / "model.ftm")
    assert type(loaded) is RandomForestQuantileRegressor
    np.testing.assert_array_equal(loaded.predict(X[:50], quantiles=QUANTILES), expected)
    np.testing.assert_array_equal(loaded.quantile_ranks(X[:50], y[:50]),
                                  reference.quantile_ranks(X[:50], y[:50]))


def test_warm_start_equals_one_fit():
    X, y = heteroscedastic(300, seed=6)
    params = dict(min_samples_leaf=3, random_state=1, max_samples_leaf=2)
    grown = RandomForestQuantileRegressor(8, warm_start=True, **params).fit(X, y)
    grown.set_params(n_estimators=14).fit(X, y)
    whole = RandomForestQuantileRegressor(14, **params).fit(X, y)
    np.testing.assert_array_equal(grown.predict(X, quantiles=QUANTILES),
                                  whole.predict(X, quantiles=QUANTILES))


def test_shapes_follow_quantile_forest():
    X, y = heteroscedastic(200)
    forest = RandomForestQuantileRegressor(5, random_state=0).fit(X, y)
    assert forest.predict(X).shape == (200,)
    assert forest.predict(X, quantiles=0.3).shape == (200,)
    assert forest.predict(X, quantiles=[0.3]).shape == (200,)
    assert forest.predict(X, quantiles=[0.1, 0.9]).shape == (200, 2)
    assert forest.predict(X, quantiles="mean").shape == (200,)
    np.testing.assert_array_equal(forest.predict(X), forest.predict(X, quantiles=0.5))
    two = np.column_stack([y, -2 * y])
    multi = RandomForestQuantileRegressor(5, random_state=0, max_samples_leaf=None).fit(X, two)
    both = multi.predict(X, quantiles=[0.1, 0.5, 0.9])
    assert both.shape == (200, 2, 3)
    leaves = row_leaves_of(multi, X.astype(np.float32))
    for output in range(2):
        trees = oracle_of(multi, X.astype(np.float32), two[:, output])
        np.testing.assert_array_equal(both[:, output],
                                      quantile_forest_predict(trees, leaves, [0.1, 0.5, 0.9]))
    assert multi.quantile_ranks(X, two).shape == (200, 2)
    assert multi.predict(X, quantiles="mean").shape == (200, 2)
    mean_default = RandomForestQuantileRegressor(5, default_quantiles="mean",
                                                 random_state=0).fit(X, y)
    np.testing.assert_array_equal(mean_default.predict(X), mean_default.predict(X, "mean"))


def test_intervals_widen_where_the_noise_does_and_cover_new_rows():
    X, y = heteroscedastic(4000, seed=8)
    forest = RandomForestQuantileRegressor(60, min_samples_leaf=5, max_samples_leaf=None,
                                           random_state=0, n_jobs=2).fit(X[:3000], y[:3000])
    low, high = forest.predict(X[3000:], quantiles=[0.05, 0.95]).T
    width = high - low
    noisy = X[3000:, 1] > 0.5
    assert width[noisy].mean() > 1.5 * width[~noisy].mean()
    covered = np.mean((y[3000:] >= low) & (y[3000:] <= high))
    assert 0.85 <= covered <= 0.99
    # The mean of the leaves' targets is close to the forest's own mean.
    np.testing.assert_allclose(forest.predict(X[3000:], "mean"),
                               fasttree.RandomForestRegressor(
                                   60, min_samples_leaf=5, random_state=0).fit(
                                   X[:3000], y[:3000]).predict(X[3000:]), atol=0.35)


def test_float32_targets_round_the_stored_targets_only():
    X, y = heteroscedastic(300, seed=9)
    y = y * 1000 + 0.123456789
    params = dict(n_estimators=6, random_state=0, max_samples_leaf=None)
    wide = RandomForestQuantileRegressor(**params).fit(X, y)
    narrow = RandomForestQuantileRegressor(**params, target_dtype="float32").fit(X, y)
    assert narrow._leaf_lists["targets"].dtype == np.float32
    lower = dict(quantiles=QUANTILES, interpolation="lower")
    np.testing.assert_array_equal(narrow.predict(X, **lower),
                                  wide.predict(X, **lower).astype(np.float32))
    assert len(pickle.dumps(narrow)) < len(pickle.dumps(wide))


def test_leaf_lists_are_stored_narrow_and_compressed():
    X, y = heteroscedastic(1000, seed=10)
    forest = RandomForestQuantileRegressor(10, min_samples_leaf=5, random_state=0).fit(X, y)
    assert forest._leaf_lists["entries"].dtype == np.uint16
    assert forest._leaf_lists["sizes"].dtype == np.uint8
    plain = fasttree.RandomForestRegressor(10, min_samples_leaf=5, random_state=0).fit(X, y)
    # The lists add at most their arrays' bytes to the forest's pickle (the
    # sizes, all 1, compress to nearly nothing).
    lists = forest._leaf_lists
    assert len(pickle.dumps(forest)) - len(pickle.dumps(plain)) < (
        lists["targets"].nbytes + lists["entries"].nbytes + 500)


@pytest.mark.parametrize("call,message", [
    (lambda f, X: f.predict(X, quantiles=1.5), "range"),
    (lambda f, X: f.predict(X, quantiles="median"), "quantiles must be"),
    (lambda f, X: f.predict(X, quantiles=[]), "non-empty"),
    (lambda f, X: f.predict(X, quantiles=[0.5, True]), "range"),
    (lambda f, X: f.predict(X, interpolation="cubic"), "interpolation"),
    (lambda f, X: f.predict(X, weighted_leaves="no"), "weighted_leaves"),
    (lambda f, X: f.predict(X, weighted_quantile=0), "weighted_quantile"),
    (lambda f, X: f.predict(X, aggregate_leaves_first=None), "aggregate_leaves_first"),
    (lambda f, X: f.predict(X[:10], oob_score=True), "training rows"),
    (lambda f, X: f.predict(X[:3], oob_score=True, indices=[0, 1, 10 ** 6]), "indices"),
    (lambda f, X: f.quantile_ranks(X, np.zeros(3)), "y must have shape"),
    (lambda f, X: f.quantile_ranks(X, np.zeros(len(X)), kind="median"), "kind"),
])
def test_bad_arguments_are_refused_by_name(call, message):
    X, y = heteroscedastic(100)
    forest = RandomForestQuantileRegressor(3, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match=message):
        call(forest, X)


@pytest.mark.parametrize("params,message", [
    (dict(max_samples_leaf=0), "max_samples_leaf"),
    (dict(max_samples_leaf=1.5), "max_samples_leaf"),
    (dict(max_samples_leaf="all"), "max_samples_leaf"),
    (dict(target_dtype="float16"), "target_dtype"),
    (dict(default_quantiles=2), "range"),
])
def test_bad_parameters_are_refused_at_fit(params, message):
    X, y = heteroscedastic(50)
    with pytest.raises(ValueError, match=message):
        RandomForestQuantileRegressor(3, **params).fit(X, y)


def test_out_of_bag_needs_a_bootstrap_and_warns_for_rows_every_tree_drew():
    X, y = heteroscedastic(100)
    extra = ExtraTreesQuantileRegressor(3, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="bootstrap=True"):
        extra.predict(X, oob_score=True)
    forest = RandomForestQuantileRegressor(1, random_state=0).fit(X, y)
    with pytest.warns(UserWarning, match="do not have OOB scores"):
        out = forest.predict(X, oob_score=True)
    assert np.isnan(out).any() and not np.isnan(out).all()


@pytest.mark.parametrize("damage,message", [
    (lambda lists: lists.update(sizes=lists["sizes"][:-1]), "leaf sizes"),
    (lambda lists: lists.update(entries=lists["entries"][:, :-1]), "total"),
    (lambda lists: lists.update(targets=lists["targets"][:, ::-1].copy()), "ascending"),
    (lambda lists: lists.update(entries=np.full_like(lists["entries"], 60000)), "rank of one"),
    (lambda lists: lists.update(entries=lists["entries"][:, ::-1].copy()), "ascending rank"),
    (lambda lists: lists.pop("sizes"), "arrays"),
    (lambda lists: lists.update(rank_weights=-np.ones_like(lists["targets"])), "weights"),
    (lambda lists: lists.update(rank_weights=np.zeros_like(lists["targets"])), "no weight"),
])
def test_damaged_leaf_lists_are_refused_on_load(damage, message, tmp_path):
    X, y = heteroscedastic(300, seed=11)
    forest = RandomForestQuantileRegressor(4, random_state=0, max_samples_leaf=None).fit(X, y)
    damage(forest._leaf_lists)
    with pytest.raises(ModelFileError, match=message):
        pickle.loads(pickle.dumps(forest))
    forest.save(tmp_path / "damaged.ftm")
    with pytest.raises(ModelFileError, match=message):
        fasttree.load(tmp_path / "damaged.ftm")


@pytest.mark.parametrize("estimator", [RandomForestQuantileRegressor,
                                       ExtraTreesQuantileRegressor])
def test_quantile_trees_grow_a_quantile_forest(estimator):
    # criterion='quantile' reaches the trees: their leaves predict the level's
    # quantile, while the forest still reads its leaf lists.
    X, y = heteroscedastic(400, seed=14)
    forest = estimator(5, criterion="quantile", quantile=0.8, max_samples_leaf=None,
                       random_state=0).fit(X, y)
    assert all(member.quantile == 0.8 for member in forest.estimators_)
    leaves = row_leaves_of(forest, X.astype(np.float32))
    trees = oracle_of(forest, X.astype(np.float32), y)
    np.testing.assert_array_equal(forest.predict(X, quantiles=[0.8]),
                                  quantile_forest_predict(trees, leaves, [0.8])[:, 0])
    with pytest.raises(ValueError, match="quantile"):
        estimator(3, criterion="quantile", quantile=1.5).fit(X, y)


def test_score_is_r2_of_the_quantile_asked():
    X, y = heteroscedastic(400, seed=12)
    forest = RandomForestQuantileRegressor(20, random_state=0).fit(X[:300], y[:300])
    from fasttree._base import r2_score

    assert forest.score(X[300:], y[300:]) == r2_score(y[300:], forest.predict(X[300:]))
    assert forest.score(X[300:], y[300:], quantiles="mean") == r2_score(
        y[300:], forest.predict(X[300:], quantiles="mean"))
