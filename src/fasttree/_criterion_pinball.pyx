# cython: language_level=3
"""The pinball loss from the weighted alpha-quantile, of one or several
outputs (criterion='quantile'), and the absolute error from the weighted
median, twice it at alpha = 0.5 (criterion='absolute_error')."""

import numpy as np

from libc.math cimport fabs, frexp, ldexp
from libc.stdlib cimport calloc, free
from libc.string cimport memcpy, memset

from ._criterion cimport allocate
from ._utils cimport item_position, item_rank, pack_item, sort_items


# 1.5 * 2**52: adding it and taking it away again rounds a double of
# magnitude below 2**51 to a whole number (to even on halves), as
# nearbyint does in the default rounding mode, without a library call.
cdef double ROUNDING_SHIFT = 6755399441055744.0


cdef inline double round_to_whole(double value) noexcept nogil:
    # Without -ffast-math the compiler keeps both operations.
    return (value + ROUNDING_SHIFT) - ROUNDING_SHIFT


# PinballLoss works on halves of the targets: differences and sums of two
# halves never overflow (targets of +-1e308), and halving is exact.
cdef double HALF = 0.5


cdef inline double twice_pinball_loss(double quantile, double upper_slope,
                                      double weight_at_or_below, double sum_at_or_below,
                                      double weight, double weighted_sum) noexcept nogil:
    # 2 sum w rho(y - quantile), rho the pinball loss of level alpha =
    # upper_slope / 2, when the targets at or below the quantile weigh
    # weight_at_or_below and sum to sum_at_or_below (the targets, quantile
    # and sums all taken relative to one reference): alpha (S - q W) + q B
    # - S_B, doubled. At alpha = 0.5 it is sum w |y - quantile|.
    return (quantile * (2.0 * weight_at_or_below - upper_slope * weight)
            - 2.0 * sum_at_or_below + upper_slope * weighted_sum)


cdef inline double pinball_term(double deviation, double upper_slope,
                                double lower_slope) noexcept nogil:
    # Twice rho(deviation): |deviation| at alpha = 0.5.
    if deviation >= 0.0:
        return upper_slope * deviation
    return -lower_slope * deviation


def AbsoluteError(target, sample_weight):
    """The absolute error from the weighted median: twice the pinball loss
    of level 0.5 (``PinballLoss(target, sample_weight, 0.5, 2.0)``).

    Parameters
    ----------
    target : ndarray of float64, shape (n_samples, n_outputs)
    sample_weight : ndarray of float64, shape (n_samples,)

    Returns
    -------
    PinballLoss
    """
    return PinballLoss(target, sample_weight, 0.5, 2.0)


cdef class PinballLoss(Criterion):
    """Mean pinball loss from the weighted alpha-quantile (see
    _criterion_pinball.pxd).

    Parameters
    ----------
    target : ndarray of float64, shape (n_samples, n_outputs)
    sample_weight : ndarray of float64, shape (n_samples,)
    alpha : float, default=0.5
        The quantile level, in (0, 1).
    impurity_scale : float, default=1.0
        A power of two the node impurity is multiplied by (2.0 with
        ``alpha=0.5`` gives the mean absolute deviation from the median).
    """

    def __cinit__(self, const double[:, ::1] target not None,
                  const double[::1] sample_weight not None, double alpha=0.5,
                  double impurity_scale=1.0):
        cdef intp_t n_samples = target.shape[0], k
        self.n_outputs = target.shape[1]
        if sample_weight.shape[0] != n_samples or n_samples == 0 or self.n_outputs == 0:
            raise ValueError("PinballLoss: inconsistent shapes")
        if not 0.0 < alpha < 1.0:
            raise ValueError(f"PinballLoss: alpha must lie in (0, 1); got {alpha!r}")
        self.alpha = alpha
        self.upper_slope = 2.0 * alpha
        self.lower_slope = 2.0 - 2.0 * alpha
        self.impurity_scale = impurity_scale
        targets = np.asarray(target)
        ranks = np.empty((n_samples, self.n_outputs), dtype=np.uint32)
        bits = np.empty(self.n_outputs, dtype=np.intc)
        for k in range(self.n_outputs):
            distinct, ranks[:, k] = np.unique(targets[:, k], return_inverse=True)
            bits[k] = max(1, int(len(distinct) - 1).bit_length())
        cdef const uint32_t[:, ::1] rank_view = ranks
        cdef const int[::1] bits_view = bits
        self.target = &target[0, 0]
        self.target_rank = &rank_view[0, 0]
        self.rank_bits = &bits_view[0]
        self.sample_weight = &sample_weight[0]
        self._keep_alive = (target, sample_weight, ranks, bits)
        self.n_values = self.n_outputs
        self.n_bin_stats = 1 + self.n_outputs
        self.state_size = 1  # the weight: a node's sort gives the rest
        self.needs_sorted_moves = True
        self.allocate_positions(n_samples)
        cdef intp_t entries = n_samples * self.n_outputs
        self.block_size = n_samples + 1
        cdef intp_t blocks = self.block_size * self.n_outputs
        self.position_target = <double*> allocate(entries, sizeof(double))
        self.position_rank = <uint32_t*> allocate(entries, sizeof(uint32_t))
        self.move_with_samples(self.position_target, self.n_outputs * sizeof(double))
        self.move_with_samples(self.position_rank, self.n_outputs * sizeof(uint32_t))
        self.local_rank = <uint32_t*> allocate(entries, sizeof(uint32_t))
        self.local_centred = <double*> allocate(entries, sizeof(double))
        self.items = <uint64_t*> allocate(n_samples, sizeof(uint64_t))
        self.scratch = <uint64_t*> allocate(n_samples, sizeof(uint64_t))
        self.n_distinct = <intp_t*> calloc(self.n_outputs, sizeof(intp_t))
        self.distinct_value = <double*> allocate(blocks, sizeof(double))
        self.distinct_target = <double*> allocate(blocks, sizeof(double))
        self.node_point = <double*> allocate(3 * blocks, sizeof(double))
        self.left_point = <double*> allocate(3 * blocks, sizeof(double))
        self.node_reference = <double*> calloc(self.n_outputs, sizeof(double))
        self.node_sum = <double*> calloc(self.n_outputs, sizeof(double))
        self.left_sum = <double*> calloc(self.n_outputs, sizeof(double))
        self.node_quantile = <double*> calloc(self.n_outputs, sizeof(double))
        self.node_cursor = <QuantileCursor*> calloc(self.n_outputs, sizeof(QuantileCursor))
        self.left_cursor = <QuantileCursor*> calloc(self.n_outputs, sizeof(QuantileCursor))
        self.right_cursor = <QuantileCursor*> calloc(self.n_outputs, sizeof(QuantileCursor))
        if not (self.n_distinct and self.node_reference and self.node_sum and self.left_sum
                and self.node_quantile
                and self.node_cursor and self.left_cursor and self.right_cursor):
            raise MemoryError()

    def __dealloc__(self):
        free(self.position_target)
        free(self.position_rank)
        free(self.local_rank)
        free(self.local_centred)
        free(self.items)
        free(self.scratch)
        free(self.n_distinct)
        free(self.distinct_value)
        free(self.distinct_target)
        free(self.node_point)
        free(self.left_point)
        free(self.node_reference)
        free(self.node_sum)
        free(self.left_sum)
        free(self.node_quantile)
        free(self.node_cursor)
        free(self.left_cursor)
        free(self.right_cursor)

    @property
    def regression(self):
        """Always True: the outputs are regressions (their values are quantiles)."""
        return True

    cdef void init_positions(self, const uint32_t* samples, intp_t n_samples) noexcept nogil:
        cdef intp_t i, k, n_outputs = self.n_outputs
        Criterion.init_positions(self, samples, n_samples)
        for i in range(n_samples):
            for k in range(n_outputs):
                self.position_target[i * n_outputs + k] = \
                    self.target[samples[i] * n_outputs + k]
                self.position_rank[i * n_outputs + k] = \
                    self.target_rank[samples[i] * n_outputs + k]

    cdef void compute_state(self, intp_t start, intp_t end, double* state) noexcept nogil:
        cdef intp_t i
        cdef double weight = 0.0
        for i in range(start, end):
            weight += self.position_weight[i]
        state[0] = weight

    cdef void restore_node(self, intp_t start, intp_t end, const double* state) noexcept nogil:
        # Sorts the node's ranks of every output once: its distinct targets,
        # their weights and sums, the exact quantile and loss.
        cdef intp_t i, k, t, j, m, n_outputs = self.n_outputs
        cdef intp_t block = self.block_size
        cdef intp_t n_node = end - start
        cdef uint64_t* sorted_items
        cdef uint32_t rank, previous
        cdef double weight, total, cumulative, quantile, reference, loss = 0.0, scale = 0.0
        cdef int exponent
        cdef double* values
        cdef double* raw
        cdef double* point
        cdef QuantileCursor* cursor
        self.n_node = n_node
        self.node_weight = self.position_weight + start
        self.node_target = self.position_target + start * n_outputs
        self.weighted_n_node = state[0]
        for k in range(n_outputs):
            for i in range(n_node):
                self.items[i] = pack_item(self.position_rank[(start + i) * n_outputs + k],
                                          <uint32_t> i)
            sorted_items = sort_items(self.items, self.scratch, n_node, self.rank_bits[k])
            values = self.distinct_value + k * block
            point = self.node_point + 3 * k * block
            m = 0
            previous = 0
            total = 0.0
            self.node_sum[k] = 0.0
            raw = self.distinct_target + k * block
            # Half the least target: the sums are of half targets minus it.
            reference = self.node_target[item_position(sorted_items[0]) * n_outputs + k] * HALF
            self.node_reference[k] = reference
            for t in range(n_node):
                i = item_position(sorted_items[t])
                rank = item_rank(sorted_items[t])
                if t == 0 or rank != previous:
                    raw[m] = self.node_target[i * n_outputs + k]
                    values[m] = raw[m] * HALF - reference
                    point[3 * m] = 0.0
                    point[3 * m + 1] = 0.0
                    point[3 * m + 2] = 0.0
                    m += 1
                    previous = rank
                weight = self.node_weight[i]
                self.local_rank[i * n_outputs + k] = <uint32_t> (m - 1)
                self.local_centred[i * n_outputs + k] = values[m - 1]
                point[3 * (m - 1)] += weight
                point[3 * (m - 1) + 1] += weight * self.local_centred[i * n_outputs + k]
                point[3 * (m - 1) + 2] += 1.0
                total += weight
            # The quantile as scikit-learn's weighted percentile (average=True),
            # its median at alpha = 0.5; the node's cursor is where the right
            # child's starts.
            cumulative = 0.0
            cursor = &self.node_cursor[k]
            cursor.index = m - 1
            cursor.below_weight = 0.0
            cursor.below_sum = 0.0
            quantile = values[m - 1]
            self.node_quantile[k] = raw[m - 1]
            for j in range(m):
                if cumulative + point[3 * j] >= self.alpha * total:
                    cursor.index = j
                    quantile = values[j]
                    self.node_quantile[k] = raw[j]
                    if cumulative + point[3 * j] == self.alpha * total and j + 1 < m:
                        quantile = 0.5 * (values[j] + values[j + 1])
                        self.node_quantile[k] = 0.5 * raw[j] + 0.5 * raw[j + 1]
                    break
                cumulative += point[3 * j]
                cursor.below_weight = cumulative
                cursor.below_sum += point[3 * j + 1]
            for j in range(m):
                self.node_sum[k] += point[3 * j + 1]
                loss += point[3 * j] * pinball_term(values[j] - quantile, self.upper_slope,
                                                    self.lower_slope)
                scale += point[3 * j] * (fabs(values[j]) + fabs(quantile))
            self.n_distinct[k] = m
        self.node_loss = loss
        # The proxy's prefix sums round by far less than 2**-40 of the node's
        # scale: counted in such steps, equal losses tie exactly (and the
        # lowest threshold wins, as documented) whatever the rounding. The
        # step is a power of two (between 2**-41 and 2**-40 of the scale),
        # so that a loss scales to steps exactly.
        frexp(scale, &exponent)
        self.steps_per_loss = ldexp(1.0, 41 - max(exponent, -960))
        self.reset()

    cdef void reset(self) noexcept nogil:
        cdef intp_t k, m, block = self.block_size
        self.weighted_n_left = 0.0
        self.count_left = 0.0
        for k in range(self.n_outputs):
            m = self.n_distinct[k]
            self.left_sum[k] = 0.0
            memset(self.left_point + 3 * k * block, 0, 3 * m * sizeof(double))
            self.left_cursor[k].index = 0
            self.left_cursor[k].below_weight = 0.0
            self.left_cursor[k].below_sum = 0.0
            self.right_cursor[k] = self.node_cursor[k]

    cdef void move_position_left(self, intp_t position) noexcept nogil:
        cdef intp_t k, j, block = self.block_size, n_outputs = self.n_outputs
        cdef double weight = self.node_weight[position], weighted
        cdef double* left_point
        self.weighted_n_left += weight
        self.count_left += 1.0
        for k in range(n_outputs):
            j = self.local_rank[position * n_outputs + k]
            weighted = weight * self.local_centred[position * n_outputs + k]
            self.left_sum[k] += weighted
            left_point = self.left_point + 3 * (k * block + j)
            left_point[0] += weight
            left_point[1] += weighted
            left_point[2] += 1.0
            # A target below a cursor's entry moves the weight below it.
            if j < self.left_cursor[k].index:
                self.left_cursor[k].below_weight += weight
                self.left_cursor[k].below_sum += weighted
            if j < self.right_cursor[k].index:
                self.right_cursor[k].below_weight -= weight
                self.right_cursor[k].below_sum -= weighted
            self.walk_cursor(k, &self.left_cursor[k], False, self.alpha * self.weighted_n_left)
            self.walk_cursor(k, &self.right_cursor[k], True,
                             self.alpha * (self.weighted_n_node - self.weighted_n_left))

    cdef void walk_cursor(self, intp_t k, QuantileCursor* cursor, bint right,
                          double target_weight) noexcept nogil:
        # Back while the weight below reaches the target weight, then on
        # while the weight through the cursor's entry stays short of it; absent targets weigh
        # 0. The right child's points are the node's minus the left's: one
        # loop for each child, so that no step tests which.
        cdef intp_t block = self.block_size, m = self.n_distinct[k]
        cdef const double* left_point = self.left_point + 3 * k * block
        cdef const double* node_point = self.node_point + 3 * k * block
        cdef intp_t j = cursor.index
        cdef double below_weight = cursor.below_weight, below_sum = cursor.below_sum
        cdef double weight
        if right:
            while j > 0 and below_weight >= target_weight:
                j -= 1
                below_weight -= node_point[3 * j] - left_point[3 * j]
                below_sum -= node_point[3 * j + 1] - left_point[3 * j + 1]
            while j < m - 1:
                weight = node_point[3 * j] - left_point[3 * j]
                if below_weight + weight >= target_weight:
                    break
                below_weight += weight
                below_sum += node_point[3 * j + 1] - left_point[3 * j + 1]
                j += 1
        else:
            while j > 0 and below_weight >= target_weight:
                j -= 1
                below_weight -= left_point[3 * j]
                below_sum -= left_point[3 * j + 1]
            while j < m - 1:
                weight = left_point[3 * j]
                if below_weight + weight >= target_weight:
                    break
                below_weight += weight
                below_sum += left_point[3 * j + 1]
                j += 1
        cursor.index = j
        cursor.below_weight = below_weight
        cursor.below_sum = below_sum

    cdef void move_left(self, const uint64_t* sorted_items, intp_t begin,
                        intp_t end) noexcept nogil:
        cdef intp_t i
        for i in range(begin, end):
            self.move_position_left(item_position(sorted_items[i]))

    cdef double side_loss(self, intp_t k, const QuantileCursor* cursor, bint right,
                          double weight, double weighted_sum) noexcept nogil:
        cdef intp_t block = self.block_size, m = self.n_distinct[k], j = cursor.index
        cdef const double* left_point = self.left_point + 3 * k * block
        cdef const double* node_point = self.node_point + 3 * k * block
        cdef const double* values = self.distinct_value + k * block
        cdef double weight_at = left_point[3 * j], sum_at = left_point[3 * j + 1]
        if right:
            weight_at = node_point[3 * j] - weight_at
            sum_at = node_point[3 * j + 1] - sum_at
        return twice_pinball_loss(self.side_quantile(k, cursor, right, weight),
                                  self.upper_slope, cursor.below_weight + weight_at,
                                  cursor.below_sum + sum_at, weight, weighted_sum)

    cdef double side_quantile(self, intp_t k, const QuantileCursor* cursor, bint right,
                              double weight) noexcept nogil:
        cdef intp_t block = self.block_size, m = self.n_distinct[k], j = cursor.index
        cdef const double* left_point = self.left_point + 3 * k * block
        cdef const double* node_point = self.node_point + 3 * k * block
        cdef const double* values = self.distinct_value + k * block
        cdef double weight_at = left_point[3 * j]
        cdef double quantile = values[j]
        if right:
            weight_at = node_point[3 * j] - weight_at
        if cursor.below_weight + weight_at == self.alpha * weight:
            # Exactly alpha of the weight at or below: the mean with the next
            # target present.
            j += 1
            while j < m and (node_point[3 * j + 2] - left_point[3 * j + 2] if right
                             else left_point[3 * j + 2]) == 0.0:
                j += 1
            if j < m:
                quantile = 0.5 * (quantile + values[j])
        return quantile

    cdef double monotone_value(self) noexcept nogil:
        return self.node_quantile[0]

    cdef void children_values(self, double* left, double* right) noexcept nogil:
        left[0] = (self.side_quantile(0, &self.left_cursor[0], False, self.weighted_n_left)
                   + self.node_reference[0]) / HALF
        right[0] = (self.side_quantile(0, &self.right_cursor[0], True,
                                       self.weighted_n_node - self.weighted_n_left)
                    + self.node_reference[0]) / HALF

    cdef double proxy_improvement(self) noexcept nogil:
        cdef intp_t k
        cdef double loss = 0.0
        cdef double weighted_n_right = self.weighted_n_node - self.weighted_n_left
        for k in range(self.n_outputs):
            loss += self.side_loss(k, &self.left_cursor[k], False, self.weighted_n_left,
                                   self.left_sum[k])
            loss += self.side_loss(k, &self.right_cursor[k], True, weighted_n_right,
                                   self.node_sum[k] - self.left_sum[k])
        return -round_to_whole(loss * self.steps_per_loss)

    cdef double node_impurity(self) noexcept nogil:
        # node_loss, doubled losses of half targets, is the loss of the targets.
        return self.node_loss / (self.weighted_n_node * self.n_outputs) * self.impurity_scale

    cdef void node_value(self, double* out) noexcept nogil:
        memcpy(out, self.node_quantile, self.n_outputs * sizeof(double))

    cdef intp_t node_value_entries(self, int32_t* index, double* data) noexcept nogil:
        cdef intp_t k, n_entries = 0
        for k in range(self.n_outputs):
            if self.node_quantile[k] != 0.0:
                index[n_entries] = <int32_t> k
                data[n_entries] = self.node_quantile[k]
                n_entries += 1
        return n_entries
