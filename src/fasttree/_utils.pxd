# Small helpers shared by the kernels: a random number generator that needs no
# GIL, and the one sort routine every splitter uses.

from libc.math cimport INFINITY, fabs, log
from libc.stdint cimport uint8_t, uint32_t, uint64_t

ctypedef Py_ssize_t intp_t

# Features of at most this many distinct values have their ranks in bytes
# too (rank_features' narrow_ranks), so that the passes over a node's
# samples read a quarter of the cache.
cdef enum:
    NARROW_RANKS = 256
# Binned features of at most this many bins have their bin codes in two
# bytes (fasttree._binning.bin_columns' short_ranks, max_bins > 255).
cdef enum:
    SHORT_RANKS = 65536

# A sort item packs a sample's feature rank into the high 32 bits and its
# position in the node into the low 32 bits, so that one integer sort orders a
# node's samples by value and, among equal values, in node order, whichever
# sort below runs.
cdef inline uint64_t pack_item(uint32_t rank, uint32_t position) noexcept nogil:
    return ((<uint64_t> rank) << 32) | position

cdef inline uint32_t item_rank(uint64_t item) noexcept nogil:
    return <uint32_t> (item >> 32)

cdef inline uint32_t item_position(uint64_t item) noexcept nogil:
    return <uint32_t> (item & 0xFFFFFFFFu)

# splitmix64: tiny state, good statistical quality, and trivially seedable.
# Inline: the splitters draw once per feature and node.
cdef inline uint64_t rng_next(uint64_t* state) noexcept nogil:
    state[0] += 0x9E3779B97F4A7C15u
    cdef uint64_t z = state[0]
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu
    return z ^ (z >> 31)

# Uniform integer in [0, n) for 1 <= n < 2**32: floor(draw * n / 2**64),
# the high half of a product (two 32-bit multiplications) rather than a
# division, which costs tens of cycles at every feature drawn. Each value
# has floor or ceil of 2**64 / n draws: a bias below n / 2**64.
cdef inline intp_t rng_below(uint64_t* state, intp_t n) noexcept nogil:
    cdef uint64_t draw = rng_next(state)
    cdef uint64_t count = <uint64_t> n
    return <intp_t> (((draw >> 32) * count + (((draw & 0xFFFFFFFFu) * count) >> 32)) >> 32)

# Sorts items by rank (the high halves), rank_bits being the number of
# significant bits of the largest. Items of equal rank either keep their
# incoming order (counting and radix sorts) or come out ascending (comparison
# sorts of small inputs): the same order when their low halves ascend, as
# positions do. scratch must hold n items. Returns the buffer that
# holds the sorted items: either items or scratch.
cdef uint64_t* sort_items(uint64_t* items, uint64_t* scratch, intp_t n,
                          int rank_bits) noexcept nogil

# Moves the items whose goes_left[i] is set before the others, keeping the
# order within each side (a stable partition): n items of item_size bytes,
# with spare room for n of them. Returns how many went left. The splitter
# moves the samples of a node and every array its criterion keeps by
# position with it, one array after another.
cdef intp_t stable_partition(char* items, char* spare, size_t item_size, intp_t n,
                             const uint8_t* goes_left) noexcept nogil

# Two splits whose proxies differ by less than 2**-40 (about 1e-12) of the
# best one's magnitude (plus the criterion's proxy_scale) tie. The same split
# scored in another order (rows summed in another order, a weight of 2 for
# a repeated row, weights scaled by a constant) differs in its last bits,
# and an exact comparison would let that rounding choose between splits
# of equal worth. Ties go to the lowest feature, then to the candidate the
# feature's sweep met first, whatever order the features are drawn in.
cdef inline double tie_margin(double best_proxy, double scale) noexcept nogil:
    """The rounding beats_best allows around a best of proxy best_proxy."""
    return (fabs(best_proxy) + scale) * 9.094947017729282e-13  # 2**-40


cdef inline bint beats_best(double proxy, intp_t feature, double best_proxy,
                            intp_t best_feature, double scale) noexcept nogil:
    """Whether a candidate split (its proxy, its feature) replaces the best
    so far: better by more than rounding, or a tie on a lower feature."""
    cdef double margin
    if best_proxy == -INFINITY:
        return proxy > best_proxy
    margin = tie_margin(best_proxy, scale)
    return proxy > best_proxy + margin or (proxy >= best_proxy - margin
                                           and feature < best_feature)

# The magnitude of terms t log(t / w) (and w log w) summed to a total t over
# a weight w: the scale of an entropy's or a Poisson deviance's proxy.
cdef inline double cancelling_scale(double total, double weight) noexcept nogil:
    if not total > 0.0 or not weight > 0.0:
        return 0.0
    return total * (1.0 + fabs(log(total / weight)) + fabs(log(weight)))

# Threshold between two consecutive distinct float32 values low < high. The
# exact midpoint can round up onto high; falling back to low keeps
# "x <= threshold" true for exactly the values <= low.
cdef inline float midpoint(float low, float high) noexcept nogil:
    cdef float middle = <float> ((<double> low + <double> high) * 0.5)
    # "not <" also catches the NaN midpoint of -inf and +inf.
    if not middle < high:
        return low
    return middle
