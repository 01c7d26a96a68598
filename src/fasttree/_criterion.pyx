# cython: language_level=3
"""The interface every impurity criterion implements (see _criterion.pxd), with
defaults; the criteria themselves live in one module per family:
_criterion_classification, _criterion_regression, _criterion_multi_output and
_criterion_pinball."""

import numpy as np

from libc.math cimport INFINITY
from libc.stdlib cimport free, malloc


cdef void* allocate(intp_t count, size_t size) except NULL:
    cdef void* memory = malloc(max(count, 1) * size)
    if memory == NULL:
        raise MemoryError()
    return memory


cdef class Criterion:
    """Base of the criteria; the splitter only talks to this interface."""

    def __cinit__(self, *args, **kwargs):
        # Every family's __cinit__ gets the same arguments after this one.
        self.init_args = (args, kwargs)

    def clone(self):
        """A new criterion bound to the same targets and weights.

        Returns
        -------
        Criterion
            Of the same class, with statistics of its own: a thread's
            sweeps move its samples while another thread's sweep this one.
        """
        args, kwargs = self.init_args
        return type(self)(*args, **kwargs)

    cdef intp_t category_orderings(self, intp_t* slots, bint* singles) noexcept nogil:
        # Regression: by mean target (Breiman: its prefixes hold the best subset).
        slots[0] = 1
        singles[0] = False
        return 1

    def __dealloc__(self):
        free(self.position_weight)
        free(self.scratch_state)

    cdef int allocate_positions(self, intp_t n_samples) except -1:
        self.position_weight = <double*> allocate(n_samples, sizeof(double))
        self.scratch_state = <double*> allocate(self.state_size, sizeof(double))
        self.n_moved = 0
        self.largest_item = sizeof(uint32_t)
        self.move_with_samples(self.position_weight, sizeof(double))
        return 0

    cdef int move_with_samples(self, void* items, size_t item_size) except -1:
        if self.n_moved == MAX_MOVED_ARRAYS:
            raise ValueError(f"a criterion moves at most {MAX_MOVED_ARRAYS} arrays "
                             "with the samples")
        self.moved[self.n_moved].items = <char*> items
        self.moved[self.n_moved].item_size = item_size
        self.n_moved += 1
        self.largest_item = max(self.largest_item, item_size)
        return 0

    cdef void init_positions(self, const uint32_t* samples, intp_t n_samples) noexcept nogil:
        cdef intp_t i
        cdef bint unit = True
        for i in range(n_samples):
            self.position_weight[i] = self.sample_weight[samples[i]]
            unit &= self.position_weight[i] == 1.0
        self.unit_weights = unit

    cdef void init_node(self, intp_t start, intp_t end) noexcept nogil:
        self.compute_state(start, end, self.scratch_state)
        self.restore_node(start, end, self.scratch_state)

    cdef void compute_state(self, intp_t start, intp_t end, double* state) noexcept nogil:
        pass

    cdef void restore_node(self, intp_t start, intp_t end, const double* state) noexcept nogil:
        pass

    cdef void children_states(self, intp_t start, intp_t middle, intp_t end,
                              double* left_state, double* right_state) noexcept nogil:
        self.compute_state(start, middle, left_state)
        self.compute_state(middle, end, right_state)

    cdef void keep_left(self) noexcept nogil:
        pass

    cdef void reset(self) noexcept nogil:
        pass

    cdef void move_left(self, const uint64_t* sorted_items, intp_t begin,
                        intp_t end) noexcept nogil:
        pass

    cdef void move_position_left(self, intp_t position) noexcept nogil:
        pass

    cdef void add_to_bins(self, double* stats, intp_t* counts, intp_t n_copies,
                          intp_t n_bins, BinSource source, intp_t n_node) noexcept nogil:
        pass

    cdef void move_bin_left(self, const double* bin) noexcept nogil:
        pass

    cdef void move_stats_left(self, double weight, const intp_t* stats, const double* values,
                              intp_t n_stats) noexcept nogil:
        pass

    cdef double proxy_bound(self) noexcept nogil:
        return INFINITY

    cdef intp_t move_values_left(self, const float* values, float threshold,
                                 bint missing_left, intp_t n_node) noexcept nogil:
        return -1

    cdef void add_positions_to_bins(self, double* stats, intp_t* counts, intp_t n_bins,
                                    const uint32_t* positions, const uint32_t* position_bins,
                                    intp_t n_positions) noexcept nogil:
        pass

    cdef void write_rest_bin(self, double* stats, intp_t* counts, intp_t n_bins,
                             intp_t rest_bin, intp_t n_node) noexcept nogil:
        pass

    cdef double proxy_improvement(self) noexcept nogil:
        return 0.0

    cdef double proxy_scale(self) noexcept nogil:
        return 0.0

    cdef double node_impurity(self) noexcept nogil:
        return 0.0

    cdef void node_value(self, double* out) noexcept nogil:
        pass

    cdef intp_t node_value_entries(self, int32_t* index, double* data) noexcept nogil:
        return 0

    cdef double monotone_value(self) noexcept nogil:
        return 0.0

    cdef void children_values(self, double* left, double* right) noexcept nogil:
        left[0] = 0.0
        right[0] = 0.0

def node_statistics(Criterion criterion not None, const uint32_t[::1] samples not None):
    """Impurity, weight and value of the node holding ``samples`` (for tests).

    Returns
    -------
    dict with keys ``impurity``, ``weighted_n_node`` and ``value``.
    """
    value = np.empty(criterion.n_values, dtype=np.float64)
    cdef double[::1] value_view = value
    criterion.init_positions(&samples[0], samples.shape[0])
    criterion.init_node(0, samples.shape[0])
    criterion.node_value(&value_view[0])
    return {"impurity": criterion.node_impurity(),
            "weighted_n_node": criterion.weighted_n_node, "value": value}
