"""polars DataFrames and pyarrow Tables (fasttree._frames): read as pandas
DataFrames are, with their names, categorical columns and nulls, without
importing either library in fasttree."""

import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pytest

from fasttree import (AdaBoostClassifier, BaggingClassifier, DecisionTreeClassifier,
                      RandomForestClassifier, RandomForestRegressor)
from test_model_file import mixed_frame


def texts(column):
    return [None if pd.isna(value) else str(value) for value in column]


def as_polars(frame):
    return pl.DataFrame({
        "number": pl.Series(frame["number"].tolist(), dtype=pl.Float64),
        "colour": pl.Series(texts(frame["colour"]), dtype=pl.Utf8),
        "size": pl.Series(texts(frame["size"]), dtype=pl.Categorical),
    })


def as_arrow(frame):
    return pa.table({
        "number": pa.array([None if np.isnan(value) else value for value in frame["number"]],
                           type=pa.float64()),
        "colour": pa.array(texts(frame["colour"]), type=pa.string()),
        "size": pa.array(texts(frame["size"])).dictionary_encode(),
    })


FRAME, LABEL = mixed_frame(300)
NEW_FRAME, _ = mixed_frame(120, seed=5)


@pytest.mark.parametrize("convert", [as_polars, as_arrow], ids=["polars", "pyarrow"])
@pytest.mark.parametrize("estimator", [
    DecisionTreeClassifier(random_state=0), RandomForestClassifier(n_estimators=5,
                                                                   random_state=0),
    BaggingClassifier(n_estimators=4, random_state=0), AdaBoostClassifier(n_estimators=4)],
    ids=lambda estimator: type(estimator).__name__)
def test_frames_fit_and_predict_as_the_same_pandas_frame(convert, estimator):
    from sklearn.base import clone

    ours = clone(estimator).fit(convert(FRAME), LABEL)
    reference = clone(estimator).fit(FRAME, LABEL)
    assert list(ours.feature_names_in_) == ["number", "colour", "size"]
    np.testing.assert_array_equal(ours.is_categorical_, [False, True, True])
    for rows in (convert(NEW_FRAME), NEW_FRAME):
        np.testing.assert_array_equal(ours.predict(rows), reference.predict(NEW_FRAME))
        np.testing.assert_array_equal(ours.predict_proba(rows),
                                      reference.predict_proba(NEW_FRAME))


def test_integer_columns_with_nulls_are_numbers_with_missing_values():
    X = pl.DataFrame({"a": [1, None, 3, 4, None, 6] * 10, "b": [0.5, 1.5, 2.5] * 20})
    y = np.arange(60) % 2
    model = RandomForestRegressor(n_estimators=3, random_state=0).fit(X, y)
    assert not getattr(model, "is_categorical_", np.zeros(2, bool)).any()
    expected = RandomForestRegressor(n_estimators=3, random_state=0).fit(
        pd.DataFrame({"a": X["a"].to_numpy(), "b": X["b"].to_numpy()}), y)
    np.testing.assert_array_equal(model.predict(X), expected.predict(X.to_numpy()))


def test_columns_in_another_order_are_refused_by_name():
    model = DecisionTreeClassifier(random_state=0).fit(as_polars(FRAME), LABEL)
    with pytest.raises(ValueError, match="feature names"):
        model.predict(as_polars(FRAME).select(["colour", "number", "size"]))
