"""Tests of the pure-Python oracles: criteria, textbook ID3 facts, split search.

The tree builder oracle is tested in test_reference_tree.py.
"""

import csv
from pathlib import Path

import numpy as np
import pytest

from fasttree.reference import (
    Split,
    best_split,
    conditional_entropy,
    entropy,
    entropy_of_probabilities,
    gini,
    id3_tree,
    impurity,
    information_gain,
    midpoint,
    misclassification,
    squared_error,
)
from tolerances import ROUNDING

DATA = Path(__file__).parent / "data"
CLASS_CRITERIA = ["gini", "entropy", "misclassification"]


def read_rows(name):
    # The csv module keeps the category "None" as a string (pandas would not).
    with open(DATA / name, newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def column(rows, name):
    return [row[name] for row in rows]


# ---------------------------------------------------------------- criteria


def test_entropy_of_one_positive_and_three_negatives_is_0_811():
    assert entropy(["+", "-", "-", "-"]) == pytest.approx(0.811, abs=5e-4)


def test_gain_of_split_into_mixed_pair_and_two_negatives_is_0_311():
    labels = ["+", "-", "-", "-"]
    branches = ["a", "a", "b", "c"]  # {1+,1-}, {1-}, {1-}
    assert information_gain(labels, branches) == pytest.approx(0.311, abs=5e-4)


def test_five_events_with_probabilities_half_and_four_eighths_carry_two_bits():
    assert entropy_of_probabilities([0.5, 0.125, 0.125, 0.125, 0.125]) == 2.0


def test_entropy_of_probabilities_treats_zero_log_zero_as_zero():
    assert entropy_of_probabilities([0.5, 0.0, 0.5]) == 1.0
    assert entropy_of_probabilities([1.0]) == 0.0


@pytest.mark.parametrize("bad", [[0.5, 0.6], [1.2, -0.2], [np.nan, 1.0]])
def test_entropy_of_probabilities_rejects_non_distributions(bad):
    with pytest.raises(ValueError, match="probabilities"):
        entropy_of_probabilities(bad)


def test_entropy_of_labels_matches_entropy_of_their_proportions():
    labels = [0, 0, 0, 0, 1, 2, 3, 4]
    assert entropy(labels) == pytest.approx(
        entropy_of_probabilities([0.5, 0.125, 0.125, 0.125, 0.125]), rel=ROUNDING, abs=ROUNDING
    )


@pytest.mark.parametrize(
    "labels, expected",
    [([0, 0, 1, 1], 0.5), ([0, 0, 0, 1], 0.375), ([0, 1, 2], 2 / 3), ([7, 7], 0.0)],
)
def test_gini_matches_hand_computed_values(labels, expected):
    assert gini(labels) == pytest.approx(expected, rel=ROUNDING, abs=ROUNDING)


@pytest.mark.parametrize(
    "labels, expected",
    [([0, 0, 1, 1], 0.5), ([0, 0, 0, 1], 0.25), ([0, 1, 2], 2 / 3), ([7, 7], 0.0)],
)
def test_misclassification_matches_hand_computed_values(labels, expected):
    assert misclassification(labels) == pytest.approx(expected, rel=ROUNDING, abs=ROUNDING)


def test_weights_change_class_proportions():
    # Weights 3 and 1 make the proportions 3/4 and 1/4.
    assert gini(["a", "b"], [3.0, 1.0]) == pytest.approx(0.375, rel=ROUNDING, abs=ROUNDING)
    assert misclassification(["a", "b"], [3.0, 1.0]) == pytest.approx(0.25)
    assert entropy(["a", "b"], [3.0, 1.0]) == pytest.approx(0.811278, abs=1e-6)


def test_squared_error_is_the_population_variance():
    targets = np.array([1.0, 2.0, 4.0, 8.0, 16.0])
    assert squared_error(targets) == pytest.approx(np.var(targets), rel=ROUNDING, abs=ROUNDING)


def test_weighted_squared_error_equals_variance_of_repeated_targets():
    targets = np.array([1.5, -2.0, 3.25])
    counts = np.array([1, 3, 2])
    assert squared_error(targets, counts.astype(float)) == pytest.approx(
        np.var(np.repeat(targets, counts)), rel=ROUNDING, abs=ROUNDING
    )


@pytest.mark.parametrize("criterion", CLASS_CRITERIA)
def test_weight_two_equals_a_duplicated_label(criterion):
    labels = [0, 1, 1, 2, 0]
    weighted = impurity(criterion, labels, [2.0, 1.0, 1.0, 1.0, 1.0])
    duplicated = impurity(criterion, labels + [0])
    assert weighted == pytest.approx(duplicated, rel=ROUNDING, abs=ROUNDING)


@pytest.mark.parametrize("criterion", CLASS_CRITERIA + ["squared_error"])
def test_pure_empty_and_weightless_sets_have_zero_impurity(criterion):
    assert impurity(criterion, [1, 1, 1]) == 0.0
    assert impurity(criterion, []) == 0.0
    assert impurity(criterion, [0, 1], [0.0, 0.0]) == 0.0


def test_labels_may_be_any_hashable_values():
    assert entropy([("a", 1), ("a", 1), ("b", 2), ("b", 2)]) == 1.0
    assert gini([None, "x", 3, 3]) == pytest.approx(0.625)


def test_zero_weight_class_does_not_count():
    assert entropy([0, 1, 2], [1.0, 1.0, 0.0]) == 1.0


def test_impurity_rejects_unknown_criterion_by_name():
    with pytest.raises(ValueError, match="'log_loss'"):
        impurity("log_loss", [0, 1])


@pytest.mark.parametrize("weights", [[1.0, 1.0], [1.0, -1.0, 1.0], [1.0, np.inf, 1.0]])
def test_bad_sample_weight_is_rejected(weights):
    with pytest.raises(ValueError, match="sample_weight"):
        gini([0, 1, 1], weights)


def test_gain_is_entropy_minus_conditional_entropy():
    labels = ["x", "y", "y", "x", "x", "z"]
    feature = [1, 1, 2, 2, 3, 3]
    assert information_gain(labels, feature) == pytest.approx(
        entropy(labels) - conditional_entropy(labels, feature), rel=ROUNDING, abs=ROUNDING
    )


def test_gain_can_use_gini():
    labels = [0, 0, 1, 1]
    assert information_gain(labels, [0, 0, 1, 1], criterion="gini") == 0.5


# ------------------------------------------------------ textbook: party data


@pytest.fixture(scope="module")
def party():
    return read_rows("party.csv")


def test_party_data_has_the_ten_textbook_rows(party):
    assert len(party) == 10
    assert column(party, "deadline").count("None") == 3


def test_party_entropy_of_whole_set_is_1_6855(party):
    assert entropy(column(party, "activity")) == pytest.approx(1.6855, abs=5e-5)


@pytest.mark.parametrize(
    "attribute, expected, tolerance",
    # Gain(Lazy) is 0.20999 to five places; the book rounds it to 0.21.
    [("deadline", 0.5345, 5e-5), ("party", 1.0, 1e-12), ("lazy", 0.2100, 5e-5)],
)
def test_party_gains_match_the_book(party, attribute, expected, tolerance):
    gain = information_gain(column(party, "activity"), column(party, attribute))
    assert gain == pytest.approx(expected, abs=tolerance)


def test_party_is_the_root_choice(party):
    gains = {
        attribute: information_gain(column(party, "activity"), column(party, attribute))
        for attribute in ["deadline", "party", "lazy"]
    }
    assert max(gains, key=gains.get) == "party"


def test_party_no_branch_gains_trust_the_ten_rows(party):
    branch = [row for row in party if row["party"] == "No"]
    labels = column(branch, "activity")
    assert len(branch) == 5
    assert entropy(labels) == pytest.approx(1.371, abs=5e-4)
    assert information_gain(labels, column(branch, "deadline")) == pytest.approx(
        0.971, abs=5e-4
    )
    # The book prints 0.171 from a mistyped row; the data give 0.420.
    assert information_gain(labels, column(branch, "lazy")) == pytest.approx(
        0.420, abs=5e-4
    )


def test_id3_on_party_data_gives_the_textbook_tree(party):
    tree = id3_tree(party, ["deadline", "party", "lazy"], "activity")
    assert tree == {
        "party": {
            "Yes": "Party",
            "No": {
                "deadline": {
                    "Urgent": "Study",
                    "None": "Pub",
                    "Near": {"lazy": {"Yes": "TV", "No": "Study"}},
                }
            },
        }
    }


def test_id3_returns_majority_label_when_attributes_run_out():
    rows = [{"f": 1, "t": "a"}, {"f": 1, "t": "b"}, {"f": 1, "t": "b"}]
    assert id3_tree(rows, [], "t") == "b"
    assert id3_tree(rows, ["f"], "t") == {"f": {1: "b"}}


# ------------------------------------------------- textbook: restaurant data


@pytest.fixture(scope="module")
def restaurant():
    return read_rows("restaurant.csv")


def test_restaurant_conditional_entropy_after_patrons_is_0_459(restaurant):
    labels = column(restaurant, "will_wait")
    assert conditional_entropy(labels, column(restaurant, "pat")) == pytest.approx(
        0.459, abs=5e-4
    )


def test_restaurant_conditional_entropy_after_type_is_one_bit(restaurant):
    labels = column(restaurant, "will_wait")
    assert conditional_entropy(labels, column(restaurant, "type")) == pytest.approx(
        1.0, rel=ROUNDING, abs=ROUNDING
    )


def test_restaurant_patrons_has_the_largest_gain(restaurant):
    labels = column(restaurant, "will_wait")
    attributes = [name for name in restaurant[0] if name != "will_wait"]
    gains = {
        name: information_gain(labels, column(restaurant, name)) for name in attributes
    }
    best = max(gains, key=gains.get)
    assert best == "pat"
    assert all(gains[name] < gains["pat"] for name in attributes if name != "pat")


def test_id3_on_restaurant_data_splits_patrons_then_hungry(restaurant):
    attributes = [name for name in restaurant[0] if name != "will_wait"]
    tree = id3_tree(restaurant, attributes, "will_wait")
    branches = tree["pat"]
    assert branches["None"] == "F" and branches["Some"] == "T"
    assert list(branches["Full"]) == ["hun"]


# ------------------------------------------------------------ split search


def test_threshold_is_the_midpoint_between_neighbouring_values():
    X = np.array([[1.0], [2.0], [3.0], [4.0]], dtype=np.float32)
    split = best_split(X, [0, 0, 1, 1], criterion="gini")
    assert split == Split(0, np.float32(2.5), 0.5, 0.0, 0.0, 2, 2)


def test_improvement_is_node_minus_weighted_children_impurity():
    X = np.array([[0.0], [1.0], [2.0], [3.0], [4.0]], dtype=np.float32)
    y = [0, 1, 0, 1, 1]
    split = best_split(X, y, criterion="entropy")
    left = X[:, 0] <= split.threshold
    labels = np.array(y)
    expected = (
        entropy(labels)
        - left.mean() * entropy(labels[left])
        - (~left).mean() * entropy(labels[~left])
    )
    assert split.improvement == pytest.approx(expected, rel=ROUNDING, abs=ROUNDING)
    assert split.impurity_left == entropy(labels[left])


def test_adjacent_float32_values_give_the_lower_value_as_threshold():
    lower = np.float32(1.0)
    upper = np.nextafter(lower, np.float32(2.0), dtype=np.float32)
    assert midpoint(lower, upper) == lower
    X = np.array([[lower], [lower], [upper], [upper]], dtype=np.float32)
    split = best_split(X, [0, 0, 1, 1], criterion="gini")
    assert split.threshold == lower
    assert list(X[:, 0] <= split.threshold) == [True, True, False, False]


def test_midpoint_stays_below_the_upper_value():
    rng = np.random.default_rng(0)
    scales = 10.0 ** rng.integers(-30, 30, 2000)
    lower = (rng.standard_normal(2000) * scales).astype(np.float32)
    for a in lower:
        for b in (np.nextafter(a, np.float32(np.inf)), a + np.float32(abs(a) + 1)):
            threshold = midpoint(a, b)
            assert a <= threshold < b


def test_min_samples_leaf_prevents_unbalanced_splits():
    X = np.arange(4, dtype=np.float32).reshape(-1, 1)
    y = [0, 1, 1, 1]
    assert best_split(X, y, criterion="gini").threshold == np.float32(0.5)
    assert best_split(X, y, criterion="gini", min_samples_leaf=2).threshold == 1.5
    assert best_split(X, y, criterion="gini", min_samples_leaf=3) is None


def test_min_weight_leaf_prevents_light_children():
    X = np.arange(4, dtype=np.float32).reshape(-1, 1)
    y = [0, 1, 1, 1]
    weights = [1.0, 1.0, 1.0, 5.0]
    split = best_split(X, y, weights, criterion="gini", min_weight_leaf=2.0)
    assert split.threshold == np.float32(1.5)
    assert best_split(X, y, weights, criterion="gini", min_weight_leaf=5.0) is None


def test_constant_feature_gives_no_split():
    X = np.full((5, 1), 3.0, dtype=np.float32)
    assert best_split(X, [0, 1, 0, 1, 0], criterion="gini") is None


def test_constant_feature_is_skipped_for_a_varying_one():
    X = np.array([[7.0, 0.0], [7.0, 1.0], [7.0, 2.0]], dtype=np.float32)
    assert best_split(X, [0, 0, 1], criterion="gini").feature == 1


def test_ties_go_to_the_first_feature_in_the_given_order():
    X = np.array([[0.0, 0.0], [1.0, 1.0], [2.0, 2.0], [3.0, 3.0]], dtype=np.float32)
    y = [0, 0, 1, 1]
    assert best_split(X, y, criterion="gini").feature == 0
    assert best_split(X, y, criterion="gini", features=[1, 0]).feature == 1


def test_ties_within_a_feature_go_to_the_lowest_threshold():
    # Both cuts of 0 | 1 0 and 0 1 | 0 improve gini by 1/9.
    X = np.array([[1.0], [2.0], [3.0]], dtype=np.float32)
    split = best_split(X, [0, 1, 0], criterion="gini")
    assert split.threshold == np.float32(1.5)
    assert split.improvement == pytest.approx(1 / 9)


@pytest.mark.parametrize("criterion", CLASS_CRITERIA + ["squared_error"])
def test_weight_two_behaves_like_a_duplicated_row(criterion):
    rng = np.random.default_rng(3)
    X = rng.integers(0, 6, size=(12, 3)).astype(np.float32)
    if criterion == "squared_error":
        y = rng.normal(size=12)
    else:
        y = rng.integers(0, 3, size=12)
    weights = np.ones(12)
    weights[4] = 2.0
    weighted = best_split(X, y, weights, criterion=criterion)
    duplicated = best_split(
        np.vstack([X, X[4:5]]), np.append(y, y[4]), criterion=criterion
    )
    assert weighted.feature == duplicated.feature
    assert weighted.threshold == duplicated.threshold
    assert weighted.improvement == pytest.approx(duplicated.improvement, rel=ROUNDING, abs=ROUNDING)
    assert weighted.impurity_left == pytest.approx(duplicated.impurity_left, rel=ROUNDING, abs=ROUNDING)
    assert weighted.n_left + weighted.n_right == 12


def test_squared_error_split_finds_the_step():
    X = np.array([[0.1], [0.2], [0.3], [0.7], [0.8]], dtype=np.float32)
    split = best_split(X, [1.0, 1.0, 1.0, 5.0, 5.0], criterion="squared_error")
    assert split.threshold == midpoint(np.float32(0.3), np.float32(0.7))
    assert split.impurity_left == split.impurity_right == 0.0
    assert split.improvement == pytest.approx(np.var([1.0, 1, 1, 5, 5]))


def test_best_split_rejects_nan_and_bad_feature_indices():
    X = np.array([[0.0], [np.nan]], dtype=np.float32)
    with pytest.raises(ValueError, match="NaN"):
        best_split(X, [0, 1], criterion="gini")
    with pytest.raises(ValueError, match="feature index 3"):
        best_split(np.zeros((2, 1)), [0, 1], criterion="gini", features=[3])
