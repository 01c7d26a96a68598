"""The gates of a mixture of experts: what they read of a row, their
softmax weights, their M-step, and the seeded split of the input space EM
starts from.

A gate reads the numeric features standardised (training means and
standard deviations, missing values at the mean, that is 0) and each
categorical feature one-hot (a missing or unseen category: all zeros).
"""

import warnings

import numpy as np

from ._softmax import blocked_product, bound_solver, bound_update, log_softmax, with_intercept

# Bound (minorise-maximise) steps per gate and EM iteration: each raises the
# gate's penalised objective, and EM iterates anyway, so a few suffice.
GATE_STEPS = 5
# A standard deviation at most this share of the mean is a constant column:
# a mean an ulp off the value would leave a spread of rounding errors.
RELATIVE_SPREAD = 1e-12
# The initial split's k-means runs on at most this many rows (drawn at
# random without replacement); every row then joins its nearest centre. A
# start needs no more, and Lloyd's rounds over all of a large X cost as
# much as a score of tree fits.
KMEANS_SAMPLE = 10_000
# Most rounds of Lloyd's k-means in the initial split.
KMEANS_ROUNDS = 100
# Rows of Z per block of the k-means distances: a block's differences stay in
# the cache instead of making a temporary the size of Z for every centre.
DISTANCE_BLOCK = 2048


class GateInputs:
    """The gates' view of the rows: how each column is standardised or one-hot.

    Parameters
    ----------
    mean, scale : ndarray
        Each numeric column's training mean and standard deviation, in
        column order.
    categorical : ndarray of bool of shape (n_features,) or None
        Which columns are categorical (None: none).
    n_levels : sequence of int
        Levels of each categorical column, in column order.
    """

    def __init__(self, mean, scale, categorical=None, n_levels=()):
        self.mean, self.scale = mean, scale
        n_features = len(mean) + len(n_levels)
        self.categorical = (np.zeros(n_features, dtype=bool) if categorical is None
                            else np.asarray(categorical, dtype=bool))
        self.n_levels = [int(count) for count in n_levels]

    @classmethod
    def fit(cls, X, categorical=None, n_levels=()):
        """The view learnt from training rows X (categorical columns as codes,
        NaN where missing): means and standard deviations of the numeric
        columns, ignoring missing values (a constant or empty column: scale 1)."""
        numeric = X if categorical is None else X[:, ~np.asarray(categorical, dtype=bool)]
        with warnings.catch_warnings():
            # A column of missing values only has no mean: it gets 0 below.
            warnings.simplefilter("ignore", RuntimeWarning)
            mean = np.nanmean(numeric, axis=0)
            scale = np.nanstd(numeric, axis=0)
        mean[~np.isfinite(mean)] = 0.0
        scale[~(np.isfinite(scale) & (scale > RELATIVE_SPREAD * np.abs(mean)))] = 1.0
        return cls(mean, scale, categorical, n_levels)

    @property
    def n_inputs(self):
        """Values a gate reads per row (without its intercept)."""
        return int((~self.categorical).sum()) + sum(self.n_levels)

    def transform(self, X, standardise=True):
        """Z of shape (n_samples, n_inputs), float64, in column order; with
        ``standardise=False`` the numbers keep their units (a missing one
        is the training mean)."""
        Z = np.zeros((X.shape[0], self.n_inputs))
        # Where each column's inputs start: one for a numeric column, one per level.
        widths = np.ones(len(self.categorical), dtype=np.intp)
        widths[self.categorical] = self.n_levels
        starts = np.cumsum(widths) - widths
        # The numeric columns all at once (each value's arithmetic is its own).
        numeric = np.flatnonzero(~self.categorical)
        values = np.asarray(X[:, numeric], dtype=np.float64)
        if standardise:
            Z[:, starts[numeric]] = np.where(np.isnan(values), 0.0,
                                             (values - self.mean) / self.scale)
        else:
            Z[:, starts[numeric]] = np.where(np.isnan(values), self.mean, values)
        for column, n_levels in zip(np.flatnonzero(self.categorical), self.n_levels):
            values = np.asarray(X[:, column], dtype=np.float64)
            known = np.flatnonzero(np.isfinite(values) & (values >= 0) & (values < n_levels))
            Z[known, starts[column] + values[known].astype(np.intp)] = 1.0
        return Z


def log_gate(Zi, V):
    """Each row's log-weight of each branch of a gate with coefficients V."""
    return log_softmax(blocked_product(Zi, V))


def gate_solver(Zi, weights, n_branches, alpha):
    """What ``update_gate`` of a gate of ``n_branches`` with these row
    ``weights`` steps with (``bound_solver``), made once for a gate whose
    weights do not change; None when the gate takes no steps."""
    if n_branches == 1 or not weights.sum() > 0:
        return None
    return bound_solver(Zi, weights, n_branches, alpha)


def update_gate(Zi, V, targets, weights, alpha, solver=None):
    """A gate's M-step: GATE_STEPS bound steps towards the soft ``targets``
    (responsibilities, rows summing to 1) with row ``weights``. The new
    coefficients replace V only when they do not lower the weighted
    log-likelihood of the targets, so that EM's likelihood never falls.
    ``solver``: ``gate_solver`` of these weights, if already made."""
    if V.shape[1] == 1 or not weights.sum() > 0:
        return V
    candidate, before, after = bound_update(Zi, V, targets, weights, alpha, GATE_STEPS, solver)
    return candidate if after >= before else V


def squared_distances(Z, centres, out=None):
    """Each row's squared Euclidean distance to each centre, (n, n_centres).

    Column j holds ``np.sum((Z - centres[j]) ** 2, axis=1)`` to the last bit
    (each row's sum is the same reduction of the same d values), made a
    block of rows at a time into one buffer.
    """
    n_samples, n_features = Z.shape
    if out is None:
        out = np.empty((n_samples, len(centres)))
    buffer = np.empty((min(DISTANCE_BLOCK, n_samples), n_features))
    for start in range(0, n_samples, DISTANCE_BLOCK):
        block = Z[start:start + DISTANCE_BLOCK]
        difference = buffer[:block.shape[0]]
        for column, centre in enumerate(centres):
            np.subtract(block, centre, out=difference)
            np.square(difference, out=difference)
            np.sum(difference, axis=1, out=out[start:start + block.shape[0], column])
    return out


def kmeans(Z, n_clusters, weights, rng):
    """Weighted k-means (k-means++ seeding, then Lloyd's rounds) of Z's rows;
    each row's cluster, 0 .. n_clusters - 1.

    Raises ValueError when the rows of positive weight have fewer than
    ``n_clusters`` distinct values, or a cluster ends without weight.
    """
    n_samples = Z.shape[0]
    Z = np.ascontiguousarray(Z, dtype=np.float64)
    total = weights.sum()
    centres = [Z[rng.choice(n_samples, p=weights / total)]]
    nearest = squared_distances(Z, centres[:1])[:, 0]
    for _ in range(1, n_clusters):
        spread = weights * nearest
        if not spread.sum() > 0:
            raise ValueError(f"cannot split the rows into {n_clusters} groups to start from: "
                             "they have fewer distinct values (of positive weight); lower "
                             "n_experts")
        centres.append(Z[rng.choice(n_samples, p=spread / spread.sum())])
        nearest = np.minimum(nearest, squared_distances(Z, centres[-1:])[:, 0])
    centres = np.array(centres)
    labels = None
    distances = np.empty((n_samples, n_clusters))
    for _ in range(KMEANS_ROUNDS):
        new_labels = np.argmin(squared_distances(Z, centres, out=distances), axis=1)
        if labels is not None and np.array_equal(new_labels, labels):
            break
        labels = new_labels
        cluster_weight = np.bincount(labels, weights=weights, minlength=n_clusters)
        if not (cluster_weight > 0).all():
            raise ValueError(f"cannot split the rows into {n_clusters} groups of positive "
                             "weight to start from; lower n_experts")
        for cluster in range(n_clusters):
            # The members' rows gathered by index (faster than a mask, the same copy).
            members = np.flatnonzero(labels == cluster)
            centres[cluster] = (weights.take(members) @ Z.take(members, axis=0)
                                / cluster_weight[cluster])
    return labels


def cluster_centres(Z, labels, weights, n_clusters):
    """Each cluster's weighted mean row, (n_clusters, q)."""
    return np.array([weights[labels == cluster] @ Z[labels == cluster]
                     / weights[labels == cluster].sum() for cluster in range(n_clusters)])


def initial_paths(Z, n_branches, levels, weights, rng):
    """Each row's expert at the start of EM: its cluster in a k-means of Z
    into the experts (of at most KMEANS_SAMPLE rows drawn at random, each
    row then in the cluster of its nearest centre). With two levels, the ``n_branches ** 2`` clusters are
    ordered along the first principal axis of their centres (its largest
    entry made positive, so the order does not depend on the SVD's sign) and
    taken ``n_branches`` at a time into groups: expert ``i * n_branches + j``
    is the j-th cluster of group i, so a group's experts start side by side."""
    n_experts = n_branches ** levels
    if Z.shape[0] <= KMEANS_SAMPLE:
        labels = kmeans(Z, n_experts, weights, rng)
    else:
        sample = np.sort(rng.choice(Z.shape[0], KMEANS_SAMPLE, replace=False))
        sample_labels = kmeans(Z[sample], n_experts, weights[sample], rng)
        labels = np.argmin(squared_distances(Z, cluster_centres(
            Z[sample], sample_labels, weights[sample], n_experts)), axis=1)
        if not (np.bincount(labels, weights=weights, minlength=n_experts) > 0).all():
            raise ValueError(f"cannot split the rows into {n_experts} groups of positive "
                             "weight to start from; lower n_experts")
    if levels == 1:
        return labels
    centres = cluster_centres(Z, labels, weights, n_experts)
    centred = centres - centres.mean(axis=0)
    axis = np.linalg.svd(centred, full_matrices=False)[2][0]
    axis = axis if axis[np.argmax(np.abs(axis))] >= 0 else -axis
    order = np.argsort(centred @ axis, kind="stable")
    expert_of_cluster = np.empty(n_experts, dtype=np.intp)
    expert_of_cluster[order] = np.arange(n_experts)
    return expert_of_cluster[labels]


__all__ = ["GateInputs", "gate_solver", "initial_paths", "kmeans", "log_gate", "squared_distances",
           "update_gate", "with_intercept"]
