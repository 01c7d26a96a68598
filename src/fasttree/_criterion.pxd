# Impurity criteria. A criterion keeps running statistics of a node and of its
# two children while the splitter moves samples, in sorted order, from the
# right child to the left one; every move costs O(1) or O(n_classes).
#
# The sweeps name a node's samples by their position in the node: gather_node
# copies what the moves read (weights, classes or weighted targets) into
# arrays in node order once per node, so that the sweep of every feature
# reads them from a few cache lines instead of the whole training set.

from libc.stdint cimport int32_t, uint32_t, uint64_t

from ._utils cimport intp_t


cdef class Criterion:
    cdef int allocate_buffers(self, intp_t n_samples) except -1
    cdef const double* sample_weight   # weight of every training sample
    cdef readonly intp_t n_values      # length of a node's value vector
    cdef readonly intp_t n_bin_stats   # doubles in a bin: its weight, then n_values statistics
    cdef double weighted_n_node        # total weight of the current node
    # Weight moved to the left child so far. The right child's is always
    # weighted_n_node - weighted_n_left, computed where it is read: storing it
    # beside this field invites the compiler to merge both stores into one
    # 16-byte write that later 8-byte reads cannot forward from, which once
    # cost the sorted sweep 15% of its time.
    cdef double weighted_n_left
    cdef double* node_weight           # weight of the gathered node's samples, by position

    # Computes the statistics of the node holding samples[start:end].
    cdef void init_node(self, const uint32_t* samples, intp_t start,
                        intp_t end) noexcept nogil
    # Copies what the moves read for node_samples[0:n_node] into node order.
    cdef void gather_node(self, const uint32_t* node_samples, intp_t n_node) noexcept nogil
    # Puts every sample of the node back into the right child.
    cdef void reset(self) noexcept nogil
    # Moves the samples at the positions of sorted_items[begin:end] (their low
    # halves), which share one value, into the left child. They are summed into
    # a bin in item order and moved as move_bin_left moves a bin, so that the
    # sorted sweep and the histogram sweep do the same arithmetic and find the
    # same split, bit for bit.
    cdef void move_left(self, const uint64_t* sorted_items, intp_t begin,
                        intp_t end) noexcept nogil
    # Moves the sample at a position into the left child: move_bin_left of a
    # bin holding it alone.
    cdef void move_position_left(self, intp_t position) noexcept nogil
    # Adds the weight and statistics of every sample of the gathered node, in
    # node order, to its bin of stats (rows of n_bin_stats doubles: the
    # weight, then the statistics), and counts it in counts. The sample at
    # position i falls in bin bins[i] - first_bin, or, when node_samples is
    # not NULL, in bin bins[node_samples[i]] - first_bin (bins then holds a
    # bin for every training sample: a feature's ranks).
    cdef void add_to_bins(self, double* stats, intp_t* counts, const uint32_t* bins,
                          const uint32_t* node_samples, uint32_t first_bin,
                          intp_t n_node) noexcept nogil
    # Moves the samples summed in a bin into the left child.
    cdef void move_bin_left(self, const double* bin) noexcept nogil
    # A quantity that orders the splits of one node as their improvement does.
    cdef double proxy_improvement(self) noexcept nogil
    # Impurity of the node given to init_node.
    cdef double node_impurity(self) noexcept nogil
    # Writes the node's prediction (class fractions or mean) into out.
    cdef void node_value(self, double* out) noexcept nogil


cdef class ClassificationCriterion(Criterion):
    cdef const int32_t* class_index    # encoded class of every sample
    cdef intp_t n_classes
    cdef double* weight_total          # per-class weight in the node given to init_node
    cdef double* weight_left           # per-class weight in the left child (node numbering)
    cdef double* weight_right          # per-class weight in the right child (node numbering)
    cdef double* group_weight          # per-class weight of the tied samples move_left
                                       # moves at once; all zeros between calls
    cdef intp_t* group_classes         # classes present in that group
    # The sweeps number only the classes present in the gathered node, in
    # index order, so that resets, bins and proxies cost O(classes present),
    # not O(n_classes): deep nodes hold few of many classes.
    cdef intp_t n_node_classes         # classes present in the gathered node
    cdef int32_t* node_class           # its samples' classes in that numbering, by position
    cdef double* node_class_total      # weight of each of its classes
    cdef intp_t* node_class_number     # scratch: each class's number in the node
    cdef char* class_present           # scratch: which classes the node holds
    cdef object _keep_alive            # owners of the arrays pointed to

    # Moves one class's weight from the right child to the left one.
    cdef void move_class_weight_left(self, intp_t label, double weight) noexcept nogil


cdef class Gini(ClassificationCriterion):
    cdef double squares_left           # sum over classes of weight_left**2
    cdef double squares_right          # sum over classes of weight_right**2
    cdef double node_squares           # sum over the gathered node's classes of total**2


cdef class Entropy(ClassificationCriterion):
    # With integer weights every count is a whole number, so w log w comes
    # from a table instead of a log call per class per candidate.
    cdef const double* weight_log_weight_table   # i log i for i <= total weight, or NULL
    cdef object _table

    cdef double weight_log(self, double weight) noexcept nogil


cdef class Misclassification(ClassificationCriterion):
    pass


cdef class SquaredError(Criterion):
    cdef const double* target          # regression target of every sample
    cdef double sum_total              # weighted sum of targets in the node
    cdef double squared_deviations     # weighted sum of (target - node mean)**2
    cdef double sum_left               # weighted sum of targets moved left
    cdef double* node_weighted_target  # weight * target of the gathered node's samples
    cdef object _keep_alive
