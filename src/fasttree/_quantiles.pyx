# cython: language_level=3
"""Quantile regression forests (Meinshausen, 2006): for each row, the
weighted quantiles, mean and quantile ranks of the training targets in the
row's leaves, every tree weighing 1 in all, shared among its leaf's entries
in proportion to their weights. A row's quantiles come from its leaves'
entries merged by one sort on (rank, tree) (``_utils.sort_items``) and
walked up to the largest quantile asked: no weight per training row is
ever materialised.

Positions. The merged entries ``1..m`` (ascending target, ties in tree
order), of weights ``w_i`` (an entry's weight over its leaf's total, or
its own weight: ``LeafLists.tree_weighted``) and running sums ``S_i``, sit
at positions ``P_i = (S_{i-1} + w_i / 2 - w_1 / 2) / (T - (w_1 + w_m) / 2)``,
``T`` the total weight (the number of trees that count, when each weighs
1): the middle of each entry's share of the weight, stretched so that the
first sits at 0 and the last at 1. With equal weights
``P_i = (i - 1) / (m - 1)``, numpy's default ``linear`` quantile. A quantile
``q`` between ``P_i`` and ``P_{i+1}`` is read as ``Interpolation`` says.
``fasttree.reference.quantile_forest`` computes the same numbers in the same
order, in Python."""

from libc.math cimport NAN
from libc.stdint cimport int64_t, uint32_t, uint64_t
from libc.stdlib cimport free, malloc, realloc

from ._utils cimport intp_t, item_position, item_rank, pack_item, sort_items


cdef inline LeafLists leaf_lists(const int64_t[::1] starts, const uint32_t[::1] entries,
                                 const double[::1] targets, const double[::1] rank_weights,
                                 bint tree_weighted):
    cdef LeafLists lists
    if starts.shape[0] < 1 or starts[starts.shape[0] - 1] != entries.shape[0]:
        raise ValueError(f"leaf lists disagree: the last of {starts.shape[0]} starts is not "
                         f"the {entries.shape[0]} entries")
    if rank_weights.shape[0] not in (0, targets.shape[0]):
        raise ValueError(f"{rank_weights.shape[0]} rank weights for {targets.shape[0]} targets")
    lists.starts = &starts[0]
    lists.entries = &entries[0] if entries.shape[0] else NULL
    lists.targets = &targets[0] if targets.shape[0] else NULL
    lists.rank_weights = &rank_weights[0] if rank_weights.shape[0] else NULL
    lists.n_leaves = starts.shape[0] - 1
    lists.tree_weighted = tree_weighted
    return lists


cdef inline double entry_weight(const LeafLists* lists, int64_t entry) noexcept nogil:
    if lists.rank_weights == NULL:
        return 1.0
    return lists.rank_weights[lists.entries[entry]]


cdef inline double leaf_total(const LeafLists* lists, int64_t start, int64_t stop) noexcept nogil:
    """The weight of a leaf's entries, summed in list order."""
    cdef double total = 0.0
    cdef int64_t entry
    if lists.rank_weights == NULL:
        return <double> (stop - start)
    for entry in range(start, stop):
        total += lists.rank_weights[lists.entries[entry]]
    return total


cdef inline double leaf_share(const LeafLists* lists, double total) noexcept nogil:
    """What a leaf's entry weights are divided by: its total weight when each
    tree weighs 1, else 1 (its entries weigh their own weights)."""
    return total if lists.tree_weighted else 1.0


cdef inline bint leaf_of(const LeafLists* lists, double leaf_number, int64_t* start,
                         int64_t* stop) noexcept nogil:
    """The entries of the leaf a row reached in one tree; False when the tree
    does not count for the row (a negative number: the row was in its bag)
    or its leaf kept no entries."""
    cdef int64_t leaf
    if not (leaf_number >= 0 and leaf_number < lists.n_leaves):
        return False
    leaf = <int64_t> leaf_number
    start[0] = lists.starts[leaf]
    stop[0] = lists.starts[leaf + 1]
    return stop[0] > start[0]


# A row's entries gathered from its leaves, as sort items: the rank in the
# high half, the tree in the low half (the trees in order, so that equal
# ranks sort by tree), and the buffers they are sorted with.
cdef struct Gather:
    uint64_t* items               # the row's entries, then sorted
    uint64_t* scratch             # the sort's second buffer
    intp_t capacity               # items either buffer holds
    double* leaf_weight           # per tree, what its leaf's entry weights are divided by
    double* tree_quantiles        # one tree's quantiles (row_tree_quantiles)
    int rank_bits                 # significant bits of the largest rank


cdef int reserve(Gather* gather, intp_t n_items) noexcept nogil:
    """Room for ``n_items`` items in both buffers; -1 when memory ran out."""
    cdef intp_t capacity
    cdef uint64_t* grown
    if n_items <= gather.capacity:
        return 0
    capacity = max(n_items, 2 * gather.capacity)
    grown = <uint64_t*> realloc(gather.items, capacity * sizeof(uint64_t))
    if grown == NULL:
        return -1
    gather.items = grown
    grown = <uint64_t*> realloc(gather.scratch, capacity * sizeof(uint64_t))
    if grown == NULL:
        return -1
    gather.scratch = grown
    gather.capacity = capacity
    return 0


cdef int gather_row(const LeafLists* lists, Gather* gather, const double* row_leaves,
                    intp_t n_trees, double* total_weight, uint64_t** sorted_items) noexcept nogil:
    """Sort the row's entries by (rank, tree); returns their number, or -1
    when memory ran out. Sets the total weight of the entries, summed tree
    by tree (exactly the trees that count, when each tree weighs 1)."""
    cdef intp_t tree, n_items = 0
    cdef int64_t start, stop, entry
    cdef double leaf_weight
    total_weight[0] = 0.0
    for tree in range(n_trees):
        if leaf_of(lists, row_leaves[tree], &start, &stop):
            n_items += stop - start
    if reserve(gather, n_items) < 0:
        return -1
    n_items = 0
    for tree in range(n_trees):
        if not leaf_of(lists, row_leaves[tree], &start, &stop):
            continue
        leaf_weight = leaf_total(lists, start, stop)
        gather.leaf_weight[tree] = leaf_share(lists, leaf_weight)
        total_weight[0] += leaf_weight / gather.leaf_weight[tree]
        for entry in range(start, stop):
            gather.items[n_items] = pack_item(lists.entries[entry], <uint32_t> tree)
            n_items += 1
    sorted_items[0] = sort_items(gather.items, gather.scratch, n_items, gather.rank_bits)
    return n_items


cdef inline double item_weight(const LeafLists* lists, const Gather* gather,
                               uint64_t item) noexcept nogil:
    cdef double weight = 1.0
    if lists.rank_weights != NULL:
        weight = lists.rank_weights[item_rank(item)]
    return weight / gather.leaf_weight[item_position(item)]


cdef inline double interpolated(double low, double high, double fraction,
                                int interpolation) noexcept nogil:
    if fraction <= 0.0:
        return low
    if interpolation == LOWER:
        return low
    if interpolation == HIGHER:
        return high
    if interpolation == MIDPOINT:
        return 0.5 * (low + high)
    if interpolation == NEAREST:
        return high if fraction > 0.5 else low
    return low + (high - low) * fraction


cdef void walk_quantiles(const LeafLists* lists, const Gather* gather, const uint64_t* items,
                         intp_t n_items, double total_weight, const double* quantiles,
                         intp_t n_quantiles, int interpolation, double* out) noexcept nogil:
    """The quantiles of ``n_items`` >= 1 sorted entries of ``total_weight``."""
    cdef double first, scale, value, position, running, next_weight, next_position
    cdef intp_t k, i = 0
    first = item_weight(lists, gather, items[0])
    scale = total_weight - 0.5 * (first + item_weight(lists, gather, items[n_items - 1]))
    value = lists.targets[item_rank(items[0])]
    running = first  # the weight up to and with entry i
    position = 0.0
    for k in range(n_quantiles):
        while i + 1 < n_items:
            next_weight = item_weight(lists, gather, items[i + 1])
            next_position = (running + 0.5 * next_weight - 0.5 * first) / scale
            if next_position > quantiles[k]:
                break
            i += 1
            value = lists.targets[item_rank(items[i])]
            position = next_position
            running += next_weight
        if i + 1 == n_items:
            out[k] = value  # at or past the last entry
        else:
            out[k] = interpolated(value, lists.targets[item_rank(items[i + 1])],
                                  (quantiles[k] - position) / (next_position - position),
                                  interpolation)


cdef int row_quantiles(const LeafLists* lists, Gather* gather, const double* row_leaves,
                       intp_t n_trees, const double* quantiles, intp_t n_quantiles,
                       int interpolation, double* out) noexcept nogil:
    """The quantiles of the row's leaves' entries pooled."""
    cdef double total_weight
    cdef intp_t n_items, k
    cdef uint64_t* items
    n_items = gather_row(lists, gather, row_leaves, n_trees, &total_weight, &items)
    if n_items < 0:
        return -1
    if n_items == 0:
        for k in range(n_quantiles):
            out[k] = NAN
        return 0
    walk_quantiles(lists, gather, items, n_items, total_weight, quantiles, n_quantiles,
                   interpolation, out)
    return 0


cdef int row_tree_quantiles(const LeafLists* lists, Gather* gather, const double* row_leaves,
                            intp_t n_trees, const double* quantiles, intp_t n_quantiles,
                            int interpolation, double* out) noexcept nogil:
    """The mean over the trees that count of each tree's quantiles of its
    leaf's entries (already in rank order), summed in tree order."""
    cdef intp_t tree, k, n_items, n_counted = 0
    cdef int64_t start, stop, entry
    cdef double leaf_weight
    for k in range(n_quantiles):
        out[k] = 0.0
    for tree in range(n_trees):
        if not leaf_of(lists, row_leaves[tree], &start, &stop):
            continue
        n_items = stop - start
        if reserve(gather, n_items) < 0:
            return -1
        for entry in range(start, stop):
            gather.items[entry - start] = pack_item(lists.entries[entry], <uint32_t> tree)
        leaf_weight = leaf_total(lists, start, stop)
        gather.leaf_weight[tree] = leaf_share(lists, leaf_weight)
        walk_quantiles(lists, gather, gather.items, n_items,
                       leaf_weight / gather.leaf_weight[tree], quantiles, n_quantiles,
                       interpolation, gather.tree_quantiles)
        for k in range(n_quantiles):
            out[k] += gather.tree_quantiles[k]
        n_counted += 1
    for k in range(n_quantiles):
        out[k] = out[k] / n_counted if n_counted else NAN
    return 0


cdef int allocate_gather(Gather* gather, intp_t n_trees, intp_t n_targets,
                         intp_t n_quantiles) noexcept nogil:
    gather.capacity = max(n_trees, 1)
    gather.items = <uint64_t*> malloc(gather.capacity * sizeof(uint64_t))
    gather.scratch = <uint64_t*> malloc(gather.capacity * sizeof(uint64_t))
    gather.leaf_weight = <double*> malloc(max(n_trees, 1) * sizeof(double))
    gather.tree_quantiles = <double*> malloc(max(n_quantiles, 1) * sizeof(double))
    gather.rank_bits = 1
    while gather.rank_bits < 32 and (<int64_t> 1) << gather.rank_bits < n_targets:
        gather.rank_bits += 1
    if (gather.items == NULL or gather.scratch == NULL or gather.leaf_weight == NULL
            or gather.tree_quantiles == NULL):
        free_gather(gather)
        return -1
    return 0


cdef void free_gather(Gather* gather) noexcept nogil:
    free(gather.items)
    free(gather.scratch)
    free(gather.leaf_weight)
    free(gather.tree_quantiles)
    gather.tree_quantiles = NULL
    gather.items = NULL
    gather.scratch = NULL
    gather.leaf_weight = NULL


def forest_quantiles(const int64_t[::1] starts not None, const uint32_t[::1] entries not None,
                     const double[::1] targets not None, const double[::1] rank_weights not None,
                     bint tree_weighted, bint pooled, const double[::1] quantiles not None,
                     int interpolation, const double[:, ::1] row_leaves not None,
                     double[:, ::1] out not None):
    """Each row's weighted quantiles of the targets in its leaves.

    Parameters
    ----------
    starts, entries, targets, rank_weights : ndarray
        The leaf lists of one output (see ``LeafLists``); ``rank_weights``
        empty when every entry weighs 1.
    tree_weighted : bool
        See ``LeafLists.tree_weighted``.
    pooled : bool
        The quantiles of the row's leaves' entries pooled (quantile-forest's
        ``aggregate_leaves_first``), else the mean over the trees of each
        tree's quantiles of its leaf.
    quantiles : ndarray of float64
        In ``[0, 1]``, ascending.
    interpolation : int
        An ``Interpolation``.
    row_leaves : ndarray of float64, shape (n_rows, n_trees)
        Each row's leaf number in every tree (negative: the tree does not
        count for the row).
    out : ndarray of float64, shape (n_rows, n_quantiles)
        NaN for a row no tree counts for.

    Returns
    -------
    int
        0 (a status, as ``map_rows`` expects).
    """
    cdef LeafLists lists = leaf_lists(starts, entries, targets, rank_weights, tree_weighted)
    cdef Gather gather
    cdef intp_t row, n_rows = row_leaves.shape[0], n_trees = row_leaves.shape[1]
    cdef intp_t n_quantiles = quantiles.shape[0]
    cdef int status = 0
    if out.shape[0] != n_rows or out.shape[1] != n_quantiles:
        raise ValueError(f"out is {out.shape[0]} x {out.shape[1]}, not {n_rows} x {n_quantiles}")
    if n_rows == 0 or n_quantiles == 0:
        return 0
    with nogil:
        status = allocate_gather(&gather, n_trees, targets.shape[0], n_quantiles)
        row = 0
        while status == 0 and row < n_rows:
            if pooled:
                status = row_quantiles(&lists, &gather, &row_leaves[row, 0], n_trees,
                                       &quantiles[0], n_quantiles, interpolation, &out[row, 0])
            else:
                status = row_tree_quantiles(&lists, &gather, &row_leaves[row, 0], n_trees,
                                            &quantiles[0], n_quantiles, interpolation,
                                            &out[row, 0])
            row += 1
        free_gather(&gather)
    if status < 0:
        raise MemoryError()
    return 0


def forest_means(const int64_t[::1] starts not None, const uint32_t[::1] entries not None,
                 const double[::1] targets not None, const double[::1] rank_weights not None,
                 bint tree_weighted, const double[:, ::1] row_leaves not None,
                 double[:, ::1] out not None):
    """Each row's weighted mean of the targets in its leaves, into ``out[:, 0]``:
    per tree the leaf's weighted sum over its share (see ``leaf_share``),
    summed in tree order over the trees that count, divided by their total
    weight likewise summed (NaN: no tree counts). Arguments as
    :func:`forest_quantiles`."""
    cdef LeafLists lists = leaf_lists(starts, entries, targets, rank_weights, tree_weighted)
    cdef intp_t row, tree, n_rows = row_leaves.shape[0], n_trees = row_leaves.shape[1]
    cdef int64_t start, stop, entry
    cdef double total, total_weight, leaf_sum, leaf_weight, share
    if out.shape[0] != n_rows or out.shape[1] != 1:
        raise ValueError(f"out is {out.shape[0]} x {out.shape[1]}, not {n_rows} x 1")
    with nogil:
        for row in range(n_rows):
            total = 0.0
            total_weight = 0.0
            for tree in range(n_trees):
                if not leaf_of(&lists, row_leaves[row, tree], &start, &stop):
                    continue
                leaf_sum = 0.0
                for entry in range(start, stop):
                    leaf_sum += entry_weight(&lists, entry) * lists.targets[lists.entries[entry]]
                leaf_weight = leaf_total(&lists, start, stop)
                share = leaf_share(&lists, leaf_weight)
                total += leaf_sum / share
                total_weight += leaf_weight / share
            out[row, 0] = total / total_weight if total_weight > 0 else NAN
    return 0


def forest_quantile_ranks(const int64_t[::1] starts not None,
                          const uint32_t[::1] entries not None,
                          const double[::1] targets not None,
                          const double[::1] rank_weights not None, bint tree_weighted,
                          int kind,
                          const double[:, ::1] row_leaves not None, double[:, ::1] out not None):
    """Each row's quantile rank of a value among the targets in its leaves.

    ``out[:, 0]`` holds the values on entry and their ranks on return: the
    weight of the entries below (``RANK_STRICT``) or at most (``RANK_WEAK``)
    the value, per tree over its share (see ``leaf_share``), summed in tree
    order over the trees that count and divided by their total weight
    likewise summed; their mean
    (``RANK_MEAN``); or that mean plus half the mean weight of the entries
    equal to the value (``RANK``: scipy's ``percentileofscore`` with equal
    weights). NaN for a row no tree counts for. Other arguments as
    :func:`forest_quantiles`.
    """
    cdef LeafLists lists = leaf_lists(starts, entries, targets, rank_weights, tree_weighted)
    cdef intp_t row, tree, n_rows = row_leaves.shape[0], n_trees = row_leaves.shape[1]
    cdef int64_t start, stop, entry, n_equal
    cdef double value, target, weak, strict, leaf_weak, leaf_strict, weight, leaf_weight
    cdef double share, total_weight
    if out.shape[0] != n_rows or out.shape[1] != 1:
        raise ValueError(f"out is {out.shape[0]} x {out.shape[1]}, not {n_rows} x 1")
    with nogil:
        for row in range(n_rows):
            value = out[row, 0]
            weak = 0.0
            strict = 0.0
            n_equal = 0
            total_weight = 0.0
            for tree in range(n_trees):
                if not leaf_of(&lists, row_leaves[row, tree], &start, &stop):
                    continue
                leaf_weak = 0.0
                leaf_strict = 0.0
                for entry in range(start, stop):
                    target = lists.targets[lists.entries[entry]]
                    if target > value:
                        break
                    weight = entry_weight(&lists, entry)
                    leaf_weak += weight
                    if target < value:
                        leaf_strict += weight
                    else:
                        n_equal += 1
                leaf_weight = leaf_total(&lists, start, stop)
                share = leaf_share(&lists, leaf_weight)
                weak += leaf_weak / share
                strict += leaf_strict / share
                total_weight += leaf_weight / share
            if total_weight <= 0 or value != value:
                out[row, 0] = NAN
                continue
            weak /= total_weight
            strict /= total_weight
            if kind == RANK_WEAK:
                out[row, 0] = weak
            elif kind == RANK_STRICT:
                out[row, 0] = strict
            elif kind == RANK_MEAN:
                out[row, 0] = 0.5 * (weak + strict)
            else:
                out[row, 0] = 0.5 * (weak + strict) + (
                    0.5 * (weak - strict) / n_equal if n_equal else 0.0)
    return 0
