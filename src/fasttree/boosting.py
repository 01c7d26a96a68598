"""AdaBoost: SAMME for classification, with a fast path for fasttree stumps."""

import inspect
import math
import numbers

import numpy as np

from ._frames import as_frame
from ._base import BaseEstimator, ClassifierMixin, RegressorMixin
from ._boosting import best_stump
from .bagging import clone_estimator
from ._docstrings import shared_docs
from ._model_file import model_file_class
from ._ensemble import (BaseEnsemble, check_n_estimators, check_template, check_verbose,
                        member_matrix, name_members)
from ._features import rank_features
from ._growth import ENTROPY_NAMES
from ._structure import Tree
from ._targets import check_regression_target, encode_labels
from ._threads import available_cores, map_blocks
from ._utils import split_beats
from ._tree import NODE_DTYPE
from ._progress import progress_of
from ._validation import (check_choice, check_random_state, check_sample_weight,
                          feature_names_of, warn_user)
from .tree import BaseDecisionTree, DecisionTreeClassifier, DecisionTreeRegressor

__all__ = ["AdaBoostClassifier", "AdaBoostRegressor"]

# Stumps the fast path grows exactly as DecisionTreeClassifier would.
FAST_STUMP_DEFAULTS = {"max_depth": 1, "min_samples_split": 2, "min_weight_fraction_leaf": 0.0,
                       "max_features": None, "max_leaf_nodes": None,
                       "min_impurity_decrease": 0.0, "class_weight": None, "ccp_alpha": 0.0,
                       "loss_matrix": None, "categorical_split": "binary",
                       "missing": "learn", "splitter": "best"}
PURE_IMPURITY = np.finfo(np.float64).eps


def uses_fast_stump(estimator):
    """Whether ``estimator`` is a fasttree stump the presorted path can grow."""
    if type(estimator) is not DecisionTreeClassifier:
        return False
    params = estimator.get_params(deep=False)
    return (params["criterion"] in ("gini", *ENTROPY_NAMES)
            and isinstance(params["min_samples_leaf"], (numbers.Integral, np.integer))
            and all(params[name] is None if value is None else params[name] == value
                    for name, value in FAST_STUMP_DEFAULTS.items()))


def boosting_generators(random_state):
    """Generators for the resampling draws and for the estimators' own seeds.

    For an int, the draws come from ``default_rng(random_state)``, as in
    :mod:`fasttree.reference`; the estimators' seeds from a separate stream.
    """
    seed = (int(random_state) if isinstance(random_state, (numbers.Integral, np.integer))
            and not isinstance(random_state, bool) and random_state >= 0
            else check_random_state(random_state))
    return (np.random.default_rng(seed),
            np.random.default_rng(np.random.SeedSequence([seed, 1])))


def fresh_member(estimator, member_rng):
    """An unfitted copy of ``estimator`` with its own seed, if it takes one.

    Parameters that are estimators (a pipeline's steps) are copied too: a
    member sharing them would be refitted by every later round.
    """
    member = clone_estimator(estimator)
    if "random_state" in member.get_params(deep=False):
        member.set_params(random_state=int(member_rng.integers(0, 2**31 - 1)))
    return member


def fit_member(member, X, y, weight, ranked):
    """``member.fit(X, y, weight)``; a fasttree tree reuses the fit's feature ranks.

    Rows of zero weight take no part in a fasttree tree, so the draw counts
    of a resampled round can be passed over all rows.
    """
    if ranked is not None and isinstance(member, BaseDecisionTree):
        return member._fit(X, y, weight, ranked=ranked)
    return member.fit(X, y, sample_weight=weight)


def shared_ranks(estimator, X, encoding=None):
    """What every round's fasttree tree sweeps, made once per fit: the ranks
    of X's features (``rank_features``), binned for trees of
    ``splitter='hist'`` (categorical features, as ``encoding`` tells, keep
    their categories), as the tree's own fit on all the rows would make
    them; None for other members.
    """
    if not isinstance(estimator, BaseDecisionTree):
        return None
    if estimator.splitter != "hist":
        return rank_features(X)
    return estimator._shared_bins(X, encoding)


def fit_on_draws(member, X, y, weight, rng, ranked=None):
    """Fit on N rows drawn with probabilities ``weight`` (one ``rng.choice`` call).

    Draw counts become sample weights (the same fit as the repeated rows) when
    the member takes them; otherwise the rows are repeated.
    """
    counts = np.bincount(rng.choice(len(weight), len(weight), p=weight),
                         minlength=len(weight))
    if ranked is not None and isinstance(member, BaseDecisionTree):
        return fit_member(member, X, y, counts.astype(np.float64), ranked)
    rows = np.flatnonzero(counts)
    # The member itself, whatever its fit returns (not every estimator returns self).
    if "sample_weight" in inspect.signature(member.fit).parameters:
        member.fit(X[rows], y[rows], sample_weight=counts[rows])
        return member
    rows = np.repeat(rows, counts[rows])
    member.fit(X[rows], y[rows])
    return member


class PresortedStumps:
    """Grows depth-1 trees on one training set, its features sorted once."""

    def __init__(self, X, class_index, classes, template):
        self.X = X
        self.class_index = class_index
        self.classes = classes
        self.n_classes = len(classes)
        self.template = template
        # The template's parameters, checked as its own fit checks them.
        self.min_samples_leaf = template._resolve_limits(*X.shape)["min_samples_leaf"]
        self.ranked = rank_features(X)
        ranks = self.ranked.ranks
        # Sorting each feature once serves every round; the ranks and classes
        # in that order let a round read only the weights out of order.
        self.order = np.argsort(ranks, axis=1, kind="stable").astype(np.uint32)
        self.sorted_ranks = np.take_along_axis(ranks, self.order.astype(np.intp), axis=1)
        self.sorted_classes = np.ascontiguousarray(class_index[self.order])
        bounds = np.linspace(0, X.shape[1], min(available_cores(), X.shape[1]) + 1)
        self.blocks = [(int(start), int(stop)) for start, stop in
                       zip(bounds[:-1].round(), bounds[1:].round()) if stop > start]

    def predict_classes(self, stump):
        """Class indices the stump predicts for the training rows, from the ranks."""
        tree = stump.tree_
        if tree.node_count == 1:
            return np.full(self.X.shape[0], tree.majority_class[0])
        feature = tree.nodes["feature"][0]
        goes_left = self.X[:, feature] <= tree.nodes["threshold"][0]
        return np.where(goes_left, tree.majority_class[1], tree.majority_class[2])

    def fit(self, weight, stump):
        """``stump`` (an unfitted copy of ``template``) fitted with ``weight``."""
        class_weights = np.bincount(self.class_index, weights=weight,
                                    minlength=self.n_classes)
        present = weight > 0
        root_impurity = self._impurity(class_weights)
        split = None
        if root_impurity > PURE_IMPURITY and present.sum() >= max(
                2, 2 * self.min_samples_leaf):
            split = self._best_split(weight)
        return self._as_tree(weight, class_weights, root_impurity, split, stump)

    def _best_split(self, weight):
        """The best root split, features searched in blocks on the threads."""
        values, offsets = self.ranked.values, self.ranked.value_offsets

        def search(block):
            start, stop = block
            return best_stump(self.order[start:stop], self.sorted_ranks[start:stop],
                              self.sorted_classes[start:stop], values, offsets, weight,
                              self.n_classes, self.min_samples_leaf,
                              self.template.criterion in ENTROPY_NAMES, start)

        best = None
        # Blocks in feature order, compared as the kernel compares features.
        for split in map_blocks(search, self.blocks):
            if split is not None and (best is None or split_beats(
                    split[3], split[0], best[3], best[0], split[4])):
                best = split
        return None if best is None else best[:3]

    def _impurity(self, class_weights):
        """Gini or entropy (bits) of class weights, by the template's criterion."""
        fractions = class_weights / class_weights.sum()
        if self.template.criterion == "gini":
            return 1.0 - float(np.sum(fractions ** 2))
        nonzero = fractions[fractions > 0]
        return float(-np.sum(nonzero * np.log2(nonzero)))

    def _as_tree(self, weight, class_weights, root_impurity, split, stump):
        rows = [(weight > 0, class_weights, root_impurity)]
        nodes = np.zeros(1 if split is None else 3, dtype=NODE_DTYPE)
        nodes["left_child"] = -1
        nodes["right_child"] = -1
        nodes["feature"] = -2
        nodes["threshold"] = -2.0
        if split is not None:
            feature, threshold, threshold_rank = split
            goes_left = self.ranked.ranks[feature] <= threshold_rank
            nodes[0] = (1, 2, feature, threshold)
            for side in (goes_left, ~goes_left):
                side_weights = np.bincount(self.class_index[side], weights=weight[side],
                                           minlength=self.n_classes)
                rows.append(((weight > 0) & side, side_weights,
                             self._impurity(side_weights)))
        arrays = {
            "nodes": nodes,
            "impurity": np.array([impurity for _, _, impurity in rows]),
            "n_node_samples": np.array([int(mask.sum()) for mask, _, _ in rows]),
            "weighted_n_node_samples": np.array([weights.sum() for _, weights, _ in rows]),
            "value": np.array([weights / weights.sum() for _, weights, _ in rows]),
            "max_depth": 0 if split is None else 1,
        }
        stump.tree_ = Tree(self.X.shape[1], self.n_classes, arrays)
        stump.n_features_in_ = self.X.shape[1]
        stump.n_outputs_ = 1
        stump.max_features_ = self.X.shape[1]
        stump.classes_ = self.classes
        stump.n_classes_ = self.n_classes
        return stump


class BaseBoosting(BaseEnsemble):
    """What both AdaBoost estimators share: fit's signature, and what they
    share once fitted."""

    @shared_docs
    def fit(self, X, y, sample_weight=None):
        """Boost.

        Parameters
        ----------
        {member_fit_X}
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), default=None
            Initial weights (normalised); None gives 1/N each.

        Returns
        -------
        self
        """
        return self._boost(X, y, sample_weight)

    def _keep_rounds(self, progress, estimators, weights, errors):
        """Store the members boosted with their weights and errors, and close
        the progress line (if any) at the number of rounds kept."""
        if progress is not None:
            progress.step(len(estimators) - progress.done)
            progress.finish()
        self.estimators_ = estimators
        self.estimator_weights_ = np.array(weights)
        self.estimator_errors_ = np.array(errors)

    def _checked_fit_input(self, X, estimator):
        """X as the members take it (see ``member_matrix``; categorical columns
        as codes), its feature names (or None), its category encoding, and the
        estimator to boost, told which features are categorical when it takes
        ``categorical_features``."""
        X = as_frame(X)
        names = feature_names_of(X)
        X, encoding = self._categories_for_fit(X, names)
        X = member_matrix(X, reads_float32=isinstance(estimator, BaseEstimator),
                          estimator=type(self).__name__, allow_nd=True)
        if encoding is not None and "categorical_features" in estimator.get_params(deep=False):
            estimator = type(estimator)(**{**estimator.get_params(deep=False),
                                           "categorical_features": encoding.mask})
        return X, names, encoding, estimator

    def _member_matrix(self, X):
        """X for the fitted members' predictions (see ``member_matrix``)."""
        return member_matrix(X, reads_float32=isinstance(self.estimators_[0], BaseEstimator),
                             estimator=type(self).__name__, allow_nd=True)

    def staged_score(self, X, y, sample_weight=None):
        """The score after each round: accuracy, or R^2 for the regressor.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), default=None

        Yields
        ------
        float
            ``score(X, y)`` of the first 1, 2, ... estimators.
        """
        weight = None
        for stage, predicted in enumerate(self.staged_predict(X)):
            if stage == 0:
                weight = self._scoring_weight(sample_weight, len(predicted))
            yield self._score_of(y, predicted, weight)

    @property
    def feature_importances_(self):
        """The estimators' feature importances averaged with the estimator weights."""
        self._check_fitted()
        self._check_members()
        importances = sum(alpha * member.feature_importances_
                          for member, alpha in zip(self.estimators_, self.estimator_weights_))
        total = importances.sum()
        return importances / total if total > 0 else importances


@model_file_class
@shared_docs
class AdaBoostClassifier(ClassifierMixin, BaseBoosting):
    """AdaBoost with SAMME, the multi-class rule that is the textbook's for two classes.

    Sample weights start at 1/N (or the normalised ``sample_weight``). Each
    round fits the estimator with the current weights, measures its weighted
    error e, and gives it the weight
    ``learning_rate * (log((1 - e) / e) + log(K - 1))``; the weights of the
    rows it misclassified are multiplied by ``exp`` of that weight and all are
    renormalised. An estimator with error 0 is kept and boosting stops; one
    with error >= 1 - 1/K is discarded and boosting stops.

    When the estimator is a fasttree stump (``DecisionTreeClassifier(max_depth=1)``
    with the default other parameters but ``criterion`` and
    ``min_samples_leaf``), every feature is sorted once per fit and each round
    is one weighted sweep, without the GIL. Any other fasttree tree reuses the
    fit's feature ranks in every round, so no round sorts values again.

    Parameters
    ----------
    estimator : classifier or None, default=None
        Any classifier whose ``fit`` takes ``sample_weight`` (fasttree's or
        scikit-learn's); None means ``DecisionTreeClassifier(max_depth=1)``.
    n_estimators : int, default=50
        Most rounds.
    learning_rate : float, default=1.0
        Multiplies every estimator weight.
    boosting : {'reweight', 'resample'}, default='reweight'
        'reweight' passes the weights to the estimator; 'resample' fits it on
        N rows drawn with probabilities equal to the weights (the replicated
        training set), with unit weights.
    random_state : None, int, numpy Generator or RandomState, default=None
        Seeds the resampling (for an int, the draws are
        ``numpy.random.default_rng(random_state).choice(N, N, p=weights)``, one
        per round) and, separately, the estimators' own randomness.
    {member_categorical_features}
        Stumps on categorical data or data with missing values are grown by
        the tree builder, not the presorted sweep.
    {boosting_verbose}

    Attributes
    ----------
    {fitted_boosting}
    estimator_errors_ : ndarray of float64
        Each kept member's weighted training error e.
    classes_ : ndarray
        The class labels, sorted.
    n_classes_ : int
        Number of classes.
    {fitted_inputs}
    """

    def __init__(self, estimator=None, n_estimators=50, *, learning_rate=1.0,
                 boosting="reweight", random_state=None, categorical_features="from_dtype",
                 verbose=0):
        self._set_parameters(locals())

    def _template(self):
        """The estimator the members are copies of (unchecked)."""
        return DecisionTreeClassifier(max_depth=1) if self.estimator is None else self.estimator

    def _check_parameters(self):
        check_boosting_parameters(self.n_estimators, self.learning_rate)
        check_verbose(self.verbose)
        check_choice(self.boosting, "boosting", ("reweight", "resample"))
        estimator = check_template(self._template(), self)
        if self.boosting == "reweight" and "sample_weight" not in inspect.signature(
                estimator.fit).parameters:
            raise ValueError(f"{type(estimator).__name__} doesn't support sample_weight "
                             "(its fit takes none); use boosting='resample'")
        return estimator

    def _boost(self, X, y, sample_weight):
        """fit's work for class labels (see ``BaseBoosting.fit``)."""
        name = type(self).__name__
        estimator = self._check_parameters()
        X, names, encoding, estimator = self._checked_fit_input(X, estimator)
        classes, class_index = encode_labels(y, X.shape[0], name)
        n_classes = len(classes)
        weight = check_sample_weight(sample_weight, X.shape[0], estimator=name)
        weight = weight / weight.sum()
        rng, member_rng = boosting_generators(self.random_state)
        # The presorted stumps split numbers without missing values only.
        fast = (self.boosting == "reweight" and uses_fast_stump(estimator)
                and encoding is None and not np.isnan(X).any())
        stumps = PresortedStumps(X, class_index, classes, estimator) if fast else None
        ranked = None if fast else shared_ranks(estimator, X, encoding)

        estimators, weights, errors = [], [], []
        progress = progress_of(self, "rounds boosted", self.n_estimators)
        for _ in range(self.n_estimators):
            if progress is not None:
                progress.step(len(estimators) - progress.done)
            if fast:
                member = stumps.fit(weight, fresh_member(estimator, member_rng))
            else:
                member = self._fit_member(estimator, X, class_index, classes, weight, rng,
                                          member_rng, ranked)
            predicted = (stumps.predict_classes(member) if fast
                         else self._member_classes(member, X, classes))
            wrong = predicted != class_index
            error = float(np.sum(weight[wrong]))
            if error <= 0.0:
                estimators.append(member)
                weights.append(1.0)
                errors.append(0.0)
                break
            if error >= 1.0 - 1.0 / n_classes:
                if not estimators:
                    raise ValueError(f"{name}: the first estimator is worse than random: its "
                                     f"error {error:.3f} is no better than chance (1 - 1/K = "
                                     f"{1.0 - 1.0 / n_classes:.3f}); boosting cannot start")
                break
            with np.errstate(over="ignore"):
                alpha = self.learning_rate * (estimator_weight_log(error)
                                              + np.log(n_classes - 1))
            check_finite_estimator_weight(alpha, name, self.learning_rate)
            estimators.append(member)
            weights.append(alpha)
            errors.append(error)
            with np.errstate(over="ignore"):
                weight = weight * np.exp(alpha * wrong)
            total = weight.sum()
            if not np.isfinite(total):
                # scikit-learn's words: the weights cannot carry on.
                warn_user(f"Sample weights have reached infinite values, at iteration "
                              f"{len(estimators)}, causing overflow. Iterations stopped. Try "
                              "lowering the learning rate.", UserWarning)
                break
            weight /= total

        self._keep_rounds(progress, estimators, weights, errors)
        self.classes_ = classes
        self.n_classes_ = n_classes
        self._members_labelled = True
        self._set_input_attributes(X.shape[1], names, encoding)
        name_members(self.estimators_, names)
        return self

    def _fit_member(self, estimator, X, class_index, classes, weight, rng, member_rng,
                    ranked):
        """A member fitted on the class indices; a fasttree tree then takes the
        labels as its ``classes_``, so that it prints and predicts like the
        ensemble (learning the labels themselves would cost every round a
        sort of them)."""
        member = fresh_member(estimator, member_rng)
        if self.boosting == "reweight":
            member = fit_member(member, X, class_index, weight, ranked)
        else:
            member = fit_on_draws(member, X, class_index, weight, rng, ranked)
        if isinstance(member, DecisionTreeClassifier):
            member.classes_ = classes[member.classes_]
        return member

    def _member_classes(self, member, X, classes=None):
        """Indices in ``classes`` (default ``classes_``) of the classes a
        member predicts."""
        if not isinstance(member, DecisionTreeClassifier):
            return np.asarray(member.predict(X)).astype(np.intp)
        # X was checked by this ensemble, as the member would check it: the
        # member's own checks would cost more than its walk on a few rows.
        return self._class_indices(np.asarray(member.classes_), classes)[
            member._class_index_of(X)]

    def _class_indices(self, member_classes, classes=None):
        """Indices in ``classes`` (default ``classes_``) of a fasttree
        member's ``classes_``: its labels, or for a member fitted by an
        earlier fasttree the indices themselves."""
        if classes is None:
            if not getattr(self, "_members_labelled", False):
                return member_classes.astype(np.intp)
            classes = self.classes_
        return np.searchsorted(classes, member_classes)

    def _staged_scores(self, X):
        X = self._checked_predict_input(X, self._member_matrix)
        scores = np.zeros((X.shape[0], self.n_classes_))
        rows = np.arange(X.shape[0])
        for member, alpha in zip(self.estimators_, self.estimator_weights_):
            scores[rows, self._member_classes(member, X)] += alpha
            yield scores

    def _scores(self, X):
        scores = None
        for scores in self._staged_scores(X):
            pass
        return scores

    def decision_function(self, X):
        """The weighted votes in scikit-learn's symmetric SAMME coding.

        Each estimator adds its weight to the class it predicts and minus
        1 / (K - 1) of it to every other class; the sums are divided by the
        total weight, so a row's scores add up to 0.

        Returns
        -------
        ndarray of shape (n_samples, n_classes), or (n_samples,) for two
        classes (the second class's score minus the first's); zeros of shape
        (n_samples, 1) for a single class.
        """
        return self._decision(self._scores(X), self.estimator_weights_.sum())

    def staged_decision_function(self, X):
        """``decision_function`` after each round (a generator)."""
        self._check_fitted()  # before the weights are read
        for weight_sum, scores in zip(np.cumsum(self.estimator_weights_),
                                      self._staged_scores(X)):
            yield self._decision(scores, weight_sum)

    def predict(self, X):
        """Class with the largest weighted vote (the first class on ties)."""
        scores = self._scores(X)  # checks the fit before classes_ is read
        return self.classes_[np.argmax(scores, axis=1)]

    def predict_proba(self, X):
        """Class probabilities from the decision function, as scikit-learn
        computes them: a softmax of the scores over K - 1 (of plus and minus
        half the score for two classes)."""
        return self._probabilities(self.decision_function(X))

    def staged_predict(self, X):
        """Predictions after each round (a generator)."""
        for scores in self._staged_scores(X):
            yield self.classes_[np.argmax(scores, axis=1)]

    def staged_predict_proba(self, X):
        """``predict_proba`` after each round (a generator)."""
        for decision in self.staged_decision_function(X):
            yield self._probabilities(decision)

    def _decision(self, scores, weight_sum):
        """Summed estimator weights per class (``scores``) in the symmetric coding."""
        n_classes = self.n_classes_
        if n_classes == 1:
            # One class: nothing to tell apart.
            return np.zeros((scores.shape[0], 1))
        decision = (n_classes * (scores / weight_sum) - 1.0) / (n_classes - 1)
        return decision[:, 1] - decision[:, 0] if n_classes == 2 else decision

    def _probabilities(self, decision):
        n_classes = self.n_classes_
        if n_classes == 1:
            return np.ones((decision.shape[0], 1))
        if n_classes == 2:
            decision = np.column_stack([-decision, decision]) / 2.0
        else:
            decision = decision / (n_classes - 1)
        exponentials = np.exp(decision - decision.max(axis=1, keepdims=True))
        return exponentials / exponentials.sum(axis=1, keepdims=True)


@model_file_class
@shared_docs
class AdaBoostRegressor(RegressorMixin, BaseBoosting):
    """AdaBoost.R2 (Drucker, 1997): boosting for regression by resampling.

    Weights start at 1/N. Each round fits the estimator on N rows drawn with
    probabilities equal to the weights, measures every row's loss L_i in
    [0, 1] (its absolute error over the largest one, squared or
    ``1 - exp(-x)`` of it by ``loss``), the weighted mean loss Lbar, and
    ``beta = Lbar / (1 - Lbar)``. The estimator's weight is
    ``learning_rate * log(1 / beta)`` and each row's weight is multiplied by
    ``beta ** ((1 - L_i) * learning_rate)``. A perfect estimator is kept
    (weight 1) and boosting stops; one with Lbar >= 0.5 is discarded and
    boosting stops (the first estimator is kept alone, weight 1, since there
    is nothing else to predict with). The prediction is the weighted median
    of the estimators'.

    Parameters
    ----------
    estimator : regressor or None, default=None
        Any regressor (fasttree's or scikit-learn's); None means
        ``DecisionTreeRegressor(max_depth=3)``.
    n_estimators : int, default=50
        Most rounds.
    learning_rate : float, default=1.0
        Scales every estimator weight and the exponent of the row weights'
        update.
    loss : {'linear', 'square', 'exponential'}, default='linear'
        How a row's absolute error over the largest one becomes its loss
        L_i: as it is, squared, or ``1 - exp(-x)``.
    random_state : None, int, numpy Generator or RandomState, default=None
        Seeds the resampling (for an int, the draws are
        ``numpy.random.default_rng(random_state).choice(N, N, p=weights)``,
        one per round) and, separately, the estimators' own randomness.
    {member_categorical_features}
    {boosting_verbose}

    Attributes
    ----------
    {fitted_boosting}
    estimator_errors_ : ndarray of float64
        The weighted mean loss Lbar of each kept member.
    {fitted_inputs}
    """

    _losses = {
        "linear": lambda scaled: scaled,
        "square": lambda scaled: scaled ** 2,
        "exponential": lambda scaled: 1.0 - np.exp(-scaled),
    }

    def __init__(self, estimator=None, n_estimators=50, *, learning_rate=1.0, loss="linear",
                 random_state=None, categorical_features="from_dtype", verbose=0):
        self._set_parameters(locals())

    def _template(self):
        """The estimator the members are copies of (unchecked)."""
        return DecisionTreeRegressor(max_depth=3) if self.estimator is None else self.estimator

    def _boost(self, X, y, sample_weight):
        """fit's work for real targets (see ``BaseBoosting.fit``)."""
        name = type(self).__name__
        check_boosting_parameters(self.n_estimators, self.learning_rate)
        check_verbose(self.verbose)
        check_choice(self.loss, "loss", tuple(self._losses))
        estimator = check_template(self._template(), self)
        X, names, encoding, estimator = self._checked_fit_input(X, estimator)
        target = check_regression_target(y, X.shape[0], name)
        if target.ndim != 1:
            raise ValueError(f"{name}: y must be 1-D (one target per sample); AdaBoost "
                             f"boosts one output, got shape {target.shape}")
        weight = check_sample_weight(sample_weight, X.shape[0], estimator=name)
        weight = weight / weight.sum()
        rng, member_rng = boosting_generators(self.random_state)
        ranked = shared_ranks(estimator, X, encoding)
        estimators, weights, errors = [], [], []
        progress = progress_of(self, "rounds boosted", self.n_estimators)
        for _ in range(self.n_estimators):
            if progress is not None:
                progress.step(len(estimators) - progress.done)
            member = fit_on_draws(fresh_member(estimator, member_rng), X, target, weight, rng,
                                  ranked)
            predicted = np.asarray(member.predict(X), dtype=np.float64)
            if not np.isfinite(predicted).all():
                raise ValueError(
                    f"{name}: the estimator ({type(member).__name__}) predicted NaN or "
                    "infinity for training rows, its own arithmetic overflowed on y "
                    f"(|y| up to {np.max(np.abs(target)):.3g}); scale y down, or boost "
                    "fasttree's DecisionTreeRegressor(criterion='absolute_error'), which "
                    "fits any finite y")
            # Halved: the difference of targets and predictions near the
            # float64 limit, of opposite signs, would overflow; halving is
            # exact, and only the errors' ratios to the largest are used.
            absolute_error = np.abs(0.5 * target - 0.5 * predicted)
            largest = absolute_error.max()
            losses = self._losses[self.loss](absolute_error / largest) if largest > 0 else None
            mean_loss = float(np.sum(weight * losses)) if largest > 0 else 0.0
            if mean_loss <= 0.0:
                estimators.append(member)
                weights.append(1.0)
                errors.append(0.0)
                break
            if mean_loss >= 0.5:
                if not estimators:
                    # Nothing better to predict with: the first estimator stays,
                    # alone, as in scikit-learn.
                    estimators.append(member)
                    weights.append(1.0)
                    errors.append(mean_loss)
                break
            beta = mean_loss / (1.0 - mean_loss)
            estimators.append(member)
            with np.errstate(over="ignore"):
                weights.append(self.learning_rate * estimator_weight_log(mean_loss))
            check_finite_estimator_weight(weights[-1], name, self.learning_rate)
            errors.append(mean_loss)
            weight = weight * beta ** ((1.0 - losses) * self.learning_rate)
            weight /= weight.sum()
        self._keep_rounds(progress, estimators, weights, errors)
        self._set_input_attributes(X.shape[1], names, encoding)
        name_members(self.estimators_, names)
        return self

    def _predictions(self, X, n_estimators=None):
        X = self._checked_predict_input(X, self._member_matrix)
        members = self.estimators_[:n_estimators]
        return np.array([member.predict(X) for member in members])

    def predict(self, X):
        """The weighted median of the estimators' predictions.

        For each row, the smallest prediction whose cumulative estimator
        weight, in increasing order of prediction, reaches half the total.
        """
        return weighted_median(self._predictions(X), self.estimator_weights_)

    def staged_predict(self, X):
        """Predictions with the first 1, 2, ... estimators (a generator)."""
        predictions = self._predictions(X)
        for count in range(1, len(self.estimators_) + 1):
            yield weighted_median(predictions[:count], self.estimator_weights_[:count])


def weighted_median(predictions, weights):
    """Per column of ``predictions`` (n_estimators, n_rows), the weighted median."""
    order = np.argsort(predictions, axis=0, kind="stable")
    cumulative = np.cumsum(weights[order], axis=0)
    first = np.argmax(cumulative >= 0.5 * weights.sum(), axis=0)
    rows = np.arange(predictions.shape[1])
    return predictions[order[first, rows], rows]


def estimator_weight_log(error):
    """log((1 - error) / error), a member's log-odds of being right, for an
    error in (0, 1): from logarithms when the ratio overflows (an error
    below about 1e-308, left by denormal sample weights)."""
    with np.errstate(over="ignore", divide="ignore"):
        log_odds = np.log((1.0 - error) / error)
    return log_odds if np.isfinite(log_odds) else np.log1p(-error) - np.log(error)


def check_finite_estimator_weight(weight, estimator, learning_rate):
    """Raise when learning_rate makes a member's weight overflow."""
    if not np.isfinite(weight):
        raise ValueError(f"{estimator}: learning_rate={learning_rate!r} times the member's "
                         "log-odds overflows float64, so its weight would be infinite; use a "
                         "smaller learning_rate")


def check_boosting_parameters(n_estimators, learning_rate):
    """Raise unless n_estimators is an int >= 1 and learning_rate a finite number > 0."""
    check_n_estimators(n_estimators)
    if (not isinstance(learning_rate, (numbers.Real, np.floating))
            or not learning_rate > 0 or not _is_float(learning_rate)):
        raise ValueError(f"learning_rate must be a finite number > 0; got {learning_rate!r}")


def _is_float(value):
    """Whether the real number ``value`` is finite as a float (an int too
    large for a float is not)."""
    try:
        return math.isfinite(value)
    except OverflowError:
        return False
