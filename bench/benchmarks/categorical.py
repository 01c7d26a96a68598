"""Timing benchmarks for categorical features and missing values.

A DataFrame of numeric columns and string columns of 3 to 5,000 categories,
10% of every column missing (the data of ``bench/compare_categorical.py``):
a tree and a forest fitted on it as it is, and their predictions on new rows
(including the encoding of the strings).
"""

from fasttree import DecisionTreeClassifier, RandomForestClassifier

from . import REPEAT

SIZES = [20_000, 100_000]


def _frame(n_rows, seed):
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from compare_categorical import synthetic

    return synthetic(n_rows, seed)


class _Data:
    params = [SIZES]
    param_names = ["n_samples"]
    number = 1
    repeat = REPEAT
    warmup_time = 0.0
    timeout = 900

    def setup(self, n_samples):
        self.X, self.y = _frame(n_samples, 0)
        self.X_new, _ = _frame(n_samples, 1)


class CategoricalFit(_Data):
    """Fit on strings and gaps as they are."""

    def time_tree_fit(self, n_samples):
        DecisionTreeClassifier(random_state=0).fit(self.X, self.y)

    def time_forest_fit(self, n_samples):
        RandomForestClassifier(n_estimators=50, n_jobs=1, random_state=0).fit(self.X, self.y)


class CategoricalPredict(_Data):
    """Prediction on new rows, strings encoded on the way."""

    def setup(self, n_samples):
        super().setup(n_samples)
        self.tree = DecisionTreeClassifier(random_state=0).fit(self.X, self.y)
        self.forest = RandomForestClassifier(n_estimators=50, n_jobs=1,
                                             random_state=0).fit(self.X, self.y)

    def time_tree_predict(self, n_samples):
        self.tree.predict(self.X_new)

    def time_forest_predict_proba(self, n_samples):
        self.forest.predict_proba(self.X_new)
