"""The C4.5 oracle (``fasttree.reference.c45``): the textbooks' trees and
numbers, and its rules for missing values."""

import csv
from pathlib import Path

import numpy as np
import pytest

from fasttree.reference import id3_tree
from fasttree.reference.c45 import build_c45_tree, c45_split_scores

DATA = Path(__file__).parent / "data"

# Quinlan's weather data (C4.5: Programs for Machine Learning, figure 2-1).
WEATHER = """\
sunny,85,85,false,no
sunny,80,90,true,no
overcast,83,78,false,yes
rain,70,96,false,yes
rain,68,80,false,yes
rain,65,70,true,no
overcast,64,65,true,yes
sunny,72,95,false,no
sunny,69,70,false,yes
rain,75,80,false,yes
sunny,75,70,true,yes
overcast,72,90,true,yes
overcast,81,75,false,yes
rain,71,80,true,no"""


def encoded(rows, features, target):
    """Codes of categorical columns (levels sorted), the class indices, the levels."""
    levels = [sorted({row[name] for row in rows}) for name in features]
    X = np.array([[levels[j].index(row[name]) for j, name in enumerate(features)]
                  for row in rows], dtype=np.float64)
    classes = sorted({row[target] for row in rows})
    y = np.array([classes.index(row[target]) for row in rows])
    return X, y, levels, classes


def read(name):
    with open(DATA / name, newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


@pytest.mark.parametrize("missing", ["fractional", "learn"])
def test_with_information_gain_it_grows_id3s_party_tree(missing):
    rows = read("party.csv")
    features = ["deadline", "party", "lazy"]
    X, y, levels, classes = encoded(rows, features, "activity")
    tree = build_c45_tree(X, y, categorical=[True] * 3, n_classes=len(classes),
                          criterion="entropy", missing=missing)
    assert tree.structure(feature_names=features, class_names=classes,
                          level_names=levels) == id3_tree(rows, features, "activity")
    assert tree.nodes[0].feature == features.index("party") and tree.max_depth == 3


@pytest.mark.parametrize("criterion", ["entropy", "gain_ratio"])
def test_patrons_is_the_root_of_the_restaurant_tree(criterion):
    rows = read("restaurant.csv")
    features = [name for name in rows[0] if name != "will_wait"]
    X, y, _, classes = encoded(rows, features, "will_wait")
    tree = build_c45_tree(X, y, categorical=[True] * len(features), n_classes=2,
                          criterion=criterion)
    assert features[tree.nodes[0].feature] == "pat"
    # Every training example is classified as given (the data are consistent).
    np.testing.assert_array_equal(np.argmax(tree.predict_proba(X), axis=1), y)


def weather(missing_outlook=True):
    rows = [line.split(",") for line in WEATHER.splitlines()]
    outlook = {"sunny": 0.0, "overcast": 1.0, "rain": 2.0}
    X = np.array([[outlook[r[0]], float(r[1]), float(r[2]), float(r[3] == "true")]
                  for r in rows])
    y = np.array([r[4] == "yes" for r in rows], dtype=np.intp)
    if missing_outlook:
        # Quinlan's section 3.1: the outlook of the 12th case is unknown.
        X[11, 0] = np.nan
    return X, y


def test_quinlans_gain_and_split_information_with_an_unknown_outlook():
    # C4.5, section 3.1: gain = 13/14 (0.961 - 0.747) = 0.199 bits, split
    # information 1.809 bits (the unknown case as a fourth branch), ratio 0.110.
    X, y = weather()
    codes = X[:, 0]
    child_of = np.where(np.isnan(codes), -1, np.nan_to_num(codes)).astype(np.intp)
    gain, information = c45_split_scores(y, np.ones(14), child_of, 3, 2)
    assert round(gain, 3) == 0.199
    assert round(information, 3) == 1.809
    assert round(gain / information, 3) == 0.110


def test_a_case_of_unknown_outlook_goes_down_every_branch_with_a_share_of_its_weight():
    X, y = weather()
    tree = build_c45_tree(X, y, categorical=[True, False, False, False], n_classes=2)
    root = tree.nodes[0]
    assert root.feature == 0 and root.categories == [0, 1, 2]
    np.testing.assert_allclose(root.missing_fractions, [5 / 13, 3 / 13, 5 / 13])
    # The overcast branch holds its 3 known cases and 3/13 of the unknown one.
    overcast = tree.nodes[root.children[1]]
    assert overcast.is_leaf and overcast.weight == pytest.approx(3 + 3 / 13)
    # Predicting an unknown outlook mixes the three branches by those shares.
    row = np.array([[np.nan, 70.0, 90.0, 1.0]])
    expected = sum(fraction * tree.predict_proba(
        np.array([[code, 70.0, 90.0, 1.0]]))[0] for code, fraction in
        zip([0, 1, 2], root.missing_fractions))
    np.testing.assert_allclose(tree.predict_proba(row)[0], expected)
    assert tree.predict_proba(row)[0].sum() == pytest.approx(1.0)


def test_learnt_missing_values_join_the_child_that_gains_most():
    X, y = weather()
    tree = build_c45_tree(X, y, categorical=[True, False, False, False], n_classes=2,
                          missing="learn")
    root = tree.nodes[0]
    assert root.feature == 0
    # The unknown case plays; joining the all-playing overcast branch keeps
    # it pure, which gains most.
    assert root.categories[root.missing_child] == 1
    assert tree.nodes[root.children[root.missing_child]].is_leaf
    unknown = np.array([[np.nan, 64.0, 65.0, 1.0]])
    np.testing.assert_array_equal(tree.predict_proba(unknown), [[0.0, 1.0]])


def test_without_unknown_values_both_ways_grow_the_same_tree():
    X, y = weather(missing_outlook=False)
    trees = [build_c45_tree(X, y, categorical=[True, False, False, False], n_classes=2,
                            missing=missing) for missing in ("fractional", "learn")]
    assert trees[0].structure() == trees[1].structure()
    np.testing.assert_array_equal(trees[0].predict_proba(X), trees[1].predict_proba(X))
    np.testing.assert_array_equal(np.argmax(trees[0].predict_proba(X), axis=1), y)


def test_bad_settings_are_refused():
    X, y = weather()
    with pytest.raises(ValueError, match="criterion must be"):
        build_c45_tree(X, y, categorical=[True] * 4, n_classes=2, criterion="gini")
    with pytest.raises(ValueError, match="missing must be"):
        build_c45_tree(X, y, categorical=[True] * 4, n_classes=2, missing="drop")


def test_candidates_take_the_first_of_two_thresholds_of_equal_gain():
    # Classes 0, 1, 1, 0 in value order: the thresholds 0.5 and 2.5 split off
    # one row of class 0 each, with the same gain to the last bit; C4.5 takes
    # the first (as fasttree.reference.c45 does).
    from fasttree import DecisionTreeClassifier
    from fasttree._features import rank_features
    from fasttree._multiway import CandidateSearch

    X = np.array([[0.0], [1.0], [2.0], [3.0]], dtype=np.float32)
    y = np.array([0, 1, 1, 0], dtype=np.int32)
    search = CandidateSearch(rank_features(X), np.array([0], dtype=np.intp), y, 2, False)
    (candidate,) = search.candidates(np.zeros(1, dtype=np.int8), np.arange(4, dtype=np.intp),
                                     np.ones(4), np.array([0], dtype=np.intp))
    assert candidate[1] == np.float32(0.5)
    tree = DecisionTreeClassifier(criterion="entropy", categorical_split="multiway",
                                  max_depth=1).fit(X, y)
    assert tree.tree_.threshold[0] == np.float32(0.5)
