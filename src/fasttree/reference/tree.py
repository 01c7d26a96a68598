"""A whole decision tree built with :func:`best_split`, as a test oracle.

The stopping rules follow scikit-learn's tree builders, so a compiled builder
(and scikit-learn itself, up to its random feature order on ties) can be
compared node by node.  Node ids are given in creation order:

* depth-first growth (``max_leaf_nodes=None``): pre-order, the root 0, then
  the whole left subtree, then the right subtree;
* best-first growth: each time a node is expanded its left child gets the
  next id and its right child the one after.
"""

from dataclasses import dataclass, field

import numpy as np

from .criteria import (CostSensitiveGini, PinballLoss, _as_weights, impurity,
                       output_mean_impurity, weighted_median)
from .split import (
    CLASSIFICATION_CRITERIA,
    REGRESSION_CRITERIA,
    _check_X,
    best_split,
    is_regression,
)

__all__ = ["TREE_LEAF", "TREE_UNDEFINED", "Node", "ReferenceTree", "build_tree",
           "interaction_groups", "splittable_features"]

TREE_LEAF = -1
"""int: value of `left` and `right` in a leaf."""

TREE_UNDEFINED = -2
"""int: value of `feature` (and of `threshold`, as a float) in a leaf."""

# Same constant as scikit-learn's EPSILON: a node this pure is not split, and
# improvements are compared to min_impurity_decrease with this slack.
EPSILON = float(np.finfo(np.float64).eps)


@dataclass
class Node:
    """One node of a :class:`ReferenceTree`.

    Attributes
    ----------
    feature : int
        Split feature, or ``TREE_UNDEFINED`` in a leaf.
    threshold : float
        Rows with ``x[feature] <= threshold`` go left; ``TREE_UNDEFINED``
        in a leaf.
    left, right : int
        Child node ids, or ``TREE_LEAF`` in a leaf.
    impurity : float
        Impurity of the node's training rows.
    n_node_samples : int
        Number of training rows in the node.
    weighted_n_node_samples : float
        Total weight of those rows.
    value : ndarray of shape (n_classes,) or float
        Class probabilities (classification) or weighted mean (regression).
    depth : int
        Depth of the node; the root is 0.
    """

    feature: int
    threshold: float
    left: int
    right: int
    impurity: float
    n_node_samples: int
    weighted_n_node_samples: float
    value: object = field(repr=False)
    depth: int

    @property
    def is_leaf(self):
        """bool: True if the node has no children."""
        return self.left == TREE_LEAF


class ReferenceTree:
    """A fitted tree: a list of :class:`Node` plus prediction methods.

    Parameters
    ----------
    nodes : list of Node
        The nodes, indexed by node id; node 0 is the root.
    n_features : int
        Number of columns of the training X.
    n_classes : int or None
        Number of classes, or None for regression.
    criterion : str, CostSensitiveGini or PinballLoss
        Criterion the tree was built with.
    """

    def __init__(self, nodes, n_features, n_classes, criterion):
        self.nodes = nodes
        self.n_features = n_features
        self.n_classes = n_classes
        self.criterion = criterion

    @property
    def node_count(self):
        """int: number of nodes."""
        return len(self.nodes)

    @property
    def n_leaves(self):
        """int: number of leaves."""
        return sum(node.is_leaf for node in self.nodes)

    @property
    def max_depth(self):
        """int: largest node depth (0 for a single leaf)."""
        return max(node.depth for node in self.nodes)

    @property
    def is_classifier(self):
        """bool: True for a classification tree."""
        return self.n_classes is not None

    def apply(self, X):
        """Leaf id reached by each row of `X`.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Rows to route; cast to float32 as in training.

        Returns
        -------
        ndarray of intp, shape (n_samples,)
        """
        X = _check_X(X)
        if X.shape[1] != self.n_features:
            raise ValueError(
                f"X has {X.shape[1]} features, the tree was built with "
                f"{self.n_features}"
            )
        features = np.array([node.feature for node in self.nodes], dtype=np.intp)
        thresholds = np.array(
            [node.threshold for node in self.nodes], dtype=np.float32
        )
        lefts = np.array([node.left for node in self.nodes], dtype=np.intp)
        rights = np.array([node.right for node in self.nodes], dtype=np.intp)

        node_of_row = np.zeros(X.shape[0], dtype=np.intp)
        rows = np.arange(X.shape[0])
        while True:
            internal = lefts[node_of_row] != TREE_LEAF
            if not internal.any():
                return node_of_row
            moving = rows[internal]
            current = node_of_row[moving]
            goes_left = X[moving, features[current]] <= thresholds[current]
            node_of_row[moving] = np.where(
                goes_left, lefts[current], rights[current]
            )

    def predict_value(self, X):
        """Leaf value of each row: class probabilities or the mean target.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_classes) or (n_samples,)
        """
        leaves = self.apply(X)
        if self.is_classifier:
            values = np.zeros((leaves.shape[0], self.n_classes), dtype=np.float64)
        else:
            values = np.zeros(leaves.shape[0], dtype=np.float64)
        for row, leaf in enumerate(leaves):
            values[row] = self.nodes[leaf].value
        return values

    def predict(self, X):
        """Predicted class index (lowest on ties) or regression mean.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        values = self.predict_value(X)
        if self.is_classifier:
            return np.argmax(values, axis=1)
        return values

    def feature_importances(self):
        """Normalised total impurity decrease contributed by each feature.

        Returns
        -------
        ndarray of float64, shape (n_features,)
            Sums to 1, or all zeros if no split decreased impurity.
        """
        importances = np.zeros(self.n_features, dtype=np.float64)
        for node in self.nodes:
            if node.is_leaf:
                continue
            left = self.nodes[node.left]
            right = self.nodes[node.right]
            importances[node.feature] += (
                node.weighted_n_node_samples * node.impurity
                - left.weighted_n_node_samples * left.impurity
                - right.weighted_n_node_samples * right.impurity
            )
        total = importances.sum()
        if total > 0:
            importances /= total
        return importances


def interaction_groups(interaction_cst, n_features):
    """The groups of features an ``interaction_cst`` names, as frozensets,
    with the features no group names as one more group (None: no
    constraint).

    Parameters
    ----------
    interaction_cst : {'pairwise', 'no_interactions'}, iterable of iterables of int, or None
    n_features : int

    Returns
    -------
    list of frozenset, or None
    """
    if interaction_cst is None:
        return None
    if interaction_cst == "pairwise":
        groups = [frozenset((a, b)) for a in range(n_features)
                  for b in range(a + 1, n_features)]
    elif interaction_cst == "no_interactions":
        groups = [frozenset((a,)) for a in range(n_features)]
    else:
        groups = [frozenset(int(feature) for feature in group) for group in interaction_cst]
    rest = frozenset(range(n_features)).difference(*groups)
    if rest:
        groups.append(rest)
    return groups


def splittable_features(groups, path_features, n_features):
    """The features a node may split on, by brute force from its path.

    Parameters
    ----------
    groups : list of frozenset, or None
        From :func:`interaction_groups`; None allows every feature.
    path_features : set of int
        The features the node's ancestors split on.
    n_features : int

    Returns
    -------
    list of int
        Ascending: the union of the groups that hold every feature of the
        path.
    """
    if groups is None:
        return list(range(n_features))
    allowed = set()
    for group in groups:
        if set(path_features) <= group:
            allowed |= group
    return sorted(allowed)


class _Builder:
    """Holds the training data and rules; creates and splits nodes."""

    def __init__(self, X, y, weights, criterion, n_classes, rules):
        self.X = X
        self.y = y
        self.weights = weights
        self.criterion = criterion
        self.n_classes = n_classes
        self.rules = rules
        self.max_depth = rules["max_depth"]
        self.min_samples_leaf = rules["min_samples_leaf"]
        self.min_samples_split = max(
            rules["min_samples_split"], 2 * rules["min_samples_leaf"]
        )
        self.min_weight_leaf = rules["min_weight_leaf"]
        self.min_impurity_decrease = rules["min_impurity_decrease"]
        self.weighted_n_root = weights.sum()
        self.groups = rules.get("interaction_groups")
        self.nodes = []

    def _value(self, rows, node_weight):
        """Class probabilities or weighted mean; zeros when weightless. With
        several outputs, the outputs' values side by side."""
        if self.y.ndim == 2:
            outputs = []
            for k in range(self.y.shape[1]):
                column = _Builder(self.X, self.y[:, k], self.weights, self.criterion,
                                  None if self.n_classes is None else self.n_classes[k],
                                  self.rules)
                outputs.append(np.atleast_1d(column._value(rows, node_weight)))
            return np.concatenate(outputs)
        if self.n_classes is None:
            if node_weight <= 0:
                return 0.0
            if self.criterion == "absolute_error":
                return weighted_median(self.y[rows], self.weights[rows])
            if isinstance(self.criterion, PinballLoss):
                return self.criterion.value(self.y[rows], self.weights[rows])
            return float(np.dot(self.weights[rows], self.y[rows]) / node_weight)
        class_weights = np.bincount(
            self.y[rows], weights=self.weights[rows], minlength=self.n_classes
        )
        if node_weight <= 0:
            return np.zeros(self.n_classes, dtype=np.float64)
        return class_weights / node_weight

    def make_node(self, rows, depth):
        """Append a leaf node for `rows`; return its id."""
        node_weight = float(self.weights[rows].sum())
        self.nodes.append(
            Node(
                feature=TREE_UNDEFINED,
                threshold=float(TREE_UNDEFINED),
                left=TREE_LEAF,
                right=TREE_LEAF,
                impurity=(output_mean_impurity if self.y.ndim == 2 else impurity)(
                    self.criterion, self.y[rows], self.weights[rows]),
                n_node_samples=int(rows.shape[0]),
                weighted_n_node_samples=node_weight,
                value=self._value(rows, node_weight),
                depth=depth,
            )
        )
        return len(self.nodes) - 1

    def path_features(self, node_id):
        """The features the node's ancestors split on."""
        parent_of = {}
        for parent_id, parent in enumerate(self.nodes):
            if not parent.is_leaf:
                parent_of[parent.left] = parent_id
                parent_of[parent.right] = parent_id
        features = set()
        while node_id in parent_of:
            node_id = parent_of[node_id]
            features.add(self.nodes[node_id].feature)
        return features

    def find_split(self, node_id, rows):
        """Best split of the node and its weighted improvement, or None."""
        node = self.nodes[node_id]
        if (
            (self.max_depth is not None and node.depth >= self.max_depth)
            or node.n_node_samples < self.min_samples_split
            or node.n_node_samples < 2 * self.min_samples_leaf
            or node.weighted_n_node_samples < 2 * self.min_weight_leaf
            or node.impurity <= EPSILON
        ):
            return None
        split = best_split(
            self.X[rows],
            self.y[rows],
            self.weights[rows],
            criterion=self.criterion,
            min_samples_leaf=self.min_samples_leaf,
            min_weight_leaf=self.min_weight_leaf,
            features=splittable_features(self.groups, self.path_features(node_id),
                                         self.X.shape[1]),
        )
        if split is None:
            return None
        weighted_improvement = (
            node.weighted_n_node_samples / self.weighted_n_root
        ) * split.improvement
        if weighted_improvement + EPSILON < self.min_impurity_decrease:
            return None
        return split, weighted_improvement

    def partition(self, node_id, rows, split):
        """Turn the node into a split node; return (left rows, right rows)."""
        node = self.nodes[node_id]
        node.feature = split.feature
        node.threshold = float(split.threshold)
        goes_left = self.X[rows, split.feature] <= split.threshold
        return rows[goes_left], rows[~goes_left]

    def grow_depth_first(self):
        """Grow the whole tree, creating nodes in pre-order."""
        # Right is pushed before left so the left subtree is created first.
        stack = [(np.arange(self.X.shape[0]), 0, None, False)]
        while stack:
            rows, depth, parent_id, is_left = stack.pop()
            node_id = self.make_node(rows, depth)
            if parent_id is not None:
                if is_left:
                    self.nodes[parent_id].left = node_id
                else:
                    self.nodes[parent_id].right = node_id
            found = self.find_split(node_id, rows)
            if found is None:
                continue
            left_rows, right_rows = self.partition(node_id, rows, found[0])
            stack.append((right_rows, depth + 1, node_id, False))
            stack.append((left_rows, depth + 1, node_id, True))

    def grow_best_first(self, max_leaf_nodes):
        """Expand the most improving frontier node until `max_leaf_nodes`."""
        frontier = {}  # node id -> (rows, split, weighted improvement)

        def consider(node_id, rows):
            found = self.find_split(node_id, rows)
            if found is not None:
                frontier[node_id] = (rows, found[0], found[1])

        all_rows = np.arange(self.X.shape[0])
        consider(self.make_node(all_rows, 0), all_rows)
        n_leaves = 1
        while frontier and n_leaves < max_leaf_nodes:
            # Largest improvement first; the smaller (earlier) id wins ties.
            node_id = max(frontier, key=lambda key: (frontier[key][2], -key))
            rows, split, _ = frontier.pop(node_id)
            left_rows, right_rows = self.partition(node_id, rows, split)
            depth = self.nodes[node_id].depth + 1
            left_id = self.make_node(left_rows, depth)
            right_id = self.make_node(right_rows, depth)
            self.nodes[node_id].left = left_id
            self.nodes[node_id].right = right_id
            consider(left_id, left_rows)
            consider(right_id, right_rows)
            n_leaves += 1


def _check_rules(max_depth, min_samples_split, min_samples_leaf,
                 min_weight_leaf, min_impurity_decrease, max_leaf_nodes):
    """Raise ValueError naming the first out-of-range stopping rule."""
    if max_depth is not None and max_depth < 0:
        raise ValueError(f"max_depth must be None or >= 0, got {max_depth!r}")
    if min_samples_split < 2:
        raise ValueError(f"min_samples_split must be >= 2, got {min_samples_split!r}")
    if min_samples_leaf < 1:
        raise ValueError(f"min_samples_leaf must be >= 1, got {min_samples_leaf!r}")
    if min_weight_leaf < 0:
        raise ValueError(f"min_weight_leaf must be >= 0, got {min_weight_leaf!r}")
    if min_impurity_decrease < 0:
        raise ValueError(
            f"min_impurity_decrease must be >= 0, got {min_impurity_decrease!r}"
        )
    if max_leaf_nodes is not None and max_leaf_nodes < 2:
        raise ValueError(f"max_leaf_nodes must be None or >= 2, got {max_leaf_nodes!r}")


def _check_classes(y, n_classes):
    """Return y as intp class indices and the number of classes."""
    y = np.asarray(y).reshape(-1)
    integral = y.dtype.kind in "biu" or (
        y.dtype.kind == "f" and np.all(np.isfinite(y)) and np.all(y == np.floor(y))
    )
    if not integral:
        raise ValueError(
            "classification y must hold integer class indices 0 .. n_classes - 1"
        )
    y = y.astype(np.intp)
    if y.size and y.min() < 0:
        raise ValueError("class indices must be >= 0")
    observed = int(y.max()) + 1 if y.size else 0
    if n_classes is None:
        n_classes = observed
    elif n_classes < observed:
        raise ValueError(f"n_classes={n_classes} but y contains class {observed - 1}")
    return y, n_classes


def build_tree(
    X,
    y,
    sample_weight=None,
    *,
    criterion="gini",
    n_classes=None,
    max_depth=None,
    min_samples_split=2,
    min_samples_leaf=1,
    min_weight_leaf=0.0,
    min_impurity_decrease=0.0,
    max_leaf_nodes=None,
    interaction_cst=None,
):
    """Build a decision tree with scikit-learn's stopping rules.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Training rows; cast to float32.  NaN is rejected.
    y : array-like of shape (n_samples,) or (n_samples, n_outputs)
        Class indices ``0 .. n_classes - 1``, or float targets for
        ``criterion='squared_error'``; one column per output for several
        (node values are then the outputs' values side by side).
    sample_weight : array-like of shape (n_samples,), optional
        Non-negative weights with a positive sum; None means all ones.
    criterion : str, CostSensitiveGini or PinballLoss
        Impurity function name, or a criterion object (a pinball loss's
        nodes predict their weighted quantile of its level).
    n_classes : int or list of int, optional
        Number of classes (classification; one per output for several);
        default ``max(y) + 1`` of each output.
    max_depth : int, optional
        Nodes at this depth are leaves; None means unlimited.
    min_samples_split : int, default=2
        Nodes with fewer rows are leaves.  Raised to ``2 * min_samples_leaf``.
    min_samples_leaf : int, default=1
        Minimum rows in each child of a split.
    min_weight_leaf : float, default=0.0
        Minimum weight in each child of a split (an absolute weight, not a
        fraction).
    min_impurity_decrease : float, default=0.0
        A node is split only if ``(w_node / w_root) * improvement + eps``
        is at least this.
    max_leaf_nodes : int, optional
        If given, grow best-first (largest weighted improvement first,
        earliest node on ties) until there are this many leaves.
    interaction_cst : {'pairwise', 'no_interactions'}, list of groups of int, optional
        Interaction constraints (see :func:`interaction_groups`): a node
        searches only the features of the groups that hold every feature
        its ancestors split on (:func:`splittable_features`).

    Returns
    -------
    ReferenceTree
    """
    if not isinstance(criterion, (CostSensitiveGini, PinballLoss)) and (
            criterion not in CLASSIFICATION_CRITERIA + REGRESSION_CRITERIA):
        raise ValueError(
            f"unknown criterion {criterion!r}; expected one of "
            f"{sorted(CLASSIFICATION_CRITERIA + REGRESSION_CRITERIA)}"
        )
    _check_rules(max_depth, min_samples_split, min_samples_leaf,
                 min_weight_leaf, min_impurity_decrease, max_leaf_nodes)
    X = _check_X(X)
    n_samples, n_features = X.shape
    if n_samples == 0:
        raise ValueError("X has no rows")
    several = np.ndim(y) == 2
    if is_regression(criterion):
        y = np.asarray(y, dtype=np.float64)
        y = y if several else y.reshape(-1)
        n_classes = None
    elif several:
        y = np.asarray(y)
        checked = [_check_classes(y[:, k], None if n_classes is None else n_classes[k])
                   for k in range(y.shape[1])]
        y = np.stack([column for column, _ in checked], axis=1)
        n_classes = [count for _, count in checked]
    else:
        y, n_classes = _check_classes(y, n_classes)
    if y.shape[0] != n_samples:
        raise ValueError(f"X has {n_samples} rows but y has {y.shape[0]}")
    weights = _as_weights(sample_weight, n_samples)
    if weights.sum() <= 0:
        raise ValueError("sample_weight must have a positive sum")

    rules = dict(
        max_depth=max_depth,
        min_samples_split=min_samples_split,
        min_samples_leaf=min_samples_leaf,
        min_weight_leaf=min_weight_leaf,
        min_impurity_decrease=min_impurity_decrease,
        interaction_groups=interaction_groups(interaction_cst, n_features),
    )
    builder = _Builder(X, y, weights, criterion, n_classes, rules)
    if max_leaf_nodes is None:
        builder.grow_depth_first()
    else:
        builder.grow_best_first(max_leaf_nodes)
    return ReferenceTree(builder.nodes, n_features, n_classes, criterion)
