"""Prediction intervals of forest regressors, calibrated by conformal
prediction so that they cover new rows at the level asked:

- 'oob': jackknife+ after bootstrap (Kim, Xu and Barber, 2020), from the
  out-of-bag residuals of the training rows: no data is held out;
- 'split': split conformal, from the residuals of rows given to
  ``calibrate`` (held out, or the training rows out of bag);
- 'quantile' (quantile forests): the forest's own quantiles, uncalibrated;
- 'cqr' (quantile forests): conformalized quantile regression (Romano,
  Patterson and Candès, 2019), the forest's quantiles widened (or
  narrowed) by the conformity scores of the rows given to ``calibrate``.
"""

import math

import numpy as np

from ._validation import check_choice, check_open_fraction, check_random_state

# Rows of the n_rows x n_training matrix of leave-one-out means that
# jackknife+ holds at once: about 32 MB.
JACKKNIFE_CELLS = 1 << 22


def conformal_rank(alpha, n_scores):
    """The rank (1-based) of the score a 1 - alpha interval reaches:
    ceil((1 - alpha)(n + 1)); above n_scores, the interval is unbounded."""
    return math.ceil((1.0 - alpha) * (n_scores + 1) - 1e-12)


def tie_coverage(scores, quantile, alpha):
    """The probability with which smoothed conformal prediction covers a new
    row whose score equals ``quantile``, the conformal quantile of
    ``scores``: ``((1 - alpha)(n + 1) - #{s < q}) / (#{s = q} + 1)``, so that
    the expected coverage is 1 - alpha."""
    below = int(np.count_nonzero(scores < quantile))
    tied = int(np.count_nonzero(scores == quantile))
    share = ((1.0 - alpha) * (len(scores) + 1) - below) / (tied + 1)
    return min(max(share, 0.0), 1.0)


class ForestIntervals:
    """``calibrate`` and ``predict_interval`` of the forest regressors."""

    _interval_methods = ("oob", "split")

    def _single_output_for_intervals(self):
        self._check_fitted()
        if self.n_outputs_ != 1:
            raise ValueError(f"prediction intervals need one output; this "
                             f"{type(self).__name__} was fitted on {self.n_outputs_}")

    def _mean_prediction(self, X):
        """The forest's mean of its trees' values (what split conformal centres on)."""
        from .forest import ForestRegressor  # lazy: forest.py imports this module

        return ForestRegressor.predict(self, X)

    def calibrate(self, X, y, oob=False, indices=None):
        """Keep the conformity scores of rows of known target, for
        ``predict_interval``'s 'split' and 'cqr' methods.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        oob : bool, default=False
            False: the rows were held out of the fit (split conformal).
            True: they are the training rows, scored out of bag, so none
            need be held out (needs ``bootstrap=True``).
        indices : array-like of int or None
            With ``oob``, each row's index among the training rows (see
            ``predict``); None: X is the training rows, in order.

        Returns
        -------
        self
        """
        self._single_output_for_intervals()
        X = self._validate_X_for_predict(X)
        y = np.asarray(y, dtype=np.float64)
        if y.shape != (X.shape[0],):
            raise ValueError(f"y must have shape ({X.shape[0]},) as X's rows; got {y.shape}")
        if not np.isfinite(y).all():
            raise ValueError("y holds NaN or infinity")
        if oob:
            center = self._oob_means(X, indices)
        else:
            center = self._mean_prediction(X)
        residuals = np.abs(y - center)
        # Rows every tree drew have no out-of-bag value: they cannot be scored.
        kept = ~np.isnan(residuals)
        if not kept.any():
            raise ValueError("no calibration row has an out-of-bag value")
        # The rows themselves, for the scores of quantiles asked later ('cqr').
        rows = X.toarray() if hasattr(X, "toarray") else np.asarray(X)
        self._calibration = {"residuals": np.sort(residuals[kept]), "oob": bool(oob),
                             "X": rows, "y": y,
                             "indices": None if indices is None else np.asarray(indices)}
        return self

    def _oob_means(self, X, indices):
        """Out-of-bag means of training rows (see ``calibrate``'s ``oob``)."""
        leaves = self._oob_tree_mask(X.shape[0], indices)
        per_tree = self._tree_means(X)
        counted = (~leaves).sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(leaves, 0.0, per_tree).sum(axis=1) / counted

    def _tree_means(self, X):
        """(n_rows, n_trees): each tree's value (one output) for each row."""
        values = self._ensemble_arrays()["values"]
        return self._per_tree_values(X, np.ascontiguousarray(values[:, :1]))

    def _oob_tree_mask(self, n_rows, indices):
        """(n_rows, n_trees): True where the tree drew the row, the rows
        being training rows (``indices``: which, -1 for none; None: all, in
        order)."""
        if not self.bootstrap:
            raise ValueError("Out-of-bag estimation only available if bootstrap=True.")
        if indices is None:
            if n_rows != self._n_samples:
                raise ValueError(f"out of bag, X must be the {self._n_samples} training rows, "
                                 f"in order; X has {n_rows} rows (pass indices to say which "
                                 "training row each is, -1 for none)")
            indices = np.arange(n_rows)
        indices = np.asarray(indices)
        if (indices.shape != (n_rows,) or indices.dtype.kind not in "iu"
                or (indices >= self._n_samples).any() or (indices < -1).any()):
            raise ValueError(f"indices must hold, per row of X ({n_rows}), its training row "
                             f"in [0, {self._n_samples}) or -1")
        drawn = np.zeros((n_rows, len(self._trees)), dtype=bool)
        trained = indices >= 0
        for tree in range(len(self._trees)):
            drawn[trained, tree] = self._tree_counts(tree)[indices[trained]] > 0
        return drawn

    def predict_interval(self, X, alpha=0.1, method="oob", ties="closed", random_state=None):
        """An interval for each row's target, meant to cover it with
        probability 1 - alpha.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        alpha : float, default=0.1
            The share of new rows the intervals may miss.
        method : str, default='oob'
            'oob': jackknife+ after bootstrap from the out-of-bag residuals
            of the training rows (fit with ``oob_score=True``); 'split':
            the mean prediction plus or minus the conformal quantile of the
            residuals ``calibrate`` kept. Quantile forests add 'quantile',
            their raw alpha/2 and 1 - alpha/2 quantiles, and 'cqr', those
            quantiles moved by the conformal quantile of the calibration
            rows' conformity scores (Romano et al., 2019).
        ties : {'closed', 'randomized'}, default='closed'
            For 'split' and 'cqr': a new row whose conformity score would
            equal the conformal quantile (its target exactly at a bound) is
            covered ('closed': coverage at least 1 - alpha, and above it
            when many calibration scores tie, as for a target with an atom
            such as many exact zeros), or covered with the probability that
            makes the expected coverage 1 - alpha ('randomized': smoothed
            conformal prediction, Vovk, Gammerman and Shafer, 2005); each
            row's interval is then open at its bounds (they are moved one
            float inwards) with the remaining probability.
        random_state : None, int or numpy Generator, default=None
            Seeds the draws of ``ties='randomized'``.

        Returns
        -------
        ndarray of float64, shape (n_samples, 2)
            Lower and upper bounds (infinite where too few rows calibrate
            the level: fewer than 1 / alpha - 1).
        """
        self._single_output_for_intervals()
        alpha = check_open_fraction(alpha, "alpha")
        check_choice(method, "method", self._interval_methods)
        check_choice(ties, "ties", ("closed", "randomized"))
        seed = check_random_state(random_state) if ties == "randomized" else None
        X = self._validate_X_for_predict(X)
        if method == "oob":
            return self._jackknife_plus(X, alpha)
        if method == "quantile":
            return self._raw_quantiles(X, alpha)
        calibration = self._checked_calibration(method)
        if method == "split":
            scores = calibration["residuals"]
            center = self._mean_prediction(X)
            lower, upper = center, center
        else:
            scores = self._quantile_scores(calibration, alpha)
            bounds = self._raw_quantiles(X, alpha)
            lower, upper = bounds[:, 0], bounds[:, 1]
        width = self._conformal_score(scores, alpha)
        intervals = np.column_stack([lower - width, upper + width])
        if seed is not None and math.isfinite(width):
            opened = (np.random.default_rng(seed).random(len(intervals))
                      >= tie_coverage(scores, width, alpha))
            intervals[opened, 0] = np.nextafter(intervals[opened, 0], np.inf)
            intervals[opened, 1] = np.nextafter(intervals[opened, 1], -np.inf)
        return intervals

    def _checked_calibration(self, method):
        calibration = getattr(self, "_calibration", None)
        if calibration is None:
            raise ValueError(f"method={method!r} needs calibration rows: call calibrate(X_cal, "
                             "y_cal) with rows held out of the fit, or calibrate(X_train, "
                             "y_train, oob=True) first")
        return calibration

    @staticmethod
    def _conformal_score(scores, alpha):
        rank = conformal_rank(alpha, len(scores))
        return math.inf if rank > len(scores) else float(np.sort(scores)[rank - 1])

    def _raw_quantiles(self, X, alpha):
        return self.predict(X, quantiles=[alpha / 2, 1 - alpha / 2])

    def _quantile_scores(self, calibration, alpha):
        """CQR's conformity scores of the calibration rows at level alpha."""
        bounds = self.predict(calibration["X"], quantiles=[alpha / 2, 1 - alpha / 2],
                              oob_score=calibration["oob"], indices=calibration["indices"])
        y = calibration["y"]
        scores = np.maximum(bounds[:, 0] - y, y - bounds[:, 1])
        return scores[~np.isnan(scores)]

    def _jackknife_plus(self, X, alpha):
        """Jackknife+ after bootstrap: per row, the alpha and 1 - alpha
        conformal quantiles of mu_-i(x) -/+ R_i over the training rows i,
        mu_-i the mean of the trees that did not draw row i and R_i its
        out-of-bag residual."""
        residuals = getattr(self, "_oob_residuals", None)
        if residuals is None:
            raise ValueError("method='oob' needs the training rows' out-of-bag residuals: fit "
                             "with bootstrap=True and oob_score=True (a forest saved before "
                             "fasttree kept them must be fitted again)")
        if self._tree_aggregation() != "mean":
            raise ValueError("method='oob' centres on the mean of the trees; this forest "
                             "aggregates them by their median")
        left_out = ~self._oob_tree_mask(self._n_samples, None)
        n_left_out = left_out.sum(axis=1)
        usable = (n_left_out > 0) & ~np.isnan(residuals)
        left_out = left_out[usable].astype(np.float64)
        n_left_out = n_left_out[usable]
        residuals = residuals[usable]
        n_scores = len(residuals)
        high_rank = conformal_rank(alpha, n_scores)
        low_rank = n_scores + 1 - high_rank  # floor(alpha (n + 1))
        per_tree = self._tree_means(X)
        out = np.empty((X.shape[0], 2))
        out[:, 0] = -math.inf if low_rank < 1 else 0.0
        out[:, 1] = math.inf if high_rank > n_scores else 0.0
        step = max(1, JACKKNIFE_CELLS // max(n_scores, 1))
        for start in range(0, X.shape[0], step):
            part = slice(start, start + step)
            means = per_tree[part] @ left_out.T / n_left_out
            if low_rank >= 1:
                out[part, 0] = np.partition(means - residuals, low_rank - 1,
                                            axis=1)[:, low_rank - 1]
            if high_rank <= n_scores:
                out[part, 1] = np.partition(means + residuals, high_rank - 1,
                                            axis=1)[:, high_rank - 1]
        return out
