"""Models as ONNX graphs: the ``TreeEnsemble`` operator of the ``ai.onnx.ml``
domain (opset 5), which tests thresholds (``x <= t``) and set membership
and sends missing values (NaN) a chosen way at every node, followed by
standard operators where the model combines its trees otherwise than by a
sum (votes, medians, AdaBoost's softmax).

The graph takes one float32 input ``X`` of shape (N, n_features), with
categorical features as their codes (positions in ``categories_``; NaN for
a missing or unseen category): :func:`onnx_rows` makes it from anything
``predict`` takes. A classifier gives ``label`` (N,) and ``probabilities``
(N, n_classes), as ``predict`` and ``predict_proba``; with several outputs,
``label`` (N, n_outputs) and ``probabilities_0``, ``probabilities_1``, ...
A regressor gives ``variable`` (N, n_outputs). Each leaf of the operator
adds to one target, so a tree of several values per leaf (class
probabilities, outputs) is written once per value. onnx is needed to
export; onnxruntime to run.
"""

import numpy as np

from ._shap import checked_trees, tree_members
from ._tree import FLAG_KIND_MASK, FLAG_MISSING_LEFT, FLAG_MULTIWAY, FLAG_SUBSET

ONNX_ML_OPSET = 5
ONNX_OPSET = 18
BRANCH_LEQ, BRANCH_MEMBER = 0, 6
ONNX_FORMAT = "ONNX's TreeEnsemble"


def onnx_rows(model, X):
    """X as the exported graph takes it: float32, categorical features as
    codes (NaN for missing or unseen categories)."""
    model._check_fitted()
    return np.ascontiguousarray(np.asarray(model._encoded(X), dtype=np.float64),
                                dtype=np.float32)


def export_onnx(model, name=None):
    """The model as an ``onnx.ModelProto``.

    Parameters
    ----------
    model : fitted fasttree estimator
        A tree, forest, extra trees or bagging of fasttree trees (mean or
        median aggregation, soft or hard voting, several outputs), or
        AdaBoost (classifier or regressor) of fasttree trees; binary and
        multiway (C4.5) splits. Fractional missing values (a row spread
        over every child) have no place in the operator and are refused,
        and so are quantile forests (no operator holds leaf lists).
    name : str, optional
        The graph's name (default: the estimator's class name).

    Returns
    -------
    onnx.ModelProto
        Input ``X`` (float32, N x n_features, see :func:`onnx_rows`);
        outputs ``label`` and ``probabilities`` (classifiers; one
        ``probabilities_k`` per output for several) or ``variable``
        (regressors), equal to ``predict`` and ``predict_proba`` up to
        float32 rounding.
    """
    from .boosting import AdaBoostClassifier, AdaBoostRegressor
    from .quantile import ForestQuantileRegressor

    if isinstance(model, ForestQuantileRegressor):
        raise ValueError(f"a {type(model).__name__} is a quantile forest: its quantiles "
                         "read the training targets each leaf keeps, which no ONNX operator "
                         "holds; export a RandomForestRegressor (or ExtraTreesRegressor) for "
                         "the mean")
    if not hasattr(model, "n_features_in_"):
        raise ValueError(f"this {type(model).__name__} is not fitted yet")
    graph = _Graph()
    if isinstance(model, AdaBoostClassifier):
        _adaboost_classifier(graph, model)
    elif isinstance(model, AdaBoostRegressor):
        _adaboost_regressor(graph, model)
    elif hasattr(model, "classes_"):
        _classifier(graph, model)
    else:
        _regressor(graph, model)
    return graph.model(name or type(model).__name__, model.n_features_in_)


def onnx_tree(estimator):
    """The estimator's ``tree_``, or ValueError for fractional missing values
    (a row spread over every child), which the operator cannot express."""
    tree = estimator.tree_
    if tree.fractional:
        raise ValueError(f"{ONNX_FORMAT} sends a missing value down one branch; grow the "
                         "tree with missing='learn', not 'fractional'")
    return tree


def _classifier(graph, model):
    """Trees, forests and bagging of classification trees: probabilities as
    the mean of the members'; labels by the model's own rule (the largest
    probability, the least expected cost under a loss matrix, or the most
    votes of the members' own predictions under hard voting)."""
    from ._targets import predicted_classes
    members = tree_members(model)
    several = isinstance(model.classes_, list)
    outputs = model.classes_ if several else [model.classes_]
    starts = np.r_[0, np.cumsum([len(classes) for classes in outputs])]
    share = 1.0 / len(members)
    hard = getattr(model, "voting", "soft") == "hard"
    sums, votes = _Ensemble(), _Ensemble()
    for member, features, columns in members:
        tree = onnx_tree(member)
        tests = _TreeTests(tree, features)
        n_leaves = tests.leaves.size
        loss = getattr(member, "loss_matrix_", None)
        for output, values in enumerate(tree.split_outputs(tree.leaf_values)):
            positions = (np.arange(starts[output + 1] - starts[output]) if columns is None
                         else columns[0]) + starts[output]
            for column, position in enumerate(positions):
                sums.add(tests, np.full(n_leaves, position), values[:, column] * share)
            if hard:
                predicted = positions[predicted_classes(values[:, :len(positions)], loss)]
                votes.add(tests, predicted, np.ones(n_leaves))
    probabilities = graph.tree_ensemble(sums, starts[-1])
    votes = graph.tree_ensemble(votes, starts[-1]) if hard else None
    loss = getattr(model, "loss_matrix_", None)   # a model of one output
    labels = []
    for output, classes in enumerate(outputs):
        start, stop = starts[output], starts[output + 1]
        part = (graph.columns(probabilities, start, stop, f"probabilities_{output}")
                if several else graph.rename(probabilities, "probabilities"))
        graph.output(part, [None, stop - start])
        if hard:
            index = graph.op("ArgMax", [graph.columns(votes, start, stop) if several
                                        else votes], axis=1, keepdims=0)
        elif loss is not None:
            costs = graph.op("MatMul", [part, graph.constant(np.asarray(loss, np.float32))])
            index = graph.op("ArgMin", [costs], axis=1, keepdims=0)
        else:
            index = graph.op("ArgMax", [part], axis=1, keepdims=0)
        labels.append((classes, index))
    graph.labels(labels, several)


def _regressor(graph, model):
    """Trees, forests and bagging of regression trees: the mean of the
    members' predictions, or their median (``aggregation='median'``)."""
    members = tree_members(model)
    n_outputs = model.n_outputs_
    if getattr(model, "aggregation", "mean") == "median":
        n_members = len(members)
        per_member = _Ensemble()
        for index, (member, features, _) in enumerate(members):
            tree = onnx_tree(member)
            tests = _TreeTests(tree, features)
            for output in range(n_outputs):
                per_member.add(tests, np.full(tests.leaves.size, output * n_members + index),
                               tree.leaf_values[:, output])
        predictions = graph.op("Reshape", [
            graph.tree_ensemble(per_member, n_outputs * n_members),
            graph.constant(np.array([-1, n_outputs, n_members], dtype=np.int64))])
        ordered, _ = graph.sort(predictions, n_members, axis=2)
        middle = [graph.op("Gather", [ordered, graph.constant(np.int64(position))], axis=2)
                  for position in sorted({(n_members - 1) // 2, n_members // 2})]
        median = middle[0] if len(middle) == 1 else graph.op("Mul", [
            graph.op("Add", middle), graph.constant(np.float32(0.5))])
        graph.output(graph.rename(median, "variable"), [None, n_outputs])
        return
    share = 1.0 / len(members)
    sums = _Ensemble()
    for member, features, _ in members:
        tree = onnx_tree(member)
        tests = _TreeTests(tree, features)
        for output in range(n_outputs):
            sums.add(tests, np.full(tests.leaves.size, output),
                     tree.leaf_values[:, output] * share)
    graph.output(graph.rename(graph.tree_ensemble(sums, n_outputs), "variable"),
                 [None, n_outputs])


def _boosted_trees(model):
    """The ``tree_`` of each of AdaBoost's members (fasttree trees alone)."""
    return [onnx_tree(member) for member in checked_trees(model)]


def _adaboost_classifier(graph, model):
    """SAMME: each member adds its weight to the class it predicts; the
    probabilities are a softmax of those votes times K / (W (K - 1)^2) (W
    the members' total weight), which is scikit-learn's softmax of the
    symmetric decision function for any K >= 2."""
    from ._targets import predicted_classes
    n_classes = len(model.classes_)
    votes = _Ensemble()
    for member, tree, weight in zip(model.estimators_, _boosted_trees(model),
                                    model.estimator_weights_):
        voted = model._class_indices(np.asarray(member.classes_))[predicted_classes(
            tree.leaf_values, getattr(member, "loss_matrix_", None))]
        votes.add(_TreeTests(tree, None), voted.astype(np.int64),
                  np.full(voted.size, float(weight)))
    scores = graph.tree_ensemble(votes, n_classes)
    total = float(np.sum(model.estimator_weights_))
    scale = n_classes / (total * (n_classes - 1) ** 2) if n_classes > 1 else 0.0
    probabilities = graph.op("Softmax", [graph.op("Mul", [
        scores, graph.constant(np.float32(scale))])], axis=1)
    graph.output(graph.rename(probabilities, "probabilities"), [None, n_classes])
    graph.labels([(model.classes_, graph.op("ArgMax", [scores], axis=1, keepdims=0))],
                 False)


def _adaboost_regressor(graph, model):
    """AdaBoost.R2: the weighted median of the members' predictions, the
    smallest prediction whose cumulative weight, in increasing order of
    prediction, reaches half the total (weights summed in float64)."""
    from onnx import TensorProto
    weights = np.asarray(model.estimator_weights_, dtype=np.float64)
    n_members = len(weights)
    per_member = _Ensemble()
    for index, tree in enumerate(_boosted_trees(model)):
        per_member.add(_TreeTests(tree, None), np.full(tree.n_leaves, index),
                       tree.leaf_values[:, 0])
    ordered, order = graph.sort(graph.tree_ensemble(per_member, n_members), n_members,
                                axis=1)
    cumulative = graph.op("CumSum", [graph.op("Gather", [graph.constant(weights), order],
                                              axis=0),
                                     graph.constant(np.int64(1))])
    reached = graph.op("Cast", [graph.op("GreaterOrEqual", [
        cumulative, graph.constant(np.float64(0.5 * weights.sum()))])], to=TensorProto.INT32)
    first = graph.op("ArgMax", [reached], axis=1, keepdims=1)
    median = graph.op("GatherElements", [ordered, first], axis=1)
    graph.output(graph.rename(median, "variable"), [None, 1])


class _Graph:
    """The nodes, constants and outputs of the graph being written."""

    def __init__(self):
        from onnx import helper, numpy_helper
        self.helper, self.numpy_helper = helper, numpy_helper
        self.nodes, self.outputs = [], []
        self.n_names = 0

    def name(self, hint="t"):
        self.n_names += 1
        return f"{hint}_{self.n_names}"

    def op(self, op_type, inputs, n_outputs=1, domain=None, **attributes):
        """Add a node; its output name (a tuple of names for several)."""
        names = [self.name(op_type.lower()) for _ in range(n_outputs)]
        self.nodes.append(self.helper.make_node(op_type, inputs, names, domain=domain,
                                                **attributes))
        return names[0] if n_outputs == 1 else tuple(names)

    def constant(self, array):
        tensor = self.numpy_helper.from_array(np.asarray(array), name=self.name("value"))
        return self.op("Constant", [], value=tensor)

    def rename(self, value, name):
        self.nodes.append(self.helper.make_node("Identity", [value], [name]))
        return name

    def columns(self, value, start, stop, name=None):
        """Columns start .. stop - 1 of a matrix (named ``name`` if given)."""
        part = self.op("Slice", [value, self.constant(np.array([start], dtype=np.int64)),
                                 self.constant(np.array([stop], dtype=np.int64)),
                                 self.constant(np.array([1], dtype=np.int64))])
        return part if name is None else self.rename(part, name)

    def sort(self, value, length, axis):
        """(values, their positions) in increasing order along ``axis``; equal
        values keep their order."""
        return self.op("TopK", [value, self.constant(np.array([length], dtype=np.int64))],
                       n_outputs=2, axis=axis, largest=0, sorted=1)

    def tree_ensemble(self, ensemble, n_targets):
        """A TreeEnsemble operator on ``X`` summing the trees of ``ensemble``
        (an :class:`_Ensemble`) into ``n_targets`` columns; its output name."""
        from onnx import AttributeProto
        name = self.name("treeensemble")
        node = self.helper.make_node("TreeEnsemble", ["X"], [name], domain="ai.onnx.ml")
        values = {"n_targets": int(n_targets), "aggregate_function": 1, "post_transform": 0,
                  **ensemble.attributes()}
        # Written into the node in place, in order of name as make_node
        # writes them: make_node would check every value's type and copy the
        # node arrays twice more, which took most of a large forest's export.
        for key in sorted(values):
            value = values[key]
            if isinstance(value, int):
                node.attribute.append(self.helper.make_attribute(key, value))
            elif value.dtype == np.int64:
                attribute = node.attribute.add(name=key, type=AttributeProto.INTS)
                attribute.ints.extend(value.tolist())
            else:
                attribute = node.attribute.add(name=key, type=AttributeProto.TENSOR)
                attribute.t.CopyFrom(self.numpy_helper.from_array(value, key))
        self.nodes.append(node)
        return name

    def labels(self, outputs, several):
        """The ``label`` output from (classes, index of each row's class) per
        output: (N,) for one output, (N, n_outputs) for several; bools as
        bools, integers as int64, other numbers as double, anything else as
        text."""
        from onnx import TensorProto
        kinds = {np.asarray(classes).dtype.kind for classes, _ in outputs}
        if kinds == {"b"}:
            dtype, kind = np.bool_, TensorProto.BOOL
        elif kinds <= set("iub"):
            dtype, kind = np.int64, TensorProto.INT64
        elif kinds <= set("iubf"):
            dtype, kind = np.float64, TensorProto.DOUBLE
        else:
            dtype, kind = object, TensorProto.STRING
        columns = []
        for classes, index in outputs:
            values = np.asarray(classes)
            values = (np.array([str(label) for label in values], dtype=object)
                      if dtype is object else values.astype(dtype))
            label = self.op("Gather", [self.constant(values), index], axis=0)
            if several:
                label = self.op("Unsqueeze", [label, self.constant(
                    np.array([1], dtype=np.int64))])
            columns.append(label)
        label = self.op("Concat", columns, axis=1) if several else columns[0]
        self.outputs.insert(0, self.helper.make_tensor_value_info(
            self.rename(label, "label"), kind, [None, len(outputs)] if several else [None]))

    def output(self, name, shape):
        """Declare the float32 matrix ``name`` an output of the graph."""
        from onnx import TensorProto
        shape = [None if size is None else int(size) for size in shape]
        self.outputs.append(self.helper.make_tensor_value_info(name, TensorProto.FLOAT, shape))

    def model(self, name, n_features):
        from onnx import TensorProto
        graph = self.helper.make_graph(
            self.nodes, name,
            [self.helper.make_tensor_value_info("X", TensorProto.FLOAT, [None, n_features])],
            self.outputs)
        onnx_model = self.helper.make_model(graph, opset_imports=[
            self.helper.make_opsetid("", ONNX_OPSET),
            self.helper.make_opsetid("ai.onnx.ml", ONNX_ML_OPSET)], producer_name="fasttree")
        onnx_model.ir_version = 10
        return onnx_model


# The operator's node attributes, in the order they are written.
_NODE_KEYS = ("featureids", "modes", "splits", "truenodeids", "trueleafs", "falsenodeids",
              "falseleafs", "missing_value_tracks_true")


class _TreeTests:
    """One tree as the operator's nodes ("tests"), numbered from 0 in the
    tree's node order, and its leaves, numbered from 0 in node order.

    A binary node is one test. A multiway node of k children becomes a chain
    of k - 1 membership tests, one per child but the one that missing values
    (and codes absent at the node) go to, which is the chain's last false
    branch; a missing value fails every test, so it ends there too. A
    multiway node of one child is no test: what leads to it leads to its
    child. A tree that is one leaf becomes one test whose branches both
    reach it.

    The arrays are made from the tree's node arrays at once; only subset and
    multiway nodes, whose category codes vary in number, are visited one by
    one. The same tree added to an ensemble once per target (a class's
    probability, an output) is laid out once.

    Attributes
    ----------
    nodes : dict of ndarray
        Per test, the ``_NODE_KEYS`` attributes; a branch's node id is a
        test's number or, where its ``*leafs`` flag is 1, a leaf's.
    membership : ndarray of float64
        The codes of every membership test, ascending, each test's followed
        by NaN, in test order.
    root : int
        The number of the test the tree starts at.
    leaves : ndarray of intp
        The tree's node index of each leaf.
    """

    def __init__(self, tree, features):
        records = tree.nodes
        n_nodes = tree.node_count
        left = records["left_child"].astype(np.intp)
        right = records["right_child"].astype(np.intp)
        kind = tree.flags & FLAG_KIND_MASK
        is_leaf = left == -1
        is_multiway = kind == FLAG_MULTIWAY
        n_tests = (~is_leaf).astype(np.intp)
        # Where a reference to a node leads: the node itself, or the only
        # child of a multiway node of one child (followed until a node that
        # is not one).
        leads_to = np.arange(n_nodes)
        chains = []
        for node in np.flatnonzero(is_multiway):
            children = tree.children(node)
            codes, missing_child = tree.branches(node)
            chain = np.flatnonzero(np.arange(children.size) != missing_child)
            n_tests[node] = chain.size
            if chain.size:
                chains.append((node, children, codes, missing_child, chain))
            else:
                leads_to[node] = children[missing_child]
        while True:
            onward = leads_to[leads_to]
            if np.array_equal(onward, leads_to):
                break
            leads_to = onward
        first_test = np.cumsum(n_tests) - n_tests
        leaf_number = np.cumsum(is_leaf) - 1
        self.leaves = np.flatnonzero(is_leaf)

        def branch(node_ids):
            """(node id, is a leaf) of the references to these tree nodes."""
            reached = leads_to[node_ids]
            leafs = is_leaf[reached]
            return np.where(leafs, leaf_number[reached], first_test[reached]), leafs

        reached_root = leads_to[0]
        if is_leaf[reached_root]:
            leaf = leaf_number[reached_root]
            self.nodes = {"featureids": np.zeros(1, np.intp),
                          "modes": np.full(1, BRANCH_LEQ, np.uint8),
                          "splits": np.zeros(1), "truenodeids": np.full(1, leaf),
                          "trueleafs": np.ones(1, np.intp), "falsenodeids": np.full(1, leaf),
                          "falseleafs": np.ones(1, np.intp),
                          "missing_value_tracks_true": np.zeros(1, np.intp)}
            self.membership, self.root = np.zeros(0), 0
            return
        self.root = int(first_test[reached_root])
        size = int(n_tests.sum())
        nodes = {key: np.zeros(size, np.uint8 if key == "modes" else
                               np.float64 if key == "splits" else np.intp)
                 for key in _NODE_KEYS}
        binary = np.flatnonzero(~is_leaf & ~is_multiway)
        at = first_test[binary]
        subset = kind[binary] == FLAG_SUBSET
        nodes["featureids"][at] = records["feature"][binary]
        nodes["modes"][at] = np.where(subset, BRANCH_MEMBER, BRANCH_LEQ)
        # A subset node's threshold field holds the bits of its set's offset.
        nodes["splits"][at] = np.where(subset, 0.0, records["threshold"][binary])
        nodes["truenodeids"][at], nodes["trueleafs"][at] = branch(left[binary])
        nodes["falsenodeids"][at], nodes["falseleafs"][at] = branch(right[binary])
        nodes["missing_value_tracks_true"][at] = (
            tree.flags[binary] & FLAG_MISSING_LEFT) != 0
        members = [(test, tree.left_categories(node))
                   for test, node in zip(at[subset], binary[subset])]
        for node, children, codes, missing_child, chain in chains:
            at = first_test[node] + np.arange(chain.size)
            nodes["featureids"][at] = records["feature"][node]
            nodes["modes"][at] = BRANCH_MEMBER
            nodes["truenodeids"][at], nodes["trueleafs"][at] = branch(children[chain])
            # Each test but the last fails to the next; the last to the child
            # of the missing values (and of codes absent at the node).
            nodes["falsenodeids"][at[:-1]] = at[1:]
            nodes["falsenodeids"][at[-1]], nodes["falseleafs"][at[-1]] = branch(
                children[missing_child])
            members += [(test, codes[child]) for test, child in zip(at, chain)]
        if features is not None:
            nodes["featureids"] = np.asarray(features, dtype=np.intp)[nodes["featureids"]]
        self.nodes = nodes
        members.sort(key=lambda member: member[0])
        self.membership = np.concatenate(
            [np.append(np.sort(codes).astype(np.float64), np.nan) for _, codes in members]
            or [np.zeros(0)])


class _Ensemble:
    """The TreeEnsemble attributes of trees added one by one, each with one
    target and weight per leaf."""

    def __init__(self):
        self.parts = []
        self.n_nodes = self.n_leaves = 0

    def add(self, tests, targets, weights):
        """Add the tree laid out as ``tests`` (a :class:`_TreeTests`), its
        leaf ``i`` adding ``weights[i]`` to target ``targets[i]`` (leaves in
        node order)."""
        part = dict(tests.nodes)
        for side in ("true", "false"):
            ids, leafs = part[side + "nodeids"], part[side + "leafs"]
            part[side + "nodeids"] = ids + np.where(leafs, self.n_leaves, self.n_nodes)
        part["membership"] = tests.membership
        part["roots"] = np.array([tests.root + self.n_nodes])
        part["leaf_targetids"] = np.asarray(targets, dtype=np.intp)
        part["leaf_weights"] = np.asarray(weights, dtype=np.float64)
        self.parts.append(part)
        self.n_nodes += part["modes"].size
        self.n_leaves += tests.leaves.size

    def attributes(self):
        """The operator's node, leaf and root attributes by name: int64
        arrays for its lists of integers, the others' arrays as their
        tensors hold them."""

        def joined(key, dtype):
            return np.concatenate([part[key] for part in self.parts]).astype(dtype)

        attributes = {f"nodes_{key}": joined(key, np.int64)
                      for key in _NODE_KEYS if key not in ("modes", "splits")}
        attributes.update(nodes_modes=joined("modes", np.uint8),
                          nodes_splits=joined("splits", np.float32),
                          leaf_targetids=joined("leaf_targetids", np.int64),
                          leaf_weights=joined("leaf_weights", np.float32),
                          tree_roots=joined("roots", np.int64))
        membership = joined("membership", np.float32)
        if membership.size:
            attributes["membership_values"] = membership
        return attributes
