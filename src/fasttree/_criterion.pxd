# Impurity criteria. A criterion keeps running statistics of a node and of its
# two children while the splitter moves samples, in sorted order, from the
# right child to the left one; every move costs O(1) or O(n_classes).
#
# A criterion reads what the moves need (weights, classes, targets) from
# arrays indexed by position in the builder's samples array, not by sample:
# init_positions fills them once per tree, and partition keeps them aligned
# with the samples whenever a node is split. A node's samples then read them
# from a few contiguous cache lines, whichever rows of the training set they
# are.

cimport cython
from libc.stdint cimport int32_t, int64_t, uint8_t, uint32_t, uint64_t

from ._utils cimport intp_t


# Where a histogram fill finds the bin of every node position: bins[position]
# when node_samples is NULL, else the bin of the position's sample,
# bins[node_samples[position]], one byte each (narrow) or four; first_bin
# is subtracted.
cdef struct BinSource:
    const void* bins
    const uint32_t* node_samples
    uint32_t first_bin
    bint narrow


cdef inline intp_t bin_of(BinSource source, intp_t position) noexcept nogil:
    if source.node_samples == NULL:
        return (<const uint32_t*> source.bins)[position] - source.first_bin
    if source.narrow:
        return (<const uint8_t*> source.bins)[source.node_samples[position]] - source.first_bin
    return (<const uint32_t*> source.bins)[source.node_samples[position]] - source.first_bin


cdef class Criterion:
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
    cdef double* position_weight       # weight of the sample at every position
    cdef bint unit_weights             # every one of them is 1.0 (init_positions)
    cdef double* spare_weight          # partition buffers of the same length
    cdef uint32_t* spare_sample
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
    # Moves the positions [start, end) whose goes_left[i - start] is set
    # before the others, keeping the order within each side, with samples
    # (indexed by position too) along with them, and writes the states of
    # the two sides, in the same pass.
    cdef void partition(self, uint32_t* samples, intp_t start, intp_t end,
                        const uint8_t* goes_left, double* left_state,
                        double* right_state) noexcept nogil
    # Remembers the current left child as the best split's so far (a
    # sweep calls it whenever a split beats the best); partition may then
    # take the children's states from it instead of adding them up.
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
    cdef int64_t* spare_increment      # partition buffer of the same length
    # Sums are exact and every position's weight is positive (so a class is
    # in a child exactly when its weight there is): the children's states
    # are the kept left child and the node minus it.
    cdef bint children_from_kept
    cdef bint may_keep_children        # the module's children_from_sweeps at construction
    cdef double* kept_left             # keep_left's per-class weights, by class number
    cdef double kept_weight_left       # and their total
    cdef int32_t* position_class       # class of the sample at every position
    cdef int32_t* spare_class          # partition buffer of the same length
    cdef const int32_t* node_class     # position_class from the current node's start
    # The current node's classes. The sweeps number only the classes present
    # in it, in index order, so that resets, bins and proxies cost O(classes
    # present), not O(n_classes): deep nodes hold few of many classes.
    cdef intp_t n_node_classes         # classes present in the node
    cdef intp_t* node_classes          # those classes, ascending
    cdef intp_t* class_number          # each present class's number in the node
    cdef double* node_class_total      # per-class weight of the node, by class number
    # Tallies of the classes of a set of positions, for compute_state and
    # for the two sides of a partition: tallies[1] the left, tallies[0] the
    # right, so that a position's goes_left flag picks its side's tally.
    cdef ClassTally tallies[2]
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


cdef class SquaredError(Criterion):
    # A node's sums are of target - reference, its reference being the target
    # of its first position: equal targets sum to exactly 0 (the node's value
    # is then that target), and the sums keep the precision of the node's
    # own spread, whatever the magnitudes of the targets or of the other
    # rows. The state of a node is its weight, sum, loss and reference.
    # Whatever computes a node's state (partition, compute_state) writes its
    # targets minus its reference at its positions, which its sweeps read.
    cdef const double* target          # regression target of every sample
    cdef double* position_target       # target of the sample at every position
    cdef double* spare_target          # partition buffer of the same length
    cdef bint centres                  # references are targets; else 0 (Poisson)
    cdef double* position_centred      # target - reference at every position
    cdef double* spare_centred         # partition buffer of the same length
    cdef const double* node_target     # position_centred from the current node's start
    cdef double reference              # the current node's reference
    cdef double sum_total              # weighted sum of the node's position_centred
    cdef double node_loss              # weighted loss of the node about its mean:
                                       # sum of (target - mean)**2 (squared error)
    cdef double sum_left               # weighted sum of position_centred moved left
    # move_values_left's pass for one side: the values at most threshold, or
    # the missing ones.
    cdef intp_t move_side_left(self, const float* values, float threshold, bint missing,
                               intp_t n_node) noexcept nogil
    cdef object _keep_alive

    # Adds state[2], the weighted loss of positions [start, end) about their
    # mean (node_loss), to a state holding their weight and weighted sum.
    cdef void add_node_loss(self, intp_t start, intp_t end, double* state) noexcept nogil


cdef class Poisson(SquaredError):
    # The same bins and sums as the squared error, of the targets as they are
    # (reference 0); node_loss is the half Poisson deviance, sum of
    # w y log(y / mean), and a split that leaves a child a target sum of
    # (about) zero, whose mean would predict 0, is never taken. state[3]
    # holds the node's common target, NaN when its targets differ.
    cdef double zero_sum_bound         # child target sums at or below this are
                                       # taken as 0: the rounding a sum of the
                                       # node's targets can leave behind
    cdef double common_target          # the current node's state[3]


# What a MultiOutput criterion measures in each output.
cpdef enum OutputImpurity:
    IMPURITY_GINI = 0
    IMPURITY_ENTROPY = 1
    IMPURITY_MISCLASSIFICATION = 2
    IMPURITY_SQUARED_ERROR = 3
    IMPURITY_POISSON = 4


# Final (as are the other criteria below without subclasses): their calls
# to their own methods are direct, which the compiler may inline.
@cython.final
cdef class MultiOutput(Criterion):
    # Several targets per sample (scikit-learn's y of shape (n, k)): the
    # impurity is the mean of the outputs' impurities. Every sample adds
    # weight * value to one column per output: for a regression output k,
    # its target to column k; for a classification output, 1 to the
    # column of its class among the output's columns. The running sums
    # of those columns serve every impurity: a column's sum over the weight
    # is a class fraction or a mean.
    cdef OutputImpurity impurity_kind
    cdef intp_t n_outputs
    cdef const int32_t* sample_column  # (n_samples, n_outputs) column of every sample's entries
    cdef const double* sample_value    # (n_samples, n_outputs) their values
    cdef const intp_t* output_start    # output k owns columns [output_start[k], output_start[k + 1])
    cdef int32_t* position_column      # sample_column of the sample at every position
    cdef double* position_value        # sample_value of the sample at every position
    cdef int32_t* spare_column         # partition buffers of the same lengths
    cdef double* spare_value
    cdef const int32_t* node_column    # position_column from the current node's start
    cdef const double* node_value_of   # position_centred from the current node's start
    cdef double* sum_total             # per column, the node's weighted sum
    cdef double* sum_left              # per column, the left child's
    cdef double* group                 # move_left's bin; all zeros between calls
    cdef double* output_mean           # add_node_loss's means, one per output
    # Squared error: each output's sums are of target - reference, as in
    # SquaredError, and a state's last n_values doubles are the references.
    # Poisson: the sums are of the targets, and those doubles are each
    # output's common target, NaN where its targets differ. Classification
    # states have no such doubles.
    cdef bint centres                  # squared error: references are targets
    cdef double* position_centred      # squared error: position_value minus the
                                       # references of the node holding the
                                       # position; else position_value itself
    cdef double* spare_centred         # partition buffer of the same length
    cdef double* reference             # per column, the current node's (else 0)
    cdef double* common_target         # Poisson: per column, the current node's
    cdef double* side_reference        # partition's references of the two sides
    cdef double node_loss              # regression: the node's squared deviations
                                       # from its means (or Poisson deviance), summed
                                       # over the outputs
    cdef double zero_sum_bound         # Poisson: child sums at or below it count as 0
    cdef object _keep_alive

    # Squared error or Poisson: every output is a regression.
    cdef bint is_regression(self) noexcept nogil
    # Writes state[1], the regression loss of positions [start, end) about
    # the means of a state holding their weight, column sums (state[2:]) and
    # references (squared error), and Poisson's common targets.
    cdef void add_node_loss(self, intp_t start, intp_t end, double* state) noexcept nogil


# Where a set's weighted median lies among the node's distinct targets.
cdef struct MedianCursor:
    intp_t index          # the first distinct target at which the set's cumulative
                          # weight reaches half of its total
    double below_weight   # the set's weight below that target
    double below_sum      # its weighted target sum there


@cython.final
cdef class AbsoluteError(Criterion):
    # Mean absolute deviation from the weighted median, per output, averaged
    # over the outputs (scikit-learn's 'absolute_error'); a node predicts
    # the weighted medians. The median is where the cumulative weight of the
    # sorted targets reaches half the total, the mean of that target and the
    # next when it reaches exactly half. Each output's targets are ranked
    # once; a node sorts its ranks once (restore_node) into its distinct
    # targets, and the sweeps keep the weight, weighted sum and count of
    # each child's targets per distinct target, with a cursor on each
    # child's median walked from entry to entry as samples move (a sweep's
    # walks add up to O(m log n) steps through contiguous memory for m
    # distinct targets); a child's absolute deviation is then O(1).
    cdef intp_t n_outputs
    cdef const double* target          # (n_samples, n_outputs) targets
    cdef const uint32_t* target_rank   # (n_samples, n_outputs) their ranks per output
    cdef const int* rank_bits          # per output, significant bits of its largest rank
    cdef double* position_target       # target and rank of the sample at every position
    cdef uint32_t* position_rank
    cdef double* spare_target          # partition buffers of the same lengths
    cdef uint32_t* spare_rank
    cdef const double* node_target     # position_target from the current node's start
    cdef uint32_t* local_rank          # (n_node, n_outputs) index of each node position's
                                       # target among the node's distinct targets
    cdef double* local_centred         # (n_node, n_outputs) each node position's
                                       # distinct_value
    cdef uint64_t* items               # sort buffers for the node's ranks
    cdef uint64_t* scratch
    # Per output k, blocks of n_samples + 1 entries at k * (n_samples + 1):
    cdef intp_t* n_distinct            # the node's distinct targets of each output
    cdef double* distinct_value        # the node's distinct targets, ascending, as halves
                                       # minus node_reference
    cdef double* distinct_target       # and as they are
    cdef double* node_point            # per distinct target: weight, weighted sum, count
    cdef double* left_point            # the same for the left child (the right's: the
                                       # node's minus the left's)
    # The sweeps work on halves of the targets (see HALF) minus half the
    # node's least target (of each output): their weighted sums keep the
    # precision of the node's spread whatever the targets' magnitudes, and
    # losses and the cursors' medians are in those units too.
    cdef double* node_reference        # per output, half the current node's least target
    cdef double* node_sum              # per output, the node's weighted target sum
    cdef double* left_sum              # and the left child's
    cdef double* node_median           # per output, the node's weighted median (a target,
                                       # or the mean of two)
    cdef MedianCursor* node_cursor     # per output, where the node's median lies
    cdef MedianCursor* left_cursor     # and each child's, walked as samples move
    cdef MedianCursor* right_cursor
    cdef double node_loss              # the node's absolute deviations, summed over outputs
    cdef double steps_per_loss         # the proxy counts losses in steps of the
                                       # inverse of this power of two
    cdef double count_left             # samples moved left
    cdef intp_t n_node
    cdef intp_t block_size             # n_samples + 1
    cdef object _keep_alive

    # Moves a child's cursor of output k to its median's entry for the
    # child's half weight (right: the child whose points are the node's
    # minus left_point).
    cdef void walk_cursor(self, intp_t k, MedianCursor* cursor, bint right,
                          double half) noexcept nogil
    # A child's weighted median of output k, from its cursor and weight.
    cdef double side_median(self, intp_t k, const MedianCursor* cursor, bint right,
                            double weight) noexcept nogil
    # The absolute deviation of one child's targets of output k from their
    # weighted median, from its cursor, weight and weighted sum.
    cdef double side_loss(self, intp_t k, const MedianCursor* cursor, bint right,
                          double weight, double weighted_sum) noexcept nogil
