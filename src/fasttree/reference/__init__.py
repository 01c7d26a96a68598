"""Pure-Python reference implementations used as test oracles.

Slow and written to be obviously correct: impurity criteria, with the
pinball loss of quantile regression (:mod:`.criteria`), brute-force best-split search (:mod:`.split`), a whole
tree builder with scikit-learn's stopping rules (:mod:`.tree`), a forest of
such trees with bootstrap counts, votes, OOB and importances (:mod:`.forest`),
textbook ID3 for categorical data (:mod:`.id3`), CART's categorical subset
splits with learnt missing-value directions (:mod:`.mixed`), C4.5's multiway
trees with gain ratio and fractional missing values (:mod:`.c45`),
cost-complexity, reduced-error and pessimistic pruning (:mod:`.pruning`) and
AdaBoost (SAMME and AdaBoost.R2, :mod:`.boosting`), the binning of the
histogram splitter (:mod:`.binning`), and flat and two-level mixtures of
experts trained by EM, with their gates, k-means start and linear experts
(:mod:`.mixture`).  Only numpy is needed.
"""

from .binning import BinnedColumn, bin_column, bin_matrix
from .boosting import (
    ReferenceBoost,
    ReferenceBoostR2,
    adaboost_r2,
    samme,
    weighted_median,
)
from .c45 import C45Tree, build_c45_tree, c45_split_scores
from .criteria import (
    CRITERIA,
    CostSensitiveGini,
    PinballLoss,
    conditional_entropy,
    entropy,
    entropy_of_probabilities,
    gini,
    impurity,
    information_gain,
    misclassification,
    pinball_loss,
    poisson,
    squared_error,
    weighted_quantile,
)
from .forest import ReferenceForest, bootstrap_counts, build_forest
from .id3 import id3_tree
from .mixed import MixedSplit, MixedTree, best_mixed_split, build_mixed_tree
from .mixture import (
    GATE_RIDGE,
    GATE_STEPS,
    KMEANS_ROUNDS,
    PROBABILITY_FLOOR,
    RESPONSIBILITY_TRIM,
    GateInputs,
    LinearExpert,
    LogisticExpert,
    ReferenceMixture,
    fit_mixture,
    gate_inputs,
    gate_log_probabilities,
    gate_objective,
    initial_responsibilities,
    kmeans,
    penalised_gate_objective,
    softmax_gate_step,
    update_gate,
    with_intercept,
)
from .pruning import (binomial_upper_limit, cost_complexity_path, cost_complexity_prune,
                      pessimistic_prune, reduced_error_prune)
from .split import Split, best_split, midpoint
from .tree import TREE_LEAF, TREE_UNDEFINED, Node, ReferenceTree, build_tree

__all__ = [
    "BinnedColumn",
    "C45Tree",
    "CRITERIA",
    "CostSensitiveGini",
    "GATE_RIDGE",
    "GATE_STEPS",
    "KMEANS_ROUNDS",
    "PROBABILITY_FLOOR",
    "RESPONSIBILITY_TRIM",
    "TREE_LEAF",
    "TREE_UNDEFINED",
    "GateInputs",
    "LinearExpert",
    "LogisticExpert",
    "MixedSplit",
    "MixedTree",
    "Node",
    "PinballLoss",
    "ReferenceBoost",
    "ReferenceBoostR2",
    "ReferenceForest",
    "ReferenceMixture",
    "ReferenceTree",
    "Split",
    "adaboost_r2",
    "best_mixed_split",
    "best_split",
    "bin_column",
    "bin_matrix",
    "binomial_upper_limit",
    "bootstrap_counts",
    "build_c45_tree",
    "build_forest",
    "build_mixed_tree",
    "build_tree",
    "c45_split_scores",
    "conditional_entropy",
    "cost_complexity_path",
    "cost_complexity_prune",
    "entropy",
    "entropy_of_probabilities",
    "fit_mixture",
    "gate_inputs",
    "gate_log_probabilities",
    "gate_objective",
    "gini",
    "id3_tree",
    "impurity",
    "information_gain",
    "initial_responsibilities",
    "kmeans",
    "midpoint",
    "misclassification",
    "penalised_gate_objective",
    "pessimistic_prune",
    "pinball_loss",
    "poisson",
    "reduced_error_prune",
    "samme",
    "softmax_gate_step",
    "squared_error",
    "update_gate",
    "weighted_median",
    "weighted_quantile",
    "with_intercept",
]
