"""Random forests and extra trees: the estimators and their training
(bootstrap samples, a fresh feature subset at every node, trees grown on
threads without the GIL). Their prediction layout is ``_forest_layout``'s,
their out-of-bag estimates ``_out_of_bag``'s."""

from functools import partial

import numpy as np

from ._base import ClassifierMixin, RegressorMixin, parameters_of
from ._docstrings import shared_docs
from ._model_file import model_file_class
from ._ensemble import (BaseEnsemble, bootstrap_counts, check_flag, check_n_estimators,
                        check_verbose, describe_y, map_members, member_counts, member_seeds,
                        resolve_n_draws, tree_random_states)
from ._forest_layout import (forest_layout, leaf_votes, mean_values, mixed_outputs,
                             walked_outputs)
from ._honest import honest_values
from ._intervals import ForestIntervals
from ._growth import (CLASSIFICATION_CRITERIA, DEFAULT_QUANTILE, REGRESSION_CRITERIA,
                      REGRESSION_CRITERIA_WITH_QUANTILE, check_criterion,
                      check_criterion_target, check_growth_options, check_loss_matrix,
                      check_quantile_level,
                      checked_fit_input, class_targets, classification_criterion,
                      criterion_named, features_for_growth, grow_c45_tree, grow_tree,
                      regression_criterion, regression_targets, resolve_tree_limits,
                      scale_targets)
from ._out_of_bag import (ForestClassifierOutOfBag, ForestOutOfBag, ForestRegressorOutOfBag,
                          OutOfBagGrowth, check_out_of_bag_classes, out_of_bag_values)
from ._progress import progress_of
from ._targets import (QUANTILE_CRITERIA, class_index_per_output, class_weight_per_sample,
                       labels_of_outputs,
                       predicted_classes, same_classes, target_extent_exponent,
                       weight_exponent)
from ._threads import resolve_n_jobs, start_threads
from ._validation import (check_array_2d, check_choice, check_random_state, check_weight_total,
                          densified, invalid_parameter, is_sparse, rows_for_walk)
from .tree import (DecisionTreeClassifier, DecisionTreeRegressor, ExtraTreeClassifier,
                   ExtraTreeRegressor)

__all__ = ["ExtraTreesClassifier", "ExtraTreesRegressor", "RandomForestClassifier",
           "RandomForestRegressor"]


class BaseForest(ForestOutOfBag, BaseEnsemble):
    """Fitting, out-of-bag estimates and prediction shared by the forests."""

    _criteria = {}
    _tree_class = None
    # Class probabilities are summed from sparse leaf rows, means from dense ones.
    _sparse_leaf_values = False

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
        self._check_out_of_bag_options()
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
        plan = self._fit_plan(X, y, sample_weight)
        if plan is None:
            return self
        trees, importances = plan["trees"], plan["importances"]
        batch_size = self.oob_batch_size or self.n_estimators
        while len(trees) < self.n_estimators:
            batch = range(len(trees), min(self.n_estimators, len(trees) + batch_size))
            grown = self._grow_trees(plan, batch, plan["n_threads"])
            if self._add_grown(plan, grown):
                break
        return self._finish_fit(plan)

    def _fit_plan(self, X, y, sample_weight, encoding=None, classes=None):
        """Check the fit's input and prepare what growing its trees needs.

        ``encoding`` and ``classes`` (see ``checked_fit_input``) encode the
        rows given as a larger whole is encoded (a worker's part of the rows).

        Returns a dict (the plan: the data as the trees read it, the targets,
        limits, every tree's seed, and the trees a warm start keeps), or None
        when a warm start has nothing to add and the forest stays as it was.
        """
        self._check_forest_parameters()
        X, feature_names, encoding, targets, sample_weight = checked_fit_input(
            self, X, y, sample_weight, encoding, classes)
        n_samples, n_features = X.shape
        # What the bootstrap draws in proportion to (None: uniformly), and
        # the trees' weights without one: scikit-learn's _sample_weight.
        draw_weight = self._weighted_by_class(targets, sample_weight)
        n_draws = self._n_draws(n_samples, draw_weight)
        n_threads = resolve_n_jobs(self.n_jobs)
        limits = resolve_tree_limits(self, self._criteria, n_samples, n_features)
        if "extent_exponent" in targets:
            # Every tree's weights total the draws, or the weights given.
            total = n_draws if self.bootstrap else (
                n_samples if draw_weight is None else float(np.sum(draw_weight)))
            limits["target_exponent"] = targets["target_exponent"]
            limits["impurity_exponent"] = targets["impurity_exponent"]
            limits["weight_exponent"] = weight_exponent(
                total, targets["extent_exponent"] + targets["target_exponent"])
        check_growth_options(self, limits, n_features, encoding, targets)

        if self.warm_start and "_base_seed" in self.__dict__:
            raise ValueError(
                f"warm_start: this {type(self).__name__} was pickled by an earlier fasttree, "
                "whose trees drew their rows from one seed of the forest's; trees added now "
                "would draw theirs otherwise, and the out-of-bag estimates would mix both. "
                "Fit it anew with warm_start=False")
        fitted = self._warm_start_from(n_features, encoding,
                                       len(getattr(self, "_trees", ())))
        if fitted and len(self._trees) == self.n_estimators and not self._same_targets(
                targets):
            # scikit-learn's warning was given: no tree is added, and the
            # trees were grown for other targets than these, so the forest
            # stays as it was.
            return None
        if fitted:
            self._check_members()  # the members kept
            self._check_warm_targets(*self._warm_targets(targets))
        trees = list(self._trees) if fitted else []
        seeds = list(self._tree_seeds) if fitted else []
        seeds += tree_random_states(self.random_state, len(seeds),
                                    self.n_estimators - len(seeds))
        track_oob = bool(self.oob_score or self.oob_batch_size is not None)
        ranked, limits = features_for_growth(X, limits, n_threads=n_threads)
        plan = {"X": X.tocsr() if is_sparse(X) else X,  # past the ranking, read by rows
                "ranked": ranked, "feature_names": feature_names, "encoding": encoding,
                "targets": targets, "draw_weight": draw_weight, "n_draws": n_draws,
                "n_samples": n_samples, "n_features": n_features, "limits": limits,
                "seeds": seeds, "n_threads": n_threads, "track_oob": track_oob,
                "fitted": fitted, "trees": trees,
                "importances": list(self._tree_importances) if fitted else [],
                "oob": OutOfBagGrowth(self, targets, n_samples, trees[0].n_values if trees
                                      else self._n_values(targets)) if track_oob else None}
        for index, tree in enumerate(trees if track_oob else []):
            counts = bootstrap_counts(seeds[index], n_samples, n_draws, draw_weight)
            plan["oob"].sums.add(*out_of_bag_values(tree, plan["X"], counts))
        return plan

    def _add_grown(self, plan, grown):
        """Append a batch of grown trees (``_grow_trees``' results) to the
        plan's; True when the out-of-bag error says to stop growing."""
        for tree, tree_importances, oob_part in grown:
            plan["trees"].append(tree)
            plan["importances"].append(tree_importances)
            if plan["track_oob"]:
                plan["oob"].add(len(plan["trees"]), *oob_part)
        return self.oob_batch_size is not None and plan["oob"].stops_after_batch(
            len(plan["trees"]))

    def _finish_fit(self, plan):
        """Record the plan's trees and what they were grown from: the end of ``fit``."""
        trees, targets, limits = plan["trees"], plan["targets"], plan["limits"]
        fitted = plan["fitted"]
        self._trees = trees
        self._tree_importances = plan["importances"]
        self._tree_seeds = plan["seeds"][:len(trees)]
        self.__dict__.pop("_base_seed", None)  # a legacy forest's, fitted anew
        self._sample_weight = plan["draw_weight"]
        self._n_samples_bootstrap = plan["n_draws"]
        self._n_samples = plan["n_samples"]
        self.n_outputs_ = 1 if targets.get("widths") is None else len(targets["widths"])
        self.max_features_ = limits["max_features"]
        self._set_input_attributes(plan["n_features"], plan["feature_names"], plan["encoding"])
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
        if plan["track_oob"]:
            oob = plan["oob"]
            self._set_oob_attributes(oob.sums.averages(), oob.sums.covered(), targets)
            self.oob_curve_ = oob.curve_array()
        elif hasattr(self, "oob_curve_"):
            del self.oob_curve_
        return self

    def _grow_trees(self, plan, indices, n_threads, progress=True):
        """Grow the plan's trees at ``indices`` on ``n_threads`` threads.

        Returns, in index order, (compact tree, its importances, its out-of-bag
        rows and values or None).
        """
        X, ranked, targets, limits = plan["X"], plan["ranked"], plan["targets"], plan["limits"]
        seeds, draw_weight, n_draws = plan["seeds"], plan["draw_weight"], plan["n_draws"]
        track_oob = plan["track_oob"]
        n_samples = X.shape[0]
        dense_X = densified(X) if limits["multiway"] else None
        # Fewer trees than threads: each tree sweeps its large nodes on a
        # share of the threads left over (the same trees on any number).
        tree_threads = max(1, n_threads // max(1, len(indices)))

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
            halves = self._honest_halves(seeds[index], counts)
            if halves is not None:
                # The splits grow on one part of the drawn rows; the other's
                # weights estimate the leaves below.
                weight, estimate_weight = (np.where(part > 0, weight, 0.0) for part in halves)
            if limits.get("weight_exponent", 0):
                weight = np.ldexp(weight, -limits["weight_exponent"])
            if limits["multiway"]:
                tree = grow_c45_tree(dense_X, ranked, targets["class_index"], weight,
                                     len(targets["classes"]), self, limits, feature_seed)
            else:
                criterion = self._make_criterion(targets, weight)
                tree = grow_tree(ranked, criterion, weight, limits, feature_seed,
                                 targets.get("widths"), n_threads=tree_threads)
            if halves is not None:
                tree = honest_values(tree, X, targets["target"], estimate_weight)
            oob_part = out_of_bag_values(tree, X, counts) if track_oob else None
            # Trees whose inner-node values are not their children's weighted
            # means (see Tree.compacted) are kept whole.
            whole = (self.criterion in QUANTILE_CRITERIA or tree.fractional
                     or limits["monotonic_cst"] is not None)
            return (tree if whole else tree.compacted(self._impurity_rule(targets)),
                    tree.compute_feature_importances(), oob_part)

        return map_members(grow, indices, n_threads,
                           progress_of(self, "trees built", len(indices)) if progress else None)

    def _honest_halves(self, seed, counts):
        """For honest trees, the drawn rows of the tree of ``seed`` cut in two (see
        ``_honest.honest_halves``): the rows that grow its splits and those
        that estimate its leaves, as draw counts; None for other forests."""
        return None

    @property
    def estimators_samples_(self):
        """Per tree, the indices of the rows drawn for it (with repeats, in row
        order; every row without a bootstrap), int32 as scikit-learn's."""
        self._check_fitted()
        self._check_members()
        self._check_same_rows()
        n_samples = self._n_samples
        rows = np.arange(n_samples, dtype=np.int32 if n_samples < 2**31 else np.int64)
        if not self.bootstrap:
            return [rows.copy() for _ in self._trees]
        return [np.repeat(rows, self._tree_counts(index)) for index in range(len(self._trees))]

    def _check_same_rows(self):
        """Raise when the trees were not all drawn from one fit's rows (a
        forest merged from forests fitted on other rows or draws)."""
        if self.__dict__.get("_rows_differ"):
            raise ValueError(f"this {type(self).__name__} was merged from forests fitted on "
                             "different rows or draws; which rows each tree drew is not known")

    def _tree_counts(self, index):
        """How often tree ``index`` drew each training row (drawn again from its seed)."""
        self._check_same_rows()
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
        return self._checked_predict_input(X, partial(rows_for_walk,
                                                      estimator=type(self).__name__))

    def _ensemble_arrays(self):
        """The trees laid out back to back for prediction (see
        :func:`fasttree._forest_layout.forest_layout`): built once, not pickled."""
        if getattr(self, "_ensemble", None) is None:
            self._ensemble = forest_layout(self._trees, self._sparse_leaf_values)
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
            return mixed_outputs(arrays, self._trees, X, leaf_output, out)
        return walked_outputs(arrays, self._trees, X, leaf_output, out, per_tree,
                              resolve_n_jobs(self.n_jobs))

    @property
    def feature_importances_(self):
        """Mean decrease in impurity: the trees' normalised importances, averaged."""
        self._check_fitted()
        self._check_members()
        importances = np.mean(self._tree_importances, axis=0)
        total = importances.sum()
        return importances / total if total > 0 else importances

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
        if "_base_seed" in state and "_trees" in state:
            # Pickled when the forests drew their trees' seeds and rows from
            # one seed of their own: those draws are made again from it.
            state["_tree_seeds"] = [member_seeds(state["_base_seed"], index)[1]
                                    for index in range(len(state["_trees"]))]
            state["_sample_weight"] = None
        if "oob_prediction_" in state:
            # Saved before the forests kept their out-of-bag residuals.
            state.setdefault("_oob_residuals", None)
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


class ForestClassifier(ClassifierMixin, ForestClassifierOutOfBag, BaseForest):
    """What random forests and extra trees of classification trees share; they
    differ only in how a tree draws its thresholds (their ``_tree_class``) and in
    their default ``bootstrap``."""

    # gain_ratio grows multiway (C4.5) trees only; it has no binary criterion.
    _criteria = {**CLASSIFICATION_CRITERIA, "gain_ratio": None}
    _tree_class = DecisionTreeClassifier
    _sparse_leaf_values = True

    def __init__(self, n_estimators=100, *, criterion="gini", splitter="best", max_bins=255,
                 max_depth=None,
                 min_samples_split=2, min_samples_leaf=1, min_weight_fraction_leaf=0.0,
                 max_features="sqrt", max_leaf_nodes=None, min_impurity_decrease=0.0,
                 ccp_alpha=0.0, bootstrap=True, max_samples=None, oob_score=False, n_jobs=None,
                 random_state=None, verbose=0, warm_start=False, class_weight=None,
                 voting="soft", oob_batch_size=None, oob_tol=1e-3, oob_patience=3,
                 loss_matrix=None, categorical_features="from_dtype",
                 categorical_split="binary", missing="learn", monotonic_cst=None,
                 interaction_cst=None):
        criterion = criterion_named(criterion)
        self._set_parameters(locals())

    def _encode_targets(self, y, n_samples, classes=None):
        targets = class_targets(y, n_samples, type(self).__name__, classes)
        check_choice(self.voting, "voting", ("soft", "hard"))
        classes = targets["classes"]
        if isinstance(classes, list):
            if self.oob_score:
                check_out_of_bag_classes(classes)
            targets["loss"] = None
        else:
            targets["loss"] = check_loss_matrix(self.loss_matrix, self.criterion, len(classes))
        return targets

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
        # 'balanced' over the tree's draw: the draw counts weigh the rows.
        return class_weight_per_sample("balanced", targets["classes"], targets["class_index"],
                                       counts)

    def _make_criterion(self, targets, weight):
        return classification_criterion(self.criterion, targets, weight, targets["loss"])[0]

    def _set_target_attributes(self, targets):
        self.classes_ = targets["classes"]
        several = isinstance(self.classes_, list)
        self.n_classes_ = ([len(classes) for classes in self.classes_] if several
                           else len(self.classes_))
        self.loss_matrix_ = targets["loss"]

    def _same_targets(self, targets):
        return same_classes(targets["classes"], self.classes_)

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

    def _output_classes(self, scores, widths=None):
        """Per row and output, the index of the class of the largest of
        ``scores`` (rows of every output's columns side by side, ``widths``
        columns each; by default the trees' outputs)."""
        if widths is None:
            outputs = self._trees[0].split_outputs(scores)
        else:
            starts = np.concatenate([[0], np.cumsum(widths)])
            outputs = [scores[..., start:end] for start, end in zip(starts[:-1], starts[1:])]
        return class_index_per_output(outputs)

    def _leaf_votes(self):
        """The leaves' votes for hard voting (see
        :func:`fasttree._forest_layout.leaf_votes`)."""
        return leaf_votes(self._ensemble_arrays(), self._trees, self._n_columns,
                          isinstance(self.classes_, list), getattr(self, "loss_matrix_", None))

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

    @shared_docs
    def vote_fractions(self, X):
        """Share of trees voting for each class (each tree votes its leaf's majority).

        {vote_fractions_use}

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


@model_file_class
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
    {forest_splitter}
    {max_bins}
        The bins are made once per fit, from all the rows, and shared by
        every tree.
    {tree_limits}
    {max_features}
        'sqrt' is the random-forest default for classification.
    {forest_classifier_growth}
    {monotonic_cst}
        The forest's mean probability keeps the trees' constraints.
    {interaction_cst}

    Attributes
    ----------
    {fitted_forest_classifier}
    """


class ForestRegressor(RegressorMixin, ForestIntervals, ForestRegressorOutOfBag, BaseForest):
    """What random forests and extra trees of regression trees share (see
    :class:`ForestClassifier`)."""

    # The subclasses that take ``quantile`` accept criterion='quantile' too.
    _criteria = REGRESSION_CRITERIA
    _tree_class = DecisionTreeRegressor

    def __init__(self, n_estimators=100, *, criterion="squared_error", quantile=0.5,
                 splitter="best", max_bins=255, max_depth=None,
                 min_samples_split=2, min_samples_leaf=1, min_weight_fraction_leaf=0.0,
                 max_features=1.0, max_leaf_nodes=None, min_impurity_decrease=0.0,
                 ccp_alpha=0.0, bootstrap=True, max_samples=None, oob_score=False, n_jobs=None,
                 random_state=None, verbose=0, warm_start=False, aggregation="mean",
                 oob_batch_size=None, oob_tol=1e-3, oob_patience=3,
                 categorical_features="from_dtype", monotonic_cst=None,
                 interaction_cst=None):
        criterion = criterion_named(criterion)
        self._set_parameters(locals())

    def _check_forest_parameters(self):
        super()._check_forest_parameters()
        if "quantile" in self._parameter_names():
            check_quantile_level(self.quantile)

    def _encode_targets(self, y, n_samples):
        check_choice(self._tree_aggregation(), "aggregation", ("mean", "median"))
        targets = regression_targets(y, n_samples, type(self).__name__)
        target = targets["target"]
        check_criterion_target(self.criterion, target, type(self).__name__)
        extent = target_extent_exponent(target, self.criterion, type(self).__name__)
        scale = {}
        # The targets as they are (out-of-bag scores), and as the criteria see them.
        targets.update(extent_exponent=extent,
                       criterion_target=scale_targets(target, self.criterion, extent, scale),
                       **scale)
        return targets

    def _subsample_class_weight(self, targets, counts):
        return 1.0

    def _tree_aggregation(self):
        """How the trees' values combine into the mean prediction."""
        return self.aggregation

    def _make_criterion(self, targets, weight):
        # Only the forests that take ``quantile`` accept criterion='quantile'.
        level = self.quantile if self.criterion == "quantile" else DEFAULT_QUANTILE
        return regression_criterion(self.criterion, targets["criterion_target"], weight,
                                    level)[0]

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
        if self._tree_aggregation() == "median":
            values = self._ensemble_arrays()["values"]
            medians = [np.median(self._per_tree_values(
                X, np.ascontiguousarray(values[:, k:k + 1])), axis=1)
                for k in range(n_outputs)]
            return medians[0] if n_outputs == 1 else np.stack(medians, axis=1)
        values, exponent = mean_values(self._ensemble_arrays(), len(self._trees))
        means = self._sum_over_trees(X, values, n_outputs) / len(self._trees)
        if exponent:
            means = np.ldexp(means, exponent)
        return means[:, 0] if n_outputs == 1 else means


@model_file_class
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
    {regression_criterion_with_quantile}
    {quantile_level}
    {forest_splitter}
    {max_bins}
        The bins are made once per fit, from all the rows, and shared by
        every tree.
    {tree_limits}
    {max_features}
        1.0 (every feature at every node) is scikit-learn's default for
        regression; a third of the features is the textbook's.
    {forest_regressor_growth}
    {monotonic_cst}
        The forest's mean keeps the trees' constraints.
    {interaction_cst}

    Attributes
    ----------
    {fitted_forest_regressor}
    """

    _criteria = REGRESSION_CRITERIA_WITH_QUANTILE


@model_file_class
@shared_docs
class ExtraTreesClassifier(ForestClassifier):
    """Extremely randomized trees (Geurts, Ernst and Wehenkel, 2006) for
    classification.

    A random forest whose trees draw, for each of the ``max_features``
    features drawn at a node, one threshold uniformly between the node's
    least and largest value, and keep the best of those splits
    (``splitter='random'``); by default every tree grows on all the rows.
    With ``splitter='hist'`` the features are binned once for all the trees
    and each draw is a boundary between the node's bins. Missing values of
    a feature go to a side drawn at random. Categorical features keep their
    exact subset search; multiway (C4.5) trees search every threshold, so
    ``categorical_split='multiway'`` needs ``splitter='best'``.

    Parameters
    ----------
    {forest_size}
    {classification_criterion}
    {extra_trees_splitter}
    {max_bins}
    {tree_limits}
    {max_features}
    {forest_classifier_growth}
    {monotonic_cst}
    {interaction_cst}

    Attributes
    ----------
    {fitted_forest_classifier}
    """

    _tree_class = ExtraTreeClassifier

    def __init__(self, n_estimators=100, *, criterion="gini", splitter="random",
                 max_bins=255, max_depth=None,
                 min_samples_split=2, min_samples_leaf=1, min_weight_fraction_leaf=0.0,
                 max_features="sqrt", max_leaf_nodes=None, min_impurity_decrease=0.0,
                 ccp_alpha=0.0, bootstrap=False, max_samples=None, oob_score=False,
                 n_jobs=None, random_state=None, verbose=0, warm_start=False,
                 class_weight=None, voting="soft", oob_batch_size=None, oob_tol=1e-3,
                 oob_patience=3, loss_matrix=None, categorical_features="from_dtype",
                 categorical_split="binary", missing="learn", monotonic_cst=None,
                 interaction_cst=None):
        super().__init__(**parameters_of(locals()))


@model_file_class
@shared_docs
class ExtraTreesRegressor(ForestRegressor):
    """Extremely randomized trees (Geurts, Ernst and Wehenkel, 2006) for
    regression: see :class:`ExtraTreesClassifier`.

    Parameters
    ----------
    {forest_size}
    {regression_criterion_with_quantile}
    {quantile_level}
    {extra_trees_splitter}
    {max_bins}
    {tree_limits}
    {max_features}
    {forest_regressor_growth}
    {monotonic_cst}
    {interaction_cst}

    Attributes
    ----------
    {fitted_forest_regressor}
    """

    _criteria = REGRESSION_CRITERIA_WITH_QUANTILE
    _tree_class = ExtraTreeRegressor

    def __init__(self, n_estimators=100, *, criterion="squared_error", quantile=0.5,
                 splitter="random", max_bins=255, max_depth=None,
                 min_samples_split=2, min_samples_leaf=1, min_weight_fraction_leaf=0.0,
                 max_features=1.0, max_leaf_nodes=None, min_impurity_decrease=0.0,
                 ccp_alpha=0.0, bootstrap=False, max_samples=None, oob_score=False,
                 n_jobs=None, random_state=None, verbose=0, warm_start=False,
                 aggregation="mean", oob_batch_size=None, oob_tol=1e-3, oob_patience=3,
                 categorical_features="from_dtype", monotonic_cst=None,
                 interaction_cst=None):
        super().__init__(**parameters_of(locals()))

