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

from ._shap import _additive_members, binary_tree

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
        aggregation, soft voting), or ``AdaBoostClassifier``. Multiway
        (C4.5-style) splits and fractional missing values have no place in
        the operator and are refused.
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
            tree = binary_tree(member, ONNX_FORMAT)
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
            tree = binary_tree(member, ONNX_FORMAT)
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


class _Ensemble:
    """The TreeEnsemble attributes of trees added one by one."""

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
        left, right = tree.children_left, tree.children_right
        inner = np.flatnonzero(left != -1)
        position = {int(node): len(self.nodes["modes"]) + rank
                    for rank, node in enumerate(inner)}
        leaf_index = {}
        for node in np.flatnonzero(left == -1):
            leaf_index[int(node)] = len(self.leaf_targets)
            self.leaf_targets.append(int(targets[node]))
            self.leaf_weights.append(float(weights[node]))
        if inner.size == 0:  # a single leaf: one test whose branches both reach it
            self.roots.append(len(self.nodes["modes"]))
            for key, value in (("featureids", 0), ("modes", BRANCH_LEQ), ("splits", 0.0),
                               ("truenodeids", leaf_index[0]), ("trueleafs", 1),
                               ("falsenodeids", leaf_index[0]), ("falseleafs", 1),
                               ("missing", 0)):
                self.nodes[key].append(value)
            return
        self.roots.append(position[0])
        subset = np.asarray(tree.is_categorical, dtype=bool)
        for node in inner:
            feature = int(tree.feature[node])
            self.nodes["featureids"].append(int(features[feature]) if features is not None
                                            else feature)
            if subset[node]:
                self.nodes["modes"].append(BRANCH_MEMBER)
                self.nodes["splits"].append(0.0)
                self.members.append(sorted(int(code) for code in tree.left_categories(node)))
            else:
                self.nodes["modes"].append(BRANCH_LEQ)
                self.nodes["splits"].append(float(tree.threshold[node]))
            for child, prefix in ((int(left[node]), "true"), (int(right[node]), "false")):
                is_leaf = child in leaf_index
                self.nodes[prefix + "leafs"].append(int(is_leaf))
                self.nodes[prefix + "nodeids"].append(leaf_index[child] if is_leaf
                                                      else position[child])
            self.nodes["missing"].append(int(tree.missing_go_to_left[node]))

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
