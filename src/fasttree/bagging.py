"""Bagging: copies of any estimator, each fit on its own sample of the rows and
random subset of the features, their predictions averaged or voted."""

import copy
import math
import inspect
from functools import partial

import numpy as np

from ._binning import select_features
from ._frames import as_frame
from ._base import ClassifierMixin, RegressorMixin, available_if, r2_score
from ._docstrings import shared_docs
from ._model_file import model_file_class
from ._ensemble import (BaseEnsemble, check_flag, check_n_estimators, check_template, describe_y,
                        check_verbose, map_members, member_counts, member_matrix, member_seeds,
                        name_members, resolve_n_draws)
from ._out_of_bag import OutOfBagSums
from ._progress import progress_of
from ._targets import as_1d, check_regression_target, encode_labels
from ._threads import resolve_n_jobs
from ._validation import (check_choice, check_int_or_fraction, check_random_state,
                          check_sample_weight, feature_names_of, warn_user)
from ._routing import metadata_router, routed_member_params, rows_of
from .forest import BaseForest
from .tree import BaseDecisionTree, DecisionTreeClassifier, DecisionTreeRegressor

__all__ = ["BaggingClassifier", "BaggingRegressor"]


def clone_estimator(estimator):
    """A fresh, unfitted estimator of the same class with the same parameters.

    Parameters that are estimators themselves (or lists and tuples of them,
    such as a pipeline's steps) are cloned as well, so that no two members
    share a fitted sub-estimator.
    """
    params = estimator.get_params(deep=False)
    return type(estimator)(**{name: _clone_parameter(value)
                              for name, value in params.items()})


def _clone_parameter(value):
    if hasattr(value, "get_params") and not isinstance(value, type):
        return clone_estimator(value)
    if type(value) in (list, tuple):
        return type(value)(_clone_parameter(item) for item in value)
    return copy.deepcopy(value)


def accepts_sample_weight(estimator):
    """Whether ``estimator.fit`` has a ``sample_weight`` parameter."""
    try:
        return "sample_weight" in inspect.signature(estimator.fit).parameters
    except (TypeError, ValueError):
        return False


class BaseBagging(BaseEnsemble):
    """Drawing, fitting, out-of-bag estimates and importances shared by both baggers."""

    _default_estimator = None
    # A fitted bagger keeps its members' feature subsets (_state_checks).
    _member_feature_subsets = True

    # ------------------------------------------------------------ checks

    def _template(self):
        """The estimator the members are copies of (unchecked)."""
        return self._default_estimator() if self.estimator is None else self.estimator

    def get_metadata_routing(self):
        """How scikit-learn's metadata routing passes this ensemble's extra
        keyword arguments on to the members' methods.

        Returns
        -------
        sklearn.utils.metadata_routing.MetadataRouter
        """
        return metadata_router(self, self._template(), self._member_methods())

    def _check_parameters(self, n_samples, n_features, weight_total=None):
        """Validate the bagging parameters; return (draws per member, features per
        member). ``weight_total``: the sum of the sample weights the draws follow."""
        check_n_estimators(self.n_estimators)
        for name in ("bootstrap", "bootstrap_features", "oob_score", "warm_start"):
            check_flag(getattr(self, name), name)
        check_verbose(self.verbose)
        n_draws = resolve_n_draws(self.max_samples, n_samples, replace=self.bootstrap,
                                  weight_total=weight_total)
        max_features = check_int_or_fraction(self.max_features, "max_features",
                                             minimum_int=1)
        if isinstance(max_features, float):
            # Rounded down, as a tree's fractional max_features is.
            n_chosen = max(1, int(max_features * n_features))
        elif max_features > n_features:
            raise ValueError(f"max_features={max_features} exceeds the number of features "
                             f"({n_features})")
        else:
            n_chosen = max_features
        if self.oob_score and not self.bootstrap and n_draws >= n_samples:
            raise ValueError("oob_score=True needs rows left out of the members' samples: "
                             "set bootstrap=True or max_samples below 1.0 (all rows)")
        self._check_combination()
        return n_draws, n_chosen

    def _validate_X_for_predict(self, X):
        return self._checked_predict_input(
            X, lambda X: member_matrix(X, reads_float32=self._float32,
                                     estimator=type(self).__name__, check_finite=False))

    # ------------------------------------------------------------ fitting

    @shared_docs
    def fit(self, X, y, sample_weight=None, **fit_params):
        """Fit the members, each on its own rows and features.

        Parameters
        ----------
        {member_fit_X}
        y : array-like of shape (n_samples,) or (n_samples, n_outputs)
            Class labels (classifier) or real targets (regressor, which
            takes several outputs).
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights. Each member draws its rows with probabilities
            proportional to them (a row of weight 2 is drawn as often as two
            rows of weight 1, as in scikit-learn 1.9), so any estimator can be
            bagged with weights; a fractional ``max_samples`` is then a share
            of the total weight.
        **fit_params : dict
            Passed on to the members' ``fit`` through scikit-learn's metadata
            routing (which must be on, and the parameters requested with the
            member's ``set_fit_request``); values with one entry per row are
            taken at the member's rows.

        Returns
        -------
        self
        """
        name = type(self).__name__
        member_fit_params = routed_member_params(self, "fit", fit_params).get("fit", {})
        template = check_template(self._template(), self)
        weighted = accepts_sample_weight(template)
        # fasttree estimators work in float32: converting once here spares
        # every member its own conversion.
        use_float32 = isinstance(template, (BaseDecisionTree, BaseForest))
        X = as_frame(X)
        feature_names = feature_names_of(X)
        X, encoding = self._categories_for_fit(X, feature_names)
        X = member_matrix(X, reads_float32=use_float32, estimator=name)
        n_samples, n_features = X.shape
        # Members that take categorical features are told which of theirs are.
        is_categorical = None
        if encoding is not None and "categorical_features" in template.get_params(deep=False):
            is_categorical = encoding.mask
        targets = self._encode_targets(y, n_samples)
        probabilities = None
        if sample_weight is not None:
            user_weight = check_sample_weight(sample_weight, n_samples, estimator=name)
            probabilities = user_weight / user_weight.sum()
            if not self.bootstrap:
                warn_user(f"When fitting {name} with sample_weight it is recommended to "
                              f"use bootstrap=True, got {self.bootstrap}.", UserWarning)
        n_draws, n_chosen = self._check_parameters(
            n_samples, n_features, None if sample_weight is None else float(user_weight.sum()))
        n_threads = resolve_n_jobs(self.n_jobs)

        fitted = self._warm_start_from(n_features, encoding,
                                       len(getattr(self, "estimators_", ())))
        if fitted:
            if n_samples != self._n_samples:
                raise ValueError(f"warm_start: X has {n_samples} rows, but the ensemble "
                                 f"was fitted on {self._n_samples}; pass the same data")
            self._check_warm_targets(*self._warm_targets(targets))
        members = list(self.estimators_) if fitted else []
        features = list(self.estimators_features_) if fitted else []
        draws = list(self._member_draws) if fitted else []
        base_seed = self._base_seed if fitted else check_random_state(self.random_state)

        binned = None
        if (isinstance(template, BaseDecisionTree) and template.splitter == "hist"
                and not member_fit_params):
            # Binned once, from all the rows, for every member.
            binned = template._shared_bins(X, encoding, n_threads)
        new = self._fit_members(template, X, targets["fit_target"], probabilities, weighted,
                                base_seed, range(len(members), self.n_estimators),
                                n_draws, n_chosen, n_threads, is_categorical,
                                drawn_rows_only=use_float32, fit_params=member_fit_params,
                                binned=binned)
        for member, member_features in new:
            members.append(member)
            features.append(member_features)
            draws.append((n_draws, bool(self.bootstrap), probabilities))

        # Published together once every member is fitted, so that a failed
        # refit leaves the previous ensemble whole.
        self.estimator_ = clone_estimator(template)
        self.estimators_ = members
        self.estimators_features_ = features
        self._member_draws = draws
        self._max_samples = n_draws  # scikit-learn's name for the draws per member
        self._base_seed = base_seed
        self._n_samples = n_samples
        self._float32 = use_float32
        self._set_input_attributes(n_features, feature_names, encoding)
        name_members(members, feature_names, features)
        self._set_target_attributes(targets)
        for attribute in ("oob_score_", "oob_decision_function_", "oob_prediction_"):
            if hasattr(self, attribute):
                delattr(self, attribute)
        if self.oob_score:
            self._compute_oob(X, targets)
        return self

    def _fit_members(self, template, X, y, probabilities, weighted, base_seed, indices,
                     n_draws, n_chosen, n_threads, is_categorical=None, drawn_rows_only=False,
                     fit_params=None, binned=None):
        """Fit the members at ``indices`` on ``n_threads`` threads; results in order.

        Each draws its rows with ``probabilities`` (None: all alike); its draw
        counts are its sample weights where it takes them (over every row,
        or over the drawn rows only with ``drawn_rows_only``), else its rows
        are repeated.

        ``is_categorical``: the features X holds as category codes, for
        members that take ``categorical_features``. ``fit_params``: routed
        to every member's ``fit`` (see :func:`rows_of`). ``binned``: X's
        binned features (``fasttree._binning.binned_features``) for fasttree
        trees of ``splitter='hist'``, which then grow on every row, weighed
        by their draw counts, from their features of these bins.
        """
        n_samples, n_features = X.shape
        seeded = sorted(key for key in template.get_params(deep=True)
                        if key == "random_state" or key.endswith("__random_state"))

        def fit_one(index):
            counts = member_counts(base_seed, index, n_samples, n_draws, self.bootstrap,
                                   probabilities)
            rng = np.random.default_rng(member_seeds(base_seed, index)[1])
            features = rng.choice(n_features, n_chosen,
                                  replace=self.bootstrap_features).astype(np.intp)
            if not self.bootstrap_features:
                features.sort()
            member = clone_estimator(template)
            # Members get their own seeds, so that randomised estimators differ
            # from one another and the ensemble depends on random_state alone.
            if seeded:
                member.set_params(**{key: int(rng.integers(0, 2**31 - 1))
                                     for key in seeded})
            if is_categorical is not None:
                member.set_params(categorical_features=is_categorical[features])
            if binned is not None:
                every = features.size == n_features and np.all(features == np.arange(n_features))
                member._fit(X if every else X[:, features], y, counts.astype(np.float64),
                            ranked=binned if every else select_features(binned, features))
            elif weighted:
                # Every row, with its count as its weight, as scikit-learn passes
                # them (a member may treat a weight of 0 as it likes); fasttree
                # trees ignore such rows, so they get the drawn rows only.
                rows = np.flatnonzero(counts) if drawn_rows_only else np.arange(n_samples)
                member.fit(X[np.ix_(rows, features)], y[rows], sample_weight=counts[rows],
                           **rows_of(fit_params or {}, rows, n_samples))
            else:
                rows = np.repeat(np.arange(n_samples), counts)
                member.fit(X[np.ix_(rows, features)], y[rows],
                           **rows_of(fit_params or {}, rows, n_samples))
            return member, features

        return map_members(fit_one, indices, n_threads,
                           progress_of(self, "estimators fitted", len(indices)))

    def _member_counts(self, index):
        """How often member ``index`` drew each training row (drawn again from its seed)."""
        # Models pickled before weighted draws hold (n_draws, replace) pairs.
        n_draws, replace, probabilities = (*self._member_draws[index], None)[:3]
        return member_counts(self._base_seed, index, self._n_samples, n_draws, replace,
                             probabilities)

    @property
    def estimators_samples_(self):
        """Per member, the indices of the training rows it drew (with repeats, sorted)."""
        self._check_fitted()
        rows = np.arange(self._n_samples)
        return [np.repeat(rows, self._member_counts(index))
                for index in range(len(self.estimators_))]

    # ------------------------------------------------------------ members' outputs

    def _map_members(self, function, X, members=None):
        """``function(index, member, X restricted to its features)`` for every member.

        Runs on ``n_jobs`` threads; the results come back in member order,
        so sums over them do not depend on the number of threads.
        """
        if members is None:
            members = range(len(self.estimators_))
        n_features = X.shape[1]

        def run(index):
            features = self.estimators_features_[index]
            identity = features.shape[0] == n_features and np.array_equal(
                features, np.arange(n_features))
            return function(index, self.estimators_[index],
                            X if identity else X[:, features])

        return map_members(run, members, resolve_n_jobs(self.n_jobs))

    def _mean_output(self, function, X):
        """Mean over members of ``function``'s output, summed in member order."""
        outputs = self._map_members(function, X)
        # Outputs near the float64 limit are summed over a power of two at
        # least the number of members, so that the sum cannot overflow.
        largest = max(float(np.max(np.abs(output), initial=0.0)) for output in outputs)
        exponent = (math.ceil(math.log2(len(outputs)))
                    if largest > np.finfo(np.float64).max / len(outputs) else 0)
        total = np.zeros_like(outputs[0], dtype=np.float64)
        for output in outputs:
            total += np.ldexp(output, -exponent) if exponent else output
        return np.ldexp(total / len(outputs), exponent) if exponent else total / len(outputs)

    def _compute_oob(self, X, targets):
        """Each training row through the members that did not draw it."""
        n_samples = X.shape[0]
        output = self._oob_output

        def out_of_bag(index, member, X_member):
            rows = np.flatnonzero(self._member_counts(index) == 0)
            if rows.size == 0:
                return rows, None
            return rows, output(index, member, X_member[rows])

        oob = OutOfBagSums(n_samples)
        for rows, values in self._map_members(out_of_bag, X):
            if values is not None:
                oob.add(rows, values)
        self._set_oob_attributes(oob.averages(), oob.covered(), targets)

    @property
    def feature_importances_(self):
        """The members' ``feature_importances_``, mapped back to the original
        features (a feature drawn twice gets both shares), averaged and
        normalised to sum to 1.

        Raises AttributeError when a member has no ``feature_importances_``.
        """
        self._check_fitted()
        self._check_members()
        total = np.zeros(self.n_features_in_)
        for member, features in zip(self.estimators_, self.estimators_features_):
            importances = getattr(member, "feature_importances_", None)
            if importances is None:
                raise AttributeError(f"feature_importances_ needs members that have it; "
                                     f"{type(member).__name__} has none")
            np.add.at(total, features, np.asarray(importances, dtype=np.float64))
        mean = total / len(self.estimators_)
        mean_sum = mean.sum()
        return mean / mean_sum if mean_sum > 0 else mean


@model_file_class
@shared_docs
class BaggingClassifier(ClassifierMixin, BaseBagging):
    """Bagging of classifiers: bootstrap aggregation, subagging, random subspaces.

    Every member is a clone of ``estimator`` fit on its own draw of the rows
    (a bootstrap sample, or a subsample without replacement) restricted to
    its own random subset of the features. Members are fit on ``n_jobs``
    threads; fasttree trees release the GIL while they grow.

    Parameters
    ----------
    estimator : classifier or None, default=None
        The estimator to bag; None means ``DecisionTreeClassifier()``. A
        fasttree or scikit-learn classifier; one whose ``fit`` lacks
        ``sample_weight`` is fit on the drawn rows repeated as often as drawn.
    {bagging}
    voting : {'soft', 'hard'}, default='soft'
        'soft' predicts the class of highest mean probability; 'hard' the
        class most members predict (ties go to the first class in
        ``classes_``). Soft voting falls back to hard voting when the members
        have no ``predict_proba``.
    {member_categorical_features}

    Attributes
    ----------
    {fitted_bagging}
    oob_decision_function_ : ndarray of shape (n_samples, n_classes)
        With ``oob_score``: the mean class probabilities (vote shares for
        members without ``predict_proba``) of the members that left each
        row out; NaN for rows every member drew.
    classes_ : ndarray
        The class labels, sorted.
    n_classes_ : int
        Number of classes.
    {fitted_inputs}
    """

    _default_estimator = DecisionTreeClassifier

    def __init__(self, estimator=None, n_estimators=10, *, max_samples=None,
                 max_features=1.0, bootstrap=True, bootstrap_features=False,
                 oob_score=False, warm_start=False, n_jobs=None, random_state=None,
                 verbose=0, voting="soft", categorical_features="from_dtype"):
        self._set_parameters(locals())

    def _check_combination(self):
        check_choice(self.voting, "voting", ("soft", "hard"))

    def _encode_targets(self, y, n_samples):
        name = type(self).__name__
        classes, class_index = encode_labels(y, n_samples, name)
        # Members learn the original labels, so their classes_ and
        # predictions read like this ensemble's.
        labels = as_1d(y, n_samples, name)
        return {"classes": classes, "class_index": class_index, "fit_target": labels}

    def _warm_targets(self, targets):
        """Whether y has the fitted classes, and both described (see
        ``_check_warm_targets``)."""
        return (np.array_equal(targets["classes"], self.classes_), describe_y(self.classes_),
                describe_y(targets["classes"]))

    def _set_target_attributes(self, targets):
        self.classes_ = targets["classes"]
        self.n_classes_ = len(self.classes_)

    def _class_positions(self, labels):
        """Column of ``classes_`` holding each label."""
        labels = np.asarray(labels)
        positions = np.minimum(np.searchsorted(self.classes_, labels), self.n_classes_ - 1)
        if not np.array_equal(self.classes_[positions], labels):
            raise ValueError("a member returned class labels that are not in classes_")
        return positions

    def _has_probabilities(self):
        return all(hasattr(member, "predict_proba") for member in self.estimators_)

    def _member_probabilities(self, index, member, X, params=None):
        """The member's predict_proba (given ``params``) placed in this
        ensemble's class columns.

        A member whose sample lacked a class has fewer columns.
        """
        probabilities = np.asarray(member.predict_proba(X, **(params or {})), dtype=np.float64)
        member_classes = getattr(member, "classes_", self.classes_)
        out = np.zeros((X.shape[0], self.n_classes_))
        out[:, self._class_positions(member_classes)] = probabilities
        return out

    def _member_votes(self, index, member, X, params=None):
        """One-hot rows: the class the member predicts (given ``params``)."""
        out = np.zeros((X.shape[0], self.n_classes_))
        out[np.arange(X.shape[0]),
            self._class_positions(member.predict(X, **(params or {})))] = 1.0
        return out

    def _oob_output(self, index, member, X):
        if self._has_probabilities():
            return self._member_probabilities(index, member, X)
        return self._member_votes(index, member, X)

    def _set_oob_attributes(self, averages, has_oob, targets):
        self.oob_decision_function_ = averages
        predicted = np.argmax(averages[has_oob], axis=1)
        self.oob_score_ = float(np.mean(predicted == targets["class_index"][has_oob]))

    def predict_proba(self, X, **params):
        """Mean over members of their class probabilities.

        Members without ``predict_proba`` make this the share of votes
        (:meth:`vote_fractions`).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        **params : dict
            Passed on to the members' ``predict_proba`` (or ``predict``)
            through scikit-learn's metadata routing.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Columns in the order of ``classes_``.
        """
        routed = routed_member_params(self, "predict_proba", params)
        return self._probabilities(self._validate_X_for_predict(X), routed)

    def predict_log_proba(self, X, **params):
        """Natural logarithm of :meth:`predict_proba` (-inf for probability 0).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        **params : dict
            As for :meth:`predict_proba`.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
        """
        routed = routed_member_params(self, "predict_log_proba", params)
        probabilities = self._probabilities(self._validate_X_for_predict(X), routed)
        with np.errstate(divide="ignore"):
            return np.log(probabilities)

    def _probabilities(self, X, routed):
        """predict_proba of validated X; ``routed``: the members' routed params."""
        if not self._has_probabilities():
            return self._mean_output(
                partial(self._member_votes, params=routed.get("predict")), X)
        return self._mean_output(
            partial(self._member_probabilities, params=routed.get("predict_proba")), X)

    def _member_methods(self):
        """The member method each prediction method calls, for the routing."""
        template = self._template()
        probabilities = "predict_proba" if hasattr(template, "predict_proba") else "predict"
        soft = self.voting == "soft" and probabilities == "predict_proba"
        callees = {"fit": "fit", "predict": probabilities if soft else "predict",
                   "predict_proba": probabilities, "predict_log_proba": probabilities}
        if hasattr(template, "decision_function"):
            callees["decision_function"] = "decision_function"
        return callees

    @available_if(lambda self: hasattr(self._template(), "decision_function"))
    def decision_function(self, X, **params):
        """Mean over members of their ``decision_function`` (when the estimator has one).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        **params : dict
            Passed on to the members' ``decision_function`` through
            scikit-learn's metadata routing.

        Returns
        -------
        ndarray of shape (n_samples,) for two classes, else (n_samples, n_classes)
        """
        member_params = routed_member_params(self, "decision_function", params).get(
            "decision_function", {})
        X = self._validate_X_for_predict(X)

        def decisions(index, member, X_member):
            # Columns are the member's classes: they must be the ensemble's.
            if not np.array_equal(getattr(member, "classes_", self.classes_), self.classes_):
                raise ValueError(f"member {index} was fitted on a sample without every class, "
                                 "so its decision_function columns are not the ensemble's")
            return np.asarray(member.decision_function(X_member, **member_params),
                              dtype=np.float64)

        return self._mean_output(decisions, X)

    @shared_docs
    def vote_fractions(self, X):
        """Share of members predicting each class.

        {vote_fractions_use}

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
        """
        X = self._validate_X_for_predict(X)
        return self._mean_output(self._member_votes, X)

    def predict(self, X, **params):
        """Predicted class by ``voting``; ties go to the first class of ``classes_``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        **params : dict
            Passed on to the members' ``predict_proba`` (soft voting) or
            ``predict`` through scikit-learn's metadata routing.

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        self._check_fitted()
        self._check_combination()
        routed = routed_member_params(self, "predict", params)
        X = self._validate_X_for_predict(X)
        if self.voting == "soft" and self._has_probabilities():
            scores = self._probabilities(X, routed)
        else:
            scores = self._mean_output(
                partial(self._member_votes, params=routed.get("predict")), X)
        return self.classes_[np.argmax(scores, axis=1)]


@model_file_class
@shared_docs
class BaggingRegressor(RegressorMixin, BaseBagging):
    """Bagging of regressors: bootstrap aggregation, subagging, random subspaces.

    Every member is a clone of ``estimator`` fit on its own draw of the rows
    restricted to its own random subset of the features; the prediction is
    the members' mean or median.

    Parameters
    ----------
    estimator : regressor or None, default=None
        The estimator to bag; None means ``DecisionTreeRegressor()``. A
        fasttree or scikit-learn regressor; one whose ``fit`` lacks
        ``sample_weight`` is fit on the drawn rows repeated as often as drawn.
    {bagging}
    aggregation : {'mean', 'median'}, default='mean'
        How the members' predictions combine; 'median' is robust bagging.
    {member_categorical_features}

    Attributes
    ----------
    {fitted_bagging}
    oob_prediction_ : ndarray of shape (n_samples,) or (n_samples, n_outputs)
        With ``oob_score``: the mean prediction (whatever ``aggregation``) of
        the members that left each row out; NaN for rows every member drew.
    n_outputs_ : int
        Number of outputs (columns of y).
    {fitted_inputs}
    """

    _default_estimator = DecisionTreeRegressor

    def __init__(self, estimator=None, n_estimators=10, *, max_samples=None,
                 max_features=1.0, bootstrap=True, bootstrap_features=False,
                 oob_score=False, warm_start=False, n_jobs=None, random_state=None,
                 verbose=0, aggregation="mean", categorical_features="from_dtype"):
        self._set_parameters(locals())

    def _check_combination(self):
        check_choice(self.aggregation, "aggregation", ("mean", "median"))

    def _encode_targets(self, y, n_samples):
        target = check_regression_target(y, n_samples, type(self).__name__)
        return {"target": target, "fit_target": target}

    def _warm_targets(self, targets):
        """Whether y has the fitted number of outputs, and both described
        (see ``_check_warm_targets``)."""
        target = targets["target"]
        n_outputs = 1 if target.ndim == 1 else target.shape[1]
        return (n_outputs == self.n_outputs_, describe_y(n_outputs=self.n_outputs_),
                describe_y(n_outputs=n_outputs))

    def _set_target_attributes(self, targets):
        target = targets["target"]
        self.n_outputs_ = 1 if target.ndim == 1 else target.shape[1]

    def _member_predictions(self, index, member, X, params=None):
        """The member's predictions (given ``params``), one row per row of X
        and one column per output."""
        n_outputs = getattr(self, "n_outputs_", 1)
        values = np.asarray(member.predict(X, **(params or {})), dtype=np.float64)
        if values.size != X.shape[0] * n_outputs:
            raise ValueError(f"member {type(member).__name__} returned {values.shape} "
                             f"predictions for {X.shape[0]} rows; {n_outputs} value(s) per "
                             "row needed")
        return values.reshape(-1, n_outputs)

    _oob_output = _member_predictions

    def _member_methods(self):
        return {"fit": "fit", "predict": "predict"}

    def _set_oob_attributes(self, averages, has_oob, targets):
        several = targets["target"].ndim == 2
        self.oob_prediction_ = averages if several else averages[:, 0]
        self.oob_score_ = r2_score(targets["target"][has_oob], self.oob_prediction_[has_oob])

    def predict(self, X, **params):
        """Mean (or median, by ``aggregation``) of the members' predictions.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        **params : dict
            Passed on to the members' ``predict`` through scikit-learn's
            metadata routing.

        Returns
        -------
        ndarray of float64, shape (n_samples,) or (n_samples, n_outputs)
        """
        member_predictions = partial(
            self._member_predictions,
            params=routed_member_params(self, "predict", params).get("predict"))
        X = self._validate_X_for_predict(X)
        self._check_combination()
        if self.aggregation == "median":
            predictions = np.stack(self._map_members(member_predictions, X), axis=2)
            result = np.median(predictions, axis=2)
        else:
            result = self._mean_output(member_predictions, X)
        return result[:, 0] if getattr(self, "n_outputs_", 1) == 1 else result

