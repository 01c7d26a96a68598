"""Pure-Python reference implementations used as test oracles.

Slow and written to be obviously correct: impurity criteria
(:mod:`.criteria`), brute-force best-split search (:mod:`.split`), a whole
tree builder with scikit-learn's stopping rules (:mod:`.tree`), a forest of
such trees with bootstrap counts, votes, OOB and importances (:mod:`.forest`)
and textbook ID3 for categorical data (:mod:`.id3`).  Only numpy is needed.
"""

from .criteria import (
    CRITERIA,
    conditional_entropy,
    entropy,
    entropy_of_probabilities,
    gini,
    impurity,
    information_gain,
    misclassification,
    squared_error,
)
from .forest import ReferenceForest, bootstrap_counts, build_forest
from .id3 import id3_tree
from .split import Split, best_split, midpoint
from .tree import TREE_LEAF, TREE_UNDEFINED, Node, ReferenceTree, build_tree

__all__ = [
    "CRITERIA",
    "Node",
    "ReferenceForest",
    "ReferenceTree",
    "Split",
    "TREE_LEAF",
    "TREE_UNDEFINED",
    "best_split",
    "bootstrap_counts",
    "build_forest",
    "build_tree",
    "conditional_entropy",
    "entropy",
    "entropy_of_probabilities",
    "gini",
    "id3_tree",
    "impurity",
    "information_gain",
    "midpoint",
    "misclassification",
    "squared_error",
]
