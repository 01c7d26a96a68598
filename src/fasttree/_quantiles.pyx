# cython: language_level=3
"""Quantile regression forests (Meinshausen, 2006): for each row, the
weighted quantiles, mean and quantile ranks of the training targets in the
row's leaves, every tree weighing 1 in all, shared among its leaf's entries
in proportion to their weights. A row's quantiles come from one merge of its
leaves' sorted lists (a heap over the trees), stopped at the largest
quantile asked: no weight per training row is ever materialised.

Positions. The merged entries ``1..m`` (ascending target, ties in tree
order), of weights ``w_i`` (an entry's weight over its leaf's total) and
running sums ``S_i``, sit at positions
``P_i = (S_{i-1} + w_i / 2 - w_1 / 2) / (T - (w_1 + w_m) / 2)``, ``T`` the
number of trees that count: the middle of each entry's share of the weight,
stretched so that the first sits at 0 and the last at 1. With equal weights
``P_i = (i - 1) / (m - 1)``, numpy's default ``linear`` quantile. A quantile
``q`` between ``P_i`` and ``P_{i+1}`` is read as ``Interpolation`` says.
``fasttree.reference.quantile_forest`` computes the same numbers in the same
order, in Python."""

from libc.math cimport NAN
from libc.stdint cimport int64_t, uint32_t
from libc.stdlib cimport free, malloc

from ._utils cimport intp_t


cdef inline LeafLists leaf_lists(const int64_t[::1] starts, const uint32_t[::1] entries,
                                 const double[::1] targets, const double[::1] rank_weights):
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


# The merge: a binary heap of trees, ordered by (rank of the tree's next
# entry, tree).
cdef struct Merge:
    intp_t* heap                  # trees with entries left, a heap
    intp_t size                   # trees in the heap
    int64_t* position             # per tree, its next entry
    int64_t* stop                 # per tree, the end of its leaf's entries
    double* leaf_weight           # per tree, its leaf's total weight


cdef inline bint merge_before(const LeafLists* lists, const Merge* merge, intp_t a,
                              intp_t b) noexcept nogil:
    cdef uint32_t rank_a = lists.entries[merge.position[a]]
    cdef uint32_t rank_b = lists.entries[merge.position[b]]
    return rank_a < rank_b or (rank_a == rank_b and a < b)


cdef inline void sift_down(const LeafLists* lists, Merge* merge, intp_t slot) noexcept nogil:
    cdef intp_t child, tree = merge.heap[slot]
    while True:
        child = 2 * slot + 1
        if child >= merge.size:
            break
        if child + 1 < merge.size and merge_before(lists, merge, merge.heap[child + 1],
                                                   merge.heap[child]):
            child += 1
        if not merge_before(lists, merge, merge.heap[child], tree):
            break
        merge.heap[slot] = merge.heap[child]
        slot = child
    merge.heap[slot] = tree


cdef inline void advance(const LeafLists* lists, Merge* merge) noexcept nogil:
    """Drop the heap's first entry: its tree moves to its next entry."""
    cdef intp_t tree = merge.heap[0]
    merge.position[tree] += 1
    if merge.position[tree] == merge.stop[tree]:
        merge.size -= 1
        merge.heap[0] = merge.heap[merge.size]
    if merge.size > 0:
        sift_down(lists, merge, 0)


cdef inline double first_weight(const LeafLists* lists, const Merge* merge) noexcept nogil:
    """The weight of the heap's first entry."""
    cdef intp_t tree = merge.heap[0]
    return entry_weight(lists, merge.position[tree]) / merge.leaf_weight[tree]


cdef inline double first_value(const LeafLists* lists, const Merge* merge) noexcept nogil:
    return lists.targets[lists.entries[merge.position[merge.heap[0]]]]


cdef intp_t start_merge(const LeafLists* lists, Merge* merge, const double* row_leaves,
                        intp_t n_trees, double* last_weight) noexcept nogil:
    """Fill the heap with the row's leaves; returns the trees that count and
    sets the weight of the last entry of the merge."""
    cdef intp_t tree, last_tree = -1, slot
    cdef int64_t start, stop
    cdef uint32_t last_rank = 0
    merge.size = 0
    for tree in range(n_trees):
        if not leaf_of(lists, row_leaves[tree], &start, &stop):
            continue
        merge.position[tree] = start
        merge.stop[tree] = stop
        merge.leaf_weight[tree] = leaf_total(lists, start, stop)
        merge.heap[merge.size] = tree
        merge.size += 1
        # The merge ends on the largest rank, the last tree among equals.
        if last_tree < 0 or lists.entries[stop - 1] >= last_rank:
            last_rank = lists.entries[stop - 1]
            last_tree = tree
    if last_tree >= 0:
        last_weight[0] = (entry_weight(lists, merge.stop[last_tree] - 1)
                          / merge.leaf_weight[last_tree])
    slot = merge.size // 2
    while slot > 0:
        slot -= 1
        sift_down(lists, merge, slot)
    return merge.size


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


cdef void row_quantiles(const LeafLists* lists, Merge* merge, const double* row_leaves,
                        intp_t n_trees, const double* quantiles, intp_t n_quantiles,
                        int interpolation, double* out) noexcept nogil:
    cdef double last_weight = 0.0, first, scale, weight, value, position
    cdef double running, next_weight, next_position, fraction
    cdef intp_t n_counted, k
    n_counted = start_merge(lists, merge, row_leaves, n_trees, &last_weight)
    if n_counted == 0:
        for k in range(n_quantiles):
            out[k] = NAN
        return
    first = first_weight(lists, merge)
    value = first_value(lists, merge)
    scale = <double> n_counted - 0.5 * (first + last_weight)
    running = first  # the weight up to and with the current entry
    position = 0.0
    advance(lists, merge)
    for k in range(n_quantiles):
        while merge.size > 0:
            next_weight = first_weight(lists, merge)
            next_position = (running + 0.5 * next_weight - 0.5 * first) / scale
            if next_position > quantiles[k]:
                break
            value = first_value(lists, merge)
            position = next_position
            running += next_weight
            advance(lists, merge)
        if merge.size == 0:
            out[k] = value  # at or past the last entry
        else:
            fraction = (quantiles[k] - position) / (next_position - position)
            out[k] = interpolated(value, first_value(lists, merge), fraction, interpolation)


cdef int allocate_merge(Merge* merge, intp_t n_trees) noexcept nogil:
    merge.heap = <intp_t*> malloc(max(n_trees, 1) * sizeof(intp_t))
    merge.position = <int64_t*> malloc(max(n_trees, 1) * sizeof(int64_t))
    merge.stop = <int64_t*> malloc(max(n_trees, 1) * sizeof(int64_t))
    merge.leaf_weight = <double*> malloc(max(n_trees, 1) * sizeof(double))
    if (merge.heap == NULL or merge.position == NULL or merge.stop == NULL
            or merge.leaf_weight == NULL):
        free_merge(merge)
        return -1
    return 0


cdef void free_merge(Merge* merge) noexcept nogil:
    free(merge.heap)
    free(merge.position)
    free(merge.stop)
    free(merge.leaf_weight)
    merge.heap = NULL
    merge.position = NULL
    merge.stop = NULL
    merge.leaf_weight = NULL


def forest_quantiles(const int64_t[::1] starts not None, const uint32_t[::1] entries not None,
                     const double[::1] targets not None, const double[::1] rank_weights not None,
                     const double[::1] quantiles not None, int interpolation,
                     const double[:, ::1] row_leaves not None, double[:, ::1] out not None):
    """Each row's weighted quantiles of the targets in its leaves.

    Parameters
    ----------
    starts, entries, targets, rank_weights : ndarray
        The leaf lists of one output (see ``LeafLists``); ``rank_weights``
        empty when every entry weighs 1.
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
    cdef LeafLists lists = leaf_lists(starts, entries, targets, rank_weights)
    cdef Merge merge
    cdef intp_t row, n_rows = row_leaves.shape[0], n_trees = row_leaves.shape[1]
    cdef intp_t n_quantiles = quantiles.shape[0]
    if out.shape[0] != n_rows or out.shape[1] != n_quantiles:
        raise ValueError(f"out is {out.shape[0]} x {out.shape[1]}, not {n_rows} x {n_quantiles}")
    if n_rows == 0 or n_quantiles == 0:
        return 0
    with nogil:
        if allocate_merge(&merge, n_trees) < 0:
            with gil:
                raise MemoryError()
        for row in range(n_rows):
            row_quantiles(&lists, &merge, &row_leaves[row, 0], n_trees, &quantiles[0],
                          n_quantiles, interpolation, &out[row, 0])
        free_merge(&merge)
    return 0


def forest_means(const int64_t[::1] starts not None, const uint32_t[::1] entries not None,
                 const double[::1] targets not None, const double[::1] rank_weights not None,
                 const double[:, ::1] row_leaves not None, double[:, ::1] out not None):
    """Each row's weighted mean of the targets in its leaves, into ``out[:, 0]``:
    per tree the leaf's weighted sum over its total weight, summed in tree
    order over the trees that count, divided by their number (NaN: none).
    Arguments as :func:`forest_quantiles`."""
    cdef LeafLists lists = leaf_lists(starts, entries, targets, rank_weights)
    cdef intp_t row, tree, n_rows = row_leaves.shape[0], n_trees = row_leaves.shape[1]
    cdef intp_t n_counted
    cdef int64_t start, stop, entry
    cdef double total, leaf_sum
    if out.shape[0] != n_rows or out.shape[1] != 1:
        raise ValueError(f"out is {out.shape[0]} x {out.shape[1]}, not {n_rows} x 1")
    with nogil:
        for row in range(n_rows):
            total = 0.0
            n_counted = 0
            for tree in range(n_trees):
                if not leaf_of(&lists, row_leaves[row, tree], &start, &stop):
                    continue
                leaf_sum = 0.0
                for entry in range(start, stop):
                    leaf_sum += entry_weight(&lists, entry) * lists.targets[lists.entries[entry]]
                total += leaf_sum / leaf_total(&lists, start, stop)
                n_counted += 1
            out[row, 0] = total / n_counted if n_counted else NAN
    return 0


def forest_quantile_ranks(const int64_t[::1] starts not None,
                          const uint32_t[::1] entries not None,
                          const double[::1] targets not None,
                          const double[::1] rank_weights not None, int kind,
                          const double[:, ::1] row_leaves not None, double[:, ::1] out not None):
    """Each row's quantile rank of a value among the targets in its leaves.

    ``out[:, 0]`` holds the values on entry and their ranks on return: the
    weight of the entries below (``RANK_STRICT``) or at most (``RANK_WEAK``)
    the value, per tree over its leaf's total, summed in tree order over
    the trees that count and divided by their number; their mean
    (``RANK_MEAN``); or that mean plus half the mean weight of the entries
    equal to the value (``RANK``: scipy's ``percentileofscore`` with equal
    weights). NaN for a row no tree counts for. Other arguments as
    :func:`forest_quantiles`.
    """
    cdef LeafLists lists = leaf_lists(starts, entries, targets, rank_weights)
    cdef intp_t row, tree, n_rows = row_leaves.shape[0], n_trees = row_leaves.shape[1]
    cdef intp_t n_counted
    cdef int64_t start, stop, entry, n_equal
    cdef double value, target, weak, strict, leaf_weak, leaf_strict, weight, leaf_weight
    if out.shape[0] != n_rows or out.shape[1] != 1:
        raise ValueError(f"out is {out.shape[0]} x {out.shape[1]}, not {n_rows} x 1")
    with nogil:
        for row in range(n_rows):
            value = out[row, 0]
            weak = 0.0
            strict = 0.0
            n_equal = 0
            n_counted = 0
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
                weak += leaf_weak / leaf_weight
                strict += leaf_strict / leaf_weight
                n_counted += 1
            if n_counted == 0 or value != value:
                out[row, 0] = NAN
                continue
            weak /= n_counted
            strict /= n_counted
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
