"""Invalid input and invalid parameters stop with an error that names the problem."""

import linecache

import numpy as np
import pytest

import fasttree
from fasttree import (AdaBoostClassifier, AdaBoostRegressor, DecisionTreeClassifier,
                      DecisionTreeRegressor, NotFittedError, RuleListClassifier)
from tolerances import assert_rounding_close

ESTIMATORS = [DecisionTreeClassifier, DecisionTreeRegressor]


def small_data(n_samples=30, n_features=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n_samples, n_features))
    return X, (X[:, 0] > 0).astype(int)


def with_cell(X, value, row=4):
    X = X.astype(np.float64)
    X[row, 1] = value
    return X


X_OK, Y_OK = small_data()

BAD_X = [
    (with_cell(with_cell(X_OK, np.nan), np.inf, row=3), "infinity"),
    (with_cell(X_OK, np.inf), "infinity"),
    (with_cell(X_OK, -np.inf), "infinity"),
    (np.zeros((0, 3)), r"0 sample\(s\) \(shape=\(0, 3\)\) while a minimum of 1 is required"),
    (np.zeros((30, 0)), r"0 feature\(s\) \(shape=\(30, 0\)\) while a minimum of 1 is required"),
    (X_OK[:, 0], "2-D.*1-D"),
    (X_OK.reshape(30, 3, 1), "2-D.*3-D"),
    (X_OK + 1j, "complex"),
    (np.full((30, 3), 1e300), "too large for float32"),
    ([[1.0, 2.0, 3.0], [4.0, 5.0]] * 15, "cannot be read as an array"),
]
BAD_X_IDS = ["nan-and-inf", "inf", "-inf", "no-rows", "no-columns", "1-D", "3-D",
             "complex", "beyond-float32", "ragged"]


@pytest.mark.parametrize("estimator_class", ESTIMATORS)
@pytest.mark.parametrize("X, message", BAD_X, ids=BAD_X_IDS)
def test_fit_refuses_bad_X_with_a_message_naming_the_problem(estimator_class, X, message):
    n_rows = len(X) if hasattr(X, "__len__") else 30
    with pytest.raises(ValueError, match=message):
        estimator_class().fit(X, np.arange(n_rows) % 2)


@pytest.mark.parametrize("estimator_class", ESTIMATORS)
@pytest.mark.parametrize("X, message", [
    (with_cell(X_OK, np.inf), "infinity"), (X_OK[:, :2], "2 features.*3 features"),
    (np.hstack([X_OK, X_OK]), "6 features.*3 features"), (X_OK[:, 0], "2-D")],
    ids=["inf", "too-few-features", "too-many-features", "1-D"])
def test_predict_refuses_bad_X(estimator_class, X, message):
    estimator = estimator_class(max_depth=2).fit(X_OK, Y_OK)
    for method in ("predict", "apply", "decision_path"):
        with pytest.raises(ValueError, match=message):
            getattr(estimator, method)(X)


@pytest.mark.parametrize("estimator_class", ESTIMATORS)
def test_y_of_the_wrong_length_is_refused(estimator_class):
    with pytest.raises(ValueError, match="y has 29 entries but X has 30 samples"):
        estimator_class().fit(X_OK, Y_OK[:-1])


@pytest.mark.parametrize("estimator_class", [RuleListClassifier, AdaBoostClassifier,
                                             AdaBoostRegressor])
def test_a_two_column_y_is_refused_where_one_output_is_learnt(estimator_class):
    # The trees, forests and bagging regressor learn several outputs
    # (tests/test_multi_output.py); these learn one.
    with pytest.raises(ValueError, match=r"1-D.*\(30, 2\)"):
        estimator_class().fit(X_OK, np.column_stack([Y_OK, Y_OK]))


@pytest.mark.parametrize("estimator_class", ESTIMATORS)
def test_a_column_vector_y_is_read_as_1d_with_a_data_conversion_warning(estimator_class):
    from sklearn.exceptions import DataConversionWarning as SklearnWarning

    with pytest.warns(fasttree.DataConversionWarning, match="column-vector y") as caught:
        model = estimator_class(random_state=0).fit(X_OK, Y_OK.reshape(-1, 1))
    assert all(isinstance(warning.message, SklearnWarning) for warning in caught)
    np.testing.assert_array_equal(model.predict(X_OK),
                                  estimator_class(random_state=0).fit(X_OK, Y_OK).predict(X_OK))


@pytest.mark.parametrize("estimator_class", ESTIMATORS)
def test_y_none_is_refused_in_scikit_learns_words(estimator_class):
    with pytest.raises(ValueError, match="requires y to be passed, but the target y is None"):
        estimator_class().fit(X_OK, None)


@pytest.mark.parametrize("labels", [np.linspace(0.0, 1.0, 30), np.r_[np.zeros(29), np.inf]])
def test_a_classifier_refuses_real_valued_labels_as_continuous(labels):
    with pytest.raises(ValueError, match="Unknown label type: continuous"):
        DecisionTreeClassifier().fit(X_OK, labels)


def test_whole_number_float_labels_are_classes():
    model = DecisionTreeClassifier().fit(X_OK, Y_OK.astype(np.float64) * 2.0)
    np.testing.assert_array_equal(model.classes_, [0.0, 2.0])


def test_missing_class_labels_are_refused():
    with pytest.raises(ValueError, match="NaN"):
        DecisionTreeClassifier().fit(X_OK, np.where(Y_OK == 1, np.nan, 0.0))
    labels = np.array(["a", None] * 15, dtype=object)
    with pytest.raises(ValueError, match="missing labels"):
        DecisionTreeClassifier().fit(X_OK, labels)


def test_labels_of_mixed_types_are_refused():
    with pytest.raises(TypeError, match="sortable"):
        DecisionTreeClassifier().fit(X_OK, np.array([1, "a"] * 15, dtype=object))


@pytest.mark.parametrize("value", [np.nan, np.inf, -np.inf])
def test_a_non_finite_regression_target_is_refused(value):
    target = X_OK[:, 0].copy()
    target[3] = value
    with pytest.raises(ValueError, match="NaN or infinity"):
        DecisionTreeRegressor().fit(X_OK, target)


def test_a_non_numeric_regression_target_is_refused():
    with pytest.raises(ValueError, match="numbers"):
        DecisionTreeRegressor().fit(X_OK, np.array(["a", "b", "c"] * 10))


@pytest.mark.parametrize("estimator_class", ESTIMATORS)
@pytest.mark.parametrize("weights, message", [
    (-np.ones(30), "negative"),
    (np.where(np.arange(30) == 5, -0.5, 1.0), "negative"),
    (np.where(np.arange(30) == 5, np.nan, 1.0), "NaN"),
    (np.where(np.arange(30) == 5, np.inf, 1.0), "infinity"),
    (np.ones(29), r"shape == \(29,\), expected \(30,\)"),
    (np.ones((30, 2)), r"shape == \(30, 2\)"),
    (np.zeros(30), "sums to zero"),
    (np.array(["heavy"] * 30), "numbers")],
    ids=["all-negative", "one-negative", "nan", "inf", "short", "2-D", "all-zero", "text"])
def test_bad_sample_weights_are_refused(estimator_class, weights, message):
    with pytest.raises(ValueError, match=message):
        estimator_class().fit(X_OK, Y_OK, sample_weight=weights)


BAD_PARAMETERS = [
    ({"max_depth": 0}, ValueError, "max_depth"),
    ({"max_depth": -3}, ValueError, "max_depth"),
    ({"max_depth": 2.5}, ValueError, "max_depth"),
    ({"min_samples_leaf": 0}, ValueError, "min_samples_leaf"),
    ({"min_samples_leaf": 1.0}, ValueError, "min_samples_leaf"),
    ({"min_samples_split": 1}, ValueError, "min_samples_split"),
    ({"min_samples_split": 0.0}, ValueError, "min_samples_split"),
    ({"max_features": 1.5}, ValueError, "max_features"),
    ({"max_features": 0}, ValueError, "max_features"),
    ({"max_features": 0.0}, ValueError, "max_features"),
    ({"max_features": "auto"}, ValueError, "max_features.*'auto'"),
    ({"max_features": "bogus"}, ValueError, "max_features.*'bogus'"),
    ({"criterion": "bogus"}, ValueError, "criterion.*'bogus'"),
    ({"criterion": np.array(["gini", "poisson"])}, ValueError, "The 'criterion' parameter"),
    ({"max_leaf_nodes": 1}, ValueError, "max_leaf_nodes"),
    ({"max_leaf_nodes": 0}, ValueError, "max_leaf_nodes"),
    ({"min_weight_fraction_leaf": 0.6}, ValueError, "min_weight_fraction_leaf"),
    ({"min_weight_fraction_leaf": -0.1}, ValueError, "min_weight_fraction_leaf"),
    ({"min_impurity_decrease": -1}, ValueError, "min_impurity_decrease"),
    ({"min_impurity_decrease": np.nan}, ValueError, "min_impurity_decrease"),
    ({"random_state": "x"}, ValueError, "random_state"),
    ({"random_state": -1}, ValueError, "random_state"),
    ({"max_features": "3"}, ValueError, "max_features"),
    ({"min_samples_leaf": "1"}, TypeError, "min_samples_leaf"),
]


@pytest.mark.parametrize("estimator_class", ESTIMATORS)
@pytest.mark.parametrize("params, error, message", BAD_PARAMETERS,
                         ids=[f"{k}={v!r}" for p, _, _ in BAD_PARAMETERS for k, v in p.items()])
def test_bad_parameters_are_refused_at_fit(estimator_class, params, error, message):
    estimator = estimator_class(**params)  # construction stores, fit checks
    with pytest.raises(error, match=message):
        estimator.fit(X_OK, Y_OK)
    assert not hasattr(estimator, "tree_")


def test_each_estimator_refuses_the_criteria_of_the_other():
    with pytest.raises(ValueError, match="criterion.*'squared_error'"):
        DecisionTreeClassifier(criterion="squared_error").fit(X_OK, Y_OK)
    with pytest.raises(ValueError, match="criterion.*'gini'"):
        DecisionTreeRegressor(criterion="gini").fit(X_OK, Y_OK)
    with pytest.raises(ValueError, match="criterion.*'entropy'"):
        DecisionTreeRegressor(criterion="entropy").fit(X_OK, Y_OK)


@pytest.mark.parametrize("class_weight, message", [
    ({0: 1.0, 7: 2.0}, "class 7.*not in y"),
    ({0: -1.0}, "class 0.*>= 0"),
    ({0: np.nan}, "class 0"),
    ("heavy", "class_weight"),
    ([1.0, 2.0], "class_weight"),
    ({0: 0.0, 1: 0.0}, "weight zero")],
    ids=["unknown-class", "negative", "nan", "bad-string", "list", "all-zero"])
def test_bad_class_weights_are_refused(class_weight, message):
    with pytest.raises(ValueError, match=message):
        DecisionTreeClassifier(class_weight=class_weight).fit(X_OK, Y_OK)


def test_class_weight_naming_an_unknown_string_class_is_refused():
    labels = np.array(["cat", "dog"])[Y_OK]
    with pytest.raises(ValueError, match="'cow'"):
        DecisionTreeClassifier(class_weight={"cat": 1.0, "cow": 2.0}).fit(X_OK, labels)


# -- weight totals ------------------------------------------------------------------

def _classifier_factories():
    return {
        "tree": lambda **kw: DecisionTreeClassifier(**kw),
        "extra-tree": lambda **kw: fasttree.ExtraTreeClassifier(**kw),
        "multiway": lambda **kw: DecisionTreeClassifier(categorical_split="multiway",
                                                        criterion="entropy", **kw),
        "forest": lambda **kw: fasttree.RandomForestClassifier(n_estimators=3, **kw),
        "extra-trees": lambda **kw: fasttree.ExtraTreesClassifier(n_estimators=3, **kw),
        "bagging": lambda **kw: fasttree.BaggingClassifier(
            DecisionTreeClassifier(**kw), n_estimators=3),
        "adaboost": lambda **kw: AdaBoostClassifier(DecisionTreeClassifier(max_depth=1, **kw),
                                                    n_estimators=3),
        "rule-list": lambda **kw: RuleListClassifier(DecisionTreeClassifier(**kw)),
    }


# Every estimator kind, and several outputs, by name: (make, y).
CLASSIFIER_MAKERS = _classifier_factories()
Y_TWO_OUTPUTS = np.column_stack([Y_OK, 1 - Y_OK])
WEIGHTED_FITS = {
    **{name: (make, Y_OK) for name, make in CLASSIFIER_MAKERS.items()},
    "tree-2-outputs": (CLASSIFIER_MAKERS["tree"], Y_TWO_OUTPUTS),
    "forest-2-outputs": (CLASSIFIER_MAKERS["forest"], Y_TWO_OUTPUTS),
    "regressor": (lambda: DecisionTreeRegressor(), X_OK[:, 0]),
    "extra-tree-regressor": (lambda: fasttree.ExtraTreeRegressor(), X_OK[:, 0]),
    "forest-regressor": (lambda: fasttree.RandomForestRegressor(n_estimators=3), X_OK[:, 0]),
    "extra-trees-regressor": (lambda: fasttree.ExtraTreesRegressor(n_estimators=3),
                              X_OK[:, 0]),
    "bagging-regressor": (lambda: fasttree.BaggingRegressor(n_estimators=3), X_OK[:, 0]),
    "adaboost-regressor": (lambda: AdaBoostRegressor(n_estimators=3), X_OK[:, 0]),
    "regressor-2-outputs": (lambda: DecisionTreeRegressor(), X_OK[:, :2]),
    "absolute-error-regressor": (lambda: DecisionTreeRegressor(criterion="absolute_error"),
                                 X_OK[:, 0]),
    "poisson-regressor": (lambda: DecisionTreeRegressor(criterion="poisson"),
                          np.abs(X_OK[:, 0])),
}


@pytest.mark.parametrize("name", list(WEIGHTED_FITS))
def test_weights_whose_total_overflows_are_refused_at_fit_by_every_estimator(name):
    make, y = WEIGHTED_FITS[name]
    estimator = make()
    with pytest.raises(ValueError, match="sample_weight is too large: the weights sum beyond "
                                         "the largest float64"):
        estimator.fit(X_OK, y, sample_weight=np.full(30, 1e308))


@pytest.mark.parametrize("name", list(WEIGHTED_FITS))
@pytest.mark.parametrize("weight", [5e-324, 2.0 ** -1000, 2.0 ** 700],
                         ids=["denormal", "tiny", "huge"])
def test_weights_of_an_extreme_total_fit_the_model_of_unit_weights(name, weight):
    # A power of two times every weight changes no sum but its scale.
    make, y = WEIGHTED_FITS[name]
    expected, extreme = make(), make()
    for estimator in (expected, extreme):
        if "random_state" in estimator.get_params(deep=False):
            estimator.set_params(random_state=0)
    expected.fit(X_OK, y, sample_weight=np.ones(30))
    extreme.fit(X_OK, y, sample_weight=np.full(30, weight))
    method = "predict_proba" if hasattr(expected, "predict_proba") else "predict"
    np.testing.assert_array_equal(getattr(extreme, method)(X_OK),
                                  getattr(expected, method)(X_OK))


TINY_WEIGHT_TREES = {
    "entropy": {"criterion": "entropy"},
    "entropy-categorical": {"criterion": "entropy", "categorical_features": [0, 1]},
    "multiway": {"criterion": "entropy", "categorical_features": [0, 1],
                 "categorical_split": "multiway"},
    "c45": {"criterion": "gain_ratio", "categorical_features": [0, 1],
            "categorical_split": "multiway"},
    "gini": {"criterion": "gini"},
    "loss-matrix": {"loss_matrix": [[0.0, 1.0, 2.0], [1.0, 0.0, 1.0], [3.0, 1.0, 0.0]]},
    "extra-tree": {"splitter": "random", "random_state": 0},
}
TINY_WEIGHT_FITS = [(name, n_outputs) for name in TINY_WEIGHT_TREES for n_outputs in (1, 2)
                    if n_outputs == 1 or name in ("entropy", "gini")]


@pytest.mark.parametrize("light", ["every-other-row", "class-2"])
@pytest.mark.parametrize("name, n_outputs", TINY_WEIGHT_FITS)
def test_trees_take_weights_whose_products_and_shares_underflow(name, n_outputs, light):
    # Some rows weigh 5e-324, the others 1. A class's share of a node may
    # round to 0 and must count as 0 log 0 = 0; a node of light rows alone
    # has squared weights of 0, and its Gini impurity must come from the
    # fractions, not 0 / 0. Both made the impurity NaN, refused as a
    # "corrupt fasttree model" at fit.
    rng = np.random.default_rng(0)
    X = np.column_stack([rng.integers(0, 4, size=(40, 2)), rng.normal(size=(40, 2))])
    y = rng.integers(0, 3, size=(40, 2))
    is_light = np.arange(40) % 2 == 0 if light == "every-other-row" else y[:, 0] == 2
    weights = np.where(is_light, 5e-324, 1.0)
    y = y[:, 0] if n_outputs == 1 else y
    tree = DecisionTreeClassifier(**TINY_WEIGHT_TREES[name]).fit(X, y, sample_weight=weights)
    assert np.all(np.isfinite(tree.tree_.impurity))
    probabilities = tree.predict_proba(X)
    for output in (probabilities if n_outputs == 2 else [probabilities]):
        assert_rounding_close(output.sum(axis=1), 1.0)


ZERO_CLASS_WEIGHTS = {
    "every-class": {0: 0.0, 1: 0.0},
    "the-class-present": {0: 0.0, 1: 1.0},
}


@pytest.mark.parametrize("name", list(CLASSIFIER_MAKERS))
@pytest.mark.parametrize("class_weight", list(ZERO_CLASS_WEIGHTS))
def test_class_weights_leaving_no_weight_are_refused_at_fit_by_every_estimator(name,
                                                                               class_weight):
    y = Y_OK if class_weight == "every-class" else np.zeros(30, dtype=int)
    weights = ZERO_CLASS_WEIGHTS[class_weight]
    if class_weight == "the-class-present":
        weights = {0: 0.0}
    estimator = CLASSIFIER_MAKERS[name](class_weight=weights)
    with pytest.raises(ValueError, match="the class weights leave every sample with weight "
                                         "zero"):
        estimator.fit(X_OK, y)


@pytest.mark.parametrize("name", ["tree", "forest"])
def test_class_weights_leaving_no_weight_are_refused_with_several_outputs(name):
    estimator = CLASSIFIER_MAKERS[name](class_weight=[{0: 0.0, 1: 0.0}, {0: 1.0, 1: 1.0}])
    with pytest.raises(ValueError, match="the class weights leave every sample with weight "
                                         "zero"):
        estimator.fit(X_OK, Y_TWO_OUTPUTS)


@pytest.mark.parametrize("name", ["tree", "forest", "extra-trees"])
def test_class_weights_leaving_only_samples_of_zero_weight_are_refused(name):
    # Class 1 keeps its class weight, but all its samples have weight zero.
    sample_weight = np.where(Y_OK == 1, 0.0, 1.0)
    estimator = CLASSIFIER_MAKERS[name](class_weight={0: 0.0, 1: 1.0})
    with pytest.raises(ValueError, match="the class weights leave every sample with weight "
                                         "zero"):
        estimator.fit(X_OK, Y_OK, sample_weight=sample_weight)


# -- score takes the weights fit takes --------------------------------------------

SCORED = [(DecisionTreeClassifier, Y_OK), (DecisionTreeRegressor, X_OK[:, 0]),
          (RuleListClassifier, Y_OK), (AdaBoostClassifier, Y_OK)]
SCORED_IDS = ["classifier", "regressor", "rule-list", "adaboost"]


@pytest.mark.parametrize("estimator_class, y", SCORED, ids=SCORED_IDS)
def test_score_takes_a_number_as_that_weight_on_every_sample(estimator_class, y):
    estimator = estimator_class(random_state=0).fit(X_OK, y, sample_weight=2.0)
    X_half, y_half = X_OK[::2], y[::2]
    assert estimator.score(X_half, y_half, sample_weight=2.0) == estimator.score(
        X_half, y_half, sample_weight=np.full(15, 2.0))


@pytest.mark.parametrize("estimator_class, y", SCORED, ids=SCORED_IDS)
def test_score_reads_weights_given_as_text_as_fit_does(estimator_class, y):
    weights = (np.arange(30) % 3 + 1).astype(float)
    estimator = estimator_class(random_state=0).fit(X_OK, y, sample_weight=weights.astype(str))
    assert estimator.score(X_OK[::2], y[::2], sample_weight=weights[::2].astype(str)) == (
        estimator.score(X_OK[::2], y[::2], sample_weight=weights[::2]))


@pytest.mark.parametrize("estimator_class, y", SCORED, ids=SCORED_IDS)
def test_score_refuses_weights_that_fit_refuses(estimator_class, y):
    estimator = estimator_class(random_state=0).fit(X_OK, y)
    with pytest.raises(ValueError, match="sample_weight is too large"):
        estimator.score(X_OK, y, sample_weight=np.full(30, 1e308))
    with pytest.raises(ValueError, match="negative"):
        estimator.score(X_OK, y, sample_weight=-np.ones(30))
    staged = getattr(estimator, "staged_score", None)
    if staged is not None:
        with pytest.raises(ValueError, match="sample_weight is too large"):
            next(staged(X_OK, y, sample_weight=np.full(30, 1e308)))


# -- not fitted --------------------------------------------------------------------

def test_not_fitted_error_is_a_value_error_and_an_attribute_error():
    assert issubclass(NotFittedError, ValueError)
    assert issubclass(NotFittedError, AttributeError)
    assert fasttree.NotFittedError is NotFittedError


def test_not_fitted_error_is_also_scikit_learns_once_its_exceptions_are_imported(monkeypatch):
    import sys

    import sklearn.exceptions

    with pytest.raises(sklearn.exceptions.NotFittedError) as raised:
        DecisionTreeClassifier().predict(np.zeros((1, 2)))
    assert isinstance(raised.value, NotFittedError)
    # Without scikit-learn's exceptions imported, nothing can catch them, and
    # fasttree's own class is raised (scikit-learn is never imported for it).
    monkeypatch.delitem(sys.modules, "sklearn.exceptions")
    with pytest.raises(NotFittedError) as raised:
        DecisionTreeClassifier().predict(np.zeros((1, 2)))
    assert type(raised.value) is NotFittedError


CLASSIFIER_CALLS = ["predict", "predict_proba", "predict_log_proba", "apply",
                    "decision_path", "score", "get_depth", "get_n_leaves"]


@pytest.mark.parametrize("method", CLASSIFIER_CALLS)
def test_classifier_methods_before_fit_raise_not_fitted_error(method):
    estimator = DecisionTreeClassifier()
    call = {"score": lambda: estimator.score(X_OK, Y_OK),
            "get_depth": estimator.get_depth, "get_n_leaves": estimator.get_n_leaves}.get(
        method, lambda: getattr(estimator, method)(X_OK))
    with pytest.raises(NotFittedError, match="not fitted"):
        call()


@pytest.mark.parametrize("method", ["predict", "apply", "decision_path", "score",
                                    "get_depth", "get_n_leaves"])
def test_regressor_methods_before_fit_raise_not_fitted_error(method):
    estimator = DecisionTreeRegressor()
    call = {"score": lambda: estimator.score(X_OK, X_OK[:, 0]),
            "get_depth": estimator.get_depth, "get_n_leaves": estimator.get_n_leaves}.get(
        method, lambda: getattr(estimator, method)(X_OK))
    with pytest.raises(NotFittedError, match="not fitted"):
        call()


@pytest.mark.parametrize("estimator_class", ESTIMATORS)
def test_feature_importances_before_fit_raise_not_fitted_error(estimator_class):
    with pytest.raises(NotFittedError):
        estimator_class().feature_importances_  # noqa: B018
    assert not hasattr(estimator_class(), "feature_importances_")


# Public names that need no fit: fit-like methods, the forests' template, and
# what scikit-learn's API gives every estimator.
NEEDS_NO_FIT = {"fit", "get_params", "set_params", "get_metadata_routing",
                "cost_complexity_pruning_path", "estimator"}


def public_estimator_classes():
    return [value for value in map(fasttree.__dict__.get, fasttree.__all__)
            if isinstance(value, type) and hasattr(value, "fit")]


def calls_before_fit(estimator_class):
    """(name, call) of every public method and property of an unfitted
    estimator that needs a fit (generators are advanced once)."""
    import inspect
    import types

    def call(name):
        estimator = estimator_class()
        value = getattr(estimator, name)
        if callable(value):
            required = [parameter for parameter in inspect.signature(value).parameters.values()
                        if parameter.default is parameter.empty
                        and parameter.kind is parameter.POSITIONAL_OR_KEYWORD]
            value = value(*[X_OK, Y_OK][:len(required)])
            if isinstance(value, types.GeneratorType):
                next(value)

    # Public names are ASCII; mutmut adds to the classes it mutates copies
    # of their methods named with 'ǁ', which are not fasttree's.
    names = [name for name in dir(estimator_class) if not name.startswith("_")
             and name.isascii() and name not in NEEDS_NO_FIT
             and not name.startswith("set_") and name != "save"]
    return [(name, lambda name=name: call(name)) for name in names]


@pytest.mark.parametrize("estimator_class", public_estimator_classes(),
                         ids=lambda estimator_class: estimator_class.__name__)
def test_every_method_and_property_before_fit_raises_not_fitted_error(estimator_class):
    from fasttree._base import available_if

    for name, call in calls_before_fit(estimator_class):
        if isinstance(getattr(estimator_class, name), available_if) and not hasattr(
                estimator_class(), name):
            continue  # a method this estimator does not have (its estimator has none)
        with pytest.raises(NotFittedError, match="not fitted"):
            call()


# -- a failed refit ------------------------------------------------------------------

@pytest.mark.parametrize("estimator_class", ESTIMATORS)
def test_a_failed_refit_does_not_pair_the_old_tree_with_the_new_width(estimator_class):
    """fit(4 columns) then a refit on 1 column that fails on y: predicting 1-column
    rows must raise, not walk the 4-feature tree over 1-value rows."""
    rng = np.random.default_rng(1)
    X = rng.normal(size=(200, 4))
    y = (X[:, 3] > 0).astype(int)
    estimator = estimator_class(max_depth=2).fit(X, y)
    assert estimator.tree_.feature[0] == 3
    with pytest.raises(ValueError, match="entries"):
        estimator.fit(X[:, :1], y[:5])
    with pytest.raises(ValueError):
        estimator.predict(rng.normal(size=(5, 1)))


def test_sparse_rows_for_the_walk_refuse_a_corrupt_matrix():
    import scipy.sparse

    X = np.eye(6)
    model = DecisionTreeClassifier(random_state=0).fit(X, np.arange(6) % 2)
    rows = scipy.sparse.csr_matrix(X)
    rows.indices[2] = 40   # a column beyond the six
    with pytest.raises(ValueError, match="not a valid CSR matrix"):
        model.predict(rows)


def test_sparse_rows_slice_and_densify_as_the_matrix_does():
    import scipy.sparse

    from fasttree._validation import csr_for_walk

    X = np.arange(24, dtype=float).reshape(6, 4) * (np.arange(24).reshape(6, 4) % 3 == 0)
    rows = csr_for_walk(scipy.sparse.csr_matrix(X))
    assert rows.shape == (6, 4) and rows.indptr.dtype == np.intp
    np.testing.assert_array_equal(rows.toarray(), X)
    np.testing.assert_array_equal(rows[2:5].toarray(), X[2:5])
    np.testing.assert_array_equal(rows[5:2].toarray(), X[5:2])
    with pytest.raises(IndexError):
        rows[::2]


PUBLIC_ESTIMATORS = [getattr(fasttree, name) for name in fasttree.__all__
                     if hasattr(getattr(fasttree, name), "get_params")]


@pytest.mark.parametrize("estimator_class", PUBLIC_ESTIMATORS, ids=lambda cls: cls.__name__)
def test_an_unknown_keyword_names_the_class_called_and_a_close_parameter(estimator_class):
    with pytest.raises(TypeError, match=rf"^{estimator_class.__name__}\(\) got an unexpected "
                                        r"keyword argument 'colour_of_leaves'$"):
        estimator_class(colour_of_leaves=3)
    # A parameter every estimator but the linear experts (deterministic) takes.
    name = "random_state" if "random_state" in estimator_class._parameter_names() else "alpha"
    with pytest.raises(TypeError, match=rf"^{estimator_class.__name__}\(\) .* '{name[:-1]}'; "
                                        rf"did you mean '{name}'\?"):
        estimator_class(**{name[:-1]: 0})


def date_frames():
    import pandas as pd
    import polars as pl
    import pyarrow as pa
    frame = pd.DataFrame({"size": np.arange(6.0), "when": pd.date_range("2020-01-01", periods=6),
                          "colour": list("abcabc")})
    return {"pandas": frame, "pandas dates only": frame[["when"]],
            "pandas durations": frame.assign(when=frame["when"] - frame["when"].min()),
            "polars": pl.from_pandas(frame), "pyarrow": pa.Table.from_pandas(frame)}


@pytest.mark.parametrize("kind", ["pandas", "pandas dates only", "pandas durations", "polars",
                                  "pyarrow"])
@pytest.mark.parametrize("estimator_class", [DecisionTreeClassifier,
                                             fasttree.RandomForestClassifier])
def test_a_date_column_is_refused_by_name_with_what_to_do(kind, estimator_class):
    # A datetime64 column alone used to be read as nanoseconds, silently.
    X = date_frames()[kind]
    with pytest.raises(ValueError, match="column 'when' holds dates or times, not numbers: "
                                         "convert it to numbers first"):
        estimator_class(n_estimators=2).fit(X, [0, 1] * 3) if estimator_class is not \
            DecisionTreeClassifier else estimator_class().fit(X, [0, 1] * 3)
    fitted = DecisionTreeClassifier().fit(np.zeros((6, X.shape[1])), [0, 1] * 3)
    with pytest.raises(ValueError, match="holds dates or times"):
        fitted.predict(np.asarray(date_frames()["pandas"]["when"])[:, None].repeat(
            X.shape[1], axis=1))


def test_a_column_of_text_among_numbers_is_named():
    import pandas as pd
    X = pd.DataFrame({"size": [1.0, 2.0, 3.0, 4.0], "note": [1.0, "n/a", 2.0, 3.0]},
                     dtype=object)
    with pytest.raises(ValueError, match="column 'note' holds values that are not numbers; "
                                         "mark it categorical"):
        DecisionTreeClassifier(categorical_features=None).fit(X, [0, 1, 0, 1])
    with pytest.raises(ValueError, match="column 'note' holds values that are not numbers"):
        DecisionTreeClassifier(categorical_features=[]).fit(X.assign(kind=list("abab")),
                                                            [0, 1, 0, 1])


@pytest.mark.parametrize("make_warning", [
    lambda X, y: fasttree.RandomForestClassifier(n_estimators=2, oob_score=True,
                                                 random_state=0).fit(X, y),
    lambda X, y: fasttree.BaggingClassifier(n_estimators=2, oob_score=True,
                                            random_state=0).fit(X, y),
    lambda X, y: DecisionTreeRegressor(criterion="friedman_mse").fit(X, y),
    lambda X, y: DecisionTreeClassifier().fit(X, y[:, None]),
], ids=["oob", "bagging oob", "friedman_mse", "column y"])
def test_warnings_point_at_the_users_line(make_warning):
    X, y = small_data()
    with pytest.warns(Warning) as record:
        make_warning(X, y)
    # The line of the user's call itself, not one above or below it in the stack.
    assert [warning.filename for warning in record] == [__file__] * len(record)
    assert all(".fit(" in linecache.getline(warning.filename, warning.lineno)
               for warning in record)


@pytest.mark.parametrize("y", [[1, "a"] * 15, [[1, "a"], ["b", "c"]] * 15],
                         ids=["one output", "two outputs"])
def test_labels_mixing_strings_and_numbers_warn_that_all_are_strings(y):
    # scikit-learn takes such a list as strings too (its own tests fit
    # ["foo", 1]); the warning says so once.
    X, _ = small_data()
    for estimator in (DecisionTreeClassifier(), fasttree.RandomForestClassifier(n_estimators=2)):
        with pytest.warns(fasttree.DataConversionWarning,
                          match="y mixes strings and numbers as class labels .* so 1 is the "
                                "class '1'"):
            estimator.fit(X, y)
        assert "1" in (estimator.classes_ if not isinstance(estimator.classes_, list)
                       else estimator.classes_[0])
