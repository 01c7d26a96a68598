"""The rule-list classifier and C4.5-style rule post-pruning (``fasttree.rule_list``)."""

import pickle

import numpy as np
import pandas as pd
import pytest

from fasttree import DecisionTreeClassifier, RandomForestClassifier, RuleListClassifier
from fasttree.rule_list import RuleListClassifier as Listed, generalise_rule, laplace_accuracy
from fasttree.rules import Condition, Rule


def planted(seed=0, n_rows=3000, noise=0.1):
    """Three classes set by two short rules, with some labels flipped."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(size=(n_rows, 6)).astype(np.float32)
    y = np.where((X[:, 0] > 0.5) & (X[:, 1] < 0.3), "A", np.where(X[:, 2] > 0.7, "B", "C"))
    flip = rng.uniform(size=n_rows) < noise
    y[flip] = rng.choice(["A", "B", "C"], size=flip.sum())
    return X, y


def test_a_few_short_rules_are_found_and_generalise_better_than_the_tree():
    X, y = planted()
    model = RuleListClassifier(random_state=0).fit(X[:2000], y[:2000])
    tree = DecisionTreeClassifier(criterion="entropy", random_state=0).fit(X[:2000], y[:2000])
    assert len(model.rules_) < tree.get_n_leaves() / 10
    assert all(len(rule.conditions) <= 4 for rule in model.rules_)
    assert model.default_class_ == "C"
    used = {condition.feature for rule in model.rules_ for condition in rule.conditions}
    assert used <= {0, 1, 2}
    assert model.score(X[2000:], y[2000:]) > tree.score(X[2000:], y[2000:]) + 0.03


def test_rules_are_tried_in_order_of_accuracy_and_the_first_match_decides():
    X, y = planted(seed=1)
    model = RuleListClassifier(random_state=1).fit(X[:2000], y[:2000])
    accuracies = [rule.accuracy for rule in model.rules_]
    assert accuracies == sorted(accuracies, reverse=True)
    assert all(0.0 < accuracy <= 1.0 for accuracy in accuracies)
    chosen = model.decision_rule(X[2000:])
    expected = np.full(1000, model.default_class_, dtype=object)
    for row in range(1000):
        for rule in model.rules_:
            if rule.covers(X[2000 + row:2001 + row])[0]:
                expected[row] = rule.prediction
                break
    np.testing.assert_array_equal(model.predict(X[2000:]), expected)
    rule_classes = np.array([rule.prediction for rule in model.rules_] + [model.default_class_])
    np.testing.assert_array_equal(rule_classes[chosen], expected)


def test_generalising_drops_the_conditions_that_do_not_help_and_never_loses_accuracy():
    rng = np.random.default_rng(2)
    X = rng.uniform(size=(500, 3))
    y = (X[:, 0] > 0.6).astype(int)
    weight = np.ones(500)
    conditions = (Condition(2, "noise", "<=", 0.4), Condition(0, "signal", ">", 0.6),
                  Condition(1, "more noise", ">", 0.2))
    covered = np.all([c.holds(X) for c in conditions], axis=0)
    before = laplace_accuracy((y[covered] == 1).sum(), covered.sum(), 2)
    kept, accuracy = generalise_rule(conditions, 1, X, y, weight, 2)
    assert kept == (conditions[1],)
    assert accuracy >= before
    assert accuracy == laplace_accuracy((y[X[:, 0] > 0.6] == 1).sum(), (X[:, 0] > 0.6).sum(), 2)


def test_a_rule_no_better_than_what_follows_it_is_dropped():
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    y = np.array([0, 0, 1, 1])
    weight = np.ones(4)
    useful = Rule((Condition(0, "x", ">", 1.5),), 1, 0, 2, 2.0, accuracy=0.75)
    # Predicts the default class on rows the default gets right anyway.
    redundant = Rule((Condition(0, "x", "<=", 0.5),), 0, 1, 1, 1.0, accuracy=0.6)
    wrong = Rule((Condition(0, "x", "<=", 1.5),), 1, 2, 2, 2.0, accuracy=0.25)
    kept = Listed._drop_unhelpful([useful, redundant, wrong], 0, X, y, weight)
    assert kept == [useful]


def test_labels_names_pickles_and_seeds():
    X, y = planted(seed=3, n_rows=1200)
    frame = pd.DataFrame(X, columns=[f"f{i}" for i in range(6)])
    model = RuleListClassifier(random_state=4).fit(frame, y)
    again = RuleListClassifier(random_state=4).fit(frame, y)
    assert [str(rule) for rule in model.rules_] == [str(rule) for rule in again.rules_]
    assert all(str(rule).startswith("if f") for rule in model.rules_)
    assert str(model).splitlines()[-1] == f"otherwise class = {model.default_class_}"
    copy = pickle.loads(pickle.dumps(model))
    np.testing.assert_array_equal(copy.predict(frame), model.predict(frame))
    assert set(model.predict(frame)) <= {"A", "B", "C"}
    template = DecisionTreeClassifier(max_depth=3, random_state=0)
    shallow = RuleListClassifier(template, random_state=4).fit(frame, y)
    assert shallow.estimator_.get_depth() <= 3 and template.get_params()["max_depth"] == 3
    assert not hasattr(template, "tree_")


def test_every_class_keeps_rows_to_grow_on():
    X = np.arange(20, dtype=np.float32).reshape(-1, 1)
    y = np.array(["common"] * 19 + ["rare"])
    model = RuleListClassifier(validation_fraction=0.5, random_state=0).fit(X, y)
    assert set(model.estimator_.classes_) == {0, 1}


def test_bad_settings_and_inputs_are_refused():
    X, y = planted(n_rows=100)
    for fraction in (0.0, 1.0, -0.1, "0.3", True):
        with pytest.raises(ValueError, match="validation_fraction must be a float in"):
            RuleListClassifier(validation_fraction=fraction).fit(X, y)
    with pytest.raises(ValueError, match="estimator must be None or an instance of fasttree's "
                                         "DecisionTreeClassifier.*got a fasttree.forest"
                                         ".RandomForestClassifier"):
        RuleListClassifier(RandomForestClassifier()).fit(X, y)
    with pytest.raises(ValueError, match="not fitted"):
        RuleListClassifier().predict(X)
    model = RuleListClassifier(random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="X has 2 features"):
        model.predict(X[:, :2])
    bad = X.copy()
    bad[0, 0] = np.inf
    with pytest.raises(ValueError, match="infinity"):
        model.predict(bad)


@pytest.mark.parametrize("estimator, got", [
    ("sklearn", "a sklearn.tree._classes.DecisionTreeClassifier"),
    ("sklearn-class", "the class sklearn.tree._classes.DecisionTreeClassifier"),
    ("fasttree-class", "the class fasttree.tree.DecisionTreeClassifier")])
def test_a_tree_that_is_no_fasttree_tree_instance_is_refused_saying_what_to_pass(estimator,
                                                                                  got):
    from sklearn.tree import DecisionTreeClassifier as SklearnTree

    X, y = planted(n_rows=100)
    estimator = {"sklearn": SklearnTree(max_depth=3), "sklearn-class": SklearnTree,
                 "fasttree-class": DecisionTreeClassifier}[estimator]
    with pytest.raises(ValueError, match=f"got {got} \\(for a scikit-learn tree, pass "
                                         "fasttree.DecisionTreeClassifier with the same "
                                         "parameters\\)"):
        RuleListClassifier(estimator).fit(X, y)


def test_a_rule_list_reads_categories_and_missing_values_as_they_are():
    import pandas as pd
    from pathlib import Path

    frame = pd.read_csv(Path(__file__).parent / "data" / "congressional_votes.csv")
    y = frame.pop("Class")
    model = RuleListClassifier(random_state=0).fit(frame, y)
    assert model.is_categorical_.all()
    text = str(model)
    assert "physician-fee-freeze = " in text or "physician-fee-freeze != " in text
    for rule in model.rules_:
        for condition in rule.conditions:
            assert set(condition.categories) <= {"y", "n"}
    # The rules read the fit's codes: every row is classified by its first rule.
    codes = model._encoded(frame)
    chosen = model.decision_rule(frame)
    for position, rule in enumerate(model.rules_):
        first = chosen == position
        assert rule.covers(codes)[first].all()
    assert model.score(frame, y) > 0.9
    # A category absent from the tree's rows still has its own code in the rules.
    fresh = frame.copy()
    fresh.iloc[0, 0] = "maybe"  # unseen: missing
    assert model.predict(fresh).shape == (len(fresh),)


def greedy_generalisation(conditions, target, X, y, weight, n_classes):
    """generalise_rule the slow way: at each step, every remaining condition
    dropped in turn and the covered rows counted from scratch."""
    def accuracy(kept):
        covered = np.all([c.holds(X) for c in kept], axis=0) if kept else np.ones(len(y), bool)
        return laplace_accuracy(weight[covered & (y == target)].sum(), weight[covered].sum(),
                                n_classes)
    kept = list(conditions)
    current = accuracy(kept)
    while kept:
        candidates = [accuracy(kept[:j] + kept[j + 1:]) for j in range(len(kept))]
        best = int(np.argmax(candidates))
        if candidates[best] < current:
            break
        current = candidates[best]
        del kept[best]
    return tuple(kept), current


@pytest.mark.parametrize("seed", range(6))
def test_generalising_a_weighted_rule_drops_what_the_slow_greedy_search_drops(seed):
    rng = np.random.default_rng(seed)
    X = rng.uniform(size=(300, 4))
    y = np.where((X[:, 0] > 0.4) & (X[:, 1] <= 0.7), 1, rng.integers(3, size=300))
    weight = rng.exponential(size=300) ** 2
    conditions = (Condition(0, "a", ">", 0.4), Condition(1, "b", "<=", 0.7),
                  Condition(2, "c", ">", rng.uniform(0.1, 0.5)),
                  Condition(3, "d", "<=", rng.uniform(0.5, 0.9)))
    kept, accuracy = generalise_rule(conditions, 1, X, y, weight, 3)
    expected_kept, expected_accuracy = greedy_generalisation(conditions, 1, X, y, weight, 3)
    assert kept == expected_kept
    assert accuracy == pytest.approx(expected_accuracy, rel=1e-12, abs=1e-12)


def test_generalising_keeps_a_rule_whose_every_condition_helps():
    rng = np.random.default_rng(5)
    X = rng.uniform(size=(400, 2))
    y = ((X[:, 0] > 0.5) & (X[:, 1] > 0.5)).astype(int)
    conditions = (Condition(0, "a", ">", 0.5), Condition(1, "b", ">", 0.5))
    kept, accuracy = generalise_rule(conditions, 1, X, y, np.ones(400), 2)
    assert kept == conditions
    covered = (X[:, 0] > 0.5) & (X[:, 1] > 0.5)
    assert accuracy == laplace_accuracy(covered.sum(), covered.sum(), 2)


def test_the_first_rules_and_the_last_are_kept_when_each_helps_on_its_own_rows():
    X = np.array([[0.0], [1.0], [2.0], [3.0], [4.0]])
    y = np.array([0, 0, 1, 2, 1])
    weight = np.ones(5)
    # Right on rows 0-1 (which the second rule would get wrong).
    first = Rule((Condition(0, "x", "<=", 1.5),), 0, 0, 2, 2.0, accuracy=0.9)
    # Wrong on rows 0-1 (which the default, 0, gets right), but the first
    # rule takes them: it is first to cover only row 2, which it gets right.
    second = Rule((Condition(0, "x", "<=", 2.5),), 1, 1, 3, 3.0, accuracy=0.8)
    # The last rule: right on row 4, which the default gets wrong.
    last = Rule((Condition(0, "x", ">", 3.5),), 1, 2, 1, 1.0, accuracy=0.7)
    assert Listed._drop_unhelpful([first, second, last], 0, X, y, weight) == [first, second,
                                                                              last]


def test_rows_no_feature_separates_get_the_majority_class_and_no_rule():
    X = np.zeros((30, 2))
    y = np.array(["often"] * 20 + ["seldom"] * 10)
    model = RuleListClassifier(random_state=0).fit(X, y)
    assert model.estimator_.get_n_leaves() == 1
    assert model.rules_ == [] and model.default_class_ == "often"
    assert (model.predict(X) == "often").all()


def test_a_rule_list_reads_the_category_codes_of_its_fit_when_its_tree_saw_fewer():
    rng = np.random.default_rng(0)
    colour = rng.choice(["blue", "green", "red", "yellow"], size=300, p=[0.3, 0.3, 0.3, 0.1])
    colour[0] = "amber"  # first in code order, on one row
    frame = pd.DataFrame({"colour": pd.Categorical(colour), "x": rng.uniform(size=300)})
    y = np.where(np.isin(colour, ["green", "yellow"]), "yes", "no")
    model = RuleListClassifier(random_state=2).fit(frame, y)
    # That row was held out: the tree's codes 0..3 are the fit's 1..4.
    assert model.estimator_.categories_[0].tolist() == [1, 2, 3, 4]
    named = {category for rule in model.rules_ for condition in rule.conditions
             for category in condition.categories}
    assert named == {"green", "yellow"}
    np.testing.assert_array_equal(model.predict(frame), y)


def test_an_unfitted_rule_list_prints_as_its_parameters():
    model = RuleListClassifier(validation_fraction=0.25)
    assert str(model) == repr(model) == "RuleListClassifier(validation_fraction=0.25)"


def test_prediction_errors_name_the_rule_list():
    X, y = planted(n_rows=100)
    model = RuleListClassifier(random_state=0).fit(X, y)
    bad = X.copy()
    bad[0, 0] = np.inf
    with pytest.raises(ValueError, match="^RuleListClassifier: X contains infinity"):
        model.predict(bad)
