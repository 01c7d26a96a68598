"""The checks of a loaded estimator's state, from a model file or a pickle,
beyond each tree's own checks: its trees read as many features as it has and
give as many values as it has classes or outputs, their leaves hold what a fit
leaves there, and its parameters, category levels, rules, ensemble members,
feature subsets and weights agree. ``BaseEstimator._check_loaded_state`` runs
them as every estimator is unpickled or loaded."""

import inspect

import numpy as np

from ._categories import _hashable
from ._model_file import ModelFileError, is_estimator
from ._structure import Tree
from ._threads import resolve_n_jobs
from ._validation import check_choice
from .rules import Condition, Rule


def _check_model(model, foreign_members=False):
    """Consistency of a loaded estimator beyond each tree's own checks (which
    the trees made as they were built): the trees read as many features as
    their estimator has, and give as many values as it has classes or
    outputs; ensemble members, their feature subsets and weights agree.

    ``foreign_members`` accepts, unchecked, ensemble members that are not
    fasttree estimators (a pickled bagging of scikit-learn models holds
    them; a model file cannot)."""
    try:
        _check_estimator(model, foreign_members)
    except (AttributeError, TypeError, ValueError, IndexError, KeyError) as error:
        if isinstance(error, ModelFileError):
            raise
        raise ModelFileError(f"the model is inconsistent ({type(error).__name__}: "
                             f"{error})") from None


# Parameters added since models were first saved with the estimators that
# take them; a model (model file or pickle) saved before gets their defaults,
# with which the saved trees behave as they did.
PARAMETERS_ADDED = frozenset({"interaction_cst", "max_bins", "n_jobs", "quantile", "splitter"})


def _check_estimator(estimator, foreign_members):
    name = type(estimator).__name__
    if not is_estimator(estimator):
        raise ModelFileError(f"an ensemble member is not a fasttree estimator ({name})")
    missing = [parameter for parameter in type(estimator)._parameter_names()
               if parameter not in estimator.__dict__]
    for parameter in set(missing) & PARAMETERS_ADDED:
        # Saved before the estimator took it: it grew as the default does.
        estimator.__dict__[parameter] = inspect.signature(
            type(estimator).__init__).parameters[parameter].default
        missing.remove(parameter)
    if missing:
        raise ModelFileError(f"the {name} lacks its parameters {missing}")
    fitted = [attribute for attribute in ("tree_", "_trees", "estimators_", "rules_", "experts_",
                                          "coef_")
              if attribute in estimator.__dict__]
    if not fitted:
        # An unfitted estimator holds its parameters only (and empty caches).
        extra = sorted(key for key, value in estimator.__dict__.items()
                       if key not in type(estimator)._parameter_names()
                       and not (key.startswith("_") and value is None))
        if extra:
            raise ModelFileError(f"the {name} holds {extra} but no fitted trees or rules")
        return
    _check_parameters(estimator)
    if _is_classifier(estimator) and "classes_" not in estimator.__dict__:
        raise ModelFileError(f"the fitted {name} has no classes_")
    n_features = estimator.__dict__.get("n_features_in_")
    if not _is_count(n_features):
        raise ModelFileError(f"the {name} has no valid n_features_in_")
    _check_features(estimator, n_features)
    trees = []
    if "tree_" in estimator.__dict__:
        trees = [estimator.tree_]
    elif "_trees" in estimator.__dict__:
        trees = estimator._trees
        if not isinstance(trees, list):
            raise ModelFileError(f"the {name}'s trees are not a list")
    width = _value_width(estimator)
    for tree in trees:
        if not isinstance(tree, Tree):
            raise ModelFileError(f"a tree of the {name} is a {type(tree).__name__}")
        if tree.n_features != n_features:
            raise ModelFileError(f"a tree of the {name} reads {tree.n_features} features, "
                                 f"the estimator has {n_features}")
        if width is not None and tree.n_values != width:
            raise ModelFileError(f"a tree of the {name} gives {tree.n_values} values per "
                                 f"node, the estimator needs {width}")
        _check_leaf_values(estimator, tree, _is_classifier(estimator))
        _check_category_codes(estimator, tree)
    if "estimators_" in estimator.__dict__ and "_trees" not in estimator.__dict__:
        _check_members(estimator, n_features, foreign_members)
    loss = estimator.__dict__.get("loss_matrix_")
    if loss is not None and (not isinstance(loss, np.ndarray) or loss.dtype.kind != "f"
                             or loss.shape != (width, width) or not np.isfinite(loss).all()):
        raise ModelFileError(f"the {name}'s loss matrix is not {width} x {width} numbers")
    if "rules_" in estimator.__dict__:
        classes = estimator.__dict__.get("classes_")
        if not isinstance(classes, np.ndarray) or classes.ndim != 1:
            raise ModelFileError(f"the {name}'s classes_ are malformed")
        _check_rules(estimator, n_features, classes.shape[0])
    own_checks = getattr(estimator, "_check_fitted_parts", None)
    if own_checks is not None:
        # What only this kind of estimator holds (a mixture's gates and
        # experts, a linear model's coefficients).
        own_checks(foreign_members)


def _check_leaf_values(estimator, tree, classifier):
    """What a fit can leave in a tree's leaves: finite numbers, and for a
    classifier each output's class shares, none below 0, summing to 1 (up to
    the float32 rounding of compact trees)."""
    name = type(estimator).__name__
    values = np.asarray(tree.leaf_values, dtype=np.float64)
    if not np.isfinite(values).all():
        raise ModelFileError(f"a tree of the {name} holds leaf values that are not finite")
    if classifier and ((values < 0).any() or any(
            (np.abs(shares.sum(axis=1) - 1.0) > 1e-6).any()
            for shares in tree.split_outputs(values))):
        raise ModelFileError(f"a tree of the {name} holds leaf values that are not class "
                             "shares")


def _check_parameters(estimator):
    """The parameters prediction reads, as fit checks them."""
    if "n_jobs" in estimator.__dict__:
        resolve_n_jobs(estimator.n_jobs)
    if "voting" in estimator.__dict__:
        check_choice(estimator.voting, "voting", ("soft", "hard"))


def _check_rules(estimator, n_features, n_classes):
    name = type(estimator).__name__
    rules = estimator.rules_
    rule_classes = estimator.__dict__.get("_rule_classes")
    default = estimator.__dict__.get("_default_index")
    if (not isinstance(rules, list) or not isinstance(rule_classes, np.ndarray)
            or rule_classes.shape != (len(rules),) or rule_classes.dtype.kind not in "iu"
            or (rule_classes < 0).any() or (rule_classes >= n_classes).any()
            or not _is_count(default) or default >= n_classes):
        raise ModelFileError(f"the {name}'s rules do not match its classes")
    for rule in rules:
        if not isinstance(rule, Rule) or not isinstance(rule.conditions, tuple):
            raise ModelFileError(f"a rule of the {name} is malformed")
        for condition in rule.conditions:
            if (not isinstance(condition, Condition) or not _is_count(condition.feature)
                    or condition.feature >= n_features
                    or not isinstance(condition.missing, bool)):
                raise ModelFileError(f"a rule of the {name} tests a feature out of range")
            if condition.operator in ("<=", ">"):
                if (not isinstance(condition.threshold, (int, float, np.number))
                        or isinstance(condition.threshold, bool) or condition.codes is not None):
                    raise ModelFileError(f"a rule of the {name} has no numeric threshold")
            elif condition.operator in ("in", "not in"):
                codes, categories = condition.codes, condition.categories
                if (not isinstance(codes, frozenset) or not all(_is_count(code) for code in codes)
                        or not isinstance(categories, tuple) or len(categories) != len(codes)):
                    raise ModelFileError(f"a rule of the {name} has malformed categories")
            else:
                raise ModelFileError(f"a rule of the {name} has the unknown operator "
                                     f"{condition.operator!r}")


def _check_features(estimator, n_features):
    """Feature names, and which features are categorical with what levels."""
    name = type(estimator).__name__
    names = estimator.__dict__.get("feature_names_in_")
    if names is not None and (not isinstance(names, np.ndarray) or names.shape != (n_features,)
                              or not all(isinstance(item, str) for item in names.tolist())):
        raise ModelFileError(f"the {name}'s feature_names_in_ are not {n_features} names")
    mask = estimator.__dict__.get("is_categorical_")
    if mask is None:
        return
    levels = estimator.__dict__.get("categories_")
    if (not isinstance(mask, np.ndarray) or mask.dtype != bool or mask.shape != (n_features,)
            or not isinstance(levels, list) or len(levels) != int(mask.sum())):
        raise ModelFileError(f"the {name}'s category levels do not match its categorical "
                             "features")
    for feature, level in zip(np.flatnonzero(mask), levels):
        # A code is a position among the levels: one flat array, no level twice.
        if (not isinstance(level, np.ndarray) or level.ndim != 1
                or len({_hashable(value) for value in level.tolist()}) != level.shape[0]):
            raise ModelFileError(f"the {name}'s category levels of feature {feature} are not "
                                 "an array of distinct levels")


def _check_category_codes(estimator, tree):
    """A tree's category sets and branch tables cover no more codes than
    their feature has levels (a code past them could never be given: the
    rows of those categories would silently go elsewhere)."""
    mask = estimator.__dict__.get("is_categorical_")
    categorical = np.flatnonzero(tree.is_categorical)
    if mask is None or categorical.size == 0:
        return
    n_levels = np.zeros(mask.shape[0], dtype=np.int64)
    n_levels[mask] = [level.shape[0] for level in estimator.categories_]
    # Where a node's set starts in category_bits, as Tree.n_category_codes reads it.
    sides = np.ascontiguousarray(tree.nodes["threshold"][categorical]).view(np.int32).reshape(
        categorical.size, -1)[:, 0]
    n_codes = tree.category_bits[sides]
    features = tree.feature[categorical]
    wrong = np.flatnonzero(n_codes > n_levels[features])
    if wrong.size:
        feature = int(features[wrong[0]])
        raise ModelFileError(f"a tree of the {type(estimator).__name__} splits feature "
                             f"{feature} into {int(n_codes[wrong[0]])} category codes; its "
                             f"category levels are {int(n_levels[feature])}")


def _check_members(estimator, n_features, foreign_members):
    name = type(estimator).__name__
    members = estimator.estimators_
    if not isinstance(members, list):
        raise ModelFileError(f"the {name}'s members are not a list")
    subsets = estimator.__dict__.get("estimators_features_")
    if subsets is None and getattr(type(estimator), "_member_feature_subsets", False):
        raise ModelFileError(f"the {name} lacks its members' feature subsets")
    if subsets is not None and (not isinstance(subsets, list) or len(subsets) != len(members)):
        raise ModelFileError(f"the {name} has not one feature subset per member")
    weights = estimator.__dict__.get("estimator_weights_")
    if weights is not None and (not isinstance(weights, np.ndarray) or weights.ndim != 1
                                or weights.shape[0] < len(members)
                                or not np.isfinite(weights).all()):
        raise ModelFileError(f"the {name}'s member weights do not match its members")
    for index, member in enumerate(members):
        expected = n_features
        if subsets is not None:
            features = subsets[index]
            if (not isinstance(features, np.ndarray) or features.dtype.kind not in "iu"
                    or features.ndim != 1 or (features < 0).any()
                    or (features >= n_features).any()):
                raise ModelFileError(f"a feature subset of the {name} is out of range")
            expected = features.shape[0]
        if foreign_members and not is_estimator(member):
            continue
        _check_estimator(member, foreign_members)
        labels = member.__dict__.get("classes_")
        if (labels is not None and "classes_" in estimator.__dict__
                and isinstance(estimator.classes_, np.ndarray)):
            # Members answer in the ensemble's labels, or in their indices.
            if not isinstance(labels, np.ndarray) or not (
                    np.isin(labels, estimator.classes_).all()
                    or np.isin(labels, np.arange(estimator.classes_.shape[0])).all()):
                raise ModelFileError(f"a member of the {name} predicts classes the "
                                     f"{name} does not have")
        if member.__dict__.get("n_features_in_") != expected:
            raise ModelFileError(f"a member of the {name} reads "
                                 f"{member.__dict__.get('n_features_in_')} features, "
                                 f"it is given {expected}")


def _value_width(estimator):
    """Values per node the estimator's own trees must give: one per class of
    every output (classifiers), one per output (regressors); None when the
    estimator does not say."""
    if "classes_" in estimator.__dict__ and "n_classes_" in estimator.__dict__:
        n_classes = estimator.n_classes_
        counts = n_classes if isinstance(n_classes, list) else [n_classes]
        if not all(_is_count(count) for count in counts):
            raise ModelFileError(f"the {type(estimator).__name__}'s n_classes_ is malformed")
        classes = estimator.classes_
        labels = classes if isinstance(classes, list) else [classes]
        if len(labels) != len(counts) or any(
                not isinstance(level, np.ndarray) or level.shape != (count,)
                for level, count in zip(labels, counts)):
            raise ModelFileError(f"the {type(estimator).__name__}'s classes_ do not match "
                                 "n_classes_")
        return sum(int(count) for count in counts)
    if "n_outputs_" in estimator.__dict__ and "classes_" not in estimator.__dict__:
        n_outputs = estimator.n_outputs_
        if not _is_count(n_outputs):
            raise ModelFileError(f"the {type(estimator).__name__}'s n_outputs_ is malformed")
        return None if getattr(estimator, "criterion", None) is None else int(n_outputs)
    return None


def _is_count(value):
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool) and value >= 0


def _is_classifier(estimator):
    """Whether ``estimator`` is a classifier: the mark of ``ClassifierMixin``
    (whose module imports this one)."""
    return getattr(type(estimator), "_estimator_type", None) == "classifier"
