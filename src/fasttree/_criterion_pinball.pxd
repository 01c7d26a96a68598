# The pinball loss from the weighted alpha-quantile, of one or several
# outputs; the absolute error is twice it at alpha = 0.5.
cimport cython
from libc.stdint cimport int32_t, int64_t, uint8_t, uint32_t, uint64_t

from ._criterion cimport BinSource, Criterion
from ._utils cimport intp_t


# Where a set's weighted alpha-quantile lies among the node's distinct targets.
cdef struct QuantileCursor:
    intp_t index          # the first distinct target at which the set's cumulative
                          # weight reaches alpha times its total
    double below_weight   # the set's weight below that target
    double below_sum      # its weighted target sum there


@cython.final
cdef class PinballLoss(Criterion):
    # Mean pinball loss at level alpha from the weighted alpha-quantile, per
    # output, averaged over the outputs ('quantile'), times impurity_scale
    # (2 at alpha = 0.5 is scikit-learn's 'absolute_error', the mean
    # absolute deviation from the weighted median); a node predicts the
    # weighted alpha-quantiles. The quantile is where the cumulative weight
    # of the sorted targets reaches alpha times the total, the mean of that
    # target and the next when it reaches it exactly (both minimise the
    # loss, and so does their mean). Each output's targets are ranked
    # once; a node sorts its ranks once (restore_node) into its distinct
    # targets, and the sweeps keep the weight, weighted sum and count of
    # each child's targets per distinct target, with a cursor on each
    # child's quantile walked from entry to entry as samples move (a sweep's
    # walks add up to O(m log n) steps through contiguous memory for m
    # distinct targets); a child's loss is then O(1).
    cdef double alpha                  # the quantile level, in (0, 1)
    # The loss's slopes above and below the quantile, doubled (the sums are
    # of half targets): 2 alpha and 2 - 2 alpha, both exactly 1.0 at 0.5, so
    # that the absolute error does the arithmetic it always did.
    cdef double upper_slope
    cdef double lower_slope
    cdef double impurity_scale         # node_impurity's factor on the mean loss
    cdef intp_t n_outputs
    cdef const double* target          # (n_samples, n_outputs) targets
    cdef const uint32_t* target_rank   # (n_samples, n_outputs) their ranks per output
    cdef const int* rank_bits          # per output, significant bits of its largest rank
    cdef double* position_target       # target and rank of the sample at every position
    cdef uint32_t* position_rank
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
    # losses and the cursors' quantiles are in those units too.
    cdef double* node_reference        # per output, half the current node's least target
    cdef double* node_sum              # per output, the node's weighted target sum
    cdef double* left_sum              # and the left child's
    cdef double* node_quantile         # per output, the node's weighted alpha-quantile (a
                                       # target, or the mean of two)
    cdef QuantileCursor* node_cursor   # per output, where the node's quantile lies
    cdef QuantileCursor* left_cursor   # and each child's, walked as samples move
    cdef QuantileCursor* right_cursor
    cdef double node_loss              # the node's pinball losses, summed over outputs
    cdef double steps_per_loss         # the proxy counts losses in steps of the
                                       # inverse of this power of two
    cdef double count_left             # samples moved left
    cdef intp_t n_node
    cdef intp_t block_size             # n_samples + 1
    cdef object _keep_alive

    # Moves a child's cursor of output k to its quantile's entry for the
    # weight target_weight, alpha times the child's (right: the child whose
    # points are the node's minus left_point).
    cdef void walk_cursor(self, intp_t k, QuantileCursor* cursor, bint right,
                          double target_weight) noexcept nogil
    # A child's weighted alpha-quantile of output k, from its cursor and weight.
    cdef double side_quantile(self, intp_t k, const QuantileCursor* cursor, bint right,
                              double weight) noexcept nogil
    # The pinball loss of one child's targets of output k around their
    # weighted alpha-quantile, from its cursor, weight and weighted sum.
    cdef double side_loss(self, intp_t k, const QuantileCursor* cursor, bint right,
                          double weight, double weighted_sum) noexcept nogil
