# The fitted tree: a flat node store and the builders that fill it.

from libc.stdint cimport int32_t, int64_t, uint8_t, uint32_t, uint64_t
from libc.string cimport memcpy

from ._splitter cimport Splitter
from ._utils cimport intp_t


# What prediction reads, 16 bytes so that a node fits in a quarter cache line.
# The statistics of a node live in parallel arrays beside it (NodeStore).
cdef struct Node:
    int32_t left_child      # index of the left child, -1 at a leaf
    int32_t right_child     # index of the right child, -1 at a leaf
    int32_t feature         # feature tested, -2 at a leaf
    float threshold         # x <= threshold goes left; at a category-subset
                            # node, the bits of the int32 start of its set in
                            # the tree's category_bits (node_side)


# A node's flags, one byte per node in an array beside the nodes: what kind
# of test it makes (bits 0-1) and where missing values go (bit 2). Missing
# values are NaN, and at a category-subset node any value that is not one of
# the set's codes (a category never seen in training).
cdef enum:
    KIND_LEAF = 0
    KIND_THRESHOLD = 1   # x <= threshold goes left
    KIND_SUBSET = 2      # x (a category code) in the node's set goes left
    KIND_MULTIWAY = 3    # one child per category (C4.5); left_child and right_child
                         # are its first and last children, its threshold field
                         # holds the start of its branch table in category_bits
    KIND_MASK = 3
    MISSING_LEFT = 4     # missing values go left, else right
    MISSING_SEEN = 8     # the node had missing values of its feature in training
                         # (else their direction is the heavier child's)

# A tree's category sets live in one uint32 array, category_bits: a set
# starting at side holds its number of codes n at category_bits[side], then
# ceil(n / 32) words of bits, bit (code % 32) of word code // 32 set when
# the code goes left. Codes of the feature absent at the node in training
# take the missing values' direction.
#
# The branch table of a multiway node lives in the same array: at side, the
# number of codes n, the number of children m, the position (0 .. m - 1) of
# the child missing values go to, the m children's node indices, then per
# code the position of its child, or NO_BRANCH for a code absent at the node
# (it goes with the missing values).
cdef enum:
    NO_BRANCH = 0xFFFFFFFF


cdef inline int32_t node_side(float threshold) noexcept nogil:
    # The int32 stored in a threshold field's bits (not a conversion).
    cdef int32_t side
    memcpy(&side, &threshold, sizeof(int32_t))
    return side


cdef inline float side_as_threshold(int32_t side) noexcept nogil:
    cdef float threshold
    memcpy(&threshold, &side, sizeof(int32_t))
    return threshold


cdef inline intp_t category_words(uint32_t n_codes) noexcept nogil:
    # Words of a set of n_codes codes, its length word included.
    return 1 + (n_codes + 31) // 32


cdef inline intp_t branch_words(const uint32_t* table) noexcept nogil:
    # Words of a multiway node's branch table.
    return 3 + <intp_t> table[1] + <intp_t> table[0]


cdef inline uint32_t branch_of(float value, const uint32_t* table) noexcept nogil:
    # The child (its node index) a value takes at a multiway node.
    cdef uint32_t code, position
    position = table[2]
    if value >= 0.0 and value < <float> table[0]:
        code = <uint32_t> value
        if <float> code == value and table[3 + table[1] + code] != NO_BRANCH:
            position = table[3 + table[1] + code]
    return table[3 + position]


cdef inline bint value_goes_left(float value, uint8_t flags, float threshold,
                                 const uint32_t* category_bits) noexcept nogil:
    # Whether a row whose tested value is value goes left at an inner node.
    cdef const uint32_t* category_set
    cdef uint32_t code
    if value != value:
        return (flags & MISSING_LEFT) != 0
    if (flags & KIND_MASK) == KIND_THRESHOLD:
        return value <= threshold
    category_set = category_bits + node_side(threshold)
    if not (value >= 0.0 and value < <float> category_set[0]):
        return (flags & MISSING_LEFT) != 0
    code = <uint32_t> value
    if <float> code != value:
        return (flags & MISSING_LEFT) != 0
    return (category_set[1 + (code >> 5)] >> (code & 31)) & 1


# A growable node store written by the builders without the GIL.
cdef struct NodeStore:
    Node* nodes
    uint8_t* flags                    # kind and missing direction of every node
    uint32_t* category_bits           # the category sets of the subset nodes
    intp_t bits_count                 # words of category_bits written
    intp_t bits_capacity              # words allocated
    double* impurity                  # impurity of every node
    int64_t* n_node_samples           # training rows that reached every node
    double* weighted_n_node_samples   # their total weight
    # A node's value (class fractions or mean), either dense or sparse: a
    # deep node holds few of many classes, and its non-zero fractions cost
    # what it holds, not n_values.
    bint sparse_values
    double* value                     # dense: n_values per node; NULL when sparse
    int64_t* value_offsets            # sparse: node i's entries are
                                      # [value_offsets[i], value_offsets[i + 1])
    int32_t* value_index              # sparse: the value index of every entry
    double* value_data                # sparse: its value (never 0)
    intp_t value_count                # sparse: entries written
    intp_t value_capacity             # sparse: entries allocated
    intp_t n_values
    intp_t node_count
    intp_t capacity
    intp_t max_depth                  # deepest node, the root at depth 0
