"""Trees as rules, text and DOT (``fasttree.rules``)."""

import re
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

from fasttree import (DecisionTreeClassifier, DecisionTreeRegressor, RandomForestClassifier,
                      export_graphviz, export_text, tree_rules)
from fasttree.rules import Condition, Rule
from tolerances import assert_rounding_close


def fitted(regression, seed=0, **params):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.integers(0, 10, size=(300, 4)).astype(np.float32),
                     columns=["age", "income", "visits", "score"])
    weight = rng.uniform(0.5, 2.0, size=300)
    if regression:
        y = X["age"] * 0.5 - X["visits"] + rng.normal(size=300)
        estimator = DecisionTreeRegressor(random_state=0, **params)
    else:
        y = np.where(X["age"] + rng.integers(0, 6, size=300) > 8, "buy", "wait")
        estimator = DecisionTreeClassifier(random_state=0, **params)
    return estimator.fit(X, y, sample_weight=weight), X, y, weight


@pytest.mark.parametrize("regression", [False, True])
def test_every_row_meets_exactly_the_rule_of_its_leaf(regression):
    estimator, X, y, weight = fitted(regression, max_depth=5)
    rules = tree_rules(estimator)
    assert len(rules) == estimator.get_n_leaves()
    covered = np.array([rule.covers(X.to_numpy()) for rule in rules])
    np.testing.assert_array_equal(covered.sum(axis=0), 1)
    leaves = np.array([rule.leaf for rule in rules])
    np.testing.assert_array_equal(leaves[np.argmax(covered, axis=0)], estimator.apply(X))


@pytest.mark.parametrize("regression", [False, True])
def test_a_rules_prediction_support_and_quality_are_its_training_rows(regression):
    estimator, X, y, weight = fitted(regression, min_samples_leaf=10)
    y = np.asarray(y)
    for rule in tree_rules(estimator):
        rows = rule.covers(X.to_numpy())
        assert rule.n_samples == rows.sum()
        assert_rounding_close(rule.support, weight[rows].sum(), scale=weight.sum())
        if regression:
            mean = np.average(y[rows], weights=weight[rows])
            assert_rounding_close(rule.prediction, mean, scale=np.abs(y).max())
            assert_rounding_close(rule.mean_squared_error,
                                  np.average((y[rows] - mean) ** 2, weights=weight[rows]),
                                  scale=np.abs(y).max() ** 2)
            assert rule.accuracy is None
        else:
            assert_rounding_close(rule.accuracy, weight[rows][y[rows] == rule.prediction].sum()
                                  / weight[rows].sum())
            np.testing.assert_array_equal(estimator.predict(X[rows]), rule.prediction)
            assert rule.mean_squared_error is None


def test_rules_of_a_tree_with_a_loss_matrix_predict_as_the_tree_does():
    _, X, y, _ = fitted(False, max_depth=3)
    loss = np.array([[0.0, 1.0], [6.0, 0.0]])
    costed = DecisionTreeClassifier(max_depth=3, loss_matrix=loss, random_state=0).fit(X, y)
    rules = tree_rules(costed)
    for rule in rules:
        rows = rule.covers(X.to_numpy())
        np.testing.assert_array_equal(costed.predict(X[rows]), rule.prediction)
    leaf_lines = [line for line in export_text(costed).splitlines() if "class:" in line]
    assert [line.split("class: ")[1].split()[0] for line in leaf_lines] == [
        str(rule.prediction) for rule in rules]
    assert any(rule.accuracy < 0.5 for rule in rules)

def test_tests_on_one_feature_merge_into_the_tightest_bounds():
    X = np.arange(40, dtype=np.float32).reshape(-1, 1)
    y = (np.arange(40) // 5) % 2
    estimator = DecisionTreeClassifier().fit(X, y)
    for rule in tree_rules(estimator, feature_names=["t"]):
        operators = [condition.operator for condition in rule.conditions]
        assert len(operators) == len(set(operators)) <= 2
        rows = rule.covers(X)
        assert rows.any() and np.unique(y[rows]).size == 1
    middle = [rule for rule in tree_rules(estimator, ["t"]) if len(rule.conditions) == 2][0]
    assert str(middle).startswith("if t ")
    assert " and t " in str(middle)


def test_text_of_a_stump_is_exactly_as_documented():
    X = np.array([[0.0], [1.0], [2.0], [3.0]], dtype=np.float32)
    estimator = DecisionTreeClassifier().fit(X, ["no", "no", "yes", "yes"])
    assert export_text(estimator, feature_names=["hours"]) == (
        "hours <= 1.5\n"
        "|   class: no  (samples = 2, weight = 2, share = 1)\n"
        "hours > 1.5\n"
        "|   class: yes  (samples = 2, weight = 2, share = 1)\n")
    assert export_text(estimator, class_names=["N", "Y"], show_statistics=False) == (
        "x[0] <= 1.5\n|   class: N\nx[0] > 1.5\n|   class: Y\n")
    rules = [str(rule) for rule in tree_rules(estimator, ["hours"])]
    assert rules == ["if hours <= 1.5 then class = no  (support 2, accuracy 1)",
                     "if hours > 1.5 then class = yes  (support 2, accuracy 1)"]


@pytest.mark.parametrize("regression", [False, True])
def test_text_has_a_line_per_branch_and_leaf_in_depth_first_order(regression):
    estimator, X, _, _ = fitted(regression, max_depth=4)
    lines = export_text(estimator).splitlines()
    n_nodes, n_leaves = estimator.tree_.node_count, estimator.get_n_leaves()
    assert len(lines) == (n_nodes - n_leaves) * 2 + n_leaves
    leaf_lines = [line for line in lines if "class:" in line or "value:" in line]
    assert len(leaf_lines) == n_leaves
    assert all(name in "".join(lines) for name in estimator.feature_names_in_[:1])
    depths = [line.count("|   ") for line in lines]
    assert depths[0] == 0 and all(b - a <= 1 for a, b in zip(depths, depths[1:]))


def test_graphviz_describes_every_node_and_edge():
    estimator, X, _, _ = fitted(False, max_depth=3)
    dot = export_graphviz(estimator, feature_names=['a "quoted" name', "b", "c", "d"],
                          filled=True)
    assert dot.startswith("digraph Tree {") and dot.rstrip().endswith("}")
    node_lines = re.findall(r"^(\d+) \[label=", dot, flags=re.MULTILINE)
    assert [int(node) for node in node_lines] == list(range(estimator.tree_.node_count))
    edges = re.findall(r"^(\d+) -> (\d+)", dot, flags=re.MULTILINE)
    assert len(edges) == estimator.tree_.node_count - 1
    assert '\\"quoted\\"' in dot
    # Line breaks inside labels are escaped: every line of the file is a
    # statement.
    assert all(re.match(r"(digraph |node |edge |\d+ |})", line) for line in dot.splitlines())
    assert dot.count("fillcolor=") == estimator.tree_.node_count


def test_a_forests_tree_reads_as_the_tree_grown_alone_on_its_rows():
    X = np.random.default_rng(0).normal(size=(100, 3)).astype(np.float32)
    y = (X[:, 0] > 0).astype(int)
    forest = RandomForestClassifier(n_estimators=1, max_depth=2, random_state=0).fit(X, y)
    member = forest.estimators_[0]
    alone = DecisionTreeClassifier(**member.get_params()).fit(
        X, y, sample_weight=np.bincount(forest.estimators_samples_[0], minlength=100))
    assert export_text(member) == export_text(alone)
    assert "samples" in export_text(member)
    assert export_graphviz(member) == export_graphviz(alone)
    assert [str(rule) for rule in tree_rules(member)] == [str(rule)
                                                         for rule in tree_rules(alone)]


def test_bad_names_and_unfitted_trees_are_refused():
    estimator, _, _, _ = fitted(False, max_depth=2)
    with pytest.raises(ValueError, match="feature_names has 2 names; the tree has 4"):
        export_text(estimator, feature_names=["a", "b"])
    with pytest.raises(ValueError, match="class_names has 3 names; the tree has 2"):
        export_graphviz(estimator, class_names=["a", "b", "c"])
    with pytest.raises(ValueError, match="not a fitted fasttree tree"):
        tree_rules(DecisionTreeClassifier())


def fitted_two_outputs(regression):
    rng = np.random.default_rng(3)
    X = rng.normal(size=(200, 3)).astype(np.float32)
    if regression:
        Y = np.column_stack([X[:, 0] > 0, X[:, 1] * 2.0]).astype(np.float64)
        return DecisionTreeRegressor(max_depth=3, random_state=0).fit(X, Y), X, Y
    Y = np.column_stack([np.where(X[:, 0] > 0, "yes", "no"),
                         np.array(["low", "mid", "high"])[np.digitize(X[:, 1], [-0.5, 0.5])]])
    return DecisionTreeClassifier(max_depth=3, random_state=0).fit(X, Y), X, Y


@pytest.mark.parametrize("regression", [False, True])
def test_rules_of_several_outputs_give_each_outputs_prediction_and_quality(regression):
    estimator, X, Y = fitted_two_outputs(regression)
    predicted = estimator.predict(X)
    for rule in tree_rules(estimator):
        rows = rule.covers(X)
        assert isinstance(rule.prediction, tuple) and len(rule.prediction) == 2
        for k in range(2):
            np.testing.assert_array_equal(predicted[rows, k], rule.prediction[k])
            if regression:
                assert_rounding_close(rule.prediction[k], Y[rows, k].mean(), scale=2.0)
            else:
                assert_rounding_close(rule.accuracy[k], np.mean(Y[rows, k] == rule.prediction[k]))
        shown = (f"{rule.prediction[0]:.4g}, {rule.prediction[1]:.4g}" if regression
                 else f"{rule.prediction[0]}, {rule.prediction[1]}")
        assert f"= ({shown})" in str(rule)


@pytest.mark.parametrize("regression", [False, True])
def test_text_graphviz_and_drawing_show_one_class_or_value_per_output(regression, axes):
    from fasttree import plot_tree

    estimator, X, _ = fitted_two_outputs(regression)
    leaves = estimator.apply(X)
    predicted = estimator.predict(X)
    lines = [line for line in export_text(estimator).splitlines()
             if "class:" in line or "value:" in line]
    assert len(lines) == estimator.get_n_leaves()
    for line, leaf in zip(lines, np.flatnonzero(estimator.tree_.children_left == -1)):
        first, second = predicted[leaves == leaf][0]
        if regression:
            assert f"value: ({first:.4g}, {second:.4g})" in line
        else:
            assert f"class: ({first}, {second})  (samples" in line
            assert re.search(r"share = \([\d.]+, [\d.]+\)\)$", line)
    dot = export_graphviz(estimator, filled=True)
    assert dot.count("fillcolor=") == estimator.tree_.node_count
    assert re.search(r"(class|value) = \([^,]+, [^)]+\)", dot)
    assert len(plot_tree(estimator, ax=axes)) == estimator.tree_.node_count


def test_class_names_of_several_outputs_are_one_list_per_output():
    estimator, _, _ = fitted_two_outputs(False)
    text = export_text(estimator, class_names=[["N", "Y"], ["H", "L", "M"]],
                       show_statistics=False)
    assert re.search(r"class: \([NY], [HLM]\)", text)
    with pytest.raises(ValueError, match="class_names must hold one list of names per "
                                         "output: the tree has 2 outputs"):
        export_text(estimator, class_names=["N", "Y"])
    with pytest.raises(ValueError, match=r"class_names\[1\] has 2 names; output 1 has 3 "
                                         "classes"):
        export_graphviz(estimator, class_names=[["N", "Y"], ["H", "L"]])


@pytest.fixture
def axes():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    figure, ax = plt.subplots()
    yield ax
    plt.close(figure)


def test_plot_tree_draws_a_box_per_node_with_children_below_their_parent(axes):
    from fasttree import plot_tree
    estimator, _, _, _ = fitted(False, max_depth=3)
    boxes = plot_tree(estimator, ax=axes, fontsize=6)
    tree = estimator.tree_
    assert len(boxes) == tree.node_count
    texts = [box.get_text() for box in boxes]
    assert texts[0].startswith(export_text(estimator).splitlines()[0])
    # Boxes come in depth-first order, so box i is node i.
    for node in range(tree.node_count):
        if tree.children_left[node] == -1:
            assert "class = " in texts[node]
            continue
        for child in (tree.children_left[node], tree.children_right[node]):
            assert boxes[child].xy[1] < boxes[node].xy[1]
        assert boxes[tree.children_left[node]].xy[0] < boxes[node].xy[0] < boxes[
            tree.children_right[node]].xy[0]
    assert not axes.axison


def test_plot_tree_cuts_subtrees_below_max_depth(axes):
    from fasttree import plot_tree
    estimator, _, _, _ = fitted(True, max_depth=4)
    boxes = plot_tree(estimator, ax=axes, max_depth=1)
    texts = [box.get_text() for box in boxes]
    assert texts.count("(...)") == 4 and len(texts) == 7
    with pytest.raises(ValueError, match="max_depth must be None or an int >= 0"):
        plot_tree(estimator, ax=axes, max_depth=-1)


def test_plot_tree_without_matplotlib_says_how_to_get_it(monkeypatch):
    from fasttree import plot_tree
    monkeypatch.setitem(__import__("sys").modules, "matplotlib", None)
    monkeypatch.setitem(__import__("sys").modules, "matplotlib.pyplot", None)
    estimator, _, _, _ = fitted(False, max_depth=2)
    with pytest.raises(ImportError, match=r"pip install 'fasttree\[plot\]'"):
        plot_tree(estimator)


def mixed_fit(seed=0, max_depth=4):
    """A tree on a string column with gaps and a numeric one with NaN."""
    rng = np.random.default_rng(seed)
    colour = np.array(["red", "green", "blue", "teal", "gold"], dtype=object)[
        rng.integers(0, 5, 600)]
    colour[rng.random(600) < 0.1] = None
    size = rng.normal(size=600)
    size[rng.random(600) < 0.1] = np.nan
    y = (np.isin(colour, ["red", "teal"]) ^ (np.nan_to_num(size, nan=2.0) > 0.5)).astype(int)
    X = pd.DataFrame({"colour": colour, "size": size})
    return DecisionTreeClassifier(max_depth=max_depth, random_state=0).fit(X, y), X


def test_rules_with_categories_and_missing_values_cover_exactly_their_leaves():
    estimator, X = mixed_fit()
    fresh = mixed_fit(seed=1)[1]
    fresh = fresh.assign(colour=fresh["colour"].replace({"gold": "violet"}))  # unseen
    for rows in (X, fresh):
        leaves = estimator.apply(rows)
        codes = estimator._encoded(rows)  # what rules read: categories as codes
        for rule in tree_rules(estimator):
            np.testing.assert_array_equal(rule.covers(codes), leaves == rule.leaf,
                                          err_msg=str(rule))


def test_category_tests_name_their_categories_and_where_missing_values_go():
    estimator, _ = mixed_fit(max_depth=2)
    text = export_text(estimator)
    assert re.search(r"colour (not )?in \{(blue|gold|green|red|teal)(, \w+)*\}", text)
    assert "or missing" in text
    for rule in tree_rules(estimator):
        for condition in rule.conditions:
            if condition.is_categorical:
                assert set(condition.categories) <= {"blue", "gold", "green", "red", "teal"}
                assert len(condition.categories) <= 2  # the shorter of in / not in
    # An "or" is bracketed inside a rule.
    assert any("(" in str(rule) and " or missing)" in str(rule)
               for rule in tree_rules(estimator))
    assert "colour" in export_graphviz(estimator)


def test_category_tests_on_one_path_merge_into_one_set():
    rng = np.random.default_rng(2)
    codes = rng.integers(0, 8, 800)
    y = np.isin(codes, [1, 2, 5]).astype(int) + np.isin(codes, [2, 7]).astype(int)
    estimator = DecisionTreeClassifier(categorical_features=[0]).fit(codes[:, None], y)
    for rule in tree_rules(estimator):
        assert len(rule.conditions) == 1
        covered = rule.covers(codes[:, None].astype(float))
        assert np.unique(y[covered]).size == 1


def missing_only_fit():
    """A tree whose best splits part the missing values from all others:
    the class is 1 where colour is missing, 2 where size is, else 0 or 3
    by size."""
    rng = np.random.default_rng(0)
    colour = rng.choice(np.array(["red", "green", "blue"], dtype=object), 400)
    size = rng.normal(size=400)
    y = np.where(size > 1.0, 3, 0)
    colour_missing = rng.random(400) < 0.3
    size_missing = ~colour_missing & (rng.random(400) < 0.3)
    colour[colour_missing], size[size_missing] = None, np.nan
    y[colour_missing], y[size_missing] = 1, 2
    X = pd.DataFrame({"colour": colour, "size": size})
    return DecisionTreeClassifier(max_depth=3, random_state=0).fit(X, y), X


def test_a_split_of_the_missing_values_reads_is_missing():
    estimator, _ = missing_only_fit()
    text = export_text(estimator)
    for test in ("size is missing", "size is not missing", "colour is missing",
                 "colour is not missing"):
        assert test in text
    dot = export_graphviz(estimator)
    assert "size is not missing" in dot
    rules = " ".join(str(rule) for rule in tree_rules(estimator))
    assert "is missing" in rules
    for written in (text, dot, rules):
        assert "{}" not in written and "inf" not in written


def test_rules_with_is_missing_tests_cover_exactly_their_leaves():
    estimator, X = missing_only_fit()
    codes = estimator._encoded(X)
    for rule in tree_rules(estimator):
        np.testing.assert_array_equal(rule.covers(codes), estimator.apply(X) == rule.leaf,
                                      err_msg=str(rule))
        # "is not missing" is said once per feature at most, and not beside
        # another test of the same feature.
        features = [condition.feature for condition in rule.conditions]
        assert len(features) == len(set(features)), str(rule)


@pytest.mark.parametrize("ensemble", ["forest", "extra_trees", "bagging", "adaboost"])
def test_ensemble_members_print_the_names_and_labels_of_the_fit(ensemble):
    from fasttree import AdaBoostClassifier, BaggingClassifier, ExtraTreesClassifier
    estimator, X, y, weight = fitted(False, max_depth=2)
    model = {"forest": RandomForestClassifier, "extra_trees": ExtraTreesClassifier,
             "bagging": BaggingClassifier, "adaboost": AdaBoostClassifier}[ensemble](
        n_estimators=3, random_state=0).fit(X, y, sample_weight=weight)
    for member in model.estimators_:
        text = export_text(member)
        assert "x[" not in text and "age" in text
        assert set(re.findall(r"class: (\w+)", text)) <= {"buy", "wait"}
        for rule in tree_rules(member):
            assert rule.prediction in ("buy", "wait")
            assert {condition.name for condition in rule.conditions} <= set(X.columns)


def test_adaboost_members_that_learnt_class_indices_still_vote_for_their_classes():
    from fasttree import AdaBoostClassifier
    _, X, y, weight = fitted(False)
    model = AdaBoostClassifier(DecisionTreeClassifier(max_depth=2), n_estimators=4,
                               random_state=0).fit(X, y)
    expected = model.predict_proba(X)
    # As an earlier fasttree fitted them: members learn 0 .. K-1.
    del model._members_labelled
    for member in model.estimators_:
        member.classes_ = np.arange(len(model.classes_))
    np.testing.assert_array_equal(model.predict_proba(X), expected)


def overlapping_boxes(boxes, renderer):
    extents = [box.get_bbox_patch().get_window_extent(renderer) for box in boxes]
    return [(i, j) for i in range(len(extents)) for j in range(i + 1, len(extents))
            if extents[i].overlaps(extents[j])]


def test_plot_tree_at_its_default_font_size_draws_no_box_over_another(axes):
    from fasttree import plot_tree
    from fasttree.datasets import load_breast_cancer_wisconsin
    X, y, names = load_breast_cancer_wisconsin()
    estimator = DecisionTreeClassifier(max_depth=4, random_state=0).fit(X, y)
    boxes = plot_tree(estimator, feature_names=names, ax=axes)
    renderer = axes.figure.canvas.get_renderer()
    axes.figure.draw(renderer)
    assert overlapping_boxes(boxes, renderer) == []
    # A font size given is kept, overlapping or not.
    axes.clear()
    boxes = plot_tree(estimator, feature_names=names, ax=axes, fontsize=10)
    axes.figure.draw(renderer)
    assert {box.get_fontsize() for box in boxes} == {10}
    assert overlapping_boxes(boxes, renderer) != []


def test_export_text_max_depth_cuts_subtrees_into_one_line_each():
    estimator, _, _, _ = fitted(False, max_depth=5)
    full = export_text(estimator)
    cut = export_text(estimator, max_depth=1)
    assert max(line.count("|   ") for line in cut.splitlines()) == 2
    # The lines above the cut are the full text's, in order: its tests of
    # levels 0 and 1 and the leaves right under them.
    kept = [line for line in cut.splitlines() if "..." not in line]
    assert kept == [line for line in full.splitlines() if line.count("|   ") <= 1
                    or (line.count("|   ") == 2 and "class:" in line)]
    tree = estimator.tree_
    cuts = re.findall(r"\.\.\. \(a subtree of depth (\d+), (\d+) leaves\)", cut)
    assert cuts and sum(int(leaves) for _, leaves in cuts) + sum(
        "class:" in line for line in kept) == estimator.get_n_leaves()
    assert max(int(depth) for depth, _ in cuts) == tree.max_depth - 2
    assert export_text(estimator, max_depth=tree.max_depth) == full
    with pytest.raises(ValueError, match="max_depth must be None or an int >= 0"):
        export_text(estimator, max_depth=-1)


def shapes_fit():
    """A multiway (C4.5-style) tree: shape first, then, under "star", colour,
    whose "gold" never occurs with a star (it goes where missing values
    go)."""
    rng = np.random.default_rng(0)
    shape = rng.choice(np.array(["disc", "ring", "star"], dtype=object), 600)
    colour = rng.choice(np.array(["red", "green", "blue", "gold"], dtype=object), 600)
    colour[(shape == "star") & (colour == "gold")] = "red"
    colour[rng.random(600) < 0.1] = None
    y = np.select([shape == "disc", shape == "ring", colour == "red", colour == "blue"],
                  [0, 1, 2, 3], 4)
    X = pd.DataFrame({"shape": shape, "colour": colour})
    return DecisionTreeClassifier(criterion="entropy", categorical_split="multiway").fit(X, y), X


def test_a_condition_on_one_category_reads_equals_or_not_equals():
    red = {"codes": frozenset({2}), "categories": ("red",)}
    assert str(Condition(0, "colour", "in", **red)) == "colour = red"
    assert str(Condition(0, "colour", "not in", **red)) == "colour != red"
    assert str(Condition(0, "colour", "in", missing=True, show_missing=True, **red)) == (
        "colour = red or missing")
    two = {"codes": frozenset({0, 2}), "categories": ("blue", "red")}
    assert str(Condition(0, "colour", "not in", missing=True, show_missing=True, **two)) == (
        "colour not in {blue, red} or missing")


def test_a_condition_says_where_missing_values_go_only_when_told_to():
    passes = Condition(1, "dose", ">", threshold=2.5, missing=True)
    assert str(passes) == "dose > 2.5"
    assert str(replace(passes, show_missing=True)) == "dose > 2.5 or missing"
    assert str(replace(passes, missing=False, show_missing=True)) == "dose > 2.5"


def test_a_condition_writes_four_significant_digits_unless_told():
    condition = Condition(0, "dose", "<=", threshold=1.234567)
    assert str(condition) == "dose <= 1.235"
    assert condition.format(6) == "dose <= 1.23457"


def test_a_rule_without_conditions_always_holds_and_a_regressors_gives_its_error():
    rule = Rule(conditions=(), prediction=2.5, leaf=0, n_samples=4, support=4.0,
                mean_squared_error=0.125)
    assert str(rule) == "if always then value = 2.5  (support 4, mse 0.125)"
    assert rule.covers(np.zeros((3, 2))).all()
    X = np.arange(6, dtype=np.float32).reshape(-1, 1)
    stump = DecisionTreeRegressor(min_samples_split=10).fit(X, [1.0, 1.0, 1.0, 2.0, 2.0, 2.0])
    (only,) = tree_rules(stump)
    assert str(only) == "if always then value = 1.5  (support 6, mse 0.25)"


def test_a_row_at_a_threshold_between_adjacent_floats_meets_the_rule_of_its_leaf():
    # Between two adjacent float32 values the threshold is the lower one: a
    # row equal to it goes left.
    low = np.float32(1.0)
    high = np.nextafter(low, np.float32(2.0))
    X = np.array([[low], [low], [high], [high]], dtype=np.float32)
    estimator = DecisionTreeClassifier().fit(X, [0, 0, 1, 1])
    assert estimator.tree_.threshold[0] == low
    for rule in tree_rules(estimator):
        np.testing.assert_array_equal(rule.covers(X), estimator.apply(X) == rule.leaf)


def test_rules_read_rows_given_as_lists_with_none_for_missing_values():
    estimator, X = mixed_fit(max_depth=2)
    codes = estimator._encoded(X)
    rows = [[None if np.isnan(value) else value for value in row] for row in codes.tolist()]
    for rule in tree_rules(estimator):
        np.testing.assert_array_equal(rule.covers(rows), rule.covers(codes))


def test_numeric_and_category_tests_say_or_missing_where_the_tree_met_missing_values():
    estimator, _ = mixed_fit(max_depth=2)
    lines = export_text(estimator).splitlines()
    assert any(re.fullmatch(r"size (<=|>) [\d.]+ or missing", line) for line in lines)
    assert any(re.fullmatch(r"\|   colour (not )?in \{\w+, \w+\} or missing", line)
               for line in lines)
    colours = [condition for rule in tree_rules(estimator) for condition in rule.conditions
               if condition.name == "colour"]
    assert any(str(condition).endswith(" or missing") for condition in colours)
    # Fitted without missing values, no test says where they go.
    complete, X = mixed_fit(max_depth=2)
    complete = DecisionTreeClassifier(max_depth=2, random_state=0).fit(
        X.fillna({"colour": "red", "size": 0.0}), complete.predict(X))
    assert "missing" not in export_text(complete)
    assert "missing" not in " ".join(str(rule) for rule in tree_rules(complete))


def passing_missing_fit(categorical):
    """A tree that tests a feature twice on a path, the second time at a node
    that met no missing values, with another feature's test between: missing
    values pass both tests (the first as learnt, the second by default)."""
    rng = np.random.default_rng(0)
    z = rng.integers(0, 2, 2000).astype(float)
    if categorical:
        x = rng.choice(np.array(["red", "teal", "blue", "green", "gold"], dtype=object), 2000)
        low, upper = np.isin(x, ["red", "teal"]), x != "blue"
    else:
        x = rng.normal(size=2000)
        low, upper = x <= 0.0, x > 0.3
    y = np.where(low, 0, np.where(z == 1, 1, np.where(upper, 2, 3)))
    gone = (z == 1) & (rng.random(2000) < 0.4)
    x[gone] = None if categorical else np.nan
    y[gone] = 1
    X = pd.DataFrame({"x": x, "z": z})
    return DecisionTreeClassifier(random_state=0).fit(X, y), X


@pytest.mark.parametrize("categorical", [False, True])
def test_a_merged_test_says_or_missing_when_a_test_it_merges_met_missing_values(categorical):
    estimator, X = passing_missing_fit(categorical)
    tree = estimator.tree_
    inner = np.flatnonzero(tree.children_left != -1)
    assert tree.missing_seen[inner].sum() == 1  # only the root met missing values
    rows = estimator._encoded(X)
    said = 0
    for rule in tree_rules(estimator):
        np.testing.assert_array_equal(rule.covers(rows), estimator.apply(X) == rule.leaf)
        for condition in rule.conditions:
            if condition.name == "x" and condition.missing:
                assert str(condition).endswith(" or missing"), str(rule)
                said += 1
    # Numeric: the rules of classes 1, 2 and 3 (its "x > 0" passes them, its
    # "x <= 0.3" not); categories: of 1 and 2 ("x = blue" of class 3 fails them).
    assert said == (2 if categorical else 3)


def test_a_bound_followed_by_is_not_missing_keeps_the_bound():
    rng = np.random.default_rng(0)
    dose = rng.normal(size=600)
    y = np.where(dose <= -1.0, 0, 1)
    gone = rng.random(600) < 0.1
    dose[gone], y[gone] = np.nan, 2
    estimator = DecisionTreeClassifier(random_state=0).fit(dose[:, None], y)
    text = export_text(estimator, feature_names=["dose"])
    assert text.startswith("dose <= ") and "|   dose is not missing\n" in text
    for rule in tree_rules(estimator, ["dose"]):
        np.testing.assert_array_equal(rule.covers(dose[:, None]),
                                      estimator.apply(dose[:, None]) == rule.leaf)
    low = next(rule for rule in tree_rules(estimator, ["dose"]) if rule.prediction == 0)
    threshold = float(estimator.tree_.threshold[0])
    assert str(low).startswith(f"if dose <= {threshold:.4g} then class = 0")


def test_rows_missing_a_value_the_tree_never_saw_missing_meet_the_rule_of_their_leaf():
    rng = np.random.default_rng(2)
    codes = rng.integers(0, 8, 800)
    y = np.isin(codes, [1, 2, 5]).astype(int) + np.isin(codes, [2, 7]).astype(int)
    size = rng.normal(size=800)
    X = np.column_stack([codes, size + y])
    estimator = DecisionTreeClassifier(categorical_features=[0], random_state=0).fit(X, y)
    fresh = X.copy()
    fresh[::3, 0] = np.nan
    fresh[1::3, 1] = np.nan
    for rule in tree_rules(estimator):
        np.testing.assert_array_equal(rule.covers(fresh), estimator.apply(fresh) == rule.leaf,
                                      err_msg=str(rule))


def test_categories_split_in_half_are_named_with_in_on_both_sides():
    rng = np.random.default_rng(1)
    colour = rng.choice(np.array(["blue", "green", "red", "teal"], dtype=object), 400)
    X = pd.DataFrame({"colour": colour})
    estimator = DecisionTreeClassifier(max_depth=1).fit(X, np.isin(colour, ["red", "teal"]))
    assert export_text(estimator, show_statistics=False) == (
        "colour in {blue, green}\n|   class: False\ncolour in {red, teal}\n|   class: True\n")


def test_rules_of_a_multiway_tree_cover_exactly_their_leaves():
    estimator, X = shapes_fit()
    # Unseen and missing colours, and gold (never with a star), under "star".
    fresh = pd.DataFrame({"shape": ["star"] * 5 + ["disc", None],
                          "colour": ["gold", None, "violet", "red", "blue", "blue", "red"]})
    for rows in (X, fresh):
        leaves = estimator.apply(rows)
        for rule in tree_rules(estimator):
            np.testing.assert_array_equal(rule.covers(estimator._encoded(rows)),
                                          leaves == rule.leaf, err_msg=str(rule))
    text = export_text(estimator, show_statistics=False)
    assert text == ("shape = disc\n|   class: 0\nshape = ring\n|   class: 1\nshape = star\n"
                    "|   colour = blue\n|   |   class: 3\n"
                    "|   colour in {gold, green} or missing\n|   |   class: 4\n"
                    "|   colour = red\n|   |   class: 2\n")


def test_max_depth_of_the_text_is_a_whole_number_from_zero():
    estimator, _, _, _ = fitted(False, max_depth=3)
    root_only = export_text(estimator, max_depth=0, show_statistics=False).splitlines()
    assert len(root_only) == 4 and root_only[1].startswith("|   ... (a subtree of depth ")
    for bad in (1.5, True, -1):
        with pytest.raises(ValueError, match="max_depth must be None or an int >= 0"):
            export_text(estimator, max_depth=bad)


def test_an_unfitted_estimator_is_refused_by_name():
    message = ("DecisionTreeRegressor is not a fitted fasttree tree; pass a fitted "
               "DecisionTreeClassifier or DecisionTreeRegressor (or one of a forest's "
               "estimators_)")
    with pytest.raises(ValueError, match=re.escape(message)):
        export_text(DecisionTreeRegressor())


def test_a_forests_tree_pickled_without_statistics_prints_without_them_and_has_no_rules():
    from fasttree._structure import Tree
    X = np.random.default_rng(0).normal(size=(200, 3)).astype(np.float32)
    y = (X[:, 0] > 0).astype(int)
    forest = RandomForestClassifier(n_estimators=1, max_depth=2, random_state=0).fit(X, y)
    member = forest.estimators_[0]
    state = member.tree_.plain_state()
    for name in ("leaf_n_node_samples", "leaf_weighted_n_node_samples", "impurity_rule"):
        del state[name]
    old = Tree.__new__(Tree)
    old.__setstate__(state)
    member.tree_ = old
    text = export_text(member)
    assert "samples" not in text and text.count("class: ") == member.get_n_leaves()
    dot = export_graphviz(member, filled=True)
    # Inner nodes keep no values: no outcome, no colour.
    inner = np.flatnonzero(old.children_left != -1)
    for node in inner:
        assert re.search(rf'^{node} \[label="x\[\d\] <= [-\d.e]+"\];$', dot, flags=re.MULTILINE)
    assert dot.count("fillcolor=") == old.node_count - inner.size
    message = ("this tree belongs to a forest pickled by an older fasttree and keeps no "
               "node statistics; rules need a tree fitted anew")
    with pytest.raises(ValueError, match=re.escape(message)):
        tree_rules(member)


def test_a_branch_that_sent_missing_values_away_does_not_take_them_back():
    # The root sends missing colours to "gold, green"; its other side tests
    # colour again at a node that met none, where they would go by default.
    rng = np.random.default_rng(0)
    colour = rng.choice(np.array(["red", "teal", "blue", "green", "gold"], dtype=object), 1500)
    y = np.select([np.isin(colour, ["red", "teal"]), colour == "blue"], [0, 1], 2)
    gone = rng.random(1500) < 0.1
    colour[gone], y[gone] = None, 2
    X = pd.DataFrame({"colour": colour})
    estimator = DecisionTreeClassifier(random_state=0).fit(X, y)
    tree = estimator.tree_
    assert tree.missing_seen[0] and not tree.missing_seen[tree.children_left[0]]
    rules = tree_rules(estimator)
    for rule in rules:
        np.testing.assert_array_equal(rule.covers(estimator._encoded(X)),
                                      estimator.apply(X) == rule.leaf, err_msg=str(rule))
    assert [str(rule).split(" then")[0] for rule in rules] == [
        "if colour = blue", "if colour in {red, teal}", "if (colour in {gold, green} or missing)"]
