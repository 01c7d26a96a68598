# The best split of one node: the splitter draws the candidate features,
# hands each to a strategy (a sorted or a counted sweep over value ranks,
# the subset sweeps of a categorical feature, a random threshold; a sparse
# feature's rows without its common value from _rare_rows), keeps the best
# candidate (_split_search.offer) and partitions the node.

cimport cython
from libc.stdint cimport int32_t, uint8_t, uint32_t, uint64_t

from ._criterion cimport Criterion
from ._node_histograms cimport NodeHistograms
from ._random_split cimport RandomSplits
from ._rare_rows cimport RareRows
from ._split_search cimport BestCandidate, SearchState
from ._sweep_subsets cimport SubsetSweep
from ._utils cimport intp_t


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


# How split_node sweeps a feature.
cpdef enum SplitMethod:
    SPLIT_AUTO = 0    # the cheapest for each node and feature
    SPLIT_SORT = 1    # always sort the node's samples by rank
    SPLIT_COUNT = 2   # always sum the node's samples into a histogram of ranks
                      # (of all the feature's values when they are few)
    SPLIT_RANDOM = 3  # no sweep: one threshold drawn uniformly between the
                      # node's least and largest value (extremely randomized
                      # trees); categorical features still take their sweep
    SPLIT_RANDOM_BINS = 4  # SPLIT_RANDOM on binned features: one boundary drawn
                           # among the node's bins (_random_split.draw_binned_split)


@cython.final
cdef class Splitter:
    cdef Criterion criterion
    # The matrix, the limits, the work buffers and the random stream that
    # the strategies read (_split_search.pxd); the builders set the node's
    # monotonic bounds in state.limits before each split_node.
    cdef SearchState state
    cdef intp_t max_features          # features to evaluate per node
    cdef SplitMethod method
    cdef intp_t* features             # a permutation; known constant features first
    cdef uint8_t* goes_left           # 1 for the node positions the best split sends left
    cdef char* partition_spare        # n_samples items of the criterion's largest_item bytes
    cdef const intp_t* n_categories   # per feature, its number of codes; 0 if numeric
    # The strategies besides the sorted and counted sweeps (which keep no
    # state of their own): None when the fit has no use for them.
    cdef SubsetSweep subsets          # categorical features' subset sweeps
    cdef RandomSplits random_splits   # SPLIT_RANDOM's drawn thresholds
    cdef RareRows rare_rows           # sparse features' rows without their common value
    # Histogram subtraction (_node_histograms): a right child's histograms
    # from its parent's and its left sibling's. Used when the sums are
    # exact and every node sweeps every feature (max_features covers them
    # all), so that a child finds its parent's and sibling's histograms.
    cdef bint subtracts_histograms
    cdef bint keeps_histograms        # this tree does (start_tree): grown depth-first
    cdef NodeHistograms node_histograms
    cdef intp_t kept_node             # the entry of the node being split, -1 for none
    cdef NodeHistograms* kept_store   # the store of that entry: this splitter's, or,
                                      # sweeping on a thread, the main splitter's
    # Interaction constraints: groups of features, a node allowing some of
    # them (at the root all); a node splits only on the features of the
    # groups it allows, and its children allow those of its groups that
    # hold its split feature. Sets of groups and of features are bits in
    # uint64 words, bit (i % 64) of word i // 64.
    cdef intp_t n_groups              # 0 when the fit has no constraints
    cdef intp_t group_words           # words of a set of groups; 0 without constraints
    cdef intp_t feature_words         # words of a set of features
    cdef uint64_t* groups_of_feature  # per feature, the groups that hold it
                                      # (n_features sets of group_words words)
    cdef uint64_t* features_of_group  # per group, its features (n_groups sets of
                                      # feature_words words)
    cdef uint64_t* allowed_features   # the current node's allowed features (work buffer)
    # The groups the node to split allows, which the builders set before
    # each split_node (like the monotonic bounds); NULL allows every feature.
    cdef const uint64_t* node_groups
    cdef object _keep_alive
    # Threads inside one node (set_threads): n_threads splitters of the fit,
    # this one first, each with its own criterion and work buffers, whose
    # criteria keep their positions in step with this one's. A node whose
    # samples times features to sweep reach thread_min_work sweeps its drawn
    # numeric features on
    # them, each from no best (feature_best), and split_node merges those
    # in draw order (merge_candidate); n_threads is 1 otherwise.
    cdef intp_t n_threads
    cdef intp_t thread_min_work
    cdef void** thread_splitters      # borrowed; _thread_splitters keeps them alive
    cdef object _thread_splitters
    cdef uint64_t node_serial         # counts the nodes searched on threads
    cdef uint64_t thread_node         # the node this splitter's criterion is set to
    cdef signed char* feature_status  # per feature: NOT_SWEPT, SWEEP_PENDING or
                                      # sweep_numeric's status at the current node
    cdef BestCandidate* feature_best  # per feature, its best candidate from no best
    cdef intp_t* batch                # features swept together
    cdef intp_t* draw_features        # the permutation, for the look-ahead draws
    cdef bint kept_stale              # the criterion's kept left child may not be the best's

    # The criteria of the other threads take the positions of samples
    # (Criterion.init_positions); the builders call it beside the main one's.
    cdef void init_thread_positions(self, const uint32_t* samples,
                                    intp_t n_samples) noexcept nogil
    # The numeric feature at draws position pick of a node searched on
    # threads: sweeps it (and the features the draws will reach next) on
    # the threads unless done, then merges its candidate into best as the
    # sequential loop would. Returns as sweep_numeric.
    cdef int threaded_numeric(self, const uint32_t* node_samples, intp_t start, intp_t end,
                              intp_t pick, intp_t first_unvisited, intp_t end_unvisited,
                              intp_t n_evaluated, int* rare_access,
                              BestCandidate* best) noexcept nogil

    # Forgets what an earlier tree's nodes left (kept histograms): the
    # builders call it before the root, saying whether they grow the tree
    # depth-first, the order histogram subtraction needs.
    cdef void start_tree(self, bint depth_first) noexcept nogil
    # Finds the best split of samples[start:end], the criterion's current
    # node, and partitions that range (with the criterion's positions) so
    # that the left child comes first, writing the children's criterion
    # states to left_state and right_state. features[0:n_known_constants]
    # are known to be constant in this node. Returns -1 when out of memory,
    # else 0.
    cdef int split_node(self, uint32_t* samples, intp_t start, intp_t end,
                        intp_t n_known_constants, SplitRecord* best,
                        double* left_state, double* right_state) noexcept nogil
    # Sets the interaction groups (the __cinit__ argument interaction_cst)
    # and returns the arrays that hold them, for the splitter to keep alive.
    cdef tuple _set_interaction_groups(self, object interaction_cst, intp_t n_features)
    # Writes to groups the groups the root allows: all of them.
    cdef void root_groups(self, uint64_t* groups) noexcept nogil
    # Writes to child_groups the groups the children of a split on feature
    # allow: those of parent_groups that hold the feature.
    cdef void child_groups(self, const uint64_t* parent_groups, intp_t feature,
                           uint64_t* child_groups) noexcept nogil
    # Orders features[first:] so that the features node_groups allows come
    # first, and returns the end of them (the end of the drawable range).
    cdef intp_t allowed_first(self, intp_t first) noexcept nogil
    # Moves the node positions goes_left marks before the others, in order,
    # with the samples and every array the criterion keeps by position
    # (_utils.stable_partition), and writes the children's states.
    cdef void partition(self, uint32_t* samples, intp_t start, intp_t end,
                        double* left_state, double* right_state) noexcept nogil
    # Writes the children's histograms for histogram subtraction
    # (_node_histograms.pxd) once the node of entry kept_node has split
    # [start, end) at middle into children of the given states. Leaves the
    # criterion at some node. Returns -1 when out of memory, else 0.
    cdef int keep_children_histograms(self, const uint32_t* samples, intp_t start,
                                      intp_t middle, intp_t end, const double* left_state,
                                      const double* right_state) noexcept nogil
    # The sweep of all n_distinct values of a numeric feature from the bins
    # the node's parent kept for it (sweep_filled_values).
    cdef int sweep_kept(self, double* stats, intp_t* counts, intp_t n_node, intp_t feature,
                        intp_t n_distinct, BestCandidate* best) noexcept nogil
    # The exact sweeps of a numeric feature at the node of node_samples
    # (rare_access: the node's way to its rare rows, _rare_rows.pxd),
    # offering their candidates to best. Returns -1 when out of memory, 0
    # when the feature is constant in the node, else 1.
    cdef int sweep_numeric(self, const uint32_t* node_samples, intp_t n_node, intp_t feature,
                           intp_t n_distinct, int* rare_access,
                           BestCandidate* best) noexcept nogil
    # Marks in goes_left the node positions a threshold split on ranks
    # sends left (ranks up to left_rank, and the missing values when
    # missing_left); returns their number.
    cdef intp_t mark_threshold_left(self, const uint32_t* node_samples, intp_t n_node,
                                    intp_t feature, uint32_t left_rank,
                                    bint missing_left) noexcept nogil
