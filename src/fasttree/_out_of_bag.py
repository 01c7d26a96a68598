"""Out-of-bag estimates of bagged ensembles: a member's values for the
training rows it left out, their running sums, the error curve of a growing
forest and when it stops growing, the forests' out-of-bag scores, and
Breiman's out-of-bag permutation importance."""

import numbers
from concurrent.futures import ThreadPoolExecutor
from functools import partial

import numpy as np

from ._base import accuracy, r2_score
from ._forest import add_out_of_bag, out_of_bag_correct
from ._predict import apply_rows, predict_leaf_outputs
from ._targets import check_regression_target, encode_outputs, predicted_classes, same_classes
from ._threads import resolve_n_jobs, run_together
from ._validation import (check_array_2d, csr_for_walk, invalid_parameter, is_int_at_least,
                          is_sparse, warn_user)

# Most points of oob_curve_ when a forest with oob_score grows without batches:
# each costs a pass over the rows, about 1% of a fit in all.
OOB_CURVE_POINTS = 50


def out_of_bag_values(tree, X, counts):
    """Rows that ``tree`` did not draw, and the tree's values for them.

    Runs the nogil kernel on the calling thread (forest workers call it).
    """
    rows = np.flatnonzero(counts == 0)
    # A sparse X (CSR here) stays sparse: the walk reads its rows as it goes.
    part = csr_for_walk(X[rows]) if is_sparse(X) else np.ascontiguousarray(X[rows])
    if tree.fractional:
        return rows, tree.predict_values(part)
    leaves = np.empty(rows.shape[0], dtype=np.intp)
    apply_rows(tree.walk_tests, part, leaves, refill=tree.refill_walk)
    return rows, tree.values_at(leaves)


class OutOfBagSums:
    """Running per-row sums of the values of the members that left the row out."""

    def __init__(self, n_samples, n_values=None):
        self.n_samples = n_samples
        self.sums = None if n_values is None else np.zeros((n_samples, n_values))
        self.counts = np.zeros(n_samples, dtype=np.int64)

    def add(self, rows, values):
        """Add one member's ``values`` (n_rows, n_values) at its out-of-bag ``rows``."""
        if self.sums is None:
            self.sums = np.zeros((self.n_samples, values.shape[1]))
        add_out_of_bag(self.sums, self.counts, np.asarray(rows, dtype=np.intp),
                       np.ascontiguousarray(values, dtype=np.float64))

    def averages(self):
        """Per row, the mean over its out-of-bag members (NaN without any)."""
        with np.errstate(invalid="ignore", divide="ignore"):
            return self.sums / self.counts[:, None]

    def covered(self):
        """The rows that have out-of-bag values, checked once the ensemble is
        fitted: an error when none has, a warning (scikit-learn's) when some
        have none, whose averages are then NaN and left out of the scores."""
        has_oob = self.counts > 0
        if not has_oob.any():
            raise ValueError("no training row was left out by any member: too few "
                             "estimators for an out-of-bag estimate")
        if not has_oob.all():
            # scikit-learn's sentence first: scripts match on it.
            warn_user("Some inputs do not have OOB scores. This probably means too few "
                      "estimators were used to compute any reliable oob estimates "
                      f"({np.count_nonzero(~has_oob)} rows were drawn by every member, so "
                      "the out-of-bag estimates leave them out).")
        return has_oob


class OutOfBagGrowth:
    """The out-of-bag sums of a growing forest and its error curve
    (``oob_curve_``).

    Without ``oob_batch_size`` the curve has a point every few trees; with
    it, a point after every batch, and the forest stops growing once the
    error is stable (``_oob_stable``).

    Parameters
    ----------
    forest : BaseForest
        The forest being fitted: its ``n_estimators``, ``oob_batch_size``
        and out-of-bag error (``_oob_error``).
    targets : dict
        The fit's targets, as the forest encodes them.
    n_samples, n_values : int
        Training rows, and values per row of a tree's predictions.
    """

    def __init__(self, forest, targets, n_samples, n_values):
        self.forest = forest
        self.targets = targets
        self.sums = OutOfBagSums(n_samples, n_values)
        self.curve = []
        self.curve_step = -(-forest.n_estimators // OOB_CURVE_POINTS)

    def add(self, n_trees, rows, values):
        """Add the out-of-bag ``rows`` and ``values`` of the forest's
        ``n_trees``-th tree."""
        self.sums.add(rows, values)
        # Without batches, the curve has a point every few trees: at
        # most OOB_CURVE_POINTS, each costing one pass over the rows.
        if self.forest.oob_batch_size is None and (
                n_trees % self.curve_step == 0 or n_trees == self.forest.n_estimators):
            self.curve.append((n_trees, self.forest._oob_error(self.sums, self.targets)))

    def stops_after_batch(self, n_trees):
        """Add the point of a batch's end (``n_trees`` grown); True once the
        error is stable."""
        self.curve.append((n_trees, self.forest._oob_error(self.sums, self.targets)))
        return self.forest._oob_stable([error for _, error in self.curve])

    def curve_array(self):
        """``oob_curve_``: per point, the number of trees and the error."""
        return np.array(self.curve, dtype=np.float64).reshape(-1, 2)


def _zero_one(classes):
    """Whether an output's class labels are numbers among 0 and 1."""
    return classes.dtype.kind in "biuf" and bool(np.isin(classes, (0, 1)).all())


def check_out_of_bag_classes(classes):
    """Raise unless out-of-bag scores can be had for these outputs' classes
    (a list of one array per output): as scikit-learn, only for 0/1 labels
    (multilabel-indicator), with its refusal and words."""
    if not all(_zero_one(output) for output in classes):
        raise ValueError("The type of target cannot be used to compute OOB "
                         "estimates. Got multiclass-multioutput while only the "
                         "following are supported: continuous, "
                         "continuous-multioutput, binary, multiclass, "
                         "multilabel-indicator.")


class ForestOutOfBag:
    """The out-of-bag estimates of a forest (a base of ``BaseForest``):
    the options' checks, the error of the growth curve, the score's choice
    and Breiman's out-of-bag permutation importance. Reads the forest's
    fitted ``_trees`` and their draws (``_tree_counts``), and the hooks of
    :class:`ForestClassifierOutOfBag` and :class:`ForestRegressorOutOfBag`."""

    def _check_out_of_bag_options(self):
        """Raise for an out-of-bag option of the wrong type or out of its
        range, or asked for without a bootstrap."""
        if (self.oob_score or self.oob_batch_size is not None) and not self.bootstrap:
            raise ValueError("Out of bag estimation only available if bootstrap=True "
                             "(oob_score and oob_batch_size need rows left out of the trees' "
                             "samples)")
        if self.oob_batch_size is not None and not is_int_at_least(self.oob_batch_size, 1):
            raise invalid_parameter("oob_batch_size", "an int in the range [1, inf) or None",
                                    self.oob_batch_size)
        if not is_int_at_least(self.oob_patience, 1):
            raise invalid_parameter("oob_patience", "an int in the range [1, inf)",
                                    self.oob_patience)
        if not isinstance(self.oob_tol, (numbers.Real, np.floating)) or not self.oob_tol >= 0:
            raise ValueError(f"oob_tol must be a number >= 0; got {self.oob_tol!r}")

    def _oob_error(self, oob, targets):
        """Out-of-bag error so far: 1 - accuracy, or 1 - R^2 for regression (also
        when ``oob_score`` is a scoring function, which scores ``oob_score_`` alone)."""
        has_oob = oob.counts > 0
        if not has_oob.any():
            return np.nan
        return 1.0 - self._oob_score_of(oob.averages()[has_oob], targets, has_oob,
                                        builtin=True)

    def _scored(self, truth, predicted, default, builtin=False):
        """The out-of-bag score: ``oob_score`` when it is a scoring function
        ``f(y_true, y_pred)`` (as scikit-learn allows), else (or when
        ``builtin``, for the error curve) ``default``."""
        if callable(self.oob_score) and not builtin:
            return float(self.oob_score(truth, predicted))
        return default(truth, predicted)

    def _importance_outputs(self, y):
        """``y`` as an array with the forest's number of outputs, or an error
        naming both numbers (a column for one output is read as fit reads it)."""
        y = np.asarray(y)
        if y.ndim not in (1, 2):
            raise ValueError(f"y must be the training targets, 1-D or 2-D; got {y.ndim}-D")
        n_outputs = 1 if y.ndim == 1 else y.shape[1]
        if n_outputs != self.n_outputs_:
            raise ValueError(f"y must be the training targets: it has {n_outputs} outputs, "
                             f"but the forest was fitted to {self.n_outputs_}")
        return y

    def _oob_stable(self, errors):
        """True once the best error of the last ``oob_patience`` batches beats the
        best before them by less than ``oob_tol``."""
        patience = self.oob_patience
        if len(errors) <= patience or np.isnan(errors[-1]):
            return False
        return min(errors[:-patience]) - min(errors[-patience:]) < self.oob_tol

    def oob_permutation_importance(self, X, y, *, n_repeats=1, random_state=None):
        """Breiman's out-of-bag permutation importance.

        For every tree and feature, the feature's values are permuted among
        the tree's out-of-bag rows, and the loss of the tree's accuracy (rise
        in squared error, for regression) on those rows is recorded; the
        importance of a feature is the mean loss over trees (those with
        out-of-bag rows) and repeats. Trees are scored on threads (``n_jobs``).

        Parameters
        ----------
        X, y : the training data given to ``fit``.
        n_repeats : int, default=1
            Permutations per tree and feature.
        random_state : None, int or numpy Generator, default=None
            The permutations are drawn from ``numpy.random.default_rng(random_state)``
            in the order tree, feature, repeat: one ``permutation(n_out_of_bag)``
            each, for every feature, as :mod:`fasttree.reference` does.

        Returns
        -------
        ndarray of float64, shape (n_features,)
        """
        self._check_fitted()
        self._check_members()
        if not self.bootstrap:
            raise ValueError("out-of-bag importance needs a forest fitted with bootstrap=True")
        if (not isinstance(n_repeats, (numbers.Integral, np.integer)) or n_repeats < 1):
            raise ValueError(f"n_repeats must be an int >= 1; got {n_repeats!r}")
        X = check_array_2d(self._encoded(X), estimator=type(self).__name__, allow_nan=True)
        if X.shape != (self._n_samples, self.n_features_in_):
            raise ValueError(f"X must be the training data, of shape "
                             f"{(self._n_samples, self.n_features_in_)}; got {X.shape}")
        truth = self._importance_targets(self._importance_outputs(y))
        rng = (random_state if isinstance(random_state, np.random.Generator)
               else np.random.default_rng(random_state))
        n_threads = resolve_n_jobs(self.n_jobs)
        drops = np.zeros(self.n_features_in_)
        n_scored = 0

        def score_tree(job):
            tree, rows, permutations = job
            X_oob = np.ascontiguousarray(X[rows])
            base = self._tree_score(tree, X_oob, truth[rows])
            tree_drops = np.zeros(self.n_features_in_)
            for feature in range(self.n_features_in_):
                saved = X_oob[:, feature].copy()
                for order in permutations[feature]:
                    X_oob[:, feature] = saved[order]
                    tree_drops[feature] += base - self._tree_score(tree, X_oob, truth[rows])
                X_oob[:, feature] = saved
            return tree_drops

        # The permutations are drawn here, tree by tree, so that the result
        # does not depend on the threads; a chunk of trees is held at a time.
        with ThreadPoolExecutor(max_workers=n_threads) as pool:
            for chunk_start in range(0, len(self._trees), n_threads):
                jobs = []
                for index in range(chunk_start, min(len(self._trees), chunk_start + n_threads)):
                    rows = np.flatnonzero(self._tree_counts(index) == 0)
                    if rows.size == 0:
                        continue
                    permutations = [[rng.permutation(rows.size) for _ in range(n_repeats)]
                                    for _ in range(self.n_features_in_)]
                    jobs.append((self._trees[index], rows, permutations))
                for tree_drops in run_together(pool, [partial(score_tree, job)
                                                      for job in jobs])[1]:
                    drops += tree_drops
                    n_scored += 1
        if n_scored == 0:
            raise ValueError("no tree has out-of-bag rows")
        return drops / (n_scored * n_repeats)


class ForestClassifierOutOfBag:
    """The out-of-bag scores of a forest of classification trees (a base of
    ``ForestClassifier``, which gives ``_output_classes``)."""

    def _importance_targets(self, y):
        classes, class_index = encode_outputs(y, self._n_samples, type(self).__name__)
        if not same_classes(classes, self.classes_):
            raise ValueError("y has other classes than the fitted forest")
        return class_index

    def _tree_score(self, tree, X, class_index):
        """Accuracy of one tree (its leaves' majority class, or class of least
        expected cost); with several outputs, over all outputs' labels."""
        if class_index.ndim == 2:
            return float(np.mean(self._output_classes(tree.predict_values(X)) == class_index))
        predicted = np.empty(X.shape[0], dtype=np.intp)
        loss = getattr(self, "loss_matrix_", None)
        leaf_class = tree.majority_class if loss is None else np.ascontiguousarray(
            predicted_classes(tree.node_values, loss), dtype=np.intp)
        predict_leaf_outputs(tree.walk_tests, leaf_class, X, predicted,
                             refill=tree.refill_walk)
        return float(np.mean(predicted == class_index))

    def _oob_error(self, oob, targets):
        if targets.get("widths") is not None or targets["loss"] is not None:
            return super()._oob_error(oob, targets)
        # One class per row by its largest mean: counted in one compiled pass,
        # as 1 - accuracy of the means' classes would count them.
        n_covered, n_correct = out_of_bag_correct(oob.sums, oob.counts,
                                                  targets["class_index"])
        return np.nan if n_covered == 0 else 1.0 - n_correct / n_covered

    def _oob_score_of(self, averages, targets, rows, builtin=False):
        # As scikit-learn: the scores compare encoded classes.
        if targets.get("widths") is not None:
            predicted = self._output_classes(averages, targets["widths"])
        else:
            predicted = predicted_classes(averages, targets["loss"])
        return self._scored(targets["class_index"][rows], predicted, accuracy, builtin)

    def _set_oob_attributes(self, averages, has_oob, targets):
        if targets.get("widths") is not None:
            # scikit-learn's (n_samples, n_classes, n_outputs), an output of
            # fewer classes padded with zeros.
            outputs = self._trees[0].split_outputs(averages)
            padded = np.zeros((averages.shape[0], max(targets["widths"]), len(outputs)))
            for k, output in enumerate(outputs):
                padded[:, :output.shape[1], k] = output
            self.oob_decision_function_ = padded
        else:
            self.oob_decision_function_ = averages
        self.oob_score_ = self._oob_score_of(averages[has_oob], targets, has_oob)


class ForestRegressorOutOfBag:
    """The out-of-bag scores of a forest of regression trees (a base of
    ``ForestRegressor``)."""

    def _importance_targets(self, y):
        return check_regression_target(y, self._n_samples, type(self).__name__)

    def _tree_score(self, tree, X, target):
        """Minus the mean squared error of one tree (over all outputs)."""
        if target.ndim == 2:
            return -float(np.mean((tree.predict_values(X) - target) ** 2))
        predicted = np.empty(X.shape[0], dtype=np.float64)
        predict_leaf_outputs(tree.walk_tests, tree.first_value, X, predicted,
                             refill=tree.refill_walk)
        return -float(np.mean((predicted - target) ** 2))

    def _oob_score_of(self, averages, targets, rows, builtin=False):
        predicted = averages[:, 0] if targets["target"].ndim == 1 else averages
        return self._scored(targets["target"][rows], predicted, r2_score, builtin)

    def _set_oob_attributes(self, averages, has_oob, targets):
        self.oob_prediction_ = averages[:, 0] if targets["target"].ndim == 1 else averages
        # What predict_interval's jackknife+ reads (one output): NaN for rows
        # every tree drew.
        self._oob_residuals = (np.abs(targets["target"] - self.oob_prediction_)
                               if targets["target"].ndim == 1 else None)
        self.oob_score_ = self._oob_score_of(averages[has_oob], targets, has_oob)
