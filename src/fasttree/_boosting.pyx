# cython: language_level=3
"""Boosting's stump search: features sorted once per fit, one weighted sweep per round."""

import numpy as np

from libc.math cimport INFINITY, log
from libc.stdint cimport int32_t, uint32_t
from libc.stdlib cimport calloc, free

from ._criterion cimport weight_log_weight
from ._utils cimport beats_best, cancelling_scale, intp_t, midpoint


cdef double entropy_proxy(const double* left, const double* total, intp_t n_classes,
                          double weight_left, double weight_total) noexcept nogil:
    """sum_k l_k log l_k + r_k log r_k - w_l log w_l - w_r log w_r: orders the
    splits of a node as the information gain does (as in _criterion.pyx)."""
    cdef double proxy = 0.0
    cdef intp_t k
    for k in range(n_classes):
        proxy += weight_log_weight(left[k]) + weight_log_weight(total[k] - left[k])
    return proxy - weight_log_weight(weight_left) - weight_log_weight(weight_total - weight_left)


def best_stump(const uint32_t[:, ::1] order not None,
               const uint32_t[:, ::1] sorted_ranks not None,
               const int32_t[:, ::1] sorted_classes not None,
               const float[::1] values not None, const intp_t[::1] value_offsets not None,
               const double[::1] weight not None, intp_t n_classes,
               intp_t min_samples_leaf, bint entropy, intp_t first_feature=0):
    """The root split a depth-1 tree would choose, from presorted features.

    Rows of zero weight take no part, as in a tree's fit. Ties (up to
    rounding, ``_utils.beats_best``) go to the lowest feature, then the
    lowest threshold, as in the tree's splitter.

    Parameters
    ----------
    order : ndarray of uint32, shape (n_features, n_samples)
        Each feature's rows in increasing order of value (sorted once per fit).
    sorted_ranks, sorted_classes : ndarray, shape (n_features, n_samples)
        The value rank and the class of those rows, in that order, so that
        only the weights are read out of order.
    values, value_offsets
        From ``rank_features``.
    weight : ndarray of float64, shape (n_samples,)
    n_classes, min_samples_leaf : int
    entropy : bool
        Entropy criterion; otherwise Gini.
    first_feature : int, default=0
        Index of the first row of ``order`` among all features (the arrays may
        hold a slice of the features) in ``value_offsets``.

    Returns
    -------
    (feature, threshold, threshold_rank, proxy, scale) or None when no split
    is possible; ``proxy`` orders the splits of the node (larger is better),
    ``scale`` measures its rounding (``_utils.split_beats`` compares two).
    """
    cdef intp_t n_features = order.shape[0]
    cdef intp_t n_samples = order.shape[1]
    cdef double* total = <double*> calloc(n_classes, sizeof(double))
    cdef double* left = <double*> calloc(n_classes, sizeof(double))
    cdef intp_t feature, position, n_present = 0, n_left, k
    cdef intp_t best_feature = -1
    cdef uint32_t sample, rank, previous_rank = 0, best_left_rank = 0, best_right_rank = 0
    cdef int32_t label
    cdef double weight_total = 0.0, weight_left, sample_weight, proxy
    cdef double squares_total = 0.0, squares_left, squares_right, right
    cdef double best_proxy = -INFINITY, scale = 0.0
    if total == NULL or left == NULL:
        free(total)
        free(left)
        raise MemoryError()
    with nogil:
        for position in range(n_samples):
            sample = order[0, position]
            if weight[sample] > 0.0:
                total[sorted_classes[0, position]] += weight[sample]
                weight_total += weight[sample]
                n_present += 1
        for k in range(n_classes):
            squares_total += total[k] * total[k]
        if entropy:
            scale = cancelling_scale(weight_total, weight_total)
        for feature in range(n_features):
            for k in range(n_classes):
                left[k] = 0.0
            weight_left = 0.0
            squares_left = 0.0
            squares_right = squares_total
            n_left = 0
            for position in range(n_samples):
                sample_weight = weight[order[feature, position]]
                if sample_weight <= 0.0:
                    continue
                rank = sorted_ranks[feature, position]
                # A boundary lies before this row when its value differs from
                # the last one moved left.
                if (rank != previous_rank and n_left >= min_samples_leaf
                        and n_present - n_left >= min_samples_leaf):
                    if entropy:
                        proxy = entropy_proxy(left, total, n_classes, weight_left,
                                              weight_total)
                    else:
                        proxy = (squares_left / weight_left
                                 + squares_right / (weight_total - weight_left))
                    if beats_best(proxy, feature, best_proxy, best_feature, scale):
                        best_proxy = proxy
                        best_feature = feature
                        best_left_rank = previous_rank
                        best_right_rank = rank
                label = sorted_classes[feature, position]
                # Running sums of squared class weights, as the Gini criterion keeps.
                right = total[label] - left[label]
                squares_left += sample_weight * (2.0 * left[label] + sample_weight)
                squares_right += sample_weight * (sample_weight - 2.0 * right)
                left[label] += sample_weight
                weight_left += sample_weight
                n_left += 1
                previous_rank = rank
    free(total)
    free(left)
    if best_feature < 0:
        return None
    best_feature += first_feature
    return (best_feature,
            np.float32(midpoint(values[value_offsets[best_feature] + best_left_rank],
                                values[value_offsets[best_feature] + best_right_rank])),
            best_left_rank, best_proxy, scale)
