# cython: language_level=3
"""The sorted sweep: a node's samples in rank order, moved left group by group."""

from libc.stdint cimport uint64_t

from ._criterion cimport INLINE_SQUARED_ERROR, bin_of
from ._histogram cimport histogram_bin, histogram_fill_rare
from ._inline_criterion cimport (Gini, InlineCriterion, LeftSums, SquaredError, load_sums,
                                 move_one_left, offer_sums, store_sums, sweeps_inline)
from ._split_search cimport IMPROVED, STOP, bit_length, keep_threshold, losing_below, offer
from ._utils cimport item_position, item_rank, pack_item, sort_items


cdef inline intp_t run_end(const uint64_t* sorted_items, intp_t i, intp_t n_sorted,
                          uint32_t rank) noexcept nogil:
    # The end of the run of items of the given rank that starts at i.
    cdef intp_t end = i + 1
    while end < n_sorted and item_rank(sorted_items[end]) == rank:
        end += 1
    return end


cdef void sweep_sorted(Criterion criterion, SearchState* state, intp_t n_node,
                       intp_t feature, uint32_t min_rank, uint32_t rank_span,
                       BestCandidate* best) noexcept nogil:
    cdef intp_t i, first_missing
    cdef uint64_t* sorted_items
    cdef uint64_t* items = state.buffers.items
    cdef const uint32_t* node_ranks = state.buffers.node_ranks
    cdef bint has_missing = min_rank + rank_span - 1 == state.data.missing_ranks[feature]
    # Ranks relative to the node's least need fewer sort passes.
    for i in range(n_node):
        items[i] = pack_item(node_ranks[i] - min_rank, <uint32_t> i)
    sorted_items = sort_items(items, state.buffers.scratch, n_node, bit_length(rank_span - 1))
    # The missing values, if the node has some, are the last group: first
    # they stay right (the last threshold sends every known value left).
    criterion.reset()
    sweep_groups(criterion, state, sorted_items, n_node, 0, n_node, feature, min_rank,
                 rank_span, has_missing, False, best)
    if not has_missing:
        return
    # Then they go left from the start, and the known values are swept
    # again but for their last threshold (every known value right was the
    # first sweep's every known value left).
    first_missing = n_node - 1
    while first_missing > 0 and item_rank(sorted_items[first_missing - 1]) == rank_span - 1:
        first_missing -= 1
    criterion.reset()
    criterion.move_left(sorted_items, first_missing, n_node)
    sweep_groups(criterion, state, sorted_items, first_missing, n_node - first_missing,
                 n_node, feature, min_rank, rank_span, True, True, best)


cdef int sweep_pair(Criterion criterion, SearchState* state, BinSource source,
                    intp_t feature, BestCandidate* best) noexcept nogil:
    # A third of a fully grown regression tree's inner nodes hold two
    # samples, where sorting or counting costs far more than the one offer.
    cdef uint32_t first = <uint32_t> bin_of(source, 0), second = <uint32_t> bin_of(source, 1)
    cdef uint32_t low = first if first < second else second
    cdef uint32_t high = second if first < second else first
    if first == second:
        return 0
    if high == state.data.missing_ranks[feature]:
        return -1
    criterion.reset()
    criterion.move_position_left(0 if first < second else 1)
    if offer(criterion, &state.limits, best, 1, 2, feature, low) == IMPROVED:
        keep_threshold(best, high, low, high, False, False)
    return 1


cdef int sweep_rare_sorted(Criterion criterion, SearchState* state, intp_t n_node,
                           intp_t feature, uint32_t common,
                           const uint32_t* rare_positions, const uint32_t* rare_ranks,
                           intp_t n_rare, BestCandidate* best) noexcept nogil:
    cdef uint32_t rank, min_rank = common, max_rank = common, common_rank, next_rank
    cdef intp_t j, i = 0, group_end, n_moved = 0, n_common = n_node - n_rare
    cdef bint common_next
    cdef uint64_t* sorted_items
    cdef uint64_t* items = state.buffers.items
    cdef int outcome
    cdef BestCandidate local_best
    for j in range(n_rare):
        rank = rare_ranks[j]
        min_rank = rank if rank < min_rank else min_rank
        max_rank = rank if rank > max_rank else max_rank
    if max_rank == state.data.missing_ranks[feature]:
        return 0
    for j in range(n_rare):
        items[j] = pack_item(rare_ranks[j] - min_rank, rare_positions[j])
    sorted_items = sort_items(items, state.buffers.scratch, n_rare,
                              bit_length(max_rank - min_rank))
    # The common value's rows as one bin (bin 1): the node's totals minus
    # the rare rows' (bin 0), exact with exact sums.
    if histogram_fill_rare(&state.buffers.histogram, criterion, n_node, 2, rare_positions,
                           NULL, n_rare, 1) < 0:
        return -1
    common_rank = common - min_rank
    criterion.reset()
    local_best = best[0]
    # The groups in rank order, the common value's among the rare ones; the
    # threshold after each but the last is offered.
    common_next = n_rare == 0 or item_rank(sorted_items[0]) > common_rank
    while True:
        if common_next:
            rank = common_rank
            criterion.move_bin_left(histogram_bin(&state.buffers.histogram, 1))
            n_moved += n_common
            n_common = 0
        else:
            rank = item_rank(sorted_items[i])
            group_end = run_end(sorted_items, i, n_rare, rank)
            if group_end - i == 1:
                criterion.move_position_left(item_position(sorted_items[i]))
            else:
                criterion.move_left(sorted_items, i, group_end)
            n_moved += group_end - i
            i = group_end
        if n_moved >= n_node:
            break
        common_next = n_common > 0 and (i >= n_rare or item_rank(sorted_items[i]) > common_rank)
        next_rank = common_rank if common_next else item_rank(sorted_items[i])
        outcome = offer(criterion, &state.limits, &local_best, n_moved, n_node, feature,
                        rank + min_rank)
        if outcome == STOP:
            break
        if outcome == IMPROVED:
            keep_threshold(&local_best, next_rank + min_rank, min_rank, max_rank, False, False)
    best[0] = local_best
    return 1


cdef void sweep_groups(Criterion criterion, SearchState* state, const uint64_t* sorted_items,
                       intp_t n_sorted, intp_t n_moved, intp_t n_node, intp_t feature,
                       uint32_t min_rank, uint32_t rank_span, bint has_missing,
                       bint missing_left, BestCandidate* best) noexcept nogil:
    # Moves the groups of equal ranks of sorted_items[0:n_sorted] left one
    # by one (n_moved samples are left already), offering the threshold
    # after each but the last.
    cdef intp_t i = 0, group_end
    cdef uint32_t rank
    cdef int outcome
    if sweeps_inline(criterion, &state.limits, feature):
        if criterion.inline_sweep == INLINE_SQUARED_ERROR:
            sweep_groups_inline(<SquaredError> criterion, state, sorted_items, n_sorted,
                                n_moved, n_node, feature, min_rank, rank_span, has_missing,
                                missing_left, best)
        else:
            sweep_groups_inline(<Gini> criterion, state, sorted_items, n_sorted, n_moved,
                                n_node, feature, min_rank, rank_span, has_missing,
                                missing_left, best)
        return
    while True:
        rank = item_rank(sorted_items[i])
        group_end = run_end(sorted_items, i, n_sorted, rank)
        if group_end >= n_sorted:
            break
        if group_end - i == 1:
            criterion.move_position_left(item_position(sorted_items[i]))
        else:
            criterion.move_left(sorted_items, i, group_end)
        i = group_end
        outcome = offer(criterion, &state.limits, best, group_end + n_moved, n_node,
                        feature, rank + min_rank)
        if outcome == STOP:
            break
        if outcome == IMPROVED:
            keep_threshold(best, item_rank(sorted_items[group_end]) + min_rank,
                           min_rank, min_rank + rank_span - 1, has_missing, missing_left)


cdef void sweep_groups_inline(InlineCriterion criterion, SearchState* state,
                              const uint64_t* sorted_items, intp_t n_sorted, intp_t n_moved,
                              intp_t n_node, intp_t feature, uint32_t min_rank,
                              uint32_t rank_span, bint has_missing, bint missing_left,
                              BestCandidate* best) noexcept nogil:
    # sweep_groups of an unconstrained feature, with the criterion's
    # per-sample step and proxy written out on sums kept in registers: the
    # same numbers in the same order, without the two virtual calls per
    # sample that cost most of a small node's sweep. Groups of tied samples
    # are rarer and keep the criterion's own move_left.
    cdef LeftSums sums
    cdef double losing = losing_below(best)
    cdef intp_t i = 0, group_end
    cdef uint32_t rank
    cdef int outcome
    load_sums(criterion, &sums)
    while True:
        rank = item_rank(sorted_items[i])
        group_end = run_end(sorted_items, i, n_sorted, rank)
        if group_end >= n_sorted:
            break
        if group_end - i == 1:
            move_one_left(criterion, &sums, item_position(sorted_items[i]))
        else:
            store_sums(criterion, &sums)
            criterion.move_left(sorted_items, i, group_end)
            load_sums(criterion, &sums)
        i = group_end
        outcome = offer_sums(criterion, &state.limits, best, &sums, &losing,
                             group_end + n_moved, n_node, feature, rank + min_rank)
        if outcome == STOP:
            break
        if outcome == IMPROVED:
            keep_threshold(best, item_rank(sorted_items[group_end]) + min_rank,
                           min_rank, min_rank + rank_span - 1, has_missing, missing_left)
    store_sums(criterion, &sums)
