"""Trees of several outputs (y of shape (n_samples, n_outputs)): the
MultiOutput criterion against the oracle, scikit-learn's shapes and
conventions, and the errors for what takes one output only."""

import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fasttree import (AdaBoostClassifier, AdaBoostRegressor, BaggingRegressor,
                      DecisionTreeClassifier, DecisionTreeRegressor, ExtraTreeClassifier,
                      ExtraTreesClassifier, ExtraTreesRegressor, RandomForestClassifier,
                      RandomForestRegressor)
from fasttree.reference import build_tree, impurity
from fasttree.reference.criteria import output_mean_impurity
from tolerances import assert_rounding_close, data_scale

CLASSIFICATION = ("gini", "entropy", "misclassification")
REGRESSION = ("squared_error", "poisson")


def tie_free_data(seed, n_samples, n_outputs, criterion):
    """Distinct continuous features, continuous weights; classes (2 to 4 per
    output) or positive continuous targets."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n_samples, 4)).astype(np.float32)
    weights = rng.uniform(0.5, 2.0, n_samples)
    if criterion in REGRESSION:
        y = np.exp(X[:, :n_outputs] + rng.normal(scale=0.5, size=(n_samples, n_outputs)))
    else:
        y = np.stack([rng.integers(0, rng.integers(2, 5), n_samples)
                      for _ in range(n_outputs)], axis=1)
        y[:, 0] = (X[:, 0] + rng.normal(scale=0.5, size=n_samples) > 0)
    return X, y, weights


def oracle_node_rows(oracle, X):
    """Per oracle node, the sorted indices of the rows of X reaching it."""
    rows = {0: np.arange(X.shape[0])}
    for node_id, node in enumerate(oracle.nodes):
        if not node.is_leaf:
            goes_left = X[rows[node_id], node.feature] <= np.float32(node.threshold)
            rows[node.left] = rows[node_id][goes_left]
            rows[node.right] = rows[node_id][~goes_left]
    return rows


def assert_same_tree(estimator, oracle, X, scale, y=None, weights=None, criterion=None):
    """Both trees walked together from the root: paired nodes hold the same
    training rows (a tie may cut them with another feature, or mirrored),
    values and impurity. Given ``y``, ``weights`` and ``criterion``, a node
    split into other rows passes when the oracle scores that split as well
    as its own, up to rounding (a tie broken the other way); the subtrees
    below it are not compared."""
    tree = estimator.tree_
    paths = estimator.decision_path(X).tocsc()
    oracle_rows = oracle_node_rows(oracle, X)

    def rows_of(node_id):
        return np.sort(paths[:, node_id].indices)

    pairs = [(0, 0)]
    n_ties = 0
    while pairs:
        node_id, oracle_id = pairs.pop()
        node = oracle.nodes[oracle_id]
        np.testing.assert_array_equal(rows_of(node_id), oracle_rows[oracle_id])
        assert_rounding_close(tree.node_values[node_id], node.value, scale=scale)
        assert_rounding_close(tree.impurity[node_id], node.impurity, scale=scale ** 2)
        left, right = tree.children_left[node_id], tree.children_right[node_id]
        assert (left == -1) == node.is_leaf
        if node.is_leaf:
            continue
        if np.array_equal(rows_of(left), oracle_rows[node.left]):
            pairs += [(left, node.left), (right, node.right)]
        elif np.array_equal(rows_of(left), oracle_rows[node.right]):
            pairs += [(left, node.right), (right, node.left)]
        else:
            assert criterion is not None, f"node {node_id} splits other rows"
            rows = oracle_rows[oracle_id]
            ours = improvement(criterion, y, weights, rows, np.isin(rows, rows_of(left)))
            theirs = improvement(criterion, y, weights, rows,
                                 np.isin(rows, oracle_rows[node.left]))
            assert_rounding_close(ours, theirs, scale=scale)
            n_ties += 1
    if n_ties == 0:
        assert tree.node_count == oracle.node_count
    return n_ties


def improvement(criterion, y, weights, rows, goes_left):
    """The oracle's impurity decrease of splitting ``rows`` by ``goes_left``."""
    impurity_of = output_mean_impurity if np.ndim(y) == 2 else impurity
    total = weights[rows].sum()
    decrease = impurity_of(criterion, y[rows], weights[rows])
    for side in (goes_left, ~goes_left):
        decrease -= (weights[rows[side]].sum() / total
                     * impurity_of(criterion, y[rows[side]], weights[rows[side]]))
    return decrease


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), n_outputs=st.integers(2, 3),
       criterion=st.sampled_from(("gini", "entropy", "squared_error", "poisson")),
       max_depth=st.integers(1, 6))
def test_multi_output_trees_are_the_oracles_on_tie_free_data(seed, n_outputs, criterion,
                                                             max_depth):
    X, y, weights = tie_free_data(seed, 60, n_outputs, criterion)
    estimator_class = (DecisionTreeRegressor if criterion in REGRESSION
                       else DecisionTreeClassifier)
    estimator = estimator_class(criterion=criterion, max_depth=max_depth, random_state=0)
    estimator.fit(X, y, sample_weight=weights)
    oracle = build_tree(X, y, weights, criterion=criterion, max_depth=max_depth)
    scale = data_scale(y) if criterion in REGRESSION else 1.0
    assert_same_tree(estimator, oracle, X, scale)


@pytest.mark.parametrize("criterion", CLASSIFICATION + REGRESSION)
def test_one_output_as_a_column_of_two_identical_outputs_grows_the_same_tree(criterion):
    # Every output's impurity is the same, so the mean is too.
    X, y, _ = tie_free_data(3, 80, 1, criterion)
    estimator_class = (DecisionTreeRegressor if criterion in REGRESSION
                       else DecisionTreeClassifier)
    single = estimator_class(criterion=criterion, random_state=0, max_depth=5).fit(X, y[:, 0])
    double = estimator_class(criterion=criterion, random_state=0, max_depth=5).fit(
        X, np.hstack([y, y]))
    assert double.tree_.node_count == single.tree_.node_count
    np.testing.assert_array_equal(double.tree_.feature, single.tree_.feature)
    np.testing.assert_array_equal(double.tree_.threshold, single.tree_.threshold)
    predictions = double.predict(X)
    np.testing.assert_array_equal(predictions[:, 0], predictions[:, 1])
    assert_rounding_close(predictions[:, 0], single.predict(X),
                          scale=data_scale(y) if criterion in REGRESSION else 1.0)


def test_classifier_gives_scikit_learns_shapes_and_labels_per_output():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 3))
    y = np.stack([np.where(X[:, 0] > 0, "red", "blue"),
                  np.where(X[:, 1] > 0.5, "green", np.where(X[:, 1] < -0.5, "yellow", "grey"))],
                 axis=1)
    model = DecisionTreeClassifier(random_state=0).fit(X, y)
    assert model.n_outputs_ == 2
    assert [list(classes) for classes in model.classes_] == [["blue", "red"],
                                                               ["green", "grey", "yellow"]]
    assert model.n_classes_ == [2, 3]
    assert model.tree_.value.shape == (model.tree_.node_count, 2, 3)
    # The two-class output is padded with zeros.
    np.testing.assert_array_equal(model.tree_.value[:, 0, 2], 0.0)
    np.testing.assert_array_equal(model.tree_.n_classes, [2, 3])
    predictions = model.predict(X)
    assert predictions.shape == (120, 2)
    np.testing.assert_array_equal(predictions, y)  # grown to purity
    assert model.score(X, y) == 1.0
    proba = model.predict_proba(X[:7])
    assert [p.shape for p in proba] == [(7, 2), (7, 3)]
    log_proba = model.predict_log_proba(X[:7])
    np.testing.assert_array_equal(np.exp(log_proba[1]), proba[1])


def test_predictions_of_outputs_with_labels_of_different_lengths_are_not_cut():
    X = np.arange(8.0).reshape(4, 2)
    y = np.array([["a", "b"], ["a", "b"], ["bb", "long label"], ["bb", "longer label"]])
    model = DecisionTreeClassifier().fit(X, y)
    np.testing.assert_array_equal(model.predict(X), y)


def test_regressor_predicts_one_column_per_output_and_scores_their_mean_r2():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(200, 4))
    y = np.stack([X[:, 0] * 3 + 1000.0, np.sin(X[:, 1]), X[:, 2] ** 2], axis=1)
    model = DecisionTreeRegressor(max_depth=4, random_state=0).fit(X, y)
    predictions = model.predict(X)
    assert predictions.shape == (200, 3)
    assert model.tree_.value.shape == (model.tree_.node_count, 3, 1)
    assert_rounding_close(model.tree_.value[0, :, 0], y.mean(axis=0), scale=data_scale(y))
    r2 = [1 - ((y[:, k] - predictions[:, k]) ** 2).sum()
          / ((y[:, k] - y[:, k].mean()) ** 2).sum() for k in range(3)]
    assert_rounding_close(model.score(X, y), np.mean(r2))


@pytest.mark.parametrize("criterion", ("gini", "entropy", "squared_error", "poisson"))
def test_multi_output_trees_match_scikit_learn_on_tie_free_data(criterion):
    sklearn_tree = pytest.importorskip("sklearn.tree")
    X, y, weights = tie_free_data(7, 150, 3, criterion)
    if criterion in REGRESSION:
        ours = DecisionTreeRegressor(criterion=criterion, max_depth=5, random_state=0)
        theirs = sklearn_tree.DecisionTreeRegressor(criterion=criterion, max_depth=5,
                                                    random_state=0)
    else:
        ours = DecisionTreeClassifier(criterion=criterion, max_depth=5, random_state=0)
        theirs = sklearn_tree.DecisionTreeClassifier(criterion=criterion, max_depth=5,
                                                     random_state=0)
    ours.fit(X, y, sample_weight=weights)
    theirs.fit(X, y, sample_weight=weights)
    # Small nodes may be cut alike by two features (scikit-learn draws the
    # order it tries them in): the same training rows meet the same leaves.
    assert ours.tree_.node_count == theirs.tree_.node_count
    scale = data_scale(y) if criterion in REGRESSION else 1.0
    if criterion in REGRESSION:
        assert_rounding_close(ours.predict(X), theirs.predict(X), scale=scale)
    else:
        for mine, other in zip(ours.predict_proba(X), theirs.predict_proba(X)):
            assert_rounding_close(mine, other)
    assert_rounding_close(np.sort(ours.tree_.impurity), np.sort(theirs.tree_.impurity),
                          scale=scale ** 2)


def test_balanced_class_weight_multiplies_the_outputs_balanced_weights():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(90, 3))
    y = np.stack([rng.integers(0, 2, 90), rng.integers(0, 3, 90)], axis=1)
    balanced = DecisionTreeClassifier(class_weight="balanced", random_state=0).fit(X, y)
    weights = np.ones(90)
    for k in range(2):
        counts = np.bincount(y[:, k])
        weights *= 90 / (len(counts) * counts[y[:, k]])
    by_hand = DecisionTreeClassifier(random_state=0).fit(X, y, sample_weight=weights)
    np.testing.assert_array_equal(balanced.tree_.feature, by_hand.tree_.feature)
    np.testing.assert_array_equal(balanced.tree_.value, by_hand.tree_.value)
    listed = DecisionTreeClassifier(
        class_weight=[{0: 1.0, 1: 3.0}, {0: 1.0, 1: 1.0, 2: 2.0}], random_state=0).fit(X, y)
    listed_weights = np.array([1.0, 3.0])[y[:, 0]] * np.array([1.0, 1.0, 2.0])[y[:, 1]]
    by_hand = DecisionTreeClassifier(random_state=0).fit(X, y, sample_weight=listed_weights)
    np.testing.assert_array_equal(listed.tree_.value, by_hand.tree_.value)


@pytest.mark.parametrize("class_weight, message", [
    ({0: 1.0, 1: 2.0}, "list of dicts"),
    ([{0: 1.0, 1: 2.0}], "number of elements in class_weight should match"),
])
def test_class_weight_of_the_wrong_form_for_several_outputs_is_refused(class_weight,
                                                                       message):
    X = np.arange(20.0).reshape(10, 2)
    y = np.stack([np.arange(10) % 2, np.arange(10) % 3], axis=1)
    with pytest.raises(ValueError, match=message):
        DecisionTreeClassifier(class_weight=class_weight).fit(X, y)


@pytest.mark.parametrize("params, message", [
    ({"loss_matrix": [[0, 1], [1, 0]]}, "loss_matrix"),
    ({"categorical_split": "multiway", "criterion": "entropy"}, "multiway"),
])
def test_options_of_one_output_are_refused_for_several(params, message):
    X = np.arange(20.0).reshape(10, 2)
    y = np.stack([np.arange(10) % 2, np.arange(10) % 2], axis=1)
    with pytest.raises(ValueError, match=message):
        DecisionTreeClassifier(**params).fit(X, y)


def test_sparse_y_is_refused_with_a_type_error():
    sparse = pytest.importorskip("scipy.sparse")
    X = np.arange(20.0).reshape(10, 2)
    for error in (TypeError, ValueError):  # scikit-learn's trees raise one, its forests the other
        with pytest.raises(error, match="sparse multilabel-indicator for y is not supported"):
            DecisionTreeClassifier().fit(X, sparse.csr_matrix(np.eye(10, 3)))


def test_pruning_by_validation_takes_one_output_only():
    X = np.arange(40.0).reshape(20, 2)
    y = np.stack([np.arange(20) % 2, np.arange(20) % 3], axis=1)
    model = DecisionTreeClassifier().fit(X, y)
    with pytest.raises(ValueError, match="one output"):
        model.prune_reduced_error(X, y)


@pytest.mark.parametrize("estimator", [DecisionTreeClassifier(random_state=0, ccp_alpha=0.01),
                                       ExtraTreeClassifier(random_state=0),
                                       DecisionTreeRegressor(random_state=0, max_leaf_nodes=9)])
def test_multi_output_trees_round_trip_through_pickle(estimator):
    rng = np.random.default_rng(4)
    X = rng.normal(size=(100, 3))
    if isinstance(estimator, DecisionTreeRegressor):
        y = np.stack([X[:, 0], X[:, 1] * 2], axis=1)
    else:
        y = np.stack([X[:, 0] > 0, X[:, 1] + X[:, 2] > 0], axis=1).astype(int)
    estimator.fit(X, y)
    loaded = pickle.loads(pickle.dumps(estimator))
    assert loaded.tree_.n_outputs == 2
    np.testing.assert_array_equal(loaded.predict(X), estimator.predict(X))
    np.testing.assert_array_equal(loaded.tree_.value, estimator.tree_.value)


# ------------------------------------------------------------------ ensembles


def multi_output_data(kind, seed=0, n_samples=160):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n_samples, 5))
    if kind == "classification":
        y = np.stack([np.where(X[:, 0] > 0, "yes", "no"),
                      np.where(X[:, 1] + X[:, 2] > 0, "a", np.where(X[:, 3] > 0.8, "b", "c"))],
                     axis=1)
    else:
        y = np.stack([X[:, 0] * 2 + X[:, 1], np.abs(X[:, 2]) + 10.0], axis=1)
    return X, y


@pytest.mark.parametrize("forest_class", [RandomForestClassifier, ExtraTreesClassifier])
def test_forest_classifier_averages_its_members_per_output(forest_class):
    X, y = multi_output_data("classification")
    forest = forest_class(n_estimators=12, random_state=0, bootstrap=True).fit(X, y)
    assert forest.n_outputs_ == 2 and forest.n_classes_ == [2, 3]
    proba = forest.predict_proba(X)
    members = [member.predict_proba(X) for member in forest.estimators_]
    for k in range(2):
        assert_rounding_close(proba[k], np.mean([member[k] for member in members], axis=0))
        labels = forest.classes_[k][np.argmax(proba[k], axis=1)]
        np.testing.assert_array_equal(forest.predict(X)[:, k], labels)
    two_threads = forest_class(n_estimators=12, random_state=0, bootstrap=True,
                               n_jobs=2).fit(X, y)
    for mine, other in zip(two_threads.predict_proba(X), proba):
        np.testing.assert_array_equal(mine, other)


def test_forest_classifier_hard_votes_count_one_vote_per_tree_and_output():
    X, y = multi_output_data("classification")
    forest = RandomForestClassifier(n_estimators=9, random_state=1, voting="hard").fit(X, y)
    fractions = forest.vote_fractions(X)
    for k in range(2):
        votes = np.zeros_like(fractions[k])
        for member in forest.estimators_:
            chosen = np.searchsorted(forest.classes_[k], member.predict(X)[:, k])
            votes[np.arange(X.shape[0]), chosen] += 1
        np.testing.assert_array_equal(fractions[k] * 9, votes)
        np.testing.assert_array_equal(forest.predict(X)[:, k],
                                      forest.classes_[k][np.argmax(votes, axis=1)])


def test_forest_classifier_out_of_bag_estimates_per_output():
    X, labels = multi_output_data("classification", n_samples=200)
    y = (labels == np.array(["yes", "a"])).astype(int)  # 0/1 labels: multilabel
    forest = RandomForestClassifier(n_estimators=25, random_state=0, oob_score=True).fit(X, y)
    decision = forest.oob_decision_function_
    assert decision.shape == (200, 2, 2)
    covered = ~np.isnan(decision[:, 0, 0])
    predicted = np.argmax(np.nan_to_num(decision), axis=1)
    expected = np.mean((predicted == y)[covered].all(axis=1))
    assert_rounding_close(forest.oob_score_, expected)


def test_out_of_bag_scores_of_labels_other_than_zero_and_one_are_refused():
    # As scikit-learn: a multiclass-multioutput target has no OOB score.
    X, y = multi_output_data("classification")
    with pytest.raises(ValueError, match="cannot be used to compute OOB estimates"):
        RandomForestClassifier(n_estimators=3, oob_score=True).fit(X, y)
    # Without oob_score the same target fits.
    RandomForestClassifier(n_estimators=3).fit(X, y)


def test_a_warm_start_adding_no_tree_leaves_a_forest_grown_for_other_targets():
    X, y = multi_output_data("classification")
    forest = RandomForestClassifier(n_estimators=4, warm_start=True, random_state=0)
    forest.fit(X, y[:, 0])
    before = forest.predict_proba(X)
    with pytest.warns(UserWarning, match="without increasing n_estimators"):
        forest.fit(X, y)
    np.testing.assert_array_equal(forest.predict_proba(X), before)
    assert forest.n_outputs_ == 1


@pytest.mark.parametrize("forest_class", [RandomForestRegressor, ExtraTreesRegressor])
def test_forest_regressor_means_medians_and_out_of_bag_per_output(forest_class):
    X, y = multi_output_data("regression")
    forest = forest_class(n_estimators=11, random_state=0, bootstrap=True,
                          oob_score=True).fit(X, y)
    members = np.stack([member.predict(X) for member in forest.estimators_])
    assert_rounding_close(forest.predict(X), members.mean(axis=0), scale=data_scale(y))
    assert forest.oob_prediction_.shape == (160, 2)
    left_out = np.ones((11, 160), dtype=bool)
    for index, drawn in enumerate(forest.estimators_samples_):
        left_out[index, drawn] = False
    covered = left_out.any(axis=0)
    by_members = (members * left_out[:, :, None]).sum(axis=0)[covered] / left_out.sum(
        axis=0)[covered, None]
    assert_rounding_close(forest.oob_prediction_[covered], by_members, scale=data_scale(y))
    assert np.isnan(forest.oob_prediction_[~covered]).all()
    r2 = [1 - ((y[covered, k] - forest.oob_prediction_[covered, k]) ** 2).sum()
          / ((y[covered, k] - y[covered, k].mean()) ** 2).sum() for k in range(2)]
    assert_rounding_close(forest.oob_score_, np.mean(r2))
    median = forest_class(n_estimators=11, random_state=0, bootstrap=True,
                          aggregation="median").fit(X, y)
    np.testing.assert_array_equal(median.predict(X), np.median(members, axis=0))


def test_a_callable_oob_score_scores_the_out_of_bag_predictions():
    X, y = multi_output_data("regression")
    calls = []

    def largest_error(truth, predicted):
        calls.append(predicted.shape)
        return float(np.max(np.abs(truth - predicted)))

    forest = RandomForestRegressor(n_estimators=15, random_state=0,
                                   oob_score=largest_error).fit(X, y[:, 0])
    covered = ~np.isnan(forest.oob_prediction_)
    assert forest.oob_score_ == np.max(np.abs(y[covered, 0] - forest.oob_prediction_[covered]))
    assert calls == [(covered.sum(),)]


def test_bagging_regressor_predicts_every_output():
    X, y = multi_output_data("regression")
    bagging = BaggingRegressor(DecisionTreeRegressor(), n_estimators=7, random_state=0,
                               oob_score=True).fit(X, y)
    members = np.stack([member.predict(X[:, features]) for member, features
                        in zip(bagging.estimators_, bagging.estimators_features_)])
    assert_rounding_close(bagging.predict(X), members.mean(axis=0), scale=data_scale(y))
    assert bagging.oob_prediction_.shape == (160, 2)
    median = BaggingRegressor(DecisionTreeRegressor(), n_estimators=7, random_state=0,
                              aggregation="median").fit(X, y)
    np.testing.assert_array_equal(median.predict(X), np.median(members, axis=0))


def test_multi_output_forests_round_trip_through_pickle():
    X, y = multi_output_data("classification")
    forest = RandomForestClassifier(n_estimators=5, random_state=0).fit(X, y)
    loaded = pickle.loads(pickle.dumps(forest))
    np.testing.assert_array_equal(loaded.predict(X), forest.predict(X))
    for mine, other in zip(loaded.predict_proba(X), forest.predict_proba(X)):
        np.testing.assert_array_equal(mine, other)


@pytest.mark.parametrize("booster", [AdaBoostClassifier(), AdaBoostRegressor()])
def test_adaboost_refuses_several_outputs(booster):
    X, y = multi_output_data("regression")
    with pytest.raises(ValueError, match="1-D"):
        booster.fit(X, (y > 1).astype(int) if isinstance(booster, AdaBoostClassifier) else y)
