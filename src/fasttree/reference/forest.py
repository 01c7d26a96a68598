"""A random forest / bagging ensemble built from :func:`build_tree`, as an oracle.

Slow and written to be obviously correct.  The randomness is kept outside
the trees: the caller chooses each tree's per-row draw counts (for example
with :func:`bootstrap_counts`) and, optionally, its feature subset, so a
compiled forest given the same rows and features must agree exactly.

Rules a compiled forest must reproduce:

* tree ``t`` is ``build_tree`` on the rows with ``sample_counts[t] > 0``
  (in increasing row order), weighted by ``count * sample_weight``, seeing
  only the columns ``X[:, feature_subsets[t]]``;
* averages over trees (soft votes, regression means, OOB aggregates) are
  summed in tree order, then divided by the number of trees summed;
* every argmax (a tree's vote, soft and hard voting, OOB classes) picks the
  lowest class index on ties.
"""

import numpy as np

from .criteria import _as_weights
from .split import REGRESSION_CRITERIA, _check_X
from .tree import _check_classes, build_tree

__all__ = ["ReferenceForest", "bootstrap_counts", "build_forest"]


def bootstrap_counts(n_samples, n_draws, rng, replace=True):
    """How many times each row is drawn into one tree's sample.

    Parameters
    ----------
    n_samples : int
        Number of training rows.
    n_draws : int
        Number of draws (the bootstrap sample size).
    rng : numpy.random.Generator or int
        Random generator; an int seeds ``np.random.default_rng``.
    replace : bool, default=True
        Draw with replacement (bootstrap) or without (subagging).

    Returns
    -------
    ndarray of int64, shape (n_samples,)
        Draw count of each row; 0/1 when ``replace=False``.

    Notes
    -----
    Exactly one generator call is made:

    * ``replace=True``: ``rows = rng.integers(0, n_samples, n_draws)``, then
      ``np.bincount(rows, minlength=n_samples)``;
    * ``replace=False``: ``rows = rng.choice(n_samples, n_draws,
      replace=False)``, and each drawn row gets count 1.
    """
    rng = np.random.default_rng(rng)
    n_samples = int(n_samples)
    n_draws = int(n_draws)
    if n_samples < 1:
        raise ValueError(f"n_samples must be >= 1, got {n_samples}")
    if n_draws < 0:
        raise ValueError(f"n_draws must be >= 0, got {n_draws}")
    if replace:
        rows = rng.integers(0, n_samples, n_draws)
    else:
        if n_draws > n_samples:
            raise ValueError(
                f"cannot draw {n_draws} of {n_samples} rows without replacement"
            )
        rows = rng.choice(n_samples, n_draws, replace=False)
    return np.bincount(rows, minlength=n_samples).astype(np.int64)


def _check_counts(sample_counts, n_samples):
    """Return the counts as an int64 array of shape (n_trees, n_samples)."""
    rows = [np.asarray(counts).reshape(-1) for counts in sample_counts]
    if not rows:
        raise ValueError("sample_counts must hold at least one tree")
    for tree_index, counts in enumerate(rows):
        if counts.shape[0] != n_samples:
            raise ValueError(
                f"sample_counts[{tree_index}] has {counts.shape[0]} entries, "
                f"X has {n_samples} rows"
            )
        if counts.dtype.kind not in "biu" and not np.all(counts == np.floor(counts)):
            raise ValueError(f"sample_counts[{tree_index}] must be whole numbers")
        if np.any(counts < 0):
            raise ValueError(f"sample_counts[{tree_index}] must be non-negative")
        if not np.any(counts > 0):
            raise ValueError(f"sample_counts[{tree_index}] selects no row")
    return np.array(rows, dtype=np.int64)


def _check_subsets(feature_subsets, n_trees, n_features):
    """Return one intp array of original feature indices per tree."""
    if feature_subsets is None:
        return [np.arange(n_features, dtype=np.intp) for _ in range(n_trees)]
    subsets = [np.asarray(subset, dtype=np.intp).reshape(-1)
               for subset in feature_subsets]
    if len(subsets) != n_trees:
        raise ValueError(
            f"feature_subsets has {len(subsets)} entries for {n_trees} trees"
        )
    for tree_index, subset in enumerate(subsets):
        if subset.size == 0:
            raise ValueError(f"feature_subsets[{tree_index}] is empty")
        if subset.min() < 0 or subset.max() >= n_features:
            raise ValueError(
                f"feature_subsets[{tree_index}] is out of range for "
                f"{n_features} features"
            )
    return subsets


def build_forest(
    X,
    y,
    sample_counts,
    *,
    criterion="gini",
    n_classes=None,
    feature_subsets=None,
    sample_weight=None,
    **tree_params,
):
    """Build one reference tree per entry of `sample_counts`.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Training rows; cast to float32.
    y : array-like of shape (n_samples,)
        Class indices, or float targets for ``criterion='squared_error'``.
    sample_counts : sequence of array-like of shape (n_samples,)
        One per tree: how many times each row was drawn.  Tree ``t`` is
        built on the rows with a positive count, in increasing row order,
        with weight ``count * sample_weight``, so a row drawn twice counts
        as twice its weight, exactly like a duplicated bootstrap row.
    criterion : str, default='gini'
        Passed to :func:`build_tree`.
    n_classes : int, optional
        Number of classes; default ``max(y) + 1`` over all rows, so every
        tree has the same classes even if its sample misses one.
    feature_subsets : sequence of array-like of int, optional
        One per tree: the original feature indices the tree sees, as
        ``X[:, subset]`` (repeats allowed).  Default all features.
    sample_weight : array-like of shape (n_samples,), optional
        Row weights multiplied into the counts; default ones.
    **tree_params
        Stopping rules passed to :func:`build_tree` (``max_depth``,
        ``min_samples_leaf``, ...).

    Returns
    -------
    ReferenceForest
    """
    X = _check_X(X)
    n_samples, n_features = X.shape
    if criterion in REGRESSION_CRITERIA:
        y = np.asarray(y, dtype=np.float64).reshape(-1)
        n_classes = None
    else:
        y, n_classes = _check_classes(y, n_classes)
    if y.shape[0] != n_samples:
        raise ValueError(f"X has {n_samples} rows but y has {y.shape[0]}")
    weights = _as_weights(sample_weight, n_samples)
    counts = _check_counts(sample_counts, n_samples)
    subsets = _check_subsets(feature_subsets, counts.shape[0], n_features)

    trees = []
    for tree_counts, subset in zip(counts, subsets):
        rows = np.flatnonzero(tree_counts > 0)
        trees.append(
            build_tree(
                X[rows][:, subset],
                y[rows],
                tree_counts[rows] * weights[rows],
                criterion=criterion,
                n_classes=n_classes,
                **tree_params,
            )
        )
    return ReferenceForest(trees, subsets, counts, X, n_features, n_classes)


class ReferenceForest:
    """Trees of a forest plus voting, OOB and importance methods.

    Parameters
    ----------
    trees : list of ReferenceTree
        The fitted trees.
    feature_subsets : list of ndarray of intp
        Original feature indices seen by each tree.
    sample_counts : ndarray of int64, shape (n_trees, n_samples)
        Draw counts each tree was built from; 0 means out of bag.
    X_train : ndarray of float32, shape (n_samples, n_features)
        Training rows, used for the out-of-bag methods.
    n_features : int
        Number of columns of the training X.
    n_classes : int or None
        Number of classes, or None for regression.
    """

    def __init__(self, trees, feature_subsets, sample_counts, X_train,
                 n_features, n_classes):
        self.trees = trees
        self.feature_subsets = feature_subsets
        self.sample_counts = sample_counts
        self.X_train = X_train
        self.n_features = n_features
        self.n_classes = n_classes

    @property
    def n_trees(self):
        """int: number of trees."""
        return len(self.trees)

    @property
    def is_classifier(self):
        """bool: True for a classification forest."""
        return self.n_classes is not None

    def _check_input(self, X):
        X = _check_X(X)
        if X.shape[1] != self.n_features:
            raise ValueError(
                f"X has {X.shape[1]} features, the forest was built with "
                f"{self.n_features}"
            )
        return X

    def _require(self, classifier, method):
        if self.is_classifier != classifier:
            kind = "classification" if classifier else "regression"
            raise ValueError(f"{method} is only defined for {kind} forests")

    def _tree_output(self, tree_index, X):
        """(n_rows, n_values) leaf values of one tree on full-width rows X."""
        subset = self.feature_subsets[tree_index]
        values = self.trees[tree_index].predict_value(X[:, subset])
        return values.reshape(X.shape[0], -1)

    def tree_outputs(self, X):
        """Leaf value of every tree for every row.

        Parameters
        ----------
        X : array-like of shape (n_rows, n_features)

        Returns
        -------
        ndarray of float64, shape (n_trees, n_rows, n_values)
            Class probabilities (``n_values = n_classes``) or the leaf mean
            (``n_values = 1``).
        """
        X = self._check_input(X)
        return np.stack([self._tree_output(t, X) for t in range(self.n_trees)])

    def _mean_over_trees(self, outputs):
        """Sum over axis 0 in tree order, then divide by the tree count."""
        total = np.zeros(outputs.shape[1:], dtype=np.float64)
        for output in outputs:
            total += output
        return total / outputs.shape[0]

    def predict_proba(self, X):
        """Soft vote: the mean over trees of the class probabilities.

        Parameters
        ----------
        X : array-like of shape (n_rows, n_features)

        Returns
        -------
        ndarray of float64, shape (n_rows, n_classes)
        """
        self._require(True, "predict_proba")
        return self._mean_over_trees(self.tree_outputs(X))

    def vote_fractions(self, X):
        """Hard vote: the share of trees predicting each class.

        A tree predicts the argmax of its probabilities, lowest index on ties.

        Parameters
        ----------
        X : array-like of shape (n_rows, n_features)

        Returns
        -------
        ndarray of float64, shape (n_rows, n_classes)
            Each row sums to 1.
        """
        self._require(True, "vote_fractions")
        outputs = self.tree_outputs(X)
        votes = np.zeros(outputs.shape[1:], dtype=np.float64)
        rows = np.arange(outputs.shape[1])
        for output in outputs:
            votes[rows, np.argmax(output, axis=1)] += 1.0
        return votes / self.n_trees

    def predict(self, X, voting=None, aggregation=None):
        """Predicted class index or regression value.

        Parameters
        ----------
        X : array-like of shape (n_rows, n_features)
        voting : {'soft', 'hard'}, optional
            Classification only (default 'soft'): argmax of
            :meth:`predict_proba` or of :meth:`vote_fractions`, lowest class
            index on ties.
        aggregation : {'mean', 'median'}, optional
            Regression only (default 'mean'): mean or ``np.median`` (mean of
            the two middle values for an even tree count) over trees.

        Returns
        -------
        ndarray of shape (n_rows,)
            intp class indices or float64 values.
        """
        if self.is_classifier:
            if aggregation is not None:
                raise ValueError("aggregation is for regression; use voting")
            voting = "soft" if voting is None else voting
            if voting == "soft":
                return np.argmax(self.predict_proba(X), axis=1)
            if voting == "hard":
                return np.argmax(self.vote_fractions(X), axis=1)
            raise ValueError(f"voting must be 'soft' or 'hard', got {voting!r}")
        if voting is not None:
            raise ValueError("voting is for classification; use aggregation")
        aggregation = "mean" if aggregation is None else aggregation
        values = self.tree_outputs(X)[:, :, 0]
        if aggregation == "mean":
            return self._mean_over_trees(values)
        if aggregation == "median":
            return np.median(values, axis=0)
        raise ValueError(
            f"aggregation must be 'mean' or 'median', got {aggregation!r}"
        )

    def _oob_mean(self):
        """(n_samples, n_values) mean over each row's OOB trees; NaN if none."""
        total = None
        n_oob_trees = np.zeros(self.X_train.shape[0], dtype=np.int64)
        for t in range(self.n_trees):
            output = self._tree_output(t, self.X_train)
            if total is None:
                total = np.zeros_like(output)
            out_of_bag = self.sample_counts[t] == 0
            total[out_of_bag] += output[out_of_bag]
            n_oob_trees += out_of_bag
        result = np.full_like(total, np.nan)
        has_oob = n_oob_trees > 0
        result[has_oob] = total[has_oob] / n_oob_trees[has_oob, None]
        return result

    def oob_decision_function(self):
        """Out-of-bag soft vote of every training row.

        Returns
        -------
        ndarray of float64, shape (n_samples, n_classes)
            Mean class probabilities over the trees whose count for the row
            is 0 (summed in tree order); all-NaN rows for rows in every bag.
        """
        self._require(True, "oob_decision_function")
        return self._oob_mean()

    def oob_prediction(self):
        """Out-of-bag mean prediction of every training row.

        Returns
        -------
        ndarray of float64, shape (n_samples,)
            Mean over the trees whose count for the row is 0; NaN for rows
            in every bag.
        """
        self._require(False, "oob_prediction")
        return self._oob_mean()[:, 0]

    def oob_score(self, y):
        """Accuracy (classification) or R^2 (regression) of the OOB predictions.

        Only rows with at least one out-of-bag tree are scored, unweighted.

        Parameters
        ----------
        y : array-like of shape (n_samples,)
            The training targets (class indices for classification).

        Returns
        -------
        float
            Accuracy of the OOB argmax (lowest class on ties), or
            ``1 - SS_res / SS_tot``; when ``SS_tot == 0`` it is 1.0 for a
            perfect fit and 0.0 otherwise.
        """
        if self.is_classifier:
            oob = self.oob_decision_function()
            scored = ~np.isnan(oob[:, 0])
        else:
            oob = self.oob_prediction()
            scored = ~np.isnan(oob)
        y = np.asarray(y).reshape(-1)
        if y.shape[0] != oob.shape[0]:
            raise ValueError(f"y has {y.shape[0]} rows, X had {oob.shape[0]}")
        if not scored.any():
            raise ValueError("no training row is out of bag for any tree")
        if self.is_classifier:
            return float(np.mean(np.argmax(oob[scored], axis=1) == y[scored]))
        truth = y[scored].astype(np.float64)
        ss_res = float(np.sum((truth - oob[scored]) ** 2))
        ss_tot = float(np.sum((truth - truth.mean()) ** 2))
        if ss_tot == 0:
            return 1.0 if ss_res == 0 else 0.0
        return 1.0 - ss_res / ss_tot

    def feature_importances(self):
        """Mean decrease in impurity, averaged over trees.

        Each tree's normalised importances are added to the original
        features of its subset (repeats summed), averaged over all trees
        and normalised to sum to 1.

        Returns
        -------
        ndarray of float64, shape (n_features,)
            Sums to 1, or all zeros if no tree has a useful split.
        """
        total = np.zeros(self.n_features, dtype=np.float64)
        for tree, subset in zip(self.trees, self.feature_subsets):
            np.add.at(total, subset, tree.feature_importances())
        mean = total / self.n_trees
        mean_sum = mean.sum()
        return mean / mean_sum if mean_sum > 0 else mean

    def _tree_score(self, tree_index, X_rows, y_rows):
        """Accuracy, or minus the mean squared error, of one tree."""
        output = self._tree_output(tree_index, X_rows)
        if self.is_classifier:
            return float(np.mean(np.argmax(output, axis=1) == y_rows))
        return -float(np.mean((output[:, 0] - y_rows) ** 2))

    def permutation_importance(self, X, y, rng, n_repeats=1):
        """Breiman's out-of-bag permutation importance.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The training rows (row ``i`` is the row counted by
            ``sample_counts[:, i]``).
        y : array-like of shape (n_samples,)
            The training targets.
        rng : numpy.random.Generator or int
            Random generator; an int seeds ``np.random.default_rng``.
        n_repeats : int, default=1
            Permutations per tree and feature.

        Returns
        -------
        ndarray of float64, shape (n_features,)
            Mean drop in score per original feature.

        Notes
        -----
        Exact procedure and generator call order::

            for t in range(n_trees):
                oob = np.flatnonzero(sample_counts[t] == 0)   # increasing
                if oob.size == 0: continue                    # no rng call
                X_oob = X[oob]; base = score(t, X_oob, y[oob])
                for j in range(n_features):                   # original index
                    for r in range(n_repeats):
                        order = rng.permutation(oob.size)
                        X_perm = X_oob.copy()
                        X_perm[:, j] = X_oob[order, j]
                        drop[j] += base - score(t, X_perm, y[oob])
            importance = drop / (n_trees_with_oob_rows * n_repeats)

        ``score`` is the tree's accuracy (argmax, lowest class on ties) or
        minus its mean squared error.  A permutation is drawn even for a
        feature outside the tree's subset (its drop is then exactly 0).
        All zeros if no tree has an out-of-bag row.
        """
        rng = np.random.default_rng(rng)
        X = self._check_input(X)
        if self.is_classifier:
            y = np.asarray(y).reshape(-1)
        else:
            y = np.asarray(y, dtype=np.float64).reshape(-1)
        if X.shape[0] != self.sample_counts.shape[1] or y.shape[0] != X.shape[0]:
            raise ValueError("X and y must be the training rows the counts refer to")
        if n_repeats < 1:
            raise ValueError(f"n_repeats must be >= 1, got {n_repeats}")

        drops = np.zeros(self.n_features, dtype=np.float64)
        n_scored_trees = 0
        for t in range(self.n_trees):
            oob_rows = np.flatnonzero(self.sample_counts[t] == 0)
            if oob_rows.size == 0:
                continue
            n_scored_trees += 1
            X_oob = X[oob_rows]
            y_oob = y[oob_rows]
            baseline = self._tree_score(t, X_oob, y_oob)
            for feature in range(self.n_features):
                for _ in range(n_repeats):
                    order = rng.permutation(oob_rows.size)
                    X_permuted = X_oob.copy()
                    X_permuted[:, feature] = X_oob[order, feature]
                    drops[feature] += baseline - self._tree_score(
                        t, X_permuted, y_oob
                    )
        if n_scored_trees == 0:
            return drops
        return drops / (n_scored_trees * n_repeats)
