# The counted sweep: one pass sums a node's samples into a bin per rank of
# one feature (_histogram), then the bins are moved into the criterion's
# left child in rank order, the threshold after each offered. O(n + bins)
# per node and feature: the cheaper sweep when a node holds many samples of
# few distinct values. It finds the splits the sorted sweep finds.

from libc.stdint cimport uint32_t

from ._criterion cimport BinSource, Criterion
from ._split_search cimport BestCandidate, SearchState
from ._utils cimport intp_t


# Sweeps a histogram of all n_distinct values of the feature: filled from
# source (the node's ranks of it), or, when n_rare >= 0, from the node's
# n_rare rare positions (rare_positions, their ranks rare_ranks) with the
# rest summed in common_rank's bin (criteria with exact sums). Returns 0,
# without sweeping, when source holds one value (n_rare < 0 only), -1 when
# out of memory, else 1.
cdef int sweep_all_values(Criterion criterion, SearchState* state, BinSource source,
                          intp_t n_node, intp_t feature, intp_t n_distinct,
                          const uint32_t* rare_positions, const uint32_t* rare_ranks,
                          intp_t n_rare, uint32_t common_rank,
                          BestCandidate* best) noexcept nogil

# Sweeps state.buffers.histogram, already holding the node's bins of all
# n_distinct values of the feature (histogram subtraction, _node_histograms).
# Returns 0, without sweeping, when one bin holds the whole node (as
# sweep_all_values finds it of a source of one value), else 1.
cdef int sweep_filled_values(Criterion criterion, SearchState* state, intp_t n_node,
                             intp_t feature, intp_t n_distinct,
                             BestCandidate* best) noexcept nogil

# Sweeps a histogram of the ranks min_rank .. min_rank + rank_span - 1 (the
# node's range of the feature), filled from state.buffers.node_ranks[0:n_node].
# Returns -1 when out of memory, else 1.
cdef int sweep_node_values(Criterion criterion, SearchState* state, intp_t n_node,
                           intp_t feature, uint32_t min_rank, uint32_t rank_span,
                           BestCandidate* best) noexcept nogil
