# cython: language_level=3
"""Random thresholds of extremely randomized trees, drawn and scored."""

import numpy as np

from libc.math cimport INFINITY
from libc.stdlib cimport free, malloc
from libc.string cimport memcpy

from ._histogram cimport histogram_bin, histogram_fill
from ._criterion cimport BIN_BYTES_4, BinSource, bin_of
from ._split_search cimport IMPROVED, NO_MISSING, keep_threshold, offer
from ._utils cimport rng_next

cdef extern from *:
    void __builtin_prefetch(const void* address) noexcept nogil

cdef extern from "_vector.h":
    void ft_extremes(const float* values, intp_t n, float* least, float* largest) noexcept nogil


# The bins of a random split's sides.
cdef enum:
    LEFT_SIDE = 0
    RIGHT_SIDE = 1
    MISSING_SIDE = 2


# A node whose rows hold at most this many values (a quarter of a core's
# second-level cache here) reads a random split's values from its rows.
cdef intp_t ROW_READ_FLOATS = 65536


# Samples ahead of the one read at which a gather asks for a value early.
cdef intp_t PREFETCH_DISTANCE = 32


# 2**-53: a uniform double in [0, 1) is the top 53 bits of a draw times this.
cdef double UNIT_53 = 1.0 / 9007199254740992.0


cdef inline float float_below(float value) noexcept nogil:
    # The float32 just below a finite value (nextafterf towards -inf,
    # without the library call).
    cdef uint32_t bits
    if value == 0.0:
        bits = 0x80000001u  # the negative value of least magnitude
    else:
        memcpy(&bits, &value, sizeof(float))
        bits = bits - 1 if value > 0.0 else bits + 1
    memcpy(&value, &bits, sizeof(float))
    return value


cdef inline float known_or_infinite(float value) noexcept nogil:
    # A missing value (NaN) as the random splitter reads it: +inf.
    return INFINITY if value != value else value


cdef class RandomSplits:
    """The random splits of one fit.

    Parameters
    ----------
    criterion : Criterion
        The fit's criterion.
    columns : ndarray of float32
        ``fasttree._features.feature_columns`` of the training matrix,
        (n_features, n_samples).
    rows : ndarray of float32 or None
        The training matrix itself, C-contiguous float32 with NaN for
        missing values, which small nodes read (see ``ROW_READ_FLOATS``);
        None reads the columns only.
    """

    def __cinit__(self, Criterion criterion not None, columns not None, rows=None):
        cdef const float[:, ::1] column_view
        cdef const float[:, ::1] row_view
        columns = np.ascontiguousarray(columns, dtype=np.float32)
        if columns.ndim != 2:
            raise ValueError("columns must have shape (n_features, n_samples)")
        self.criterion = criterion
        self.n_features, self.n_samples = columns.shape
        column_view = columns
        self.columns = &column_view[0, 0] if columns.size else NULL
        self._keep_alive = (columns,)
        self.rows = NULL
        self.row_node_limit = 0
        if rows is not None and rows.size:
            if (rows.dtype != np.float32 or not rows.flags.c_contiguous
                    or rows.shape != (self.n_samples, self.n_features)):
                raise ValueError("rows must be C-contiguous float32 of shape "
                                 "(n_samples, n_features)")
            row_view = rows
            self.rows = &row_view[0, 0]
            self.row_node_limit = ROW_READ_FLOATS // self.n_features
            self._keep_alive = self._keep_alive + (rows,)
        self.value_buffers = <float*> malloc(2 * max(1, self.n_samples) * sizeof(float))
        if not self.value_buffers:
            raise MemoryError()
        self.node_values = self.value_buffers
        self.best_node_values = self.value_buffers + max(1, self.n_samples)

    def __dealloc__(self):
        free(self.value_buffers)

    cdef int draw_split(self, SearchState* state, const uint32_t* node_samples,
                        intp_t n_node, intp_t feature, BestCandidate* best) noexcept nogil:
        cdef const float* source = self.columns + feature * self.n_samples
        cdef intp_t stride = 1
        cdef float* node_values = self.node_values
        cdef float value, min_value = INFINITY, max_value = -INFINITY
        cdef intp_t i, lane
        cdef bint has_missing = False
        if n_node <= self.row_node_limit:
            source = self.rows + feature
            stride = self.n_features
        # Missing values are +inf here; every known one is finite.
        if state.data.missing_ranks[feature] == NO_MISSING:
            # The samples' values are scattered over the columns: asking for
            # them a few iterations early overlaps the cache misses. (A small
            # node's rows are mostly in cache already.)
            for i in range(0, n_node - 3, 4):
                if stride == 1 and i + PREFETCH_DISTANCE + 3 < n_node:
                    for lane in range(4):
                        __builtin_prefetch(
                            source + node_samples[i + PREFETCH_DISTANCE + lane] * stride)
                for lane in range(4):
                    node_values[i + lane] = source[node_samples[i + lane] * stride]
            for i in range(n_node - n_node % 4, n_node):
                node_values[i] = source[node_samples[i] * stride]
            if n_node:
                ft_extremes(node_values, n_node, &min_value, &max_value)
        else:
            for i in range(n_node):
                if stride == 1 and i + PREFETCH_DISTANCE < n_node:
                    __builtin_prefetch(source + node_samples[i + PREFETCH_DISTANCE])
                # The rows hold NaN where the columns hold +inf.
                value = known_or_infinite(source[node_samples[i] * stride])
                node_values[i] = value
                has_missing |= value == INFINITY
                min_value = min(min_value, value)
                max_value = max(max_value, value if value != INFINITY else -INFINITY)
        if min_value == INFINITY or (min_value == max_value and not has_missing):
            return 0
        return self.offer_draw(state, n_node, feature,
                               self.draw_threshold(state, min_value, max_value, has_missing),
                               best)

    cdef RandomDraw draw_threshold(self, SearchState* state, float min_value, float max_value,
                                   bint has_missing) noexcept nogil:
        cdef RandomDraw draw
        cdef double drawn
        draw.min_value = min_value
        draw.max_value = max_value
        draw.has_missing = has_missing
        draw.missing_left = False
        if min_value == max_value:
            # Every known value left, the missing ones right, at a finite
            # threshold: the known value.
            draw.threshold = min_value
            return draw
        # Uniform in [least, largest); a draw that rounds up to the
        # largest value becomes the least, as scikit-learn does.
        drawn = min_value + (rng_next(&state.rng_state) >> 11) * UNIT_53 * (
            <double> max_value - min_value)
        if drawn >= max_value:
            drawn = min_value
        # The float32 at or below the draw: it sends left exactly the
        # values <= the draw.
        draw.threshold = <float> drawn
        if draw.threshold > drawn:
            draw.threshold = float_below(draw.threshold)
        if has_missing:
            draw.missing_left = rng_next(&state.rng_state) & 1
        return draw

    cdef int offer_draw(self, SearchState* state, intp_t n_node, intp_t feature,
                        RandomDraw draw, BestCandidate* best) noexcept nogil:
        cdef float* node_values = self.node_values
        cdef uint32_t* sides = state.buffers.node_ranks
        cdef float value
        cdef intp_t i, n_left
        self.criterion.reset()
        n_left = self.criterion.move_values_left(node_values, draw.threshold,
                                                 draw.missing_left, n_node)
        if n_left >= 0:
            pass
        elif self.criterion.needs_sorted_moves:
            # No bins: the left side's samples move one by one.
            n_left = 0
            for i in range(n_node):
                value = node_values[i]
                if value <= draw.threshold or (draw.missing_left and value == INFINITY):
                    self.criterion.move_position_left(i)
                    n_left += 1
        else:
            # Each position's side as a bin (0 left, 1 right, 2 missing),
            # summed in one fill, as the exact sweeps sum theirs.
            for i in range(n_node):
                # Without branches: which side a value takes is unpredictable.
                value = node_values[i]
                sides[i] = (value > draw.threshold) + (value == INFINITY)
            if histogram_fill(&state.buffers.histogram, self.criterion,
                              BinSource(sides, NULL, 0, BIN_BYTES_4), n_node, 3) < 0:
                return -1
            self.criterion.move_bin_left(histogram_bin(&state.buffers.histogram, LEFT_SIDE))
            n_left = state.buffers.histogram.counts[LEFT_SIDE]
            if draw.missing_left:
                self.criterion.move_bin_left(histogram_bin(&state.buffers.histogram, MISSING_SIDE))
                n_left += state.buffers.histogram.counts[MISSING_SIDE]
        if offer(self.criterion, &state.limits, best, n_left, n_node, feature, 0) != IMPROVED:
            return 1
        # Keep the winner's values for split_node's partition, which then
        # reads them in order rather than gathering them from the column.
        self.node_values = self.best_node_values
        self.best_node_values = node_values
        best.has_missing = draw.has_missing
        best.missing_left = draw.missing_left
        best.is_subset = False
        best.threshold = draw.threshold
        best.least_value = draw.min_value
        best.right_top_value = (INFINITY if draw.has_missing and not draw.missing_left
                                else draw.max_value)
        return 1

    cdef bint draw_pair(self, SearchState* state, const uint32_t* node_samples,
                        intp_t feature, RandomDraw* draw) noexcept nogil:
        cdef float first = self.sample_value(node_samples[0], feature)
        cdef float second = self.sample_value(node_samples[1], feature)
        if first == second:
            return False
        # One value may be missing (+inf), not both.
        draw[0] = self.draw_threshold(state, min(first, second),
                                             second if first == INFINITY
                                             else (first if second == INFINITY
                                                   else max(first, second)),
                                             first == INFINITY or second == INFINITY)
        return True

    cdef float sample_value(self, uint32_t sample, intp_t feature) noexcept nogil:
        if self.rows != NULL:
            return known_or_infinite(self.rows[sample * self.n_features + feature])
        return self.columns[feature * self.n_samples + sample]

    cdef int offer_pair(self, SearchState* state, const uint32_t* node_samples,
                        intp_t feature, RandomDraw draw, BestCandidate* best) noexcept nogil:
        cdef intp_t i
        for i in range(2):
            self.node_values[i] = self.sample_value(node_samples[i], feature)
        return self.offer_draw(state, 2, feature, draw, best)

    cdef intp_t mark_left(self, const BestCandidate* best, intp_t n_node, uint8_t* goes_left,
                          bint* left_single, bint* right_single) noexcept nogil:
        # A drawn threshold compares values (missing ones are +inf); the
        # children's extremes tell whether each holds one value, found here
        # for the winner alone rather than for every candidate.
        cdef intp_t i, n_left = 0, n_least = 0, n_right_top = 0
        cdef float value
        cdef bint left
        for i in range(n_node):
            value = self.best_node_values[i]
            left = (value <= best.threshold) | (best.missing_left & (value == INFINITY))
            goes_left[i] = left
            n_left += left
            n_least += value == best.least_value
            n_right_top += value == best.right_top_value
        # The least value always goes left; the right child's top one (its
        # largest known, or +inf) always goes right.
        left_single[0] = n_least == n_left
        right_single[0] = n_right_top == n_node - n_left
        return n_left


cdef int draw_binned_split(Criterion criterion, SearchState* state, BinSource source,
                           intp_t n_node, intp_t feature, BestCandidate* best) noexcept nogil:
    cdef uint32_t* node_ranks = state.buffers.node_ranks
    cdef uint32_t missing_rank = state.data.missing_ranks[feature]
    cdef uint32_t rank, boundary, least = 0xFFFFFFFFu, largest = 0
    cdef uint32_t left_top = 0, right_least = 0xFFFFFFFFu
    cdef intp_t i, n_left, n_missing = 0
    cdef double drawn
    cdef bint has_missing, missing_left = False, goes_right, is_missing
    # Selects, not branches, in both passes: which side a sample takes is
    # unpredictable. The missing values' bin is the last, so it sets the
    # least bin only when every value is missing.
    for i in range(n_node):
        # The node's samples are scattered over the column: asking for a
        # sample's bin a few iterations early overlaps the cache misses.
        if source.node_samples != NULL and i + PREFETCH_DISTANCE < n_node:
            __builtin_prefetch(<const char*> source.bins + (
                <intp_t> source.node_samples[i + PREFETCH_DISTANCE]
                << source.shift))
        rank = <uint32_t> bin_of(source, i)
        node_ranks[i] = rank
        is_missing = rank == missing_rank
        n_missing += is_missing
        least = rank if rank < least else least
        largest = rank if (rank > largest and not is_missing) else largest
    has_missing = n_missing > 0
    if n_missing == n_node or (least == largest and not has_missing):
        return 0
    if least == largest:
        boundary = least
    else:
        # Bins up to the boundary go left, the boundary drawn as
        # draw_threshold draws a threshold between values (uniform in
        # [least, largest), a draw that rounds up to largest taken as
        # least), here between bin numbers, so that both sides hold a known
        # value and the tree is the random tree of the bin numbers.
        drawn = least + (rng_next(&state.rng_state) >> 11) * UNIT_53 * (largest - least)
        boundary = least if drawn >= largest else <uint32_t> drawn
        if has_missing:
            missing_left = rng_next(&state.rng_state) & 1
    criterion.reset()
    # Each position's side (0 left, 1 right, 2 missing: its bin is above
    # every known one), and the bins on either side of the boundary that
    # the node holds, in one pass.
    for i in range(n_node):
        rank = node_ranks[i]
        goes_right = rank > boundary
        is_missing = rank == missing_rank
        node_ranks[i] = goes_right + is_missing
        left_top = rank if (not goes_right and rank > left_top) else left_top
        right_least = rank if (goes_right and not is_missing and rank < right_least) \
            else right_least
    if right_least == 0xFFFFFFFFu:
        right_least = missing_rank  # every known value left, the missing ones right
    if criterion.needs_sorted_moves:
        # No bins: the left side's samples move one by one.
        n_left = 0
        for i in range(n_node):
            if node_ranks[i] == 0 or (missing_left and node_ranks[i] == 2):
                criterion.move_position_left(i)
                n_left += 1
    else:
        if histogram_fill(&state.buffers.histogram, criterion,
                          BinSource(node_ranks, NULL, 0, BIN_BYTES_4), n_node, 3) < 0:
            return -1
        criterion.move_bin_left(histogram_bin(&state.buffers.histogram, LEFT_SIDE))
        n_left = state.buffers.histogram.counts[LEFT_SIDE]
        if missing_left:
            criterion.move_bin_left(histogram_bin(&state.buffers.histogram, MISSING_SIDE))
            n_left += state.buffers.histogram.counts[MISSING_SIDE]
    if offer(criterion, &state.limits, best, n_left, n_node, feature, left_top) == IMPROVED:
        keep_threshold(best, right_least, least, missing_rank if has_missing else largest,
                       has_missing, missing_left)
    return 1
