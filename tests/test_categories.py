"""Categorical columns as codes (``fasttree._categories``)."""

import csv
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from fasttree._categories import (CategoryEncoding, categorical_mask, column_levels,
                                  encode_categories, is_missing)

DATA = Path(__file__).parent / "data"


def mixed_frame():
    return pd.DataFrame({
        "colour": pd.Categorical(["red", "blue", None, "red"]),
        "city": ["Oslo", None, "Lima", "Oslo"],
        "size": [1.5, np.nan, 3.0, 4.0],
        "label": pd.array(["a", "b", pd.NA, "a"], dtype="string"),
        "count": [1, 2, 3, 4],
        "flag": [True, False, True, True],
    })


def test_from_dtype_picks_category_object_and_string_columns():
    frame = mixed_frame()
    mask = categorical_mask(frame, "from_dtype", 6, np.array(frame.columns))
    np.testing.assert_array_equal(mask, [True, True, False, True, False, False])


def test_from_dtype_on_arrays_picks_columns_holding_non_numbers():
    X = np.array([["a", 1.0, None], ["b", 2.5, 3.0], [None, np.nan, 4.0]], dtype=object)
    np.testing.assert_array_equal(categorical_mask(X, "from_dtype", 3), [True, False, False])
    np.testing.assert_array_equal(categorical_mask(np.array([["x", "y"]]), "from_dtype", 2),
                                  [True, True])
    assert not categorical_mask(np.ones((3, 2)), "from_dtype", 2).any()


@pytest.mark.parametrize("spec, expected", [
    (None, [False, False, False]),
    ([0, 2], [True, False, True]),
    (np.array([1]), [False, True, False]),
    ([True, False, True], [True, False, True]),
    (["b"], [False, True, False]),
    ([], [False, False, False]),
])
def test_features_can_be_given_by_index_mask_or_name(spec, expected):
    mask = categorical_mask(None, spec, 3, np.array(["a", "b", "c"], dtype=object))
    np.testing.assert_array_equal(mask, expected)


@pytest.mark.parametrize("spec, names, message", [
    ("all", None, "must be None, 'from_dtype'"),
    ([3], None, r"indices must lie in \[0, 3\)"),
    ([-1], None, r"indices must lie in \[0, 3\)"),
    ([True, False], None, "needs 3 entries"),
    (["d"], np.array(["a", "b", "c"], dtype=object), "unknown features"),
    (["a"], None, "no string column names"),
    ([[0, 1]], None, "one-dimensional"),
    ([0.5], None, "integer indices, booleans or feature names"),
])
def test_bad_specifications_are_refused_by_name(spec, names, message):
    with pytest.raises(ValueError, match=message):
        categorical_mask(None, spec, 3, names)


def test_codes_follow_sorted_levels_and_missing_values_become_nan():
    frame = mixed_frame()
    mask = np.array([True, True, False, True, False, False])
    codes, levels = encode_categories(frame, mask)
    assert levels == [["blue", "red"], ["Lima", "Oslo"], ["a", "b"]]
    np.testing.assert_array_equal(codes[:, 0], [1, 0, np.nan, 1])
    np.testing.assert_array_equal(codes[:, 1], [1, np.nan, 0, 1])
    np.testing.assert_array_equal(codes[:, 2], [1.5, np.nan, 3.0, 4.0])
    np.testing.assert_array_equal(codes[:, 3], [0, 1, np.nan, 0])
    np.testing.assert_array_equal(codes[:, 4:], [[1, 1], [2, 0], [3, 1], [4, 1]])


def test_unseen_categories_at_predict_time_are_missing():
    train = np.array([["x", 1.0], ["y", 2.0]], dtype=object)
    _, levels = encode_categories(train, np.array([True, False]))
    later = np.array([["y", 5.0], ["never seen", 6.0], [None, np.nan]], dtype=object)
    codes, same = encode_categories(later, np.array([True, False]), levels)
    assert same is levels
    np.testing.assert_array_equal(codes, [[1, 5], [np.nan, 6], [np.nan, np.nan]])


def test_numbers_and_strings_are_distinct_levels_in_a_fixed_order():
    values = np.array(["1", 1, 2.5, "b", True, None, 1.0], dtype=object)
    levels = column_levels(values)
    # True is a category of its own here, not the number 1.
    assert levels == [1, 2.5, True, "1", "b"]
    codes, _ = encode_categories(values.reshape(-1, 1), np.array([True]))
    np.testing.assert_array_equal(codes[:, 0], [3, 0, 1, 4, 2, np.nan, 0])


def test_missing_values_are_recognised_in_every_form():
    assert all(is_missing(value) for value in (None, np.nan, float("nan"), pd.NA, pd.NaT,
                                               np.float32("nan")))
    assert not any(is_missing(value) for value in (0, "", "None", "nan", False))


def test_the_congressional_votes_encode_with_their_missing_votes():
    frame = pd.read_csv(DATA / "congressional_votes.csv")
    X = frame.drop(columns="Class")
    mask = categorical_mask(X, "from_dtype", X.shape[1], np.array(X.columns))
    assert mask.all()
    codes, levels = encode_categories(X, mask)
    assert all(level == ["n", "y"] for level in levels)
    assert np.isnan(codes).sum() == 392
    with open(DATA / "congressional_votes.csv", newline="") as handle:
        first = next(csv.DictReader(handle))
    assert codes[0, 0] == ["n", "y"].index(first["handicapped-infants"])


def test_a_numeric_column_holding_words_asks_to_be_marked_categorical():
    X = np.array([["3", 1.0], ["four", 2.0]], dtype=object)
    with pytest.raises(ValueError, match="feature 0 holds values that are not numbers"):
        encode_categories(X, np.array([False, False]))


def test_strings_get_the_same_codes_with_or_without_pandas_loaded(monkeypatch):
    rng = np.random.default_rng(0)
    words = np.array([f"w{i}" for i in rng.integers(0, 50, size=400)], dtype=object)
    words[rng.random(400) < 0.1] = None
    later = np.array([f"w{i}" for i in rng.integers(0, 60, size=200)], dtype=object)
    later[::7] = np.nan
    mask = np.array([True])
    with_pandas = encode_categories(words.reshape(-1, 1), mask)
    with_pandas_later = encode_categories(later.reshape(-1, 1), mask, with_pandas[1])[0]
    # A None entry hides pandas from the module, as if it were not installed.
    monkeypatch.setitem(__import__("sys").modules, "pandas", None)
    without = encode_categories(words.reshape(-1, 1), mask)
    without_later = encode_categories(later.reshape(-1, 1), mask, without[1])[0]
    assert without[1] == with_pandas[1] == [column_levels(words)]
    np.testing.assert_array_equal(without[0], with_pandas[0])
    np.testing.assert_array_equal(without_later, with_pandas_later)
    known = set(column_levels(words))
    unseen_or_missing = np.array([not isinstance(word, str) or word not in known
                                  for word in later])
    np.testing.assert_array_equal(np.isnan(without_later[:, 0]), unseen_or_missing)


def test_an_object_array_of_numbers_and_strings_predicts_after_fit():
    # The fitted levels are arrays, as a model file or pickle gives them back.
    from fasttree import DecisionTreeClassifier

    X = np.array([[1.0, "a"], [2.0, "b"], [np.nan, None], [4.0, "a"]] * 10, dtype=object)
    y = np.array([0, 1, 0, 1] * 10)
    model = DecisionTreeClassifier(random_state=0).fit(X, y)
    np.testing.assert_array_equal(model.predict(X), y)
    unseen = np.array([[2.0, "z"], [2.0, "b"]], dtype=object)
    assert model.predict(unseen).shape == (2,)


def mixed_one_column():
    """A column holding 1 and '1' (two levels), a word, and its class."""
    column = pd.Series([1, "1", "a", 1, "1", "a", True] * 6, dtype=object)
    return pd.DataFrame({"c": column}), np.array([0, 1, 0, 0, 1, 0, 1] * 6)


def test_fitted_levels_keep_a_number_and_its_string_apart():
    X, _ = mixed_one_column()
    codes, levels = encode_categories(X, np.array([True]))
    encoding = CategoryEncoding(np.array([True]), levels)
    assert encoding.levels[0].tolist() == [1, True, "1", "a"]
    assert encoding.levels[0].dtype == object
    # Prediction gives every training value its code of fit.
    np.testing.assert_array_equal(encoding.encode(X), codes)
    np.testing.assert_array_equal(encoding.encode(X.to_numpy()), codes)


@pytest.mark.parametrize("levels, dtype_kind", [
    (["a", "b"], "U"), ([1, 2.5], "f"), ([False, True], "b")])
def test_levels_of_one_kind_keep_their_dtype(levels, dtype_kind):
    assert CategoryEncoding(np.array([True]), [levels]).levels[0].dtype.kind == dtype_kind


@pytest.mark.parametrize("as_frame", [True, False], ids=["DataFrame", "object array"])
def test_a_model_of_a_mixed_column_predicts_unseen_categories_as_missing(as_frame):
    from fasttree import DecisionTreeClassifier

    X, y = mixed_one_column()
    model = DecisionTreeClassifier(random_state=0).fit(X if as_frame else X.to_numpy(), y)
    np.testing.assert_array_equal(model.predict(X if as_frame else X.to_numpy()), y)
    # All strings, one unseen: pandas' indexer once refused the levels '1', '1'.
    later = pd.DataFrame({"c": pd.Series(["zz", "1", "a", None], dtype=object)})
    predicted = model.predict(later if as_frame else later.to_numpy())
    missing = model.predict(pd.DataFrame({"c": pd.Series([None], dtype=object)}))
    assert predicted[0] == missing[0] == predicted[3]
    np.testing.assert_array_equal(predicted[1:3], [1, 0])


@pytest.mark.parametrize("given", [[0, 1, 0, 1], [0.0, np.nan, 1.0, 1.0]])
def test_codes_given_for_text_categories_at_predict_are_refused(given):
    from fasttree import DecisionTreeClassifier
    X = pd.DataFrame({"size": [1.0, 2.0, 3.0, 4.0], "colour": ["red", "blue", "red", "blue"]})
    model = DecisionTreeClassifier().fit(X, [0, 1, 0, 1])
    with pytest.raises(ValueError, match=r"column 'colour' was fitted on categories of text "
                                         r"\('blue', 'red'\) but holds numbers here"):
        model.predict(X.assign(colour=given))
    # Unseen categories of the right kind still go the missing values' way.
    np.testing.assert_array_equal(model.predict(X.assign(colour=["green"] * 4)),
                                  model.predict(X.assign(colour=[None] * 4)))


def test_text_given_for_number_categories_at_predict_is_refused():
    from fasttree import DecisionTreeClassifier
    X = np.array([[1.0, 0.0], [2.0, 1.0], [3.0, 0.0], [4.0, 1.0]])
    model = DecisionTreeClassifier(categorical_features=[1]).fit(X, [0, 1, 0, 1])
    with pytest.raises(ValueError, match=r"feature 1 was fitted on categories of numbers "
                                         r"\(0.0, 1.0\) but holds text here \(such as 'a'\)"):
        model.predict(np.array([[1.0, "a"], [2.0, "b"]], dtype=object))


def test_numbers_written_as_text_warn_that_they_are_taken_as_categories():
    from fasttree import DecisionTreeClassifier
    X = pd.DataFrame({"size": [1.0, 2.0, 3.0, 4.0], "grade": ["1.0", "10.0", "2.0", "1.0"]})
    with pytest.warns(UserWarning, match=r"column 'grade' holds numbers written as text "
                                         r"\('1.0', '10.0', '2.0'\), so it is taken as "
                                         "categorical"):
        DecisionTreeClassifier().fit(X, [0, 1, 0, 1])
    # Named categorical on purpose, or not all numbers: no warning.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        DecisionTreeClassifier(categorical_features=["grade"]).fit(X, [0, 1, 0, 1])
        DecisionTreeClassifier().fit(X.assign(grade=["1", "A", "2", "1"]), [0, 1, 0, 1])
