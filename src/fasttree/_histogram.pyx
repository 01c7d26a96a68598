# cython: language_level=3
"""Per-value histograms of a node's criterion statistics."""

from libc.stdlib cimport free, realloc
from libc.string cimport memset


cdef void histogram_init(Histogram* histogram) noexcept nogil:
    histogram.stats = NULL
    histogram.counts = NULL
    histogram.n_bin_stats = 0
    histogram.n_bins = 0
    histogram.stats_capacity = 0
    histogram.bins_capacity = 0


cdef void histogram_free(Histogram* histogram) noexcept nogil:
    free(histogram.stats)
    free(histogram.counts)
    histogram_init(histogram)


cdef int histogram_reserve(Histogram* histogram, intp_t n_bins,
                           intp_t n_bin_stats) noexcept nogil:
    cdef double* stats
    cdef intp_t* counts
    if n_bins * n_bin_stats > histogram.stats_capacity:
        stats = <double*> realloc(histogram.stats, n_bins * n_bin_stats * sizeof(double))
        if stats == NULL:
            return -1
        histogram.stats = stats
        histogram.stats_capacity = n_bins * n_bin_stats
    if n_bins > histogram.bins_capacity:
        counts = <intp_t*> realloc(histogram.counts, n_bins * sizeof(intp_t))
        if counts == NULL:
            return -1
        histogram.counts = counts
        histogram.bins_capacity = n_bins
    return 0


cdef int histogram_fill_rare(Histogram* histogram, Criterion criterion, intp_t n_node,
                             intp_t n_bins, const uint32_t* positions,
                             const uint32_t* position_bins, intp_t n_positions,
                             intp_t common_bin) noexcept nogil:
    """histogram_fill from the node positions listed (those not holding the
    feature's common value, in bin common_bin) alone; the criterion must
    have exact sums. The bins come out as histogram_fill's, exactly."""
    cdef intp_t n_bin_stats = criterion.n_bin_stats
    if histogram_reserve(histogram, n_bins, n_bin_stats) < 0:
        return -1
    histogram.n_bin_stats = n_bin_stats
    histogram.n_bins = n_bins
    memset(histogram.stats, 0, n_bins * n_bin_stats * sizeof(double))
    memset(histogram.counts, 0, n_bins * sizeof(intp_t))
    criterion.add_positions_to_bins(histogram.stats, histogram.counts, n_bins, positions,
                                    position_bins, n_positions)
    criterion.write_rest_bin(histogram.stats, histogram.counts, n_bins, common_bin, n_node)
    return 0


cdef int histogram_fill(Histogram* histogram, Criterion criterion, BinSource source,
                        intp_t n_node, intp_t n_bins) noexcept nogil:
    cdef intp_t n_bin_stats = criterion.n_bin_stats
    cdef intp_t n_copies = 1
    cdef intp_t copy, i, copy_size = n_bins * n_bin_stats
    cdef double* stats
    cdef intp_t* counts
    # Extra copies pay for their clearing and summing only when the bins
    # are few next to the samples, which is when consecutive samples meet.
    if criterion.exact_sums and 16 * copy_size <= n_node:
        n_copies = HISTOGRAM_COPIES
    if histogram_reserve(histogram, n_copies * n_bins, n_bin_stats) < 0:
        return -1
    stats = histogram.stats
    counts = histogram.counts
    histogram.n_bin_stats = n_bin_stats
    histogram.n_bins = n_bins
    memset(stats, 0, n_copies * copy_size * sizeof(double))
    memset(counts, 0, n_copies * n_bins * sizeof(intp_t))
    criterion.add_to_bins(stats, counts, n_copies, n_bins, source, n_node)
    for copy in range(1, n_copies):
        for i in range(copy_size):
            stats[i] += stats[copy * copy_size + i]
        for i in range(n_bins):
            counts[i] += counts[copy * n_bins + i]
    return 0



cdef void bins_difference(double* stats, intp_t* counts, const double* minuend_stats,
                          const intp_t* minuend_counts, const double* subtrahend_stats,
                          const intp_t* subtrahend_counts, intp_t n_bins,
                          intp_t n_bin_stats) noexcept nogil:
    cdef intp_t i
    for i in range(n_bins * n_bin_stats):
        stats[i] = minuend_stats[i] - subtrahend_stats[i]
    for i in range(n_bins):
        counts[i] = minuend_counts[i] - subtrahend_counts[i]
