# cython: language_level=3
"""Exact best-split search over value ranks with one sorted sweep per feature."""

import numpy as np

from libc.math cimport INFINITY
from libc.stdlib cimport free, malloc

from ._utils cimport item_rank, midpoint, pack_item, rng_below, sort_items

cdef inline int bit_length(uint32_t value) noexcept nogil:
    cdef int bits = 0
    while value:
        bits += 1
        value >>= 1
    return bits


cdef class Splitter:
    """Best-split search for one fit.

    Parameters
    ----------
    criterion : Criterion
        Impurity statistics, already bound to the targets and weights.
    ranks : ndarray of uint32, shape (n_features, n_samples)
        Dense rank of every sample's value among the feature's distinct values.
    values : ndarray of float32
        Distinct sorted values of every feature, concatenated.
    value_offsets : ndarray of intp, shape (n_features + 1,)
        Where each feature's values start in ``values``.
    max_features, min_samples_leaf : int
    min_weight_leaf : float
    seed : int
        Seed of the feature sampling.
    """

    def __cinit__(self, Criterion criterion not None,
                  const uint32_t[:, ::1] ranks not None,
                  const float[::1] values not None,
                  const intp_t[::1] value_offsets not None,
                  intp_t max_features, intp_t min_samples_leaf,
                  double min_weight_leaf, uint64_t seed):
        cdef intp_t f
        self.criterion = criterion
        self.n_features = ranks.shape[0]
        self.n_samples = ranks.shape[1]
        self.ranks = &ranks[0, 0]
        self.values = &values[0]
        self.value_offsets = &value_offsets[0]
        self.max_features = max_features
        self.min_samples_leaf = min_samples_leaf
        self.min_weight_leaf = min_weight_leaf
        self.rng_state = seed
        self._keep_alive = (ranks, values, value_offsets)
        self.features = <intp_t*> malloc(self.n_features * sizeof(intp_t))
        self.items = <uint64_t*> malloc(self.n_samples * sizeof(uint64_t))
        self.scratch = <uint64_t*> malloc(self.n_samples * sizeof(uint64_t))
        if not (self.features and self.items and self.scratch):
            raise MemoryError()
        for f in range(self.n_features):
            self.features[f] = f

    def __dealloc__(self):
        free(self.features)
        free(self.items)
        free(self.scratch)

    cdef int split_node(self, uint32_t* samples, intp_t start, intp_t end,
                        intp_t n_known_constants, SplitRecord* best,
                        intp_t* n_constants) noexcept nogil:
        cdef intp_t n_node = end - start
        cdef intp_t first_unvisited = n_known_constants
        cdef intp_t end_unvisited = self.n_features
        cdef intp_t n_evaluated = 0
        cdef intp_t pick, feature, i, group_end, n_left
        cdef intp_t min_leaf = self.min_samples_leaf
        cdef double min_weight = self.min_weight_leaf
        cdef double proxy
        cdef const uint32_t* feature_ranks
        cdef uint32_t rank, min_rank, max_rank
        cdef uint64_t* sorted_items
        cdef intp_t best_position = -1
        cdef uint32_t best_left_rank = 0, best_right_rank = 0
        cdef uint32_t sample

        best.feature = -1
        best.proxy_improvement = -INFINITY

        # Draw features without replacement until max_features non-constant
        # ones were evaluated. Constants found here move into the prefix so
        # that descendants never look at them again.
        while first_unvisited < end_unvisited and n_evaluated < self.max_features:
            pick = first_unvisited + rng_below(&self.rng_state,
                                               end_unvisited - first_unvisited)
            feature = self.features[pick]
            feature_ranks = self.ranks + feature * self.n_samples

            min_rank = 0xFFFFFFFFu
            max_rank = 0
            for i in range(n_node):
                sample = samples[start + i]
                rank = feature_ranks[sample]
                if rank < min_rank:
                    min_rank = rank
                if rank > max_rank:
                    max_rank = rank
                self.items[i] = pack_item(rank, sample)

            if min_rank == max_rank:
                self.features[pick] = self.features[first_unvisited]
                self.features[first_unvisited] = feature
                first_unvisited += 1
                continue

            end_unvisited -= 1
            self.features[pick] = self.features[end_unvisited]
            self.features[end_unvisited] = feature
            n_evaluated += 1

            # Ranks relative to the node's minimum need fewer radix digits.
            for i in range(n_node):
                self.items[i] -= (<uint64_t> min_rank) << 32
            sorted_items = sort_items(self.items, self.scratch, n_node,
                                      bit_length(max_rank - min_rank))

            self.criterion.reset()
            i = 0
            while True:
                rank = item_rank(sorted_items[i])
                group_end = i + 1
                while group_end < n_node and item_rank(sorted_items[group_end]) == rank:
                    group_end += 1
                if group_end >= n_node:
                    break
                self.criterion.move_left(sorted_items, i, group_end)
                i = group_end
                n_left = group_end
                if n_left < min_leaf:
                    continue
                if n_node - n_left < min_leaf:
                    break
                if self.criterion.weighted_n_left < min_weight:
                    continue
                if self.criterion.weighted_n_right < min_weight:
                    break
                proxy = self.criterion.proxy_improvement()
                # Ties go to the lowest feature index, then the lowest threshold,
                # whatever order the features were drawn in.
                if proxy > best.proxy_improvement or (
                        proxy == best.proxy_improvement and feature < best.feature):
                    best.proxy_improvement = proxy
                    best.feature = feature
                    best_position = n_left
                    best_left_rank = rank + min_rank
                    best_right_rank = item_rank(sorted_items[group_end]) + min_rank

        n_constants[0] = first_unvisited
        if best.feature < 0:
            return 0

        feature = best.feature
        best.threshold_rank = best_left_rank
        best.threshold = midpoint(
            self.values[self.value_offsets[feature] + best_left_rank],
            self.values[self.value_offsets[feature] + best_right_rank])

        # Partition by rank: exactly the rule the sweep evaluated.
        feature_ranks = self.ranks + feature * self.n_samples
        i = start
        group_end = end - 1
        while i <= group_end:
            if feature_ranks[samples[i]] <= best_left_rank:
                i += 1
            else:
                sample = samples[i]
                samples[i] = samples[group_end]
                samples[group_end] = sample
                group_end -= 1
        best.position = i

        self.criterion.init_node(samples, start, best.position)
        best.impurity_left = self.criterion.node_impurity()
        best.weighted_n_left = self.criterion.weighted_n_node
        self.criterion.init_node(samples, best.position, end)
        best.impurity_right = self.criterion.node_impurity()
        best.weighted_n_right = self.criterion.weighted_n_node
        return 0


def find_split(Splitter splitter not None, uint32_t[::1] samples not None):
    """Best split of the node holding ``samples`` (for tests and inspection).

    ``samples`` is partitioned in place, the left child first. Returns None
    when no valid split exists, else a dict with ``feature``, ``threshold``,
    ``position`` (number of samples going left), ``improvement`` (the node's
    impurity minus the weighted impurities of the children), and the children's
    ``impurity_left`` / ``impurity_right``.
    """
    cdef SplitRecord record
    cdef intp_t n_constants
    cdef double impurity, weighted_n_node
    splitter.criterion.init_node(&samples[0], 0, samples.shape[0])
    impurity = splitter.criterion.node_impurity()
    weighted_n_node = splitter.criterion.weighted_n_node
    with nogil:
        splitter.split_node(&samples[0], 0, samples.shape[0], 0, &record, &n_constants)
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
    }
