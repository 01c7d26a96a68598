"""Textbook AdaBoost (SAMME and AdaBoost.R2) on reference trees, as an oracle.

Slow and written to be obviously correct.  Rules a compiled booster must
reproduce exactly:

* sample weights start at ``1 / N`` (float64) and are renormalised to sum
  to 1 (``w / w.sum()``) after every kept round;
* resampling makes exactly one generator call per round,
  ``draws = rng.choice(N, N, p=w)`` (with replacement), also in a round
  whose learner is then discarded; the learner is fitted on the drawn rows
  ``rows = np.flatnonzero(counts > 0)`` (increasing order) with weights
  ``counts[rows]``, where ``counts = np.bincount(draws, minlength=N)``, so
  a row drawn twice weighs 2 (for trees with the default ``min_samples_*``
  this is the same as fitting on the duplicated rows);
* a classifier learner's prediction is ``learner.predict(X)``; for a
  :class:`~.tree.ReferenceTree` that is the argmax of the leaf value, lowest
  class index on ties, and every other argmax here also picks the lowest
  index;
* stop rules are checked in this order: zero error (keep, weight 1.0, stop),
  too large an error (discard and stop; ValueError in the first round),
  otherwise keep and update.
"""

import numpy as np

from .split import _check_X
from .tree import _check_classes, build_tree

__all__ = [
    "ReferenceBoost",
    "ReferenceBoostR2",
    "adaboost_r2",
    "samme",
    "weighted_median",
]


def _check_common(X, n_estimators, learning_rate):
    """Return X as float32 after checking the shared parameters."""
    if n_estimators < 1:
        raise ValueError(f"n_estimators must be >= 1, got {n_estimators!r}")
    if not learning_rate > 0:
        raise ValueError(f"learning_rate must be > 0, got {learning_rate!r}")
    X = _check_X(X)
    if X.shape[0] == 0:
        raise ValueError("X has no rows")
    return X


def _resample(X, y, w, rng, fit):
    """Draw N rows with probabilities `w` and fit on them with counts."""
    n_samples = X.shape[0]
    draws = rng.choice(n_samples, n_samples, replace=True, p=w)
    counts = np.bincount(draws, minlength=n_samples).astype(np.float64)
    rows = np.flatnonzero(counts > 0)
    return fit(X[rows], y[rows], counts[rows])


class ReferenceBoost:
    """A fitted SAMME ensemble.

    Parameters
    ----------
    learners : list
        Kept weak learners; each has ``predict(X)`` returning class indices.
    alphas : list of float
        Estimator weight of each learner.
    errors : list of float
        Weighted training error of each learner.
    n_classes : int
        Number of classes K.
    sample_weights_history : list of ndarray, optional
        Sample weights (summing to 1) each kept learner was fitted with.
    """

    def __init__(self, learners, alphas, errors, n_classes,
                 sample_weights_history=None):
        self.learners = list(learners)
        self.alphas = np.asarray(alphas, dtype=np.float64)
        self.errors = np.asarray(errors, dtype=np.float64)
        self.n_classes = int(n_classes)
        self.sample_weights_history = sample_weights_history or []

    @property
    def estimator_weights(self):
        """ndarray: alias of `alphas`."""
        return self.alphas

    def staged_decision_function(self, X):
        """Yield the decision function after each learner in turn.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Yields
        ------
        ndarray of float64, shape (n_samples, n_classes)
        """
        X = _check_X(X)
        scores = np.zeros((X.shape[0], self.n_classes), dtype=np.float64)
        rows = np.arange(X.shape[0])
        for learner, alpha in zip(self.learners, self.alphas):
            pred = np.asarray(learner.predict(X), dtype=np.intp)
            scores[rows, pred] += alpha
            yield scores.copy()

    def decision_function(self, X):
        """Sum over learners of ``alpha * one_hot(prediction)``.

        Always of shape (n_samples, n_classes), also for K = 2 (no
        difference-of-columns score).  Summed in learner order.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of float64, shape (n_samples, n_classes)
        """
        scores = None
        for scores in self.staged_decision_function(X):
            pass
        return scores

    def predict(self, X):
        """Class with the largest decision value, lowest index on ties.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of intp, shape (n_samples,)
        """
        return np.argmax(self.decision_function(X), axis=1)

    def staged_predict(self, X):
        """Yield :meth:`predict` using the first 1, 2, ... learners.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Yields
        ------
        ndarray of intp, shape (n_samples,)
        """
        for scores in self.staged_decision_function(X):
            yield np.argmax(scores, axis=1)


def samme(X, y, *, n_estimators, learning_rate=1.0, n_classes=None,
          fit_stump=None, resample_rng=None):
    """Multi-class AdaBoost by SAMME (Zhu, Zou, Rosset and Hastie, 2009).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Training rows; cast to float32.
    y : array-like of shape (n_samples,)
        Class indices ``0 .. K - 1``.
    n_estimators : int
        Maximum number of rounds.
    learning_rate : float, default=1.0
        Multiplies every estimator weight.
    n_classes : int, optional
        K; default ``max(y) + 1``.  Must be at least 2.
    fit_stump : callable, optional
        ``fit_stump(X, y, w)`` returns a learner with ``predict(X)``.
        Default: ``build_tree(X, y, w, criterion='gini', n_classes=K,
        max_depth=1)``.
    resample_rng : numpy.random.Generator, optional
        If given, each round fits on ``N`` rows drawn with probabilities
        ``w`` instead of weighting; the learner gets the drawn rows with
        their draw counts as weights (see the module notes).

    Returns
    -------
    ReferenceBoost

    Notes
    -----
    Each round: ``e = sum(w[pred != y]) / sum(w)`` on all training rows.
    If ``e <= 0`` the learner is kept with estimator weight 1.0 (not scaled
    by `learning_rate`) and error 0.0, and boosting stops.  If
    ``e >= 1 - 1/K`` it is discarded and boosting stops (ValueError in the
    first round).  Otherwise ``alpha = learning_rate * (log((1 - e) / e) +
    log(K - 1))``, misclassified weights are multiplied by ``exp(alpha)``
    and all weights are divided by their sum.
    """
    X = _check_common(X, n_estimators, learning_rate)
    y, n_classes = _check_classes(y, n_classes)
    if y.shape[0] != X.shape[0]:
        raise ValueError(f"X has {X.shape[0]} rows but y has {y.shape[0]}")
    if n_classes < 2:
        raise ValueError(f"SAMME needs at least 2 classes, got {n_classes}")
    if fit_stump is None:
        def fit_stump(X_fit, y_fit, w_fit):
            return build_tree(X_fit, y_fit, w_fit, criterion="gini",
                              n_classes=n_classes, max_depth=1)

    n_samples = X.shape[0]
    w = np.full(n_samples, 1.0 / n_samples)
    learners, alphas, errors, history = [], [], [], []
    for round_index in range(n_estimators):
        if resample_rng is None:
            learner = fit_stump(X, y, w)
        else:
            learner = _resample(X, y, w, resample_rng, fit_stump)
        miss = np.asarray(learner.predict(X), dtype=np.intp) != y
        error = float(w[miss].sum() / w.sum())

        if error <= 0:
            learners.append(learner)
            alphas.append(1.0)
            errors.append(0.0)
            history.append(w.copy())
            break
        if error >= 1.0 - 1.0 / n_classes:
            if round_index == 0:
                raise ValueError(
                    f"the first weak learner is worse than random guessing: "
                    f"error {error} >= 1 - 1/K = {1.0 - 1.0 / n_classes}"
                )
            break

        alpha = learning_rate * (
            np.log((1.0 - error) / error) + np.log(n_classes - 1.0)
        )
        learners.append(learner)
        alphas.append(float(alpha))
        errors.append(error)
        history.append(w.copy())
        w = np.where(miss, w * np.exp(alpha), w)
        w = w / w.sum()
    return ReferenceBoost(learners, alphas, errors, n_classes, history)


def weighted_median(predictions, weights):
    """Weighted median of each column of `predictions`.

    Parameters
    ----------
    predictions : array-like of shape (n_learners, n_samples)
    weights : array-like of shape (n_learners,)

    Returns
    -------
    ndarray of float64, shape (n_samples,)
        For each row, the smallest prediction whose cumulative weight (in
        increasing prediction order, stable sort, summed in that order)
        reaches half the total weight.
    """
    predictions = np.asarray(predictions, dtype=np.float64)
    weights = np.asarray(weights, dtype=np.float64)
    half = 0.5 * weights.sum()
    medians = np.empty(predictions.shape[1], dtype=np.float64)
    for row in range(predictions.shape[1]):
        order = np.argsort(predictions[:, row], kind="stable")
        cumulative = np.cumsum(weights[order])
        first = int(np.flatnonzero(cumulative >= half)[0])
        medians[row] = predictions[order[first], row]
    return medians


class ReferenceBoostR2:
    """A fitted AdaBoost.R2 ensemble.

    Parameters
    ----------
    learners : list
        Kept learners; each has ``predict(X)`` returning floats.
    weights : list of float
        Estimator weight ``learning_rate * log(1 / beta)`` of each learner.
    errors : list of float
        Average loss Lbar of each learner.
    sample_weights_history : list of ndarray, optional
        Sample weights (summing to 1) each kept learner was drawn with.
    """

    def __init__(self, learners, weights, errors, sample_weights_history=None):
        self.learners = list(learners)
        self.weights = np.asarray(weights, dtype=np.float64)
        self.errors = np.asarray(errors, dtype=np.float64)
        self.sample_weights_history = sample_weights_history or []

    @property
    def estimator_weights(self):
        """ndarray: alias of `weights`."""
        return self.weights

    def predict(self, X):
        """Weighted median of the learners' predictions.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of float64, shape (n_samples,)
        """
        X = _check_X(X)
        predictions = [np.asarray(learner.predict(X), dtype=np.float64)
                       for learner in self.learners]
        return weighted_median(predictions, self.weights)


LOSSES = ("linear", "square", "exponential")


def adaboost_r2(X, y, *, n_estimators, learning_rate=1.0, loss="linear",
                fit_learner=None, rng):
    """AdaBoost.R2 regression (Drucker, 1997).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Training rows; cast to float32.
    y : array-like of shape (n_samples,)
        Float targets.
    n_estimators : int
        Maximum number of rounds.
    learning_rate : float, default=1.0
        Multiplies the estimator weights and the weight-update exponent.
    loss : {'linear', 'square', 'exponential'}
        ``L = e/D``, ``(e/D)**2`` or ``1 - exp(-e/D)``, with ``e`` the
        absolute errors on all rows and ``D = max(e)``.
    fit_learner : callable, optional
        ``fit_learner(X, y, w)`` returns a learner with ``predict(X)``.
        Default: ``build_tree(X, y, w, criterion='squared_error',
        max_depth=3)``.
    rng : numpy.random.Generator
        Used once per round: ``rng.choice(N, N, p=w)``; the learner gets
        the drawn rows with their draw counts as weights.

    Returns
    -------
    ReferenceBoostR2

    Notes
    -----
    If ``D == 0`` (or ``Lbar <= 0``) the learner is kept with weight 1.0
    (not scaled by `learning_rate`) and error 0.0, and boosting stops.  If
    ``Lbar >= 0.5`` it is discarded and boosting stops (ValueError in the
    first round).  Otherwise ``beta = Lbar / (1 - Lbar)``, the weight is
    ``learning_rate * log(1 / beta)``, ``w *= beta ** ((1 - L) *
    learning_rate)`` and ``w /= w.sum()``.
    """
    X = _check_common(X, n_estimators, learning_rate)
    if loss not in LOSSES:
        raise ValueError(f"unknown loss {loss!r}; expected one of {LOSSES}")
    y = np.asarray(y, dtype=np.float64).reshape(-1)
    if y.shape[0] != X.shape[0]:
        raise ValueError(f"X has {X.shape[0]} rows but y has {y.shape[0]}")
    if fit_learner is None:
        def fit_learner(X_fit, y_fit, w_fit):
            return build_tree(X_fit, y_fit, w_fit, criterion="squared_error",
                              max_depth=3)

    n_samples = X.shape[0]
    w = np.full(n_samples, 1.0 / n_samples)
    learners, weights, errors, history = [], [], [], []
    for round_index in range(n_estimators):
        learner = _resample(X, y, w, rng, fit_learner)
        abs_errors = np.abs(y - np.asarray(learner.predict(X), dtype=np.float64))
        max_error = float(abs_errors.max())
        if max_error > 0:
            scaled = abs_errors / max_error
            if loss == "linear":
                losses = scaled
            elif loss == "square":
                losses = scaled ** 2
            else:
                losses = 1.0 - np.exp(-scaled)
            average_loss = float((w * losses).sum())

        if max_error == 0 or average_loss <= 0:
            learners.append(learner)
            weights.append(1.0)
            errors.append(0.0)
            history.append(w.copy())
            break
        if average_loss >= 0.5:
            if round_index == 0:
                raise ValueError(
                    f"the first learner's average loss {average_loss} is "
                    f">= 0.5"
                )
            break

        beta = average_loss / (1.0 - average_loss)
        learners.append(learner)
        weights.append(float(learning_rate * np.log(1.0 / beta)))
        errors.append(average_loss)
        history.append(w.copy())
        w = w * beta ** ((1.0 - losses) * learning_rate)
        w = w / w.sum()
    return ReferenceBoostR2(learners, weights, errors, history)
