"""BaggingClassifier and BaggingRegressor: against the reference forest, with
scikit-learn estimators, and their parameters, randomness and errors."""

import pickle

import numpy as np
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin

from fasttree import (BaggingClassifier, BaggingRegressor, DecisionTreeClassifier,
                      DecisionTreeRegressor, NotFittedError)
from fasttree.reference import build_forest
from synthetic import regression_data
from tolerances import assert_rounding_close, data_scale, rounding_equal

N_FEATURES = 5


def classification_problem(n_samples, seed, n_classes=3):
    """Continuous features (no ties); the class depends nonlinearly on two of them."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n_samples, N_FEATURES))
    score = X[:, 0] * X[:, 1] + 0.5 * X[:, 2] + 0.3 * rng.normal(size=n_samples)
    y = np.digitize(score, np.quantile(score, np.linspace(0, 1, n_classes + 1)[1:-1]))
    return X, y


def regression_problem(n_samples, seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n_samples, N_FEATURES))
    return X, np.sin(2 * X[:, 0]) + X[:, 1] * X[:, 2] + 0.2 * rng.normal(size=n_samples)


def reference_forest(model, X, y, criterion, **tree_params):
    """The oracle grown on exactly the rows and features the members drew
    (sample weights act through the draws, so the counts are the members'
    only weights)."""
    counts = [np.bincount(rows, minlength=X.shape[0]) for rows in model.estimators_samples_]
    return build_forest(X.astype(np.float32), y, counts, criterion=criterion,
                        feature_subsets=model.estimators_features_, **tree_params)


SAMPLING = {
    "bootstrap": dict(),
    "subagging": dict(bootstrap=False, max_samples=0.5),
    "subspaces": dict(max_features=0.6),
    "subspaces_with_replacement": dict(max_features=4, bootstrap_features=True),
}


def check_draws(model, params, n_samples, weight_total=None):
    for rows, features in zip(model.estimators_samples_, model.estimators_features_):
        if params.get("bootstrap", True):
            assert rows.size == n_samples
        else:  # subagging: half the rows (or of the total weight), each once
            half = n_samples // 2 if weight_total is None else int(0.5 * weight_total)
            assert rows.size == np.unique(rows).size == half
        if not params.get("bootstrap_features", False):
            assert np.all(np.diff(features) > 0)
        assert features.size == {1.0: N_FEATURES, 0.6: 3, 4: 4}[params.get("max_features",
                                                                           1.0)]
    if params.get("bootstrap_features"):
        assert any(np.unique(f).size < f.size for f in model.estimators_features_)


# Tree-level tie rules: the compiled tree visits features in a random order
# and the oracle by index, so equally good splits may be chosen differently.
# Shallow trees with large leaves make equally good splits on different
# features unlikely, and continuous weights make a tie between two different
# partitions with equal class counts impossible, so classifiers get them.


@pytest.mark.parametrize("sampling", list(SAMPLING))
def test_classifier_matches_the_reference_forest(sampling):
    params = SAMPLING[sampling]
    X, y = classification_problem(160, seed=1)
    X_new, _ = classification_problem(100, seed=2)
    weight = np.random.default_rng(3).uniform(0.5, 2.0, y.size)
    tree_params = dict(max_depth=3, min_samples_leaf=12)
    model = BaggingClassifier(DecisionTreeClassifier(**tree_params), n_estimators=8,
                              oob_score=True, random_state=4, **params)
    model.fit(X, y, sample_weight=weight)
    check_draws(model, params, X.shape[0], weight.sum())
    oracle = reference_forest(model, X, y, "gini", n_classes=3, **tree_params)

    assert_rounding_close(model.predict_proba(X_new), oracle.predict_proba(X_new))
    np.testing.assert_array_equal(model.vote_fractions(X_new), oracle.vote_fractions(X_new))
    np.testing.assert_array_equal(model.predict(X_new),
                                  oracle.predict(X_new, voting="soft"))
    model.set_params(voting="hard")
    np.testing.assert_array_equal(model.predict(X_new),
                                  oracle.predict(X_new, voting="hard"))
    assert_rounding_close(model.oob_decision_function_, oracle.oob_decision_function())
    assert rounding_equal(model.oob_score_, oracle.oob_score(y))
    assert_rounding_close(model.feature_importances_, oracle.feature_importances())


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("sampling", list(SAMPLING))
def test_regressor_matches_the_reference_forest(sampling, weighted):
    params = SAMPLING[sampling]
    X, y = regression_problem(160, seed=5)
    X_new, _ = regression_problem(100, seed=6)
    weight = np.random.default_rng(3).uniform(0.5, 2.0, y.size) if weighted else None
    tree_params = dict(max_depth=3, min_samples_leaf=12)
    model = BaggingRegressor(DecisionTreeRegressor(**tree_params), n_estimators=7,
                             oob_score=True, random_state=7, **params)
    model.fit(X, y, sample_weight=weight)
    check_draws(model, params, X.shape[0], None if weight is None else weight.sum())
    oracle = reference_forest(model, X, y, "squared_error", **tree_params)

    scale = data_scale(y)
    assert_rounding_close(model.predict(X_new), oracle.predict(X_new), scale)
    model.set_params(aggregation="median")
    assert_rounding_close(model.predict(X_new), oracle.predict(X_new, aggregation="median"),
                          scale)
    assert_rounding_close(model.oob_prediction_, oracle.oob_prediction(), scale)
    assert rounding_equal(model.oob_score_, oracle.oob_score(y))
    assert_rounding_close(model.feature_importances_, oracle.feature_importances())


def test_bagged_stumps_beat_a_single_stump_on_a_band():
    # Class 1 is the band |x0| < 0.5: one cut can close only one of its sides,
    # but bootstrap samples disagree on which side, and averaging closes both.
    rng = np.random.default_rng(8)
    X = rng.normal(size=(1200, 3))
    y = (np.abs(X[:, 0]) < 0.5).astype(int)
    train, test = slice(0, 800), slice(800, None)
    stump = DecisionTreeClassifier(max_depth=1).fit(X[train], y[train])
    bagged = BaggingClassifier(DecisionTreeClassifier(max_depth=1), n_estimators=50,
                               random_state=0).fit(X[train], y[train])
    assert bagged.score(X[test], y[test]) > stump.score(X[test], y[test]) + 0.15


def test_default_members_are_full_fasttree_trees():
    X, y = classification_problem(120, seed=9)
    model = BaggingClassifier(random_state=0).fit(X, y)
    assert len(model.estimators_) == 10
    assert all(type(member) is DecisionTreeClassifier and member.max_depth is None
               for member in model.estimators_)
    regressor = BaggingRegressor(n_estimators=3, random_state=0).fit(*regression_problem(80, 0))
    assert all(type(member) is DecisionTreeRegressor for member in regressor.estimators_)


def test_scikit_learn_estimators_with_and_without_sample_weight():
    from sklearn.linear_model import LogisticRegression
    from sklearn.neighbors import KNeighborsClassifier

    rng = np.random.default_rng(10)
    X = rng.normal(size=(300, 4))
    y = np.where(X[:, 0] + X[:, 1] > 0, "yes", "no")
    logistic = BaggingClassifier(LogisticRegression(), n_estimators=5, max_features=0.75,
                                 random_state=0).fit(X[:200], y[:200])
    assert all(isinstance(member, LogisticRegression) for member in logistic.estimators_)
    assert logistic.score(X[200:], y[200:]) > 0.85
    with pytest.raises(AttributeError, match="LogisticRegression"):
        logistic.feature_importances_  # noqa: B018

    # No sample_weight in KNeighborsClassifier.fit: the drawn rows are repeated.
    knn = BaggingClassifier(KNeighborsClassifier(n_neighbors=5), n_estimators=6,
                            oob_score=True, random_state=0).fit(X[:200], y[:200])
    for member, rows in zip(knn.estimators_, knn.estimators_samples_):
        assert member.n_samples_fit_ == rows.size == 200
    assert knn.score(X[200:], y[200:]) > 0.85
    assert abs(knn.oob_score_ - knn.score(X[200:], y[200:])) < 0.1
    # Its sample weights act through the draws: rows of weight 0 are never drawn.
    weight = np.where(np.arange(300) % 2 == 0, 1.0, 0.0)
    knn.fit(X, y, sample_weight=weight)
    for member, rows in zip(knn.estimators_, knn.estimators_samples_):
        assert member.n_samples_fit_ == rows.size == 300
        assert np.all(rows % 2 == 0)


def test_estimators_of_the_wrong_kind_are_refused():
    from sklearn.linear_model import LinearRegression, LogisticRegression

    X, y = classification_problem(50, seed=11)
    for bagger, wrong in [(BaggingClassifier, DecisionTreeRegressor()),
                          (BaggingClassifier, LinearRegression()),
                          (BaggingRegressor, DecisionTreeClassifier()),
                          (BaggingRegressor, LogisticRegression())]:
        with pytest.raises(ValueError, match=f"needs a .*{type(wrong).__name__} is a"):
            bagger(wrong).fit(X, y)
    with pytest.raises(ValueError, match="instance"):
        BaggingClassifier(DecisionTreeClassifier).fit(X, y)


def test_same_ensemble_whatever_n_jobs():
    X, y = classification_problem(200, seed=12)
    fits = [BaggingClassifier(n_estimators=12, max_features=0.6, random_state=3,
                              n_jobs=n_jobs).fit(X, y) for n_jobs in (1, 2, -1)]
    for other in fits[1:]:
        for mine, theirs in zip(fits[0].estimators_samples_, other.estimators_samples_):
            np.testing.assert_array_equal(mine, theirs)
        for mine, theirs in zip(fits[0].estimators_features_, other.estimators_features_):
            np.testing.assert_array_equal(mine, theirs)
        np.testing.assert_array_equal(fits[0].predict_proba(X), other.predict_proba(X))


def test_random_state_decides_the_draws():
    X, y = regression_problem(100, seed=13)
    first = BaggingRegressor(n_estimators=4, random_state=1).fit(X, y)
    again = BaggingRegressor(n_estimators=4, random_state=1).fit(X, y)
    other = BaggingRegressor(n_estimators=4, random_state=2).fit(X, y)
    np.testing.assert_array_equal(first.predict(X), again.predict(X))
    assert not np.array_equal(first.estimators_samples_[0], other.estimators_samples_[0])


def test_warm_start_equals_one_long_fit():
    X, y = classification_problem(150, seed=14)
    grown = BaggingClassifier(n_estimators=4, max_features=0.8, warm_start=True,
                              oob_score=True, random_state=5).fit(X, y)
    first_members = list(grown.estimators_)
    grown.set_params(n_estimators=9).fit(X, y)
    assert grown.estimators_[:4] == first_members
    whole = BaggingClassifier(n_estimators=9, max_features=0.8, oob_score=True,
                              random_state=5).fit(X, y)
    np.testing.assert_array_equal(grown.predict_proba(X), whole.predict_proba(X))
    np.testing.assert_array_equal(grown.oob_decision_function_,
                                  whole.oob_decision_function_)
    for mine, theirs in zip(grown.estimators_samples_, whole.estimators_samples_):
        np.testing.assert_array_equal(mine, theirs)
    with pytest.raises(ValueError, match="below"):
        grown.set_params(n_estimators=3).fit(X, y)
    with pytest.raises(ValueError, match="rows"):
        grown.set_params(n_estimators=12).fit(X[:100], y[:100])


def test_soft_and_hard_voting_and_vote_fractions():
    X, y = classification_problem(200, seed=15)
    model = BaggingClassifier(DecisionTreeClassifier(max_depth=2), n_estimators=7,
                              random_state=6).fit(X, y)
    fractions = model.vote_fractions(X)
    assert_rounding_close(fractions.sum(axis=1), 1.0)
    assert_rounding_close(fractions * 7, np.round(fractions * 7))
    votes = np.zeros_like(fractions)
    for member, features in zip(model.estimators_, model.estimators_features_):
        votes[np.arange(len(y)), np.searchsorted(model.classes_,
                                                 member.predict(X[:, features]))] += 1
    assert_rounding_close(fractions, votes / 7)
    soft = model.predict(X)
    np.testing.assert_array_equal(soft, model.classes_[np.argmax(model.predict_proba(X), 1)])
    hard = model.set_params(voting="hard").predict(X)
    np.testing.assert_array_equal(hard, model.classes_[np.argmax(fractions, axis=1)])
    assert np.any(soft != hard)


def test_without_predict_proba_soft_voting_falls_back_to_hard():
    from sklearn.svm import SVC

    X, y = classification_problem(150, seed=16)
    model = BaggingClassifier(SVC(), n_estimators=5, random_state=0).fit(X, y)
    fractions = model.vote_fractions(X)
    np.testing.assert_array_equal(model.predict_proba(X), fractions)
    np.testing.assert_array_equal(model.predict(X), model.classes_[np.argmax(fractions, 1)])


def test_members_missing_a_class_fill_their_own_columns():
    rng = np.random.default_rng(17)
    X = rng.normal(size=(60, 3))
    y = np.array(["a"] * 28 + ["b"] * 29 + ["rare"] * 3)
    model = BaggingClassifier(n_estimators=10, bootstrap=False, max_samples=0.2,
                              random_state=1).fit(X, y)
    assert any(len(member.classes_) < 3 for member in model.estimators_)
    expected = np.zeros((60, 3))
    for member, features in zip(model.estimators_, model.estimators_features_):
        columns = np.searchsorted(model.classes_, member.classes_)
        expected[:, columns] += member.predict_proba(X[:, features])
    assert_rounding_close(model.predict_proba(X), expected / 10)
    assert set(model.predict(X)) <= {"a", "b", "rare"}


def test_median_aggregation():
    X, y = regression_problem(150, seed=18)
    y[:5] += 50.0  # outliers pull some members' leaves far away
    model = BaggingRegressor(n_estimators=9, aggregation="median", random_state=2).fit(X, y)
    per_member = np.column_stack([member.predict(X[:, features]) for member, features in
                                  zip(model.estimators_, model.estimators_features_)])
    np.testing.assert_array_equal(model.predict(X), np.median(per_member, axis=1))
    mean = model.set_params(aggregation="mean").predict(X)
    assert_rounding_close(mean, per_member.mean(axis=1), data_scale(y))
    assert not np.allclose(mean, np.median(per_member, axis=1))


@pytest.mark.parametrize("params", [dict(), dict(bootstrap=False, max_samples=0.6)])
def test_out_of_bag_score_is_close_to_held_out_accuracy(params):
    X, y = classification_problem(900, seed=19)
    model = BaggingClassifier(n_estimators=30, oob_score=True, random_state=0, n_jobs=2,
                              **params).fit(X[:600], y[:600])
    assert abs(model.oob_score_ - model.score(X[600:], y[600:])) < 0.06
    assert model.oob_decision_function_.shape == (600, 3)
    X, y = regression_data(900, seed=20)  # smooth: R^2 on 300 rows is not too noisy
    regressor = BaggingRegressor(n_estimators=30, oob_score=True, random_state=0,
                                 **params).fit(X[:600], y[:600])
    assert abs(regressor.oob_score_ - regressor.score(X[600:], y[600:])) < 0.04


def test_rows_no_member_left_out_have_nan_out_of_bag_values():
    X, y = classification_problem(100, seed=22)
    model = BaggingClassifier(n_estimators=2, oob_score=True, random_state=0).fit(X, y)
    in_every_bag = np.all([np.isin(np.arange(100), rows)
                           for rows in model.estimators_samples_], axis=0)
    assert in_every_bag.any()
    assert np.isnan(model.oob_decision_function_[in_every_bag]).all()
    assert not np.isnan(model.oob_decision_function_[~in_every_bag]).any()


def test_pickle_keeps_the_fitted_ensemble():
    X, y = classification_problem(120, seed=23)
    model = BaggingClassifier(n_estimators=5, max_features=0.6, oob_score=True,
                              random_state=0).fit(X, y)
    loaded = pickle.loads(pickle.dumps(model))
    np.testing.assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))
    np.testing.assert_array_equal(loaded.estimators_samples_[2], model.estimators_samples_[2])
    assert loaded.oob_score_ == model.oob_score_


def test_pickle_keeps_an_ensemble_of_scikit_learn_members():
    from sklearn.linear_model import LogisticRegression, Ridge

    X, y = classification_problem(120, seed=25)
    model = BaggingClassifier(LogisticRegression(), n_estimators=4, max_features=0.75,
                              random_state=0).fit(X, y)
    loaded = pickle.loads(pickle.dumps(model))
    assert all(isinstance(member, LogisticRegression) for member in loaded.estimators_)
    np.testing.assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))
    X, y = regression_problem(80, 1)
    nested = BaggingRegressor(BaggingRegressor(Ridge(), n_estimators=2), n_estimators=2,
                              random_state=0).fit(X, y)
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(nested)).predict(X),
                                  nested.predict(X))


def test_a_model_file_still_refuses_members_from_other_libraries(tmp_path):
    from sklearn.linear_model import LogisticRegression

    X, y = classification_problem(60, seed=26)
    model = BaggingClassifier(LogisticRegression(), n_estimators=2, random_state=0).fit(X, y)
    with pytest.raises(TypeError, match="LogisticRegression"):
        model.save(tmp_path / "model.ftm")


def test_clone_get_params_and_grid_search():
    from sklearn.base import clone
    from sklearn.model_selection import GridSearchCV

    model = BaggingClassifier(DecisionTreeClassifier(max_depth=2), n_estimators=4)
    params = model.get_params(deep=True)
    assert params["estimator__max_depth"] == 2 and params["n_estimators"] == 4
    copy = clone(model)
    assert copy.estimator is not model.estimator
    assert copy.get_params()["estimator__max_depth"] == 2
    rng = np.random.default_rng(24)
    X = rng.normal(size=(150, 3))
    y = (X[:, 0] > 0) ^ (X[:, 1] > 0)  # needs depth 2 and both features
    search = GridSearchCV(model, {"estimator__max_depth": [1, 4], "max_features": [0.6, 1.0]},
                          cv=3).fit(X, y)
    assert search.best_params_ == {"estimator__max_depth": 4, "max_features": 1.0}
    assert search.best_estimator_.estimators_[0].max_depth == 4
    regression = GridSearchCV(BaggingRegressor(n_estimators=3),
                              {"aggregation": ["mean", "median"]}, cv=3)
    regression.fit(*regression_problem(90, 25))


def test_members_are_independent_clones_with_their_own_seeds():
    X, y = classification_problem(100, seed=26)
    template = DecisionTreeClassifier(max_features=2, random_state=0)
    model = BaggingClassifier(template, n_estimators=4, random_state=1).fit(X, y)
    assert not hasattr(template, "tree_")
    seeds = {member.random_state for member in model.estimators_}
    assert len(seeds) == 4 and len({id(m) for m in model.estimators_}) == 4


def test_verbose_reports_progress_on_standard_error(capsys):
    X, y = regression_problem(60, seed=27)
    BaggingRegressor(n_estimators=3, verbose=2, random_state=0).fit(X, y)
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert captured.out == ""
    assert len(lines) == 3 and "3/3 estimators fitted" in lines[-1]
    BaggingRegressor(n_estimators=3, verbose=1, random_state=0).fit(X, y)
    assert "3/3 estimators fitted" in capsys.readouterr().err.strip().splitlines()[-1]


@pytest.mark.parametrize("params, message", [
    (dict(n_estimators=0), "n_estimators"),
    (dict(max_samples=0.0), "max_samples"),
    (dict(max_samples=1.5, bootstrap=False), "max_samples"),
    (dict(max_samples=0), "max_samples"),
    (dict(max_samples=41, bootstrap=False), "must be <= n_samples"),
    (dict(max_features=0), "max_features"),
    (dict(max_features=1.2), "max_features"),
    (dict(max_features=N_FEATURES + 1), "exceeds the number of features"),
    (dict(bootstrap=False, oob_score=True), "oob_score"),
    (dict(bootstrap="yes"), "bootstrap"),
    (dict(voting="majority"), "voting"),
    (dict(n_jobs=0), "n_jobs"),
])
def test_invalid_classifier_parameters(params, message):
    X, y = classification_problem(40, seed=28)
    with pytest.raises(ValueError, match=message):
        BaggingClassifier(**params).fit(X, y)


def test_invalid_regressor_parameters_and_unfitted_use():
    X, y = regression_problem(40, seed=29)
    with pytest.raises(ValueError, match="aggregation"):
        BaggingRegressor(aggregation="mode").fit(X, y)
    model = BaggingRegressor(n_estimators=2)
    for use in (lambda: model.predict(X), lambda: model.estimators_samples_,
                lambda: model.feature_importances_):
        with pytest.raises(NotFittedError):
            use()
    model.fit(X, y)
    with pytest.raises(ValueError, match="3 features.*5 features"):
        model.predict(X[:, :3])
    with pytest.raises(NotFittedError):
        BaggingClassifier().predict_proba(X)


@pytest.mark.parametrize("max_samples, expected_draws", [(1.5, 60), (41, 41)])
def test_a_bootstrap_may_draw_more_rows_than_there_are(max_samples, expected_draws):
    X, y = classification_problem(40, seed=30)
    model = BaggingClassifier(n_estimators=3, max_samples=max_samples, random_state=0).fit(X, y)
    assert [rows.size for rows in model.estimators_samples_] == [expected_draws] * 3


def test_decision_function_is_the_members_mean_where_the_estimator_has_one():
    from sklearn.linear_model import LogisticRegression

    X, y = classification_problem(120, seed=31)
    model = BaggingClassifier(LogisticRegression(), n_estimators=4, max_features=0.5,
                              random_state=0).fit(X, y)
    expected = np.mean([member.decision_function(X[:, features]) for member, features in
                        zip(model.estimators_, model.estimators_features_)], axis=0)
    assert_rounding_close(model.decision_function(X), expected)
    assert not hasattr(BaggingClassifier(), "decision_function")
    assert not hasattr(BaggingClassifier().fit(X, y), "decision_function")
    assert hasattr(BaggingClassifier(LogisticRegression()), "decision_function")


def test_members_of_other_libraries_decide_on_nan_and_infinity_themselves():
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import FunctionTransformer
    from sklearn.tree import DecisionTreeClassifier as SklearnTree

    X, y = classification_problem(60, seed=32)
    X[3, 0], X[5, 1], X[8, 0] = np.inf, -np.inf, np.nan
    # The pipeline replaces what its tree would refuse: the members see finite rows.
    finite = FunctionTransformer(lambda rows: np.nan_to_num(rows, posinf=9.0, neginf=-9.0))
    model = BaggingClassifier(make_pipeline(finite, SklearnTree()), n_estimators=3,
                              random_state=0).fit(X, y)
    assert model.predict(X).shape == y.shape
    # Without the replacement the member refuses, and so does the ensemble.
    with pytest.raises(ValueError):
        BaggingClassifier(SklearnTree(), n_estimators=2, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="infinity"):
        BaggingClassifier(n_estimators=2, random_state=0).fit(X, y)


def test_members_draw_rows_in_proportion_to_the_sample_weights():
    X, y = classification_problem(100, seed=21)
    weight = np.where(np.arange(100) < 50, 1.0, 3.0)
    model = BaggingClassifier(DecisionTreeClassifier(max_depth=2), n_estimators=40,
                              random_state=0).fit(X, y, sample_weight=weight)
    drawn = np.bincount(np.concatenate(model.estimators_samples_), minlength=100)
    assert 2.5 < drawn[50:].sum() / drawn[:50].sum() < 3.5
    # A member is fit on its draw counts alone: the weights acted in the draw.
    member, rows = model.estimators_[0], model.estimators_samples_[0]
    refit = DecisionTreeClassifier(max_depth=2).fit(
        X[:, model.estimators_features_[0]], y,
        sample_weight=np.bincount(rows, minlength=100).astype(np.float64))
    np.testing.assert_array_equal(refit.tree_.threshold, member.tree_.threshold)


def test_a_fractional_max_samples_is_a_share_of_the_total_weight():
    X, y = classification_problem(100, seed=22)
    model = BaggingClassifier(max_samples=0.5, n_estimators=3, random_state=0)
    model.fit(X, y, sample_weight=np.full(100, 2.0))
    assert all(rows.size == 100 for rows in model.estimators_samples_)
    with pytest.warns(UserWarning, match=r"low number \(2\) of bootstrap samples"):
        model.fit(X, y, sample_weight=np.full(100, 0.05))


def test_weights_without_a_bootstrap_warn_and_cannot_draw_more_rows_than_there_are():
    X, y = classification_problem(100, seed=23)
    with pytest.warns(UserWarning, match="recommended to use bootstrap=True"):
        BaggingClassifier(bootstrap=False, max_samples=0.5, n_estimators=2).fit(
            X, y, sample_weight=np.ones(100))
    with pytest.raises(ValueError, match="max_samples=101 must be <= n_samples=100"):
        BaggingClassifier(bootstrap=False, max_samples=1.0, n_estimators=2).fit(
            X, y, sample_weight=np.r_[np.ones(99), 2.0])


# ------------------------------------------------------------ members of the user's own making

class RegressorEstimator(RegressorMixin, BaseEstimator):
    pass


class ClassifierEstimator(ClassifierMixin, BaseEstimator):
    pass


class TopTimesFirstFeature(RegressorEstimator):
    """Predicts the first feature times the largest target it was fit on."""

    def fit(self, X, y, sample_weight=None):
        self.top_ = float(np.max(y[sample_weight > 0] if sample_weight is not None else y))
        return self

    def predict(self, X):
        return X[:, 0] * self.top_


class RecordingWeighted(RegressorEstimator):
    """Remembers what its fit was given; predicts its weighted mean."""

    def fit(self, X, y, sample_weight=None):
        self.X_, self.y_, self.weight_ = X, y, sample_weight
        self.mean_ = float(np.average(y, weights=sample_weight))
        return self

    def predict(self, X):
        return np.full(X.shape[0], self.mean_)


class RecordingUnweighted(RegressorEstimator):
    """Remembers what its fit was given; its fit takes no sample_weight."""

    def fit(self, X, y):
        self.X_, self.y_ = X, y
        return self

    def predict(self, X):
        return np.full(X.shape[0], float(np.mean(self.y_)))


class TwoValuesPerRow(RegressorEstimator):
    def fit(self, X, y):
        return self

    def predict(self, X):
        return np.zeros((X.shape[0], 2))


class BuildsItsKind(RegressorEstimator):
    """Takes a class as a parameter and fits an instance of it."""

    def __init__(self, kind=DecisionTreeRegressor):
        self.kind = kind

    def fit(self, X, y):
        self.fitted_ = self.kind(max_depth=2).fit(X, y)
        return self

    def predict(self, X):
        return self.fitted_.predict(X)


class ClassShares(ClassifierEstimator):
    """Predicts the class shares of its training labels for every row, in the
    order of the labels' sorted values; it has no classes_."""

    def fit(self, X, y):
        labels, counts = np.unique(y, return_counts=True)
        self.labels_, self.shares_ = labels, counts / counts.sum()
        return self

    def predict_proba(self, X):
        return np.tile(self.shares_, (X.shape[0], 1))

    def predict(self, X):
        return np.full(X.shape[0], self.labels_[np.argmax(self.shares_)])


class PredictsAStranger(ClassifierEstimator):
    def fit(self, X, y):
        return self

    def predict(self, X):
        return np.full(X.shape[0], 99)


def test_a_mean_of_predictions_near_the_float64_limit_does_not_overflow():
    rng = np.random.default_rng(40)
    X = rng.uniform(-1.0, 1.0, size=(50, 2))
    X[0, 0], X[1, 0] = 1.0, -1.0
    y = np.finfo(np.float64).max * rng.uniform(0.9, 1.0, size=50)
    model = BaggingRegressor(TopTimesFirstFeature(), n_estimators=10,
                             random_state=0).fit(X, y)
    members = np.stack([member.predict(X[:, features]) for member, features
                        in zip(model.estimators_, model.estimators_features_)])
    # Each prediction divided first: no partial sum can overflow.
    expected = (members / 10).sum(axis=0)
    predicted = model.predict(X)
    assert np.all(np.isfinite(predicted))
    np.testing.assert_allclose(predicted, expected, rtol=1e-12, atol=0.0)
    assert predicted[0] > 0.8 * np.finfo(np.float64).max
    # Ordinary values take the plain mean.
    small = BaggingRegressor(TopTimesFirstFeature(), n_estimators=10,
                             random_state=0).fit(X, y / 1e300)
    assert_rounding_close(small.predict(X), expected / 1e300, scale=1e8)


def test_an_ensemble_of_one_member_predicts_as_that_member():
    X, y = classification_problem(80, seed=41)
    model = BaggingClassifier(n_estimators=1, random_state=0).fit(X, y)
    (member,), (features,) = model.estimators_, model.estimators_features_
    np.testing.assert_array_equal(model.predict_proba(X), member.predict_proba(X[:, features]))
    X, y = regression_problem(80, seed=41)
    regressor = BaggingRegressor(n_estimators=1, random_state=0).fit(X, y)
    (member,), (features,) = regressor.estimators_, regressor.estimators_features_
    np.testing.assert_array_equal(regressor.predict(X), member.predict(X[:, features]))


def test_features_drawn_with_replacement_to_full_width_are_each_members_own():
    X, y = regression_problem(120, seed=42)
    model = BaggingRegressor(DecisionTreeRegressor(max_depth=3), n_estimators=6,
                             bootstrap_features=True, random_state=3).fit(X, y)
    assert all(f.size == N_FEATURES for f in model.estimators_features_)
    assert any(np.unique(f).size < N_FEATURES for f in model.estimators_features_)
    members = np.stack([member.predict(X[:, features]) for member, features
                        in zip(model.estimators_, model.estimators_features_)])
    assert_rounding_close(model.predict(X), members.mean(axis=0), data_scale(y))


@pytest.mark.parametrize("max_features, expected", [(1, 1), (N_FEATURES, N_FEATURES),
                                                    (0.1, 1), (0.5, 2)])
def test_max_features_as_a_count_or_a_share_rounded_down_to_at_least_one(max_features,
                                                                         expected):
    X, y = classification_problem(60, seed=43)
    model = BaggingClassifier(n_estimators=4, max_features=max_features,
                              random_state=0).fit(X, y)
    assert [f.size for f in model.estimators_features_] == [expected] * 4
    assert all(member.n_features_in_ == expected for member in model.estimators_)


def test_out_of_bag_values_when_every_member_leaves_out_one_row():
    X, y = classification_problem(12, seed=44)
    model = BaggingClassifier(DecisionTreeClassifier(max_depth=2), n_estimators=40,
                              bootstrap=False, max_samples=11, oob_score=True,
                              random_state=0).fit(X, y)
    sums, counts = np.zeros((12, 3)), np.zeros(12)
    for member, features, rows in zip(model.estimators_, model.estimators_features_,
                                      model.estimators_samples_):
        (left_out,) = np.setdiff1d(np.arange(12), rows)
        columns = np.searchsorted(model.classes_, member.classes_)
        sums[left_out, columns] += member.predict_proba(X[[left_out]][:, features])[0]
        counts[left_out] += 1
    covered = counts > 0
    assert covered.sum() >= 10
    assert_rounding_close(model.oob_decision_function_[covered],
                          sums[covered] / counts[covered, None])
    assert np.isnan(model.oob_decision_function_[~covered]).all()
    expected = np.mean(np.argmax(sums[covered], axis=1) ==
                       np.searchsorted(model.classes_, y[covered]))
    assert model.oob_score_ == pytest.approx(expected)


def test_out_of_bag_values_of_members_without_probabilities_are_vote_shares():
    from sklearn.linear_model import RidgeClassifier

    X, y = classification_problem(90, seed=45)
    model = BaggingClassifier(RidgeClassifier(), n_estimators=8, max_features=0.6,
                              oob_score=True, random_state=0).fit(X, y)
    votes, counts = np.zeros((90, 3)), np.zeros(90)
    for member, features, rows in zip(model.estimators_, model.estimators_features_,
                                      model.estimators_samples_):
        left_out = np.setdiff1d(np.arange(90), rows)
        predicted = member.predict(X[left_out][:, features])
        votes[left_out, np.searchsorted(model.classes_, predicted)] += 1
        counts[left_out] += 1
    covered = counts > 0
    assert_rounding_close(model.oob_decision_function_[covered],
                          votes[covered] / counts[covered, None])


def test_members_with_sample_weight_see_every_row_and_others_their_rows_repeated():
    X, y = regression_problem(30, seed=46)
    weighted = BaggingRegressor(RecordingWeighted(), n_estimators=3, max_features=3,
                                random_state=0).fit(X, y)
    for member, features, rows in zip(weighted.estimators_, weighted.estimators_features_,
                                      weighted.estimators_samples_):
        # scikit-learn's way: every row, with how often it was drawn as its weight.
        np.testing.assert_array_equal(member.X_, X[:, features])
        np.testing.assert_array_equal(member.y_, y)
        np.testing.assert_array_equal(member.weight_, np.bincount(rows, minlength=30))
    plain = BaggingRegressor(RecordingUnweighted(), n_estimators=3, max_features=3,
                             random_state=0).fit(X, y)
    for member, features, rows in zip(plain.estimators_, plain.estimators_features_,
                                      plain.estimators_samples_):
        np.testing.assert_array_equal(member.X_, X[np.ix_(rows, features)])
        np.testing.assert_array_equal(member.y_, y[rows])


def test_members_get_their_own_seeds_at_every_depth_of_a_pipeline():
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import StandardScaler

    X, y = classification_problem(100, seed=47)
    pipeline = Pipeline([("scale", StandardScaler()),
                         ("tree", DecisionTreeClassifier(max_features=2, random_state=0))])
    model = BaggingClassifier(pipeline, n_estimators=5, random_state=1).fit(X, y)
    seeds = [member.named_steps["tree"].random_state for member in model.estimators_]
    assert len(set(seeds)) == 5 and 0 not in seeds
    # Many members: still no two alike (seeds come from the whole int32 range).
    many = BaggingClassifier(DecisionTreeClassifier(max_depth=1), n_estimators=60,
                             random_state=1).fit(X, y)
    assert len({member.random_state for member in many.estimators_}) == 60


@pytest.mark.parametrize("bagging_class", [BaggingClassifier, BaggingRegressor])
def test_members_are_told_which_of_their_features_are_categorical(bagging_class):
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(48)
    frame = pd.DataFrame({"a": rng.normal(size=80),
                          "colour": pd.Categorical(rng.choice(["red", "blue"], 80)),
                          "b": rng.normal(size=80),
                          "size": pd.Categorical(rng.choice(["s", "m", "l"], 80))})
    y = (frame["colour"] == "red").to_numpy().astype(int)
    model = bagging_class(n_estimators=6, max_features=2, random_state=0).fit(frame, y)
    categorical = np.array([False, True, False, True])
    for member, features in zip(model.estimators_, model.estimators_features_):
        np.testing.assert_array_equal(member.categorical_features, categorical[features])
    assert any(categorical[f].any() for f in model.estimators_features_)


@pytest.mark.parametrize("bagging_class", [BaggingClassifier, BaggingRegressor])
def test_defaults_are_scikit_learns_and_every_parameter_reads_back(bagging_class):
    import sklearn.ensemble

    ours = bagging_class().get_params()
    theirs = getattr(sklearn.ensemble, bagging_class.__name__)().get_params()
    shared = set(ours) & set(theirs)
    assert shared >= {"n_estimators", "max_samples", "max_features", "bootstrap",
                      "bootstrap_features", "oob_score", "warm_start", "n_jobs",
                      "random_state", "verbose"}
    assert {name: ours[name] for name in shared} == {name: theirs[name] for name in shared}
    assert ours["categorical_features"] == "from_dtype"
    given = dict(n_estimators=3, max_samples=0.5, max_features=0.4, bootstrap=False,
                 bootstrap_features=True, oob_score=True, warm_start=True, n_jobs=2,
                 random_state=7, verbose=1, categorical_features=[0])
    given.update(voting="hard") if bagging_class is BaggingClassifier else given.update(
        aggregation="median")
    params = bagging_class(**given).get_params()
    assert {name: params[name] for name in given} == given


def test_errors_name_the_ensemble_and_the_parameter():
    X, y = classification_problem(40, seed=49)
    with pytest.raises(ValueError, match="^BaggingClassifier: y has 30 entries"):
        BaggingClassifier().fit(X, y[:30])
    with pytest.raises(ValueError, match=r"^BaggingClassifier: y must be 1-D"):
        BaggingClassifier().fit(X, np.column_stack([y, y]))
    with pytest.raises(ValueError, match="^BaggingRegressor: y contains NaN"):
        BaggingRegressor().fit(X, np.full(40, np.nan))
    with pytest.raises(ValueError, match="The 'voting' parameter"):
        BaggingClassifier(voting="most").fit(X, y)
    with pytest.raises(ValueError, match="The 'aggregation' parameter"):
        BaggingRegressor(aggregation="mode").fit(X, y)
    with pytest.raises(ValueError, match="The 'max_features' parameter"):
        BaggingRegressor(max_features=0).fit(X, y)
    with pytest.raises(ValueError, match=r"^oob_score=True needs rows left out of the "
                                         r"members' samples: set bootstrap=True or "
                                         r"max_samples below 1.0 \(all rows\)$"):
        BaggingClassifier(bootstrap=False, oob_score=True).fit(X, y)
    model = BaggingClassifier(n_estimators=2, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="^BaggingClassifier: feature 0 holds values that "
                                         "are not numbers"):
        model.predict(np.full((2, N_FEATURES), "word", dtype=object))


def test_members_that_break_their_contract_are_refused_saying_how():
    X, y = regression_problem(40, seed=50)
    model = BaggingRegressor(TwoValuesPerRow(), n_estimators=2, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match=r"^member TwoValuesPerRow returned \(40, 2\) "
                                         r"predictions for 40 rows; 1 value\(s\) per row "
                                         r"needed$"):
        model.predict(X)
    X, y = classification_problem(40, seed=50)
    model = BaggingClassifier(PredictsAStranger(), n_estimators=2, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="^a member returned class labels that are not in "
                                         "classes_$"):
        model.predict(X)


def test_members_without_classes_give_probabilities_in_the_ensembles_class_order():
    X, y = classification_problem(150, seed=51)
    model = BaggingClassifier(ClassShares(), n_estimators=4, random_state=0).fit(X, y)
    expected = np.mean([np.bincount(y[rows], minlength=3) / rows.size
                        for rows in model.estimators_samples_], axis=0)
    assert_rounding_close(model.predict_proba(X), np.tile(expected, (150, 1)))


def test_a_parameter_that_is_a_class_is_passed_on_as_it_is():
    X, y = regression_problem(60, seed=52)
    model = BaggingRegressor(BuildsItsKind(), n_estimators=3, random_state=0).fit(X, y)
    assert all(member.kind is DecisionTreeRegressor for member in model.estimators_)
    assert all(isinstance(member.fitted_, DecisionTreeRegressor) for member in model.estimators_)


def test_log_probabilities_of_zero_are_minus_infinity_without_a_warning():
    import warnings

    X, y = classification_problem(90, seed=53)
    model = BaggingClassifier(DecisionTreeClassifier(max_depth=1), n_estimators=3,
                              random_state=0).fit(X, y)
    probabilities = model.predict_proba(X)
    assert np.any(probabilities == 0.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        log_probabilities = model.predict_log_proba(X)
    np.testing.assert_array_equal(log_probabilities[probabilities == 0.0], -np.inf)
    np.testing.assert_array_equal(log_probabilities, np.log(probabilities, where=probabilities > 0,
                                                            out=np.full_like(probabilities,
                                                                             -np.inf)))


class Float32Regressor(RegressorEstimator):
    def fit(self, X, y):
        self.mean_ = np.float32(np.mean(y))
        return self

    def predict(self, X):
        return np.full(X.shape[0], self.mean_, dtype=np.float32) + X[:, 0].astype(np.float32)


@pytest.mark.parametrize("aggregation", ["mean", "median"])
def test_predictions_are_float64_whatever_the_members_return(aggregation):
    X, y = regression_problem(50, seed=54)
    model = BaggingRegressor(Float32Regressor(), n_estimators=3, aggregation=aggregation,
                             random_state=0).fit(X, y)
    predicted = model.predict(X)
    assert predicted.dtype == np.float64
    members = np.stack([member.predict(X[:, features]).astype(np.float64) for member, features
                        in zip(model.estimators_, model.estimators_features_)])
    expected = members.mean(axis=0) if aggregation == "mean" else np.median(members, axis=0)
    assert_rounding_close(predicted, expected, data_scale(y))
