# cython: language_level=3
"""Rows to predict as the walks read them: ``CSRRows`` (sparse rows, never
densified), and ``RowSource``, which takes a 2-D float32 or float64 array in
any order or strides, or ``CSRRows``, to float32 rows: walked where they lie,
or copied chunk by chunk into row-major rows or interleaved blocks of
ROW_BLOCK rows."""

import numpy as np
cimport numpy as cnp

from libc.stdint cimport int32_t, uint32_t
from libc.stdlib cimport calloc
from libc.string cimport memcpy

cnp.import_array()


class CSRRows:
    """Rows of a sparse matrix as the prediction kernels walk them, without
    densifying: row i's values are ``data[indptr[i]:indptr[i + 1]]`` in the
    columns ``indices[...]`` (intp indptr, int32 indices, float32 or float64
    data). Checked once when made by ``_validation.csr_for_walk``; a slice of rows
    shares the arrays (its indptr is a view, not rebased to 0)."""

    format = "csr"

    def __init__(self, indptr, indices, data, n_features):
        self.indptr = indptr
        self.indices = indices
        self.data = data
        self.shape = (indptr.shape[0] - 1, n_features)

    def __getitem__(self, rows):
        start, stop, step = rows.indices(self.shape[0])
        if step != 1:
            raise IndexError("CSRRows takes slices of consecutive rows only")
        stop = max(start, stop)
        return CSRRows(self.indptr[start:stop + 1], self.indices, self.data, self.shape[1])

    def toarray(self):
        """The rows as a dense C-ordered array (of the data's dtype)."""
        out = np.zeros(self.shape, dtype=self.data.dtype)
        first, last = self.indptr[0], self.indptr[-1]
        rows = np.repeat(np.arange(self.shape[0]), np.diff(self.indptr))
        out[rows, self.indices[first:last]] = self.data[first:last]
        return out


cdef int any_non_finite(const float* values, intp_t n_values) noexcept nogil:
    # A float is NaN or infinite when its exponent bits are all ones; the OR
    # of plain integer tests vectorises.
    cdef const uint32_t* bits = <const uint32_t*> values
    cdef uint32_t exponent_all_ones = 0
    cdef intp_t i
    for i in range(n_values):
        exponent_all_ones |= (bits[i] & 0x7F800000u) == 0x7F800000u
    return exponent_all_ones != 0


def all_finite(const float[:, ::1] X not None):
    """True when no value of X is NaN or infinite (``any_non_finite``: no
    temporary array)."""
    cdef intp_t n_values = X.shape[0] * X.shape[1]
    cdef int found
    if n_values == 0:
        return True
    with nogil:
        found = any_non_finite(&X[0, 0], n_values)
    return found == 0


cdef int any_infinite(const float* values, intp_t n_values) noexcept nogil:
    cdef const uint32_t* bits = <const uint32_t*> values
    cdef uint32_t infinite = 0
    cdef intp_t i
    for i in range(n_values):
        infinite |= (bits[i] & 0x7FFFFFFFu) == 0x7F800000u
    return infinite != 0


cdef float* padded_block(const float* X, intp_t n_rows, intp_t n_features) noexcept nogil:
    cdef float* block = <float*> calloc(ROW_BLOCK * n_features, sizeof(float))
    if block != NULL:
        memcpy(block, X, n_rows * n_features * sizeof(float))
    return block


ctypedef fused real_t:
    float
    double


cdef enum:
    # Rows copied and walked at a time from a source that is not walked in
    # place: a copy that stays in the first cache levels (bytes), at most
    # CHECKED_ROWS rows when rows are copied one by one. Columns (Fortran
    # order) are copied in runs of up to COLUMN_RUN_ROWS values: long runs
    # keep the hardware prefetcher on each column.
    COPY_CHUNK_BYTES = 65536
    COLUMN_RUN_ROWS = 2048
    SPARSE_CHUNK_ROWS = 64


cdef int row_source(object X, RowSource* source) except -1:
    source.csr_indptr = NULL
    source.csr_indices = NULL
    source.first_row = 0
    if isinstance(X, CSRRows):
        return csr_row_source(X, source)
    if not isinstance(X, np.ndarray) or X.ndim != 2 or X.dtype not in (np.float32,
                                                                          np.float64):
        raise ValueError("rows to walk must be a 2-D float32 or float64 array")
    source.data = <const char*> cnp.PyArray_DATA(X)
    source.n_rows = X.shape[0]
    source.n_features = X.shape[1]
    source.row_stride = X.strides[0]
    source.feature_stride = X.strides[1]
    source.is_double = X.dtype == np.float64
    source.in_place = (not source.is_double and X.flags.c_contiguous
                       and source.feature_stride == sizeof(float))
    return 0


cdef int csr_row_source(object X, RowSource* source) except -1:
    # CSRRows were checked when made (column indices, indptr); the kernels
    # read the arrays raw, so their layouts and lengths are checked here.
    indptr, indices, data = X.indptr, X.indices, X.data
    n_rows, n_features = X.shape
    for array, dtypes in ((indptr, (np.intp,)), (indices, (np.int32,)),
                          (data, (np.float32, np.float64))):
        if (not isinstance(array, np.ndarray) or array.ndim != 1
                or not array.flags.c_contiguous or array.dtype not in dtypes):
            raise ValueError("sparse rows to walk must have intp indptr, int32 indices and "
                             "float32 or float64 data")
    if (indptr.shape[0] != n_rows + 1 or indices.shape[0] != data.shape[0]
            or (n_rows and (indptr[0] < 0 or indptr[n_rows] > indices.shape[0]))):
        raise ValueError("sparse rows to walk are inconsistent")
    source.data = <const char*> cnp.PyArray_DATA(data)
    source.n_rows = n_rows
    source.n_features = n_features
    source.row_stride = 0
    source.feature_stride = 0
    source.is_double = data.dtype == np.float64
    source.in_place = False
    source.csr_indptr = <const intp_t*> cnp.PyArray_DATA(indptr)
    source.csr_indices = <const int32_t*> cnp.PyArray_DATA(indices)
    return 0


cdef int scatter_csr(const real_t* data, const RowSource* source, intp_t first_row,
                     intp_t n_rows, float* out, bint interleaved, bint clear) noexcept nogil:
    # Rows first_row.. of a CSR source written into out, a buffer of zeros,
    # as dense float32 rows (row-major, or interleaved blocks): each row's
    # stored values in their places; with ``clear``, zeros there again once
    # the rows are walked. The cost is that of the stored values only, not
    # of the rows' width: wide word-presence rows hold a few values each.
    # Returns 1 if a stored value is NaN or infinite in float32, else 0.
    cdef intp_t n_features = source.n_features
    cdef intp_t row, entry, matrix_row, stride = ROW_BLOCK if interleaved else 1
    cdef float value
    cdef bint non_finite = False
    cdef float* row_start
    for row in range(n_rows):
        matrix_row = source.first_row + first_row + row
        if interleaved:
            row_start = out + (row - row % ROW_BLOCK) * n_features + row % ROW_BLOCK
        else:
            row_start = out + row * n_features
        for entry in range(source.csr_indptr[matrix_row], source.csr_indptr[matrix_row + 1]):
            value = 0.0 if clear else <float> data[entry]
            non_finite |= not (value - value == 0.0)
            row_start[source.csr_indices[entry] * stride] = value
    return non_finite


cdef int clear_csr_rows(const RowSource* source, intp_t first_row, intp_t n_rows,
                        float* out, bint interleaved) noexcept nogil:
    # Zeros again where scatter_csr wrote rows of a CSR source.
    if source.is_double:
        return scatter_csr(<const double*> source.data, source, first_row, n_rows, out,
                           interleaved, True)
    return scatter_csr(<const float*> source.data, source, first_row, n_rows, out,
                       interleaved, True)


cdef int copy_source_rows(const RowSource* source, intp_t first_row, intp_t n_rows,
                          float* out, bint interleaved) noexcept nogil:
    # Rows [first_row, first_row + n_rows) of a source that is not walked in
    # place, as row-major float32 rows or interleaved blocks (sparse rows
    # into a buffer of zeros, see scatter_csr). Returns 1 if a copied value
    # is NaN or infinite in float32, else 0.
    cdef const char* first
    if source.csr_indptr != NULL:
        if source.is_double:
            return scatter_csr(<const double*> source.data, source, first_row, n_rows, out,
                               interleaved, False)
        return scatter_csr(<const float*> source.data, source, first_row, n_rows, out,
                           interleaved, False)
    first = source.data + first_row * source.row_stride
    if interleaved:
        if source.is_double:
            copy_interleaved(<const double*> first, source, n_rows, out)
        else:
            copy_interleaved(<const float*> first, source, n_rows, out)
        # The last block's rows are spread over its whole length (padded
        # with zeros).
        return any_non_finite(out, block_values(n_rows, source.n_features))
    if source.is_double:
        copy_rows(<const double*> first, source, n_rows, out)
    else:
        copy_rows(<const float*> first, source, n_rows, out)
    return any_non_finite(out, n_rows * source.n_features)


cdef void copy_interleaved(const real_t* first, const RowSource* source, intp_t n_rows,
                           float* blocks) noexcept nogil:
    # Strided rows of either precision into blocks of ROW_BLOCK rows whose
    # values are interleaved; first is the first row's first value. Feature
    # by feature, a block's eight values come from eight rows: one cache
    # line of a Fortran-ordered array.
    cdef intp_t n_features = source.n_features
    cdef intp_t row_stride = source.row_stride
    cdef intp_t feature_stride = source.feature_stride
    cdef intp_t n_full = n_rows // ROW_BLOCK
    cdef intp_t block, feature, lane
    cdef const char* rows
    cdef const char* at
    cdef const real_t* column
    cdef float* out
    if row_stride == sizeof(real_t):
        # Fortran order: each column is read in one run, eight values at a
        # time into its place in every block (a copy the compiler
        # vectorises); the other columns wait in other runs.
        for feature in range(n_features):
            column = <const real_t*> (<const char*> first + feature * feature_stride)
            out = blocks + feature * ROW_BLOCK
            for block in range(n_full):
                for lane in range(ROW_BLOCK):
                    out[lane] = <float> column[lane]
                column += ROW_BLOCK
                out += ROW_BLOCK * n_features
    else:
        for block in range(n_full):
            rows = <const char*> first + block * ROW_BLOCK * row_stride
            out = blocks + block * ROW_BLOCK * n_features
            for feature in range(n_features):
                at = rows + feature * feature_stride
                out[0] = <float> (<const real_t*> at)[0]
                out[1] = <float> (<const real_t*> (at + row_stride))[0]
                out[2] = <float> (<const real_t*> (at + 2 * row_stride))[0]
                out[3] = <float> (<const real_t*> (at + 3 * row_stride))[0]
                out[4] = <float> (<const real_t*> (at + 4 * row_stride))[0]
                out[5] = <float> (<const real_t*> (at + 5 * row_stride))[0]
                out[6] = <float> (<const real_t*> (at + 6 * row_stride))[0]
                out[7] = <float> (<const real_t*> (at + 7 * row_stride))[0]
                out += ROW_BLOCK
    if n_rows == n_full * ROW_BLOCK:
        return
    rows = <const char*> first + n_full * ROW_BLOCK * row_stride
    out = blocks + n_full * ROW_BLOCK * n_features
    for feature in range(n_features):
        for lane in range(ROW_BLOCK):
            if n_full * ROW_BLOCK + lane < n_rows:
                out[lane] = <float> (<const real_t*> (rows + lane * row_stride
                                                      + feature * feature_stride))[0]
            else:
                out[lane] = 0.0
        out += ROW_BLOCK


cdef void copy_rows(const real_t* first, const RowSource* source, intp_t n_rows,
                    float* rows) noexcept nogil:
    # Rows whose values lie side by side, converted row by row into a
    # row-major float32 copy: contiguous reads the compiler vectorises.
    cdef intp_t n_features = source.n_features
    cdef intp_t row, feature
    cdef const real_t* values
    for row in range(n_rows):
        values = <const real_t*> (<const char*> first + row * source.row_stride)
        for feature in range(n_features):
            rows[row * n_features + feature] = <float> values[feature]


cdef int interleave_source(const RowSource* source, intp_t first_row, intp_t n_rows,
                           float* blocks) noexcept nogil:
    # Checked after the conversion, so that a float64 value beyond the
    # float32 range counts as infinite, as it does in fit.
    return copy_source_rows(source, first_row, n_rows, blocks, True)


cdef intp_t copy_chunk_rows(const RowSource* source) noexcept nogil:
    # Rows copied at a time: a multiple of ROW_BLOCK within COPY_CHUNK_BYTES.
    cdef intp_t rows = COPY_CHUNK_BYTES // (sizeof(float) * source.n_features)
    if source.csr_indptr != NULL:
        # Sparse rows: enough of them for refilled lanes to keep busy (a
        # lane takes the next row of the chunk), however wide the rows.
        rows = max(<intp_t> SPARSE_CHUNK_ROWS, min(<intp_t> CHECKED_ROWS, rows))
    elif copies_rows(source):
        rows = min(<intp_t> CHECKED_ROWS, rows)
    else:
        rows = max(rows, <intp_t> COLUMN_RUN_ROWS)
    rows = max(<intp_t> ROW_BLOCK, rows)
    return rows - rows % ROW_BLOCK


cdef float* copy_buffer(const RowSource* source) noexcept nogil:
    return <float*> calloc(copy_chunk_rows(source) * source.n_features, sizeof(float))


cdef float* checked_copy_buffer(const RowSource* source) except? NULL:
    # The copy buffer a source needs, allocated once per call of a kernel;
    # NULL for rows walked in place.
    cdef float* buffer
    if source.in_place or source.n_rows == 0:
        return NULL
    buffer = copy_buffer(source)
    if buffer == NULL:
        raise MemoryError()
    return buffer
