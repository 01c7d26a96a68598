# Regression criteria of a single output: squared error and Poisson deviance.
cimport cython
from libc.stdint cimport int32_t, int64_t, uint8_t, uint32_t, uint64_t

from ._criterion cimport BinSource, Criterion
from ._utils cimport intp_t


cdef class SquaredError(Criterion):
    # A node's sums are of target - reference, its reference being the target
    # of its first position: equal targets sum to exactly 0 (the node's value
    # is then that target), and the sums keep the precision of the node's
    # own spread, whatever the magnitudes of the targets or of the other
    # rows. The state of a node is its weight, sum, loss and reference.
    # Whatever computes a node's state (compute_state, children_states) writes
    # its targets minus its reference at its positions, which its sweeps read.
    cdef const double* target          # regression target of every sample
    cdef double* position_target       # target of the sample at every position
    cdef bint centres                  # references are targets; else 0 (Poisson)
    cdef double* position_centred      # target - reference at every position
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
