# Rows to predict as the walks read them: float32 rows walked where they lie,
# or copied a chunk at a time from any other layout, precision or sparse rows.

from libc.stdint cimport int32_t

from ._utils cimport intp_t

cdef enum:
    # Rows walked together, each with its own node, in lockstep: the rows of
    # one interleaved block.
    ROW_BLOCK = 8
    # Rows checked for NaN and infinity at a time and then walked while they
    # are in cache (find_leaves); a chunk copied row by row holds at most
    # this many.
    CHECKED_ROWS = 256


# Rows of any 2-D float32 or float64 array, in any order or strides, as the
# walks read them: C-contiguous float32 rows are walked where they lie; any
# other rows are copied block by block into blocks of ROW_BLOCK rows whose
# values are interleaved (feature by feature, the block's rows side by side;
# the rows of a block find a feature's values in one cache line), converted
# to float32 as fit converts X.
cdef struct RowSource:
    const char* data         # the first row's first value
    intp_t n_rows            # rows of the source
    intp_t n_features        # values of every row
    intp_t row_stride        # bytes from a row to the next (may be negative)
    intp_t feature_stride    # bytes from a value to the next feature's
    bint is_double           # float64 values, else float32
    bint in_place            # C-contiguous float32: walked without a copy
    # Sparse rows (scipy CSR): the entries of the matrix's row r are
    # csr_indptr[r] .. csr_indptr[r + 1] - 1 in csr_indices (columns) and
    # data (values); the other values are zeros.
    const intp_t* csr_indptr    # NULL for dense rows
    const int32_t* csr_indices  # the column of every entry
    intp_t first_row            # row i of the source is row first_row + i of the matrix


# 1 if any of the values is NaN or infinite, else 0. Rows must be checked
# before the fast walk takes them: a NaN would step off a leaf.
cdef int any_non_finite(const float* values, intp_t n_values) noexcept nogil

# 1 if any of the values is infinite, else 0 (NaN is a missing value, but
# infinity is refused, as in fit).
cdef int any_infinite(const float* values, intp_t n_values) noexcept nogil

# The floats that n_rows rows fill in blocks of ROW_BLOCK rows (the last
# block padded).
cdef inline intp_t block_values(intp_t n_rows, intp_t n_features) noexcept nogil:
    return (n_rows + ROW_BLOCK - 1) // ROW_BLOCK * ROW_BLOCK * n_features

# A ROW_BLOCK-row copy of n_rows (< ROW_BLOCK) rows, padded with zeros, for
# walk_block; the caller frees it. NULL if memory ran out.
cdef float* padded_block(const float* X, intp_t n_rows, intp_t n_features) noexcept nogil

# Fills source from X (a 2-D float32 or float64 ndarray, or a CSR matrix
# with intp indptr, int32 indices and float32 or float64 data) or raises.
cdef int row_source(object X, RowSource* source) except -1

# Copies rows [first_row, first_row + n_rows) of source into interleaved
# blocks, padding the last block with zeros; blocks holds
# ceil(n_rows / ROW_BLOCK) * ROW_BLOCK * n_features floats. Sparse rows
# are written into blocks of zeros (only their stored values), to be
# cleared by clear_csr_rows once walked. Returns 1 if a copied value is
# NaN or infinite in float32, else 0.
cdef int interleave_source(const RowSource* source, intp_t first_row, intp_t n_rows,
                           float* blocks) noexcept nogil

# Copies rows [first_row, first_row + n_rows) of source as row-major float32
# rows (or interleaved blocks), sparse rows into a buffer of zeros (see
# interleave_source). Returns 1 if a copied value is NaN or infinite in
# float32, else 0.
cdef int copy_source_rows(const RowSource* source, intp_t first_row, intp_t n_rows,
                          float* out, bint interleaved) noexcept nogil

# Zeros again where sparse rows [first_row, first_row + n_rows) of source
# were written (interleaved or row-major), so the buffer can take the next.
cdef int clear_csr_rows(const RowSource* source, intp_t first_row, intp_t n_rows,
                        float* out, bint interleaved) noexcept nogil

# Whether a source that is not walked in place is copied as row-major rows
# (copy_source_rows), else as interleaved blocks (interleave_source).
cdef inline bint copies_rows(const RowSource* source) noexcept nogil:
    # Rows whose values lie side by side (C order, float64 or a row slice)
    # are copied row by row, and so are sparse rows; others (Fortran order,
    # column slices) are interleaved, which reads each column in runs.
    return source.csr_indptr != NULL or source.feature_stride == (
        sizeof(double) if source.is_double else sizeof(float))

# Rows of a source copied at a time: a multiple of ROW_BLOCK.
cdef intp_t copy_chunk_rows(const RowSource* source) noexcept nogil

# The buffer (zeroed) a source's chunks are copied into, allocated once per
# call of a kernel, for the caller to free; NULL for rows walked in place or
# no rows. Raises MemoryError if memory ran out.
cdef float* checked_copy_buffer(const RowSource* source) except? NULL
