# cython: language_level=3
"""Several outputs at once: the mean of the outputs' impurities."""

import numpy as np

from libc.float cimport DBL_EPSILON
from libc.math cimport INFINITY, NAN, log, log2
from libc.stdlib cimport calloc, free
from libc.string cimport memcpy, memset

from ._criterion cimport allocate, bin_of, log_ratio, weight_log_weight
from ._utils cimport cancelling_scale, item_position


cdef class MultiOutput(Criterion):
    """Several outputs at once; the impurity is the mean over the outputs.

    Each output is a classification (Gini, entropy in bits or
    misclassification over its classes' columns) or a regression (squared
    error or half Poisson deviance over its one column); all outputs share
    one impurity kind. The proxy is the sum of the outputs' single-output
    proxies, each the node's weight times minus its children's weighted
    impurity plus a constant of the node, so their sum orders the splits of
    a node as the mean impurity's decrease does.

    Parameters
    ----------
    sample_column : ndarray of int32, shape (n_samples, n_outputs)
        The column each sample adds to in each output.
    sample_value : ndarray of float64, shape (n_samples, n_outputs)
        What it adds (times its weight): a target, or 1 for a class.
    sample_weight : ndarray of float64, shape (n_samples,)
    output_start : ndarray of intp, shape (n_outputs + 1,)
        Output k owns columns ``output_start[k]:output_start[k + 1]``.
    impurity_kind : OutputImpurity
    """

    def __cinit__(self, const int32_t[:, ::1] sample_column not None,
                  const double[:, ::1] sample_value not None,
                  const double[::1] sample_weight not None,
                  const intp_t[::1] output_start not None, OutputImpurity impurity_kind):
        cdef intp_t n_samples = sample_column.shape[0]
        self.n_outputs = sample_column.shape[1]
        if (sample_value.shape[0] != n_samples or sample_value.shape[1] != self.n_outputs
                or sample_weight.shape[0] != n_samples
                or output_start.shape[0] != self.n_outputs + 1 or n_samples == 0
                or self.n_outputs == 0):
            raise ValueError("MultiOutput: inconsistent shapes")
        columns = np.asarray(sample_column)
        starts = np.asarray(output_start)
        if not (np.all(columns >= starts[:-1]) and np.all(columns < starts[1:])):
            raise ValueError("MultiOutput: a sample's column lies outside its output")
        self.impurity_kind = impurity_kind
        self.sample_column = &sample_column[0, 0]
        self.sample_value = &sample_value[0, 0]
        self.sample_weight = &sample_weight[0]
        self.output_start = &output_start[0]
        self.n_values = output_start[self.n_outputs]
        self.n_bin_stats = 1 + self.n_values
        self.centres = impurity_kind == IMPURITY_SQUARED_ERROR
        # weight, regression loss, column sums; for regression, the
        # references or common targets
        self.state_size = 2 + self.n_values * (2 if self.is_regression() else 1)
        self.exact_sums = False
        self._keep_alive = (sample_column, sample_value, sample_weight, output_start)
        self.allocate_positions(n_samples)
        self.position_column = <int32_t*> allocate(n_samples * self.n_outputs, sizeof(int32_t))
        self.position_value = <double*> allocate(n_samples * self.n_outputs, sizeof(double))
        self.move_with_samples(self.position_column, self.n_outputs * sizeof(int32_t))
        self.move_with_samples(self.position_value, self.n_outputs * sizeof(double))
        self.sum_total = <double*> calloc(self.n_values, sizeof(double))
        self.sum_left = <double*> calloc(self.n_values, sizeof(double))
        self.group = <double*> calloc(self.n_bin_stats, sizeof(double))
        self.output_mean = <double*> calloc(self.n_outputs, sizeof(double))
        self.reference = <double*> calloc(self.n_values, sizeof(double))
        self.common_target = <double*> calloc(self.n_values, sizeof(double))
        # Classification and Poisson sweeps read the values as they are.
        self.position_centred = self.position_value
        if self.centres:
            self.position_centred = <double*> allocate(n_samples * self.n_outputs,
                                                       sizeof(double))
        if not (self.sum_total and self.sum_left and self.group and self.output_mean
                and self.reference and self.common_target):
            raise MemoryError()

    def __dealloc__(self):
        free(self.position_column)
        free(self.position_value)
        free(self.sum_total)
        free(self.sum_left)
        free(self.group)
        free(self.output_mean)
        free(self.reference)
        free(self.common_target)
        if self.centres:
            free(self.position_centred)

    cdef bint is_regression(self) noexcept nogil:
        return (self.impurity_kind == IMPURITY_SQUARED_ERROR
                or self.impurity_kind == IMPURITY_POISSON)

    @property
    def regression(self):
        """Whether the outputs are regressions (their values are means)."""
        return self.is_regression()

    cdef intp_t category_orderings(self, intp_t* slots, bint* singles) noexcept nogil:
        # No ordering is known to hold the best subset for several outputs:
        # try the order of every column's mean (a class's share, an output's
        # mean target), and each category alone for classification.
        cdef intp_t column
        for column in range(self.n_values):
            slots[column] = 1 + column
        singles[0] = not self.is_regression()
        return self.n_values

    cdef void init_positions(self, const uint32_t* samples, intp_t n_samples) noexcept nogil:
        cdef intp_t i, k, n_outputs = self.n_outputs
        Criterion.init_positions(self, samples, n_samples)
        for i in range(n_samples):
            for k in range(n_outputs):
                self.position_column[i * n_outputs + k] = \
                    self.sample_column[samples[i] * n_outputs + k]
                self.position_value[i * n_outputs + k] = \
                    self.sample_value[samples[i] * n_outputs + k]

    cdef void compute_state(self, intp_t start, intp_t end, double* state) noexcept nogil:
        cdef intp_t i, k, n_outputs = self.n_outputs
        cdef double weight, weighted_n_node = 0.0
        cdef double* sums = state + 2
        # The squared error's references (a regression output k owns column
        # k): the targets of the first position.
        cdef const double* reference = self.position_value + start * n_outputs
        memset(sums, 0, self.n_values * sizeof(double))
        if self.centres:
            memcpy(state + 2 + self.n_values, reference, n_outputs * sizeof(double))
            for i in range(start, end):
                for k in range(n_outputs):
                    self.position_centred[i * n_outputs + k] = (
                        self.position_value[i * n_outputs + k] - reference[k])
        for i in range(start, end):
            weight = self.position_weight[i]
            weighted_n_node += weight
            for k in range(n_outputs):
                sums[self.position_column[i * n_outputs + k]] += (
                    weight * self.position_centred[i * n_outputs + k])
        state[0] = weighted_n_node
        self.add_node_loss(start, end, state)

    cdef void add_node_loss(self, intp_t start, intp_t end, double* state) noexcept nogil:
        # As SquaredError.add_node_loss and Poisson's, per output (a
        # regression output k owns column k).
        cdef intp_t i, k, n_outputs = self.n_outputs
        cdef double target, deviation, loss = 0.0
        cdef double* mean = self.output_mean
        cdef double* common = state + 2 + self.n_values
        cdef bint every_output_equal = True
        state[1] = 0.0
        if not self.is_regression():
            return
        for k in range(n_outputs):
            mean[k] = state[2 + k] / state[0]
        if self.centres:
            for i in range(start, end):
                for k in range(n_outputs):
                    deviation = self.position_centred[i * n_outputs + k] - mean[k]
                    loss += self.position_weight[i] * deviation * deviation
            state[1] = loss
            return
        memcpy(common, self.position_value + start * n_outputs, n_outputs * sizeof(double))
        for i in range(start, end):
            for k in range(n_outputs):
                target = self.position_value[i * n_outputs + k]
                if target != common[k]:
                    common[k] = NAN
                if target > 0.0 and mean[k] > 0.0:
                    loss += self.position_weight[i] * target * log_ratio(target, mean[k])
        for k in range(n_outputs):
            every_output_equal = every_output_equal and common[k] == common[k]
        state[1] = 0.0 if every_output_equal else max(loss, 0.0)

    cdef void restore_node(self, intp_t start, intp_t end, const double* state) noexcept nogil:
        cdef intp_t k
        cdef double largest_sum = 0.0
        self.node_weight = self.position_weight + start
        self.node_column = self.position_column + start * self.n_outputs
        self.node_value_of = self.position_centred + start * self.n_outputs
        self.weighted_n_node = state[0]
        self.node_loss = state[1]
        memcpy(self.sum_total, state + 2, self.n_values * sizeof(double))
        if self.centres:
            memcpy(self.reference, state + 2 + self.n_values, self.n_values * sizeof(double))
        elif self.is_regression():
            memcpy(self.common_target, state + 2 + self.n_values,
                   self.n_values * sizeof(double))
        # As Poisson.restore_node: what a subtraction can leave of a zero sum.
        for k in range(self.n_values):
            largest_sum = max(largest_sum, self.sum_total[k])
        self.zero_sum_bound = DBL_EPSILON * max(1.0, (end - start) * largest_sum)
        self.reset()

    cdef void reset(self) noexcept nogil:
        self.weighted_n_left = 0.0
        memset(self.sum_left, 0, self.n_values * sizeof(double))

    cdef void move_position_left(self, intp_t position) noexcept nogil:
        cdef intp_t k, n_outputs = self.n_outputs
        cdef double weight = self.node_weight[position]
        self.weighted_n_left += weight
        for k in range(n_outputs):
            self.sum_left[self.node_column[position * n_outputs + k]] += (
                weight * self.node_value_of[position * n_outputs + k])

    cdef void move_left(self, const uint64_t* sorted_items, intp_t begin,
                        intp_t end) noexcept nogil:
        # Summed into a bin in item order and moved as a histogram's bin
        # (see SquaredError.move_left); the bin is cleared entry by entry.
        cdef intp_t i, k, position, column, n_outputs = self.n_outputs
        cdef double weight
        if end - begin == 1:  # the same sums: 0 + x is x
            self.move_position_left(item_position(sorted_items[begin]))
            return
        for i in range(begin, end):
            position = item_position(sorted_items[i])
            weight = self.node_weight[position]
            self.group[0] += weight
            for k in range(n_outputs):
                self.group[1 + self.node_column[position * n_outputs + k]] += (
                    weight * self.node_value_of[position * n_outputs + k])
        self.weighted_n_left += self.group[0]
        self.group[0] = 0.0
        for i in range(begin, end):
            position = item_position(sorted_items[i])
            for k in range(n_outputs):
                column = self.node_column[position * n_outputs + k]
                if self.group[1 + column] != 0.0:
                    self.sum_left[column] += self.group[1 + column]
                    self.group[1 + column] = 0.0

    cdef void add_to_bins(self, double* stats, intp_t* counts, intp_t n_copies,
                          intp_t n_bins, BinSource source, intp_t n_node) noexcept nogil:
        # A bin is its weight, then its column sums; one copy, in node order.
        cdef intp_t i, k, bin_index, n_outputs = self.n_outputs
        cdef double weight
        cdef double* bin
        for i in range(n_node):
            bin_index = bin_of(source, i)
            bin = stats + self.n_bin_stats * bin_index
            weight = self.node_weight[i]
            counts[bin_index] += 1
            bin[0] += weight
            for k in range(n_outputs):
                bin[1 + self.node_column[i * n_outputs + k]] += (
                    weight * self.node_value_of[i * n_outputs + k])

    cdef void move_bin_left(self, const double* bin) noexcept nogil:
        cdef intp_t column
        self.weighted_n_left += bin[0]
        for column in range(self.n_values):
            self.sum_left[column] += bin[1 + column]

    cdef double proxy_improvement(self) noexcept nogil:
        # Locals, so that the loops keep the sums' addresses in registers.
        cdef intp_t k, column, n_values = self.n_values
        cdef const double* sum_left = self.sum_left
        cdef const double* sum_total = self.sum_total
        cdef double weighted_n_right = self.weighted_n_node - self.weighted_n_left
        cdef double left, right, best_left, best_right, proxy = 0.0, proxy_right = 0.0
        cdef OutputImpurity kind = self.impurity_kind
        if kind == IMPURITY_GINI or kind == IMPURITY_SQUARED_ERROR:
            # Gini's sum_c w_c**2 / w is the squared error's S**2 / w over
            # the classes' indicator columns; one division per child.
            for column in range(n_values):
                left = sum_left[column]
                right = sum_total[column] - left
                proxy += left * left
                proxy_right += right * right
            return proxy / self.weighted_n_left + proxy_right / weighted_n_right
        if kind == IMPURITY_ENTROPY:
            for column in range(n_values):
                left = sum_left[column]
                proxy += weight_log_weight(left) + weight_log_weight(sum_total[column] - left)
            return proxy - self.n_outputs * (weight_log_weight(self.weighted_n_left)
                                             + weight_log_weight(weighted_n_right))
        if kind == IMPURITY_MISCLASSIFICATION:
            for k in range(self.n_outputs):
                best_left = 0.0
                best_right = 0.0
                for column in range(self.output_start[k], self.output_start[k + 1]):
                    left = sum_left[column]
                    best_left = max(best_left, left)
                    best_right = max(best_right, sum_total[column] - left)
                proxy += best_left + best_right
            return proxy
        for column in range(n_values):  # Poisson, as Poisson.proxy_improvement
            left = sum_left[column]
            right = sum_total[column] - left
            if left <= self.zero_sum_bound or right <= self.zero_sum_bound:
                return -INFINITY
            proxy += (left * log(left / self.weighted_n_left)
                      + right * log(right / weighted_n_right))
        return proxy

    cdef double proxy_scale(self) noexcept nogil:
        cdef intp_t column
        cdef double scale = 0.0
        if self.impurity_kind == IMPURITY_ENTROPY:
            return self.n_outputs * cancelling_scale(self.weighted_n_node,
                                                     self.weighted_n_node)
        if self.impurity_kind == IMPURITY_POISSON:
            for column in range(self.n_values):
                scale += cancelling_scale(self.sum_total[column], self.weighted_n_node)
        return scale

    cdef double node_impurity(self) noexcept nogil:
        cdef intp_t k, column
        cdef double fraction, output_impurity, best, impurity = 0.0
        if self.is_regression():
            return self.node_loss / (self.weighted_n_node * self.n_outputs)
        for k in range(self.n_outputs):
            output_impurity = 1.0 if self.impurity_kind == IMPURITY_GINI else 0.0
            best = 0.0
            for column in range(self.output_start[k], self.output_start[k + 1]):
                fraction = self.sum_total[column] / self.weighted_n_node
                if self.impurity_kind == IMPURITY_GINI:
                    output_impurity -= fraction * fraction
                elif self.impurity_kind == IMPURITY_ENTROPY:
                    if fraction > 0.0:
                        output_impurity -= fraction * log2(fraction)
                else:
                    best = max(best, fraction)
            if self.impurity_kind == IMPURITY_MISCLASSIFICATION:
                output_impurity = 1.0 - best
            impurity += output_impurity
        return impurity / self.n_outputs

    cdef void node_value(self, double* out) noexcept nogil:
        # As SquaredError's and Poisson's, per column (0 is the reference of
        # classification columns).
        cdef intp_t column
        for column in range(self.n_values):
            out[column] = self.reference[column] + self.sum_total[column] / self.weighted_n_node
            if (self.impurity_kind == IMPURITY_POISSON
                    and self.common_target[column] == self.common_target[column]):
                out[column] = self.common_target[column]

    cdef intp_t node_value_entries(self, int32_t* index, double* data) noexcept nogil:
        cdef intp_t column, n_entries = 0
        cdef double value
        for column in range(self.n_values):
            value = self.sum_total[column] / self.weighted_n_node
            if value != 0.0:
                index[n_entries] = <int32_t> column
                data[n_entries] = value
                n_entries += 1
        return n_entries
