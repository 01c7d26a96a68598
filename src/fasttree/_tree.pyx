# cython: language_level=3
"""Tree builders (depth-first and best-first) and nogil prediction."""

import numpy as np
cimport numpy as cnp
from cpython.pycapsule cimport PyCapsule_GetPointer, PyCapsule_New

from libc.math cimport INFINITY, NAN, isnan
from libc.stdlib cimport free, malloc, realloc
from libc.string cimport memcpy

from ._criterion cimport Criterion
from ._interrupt cimport INTERRUPTED, Interrupt
from ._splitter cimport SplitRecord, Splitter

from ._interrupt import current_interrupt, raise_interrupt

cnp.import_array()

cdef Node _layout_probe
# The bytes a saved tree's nodes must have, read off the C struct; checked
# when a model is loaded.
NODE_DTYPE = np.dtype({
    "names": ["left_child", "right_child", "feature", "threshold"],
    "formats": [np.int32, np.int32, np.int32, np.float32],
    "offsets": [
        <Py_ssize_t> (<char*> &_layout_probe.left_child - <char*> &_layout_probe),
        <Py_ssize_t> (<char*> &_layout_probe.right_child - <char*> &_layout_probe),
        <Py_ssize_t> (<char*> &_layout_probe.feature - <char*> &_layout_probe),
        <Py_ssize_t> (<char*> &_layout_probe.threshold - <char*> &_layout_probe),
    ],
    "itemsize": sizeof(Node),
})

cdef enum:
    LEAF_CHILD = -1
    LEAF_FEATURE = -2
    NO_PARENT = -1

# The node flags (see _tree.pxd), for the Python layer.
FLAG_KIND_MASK = KIND_MASK
FLAG_THRESHOLD = KIND_THRESHOLD
FLAG_SUBSET = KIND_SUBSET
FLAG_MULTIWAY = KIND_MULTIWAY
FLAG_MISSING_LEFT = MISSING_LEFT
FLAG_MISSING_SEEN = MISSING_SEEN

# Impurities at or below this are treated as pure: rounding leaves ~1e-16.
cdef double PURE_IMPURITY = np.finfo(np.float64).eps


cdef int resize_buffer(void** buffer, intp_t count, size_t size) noexcept nogil:
    """Reallocates *buffer to count items (at least one byte); -1 when out of memory."""
    cdef void* resized = realloc(buffer[0], max(count * size, 1))
    if resized == NULL:
        return -1
    buffer[0] = resized
    return 0


cdef int store_resize(NodeStore* store, intp_t capacity) noexcept nogil:
    """Resizes every node buffer to exactly capacity nodes, down as well as up."""
    cdef int status = (
        resize_buffer(<void**> &store.nodes, capacity, sizeof(Node))
        | resize_buffer(<void**> &store.flags, capacity, sizeof(uint8_t))
        | resize_buffer(<void**> &store.impurity, capacity, sizeof(double))
        | resize_buffer(<void**> &store.n_node_samples, capacity, sizeof(int64_t))
        | resize_buffer(<void**> &store.weighted_n_node_samples, capacity, sizeof(double)))
    if store.sparse_values:
        status |= resize_buffer(<void**> &store.value_offsets, capacity + 1, sizeof(int64_t))
    else:
        status |= resize_buffer(<void**> &store.value, capacity * store.n_values,
                                sizeof(double))
    if status != 0:
        return -1
    store.capacity = capacity
    return 0


cdef int store_resize_values(NodeStore* store, intp_t capacity) noexcept nogil:
    """Resizes the sparse value entries to exactly capacity entries."""
    if (resize_buffer(<void**> &store.value_index, capacity, sizeof(int32_t))
            | resize_buffer(<void**> &store.value_data, capacity, sizeof(double))) != 0:
        return -1
    store.value_capacity = capacity
    return 0


cdef int store_reserve(NodeStore* store, intp_t capacity) noexcept nogil:
    if capacity <= store.capacity:
        return 0
    return store_resize(store, capacity)


cdef void store_init(NodeStore* store, intp_t n_values, bint sparse_values) noexcept nogil:
    store.nodes = NULL
    store.flags = NULL
    store.category_bits = NULL
    store.bits_count = 0
    store.bits_capacity = 0
    store.impurity = NULL
    store.n_node_samples = NULL
    store.weighted_n_node_samples = NULL
    store.value = NULL
    store.value_offsets = NULL
    store.value_index = NULL
    store.value_data = NULL
    store.sparse_values = sparse_values
    store.value_count = 0
    store.value_capacity = 0
    store.n_values = n_values
    store.node_count = 0
    store.capacity = 0
    store.max_depth = 0


cdef void store_free(NodeStore* store) noexcept nogil:
    free(store.nodes)
    free(store.flags)
    free(store.category_bits)
    free(store.impurity)
    free(store.n_node_samples)
    free(store.weighted_n_node_samples)
    free(store.value)
    free(store.value_offsets)
    free(store.value_index)
    free(store.value_data)
    store_init(store, store.n_values, store.sparse_values)


cdef void clip_value(NodeStore* store, intp_t node_id, double lower,
                     double upper) noexcept nogil:
    """Clips a node's constrained value into [lower, upper]: a regression's
    value, or a binary classifier's fraction of class 1 (with class 0's
    fraction its complement)."""
    cdef double value
    cdef intp_t entry, first
    if not store.sparse_values:
        value = store.value[node_id * store.n_values]
        store.value[node_id * store.n_values] = min(max(value, lower), upper)
        return
    first = store.value_offsets[node_id]
    value = 0.0
    for entry in range(first, store.value_offsets[node_id + 1]):
        if store.value_index[entry] == 1:
            value = store.value_data[entry]
    value = min(max(value, lower), upper)
    # Rewritten in place: a two-class node holds at most two entries.
    entry = first
    if value != 1.0:
        store.value_index[entry] = 0
        store.value_data[entry] = 1.0 - value
        entry += 1
    if value != 0.0:
        store.value_index[entry] = 1
        store.value_data[entry] = value
        entry += 1
    store.value_count = entry
    store.value_offsets[node_id + 1] = entry


cdef void child_bounds(Splitter splitter, SplitRecord* split, double lower, double upper,
                       double* bounds) noexcept nogil:
    """The children's bounds under the monotonic constraints, as scikit-learn
    sets them: bounds[0:2] the left child's [lower, upper], bounds[2:4] the
    right child's. A split on a constrained feature puts the middle of the
    children's values between them; other splits pass the node's on."""
    cdef int constraint = 0
    cdef double middle
    if splitter.state.limits.monotonic_cst != NULL:
        constraint = splitter.state.limits.monotonic_cst[split.feature]
    bounds[0] = lower
    bounds[1] = upper
    bounds[2] = lower
    bounds[3] = upper
    if constraint == 0:
        return
    middle = 0.5 * (split.value_left + split.value_right)
    if constraint > 0:
        bounds[1] = middle
        bounds[2] = middle
    else:
        bounds[0] = middle
        bounds[3] = middle


cdef intp_t store_add_node(NodeStore* store, Criterion criterion, intp_t parent,
                           bint is_left, intp_t depth, intp_t n_node_samples,
                           double impurity, double lower=-INFINITY,
                           double upper=INFINITY) noexcept nogil:
    """Appends a leaf holding the criterion's current node, its value clipped
    into [lower, upper] (see clip_value); returns its id or -1."""
    cdef intp_t node_id = store.node_count
    cdef Node* node
    if node_id >= store.capacity:
        if store_reserve(store, 2 * store.capacity + 1) < 0:
            return -1
    if store.sparse_values:
        if store.value_count + store.n_values > store.value_capacity:
            if store_resize_values(store, 2 * store.value_capacity + store.n_values) < 0:
                return -1
        if node_id == 0:
            store.value_offsets[0] = 0
        store.value_count += criterion.node_value_entries(
            &store.value_index[store.value_count], &store.value_data[store.value_count])
        store.value_offsets[node_id + 1] = store.value_count
    else:
        criterion.node_value(&store.value[node_id * store.n_values])
    node = &store.nodes[node_id]
    node.left_child = LEAF_CHILD
    node.right_child = LEAF_CHILD
    node.feature = LEAF_FEATURE
    node.threshold = -2.0
    store.flags[node_id] = KIND_LEAF
    store.impurity[node_id] = impurity
    store.n_node_samples[node_id] = n_node_samples
    store.weighted_n_node_samples[node_id] = criterion.weighted_n_node
    if parent != NO_PARENT:
        if is_left:
            store.nodes[parent].left_child = <int32_t> node_id
        else:
            store.nodes[parent].right_child = <int32_t> node_id
    if depth > store.max_depth:
        store.max_depth = depth
    store.node_count += 1
    if lower > -INFINITY or upper < INFINITY:
        clip_value(store, node_id, lower, upper)
    return node_id


cdef int store_add_category_set(NodeStore* store, SplitRecord* split) noexcept nogil:
    """Copies a subset split's category set into the store, noting its start
    in split.side; -1 when out of memory."""
    cdef intp_t n_words = category_words(split.category_set[0])
    if store.bits_count + n_words > store.bits_capacity:
        if resize_buffer(<void**> &store.category_bits, 2 * store.bits_capacity + n_words,
                         sizeof(uint32_t)) < 0:
            return -1
        store.bits_capacity = 2 * store.bits_capacity + n_words
    memcpy(store.category_bits + store.bits_count, split.category_set,
           n_words * sizeof(uint32_t))
    split.side = <int32_t> store.bits_count
    store.bits_count += n_words
    return 0


cdef void store_set_split(NodeStore* store, intp_t node_id, SplitRecord* split) noexcept nogil:
    """Makes a leaf the inner node of split (a subset split's set already
    stored); its children are linked as they are added."""
    store.nodes[node_id].feature = <int32_t> split.feature
    if split.is_subset:
        store.nodes[node_id].threshold = side_as_threshold(split.side)
        store.flags[node_id] = KIND_SUBSET
    else:
        store.nodes[node_id].threshold = split.threshold
        store.flags[node_id] = KIND_THRESHOLD
    if split.missing_left:
        store.flags[node_id] |= MISSING_LEFT
    if split.missing_seen:
        store.flags[node_id] |= MISSING_SEEN


cdef struct BuildLimits:
    intp_t max_depth
    intp_t min_samples_split
    intp_t min_samples_leaf
    double min_weight_leaf
    double min_impurity_decrease
    double weighted_n_total


cdef bint stops_before_search(BuildLimits* limits, intp_t depth, intp_t n_node,
                              double weighted_n_node, double impurity) noexcept nogil:
    return (depth >= limits.max_depth
            or n_node < limits.min_samples_split
            or n_node < 2 * limits.min_samples_leaf
            or weighted_n_node < 2.0 * limits.min_weight_leaf
            or impurity <= PURE_IMPURITY)


cdef double weighted_improvement(BuildLimits* limits, double weighted_n_node,
                                 double impurity, SplitRecord* split) noexcept nogil:
    """Impurity decrease of a split, weighted by the node's share of the data."""
    return (weighted_n_node / limits.weighted_n_total) * (
        impurity
        - split.weighted_n_left / weighted_n_node * split.impurity_left
        - split.weighted_n_right / weighted_n_node * split.impurity_right)


cdef struct PendingNode:
    intp_t start
    intp_t end
    intp_t depth
    intp_t parent
    bint is_left
    intp_t n_known_constants
    double lower_bound        # the monotonic constraints' bounds on its value
    double upper_bound


cdef int grow_pending(PendingNode** stack, double** states, uint64_t** groups,
                      intp_t* capacity, intp_t needed, intp_t state_size,
                      intp_t group_words) noexcept nogil:
    """Makes room for needed pending nodes, their criterion states and the
    interaction groups they allow."""
    cdef intp_t new_capacity = capacity[0]
    while new_capacity < needed:
        new_capacity *= 2
    if new_capacity == capacity[0]:
        return 0
    if (resize_buffer(<void**> stack, new_capacity, sizeof(PendingNode))
            | resize_buffer(<void**> states, new_capacity * state_size, sizeof(double))
            | resize_buffer(<void**> groups, new_capacity * group_words,
                            sizeof(uint64_t))) != 0:
        return -1
    capacity[0] = new_capacity
    return 0


cdef int build_depth_first(NodeStore* store, Splitter splitter, uint32_t* samples,
                           intp_t n_samples, BuildLimits* limits,
                           Interrupt interrupt) noexcept nogil:
    # A pending node's criterion state sits at the same index of states as
    # the node in the stack: its parent's split wrote it, and popping the
    # node restores it, without a pass over the node's samples. So do the
    # interaction groups it allows in pending_groups (none without
    # constraints), copied to node_groups when it is popped, since its
    # children's take its place.
    cdef intp_t state_size = splitter.criterion.state_size
    cdef intp_t group_words = splitter.group_words
    cdef intp_t stack_capacity = 64
    cdef intp_t stack_size = 0
    cdef PendingNode* stack = <PendingNode*> malloc(stack_capacity * sizeof(PendingNode))
    cdef double* states = <double*> malloc(stack_capacity * state_size * sizeof(double))
    cdef uint64_t* pending_groups = <uint64_t*> malloc(
        max(1, stack_capacity * group_words) * sizeof(uint64_t))
    cdef uint64_t* node_groups = <uint64_t*> malloc(max(1, group_words) * sizeof(uint64_t))
    cdef PendingNode current
    cdef SplitRecord split
    cdef intp_t node_id
    cdef double impurity
    cdef double bounds[4]
    cdef bint is_leaf
    cdef int status = 0
    if stack == NULL or states == NULL or pending_groups == NULL or node_groups == NULL:
        free(stack)
        free(states)
        free(pending_groups)
        free(node_groups)
        return -1
    stack[0] = PendingNode(0, n_samples, 0, NO_PARENT, False, 0, -INFINITY, INFINITY)
    splitter.criterion.compute_state(0, n_samples, states)
    splitter.root_groups(pending_groups)
    splitter.node_groups = node_groups if group_words else NULL
    stack_size = 1
    while stack_size > 0:
        if interrupt.should_stop():
            status = INTERRUPTED
            break
        stack_size -= 1
        current = stack[stack_size]
        memcpy(node_groups, pending_groups + stack_size * group_words,
               group_words * sizeof(uint64_t))
        splitter.criterion.restore_node(current.start, current.end,
                                        states + stack_size * state_size)
        impurity = splitter.criterion.node_impurity()
        node_id = store_add_node(store, splitter.criterion, current.parent, current.is_left,
                                 current.depth, current.end - current.start, impurity,
                                 current.lower_bound, current.upper_bound)
        if node_id < 0:
            status = -1
            break
        is_leaf = stops_before_search(limits, current.depth, current.end - current.start,
                                      splitter.criterion.weighted_n_node, impurity)
        if not is_leaf:
            if grow_pending(&stack, &states, &pending_groups, &stack_capacity,
                            stack_size + 2, state_size, group_words) < 0:
                status = -1
                break
            # The right child's state goes where the right child will be
            # pushed, the left child's above it.
            splitter.state.limits.lower_bound = current.lower_bound
            splitter.state.limits.upper_bound = current.upper_bound
            if splitter.split_node(samples, current.start, current.end,
                                   current.n_known_constants, &split,
                                   states + (stack_size + 1) * state_size,
                                   states + stack_size * state_size) < 0:
                status = -1
                break
            is_leaf = (split.feature < 0 or
                       weighted_improvement(limits, store.weighted_n_node_samples[node_id],
                                            impurity, &split) + PURE_IMPURITY
                       < limits.min_impurity_decrease)
        if is_leaf:
            continue
        if split.is_subset and store_add_category_set(store, &split) < 0:
            status = -1
            break
        store_set_split(store, node_id, &split)
        child_bounds(splitter, &split, current.lower_bound, current.upper_bound, bounds)
        # The right child goes first so the left subtree is built (and
        # numbered) first.
        stack[stack_size] = PendingNode(split.position, current.end, current.depth + 1,
                                        node_id, False, split.n_constants_right,
                                        bounds[2], bounds[3])
        stack[stack_size + 1] = PendingNode(current.start, split.position,
                                            current.depth + 1, node_id, True,
                                            split.n_constants_left, bounds[0], bounds[1])
        if group_words:
            splitter.child_groups(node_groups, split.feature,
                                  pending_groups + stack_size * group_words)
            memcpy(pending_groups + (stack_size + 1) * group_words,
                   pending_groups + stack_size * group_words, group_words * sizeof(uint64_t))
        stack_size += 2
    splitter.node_groups = NULL
    free(stack)
    free(states)
    free(pending_groups)
    free(node_groups)
    return status


cdef struct FrontierNode:
    intp_t node_id
    intp_t start
    intp_t end
    intp_t depth
    double improvement    # weighted impurity decrease of its best split
    SplitRecord split     # that split; the samples are already partitioned by it
    double lower_bound    # the monotonic constraints' bounds on its value
    double upper_bound
    intp_t groups_slot    # where in GroupSlots the interaction groups it allows are


# The interaction groups queued nodes allow, one slot of group_words words
# each: the frontier's nodes move about the heap, their slots stay put.
cdef struct GroupSlots:
    uint64_t* words       # capacity slots of group_words words
    intp_t* free_slots    # the slots no queued node holds
    intp_t n_free
    intp_t group_words


cdef bint frontier_before(FrontierNode* a, FrontierNode* b) noexcept nogil:
    # Larger improvement first; the earlier node on ties.
    if a.improvement != b.improvement:
        return a.improvement > b.improvement
    return a.node_id < b.node_id


cdef void frontier_push(FrontierNode* heap, intp_t* size, FrontierNode item) noexcept nogil:
    cdef intp_t child = size[0]
    cdef intp_t parent
    heap[child] = item
    size[0] += 1
    while child > 0:
        parent = (child - 1) // 2
        if not frontier_before(&heap[child], &heap[parent]):
            break
        heap[child], heap[parent] = heap[parent], heap[child]
        child = parent


cdef FrontierNode frontier_pop(FrontierNode* heap, intp_t* size) noexcept nogil:
    cdef FrontierNode top = heap[0]
    cdef intp_t parent = 0
    cdef intp_t child
    size[0] -= 1
    heap[0] = heap[size[0]]
    while True:
        child = 2 * parent + 1
        if child >= size[0]:
            break
        if child + 1 < size[0] and frontier_before(&heap[child + 1], &heap[child]):
            child += 1
        if not frontier_before(&heap[child], &heap[parent]):
            break
        heap[child], heap[parent] = heap[parent], heap[child]
        parent = child
    return top


cdef int add_frontier_candidate(NodeStore* store, Splitter splitter, uint32_t* samples,
                                BuildLimits* limits, intp_t start, intp_t end,
                                intp_t depth, intp_t parent, bint is_left,
                                FrontierNode* heap, intp_t* heap_size,
                                double* child_states, double lower,
                                double upper, const uint64_t* groups,
                                GroupSlots* slots) noexcept nogil:
    """Adds a node as a leaf and queues it when it has a worthwhile split.

    Nodes are expanded out of order, so each is initialised from its
    samples; the split's child states go to child_states (room for two),
    unused. groups: the interaction groups the node allows (NULL without
    constraints), kept in a slot of slots while it is queued."""
    cdef FrontierNode candidate
    cdef double impurity
    splitter.criterion.init_node(start, end)
    impurity = splitter.criterion.node_impurity()
    candidate.node_id = store_add_node(store, splitter.criterion, parent, is_left, depth,
                                       end - start, impurity, lower, upper)
    if candidate.node_id < 0:
        return -1
    if stops_before_search(limits, depth, end - start, splitter.criterion.weighted_n_node,
                           impurity):
        return 0
    # Nodes are searched out of tree order, so a constant-feature prefix
    # inherited from the parent could be stale: start from none.
    splitter.state.limits.lower_bound = lower
    splitter.state.limits.upper_bound = upper
    splitter.node_groups = groups
    if splitter.split_node(samples, start, end, 0, &candidate.split,
                           child_states, child_states + splitter.criterion.state_size) < 0:
        return -1
    if candidate.split.feature < 0:
        return 0
    candidate.improvement = weighted_improvement(
        limits, store.weighted_n_node_samples[candidate.node_id], impurity,
        &candidate.split)
    if candidate.improvement + PURE_IMPURITY < limits.min_impurity_decrease:
        return 0
    # The splitter reuses its set at the next split: it is stored now, and
    # stays unused if the node is never expanded.
    if candidate.split.is_subset and store_add_category_set(store, &candidate.split) < 0:
        return -1
    candidate.start = start
    candidate.end = end
    candidate.depth = depth
    candidate.lower_bound = lower
    candidate.upper_bound = upper
    candidate.groups_slot = -1
    if groups != NULL:
        slots.n_free -= 1
        candidate.groups_slot = slots.free_slots[slots.n_free]
        memcpy(slots.words + candidate.groups_slot * slots.group_words, groups,
               slots.group_words * sizeof(uint64_t))
    frontier_push(heap, heap_size, candidate)
    return 0


cdef int build_best_first(NodeStore* store, Splitter splitter, uint32_t* samples,
                          intp_t n_samples, BuildLimits* limits,
                          intp_t max_leaf_nodes, Interrupt interrupt) noexcept nogil:
    # Each split adds one leaf, and leaves never exceed n_samples, so the
    # frontier never holds more than that many nodes.
    cdef intp_t heap_capacity = min(max_leaf_nodes, n_samples) + 1
    cdef FrontierNode* heap = <FrontierNode*> malloc(heap_capacity * sizeof(FrontierNode))
    cdef intp_t heap_size = 0
    cdef intp_t n_leaves = 1
    cdef FrontierNode expanded
    cdef double bounds[4]
    cdef int status
    cdef double* child_states = <double*> malloc(2 * splitter.criterion.state_size
                                                 * sizeof(double))
    # Without constraints no node has groups (NULL); with them the root
    # allows all, and both children of a split the same ones.
    cdef GroupSlots slots
    cdef intp_t slot
    cdef uint64_t* children_groups = NULL
    slots.group_words = splitter.group_words
    slots.n_free = heap_capacity
    slots.words = <uint64_t*> malloc(max(1, heap_capacity * slots.group_words)
                                     * sizeof(uint64_t))
    slots.free_slots = <intp_t*> malloc(heap_capacity * sizeof(intp_t))
    cdef uint64_t* groups = <uint64_t*> malloc(max(1, slots.group_words) * sizeof(uint64_t))
    if (heap == NULL or child_states == NULL or slots.words == NULL
            or slots.free_slots == NULL or groups == NULL):
        free(heap)
        free(child_states)
        free(slots.words)
        free(slots.free_slots)
        free(groups)
        return -1
    for slot in range(heap_capacity):
        slots.free_slots[slot] = slot
    if slots.group_words:
        children_groups = groups
        splitter.root_groups(children_groups)
    status = add_frontier_candidate(store, splitter, samples, limits, 0, n_samples, 0,
                                    NO_PARENT, False, heap, &heap_size, child_states,
                                    -INFINITY, INFINITY, children_groups, &slots)
    while status == 0 and heap_size > 0 and n_leaves < max_leaf_nodes:
        if interrupt.should_stop():
            status = INTERRUPTED
            break
        expanded = frontier_pop(heap, &heap_size)
        store_set_split(store, expanded.node_id, &expanded.split)
        n_leaves += 1
        child_bounds(splitter, &expanded.split, expanded.lower_bound, expanded.upper_bound,
                     bounds)
        if expanded.groups_slot >= 0:
            splitter.child_groups(slots.words + expanded.groups_slot * slots.group_words,
                                  expanded.split.feature, children_groups)
            slots.free_slots[slots.n_free] = expanded.groups_slot
            slots.n_free += 1
        status = add_frontier_candidate(store, splitter, samples, limits, expanded.start,
                                        expanded.split.position, expanded.depth + 1,
                                        expanded.node_id, True, heap, &heap_size,
                                        child_states, bounds[0], bounds[1], children_groups,
                                        &slots)
        if status == 0:
            status = add_frontier_candidate(store, splitter, samples, limits,
                                            expanded.split.position, expanded.end,
                                            expanded.depth + 1, expanded.node_id, False,
                                            heap, &heap_size, child_states, bounds[2],
                                            bounds[3], children_groups, &slots)
    splitter.node_groups = NULL
    free(heap)
    free(child_states)
    free(slots.words)
    free(slots.free_slots)
    free(groups)
    return status


def build_tree(Splitter splitter not None, uint32_t[::1] samples not None, *,
               intp_t n_values, intp_t max_depth, intp_t min_samples_split,
               intp_t min_samples_leaf, double min_weight_leaf,
               double min_impurity_decrease, intp_t max_leaf_nodes,
               double weighted_n_total, object sparse_values=None,
               Interrupt interrupt=None):
    """Grows a tree on ``samples`` and returns its arrays.

    ``max_leaf_nodes`` < 0 grows depth-first; otherwise best-first.
    ``samples`` is reordered in place. Returns a dict of numpy arrays
    (``nodes``, ``flags``, ``category_bits``, ``impurity``, ``n_node_samples``,
    ``weighted_n_node_samples``)
    and ``max_depth``, with the node values either dense (``value``, shape
    (node_count, n_values)) or as sparse rows of their non-zero entries
    (``value_indptr``, ``value_index``, ``value_data``): ``sparse_values``
    chooses, by default sparse when ``n_values`` > 1 (class fractions).
    Growth stops at a node when ``interrupt`` (by default the thread's
    ``current_interrupt``) is requested or a signal's handler raises on the
    main thread; that error (or KeyboardInterrupt) is raised then.
    """
    cdef NodeStore store
    cdef BuildLimits limits
    cdef intp_t n_samples = samples.shape[0]
    cdef int status
    cdef intp_t initial_capacity = 2047
    # Class fractions are stored sparsely; a regression's means densely.
    if sparse_values is None:
        sparse_values = n_values > 1
    store_init(&store, n_values, bool(sparse_values))
    limits.max_depth = max_depth
    limits.min_samples_split = min_samples_split
    limits.min_samples_leaf = min_samples_leaf
    limits.min_weight_leaf = min_weight_leaf
    limits.min_impurity_decrease = min_impurity_decrease
    limits.weighted_n_total = weighted_n_total
    if max_leaf_nodes > 0:
        initial_capacity = min(initial_capacity, 2 * max_leaf_nodes - 1)
    if interrupt is None:
        interrupt = current_interrupt()
    try:
        with nogil:
            status = store_reserve(&store, initial_capacity)
            splitter.criterion.init_positions(&samples[0], n_samples)
            splitter.init_thread_positions(&samples[0], n_samples)
            splitter.start_tree(max_leaf_nodes < 0)
            if status == 0:
                if max_leaf_nodes < 0:
                    status = build_depth_first(&store, splitter, &samples[0], n_samples,
                                               &limits, interrupt)
                else:
                    status = build_best_first(&store, splitter, &samples[0], n_samples,
                                              &limits, max_leaf_nodes, interrupt)
        if status == INTERRUPTED:
            raise_interrupt(interrupt)
        if status < 0:
            raise MemoryError("not enough memory to grow the tree")
        return _store_to_arrays(&store)
    finally:
        store_free(&store)


def impurity_decreases(object nodes, const double[::1] impurity not None,
                       const double[::1] weighted_n_node_samples not None,
                       intp_t n_features):
    """Per feature, the sum over the splits on it, in node order, of the
    node's weighted impurity minus its children's (weight times impurity).

    Parameters
    ----------
    nodes : ndarray of NODE_DTYPE
    impurity, weighted_n_node_samples : ndarray of float64, one per node
    n_features : int

    Returns
    -------
    ndarray of float64, shape (n_features,)
    """
    if (not isinstance(nodes, np.ndarray) or nodes.dtype != NODE_DTYPE or nodes.ndim != 1
            or not nodes.flags.c_contiguous):
        raise ValueError("nodes have an unexpected layout")
    cdef intp_t n_nodes = nodes.shape[0]
    if impurity.shape[0] != n_nodes or weighted_n_node_samples.shape[0] != n_nodes:
        raise ValueError("impurity and weighted_n_node_samples need one value per node")
    decreases = np.zeros(n_features, dtype=np.float64)
    cdef double[::1] decrease_view = decreases
    cdef const Node* tree = <const Node*> cnp.PyArray_DATA(nodes) if n_nodes else NULL
    cdef intp_t node, left, right
    cdef bint valid = True
    with nogil:
        for node in range(n_nodes):
            left = tree[node].left_child
            if left == LEAF_CHILD:
                continue
            right = tree[node].right_child
            if not (0 <= left < n_nodes and 0 <= right < n_nodes
                    and 0 <= tree[node].feature < n_features):
                valid = False
                break
            decrease_view[tree[node].feature] += (
                weighted_n_node_samples[node] * impurity[node]
                - weighted_n_node_samples[left] * impurity[left]
                - weighted_n_node_samples[right] * impurity[right])
    if not valid:
        raise ValueError("corrupt fasttree model: a link or feature is out of range")
    return decreases


cdef void free_buffer(object capsule) noexcept:
    free(PyCapsule_GetPointer(capsule, NULL))


cdef object array_owning(void** data, intp_t count, int typenum, intp_t width=0):
    # A numpy array that takes over the builder's buffer *data and frees it
    # when it goes: a tree of many classes is not copied once more. 1-D, or
    # 2-D with width columns. *data is cleared the moment the buffer has its
    # new owner, so whatever is raised later (KeyboardInterrupt included),
    # the store, which build_tree always frees, never frees it a second time.
    capsule = PyCapsule_New(data[0], NULL, free_buffer)
    cdef void* buffer = data[0]
    data[0] = NULL
    cdef cnp.npy_intp dims[2]
    dims[0] = count
    dims[1] = width
    array = cnp.PyArray_SimpleNewFromData(1 if width == 0 else 2, dims, typenum, buffer)
    cnp.set_array_base(array, capsule)
    return array


cdef dict _store_to_arrays(NodeStore* store):
    """The store's buffers as numpy arrays, which take them over (the store
    is left empty)."""
    cdef intp_t count = store.node_count
    # Shrunk to the nodes made; an empty tree cannot happen (the root is
    # always made), but a 1-byte buffer keeps every pointer valid.
    if store_resize(store, max(count, 1)) < 0:
        raise MemoryError()
    if resize_buffer(<void**> &store.category_bits, store.bits_count,
                     sizeof(uint32_t)) < 0:
        raise MemoryError()
    if store.sparse_values and store_resize_values(store, store.value_count) < 0:
        raise MemoryError()
    arrays = {}
    arrays["nodes"] = array_owning(<void**> &store.nodes, count * sizeof(Node),
                                   cnp.NPY_UINT8).view(NODE_DTYPE)
    arrays["flags"] = array_owning(<void**> &store.flags, count, cnp.NPY_UINT8)
    arrays["category_bits"] = array_owning(<void**> &store.category_bits, store.bits_count,
                                           cnp.NPY_UINT32)
    arrays["impurity"] = array_owning(<void**> &store.impurity, count, cnp.NPY_FLOAT64)
    arrays["n_node_samples"] = array_owning(<void**> &store.n_node_samples, count,
                                            cnp.NPY_INT64)
    arrays["weighted_n_node_samples"] = array_owning(
        <void**> &store.weighted_n_node_samples, count, cnp.NPY_FLOAT64)
    arrays["max_depth"] = store.max_depth
    if store.sparse_values:
        arrays["value_indptr"] = array_owning(<void**> &store.value_offsets, count + 1,
                                              cnp.NPY_INT64)
        arrays["value_index"] = array_owning(<void**> &store.value_index, store.value_count,
                                             cnp.NPY_INT32)
        arrays["value_data"] = array_owning(<void**> &store.value_data, store.value_count,
                                            cnp.NPY_FLOAT64)
    else:
        arrays["value"] = array_owning(<void**> &store.value, count, cnp.NPY_FLOAT64,
                                       store.n_values)
    store.capacity = 0
    return arrays
