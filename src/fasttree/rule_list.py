"""A classifier made of an ordered list of if-then rules, read off a tree and
post-pruned as C4.5 does (Quinlan 1993, chapter 5), against held-out rows."""

import numbers
from dataclasses import replace

import numpy as np

from ._frames import as_frame
from ._base import BaseEstimator, ClassifierMixin
from ._docstrings import shared_docs
from ._model_file import model_file_class
from ._targets import encode_labels
from ._validation import (check_array_2d, check_random_state, check_sample_weight,
                          feature_names_of)
from .bagging import clone_estimator
from .rules import Rule, tree_rules
from .tree import DecisionTreeClassifier

__all__ = ["RuleListClassifier"]


def laplace_accuracy(correct, covered, n_classes):
    """(correct + 1) / (covered + n_classes): a rule's accuracy, pulled towards
    chance while it covers little (1 / n_classes when it covers nothing)."""
    return (correct + 1.0) / (covered + n_classes)


def _in_fit_codes(condition, tree, encoding):
    """A condition of the rule list's tree, whose category codes count among
    the categories of its own rows, restated in the codes of the rule list's
    fit (a tree grown on fewer rows may know fewer categories), with their names."""
    if not condition.is_categorical:
        return condition
    position = int(np.flatnonzero(tree.is_categorical_).tolist().index(condition.feature))
    fit_codes = tree.categories_[position]  # the fit's codes the tree saw, ascending
    codes = frozenset(int(fit_codes[code]) for code in condition.codes)
    names = encoding.levels[int(np.flatnonzero(encoding.mask).tolist().index(
        condition.feature))]
    return replace(condition, codes=codes,
                   categories=tuple(names[code] for code in sorted(codes)))


def _condition_masks(conditions, X):
    if not conditions:
        return np.ones((0, X.shape[0]), dtype=bool)
    return np.array([condition.holds(X) for condition in conditions])


def generalise_rule(conditions, target, X, y, weight, n_classes):
    """Drop conditions one at a time, each time the one whose removal gives
    the best accuracy on (X, y), while that accuracy does not fall.

    Returns
    -------
    conditions : tuple of Condition
    accuracy : float
        The Laplace accuracy of the rule that remains.
    """
    conditions = list(conditions)
    passes = _condition_masks(conditions, X)
    hit = weight * (y == target)
    # Rows by how many of the remaining conditions they fail: dropping
    # condition j adds to the covered rows (failing none) those failing j
    # alone, so each step needs one pass over the rows, not one per condition.
    n_failed = (~passes).sum(axis=0)
    covered = n_failed == 0
    current = laplace_accuracy(hit[covered].sum(), weight[covered].sum(), n_classes)
    remaining = list(range(len(conditions)))
    while remaining:
        covered = n_failed == 0
        base_hit, base_weight = hit[covered].sum(), weight[covered].sum()
        single = np.flatnonzero(n_failed == 1)
        failing = np.argmin(passes[remaining][:, single], axis=0) if single.size else single
        gained_hit = np.bincount(failing, weights=hit[single], minlength=len(remaining))
        gained_weight = np.bincount(failing, weights=weight[single], minlength=len(remaining))
        candidates = laplace_accuracy(base_hit + gained_hit, base_weight + gained_weight,
                                      n_classes)
        best = int(np.argmax(candidates))
        if candidates[best] < current:
            break
        current = float(candidates[best])
        n_failed -= ~passes[remaining[best]]
        del remaining[best]
    return tuple(conditions[j] for j in remaining), float(current)


def check_rule_tree(estimator):
    """Raise unless ``estimator`` is a fasttree classification tree (an
    instance): the rules are read from fasttree's own tree structure."""
    if isinstance(estimator, DecisionTreeClassifier):
        return
    if isinstance(estimator, type):
        got = f"the class {estimator.__module__}.{estimator.__qualname__}"
    else:
        got = f"a {type(estimator).__module__}.{type(estimator).__qualname__}"
    raise ValueError("estimator must be None or an instance of fasttree's "
                     "DecisionTreeClassifier or ExtraTreeClassifier, whose tree the rules "
                     f"are read from; got {got} (for a scikit-learn tree, pass "
                     "fasttree.DecisionTreeClassifier with the same parameters)")


@model_file_class
@shared_docs
class RuleListClassifier(ClassifierMixin, BaseEstimator):
    """An ordered list of if-then rules: the first rule a row satisfies gives
    its class, else a default class.

    ``fit`` holds out ``validation_fraction`` of the rows (stratified by
    class), grows a tree on the rest and turns every leaf into a rule. Each
    rule is then generalised: its conditions are dropped one at a time while
    its accuracy on the held-out rows does not fall. Duplicates go, the rules
    are ordered by that accuracy, the default class is the majority among the
    rows no rule covers, and, from the last rule to the first, a rule is
    dropped when the list without it is no less accurate on the held-out rows.
    Accuracies are Laplace estimates, (correct + 1) / (covered + n_classes).

    Parameters
    ----------
    estimator : DecisionTreeClassifier or None, default=None
        The tree to read rules from (cloned); None grows a full
        ``DecisionTreeClassifier(criterion='entropy')``.
    validation_fraction : float in (0, 1), default=1/3
        Share of every class's rows held out to prune the rules.
    random_state : None, int, numpy Generator or RandomState, default=None
        Seed of the hold-out split (and of the tree, if it has none).
    {categorical_features}
        The tree the rules come from is told which features are
        categorical.

    Attributes
    ----------
    rules_ : list of Rule
        In the order they are tried. For each, ``n_samples``, ``support``
        and ``accuracy`` describe the held-out rows it covers (Laplace
        accuracy); ``leaf`` is the tree leaf it came from.
    default_class_ : object
        The class of a row that no rule covers.
    estimator_ : DecisionTreeClassifier
        The tree the rules were read from.
    classes_ : ndarray
        The class labels, sorted.
    {fitted_inputs}
    """

    _fitted_attribute = "rules_"

    def __init__(self, estimator=None, *, validation_fraction=1 / 3, random_state=None,
                 categorical_features="from_dtype"):
        self._set_parameters(locals())

    @shared_docs
    def fit(self, X, y, sample_weight=None):
        """Grow the tree, read its rules and prune them.

        Parameters
        ----------
        {fit_X}
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), default=None

        Returns
        -------
        self
        """
        name = type(self).__name__
        fraction = self.validation_fraction
        if (not isinstance(fraction, (numbers.Real, np.floating)) or isinstance(fraction, bool)
                or not 0.0 < fraction < 1.0):
            raise ValueError(f"validation_fraction must be a float in (0, 1); got {fraction!r}")
        template = DecisionTreeClassifier(criterion="entropy") if self.estimator is None \
            else self.estimator
        check_rule_tree(template)
        X = as_frame(X)
        names = feature_names_of(X)
        X, encoding = self._categories_for_fit(X, names)
        X = check_array_2d(X, estimator=name, allow_nan=True)
        classes, class_index = encode_labels(y, X.shape[0], name)
        weight = check_sample_weight(sample_weight, X.shape[0], estimator=name)
        n_classes = len(classes)
        rng = np.random.default_rng(check_random_state(self.random_state))
        held_out = np.zeros(X.shape[0], dtype=bool)
        for label in range(n_classes):
            rows = rng.permutation(np.flatnonzero(class_index == label))
            # A class needs rows on both sides to be learnt and checked.
            n_held = min(int(round(fraction * rows.size)), rows.size - 1)
            held_out[rows[:n_held]] = True
        tree = clone_estimator(template)
        if tree.random_state is None:
            tree.random_state = int(rng.integers(0, 2**31 - 1))
        tree.categorical_features = None if encoding is None else encoding.mask
        grow = ~held_out
        tree.fit(X[grow], class_index[grow], sample_weight=weight[grow])
        # Column-major: the rules' conditions read whole columns.
        X_val = np.asfortranarray(X[held_out])
        y_val, w_val = class_index[held_out], weight[held_out]

        rules = {}
        for rule in tree_rules(tree, feature_names=None if names is None else list(names)):
            rule = replace(rule, conditions=tuple(_in_fit_codes(condition, tree, encoding)
                                                  for condition in rule.conditions))
            target = int(rule.prediction)
            conditions, _ = generalise_rule(rule.conditions, target, X_val, y_val, w_val,
                                            n_classes)
            rules.setdefault((conditions, target), rule.leaf)
        listed = []
        for (conditions, target), leaf in rules.items():
            covered = _condition_masks(conditions, X_val).all(axis=0)
            correct = w_val[covered & (y_val == target)].sum()
            listed.append(Rule(conditions=conditions, prediction=target, leaf=leaf,
                               n_samples=int(covered.sum()),
                               support=float(w_val[covered].sum()),
                               accuracy=float(laplace_accuracy(
                                   correct, w_val[covered].sum(), n_classes))))
        listed.sort(key=lambda rule: (-rule.accuracy, -rule.support, rule.leaf))

        covers_any = np.zeros(X.shape[0], dtype=bool)
        columns = np.asfortranarray(X)
        for rule in listed:
            covers_any |= rule.covers(columns)
        uncovered = weight * ~covers_any
        totals = np.bincount(class_index, weights=uncovered if uncovered.sum() > 0 else weight,
                             minlength=n_classes)
        default = int(np.argmax(totals))
        listed = self._drop_unhelpful(listed, default, X_val, y_val, w_val)

        self.rules_ = [Rule(conditions=rule.conditions, prediction=classes[rule.prediction],
                            leaf=rule.leaf, n_samples=rule.n_samples, support=rule.support,
                            accuracy=rule.accuracy) for rule in listed]
        self._rule_classes = np.array([rule.prediction for rule in listed], dtype=np.intp)
        self.default_class_ = classes[default]
        self._default_index = default
        self.estimator_ = tree
        self.classes_ = classes
        self.n_features_in_ = X.shape[1]
        self._set_encoding(encoding)
        if names is not None:
            self.feature_names_in_ = names
        elif hasattr(self, "feature_names_in_"):
            del self.feature_names_in_
        return self

    @staticmethod
    def _drop_unhelpful(rules, default, X, y, weight):
        """From the last rule to the first, drop a rule when the rows it is
        the first to cover are classified no worse by the rules after it (or
        the default)."""
        covers = np.array([rule.covers(X) for rule in rules]).reshape(len(rules), X.shape[0])
        targets = np.array([rule.prediction for rule in rules], dtype=np.intp)
        kept = np.ones(len(rules), dtype=bool)
        # The class the rules after the current one (those kept) give every
        # row, or the default; built up as the pass moves to earlier rules.
        later_class = np.full(X.shape[0], default, dtype=np.intp)
        # Rules before the current one are all still kept (not yet decided):
        # the rows they cover are a running OR.
        covered_before = np.logical_or.accumulate(covers, axis=0)
        for position in range(len(rules) - 1, -1, -1):
            mine = covers[position]
            if position > 0:
                mine = mine & ~covered_before[position - 1]
            with_rule = weight[mine & (y == targets[position])].sum()
            without_rule = weight[mine & (y == later_class)].sum()
            if mine.any() and without_rule < with_rule:
                later_class[covers[position]] = targets[position]
            else:
                kept[position] = False
        return [rule for rule, keep in zip(rules, kept) if keep]

    def predict(self, X):
        """The class of the first rule each row satisfies, else the default class.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        chosen = self.decision_rule(X)
        rule_classes = np.append(self._rule_classes, self._default_index)
        return self.classes_[rule_classes[chosen]]

    def decision_rule(self, X):
        """Index into ``rules_`` of the rule that classifies each row (-1: the default).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of int, shape (n_samples,)
        """
        # (-1 also picks the default from the end of the class list predict uses.)
        X = np.asfortranarray(self._checked_predict_input(X, lambda X: check_array_2d(
            X, estimator=type(self).__name__, allow_nan=True)))
        chosen = np.full(X.shape[0], -1, dtype=np.intp)
        for position in range(len(self.rules_) - 1, -1, -1):
            chosen[self.rules_[position].covers(X)] = position
        return chosen

    def __str__(self):
        if not hasattr(self, "rules_"):
            return repr(self)
        lines = [str(rule) for rule in self.rules_]
        lines.append(f"otherwise class = {self.default_class_}")
        return "\n".join(lines)
