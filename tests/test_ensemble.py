"""The machinery every ensemble shares (``fasttree._ensemble``)."""

import numpy as np
import pytest

from fasttree import (AdaBoostClassifier, AdaBoostRegressor, BaggingClassifier,
                      BaggingRegressor, DecisionTreeClassifier, DecisionTreeRegressor,
                      ExtraTreesClassifier, ExtraTreesRegressor, RandomForestClassifier,
                      RandomForestRegressor)
from fasttree._ensemble import map_members, member_seeds
from fasttree._out_of_bag import OutOfBagSums
from fasttree._progress import Progress
from fasttree._validation import NotFittedError
from synthetic import classification_data

ENSEMBLES = [AdaBoostClassifier, AdaBoostRegressor, BaggingClassifier, BaggingRegressor,
             RandomForestClassifier, RandomForestRegressor]


@pytest.mark.parametrize("ensemble_class", ENSEMBLES)
def test_a_fitted_ensemble_is_the_sequence_of_its_members(ensemble_class):
    X, y = classification_data(n_samples=120, seed=1)
    ensemble = ensemble_class(n_estimators=4, random_state=0).fit(X, y)
    assert len(ensemble) == len(ensemble.estimators_) >= 1
    assert ensemble[0] is ensemble.estimators_[0]
    assert ensemble[-1] is ensemble.estimators_[-1]
    assert ensemble[:2] == ensemble.estimators_[:2]
    assert list(ensemble) == list(ensemble.estimators_)


@pytest.mark.parametrize("ensemble_class", ENSEMBLES)
def test_an_unfitted_ensemble_is_true_but_has_no_members(ensemble_class):
    ensemble = ensemble_class()
    assert bool(ensemble)
    with pytest.raises(NotFittedError):
        len(ensemble)
    with pytest.raises(NotFittedError):
        ensemble[0]


@pytest.mark.parametrize("n_threads", [1, 3])
def test_members_come_back_in_order_with_one_progress_line_each(n_threads, capsys):
    assert map_members(lambda index: index * index, range(5), n_threads) == [0, 1, 4, 9, 16]
    assert capsys.readouterr().out == ""
    map_members(lambda index: index, range(3), n_threads,
                Progress("Forest", "trees built", 3, verbose=2))
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 3 and lines[-1].startswith("Forest: 3/3 trees built, ")


def test_member_seeds_depend_on_the_ensemble_seed_and_the_position_only():
    assert member_seeds(7, 3) == member_seeds(7, 3)
    assert len({member_seeds(7, 3), member_seeds(7, 4), member_seeds(8, 3)}) == 3


def test_out_of_bag_sums_average_over_the_members_that_left_a_row_out():
    sums = OutOfBagSums(4)
    sums.add(np.array([0, 2]), np.array([[1.0, 0.0], [0.5, 0.5]]))
    sums.add(np.array([0]), np.array([[0.0, 1.0]]))
    averages = sums.averages()
    np.testing.assert_array_equal(averages[[0, 2]], [[0.5, 0.5], [0.5, 0.5]])
    assert np.isnan(averages[[1, 3]]).all()
    np.testing.assert_array_equal(sums.counts, [2, 0, 1, 0])


MEMBER_ENSEMBLES = ENSEMBLES[:4]  # those that copy an estimator given as ``estimator``


def data_for(ensemble_class, n_samples=60):
    X, y = classification_data(n_samples=n_samples, seed=3)
    return X, (y if ensemble_class._estimator_type == "classifier" else X[:, 0])


@pytest.mark.parametrize("ensemble_class", MEMBER_ENSEMBLES)
@pytest.mark.parametrize("estimator, message", [
    ("bogus", r"estimator must be an estimator instance with fit, predict and get_params "
              r"\(or None for \w+'s default\); got 'bogus' of type str, which lacks fit, "
              "predict, get_params"),
    (42, "got 42 of type int, which lacks fit, predict, get_params"),
    (DecisionTreeClassifier, r"not the class DecisionTreeClassifier; write "
                             r"DecisionTreeClassifier\(\)"),
    (DecisionTreeRegressor, r"not the class DecisionTreeRegressor; write "
                            r"DecisionTreeRegressor\(\)")],
    ids=["str", "int", "classifier-class", "regressor-class"])
def test_an_estimator_that_is_no_estimator_instance_is_refused_saying_what_to_pass(
        ensemble_class, estimator, message):
    X, y = data_for(ensemble_class)
    with pytest.raises(ValueError, match=message):
        ensemble_class(estimator=estimator, n_estimators=2).fit(X, y)


@pytest.mark.parametrize("ensemble_class", MEMBER_ENSEMBLES)
def test_an_estimator_of_the_other_kind_is_refused(ensemble_class):
    X, y = data_for(ensemble_class)
    classifier = ensemble_class._estimator_type == "classifier"
    wrong = DecisionTreeRegressor() if classifier else DecisionTreeClassifier()
    kind = "regressor" if classifier else "classifier"
    with pytest.raises(ValueError, match=f"needs a {ensemble_class._estimator_type} as its "
                                         f"estimator, but {type(wrong).__name__} is a {kind}"):
        ensemble_class(estimator=wrong, n_estimators=2).fit(X, y)


@pytest.mark.parametrize("ensemble_class", ENSEMBLES)
@pytest.mark.parametrize("n_estimators", [2**31, 2**63, 10**30])
def test_more_members_than_memory_could_hold_are_refused_by_name(ensemble_class,
                                                                 n_estimators):
    X, y = data_for(ensemble_class)
    with pytest.raises(ValueError, match=r"The 'n_estimators' parameter must be an int in "
                                         r"the range \[1, 2147483647\]"):
        ensemble_class(n_estimators=n_estimators).fit(X, y)


DRAWING_ENSEMBLES = [BaggingClassifier, BaggingRegressor, RandomForestClassifier,
                     RandomForestRegressor, ExtraTreesClassifier, ExtraTreesRegressor]


@pytest.mark.parametrize("ensemble_class", DRAWING_ENSEMBLES)
@pytest.mark.parametrize("max_samples, weight, message", [
    (10**9, None, r"max_samples=1,000,000,000 asks every member to draw that many rows"),
    (2**24 + 1, None, r"max_samples=16,777,217 asks every member to draw that many rows"),
    (1e9, None, r"max_samples=1000000000.0 of X's rows asks every member to draw 6e\+10 rows"),
    (1e308, None, r"max_samples=1e\+308 of X's rows asks every member to draw inf rows"),
    (1.0, 1e12, r"max_samples=1.0 of the total sample weight asks every member to draw "
                r"6e\+13 rows")],
    ids=["count", "one-past-the-bound", "fraction", "infinite-fraction", "weight-fraction"])
def test_more_draws_than_the_bound_are_refused_before_any_is_made(ensemble_class,
                                                                   max_samples, weight,
                                                                   message):
    X, y = data_for(ensemble_class)
    ensemble = ensemble_class(n_estimators=2, bootstrap=True, max_samples=max_samples)
    weights = None if weight is None else np.full(X.shape[0], weight)
    with pytest.raises(ValueError, match=message + r"; a member draws at most as many rows "
                                                   r"as X has \(60\) or 16,777,216, whichever"
                                                   r" is more .*pass a smaller max_samples"):
        ensemble.fit(X, y, sample_weight=weights)


@pytest.mark.parametrize("ensemble_class", [BaggingRegressor, RandomForestRegressor])
def test_a_member_may_draw_up_to_the_bound(ensemble_class):
    X, y = data_for(ensemble_class)
    ensemble = ensemble_class(n_estimators=1, max_samples=2**24, random_state=0).fit(X, y)
    assert ensemble.estimators_samples_[0].size == 2**24


def other_ys(ensemble_class, X, y):
    """(first y, y of the warm start, how the error names both) for y's a
    warm start cannot add members for."""
    if ensemble_class._estimator_type == "regressor":
        one, two = X[:, 0], X[:, :2]
        cases = [(one, two, "1 output, but this y has 2 outputs"),
                 (two, one, "2 outputs, but this y has 1 output"),
                 (two, X[:, :3], "2 outputs, but this y has 3 outputs")]
    else:
        cases = [(y, y + 5, r"1 output, of classes \[0, 1\], but this y has 1 output, of "
                            r"classes \[5, 6\]"),
                 (y, np.where(y == 1, "b", "a"), r"1 output, of classes \[0, 1\], but this "
                                                 r"y has 1 output, of classes \['a', 'b'\]")]
        if ensemble_class is not BaggingClassifier:  # bagging learns one output only
            both = np.column_stack([y, 1 - y])
            cases += [(y, both, r"1 output, of classes \[0, 1\], but this y has 2 outputs, "
                                r"of classes \[0, 1\] and \[0, 1\]"),
                      (both, y, r"2 outputs, of classes \[0, 1\] and \[0, 1\], but this "
                                r"y has 1 output, of classes \[0, 1\]")]
    return cases


@pytest.mark.parametrize("ensemble_class", DRAWING_ENSEMBLES)
def test_a_warm_start_on_a_y_of_other_classes_or_outputs_is_refused_at_fit(ensemble_class):
    X, y = data_for(ensemble_class)
    for first, second, described in other_ys(ensemble_class, X, (y == 1).astype(int)):
        ensemble = ensemble_class(n_estimators=3, warm_start=True, random_state=0)
        ensemble.fit(X, first)
        before = ensemble.predict(X)
        ensemble.set_params(n_estimators=6)
        with pytest.raises(ValueError, match=f"warm_start=True adds members to the "
                                             f"{ensemble_class.__name__} fitted on a y of "
                                             f"{described}: fit on a y like the first, or set "
                                             "warm_start=False to fit anew"):
            ensemble.fit(X, second)
        assert len(ensemble.estimators_) == 3
        np.testing.assert_array_equal(ensemble.predict(X), before)


ALL_ENSEMBLES = ENSEMBLES + [ExtraTreesClassifier, ExtraTreesRegressor]


def fitted_ensemble(ensemble_class):
    X, y = data_for(ensemble_class)
    return ensemble_class(n_estimators=4, random_state=0).fit(X, y), X, y


@pytest.mark.parametrize("ensemble_class", ALL_ENSEMBLES)
def test_a_member_of_the_other_kind_put_in_estimators_is_refused_at_predict(ensemble_class):
    ensemble, X, y = fitted_ensemble(ensemble_class)
    classifier = ensemble_class._estimator_type == "classifier"
    foreign = (DecisionTreeRegressor() if classifier else DecisionTreeClassifier()).fit(
        X, X[:, 1] if classifier else (X[:, 1] > 0).astype(int))
    ensemble.estimators_[1] = foreign
    forest = hasattr(ensemble, "_trees")
    what = (rf"estimators_\[1\] \({type(foreign).__name__}\) is not the tree the forest grew "
            "there" if forest
            else rf"estimators_\[1\] is a {type(foreign).__name__} \(a "
                 rf"{'regressor' if classifier else 'classifier'}\), not a fitted "
                 rf"{ensemble_class._estimator_type}")
    message = (f"{ensemble_class.__name__}.estimators_ was changed after fit: {what}.*Refit "
               "the ensemble rather than edit its members")
    with pytest.raises(ValueError, match=message):
        ensemble.predict(X)
    with pytest.raises(ValueError, match=message):
        ensemble.feature_importances_  # noqa: B018


@pytest.mark.parametrize("ensemble_class", ALL_ENSEMBLES)
def test_a_member_that_cannot_predict_put_in_estimators_is_refused_at_predict(ensemble_class):
    ensemble, X, _ = fitted_ensemble(ensemble_class)
    ensemble.estimators_[0] = "a tree"
    with pytest.raises(ValueError, match=r"estimators_ was changed after fit: estimators_\[0\]"):
        ensemble.predict(X)


@pytest.mark.parametrize("forest_class", ALL_ENSEMBLES[4:])
def test_a_forest_whose_estimators_were_cut_after_fit_refuses_to_predict(forest_class):
    forest, X, _ = fitted_ensemble(forest_class)
    forest.estimators_ = forest.estimators_[:2]
    with pytest.raises(ValueError, match="it holds 2 members, but the forest grew 4 trees and "
                                         "predicts with them all"):
        forest.predict(X)
    with pytest.raises(ValueError, match="it holds 2 members"):
        forest.set_params(warm_start=True, n_estimators=6).fit(X, _)


@pytest.mark.parametrize("ensemble_class", ENSEMBLES[2:])
def test_a_warm_start_without_more_estimators_warns_and_fits_nothing(ensemble_class):
    X, y = classification_data(n_samples=80, seed=2)
    # Half the features: bagging's members each see their own subset.
    ensemble = ensemble_class(n_estimators=3, warm_start=True, max_features=0.5,
                              random_state=0).fit(X, y)
    members = list(ensemble)
    before = ensemble.predict(X)
    with pytest.warns(UserWarning, match="without increasing n_estimators"):
        ensemble.fit(X, y)
    assert len(members) == 3 and len(ensemble.estimators_) == 3
    assert all(new is old for new, old in zip(ensemble.estimators_, members, strict=True))
    np.testing.assert_array_equal(ensemble.predict(X), before)


@pytest.mark.parametrize("ensemble_class", ENSEMBLES[2:])
def test_rows_that_no_member_left_out_are_warned_of_and_left_out(ensemble_class):
    X, y = classification_data(n_samples=80, seed=2)
    with pytest.warns(UserWarning, match="Some inputs do not have OOB scores") as caught:
        ensemble = ensemble_class(n_estimators=2, oob_score=True, random_state=0).fit(X, y)
    oob = getattr(ensemble, "oob_decision_function_", getattr(ensemble, "oob_prediction_", None))
    left_out = np.isnan(oob).reshape(len(y), -1).any(axis=1)
    assert left_out.any() and np.isfinite(ensemble.oob_score_)
    # scikit-learn's sentence, then how many rows and why; rows without an
    # estimate (0 / 0) raise no numpy warning.
    assert [warning.category for warning in caught] == [UserWarning]
    assert str(caught[0].message) == (
        "Some inputs do not have OOB scores. This probably means too few estimators were "
        "used to compute any reliable oob estimates "
        f"({np.count_nonzero(left_out)} rows were drawn by every member, so the "
        "out-of-bag estimates leave them out).")


def test_out_of_bag_sums_refuse_an_estimate_without_out_of_bag_rows():
    with pytest.raises(ValueError, match="^no training row was left out by any member: too few "
                                         "estimators for an out-of-bag estimate$"):
        OutOfBagSums(3, 1).covered()


@pytest.mark.parametrize("backend", ["threading", "loky"])
def test_a_joblib_backend_the_user_sets_runs_the_members_and_changes_nothing(backend):
    joblib = pytest.importorskip("joblib")
    from fasttree import BaggingRegressor, RandomForestClassifier
    from fasttree._ensemble import user_joblib_backend

    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 4))
    y = (X[:, 0] + X[:, 1] > 0).astype(int)
    forest = RandomForestClassifier(n_estimators=6, n_jobs=2, random_state=0).fit(X, y)
    bagging = BaggingRegressor(n_estimators=4, random_state=0).fit(X, X[:, 2])
    assert user_joblib_backend() is None
    with joblib.parallel_backend(backend, n_jobs=2):
        assert user_joblib_backend() is not None
        forest_there = RandomForestClassifier(n_estimators=6, n_jobs=2,
                                              random_state=0).fit(X, y)
        bagging_there = BaggingRegressor(n_estimators=4, random_state=0).fit(X, X[:, 2])
    np.testing.assert_array_equal(forest_there.predict_proba(X), forest.predict_proba(X))
    np.testing.assert_array_equal(bagging_there.predict(X), bagging.predict(X))
