# cython: language_level=3
"""Regression criteria of a single output: squared error and Poisson deviance."""

from libc.float cimport DBL_EPSILON
from libc.math cimport INFINITY, NAN, log
from libc.stdlib cimport free
from libc.string cimport memcpy

from ._criterion cimport INLINE_NONE, INLINE_SQUARED_ERROR, allocate, bin_of, log_ratio
from ._utils cimport cancelling_scale, item_position

cdef extern from "_vector.h":
    intp_t ft_left_sums(const float* values, float threshold, int missing,
                        const double* weight, const double* target, intp_t n,
                        double* weight_sum, double* target_sum) noexcept nogil


cdef inline void add_target_to_bin(double* bin, intp_t* count, double weight,
                                   double weighted_target) noexcept nogil:
    count[0] += 1
    bin[0] += weight
    bin[1] += weighted_target


cdef class SquaredError(Criterion):
    """Weighted variance of the target; the proxy is S_l**2/w_l + S_r**2/w_r."""

    def __cinit__(self, const double[::1] target not None,
                  const double[::1] sample_weight not None):
        self.target = &target[0]
        self.sample_weight = &sample_weight[0]
        self.n_values = 1
        self.n_bin_stats = 2
        self._keep_alive = (target, sample_weight)
        # weight, weighted sum of target - reference, squared deviations, reference
        self.state_size = 4
        self.allocate_positions(target.shape[0])
        self.position_target = <double*> allocate(target.shape[0], sizeof(double))
        self.move_with_samples(self.position_target, sizeof(double))
        self.centres = True
        self.inline_sweep = INLINE_SQUARED_ERROR
        self.position_centred = <double*> allocate(target.shape[0], sizeof(double))

    def __dealloc__(self):
        free(self.position_centred)
        free(self.position_target)

    cdef void init_positions(self, const uint32_t* samples, intp_t n_samples) noexcept nogil:
        cdef intp_t i
        Criterion.init_positions(self, samples, n_samples)
        for i in range(n_samples):
            self.position_target[i] = self.target[samples[i]]

    cdef void compute_state(self, intp_t start, intp_t end, double* state) noexcept nogil:
        cdef intp_t i
        cdef double weight, centred, weighted_n_node = 0.0, sum_total = 0.0
        cdef double reference = self.position_target[start] if self.centres else 0.0
        for i in range(start, end):
            weight = self.position_weight[i]
            centred = self.position_target[i] - reference
            self.position_centred[i] = centred
            weighted_n_node += weight
            sum_total += weight * centred
        state[0] = weighted_n_node
        state[1] = sum_total
        state[3] = reference
        self.add_node_loss(start, end, state)

    cdef void add_node_loss(self, intp_t start, intp_t end, double* state) noexcept nogil:
        # A second pass over the deviations from the mean: unlike the sum of
        # squares minus the squared sum, it gives exactly 0 for equal targets
        # and keeps its precision when the mean is large.
        cdef intp_t i
        cdef double deviation, squared_deviations = 0.0
        cdef double mean = state[1] / state[0]
        for i in range(start, end):
            deviation = self.position_centred[i] - mean
            squared_deviations += self.position_weight[i] * deviation * deviation
        state[2] = squared_deviations

    cdef void restore_node(self, intp_t start, intp_t end, const double* state) noexcept nogil:
        self.node_weight = self.position_weight + start
        self.node_target = self.position_centred + start
        self.weighted_n_node = state[0]
        self.sum_total = state[1]
        self.node_loss = state[2]
        self.reference = state[3] if self.centres else 0.0
        self.reset()

    cdef void reset(self) noexcept nogil:
        self.sum_left = 0.0
        self.weighted_n_left = 0.0

    cdef void move_position_left(self, intp_t position) noexcept nogil:
        cdef double weight = self.node_weight[position]
        self.sum_left += weight * self.node_target[position]
        self.weighted_n_left += weight

    cdef void move_left(self, const uint64_t* sorted_items, intp_t begin,
                        intp_t end) noexcept nogil:
        # The group's bin summed in item order, then moved as move_bin_left
        # moves a histogram's bin (one sample: exactly move_position_left).
        cdef double group[2]
        cdef intp_t i, position
        group[0] = 0.0
        group[1] = 0.0
        for i in range(begin, end):
            position = item_position(sorted_items[i])
            group[0] += self.node_weight[position]
            group[1] += self.node_weight[position] * self.node_target[position]
        self.move_bin_left(group)

    cdef void add_to_bins(self, double* stats, intp_t* counts, intp_t n_copies,
                          intp_t n_bins, BinSource source, intp_t n_node) noexcept nogil:
        # A bin is its weight, then its weighted sum of target - reference.
        # Sums of targets are not exact: one copy, in node order.
        cdef intp_t i, bin_index
        cdef const double* node_weight = self.node_weight
        cdef const double* node_target = self.node_target
        for i in range(n_node):
            bin_index = bin_of(source, i)
            add_target_to_bin(stats + 2 * bin_index, counts + bin_index, node_weight[i],
                              node_weight[i] * node_target[i])

    cdef void move_bin_left(self, const double* bin) noexcept nogil:
        self.sum_left += bin[1]
        self.weighted_n_left += bin[0]

    cdef intp_t move_values_left(self, const float* values, float threshold,
                                 bint missing_left, intp_t n_node) noexcept nogil:
        # The left side's sums, then the missing values' when they go left
        # too (so that the moves add what move_bin_left of their bins adds).
        cdef intp_t n_left = self.move_side_left(values, threshold, False, n_node)
        if missing_left:
            n_left += self.move_side_left(values, INFINITY, True, n_node)
        return n_left

    cdef intp_t move_side_left(self, const float* values, float threshold, bint missing,
                               intp_t n_node) noexcept nogil:
        # Masks, not branches, since the side is unpredictable; unit weights
        # skip the weights (the same numbers: 1.0 * target is the target).
        cdef double bin[2]
        cdef intp_t n_moved = ft_left_sums(
            values, threshold, missing, NULL if self.unit_weights else self.node_weight,
            self.node_target, n_node, &bin[0], &bin[1])
        self.move_bin_left(bin)
        return n_moved

    cdef double proxy_improvement(self) noexcept nogil:
        cdef double sum_right = self.sum_total - self.sum_left
        return (self.sum_left * self.sum_left / self.weighted_n_left
                + sum_right * sum_right / (self.weighted_n_node - self.weighted_n_left))

    cdef double node_impurity(self) noexcept nogil:
        return self.node_loss / self.weighted_n_node

    cdef double monotone_value(self) noexcept nogil:
        return self.reference + self.sum_total / self.weighted_n_node

    cdef void children_values(self, double* left, double* right) noexcept nogil:
        left[0] = self.reference + self.sum_left / self.weighted_n_left
        right[0] = self.reference + (self.sum_total - self.sum_left) / (
            self.weighted_n_node - self.weighted_n_left)

    cdef void node_value(self, double* out) noexcept nogil:
        # Exactly the reference (the node's first target) when every target
        # equals it.
        out[0] = self.monotone_value()

    cdef intp_t node_value_entries(self, int32_t* index, double* data) noexcept nogil:
        index[0] = 0
        self.node_value(data)
        return 1 if data[0] != 0.0 else 0


cdef class Poisson(SquaredError):
    """Half the Poisson deviance: for a node of weighted mean m, the weighted
    mean of y log(y / m) (the other terms of the deviance cancel at m).

    A split's proxy, S_l log(S_l / w_l) + S_r log(S_r / w_r), is the drop in
    the children's deviance up to a constant of the node. A child without a
    positive target would predict 0, which the deviance cannot score: such
    splits get -inf and are never taken (a child sum within the rounding of
    the node's sums, or DBL_EPSILON, counts as none). The sums are of the
    targets as they are (the criterion needs y >= 0).
    """

    def __cinit__(self, *args):
        self.centres = False  # sums of the targets as they are
        self.inline_sweep = INLINE_NONE  # its own proxy

    cdef void add_node_loss(self, intp_t start, intp_t end, double* state) noexcept nogil:
        # Equal targets make a pure node (loss 0, value their target, which
        # their sum over their weight may miss by a rounding).
        cdef intp_t i
        cdef double target, loss = 0.0
        cdef double mean = state[1] / state[0], first = self.position_target[start]
        cdef bint equal = True
        for i in range(start, end):
            target = self.position_target[i]
            equal = equal and target == first
            if target > 0.0 and mean > 0.0:
                loss += self.position_weight[i] * target * log_ratio(target, mean)
        # The deviance is never negative; rounding may leave a trace below 0.
        state[2] = 0.0 if equal else max(loss, 0.0)
        state[3] = first if equal else NAN

    cdef void restore_node(self, intp_t start, intp_t end, const double* state) noexcept nogil:
        SquaredError.restore_node(self, start, end, state)
        self.common_target = state[3]
        # The right child's sum is the node's minus the left's: when the
        # right child holds only zeros, what is left is rounding, at most
        # about one rounding error per target added.
        self.zero_sum_bound = DBL_EPSILON * max(1.0, (end - start) * self.sum_total)

    cdef void node_value(self, double* out) noexcept nogil:
        if self.common_target == self.common_target:  # not NaN: a pure node
            out[0] = self.common_target
        else:
            out[0] = self.monotone_value()

    cdef double proxy_improvement(self) noexcept nogil:
        cdef double sum_right = self.sum_total - self.sum_left
        if self.sum_left <= self.zero_sum_bound or sum_right <= self.zero_sum_bound:
            return -INFINITY
        return (self.sum_left * log(self.sum_left / self.weighted_n_left)
                + sum_right * log(sum_right / (self.weighted_n_node - self.weighted_n_left)))

    cdef double proxy_scale(self) noexcept nogil:
        return cancelling_scale(self.sum_total, self.weighted_n_node)
