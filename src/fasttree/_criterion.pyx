# cython: language_level=3
"""Incremental impurity criteria: Gini, entropy, misclassification, squared error."""

import numpy as np
cimport numpy as cnp

from libc.math cimport log, log2
from libc.stdlib cimport calloc, free, malloc
from libc.string cimport memcpy, memset

from libc.stdint cimport int64_t

from ._utils cimport item_position, stable_partition


cdef void* allocate(intp_t count, size_t size) except NULL:
    cdef void* memory = malloc(max(count, 1) * size)
    if memory == NULL:
        raise MemoryError()
    return memory


cdef class Criterion:
    """Base of the criteria; the splitter only talks to this interface."""

    def __dealloc__(self):
        free(self.position_weight)
        free(self.spare_weight)

    cdef int allocate_positions(self, intp_t n_samples) except -1:
        self.n_positions = n_samples
        self.position_weight = <double*> allocate(n_samples, sizeof(double))
        self.spare_weight = <double*> allocate(n_samples, sizeof(double))
        return 0

    cdef void init_positions(self, const uint32_t* samples, intp_t n_samples) noexcept nogil:
        cdef intp_t i
        for i in range(n_samples):
            self.position_weight[i] = self.sample_weight[samples[i]]

    cdef void init_node(self, intp_t start, intp_t end) noexcept nogil:
        pass

    cdef void partition(self, uint32_t* samples, intp_t start, intp_t end,
                        const uint8_t* goes_left) noexcept nogil:
        # The weight buffer holds 8 bytes a position: room for the samples.
        stable_partition(samples + start, <uint32_t*> self.spare_weight, goes_left,
                         end - start)
        stable_partition(self.position_weight + start, self.spare_weight, goes_left,
                         end - start)

    cdef void reset(self) noexcept nogil:
        pass

    cdef void move_left(self, const uint64_t* sorted_items, intp_t begin,
                        intp_t end) noexcept nogil:
        pass

    cdef void move_position_left(self, intp_t position) noexcept nogil:
        pass

    cdef void add_to_bins(self, double* stats, intp_t* counts, intp_t n_copies,
                          intp_t n_bins, BinSource source, intp_t n_node) noexcept nogil:
        pass

    cdef void move_bin_left(self, const double* bin) noexcept nogil:
        pass

    cdef double proxy_improvement(self) noexcept nogil:
        return 0.0

    cdef double node_impurity(self) noexcept nogil:
        return 0.0

    cdef void node_value(self, double* out) noexcept nogil:
        pass

    cdef intp_t node_value_entries(self, int32_t* index, double* data) noexcept nogil:
        return 0


cdef inline void add_class_to_bin(double* bin, intp_t* count, intp_t label,
                                  double weight) noexcept nogil:
    count[0] += 1
    bin[0] += weight
    bin[1 + label] += weight


cdef inline void add_target_to_bin(double* bin, intp_t* count, double weight,
                                   double weighted_target) noexcept nogil:
    count[0] += 1
    bin[0] += weight
    bin[1] += weighted_target


cdef inline void sort_ascending(intp_t* values, intp_t n) noexcept nogil:
    # Insertion sort: the classes of a node arrive nearly sorted and few.
    cdef intp_t i, j, value
    for i in range(1, n):
        value = values[i]
        j = i
        while j > 0 and values[j - 1] > value:
            values[j] = values[j - 1]
            j -= 1
        values[j] = value


# Sums of whole numbers up to this are exact in float64, in any order.
cdef double MAX_EXACT_WEIGHT = 2.0 ** 53
# Sums of whole weights below this fit the high half of a packed 64-bit
# weight-and-count.
cdef double MAX_PACKED_WEIGHT = 2.0 ** 31
cdef int64_t LOW_HALF = 0xFFFFFFFF


cdef class ClassificationCriterion(Criterion):
    """Per-class weight counts for the node and both children."""

    def __cinit__(self, const int32_t[::1] class_index not None,
                  const double[::1] sample_weight not None, intp_t n_classes):
        self.class_index = &class_index[0]
        self.sample_weight = &sample_weight[0]
        self.n_classes = n_classes
        self.n_values = n_classes
        self.n_bin_stats = 1 + n_classes
        self._keep_alive = (class_index, sample_weight)
        weights = np.asarray(sample_weight)
        whole = bool(np.array_equal(weights, np.floor(weights)))
        self.exact_sums = whole and weights.sum() <= MAX_EXACT_WEIGHT
        self.packed_sums = whole and weights.sum() < MAX_PACKED_WEIGHT
        self.allocate_positions(class_index.shape[0])
        self.position_class = <int32_t*> allocate(class_index.shape[0], sizeof(int32_t))
        self.spare_class = <int32_t*> allocate(class_index.shape[0], sizeof(int32_t))
        self.n_node_classes = 0
        self.node_classes = <intp_t*> calloc(n_classes, sizeof(intp_t))
        self.class_number = <intp_t*> calloc(n_classes, sizeof(intp_t))
        self.weight_total = <double*> calloc(n_classes, sizeof(double))
        self.class_present = <char*> calloc(n_classes, sizeof(char))
        self.node_class_total = <double*> calloc(n_classes, sizeof(double))
        self.weight_left = <double*> calloc(n_classes, sizeof(double))
        self.weight_right = <double*> calloc(n_classes, sizeof(double))
        self.group_weight = <double*> calloc(n_classes, sizeof(double))
        self.group_classes = <intp_t*> calloc(n_classes, sizeof(intp_t))
        if not (self.node_classes and self.class_number and self.weight_total
                and self.class_present and self.node_class_total and self.weight_left
                and self.weight_right and self.group_weight and self.group_classes):
            raise MemoryError()

    def __dealloc__(self):
        free(self.position_class)
        free(self.spare_class)
        free(self.node_classes)
        free(self.class_number)
        free(self.weight_total)
        free(self.class_present)
        free(self.node_class_total)
        free(self.weight_left)
        free(self.weight_right)
        free(self.group_weight)
        free(self.group_classes)

    cdef void init_positions(self, const uint32_t* samples, intp_t n_samples) noexcept nogil:
        cdef intp_t i
        Criterion.init_positions(self, samples, n_samples)
        for i in range(n_samples):
            self.position_class[i] = self.class_index[samples[i]]

    cdef void partition(self, uint32_t* samples, intp_t start, intp_t end,
                        const uint8_t* goes_left) noexcept nogil:
        Criterion.partition(self, samples, start, end, goes_left)
        stable_partition(self.position_class + start, self.spare_class, goes_left,
                         end - start)

    cdef void init_node(self, intp_t start, intp_t end) noexcept nogil:
        cdef intp_t i, k, label, n_present = 0
        cdef double weight, weighted_n_node = 0.0
        # Locals, so that the loop does not store and reload them every step.
        cdef double* weight_total = self.weight_total
        cdef char* class_present = self.class_present
        cdef const int32_t* node_class = self.position_class + start
        cdef const double* node_weight = self.position_weight + start
        # Only the previous node's classes hold non-zero totals.
        for k in range(self.n_node_classes):
            label = self.node_classes[k]
            weight_total[label] = 0.0
            class_present[label] = 0
        for i in range(end - start):
            label = node_class[i]
            weight = node_weight[i]
            if not class_present[label]:
                class_present[label] = 1
                self.node_classes[n_present] = label
                n_present += 1
            weight_total[label] += weight
            weighted_n_node += weight
        self.node_weight = node_weight
        self.node_class = node_class
        self.weighted_n_node = weighted_n_node
        if n_present * n_present <= self.n_classes:
            sort_ascending(self.node_classes, n_present)
        else:
            n_present = 0
            for k in range(self.n_classes):
                if self.class_present[k]:
                    self.node_classes[n_present] = k
                    n_present += 1
        self.n_node_classes = n_present
        self.n_bin_stats = 1 + n_present
        for k in range(n_present):
            label = self.node_classes[k]
            self.class_number[label] = k
            self.node_class_total[k] = self.weight_total[label]

    cdef void reset(self) noexcept nogil:
        memset(self.weight_left, 0, self.n_node_classes * sizeof(double))
        memcpy(self.weight_right, self.node_class_total, self.n_node_classes * sizeof(double))
        self.weighted_n_left = 0.0

    cdef void move_class_weight_left(self, intp_t label, double weight) noexcept nogil:
        self.weight_left[label] += weight
        self.weight_right[label] -= weight

    cdef void move_position_left(self, intp_t position) noexcept nogil:
        cdef double weight = self.node_weight[position]
        self.move_class_weight_left(self.class_number[self.node_class[position]], weight)
        self.weighted_n_left += weight

    cdef void move_left(self, const uint64_t* sorted_items, intp_t begin,
                        intp_t end) noexcept nogil:
        # The bin of move_bin_left, built sparsely: group_weight holds zeros
        # between calls, and only the classes present are summed, sorted
        # into index order and moved, so a group costs O(its size), not
        # O(n_classes), and the arithmetic is move_bin_left's.
        cdef intp_t i, n_present = 0
        cdef intp_t position, label
        cdef double weight, group_total = 0.0
        cdef double* class_sums = self.group_weight
        if end - begin == 1:
            self.move_position_left(item_position(sorted_items[begin]))
            return
        for i in range(begin, end):
            position = item_position(sorted_items[i])
            label = self.class_number[self.node_class[position]]
            weight = self.node_weight[position]
            if class_sums[label] == 0.0:
                # A class joins the list on its first non-zero sum; zero
                # weights move nothing, as in move_bin_left.
                if weight == 0.0:
                    continue
                self.group_classes[n_present] = label
                n_present += 1
            class_sums[label] += weight
            group_total += weight
        sort_ascending(self.group_classes, n_present)
        for i in range(n_present):
            label = self.group_classes[i]
            self.move_class_weight_left(label, class_sums[label])
            class_sums[label] = 0.0
        self.weighted_n_left += group_total

    cdef void add_to_bins(self, double* stats, intp_t* counts, intp_t n_copies,
                          intp_t n_bins, BinSource source, intp_t n_node) noexcept nogil:
        # A bin is its weight, then the weight of each of the node's classes.
        # Locals, so that the loops do not reload them after every store.
        cdef intp_t i, k, bin_index, stride = self.n_bin_stats
        cdef intp_t copy_mask = n_copies - 1   # n_copies is a power of two
        cdef const int32_t* node_class = self.node_class
        cdef const double* node_weight = self.node_weight
        cdef const intp_t* class_number = self.class_number
        cdef int64_t* packed
        cdef int64_t sample_sum, weight_sum, count
        cdef double* bin
        if self.packed_sums:
            # One integer addition per sample adds its weight (high half) and
            # its count (low half) to its class's slot of the bin; the bins'
            # weights, class weights and counts are unpacked afterwards.
            packed = <int64_t*> stats
            for i in range(n_node):
                bin_index = (i & copy_mask) * n_bins + bin_of(source, i)
                packed[bin_index * stride + 1 + class_number[node_class[i]]] += (
                    (<int64_t> node_weight[i]) << 32) | 1
            for bin_index in range(n_copies * n_bins):
                bin = stats + bin_index * stride
                weight_sum = 0
                count = 0
                for k in range(1, stride):
                    sample_sum = (<int64_t*> bin)[k]
                    bin[k] = <double> (sample_sum >> 32)
                    weight_sum += sample_sum >> 32
                    count += sample_sum & LOW_HALF
                bin[0] = <double> weight_sum
                counts[bin_index] = count
            return
        for i in range(n_node):
            bin_index = (i & copy_mask) * n_bins + bin_of(source, i)
            add_class_to_bin(stats + bin_index * stride, counts + bin_index,
                             class_number[node_class[i]], node_weight[i])

    cdef void move_bin_left(self, const double* bin) noexcept nogil:
        # Every class in index order, absent ones too: adding their 0.0
        # changes nothing, so a bin of one sample moves exactly as
        # move_position_left does, and no branch is mispredicted. Criteria
        # with more state per class (Gini) override this.
        cdef intp_t k
        cdef double* weight_left = self.weight_left
        cdef double* weight_right = self.weight_right
        for k in range(self.n_node_classes):
            weight_left[k] += bin[1 + k]
            weight_right[k] -= bin[1 + k]
        self.weighted_n_left += bin[0]

    cdef void node_value(self, double* out) noexcept nogil:
        cdef intp_t k
        memset(out, 0, self.n_classes * sizeof(double))
        for k in range(self.n_node_classes):
            out[self.node_classes[k]] = self.node_class_total[k] / self.weighted_n_node

    cdef intp_t node_value_entries(self, int32_t* index, double* data) noexcept nogil:
        cdef intp_t k, n_entries = 0
        cdef double fraction
        for k in range(self.n_node_classes):
            fraction = self.node_class_total[k] / self.weighted_n_node
            if fraction != 0.0:
                index[n_entries] = <int32_t> self.node_classes[k]
                data[n_entries] = fraction
                n_entries += 1
        return n_entries


cdef inline void gini_move_class_weight_left(Gini gini, intp_t label,
                                             double weight) noexcept nogil:
    # (a + w)**2 - a**2 = w * (2a + w), and likewise for the removal.
    gini.squares_left += weight * (2.0 * gini.weight_left[label] + weight)
    gini.squares_right += weight * (weight - 2.0 * gini.weight_right[label])
    gini.weight_left[label] += weight
    gini.weight_right[label] -= weight


cdef class Gini(ClassificationCriterion):
    """Gini impurity 1 - sum_k p_k**2.

    The proxy sum_k left_k**2 / w_left + sum_k right_k**2 / w_right orders
    splits as the Gini decrease does; both sums of squares follow each moved
    sample in O(1).
    """

    cdef void init_node(self, intp_t start, intp_t end) noexcept nogil:
        cdef intp_t k
        ClassificationCriterion.init_node(self, start, end)
        self.node_squares = 0.0
        for k in range(self.n_node_classes):
            self.node_squares += self.node_class_total[k] * self.node_class_total[k]

    cdef void reset(self) noexcept nogil:
        ClassificationCriterion.reset(self)
        self.squares_left = 0.0
        self.squares_right = self.node_squares

    cdef void move_class_weight_left(self, intp_t label, double weight) noexcept nogil:
        gini_move_class_weight_left(self, label, weight)

    cdef void move_position_left(self, intp_t position) noexcept nogil:
        # The sorted sweep's per-sample step, with no second virtual call.
        cdef double weight = self.node_weight[position]
        gini_move_class_weight_left(self, self.class_number[self.node_class[position]], weight)
        self.weighted_n_left += weight

    cdef void move_bin_left(self, const double* bin) noexcept nogil:
        # ClassificationCriterion.move_bin_left with the class step of
        # gini_move_class_weight_left inlined and its sums kept in registers.
        # Absent classes are moved too, without a branch: a zero weight adds
        # exactly +0.0 or -0.0 to every sum, which changes none of them.
        cdef intp_t k
        cdef double weight
        cdef double squares_left = self.squares_left, squares_right = self.squares_right
        cdef double* weight_left = self.weight_left
        cdef double* weight_right = self.weight_right
        for k in range(self.n_node_classes):
            weight = bin[1 + k]
            squares_left += weight * (2.0 * weight_left[k] + weight)
            squares_right += weight * (weight - 2.0 * weight_right[k])
            weight_left[k] += weight
            weight_right[k] -= weight
        self.squares_left = squares_left
        self.squares_right = squares_right
        self.weighted_n_left += bin[0]

    cdef double proxy_improvement(self) noexcept nogil:
        return (self.squares_left / self.weighted_n_left
                + self.squares_right / (self.weighted_n_node - self.weighted_n_left))

    cdef double node_impurity(self) noexcept nogil:
        return 1.0 - self.node_squares / (self.weighted_n_node * self.weighted_n_node)


cnp.import_array()

# Largest total integer weight given a table of w log w (8 bytes an entry).
cdef double MAX_TABLE_WEIGHT = 2.0 ** 22


cdef inline double weight_log_weight(double weight) noexcept nogil:
    # 0 log 0 = 0, the convention of information theory.
    if weight <= 0.0:
        return 0.0
    return weight * log(weight)


cdef class Entropy(ClassificationCriterion):
    """Shannon entropy in bits; its decrease is the information gain.

    The proxy sum_k l_k log l_k - w_l log w_l (plus the same for the right
    child) is w_node times minus the children's weighted entropy, in nats.
    """

    def __cinit__(self, const int32_t[::1] class_index not None,
                  const double[::1] sample_weight not None, intp_t n_classes):
        weights = np.asarray(sample_weight)
        total = weights.sum()
        self.weight_log_weight_table = NULL
        if total <= MAX_TABLE_WEIGHT and np.array_equal(weights, np.floor(weights)):
            counts = np.arange(int(total) + 1, dtype=np.float64)
            counts[0] = 1.0  # 0 log 0 = 0
            self._table = counts * np.log(counts)
            self.weight_log_weight_table = <const double*> cnp.PyArray_DATA(self._table)

    cdef double weight_log(self, double weight) noexcept nogil:
        if self.weight_log_weight_table != NULL:
            return self.weight_log_weight_table[<intp_t> weight]
        return weight_log_weight(weight)

    cdef double proxy_improvement(self) noexcept nogil:
        cdef double proxy = 0.0
        cdef intp_t k
        for k in range(self.n_node_classes):
            proxy += self.weight_log(self.weight_left[k])
            proxy += self.weight_log(self.weight_right[k])
        return (proxy - self.weight_log(self.weighted_n_left)
                - self.weight_log(self.weighted_n_node - self.weighted_n_left))

    cdef double node_impurity(self) noexcept nogil:
        cdef double entropy = 0.0
        cdef double fraction
        cdef intp_t k
        for k in range(self.n_node_classes):
            if self.node_class_total[k] > 0.0:
                fraction = self.node_class_total[k] / self.weighted_n_node
                entropy -= fraction * log2(fraction)
        return entropy


cdef class Misclassification(ClassificationCriterion):
    """Misclassification impurity 1 - max_k p_k.

    The proxy max_k left_k + max_k right_k is the weight the two children
    classify correctly.
    """

    cdef double proxy_improvement(self) noexcept nogil:
        cdef double best_left = 0.0
        cdef double best_right = 0.0
        cdef intp_t k
        for k in range(self.n_node_classes):
            if self.weight_left[k] > best_left:
                best_left = self.weight_left[k]
            if self.weight_right[k] > best_right:
                best_right = self.weight_right[k]
        return best_left + best_right

    cdef double node_impurity(self) noexcept nogil:
        cdef double best = 0.0
        cdef intp_t k
        for k in range(self.n_node_classes):
            if self.node_class_total[k] > best:
                best = self.node_class_total[k]
        return 1.0 - best / self.weighted_n_node


cdef class SquaredError(Criterion):
    """Weighted variance of the target; the proxy is S_l**2/w_l + S_r**2/w_r."""

    def __cinit__(self, const double[::1] target not None,
                  const double[::1] sample_weight not None):
        self.target = &target[0]
        self.sample_weight = &sample_weight[0]
        self.n_values = 1
        self.n_bin_stats = 2
        self._keep_alive = (target, sample_weight)
        self.allocate_positions(target.shape[0])
        self.position_target = <double*> allocate(target.shape[0], sizeof(double))
        self.spare_target = <double*> allocate(target.shape[0], sizeof(double))

    def __dealloc__(self):
        free(self.position_target)
        free(self.spare_target)

    cdef void init_positions(self, const uint32_t* samples, intp_t n_samples) noexcept nogil:
        cdef intp_t i
        Criterion.init_positions(self, samples, n_samples)
        for i in range(n_samples):
            self.position_target[i] = self.target[samples[i]]

    cdef void partition(self, uint32_t* samples, intp_t start, intp_t end,
                        const uint8_t* goes_left) noexcept nogil:
        Criterion.partition(self, samples, start, end, goes_left)
        stable_partition(self.position_target + start, self.spare_target, goes_left,
                         end - start)

    cdef void init_node(self, intp_t start, intp_t end) noexcept nogil:
        cdef intp_t i
        cdef double weight, deviation, mean
        cdef double weighted_n_node = 0.0, sum_total = 0.0, squared_deviations = 0.0
        cdef const double* node_weight = self.position_weight + start
        cdef const double* node_target = self.position_target + start
        for i in range(end - start):
            weight = node_weight[i]
            weighted_n_node += weight
            sum_total += weight * node_target[i]
        # A second pass over the deviations from the mean: unlike the sum of
        # squares minus the squared sum, it gives exactly 0 for equal targets
        # and keeps its precision when the mean is large.
        mean = sum_total / weighted_n_node
        for i in range(end - start):
            deviation = node_target[i] - mean
            squared_deviations += node_weight[i] * deviation * deviation
        self.node_weight = node_weight
        self.node_target = node_target
        self.weighted_n_node = weighted_n_node
        self.sum_total = sum_total
        self.squared_deviations = squared_deviations
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
        # A bin is its weight, then its weighted sum of targets. Sums of
        # targets are not exact: one copy, in node order.
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

    cdef double proxy_improvement(self) noexcept nogil:
        cdef double sum_right = self.sum_total - self.sum_left
        return (self.sum_left * self.sum_left / self.weighted_n_left
                + sum_right * sum_right / (self.weighted_n_node - self.weighted_n_left))

    cdef double node_impurity(self) noexcept nogil:
        return self.squared_deviations / self.weighted_n_node

    cdef void node_value(self, double* out) noexcept nogil:
        out[0] = self.sum_total / self.weighted_n_node

    cdef intp_t node_value_entries(self, int32_t* index, double* data) noexcept nogil:
        index[0] = 0
        data[0] = self.sum_total / self.weighted_n_node
        return 1 if data[0] != 0.0 else 0


def node_statistics(Criterion criterion not None, const uint32_t[::1] samples not None):
    """Impurity, weight and value of the node holding ``samples`` (for tests).

    Returns
    -------
    dict with keys ``impurity``, ``weighted_n_node`` and ``value``.
    """
    value = np.empty(criterion.n_values, dtype=np.float64)
    cdef double[::1] value_view = value
    criterion.init_positions(&samples[0], samples.shape[0])
    criterion.init_node(0, samples.shape[0])
    criterion.node_value(&value_view[0])
    return {"impurity": criterion.node_impurity(),
            "weighted_n_node": criterion.weighted_n_node, "value": value}
