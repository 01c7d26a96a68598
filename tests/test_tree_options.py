"""The trees' option checks and resolved limits: every refused parameter's
message in full, the values at the edges of each range, the limits a
fraction or a name resolves to, and the options that change how a tree is
grown (categories, monotonic constraints, the random splitter, the criterion
of a multiway tree, its missing values)."""

import math
import warnings

import numpy as np
import pytest
from sklearn.tree import DecisionTreeClassifier as SklearnClassifier
from sklearn.tree import _criterion as sklearn_criteria

from fasttree import (DecisionTreeClassifier, DecisionTreeRegressor, ExtraTreeClassifier,
                      RandomForestClassifier, RandomForestRegressor)
from fasttree._validation import InvalidParameterError


def three_feature_data(n_samples=60, seed=0):
    """Continuous features; a two-class and a three-class target."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n_samples, 3))
    return X, (X[:, 0] > 0).astype(int), np.arange(n_samples) % 3


def refusal(estimator, X, y, error=ValueError, sample_weight=None):
    """The message of the error (of type ``error``) that ``estimator.fit`` raises."""
    with pytest.raises(error) as info:
        estimator.fit(X, y, sample_weight=sample_weight)
    return str(info.value)


def must_be(name, expected, value):
    """scikit-learn's wording for a parameter out of its range."""
    return f"The {name!r} parameter must be {expected}. Got {value!r} instead."


# -- hyper-parameters out of range: scikit-learn's messages -----------------------

COUNT_OR_FRACTION = "an int in the range [{}, inf) or a float in the range (0.0, 1.0{}"


@pytest.mark.parametrize("name, value, expected", [
    ("criterion", "bogus",
     "a str among ['entropy', 'gain_ratio', 'gini', 'log_loss', 'misclassification']"),
    ("criterion", 3,
     "a str among ['entropy', 'gain_ratio', 'gini', 'log_loss', 'misclassification']"),
    ("max_depth", 0, "an int in the range [1, inf) or None"),
    ("max_depth", 2.0, "an int in the range [1, inf) or None"),
    ("min_samples_split", 1, COUNT_OR_FRACTION.format(2, "]")),
    ("min_samples_split", 1.5, COUNT_OR_FRACTION.format(2, "]")),
    ("min_samples_leaf", 0, COUNT_OR_FRACTION.format(1, ")")),
    ("min_samples_leaf", 1.0, COUNT_OR_FRACTION.format(1, ")")),
    ("min_weight_fraction_leaf", 0.7, "a float in the range [0.0, 0.5]"),
    ("min_weight_fraction_leaf", -0.1, "a float in the range [0.0, 0.5]"),
    ("min_weight_fraction_leaf", "0.1", "a float in the range [0.0, 0.5]"),
    ("min_weight_fraction_leaf", True, "a float in the range [0.0, 0.5]"),
    ("min_impurity_decrease", -1.0, "a float in the range [0.0, inf)"),
    ("min_impurity_decrease", math.inf, "a float in the range [0.0, inf)"),
    ("min_impurity_decrease", math.nan, "a float in the range [0.0, inf)"),
    ("min_impurity_decrease", True, "a float in the range [0.0, inf)"),
    ("min_impurity_decrease", "a", "a float in the range [0.0, inf)"),
    ("ccp_alpha", -0.5, "a float in the range [0.0, inf)"),
    ("ccp_alpha", math.inf, "a float in the range [0.0, inf)"),
    ("max_leaf_nodes", 1, "an int in the range [2, inf) or None"),
    ("max_leaf_nodes", 3.0, "an int in the range [2, inf) or None"),
    ("splitter", "bogus", "a str among {'best', 'hist', 'random'}"),
    ("splitter", 5, "a str among {'best', 'hist', 'random'}"),
    ("max_features", 0, COUNT_OR_FRACTION.format(1, "]")),
], ids=lambda value: repr(value))
def test_a_parameter_out_of_range_is_refused_in_scikit_learns_words(name, value, expected):
    X, y, _ = three_feature_data()
    message = refusal(DecisionTreeClassifier(**{name: value}), X, y, InvalidParameterError)
    assert message == must_be(name, expected, value)


def test_the_regressor_names_its_own_criteria_when_refusing_one():
    X, _, _ = three_feature_data()
    message = refusal(DecisionTreeRegressor(criterion="gini"), X, X[:, 0],
                      InvalidParameterError)
    assert message == must_be(
        "criterion", "a str among ['absolute_error', 'friedman_mse', 'poisson', "
        "'quantile', 'squared_error']", "gini")


@pytest.mark.parametrize("max_features, message", [
    ("bogus", "max_features must be an int, a float in (0, 1], 'sqrt', 'log2' or None; "
              "got 'bogus'"),
    (4, "max_features=4 exceeds the number of features (3)"),
])
def test_max_features_beyond_the_features_or_unnamed_is_refused(max_features, message):
    X, y, _ = three_feature_data()
    assert refusal(DecisionTreeClassifier(max_features=max_features), X, y) == message


# -- the edges of each range are accepted ------------------------------------------

@pytest.mark.parametrize("max_features, expected", [
    ("sqrt", 1), ("log2", 1), (1, 1), (3, 3), (0.5, 1)])
def test_max_features_on_three_features_resolves_to_a_count(max_features, expected):
    # sqrt(3) and log2(3) are below 2: one feature, not two.
    X, y, _ = three_feature_data()
    tree = DecisionTreeClassifier(max_features=max_features, random_state=0).fit(X, y)
    assert tree.max_features_ == expected


def noisy_regression(n_samples=40, seed=1):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n_samples, 2))
    return X, X[:, 0] + rng.normal(size=n_samples)


def same_nodes(first, second):
    a, b = first.tree_, second.tree_
    return (a.node_count == b.node_count
            and np.array_equal(a.children_left, b.children_left)
            and np.array_equal(a.feature, b.feature)
            and np.array_equal(a.threshold, b.threshold))


def test_a_fraction_of_min_samples_split_is_that_share_of_the_rows_rounded_up():
    X, y = noisy_regression()
    for fraction in (0.3, 0.51):
        count = math.ceil(fraction * X.shape[0])
        grown = DecisionTreeRegressor(min_samples_split=fraction).fit(X, y)
        assert same_nodes(grown, DecisionTreeRegressor(min_samples_split=count).fit(X, y))
        # The limit binds: a node of count - 1 rows would have been split.
        assert not same_nodes(grown, DecisionTreeRegressor(min_samples_split=2).fit(X, y))
        smallest_split = grown.tree_.n_node_samples[grown.tree_.children_left >= 0].min()
        assert smallest_split >= count


def test_tiny_fractions_of_min_samples_split_and_leaf_are_the_smallest_counts():
    # ceil(1e-9 * 40) is 1: a split still needs 2 rows, a leaf 1.
    X, y = noisy_regression()
    full = DecisionTreeRegressor().fit(X, y)
    inner = full.tree_.children_left >= 0
    assert full.tree_.n_node_samples[inner].min() == 2
    assert full.tree_.n_node_samples[~inner].min() == 1
    assert same_nodes(DecisionTreeRegressor(min_samples_split=1e-9).fit(X, y), full)
    assert same_nodes(DecisionTreeRegressor(min_samples_leaf=1e-9).fit(X, y), full)


def test_min_weight_fraction_leaf_of_one_half_is_accepted_and_keeps_half_in_each_leaf():
    X, y = noisy_regression()
    tree = DecisionTreeRegressor(min_weight_fraction_leaf=0.5).fit(X, y).tree_
    leaves = tree.children_left < 0
    assert (tree.weighted_n_node_samples[leaves] >= 0.5 * X.shape[0]).all()


def test_min_impurity_decrease_of_a_classifier_is_compared_with_the_gain_as_given():
    # Gini's gain of the root split of [0, 0, 1, 1] is 0.5 - 0 = 0.5.
    X = np.arange(4.0).reshape(-1, 1)
    y = np.array([0, 0, 1, 1])
    assert DecisionTreeClassifier(min_impurity_decrease=0.45).fit(X, y).tree_.node_count == 3
    assert DecisionTreeClassifier(min_impurity_decrease=0.55).fit(X, y).tree_.node_count == 1


def test_a_ccp_alpha_below_one_prunes_a_classifier_as_scikit_learn_does():
    # Gini impurities are below 1, so are all of a classifier's alphas.
    rng = np.random.default_rng(3)
    X = rng.normal(size=(200, 4))
    y = (X[:, 0] + 0.8 * rng.normal(size=200) > 0).astype(int)
    full = DecisionTreeClassifier().fit(X, y).get_n_leaves()
    for alpha in (0.01, 0.02, 0.05):
        ours = DecisionTreeClassifier(ccp_alpha=alpha).fit(X, y)
        theirs = SklearnClassifier(ccp_alpha=alpha, random_state=0).fit(X, y)
        assert ours.get_n_leaves() == theirs.get_n_leaves() < full


def test_a_regressor_given_targets_of_a_huge_spread_reports_its_weights_unscaled():
    # A spread of 1e150 over 50 unit weights passes 2**500: the weights are
    # divided by a power of two while growing, and multiplied back.
    rng = np.random.default_rng(0)
    X = rng.normal(size=(50, 2))
    y = (X[:, 0] + rng.normal(size=50)) * 1e150
    tree = DecisionTreeRegressor(max_depth=3).fit(X, y).tree_
    np.testing.assert_array_equal(tree.weighted_n_node_samples, tree.n_node_samples)


def test_a_poisson_regressor_of_tiny_targets_reports_their_deviance():
    # Poisson targets are never rescaled: the root's impurity is the half
    # Poisson deviance mean(y log(y / mean(y))) of the targets as given.
    rng = np.random.default_rng(0)
    X = rng.normal(size=(50, 2))
    y = (rng.poisson(3, 50) + 1) * 1e-10
    tree = DecisionTreeRegressor(criterion="poisson", max_depth=1).fit(X, y).tree_
    expected = np.mean(y * np.log(y / y.mean()))
    assert tree.impurity[0] == pytest.approx(expected, rel=1e-9, abs=1e-300)
    assert tree.value[0, 0, 0] == pytest.approx(y.mean(), rel=1e-12, abs=1e-300)


def test_poisson_targets_below_one_are_accepted():
    X, _, _ = three_feature_data()
    y = np.linspace(0.0, 0.5, X.shape[0])
    tree = DecisionTreeRegressor(criterion="poisson", max_depth=2).fit(X, y)
    assert tree.tree_.value[0, 0, 0] == pytest.approx(y.mean(), rel=1e-12, abs=1e-15)


@pytest.mark.parametrize("estimator", [DecisionTreeRegressor, RandomForestRegressor])
def test_poisson_targets_negative_or_all_zero_are_refused_in_scikit_learns_words(estimator):
    X, _, _ = three_feature_data()
    name = estimator.__name__
    negative = np.ones(X.shape[0])
    negative[0] = -1.0
    # scikit-learn's forests say "strictly positive", its trees "positive".
    strictly = "strictly " if estimator is RandomForestRegressor else ""
    assert refusal(estimator(criterion="poisson"), X, negative) == (
        f"{name}: Some value(s) of y are negative which is not allowed for Poisson "
        "regression.")
    assert refusal(estimator(criterion="poisson"), X, np.zeros(X.shape[0])) == (
        f"{name}: Sum of y is not {strictly}positive which is necessary for Poisson "
        "regression.")


# -- criteria given as scikit-learn's objects or old names -------------------------

@pytest.mark.parametrize("estimator, criterion, name", [
    (DecisionTreeClassifier, sklearn_criteria.Gini(1, np.array([2], dtype=np.intp)), "gini"),
    (DecisionTreeClassifier, sklearn_criteria.Entropy(1, np.array([2], dtype=np.intp)),
     "entropy"),
    (DecisionTreeRegressor, sklearn_criteria.MSE(1, 10), "squared_error"),
    (DecisionTreeRegressor, sklearn_criteria.MAE(1, 10), "absolute_error"),
    (DecisionTreeRegressor, sklearn_criteria.Poisson(1, 10), "poisson"),
], ids=["Gini", "Entropy", "MSE", "MAE", "Poisson"])
def test_scikit_learns_criterion_objects_are_taken_by_name(estimator, criterion, name):
    assert estimator(criterion=criterion).criterion == name


def test_an_object_of_another_module_named_like_a_criterion_is_kept_and_refused():
    Gini = type("Gini", (), {})
    criterion = Gini()
    tree = DecisionTreeClassifier(criterion=criterion)
    assert tree.criterion is criterion
    X, y, _ = three_feature_data()
    assert refusal(tree, X, y, InvalidParameterError).startswith(
        "The 'criterion' parameter must be a str among")


def test_friedman_mse_stands_for_squared_error_with_a_future_warning():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        tree = DecisionTreeRegressor(criterion="friedman_mse")
    assert tree.criterion == "squared_error"
    assert [(w.category, str(w.message)) for w in caught] == [(
        FutureWarning, "criterion='friedman_mse' grows the same trees as 'squared_error', "
        "which it now stands for; scikit-learn deprecates the name, so write "
        "criterion='squared_error'")]


# -- categorical features ------------------------------------------------------------

def parity_of_codes(n_samples=200, seed=0):
    """A categorical column of codes 0-3 whose parity is the class, and a
    noise column: a set of categories splits it, no threshold does."""
    rng = np.random.default_rng(seed)
    codes = rng.integers(0, 4, n_samples).astype(float)
    return np.c_[codes, rng.normal(size=n_samples)], (codes % 2).astype(int)


@pytest.mark.parametrize("estimator", [DecisionTreeClassifier, DecisionTreeRegressor])
def test_a_categorical_feature_splits_on_a_set_of_its_categories(estimator):
    X, y = parity_of_codes()
    stump = estimator(max_depth=1, categorical_features=[0]).fit(X, y)
    assert stump.score(X, y) == 1.0
    assert estimator(max_depth=1).fit(X, y).score(X, y) < 0.9


def test_absolute_error_refuses_categorical_features_and_takes_numeric_ones():
    X, y = parity_of_codes()
    message = refusal(DecisionTreeRegressor(criterion="absolute_error",
                                            categorical_features=[0]), X, y)
    assert message == ("criterion='absolute_error' splits numeric features only; encode the "
                       "categorical features as numbers (say, ordinal codes) or use another "
                       "criterion")
    tree = DecisionTreeRegressor(criterion="absolute_error", max_depth=2).fit(X, y)
    assert tree.tree_.feature[0] == 0


# -- monotonic constraints --------------------------------------------------------------

def test_monotonic_constraints_of_each_direction_hold_where_the_data_disagree():
    # y rises with x0 and falls with x1, but noise makes an unconstrained
    # tree zigzag; constrained, its predictions rise along x0 and fall along x1.
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, size=(300, 3))
    y = X[:, 0] - X[:, 1] + rng.normal(scale=0.5, size=300)
    grid = np.linspace(-1, 1, 101)
    for estimator, target in ((DecisionTreeRegressor, y),
                              (DecisionTreeClassifier, (y > 0).astype(int))):
        free = estimator(min_samples_leaf=3).fit(X, target)
        tied = estimator(min_samples_leaf=3, monotonic_cst=[1, -1, 0]).fit(X, target)

        def along(model, feature, others):
            rows = np.tile(others, (grid.size, 1))
            rows[:, feature] = grid
            if estimator is DecisionTreeClassifier:
                return model.predict_proba(rows)[:, 1]
            return model.predict(rows)

        rises, falls, zigzags = [], [], []
        for others in rng.uniform(-1, 1, size=(20, 3)):
            rises.append(np.all(np.diff(along(tied, 0, others)) >= 0))
            falls.append(np.all(np.diff(along(tied, 1, others)) <= 0))
            zigzags.append(not np.all(np.diff(along(free, 0, others)) >= 0))
        assert all(rises) and all(falls)
        assert any(zigzags)


def test_a_monotonic_constraint_of_zero_leaves_the_tree_free():
    X, y, _ = three_feature_data()
    free = DecisionTreeClassifier().fit(X, y)
    assert same_nodes(DecisionTreeClassifier(monotonic_cst=[0, 0, 0]).fit(X, y), free)


def test_numeric_features_beside_categorical_ones_take_monotonic_constraints():
    X, y = parity_of_codes()
    tree = DecisionTreeClassifier(categorical_features=[0], monotonic_cst=[0, 1]).fit(X, y)
    assert tree.score(X, y) == 1.0


MONOTONIC_WORDS = "monotonic_cst must be None or an array-like of -1, 0 or 1, but got "


@pytest.mark.parametrize("monotonic_cst, message", [
    ([1, 0], "monotonic_cst has shape 2 but the input data X has 3 features."),
    ([[1], [0], [0]], "monotonic_cst has shape (3, 1) but the input data X has 3 features."),
    ([[1, 0, 0]], "monotonic_cst has shape (1, 3) but the input data X has 3 features."),
    ([0.5, 0, 0], MONOTONIC_WORDS + "[0.  0.5]"),
    ([2, 0, -1], MONOTONIC_WORDS + "[-1  0  2]"),
    ([-2, 0, 1], MONOTONIC_WORDS + "[-2  0  1]"),
    (["a", "b", "c"], MONOTONIC_WORDS + "['a' 'b' 'c']"),
], ids=["short", "column", "row", "fraction", "two", "minus-two", "text"])
def test_a_misshapen_or_unknown_monotonic_constraint_is_refused(monotonic_cst, message):
    X, y, _ = three_feature_data()
    assert refusal(DecisionTreeClassifier(monotonic_cst=monotonic_cst), X, y) == message


def test_monotonic_constraints_are_refused_for_several_outputs_classes_or_categories():
    X, y, y3 = three_feature_data()
    assert refusal(DecisionTreeClassifier(monotonic_cst=[1, 0, 0]), X, y3) == (
        "Monotonicity constraints are not supported with multiclass classification.")
    assert refusal(DecisionTreeClassifier(monotonic_cst=[1, 0, 0]), X, np.c_[y, y]) == (
        "Monotonicity constraints are not supported with multiple outputs.")
    assert refusal(DecisionTreeRegressor(monotonic_cst=[1, 0, 0]), X,
                   np.c_[X[:, 0], X[:, 1]]) == (
        "Monotonicity constraints are not supported with multiple outputs.")
    categorical = "monotonic_cst constrains numeric features only; give the categorical " \
                  "features 0"
    codes, parity = parity_of_codes()
    assert refusal(DecisionTreeClassifier(categorical_features=[0], monotonic_cst=[1, 0]),
                   codes, parity) == categorical
    # A categorical feature of one category is still categorical.
    codes[:, 0] = 0.0
    assert refusal(DecisionTreeClassifier(categorical_features=[0], monotonic_cst=[1, 0]),
                   codes, parity) == categorical


# -- the random splitter ---------------------------------------------------------------

def test_the_random_splitter_draws_its_thresholds_by_the_seed():
    X, y, _ = three_feature_data(n_samples=100)
    drawn = {DecisionTreeClassifier(splitter="random", random_state=seed).fit(X, y)
             .tree_.threshold[0] for seed in range(4)}
    best = {DecisionTreeClassifier(random_state=seed).fit(X, y).tree_.threshold[0]
            for seed in range(4)}
    assert len(drawn) > 1 and len(best) == 1
    extra = {ExtraTreeClassifier(max_features=None, random_state=seed).fit(X, y).tree_.threshold[0]
             for seed in range(4)}
    assert extra == drawn


# -- several outputs -------------------------------------------------------------------

def test_a_classifier_of_two_outputs_predicts_each_outputs_leaf_fractions():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(80, 3))
    first = np.where(X[:, 0] > 0, "b", "a")
    second = np.digitize(X[:, 1] + 0.5 * rng.normal(size=80), [-0.5, 0.5])
    tree = DecisionTreeClassifier(max_depth=3).fit(X, np.c_[first, second.astype(str)])
    assert [list(classes) for classes in tree.classes_] == [["a", "b"], ["0", "1", "2"]]
    leaves = tree.apply(X)
    probabilities = tree.predict_proba(X)
    labels = tree.predict(X)
    for output, (column, classes) in enumerate(zip((first, second.astype(str)),
                                                   tree.classes_)):
        expected = np.array([[np.mean(column[leaves == leaf] == label) for label in classes]
                             for leaf in leaves])
        np.testing.assert_allclose(probabilities[output], expected, rtol=1e-12, atol=1e-12)
        np.testing.assert_array_equal(labels[:, output],
                                      classes[np.argmax(expected, axis=1)])


def test_a_regressor_of_two_outputs_predicts_each_outputs_leaf_mean():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(80, 3))
    y = np.c_[X[:, 0] + rng.normal(size=80), 10 * X[:, 1]]
    for criterion in ("squared_error", "absolute_error"):
        tree = DecisionTreeRegressor(criterion=criterion, max_depth=3).fit(X, y)
        leaves = tree.apply(X)
        center = np.mean if criterion == "squared_error" else np.median
        expected = np.array([center(y[leaves == leaf], axis=0) for leaf in leaves])
        np.testing.assert_allclose(tree.predict(X), expected, rtol=1e-12, atol=1e-12)
        assert list(tree.tree_.output_widths) == [1, 1]


@pytest.mark.parametrize("options, message", [
    ({"categorical_split": "multiway", "criterion": "entropy"},
     "categorical_split='multiway' grows a tree for one output; y has several columns"),
    ({"loss_matrix": [[0, 1], [1, 0]]},
     "loss_matrix prices the classes of one output; y has several columns"),
])
def test_options_of_one_output_are_refused_for_several(options, message):
    X, y, _ = three_feature_data()
    assert refusal(DecisionTreeClassifier(**options), X, np.c_[y, 1 - y]) == message


@pytest.mark.parametrize("loss_matrix, message", [
    ([["a", "b"], [1, 0]], "loss_matrix must be a square array of numbers"),
    ([[0, 1], [-1, 0]], "loss_matrix must hold finite costs >= 0"),
    ([[0, 1], [np.inf, 0]], "loss_matrix must hold finite costs >= 0"),
    ([[1, 1], [1, 0]], "loss_matrix must have a zero diagonal (a right answer costs nothing)"),
])
def test_a_loss_matrix_of_wrong_costs_is_refused(loss_matrix, message):
    X, y, _ = three_feature_data()
    assert refusal(DecisionTreeClassifier(loss_matrix=loss_matrix), X, y) == message


# -- multiway (C4.5-style) trees --------------------------------------------------------

MULTIWAY = {"categorical_split": "multiway"}


@pytest.mark.parametrize("options, message", [
    ({"categorical_split": "bogus"}, "categorical_split must be 'binary' or 'multiway'; "
                                     "got 'bogus'"),
    ({"categorical_split": None}, "categorical_split must be 'binary' or 'multiway'; "
                                  "got None"),
    ({"missing": "bogus"}, "missing must be 'learn' or 'fractional'; got 'bogus'"),
    ({"missing": 1}, "missing must be 'learn' or 'fractional'; got 1"),
    ({"criterion": "gain_ratio"},
     "criterion='gain_ratio' is C4.5's and needs categorical_split='multiway'"),
    ({"missing": "fractional"},
     "missing='fractional' is C4.5's and needs categorical_split='multiway'"),
    ({**MULTIWAY, "criterion": "gini"},
     "categorical_split='multiway' grows by 'entropy' (ID3) or 'gain_ratio' (C4.5); "
     "got criterion='gini'"),
    ({**MULTIWAY, "criterion": "entropy", "max_leaf_nodes": 5},
     "max_leaf_nodes=5 is not supported with categorical_split='multiway' "
     "(leave it at its default)"),
    ({**MULTIWAY, "criterion": "entropy", "min_samples_leaf": 3},
     "min_samples_leaf=3 is not supported with categorical_split='multiway' "
     "(leave it at its default)"),
    ({**MULTIWAY, "criterion": "entropy", "ccp_alpha": 0.1},
     "ccp_alpha=0.1 is not supported with categorical_split='multiway' "
     "(leave it at its default)"),
    ({**MULTIWAY, "criterion": "entropy", "splitter": "random"},
     "multiway (C4.5) trees search every threshold of a numeric feature: splitter='random' "
     "is not supported with categorical_split='multiway'; use splitter='best'"),
], ids=lambda value: repr(value))
def test_split_options_that_do_not_go_together_are_refused(options, message):
    X, y, _ = three_feature_data()
    assert refusal(DecisionTreeClassifier(**options), X, y) == message


def test_a_multiway_tree_takes_defaults_written_otherwise():
    # 0 for 0.0, and a "best" that is not the interned string: equal values.
    X, y, _ = three_feature_data()
    best = "".join(["be", "st"])
    given = DecisionTreeClassifier(**MULTIWAY, criterion="entropy", ccp_alpha=0,
                                   min_impurity_decrease=0, splitter=best).fit(X, y)
    assert same_nodes(given, DecisionTreeClassifier(**MULTIWAY, criterion="entropy")
                      .fit(X, y))


def test_a_forest_of_multiway_trees_grows_by_the_best_split_only():
    X, y, _ = three_feature_data()
    forest = RandomForestClassifier(n_estimators=3, random_state=0, **MULTIWAY,
                                    criterion="entropy").fit(X, y)
    assert forest.splitter == "best"
    assert all(member.tree_.node_count > 1 for member in forest.estimators_)
    for splitter in ("hist", "random"):
        with pytest.raises(ValueError, match=f"splitter='{splitter}' is not supported with "
                                             "categorical_split='multiway'"):
            forest.set_params(splitter=splitter).fit(X, y)


def information(labels, weights=None):
    """Entropy in bits of ``labels`` (weighted)."""
    weights = np.ones(len(labels)) if weights is None else weights
    shares = np.array([weights[labels == label].sum() for label in np.unique(labels)])
    shares = shares[shares > 0] / shares.sum()
    return float(-(shares * np.log2(shares)).sum())


def test_entropy_grows_by_information_gain_and_gain_ratio_by_c45s_rule():
    # A feature of 24 categories gains the most; its gain ratio (gain over
    # the entropy of its categories) is below a two-category one's, which
    # gains at least the average: C4.5 takes the latter at the root.
    rng = np.random.default_rng(0)
    many = np.arange(96) % 24
    base = (rng.random(24) < 0.5).astype(int)[many]
    y = np.where(rng.random(96) < 0.9, base, 1 - base)
    two = np.where(rng.random(96) < 0.88, y, 1 - y)
    X = np.c_[many, two, rng.integers(0, 2, 96)].astype(float)
    gains = np.array([information(y) - sum(np.mean(X[:, j] == code) * information(
        y[X[:, j] == code]) for code in np.unique(X[:, j])) for j in range(3)])
    ratios = gains / np.array([information(X[:, j]) for j in range(3)])
    eligible = np.flatnonzero(gains >= gains.mean())
    assert np.argmax(gains) != eligible[np.argmax(ratios[eligible])]
    for criterion, root in (("entropy", np.argmax(gains)), ("log_loss", np.argmax(gains)),
                            ("gain_ratio", eligible[np.argmax(ratios[eligible])])):
        tree = DecisionTreeClassifier(**MULTIWAY, criterion=criterion,
                                      categorical_features=[0, 1, 2]).fit(X, y)
        assert tree.tree_.feature[0] == root


def test_fractional_missing_values_share_their_weight_among_the_branches():
    rng = np.random.default_rng(0)
    X = np.c_[rng.integers(0, 3, 60), rng.normal(size=60)].astype(float)
    y = (X[:, 0] == 1).astype(int)
    X[:10, 0] = np.nan
    known = np.bincount(X[10:, 0].astype(int), minlength=3).astype(float)
    trees = {missing: DecisionTreeClassifier(**MULTIWAY, criterion="entropy", max_depth=1,
                                             categorical_features=[0], missing=missing)
             .fit(X, y).tree_ for missing in ("learn", "fractional")}
    for tree in trees.values():
        assert tree.feature[0] == 0 and tree.node_count == 4
    # C4.5: each branch takes the missing rows' weight times its share of the known.
    np.testing.assert_allclose(trees["fractional"].weighted_n_node_samples[1:],
                               known + 10 * known / known.sum(), rtol=1e-12)
    # Otherwise the missing rows join one branch whole.
    learnt = trees["learn"].weighted_n_node_samples[1:] - known
    assert sorted(learnt) == [0.0, 0.0, 10.0]


def test_a_multiway_tree_draws_max_features_per_node_by_its_seed():
    X, y, _ = three_feature_data(n_samples=100)
    y = (X[:, 0] + 0.7 * X[:, 1] + 0.5 * X[:, 2] > 0).astype(int)

    def roots(random_state):
        return [DecisionTreeClassifier(**MULTIWAY, criterion="entropy", max_features=1,
                                       random_state=seed).fit(X, y).tree_.feature[0]
                for seed in random_state]

    drawn = roots(range(12))
    assert drawn == roots(range(12))
    assert len(set(drawn)) > 1
    every = DecisionTreeClassifier(**MULTIWAY, criterion="entropy").fit(X, y)
    assert every.max_features_ == 3 and every.tree_.feature[0] == 0


def test_a_multiway_tree_keeps_min_weight_fraction_leaf_in_every_leaf():
    X, y, _ = three_feature_data(n_samples=100)
    y = (X[:, 0] + 0.7 * X[:, 1] > 0).astype(int)
    full = DecisionTreeClassifier(**MULTIWAY, criterion="entropy").fit(X, y).tree_
    limited = DecisionTreeClassifier(**MULTIWAY, criterion="entropy",
                                     min_weight_fraction_leaf=0.1).fit(X, y).tree_
    assert full.weighted_n_node_samples[full.children_left < 0].min() < 10
    assert limited.weighted_n_node_samples[limited.children_left < 0].min() >= 10
