# cython: language_level=3
"""Incremental impurity criteria: Gini, entropy, misclassification, squared error,
Poisson deviance, absolute error, and several outputs at once."""

import numpy as np
cimport numpy as cnp

from libc.float cimport DBL_EPSILON, DBL_MIN
from libc.math cimport INFINITY, NAN, fabs, frexp, ldexp, log, log2
from libc.stdlib cimport calloc, free, malloc
from libc.string cimport memcpy, memset

from libc.stdint cimport int64_t

from ._utils cimport cancelling_scale, item_position, item_rank, pack_item, sort_items

cdef extern from "_vector.h":
    intp_t ft_left_sums(const float* values, float threshold, int missing,
                        const double* weight, const double* target, intp_t n,
                        double* weight_sum, double* target_sum) noexcept nogil


cdef void* allocate(intp_t count, size_t size) except NULL:
    cdef void* memory = malloc(max(count, 1) * size)
    if memory == NULL:
        raise MemoryError()
    return memory


cdef class Criterion:
    """Base of the criteria; the splitter only talks to this interface."""

    cdef intp_t category_orderings(self, intp_t* slots, bint* singles) noexcept nogil:
        # Regression: by mean target (Breiman: its prefixes hold the best subset).
        slots[0] = 1
        singles[0] = False
        return 1

    def __dealloc__(self):
        free(self.position_weight)
        free(self.spare_weight)
        free(self.spare_sample)
        free(self.scratch_state)

    cdef int allocate_positions(self, intp_t n_samples) except -1:
        self.position_weight = <double*> allocate(n_samples, sizeof(double))
        self.spare_weight = <double*> allocate(n_samples, sizeof(double))
        self.spare_sample = <uint32_t*> allocate(n_samples, sizeof(uint32_t))
        self.scratch_state = <double*> allocate(self.state_size, sizeof(double))
        return 0

    cdef void init_positions(self, const uint32_t* samples, intp_t n_samples) noexcept nogil:
        cdef intp_t i
        cdef bint unit = True
        for i in range(n_samples):
            self.position_weight[i] = self.sample_weight[samples[i]]
            unit &= self.position_weight[i] == 1.0
        self.unit_weights = unit

    cdef void init_node(self, intp_t start, intp_t end) noexcept nogil:
        self.compute_state(start, end, self.scratch_state)
        self.restore_node(start, end, self.scratch_state)

    cdef void compute_state(self, intp_t start, intp_t end, double* state) noexcept nogil:
        pass

    cdef void restore_node(self, intp_t start, intp_t end, const double* state) noexcept nogil:
        pass

    cdef void partition(self, uint32_t* samples, intp_t start, intp_t end,
                        const uint8_t* goes_left, double* left_state,
                        double* right_state) noexcept nogil:
        pass

    cdef void keep_left(self) noexcept nogil:
        pass

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

    cdef void move_stats_left(self, double weight, const intp_t* stats, const double* values,
                              intp_t n_stats) noexcept nogil:
        pass

    cdef double proxy_bound(self) noexcept nogil:
        return INFINITY

    cdef intp_t move_values_left(self, const float* values, float threshold,
                                 bint missing_left, intp_t n_node) noexcept nogil:
        return -1

    cdef void add_positions_to_bins(self, double* stats, intp_t* counts, intp_t n_bins,
                                    const uint32_t* positions, const uint32_t* position_bins,
                                    intp_t n_positions) noexcept nogil:
        pass

    cdef void write_rest_bin(self, double* stats, intp_t* counts, intp_t n_bins,
                             intp_t rest_bin, intp_t n_node) noexcept nogil:
        pass

    cdef double proxy_improvement(self) noexcept nogil:
        return 0.0

    cdef double proxy_scale(self) noexcept nogil:
        return 0.0

    cdef double node_impurity(self) noexcept nogil:
        return 0.0

    cdef void node_value(self, double* out) noexcept nogil:
        pass

    cdef intp_t node_value_entries(self, int32_t* index, double* data) noexcept nogil:
        return 0

    cdef double monotone_value(self) noexcept nogil:
        return 0.0

    cdef void children_values(self, double* left, double* right) noexcept nogil:
        left[0] = 0.0
        right[0] = 0.0


cdef inline void add_class_to_bin(double* bin, intp_t* count, intp_t label,
                                  double weight) noexcept nogil:
    count[0] += 1
    bin[0] += weight
    bin[1 + label] += weight


cdef inline double side_of(float value, float threshold, bint missing) noexcept nogil:
    # 1.0 when the value is on the side moved (at most threshold, or missing).
    return <double> ((value == INFINITY) if missing else (value <= threshold))


cdef inline void add_target_to_bin(double* bin, intp_t* count, double weight,
                                   double weighted_target) noexcept nogil:
    count[0] += 1
    bin[0] += weight
    bin[1] += weighted_target


cdef inline void tally_add(ClassTally* tally, intp_t label, double weight) noexcept nogil:
    if not tally.seen[label]:
        tally.seen[label] = 1
        tally.classes[tally.n_seen] = label
        tally.n_seen += 1
    tally.total[label] += weight
    tally.weight += weight


cdef void tally_write_state(ClassTally* tally, intp_t n_classes, double* state) noexcept nogil:
    """Writes a tally as a classification state (its weight, the number of
    classes, then each class and its weight, ascending) and empties it."""
    cdef intp_t k, label, n_seen = tally.n_seen
    if n_seen * n_seen <= n_classes:
        sort_ascending(tally.classes, n_seen)
    else:
        n_seen = 0
        for k in range(n_classes):
            if tally.seen[k]:
                tally.classes[n_seen] = k
                n_seen += 1
    state[0] = tally.weight
    state[1] = <double> n_seen
    for k in range(n_seen):
        label = tally.classes[k]
        state[2 + 2 * k] = <double> label
        state[3 + 2 * k] = tally.total[label]
        tally.total[label] = 0.0
        tally.seen[label] = 0
    tally.n_seen = 0
    tally.weight = 0.0


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


# Whether a split's children take their statistics from the sweep that
# chose it when that gives the same numbers (see children_from_kept); tests
# turn it off to check that it does.
children_from_sweeps = True

# Sums of whole numbers up to this are exact in float64, in any order.
cdef double MAX_EXACT_WEIGHT = 2.0 ** 53
# Sums of whole weights below this fit the high half of a packed 64-bit
# weight-and-count.
cdef double MAX_PACKED_WEIGHT = 2.0 ** 31
cdef int64_t LOW_HALF = 0xFFFFFFFF

# add_positions_to_bins' packed copies: how many, and the int64 slots (bins
# times statistics) each may hold to live on the stack.
cdef enum:
    PACKED_COPIES = 4
    PACKED_SLOTS = 64
    PACKED_MIN_POSITIONS = 64  # fewer: the copies cost more than they save



cdef class ClassificationCriterion(Criterion):
    """Per-class weight counts for the node and both children."""

    cdef intp_t category_orderings(self, intp_t* slots, bint* singles) noexcept nogil:
        # Two classes: by the second class's share (Breiman: its prefixes
        # hold the best subset). More: by each class's share in turn, in
        # class order, and every category alone (one-vs-rest). A class
        # absent from the node gives every category the share 0, so the
        # categories' own order, tried once, where the least absent class
        # comes. O(classes in the node), not O(n_classes).
        cdef intp_t number, n_orderings = 0
        cdef intp_t least_absent = self.n_node_classes
        singles[0] = self.n_classes > 2
        if self.n_classes < 2:
            return 0
        if self.n_classes == 2:
            number = self.class_number[1]
            slots[0] = (1 + number if number < self.n_node_classes
                        and self.node_classes[number] == 1 else -1)
            return 1
        # The node's classes ascend: below the least absent class, each is
        # its own number.
        for number in range(self.n_node_classes):
            if self.node_classes[number] != number:
                least_absent = number
                break
        for number in range(self.n_node_classes):
            if number == least_absent:
                slots[n_orderings] = -1
                n_orderings += 1
            slots[n_orderings] = 1 + number
            n_orderings += 1
        if least_absent == self.n_node_classes and self.n_node_classes < self.n_classes:
            slots[n_orderings] = -1
            n_orderings += 1
        return n_orderings

    cdef double positive_fraction(self, const double* weights, double total) noexcept nogil:
        # Class 1's number among the node's classes, if the node holds it.
        cdef intp_t number
        if self.n_classes < 2:
            return 0.0
        number = self.class_number[1]
        if number >= self.n_node_classes or self.node_classes[number] != 1:
            return 0.0
        return weights[number] / total

    cdef double monotone_value(self) noexcept nogil:
        return self.positive_fraction(self.node_class_total, self.weighted_n_node)

    cdef void children_values(self, double* left, double* right) noexcept nogil:
        left[0] = self.positive_fraction(self.weight_left, self.weighted_n_left)
        right[0] = self.positive_fraction(self.weight_right,
                                          self.weighted_n_node - self.weighted_n_left)

    def __cinit__(self, const int32_t[::1] class_index not None,
                  const double[::1] sample_weight not None, intp_t n_classes, *extra):
        # (extra: arguments of a subclass's own __cinit__, which Cython
        # passes here too.)
        self.class_index = &class_index[0]
        self.sample_weight = &sample_weight[0]
        self.n_classes = n_classes
        self.n_values = n_classes
        self.moves_sparse_bins = True
        self.n_bin_stats = 1 + n_classes
        self._keep_alive = (class_index, sample_weight)
        self.state_size = 2 + 2 * n_classes
        weights = np.asarray(sample_weight)
        whole = bool(np.array_equal(weights, np.floor(weights)))
        self.exact_sums = whole and weights.sum() <= MAX_EXACT_WEIGHT
        self.packed_sums = whole and weights.sum() < MAX_PACKED_WEIGHT
        self.allocate_positions(class_index.shape[0])
        self.position_increment = NULL
        self.spare_increment = NULL
        self.position_class = <int32_t*> allocate(class_index.shape[0], sizeof(int32_t))
        self.spare_class = <int32_t*> allocate(class_index.shape[0], sizeof(int32_t))
        if self.packed_sums:
            self.position_increment = <int64_t*> allocate(class_index.shape[0],
                                                          sizeof(int64_t))
            self.spare_increment = <int64_t*> allocate(class_index.shape[0], sizeof(int64_t))
        cdef int side
        self.n_node_classes = 0
        self.node_classes = <intp_t*> calloc(n_classes, sizeof(intp_t))
        self.class_number = <intp_t*> calloc(n_classes, sizeof(intp_t))
        for side in range(2):
            self.tallies[side].total = <double*> calloc(n_classes, sizeof(double))
            self.tallies[side].seen = <char*> calloc(n_classes, sizeof(char))
            self.tallies[side].classes = <intp_t*> calloc(n_classes, sizeof(intp_t))
            self.tallies[side].n_seen = 0
            self.tallies[side].weight = 0.0
            if not (self.tallies[side].total and self.tallies[side].seen
                    and self.tallies[side].classes):
                raise MemoryError()
        self.node_class_total = <double*> calloc(n_classes, sizeof(double))
        self.kept_left = <double*> calloc(n_classes, sizeof(double))
        self.children_from_kept = False
        self.may_keep_children = bool(children_from_sweeps)
        self.weight_left = <double*> calloc(n_classes, sizeof(double))
        self.weight_right = <double*> calloc(n_classes, sizeof(double))
        self.group_weight = <double*> calloc(n_classes, sizeof(double))
        self.group_classes = <intp_t*> calloc(n_classes, sizeof(intp_t))
        self.value_sums = <int64_t*> calloc(4 * n_classes, sizeof(int64_t))
        self.value_bin = <double*> calloc(1 + n_classes, sizeof(double))
        if not (self.value_sums and self.value_bin and self.node_classes and self.class_number and self.node_class_total
                and self.kept_left and self.weight_left
                and self.weight_right and self.group_weight and self.group_classes):
            raise MemoryError()

    def __dealloc__(self):
        cdef int side
        free(self.position_class)
        free(self.spare_class)
        free(self.position_increment)
        free(self.spare_increment)
        free(self.node_classes)
        free(self.class_number)
        for side in range(2):
            free(self.tallies[side].total)
            free(self.tallies[side].seen)
            free(self.tallies[side].classes)
        free(self.node_class_total)
        free(self.kept_left)
        free(self.weight_left)
        free(self.weight_right)
        free(self.group_weight)
        free(self.group_classes)
        free(self.value_sums)
        free(self.value_bin)

    cdef void init_positions(self, const uint32_t* samples, intp_t n_samples) noexcept nogil:
        cdef intp_t i
        Criterion.init_positions(self, samples, n_samples)
        for i in range(n_samples):
            self.position_class[i] = self.class_index[samples[i]]
        if self.packed_sums:
            for i in range(n_samples):
                self.position_increment[i] = ((<int64_t> self.position_weight[i]) << 32) | 1
        self.children_from_kept = self.exact_sums and self.may_keep_children
        for i in range(n_samples):
            if not self.position_weight[i] > 0.0:
                self.children_from_kept = False
                break

    cdef void keep_left(self) noexcept nogil:
        if self.children_from_kept:
            memcpy(self.kept_left, self.weight_left, self.n_node_classes * sizeof(double))
            self.kept_weight_left = self.weighted_n_left

    cdef void compute_state(self, intp_t start, intp_t end, double* state) noexcept nogil:
        cdef intp_t i
        cdef ClassTally* tally = &self.tallies[0]
        for i in range(start, end):
            tally_add(tally, self.position_class[i], self.position_weight[i])
        tally_write_state(tally, self.n_classes, state)

    cdef void restore_node(self, intp_t start, intp_t end, const double* state) noexcept nogil:
        cdef intp_t k, label
        self.node_weight = self.position_weight + start
        self.node_class = self.position_class + start
        self.weighted_n_node = state[0]
        self.n_node_classes = <intp_t> state[1]
        self.n_bin_stats = 1 + self.n_node_classes
        for k in range(self.n_node_classes):
            label = <intp_t> state[2 + 2 * k]
            self.node_classes[k] = label
            self.class_number[label] = k
            self.node_class_total[k] = state[3 + 2 * k]

    cdef void partition(self, uint32_t* samples, intp_t start, intp_t end,
                        const uint8_t* goes_left, double* left_state,
                        double* right_state) noexcept nogil:
        # Every position is written to both sides and only its own side
        # advances (no branch to mispredict on every other position); its
        # class and weight join its side's tally on the way, in position
        # order, as compute_state of each side would add them.
        cdef intp_t i, n_left = 0, n_right = 0, side
        cdef uint32_t sample
        cdef int32_t label
        cdef double weight
        cdef int64_t increment
        cdef bint packed = self.packed_sums
        cdef bint tally = not self.children_from_kept
        cdef uint32_t* node_samples = samples + start
        cdef int32_t* node_class = self.position_class + start
        cdef double* node_weight = self.position_weight + start
        cdef int64_t* node_increment = self.position_increment + start if packed else NULL
        # Locals, so that the loop does not reload them after every store.
        cdef uint32_t* spare_sample = self.spare_sample
        cdef int32_t* spare_class = self.spare_class
        cdef double* spare_weight = self.spare_weight
        cdef int64_t* spare_increment = self.spare_increment
        cdef double* side_total[2]
        cdef char* side_seen[2]
        cdef intp_t* side_classes[2]
        cdef intp_t side_n_seen[2]
        cdef double side_weight[2]
        for side in range(2):
            side_total[side] = self.tallies[side].total
            side_seen[side] = self.tallies[side].seen
            side_classes[side] = self.tallies[side].classes
            side_n_seen[side] = self.tallies[side].n_seen
            side_weight[side] = self.tallies[side].weight
        for i in range(end - start):
            sample = node_samples[i]
            label = node_class[i]
            weight = node_weight[i]
            side = goes_left[i]
            node_samples[n_left] = sample
            node_class[n_left] = label
            node_weight[n_left] = weight
            spare_sample[n_right] = sample
            spare_class[n_right] = label
            spare_weight[n_right] = weight
            if packed:
                increment = node_increment[i]
                node_increment[n_left] = increment
                spare_increment[n_right] = increment
            n_left += side
            n_right += 1 - side
            if tally:
                # tally_add, on the locals
                if not side_seen[side][label]:
                    side_seen[side][label] = 1
                    side_classes[side][side_n_seen[side]] = label
                    side_n_seen[side] += 1
                side_total[side][label] += weight
                side_weight[side] += weight
        for side in range(2):
            self.tallies[side].n_seen = side_n_seen[side]
            self.tallies[side].weight = side_weight[side]
        memcpy(node_samples + n_left, spare_sample, n_right * sizeof(uint32_t))
        memcpy(node_class + n_left, spare_class, n_right * sizeof(int32_t))
        memcpy(node_weight + n_left, spare_weight, n_right * sizeof(double))
        if packed:
            memcpy(node_increment + n_left, spare_increment, n_right * sizeof(int64_t))
        if tally:
            tally_write_state(&self.tallies[1], self.n_classes, left_state)
            tally_write_state(&self.tallies[0], self.n_classes, right_state)
        else:
            self.write_kept_states(left_state, right_state)

    cdef void write_kept_states(self, double* left_state, double* right_state) noexcept nogil:
        # The left child is the kept one, the right the node minus it; both
        # exact, so equal to what tallies of their positions would give.
        cdef intp_t k, n_left = 0, n_right = 0
        cdef double left, right
        left_state[0] = self.kept_weight_left
        right_state[0] = self.weighted_n_node - self.kept_weight_left
        for k in range(self.n_node_classes):
            left = self.kept_left[k]
            right = self.node_class_total[k] - left
            if left > 0.0:
                left_state[2 + 2 * n_left] = <double> self.node_classes[k]
                left_state[3 + 2 * n_left] = left
                n_left += 1
            if right > 0.0:
                right_state[2 + 2 * n_right] = <double> self.node_classes[k]
                right_state[3 + 2 * n_right] = right
                n_right += 1
        left_state[1] = <double> n_left
        right_state[1] = <double> n_right

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
        cdef const int64_t* increments
        cdef int64_t sample_sum, weight_sum, count
        cdef double* bin
        if self.packed_sums:
            # One integer addition per sample adds its weight (high half) and
            # its count (low half) to its class's slot of the bin; the bins'
            # weights, class weights and counts are unpacked afterwards.
            packed = (<int64_t*> stats) + 1   # a bin's class slots follow its weight
            increments = self.position_increment + (self.node_weight - self.position_weight)
            if n_copies == 1:
                for i in range(n_node):
                    packed[bin_of(source, i) * stride + class_number[node_class[i]]] += (
                        increments[i])
            else:
                for i in range(n_node):
                    bin_index = (i & copy_mask) * n_bins + bin_of(source, i)
                    packed[bin_index * stride + class_number[node_class[i]]] += increments[i]
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

    cdef void add_positions_to_bins(self, double* stats, intp_t* counts, intp_t n_bins,
                                    const uint32_t* positions, const uint32_t* position_bins,
                                    intp_t n_positions) noexcept nogil:
        cdef intp_t j, i, k, bin_index = 0, stride = self.n_bin_stats
        cdef intp_t n_slots = n_bins * stride
        cdef int64_t copies[PACKED_COPIES * PACKED_SLOTS]
        cdef int64_t sample_sum, weight_sum, count
        cdef const int64_t* increments
        cdef double* bin
        if not self.packed_sums or n_slots > PACKED_SLOTS or n_positions < PACKED_MIN_POSITIONS:
            for j in range(n_positions):
                i = positions[j]
                if position_bins != NULL:
                    bin_index = position_bins[j]
                add_class_to_bin(stats + bin_index * stride, counts + bin_index,
                                 self.class_number[self.node_class[i]], self.node_weight[i])
            return
        # Whole weights, few bins (a sparse feature's rare rows hold few
        # values) and many positions: one integer addition per position, as
        # add_to_bins, into four copies of the bins so that consecutive
        # positions of one bin and class do not wait on each other's stores.
        increments = self.position_increment + (self.node_weight - self.position_weight)
        memset(copies, 0, PACKED_COPIES * n_slots * sizeof(int64_t))
        for j in range(n_positions):
            i = positions[j]
            if position_bins != NULL:
                bin_index = position_bins[j]
            copies[(j & (PACKED_COPIES - 1)) * n_slots + bin_index * stride
                   + 1 + self.class_number[self.node_class[i]]] += increments[i]
        for bin_index in range(n_bins):
            bin = stats + bin_index * stride
            weight_sum = 0
            count = 0
            for k in range(1, stride):
                sample_sum = 0
                for j in range(PACKED_COPIES):
                    sample_sum += copies[j * n_slots + bin_index * stride + k]
                bin[k] += <double> (sample_sum >> 32)
                weight_sum += sample_sum >> 32
                count += sample_sum & LOW_HALF
            bin[0] += <double> weight_sum
            counts[bin_index] += count

    cdef void write_rest_bin(self, double* stats, intp_t* counts, intp_t n_bins,
                             intp_t rest_bin, intp_t n_node) noexcept nogil:
        # Whole weights below 2**53 (exact_sums): every difference is exact.
        cdef intp_t b, k, stride = self.n_bin_stats, listed = 0
        cdef double* rest = stats + rest_bin * stride
        rest[0] = self.weighted_n_node
        for k in range(self.n_node_classes):
            rest[1 + k] = self.node_class_total[k]
        for b in range(n_bins):
            if b == rest_bin:
                continue
            listed += counts[b]
            for k in range(self.n_node_classes + 1):
                rest[k] -= stats[b * stride + k]
        counts[rest_bin] = n_node - listed

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

    cdef void move_stats_left(self, double weight, const intp_t* stats, const double* values,
                              intp_t n_stats) noexcept nogil:
        # move_bin_left without the classes it moves zeros of.
        cdef intp_t e, k
        for e in range(n_stats):
            k = stats[e] - 1
            self.weight_left[k] += values[e]
            self.weight_right[k] -= values[e]
        self.weighted_n_left += weight

    cdef intp_t move_values_left(self, const float* values, float threshold,
                                 bint missing_left, intp_t n_node) noexcept nogil:
        # Packed sums only (whole weights): a position's increment, masked
        # to zero unless it goes left, adds its weight and count to its
        # class's sum. Exact, so the order of the additions does not matter.
        cdef intp_t i, k, n_classes = self.n_node_classes, n_left = 0
        cdef const int64_t* increments
        cdef const int32_t* node_class = self.node_class
        cdef const intp_t* class_number = self.class_number
        cdef int64_t* sums = self.value_sums
        cdef int64_t moved, all_sum = 0, second_sum = 0, total
        cdef int32_t second_class
        cdef float value
        cdef double* bin = self.value_bin
        if not self.packed_sums:
            return -1
        increments = self.position_increment + (self.node_weight - self.position_weight)
        if n_classes == 2:
            # Two classes: the second's sum is masked once more, and the
            # first's is the rest; no scattered stores, so the loop
            # vectorises.
            second_class = <int32_t> self.node_classes[1]
            for i in range(n_node):
                value = values[i]
                moved = increments[i] & -(<int64_t> ((value <= threshold)
                                                    | (missing_left & (value == INFINITY))))
                all_sum += moved
                second_sum += moved & -(<int64_t> (node_class[i] == second_class))
            sums[0] = all_sum - second_sum
            sums[1] = second_sum
        else:
            # Four copies of the sums, so that consecutive positions of one
            # class do not wait on each other's stores.
            memset(sums, 0, 4 * n_classes * sizeof(int64_t))
            for i in range(n_node):
                value = values[i]
                sums[(i & 3) * n_classes + class_number[node_class[i]]] += increments[i] & -(
                    <int64_t> ((value <= threshold) | (missing_left & (value == INFINITY))))
            for k in range(n_classes):
                sums[k] += sums[n_classes + k] + sums[2 * n_classes + k] + sums[3 * n_classes + k]
        total = 0
        for k in range(n_classes):
            bin[1 + k] = <double> (sums[k] >> 32)
            total += sums[k] >> 32
            n_left += sums[k] & LOW_HALF
        bin[0] = <double> total
        self.move_bin_left(bin)
        return n_left

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

    cdef void restore_node(self, intp_t start, intp_t end, const double* state) noexcept nogil:
        cdef intp_t k
        ClassificationCriterion.restore_node(self, start, end, state)
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

    cdef void move_stats_left(self, double weight, const intp_t* stats, const double* values,
                              intp_t n_stats) noexcept nogil:
        # move_bin_left without the classes it moves zeros of: the same sums.
        cdef intp_t e, k
        cdef double value
        cdef double squares_left = self.squares_left, squares_right = self.squares_right
        cdef double* weight_left = self.weight_left
        cdef double* weight_right = self.weight_right
        for e in range(n_stats):
            k = stats[e] - 1
            value = values[e]
            squares_left += value * (2.0 * weight_left[k] + value)
            squares_right += value * (value - 2.0 * weight_right[k])
            weight_left[k] += value
            weight_right[k] -= value
        self.squares_left = squares_left
        self.squares_right = squares_right
        self.weighted_n_left += weight

    cdef double proxy_improvement(self) noexcept nogil:
        return (self.squares_left / self.weighted_n_left
                + self.squares_right / (self.weighted_n_node - self.weighted_n_left))

    cdef double node_impurity(self) noexcept nogil:
        cdef double squared_weight = self.weighted_n_node * self.weighted_n_node
        cdef double fraction, squares = 0.0
        cdef intp_t k
        if squared_weight >= DBL_MIN:
            return 1.0 - self.node_squares / squared_weight
        # A node of tiny weights (rows of weight 5e-324 beside rows of 1):
        # the squares underflow, 0 / 0; the fractions do not.
        for k in range(self.n_node_classes):
            fraction = self.node_class_total[k] / self.weighted_n_node
            squares += fraction * fraction
        return 1.0 - squares


cdef class CostSensitiveGini(ClassificationCriterion):
    """Gini impurity with a loss matrix L: sum over i != j of L[i, j] p_i p_j
    (Breiman et al., CART, section 4.4); L of ones off the diagonal is Gini.

    The proxy -(w_l' L w_l / W_l + w_r' L w_r / W_r) orders splits as the
    decrease does; each quadratic form follows a moved class in O(classes
    present at the node).
    """

    def __cinit__(self, const int32_t[::1] class_index not None,
                  const double[::1] sample_weight not None, intp_t n_classes,
                  const double[:, ::1] loss_matrix not None):
        if loss_matrix.shape[0] != n_classes or loss_matrix.shape[1] != n_classes:
            raise ValueError("the loss matrix must be n_classes x n_classes")
        self._loss_array = np.asarray(loss_matrix)
        self.loss = &loss_matrix[0, 0]
        self.node_symmetric = <double*> calloc(n_classes * n_classes, sizeof(double))
        if not self.node_symmetric:
            raise MemoryError()

    def __dealloc__(self):
        free(self.node_symmetric)

    cdef void restore_node(self, intp_t start, intp_t end, const double* state) noexcept nogil:
        cdef intp_t i, j, n = 0
        cdef intp_t first, second, n_classes = self.n_classes
        cdef double symmetric
        ClassificationCriterion.restore_node(self, start, end, state)
        n = self.n_node_classes
        self.node_quadratic = 0.0
        for i in range(n):
            first = self.node_classes[i]
            for j in range(n):
                second = self.node_classes[j]
                symmetric = (self.loss[first * n_classes + second]
                             + self.loss[second * n_classes + first])
                self.node_symmetric[i * n + j] = symmetric
                # Half of M's form is L's.
                self.node_quadratic += 0.5 * symmetric * (self.node_class_total[i]
                                                          * self.node_class_total[j])

    cdef void reset(self) noexcept nogil:
        ClassificationCriterion.reset(self)
        self.quadratic_left = 0.0
        self.quadratic_right = self.node_quadratic

    cdef void move_class_weight_left(self, intp_t label, double weight) noexcept nogil:
        cdef intp_t j, n = self.n_node_classes
        cdef const double* row = self.node_symmetric + label * n
        cdef double towards_left = 0.0, towards_right = 0.0
        for j in range(n):
            towards_left += row[j] * self.weight_left[j]
            towards_right += row[j] * self.weight_right[j]
        # The class's own entry of M is 0, so w[label] itself does not enter:
        # the forms change by s (M w)[label] exactly, with no s**2 term.
        self.quadratic_left += weight * towards_left
        self.quadratic_right -= weight * towards_right
        self.weight_left[label] += weight
        self.weight_right[label] -= weight

    cdef void move_bin_left(self, const double* bin) noexcept nogil:
        # Class by class in index order, as move_left moves a group: a class
        # absent from the bin adds exactly 0.0 to both forms.
        cdef intp_t k
        for k in range(self.n_node_classes):
            self.move_class_weight_left(k, bin[1 + k])
        self.weighted_n_left += bin[0]

    cdef void move_stats_left(self, double weight, const intp_t* stats, const double* values,
                              intp_t n_stats) noexcept nogil:
        cdef intp_t e
        for e in range(n_stats):
            self.move_class_weight_left(stats[e] - 1, values[e])
        self.weighted_n_left += weight

    cdef double proxy_improvement(self) noexcept nogil:
        return -(self.quadratic_left / self.weighted_n_left
                 + self.quadratic_right / (self.weighted_n_node - self.weighted_n_left))

    cdef double node_impurity(self) noexcept nogil:
        cdef double squared_weight = self.weighted_n_node * self.weighted_n_node
        cdef double quadratic = 0.0
        cdef intp_t i, j, n = self.n_node_classes
        if squared_weight >= DBL_MIN:
            return self.node_quadratic / squared_weight
        # As Gini.node_impurity: from the fractions when the products underflow.
        for i in range(n):
            for j in range(n):
                quadratic += 0.5 * self.node_symmetric[i * n + j] * (
                    (self.node_class_total[i] / self.weighted_n_node)
                    * (self.node_class_total[j] / self.weighted_n_node))
        return quadratic


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
        self.bounds_proxy = True

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

    cdef double proxy_scale(self) noexcept nogil:
        return cancelling_scale(self.weighted_n_node, self.weighted_n_node)

    cdef void restore_node(self, intp_t start, intp_t end, const double* state) noexcept nogil:
        ClassificationCriterion.restore_node(self, start, end, state)
        self.node_logs_ready = False

    cdef void reset(self) noexcept nogil:
        cdef intp_t k
        cdef double term
        ClassificationCriterion.reset(self)
        if not self.node_logs_ready:
            self.node_log_sum = 0.0
            self.node_log_size = 0.0
            for k in range(self.n_node_classes):
                term = self.weight_log(self.node_class_total[k])
                self.node_log_sum += term
                self.node_log_size += fabs(term)
            self.node_logs_ready = True
        self.log_sum = self.node_log_sum
        self.log_size = self.node_log_size
        # (A sum of n terms rounds by at most n 2**-53 times their size.)
        self.log_drift = self.n_node_classes * self.node_log_size

    cdef void move_stats_left(self, double weight, const intp_t* stats, const double* values,
                              intp_t n_stats) noexcept nogil:
        # ClassificationCriterion.move_stats_left, with the change of each
        # moved class's two terms added to log_sum. Each addition rounds by
        # at most 2**-53 of its result's size; log_drift adds up twice
        # those sizes, log_size the terms' (a bound on their current total).
        cdef intp_t e, k
        cdef double old_left, old_right, new_left, new_right
        for e in range(n_stats):
            k = stats[e] - 1
            old_left = self.weight_log(self.weight_left[k])
            old_right = self.weight_log(self.weight_right[k])
            self.weight_left[k] += values[e]
            self.weight_right[k] -= values[e]
            new_left = self.weight_log(self.weight_left[k])
            new_right = self.weight_log(self.weight_right[k])
            self.log_sum += (new_left - old_left) + (new_right - old_right)
            self.log_size += (fabs(new_left) - fabs(old_left)) + (fabs(new_right)
                                                                 - fabs(old_right))
            self.log_drift += (fabs(new_left) + fabs(old_left) + fabs(new_right)
                               + fabs(old_right) + self.log_size)
        self.weighted_n_left += weight

    cdef double proxy_bound(self) noexcept nogil:
        # proxy_improvement adds 2 n_node_classes + 2 terms one by one, so
        # it lies within (2 n_node_classes + 2) 2**-53 times their size of
        # their exact sum, which log_sum minus the children's weights' terms
        # misses by at most 2**-52 log_drift (both to first order). Twice
        # and four times those margins cover the higher orders and the
        # rounding of this sum.
        cdef double left = self.weight_log(self.weighted_n_left)
        cdef double right = self.weight_log(self.weighted_n_node - self.weighted_n_left)
        cdef double size = self.log_size + fabs(left) + fabs(right)
        return (self.log_sum - left - right
                + DBL_EPSILON * (2.0 * self.log_drift
                                 + 2.0 * (2 * self.n_node_classes + 2) * size))

    cdef double node_impurity(self) noexcept nogil:
        cdef double entropy = 0.0
        cdef double fraction
        cdef intp_t k
        for k in range(self.n_node_classes):
            # A positive weight's fraction may still round to 0 (a denormal
            # weight beside weights of 1): 0 log 0 = 0.
            fraction = self.node_class_total[k] / self.weighted_n_node
            if fraction > 0.0:
                entropy -= fraction * log2(fraction)
        return entropy


cdef class Misclassification(ClassificationCriterion):
    """Misclassification impurity 1 - max_k p_k.

    The proxy max_k left_k + max_k right_k is the weight the two children
    classify correctly.
    """

    def __cinit__(self, *args):
        self.bounds_proxy = True

    cdef double proxy_improvement(self) noexcept nogil:
        cdef double best_left = 0.0
        cdef double best_right = 0.0
        cdef intp_t k
        for k in range(self.n_node_classes):
            if self.weight_left[k] > best_left:
                best_left = self.weight_left[k]
            if self.weight_right[k] > best_right:
                best_right = self.weight_right[k]
        # Weights only leave the right child until the next reset.
        self.largest_right_bound = best_right
        return best_left + best_right

    cdef void reset(self) noexcept nogil:
        ClassificationCriterion.reset(self)
        self.largest_left = 0.0
        self.largest_right_bound = INFINITY

    cdef void move_stats_left(self, double weight, const intp_t* stats, const double* values,
                              intp_t n_stats) noexcept nogil:
        cdef intp_t e, k
        for e in range(n_stats):
            k = stats[e] - 1
            self.weight_left[k] += values[e]
            self.weight_right[k] -= values[e]
            if self.weight_left[k] > self.largest_left:
                self.largest_left = self.weight_left[k]
        self.weighted_n_left += weight

    cdef double proxy_bound(self) noexcept nogil:
        # Rounding is monotonic: the sum of the bounds bounds the proxy.
        return self.largest_left + self.largest_right_bound

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
        # weight, weighted sum of target - reference, squared deviations, reference
        self.state_size = 4
        self.allocate_positions(target.shape[0])
        self.position_target = <double*> allocate(target.shape[0], sizeof(double))
        self.spare_target = <double*> allocate(target.shape[0], sizeof(double))
        self.centres = True
        self.position_centred = <double*> allocate(target.shape[0], sizeof(double))
        self.spare_centred = <double*> allocate(target.shape[0], sizeof(double))

    def __dealloc__(self):
        free(self.position_centred)
        free(self.spare_centred)
        free(self.position_target)
        free(self.spare_target)

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

    cdef void partition(self, uint32_t* samples, intp_t start, intp_t end,
                        const uint8_t* goes_left, double* left_state,
                        double* right_state) noexcept nogil:
        # As ClassificationCriterion.partition: both sides written, one
        # advanced; the sides' weights and sums added in position order,
        # each side's relative to its reference (the target of its first
        # position, where partition puts it: first on its side), and its
        # targets minus that written for its sweeps.
        cdef intp_t i, n_left = 0, n_right = 0, side, n_node = end - start
        cdef uint32_t sample
        cdef double weight, target, centred
        cdef double side_weight[2]
        cdef double side_sum[2]
        cdef double side_reference[2]
        cdef uint32_t* node_samples = samples + start
        cdef double* node_weight = self.position_weight + start
        cdef double* node_target = self.position_target + start
        cdef double* node_centred = self.position_centred + start
        side_weight[0] = 0.0
        side_weight[1] = 0.0
        side_sum[0] = 0.0
        side_sum[1] = 0.0
        side_reference[0] = 0.0
        side_reference[1] = 0.0
        if self.centres:
            for side in range(2):
                i = 0
                while i < n_node and goes_left[i] != side:
                    i += 1
                if i < n_node:
                    side_reference[side] = node_target[i]
        for i in range(n_node):
            sample = node_samples[i]
            weight = node_weight[i]
            target = node_target[i]
            side = goes_left[i]
            centred = target - side_reference[side]
            node_samples[n_left] = sample
            node_weight[n_left] = weight
            node_target[n_left] = target
            node_centred[n_left] = centred
            self.spare_sample[n_right] = sample
            self.spare_weight[n_right] = weight
            self.spare_target[n_right] = target
            self.spare_centred[n_right] = centred
            n_left += side
            n_right += 1 - side
            side_weight[side] += weight
            side_sum[side] += weight * centred
        memcpy(node_samples + n_left, self.spare_sample, n_right * sizeof(uint32_t))
        memcpy(node_weight + n_left, self.spare_weight, n_right * sizeof(double))
        memcpy(node_target + n_left, self.spare_target, n_right * sizeof(double))
        memcpy(node_centred + n_left, self.spare_centred, n_right * sizeof(double))
        left_state[0] = side_weight[1]
        left_state[1] = side_sum[1]
        left_state[3] = side_reference[1]
        right_state[0] = side_weight[0]
        right_state[1] = side_sum[0]
        right_state[3] = side_reference[0]
        self.add_node_loss(start, start + n_left, left_state)
        self.add_node_loss(start + n_left, end, right_state)

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


cdef inline double log_ratio(double target, double mean) noexcept nogil:
    # log(target / mean) of positive numbers, also when the ratio under- or
    # overflows (targets 1e-300 and 1e300 in one node).
    cdef double ratio = target / mean
    if 0.0 < ratio < INFINITY:
        return log(ratio)
    return log(target) - log(mean)


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
        self.spare_column = <int32_t*> allocate(n_samples * self.n_outputs, sizeof(int32_t))
        self.position_value = <double*> allocate(n_samples * self.n_outputs, sizeof(double))
        self.spare_value = <double*> allocate(n_samples * self.n_outputs, sizeof(double))
        self.sum_total = <double*> calloc(self.n_values, sizeof(double))
        self.sum_left = <double*> calloc(self.n_values, sizeof(double))
        self.group = <double*> calloc(self.n_bin_stats, sizeof(double))
        self.output_mean = <double*> calloc(self.n_outputs, sizeof(double))
        self.reference = <double*> calloc(self.n_values, sizeof(double))
        self.common_target = <double*> calloc(self.n_values, sizeof(double))
        self.side_reference = <double*> calloc(2 * self.n_outputs, sizeof(double))
        # Classification and Poisson sweeps read the values as they are.
        self.position_centred = self.position_value
        self.spare_centred = self.spare_value
        if self.centres:
            self.position_centred = <double*> allocate(n_samples * self.n_outputs,
                                                       sizeof(double))
            self.spare_centred = <double*> allocate(n_samples * self.n_outputs,
                                                    sizeof(double))
        if not (self.sum_total and self.sum_left and self.group and self.output_mean
                and self.reference and self.common_target and self.side_reference):
            raise MemoryError()

    def __dealloc__(self):
        free(self.position_column)
        free(self.spare_column)
        free(self.position_value)
        free(self.spare_value)
        free(self.sum_total)
        free(self.sum_left)
        free(self.group)
        free(self.output_mean)
        free(self.reference)
        free(self.common_target)
        free(self.side_reference)
        if self.centres:
            free(self.position_centred)
            free(self.spare_centred)

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

    cdef void partition(self, uint32_t* samples, intp_t start, intp_t end,
                        const uint8_t* goes_left, double* left_state,
                        double* right_state) noexcept nogil:
        # As SquaredError.partition, with n_outputs entries per position;
        # each side's squared error references are the targets of its first
        # position.
        cdef intp_t i, k, n_left = 0, n_right = 0, n_outputs = self.n_outputs
        cdef intp_t n_node = end - start, entry, side_index
        cdef uint32_t sample
        cdef double weight, centred
        cdef double* sides[2]
        cdef double* references[2]
        cdef uint32_t* node_samples = samples + start
        cdef double* node_weight = self.position_weight + start
        cdef int32_t* node_column = self.position_column + start * n_outputs
        cdef double* node_value = self.position_value + start * n_outputs
        cdef double* node_centred = self.position_centred + start * n_outputs
        cdef double* side
        cdef bint centres = self.centres
        sides[0] = right_state
        sides[1] = left_state
        references[0] = self.side_reference
        references[1] = self.side_reference + n_outputs
        memset(left_state, 0, self.state_size * sizeof(double))
        memset(right_state, 0, self.state_size * sizeof(double))
        memset(self.side_reference, 0, 2 * n_outputs * sizeof(double))
        if centres:
            for side_index in range(2):
                i = 0
                while i < n_node and goes_left[i] != side_index:
                    i += 1
                if i < n_node:
                    memcpy(references[side_index], node_value + i * n_outputs,
                           n_outputs * sizeof(double))
                    memcpy(sides[side_index] + 2 + self.n_values, node_value + i * n_outputs,
                           n_outputs * sizeof(double))
        for i in range(n_node):
            sample = node_samples[i]
            weight = node_weight[i]
            side = sides[goes_left[i]]
            side[0] += weight
            if goes_left[i]:
                # In place: n_left <= i, so nothing unread is overwritten.
                node_samples[n_left] = sample
                node_weight[n_left] = weight
                entry = n_left * n_outputs
                n_left += 1
            else:
                self.spare_sample[n_right] = sample
                self.spare_weight[n_right] = weight
                entry = n_right * n_outputs
                n_right += 1
            for k in range(n_outputs):
                if centres:
                    centred = node_value[i * n_outputs + k] - references[goes_left[i]][k]
                else:
                    centred = node_value[i * n_outputs + k]
                side[2 + node_column[i * n_outputs + k]] += weight * centred
                if goes_left[i]:
                    node_column[entry + k] = node_column[i * n_outputs + k]
                    node_value[entry + k] = node_value[i * n_outputs + k]
                    if centres:
                        node_centred[entry + k] = centred
                else:
                    self.spare_column[entry + k] = node_column[i * n_outputs + k]
                    self.spare_value[entry + k] = node_value[i * n_outputs + k]
                    if centres:
                        self.spare_centred[entry + k] = centred
        memcpy(node_samples + n_left, self.spare_sample, n_right * sizeof(uint32_t))
        memcpy(node_weight + n_left, self.spare_weight, n_right * sizeof(double))
        memcpy(node_column + n_left * n_outputs, self.spare_column,
               n_right * n_outputs * sizeof(int32_t))
        memcpy(node_value + n_left * n_outputs, self.spare_value,
               n_right * n_outputs * sizeof(double))
        if centres:
            memcpy(node_centred + n_left * n_outputs, self.spare_centred,
                   n_right * n_outputs * sizeof(double))
        self.add_node_loss(start, start + n_left, left_state)
        self.add_node_loss(start + n_left, end, right_state)

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


# 1.5 * 2**52: adding it and taking it away again rounds a double of
# magnitude below 2**51 to a whole number (to even on halves), as
# nearbyint does in the default rounding mode, without a library call.
cdef double ROUNDING_SHIFT = 6755399441055744.0


cdef inline double round_to_whole(double value) noexcept nogil:
    # Without -ffast-math the compiler keeps both operations.
    return (value + ROUNDING_SHIFT) - ROUNDING_SHIFT


# AbsoluteError works on halves of the targets: differences and sums of two
# halves never overflow (targets of +-1e308), and halving is exact.
cdef double HALF = 0.5


cdef inline double absolute_deviation(double median, double weight_at_or_below,
                                      double sum_at_or_below, double weight,
                                      double weighted_sum) noexcept nogil:
    # sum w |y - median| when the targets at or below the median weigh
    # weight_at_or_below and sum to sum_at_or_below (the targets, median
    # and sums all taken relative to one reference).
    return (median * (2.0 * weight_at_or_below - weight) - 2.0 * sum_at_or_below
            + weighted_sum)


cdef class AbsoluteError(Criterion):
    """Mean absolute deviation from the weighted median (see _criterion.pxd).

    Parameters
    ----------
    target : ndarray of float64, shape (n_samples, n_outputs)
    sample_weight : ndarray of float64, shape (n_samples,)
    """

    def __cinit__(self, const double[:, ::1] target not None,
                  const double[::1] sample_weight not None):
        cdef intp_t n_samples = target.shape[0], k
        self.n_outputs = target.shape[1]
        if sample_weight.shape[0] != n_samples or n_samples == 0 or self.n_outputs == 0:
            raise ValueError("AbsoluteError: inconsistent shapes")
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
        self.spare_target = <double*> allocate(entries, sizeof(double))
        self.spare_rank = <uint32_t*> allocate(entries, sizeof(uint32_t))
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
        self.node_median = <double*> calloc(self.n_outputs, sizeof(double))
        self.node_cursor = <MedianCursor*> calloc(self.n_outputs, sizeof(MedianCursor))
        self.left_cursor = <MedianCursor*> calloc(self.n_outputs, sizeof(MedianCursor))
        self.right_cursor = <MedianCursor*> calloc(self.n_outputs, sizeof(MedianCursor))
        if not (self.n_distinct and self.node_reference and self.node_sum and self.left_sum
                and self.node_median
                and self.node_cursor and self.left_cursor and self.right_cursor):
            raise MemoryError()

    def __dealloc__(self):
        free(self.position_target)
        free(self.position_rank)
        free(self.spare_target)
        free(self.spare_rank)
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
        free(self.node_median)
        free(self.node_cursor)
        free(self.left_cursor)
        free(self.right_cursor)

    @property
    def regression(self):
        """Always True: the outputs are regressions (their values are medians)."""
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
        # their weights and sums, the exact median and loss, the Fenwick tree.
        cdef intp_t i, k, t, j, m, n_outputs = self.n_outputs
        cdef intp_t block = self.block_size
        cdef intp_t n_node = end - start
        cdef uint64_t* sorted_items
        cdef uint32_t rank, previous
        cdef double weight, total, cumulative, median, reference, loss = 0.0, scale = 0.0
        cdef int exponent
        cdef double* values
        cdef double* raw
        cdef double* point
        cdef MedianCursor* cursor
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
            # The median as scikit-learn's weighted percentile (average=True);
            # the node's cursor is where the right child's starts.
            cumulative = 0.0
            cursor = &self.node_cursor[k]
            cursor.index = m - 1
            cursor.below_weight = 0.0
            cursor.below_sum = 0.0
            median = values[m - 1]
            self.node_median[k] = raw[m - 1]
            for j in range(m):
                if cumulative + point[3 * j] >= 0.5 * total:
                    cursor.index = j
                    median = values[j]
                    self.node_median[k] = raw[j]
                    if cumulative + point[3 * j] == 0.5 * total and j + 1 < m:
                        median = 0.5 * (values[j] + values[j + 1])
                        self.node_median[k] = 0.5 * raw[j] + 0.5 * raw[j + 1]
                    break
                cumulative += point[3 * j]
                cursor.below_weight = cumulative
                cursor.below_sum += point[3 * j + 1]
            for j in range(m):
                self.node_sum[k] += point[3 * j + 1]
                loss += point[3 * j] * fabs(values[j] - median)
                scale += point[3 * j] * (fabs(values[j]) + fabs(median))
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

    cdef void partition(self, uint32_t* samples, intp_t start, intp_t end,
                        const uint8_t* goes_left, double* left_state,
                        double* right_state) noexcept nogil:
        cdef intp_t i, k, n_left = 0, n_right = 0, n_outputs = self.n_outputs
        cdef uint32_t sample
        cdef double weight
        cdef double side_weight[2]
        cdef uint32_t* node_samples = samples + start
        cdef double* node_weight = self.position_weight + start
        cdef double* node_target = self.position_target + start * n_outputs
        cdef uint32_t* node_rank = self.position_rank + start * n_outputs
        side_weight[0] = 0.0
        side_weight[1] = 0.0
        for i in range(end - start):
            sample = node_samples[i]
            weight = node_weight[i]
            side_weight[goes_left[i]] += weight
            if goes_left[i]:
                node_samples[n_left] = sample
                node_weight[n_left] = weight
                for k in range(n_outputs):
                    node_target[n_left * n_outputs + k] = node_target[i * n_outputs + k]
                    node_rank[n_left * n_outputs + k] = node_rank[i * n_outputs + k]
                n_left += 1
            else:
                self.spare_sample[n_right] = sample
                self.spare_weight[n_right] = weight
                for k in range(n_outputs):
                    self.spare_target[n_right * n_outputs + k] = node_target[i * n_outputs + k]
                    self.spare_rank[n_right * n_outputs + k] = node_rank[i * n_outputs + k]
                n_right += 1
        memcpy(node_samples + n_left, self.spare_sample, n_right * sizeof(uint32_t))
        memcpy(node_weight + n_left, self.spare_weight, n_right * sizeof(double))
        memcpy(node_target + n_left * n_outputs, self.spare_target,
               n_right * n_outputs * sizeof(double))
        memcpy(node_rank + n_left * n_outputs, self.spare_rank,
               n_right * n_outputs * sizeof(uint32_t))
        left_state[0] = side_weight[1]
        right_state[0] = side_weight[0]

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
            self.walk_cursor(k, &self.left_cursor[k], False, 0.5 * self.weighted_n_left)
            self.walk_cursor(k, &self.right_cursor[k], True,
                             0.5 * (self.weighted_n_node - self.weighted_n_left))

    cdef void walk_cursor(self, intp_t k, MedianCursor* cursor, bint right,
                          double half) noexcept nogil:
        # Back while the weight below reaches half, then on while the weight
        # through the cursor's entry stays short of it; absent targets weigh
        # 0. The right child's points are the node's minus the left's: one
        # loop for each child, so that no step tests which.
        cdef intp_t block = self.block_size, m = self.n_distinct[k]
        cdef const double* left_point = self.left_point + 3 * k * block
        cdef const double* node_point = self.node_point + 3 * k * block
        cdef intp_t j = cursor.index
        cdef double below_weight = cursor.below_weight, below_sum = cursor.below_sum
        cdef double weight
        if right:
            while j > 0 and below_weight >= half:
                j -= 1
                below_weight -= node_point[3 * j] - left_point[3 * j]
                below_sum -= node_point[3 * j + 1] - left_point[3 * j + 1]
            while j < m - 1:
                weight = node_point[3 * j] - left_point[3 * j]
                if below_weight + weight >= half:
                    break
                below_weight += weight
                below_sum += node_point[3 * j + 1] - left_point[3 * j + 1]
                j += 1
        else:
            while j > 0 and below_weight >= half:
                j -= 1
                below_weight -= left_point[3 * j]
                below_sum -= left_point[3 * j + 1]
            while j < m - 1:
                weight = left_point[3 * j]
                if below_weight + weight >= half:
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

    cdef double side_loss(self, intp_t k, const MedianCursor* cursor, bint right,
                          double weight, double weighted_sum) noexcept nogil:
        cdef intp_t block = self.block_size, m = self.n_distinct[k], j = cursor.index
        cdef const double* left_point = self.left_point + 3 * k * block
        cdef const double* node_point = self.node_point + 3 * k * block
        cdef const double* values = self.distinct_value + k * block
        cdef double weight_at = left_point[3 * j], sum_at = left_point[3 * j + 1]
        if right:
            weight_at = node_point[3 * j] - weight_at
            sum_at = node_point[3 * j + 1] - sum_at
        return absolute_deviation(self.side_median(k, cursor, right, weight),
                                  cursor.below_weight + weight_at,
                                  cursor.below_sum + sum_at, weight, weighted_sum)

    cdef double side_median(self, intp_t k, const MedianCursor* cursor, bint right,
                            double weight) noexcept nogil:
        cdef intp_t block = self.block_size, m = self.n_distinct[k], j = cursor.index
        cdef const double* left_point = self.left_point + 3 * k * block
        cdef const double* node_point = self.node_point + 3 * k * block
        cdef const double* values = self.distinct_value + k * block
        cdef double weight_at = left_point[3 * j]
        cdef double median = values[j]
        if right:
            weight_at = node_point[3 * j] - weight_at
        if cursor.below_weight + weight_at == 0.5 * weight:
            # Exactly half at or below: the mean with the next target present.
            j += 1
            while j < m and (node_point[3 * j + 2] - left_point[3 * j + 2] if right
                             else left_point[3 * j + 2]) == 0.0:
                j += 1
            if j < m:
                median = 0.5 * (median + values[j])
        return median

    cdef double monotone_value(self) noexcept nogil:
        return self.node_median[0]

    cdef void children_values(self, double* left, double* right) noexcept nogil:
        left[0] = (self.side_median(0, &self.left_cursor[0], False, self.weighted_n_left)
                   + self.node_reference[0]) / HALF
        right[0] = (self.side_median(0, &self.right_cursor[0], True,
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
        return self.node_loss / (self.weighted_n_node * self.n_outputs) / HALF

    cdef void node_value(self, double* out) noexcept nogil:
        memcpy(out, self.node_median, self.n_outputs * sizeof(double))

    cdef intp_t node_value_entries(self, int32_t* index, double* data) noexcept nogil:
        cdef intp_t k, n_entries = 0
        for k in range(self.n_outputs):
            if self.node_median[k] != 0.0:
                index[n_entries] = <int32_t> k
                data[n_entries] = self.node_median[k]
                n_entries += 1
        return n_entries


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
