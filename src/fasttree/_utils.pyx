# cython: language_level=3
"""Random numbers and sorting for the nogil kernels; sparse rows of leaf values."""

from libc.stdint cimport int32_t, int64_t, uint8_t, uint16_t
from libc.math cimport INFINITY
from libc.string cimport memcpy, memset

from ._interrupt cimport Interrupt

from ._interrupt import current_interrupt, raise_interrupt

# Below this size a comparison sort beats the radix sort's fixed cost of
# clearing and scanning its digit histograms.
cdef enum:
    RADIX_MIN_ITEMS = 384
    INSERTION_MAX_ITEMS = 16
    DIGIT_BITS = 8
    DIGIT_VALUES = 256
    # A counting sort is taken for ranks of at most DIGIT_BITS bits when the
    # buckets number at most COUNTING_BUCKETS_PER_ITEM times the items. The
    # small nodes of binned features (spans of at most 256 bins) sort this
    # way from 32 samples: 8 rather than 2 fit hist forests 10-12% faster
    # (W2 and W3 shapes, one thread); 16 was no faster.
    COUNTING_BUCKETS_PER_ITEM = 8
    # The radix sort's digits: at most 3 of at most 11 bits (32-bit ranks).
    RADIX_MAX_DIGITS = 3
    RADIX_DIGIT_MAX_BITS = 11
    RADIX_DIGIT_MAX_VALUES = 1 << RADIX_DIGIT_MAX_BITS


cdef inline void swap_items(uint64_t* items, intp_t i, intp_t j) noexcept nogil:
    cdef uint64_t tmp = items[i]
    items[i] = items[j]
    items[j] = tmp


cdef void insertion_sort(uint64_t* items, intp_t n) noexcept nogil:
    cdef intp_t i, j
    cdef uint64_t current
    for i in range(1, n):
        current = items[i]
        j = i
        while j > 0 and items[j - 1] > current:
            items[j] = items[j - 1]
            j -= 1
        items[j] = current


cdef void sift_down(uint64_t* items, intp_t root, intp_t n) noexcept nogil:
    cdef intp_t child
    while True:
        child = 2 * root + 1
        if child >= n:
            return
        if child + 1 < n and items[child + 1] > items[child]:
            child += 1
        if items[root] >= items[child]:
            return
        swap_items(items, root, child)
        root = child


cdef void heap_sort(uint64_t* items, intp_t n) noexcept nogil:
    cdef intp_t i
    for i in range(n // 2 - 1, -1, -1):
        sift_down(items, i, n)
    for i in range(n - 1, 0, -1):
        swap_items(items, 0, i)
        sift_down(items, 0, i)


cdef void intro_sort(uint64_t* items, intp_t n, int depth_budget) noexcept nogil:
    # Items are distinct (each carries its own sample index), so a two-way
    # partition around a median of three never degenerates on repeated ranks.
    cdef intp_t low, high, middle
    cdef uint64_t pivot
    while n > INSERTION_MAX_ITEMS:
        if depth_budget == 0:
            heap_sort(items, n)
            return
        depth_budget -= 1
        middle = n // 2
        if items[middle] < items[0]:
            swap_items(items, middle, 0)
        if items[n - 1] < items[0]:
            swap_items(items, n - 1, 0)
        if items[n - 1] < items[middle]:
            swap_items(items, n - 1, middle)
        pivot = items[middle]
        low = 0
        high = n - 1
        while True:
            while items[low] < pivot:
                low += 1
            while items[high] > pivot:
                high -= 1
            if low >= high:
                break
            swap_items(items, low, high)
            low += 1
            high -= 1
        # Recurse on the smaller part so the stack stays logarithmic.
        if high + 1 < n - high - 1:
            intro_sort(items, high + 1, depth_budget)
            items = items + high + 1
            n = n - high - 1
        else:
            intro_sort(items + high + 1, n - high - 1, depth_budget)
            n = high + 1
    insertion_sort(items, n)


cdef uint64_t* radix_sort(uint64_t* items, uint64_t* scratch, intp_t n,
                          int rank_bits) noexcept nogil:
    # LSD radix sort on the rank half only: equal ranks keep their incoming
    # order, which is all the sweep needs. The digits split the rank bits
    # evenly, each of at most RADIX_DIGIT_MAX_BITS bits (fewer while the
    # items are too few to fill the buckets): a node's 17-bit ranks take two
    # passes of 9 bits rather than three of 8.
    cdef intp_t counts[RADIX_MAX_DIGITS * RADIX_DIGIT_MAX_VALUES]
    cdef int max_digit_bits = DIGIT_BITS
    cdef int n_digits, digit_bits, digit, shift
    cdef intp_t i, total, count, n_buckets
    cdef intp_t* digit_counts
    cdef uint64_t item, mask
    cdef uint64_t* source = items
    cdef uint64_t* target = scratch
    cdef uint64_t* swap_buffer
    while max_digit_bits < RADIX_DIGIT_MAX_BITS and (<intp_t> 1) << (max_digit_bits + 1) <= n:
        max_digit_bits += 1
    n_digits = (rank_bits + max_digit_bits - 1) // max_digit_bits
    if n_digits < 1:
        n_digits = 1
    if n_digits > RADIX_MAX_DIGITS:
        n_digits = RADIX_MAX_DIGITS
    digit_bits = (rank_bits + n_digits - 1) // n_digits
    if digit_bits > RADIX_DIGIT_MAX_BITS:
        digit_bits = RADIX_DIGIT_MAX_BITS
    n_buckets = (<intp_t> 1) << digit_bits
    mask = <uint64_t> (n_buckets - 1)
    memset(counts, 0, n_digits * n_buckets * sizeof(intp_t))
    for i in range(n):
        item = items[i]
        for digit in range(n_digits):
            counts[digit * n_buckets + ((item >> (32 + digit_bits * digit)) & mask)] += 1
    for digit in range(n_digits):
        shift = 32 + digit_bits * digit
        digit_counts = counts + digit * n_buckets
        # A digit shared by every item moves nothing.
        if digit_counts[(source[0] >> shift) & mask] == n:
            continue
        total = 0
        for i in range(n_buckets):
            count = digit_counts[i]
            digit_counts[i] = total
            total += count
        for i in range(n):
            item = source[i]
            target[digit_counts[(item >> shift) & mask]] = item
            digit_counts[(item >> shift) & mask] += 1
        swap_buffer = source
        source = target
        target = swap_buffer
    return source


cdef uint64_t* counting_sort(uint64_t* items, uint64_t* scratch, intp_t n,
                             int rank_bits) noexcept nogil:
    # One stable pass over 2**rank_bits buckets (at most DIGIT_VALUES).
    cdef intp_t counts[DIGIT_VALUES]
    cdef intp_t n_buckets = (<intp_t> 1) << rank_bits
    cdef intp_t i, total = 0, count
    cdef uint32_t rank
    memset(counts, 0, n_buckets * sizeof(intp_t))
    for i in range(n):
        counts[item_rank(items[i])] += 1
    for i in range(n_buckets):
        count = counts[i]
        counts[i] = total
        total += count
    for i in range(n):
        rank = item_rank(items[i])
        scratch[counts[rank]] = items[i]
        counts[rank] += 1
    return scratch


ctypedef fused word_t:
    uint32_t
    uint64_t


cdef inline intp_t partition_words(word_t* items, word_t* spare, intp_t n,
                                   const uint8_t* goes_left) noexcept nogil:
    # Every item is written to both sides and only its own side advances: no
    # branch to mispredict on every other item. Writing items[n_left] in
    # place is safe: n_left <= i, so no unread item is overwritten. Returns
    # n_left; the right side is in spare.
    cdef intp_t i, n_left = 0, n_right = 0
    cdef word_t item
    for i in range(n):
        item = items[i]
        items[n_left] = item
        spare[n_right] = item
        n_left += goes_left[i]
        n_right += 1 - goes_left[i]
    return n_left


cdef intp_t stable_partition(char* items, char* spare, size_t item_size, intp_t n,
                             const uint8_t* goes_left) noexcept nogil:
    cdef intp_t i, n_left = 0, n_right = 0
    if item_size == 4:
        n_left = partition_words(<uint32_t*> items, <uint32_t*> spare, n, goes_left)
        n_right = n - n_left
    elif item_size == 8:
        n_left = partition_words(<uint64_t*> items, <uint64_t*> spare, n, goes_left)
        n_right = n - n_left
    else:
        # Items of several outputs: one copy each, to its own side.
        for i in range(n):
            if goes_left[i]:
                if n_left != i:
                    memcpy(items + n_left * item_size, items + i * item_size, item_size)
                n_left += 1
            else:
                memcpy(spare + n_right * item_size, items + i * item_size, item_size)
                n_right += 1
    memcpy(items + n_left * item_size, spare, n_right * item_size)
    return n_left


cdef uint64_t* sort_items(uint64_t* items, uint64_t* scratch, intp_t n,
                          int rank_bits) noexcept nogil:
    cdef int depth_budget = 0
    cdef intp_t size = n
    # Few distinct ranks: counting them costs less than comparing items.
    if rank_bits <= DIGIT_BITS and (<intp_t> 1) << rank_bits <= COUNTING_BUCKETS_PER_ITEM * n \
            and n > INSERTION_MAX_ITEMS:
        return counting_sort(items, scratch, n, rank_bits)
    if n < RADIX_MIN_ITEMS:
        while size > 1:
            depth_budget += 2
            size >>= 1
        intro_sort(items, n, depth_budget)
        return items
    return radix_sort(items, scratch, n, rank_bits)


def partitioned_rows(const uint8_t[:, ::1] items not None,
                     const uint8_t[::1] goes_left not None):
    """Partition a copy of ``items`` with the kernel's stable partition (for
    tests): the rows whose ``goes_left`` is 1 first, each side in its order.

    Parameters
    ----------
    items : ndarray of uint8, shape (n, item_size)
        n items of item_size bytes each.
    goes_left : ndarray of uint8, shape (n,)
        1 for the items that go first, else 0.

    Returns
    -------
    (partitioned, n_left) : (ndarray of uint8 of the shape of items, int)
    """
    import numpy as np
    cdef intp_t i, n = items.shape[0], item_size = items.shape[1]
    cdef intp_t n_left
    if goes_left.shape[0] != n:
        raise ValueError(f"goes_left has {goes_left.shape[0]} entries for {n} items")
    for i in range(n):
        if goes_left[i] > 1:
            raise ValueError("goes_left holds 0 and 1 only")
    out = np.array(items, dtype=np.uint8, copy=True)
    spare = np.empty(max(1, n * item_size), dtype=np.uint8)
    cdef uint8_t[:, ::1] out_view = out
    cdef uint8_t[::1] spare_view = spare
    if n == 0:
        return out, 0
    with nogil:
        n_left = stable_partition(<char*> &out_view[0, 0], <char*> &spare_view[0],
                                  item_size, n, &goes_left[0])
    return out, n_left


def sorted_items(uint64_t[::1] items not None, int rank_bits):
    """Sort a copy of ``items`` with the kernel's sort (for tests).

    Parameters
    ----------
    items : ndarray of uint64
        Packed items: rank in the high 32 bits, sample in the low 32.
    rank_bits : int
        Significant bits of the largest rank.

    Returns
    -------
    ndarray of uint64
    """
    import numpy as np
    cdef uint64_t[::1] work = np.array(items, dtype=np.uint64, copy=True)
    cdef uint64_t[::1] scratch = np.empty(max(items.shape[0], 1), dtype=np.uint64)
    cdef uint64_t* result
    cdef intp_t n = items.shape[0]
    if n == 0:
        return np.asarray(work)
    with nogil:
        result = sort_items(&work[0], &scratch[0], n, rank_bits)
    return np.asarray(work if result == &work[0] else scratch[:n]).copy()


cdef inline uint32_t sortable_key(float value) noexcept nogil:
    # The float's bits as an unsigned integer that orders as the float does:
    # negative values have every bit flipped, others only the sign bit.
    # Adding +0.0 turns -0.0 into +0.0 (and changes nothing else), so that
    # the two zeros are one value.
    cdef float zero_free = value + 0.0
    cdef uint32_t bits = (<uint32_t*> &zero_free)[0]
    if bits & 0x80000000u:
        return ~bits
    return bits | 0x80000000u


cdef enum:
    # Integer columns spanning at most this many values (and no more than
    # a few per sample) are ranked through a table indexed by value.
    MAX_TABLE_SPAN = 65536
    TABLE_SPAN_PER_SAMPLE = 4


cdef bint rank_integer_column(const float* column, intp_t n_samples, uint32_t* ranks,
                              float* values, intp_t* n_values, int32_t* table,
                              intp_t table_size) noexcept nogil:
    """Ranks a column of whole numbers through a table of its value range: three
    passes, no sort. Returns False (writing nothing) when the column is not
    whole numbers or spans more than table_size values."""
    cdef intp_t i, value_index
    cdef float value, low = column[0], high = column[0]
    cdef int32_t rank = 0
    cdef int not_whole = 0
    for i in range(n_samples):
        value = column[i]
        low = value if value < low else low
        high = value if value > high else high
    # The range check first keeps the conversions below defined.
    if not (-1e9 <= low and high <= 1e9) or <double> high - <double> low >= table_size:
        return False
    # Converting to an integer and back keeps only whole numbers.
    for i in range(n_samples):
        not_whole |= <float> <int32_t> column[i] != column[i]
    if not_whole:
        return False
    for i in range(<intp_t> (high - low) + 1):
        table[i] = 0
    for i in range(n_samples):
        table[<int32_t> column[i] - <int32_t> low] = 1
    for value_index in range(<intp_t> (high - low) + 1):
        if table[value_index]:
            table[value_index] = rank
            # +0.0 for the value 0, whichever zero the column held.
            values[n_values[0]] = <float> (<int32_t> low + value_index)
            n_values[0] += 1
            rank += 1
    for i in range(n_samples):
        ranks[i] = <uint32_t> table[<int32_t> column[i] - <int32_t> low]
    return True


def dense_ranks(const float[:, ::1] columns not None, Interrupt interrupt=None):
    """Dense ranks of every feature's values.

    A column of whole numbers with a small range is ranked through a table
    indexed by value; any other is sorted by the kernels' radix sort on the
    bits of its values, as integers that order as the floats do
    (``sort_items`` over 32 bits, skipping the bytes every value shares).

    Parameters
    ----------
    columns : ndarray of float32, shape (n_features, n_samples)
        Finite values.

    Returns
    -------
    ranks : ndarray of uint32, shape (n_features, n_samples)
    values : ndarray of float32
        Each feature's distinct values, ascending, the features one after another.
    value_offsets : ndarray of intp, shape (n_features + 1,)
    narrow_ranks : ndarray of uint8, shape (n_features, n_samples)
        The ranks again, one byte each, for the features of at most 256
        values; the rows of the other features are zeros.

    ``interrupt`` (by default the thread's ``current_interrupt``) is polled
    before each feature; when it asks to stop, its error is raised.
    """
    import numpy as np
    cdef intp_t n_features = columns.shape[0]
    cdef intp_t n_samples = columns.shape[1]
    cdef intp_t table_size = min(<intp_t> MAX_TABLE_SPAN, TABLE_SPAN_PER_SAMPLE * n_samples)
    ranks = np.empty((n_features, n_samples), dtype=np.uint32)
    narrow_ranks = np.zeros((n_features, n_samples), dtype=np.uint8)
    cdef uint8_t[:, ::1] narrow_view = narrow_ranks
    values = np.empty(n_features * n_samples, dtype=np.float32)
    value_offsets = np.zeros(n_features + 1, dtype=np.intp)
    items_buffer = np.empty(max(n_samples, 1), dtype=np.uint64)
    scratch_buffer = np.empty(max(n_samples, 1), dtype=np.uint64)
    table_buffer = np.empty(max(table_size, 1), dtype=np.int32)
    cdef uint32_t[:, ::1] rank_view = ranks
    cdef float[::1] value_view = values
    cdef intp_t[::1] offset_view = value_offsets
    cdef uint64_t[::1] items_view = items_buffer
    cdef uint64_t[::1] scratch_view = scratch_buffer
    cdef int32_t[::1] table_view = table_buffer
    cdef uint64_t* items = &items_view[0]
    cdef intp_t feature, sample, n_values = 0
    if n_samples == 0:
        return ranks, values[:0].copy(), value_offsets, narrow_ranks
    if interrupt is None:
        interrupt = current_interrupt()
    cdef bint stopped = False
    with nogil:
        for feature in range(n_features):
            if interrupt.should_stop():
                stopped = True
                break
            offset_view[feature] = n_values
            if not rank_integer_column(&columns[feature, 0], n_samples,
                                       &rank_view[feature, 0], &value_view[0], &n_values,
                                       &table_view[0], table_size):
                rank_by_sorting(&columns[feature, 0], n_samples, &rank_view[feature, 0],
                                &value_view[0], &n_values, items, &scratch_view[0])
            if n_values - offset_view[feature] <= NARROW_RANKS:
                for sample in range(n_samples):
                    narrow_view[feature, sample] = <uint8_t> rank_view[feature, sample]
        offset_view[n_features] = n_values
    if stopped:
        raise_interrupt(interrupt)
    # Values of continuous columns fill most of the buffer: a view of it saves
    # a copy as large (the pages never written take no memory).
    if 2 * n_values >= n_features * n_samples:
        return ranks, values[:n_values], value_offsets, narrow_ranks
    return ranks, values[:n_values].copy(), value_offsets, narrow_ranks


cdef void rank_by_sorting(const float* column, intp_t n_samples, uint32_t* ranks,
                          float* values, intp_t* n_values, uint64_t* items,
                          uint64_t* scratch) noexcept nogil:
    """Ranks a column by the radix sort of its values' bits."""
    cdef intp_t position, sample
    cdef uint32_t rank = 0, key, previous_key = 0
    cdef uint64_t* sorted_items
    for sample in range(n_samples):
        items[sample] = pack_item(sortable_key(column[sample]), <uint32_t> sample)
    sorted_items = sort_items(items, scratch, n_samples, 32)
    for position in range(n_samples):
        key = item_rank(sorted_items[position])
        sample = item_position(sorted_items[position])
        if position == 0 or key != previous_key:
            if position > 0:
                rank += 1
            values[n_values[0]] = column[sample] + 0.0
            n_values[0] += 1
            previous_key = key
        ranks[sample] = rank



def feature_columns_float32(const float[:, :] X not None):
    """X's columns as rows, (n_features, n_samples) float32, NaN as +inf.

    X may be any view (a few columns of a larger matrix, say): it is read
    in place.

    Copies tiles of rows that stay in the first-level cache while every
    feature's stretch of them is written out in order (a plain transposed
    copy misses the cache at every read or every write).
    """
    import numpy as np
    cdef intp_t n_samples = X.shape[0], n_features = X.shape[1]
    columns = np.empty((n_features, n_samples), dtype=np.float32)
    cdef float[:, ::1] out = columns
    cdef intp_t tile = 64, tile_index, start, stop, row, feature
    cdef float value
    if n_samples == 0 or n_features == 0:
        return columns
    with nogil:
        for tile_index in range((n_samples + tile - 1) // tile):
            start = tile_index * tile
            stop = min(start + tile, n_samples)
            for feature in range(n_features):
                for row in range(start, stop):
                    value = X[row, feature]
                    out[feature, row] = value if value == value else INFINITY
    return columns


cdef tuple empty_sparse_rows(intp_t n_rows, intp_t count, intp_t n_columns):
    # (indptr, index, data) for n_rows sparse rows of count entries in all,
    # in the smallest dtypes that hold them (see sparse_rows).
    import numpy as np
    return (np.empty(n_rows + 1, dtype=np.int32 if count < 2**31 else np.int64),
            np.empty(count, dtype=np.uint16 if n_columns <= 2**16 else np.int32),
            np.empty(count, dtype=np.float64))


def sparse_rows(const double[:, ::1] values not None, const intp_t[::1] rows not None):
    """The non-zero entries of ``values[rows]``, row by row: (indptr, index, data).

    ``indptr`` is int32 (int64 past 2**31 entries), ``index`` uint16 (int32
    past 65,536 columns), ``data`` float64; a row's entries are in ascending
    column order. Two passes over the rows, no temporary of their size.
    """
    import numpy as np
    cdef intp_t n_rows = rows.shape[0]
    cdef intp_t n_columns = values.shape[1]
    cdef intp_t i, k, count = 0, entry = 0
    cdef const double* row
    with nogil:
        for i in range(n_rows):
            row = &values[rows[i], 0]
            for k in range(n_columns):
                count += row[k] != 0.0
    indptr, index, data = empty_sparse_rows(n_rows, count, n_columns)
    cdef double[::1] data_view = data
    cdef uint16_t[::1] narrow_index
    cdef int32_t[::1] wide_index
    offsets = np.empty(n_rows + 1, dtype=np.int64)
    cdef int64_t[::1] offset_view = offsets
    cdef bint narrow = index.dtype == np.uint16
    if narrow:
        narrow_index = index
    else:
        wide_index = index
    with nogil:
        offset_view[0] = 0
        for i in range(n_rows):
            row = &values[rows[i], 0]
            for k in range(n_columns):
                if row[k] != 0.0:
                    if narrow:
                        narrow_index[entry] = <uint16_t> k
                    else:
                        wide_index[entry] = <int32_t> k
                    data_view[entry] = row[k]
                    entry += 1
            offset_view[i + 1] = entry
    indptr[:] = offsets
    return indptr, index, data


def select_sparse_rows(const int64_t[::1] indptr not None, const int32_t[::1] index not None,
                       const double[::1] data not None, const intp_t[::1] rows not None,
                       intp_t n_columns):
    """The rows ``rows`` of sparse rows (indptr, index, data), in ``sparse_rows``'
    dtypes for a matrix of ``n_columns`` columns: (indptr, index, data).

    Every row number must be below ``indptr.shape[0] - 1``; the caller checks.
    """
    import numpy as np
    cdef intp_t n_rows = rows.shape[0]
    cdef intp_t i, entry, count = 0, position = 0
    for i in range(n_rows):
        count += indptr[rows[i] + 1] - indptr[rows[i]]
    new_indptr, new_index, new_data = empty_sparse_rows(n_rows, count, n_columns)
    cdef double[::1] data_view = new_data
    cdef uint16_t[::1] narrow_index
    cdef int32_t[::1] wide_index
    offsets = np.empty(n_rows + 1, dtype=np.int64)
    cdef int64_t[::1] offset_view = offsets
    cdef bint narrow = new_index.dtype == np.uint16
    if narrow:
        narrow_index = new_index
    else:
        wide_index = new_index
    with nogil:
        offset_view[0] = 0
        for i in range(n_rows):
            for entry in range(indptr[rows[i]], indptr[rows[i] + 1]):
                if narrow:
                    narrow_index[position] = <uint16_t> index[entry]
                else:
                    wide_index[position] = index[entry]
                data_view[position] = data[entry]
                position += 1
            offset_view[i + 1] = position
    new_indptr[:] = offsets
    return new_indptr, new_index, new_data


def split_beats(double proxy, intp_t feature, double best_proxy, intp_t best_feature,
                double scale):
    """``beats_best`` for Python callers: whether a split of proxy ``proxy``
    on ``feature`` replaces the best so far (ties within rounding go to the
    lower feature)."""
    return beats_best(proxy, feature, best_proxy, best_feature, scale)
