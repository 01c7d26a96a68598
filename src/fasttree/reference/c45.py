"""C4.5-style trees (Quinlan 1993): multiway splits on categorical features,
binary threshold splits on numeric ones, information gain or gain ratio, and
missing values handled either fractionally (C4.5's method) or by sending
them to one learnt child, as a test oracle.

Data are numbers: category codes for categorical features, NaN for missing
values (``fasttree._categories.encode_categories``); y holds class indices.

Fractional missing values (``missing='fractional'``), as in C4.5. With W the
node's weight, K the weight of the rows whose value is known and W_c the
known weight of child c:

* gain = K / W * (H(known rows) - sum_c W_c / K * H(child c's known rows));
* split information = -sum_c (W_c / W) log2(W_c / W) - (U / W) log2(U / W),
  the rows of unknown value (weight U = W - K) counted as one more branch;
* in training a row of unknown value goes down every child with its weight
  times W_c / K; in prediction it follows every child and the children's
  class distributions are mixed with the weights W_c / K.

Learnt missing values (``missing='learn'``): the rows of unknown value join
one child, each child being tried in order and the best kept (the first on
ties); gain and split information are then those of the partition. When the
node has no such rows they later go to the heaviest child (the first on
ties).

A categorical feature splits into one child per category present among the
node's known rows, in code order, and is not offered again below; a category
absent from the node goes where missing values go. A numeric feature splits
at the threshold of largest gain (thresholds ascending, the first on ties).
The split of largest gain ratio (or gain) is taken, the first feature on
ties, among the splits of positive gain (above GAIN_SLACK) that leave every child at least
``min_weight_leaf`` of weight; with gain ratio, as in C4.5, only among those
whose gain reaches the average gain of the features (each by its best
split). Without such a split the node is a leaf.
"""

import math
from dataclasses import dataclass, field

import numpy as np

from .split import midpoint

__all__ = ["C45Node", "C45Tree", "build_c45_tree", "c45_split_scores"]

# Gains within this of the average count as reaching it, and gains at most
# this are no gain (sums of logarithms in another order differ in the last
# bits: a useless split's gain comes out as +-1e-17).
GAIN_SLACK = 1e-12


def _entropy(labels, weights, n_classes):
    total = weights.sum()
    if total <= 0:
        return 0.0
    counts = np.bincount(labels, weights=weights, minlength=n_classes)
    shares = counts / total
    shares = shares[shares > 0]  # a positive count's share may round to 0
    return float(-np.sum(shares * np.log2(shares)))


def _branch_information(branch_weights, total):
    shares = [w / total for w in branch_weights]
    return float(-sum(share * math.log2(share) for share in shares if share > 0))


def c45_split_scores(labels, weights, child_of, n_children, n_classes, missing="fractional",
                     missing_child=None):
    """Gain and split information of a partition of a node's rows.

    Parameters
    ----------
    labels : ndarray of int
    weights : ndarray of float
    child_of : ndarray of int
        The child of every row, -1 where the split's value is unknown.
    n_children : int
    n_classes : int
    missing : {'fractional', 'learn'}
    missing_child : int or None
        With 'learn': the child the unknown rows join.

    Returns
    -------
    gain, split_information : float
    """
    known = child_of >= 0
    total = weights.sum()
    if missing == "learn":
        child_of = np.where(known, child_of, -1 if missing_child is None else missing_child)
        known = child_of >= 0
    known_weight = weights[known].sum()
    if known_weight <= 0:
        return 0.0, 0.0
    child_weights = [weights[child_of == child].sum() for child in range(n_children)]
    children = sum(child_weights[child] / known_weight
                   * _entropy(labels[child_of == child], weights[child_of == child], n_classes)
                   for child in range(n_children))
    gain = known_weight / total * (_entropy(labels[known], weights[known], n_classes) - children)
    branches = child_weights + [total - known_weight]
    return gain, _branch_information(branches, total)


@dataclass
class C45Node:
    """A node of a :class:`C45Tree`.

    Attributes
    ----------
    feature : int or None
        None at a leaf.
    threshold : numpy.float32 or None
        Numeric splits: child 0 takes values ``<= threshold``, child 1 the others.
    categories : list of int or None
        Categorical splits: the code of each child, in child order.
    children : list of int
    missing_fractions : list of float or None
        ``missing='fractional'``: the weight share of every child among the
        node's known rows.
    missing_child : int or None
        ``missing='learn'``: the child (position in ``children``) that takes
        missing values.
    value : ndarray
        Class distribution of the node's (fractional) training weight.
    weight : float
    """

    feature: object
    threshold: object
    categories: object
    children: list
    missing_fractions: object
    missing_child: object
    value: object = field(repr=False)
    weight: float
    depth: int

    @property
    def is_leaf(self):
        return self.feature is None

    def child_position(self, x):
        """The child a known value goes to, or None (missing or absent)."""
        if math.isnan(x):
            return None
        if self.categories is not None:
            return self.categories.index(int(x)) if int(x) in self.categories else None
        return 0 if np.float32(x) <= self.threshold else 1


class C45Tree:
    """A fitted :func:`build_c45_tree`; nodes numbered depth-first."""

    def __init__(self, nodes, n_classes):
        self.nodes = nodes
        self.n_classes = n_classes

    @property
    def node_count(self):
        return len(self.nodes)

    @property
    def max_depth(self):
        return max(node.depth for node in self.nodes)

    def _distribution(self, node_id, row):
        node = self.nodes[node_id]
        if node.is_leaf:
            total = node.value.sum()
            return node.value / total if total > 0 else node.value
        position = node.child_position(row[node.feature])
        if position is None and node.missing_child is not None:
            position = node.missing_child
        if position is not None:
            return self._distribution(node.children[position], row)
        return sum(fraction * self._distribution(child, row)
                   for fraction, child in zip(node.missing_fractions, node.children))

    def predict_proba(self, X):
        """Class probabilities: the leaf's distribution, or the mixture of the
        leaves a row with missing values reaches."""
        X = np.asarray(X, dtype=np.float64)
        return np.array([self._distribution(0, row) for row in X])

    def structure(self, node_id=0, feature_names=None, class_names=None, level_names=None):
        """The tree as nested dicts ``{feature: {branch: subtree}}``, leaves as
        their majority class (the form of :func:`fasttree.reference.id3_tree`)."""
        node = self.nodes[node_id]
        if node.is_leaf:
            label = int(np.argmax(node.value))
            return label if class_names is None else class_names[label]
        name = node.feature if feature_names is None else feature_names[node.feature]
        if node.categories is not None:
            branches = [code if level_names is None else level_names[node.feature][code]
                        for code in node.categories]
        else:
            branches = [f"<= {node.threshold}", f"> {node.threshold}"]
        return {name: {branch: self.structure(child, feature_names, class_names, level_names)
                       for branch, child in zip(branches, node.children)}}


def build_c45_tree(X, y, sample_weight=None, *, categorical, n_classes, criterion="gain_ratio",
                   missing="fractional", max_depth=None, min_weight_leaf=0.0):
    """Grow a C4.5-style tree.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Category codes and numbers; NaN for missing values.
    y : ndarray of int
        Class indices below ``n_classes``.
    sample_weight : ndarray or None
    categorical : array-like of bool, one per feature
    n_classes : int
    criterion : {'gain_ratio', 'entropy'}
        Gain ratio (C4.5) or information gain (ID3).
    missing : {'fractional', 'learn'}
    max_depth : int or None
    min_weight_leaf : float
        Least weight every child must keep.

    Returns
    -------
    C45Tree
    """
    if criterion not in ("gain_ratio", "entropy"):
        raise ValueError(f"criterion must be 'gain_ratio' or 'entropy'; got {criterion!r}")
    if missing not in ("fractional", "learn"):
        raise ValueError(f"missing must be 'fractional' or 'learn'; got {missing!r}")
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y, dtype=np.intp)
    weights = (np.ones(X.shape[0]) if sample_weight is None
               else np.asarray(sample_weight, dtype=np.float64))
    categorical = np.asarray(categorical, dtype=bool)
    nodes = []

    def score(gain, information):
        if criterion == "entropy":
            return gain
        return gain / information if information > 0 else -np.inf

    def candidates(rows, row_weights, used):
        """(score, gain, feature, threshold, categories, child_of, missing_child)."""
        for feature in range(X.shape[1]):
            column = X[rows, feature]
            known = ~np.isnan(column)
            if not known.any():
                continue
            if categorical[feature]:
                if feature in used:
                    continue
                codes = sorted(set(column[known].astype(np.int64).tolist()))
                if len(codes) < 2:
                    continue
                child_of = np.where(known, np.searchsorted(codes, np.where(known, column, 0)),
                                    -1)
                splits = [(None, codes, child_of)]
            else:
                distinct = np.unique(column[known].astype(np.float32))
                splits = []
                best_gain = None
                for lower, upper in zip(distinct[:-1], distinct[1:]):
                    threshold = midpoint(lower, upper)
                    child_of = np.where(known, (column.astype(np.float32) > threshold), -1)
                    gain = max(c45_split_scores(y[rows], row_weights, child_of, 2, n_classes,
                                                missing, child)[0]
                               for child in (_missing_children(missing, known, 2)))
                    if best_gain is None or gain > best_gain:
                        best_gain, splits = gain, [(threshold, None, child_of)]
            for threshold, codes, child_of in splits:
                n_children = 2 if codes is None else len(codes)
                for child in _missing_children(missing, known, n_children):
                    gain, information = c45_split_scores(y[rows], row_weights, child_of,
                                                         n_children, n_classes, missing, child)
                    yield (score(gain, information), gain, feature, threshold, codes,
                           child_of, child)

    def grow(rows, row_weights, depth, used):
        node_id = len(nodes)
        value = np.bincount(y[rows], weights=row_weights, minlength=n_classes)
        nodes.append(C45Node(feature=None, threshold=None, categories=None, children=[],
                             missing_fractions=None, missing_child=None, value=value,
                             weight=float(row_weights.sum()), depth=depth))
        if (np.count_nonzero(value) <= 1 or (max_depth is not None and depth >= max_depth)):
            return node_id
        allowed = []
        for candidate in candidates(rows, row_weights, used):
            if candidate[1] <= GAIN_SLACK:
                continue
            n_children = 2 if candidate[4] is None else len(candidate[4])
            child_of, child = candidate[5], candidate[6]
            assigned = np.where(child_of >= 0, child_of, -1 if child is None else child)
            known_weights = [row_weights[assigned == c].sum() for c in range(n_children)]
            if min(known_weights) >= min_weight_leaf:
                allowed.append(candidate)
        if criterion == "gain_ratio" and allowed:
            # C4.5 weighs gain ratio only among splits of at least average
            # gain (each feature counted once, by its best gain): a split
            # with a tiny branch has a small split information, and its
            # ratio would otherwise win on little gain.
            best_gain = {}
            for candidate in allowed:
                best_gain[candidate[2]] = max(best_gain.get(candidate[2], 0.0), candidate[1])
            average = sum(best_gain.values()) / len(best_gain)
            allowed = [c for c in allowed if c[1] >= average - GAIN_SLACK]
        best = None
        for candidate in allowed:
            if best is None or candidate[0] > best[0]:
                best = candidate
        if best is None:
            return node_id
        _, _, feature, threshold, codes, child_of, missing_child = best
        n_children = 2 if codes is None else len(codes)
        node = nodes[node_id]
        node.feature, node.threshold, node.categories = feature, threshold, codes
        known = child_of >= 0
        known_weight = row_weights[known].sum()
        fractions = [row_weights[child_of == c].sum() / known_weight for c in range(n_children)]
        if missing == "fractional":
            node.missing_fractions = fractions
        else:
            node.missing_child = (missing_child if missing_child is not None
                                  else int(np.argmax(fractions)))
        below = used | {feature} if codes is not None else used
        for c in range(n_children):
            if missing == "fractional":
                child_rows = np.concatenate([rows[child_of == c], rows[~known]])
                child_weights = np.concatenate([row_weights[child_of == c],
                                                row_weights[~known] * fractions[c]])
            else:
                joins = (child_of == c) | (~known & (node.missing_child == c))
                child_rows, child_weights = rows[joins], row_weights[joins]
            node.children.append(grow(child_rows, child_weights, depth + 1, below))
        return node_id

    grow(np.arange(X.shape[0]), weights, 0, frozenset())
    return C45Tree(nodes, n_classes)


def _missing_children(missing, known, n_children):
    """The children the unknown rows may join: None (fractional, or none
    unknown) or each child in turn."""
    if missing == "fractional" or known.all():
        return [None]
    return list(range(n_children))
