# Random thresholds (extremely randomized trees): for each drawn feature one
# threshold drawn uniformly between the node's least and largest value, and
# a side drawn for its missing values; no sweep. The values themselves are
# compared with the threshold, read from the feature columns, or from the
# rows for small nodes. Binned features (splitter='hist') draw a bin
# boundary instead, on their bin numbers (draw_binned_split).

cimport cython
from libc.stdint cimport uint8_t, uint32_t

from ._criterion cimport BinSource, Criterion
from ._split_search cimport BestCandidate, SearchState
from ._utils cimport intp_t


# A random split's draw for one feature at a node.
cdef struct RandomDraw:
    float threshold           # known values <= threshold go left
    bint missing_left         # missing values go left
    float min_value           # the node's least known value (+inf: none)
    float max_value           # and its largest
    bint has_missing          # the node has missing values of the feature


# Final: its methods are called directly, and inlined, not through a vtable.
@cython.final
cdef class RandomSplits:
    cdef Criterion criterion
    # The values, (n_features, n_samples) float32, missing ones as +inf. A
    # random split compares values with its drawn threshold: reading ranks
    # instead would need each threshold's rank, a search that misses the
    # cache at every probe.
    cdef const float* columns
    # Dense X only: the same values row by row, (n_samples, n_features)
    # float32, missing ones NaN, or NULL. A small node reads its drawn
    # features from its rows: the first feature brings each row's cache
    # lines in and the next ones find them there, where reading the columns
    # would miss the cache once per feature and sample.
    cdef const float* rows
    cdef intp_t row_node_limit        # nodes of at most this many samples read rows
    cdef intp_t n_samples
    cdef intp_t n_features
    cdef float* value_buffers         # the two buffers below, in one allocation
    cdef float* node_values           # the node's values of the feature being drawn
    cdef float* best_node_values      # those of the best random split so far (swapped in)
    cdef object _keep_alive

    # A numeric feature's one candidate at the node of node_samples: a
    # threshold drawn uniformly between the node's least and largest known
    # value, missing values sent to a side drawn at random (or, for a node
    # of one known value, the known values left and the missing ones
    # right), offered to best. Returns -1 when out of memory, 0 when the
    # feature is constant in the node, else 1.
    cdef int draw_split(self, SearchState* state, const uint32_t* node_samples,
                        intp_t n_node, intp_t feature, BestCandidate* best) noexcept nogil
    # For a node of two samples: whether they differ in a numeric feature (a
    # missing value differs from a known one), and if so the feature's draw.
    # Every such draw separates the two samples alike, so the splitter
    # scores only the winner, with offer_pair.
    cdef bint draw_pair(self, SearchState* state, const uint32_t* node_samples,
                        intp_t feature, RandomDraw* draw) noexcept nogil
    cdef int offer_pair(self, SearchState* state, const uint32_t* node_samples,
                        intp_t feature, RandomDraw draw, BestCandidate* best) noexcept nogil
    # Marks in goes_left the node positions the best random split sends
    # left; returns their number, and whether each child holds one value of
    # the feature.
    cdef intp_t mark_left(self, const BestCandidate* best, intp_t n_node, uint8_t* goes_left,
                          bint* left_single, bint* right_single) noexcept nogil

    # draw_split's steps: a threshold (and a side for missing values) drawn
    # for a node's extremes, and a draw scored on node_values and offered to
    # best (-1 when out of memory, else 1).
    cdef RandomDraw draw_threshold(self, SearchState* state, float min_value, float max_value,
                                   bint has_missing) noexcept nogil
    cdef int offer_draw(self, SearchState* state, intp_t n_node, intp_t feature,
                        RandomDraw draw, BestCandidate* best) noexcept nogil
    # A sample's value of a feature, missing as +inf.
    cdef float sample_value(self, uint32_t sample, intp_t feature) noexcept nogil


# A binned numeric feature's one candidate at the node whose bin numbers
# source gives: a boundary drawn uniformly among the bins between the
# node's least and largest known one (bins up to it go left), missing
# values sent to a side drawn at random (or, for a node of one known bin,
# the known values left and the missing ones right), offered to best with
# the ranks the sweeps note (keep_threshold), so that the splitter places
# and applies the threshold as it does a swept one. node_ranks (n_node
# entries) is work space. Returns -1 when out of memory, 0 when the
# feature is constant in the node, else 1.
cdef int draw_binned_split(Criterion criterion, SearchState* state, BinSource source,
                           intp_t n_node, intp_t feature, BestCandidate* best) noexcept nogil
