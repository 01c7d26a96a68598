"""Prediction on every kind of input: float32 and float64, C and Fortran order,
non-contiguous views, read-only and memory-mapped arrays, DataFrames and
integer arrays, through the estimators and the low-level ``tree_`` methods.

Every kind must give exactly the predictions of the float32 C-contiguous
copy of the same rows, since fit compares float32 values: a float64 value is
rounded to float32 before it meets a threshold, wherever it lies in memory.
"""

import numpy as np
import pytest

from fasttree import (DecisionTreeClassifier, DecisionTreeRegressor, RandomForestClassifier,
                      RandomForestRegressor)
from synthetic import classification_data, regression_data

ESTIMATORS = [DecisionTreeClassifier, DecisionTreeRegressor, RandomForestClassifier,
              RandomForestRegressor]
N_FEATURES = {"narrow": 6, "wide": 80}  # wide rows take the forest's interleaved parts


def fitted(estimator_class, width):
    n_features = N_FEATURES[width]
    if estimator_class in (DecisionTreeClassifier, RandomForestClassifier):
        X, y = classification_data(n_samples=400, n_features=n_features)
    else:
        X, y = regression_data(n_samples=400, n_features=n_features)
    params = {"n_estimators": 5} if "Forest" in estimator_class.__name__ else {}
    return estimator_class(random_state=0, **params).fit(X, y)


def outputs(model, X):
    """Everything the model predicts for X."""
    result = {"predict": model.predict(X), "apply": model.apply(X)}
    if hasattr(model, "predict_proba"):
        result["predict_proba"] = model.predict_proba(X)
    return result


def new_rows(n_rows, n_features, seed=1):
    # Values near the float32 thresholds' neighbours too: float64 values a
    # hair above a float32 number must round as fit rounds them.
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n_rows, n_features))
    X[::3] = X[::3].astype(np.float32).astype(np.float64) * (1 + 1e-9)
    return X


def input_kinds(X, skip=()):
    """The same rows as many kinds of input, but those named in ``skip``."""
    import pandas as pd

    def read_only():
        copy = X.copy()
        copy.setflags(write=False)
        return copy

    return {name: make() for name, make in _kind_makers(X, pd, read_only).items()
            if name not in skip}


def _kind_makers(X, pd, read_only):
    doubled = lambda: np.repeat(X, 2, axis=0)  # noqa: E731
    return {
        "float64 C": lambda: np.ascontiguousarray(X),
        "float64 Fortran": lambda: np.asfortranarray(X),
        "float32 Fortran": lambda: np.asfortranarray(X, dtype=np.float32),
        "every other row": lambda: doubled()[::2],
        "reversed rows": lambda: X[::-1][::-1],
        "columns of a wider array": lambda: np.hstack([X, X])[:, :X.shape[1]],
        "read-only": read_only,
        "DataFrame": lambda: pd.DataFrame(X),
        "int64": lambda: np.round(X * 10).astype(np.int64),
        "list of lists": lambda: X.tolist(),
    }


def reference_rows(kind, X):
    """The float32 C-contiguous rows every kind must predict as."""
    if kind == "int64":
        return np.ascontiguousarray(np.round(X * 10).astype(np.int64), dtype=np.float32)
    return np.ascontiguousarray(X, dtype=np.float32)


@pytest.mark.parametrize("width", list(N_FEATURES))
@pytest.mark.parametrize("estimator_class", ESTIMATORS)
@pytest.mark.parametrize("n_rows", [1, 7, 300, 20_000])
def test_every_input_kind_predicts_exactly_as_float32_rows(estimator_class, width, n_rows):
    model = fitted(estimator_class, width)
    X = new_rows(n_rows, N_FEATURES[width])
    for kind, rows in input_kinds(X).items():
        expected = outputs(model, reference_rows(kind, X))
        got = outputs(model, rows)
        for name in expected:
            np.testing.assert_array_equal(got[name], expected[name], err_msg=f"{kind} {name}")


def test_memory_mapped_rows_predict_as_loaded_rows(tmp_path):
    model = fitted(RandomForestClassifier, "narrow")
    X = new_rows(500, N_FEATURES["narrow"])
    for order in ("C", "F"):
        path = tmp_path / f"rows_{order}.npy"
        np.save(path, np.asarray(X, order=order))
        mapped = np.load(path, mmap_mode="r")
        assert not mapped.flags.writeable
        np.testing.assert_array_equal(model.predict_proba(mapped), model.predict_proba(X))
        tree = fitted(DecisionTreeClassifier, "narrow")
        np.testing.assert_array_equal(tree.predict_proba(mapped), tree.predict_proba(X))


def leaves_by_reading_tree(tree, X):
    """The test's own walk of ``tree_`` (x <= threshold goes left, NaN goes
    where ``missing_go_to_left`` says)."""
    leaves = []
    for row in np.asarray(X, dtype=np.float32):
        node = 0
        while tree.children_left[node] != -1:
            value = row[tree.feature[node]]
            left = (tree.missing_go_to_left[node] == 1 if np.isnan(value)
                    else value <= np.float32(tree.threshold[node]))
            node = tree.children_left[node] if left else tree.children_right[node]
        leaves.append(node)
    return np.array(leaves)


@pytest.mark.parametrize("width", list(N_FEATURES))
@pytest.mark.parametrize("estimator_class", ESTIMATORS)
@pytest.mark.parametrize("n_rows", [7, 300, 3000])
def test_rows_with_nan_predict_in_every_kind_as_the_trees_missing_directions_say(
        estimator_class, width, n_rows):
    model = fitted(estimator_class, width)
    X = new_rows(n_rows, N_FEATURES[width])
    rng = np.random.default_rng(5)
    X[rng.random(X.shape) < 0.1] = np.nan
    X[1::2] = np.nan_to_num(X[1::2], nan=0.25)  # blocks of rows with and without NaN
    trees = model.estimators_ if hasattr(model, "estimators_") else [model]
    for member in trees:
        np.testing.assert_array_equal(member.apply(X), leaves_by_reading_tree(member.tree_, X))
    for kind, rows in input_kinds(X, skip=("int64",)).items():
        expected = outputs(model, reference_rows(kind, X))
        got = outputs(model, rows)
        for name in expected:
            np.testing.assert_array_equal(got[name], expected[name], err_msg=f"{kind} {name}")


@pytest.mark.parametrize("estimator_class", ESTIMATORS)
@pytest.mark.parametrize("kind", ["float64 C", "float64 Fortran", "float32 Fortran",
                                  "every other row", "DataFrame"])
@pytest.mark.parametrize("bad_value", [np.inf, -np.inf, 1e39])
@pytest.mark.parametrize("with_nan", [False, True])
def test_infinite_and_float32_overflowing_values_are_refused_in_every_layout(
        estimator_class, kind, bad_value, with_nan):
    import pandas as pd

    model = fitted(estimator_class, "narrow")
    X = new_rows(300, N_FEATURES["narrow"])
    X[205, 3] = bad_value
    if with_nan:
        X[200:210, 1] = np.nan
    with np.errstate(over="ignore"):
        rows = _kind_makers(X, pd, None)[kind]()
    # A float32 copy of 1e39 is already infinite.
    message = ("too large for float32" if bad_value == 1e39 and kind != "float32 Fortran"
               else "infinity")
    with pytest.raises(ValueError, match=message):
        model.predict(rows)


@pytest.mark.parametrize("estimator_class", [DecisionTreeClassifier, DecisionTreeRegressor])
def test_low_level_tree_methods_take_any_real_array(estimator_class):
    model = fitted(estimator_class, "narrow")
    X = new_rows(100, N_FEATURES["narrow"])
    tree = model.tree_
    expected_leaves = model.apply(X)
    for rows in (X, np.asfortranarray(X), X.astype(np.float32), X[:, :], X.tolist()):
        np.testing.assert_array_equal(tree.apply(rows), expected_leaves)
        values = tree.predict(rows)
        assert values.shape == (100, tree.n_values)
        np.testing.assert_array_equal(values, tree.value[expected_leaves, 0, :])
    with pytest.raises(ValueError, match="shape"):
        tree.apply(X[:, :3])
    with pytest.raises(ValueError, match="shape"):
        tree.apply(X[0])


def test_float64_values_round_to_float32_before_they_meet_a_threshold():
    # One split at the float32 midpoint of 1 and the next float32 number;
    # float64 values between them go where their float32 rounding goes.
    next_up = float(np.nextafter(np.float32(1.0), np.float32(2.0)))
    X = np.array([[1.0], [1.0], [next_up], [next_up]])
    tree = DecisionTreeClassifier().fit(X, [0, 0, 1, 1])
    threshold = np.float32(tree.tree_.threshold[0])
    just_above = np.nextafter(float(threshold), np.inf)
    rows = np.array([[float(threshold)], [just_above], [1.0 + 1e-12], [next_up - 1e-12]])
    expected = tree.predict(rows.astype(np.float32))
    np.testing.assert_array_equal(tree.predict(rows), expected)
    np.testing.assert_array_equal(tree.predict(np.asfortranarray(rows)), expected)


def test_a_tree_pickled_on_a_machine_of_the_other_byte_order_loads():
    import copyreg
    import io
    import pickle

    from fasttree import DecisionTreeClassifier, RandomForestRegressor

    rng = np.random.default_rng(0)
    X = rng.normal(size=(80, 3))
    y = (X[:, 0] > 0).astype(int)

    def swapped(array):
        return array.byteswap().view(array.dtype.newbyteorder()).__reduce__()

    for model in (DecisionTreeClassifier(random_state=0).fit(X, y),
                  RandomForestRegressor(n_estimators=3, random_state=0).fit(X, X[:, 1])):
        buffer = io.BytesIO()
        pickler = pickle.Pickler(buffer)
        pickler.dispatch_table = copyreg.dispatch_table.copy()
        pickler.dispatch_table[np.ndarray] = swapped
        pickler.dump(model)
        loaded = pickle.loads(buffer.getvalue())
        np.testing.assert_array_equal(loaded.predict(X), model.predict(X))


def small_batch_models():
    """One fitted model of every estimator, with the options whose prediction
    takes another path (hard votes, medians, several outputs, NaN in fit)."""
    import fasttree

    X, y = classification_data(n_samples=400, n_features=6, n_classes=3)
    Xr, yr = regression_data(n_samples=400, n_features=6)
    X_nan = X.copy()
    X_nan[::7, 2] = np.nan
    # 13 trees: the few-rows walk takes trees eight at a time, and a last
    # group of five.
    forest = {"n_estimators": 13, "random_state": 0}
    models = {
        "tree": fasttree.DecisionTreeClassifier(random_state=0).fit(X, y),
        "tree regressor": fasttree.DecisionTreeRegressor(random_state=0).fit(Xr, yr),
        "extra tree": fasttree.ExtraTreeClassifier(random_state=0).fit(X, y),
        "forest": fasttree.RandomForestClassifier(**forest).fit(X, y),
        "forest, hard votes": fasttree.RandomForestClassifier(voting="hard", **forest).fit(X, y),
        "forest, NaN in fit": fasttree.RandomForestClassifier(**forest).fit(X_nan, y),
        "forest, two outputs": fasttree.RandomForestClassifier(**forest).fit(
            X, np.column_stack([y, y % 2])),
        "forest regressor": fasttree.RandomForestRegressor(**forest).fit(Xr, yr),
        "forest regressor, median": fasttree.RandomForestRegressor(
            aggregation="median", **forest).fit(Xr, yr),
        "extra trees": fasttree.ExtraTreesClassifier(**forest).fit(X, y),
        "extra trees regressor": fasttree.ExtraTreesRegressor(**forest).fit(Xr, yr),
        "bagging": fasttree.BaggingClassifier(n_estimators=5, random_state=0).fit(X, y),
        "bagging regressor": fasttree.BaggingRegressor(n_estimators=5,
                                                       random_state=0).fit(Xr, yr),
        "adaboost": fasttree.AdaBoostClassifier(n_estimators=5, random_state=0).fit(X, y),
        "adaboost regressor": fasttree.AdaBoostRegressor(n_estimators=5,
                                                         random_state=0).fit(Xr, yr),
    }
    return models


SMALL_BATCH_MODELS = small_batch_models()


def batch_outputs(model, X):
    """What the model predicts for X, each method that it has."""
    result = {"predict": model.predict(X)}
    for name in ("predict_proba", "apply"):
        if hasattr(model, name):
            result[name] = getattr(model, name)(X)
    return result


@pytest.mark.parametrize("kind", ["float32 C", "float64 C", "float64 Fortran", "DataFrame",
                                  "wide float64", "with NaN", "sparse CSR"])
@pytest.mark.parametrize("name", list(SMALL_BATCH_MODELS))
def test_small_batches_predict_exactly_as_one_large_batch(name, kind):
    import pandas as pd
    import scipy.sparse

    model = SMALL_BATCH_MODELS[name]
    X = new_rows(120, 6)
    if kind == "with NaN":
        X[::5, 2] = np.nan
        X[1::5, 4] = np.nan
    rows = {"float32 C": lambda part: np.ascontiguousarray(part, dtype=np.float32),
            "float64 C": np.ascontiguousarray, "float64 Fortran": np.asfortranarray,
            "DataFrame": pd.DataFrame, "with NaN": np.ascontiguousarray,
            # The model reads the first 6 of 70 columns: the kernel interleaves
            # rows this wide.
            "wide float64": lambda part: np.hstack([part, np.zeros((len(part), 64))])[:, :6],
            "sparse CSR": lambda part: scipy.sparse.csr_matrix(np.where(part > 0.5, part, 0))}
    make = rows[kind]
    expected = batch_outputs(model, make(X))
    for batch in (1, 2, 7, 8, 15, 16, 17, 64):
        parts = [batch_outputs(model, make(X[start:start + batch]))
                 for start in range(0, len(X), batch)]
        for method, whole in expected.items():
            joined = ([np.concatenate([part[method][k] for part in parts])
                       for k in range(len(whole))] if isinstance(whole, list)
                      else np.concatenate([part[method] for part in parts]))
            np.testing.assert_equal(joined, whole, err_msg=f"{method}, batches of {batch}")
