"""Decision trees for classification and regression: the estimators, grown
by the recipe of ``fasttree._growth``."""

import copy
import math
import numbers
from functools import partial

import numpy as np

from ._base import BaseEstimator, ClassifierMixin, RegressorMixin, parameters_of
from ._docstrings import shared_docs
from ._error_pruning import pessimistic_collapse, reduced_error_collapse
from ._binning import binned_features
from ._features import rank_features
from ._interrupt import current_interrupt, interrupt_scope
from ._growth import (CLASSIFICATION_CRITERIA, REGRESSION_CRITERIA_WITH_QUANTILE,
                      check_criterion, check_criterion_target, check_growth_options,
                      check_loss_matrix, check_quantile_level,
                      checked_fit_input, class_targets, classification_criterion,
                      criterion_named, features_for_growth, grow_c45_tree, grow_tree,
                      regression_criterion, regression_targets, resolve_tree_limits,
                      scale_targets)
from ._threads import resolve_n_jobs, start_threads
from ._targets import (as_1d, class_weight_per_sample, check_regression_target,
                       labels_of_outputs, predicted_classes, target_extent_exponent,
                       weight_exponent)
from ._model_file import model_file_class
from ._validation import (check_random_state, check_sample_weight, check_weight_total,
                          densified, rows_for_walk)

__all__ = ["DecisionTreeClassifier", "DecisionTreeRegressor", "ExtraTreeClassifier",
           "ExtraTreeRegressor"]


@model_file_class
class PruningPath(dict):
    """The result of ``cost_complexity_pruning_path``: a dict whose keys
    ``ccp_alphas`` and ``impurities`` are also attributes."""

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None


class BaseDecisionTree(BaseEstimator):
    """Validation and growth shared by the classifier and the regressor."""

    _fitted_attribute = "tree_"

    _criteria = {}

    def _resolve_limits(self, n_samples, n_features):
        """Check the hyper-parameters and turn fractions into counts."""
        return resolve_tree_limits(self, self._criteria, n_samples, n_features)

    def _set_fitted(self, tree, feature_names, limits, encoding=None, **attributes):
        """Publish the fitted attributes together, once the fit has succeeded.

        A failed refit thus leaves the previous model whole.
        """
        self.tree_ = tree
        self._set_encoding(encoding)
        self.n_features_in_ = tree.n_features
        self.n_outputs_ = tree.n_outputs
        self.max_features_ = limits["max_features"]
        if feature_names is not None:
            self.feature_names_in_ = feature_names
        elif hasattr(self, "feature_names_in_"):
            del self.feature_names_in_
        for name, value in attributes.items():
            setattr(self, name, value)
        start_threads()

    def _grow(self, X, criterion, sample_weight, limits, ranked=None, output_widths=None):
        """Grow a Tree from validated float32 X and a bound criterion.

        ``ranked`` is ``rank_features(X)`` when the caller has it already (a
        booster fitting many trees on one X); otherwise X is ranked here.
        """
        # One Interrupt for the ranking and the growth: it checks for
        # signals at most every few hundredths of a second over the whole
        # fit, where each kernel's own would first check that long after
        # the kernel began (and a short kernel never).
        n_threads = resolve_n_jobs(self.n_jobs)
        with interrupt_scope(current_interrupt()):
            # The ranking (or binning) of X is spread over the threads too.
            ranked, limits = features_for_growth(X, limits, ranked, n_threads=n_threads)
            return grow_tree(ranked, criterion, sample_weight, limits,
                             check_random_state(self.random_state), output_widths,
                             n_threads=n_threads)

    def _shared_bins(self, X, encoding=None, n_threads=1):
        """The bins a fit of this ``splitter='hist'`` tree on all of X sweeps,
        made once for an ensemble's members to share (``ranked`` of their
        fits); its own checks first, so that a bad ``max_bins`` is refused as
        its fit refuses it. ``encoding``: X's categories, which keep theirs."""
        max_bins = self._resolve_limits(*X.shape)["max_bins"]
        return binned_features(X, max_bins, None if encoding is None else encoding.counts,
                               n_threads)

    def _check_fitted(self):
        super()._check_fitted()
        if getattr(self, "n_features_in_", None) != self.tree_.n_features:
            raise ValueError(f"corrupt {type(self).__name__}: n_features_in_ does not match "
                             "the fitted tree")

    def _validate_X_for_predict(self, X, check_finite=False):
        """Validated X for prediction (see ``rows_for_walk``): NaN is a
        missing value; infinity is refused by the prediction kernels, or
        here with ``check_finite``."""
        return self._checked_predict_input(X, partial(
            rows_for_walk, estimator=type(self).__name__, check_finite=check_finite))

    def apply(self, X):
        """Index of the leaf that each sample ends in.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of int, shape (n_samples,)
        """
        X = self._validate_X_for_predict(X)
        return self.tree_.apply(X)

    def decision_path(self, X):
        """Indicator matrix of the nodes that each sample passes through.

        Requires scipy, which builds the sparse matrix.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        scipy.sparse.csr_matrix of shape (n_samples, node_count)
            Entry (i, j) is 1 when sample i passes through node j.
        """
        X = self._validate_X_for_predict(X, check_finite=True)
        return self.tree_.decision_path(X)

    def cost_complexity_pruning_path(self, X, y, sample_weight=None):
        """The pruning path of minimal cost-complexity pruning (CART).

        A tree is grown on (X, y) with this estimator's parameters but
        ``ccp_alpha=0`` and pruned back to its root, weakest link first. A
        node's risk is its impurity times its share of the training weight;
        the tree's is the sum over its leaves.

        Parameters
        ----------
        X, y, sample_weight
            As for ``fit``.

        Returns
        -------
        PruningPath
            ``ccp_alphas``: 0, then the effective alpha of every collapse
            (non-decreasing); ``impurities``: the tree's total leaf risk at
            each step, from the full tree to the root alone. Fitting with
            ``ccp_alpha`` between two consecutive alphas gives the subtree
            of the earlier one.
        """
        grown = type(self)(**{**self.get_params(deep=False), "ccp_alpha": 0.0})
        grown.fit(X, y, sample_weight)
        alphas, risks, _ = grown.tree_.cost_complexity_pruning(math.inf)
        return PruningPath(ccp_alphas=alphas, impurities=risks)

    def prune_reduced_error(self, X, y, sample_weight=None):
        """Reduced-error pruning against a validation set.

        Bottom-up, every inner node whose subtree (as pruned so far) makes
        at least as much validation loss as the node alone would, predicting
        its own training value, becomes a leaf: misclassified weight for
        the classifier, the weighted sum of squared errors for the regressor.
        Subtrees no validation row reaches are pruned.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Validation rows, not those the tree was grown on.
        y : array-like of shape (n_samples,)
            Their labels (labels the tree never saw count as errors
            everywhere) or targets. A classifier with a ``loss_matrix``
            counts costs instead of errors.
        sample_weight : array-like of shape (n_samples,), default=None

        Returns
        -------
        estimator
            A pruned copy; this estimator is left as it is.
        """
        self._check_fitted()
        self._check_prunable()
        X = self._validate_X_for_predict(X, check_finite=True)
        sample_weight = check_sample_weight(sample_weight, X.shape[0],
                                            estimator=type(self).__name__)
        loss_of = self._validation_loss(y, X.shape[0], sample_weight)
        return self._with_tree(self.tree_.pruned(
            reduced_error_collapse(self.tree_, X, loss_of)))

    def _check_prunable(self):
        if self.tree_.n_outputs > 1:
            raise ValueError("reduced-error and pessimistic pruning take one output; a tree "
                             "of several outputs can be pruned with ccp_alpha")
        if not self.tree_.has_statistics:
            raise ValueError("this tree belongs to a forest pickled by an older fasttree "
                             "and keeps no inner-node values; prune a tree fitted on its own")

    def _with_tree(self, tree):
        """A shallow copy of this estimator holding ``tree``."""
        pruned = copy.copy(self)
        pruned.tree_ = tree
        return pruned

    def get_depth(self):
        """Depth of the tree: the longest path from the root to a leaf."""
        self._check_fitted()
        return self.tree_.max_depth

    def get_n_leaves(self):
        """Number of leaves of the tree."""
        self._check_fitted()
        return self.tree_.n_leaves

    @property
    def feature_importances_(self):
        """Normalised total impurity decrease brought by each feature (sums to 1)."""
        self._check_fitted()
        return self.tree_.compute_feature_importances()


@model_file_class
@shared_docs
class DecisionTreeClassifier(ClassifierMixin, BaseDecisionTree):
    """A CART classification tree grown with an exact sorted-threshold search.

    Numeric features split on a threshold, categorical ones on a set of
    categories (or, with ``categorical_split='multiway'``, into one child
    per category, as ID3 and C4.5 do); rows missing a value follow the
    ``missing`` rule.

    Parameters
    ----------
    {classification_tree_parameters}

    Attributes
    ----------
    {fitted_classification_tree}
    """

    # gain_ratio grows multiway (C4.5) trees only; it has no binary criterion.
    _criteria = {**CLASSIFICATION_CRITERIA, "gain_ratio": None}

    def __init__(self, *, criterion="gini", splitter="best",
                 max_bins=255, max_depth=None,
                 min_samples_split=2, min_samples_leaf=1, min_weight_fraction_leaf=0.0,
                 max_features=None,
                 random_state=None, max_leaf_nodes=None, min_impurity_decrease=0.0,
                 class_weight=None, ccp_alpha=0.0, loss_matrix=None,
                 categorical_features="from_dtype", categorical_split="binary",
                 missing="learn", monotonic_cst=None,
                 interaction_cst=None, n_jobs=None):
        criterion = criterion_named(criterion)
        self._set_parameters(locals())

    @shared_docs
    def fit(self, X, y, sample_weight=None):
        """Grow the tree.

        Parameters
        ----------
        {fit_X}
        y : array-like of shape (n_samples,) or (n_samples, n_outputs)
            Class labels of any hashable, sortable type.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights; weight 2 counts like a duplicated row.

        Returns
        -------
        self
        """
        return self._fit(X, y, sample_weight)

    def _encode_targets(self, y, n_samples):
        return class_targets(y, n_samples, type(self).__name__)

    def _fit(self, X, y, sample_weight, ranked=None):
        X, feature_names, encoding, targets, sample_weight = checked_fit_input(
            self, X, y, sample_weight)
        classes, class_index = targets["classes"], targets["class_index"]
        if sample_weight is None:
            sample_weight = np.ones(X.shape[0])
        if self.class_weight is not None:
            sample_weight = check_weight_total(
                sample_weight * class_weight_per_sample(self.class_weight, classes,
                                                        class_index),
                estimator=type(self).__name__, class_weighted=True)
        limits = check_growth_options(self, self._resolve_limits(*X.shape), X.shape[1],
                                      encoding, targets)
        several = targets.get("widths") is not None
        loss = None if several else check_loss_matrix(self.loss_matrix, self.criterion,
                                                       len(classes))
        if limits["multiway"]:
            tree = grow_c45_tree(densified(X), rank_features(X) if ranked is None else ranked,
                                 class_index, sample_weight, len(classes), self, limits,
                                 check_random_state(self.random_state))
        else:
            criterion, widths = classification_criterion(self.criterion, targets,
                                                         sample_weight, loss)
            tree = self._grow(X, criterion, sample_weight, limits, ranked=ranked,
                              output_widths=widths)
        self._set_fitted(tree, feature_names, limits, encoding, classes_=classes,
                         n_classes_=[len(output_classes) for output_classes in classes]
                         if several else len(classes), loss_matrix_=loss)
        return self

    def _validation_loss(self, y, n_samples, sample_weight):
        position = {label: index for index, label in enumerate(self.classes_.tolist())}
        labels = as_1d(y, n_samples, type(self).__name__)
        class_index = np.array([position.get(label, -1) for label in labels.tolist()],
                               dtype=np.intp)
        loss = getattr(self, "loss_matrix_", None)
        if loss is None:
            majority = self.tree_.majority_class
            return lambda rows, nodes: sample_weight[rows] * (majority[nodes]
                                                              != class_index[rows])
        # With a loss matrix a node predicts its class of least expected cost,
        # and a validation row costs loss[truth, prediction] (an unknown label
        # its largest cost).
        predicted = predicted_classes(self.tree_.node_values, loss)
        padded = np.vstack([loss, loss.max(axis=0)])
        return lambda rows, nodes: sample_weight[rows] * padded[class_index[rows],
                                                                predicted[nodes]]

    def prune_pessimistic(self, confidence_factor=0.25):
        """C4.5's pessimistic pruning (subtree replacement), from the training
        counts alone.

        A node with training weight N, of which E lies outside its majority
        class, is expected to make ``N * U_CF(E, N)`` errors as a leaf, where
        ``U_CF`` is the upper limit of the binomial confidence interval at
        confidence ``CF`` (computed exactly, as Clopper-Pearson's; the C4.5
        program approximates it when E > 0). Bottom-up, a node becomes a
        leaf when that is no more than the sum of its leaves' estimates.

        Parameters
        ----------
        confidence_factor : float in (0, 1), default=0.25
            C4.5's ``-c`` option; smaller values prune more.

        Returns
        -------
        DecisionTreeClassifier
            A pruned copy; this estimator is left as it is.
        """
        self._check_fitted()
        self._check_prunable()
        if getattr(self, "loss_matrix_", None) is not None:
            raise ValueError("pessimistic pruning counts errors, not costs; prune a tree "
                             "grown with a loss_matrix with prune_reduced_error")
        if (not isinstance(confidence_factor, (numbers.Real, np.floating))
                or isinstance(confidence_factor, bool) or not 0.0 < confidence_factor < 1.0):
            raise ValueError(f"confidence_factor must be a float in (0, 1); "
                             f"got {confidence_factor!r}")
        return self._with_tree(self.tree_.pruned(
            pessimistic_collapse(self.tree_, float(confidence_factor))))

    def _check_fitted(self):
        super()._check_fitted()
        classes = getattr(self, "classes_", ())
        if isinstance(classes, list):
            if [len(output_classes) for output_classes in classes] != list(
                    self.tree_.output_widths):
                raise ValueError(f"corrupt {type(self).__name__}: classes_ does not match "
                                 "the fitted tree")
        elif len(classes) != self.tree_.n_values:
            raise ValueError(f"corrupt {type(self).__name__}: classes_ does not match the "
                             "fitted tree")

    def predict(self, X):
        """Most probable class of each sample (the first class on ties).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
            Labels of the same type as those given to ``fit``.
        """
        X = self._validate_X_for_predict(X)
        if self.tree_.n_outputs > 1:
            return labels_of_outputs(self.classes_,
                                     self.tree_.split_outputs(self.tree_.predict_values(X)))
        return self.classes_[self._class_index_of(X)]

    def _predict_class_index(self, X):
        """Per row, the position in ``classes_`` of the class ``predict``
        gives (one output)."""
        return self._class_index_of(self._validate_X_for_predict(X))

    def _class_index_of(self, X):
        """``_predict_class_index`` of a checked X."""
        loss = getattr(self, "loss_matrix_", None)
        if loss is not None:
            # The class of least expected cost under the leaf's class fractions.
            return predicted_classes(self.tree_.predict_values(X), loss)
        return self.tree_.predict_class_index(X)

    def predict_proba(self, X):
        """Class probabilities: the weighted class fractions of each sample's leaf.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_classes), or a list of them
            Columns in the order of ``classes_``; one array per output for
            several outputs.
        """
        X = self._validate_X_for_predict(X)
        if self.tree_.n_outputs > 1:
            return [np.ascontiguousarray(output) for output in
                    self.tree_.split_outputs(self.tree_.predict_values(X))]
        return self.tree_.predict_values(X)


@model_file_class
@shared_docs
class DecisionTreeRegressor(RegressorMixin, BaseDecisionTree):
    """A CART regression tree grown with an exact sorted-threshold search.

    Numeric features split on a threshold, categorical ones on a set of
    categories; rows missing a value go to the child learnt for them.

    Parameters
    ----------
    {regression_tree_parameters}

    Attributes
    ----------
    {fitted_tree}
    {fitted_inputs}
    """

    _criteria = REGRESSION_CRITERIA_WITH_QUANTILE

    def __init__(self, *, criterion="squared_error", quantile=0.5, splitter="best",
                 max_bins=255, max_depth=None,
                 min_samples_split=2, min_samples_leaf=1, min_weight_fraction_leaf=0.0,
                 max_features=None,
                 random_state=None, max_leaf_nodes=None, min_impurity_decrease=0.0,
                 ccp_alpha=0.0, categorical_features="from_dtype", monotonic_cst=None,
                 interaction_cst=None, n_jobs=None):
        criterion = criterion_named(criterion)
        self._set_parameters(locals())

    @shared_docs
    def fit(self, X, y, sample_weight=None):
        """Grow the tree.

        Parameters
        ----------
        {fit_X}
        y : array-like of shape (n_samples,) or (n_samples, n_outputs)
            Finite real targets.
        sample_weight : array-like of shape (n_samples,), default=None

        Returns
        -------
        self
        """
        return self._fit(X, y, sample_weight)

    def _encode_targets(self, y, n_samples):
        # The criterion before y: which targets are valid depends on it.
        check_criterion(self.criterion, self._criteria)
        check_quantile_level(self.quantile)
        if self.criterion == "poisson":
            # scikit-learn judges a Poisson target before its length; any
            # other fault is left to check_regression_target to name.
            try:
                values = np.asarray(y, dtype=np.float64)
            except (TypeError, ValueError):
                values = None
            if values is not None and np.isfinite(values).all():
                check_criterion_target(self.criterion, values, type(self).__name__)
        return regression_targets(y, n_samples, type(self).__name__)

    def _fit(self, X, y, sample_weight, ranked=None):
        X, feature_names, encoding, targets, sample_weight = checked_fit_input(
            self, X, y, sample_weight)
        target = targets["target"]
        if sample_weight is None:
            sample_weight = np.ones(X.shape[0])
        limits = self._resolve_limits(*X.shape)
        # A Poisson target that _encode_targets could not read as numbers
        # before checking y is judged here.
        check_criterion_target(self.criterion, target, type(self).__name__)
        check_growth_options(self, limits, X.shape[1], encoding, targets)
        extent = target_extent_exponent(target, self.criterion, type(self).__name__)
        scaled_target = scale_targets(target, self.criterion, extent, limits)
        limits["weight_exponent"] = weight_exponent(float(sample_weight.sum()),
                                                    extent + limits["target_exponent"])
        if limits["weight_exponent"]:
            sample_weight = np.ldexp(sample_weight, -limits["weight_exponent"])
        criterion, widths = regression_criterion(self.criterion, scaled_target, sample_weight,
                                                 self.quantile)
        tree = self._grow(X, criterion, sample_weight, limits, ranked=ranked,
                          output_widths=widths)
        self._set_fitted(tree, feature_names, limits, encoding)
        return self

    def _validation_loss(self, y, n_samples, sample_weight):
        target = check_regression_target(y, n_samples, type(self).__name__)
        mean = self.tree_.first_value
        return lambda rows, nodes: sample_weight[rows] * (mean[nodes] - target[rows]) ** 2

    def predict(self, X):
        """Value of each sample's leaf: its training targets' weighted mean, or
        their weighted median ('absolute_error') or quantile ('quantile').

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of float64, shape (n_samples,) or (n_samples, n_outputs)
        """
        X = self._validate_X_for_predict(X)
        if self.tree_.n_outputs > 1:
            return self.tree_.predict_values(X)
        return self.tree_.predict_mean(X)


@model_file_class
@shared_docs
class ExtraTreeClassifier(DecisionTreeClassifier):
    """An extremely randomized classification tree: a
    :class:`DecisionTreeClassifier` that draws one threshold per feature
    tried (``splitter='random'``) among ``max_features='sqrt'`` features by
    default. Meant as a member of an ensemble (see
    :class:`fasttree.ExtraTreesClassifier`); alone it overfits.

    Parameters
    ----------
    {extra_classification_tree_parameters}

    Attributes
    ----------
    {fitted_classification_tree}
    """

    # splitter='hist' draws a boundary between bins (see _growth.resolve_tree_limits).
    _hist_draws_thresholds = True

    def __init__(self, *, criterion="gini", splitter="random",
                 max_bins=255, max_depth=None,
                 min_samples_split=2, min_samples_leaf=1, min_weight_fraction_leaf=0.0,
                 max_features="sqrt", random_state=None, max_leaf_nodes=None,
                 min_impurity_decrease=0.0, class_weight=None, ccp_alpha=0.0,
                 loss_matrix=None, categorical_features="from_dtype",
                 categorical_split="binary", missing="learn", monotonic_cst=None,
                 interaction_cst=None, n_jobs=None):
        super().__init__(**parameters_of(locals()))


@model_file_class
@shared_docs
class ExtraTreeRegressor(DecisionTreeRegressor):
    """An extremely randomized regression tree: a
    :class:`DecisionTreeRegressor` that draws one threshold per feature
    tried (``splitter='random'``) by default. Meant as a member of an
    ensemble (see :class:`fasttree.ExtraTreesRegressor`); alone it overfits.

    Parameters
    ----------
    {extra_regression_tree_parameters}

    Attributes
    ----------
    {fitted_tree}
    {fitted_inputs}
    """

    # splitter='hist' draws a boundary between bins (see _growth.resolve_tree_limits).
    _hist_draws_thresholds = True

    def __init__(self, *, criterion="squared_error", quantile=0.5, splitter="random",
                 max_bins=255, max_depth=None,
                 min_samples_split=2, min_samples_leaf=1, min_weight_fraction_leaf=0.0,
                 max_features=1.0, random_state=None, max_leaf_nodes=None,
                 min_impurity_decrease=0.0, ccp_alpha=0.0, categorical_features="from_dtype",
                 monotonic_cst=None, interaction_cst=None, n_jobs=None):
        super().__init__(**parameters_of(locals()))
