# Histogram subtraction: when a node splits, the histograms of all of a
# feature's values that its sweeps filled give its children's: the smaller
# child's are filled (a pass over its samples), the larger child's are the
# parent's minus them (O(bins)), and both wait here until the child is
# split, which then sweeps them without a pass over its samples.
#
# Only for criteria whose bin sums are exact (Criterion.exact_sums): the
# difference is then the very histogram a fill would make, and the trees do
# not change. A parent and a child with the same n_bin_stats number their
# statistics alike (a classification criterion numbers a node's classes in
# ascending order, and a child's classes are among its parent's).
#
# Nodes are known by their range of positions: a split node's children are
# [start, position) and [position, end), and a node's samples stay its
# range's until the tree is grown, whatever its descendants' partitions do.
# Depth-first growth only, which splits nodes left to right: a node that
# ends where a later one starts has had its subtree grown, and is forgotten.
# So at most one waiting node per level of the current path.

from ._histogram cimport Histogram
from ._utils cimport intp_t


# The most bins a kept histogram may have: a feature of at most 256 values
# (every binned feature, and narrow exact ones); a wider histogram would
# cost more to keep than its fill.
cdef enum:
    MAX_KEPT_BINS = 256


# One node's histograms.
cdef struct KeptNode:
    intp_t start             # the node's range of positions
    intp_t end
    intp_t n_bin_stats       # doubles per bin of its histograms
    double** stats           # per feature, its bins' doubles (rows of n_bin_stats),
                             # allocated when first kept, NULL before
    intp_t* stats_capacity   # per feature, the doubles allocated there
    intp_t* counts           # n_features slots of MAX_KEPT_BINS counts
    intp_t* n_bins           # per feature, the bins kept, 0 for none


cdef struct NodeHistograms:
    KeptNode* nodes          # capacity entries; [0, n_nodes) in use
    intp_t n_nodes
    intp_t capacity
    intp_t n_features


cdef void node_histograms_init(NodeHistograms* store, intp_t n_features) noexcept nogil
cdef void node_histograms_free(NodeHistograms* store) noexcept nogil
# Forgets every node (a new tree).
cdef void node_histograms_clear(NodeHistograms* store) noexcept nogil
# The entry of the node [start, end): its parent's when its parent left
# one (emptied when numbered for other than n_bin_stats), else a new empty
# one. With forget_done (when the node is about to be split), forgets the
# entries of the other nodes but those waiting after it: their subtrees are
# grown. Returns its index, or -1 when out of memory. Entries move only
# when one is forgotten.
cdef intp_t node_histograms_open(NodeHistograms* store, intp_t start, intp_t end,
                                 intp_t n_bin_stats, bint forget_done) noexcept nogil
# Forgets the node of entry index.
cdef void node_histograms_forget(NodeHistograms* store, intp_t index) noexcept nogil
# The kept bins of feature at entry index, or NULL: stats (n_bins rows of
# the entry's n_bin_stats doubles), its counts in *counts.
cdef double* node_histograms_bins(NodeHistograms* store, intp_t index, intp_t feature,
                                  intp_t n_bins, intp_t** counts) noexcept nogil
# Room for n_bins bins of feature at entry index, marked kept; its counts in
# *counts. NULL when out of memory, or when n_bins > MAX_KEPT_BINS.
cdef double* node_histograms_slot(NodeHistograms* store, intp_t index, intp_t feature,
                                  intp_t n_bins, intp_t** counts) noexcept nogil
# Keeps histogram's n_bins bins as feature's at entry index. Returns -1 when
# out of memory, else 0 (also when too wide to keep: nothing is kept).
cdef int node_histograms_keep(NodeHistograms* store, intp_t index, intp_t feature,
                              const Histogram* histogram, intp_t n_bins) noexcept nogil
