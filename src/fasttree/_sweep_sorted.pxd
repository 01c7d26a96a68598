# The sorted sweep: a node's samples sorted by their rank of one feature,
# then moved into the criterion's left child one group of equal ranks at a
# time, the threshold after each group offered. O(n log n) per node and
# feature (a radix sort of packed rank/position items), whatever the
# number of distinct values.

from libc.stdint cimport uint32_t

from ._criterion cimport BinSource, Criterion
from ._split_search cimport BestCandidate, SearchState
from ._utils cimport intp_t


# Sorts state.buffers.node_ranks[0:n_node] (the node's ranks of feature,
# the least min_rank and the largest min_rank + rank_span - 1) and sweeps
# them, offering every threshold to best: with the node's missing values
# (the largest rank, if the feature has them) right, then left.
cdef void sweep_sorted(Criterion criterion, SearchState* state, intp_t n_node,
                       intp_t feature, uint32_t min_rank, uint32_t rank_span,
                       BestCandidate* best) noexcept nogil

# The sorted sweep of a feature with a common value (common_rank) of which
# only the node's n_rare other positions are listed (rare_positions, their
# ranks rare_ranks; the criterion's sums exact): sorts those alone and moves
# the common value's rows as one bin, the node's totals minus the rare
# rows'. Returns 1 when swept, 0 when the node has missing values of the
# feature (sweep_sorted then takes it), -1 when out of memory.
cdef int sweep_rare_sorted(Criterion criterion, SearchState* state, intp_t n_node,
                           intp_t feature, uint32_t common_rank,
                           const uint32_t* rare_positions, const uint32_t* rare_ranks,
                           intp_t n_rare, BestCandidate* best) noexcept nogil

# A node of two samples, its ranks of feature read from source: offers the
# one candidate the sweeps would (the sample of the lower rank left), without
# sorting or counting. Returns 0 when the feature is constant in the node, 1
# when swept, -1 when one sample's value is missing (the sweeps take it).
cdef int sweep_pair(Criterion criterion, SearchState* state, BinSource source,
                    intp_t feature, BestCandidate* best) noexcept nogil
