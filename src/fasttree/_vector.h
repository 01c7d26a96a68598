/*
 * Short-vector passes over a node's gathered values, for the random
 * splitter: the extremes of a feature at a node, and the sums of the side a
 * drawn threshold sends left.
 *
 * With GCC or Clang the passes use the compilers' generic vector types
 * (four floats, or two doubles, per instruction on any target); elsewhere
 * plain loops do the same arithmetic in the same order. Sums are kept in
 * four lanes, lane j adding the positions i with i % 4 == j, and combined
 * as (lane 0 + lane 1) + (lane 2 + lane 3): every build gives the same
 * numbers, bit for bit.
 */
#ifndef FASTTREE_VECTOR_H
#define FASTTREE_VECTOR_H

#include <math.h>
#include <stddef.h>
#include <string.h>

#if (defined(__GNUC__) || defined(__clang__)) && defined(__has_builtin)
#if __has_builtin(__builtin_shufflevector)
#define FT_VECTOR_TYPES 1
#endif
#endif

#ifdef FT_VECTOR_TYPES
typedef float ft_floats __attribute__((vector_size(16)));
typedef int ft_masks __attribute__((vector_size(16)));
typedef double ft_doubles __attribute__((vector_size(16)));
typedef long long ft_wide_masks __attribute__((vector_size(16)));

static inline ft_floats ft_load_floats(const float* source) {
    ft_floats loaded;
    memcpy(&loaded, source, sizeof(loaded));
    return loaded;
}

static inline ft_doubles ft_load_doubles(const double* source) {
    ft_doubles loaded;
    memcpy(&loaded, source, sizeof(loaded));
    return loaded;
}

/* Lanes where mask is all ones take first, the others second. */
static inline ft_floats ft_select(ft_masks mask, ft_floats first, ft_floats second) {
    return (ft_floats)(((ft_masks)first & mask) | ((ft_masks)second & ~mask));
}

/* The 32-bit masks of lanes (0, 1) or (2, 3), each widened to 64 bits. */
static inline ft_wide_masks ft_low_masks(ft_masks mask) {
    return (ft_wide_masks)__builtin_shufflevector(mask, mask, 0, 0, 1, 1);
}

static inline ft_wide_masks ft_high_masks(ft_masks mask) {
    return (ft_wide_masks)__builtin_shufflevector(mask, mask, 2, 2, 3, 3);
}

static inline ft_doubles ft_masked(ft_doubles values, ft_wide_masks mask) {
    return (ft_doubles)((ft_wide_masks)values & mask);
}
#endif

/* The least and largest of values[0:n], n >= 1, none of them NaN. */
static inline void ft_extremes(const float* values, ptrdiff_t n, float* least,
                               float* largest) {
    float low = values[0], high = values[0], value;
    ptrdiff_t i = 0, lane;
#ifdef FT_VECTOR_TYPES
    if (n >= 8) {
        ft_floats lows = ft_load_floats(values), highs = lows, loaded;
        for (i = 4; i + 4 <= n; i += 4) {
            loaded = ft_load_floats(values + i);
            lows = ft_select(loaded < lows, loaded, lows);
            highs = ft_select(loaded > highs, loaded, highs);
        }
        for (lane = 0; lane < 4; lane++) {
            low = lows[lane] < low ? lows[lane] : low;
            high = highs[lane] > high ? highs[lane] : high;
        }
    }
#endif
    for (; i < n; i++) {
        value = values[i];
        low = value < low ? value : low;
        high = value > high ? value : high;
    }
    *least = low;
    *largest = high;
}

/*
 * The positions i < n whose value goes left: at most threshold, or, when
 * missing is set, +inf (a missing value). Returns their number and writes
 * the sum of target over them (unit weights), or, when weight is not NULL,
 * the sums of weight and of weight * target over them.
 */
static inline ptrdiff_t ft_left_sums(const float* values, float threshold, int missing,
                                     const double* weight, const double* target,
                                     ptrdiff_t n, double* weight_sum, double* target_sum) {
    double weights[4] = {0.0, 0.0, 0.0, 0.0}, targets[4] = {0.0, 0.0, 0.0, 0.0};
    double term;
    ptrdiff_t i = 0, moved = 0, lane;
    int left;
#ifdef FT_VECTOR_TYPES
    ft_doubles targets_low = {0.0, 0.0}, targets_high = {0.0, 0.0};
    ft_doubles weights_low = {0.0, 0.0}, weights_high = {0.0, 0.0};
    ft_doubles weights_at, products_low, products_high;
    ft_floats loaded;
    ft_masks mask, counted = {0, 0, 0, 0};
    const float bound = missing ? INFINITY : threshold;
    for (; i + 4 <= n; i += 4) {
        loaded = ft_load_floats(values + i);
        mask = missing ? (loaded == bound) : (loaded <= bound);
        counted -= mask;
        if (weight == NULL) {
            products_low = ft_load_doubles(target + i);
            products_high = ft_load_doubles(target + i + 2);
        } else {
            weights_at = ft_load_doubles(weight + i);
            products_low = weights_at * ft_load_doubles(target + i);
            weights_low += ft_masked(weights_at, ft_low_masks(mask));
            weights_at = ft_load_doubles(weight + i + 2);
            products_high = weights_at * ft_load_doubles(target + i + 2);
            weights_high += ft_masked(weights_at, ft_high_masks(mask));
        }
        targets_low += ft_masked(products_low, ft_low_masks(mask));
        targets_high += ft_masked(products_high, ft_high_masks(mask));
    }
    for (lane = 0; lane < 2; lane++) {
        targets[lane] = targets_low[lane];
        targets[2 + lane] = targets_high[lane];
        weights[lane] = weights_low[lane];
        weights[2 + lane] = weights_high[lane];
    }
    for (lane = 0; lane < 4; lane++) {
        moved += counted[lane];
    }
#else
    for (; i + 4 <= n; i += 4) {
        for (lane = 0; lane < 4; lane++) {
            left = missing ? values[i + lane] == INFINITY : values[i + lane] <= threshold;
            moved += left;
            if (weight == NULL) {
                targets[lane] += left ? target[i + lane] : 0.0;
            } else {
                targets[lane] += left ? weight[i + lane] * target[i + lane] : 0.0;
                weights[lane] += left ? weight[i + lane] : 0.0;
            }
        }
    }
#endif
    for (lane = 0; i < n; i++, lane++) {
        left = missing ? values[i] == INFINITY : values[i] <= threshold;
        moved += left;
        term = weight == NULL ? target[i] : weight[i] * target[i];
        targets[lane] += left ? term : 0.0;
        weights[lane] += left && weight != NULL ? weight[i] : 0.0;
    }
    *target_sum = (targets[0] + targets[1]) + (targets[2] + targets[3]);
    *weight_sum = weight == NULL ? (double)moved
                                 : (weights[0] + weights[1]) + (weights[2] + weights[3]);
    return moved;
}

#endif
