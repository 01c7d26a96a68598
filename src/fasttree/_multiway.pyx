# cython: language_level=3
"""The split candidates of one node of a C4.5-style tree: a multiway split
on each categorical feature, the best threshold of each numeric one, scored
by information gain and split information, with missing values sent to one
child ('learn') or spread over all of them ('fractional').

The node is a set of training rows with weights of their own (a row missing
a split feature goes down every branch with a fraction of its weight, under
'fractional'), so the node is handed over as arrays of rows and weights
rather than as a range of a partitioned sample array. See
``fasttree.reference.c45`` for the rules this follows, candidate by candidate.
"""

import numpy as np

from libc.math cimport log2
from libc.stdlib cimport free, malloc
from libc.string cimport memset

from ._utils cimport intp_t, item_position, item_rank, midpoint, pack_item, sort_items

from libc.stdint cimport int32_t, uint32_t, uint64_t


cdef double entropy(const double* class_weights, intp_t n_classes, double total) noexcept nogil:
    """Entropy in bits of class weights summing to total."""
    cdef double result = 0.0, share
    cdef intp_t k
    if total <= 0.0:
        return 0.0
    for k in range(n_classes):
        share = class_weights[k] / total
        if share > 0.0:  # not when a positive weight's share rounds to 0
            result -= share * log2(share)
    return result


cdef double branch_term(double weight, double total) noexcept nogil:
    # One branch's part of the split information.
    cdef double share
    if weight <= 0.0:
        return 0.0
    share = weight / total
    if share == 0.0:  # a positive weight's share may round to 0
        return 0.0
    return -share * log2(share)


cdef double vector_sum(const double* values, intp_t n) noexcept nogil:
    cdef double total = 0.0
    cdef intp_t k
    for k in range(n):
        total += values[k]
    return total


cdef void add_vector(double* target, const double* values, intp_t n) noexcept nogil:
    cdef intp_t k
    for k in range(n):
        target[k] += values[k]


cdef struct Scores:
    double gain
    double information
    double least_child     # the least weight of a child (missing rows joined, under 'learn')


cdef struct ChildTerms:
    double weight          # a child's weight
    double entropy_part    # its weight over the known weight times its entropy
    double branch          # its branch_term


cdef Scores partition_scores(const double* child_classes, intp_t n_children,
                             const double* missing_classes, intp_t missing_child,
                             intp_t n_classes, double node_weight,
                             double* scratch) noexcept nogil:
    """Gain and split information of a partition: child c's known class
    weights are child_classes[c * n_classes:], the unknown rows' are
    missing_classes, which join missing_child (>= 0) or, with -1, no child
    (C4.5's fractional rule: the gain is scaled by the known share, and the
    unknown rows count as one more branch of the split information)."""
    cdef Scores scores
    cdef intp_t c, k
    cdef double known_weight = 0.0, child_weight, children = 0.0, unknown
    cdef const double* classes
    # scratch: the known rows' class weights, then one child's.
    memset(scratch, 0, 2 * n_classes * sizeof(double))
    for c in range(n_children):
        add_vector(scratch, child_classes + c * n_classes, n_classes)
    if missing_child >= 0:
        add_vector(scratch, missing_classes, n_classes)
    known_weight = vector_sum(scratch, n_classes)
    scores.gain = 0.0
    scores.information = 0.0
    scores.least_child = 0.0
    if known_weight <= 0.0:
        return scores
    scores.least_child = known_weight
    for c in range(n_children):
        classes = child_classes + c * n_classes
        if c == missing_child:
            for k in range(n_classes):
                scratch[n_classes + k] = classes[k] + missing_classes[k]
            classes = scratch + n_classes
        child_weight = vector_sum(classes, n_classes)
        children += child_weight / known_weight * entropy(classes, n_classes, child_weight)
        scores.information += branch_term(child_weight, node_weight)
        if child_weight < scores.least_child:
            scores.least_child = child_weight
    scores.gain = known_weight / node_weight * (
        entropy(scratch, n_classes, known_weight) - children)
    unknown = node_weight - known_weight
    scores.information += branch_term(unknown, node_weight)
    return scores


cdef ChildTerms child_terms(const double* classes, intp_t n_classes, double known_weight,
                             double node_weight) noexcept nogil:
    # What partition_scores adds up for one child, computed as it does.
    cdef ChildTerms terms
    terms.weight = vector_sum(classes, n_classes)
    terms.entropy_part = terms.weight / known_weight * entropy(classes, n_classes, terms.weight)
    terms.branch = branch_term(terms.weight, node_weight)
    return terms


cdef void missing_child_scores(const double* child_classes, intp_t n_children,
                               const double* missing_classes, intp_t n_classes,
                               double node_weight, double* scratch, ChildTerms* terms,
                               Scores* scores) noexcept nogil:
    """partition_scores for every missing_child, 0 .. n_children - 1, into
    scores[missing_child], with the same numbers. Only the child the missing
    rows join changes with it: each child's terms are computed once without
    them and once with them (terms, 2 n_children entries), and each
    candidate adds them up in O(n_children), not O(n_children n_classes)."""
    cdef intp_t c, k, option
    cdef double known_weight, known_entropy, children, information, least
    cdef const double* classes
    cdef ChildTerms chosen
    # The known rows' class weights: every child's and the missing rows'.
    memset(scratch, 0, 2 * n_classes * sizeof(double))
    for c in range(n_children):
        add_vector(scratch, child_classes + c * n_classes, n_classes)
    add_vector(scratch, missing_classes, n_classes)
    known_weight = vector_sum(scratch, n_classes)
    if known_weight <= 0.0:
        for option in range(n_children):
            scores[option].gain = scores[option].information = 0.0
            scores[option].least_child = 0.0
        return
    known_entropy = entropy(scratch, n_classes, known_weight)
    for c in range(n_children):
        classes = child_classes + c * n_classes
        terms[2 * c] = child_terms(classes, n_classes, known_weight, node_weight)
        for k in range(n_classes):
            scratch[n_classes + k] = classes[k] + missing_classes[k]
        terms[2 * c + 1] = child_terms(scratch + n_classes, n_classes, known_weight,
                                       node_weight)
    for option in range(n_children):
        children = information = 0.0
        least = known_weight
        for c in range(n_children):
            chosen = terms[2 * c + (c == option)]
            children += chosen.entropy_part
            information += chosen.branch
            if chosen.weight < least:
                least = chosen.weight
        scores[option].gain = known_weight / node_weight * (known_entropy - children)
        scores[option].information = (information
                                      + branch_term(node_weight - known_weight, node_weight))
        scores[option].least_child = least


cdef class CandidateSearch:
    """The split candidates of the nodes of one tree, in the order C4.5's
    rules try them; the training data and the work space are set up once
    per tree.

    Parameters
    ----------
    ranked : RankedFeatures
        ``rank_features`` of the training matrix (categorical features hold
        codes; missing values rank last, as +inf).
    n_categories : ndarray of intp
        Per feature its number of codes, 0 for a numeric feature.
    class_index : ndarray of int32
        Class of every training row.
    n_classes : int
    fractional : bool
        Missing values spread over every child (else they join one child).
    """

    cdef const uint32_t[:, ::1] ranks
    cdef const float[::1] values
    cdef const intp_t[::1] offsets
    cdef const intp_t[::1] n_categories
    cdef const int32_t[::1] class_index
    cdef intp_t n_classes
    cdef bint fractional
    # The classes of the node, ascending, and each one's number among them
    # (-1 for the others between calls): the tables below hold the node's
    # classes only, so that a node costs O(its classes), not O(n_classes).
    cdef intp_t[::1] node_classes
    cdef intp_t[::1] class_number
    # Work space: per-rank class weights of a categorical feature, the two
    # children of a threshold, the missing rows', each child's terms for
    # missing_child_scores and their scores, and sort buffers.
    cdef double[::1] table
    cdef ChildTerms* terms
    cdef Scores* option_scores
    cdef double[::1] children
    cdef double[::1] missing
    cdef double[::1] scratch
    cdef intp_t[::1] present
    cdef intp_t[::1] counts
    cdef uint64_t[::1] items
    cdef uint64_t[::1] sort_scratch

    def __cinit__(self, object ranked, const intp_t[::1] n_categories not None,
                  const int32_t[::1] class_index not None, intp_t n_classes,
                  bint fractional):
        self.ranks = ranked.ranks
        self.values = ranked.values
        self.offsets = ranked.value_offsets
        self.n_categories = n_categories
        self.class_index = class_index
        self.n_classes = n_classes
        self.fractional = fractional
        if n_categories.shape[0] != self.ranks.shape[0]:
            raise ValueError("n_categories needs one count per feature")
        # Per-rank tables serve the categorical features only.
        widths = np.diff(ranked.value_offsets)
        cdef intp_t max_ranks = max(1, int(widths[np.asarray(n_categories) > 0]
                                           .max(initial=1)))
        cdef intp_t n_samples = max(1, self.ranks.shape[1])
        self.table = np.zeros(max_ranks * n_classes, dtype=np.float64)
        self.children = np.zeros(2 * n_classes, dtype=np.float64)
        self.missing = np.zeros(n_classes, dtype=np.float64)
        self.scratch = np.zeros(2 * n_classes, dtype=np.float64)
        self.present = np.zeros(max_ranks, dtype=np.intp)
        self.counts = np.zeros(max_ranks, dtype=np.intp)
        self.items = np.zeros(n_samples, dtype=np.uint64)
        self.sort_scratch = np.zeros(n_samples, dtype=np.uint64)
        self.node_classes = np.zeros(max(1, n_classes), dtype=np.intp)
        self.class_number = np.full(max(1, n_classes), -1, dtype=np.intp)
        self.terms = <ChildTerms*> malloc(2 * max_ranks * sizeof(ChildTerms))
        self.option_scores = <Scores*> malloc(max_ranks * sizeof(Scores))
        if self.terms == NULL or self.option_scores == NULL:
            raise MemoryError()

    def __dealloc__(self):
        free(self.terms)
        free(self.option_scores)

    def candidates(self, const char[::1] used not None, const intp_t[::1] rows not None,
                   const double[::1] weights not None, const intp_t[::1] features not None,
                   intp_t max_features=-1):
        """The split candidates of a node.

        Parameters
        ----------
        used : ndarray of int8
            1 for the categorical features already split on along the path.
        rows, weights : ndarray
            The node's rows and their weights here (> 0).
        features : ndarray of intp
            The features to try, in the order they are tried.
        max_features : int
            Stop once this many features gave candidates (all when negative):
            a categorical feature already split on, or a feature with one
            known value at the node, gives none and does not count, so a
            forest's random draw is not wasted on them.

        Returns
        -------
        list of tuple
            ``(feature, threshold, missing_child, gain, information, least_child)``
            per candidate, grouped by feature in the order tried: ``threshold`` None for a categorical split (one child
            per code present among the known rows, in code order), else the
            float32 threshold of a numeric one (child 0: values <= threshold);
            ``missing_child`` the child the unknown rows join, or None.
        """
        cdef const int32_t[::1] class_index = self.class_index
        cdef intp_t[::1] node_classes = self.node_classes
        cdef intp_t[::1] class_number = self.class_number
        cdef intp_t n_rows = rows.shape[0], n_classes = 0, i, k, label
        cdef double node_weight = 0.0
        if weights.shape[0] != n_rows or n_rows > self.items.shape[0]:
            raise ValueError("rows and weights must match, within the training rows")
        for i in range(n_rows):
            node_weight += weights[i]
        # The node's classes, numbered in ascending order: the scores add the
        # weights of the classes present in class order, as they would over
        # all classes (the absent ones add zeros, which change nothing).
        for i in range(n_rows):
            label = class_index[rows[i]]
            if class_number[label] < 0:
                class_number[label] = n_classes
                node_classes[n_classes] = label
                n_classes += 1
        np.asarray(node_classes)[:n_classes].sort()
        for k in range(n_classes):
            class_number[node_classes[k]] = k
        try:
            return self.node_candidates(used, rows, weights, features, max_features,
                                        node_weight, n_classes)
        finally:
            for k in range(n_classes):
                class_number[node_classes[k]] = -1

    cdef list node_candidates(self, const char[::1] used, const intp_t[::1] rows,
                              const double[::1] weights, const intp_t[::1] features,
                              intp_t max_features, double node_weight, intp_t n_classes):
        # candidates, with the node's n_classes classes numbered (class_number).
        cdef const uint32_t[:, ::1] ranks = self.ranks
        cdef const float[::1] values = self.values
        cdef const intp_t[::1] offsets = self.offsets
        cdef const intp_t[::1] n_categories = self.n_categories
        cdef const int32_t[::1] class_index = self.class_index
        cdef const intp_t[::1] class_number = self.class_number
        cdef bint fractional = self.fractional
        cdef double[::1] table = self.table
        cdef double[::1] children = self.children
        cdef double[::1] missing = self.missing
        cdef double[::1] scratch = self.scratch
        cdef intp_t[::1] present = self.present
        cdef intp_t[::1] counts = self.counts
        cdef uint64_t[::1] items = self.items
        cdef uint64_t[::1] sort_scratch = self.sort_scratch
        cdef intp_t n_features = ranks.shape[0], n_rows = rows.shape[0]
        cdef intp_t feature, n_values, missing_rank, rank, n_present, c, n_known, i
        cdef intp_t best_position, position, row, label, option, n_options
        cdef intp_t n_evaluated = 0
        cdef double best_gain, gain
        cdef bint has_missing
        cdef Scores scores
        cdef uint64_t* sorted_items
        cdef float threshold
        candidates = []
        for feature in features:
            if n_evaluated == max_features:
                break
            if not 0 <= feature < n_features:
                raise ValueError("a feature to try is out of range")
            n_values = offsets[feature + 1] - offsets[feature]
            missing_rank = n_values - 1 if n_values and values[offsets[feature + 1] - 1] == np.inf \
                else -1
            missing[:n_classes] = 0.0
            has_missing = False
            if n_categories[feature] > 0:
                if used[feature]:
                    continue
                with nogil:
                    # The ranks present, in order, then each one's child
                    # (in counts) and the children's class weights, side by
                    # side: O(rows + children x classes of the node).
                    memset(&counts[0], 0, n_values * sizeof(intp_t))
                    for i in range(n_rows):
                        counts[ranks[feature, rows[i]]] += 1
                    n_present = 0
                    for rank in range(n_values):
                        if counts[rank] > 0 and rank != missing_rank:
                            present[n_present] = rank
                            counts[rank] = n_present
                            n_present += 1
                    memset(&table[0], 0, n_present * n_classes * sizeof(double))
                    for i in range(n_rows):
                        row = rows[i]
                        rank = ranks[feature, row]
                        label = class_number[class_index[row]]
                        if rank == missing_rank:
                            missing[label] += weights[i]
                            has_missing = True
                        else:
                            table[counts[rank] * n_classes + label] += weights[i]
                if n_present < 2:
                    continue
                if has_missing and not fractional:
                    with nogil:
                        missing_child_scores(&table[0], n_present, &missing[0], n_classes,
                                             node_weight, &scratch[0], self.terms,
                                             self.option_scores)
                    for option in range(n_present):
                        scores = self.option_scores[option]
                        candidates.append((feature, None, option, scores.gain,
                                           scores.information, scores.least_child))
                else:
                    scores = partition_scores(&table[0], n_present, &missing[0], -1, n_classes,
                                              node_weight, &scratch[0])
                    candidates.append((feature, None, None, scores.gain, scores.information,
                                       scores.least_child))
                n_evaluated += 1
                continue
            # A numeric feature: its known rows in value order, every threshold
            # between distinct values swept; the best by gain (the first on ties),
            # its gain the better of the unknown rows' two children.
            with nogil:
                n_known = 0
                for i in range(n_rows):
                    row = rows[i]
                    rank = ranks[feature, row]
                    if rank == missing_rank:
                        missing[class_number[class_index[row]]] += weights[i]
                        has_missing = True
                    else:
                        items[n_known] = pack_item(<uint32_t> rank, <uint32_t> i)
                        n_known += 1
            if n_known < 2:
                continue
            with nogil:
                sorted_items = sort_items(&items[0], &sort_scratch[0], n_known, 32)
                # children[0:K] the left child, children[K:2K] the right one.
                memset(&children[0], 0, 2 * n_classes * sizeof(double))
                for i in range(n_known):
                    position = item_position(sorted_items[i])
                    children[n_classes + class_number[class_index[rows[position]]]] += (
                        weights[position])
                best_position = -1
                best_gain = 0.0
                for i in range(n_known - 1):
                    position = item_position(sorted_items[i])
                    label = class_number[class_index[rows[position]]]
                    children[label] += weights[position]
                    children[n_classes + label] -= weights[position]
                    if item_rank(sorted_items[i + 1]) == item_rank(sorted_items[i]):
                        continue
                    if has_missing and not fractional:
                        gain = partition_scores(&children[0], 2, &missing[0], 0, n_classes,
                                                node_weight, &scratch[0]).gain
                        scores = partition_scores(&children[0], 2, &missing[0], 1, n_classes,
                                                  node_weight, &scratch[0])
                        gain = scores.gain if scores.gain > gain else gain
                    else:
                        gain = partition_scores(&children[0], 2, &missing[0], -1, n_classes,
                                                node_weight, &scratch[0]).gain
                    if best_position < 0 or gain > best_gain:
                        best_position = i
                        best_gain = gain
            if best_position < 0:
                continue
            threshold = midpoint(
                values[offsets[feature] + item_rank(sorted_items[best_position])],
                values[offsets[feature] + item_rank(sorted_items[best_position + 1])])
            # The children of that threshold, summed again in value order.
            children[:2 * n_classes] = 0.0
            for i in range(n_known):
                position = item_position(sorted_items[i])
                children[(n_classes if i > best_position else 0)
                         + class_number[class_index[rows[position]]]] += weights[position]
            n_options = 2 if has_missing and not fractional else 1
            for option in range(n_options):
                scores = partition_scores(&children[0], 2, &missing[0],
                                          option if has_missing and not fractional else -1,
                                          n_classes, node_weight, &scratch[0])
                candidates.append((feature, np.float32(threshold),
                                   option if has_missing and not fractional else None,
                                   scores.gain, scores.information, scores.least_child))
            n_evaluated += 1
        return candidates
