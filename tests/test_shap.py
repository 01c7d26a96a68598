"""SHAP export (fasttree._shap): shap.TreeExplainer takes the exported
dictionary, and each row's SHAP values add up to what fasttree predicts."""

import numpy as np
import pytest
import shap

from fasttree import (AdaBoostClassifier, BaggingClassifier, BaggingRegressor,
                      DecisionTreeClassifier, DecisionTreeRegressor, ExtraTreesClassifier,
                      RandomForestClassifier, RandomForestRegressor, export_shap)
from synthetic import classification_data, regression_data


def with_gaps(X, seed=0):
    X = X.copy()
    X[np.random.default_rng(seed).random(X.shape) < 0.1] = np.nan
    return X


def explained_sum(model, X):
    """Per row (and output), the expected value plus the SHAP values."""
    explainer = shap.TreeExplainer(export_shap(model))
    values = np.asarray(explainer.shap_values(X))
    expected = np.asarray(explainer.expected_value)
    if values.ndim == 2:                  # one output: (rows, features)
        return values.sum(axis=1) + expected.reshape(-1)[0]
    return values.sum(axis=1) + expected  # (rows, features, outputs)


def classification_cases():
    X, y = classification_data(n_samples=300, n_features=5, n_classes=3)
    return [
        (DecisionTreeClassifier(max_depth=6, random_state=0).fit(X, y), X),
        (DecisionTreeClassifier(random_state=0).fit(with_gaps(X), y), with_gaps(X, 1)),
        (RandomForestClassifier(n_estimators=8, random_state=0).fit(X, y), X),
        (ExtraTreesClassifier(n_estimators=8, random_state=0).fit(with_gaps(X), y),
         with_gaps(X, 2)),
        (BaggingClassifier(n_estimators=6, max_features=3, max_samples=0.3,
                           random_state=0).fit(X, y), X),
        # Members of 4 rows: some see one or two of the three classes.
        (BaggingClassifier(DecisionTreeClassifier(max_depth=3), n_estimators=5,
                           max_samples=4, random_state=0).fit(X, y), X),
        (DecisionTreeClassifier(max_depth=5, random_state=0).fit(X, y == 0), X),
    ]


def regression_cases():
    X, y = regression_data(n_samples=300, n_features=5)
    return [
        (DecisionTreeRegressor(max_depth=6, random_state=0).fit(X, y), X),
        (RandomForestRegressor(n_estimators=8, random_state=0).fit(with_gaps(X), y),
         with_gaps(X, 3)),
        (BaggingRegressor(n_estimators=6, max_features=4, random_state=0).fit(X, y), X),
        (DecisionTreeRegressor(max_depth=5, random_state=0).fit(X, np.c_[y, -2 * y]), X),
    ]


@pytest.mark.parametrize("model, X", classification_cases(),
                         ids=lambda case: type(case).__name__ if hasattr(case, "fit") else "")
def test_shap_values_add_up_to_the_class_probabilities(model, X):
    np.testing.assert_allclose(explained_sum(model, X), model.predict_proba(X), rtol=1e-9,
                               atol=1e-9)


@pytest.mark.parametrize("model, X", regression_cases(),
                         ids=lambda case: type(case).__name__ if hasattr(case, "fit") else "")
def test_shap_values_add_up_to_the_regression_prediction(model, X):
    scale = np.abs(model.predict(X)).max()
    np.testing.assert_allclose(explained_sum(model, X), model.predict(X), rtol=1e-9,
                               atol=1e-9 * scale)


def test_a_feature_a_tree_never_splits_on_gets_no_credit():
    X, y = regression_data(n_samples=200, n_features=4)
    X[:, 3] = 0.0  # constant: never split on
    model = DecisionTreeRegressor(max_depth=4, random_state=0).fit(X, y)
    values = shap.TreeExplainer(export_shap(model)).shap_values(X)
    assert np.all(values[:, 3] == 0.0)


def test_models_that_are_not_sums_of_threshold_trees_are_refused_by_name():
    X, y = classification_data(n_samples=120, n_features=3, n_classes=2)
    with pytest.raises(ValueError, match="AdaBoostClassifier"):
        export_shap(AdaBoostClassifier(n_estimators=3).fit(X, y))
    with pytest.raises(ValueError, match="RandomForestClassifier with voting='hard'"):
        export_shap(RandomForestClassifier(n_estimators=3, voting="hard").fit(X, y))
    with pytest.raises(ValueError, match="RandomForestRegressor with aggregation='median'"):
        export_shap(RandomForestRegressor(n_estimators=3, aggregation="median")
                    .fit(X, X[:, 0]))
    words = np.array(["red", "green", "blue"], dtype=object)[
        np.random.default_rng(0).integers(3, size=120)]
    categorical = np.column_stack([X[:, :2].astype(object), words])
    with pytest.raises(ValueError, match="categories"):
        export_shap(DecisionTreeClassifier(random_state=0).fit(categorical, words == "red"))
    with pytest.raises(ValueError, match="not fitted"):
        export_shap(DecisionTreeClassifier())


def test_trees_of_several_classified_outputs_and_c45_trees_are_refused():
    X, y = classification_data(n_samples=200, n_features=4, n_classes=2)
    two_outputs = DecisionTreeClassifier(max_depth=3, random_state=0).fit(X, np.c_[y, 1 - y])
    with pytest.raises(ValueError, match="classifiers of one output"):
        export_shap(two_outputs)
    # A C4.5 tree on numbers alone has no multiway node, but sends rows that
    # miss a value down every branch with a share of their weight.
    fractional = DecisionTreeClassifier(criterion="gain_ratio", categorical_split="multiway",
                                        missing="fractional").fit(with_gaps(X), y)
    assert fractional.tree_.fractional and not fractional.tree_.is_multiway.any()
    with pytest.raises(ValueError, match="no multiway splits or fractional missing values"):
        export_shap(fractional)
    words = np.array(["red", "green", "blue"], dtype=object)[
        np.random.default_rng(1).integers(3, size=200)]
    multiway = DecisionTreeClassifier(criterion="gain_ratio", categorical_split="multiway").fit(
        np.column_stack([X.astype(object), words]), words == "red")
    assert multiway.tree_.is_multiway.any()
    with pytest.raises(ValueError, match="no multiway splits or fractional missing values"):
        export_shap(multiway)


def test_members_from_another_library_are_refused_by_name():
    from sklearn.linear_model import LogisticRegression

    X, y = classification_data(n_samples=120, n_features=3, n_classes=2)
    model = BaggingClassifier(LogisticRegression(), n_estimators=2, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="BaggingClassifier has members of LogisticRegression; "
                                         "the export takes fasttree trees"):
        export_shap(model)


def test_the_exported_dictionary_is_the_documented_one():
    X, y = regression_data(n_samples=200, n_features=4)
    exported = export_shap(RandomForestRegressor(n_estimators=3, max_depth=3,
                                                 random_state=0).fit(X, y))
    assert {key: value for key, value in exported.items() if key != "trees"} == {
        "base_offset": 0.0, "tree_output": "raw_value", "objective": "squared_error",
        "input_dtype": np.float32, "internal_dtype": np.float64}
    assert len(exported["trees"]) == 3
    for tree in exported["trees"]:
        assert set(tree) == {"children_left", "children_right", "children_default",
                             "features", "thresholds", "values", "node_sample_weight"}


def test_shap_explains_the_squared_error_of_a_regressor():
    # The objective tells SHAP the loss to explain: each row's values, with
    # the expected loss given its label, add up to (prediction - label)**2.
    X, y = regression_data(n_samples=200, n_features=4)
    model = DecisionTreeRegressor(max_depth=4, random_state=0).fit(X, y)
    explainer = shap.TreeExplainer(export_shap(model), X[:50],
                                   feature_perturbation="interventional",
                                   model_output="log_loss")
    rows, labels = X[150:], y[150:]
    values = explainer.shap_values(rows, labels)
    loss = (model.predict(rows) - labels) ** 2
    expected = np.array([explainer.expected_value(label) for label in labels])
    np.testing.assert_allclose(values.sum(axis=1) + expected, loss,
                               rtol=1e-6, atol=1e-6 * loss.max())


def test_a_quantile_forest_is_explained_for_its_mean():
    # With every target of a leaf kept, the mean of the leaves' targets is
    # the mean of the trees' values, which the SHAP values add up to.
    from fasttree import RandomForestQuantileRegressor

    X, y = regression_data(n_samples=300, n_features=5)
    model = RandomForestQuantileRegressor(8, max_samples_leaf=None, random_state=0).fit(X, y)
    mean = model.predict(X, quantiles="mean")
    np.testing.assert_allclose(explained_sum(model, X), mean, rtol=1e-9,
                               atol=1e-9 * np.abs(mean).max())
