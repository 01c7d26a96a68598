# cython: language_level=3
"""Histogram subtraction: a split node's histograms, made its children's."""

from libc.stdlib cimport calloc, free, malloc, realloc
from libc.string cimport memcpy, memset


cdef void node_histograms_init(NodeHistograms* store, intp_t n_features) noexcept nogil:
    store.nodes = NULL
    store.n_nodes = 0
    store.capacity = 0
    store.n_features = n_features


cdef void node_histograms_free(NodeHistograms* store) noexcept nogil:
    cdef intp_t i, feature
    for i in range(store.capacity):
        if store.nodes[i].stats != NULL:
            for feature in range(store.n_features):
                free(store.nodes[i].stats[feature])
        free(store.nodes[i].stats)
        free(store.nodes[i].stats_capacity)
        free(store.nodes[i].counts)
        free(store.nodes[i].n_bins)
    free(store.nodes)
    node_histograms_init(store, store.n_features)


cdef void node_histograms_clear(NodeHistograms* store) noexcept nogil:
    store.n_nodes = 0


cdef void node_histograms_forget(NodeHistograms* store, intp_t index) noexcept nogil:
    # The last entry takes the forgotten one's place; their buffers swap
    # too, so that every allocation stays owned by some entry.
    cdef KeptNode spare = store.nodes[index]
    store.n_nodes -= 1
    store.nodes[index] = store.nodes[store.n_nodes]
    store.nodes[store.n_nodes] = spare


cdef intp_t node_histograms_open(NodeHistograms* store, intp_t start, intp_t end,
                                 intp_t n_bin_stats, bint forget_done) noexcept nogil:
    cdef intp_t i = 0, capacity
    cdef KeptNode* node
    cdef KeptNode* grown
    # Waiting nodes lie after this one; any other is done with.
    while i < store.n_nodes:
        node = &store.nodes[i]
        if node.start == start and node.end == end:
            if node.n_bin_stats != n_bin_stats:
                memset(node.n_bins, 0, store.n_features * sizeof(intp_t))
                node.n_bin_stats = n_bin_stats
            return i
        if node.start >= end or not forget_done:
            i += 1
        else:
            node_histograms_forget(store, i)
    if store.n_nodes == store.capacity:
        capacity = 2 * store.capacity + 8
        grown = <KeptNode*> realloc(store.nodes, capacity * sizeof(KeptNode))
        if grown == NULL:
            return -1
        store.nodes = grown
        for i in range(store.capacity, capacity):
            grown[i].stats = NULL
            grown[i].stats_capacity = NULL
            grown[i].counts = NULL
            grown[i].n_bins = NULL
        store.capacity = capacity
    node = &store.nodes[store.n_nodes]
    if node.n_bins == NULL:
        node.n_bins = <intp_t*> calloc(max(1, store.n_features), sizeof(intp_t))
        node.stats = <double**> calloc(max(1, store.n_features), sizeof(double*))
        node.stats_capacity = <intp_t*> calloc(max(1, store.n_features), sizeof(intp_t))
        node.counts = <intp_t*> malloc(max(1, store.n_features * MAX_KEPT_BINS)
                                       * sizeof(intp_t))
        if (node.n_bins == NULL or node.stats == NULL or node.stats_capacity == NULL
                or node.counts == NULL):
            return -1
    memset(node.n_bins, 0, store.n_features * sizeof(intp_t))
    node.start = start
    node.end = end
    node.n_bin_stats = n_bin_stats
    store.n_nodes += 1
    return store.n_nodes - 1


cdef double* node_histograms_bins(NodeHistograms* store, intp_t index, intp_t feature,
                                  intp_t n_bins, intp_t** counts) noexcept nogil:
    cdef KeptNode* node = &store.nodes[index]
    if node.n_bins[feature] != n_bins:
        return NULL
    counts[0] = node.counts + feature * MAX_KEPT_BINS
    return node.stats[feature]


cdef double* node_histograms_slot(NodeHistograms* store, intp_t index, intp_t feature,
                                  intp_t n_bins, intp_t** counts) noexcept nogil:
    # A feature's bins are allocated when first kept, and the allocation
    # stays with the entry for the nodes it serves next: a tree holds what
    # its waiting nodes keep.
    cdef KeptNode* node = &store.nodes[index]
    cdef intp_t size = MAX_KEPT_BINS * node.n_bin_stats
    cdef double* stats
    if n_bins > MAX_KEPT_BINS:
        return NULL
    if node.stats_capacity[feature] < size:
        stats = <double*> realloc(node.stats[feature], size * sizeof(double))
        if stats == NULL:
            return NULL
        node.stats[feature] = stats
        node.stats_capacity[feature] = size
    node.n_bins[feature] = n_bins
    counts[0] = node.counts + feature * MAX_KEPT_BINS
    return node.stats[feature]


cdef int node_histograms_keep(NodeHistograms* store, intp_t index, intp_t feature,
                              const Histogram* histogram, intp_t n_bins) noexcept nogil:
    cdef intp_t* counts
    cdef double* stats
    if n_bins > MAX_KEPT_BINS or histogram.n_bin_stats != store.nodes[index].n_bin_stats:
        return 0
    stats = node_histograms_slot(store, index, feature, n_bins, &counts)
    if stats == NULL:
        return -1
    memcpy(stats, histogram.stats, n_bins * histogram.n_bin_stats * sizeof(double))
    memcpy(counts, histogram.counts, n_bins * sizeof(intp_t))
    return 0
