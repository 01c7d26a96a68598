# What every split strategy shares: the training matrix as the sweeps read
# it, the limits a candidate split must meet, the node's work buffers, the
# best candidate so far, and `offer`, which scores a candidate against it.
#
# A strategy (_sweep_sorted, _sweep_counted, _sweep_subsets, _random_split)
# moves the node's samples into the criterion's left child its own way and
# offers each threshold it reaches; _splitter.pyx picks a strategy per node
# and feature, then partitions the node. A new strategy (a binned sweep)
# needs this file and the criterion's interface, nothing of the others.
#
# Declarations and inline functions only: there is no _split_search module.

from libc.math cimport INFINITY, NAN
from libc.stdint cimport int8_t, uint8_t, uint16_t, uint32_t, uint64_t

from ._criterion cimport (BIN_BYTES_1, BIN_BYTES_2, BIN_BYTES_4, BinSource, Criterion,
                          bin_of)
from ._histogram cimport Histogram
from ._utils cimport NARROW_RANKS, SHORT_RANKS, beats_best, intp_t, tie_margin


cdef enum:
    NO_MISSING = 0xFFFFFFFF   # missing_rank of a feature without missing values
    NO_COMMON = 0xFFFFFFFF    # common_rank of a feature without a common value listed


# What offer says of a candidate.
cdef enum:
    SKIP = 0       # not a valid split here; later positions may be
    STOP = 1       # no later position of this sweep can be valid
    IMPROVED = 2   # the best candidate so far
    VALID = 3      # meets the limits (check_children), not scored yet


# The training matrix as value ranks (fasttree._features.rank_features).
cdef struct RankedColumns:
    const uint32_t* ranks        # (n_features, n_samples) dense value ranks
    const uint8_t* narrow_ranks  # the same in bytes, for features of <= NARROW_RANKS values
    const uint16_t* short_ranks  # (n_features, n_samples) two-byte bin codes of the binned
                                 # features of more than NARROW_RANKS and at most
                                 # SHORT_RANKS bins, or NULL when there are none
    const float* values          # each feature's distinct sorted values, concatenated
                                 # (binned features: each bin's smallest value)
    const float* upper_values    # the same for exact ranks; a bin's largest value
    const intp_t* value_offsets  # feature f's values start at value_offsets[f]
    # Where each feature's entries in values (and upper_values) start:
    # value_offsets, unless rank_features kept some features' largest value
    # alone (keep_values), whose splits then read their values from rows.
    const intp_t* value_starts
    const float* rows            # the training matrix, feature f of row r at
                                 # rows[r * row_stride + f * column_stride];
                                 # NULL when every feature's values were kept
    intp_t row_stride
    intp_t column_stride
    const uint32_t* missing_ranks  # per feature, the rank of its missing values
                                 # (its last: NaN ranks as +inf), or NO_MISSING
    intp_t n_samples             # rows of the training matrix
    intp_t n_features


# What a split must leave in each child, and the monotonic constraints.
cdef struct SearchLimits:
    intp_t min_samples_leaf
    double min_weight_leaf
    # Per feature -1 (decreasing), 0 or 1 (increasing), or NULL for none: a
    # constrained feature's split keeps both children's values (the
    # criterion's monotone_value) within [lower_bound, upper_bound], the
    # current node's bounds, and ordered as asked.
    const int8_t* monotonic_cst
    double lower_bound
    double upper_bound


# Work space of one node's sweeps, owned by the splitter and lent to the
# strategies (one at a time: a strategy may overwrite all of it).
cdef struct SweepBuffers:
    uint32_t* node_ranks      # n_samples entries: the node's ranks of one feature
    uint64_t* items           # n_samples sort items (_utils.pack_item)
    uint64_t* scratch         # n_samples more, for the sort's radix passes
    Histogram histogram       # per-rank (or per-side) bins of the node's statistics


# What the splitter lends a strategy for one node: a strategy reads the
# matrix and the limits, and may overwrite the buffers and draw from the
# random stream (one stream per splitter, so that the draws, and the trees,
# do not depend on which strategy ran before).
cdef struct SearchState:
    RankedColumns data
    SearchLimits limits
    SweepBuffers buffers
    uint64_t rng_state
    # When a sweep sums a node into a histogram rather than sorting it:
    # when the bins' doubles are at most this factor times the node's
    # samples (counts_cheaper), for a histogram of all the feature's values
    # and for one of the node's range of them. 0 never counts, +inf always.
    double all_values_factor
    double node_values_factor


# The best candidate of a node's sweeps so far.
cdef struct BestCandidate:
    double proxy_improvement  # the criterion's proxy, -inf before any candidate
    double proxy_scale        # the criterion's proxy_scale at the node (beats_best)
    # The largest proxy offered, whether it won or not, and the largest
    # offered before the best: whether a thread's best, found from no best,
    # is the one the sweep would find against another (Splitter.threaded_numeric).
    double max_proxy
    double max_before_best
    intp_t feature            # -1 before any candidate
    uint32_t left_rank        # largest rank that goes left
    uint32_t right_rank       # smallest rank of the node that goes right
    uint32_t min_rank         # the node's least rank of the feature
    uint32_t max_rank         # the node's largest rank of the feature
    bint has_missing          # the node has missing values of the feature
    bint missing_left         # they go left
    bint is_subset            # a set of categories goes left (kept by the subset sweep)
    float threshold           # the drawn threshold of a random split
    # A random split: the node's least value of the feature (the left child
    # holds one value if all its values are this), and the value the right
    # child holds if it holds one (its largest; +inf for missing ones).
    float least_value
    float right_top_value


# The feature's ranks at the node's positions, read from the narrow
# (one-byte) ranks when the feature has few values, from the two-byte bin
# codes when there are some and it has no more than they number.
cdef inline BinSource feature_ranks_at(const RankedColumns* data, intp_t feature,
                                       const uint32_t* node_samples) noexcept nogil:
    cdef intp_t n_values = data.value_offsets[feature + 1] - data.value_offsets[feature]
    if n_values <= NARROW_RANKS:
        return BinSource(data.narrow_ranks + feature * data.n_samples, node_samples, 0,
                         BIN_BYTES_1)
    if data.short_ranks != NULL and n_values <= SHORT_RANKS:
        return BinSource(data.short_ranks + feature * data.n_samples, node_samples, 0,
                         BIN_BYTES_2)
    return BinSource(data.ranks + feature * data.n_samples, node_samples, 0, BIN_BYTES_4)


# Whether the feature's distinct values were kept (not its largest alone).
cdef inline bint values_kept(const RankedColumns* data, intp_t feature) noexcept nogil:
    return (data.value_starts[feature + 1] - data.value_starts[feature]
            == data.value_offsets[feature + 1] - data.value_offsets[feature])


# The value of the given rank of a feature whose values were not kept: the
# training value of a node sample of that rank (a split's ranks are ranks
# of its node), +0.0 for either zero as in values.
cdef inline float value_from_rows(const RankedColumns* data, intp_t feature,
                                  const uint32_t* node_samples, intp_t n_node,
                                  uint32_t rank) noexcept nogil:
    cdef BinSource source = feature_ranks_at(data, feature, node_samples)
    cdef intp_t i
    for i in range(n_node):
        if bin_of(source, i) == <intp_t> rank:
            return <float> (data.rows[node_samples[i] * data.row_stride
                                      + feature * data.column_stride] + 0.0)
    return NAN


# Whether every node position has the bin of the first.
cdef inline bint holds_one_value(BinSource source, intp_t n_node) noexcept nogil:
    cdef intp_t i
    cdef intp_t first = bin_of(source, 0)
    for i in range(1, n_node):
        if bin_of(source, i) != first:
            return False
    return True


# The bits a value needs (the radix passes of a sort of ranks below it).
cdef inline int bit_length(uint32_t value) noexcept nogil:
    cdef int bits = 0
    while value:
        bits += 1
        value >>= 1
    return bits


# Whether a histogram of n_bins bins of n_bin_stats doubles is summed
# rather than the node's n_node samples sorted, at the given factor.
cdef inline bint counts_cheaper(double factor, intp_t n_bins, intp_t n_bin_stats,
                                intp_t n_node) noexcept nogil:
    return <double> n_bins * n_bin_stats <= factor * n_node


# Whether children of n_left and n_node - n_left samples, and of the given
# weights, meet the limits: VALID, SKIP, or STOP when no later position of
# the sweep can (the left child only grows).
cdef inline int check_children(const SearchLimits* limits, intp_t n_left, intp_t n_node,
                               double weighted_n_left, double weighted_n_node) noexcept nogil:
    if n_left < limits.min_samples_leaf:
        return SKIP
    if n_node - n_left < limits.min_samples_leaf:
        return STOP
    if weighted_n_left < limits.min_weight_leaf:
        return SKIP
    if weighted_n_node - weighted_n_left < limits.min_weight_leaf:
        return STOP
    return VALID


# Scores a valid candidate's proxy against the best so far; when it wins,
# best takes its proxy, feature and left_rank and True is returned.
cdef inline bint note_proxy(BestCandidate* best, double proxy, intp_t feature,
                            uint32_t left_rank) noexcept nogil:
    cdef double max_before = best.max_proxy
    if proxy > max_before:
        best.max_proxy = proxy
    # Ties, up to rounding, go to the lowest feature index, then to the
    # candidate met first, whatever order the features were drawn in.
    if beats_best(proxy, feature, best.proxy_improvement, best.feature, best.proxy_scale):
        best.max_before_best = max_before
        best.proxy_improvement = proxy
        best.feature = feature
        best.left_rank = left_rank
        return True
    return False


# Proxies below this never beat best (beats_best), whatever their feature:
# a sweep may note only their max_proxy and keep this until best changes.
cdef inline double losing_below(const BestCandidate* best) noexcept nogil:
    if best.proxy_improvement == -INFINITY:
        return -INFINITY
    return best.proxy_improvement - tie_margin(best.proxy_improvement, best.proxy_scale)


# Scores the criterion's current left/right children as a split of feature
# whose left child holds n_left of the node's n_node samples; returns STOP
# when no later position of the sweep can be valid. When the candidate is
# the best so far, best takes its proxy, feature and left_rank, the
# criterion keeps its left child (keep_left), and IMPROVED is returned; the
# caller notes the rest of the candidate (keep_threshold, say).
cdef inline int offer(Criterion criterion, const SearchLimits* limits, BestCandidate* best,
                      intp_t n_left, intp_t n_node, intp_t feature,
                      uint32_t left_rank) noexcept nogil:
    cdef double value_left, value_right
    cdef int outcome = check_children(limits, n_left, n_node, criterion.weighted_n_left,
                                      criterion.weighted_n_node)
    if outcome != VALID:
        return outcome
    if limits.monotonic_cst != NULL and limits.monotonic_cst[feature] != 0:
        criterion.children_values(&value_left, &value_right)
        if not (limits.lower_bound <= value_left <= limits.upper_bound
                and limits.lower_bound <= value_right <= limits.upper_bound
                and (value_left - value_right) * limits.monotonic_cst[feature] <= 0.0):
            return SKIP
    if note_proxy(best, criterion.proxy_improvement(), feature, left_rank):
        criterion.keep_left()
        return IMPROVED
    return SKIP


# Notes the rest of a threshold split that offer found best: ranks up to
# best.left_rank go left, right_rank is the least that goes right, and the
# node's ranks of the feature span min_rank..max_rank.
cdef inline void keep_threshold(BestCandidate* best, uint32_t right_rank, uint32_t min_rank,
                                uint32_t max_rank, bint has_missing,
                                bint missing_left) noexcept nogil:
    best.right_rank = right_rank
    best.min_rank = min_rank
    best.max_rank = max_rank
    best.has_missing = has_missing
    best.missing_left = missing_left
    best.is_subset = False
