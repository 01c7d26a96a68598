# cython: language_level=3
"""Subset splits of categorical features: orderings of a node's categories, swept."""

import numpy as np

from libc.stdint cimport uint64_t
from libc.stdlib cimport calloc, free, malloc, qsort, realloc
from libc.string cimport memset

from ._criterion cimport BIN_BYTES_4, BinSource, bin_of
from ._histogram cimport histogram_bin, histogram_fill
from ._split_search cimport (IMPROVED, SKIP, STOP, bit_length, counts_cheaper,
                             feature_ranks_at, holds_one_value, offer)
from ._utils cimport beats_best, item_position, item_rank, pack_item, sort_items


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


cdef class SubsetSweep:
    """The subset sweeps of one fit's categorical features.

    Parameters
    ----------
    criterion : Criterion
        The fit's criterion (its ``category_orderings`` order the categories).
    categories : ndarray of intp
        Per feature, its number of category codes, or 0 for a numeric feature.
    value_offsets : ndarray of intp
        The ranked features' value offsets (``RankedFeatures.value_offsets``):
        feature f has ``value_offsets[f + 1] - value_offsets[f]`` ranks.
    shortcuts : bool
        Whether the sweeps take their shortcuts (see ``sweep``); without
        them they find the same splits, more slowly.
    """

    def __cinit__(self, Criterion criterion not None, categories not None,
                  value_offsets not None, bint shortcuts):
        categories = np.ascontiguousarray(categories, dtype=np.intp)
        cdef const intp_t[::1] category_counts = categories
        self.criterion = criterion
        self.n_categories = &category_counts[0] if categories.size else NULL
        self._keep_alive = categories
        cdef intp_t max_ranks = max(1, int(np.diff(value_offsets)[categories > 0]
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
        self.shortcuts = shortcuts
        self.sparse_moves = shortcuts and criterion.moves_sparse_bins
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

    def __dealloc__(self):
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

    cdef int sweep(self, SearchState* state, const uint32_t* node_samples, intp_t n_node,
                   intp_t feature, BestCandidate* best) noexcept nogil:
        cdef intp_t n_distinct = state.data.value_offsets[feature + 1] - state.data.value_offsets[feature]
        cdef uint32_t missing = state.data.missing_ranks[feature]
        cdef BinSource source = feature_ranks_at(&state.data, feature, node_samples)
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
        if counts_cheaper(state.all_values_factor, n_distinct,
                          self.criterion.n_bin_stats, n_node):
            if holds_one_value(source, n_node):
                return 0
            if histogram_fill(&state.buffers.histogram, self.criterion, source, n_node,
                              n_distinct) < 0:
                return -1
            n_bins = n_distinct
        else:
            for i in range(n_node):
                rank = <uint32_t> bin_of(source, i)
                min_rank = rank if rank < min_rank else min_rank
                max_rank = rank if rank > max_rank else max_rank
                state.buffers.node_ranks[i] = rank
            if min_rank == max_rank:
                return 0
            if counts_cheaper(state.node_values_factor, max_rank - min_rank + 1,
                              self.criterion.n_bin_stats, n_node):
                n_bins = max_rank - min_rank + 1
                first_rank = min_rank
                if histogram_fill(&state.buffers.histogram, self.criterion,
                                  BinSource(state.buffers.node_ranks, NULL, min_rank,
                                            BIN_BYTES_4), n_node, n_bins) < 0:
                    return -1
            else:
                for i in range(n_node):
                    state.buffers.items[i] = pack_item(state.buffers.node_ranks[i] - min_rank, <uint32_t> i)
                sorted_items = sort_items(state.buffers.items, state.buffers.scratch, n_node,
                                          bit_length(max_rank - min_rank))
                group = -1
                previous = 0xFFFFFFFFu
                for i in range(n_node):
                    rank = item_rank(sorted_items[i])
                    if rank != previous:
                        group += 1
                        previous = rank
                        self.category_rank[group] = rank + min_rank
                    state.buffers.node_ranks[item_position(sorted_items[i])] = <uint32_t> group
                n_bins = group + 1
                grouped = True
                if histogram_fill(&state.buffers.histogram, self.criterion,
                                  BinSource(state.buffers.node_ranks, NULL, 0, BIN_BYTES_4),
                                  n_node, n_bins) < 0:
                    return -1
        counts = state.buffers.histogram.counts
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
        if self.list_category_stats(state, n_present, n_present + (missing_bin >= 0)) < 0:
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
                self.order_categories(state, n_present, self.ordering_slots[o])
                n_left = self.start_subset(state, n_present, missing_left)
                improved_at = 0
                for j in range(n_present - 1):
                    n_left += self.move_category_left(state, self.category_order[j].index)
                    outcome = self.offer_subset(state, best, n_left, n_node, feature)
                    if outcome == STOP:
                        break
                    if outcome == IMPROVED:
                        improved_at = j + 1
                if improved_at:
                    self.keep_categories(best, n_present, improved_at, -1, missing_bin >= 0,
                                         missing_left)
            improved_at = -1
            for j in range(n_present if singles else 0):
                n_left = self.start_subset(state, n_present, missing_left)
                n_left += self.move_category_left(state, j)
                if self.offer_subset(state, best, n_left, n_node, feature) == IMPROVED:
                    improved_at = j
            if improved_at >= 0:
                self.keep_categories(best, n_present, 1, improved_at, missing_bin >= 0,
                                     missing_left)
            if missing_left or missing_bin < 0:
                continue
            self.order_categories(state, n_present, -1)
            n_left = self.start_subset(state, n_present, False)
            for j in range(n_present):
                n_left += self.move_category_left(state, j)
            if self.offer_subset(state, best, n_left, n_node, feature) == IMPROVED:
                self.keep_categories(best, n_present, n_present, -1, True, False)
        return 1

    cdef int list_category_stats(self, SearchState* state, intp_t n_present,
                                 intp_t n_listed) noexcept nogil:
        # The sweeps read these lists, not the bins: a bin of many classes
        # spans many cache lines, and they would read one or two of them.
        cdef intp_t j, s, e, n_entries = 0, n_stats = state.buffers.histogram.n_bin_stats
        cdef const double* bin
        for j in range(n_listed):
            bin = histogram_bin(&state.buffers.histogram, self.category_bin[j])
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
            bin = histogram_bin(&state.buffers.histogram, self.category_bin[j])
            self.category_weight[j] = bin[0]
            self.category_count[j] = state.buffers.histogram.counts[self.category_bin[j]]
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

    cdef intp_t move_category_left(self, SearchState* state, intp_t j) noexcept nogil:
        cdef intp_t first = self.entry_start[j], n_stats = self.entry_start[j + 1] - first
        if self.sparse_moves:
            self.criterion.move_stats_left(self.category_weight[j], self.entry_stat + first,
                                           self.entry_value + first, n_stats)
        else:
            self.criterion.move_bin_left(histogram_bin(&state.buffers.histogram, self.category_bin[j]))
            n_stats = state.buffers.histogram.n_bin_stats - 1
        self.n_stats_moved += n_stats
        return self.category_count[j]

    cdef intp_t start_subset(self, SearchState* state, intp_t missing,
                             bint missing_left) noexcept nogil:
        self.criterion.reset()
        if not missing_left:
            return 0
        return self.move_category_left(state, missing)

    cdef void order_categories(self, SearchState* state, intp_t n_present,
                               intp_t slot) noexcept nogil:
        # Ascending keys, ties in category order (compare_keyed). A
        # category whose bin holds none of the statistic has the key 0: with
        # the shortcuts, only the others are keyed and sorted, then merged
        # with those in category order, which gives the same order.
        cdef intp_t j, e, n_keyed = 0, taken = 0, n_ordered = 0
        cdef const double* bin
        cdef KeyedBin unkeyed
        if slot < 0 or not self.shortcuts:
            for j in range(n_present):
                bin = histogram_bin(&state.buffers.histogram, self.category_bin[j])
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

    cdef int offer_subset(self, SearchState* state, BestCandidate* best, intp_t n_left,
                          intp_t n_node, intp_t feature) noexcept nogil:
        # A candidate whose bound would not beat the best (offer's rule)
        # cannot win. offer's STOP tests go first, so that the sweep stops
        # where it would.
        cdef double bound
        if (self.shortcuts and self.criterion.bounds_proxy
                and n_node - n_left >= state.limits.min_samples_leaf
                and (self.criterion.weighted_n_node - self.criterion.weighted_n_left
                     >= state.limits.min_weight_leaf)):
            bound = self.criterion.proxy_bound()
            if not beats_best(bound, feature, best.proxy_improvement, best.feature,
                              best.proxy_scale):
                return SKIP
        self.n_proxies += 1
        return offer(self.criterion, &state.limits, best, n_left, n_node, feature, 0)

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

    cdef const uint32_t* category_set_of(self, SearchState* state, intp_t feature,
                                         bint missing_left) noexcept nogil:
        # Codes the node did not hold go with the missing values.
        cdef intp_t n_codes = self.n_categories[feature]
        cdef intp_t n_words = (n_codes + 31) // 32, j
        cdef const float* codes = state.data.values + state.data.value_starts[feature]
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
        return self.category_set

    cdef intp_t mark_left(self, BinSource source, intp_t n_node, uint32_t missing_rank,
                          bint missing_left, uint8_t* goes_left) noexcept nogil:
        # Partition through a table of the ranks going left, cleared after.
        cdef intp_t i, n_left = 0
        for i in range(self.n_best_left):
            self.rank_goes_left[self.best_left_ranks[i]] = 1
        if missing_left:
            self.rank_goes_left[missing_rank] = 1
        for i in range(n_node):
            goes_left[i] = self.rank_goes_left[bin_of(source, i)]
            n_left += goes_left[i]
        for i in range(self.n_best_left):
            self.rank_goes_left[self.best_left_ranks[i]] = 0
        if missing_left:
            self.rank_goes_left[missing_rank] = 0
        return n_left
