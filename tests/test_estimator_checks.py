"""scikit-learn's estimator checks (``check_estimator``) on every estimator.

Each check is its own test. The checks listed in ``EXPECTED_FAILURES`` cannot
apply to an estimator, for the reason written beside them; they are strict
expected failures, so one that starts to pass fails the run until its line
is removed.
"""

from sklearn.utils.estimator_checks import parametrize_with_checks

from fasttree import (AdaBoostClassifier, AdaBoostRegressor, BaggingClassifier,
                      BaggingRegressor, DecisionTreeClassifier, DecisionTreeRegressor,
                      ExtraTreeClassifier, ExtraTreeRegressor, ExtraTreesClassifier,
                      ExtraTreesQuantileRegressor, ExtraTreesRegressor, LinearExpert,
                      LogisticExpert, MixtureOfExpertsClassifier, MixtureOfExpertsRegressor,
                      RandomForestClassifier, RandomForestQuantileRegressor,
                      RandomForestRegressor, RuleListClassifier)

# Ensembles as scikit-learn checks its own: few members, so the checks run quickly.
ESTIMATORS = [DecisionTreeClassifier(), DecisionTreeRegressor(), ExtraTreeClassifier(),
              ExtraTreeRegressor(), RandomForestClassifier(n_estimators=5),
              RandomForestRegressor(n_estimators=5), ExtraTreesClassifier(n_estimators=5),
              ExtraTreesRegressor(n_estimators=5),
              BaggingClassifier(n_estimators=5), BaggingRegressor(n_estimators=5),
              AdaBoostClassifier(n_estimators=5), AdaBoostRegressor(n_estimators=5),
              RuleListClassifier(), RandomForestQuantileRegressor(n_estimators=5),
              ExtraTreesQuantileRegressor(n_estimators=5), LogisticExpert(), LinearExpert(),
              MixtureOfExpertsClassifier(), MixtureOfExpertsRegressor(),
              MixtureOfExpertsClassifier(DecisionTreeClassifier(max_depth=2), levels=2)]

# A weight of 2 and a repeated row are the same data to a tree, but not to a
# random draw of rows: the draws depend on the number of rows, so the two fits
# are different (equally valid) random models. scikit-learn lists the same
# checks as expected failures of its own forests, bagging and AdaBoost.
RANDOM_ROW_DRAWS = ("{name} draws rows at random: a weight of 2 and a repeated row change the "
                    "draws, so the two fits differ by chance, not by a fault")
WEIGHT_EQUIVALENCE = ["check_sample_weight_equivalence_on_dense_data",
                      "check_sample_weight_equivalence_on_sparse_data"]
EXPECTED_FAILURES = {
    **{name: dict.fromkeys(WEIGHT_EQUIVALENCE, RANDOM_ROW_DRAWS.format(name=name))
       for name in ("RandomForestClassifier", "RandomForestRegressor", "BaggingClassifier",
                    "BaggingRegressor", "AdaBoostRegressor")},
    # A mixture's initial split draws k-means++ centres among the rows.
    **{name: dict.fromkeys(WEIGHT_EQUIVALENCE, RANDOM_ROW_DRAWS.format(name=name)
                           + " (the k-means++ centres EM starts from are drawn among the rows)")
       for name in ("MixtureOfExpertsClassifier", "MixtureOfExpertsRegressor")},
    # The rule list holds out a random third of the rows to prune its rules.
    "RuleListClassifier": dict.fromkeys(
        WEIGHT_EQUIVALENCE, RANDOM_ROW_DRAWS.format(name="RuleListClassifier")
        + " (it holds out a random share of the rows to prune its rules)"),
}


def expected_failures(estimator):
    return EXPECTED_FAILURES.get(type(estimator).__name__, {})


@parametrize_with_checks(ESTIMATORS, expected_failed_checks=expected_failures,
                         xfail_strict=True)
def test_passes_scikit_learns_estimator_check(estimator, check):
    check(estimator)
