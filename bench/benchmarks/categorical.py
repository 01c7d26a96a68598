"""Timing benchmarks for categorical features and missing values.

A DataFrame of numeric columns and string columns of 3 to 5,000 categories,
10% of every column missing (the data of ``bench/compare_categorical.py``):
a tree and a forest fitted on it as it is, and their predictions on new rows
(including the encoding of the strings). And few rows of many categories and
many classes (``compare_categorical.many_levels``), where every node tries an
ordering of its categories per class.
"""

from fasttree import DecisionTreeClassifier, RandomForestClassifier

from . import REPEAT

SIZES = [20_000, 100_000]


def _data_module():
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    import compare_categorical

    return compare_categorical


def _frame(n_rows, seed):
    return _data_module().synthetic(n_rows, seed)


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


class ManyLevelsAndClasses:
    """Fit on 1,000 rows of three string columns of about 1,000 levels each
    and about 1,000 classes."""

    number = 1
    repeat = REPEAT
    warmup_time = 0.0
    timeout = 600

    def setup(self):
        self.X, self.y = _data_module().many_levels(1000, 0)

    def time_tree_fit(self):
        DecisionTreeClassifier(random_state=0).fit(self.X, self.y)

    def time_tree_fit_entropy(self):
        DecisionTreeClassifier(criterion="entropy", random_state=0).fit(self.X, self.y)

    def time_forest_fit(self):
        RandomForestClassifier(n_estimators=10, n_jobs=1, random_state=0).fit(self.X, self.y)
