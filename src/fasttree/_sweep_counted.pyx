# cython: language_level=3
"""The counted sweep: a histogram of a node's ranks, swept bin by bin."""

from ._criterion cimport BIN_BYTES_4, INLINE_SQUARED_ERROR, BinSource
from ._histogram cimport Histogram, histogram_bin, histogram_fill, histogram_fill_rare
from ._inline_criterion cimport (Gini, InlineCriterion, LeftSums, SquaredError, load_sums,
                                 move_bin_left, offer_sums, store_sums, sweeps_inline)
from ._split_search cimport (IMPROVED, STOP, holds_one_value, keep_threshold, losing_below,
                             offer)


cdef int sweep_all_values(Criterion criterion, SearchState* state, BinSource source,
                          intp_t n_node, intp_t feature, intp_t n_distinct,
                          const uint32_t* rare_positions, const uint32_t* rare_ranks,
                          intp_t n_rare, uint32_t common_rank,
                          BestCandidate* best) noexcept nogil:
    # One pass sums the node into a bin for every value of the feature, and
    # the bins tell its range. A second value usually shows within a few
    # samples: a constant feature is found without filling its bins.
    cdef Histogram* histogram = &state.buffers.histogram
    if n_rare < 0 and holds_one_value(source, n_node):
        return 0
    if n_rare >= 0:
        if histogram_fill_rare(histogram, criterion, n_node, n_distinct, rare_positions,
                               rare_ranks, n_rare, common_rank) < 0:
            return -1
    elif histogram_fill(histogram, criterion, source, n_node, n_distinct) < 0:
        return -1
    sweep_bins(criterion, state, n_node, feature, first_filled(histogram),
               last_filled(histogram, n_distinct), 0, best)
    return 1


cdef int sweep_filled_values(Criterion criterion, SearchState* state, intp_t n_node,
                             intp_t feature, intp_t n_distinct,
                             BestCandidate* best) noexcept nogil:
    cdef Histogram* histogram = &state.buffers.histogram
    cdef intp_t first_bin = first_filled(histogram)
    cdef intp_t last_bin = last_filled(histogram, n_distinct)
    if first_bin == last_bin:
        return 0
    sweep_bins(criterion, state, n_node, feature, first_bin, last_bin, 0, best)
    return 1


cdef inline intp_t first_filled(const Histogram* histogram) noexcept nogil:
    cdef intp_t b = 0
    while histogram.counts[b] == 0:
        b += 1
    return b


cdef inline intp_t last_filled(const Histogram* histogram, intp_t n_bins) noexcept nogil:
    cdef intp_t b = n_bins - 1
    while histogram.counts[b] == 0:
        b -= 1
    return b


cdef int sweep_node_values(Criterion criterion, SearchState* state, intp_t n_node,
                           intp_t feature, uint32_t min_rank, uint32_t rank_span,
                           BestCandidate* best) noexcept nogil:
    if histogram_fill(&state.buffers.histogram, criterion,
                      BinSource(state.buffers.node_ranks, NULL, min_rank, BIN_BYTES_4),
                      n_node, rank_span) < 0:
        return -1
    sweep_bins(criterion, state, n_node, feature, 0, rank_span - 1, min_rank, best)
    return 1


cdef void sweep_bins(Criterion criterion, SearchState* state, intp_t n_node, intp_t feature,
                     intp_t first_bin, intp_t last_bin, uint32_t first_rank,
                     BestCandidate* best) noexcept nogil:
    # Sweeps bins first_bin..last_bin (bin b holds rank b + first_rank; the
    # last one is not empty), offering every threshold to best.
    cdef Histogram* histogram = &state.buffers.histogram
    cdef intp_t end_bin = last_bin - 1
    # The missing values, if the node has some, are the last bin: first
    # they stay right (the last threshold sends every known value left).
    cdef bint has_missing = last_bin + first_rank == state.data.missing_ranks[feature]
    criterion.reset()
    sweep_bin_range(criterion, state, n_node, feature, first_bin, last_bin, last_bin,
                    first_rank, 0, has_missing, False, best)
    if not has_missing:
        return
    # Then they go left from the start, and the last known bin is left out:
    # every known value right was the first sweep's every known value left.
    while histogram.counts[end_bin] == 0:
        end_bin -= 1
    criterion.reset()
    criterion.move_bin_left(histogram_bin(histogram, last_bin))
    sweep_bin_range(criterion, state, n_node, feature, first_bin, end_bin, last_bin,
                    first_rank, histogram.counts[last_bin], True, True, best)


cdef void sweep_bin_range(Criterion criterion, SearchState* state, intp_t n_node,
                          intp_t feature, intp_t first_bin, intp_t end_bin, intp_t last_bin,
                          uint32_t first_rank, intp_t n_moved, bint has_missing,
                          bint missing_left, BestCandidate* best) noexcept nogil:
    # Moves bins first_bin..end_bin - 1 left one by one (n_moved samples are
    # left already), offering the threshold after each.
    cdef Histogram* histogram = &state.buffers.histogram
    cdef intp_t b, n_left = n_moved
    cdef intp_t* counts = histogram.counts
    cdef int outcome
    if sweeps_inline(criterion, &state.limits, feature):
        if criterion.inline_sweep == INLINE_SQUARED_ERROR:
            sweep_bin_range_inline(<SquaredError> criterion, state, n_node, feature,
                                   first_bin, end_bin, last_bin, first_rank, n_moved,
                                   has_missing, missing_left, best)
        else:
            sweep_bin_range_inline(<Gini> criterion, state, n_node, feature, first_bin,
                                   end_bin, last_bin, first_rank, n_moved, has_missing,
                                   missing_left, best)
        return
    for b in range(first_bin, end_bin):
        if counts[b] == 0:
            continue
        criterion.move_bin_left(histogram_bin(histogram, b))
        n_left += counts[b]
        outcome = offer(criterion, &state.limits, best, n_left, n_node, feature,
                        b + first_rank)
        if outcome == STOP:
            return
        if outcome == IMPROVED:
            keep_bin_threshold(counts, b, first_bin, last_bin, first_rank, has_missing,
                               missing_left, best)


cdef void sweep_bin_range_inline(InlineCriterion criterion, SearchState* state,
                                 intp_t n_node, intp_t feature, intp_t first_bin,
                                 intp_t end_bin, intp_t last_bin, uint32_t first_rank,
                                 intp_t n_moved, bint has_missing, bint missing_left,
                                 BestCandidate* best) noexcept nogil:
    # sweep_bin_range of an unconstrained feature, with the criterion's
    # moves and proxy written out (_inline_criterion): the same numbers.
    cdef Histogram* histogram = &state.buffers.histogram
    cdef intp_t b, n_left = n_moved
    cdef intp_t* counts = histogram.counts
    cdef int outcome
    cdef LeftSums sums
    cdef double losing = losing_below(best)
    load_sums(criterion, &sums)
    for b in range(first_bin, end_bin):
        if counts[b] == 0:
            continue
        move_bin_left(criterion, &sums, histogram_bin(histogram, b))
        n_left += counts[b]
        outcome = offer_sums(criterion, &state.limits, best, &sums, &losing, n_left, n_node,
                             feature, b + first_rank)
        if outcome == STOP:
            break
        if outcome == IMPROVED:
            keep_bin_threshold(counts, b, first_bin, last_bin, first_rank, has_missing,
                               missing_left, best)
    store_sums(criterion, &sums)


cdef inline void keep_bin_threshold(const intp_t* counts, intp_t b, intp_t first_bin,
                                    intp_t last_bin, uint32_t first_rank, bint has_missing,
                                    bint missing_left, BestCandidate* best) noexcept nogil:
    # The rest of the best split after bin b: the next filled bin goes right.
    cdef intp_t next_bin = b + 1
    while counts[next_bin] == 0:
        next_bin += 1
    keep_threshold(best, next_bin + first_rank, first_bin + first_rank,
                   last_bin + first_rank, has_missing, missing_left)
