"""Timing benchmarks for pruning and for reading trees.

A full-depth classification tree on synthetic float32 data, grown once in
setup: its cost-complexity pruning path, reduced-error pruning on held-out
rows, C4.5's pessimistic pruning, its text and rules, and a rule list fitted
from scratch.
"""

from fasttree import DecisionTreeClassifier, RuleListClassifier, export_text, tree_rules

from . import REPEAT
from .tree import _classification

SIZES = [(20_000, 20), (100_000, 50)]


class _Grown:
    params = [SIZES]
    param_names = ["n_samples, n_features"]
    number = 1
    repeat = REPEAT
    warmup_time = 0.0
    timeout = 600

    def setup(self, size):
        X, y = _classification(*size)
        half = X.shape[0] // 2
        self.X, self.y = X[:half], y[:half]
        self.X_val, self.y_val = X[half:], y[half:]
        self.model = DecisionTreeClassifier(random_state=0).fit(self.X, self.y)


class Pruning(_Grown):
    """The three pruning methods on a fitted full-depth tree."""

    def time_cost_complexity_path(self, size):
        self.model.tree_.cost_complexity_pruning(float("inf"))

    def time_reduced_error(self, size):
        self.model.prune_reduced_error(self.X_val, self.y_val)

    def time_pessimistic(self, size):
        self.model.prune_pessimistic()


class Reading(_Grown):
    """A fitted tree as text and as rules; a rule list fitted from scratch."""

    def time_export_text(self, size):
        export_text(self.model)

    def time_tree_rules(self, size):
        tree_rules(self.model)

    def time_rule_list_fit(self, size):
        RuleListClassifier(random_state=0).fit(self.X, self.y)
