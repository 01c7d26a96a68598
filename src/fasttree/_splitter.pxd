# The exact split search: for each candidate feature, sweep the node's
# thresholds in value order, either over the node's samples sorted by their
# precomputed value rank or over a histogram of the node's statistics per rank
# (whichever is cheaper for that node and feature; both find the same split).

cimport cython
from libc.stdint cimport int8_t, int32_t, uint8_t, uint32_t, uint64_t

from ._criterion cimport BinSource, Criterion, PositionArray
from ._histogram cimport Histogram
from ._utils cimport intp_t


cdef enum:
    NO_MISSING = 0xFFFFFFFF   # missing_rank of a feature without missing values
    NO_COMMON = 0xFFFFFFFF    # common_rank of a feature without a common value listed


cdef struct SplitRecord:
    intp_t feature            # feature of the split, -1 when none was found
    intp_t position           # samples[start:position] go left once partitioned
    uint32_t threshold_rank   # samples whose rank is <= this go left
    float threshold           # the same rule on values: x <= threshold goes left
    bint missing_left         # missing values go left (learnt where the node had some)
    bint missing_seen         # the node had some
    # A split on a categorical feature: the codes of category_set (laid out
    # as in _tree.pxd) go left. The set lives in the splitter until its next
    # split; the builders copy it into the tree and note where in side.
    bint is_subset
    const uint32_t* category_set
    int32_t side
    double proxy_improvement  # the criterion's proxy, to compare candidates
    double impurity_left      # impurity of the left child
    double impurity_right     # impurity of the right child
    double weighted_n_left    # weight of the left child
    double weighted_n_right   # weight of the right child
    # How many of the splitter's first features are known to be constant in
    # each child: those of the node, and the split feature when a child
    # holds one value of it (always, for a feature of two values).
    intp_t n_constants_left
    intp_t n_constants_right
    # The children's constrained values (Criterion.monotone_value), for
    # the bounds a monotonic constraint passes down.
    double value_left
    double value_right


# The best candidate of a node's sweeps so far.
cdef struct BestCandidate:
    double proxy_improvement  # the criterion's proxy, -inf before any candidate
    double proxy_scale        # the criterion's proxy_scale at the node (beats_best)
    intp_t feature            # -1 before any candidate
    uint32_t left_rank        # largest rank that goes left
    uint32_t right_rank       # smallest rank of the node that goes right
    uint32_t min_rank         # the node's least rank of the feature
    uint32_t max_rank         # the node's largest rank of the feature
    bint has_missing          # the node has missing values of the feature
    bint missing_left         # they go left
    bint is_subset            # a set of categories goes left (the splitter's best_left_ranks)
    float threshold           # the drawn threshold of a random split (SPLIT_RANDOM)
    # A random split: the node's least value of the feature (the left child
    # holds one value if all its values are this), and the value the right
    # child holds if it holds one (its largest; +inf for missing ones).
    float least_value
    float right_top_value


# A random split's draw for one feature at a node.
cdef struct RandomDraw:
    float threshold           # known values <= threshold go left
    bint missing_left         # missing values go left
    float min_value           # the node's least known value (+inf: none)
    float max_value           # and its largest
    bint has_missing          # the node has missing values of the feature


# How split_node sweeps a feature.
cpdef enum SplitMethod:
    SPLIT_AUTO = 0    # the cheapest for each node and feature
    SPLIT_SORT = 1    # always sort the node's samples by rank
    SPLIT_COUNT = 2   # always sum the node's samples into a histogram of ranks
                      # (of all the feature's values when they are few)
    SPLIT_RANDOM = 3  # no sweep: one threshold drawn uniformly between the
                      # node's least and largest value (extremely randomized
                      # trees); categorical features still take their sweep


# A category's bin and the key that orders it in a subset sweep.
cdef struct KeyedBin:
    double key
    intp_t index              # its position among the node's categories, by rank


@cython.final
cdef class Splitter:
    cdef Criterion criterion
    cdef const uint32_t* ranks        # (n_features, n_samples) dense value ranks
    cdef const uint8_t* narrow_ranks  # the same in bytes, for features of <= 256 values
    cdef const float* values          # each feature's distinct sorted values, concatenated
    cdef const intp_t* value_offsets  # feature f's values start at value_offsets[f]
    # SPLIT_RANDOM only: the values themselves, (n_features, n_samples)
    # float32, missing ones as +inf. A random split compares values with its
    # drawn threshold: reading ranks instead would need each threshold's
    # rank, a search that misses the cache at every probe.
    cdef const float* columns
    # SPLIT_RANDOM, dense X only: the same values row by row, (n_samples,
    # n_features) float32, missing ones NaN, or NULL. A small node reads its
    # drawn features from its rows: the first feature brings each row's
    # cache lines in and the next ones find them there, where reading the
    # columns would miss the cache once per feature and sample.
    cdef const float* rows
    cdef intp_t row_node_limit        # nodes of at most this many samples read rows
    cdef float* value_buffers         # the two buffers below, in one allocation
    cdef float* node_values           # the node's values of the feature being drawn
    cdef float* best_node_values      # those of the best random split so far (swapped in)
    cdef intp_t n_samples             # rows of the training matrix
    cdef intp_t n_features
    cdef intp_t max_features          # features to evaluate per node
    cdef intp_t min_samples_leaf
    cdef double min_weight_leaf
    cdef uint64_t rng_state
    cdef SplitMethod method
    cdef intp_t* features             # a permutation; known constant features first
    cdef uint32_t* node_ranks         # the node's ranks of the feature being swept
    cdef uint8_t* goes_left           # 1 for the node positions the best split sends left
    cdef char* partition_spare        # n_samples items of the criterion's largest_item bytes
    cdef uint64_t* items              # sort buffer, n_samples items
    cdef uint64_t* scratch            # second sort buffer for the radix passes
    cdef Histogram histogram          # bins of the feature being swept by counting
    cdef uint32_t* missing_ranks      # per feature, the rank of its missing values,
                                      # or NO_MISSING
    # Categorical features (subset splits over their ranks, which are codes).
    cdef const intp_t* n_categories   # per feature, its number of codes; 0 if numeric
    cdef bint any_categorical         # some feature is categorical
    cdef intp_t* category_bin         # the node's known categories: their bins,
    cdef uint32_t* category_rank      # and ranks, ascending
    cdef KeyedBin* category_order     # one ordering of them
    cdef intp_t* ordering_slots       # the criterion's category_orderings
    # The node's categories' bins, sparsely (the missing values are one
    # more category, after the known ones): each one's weight, sample count
    # and non-zero statistics (for classification, the classes it holds),
    # and each statistic's known categories. Category j's statistics are
    # entry_stat[entry_start[j]:entry_start[j + 1]], ascending, their values
    # in entry_value; statistic s's categories stat_category[stat_start[s]:
    # stat_start[s + 1]], ascending, their values in stat_value.
    cdef double* category_weight
    cdef intp_t* category_count
    cdef intp_t* entry_start
    cdef intp_t* entry_stat
    cdef double* entry_value
    cdef intp_t* stat_start
    cdef intp_t* stat_category
    cdef double* stat_value
    cdef intp_t entry_capacity        # entries allocated in the four arrays above
    cdef KeyedBin* keyed              # an ordering's categories of non-zero key
    cdef uint8_t* category_keyed      # which categories those are; all zeros between orderings
    # Whether the subset sweeps take their shortcuts (move_stats_left, the
    # orderings' sparse sorts, proxy_bound); tests turn them off to check
    # that they find the same splits, bit for bit.
    cdef bint subset_shortcuts
    cdef bint sparse_moves            # and the criterion moves sparse bins
    # What the subset sweeps did since find_split cleared them (for tests):
    # the statistics they moved and the candidates whose proxy they computed.
    cdef intp_t n_stats_moved
    cdef intp_t n_proxies
    cdef uint32_t* best_left_ranks    # the best subset split's categories going left,
    cdef intp_t n_best_left
    cdef uint32_t* best_present_ranks # and the categories its node holds
    cdef intp_t n_best_present
    cdef uint8_t* rank_goes_left      # partition table by rank; all zeros between splits
    cdef uint32_t* category_set       # the set written for the builders (_tree.pxd layout)
    # Features whose common value fills most rows (sparse columns): per
    # feature the common value's rank (NO_COMMON without one), and per row
    # the features in which it does not hold it (rank_features' rare rows).
    # A node either indexes its rows by those features once
    # (index_rare_rows: O(features + the node's rare entries)) or, when few
    # features are drawn, looks up each drawn feature's rare rows in a map
    # of the node's samples (list_rare_rows: O(that feature's rare rows));
    # either way a feature's bins are summed from its rare rows in the node.
    cdef const uint32_t* common_rank
    cdef const intp_t* rare_feature_offsets
    cdef const uint32_t* rare_features
    cdef const uint32_t* rare_feature_ranks  # the rank of every rare_features entry
    cdef const intp_t* rare_offsets
    cdef const uint32_t* rare_rows
    cdef const uint32_t* rare_ranks   # the rank of every rare_rows entry
    cdef double rare_per_row          # rare entries per training row, on average
    cdef double rare_per_feature      # and per feature that has a common value
    cdef intp_t* node_rare_start      # per feature, where its node positions start in
                                      # node_rare_positions (n_features + 1 entries)
    cdef intp_t* node_rare_fill       # placement cursors of the same length
    cdef uint32_t* node_rare_positions
    cdef uint32_t* node_rare_ranks    # their ranks, aligned with them
    cdef uint32_t* sample_position    # the node position of every sample of the
                                      # current node (stale entries for the others)
    cdef uint32_t* listed_positions   # list_rare_rows' result
    cdef uint32_t* listed_ranks       # and its ranks
    # Monotonic constraints: per feature -1 (decreasing), 0 or 1
    # (increasing), or NULL for none; a constrained feature's split must
    # keep both children's values within [lower_bound, upper_bound], the
    # current node's bounds (set by the builders), and ordered as asked.
    cdef const int8_t* monotonic_cst
    cdef public double lower_bound
    cdef public double upper_bound
    cdef object _keep_alive

    # Finds the best split of samples[start:end], the criterion's current
    # node, and partitions that range (with the criterion's positions) so
    # that the left child comes first, writing the children's criterion
    # states to left_state and right_state. features[0:n_known_constants]
    # are known to be constant in this node. Returns -1 when out of memory,
    # else 0.
    cdef int split_node(self, uint32_t* samples, intp_t start, intp_t end,
                        intp_t n_known_constants, SplitRecord* best,
                        double* left_state, double* right_state) noexcept nogil
    # Moves the node positions goes_left marks before the others, in order,
    # with the samples and every array the criterion keeps by position
    # (_utils.stable_partition), and writes the children's states.
    cdef void partition(self, uint32_t* samples, intp_t start, intp_t end,
                        double* left_state, double* right_state) noexcept nogil
    # The feature's ranks at the node's positions, read from the narrow
    # (one-byte) ranks when the feature has few values.
    cdef BinSource feature_ranks_at(self, intp_t feature,
                                    const uint32_t* node_samples) noexcept nogil
    # How split_node reaches the node's rare rows: RARE_INDEXED, after
    # index_rare_rows, or RARE_LISTED, with sample_position mapping the
    # node; the cheaper for the node's size.
    cdef int rare_access(self, const uint32_t* node_samples, intp_t n_node) noexcept nogil
    # Buckets the node's positions by the features in which their rows do
    # not hold the common value (node_rare_start, node_rare_positions and
    # their ranks, node_rare_ranks).
    cdef void index_rare_rows(self, const uint32_t* node_samples,
                              intp_t n_node) noexcept nogil
    # Writes to listed_positions the node positions of the feature's rare
    # rows that lie in the node (sample_position mapping it), and their
    # ranks to listed_ranks; returns their number.
    cdef intp_t list_rare_rows(self, intp_t feature, const uint32_t* node_samples,
                               intp_t n_node) noexcept nogil
    # Which sweep a feature takes: a histogram over all n_distinct values of
    # the feature, filled straight from the samples, or over the rank_span
    # ranks the node holds (found by a first pass), or a sort.
    cdef bint counts_all_values(self, intp_t n_distinct, intp_t n_node) noexcept nogil
    cdef bint counts_node_values(self, uint32_t rank_span, intp_t n_node) noexcept nogil
    # Sorts node_ranks[0:n_node] (the least being min_rank, the largest
    # min_rank + rank_span - 1) and sweeps them, offering every threshold to
    # best: with the node's missing values (the largest rank, if the feature
    # has them) right, then left.
    cdef void sweep_sorted(self, const uint32_t* node_samples, intp_t n_node,
                           intp_t feature, uint32_t min_rank, uint32_t rank_span,
                           BestCandidate* best) noexcept nogil
    # sweep_sorted for a feature with a common value whose n_rare rare
    # positions in the node (exact sums) are few: sorts those alone and
    # moves the common value's rows as one bin, the node's totals minus the
    # rare rows'. Returns 1 when swept, 0 when the node has missing values
    # of the feature (sweep_sorted then takes it), -1 when out of memory.
    cdef int sweep_rare_sorted(self, const uint32_t* node_samples, intp_t n_node,
                               intp_t feature, const uint32_t* rare_positions,
                               const uint32_t* rare_ranks, intp_t n_rare,
                               BestCandidate* best) noexcept nogil
    # Moves the groups of equal ranks of sorted_items[0:n_sorted] left one by
    # one (n_moved samples are left already), offering the threshold after
    # each but the last.
    cdef void sweep_groups(self, const uint64_t* sorted_items, intp_t n_sorted,
                           intp_t n_moved, intp_t n_node, intp_t feature, uint32_t min_rank,
                           uint32_t rank_span, bint has_missing, bint missing_left,
                           BestCandidate* best) noexcept nogil
    # Sweeps the histogram's bins first_bin..last_bin (bin b holds rank
    # b + first_rank; the last one is not empty), offering every threshold to
    # best: with the node's missing values (the last bin, if they are there)
    # right, then left.
    cdef void sweep_bins(self, intp_t n_node, intp_t feature, intp_t first_bin,
                         intp_t last_bin, uint32_t first_rank,
                         BestCandidate* best) noexcept nogil
    # Moves bins first_bin..end_bin - 1 left one by one (n_moved samples are
    # left already), offering the threshold after each.
    cdef void sweep_bin_range(self, intp_t n_node, intp_t feature, intp_t first_bin,
                              intp_t end_bin, intp_t last_bin, uint32_t first_rank,
                              intp_t n_moved, bint has_missing, bint missing_left,
                              BestCandidate* best) noexcept nogil
    # SPLIT_RANDOM's one candidate of a numeric feature: a threshold drawn
    # uniformly between the node's least and largest known value, missing
    # values sent to a side drawn at random (or, for a node of one known
    # value, the known values left and the missing ones right), offered to
    # best. Returns -1 when out of memory, 0 when the feature is constant in
    # the node, else 1.
    cdef int draw_split(self, const uint32_t* node_samples, intp_t n_node, intp_t feature,
                        BestCandidate* best) noexcept nogil
    # draw_split's steps: a threshold (and a side for missing values) drawn
    # for a node's extremes, and a draw scored on self.node_values and
    # offered to best (-1 when out of memory, else 1).
    cdef RandomDraw draw_threshold(self, float min_value, float max_value,
                                   bint has_missing) noexcept nogil
    cdef int offer_draw(self, intp_t n_node, intp_t feature, RandomDraw draw,
                        BestCandidate* best) noexcept nogil
    # For a node of two samples: whether they differ in a numeric feature (a
    # missing value differs from a known one), and if so the feature's draw.
    # Every such draw separates the two samples alike.
    cdef bint draw_pair(self, const uint32_t* node_samples, intp_t feature,
                        RandomDraw* draw) noexcept nogil
    # A sample's value of a feature, missing as +inf.
    cdef float sample_value(self, uint32_t sample, intp_t feature) noexcept nogil
    # The subset sweeps of a categorical feature: every ordering's prefixes
    # (and each category alone, when the criterion asks), with missing values
    # right, then left. Returns -1 when out of memory, 0 when the feature is
    # constant in the node, else 1.
    cdef int sweep_categories(self, const uint32_t* node_samples, intp_t n_node,
                              intp_t feature, BestCandidate* best) noexcept nogil
    # Marks in goes_left the node positions the best subset split sends left;
    # returns their number.
    cdef intp_t subset_goes_left(self, BinSource source, intp_t n_node, intp_t feature,
                                 bint missing_left) noexcept nogil
    # Lists the non-zero statistics of the bins of categories 0 .. n_listed - 1
    # and each statistic's categories below n_present (entry_start and the
    # rest). Returns -1 when out of memory.
    cdef int list_category_stats(self, intp_t n_present, intp_t n_listed) noexcept nogil
    # Sorts the node's known categories by one ordering's keys into category_order.
    cdef void order_categories(self, intp_t n_present, intp_t slot) noexcept nogil
    # Moves category j's bin into the criterion's left child; returns its
    # sample count.
    cdef intp_t move_category_left(self, intp_t j) noexcept nogil
    # Makes the criterion's left child the node's missing values (category
    # missing) if missing_left, else empty; returns its sample count.
    cdef intp_t start_subset(self, intp_t missing, bint missing_left) noexcept nogil
    # offer for the subset sweeps: passes over the candidates whose proxy
    # bound cannot beat best, when the criterion has one.
    cdef int offer_subset(self, BestCandidate* best, intp_t n_left, intp_t n_node,
                          intp_t feature) noexcept nogil
    # Notes that best is now a subset split: its categories going left (the
    # first n_left of category_order, or the one category single), those of
    # the node, and where its missing values are.
    cdef void keep_categories(self, BestCandidate* best, intp_t n_present, intp_t n_left,
                              intp_t single, bint has_missing,
                              bint missing_left) noexcept nogil
    # Writes category_set for the best subset split of feature.
    cdef void write_category_set(self, intp_t feature, bint missing_left) noexcept nogil
    # The rank of the feature's missing values (its last: NaN is ranked as
    # +inf), or NO_MISSING when it has none.
    cdef uint32_t missing_rank(self, intp_t feature) noexcept nogil
    # Scores the criterion's current left/right children as a split of
    # feature; returns STOP when no later position of the sweep can be valid.
    cdef int offer(self, BestCandidate* best, intp_t n_left, intp_t n_node,
                   intp_t feature, uint32_t left_rank) noexcept nogil
