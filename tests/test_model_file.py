"""Model files (fasttree._model_file): every estimator saved and loaded back
predicts bit for bit as before, in a fresh process too; a file that is not
a sound model file is refused with ModelFileError, never read blindly."""

import io
import json
import pickle
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import fasttree
from fasttree import (AdaBoostClassifier, AdaBoostRegressor, BaggingClassifier,
                      BaggingRegressor, DecisionTreeClassifier, DecisionTreeRegressor,
                      ExtraTreeClassifier, ExtraTreesClassifier, ExtraTreesRegressor,
                      ModelFileError, RandomForestClassifier, RandomForestRegressor,
                      RuleListClassifier)
from fasttree._model_file import dumps, loads
from model_file_fuzz import file_of, parts_of
from synthetic import classification_data, regression_data

HERE = Path(__file__).parent


def mixed_frame(n_rows=240, seed=0):
    """A DataFrame of a number with gaps, a string column with gaps and a
    pandas category, and a label that depends on all three."""
    rng = np.random.default_rng(seed)
    number = rng.normal(size=n_rows)
    number[rng.random(n_rows) < 0.1] = np.nan
    colour = rng.choice(["red", "green", "blue", "grey"], n_rows).astype(object)
    colour[rng.random(n_rows) < 0.1] = None
    size = pd.Categorical(rng.choice(["S", "M", "L"], n_rows))
    frame = pd.DataFrame({"number": number, "colour": colour, "size": size})
    label = np.where((np.nan_to_num(number) > 0) ^ (colour == "red"), "yes", "no")
    return frame, label


def fitted_models():
    """One fitted model of each estimator and of the options that change
    what a model holds (name -> (model, rows to predict))."""
    X, y = classification_data(n_samples=200, n_features=5, n_classes=3)
    X_reg, y_reg = regression_data(n_samples=200, n_features=5)
    X_gaps = X.copy()
    X_gaps[::7, 1] = np.nan
    frame, label = mixed_frame()
    two_outputs = np.c_[y, (X[:, 0] > 0).astype(int)]
    models = {
        "tree": (DecisionTreeClassifier(max_depth=6, random_state=0).fit(X, y), X),
        "tree, string labels": (DecisionTreeClassifier(random_state=0).fit(
            X, np.array(["ant", "bee", "cat"], dtype=object)[y]), X),
        "tree, missing values": (DecisionTreeClassifier(random_state=0).fit(X_gaps, y), X_gaps),
        "tree, categorical frame": (DecisionTreeClassifier(random_state=0).fit(frame, label),
                                    frame),
        "tree, multiway": (DecisionTreeClassifier(criterion="gain_ratio",
                                                  categorical_split="multiway",
                                                  missing="fractional").fit(frame, label),
                           frame),
        "tree, pruned": (DecisionTreeClassifier(ccp_alpha=0.01, random_state=0).fit(X, y), X),
        "tree, two outputs": (DecisionTreeClassifier(random_state=0).fit(X, two_outputs), X),
        "tree, loss matrix": (DecisionTreeClassifier(
            loss_matrix=[[0, 1, 5], [1, 0, 1], [2, 1, 0]], random_state=0).fit(X, y), X),
        "extra tree": (ExtraTreeClassifier(random_state=0).fit(X, y), X),
        "regression tree, absolute_error": (DecisionTreeRegressor(
            criterion="absolute_error", max_depth=5).fit(X_reg, y_reg), X_reg),
        "regression tree, monotonic": (DecisionTreeRegressor(
            monotonic_cst=[1, 0, 0, -1, 0], random_state=0).fit(X_reg, y_reg), X_reg),
        "regression tree, two outputs": (DecisionTreeRegressor(random_state=0).fit(
            X_reg, np.c_[y_reg, -y_reg]), X_reg),
        "forest": (RandomForestClassifier(n_estimators=25, oob_score=True, max_samples=0.5,
                                          random_state=0).fit(X, y), X),
        "forest, categorical frame": (RandomForestClassifier(n_estimators=4, random_state=0)
                                      .fit(frame, label), frame),
        "forest, random_state object": (RandomForestClassifier(
            n_estimators=3, random_state=np.random.RandomState(5)).fit(X, y), X),
        "extra trees": (ExtraTreesClassifier(n_estimators=4, random_state=0).fit(X, y), X),
        "regression forest, median": (RandomForestRegressor(
            n_estimators=4, aggregation="median", random_state=0).fit(X_reg, y_reg), X_reg),
        "extra trees regressor": (ExtraTreesRegressor(n_estimators=4, random_state=0)
                                  .fit(X_reg, y_reg), X_reg),
        "bagging": (BaggingClassifier(n_estimators=4, max_features=3, random_state=0)
                    .fit(X, y), X),
        "bagging regressor": (BaggingRegressor(n_estimators=4, random_state=0)
                              .fit(X_reg, y_reg), X_reg),
        "adaboost": (AdaBoostClassifier(n_estimators=8, random_state=0).fit(X, y), X),
        "adaboost regressor": (AdaBoostRegressor(n_estimators=5, random_state=0)
                               .fit(X_reg, y_reg), X_reg),
        "rule list": (RuleListClassifier(random_state=0).fit(X, y), X),
    }
    return models


MODELS = fitted_models()


def outputs(model, X):
    """Everything the model answers for X, as arrays."""
    answers = [np.asarray(model.predict(X))]
    if hasattr(model, "predict_proba"):
        probabilities = model.predict_proba(X)
        answers += probabilities if isinstance(probabilities, list) else [probabilities]
    if hasattr(model, "apply") and not isinstance(model, (AdaBoostClassifier,
                                                          AdaBoostRegressor)):
        answers.append(np.asarray(model.apply(X)))
    return answers


def assert_same_outputs(first, second):
    assert len(first) == len(second)
    for ours, theirs in zip(first, second):
        assert ours.dtype == theirs.dtype
        np.testing.assert_array_equal(ours, theirs)


@pytest.mark.parametrize("name", list(MODELS))
def test_a_saved_model_loads_and_predicts_bit_for_bit_as_before(name, tmp_path):
    model, X = MODELS[name]
    path = tmp_path / "model.ft"
    model.save(path)
    loaded = fasttree.load(path)
    assert type(loaded) is type(model)
    assert loaded.get_params() .keys() == model.get_params().keys()
    assert_same_outputs(outputs(loaded, X), outputs(model, X))
    # Saved again, the file is the same.
    assert dumps(loaded) == dumps(model)


@pytest.mark.parametrize("name", ["tree, categorical frame", "forest", "bagging", "adaboost",
                                  "regression forest, median", "tree, multiway"])
def test_a_saved_model_predicts_the_same_in_a_fresh_process(name, tmp_path):
    model, X = MODELS[name]
    model.save(tmp_path / "model.ft")
    with open(tmp_path / "rows.pkl", "wb") as file:
        pickle.dump(X, file)
    script = textwrap.dedent("""
        import pickle, sys
        import numpy as np
        import fasttree
        model = fasttree.load(sys.argv[1] + "/model.ft")
        with open(sys.argv[1] + "/rows.pkl", "rb") as file:
            X = pickle.load(file)
        np.save(sys.argv[1] + "/predicted.npy", np.asarray(model.predict(X)),
                allow_pickle=True)
    """)
    subprocess.run([sys.executable, "-c", script, str(tmp_path)], check=True)
    predicted = np.load(tmp_path / "predicted.npy", allow_pickle=True)
    np.testing.assert_array_equal(predicted, model.predict(X))


def test_model_files_are_smaller_than_pickles():
    for name in ("forest", "extra trees", "regression forest, median", "adaboost", "bagging"):
        model, _ = MODELS[name]
        assert len(dumps(model)) < len(pickle.dumps(model)), name


def test_an_unfitted_estimator_round_trips_with_its_parameters():
    model = RandomForestClassifier(n_estimators=7, max_depth=3, class_weight={0: 1.0, 1: 2.5})
    loaded = loads(dumps(model))
    assert loaded.get_params() == model.get_params()


def test_estimators_of_other_libraries_are_refused_when_saving():
    from sklearn.linear_model import LinearRegression

    X, y = regression_data(n_samples=60, n_features=3)
    model = BaggingRegressor(estimator=LinearRegression(), n_estimators=2).fit(X, y)
    with pytest.raises(TypeError, match="LinearRegression"):
        dumps(model)


# Hostile and broken files.

def find_tagged(value, kind, found=None):
    """Every tagged value of ``kind`` in a header, depth first."""
    found = [] if found is None else found
    if isinstance(value, dict):
        if value.get("type") == kind:
            found.append(value)
        for item in value.values():
            find_tagged(item, kind, found)
    elif isinstance(value, list):
        for item in value:
            find_tagged(item, kind, found)
    return found


def tree_state(header):
    """The state dict (tagged items) of the first tree in a header."""
    tree = next(obj for obj in find_tagged(header, "object") if obj["class"] == "Tree")
    return dict((key, item) for key, item in tree["state"]["items"])


def set_item(obj, key, value):
    """Set ``key`` of a tagged object's state in a header."""
    for pair in obj["state"]["items"]:
        if pair[0] == key:
            pair[1] = value


def same_entry_pair(header):
    """Two array references of a header into the same entry."""
    references = find_tagged(header, "array")
    first = references[0]
    return first, next(other for other in references[1:] if other["entry"] == first["entry"])


def array_of(arrays, reference):
    entry = arrays[reference["entry"]]
    size = int(np.prod(reference["shape"]))
    return entry[reference["offset"]:reference["offset"] + size]


def with_tree_nodes(change):
    """A saved tree whose node records ``change`` altered in place."""
    header, arrays = parts_of(dumps(MODELS["tree"][0]))
    nodes = array_of(arrays, tree_state(header)["nodes"])
    change(nodes)
    return file_of(header, arrays)


def set_field(field, node, value):
    def change(nodes):
        inner = np.flatnonzero(nodes["left_child"] != -1)
        nodes[field][inner[node] if node >= 0 else np.flatnonzero(
            nodes["left_child"] == -1)[0]] = value
    return change


@pytest.mark.parametrize("change, message", [
    (set_field("left_child", 0, 0), "child index"),        # a cycle
    (set_field("right_child", 1, 1), "child index"),       # a shared child
    (set_field("left_child", 2, 10 ** 6), "child index"),
    (set_field("feature", 0, 5), "feature"),
    (set_field("feature", 1, -3), "feature"),
    (set_field("left_child", -1, 3), "exactly one child"),
])
def test_tree_links_and_features_out_of_range_are_refused(change, message):
    with pytest.raises(ModelFileError, match=message):
        loads(with_tree_nodes(change))


@pytest.mark.parametrize("name, values", [("regression tree, absolute_error", "value"),
                                           ("tree", "value_data")])
def test_node_values_not_finite_or_of_the_wrong_width_are_refused(name, values):
    header, arrays = parts_of(dumps(MODELS[name][0]))
    array_of(arrays, tree_state(header)[values])[3] = np.nan
    with pytest.raises(ModelFileError, match="not finite"):
        loads(file_of(header, arrays))
    header, arrays = parts_of(dumps(MODELS[name][0]))
    tree = next(obj for obj in find_tagged(header, "object") if obj["class"] == "Tree")
    set_item(tree, "n_values", tree_state(header)["n_values"] + 1)
    with pytest.raises(ModelFileError, match="value"):
        loads(file_of(header, arrays))


def test_an_estimator_whose_trees_read_more_features_than_it_has_is_refused():
    header, arrays = parts_of(dumps(MODELS["forest"][0]))
    set_item(find_tagged(header, "object")[0], "n_features_in_", 3)
    with pytest.raises(ModelFileError, match="features"):
        loads(file_of(header, arrays))


def test_classes_that_do_not_match_the_trees_are_refused():
    header, arrays = parts_of(dumps(MODELS["tree"][0]))
    set_item(find_tagged(header, "object")[0], "n_classes_",
             {"type": "scalar", "dtype": "<i8", "value": 2})
    with pytest.raises(ModelFileError, match="classes_"):
        loads(file_of(header, arrays))


def test_a_bagging_feature_subset_out_of_range_is_refused():
    header, arrays = parts_of(dumps(MODELS["bagging"][0]))
    model = find_tagged(header, "object")[0]
    subsets = dict((key, item) for key, item in model["state"]["items"])["estimators_features_"]
    array_of(arrays, subsets["items"][0])[0] = 99
    with pytest.raises(ModelFileError, match="feature subset"):
        loads(file_of(header, arrays))


def with_category_levels(name, change):
    """The file of MODELS[name] (fitted on mixed_frame: features 1 and 2 are
    categorical, of 4 and 3 levels) with ``change(references, arrays)``
    applied to the references of its categories_ arrays and the array entries."""
    header, arrays = parts_of(dumps(MODELS[name][0]))
    model = find_tagged(header, "object")[0]
    state = dict((key, item) for key, item in model["state"]["items"])
    references = state["categories_"]["items"]
    assert [reference["shape"] for reference in references] == [[4], [3]]
    change(references, arrays, state)
    return file_of(header, arrays)


def drop_last_levels(references, arrays, state):
    dropped = references.pop()
    # Its entry goes too, so that no unused entry gives the file away.
    assert [reference["entry"] for reference in find_tagged(state, "array")].count(
        dropped["entry"]) == 0
    del arrays[dropped["entry"]]


def one_more_categorical(references, arrays, state):
    array_of(arrays, state["is_categorical_"])[0] = True


def first_levels_cut_to(n_levels):
    """The first categorical feature's levels cut to their first n_levels."""
    def change(references, arrays, state):
        entry = references[0]["entry"]
        assert [reference["entry"] for reference in find_tagged(state, "array")].count(entry) == 1
        arrays[entry] = array_of(arrays, references[0])[:n_levels].copy()
        references[0].update(offset=0, shape=[n_levels])
    return change


def swap_levels(references, arrays, state):
    references[0], references[1] = references[1], references[0]


def repeat_a_level(references, arrays, state):
    levels = array_of(arrays, references[0])
    levels[1] = levels[0]


def levels_as_a_matrix(references, arrays, state):
    references[0]["shape"] = [2, 2]


@pytest.mark.parametrize("name", ["tree, categorical frame", "tree, multiway",
                                  "forest, categorical frame"])
@pytest.mark.parametrize("change, message", [
    (drop_last_levels, "category levels do not match its categorical features"),
    (one_more_categorical, "category levels do not match its categorical features"),
    # The trees split feature 1 into its 4 codes: with fewer levels, rows of
    # the last categories would silently take the unseen categories' way.
    (first_levels_cut_to(3), "splits feature 1 into 4 category codes; its category "
                             "levels are 3"),
    (swap_levels, "splits feature 1 into 4 category codes; its category levels are 3"),
    (repeat_a_level, "category levels of feature 1 are not an array of distinct levels"),
    (levels_as_a_matrix, "category levels of feature 1 are not an array of distinct levels"),
])
def test_category_levels_that_do_not_match_the_trees_are_refused(name, change, message):
    model, frame = MODELS[name]
    # The file unchanged loads and predicts as the model; changed, it is refused.
    assert_same_outputs(outputs(loads(with_category_levels(name, lambda *_: None)), frame),
                        outputs(model, frame))
    with pytest.raises(ModelFileError, match=message):
        loads(with_category_levels(name, change))


@pytest.mark.parametrize("tamper, message", [
    (lambda header, arrays: header.update(format_version=99), "format version 99"),
    (lambda header, arrays: header.update(format="other"), "another format"),
    (lambda header, arrays: find_tagged(header, "object")[0].update({"class": "Popen"}),
     "unknown class 'Popen'"),
    (lambda header, arrays: find_tagged(header, "array")[0].update(offset=10 ** 9),
     "beyond its entry"),
    (lambda header, arrays: same_entry_pair(header)[1].update(
        offset=same_entry_pair(header)[0]["offset"]), "share"),
    (lambda header, arrays: arrays.update(extra=np.zeros(3)), "holds values no array"),
    (lambda header, arrays: find_tagged(header, "array")[0].update(entry="missing"),
     "lacks"),
    (lambda header, arrays: find_tagged(header, "dict")[0].update(type="pickle"),
     "unknown type 'pickle'"),
])
def test_tampered_headers_are_refused_with_the_reason(tamper, message):
    header, arrays = parts_of(dumps(MODELS["forest"][0]))
    tamper(header, arrays)
    with pytest.raises(ModelFileError, match=message):
        loads(file_of(header, arrays))


def test_an_array_of_python_objects_is_never_unpickled():
    header, arrays = parts_of(dumps(MODELS["tree"][0]))
    buffer = io.BytesIO()
    np.savez(buffer, header=np.frombuffer(json.dumps(header).encode(), dtype=np.uint8),
             **{**arrays, "d0": np.array([object()], dtype=object)})
    with pytest.raises(ModelFileError):
        loads(buffer.getvalue())


def test_files_that_are_not_model_files_are_refused(tmp_path):
    for data in (b"", b"not a zip at all", pickle.dumps(MODELS["tree"][0]),
                 dumps(MODELS["tree"][0])[:100]):
        with pytest.raises(ModelFileError):
            loads(data)
    empty_zip = io.BytesIO()
    with zipfile.ZipFile(empty_zip, "w"):
        pass
    with pytest.raises(ModelFileError, match="no header"):
        loads(empty_zip.getvalue())
    with pytest.raises(FileNotFoundError):
        fasttree.load(tmp_path / "absent.ft")


@pytest.mark.parametrize("content, says", [
    (b"age,income,y\n31,2000,yes\n", "looks like a CSV file"),
    (b"just some notes\n", "holds text"),
    (b"", "the file is empty"),
    (pickle.dumps([1, 2]), "it is a pickle"),
    (b"\x93NUMPY\x01\x00", "numpy .npy array"),
    (bytes(range(200, 256)), "not a zip archive"),
])
def test_a_file_that_is_not_a_model_says_what_it_seems_to_be(tmp_path, content, says):
    path = tmp_path / "file"
    path.write_bytes(content)
    with pytest.raises(ModelFileError) as raised:
        fasttree.load(path)
    message = str(raised.value)
    assert message.startswith("not a fasttree model file: ") and says in message
    # numpy's advice about unpickling has no place here.
    assert "allow_pickle" not in message


def test_a_deeply_nested_header_is_refused_not_overflowing_the_stack():
    for depth in (100, 100000):
        value = '{"type":"list","items":[' * depth + "null" + "]}" * depth
        header = ('{"format":"fasttree-model","format_version":1,"model":' + value
                  + "}").encode()
        with pytest.raises(ModelFileError, match="nested too deeply"):
            loads(file_of(header, {}))


def test_every_damaged_file_is_refused_or_loads_as_a_valid_model():
    # In a child process, so that a crash would show as its exit status.
    rounds = 4000
    result = subprocess.run(
        [sys.executable, str(HERE / "model_file_fuzz.py"), "11", str(rounds), str(HERE)],
        capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-3000:]
    report = json.loads(result.stdout.strip().splitlines()[-1])
    counts = report["counts"]
    print(counts)
    # Each file is refused with ModelFileError, or loads as a model that
    # answers as the original (damage that changed nothing it reads) or as
    # some other valid model would (another threshold, another leaf value):
    # no model that answers what no fit could give, and no other error.
    assert counts["invalid"] == 0, report["problems"]
    assert counts["refused"] + counts["same"] + counts["valid"] == counts["damaged"] == rounds
    # The damage reaches all three outcomes.
    assert min(counts["refused"], counts["same"], counts["valid"]) > 20


def test_unpickled_estimators_are_checked_as_model_files_are():
    for name in ("tree", "forest", "bagging"):
        model, X = MODELS[name]
        np.testing.assert_array_equal(pickle.loads(pickle.dumps(model)).predict(X),
                                      model.predict(X))
        damaged = pickle.loads(pickle.dumps(model))
        damaged.__dict__["n_features_in_"] = 2
        with pytest.raises(ModelFileError, match="feature"):
            pickle.loads(pickle.dumps(damaged))
