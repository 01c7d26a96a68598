# Quantile regression forests: what the training rows that share a row's
# leaves say about its target. Each tree's leaf keeps a list of the ranks of
# its training targets (ascending), and a row's distribution is the merge of
# its leaves' lists, each tree weighing 1 in all (Meinshausen, 2006).

from libc.stdint cimport int64_t, uint32_t

from ._utils cimport intp_t


# The leaf lists of a forest, every tree's leaves numbered one after another
# as the forest's prediction layout numbers them.
cdef struct LeafLists:
    const int64_t* starts         # leaf l's entries are entries[starts[l]:starts[l + 1]]
    const uint32_t* entries       # ranks into targets, ascending within each leaf
    const double* targets         # the training targets of one output, ascending
    const double* rank_weights    # each rank's weight, or NULL: every entry weighs 1
    intp_t n_leaves               # leaves of all trees
    bint tree_weighted            # each tree weighs 1, shared among its leaf's entries
                                  # (Meinshausen); else each entry weighs its rank's weight


# How a quantile between two entries' positions is read (see forest_quantiles).
cdef enum Interpolation:
    LINEAR = 0                    # along the line between the two values
    LOWER = 1                     # the lower entry's value
    HIGHER = 2                    # the higher entry's value
    MIDPOINT = 3                  # the mean of the two
    NEAREST = 4                   # the value of the entry nearer in position (ties: lower)


# The kinds of quantile rank (see forest_quantile_ranks).
cdef enum RankKind:
    RANK_WEAK = 0                 # weight of the values <= y
    RANK_STRICT = 1               # weight of the values < y
    RANK_MEAN = 2                 # mean of the two
    RANK = 3                      # mean, plus half the mean weight of the values == y
