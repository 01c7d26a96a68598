# cython: language_level=3
"""Exact best-split search over value ranks: a sorted or a counted sweep per feature."""

import numpy as np

from libc.math cimport INFINITY
from libc.stdlib cimport calloc, free, malloc, qsort, realloc
from libc.string cimport memcpy, memset

from ._criterion cimport bin_of
from ._histogram cimport (histogram_bin, histogram_fill, histogram_fill_rare, histogram_free,
                          histogram_init)
cdef extern from *:
    void __builtin_prefetch(const void* address) noexcept nogil

cdef extern from "_vector.h":
    void ft_extremes(const float* values, intp_t n, float* least, float* largest) noexcept nogil

from ._utils cimport (NARROW_RANKS, beats_best, item_position, item_rank, midpoint,
                     pack_item, rng_below, rng_next, sort_items, stable_partition)

# split_node's note that a numeric feature is swept by the exact sweeps.
cdef int SWEEP_BELOW = 2
# How split_node reaches a node's rare rows (see Splitter.common_rank).
cdef enum:
    RARE_UNDECIDED = 0
    RARE_INDEXED = 1
    RARE_LISTED = 2


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


# 2**-53: a uniform double in [0, 1) is the top 53 bits of a draw times this.
cdef double UNIT_53 = 1.0 / 9007199254740992.0


cdef inline int bit_length(uint32_t value) noexcept nogil:
    cdef int bits = 0
    while value:
        bits += 1
        value >>= 1
    return bits


cdef int compare_keyed(const void* first, const void* second) noexcept nogil:
    # Ascending keys, ties in category order.
    cdef const KeyedBin* a = <const KeyedBin*> first
    cdef const KeyedBin* b = <const KeyedBin*> second
    if a.key != b.key:
        return -1 if a.key < b.key else 1
    return -1 if a.index < b.index else (1 if a.index > b.index else 0)


cdef int grow(void** memory, intp_t count, size_t size) noexcept nogil:
    # realloc, keeping the old block when it fails.
    cdef void* grown = realloc(memory[0], count * size)
    if grown == NULL:
        return -1
    memory[0] = grown
    return 0


cdef inline bint holds_one_value(BinSource source, intp_t n_node) noexcept nogil:
    """Whether every node position has the bin of the first."""
    cdef intp_t i
    cdef intp_t first = bin_of(source, 0)
    for i in range(1, n_node):
        if bin_of(source, i) != first:
            return False
    return True


cdef enum:
    SKIP = 0       # not a valid split here; later positions may be
    STOP = 1       # no later position of this sweep can be valid
    IMPROVED = 2   # the best candidate so far

# The counted sweep costs about one pass over the node plus a clear and a
# sweep of every bin's statistics; the sorted sweep a sort plus a pass. A
# histogram is taken when its bins hold no more doubles than the node has
# samples times this factor. On bench/compare_ties.py's data 4 fit fastest
# (1: 10-15% slower on 16 levels; 8 and up: continuous data slows down).
# A feature with few values in all is counted over all of them without
# looking at its range in the node first: one pass over the node, not two.
cdef double COUNT_FACTOR = 4.0

# Which sweep new splitters use; tests set it to check that both agree.
split_method = SPLIT_AUTO
# Whether new splitters' subset sweeps take their shortcuts (see
# sweep_categories); tests turn them off to check that they change nothing.
subset_shortcuts = True


cdef class Splitter:
    """Best-split search for one fit.

    Parameters
    ----------
    criterion : Criterion
        Impurity statistics, already bound to the targets and weights.
    ranked : RankedFeatures
        ``fasttree._features.rank_features`` of the training matrix: the dense
        value ranks (n_features, n_samples), the distinct sorted values and
        their offsets, and the narrow ranks of the features of few values.
    max_features, min_samples_leaf : int
    min_weight_leaf : float
    seed : int
        Seed of the feature sampling.
    method : SplitMethod or None
        How features are swept; None takes the module's ``split_method``.
    categories : ndarray of intp or None
        Per feature, its number of category codes (its values are codes
        0 .. n - 1, or NaN), or 0 for a numeric feature; None when all are
        numeric.
    columns : ndarray of float32 or None
        ``fasttree._features.feature_columns`` of the training matrix; needed
        (only) by SPLIT_RANDOM, whose splits compare values.
    rows : ndarray of float32 or None
        SPLIT_RANDOM: the training matrix itself, C-contiguous float32 with
        NaN for missing values, which small nodes read (see
        ``ROW_READ_FLOATS``); None reads the columns only.
    """

    def __cinit__(self, Criterion criterion not None, ranked not None,
                  intp_t max_features, intp_t min_samples_leaf,
                  double min_weight_leaf, uint64_t seed, method=None, categories=None,
                  columns=None, monotonic_cst=None, rows=None):
        cdef const uint32_t[:, ::1] ranks = ranked.ranks
        cdef const float[::1] values = ranked.values
        cdef const intp_t[::1] value_offsets = ranked.value_offsets
        cdef const uint8_t[:, ::1] narrow_ranks = ranked.narrow_ranks
        cdef intp_t f
        cdef const float[:, ::1] column_view
        cdef const float[:, ::1] row_view
        if narrow_ranks.shape[0] != ranks.shape[0] or narrow_ranks.shape[1] != ranks.shape[1]:
            raise ValueError("ranks and narrow_ranks differ in shape")
        self.criterion = criterion
        self.n_features = ranks.shape[0]
        self.n_samples = ranks.shape[1]
        self.ranks = &ranks[0, 0]
        self.narrow_ranks = &narrow_ranks[0, 0]
        self.values = &values[0]
        self.value_offsets = &value_offsets[0]
        self.max_features = max_features
        self.min_samples_leaf = min_samples_leaf
        self.min_weight_leaf = min_weight_leaf
        self.rng_state = seed
        self.method = SplitMethod(split_method if method is None else method)
        if criterion.needs_sorted_moves and self.method != SPLIT_RANDOM:
            self.method = SPLIT_SORT
        if categories is None:
            categories = np.zeros(self.n_features, dtype=np.intp)
        categories = np.ascontiguousarray(categories, dtype=np.intp)
        if categories.shape != (self.n_features,) or (categories < 0).any():
            raise ValueError("categories needs a count >= 0 per feature")
        if criterion.needs_sorted_moves and (categories > 0).any():
            raise ValueError("this criterion sweeps thresholds only: it takes no "
                             "categorical features")
        cdef const intp_t[::1] category_counts = categories
        self.n_categories = &category_counts[0] if self.n_features else NULL
        self.any_categorical = bool((categories > 0).any())
        self.monotonic_cst = NULL
        self.lower_bound = -INFINITY
        self.upper_bound = INFINITY
        cdef const int8_t[::1] constraints
        if monotonic_cst is not None:
            monotonic_cst = np.ascontiguousarray(monotonic_cst, dtype=np.int8)
            if (monotonic_cst.shape != (self.n_features,)
                    or not np.isin(monotonic_cst, (-1, 0, 1)).all()):
                raise ValueError("monotonic_cst needs -1, 0 or 1 per feature")
            if (monotonic_cst[categories > 0] != 0).any():
                raise ValueError("monotonic_cst constrains numeric features only")
            constraints = monotonic_cst
            if self.n_features:
                self.monotonic_cst = &constraints[0]
        cdef const uint32_t[::1] common_rank = ranked.common_rank
        cdef const intp_t[::1] feature_offsets = ranked.rare_feature_offsets
        cdef const uint32_t[::1] rare_features = np.append(ranked.rare_features, np.uint32(0))
        if (common_rank.shape[0] != self.n_features
                or feature_offsets.shape[0] != self.n_samples + 1):
            raise ValueError("common_rank and rare_feature_offsets do not fit the ranks")
        cdef const intp_t[::1] rare_offsets = ranked.rare_offsets
        cdef const uint32_t[::1] rare_rows = np.append(ranked.rare_rows, np.uint32(0))
        cdef const uint32_t[::1] rare_ranks = np.append(ranked.rare_ranks, np.uint32(0))
        cdef const uint32_t[::1] rare_feature_ranks = np.append(ranked.rare_feature_ranks,
                                                                np.uint32(0))
        if (rare_ranks.shape[0] != rare_rows.shape[0]
                or rare_feature_ranks.shape[0] != rare_features.shape[0]):
            raise ValueError("the rare rows' ranks do not match the rare rows")
        if rare_offsets.shape[0] != self.n_features + 1:
            raise ValueError("rare_offsets needs an entry per feature and one more")
        self.common_rank = &common_rank[0] if self.n_features else NULL
        self.rare_feature_offsets = &feature_offsets[0]
        self.rare_features = &rare_features[0]
        self.rare_offsets = &rare_offsets[0]
        self.rare_rows = &rare_rows[0]
        self.rare_ranks = &rare_ranks[0]
        self.rare_feature_ranks = &rare_feature_ranks[0]
        n_common = int(np.count_nonzero(ranked.common_rank != NO_COMMON))
        self.rare_per_row = feature_offsets[self.n_samples] / max(1, self.n_samples)
        self.rare_per_feature = feature_offsets[self.n_samples] / max(1, n_common)
        self._keep_alive = (ranked.ranks, ranked.values, ranked.value_offsets,
                            ranked.narrow_ranks, categories, monotonic_cst,
                            ranked.common_rank, ranked.rare_feature_offsets,
                            rare_features.base, ranked.rare_offsets, rare_rows.base,
                            rare_ranks.base, rare_feature_ranks.base)
        # The subset sweeps' buffers serve the categorical features only.
        cdef intp_t max_ranks = max(1, int(np.diff(ranked.value_offsets)[categories > 0]
                                           .max(initial=1)))
        cdef intp_t max_words = 1 + (int(categories.max(initial=0)) + 31) // 32
        self.category_bin = <intp_t*> malloc(max_ranks * sizeof(intp_t))
        self.category_rank = <uint32_t*> malloc(max_ranks * sizeof(uint32_t))
        self.category_order = <KeyedBin*> malloc(max_ranks * sizeof(KeyedBin))
        self.ordering_slots = <intp_t*> malloc((criterion.n_values + 1) * sizeof(intp_t))
        self.entry_start = <intp_t*> malloc((max_ranks + 1) * sizeof(intp_t))
        self.category_weight = <double*> malloc(max_ranks * sizeof(double))
        self.category_count = <intp_t*> malloc(max_ranks * sizeof(intp_t))
        self.stat_start = <intp_t*> malloc((criterion.n_values + 2) * sizeof(intp_t))
        self.entry_stat = self.stat_category = NULL
        self.entry_value = self.stat_value = NULL
        self.entry_capacity = 0
        self.keyed = <KeyedBin*> malloc(max_ranks * sizeof(KeyedBin))
        self.category_keyed = <uint8_t*> calloc(max_ranks, sizeof(uint8_t))
        self.subset_shortcuts = bool(subset_shortcuts)
        self.sparse_moves = self.subset_shortcuts and criterion.moves_sparse_bins
        self.best_left_ranks = <uint32_t*> malloc(max_ranks * sizeof(uint32_t))
        self.best_present_ranks = <uint32_t*> malloc(max_ranks * sizeof(uint32_t))
        self.rank_goes_left = <uint8_t*> calloc(max_ranks, sizeof(uint8_t))
        self.category_set = <uint32_t*> malloc(max_words * sizeof(uint32_t))
        if not (self.category_bin and self.category_rank and self.category_order
                and self.ordering_slots and self.best_left_ranks and self.best_present_ranks
                and self.rank_goes_left and self.category_set and self.entry_start
                and self.category_weight and self.category_count and self.stat_start
                and self.keyed and self.category_keyed):
            raise MemoryError()
        histogram_init(&self.histogram)
        self.features = <intp_t*> malloc(self.n_features * sizeof(intp_t))
        self.node_ranks = <uint32_t*> malloc(self.n_samples * sizeof(uint32_t))
        self.items = <uint64_t*> malloc(self.n_samples * sizeof(uint64_t))
        self.scratch = <uint64_t*> malloc(self.n_samples * sizeof(uint64_t))
        self.goes_left = <uint8_t*> malloc(self.n_samples * sizeof(uint8_t))
        self.node_rare_start = <intp_t*> malloc((self.n_features + 1) * sizeof(intp_t))
        self.node_rare_fill = <intp_t*> malloc((self.n_features + 1) * sizeof(intp_t))
        self.node_rare_positions = <uint32_t*> malloc(
            max(1, feature_offsets[self.n_samples]) * sizeof(uint32_t))
        self.node_rare_ranks = <uint32_t*> malloc(
            max(1, feature_offsets[self.n_samples]) * sizeof(uint32_t))
        self.sample_position = <uint32_t*> calloc(self.n_samples, sizeof(uint32_t))
        self.listed_positions = <uint32_t*> malloc(self.n_samples * sizeof(uint32_t))
        self.listed_ranks = <uint32_t*> malloc(self.n_samples * sizeof(uint32_t))
        self.partition_spare = <char*> malloc(max(1, self.n_samples) * criterion.largest_item)
        if not (self.features and self.node_ranks and self.items and self.scratch
                and self.goes_left and self.node_rare_start and self.node_rare_fill
                and self.node_rare_positions and self.node_rare_ranks
                and self.sample_position and self.listed_positions and self.listed_ranks
                and self.partition_spare):
            raise MemoryError()
        for f in range(self.n_features):
            self.features[f] = f
        self.columns = NULL
        self.rows = NULL
        self.row_node_limit = 0
        self.value_buffers = NULL
        if self.method == SPLIT_RANDOM:
            if columns is None:
                raise ValueError("SPLIT_RANDOM needs the feature columns")
            columns = np.ascontiguousarray(columns, dtype=np.float32)
            if columns.shape != (self.n_features, self.n_samples):
                raise ValueError("columns must have shape (n_features, n_samples)")
            column_view = columns
            self.columns = &column_view[0, 0] if columns.size else NULL
            self._keep_alive = self._keep_alive + (columns,)
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
        # A feature's missing values rank last, as +inf (see rank_features).
        self.missing_ranks = <uint32_t*> malloc(max(self.n_features, 1) * sizeof(uint32_t))
        if not self.missing_ranks:
            raise MemoryError()
        for f in range(self.n_features):
            self.missing_ranks[f] = NO_MISSING
            if (value_offsets[f + 1] > value_offsets[f]
                    and values[value_offsets[f + 1] - 1] == INFINITY):
                self.missing_ranks[f] = <uint32_t> (value_offsets[f + 1] - 1 - value_offsets[f])

    def __dealloc__(self):
        free(self.partition_spare)
        free(self.value_buffers)
        free(self.missing_ranks)
        free(self.category_bin)
        free(self.category_rank)
        free(self.category_order)
        free(self.ordering_slots)
        free(self.entry_start)
        free(self.entry_stat)
        free(self.entry_value)
        free(self.category_weight)
        free(self.category_count)
        free(self.stat_start)
        free(self.stat_category)
        free(self.stat_value)
        free(self.keyed)
        free(self.category_keyed)
        free(self.best_left_ranks)
        free(self.best_present_ranks)
        free(self.rank_goes_left)
        free(self.category_set)
        free(self.features)
        free(self.node_ranks)
        free(self.items)
        free(self.scratch)
        free(self.goes_left)
        free(self.node_rare_start)
        free(self.node_rare_fill)
        free(self.node_rare_positions)
        free(self.node_rare_ranks)
        free(self.sample_position)
        free(self.listed_positions)
        free(self.listed_ranks)
        histogram_free(&self.histogram)

    cdef void partition(self, uint32_t* samples, intp_t start, intp_t end,
                        double* left_state, double* right_state) noexcept nogil:
        # The node's samples, and every array its criterion keeps by
        # position, each moved by the one stable partition; then the
        # children's statistics, from the criterion.
        cdef intp_t a, n_node = end - start
        cdef PositionArray* array
        cdef intp_t n_left = stable_partition(<char*> (samples + start), self.partition_spare,
                                              sizeof(uint32_t), n_node, self.goes_left)
        for a in range(self.criterion.n_moved):
            array = &self.criterion.moved[a]
            stable_partition(array.items + start * array.item_size, self.partition_spare,
                             array.item_size, n_node, self.goes_left)
        self.criterion.children_states(start, start + n_left, end, left_state, right_state)

    cdef int split_node(self, uint32_t* samples, intp_t start, intp_t end,
                        intp_t n_known_constants, SplitRecord* record,
                        double* left_state, double* right_state) noexcept nogil:
        cdef intp_t n_node = end - start
        cdef intp_t first_unvisited = n_known_constants
        cdef intp_t end_unvisited = self.n_features
        cdef intp_t n_evaluated = 0
        cdef intp_t pick, feature, i, n_left, n_distinct, first_bin, last_bin
        cdef const uint32_t* node_samples = samples + start
        cdef uint32_t rank, min_rank, max_rank, rank_span, missing_left_rank
        cdef int status
        cdef BinSource source
        cdef BestCandidate best
        cdef intp_t n_rare
        cdef bint random_numeric, left_single, right_single
        cdef float value
        cdef intp_t n_least, n_right_top
        cdef bint goes_left
        cdef int rare_way = RARE_UNDECIDED
        cdef const uint32_t* rare_positions = NULL
        cdef const uint32_t* rare_ranks = NULL
        # A random split of a node of two samples sends one left and one
        # right whichever non-constant feature it draws, so those features
        # tie and the lowest (the tie-break) wins: each still draws its
        # threshold (the draws do not depend on how the node is reached),
        # but only the winner is scored.
        # (Not under monotonic constraints, which care which sample goes
        # left; the multi-class subset sweeps are left to their own.)
        cdef bint pair_node = (self.method == SPLIT_RANDOM and n_node == 2
                               and self.monotonic_cst == NULL and not self.any_categorical)
        cdef intp_t pair_feature = -1
        cdef RandomDraw draw, pair_draw

        best.proxy_improvement = -INFINITY
        best.proxy_scale = self.criterion.proxy_scale()
        best.feature = -1
        best.is_subset = False
        record.feature = -1
        record.proxy_improvement = -INFINITY

        # Draw features without replacement until max_features non-constant
        # ones were evaluated. Constants found here move into the prefix so
        # that descendants never look at them again.
        while first_unvisited < end_unvisited and n_evaluated < self.max_features:
            pick = first_unvisited + rng_below(&self.rng_state,
                                               end_unvisited - first_unvisited)
            feature = self.features[pick]
            n_distinct = self.value_offsets[feature + 1] - self.value_offsets[feature]

            # Subset sweeps of categorical features, and random draws, report
            # a constant feature (0) or an evaluated one (1) themselves.
            if self.any_categorical and self.n_categories[feature] > 0:
                status = self.sweep_categories(node_samples, n_node, feature, &best)
            elif pair_node:
                status = self.draw_pair(node_samples, feature, &draw)
                if status == 1 and (pair_feature < 0 or feature < pair_feature):
                    pair_feature = feature
                    pair_draw = draw
            elif self.method == SPLIT_RANDOM:
                status = self.draw_split(node_samples, n_node, feature, &best)
            else:
                status = SWEEP_BELOW
            if status < 0:
                return -1
            if status == 0:
                self.features[pick] = self.features[first_unvisited]
                self.features[first_unvisited] = feature
                first_unvisited += 1
                continue
            if status == 1:
                end_unvisited -= 1
                self.features[pick] = self.features[end_unvisited]
                self.features[end_unvisited] = feature
                n_evaluated += 1
                continue

            source = self.feature_ranks_at(feature, node_samples)
            # A feature whose rare rows (those without its common value) are
            # few next to the node's is summed from them alone.
            n_rare = -1
            if self.criterion.exact_sums and self.common_rank[feature] != NO_COMMON:
                if rare_way == RARE_UNDECIDED:
                    rare_way = self.rare_access(node_samples, n_node)
                if rare_way == RARE_INDEXED:
                    n_rare = self.node_rare_start[feature + 1] - self.node_rare_start[feature]
                    rare_positions = self.node_rare_positions + self.node_rare_start[feature]
                    rare_ranks = self.node_rare_ranks + self.node_rare_start[feature]
                elif (rare_way == RARE_LISTED and 3 * (
                        self.rare_offsets[feature + 1] - self.rare_offsets[feature]) < n_node):
                    n_rare = self.list_rare_rows(feature, node_samples, n_node)
                    rare_positions = self.listed_positions
                    rare_ranks = self.listed_ranks
            if n_rare == 0:
                self.features[pick] = self.features[first_unvisited]
                self.features[first_unvisited] = feature
                first_unvisited += 1
                continue
            if self.counts_all_values(n_distinct, n_node):
                # Few values in all: one pass sums the node into a bin for
                # every value of the feature, and the bins tell its range.
                # A second value usually shows within a few samples; a
                # constant feature is found without filling its bins.
                if n_rare < 0 and holds_one_value(source, n_node):
                    self.features[pick] = self.features[first_unvisited]
                    self.features[first_unvisited] = feature
                    first_unvisited += 1
                    continue
                if n_rare > 0:
                    if histogram_fill_rare(&self.histogram, self.criterion, n_node,
                                           n_distinct, rare_positions, rare_ranks, n_rare,
                                           self.common_rank[feature]) < 0:
                        return -1
                elif histogram_fill(&self.histogram, self.criterion, source, n_node,
                                    n_distinct) < 0:
                    return -1
                first_bin = 0
                while self.histogram.counts[first_bin] == 0:
                    first_bin += 1
                last_bin = n_distinct - 1
                while self.histogram.counts[last_bin] == 0:
                    last_bin -= 1
                end_unvisited -= 1
                self.features[pick] = self.features[end_unvisited]
                self.features[end_unvisited] = feature
                n_evaluated += 1
                self.sweep_bins(n_node, feature, first_bin, last_bin, 0, &best)
                continue

            if 0 < n_rare and 2 * n_rare <= n_node:
                status = self.sweep_rare_sorted(node_samples, n_node, feature, rare_positions,
                                                rare_ranks, n_rare, &best)
                if status < 0:
                    return -1
                if status == 1:
                    end_unvisited -= 1
                    self.features[pick] = self.features[end_unvisited]
                    self.features[end_unvisited] = feature
                    n_evaluated += 1
                    continue

            min_rank = 0xFFFFFFFFu
            max_rank = 0
            for i in range(n_node):
                rank = <uint32_t> bin_of(source, i)
                min_rank = rank if rank < min_rank else min_rank
                max_rank = rank if rank > max_rank else max_rank
                self.node_ranks[i] = rank

            if min_rank == max_rank:
                self.features[pick] = self.features[first_unvisited]
                self.features[first_unvisited] = feature
                first_unvisited += 1
                continue

            end_unvisited -= 1
            self.features[pick] = self.features[end_unvisited]
            self.features[end_unvisited] = feature
            n_evaluated += 1

            rank_span = max_rank - min_rank + 1
            if self.counts_node_values(rank_span, n_node):
                if histogram_fill(&self.histogram, self.criterion,
                                  BinSource(self.node_ranks, NULL, min_rank, False), n_node,
                                  rank_span) < 0:
                    return -1
                self.sweep_bins(n_node, feature, 0, rank_span - 1, min_rank, &best)
            else:
                self.sweep_sorted(node_samples, n_node, feature, min_rank, rank_span, &best)

        if pair_feature >= 0:
            for i in range(2):
                self.node_values[i] = self.sample_value(node_samples[i], pair_feature)
            if self.offer_draw(2, pair_feature, pair_draw, &best) < 0:
                return -1
        if best.feature < 0:
            return 0

        feature = best.feature
        record.feature = feature
        record.proxy_improvement = best.proxy_improvement
        record.is_subset = best.is_subset
        record.threshold_rank = best.left_rank
        n_left = 0
        source = self.feature_ranks_at(feature, node_samples)
        random_numeric = self.method == SPLIT_RANDOM and not best.is_subset
        if best.is_subset:
            record.threshold = 0.0
            n_left = self.subset_goes_left(source, n_node, feature, best.missing_left)
        elif random_numeric:
            record.threshold = best.threshold
        elif best.right_rank == self.missing_rank(feature):
            # Every known value left, the missing ones right.
            record.threshold = INFINITY
        else:
            record.threshold = midpoint(
                self.values[self.value_offsets[feature] + best.left_rank],
                self.values[self.value_offsets[feature] + best.right_rank])

        if random_numeric:
            # A drawn threshold compares values (missing ones are +inf); the
            # children's extremes tell whether each holds one value, found
            # here for the winner alone rather than for every candidate.
            n_least = n_right_top = 0
            for i in range(n_node):
                value = self.best_node_values[i]
                goes_left = (value <= best.threshold) | (
                    best.missing_left & (value == INFINITY))
                self.goes_left[i] = goes_left
                n_left += goes_left
                n_least += value == best.least_value
                n_right_top += value == best.right_top_value
            # The least value always goes left; the right child's top one
            # (its largest known, or +inf) always goes right.
            left_single = n_least == n_left
            right_single = n_right_top == n_node - n_left
        else:
            left_single = (best.left_rank == best.min_rank and not best.missing_left
                           and not best.is_subset)
            right_single = best.right_rank == best.max_rank
            if not best.is_subset:
                # Partition by rank, exactly the rule the sweep evaluated,
                # and stably: every node keeps its samples in ascending
                # order, so the reads of ranks walk memory forwards.
                if best.missing_left:
                    missing_left_rank = self.missing_rank(feature)
                    for i in range(n_node):
                        rank = <uint32_t> bin_of(source, i)
                        self.goes_left[i] = (rank <= best.left_rank) | (rank == missing_left_rank)
                        n_left += self.goes_left[i]
                else:
                    # Missing values (ranked last) go right with the larger values.
                    for i in range(n_node):
                        self.goes_left[i] = bin_of(source, i) <= <intp_t> best.left_rank
                        n_left += self.goes_left[i]

        # A child that holds one value of the split feature is constant in
        # it: the feature joins the known constants at position
        # first_unvisited. Only the left child may know it alone, since its
        # subtree, built first, leaves that position in place for the right.
        record.n_constants_left = first_unvisited
        record.n_constants_right = first_unvisited
        if left_single:
            for i in range(first_unvisited, self.n_features):
                if self.features[i] == feature:
                    self.features[i] = self.features[first_unvisited]
                    self.features[first_unvisited] = feature
                    break
            record.n_constants_left = first_unvisited + 1
            if right_single:
                record.n_constants_right = first_unvisited + 1
        self.partition(samples, start, end, left_state, right_state)
        record.position = start + n_left

        self.criterion.restore_node(start, record.position, left_state)
        record.impurity_left = self.criterion.node_impurity()
        record.weighted_n_left = self.criterion.weighted_n_node
        record.value_left = self.criterion.monotone_value()
        self.criterion.restore_node(record.position, end, right_state)
        record.impurity_right = self.criterion.node_impurity()
        record.weighted_n_right = self.criterion.weighted_n_node
        record.value_right = self.criterion.monotone_value()
        # Without missing values here, later ones follow the heavier child.
        record.missing_seen = best.has_missing
        record.missing_left = (best.missing_left if best.has_missing
                               else record.weighted_n_left > record.weighted_n_right)
        if best.is_subset:
            self.write_category_set(feature, record.missing_left)
            record.category_set = self.category_set
        return 0

    cdef intp_t subset_goes_left(self, BinSource source, intp_t n_node, intp_t feature,
                                 bint missing_left) noexcept nogil:
        # Partition through a table of the ranks going left, cleared after.
        cdef intp_t i, n_left = 0
        for i in range(self.n_best_left):
            self.rank_goes_left[self.best_left_ranks[i]] = 1
        if missing_left:
            self.rank_goes_left[self.missing_rank(feature)] = 1
        for i in range(n_node):
            self.goes_left[i] = self.rank_goes_left[bin_of(source, i)]
            n_left += self.goes_left[i]
        for i in range(self.n_best_left):
            self.rank_goes_left[self.best_left_ranks[i]] = 0
        if missing_left:
            self.rank_goes_left[self.missing_rank(feature)] = 0
        return n_left

    cdef int sweep_categories(self, const uint32_t* node_samples, intp_t n_node,
                              intp_t feature, BestCandidate* best) noexcept nogil:
        cdef intp_t n_distinct = self.value_offsets[feature + 1] - self.value_offsets[feature]
        cdef uint32_t missing = self.missing_rank(feature)
        cdef BinSource source = self.feature_ranks_at(feature, node_samples)
        cdef intp_t i, j, b, n_bins, n_left, group, o, n_orderings, improved_at
        cdef intp_t n_present = 0, missing_bin = -1
        cdef intp_t* counts
        cdef uint32_t rank, min_rank = 0xFFFFFFFFu, max_rank = 0, previous
        cdef uint32_t first_rank = 0
        cdef uint64_t* sorted_items
        cdef bint singles, missing_left, grouped = False
        cdef int outcome
        # The node's statistics per category: a histogram over all the
        # feature's ranks or the node's range of them when that is cheap,
        # else over the node's categories numbered after a sort (a column of
        # thousands of categories, a node of a few rows).
        if self.counts_all_values(n_distinct, n_node):
            if holds_one_value(source, n_node):
                return 0
            if histogram_fill(&self.histogram, self.criterion, source, n_node,
                              n_distinct) < 0:
                return -1
            n_bins = n_distinct
        else:
            for i in range(n_node):
                rank = <uint32_t> bin_of(source, i)
                min_rank = rank if rank < min_rank else min_rank
                max_rank = rank if rank > max_rank else max_rank
                self.node_ranks[i] = rank
            if min_rank == max_rank:
                return 0
            if self.counts_node_values(max_rank - min_rank + 1, n_node):
                n_bins = max_rank - min_rank + 1
                first_rank = min_rank
                if histogram_fill(&self.histogram, self.criterion,
                                  BinSource(self.node_ranks, NULL, min_rank, False), n_node,
                                  n_bins) < 0:
                    return -1
            else:
                for i in range(n_node):
                    self.items[i] = pack_item(self.node_ranks[i] - min_rank, <uint32_t> i)
                sorted_items = sort_items(self.items, self.scratch, n_node,
                                          bit_length(max_rank - min_rank))
                group = -1
                previous = 0xFFFFFFFFu
                for i in range(n_node):
                    rank = item_rank(sorted_items[i])
                    if rank != previous:
                        group += 1
                        previous = rank
                        self.category_rank[group] = rank + min_rank
                    self.node_ranks[item_position(sorted_items[i])] = <uint32_t> group
                n_bins = group + 1
                grouped = True
                if histogram_fill(&self.histogram, self.criterion,
                                  BinSource(self.node_ranks, NULL, 0, False), n_node,
                                  n_bins) < 0:
                    return -1
        counts = self.histogram.counts
        for b in range(n_bins):
            if counts[b] == 0:
                continue
            rank = self.category_rank[b] if grouped else <uint32_t> b + first_rank
            if rank == missing:
                missing_bin = b
            else:
                # In place when grouped: entry n_present <= b is read first.
                self.category_bin[n_present] = b
                self.category_rank[n_present] = rank
                n_present += 1
        if missing_bin >= 0:
            self.category_bin[n_present] = missing_bin  # category n_present
        if self.list_category_stats(n_present, n_present + (missing_bin >= 0)) < 0:
            return -1
        n_orderings = self.criterion.category_orderings(self.ordering_slots, &singles)
        if n_present < 2:
            n_orderings = 0  # one category: only the missing values to split off
            singles = False
        # All orderings (and single categories) with the missing values
        # right, then every known category left and the missing values
        # right; then, if the node has missing values, the orderings and
        # single categories again with them left.
        #
        # With k categories and K classes in the node there are K orderings
        # of k - 1 prefixes each. Moving whole bins and computing an
        # entropy's proxy, O(K) each, made that O(k K**2): minutes for a
        # thousand rows of a thousand categories and classes. The shortcuts
        # keep it near O(n + k K log k): a category moves only the classes
        # it holds (list_category_stats), so an ordering's moves cost
        # O(k + n); an ordering sorts only the categories holding its class
        # (order_categories); and an O(K) proxy is computed only for the
        # candidates its O(1) bound lets beat the best (offer_subset). The
        # splits found are the same, bit for bit.
        for missing_left in range(1 + (missing_bin >= 0)):
            for o in range(n_orderings):
                self.order_categories(n_present, self.ordering_slots[o])
                n_left = self.start_subset(n_present, missing_left)
                improved_at = 0
                for j in range(n_present - 1):
                    n_left += self.move_category_left(self.category_order[j].index)
                    outcome = self.offer_subset(best, n_left, n_node, feature)
                    if outcome == STOP:
                        break
                    if outcome == IMPROVED:
                        improved_at = j + 1
                if improved_at:
                    self.keep_categories(best, n_present, improved_at, -1, missing_bin >= 0,
                                         missing_left)
            improved_at = -1
            for j in range(n_present if singles else 0):
                n_left = self.start_subset(n_present, missing_left)
                n_left += self.move_category_left(j)
                if self.offer_subset(best, n_left, n_node, feature) == IMPROVED:
                    improved_at = j
            if improved_at >= 0:
                self.keep_categories(best, n_present, 1, improved_at, missing_bin >= 0,
                                     missing_left)
            if missing_left or missing_bin < 0:
                continue
            self.order_categories(n_present, -1)
            n_left = self.start_subset(n_present, False)
            for j in range(n_present):
                n_left += self.move_category_left(j)
            if self.offer_subset(best, n_left, n_node, feature) == IMPROVED:
                self.keep_categories(best, n_present, n_present, -1, True, False)
        return 1

    cdef int list_category_stats(self, intp_t n_present, intp_t n_listed) noexcept nogil:
        # The sweeps read these lists, not the bins: a bin of many classes
        # spans many cache lines, and they would read one or two of them.
        cdef intp_t j, s, e, n_entries = 0, n_stats = self.histogram.n_bin_stats
        cdef const double* bin
        for j in range(n_listed):
            bin = histogram_bin(&self.histogram, self.category_bin[j])
            for s in range(1, n_stats):
                n_entries += bin[s] != 0.0
        if n_entries > self.entry_capacity:
            if (grow(<void**> &self.entry_stat, n_entries, sizeof(intp_t)) < 0
                    or grow(<void**> &self.entry_value, n_entries, sizeof(double)) < 0
                    or grow(<void**> &self.stat_category, n_entries, sizeof(intp_t)) < 0
                    or grow(<void**> &self.stat_value, n_entries, sizeof(double)) < 0):
                return -1
            self.entry_capacity = n_entries
        # Each category's statistics, counting each statistic's categories
        # in stat_start[s].
        memset(self.stat_start, 0, (n_stats + 1) * sizeof(intp_t))
        n_entries = 0
        for j in range(n_listed):
            self.entry_start[j] = n_entries
            bin = histogram_bin(&self.histogram, self.category_bin[j])
            self.category_weight[j] = bin[0]
            self.category_count[j] = self.histogram.counts[self.category_bin[j]]
            for s in range(1, n_stats):
                if bin[s] != 0.0:
                    self.entry_stat[n_entries] = s
                    self.entry_value[n_entries] = bin[s]
                    n_entries += 1
                    self.stat_start[s] += j < n_present
        self.entry_start[n_listed] = n_entries
        # Counts to starts, which the placement below advances to the ends;
        # one shift back makes them starts again.
        n_entries = 0
        for s in range(n_stats + 1):
            e = self.stat_start[s]
            self.stat_start[s] = n_entries
            n_entries += e
        for j in range(n_present):
            for e in range(self.entry_start[j], self.entry_start[j + 1]):
                s = self.entry_stat[e]
                self.stat_category[self.stat_start[s]] = j
                self.stat_value[self.stat_start[s]] = self.entry_value[e]
                self.stat_start[s] += 1
        for s in range(n_stats, 0, -1):
            self.stat_start[s] = self.stat_start[s - 1]
        self.stat_start[0] = 0
        return 0

    cdef intp_t move_category_left(self, intp_t j) noexcept nogil:
        cdef intp_t first = self.entry_start[j], n_stats = self.entry_start[j + 1] - first
        if self.sparse_moves:
            self.criterion.move_stats_left(self.category_weight[j], self.entry_stat + first,
                                           self.entry_value + first, n_stats)
        else:
            self.criterion.move_bin_left(histogram_bin(&self.histogram, self.category_bin[j]))
            n_stats = self.histogram.n_bin_stats - 1
        self.n_stats_moved += n_stats
        return self.category_count[j]

    cdef intp_t start_subset(self, intp_t missing, bint missing_left) noexcept nogil:
        self.criterion.reset()
        if not missing_left:
            return 0
        return self.move_category_left(missing)

    cdef void order_categories(self, intp_t n_present, intp_t slot) noexcept nogil:
        # Ascending keys, ties in category order (compare_keyed). A
        # category whose bin holds none of the statistic has the key 0: with
        # the shortcuts, only the others are keyed and sorted, then merged
        # with those in category order, which gives the same order.
        cdef intp_t j, e, n_keyed = 0, taken = 0, n_ordered = 0
        cdef const double* bin
        cdef KeyedBin unkeyed
        if slot < 0 or not self.subset_shortcuts:
            for j in range(n_present):
                bin = histogram_bin(&self.histogram, self.category_bin[j])
                self.category_order[j].index = j
                self.category_order[j].key = (bin[slot] / bin[0] if slot >= 0 and bin[0] > 0.0
                                              else 0.0)
            if slot >= 0:
                qsort(self.category_order, n_present, sizeof(KeyedBin), compare_keyed)
            return
        for e in range(self.stat_start[slot], self.stat_start[slot + 1]):
            j = self.stat_category[e]
            self.keyed[n_keyed].index = j
            self.keyed[n_keyed].key = (self.stat_value[e] / self.category_weight[j]
                                       if self.category_weight[j] > 0.0 else 0.0)
            self.category_keyed[j] = 1
            n_keyed += 1
        qsort(self.keyed, n_keyed, sizeof(KeyedBin), compare_keyed)
        unkeyed.key = 0.0
        for j in range(n_present):
            if self.category_keyed[j]:
                self.category_keyed[j] = 0
                continue
            unkeyed.index = j
            while taken < n_keyed and compare_keyed(&self.keyed[taken], &unkeyed) < 0:
                self.category_order[n_ordered] = self.keyed[taken]
                n_ordered += 1
                taken += 1
            self.category_order[n_ordered] = unkeyed
            n_ordered += 1
        while taken < n_keyed:
            self.category_order[n_ordered] = self.keyed[taken]
            n_ordered += 1
            taken += 1

    cdef int offer_subset(self, BestCandidate* best, intp_t n_left, intp_t n_node,
                          intp_t feature) noexcept nogil:
        # A candidate whose bound would not beat the best (offer's rule)
        # cannot win. offer's STOP tests go first, so that the sweep stops
        # where it would.
        cdef double bound
        if (self.subset_shortcuts and self.criterion.bounds_proxy
                and n_node - n_left >= self.min_samples_leaf
                and (self.criterion.weighted_n_node - self.criterion.weighted_n_left
                     >= self.min_weight_leaf)):
            bound = self.criterion.proxy_bound()
            if not beats_best(bound, feature, best.proxy_improvement, best.feature,
                              best.proxy_scale):
                return SKIP
        self.n_proxies += 1
        return self.offer(best, n_left, n_node, feature, 0)

    cdef void keep_categories(self, BestCandidate* best, intp_t n_present, intp_t n_left,
                              intp_t single, bint has_missing,
                              bint missing_left) noexcept nogil:
        cdef intp_t j
        best.is_subset = True
        best.has_missing = has_missing
        best.missing_left = missing_left
        if single >= 0:
            self.best_left_ranks[0] = self.category_rank[single]
        else:
            for j in range(n_left):
                self.best_left_ranks[j] = self.category_rank[self.category_order[j].index]
        self.n_best_left = n_left
        for j in range(n_present):
            self.best_present_ranks[j] = self.category_rank[j]
        self.n_best_present = n_present

    cdef void write_category_set(self, intp_t feature, bint missing_left) noexcept nogil:
        # Codes the node did not hold go with the missing values.
        cdef intp_t n_codes = self.n_categories[feature]
        cdef intp_t n_words = (n_codes + 31) // 32, j
        cdef const float* codes = self.values + self.value_offsets[feature]
        cdef uint32_t code
        self.category_set[0] = <uint32_t> n_codes
        for j in range(n_words):
            self.category_set[1 + j] = 0xFFFFFFFFu if missing_left else 0
        if missing_left and n_codes % 32:
            self.category_set[n_words] = (1u << (n_codes % 32)) - 1
        for j in range(self.n_best_present):
            code = <uint32_t> codes[self.best_present_ranks[j]]
            self.category_set[1 + (code >> 5)] &= ~(1u << (code & 31))
        for j in range(self.n_best_left):
            code = <uint32_t> codes[self.best_left_ranks[j]]
            self.category_set[1 + (code >> 5)] |= 1u << (code & 31)

    cdef inline BinSource feature_ranks_at(self, intp_t feature,
                                           const uint32_t* node_samples) noexcept nogil:
        if self.value_offsets[feature + 1] - self.value_offsets[feature] <= NARROW_RANKS:
            return BinSource(self.narrow_ranks + feature * self.n_samples, node_samples, 0,
                             True)
        return BinSource(self.ranks + feature * self.n_samples, node_samples, 0, False)

    cdef intp_t list_rare_rows(self, intp_t feature, const uint32_t* node_samples,
                               intp_t n_node) noexcept nogil:
        cdef intp_t j, n_rare = 0
        cdef uint32_t sample, position
        for j in range(self.rare_offsets[feature], self.rare_offsets[feature + 1]):
            sample = self.rare_rows[j]
            position = self.sample_position[sample]
            # A stale entry points elsewhere: the sample is in the node
            # exactly when the node holds it at that position.
            if position < n_node and node_samples[position] == sample:
                self.listed_positions[n_rare] = position
                self.listed_ranks[n_rare] = self.rare_ranks[j]
                n_rare += 1
        return n_rare

    cdef int rare_access(self, const uint32_t* node_samples, intp_t n_node) noexcept nogil:
        # Index every rare entry of the node, or map the node's samples and
        # read the drawn features' lists (a list entry costs a few
        # look-ups): the cheaper. (Reading a small node's samples as for any
        # feature costs more than either: they miss the cache.)
        cdef intp_t i
        if (self.n_features + n_node * self.rare_per_row
                <= n_node + 3 * self.max_features * self.rare_per_feature):
            self.index_rare_rows(node_samples, n_node)
            return RARE_INDEXED
        for i in range(n_node):
            self.sample_position[node_samples[i]] = <uint32_t> i
        return RARE_LISTED

    cdef void index_rare_rows(self, const uint32_t* node_samples,
                              intp_t n_node) noexcept nogil:
        # A counting sort of the node's (feature, position) pairs by feature.
        cdef intp_t i, j, feature
        cdef const intp_t* offsets = self.rare_feature_offsets
        memset(self.node_rare_start, 0, (self.n_features + 1) * sizeof(intp_t))
        for i in range(n_node):
            for j in range(offsets[node_samples[i]], offsets[node_samples[i] + 1]):
                self.node_rare_start[self.rare_features[j] + 1] += 1
        for feature in range(self.n_features):
            self.node_rare_start[feature + 1] += self.node_rare_start[feature]
        memcpy(self.node_rare_fill, self.node_rare_start, self.n_features * sizeof(intp_t))
        for i in range(n_node):
            for j in range(offsets[node_samples[i]], offsets[node_samples[i] + 1]):
                feature = self.rare_features[j]
                self.node_rare_positions[self.node_rare_fill[feature]] = <uint32_t> i
                self.node_rare_ranks[self.node_rare_fill[feature]] = self.rare_feature_ranks[j]
                self.node_rare_fill[feature] += 1

    cdef inline bint counts_all_values(self, intp_t n_distinct, intp_t n_node) noexcept nogil:
        # The bins of every value, cleared and scanned, cost little next to
        # the node's samples.
        if self.method == SPLIT_SORT:
            return False
        return <double> n_distinct * self.criterion.n_bin_stats <= COUNT_FACTOR * n_node

    cdef inline bint counts_node_values(self, uint32_t rank_span, intp_t n_node) noexcept nogil:
        if self.method != SPLIT_AUTO:
            return self.method == SPLIT_COUNT
        return <double> rank_span * self.criterion.n_bin_stats <= COUNT_FACTOR * n_node

    cdef void sweep_sorted(self, const uint32_t* node_samples, intp_t n_node,
                           intp_t feature, uint32_t min_rank, uint32_t rank_span,
                           BestCandidate* best) noexcept nogil:
        cdef intp_t i, first_missing
        cdef uint64_t* sorted_items
        cdef bint has_missing = min_rank + rank_span - 1 == self.missing_rank(feature)
        # Ranks relative to the node's least need fewer sort passes.
        for i in range(n_node):
            self.items[i] = pack_item(self.node_ranks[i] - min_rank, <uint32_t> i)
        sorted_items = sort_items(self.items, self.scratch, n_node,
                                  bit_length(rank_span - 1))
        # The missing values, if the node has some, are the last group: first
        # they stay right (the last threshold sends every known value left).
        self.criterion.reset()
        self.sweep_groups(sorted_items, n_node, 0, n_node, feature, min_rank, rank_span,
                          has_missing, False, best)
        if not has_missing:
            return
        # Then they go left from the start, and the known values are swept
        # again but for their last threshold (every known value right was
        # the first sweep's every known value left).
        first_missing = n_node - 1
        while first_missing > 0 and item_rank(sorted_items[first_missing - 1]) == rank_span - 1:
            first_missing -= 1
        self.criterion.reset()
        self.criterion.move_left(sorted_items, first_missing, n_node)
        self.sweep_groups(sorted_items, first_missing, n_node - first_missing, n_node, feature,
                          min_rank, rank_span, True, True, best)

    cdef int sweep_rare_sorted(self, const uint32_t* node_samples, intp_t n_node,
                               intp_t feature, const uint32_t* rare_positions,
                               const uint32_t* rare_ranks, intp_t n_rare,
                               BestCandidate* best) noexcept nogil:
        cdef uint32_t common = self.common_rank[feature]
        cdef uint32_t rank, min_rank = common, max_rank = common, common_rank, next_rank
        cdef intp_t j, i = 0, group_end, n_moved = 0, n_common = n_node - n_rare
        cdef bint common_next
        cdef uint64_t* sorted_items
        cdef int outcome
        cdef BestCandidate local_best
        for j in range(n_rare):
            rank = rare_ranks[j]
            self.node_ranks[j] = rank
            min_rank = rank if rank < min_rank else min_rank
            max_rank = rank if rank > max_rank else max_rank
        if max_rank == self.missing_rank(feature):
            return 0
        for j in range(n_rare):
            self.items[j] = pack_item(self.node_ranks[j] - min_rank, rare_positions[j])
        sorted_items = sort_items(self.items, self.scratch, n_rare,
                                  bit_length(max_rank - min_rank))
        # The common value's rows as one bin (bin 1): the node's totals
        # minus the rare rows' (bin 0), exact with exact sums.
        if histogram_fill_rare(&self.histogram, self.criterion, n_node, 2, rare_positions,
                               NULL, n_rare, 1) < 0:
            return -1
        common_rank = common - min_rank
        self.criterion.reset()
        local_best = best[0]
        # The groups in rank order, the common value's among the rare ones;
        # the threshold after each but the last is offered.
        common_next = n_rare == 0 or item_rank(sorted_items[0]) > common_rank
        while True:
            if common_next:
                rank = common_rank
                self.criterion.move_bin_left(histogram_bin(&self.histogram, 1))
                n_moved += n_common
                n_common = 0
            else:
                rank = item_rank(sorted_items[i])
                group_end = i + 1
                while group_end < n_rare and item_rank(sorted_items[group_end]) == rank:
                    group_end += 1
                if group_end - i == 1:
                    self.criterion.move_position_left(item_position(sorted_items[i]))
                else:
                    self.criterion.move_left(sorted_items, i, group_end)
                n_moved += group_end - i
                i = group_end
            if n_moved >= n_node:
                break
            common_next = n_common > 0 and (i >= n_rare
                                            or item_rank(sorted_items[i]) > common_rank)
            next_rank = common_rank if common_next else item_rank(sorted_items[i])
            outcome = self.offer(&local_best, n_moved, n_node, feature, rank + min_rank)
            if outcome == STOP:
                break
            if outcome == IMPROVED:
                local_best.right_rank = next_rank + min_rank
                local_best.min_rank = min_rank
                local_best.max_rank = max_rank
                local_best.has_missing = False
                local_best.missing_left = False
                local_best.is_subset = False
        best[0] = local_best
        return 1

    cdef void sweep_groups(self, const uint64_t* sorted_items, intp_t n_sorted,
                           intp_t n_moved, intp_t n_node, intp_t feature, uint32_t min_rank,
                           uint32_t rank_span, bint has_missing, bint missing_left,
                           BestCandidate* best) noexcept nogil:
        cdef intp_t i = 0, group_end
        cdef uint32_t rank
        cdef int outcome
        # A local copy the compiler can keep in registers through the sweep.
        cdef BestCandidate local_best = best[0]
        while True:
            rank = item_rank(sorted_items[i])
            group_end = i + 1
            while group_end < n_sorted and item_rank(sorted_items[group_end]) == rank:
                group_end += 1
            if group_end >= n_sorted:
                break
            if group_end - i == 1:
                self.criterion.move_position_left(item_position(sorted_items[i]))
            else:
                self.criterion.move_left(sorted_items, i, group_end)
            i = group_end
            outcome = self.offer(&local_best, group_end + n_moved, n_node, feature,
                                 rank + min_rank)
            if outcome == STOP:
                break
            if outcome == IMPROVED:
                local_best.right_rank = item_rank(sorted_items[group_end]) + min_rank
                local_best.min_rank = min_rank
                local_best.max_rank = min_rank + rank_span - 1
                local_best.has_missing = has_missing
                local_best.missing_left = missing_left
                local_best.is_subset = False
        best[0] = local_best

    cdef void sweep_bins(self, intp_t n_node, intp_t feature, intp_t first_bin,
                         intp_t last_bin, uint32_t first_rank,
                         BestCandidate* best) noexcept nogil:
        cdef intp_t* counts = self.histogram.counts
        cdef intp_t end_bin = last_bin - 1
        # The missing values, if the node has some, are the last bin: first
        # they stay right (the last threshold sends every known value left).
        cdef bint has_missing = last_bin + first_rank == self.missing_rank(feature)
        self.criterion.reset()
        self.sweep_bin_range(n_node, feature, first_bin, last_bin, last_bin, first_rank, 0,
                             has_missing, False, best)
        if not has_missing:
            return
        # Then they go left from the start, and the last known bin is left
        # out: every known value right was the first sweep's every known
        # value left.
        while counts[end_bin] == 0:
            end_bin -= 1
        self.criterion.reset()
        self.criterion.move_bin_left(histogram_bin(&self.histogram, last_bin))
        self.sweep_bin_range(n_node, feature, first_bin, end_bin, last_bin, first_rank,
                             counts[last_bin], True, True, best)

    cdef void sweep_bin_range(self, intp_t n_node, intp_t feature, intp_t first_bin,
                              intp_t end_bin, intp_t last_bin, uint32_t first_rank,
                              intp_t n_moved, bint has_missing, bint missing_left,
                              BestCandidate* best) noexcept nogil:
        cdef intp_t b, next_bin, n_left = n_moved
        cdef intp_t* counts = self.histogram.counts
        cdef int outcome
        for b in range(first_bin, end_bin):
            if counts[b] == 0:
                continue
            self.criterion.move_bin_left(histogram_bin(&self.histogram, b))
            n_left += counts[b]
            outcome = self.offer(best, n_left, n_node, feature, b + first_rank)
            if outcome == STOP:
                return
            if outcome == IMPROVED:
                next_bin = b + 1
                while counts[next_bin] == 0:
                    next_bin += 1
                best.right_rank = next_bin + first_rank
                best.min_rank = first_bin + first_rank
                best.max_rank = last_bin + first_rank
                best.has_missing = has_missing
                best.missing_left = missing_left
                best.is_subset = False

    cdef int draw_split(self, const uint32_t* node_samples, intp_t n_node, intp_t feature,
                        BestCandidate* best) noexcept nogil:
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
        if self.missing_rank(feature) == NO_MISSING:
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
        return self.offer_draw(n_node, feature,
                               self.draw_threshold(min_value, max_value, has_missing), best)

    cdef RandomDraw draw_threshold(self, float min_value, float max_value,
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
        drawn = min_value + (rng_next(&self.rng_state) >> 11) * UNIT_53 * (
            <double> max_value - min_value)
        if drawn >= max_value:
            drawn = min_value
        # The float32 at or below the draw: it sends left exactly the
        # values <= the draw.
        draw.threshold = <float> drawn
        if draw.threshold > drawn:
            draw.threshold = float_below(draw.threshold)
        if has_missing:
            draw.missing_left = rng_next(&self.rng_state) & 1
        return draw

    cdef int offer_draw(self, intp_t n_node, intp_t feature, RandomDraw draw,
                        BestCandidate* best) noexcept nogil:
        cdef float* node_values = self.node_values
        cdef uint32_t* sides = self.node_ranks
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
            if histogram_fill(&self.histogram, self.criterion,
                              BinSource(sides, NULL, 0, False), n_node, 3) < 0:
                return -1
            self.criterion.move_bin_left(histogram_bin(&self.histogram, LEFT_SIDE))
            n_left = self.histogram.counts[LEFT_SIDE]
            if draw.missing_left:
                self.criterion.move_bin_left(histogram_bin(&self.histogram, MISSING_SIDE))
                n_left += self.histogram.counts[MISSING_SIDE]
        if self.offer(best, n_left, n_node, feature, 0) != IMPROVED:
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

    cdef bint draw_pair(self, const uint32_t* node_samples, intp_t feature,
                        RandomDraw* draw) noexcept nogil:
        cdef float first = self.sample_value(node_samples[0], feature)
        cdef float second = self.sample_value(node_samples[1], feature)
        if first == second:
            return False
        # One value may be missing (+inf), not both.
        draw[0] = self.draw_threshold(min(first, second),
                                      second if first == INFINITY
                                      else (first if second == INFINITY
                                            else max(first, second)),
                                      first == INFINITY or second == INFINITY)
        return True

    cdef float sample_value(self, uint32_t sample, intp_t feature) noexcept nogil:
        if self.rows != NULL:
            return known_or_infinite(self.rows[sample * self.n_features + feature])
        return self.columns[feature * self.n_samples + sample]

    cdef inline uint32_t missing_rank(self, intp_t feature) noexcept nogil:
        return self.missing_ranks[feature]

    cdef int offer(self, BestCandidate* best, intp_t n_left, intp_t n_node,
                   intp_t feature, uint32_t left_rank) noexcept nogil:
        cdef double proxy, value_left, value_right
        if n_left < self.min_samples_leaf:
            return SKIP
        if n_node - n_left < self.min_samples_leaf:
            return STOP
        if self.criterion.weighted_n_left < self.min_weight_leaf:
            return SKIP
        if (self.criterion.weighted_n_node - self.criterion.weighted_n_left
                < self.min_weight_leaf):
            return STOP
        if self.monotonic_cst != NULL and self.monotonic_cst[feature] != 0:
            self.criterion.children_values(&value_left, &value_right)
            if not (self.lower_bound <= value_left <= self.upper_bound
                    and self.lower_bound <= value_right <= self.upper_bound
                    and (value_left - value_right) * self.monotonic_cst[feature] <= 0.0):
                return SKIP
        proxy = self.criterion.proxy_improvement()
        # Ties, up to rounding, go to the lowest feature index, then to the
        # candidate met first, whatever order the features were drawn in.
        if beats_best(proxy, feature, best.proxy_improvement, best.feature,
                      best.proxy_scale):
            best.proxy_improvement = proxy
            best.feature = feature
            best.left_rank = left_rank
            self.criterion.keep_left()
            return IMPROVED
        return SKIP


def find_split(Splitter splitter not None, uint32_t[::1] samples not None):
    """Best split of the node holding ``samples`` (for tests and inspection).

    ``samples`` is partitioned in place, the left child first. Returns None
    when no valid split exists, else a dict with ``feature``, ``threshold``,
    ``position`` (number of samples going left), ``improvement`` (the node's
    impurity minus the weighted impurities of the children), the children's
    ``impurity_left`` / ``impurity_right``, ``proxy``, the criterion's
    proxy of the improvement that chose the split, and ``n_constants_left``
    / ``n_constants_right``, how many features each child is known to be
    constant in, and what the subset sweeps of categorical features did:
    ``subset_stats_moved``, the bin statistics (classes) they moved into a
    left child, and ``subset_proxies``, the candidates whose proxy they
    computed.
    """
    cdef SplitRecord record
    cdef double impurity, weighted_n_node
    cdef double[::1] states = np.empty(2 * splitter.criterion.state_size)
    splitter.criterion.init_positions(&samples[0], samples.shape[0])
    splitter.criterion.init_node(0, samples.shape[0])
    impurity = splitter.criterion.node_impurity()
    weighted_n_node = splitter.criterion.weighted_n_node
    cdef int status
    splitter.n_stats_moved = 0
    splitter.n_proxies = 0
    with nogil:
        status = splitter.split_node(&samples[0], 0, samples.shape[0], 0, &record,
                                     &states[0], &states[splitter.criterion.state_size])
    if status < 0:
        raise MemoryError("not enough memory to search the split")
    if record.feature < 0:
        return None
    return {
        "feature": record.feature,
        "threshold": np.float32(record.threshold),
        "position": record.position,
        "improvement": impurity
        - record.weighted_n_left / weighted_n_node * record.impurity_left
        - record.weighted_n_right / weighted_n_node * record.impurity_right,
        "impurity_left": record.impurity_left,
        "impurity_right": record.impurity_right,
        "proxy": record.proxy_improvement,
        "n_constants_left": record.n_constants_left,
        "n_constants_right": record.n_constants_right,
        "subset_stats_moved": splitter.n_stats_moved,
        "subset_proxies": splitter.n_proxies,
    }
