"""Quantile regression forests (Meinshausen, 2006): random forests and extra
trees that predict the distribution of the target, not only its mean. Each
leaf keeps the training targets its tree drew there (``_leaf_lists``); a
row's quantiles are weighted quantiles of the targets in its leaves, every
tree weighing 1 in all (``_quantiles``)."""

import warnings

import numpy as np

from ._base import r2_score
from ._docstrings import shared_docs
from ._ensemble import check_flag, map_members
from ._growth import REGRESSION_CRITERIA_WITH_QUANTILE, criterion_named
from ._honest import honest_halves
from ._leaf_lists import (INTERPOLATIONS, RANK_KINDS, LeafListReader, build_leaf_lists,
                          check_leaf_lists, packed_lists, resolve_max_samples_leaf,
                          unpacked_lists)
from ._model_file import ModelFileError, model_file_class
from ._threads import resolve_n_jobs
from ._validation import check_choice, check_open_fraction, rows_for_walk
from .forest import ForestRegressor
from .tree import DecisionTreeRegressor, ExtraTreeRegressor

__all__ = ["ExtraTreesQuantileRegressor", "RandomForestQuantileRegressor"]

TARGET_DTYPES = {"float64": np.float64, "float32": np.float32}
# The criteria whose leaf values are means, which honest trees estimate again.
HONEST_CRITERIA = ("squared_error", "friedman_mse", "poisson")


def _checked_quantiles(quantiles):
    """(list of floats, or None for the mean; whether one float was asked)."""
    if isinstance(quantiles, str):
        if quantiles == "mean":
            return None, True
        raise ValueError(f"quantiles must be a float in [0, 1], a list of them or 'mean', "
                         f"got {quantiles!r}")
    single = np.ndim(quantiles) == 0
    values = np.atleast_1d(np.asarray(quantiles, dtype=object))
    if values.ndim != 1 or values.size == 0:
        raise ValueError("quantiles must be a float in [0, 1], a non-empty list of them or "
                         f"'mean', got {quantiles!r}")
    checked = []
    for value in values:
        if isinstance(value, str) and value == "mean" and values.size == 1:
            return None, single
        if isinstance(value, (bool, np.bool_)) or not isinstance(
                value, (int, float, np.integer, np.floating)) or not 0 <= value <= 1:
            raise ValueError(f"quantiles must be in the range [0, 1], got {value!r}")
        checked.append(float(value))
    return checked, single


class ForestQuantileRegressor(ForestRegressor):
    """What the quantile forests share: the leaf lists built after the trees
    grow, and the predictions read from them."""

    _interval_methods = ("oob", "split", "quantile", "cqr")
    _criteria = REGRESSION_CRITERIA_WITH_QUANTILE

    def _tree_aggregation(self):
        # Quantile forests take no aggregation: their trees' values (the
        # mean of split conformal, the out-of-bag scores) are averaged.
        return "mean"

    def _check_forest_parameters(self):
        super()._check_forest_parameters()
        check_choice(self.target_dtype, "target_dtype", tuple(TARGET_DTYPES))
        resolve_max_samples_leaf(self.max_samples_leaf, 1)
        _checked_quantiles(self.default_quantiles)
        check_flag(self.honest, "honest")
        check_open_fraction(self.honest_fraction, "honest_fraction")
        if self.honest and criterion_named(self.criterion) not in HONEST_CRITERIA:
            raise ValueError(f"honest=True estimates the leaves' values by their mean: use a "
                             f"criterion of {HONEST_CRITERIA}, not {self.criterion!r}")
        if self.honest and self.monotonic_cst is not None:
            raise ValueError("honest=True estimates the leaves from other rows than the "
                             "splits, which would not keep monotonic_cst: use one or the "
                             "other")

    def _impurity_rule(self, targets):
        """Compact trees keep their leaves' values and squared errors alone
        (see Tree.compacted): the quantiles read the leaf lists, and the
        model is half the size. Other criteria's trees, and honest trees
        (whose leaf values are not their splits' rows' means), keep every
        node's."""
        if self.honest or criterion_named(self.criterion) not in ("squared_error",
                                                                  "friedman_mse"):
            return None
        return "squared_error"

    def _honest_halves(self, seed, counts):
        if not self.honest:
            return None
        return honest_halves(seed, counts, self.honest_fraction)

    def _finish_fit(self, plan):
        super()._finish_fit(plan)
        target = plan["targets"]["target"]
        targets = target.reshape(len(target), -1).astype(np.float64)
        n_samples = plan["n_samples"]

        def counts_of(index):
            counts = (self._tree_counts(index) if self.bootstrap
                      else np.ones(n_samples, dtype=np.int64))
            halves = self._honest_halves(self._tree_seeds[index], counts)
            return counts if halves is None else halves[1]

        # With a bootstrap the weights are in the draws.
        weights = None if self.bootstrap else plan["draw_weight"]
        rows = rows_for_walk(plan["X"])
        self._leaf_lists = build_leaf_lists(
            self._trees, rows, targets, counts_of,
            None if weights is None else np.asarray(weights, dtype=np.float64),
            resolve_max_samples_leaf(self.max_samples_leaf, n_samples), self._tree_seeds,
            TARGET_DTYPES[self.target_dtype],
            lambda function, indices: map_members(function, indices, plan["n_threads"]))
        # Made here, so that prediction does not change the estimator.
        self._leaf_reader = LeafListReader(self._leaf_lists)
        return self

    def _reader(self):
        self._check_fitted()
        return self._leaf_reader

    def _row_leaves(self, X, oob_score=False, indices=None):
        """(n_rows, n_trees) float64: each row's leaf in every tree, numbered
        across the forest; -1 where the tree drew the row (``oob_score``)."""
        leaves = self._per_tree_values(X, self._reader().leaf_numbers)
        if oob_score:
            leaves[self._oob_tree_mask(leaves.shape[0], indices)] = -1.0
            if (leaves < 0).all(axis=1).any():
                warnings.warn("Some inputs do not have OOB scores. This probably means too "
                              "few trees were used to compute any reliable OOB estimates.",
                              UserWarning, stacklevel=3)
        return leaves

    @staticmethod
    def _shaped(values):
        """quantile-forest's shapes: the outputs and quantiles axes dropped when one."""
        if values.ndim == 3 and values.shape[2] == 1:
            values = values[:, :, 0]
        if values.shape[1] == 1:
            values = values[:, 0]
        return values

    def predict(self, X, quantiles=None, interpolation="linear", weighted_quantile=True,
                weighted_leaves=True, aggregate_leaves_first=True, oob_score=False,
                indices=None):
        """Quantiles (or the mean) of the target's distribution at each row.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        quantiles : float, list of floats, 'mean' or None, default=None
            Each in [0, 1]; None is ``default_quantiles``. 'mean' is the
            weighted mean of the targets in the row's leaves.
        interpolation : {'linear', 'lower', 'higher', 'midpoint', 'nearest'}
            How a quantile between two targets' positions is read: on the
            line between them, the lower or higher, their mean, or the
            nearer (the lower on a tie). With equal weights the positions
            are numpy's (``np.quantile``'s ``method``).
        weighted_quantile : bool, default=True
            quantile-forest's choice between weighing each target and
            repeating it: False counts every target alike, as
            ``weighted_leaves=False`` does (quantile-forest ignores
            ``weighted_leaves`` then), and True changes nothing. Taken so
            that code written for quantile-forest runs unchanged.
        weighted_leaves : bool, default=True
            Each tree weighs 1, shared among its leaf's targets, so that a
            target of a small leaf weighs more (Meinshausen's forest);
            False weighs every target alike (by its sample weight), whatever
            its leaf's size (quantile-forest's default). The same when each
            leaf keeps one target.
        aggregate_leaves_first : bool, default=True
            The quantiles of the targets of all the row's leaves together;
            False averages each tree's quantiles of its own leaf's targets
            (as quantile-forest's option of that name). The mean is the
            same either way.
        oob_score : bool, default=False
            X holds training rows: each row's quantiles from the trees that
            did not draw it (needs ``bootstrap=True``); NaN, with a warning,
            for a row every tree drew.
        indices : array-like of int or None
            With ``oob_score``, each row's index among the training rows
            (-1: none, every tree counts); None: X is the training rows in
            order.

        Returns
        -------
        ndarray of float64
            (n_samples,) for one quantile (or 'mean') and one output, else
            (n_samples, n_quantiles), or (n_samples, n_outputs, n_quantiles)
            with several outputs.
        """
        X = self._validate_X_for_predict(X)
        asked, _ = _checked_quantiles(self.default_quantiles if quantiles is None
                                      else quantiles)
        check_choice(interpolation, "interpolation", INTERPOLATIONS)
        check_flag(weighted_quantile, "weighted_quantile")
        check_flag(weighted_leaves, "weighted_leaves")
        check_flag(aggregate_leaves_first, "aggregate_leaves_first")
        weighted_leaves = weighted_leaves and weighted_quantile
        leaves = self._row_leaves(X, oob_score, indices)
        n_threads = resolve_n_jobs(self.n_jobs)
        if asked is None:
            # The mean of each tree's mean is the forest's mean with each tree weighing 1.
            return self._shaped(self._reader().means(
                leaves, weighted_leaves or not aggregate_leaves_first, n_threads))
        return self._shaped(self._reader().quantiles(leaves, asked, interpolation,
                                                     weighted_leaves, aggregate_leaves_first,
                                                     n_threads))

    def quantile_ranks(self, X, y, kind="rank", weighted_leaves=True, oob_score=False,
                       indices=None):
        """Where each ``y`` falls in the target's distribution at its row.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,) or (n_samples, n_outputs)
        kind : {'rank', 'weak', 'strict', 'mean'}, default='rank'
            'weak': the weight of the targets at most y (the distribution
            function); 'strict': of those below y; 'mean': the mean of the
            two; 'rank': that mean plus half the mean weight of the targets
            equal to y (with equal weights, scipy's ``percentileofscore``).
        weighted_leaves, oob_score, indices
            As :meth:`predict`'s.

        Returns
        -------
        ndarray of float64 of shape (n_samples,) or (n_samples, n_outputs)
        """
        X = self._validate_X_for_predict(X)
        check_choice(kind, "kind", RANK_KINDS)
        check_flag(weighted_leaves, "weighted_leaves")
        n_outputs = self._reader().n_outputs
        y = np.asarray(y, dtype=np.float64)
        if y.shape not in ((X.shape[0],), (X.shape[0], n_outputs)) or (
                y.ndim == 1 and n_outputs != 1):
            raise ValueError(f"y must have shape ({X.shape[0]},"
                             f"{'' if n_outputs == 1 else f' {n_outputs}'}) as X's rows and "
                             f"the outputs; got {y.shape}")
        leaves = self._row_leaves(X, oob_score, indices)
        return self._shaped(self._reader().ranks(leaves, y.reshape(len(y), -1), kind,
                                                 weighted_leaves, resolve_n_jobs(self.n_jobs)))

    def score(self, X, y, quantiles=0.5, sample_weight=None):
        """R^2 of ``predict(X, quantiles)`` (one quantile, or 'mean')."""
        predicted = self.predict(X, quantiles=quantiles)
        return r2_score(y, predicted, self._scoring_weight(sample_weight, len(predicted)))

    def _model_file_state(self):
        """The state model files store (they compress the file as a whole)."""
        return self._state(pack=False)

    def __getstate__(self):
        return self._state(pack=True)

    def _state(self, pack):
        state = super().__getstate__()
        state.pop("_leaf_reader", None)
        if pack and "_leaf_lists" in state:
            state["_leaf_lists"] = packed_lists(state["_leaf_lists"])
        return state

    def __setstate__(self, state):
        lists = state.get("_leaf_lists")
        if isinstance(lists, dict) and "compressed" in lists:
            try:
                state = {**state, "_leaf_lists": unpacked_lists(lists)}
            except ValueError as error:
                raise ModelFileError(str(error)) from None
        super().__setstate__(state)
        if "_leaf_lists" in self.__dict__:
            self._leaf_reader = LeafListReader(self._leaf_lists)

    def _check_loaded_state(self, foreign_members=False):
        super()._check_loaded_state(foreign_members)
        if "_trees" in self.__dict__:
            if "_leaf_lists" not in self.__dict__:
                raise ModelFileError(f"the fitted {type(self).__name__} has no leaf lists")
            check_leaf_lists(self._leaf_lists, self._trees, type(self).__name__)
            if self._leaf_lists["targets"].shape[0] != self.n_outputs_:
                raise ModelFileError(f"the {type(self).__name__}'s leaf lists hold "
                                     f"{self._leaf_lists['targets'].shape[0]} outputs, "
                                     f"its trees {self.n_outputs_}")


@model_file_class
@shared_docs
class RandomForestQuantileRegressor(ForestQuantileRegressor):
    """A quantile regression forest (Meinshausen, 2006): a random forest of
    regression trees that predicts quantiles of the target.

    The trees grow as :class:`RandomForestRegressor`'s. Each leaf keeps the
    training targets its tree drew there; a row's quantiles are the
    weighted quantiles of the targets in its leaves, each tree weighing 1,
    shared among its leaf's targets (in proportion to their sample weights
    without a bootstrap). A drop-in for ``quantile_forest``'s class of the
    same name.

    Parameters
    ----------
    {forest_size}
    {quantile_parameters}
    {regression_criterion_with_quantile}
    {quantile_level}
    {forest_splitter}
    {max_bins}
    {tree_limits}
    {max_features}
    {forest_quantile_growth}
    {monotonic_cst}
    {interaction_cst}

    Attributes
    ----------
    {fitted_forest_regressor}
    """

    _tree_class = DecisionTreeRegressor

    def __init__(self, n_estimators=100, *, default_quantiles=0.5, max_samples_leaf=1,
                 target_dtype="float64", honest=False, honest_fraction=0.5,
                 criterion="squared_error", quantile=0.5, splitter="best",
                 max_bins=255, max_depth=None, min_samples_split=2, min_samples_leaf=1,
                 min_weight_fraction_leaf=0.0, max_features=1.0, max_leaf_nodes=None,
                 min_impurity_decrease=0.0, ccp_alpha=0.0, bootstrap=True, max_samples=None,
                 oob_score=False, n_jobs=None, random_state=None, verbose=0,
                 warm_start=False, oob_batch_size=None, oob_tol=1e-3, oob_patience=3,
                 categorical_features="from_dtype", monotonic_cst=None,
                 interaction_cst=None):
        criterion = criterion_named(criterion)
        self._set_parameters(locals())


@model_file_class
@shared_docs
class ExtraTreesQuantileRegressor(ForestQuantileRegressor):
    """A quantile regression forest of extremely randomized trees: see
    :class:`RandomForestQuantileRegressor` and :class:`ExtraTreesRegressor`.
    By default every tree grows on all the rows, so each leaf keeps the
    targets of all its rows.

    Parameters
    ----------
    {forest_size}
    {quantile_parameters}
    {regression_criterion_with_quantile}
    {quantile_level}
    {extra_trees_splitter}
    {max_bins}
    {tree_limits}
    {max_features}
    {forest_quantile_growth}
    {monotonic_cst}
    {interaction_cst}

    Attributes
    ----------
    {fitted_forest_regressor}
    """

    _tree_class = ExtraTreeRegressor

    def __init__(self, n_estimators=100, *, default_quantiles=0.5, max_samples_leaf=1,
                 target_dtype="float64", honest=False, honest_fraction=0.5,
                 criterion="squared_error", quantile=0.5, splitter="random",
                 max_bins=255, max_depth=None, min_samples_split=2, min_samples_leaf=1,
                 min_weight_fraction_leaf=0.0, max_features=1.0, max_leaf_nodes=None,
                 min_impurity_decrease=0.0, ccp_alpha=0.0, bootstrap=False, max_samples=None,
                 oob_score=False, n_jobs=None, random_state=None, verbose=0,
                 warm_start=False, oob_batch_size=None, oob_tol=1e-3, oob_patience=3,
                 categorical_features="from_dtype", monotonic_cst=None,
                 interaction_cst=None):
        criterion = criterion_named(criterion)
        self._set_parameters(locals())
