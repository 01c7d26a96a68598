"""The fitted tree as numpy arrays, named and shaped as scikit-learn's ``tree_``."""

import math

import numpy as np

from ._model_file import model_file_class
from ._multiway_trees import leaf_mixture, rebuilt_arrays
from ._threads import map_rows
from ._validation import csr_for_walk, is_sparse, non_finite_error
from ._predict import apply_rows, decision_paths, predict_leaf_outputs, predict_leaf_rows
from ._pruning import cost_complexity_pruning, subtree_nodes
from ._row_source import CSRRows
from ._tree import (FLAG_KIND_MASK, FLAG_MISSING_LEFT, FLAG_MISSING_SEEN, FLAG_MULTIWAY,
                    FLAG_SUBSET, impurity_decreases)
from ._tree_state import (check_nodes, checked_fractions, checked_output_widths,
                          checked_sparse_rows, checked_statistic, compressed_state, float_array,
                          narrowest, readable_state, state_of, threshold_flags, uint_array)
from ._utils import select_sparse_rows, sparse_rows as sparse_rows_of
from ._walk_layout import WalkTests, walk_depths, walk_layout

# Refilled lanes check their rows about twice as often as lockstep ones
# (bench: forests of 30 trees, one thread, 20,000 new rows): they pay on
# sparse data (spread 2.4: 0.5-0.8x the lockstep time), not on
# make_classification's full trees (spread 1.4: 1.1-1.3x).
LOCKSTEP_SPREAD_LIMIT = 1.8


@model_file_class
class Tree:
    """A fitted binary tree.

    Nodes are numbered depth-first from the root (0), the left subtree
    before the right one (best-first trees number nodes as they are created).
    Leaves have ``children_left == children_right == -1`` and ``feature == -2``.

    Attributes
    ----------
    node_count : int
    max_depth : int
        Depth of the deepest node; the root has depth 0.
    children_left, children_right : ndarray of intp
    feature : ndarray of intp
    threshold : ndarray of float64
        A row goes left when ``x[feature] <= threshold``. The values are
        float32 numbers stored as float64; NaN at a category-subset node.
    missing_go_to_left : ndarray of uint8
        1 where missing values (NaN, and categories not seen in training) go
        to the left child.
    value : ndarray of float64, shape (node_count, n_outputs, max_n_classes)
        Class fractions of the training weight (classifiers) or the mean target
        (regressors), for every node and output; an output of fewer classes
        than ``max_n_classes`` is padded with zeros.
    impurity : ndarray of float64
    n_node_samples : ndarray of intp
        Training rows (distinct ones, for a bootstrap sample) that reached
        every node.
    weighted_n_node_samples : ndarray of float64
        Their total weight (a bootstrap sample's rows weigh their draws).
    """

    def __init__(self, n_features, n_values, arrays, trusted=False, output_widths=None):
        self.n_features = int(n_features)
        self.n_values = int(n_values)
        # Several outputs keep their values side by side in one row: output
        # k's are columns output_start[k]:output_start[k + 1].
        self.output_widths = checked_output_widths(output_widths, self.n_values)
        self._nodes = arrays["nodes"]
        self.max_depth = int(arrays["max_depth"])
        if not trusted:
            # Loaded models may hold anything: the links are checked here and
            # again by walk_layout, the arrays are coerced and measured below.
            check_nodes(self._nodes, self.n_features)
        if "flags" in arrays:
            self._flags = uint_array(arrays["flags"], np.uint8, "flags")
            self._category_bits = uint_array(arrays["category_bits"], np.uint32,
                                              "category_bits")
        else:
            self._flags = threshold_flags(self._nodes, arrays.get("weighted_n_node_samples"))
            self._category_bits = np.zeros(0, dtype=np.uint32)
        # A compact tree (a forest's member) keeps its node statistics at its
        # leaves only, and, for class fractions, its values too (as sparse
        # rows when there are several: a fully grown classifier's leaves are
        # mostly pure, one class each).
        self.compact = any(key in arrays for key in (
            "leaf_value", "leaf_value_indptr", "leaf_n_node_samples"))
        self._leaf_value = self._leaf_rows = self._node_rows = self._value = None
        if "leaf_value" in arrays:
            leaf_value = float_array(arrays["leaf_value"], "leaf_value")
            if leaf_value.shape != (self.n_leaves, self.n_values):
                raise ValueError("corrupt fasttree model: leaf_value has the wrong shape")
            if self.n_values == 1:
                self._leaf_value = leaf_value
            else:  # a version 1 file
                self._leaf_rows = sparse_rows(leaf_value)
        elif "leaf_value_indptr" in arrays:
            self._leaf_rows = checked_sparse_rows(
                arrays["leaf_value_indptr"], arrays["leaf_value_index"],
                arrays["leaf_value_data"], self.n_leaves, self.n_values)
        elif "value_indptr" in arrays:
            # Sparse node values (the builder's); the dense array is made
            # only when asked for.
            self._node_rows = checked_sparse_rows(
                arrays["value_indptr"], arrays["value_index"], arrays["value_data"],
                self.node_count, self.n_values, trusted=trusted, what="node")
        else:
            self._value = float_array(arrays["value"], "value")
            if self._value.shape != (self.node_count, self.n_values):
                raise ValueError("corrupt fasttree model: value has the wrong shape")
            if not np.isfinite(self._value).all():
                raise ValueError("corrupt fasttree model: a node value is not finite")
        # Node statistics. A compact tree keeps its leaves' counts and weights
        # (the inner nodes' are their sums) and the impurity of every node,
        # or, for class fractions, the rule that gives it from the values.
        # Compact trees of forests pickled before these were kept have none.
        self._impurity = self._n_node_samples = self._weighted_n_node_samples = None
        self._leaf_counts = self._leaf_weights = self.impurity_rule = None
        self._leaf_impurity = None
        if not self.compact:
            self._impurity = checked_statistic(arrays, "impurity", self.node_count, np.float64)
            self._n_node_samples = checked_statistic(arrays, "n_node_samples",
                                                     self.node_count, np.int64)
            self._weighted_n_node_samples = checked_statistic(
                arrays, "weighted_n_node_samples", self.node_count, np.float64)
        elif "leaf_n_node_samples" in arrays:
            self._leaf_counts = checked_statistic(arrays, "leaf_n_node_samples",
                                                  self.n_leaves, np.uint32)
            self._leaf_weights = checked_statistic(arrays, "leaf_weighted_n_node_samples",
                                                   self.n_leaves, np.float32)
            if "impurity_rule" in arrays:
                self.impurity_rule = str(arrays["impurity_rule"])
                if self.impurity_rule not in IMPURITY_RULES:
                    raise ValueError("corrupt fasttree model: unknown impurity rule "
                                     f"{self.impurity_rule!r}")
                if self.impurity_rule == "squared_error":
                    self._leaf_impurity = checked_statistic(arrays, "leaf_impurity",
                                                            self.n_leaves, np.float64)
            else:
                self._impurity = checked_statistic(arrays, "impurity", self.node_count,
                                                   np.float64)
        if "walk" in arrays:
            self._walk, self._walk_flags = arrays["walk"], arrays["walk_flags"]
        else:
            self._walk = walk_layout(self._nodes, self._flags, self._category_bits,
                                     self.n_features)
            self._walk_flags = np.ascontiguousarray(self._flags[self._walk["node"]])
        # Where each node lies in the walk: multiway nodes find their children so.
        self._node_position = self.node_position if self.is_multiway.any() else None
        # C4.5's fractional missing values: each inner node's children's
        # shares of its known training weight, in child order.
        self._fractions = None
        if "branch_fractions" in arrays:
            self._fractions = checked_fractions(arrays["branch_fractions"],
                                                arrays["fraction_offsets"], self)
        # Derived when first used, not stored in pickles.
        self._majority_class = None
        self._refill = None
        self._first_value = None

    def compacted(self, impurity_rule=None):
        """This tree as forests keep it: the leaves' sample counts and weights
        alone (an inner node's are its children's sums, derived when asked
        for) and, given ``impurity_rule``, the leaves' values alone (an inner
        node's class fractions are its children's weighted means, and its
        impurity follows from them).

        Parameters
        ----------
        impurity_rule : {'gini', 'entropy', 'misclassification', 'squared_error'} or None
            How the impurity follows from a node's class fractions (the mean
            over the outputs). None keeps every node's value and impurity:
            for regression (a mean near zero is the sum of children's terms
            that nearly cancel, which rounding would not reproduce) and the
            cost-sensitive Gini. 'squared_error' keeps the leaves' values and
            impurities alone, an inner node's value being its children's
            weighted mean and its impurity their weighted impurity plus the
            spread of their means (the model size of a quantile forest,
            whose trees' inner values only explain; rounded otherwise than
            grown).

        Notes
        -----
        The tree must be binary or multiway with every missing value sent to
        one child (not C4.5's fractional rule), so that a node's rows are its
        children's.
        """
        arrays = {"nodes": self._nodes, "max_depth": self.max_depth, "walk": self._walk,
                  "walk_flags": self._walk_flags, "flags": self._flags,
                  "category_bits": self._category_bits}
        if self._fractions is not None:
            arrays["branch_fractions"], arrays["fraction_offsets"] = self._fractions
        if impurity_rule is None:
            # Every node's value and impurity, as the full tree has them.
            arrays["impurity"] = self.impurity
            if self._value is None and self._node_rows is not None:
                indptr, index, data = self._node_rows
                arrays.update(value_indptr=indptr, value_index=index, value_data=data)
            else:
                arrays["value"] = self.node_values
        else:
            arrays["impurity_rule"] = impurity_rule
            if impurity_rule == "squared_error":
                arrays["leaf_impurity"] = np.ascontiguousarray(
                    self.impurity[self._nodes["left_child"] == -1])
            if self.n_values == 1:
                arrays["leaf_value"] = self.leaf_values
            else:
                indptr, index, data = self.leaf_value_rows
                arrays.update(leaf_value_indptr=indptr, leaf_value_index=index,
                              leaf_value_data=data)
        leaves = self._nodes["left_child"] == -1
        arrays.update(
            leaf_n_node_samples=narrowest(self.n_node_samples[leaves], [np.uint32]),
            leaf_weighted_n_node_samples=narrowest(self.weighted_n_node_samples[leaves],
                                                   [np.float32]))
        return Tree(self.n_features, self.n_values, arrays, trusted=True,
                    output_widths=self.output_widths)

    def with_node_values(self, value):
        """This tree with other node values, (node_count, n_values): its splits
        and statistics unchanged (an honest tree's leaves, estimated from
        other rows; a mixture's expert, re-estimated on new weights). Only for
        a tree that keeps every node's value (dense, or as sparse rows)."""
        state = self.plain_state()
        if "value" not in state and "value_indptr" not in state:
            raise ValueError("with_node_values needs a tree that keeps every node's value")
        for key in ("value_indptr", "value_index", "value_data"):
            state.pop(key, None)
        state["value"] = np.ascontiguousarray(value, dtype=np.float64)
        return Tree(self.n_features, self.n_values, state,
                    output_widths=state.get("output_widths"))

    @property
    def has_statistics(self):
        """Whether the node statistics (impurity, sample counts and weights)
        are known: always, but in the compact trees of forests pickled by
        fasttree before it kept them."""
        return self._n_node_samples is not None or self._leaf_counts is not None

    @property
    def impurity(self):
        if self._impurity is None and self.impurity_rule == "squared_error":
            self._impurity = self._spread_impurity()
        elif self._impurity is None and self.impurity_rule is not None:
            self._impurity = rule_impurity(self.impurity_rule,
                                           self.split_outputs(self.node_values))
        return self._impurity

    @property
    def n_node_samples(self):
        if self._n_node_samples is None and self._leaf_counts is not None:
            self._n_node_samples = self._summed_up(self._leaf_counts.astype(np.int64))
        if self._n_node_samples is None:
            return None
        return self._n_node_samples.astype(np.intp, copy=False)

    @property
    def weighted_n_node_samples(self):
        if self._weighted_n_node_samples is None and self._leaf_weights is not None:
            self._weighted_n_node_samples = self._summed_up(
                self._leaf_weights.astype(np.float64))
        return self._weighted_n_node_samples

    def leaf_numbers(self):
        """Per node, its number among the tree's leaves in node order (the
        order of ``leaf_values``); an inner node's is that of the last leaf
        before it."""
        return np.cumsum(self._nodes["left_child"] == -1) - 1

    def _spread_impurity(self):
        """Every node's squared error from its leaves': an inner node's is
        its children's, weighted, plus the weighted spread of their means
        about its own (the mean over the outputs)."""
        impurity = np.zeros(self.node_count)
        impurity[self._nodes["left_child"] == -1] = self._leaf_impurity
        value, weight = self.node_values, self.weighted_n_node_samples
        indptr, children = self.children_lists()
        for inner in reversed(_inner_levels(indptr, children)):
            below = children[_child_positions(indptr, inner)]
            parent = np.repeat(inner, np.diff(indptr)[inner])
            spread = np.mean((value[below] - value[parent]) ** 2, axis=1)
            sums = np.zeros(inner.size)
            np.add.at(sums, np.repeat(np.arange(inner.size), np.diff(indptr)[inner]),
                      weight[below] * (impurity[below] + spread))
            impurity[inner] = sums / weight[inner]
        return impurity

    def _summed_up(self, leaf_statistic):
        """Every node's total of a statistic known at the leaves."""
        total = np.zeros(self.node_count, dtype=leaf_statistic.dtype)
        total[self._nodes["left_child"] == -1] = leaf_statistic
        indptr, children = self.children_lists()
        for inner in reversed(_inner_levels(indptr, children)):
            total[inner] = np.add.reduceat(total[children[_child_positions(indptr, inner)]],
                                           np.concatenate([[0], np.cumsum(
                                               np.diff(indptr)[inner])[:-1]]))
        return total

    @property
    def node_count(self):
        return int(self._nodes.shape[0])

    @property
    def capacity(self):
        return self.node_count

    @property
    def n_outputs(self):
        return int(self.output_widths.shape[0])

    @property
    def n_classes(self):
        """Classes per output, as scikit-learn gives them (1 for a regression)."""
        return self.output_widths.astype(np.intp)

    @property
    def max_n_classes(self):
        return int(self.output_widths.max())

    @property
    def output_start(self):
        """Where each output's columns of a value row start, and the end
        (n_outputs + 1 entries)."""
        return np.concatenate([[0], np.cumsum(self.output_widths)]).astype(np.intp)

    def split_outputs(self, values):
        """The columns of ``values`` (rows of n_values) output by output: a
        list of n_outputs views."""
        start = self.output_start
        return [values[..., start[k]:start[k + 1]] for k in range(self.n_outputs)]

    @property
    def n_leaves(self):
        return int(np.count_nonzero(self._nodes["left_child"] == -1))

    @property
    def children_left(self):
        return self._nodes["left_child"].astype(np.intp)

    @property
    def children_right(self):
        return self._nodes["right_child"].astype(np.intp)

    @property
    def feature(self):
        return self._nodes["feature"].astype(np.intp)

    @property
    def threshold(self):
        threshold = self._nodes["threshold"].astype(np.float64)
        threshold[self.is_categorical] = np.nan
        return threshold

    @property
    def is_multiway(self):
        """Per node, whether it has one child per category (C4.5)."""
        return (self._flags & FLAG_KIND_MASK) == FLAG_MULTIWAY

    @property
    def node_position(self):
        """Where each node lies in ``walk`` (int32)."""
        position = np.empty(self.node_count, dtype=np.int32)
        position[self._walk["node"]] = np.arange(self.node_count, dtype=np.int32)
        return position

    @property
    def fractional(self):
        """Whether missing values spread over every child (C4.5's fractional rule)."""
        return self._fractions is not None

    def children(self, node):
        """The children of an inner node, in branch order (empty at a leaf)."""
        if self._nodes["left_child"][node] == -1:
            return np.zeros(0, dtype=np.intp)
        if not self.is_multiway[node]:
            return np.array([self._nodes["left_child"][node],
                             self._nodes["right_child"][node]], dtype=np.intp)
        table = self.branch_table(node)
        return table[3:3 + int(table[1])].astype(np.intp)

    def children_lists(self):
        """Every node's children as CSR parts (indptr, index): node i's are
        ``index[indptr[i]:indptr[i + 1]]``, in branch order."""
        if not self.is_multiway.any():
            inner = self._nodes["left_child"] != -1
            counts = np.where(inner, 2, 0)
            index = np.column_stack([self._nodes["left_child"][inner],
                                     self._nodes["right_child"][inner]]).ravel()
        else:
            lists = [self.children(node) for node in range(self.node_count)]
            counts = np.array([children.size for children in lists])
            index = np.concatenate(lists)
        indptr = np.concatenate([[0], np.cumsum(counts)]).astype(np.intp)
        return indptr, np.ascontiguousarray(index, dtype=np.intp)

    def branches(self, node):
        """A multiway node's branches: per child, the category codes that go
        to it (ascending); and the position of the child that missing values
        (and codes absent at the node) go to."""
        table = self.branch_table(node)
        n_codes, n_children = int(table[0]), int(table[1])
        position = table[3 + n_children:3 + n_children + n_codes]
        return ([np.flatnonzero(position == child) for child in range(n_children)],
                int(table[2]))

    def branch_table(self, node):
        """A multiway node's branch table (the kernel's layout, see ``_tree.pxd``)."""
        if not self.is_multiway[node]:
            raise ValueError(f"node {node} is not a multiway node")
        side = int(self._nodes["threshold"][node:node + 1].view(np.int32)[0])
        table = self._category_bits[side:]
        return table[:3 + int(table[1]) + int(table[0])]

    def branch_fractions(self, node):
        """The children's shares of the node's known training weight (how a
        row missing the node's feature is spread, when ``fractional``)."""
        if self._fractions is None:
            raise ValueError("this tree sends missing values to one child")
        fractions, offsets = self._fractions
        return fractions[offsets[node]:offsets[node + 1]]

    @property
    def flags(self):
        """Per node, the kind of test and the missing values' direction
        (the kernel's ``FLAG_*`` bits)."""
        return self._flags

    @property
    def category_bits(self):
        """The category sets of the subset nodes (the kernel's layout)."""
        return self._category_bits

    @property
    def missing_go_to_left(self):
        return ((self._flags & FLAG_MISSING_LEFT) != 0).astype(np.uint8)

    @property
    def missing_seen(self):
        """Per node, whether it had missing values of its feature in training
        (elsewhere they go to the heavier child)."""
        return (self._flags & FLAG_MISSING_SEEN) != 0

    @property
    def is_categorical(self):
        """Per node, whether it tests a categorical feature (a set of
        categories, or one branch per category)."""
        kind = self._flags & FLAG_KIND_MASK
        return (kind == FLAG_SUBSET) | (kind == FLAG_MULTIWAY)

    def left_categories(self, node):
        """The category codes that go left at a subset node, ascending.

        Codes beyond these that the feature had in training but that did not
        reach the node go where missing values go, and are included when
        they go left.
        """
        if (self._flags[node] & FLAG_KIND_MASK) != FLAG_SUBSET:
            raise ValueError(f"node {node} does not test a set of categories")
        side = int(self._nodes["threshold"][node:node + 1].view(np.int32)[0])
        n_codes = int(self._category_bits[side])
        words = self._category_bits[side + 1:side + 1 + (n_codes + 31) // 32]
        bits = np.unpackbits(words.astype("<u4").view(np.uint8), bitorder="little")
        return np.flatnonzero(bits[:n_codes])

    def n_category_codes(self, node):
        """How many codes the category set (or branch table) of a node covers."""
        side = int(self._nodes["threshold"][node:node + 1].view(np.int32)[0])
        return int(self._category_bits[side])

    @property
    def value(self):
        if self.n_outputs == 1:
            return self.node_values.reshape(self.node_count, 1, self.n_values)
        value = np.zeros((self.node_count, self.n_outputs, self.max_n_classes))
        for k, columns in enumerate(self.split_outputs(self.node_values)):
            value[:, k, :columns.shape[1]] = columns
        return value

    @property
    def nodes(self):
        """The raw node records (the kernel's layout)."""
        return self._nodes

    @property
    def walk(self):
        """The nodes in preorder as prediction reads them (``WALK_DTYPE``)."""
        return self._walk

    @property
    def refill_walk(self):
        """Whether rows walk this tree with a lane refilled as soon as its row
        reaches a leaf, rather than in lockstep: when the longest of eight
        paths is over LOCKSTEP_SPREAD_LIMIT times a mean path (trees of sparse,
        word-presence data: long chains of absent words beside short paths)."""
        if self._refill is None:
            self._refill = self.lockstep_spread() > LOCKSTEP_SPREAD_LIMIT
        return self._refill

    def lockstep_spread(self, n_lanes=8):
        """How much longer the longest of ``n_lanes`` paths is than a path on
        average, for rows drawn as the training rows fell into the leaves
        (each leaf once without statistics): the price of walking rows in
        lockstep, where every row waits for the deepest of its group."""
        leaf_positions = np.flatnonzero(self._walk["right_jump"] < 0)
        depth = walk_depths(self._walk)[leaf_positions].astype(np.float64)
        leaf_ids = self._walk["node"][leaf_positions]
        if self._n_node_samples is not None:
            counts = self._n_node_samples[leaf_ids]
        elif self._leaf_counts is not None:
            leaf_rank = np.searchsorted(np.flatnonzero(self._nodes["left_child"] == -1), leaf_ids)
            counts = self._leaf_counts[leaf_rank]
        else:
            counts = np.ones(leaf_ids.shape[0])
        share = counts.astype(np.float64)
        if share.sum() <= 0 or depth.max() == 0:
            return 1.0
        share /= share.sum()
        order = np.argsort(depth, kind="stable")
        below = np.cumsum(share[order])
        longest = np.sum(depth[order] * (below ** n_lanes - (below - share[order]) ** n_lanes))
        return float(longest / max(np.dot(depth, share), 1.0))

    @property
    def majority_class(self):
        """Per node, the index of the largest value (the majority class)."""
        if self._majority_class is None:
            self._majority_class = np.argmax(np.nan_to_num(self.node_values, nan=-1.0),
                                             axis=1).astype(np.intp)
        return self._majority_class

    @property
    def first_value(self):
        """Per node, the first value (the mean, for regression trees)."""
        if self._first_value is None:
            self._first_value = np.ascontiguousarray(self.node_values[:, 0])
        return self._first_value

    @property
    def node_values(self):
        """``value`` as a 2-D array (node_count, n_values). A compact tree's
        inner-node values are the weighted means of their children's (NaN in
        one pickled without statistics)."""
        if self._value is None:
            if self._node_rows is not None:
                self._value = dense_rows(*self._node_rows, self.n_values)
            else:
                value = np.full((self.node_count, self.n_values), np.nan)
                value[self._nodes["left_child"] == -1] = self.leaf_values
                if self.has_statistics:
                    _fill_inner_values(value, *self.children_lists(),
                                       self.weighted_n_node_samples)
                self._value = value
        return self._value

    def values_at(self, nodes):
        """``node_values[nodes]``, without making every node's dense values
        when the tree keeps them as sparse rows (a node of many classes holds
        few)."""
        if self._value is None and self._node_rows is not None:
            return dense_rows(*select_rows(*self._node_rows, nodes, self.n_values),
                              self.n_values)
        return self.node_values[nodes]

    @property
    def leaf_values(self):
        """The values of the leaves, in node order (n_leaves, n_values)."""
        if self._leaf_value is not None:
            return self._leaf_value
        if self._leaf_rows is not None or (self._value is None and self._node_rows is not None):
            return dense_rows(*self.leaf_value_rows, self.n_values)
        return self.node_values[self._nodes["left_child"] == -1]

    @property
    def leaf_value_rows(self):
        """The leaf values as sparse rows ``(indptr, index, data)``: leaf i's
        non-zero values are ``data[indptr[i]:indptr[i + 1]]``, in the columns
        ``index[indptr[i]:indptr[i + 1]]`` (ascending)."""
        if self._leaf_rows is not None:
            return self._leaf_rows
        leaves = np.flatnonzero(self._nodes["left_child"] == -1)
        if self._node_rows is not None:
            return select_rows(*self._node_rows, leaves, self.n_values)
        if self._value is not None:
            return sparse_rows(self._value, leaves)
        return sparse_rows(self.leaf_values)

    def _rows(self, X, sparse_ok=False):
        """X as the kernels read it: float32 or float64 as given (any order,
        strides or writability), other real dtypes converted to float32, and
        sparse X as :class:`CSRRows` (``sparse_ok``: the walks read its rows
        as they go) or else as dense float32."""
        if is_sparse(X) or isinstance(X, CSRRows):
            if not isinstance(X, CSRRows):
                X = csr_for_walk(X)
            if X.shape[1] != self.n_features:
                raise ValueError(f"X must have shape (n_samples, {self.n_features}); "
                                 f"got {X.shape}")
            if sparse_ok:
                return X
            X = X.toarray()
        X = np.asarray(X)
        if X.dtype not in (np.float32, np.float64):
            if X.dtype.kind not in "biuf":
                raise ValueError(f"X must hold real numbers, not {X.dtype}")
            with np.errstate(over="ignore"):
                X = X.astype(np.float32)
        if X.ndim != 2 or X.shape[1] != self.n_features:
            raise ValueError(f"X must have shape (n_samples, {self.n_features}); "
                             f"got {X.shape}")
        return X

    @property
    def walk_tests(self):
        """What the walk kernels take before the rows (a ``WalkTests``, made
        once): the walk, its node flags (in walk order), the category sets and
        branch tables, and the nodes' walk positions."""
        if self.__dict__.get("_walk_tests") is None:
            self._walk_tests = WalkTests(self._walk, self._walk_flags, self._category_bits,
                                         self._node_position)
        return self._walk_tests

    def _map_rows(self, kernel, X, out, *args):
        # The kernels check that X has no infinity while they read it.
        if map_rows(kernel, X, out, *args, refill=self.refill_walk):
            raise non_finite_error(X, allow_nan=True)
        return out

    def apply(self, X):
        """Leaf index of every row of X (a 2-D array of real numbers; NaN is
        a missing value, infinity is refused)."""
        X = self._rows(X, sparse_ok=True)
        return self._map_rows(apply_rows, X, np.empty(X.shape[0], dtype=np.intp),
                              self.walk_tests)

    def predict(self, X):
        """The values of every row's leaf, shape (n_samples, n_values), as
        scikit-learn's ``tree_.predict`` gives them for one output."""
        return self.predict_values(X)

    def predict_values(self, X):
        """The values of every row's leaf, shape (n_samples, n_values), written
        straight from the walk."""
        X = self._rows(X, sparse_ok=self._fractions is None)
        if self._fractions is not None:
            # Rows missing a value, or holding a category absent from a node,
            # mix the leaves they reach.
            if np.isinf(X).any():
                raise non_finite_error(X, allow_nan=True)
            return self._mixed_values(np.asarray(X, dtype=np.float32))
        return self._map_rows(predict_leaf_rows, X,
                              np.empty((X.shape[0], self.n_values), dtype=np.float64),
                              self.walk_tests, self.node_values)

    def _mixed_values(self, X):
        """C4.5's prediction: the leaves' values mixed by ``leaf_mixture``."""
        rows, nodes, shares = self.leaf_mixture(X)
        out = np.zeros((X.shape[0], self.n_values))
        np.add.at(out, rows, shares[:, None] * self.node_values[nodes])
        return out

    def leaf_mixture(self, X):
        """The leaves each row reaches and their weights (see
        ``fasttree._multiway_trees.leaf_mixture``): ``rows``, ``nodes``, ``shares``."""
        return leaf_mixture(self, X)

    def predict_class_index(self, X):
        """Index of the majority class of every row's leaf (the first on ties)."""
        X = self._rows(X, sparse_ok=True)
        return self._map_rows(predict_leaf_outputs, X, np.empty(X.shape[0], dtype=np.intp),
                              self.walk_tests, self.majority_class)

    def predict_mean(self, X):
        """Value (the mean target, for regression trees) of every row's leaf."""
        X = self._rows(X, sparse_ok=True)
        return self._map_rows(predict_leaf_outputs, X, np.empty(X.shape[0], dtype=np.float64),
                              self.walk_tests, self.first_value)

    def path_nodes(self, X):
        """CSR (indptr, indices) of the nodes every row passes through."""
        X = np.ascontiguousarray(self._rows(X), dtype=np.float32)
        return decision_paths(self._nodes, self._flags, self._category_bits, X)

    def decision_path(self, X):
        """scipy CSR matrix (n_samples, node_count): 1 where a row of X passes
        through a node."""
        try:
            from scipy.sparse import csr_matrix
        except ImportError:
            raise ImportError("decision_path returns a scipy sparse matrix; "
                              "install scipy to use it") from None
        indptr, indices = self.path_nodes(X)
        return csr_matrix((np.ones(indices.shape[0], dtype=np.intp), indices, indptr),
                          shape=(indptr.shape[0] - 1, self.node_count))

    def compute_feature_importances(self, normalize=True):
        """Total weighted impurity decrease brought by each feature.

        Parameters
        ----------
        normalize : bool, default=True
            Scale the importances to sum to one (left at zero when no split
            decreased impurity).

        Returns
        -------
        ndarray of float64, shape (n_features,)
        """
        self._check_statistics("feature importances")
        # Impurities near the float64 limit (absolute errors of targets near
        # 1e308) are taken over a power of two, so that weighted sums of them
        # do not overflow; the importances are multiplied back.
        impurity = self.impurity
        largest = float(np.max(impurity, initial=0.0))
        exponent = math.frexp(largest)[1] if largest > 2.0 ** 500 else 0
        if exponent:
            impurity = np.ldexp(impurity, -exponent)
        if self.is_multiway.any():
            importances = np.zeros(self.n_features)
            weighted = self.weighted_n_node_samples * impurity
            for node in np.flatnonzero(self._nodes["left_child"] != -1):
                importances[self._nodes["feature"][node]] += (
                    weighted[node] - weighted[self.children(node)].sum())
        else:
            importances = impurity_decreases(self._nodes, impurity,
                                             self.weighted_n_node_samples, self.n_features)
        importances /= self.weighted_n_node_samples[0]
        total = importances.sum()
        if normalize and total > 0.0:
            return importances / total
        return np.ldexp(importances, exponent) if exponent else importances

    def cost_complexity_pruning(self, ccp_alpha):
        """Weakest-link pruning up to ``ccp_alpha`` (see
        ``fasttree._pruning.cost_complexity_pruning``).

        Returns
        -------
        alphas, risks : ndarray of float64
            The pruning path up to ``ccp_alpha`` (``inf``: to the root).
        collapsed : ndarray of bool
            The inner nodes made leaves; :meth:`pruned` builds the tree.
        """
        self._check_statistics("cost-complexity pruning")
        self._check_binary("cost-complexity pruning")
        return cost_complexity_pruning(self._nodes, self.impurity,
                                       self.weighted_n_node_samples, ccp_alpha)

    def pruned(self, collapsed):
        """A new tree in which the nodes flagged in ``collapsed`` are leaves
        (their subtrees dropped), renumbered depth-first; this one is unchanged."""
        self._check_statistics("pruning")
        if self.is_multiway.any() or self._fractions is not None:
            return Tree(self.n_features, self.n_values,
                        rebuilt_arrays(self, np.asarray(collapsed, dtype=bool)),
                        output_widths=self.output_widths)
        nodes, kept, max_depth = subtree_nodes(
            self._nodes, np.ascontiguousarray(collapsed, dtype=bool))
        flags = np.where(nodes["left_child"] == -1, 0, self._flags[kept]).astype(np.uint8)
        arrays = {"nodes": nodes, "max_depth": max_depth, "flags": flags,
                  "category_bits": self._category_bits,
                  "impurity": self.impurity[kept],
                  "n_node_samples": self.n_node_samples[kept],
                  "weighted_n_node_samples": self.weighted_n_node_samples[kept]}
        if self._value is None and self._node_rows is not None:
            indptr, index, data = select_rows(*self._node_rows, kept, self.n_values)
            arrays.update(value_indptr=indptr, value_index=index, value_data=data)
        else:
            arrays["value"] = self.node_values[kept]
        return Tree(self.n_features, self.n_values, arrays, trusted=True,
                    output_widths=self.output_widths)

    def _check_statistics(self, what):
        if not self.has_statistics:
            raise ValueError(f"{what} needs the node statistics, which this tree (of a "
                             "forest pickled by an older fasttree) does not keep")

    def _check_binary(self, what):
        if self.is_multiway.any() or self._fractions is not None:
            raise ValueError(f"{what} of multiway (C4.5-style) trees is not supported; "
                             "use prune_pessimistic or prune_reduced_error, or grow the "
                             "tree with max_depth or min_weight_fraction_leaf")

    # Pickles and model files: the state, its format versions and the checks
    # of what is read back are in _tree_state.py.
    def __getstate__(self):
        """The pickled state: :meth:`plain_state` with its larger arrays
        compressed, so that a pickle is smaller than the arrays prediction
        reads in memory."""
        return compressed_state(self.plain_state())

    def plain_state(self):
        """The tree's state as a dict of numbers and arrays (what model files
        store, compressing the file as a whole)."""
        return state_of(self)

    def __setstate__(self, state):
        # Read back as any untrusted tree: __init__ checks every array.
        state = readable_state(state)
        try:
            self.__init__(state["n_features"], state["n_values"], state,
                          output_widths=state.get("output_widths"))
        except KeyError as missing:
            raise ValueError(f"corrupt fasttree model: the tree lacks {missing}") from None


def _inner_levels(indptr, children):
    """The inner nodes depth by depth from the root (``indptr``,
    ``children``: the children lists of ``Tree.children_lists``)."""
    n_children = np.diff(indptr)
    levels, level = [], np.zeros(1, dtype=np.intp)
    while level.size:
        inner = level[n_children[level] > 0]
        if inner.size:
            levels.append(inner)
        level = children[_child_positions(indptr, inner)]
    return levels


def _fill_inner_values(value, indptr, children, weight):
    """Writes every inner node's value as the weighted mean of its children's,
    from the deepest inner nodes up."""
    n_children = np.diff(indptr)
    for inner in reversed(_inner_levels(indptr, children)):
        below = children[_child_positions(indptr, inner)]
        sums = np.zeros((inner.size, value.shape[1]))
        np.add.at(sums, np.repeat(np.arange(inner.size), n_children[inner]),
                  weight[below, None] * value[below])
        value[inner] = sums / weight[inner, None]


def _child_positions(indptr, nodes):
    """Where the children of ``nodes`` lie in a children list, node by node."""
    counts = indptr[nodes + 1] - indptr[nodes]
    return (np.repeat(indptr[nodes] - np.cumsum(counts) + counts, counts)
            + np.arange(counts.sum()))


def rule_impurity(rule, fractions):
    """Every node's impurity from its class fractions: the mean over the
    outputs (``fractions``: one (node_count, n_classes) array per output) of
    the Gini impurity, the entropy (bits) or the misclassification rate."""
    total = 0.0
    for share in fractions:
        if rule == "gini":
            total = total + (1.0 - np.einsum("ij,ij->i", share, share))
        elif rule == "entropy":
            with np.errstate(divide="ignore", invalid="ignore"):
                terms = np.where(share > 0.0, share * np.log2(share), 0.0)
            total = total - terms.sum(axis=1)
        else:
            total = total + (1.0 - share.max(axis=1))
    return np.maximum(total / len(fractions), 0.0)


IMPURITY_RULES = ("gini", "entropy", "misclassification", "squared_error")



def sparse_rows(dense, rows=None):
    """The non-zero entries of ``dense[rows]`` (all rows by default), row by row:
    (indptr, index, data); see ``fasttree._utils.sparse_rows``."""
    dense = np.ascontiguousarray(dense, dtype=np.float64)
    if rows is None:
        rows = np.arange(dense.shape[0], dtype=np.intp)
    return sparse_rows_of(dense, np.ascontiguousarray(rows, dtype=np.intp))


def dense_rows(indptr, index, data, n_columns):
    """The 2-D array of ``sparse_rows``' output."""
    n_rows = indptr.shape[0] - 1
    dense = np.zeros((n_rows, n_columns), dtype=np.float64)
    rows = np.repeat(np.arange(n_rows), np.diff(indptr))
    dense[rows, index.astype(np.intp)] = data
    return dense


def select_rows(indptr, index, data, rows, n_columns):
    """The sparse rows ``rows`` (ascending or not) of (indptr, index, data), in
    ``sparse_rows``' dtypes for a matrix of ``n_columns`` columns."""
    return select_sparse_rows(np.ascontiguousarray(indptr, dtype=np.int64),
                              np.ascontiguousarray(index, dtype=np.int32),
                              np.ascontiguousarray(data, dtype=np.float64),
                              np.ascontiguousarray(rows, dtype=np.intp), n_columns)


