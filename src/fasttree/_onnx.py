"""Models as ONNX graphs: the ``TreeEnsemble`` operator of the ``ai.onnx.ml``
domain (opset 5), which tests thresholds (``x <= t``) and set membership
and sends missing values (NaN) a chosen way at every node.

The graph takes one float32 input ``X`` of shape (N, n_features), with
categorical features as their codes (positions in ``categories_``; NaN for
a missing or unseen category): :func:`onnx_rows` makes it from anything
``predict`` takes. A classifier gives ``label`` (N,) and ``probabilities``
(N, n_classes) (AdaBoost: ``scores``, the weighted votes); a regressor
``variable`` (N, n_outputs). Each leaf of the operator adds to one target,
so a tree of several values per leaf (class probabilities, outputs) is
written once per value. onnx is needed to export; onnxruntime to run.
"""

import numpy as np

from ._shap import _additive_members

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
        A tree, forest, extra trees, bagging of fasttree trees (mean
        aggregation, soft voting), or ``AdaBoostClassifier``; binary and
        multiway (C4.5) splits. Fractional missing values (a row spread
        over every child) have no place in the operator and are refused.
    name : str, optional
        The graph's name (default: the estimator's class name).

    Returns
    -------
    onnx.ModelProto
        Input ``X`` (float32, N x n_features, see :func:`onnx_rows`); outputs
        ``label`` and ``probabilities`` (classifiers; ``scores`` for AdaBoost)
        or ``variable`` (regressors).
    """
    from onnx import TensorProto, helper

    from .boosting import AdaBoostClassifier
    kind = type(model).__name__
    if not hasattr(model, "n_features_in_"):
        raise ValueError(f"this {kind} is not fitted yet")
    ensemble = _Ensemble()
    classifier = hasattr(model, "classes_")
    if isinstance(model, AdaBoostClassifier):
        n_targets = len(model.classes_)
        for member, alpha in zip(model.estimators_, model.estimator_weights_):
            tree = onnx_tree(member)
            votes = member.classes_[np.argmax(tree.value[:, 0, :], axis=1)]
            ensemble.add(tree, None, votes, np.full(tree.node_count, float(alpha)))
        output = "scores"
    else:
        members = _additive_members(model)
        share = 1.0 / len(members)
        if classifier and isinstance(model.classes_, list):
            raise ValueError("ONNX export takes classifiers of one output")
        n_targets = len(model.classes_) if classifier else model.n_outputs_
        for member, features, columns in members:
            tree = onnx_tree(member)
            values = tree.value[:, 0, :] if classifier else tree.value[:, :, 0]
            positions = np.arange(values.shape[1]) if columns is None else columns[0]
            for target in range(values.shape[1]):
                ensemble.add(tree, features, np.full(tree.node_count, positions[target]),
                             values[:, target] * share)
        output = "probabilities" if classifier else "variable"
    float_type = TensorProto.FLOAT
    nodes = [helper.make_node(
        "TreeEnsemble", ["X"], [output], domain="ai.onnx.ml", n_targets=n_targets,
        aggregate_function=1, post_transform=0, **ensemble.attributes(helper))]
    outputs = [helper.make_tensor_value_info(output, float_type, [None, n_targets])]
    if classifier:
        labels = np.asarray(model.classes_)
        if labels.dtype.kind in "iub":
            label_tensor = helper.make_tensor("classes", TensorProto.INT64, [len(labels)],
                                              labels.astype(np.int64).tolist())
            label_type = TensorProto.INT64
        else:
            label_tensor = helper.make_tensor("classes", TensorProto.STRING, [len(labels)],
                                              [str(label).encode() for label in labels])
            label_type = TensorProto.STRING
        nodes += [
            helper.make_node("Constant", [], ["classes"], value=label_tensor),
            helper.make_node("ArgMax", [output], ["class_index"], axis=1, keepdims=0),
            helper.make_node("Gather", ["classes", "class_index"], ["label"], axis=0),
        ]
        outputs.insert(0, helper.make_tensor_value_info("label", label_type, [None]))
    graph = helper.make_graph(
        nodes, name or kind,
        [helper.make_tensor_value_info("X", float_type, [None, model.n_features_in_])],
        outputs)
    onnx_model = helper.make_model(graph, opset_imports=[
        helper.make_opsetid("", ONNX_OPSET), helper.make_opsetid("ai.onnx.ml", ONNX_ML_OPSET)],
        producer_name="fasttree")
    onnx_model.ir_version = 10
    return onnx_model


def onnx_tree(estimator):
    """The estimator's ``tree_``, or ValueError for fractional missing values
    (a row spread over every child), which the operator cannot express."""
    tree = estimator.tree_
    if tree.fractional:
        raise ValueError(f"{ONNX_FORMAT} sends a missing value down one branch; grow the "
                         "tree with missing='learn', not 'fractional'")
    return tree


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
