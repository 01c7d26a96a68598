# The exact split search: for each candidate feature, sort the node's samples
# by their precomputed value rank, then sweep the thresholds once.

from libc.stdint cimport uint32_t, uint64_t

from ._criterion cimport Criterion
from ._utils cimport intp_t


cdef struct SplitRecord:
    intp_t feature            # feature of the split, -1 when none was found
    intp_t position           # samples[start:position] go left once partitioned
    uint32_t threshold_rank   # samples whose rank is <= this go left
    float threshold           # the same rule on values: x <= threshold goes left
    double proxy_improvement  # the criterion's proxy, to compare candidates
    double impurity_left      # impurity of the left child
    double impurity_right     # impurity of the right child
    double weighted_n_left    # weight of the left child
    double weighted_n_right   # weight of the right child


cdef class Splitter:
    cdef Criterion criterion
    cdef const uint32_t* ranks        # (n_features, n_samples) dense value ranks
    cdef const float* values          # each feature's distinct sorted values, concatenated
    cdef const intp_t* value_offsets  # feature f's values start at value_offsets[f]
    cdef intp_t n_samples             # rows of the training matrix
    cdef intp_t n_features
    cdef intp_t max_features          # features to evaluate per node
    cdef intp_t min_samples_leaf
    cdef double min_weight_leaf
    cdef uint64_t rng_state
    cdef intp_t* features             # a permutation; known constant features first
    cdef uint64_t* items              # sort buffer, n_samples items
    cdef uint64_t* scratch            # second sort buffer for the radix passes
    cdef object _keep_alive

    # Finds the best split of samples[start:end] and partitions that range so
    # that the left child comes first. features[0:n_known_constants] are known
    # to be constant in this node; on return n_constants holds the count that
    # includes those found here. Returns -1 when out of memory, else 0.
    cdef int split_node(self, uint32_t* samples, intp_t start, intp_t end,
                        intp_t n_known_constants, SplitRecord* best,
                        intp_t* n_constants) noexcept nogil
