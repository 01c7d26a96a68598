"""scikit-learn's estimator conventions, without importing scikit-learn."""

import difflib
import functools
import inspect
import math

import numpy as np

from ._frames import as_frame
from ._categories import CategoryEncoding, fit_categories
from ._model_file import save as save_model_file
from ._state_checks import _check_model
from ._validation import check_sample_weight, feature_names_of, not_fitted_error


class BaseEstimator:
    """Parameters stored verbatim by ``__init__``, read and set by name."""

    # The attribute that exists once the estimator is fitted.
    _fitted_attribute = None

    def __new__(cls, *args, **kwargs):
        # Python's own error would name the base class whose __init__ a
        # class inherits (ForestClassifier, not RandomForestClassifier).
        known = cls._parameter_names()
        unknown = [name for name in kwargs if name not in known]
        if unknown and not any(parameter.kind == parameter.VAR_KEYWORD for parameter in
                               inspect.signature(cls.__init__).parameters.values()):
            close = difflib.get_close_matches(unknown[0], known, n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise TypeError(f"{cls.__name__}() got an unexpected keyword argument "
                            f"{unknown[0]!r}{hint}")
        return super().__new__(cls)

    def save(self, path):
        """Write the estimator to ``path`` as a fasttree model file.

        The file holds numpy arrays and a JSON header (no pickle), and
        :func:`fasttree.load` reads it back, checked, predicting bit for bit
        as this estimator does.

        Parameters
        ----------
        path : str or path-like
        """
        save_model_file(self, path)

    def __setstate__(self, state):
        # Unpickled estimators are checked as loaded model files are, but
        # for members from other libraries, which only a pickle can hold.
        self.__dict__.update(state)
        self._check_loaded_state(foreign_members=True)

    def _check_loaded_state(self, foreign_members=False):
        """Raise ``ModelFileError`` (a ValueError) unless the estimator's
        fitted state is consistent (see ``fasttree.load``); ensemble members
        from other libraries pass unchecked when ``foreign_members``."""
        _check_model(self, foreign_members)

    def _check_fitted(self):
        if not hasattr(self, self._fitted_attribute):
            # scikit-learn's wording, which scripts and tests match on.
            raise not_fitted_error(f"This {type(self).__name__} instance is not fitted yet. "
                                   "Call 'fit' with appropriate arguments before using this "
                                   "estimator.")

    def _checked_predict_input(self, X, convert):
        """``convert(X)``, after checking that the estimator is fitted and that X
        has the feature names (if any) and the number of features seen in fit."""
        self._check_fitted()
        X = as_frame(X)
        names = feature_names_of(X)
        fitted_names = getattr(self, "feature_names_in_", None)
        if names is not None and fitted_names is not None and not np.array_equal(
                names, fitted_names):
            raise ValueError("the feature names of X differ from those seen in fit: "
                             f"got {list(names)}, expected {list(fitted_names)}")
        X = convert(self._encoded(X))
        if X.shape[1] != self.n_features_in_:
            raise ValueError(f"X has {X.shape[1]} features, but {type(self).__name__} is "
                             f"expecting {self.n_features_in_} features as input (the number "
                             "it was fitted with)")
        return X

    def _scoring_weight(self, sample_weight, n_samples):
        """``sample_weight`` of a score, checked as ``fit`` checks it (a number
        is that weight on every sample); None stays None."""
        if sample_weight is None:
            return None
        return check_sample_weight(sample_weight, n_samples, estimator=type(self).__name__)

    def _categories_for_fit(self, X, feature_names):
        """X with the categorical columns (``categorical_features``) as codes,
        and their encoding (None without categorical columns)."""
        return fit_categories(X, getattr(self, "categorical_features", None), feature_names)

    def _set_encoding(self, encoding):
        """Publish the categorical features of a fit: ``is_categorical_`` (a
        mask) and ``categories_`` (the levels of each, in column order), or
        neither without any."""
        if encoding is None:
            for name in ("is_categorical_", "categories_"):
                if hasattr(self, name):
                    delattr(self, name)
        else:
            self.is_categorical_ = encoding.mask
            self.categories_ = encoding.levels

    def _set_input_attributes(self, n_features, feature_names, encoding):
        """``n_features_in_``, ``feature_names_in_`` and the categories of this fit."""
        self.n_features_in_ = n_features
        if feature_names is not None:
            self.feature_names_in_ = feature_names
        elif hasattr(self, "feature_names_in_"):
            del self.feature_names_in_
        self._set_encoding(encoding)

    def _has_encoding(self, encoding):
        """Whether a fit's category encoding (or None) is the published one."""
        mask = getattr(self, "is_categorical_", None)
        if encoding is None or mask is None:
            return encoding is None and mask is None
        return np.array_equal(encoding.mask, mask) and all(
            np.array_equal(new, old) for new, old in zip(encoding.levels, self.categories_))

    def _encoded(self, X):
        """X for prediction, its categorical columns as codes (unseen
        categories as missing values); X itself without categorical columns."""
        mask = getattr(self, "is_categorical_", None)
        if mask is None:
            return X
        return CategoryEncoding(mask, self.categories_).encode(X)

    def _set_parameters(self, arguments):
        """Store ``__init__``'s arguments (its ``locals()``), each unchanged
        under its own name, as scikit-learn's ``get_params`` and ``clone``
        expect: those of this class's signature (a base class's ``__init__``
        may take parameters that a subclass leaves out)."""
        names = set(type(self)._parameter_names())
        for name, value in parameters_of(arguments).items():
            if name in names:
                setattr(self, name, value)

    @classmethod
    def _parameter_names(cls):
        # Read off the signature once per class: forests ask for every tree.
        names = cls.__dict__.get("_parameter_names_cache")
        if names is None:
            signature = inspect.signature(cls.__init__)
            names = sorted(name for name, parameter in signature.parameters.items()
                           if name != "self" and parameter.kind != parameter.VAR_KEYWORD)
            cls._parameter_names_cache = names
        return list(names)

    def get_params(self, deep=True):
        """Parameters of this estimator.

        Parameters
        ----------
        deep : bool, default=True
            Also return the parameters of contained estimators, as
            ``<estimator>__<parameter>``.

        Returns
        -------
        dict
        """
        params = {}
        for name in self._parameter_names():
            value = getattr(self, name)
            params[name] = value
            if deep and hasattr(value, "get_params") and not isinstance(value, type):
                for sub_name, sub_value in value.get_params(deep=True).items():
                    params[f"{name}__{sub_name}"] = sub_value
        return params

    def set_params(self, **params):
        """Set parameters by name; ``<estimator>__<parameter>`` reaches nested ones.

        Returns
        -------
        self
        """
        valid = self._parameter_names()
        nested = {}
        for key, value in params.items():
            name, _, sub_name = key.partition("__")
            if name not in valid:
                raise ValueError(f"Invalid parameter {name!r} for estimator "
                                 f"{type(self).__name__}. Valid parameters are: {valid}")
            if sub_name:
                nested.setdefault(name, {})[sub_name] = value
            else:
                setattr(self, name, value)
        for name, sub_params in nested.items():
            getattr(self, name).set_params(**sub_params)
        return self

    def __repr__(self):
        defaults = inspect.signature(type(self).__init__).parameters
        changed = []
        for name in self._parameter_names():
            value = getattr(self, name)
            default = defaults[name].default
            if not _same_value(value, default):
                changed.append(f"{name}={value!r}")
        return f"{type(self).__name__}({', '.join(changed)})"

    def _allows_nan(self):
        """Whether fit and predict take NaN as a missing value (the allow_nan tag)."""
        return True

    def __sklearn_tags__(self):
        # Only scikit-learn asks for tags, so it is importable when this runs.
        from sklearn.utils import Tags, TargetTags, InputTags
        estimator_type = getattr(self, "_estimator_type", None)
        tags = Tags(estimator_type=estimator_type, target_tags=TargetTags(required=True),
                    input_tags=InputTags(allow_nan=self._allows_nan(), sparse=True))
        if estimator_type == "classifier":
            from sklearn.utils import ClassifierTags
            tags.classifier_tags = ClassifierTags()
        elif estimator_type == "regressor":
            from sklearn.utils import RegressorTags
            tags.regressor_tags = RegressorTags()
        return tags


def parameters_of(arguments):
    """An ``__init__``'s ``locals()`` as keyword arguments for its base class's
    ``__init__`` (for a subclass that only changes defaults: its own
    signature is what ``get_params`` reads)."""
    return {name: value for name, value in arguments.items()
            if name not in ("self", "__class__")}


class available_if:
    """Decorator: a method that exists only where ``check(instance)`` is true.

    Elsewhere reading it raises AttributeError, so that ``hasattr`` says no,
    as for scikit-learn's methods that depend on the wrapped estimator.
    """

    def __init__(self, check):
        self.check = check
        self.function = None

    def __call__(self, function):
        self.function = function
        functools.update_wrapper(self, function)
        return self

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        if not self.check(instance):
            raise AttributeError(f"{type(instance).__name__} has no "
                                 f"{self.function.__name__}: its estimator has none")
        return self.function.__get__(instance, owner)


class ClassifierMixin:
    """What every classifier shares: its kind, log-probabilities and accuracy."""

    _estimator_type = "classifier"

    @available_if(lambda instance: hasattr(type(instance), "predict_proba"))
    def predict_log_proba(self, X):
        """Natural logarithm of ``predict_proba`` (-inf for probability 0);
        a list of one array per output for several outputs."""
        proba = self.predict_proba(X)
        with np.errstate(divide="ignore"):
            if isinstance(proba, list):
                return [np.log(output_proba) for output_proba in proba]
            return np.log(proba)

    def score(self, X, y, sample_weight=None):
        """Accuracy of ``predict(X)`` against ``y``; ``sample_weight`` as ``fit``
        takes it."""
        predicted = self.predict(X)
        return self._score_of(y, predicted, self._scoring_weight(sample_weight, len(predicted)))

    @staticmethod
    def _score_of(y_true, y_pred, sample_weight=None):
        return accuracy(y_true, y_pred, sample_weight)


class RegressorMixin:
    """What every regressor shares: its kind and the R^2 score."""

    _estimator_type = "regressor"

    def score(self, X, y, sample_weight=None):
        """Coefficient of determination R^2 of ``predict(X)``; ``sample_weight``
        as ``fit`` takes it."""
        predicted = self.predict(X)
        return self._score_of(y, predicted, self._scoring_weight(sample_weight, len(predicted)))

    @staticmethod
    def _score_of(y_true, y_pred, sample_weight=None):
        return r2_score(y_true, y_pred, sample_weight)


def _same_value(value, default):
    if value is default:
        return True
    if isinstance(value, np.ndarray) or isinstance(default, np.ndarray):
        return False
    try:
        return bool(value == default) and type(value) is type(default)
    except (TypeError, ValueError):
        return False


def accuracy(y_true, y_pred, sample_weight=None):
    """Weighted share of equal labels; with several outputs, of rows whose
    labels are all equal (subset accuracy)."""
    equal = np.asarray(y_true) == np.asarray(y_pred)
    if equal.ndim == 2:
        equal = equal.all(axis=1)
    return float(np.average(equal, weights=sample_weight))


def r2_score(y_true, y_pred, sample_weight=None):
    """Coefficient of determination R^2 (1 is perfect; 1 when y is constant
    and predicted, else 0 for a constant y); with several outputs, the mean of
    the outputs' scores."""
    y_true = np.asarray(y_true, dtype=np.float64)
    y_pred = np.asarray(y_pred, dtype=np.float64)
    if y_true.ndim == 2 and y_true.shape[1] == 1 and y_pred.ndim == 1:
        y_true = y_true[:, 0]
    if y_true.ndim == 2:
        return float(np.mean([r2_score(y_true[:, k], y_pred[:, k], sample_weight)
                              for k in range(y_true.shape[1])]))
    weights = np.ones_like(y_true) if sample_weight is None else np.asarray(sample_weight)
    extent = max(np.max(np.abs(y_true), initial=0.0), np.max(np.abs(y_pred), initial=0.0))
    if math.isfinite(extent) and extent > 0.0 and not 2.0**-400 < extent < 2.0**400:
        # R^2 does not change when y and the predictions are scaled alike:
        # scaled by a power of two (exact) to at most 1, their squares
        # neither overflow nor underflow.
        exponent = -math.frexp(extent)[1]
        y_true, y_pred = np.ldexp(y_true, exponent), np.ldexp(y_pred, exponent)
    residual = np.sum(weights * (y_true - y_pred) ** 2)
    total = np.sum(weights * (y_true - np.average(y_true, weights=weights)) ** 2)
    if total == 0.0:
        return 1.0 if residual == 0.0 else 0.0
    return float(1.0 - residual / total)
