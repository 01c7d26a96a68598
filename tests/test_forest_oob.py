"""Bootstrap draws and out-of-bag estimates of the forests: agreement with the
reference forest grown on the same draws, the draws themselves (max_samples,
the 1/e rule), out-of-bag scores against scikit-learn and a held-out score,
class weights, and the validation of the bootstrap parameters.

The reference comparison gives fasttree's forest and reference.build_forest
the same bootstrap counts (from estimators_samples_) and uses max_features=None,
so only ties could make the trees differ. Integer bootstrap counts make ties
common in small nodes (two features cutting the same few rows apart, possibly
mirrored, with improvements that differ only by rounding), so the data are
continuous and min_samples_leaf keeps the nodes large. The rows carry sample
weights, which (as in scikit-learn 1.9) the bootstrap draws in proportion to;
the trees weigh their rows by the draw counts alone.
"""

import re

import numpy as np
import pytest
from scipy import sparse
from sklearn.datasets import make_classification, make_friedman1
from sklearn.ensemble import RandomForestClassifier as SklearnForestClassifier
from sklearn.ensemble import RandomForestRegressor as SklearnForestRegressor
from sklearn.metrics import mean_absolute_error, r2_score
from sklearn.utils.class_weight import compute_sample_weight

from fasttree import RandomForestClassifier, RandomForestRegressor, reference
from fasttree._forest import add_out_of_bag, out_of_bag_correct
from synthetic import classification_data, regression_data
from tolerances import assert_rounding_close, data_scale, rounding_equal

FORESTS = [RandomForestClassifier, RandomForestRegressor]
REFERENCE_ROWS = 300
# Nodes of at least 24 rows: with whole-number weights, smaller ones meet
# exact ties (mirrored class counts) that the two break apart.
REFERENCE_LEAF = 12


def data_for_forest(forest_class, **kwargs):
    if forest_class is RandomForestClassifier:
        return classification_data(**kwargs)
    return regression_data(**kwargs)


def imbalanced_data(n_samples=400, seed=0):
    """About one row in seven is positive."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n_samples, 5))
    return X, (X[:, 0] + 0.3 * rng.normal(size=n_samples) > 1.0).astype(int)


# -- agreement with the reference forest on the same draws ----------------------------

def fit_with_reference(criterion, seed):
    """fasttree's forest and the reference grown on the same draws, plus fresh rows."""
    rng = np.random.default_rng(seed)
    n = REFERENCE_ROWS
    X32 = rng.normal(size=(n, 4)).astype(np.float32)
    weights = rng.uniform(0.5, 2.0, size=n)
    X_new = rng.normal(size=(400, 4)).astype(np.float32)
    params = {"n_estimators": 6, "max_features": None, "min_samples_leaf": REFERENCE_LEAF,
              "oob_score": True, "random_state": seed}
    if criterion == "squared_error":
        y = 2.0 * X32[:, 0] + np.sin(3.0 * X32[:, 1]) + 0.3 * rng.normal(size=n)
        forest, n_classes = RandomForestRegressor(**params), None
    else:
        y = np.argmax(X32[:, :3] + 0.7 * rng.normal(size=(n, 3)), axis=1)
        forest, n_classes = RandomForestClassifier(criterion=criterion, **params), 3
    forest.fit(X32, y, sample_weight=weights)
    counts_list = [np.bincount(rows, minlength=n) for rows in forest.estimators_samples_]
    oracle = reference.build_forest(X32, y, counts_list, criterion=criterion,
                                    n_classes=n_classes, min_samples_leaf=REFERENCE_LEAF)
    return forest, oracle, X32, y, X_new


@pytest.fixture(scope="module", params=["gini", "entropy"])
def classifier_and_reference(request):
    return fit_with_reference(request.param, seed=11)


@pytest.fixture(scope="module")
def regressor_and_reference():
    return fit_with_reference("squared_error", seed=12)


def test_classifier_probabilities_and_votes_equal_the_reference(classifier_and_reference):
    forest, oracle, X32, _, X_new = classifier_and_reference
    for X in (X32, X_new):
        assert_rounding_close(forest.predict_proba(X), oracle.predict_proba(X))
        assert_rounding_close(forest.vote_fractions(X), oracle.vote_fractions(X))
        for voting in ("soft", "hard"):
            forest.set_params(voting=voting)
            np.testing.assert_array_equal(forest.predict(X), oracle.predict(X, voting=voting))
    forest.set_params(voting="soft")


def test_classifier_out_of_bag_estimates_equal_the_reference(classifier_and_reference):
    forest, oracle, _, y, _ = classifier_and_reference
    ours, theirs = forest.oob_decision_function_, oracle.oob_decision_function()
    np.testing.assert_array_equal(np.isnan(ours), np.isnan(theirs))
    assert np.isnan(ours[:, 0]).any()  # six trees leave some row in every bag
    assert_rounding_close(ours, theirs)
    assert rounding_equal(forest.oob_score_, oracle.oob_score(y))


def test_regressor_mean_and_median_equal_the_reference(regressor_and_reference):
    forest, oracle, X32, y, X_new = regressor_and_reference
    for X in (X32, X_new):
        for aggregation in ("mean", "median"):
            forest.set_params(aggregation=aggregation)
            assert_rounding_close(forest.predict(X), oracle.predict(X, aggregation=aggregation),
                                  data_scale(y))
    forest.set_params(aggregation="mean")


def test_regressor_out_of_bag_estimates_equal_the_reference(regressor_and_reference):
    forest, oracle, _, y, _ = regressor_and_reference
    ours, theirs = forest.oob_prediction_, oracle.oob_prediction()
    np.testing.assert_array_equal(np.isnan(ours), np.isnan(theirs))
    assert np.isnan(ours).any()
    assert_rounding_close(ours, theirs, data_scale(y))
    assert rounding_equal(forest.oob_score_, oracle.oob_score(y))


# -- the draws -----------------------------------------------------------------------------

@pytest.mark.parametrize("max_samples, expected_draws", [
    (None, 300), (0.5, 150), (0.25, 75), (1.0, 300), (40, 40), (300, 300),
    (1.5, 450), (301, 301)])  # a bootstrap may draw more rows than there are
def test_max_samples_sets_the_number_of_draws_per_tree(max_samples, expected_draws):
    X, y = classification_data(n_samples=300)
    forest = RandomForestClassifier(n_estimators=6, max_samples=max_samples,
                                    random_state=0).fit(X, y)
    samples = forest.estimators_samples_
    assert len(samples) == 6
    assert all(len(rows) == expected_draws for rows in samples)
    assert all(rows.min() >= 0 and rows.max() < 300 for rows in samples)
    assert not np.array_equal(samples[0], samples[1])


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("max_samples", [None, 0.5, 120])
@pytest.mark.parametrize("forest_class", FORESTS)
def test_the_trees_draw_the_rows_scikit_learns_trees_draw(forest_class, max_samples, weighted):
    # The same random_state gives the trees scikit-learn's seeds, and a seed
    # scikit-learn's bootstrap: uniform, or in proportion to the weights.
    X, y = data_for_forest(forest_class, n_samples=300)
    weights = np.random.default_rng(3).uniform(0.1, 3.0, size=300) if weighted else None
    theirs_class = (SklearnForestClassifier if forest_class is RandomForestClassifier
                    else SklearnForestRegressor)
    params = {"n_estimators": 7, "max_samples": max_samples, "random_state": 5,
              "max_depth": 2}
    ours = forest_class(**params).fit(X, y, sample_weight=weights)
    theirs = theirs_class(**params).fit(X, y, sample_weight=weights)
    for our_rows, their_rows in zip(ours.estimators_samples_, theirs.estimators_samples_):
        np.testing.assert_array_equal(our_rows, np.sort(their_rows))
    assert [member.random_state for member in ours.estimators_] == [
        member.random_state for member in theirs.estimators_]


@pytest.mark.parametrize("max_samples, expected_fraction", [
    (None, np.exp(-1.0)), (0.5, np.exp(-0.5))])
def test_a_bootstrap_leaves_the_expected_fraction_of_rows_out_of_bag(max_samples,
                                                                     expected_fraction):
    rng = np.random.default_rng(0)
    n = 5000
    X, y = rng.normal(size=(n, 2)), rng.integers(0, 2, size=n)
    forest = RandomForestClassifier(n_estimators=50, max_depth=1, max_samples=max_samples,
                                    random_state=1).fit(X, y)
    fractions = [np.mean(np.bincount(rows, minlength=n) == 0)
                 for rows in forest.estimators_samples_]
    assert abs(np.mean(fractions) - expected_fraction) < 0.01


@pytest.mark.parametrize("forest_class", FORESTS)
def test_out_of_bag_estimates_average_the_trees_that_did_not_draw_the_row(forest_class):
    X, y = data_for_forest(forest_class)
    forest = forest_class(n_estimators=5, oob_score=True, random_state=2).fit(X, y)
    in_bag = np.array([np.bincount(rows, minlength=len(y)) > 0
                       for rows in forest.estimators_samples_])
    if forest_class is RandomForestClassifier:
        outputs = np.stack([member.predict_proba(X) for member in forest.estimators_])
        estimate = forest.oob_decision_function_
    else:
        outputs = np.stack([member.predict(X)[:, None] for member in forest.estimators_])
        estimate = forest.oob_prediction_[:, None]
    n_out = np.sum(~in_bag, axis=0)
    scored = n_out > 0
    assert not scored.all()  # five trees: some rows are in every bag
    assert np.all(np.isnan(estimate[~scored]))
    expected = np.sum(np.where(~in_bag[:, :, None], outputs, 0.0), axis=0)[scored]
    assert_rounding_close(estimate[scored], expected / n_out[scored, None], data_scale(y))
    if forest_class is RandomForestClassifier:
        predicted = forest.classes_[np.argmax(estimate[scored], axis=1)]
        assert rounding_equal(forest.oob_score_, np.mean(predicted == y[scored]))
    else:
        assert rounding_equal(forest.oob_score_, r2_score(y[scored], estimate[scored, 0]))


@pytest.mark.parametrize("forest_class", FORESTS)
def test_warm_started_out_of_bag_estimates_equal_those_of_one_fit(forest_class):
    X, y = data_for_forest(forest_class)
    warm = forest_class(n_estimators=5, oob_score=True, warm_start=True,
                        random_state=3).fit(X, y)
    warm.set_params(n_estimators=15).fit(X, y)
    cold = forest_class(n_estimators=15, oob_score=True, random_state=3).fit(X, y)
    assert warm.oob_score_ == cold.oob_score_
    name = ("oob_decision_function_" if forest_class is RandomForestClassifier
            else "oob_prediction_")
    np.testing.assert_array_equal(getattr(warm, name), getattr(cold, name))


# -- out-of-bag scores against scikit-learn and held-out rows ------------------------------

@pytest.fixture(scope="module")
def classification_scores():
    X, y = make_classification(n_samples=2500, n_features=10, n_informative=4,
                               random_state=0)
    return scores_of(RandomForestClassifier, SklearnForestClassifier, X, y)


@pytest.fixture(scope="module")
def regression_scores():
    X, y = make_friedman1(n_samples=2500, noise=1.0, random_state=0)
    return scores_of(RandomForestRegressor, SklearnForestRegressor, X, y)


def scores_of(forest_class, sklearn_class, X, y):
    """OOB score of ours and of scikit-learn's on 2000 rows, and ours on 500 held out."""
    train, test = slice(0, 2000), slice(2000, None)
    ours = forest_class(n_estimators=100, oob_score=True, n_jobs=2, random_state=0)
    theirs = sklearn_class(n_estimators=100, oob_score=True, n_jobs=2, random_state=0)
    ours.fit(X[train], y[train])
    theirs.fit(X[train], y[train])
    assert not np.isnan(ours.oob_score_)
    return ours.oob_score_, theirs.oob_score_, ours.score(X[test], y[test])


def test_classifier_oob_accuracy_is_close_to_scikit_learns(classification_scores):
    ours, theirs, _ = classification_scores
    assert 0.7 < ours < 1.0
    assert abs(ours - theirs) < 0.02


def test_regressor_oob_r2_is_close_to_scikit_learns(regression_scores):
    ours, theirs, _ = regression_scores
    assert 0.7 < ours < 1.0
    assert abs(ours - theirs) < 0.03


def test_oob_scores_are_close_to_held_out_scores(classification_scores, regression_scores):
    oob_accuracy, _, held_out_accuracy = classification_scores
    assert abs(oob_accuracy - held_out_accuracy) < 0.05
    oob_r2, _, held_out_r2 = regression_scores
    assert abs(oob_r2 - held_out_r2) < 0.04


# -- class weights --------------------------------------------------------------------------

def test_balanced_and_dict_class_weights_act_as_sample_weights():
    X, y = imbalanced_data()
    for class_weight, weights in [("balanced", compute_sample_weight("balanced", y)),
                                  ({0: 1.0, 1: 5.0}, np.where(y == 1, 5.0, 1.0))]:
        weighted = RandomForestClassifier(n_estimators=8, class_weight=class_weight,
                                          random_state=0).fit(X, y)
        by_hand = RandomForestClassifier(n_estimators=8, random_state=0).fit(
            X, y, sample_weight=weights)
        assert_rounding_close(weighted.predict_proba(X), by_hand.predict_proba(X))


def test_balanced_subsample_raises_the_minority_class_probability():
    X, y = imbalanced_data()
    plain = RandomForestClassifier(n_estimators=10, max_depth=3, random_state=0).fit(X, y)
    subsample = RandomForestClassifier(n_estimators=10, max_depth=3, random_state=0,
                                       class_weight="balanced_subsample").fit(X, y)
    assert not np.array_equal(plain.predict_proba(X), subsample.predict_proba(X))
    assert subsample.predict_proba(X)[:, 1].mean() > plain.predict_proba(X)[:, 1].mean() + 0.03
    assert np.mean(subsample.predict(X)[y == 1] == 1) >= np.mean(plain.predict(X)[y == 1] == 1)


def test_balanced_subsample_without_bootstrap_equals_balanced():
    # The "subsample" of a tree grown without bootstrap is every row, so the
    # weights are the 'balanced' ones, as in scikit-learn.
    X, y = imbalanced_data()
    params = {"n_estimators": 5, "bootstrap": False, "max_depth": 3, "random_state": 0}
    subsample = RandomForestClassifier(class_weight="balanced_subsample", **params).fit(X, y)
    balanced = RandomForestClassifier(class_weight="balanced", **params).fit(X, y)
    assert_rounding_close(subsample.predict_proba(X), balanced.predict_proba(X))


# -- validation of the bootstrap parameters ---------------------------------------------------

@pytest.mark.parametrize("forest_class", FORESTS)
@pytest.mark.parametrize("params", [
    {"bootstrap": "yes"}, {"oob_score": True, "bootstrap": False}, {"max_samples": 0},
    {"max_samples": -0.5}, {"max_samples": 0.5, "bootstrap": False}],
    ids=["bootstrap=yes", "oob-without-bootstrap", "max_samples=0", "max_samples=-0.5",
         "max_samples-without-bootstrap"])
def test_invalid_bootstrap_parameters_are_rejected_at_fit(forest_class, params):
    X, y = data_for_forest(forest_class, n_samples=300)
    with pytest.raises(ValueError):
        forest_class(n_estimators=3, **params).fit(X, y)


@pytest.mark.parametrize("forest_class", FORESTS)
def test_out_of_bag_attributes_exist_only_with_oob_score(forest_class):
    X, y = data_for_forest(forest_class)
    forest = forest_class(n_estimators=5, random_state=0).fit(X, y)
    assert not hasattr(forest, "oob_score_")
    assert not hasattr(forest, "oob_decision_function_")
    assert not hasattr(forest, "oob_prediction_")


def test_out_of_bag_sums_add_each_members_values_at_its_rows_in_order():
    rng = np.random.default_rng(0)
    n_samples, n_values = 50, 3
    sums, counts = np.zeros((n_samples, n_values)), np.zeros(n_samples, dtype=np.int64)
    expected_sums, expected_counts = sums.copy(), counts.copy()
    for _ in range(20):
        rows = np.flatnonzero(rng.random(n_samples) < 0.4)
        values = rng.normal(size=(rows.size, n_values)) * 10.0 ** rng.integers(-8, 8)
        add_out_of_bag(sums, counts, rows, values)
        np.add.at(expected_sums, rows, values)
        np.add.at(expected_counts, rows, 1)
    # The same additions in the same order: the same bits.
    np.testing.assert_array_equal(sums, expected_sums)
    np.testing.assert_array_equal(counts, expected_counts)


@pytest.mark.parametrize("rows, values, message", [
    ([0, 4], np.ones((2, 2)), "row 4 is not in"),
    ([-1], np.ones((1, 2)), "row -1 is not in"),
    ([0, 1], np.ones((3, 2)), "shapes disagree"),
    ([0, 1], np.ones((2, 3)), "shapes disagree"),
])
def test_out_of_bag_sums_refuse_rows_and_values_that_do_not_fit(rows, values, message):
    sums, counts = np.zeros((4, 2)), np.zeros(4, dtype=np.int64)
    with pytest.raises(ValueError, match=message):
        add_out_of_bag(sums, counts, np.array(rows, dtype=np.intp), values)
    assert not sums.any() and not counts.any()


def test_out_of_bag_correct_counts_the_class_of_the_largest_mean_first_on_ties():
    rng = np.random.default_rng(1)
    n_samples, n_classes = 400, 5
    # Small whole numbers: many rows tie between classes.
    sums = rng.integers(0, 4, size=(n_samples, n_classes)).astype(np.float64)
    counts = rng.integers(0, 3, size=n_samples).astype(np.int64)
    class_index = rng.integers(0, n_classes, size=n_samples).astype(np.int32)
    covered = counts > 0
    with np.errstate(invalid="ignore", divide="ignore"):
        means = sums / counts[:, None]
    predicted = np.argmax(means[covered], axis=1)
    n_covered, n_correct = out_of_bag_correct(sums, counts, class_index)
    assert n_covered == np.count_nonzero(covered)
    assert n_correct == np.count_nonzero(predicted == class_index[covered])
    # Ties are common here, so "first on ties" is what is being checked.
    top = means[covered].max(axis=1, keepdims=True)
    assert np.count_nonzero((means[covered] == top).sum(axis=1) > 1) > 50


def test_out_of_bag_correct_compares_means_not_sums():
    # Two sums one float64 step apart whose means, divided by 85, are equal:
    # the means tie and the first class wins, though the second sum is larger.
    sums = np.array([[171.85413666758538, np.nextafter(171.85413666758538, np.inf)]])
    counts = np.array([85], dtype=np.int64)
    means = sums / counts[:, None]
    assert sums[0, 1] > sums[0, 0] and means[0, 0] == means[0, 1]
    assert out_of_bag_correct(sums, counts, np.array([0], dtype=np.int32)) == (1, 1)


def test_a_scoring_function_as_oob_score_scores_the_out_of_bag_predictions():
    # scikit-learn's forests take oob_score as f(y_true, y_pred) too.
    X, y = regression_data()
    forest = RandomForestRegressor(n_estimators=25, oob_score=mean_absolute_error,
                                   random_state=0).fit(X, y)
    covered = ~np.isnan(forest.oob_prediction_)
    assert covered.sum() > 0.9 * len(y)
    expected = mean_absolute_error(y[covered], forest.oob_prediction_[covered])
    assert forest.oob_score_ == pytest.approx(expected, rel=1e-12, abs=1e-12)


def test_out_of_bag_scores_of_classes_other_than_0_and_1_in_several_outputs_are_refused():
    # scikit-learn's refusal, in its words: numbers other than 0 and 1 too.
    X, y = classification_data(n_samples=120, n_classes=3)
    with pytest.raises(ValueError, match=re.escape(
            "The type of target cannot be used to compute OOB estimates. Got "
            "multiclass-multioutput while only the following are supported: continuous, "
            "continuous-multioutput, binary, multiclass, multilabel-indicator.")):
        RandomForestClassifier(n_estimators=5, oob_score=True).fit(X, np.column_stack([y, y]))


def test_a_scoring_function_scores_a_classifiers_out_of_bag_classes():
    X, y = classification_data(n_samples=300, n_classes=3)
    forest = RandomForestClassifier(n_estimators=25, random_state=0,
                                    oob_score=lambda truth, predicted: np.mean(
                                        truth != predicted)).fit(X, y)
    covered = ~np.isnan(forest.oob_decision_function_).any(axis=1)
    predicted = np.argmax(forest.oob_decision_function_[covered], axis=1)
    # The function is given class indices, as scikit-learn gives encoded classes.
    assert forest.oob_score_ == np.mean(np.searchsorted(forest.classes_, y[covered]) != predicted)


@pytest.mark.parametrize("forest_class", FORESTS)
def test_a_sparse_x_gives_the_out_of_bag_estimates_of_its_dense_twin(forest_class):
    X, y = data_for_forest(forest_class)
    X = np.where(np.abs(X) < 0.7, 0.0, X)
    dense = forest_class(n_estimators=6, random_state=0, oob_score=True).fit(X, y)
    from_sparse = forest_class(n_estimators=6, random_state=0, oob_score=True).fit(
        sparse.csr_matrix(X), y)
    for name in ("oob_decision_function_", "oob_prediction_", "oob_score_"):
        if hasattr(dense, name):
            np.testing.assert_array_equal(getattr(from_sparse, name), getattr(dense, name))
