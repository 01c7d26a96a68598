"""ONNX export (fasttree._onnx): the exported graph, run by onnxruntime,
predicts as fasttree does on numeric, categorical and missing data."""

import numpy as np
import onnx
import onnxruntime
import pandas as pd
import pytest

from fasttree import (AdaBoostClassifier, AdaBoostRegressor, BaggingClassifier,
                      BaggingRegressor, DecisionTreeClassifier, DecisionTreeRegressor,
                      ExtraTreesClassifier, ExtraTreesRegressor, RandomForestClassifier,
                      RandomForestRegressor, export_onnx, onnx_rows)
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


def test_adaboost_classifier_gives_its_probabilities_and_labels():
    # The graph's softmax of the weighted votes is predict_proba's softmax of
    # the symmetric decision function, for two classes and for three, and
    # for labels that are not 0 .. K-1.
    words = np.array(["ant", "bee", "cat"], dtype=object)
    for y in (Y_CLASS, Y_CLASS == 1, words[Y_CLASS], 10 * Y_CLASS + 5):
        model = AdaBoostClassifier(n_estimators=12, random_state=0).fit(X_CLASS, y)
        outputs = run_onnx(model, X_CLASS)
        np.testing.assert_allclose(outputs["probabilities"], model.predict_proba(X_CLASS),
                                   rtol=1e-5, atol=1e-6)
        assert_same_labels_where_not_tied(outputs["label"], model, X_CLASS)


@pytest.mark.parametrize("model_class", [RandomForestClassifier, BaggingClassifier])
def test_hard_voting_labels_are_the_members_most_votes(model_class):
    # Shallow trees, whose leaves' votes and probabilities differ.
    shallow = ({"max_depth": 3} if model_class is RandomForestClassifier
               else {"estimator": DecisionTreeClassifier(max_depth=3)})
    model = model_class(n_estimators=9, voting="hard", random_state=0, **shallow).fit(
        with_gaps(X_CLASS), Y_CLASS)
    X = with_gaps(X_CLASS, 7)
    outputs = run_onnx(model, X)
    # Votes are whole numbers, summed exactly in float32: every label agrees,
    # ties going to the first class in both.
    np.testing.assert_array_equal(outputs["label"], model.predict(X))
    assert np.any(np.argmax(model.predict_proba(X), axis=1) != np.searchsorted(
        model.classes_, model.predict(X)))
    np.testing.assert_allclose(outputs["probabilities"], model.predict_proba(X), rtol=1e-5,
                               atol=1e-6)


@pytest.mark.parametrize("model_class", [DecisionTreeClassifier, RandomForestClassifier])
def test_a_loss_matrix_gives_the_label_of_least_expected_cost(model_class):
    loss = np.array([[0, 1, 1], [10, 0, 1], [10, 1, 0]])
    params = {"n_estimators": 5} if model_class is RandomForestClassifier else {}
    model = model_class(max_depth=4, loss_matrix=loss, random_state=0, **params).fit(
        X_CLASS, Y_CLASS)
    labels = run_onnx(model, X_CLASS)["label"]
    costs = np.sort(model.predict_proba(X_CLASS) @ loss, axis=1)
    clear = costs[:, 1] - costs[:, 0] > 1e-5
    assert clear.mean() > 0.5
    np.testing.assert_array_equal(labels[clear], model.predict(X_CLASS)[clear])
    assert np.any(labels != model.classes_[np.argmax(model.predict_proba(X_CLASS), axis=1)])


@pytest.mark.parametrize("labels", ["integers", "strings"])
@pytest.mark.parametrize("model_class", [DecisionTreeClassifier, RandomForestClassifier])
def test_several_outputs_give_a_label_column_and_probabilities_per_output(model_class,
                                                                          labels):
    y = np.c_[Y_CLASS, (X_CLASS[:, 0] > 0) * 3]
    if labels == "strings":
        y = np.array(["a", "b", "c", "d"], dtype=object)[y]
    params = {"n_estimators": 5} if model_class is RandomForestClassifier else {}
    model = model_class(max_depth=6, random_state=0, **params).fit(X_CLASS, y)
    outputs = run_onnx(model, X_CLASS)
    for output, probabilities in enumerate(model.predict_proba(X_CLASS)):
        np.testing.assert_allclose(outputs[f"probabilities_{output}"], probabilities,
                                   rtol=1e-5, atol=1e-6)
    assert outputs["label"].shape == (len(X_CLASS), 2)
    assert outputs["label"].dtype == (np.int64 if labels == "integers" else object)
    predicted = model.predict(X_CLASS)
    clear = np.all([np.diff(np.sort(p, axis=1)[:, -2:], axis=1)[:, 0] > 1e-5
                    for p in model.predict_proba(X_CLASS)], axis=0)
    np.testing.assert_array_equal(outputs["label"][clear], predicted[clear])


@pytest.mark.parametrize("labels, dtype", [(Y_CLASS * 2.0, np.float64),
                                           (Y_CLASS == 1, np.bool_)])
def test_number_and_bool_labels_keep_their_type(labels, dtype):
    model = DecisionTreeClassifier(random_state=0).fit(X_CLASS, labels)
    outputs = run_onnx(model, X_CLASS)
    assert outputs["label"].dtype == dtype
    assert_same_labels_where_not_tied(outputs["label"], model, X_CLASS)


def median_cases():
    return [
        (RandomForestRegressor(n_estimators=7, aggregation="median", random_state=0)
         .fit(with_gaps(X_REG), Y_REG), with_gaps(X_REG, 8)),
        (RandomForestRegressor(n_estimators=8, aggregation="median", random_state=0)
         .fit(X_REG, np.c_[Y_REG, -2 * Y_REG]), X_REG),
        (BaggingRegressor(n_estimators=6, max_features=4, aggregation="median",
                          random_state=0).fit(X_REG, Y_REG), X_REG),
        (AdaBoostRegressor(n_estimators=15, random_state=0).fit(X_REG, Y_REG), X_REG),
        (AdaBoostRegressor(DecisionTreeRegressor(max_depth=4), n_estimators=10, loss="square",
                           random_state=0).fit(FRAME, np.arange(400.0)), FRAME),
    ]


@pytest.mark.parametrize("model, X", median_cases(),
                         ids=["forest-odd-missing", "forest-even-two-outputs",
                              "bagging-subsets", "adaboost", "adaboost-categorical"])
def test_medians_of_the_members_are_fasttrees_predictions(model, X):
    # Forests' and bagging's plain medians; AdaBoost.R2's weighted median.
    predicted = np.asarray(model.predict(X)).reshape(len(X), -1)
    scale = np.abs(predicted).max()
    np.testing.assert_allclose(run_onnx(model, X)["variable"], predicted, rtol=1e-5,
                               atol=1e-6 * scale)


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
    from sklearn.tree import DecisionTreeClassifier as ScikitLearnTree

    fractional = DecisionTreeClassifier(criterion="gain_ratio", categorical_split="multiway",
                                        missing="fractional").fit(FRAME, LABEL)
    with pytest.raises(ValueError, match="fractional"):
        export_onnx(fractional)
    for model in (AdaBoostClassifier(ScikitLearnTree(max_depth=1), n_estimators=2),
                  BaggingClassifier(ScikitLearnTree(), n_estimators=2)):
        with pytest.raises(ValueError, match="members of DecisionTreeClassifier; the export "
                                             "takes fasttree trees"):
            export_onnx(model.fit(X_CLASS, Y_CLASS))
    with pytest.raises(ValueError, match="not fitted"):
        export_onnx(DecisionTreeClassifier())


# The exporter builds the operator's node arrays from whole trees at once.
# Below, a brute-force oracle builds them node by node from the tree's
# per-node accessors and its node values (``tree.value``, not the leaf
# values the exporter reads), and the two must agree exactly.

def reference_tests(tree, features):
    """A tree as the operator's tests, node by node: (tests, root test, the
    tree's leaves in node order). Each test is a dict; its branches are
    (is a leaf, number within the tree)."""
    leaves = [node for node in range(tree.node_count) if tree.children_left[node] == -1]
    leaf_number = {node: number for number, node in enumerate(leaves)}
    first_test, only_child, n_tests = {}, {}, 0
    for node in range(tree.node_count):
        if node in leaf_number:
            continue
        size = 1
        if tree.is_multiway[node]:
            children = tree.children(node)
            size = len(children) - 1
            if size == 0:     # no test: what reaches it goes on to its child
                only_child[node] = int(children[0])
                continue
        first_test[node] = n_tests
        n_tests += size

    def reach(node):
        while node in only_child:
            node = only_child[node]
        return (1, leaf_number[node]) if node in leaf_number else (0, first_test[node])

    tests = []
    for node in sorted(first_test):
        feature = int(tree.feature[node])
        if features is not None:
            feature = int(features[feature])
        if tree.is_multiway[node]:
            children = tree.children(node)
            codes, missing_child = tree.branches(node)
            others = [child for child in range(len(children)) if child != missing_child]
            for rank, child in enumerate(others):
                tests.append({
                    "feature": feature, "mode": 6, "split": 0.0, "missing": 0,
                    "codes": sorted(int(code) for code in codes[child]),
                    "true": reach(int(children[child])),
                    "false": (reach(int(children[missing_child])) if rank == len(others) - 1
                              else (0, first_test[node] + rank + 1))})
        else:
            subset = bool(tree.is_categorical[node])
            tests.append({
                "feature": feature, "mode": 6 if subset else 0,
                "split": 0.0 if subset else float(tree.threshold[node]),
                "missing": int(tree.missing_go_to_left[node]),
                "codes": sorted(int(code) for code in tree.left_categories(node))
                if subset else None,
                "true": reach(int(tree.children_left[node])),
                "false": reach(int(tree.children_right[node]))})
    root = reach(0)
    if root[0] == 1:      # one leaf: a test whose branches both reach it
        return ([{"feature": 0, "mode": 0, "split": 0.0, "missing": 0, "codes": None,
                  "true": root, "false": root}], 0, leaves)
    return tests, root[1], leaves


def reference_ensemble(copies):
    """The operator's attributes for trees added in turn, each given as
    (tree, its features in the model or None, target of a leaf node, weight
    of a leaf node)."""
    attributes = {name: [] for name in (
        "nodes_featureids", "nodes_modes", "nodes_splits", "nodes_truenodeids",
        "nodes_trueleafs", "nodes_falsenodeids", "nodes_falseleafs",
        "nodes_missing_value_tracks_true", "leaf_targetids", "leaf_weights", "tree_roots",
        "membership_values")}
    for tree, features, target, weight in copies:
        tests, root, leaves = reference_tests(tree, features)
        node_base = len(attributes["nodes_modes"])
        leaf_base = len(attributes["leaf_targetids"])
        attributes["tree_roots"].append(node_base + root)
        for test in tests:
            attributes["nodes_featureids"].append(test["feature"])
            attributes["nodes_modes"].append(test["mode"])
            attributes["nodes_splits"].append(test["split"])
            attributes["nodes_missing_value_tracks_true"].append(test["missing"])
            for side in ("true", "false"):
                is_leaf, number = test[side]
                attributes[f"nodes_{side}leafs"].append(is_leaf)
                attributes[f"nodes_{side}nodeids"].append(
                    number + (leaf_base if is_leaf else node_base))
            if test["codes"] is not None:
                attributes["membership_values"] += test["codes"] + [np.nan]
        for node in leaves:
            attributes["leaf_targetids"].append(int(target(node)))
            attributes["leaf_weights"].append(float(weight(node)))
    return attributes


def reference_copies(model):
    """Per TreeEnsemble operator of the exported graph, the trees it sums
    and what their leaves add where, as the export's docstring describes:
    one copy of a tree per class probability or output it adds to."""
    from fasttree._shap import tree_members
    from fasttree._targets import predicted_classes
    if isinstance(model, AdaBoostClassifier):
        classes = list(model.classes_)
        return [[(member.tree_, None,
                  lambda node, member=member: classes.index(member.classes_[
                      predicted_classes(member.tree_.value[[node], 0, :],
                                        getattr(member, "loss_matrix_", None))[0]]),
                  lambda node, weight=weight: weight)
                 for member, weight in zip(model.estimators_, model.estimator_weights_)]]
    if isinstance(model, AdaBoostRegressor):
        return [[(member.tree_, None, lambda node, index=index: index,
                  lambda node, member=member: member.tree_.value[node, 0, 0])
                 for index, member in enumerate(model.estimators_)]]
    members = tree_members(model)
    share = 1.0 / len(members)
    if not hasattr(model, "classes_"):
        median = getattr(model, "aggregation", "mean") == "median"
        return [[(member.tree_, features,
                  lambda node, output=output, index=index: (
                      output * len(members) + index if median else output),
                  lambda node, member=member, output=output: (
                      member.tree_.value[node, output, 0] * (1.0 if median else share)))
                 for index, (member, features, _) in enumerate(members)
                 for output in range(model.n_outputs_)]
                if median else
                [(member.tree_, features, lambda node, output=output: output,
                  lambda node, member=member, output=output:
                  member.tree_.value[node, output, 0] * share)
                 for member, features, _ in members for output in range(model.n_outputs_)]]
    outputs = model.classes_ if isinstance(model.classes_, list) else [model.classes_]
    sums, votes = [], []
    for member, features, columns in members:
        start = 0
        for output, classes in enumerate(outputs):
            positions = (list(range(len(classes))) if columns is None
                         else list(columns[0]))
            for column, position in enumerate(positions):
                sums.append((member.tree_, features,
                             lambda node, target=start + position: target,
                             lambda node, member=member, output=output, column=column:
                             member.tree_.value[node, output, column] * share))
            votes.append((member.tree_, features,
                          lambda node, member=member, output=output, start=start,
                          positions=positions: start + positions[predicted_classes(
                              member.tree_.value[[node], output, :len(positions)],
                              getattr(member, "loss_matrix_", None))[0]],
                          lambda node: 1.0))
            start += len(classes)
    return [sums, votes] if getattr(model, "voting", "soft") == "hard" else [sums]


def exported_attributes(model):
    """The attributes of each TreeEnsemble operator of the exported graph,
    as plain numbers (tensors decoded)."""
    ensembles = []
    for node in export_onnx(model).graph.node:
        if node.op_type != "TreeEnsemble":
            continue
        attributes = {}
        for attribute in node.attribute:
            value = onnx.helper.get_attribute_value(attribute)
            if isinstance(value, onnx.TensorProto):
                value = onnx.numpy_helper.to_array(value)
            attributes[attribute.name] = np.asarray(value)
        ensembles.append(attributes)
    return ensembles


def oracle_cases():
    shallow = DecisionTreeClassifier(max_depth=3)
    two_classes = (X_CLASS[:, 0] > 0) * 3
    return {
        "tree": DecisionTreeClassifier(max_depth=5, random_state=0).fit(X_CLASS, Y_CLASS),
        "tree-missing": DecisionTreeClassifier(max_depth=5, random_state=0).fit(
            with_gaps(X_CLASS), Y_CLASS),
        "tree-categorical": DecisionTreeClassifier(random_state=0).fit(FRAME, LABEL),
        "tree-multiway": DecisionTreeClassifier(criterion="gain_ratio",
                                                categorical_split="multiway").fit(FRAME, LABEL),
        "tree-one-leaf": DecisionTreeClassifier().fit(X_CLASS, np.zeros(len(X_CLASS))),
        "tree-loss-matrix": DecisionTreeClassifier(
            max_depth=4, loss_matrix=np.array([[0, 1, 1], [10, 0, 1], [10, 1, 0]])).fit(
            X_CLASS, Y_CLASS),
        "forest-categorical": RandomForestClassifier(n_estimators=4, max_depth=5,
                                                     random_state=0).fit(FRAME, LABEL),
        "forest-multiway": RandomForestClassifier(
            n_estimators=3, criterion="entropy", categorical_split="multiway",
            random_state=0).fit(FRAME, LABEL),
        "forest-two-outputs": RandomForestClassifier(n_estimators=3, max_depth=4,
                                                     random_state=0).fit(
            X_CLASS, np.c_[Y_CLASS, two_classes]),
        "forest-hard-voting": RandomForestClassifier(n_estimators=4, max_depth=3,
                                                     voting="hard", random_state=0).fit(
            with_gaps(X_CLASS), Y_CLASS),
        "extra-trees-missing": ExtraTreesClassifier(n_estimators=3, max_depth=5,
                                                    random_state=0).fit(
            with_gaps(X_CLASS), Y_CLASS),
        # Members of 4 rows: some see two of the classes, one sees one.
        "bagging-subsets": BaggingClassifier(shallow, n_estimators=5, max_features=4,
                                             max_samples=4, random_state=0).fit(
            X_CLASS, Y_CLASS),
        "bagging-hard-voting": BaggingClassifier(shallow, n_estimators=4, voting="hard",
                                                 random_state=0).fit(X_CLASS, Y_CLASS),
        "adaboost-classifier": AdaBoostClassifier(n_estimators=6, random_state=0).fit(
            X_CLASS, np.array(["ant", "bee", "cat"], dtype=object)[Y_CLASS]),
        "tree-regressor-two-outputs": DecisionTreeRegressor(max_depth=5).fit(
            X_REG, np.c_[Y_REG, -2 * Y_REG]),
        "forest-regressor-missing": RandomForestRegressor(n_estimators=3, max_depth=5,
                                                          random_state=0).fit(
            with_gaps(X_REG), Y_REG),
        "extra-trees-regressor-categorical": ExtraTreesRegressor(
            n_estimators=3, max_depth=5, random_state=0).fit(FRAME, np.arange(400.0)),
        "bagging-regressor-subsets": BaggingRegressor(
            DecisionTreeRegressor(max_depth=4), n_estimators=3, max_features=3,
            random_state=0).fit(X_REG, Y_REG),
        "forest-regressor-median": RandomForestRegressor(
            n_estimators=3, max_depth=4, aggregation="median", random_state=0).fit(
            X_REG, np.c_[Y_REG, -2 * Y_REG]),
        "adaboost-regressor": AdaBoostRegressor(DecisionTreeRegressor(max_depth=4),
                                                n_estimators=5, random_state=0).fit(
            FRAME, np.arange(400.0)),
    }


@pytest.mark.parametrize("name", list(oracle_cases()))
def test_exported_node_arrays_are_the_node_by_node_constructions(name):
    model = oracle_cases()[name]
    exported = exported_attributes(model)
    references = [reference_ensemble(copies) for copies in reference_copies(model)]
    assert len(exported) == len(references)
    for attributes, reference in zip(exported, references):
        if not reference["membership_values"]:
            # No stray codes: the operator reads them in order, so codes
            # of a tree without membership tests would shift the next one's.
            del reference["membership_values"]
            assert "membership_values" not in attributes
        assert set(reference) <= set(attributes)
        for key, expected in reference.items():
            # The operator holds splits, weights and codes as float32.
            dtype = np.float32 if key in ("nodes_splits", "leaf_weights",
                                          "membership_values") else np.int64
            np.testing.assert_array_equal(attributes[key], np.asarray(expected, dtype=dtype),
                                          err_msg=key)


def declared(value_info):
    """(name, element type, dimensions with None for a free one) of a graph
    input or output."""
    tensor = value_info.type.tensor_type
    return (value_info.name, tensor.elem_type,
            [dim.dim_value if dim.HasField("dim_value") else None for dim in tensor.shape.dim])


def test_the_graph_declares_its_name_input_and_outputs_in_order():
    from onnx import TensorProto
    float_, int64 = TensorProto.FLOAT, TensorProto.INT64
    y2 = np.c_[Y_CLASS, (X_CLASS[:, 0] > 0) * 3]
    cases = [
        (DecisionTreeClassifier(max_depth=3).fit(X_CLASS, Y_CLASS),
         [("label", int64, [None]), ("probabilities", float_, [None, 3])]),
        (RandomForestClassifier(n_estimators=2, max_depth=3, voting="hard").fit(X_CLASS, y2),
         [("label", int64, [None, 2]), ("probabilities_0", float_, [None, 3]),
          ("probabilities_1", float_, [None, 2])]),
        (AdaBoostClassifier(n_estimators=2).fit(X_CLASS, Y_CLASS),
         [("label", int64, [None]), ("probabilities", float_, [None, 3])]),
        (DecisionTreeRegressor(max_depth=3).fit(X_REG, np.c_[Y_REG, Y_REG]),
         [("variable", float_, [None, 2])]),
        (RandomForestRegressor(n_estimators=3, max_depth=3, aggregation="median").fit(
            X_REG, Y_REG), [("variable", float_, [None, 1])]),
        (AdaBoostRegressor(n_estimators=3).fit(X_REG, Y_REG),
         [("variable", float_, [None, 1])]),
    ]
    for model, outputs in cases:
        exported = export_onnx(model)
        assert exported.graph.name == type(model).__name__
        assert exported.producer_name == "fasttree"
        assert [declared(value) for value in exported.graph.input] == [
            ("X", float_, [None, 6])]
        assert [declared(value) for value in exported.graph.output] == outputs
        session = onnxruntime.InferenceSession(exported.SerializeToString(),
                                               providers=["CPUExecutionProvider"])
        ran = session.run(None, {"X": onnx_rows(model, X_CLASS)})
        assert [value.shape for value in ran] == [
            tuple(len(X_CLASS) if size is None else size for size in shape)
            for _, _, shape in outputs]
    assert export_onnx(model, name="prices").graph.name == "prices"


def test_a_model_that_is_not_fitted_is_refused_by_name():
    with pytest.raises(ValueError, match="this RandomForestClassifier is not fitted yet"):
        export_onnx(RandomForestClassifier())


def loss_changes_some_votes(model):
    """Whether some member's loss matrix makes it predict another class than
    its most probable one (else the loss matrix would go untested)."""
    return any(np.any(member.predict(X_CLASS) != member.classes_[
        np.argmax(member.predict_proba(X_CLASS), axis=1)]) for member in model.estimators_)


def test_members_with_a_loss_matrix_vote_for_their_least_costly_class():
    loss = np.array([[0, 1, 1], [10, 0, 1], [10, 1, 0]])
    boosted = AdaBoostClassifier(DecisionTreeClassifier(max_depth=2, loss_matrix=loss),
                                 n_estimators=8, random_state=0).fit(X_CLASS, Y_CLASS)
    hard = RandomForestClassifier(n_estimators=7, max_depth=3, voting="hard", loss_matrix=loss,
                                  random_state=0).fit(X_CLASS, Y_CLASS)
    for model in (boosted, hard):
        assert loss_changes_some_votes(model)
        outputs = run_onnx(model, X_CLASS)
        np.testing.assert_allclose(outputs["probabilities"], model.predict_proba(X_CLASS),
                                   rtol=1e-5, atol=1e-6)
    # Hard votes are whole numbers, summed exactly: every label agrees.
    np.testing.assert_array_equal(run_onnx(hard, X_CLASS)["label"], hard.predict(X_CLASS))
    assert_same_labels_where_not_tied(run_onnx(boosted, X_CLASS)["label"], boosted, X_CLASS)


def test_hard_votes_of_members_on_feature_subsets_and_of_several_outputs():
    subsets = BaggingClassifier(DecisionTreeClassifier(max_depth=3), n_estimators=9,
                                max_features=3, voting="hard", random_state=0).fit(
        X_CLASS, Y_CLASS)
    np.testing.assert_array_equal(run_onnx(subsets, X_CLASS)["label"],
                                  subsets.predict(X_CLASS))
    y = np.c_[Y_CLASS, (X_CLASS[:, 0] > 0) * 3]
    several = RandomForestClassifier(n_estimators=7, max_depth=3, voting="hard",
                                     random_state=0).fit(X_CLASS, y)
    outputs = run_onnx(several, X_CLASS)
    np.testing.assert_array_equal(outputs["label"], several.predict(X_CLASS))
    for output, probabilities in enumerate(several.predict_proba(X_CLASS)):
        np.testing.assert_allclose(outputs[f"probabilities_{output}"], probabilities,
                                   rtol=1e-5, atol=1e-6)


def test_adaboost_of_one_class_gives_it_with_certainty():
    model = AdaBoostClassifier(n_estimators=3).fit(X_CLASS, np.full(len(X_CLASS), "only"))
    outputs = run_onnx(model, X_CLASS)
    np.testing.assert_array_equal(outputs["probabilities"], model.predict_proba(X_CLASS))
    np.testing.assert_array_equal(outputs["label"], model.predict(X_CLASS))


@pytest.mark.parametrize("model_class", ["RandomForestQuantileRegressor",
                                         "ExtraTreesQuantileRegressor"])
def test_quantile_forests_are_refused_by_name(model_class):
    import fasttree

    X, y = regression_data(n_samples=60, n_features=3)
    model = getattr(fasttree, model_class)(3, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match=f"a {model_class} is a quantile forest"):
        export_onnx(model)
