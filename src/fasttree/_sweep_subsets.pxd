# The subset sweeps of a categorical feature: a node's statistics per
# category, then, for each of the criterion's orderings of the categories,
# every prefix of the order offered as the set going left (Breiman's
# ordering theorem for two classes and for regression; one ordering per
# class otherwise), and each category alone when the criterion asks, with
# the node's missing values right, then left.

cimport cython
from libc.stdint cimport uint8_t, uint32_t

from ._criterion cimport BinSource, Criterion
from ._split_search cimport BestCandidate, SearchState
from ._utils cimport intp_t


# A category's bin and the key that orders it in a subset sweep.
cdef struct KeyedBin:
    double key
    intp_t index              # its position among the node's categories, by rank


# Final: its methods are called directly, and inlined, not through a vtable.
@cython.final
cdef class SubsetSweep:
    cdef Criterion criterion
    cdef const intp_t* n_categories   # per feature, its number of codes; 0 if numeric
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
    # Whether the sweeps take their shortcuts (move_stats_left, the
    # orderings' sparse sorts, proxy_bound); tests turn them off to check
    # that they find the same splits, bit for bit.
    cdef bint shortcuts
    cdef bint sparse_moves            # and the criterion moves sparse bins
    # What the sweeps did since a test cleared them: the statistics they
    # moved and the candidates whose proxy they computed.
    cdef public intp_t n_stats_moved
    cdef public intp_t n_proxies
    cdef uint32_t* best_left_ranks    # the best subset split's categories going left,
    cdef intp_t n_best_left
    cdef uint32_t* best_present_ranks # and the categories its node holds
    cdef intp_t n_best_present
    cdef uint8_t* rank_goes_left      # partition table by rank; all zeros between splits
    cdef uint32_t* category_set       # the set written for the builders (_tree.pxd layout)
    cdef object _keep_alive

    # The sweeps of a categorical feature at the node of node_samples,
    # offering their candidates to best (a subset that wins is kept here:
    # best.is_subset). Returns -1 when out of memory, 0 when the feature is
    # constant in the node, else 1.
    cdef int sweep(self, SearchState* state, const uint32_t* node_samples, intp_t n_node,
                   intp_t feature, BestCandidate* best) noexcept nogil
    # Marks in goes_left the node positions (their ranks in source) the
    # best subset split sends left, the missing values (missing_rank) too
    # when missing_left; returns their number.
    cdef intp_t mark_left(self, BinSource source, intp_t n_node, uint32_t missing_rank,
                          bint missing_left, uint8_t* goes_left) noexcept nogil
    # The best subset split of feature as a category set (codes the node
    # did not hold go with the missing values), laid out as in _tree.pxd;
    # valid until the next sweep.
    cdef const uint32_t* category_set_of(self, SearchState* state, intp_t feature,
                                         bint missing_left) noexcept nogil

    # The sweeps' steps.
    # Lists the non-zero statistics of the bins of categories 0 .. n_listed - 1
    # and each statistic's categories below n_present (entry_start and the
    # rest). Returns -1 when out of memory.
    cdef int list_category_stats(self, SearchState* state, intp_t n_present,
                                 intp_t n_listed) noexcept nogil
    # Sorts the node's known categories by one ordering's keys into category_order.
    cdef void order_categories(self, SearchState* state, intp_t n_present,
                               intp_t slot) noexcept nogil
    # Moves category j's bin into the criterion's left child; returns its
    # sample count.
    cdef intp_t move_category_left(self, SearchState* state, intp_t j) noexcept nogil
    # Makes the criterion's left child the node's missing values (category
    # missing) if missing_left, else empty; returns its sample count.
    cdef intp_t start_subset(self, SearchState* state, intp_t missing,
                             bint missing_left) noexcept nogil
    # offer, passing over the candidates whose proxy bound cannot beat best,
    # when the criterion has one.
    cdef int offer_subset(self, SearchState* state, BestCandidate* best, intp_t n_left,
                          intp_t n_node, intp_t feature) noexcept nogil
    # Notes that best is now a subset split: its categories going left (the
    # first n_left of category_order, or the one category single), those of
    # the node, and where its missing values are.
    cdef void keep_categories(self, BestCandidate* best, intp_t n_present, intp_t n_left,
                              intp_t single, bint has_missing,
                              bint missing_left) noexcept nogil
