"""Random forests: bootstrap samples, a fresh feature subset at every node,
trees trained on threads without the GIL."""

import math
import numbers
from concurrent.futures import ThreadPoolExecutor
from functools import partial

import numpy as np

from ._frames import as_frame
from ._base import ClassifierMixin, RegressorMixin, accuracy, parameters_of, r2_score
from ._criterion_classification import CostSensitiveGini
from ._docstrings import shared_docs
from ._ensemble import (BaseEnsemble, OutOfBagSums, check_choice, check_flag,
                        check_n_estimators, describe_y,
                        check_verbose, map_members, member_counts, member_seeds,
                        resolve_n_draws, resolve_n_jobs)
from ._features import feature_columns, feature_rows, random_split_features, rank_features
from ._forest import out_of_bag_correct, tree_outputs
from ._targets import (class_weight_per_sample, check_regression_target, encode_outputs,
                       predicted_classes, target_extent_exponent, weight_exponent)
from ._threads import map_rows, run_together, start_threads
from ._progress import progress_of
from ._predict import apply_rows, predict_leaf_outputs
from ._row_source import CSRRows
from ._tree import FLAG_KIND_MASK, FLAG_MULTIWAY, FLAG_SUBSET
from ._walk_layout import WalkTests, forest_walk
from ._validation import (check_array_2d, check_not_empty, check_random_state,
                          check_sample_weight, check_weight_total, csr_for_walk, densified,
                          feature_names_of, invalid_parameter, is_int_at_least, is_sparse,
                          legacy_random_state, non_finite_error, sparse_for_fit)
from ._structure import dense_rows
from .tree import (CLASSIFICATION_CRITERIA, MAX_SAMPLES, REGRESSION_CRITERIA,
                   check_criterion, check_criterion_target, check_loss_matrix,
                   check_split_options, criterion_named,
                   DecisionTreeClassifier, DecisionTreeRegressor, ExtraTreeClassifier,
                   ExtraTreeRegressor, check_single_output_options, grow_c45_tree, grow_tree,
                   check_criterion_features, check_monotonic_cst, labels_of_outputs,
                   multi_output_criterion,
                   regression_criterion, resolve_tree_limits, scale_targets)

__all__ = ["ExtraTreesClassifier", "ExtraTreesRegressor", "RandomForestClassifier",
           "RandomForestRegressor"]


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


# scikit-learn draws its trees' random_state below this.
MAX_INT = np.iinfo(np.int32).max
# Most points of oob_curve_ when a forest with oob_score grows without batches:
# each costs a pass over the rows, about 1% of a fit in all.
OOB_CURVE_POINTS = 50


def tree_random_states(random_state, n_fitted, n_new):
    """The ``random_state`` of each of ``n_new`` trees after ``n_fitted``, drawn
    as scikit-learn's forests draw them: one ``randint(MAX_INT)`` per tree
    from the forest's ``random_state`` (a warm start skips the fitted trees'),
    so that the same ``random_state`` gives the trees scikit-learn's seeds."""
    random_state = legacy_random_state(random_state)
    if n_fitted:
        random_state.randint(MAX_INT, size=n_fitted)
    return [int(random_state.randint(MAX_INT)) for _ in range(n_new)]


def bootstrap_counts(seed, n_samples, n_draws, draw_weight=None):
    """How often a tree of ``random_state`` ``seed`` draws each row: scikit-learn's
    bootstrap (``n_draws`` rows, uniformly, or in proportion to ``draw_weight``),
    the same rows for the same seed."""
    random_state = np.random.RandomState(seed)
    if draw_weight is None:
        drawn = random_state.randint(0, n_samples, n_draws)
    else:
        drawn = random_state.choice(n_samples, n_draws, replace=True,
                                    p=draw_weight / np.sum(draw_weight))
    return np.bincount(drawn, minlength=n_samples)


def forest_tests(walk, starts, trees):
    """The walk flags, category sets and node positions of trees whose walks
    ``forest_walk`` put back to back into ``walk``: the sets one after
    another, the set starts in ``walk`` moved to match (in place); each
    tree's node positions count from its first walk node (None when no tree
    has multiway nodes)."""
    flags = np.concatenate([tree.walk_tests.walk_flags for tree in trees])
    category_bits = np.concatenate([tree.category_bits for tree in trees])
    bit_starts = np.cumsum([0] + [tree.category_bits.size for tree in trees[:-1]])
    kind = flags & FLAG_KIND_MASK
    tables = (kind == FLAG_SUBSET) | (kind == FLAG_MULTIWAY)
    if tables.any():
        sides = walk["threshold"].view(np.int32)
        sides[tables] += np.repeat(bit_starts, np.diff(starts))[tables].astype(np.int32)
    node_position = None
    if (kind == FLAG_MULTIWAY).any():
        node_position = np.concatenate([tree.node_position for tree in trees])
    return flags, category_bits, node_position



def concatenated_rows(parts):
    """Sparse rows (indptr, index, data) of several trees, one after another,
    as the forest kernel reads them (intp offsets, int32 columns)."""
    sizes = [part[0][-1] for part in parts]
    offsets = np.cumsum([0] + sizes[:-1])
    indptr = np.concatenate([parts[0][0][:1].astype(np.intp)] + [
        part[0][1:].astype(np.intp) + offset for part, offset in zip(parts, offsets)])
    index = np.concatenate([part[1] for part in parts]).astype(np.int32)
    data = np.ascontiguousarray(np.concatenate([part[2] for part in parts]))
    return indptr, index, data


def majority_votes(indptr, index, data):
    """One vote per leaf for its largest value's column (the first on ties), as
    sparse rows; a leaf without values casts none."""
    n_leaves = indptr.shape[0] - 1
    voting = np.flatnonzero(np.diff(indptr) > 0)
    starts = indptr[voting]
    entry_leaf = np.repeat(np.arange(n_leaves), np.diff(indptr))
    largest = np.full(n_leaves, -np.inf)
    np.maximum.at(largest, entry_leaf, data)
    at_largest = np.flatnonzero(data == largest[entry_leaf])
    first = at_largest[np.searchsorted(at_largest, starts)]
    vote_indptr = np.zeros(n_leaves + 1, dtype=np.intp)
    vote_indptr[voting + 1] = 1
    np.cumsum(vote_indptr, out=vote_indptr)
    return vote_indptr, np.ascontiguousarray(index[first]), np.ones(voting.size)


def _zero_one(classes):
    """Whether an output's class labels are numbers among 0 and 1."""
    return classes.dtype.kind in "biuf" and bool(np.isin(classes, (0, 1)).all())


def _same_classes(classes, other):
    """Whether two ``classes_`` (an array, or a list of one per output) agree."""
    if isinstance(classes, list) != isinstance(other, list):
        return False
    if not isinstance(classes, list):
        return np.array_equal(classes, other)
    return len(classes) == len(other) and all(
        np.array_equal(mine, theirs) for mine, theirs in zip(classes, other))


class BaseForest(BaseEnsemble):
    """Fitting, out-of-bag estimates and prediction shared by the forests."""

    _criteria = {}
    _tree_class = None
    # Class probabilities are summed from sparse leaf rows, means from dense ones.
    _sparse_leaf_values = False

    @property
    def _splitter(self):
        # How the trees draw thresholds, as the member class does: 'best'
        # (random forests) or 'random' (extra trees); the forests differ in
        # nothing else but their defaults.
        return self._tree_class().splitter

    @property
    def estimator(self):
        """An unfitted tree of the kind the forest grows (scikit-learn's template)."""
        return self._tree_class()

    def _check_forest_parameters(self):
        """Raise for a forest parameter of the wrong type or out of its range:
        called first in ``fit``, before any parameter is compared or used."""
        check_n_estimators(self.n_estimators)
        check_criterion(self.criterion, self._criteria)
        for name in ("bootstrap", "warm_start"):
            check_flag(getattr(self, name), name)
        if not (isinstance(self.oob_score, (bool, np.bool_)) or callable(self.oob_score)):
            raise invalid_parameter("oob_score", "an instance of 'bool' or a callable",
                                    self.oob_score)
        check_verbose(self.verbose)
        resolve_n_jobs(self.n_jobs)
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
        if self.max_samples is not None and not self.bootstrap:
            raise ValueError("`max_sample` cannot be set if `bootstrap=False`. Either "
                             "switch to `bootstrap=True` or set `max_sample=None`.")

    def _n_draws(self, n_samples, draw_weight):
        """Rows each tree's bootstrap draws (see ``resolve_n_draws``)."""
        if self.max_samples is None:
            return n_samples
        return resolve_n_draws(self.max_samples, n_samples, replace=True,
                               weight_total=None if draw_weight is None
                               else float(np.sum(draw_weight)))

    @shared_docs
    def fit(self, X, y, sample_weight=None):
        """Grow the forest.

        Parameters
        ----------
        {fit_X}
        y : array-like of shape (n_samples,) or (n_samples, n_outputs)
            Class labels (classifier) or real targets (regressor).
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights. As in scikit-learn 1.9, a bootstrap draws
            the rows in proportion to them (times the class weights) and
            each tree weighs its rows by their draw counts alone; without a
            bootstrap the trees take them as they are.

        Returns
        -------
        self
        """
        name = type(self).__name__
        self._check_forest_parameters()
        X = as_frame(X)
        feature_names = feature_names_of(X)
        X, encoding = self._categories_for_fit(X, feature_names)
        if is_sparse(X):
            X = sparse_for_fit(X, estimator=name)
        else:
            X = check_array_2d(X, estimator=name, allow_nan=True)
        if X.shape[0] > MAX_SAMPLES:
            raise ValueError(f"{name} supports at most {MAX_SAMPLES} samples")
        n_samples, n_features = X.shape
        targets = self._encode_targets(y, n_samples)
        if sample_weight is not None:
            sample_weight = check_sample_weight(sample_weight, n_samples, estimator=name)
        # What the bootstrap draws in proportion to (None: uniformly), and
        # the trees' weights without one: scikit-learn's _sample_weight.
        draw_weight = self._weighted_by_class(targets, sample_weight)
        n_draws = self._n_draws(n_samples, draw_weight)
        n_threads = resolve_n_jobs(self.n_jobs)
        limits = resolve_tree_limits(self, self._criteria, n_samples, n_features)
        limits["splitter"] = self._splitter
        if "extent_exponent" in targets:
            # Every tree's weights total the draws, or the weights given.
            total = n_draws if self.bootstrap else (
                n_samples if draw_weight is None else float(np.sum(draw_weight)))
            limits["target_exponent"] = targets["target_exponent"]
            limits["impurity_exponent"] = targets["impurity_exponent"]
            limits["weight_exponent"] = weight_exponent(
                total, targets["extent_exponent"] + targets["target_exponent"])
        limits["categories"] = None if encoding is None else encoding.counts
        limits["multiway"] = check_split_options(self)
        check_criterion_features(self.criterion, limits["categories"])
        widths = targets.get("widths")
        classes = targets.get("classes")
        limits["monotonic_cst"] = check_monotonic_cst(
            self.monotonic_cst, n_features, 1 if widths is None else len(widths),
            len(classes) if widths is None and classes is not None else None,
            limits["categories"])
        if limits["multiway"] and limits["monotonic_cst"] is not None:
            raise ValueError("monotonic_cst constrains binary trees; multiway (C4.5) trees "
                             "take none")
        if targets.get("widths") is not None:
            check_single_output_options(self, limits["multiway"])
        if limits["multiway"] and self._splitter == "random":
            raise ValueError(f"{name} draws random thresholds, which multiway (C4.5) trees "
                             "do not have; use categorical_split='binary'")

        fitted = self._warm_start_from(n_features, encoding,
                                       len(getattr(self, "_trees", ())))
        if fitted and len(self._trees) == self.n_estimators and not self._same_targets(
                targets):
            # scikit-learn's warning was given: no tree is added, and the
            # trees were grown for other targets than these, so the forest
            # stays as it was.
            return self
        if fitted:
            self._check_members()  # the members kept
            self._check_warm_targets(*self._warm_targets(targets))
        trees = list(self._trees) if fitted else []
        importances = list(self._tree_importances) if fitted else []
        seeds = list(self._tree_seeds) if fitted else []
        seeds += tree_random_states(self.random_state, len(seeds),
                                    self.n_estimators - len(seeds))

        track_oob = self.oob_score or self.oob_batch_size is not None
        oob = OutOfBagSums(n_samples, trees[0].n_values if trees else
                           self._n_values(targets)) if track_oob else None
        batch_size = self.oob_batch_size or self.n_estimators
        curve_step = -(-self.n_estimators // OOB_CURVE_POINTS)
        curve = []
        if self._splitter == "random":
            limits["columns"] = feature_columns(X)
            limits["rows"] = feature_rows(X)
            ranked = random_split_features(limits["columns"], limits["categories"])
        else:
            ranked = rank_features(X, n_threads)
        # Past the ranking X is read by rows only (out-of-bag predictions).
        X = X.tocsr() if is_sparse(X) else X
        for index, tree in enumerate(trees if track_oob else []):
            counts = bootstrap_counts(seeds[index], n_samples, n_draws, draw_weight)
            oob.add(*out_of_bag_values(tree, X, counts))
        while len(trees) < self.n_estimators:
            batch = range(len(trees), min(self.n_estimators, len(trees) + batch_size))
            for tree, tree_importances, oob_part in self._grow_trees(
                    ranked, X, targets, draw_weight, limits, seeds, batch, n_draws,
                    n_threads, track_oob):
                trees.append(tree)
                importances.append(tree_importances)
                if track_oob:
                    oob.add(*oob_part)
                # Without batches, the curve has a point every few trees: at
                # most OOB_CURVE_POINTS, each costing one pass over the rows.
                if self.oob_batch_size is None and track_oob and (
                        len(trees) % curve_step == 0 or len(trees) == self.n_estimators):
                    curve.append((len(trees), self._oob_error(oob, targets)))
            if self.oob_batch_size is not None:
                curve.append((len(trees), self._oob_error(oob, targets)))
                if self._oob_stable([error for _, error in curve]):
                    break

        self._trees = trees
        self._tree_importances = importances
        self._tree_seeds = seeds[:len(trees)]
        self._sample_weight = draw_weight
        self._n_samples_bootstrap = n_draws
        self._n_samples = n_samples
        self.n_outputs_ = 1 if targets.get("widths") is None else len(targets["widths"])
        self.max_features_ = limits["max_features"]
        self._set_input_attributes(n_features, feature_names, encoding)
        self._set_target_attributes(targets)
        # Every prediction reads the trees laid out back to back: laid out
        # here, the first call after fit costs what later calls cost.
        self._ensemble = None
        self._ensemble_arrays()
        start_threads()
        # A warm start keeps the members it had; the new trees join them.
        kept = list(self.estimators_) if fitted else []
        self.estimators_ = kept + [self._as_estimator(index) for index in
                                   range(len(kept), len(trees))]
        self._members_made = tuple(self.estimators_)
        if track_oob:
            self._set_oob_attributes(oob.averages(), oob.covered(), targets)
        if track_oob:
            self.oob_curve_ = np.array(curve, dtype=np.float64).reshape(-1, 2)
        elif hasattr(self, "oob_curve_"):
            del self.oob_curve_
        return self

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

    def _oob_stable(self, errors):
        """True once the best error of the last ``oob_patience`` batches beats the
        best before them by less than ``oob_tol``."""
        patience = self.oob_patience
        if len(errors) <= patience or np.isnan(errors[-1]):
            return False
        return min(errors[:-patience]) - min(errors[-patience:]) < self.oob_tol

    def _grow_trees(self, ranked, X, targets, draw_weight, limits, seeds, indices,
                    n_draws, n_threads, track_oob):
        """Grow the trees at ``indices`` on ``n_threads`` threads.

        Returns, in index order, (compact tree, its importances, its out-of-bag
        rows and values or None).
        """
        n_samples = X.shape[0]
        dense_X = densified(X) if limits["multiway"] else None

        def grow(index):
            # The tree's draws are those of a tree fit with its member's
            # random_state, so a member refit on its rows grows the same tree.
            feature_seed = check_random_state(seeds[index])
            if self.bootstrap:
                counts = bootstrap_counts(seeds[index], n_samples, n_draws, draw_weight)
                weight = counts * self._subsample_class_weight(targets, counts)
            else:
                # Every row, weighed as given (the "subsample" of balanced_subsample).
                counts = np.ones(n_samples, dtype=np.int64)
                weight = np.ones(n_samples) if draw_weight is None else draw_weight
            if limits.get("weight_exponent", 0):
                weight = np.ldexp(weight, -limits["weight_exponent"])
            if limits["multiway"]:
                tree = grow_c45_tree(dense_X, ranked, targets["class_index"], weight,
                                     len(targets["classes"]), self, limits, feature_seed)
            else:
                criterion = self._make_criterion(targets, weight)
                tree = grow_tree(ranked, criterion, weight, limits, feature_seed,
                                 targets.get("widths"))
            oob_part = out_of_bag_values(tree, X, counts) if track_oob else None
            # Trees whose inner-node values are not their children's weighted
            # means (see Tree.compacted) are kept whole.
            whole = (self.criterion == "absolute_error" or tree.fractional
                     or limits["monotonic_cst"] is not None)
            return (tree if whole else tree.compacted(self._impurity_rule(targets)),
                    tree.compute_feature_importances(), oob_part)

        return map_members(grow, indices, n_threads,
                           progress_of(self, "trees built", len(indices)))

    @property
    def estimators_samples_(self):
        """Per tree, the indices of the rows drawn for it (with repeats, in row
        order; every row without a bootstrap), int32 as scikit-learn's."""
        self._check_fitted()
        self._check_members()
        n_samples = self._n_samples
        rows = np.arange(n_samples, dtype=np.int32 if n_samples < 2**31 else np.int64)
        if not self.bootstrap:
            return [rows.copy() for _ in self._trees]
        return [np.repeat(rows, self._tree_counts(index)) for index in range(len(self._trees))]

    def _tree_counts(self, index):
        """How often tree ``index`` drew each training row (drawn again from its seed)."""
        if hasattr(self, "_base_seed"):  # pickled before the trees drew as scikit-learn's
            return member_counts(self._base_seed, index, self._n_samples,
                                 self._n_samples_bootstrap, replace=True)
        return bootstrap_counts(self._tree_seeds[index], self._n_samples,
                                self._n_samples_bootstrap, self._sample_weight)

    def _check_members(self):
        """Raise unless ``estimators_`` holds the trees fit grew, which the
        forest predicts with (a member replaced, added or removed after fit
        would be ignored)."""
        members, trees = self.estimators_, self._trees
        # Every prediction asks: first whether the members are those made
        # with the trees (tuples compare items by identity first, in C).
        try:
            if self.__dict__.get("_members_made") == tuple(members):
                return
        except (TypeError, ValueError):  # a foreign member's own __eq__
            pass
        if len(members) != len(trees):
            raise self._edited_members_error(
                f"it holds {len(members)} members, but the forest grew {len(trees)} trees and "
                "predicts with them all (for fewer trees, fit with that n_estimators)")
        for index, (member, tree) in enumerate(zip(members, trees)):
            if getattr(member, "tree_", None) is not tree:
                raise self._edited_members_error(
                    f"estimators_[{index}] ({type(member).__name__}) is not the tree the "
                    "forest grew there and predicts with")
        # Other estimators around the same trees (copies, say) predict alike.
        self._members_made = tuple(members)

    def _validate_X_for_predict(self, X):
        # The prediction kernel refuses infinity itself, and reads sparse
        # rows as it goes (no dense copy of X).
        def convert(X):
            if is_sparse(X):
                rows = csr_for_walk(X, estimator=type(self).__name__)
                check_not_empty(rows.shape, estimator=type(self).__name__)
                return rows
            return check_array_2d(X, estimator=type(self).__name__, check_finite=False,
                                  keep_float=True)

        return self._checked_predict_input(X, convert)

    def _ensemble_arrays(self):
        """All trees' walk nodes and leaf values back to back (built once, not pickled).

        In this copy of the walk nodes a leaf's ``node`` counts the tree's
        leaves, so that only leaf values are stored: half the bytes that
        prediction streams through the cache. The values are dense rows for
        one value per leaf ("values"), else sparse rows ("rows": indptr,
        index, data), so that a pure leaf costs one addition, not one per class.
        """
        if getattr(self, "_ensemble", None) is None:
            walk, starts, output_starts = forest_walk([tree.walk for tree in self._trees],
                                                      [tree.nodes for tree in self._trees])
            flags, category_bits, node_position = forest_tests(walk, starts, self._trees)
            self._ensemble = {"walk": WalkTests(walk, flags, category_bits, node_position),
                              "fractional": any(tree.fractional for tree in self._trees),
                              "starts": starts,
                              "output_starts": output_starts,
                              "refill": np.array([tree.refill_walk for tree in self._trees],
                                                 dtype=np.uint8)}
            if self._sparse_leaf_values:
                self._ensemble["rows"] = concatenated_rows(
                    [tree.leaf_value_rows for tree in self._trees])
            else:
                self._ensemble["values"] = np.ascontiguousarray(
                    np.concatenate([tree.leaf_values for tree in self._trees]))
        return self._ensemble

    def _sum_over_trees(self, X, leaf_output, n_outputs):
        """Per row, the sum over trees of ``leaf_output`` (dense or sparse rows)
        at the row's leaves."""
        return self._tree_outputs(X, leaf_output, np.empty((X.shape[0], n_outputs)),
                                  per_tree=False)

    def _per_tree_values(self, X, leaf_values=None):
        """``out[row, t]``: tree t's value for each row (one value per leaf,
        ``leaf_values`` or the leaves' only values)."""
        if leaf_values is None:
            leaf_values = self._ensemble_arrays()["values"]
        return self._tree_outputs(X, leaf_values, np.empty((X.shape[0], len(self._trees))),
                                  per_tree=True)

    def _tree_outputs(self, X, leaf_output, out, per_tree):
        arrays = self._ensemble_arrays()
        if arrays["fractional"]:
            return self._mixed_outputs(X, leaf_output, out, per_tree)
        if map_rows(tree_outputs, X, out, arrays["walk"], arrays["starts"],
                    arrays["output_starts"], leaf_output,
                    n_threads=resolve_n_jobs(self.n_jobs), n_trees=len(self._trees),
                    per_tree=per_tree, refill_trees=arrays["refill"]):
            raise non_finite_error(X, allow_nan=True)
        return out

    def _mixed_outputs(self, X, leaf_output, out, per_tree):
        """``_tree_outputs`` of trees with fractional missing values: every
        tree's leaf outputs mixed by its ``leaf_mixture``."""
        if isinstance(X, CSRRows):
            X = X.toarray()
        if np.isinf(np.asarray(X, dtype=np.float32)).any():
            raise non_finite_error(X, allow_nan=True)
        X = np.asarray(X, dtype=np.float32)
        arrays = self._ensemble_arrays()
        if isinstance(leaf_output, tuple):
            leaf_output = dense_rows(*leaf_output, out.shape[1])
        out[:] = 0.0
        for index, tree in enumerate(self._trees):
            rows, nodes, shares = tree.leaf_mixture(X)
            leaf_number = np.cumsum(tree.nodes["left_child"] == -1) - 1
            outputs = leaf_output[arrays["output_starts"][index] + leaf_number[nodes]]
            if per_tree:
                np.add.at(out[:, index], rows, shares * outputs[:, 0])
            else:
                np.add.at(out, rows, shares[:, None] * outputs)
        return out

    @property
    def feature_importances_(self):
        """Mean decrease in impurity: the trees' normalised importances, averaged."""
        self._check_fitted()
        self._check_members()
        importances = np.mean(self._tree_importances, axis=0)
        total = importances.sum()
        return importances / total if total > 0 else importances

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
        truth = self._importance_targets(y)
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

    def apply(self, X):
        """Leaf index in every tree of every row: an array (n_samples, n_estimators)."""
        X = self._validate_X_for_predict(X)
        return np.column_stack([tree.apply(X) for tree in self._trees])

    def decision_path(self, X):
        """The nodes every row passes through, in every tree. Requires scipy.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        indicator : scipy.sparse.csr_matrix of shape (n_samples, n_nodes_ptr[-1])
            Entry (i, j) is 1 when row i passes through node j, the trees'
            nodes side by side.
        n_nodes_ptr : ndarray of intp, shape (n_estimators + 1,)
            Tree t's nodes are the columns ``n_nodes_ptr[t]:n_nodes_ptr[t + 1]``.
        """
        # Infinity is refused here: the path walk does not look for it.
        X = self._checked_predict_input(X, lambda X: check_array_2d(
            X, estimator=type(self).__name__, allow_nan=True))
        paths = [tree.decision_path(X) for tree in self._trees]
        from scipy.sparse import hstack  # decision_path found scipy

        n_nodes_ptr = np.cumsum([0] + [tree.node_count for tree in self._trees]).astype(np.intp)
        indicator = hstack(paths, format="csr")
        return indicator, n_nodes_ptr

    def __getstate__(self):
        state = self.__dict__.copy()
        state.pop("_ensemble", None)
        # The members are views of the trees, rebuilt on load.
        state.pop("estimators_", None)
        state.pop("_members_made", None)
        return state

    def __setstate__(self, state):
        if "_n_draws" in state:
            # Pickled before the attribute took scikit-learn's name.
            state["_n_samples_bootstrap"] = state.pop("_n_draws")
        if "_base_seed" in state and "_trees" in state:
            # Pickled when the forests drew their trees' seeds and rows from
            # one seed of their own: those draws are made again from it.
            state["_tree_seeds"] = [member_seeds(state["_base_seed"], index)[1]
                                    for index in range(len(state["_trees"]))]
            state["_sample_weight"] = None
        self.__dict__.update(state)
        self._ensemble = None
        self._check_loaded_state()
        if "_trees" in state:
            self.estimators_ = [self._as_estimator(index) for index in range(len(self._trees))]
            self._members_made = tuple(self.estimators_)

    def _as_estimator(self, index):
        """A fitted single-tree estimator around tree ``index``, with the
        ``random_state`` that tree's feature draws came from."""
        tree = self._trees[index]
        # The forest weighs its trees' rows by the class weights itself (its
        # draws, or the weights of trees grown without a bootstrap), as
        # scikit-learn's does: its members take none.
        estimator = self._tree_class(**{
            name: getattr(self, name) for name in self._tree_class._parameter_names()
            if hasattr(self, name) and name != "class_weight"})
        estimator.random_state = self._tree_seeds[index]
        estimator.tree_ = tree
        estimator.n_features_in_ = tree.n_features
        estimator.n_outputs_ = tree.n_outputs
        estimator.max_features_ = getattr(self, "max_features_", None)
        if hasattr(self, "is_categorical_"):
            estimator.is_categorical_ = self.is_categorical_
            estimator.categories_ = self.categories_
        if hasattr(self, "feature_names_in_"):
            estimator.feature_names_in_ = self.feature_names_in_
        self._set_member_attributes(estimator)
        return estimator


class ForestClassifier(ClassifierMixin, BaseForest):
    """What random forests and extra trees of classification trees share; they
    differ only in how a tree draws its thresholds (their ``_tree_class``) and in
    their default ``bootstrap``."""

    # gain_ratio grows multiway (C4.5) trees only; it has no binary criterion.
    _criteria = {**CLASSIFICATION_CRITERIA, "gain_ratio": None}
    _tree_class = DecisionTreeClassifier
    _sparse_leaf_values = True

    def __init__(self, n_estimators=100, *, criterion="gini", max_depth=None,
                 min_samples_split=2, min_samples_leaf=1, min_weight_fraction_leaf=0.0,
                 max_features="sqrt", max_leaf_nodes=None, min_impurity_decrease=0.0,
                 ccp_alpha=0.0, bootstrap=True, max_samples=None, oob_score=False, n_jobs=None,
                 random_state=None, verbose=0, warm_start=False, class_weight=None,
                 voting="soft", oob_batch_size=None, oob_tol=1e-3, oob_patience=3,
                 loss_matrix=None, categorical_features="from_dtype",
                 categorical_split="binary", missing="learn", monotonic_cst=None):
        self.n_estimators = n_estimators
        self.criterion = criterion_named(criterion)
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.min_weight_fraction_leaf = min_weight_fraction_leaf
        self.max_features = max_features
        self.max_leaf_nodes = max_leaf_nodes
        self.min_impurity_decrease = min_impurity_decrease
        self.ccp_alpha = ccp_alpha
        self.bootstrap = bootstrap
        self.max_samples = max_samples
        self.oob_score = oob_score
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.verbose = verbose
        self.categorical_features = categorical_features
        self.categorical_split = categorical_split
        self.missing = missing
        self.warm_start = warm_start
        self.class_weight = class_weight
        self.voting = voting
        self.loss_matrix = loss_matrix
        self.oob_batch_size = oob_batch_size
        self.oob_tol = oob_tol
        self.oob_patience = oob_patience
        self.monotonic_cst = monotonic_cst

    def _encode_targets(self, y, n_samples):
        classes, class_index = encode_outputs(y, n_samples, type(self).__name__)
        check_choice(self.voting, "voting", ("soft", "hard"))
        if isinstance(classes, list):
            if self.oob_score and not all(_zero_one(output) for output in classes):
                # scikit-learn's refusal and words: only 0/1 labels
                # (multilabel-indicator) have out-of-bag scores.
                raise ValueError("The type of target cannot be used to compute OOB "
                                 "estimates. Got multiclass-multioutput while only the "
                                 "following are supported: continuous, "
                                 "continuous-multioutput, binary, multiclass, "
                                 "multilabel-indicator.")
            return {"classes": classes, "class_index": class_index, "loss": None,
                    "widths": np.array([len(output) for output in classes], dtype=np.int64)}
        return {"classes": classes, "class_index": class_index,
                "loss": check_loss_matrix(self.loss_matrix, self.criterion, len(classes))}

    def _weighted_by_class(self, targets, sample_weight):
        """The sample weights times the class weights (None when neither is
        given): what a bootstrap draws in proportion to. Balanced class
        weights count the classes' sample weight, as scikit-learn 1.9 does;
        'balanced_subsample' weighs each tree's draw instead (with a
        bootstrap; without one it is 'balanced')."""
        class_weight = self.class_weight
        if isinstance(class_weight, str) and class_weight == "balanced_subsample":
            if self.bootstrap:
                return sample_weight
            class_weight = "balanced"
        if class_weight is None:
            return sample_weight
        factor = class_weight_per_sample(class_weight, targets["classes"],
                                         targets["class_index"], sample_weight)
        return check_weight_total(factor if sample_weight is None else sample_weight * factor,
                                  estimator=type(self).__name__, class_weighted=True)

    def _subsample_class_weight(self, targets, counts):
        if not (isinstance(self.class_weight, str)
                and self.class_weight == "balanced_subsample"):
            return 1.0
        class_index = targets["class_index"]
        if class_index.ndim == 2:  # several outputs: the product of theirs
            factor = np.ones(class_index.shape[0])
            for k, classes in enumerate(targets["classes"]):
                factor *= self._subsample_class_weight(
                    {"classes": classes, "class_index": class_index[:, k]}, counts)
            return factor
        n_classes = len(targets["classes"])
        drawn = np.bincount(class_index, weights=counts, minlength=n_classes)
        per_class = np.zeros(n_classes)
        present = drawn > 0
        per_class[present] = counts.sum() / (n_classes * drawn[present])
        return per_class[class_index]

    def _make_criterion(self, targets, weight):
        if targets.get("widths") is not None:
            return multi_output_criterion(self.criterion, weight, targets["class_index"],
                                          targets["widths"])[0]
        if targets["loss"] is not None:
            return CostSensitiveGini(targets["class_index"], weight, len(targets["classes"]),
                                     targets["loss"])
        return self._criteria[self.criterion](targets["class_index"], weight,
                                              len(targets["classes"]))

    def _set_target_attributes(self, targets):
        self.classes_ = targets["classes"]
        several = isinstance(self.classes_, list)
        self.n_classes_ = ([len(classes) for classes in self.classes_] if several
                           else len(self.classes_))
        self.loss_matrix_ = targets["loss"]

    def _same_targets(self, targets):
        return _same_classes(targets["classes"], self.classes_)

    def _warm_targets(self, targets):
        """Whether y has the fitted classes, and both described (see
        ``_check_warm_targets``)."""
        return (self._same_targets(targets), describe_y(self.classes_),
                describe_y(targets["classes"]))

    def _set_member_attributes(self, estimator):
        estimator.classes_ = self.classes_
        estimator.n_classes_ = self.n_classes_
        estimator.loss_matrix_ = getattr(self, "loss_matrix_", None)

    @property
    def _n_columns(self):
        """Values per leaf: the classes of every output."""
        if isinstance(self.classes_, list):
            return sum(len(classes) for classes in self.classes_)
        return len(self.classes_)

    def _n_values(self, targets):
        if targets.get("widths") is not None:
            return int(targets["widths"].sum())
        return len(targets["classes"])

    def _impurity_rule(self, targets):
        """How a compact tree's impurities follow from its class fractions
        (see Tree.compacted); None for the cost-sensitive Gini."""
        if targets.get("loss") is not None:
            return None
        return {"gini": "gini", "misclassification": "misclassification"}.get(
            self.criterion, "entropy")

    def _importance_targets(self, y):
        classes, class_index = encode_outputs(y, self._n_samples, type(self).__name__)
        if not _same_classes(classes, self.classes_):
            raise ValueError("y has other classes than the fitted forest")
        return class_index

    def _output_classes(self, scores, widths=None):
        """Per row and output, the index of the class of the largest of
        ``scores`` (rows of every output's columns side by side, ``widths``
        columns each; by default the trees' outputs)."""
        if widths is None:
            outputs = self._trees[0].split_outputs(scores)
        else:
            starts = np.concatenate([[0], np.cumsum(widths)])
            outputs = [scores[..., start:end] for start, end in zip(starts[:-1], starts[1:])]
        return np.stack([predicted_classes(output_scores) for output_scores in outputs],
                        axis=1)

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

    def _leaf_votes(self):
        """One-hot majority class of every leaf (the first on ties), or with a
        loss matrix its class of least expected cost, for hard voting."""
        arrays = self._ensemble_arrays()
        if "votes" not in arrays:
            loss = getattr(self, "loss_matrix_", None)
            if isinstance(self.classes_, list):
                # One vote per output: its class of the largest value.
                values = dense_rows(*arrays["rows"], self._n_columns)
                start = self._trees[0].output_start
                index = self._output_classes(values) + start[:-1]
                n_leaves, n_outputs = index.shape
                arrays["votes"] = (np.arange(0, n_leaves * n_outputs + 1, n_outputs,
                                             dtype=np.intp),
                                   np.ascontiguousarray(index.reshape(-1), dtype=np.int32),
                                   np.ones(n_leaves * n_outputs))
            elif loss is None:
                arrays["votes"] = majority_votes(*arrays["rows"])
            else:
                values = dense_rows(*arrays["rows"], len(self.classes_))
                n_leaves = values.shape[0]
                arrays["votes"] = (np.arange(n_leaves + 1, dtype=np.intp),
                                   predicted_classes(values, loss).astype(np.int32),
                                   np.ones(n_leaves))
        return arrays["votes"]

    def predict_proba(self, X):
        """Mean of the trees' class probabilities (soft voting).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_classes), or a list of them
            One array per output for several outputs.
        """
        X = self._validate_X_for_predict(X)
        proba = self._sum_over_trees(X, self._ensemble_arrays()["rows"],
                                     self._n_columns) / len(self._trees)
        return self._per_output(proba)

    def _per_output(self, scores):
        """``scores`` as it is for one output, else a list of one array per output."""
        if isinstance(self.classes_, list):
            return [np.ascontiguousarray(output)
                    for output in self._trees[0].split_outputs(scores)]
        return scores

    def vote_fractions(self, X):
        """Share of trees voting for each class (each tree votes its leaf's majority).

        With it a caller can ask for unanimity (a fraction of 1) or a strict
        majority (above 0.5) and abstain otherwise.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_classes), or a list of them
            One array per output for several outputs.
        """
        X = self._validate_X_for_predict(X)
        return self._per_output(self._sum_over_trees(X, self._leaf_votes(), self._n_columns)
                                / len(self._trees))

    def predict(self, X):
        """Predicted class: by ``voting``, ties going to the first class of ``classes_``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,) or (n_samples, n_outputs)
        """
        X = self._validate_X_for_predict(X)
        if self.voting == "hard":
            # Each tree votes for its leaf's class (of least cost, with a loss
            # matrix); the most votes win.
            scores = self._sum_over_trees(X, self._leaf_votes(), self._n_columns)
        else:
            # Divided as predict_proba divides, so that a tie there (sums
            # that differ by a rounding, equal once divided) is a tie here.
            scores = self._sum_over_trees(X, self._ensemble_arrays()["rows"],
                                          self._n_columns) / len(self._trees)
        if isinstance(self.classes_, list):
            return labels_of_outputs(self.classes_, self._trees[0].split_outputs(scores))
        if self.voting == "hard":
            return self.classes_[np.argmax(scores, axis=1)]
        return self.classes_[predicted_classes(scores, getattr(self, "loss_matrix_", None))]


@shared_docs
class RandomForestClassifier(ForestClassifier):
    """A random forest of classification trees.

    Each tree grows on a bootstrap sample of the rows (kept as per-row draw
    counts, which act as sample weights) and draws a fresh random subset of
    ``max_features`` features at every node. Trees are built on ``n_jobs``
    threads, each build running without the GIL. The trees take categorical
    features and missing values as :class:`fasttree.DecisionTreeClassifier`
    does.

    Parameters
    ----------
    {forest_size}
    {classification_criterion}
    {tree_limits}
    {max_features}
        'sqrt' is the random-forest default for classification.
    {growth_limits}
    {ccp_alpha}
    {forest_draws}
    {forest_class_weight}
    {forest_voting}
    {forest_oob_growth}
    {forest_loss_matrix}
    {categorical_features}
    {categorical_split}
    {missing}
    {monotonic_cst}
        The forest's mean probability keeps the trees' constraints.

    Attributes
    ----------
    {fitted_forest}
    oob_decision_function_ : ndarray of shape (n_samples, n_classes)
        With ``oob_score``: the mean class probabilities of the trees that
        left each row out; NaN for rows that every tree drew.
    {fitted_classes}
    {fitted_loss_matrix}
    {fitted_inputs}
    """


class ForestRegressor(RegressorMixin, BaseForest):
    """What random forests and extra trees of regression trees share (see
    :class:`ForestClassifier`)."""

    _criteria = REGRESSION_CRITERIA
    _tree_class = DecisionTreeRegressor

    def __init__(self, n_estimators=100, *, criterion="squared_error", max_depth=None,
                 min_samples_split=2, min_samples_leaf=1, min_weight_fraction_leaf=0.0,
                 max_features=1.0, max_leaf_nodes=None, min_impurity_decrease=0.0,
                 ccp_alpha=0.0, bootstrap=True, max_samples=None, oob_score=False, n_jobs=None,
                 random_state=None, verbose=0, warm_start=False, aggregation="mean",
                 oob_batch_size=None, oob_tol=1e-3, oob_patience=3,
                 categorical_features="from_dtype", monotonic_cst=None):
        self.n_estimators = n_estimators
        self.criterion = criterion_named(criterion)
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.min_weight_fraction_leaf = min_weight_fraction_leaf
        self.max_features = max_features
        self.max_leaf_nodes = max_leaf_nodes
        self.min_impurity_decrease = min_impurity_decrease
        self.ccp_alpha = ccp_alpha
        self.bootstrap = bootstrap
        self.max_samples = max_samples
        self.oob_score = oob_score
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.verbose = verbose
        self.categorical_features = categorical_features
        self.warm_start = warm_start
        self.aggregation = aggregation
        self.oob_batch_size = oob_batch_size
        self.oob_tol = oob_tol
        self.oob_patience = oob_patience
        self.monotonic_cst = monotonic_cst

    def _encode_targets(self, y, n_samples):
        check_choice(self.aggregation, "aggregation", ("mean", "median"))
        target = check_regression_target(y, n_samples, type(self).__name__)
        check_criterion_target(self.criterion, target, type(self).__name__)
        extent = target_extent_exponent(target, self.criterion, type(self).__name__)
        scale = {}
        # The targets as they are (out-of-bag scores), and as the criteria see them.
        targets = {"target": target, "extent_exponent": extent,
                   "criterion_target": scale_targets(target, self.criterion, extent, scale),
                   **scale}
        if target.ndim == 2:
            targets["widths"] = np.ones(target.shape[1], dtype=np.int64)
        return targets

    def _class_weight_factor(self, targets):
        return 1.0

    def _subsample_class_weight(self, targets, counts):
        return 1.0

    def _make_criterion(self, targets, weight):
        return regression_criterion(self.criterion, targets["criterion_target"], weight)[0]

    def _set_target_attributes(self, targets):
        pass

    def _same_targets(self, targets):
        return self._n_values(targets) == self.n_outputs_

    def _warm_targets(self, targets):
        """Whether y has the fitted number of outputs, and both described."""
        return (self._same_targets(targets), describe_y(n_outputs=self.n_outputs_),
                describe_y(n_outputs=self._n_values(targets)))

    def _set_member_attributes(self, estimator):
        pass

    def _n_values(self, targets):
        return 1 if targets["target"].ndim == 1 else targets["target"].shape[1]

    def _weighted_by_class(self, targets, sample_weight):
        """What a bootstrap draws in proportion to: the sample weights."""
        return sample_weight

    def _impurity_rule(self, targets):
        """Regression trees keep every node's value and impurity (see
        Tree.compacted)."""
        return None

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
        self.oob_score_ = self._oob_score_of(averages[has_oob], targets, has_oob)

    def predict(self, X):
        """Mean (or median, by ``aggregation``) of the trees' predictions.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of float64, shape (n_samples,) or (n_samples, n_outputs)
        """
        X = self._validate_X_for_predict(X)
        n_outputs = self._trees[0].n_outputs
        if self.aggregation == "median":
            values = self._ensemble_arrays()["values"]
            medians = [np.median(self._per_tree_values(
                X, np.ascontiguousarray(values[:, k:k + 1])), axis=1)
                for k in range(n_outputs)]
            return medians[0] if n_outputs == 1 else np.stack(medians, axis=1)
        arrays = self._ensemble_arrays()
        if "mean_exponent" not in arrays:
            # Values near the float64 limit are summed over a power of two
            # at least the number of trees, so that their sum cannot
            # overflow; the mean is multiplied back (exact both ways).
            largest = float(np.max(np.abs(arrays["values"]), initial=0.0))
            arrays["mean_exponent"] = (math.ceil(math.log2(len(self._trees)))
                                       if largest > np.finfo(np.float64).max / len(self._trees)
                                       else 0)
            arrays["mean_values"] = (np.ldexp(arrays["values"], -arrays["mean_exponent"])
                                     if arrays["mean_exponent"] else arrays["values"])
        means = self._sum_over_trees(X, arrays["mean_values"], n_outputs) / len(self._trees)
        if arrays["mean_exponent"]:
            means = np.ldexp(means, arrays["mean_exponent"])
        return means[:, 0] if n_outputs == 1 else means


@shared_docs
class RandomForestRegressor(ForestRegressor):
    """A random forest of regression trees.

    Each tree grows on a bootstrap sample of the rows and draws a fresh
    random subset of ``max_features`` features at every node; the forest
    predicts the mean (or median) of the trees' predictions. The trees take
    categorical features and missing values as
    :class:`fasttree.DecisionTreeRegressor` does.

    Parameters
    ----------
    {forest_size}
    {regression_criterion}
    {tree_limits}
    {max_features}
        1.0 (every feature at every node) is scikit-learn's default for
        regression; a third of the features is the textbook's.
    {growth_limits}
    {ccp_alpha}
    {forest_draws}
    {forest_aggregation}
    {forest_oob_growth}
    {categorical_features}
    {monotonic_cst}
        The forest's mean keeps the trees' constraints.

    Attributes
    ----------
    {fitted_forest}
    oob_prediction_ : ndarray of shape (n_samples,) or (n_samples, n_outputs)
        With ``oob_score``: the mean prediction of the trees that left each
        row out; NaN for rows that every tree drew.
    {fitted_inputs}
    """


@shared_docs
class ExtraTreesClassifier(ForestClassifier):
    """Extremely randomized trees (Geurts, Ernst and Wehenkel, 2006) for
    classification.

    A random forest whose trees draw, for each of the ``max_features``
    features drawn at a node, one threshold uniformly between the node's
    least and largest value, and keep the best of those splits
    (``splitter='random'``); by default every tree grows on all the rows.
    Missing values of a feature go to a side drawn at random. Categorical
    features keep their exact subset search; multiway (C4.5) trees draw no
    thresholds, so ``categorical_split='multiway'`` is refused.

    Parameters
    ----------
    {forest_size}
    {classification_criterion}
    {tree_limits}
    {max_features}
    {growth_limits}
    {ccp_alpha}
    {forest_draws}
    {forest_class_weight}
    {forest_voting}
    {forest_oob_growth}
    {forest_loss_matrix}
    {categorical_features}
    {categorical_split}
    {missing}
    {monotonic_cst}

    Attributes
    ----------
    {fitted_forest}
    oob_decision_function_ : ndarray of shape (n_samples, n_classes)
        With ``oob_score``: the mean class probabilities of the trees that
        left each row out; NaN for rows that every tree drew.
    {fitted_classes}
    {fitted_loss_matrix}
    {fitted_inputs}
    """

    _tree_class = ExtraTreeClassifier

    def __init__(self, n_estimators=100, *, criterion="gini", max_depth=None,
                 min_samples_split=2, min_samples_leaf=1, min_weight_fraction_leaf=0.0,
                 max_features="sqrt", max_leaf_nodes=None, min_impurity_decrease=0.0,
                 ccp_alpha=0.0, bootstrap=False, max_samples=None, oob_score=False,
                 n_jobs=None, random_state=None, verbose=0, warm_start=False,
                 class_weight=None, voting="soft", oob_batch_size=None, oob_tol=1e-3,
                 oob_patience=3, loss_matrix=None, categorical_features="from_dtype",
                 categorical_split="binary", missing="learn", monotonic_cst=None):
        super().__init__(**parameters_of(locals()))


@shared_docs
class ExtraTreesRegressor(ForestRegressor):
    """Extremely randomized trees (Geurts, Ernst and Wehenkel, 2006) for
    regression: see :class:`ExtraTreesClassifier`.

    Parameters
    ----------
    {forest_size}
    {regression_criterion}
    {tree_limits}
    {max_features}
    {growth_limits}
    {ccp_alpha}
    {forest_draws}
    {forest_aggregation}
    {forest_oob_growth}
    {categorical_features}
    {monotonic_cst}

    Attributes
    ----------
    {fitted_forest}
    oob_prediction_ : ndarray of shape (n_samples,) or (n_samples, n_outputs)
        With ``oob_score``: the mean prediction of the trees that left each
        row out; NaN for rows that every tree drew.
    {fitted_inputs}
    """

    _tree_class = ExtraTreeRegressor

    def __init__(self, n_estimators=100, *, criterion="squared_error", max_depth=None,
                 min_samples_split=2, min_samples_leaf=1, min_weight_fraction_leaf=0.0,
                 max_features=1.0, max_leaf_nodes=None, min_impurity_decrease=0.0,
                 ccp_alpha=0.0, bootstrap=False, max_samples=None, oob_score=False,
                 n_jobs=None, random_state=None, verbose=0, warm_start=False,
                 aggregation="mean", oob_batch_size=None, oob_tol=1e-3, oob_patience=3,
                 categorical_features="from_dtype", monotonic_cst=None):
        super().__init__(**parameters_of(locals()))

