"""Learned combiners: the mixture of experts and the hierarchical mixture of
experts (Jordan and Jacobs 1994), trained by EM.

A mixture's prediction for a row x is ``sum_j g_j(x) P_j(y | x)``: every
expert j gives its own distribution of y, and a gate, a softmax of linear
functions of x, weighs them. With two levels, a top gate weighs groups and a
gate per group weighs its experts; an expert's weight is the product of the
gate weights on its path, as in a soft decision tree.

EM, as fitted here (the pure-Python oracle :mod:`fasttree.reference.mixture`
follows the same rules):

- **Start.** A seeded weighted k-means (k-means++ then Lloyd's rounds; of
  10,000 rows drawn at random when X has more, every row then joining its
  nearest centre) of the gates' inputs splits the rows among the experts.
  With two levels the clusters are ordered along their centres' first
  principal axis and taken ``n_experts`` at a time into groups. Each row's responsibility is
  1 for its expert, and the gates start uniform.
- **M-step.** Each expert is refitted (a fresh copy, with a seed of its own
  that stays the same over the iterations) with ``sample_weight`` the rows'
  weights times their responsibilities for it (those below 1e-6 taken as
  0, so that the rows another expert owns cost it nothing). Each gate takes
  five bound steps of a weighted softmax regression towards the
  responsibilities (two levels: the top gate towards the groups' summed
  responsibilities; a group's gate, weighted by them, towards its experts'
  shares). A refitted expert or gate replaces the old one only if it does
  not lower its term of the expected log-likelihood (a generalised EM), so
  the log-likelihood of the training rows never decreases. The gates are
  refitted on the threads alongside the experts.
- **Tree experts.** fasttree trees whose leaves are weighted means (class
  fractions; no ``class_weight``, monotonic constraints or quantile
  criterion) are regrown, as above, in the first iteration, in the next
  one whenever a regrowth changed the leaf of any training row, and after
  every iteration that gains less than ``tol``. In the other iterations each
  keeps its splits and its leaves are re-estimated: every leaf holds the
  weighted class fractions (or mean) of its rows, the expected
  log-likelihood's maximum for those splits (an ECM step), for the cost of
  a few passes over the rows rather than a fit.
- **E-step.** Each row's responsibility of each expert is its gate weight
  times the expert's likelihood of the row's y, normalised over the
  experts. A classifier's likelihood is the probability of the row's class
  (at least 1e-12, so that a tree's empty class leaves no row impossible);
  a regressor's is a Gaussian density around the expert's prediction, with
  the expert's weighted mean squared error as its variance.
- **Stop** when the weighted mean log-likelihood rises by less than
  ``tol`` in an iteration that refitted the experts (for tree experts, one
  that regrew them), or after ``max_iter`` iterations (with a
  ``ConvergenceWarning``).
"""

import math
import sys
import time
from functools import partial

import numpy as np

from ._base import BaseEstimator, ClassifierMixin, RegressorMixin
from ._docstrings import shared_docs
from ._ensemble import check_template, check_verbose, map_members
from ._frames import as_frame
from ._honest import leaf_means
from ._gating import GateInputs, gate_solver, initial_paths, log_gate, update_gate
from ._model_file import ModelFileError, is_estimator, model_file_class
from ._softmax import weighted_sum, with_intercept
from ._state_checks import _check_model
from ._targets import QUANTILE_CRITERIA, check_regression_target, encode_labels
from ._threads import resolve_n_jobs
from ._validation import (check_sample_weight, convergence_warning, feature_names_of,
                          invalid_parameter, is_int_at_least, warn_user)
from .bagging import accepts_sample_weight, clone_estimator
from .boosting import boosting_generators, fit_member, shared_ranks
from .experts import LinearExpert, LinearModel, LogisticExpert, check_alpha, dense_rows
from .tree import BaseDecisionTree, DecisionTreeClassifier, DecisionTreeRegressor

__all__ = ["MixtureOfExpertsClassifier", "MixtureOfExpertsRegressor"]

# Responsibilities below this leave a row out of an expert's refit.
TRIM = 1e-6
# The least probability of a class an expert gives (in the likelihood only).
PROBABILITY_FLOOR = 1e-12
# An expert's variance is at least this share of y's.
VARIANCE_FLOOR = 1e-6


class BaseMixture(BaseEstimator):
    """EM, the gates and the checks both mixtures share."""

    _fitted_attribute = "experts_"

    # ------------------------------------------------------------ checks

    def _template(self):
        """The estimator the experts are copies of (unchecked)."""
        return self._default_expert() if self.expert is None else self.expert

    def _check_parameters(self):
        """Validate the parameters; return (template, threads)."""
        if not is_int_at_least(self.n_experts, 1):
            raise invalid_parameter("n_experts", "an int in the range [1, inf)", self.n_experts)
        if self.levels not in (1, 2) or isinstance(self.levels, bool):
            raise invalid_parameter("levels", "1 or 2", self.levels)
        if not is_int_at_least(self.max_iter, 1):
            raise invalid_parameter("max_iter", "an int in the range [1, inf)", self.max_iter)
        if isinstance(self.tol, bool) or not isinstance(self.tol, (int, float, np.number)) \
                or not self.tol >= 0:
            raise invalid_parameter("tol", "a float in the range [0.0, inf)", self.tol)
        check_alpha(self.alpha)
        if not is_int_at_least(self.n_init, 1):
            raise invalid_parameter("n_init", "an int in the range [1, inf)", self.n_init)
        check_verbose(self.verbose)
        n_threads = resolve_n_jobs(self.n_jobs)
        template = check_template(self._template(), self)
        if not accepts_sample_weight(template):
            raise ValueError(f"{type(template).__name__} cannot be an expert: its fit takes no "
                             "sample_weight, which EM's responsibilities are passed as")
        if self._estimator_type == "classifier" and not hasattr(template, "predict_proba"):
            raise ValueError(f"{type(template).__name__} cannot be an expert: it has no "
                             "predict_proba, and a mixture weighs its experts' probabilities")
        return template, n_threads

    # ------------------------------------------------------------ inputs

    def _fit_inputs(self, X, template):
        """The training rows as the gates and the experts read them; the
        template, told which features are categorical when it takes
        ``categorical_features``."""
        X = as_frame(X)
        names = feature_names_of(X)
        X, encoding = self._categories_for_fit(X, names)
        matrix = self._dense_rows(X)
        n_levels = () if encoding is None else [len(level) for level in encoding.levels]
        gate_inputs = GateInputs.fit(matrix, None if encoding is None else encoding.mask,
                                     n_levels)
        if encoding is not None and "categorical_features" in template.get_params(deep=False):
            template = type(template)(**{**template.get_params(deep=False),
                                         "categorical_features": encoding.mask})
        return matrix, names, encoding, gate_inputs, template

    def _dense_rows(self, X):
        """X as float64 (n, d): numbers, NaN where missing, no infinity."""
        return dense_rows(X, type(self).__name__)

    @staticmethod
    def _expert_rows(matrix, template):
        """What the experts read: float32 for fasttree's trees and ensembles
        (which work in float32), float64 for the rest; categories as codes,
        NaN where missing."""
        if isinstance(template, BaseEstimator) and not isinstance(template, LinearModel):
            return matrix.astype(np.float32)
        return matrix

    def _rows(self, X):
        """Prediction rows: (gate inputs with intercept, expert rows)."""
        matrix = self._checked_predict_input(X, self._dense_rows)
        Z = self._gate_inputs().transform(matrix)
        return with_intercept(Z), self._expert_rows(matrix, self.experts_[0])

    def _gate_inputs(self):
        n_levels = [len(level) for level in getattr(self, "categories_", [])]
        return GateInputs(self._gate_mean, self._gate_scale,
                          getattr(self, "is_categorical_", None), n_levels)

    # ------------------------------------------------------------ fitting

    def _fit(self, X, y, sample_weight):
        name = type(self).__name__
        template, n_threads = self._check_parameters()
        # EM's experts learn class positions (see _label_experts).
        self._experts_labelled = False
        matrix, names, encoding, gate_inputs, template = self._fit_inputs(X, template)
        n_samples, n_branches = matrix.shape[0], self.n_experts
        n_experts = n_branches ** self.levels
        if n_experts > n_samples:
            raise ValueError(f"{name}: {n_experts} experts need at least {n_experts} samples "
                             f"to start from; got n_samples = {n_samples}")
        target = self._encode_target(y, n_samples)
        weights = check_sample_weight(sample_weight, n_samples, estimator=name)
        Z = gate_inputs.transform(matrix)
        Zi = with_intercept(Z)
        expert_rows = self._expert_rows(matrix, template)
        ranked = (shared_ranks(template, expert_rows, encoding)
                  if isinstance(template, BaseDecisionTree) else None)
        rng, member_rng = boosting_generators(self.random_state)
        seeds = member_rng.integers(0, 2**31 - 1, size=n_experts)
        # The top gate's rows keep their weights (the sample weights) in every
        # iteration of every run: its bound is made once.
        top_solver = gate_solver(Zi, weights, n_branches, float(self.alpha))

        runs = []
        for _ in range(self.n_init):
            start = initial_paths(Z, n_branches, self.levels, weights, rng)
            state = EMState(self, template, expert_rows, target, weights, seeds, ranked,
                            n_threads)
            runs.append(self._run_em(state, Zi, start, weights, top_solver))
        # The first run of the highest final log-likelihood.
        state, gates, history, converged = max(runs, key=lambda run: run[2][-1])
        if not converged:
            last = ("" if len(history) < 2 else f" (the last raised the log-likelihood by "
                    f"{history[-1] - history[-2]:.3g}, tol={self.tol})")
            warn_user(f"{name}: EM did not converge in max_iter={self.max_iter} "
                      f"iterations{last}; raise max_iter or tol", convergence_warning())

        self.experts_ = state.experts
        if self._estimator_type == "regressor":
            self.expert_variances_ = np.array(state.variances)
        else:
            self._label_experts()
        self.gate_coef_ = [np.ascontiguousarray(V[1:].T) for V in gates]
        self.gate_intercept_ = [V[0].copy() for V in gates]
        self.log_likelihood_ = np.array(history)
        self.n_iter_ = len(history)
        self.converged_ = converged
        self._gate_mean, self._gate_scale = gate_inputs.mean, gate_inputs.scale
        self._set_input_attributes(matrix.shape[1], names, encoding)
        return self

    def _run_em(self, state, Zi, start, weights, top_solver=None):
        """EM from the initial split ``start`` (each row's expert); returns
        (state, gates, log-likelihood per iteration, converged).
        ``top_solver``: the top gate's ``gate_solver``, if already made."""
        n_branches = self.n_experts
        # By expert, (n_experts, n): an expert's responsibilities are a row.
        responsibility = np.zeros((len(state.experts), Zi.shape[0]))
        responsibility[start, np.arange(Zi.shape[0])] = 1.0
        gates = [np.zeros((Zi.shape[1], n_branches))
                 for _ in range(1 if self.levels == 1 else n_branches + 1)]
        history = []
        began = time.perf_counter()
        regrow = True
        for iteration in range(1, self.max_iter + 1):
            # The experts and the gates read the same responsibilities and
            # nothing of each other's: they are refitted on the threads at once.
            gates, moved = state.refit_experts(responsibility, regrow, partial(
                self._refit_gates, Zi, gates, responsibility, weights, top_solver))
            responsibility, row_log_likelihood = _posterior(
                self._log_prior_by_expert(Zi, gates) + state.log_likelihoods())
            history.append(weighted_sum(weights, row_log_likelihood) / weights.sum())
            if self.verbose:
                self._report(iteration, history, began,
                             state.re_estimates_leaves and not regrow)
            stalled = iteration >= 2 and history[-1] - history[-2] < self.tol
            if stalled and regrow:
                return state, gates, history, True
            # Tree experts regrow their splits while the splits move, and
            # again once re-estimating their leaves gains less than tol.
            regrow = not state.re_estimates_leaves or stalled or (regrow and moved)
        return state, gates, history, False

    def _refit_gates(self, Zi, gates, responsibility, weights, top_solver=None):
        """The gates' M-step (see the module's description) on the
        responsibilities by expert; ``top_solver``: the top gate's
        ``gate_solver``, if already made."""
        alpha = float(self.alpha)
        if self.levels == 1:
            return [update_gate(Zi, gates[0], responsibility.T, weights, alpha, top_solver)]
        n_branches = self.n_experts
        paths = responsibility.reshape(n_branches, n_branches, -1)
        group = paths.sum(axis=1)
        updated = [update_gate(Zi, gates[0], group.T, weights, alpha, top_solver)]
        for index in range(n_branches):
            with np.errstate(invalid="ignore", divide="ignore"):
                shares = paths[index] / group[index]
            shares[:, ~(group[index] > 0)] = 1.0 / n_branches
            updated.append(update_gate(Zi, gates[index + 1], shares.T,
                                       weights * group[index], alpha))
        return updated

    def _log_prior(self, Zi, gates):
        """Each row's log gate weight of each expert, (n, n_experts)."""
        return self._log_prior_by_expert(Zi, gates).T

    def _log_prior_by_expert(self, Zi, gates):
        """Each expert's log gate weight of each row, (n_experts, n)."""
        top = log_gate(Zi, gates[0]).T
        if self.levels == 1:
            return top
        return np.vstack([top[index] + log_gate(Zi, V).T for index, V in enumerate(gates[1:])])

    def _report(self, iteration, history, began, leaves_only=False):
        change = "" if len(history) < 2 else f" ({history[-1] - history[-2]:+.3g})"
        step = " (leaves re-estimated)" if leaves_only else ""
        print(f"{type(self).__name__}: EM iteration {iteration}/{self.max_iter}{step}, "
              f"log-likelihood {history[-1]:.6g}{change}, "
              f"{time.perf_counter() - began:.1f} s elapsed", file=sys.stderr, flush=True)

    # ------------------------------------------------------------ fitted

    def _gates(self):
        """The gates' coefficient matrices (intercept first)."""
        return [np.vstack([intercept[None, :], coef.T])
                for coef, intercept in zip(self.gate_coef_, self.gate_intercept_)]

    def gate_weights(self, X):
        """Each row's weight of each expert: the product of the gate weights
        on its path.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_experts)
            Rows sum to 1; column ``j`` is ``experts_[j]``.
        """
        Zi, _ = self._rows(X)
        return np.exp(self._log_prior(Zi, self._gates()))

    def responsibilities(self, X, y):
        """Each row's posterior probability of each expert given its y: the
        E-step of EM.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)

        Returns
        -------
        ndarray of shape (n_samples, n_experts)
            Rows sum to 1.
        """
        Zi, rows = self._rows(X)
        target = self._encode_target(y, Zi.shape[0], fitted=True)
        return _posterior(self._log_prior_by_expert(Zi, self._gates()) + np.vstack(
            [self._log_likelihood_of(index, expert, rows, target)
             for index, expert in enumerate(self.experts_)]))[0].T

    def _check_fitted_parts(self, foreign_members):
        """A loaded mixture's experts and gates agree with each other."""
        name = type(self).__name__
        experts, coef, intercept = (self.__dict__.get(key) for key in
                                    ("experts_", "gate_coef_", "gate_intercept_"))
        n_branches, levels = self.n_experts, self.levels
        if levels not in (1, 2) or not is_int_at_least(n_branches, 1):
            raise ModelFileError(f"the {name}'s n_experts or levels are malformed")
        n_gates = 1 if levels == 1 else n_branches + 1
        if not isinstance(experts, list) or len(experts) != n_branches ** levels:
            raise ModelFileError(f"the {name} does not hold {n_branches ** levels} experts")
        n_inputs = self._gate_inputs().n_inputs
        if (not isinstance(coef, list) or not isinstance(intercept, list)
                or len(coef) != n_gates or len(intercept) != n_gates
                or any(not isinstance(matrix, np.ndarray) or matrix.shape != (n_branches, n_inputs)
                       or not np.isfinite(matrix).all() for matrix in coef)
                or any(not isinstance(vector, np.ndarray) or vector.shape != (n_branches,)
                       or not np.isfinite(vector).all() for vector in intercept)):
            raise ModelFileError(f"the {name}'s gates do not match its inputs and experts")
        for vector in (self._gate_mean, self._gate_scale):
            if not isinstance(vector, np.ndarray) or not np.isfinite(vector).all():
                raise ModelFileError(f"the {name}'s gate inputs are malformed")
        n_expert_inputs = self.n_features_in_
        for expert in experts:
            if not is_estimator(expert):
                if foreign_members:
                    continue
                raise ModelFileError(f"an expert of the {name} is not a fasttree estimator")
            _check_model(expert, foreign_members)
            if expert.__dict__.get("n_features_in_") != n_expert_inputs:
                raise ModelFileError(f"an expert of the {name} reads "
                                     f"{expert.__dict__.get('n_features_in_')} features; it "
                                     f"is given {n_expert_inputs}")


class EMState:
    """The experts during EM: refitting them on threads, and each one's
    log-likelihood of every training row."""

    def __init__(self, mixture, template, rows, target, weights, seeds, ranked, n_threads):
        self.mixture, self.template, self.rows = mixture, template, rows
        self.target, self.weights, self.seeds = target, weights, seeds
        self.ranked, self.n_threads = ranked, n_threads
        n_experts = len(seeds)
        self.experts = [None] * n_experts
        self.outputs = [None] * n_experts
        self.variances = [None] * n_experts
        # Each tree expert's node of every training row (``apply``), while
        # its leaves are re-estimated between regrowths.
        self.nodes = [None] * n_experts
        self.variance_floor = mixture._variance_floor(target, weights)
        self.re_estimates_leaves = mixture._leaves_are_means(template)

    def refit_experts(self, responsibility, regrow, alongside):
        """The experts' M-step: each refitted with its responsibilities, or,
        with ``regrow`` False, its splits kept and its leaves re-estimated
        (trees whose leaves are weighted means: ``re_estimates_leaves``);
        ``alongside()`` (the gates' M-step) runs on the threads with them.
        Returns ``alongside()``'s result, and whether any expert's split of
        the training rows changed."""
        # The gates first: in iterations that re-estimate leaves only, theirs
        # is the longest job.
        jobs = [alongside] + [partial(self._refit, index, responsibility[index], regrow)
                              for index in range(len(self.experts))]
        done = map_members(lambda job: job(), jobs, self.n_threads)
        moved = False
        for index, (expert, output, variance, nodes) in enumerate(done[1:]):
            moved |= nodes is not self.nodes[index] and (
                self.nodes[index] is None or not np.array_equal(nodes, self.nodes[index]))
            self.experts[index], self.outputs[index] = expert, output
            self.variances[index], self.nodes[index] = variance, nodes
        return done[0], moved

    def _refit(self, index, share, regrow):
        fit_weight = np.where(share < TRIM, 0.0, self.weights * share)
        old = self.experts[index]
        kept = old, self.outputs[index], self.variances[index], self.nodes[index]
        if not fit_weight.sum() > 0:
            return kept
        # The first iteration regrows: every expert has rows (a k-means cluster).
        if regrow or not self.re_estimates_leaves:
            candidate = clone_estimator(self.template)
            if "random_state" in candidate.get_params(deep=False):
                candidate.set_params(random_state=int(self.seeds[index]))
            candidate = fit_member(candidate, self.rows, self.target, fit_weight, self.ranked)
            nodes = candidate.tree_.apply(self.rows) if self.re_estimates_leaves else None
        else:
            tree, nodes = old.tree_, self.nodes[index]
            candidate = old._with_tree(leaf_means(
                tree, tree.leaf_numbers()[nodes],
                self.mixture._leaf_targets(old, self.target), fit_weight))
        output = self.mixture._expert_output(candidate, self.rows, nodes=nodes)
        row_weight = self.weights * share
        new_score, new_variance = self.mixture._expected_log_likelihood(
            output, self.target, row_weight, self.variance_floor)
        if old is None:
            return candidate, output, new_variance, nodes
        old_score, old_variance = self.mixture._expected_log_likelihood(
            self.outputs[index], self.target, row_weight, self.variance_floor)
        if new_score >= old_score:
            return candidate, output, new_variance, nodes
        return old, self.outputs[index], old_variance, self.nodes[index]

    def log_likelihoods(self):
        """(n_experts, n): each expert's log-likelihood of each row's y."""
        return np.vstack([
            self.mixture._row_log_likelihood(output, self.target, variance)
            for output, variance in zip(self.outputs, self.variances)])


def _posterior(log_joint):
    """The E-step from each expert's log joint probability of each row,
    (n_experts, n): the responsibilities, (n_experts, n), each column
    summing to 1, and each row's log-likelihood, (n,)."""
    top = log_joint.max(axis=0)
    top = np.where(np.isfinite(top), top, 0.0)
    responsibility = np.exp(log_joint - top)
    total = responsibility.sum(axis=0)
    responsibility /= total
    return responsibility, top + np.log(total)


@model_file_class
@shared_docs
class MixtureOfExpertsClassifier(ClassifierMixin, BaseMixture):
    """A mixture of experts (or a hierarchical one) for classification,
    trained by EM: the textbook's "learn how to combine".

    The probability of class k for a row x is ``sum_j g_j(x) P_j(k | x)``:
    expert j's class probabilities weighed by a softmax gate on x. With
    ``levels=2``, a top gate weighs ``n_experts`` groups and each group's gate
    its ``n_experts`` experts. See :mod:`fasttree.mixture` for how EM fits it.

    Parameters
    ----------
    expert : classifier or None, default=None
        What each expert is a copy of: any classifier whose ``fit`` takes
        ``sample_weight`` and that has ``predict_proba`` (fasttree's trees
        and forests, scikit-learn's models). None means
        :class:`fasttree.LogisticExpert` (the textbook's logistic expert),
        which reads the features as the gates do (standardised, one-hot, imputed);
        other experts read X as given (categorical columns as codes,
        missing values as NaN, which fasttree's trees take natively).
    {mixture_parameters}

    Attributes
    ----------
    experts_ : list of classifiers
        The fitted experts; with ``levels=2``, expert ``i * n_experts + j`` is
        the j-th of group i. Each learnt the classes' positions in
        ``classes_``; fasttree's trees are then given the labels themselves,
        so that their rules name the classes.
    {fitted_mixture}
    classes_ : ndarray
        The class labels, sorted.
    n_classes_ : int
        Number of classes.
    {fitted_inputs}

    Examples
    --------
    >>> from fasttree import DecisionTreeClassifier, MixtureOfExpertsClassifier
    >>> from fasttree.datasets import load_breast_cancer_wisconsin
    >>> X, y, _ = load_breast_cancer_wisconsin()
    >>> mixture = MixtureOfExpertsClassifier(n_experts=2, random_state=0).fit(X, y)
    >>> mixture.gate_weights(X[:2]).shape
    (2, 2)
    """

    def __init__(self, expert=None, n_experts=2, *, levels=1, max_iter=100, tol=1e-3,
                 alpha=1e-3, n_init=1, random_state=None, categorical_features="from_dtype",
                 n_jobs=None, verbose=0):
        self._set_parameters(locals())

    @staticmethod
    def _default_expert():
        return LogisticExpert()

    @shared_docs
    def fit(self, X, y, sample_weight=None):
        """Fit the experts and gates by EM.

        Parameters
        ----------
        {mixture_fit_X}
        y : array-like of shape (n_samples,)
            Class labels.
        sample_weight : array-like of shape (n_samples,), default=None

        Returns
        -------
        self
        """
        return self._fit(X, y, sample_weight)

    def _encode_target(self, y, n_samples, fitted=False):
        classes, index = encode_labels(y, n_samples, type(self).__name__,
                                       classes=self.classes_ if fitted else None)
        if not fitted:
            self.classes_, self.n_classes_ = classes, len(classes)
        return index

    @staticmethod
    def _variance_floor(target, weights):
        return None

    @staticmethod
    def _leaves_are_means(template):
        """Whether the experts' leaves are the weighted class fractions of
        their rows, so that EM can re-estimate them without regrowing the
        splits: fasttree trees without class weights or monotonic constraints."""
        return (isinstance(template, DecisionTreeClassifier) and template.class_weight is None
                and template.monotonic_cst is None)

    @staticmethod
    def _leaf_targets(expert, target):
        """What an expert's leaves are the weighted means of: each row's
        class, one-hot over the expert's classes."""
        return (target[:, None] == np.asarray(expert.classes_)[None, :]).astype(np.float64)

    def _expert_output(self, expert, rows, nodes=None):
        """The expert's probabilities of all classes, (n, n_classes); read
        from its tree's values when each row's node (``nodes``) is known."""
        probabilities = (expert.tree_.node_values[nodes] if nodes is not None
                         else np.asarray(expert.predict_proba(rows), dtype=np.float64))
        full = np.zeros((probabilities.shape[0], self.n_classes_))
        full[:, self._class_positions(expert)] = probabilities
        return full

    def _class_positions(self, expert):
        """Where the expert's classes are in ``classes_``: they are positions,
        but for the fitted mixture's fasttree trees, which print and predict
        the labels themselves (see ``_label_experts``)."""
        if self.__dict__.get("_experts_labelled") and isinstance(expert, DecisionTreeClassifier):
            return np.searchsorted(self.classes_, expert.classes_)
        return np.asarray(expert.classes_).astype(np.intp)

    def _label_experts(self):
        """Give the fitted fasttree trees the class labels in place of the
        positions they learnt (EM fits every expert on positions, to sort the
        labels once), so that their rules and predictions name the classes."""
        for expert in self.experts_:
            if isinstance(expert, DecisionTreeClassifier):
                expert.classes_ = self.classes_[np.asarray(expert.classes_).astype(np.intp)]
        self._experts_labelled = True

    @staticmethod
    def _row_log_likelihood(output, target, variance=None):
        """log P(y_n | x_n) per row, floored."""
        return np.log(np.maximum(output[np.arange(len(target)), target], PROBABILITY_FLOOR))

    def _expected_log_likelihood(self, output, target, row_weight, variance_floor):
        """An expert's term of the expected log-likelihood, and no variance."""
        return weighted_sum(row_weight, self._row_log_likelihood(output, target)), None

    def _log_likelihood_of(self, index, expert, rows, target):
        return self._row_log_likelihood(self._expert_output(expert, rows), target)

    def predict_proba(self, X):
        """Class probabilities: the experts' probabilities weighed by the gates.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
        """
        Zi, rows = self._rows(X)
        weights = np.exp(self._log_prior(Zi, self._gates()))
        probabilities = np.zeros((Zi.shape[0], self.n_classes_))
        for index, expert in enumerate(self.experts_):
            probabilities += weights[:, [index]] * self._expert_output(expert, rows)
        return probabilities

    def predict(self, X):
        """The most probable class of each row (the first on ties).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        probabilities = self.predict_proba(X)
        return self.classes_[np.argmax(probabilities, axis=1)]


@model_file_class
@shared_docs
class MixtureOfExpertsRegressor(RegressorMixin, BaseMixture):
    """A mixture of experts (or a hierarchical one) for regression, trained
    by EM.

    Expert j models y given x as a Gaussian around its prediction, with its
    own variance (its weighted mean squared error); the prediction is the
    mixture's mean, ``sum_j g_j(x) mu_j(x)``. With ``levels=2``, a top gate
    weighs ``n_experts`` groups and each group's gate its ``n_experts``
    experts. See :mod:`fasttree.mixture` for how EM fits it.

    Parameters
    ----------
    expert : regressor or None, default=None
        What each expert is a copy of: any regressor whose ``fit`` takes
        ``sample_weight``. None means :class:`fasttree.LinearExpert` (the
        textbook's Gaussian linear expert), which reads the features as the gates do
        (standardised, one-hot, imputed); other experts read X as given.
    {mixture_parameters}

    Attributes
    ----------
    experts_ : list of regressors
        The fitted experts; with ``levels=2``, expert ``i * n_experts + j`` is
        the j-th of group i.
    expert_variances_ : ndarray of shape (n_experts,)
        Each expert's variance around its prediction (at least 1e-6 of y's).
    {fitted_mixture}
    {fitted_inputs}
    """

    def __init__(self, expert=None, n_experts=2, *, levels=1, max_iter=100, tol=1e-3,
                 alpha=1e-3, n_init=1, random_state=None, categorical_features="from_dtype",
                 n_jobs=None, verbose=0):
        self._set_parameters(locals())

    @staticmethod
    def _default_expert():
        return LinearExpert()

    @shared_docs
    def fit(self, X, y, sample_weight=None):
        """Fit the experts, their variances and the gates by EM.

        Parameters
        ----------
        {mixture_fit_X}
        y : array-like of shape (n_samples,)
            Targets.
        sample_weight : array-like of shape (n_samples,), default=None

        Returns
        -------
        self
        """
        return self._fit(X, y, sample_weight)

    def _encode_target(self, y, n_samples, fitted=False):
        target = check_regression_target(y, n_samples, type(self).__name__)
        if target.ndim != 1:
            raise ValueError(f"{type(self).__name__} fits one target; y has "
                             f"{target.shape[1]} columns")
        return target

    @staticmethod
    def _variance_floor(target, weights):
        with np.errstate(over="ignore", invalid="ignore"):
            mean = weights @ target / weights.sum()
            spread = weights @ (target - mean) ** 2 / weights.sum()
        if not np.isfinite(spread):
            # Gaussian densities of such targets overflow float64.
            raise ValueError("MixtureOfExpertsRegressor: y's variance overflows float64 "
                             f"(y spans {target.min():.3g} to {target.max():.3g}); rescale y, "
                             "for example to its standard units, and the predictions back")
        return VARIANCE_FLOOR * spread if spread > 0 else 1e-12

    @staticmethod
    def _leaves_are_means(template):
        """Whether the experts' leaves are the weighted means of their rows'
        targets, so that EM can re-estimate them without regrowing the
        splits: fasttree trees of a mean criterion, without monotonic constraints."""
        return (isinstance(template, DecisionTreeRegressor)
                and template.criterion not in QUANTILE_CRITERIA
                and template.monotonic_cst is None)

    @staticmethod
    def _leaf_targets(expert, target):
        """What an expert's leaves are the weighted means of: the targets."""
        return target[:, None]

    @staticmethod
    def _expert_output(expert, rows, nodes=None):
        """The expert's prediction of each row, float64; read from its
        tree's values when each row's node (``nodes``) is known."""
        if nodes is not None:
            return expert.tree_.node_values[nodes, 0]
        return np.asarray(expert.predict(rows), dtype=np.float64).reshape(-1)

    @staticmethod
    def _row_log_likelihood(output, target, variance):
        """log N(y_n; mu_n, variance) per row."""
        return -0.5 * (math.log(2.0 * math.pi * variance) + (target - output) ** 2 / variance)

    def _expected_log_likelihood(self, output, target, row_weight, variance_floor):
        """An expert's term of the expected log-likelihood at its best
        variance (the weighted mean squared error, floored), and that variance."""
        total = row_weight.sum()
        squared = weighted_sum(row_weight, (target - output) ** 2)
        variance = max(squared / total if total > 0 else 0.0, variance_floor)
        return (weighted_sum(row_weight, self._row_log_likelihood(output, target, variance)),
                variance)

    def _log_likelihood_of(self, index, expert, rows, target):
        return self._row_log_likelihood(self._expert_output(expert, rows), target,
                                        self.expert_variances_[index])

    def predict(self, X):
        """The mixture's mean: the experts' predictions weighed by the gates.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        Zi, rows = self._rows(X)
        weights = np.exp(self._log_prior(Zi, self._gates()))
        return sum(weights[:, index] * self._expert_output(expert, rows)
                   for index, expert in enumerate(self.experts_))
