"""Mixtures of experts on the bundled breast cancer data (the exercise of fitting
flat and hierarchical mixtures against single models): cross-validate each model,
then draw a two-expert gate over two features.

Run: python examples/mixture_of_experts.py

The experts are logistic regressions (LogisticExpert, the default) or stumps
(depth-1 trees). A flat mixture of two stumps answers with three splits, one soft (the
gate) and one per expert, like a depth-2 tree; a hierarchical one adds a level of
gates, like a depth-3 tree: those trees are the depth-matched single models. The folds
are scikit-learn's StratifiedKFold; without scikit-learn the script makes its own
stratified folds and the accuracies differ a little. The picture goes to
mixture_gate.png in the current directory, or in the directory given as the first
argument; without matplotlib (pip install "fasttree[plot]") it is not drawn.

Prints:

    10-fold cross-validated accuracy on 683 rows (mean and standard deviation):
      one logistic expert                    0.968  0.017
      one stump                              0.912  0.035
      one depth-2 tree                       0.944  0.032
      one depth-3 tree                       0.949  0.031
      flat mixture, 2 logistic experts       0.966  0.028
      hierarchical mixture, 2x2 logistic     0.968  0.024
      flat mixture, 2 stumps                 0.966  0.021
      hierarchical mixture, 2x2 stumps       0.963  0.024
    gate on uniformity_cell_size and bare_nuclei:
      expert 0 weighs most for 466 rows, 6% of them malignant
      expert 1 weighs most for 217 rows, 97% of them malignant
    gate weights drawn to mixture_gate.png
"""

import os
import sys

import numpy as np

from fasttree import DecisionTreeClassifier, LogisticExpert, MixtureOfExpertsClassifier
from fasttree.datasets import load_breast_cancer_wisconsin

X, y, feature_names = load_breast_cancer_wisconsin()

stump = DecisionTreeClassifier(max_depth=1, random_state=0)
models = {
    "one logistic expert": LogisticExpert(),
    "one stump": stump,
    "one depth-2 tree": DecisionTreeClassifier(max_depth=2, random_state=0),
    "one depth-3 tree": DecisionTreeClassifier(max_depth=3, random_state=0),
    "flat mixture, 2 logistic experts":
        MixtureOfExpertsClassifier(n_experts=2, random_state=0),
    "hierarchical mixture, 2x2 logistic":
        MixtureOfExpertsClassifier(n_experts=2, levels=2, random_state=0),
    "flat mixture, 2 stumps":
        MixtureOfExpertsClassifier(stump, n_experts=2, random_state=0),
    "hierarchical mixture, 2x2 stumps":
        MixtureOfExpertsClassifier(stump, n_experts=2, levels=2, random_state=0),
}

try:
    from sklearn.model_selection import StratifiedKFold, cross_val_score
except ImportError:                       # numpy alone: stratified folds made here
    StratifiedKFold = None


def numpy_folds(y, n_folds, seed):
    """(train, test) row indices of ``n_folds`` shuffled folds, each holding an
    equal share of every class."""
    rng = np.random.default_rng(seed)
    fold = np.empty(len(y), dtype=int)
    for label in np.unique(y):
        rows = rng.permutation(np.flatnonzero(y == label))
        fold[rows] = np.arange(len(rows)) % n_folds
    return [(np.flatnonzero(fold != k), np.flatnonzero(fold == k)) for k in range(n_folds)]


def cross_validated_accuracy(model):
    if StratifiedKFold is not None:
        folds = StratifiedKFold(n_splits=10, shuffle=True, random_state=0)
        return cross_val_score(model, X, y, cv=folds)
    return np.array([model.fit(X[train], y[train]).score(X[test], y[test])
                     for train, test in numpy_folds(y, 10, seed=0)])


print(f"10-fold cross-validated accuracy on {len(y)} rows (mean and standard deviation):")
for name, model in models.items():
    scores = cross_validated_accuracy(model)
    print(f"  {name:<38} {scores.mean():.3f}  {scores.std():.3f}")

# The gate of a flat two-expert mixture fitted on two features alone.
pair = ["uniformity_cell_size", "bare_nuclei"]
X2 = X[:, [feature_names.index(name) for name in pair]]
mixture = MixtureOfExpertsClassifier(n_experts=2, random_state=0).fit(X2, y)
owner = mixture.gate_weights(X2).argmax(axis=1)        # the expert each row leans on
print(f"gate on {pair[0]} and {pair[1]}:")
for expert in range(2):
    rows = owner == expert
    print(f"  expert {expert} weighs most for {rows.sum()} rows, "
          f"{np.mean(y[rows] == 'malignant'):.0%} of them malignant")

try:
    from matplotlib.figure import Figure  # no pyplot: no window, any backend
except ImportError:
    print("gate weights not drawn: matplotlib is not installed")
    sys.exit()

directory = sys.argv[1] if len(sys.argv) > 1 else "."
os.makedirs(directory, exist_ok=True)
a, b = np.meshgrid(np.linspace(0.5, 10.5, 201), np.linspace(0.5, 10.5, 201))
weight = mixture.gate_weights(np.column_stack([a.ravel(), b.ravel()]))[:, 0].reshape(a.shape)

figure = Figure(figsize=(6.4, 5.2), layout="constrained")
axes = figure.subplots()
filled = axes.contourf(a, b, weight, levels=np.linspace(0, 1, 11), cmap="RdBu")
axes.contour(a, b, weight, levels=[0.5], colors="black", linewidths=1)
figure.colorbar(filled, ax=axes, label="gate weight of expert 0")
# The scores are whole numbers from 1 to 10: a little jitter shows how many rows share one.
jitter = np.random.default_rng(0).uniform(-0.3, 0.3, size=X2.shape)
for label, marker, colour in (("benign", "o", "white"), ("malignant", "^", "black")):
    rows = y == label
    axes.scatter(*(X2[rows] + jitter[rows]).T, s=14, marker=marker, c=colour,
                 edgecolors="grey", linewidths=0.5, label=label)
axes.set(xlabel=pair[0], ylabel=pair[1])
axes.legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), ncols=2, frameon=False)
figure.suptitle("Flat mixture of 2 logistic experts: the gate's soft split")
path = os.path.normpath(os.path.join(directory, "mixture_gate.png"))
figure.savefig(path, dpi=100)
print(f"gate weights drawn to {path}")
