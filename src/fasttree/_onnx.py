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
        over every child) have no place in the operator and are refused.
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
    from .tree import predicted_classes
    members = tree_members(model)
    several = isinstance(model.classes_, list)
    outputs = model.classes_ if several else [model.classes_]
    starts = np.r_[0, np.cumsum([len(classes) for classes in outputs])]
    share = 1.0 / len(members)
    hard = getattr(model, "voting", "soft") == "hard"
    sums, votes = _Ensemble(), _Ensemble()
    for member, features, columns in members:
        tree = onnx_tree(member)
        loss = getattr(member, "loss_matrix_", None)
        for output in range(len(outputs)):
            values = tree.value[:, output, :]
            positions = (np.arange(starts[output + 1] - starts[output]) if columns is None
                         else columns[0]) + starts[output]
            for column, position in enumerate(positions):
                sums.add(tree, features, np.full(tree.node_count, position),
                         values[:, column] * share)
            if hard:
                predicted = positions[predicted_classes(values[:, :len(positions)], loss)]
                votes.add(tree, features, predicted, np.ones(tree.node_count))
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
            for output in range(n_outputs):
                per_member.add(tree, features,
                               np.full(tree.node_count, output * n_members + index),
                               tree.value[:, output, 0])
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
        for output in range(n_outputs):
            sums.add(tree, features, np.full(tree.node_count, output),
                     tree.value[:, output, 0] * share)
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
    from .tree import predicted_classes
    n_classes = len(model.classes_)
    votes = _Ensemble()
    for member, tree, weight in zip(model.estimators_, _boosted_trees(model),
                                    model.estimator_weights_):
        voted = model._class_indices(np.asarray(member.classes_))[predicted_classes(
            tree.value[:, 0, :], getattr(member, "loss_matrix_", None))]
        votes.add(tree, None, voted.astype(np.int64), np.full(tree.node_count, float(weight)))
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
        per_member.add(tree, None, np.full(tree.node_count, index), tree.value[:, 0, 0])
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
        return self.op("TreeEnsemble", ["X"], domain="ai.onnx.ml", n_targets=int(n_targets),
                       aggregate_function=1, post_transform=0,
                       **ensemble.attributes(self.helper))

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


class _Ensemble:
    """The TreeEnsemble attributes of trees added one by one.

    A binary node is one test. A multiway node of k children becomes a chain
    of k - 1 membership tests, one per child but the one that missing values
    (and codes absent at the node) go to, which is the chain's last false
    branch; a missing value fails every test, so it ends there too.
    """

    def __init__(self):
        self.nodes = {key: [] for key in ("featureids", "modes", "splits", "truenodeids",
                                          "trueleafs", "falsenodeids", "falseleafs",
                                          "missing")}
        self.members = []
        self.leaf_targets, self.leaf_weights, self.roots = [], [], []

    def add(self, tree, features, targets, weights):
        """Add ``tree`` (its features mapped through ``features`` when given),
        leaf ``node`` adding ``weights[node]`` to target ``targets[node]``
        (both indexed by node)."""
        leaf_index = {}
        tests = []    # (feature, mode, split, codes, missing_true, true_ref, false_ref)
        entry = {}    # inner node: its first test, or ("node", child) for a one-child node
        left, right = tree.children_left, tree.children_right
        subset = np.asarray(tree.is_categorical, dtype=bool)
        multiway = tree.is_multiway
        for node in range(tree.node_count):
            if left[node] == -1:
                leaf_index[node] = len(self.leaf_targets)
                self.leaf_targets.append(int(targets[node]))
                self.leaf_weights.append(float(weights[node]))
                continue
            feature = int(tree.feature[node])
            if features is not None:
                feature = int(features[feature])
            if multiway[node]:
                children = tree.children(node)
                codes, missing_child = tree.branches(node)
                chain = [child for child in range(children.size) if child != missing_child]
                if not chain:
                    entry[node] = ("node", int(children[missing_child]))
                    continue
                entry[node] = len(tests)
                for rank, child in enumerate(chain):
                    last = rank + 1 == len(chain)
                    tests.append((feature, BRANCH_MEMBER, 0.0, codes[child], 0,
                                  ("node", int(children[child])),
                                  ("node", int(children[missing_child])) if last
                                  else ("test", len(tests) + 1)))
            else:
                entry[node] = len(tests)
                codes = tree.left_categories(node) if subset[node] else None
                tests.append((feature, BRANCH_MEMBER if subset[node] else BRANCH_LEQ,
                              0.0 if subset[node] else float(tree.threshold[node]), codes,
                              int(tree.missing_go_to_left[node]), ("node", int(left[node])),
                              ("node", int(right[node]))))
        base = len(self.nodes["modes"])

        def resolve(reference):
            """(is a leaf, its index) of a reference to a test or a tree node."""
            kind, index = reference
            while kind == "node" and index in entry and isinstance(entry[index], tuple):
                kind, index = entry[index]
            if kind == "test":
                return 0, base + index
            if index in leaf_index:
                return 1, leaf_index[index]
            return 0, base + entry[index]

        root_is_leaf, root = resolve(("node", 0))
        if root_is_leaf:  # a tree of one leaf: one test whose branches both reach it
            self.roots.append(base)
            for key, value in (("featureids", 0), ("modes", BRANCH_LEQ), ("splits", 0.0),
                               ("truenodeids", root), ("trueleafs", 1),
                               ("falsenodeids", root), ("falseleafs", 1), ("missing", 0)):
                self.nodes[key].append(value)
            return
        self.roots.append(root)
        for feature, mode, split, codes, missing_true, true_ref, false_ref in tests:
            self.nodes["featureids"].append(feature)
            self.nodes["modes"].append(mode)
            self.nodes["splits"].append(split)
            if mode == BRANCH_MEMBER:
                self.members.append(sorted(int(code) for code in codes))
            for reference, prefix in ((true_ref, "true"), (false_ref, "false")):
                is_leaf, index = resolve(reference)
                self.nodes[prefix + "leafs"].append(is_leaf)
                self.nodes[prefix + "nodeids"].append(index)
            self.nodes["missing"].append(missing_true)
    def attributes(self, helper):
        from onnx import TensorProto

        def tensor(name, kind, values):
            return helper.make_tensor(name, kind, [len(values)], values)

        membership = []
        for codes in self.members:
            membership += [float(code) for code in codes] + [float("nan")]
        attributes = {
            "nodes_featureids": self.nodes["featureids"],
            "nodes_modes": tensor("nodes_modes", TensorProto.UINT8, self.nodes["modes"]),
            "nodes_splits": tensor("nodes_splits", TensorProto.FLOAT, self.nodes["splits"]),
            "nodes_truenodeids": self.nodes["truenodeids"],
            "nodes_trueleafs": self.nodes["trueleafs"],
            "nodes_falsenodeids": self.nodes["falsenodeids"],
            "nodes_falseleafs": self.nodes["falseleafs"],
            "nodes_missing_value_tracks_true": self.nodes["missing"],
            "leaf_targetids": self.leaf_targets,
            "leaf_weights": tensor("leaf_weights", TensorProto.FLOAT, self.leaf_weights),
            "tree_roots": self.roots,
        }
        if membership:
            attributes["membership_values"] = tensor("membership_values", TensorProto.FLOAT,
                                                     membership)
        return attributes
