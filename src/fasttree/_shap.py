"""Models as SHAP's tree format: ``shap.TreeExplainer(export_shap(model))``.

SHAP takes a dictionary of trees, each of arrays node by node: children
(-1 at leaves), the child that missing values take, the feature and
threshold tested (``x <= threshold`` goes left), the node's values and its
training weight (the "cover"). It sums the trees' values, so a forest's
trees carry their values divided by the number of trees, and the sum is
what fasttree predicts: class probabilities for classifiers, the mean for
regressors. shap is not needed to export, only to explain.
"""

import numpy as np


def export_shap(model):
    """The model as the dictionary ``shap.TreeExplainer`` accepts.

    Parameters
    ----------
    model : fitted fasttree estimator
        A decision or extra tree, a random forest or extra trees (mean
        aggregation, soft voting), or bagging of fasttree trees (the same).
        Splits must compare numbers: a category-set or multiway split has no
        place in SHAP's format.

    Returns
    -------
    dict
        ``{"trees": [...], "base_offset": 0.0, "tree_output": "raw_value",
        "objective": "squared_error", "input_dtype": numpy.float32,
        "internal_dtype": numpy.float64}``; each tree a dict of the arrays
        ``children_left``, ``children_right``, ``children_default``,
        ``features``, ``thresholds``, ``values`` (nodes x outputs: class
        probabilities, or means) and ``node_sample_weight``. The SHAP values
        of a row sum, with the expected value, to ``predict_proba`` of a
        classifier or ``predict`` of a regressor.

    Raises
    ------
    ValueError
        For a model SHAP's format cannot express (named in the message).
    """
    members = tree_members(model)
    _check_additive(model)
    share = 1.0 / len(members)
    trees = [_shap_tree(member, features, columns, share) for member, features, columns
             in members]
    return {"trees": trees, "base_offset": 0.0, "tree_output": "raw_value",
            "objective": "squared_error", "input_dtype": np.float32,
            "internal_dtype": np.float64}


def _check_additive(model):
    """ValueError unless the model's prediction is the mean of its trees'."""
    name = type(model).__name__
    if getattr(model, "aggregation", "mean") != "mean":
        raise ValueError(f"{name} with aggregation={model.aggregation!r} is not a sum "
                         "of trees; SHAP explains aggregation='mean'")
    if getattr(model, "voting", "soft") != "soft":
        raise ValueError(f"{name} with voting={model.voting!r} is not a sum of trees; "
                         "SHAP explains voting='soft'")


def tree_members(model):
    """The fasttree trees of a tree, forest or bagging model: a list of
    (tree estimator, the model's feature of each member feature or None,
    (the model's column of each member class, the number of classes) or None).

    Raises ValueError for an unfitted model, another kind of model, or
    members that are not fasttree trees.
    """
    from .bagging import BaseBagging
    from .forest import BaseForest
    from .tree import BaseDecisionTree
    name = type(model).__name__
    if not hasattr(model, "n_features_in_"):
        raise ValueError(f"this {name} is not fitted yet")
    if isinstance(model, BaseDecisionTree):
        return [(model, None, None)]
    if not isinstance(model, (BaseForest, BaseBagging)):
        raise ValueError(f"{name} is not made of trees alone (export trees, forests and "
                         "bagging)")
    subsets = getattr(model, "estimators_features_", None)
    members = []
    for index, member in enumerate(checked_trees(model)):
        columns = None
        if isinstance(model, BaseBagging) and hasattr(model, "classes_"):
            columns = (np.searchsorted(model.classes_, member.classes_),
                       len(model.classes_))
        members.append((member, None if subsets is None else subsets[index], columns))
    return members


def checked_trees(model):
    """The ensemble's ``estimators_``, or ValueError when one is not a
    fasttree tree (a member from another library has no tree to export)."""
    from .tree import BaseDecisionTree
    for member in model.estimators_:
        if not isinstance(member, BaseDecisionTree):
            raise ValueError(f"{type(model).__name__} has members of "
                             f"{type(member).__name__}; the export takes fasttree trees")
    return model.estimators_


def binary_tree(estimator):
    """The estimator's ``tree_``, or ValueError when it has multiway splits or
    fractional missing values, which SHAP's binary format cannot hold."""
    tree = estimator.tree_
    if tree.fractional or tree.is_multiway.any():
        raise ValueError("SHAP's tree format has no multiway splits or fractional missing "
                         "values; grow the tree with categorical_split='binary' and "
                         "missing='learn'")
    return tree


def _shap_tree(estimator, features, columns, share):
    tree = binary_tree(estimator)
    if np.any(tree.is_categorical):
        raise ValueError("a tree that splits a categorical feature into sets of "
                         "categories has no place in SHAP's format (threshold tests only)")
    if tree.n_outputs != 1 and tree.value.shape[2] != 1:
        raise ValueError("SHAP export takes classifiers of one output")
    left = tree.children_left.astype(np.int32)
    right = tree.children_right.astype(np.int32)
    feature = tree.feature.astype(np.int32)
    inner = left != -1
    if features is not None:
        feature[inner] = np.asarray(features)[feature[inner]]
    feature[~inner] = -2
    missing_left = tree.missing_go_to_left.astype(bool)
    default = np.where(inner, np.where(missing_left, left, right), -1).astype(np.int32)
    value = tree.value
    if value.shape[2] == 1:                      # regression: one mean per output
        values = value[:, :, 0]
    else:                                        # class probabilities of one output
        values = value[:, 0, :]
        if columns is not None:
            # A member that saw some of the classes: its columns among all.
            positions, n_classes = columns
            full = np.zeros((values.shape[0], n_classes))
            full[:, positions] = values
            values = full
    thresholds = np.where(inner, tree.threshold, 0.0).astype(np.float64)
    return {"children_left": left, "children_right": right, "children_default": default,
            "features": feature, "thresholds": thresholds,
            "values": np.ascontiguousarray(values * share, dtype=np.float64),
            "node_sample_weight": tree.weighted_n_node_samples.astype(np.float64)}
