# Classification criteria: Gini, Gini with a loss matrix, entropy and
# misclassification, over the classes of a single output.
cimport cython
from libc.stdint cimport int32_t, int64_t, uint8_t, uint32_t, uint64_t

from ._criterion cimport BinSource, Criterion
from ._utils cimport intp_t


# The classes seen among some positions and their weights, by class index.
cdef struct ClassTally:
    double* total          # weight of every class; zero for the classes not seen
    char* seen             # 1 for the classes seen
    intp_t* classes        # the classes seen, in the order first seen
    intp_t n_seen          # how many
    double weight          # weight of all the positions added


cdef class ClassificationCriterion(Criterion):
    cdef const int32_t* class_index    # encoded class of every sample
    cdef intp_t n_classes
    # Whole weights summing below 2**31: a sample's weight and its count add
    # to a bin as one 64-bit integer, (weight << 32) | 1.
    cdef bint packed_sums
    cdef int64_t* position_increment   # packed_sums: (weight << 32) | 1 of the sample at
                                       # every position; NULL otherwise
    # Sums are exact and every position's weight is positive (so a class is
    # in a child exactly when its weight there is): the children's states
    # are the kept left child and the node minus it.
    cdef bint children_from_kept
    cdef bint may_keep_children        # the module's children_from_sweeps at construction
    cdef double* kept_left             # keep_left's per-class weights, by class number
    cdef double kept_weight_left       # and their total
    cdef int32_t* position_class       # class of the sample at every position
    cdef const int32_t* node_class     # position_class from the current node's start
    # The current node's classes. The sweeps number only the classes present
    # in it, in index order, so that resets, bins and proxies cost O(classes
    # present), not O(n_classes): deep nodes hold few of many classes.
    cdef intp_t n_node_classes         # classes present in the node
    cdef intp_t* node_classes          # those classes, ascending
    cdef intp_t* class_number          # each present class's number in the node
    cdef double* node_class_total      # per-class weight of the node, by class number
    cdef ClassTally tally              # compute_state's tally of a set of positions
    cdef double* weight_left           # per-class weight of the left child, by class number
    cdef double* weight_right          # per-class weight of the right child, by class number
    cdef double* group_weight          # per-class weight of the tied samples move_left
                                       # moves at once; all zeros between calls
    cdef intp_t* group_classes         # classes present in that group
    cdef int64_t* value_sums           # move_values_left's packed sums: 4 copies per class
    cdef double* value_bin             # and the bin it moves (1 + n_classes doubles)
    cdef object _keep_alive            # owners of the arrays pointed to

    # The fraction of class 1 in a class-number-indexed set of weights.
    cdef double positive_fraction(self, const double* weights, double total) noexcept nogil
    # Moves one class's weight from the right child to the left one.
    cdef void move_class_weight_left(self, intp_t label, double weight) noexcept nogil
    # The children's states from the kept left child (children_from_kept).
    cdef void write_kept_states(self, double* left_state, double* right_state) noexcept nogil


cdef class Gini(ClassificationCriterion):
    cdef double squares_left           # sum over classes of weight_left**2
    cdef double squares_right          # sum over classes of weight_right**2
    cdef double node_squares           # sum over the node's classes of total**2


cdef class CostSensitiveGini(ClassificationCriterion):
    # Impurity sum over i != j of loss[i, j] p_i p_j, that is w' L w / W**2
    # for class weights w of total W; moving weight s of class c to the left
    # adds s (M w_left)[c] to w_left' L w_left, with M = L + L' (L's
    # diagonal is zero), and takes s (M w_right)[c] from the right's.
    cdef const double* loss            # n_classes x n_classes, row-major, zero diagonal
    cdef double* node_symmetric        # M over the node's classes, by class number
    cdef double quadratic_left         # w_left' L w_left
    cdef double quadratic_right        # w_right' L w_right
    cdef double node_quadratic         # w' L w of the node
    cdef object _loss_array


cdef class Entropy(ClassificationCriterion):
    # With integer weights every count is a whole number, so w log w comes
    # from a table instead of a log call per class per candidate.
    cdef const double* weight_log_weight_table   # i log i for i <= total weight, or NULL
    cdef object _table
    # proxy_bound's state. The proxy sums w log w over the classes of both
    # children; move_stats_left keeps that sum up to date, in O(1) per class
    # moved, though in another order than the proxy adds it, so it may
    # differ in the last bits: these bound by how much.
    cdef bint node_logs_ready          # node_log_sum and node_log_size are the node's
    cdef double node_log_sum           # sum over the node's classes of w log w
    cdef double node_log_size          # and of |w log w|
    cdef double log_sum                # the sum for the current children
    cdef double log_size               # and of |w log w|
    cdef double log_drift              # its rounding so far, in units of 2**-53

    cdef double weight_log(self, double weight) noexcept nogil


cdef class Misclassification(ClassificationCriterion):
    # proxy_bound's state: the children's largest class weights, exact on
    # the left (move_stats_left keeps it) and bounded on the right (weights
    # only leave the right child; each proxy_improvement tightens it).
    cdef double largest_left
    cdef double largest_right_bound
