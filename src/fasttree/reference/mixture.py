"""A mixture of experts trained by EM (Jordan & Jacobs, 1994), as an oracle.

Slow and written to be obviously correct: flat (one softmax gate over the
experts) and two-level hierarchical (a top gate over ``b`` groups, one lower
gate per group over its ``b`` experts, expert ``(i, j)`` at index
``i * b + j``).  Only numpy and the standard library are imported, so the
module can be loaded from its file path without the compiled package.

Rules a vectorised estimator must reproduce exactly:

* gate inputs ``Z``: numeric columns centred on their (unweighted) nanmean
  and divided by their nanstd (``ddof=0``; 1 where it is 0 or not finite;
  mean 0 for an all-NaN column), NaN -> 0; a categorical column of ``L``
  levels becomes ``L`` one-hot columns where it stands, NaN -> all zeros;
  a gate reads ``[1, Z]``;
* initial responsibilities from a seeded k-means of ``Z`` (k-means++ with
  ``rng.choice`` draws, then at most 100 rounds of Lloyd); for two levels
  the groups first, then each group's rows in group order with the same
  generator;
* each EM iteration is an M-step then an E-step; an expert is fitted on
  ``s * h`` with responsibilities under 1e-6 trimmed to 0 and replaces the
  old one only if its unpenalised expected log-likelihood is not lower; a
  gate takes exactly 5 Boehning bound steps and keeps them only if its
  unpenalised expected log-likelihood is not lower;
* expert probabilities are floored at 1e-12 in the E-step; a regressor's
  variances are floored at 1e-6 of the target's weighted variance;
* with ``leaf_steps`` (tree experts whose leaves are weighted means), an
  iteration either regrows the experts (fits fresh ones, as above) or keeps
  each expert's split of the rows (its ``apply``) and re-estimates its
  leaves: each leaf reached by rows of positive trimmed weight holds their
  weighted mean target (class indicators for a classifier), the others keep
  theirs.  The first iteration regrows; an iteration after a regrowth
  regrows again when an accepted expert's ``apply`` of the rows changed;
  an iteration after one that gained less than ``tol`` regrows;
* iterations stop once ``L_t - L_{t-1} < tol`` (``t >= 2``) in an iteration
  that regrew (every iteration, without ``leaf_steps``), or after
  ``max_iter``.
"""

import math

import numpy as np

__all__ = [
    "GATE_RIDGE",
    "GATE_STEPS",
    "KMEANS_ROUNDS",
    "PROBABILITY_FLOOR",
    "RESPONSIBILITY_TRIM",
    "GateInputs",
    "LeafMeans",
    "LinearExpert",
    "LogisticExpert",
    "ReferenceMixture",
    "fit_mixture",
    "gate_inputs",
    "gate_log_probabilities",
    "gate_objective",
    "initial_responsibilities",
    "kmeans",
    "penalised_gate_objective",
    "softmax_gate_step",
    "update_gate",
    "with_intercept",
]

# Bound steps per gate update: a fixed number, so that the estimator and the
# oracle take exactly the same path rather than each its own "converged".
GATE_STEPS = 5
# A responsibility under this is treated as 0 when an expert is refitted,
# so that an expert is not fitted on rows it has essentially no part in.
RESPONSIBILITY_TRIM = 1e-6
# An expert's probability of a row's class is never taken below this, so that
# log q stays finite when an expert has not seen a class.
PROBABILITY_FLOOR = 1e-12
# Added to the bound matrix's diagonal so that it is safely invertible even
# for a gate input column that is 0 on every weighted row.
# A standard deviation at most this share of its mean is a constant column
# (its mean an ulp off the value leaves a spread of rounding errors).
RELATIVE_SPREAD = 1e-12
# Beyond this many rows the start's k-means runs on a sample of this size.
KMEANS_SAMPLE = 10_000
GATE_RIDGE = 1e-10
# Lloyd rounds (assignments) of k-means at most.
KMEANS_ROUNDS = 100

KINDS = ("classifier", "regressor")


# --------------------------------------------------------------------------
# Small helpers


def _as_matrix(X, name="X"):
    """X as a 2-d float64 array (a copy, so that callers can never be changed)."""
    X = np.array(X, dtype=np.float64)
    if X.ndim != 2:
        raise ValueError(f"{name} must be a 2-d array, got {X.ndim} dimension(s)")
    return X


def _as_weights(sample_weight, n_samples):
    """Sample weights as float64 (ones when None), checked to be usable."""
    if sample_weight is None:
        return np.ones(n_samples)
    weights = np.array(sample_weight, dtype=np.float64)
    if weights.shape != (n_samples,):
        raise ValueError(f"sample_weight must have shape ({n_samples},), "
                         f"got {weights.shape}")
    if not np.all(np.isfinite(weights)) or np.any(weights < 0):
        raise ValueError("sample_weight must be finite and non-negative")
    if not weights.sum() > 0:
        raise ValueError("sample_weight must have a positive sum")
    return weights


def _log_sum_exp(values):
    """log(sum(exp(values))) of a short sequence, without overflow."""
    largest = max(values)
    if largest == -math.inf:
        return -math.inf
    return largest + math.log(sum(math.exp(value - largest) for value in values))


def _log_softmax_rows(scores):
    """The log-softmax of each row of a score matrix, shifted by the row's
    largest score so that exp never overflows."""
    scores = np.asarray(scores, dtype=np.float64)
    shifted = scores - scores.max(axis=1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))


def _squared_distance(a, b):
    """||a - b||^2, summed directly (no expansion, so equal rows give exactly 0)."""
    difference = a - b
    return float(np.dot(difference, difference))


def with_intercept(Z):
    """``[1, Z]``: what a gate reads.

    Parameters
    ----------
    Z : array-like of float, shape (n_samples, q)

    Returns
    -------
    ndarray of float64, shape (n_samples, q + 1)
        A column of ones, then Z.
    """
    Z = _as_matrix(Z, "Z")
    return np.hstack([np.ones((Z.shape[0], 1)), Z])


# --------------------------------------------------------------------------
# Gate inputs


class GateInputs:
    """The fitted transformation from X to the gate inputs Z.

    Parameters
    ----------
    means : ndarray of float, shape (n_features,)
        Each numeric column's centre (NaN for a categorical column).
    scales : ndarray of float, shape (n_features,)
        Each numeric column's divisor (NaN for a categorical column).
    categorical : ndarray of bool, shape (n_features,)
        Which columns are categorical codes.
    n_levels : tuple of int
        The number of levels of each categorical column, in column order.

    Attributes
    ----------
    n_features : int
        Columns of X.
    n_outputs : int
        Columns of Z (q): one per numeric column, ``L`` per categorical one.
    """

    def __init__(self, means, scales, categorical, n_levels):
        self.means = np.asarray(means, dtype=np.float64)
        self.scales = np.asarray(scales, dtype=np.float64)
        self.categorical = np.asarray(categorical, dtype=bool)
        self.n_levels = tuple(int(levels) for levels in n_levels)
        self.n_features = len(self.categorical)
        self.n_outputs = int((~self.categorical).sum()) + sum(self.n_levels)

    def _levels_by_column(self):
        """{column: L} for the categorical columns."""
        columns = np.flatnonzero(self.categorical)
        return dict(zip(columns.tolist(), self.n_levels))

    def transform(self, X):
        """The gate inputs Z of the rows of X (without the intercept column).

        Parameters
        ----------
        X : array-like of float, shape (n_samples, n_features)
            Numeric columns as numbers or NaN; categorical columns as codes
            ``0 .. L-1`` or NaN (missing or unseen).

        Returns
        -------
        ndarray of float64, shape (n_samples, n_outputs)
        """
        X = _as_matrix(X)
        if X.shape[1] != self.n_features:
            raise ValueError(f"X has {X.shape[1]} columns, the gate inputs were "
                             f"fitted on {self.n_features}")
        levels_by_column = self._levels_by_column()
        for column, levels in levels_by_column.items():
            _check_codes(X[:, column], column, levels)
        if np.any(np.isinf(X[:, ~self.categorical])):
            raise ValueError("numeric columns of X must not hold infinities")
        Z = np.zeros((X.shape[0], self.n_outputs))
        for row in range(X.shape[0]):
            out = 0
            for column in range(self.n_features):
                value = X[row, column]
                if column in levels_by_column:
                    # One-hot; a missing code leaves all L columns at 0.
                    if not math.isnan(value):
                        Z[row, out + int(value)] = 1.0
                    out += levels_by_column[column]
                else:
                    # A missing number sits at the column's mean: 0 after centring.
                    if not math.isnan(value):
                        Z[row, out] = (value - self.means[column]) / self.scales[column]
                    out += 1
        return Z


def _check_codes(values, column, levels):
    """Refuse categorical codes that are not NaN or an integer in 0 .. levels-1."""
    present = values[~np.isnan(values)]
    bad = (present < 0) | (present >= levels) | (present != np.floor(present))
    if np.any(bad):
        raise ValueError(f"categorical column {column} holds {present[bad][0]!r}, "
                         f"not a code in 0..{levels - 1} or NaN")


def gate_inputs(X, categorical=None, n_levels=None):
    """Fit the gate inputs on the training X.

    Parameters
    ----------
    X : array-like of float, shape (n_samples, n_features)
        Numeric columns (NaN for missing; infinities are refused) and
        categorical columns holding codes ``0 .. L-1`` or NaN.
    categorical : array-like of bool, shape (n_features,), optional
        Which columns are categorical; None means none.
    n_levels : sequence of int, optional
        The number of levels ``L`` of each categorical column, in column
        order; None takes one more than the largest code seen (0 for an
        all-NaN column).

    Returns
    -------
    GateInputs
        Numeric columns: mean = unweighted nanmean (0 if all NaN), scale =
        nanstd with ``ddof=0`` (1 where 0 or not finite).
    """
    X = _as_matrix(X)
    n_features = X.shape[1]
    if categorical is None:
        categorical = np.zeros(n_features, dtype=bool)
    categorical = np.asarray(categorical, dtype=bool)
    if categorical.shape != (n_features,):
        raise ValueError(f"categorical must be a mask of {n_features} booleans, "
                         f"got shape {categorical.shape}")
    categorical_columns = np.flatnonzero(categorical)
    if n_levels is None:
        n_levels = []
        for column in categorical_columns:
            present = X[~np.isnan(X[:, column]), column]
            n_levels.append(int(present.max()) + 1 if len(present) else 0)
    n_levels = [int(levels) for levels in n_levels]
    if len(n_levels) != len(categorical_columns):
        raise ValueError(f"n_levels gives {len(n_levels)} level counts for "
                         f"{len(categorical_columns)} categorical columns")
    if any(levels < 0 for levels in n_levels):
        raise ValueError("n_levels must be non-negative")
    for column, levels in zip(categorical_columns, n_levels):
        _check_codes(X[:, column], column, levels)

    means = np.full(n_features, np.nan)
    scales = np.full(n_features, np.nan)
    for column in range(n_features):
        if categorical[column]:
            continue
        values = X[:, column]
        if np.any(np.isinf(values)):
            raise ValueError(f"numeric column {column} holds an infinity")
        present = values[~np.isnan(values)]
        if len(present) == 0:
            means[column], scales[column] = 0.0, 1.0
            continue
        mean = np.mean(present)
        scale = np.sqrt(np.mean((present - mean) ** 2))
        means[column] = mean
        # A constant column would otherwise divide by 0 (or, where rounding
        # left its mean an ulp off, by a spread of rounding errors).
        constant = not (np.isfinite(scale) and scale > RELATIVE_SPREAD * abs(mean))
        scales[column] = 1.0 if constant else scale
    return GateInputs(means, scales, categorical, n_levels)


# --------------------------------------------------------------------------
# k-means


def _nearest_centre(z, centres):
    """Index of the centre nearest to z, the lowest index on ties."""
    best, best_distance = 0, _squared_distance(z, centres[0])
    for k in range(1, len(centres)):
        distance = _squared_distance(z, centres[k])
        if distance < best_distance:
            best, best_distance = k, distance
    return best


def kmeans(Z, n_clusters, weights, rng):
    """Weighted k-means: k-means++ seeding, then Lloyd rounds.

    Parameters
    ----------
    Z : array-like of float, shape (n_samples, q)
    n_clusters : int
    weights : array-like of float, shape (n_samples,), or None
        Row weights (None: all 1).
    rng : numpy.random.Generator
        Consumed by exactly ``n_clusters`` calls ``rng.choice(n, p=p)``: the
        first centre with ``p = w / sum(w)``, each next one with ``p`` in
        proportion to ``w * d2`` (d2: squared distance to the nearest chosen
        centre).

    Returns
    -------
    ndarray of int, shape (n_samples,)
        Each row's cluster, from the last assignment (nearest centre, lowest
        index on ties); assignments repeat, each followed by moving the
        centres to the weighted means of their rows, until the labels do not
        change or ``KMEANS_ROUNDS`` assignments were made.

    Raises
    ------
    ValueError
        If there are fewer distinct rows of positive weight than clusters (the
        weighted distances to the chosen centres all vanish), or an assignment
        leaves a cluster with no weight.
    """
    Z = _as_matrix(Z, "Z")
    n_samples = Z.shape[0]
    weights = np.ones(n_samples) if weights is None else np.asarray(weights, np.float64)
    if n_clusters < 1:
        raise ValueError(f"n_clusters must be >= 1, got {n_clusters}")
    total = weights.sum()
    if not total > 0:
        raise ValueError("k-means needs rows of positive weight")

    centres = [Z[rng.choice(n_samples, p=weights / total)].copy()]
    while len(centres) < n_clusters:
        nearest = np.array([min(_squared_distance(z, c) for c in centres) for z in Z])
        mass = weights * nearest
        if mass.sum() == 0:
            raise ValueError(f"fewer distinct rows than experts: k-means found only "
                             f"{len(centres)} distinct row(s) of positive weight, "
                             f"{n_clusters} clusters are needed")
        centres.append(Z[rng.choice(n_samples, p=mass / mass.sum())].copy())

    labels = None
    for _ in range(KMEANS_ROUNDS):
        assigned = np.array([_nearest_centre(z, centres) for z in Z], dtype=np.intp)
        cluster_weights = [weights[assigned == k].sum() for k in range(n_clusters)]
        for k, cluster_weight in enumerate(cluster_weights):
            if not cluster_weight > 0:
                raise ValueError(f"k-means left cluster {k} of {n_clusters} with no "
                                 f"weight")
        if labels is not None and np.array_equal(assigned, labels):
            break
        labels = assigned
        for k in range(n_clusters):
            members = labels == k
            centres[k] = ((weights[members, None] * Z[members]).sum(axis=0)
                          / cluster_weights[k])
    return labels


def initial_responsibilities(Z, n_experts, levels, weights, rng):
    """The one-hot responsibilities EM starts from.

    Parameters
    ----------
    Z : array-like of float, shape (n_samples, q)
        Gate inputs.
    n_experts : int
        Experts (levels=1) or branches of every gate, b (levels=2).
    levels : {1, 2}
    weights : ndarray of float, shape (n_samples,)
    rng : numpy.random.Generator

    Returns
    -------
    ndarray of float64, shape (n_samples, E)
        levels=1: one-hot of ``kmeans(Z, n_experts)``.  levels=2: the
        ``b * b`` clusters of ``kmeans(Z, b * b)``, ordered by where their
        weighted centres lie along the centres' first principal axis (the
        axis's entry of largest size made positive); the cluster at place p
        of that order is expert p (group ``p // b``).
    """
    Z = _as_matrix(Z, "Z")
    weights = np.asarray(weights, dtype=np.float64)
    n_samples = Z.shape[0]
    n_paths = n_experts ** levels
    if n_samples <= KMEANS_SAMPLE:
        labels = kmeans(Z, n_paths, weights, rng)
    else:
        # k-means of a sample drawn without replacement (kept in row order);
        # then every row joins its nearest sample centre (the first on ties).
        sample = np.sort(rng.choice(n_samples, KMEANS_SAMPLE, replace=False))
        sample_labels = kmeans(Z[sample], n_paths, weights[sample], rng)
        sample_centres = []
        for cluster in range(n_paths):
            total, mass = np.zeros(Z.shape[1]), 0.0
            for position, row in enumerate(sample):
                if sample_labels[position] == cluster:
                    total += weights[row] * Z[row]
                    mass += weights[row]
            sample_centres.append(total / mass)
        labels = []
        for row in range(n_samples):
            distances = [float(np.sum((Z[row] - centre) ** 2)) for centre in sample_centres]
            labels.append(distances.index(min(distances)))
        labels = np.array(labels)
        for cluster in range(n_paths):
            if not weights[labels == cluster].sum() > 0:
                raise ValueError(f"cannot split the rows into {n_paths} groups of positive "
                                 "weight to start from")
    expert_of_cluster = list(range(n_paths))
    if levels == 2:
        centres = np.zeros((n_paths, Z.shape[1]))
        for cluster in range(n_paths):
            mass = 0.0
            for row in range(n_samples):
                if labels[row] == cluster:
                    centres[cluster] += weights[row] * Z[row]
                    mass += weights[row]
            centres[cluster] /= mass
        centred = centres - centres.mean(axis=0)
        axis = np.linalg.svd(centred, full_matrices=False)[2][0]
        if axis[int(np.argmax(np.abs(axis)))] < 0:
            axis = -axis
        positions = [float(centre @ axis) for centre in centred]
        # Stable: clusters at the same position keep their k-means order.
        order = sorted(range(n_paths), key=lambda cluster: positions[cluster])
        for place, cluster in enumerate(order):
            expert_of_cluster[cluster] = place
    responsibilities = np.zeros((n_samples, n_paths))
    for row in range(n_samples):
        responsibilities[row, expert_of_cluster[labels[row]]] = 1.0
    return responsibilities


# --------------------------------------------------------------------------
# Softmax gates


def gate_log_probabilities(V, Zi):
    """log g_k(x) of every row, ``g = softmax([1, z] V)``.

    Parameters
    ----------
    V : array-like of float, shape (q + 1, K)
        Gate coefficients; the last column is the reference branch (0).
    Zi : array-like of float, shape (n_samples, q + 1)
        Gate inputs with the intercept column.

    Returns
    -------
    ndarray of float64, shape (n_samples, K)
    """
    V = np.asarray(V, dtype=np.float64)
    Zi = np.asarray(Zi, dtype=np.float64)
    return _log_softmax_rows(Zi @ V)


def gate_objective(V, Zi, targets, weights):
    """The unpenalised objective that decides whether a gate update is kept.

    Parameters
    ----------
    V : array-like of float, shape (q + 1, K)
    Zi : array-like of float, shape (n_samples, q + 1)
    targets : array-like of float, shape (n_samples, K)
        Soft targets T; each row sums to 1.
    weights : array-like of float, shape (n_samples,)

    Returns
    -------
    float
        ``sum_n w_n sum_k T_nk log g_k(x_n)`` (terms with ``w_n T_nk = 0`` are 0).
    """
    log_g = gate_log_probabilities(V, Zi)
    targets = np.asarray(targets, dtype=np.float64)
    total = 0.0
    for row, weight in enumerate(np.asarray(weights, dtype=np.float64)):
        for k in range(log_g.shape[1]):
            if weight * targets[row, k] != 0:
                total += weight * targets[row, k] * log_g[row, k]
    return total


def penalised_gate_objective(V, Zi, targets, weights, alpha):
    """The objective the bound steps climb.

    Parameters
    ----------
    V : array-like of float, shape (q + 1, K)
    Zi : array-like of float, shape (n_samples, q + 1)
    targets : array-like of float, shape (n_samples, K)
    weights : array-like of float, shape (n_samples,)
    alpha : float
        Penalty on the non-intercept rows of V.

    Returns
    -------
    float
        ``gate_objective / sum(w) - alpha / 2 * ||V[1:, :K-1]||^2``.
    """
    V = np.asarray(V, dtype=np.float64)
    penalty = 0.5 * alpha * float(np.sum(V[1:, :-1] ** 2))
    return gate_objective(V, Zi, targets, weights) / np.sum(weights) - penalty


def softmax_gate_step(V, Zi, targets, weights, alpha):
    """One Boehning bound step of a softmax gate.

    Parameters
    ----------
    V : array-like of float, shape (q + 1, K)
        Current coefficients (K >= 2; last column 0).
    Zi : array-like of float, shape (n_samples, q + 1)
    targets : array-like of float, shape (n_samples, K)
    weights : array-like of float, shape (n_samples,)
        With a positive sum W.
    alpha : float

    Returns
    -------
    ndarray of float64, shape (q + 1, K)
        ``theta + solve(B, vec(G))`` with theta = vec(V[:, :K-1]) class-major,
        G the gradient of the penalised objective and
        ``B = kron(M, A) + alpha kron(I, D) + 1e-10 I``, where
        ``M = (I - 1 1^T / K) / 2`` bounds the softmax's curvature,
        ``A = Zi^T diag(w) Zi / W`` and ``D = diag(0, 1, ..., 1)``.
        Because B bounds the negative Hessian from above, the penalised
        objective never decreases.
    """
    V = np.array(V, dtype=np.float64)
    Zi = np.asarray(Zi, dtype=np.float64)
    targets = np.asarray(targets, dtype=np.float64)
    weights = np.asarray(weights, dtype=np.float64)
    n_inputs, n_branches = V.shape
    free = n_branches - 1
    total_weight = weights.sum()

    probabilities = np.exp(gate_log_probabilities(V, Zi))
    gradient = Zi.T @ (weights[:, None] * (targets - probabilities)) / total_weight
    gradient = gradient[:, :free]
    gradient[1:, :] -= alpha * V[1:, :free]

    second_moment = Zi.T @ (weights[:, None] * Zi) / total_weight
    curvature = 0.5 * (np.eye(free) - np.ones((free, free)) / n_branches)
    penalised_rows = np.eye(n_inputs)
    penalised_rows[0, 0] = 0.0  # the intercept is not penalised
    # B block by block: block (k, l) couples branch k's and branch l's coefficients.
    bound = np.zeros((free * n_inputs, free * n_inputs))
    for k in range(free):
        for l in range(free):
            block = curvature[k, l] * second_moment
            if k == l:
                block = block + alpha * penalised_rows
            bound[k * n_inputs:(k + 1) * n_inputs, l * n_inputs:(l + 1) * n_inputs] = block
    bound += GATE_RIDGE * np.eye(free * n_inputs)

    # Class-major vectors: branch 0's q+1 coefficients, then branch 1's, ...
    theta = V[:, :free].T.reshape(-1)
    theta = theta + np.linalg.solve(bound, gradient.T.reshape(-1))
    V[:, :free] = theta.reshape(free, n_inputs).T
    return V


def update_gate(V, Zi, targets, weights, alpha, steps=GATE_STEPS):
    """A gate's M-step: bound steps, kept only if they do not lower the fit.

    Parameters
    ----------
    V : array-like of float, shape (q + 1, K)
    Zi : array-like of float, shape (n_samples, q + 1)
    targets : array-like of float, shape (n_samples, K)
    weights : array-like of float, shape (n_samples,)
    alpha : float
    steps : int, default=GATE_STEPS

    Returns
    -------
    ndarray of float64, shape (q + 1, K)
        V after ``steps`` bound steps if ``gate_objective`` (unpenalised) is
        then at least what it was at V, otherwise (a copy of) V itself.  V is
        returned unchanged when K == 1 or the weights sum to 0.
    """
    V = np.array(V, dtype=np.float64)
    weights = np.asarray(weights, dtype=np.float64)
    if V.shape[1] == 1 or weights.sum() == 0:
        return V
    candidate = V
    for _ in range(steps):
        candidate = softmax_gate_step(candidate, Zi, targets, weights, alpha)
    # The steps climb the penalised objective; EM needs the unpenalised one
    # not to fall, so that the likelihood never decreases.
    if gate_objective(candidate, Zi, targets, weights) >= gate_objective(V, Zi, targets,
                                                                        weights):
        return candidate
    return V


# --------------------------------------------------------------------------
# Experts


def _weighted_standardisation(X, weights):
    """Weighted mean and weighted population std of each column (std 1 where
    the column is constant: a std at most RELATIVE_SPREAD times its mean)."""
    total = weights.sum()
    mean = (weights[:, None] * X).sum(axis=0) / total
    std = np.sqrt((weights[:, None] * (X - mean) ** 2).sum(axis=0) / total)
    std[~(std > RELATIVE_SPREAD * np.abs(mean))] = 1.0
    return mean, std


def _check_expert_data(X, y, sample_weight):
    """X, y and weights of an expert's fit, checked."""
    X = _as_matrix(X)
    if not np.all(np.isfinite(X)):
        raise ValueError("an expert's X must be finite")
    y = np.asarray(y)
    if y.shape != (X.shape[0],):
        raise ValueError(f"y must have shape ({X.shape[0]},), got {y.shape}")
    return X, y, _as_weights(sample_weight, X.shape[0])


class LogisticExpert:
    """Multinomial logistic regression with a ridge penalty, fitted by Newton.

    Maximises ``F(W) = (1/S) sum_n s_n log softmax([1, (x_n - m)/sd] W)_{c_n}
    - (alpha/2) ||W[1:, :]||^2`` with ``W[:, -1] = 0``, where m and sd are the
    weighted mean and weighted population std of each column (sd = 1 where 0).

    Parameters
    ----------
    alpha : float, default=1e-4
        Penalty on the non-intercept coefficients.

    Attributes
    ----------
    classes_ : ndarray, shape (n_classes,)
        Sorted labels with positive total weight.
    coef_ : ndarray of float64, shape (n_features + 1, n_classes)
        W, in standardised units; intercept first, last column 0.
    mean_, scale_ : ndarray of float64, shape (n_features,)
        m and sd.
    n_newton_steps_ : int
        Newton steps taken.
    """

    def __init__(self, alpha=1e-4):
        self.alpha = alpha

    def _design(self, X):
        """``[1, (x - m) / sd]`` of each row."""
        X = _as_matrix(X)
        return with_intercept((X - self.mean_) / self.scale_)

    def objective(self, coef, X, y, sample_weight=None):
        """F at the given coefficients, on the given data.

        Parameters
        ----------
        coef : array-like of float, shape (n_features + 1, n_classes)
        X : array-like of float, shape (n_samples, n_features)
        y : array-like, shape (n_samples,)
            Labels, each in ``classes_``.
        sample_weight : array-like of float, shape (n_samples,), optional

        Returns
        -------
        float
        """
        X, y, weights = _check_expert_data(X, y, sample_weight)
        return self._objective(np.asarray(coef, np.float64), self._design(X),
                               self._positions_in_classes(y), weights)

    def _positions_in_classes(self, y):
        """Each row's position in classes_ (-1 for a label it does not hold)."""
        index = {label: k for k, label in enumerate(self.classes_.tolist())}
        return np.array([index.get(label, -1) for label in y.tolist()], dtype=np.intp)

    def _objective(self, coef, design, classes, weights):
        """F from the standardised design and each row's position in classes_."""
        log_p = _log_softmax_rows(design @ coef)
        # Rows of no weight may hold a class that was not learnt: leave them out.
        rows = np.flatnonzero(weights > 0)
        fit = np.sum(weights[rows] * log_p[rows, classes[rows]]) / weights.sum()
        return fit - 0.5 * self.alpha * float(np.sum(coef[1:, :] ** 2))

    def fit(self, X, y, sample_weight=None):
        """Fit the expert.

        Parameters
        ----------
        X : array-like of float, shape (n_samples, n_features)
        y : array-like, shape (n_samples,)
        sample_weight : array-like of float, shape (n_samples,), optional

        Returns
        -------
        self
        """
        X, y, weights = _check_expert_data(X, y, sample_weight)
        self.classes_ = np.unique(y[weights > 0])
        self.mean_, self.scale_ = _weighted_standardisation(X, weights)
        design = self._design(X)
        classes = self._positions_in_classes(y)
        n_inputs, n_classes = design.shape[1], len(self.classes_)
        self.coef_ = np.zeros((n_inputs, n_classes))
        self.n_newton_steps_ = 0
        if n_classes == 1:
            return self  # one class: probability 1, nothing to fit
        free = n_classes - 1
        total_weight = weights.sum()
        one_hot = np.zeros((len(y), n_classes))
        one_hot[np.arange(len(y)), classes] = 1.0
        penalised_rows = np.eye(n_inputs)
        penalised_rows[0, 0] = 0.0

        current = self._objective(self.coef_, design, classes, weights)
        for _ in range(100):
            probabilities = np.exp(_log_softmax_rows(design @ self.coef_))
            gradient = design.T @ (weights[:, None] * (one_hot - probabilities))
            gradient = gradient[:, :free] / total_weight
            gradient -= self.alpha * penalised_rows @ self.coef_[:, :free]
            # Negative Hessian, block (k, l) for classes k and l (class-major).
            negative_hessian = np.zeros((free * n_inputs, free * n_inputs))
            for k in range(free):
                for l in range(free):
                    covariance = probabilities[:, k] * ((k == l) - probabilities[:, l])
                    block = design.T @ ((weights * covariance)[:, None] * design)
                    block /= total_weight
                    if k == l:
                        block += self.alpha * penalised_rows
                    negative_hessian[k * n_inputs:(k + 1) * n_inputs,
                                     l * n_inputs:(l + 1) * n_inputs] = block
            step = np.linalg.solve(negative_hessian, gradient.T.reshape(-1))
            step = step.reshape(free, n_inputs).T
            # Twice the gain the quadratic model promises (the Newton decrement).
            decrement = float(np.sum(gradient * step))
            if decrement <= 1e-30:
                break
            self.n_newton_steps_ += 1
            if decrement < 1e-12:
                # So close that the quadratic model is exact to rounding, and
                # gains this small cannot be seen in F: take the full step.
                self.coef_[:, :free] += step
                current = self._objective(self.coef_, design, classes, weights)
                continue
            # Step halving: F is concave, so a short enough Newton step never
            # lowers it.
            length, improved = 1.0, False
            while length > 1e-12:
                trial = self.coef_.copy()
                trial[:, :free] += length * step
                value = self._objective(trial, design, classes, weights)
                if value >= current:
                    self.coef_, current, improved = trial, value, True
                    break
                length *= 0.5
            if not improved:
                break  # F is flat to rounding along the step: converged
        return self

    def predict_proba(self, X):
        """Class probabilities, columns in the order of ``classes_``.

        Parameters
        ----------
        X : array-like of float, shape (n_samples, n_features)

        Returns
        -------
        ndarray of float64, shape (n_samples, n_classes)
        """
        return np.exp(_log_softmax_rows(self._design(X) @ self.coef_))

    def predict(self, X):
        """The most probable class (the first of ``classes_`` on ties).

        Parameters
        ----------
        X : array-like of float, shape (n_samples, n_features)

        Returns
        -------
        ndarray, shape (n_samples,)
        """
        return self.classes_[np.argmax(self.predict_proba(X), axis=1)]


class LinearExpert:
    """Weighted ridge regression on standardised inputs, in closed form.

    Minimises ``(1/S) sum_n s_n (y_n - [1, (x_n - m)/sd] w)^2 + alpha ||w[1:]||^2``
    (m, sd as for :class:`LogisticExpert`) by solving its normal equations
    ``(Xi^T diag(s) Xi / S + alpha D) w = Xi^T diag(s) y / S``.

    Parameters
    ----------
    alpha : float, default=1e-4
        Penalty on the non-intercept coefficients.

    Attributes
    ----------
    coef_ : ndarray of float64, shape (n_features + 1,)
        w, in standardised units; intercept first.
    mean_, scale_ : ndarray of float64, shape (n_features,)
    """

    def __init__(self, alpha=1e-4):
        self.alpha = alpha

    def fit(self, X, y, sample_weight=None):
        """Fit the expert.

        Parameters
        ----------
        X : array-like of float, shape (n_samples, n_features)
        y : array-like of float, shape (n_samples,)
        sample_weight : array-like of float, shape (n_samples,), optional

        Returns
        -------
        self
        """
        X, y, weights = _check_expert_data(X, y, sample_weight)
        y = y.astype(np.float64)
        self.mean_, self.scale_ = _weighted_standardisation(X, weights)
        design = with_intercept((X - self.mean_) / self.scale_)
        total_weight = weights.sum()
        n_inputs = design.shape[1]
        normal_matrix = np.zeros((n_inputs, n_inputs))
        right_side = np.zeros(n_inputs)
        for row in range(len(y)):
            normal_matrix += weights[row] * np.outer(design[row], design[row])
            right_side += weights[row] * y[row] * design[row]
        penalised_rows = np.eye(n_inputs)
        penalised_rows[0, 0] = 0.0
        self.coef_ = np.linalg.solve(normal_matrix / total_weight
                                     + self.alpha * penalised_rows,
                                     right_side / total_weight)
        return self

    def predict(self, X):
        """The fitted linear function of each row.

        Parameters
        ----------
        X : array-like of float, shape (n_samples, n_features)

        Returns
        -------
        ndarray of float64, shape (n_samples,)
        """
        X = _as_matrix(X)
        return with_intercept((X - self.mean_) / self.scale_) @ self.coef_


# --------------------------------------------------------------------------
# The mixture


def _class_probabilities(expert, inputs, n_classes):
    """An expert's predict_proba laid on the columns 0 .. n_classes-1 through its
    classes_ (0 for a class it did not learn)."""
    learnt = np.asarray(expert.predict_proba(inputs), dtype=np.float64)
    probabilities = np.zeros((learnt.shape[0], n_classes))
    for column, label in enumerate(np.asarray(expert.classes_).tolist()):
        probabilities[:, int(label)] = learnt[:, column]
    return probabilities


class LeafMeans:
    """A tree expert with its leaves re-estimated: every row keeps the node
    ``base.apply`` sends it to, and a node that rows of positive ``mass``
    reach predicts their ``mass``-weighted mean of ``targets`` (one column
    per output: class indicators in ``base.classes_`` order for a
    classifier); other rows get ``base``'s prediction."""

    def __init__(self, base, nodes, targets, mass):
        self.base = base
        if hasattr(base, "classes_"):
            self.classes_ = base.classes_
        self.values = {}
        for node in np.unique(nodes).tolist():
            in_node = nodes == node
            total = float(np.sum(mass[in_node]))
            if total > 0:
                self.values[node] = mass[in_node] @ targets[in_node] / total

    def apply(self, X):
        return self.base.apply(X)

    def _replaced(self, X, base_output):
        output = np.array(base_output, dtype=np.float64)
        for row, node in enumerate(self.apply(X).tolist()):
            if node in self.values:
                output[row] = self.values[node]
        return output

    def predict_proba(self, X):
        return self._replaced(X, self.base.predict_proba(X))

    def predict(self, X):
        base_output = np.asarray(self.base.predict(X), dtype=np.float64)[:, None]
        return self._replaced(X, base_output)[:, 0]


def _leaf_targets(kind, expert, y):
    """What a tree expert's leaves are means of: y as a column (regressor),
    or indicators of y's class in the expert's classes_ order."""
    if kind == "regressor":
        return np.asarray(y, dtype=np.float64)[:, None]
    classes = np.asarray(expert.classes_).tolist()
    return np.array([[1.0 if label == known else 0.0 for known in classes] for label in y])


def _gaussian_log_density(y, mean, variance):
    """log N(y; mean, variance)."""
    return -0.5 * math.log(2 * math.pi * variance) - (y - mean) ** 2 / (2 * variance)


class ReferenceMixture:
    """A fitted mixture of experts (see :func:`fit_mixture`).

    Parameters
    ----------
    kind : {'classifier', 'regressor'}
    n_experts : int
        Experts (levels=1) or branches of every gate, b (levels=2).
    levels : {1, 2}
    gate_inputs : GateInputs
    experts_read_gate_inputs : bool
        True: experts are given Z; False: experts are given X.
    n_classes : int or None
        Classes (classifier).

    Attributes
    ----------
    experts : list
        The E fitted experts, expert (i, j) at index ``i * b + j``.
    gates : list of ndarray of shape (q + 1, K)
        The top gate, then (levels=2) lower gates 1..b in order.
    variances : list of float
        Each expert's variance (regressor; empty for a classifier).
    log_likelihood : list of float
        The weighted mean log-likelihood after each iteration.
    n_iter : int
        Iterations run.
    n_paths : int
        E, the number of experts.
    """

    def __init__(self, kind, n_experts, levels, gate_inputs, experts_read_gate_inputs,
                 n_classes=None):
        self.kind = kind
        self.n_experts = n_experts
        self.levels = levels
        self.gate_inputs = gate_inputs
        self.experts_read_gate_inputs = experts_read_gate_inputs
        self.n_classes = n_classes
        self.n_paths = n_experts if levels == 1 else n_experts * n_experts
        q = gate_inputs.n_outputs
        n_gates = 1 if levels == 1 else 1 + n_experts
        self.gates = [np.zeros((q + 1, n_experts)) for _ in range(n_gates)]
        self.experts = [None] * self.n_paths
        self.variances = [] if kind == "classifier" else [None] * self.n_paths
        self.log_likelihood = []
        self.n_iter = 0

    def _inputs(self, X):
        """(Zi, what the experts read) of the rows of X."""
        X = _as_matrix(X)
        Z = self.gate_inputs.transform(X)
        return with_intercept(Z), (Z if self.experts_read_gate_inputs else X)

    def _log_path_weights(self, Zi):
        """log of each row's prior path weight to each expert, n x E."""
        log_top = gate_log_probabilities(self.gates[0], Zi)
        if self.levels == 1:
            return log_top
        b = self.n_experts
        log_paths = np.zeros((Zi.shape[0], self.n_paths))
        for group in range(b):
            log_lower = gate_log_probabilities(self.gates[1 + group], Zi)
            for within in range(b):
                log_paths[:, group * b + within] = log_top[:, group] + log_lower[:, within]
        return log_paths

    def _log_expert_likelihoods(self, expert_inputs, y):
        """log q_nj, n x E: floored class probabilities or Gaussian densities."""
        log_q = np.zeros((len(y), self.n_paths))
        for j, expert in enumerate(self.experts):
            if self.kind == "classifier":
                probabilities = _class_probabilities(expert, expert_inputs, self.n_classes)
                for row, label in enumerate(y):
                    p = probabilities[row, label] if label < self.n_classes else 0.0
                    log_q[row, j] = math.log(max(p, PROBABILITY_FLOOR))
            else:
                means = np.asarray(expert.predict(expert_inputs), dtype=np.float64)
                for row in range(len(y)):
                    log_q[row, j] = _gaussian_log_density(y[row], means[row],
                                                          self.variances[j])
        return log_q

    def _e_step(self, Zi, expert_inputs, y, weights):
        """(responsibilities n x E, weighted mean log-likelihood)."""
        log_prior = self._log_path_weights(Zi)
        log_q = self._log_expert_likelihoods(expert_inputs, y)
        responsibilities = np.zeros_like(log_q)
        row_log_likelihoods = np.zeros(len(y))
        for row in range(len(y)):
            log_joint = [log_prior[row, j] + log_q[row, j] for j in range(self.n_paths)]
            row_log_likelihoods[row] = _log_sum_exp(log_joint)
            for j in range(self.n_paths):
                responsibilities[row, j] = math.exp(log_joint[j] - row_log_likelihoods[row])
        return responsibilities, float(np.sum(weights * row_log_likelihoods) / weights.sum())

    def _check_targets(self, y, n_samples):
        """y as class indices (classifier) or finite floats (regressor)."""
        y = np.asarray(y)
        if y.shape != (n_samples,):
            raise ValueError(f"y must have shape ({n_samples},), got {y.shape}")
        if self.kind == "classifier":
            return _class_indices(y)
        y = y.astype(np.float64)
        if not np.all(np.isfinite(y)):
            raise ValueError("y must be finite")
        return y

    def gate_weights(self, X):
        """Each row's prior path weight to each expert.

        Parameters
        ----------
        X : array-like of float, shape (n_samples, n_features)

        Returns
        -------
        ndarray of float64, shape (n_samples, E)
            ``g_j(x)`` (levels=1) or ``g_i(x) g_{j|i}(x)`` (levels=2).
        """
        Zi, _ = self._inputs(X)
        return np.exp(self._log_path_weights(Zi))

    def responsibilities(self, X, y):
        """Each row's posterior over the experts (the E-step).

        Parameters
        ----------
        X : array-like of float, shape (n_samples, n_features)
        y : array-like, shape (n_samples,)
            Class indices (classifier) or targets (regressor).

        Returns
        -------
        ndarray of float64, shape (n_samples, E)
        """
        Zi, expert_inputs = self._inputs(X)
        y = self._check_targets(y, Zi.shape[0])
        return self._e_step(Zi, expert_inputs, y, np.ones(len(y)))[0]

    def average_log_likelihood(self, X, y, sample_weight=None):
        """The weighted mean log-likelihood, as ``log_likelihood`` records it.

        Parameters
        ----------
        X : array-like of float, shape (n_samples, n_features)
        y : array-like, shape (n_samples,)
        sample_weight : array-like of float, shape (n_samples,), optional

        Returns
        -------
        float
            ``sum_n s_n log sum_j prior_nj q_nj / sum_n s_n``.
        """
        Zi, expert_inputs = self._inputs(X)
        y = self._check_targets(y, Zi.shape[0])
        weights = _as_weights(sample_weight, len(y))
        return self._e_step(Zi, expert_inputs, y, weights)[1]

    def predict_proba(self, X):
        """The mixture's class probabilities (classifier).

        Parameters
        ----------
        X : array-like of float, shape (n_samples, n_features)

        Returns
        -------
        ndarray of float64, shape (n_samples, n_classes)
            ``sum_j weight_j p_j``, the experts' probabilities laid on the
            classes 0..C-1 through their ``classes_`` (no floor).
        """
        if self.kind != "classifier":
            raise ValueError("predict_proba needs a classifier mixture")
        Zi, expert_inputs = self._inputs(X)
        path_weights = np.exp(self._log_path_weights(Zi))
        mixed = np.zeros((Zi.shape[0], self.n_classes))
        for j, expert in enumerate(self.experts):
            mixed += path_weights[:, j:j + 1] * _class_probabilities(expert, expert_inputs,
                                                                     self.n_classes)
        return mixed

    def predict(self, X):
        """The most probable class (lowest index on ties) or the weighted mean.

        Parameters
        ----------
        X : array-like of float, shape (n_samples, n_features)

        Returns
        -------
        ndarray, shape (n_samples,)
            Classifier: class indices; regressor: ``sum_j weight_j mu_j(x)``.
        """
        if self.kind == "classifier":
            probabilities = self.predict_proba(X)
            labels = np.zeros(len(probabilities), dtype=np.intp)
            for row, row_probabilities in enumerate(probabilities):
                for c in range(1, self.n_classes):
                    if row_probabilities[c] > row_probabilities[labels[row]]:
                        labels[row] = c
            return labels
        Zi, expert_inputs = self._inputs(X)
        path_weights = np.exp(self._log_path_weights(Zi))
        prediction = np.zeros(Zi.shape[0])
        for j, expert in enumerate(self.experts):
            prediction += path_weights[:, j] * np.asarray(expert.predict(expert_inputs),
                                                          dtype=np.float64)
        return prediction


def _class_indices(y):
    """y as class indices 0..C-1 (integers), refusing anything else."""
    y = np.asarray(y)
    if y.dtype.kind not in "iuf" or not np.all(np.isfinite(y)) or np.any(y < 0) \
            or np.any(y != np.floor(y)):
        raise ValueError("a classifier's y must hold class indices 0..C-1")
    return y.astype(np.intp)


def _weighted_variance(y, weights):
    """The s-weighted population variance of y."""
    mean = np.sum(weights * y) / weights.sum()
    return float(np.sum(weights * (y - mean) ** 2) / weights.sum())


def _expected_log_likelihood(kind, expert, expert_inputs, y, mass, n_classes, floor):
    """(Q_j, variance) of one expert under the masses s * h_j.

    Classifier: ``Q = sum s h log max(p(y|x), 1e-12)`` (variance None).
    Regressor: the variance that maximises Q given mu (floored), and Q there.
    """
    if kind == "classifier":
        probabilities = _class_probabilities(expert, expert_inputs, n_classes)
        total = 0.0
        for row, label in enumerate(y):
            if mass[row] != 0:
                total += mass[row] * math.log(max(probabilities[row, label],
                                                  PROBABILITY_FLOOR))
        return total, None
    means = np.asarray(expert.predict(expert_inputs), dtype=np.float64)
    squared_errors = (y - means) ** 2
    variance = max(float(np.sum(mass * squared_errors) / mass.sum()), floor)
    total = 0.0
    for row in range(len(y)):
        if mass[row] != 0:
            total += mass[row] * _gaussian_log_density(y[row], means[row], variance)
    return total, variance


def fit_mixture(X, y, *, kind, n_experts=2, levels=1, make_expert=None, max_iter=100,
                tol=1e-3, alpha=1e-3, seed=0, sample_weight=None, categorical=None,
                n_levels=None, leaf_steps=False):
    """Fit a mixture of experts by EM.

    Parameters
    ----------
    X : array-like of float, shape (n_samples, n_features)
        Numeric columns (NaN for missing) and categorical codes (see
        :func:`gate_inputs`).
    y : array-like, shape (n_samples,)
        Class indices 0..C-1 (classifier) or targets (regressor).
    kind : {'classifier', 'regressor'}
    n_experts : int, default=2
        Experts (levels=1) or the branching b of both levels (levels=2, b*b
        experts).
    levels : {1, 2}, default=1
    make_expert : callable, optional
        ``make_expert(j)`` returns a fresh unfitted expert for index j, with
        ``fit(X, y, sample_weight=...)`` and ``predict_proba`` (with
        ``classes_``) or ``predict``; such experts are given X.  None:
        :class:`LogisticExpert` / :class:`LinearExpert`, given Z.
    max_iter : int, default=100
    tol : float, default=1e-3
        Stop once an iteration raises the log-likelihood by less.
    alpha : float, default=1e-3
        The gates' penalty.
    seed : int, default=0
        Seed of ``numpy.random.default_rng`` for the k-means start.
    sample_weight : array-like of float, shape (n_samples,), optional
    categorical : array-like of bool, shape (n_features,), optional
    n_levels : sequence of int, optional
    leaf_steps : bool, default=False
        The experts are trees (``apply(X)``: each row's node) whose leaves
        are weighted means: re-estimate their leaves between regrowths, as
        the module's rules say.

    Returns
    -------
    ReferenceMixture

    Raises
    ------
    ValueError
        On a bad parameter or input, fewer distinct rows of positive weight
        than the k-means needs, or a k-means cluster with no weight.
    """
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
    if levels not in (1, 2):
        raise ValueError(f"levels must be 1 or 2, got {levels!r}")
    if not (isinstance(n_experts, (int, np.integer)) and n_experts >= 1):
        raise ValueError(f"n_experts must be an integer >= 1, got {n_experts!r}")
    if not (isinstance(max_iter, (int, np.integer)) and max_iter >= 1):
        raise ValueError(f"max_iter must be an integer >= 1, got {max_iter!r}")
    if not alpha >= 0:
        raise ValueError(f"alpha must be >= 0, got {alpha!r}")
    X = _as_matrix(X)
    n_samples = X.shape[0]
    if n_samples == 0:
        raise ValueError("X has no rows")
    weights = _as_weights(sample_weight, n_samples)
    inputs = gate_inputs(X, categorical, n_levels)
    experts_read_gate_inputs = make_expert is None
    if make_expert is None:
        expert_class = LogisticExpert if kind == "classifier" else LinearExpert

        def make_expert(j):
            """A fresh default expert (the same for every index)."""
            return expert_class()

    mixture = ReferenceMixture(kind, n_experts, levels, inputs, experts_read_gate_inputs)
    y = mixture._check_targets(y, n_samples)
    if kind == "classifier":
        mixture.n_classes = int(y.max()) + 1
        variance_floor = None
    else:
        variance_floor = 1e-6 * _weighted_variance(y, weights)
        if variance_floor == 0:
            variance_floor = 1e-12
    Zi, expert_inputs = mixture._inputs(X)

    rng = np.random.default_rng(seed)
    responsibilities = initial_responsibilities(Zi[:, 1:], n_experts, levels, weights, rng)
    b = n_experts
    regrow = True
    nodes = [None] * mixture.n_paths
    for iteration in range(1, max_iter + 1):
        # M-step, experts.
        moved = False
        for j in range(mixture.n_paths):
            mass = weights * responsibilities[:, j]
            fit_weights = np.where(responsibilities[:, j] < RESPONSIBILITY_TRIM, 0.0, mass)
            if fit_weights.sum() == 0:
                continue  # kept as it is, variance included
            if regrow:
                candidate = make_expert(j)
                candidate.fit(expert_inputs, y, sample_weight=fit_weights)
            else:
                old = mixture.experts[j]
                candidate = LeafMeans(old, nodes[j], _leaf_targets(kind, old, y), fit_weights)
            new_q, new_variance = _expected_log_likelihood(
                kind, candidate, expert_inputs, y, mass, mixture.n_classes, variance_floor)
            old = mixture.experts[j]
            if old is not None:
                old_q, old_variance = _expected_log_likelihood(
                    kind, old, expert_inputs, y, mass, mixture.n_classes, variance_floor)
            if old is None or new_q >= old_q:
                mixture.experts[j] = candidate
                if kind == "regressor":
                    mixture.variances[j] = new_variance
                if leaf_steps:
                    candidate_nodes = candidate.apply(expert_inputs)
                    if nodes[j] is None or not np.array_equal(candidate_nodes, nodes[j]):
                        moved = True
                    nodes[j] = candidate_nodes
            elif kind == "regressor":
                mixture.variances[j] = old_variance
        # M-step, gates.
        if levels == 1:
            mixture.gates[0] = update_gate(mixture.gates[0], Zi, responsibilities, weights,
                                           alpha)
        else:
            group_totals = np.zeros((n_samples, b))
            for group in range(b):
                group_totals[:, group] = responsibilities[:, group * b:(group + 1) * b].sum(
                    axis=1)
            mixture.gates[0] = update_gate(mixture.gates[0], Zi, group_totals, weights, alpha)
            for group in range(b):
                within = np.full((n_samples, b), 1.0 / b)
                for row in range(n_samples):
                    if group_totals[row, group] != 0:
                        within[row] = (responsibilities[row, group * b:(group + 1) * b]
                                       / group_totals[row, group])
                mixture.gates[1 + group] = update_gate(
                    mixture.gates[1 + group], Zi, within, weights * group_totals[:, group],
                    alpha)
        # E-step.
        responsibilities, log_likelihood = mixture._e_step(Zi, expert_inputs, y, weights)
        mixture.log_likelihood.append(log_likelihood)
        mixture.n_iter = iteration
        stalled = iteration >= 2 and log_likelihood - mixture.log_likelihood[-2] < tol
        if stalled and regrow:
            break
        regrow = not leaf_steps or stalled or (regrow and moved)
    return mixture
