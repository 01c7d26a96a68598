"""One forest from several: ``merge_forests``."""

import numpy as np

from .forest import BaseForest

# Fitted attributes that must agree between the forests merged: what a row
# means to the trees (features, their names and categories) and what the
# trees' values mean (classes, outputs).
_SAME_INPUT = ("n_features_in_", "feature_names_in_", "is_categorical_", "categories_")
_SAME_TARGETS = ("classes_", "n_classes_", "n_outputs_")
# Out-of-bag estimates are averages over the trees that left a row out;
# merged forests keep none (their rows may differ, and the averages cannot
# be recombined without each row's tree count).
_OUT_OF_BAG = ("oob_score_", "oob_decision_function_", "oob_prediction_", "oob_curve_")


def _same(first, second):
    if isinstance(first, (list, tuple)):
        return (isinstance(second, (list, tuple)) and len(first) == len(second)
                and all(_same(a, b) for a, b in zip(first, second)))
    if isinstance(first, np.ndarray) or isinstance(second, np.ndarray):
        first, second = np.asarray(first), np.asarray(second)
        return first.shape == second.shape and bool(np.all(
            (first == second) | ((first != first) & (second != second))))
    return first == second


def merge_forests(forests):
    """One forest holding the trees of several, in order.

    Useful to grow trees elsewhere (another process, another machine, a Dask
    cluster) and combine them: the merged forest predicts with every tree,
    as a forest that had grown them all would.

    Parameters
    ----------
    forests : sequence of fitted forests
        Forests of one class (``RandomForestClassifier``, say), fitted on the
        same features (names and categories alike) and, for classifiers, the
        same classes.

    Returns
    -------
    forest
        A new forest of that class: the first forest's parameters with
        ``n_estimators`` the total, its trees those of the forests in turn
        (each with its ``random_state``). Out-of-bag estimates are dropped;
        ``estimators_samples_`` holds when all were fitted on the same rows
        with the same draws (``n_samples`` and ``max_samples``), else raises.

    Raises
    ------
    ValueError
        When fewer than one forest is given, a forest is unfitted, or the
        forests differ in class, features or classes.
    """
    forests = list(forests)
    if not forests:
        raise ValueError("merge_forests needs at least one forest")
    first = forests[0]
    kind = type(first)
    for index, forest in enumerate(forests):
        if not isinstance(forest, BaseForest):
            raise TypeError(f"merge_forests merges fasttree forests; forests[{index}] is a "
                            f"{type(forest).__name__}")
        if type(forest) is not kind:
            raise ValueError(f"merge_forests merges forests of one class: forests[0] is a "
                             f"{kind.__name__}, forests[{index}] a {type(forest).__name__}")
        forest._check_fitted()
        forest._check_members()
        for name in _SAME_INPUT + _SAME_TARGETS:
            if hasattr(first, name) != hasattr(forest, name) or (
                    hasattr(first, name) and not _same(getattr(first, name),
                                                       getattr(forest, name))):
                raise ValueError(f"merge_forests: forests[{index}] differs from forests[0] "
                                 f"in {name}; merged forests must be fitted on the same "
                                 "features and classes")
    state = first.__getstate__()
    for name in _OUT_OF_BAG:
        state.pop(name, None)
    state["oob_score"] = False
    state["n_estimators"] = sum(len(forest._trees) for forest in forests)
    state["_trees"] = [tree for forest in forests for tree in forest._trees]
    state["_tree_importances"] = [importances for forest in forests
                                  for importances in forest._tree_importances]
    state["_tree_seeds"] = [seed for forest in forests for seed in forest._tree_seeds]
    same_rows = all(
        forest._n_samples == first._n_samples
        and forest._n_samples_bootstrap == first._n_samples_bootstrap
        and forest.bootstrap == first.bootstrap
        and _same(forest._sample_weight, first._sample_weight) for forest in forests)
    if not same_rows:
        state["_rows_differ"] = True
    merged = kind.__new__(kind)
    merged.__setstate__(state)
    return merged
