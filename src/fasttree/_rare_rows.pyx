# cython: language_level=3
"""The rows of a node that do not hold a sparse feature's common value."""

import numpy as np

from libc.stdlib cimport calloc, free, malloc
from libc.string cimport memcpy, memset

from ._split_search cimport NO_COMMON


cdef class RareRows:
    """The rare entries of one fit's training matrix, reachable per node.

    Parameters
    ----------
    ranked : RankedFeatures
        ``fasttree._features.rank_features`` of the training matrix: its
        ``common_rank``, ``rare_feature_offsets``, ``rare_features``,
        ``rare_feature_ranks``, ``rare_offsets``, ``rare_rows`` and
        ``rare_ranks``.
    n_samples, n_features : int
        The training matrix's shape.
    max_features : int
        Features evaluated per node (which access is cheaper depends on it).
    """

    def __cinit__(self, ranked not None, intp_t n_samples, intp_t n_features,
                  intp_t max_features):
        cdef const uint32_t[::1] common_rank = ranked.common_rank
        cdef const intp_t[::1] feature_offsets = ranked.rare_feature_offsets
        cdef const uint32_t[::1] rare_features = np.append(ranked.rare_features, np.uint32(0))
        if common_rank.shape[0] != n_features or feature_offsets.shape[0] != n_samples + 1:
            raise ValueError("common_rank and rare_feature_offsets do not fit the ranks")
        cdef const intp_t[::1] rare_offsets = ranked.rare_offsets
        cdef const uint32_t[::1] rare_rows = np.append(ranked.rare_rows, np.uint32(0))
        cdef const uint32_t[::1] rare_ranks = np.append(ranked.rare_ranks, np.uint32(0))
        cdef const uint32_t[::1] rare_feature_ranks = np.append(ranked.rare_feature_ranks,
                                                                np.uint32(0))
        if (rare_ranks.shape[0] != rare_rows.shape[0]
                or rare_feature_ranks.shape[0] != rare_features.shape[0]):
            raise ValueError("the rare rows' ranks do not match the rare rows")
        if rare_offsets.shape[0] != n_features + 1:
            raise ValueError("rare_offsets needs an entry per feature and one more")
        self.n_samples = n_samples
        self.n_features = n_features
        self.max_features = max_features
        self.common_rank = &common_rank[0] if n_features else NULL
        self.rare_feature_offsets = &feature_offsets[0]
        self.rare_features = &rare_features[0]
        self.rare_offsets = &rare_offsets[0]
        self.rare_rows = &rare_rows[0]
        self.rare_ranks = &rare_ranks[0]
        self.rare_feature_ranks = &rare_feature_ranks[0]
        n_common = int(np.count_nonzero(ranked.common_rank != NO_COMMON))
        self.rare_per_row = feature_offsets[n_samples] / max(1, n_samples)
        self.rare_per_feature = feature_offsets[n_samples] / max(1, n_common)
        self._keep_alive = (ranked.common_rank, ranked.rare_feature_offsets,
                            rare_features.base, ranked.rare_offsets, rare_rows.base,
                            rare_ranks.base, rare_feature_ranks.base)
        self.node_rare_start = <intp_t*> malloc((n_features + 1) * sizeof(intp_t))
        self.node_rare_fill = <intp_t*> malloc((n_features + 1) * sizeof(intp_t))
        self.node_rare_positions = <uint32_t*> malloc(
            max(1, feature_offsets[n_samples]) * sizeof(uint32_t))
        self.node_rare_ranks = <uint32_t*> malloc(
            max(1, feature_offsets[n_samples]) * sizeof(uint32_t))
        self.sample_position = <uint32_t*> calloc(max(1, n_samples), sizeof(uint32_t))
        self.listed_positions = <uint32_t*> malloc(max(1, n_samples) * sizeof(uint32_t))
        self.listed_ranks = <uint32_t*> malloc(max(1, n_samples) * sizeof(uint32_t))
        if not (self.node_rare_start and self.node_rare_fill and self.node_rare_positions
                and self.node_rare_ranks and self.sample_position and self.listed_positions
                and self.listed_ranks):
            raise MemoryError()

    def __dealloc__(self):
        free(self.node_rare_start)
        free(self.node_rare_fill)
        free(self.node_rare_positions)
        free(self.node_rare_ranks)
        free(self.sample_position)
        free(self.listed_positions)
        free(self.listed_ranks)

    cdef intp_t rows_in_node(self, intp_t feature, const uint32_t* node_samples,
                             intp_t n_node, int* access, const uint32_t** positions,
                             const uint32_t** ranks) noexcept nogil:
        if self.common_rank[feature] == NO_COMMON:
            return -1
        if access[0] == RARE_UNDECIDED:
            access[0] = self.choose_access(node_samples, n_node)
        if access[0] == RARE_INDEXED:
            positions[0] = self.node_rare_positions + self.node_rare_start[feature]
            ranks[0] = self.node_rare_ranks + self.node_rare_start[feature]
            return self.node_rare_start[feature + 1] - self.node_rare_start[feature]
        # A listed feature's rare rows are looked up one by one: worth it
        # only when they are few next to the node's.
        if 3 * (self.rare_offsets[feature + 1] - self.rare_offsets[feature]) < n_node:
            positions[0] = self.listed_positions
            ranks[0] = self.listed_ranks
            return self.list_rare_rows(feature, node_samples, n_node)
        return -1

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

    cdef int choose_access(self, const uint32_t* node_samples, intp_t n_node) noexcept nogil:
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
