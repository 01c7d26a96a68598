# The criteria whose arithmetic a sweep may do itself (Criterion.inline_sweep):
# their per-sample and per-bin steps and their proxy, written out on sums a
# sweep keeps in registers, with the same operations in the same order as
# the criteria's own methods, so that a sweep that uses them finds the
# same splits without two virtual calls per sample or bin.
#
# Declarations and inline functions only: there is no _inline_criterion module.

from libc.stdint cimport uint32_t

from ._criterion cimport INLINE_NONE, Criterion
from ._criterion_classification cimport Gini
from ._criterion_regression cimport SquaredError
from ._split_search cimport (IMPROVED, SKIP, VALID, BestCandidate, SearchLimits,
                             check_children, losing_below, note_proxy)
from ._utils cimport intp_t


ctypedef fused InlineCriterion:
    SquaredError
    Gini


# Whether a sweep of feature may use these functions: its criterion has
# them, and the feature has no monotonic constraint (offer_sums checks none).
cdef inline bint sweeps_inline(Criterion criterion, const SearchLimits* limits,
                               intp_t feature) noexcept nogil:
    return criterion.inline_sweep != INLINE_NONE and (limits.monotonic_cst == NULL
                                                      or limits.monotonic_cst[feature] == 0)


# The sums of a criterion's left child that each move changes: SquaredError's
# sum_left (first), Gini's squares_left and squares_right (first, second).
cdef struct LeftSums:
    double weighted_n_left
    double first
    double second


cdef inline void load_sums(InlineCriterion criterion, LeftSums* sums) noexcept nogil:
    sums.weighted_n_left = criterion.weighted_n_left
    if InlineCriterion is SquaredError:
        sums.first = criterion.sum_left
    else:
        sums.first = criterion.squares_left
        sums.second = criterion.squares_right


cdef inline void store_sums(InlineCriterion criterion, const LeftSums* sums) noexcept nogil:
    criterion.weighted_n_left = sums.weighted_n_left
    if InlineCriterion is SquaredError:
        criterion.sum_left = sums.first
    else:
        criterion.squares_left = sums.first
        criterion.squares_right = sums.second


# The criterion's move_position_left.
cdef inline void move_one_left(InlineCriterion criterion, LeftSums* sums,
                               intp_t position) noexcept nogil:
    cdef double weight = criterion.node_weight[position]
    cdef intp_t label
    if InlineCriterion is SquaredError:
        sums.first += weight * criterion.node_target[position]
    else:
        label = criterion.class_number[criterion.node_class[position]]
        sums.first += weight * (2.0 * criterion.weight_left[label] + weight)
        sums.second += weight * (weight - 2.0 * criterion.weight_right[label])
        criterion.weight_left[label] += weight
        criterion.weight_right[label] -= weight
    sums.weighted_n_left += weight


# The criterion's move_bin_left.
cdef inline void move_bin_left(InlineCriterion criterion, LeftSums* sums,
                               const double* bin) noexcept nogil:
    cdef intp_t k
    cdef double weight
    if InlineCriterion is SquaredError:
        sums.first += bin[1]
    else:
        for k in range(criterion.n_node_classes):
            weight = bin[1 + k]
            sums.first += weight * (2.0 * criterion.weight_left[k] + weight)
            sums.second += weight * (weight - 2.0 * criterion.weight_right[k])
            criterion.weight_left[k] += weight
            criterion.weight_right[k] -= weight
    sums.weighted_n_left += bin[0]


# The criterion's proxy_improvement.
cdef inline double inline_proxy(InlineCriterion criterion, const LeftSums* sums) noexcept nogil:
    cdef double sum_right
    cdef double weighted_n_right = criterion.weighted_n_node - sums.weighted_n_left
    if InlineCriterion is SquaredError:
        sum_right = criterion.sum_total - sums.first
        return (sums.first * sums.first / sums.weighted_n_left
                + sum_right * sum_right / weighted_n_right)
    else:
        return sums.first / sums.weighted_n_left + sums.second / weighted_n_right


# _split_search.offer for an unconstrained feature, on the sums a sweep keeps:
# a candidate below losing (losing_below(best), which this keeps up to date)
# only has its max_proxy noted; a winner's sums go back to the criterion,
# which keeps its left child. Returns IMPROVED, SKIP or STOP as offer does.
cdef inline int offer_sums(InlineCriterion criterion, const SearchLimits* limits,
                           BestCandidate* best, LeftSums* sums, double* losing,
                           intp_t n_left, intp_t n_node, intp_t feature,
                           uint32_t left_rank) noexcept nogil:
    cdef double proxy
    cdef int outcome = check_children(limits, n_left, n_node, sums.weighted_n_left,
                                      criterion.weighted_n_node)
    if outcome != VALID:
        return outcome
    proxy = inline_proxy(criterion, sums)
    if proxy < losing[0]:
        if proxy > best.max_proxy:
            best.max_proxy = proxy
        return SKIP
    if not note_proxy(best, proxy, feature, left_rank):
        return SKIP
    losing[0] = losing_below(best)
    store_sums(criterion, sums)
    criterion.keep_left()
    return IMPROVED
