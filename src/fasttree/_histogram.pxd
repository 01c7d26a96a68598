# Per-value statistics of one node for one feature: a bin for every rank in
# the node's range of the feature, holding the criterion's sums for the
# samples of that value. Sweeping the bins in order scores every threshold
# the sorted sweep scores, without sorting: O(n + bins) instead of
# O(n log n). The same bins serve a splitter over pre-binned features.

from libc.stdint cimport uint32_t

from ._criterion cimport BinSource, Criterion
from ._utils cimport intp_t


# A fill adds every sample to one bin: a load, an add and a store that the
# next sample of the same bin must wait for. When the criterion's sums are
# exact in any order (whole weights), the samples are dealt round-robin to
# this many copies of the bins, summed afterwards, so that consecutive
# samples do not wait on each other.
cdef enum:
    HISTOGRAM_COPIES = 4


cdef struct Histogram:
    double* stats          # n_bins rows of n_bin_stats doubles: weight, statistics
                           # (the first of the copies a fill used)
    intp_t* counts         # samples in every bin (likewise)
    intp_t n_bin_stats     # doubles per bin: the criterion's n_bin_stats at the fill
    intp_t n_bins          # bins in use
    intp_t stats_capacity  # doubles allocated for stats
    intp_t bins_capacity   # bins allocated for counts


# An empty histogram; nothing allocated yet.
cdef void histogram_init(Histogram* histogram) noexcept nogil

cdef void histogram_free(Histogram* histogram) noexcept nogil

# Sums the criterion's current node into n_bins bins, in node order, each
# position into the bin the source gives. Returns -1 when out of memory.
cdef int histogram_fill(Histogram* histogram, Criterion criterion, BinSource source,
                        intp_t n_node, intp_t n_bins) noexcept nogil
# The same bins from the listed node positions alone, each in its bin in
# position_bins (all in bin 0 when NULL), the others summed as the node's
# totals minus them in common_bin (criteria with exact sums).
cdef int histogram_fill_rare(Histogram* histogram, Criterion criterion, intp_t n_node,
                             intp_t n_bins, const uint32_t* positions,
                             const uint32_t* position_bins, intp_t n_positions,
                             intp_t common_bin) noexcept nogil

# The statistics of bin b.
cdef inline double* histogram_bin(Histogram* histogram, intp_t b) noexcept nogil:
    return histogram.stats + b * histogram.n_bin_stats

# Writes to stats and counts the difference of two histograms of n_bins
# bins of n_bin_stats doubles (and their counts), bin by bin: minuend minus
# subtrahend. Exact when their sums are (Criterion.exact_sums).
cdef void bins_difference(double* stats, intp_t* counts, const double* minuend_stats,
                          const intp_t* minuend_counts, const double* subtrahend_stats,
                          const intp_t* subtrahend_counts, intp_t n_bins,
                          intp_t n_bin_stats) noexcept nogil
