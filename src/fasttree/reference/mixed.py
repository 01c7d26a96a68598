"""Brute-force binary splits of nodes with categorical features and missing
values (CART's subset splits, with the missing-value direction learnt at each
split), and a depth-first tree of them, as test oracles.

Data are numbers: ``X`` holds, per categorical feature, the code of each
value among the feature's levels (0, 1, ...), and NaN wherever a value is
missing (as ``fasttree._categories.encode_categories`` writes it).

Candidates, per feature, in the order they are tried (a candidate replaces
the best so far only if its improvement is greater by more than rounding,
``split.improves_on``, so ties go to the earlier feature, then to the
earlier candidate):

* a numeric feature: the thresholds between consecutive distinct known
  values, ascending (``x <= threshold`` goes left);
* a categorical feature with categories C present among the node's known
  rows: the categories are ordered by the proportion of the second class
  (two classes; Breiman's ordering, which finds the best subset exactly) or
  by the mean target (regression), ties by code, and the left sets tried are
  the ordering's prefixes of 1 .. |C| - 1 categories. With more classes one
  ordering per class, by that class's proportion (class 0's first), then
  every single category alone (one-vs-rest); a left set already tried is not
  tried again. This heuristic is never worse than the best one-vs-rest split.

With missing values at the node, every candidate is tried twice: first with
the missing rows on the right (plus the split "every known row left, the
missing ones right", on numeric and categorical features alike), then with
them on the left, as scikit-learn's splitter does. Without missing values at the node, missing values later go to the
child with more training weight (the right one on a tie). A category that
none of the node's known rows has goes where missing values go.
"""

from dataclasses import dataclass, field

import numpy as np

from .criteria import _as_weights, impurity
from .split import REGRESSION_CRITERIA, improves_on, midpoint
from .tree import interaction_groups, splittable_features

__all__ = ["MixedNode", "MixedSplit", "MixedTree", "best_mixed_split", "build_mixed_tree"]

# The left set "every category present at the node" (the missing values right).
EVERY_KNOWN = object()


@dataclass(frozen=True)
class MixedSplit:
    """A binary split on a numeric threshold or a set of categories.

    Attributes
    ----------
    feature : int
    threshold : numpy.float32 or None
        Numeric splits: known values ``<= threshold`` go left (``inf``: all
        known values left, the missing ones right).
    left_categories : frozenset of int or None
        Categorical splits: the codes that go left.
    present_categories : frozenset of int or None
        Categorical splits: the codes among the node's known rows; the
        others go with the missing values.
    missing_left : bool
        Where missing values go.
    improvement : float
        ``impurity(node) - w_left / w * impurity_left - w_right / w * impurity_right``.
    """

    feature: int
    threshold: object
    left_categories: object
    present_categories: object
    missing_left: bool
    improvement: float

    @property
    def is_categorical(self):
        return self.left_categories is not None

    def goes_left(self, column):
        """Boolean mask of the values of ``column`` that this split sends left."""
        column = np.asarray(column, dtype=np.float64)
        known = ~np.isnan(column)
        if self.is_categorical:
            codes = np.where(known, column, -1).astype(np.int64)
            present = np.isin(codes, sorted(self.present_categories)) & known
            left = np.isin(codes, sorted(self.left_categories))
            return np.where(present, left, self.missing_left)
        # float32 comparison, as fit reads X.
        left = column.astype(np.float32) <= self.threshold
        return np.where(known, left, self.missing_left)


def _category_orderings(codes, y, weights, categories, n_classes):
    """The orderings of ``categories`` whose prefixes are tried, and the
    extra single-category left sets."""
    def ordered_by(score):
        return sorted(categories, key=lambda code: (score[code], code))

    if n_classes is None:
        means = {code: np.average(y[codes == code], weights=weights[codes == code])
                 if weights[codes == code].sum() > 0 else 0.0 for code in categories}
        return [ordered_by(means)], []
    shares = {}
    for code in categories:
        rows = codes == code
        counts = np.bincount(y[rows], weights=weights[rows], minlength=n_classes)
        # The total as the sum of the class weights: a pure category's share
        # is then exactly 1, whatever order the weights were added in.
        total = counts.sum()
        shares[code] = counts / total if total > 0 else np.zeros(n_classes)
    if n_classes == 2:
        return [ordered_by({code: shares[code][1] for code in categories})], []
    orderings = [ordered_by({code: shares[code][label] for code in categories})
                 for label in range(n_classes)]
    return orderings, [[code] for code in categories]


def _candidates(column, y, weights, known, categorical, n_classes):
    """(threshold, left_categories, known_left mask) of every candidate."""
    values = column[known]
    if not categorical:
        distinct = np.unique(values.astype(np.float32))
        for lower, upper in zip(distinct[:-1], distinct[1:]):
            threshold = midpoint(lower, upper)
            yield threshold, None, known & (column.astype(np.float32) <= threshold)
        return
    codes = np.where(known, column, -1).astype(np.int64)
    categories = sorted(set(codes[known].tolist()))
    orderings, singles = _category_orderings(codes, y, weights, categories, n_classes)
    tried = set()
    left_sets = [ordering[:size] for ordering in orderings
                 for size in range(1, len(categories))] + singles
    for left in left_sets:
        key = frozenset(left)
        if key in tried or len(key) == len(categories):
            continue
        tried.add(key)
        yield None, key, known & np.isin(codes, sorted(key))


def best_mixed_split(X, y, sample_weight=None, *, categorical, criterion, n_classes=None,
                     min_samples_leaf=1, min_weight_leaf=0.0, features=None):
    """The best binary split of a node with categorical features and missing values.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Numbers and category codes; NaN for missing values.
    y : ndarray
        Class indices (``n_classes`` classes) or float targets.
    sample_weight : ndarray or None
    categorical : array-like of bool, one per feature
    criterion : str or CostSensitiveGini
        As for :func:`fasttree.reference.best_split`.
    n_classes : int or None
        None for regression.
    min_samples_leaf, min_weight_leaf
        Limits on both children (missing rows included).
    features : iterable of int or None
        The features tried, in order; all by default.

    Returns
    -------
    MixedSplit or None
    """
    X = np.asarray(X, dtype=np.float64)
    n_samples, n_features = X.shape
    regression = criterion in REGRESSION_CRITERIA if isinstance(criterion, str) else False
    y = np.asarray(y, dtype=np.float64 if regression else np.intp)
    weights = _as_weights(sample_weight, n_samples)
    categorical = np.asarray(categorical, dtype=bool)
    node_weight = weights.sum()
    if node_weight <= 0:
        return None
    node_impurity = impurity(criterion, y, weights)
    best = None
    for feature in (range(n_features) if features is None else features):
        column = X[:, feature]
        known = ~np.isnan(column)
        missing = ~known
        passes = (False, True) if missing.any() else (None,)
        candidates = list(_candidates(column, y, weights, known, categorical[feature],
                                      n_classes))
        if missing.any() and known.any():
            # Every known row left, the missing rows right: first pass only.
            candidates.append((np.float32(np.inf), None, known.copy()) if not categorical[feature]
                              else (None, EVERY_KNOWN, known.copy()))
        present = (frozenset(np.where(known, column, -1).astype(np.int64)[known].tolist())
                   if categorical[feature] else None)
        for missing_left in passes:
            for threshold, left_set, known_left in candidates:
                if missing_left and ((threshold is not None and np.isinf(threshold))
                                     or left_set is EVERY_KNOWN):
                    continue
                if left_set is EVERY_KNOWN:
                    left_set = present
                goes_left = known_left | (missing & bool(missing_left))
                n_left = int(goes_left.sum())
                if n_left < min_samples_leaf or n_samples - n_left < min_samples_leaf:
                    continue
                weight_left = weights[goes_left].sum()
                weight_right = weights[~goes_left].sum()
                if weight_left < min_weight_leaf or weight_right < min_weight_leaf:
                    continue
                if weight_left <= 0 or weight_right <= 0:
                    continue
                improvement = (node_impurity
                               - weight_left / node_weight
                               * impurity(criterion, y[goes_left], weights[goes_left])
                               - weight_right / node_weight
                               * impurity(criterion, y[~goes_left], weights[~goes_left]))
                if best is not None and not improves_on(improvement, best.improvement,
                                                         node_impurity):
                    continue
                direction = (weight_left > weight_right if missing_left is None
                             else missing_left)
                best = MixedSplit(feature=feature, threshold=threshold,
                                  left_categories=left_set, present_categories=present,
                                  missing_left=bool(direction), improvement=float(improvement))
    return best


@dataclass
class MixedNode:
    """A node of a :class:`MixedTree`: a leaf when ``split`` is None."""

    split: object
    left: int
    right: int
    value: object = field(repr=False)
    impurity: float
    n_node_samples: int
    weighted_n_node_samples: float
    depth: int


class MixedTree:
    """A fitted binary tree of :class:`MixedSplit` nodes, numbered depth-first."""

    def __init__(self, nodes, n_classes):
        self.nodes = nodes
        self.n_classes = n_classes

    @property
    def node_count(self):
        return len(self.nodes)

    def apply(self, X):
        """The leaf each row of X reaches."""
        X = np.asarray(X, dtype=np.float64)
        leaves = np.empty(X.shape[0], dtype=np.intp)
        for row in range(X.shape[0]):
            node_id = 0
            while self.nodes[node_id].split is not None:
                split = self.nodes[node_id].split
                left = split.goes_left(X[row:row + 1, split.feature])[0]
                node_id = self.nodes[node_id].left if left else self.nodes[node_id].right
            leaves[row] = node_id
        return leaves

    def predict_value(self, X):
        """Class fractions (n_rows, n_classes) or means (n_rows,) of the leaves."""
        return np.array([self.nodes[leaf].value for leaf in self.apply(X)])


def build_mixed_tree(X, y, sample_weight=None, *, categorical, criterion, n_classes=None,
                     max_depth=None, min_samples_split=2, min_samples_leaf=1,
                     interaction_cst=None):
    """Grow a tree of :func:`best_mixed_split` splits depth-first.

    A node is split while it has at least ``min_samples_split`` rows, is
    above ``max_depth``, is not pure (impurity above float64 epsilon) and has
    a split; children are numbered left subtree first. Under
    ``interaction_cst`` (as :func:`fasttree.reference.build_tree` takes it)
    a node searches the features its path allows.

    Returns
    -------
    MixedTree
    """
    X = np.asarray(X, dtype=np.float64)
    regression = n_classes is None
    y = np.asarray(y, dtype=np.float64 if regression else np.intp)
    weights = _as_weights(sample_weight, X.shape[0])
    groups = interaction_groups(interaction_cst, X.shape[1])
    nodes = []

    def value_of(rows):
        total = weights[rows].sum()
        if regression:
            return float(np.average(y[rows], weights=weights[rows])) if total > 0 else 0.0
        counts = np.bincount(y[rows], weights=weights[rows], minlength=n_classes)
        return counts / total if total > 0 else counts

    def grow(rows, depth, path_features):
        node_impurity = impurity(criterion, y[rows], weights[rows])
        node_id = len(nodes)
        nodes.append(MixedNode(split=None, left=-1, right=-1, value=value_of(rows),
                               impurity=node_impurity, n_node_samples=int(rows.size),
                               weighted_n_node_samples=float(weights[rows].sum()),
                               depth=depth))
        if (rows.size < min_samples_split or (max_depth is not None and depth >= max_depth)
                or node_impurity <= np.finfo(np.float64).eps):
            return node_id
        split = best_mixed_split(X[rows], y[rows], weights[rows], categorical=categorical,
                                 criterion=criterion, n_classes=n_classes,
                                 min_samples_leaf=min_samples_leaf,
                                 features=splittable_features(groups, path_features,
                                                              X.shape[1]))
        if split is None:
            return node_id
        goes_left = split.goes_left(X[rows, split.feature])
        nodes[node_id].split = split
        below = path_features | {split.feature}
        nodes[node_id].left = grow(rows[goes_left], depth + 1, below)
        nodes[node_id].right = grow(rows[~goes_left], depth + 1, below)
        return node_id

    grow(np.arange(X.shape[0]), 0, frozenset())
    return MixedTree(nodes, n_classes)
