"""C4.5-style trees: one child per category of a categorical feature, binary
thresholds on numeric ones, information gain or gain ratio, and missing
values sent to one learnt child or spread fractionally over all children.

Each node's candidates come from the compiled ``_multiway.CandidateSearch``;
this module chooses among them by C4.5's rules (those of
``fasttree.reference.c45``), splits the node's rows and weights, and lays
the tree out in the node store's arrays (multiway nodes with branch tables,
see ``_tree.pxd``).
``_multiway_trees`` walks and prunes the fitted trees.
"""

import numpy as np

from ._interrupt import current_interrupt
from ._multiway import CandidateSearch
from ._tree import (FLAG_MISSING_LEFT, FLAG_MISSING_SEEN, FLAG_MULTIWAY, FLAG_THRESHOLD,
                    NODE_DTYPE)

# Gains within this of the average count as reaching it, and gains at most
# this are no gain: sums of logarithms in another order differ in the last bits.
GAIN_SLACK = 1e-12
NO_BRANCH = 0xFFFFFFFF


def _entropy(class_weights):
    total = class_weights.sum()
    if total <= 0:
        return 0.0
    shares = class_weights / total
    shares = shares[shares > 0]  # a positive weight's share may round to 0
    return float(-np.sum(shares * np.log2(shares)))


def choose(candidates, criterion, min_weight_leaf):
    """The candidate C4.5 splits on, or None.

    Candidates of positive gain whose children all keep ``min_weight_leaf``
    are allowed; with gain ratio only those whose gain reaches the average
    of the features' best gains compete; the largest score wins, the first
    on ties.
    """
    allowed = [c for c in candidates if c[3] > GAIN_SLACK and c[5] >= min_weight_leaf]
    if criterion == "gain_ratio" and allowed:
        best_gain = {}
        for candidate in allowed:
            best_gain[candidate[0]] = max(best_gain.get(candidate[0], 0.0), candidate[3])
        average = sum(best_gain.values()) / len(best_gain)
        allowed = [c for c in allowed if c[3] >= average - GAIN_SLACK]
    best, best_score = None, None
    for candidate in allowed:
        gain, information = candidate[3], candidate[4]
        score = gain if criterion == "entropy" else (
            gain / information if information > 0 else -np.inf)
        if best is None or score > best_score:
            best, best_score = candidate, score
    return best


def grow_multiway_tree(X, ranked, class_index, sample_weight, n_classes, categories, *,
                       criterion, fractional, max_depth, min_samples_split, min_weight_leaf,
                       max_features=None, seed=0):
    """Grow a C4.5-style tree depth-first, children numbered in order.

    Parameters
    ----------
    X : ndarray of float32
        Numbers and category codes, NaN for missing values.
    ranked : RankedFeatures
        ``rank_features(X)``.
    class_index : ndarray of int32
    sample_weight : ndarray of float64
    n_classes : int
    categories : ndarray of intp or None
        Per feature its number of codes (0: numeric); None when all are numeric.
    criterion : {'entropy', 'gain_ratio'}
    fractional : bool
        C4.5's fractional missing values (else each split's missing values
        join one learnt child: the best, or the heaviest when the node had none).
    max_depth, min_samples_split : int
    min_weight_leaf : float
    max_features : int or None
        Features drawn at random at each node (all when None or all of them),
        counting only those that can split it.
    seed : int
        Seed of those draws.

    Returns
    -------
    dict
        The Tree arrays, plus ``branch_fractions`` and ``fraction_offsets``
        (every inner node's children's shares of its known weight, for
        fractional prediction).
    """
    class_index = np.ascontiguousarray(class_index, dtype=np.int32)
    n_features = X.shape[1]
    used_none = np.zeros(n_features, dtype=np.int8)
    all_features = np.arange(n_features, dtype=np.intp)
    draw = max_features is not None and max_features < n_features
    rng = np.random.default_rng(seed)
    if categories is None:
        categories = np.zeros(n_features, dtype=np.intp)
    search = CandidateSearch(ranked, np.ascontiguousarray(categories, dtype=np.intp),
                             class_index, n_classes, fractional)
    nodes = []
    present = np.flatnonzero(sample_weight > 0)
    stack = [(present, sample_weight[present], 0, used_none, -1, 0)]
    # On a worker thread of an ensemble, Ctrl-C reaches this loop only as a
    # stop request.
    interrupt = current_interrupt()
    while stack:
        interrupt.check()
        rows, weights, depth, used, parent, slot = stack.pop()
        node_id = len(nodes)
        value = np.bincount(class_index[rows], weights=weights, minlength=n_classes)
        node = {"rows": rows.size, "weight": float(weights.sum()), "value": value,
                "impurity": _entropy(value), "split": None, "children": [], "depth": depth}
        nodes.append(node)
        if parent >= 0:
            nodes[parent]["children"][slot] = node_id
        if (np.count_nonzero(value) <= 1 or depth >= max_depth
                or rows.size < min_samples_split):
            continue
        # A forest's features are drawn in random order until max_features of
        # them can split the node (as the binary splitter draws); their
        # candidates then compete in feature order, as without a draw.
        candidates = search.candidates(
            used, np.ascontiguousarray(rows, dtype=np.intp),
            np.ascontiguousarray(weights, dtype=np.float64),
            rng.permutation(n_features).astype(np.intp) if draw else all_features,
            max_features if draw else -1)
        if draw:
            candidates.sort(key=lambda candidate: candidate[0])
        best = choose(candidates, criterion, min_weight_leaf)
        if best is None:
            continue
        feature, threshold, missing_child = best[0], best[1], best[2]
        column = X[rows, feature]
        known = ~np.isnan(column)
        if threshold is None:
            codes = np.unique(column[known]).astype(np.int64)
            child_of = np.full(rows.size, -1, dtype=np.intp)
            child_of[known] = np.searchsorted(codes, column[known])
        else:
            codes = None
            child_of = np.where(known, (column > threshold).astype(np.intp), -1)
        n_children = 2 if codes is None else codes.size
        known_weights = np.bincount(child_of[known], weights=weights[known],
                                    minlength=n_children)
        fractions = known_weights / known_weights.sum()
        seen = not known.all()
        if missing_child is None:
            # Fractional, or no missing values here: the heaviest child (the
            # first on ties) is where the walk sends them.
            missing_child = int(np.argmax(fractions))
        node["split"] = (feature, threshold, codes, missing_child, fractions, seen)
        node["children"] = [-1] * n_children
        below = used
        if codes is not None:
            below = used.copy()
            below[feature] = 1
        for child in reversed(range(n_children)):
            if fractional:
                joins = (child_of == child) | ~known
                child_weights = np.where(known, weights, weights * fractions[child])[joins]
            else:
                joins = (child_of == child) | (~known & (missing_child == child))
                child_weights = weights[joins]
            stack.append((rows[joins], child_weights, depth + 1, below, node_id, child))
    return _arrays(nodes, categories, fractional)


def _arrays(nodes, categories, fractional):
    """The node store's arrays of a grown tree."""
    count = len(nodes)
    records = np.zeros(count, dtype=NODE_DTYPE)
    records["left_child"] = records["right_child"] = -1
    records["feature"] = -2
    records["threshold"] = -2.0
    flags = np.zeros(count, dtype=np.uint8)
    words = []
    fraction_offsets = np.zeros(count + 1, dtype=np.int64)
    branch_fractions = []
    for node_id, node in enumerate(nodes):
        split = node["split"]
        fraction_offsets[node_id + 1] = fraction_offsets[node_id]
        if split is None:
            continue
        feature, threshold, codes, missing_child, fractions, seen = split
        children = node["children"]
        records["left_child"][node_id] = children[0]
        records["right_child"][node_id] = children[-1]
        records["feature"][node_id] = feature
        branch_fractions.extend(fractions.tolist())
        fraction_offsets[node_id + 1] += len(children)
        if codes is None:
            records["threshold"][node_id] = threshold
            flags[node_id] = FLAG_THRESHOLD | (FLAG_MISSING_LEFT if missing_child == 0 else 0)
        else:
            n_codes = int(categories[feature])
            branch = np.full(n_codes, NO_BRANCH, dtype=np.uint32)
            branch[codes] = np.arange(codes.size, dtype=np.uint32)
            records["threshold"][node_id:node_id + 1].view(np.int32)[0] = len(words)
            words += [n_codes, len(children), missing_child, *children, *branch.tolist()]
            flags[node_id] = FLAG_MULTIWAY
        if seen:
            flags[node_id] |= FLAG_MISSING_SEEN
    values = np.array([node["value"] for node in nodes])
    totals = values.sum(axis=1, keepdims=True)
    arrays = {
        "nodes": records,
        "flags": flags,
        "category_bits": np.array(words, dtype=np.uint32),
        "impurity": np.array([node["impurity"] for node in nodes]),
        "n_node_samples": np.array([node["rows"] for node in nodes], dtype=np.int64),
        "weighted_n_node_samples": np.array([node["weight"] for node in nodes]),
        "value": np.divide(values, totals, out=np.zeros_like(values), where=totals > 0),
        "max_depth": max(node["depth"] for node in nodes),
    }
    if fractional:
        arrays["branch_fractions"] = np.array(branch_fractions, dtype=np.float64)
        arrays["fraction_offsets"] = fraction_offsets
    return arrays
