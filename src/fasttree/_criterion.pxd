# Impurity criteria. A criterion keeps running statistics of a node and of its
# two children while the splitter moves samples, in sorted order, from the
# right child to the left one; every move costs O(1) or O(n_classes).
#
# A criterion reads what the moves need (weights, classes, targets) from
# arrays indexed by position in the builder's samples array, not by sample:
# init_positions fills them once per tree, and the splitter keeps them aligned
# with the samples whenever it partitions a node. A node's samples then read them
# from a few contiguous cache lines, whichever rows of the training set they
# are.

from libc.math cimport INFINITY, log
from libc.stdint cimport int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t

from ._utils cimport intp_t


# Where a histogram fill finds the bin of every node position: bins[position]
# (four bytes each) when node_samples is NULL, else the bin of the
# position's sample, bins[node_samples[position]], of 1 << shift bytes each
# (BIN_BYTES_1, _2 or _4: the narrow ranks and bin codes, the two-byte bin
# codes of more than 256 bins, the ranks); first_bin is subtracted.
cdef struct BinSource:
    const void* bins
    const uint32_t* node_samples
    uint32_t first_bin
    int shift


cdef enum:
    BIN_BYTES_1 = 0
    BIN_BYTES_2 = 1
    BIN_BYTES_4 = 2


cdef inline intp_t bin_of(BinSource source, intp_t position) noexcept nogil:
    if source.node_samples == NULL:
        return (<const uint32_t*> source.bins)[position] - source.first_bin
    if source.shift == BIN_BYTES_1:
        return (<const uint8_t*> source.bins)[source.node_samples[position]] - source.first_bin
    if source.shift == BIN_BYTES_2:
        return (<const uint16_t*> source.bins)[source.node_samples[position]] - source.first_bin
    return (<const uint32_t*> source.bins)[source.node_samples[position]] - source.first_bin


# One array a criterion keeps by position.
cdef struct PositionArray:
    char* items                        # the item of position 0
    size_t item_size                   # bytes per position


cdef enum:
    MAX_MOVED_ARRAYS = 4               # position_weight and at most three of a family's


# Criterion.inline_sweep.
cdef enum:
    INLINE_NONE = 0
    INLINE_SQUARED_ERROR = 1
    INLINE_GINI = 2


cdef class Criterion:
    # The constructor's arguments, for clone (a thread's own criterion).
    cdef readonly object init_args
    cdef int allocate_positions(self, intp_t n_samples) except -1
    cdef const double* sample_weight   # weight of every training sample
    cdef readonly intp_t n_values      # length of a node's value vector
    cdef readonly intp_t n_bin_stats   # doubles in a bin of the current node: its
                                       # weight, then its statistics
    cdef double weighted_n_node        # total weight of the current node
    # Weight moved to the left child so far. The right child's is always
    # weighted_n_node - weighted_n_left, computed where it is read: storing it
    # beside this field invites the compiler to merge both stores into one
    # 16-byte write that later 8-byte reads cannot forward from, which once
    # cost the sorted sweep 15% of its time.
    cdef double weighted_n_left
    # Every sum of bin statistics is exact whatever the order of its terms
    # (classification with whole weights): fills may add in any order.
    cdef readonly bint exact_sums
    # No bins at all: a bin's sums do not tell the criterion what it needs
    # (medians), so every sweep moves the samples one by one, in order
    # (the splitter sorts, and random splits move their sides' samples).
    cdef readonly bint needs_sorted_moves
    # Whose moves and proxy the sorted and counted sweeps may do themselves,
    # on its fields, with the same arithmetic (_inline_criterion.pxd):
    # INLINE_NONE, or the value of SquaredError or Gini, which set it; a
    # subclass that changes either resets it.
    cdef readonly int inline_sweep
    cdef double* position_weight       # weight of the sample at every position
    cdef bint unit_weights             # every one of them is 1.0 (init_positions)
    # The arrays kept by position that the splitter moves with the samples
    # when it partitions a node (_utils.stable_partition): position_weight
    # and the family's own. Arrays that computing a node's state rewrites
    # (targets minus the node's reference) need no moving and are not here.
    cdef PositionArray moved[MAX_MOVED_ARRAYS]
    cdef readonly intp_t n_moved
    cdef readonly size_t largest_item  # bytes of the largest item of those, or of a sample
    cdef int move_with_samples(self, void* items, size_t item_size) except -1
    cdef const double* node_weight     # position_weight from the current node's start

    # Doubles that hold a node's statistics (its "state"): what makes a node
    # current again without another pass over its samples.
    cdef readonly intp_t state_size
    cdef double* scratch_state         # state_size doubles for init_node

    # Copies the statistics of samples[0:n_samples] to positions 0..n_samples-1.
    cdef void init_positions(self, const uint32_t* samples, intp_t n_samples) noexcept nogil
    # Makes positions [start, end) the current node, computing its statistics.
    cdef void init_node(self, intp_t start, intp_t end) noexcept nogil
    # Writes the state of positions [start, end): one pass, in position order.
    cdef void compute_state(self, intp_t start, intp_t end, double* state) noexcept nogil
    # Makes positions [start, end) the current node from its state, in
    # O(classes present): the same numbers init_node computes.
    cdef void restore_node(self, intp_t start, intp_t end, const double* state) noexcept nogil
    # Writes the states of positions [start, middle) and [middle, end), the
    # two children of a node the splitter has just partitioned: compute_state
    # of each, unless the criterion knows them from the sweep that chose
    # the split (see keep_left).
    cdef void children_states(self, intp_t start, intp_t middle, intp_t end,
                              double* left_state, double* right_state) noexcept nogil
    # Remembers the current left child as the best split's so far (a
    # sweep calls it whenever a split beats the best); children_states may
    # then take the children's states from it instead of adding them up.
    cdef void keep_left(self) noexcept nogil
    # Puts every sample of the node back into the right child.
    cdef void reset(self) noexcept nogil
    # Moves the samples at the node positions of sorted_items[begin:end]
    # (their low halves), which share one value, into the left child. They
    # are summed into a bin in item order and moved as move_bin_left moves a
    # bin, so that the sorted sweep and the histogram sweep do the same
    # arithmetic and find the same split, bit for bit.
    cdef void move_left(self, const uint64_t* sorted_items, intp_t begin,
                        intp_t end) noexcept nogil
    # Moves the sample at a node position into the left child: move_bin_left
    # of a bin holding it alone.
    cdef void move_position_left(self, intp_t position) noexcept nogil
    # Adds the weight and statistics of every sample of the node, in node
    # order, to its bin of stats (rows of n_bin_stats doubles: the weight,
    # then the statistics), and counts it in counts. With n_copies > 1 (a
    # power of two, only when exact_sums), stats and counts hold that many
    # copies of the n_bins bins, one after another, and the sample at node
    # position i goes to copy i % n_copies.
    cdef void add_to_bins(self, double* stats, intp_t* counts, intp_t n_copies,
                          intp_t n_bins, BinSource source, intp_t n_node) noexcept nogil
    # Exact sums only (the splitter's rare-row fills): add_to_bins for the
    # node positions listed in positions alone, each into its bin in
    # position_bins (all into bin 0 when NULL), and the bin rest_bin made
    # the node's totals minus every other bin (so that it holds the
    # unlisted positions, exactly).
    cdef void add_positions_to_bins(self, double* stats, intp_t* counts, intp_t n_bins,
                                    const uint32_t* positions, const uint32_t* position_bins,
                                    intp_t n_positions) noexcept nogil
    cdef void write_rest_bin(self, double* stats, intp_t* counts, intp_t n_bins,
                             intp_t rest_bin, intp_t n_node) noexcept nogil
    # Moves the samples summed in a bin into the left child.
    cdef void move_bin_left(self, const double* bin) noexcept nogil
    # A random split's left side in one pass, if the criterion has a fast
    # way: moves into the left child the node positions whose value
    # (values[i], missing ones +inf) is at most threshold, or is missing
    # when missing_left, with the arithmetic of a fill of them into one bin
    # and move_bin_left of it. Returns how many moved, or -1 when the
    # criterion has no such way (the splitter then fills bins).
    cdef intp_t move_values_left(self, const float* values, float threshold,
                                 bint missing_left, intp_t n_node) noexcept nogil
    # When moves_sparse_bins (classification): move_bin_left of a bin given
    # by its weight and its non-zero statistics, bin[stats[e]] = values[e]
    # (stats ascending, from 1), in O(n_stats), with the same numbers. A
    # subset sweep's categories hold few of a node's many classes.
    cdef readonly bint moves_sparse_bins
    cdef void move_stats_left(self, double weight, const intp_t* stats, const double* values,
                              intp_t n_stats) noexcept nogil
    # Whether proxy_bound bounds the proxy (criteria whose proxy costs
    # O(classes in the node)): an upper bound of proxy_improvement in O(1),
    # valid when every move since the last reset was a move_stats_left; it
    # lets a subset sweep pass over candidates that cannot beat its best.
    cdef readonly bint bounds_proxy
    cdef double proxy_bound(self) noexcept nogil
    # The orderings of a node's categories whose prefixes a subset split
    # tries (the bins of the current node's categories): ordering o sorts
    # them by bin[slots[o]] / bin[0], their share of a class or their mean
    # target, or by their own order when slots[o] is -1. Returns the number
    # of orderings (at most n_values + 1 slots are written) and sets singles
    # when each category alone is tried as well.
    cdef intp_t category_orderings(self, intp_t* slots, bint* singles) noexcept nogil
    # A quantity that orders the splits of one node as their improvement does.
    cdef double proxy_improvement(self) noexcept nogil
    # The current node's magnitude of the terms proxy_improvement adds where
    # they may cancel (entropy's w log w, Poisson's S log(S / w)), beside
    # which its rounding is measured (_utils.beats_best); 0 where the proxy
    # sums terms of one sign, so that its own magnitude measures it.
    cdef double proxy_scale(self) noexcept nogil
    # Impurity of the current node.
    cdef double node_impurity(self) noexcept nogil
    # Writes the node's prediction (class fractions or mean) into out.
    cdef void node_value(self, double* out) noexcept nogil
    # Writes the non-zero entries of node_value, in ascending index order, to
    # index and data (room for n_values entries); returns their number.
    cdef intp_t node_value_entries(self, int32_t* index, double* data) noexcept nogil
    # The value a monotonic constraint bounds (a regression's mean or median,
    # a binary classifier's fraction of class 1): of the current node, and
    # of the current left and right children.
    cdef double monotone_value(self) noexcept nogil
    cdef void children_values(self, double* left, double* right) noexcept nogil


# A buffer of count items of size bytes (at least one item), or MemoryError.
cdef void* allocate(intp_t count, size_t size) except NULL


# Helpers of several criterion families, inline wherever they are cimported.

cdef inline double weight_log_weight(double weight) noexcept nogil:
    # 0 log 0 = 0, the convention of information theory.
    if weight <= 0.0:
        return 0.0
    return weight * log(weight)


cdef inline double log_ratio(double target, double mean) noexcept nogil:
    # log(target / mean) of positive numbers, also when the ratio under- or
    # overflows (targets 1e-300 and 1e300 in one node).
    cdef double ratio = target / mean
    if 0.0 < ratio < INFINITY:
        return log(ratio)
    return log(target) - log(mean)
