# cython: language_level=3
"""Classification criteria: Gini, Gini with a loss matrix, entropy and
misclassification."""

import numpy as np
cimport numpy as cnp

from libc.float cimport DBL_EPSILON, DBL_MIN
from libc.math cimport INFINITY, fabs, log, log2
from libc.stdlib cimport calloc, free
from libc.string cimport memcpy, memset

from ._criterion cimport INLINE_GINI, allocate, bin_of, weight_log_weight
from ._utils cimport cancelling_scale, item_position

cdef inline void add_class_to_bin(double* bin, intp_t* count, intp_t label,
                                  double weight) noexcept nogil:
    count[0] += 1
    bin[0] += weight
    bin[1 + label] += weight



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
        self.position_class = <int32_t*> allocate(class_index.shape[0], sizeof(int32_t))
        self.move_with_samples(self.position_class, sizeof(int32_t))
        if self.packed_sums:
            self.position_increment = <int64_t*> allocate(class_index.shape[0],
                                                          sizeof(int64_t))
            self.move_with_samples(self.position_increment, sizeof(int64_t))
        self.n_node_classes = 0
        self.node_classes = <intp_t*> calloc(n_classes, sizeof(intp_t))
        self.class_number = <intp_t*> calloc(n_classes, sizeof(intp_t))
        self.tally.total = <double*> calloc(n_classes, sizeof(double))
        self.tally.seen = <char*> calloc(n_classes, sizeof(char))
        self.tally.classes = <intp_t*> calloc(n_classes, sizeof(intp_t))
        self.tally.n_seen = 0
        self.tally.weight = 0.0
        if not (self.tally.total and self.tally.seen and self.tally.classes):
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
        free(self.position_class)
        free(self.position_increment)
        free(self.node_classes)
        free(self.class_number)
        free(self.tally.total)
        free(self.tally.seen)
        free(self.tally.classes)
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
        cdef ClassTally* tally = &self.tally
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

    cdef void children_states(self, intp_t start, intp_t middle, intp_t end,
                              double* left_state, double* right_state) noexcept nogil:
        if self.children_from_kept:
            self.write_kept_states(left_state, right_state)
        else:
            Criterion.children_states(self, start, middle, end, left_state, right_state)

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

    def __cinit__(self, *args):
        self.inline_sweep = INLINE_GINI

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
