# Sparse columns as a row source: features whose common value fills most
# rows keep, per row, the features in which that row does not hold it (its
# rare entries; fasttree._features.rank_features). A node either indexes
# its rows by those features once (O(features + the node's rare entries))
# or, when few features are drawn, looks up each drawn feature's rare rows
# in a map of the node's samples (O(that feature's rare rows)); either way
# a sweep sums a feature's bins from its rare rows in the node alone.

cimport cython
from libc.stdint cimport uint32_t

from ._utils cimport intp_t


# How a node reaches its rare rows (RareRows.rows_in_node's access).
cdef enum:
    RARE_UNDECIDED = 0        # not yet: the node's first feature with a common value decides
    RARE_INDEXED = 1          # index_rare_rows ran for the node
    RARE_LISTED = 2           # sample_position maps the node's samples


# Final: its methods are called directly, and inlined, not through a vtable.
@cython.final
cdef class RareRows:
    cdef intp_t n_samples
    cdef intp_t n_features
    cdef intp_t max_features          # features the splitter evaluates per node
    # Per feature the common value's rank (NO_COMMON without one), and per
    # row the features in which it does not hold it, with their ranks.
    cdef const uint32_t* common_rank
    cdef const intp_t* rare_feature_offsets
    cdef const uint32_t* rare_features
    cdef const uint32_t* rare_feature_ranks  # the rank of every rare_features entry
    # The same by feature: feature f's rare rows and their ranks are
    # rare_rows[rare_offsets[f]:rare_offsets[f + 1]], in rare_ranks.
    cdef const intp_t* rare_offsets
    cdef const uint32_t* rare_rows
    cdef const uint32_t* rare_ranks
    cdef double rare_per_row          # rare entries per training row, on average
    cdef double rare_per_feature      # and per feature that has a common value
    cdef intp_t* node_rare_start      # per feature, where its node positions start in
                                      # node_rare_positions (n_features + 1 entries)
    cdef intp_t* node_rare_fill       # placement cursors of the same length
    cdef uint32_t* node_rare_positions
    cdef uint32_t* node_rare_ranks    # their ranks, aligned with them
    cdef uint32_t* sample_position    # the node position of every sample of the
                                      # current node (stale entries for the others)
    cdef uint32_t* listed_positions   # list_rare_rows' result
    cdef uint32_t* listed_ranks       # and its ranks
    cdef object _keep_alive

    # The node positions (and ranks) of the rows of the node of
    # node_samples that do not hold feature's common value, when the
    # feature has one and they are cheap to reach: their number, with
    # positions and ranks pointing to them; else -1. access is the node's
    # way to its rare rows, RARE_UNDECIDED before its first call at a node,
    # kept by the caller for the node's other features.
    cdef intp_t rows_in_node(self, intp_t feature, const uint32_t* node_samples,
                             intp_t n_node, int* access, const uint32_t** positions,
                             const uint32_t** ranks) noexcept nogil

    # rows_in_node's steps: the cheaper access for the node's size;
    # buckets of the node's positions by the features in which their rows
    # do not hold the common value (node_rare_start, node_rare_positions,
    # node_rare_ranks); and, with sample_position mapping the node, the
    # node positions of feature's rare rows written to listed_positions
    # (their ranks to listed_ranks), returning their number.
    cdef int choose_access(self, const uint32_t* node_samples, intp_t n_node) noexcept nogil
    cdef void index_rare_rows(self, const uint32_t* node_samples, intp_t n_node) noexcept nogil
    cdef intp_t list_rare_rows(self, intp_t feature, const uint32_t* node_samples,
                               intp_t n_node) noexcept nogil
