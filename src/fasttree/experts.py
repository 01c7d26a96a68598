"""The linear experts of a mixture of experts, in numpy: the textbook's
logistic expert (a softmax of linear functions of the input) and a linear
regression expert (the mean of a Gaussian whose variance the mixture keeps).

Both read the features as a mixture's gates do (``_gating.GateInputs``):
numeric features with missing values at their training means, categorical
features one-hot. They standardise those inputs with the fit's weighted
means and standard deviations before their ridge penalty, so the penalty
means the same whatever the features' units.
"""

import numpy as np

from ._base import BaseEstimator, ClassifierMixin, RegressorMixin
from ._docstrings import shared_docs
from ._model_file import ModelFileError, model_file_class
from ._frames import as_frame
from ._gating import RELATIVE_SPREAD, GateInputs
from ._softmax import log_softmax, newton_fit, with_intercept
from ._targets import check_regression_target, encode_labels
from ._validation import (check_array_2d, check_sample_weight, checked_sparse,
                          feature_names_of, invalid_parameter, is_sparse)

__all__ = ["LinearExpert", "LogisticExpert"]


def check_alpha(alpha):
    """``alpha`` as a float, after checking it is a finite number >= 0."""
    if isinstance(alpha, (bool, np.bool_)) or not isinstance(alpha, (int, float, np.number)) \
            or not np.isfinite(alpha) or alpha < 0:
        raise invalid_parameter("alpha", "a float in the range [0.0, inf)", alpha)
    return float(alpha)


def dense_rows(X, estimator):
    """X as float64 (n, d): numbers, NaN where missing; infinity refused. A
    sparse X is made dense in float64 (not the float32 trees read)."""
    if is_sparse(X):
        X = checked_sparse(X, estimator=estimator).astype(np.float64).toarray()
    elif isinstance(X, np.ndarray) and X.dtype.kind in "iuf" and X.dtype != np.float64:
        # Straight to float64: check_array_2d would round other numbers to
        # float32, which trees read but a linear function need not.
        with np.errstate(over="ignore"):
            X = X.astype(np.float64)
    # C order whatever X's: column means summed in another order would round
    # otherwise, and a DataFrame and its array would fit other mixtures.
    matrix = np.array(check_array_2d(X, estimator=estimator, check_finite=False,
                                     keep_float=True), dtype=np.float64, order="C")
    if np.isinf(matrix).any():
        raise ValueError(f"{estimator}: X holds infinity; a linear function of the features "
                         "needs finite values (NaN stands for a missing value)")
    return matrix


def standardisation(X, weights):
    """Weighted means and standard deviations (population) of X's columns;
    a constant column (see RELATIVE_SPREAD) gets the scale 1."""
    total = weights.sum()
    mean = weights @ X / total
    scale = np.sqrt(np.maximum(weights @ (X - mean) ** 2 / total, 0.0))
    scale[~(scale > RELATIVE_SPREAD * np.abs(mean))] = 1.0
    return mean, scale


class LinearModel(BaseEstimator):
    """What both linear experts share: the inputs (as a mixture's gates read
    them), their standardisation, and the coefficients in the inputs' units."""

    _fitted_attribute = "coef_"

    def _fit_inputs(self, X, sample_weight):
        """(Inputs with an intercept column, standardised; weights; mean;
        scale; alpha), after learning how the features become inputs."""
        name = type(self).__name__
        alpha = check_alpha(self.alpha)
        X = as_frame(X)
        names = feature_names_of(X)
        X, encoding = self._categories_for_fit(X, names)
        matrix = dense_rows(X, name)
        n_levels = () if encoding is None else [len(level) for level in encoding.levels]
        inputs = GateInputs.fit(matrix, None if encoding is None else encoding.mask, n_levels)
        self._input_mean, self._input_scale = inputs.mean, inputs.scale
        self._set_input_attributes(matrix.shape[1], names, encoding)
        Z = inputs.transform(matrix, standardise=False)
        weight = check_sample_weight(sample_weight, Z.shape[0], estimator=name)
        mean, scale = standardisation(Z, weight)
        return with_intercept((Z - mean) / scale), weight, mean, scale, alpha

    def _inputs(self):
        n_levels = [len(level) for level in getattr(self, "categories_", [])]
        return GateInputs(self._input_mean, self._input_scale,
                          getattr(self, "is_categorical_", None), n_levels)

    def _set_coefficients(self, coefficients, mean, scale):
        """``coef_`` and ``intercept_`` on the inputs (unstandardised) from
        the coefficients of the standardised inputs (intercept first)."""
        coef = coefficients[1:] / scale[:, None]
        self.coef_ = np.ascontiguousarray(coef.T)
        self.intercept_ = coefficients[0] - mean @ coef

    def _scores(self, X):
        matrix = self._checked_predict_input(X, lambda X: dense_rows(X, type(self).__name__))
        return (self._inputs().transform(matrix, standardise=False) @ self.coef_.T
                + self.intercept_)

    def _check_fitted_parts(self, foreign_members):
        """Loaded coefficients: finite, one per input (and class)."""
        rows = (len(self.classes_),) if hasattr(self, "classes_") else ()
        coef, intercept = self.__dict__.get("coef_"), self.__dict__.get("intercept_")
        mean, scale = self.__dict__.get("_input_mean"), self.__dict__.get("_input_scale")
        if (not isinstance(mean, np.ndarray) or not isinstance(scale, np.ndarray)
                or mean.shape != scale.shape or not np.isfinite(mean).all()
                or not (scale > 0).all()
                or mean.shape[0] + len(getattr(self, "categories_", [])) != self.n_features_in_):
            raise ModelFileError(f"the {type(self).__name__}'s input scales do not match its "
                                 "features")
        if (not isinstance(coef, np.ndarray) or coef.shape != rows + (self._inputs().n_inputs,)
                or not np.isfinite(coef).all()
                or not np.isfinite(np.asarray(intercept, dtype=np.float64)).all()
                or np.shape(intercept) != rows):
            raise ModelFileError(f"the {type(self).__name__}'s coefficients do not match its "
                                 "inputs")


@model_file_class
@shared_docs
class LogisticExpert(ClassifierMixin, LinearModel):
    """Multinomial logistic regression with a ridge penalty: the textbook's
    logistic expert, ``P(y = k | x) = softmax(w_k . x + b_k)``.

    Fitted by Newton's method to the penalised maximum of the weighted
    log-likelihood (strictly concave, so its one optimum), on inputs
    standardised with the fit's weighted means and standard deviations.
    Classes whose sample weights sum to 0 are not learnt (their probability
    is 0), as a tree does not learn them.

    Parameters
    ----------
    alpha : float, default=1e-4
        Ridge penalty: the fit maximises the weighted mean log-likelihood
        less ``alpha / 2`` times the sum of the squared coefficients of the
        standardised inputs (not the intercepts).
    max_iter : int, default=100
        Most Newton steps.
    {categorical_features}

    Attributes
    ----------
    classes_ : ndarray
        The classes learnt (of positive weight), sorted.
    coef_ : ndarray of shape (n_classes, n_inputs)
        Coefficients of the inputs (each numeric feature, then one input
        per category of a categorical feature, in column order), in their
        units; the last class's are 0.
    intercept_ : ndarray of shape (n_classes,)
        Intercepts; the last class's is 0.
    n_iter_ : int
        Newton steps taken.
    n_features_in_ : int
        Number of features seen in fit.
    feature_names_in_ : ndarray of str
        The column names; only when X was a DataFrame with string column names.
    is_categorical_, categories_ : ndarray of bool, list of ndarray
        Which features are categorical, and their categories; only when
        some are.
    """

    def __init__(self, alpha=1e-4, max_iter=100, categorical_features="from_dtype"):
        self._set_parameters(locals())

    @shared_docs
    def fit(self, X, y, sample_weight=None):
        """Fit the coefficients.

        Parameters
        ----------
        {linear_fit_X}
        y : array-like of shape (n_samples,)
            Class labels.
        sample_weight : array-like of shape (n_samples,), default=None

        Returns
        -------
        self
        """
        if not isinstance(self.max_iter, (int, np.integer)) or isinstance(self.max_iter, bool) \
                or self.max_iter < 1:
            raise invalid_parameter("max_iter", "an int in the range [1, inf)", self.max_iter)
        Zi, weight, mean, scale, alpha = self._fit_inputs(X, sample_weight)
        classes, class_index = encode_labels(y, Zi.shape[0], type(self).__name__)
        class_weight = np.bincount(class_index, weights=weight, minlength=len(classes))
        learnt = np.flatnonzero(class_weight > 0)
        position = np.full(len(classes), -1)
        position[learnt] = np.arange(len(learnt))
        targets = np.zeros((Zi.shape[0], len(learnt)))
        rows = np.flatnonzero(weight > 0)
        targets[rows, position[class_index[rows]]] = 1.0
        coefficients, self.n_iter_ = newton_fit(Zi, targets, weight, alpha, self.max_iter)
        self.classes_ = classes[learnt]
        self._set_coefficients(coefficients, mean, scale)
        return self

    def predict_log_proba(self, X):
        """Log-probabilities of the classes, shape (n_samples, n_classes)."""
        return np.ascontiguousarray(log_softmax(self._scores(X)))

    def predict_proba(self, X):
        """Probabilities of the classes, shape (n_samples, n_classes)."""
        return np.exp(self.predict_log_proba(X))

    def predict(self, X):
        """The most probable class of each row (the first on ties)."""
        # The probabilities' argmax, not the scores': rounding in the softmax
        # may tie classes whose scores differ in their last bits.
        probabilities = self.predict_proba(X)
        return self.classes_[np.argmax(probabilities, axis=1)]


@model_file_class
@shared_docs
class LinearExpert(RegressorMixin, LinearModel):
    """Least squares with a ridge penalty: the mean of the textbook's
    Gaussian linear expert (the mixture estimates each expert's variance).

    Parameters
    ----------
    alpha : float, default=1e-4
        Ridge penalty: the fit minimises the weighted mean squared error plus
        ``alpha`` times the sum of the squared coefficients of the
        standardised inputs (not the intercept).
    {categorical_features}

    Attributes
    ----------
    coef_ : ndarray of shape (n_inputs,)
        Coefficients of the inputs (each numeric feature, then one input
        per category of a categorical feature, in column order), in their
        units.
    intercept_ : float
        The intercept.
    n_features_in_ : int
        Number of features seen in fit.
    feature_names_in_ : ndarray of str
        The column names; only when X was a DataFrame with string column names.
    is_categorical_, categories_ : ndarray of bool, list of ndarray
        Which features are categorical, and their categories; only when
        some are.
    """

    def __init__(self, alpha=1e-4, categorical_features="from_dtype"):
        self._set_parameters(locals())

    @shared_docs
    def fit(self, X, y, sample_weight=None):
        """Fit the coefficients (weighted ridge least squares).

        Parameters
        ----------
        {linear_fit_X}
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), default=None

        Returns
        -------
        self
        """
        Zi, weight, mean, scale, alpha = self._fit_inputs(X, sample_weight)
        target = check_regression_target(y, Zi.shape[0], type(self).__name__)
        if target.ndim != 1:
            raise ValueError(f"{type(self).__name__} fits one target; y has {target.shape[1]} "
                             "columns")
        share = weight / weight.sum()
        penalty = np.full(Zi.shape[1], alpha)
        penalty[0] = 0.0
        gram = (Zi * share[:, None]).T @ Zi + np.diag(penalty)
        coefficients = np.linalg.lstsq(gram, Zi.T @ (share * target), rcond=None)[0]
        self._set_coefficients(coefficients[:, None], mean, scale)
        self.coef_ = self.coef_[0]
        self.intercept_ = float(self.intercept_[0])
        return self

    def predict(self, X):
        """The fitted linear function of each row."""
        return self._scores(X)
