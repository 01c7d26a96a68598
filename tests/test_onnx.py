"""ONNX export (fasttree._onnx): the exported graph, run by onnxruntime,
predicts as fasttree does on numeric, categorical and missing data."""

import numpy as np
import onnx
import onnxruntime
import pandas as pd
import pytest

from fasttree import (AdaBoostClassifier, BaggingClassifier, BaggingRegressor,
                      DecisionTreeClassifier, DecisionTreeRegressor, ExtraTreesClassifier,
                      ExtraTreesRegressor, RandomForestClassifier, RandomForestRegressor,
                      export_onnx, onnx_rows)
from synthetic import classification_data, regression_data
from test_model_file import mixed_frame


def run_onnx(model, X):
    """The exported graph's outputs for X, by name."""
    exported = export_onnx(model)
    onnx.checker.check_model(exported)
    session = onnxruntime.InferenceSession(exported.SerializeToString(),
                                           providers=["CPUExecutionProvider"])
    names = [output.name for output in session.get_outputs()]
    return dict(zip(names, session.run(None, {"X": onnx_rows(model, X)})))


def with_gaps(X, seed=0):
    X = X.copy()
    X[np.random.default_rng(seed).random(X.shape) < 0.1] = np.nan
    return X


def assert_same_labels_where_not_tied(labels, model, X):
    # ONNX sums in float32: where two classes' probabilities tie (up to its
    # rounding), either label is right.
    probabilities = np.sort(model.predict_proba(X), axis=1)
    clear = probabilities[:, -1] - probabilities[:, -2] > 1e-5
    assert clear.mean() > 0.5
    np.testing.assert_array_equal(labels[clear], model.predict(X)[clear])


X_CLASS, Y_CLASS = classification_data(n_samples=400, n_features=6, n_classes=3)
X_REG, Y_REG = regression_data(n_samples=400, n_features=6)
FRAME, LABEL = mixed_frame(400)


def classifier_cases():
    return [
        (DecisionTreeClassifier(random_state=0).fit(X_CLASS, Y_CLASS), X_CLASS),
        (DecisionTreeClassifier(random_state=0).fit(with_gaps(X_CLASS), Y_CLASS),
         with_gaps(X_CLASS, 1)),
        (DecisionTreeClassifier(random_state=0).fit(FRAME, LABEL), FRAME),
        (RandomForestClassifier(n_estimators=10, random_state=0).fit(FRAME, LABEL),
         mixed_frame(200, seed=3)[0]),
        (ExtraTreesClassifier(n_estimators=10, random_state=0).fit(with_gaps(X_CLASS),
                                                                   Y_CLASS),
         with_gaps(X_CLASS, 2)),
        (BaggingClassifier(n_estimators=6, max_features=4, max_samples=0.3,
                           random_state=0).fit(X_CLASS, Y_CLASS), X_CLASS),
        (DecisionTreeClassifier(criterion="gain_ratio", categorical_split="multiway")
         .fit(FRAME, LABEL), mixed_frame(200, seed=5)[0]),
        (RandomForestClassifier(n_estimators=8, criterion="entropy",
                                categorical_split="multiway", random_state=0)
         .fit(FRAME, LABEL), mixed_frame(200, seed=6)[0]),
    ]


@pytest.mark.parametrize("model, X", classifier_cases(),
                         ids=["tree", "tree-missing", "tree-categorical", "forest-categorical",
                              "extra-trees-missing", "bagging-subsets", "tree-multiway",
                              "forest-multiway"])
def test_exported_classifiers_give_fasttrees_probabilities_and_labels(model, X):
    outputs = run_onnx(model, X)
    np.testing.assert_allclose(outputs["probabilities"], model.predict_proba(X), rtol=1e-5,
                               atol=1e-6)
    assert_same_labels_where_not_tied(outputs["label"], model, X)


def regressor_cases():
    return [
        (DecisionTreeRegressor(random_state=0).fit(X_REG, Y_REG), X_REG),
        (DecisionTreeRegressor(random_state=0).fit(X_REG, np.c_[Y_REG, -2 * Y_REG]), X_REG),
        (RandomForestRegressor(n_estimators=10, random_state=0).fit(with_gaps(X_REG), Y_REG),
         with_gaps(X_REG, 4)),
        (ExtraTreesRegressor(n_estimators=5, random_state=0).fit(FRAME, np.arange(400.0)),
         FRAME),
        (BaggingRegressor(n_estimators=5, max_features=3, random_state=0).fit(X_REG, Y_REG),
         X_REG),
    ]


@pytest.mark.parametrize("model, X", regressor_cases(),
                         ids=["tree", "tree-two-outputs", "forest-missing",
                              "extra-trees-categorical", "bagging-subsets"])
def test_exported_regressors_give_fasttrees_predictions(model, X):
    predicted = np.asarray(model.predict(X)).reshape(len(X), -1)
    scale = np.abs(predicted).max()
    np.testing.assert_allclose(run_onnx(model, X)["variable"], predicted, rtol=1e-5,
                               atol=1e-6 * scale)


def test_string_labels_come_out_as_strings():
    labels = np.array(["ant", "bee", "cat"], dtype=object)[Y_CLASS]
    model = RandomForestClassifier(n_estimators=5, random_state=0).fit(X_CLASS, labels)
    outputs = run_onnx(model, X_CLASS)
    assert outputs["label"].dtype == object
    assert_same_labels_where_not_tied(outputs["label"], model, X_CLASS)


def test_adaboost_exports_its_weighted_votes():
    model = AdaBoostClassifier(n_estimators=12, random_state=0).fit(X_CLASS, Y_CLASS)
    outputs = run_onnx(model, X_CLASS)
    votes = np.zeros((len(X_CLASS), 3))
    for member, alpha in zip(model.estimators_, model.estimator_weights_):
        votes[np.arange(len(X_CLASS)), member.predict(X_CLASS).astype(int)] += alpha
    np.testing.assert_allclose(outputs["scores"], votes, rtol=1e-5, atol=1e-6)
    clear = np.diff(np.sort(votes, axis=1)[:, -2:], axis=1)[:, 0] > 1e-4
    np.testing.assert_array_equal(outputs["label"][clear], model.predict(X_CLASS)[clear])


def test_unseen_categories_take_the_missing_values_way():
    model = DecisionTreeClassifier(random_state=0).fit(FRAME, LABEL)
    unseen = FRAME.copy()
    unseen["colour"] = pd.Series(["purple"] * len(unseen), dtype=object)
    np.testing.assert_allclose(run_onnx(model, unseen)["probabilities"],
                               model.predict_proba(unseen), atol=1e-6)


def test_multiway_nodes_become_chains_of_membership_tests():
    model = DecisionTreeClassifier(criterion="gain_ratio",
                                   categorical_split="multiway").fit(FRAME, LABEL)
    tree = model.tree_
    multiway = np.flatnonzero(tree.is_multiway)
    assert multiway.size and max(tree.children(node).size for node in multiway) > 2
    attributes = {attribute.name: attribute
                  for attribute in export_onnx(model).graph.node[0].attribute}
    binary = np.count_nonzero((tree.children_left != -1) & ~tree.is_multiway)
    chained = sum(tree.children(node).size - 1 for node in multiway)
    # One copy of the tree per class, each adding to its class's probability.
    n_copies = len(model.classes_)
    assert len(attributes["nodes_featureids"].ints) == n_copies * (binary + chained)
    # Every colour, an unseen one and a missing one, in turn.
    rows = FRAME.copy()
    rows["colour"] = np.resize(np.array([*model.categories_[1], "purple", None],
                                        dtype=object), len(rows))
    np.testing.assert_allclose(run_onnx(model, rows)["probabilities"],
                               model.predict_proba(rows), rtol=1e-5, atol=1e-6)


def test_models_the_operator_cannot_express_are_refused_by_name():
    fractional = DecisionTreeClassifier(criterion="gain_ratio", categorical_split="multiway",
                                        missing="fractional").fit(FRAME, LABEL)
    with pytest.raises(ValueError, match="fractional"):
        export_onnx(fractional)
    with pytest.raises(ValueError, match="aggregation='median'"):
        export_onnx(RandomForestRegressor(n_estimators=3, aggregation="median")
                    .fit(X_REG, Y_REG))
    with pytest.raises(ValueError, match="one output"):
        export_onnx(DecisionTreeClassifier().fit(X_CLASS, np.c_[Y_CLASS, Y_CLASS > 0]))
    with pytest.raises(ValueError, match="not fitted"):
        export_onnx(DecisionTreeClassifier())
