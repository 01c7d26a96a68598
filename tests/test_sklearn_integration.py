"""Every estimator inside scikit-learn's tools, unchanged: clone, Pipeline,
set_output, cross_val_score and GridSearchCV."""

import numpy as np
import pandas as pd
import pytest
from scipy.sparse import issparse
from sklearn.base import clone
from sklearn.compose import ColumnTransformer
from sklearn.model_selection import GridSearchCV, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler

from fasttree import (AdaBoostClassifier, AdaBoostRegressor, BaggingClassifier,
                      BaggingRegressor, DecisionTreeClassifier, DecisionTreeRegressor,
                      ExtraTreeClassifier, ExtraTreeRegressor, ExtraTreesClassifier,
                      ExtraTreesRegressor, RandomForestClassifier, RandomForestRegressor,
                      RuleListClassifier)
from synthetic import classification_data, regression_data

# Each estimator with a parameter worth searching over.
ESTIMATORS = {
    DecisionTreeClassifier: ("max_depth", [2, 4]),
    DecisionTreeRegressor: ("max_depth", [2, 4]),
    ExtraTreeClassifier: ("max_depth", [2, 4]),
    ExtraTreeRegressor: ("max_depth", [2, 4]),
    RandomForestClassifier: ("max_features", [1, 2]),
    ExtraTreesClassifier: ("max_features", [1, 2]),
    ExtraTreesRegressor: ("max_features", [1, 2]),
    RandomForestRegressor: ("max_features", [1, 2]),
    BaggingClassifier: ("max_samples", [0.5, 1.0]),
    BaggingRegressor: ("max_samples", [0.5, 1.0]),
    AdaBoostClassifier: ("learning_rate", [0.5, 1.0]),
    AdaBoostRegressor: ("learning_rate", [0.5, 1.0]),
    RuleListClassifier: ("validation_fraction", [0.25, 0.5]),
}
CLASSIFIERS = {DecisionTreeClassifier, ExtraTreeClassifier, RandomForestClassifier,
               ExtraTreesClassifier, BaggingClassifier, AdaBoostClassifier, RuleListClassifier}


def make(estimator_class, **params):
    if "n_estimators" in estimator_class().get_params():
        params.setdefault("n_estimators", 5)
    return estimator_class(random_state=0, **params)


def data(estimator_class):
    if estimator_class in CLASSIFIERS:
        return classification_data(n_samples=200, n_features=4)
    return regression_data(n_samples=200, n_features=4)


@pytest.mark.parametrize("estimator_class", ESTIMATORS)
def test_clone_copies_the_parameters_and_not_the_fit(estimator_class):
    name, values = ESTIMATORS[estimator_class]
    X, y = data(estimator_class)
    estimator = make(estimator_class, **{name: values[0]}).fit(X, y)
    copy = clone(estimator)
    assert copy.get_params() == estimator.get_params()
    assert not hasattr(copy, "n_features_in_")
    np.testing.assert_array_equal(copy.fit(X, y).predict(X), estimator.predict(X))


@pytest.mark.parametrize("output", ["pandas", "polars"])
@pytest.mark.parametrize("estimator_class", ESTIMATORS)
def test_a_pipeline_with_dataframe_output_passes_feature_names_on(estimator_class, output):
    X, y = data(estimator_class)
    columns = [f"x{j}" for j in range(X.shape[1])]
    frame = pd.DataFrame(X, columns=columns)
    if output == "polars":
        import polars as pl
        frame = pl.from_pandas(frame)
    pipeline = make_pipeline(StandardScaler(), make(estimator_class))
    pipeline.set_output(transform=output)
    predicted = pipeline.fit(frame, y).predict(frame)
    model = pipeline[-1]
    assert list(model.feature_names_in_) == columns
    np.testing.assert_array_equal(
        predicted, make(estimator_class).fit(StandardScaler().fit_transform(X), y).predict(
            StandardScaler().fit(X).transform(X)))


@pytest.mark.parametrize("estimator_class", [DecisionTreeClassifier, RandomForestClassifier])
def test_a_column_transformer_with_one_hot_codes_feeds_a_model(estimator_class):
    # The model gets a sparse matrix [blue, red, size] and must learn from it
    # what it learns from the same columns written out by hand: the same
    # probabilities for rows it was not fitted on.
    X, y = data(estimator_class)
    frame = pd.DataFrame({"size": X[:, 0], "colour": np.where(X[:, 1] > 0, "red", "blue")})
    encoder = ColumnTransformer([("codes", OneHotEncoder(sparse_output=True), ["colour"])],
                                remainder="passthrough", sparse_threshold=1.0)
    pipeline = make_pipeline(encoder, make(estimator_class)).fit(frame[:150], y[:150])
    assert issparse(pipeline[:-1].transform(frame[150:]))
    by_hand = np.column_stack([X[:, 1] <= 0, X[:, 1] > 0, X[:, 0]]).astype(np.float64)
    model = make(estimator_class).fit(by_hand[:150], y[:150])
    assert pipeline[-1].n_features_in_ == 3 and pipeline[-1].feature_importances_[:2].sum() > 0
    np.testing.assert_array_equal(pipeline.predict_proba(frame[150:]),
                                  model.predict_proba(by_hand[150:]))
    np.testing.assert_array_equal(pipeline[-1].feature_importances_, model.feature_importances_)


@pytest.mark.parametrize("estimator_class", [DecisionTreeClassifier, RandomForestClassifier])
def test_polars_output_of_a_column_transformer_keeps_text_columns_categorical(estimator_class):
    # scikit-learn hands the model a polars DataFrame whose string column
    # passed through: fasttree splits it as categories, as it does a pandas
    # frame's, and predicts the same.
    import polars as pl

    X, y = data(estimator_class)
    frame = pd.DataFrame({"size": X[:, 0], "colour": np.where(X[:, 1] > 0, "red", "blue")})
    scaler = ColumnTransformer([("scaled", StandardScaler(), ["size"])],
                               remainder="passthrough", verbose_feature_names_out=False)
    pipelines = {}
    for output, rows in (("polars", pl.from_pandas(frame)), ("pandas", frame)):
        # Each pipeline its own transformer: set_output changes the object.
        pipeline = make_pipeline(clone(scaler), make(estimator_class)).set_output(
            transform=output)
        pipelines[output] = (pipeline.fit(rows, y), rows)
    polars_pipeline, polars_rows = pipelines["polars"]
    assert isinstance(polars_pipeline[:-1].transform(polars_rows), pl.DataFrame)
    model = polars_pipeline[-1]
    assert list(model.feature_names_in_) == ["size", "colour"]
    assert list(model.is_categorical_) == [False, True]
    np.testing.assert_array_equal(*(pipeline.predict_proba(rows)
                                    for pipeline, rows in pipelines.values()))


@pytest.mark.parametrize("estimator_class", ESTIMATORS)
def test_cross_val_score_gives_one_score_per_fold(estimator_class):
    X, y = data(estimator_class)
    scores = cross_val_score(make(estimator_class), X, y, cv=3)
    assert scores.shape == (3,) and np.all(np.isfinite(scores))
    # Classifiers get stratified folds, regressors plain ones, as for
    # scikit-learn's estimators: the scores are those of fitting each fold.
    from sklearn.model_selection import check_cv

    folds = check_cv(3, y, classifier=estimator_class in CLASSIFIERS).split(X, y)
    expected = [make(estimator_class).fit(X[train], y[train]).score(X[test], y[test])
                for train, test in folds]
    np.testing.assert_allclose(scores, expected, rtol=0, atol=1e-12)


@pytest.mark.parametrize("estimator_class", ESTIMATORS)
def test_grid_search_tries_every_value_and_refits_the_best(estimator_class):
    name, values = ESTIMATORS[estimator_class]
    X, y = data(estimator_class)
    search = GridSearchCV(make(estimator_class), {name: values}, cv=3).fit(X, y)
    assert list(search.cv_results_[f"param_{name}"]) == values
    assert search.best_params_[name] in values
    best = make(estimator_class, **search.best_params_).fit(X, y)
    np.testing.assert_array_equal(search.predict(X), best.predict(X))


@pytest.mark.parametrize("estimator_class, name, criterion_class", [
    (DecisionTreeClassifier, "gini", "Gini"), (RandomForestClassifier, "entropy", "Entropy"),
    (DecisionTreeRegressor, "squared_error", "MSE"),
    (RandomForestRegressor, "squared_error", "MSE"),
    (ExtraTreesRegressor, "absolute_error", "MAE"),
    (DecisionTreeRegressor, "poisson", "Poisson")])
def test_scikit_learns_criterion_objects_stand_for_their_names(estimator_class, name,
                                                               criterion_class):
    # scikit-learn's trees and forests take its Cython criterion objects too.
    import sklearn.tree._criterion as criteria

    if estimator_class in (DecisionTreeClassifier, RandomForestClassifier):
        X, y = classification_data(n_samples=200)
        criterion = getattr(criteria, criterion_class)(1, np.array([3], dtype=np.intp))
    else:
        X, y = regression_data(n_samples=200)
        y = np.abs(y)
        criterion = getattr(criteria, criterion_class)(1, 200)
    params = {"random_state": 0, "max_depth": 4}
    if estimator_class not in (DecisionTreeClassifier, DecisionTreeRegressor):
        params["n_estimators"] = 3
    given = estimator_class(criterion=criterion, **params)
    assert given.criterion == name
    named = estimator_class(criterion=name, **params).fit(X, y)
    np.testing.assert_array_equal(given.fit(X, y).predict(X), named.predict(X))
