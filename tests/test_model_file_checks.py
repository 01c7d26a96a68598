"""Model files (fasttree._model_file), in detail: what a round trip keeps,
exactly what each refusal says, and where the format's limits lie."""

import copy
import dataclasses
import fractions
import io
import json
import pickle

import numpy as np
import pytest
from model_file_fuzz import file_of, parts_of
from synthetic import classification_data
from test_model_file import MODELS, mixed_frame, tree_state

import fasttree._model_file
from fasttree import (
    BaggingClassifier,
    DecisionTreeClassifier,
    ModelFileError,
    RandomForestClassifier,
    RuleListClassifier,
)
from fasttree._model_file import (
    MAX_DEPTH,
    _Reader,
    _state_of,
    _Writer,
    dumps,
    loads,
)
from fasttree._state_checks import _check_model

# Set by unpickling a Marker: a model file must never unpickle anything.
UNPICKLED = []


def record_unpickling():
    UNPICKLED.append(True)
    return "unpickled"


class Marker:
    def __reduce__(self):
        return record_unpickling, ()


def assert_same_state(ours, theirs, where="model"):
    """The same values of the same types, all the way down."""
    assert type(ours) is (str if isinstance(theirs, np.str_) else type(theirs)), where
    if isinstance(ours, np.ndarray):
        assert ours.dtype == theirs.dtype and ours.shape == theirs.shape, where
        if ours.dtype.hasobject:
            for index, (a, b) in enumerate(zip(ours.ravel().tolist(), theirs.ravel().tolist())):
                assert_same_state(a, b, f"{where}[{index}]")
        else:
            np.testing.assert_array_equal(ours, theirs, err_msg=where)
    elif isinstance(ours, (list, tuple)):
        assert len(ours) == len(theirs), where
        for index, (a, b) in enumerate(zip(ours, theirs)):
            assert_same_state(a, b, f"{where}[{index}]")
    elif isinstance(ours, dict):
        assert list(ours) == list(theirs), where
        for key in ours:
            assert_same_state(ours[key], theirs[key], f"{where}[{key!r}]")
    elif isinstance(ours, np.random.RandomState):
        for a, b in zip(ours.get_state(), theirs.get_state()):
            np.testing.assert_array_equal(a, b, err_msg=where)
    elif type(ours).__module__.startswith("fasttree"):
        assert_same_state(_state_of(ours), _state_of(theirs), f"{where}.state")
    elif isinstance(theirs, np.str_):
        # Text scalars are written as plain text (only numeric ones keep their dtype).
        assert ours == str(theirs), where
        return
    elif isinstance(ours, float) and np.isnan(ours):
        assert np.isnan(theirs), where
    else:
        assert ours == theirs, where


@pytest.mark.parametrize("name", list(MODELS))
def test_a_loaded_model_holds_the_saved_attributes_with_their_types(name):
    model, _ = MODELS[name]
    assert_same_state(_state_of(loads(dumps(model))), _state_of(model))


def round_trip(value):
    writer = _Writer()
    written = writer.value(value)
    return written, _Reader(writer.entries()).value(json.loads(json.dumps(written)))


@pytest.mark.parametrize("value, written", [
    (float("nan"), {"type": "float", "value": "nan"}),
    (float("inf"), {"type": "float", "value": "inf"}),
    (float("-inf"), {"type": "float", "value": "-inf"}),
    (np.dtype(np.float32), {"type": "dtype", "name": "<f4"}),
    (np.int16, {"type": "dtype", "name": "<i2"}),
    (np.float32(1.5), {"type": "scalar", "dtype": "<f4", "value": 1.5}),
    (np.bool_(True), {"type": "scalar", "dtype": "|b1", "value": True}),
    (np.str_("red"), "red"),
    ({"b", "a", "c"}, {"type": "set", "items": ["a", "b", "c"]}),
    (frozenset({"b", "a"}), {"type": "frozenset", "items": ["a", "b"]}),
    # Items of several types, in the order of their reprs: "'a'" < "1.5" < "2".
    ({2, "a", 1.5}, {"type": "set", "items": ["a", 1.5, 2]}),
])
def test_special_floats_dtypes_scalars_and_sets_are_written_as_documented(value, written):
    stored, read = round_trip(value)
    assert stored == written
    if isinstance(value, float):
        assert read == value or (np.isnan(read) and np.isnan(value))
    elif isinstance(value, np.dtype):
        assert read is value.type
    else:
        assert read == value and type(read) is (str if isinstance(value, np.str_)
                                                else type(value))


@pytest.mark.parametrize("value", [
    np.empty(0, dtype=object), np.array([["a", None], [1, 2.5]], dtype=object),
    np.empty([1] * 32, dtype=object), np.zeros([1] * 32, dtype=np.float32),
])
def test_arrays_of_any_shape_numpy_makes_round_trip(value):
    read = round_trip(value)[1]
    assert read.shape == value.shape and read.dtype == value.dtype
    assert read.tolist() == value.tolist()


@pytest.mark.parametrize("value, kind", [(np.complex128(1j), "builtins.complex"),
                                         (np.bytes_(b"ab"), "builtins.bytes"),
                                         (object(), "builtins.object"),
                                         (fractions.Fraction(1, 2), "fractions.Fraction")])
def test_values_a_model_file_cannot_hold_are_refused_when_saving(value, kind):
    with pytest.raises(TypeError) as raised:
        _Writer().value(value)
    assert str(raised.value) == (
        f"cannot save a model holding a {kind}; fasttree model files hold "
        "fasttree's own estimators only (use pickle for others)")


@pytest.mark.parametrize("content, message", [
    (b"", "the file is empty"),
    (b"\x80\x04K\x01.", ("it is a pickle (load it with pickle.load, and only if you trust "
                         "where it came from)")),
    (b"\x93NUMPY\x01\x00", "it is a numpy .npy array"),
    (bytes(range(200, 256)), "it is not a zip archive"),
    (b"a,b\n1,2\n", "it holds text that looks like a CSV file (data, not a model)"),
    (b"notes\nmore, notes\n", "it holds text, not a zip archive"),
    (b"\n", "it holds text, not a zip archive"),
    # Only the first 4096 bytes are read: a UTF-8 character cut there is not a reason.
    (b"a,b\n" + b"x" * 4091 + "é".encode(), ("it holds text that looks like a CSV "
                                             "file (data, not a model)")),
])
def test_a_file_that_is_not_a_zip_is_refused_in_these_words(content, message):
    with pytest.raises(ModelFileError) as raised:
        loads(content)
    assert str(raised.value) == (f"not a fasttree model file: {message}; model files are "
                                 "written by fasttree.save or `python -m fasttree train`")


def test_an_array_entry_of_pickled_objects_is_refused_without_unpickling_it():
    header, arrays = parts_of(dumps(MODELS["tree"][0]))
    buffer = io.BytesIO()
    np.savez(buffer, header=np.frombuffer(json.dumps(header).encode(), dtype=np.uint8),
             **{**arrays, "d0": np.array([Marker()], dtype=object)})
    UNPICKLED.clear()
    with pytest.raises(ModelFileError, match="^not a readable fasttree model file"):
        loads(buffer.getvalue())
    assert UNPICKLED == []


def header_file(model_value, **header):
    document = {"format": "fasttree-model", "format_version": 1, "model": model_value,
                **header}
    return file_of(json.dumps(document).encode(), {})


def refusal(data):
    with pytest.raises(ModelFileError) as raised:
        loads(data)
    return str(raised.value)


NOT_AN_ESTIMATOR = "the model file does not hold a fasttree estimator"
TOO_DEEP = "the model is nested too deeply"


def nested(depth, innermost):
    value = innermost
    for _ in range(depth):
        value = {"type": "list", "items": [value]}
    return value


@pytest.mark.parametrize("innermost", [
    None,
    {"type": "dict", "items": [["key", None]]},
    {"type": "dict", "items": [[None, 1]]},
    {"type": "tuple", "items": [None]},
    {"type": "scalar", "dtype": "<i8", "value": 3},
    {"type": "objects", "shape": [1], "items": [None]},
    {"type": "object", "class": "Rule", "state": {"type": "dict", "items": []}},
])
def test_values_nested_up_to_the_limit_load_and_deeper_ones_are_refused(innermost):
    # A value inside n containers is read at depth n: MAX_DEPTH is the last allowed.
    depth_of_innermost = 0 if innermost is None else 1
    at_limit = nested(MAX_DEPTH - depth_of_innermost, innermost)
    below = refusal(header_file(at_limit))
    assert below != TOO_DEEP
    assert refusal(header_file({"type": "list", "items": [at_limit]})) == TOO_DEEP


@pytest.mark.parametrize("model_value, message", [
    ([1], "the header holds an untagged list"),
    ({"items": []}, "the header holds a value of no known type"),
    ({"type": 3}, "the header holds a value of no known type"),
    ({"type": "list", "items": "abc"}, "a collection's items are not a list"),
    ({"type": "dict", "items": [["a", 1, 2]]}, "a dict's items are not pairs"),
    ({"type": "dict", "items": {"a": 1}}, "a dict's items are not pairs"),
    ({"type": "dict", "items": [[{"type": "list", "items": []}, 1]]},
     "a dict has a key that cannot be one"),
    ({"type": "scalar", "dtype": "<U3", "value": "abc"}, "a scalar has the dtype <U3"),
    ({"type": "scalar", "dtype": "<i8", "value": "3"}, "a scalar's value is not a number"),
    ({"type": "float", "value": "1.5"}, "a special float is not nan, inf or -inf"),
    ({"type": "dtype", "name": "<U3"}, "a dtype <U3 is not numeric"),
    ({"type": "objects", "shape": [2, -1], "items": []},
     "an object array has a malformed shape"),
    ({"type": "objects", "shape": [1] * 33, "items": [None]},
     "an object array has a malformed shape"),
    ({"type": "objects", "shape": [2], "items": [None]},
     "an object array's items do not fill its shape"),
    ({"type": "object", "class": "Rule", "state": {"type": "list", "items": []}},
     "the state of a Rule is not a dict of names"),
    ({"type": "object", "class": "Rule", "state": {"type": "dict", "items": [[1, 2]]}},
     "the state of a Rule is not a dict of names"),
    ({"type": "object", "class": "Rule", "state": {"type": "dict", "items": [["x", 2]]}},
     "a Rule has the fields ['x']"),
    ({"type": "random_state", "key": None, "pos": 0, "has_gauss": 0,
      "cached_gaussian": 0.0}, "a random state's key is not 624 uint32 words"),
    ({"type": "list"}, "a list in the header is malformed ('items')"),
    ({"type": "random_state", "key": {"type": "objects", "shape": [624], "items": [0] * 624},
      "pos": 0, "has_gauss": 0, "cached_gaussian": 0.0},
     "a random state's key is not 624 uint32 words"),
])
def test_malformed_header_values_are_refused_with_what_is_wrong(model_value, message):
    assert refusal(header_file(model_value)) == message


def test_a_header_that_is_not_json_text_is_refused_in_these_words():
    assert refusal(file_of(b'{"format": NaN}', {})) == (
        "the model file's header holds NaN, which JSON does not allow")
    assert refusal(file_of(b'{"model": 1e999}', {})) == (
        "not a fasttree model file (its header names another format)")
    assert refusal(file_of(b'{"format":"fasttree-model","format_version":1,"model":1e999}',
                           {})) == "a plain number in the header is not finite"
    assert refusal(file_of(b'{"format": ', {})).startswith(
        "the model file's header is not JSON (Expecting value")
    for text in (np.zeros(3, dtype=np.float64), np.zeros((2, 2), dtype=np.uint8)):
        buffer = io.BytesIO()
        np.savez(buffer, header=text)
        assert refusal(buffer.getvalue()) == "the model file's header is not text"
    assert refusal(header_file(None, format_version=2)) == (
        "cannot read a fasttree model file of format version 2; this fasttree reads "
        "version 1")
    assert refusal(header_file(None)) == NOT_AN_ESTIMATOR


def test_the_header_names_the_fasttree_version_that_wrote_it():
    import fasttree
    header, _ = parts_of(dumps(MODELS["tree"][0]))
    assert header["fasttree_version"] == fasttree.__version__
    assert list(header) == ["format", "format_version", "fasttree_version", "model"]


def array_file(entry_values, reference):
    return header_file(reference) if not entry_values else file_of(
        json.dumps({"format": "fasttree-model", "format_version": 1,
                    "model": reference}).encode(), entry_values)


@pytest.mark.parametrize("entries, reference, message", [
    ({"d0": np.zeros((2, 2))}, {"entry": "d0", "offset": 0, "shape": [4]},
     "the array entry 'd0' is not a flat array of numbers"),
    ({"d0": np.zeros(4)}, {"entry": "d0", "offset": 0, "shape": [1] * 33},
     "an array's offset or shape is malformed"),
    ({"d0": np.zeros(4)}, {"entry": "d0", "offset": 0, "shape": [-1]},
     "an array's offset or shape is malformed"),
    ({"d0": np.zeros(4)}, {"entry": "d0", "offset": True, "shape": [3]},
     "an array's offset or shape is malformed"),
    ({"d0": np.zeros(4)}, {"entry": "d0", "offset": 2, "shape": [3]},
     "an array reaches beyond its entry 'd0'"),
    ({"d0": np.zeros(4)}, {"entry": "d0", "offset": -1, "shape": [1]},
     "an array reaches beyond its entry 'd0'"),
])
def test_array_references_out_of_their_entry_are_refused(entries, reference, message):
    assert refusal(array_file(entries, {"type": "array", **reference})) == message


@pytest.mark.parametrize("code_point, valid", [
    (0xD7FF, True), (0xD800, False), (0xDBFF, False), (0xDFFF, False), (0xE000, True),
    (0x10FFFF, True), (0x110000, False),
])
def test_text_entries_with_code_points_that_are_no_characters_are_refused(code_point, valid):
    text = np.array([ord("a"), code_point], dtype=np.uint32).view("<U1")
    message = refusal(array_file({"d0": text}, {"type": "array", "entry": "d0", "offset": 0,
                                                "shape": [2]}))
    assert message == (NOT_AN_ESTIMATOR if valid
                       else "the text entry 'd0' holds invalid characters")


@pytest.mark.parametrize("last", [(4, 1), (5, 2)])
def test_an_array_overlapping_the_one_before_or_after_it_is_refused(last):
    # Entry values 0-1, 2-4 and 6-9 are taken; 4 is in the second, 6 in the third.
    spans = [(0, 2), (2, 3), (6, 4), last]
    refs = [{"type": "array", "entry": "d0", "offset": offset, "shape": [size]}
            for offset, size in spans]
    assert refusal(array_file({"d0": np.zeros(10)}, {"type": "list", "items": refs})) == (
        "two arrays share values of the entry 'd0'")


# An estimator's consistency, checked as it loads (and as it is unpickled).

def string_label_bagging():
    X, y = classification_data(n_samples=120, n_features=5, n_classes=3)
    return BaggingClassifier(n_estimators=2, random_state=0).fit(
        X, np.array(["ant", "bee", "cat"])[y])


def nested_bagging(levels):
    X, y = classification_data(n_samples=60, n_features=3, n_classes=2)
    model = DecisionTreeClassifier(max_depth=2)
    for _ in range(levels):
        model = BaggingClassifier(model, n_estimators=1, random_state=0)
    return model.fit(X, y)


EXTRA = {"string labels": string_label_bagging,
         "hard voting": lambda: BaggingClassifier(n_estimators=2, voting="hard",
                                                  random_state=0).fit(*classification_data(
                                                      n_samples=60, n_features=3)),
         "rule list, categories": lambda: RuleListClassifier(random_state=0).fit(*mixed_frame()),
         "unfitted": lambda: RandomForestClassifier(),
         "bagging, 5 deep": lambda: nested_bagging(5)}


def model_named(name):
    return copy.deepcopy(MODELS[name][0]) if name in MODELS else EXTRA[name]()


@pytest.mark.parametrize("name", ["string labels", "hard voting", "rule list, categories",
                                  "unfitted", "bagging, 5 deep"])
def test_models_at_the_edges_of_the_checks_load(name):
    model = model_named(name)
    assert_same_state(_state_of(loads(dumps(model))), _state_of(model))


def test_a_model_nested_past_the_files_limit_is_refused_at_save_and_one_at_it_loads(
        monkeypatch):
    # Save refuses exactly the models that load would refuse (the deepest
    # one it writes loads; the next, written past the check, does not), so
    # it never writes a file that cannot be read back. Pickle holds both.
    X, y = classification_data(n_samples=60, n_features=3, n_classes=2)
    model = DecisionTreeClassifier(max_depth=2).fit(X, y)
    levels = 0
    while True:
        deeper = BaggingClassifier(model, n_estimators=1, random_state=0).fit(X, y)
        try:
            data = dumps(deeper)
        except ValueError as error:
            assert str(error) == (f"cannot save a model nested more than {MAX_DEPTH} levels "
                                  "deep (ensembles of ensembles); model files do not hold "
                                  "it, use pickle")
            break
        model, levels = deeper, levels + 1
    assert levels >= 15
    assert_same_state(_state_of(loads(data)), _state_of(model))
    with monkeypatch.context() as patched:
        patched.setattr(fasttree._model_file, "MAX_DEPTH", 10 * MAX_DEPTH)
        unchecked = dumps(deeper)
    assert refusal(unchecked) == TOO_DEEP
    assert_same_state(_state_of(pickle.loads(pickle.dumps(deeper))), _state_of(deeper))


def set_attribute(key, value):
    return lambda model: model.__dict__.__setitem__(key, value(model) if callable(value)
                                                    else value)


def delete(key):
    return lambda model: model.__dict__.pop(key)


def set_member(index, key, value):
    return lambda model: set_attribute(key, value)(model.estimators_[index])


def set_rule(index, **changes):
    def change(model):
        model.rules_[index] = dataclasses.replace(model.rules_[index], **changes)
    return change


def first_condition(model, operators):
    for index, rule in enumerate(model.rules_):
        for place, condition in enumerate(rule.conditions):
            if condition.operator in operators:
                return index, place
    raise AssertionError(f"no condition {operators}")


def set_condition(operators, **changes):
    def change(model):
        index, place = first_condition(model, operators)
        conditions = list(model.rules_[index].conditions)
        conditions[place] = dataclasses.replace(conditions[place], **changes)
        model.rules_[index] = dataclasses.replace(model.rules_[index],
                                                  conditions=tuple(conditions))
    return change


def subsets(change_first):
    def change(model):
        model.estimators_features_[0] = change_first(model.estimators_features_[0])
    return change


def unfitted_extras(model):
    model.__dict__.update(foo_=1, _cache=None, bar=None)


TREE, RULES = "DecisionTreeClassifier", "RuleListClassifier"
INCONSISTENT = "the model is inconsistent"
CASES = [
    ("tree", set_attribute("n_features_in_", True), f"the {TREE} has no valid n_features_in_"),
    ("tree", set_attribute("n_features_in_", -1), f"the {TREE} has no valid n_features_in_"),
    ("tree", delete("classes_"), f"the fitted {TREE} has no classes_"),
    ("tree", delete("max_depth"), f"the {TREE} lacks its parameters ['max_depth']"),
    ("tree", set_attribute("n_classes_", -3), f"the {TREE}'s n_classes_ is malformed"),
    ("tree", set_attribute("classes_", lambda m: m.classes_[:2]),
     f"the {TREE}'s classes_ do not match n_classes_"),
    ("tree", set_attribute("feature_names_in_", ["a", "b", "c", "d", "e"]),
     f"the {TREE}'s feature_names_in_ are not 5 names"),
    ("tree", set_attribute("feature_names_in_", np.array(list("abcd"), dtype=object)),
     f"the {TREE}'s feature_names_in_ are not 5 names"),
    ("tree", set_attribute("feature_names_in_", np.array([*"abcd", 1], dtype=object)),
     f"the {TREE}'s feature_names_in_ are not 5 names"),
    *[("tree", lambda model, mask=mask, levels=levels: model.__dict__.update(
        is_categorical_=mask, categories_=levels),
       f"the {TREE}'s category levels do not match its categorical features")
      for mask, levels in [(np.zeros(5, dtype=int), []), (np.zeros(4, dtype=bool), []),
                           (np.zeros(5, dtype=bool), ()),
                           (np.zeros(5, dtype=bool), [np.arange(2)])]],
    *[("tree, loss matrix", set_attribute("loss_matrix_", loss),
       f"the {TREE}'s loss matrix is not 3 x 3 numbers")
      for loss in [np.ones((3, 3), dtype=int), np.ones((2, 2)), np.full((3, 3), np.nan),
                   [[0.0] * 3] * 3]],
    ("regression tree, two outputs", set_attribute("n_outputs_", -1),
     "the DecisionTreeRegressor's n_outputs_ is malformed"),
    ("regression tree, two outputs", set_attribute("n_outputs_", 1),
     "a tree of the DecisionTreeRegressor gives 2 values per node, the estimator needs 1"),
    ("forest", set_attribute("_trees", lambda m: tuple(m._trees)),
     "the RandomForestClassifier's trees are not a list"),
    ("forest", lambda model: model._trees.__setitem__(0, "tree"),
     "a tree of the RandomForestClassifier is a str"),
    ("forest", set_attribute("n_jobs", "many"),
     f"{INCONSISTENT} (ValueError: n_jobs must be None or a non-zero int; got 'many')"),
    ("hard voting", set_attribute("voting", "hardest"),
     (f"{INCONSISTENT} (InvalidParameterError: The 'voting' parameter must be a str among "
      "['hard', 'soft']. Got 'hardest' instead.)")),
    ("bagging", set_attribute("estimators_features_", lambda m: tuple(m.estimators_features_)),
     "the BaggingClassifier has not one feature subset per member"),
    ("bagging", set_attribute("estimators_features_", lambda m: m.estimators_features_[1:]),
     "the BaggingClassifier has not one feature subset per member"),
    ("bagging", delete("estimators_features_"),
     "the BaggingClassifier lacks its members' feature subsets"),
    *[("bagging", subsets(change), "a feature subset of the BaggingClassifier is out of range")
      for change in [lambda f: f.astype(float), lambda f: f.reshape(1, -1),
                     lambda f: np.r_[f[:-1], -1], lambda f: np.r_[f[:-1], 5]]],
    ("bagging", subsets(lambda f: f[:2]),
     "a member of the BaggingClassifier reads 3 features, it is given 2"),
    *[("adaboost", set_attribute("estimator_weights_", weights),
       "the AdaBoostClassifier's member weights do not match its members")
      for weights in [lambda m: list(m.estimator_weights_),
                      lambda m: m.estimator_weights_.reshape(1, -1),
                      lambda m: m.estimator_weights_[1:],
                      lambda m: np.r_[m.estimator_weights_[1:], np.nan]]],
    *[("string labels", set_member(0, "classes_", labels),
       "a member of the BaggingClassifier predicts classes the BaggingClassifier does not have")
      for labels in [np.array(["ant", "bee", "dog"]), np.array([0, 1, 3])]],
    ("unfitted", unfitted_extras,
     "the RandomForestClassifier holds ['bar', 'foo_'] but no fitted trees or rules"),
    ("rule list", set_attribute("rules_", lambda m: tuple(m.rules_)),
     f"the {RULES}'s rules do not match its classes"),
    *[("rule list", set_attribute("_rule_classes", classes),
       f"the {RULES}'s rules do not match its classes")
      for classes in [lambda m: list(m._rule_classes), lambda m: m._rule_classes[1:],
                      lambda m: m._rule_classes.astype(float),
                      lambda m: np.r_[m._rule_classes[1:], -1],
                      lambda m: np.r_[m._rule_classes[1:], 3]]],
    *[("rule list", set_attribute("_default_index", default),
       f"the {RULES}'s rules do not match its classes") for default in [True, 3, -1]],
    ("rule list", set_attribute("classes_", lambda m: m.classes_.reshape(1, -1)),
     f"the {RULES}'s classes_ are malformed"),
    ("rule list", lambda model: model.rules_.__setitem__(0, "rule"),
     f"a rule of the {RULES} is malformed"),
    ("rule list", lambda model: set_rule(0, conditions=list(model.rules_[0].conditions))(model),
     f"a rule of the {RULES} is malformed"),
    *[("rule list", set_condition(("<=", ">"), **change),
       f"a rule of the {RULES} tests a feature out of range")
      for change in [{"feature": 5}, {"feature": -1}, {"missing": 1}]],
    *[("rule list", set_condition(("<=", ">"), **change),
       f"a rule of the {RULES} has no numeric threshold")
      for change in [{"threshold": "0.5"}, {"threshold": True}, {"codes": frozenset({1})}]],
    ("rule list", set_condition(("<=", ">"), operator="=="),
     f"a rule of the {RULES} has the unknown operator '=='"),
    *[("rule list, categories", set_condition(operators, **change),
       f"a rule of the {RULES} has malformed categories")
      for operators in [("in",), ("not in",)]
      for change in [{"codes": {3}}, {"codes": frozenset({-1})},
                     {"categories": ["red"]}, {"categories": ("red", "blue")}]],
]


@pytest.mark.parametrize("name, change, message", CASES)
def test_an_inconsistent_estimator_is_refused_with_what_is_wrong(name, change, message):
    model = model_named(name)
    change(model)
    with pytest.raises(ModelFileError) as raised:
        _check_model(model)
    assert str(raised.value) == message


def test_a_classifier_tree_whose_leaves_hold_no_class_shares_is_refused():
    header, arrays = parts_of(dumps(MODELS["tree"][0]))
    reference = tree_state(header)["value_data"]
    entry = arrays[reference["entry"]]
    size = int(np.prod(reference["shape"]))
    entry[reference["offset"]:reference["offset"] + size] *= 1.5
    assert refusal(file_of(header, arrays)) == (
        f"a {TREE} in the file is inconsistent (a tree of the {TREE} holds leaf values that "
        "are not class shares)")


def test_a_random_state_key_of_623_words_is_refused():
    key = {"type": "array", "entry": "d0", "offset": 0, "shape": [623]}
    assert refusal(array_file({"d0": np.zeros(623, dtype=np.uint32)}, {
        "type": "random_state", "key": key, "pos": 0, "has_gauss": 0,
        "cached_gaussian": 0.0})) == "a random state's key is not 624 uint32 words"


def test_a_tree_of_one_category_split_is_checked_against_its_levels():
    frame, label = mixed_frame()
    model = DecisionTreeClassifier(max_depth=1).fit(frame[["colour", "size"]], label)
    assert np.flatnonzero(model.tree_.is_categorical).size == 1
    assert model.tree_.feature[0] == 1
    model.categories_[1] = model.categories_[1][:2]
    with pytest.raises(ModelFileError) as raised:
        _check_model(model)
    assert str(raised.value) == (f"a tree of the {TREE} splits feature 1 into 3 category "
                                 "codes; its category levels are 2")
