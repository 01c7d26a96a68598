# Several outputs at once, each classification or regression.
cimport cython
from libc.stdint cimport int32_t, int64_t, uint8_t, uint32_t, uint64_t

from ._criterion cimport BinSource, Criterion
from ._utils cimport intp_t


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
    cdef double* reference             # per column, the current node's (else 0)
    cdef double* common_target         # Poisson: per column, the current node's
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
