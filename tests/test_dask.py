"""fasttree.dask: forests grown on a real LocalCluster of worker processes
equal the local forests, predict lazily, and survive a lost worker."""

import asyncio
import pickle
import subprocess
import sys

import numpy as np
import pytest

dask = pytest.importorskip("dask")
distributed = pytest.importorskip("distributed")
import dask.array as da  # noqa: E402
import dask.dataframe as dd  # noqa: E402
import pandas as pd  # noqa: E402
from distributed import Client, LocalCluster  # noqa: E402
from distributed.diagnostics.plugin import SchedulerPlugin  # noqa: E402
from sklearn.base import clone  # noqa: E402

import fasttree  # noqa: E402
from fasttree.dask import (DaskExtraTreesClassifier, DaskExtraTreesRegressor,  # noqa: E402
                           DaskRandomForestClassifier, DaskRandomForestRegressor,
                           WorkersLostError)


def classification_data(n_samples=600, n_features=6, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n_samples, n_features))
    y = (X[:, 0] + X[:, 1] ** 2 + 0.3 * rng.normal(size=n_samples) > 0.8).astype(np.int64)
    return X, y


def regression_data(n_samples=600, n_features=5, seed=1):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n_samples, n_features))
    return X, X[:, 0] * 2 - X[:, 2] + 0.1 * rng.normal(size=n_samples)


def start_cluster(n_workers, set_as_default=True):
    cluster = LocalCluster(n_workers=n_workers, threads_per_worker=1, processes=True,
                           dashboard_address=":0")
    return cluster, Client(cluster, set_as_default=set_as_default)


@pytest.fixture(scope="module")
def client():
    cluster, client = start_cluster(2)
    yield client
    client.close()
    cluster.close()


def same_trees(first, second):
    assert len(first.estimators_) == len(second.estimators_)
    for a, b in zip(first.estimators_, second.estimators_):
        for name in ("children_left", "children_right", "feature", "threshold", "value",
                     "n_node_samples", "impurity"):
            np.testing.assert_array_equal(getattr(a.tree_, name), getattr(b.tree_, name))


CASES = [
    (DaskRandomForestClassifier, fasttree.RandomForestClassifier, classification_data),
    (DaskRandomForestRegressor, fasttree.RandomForestRegressor, regression_data),
    (DaskExtraTreesClassifier, fasttree.ExtraTreesClassifier, classification_data),
    (DaskExtraTreesRegressor, fasttree.ExtraTreesRegressor, regression_data),
]


@pytest.mark.parametrize("dask_class, local_class, data", CASES)
def test_replicated_forest_equals_the_local_forest(client, dask_class, local_class, data):
    X, y = data()
    params = {"n_estimators": 12, "random_state": 3, "oob_score": True, "bootstrap": True,
              "max_features": 0.6}
    grown = dask_class(**params).fit(X, y)
    local = local_class(**params).fit(X, y)
    same_trees(grown, local)
    assert grown.oob_score_ == local.oob_score_
    method = "predict_proba" if hasattr(local, "predict_proba") else "predict"
    np.testing.assert_array_equal(getattr(grown, method)(X), getattr(local, method)(X))
    assert type(grown.to_local()) is local_class


def test_replicated_forest_is_the_same_on_one_two_and_three_workers():
    X, y = classification_data(800)
    fitted = []
    for n_workers in (1, 2, 3):
        # Clients passed as client=, not the default one.
        cluster, client = start_cluster(n_workers, set_as_default=False)
        with cluster, client:
            fitted.append(DaskRandomForestClassifier(
                n_estimators=9, random_state=11, oob_score=True, client=client).fit(X, y))
    local = fasttree.RandomForestClassifier(n_estimators=9, random_state=11,
                                            oob_score=True).fit(X, y)
    for grown in fitted:
        same_trees(grown, local)
        np.testing.assert_array_equal(grown.oob_decision_function_,
                                      local.oob_decision_function_)
        np.testing.assert_array_equal(grown.predict_proba(X), local.predict_proba(X))


def test_dask_array_and_dataframe_input_grow_the_local_forest(client):
    X, y = classification_data(500)
    local = fasttree.RandomForestClassifier(n_estimators=5, random_state=0).fit(X, y)
    from_array = DaskRandomForestClassifier(n_estimators=5, random_state=0).fit(
        da.from_array(X, chunks=(120, 3)), da.from_array(y, chunks=120))
    same_trees(from_array, local)
    frame = pd.DataFrame(X, columns=[f"x{i}" for i in range(X.shape[1])])
    local_frame = fasttree.RandomForestClassifier(n_estimators=5, random_state=0).fit(frame, y)
    from_frame = DaskRandomForestClassifier(n_estimators=5, random_state=0).fit(
        dd.from_pandas(frame, npartitions=4), dd.from_pandas(pd.Series(y), npartitions=4))
    same_trees(from_frame, local_frame)
    assert list(from_frame.feature_names_in_) == list(frame.columns)


def test_strings_and_missing_values_in_a_dask_dataframe(client):
    rng = np.random.default_rng(5)
    n_samples = 400
    colour = rng.choice(["red", "green", "blue"], n_samples).astype(object)
    size = rng.normal(size=n_samples)
    size[rng.random(n_samples) < 0.1] = np.nan
    frame = pd.DataFrame({"colour": colour, "size": size})
    y = ((colour == "red") | (np.nan_to_num(size) > 0.5)).astype(int)
    local = fasttree.RandomForestClassifier(n_estimators=4, random_state=2).fit(frame, y)
    grown = DaskRandomForestClassifier(n_estimators=4, random_state=2).fit(
        dd.from_pandas(frame, npartitions=3), dd.from_pandas(pd.Series(y), npartitions=3))
    same_trees(grown, local)
    np.testing.assert_array_equal(grown.predict_proba(frame), local.predict_proba(frame))


def test_lazy_prediction_on_dask_collections_equals_local_prediction(client):
    X, y = classification_data(500)
    grown = DaskRandomForestClassifier(n_estimators=6, random_state=1).fit(X, y)
    local = grown.to_local()
    X_new, _ = classification_data(300, seed=9)
    lazy_array = da.from_array(X_new, chunks=(70, 6))
    frame = dd.from_pandas(pd.DataFrame(X_new), npartitions=3)
    for data in (lazy_array, frame):
        for method in ("predict", "predict_proba", "apply"):
            lazy = getattr(grown, method)(data)
            assert isinstance(lazy, da.Array)
            np.testing.assert_array_equal(lazy.compute(), getattr(local, method)(X_new))
    # One task per partition (and the concatenation).
    assert len(grown.predict(lazy_array).dask.layers) >= lazy_array.numblocks[0]


def test_regressor_predicts_lazily(client):
    X, y = regression_data()
    grown = DaskRandomForestRegressor(n_estimators=4, random_state=0).fit(X, y)
    lazy = grown.predict(da.from_array(X, chunks=(250, 5)))
    np.testing.assert_array_equal(lazy.compute(), grown.to_local().predict(X))


class LoseAWorkerAfterTheFirstTrees(SchedulerPlugin):
    """Closes a worker that is growing trees once the first task of trees is done."""

    def __init__(self, scheduler):
        self.scheduler = scheduler
        self.lost = None

    def transition(self, key, start, finish, *args, **kwargs):
        if self.lost is not None or finish != "memory" or "_grow_trees" not in str(key):
            return
        for worker in self.scheduler.workers.values():
            if any("_grow_trees" in str(task.key) for task in worker.processing):
                self.lost = worker.address
                asyncio.get_running_loop().create_task(self.scheduler.remove_worker(
                    address=worker.address, stimulus_id="fasttree-test", close=True))
                return


def test_a_worker_lost_during_fit_costs_its_trees_only():
    X, y = classification_data(3000, 10)
    cluster, client = start_cluster(2)
    with cluster, client:
        plugin = LoseAWorkerAfterTheFirstTrees(cluster.scheduler)
        cluster.scheduler.add_plugin(plugin, name="lose-a-worker")
        grown = DaskRandomForestClassifier(n_estimators=16, random_state=4, oob_score=True,
                                           client=client).fit(X, y)
    assert plugin.lost is not None
    local = fasttree.RandomForestClassifier(n_estimators=16, random_state=4,
                                            oob_score=True).fit(X, y)
    same_trees(grown, local)
    assert grown.oob_score_ == local.oob_score_


def test_merged_forests_equal_the_forest_of_all_their_trees(client):
    X, y = classification_data(400)
    first = DaskRandomForestClassifier(n_estimators=4, random_state=0).fit(X, y)
    second = fasttree.RandomForestClassifier(n_estimators=3, random_state=1).fit(X, y)
    merged = fasttree.merge_forests([first.to_local(), second])
    # The forest whose trees carry both forests' seeds, grown in one fit.
    whole = fasttree.RandomForestClassifier(n_estimators=7).fit(X[:20], y[:20])
    plan = whole._fit_plan(X, y, None)
    plan["seeds"] = list(first._tree_seeds) + list(second._tree_seeds)
    whole._add_grown(plan, whole._grow_trees(plan, range(7), 1))
    whole._finish_fit(plan)
    same_trees(merged, whole)
    np.testing.assert_array_equal(merged.predict_proba(X), whole.predict_proba(X))
    assert [member.random_state for member in merged.estimators_] == plan["seeds"]


def test_verbose_reports_the_trees_grown_across_the_cluster(client, capsys):
    X, y = classification_data(300)
    DaskRandomForestClassifier(n_estimators=4, random_state=0, verbose=1).fit(X, y)
    assert "4/4" in capsys.readouterr().err


def test_parameters_are_the_local_twins_plus_client_and_mode(client):
    local_params = set(fasttree.RandomForestClassifier().get_params())
    params = DaskRandomForestClassifier().get_params()
    assert set(params) == local_params | {"client", "mode"}
    assert params["mode"] == "replicated" and params["client"] is None
    copy = clone(DaskRandomForestClassifier(n_estimators=3, mode="replicated"))
    assert copy.n_estimators == 3


def test_an_unknown_mode_is_refused(client):
    X, y = classification_data(100)
    with pytest.raises(ValueError, match="mode"):
        DaskRandomForestClassifier(n_estimators=2, mode="everywhere").fit(X, y)


def test_no_client_is_a_clear_error():
    # In a process of its own: this one's tests keep a default client.
    script = ("import numpy as np\n"
              "from fasttree.dask import DaskRandomForestClassifier\n"
              "X = np.arange(40.0).reshape(20, 2); y = np.arange(20) % 2\n"
              "DaskRandomForestClassifier(n_estimators=2).fit(X, y)\n")
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                            timeout=300)
    assert result.returncode != 0
    assert "needs a dask.distributed Client" in result.stderr


def test_partitions_that_disagree_on_columns_are_refused(client):
    parts = [pd.DataFrame({"a": [1.0, 2.0], "b": [0.0, 1.0]}),
             pd.DataFrame({"a": [3.0, 4.0], "c": [1.0, 0.0]})]
    frame = dd.from_delayed([dask.delayed(part) for part in parts],
                            meta=parts[0], verify_meta=False)
    y = dd.from_pandas(pd.Series([0, 1, 0, 1]), npartitions=2)
    with pytest.raises(ValueError, match="partition 1 has columns"):
        DaskRandomForestClassifier(n_estimators=2).fit(frame, y)


def test_partitioned_forest_predicts_as_well_as_the_local_forest(client):
    X, y = classification_data(4000, 8, seed=3)
    X_test, y_test = classification_data(2000, 8, seed=4)
    params = {"n_estimators": 30, "random_state": 0}
    grown = DaskRandomForestClassifier(mode="partitioned", **params).fit(
        da.from_array(X, chunks=(1000, 8)), da.from_array(y, chunks=1000))
    local = fasttree.RandomForestClassifier(**params).fit(X, y)
    grown_accuracy = np.mean(grown.predict(X_test) == y_test)
    local_accuracy = np.mean(local.predict(X_test) == y_test)
    assert abs(grown_accuracy - local_accuracy) <= 0.03
    assert len(grown.estimators_) == 30
    with pytest.raises(ValueError, match="merged from forests|different rows"):
        grown.estimators_samples_


def block_tree(block_X, block_y, params, seeds, index):
    """Tree ``index`` of a forest grown on one block of rows with these seeds."""
    forest = fasttree.RandomForestClassifier(**params)
    plan = forest._fit_plan(block_X, block_y, None)
    plan["seeds"] = seeds
    return forest._grow_trees(plan, [index], 1)[0]


def test_partitioned_trees_each_grow_on_one_workers_rows_with_their_oob_rows(client):
    X, y = classification_data(1200, 5, seed=6)
    params = {"n_estimators": 8, "random_state": 5, "oob_score": True}
    grown = DaskRandomForestClassifier(mode="partitioned", **params).fit(X, y)
    # numpy rows are cut into one block per worker, in the workers' order.
    bounds = np.linspace(0, len(X), 3).astype(int)
    blocks = [(bounds[k], bounds[k + 1]) for k in range(2)]
    seeds = list(grown._tree_seeds)
    # Trees in proportion to rows: the first half on the first block.
    oob_sums = np.zeros((len(X), 2))
    oob_counts = np.zeros(len(X))
    for index, member in enumerate(grown.estimators_):
        start, stop = blocks[index // 4]
        tree, _, (rows, _) = block_tree(X[start:stop], y[start:stop], params, seeds, index)
        for name in ("children_left", "feature", "threshold", "value"):
            np.testing.assert_array_equal(getattr(member.tree_, name), getattr(tree, name))
        rows = rows + start
        oob_sums[rows] += member.predict_proba(X[rows])
        oob_counts[rows] += 1
    covered = oob_counts > 0
    expected = oob_sums[covered] / oob_counts[covered, None]
    np.testing.assert_allclose(grown.oob_decision_function_[covered], expected,
                               rtol=1e-12, atol=1e-12)
    assert grown.oob_score_ == pytest.approx(
        np.mean(np.argmax(expected, axis=1) == y[covered]), abs=1e-12)


def test_partitioned_fit_encodes_categories_and_classes_of_all_partitions(client):
    # The partitions hold different colours, and the first lacks class 2.
    first = pd.DataFrame({"colour": ["red", "green"] * 60, "size": np.linspace(0, 1, 120)})
    second = pd.DataFrame({"colour": ["green", "blue"] * 60, "size": np.linspace(0, 1, 120)})
    labels = {"red": 0, "green": 1, "blue": 2}
    y_first = first["colour"].map(labels)
    y_second = second["colour"].map(labels)
    frame = dd.from_delayed([dask.delayed(first), dask.delayed(second)], meta=first)
    target = dd.from_delayed([dask.delayed(y_first), dask.delayed(y_second)], meta=y_first)
    grown = DaskRandomForestClassifier(n_estimators=6, random_state=0, max_features=None,
                                       mode="partitioned").fit(frame, target)
    np.testing.assert_array_equal(grown.classes_, [0, 1, 2])
    assert list(grown.categories_[0]) == ["blue", "green", "red"]
    whole = pd.concat([first, second], ignore_index=True)
    assert grown.predict_proba(whole).shape == (240, 3)
    # Every tree knows the rows it grew on (one partition's, or both when one
    # worker holds both): codes and classes mean the same in all trees.
    for member in grown.estimators_:
        knows_first = np.array_equal(member.predict(first), y_first)
        knows_second = np.array_equal(member.predict(second), y_second)
        assert knows_first or knows_second
    assert any(np.array_equal(member.predict(second), y_second)
               for member in grown.estimators_)


def test_partitioned_mode_refuses_a_warm_start(client):
    X, y = classification_data(200)
    with pytest.raises(ValueError, match="warm_start"):
        DaskRandomForestClassifier(n_estimators=2, mode="partitioned", warm_start=True).fit(X, y)


class LoseEveryWorkerGrowingTrees(SchedulerPlugin):
    """Closes every worker that starts growing trees, as running out of memory would."""

    def __init__(self, scheduler):
        self.scheduler = scheduler

    def transition(self, key, start, finish, *args, **kwargs):
        if finish != "processing" or "_grow_trees" not in str(key):
            return
        worker = self.scheduler.tasks[key].processing_on
        if worker is not None:
            asyncio.get_running_loop().create_task(self.scheduler.remove_worker(
                address=worker.address, stimulus_id="fasttree-test", close=False))


def test_workers_that_keep_dying_are_a_clear_error():
    X, y = classification_data(300)
    cluster, client = start_cluster(1)
    with cluster, client:
        cluster.scheduler.add_plugin(LoseEveryWorkerGrowingTrees(cluster.scheduler),
                                     name="lose-every-worker")
        with pytest.raises(WorkersLostError, match="out of memory"):
            DaskRandomForestClassifier(n_estimators=2, random_state=0, client=client).fit(X, y)


def test_weights_warm_start_and_oob_batches_as_the_local_forest(client):
    X, y = regression_data(500)
    weight = np.random.default_rng(0).uniform(0.5, 2.0, len(y))
    params = {"n_estimators": 6, "random_state": 8, "warm_start": True,
              "oob_batch_size": 3, "oob_score": True}
    grown = DaskRandomForestRegressor(**params).fit(
        da.from_array(X, chunks=(200, 5)), da.from_array(y, chunks=200),
        da.from_array(weight, chunks=200))
    local = fasttree.RandomForestRegressor(**params).fit(X, y, weight)
    same_trees(grown, local)
    grown.set_params(n_estimators=10)
    local.set_params(n_estimators=10)
    grown.fit(X, y, weight)
    local.fit(X, y, weight)
    same_trees(grown, local)
    np.testing.assert_array_equal(grown.oob_prediction_, local.oob_prediction_)
    np.testing.assert_array_equal(grown.oob_curve_, local.oob_curve_)


def test_pickles_and_model_files_keep_the_forest_but_not_the_client(client, tmp_path):
    X, y = classification_data(300)
    for mode in ("replicated", "partitioned"):
        grown = DaskRandomForestClassifier(n_estimators=4, random_state=0, mode=mode,
                                           client=client).fit(X, y)
        copy = pickle.loads(pickle.dumps(grown))
        assert copy.client is None and copy.mode == mode
        np.testing.assert_array_equal(copy.predict_proba(X), grown.predict_proba(X))
        grown.save(tmp_path / f"{mode}.ftm")
        loaded = fasttree.load(tmp_path / f"{mode}.ftm")
        assert type(loaded) is fasttree.RandomForestClassifier
        np.testing.assert_array_equal(loaded.predict_proba(X), grown.predict_proba(X))


def test_a_warm_start_with_no_tree_to_add_warns_and_keeps_the_forest(client):
    X, y = classification_data(300)
    grown = DaskRandomForestClassifier(n_estimators=3, random_state=0, warm_start=True).fit(X, y)
    trees = list(grown._trees)
    with pytest.warns(UserWarning, match="does not fit new trees"):
        grown.fit(X, y)
    assert all(a is b for a, b in zip(grown._trees, trees)) and len(grown._trees) == 3
