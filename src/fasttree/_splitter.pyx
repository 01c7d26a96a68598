# cython: language_level=3
"""The best split of one node: candidate features drawn, each handed to a strategy."""

import numpy as np

from cython.parallel cimport prange, threadid
from libc.math cimport INFINITY
from libc.stdint cimport int8_t, uint16_t, uint64_t
from libc.stdlib cimport free, malloc
from libc.string cimport memcpy, memset

from ._criterion cimport BinSource, PositionArray, bin_of
from ._histogram cimport (Histogram, bins_difference, histogram_fill, histogram_free,
                          histogram_init)
from ._node_histograms cimport (node_histograms_bins, node_histograms_clear,
                                node_histograms_forget, node_histograms_free,
                                node_histograms_init, node_histograms_keep,
                                node_histograms_open, node_histograms_slot)
from ._random_split cimport RandomDraw, draw_binned_split
from ._rare_rows cimport RARE_UNDECIDED
from ._split_search cimport (NO_COMMON, NO_MISSING, BestCandidate, counts_cheaper,
                             feature_ranks_at, value_from_rows, values_kept)
from ._sweep_counted cimport sweep_all_values, sweep_filled_values, sweep_node_values
from ._sweep_sorted cimport sweep_pair, sweep_rare_sorted, sweep_sorted
from ._utils cimport (NARROW_RANKS, SHORT_RANKS, midpoint, rng_below, stable_partition,
                     tie_margin)

# split_node's note that a numeric feature is swept by the exact sweeps.
cdef int SWEEP_BELOW = 2

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
# Whether new splitters subtract histograms where they may (see
# _node_histograms.pxd); tests turn it off to check that it changes nothing,
# and read kept_sweep_count to see that it ran.
histogram_subtraction = True
cdef long long kept_sweeps = 0


def kept_sweep_count():
    """Sweeps, since the module was loaded, of bins a node's parent kept for
    it (histogram subtraction); a count for tests, racy under threads."""
    return kept_sweeps


# The least work (the node's samples times the features it will sweep) of
# a node whose features are swept on several threads (set_threads reads it;
# tests lower it to put every node on them). A parallel region (waking the
# threads, each setting its criterion to the node) costs some tens of
# microseconds, about what sweeping 50 features of 100-200 samples takes;
# smaller nodes are most of a fully grown tree's nodes but, from 500 samples
# of 50 features down, a quarter of its sweeping (W1: nodes of >= 500
# samples hold 76% of the sweeps' samples, >= 1,000 64%, >= 200 88%).
thread_min_work = 25_000

# feature_status beside sweep_numeric's -1, 0 and 1.
cdef enum:
    NOT_SWEPT = 3       # not swept at this node
    SWEEP_PENDING = 4   # in the batch being swept

# Whether new splitters' subset sweeps take their shortcuts (see
# _sweep_subsets.pyx); tests turn them off to check that they change nothing.
subset_shortcuts = True


cdef inline void settle_draw(intp_t* features, intp_t pick, bint constant,
                             intp_t* first_unvisited, intp_t* end_unvisited) noexcept nogil:
    # The drawn feature at pick leaves the drawable range [first_unvisited,
    # end_unvisited): into the known constants before it when it is constant
    # in the node (its descendants skip it), else behind it. The draw loop
    # and the threads' look-ahead both take this step, so they stay in step.
    cdef intp_t feature = features[pick]
    if constant:
        features[pick] = features[first_unvisited[0]]
        features[first_unvisited[0]] = feature
        first_unvisited[0] += 1
    else:
        end_unvisited[0] -= 1
        features[pick] = features[end_unvisited[0]]
        features[end_unvisited[0]] = feature


cdef class Splitter:
    """Best-split search for one fit.

    Parameters
    ----------
    criterion : Criterion
        Impurity statistics, already bound to the targets and weights.
    ranked : RankedFeatures
        ``fasttree._features.rank_features`` of the training matrix: the dense
        value ranks (n_features, n_samples), the distinct sorted values and
        their offsets, the narrow ranks of the features of few values (and
        binned features' two-byte codes, ``short_ranks``, when some have more
        than 256 bins), and the rare entries of features with a common value.
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
    monotonic_cst : ndarray of int8 or None
        Per feature -1, 0 or 1: the monotonic constraints.
    rows : ndarray of float32 or None
        SPLIT_RANDOM: the training matrix itself, C-contiguous float32 with
        NaN for missing values, which small nodes read; None reads the
        columns only.
    interaction_cst : sequence of sequences of int, or None
        The interaction constraints' groups of features (every feature in
        one at least; ``fasttree._growth.check_interaction_cst``), or None
        for none.
    value_rows : ndarray of float32 or None
        The training matrix (any memory layout, a memory map too), shape
        (n_samples, n_features): where ``ranked`` kept some features'
        largest value alone (its ``value_starts``), a split's neighbouring
        values are read from the rows of the node. Needed then, else unused.
    """

    def __cinit__(self, Criterion criterion not None, ranked not None,
                  intp_t max_features, intp_t min_samples_leaf,
                  double min_weight_leaf, uint64_t seed, method=None, categories=None,
                  columns=None, monotonic_cst=None, rows=None, interaction_cst=None,
                  value_rows=None):
        cdef const uint32_t[:, ::1] ranks = ranked.ranks
        cdef const float[::1] values = ranked.values
        # Binned features: a split between two bins lies between the left
        # bin's largest value and the right bin's smallest.
        upper_source = ranked.values if ranked.upper_values is None else ranked.upper_values
        cdef const float[::1] upper_values = upper_source
        cdef const intp_t[::1] value_offsets = ranked.value_offsets
        starts_source = (ranked.value_offsets if ranked.value_starts is None
                         else ranked.value_starts)
        cdef const intp_t[::1] value_starts = starts_source
        cdef const float[:, :] value_rows_view
        cdef const uint8_t[:, ::1] narrow_ranks = ranked.narrow_ranks
        # Two-byte bin codes (more than 256 bins): (n_features, 0) when none.
        short_source = (ranked.short_ranks if ranked.short_ranks is not None
                        else np.zeros((narrow_ranks.shape[0], 0), dtype=np.uint16))
        cdef const uint16_t[:, ::1] short_ranks = short_source
        cdef intp_t f, n_features, n_samples
        n_features = narrow_ranks.shape[0]
        n_samples = narrow_ranks.shape[1]
        # Ranks of shape (n_features, 0): every feature is read from the
        # narrow ranks (binned features: fasttree._binning.bin_columns).
        if ranks.shape[0] != n_features or ranks.shape[1] not in (0, n_samples):
            raise ValueError("ranks and narrow_ranks differ in shape")
        if short_ranks.shape[0] != n_features or short_ranks.shape[1] not in (0, n_samples):
            raise ValueError("short_ranks and narrow_ranks differ in shape")
        self.criterion = criterion
        self.state.data.n_features = n_features
        self.state.data.n_samples = n_samples
        self.state.data.ranks = &ranks[0, 0] if ranks.shape[1] else NULL
        self.state.data.narrow_ranks = &narrow_ranks[0, 0]
        self.state.data.short_ranks = &short_ranks[0, 0] if short_ranks.shape[1] else NULL
        self.state.data.values = &values[0]
        if upper_values.shape[0] != values.shape[0]:
            raise ValueError("values and upper_values differ in length")
        self.state.data.upper_values = &upper_values[0]
        self.state.data.value_offsets = &value_offsets[0]
        if value_starts.shape[0] != value_offsets.shape[0] or value_starts[n_features] != (
                values.shape[0]):
            raise ValueError("value_starts do not span values")
        self.state.data.value_starts = &value_starts[0]
        self.state.data.rows = NULL
        self.state.data.row_stride = self.state.data.column_stride = 0
        if ranked.value_starts is not None:
            if value_rows is None or value_rows.shape != (n_samples, n_features):
                raise ValueError("features without their values need value_rows, the "
                                 "training matrix")
            value_rows_view = value_rows
            if n_samples and n_features:
                self.state.data.rows = &value_rows_view[0, 0]
                self.state.data.row_stride = value_rows_view.strides[0] // sizeof(float)
                self.state.data.column_stride = value_rows_view.strides[1] // sizeof(float)
        self.max_features = max_features
        self.state.limits.min_samples_leaf = min_samples_leaf
        self.state.limits.min_weight_leaf = min_weight_leaf
        self.state.rng_state = seed
        self.method = SplitMethod(split_method if method is None else method)
        if criterion.needs_sorted_moves and self.method not in (SPLIT_RANDOM,
                                                                 SPLIT_RANDOM_BINS):
            self.method = SPLIT_SORT
        # When the sweeps count rather than sort (counts_cheaper): a
        # histogram of all of a feature's values, unless sorting is forced;
        # one of the node's range of them when cheaper (SPLIT_AUTO), always
        # (SPLIT_COUNT) or never.
        self.state.all_values_factor = 0.0 if self.method == SPLIT_SORT else COUNT_FACTOR
        self.state.node_values_factor = (COUNT_FACTOR if self.method == SPLIT_AUTO
                                         else INFINITY if self.method == SPLIT_COUNT else 0.0)
        if categories is None:
            categories = np.zeros(n_features, dtype=np.intp)
        categories = np.ascontiguousarray(categories, dtype=np.intp)
        if categories.shape != (n_features,) or (categories < 0).any():
            raise ValueError("categories needs a count >= 0 per feature")
        if criterion.needs_sorted_moves and (categories > 0).any():
            raise ValueError("this criterion sweeps thresholds only: it takes no "
                             "categorical features")
        cdef const intp_t[::1] category_counts = categories
        self.n_categories = &category_counts[0] if n_features else NULL
        self.subsets = None
        if (categories > 0).any():
            self.subsets = SubsetSweep(criterion, categories, ranked.value_offsets,
                                       bool(subset_shortcuts))
        self.state.limits.monotonic_cst = NULL
        self.state.limits.lower_bound = -INFINITY
        self.state.limits.upper_bound = INFINITY
        cdef const int8_t[::1] constraints
        if monotonic_cst is not None:
            monotonic_cst = np.ascontiguousarray(monotonic_cst, dtype=np.int8)
            if (monotonic_cst.shape != (n_features,)
                    or not np.isin(monotonic_cst, (-1, 0, 1)).all()):
                raise ValueError("monotonic_cst needs -1, 0 or 1 per feature")
            if (monotonic_cst[categories > 0] != 0).any():
                raise ValueError("monotonic_cst constrains numeric features only")
            constraints = monotonic_cst
            if n_features:
                self.state.limits.monotonic_cst = &constraints[0]
        self.rare_rows = RareRows(ranked, n_samples, n_features, max_features)
        groups_of_feature, features_of_group = self._set_interaction_groups(interaction_cst,
                                                                           n_features)
        self._keep_alive = (ranked.ranks, ranked.values, upper_source, ranked.value_offsets,
                            starts_source, value_rows,
                            ranked.narrow_ranks, short_source, categories, monotonic_cst,
                            groups_of_feature, features_of_group)
        histogram_init(&self.state.buffers.histogram)
        node_histograms_init(&self.node_histograms, n_features)
        self.kept_store = &self.node_histograms
        self.kept_node = -1
        # Subtraction pays when a child sweeps the features its parent and
        # sibling filled: every feature at every node. With fewer drawn per
        # node, few are drawn by all three, and keeping the rest costs.
        self.subtracts_histograms = (bool(histogram_subtraction) and criterion.exact_sums
                                     and max_features >= n_features
                                     and self.method in (SPLIT_AUTO, SPLIT_COUNT))
        self.features = <intp_t*> malloc(n_features * sizeof(intp_t))
        self.state.buffers.node_ranks = <uint32_t*> malloc(n_samples * sizeof(uint32_t))
        self.state.buffers.items = <uint64_t*> malloc(n_samples * sizeof(uint64_t))
        self.state.buffers.scratch = <uint64_t*> malloc(n_samples * sizeof(uint64_t))
        self.goes_left = <uint8_t*> malloc(n_samples * sizeof(uint8_t))
        self.partition_spare = <char*> malloc(max(1, n_samples) * criterion.largest_item)
        # A feature's missing values rank last, as +inf (see rank_features).
        cdef uint32_t* missing_ranks = <uint32_t*> malloc(max(n_features, 1) * sizeof(uint32_t))
        self.state.data.missing_ranks = missing_ranks
        if not (self.features and self.state.buffers.node_ranks and self.state.buffers.items
                and self.state.buffers.scratch and self.goes_left and self.partition_spare
                and missing_ranks):
            raise MemoryError()
        for f in range(n_features):
            if (self.state.data.ranks == NULL
                    and value_offsets[f + 1] - value_offsets[f] > (
                        NARROW_RANKS if self.state.data.short_ranks == NULL else SHORT_RANKS)):
                raise ValueError(f"feature {f} has more values than narrow ranks hold (or "
                                 "short ranks, when given), and no ranks were given")
            self.features[f] = f
            missing_ranks[f] = NO_MISSING
            if (value_offsets[f + 1] > value_offsets[f]
                    and values[value_starts[f + 1] - 1] == INFINITY):
                missing_ranks[f] = <uint32_t> (value_offsets[f + 1] - 1 - value_offsets[f])
        self.random_splits = None
        if self.method == SPLIT_RANDOM:
            if columns is None:
                raise ValueError("SPLIT_RANDOM needs the feature columns")
            columns = np.ascontiguousarray(columns, dtype=np.float32)
            if columns.shape != (n_features, n_samples):
                raise ValueError("columns must have shape (n_features, n_samples)")
            self.random_splits = RandomSplits(criterion, columns, rows)

    cdef tuple _set_interaction_groups(self, object interaction_cst, intp_t n_features):
        # The groups as bit sets both ways round (see _splitter.pxd); the
        # arrays are returned for the splitter to keep alive.
        self.node_groups = NULL
        self.n_groups = 0
        self.group_words = 0
        self.feature_words = (n_features + 63) // 64
        if interaction_cst is None:
            return None, None
        groups = [np.asarray(list(group), dtype=np.intp).reshape(-1)
                  for group in interaction_cst]
        covered = np.zeros(n_features, dtype=bool)
        for group in groups:
            if ((group < 0) | (group >= n_features)).any():
                raise ValueError("interaction_cst names a feature out of range")
            covered[group] = True
        if not covered.all():
            raise ValueError("interaction_cst must hold every feature in some group")
        self.n_groups = len(groups)
        self.group_words = (self.n_groups + 63) // 64
        groups_of_feature = np.zeros((n_features, self.group_words), dtype=np.uint64)
        features_of_group = np.zeros((self.n_groups, self.feature_words), dtype=np.uint64)
        for g, group in enumerate(groups):
            for f in group:
                groups_of_feature[f, g // 64] |= np.uint64(1) << np.uint64(g % 64)
                features_of_group[g, f // 64] |= np.uint64(1) << np.uint64(f % 64)
        cdef uint64_t[:, ::1] by_feature = groups_of_feature
        cdef uint64_t[:, ::1] by_group = features_of_group
        self.groups_of_feature = &by_feature[0, 0]
        self.features_of_group = &by_group[0, 0]
        self.allowed_features = <uint64_t*> malloc(self.feature_words * sizeof(uint64_t))
        if self.allowed_features == NULL:
            raise MemoryError()
        return groups_of_feature, features_of_group

    def __dealloc__(self):
        free(self.thread_splitters)
        free(self.feature_status)
        free(self.feature_best)
        free(self.batch)
        free(self.draw_features)
        free(self.allowed_features)
        free(self.partition_spare)
        free(<void*> self.state.data.missing_ranks)
        free(self.features)
        free(self.state.buffers.node_ranks)
        free(self.state.buffers.items)
        free(self.state.buffers.scratch)
        free(self.goes_left)
        histogram_free(&self.state.buffers.histogram)
        node_histograms_free(&self.node_histograms)

    cdef void start_tree(self, bint depth_first) noexcept nogil:
        node_histograms_clear(&self.node_histograms)
        self.kept_node = -1
        self.keeps_histograms = self.subtracts_histograms and depth_first

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
        if self.n_threads > 1:
            partition_threads(self, start, n_node)
        if self.kept_stale:
            # The best came from another thread's criterion; the states its
            # kept child would give are exact, so equal to these.
            Criterion.children_states(self.criterion, start, start + n_left, end,
                                      left_state, right_state)
        else:
            self.criterion.children_states(start, start + n_left, end, left_state,
                                           right_state)

    cdef intp_t mark_threshold_left(self, const uint32_t* node_samples, intp_t n_node,
                                    intp_t feature, uint32_t left_rank,
                                    bint missing_left) noexcept nogil:
        # Exactly the rule the sweep evaluated, on ranks.
        cdef BinSource source = feature_ranks_at(&self.state.data, feature, node_samples)
        cdef intp_t i, n_left = 0
        cdef uint32_t rank, missing_left_rank
        if missing_left:
            missing_left_rank = self.state.data.missing_ranks[feature]
            for i in range(n_node):
                rank = <uint32_t> bin_of(source, i)
                self.goes_left[i] = (rank <= left_rank) | (rank == missing_left_rank)
                n_left += self.goes_left[i]
        else:
            # Missing values (ranked last) go right with the larger values.
            for i in range(n_node):
                self.goes_left[i] = bin_of(source, i) <= <intp_t> left_rank
                n_left += self.goes_left[i]
        return n_left

    cdef void root_groups(self, uint64_t* groups) noexcept nogil:
        cdef intp_t word
        for word in range(self.group_words):
            groups[word] = ~(<uint64_t> 0)
        if self.n_groups % 64:
            groups[self.group_words - 1] = ((<uint64_t> 1) << (self.n_groups % 64)) - 1

    cdef void child_groups(self, const uint64_t* parent_groups, intp_t feature,
                           uint64_t* child_groups) noexcept nogil:
        cdef intp_t word
        cdef const uint64_t* holding = self.groups_of_feature + feature * self.group_words
        for word in range(self.group_words):
            child_groups[word] = parent_groups[word] & holding[word]

    cdef intp_t allowed_first(self, intp_t first) noexcept nogil:
        # Forbidden features are swapped to the end, so a node whose groups
        # allow every feature leaves the permutation, and with it the
        # feature draws, as they would be without constraints.
        cdef intp_t word, bit, f, i = first, end = self.state.data.n_features
        cdef uint64_t groups
        cdef const uint64_t* group_features
        for f in range(self.feature_words):
            self.allowed_features[f] = 0
        # Below the root few groups are left ('pairwise' keeps those of one
        # feature): most words of the set are empty.
        for word in range(self.group_words):
            groups = self.node_groups[word]
            if groups == 0:
                continue
            for bit in range(64):
                if (groups >> bit) & 1:
                    group_features = (self.features_of_group
                                      + (word * 64 + bit) * self.feature_words)
                    for f in range(self.feature_words):
                        self.allowed_features[f] |= group_features[f]
        while i < end:
            f = self.features[i]
            if (self.allowed_features[f >> 6] >> (f & 63)) & 1:
                i += 1
            else:
                end -= 1
                self.features[i] = self.features[end]
                self.features[end] = f
        return end

    cdef int split_node(self, uint32_t* samples, intp_t start, intp_t end,
                        intp_t n_known_constants, SplitRecord* record,
                        double* left_state, double* right_state) noexcept nogil:
        cdef intp_t n_node = end - start
        cdef intp_t first_unvisited = n_known_constants
        cdef intp_t end_unvisited = (self.state.data.n_features if self.node_groups == NULL
                                     else self.allowed_first(first_unvisited))
        cdef intp_t n_evaluated = 0
        cdef intp_t pick, feature, i, n_left, n_distinct
        cdef const uint32_t* node_samples = samples + start
        cdef const intp_t* value_offsets = self.state.data.value_offsets
        cdef int status
        cdef BestCandidate best
        cdef bint random_numeric, left_single, right_single
        cdef int rare_access = RARE_UNDECIDED
        # A random split of a node of two samples sends one left and one
        # right whichever non-constant feature it draws, so those features
        # tie and the lowest (the tie-break) wins: each still draws its
        # threshold (the draws do not depend on how the node is reached),
        # but only the winner is scored.
        # (Not under monotonic constraints, which care which sample goes
        # left; the multi-class subset sweeps are left to their own.)
        cdef bint pair_node = (self.method == SPLIT_RANDOM and n_node == 2
                               and self.state.limits.monotonic_cst == NULL
                               and self.subsets is None)
        cdef intp_t pair_feature = -1
        cdef RandomDraw draw, pair_draw

        if self.keeps_histograms:
            self.kept_node = node_histograms_open(&self.node_histograms, start, end,
                                                  self.criterion.n_bin_stats, True)
            if self.kept_node < 0:
                return -1
        # Large nodes sweep their numeric features on threads; the draws,
        # and the merge of the candidates, stay on this one, in order.
        cdef bint on_threads = (self.n_threads > 1 and n_node * min(
            self.max_features, end_unvisited - first_unvisited) >= self.thread_min_work)
        self.kept_stale = on_threads
        if on_threads:
            memset(self.feature_status, NOT_SWEPT, self.state.data.n_features)
            self.node_serial += 1
            self.thread_node = self.node_serial

        best.proxy_improvement = -INFINITY
        best.max_proxy = -INFINITY
        best.max_before_best = -INFINITY
        best.proxy_scale = self.criterion.proxy_scale()
        best.feature = -1
        best.is_subset = False
        record.feature = -1
        record.proxy_improvement = -INFINITY

        # Draw features without replacement until max_features non-constant
        # ones were evaluated. Constants found here move into the prefix so
        # that descendants never look at them again.
        while first_unvisited < end_unvisited and n_evaluated < self.max_features:
            pick = first_unvisited + rng_below(&self.state.rng_state,
                                               end_unvisited - first_unvisited)
            feature = self.features[pick]
            n_distinct = value_offsets[feature + 1] - value_offsets[feature]

            # Each strategy reports a constant feature (0) or an evaluated
            # one (1); the numeric sweeps below report theirs in place.
            if self.subsets is not None and self.n_categories[feature] > 0:
                status = self.subsets.sweep(&self.state, node_samples, n_node, feature, &best)
            elif pair_node:
                status = self.random_splits.draw_pair(&self.state, node_samples, feature, &draw)
                if status == 1 and (pair_feature < 0 or feature < pair_feature):
                    pair_feature = feature
                    pair_draw = draw
            elif self.method == SPLIT_RANDOM:
                status = self.random_splits.draw_split(&self.state, node_samples, n_node,
                                                       feature, &best)
            elif self.method == SPLIT_RANDOM_BINS:
                status = draw_binned_split(
                    self.criterion, &self.state,
                    feature_ranks_at(&self.state.data, feature, node_samples), n_node,
                    feature, &best)
            elif on_threads:
                status = self.threaded_numeric(node_samples, start, end, pick, first_unvisited,
                                               end_unvisited, n_evaluated, &rare_access, &best)
            else:
                status = self.sweep_numeric(node_samples, n_node, feature, n_distinct,
                                            &rare_access, &best)
            if status < 0:
                return -1
            settle_draw(self.features, pick, status == 0, &first_unvisited, &end_unvisited)
            n_evaluated += status != 0

        if pair_feature >= 0:
            if self.random_splits.offer_pair(&self.state, node_samples, pair_feature,
                                             pair_draw, &best) < 0:
                return -1
        if best.feature < 0:
            if self.kept_node >= 0:
                node_histograms_forget(&self.node_histograms, self.kept_node)
                self.kept_node = -1
            return 0

        feature = best.feature
        record.feature = feature
        record.proxy_improvement = best.proxy_improvement
        record.is_subset = best.is_subset
        record.threshold_rank = best.left_rank
        random_numeric = self.method == SPLIT_RANDOM and not best.is_subset
        if best.is_subset:
            record.threshold = 0.0
            n_left = self.subsets.mark_left(
                feature_ranks_at(&self.state.data, feature, node_samples), n_node,
                self.state.data.missing_ranks[feature], best.missing_left, self.goes_left)
        elif random_numeric:
            record.threshold = best.threshold
        elif best.right_rank == self.state.data.missing_ranks[feature]:
            # Every known value left, the missing ones right.
            record.threshold = INFINITY
        elif not values_kept(&self.state.data, feature):
            record.threshold = midpoint(
                value_from_rows(&self.state.data, feature, node_samples, n_node, best.left_rank),
                value_from_rows(&self.state.data, feature, node_samples, n_node,
                                best.right_rank))
        else:
            record.threshold = midpoint(
                self.state.data.upper_values[self.state.data.value_starts[feature]
                                             + best.left_rank],
                self.state.data.values[self.state.data.value_starts[feature] + best.right_rank])

        if random_numeric:
            n_left = self.random_splits.mark_left(&best, n_node, self.goes_left,
                                                  &left_single, &right_single)
        else:
            left_single = (best.left_rank == best.min_rank and not best.missing_left
                           and not best.is_subset)
            right_single = best.right_rank == best.max_rank
            if not best.is_subset:
                # Partition by rank, and stably: every node keeps its
                # samples in ascending order, so the reads of ranks walk
                # memory forwards.
                n_left = self.mark_threshold_left(node_samples, n_node, feature,
                                                  best.left_rank, best.missing_left)

        # A child that holds one value of the split feature is constant in
        # it: the feature joins the known constants at position
        # first_unvisited. Only the left child may know it alone, since its
        # subtree, built first, leaves that position in place for the right.
        record.n_constants_left = first_unvisited
        record.n_constants_right = first_unvisited
        if left_single:
            for i in range(first_unvisited, self.state.data.n_features):
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
            record.category_set = self.subsets.category_set_of(&self.state, feature,
                                                               record.missing_left)
        if self.kept_node >= 0:
            status = self.keep_children_histograms(samples, start, record.position, end,
                                                   left_state, right_state)
            node_histograms_forget(&self.node_histograms, self.kept_node)
            self.kept_node = -1
            if status < 0:
                return -1
        return 0

    cdef int keep_children_histograms(self, const uint32_t* samples, intp_t start,
                                      intp_t middle, intp_t end, const double* left_state,
                                      const double* right_state) noexcept nogil:
        # The smaller child's histograms are filled, the larger's are the
        # node's minus them; each child keeps those its own sweeps will use
        # (a child sweeps all of a feature's values when counts_cheaper).
        cdef NodeHistograms* store = &self.node_histograms
        cdef intp_t n_bin_stats = store.nodes[self.kept_node].n_bin_stats
        cdef intp_t small_start = start, small_end = middle
        cdef intp_t large_start = middle, large_end = end
        cdef intp_t small_node = -1, large_node, feature, n_bins, n_small, n_large
        cdef double* node_stats
        cdef double* large_stats
        cdef intp_t* node_counts
        cdef intp_t* large_counts
        cdef Histogram* histogram = &self.state.buffers.histogram
        # Children that number their statistics otherwise (fewer classes)
        # cannot take differences of the node's bins.
        self.criterion.restore_node(start, middle, left_state)
        if self.criterion.n_bin_stats != n_bin_stats:
            return 0
        self.criterion.restore_node(middle, end, right_state)
        if self.criterion.n_bin_stats != n_bin_stats:
            return 0
        if middle - start > end - middle:
            small_start, small_end, large_start, large_end = middle, end, start, middle
        n_small = small_end - small_start
        n_large = large_end - large_start
        large_node = node_histograms_open(store, large_start, large_end, n_bin_stats, False)
        if large_node < 0:
            return -1
        # The smaller child keeps its bins only where it will sweep them.
        if counts_cheaper(self.state.all_values_factor, 2, n_bin_stats, n_small):
            small_node = node_histograms_open(store, small_start, small_end, n_bin_stats,
                                              False)
            if small_node < 0:
                return -1
        self.criterion.restore_node(small_start, small_end,
                                    left_state if small_start == start else right_state)
        for feature in range(self.state.data.n_features):
            n_bins = store.nodes[self.kept_node].n_bins[feature]
            if n_bins == 0 or not counts_cheaper(self.state.all_values_factor, n_bins,
                                                 n_bin_stats, n_large):
                continue
            if histogram_fill(histogram, self.criterion,
                              feature_ranks_at(&self.state.data, feature, samples + small_start),
                              n_small, n_bins) < 0:
                return -1
            if small_node >= 0 and counts_cheaper(self.state.all_values_factor, n_bins,
                                                  n_bin_stats, n_small):
                if node_histograms_keep(store, small_node, feature, histogram, n_bins) < 0:
                    return -1
            large_stats = node_histograms_slot(store, large_node, feature, n_bins, &large_counts)
            if large_stats == NULL:
                return -1
            node_stats = node_histograms_bins(store, self.kept_node, feature, n_bins,
                                              &node_counts)
            bins_difference(large_stats, large_counts, node_stats, node_counts, histogram.stats,
                            histogram.counts, n_bins, n_bin_stats)
        return 0

    cdef int sweep_kept(self, double* stats, intp_t* counts, intp_t n_node, intp_t feature,
                        intp_t n_distinct, BestCandidate* best) noexcept nogil:
        # The sweep reads the kept bins in place, lent as its histogram.
        cdef Histogram own = self.state.buffers.histogram
        cdef int status
        global kept_sweeps
        kept_sweeps += 1
        self.state.buffers.histogram.stats = stats
        self.state.buffers.histogram.counts = counts
        self.state.buffers.histogram.n_bins = n_distinct
        self.state.buffers.histogram.n_bin_stats = self.criterion.n_bin_stats
        status = sweep_filled_values(self.criterion, &self.state, n_node, feature, n_distinct,
                                     best)
        self.state.buffers.histogram = own
        return status

    def set_threads(self, splitters):
        """Sweep the features of large nodes on threads.

        Parameters
        ----------
        splitters : list of Splitter
            Splitters of the same fit (same data, limits and method), each
            with a criterion of its own (``Criterion.clone``); with this one
            they make the threads' splitters. Nodes whose samples times
            the features they sweep reach ``thread_min_work`` sweep their
            drawn numeric features on them, with the same results as on one
            thread.

        Returns
        -------
        bool
            Whether the splitter uses them: only the exact sweeps of numeric
            features (sorted or counted, ``splitter='hist'`` too) are spread,
            so not for drawn thresholds, categorical features or features
            with a common value (sparse columns), which stay on one thread.
        """
        cdef Splitter other
        cdef intp_t f, t, n_features = self.state.data.n_features
        splitters = list(splitters)
        if not splitters or self.n_threads > 1:
            return False
        for other in splitters:
            if (other is self or other.state.data.n_features != n_features
                    or other.state.data.n_samples != self.state.data.n_samples
                    or other.method != self.method or other.criterion is self.criterion
                    or type(other.criterion) is not type(self.criterion)):
                raise ValueError("the threads' splitters need the same data and method, "
                                 "and criteria of their own")
        if self.method not in (SPLIT_AUTO, SPLIT_SORT, SPLIT_COUNT) or self.subsets is not None:
            return False
        for f in range(n_features):
            if self.rare_rows.common_rank[f] != NO_COMMON:
                return False
        self.thread_splitters = <void**> malloc((len(splitters) + 1) * sizeof(void*))
        self.feature_status = <signed char*> malloc(max(n_features, 1))
        self.feature_best = <BestCandidate*> malloc(max(n_features, 1) * sizeof(BestCandidate))
        self.batch = <intp_t*> malloc(max(n_features, 1) * sizeof(intp_t))
        self.draw_features = <intp_t*> malloc(max(n_features, 1) * sizeof(intp_t))
        if not (self.thread_splitters and self.feature_status and self.feature_best
                and self.batch and self.draw_features):
            raise MemoryError()
        self.thread_splitters[0] = <void*> self
        for t, other in enumerate(splitters):
            self.thread_splitters[t + 1] = <void*> other
        self._thread_splitters = splitters
        self.thread_min_work = max(1, int(thread_min_work))
        self.n_threads = len(splitters) + 1
        return True

    cdef void init_thread_positions(self, const uint32_t* samples,
                                    intp_t n_samples) noexcept nogil:
        cdef intp_t t
        for t in range(1, self.n_threads):
            init_positions_of(<Splitter> self.thread_splitters[t], samples, n_samples)

    cdef int threaded_numeric(self, const uint32_t* node_samples, intp_t start, intp_t end,
                              intp_t pick, intp_t first_unvisited, intp_t end_unvisited,
                              intp_t n_evaluated, int* rare_access,
                              BestCandidate* best) noexcept nogil:
        cdef intp_t feature = self.features[pick]
        cdef intp_t n_node = end - start
        cdef intp_t n_distinct = (self.state.data.value_offsets[feature + 1]
                                  - self.state.data.value_offsets[feature])
        cdef intp_t f, p, i, t, n_batch = 0, first = first_unvisited, stop = end_unvisited
        cdef intp_t evaluated = n_evaluated
        cdef uint64_t rng_state = self.state.rng_state
        cdef int status
        cdef BestCandidate* candidate
        cdef double scale = best.proxy_scale
        cdef double margin
        if self.feature_status[feature] == NOT_SWEPT:
            # Look ahead: the draws the loop will make from here, taking the
            # features not swept yet as not constant (most are; a constant
            # one changes the later draws, and those not swept yet make the
            # next batch).
            memcpy(self.draw_features, self.features,
                   self.state.data.n_features * sizeof(intp_t))
            p = pick
            while True:
                f = self.draw_features[p]
                status = self.feature_status[f]
                if status == NOT_SWEPT:
                    self.feature_status[f] = SWEEP_PENDING
                    self.batch[n_batch] = f
                    n_batch += 1
                settle_draw(self.draw_features, p, status == 0, &first, &stop)
                evaluated += status != 0
                if not (first < stop and evaluated < self.max_features):
                    break
                p = first + rng_below(&rng_state, stop - first)
            # The threads read and keep the node's histograms in this
            # splitter's store, each feature in a slot of its own.
            for t in range(1, self.n_threads):
                (<Splitter> self.thread_splitters[t]).kept_store = &self.node_histograms
                (<Splitter> self.thread_splitters[t]).kept_node = self.kept_node
            for i in prange(n_batch, nogil=True, num_threads=self.n_threads,
                            schedule='dynamic', chunksize=1):
                sweep_on_thread(<Splitter> self.thread_splitters[threadid()], self,
                                node_samples, start, end, self.batch[i], scale)
            for t in range(1, self.n_threads):
                (<Splitter> self.thread_splitters[t]).kept_node = -1
            for i in range(n_batch):
                if self.feature_status[self.batch[i]] < 0:
                    return -1
        status = self.feature_status[feature]
        candidate = &self.feature_best[feature]
        if status != 1 or candidate.feature < 0:
            return status
        if best.feature < 0:
            # From no best, the sequential sweep would find the same.
            best[0] = candidate[0]
            return 1
        # beats_best allows for rounding, so which of a feature's candidates
        # wins depends on the best they meet. None of them beats it when all
        # fall short of its margin. The feature's own best replaces it when
        # clear of its margin and of the margins of every candidate before
        # it: the sequential sweep then reaches it from whichever candidate
        # it holds, and keeps it. The rest (near ties) are swept again here.
        margin = tie_margin(best.proxy_improvement, scale)
        if candidate.max_proxy < best.proxy_improvement - margin:
            return 1
        if candidate.proxy_improvement > best.proxy_improvement + margin and (
                candidate.max_before_best == -INFINITY
                or candidate.proxy_improvement > candidate.max_before_best
                + tie_margin(candidate.max_before_best, scale)):
            best[0] = candidate[0]
            return 1
        return self.sweep_numeric(node_samples, n_node, feature, n_distinct, rare_access, best)

    cdef int sweep_numeric(self, const uint32_t* node_samples, intp_t n_node, intp_t feature,
                           intp_t n_distinct, int* rare_access,
                           BestCandidate* best) noexcept nogil:
        # The exact sweeps of a numeric feature: the counted sweep of all its
        # values when they are few, the sorted sweep of a sparse feature's
        # rare rows when they are few, else the counted or sorted sweep of
        # the node's range of its ranks, whichever is cheaper. Returns -1
        # when out of memory, 0 when the feature is constant in the node,
        # else 1.
        cdef BinSource source = feature_ranks_at(&self.state.data, feature, node_samples)
        cdef intp_t i, n_rare = -1
        cdef const uint32_t* rare_positions = NULL
        cdef const uint32_t* rare_ranks = NULL
        cdef uint32_t rank, min_rank, max_rank, common_rank = 0
        cdef uint32_t* node_ranks = self.state.buffers.node_ranks
        cdef int status
        cdef double* kept_stats
        cdef intp_t* kept_counts
        # A feature whose rare rows (those without its common value) are
        # few next to the node's is summed from them alone.
        if self.criterion.exact_sums:
            n_rare = self.rare_rows.rows_in_node(feature, node_samples, n_node, rare_access,
                                                 &rare_positions, &rare_ranks)
            if n_rare == 0:
                return 0
            if n_rare > 0:
                common_rank = self.rare_rows.common_rank[feature]
        if n_node == 2 and n_rare < 0:
            status = sweep_pair(self.criterion, &self.state, source, feature, best)
            if status >= 0:
                return status
        if counts_cheaper(self.state.all_values_factor, n_distinct, self.criterion.n_bin_stats,
                          n_node):
            if self.kept_node < 0:
                return sweep_all_values(self.criterion, &self.state, source, n_node, feature,
                                        n_distinct, rare_positions, rare_ranks, n_rare,
                                        common_rank, best)
            # A sparse feature's rows are summed from its rare rows as
            # before: the bookkeeping of its sweep stays the same.
            if n_rare < 0:
                kept_stats = node_histograms_bins(self.kept_store, self.kept_node,
                                                  feature, n_distinct, &kept_counts)
                if kept_stats != NULL:
                    return self.sweep_kept(kept_stats, kept_counts, n_node, feature,
                                           n_distinct, best)
            status = sweep_all_values(self.criterion, &self.state, source, n_node, feature,
                                      n_distinct, rare_positions, rare_ranks, n_rare,
                                      common_rank, best)
            if status == 1 and node_histograms_keep(self.kept_store, self.kept_node,
                                                    feature, &self.state.buffers.histogram,
                                                    n_distinct) < 0:
                return -1
            return status
        if 0 < n_rare and 2 * n_rare <= n_node:
            status = sweep_rare_sorted(self.criterion, &self.state, n_node, feature,
                                       common_rank, rare_positions, rare_ranks, n_rare, best)
            if status != 0:
                return status
        min_rank = 0xFFFFFFFFu
        max_rank = 0
        for i in range(n_node):
            rank = <uint32_t> bin_of(source, i)
            min_rank = rank if rank < min_rank else min_rank
            max_rank = rank if rank > max_rank else max_rank
            node_ranks[i] = rank
        if min_rank == max_rank:
            return 0
        if counts_cheaper(self.state.node_values_factor, max_rank - min_rank + 1,
                          self.criterion.n_bin_stats, n_node):
            return sweep_node_values(self.criterion, &self.state, n_node, feature, min_rank,
                                     max_rank - min_rank + 1, best)
        sweep_sorted(self.criterion, &self.state, n_node, feature, min_rank,
                     max_rank - min_rank + 1, best)
        return 1


cdef void init_positions_of(Splitter splitter, const uint32_t* samples,
                            intp_t n_samples) noexcept nogil:
    splitter.criterion.init_positions(samples, n_samples)


cdef void partition_threads(Splitter splitter, intp_t start, intp_t n_node) noexcept nogil:
    # The other threads' criteria move their arrays as this one's did.
    cdef intp_t t
    for t in range(1, splitter.n_threads):
        partition_moved(<Splitter> splitter.thread_splitters[t], splitter.goes_left,
                        start, n_node)


cdef void partition_moved(Splitter other, const uint8_t* goes_left, intp_t start,
                          intp_t n_node) noexcept nogil:
    cdef intp_t a
    cdef PositionArray* array
    for a in range(other.criterion.n_moved):
        array = &other.criterion.moved[a]
        stable_partition(array.items + start * array.item_size, other.partition_spare,
                         array.item_size, n_node, goes_left)


cdef void sweep_on_thread(Splitter splitter, Splitter main, const uint32_t* node_samples,
                          intp_t start, intp_t end, intp_t feature,
                          double scale) noexcept nogil:
    # One feature of main's node on this thread's splitter, from no best;
    # the splitter's criterion is set to the node on its first feature.
    cdef int rare_access = RARE_UNDECIDED
    cdef BestCandidate* candidate = &main.feature_best[feature]
    if splitter.thread_node != main.node_serial:
        splitter.criterion.init_node(start, end)
        splitter.state.limits.lower_bound = main.state.limits.lower_bound
        splitter.state.limits.upper_bound = main.state.limits.upper_bound
        splitter.thread_node = main.node_serial
    candidate.proxy_improvement = -INFINITY
    candidate.max_proxy = -INFINITY
    candidate.max_before_best = -INFINITY
    candidate.proxy_scale = scale
    candidate.feature = -1
    candidate.is_subset = False
    main.feature_status[feature] = splitter.sweep_numeric(
        node_samples, end - start, feature,
        main.state.data.value_offsets[feature + 1] - main.state.data.value_offsets[feature],
        &rare_access, candidate)


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
    cdef SubsetSweep subsets = splitter.subsets
    splitter.start_tree(False)
    if subsets is not None:
        subsets.n_stats_moved = 0
        subsets.n_proxies = 0
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
        "subset_stats_moved": 0 if subsets is None else subsets.n_stats_moved,
        "subset_proxies": 0 if subsets is None else subsets.n_proxies,
    }
